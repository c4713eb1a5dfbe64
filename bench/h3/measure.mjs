// What Chromium does against an endpoint that offers HTTP/3, and what the widget reports.
// Run by run.sh, which starts the servers; every scenario launches its own headless Chromium
// (a fresh profile: no Alt-Svc remembered), WITHOUT --disable-quic.
//
// Usage: node measure.mjs CONFIG_JSON
//   CONFIG_JSON = {"page": "https://127.0.0.1:PAGEPORT", "cert": "cert.pem",
//                  "servers": {"both": {"port": P, "log": "srv-both.log"},
//                              "h1": {"port": P1, "log": "srv-h1.log"}},
//                  "out": "DIR", "only": ["name", ...]?}
// Writes DIR/results.json and prints the tables (markdown) on stdout.
import { createRequire } from 'node:module';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

const require = createRequire(import.meta.url);
function loadPlaywright() {
  const tries = [process.env.PLAYWRIGHT_CORE_DIR, path.resolve(import.meta.dirname, '../../node_modules/playwright-core')].filter(Boolean);
  for (const t of tries) { try { return require(t); } catch {} }
  return require('playwright-core');
}
const { chromium } = loadPlaywright();

const config = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const spki = crypto.createHash('sha256')
  .update(new crypto.X509Certificate(fs.readFileSync(config.cert)).publicKey.export({ type: 'spki', format: 'der' }))
  .digest('base64');

const BASE_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
  '--disable-sync', '--no-first-run', `--ignore-certificate-errors-spki-list=${spki}`,
  // Nothing but loopback: every other host name fails to resolve (Chromium's own update and
  // account probes included). localhost and 127.0.0.1 resolve as usual.
  '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1'];

// quic: 'force'  = --origin-to-force-quic-on=localhost:PORT (QUIC from the first request);
//       'none'   = nothing: Alt-Svc discovery only, the test certificate as a user's Chromium
//                  sees a self-signed one (QUIC refuses a root it does not know);
//       'waive'  = --origin-to-force-quic-on=localhost:1, a port nobody uses: QUIC is forced
//                  nowhere we measure, but `localhost` joins the hosts whose certificate may
//                  chain to an unknown root, which stands in for a publicly trusted certificate.
const SCENARIOS = [
  { name: 'fetch-forced', kind: 'fetch', server: 'both', quic: 'force', n: 6, gap: 0 },
  // A simple GET first (no preflight): the request that opens the QUIC connection has an entry.
  { name: 'fetch-forced-get-first', kind: 'fetch', server: 'both', quic: 'force', n: 2, gap: 0, firstGet: true },
  { name: 'fetch-altsvc-h2-selfsigned', kind: 'fetch', server: 'both', quic: 'none', n: 6, gap: 0, netlog: true },
  { name: 'fetch-altsvc-h2', kind: 'fetch', server: 'both', quic: 'waive', n: 6, gap: 0, netlog: true },
  { name: 'fetch-altsvc-h2-gap500', kind: 'fetch', server: 'both', quic: 'waive', n: 6, gap: 500, netlog: true },
  { name: 'fetch-altsvc-h1', kind: 'fetch', server: 'h1', quic: 'waive', n: 6, gap: 0, netlog: true },
  { name: 'widget-forced', kind: 'widget', server: 'both', quic: 'force', runs: 3 },
  { name: 'widget-altsvc-h2-selfsigned', kind: 'widget', server: 'both', quic: 'none', runs: 3, netlog: true },
  { name: 'widget-altsvc-h2', kind: 'widget', server: 'both', quic: 'waive', runs: 3, netlog: true },
  { name: 'widget-altsvc-h1', kind: 'widget', server: 'h1', quic: 'waive', runs: 3, netlog: true },
  // A returning user: the same profile visited the page before (Alt-Svc learnt, QUIC used), was
  // closed, and is opened again.
  { name: 'widget-altsvc-h2-returning', kind: 'widget', server: 'both', quic: 'waive', runs: 3, netlog: true, returning: true },
].filter((s) => !config.only?.length || config.only.includes(s.name));
// REPEAT: the widget scenarios are run this many times each (fresh browser each time).
const REPEAT = Math.max(1, Math.min(10, Number(config.repeat || 1)));
const PLAN = SCENARIOS.flatMap((s) => (s.kind === 'widget' ? Array.from({ length: REPEAT }, (_, k) => ({ ...s, rep: k + 1 })) : [s]));
const hardStopS = 60 + 30 * PLAN.length;
const hardStop = setTimeout(() => { console.error(`measure.mjs: overall timeout (${hardStopS} s)`); process.exit(3); }, hardStopS * 1000);

