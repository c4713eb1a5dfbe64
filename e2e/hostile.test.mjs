// Issue 23 end to end: a hostile provider, round 2. Real browsers (every engine of
// E2E_ENGINES), a real ttft-sim on 127.0.0.1 serving the page and the hostile answers
// (crates/sim: fault=long_content_type, echo_past_keys(_midstream), bidi(_midstream),
// key_forms_midstream, key_split_panes, flood_chars, flood_lines). Nothing mocked.
//
// 1. A 64 KB Content-Type is quoted in 200 characters, and the stored run stays small.
// 2. A key-named parameter in the fragment is refused and removed, and never reaches the
//    link to the lab.
// 3. A key the tab held before is scrubbed when a provider echoes it, from the page and from
//    storage (docs/privacy.md "The key's path" says what is and is not promised).
// 4. Bidi controls in provider text are shown as escapes, and the quote is isolated (<bdi>)
//    and set apart, in the diagnosis and in the stored run.
// 5. Hex, reversed and zero-width-laced forms of the key in a mid-stream error are scrubbed;
//    7-character pieces alternating between the panes are the stated limit.
// 6. Floods (2,000,000 one-character events; 50,000 newlines and a 1 MiB word) leave the
//    page responsive: an in-page probe's longest gap stays far under the stalls measured
//    before (1,372 ms and 394 ms), and the run's own stall figure agrees with the probe's;
//    an answer's blank lead (the 50,000 newlines before its first visible text) is shown up
//    to 4 line breaks, then a note (bench/flood.mjs measures the tasks against a peer).
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { LabPage } from './pages/lab.mjs';
import { WidgetPage, RUNS_SLOT } from './pages/widget.mjs';
import { eventually, forEachEngine, launchBrowser, outPath, sleep, startSim, test } from './support.mjs';

const KEY_ONE = 'sk-ttftmeter-FIRST-4e1b9d7c2a5f8e3b6d0a';
const KEY_TWO = 'sk-ttftmeter-SECOND-9c2e5b1d4806aa177f3a';
const WINDOW = 8;

/** The plain 8-character windows of `key` found in `text` (at most 5). */
function plainLeaks(key, text) {
  const found = [];
  for (let at = 0; at + WINDOW <= key.length && found.length < 5; at += 1) {
    const window = key.slice(at, at + WINDOW);
    if (text.includes(window)) found.push(window);
  }
  return found;
}

/** The forms of issue 23 (hex, reversed, zero-width-laced), as a provider would send them. */
function hostileForms(key) {
  const hex = Buffer.from(key).toString('hex');
  const lace = (mark, every = 1) => [...key].map((c, at) => ((at + 1) % every === 0 ? c + mark : c)).join('');
  return {
    hexLower: hex,
    hexUpper: hex.toUpperCase(),
    reversed: [...key].reverse().join(''),
    zeroWidth: lace('\u200B'),
    wordJoiner: lace('\u2060'),
    softHyphen: lace('\u00AD'),
    bom: lace('\uFEFF', 3),
  };
}

/** Invisible formatting characters removed (what a reader sees of a text). */
function visible(text) {
  return text.replace(/[\u00AD\u200B-\u200F\u202A-\u202E\u2060-\u206F\uFEFF]/g, '');
}

/** Every form of `key` of {@link hostileForms} (and the key) found in `text`, made visible. */
function formLeaks(key, text) {
  const seen = visible(text);
  const forms = { key, ...hostileForms(key) };
  return Object.entries(forms)
    .filter(([, form]) => plainLeaks(visible(form), seen).length > 0)
    .map(([name]) => name);
}

/** Everything the widget's document keeps or shows: storage (the key slot apart), text, address. */
function keptAndShown(widget) {
  return widget.evaluate((keySlot) => {
    const dump = (storage) => Object.keys(storage)
      .filter((name) => name !== keySlot)
      .map((name) => `${name}=${storage.getItem(name)}`);
    return {
      local: dump(localStorage).join('\n'),
      session: dump(sessionStorage).join('\n'),
      text: `${document.body.innerText}\n${document.body.textContent}`,
      url: location.href,
    };
  }, 'ttft-meter.api-key');
}

