// Chromium client: opens PAGE (served by the server under test, so same origin), then runs
// page.html's measure(TARGET, N): N sequential streaming POSTs on one warm connection.
// Also records, from CDP, Network.responseReceived's timing.receiveHeadersEnd - sendEnd
// (when Chromium's network stack had the headers) for each POST.
// Usage: [MODEL=sim] node browser.mjs PAGE_URL TARGET_URL N SPKI_B64 [HOST_RULES]
// Prints one JSON object per run on stdout.
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);
function loadPlaywright() {
  const tries = [process.env.PLAYWRIGHT_CORE_DIR, path.resolve(import.meta.dirname, '../../node_modules/playwright-core')].filter(Boolean);
  for (const t of tries) { try { return require(t); } catch {} }
  return require('playwright-core');
}
const { chromium } = loadPlaywright();

const [, , pageUrl, target, nStr, spki, hostRules] = process.argv;
const n = Number(nStr || 5);
const args = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
  '--disable-sync', '--no-first-run', '--disable-quic', `--ignore-certificate-errors-spki-list=${spki}`];
if (hostRules) args.push(`--host-resolver-rules=${hostRules}`);

const hardStop = setTimeout(() => { console.error('browser.mjs: timeout'); process.exit(3); }, 60000 + n * 5000);
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: true, args });
try {
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  const cdp = await ctx.newCDPSession(page);
  await cdp.send('Network.enable');
  const net = new Map();
  cdp.on('Network.responseReceived', (e) => {
    if (!e.response.url.includes('/v1/chat/completions')) return;
    const t = e.response.timing;
    net.set(e.response.url, t ? { cdp_hdr: t.receiveHeadersEnd - t.sendEnd, cdp_proto: e.response.protocol } : {});
  });
  await page.goto(pageUrl, { timeout: 20000 });
  const rows = await page.evaluate(([u, k, m]) => measure(u, k, m), [target, n, process.env.MODEL || 'sim']);
  const urls = await page.evaluate(() => performance.getEntriesByType('resource').map((e) => e.name).filter((x) => x.includes('/v1/chat/completions')));
  rows.forEach((r, i) => Object.assign(r, net.get(urls[i]) || {}));
  for (const r of rows) console.log(JSON.stringify(r));
} finally {
  await browser.close();
  clearTimeout(hardStop);
}
