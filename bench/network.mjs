// Benchmark section `network` (issue 21): beyond loopback. The API is a ttft-sim over TLS
// with HTTP/2 whose every byte waits 25 ms each way (a 50 ms round trip, `--delay-ms 25`),
// cold (a gateway closing each connection after one request, `--close-after 1`: every
// request pays TCP + TLS) and warm (one kept connection). Beside the widget, in the same run:
// a bare `fetch()` in a Worker of the same page, and curl (HTTP/2, its own trace's clock).
// The expected figure is the scripted server time plus the round trips the protocol needs:
// warm 100 ms + 1 round trip (request out, first token back); cold + 1 more for TLS 1.3's
// handshake (the kernel's TCP handshake is not delayed). Reported: each client's median and
// p95 against that expectation, and the widget's ratio to each peer.
import { createHash, X509Certificate } from 'node:crypto';
import { chromium } from 'playwright-core';
import { makeTestCertificate } from '../e2e/support.mjs';
import { CHROMIUM_ARGS } from '../e2e/driver/chromium.mjs';
import { openWidget, rawFetchPeer, run, runSeries, startSim, summary } from './lib.mjs';

const ONE_WAY_MS = 25;
const PREFILL_MS = 100;
/** The first body bytes are the first answer token: no role chunk before it. */
const MODEL = `sim-fast@prefill_ms=${PREFILL_MS},early_role=0,itl_ms=1,answer_tokens=5`;

/**
 * curl over HTTP/2 with the test certificate: `requests` POSTs in one process (the later ones
 * reuse its connection), timed by curl's own trace. Per request: `fromSend`, from sending its
 * headers to the first body data (the first answer token), and for the first one
 * `fromStart`, from curl's first trace line (before it connects) to that data.
 */
async function curlTimes(apiUrl, certPath, requests) {
  const body = JSON.stringify({ model: MODEL, stream: true, messages: [{ role: 'user', content: 'Hello' }] });
  const one = ['-s', '-N', '-o', '/dev/null', '--http2', '--cacert', certPath, '-H', 'content-type: application/json', '-d', body, `${apiUrl}/v1/chat/completions`];
  const args = ['--trace-ascii', '-', '--trace-time', ...one];
  for (let i = 1; i < requests; i += 1) args.push('--next', ...one);
  const trace = await run('curl', args);
  const at = (line) => {
    const [h, m, s] = line.slice(0, 15).split(':');
    return (Number(h) * 3600 + Number(m) * 60 + Number(s)) * 1000;
  };
  const lines = trace.split('\n').filter((line) => /^\d\d:\d\d:\d\d\.\d{6} /.test(line));
  const first = lines.length ? at(lines[0]) : NaN;
  const out = [];
  let sent = null;
  for (const line of lines) {
    if (line.includes('=> Send header')) sent = at(line);
    else if (sent !== null && line.includes('<= Recv data')) {
      out.push({ fromSend: at(line) - sent, fromStart: at(line) - first });
      sent = null;
    }
  }
  return out;
}

export async function network({ runs, log }) {
  const certificate = makeTestCertificate();
  const tls = [...certificate.simArgs, '--delay-ms', String(ONE_WAY_MS)];
  const pageSim = await startSim({ extraArgs: certificate.simArgs });
  const warmApi = await startSim({ dist: false, extraArgs: tls });
  const coldApi = await startSim({ dist: false, extraArgs: [...tls, '--close-after', '1'] });
  const der = new X509Certificate(certificate.certPem).publicKey.export({ type: 'spki', format: 'der' });
  const spkiHash = createHash('sha256').update(der).digest('base64');
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: [...CHROMIUM_ARGS, `--ignore-certificate-errors-spki-list=${spkiHash}`],
  });
  const roundTripMs = 2 * ONE_WAY_MS;
  const expected = { warm: PREFILL_MS + roundTripMs, cold: PREFILL_MS + 2 * roundTripMs };
  const result = { one_way_delay_ms: ONE_WAY_MS, prefill_ms: PREFILL_MS, expected_ms: expected, runs, clients: {} };
  try {
    for (const [kind, api] of [['warm', warmApi], ['cold', coldApi]]) {
      const base = api.url.replace('127.0.0.1', 'localhost');
      log(`network ${kind}: widget (a warm-up run first: it pays the CORS preflight)`);
      const { page, context } = await openWidget(browser, pageSim.url);
      const rows = await runSeries(page, { baseUrl: `${base}/v1`, model: MODEL, runs, warmup: true });
      log(`network ${kind}: bare fetch() in a Worker of the same page`);
      const bare = await rawFetchPeer(page, { url: `${base}/v1/chat/completions`, model: MODEL, runs, inWorker: true });
      const protocols = await page.evaluate(() => [...document.querySelectorAll('[data-testid=run-row]')].map((row) => row.dataset.httpProtocol));
      await context.close();
      log(`network ${kind}: curl --http2`);
      let curl;
      if (kind === 'warm') {
        // One process: the first request opens the connection, the others reuse it.
        curl = (await curlTimes(api.url, certificate.certPath, runs + 1)).slice(1).map((time) => time.fromSend);
      } else {
        // A process per request, timed from before it connects.
        curl = [];
        for (let i = 0; i < runs; i += 1) curl.push((await curlTimes(api.url, certificate.certPath, 1))[0].fromStart);
      }
      const widget = rows.map((row) => row.ttfa_ms);
      const entry = {
        expected_ms: expected[kind],
        widget_ttfa: summary(widget),
        widget_connection: [...new Set(rows.map((row) => row.connection))],
        widget_http_protocol: [...new Set(protocols.filter(Boolean))],
        browser_fetch_worker: summary(bare),
        curl_first_data: summary(curl),
      };
      entry.widget_over_expected_p50_ms = entry.widget_ttfa.p50 - expected[kind];
      entry.ratio_p50_widget_to_fetch = entry.widget_ttfa.p50 / entry.browser_fetch_worker.p50;
      entry.ratio_p50_widget_to_curl = entry.widget_ttfa.p50 / entry.curl_first_data.p50;
      result.clients[kind] = entry;
      log(`network ${kind}: widget p50 ${entry.widget_ttfa.p50.toFixed(1)} ms, fetch ${entry.browser_fetch_worker.p50.toFixed(1)}, curl ${entry.curl_first_data.p50.toFixed(1)} (expected ${expected[kind]})`);
    }
  } finally {
    await browser.close();
    await pageSim.stop();
    await warmApi.stop();
    await coldApi.stop();
    certificate.remove();
  }
  return result;
}