function readServerLog(file, since) {
  return fs.readFileSync(file, 'utf8').split('\n').filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l)).filter((e) => e.t >= since);
}

/** The parts of a NetLog that tell what became of QUIC for `host:port`. */
function netlogSummary(file, host, port) {
  let d;
  try { d = JSON.parse(fs.readFileSync(file, 'utf8')); } catch (e) { return { error: String(e) }; }
  const names = Object.fromEntries(Object.entries(d.constants.logEventTypes).map(([k, v]) => [v, k]));
  const sessions = new Map();
  const out = { alt_svc_found_broken: [], quic_sessions: [], job_types: [] };
  for (const e of d.events) {
    const n = names[e.type];
    const p = e.params || {};
    if (n === 'QUIC_SESSION' && p.host === host && p.port === port) {
      sessions.set(e.source.id, { closed: null });
      out.quic_sessions.push(sessions.get(e.source.id));
    } else if (n === 'QUIC_SESSION_CLOSED' && sessions.has(e.source.id) && !sessions.get(e.source.id).closed) {
      sessions.get(e.source.id).closed = `${p.quic_error}${p.from_peer ? ' (from peer)' : ''}: ${p.details}`;
    } else if (n === 'HTTP_STREAM_JOB_CONTROLLER_ALT_SVC_FOUND' && String(p.alt_svc).includes(`${host}:${port}`)) {
      out.alt_svc_found_broken.push(p.is_broken);
    } else if (n === 'HTTP_STREAM_JOB' && e.phase === 1 && p.destination === `https://${host}:${port}`) {
      out.job_types.push(p.type);
    }
  }
  return out;
}

function chromiumArgs(scenario, port, netlog) {
  const args = [...BASE_ARGS];
  if (scenario.quic === 'force') args.push(`--origin-to-force-quic-on=localhost:${port}`);
  if (scenario.quic === 'waive') args.push('--origin-to-force-quic-on=localhost:1');
  if (netlog) args.push(`--log-net-log=${netlog}`, '--net-log-capture-mode=Default');
  return args;
}

/** A browser context for `scenario`: a fresh profile, or for `returning` a profile that has
 * already visited the page once (the widget loaded, two GETs of the models list) and was closed. */
async function open(scenario, port, outDir) {
  const tag = `${scenario.name}${scenario.rep ? `-${scenario.rep}` : ''}`;
  const netlog = scenario.netlog ? path.join(outDir, `${tag}.netlog.json`) : null;
  const executablePath = process.env.CHROMIUM || '/usr/bin/chromium';
  if (!scenario.returning) {
    const browser = await chromium.launch({ executablePath, headless: true, args: chromiumArgs(scenario, port, netlog) });
    return { ctx: await browser.newContext(), close: () => browser.close(), netlog };
  }
  const dir = path.join(outDir, `profile-${tag}`);
  const first = await chromium.launchPersistentContext(dir, { executablePath, headless: true, args: chromiumArgs(scenario, port, null) });
  const page = first.pages()[0] ?? await first.newPage();
  const base = `https://localhost:${port}/v1`;
  await page.goto(`${config.page}/?base_url=${encodeURIComponent(base)}&model=m`, { timeout: 20_000 });
  await page.getByTestId('send').waitFor({ state: 'visible', timeout: 20_000 });
  const visit = await page.evaluate(async (models) => {
    const seen = [];
    for (let i = 0; i < 3; i++) {
      await new Promise((r) => setTimeout(r, 300));
      await (await fetch(models)).text();
    }
    await new Promise((r) => setTimeout(r, 100));
    for (const e of performance.getEntriesByName(models)) seen.push(e.nextHopProtocol);
    return seen;
  }, `${base}/models`);
  await first.close();
  const ctx = await chromium.launchPersistentContext(dir, { executablePath, headless: true, args: chromiumArgs(scenario, port, netlog) });
  return { ctx, close: () => ctx.close(), netlog, firstVisit: visit };
}

