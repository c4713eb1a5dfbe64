// Issue 11 end to end: the key never leaves its tab or its endpoint, and a hostile provider
// cannot hurt the page. Real browsers (every engine of E2E_ENGINES), real HTTP on 127.0.0.1:
// sim A serves the page and is the endpoint the key is typed for; sim B, on another port
// (another origin), records every request it receives (--record-requests); A's redirect
// fault points at B. Nothing mocked.
//
// Requests are seen twice: by the servers of the test (both sims record every request, the
// host page's server too), and by the browser's own report (page.requests: CDP in Chromium,
// BiDi in Firefox, a recording proxy in WebKit), which also sees requests to hosts no server
// of the test answers (the presets' endpoints).
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { after, before } from 'node:test';
import { HostPage } from './pages/host.mjs';
import { LabPage } from './pages/lab.mjs';
import { RUNS_SLOT, WidgetPage } from './pages/widget.mjs';
import { startHost } from './servers.mjs';
import { eventually, forEachEngine, launchBrowser, outPath, perEngine, reasonFor, sleep, startSim, test } from './support.mjs';

// Three kinds of key: a long distinctive one, a short one (10 characters: shape guessing
// misses it), and a JWT-like dotted one.
const KEYS = {
  long: 'sk-ttftmeter-CANARY-7f3a9c2e5b1d4806aa17',
  short: 'k9Qz2Lm4Xw',
  jwt: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ0dGZ0LWNhbmFyeSJ9.Zm9vYmFyYmF6cXV4',
};
const WINDOW = 8;

/** The key and the encoded forms a provider may echo: percent-encoding, and the base64
 *  characters the key alone decides at each byte alignment (std and URL-safe alphabets). */
