// Benchmark section `relay` (issue 33 item 5): what ttft-relay (crates/relay, docs/relay.md)
// costs a measurement. One release ttft-sim per upstream kind, plain HTTP/1.1 and TLS with
// HTTP/2 (its own certificate, `--tls-cert-out`, trusted by the relay with `--ca-file`), each
// with a release ttft-relay in front (`--upstream <sim>/v1`). The same request goes direct to
// the sim and through its relay, in turns:
// - curl (Debian's): each invocation makes two requests on one connection (`--next`): the
//   first opens it (curl → the sim, or curl → the relay; reported apart), the second reuses
//   it and is the warm figure. Per request: `time_starttransfer` (the response's first byte,
//   headers included: ttft-sim and the relay send headers at once, so this is the trip and
//   the relay's pass-through, not the prefill) and, from curl's own trace, its request
//   headers sent → the first body data (the first answer token: no role chunk first).
//   Through the relay, curl's leg is plain HTTP/1.1 on loopback and the relay's leg to the sim
//   is its pooled connection (warm from the warm-up on; its `relay-conn` is counted).
// - the page (Chromium, headless): the widget's `ttfa_ms` with the base URL direct and with the
//   relay's, two pages of the same browser taking turns in rounds, warm connections.
// Reported: p50 and p95 of each side, and the relay's addition: relay p50 − direct p50, relay
// p95 − direct p95, the median of the paired differences (turn by turn), and the ratio.
import { createHash, X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { startRelay } from '../e2e/support.mjs';
import { CHROMIUM_ARGS } from '../e2e/driver/chromium.mjs';
import { ROOT, openWidget, percentile, run, runSeries, startSim, summary } from './lib.mjs';

const PREFILL_MS = 100;
/** The first body bytes are the first answer token (sim-fast: no early role chunk). */
export const MODEL = `sim-fast@prefill_ms=${PREFILL_MS},answer_tokens=5,itl_ms=5`;
const WARMUP_INVOCATIONS = 3;
const WRITE_OUT = 'TSTART=%{time_starttransfer} CONNECTS=%{num_connects} HTTPVER=%{http_version}\n';

const round = (value, digits = 2) => (value === null || value === undefined || !Number.isFinite(value) ? null : Number(value.toFixed(digits)));

/** The relay's addition: relay − direct at p50 and p95, paired (turn by turn) and the ratio. */
export function added(direct, relay) {
  const a = summary(direct);
  const b = summary(relay);
  const pairs = direct.map((value, index) => relay[index] - value).filter(Number.isFinite);
  return {
    direct: a,
    relay: b,
    added_p50_ms: round(b.p50 - a.p50, 3),
    added_p95_ms: round(b.p95 - a.p95, 3),
    paired_difference: { ...summary(pairs), p50: round(percentile(pairs, 50), 3), p95: round(percentile(pairs, 95), 3) },
    ratio_p50: round(b.p50 / a.p50, 4),
  };
}

/**
 * One curl invocation, two POSTs on one connection. Per request: `ttfb` (time_starttransfer,
 * ms), `firstData` (its trace: request headers sent → the first body data, ms), `connects`,
 * `httpVersion`, and what the relay said in its Server-Timing (`relayConn`, `relayProto`).
 */
export async function curlTwice(url, { cacert = null, http2 = false } = {}) {
  const body = JSON.stringify({ model: MODEL, stream: true, messages: [{ role: 'user', content: 'Hello' }] });
  const one = [
    '-s', '-N', '-o', '/dev/null', '-w', WRITE_OUT, ...(http2 ? ['--http2'] : []), ...(cacert ? ['--cacert', cacert] : []),
    '-H', 'content-type: application/json', '-H', 'authorization: Bearer sk-bench', '-d', body, url,
  ];
  const out = await run('curl', ['--trace-ascii', '-', '--trace-time', ...one, '--next', ...one]);
  const at = (line) => {
    const [h, m, s] = line.slice(0, 15).split(':');
    return (Number(h) * 3600 + Number(m) * 60 + Number(s)) * 1000;
  };
  // -w's line closes each request's part of the output (the trace precedes it).
  const parts = out.split(/^(TSTART=.*)$/m);
  const requests = [];
  for (let index = 1; index < parts.length; index += 2) {
    const trace = parts[index - 1];
    const written = parts[index];
    let sent = null;
    let firstData = null;
    for (const line of trace.split('\n')) {
      if (!/^\d\d:\d\d:\d\d\.\d{6} /.test(line)) continue;
      if (line.includes('=> Send header')) sent = at(line);
      else if (sent !== null && firstData === null && line.includes('<= Recv data')) firstData = at(line) - sent;
    }
    requests.push({
      ttfb: Number(written.match(/TSTART=([\d.]+)/)[1]) * 1000,
      firstData,
      connects: Number(written.match(/CONNECTS=(\d+)/)[1]),
      httpVersion: written.match(/HTTPVER=(\S+)/)[1],
      relayConn: (trace.match(/relay-conn;desc=([\w-]+)/) || [])[1] ?? null,
      relayProto: (trace.match(/relay-proto;desc=([\w/.]+)/) || [])[1] ?? null,
    });
  }
  if (requests.length !== 2) throw new Error(`curl ${url}: expected two requests, parsed ${requests.length}`);
  return requests;
}

const tally = (values) => Object.fromEntries([...new Set(values)].map((value) => [String(value), values.filter((v) => v === value).length]));

/** curl direct and through the relay, `runs` turns (the order alternating each turn). */
async function curlSide(directUrl, relayUrl, { runs, cacert, http2 }) {
  const direct = (options = {}) => curlTwice(`${directUrl}/v1/chat/completions`, { cacert, http2, ...options });
  const relayed = () => curlTwice(`${relayUrl}/v1/chat/completions`);
  for (let i = 0; i < WARMUP_INVOCATIONS; i += 1) {
    await direct();
    await relayed();
  }
  const d = [];
  const r = [];
  for (let i = 0; i < runs; i += 1) {
    if (i % 2 === 0) {
      d.push(await direct());
      r.push(await relayed());
    } else {
      r.push(await relayed());
      d.push(await direct());
    }
  }
  const pick = (list, which, key) => list.map((pair) => pair[which][key]);
  return {
    invocations: runs,
    warm_ttfb_ms: added(pick(d, 1, 'ttfb'), pick(r, 1, 'ttfb')),
    warm_first_data_ms: added(pick(d, 1, 'firstData'), pick(r, 1, 'firstData')),
    new_connection_ttfb_ms: added(pick(d, 0, 'ttfb'), pick(r, 0, 'ttfb')),
    direct_http_version: tally(d.flatMap((pair) => pair.map((x) => x.httpVersion))),
    relay_http_version: tally(r.flatMap((pair) => pair.map((x) => x.httpVersion))),
    warm_reused_connection: {
      direct: pick(d, 1, 'connects').filter((n) => n === 0).length,
      relay: pick(r, 1, 'connects').filter((n) => n === 0).length,
    },
    relay_upstream_conn: tally(r.flatMap((pair) => pair.map((x) => x.relayConn))),
    relay_upstream_proto: tally(r.flatMap((pair) => pair.map((x) => x.relayProto))),
  };
}

/** The widget's stored records of `page` from run `from` on (the app's localStorage slot). */
async function storedRuns(page, from) {
  return page.evaluate((from) => JSON.parse(localStorage.getItem('ttft-meter.runs.v1') || '{"runs":[]}').runs.slice(from), from);
}

/** The widget direct and through the relay: two pages taking turns in `rounds` rounds. */
async function pageSide(browser, pageSim, directUrl, relayUrl, { runs, rounds }) {
  const direct = await openWidget(browser, pageSim.url);
  const relayed = await openWidget(browser, pageSim.url);
  const perRound = Math.ceil(runs / rounds);
  const rows = { direct: [], relay: [] };
  try {
    for (let r = 0; r < rounds; r += 1) {
      const order = r % 2 === 0 ? ['direct', 'relay'] : ['relay', 'direct'];
      for (const side of order) {
        const opened = side === 'direct' ? direct : relayed;
        const base = side === 'direct' ? directUrl : relayUrl;
        rows[side].push(...(await runSeries(opened.page, { baseUrl: `${base}/v1`, model: MODEL, runs: perRound, warmup: true })));
      }
    }
    const measured = async (opened, list) => {
      const numbers = new Set(list.map((row) => row.run));
      return (await storedRuns(opened.page, 0)).filter((record) => numbers.has(record.run_index ?? record.run));
    };
    const relayRecords = await measured(relayed, rows.relay);
    const directRecords = await measured(direct, rows.direct);
    const browserToRelay = relayRecords.map((record) => (record.breakdown?.parts ?? []).filter((part) => part.part === 'relay').reduce((sum, part) => sum + part.ms, 0));
    const ttfa = added(rows.direct.map((row) => row.ttfa_ms), rows.relay.map((row) => row.ttfa_ms));
    return {
      runs_per_side: rows.direct.length,
      rounds,
      ttfa_ms: ttfa,
      ttfa_error_ms: { direct: summary(rows.direct.map((row) => row.ttfa_ms - PREFILL_MS)), relay: summary(rows.relay.map((row) => row.ttfa_ms - PREFILL_MS)) },
      records_read: { direct: directRecords.length, relay: relayRecords.length },
      via_relay: { direct: directRecords.filter((record) => record.relay).length, relay: relayRecords.filter((record) => record.relay).length },
      relay_upstream_conn: tally(relayRecords.map((record) => record.relay?.conn ?? null)),
      relay_upstream_proto: tally(relayRecords.map((record) => record.relay?.proto ?? null)),
      widget_browser_to_relay_part_ms: summary(browserToRelay),
      page_errors: [...direct.errors, ...relayed.errors],
    };
  } finally {
    await direct.context.close();
    await relayed.context.close();
  }
}

export async function relay(pageSim, { runs, rounds, log }) {
  // e2e/support's startRelay runs TTFT_RELAY_BIN, else the debug build: here the release one
  // (scripts/bench.sh builds it).
  process.env.TTFT_RELAY_BIN ||= path.join(ROOT, 'target', 'release', 'ttft-relay');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'ttft-bench-relay-'));
  const certPath = path.join(dir, 'sim.pem');
  const servers = [];
  let browser;
  const result = { model: MODEL, prefill_ms: PREFILL_MS, runs, relay_binary: process.env.TTFT_RELAY_BIN, upstreams: {} };
  try {
    const plain = await startSim({ dist: false });
    servers.push(plain);
    const tls = await startSim({ dist: false, extraArgs: ['--tls', '--tls-cert-out', certPath] });
    servers.push(tls);
    const certPem = readFileSync(certPath, 'utf8');
    const plainRelay = await startRelay(`${plain.url}/v1`, ['--quiet']);
    servers.push(plainRelay);
    const tlsRelay = await startRelay(`${tls.url}/v1`, ['--quiet', '--ca-file', certPath]);
    servers.push(tlsRelay);
    const der = new X509Certificate(certPem).publicKey.export({ type: 'spki', format: 'der' });
    const spki = createHash('sha256').update(der).digest('base64');
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: [...CHROMIUM_ARGS, `--ignore-certificate-errors-spki-list=${spki}`] });
    const kinds = [
      { name: 'http', label: 'HTTP/1.1 upstream', sim: plain, relay: plainRelay, curl: {} },
      { name: 'https_h2', label: 'TLS + HTTP/2 upstream', sim: tls, relay: tlsRelay, curl: { cacert: certPath, http2: true } },
    ];
    for (const kind of kinds) {
      const entry = { label: kind.label, sim: kind.sim.url, relay: kind.relay.url };
      result.upstreams[kind.name] = entry;
      log(`relay ${kind.name}: curl direct and through the relay, ${runs} turns`);
      try {
        entry.curl = await curlSide(kind.sim.url, kind.relay.url, { runs, ...kind.curl });
        const c = entry.curl.warm_first_data_ms;
        log(`relay ${kind.name}: curl warm first data p50 direct ${c.direct.p50?.toFixed(2)} ms, relay ${c.relay.p50?.toFixed(2)} ms`);
      } catch (error) {
        entry.curl = { error: String(error.stack || error) };
      }
      log(`relay ${kind.name}: the page direct and through the relay, ${runs} runs each`);
      try {
        entry.page = await pageSide(browser, pageSim, kind.sim.url, kind.relay.url, { runs, rounds });
        const p = entry.page.ttfa_ms;
        log(`relay ${kind.name}: widget ttfa p50 direct ${p.direct.p50?.toFixed(2)} ms, relay ${p.relay.p50?.toFixed(2)} ms`);
      } catch (error) {
        entry.page = { error: String(error.stack || error) };
      }
    }
  } finally {
    await browser?.close();
    for (const server of servers.reverse()) await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  return result;
}

