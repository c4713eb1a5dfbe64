// Probe (not part of scripts/bench.sh): the widget under a 100 ms main-thread busy loop started
// 0, 30, 45 or 200 ms after the click (first answer due at 50 ms), 12 runs each; prints
// p50/p95 of the ttfa error and of setup_ms, waiting_ms, queueing_ms, first_chunk_ms.
// Needs the page and the release sim built: node bench/probe_injected.mjs
import { launchBrowser, openWidget, startSim, runSeries, setForm, rowCount, waitForRows, readRows, summary } from './lib.mjs';
const pageSim = await startSim();
const browser = await launchBrowser();
const { page } = await openWidget(browser, pageSim.url);
const prefill = 50;
const model = `sim-fast@prefill_ms=${prefill},itl_ms=2,answer_tokens=150`;
await runSeries(page, { model, runs: 1 });
await page.getByTestId('more-columns').setChecked(true);
await setForm(page, { model, runs: 1 });
for (const afterMs of [0, 30, 45, 200]) {
  const rows = [];
  for (let i = 0; i < 12; i++) {
    const before = await rowCount(page);
    await page.evaluate((a) => { document.querySelector('[data-testid=send]').click(); setTimeout(() => { const u = performance.now() + 100; while (performance.now() < u) {} }, a); }, afterMs);
    await waitForRows(page, before + 1);
    const all = await readRows(page); rows.push(all[all.length - 1]);
  }
  const s = (k) => { const x = summary(rows.map(r => r[k])); return `${x.p50?.toFixed(1)}/${x.p95?.toFixed(1)}`; };
  console.log(`busy at +${afterMs}: ttfa-${prefill} ${summary(rows.map(r => r.ttfa_ms - prefill)).p50.toFixed(1)}/${summary(rows.map(r => r.ttfa_ms - prefill)).p95.toFixed(1)} setup ${s('setup_ms')} waiting ${s('waiting_ms')} queueing ${s('queueing_ms')} first_chunk ${s('first_chunk_ms')}`);
}
await browser.close(); await pageSim.stop();
