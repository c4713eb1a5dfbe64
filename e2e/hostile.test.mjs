// Issue 23 end to end: a hostile provider, round 2. Real browsers (every engine of
// E2E_ENGINES), a real ttft-sim on 127.0.0.1 serving the page and the hostile answers
// (crates/sim: fault=long_content_type, echo_past_keys(_midstream), bidi(_midstream),
// key_forms_midstream, key_split_panes, flood_chars, flood_lines). Nothing mocked.
//
// 1. (a 64 KB Content-Type): in keysafety.test.mjs's list of faults.
// 2.-5. (a key in the fragment, earlier keys echoed, bidi controls, disguised key forms):
//    component tests in tests/hostile.rs.
// 6. Floods (2,000,000 one-character events; 50,000 newlines and a 1 MiB word) leave the
//    page responsive: an in-page probe's longest gap stays far under the stalls measured
//    before (1,372 ms and 394 ms), and the run's own stall figure agrees with the probe's;
//    an answer's blank lead (the 50,000 newlines before its first visible text) is shown up
//    to 4 line breaks, then a note (bench/flood.mjs measures the tasks against a peer).
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { WidgetPage } from './pages/widget.mjs';
import { eventually, forEachEngine, launchBrowser, sleep, startSim, test } from './support.mjs';

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


  // Case 1, the 64 KB Content-Type (WebKit refuses the header, the others quote it within
  // 200 characters), is one of keysafety.test.mjs's faults with the same per-engine cause
  // and bounds; natively crates/core/tests/keysafety.rs and crates/sim/tests/hostile.rs.

  // Cases 2 to 5 (a key in the fragment, keys this tab held before echoed back, bidi
  // controls, disguised forms of the key and a key split between the panes) need no engine:
  // they are component tests now (tests/hostile.rs, the widget mounted with a
  // scripted transport playing what the sim's faults send; the sim's bytes are
  // crates/sim/tests/hostile.rs's, the scrubbing crates/core/src/scrub.rs's).

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
      const wasmBefore = Number(await widget.byTestId('app').getAttribute('data-wasm-bytes'));
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
      // Memory stays bounded whatever the stream's size (issue 11; was the long-answer test of
      // e2e/keysafety.test.mjs): no text is kept past the pane's 1 MiB, and nothing per event.
      // data-wasm-bytes is the wasm memory's size, read alike in every engine, set when the
      // series ends (long before here). Measured growth (issue 31, on a loaded 2-core
      // machine), flood_chars: Chromium +5.9, +5.9, +6.5 MiB; Firefox +6.4, +6.8; WebKit
      // +5.6, +6.1, +6.4; flood_lines: Chromium +3.3, +4.1, +4.1; Firefox +4.1, +4.2, +4.3;
      // WebKit +4.1, +4.1, +5.7. The bound, 12 MiB, leaves room for that spread and stays
      // under what keeping 8 bytes per event of flood_chars' 2,000,000 would cost (15 MiB),
      // or any sizeable part of its 562 MB.
      const wasmAfter = Number(await widget.byTestId('app').getAttribute('data-wasm-bytes'));
      const grownMiB = (wasmAfter - wasmBefore) / 1048576;
      console.log(`${engine}, ${name}: wasm memory ${(wasmBefore / 1048576).toFixed(1)} → ${(wasmAfter / 1048576).toFixed(1)} MiB (+${grownMiB.toFixed(1)})`);
      assert.ok(grownMiB <= 12, `the wasm heap grew by ${grownMiB.toFixed(1)} MiB`);
      await widget.close();
    });
  }
});
