// The experiments, end to end: the real page (built by Trunk, served by ttft-sim on
// 127.0.0.1) runs one experiment of each schedule kind against ttft-sim, whose timing model
// is the ground truth (crates/sim/README.md): prefill = base + a·n + b·n², a prefix cache in
// 64-token blocks, `--slots` requests at once. Every assertion compares a number with that
// model, in every engine of E2E_ENGINES:
// - sequence: the prefix cache (the sim's real cache meets the page's real prompts);
// - waves: concurrency, with HTTP/1.1's six connections per origin in the engine;
// - lanes: tails with a slot for every run;
// - timed: the monitor, and Stop.
// What needs no engine moved (docs/e2e-inventory.md, "experiments.test.mjs"): the analyses
// are native against a copy of the sim's model (crates/lab/tests/experiment_*.rs), and the
// panel, its report, the results' filter and the context-window cases are component tests
// with runs scripted from the sim's model (crates/lab-page/tests/experiments.rs).
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { LabPage } from './pages/lab.mjs';
import { forEachEngine, launchBrowser, outPath, startSim, test } from './support.mjs';
import { FIT, within } from './timing.mjs';

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

  /** Opens the lab on the sim and starts experiment `kind` on `model` with `fields` (LabPage#startExperiment). */
  async function startExperiment({ model, kind, fields }) {
    const lab = await LabPage.open(browser, sim.url);
    await lab.startExperiment({ model, kind, fields });
    return lab;
  }

  test('prefix cache: the warm prompt reports the sim\'s cached tokens and a lower TTFT', async () => {
    // 1000 tokens: 15 whole 64-token blocks = 960 cached; warm prefill 200 + 0.5·40 = 220 ms
    // against 700 ms cold.
    const lab = await startExperiment({
      model: 'sim-linear-prefill',
      kind: 'prefix_cache',
      fields: { 'exp-prompt-tokens': '1000', 'exp-repetitions': '3' },
    });
    await lab.waitForExperimentEnd();
    const warmCached = await lab.reportNumber('warm-cached-tokens');
    const coldCached = await lab.reportNumber('cold-cached-tokens');
    const coldMs = await lab.reportNumber('cold-p50-ms');
    const warmMs = await lab.reportNumber('warm-p50-ms');
    console.log(`cache: warm cached ${warmCached}, cold cached ${coldCached}, cold p50 ${coldMs} ms, warm p50 ${warmMs} ms`);
    assert.equal(warmCached, 960);
    assert.equal(coldCached, 0);
    assert.ok(coldMs >= 700 && coldMs < 700 + FIT.p50LateMs, `cold p50 ${coldMs} ms near the sim's 700 ms`);
    assert.ok(warmMs >= 220 && warmMs < 220 + FIT.p50LateMs, `warm p50 ${warmMs} ms near the sim's 220 ms`);
    const codes = await lab.verdicts();
    assert.deepEqual(codes, ['cache_works', 'first_token_changed_misses']);
  });

  test('concurrency with 4 slots: the 5th stream waits for the server; 8 streams over HTTP/1.1 wait in the browser', async () => {
    // A fixed 400 ms prefill: a stream that waits for a slot waits a whole request.
    const lab = await startExperiment({
      model: 'sim-fast@prefill_ms=400',
      kind: 'concurrency',
      fields: { 'exp-levels': '1, 4, 6, 8', 'exp-prompt-tokens': '100', 'exp-repetitions': '2' },
    });
    await lab.waitForExperimentEnd();
    const serverParallel = await lab.reportNumber('server-parallel');
    const firstWaiting = await lab.reportNumber('server-first-waiting');
    const serverFrom = await lab.reportNumber('server-from-level');
    const browserParallel = await lab.reportNumber('browser-parallel');
    const browserFrom = await lab.reportNumber('browser-from-level');
    console.log(
      `concurrency: server runs ${serverParallel} (first waiting ${firstWaiting}, from level ${serverFrom}); ` +
        `browser sends ${browserParallel} (from level ${browserFrom})`,
    );
    assert.equal(serverParallel, 4);
    assert.equal(firstWaiting, 5);
    assert.equal(serverFrom, 6);
    assert.equal(browserParallel, 6);
    assert.equal(browserFrom, 8);
    const codes = await lab.verdicts();
    assert.ok(codes.includes('server_queueing'), `verdicts ${codes}`);
    assert.ok(codes.includes('browser_queueing'), `verdicts ${codes}`);
    // It says what the endpoint spoke: plain ttft-sim speaks HTTP/1.1.
    assert.ok(codes.includes('protocol'), `verdicts ${codes}`);
    assert.match(await lab.byTestId('exp-verdict').textContent(), /went over http\/1\.1/);
    await screenshot(lab, 'experiments-concurrency.png');
  });

  test('tails: tight within each size when every run gets a slot', async () => {
    // Four lanes on four slots: 100 tokens: 250 ms; 4000 tokens: 2200 ms. Ten runs per
    // size (the bimodality minimum). The one-slot case (head-of-line blocking) is native:
    // crates/lab/tests/experiment_tails_reasoning_monitor.rs.
    const lab = await startExperiment({
      model: 'sim-linear-prefill',
      kind: 'tails',
      fields: { 'exp-sizes': '100, 4000', 'exp-repetitions': '10', 'exp-in-flight': '4' },
    });
    await lab.waitForExperimentEnd();
    const [short, long] = (await lab.experimentCells()).map((row) => row.map(Number));
    console.log(`tails: 4 in flight: p50 ${short[3]} / ${long[3]} ms, p95 ${short[4]} / ${long[4]} ms`);
    assert.equal(await lab.verdict(), 'tight_tails');
    assert.ok(within(short[3], 250, FIT.tailsShare), `100-token p50 ${short[3]} ms near the sim's 250 ms`);
    assert.ok(within(long[3], 2200, FIT.tailsShare), `4000-token p50 ${long[3]} ms near the sim's 2200 ms`);
  });

  test('monitor: Stop ends it cleanly and keeps its results', async () => {
    const lab = await startExperiment({
      model: 'sim-fast@prefill_ms=100',
      kind: 'monitor',
      fields: { 'exp-interval': '1', 'exp-duration': '60', 'exp-threshold': '2000', 'exp-window': '10' },
    });
    await lab.locator('[data-testid="exp-report"][data-runs="3"]').waitFor({ timeout: 10_000 });
    await lab.byTestId('exp-stop').click();
    await lab.waitForExperimentEnd('stopped', 5_000);
    const runs = await lab.reportNumber('runs');
    // Stopped means stopped: no run starts afterwards.
    await lab.page.waitForTimeout(1_500);
    assert.equal(await lab.reportNumber('runs'), runs);
    assert.ok(runs >= 3 && runs <= 4, `${runs} runs kept`);
    assert.equal(await lab.verdict(), 'healthy');
    assert.equal(await lab.experimentRows.count(), runs);
    assert.equal(await lab.byTestId('experiments').getAttribute('data-outcomes'), '1');
    const kept = await lab.byTestId('exp-outcomes').locator('tbody td').allTextContents();
    assert.deepEqual(kept.slice(1, 5), ['Monitor', 'sim-fast@prefill_ms=100', `${runs}/60`, 'stopped']);
    // The verdict is a sentence; its code is on the row.
    const keptRow = lab.byTestId('exp-outcomes').locator('tbody tr');
    assert.equal(await keptRow.getAttribute('data-verdict'), 'healthy');
    assert.match(kept[5], /^Within the limit: TTFT p95 is \d+ ms \(limit 2000 ms\)\.$/);
    await screenshot(lab, 'experiments-monitor.png');
  });

  async function screenshot(lab, name) {
    await lab.byTestId('experiments').screenshot({ path: outPath(name.replace(/\.png$/, `-${engine}.png`)) });
  }
});