const f = (value, digits = 2) => (value === null || value === undefined || Number.isNaN(value) ? '—' : Number(value).toFixed(digits));

/** Section 2d of bench/out/report.md. */
export function renderRelay(s) {
  const out = ['## 2d. Through ttft-relay: direct against the same sim through the relay', ''];
  out.push(`Release ttft-sim on 127.0.0.1 (loopback, no delay line), \`${s.model}\`, and a release ttft-relay in front of it (\`--upstream <sim>/v1\`; TLS: the sim's own certificate, \`--tls-cert-out\`, given to the relay as \`--ca-file\`). Direct and through the relay in turns, ${s.runs} turns. curl: each invocation sends two requests on one connection; the second (warm: curl's connection reused, and through the relay its pooled upstream connection) is the figure, the first (curl's new connection, to the sim or to the relay) is reported apart. Through the relay curl speaks plain HTTP/1.1 to the relay; the relay speaks the upstream's protocol to the sim. The new-connection row is not the relay's cost: direct, curl opens its own connection to the sim (over TLS: a handshake), through the relay only a loopback TCP connection to the relay, whose connection to the sim stays warm. The widget's runs are warm on both sides (its first request per series is a warm-up). ms; added = relay − direct; the paired difference is taken turn by turn.`, '');
  out.push('| upstream | client, figure | direct p50 / p95 | through the relay p50 / p95 | added p50 | added p95 | paired difference p50 / p95 | ratio p50 |', '|---|---|---|---|---|---|---|---|');
  const row = (label, figure, x) => out.push(`| ${label} | ${figure} | ${f(x.direct.p50)} / ${f(x.direct.p95)} | ${f(x.relay.p50)} / ${f(x.relay.p95)} | ${f(x.added_p50_ms)} | ${f(x.added_p95_ms)} | ${f(x.paired_difference.p50)} / ${f(x.paired_difference.p95)} | ${f(x.ratio_p50, 3)} |`);
  const notes = [];
  for (const entry of Object.values(s.upstreams)) {
    if (entry.curl?.error) notes.push(`${entry.label}, curl failed: ${entry.curl.error.split('\n')[0]}`);
    else if (entry.curl) {
      row(entry.label, 'curl, warm: request sent → first body data (first answer token; its trace)', entry.curl.warm_first_data_ms);
      row(entry.label, 'curl, warm: `time_starttransfer` (first byte, headers)', entry.curl.warm_ttfb_ms);
      row(entry.label, 'curl, new connection: `time_starttransfer`', entry.curl.new_connection_ttfb_ms);
      notes.push(`${entry.label}: curl's HTTP versions direct ${JSON.stringify(entry.curl.direct_http_version)}, to the relay ${JSON.stringify(entry.curl.relay_http_version)}; warm requests on a reused connection: direct ${entry.curl.warm_reused_connection.direct}, relay ${entry.curl.warm_reused_connection.relay} of ${entry.curl.invocations}; the relay's upstream connection ${JSON.stringify(entry.curl.relay_upstream_conn)}, protocol ${JSON.stringify(entry.curl.relay_upstream_proto)}.`);
    }
    if (entry.page?.error) notes.push(`${entry.label}, the page failed: ${entry.page.error.split('\n')[0]}`);
    else if (entry.page) {
      row(entry.label, 'TTFT Meter `ttfa_ms` (Chromium, warm)', entry.page.ttfa_ms);
      const p = entry.page;
      notes.push(`${entry.label}: the page, ${p.runs_per_side} runs per side in ${p.rounds} rounds; records via relay: ${p.via_relay.relay} of ${p.records_read.relay} (direct: ${p.via_relay.direct} of ${p.records_read.direct}); the relay's upstream connection ${JSON.stringify(p.relay_upstream_conn)}, protocol ${JSON.stringify(p.relay_upstream_proto)}; the widget's own browser ↔ relay part p50 ${f(p.widget_browser_to_relay_part_ms.p50)} / p95 ${f(p.widget_browser_to_relay_part_ms.p95)} ms; ttfa − scripted ${s.prefill_ms} ms p50 direct ${f(p.ttfa_error_ms.direct.p50)}, relay ${f(p.ttfa_error_ms.relay.p50)}.${p.page_errors.length ? ` Page errors: ${p.page_errors.length}.` : ''}`);
    }
  }
  out.push('', ...notes.map((note) => `- ${note}`), '');
  return out;
}
