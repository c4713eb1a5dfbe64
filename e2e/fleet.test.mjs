// Issue 15, the page side, end to end: what only an engine can tell (issue 31).
// OpenTelemetry export into the strict OTLP receiver on another origin (official protobuf
// definitions, CORS as the Collector), W3C trace context through a real preflight and its
// CORS diagnosis, experiment runs traced, embedding in a plain and in a cross-origin-isolated
// host page (with probe mode starting on load in a frame), the 360 px fleet UI. Every value
// is checked against the run's own stored record or ttft-sim's scripted timing; nothing is
// mocked. Runs in every engine of E2E_ENGINES.
// Moved to component tests (crates/lab-page/tests/fleet.rs; docs/e2e-inventory.md,
// "fleet.test.mjs"): the status line's texts, the model key refused as a collector header,
// trace context's texts and stopped series, probe mode's notice, messages, once per tab and
// Stop, SLOs and goodput, share links; the OTLP bodies' content is native
// (crates/lab/tests/otlp_bodies.rs).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { after, before } from 'node:test';
import { HostPage } from './pages/host.mjs';
import { LabPage } from './pages/lab.mjs';
import { WidgetPage } from './pages/widget.mjs';
import { startHost, startRecorder } from './servers.mjs';
import { ROOT, eventually, forEachEngine, launchBrowser, outPath, perEngine, startSim, test } from './support.mjs';
import { FLOAT_EPSILON, LATE_MS, assertOnTime } from './timing.mjs';

// A key that must never reach the collector, in any piece.
const TYPED_KEY = 'sk-fleet-QWERTYZXCVB-7f3k';
const KEY_PIECES = ['QWERTY', 'ZXCVB', 'sk-fleet', '7f3k'];

/** The OTLP receiver's Python (scripts/setup.sh installs it and exports OTLP_PYTHON). */
const OTLP_PYTHON = process.env.OTLP_PYTHON || path.join(ROOT, '.venv-otlp', 'bin', 'python');

/**
 * Starts tests/otlp/receiver.py on a free loopback port, allowing `origins` under CORS as a
 * Collector's `cors.allowed_origins` would. Resolves to { url, received(), control(), stop }.
 */
async function startReceiver(origins) {
  assert.ok(existsSync(OTLP_PYTHON), `the OTLP receiver needs ${OTLP_PYTHON}: run scripts/setup.sh`);
  const args = [path.join(ROOT, 'tests', 'otlp', 'receiver.py'), '--port', '0', '--exposed-header', 'Retry-After'];
  for (const origin of origins) args.push('--allowed-origin', origin);
  const child = spawn(OTLP_PYTHON, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  let buffered = '';
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the OTLP receiver did not start within 15 s')), 15_000);
    child.once('exit', (code) => reject(new Error(`the OTLP receiver exited early with ${code}`)));
    child.stdout.on('data', (data) => {
      buffered += data.toString();
      const match = buffered.match(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
  });
  return {
    url,
    async received() {
      return (await (await fetch(`${url}/received`)).json()).requests;
    },
    async rejected() {
      return (await (await fetch(`${url}/rejected`)).json()).requests;
    },
    async control(settings) {
      await fetch(`${url}/control`, { method: 'POST', body: JSON.stringify(settings) });
    },
    async forget() {
      await fetch(`${url}/received`, { method: 'DELETE' });
    },
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await once(child, 'exit');
      }
    },
  };
}

/** An OTLP attribute list as a plain object (`intValue` strings kept as strings). */
function attributes(list = []) {
  return Object.fromEntries(
    list.map(({ key, value }) => [key, value.stringValue ?? value.intValue ?? value.boolValue ?? value.doubleValue ?? value.arrayValue]),
  );
}

/** Every metric of the received metrics bodies: name → { unit, kind, points[] }. */
function metricsByName(requests) {
  const metrics = {};
  for (const request of requests.filter((entry) => entry.signal === 'metrics')) {
    for (const resource of request.body.resourceMetrics) {
      for (const scope of resource.scopeMetrics) {
        for (const metric of scope.metrics) {
          const kind = metric.histogram ? 'histogram' : 'sum';
          const entry = (metrics[metric.name] ??= { unit: metric.unit, kind, points: [], resource: attributes(resource.resource.attributes) });
          entry.points.push(...(metric.histogram ?? metric.sum).dataPoints);
        }
      }
    }
  }
  return metrics;
}