/** N sequential streaming POSTs from the page (a preflight before the first), one by one. */
async function fetchScenario(s, port, page) {
  const url = `https://localhost:${port}/v1/chat/completions`;
  return page.evaluate(async ({ url, n, gap, firstGet }) => {
    const rows = [];
    if (firstGet) {
      const models = url.replace('chat/completions', 'models');
      const t0 = performance.now();
      await (await fetch(models)).text();
      for (let k = 0; k < 50 && performance.getEntriesByName(models).length < 1; k++) await new Promise((r) => setTimeout(r, 20));
      const e = performance.getEntriesByName(models)[0];
      rows.push({
        i: 0, what: 'GET models', next_hop: e?.nextHopProtocol, connect_ms: e ? +(e.connectEnd - e.connectStart).toFixed(1) : null,
        secure_from_connect_ms: e && e.secureConnectionStart ? +(e.secureConnectionStart - e.connectStart).toFixed(1) : null,
        raw: e && Object.fromEntries(['fetchStart', 'domainLookupStart', 'domainLookupEnd', 'connectStart', 'secureConnectionStart', 'connectEnd', 'requestStart', 'responseStart']
          .map((k) => [k, +e[k].toFixed(1)])),
        total_ms: +(performance.now() - t0).toFixed(1),
      });
    }
    for (let i = 0; i < n; i++) {
      const t0 = performance.now();
      let firstChunk = null;
      let error = null;
      try {
        const res = await fetch(url, {
          method: 'POST', headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'm', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
        });
        const reader = res.body.getReader();
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          if (firstChunk === null && value?.length) firstChunk = performance.now() - t0;
        }
      } catch (e) { error = String(e); }
      // The entry may be queued a moment after the body's end: wait for it (at most 1 s).
      for (let k = 0; k < 50 && performance.getEntriesByName(url).length < i + 1; k++) await new Promise((r) => setTimeout(r, 20));
      const e = performance.getEntriesByName(url)[i];
      rows.push({
        i: i + 1, what: 'POST', error, next_hop: e?.nextHopProtocol,
        connect_ms: e ? +(e.connectEnd - e.connectStart).toFixed(1) : null,
        secure_from_connect_ms: e && e.secureConnectionStart ? +(e.secureConnectionStart - e.connectStart).toFixed(1) : null,
        queue_ms: e ? +(e.requestStart - e.fetchStart).toFixed(1) : null,
        wait_ms: e ? +(e.responseStart - e.requestStart).toFixed(1) : null,
        first_chunk_ms: firstChunk === null ? null : +firstChunk.toFixed(1),
      });
      if (gap) await new Promise((r) => setTimeout(r, gap));
    }
    return rows;
  }, { url, n: s.n, gap: s.gap, firstGet: !!s.firstGet });
}

/** The widget at PAGE with base_url on the endpoint: `runs` runs, rows read back. */
async function widgetScenario(s, port, page) {
  const q = `?base_url=${encodeURIComponent(`https://localhost:${port}/v1`)}&model=m`;
  await page.goto(`${config.page}/${q}`, { timeout: 20_000 });
  await page.getByTestId('send').waitFor({ state: 'visible', timeout: 20_000 });
  await page.locator('[data-testid=app][data-transport=worker]').waitFor({ timeout: 10_000 });
  await page.waitForTimeout(500); // the models list asked at load has been answered
  await page.getByTestId('run-count').fill(String(s.runs));
  const clicked = Date.now();
  await page.getByTestId('send').click();
  await page.waitForFunction((count) => document.querySelectorAll('[data-testid=run-row]').length >= count
    && !document.querySelector('[data-testid=send]').disabled, s.runs, { timeout: 60_000 });
  const rows = await page.evaluate(() => [...document.querySelectorAll('[data-testid=run-row]')].map((r) => ({
    run: Number(r.dataset.run), outcome: r.dataset.outcome, http_protocol: r.dataset.httpProtocol,
    cold: r.dataset.cold, evidence: r.dataset.connectionEvidence,
    ttfa_ms: r.querySelector('td[data-metric=ttfa_ms]')?.textContent,
  })));
  const stored = await page.evaluate(() => JSON.parse(localStorage.getItem('ttft-meter.runs.v1') ?? 'null')?.runs ?? []);
  for (const row of rows) {
    const rec = stored.find((r) => r.run_index === row.run);
    if (rec) {
      const n = rec.network || {};
      Object.assign(row, { stored_protocol: n.protocol, connection: n.connection, tcp_ms: n.tcp_ms, tls_ms: n.tls_ms, queueing_ms: n.queueing_ms, waiting_ms: n.waiting_ms });
    }
  }
  rows.sort((a, b) => a.run - b.run);
  return { rows, clicked };
}

