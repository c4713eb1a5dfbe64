// What each engine reports over TLS, HTTP/2 and HTTP/1.1, with a test-time self-signed
// certificate trusted through the driver layer's `trustCertificate` launch option.
//
//   node e2e/tls-probe/probe.mjs            every engine (E2E_ENGINES chooses, as in the suite)
//   node e2e/tls-probe/probe.mjs --json     the raw results as JSON too
//
// Per engine: first without the option (the page must NOT load: proves the trust is needed),
// then with it, for each protocol (h2: http2.createSecureServer with allowHTTP1; h1:
// https.createServer, ALPN http/1.1 only):
//   page    the page's own fetches: same origin (#1, #2), cross origin with a CORS preflight
//           (#1 opens the connection, #2 should reuse it), cross origin whose response has no
//           Timing-Allow-Origin, and a fetch to a server with ANOTHER self-signed certificate
//           (is the trust limited to this certificate?)
//   worker  the same from a dedicated Worker, in a fresh context, to a third origin
// Bounded: every step has a time limit, and the whole run one (exits 2 after closing all).
import { launch, selectedEngines } from '../driver/index.mjs';
import { makeCertificate, PROBE_SOURCE, startTlsServer } from './tls-server.mjs';

const RUN_LIMIT_MS = 8 * 60_000;
const STEP_LIMIT_MS = 60_000;
const PROTOCOLS = ['h2', 'h1'];
const json = process.argv.includes('--json');

const cleanups = [];
async function cleanup() {
  while (cleanups.length) await cleanups.pop()().catch(() => {});
}
const watchdog = setTimeout(async () => {
  console.error(`tls-probe: still running after ${RUN_LIMIT_MS / 1000} s, closing everything`);
  await cleanup();
  process.exit(2);
}, RUN_LIMIT_MS);

