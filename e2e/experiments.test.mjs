// The experiments, end to end: the real page (built by Trunk, served by ttft-sim on
// 127.0.0.1) runs each experiment against ttft-sim, whose timing model is the ground truth
// (crates/sim/README.md): prefill = base + a·n + b·n², a prefix cache in 64-token blocks,
// `--slots` requests at once. Every assertion compares a number with that model, in every
// engine of E2E_ENGINES.
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { ROOT, WEBKIT_MAIN_THREAD, forEachEngine, launchBrowser, openWidget, reasonFor, startSim } from './support.mjs';

forEachEngine((engine) => {
  let sim;
  let browser;
  before(async () => {
    // Two answer tokens one ms apart: a run lasts its TTFT, so the tests stay quick.
    sim = await startSim(['--set', 'itl_ms=1', '--set', 'answer_tokens=2', '--slots', '4']);
    browser = await launchBrowser(engine);
  });
  after(async () => {
    await browser?.close();
    await sim?.stop();
  });

  /**
   * Opens the page, points the form at `model`, chooses the experiment `kind`, fills the
   * parameter fields (test id → value) and starts it. Returns the page.
   */
  async function startExperiment({ model, kind, fields, server = sim }) {
    const { page } = await openWidget(browser, server.url);
    await page.getByTestId('model').fill(model);
    await page.getByTestId('exp-kind').selectOption(kind);
    for (const [testId, value] of Object.entries(fields)) {
      await page.getByTestId(testId).fill(value);
    }
    await page.getByTestId('exp-run').click();
    return { page };
  }

  /** Waits until the experiment has ended as `state` (done / stopped). */
  async function waitForEnd(page, state = 'done', timeout = 60_000) {
    await page.locator(`[data-testid="exp-progress"][data-state="${state}"]`).waitFor({ timeout });
  }

  /** A data-* attribute of the report, as a number. */
  async function reportNumber(page, name) {
    const value = await page.getByTestId('exp-report').getAttribute(`data-${name}`);
    assert.ok(value !== null && value !== '', `data-${name} is set`);
    return Number(value);
  }

  async function verdictCode(page) {
    return page.getByTestId('exp-verdict').getAttribute('data-verdict');
  }

  const within = (actual, expected, share) => Math.abs(actual - expected) <= share * Math.abs(expected);

  test('prompt length on a linear prefill: fitted cost per token within 10% of the sim, near-linear verdict', async () => {
    // sim-linear-prefill: 200 ms + 0.5 ms per prompt token, no quadratic term.
    const { page } = await startExperiment({
      model: 'sim-linear-prefill',
      kind: 'prompt_length',
      fields: { 'exp-sizes': '100, 1000, 2000, 4000', 'exp-repetitions': '2' },
    });
    await waitForEnd(page);
    const slope = await reportNumber(page, 'slope-ms-per-token');
    const intercept = await reportNumber(page, 'intercept-ms');
    console.log(`linear: slope ${slope} ms/token (sim 0.5), intercept ${intercept} ms (sim 200)`);
    assert.ok(within(slope, 0.5, 0.1), `slope ${slope} ms/token within 10% of 0.5`);
    assert.ok(intercept >= 190 && intercept <= 260, `intercept ${intercept} ms near the sim's 200 ms`);
    assert.equal(await verdictCode(page), 'near_linear');
    // The table holds the chart's data: one row per size, two runs each.
    const rows = page.getByTestId('exp-table').locator('tbody tr');
    assert.equal(await rows.count(), 4);
    assert.deepEqual(await page.pageErrors(), []);
    await screenshot(page, 'experiments-prompt-length.png');
  });

  test('prompt length on a quadratic prefill: superlinear verdict and the quadratic term within 10%', async () => {
    // sim-slow-prefill with a = 0.1: 300 ms + 0.1·n + 0.0002·n² (3000 tokens: 2400 ms).
    const { page } = await startExperiment({
      model: 'sim-slow-prefill@a_ms_per_token=0.1',
      kind: 'prompt_length',
      fields: { 'exp-sizes': '100, 1000, 2000, 3000', 'exp-repetitions': '2' },
    });
    await waitForEnd(page);
    const quadratic = await reportNumber(page, 'quadratic-ms-per-token2');
    console.log(`quadratic: ${quadratic} ms/token² (sim 0.0002)`);
    assert.equal(await verdictCode(page), 'superlinear');
    assert.ok(within(quadratic, 0.0002, 0.1), `quadratic ${quadratic} within 10% of 0.0002`);
  });

  test('max_tokens 200 against 4000 reports no dependence', { todo: reasonFor(engine, { webkit: WEBKIT_MAIN_THREAD }) }, async () => {
    const { page } = await startExperiment({
      model: 'sim-fast',
      kind: 'max_tokens',
      fields: { 'exp-max-tokens': '200, 4000', 'exp-prompt-tokens': '1000', 'exp-repetitions': '4' },
    });
    await waitForEnd(page);
    const difference = await reportNumber(page, 'difference-ms');
    console.log(`max_tokens: median difference ${difference} ms`);
    assert.equal(await verdictCode(page), 'independent');
    assert.ok(Math.abs(difference) < 50, `difference ${difference} ms is noise`);
  });

  test('prefix cache: the warm prompt reports the sim\'s cached tokens and a lower TTFT', async () => {
    // 1000 tokens: 15 whole 64-token blocks = 960 cached; warm prefill 200 + 0.5·40 = 220 ms
    // against 700 ms cold.
    const { page } = await startExperiment({
      model: 'sim-linear-prefill',
      kind: 'prefix_cache',
      fields: { 'exp-prompt-tokens': '1000', 'exp-repetitions': '3' },
    });
    await waitForEnd(page);
    const warmCached = await reportNumber(page, 'warm-cached-tokens');
    const coldCached = await reportNumber(page, 'cold-cached-tokens');
    const coldMs = await reportNumber(page, 'cold-p50-ms');
    const warmMs = await reportNumber(page, 'warm-p50-ms');
    console.log(`cache: warm cached ${warmCached}, cold cached ${coldCached}, cold p50 ${coldMs} ms, warm p50 ${warmMs} ms`);
    assert.equal(warmCached, 960);
    assert.equal(coldCached, 0);
    assert.ok(coldMs >= 700 && coldMs < 780, `cold p50 ${coldMs} ms near the sim's 700 ms`);
    assert.ok(warmMs >= 220 && warmMs < 300, `warm p50 ${warmMs} ms near the sim's 220 ms`);
    const codes = (await page.getByTestId('exp-verdict').getAttribute('data-verdicts')).split(' ');
    assert.deepEqual(codes, ['cache_works', 'first_token_changed_misses']);
  });

  test('concurrency with 4 slots: the 5th stream waits for the server; 8 streams over HTTP/1.1 wait in the browser', async () => {
    // A fixed 400 ms prefill: a stream that waits for a slot waits a whole request.
    const { page } = await startExperiment({
      model: 'sim-fast@prefill_ms=400',
      kind: 'concurrency',
      fields: { 'exp-levels': '1, 4, 6, 8', 'exp-prompt-tokens': '100', 'exp-repetitions': '2' },
    });
    await waitForEnd(page);
    const serverParallel = await reportNumber(page, 'server-parallel');
    const firstWaiting = await reportNumber(page, 'server-first-waiting');
    const serverFrom = await reportNumber(page, 'server-from-level');
    const browserParallel = await reportNumber(page, 'browser-parallel');
    const browserFrom = await reportNumber(page, 'browser-from-level');
    console.log(
      `concurrency: server runs ${serverParallel} (first waiting ${firstWaiting}, from level ${serverFrom}); ` +
        `browser sends ${browserParallel} (from level ${browserFrom})`,
    );
    assert.equal(serverParallel, 4);
    assert.equal(firstWaiting, 5);
    assert.equal(serverFrom, 6);
    assert.equal(browserParallel, 6);
    assert.equal(browserFrom, 8);
    const codes = (await page.getByTestId('exp-verdict').getAttribute('data-verdicts')).split(' ');
    assert.ok(codes.includes('server_queueing'), `verdicts ${codes}`);
    assert.ok(codes.includes('browser_queueing'), `verdicts ${codes}`);
    await screenshot(page, 'experiments-concurrency.png');
  });

  test('models: the faster model ranks first and each model gets its own prompt-length line', async () => {
    // sim-fast: 60 + 0.05·n + 1e-6·n²; sim-linear-prefill: 200 + 0.5·n.
    const { page } = await startExperiment({
      model: 'sim-fast',
      kind: 'models',
      fields: { 'exp-models': 'sim-linear-prefill, sim-fast', 'exp-sizes': '100, 1000, 2000', 'exp-repetitions': '1' },
    });
    await waitForEnd(page);
    const ranking = await page.getByTestId('exp-report').getAttribute('data-ranking');
    assert.equal(ranking, 'sim-fast sim-linear-prefill');
    assert.equal(await verdictCode(page), 'fastest');
    const rows = page.getByTestId('exp-table').locator('tbody tr');
    const slowest = await rows.nth(1).locator('td').allTextContents();
    const prefillPer1k = Number(slowest[6]);
    console.log(`models: ranking "${ranking}", sim-linear-prefill ${prefillPer1k} ms per 1k tokens (sim 500)`);
    assert.equal(slowest[0], 'sim-linear-prefill');
    assert.ok(within(prefillPer1k, 500, 0.1), `${prefillPer1k} ms per 1k tokens within 10% of 500`);
    // One dashed fit line per model.
    assert.equal(await page.locator('[data-testid="exp-report"] path.exp-fit').count(), 2);
  });

  test('reasoning: thinking is 80% of the wait for the first answer', { todo: reasonFor(engine, { webkit: WEBKIT_MAIN_THREAD }) }, async () => {
    // First reasoning at 100 ms, first answer 20 tokens × 20 ms later, at 500 ms.
    const { page } = await startExperiment({
      model: 'sim-reasoning@prefill_ms=100,reasoning_tokens=20,itl_ms=20',
      kind: 'reasoning',
      fields: { 'exp-repetitions': '3' },
    });
    await waitForEnd(page);
    const share = await reportNumber(page, 'thinking-share');
    console.log(`reasoning: thinking share ${share} (sim 0.8)`);
    assert.ok(Math.abs(share - 0.8) < 0.05, `share ${share} near 0.8`);
    assert.equal(await verdictCode(page), 'mostly_thinking');
  });

  test('tails: tight within each size when every run gets a slot; head-of-line blocking when a long prefill holds the only slot', { todo: reasonFor(engine, { webkit: WEBKIT_MAIN_THREAD }) }, async () => {
    // 100 tokens: 250 ms; 4000 tokens: 2200 ms. Ten runs per size (the bimodality minimum).
    const fields = (sizes, repetitions, inFlight) => ({ 'exp-sizes': sizes, 'exp-repetitions': repetitions, 'exp-in-flight': inFlight });
    const bucketCells = (page) =>
      page.getByTestId('exp-table').locator('tbody tr').evaluateAll((rows) =>
        rows.map((row) => [...row.querySelectorAll('td')].map((cell) => Number(cell.textContent))),
      );
    const tight = await startExperiment({ model: 'sim-linear-prefill', kind: 'tails', fields: fields('100, 4000', '10', '4') });
    await waitForEnd(tight.page);
    const [tightShort, tightLong] = await bucketCells(tight.page);
    console.log(`tails: 4 in flight: p50 ${tightShort[3]} / ${tightLong[3]} ms, p95 ${tightShort[4]} / ${tightLong[4]} ms`);
    assert.equal(await verdictCode(tight.page), 'tight_tails');
    assert.ok(within(tightShort[3], 250, 0.15), `100-token p50 ${tightShort[3]} ms near the sim's 250 ms`);
    assert.ok(within(tightLong[3], 2200, 0.15), `4000-token p50 ${tightLong[3]} ms near the sim's 2200 ms`);
    await tight.page.close();

    // One slot, two runs in flight: each run waits for the whole service of the run ahead of
    // it. The plan alternates S L L S S L …, so half the short runs wait behind a short one
    // (250 + 250 ms) and half behind a long one (1200 + 250 ms): two modes of equal weight.
    // Sarle's coefficient of two equal modes is 0.56 at 10 runs (a coin toss against 5/9)
    // and 0.77 at 20, so this half runs 20 per size.
    const oneSlot = await startSim(['--set', 'itl_ms=1', '--set', 'answer_tokens=2', '--slots', '1']);
    try {
      const blocked = await startExperiment({
        model: 'sim-linear-prefill', kind: 'tails', fields: fields('100, 2000', '20', '2'), server: oneSlot,
      });
      await waitForEnd(blocked.page, 'done', 90_000);
      const shortRow = await blocked.page.getByTestId('exp-table').locator('tbody tr').first().locator('td').allTextContents();
      console.log(`tails: 100-token bucket behind one slot: runs ${shortRow[1]}, p50 ${shortRow[3]} ms, p95 ${shortRow[4]} ms, p99 ${shortRow[5]} ms`);
      assert.equal(await verdictCode(blocked.page), 'head_of_line_suspected');
      // A 250 ms prompt stuck behind a 1.2 s prefill: its slowest runs take 1.45 s.
      assert.ok(Number(shortRow[5]) > 1300, `100-token p99 ${shortRow[5]} ms shows waits behind long prefills`);
      await blocked.page.close();
    } finally {
      await oneSlot.stop();
    }
  });

  test('monitor: Stop ends it cleanly and keeps its results', async () => {
    const { page } = await startExperiment({
      model: 'sim-fast@prefill_ms=100',
      kind: 'monitor',
      fields: { 'exp-interval': '1', 'exp-duration': '60', 'exp-threshold': '2000', 'exp-window': '10' },
    });
    await page.locator('[data-testid="exp-report"][data-runs="3"]').waitFor({ timeout: 10_000 });
    await page.getByTestId('exp-stop').click();
    await waitForEnd(page, 'stopped', 5_000);
    const runs = await reportNumber(page, 'runs');
    // Stopped means stopped: no run starts afterwards.
    await page.waitForTimeout(1_500);
    assert.equal(await reportNumber(page, 'runs'), runs);
    assert.ok(runs >= 3 && runs <= 4, `${runs} runs kept`);
    assert.equal(await verdictCode(page), 'healthy');
    assert.equal(await page.getByTestId('exp-table').locator('tbody tr').count(), runs);
    assert.equal(await page.getByTestId('experiments').getAttribute('data-outcomes'), '1');
    const kept = await page.getByTestId('exp-outcomes').locator('tbody td').allTextContents();
    assert.deepEqual(kept.slice(1), ['Monitor', 'sim-fast@prefill_ms=100', `${runs}/60`, 'stopped', 'healthy']);
    await screenshot(page, 'experiments-monitor.png');
  });

  async function screenshot(page, name) {
    const directory = path.join(ROOT, 'e2e', 'out');
    await mkdir(directory, { recursive: true });
    await page.getByTestId('experiments').screenshot({ path: path.join(directory, name.replace(/\.png$/, `-${engine}.png`)) });
  }
});
