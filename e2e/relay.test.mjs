// ttft-relay (issue 33, docs/relay.md) between the page and a provider that hides its timing:
// the page reads what the relay saw upstream and splits the wait into browser ↔ relay, the
// relay's round trip to the provider and the provider's server, each checked against the
// script of a ttft-sim behind TLS (HTTP/2) and a 50 ms round trip, in every engine. The relay's
// own phases against the sim's connection log and its pass-through delay are native tests
// (crates/relay/tests); the CORS refusal's diagnosis with the relay's command is in
// engines.test.mjs.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before } from 'node:test';
import { WidgetPage } from './pages/widget.mjs';
import { connectionTruth, eventually, forEachEngine, launchBrowser, serverLog, sleep, startRelay, startSim, test } from './support.mjs';

/** The script: a gateway's 20 ms, a 150 ms queue, a 300 ms prefill (ms after arrival). */
const SCRIPTED_SERVER_MS = 20 + 150 + 300;
const SCRIPT = 'gateway_ms=20,queue_ms=150,prefill_ms=300,answer_tokens=3,itl_ms=5';
/** Each way of the link between the relay and the provider (a 50 ms round trip). */
const DELAY_MS = 25;

/** Each part of a breakdown, summed over its entries (0 when the run had none). */
function parts(record) {
  const sum = {};
  for (const entry of record.breakdown.parts) sum[entry.part] = (sum[entry.part] ?? 0) + entry.ms;
  return sum;
}

function near(actual, expected, tolerance, what) {
  assert.ok(actual !== undefined && Math.abs(actual - expected) <= tolerance, `${what}: ${actual} ms, expected ${expected} ± ${tolerance}`);
}