/** Every span of the received traces bodies, with its resource's attributes. */
function spans(requests) {
  return requests
    .filter((entry) => entry.signal === 'traces')
    .flatMap((request) => request.body.resourceSpans.flatMap((resource) =>
      resource.scopeSpans.flatMap((scope) => scope.spans.map((span) => ({ ...span, resource: attributes(resource.resource.attributes) })))));
}

/** The run counter's total over the received metrics. */
function countedRuns(requests) {
  const runs = metricsByName(requests)['ttft_meter.client.runs'];
  return runs ? runs.points.reduce((sum, point) => sum + Number(point.asInt ?? point.asDouble ?? 0), 0) : 0;
}

forEachEngine((engine) => {
  let sim;
  let browser;
  let hostServer;
  before(async () => {
    sim = await startSim();
    browser = await launchBrowser(engine);
    hostServer = await startHost();
  });
  after(async () => {
    await browser?.close();
    await sim?.stop();
    await hostServer?.stop();
  });

  /** The host page `file` (plain.html, isolated.html, embed-example.html) framing the widget of the sim with `config` (query text). */
  function hostedWidget(file, config, options = {}) {
    return HostPage.open(browser, hostServer.url, file, { widgetUrl: `${sim.url}/`, config, options });
  }

  test('OTLP export to a collector on another origin that allows this origin: both runs and their spans arrive, each span with the ids its model request carried through a real preflight, the engine named as itself, no body with the key; a collector that stops allowing the origin is reported unreachable', async () => {
    // The bodies' names, units, values and attributes are native (crates/lab/tests/
    // otlp_bodies.rs, tests/otlp/receiver_test.py); the status line's texts and the
    // traceparent in each record are component tests (crates/lab-page/tests/fleet.rs). Here: the
    // engine's fetch under CORS, to the collector and with traceparent to the model.
    const receiver = await startReceiver([sim.url]);
    // The model requests go through a recording proxy on another origin: it sees each one's
    // traceparent header as the server would.
    const api = await startRecorder(sim.url);
    try {
      const query = new URLSearchParams({
        base_url: `${api.url}/v1`,
        model: 'sim-fast@prefill_ms=200',
        runs: '2',
        lang: 'en',
        otlp_endpoint: receiver.url,
        traceparent: '1',
      });
      const widget = await WidgetPage.open(browser, sim.url, `?${query}`);
      await widget.fill({ apiKey: TYPED_KEY });
      await widget.send();
      await widget.waitForRuns(2);
      const records = await widget.storedRuns();
      assert.deepEqual(records.map((record) => record.outcome.kind), ['completed', 'completed']);
      // Sent between runs only: after the series, a quiet moment, then metrics and traces.
      const requests = await eventually(async () => {
        const got = await receiver.received();
        return countedRuns(got) === 2 && spans(got).length === 2 ? got : undefined;
      }, 'both runs in the receiver');
      assert.deepEqual(await receiver.rejected(), [], 'every body parsed strictly');
      await widget.locator('[data-testid=otlp-status][data-state=ok][data-sent-runs="2"]').waitFor();
      const resource = metricsByName(requests)['ttft_meter.client.runs'].resource;
      assert.equal(resource['ttft_meter.page.origin'], sim.url);
      assert.equal(resource['ttft_meter.browser.engine'], perEngine(engine, { chromium: 'blink', firefox: 'gecko', webkit: 'webkit' }));
      assert.equal(resource['ttft_meter.page.cross_origin_isolated'], true);

      // One span per run, with the ids of the traceparent header its request carried.
      const posts = api.requests.filter((request) => request.method === 'POST' && request.url.endsWith('/v1/chat/completions'));
      assert.equal(posts.length, 2);
      const received = spans(requests);
      for (const [index, record] of records.entries()) {
        const header = posts[index].headers.traceparent;
        assert.match(header, /^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/, 'a W3C traceparent on the model request');
        const [, traceId, spanId] = header.split('-');
        const span = received.find((candidate) => candidate.spanId === spanId);
        assert.ok(span, `the span of run ${record.run_index} has the header's span id`);
        assert.equal(span.traceId, traceId);
        assertOnTime(record.metrics.ttfa_ms, 200, LATE_MS.freshContext, { record });
      }
      // Never the key, in any body or header the collector got.
      const everything = JSON.stringify(requests);
      for (const piece of KEY_PIECES) {
        assert.ok(!everything.includes(piece), `the collector must not receive ${piece}`);
      }
      for (const request of requests) {
        assert.equal(request.headers.authorization, undefined);
      }

      // Now the collector does not allow this origin: the browser only says "failed to
      // fetch", and the page names the CORS setting; the run itself succeeds.
      await receiver.control({ cors: false });
      await widget.fill({ runs: 1 });
      await widget.send();
      await widget.waitForRuns(3);
      const unreachable = widget.locator('[data-testid=otlp-status][data-state=unreachable]');
      await unreachable.waitFor({ timeout: 20_000 });
      assert.ok((await unreachable.textContent()).includes(`list ${sim.url} in protocols.http.cors.allowed_origins`));
      assert.equal((await widget.storedRuns())[2].outcome.kind, 'completed');
      assert.deepEqual(await widget.pageErrors(), []);
      await widget.close();
    } finally {
      await receiver.stop();
      await api.stop();
    }
  });

  test('experiment runs are kept as Send\'s are: traceparent on each measured request, one span each in the receiver with the ids its request carried, and the trace-context check on failure', async () => {
    const receiver = await startReceiver([sim.url]);
    // The model requests go through a recording proxy on another origin: it sees each one's
    // traceparent header as the server would. Calibration requests (token counts) are not
    // measured runs and carry none.
    const api = await startRecorder(sim.url);
    const strict = await startSim(['--no-trace-headers'], { dist: false });
    try {
      const query = new URLSearchParams({
        base_url: `${api.url}/v1`,
        lang: 'en',
        otlp_endpoint: receiver.url,
        traceparent: '1',
      });
      const lab = await LabPage.open(browser, sim.url, `?${query}`);
      await lab.startExperiment({
        model: 'sim-fast@prefill_ms=60',
        kind: 'max_tokens',
        fields: { 'exp-max-tokens': '16, 32', 'exp-prompt-tokens': '100', 'exp-repetitions': '1' },
      });
      await lab.waitForExperimentEnd('done');
      const records = (await lab.storedRuns()).filter((record) => record.experiment?.kind === 'max_tokens');
      assert.equal(records.length, 2, 'two measured experiment runs');
      assert.deepEqual(records.map((record) => record.outcome.kind), ['completed', 'completed']);
      const traced = api.requests.filter((request) => request.method === 'POST' && request.headers.traceparent);
      assert.equal(traced.length, records.length, 'every measured run, and only those, sent traceparent');
      const received = await eventually(async () => {
        const got = await receiver.received();
        return countedRuns(got) === records.length && spans(got).length === records.length ? got : undefined;
      }, 'both experiment runs in the receiver');
      assert.deepEqual(await receiver.rejected(), [], 'every body parsed strictly');
      const receivedSpans = spans(received);
      for (const record of records) {
        const header = record.settings.request.headers.find(([name]) => name === 'traceparent')?.[1];
        assert.match(header ?? '', /^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/, `run ${record.run_index} recorded the traceparent it sent`);
        assert.ok(traced.some((request) => request.headers.traceparent === header), 'the server saw that header');
        const [, traceId, spanId] = header.split('-');
        const span = receivedSpans.find((candidate) => candidate.spanId === spanId);
        assert.ok(span, `the span of run ${record.run_index} has its request's span id`);
        assert.equal(span.traceId, traceId);
        assert.equal(attributes(span.attributes)['ttft_meter.run.index'], String(record.run_index));
        assert.equal(attributes(span.attributes)['ttft_meter.ttfa_ms'], record.metrics.ttfa_ms);
      }

      // Against a server whose CORS refuses traceparent, an experiment's runs are checked as
      // Send's are: each failed run gets the cause the check finds.
      await lab.fill({ baseUrl: `${strict.url}/v1` });
      await lab.startExperiment({
        model: 'sim-fast@prefill_ms=60',
        kind: 'max_tokens',
        fields: { 'exp-max-tokens': '16, 32', 'exp-prompt-tokens': '100', 'exp-repetitions': '1' },
      });
      await lab.waitForExperimentEnd('done');
      const refused = (await lab.storedRuns()).filter((record) => record.experiment?.kind === 'max_tokens' && record.experiment.session === 2);
      assert.ok(refused.length >= 1, 'the second experiment recorded its runs');
      assert.deepEqual(refused.map((record) => record.diagnosis_cause), refused.map(() => 'trace_context_refused'));
      assert.deepEqual(await lab.pageErrors(), []);
      await lab.close();
    } finally {
      await receiver.stop();
      await api.stop();
      await strict.stop();
    }
  });

  test('trace context against a server whose CORS refuses traceparent: the real preflight is refused and diagnosed as such; without the header it works', async () => {
    // The texts, the series stopping and the checkbox are component tests
    // (crates/lab-page/tests/fleet.rs); here, the engine's preflight and the check it answers.
    const strict = await startSim(['--no-trace-headers'], { dist: false });
    try {
      const query = new URLSearchParams({ base_url: `${strict.url}/v1`, model: 'sim-fast@prefill_ms=50', runs: '1', lang: 'en', traceparent: '1' });
      const widget = await WidgetPage.open(browser, sim.url, `?${query}`);
      await widget.send();
      await widget.waitForRuns(1);
      await widget.locator('[data-testid=run-detail] [data-testid=diagnosis][data-cause=trace_context_refused]').waitFor();
      assert.equal((await widget.storedRuns())[0].diagnosis_cause, 'trace_context_refused');
      // Trace context off: the same server answers.
      await widget.byTestId('traceparent').setChecked(false);
      await widget.send();
      await widget.waitForRuns(2);
      const [, second] = await widget.storedRuns();
      assert.equal(second.outcome.kind, 'completed');
      await widget.close();
    } finally {
      await strict.stop();
    }
  });

  for (const kind of ['plain', 'isolated']) {
    test(`embedded in a ${kind} host page on another origin: the widget loads, runs, and every message is checked, none with the key${kind === 'isolated' ? '; the frame is cross-origin isolated' : ''}`, async () => {
      const host = await hostedWidget(`${kind}.html`, new URLSearchParams({ model: 'sim-fast@prefill_ms=150', lang: 'en' }));
      const { widget } = host;
      assert.equal(await host.page.evaluate(() => window.crossOriginIsolated), kind === 'isolated', 'the host page itself');
      await widget.fill({ apiKey: TYPED_KEY });
      await widget.send();
      await host.waitForMessages('ttft-meter.summary');
      const messages = await host.messages();
      assert.deepEqual(messages.map((message) => message.data.type), ['ttft-meter.ready', 'ttft-meter.run', 'ttft-meter.summary']);
      for (const message of messages) {
        assert.equal(message.origin, sim.url);
        assert.equal(message.data.version, 1);
        assert.equal(message.data.source, 'example-widget');
      }
      // No key, no masked key, no headers reached the host.
      const text = JSON.stringify(messages);
      for (const piece of [...KEY_PIECES, '…', 'headers', 'uthorization']) {
        assert.ok(!text.includes(piece), `messages must not contain ${piece}`);
      }
      assert.equal(await host.page.locator('#count').textContent(), '3', 'the host page shows them');
      const { run } = messages[1].data;
      assert.equal(run.outcome, 'completed');
      assertOnTime(run.metrics.ttfa_ms, 150, LATE_MS.freshContext, { record: await widget.storedRun(run.run_index) });
      const frameIsolated = await widget.evaluate(() => window.crossOriginIsolated);
      const stepMs = Number(await widget.byTestId('timer-resolution').getAttribute('data-step-ms'));
      const paint = (await widget.storedRuns())[0].instants.answer_painted?.method ?? null;
      if (kind === 'isolated') {
        // allow="cross-origin-isolated" passes isolation on to the frame where the engine
        // implements that permission (Chromium); its timer then has 5 µs steps.
        const expected = perEngine(engine, {
          chromium: { isolated: true, stepMs: 0.005, paint: 'presentation_time' },
          firefox: { isolated: true, stepMs: 0.02, paint: 'raf_message_channel' },
          webkit: { isolated: true, stepMs: 0.02, paint: 'raf_message_channel' },
        });
        assert.equal(frameIsolated, expected.isolated, 'the frame is cross-origin isolated');
        assert.ok(stepMs <= expected.stepMs + FLOAT_EPSILON, `timer step ${stepMs} ms`);
        assert.equal(paint, expected.paint, 'paint method');
      } else {
        assert.equal(frameIsolated, false, 'a frame of a plain host is not isolated');
        assert.equal(paint, perEngine(engine, { chromium: 'presentation_time', default: 'raf_message_channel' }), 'paint method');
      }
      assert.deepEqual(await host.page.pageErrors(), []);
      await host.close();

      if (kind === 'plain') {
        // Probe mode in a frame: the run starts on load, before any click and racing the
        // worker's start, and is measured from its request (the notice, the messages'
        // content, once per tab and Stop are component tests: crates/lab-page/tests/fleet.rs).
        const probed = await hostedWidget('plain.html', new URLSearchParams({ probe: '1', model: 'sim-fast@prefill_ms=100', lang: 'en' }));
        await probed.waitForMessages('ttft-meter.summary', 1, { timeout: 60_000 });
        const probeMessages = await probed.messageData();
        assert.deepEqual(probeMessages.map((message) => message.type), ['ttft-meter.ready', 'ttft-meter.run', 'ttft-meter.summary']);
        const probeRun = probeMessages[1].run;
        assert.equal(probeRun.outcome, 'completed');
        assert.equal(probeRun.metrics.perceived_from, 'request_started');
        assertOnTime(probeRun.metrics.ttfa_ms, 100, LATE_MS.freshContext, { record: await probed.widget.storedRun(probeRun.run_index) });
        await probed.close();
      }
    });
  }

  test('screenshots of the fleet UI (SLO badge, OTLP status line, probe notice, shared view) in English and Chinese, at 360 px', async () => {
    const receiver = await startReceiver([sim.url]);
    try {
      // The desktop width is a component of no engine's: only the 360 px page stays (issue 31).
      for (const viewport of [{ width: 360, height: 900 }]) {
        const query = new URLSearchParams({ probe: '2', model: 'sim-fast@prefill_ms=60', slo: 'ttfa_ms<=800,perceived_ttfa_ms:p95<=1.5s', otlp_endpoint: receiver.url, lang: 'en' });
        // Probe mode starts on load: the page is opened without waiting for it.
        const widget = new WidgetPage(await browser.newPage({ viewport }));
        await widget.page.goto(`${sim.url}/?${query}`);
        try {
          await widget.locator('[data-testid=probe-notice][data-state=done]').waitFor({ timeout: 60_000 });
        } catch (error) {
          // Once in a fresh-clone run WebKit's probe never finished: say where it stood.
          const where = await widget.evaluate(() => ({
            notice: document.querySelector('[data-testid=probe-notice]')?.getAttribute('data-state') ?? null,
            status: document.querySelector('[data-testid=status]')?.getAttribute('data-state') ?? null,
            rows: document.querySelectorAll('[data-testid=run-row]').length,
            diagnosis: document.querySelector('[data-testid=diagnosis]')?.textContent.slice(0, 300) ?? null,
          })).catch((reason) => `unreadable: ${reason}`);
          throw new Error(`${error.message}; the page: ${JSON.stringify(where)}`);
        }
        await widget.locator('[data-testid=otlp-status][data-state=ok]').waitFor({ timeout: 30_000 });
        await widget.byTestId('slo-badge').waitFor();
        for (const lang of ['en', 'zh']) {
          await widget.byTestId(`lang-${lang}`).click();
          const scrollWidth = await widget.evaluate(() => document.documentElement.scrollWidth);
          assert.ok(scrollWidth <= viewport.width, `${lang} ${viewport.width}: scrollWidth ${scrollWidth}`);
          await widget.page.screenshot({ path: outPath(`fleet-${viewport.width}-${lang}-${engine}.png`), fullPage: true });
        }
        await widget.byTestId('lang-en').click();
        const link = await widget.copyShareLink();
        const shared = await browser.newPage({ viewport });
        await shared.goto(link);
        await shared.getByTestId('shared-view').waitFor({ timeout: 20_000 });
        for (const lang of ['en', 'zh']) {
          await shared.getByTestId(`lang-${lang}`).click();
          const scrollWidth = await shared.evaluate(() => document.documentElement.scrollWidth);
          assert.ok(scrollWidth <= viewport.width, `shared ${lang} ${viewport.width}: scrollWidth ${scrollWidth}`);
          await shared.screenshot({ path: outPath(`fleet-shared-${viewport.width}-${lang}-${engine}.png`), fullPage: true });
        }
        await shared.close();
        await widget.close();
      }
    } finally {
      await receiver.stop();
    }
  });
});