forEachEngine((engine) => {
  let sim;
  let browser;
  before(async () => {
    sim = await startSim();
    browser = await launchBrowser(engine);
  });
  after(async () => {
    await browser?.close();
    await sim?.stop();
  });

  const model = (fault, extra = '') => `sim-fast@fault=${fault},prefill_ms=10,itl_ms=1,answer_tokens=8${extra}`;

  test('a 64 KB Content-Type is quoted in 200 characters; the stored run stays small', async () => {
    const widget = await WidgetPage.open(browser, sim.url, '?lang=en');
    const { cause } = await widget.measure({ baseUrl: `${sim.url}/v1`, model: model('long_content_type', ',content_type_bytes=65536') });
    // WebKit's network stack (libsoup) refuses a response with a header this long: the page
    // gets no answer at all, which is as safe (nothing of it is kept).
    assert.equal(cause, engine === 'webkit' ? 'connection_failed' : 'not_an_event_stream');
    const message = await widget.diagnosis.locator('strong').textContent();
    if (engine !== 'webkit') assert.match(message, /content-type "application\/json; x=a+…"/);
    assert.ok(message.length < 600, `the diagnosis is ${message.length} characters (65,819 before)`);
    const stored = await widget.storedHistoryText();
    const record = JSON.parse(stored).runs.at(-1);
    const recordBytes = JSON.stringify(record).length;
    assert.ok(recordBytes < 8 * 1024, `the stored run is ${recordBytes} bytes (134 KB before)`);
    for (const lang of ['en', 'zh']) {
      assert.ok(record.diagnosis.message[lang].length < 600, `${lang}: ${record.diagnosis.message[lang].length} characters`);
    }
    console.log(`${engine}: 64 KB Content-Type → diagnosis ${message.length} characters, stored run ${recordBytes} bytes`);
    await widget.close();
  });

  test('a key in the fragment is refused and removed, and never reaches the link to the lab', async () => {
    const widget = await WidgetPage.open(browser, sim.url, `?lang=en#api_key=${KEY_ONE}&key=${KEY_ONE}&lang=zh`);
    const url = await widget.evaluate(() => location.href);
    assert.ok(!url.includes(KEY_ONE.slice(3, 11)), `the address holds no key: ${url}`);
    assert.ok(url.endsWith('#lang=zh'), `the fragment's other parts stay: ${url}`);
    await widget.byTestId('key-refused').waitFor({ timeout: 5_000 });
    const refused = await widget.byTestId('key-refused').textContent();
    assert.match(refused, /api_key/);
    const labLink = await widget.byTestId('open-lab').getAttribute('href');
    assert.ok(!labLink.includes('api_key') && !labLink.includes(KEY_ONE.slice(3, 11)), `the lab link: ${labLink}`);
    const kept = await widget.keptStrings();
    assert.deepEqual(plainLeaks(KEY_ONE, kept), [], 'storage and the address hold no piece of the key');
    // The lab refuses it the same way.
    const lab = await LabPage.openAt(widget.page, `${sim.url}/lab/?lang=en#key=${KEY_TWO}`);
    const labUrl = await lab.evaluate(() => location.href);
    assert.ok(!labUrl.includes(KEY_TWO.slice(3, 11)), `the lab's address holds no key: ${labUrl}`);
    assert.match(await lab.byTestId('key-refused').textContent(), /key/);
    await widget.close();
  });

  test('a key this tab held before is scrubbed when the provider echoes it, from the page and from storage', async () => {
    const widget = await WidgetPage.open(browser, sim.url, '?lang=en');
    // The first key is sent once (the sim remembers every key it was sent), then replaced.
    await widget.measure({ baseUrl: `${sim.url}/v1`, apiKey: KEY_ONE, model: 'sim-fast@prefill_ms=10,itl_ms=1,answer_tokens=4' });
    await widget.fill({ apiKey: KEY_TWO });
    const seen = [];
    for (const [fault, cause] of [['echo_past_keys', 'key_refused'], ['echo_past_keys_midstream', 'mid_stream_error']]) {
      const result = await widget.measure({ model: model(fault) });
      assert.equal(result.cause, cause, fault);
      seen.push(await widget.diagnosis.textContent());
    }
    const state = await keptAndShown(widget);
    for (const [key, name] of [[KEY_ONE, 'the earlier key'], [KEY_TWO, 'the current key']]) {
      assert.deepEqual(plainLeaks(key, state.local), [], `localStorage holds no piece of ${name}`);
      assert.deepEqual(plainLeaks(key, state.session), [], `other sessionStorage slots hold none of ${name}`);
      assert.deepEqual(plainLeaks(key, state.text), [], `the page shows none of ${name}`);
    }
    assert.ok(seen.every((text) => text.includes('«key removed»')), `the diagnoses say the keys were removed: ${seen.join(' | ')}`);
    // The stored runs hold the provider's message with both keys removed.
    const runs = JSON.parse(state.local.split('\n').find((line) => line.startsWith(`${RUNS_SLOT}=`)).slice(RUNS_SLOT.length + 1)).runs;
    const midstream = runs.at(-1);
    assert.match(JSON.stringify(midstream.outcome), /Keys seen: «key removed», «key removed»/);
    await widget.close();
  });

  test('bidi controls in provider text are shown as escapes; the quote is isolated and set apart', async () => {
    const widget = await WidgetPage.open(browser, sim.url, '?lang=en');
    const { cause } = await widget.measure({ baseUrl: `${sim.url}/v1`, model: model('bidi') });
    assert.equal(cause, 'bad_request');
    const quote = widget.diagnosis.getByTestId('provider-quote');
    const shown = await quote.evaluate((element) => ({
      tag: element.tagName.toLowerCase(),
      text: element.textContent,
      bidi: getComputedStyle(element).unicodeBidi,
      font: getComputedStyle(element).fontFamily,
      strongText: element.closest('strong').textContent,
      controls: /[\u202A-\u202E\u2066-\u2069\u200E\u200F]/.test(element.closest('.diagnosis').textContent),
    }));
    assert.equal(shown.tag, 'bdi');
    assert.equal(shown.bidi, 'isolate');
    assert.match(shown.text, /^Request rejected\. <U\+202E>eunitnoc ot elpmaxe\.detsurt\/\/:sptth ot yek IPA ruoy dneS<U\+202C> Contact support\.$/);
    assert.equal(shown.controls, false, 'no bidi control reaches the page');
    assert.match(shown.strongText, /The server said: "Request rejected\./);
    await widget.page.screenshot({ path: outPath(`hostile-bidi-${engine}.png`) });
    // Mid-stream: the answer pane is isolated; the stored error holds escapes, not controls.
    await widget.measure({ model: model('bidi_midstream') });
    const pane = await widget.byTestId('answer').evaluate((element) => getComputedStyle(element).unicodeBidi);
    assert.equal(pane, 'isolate');
    const stored = await widget.storedHistoryText();
    assert.ok(!/[\u202A-\u202E\u2066-\u2069]/.test(stored), 'the stored history holds no bidi control');
    assert.ok(stored.includes('<U+202E>'), 'the stored error quotes them as escapes');
    // The models list does not offer a model id that holds one.
    const models = await widget.evaluate(async (url) => (await (await fetch(`${url}/v1/models`, { headers: { 'x-sim-fault': 'bidi' } })).json()).data.map((m) => m.id), sim.url);
    assert.ok(models.some((id) => id.includes('\u202E')), 'the sim lists a spoofing id');
    await widget.byTestId('list-models').click();
    await sleep(500);
    const offered = await widget.evaluate(() => [...document.querySelectorAll('datalist option, select option')].map((option) => option.value).join('\n'));
    assert.ok(!/[\u202A-\u202E]/.test(offered), 'no offered model id holds a bidi control');
    await widget.close();
  });

  test('hex, reversed and zero-width-laced forms of the key in a mid-stream error are scrubbed', async () => {
    const widget = await WidgetPage.open(browser, sim.url, '?lang=en');
    const { cause } = await widget.measure({ baseUrl: `${sim.url}/v1`, apiKey: KEY_ONE, model: model('key_forms_midstream') });
    assert.equal(cause, 'mid_stream_error');
    const state = await keptAndShown(widget);
    assert.deepEqual(formLeaks(KEY_ONE, state.local), [], 'history and exports hold no form of the key');
    assert.deepEqual(formLeaks(KEY_ONE, state.text), [], 'the page shows no form of the key');
    const record = (await widget.storedRuns()).at(-1);
    assert.ok((JSON.stringify(record.outcome).match(/«key removed»/g) ?? []).length >= 7, JSON.stringify(record.outcome).slice(0, 400));
    // The stated limit: 7-character pieces alternating between the reasoning and the answer
    // pane are not recognised (docs/privacy.md, "The key's path"); each pane alone holds no window.
    await widget.measure({ model: 'sim-fast@fault=key_split_panes,prefill_ms=10,itl_ms=1,reasoning_tokens=2' });
    const panes = await widget.evaluate(() => ({
      reasoning: document.querySelector('[data-testid=reasoning]')?.textContent ?? '',
      answer: document.querySelector('[data-testid=answer]')?.textContent ?? '',
    }));
    assert.deepEqual(plainLeaks(KEY_ONE, panes.reasoning), [], 'the reasoning pane alone holds no 8-character window');
    assert.deepEqual(plainLeaks(KEY_ONE, panes.answer), [], 'the answer pane alone holds no 8-character window');
    await widget.close();
  });

  /**
   * Starts an in-page probe: two chains of timers, each turn stamped with performance.now
   * (the page clock), gaps over 20 ms kept: `setTimeout(0)` (as often as the page allows)
   * and `setInterval(8)` (the kind of timer the run's own heartbeat is).
   */
  async function startProbe(widget) {
    await widget.evaluate(() => {
      const probe = { gaps: [], intervalGaps: [], running: true };
      window.__probe = probe;
      // When the run's row appears: the run's record was made just before.
      new MutationObserver(() => {
        if (probe.rowAt === undefined && document.querySelector('[data-testid=run-row]')) {
          probe.rowAt = performance.now();
          // What the answer pane had drawn when the stream ended.
          probe.drawnAtRow = document.querySelector('[data-testid=answer]')?.textContent.length ?? 0;
        }
      }).observe(document.body, { childList: true, subtree: true });
      // A chain's turn: keeps the gap since its previous turn when over 20 ms.
      const recorder = (gaps) => {
        let last = performance.now();
        return () => {
          const now = performance.now();
          if (now - last > 20) gaps.push([last, now - last]);
          last = now;
        };
      };
      const timeoutTurn = recorder(probe.gaps);
      const turn = () => {
        timeoutTurn();
        if (probe.running) setTimeout(turn, 0);
      };
      setTimeout(turn, 0);
      const intervalTurn = recorder(probe.intervalGaps);
      const beat = setInterval(() => {
        intervalTurn();
        if (!probe.running) clearInterval(beat);
      }, 8);
    });
  }

  async function stopProbe(widget) {
    return widget.evaluate(() => {
      window.__probe.running = false;
      const { gaps, intervalGaps, rowAt, drawnAtRow } = window.__probe;
      return { gaps, intervalGaps, rowAt: rowAt ?? null, drawnAtRow: drawnAtRow ?? null };
    });
  }

  for (const [name, fault, extra] of [
    ['2,000,000 one-character events', 'flood_chars', ',flood_events=2000000'],
    ['50,000 newlines and a 1 MiB word', 'flood_lines', ',flood_newlines=50000,flood_word_bytes=1048576'],
  ]) {
    test(`a flood (${name}) leaves the page responsive, and the run reports its own stall`, async () => {
      const widget = await WidgetPage.open(browser, sim.url, '?lang=en');
      await widget.fill({ baseUrl: `${sim.url}/v1`, model: `sim-fast@fault=${fault},prefill_ms=10${extra}`, timeoutS: 120 });
      await startProbe(widget);
      const calls = [];
      let streaming = true;
      const caller = (async () => {
        while (streaming) {
          const sent = Date.now();
          await widget.evaluate(() => 1);
          calls.push(Date.now() - sent);
          await sleep(20);
        }
      })();
      const started = Date.now();
      await widget.send();
      await widget.waitForRuns(1, { timeout: 180_000 });
      const wallMs = Date.now() - started;
      streaming = false;
      await caller;
      const { gaps, intervalGaps, rowAt, drawnAtRow } = await stopProbe(widget);
      const record = (await widget.storedRuns()).at(-1);
      // The gaps within the run's watch, from its request to its record (made just before
      // its row appears); a gap that runs on past it (the page drawing the finished run)
      // counts up to there.
      const from = record.instants.request_started;
      const until = rowAt ?? Infinity;
      const within = (list) => list
        .map(([at, gap]) => [at, Math.min(at + gap, until) - Math.max(at, from)])
        .filter(([, gap]) => gap > 0);
      const inRun = within(gaps);
      const probeMaxMs = Math.max(0, ...inRun.map(([, gap]) => gap));
      const intervalMaxMs = Math.max(0, ...within(intervalGaps).map(([, gap]) => gap));
      // Responsiveness: every gap from the request on, the drawing of the finished run too.
      const probeAllMs = Math.max(0, ...gaps.filter(([at, gap]) => at + gap > from).map(([, gap]) => gap));
      const callMaxMs = Math.max(0, ...calls);
      // How often the page stalled, and for how long in all beyond 50 ms each.
      const over50 = inRun.filter(([, gap]) => gap > 50);
      const excessMs = over50.reduce((sum, [, gap]) => sum + gap - 50, 0);
      const stallMs = record.main_thread_stall_ms;
      console.log(`${engine}, ${name}: ${wallMs} ms wall, outcome ${record.outcome.kind ?? JSON.stringify(record.outcome)}, ` +
        `probe's longest gap ${probeMaxMs.toFixed(1)} ms in the run (setInterval(8): ${intervalMaxMs.toFixed(1)} ms; ${inRun.length} over 20 ms, ${over50.length} over 50 ms, ${excessMs.toFixed(0)} ms beyond 50 in all), ${probeAllMs.toFixed(1)} ms with the drawing of its end, longest call ${callMaxMs} ms, ` +
        `run's stall ${stallMs?.toFixed(1)} ms, output tokens ${record.metrics.output_tokens_counted}, pane drawn at the end ${drawnAtRow} characters`);
      assert.ok(record.outcome === 'completed' || record.outcome?.kind === 'completed', JSON.stringify(record.outcome));
      assert.equal(typeof stallMs, 'number', 'the run measured its stall');
      // The run's figure covers what the probe's chains saw, within one beat: timers on one
      // event loop, but under a flood one timer can run while another, due earlier, waits a
      // round more, so a chain's longest wait can hold one of the heartbeat's beats (then it
      // is at most two of the heartbeat's waits). Seen: WebKit's setInterval(8) chain beat 13
      // and 199 ms into the setTimeout(0) chain's longest wait in 2 of 22 ad-hoc runs
      // (e2e/out); fresh-clone CI runs: WebKit, the run's stall 240 ms, the setTimeout(0)
      // chain 275 ms; Chromium, the stall 37 ms, the setInterval(8) chain 52 ms.
      for (const [chain, maxMs] of [['setTimeout(0)', probeMaxMs], ['setInterval(8)', intervalMaxMs]]) {
        assert.ok(2 * stallMs + 20 >= maxMs, `the run's stall ${stallMs} ms covers the probe's ${chain} wait ${maxMs} ms within one beat`);
        // A wait of two over 50 ms is a stall the run reports.
        if (maxMs > 100) assert.ok(stallMs > 50, `the probe's ${chain} waited ${maxMs} ms: the run reports a stall (${stallMs} ms)`);
      }
      if (engine === 'webkit') {
        // WebKit's main thread is saturated while 562 MB arrive (its own share of the data
        // path and rendering beside the page's parsing): timers still wait 150 to 390 ms at
        // times, though the pane no longer draws during the flood (docs/floods.md,
        // "What remains in WebKit"). What holds there is that the run says so (below); the
        // figures, with how often the page stalled, are logged above.
      } else {
        // Before the fix: calls into the page waited 1,372 ms and one task took 394 ms. The
        // bound is a regression guard on a shared, noisy machine (the benchmark reports the
        // figures; docs/floods.md "What holds in every engine").
        assert.ok(probeAllMs < 600, `the page's longest stall was ${probeAllMs} ms`);
        assert.ok(callMaxMs < 700, `a call into the page waited ${callMaxMs} ms`);
      }
      if (fault === 'flood_chars') {
        // 562 MB in a few seconds is a flood (ttft-core FloodGauge: 4 MiB arriving within
        // 250 ms): the pane draws nothing new while the page handles it (its first piece, and
        // what came before the gauge saw the flood: 7.5 to 14 KB in every engine; judged by
        // handling time, WebKit's slow first seconds passed for calm and it drew 80 to 128 KB;
        // without the gauge Chromium and WebKit drew 0.9 to 1 MiB during the flood), then
        // catches up to its 1 MiB.
        assert.ok(drawnAtRow !== null && drawnAtRow < 64 * 1024, `the pane drew ${drawnAtRow} characters during the flood`);
        await eventually(() => widget.evaluate(() => {
          const pane = document.querySelector('[data-testid=answer]');
          return pane.textContent.length - (pane.querySelector('[data-testid=text-cut]')?.textContent.length ?? 0) >= 1000 * 1024 || undefined;
        }), 'the pane to draw its first 1 MiB after the flood', 60_000);
      }
      if (fault === 'flood_lines') {
        // The 50,000 newlines come before the first visible text: shown up to 4 (ttft-core
        // MAX_SHOWN_LEAD_LINES), then a note; the word after them is shown.
        const answer = await widget.evaluate(() => {
          const pane = document.querySelector('[data-testid=answer]');
          return { text: pane.textContent, note: pane.querySelector('[data-testid=lead-cut]')?.textContent ?? null };
        });
        assert.equal(answer.text.match(/^\n*/)[0].length, 4, 'the lead shown is 4 line breaks');
        assert.match(answer.note ?? '', /more blank text before the answer is not shown/);
        assert.ok(answer.text.includes('x'.repeat(4096)), 'the word after the lead is shown');
      }
      if (stallMs > 50) {
        const note = await widget.byTestId('main-thread-stall').textContent();
        assert.match(note, /could not run anything for up to \d+ ms/);
      }
      await widget.close();
    });
  }
});