/** Server truth for each POST: its protocol and connection, and whether that connection's
 * handshake finished after the previous run's answer ended (the click, for run 1). */
function serverTruth(events, clicked) {
  const opens = new Map(events.filter((e) => e.ev === 'open').map((e) => [e.conn, e]));
  const ends = new Map(events.filter((e) => e.ev === 'end').map((e) => [`${e.conn}/${e.req_on_conn}`, e]));
  const posts = events.filter((e) => e.ev === 'req' && e.method === 'POST');
  let boundary = clicked;
  return posts.map((p) => {
    const open = opens.get(p.conn);
    const cold = open ? open.t > boundary : null;
    const end = ends.get(`${p.conn}/${p.req_on_conn}`);
    boundary = end ? end.t : p.t;
    return { proto: p.proto, conn: p.conn, req_on_conn: p.req_on_conn, cold };
  });
}

const results = [];
for (const s of PLAN) {
  const srv = config.servers[s.server];
  let since = Date.now();
  const result = { ...s, port: srv.port };
  let opened = null;
  try {
    opened = await open(s, srv.port, config.out);
    const { ctx } = opened;
    if (opened.firstVisit) { result.first_visit = opened.firstVisit; since = Date.now(); }
    const page = await ctx.newPage();
    const cdp = await ctx.newCDPSession(page);
    await cdp.send('Network.enable');
    const cdpRows = [];
    cdp.on('Network.responseReceived', (e) => {
      if (e.response.url.includes(`localhost:${srv.port}/`)) cdpRows.push(`${e.type === 'Preflight' ? 'OPTIONS' : ''}${e.response.url.split(`${srv.port}`)[1]} ${e.response.protocol} #${e.response.connectionId}${e.response.connectionReused ? ' reused' : ''}`);
    });
    if (s.kind === 'fetch') {
      await page.goto(`${config.page}/__sim/info`, { timeout: 20_000 });
      result.rows = await fetchScenario(s, srv.port, page);
    } else {
      const w = await widgetScenario(s, srv.port, page);
      result.rows = w.rows;
      result.truth = serverTruth(readServerLog(srv.log, since), w.clicked);
    }
    result.cdp = cdpRows;
  } catch (e) {
    result.error = String(e?.message || e).split('\n')[0];
  } finally {
    await opened?.close().catch(() => {});
  }
  const netlog = opened?.netlog;
  await new Promise((r) => setTimeout(r, 300)); // the server's last log lines
  result.server_log = readServerLog(srv.log, since).map((e) => e.ev === 'req'
    ? `${e.method} ${e.path.replace('/v1/', '')} ${e.proto} c${e.conn}/${e.req_on_conn}`
    : e.ev === 'close' && e.proto === 'h3' ? `close h3 c${e.conn} ${e.error} ${e.reason || ''}`.trim()
      : e.ev === 'open' ? `open ${e.proto} c${e.conn}` : null).filter(Boolean);
  if (netlog) result.netlog = netlogSummary(netlog, 'localhost', srv.port);
  results.push(result);
  console.error(`${s.name}${s.rep ? ` #${s.rep}` : ''}: ${result.error ? `error ${result.error}` : 'done'}`);
}
fs.writeFileSync(path.join(config.out, 'results.json'), `${JSON.stringify(results, null, 1)}\n`);
clearTimeout(hardStop);

// ------------------------------------------------------------------ tables
const chromiumVersion = process.env.CHROMIUM_VERSION || '';
console.log(`\n### Bare fetch(): nextHopProtocol of each streaming POST (${chromiumVersion})\n`);
console.log('| scenario | QUIC flag | TCP ALPN | per request: nextHopProtocol (connectEnd−connectStart ms) | first chunk ms (median) | server: POSTs by protocol/connection |');
console.log('|---|---|---|---|---|---|');
const getRows = [];
const flag = (q) => ({ force: 'force localhost:PORT', none: 'none', waive: 'waive root check' }[q]);
const median = (xs) => { const v = xs.filter((x) => x != null).sort((a, b) => a - b); return v.length ? v[Math.floor(v.length / 2)] : null; };
for (const r of results.filter((x) => x.kind === 'fetch')) {
  if (r.error) { console.log(`| ${r.name} | ${flag(r.quic)} | | error: ${r.error} | | |`); continue; }
  const seq = r.rows.map((x) => x.error ? 'ERR' : `${x.i === 0 ? 'GET ' : ''}${x.next_hop} (${x.connect_ms})`).join(', ');
  const posts = r.server_log.filter((l) => l.startsWith('POST')).map((l) => l.split(' ').slice(2).join(' ')).join(', ');
  console.log(`| ${r.name}${r.gap ? ` (${r.gap} ms apart)` : ''} | ${flag(r.quic)} | ${r.server === 'h1' ? 'http/1.1' : 'h2, http/1.1'} | ${seq} | ${median(r.rows.map((x) => x.first_chunk_ms))} | ${posts} |`);
  const get = r.rows.find((x) => x.i === 0);
  if (get?.raw) getRows.push(`${r.name}: GET over ${get.next_hop}, Resource Timing ${JSON.stringify(get.raw)}`);
}
for (const g of getRows) console.log(`\n${g}`);
console.log(`\n### The widget: 3 runs against https://localhost:PORT/v1 (scripted prefill ${config.prefill_ms ?? 300} ms)\n`);
console.log('| scenario | QUIC flag | run | data-http-protocol | ttfa_ms | data-cold | data-connection-evidence | server: POST over | server: new connection? |');
console.log('|---|---|---|---|---|---|---|---|---|');
for (const r of results.filter((x) => x.kind === 'widget')) {
  if (r.error) { console.log(`| ${r.name} | ${flag(r.quic)} | | error: ${r.error} | | | | | |`); continue; }
  r.rows.forEach((x, i) => {
    const t = r.truth?.[i];
    console.log(`| ${i === 0 ? `${r.name}${r.rep ? ` #${r.rep}` : ''}` : ''} | ${i === 0 ? flag(r.quic) : ''} | ${x.run} | ${x.http_protocol} | ${x.ttfa_ms} | ${x.cold} | ${x.evidence} | ${t ? `${t.proto} c${t.conn}/${t.req_on_conn}` : '?'} | ${t ? (t.cold == null ? '?' : t.cold ? 'yes (cold)' : 'no (warm)') : '?'} |`);
  });
}
if (REPEAT > 1) {
  console.log(`\n### The widget, ${REPEAT} repetitions: per run number, the protocols shown, median ttfa_ms, and verdicts (widget cold / server cold)\n`);
  console.log('| scenario | run | data-http-protocol | ttfa_ms median (min–max) | widget: cold | server: new connection |');
  console.log('|---|---|---|---|---|---|');
  for (const s of SCENARIOS.filter((x) => x.kind === 'widget')) {
    const reps = results.filter((r) => r.name === s.name && !r.error);
    for (let run = 1; run <= s.runs; run++) {
      const xs = reps.map((r) => r.rows[run - 1]).filter(Boolean);
      const ts = reps.map((r) => r.truth?.[run - 1]).filter(Boolean);
      const tt = xs.map((x) => Number(x.ttfa_ms)).filter(Number.isFinite);
      const count = (vals) => Object.entries(vals.reduce((m, v) => ({ ...m, [v]: (m[v] || 0) + 1 }), {})).map(([k, v]) => `${k}×${v}`).join(' ');
      console.log(`| ${run === 1 ? s.name : ''} | ${run} | ${count(xs.map((x) => x.http_protocol))} | ${median(tt)} (${Math.min(...tt)}–${Math.max(...tt)}) | ${count(xs.map((x) => x.cold))} | ${count(ts.map((t) => t.cold))} |`);
    }
  }
}
console.log('\n### Evidence: server log (requests in order) and NetLog (QUIC sessions to the endpoint)\n');
for (const r of results) {
  console.log(`- **${r.name}${r.rep ? ` #${r.rep}` : ''}**: server: ${r.server_log.join('; ')}`);
  if (r.first_visit) console.log(`  first visit (then the browser was closed): models list over ${r.first_visit.join(', ')}`);
  if (r.netlog) {
    const q = r.netlog.quic_sessions?.map((x) => x.closed ?? 'open until exit').join(' | ') || 'none';
    console.log(`  NetLog: Alt-Svc found ${r.netlog.alt_svc_found_broken?.length ?? 0}× (broken: ${JSON.stringify(r.netlog.alt_svc_found_broken)}), stream jobs ${JSON.stringify(r.netlog.job_types)}, QUIC sessions: ${q}`);
  }
  if (r.cdp?.length) console.log(`  CDP responseReceived: ${r.cdp.join('; ')}`);
}