function keyForms(key) {
  const forms = [key, encodeURIComponent(key), encodeURIComponent(key).replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase())];
  for (let pad = 0; pad < 3; pad += 1) {
    const encoded = Buffer.from('x'.repeat(pad) + key).toString('base64');
    const core = encoded.slice(Math.ceil((8 * pad) / 6), Math.floor((8 * (pad + key.length)) / 6));
    forms.push(core, core.replace(/\+/g, '-').replace(/\//g, '_'));
  }
  return forms;
}

/** Every 8-character window of the key and of its encoded forms. */
function windowsOf(key) {
  const width = Math.min(WINDOW, key.length);
  const windows = new Set();
  for (const form of keyForms(key)) {
    for (let at = 0; at + width <= form.length; at += 1) windows.add(form.slice(at, at + width));
  }
  return [...windows];
}

/** The windows of `key` found in `text` (at most 5, for the message). */
function leaks(key, text) {
  return windowsOf(key).filter((window) => text.includes(window)).slice(0, 5);
}

function assertNoLeak(key, text, where) {
  const found = leaks(key, text);
  assert.deepEqual(found, [], `${where} holds pieces of the key: ${JSON.stringify(found)}`);
}

/** Everything a sim recorded, then forgotten. */
async function takeRecorded(sim) {
  const response = await fetch(`${sim.url}/__sim/requests`);
  const recorded = await response.json();
  await fetch(`${sim.url}/__sim/requests`, { method: 'DELETE' });
  return recorded.requests;
}

/** The `host` header of a request a sim recorded. */
function hostOf(recorded) {
  return recorded.headers.find(([name]) => name.toLowerCase() === 'host')?.[1] ?? '';
}

/** Everything the widget's document (`widget`: a page object) keeps or shows, read inside it:
 *  storage of both kinds (the key slot apart), IndexedDB contents, cookies, the address, text
 *  and every attribute. */
function pageState(widget) {
  return widget.evaluate(async () => {
    const dump = (storage) => Object.keys(storage).map((name) => [name, storage.getItem(name)]);
    const idb = [];
    for (const info of (await indexedDB.databases?.()) ?? []) {
      const db = await new Promise((resolve, reject) => {
        const open = indexedDB.open(info.name);
        open.onsuccess = () => resolve(open.result);
        open.onerror = () => reject(open.error);
      });
      for (const store of db.objectStoreNames) {
        const rows = await new Promise((resolve) => {
          const get = db.transaction(store).objectStore(store).getAll();
          get.onsuccess = () => resolve(get.result);
          get.onerror = () => resolve([]);
        });
        idb.push({ db: info.name, store, rows });
      }
      db.close();
    }
    const attributes = [];
    for (const element of document.querySelectorAll('*')) {
      for (const attribute of element.attributes) attributes.push(`${attribute.name}=${attribute.value}`);
    }
    return {
      local: JSON.stringify(dump(localStorage)),
      session: dump(sessionStorage),
      indexedDb: JSON.stringify(idb),
      cookies: document.cookie,
      url: location.href,
      text: `${document.body.innerText}\n${document.body.textContent}`,
      attributes: attributes.join('\n'),
      inputValues: [...document.querySelectorAll('input:not([type=password]), textarea')].map((input) => input.value).join('\n'),
      xss: window.__xss ?? null,
    };
  });
}

/** Console output and uncaught errors of the page and its frames, one line each. */
async function consoleLines(page) {
  return [...(await page.consoleMessages()), ...(await page.pageErrors()).map((error) => `pageerror: ${error}`)];
}

/** Downloads an export of `lab` (a page object) by clicking its button; returns the file's text. */
async function exportText(lab, testId) {
  return readFileSync(await lab.download(testId), 'utf8');
}

/** The origin of a URL the browser requested (a CONNECT's `host:port` has none: 'null'). */
function originOf(url) {
  try {
    return new URL(url).origin;
  } catch {
    return 'null';
  }
}

/**
 * Why the long answer is a `todo` in WebKit (it runs, and its failure does not fail the
 * suite; docs/engines.md, "WebKit: a fast stream into a Worker"): a bare Worker reading a
 * 100,000-event stream from ttft-sim (27.6 MB) with an idle page takes 88 s in WebKitGTK
 * (Chromium 2.3 s), with reads of up to 12.3 MB (Chromium 1.6 MB), so the widget's
 * 300,000-event run does not end within the test's time. (The page copies reads into wasm
 * memory 64 KiB at a time as it parses them, so the large reads no longer set the memory
 * floor; the slow read remains.)
 */
const WEBKIT_SLOW_STREAM =
  "WebKit: a Worker reads a fast 45 MB stream at about 0.3 MB/s in reads of up to 12 MB, and the run does not end in time";

// Every fault ttft-sim has, hostile ones included: [model suffix, expected cause (null: ok),
// options]. Short timings keep the loop quick; the never-ending faults get a 2 s timeout.
const FAULTS = [
  ['echo_key', 'key_refused'],
  ['echo_key', null, { protocol: 'anthropic', anyCause: true }],
  ['echo_key', null, { protocol: 'responses', anyCause: true }],
  ['echo_key_midstream', 'mid_stream_error'],
  ['echo_key_midstream', null, { protocol: 'anthropic', anyCause: true }],
  ['xss', null, { shows: '<script>window.__xss=1</script>' }],
  ['xss_error', 'mid_stream_error'],
  ['huge_line', 'malformed_chunk', { suffix: ',huge_line_bytes=2097152' }],
  ['html_error', 'server_error'],
  ['redirect', 'redirected'],
  ['drip', 'timeout', { timeoutS: 2 }],
  ['bad_usage', null, { anyCause: true }],
  ['400', 'bad_request'],
  ['401', 'key_refused'],
  ['403', 'forbidden'],
  ['404', 'model_not_found'],
  ['429', 'rate_limited'],
  ['500', 'server_error'],
  ['midstream', 'mid_stream_error'],
  ['stall', 'timeout', { timeoutS: 2 }],
  ['drop', 'ended_without_terminal'],
  ['malformed', 'malformed_chunk'],
  // Cross-origin (localhost, not the page's 127.0.0.1): the key question is asked, and
  // refused; the browser then refuses the answer (no CORS headers).
  ['nocors', 'connection_failed', { host: 'localhost', consent: 'refuse' }],
];

forEachEngine((engine) => {
  let simB;
  let simA;
  let hostServer;
  let browser;
  before(async () => {
    simB = await startSim(['--record-requests'], { dist: false });
    simA = await startSim(['--record-requests', '--redirect-to', simB.url]);
    hostServer = await startHost();
    browser = await launchBrowser(engine);
  });
  after(async () => {
    await browser?.close();
    await simA?.stop();
    await simB?.stop();
    await hostServer?.stop();
  });

  /** The widget at `query` of sim A, in a fresh context whose every request is observed (page.requests). */
  function observedWidget(query) {
    return WidgetPage.open(browser, simA.url, query, { observeRequests: true });
  }

  for (const [name, key] of Object.entries(KEYS)) {
    test(`${name} key: after every fault, the key is nowhere but sessionStorage`, async () => {
      await takeRecorded(simA);
      await takeRecorded(simB);
      hostServer.requests.length = 0;
      const config = new URLSearchParams({ compact: '0', lang: 'en' });
      const { page, widget } = await HostPage.open(browser, hostServer.url, 'embed-example.html', { widgetUrl: `${simA.url}/`, config, options: { observeRequests: true } });
      // Typed while the base URL is the page's own sim: the key belongs to A.
      await widget.fill({ apiKey: key });
      const seen = [];
      for (const [fault, cause, options = {}] of FAULTS) {
        const hostName = options.host ?? '127.0.0.1';
        const result = await widget.measure({
          model: `sim-fast@fault=${fault},prefill_ms=10,itl_ms=2,answer_tokens=8${options.suffix ?? ''}`,
          baseUrl: `${simA.url.replace('127.0.0.1', hostName)}/v1`,
          protocol: options.protocol ?? 'auto',
          timeoutS: options.timeoutS ?? 20,
          consent: options.consent ?? null,
        });
        seen.push(`${fault}/${options.protocol ?? 'chat'}: ${result.outcome} ${result.cause ?? ''}`);
        if (!options.anyCause) {
          assert.equal(result.cause, cause, `${fault} (${options.protocol ?? 'chat'}) → ${cause} (outcome ${result.outcome}; before: ${seen.slice(0, -1).join('; ')})`);
        }
        if (options.shows) {
          const answer = await widget.byTestId('answer').textContent();
          assert.ok(answer.includes(options.shows), `the payload is shown as text: ${answer.slice(0, 200)}`);
        }
      }
      console.log(`${engine}, ${name} key, ${FAULTS.length} runs: ${seen.join('; ')}`);
      // The models list, asked for with a click (the key may go: same origin).
      await widget.fill({ baseUrl: `${simA.url}/v1` });
      await widget.byTestId('list-models').click();
      await sleep(500);

      const state = await pageState(widget);
      const hostState = await page.evaluate(() => ({
        messages: JSON.stringify(window.ttftMessages),
        text: `${document.body.innerText}\n${document.documentElement.outerHTML}`,
        url: location.href,
        cookies: document.cookie,
        xss: window.__xss ?? null,
      }));
      // sessionStorage: the key slot holds the key (with its origin), nothing else does.
      const keySlot = state.session.find(([slot]) => slot === 'ttft-meter.api-key');
      assert.ok(keySlot && keySlot[1].includes(key), 'sessionStorage holds the key');
      assert.ok(keySlot[1].includes(`"origin":"${simA.url}"`), 'bound to the origin it was typed for');
      assertNoLeak(key, JSON.stringify(state.session.filter(([slot]) => slot !== 'ttft-meter.api-key')), 'other sessionStorage slots');
      assertNoLeak(key, state.local, 'localStorage');
      assertNoLeak(key, state.indexedDb, 'IndexedDB');
      assertNoLeak(key, state.cookies, "the widget's document.cookie");
      assertNoLeak(key, hostState.cookies, "the host page's document.cookie");
      assertNoLeak(key, JSON.stringify(await page.cookies()), 'cookies');
      assertNoLeak(key, state.url, "the widget's address");
      assertNoLeak(key, state.text, 'the page text');
      assertNoLeak(key, state.attributes, 'attributes');
      assertNoLeak(key, state.inputValues, 'other inputs');
      // The capture works in the widget's frame: a line written there is seen.
      await widget.evaluate(() => console.warn('e2e console probe'));
      const logged = await consoleLines(page);
      assert.ok(logged.some((line) => line.includes('e2e console probe')), `the console is captured: ${logged.slice(-5).join(' | ')}`);
      assertNoLeak(key, logged.join('\n'), 'the console');
      assertNoLeak(key, hostState.messages, 'postMessages to the host page');
      assertNoLeak(key, hostState.text, 'the host page');
      assertNoLeak(key, hostState.url, "the host page's address");
      assert.ok(JSON.parse(hostState.messages).filter((m) => m.data.type === 'ttft-meter.run').length >= FAULTS.length - 2,
        'the host page received the runs');
      // XSS payloads (answer, reasoning, model id, error text) stayed inert.
      assert.equal(state.xss, null, 'window.__xss in the widget');
      assert.equal(hostState.xss, null, 'window.__xss in the host page');

      // Requests, as the browser reports them: A got the key (it is A's), any other origin
      // never did.
      const sent = [...page.requests];
      const toA = sent.filter((request) => originOf(request.url) === simA.url);
      assert.ok(toA.some((request) => request.method === 'POST' && JSON.stringify(request.headers).includes(key)),
        'the worker requests are observed, and A got the key');
      const elsewhere = sent.filter((request) => originOf(request.url) !== simA.url);
      assert.ok(elsewhere.some((request) => originOf(request.url).startsWith('http://localhost:')), 'the cross-origin run was sent');
      for (const request of elsewhere) {
        assertNoLeak(key, JSON.stringify(request), `a request to ${request.method} ${request.url}`);
      }
      // Requests, as the servers received them: the host page's server and A under its other
      // name (localhost, another origin) never got the key; the redirect target (B) got
      // nothing at all.
      assertNoLeak(key, JSON.stringify(hostServer.requests), "requests the host page's server received");
      const atA = await takeRecorded(simA);
      const atALocalhost = atA.filter((request) => hostOf(request).startsWith('localhost:'));
      assert.ok(atALocalhost.length > 0, 'A received the cross-origin run under its other name');
      assertNoLeak(key, JSON.stringify(atALocalhost), 'requests A received as localhost');
      assert.ok(atA.some((request) => request.method === 'POST' && JSON.stringify(request.headers).includes(key)),
        'A, as 127.0.0.1, received the key: the recorders would see it');
      const atB = await takeRecorded(simB);
      assert.deepEqual(atB.map((request) => `${request.method} ${request.path}`), [], 'nothing reached the redirect target');

      // The exports are the lab's: the host page's frame opens it (same origin, same frame
      // of the same host page, so the same stored history: WebKit partitions a framed
      // page's storage by the top-level site), shows every run, and exports them.
      await page.evaluate((url) => (document.getElementById('widget').src = url), `${simA.url}/lab/?lang=en`);
      const lab = LabPage.framed(page);
      await lab.historyItems.first().waitFor({ timeout: 20_000 });
      assert.ok((await lab.historyItems.count()) >= FAULTS.length, 'the lab lists the runs');
      const labState = await pageState(lab);
      assertNoLeak(key, labState.local, "the lab's localStorage");
      assertNoLeak(key, labState.text, "the lab's text");
      assertNoLeak(key, labState.attributes, "the lab's attributes");
      assertNoLeak(key, await exportText(lab, 'export-json'), 'the JSON export');
      assertNoLeak(key, await exportText(lab, 'export-csv'), 'the CSV export');
      assertNoLeak(key, (await consoleLines(page)).join('\n'), 'the console, with the lab');
      assert.equal(labState.xss, null, 'window.__xss in the lab');
    });
  }

  test('crafted link: ?base_url=<another origin> in the same tab sends no key until the user says so', async () => {
    const key = KEYS.long;
    await takeRecorded(simB);
    const widget = await observedWidget('?lang=en');
    await widget.fill({ apiKey: key });
    // The same tab opens a link to the page that names B (sessionStorage survives).
    await widget.goto(`${simA.url}/?lang=en&model=sim-fast%40prefill_ms%3D20&base_url=${encodeURIComponent(`${simB.url}/v1`)}`);
    await sleep(800);
    let atB = await takeRecorded(simB);
    assert.ok(atB.some((request) => request.path === '/v1/models'), 'the models list was asked for on load');
    assertNoLeak(key, JSON.stringify(atB), 'requests B received on load');

    // Send: the page asks first; nothing has gone to B's completion route yet.
    await widget.send();
    const consent = widget.byTestId('key-consent');
    await consent.waitFor({ timeout: 5_000 });
    assert.equal(await consent.getAttribute('data-origin'), simB.url);
    assert.match(await consent.textContent(), new RegExp(`Send your API key to ${simB.url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\?`));
    await widget.page.screenshot({ path: outPath(`keysafety-consent-en-${engine}.png`) });
    assert.deepEqual((await takeRecorded(simB)).filter((request) => request.method === 'POST'), []);
    await widget.byTestId('lang-zh').click();
    await widget.page.waitForFunction(() => /把你的 API 密钥发送到/.test(document.querySelector('[data-testid=key-consent]')?.textContent ?? ''));
    await widget.page.screenshot({ path: outPath(`keysafety-consent-zh-${engine}.png`) });
    await widget.byTestId('lang-en').click();

    // Don't send: the run goes to B without the key, and the answer is remembered.
    await widget.byTestId('key-consent-refuse').click();
    await widget.runRows.first().waitFor({ timeout: 20_000 });
    await widget.send();
    await widget.runRows.nth(1).waitFor({ timeout: 20_000 });
    assert.equal(await consent.count(), 0, 'not asked again for the refused origin');
    await widget.byTestId('list-models').click();
    await sleep(500);
    atB = await takeRecorded(simB);
    assert.equal(atB.filter((request) => request.method === 'POST').length, 2, 'both runs reached B');
    assertNoLeak(key, JSON.stringify(atB), 'requests B received after "Don\'t send"');
    const elsewhere = widget.page.requests.filter((request) => originOf(request.url) !== simA.url);
    assert.ok(elsewhere.some((request) => originOf(request.url) === simB.url), 'the browser reported the requests to B');
    for (const request of elsewhere) assertNoLeak(key, JSON.stringify(request), `${request.method} ${request.url}`);
    await widget.close();

    // The control: with consent, B does get the key, so the recorder would have seen it.
    const second = await observedWidget('?lang=en&model=sim-fast%40prefill_ms%3D20');
    await second.fill({ apiKey: key, baseUrl: `${simB.url}/v1` });
    await second.send();
    await second.byTestId('key-consent-send').click();
    await second.runRows.first().waitFor({ timeout: 20_000 });
    atB = await takeRecorded(simB);
    const post = atB.find((request) => request.method === 'POST');
    assert.ok(post, 'the run reached B');
    assert.ok(JSON.stringify(post.headers).includes(`Bearer ${key}`), 'after "Send key", B got it');
    assert.ok(second.page.requests.some((request) => originOf(request.url) === simB.url && JSON.stringify(request.headers).includes(key)),
      'the browser reported it too');
  });

  test('a preset change or a base URL edit sends no key; the run asks first', async () => {
    const key = KEYS.jwt;
    await takeRecorded(simB);
    const widget = await observedWidget('?lang=en');
    await widget.fill({ apiKey: key });
    for (const preset of ['vllm', 'ollama', 'openai', 'anthropic', 'sim']) {
      const exists = await widget.locator(`[data-testid=preset] option[value="${preset}"]`).count();
      if (exists) await widget.byTestId('preset').selectOption(preset);
    }
    await widget.byTestId('preset').selectOption('vllm');
    // A base URL edit (change event) to B refreshes the models list: without the key.
    await widget.fill({ baseUrl: `${simB.url}/v1` });
    await widget.page.keyboard.press('Tab');
    await sleep(800);
    const atB = await takeRecorded(simB);
    assert.ok(atB.some((request) => request.path === '/v1/models'), 'B was asked for its models');
    assertNoLeak(key, JSON.stringify(atB), 'requests B received after the edit');
    // Send to B: asked first.
    await widget.send();
    await widget.byTestId('key-consent').waitFor({ timeout: 5_000 });
    await widget.byTestId('key-consent-refuse').click();
    await widget.runRows.first().waitFor({ timeout: 20_000 });
    // The presets' endpoints (localhost ports and public hosts no server here answers) are
    // seen only in the browser's report.
    const elsewhere = widget.page.requests.filter((request) => originOf(request.url) !== simA.url);
    assert.ok(elsewhere.some((request) => /^(http:\/\/localhost:|https:\/\/)/.test(request.url) || request.method === 'CONNECT'),
      'requests to the presets were observed');
    assert.ok(elsewhere.some((request) => originOf(request.url) === simB.url), 'requests to B were observed');
    for (const request of elsewhere) assertNoLeak(key, JSON.stringify(request), `${request.method} ${request.url}`);
    assertNoLeak(key, JSON.stringify(await takeRecorded(simB)), 'the run B received');
  });

  test('a redirect is not followed: no key at the redirect target, its own diagnosis', async () => {
    await takeRecorded(simB);
    const widget = await observedWidget('?lang=en&model=sim-fast%40fault%3Dredirect');
    await widget.fill({ apiKey: KEYS.short });
    await widget.send();
    const { diagnosis } = widget;
    await diagnosis.waitFor({ timeout: 20_000 });
    assert.equal(await diagnosis.getAttribute('data-cause'), 'redirected');
    assert.match(await diagnosis.textContent(), /the key was not sent to the new address/);
    assert.deepEqual(await takeRecorded(simB), [], 'the redirect target received nothing');
    // Chromium's report lists the redirect's request to B, cancelled before it left (B got
    // nothing): it must not carry the key either.
    for (const request of widget.page.requests.filter((entry) => originOf(entry.url) !== simA.url)) {
      assertNoLeak(KEYS.short, JSON.stringify(request), `${request.method} ${request.url}`);
    }
  });

  test('the models list of a hostile server and its XSS payloads stay inert', async () => {
    const hostile = await startSim(['--fault', 'xss'], { dist: false });
    try {
      const widget = await WidgetPage.open(browser, simA.url, `?lang=en&base_url=${encodeURIComponent(`${hostile.url}/v1`)}`);
      await widget.byTestId('model-count').filter({ hasText: /models listed/ }).waitFor({ timeout: 10_000 });
      const options = await widget.locator('#model-list option').evaluateAll((items) => items.map((item) => item.value));
      assert.ok(options.some((value) => value.includes('<script>')), 'payloads are listed as plain values');
      await widget.fill({ model: options.find((value) => value.includes('<img')) });
      // Typed text that matches a listed model opens the datalist's suggestions; Firefox
      // spends the next click on closing them (Send is not pressed, and no run starts) when
      // they opened before the click. Escape closes them, as a user would (docs/engines.md).
      await widget.page.keyboard.press('Escape');
      await widget.send();
      await widget.runRows.first().waitFor({ timeout: 20_000 });
      assert.equal(await widget.evaluate(() => window.__xss ?? null), null);
      assert.deepEqual(await widget.pageErrors(), []);
    } finally {
      await hostile.stop();
    }
  });

  test('a long answer: the pane shows its first 1 MiB with a note, and memory stays bounded', { todo: reasonFor(engine, { webkit: WEBKIT_SLOW_STREAM }) }, async () => {
    const widget = await WidgetPage.open(browser, simA.url, '?lang=en');
    const before = Number(await widget.byTestId('app').getAttribute('data-wasm-bytes'));
    // 300,000 tokens: about 1.6 MB of answer text in 300,000 SSE events (about 45 MB).
    await widget.fill({ model: 'sim-fast@prefill_ms=10,itl_ms=0,answer_tokens=300000', timeoutS: 300 });
    const started = Date.now();
    await widget.send();
    // WebKit (todo, above): waited for 120 s, not 300, so that the suite goes on.
    await widget.runRows.first().waitFor({ timeout: perEngine(engine, { webkit: 120_000, default: 300_000 }) });
    await widget.byTestId('text-cut').waitFor({ timeout: 5_000 });
    // The pane appends at most 8 KiB a frame (ttft-core FRAME_BUDGET_BYTES: issue 23): a
    // burst this fast is still being drawn when the run ends; it is all there within seconds.
    await eventually(() => widget.evaluate(() => {
      const pane = document.querySelector('[data-testid=answer]');
      const note = pane.querySelector('[data-testid=text-cut]')?.textContent ?? '';
      const bytes = (text) => new TextEncoder().encode(text).length;
      return bytes(pane.textContent) - bytes(note) >= 1000 * 1024 || undefined;
    }), 'the pane to draw the first 1 MiB', 60_000);
    const after = Number(await widget.byTestId('app').getAttribute('data-wasm-bytes'));
    const shown = await widget.evaluate(() => ({
      bytes: new TextEncoder().encode(document.querySelector('[data-testid=answer]').textContent).length,
      note: document.querySelector('[data-testid=text-cut]').textContent,
      // Chromium only (non-standard): logged, never asserted.
      jsHeap: performance.memory?.usedJSHeapSize ?? null,
    }));
    const row = widget.runRows.first();
    assert.equal(await row.getAttribute('data-outcome'), 'ok');
    const noteBytes = new TextEncoder().encode(shown.note).length;
    assert.ok(shown.bytes - noteBytes <= 1024 * 1024 && shown.bytes - noteBytes > 1000 * 1024,
      `the pane holds the first 1 MiB (${shown.bytes - noteBytes} bytes)`);
    assert.match(shown.note, /text cut at 1 MiB; the measurement goes on/);
    // No text is kept past the pane's 1 MiB; what grows with the run is per text event: its
    // arrival time and ITL gap (8 bytes each, kept by design for the ITL distribution) and
    // their transient copies when the record is made canonical, serialized and stored (about
    // 70 bytes per event in all, measured: 3.8 MiB at 30,000 events, 7.0 at 100,000, 20.1 at
    // 300,000). The bound: 6 MiB + 96 bytes per text event (34 MiB here); keeping the 45 MB
    // stream or its events' text would break it. data-wasm-bytes (the wasm memory's size)
    // is read the same way in every engine.
    const events = 300_000;
    const grown = after - before;
    const bound = 6 * 1048576 + 96 * events;
    const heap = shown.jsHeap === null ? 'n/a (performance.memory is Chromium only)' : `${(shown.jsHeap / 1048576).toFixed(1)} MiB`;
    console.log(`${engine}, long answer: ${((Date.now() - started) / 1000).toFixed(1)} s; wasm memory ${(before / 1048576).toFixed(1)} → ${(after / 1048576).toFixed(1)} MiB (+${(grown / 1048576).toFixed(1)}, bound ${(bound / 1048576).toFixed(1)}); JS heap ${heap}; pane ${shown.bytes} bytes`);
    assert.ok(grown <= bound, `the wasm heap grew by ${(grown / 1048576).toFixed(1)} MiB`);
  });

  test('huge line: fails fast with "line too long", memory bounded', async () => {
    const widget = await WidgetPage.open(browser, simA.url, '?lang=en');
    const before = Number(await widget.byTestId('app').getAttribute('data-wasm-bytes'));
    await widget.fill({ model: 'sim-fast@fault=huge_line,prefill_ms=10', timeoutS: 60 });
    // The page is busy for 1 s right after the click, as a loaded machine makes it: the
    // fetch worker keeps reading (reads of 2.5 MB and more in WebKit) and its messages queue
    // up. Copied into the wasm heap as they arrived, they would grow it by 18 to 39 MiB in
    // WebKit with a 500 ms block. A run copies a read only when it parses it, 64 KiB at a
    // time into one reused buffer, and none after the stream was found unreadable: +1.4 to
    // +5.3 MiB in 9 tries with the 1 s block, +1.1 to +9.4 in 15 with 500 ms (the parser's
    // 1 MiB line and the allocator's fragments).
    await widget.evaluate(() => {
      document.querySelector('[data-testid=send]').addEventListener('click', () => {
        setTimeout(() => {
          const start = performance.now();
          while (performance.now() - start < 1000) { /* busy */ }
        }, 5);
      }, { once: true });
    });
    const started = Date.now();
    await widget.send();
    const { diagnosis } = widget;
    await diagnosis.waitFor({ timeout: 60_000 });
    const seconds = (Date.now() - started) / 1000;
    const after = Number(await widget.byTestId('app').getAttribute('data-wasm-bytes'));
    const jsHeap = await widget.evaluate(() => performance.memory?.usedJSHeapSize ?? null);
    const cause = await diagnosis.getAttribute('data-cause');
    console.log(`${engine}, huge line: ${seconds.toFixed(1)} s, wasm memory +${((after - before) / 1048576).toFixed(1)} MiB, JS heap ${jsHeap === null ? 'n/a' : `${(jsHeap / 1048576).toFixed(1)} MiB`}, cause ${cause}`);
    assert.equal(cause, 'malformed_chunk', 'a malformed stream');
    assert.match(await diagnosis.textContent(), /line too long/);
    assert.equal(await widget.runRows.first().getAttribute('data-outcome'), 'failed');
    assert.ok(seconds < 10, `failed after ${seconds} s`);
    assert.ok(after - before < 16 * 1024 * 1024, `bounded memory: +${((after - before) / 1048576).toFixed(1)} MiB of wasm heap for a 64 MiB line`);
  });

  test('a crash shows a plain banner with a Reload link, and the finished run is already saved', async () => {
    for (const lang of ['en', 'zh']) {
      const lab = await LabPage.open(browser, simA.url, `?lang=${lang}&debug_panic=1&model=sim-fast%40prefill_ms%3D20`);
      await lab.send();
      const banner = lab.byTestId('crash-banner');
      await banner.waitFor({ timeout: 20_000 });
      assert.match(await banner.textContent(), lang === 'en' ? /stopped because of an internal error/ : /因内部错误而停止/);
      assert.equal((await lab.storedRuns()).length, 1, 'the run was saved before the panic');
      await lab.page.screenshot({ path: outPath(`keysafety-crash-${lang}-${engine}.png`) });
      // Reload: a new document (the mark is gone) that lists the saved run, without the banner.
      await lab.evaluate(() => (window.__beforeReload = true));
      await lab.byTestId('crash-reload').click();
      await lab.page.waitForFunction(() => !window.__beforeReload && document.querySelector('[data-testid=history-item]') !== null, undefined, { timeout: 20_000 });
      assert.equal(await lab.byTestId('crash-banner').count(), 0);
      await lab.close();
    }
  });

  test('storage: an unreadable history is set aside, a full storage says what was not saved, an import renumbers', async () => {
    const lab = await LabPage.open(browser, simA.url, '?lang=en');
    await lab.evaluate((slot) => localStorage.setItem(slot, '{"schema":"ttft-meter/export","schema_version":99,"runs":[]}'), RUNS_SLOT);
    await lab.reload();
    const notice = lab.locator('[data-testid=storage-notice][data-notice=set_aside]');
    await notice.waitFor({ timeout: 20_000 });
    assert.match(await notice.textContent(), /schema version 99/);
    const aside = await lab.evaluate((runsSlot) => Object.keys(localStorage).filter((slot) => slot.startsWith(`${runsSlot}.unreadable-`)), RUNS_SLOT);
    assert.equal(aside.length, 1);
    assert.equal(await lab.evaluate((slot) => localStorage.getItem(slot), aside[0]),
      '{"schema":"ttft-meter/export","schema_version":99,"runs":[]}', 'kept as it was');

    // Fill the storage until one more run cannot be written.
    await lab.fill({ model: 'sim-fast@prefill_ms=5' });
    await lab.send();
    await lab.runRows.first().waitFor({ timeout: 20_000 });
    await lab.evaluate(() => {
      const chunk = 'x'.repeat(256 * 1024);
      for (let index = 0; ; index += 1) {
        try {
          localStorage.setItem(`filler-${index}`, chunk);
        } catch {
          break;
        }
      }
      for (let size = 128 * 1024; size >= 16; size /= 2) {
        try {
          localStorage.setItem(`filler-small-${size}`, 'x'.repeat(size));
        } catch { /* full */ }
      }
    });
    await lab.send();
    const full = lab.locator('[data-testid=storage-notice][data-notice=storage_full], [data-testid=storage-notice][data-notice=not_saved]');
    await full.first().waitFor({ timeout: 20_000 });
    assert.match(await full.first().textContent(), /storage is full|could not be saved/);
    await lab.evaluate(() => Object.keys(localStorage).filter((slot) => slot.startsWith('filler-')).forEach((slot) => localStorage.removeItem(slot)));

    // An import with duplicate run numbers is renumbered, and the page says so.
    const exported = JSON.parse(await exportText(lab, 'export-json'));
    exported.runs = [exported.runs[0], exported.runs[0], exported.runs[0]];
    const file = outPath(`keysafety-duplicates-${engine}.json`);
    writeFileSync(file, JSON.stringify(exported));
    await lab.importFile(file);
    const renumbered = lab.locator('[data-testid=storage-notice][data-notice=renumbered]');
    await renumbered.waitFor({ timeout: 10_000 });
    assert.match(await renumbered.textContent(), /numbered again from 1 to 3/);
    assert.deepEqual(
      await lab.historyItems.evaluateAll((items) => items.map((item) => item.dataset.run)),
      ['3', '2', '1'],
    );
    // A file over 16 MiB is refused before it is read.
    const big = outPath(`keysafety-big-${engine}.json`);
    writeFileSync(big, Buffer.alloc(17 * 1024 * 1024, 32));
    await lab.importFile(big);
    await lab.locator('[data-testid=storage-notice][data-notice=file_too_large]').waitFor({ timeout: 10_000 });
  });
});