forEachEngine((engine) => {
  let browser;
  let certificate;
  const servers = [];
  before(async () => {
    certificate = { dir: mkdtempSync(path.join(os.tmpdir(), 'ttft-e2e-relay-')) };
    browser = await launchBrowser(engine);
  });
  after(async () => {
    await browser?.close();
    for (const server of servers) await server.stop();
    if (certificate) rmSync(certificate.dir, { recursive: true, force: true });
  });

  test('through ttft-relay to a provider that hides its timing (TLS, HTTP/2, a 50 ms round trip): via relay, and the wait split into browser ↔ relay, the relay\'s round trip and the provider\'s server, as scripted', async () => {
    const page = await startSim();
    servers.push(page);
    // The provider: TLS with the certificate it makes at start (a leaf; openssl's test
    // certificate is a CA, which webpki refuses as a server's own), written for the relay's
    // --ca-file; no Timing-Allow-Origin; 25 ms each way.
    const certPath = path.join(certificate.dir, 'provider.pem');
    const provider = await startSim(['--tls', '--tls-cert-out', certPath, '--record-requests', '--no-timing-allow-origin', '--delay-ms', String(DELAY_MS)], { dist: false });
    servers.push(provider);
    const relay = await startRelay(`${provider.url}/v1`, ['--ca-file', certPath]);
    servers.push(relay);
    const widget = await WidgetPage.open(browser, page.url, `?base_url=${encodeURIComponent(`${relay.url}/v1`)}`);
    await widget.measure({ model: `sim-fast@${SCRIPT}`, runs: 3 });
    const log = await serverLog(provider, readFileSync(certPath, 'utf8'));
    const truth = connectionTruth(log);
    if (truth.length !== 3) console.log(`${engine}: the provider saw ${JSON.stringify(log.requests.map((request) => [request.method, request.path]))}; run 1 ${JSON.stringify((await widget.storedRun(1)).diagnosis ?? (await widget.storedRun(1)).outcome)}`);
    assert.equal(truth.length, 3, `${engine}: three POSTs reached the provider`);
    for (let number = 1; number <= 3; number++) {
      const record = await widget.storedRun(number);
      const opened = truth[number - 1].cold;
      const what = `${engine} via relay, run ${number} (${opened ? 'a new upstream connection' : 'a reused one'} in the provider's log)`;
      const shown = parts(record);
      console.log(`${what}: ${JSON.stringify(record.breakdown.parts.map((entry) => [entry.part, Number(entry.ms.toFixed(1)), entry.source]))} relay ${JSON.stringify(record.relay)} cold ${record.cold}`);
      // Via relay, and the relay's verdict on its upstream connection is the provider's log's.
      assert.ok(record.relay?.version, `${what}: the record says via relay`);
      assert.equal(await widget.row(number).getByTestId('via-relay').count(), 1, `${what}: the runs table says via relay`);
      assert.equal(record.relay.proto, 'h2', `${what}: HTTP/2 upstream`);
      assert.equal(['new', 'new_shared'].includes(record.relay.conn), opened, `${what}: the relay's connection verdict ${record.relay.conn}`);
      assert.equal(record.cold, opened, `${what}: cold and warm are the relay's upstream connection`);
      // The parts sum to the wait for the first answer token.
      const total = record.breakdown.parts.reduce((sum, entry) => sum + entry.ms, 0);
      assert.ok(Math.abs(total - record.metrics.ttfa_ms) < 1e-6, `${what}: parts ${total} = ttfa_ms ${record.metrics.ttfa_ms}`);
      // Browser ↔ relay: loopback, measured; a handful of ms (the relay adds under a
      // millisecond: crates/relay/tests/passthrough.rs), WebKit's worker hop included.
      assert.ok(shown.relay >= 0 && shown.relay < 30, `${what}: browser ↔ relay ${shown.relay} ms`);
      // The relay's round trip to the provider: its TLS 1.3 handshake (one trip) over the
      // 50 ms link, labelled as the relay's.
      assert.equal(record.breakdown.round_trip?.from, 'relay', `${what}: the round trip is the relay's`);
      near(shown.network, 2 * DELAY_MS, 10, `${what}: relay → provider round trip`);
      // The provider's server: the script, to the round trip's estimate.
      near(shown.server, SCRIPTED_SERVER_MS, 15, `${what}: the provider's server`);
      if (opened) near(shown.connection, 2 * DELAY_MS, 15, `${what}: the relay's new connection (TLS 1.3: one round trip)`);
      else assert.ok(!shown.connection, `${what}: no connection part on a reused upstream connection`);
    }
    // A provider that closes each connection after one request (--close-after 1, as a
    // gateway may): every run makes the relay open a new one, so every run is cold, and the
    // relay's handshake (TLS 1.3 over the 50 ms link) is the run's connection part.
    const closing = await startSim(['--tls', '--tls-cert-out', certPath, '--close-after', '1', '--record-requests', '--no-timing-allow-origin', '--delay-ms', String(DELAY_MS)], { dist: false });
    servers.push(closing);
    const coldRelay = await startRelay(`${closing.url}/v1`, ['--ca-file', certPath]);
    servers.push(coldRelay);
    // The page asks the new base URL for its models list (when the field is left: the model
    // is filled after it); the run goes once that connection is closed, so that its own is
    // new and only its own set-up is on its path.
    await widget.fill({ baseUrl: `${coldRelay.url}/v1`, model: `sim-fast@${SCRIPT}` });
    // (Leaving the field fires its change event; a value set by WebDriver BiDi in Firefox
    // does not, so the test says it was left.)
    await widget.page.evaluate(() => document.querySelector('[data-testid=base-url]').dispatchEvent(new Event('change', { bubbles: true })));
    const closingCert = readFileSync(certPath, 'utf8');
    await eventually(async () => ((await serverLog(closing, closingCert)).requests.some((request) => request.path === '/v1/models') ? true : undefined), 'the models list through the relay', 10_000);
    await sleep(500);
    await widget.measure();
    const record = await widget.storedRun(4);
    const what = `${engine} via relay, a new upstream connection`;
    const shown = parts(record);
    console.log(`${what}: ${JSON.stringify(record.breakdown.parts.map((entry) => [entry.part, Number(entry.ms.toFixed(1)), entry.source]))} relay ${JSON.stringify(record.relay)} cold ${record.cold}`);
    assert.equal(record.relay?.conn, 'new', `${what}: the relay opened a connection`);
    assert.equal(record.cold, true, `${what}: cold`);
    // DNS (an address: nothing), TCP (answered by the kernel) and TLS 1.3's round trip, and
    // the relay's own work before the request was written.
    assert.ok(shown.connection >= 2 * DELAY_MS - 1 && shown.connection <= 2 * DELAY_MS + 40, `${what}: the relay's new connection ${shown.connection} ms, TLS 1.3's one round trip over the 50 ms link and its crypto`);
    near(shown.network, 2 * DELAY_MS, 10, `${what}: relay → provider round trip`);
    near(shown.server, SCRIPTED_SERVER_MS, 15, `${what}: the provider's server`);
    await widget.close();
  });
});
