// The widget end to end (issue 4): timing against ttft-sim's scripted ground truth,
// a blocked main thread, every fault diagnosed without losing earlier runs, and where the
// key lives. Real page, real browsers (every engine of E2E_ENGINES), real HTTP on
// 127.0.0.1; nothing mocked.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { WEBKIT_MAIN_THREAD, forEachEngine, launchBrowser, openLab, openWidget, perEngine, reasonFor, startSim } from './support.mjs';

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

  /** Clicks Send and waits until the series of runs has ended. */
  async function runOnce(page, { model, runs = 1, timeoutS, warmup = false } = {}) {
    if (model !== undefined) await page.getByTestId('model').fill(model);
    await page.getByTestId('run-count').fill(String(runs));
    if (timeoutS !== undefined) await page.getByTestId('timeout-s').fill(String(timeoutS));
    await page.getByTestId('warmup').setChecked(warmup);
    const rowsBefore = await page.getByTestId('run-row').count();
    await page.getByTestId('send').click();
    await page.waitForFunction(
      (expected) => document.querySelectorAll('[data-testid=run-row]').length >= expected
        && !document.querySelector('[data-testid=send]').disabled,
      rowsBefore + runs + (warmup ? 1 : 0),
      { timeout: 60_000 },
    );
  }

  /** The metric cells of run `number` (1-based), as numbers (NaN for "—"). */
  async function rowMetrics(page, number) {
    const row = page.locator(`[data-testid=run-row][data-run="${number}"]`);
    // Texts cross the driver (WebDriver's JSON has no NaN); numbers are made here.
    const cells = await row.evaluate((element) => Object.fromEntries(
      [...element.querySelectorAll('td[data-metric]')].map((cell) => [cell.dataset.metric, cell.textContent]),
    ));
    return Object.fromEntries(Object.entries(cells).map(([metric, text]) => [metric, Number(text)]));
  }

  const REASONING_MODEL = 'sim-reasoning@prefill_ms=200,reasoning_tokens=10,itl_ms=50,answer_tokens=5,early_role=1';

  /** The middle value of `values` (an odd count). */
  const median = (values) => [...values].sort((a, b) => a - b)[(values.length - 1) / 2];

  // The timing tests measure warm runs (after the widget's warm-up run): a fresh browser
  // context's first request also pays a new connection, which on this shared machine varied
  // from 4 to 40 ms before the headers came back, and is not what they are about.
  // Five warm runs: none is stamped before the sim sent its token (an early stamp, a wrong
  // start, fails in any run), their median is within 30 ms of it and their second worst
  // within 60 ms. One run alone was once 39 ms late in Firefox on this 2-core machine under
  // CI, and CI failed this test again on a machine loaded by others (its Firefox tests took
  // 745 s instead of 549): the order statistics tell the meter's error apart from one or two
  // scheduling stalls of the machine, and 250 ms (a prefill more) still bounds every run.
  test('reasoning model: first reasoning at 200 ms, first answer at 700 ms, painted soon after', async () => {
    const { page } = await openWidget(browser, sim.url);
    await runOnce(page, { model: REASONING_MODEL, runs: 5, warmup: true });
    const measured = [];
    for (let number = 2; number <= 6; number++) measured.push(await rowMetrics(page, number));
    console.log(`${engine}: ttfr ${measured.map((run) => run.ttfr_ms).join(', ')} ms (sim 200); ttfa ${measured.map((run) => run.ttfa_ms).join(', ')} ms (sim 700)`);
    const secondWorst = (values) => [...values].sort((a, b) => a - b)[values.length - 2];
    for (const [metric, sim_ms] of [['ttfr_ms', 200], ['ttfa_ms', 700]]) {
      const values = measured.map((run) => run[metric]);
      for (const value of values) {
        assert.ok(value >= sim_ms && value < sim_ms + 250, `${metric} ${value} in [${sim_ms}, ${sim_ms + 250})`);
      }
      assert.ok(median(values) <= sim_ms + 30, `median ${metric} ${median(values)} in [${sim_ms}, ${sim_ms + 30}]`);
      assert.ok(secondWorst(values) <= sim_ms + 60, `second worst ${metric} ${secondWorst(values)} in [${sim_ms}, ${sim_ms + 60}]`);
    }
    // The last run: the readouts show it.
    const metrics = measured[4];
    assert.ok(metrics.first_chunk_ms < 100, `the role chunk is first (first_chunk_ms ${metrics.first_chunk_ms})`);
    // Perceived is measured from the click, arrival from fetch(): the click comes first, so
    // perceived ttfa >= ttfa, and the paint follows the arrival within 50 ms.
    const perceived = metrics.perceived_ttfa_ms;
    assert.ok(perceived >= metrics.ttfa_ms, `perceived ${perceived} >= arrival ${metrics.ttfa_ms}`);
    const instants = await page.evaluate(() => {
      const cell = document.querySelector('[data-testid=perceived-ttfa]');
      return Number(cell.dataset.ms);
    });
    // The readout's exact value (data-ms, 3 decimals) and the table's (one decimal, Rust's
    // rounding of the binary value): the same measurement within the table's half step. (JS's
    // Math.round of 715.050 gives 715.1 where the table shows 715.0: CI, this session.)
    assert.ok(Math.abs(instants - perceived) <= 0.0501, `readout ${instants} ms and table ${perceived} ms are one measurement`);
    await page.getByTestId('more-columns').check();
    const uiDelays = [];
    for (let number = 2; number <= 6; number++) uiDelays.push((await rowMetrics(page, number)).answer_ui_delay_ms);
    for (const uiDelay of uiDelays) assert.ok(uiDelay >= 0, `answer_ui_delay_ms ${uiDelay} >= 0`);
    assert.ok(median(uiDelays) <= 50, `median answer_ui_delay_ms ${median(uiDelays)} (of ${uiDelays.join(', ')}) <= 50`);
    const method = await page.locator('[data-testid=run-row][data-run="6"] [data-testid=paint-method]').textContent();
    // Element Timing exists only in Chromium; elsewhere the app's fallback is named.
    const expected = perEngine(engine, { chromium: 'presentationTime', default: 'rAF+MessageChannel' });
    assert.equal(method, expected, `${engine} reports its paint method`);
    assert.deepEqual(await page.pageErrors(), []);
  });

  // Three blocked runs, each with the main thread busy from 100 to 400 ms after the click:
  // the first reasoning token arrives (200 ms) while the page cannot run any script. A stamp
  // taken on the main thread would read about 400 ms; the worker's reads 200. Every run must
  // be well short of the block's end, and the median within 30 ms of the sim (one run of
  // the last CI read 751 ms for the 700 ms answer, which came after the block: the machine,
  // not the block).
  test('a 300 ms main-thread task during prefill does not move the arrival times', { todo: reasonFor(engine, { webkit: WEBKIT_MAIN_THREAD }) }, async () => {
    const { page } = await openWidget(browser, sim.url);
    // A first run warms the connection; the next three are blocked.
    await runOnce(page, { model: REASONING_MODEL });
    const measured = [];
    for (let blocked = 0; blocked < 3; blocked++) {
      await page.evaluate(() => {
        window.blockedFor = 0;
        document.querySelector('[data-testid=send]').addEventListener('click', () => {
          setTimeout(() => {
            const start = performance.now();
            while (performance.now() - start < 300) { /* busy, like a long render */ }
            window.blockedFor = performance.now() - start;
          }, 100);
        }, { once: true });
      });
      await runOnce(page, {});
      assert.ok((await page.evaluate(() => window.blockedFor)) >= 300, 'the main thread was blocked');
      measured.push(await rowMetrics(page, 2 + blocked));
    }
    console.log(`blocked main thread: ttfr ${measured.map((run) => run.ttfr_ms).join(', ')} ms (sim 200), ttfa ${measured.map((run) => run.ttfa_ms).join(', ')} ms (sim 700), setup ${measured.map((run) => run.setup_ms).join(', ')} ms`);
    for (const run of measured) {
      assert.ok(run.ttfr_ms >= 200 && run.ttfr_ms < 350, `ttfr_ms ${run.ttfr_ms} in [200, 350): not the block's end (about 400)`);
      assert.ok(run.ttfa_ms >= 700, `ttfa_ms ${run.ttfa_ms} >= 700`);
    }
    const ttfr = median(measured.map((run) => run.ttfr_ms));
    const ttfa = median(measured.map((run) => run.ttfa_ms));
    assert.ok(ttfr <= 230, `median ttfr_ms ${ttfr} in [200, 230] despite the block`);
    assert.ok(ttfa <= 730, `median ttfa_ms ${ttfa} in [700, 730]`);
  });

  test('a long answer is laid out in blocks that read and render exactly as one text', async () => {
    const { page } = await openWidget(browser, sim.url);
    // About 19 KB of answer in paragraphs of 50 tokens.
    const model = 'sim-fast@prefill_ms=10,itl_ms=0.2,answer_tokens=4000,paragraph_tokens=50';
    await runOnce(page, { model });
    const reference = await page.evaluate(async (model) => {
      const response = await fetch('/v1/chat/completions', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model, messages: [{ role: 'user', content: 'Hello' }] }),
      });
      return (await response.json()).choices[0].message.content;
    }, model);
    const shown = await page.evaluate(() => {
      const pane = document.querySelector('[data-testid=answer]');
      // The same text as a single text node in an identical pane.
      const single = document.createElement('pre');
      single.className = 'pane';
      single.textContent = pane.textContent;
      pane.after(single);
      const result = {
        text: pane.textContent,
        blocks: pane.querySelectorAll('.chunk').length,
        height: pane.scrollHeight,
        singleHeight: single.scrollHeight,
      };
      single.remove();
      return result;
    });
    assert.equal(shown.text, reference, 'the pane holds the answer, character for character');
    assert.ok(shown.blocks >= 3, `${shown.blocks} blocks of about 4 KB`);
    assert.equal(shown.height, shown.singleHeight, 'blocks start at line breaks: the layout is that of one text');
    assert.deepEqual(await page.pageErrors(), []);
  });

  // Each fault of ttft-sim and the cause the widget must name.
  const FAULTS = [
    { model: 'sim-fast@fault=401', key: 'sk-test-1234567890', cause: 'key_refused' },
    { model: 'sim-fast@fault=401', key: '', cause: 'key_missing' },
    { model: 'sim-fast@fault=403', key: 'sk-test-1234567890', cause: 'forbidden' },
    { model: 'no-such-model', key: '', cause: 'model_not_found' },
    { model: 'sim-fast@fault=400', key: '', cause: 'bad_request' },
    { model: 'sim-fast@fault=429', key: '', cause: 'rate_limited' },
    { model: 'sim-fast@fault=500', key: '', cause: 'server_error' },
    { model: 'sim-fast@fault=midstream', key: '', cause: 'mid_stream_error' },
    { model: 'sim-fast@fault=malformed', key: '', cause: 'malformed_chunk' },
    { model: 'sim-fast@fault=drop', key: '', cause: 'ended_without_terminal' },
    { model: 'sim-fast@fault=stall', key: '', cause: 'timeout', timeoutS: 2 },
    // Cross-origin (localhost, not the page's 127.0.0.1), so the browser enforces CORS.
    { model: 'sim-fast@fault=nocors', key: '', cause: 'connection_failed', host: 'localhost' },
  ];

  test('every fault is diagnosed with its cause, and earlier runs stay', async () => {
    const { page } = await openWidget(browser, sim.url);
    await runOnce(page, { model: 'sim-fast@prefill_ms=50' });
    const firstTtfa = (await rowMetrics(page, 1)).ttfa_ms;
    assert.ok(firstTtfa >= 50 && firstTtfa < 120, `a good run first (ttfa ${firstTtfa})`);
    let expectedRows = 1;
    for (const fault of FAULTS) {
      await page.getByTestId('api-key').fill(fault.key);
      const host = fault.host ?? '127.0.0.1';
      await page.getByTestId('base-url').fill(`${sim.url.replace('127.0.0.1', host)}/v1`);
      await runOnce(page, { model: fault.model, timeoutS: fault.timeoutS ?? 30 });
      expectedRows += 1;
      const diagnosis = page.getByTestId('run-detail').getByTestId('diagnosis');
      assert.equal(await diagnosis.getAttribute('data-cause'), fault.cause, `${fault.model} → ${fault.cause}`);
      const text = await diagnosis.textContent();
      assert.ok(text.length > 40, `a cause and a fix are written out for ${fault.model}: ${text}`);
      assert.equal(await page.getByTestId('run-row').count(), expectedRows, 'no run was lost');
      assert.equal(
        await page.locator('[data-testid=run-row][data-run="1"]').getAttribute('data-outcome'),
        'ok',
        'the first run is still there, still ok',
      );
    }
    assert.equal((await rowMetrics(page, 1)).ttfa_ms, firstTtfa, "the first run's numbers are unchanged");
  });

  test('a wrong base URL path is told apart from an unknown model', async () => {
    const { page } = await openWidget(browser, sim.url);
    await page.getByTestId('base-url').fill(`${sim.url}/v2`);
    await runOnce(page, { model: 'sim-fast' });
    const diagnosis = page.getByTestId('run-detail').getByTestId('diagnosis');
    assert.equal(await diagnosis.getAttribute('data-cause'), 'wrong_path');
  });

  test('the key lives in sessionStorage and nowhere else', async () => {
    const { page } = await openWidget(browser, sim.url);
    const key = 'sk-e2e-secret-0123456789abcdef';
    await page.getByTestId('api-key').fill(key);
    await runOnce(page, { model: 'sim-fast@prefill_ms=20', runs: 2 });
    const stores = await page.evaluate(async () => {
      const databases = indexedDB.databases ? await indexedDB.databases() : [];
      return {
        session: JSON.stringify({ ...sessionStorage }),
        local: JSON.stringify({ ...localStorage }),
        cookies: document.cookie,
        url: location.href,
        indexedDb: JSON.stringify(databases),
        text: document.body.innerText,
        html: document.documentElement.outerHTML.replace(/value="[^"]*"/g, ''),
      };
    });
    assert.ok(stores.session.includes(key), 'sessionStorage holds the key');
    for (const place of ['local', 'cookies', 'url', 'indexedDb', 'text']) {
      assert.ok(!stores[place].includes(key), `the key is not in ${place}`);
    }
    assert.ok(!stores.html.includes(key), 'the key is not in the page markup');
    assert.ok(stores.text.includes('sk-e2e…cdef') || stores.text.includes('sk-…cdef') || /sk-\S*…cdef/.test(stores.text), 'only a masked key is shown');
    await page.getByTestId('forget-key').click();
    assert.equal(await page.evaluate(() => JSON.stringify({ ...sessionStorage })).then((s) => s.includes(key)), false);
  });

  test('TTFT-only mode stops each run right after its first answer token', async () => {
    const { page } = await openWidget(browser, sim.url);
    await page.getByTestId('ttft-only').check();
    // 200 answer tokens at 50 ms would take 10 s; TTFT-only must end at the first one.
    await runOnce(page, { model: 'sim-fast@prefill_ms=100,itl_ms=50,answer_tokens=200', runs: 2 });
    for (const number of [1, 2]) {
      const row = page.locator(`[data-testid=run-row][data-run="${number}"]`);
      assert.equal(await row.getAttribute('data-outcome'), 'ok');
      assert.match(await row.getByTestId('run-outcome').textContent(), /TTFT only/);
      const metrics = await rowMetrics(page, number);
      assert.ok(metrics.ttfa_ms >= 100 && metrics.ttfa_ms <= 160, `ttfa_ms ${metrics.ttfa_ms}`);
      assert.ok(Number.isNaN(metrics.e2e_ms), 'an aborted stream has no end-to-end time');
    }
    const answer = await page.getByTestId('answer').textContent();
    assert.ok(answer.length < 40, `only the first tokens were shown: "${answer}"`);
  });

  test('Stop ends a stalled run and the series, keeping what was measured', async () => {
    const { page } = await openWidget(browser, sim.url);
    await runOnce(page, { model: 'sim-fast@prefill_ms=30' });
    await page.getByTestId('model').fill('sim-fast@fault=stall');
    await page.getByTestId('run-count').fill('3');
    await page.getByTestId('send').click();
    await page.locator('[data-testid=status][data-state=waiting]').waitFor();
    await page.waitForTimeout(300);
    await page.getByTestId('stop').click();
    await page.waitForFunction(() => !document.querySelector('[data-testid=send]').disabled, null, { timeout: 10_000 });
    assert.equal(await page.getByTestId('run-row').count(), 2, 'the stopped run is kept, the series ended');
    const diagnosis = page.getByTestId('run-detail').getByTestId('diagnosis');
    assert.equal(await diagnosis.getAttribute('data-cause'), 'aborted');
    assert.equal(await page.locator('[data-testid=run-row][data-run="1"]').getAttribute('data-outcome'), 'ok');
  });

  test('cross-origin runs show the network breakdown, and summaries follow the cold/warm labels', async () => {
    // A sim of its own that records each request's client port: the ground truth of which
    // run opened a connection and which reused one.
    const recording = await startSim(['--record-requests']);
    try {
      // The lab: the summary table is not part of the widget's first screen.
      const { page } = await openLab(browser, recording.url);
      // localhost is another origin than the page's 127.0.0.1: CORS applies, and Resource
      // Timing details are visible only because ttft-sim sends Timing-Allow-Origin.
      await page.getByTestId('base-url').fill(`${recording.url.replace('127.0.0.1', 'localhost')}/v1`);
      await fetch(`${recording.url}/__sim/requests`, { method: 'DELETE' });
      await runOnce(page, { model: 'sim-fast@prefill_ms=300', runs: 5 });
      const breakdown = await page.getByTestId('network-breakdown').textContent();
      assert.match(breakdown, /Resource Timing\)$/, `timing is visible: ${breakdown}`);
      await page.getByTestId('more-columns').check();
      for (const number of [1, 2, 3, 4, 5]) {
        const metrics = await rowMetrics(page, number);
        // ttft-sim sends its headers before the 300 ms prefill: the first byte comes long
        // before the first token (the bound leaves room for a busy machine).
        assert.ok(metrics.queueing_ms >= 0, `run ${number}: queueing ${metrics.queueing_ms}`);
        assert.ok(metrics.waiting_ms >= 0 && metrics.waiting_ms < 150, `run ${number}: waiting ${metrics.waiting_ms} < 150 ms`);
        assert.ok(metrics.ttfa_ms >= 300, `run ${number}: ttfa ${metrics.ttfa_ms} includes the prefill`);
      }
      // The first run paid the CORS preflight (which opened the connection its POST then
      // reused): it is cold, with the preflight's cost shown. Each later run is warm when its
      // POST came on a connection an earlier request used (the sim saw the same client port),
      // cold otherwise: the truth, whatever the engine's Resource Timing says.
      const { requests } = await (await fetch(`${recording.url}/__sim/requests`)).json();
      const seenPorts = new Set();
      const truth = [];
      // Whether each POST had its own preflight just before it (an engine that does not
      // cache the preflight sends one per request).
      const preflighted = [];
      let previous = null;
      for (const request of requests.filter((r) => r.path.startsWith('/v1/'))) {
        if (request.method === 'POST') {
          truth.push(truth.length === 0 ? 'cold (preflight)' : (seenPorts.has(request.client_port) ? 'warm' : 'cold'));
          preflighted.push(previous?.method === 'OPTIONS');
        }
        seenPorts.add(request.client_port);
        previous = request;
      }
      const labels = await page.locator('[data-testid=run-row] td:nth-child(2)').allTextContents();
      console.log(`${engine}: labels ${labels.join(', ')}; connections seen by the server: ${truth.join(', ')}`);
      assert.deepEqual(labels, truth);
      const first = await rowMetrics(page, 1);
      // A cell, not the row: WebKitWebDriver calls a <tr> not interactable.
      await page.locator('[data-testid=run-row][data-run="1"] td:first-child').click();
      const preflightMs = Number(await page.getByTestId('preflight').getAttribute('data-ms'));
      assert.ok(preflightMs > 0 && Math.abs(preflightMs - first.queueing_ms) < 0.1,
        `preflight ${preflightMs} ms is run 1's queueing ${first.queueing_ms} ms`);
      // On a reused connection without a preflight of its own, a run queues for less than
      // the preflight cost (an engine that opens a new connection per request pays the
      // connection instead, as much as the preflight on loopback: not compared). Both are a
      // few ms on loopback, so the median of the later warm runs is compared: one run of a
      // CI queued 5.4 ms in Chromium, more than that run's preflight, on a scheduling stall.
      const warmQueueing = [];
      for (let index = 1; index < truth.length; index++) {
        const queueingMs = (await rowMetrics(page, index + 1)).queueing_ms;
        if (truth[index] === 'warm' && !preflighted[index]) warmQueueing.push(queueingMs);
        else console.log(`${engine}: run ${index + 1} was ${truth[index]}${preflighted[index] ? ' with its own preflight' : ''}; it queued ${queueingMs} ms, the preflight ${preflightMs} ms`);
      }
      if (warmQueueing.length > 0) {
        const sorted = [...warmQueueing].sort((a, b) => a - b);
        const middle = sorted[Math.floor((sorted.length - 1) / 2)];
        assert.ok(middle < preflightMs, `warm runs queue ${warmQueueing.join(', ')} ms (median ${middle}), less than the preflight ${preflightMs} ms`);
      }
      const cohortCount = async (cohort) => {
        const row = page.locator(`[data-testid=summary-table] tr[data-cohort=${cohort}][data-metric=ttfa_ms] td`).last();
        return (await row.count()) ? Number(await row.textContent()) : 0;
      };
      assert.equal(await cohortCount('all'), 5);
      assert.equal(await cohortCount('cold'), labels.filter((label) => label.startsWith('cold')).length);
      assert.equal(await cohortCount('warm'), labels.filter((label) => label === 'warm').length);
    } finally {
      await recording.stop();
    }
  });
});