function limit(promise, what, ms = STEP_LIMIT_MS) {
  let timer;
  return Promise.race([
    promise,
    new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms / 1000} s`)), ms))),
  ]).finally(() => clearTimeout(timer));
}

// Runs the probe in a dedicated Worker of the page (the project's fetches run in one), the
// same worker for every request of the page.
const IN_WORKER = `async function (requests) {
  const worker = window.__probeWorker || (window.__probeWorker = new Worker('/worker.js'));
  return await new Promise((resolve, reject) => {
    worker.onmessage = (event) => (event.data.ok ? resolve(event.data.value) : reject(new Error(event.data.error)));
    worker.onerror = (event) => reject(new Error('worker error: ' + (event.message || 'unknown')));
    worker.postMessage(requests);
  });
}`;

const NAVIGATION = `function () {
  const e = performance.getEntriesByType('navigation')[0] || {};
  return { href: location.href, title: document.title, nextHopProtocol: e.nextHopProtocol,
    connectStart: e.connectStart, secureConnectionStart: e.secureConnectionStart, connectEnd: e.connectEnd,
    fetchStart: e.fetchStart, requestStart: e.requestStart, startTime: 0, status: 200, error: '', entry: !!e.name };
}`;

function requests(site, api, apiPreflight, other, context) {
  const post = { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"probe":true}' };
  return [
    { label: 'same-origin GET #1', url: `${site}/stream?n=1&in=${context}` },
    { label: 'same-origin GET #2', url: `${site}/stream?n=2&in=${context}` },
    { label: 'cross-origin GET #1 (no preflight)', url: `${api}/stream?n=1` },
    { label: 'cross-origin GET #2', url: `${api}/stream?n=2` },
    { label: 'cross-origin GET, no TAO', url: `${api}/stream?n=3&tao=0` },
    { label: 'cross-origin POST+preflight #1', url: `${apiPreflight}/stream?n=1`, init: post },
    // The same URL: a preflight is cached per URL (Access-Control-Max-Age 600).
    { label: 'cross-origin POST+preflight #2', url: `${apiPreflight}/stream?n=1`, init: post },
    { label: 'cross-origin POST+preflight, no TAO', url: `${apiPreflight}/stream?n=3&tao=0`, init: post },
    { label: 'other self-signed cert', url: `${other}/stream?n=1` },
  ];
}

/** A short description of an entry's connection phase. */
function connection(r) {
  if (r.error) return '-';
  if (!r.entry) return 'no entry';
  const { connectStart: cs, secureConnectionStart: sc, connectEnd: ce, fetchStart: fs } = r;
  if (cs === 0 && ce === 0 && sc === 0) return 'zeroed (0/0/0)';
  if (cs === ce) return `reused (cS=cE${cs === fs ? '=fetchStart' : ''}${sc === 0 ? ', sCS=0' : `, sCS=${sc === cs ? 'cS' : sc.toFixed(1)}`})`;
  const tcp = (sc > 0 ? sc : ce) - cs;
  const tls = sc > 0 ? ce - sc : NaN;
  return `new: tcp ${tcp.toFixed(1)} ms, tls ${Number.isNaN(tls) ? '?' : `${tls.toFixed(1)} ms`} (sCS ${sc > 0 ? 'visible' : '0'})`;
}

const rows = [];
const raw = {};
function record(engine, protocol, context, label, r, saw) {
  raw[`${engine} ${protocol} ${context} ${label}`] = r;
  rows.push([
    engine, protocol, context, label,
    r.error ? `FAIL ${r.error.slice(0, 60)}` : String(r.status),
    r.error ? '-' : JSON.stringify(r.nextHopProtocol ?? null),
    connection(r),
    r.error || !r.entry || !(r.requestStart > 0) ? '-' : (r.requestStart - r.startTime).toFixed(1),
    saw,
  ]);
}

async function untrustedLoad(engine, site) {
  // Without trustCertificate the page must not load (an interstitial, an error, or nothing).
  const browser = await limit(launch(engine), `${engine}: launch`);
  try {
    const page = await limit(browser.newPage(), `${engine}: newPage`);
    let outcome;
    try {
      await limit(page.goto(`${site}/`), `${engine}: goto`, 20_000);
      const state = await limit(page.evaluate('function () { return { href: location.href, title: document.title }; }'), `${engine}: read`);
      outcome = state.href.startsWith(site) && state.title === 'tls probe'
        ? 'LOADED (no trust needed?)'
        : `not loaded: location ${state.href}, title ${JSON.stringify(state.title)}`;
    } catch (error) {
      outcome = `not loaded: ${String(error.message).split("\n")[0].slice(0, 220)}`;
    }
    return outcome;
  } finally {
    await browser.close().catch(() => {});
  }
}

async function main() {
  const cert = makeCertificate();
  cleanups.push(async () => cert.remove());
  const otherCert = makeCertificate();
  cleanups.push(async () => otherCert.remove());
  const servers = {};
  for (const protocol of PROTOCOLS) {
    const start = async (c = cert) => {
      const server = await startTlsServer({ protocol, keyPem: c.keyPem, certPem: c.certPem });
      cleanups.push(() => server.close());
      return server;
    };
    servers[protocol] = {
      site: await start(),
      page: [await start(), await start()],
      worker: [await start(), await start()],
      other: await start(otherCert),
    };
    const { site, page, worker, other } = servers[protocol];
    servers[protocol].every = [site, ...page, ...worker, other];
  }
  console.log(`certificate: CN=127.0.0.1, SAN IP:127.0.0.1 DNS:localhost, P-256, spki sha256 ${cert.spki}`);
  const untrusted = {};
  for (const engine of selectedEngines()) {
    untrusted[engine] = await untrustedLoad(engine, servers.h2.site.origin).catch((error) => `probe failed: ${error.message}`);
    console.log(`${engine} without trustCertificate: ${untrusted[engine]}`);
    const browser = await limit(launch(engine, { trustCertificate: { certPem: cert.certPem, spki: cert.spki } }), `${engine}: launch`);
    cleanups.push(() => browser.close());
    console.log(`${engine}: ${browser.version}`);
    for (const protocol of PROTOCOLS) {
      const { site, page: apis, worker: workerApis, other } = servers[protocol];
      const all = [site, ...apis, ...workerApis];
      const marks = all.map((server) => server.log.length);
      // The page's own fetches, then the same from a dedicated Worker in a fresh context (to
      // its own cross origins). One request at a time, so that what the servers saw (which
      // connection, a new one or not) is known per request.
      for (const context of ['page', 'worker']) {
        try {
          const page = await limit(browser.newPage(), `${engine}: newPage`);
          const beforeNavigation = [site.log.length, site.connections];
          await limit(page.goto(`${site.origin}/`), `${engine}: goto`);
          const nav = await limit(page.evaluate(NAVIGATION), `${engine}: navigation entry`);
          if (nav.title !== 'tls probe') throw new Error(`the page did not load: location ${nav.href}, title ${JSON.stringify(nav.title)}`);
          const navigationSaw = `${site.log.slice(beforeNavigation[0]).map((entry) => `${entry.method} ${entry.path}`).join(', ')}; ${site.connections - beforeNavigation[1]} new TLS conn`;
          if (context === 'page') record(engine, protocol, context, 'navigation', nav, navigationSaw);
          // The worker starts (and its script loads) before the first request.
          if (context === 'worker') await limit(page.evaluate(IN_WORKER, []), `${engine}: worker start`);
          const [api, apiPreflight] = context === 'page' ? apis : workerApis;
          for (const request of requests(site.origin, api.origin, apiPreflight.origin, other.origin, context)) {
            const before = servers[protocol].every.map((server) => [server.log.length, server.connections]);
            const results = await limit(page.evaluate(context === 'page' ? PROBE_SOURCE : IN_WORKER, [request]), `${engine}: ${context} ${request.label}`);
            const saw = servers[protocol].every.flatMap((server, i) => server.log.slice(before[i][0]));
            const fresh = servers[protocol].every.reduce((sum, server, i) => sum + server.connections - before[i][1], 0);
            const sawText = saw.length
              ? `${saw.map((entry) => entry.method).join('+')} HTTP/${[...new Set(saw.map((entry) => entry.httpVersion))].join(',')}, ${fresh} new TLS conn`
              : `nothing, ${fresh} new TLS conn`;
            record(engine, protocol, context, request.label, results[request.label], sawText);
          }
          await page.close();
        } catch (error) {
          record(engine, protocol, context, 'ERROR', { error: error.message, status: 0 }, '');
        }
      }
      const seen = all.flatMap((server, i) => server.log.slice(marks[i]));
      const versions = [...new Set(seen.map((entry) => `${entry.method} HTTP/${entry.httpVersion}`))].join(', ');
      console.log(`${engine} ${protocol}: the servers saw ${seen.length} requests: ${versions}`);
    }
    await browser.close();
    cleanups.pop();
  }
  printTable();
  if (json) console.log(JSON.stringify({ untrusted, results: raw }, null, 2));
}

function printTable() {
  const header = ['engine', 'server', 'context', 'case', 'status', 'nextHopProtocol', 'connection timing (connectStart / secureConnectionStart / connectEnd)', 'startTime→requestStart ms', 'the servers saw'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)));
  const line = (cells) => `| ${cells.map((cell, i) => cell.padEnd(widths[i])).join(' | ')} |`;
  console.log();
  console.log(line(header));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const row of rows) console.log(line(row));
}

try {
  await main();
} finally {
  await cleanup();
  clearTimeout(watchdog);
}
