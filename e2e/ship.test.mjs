// Issue 6, "Ship it", end to end: embedding in a host page on another origin (postMessage),
// URL configuration, refusal of a key in the URL, history across reloads, JSON export that
// imports back identically, every visible string translated, 360 px layout, keyboard use.
// Everything runs against the built page and ttft-sim on 127.0.0.1, in every engine of
// E2E_ENGINES; nothing is mocked.
import assert from 'node:assert/strict';
import { copyFileSync, readFileSync } from 'node:fs';
import { after, before } from 'node:test';
import { HostPage } from './pages/host.mjs';
import { LabPage } from './pages/lab.mjs';
import { RUNS_SLOT, WidgetPage } from './pages/widget.mjs';
import { startHost, startRecorder, startStaticHost } from './servers.mjs';
import { forEachEngine, launchBrowser, outPath, startSim, test } from './support.mjs';
import { LATE_MS, TIMER_STEP, assertOnTime, assertShownTenth } from './timing.mjs';

// A key that must never show up in storage, URLs or messages (nor any piece of it).
const TYPED_KEY = 'sk-test-QWERTYZXCVB';
const KEY_PIECES = ['QWERTY', 'ZXCVB', 'sk-test'];

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

  test('embedded in a host page on another origin, the widget posts each run and the summary, without the key', async () => {
    const config = new URLSearchParams({ model: 'sim-fast@prefill_ms=200', runs: '2' });
    const host = await HostPage.open(browser, hostServer.url, 'embed-example.html', { widgetUrl: `${sim.url}/`, config });
    const { widget } = host;
    // Compact layout inside the frame.
    assert.match(await widget.byTestId('app').getAttribute('class'), /\bcompact\b/);
    await widget.fill({ apiKey: TYPED_KEY });
    await widget.send();
    await host.waitForMessages('ttft-meter.summary');
    const messages = await host.messages();
    const types = messages.map((message) => message.data.type);
    assert.deepEqual(types, ['ttft-meter.ready', 'ttft-meter.run', 'ttft-meter.run', 'ttft-meter.summary']);
    for (const message of messages) {
      assert.equal(message.origin, sim.url, 'messages come from the widget origin');
      assert.equal(message.data.version, 1);
      assert.equal(message.data.source, 'example-widget');
    }
    const runs = messages.filter((message) => message.data.type === 'ttft-meter.run').map((message) => message.data.run);
    assert.deepEqual(runs.map((run) => run.run_index), [1, 2]);
    const frameStored = await widget.storedRuns();
    for (const run of runs) {
      assert.equal(run.model, 'sim-fast@prefill_ms=200');
      assert.equal(run.outcome, 'completed');
      assert.equal(run.ok, true);
      assert.equal(run.protocol, 'chat');
      assert.equal(run.endpoint_url, `${sim.url}/v1/chat/completions`);
      assertOnTime(run.metrics.ttfa_ms, 200, LATE_MS.freshContext, { record: frameStored.find((record) => record.run_index === run.run_index) });
    }
    const summary = messages.at(-1).data.summary;
    assert.equal(summary.total_runs, 2);
    assert.equal(summary.stats.ttfa_ms.count, 2);
    const sorted = runs.map((run) => run.metrics.ttfa_ms).sort((a, b) => a - b);
    assert.equal(summary.stats.ttfa_ms.min, sorted[0]);
    assert.equal(summary.stats.ttfa_ms.max, sorted[1]);
    // No key, no masked key, no headers.
    const text = JSON.stringify(messages);
    for (const piece of [...KEY_PIECES, '…', 'headers', 'uthorization']) {
      assert.ok(!text.includes(piece), `messages must not contain ${piece}`);
    }
    // The host page shows them too.
    assert.equal(await host.page.locator('#count').textContent(), '4');
    await host.close();
  });

  test('outside a frame, or with no origin to trust, the widget posts nothing', async () => {
    // Same page, but the host did not pass target_origin and sends no referrer: no posting.
    const host = await HostPage.open(browser, hostServer.url, 'bare-host.html', { widgetUrl: `${sim.url}/?compact=1` });
    await host.widget.fill({ model: 'sim-fast@prefill_ms=50' });
    await host.widget.send();
    await host.widget.runRows.first().waitFor({ state: 'attached', timeout: 30_000 });
    await host.page.waitForTimeout(300);
    assert.deepEqual(await host.messages(), []);
    await host.close();
  });

  test('query parameters configure the form, language and theme, and a run uses them', async () => {
    const query = new URLSearchParams({
      base_url: `${sim.url}/v1`,
      protocol: 'chat',
      model: 'sim-fast@prefill_ms=150',
      prompt: 'Name three colours.',
      runs: '2',
      lang: 'zh',
      theme: 'dark',
      experiment: 'prompt_length_sweep',
    });
    const widget = await WidgetPage.open(browser, sim.url, `?${query}`);
    assert.equal(await widget.byTestId('base-url').inputValue(), `${sim.url}/v1`);
    assert.equal(await widget.byTestId('protocol').inputValue(), 'chat');
    assert.equal(await widget.byTestId('model').inputValue(), 'sim-fast@prefill_ms=150');
    assert.equal(await widget.byTestId('prompt').inputValue(), 'Name three colours.');
    assert.equal(await widget.byTestId('run-count').inputValue(), '2');
    assert.equal(await widget.byTestId('app').getAttribute('data-experiment'), 'prompt_length_sweep');
    assert.equal(await widget.evaluate(() => document.documentElement.dataset.theme), 'dark');
    assert.equal(await widget.evaluate(() => document.documentElement.lang), 'zh');
    assert.equal(await widget.byTestId('send').textContent(), '发送');
    // Dark colours really apply (the page background is dark).
    const background = await widget.evaluate(() => getComputedStyle(document.body).backgroundColor);
    assert.equal(background, 'rgb(19, 20, 22)');

    await widget.send();
    // Progress while the series runs: a bar over the two runs.
    // The bar keeps its place (hidden) outside a series, so the panes below never move.
    const progress = widget.byTestId('run-progress');
    for (let tries = 0; tries < 200 && (await progress.getAttribute('max')) !== '2'; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.equal(await progress.getAttribute('max'), '2');
    await widget.waitForRuns(2);
    assert.match(await progress.getAttribute('class'), /\bidle\b/, 'the bar hides when the series is over');
    const stored = await widget.storedRuns();
    assert.equal(stored.length, 2);
    for (const run of stored) {
      assert.equal(run.settings.model, 'sim-fast@prefill_ms=150');
      assert.equal(run.settings.endpoint_url, `${sim.url}/v1/chat/completions`);
      assert.deepEqual(run.settings.request.body.messages, [{ role: 'user', content: 'Name three colours.' }]);
      assertOnTime(run.metrics.ttfa_ms, 150, LATE_MS.freshContext, { record: run });
    }
    assert.deepEqual(await widget.pageErrors(), []);
    await widget.close();
  });

  test('a preset parameter applies the preset', async () => {
    const widget = await WidgetPage.open(browser, sim.url, '?preset=ollama');
    assert.equal(await widget.byTestId('base-url').inputValue(), 'http://localhost:11434/v1');
    await widget.close();
  });

  test('a key in the URL is refused, explained, removed from the address and never kept', async () => {
    // Every request reaches the sim through a recording proxy: the page, its files, the
    // worker and the endpoint (the page's default, its own origin + /v1).
    const recorder = await startRecorder(sim.url);
    const sent = recorder.requests;
    const widget = await WidgetPage.open(browser, recorder.url, `?model=sim-fast%40prefill_ms%3D50&api_key=${TYPED_KEY}&token=${TYPED_KEY}&lang=en`);
    const notice = await widget.byTestId('key-refused').textContent();
    assert.match(notice, /api_key, token/);
    assert.match(notice, /ignored and removed/);
    const address = await widget.page.url();
    assert.equal(address, `${recorder.url}/?model=sim-fast%40prefill_ms%3D50&lang=en`);
    assert.equal(await widget.byTestId('api-key').inputValue(), '');
    // A run still works (other parameters applied), and sends no key.
    await widget.send();
    await widget.waitForRuns(1);
    const [run] = await widget.storedRuns();
    assert.equal(run.settings.request.key_sent, false);
    // Only the page request itself carried it (the user typed it there); nothing after it,
    // not even as Referer of the page's own files.
    const later = JSON.stringify(sent.slice(1));
    assert.ok(sent[0].url.includes('api_key='), 'the first request is the page itself');
    for (const piece of KEY_PIECES) {
      assert.ok(!later.includes(piece), `no later request may carry ${piece}`);
    }
    const kept = await widget.keptStrings();
    for (const piece of KEY_PIECES) {
      assert.ok(!kept.includes(piece), `storage and address must not contain ${piece}`);
    }
    // Reload: the address no longer carries it, so nothing is refused any more.
    await widget.reload();
    assert.equal(await widget.byTestId('key-refused').count(), 0);
    assert.deepEqual(await widget.pageErrors(), []);
    await widget.close();
    await recorder.stop();
  });

  test('finished runs survive a reload (same count and ttfa values); the typed key is never in localStorage; delete one and all', async () => {
    const lab = await LabPage.open(browser, sim.url);
    await lab.fill({ apiKey: TYPED_KEY, model: 'sim-fast@prefill_ms=120', runs: 3 });
    await lab.send();
    await lab.waitForRuns(3);
    const before = (await lab.storedRuns()).map((run) => run.metrics.ttfa_ms);
    assert.equal(before.length, 3);
    const shownBefore = await lab.historyItems.allTextContents();
    const rowsBefore = await lab.runRows.count();
    const local = await lab.evaluate(() => JSON.stringify({ ...localStorage }));
    for (const piece of KEY_PIECES) {
      assert.ok(!local.includes(piece), `localStorage must not contain ${piece}`);
    }

    await lab.reload();
    await lab.historyItems.nth(2).waitFor();
    assert.deepEqual(await lab.historyItems.allTextContents(), shownBefore);
    assert.equal(await lab.runRows.count(), rowsBefore);
    assert.deepEqual((await lab.storedRuns()).map((run) => run.metrics.ttfa_ms), before);
    // The ttfa column of the runs table shows the same values as before the reload.
    const ttfaShown = await lab.byTestId('chart-runs-table').locator('tbody tr td:nth-child(3)').allTextContents();
    assert.equal(ttfaShown.length, before.length);
    ttfaShown.forEach((text, index) => assertShownTenth(text, before[index], `run ${index + 1}'s ttfa`));

    // Delete one (run 2), then all.
    await lab.locator('[data-testid=history-item][data-run="2"] [data-testid=history-delete]').click();
    assert.deepEqual((await lab.storedRuns()).map((run) => run.run_index), [1, 3]);
    await lab.byTestId('history-delete-all').click();
    await lab.byTestId('history-delete-all').click();
    assert.equal(await lab.historyItems.count(), 0);
    assert.equal(await lab.storedHistoryText(), null);
    await lab.reload();
    assert.equal(await lab.historyItems.count(), 0);
    assert.deepEqual(await lab.pageErrors(), []);
    await lab.close();
  });

  test('1,000 stored runs: the table lists the newest 100 (all on request), a new run is kept, Clear asks twice', async () => {
    const lab = await LabPage.open(browser, sim.url);
    await lab.fill({ model: 'sim-fast@prefill_ms=20', runs: 2 });
    await lab.send();
    await lab.waitForRuns(2);
    // Copy the two real records to 1,000 (the most kept), numbered 1..1000, and reload.
    await lab.evaluate((slot) => {
      const document = JSON.parse(localStorage.getItem(slot));
      const real = document.runs;
      document.runs = Array.from({ length: 1000 }, (_, index) => ({ ...real[index % 2], run_index: index + 1 }));
      localStorage.setItem(slot, JSON.stringify(document));
    }, RUNS_SLOT);
    await lab.reload();
    const table = lab.byTestId('runs-table');
    await lab.locator('[data-testid=runs-table][data-runs="1000"]').waitFor({ timeout: 30_000 });
    assert.equal(await lab.runRows.count(), 100);
    assert.equal(await lab.runRows.first().getAttribute('data-run'), '901');
    assert.match(await lab.byTestId('rows-hidden').textContent(), /900 older runs/);
    // The summary and the charts cover every run, not only the listed ones.
    assert.equal(await lab.summaryCount('all'), 1000);
    assert.equal(await lab.historyItems.count(), 50);
    await lab.byTestId('show-all-runs').click();
    assert.equal(await lab.runRows.count(), 1000);
    await lab.byTestId('show-all-runs').click();
    assert.equal(await lab.runRows.count(), 100);

    // One more run: number 1001, listed, and stored (the oldest dropped: 1,000 kept).
    await lab.fill({ runs: 1 });
    await lab.send();
    await lab.row(1001).waitFor({ timeout: 30_000 });
    await lab.waitForIdle();
    assert.equal(await table.getAttribute('data-runs'), '1001');
    assert.equal(await lab.runRows.count(), 100);
    const stored = (await lab.storedRuns()).map((run) => run.run_index);
    assert.equal(stored.length, 1000);
    assert.deepEqual([stored[0], stored.at(-1)], [2, 1001]);

    // Clear deletes the stored history too, so the first click only asks.
    await lab.byTestId('clear-runs').click();
    assert.equal(await table.getAttribute('data-runs'), '1001');
    assert.match(await lab.byTestId('clear-runs').textContent(), /click again/);
    await lab.byTestId('clear-runs').click();
    await lab.page.waitForFunction(() => document.body.innerText.includes('No runs yet'));
    assert.equal(await lab.storedHistoryText(), null);
    assert.deepEqual(await lab.pageErrors(), []);
    await lab.close();
  });

  test('JSON export imports back identically; CSV and chart SVG/PNG download', async () => {
    const first = await LabPage.open(browser, sim.url);
    await first.fill({ model: 'sim-fast@prefill_ms=100', runs: 2 });
    await first.send();
    await first.waitForRuns(2);
    const exportedPath = outPath(`ship-export-${engine}.json`);
    copyFileSync(await first.download('export-json'), exportedPath);
    const exported = JSON.parse(readFileSync(exportedPath, 'utf8'));
    assert.equal(exported.schema, 'ttft-meter/export');
    assert.equal(exported.schema_version, 5);
    assert.equal(exported.runs.length, 2);

    const csvText = readFileSync(await first.download('export-csv'), 'utf8');
    assert.equal(csvText.trim().split('\n').length, 3 + 2, 'three header rows (ours, aiperf, guidellm) and two runs');

    // Charts: SVG with inlined styles, PNG as a real PNG.
    const svgText = readFileSync(await first.download('chart-runs-svg'), 'utf8');
    assert.match(svgText, /^<svg[^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    assert.match(svgText, /stroke-width:/);
    assert.match(svgText, /<text[^>]*>— ttfa \(first answer token\)<\/text>/, 'the legend travels with the file');
    const pngBytes = readFileSync(await first.download('chart-runs-png'));
    assert.deepEqual([...pngBytes.subarray(1, 4)], [0x50, 0x4e, 0x47]);
    await first.close();

    // A fresh browser profile: import the file, export again, compare.
    const second = await LabPage.open(browser, sim.url);
    await second.importFile(exportedPath);
    await second.historyItems.nth(1).waitFor();
    assert.match(await second.byTestId('share-message').textContent(), /Imported 2 runs/);
    const reexported = JSON.parse(readFileSync(await second.download('export-json'), 'utf8'));
    // Everything but the export's own time and the timer step, sampled anew at each export.
    const withoutStamp = ({ exported_at: _exportedAt, environment, ...rest }) => {
      const { timer_resolution_ms: stepMs, ...kept } = environment;
      assert.ok(stepMs > 0 && stepMs <= TIMER_STEP.exportedAtMostMs, `timer_resolution_ms ${stepMs}`);
      return { ...rest, environment: kept };
    };
    assert.deepEqual(withoutStamp(reexported), withoutStamp(exported));
    // And the import is kept like any run.
    assert.deepEqual(await second.storedRuns(), exported.runs);

    // A broken file is refused with the typed message.
    await second.importFile({
      name: 'broken.json',
      mimeType: 'application/json',
      buffer: Buffer.from('{"schema": "something-else"}'),
    });
    await second.byTestId('share-message').filter({ hasNotText: /Imported/ }).waitFor();
    assert.equal(await second.historyItems.count(), 2);
    await second.close();
  });

  /** Words of visible text in English that the Chinese page may still show. */
  const ALLOWED_IN_ZH = [
    /^TTFT$/, /^Meter$/, /^English$/, // the product name; the language button names English
    /^(ttft|ttfa|ttfr|itl|e2e|tps|p50|p95|p99|ms|JSON|CSV|SVG|PNG|API|URL|HTTP|SSE|token|tokens)$/i,
    // Statistic names beside p50/p95/p99; web and network terms; peer tools.
    /^(UTC|min|max|mean|POST|sessionStorage|localStorage|Resource|Timing|DNS|TCP|TLS|AIPerf|GuideLLM|numpy)$/,
    /^(OpenAI|Anthropic|OpenRouter|DeepSeek|LiteLLM|Ollama|SGLang|vLLM|llama|cpp|server|proxy|ttft-sim|sim|Responses|Chat|Completions|Messages|localhost|max_tokens|Bearer|Authorization|worker|Worker|presentationTime|renderTime|rAF|MessageChannel|COOP|COEP)$/,
    // Fleet measurement: the standard's and the field's names.
    /^(OpenTelemetry|OTLP|Collector|SLO|SLOs|traceparent|W3C|span|goodput)$/,
  ];

  /** Visible text nodes of the page (including the results), split into English words. */
  async function englishWords(page) {
    return page.evaluate(() => {
      const words = [];
      const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const element = node.parentElement;
        if (!element || !element.checkVisibility?.() || ['SCRIPT', 'STYLE', 'TITLE'].includes(element.tagName)) {
          continue;
        }
        // The model's own output is not UI text.
        if (element.closest('[data-testid=answer], [data-testid=reasoning]')) {
          continue;
        }
        // Machine text: URLs, metric names, model names, numbers.
        const text = node.textContent.replace(/https?:\/\/\S+/g, ' ');
        for (const token of text.split(/[\s,;:()（）、。，：；/·—–|"'“”=<>+?!…]+/)) {
          if (/^[A-Za-z][A-Za-z-]*[A-Za-z]$/.test(token) && !/[_@\d.]/.test(token)) {
            words.push(token);
          }
        }
      }
      return words;
    });
  }

  test('switching to Chinese translates every visible string (allow-list: metric names, URLs, model and product names)', async () => {
    const lab = await LabPage.open(browser, sim.url, '?lang=en');
    await lab.fill({ model: 'sim-fast@prefill_ms=50', runs: 2 });
    await lab.send();
    await lab.waitForRuns(2);
    // Open every chart's data table so its headers count too.
    const summaries = lab.locator('.chart-data summary');
    for (let index = await summaries.count() - 1; index >= 0; index -= 1) {
      await summaries.nth(index).click();
    }
    const english = await englishWords(lab);
    assert.ok(english.includes('Send') && english.includes('History'), 'the English page shows English');

    await lab.byTestId('lang-zh').click();
    assert.equal(await lab.byTestId('send').textContent(), '发送');
    const left = [...new Set(await englishWords(lab))].filter(
      (word) => !ALLOWED_IN_ZH.some((pattern) => pattern.test(word)),
    );
    assert.deepEqual(left, [], `English words left on the Chinese page: ${left.join(', ')}`);
    // The choice is remembered.
    await lab.goto(`${sim.url}/`);
    assert.equal(await lab.byTestId('send').textContent(), '发送');
    assert.deepEqual(await lab.pageErrors(), []);
    await lab.close();
  });

  test('at 360 px wide the page does not scroll sideways (with results, in both languages)', async () => {
    const lab = await LabPage.open(browser, sim.url, '?lang=en', { viewport: { width: 360, height: 800 } });
    await lab.fill({ model: 'sim-fast@prefill_ms=50' });
    await lab.send();
    await lab.waitForRuns(1);
    const summaries = lab.locator('.chart-data summary');
    for (let index = await summaries.count() - 1; index >= 0; index -= 1) {
      await summaries.nth(index).click();
    }
    // The stylesheet contains the panes and readouts, and containment clips overflow: lift it,
    // so content too wide for 360 px shows as scrolling.
    // Through the CSSOM: the page's CSP (style-src 'self') refuses an injected <style>.
    await lab.evaluate(() => {
      for (const element of document.querySelectorAll('.pane, .readout')) {
        element.style.setProperty('contain', 'none', 'important');
      }
    });
    for (const lang of ['en', 'zh']) {
      await lab.byTestId(`lang-${lang}`).click();
      const scrollWidth = await lab.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(scrollWidth <= 360, `${lang}: scrollWidth ${scrollWidth} > 360`);
      await lab.page.screenshot({ path: outPath(`ship-360-${lang}-${engine}.png`), fullPage: true });
    }
    await lab.close();
  });

  test('the language switch names each language in itself, before the Chinese texts are loaded', async () => {
    // The widget loads its Chinese column on demand: the button must not wait for it.
    const widget = await WidgetPage.open(browser, sim.url);
    assert.equal(await widget.byTestId('lang-en').textContent(), 'English');
    assert.equal(await widget.byTestId('lang-zh').textContent(), '中文');
    await widget.close();
  });

  test('keyboard only: Tab to Send, Enter, the result appears', async () => {
    const widget = await WidgetPage.open(browser, sim.url, '?model=sim-fast%40prefill_ms%3D80');
    let reached = false;
    for (let presses = 0; presses < 60 && !reached; presses += 1) {
      await widget.page.keyboard.press('Tab');
      reached = await widget.evaluate(() => document.activeElement?.dataset.testid === 'send');
    }
    assert.ok(reached, 'Send is reachable with Tab');
    // The focused button shows a visible focus ring.
    const outline = await widget.evaluate(() => getComputedStyle(document.activeElement).outlineStyle);
    assert.equal(outline, 'solid');
    await widget.page.keyboard.press('Enter');
    const ttfaMs = await widget.readoutMs('ttfa');
    await widget.waitForRuns(1);
    assertOnTime(ttfaMs, 80, LATE_MS.freshContext, { record: (await widget.storedRuns())[0] });
    await widget.close();
  });

  test('the release build works from another static host under a sub-path, and requests only the endpoint', async () => {
    // A plain static host: no COOP/COEP, the build under /docs/tools/ttft/.
    const prefix = '/docs/tools/ttft/';
    const site = await startStaticHost({ prefix });
    // The endpoint is the sim behind a recording proxy: with the static host's own log, every
    // request that reached a server here is known, in every engine.
    const endpoint = await startRecorder(sim.url);
    const query = new URLSearchParams({ base_url: `${endpoint.url}/v1`, model: 'sim-fast@prefill_ms=100', lang: 'en' });
    const widget = await WidgetPage.open(browser, `${site.url}${prefix.slice(0, -1)}`, `?${query}`);
    await widget.send();
    await widget.waitForRuns(1);
    const [run] = await widget.storedRuns();
    assert.equal(run.outcome.kind, 'completed');
    assert.equal(run.transport, 'worker', 'the worker script loads from the relative URL');
    assertOnTime(run.metrics.ttfa_ms, 100, LATE_MS.freshContext, { record: run });
    // Not isolated here: the page says so.
    assert.match(await widget.byTestId('timer-resolution').textContent(), /not isolated/);
    // Requests to any other host are seen only by the browser: Chromium and Firefox report
    // them (page.requests); WebKit's classic WebDriver cannot, so there only the two servers'
    // logs are checked.
    const requested = [...site.requests, ...endpoint.requests, ...(widget.page.requests ?? [])].map((request) => request.url);
    const elsewhere = requested.filter(
      (url) => !url.startsWith(`${site.url}${prefix}`) && !url.startsWith(`${endpoint.url}/v1/`) && !/^(data|blob):/.test(url),
    );
    assert.deepEqual(elsewhere, [], 'no request but to the page files and the endpoint');
    assert.ok(endpoint.requests.some((request) => request.url === `${endpoint.url}/v1/chat/completions`), 'the run reached the endpoint');
    assert.deepEqual(await widget.pageErrors(), []);
    await widget.close();
    await endpoint.stop();
    await site.stop();
  });

  test('on a plain static host the page starts on "choose your endpoint", and a POST to the host is diagnosed as not an LLM API', async () => {
    // Like `python3 -m http.server` on the build: files for GET, 501 and an HTML page for POST.
    const site = await startStaticHost();
    const widget = await WidgetPage.open(browser, site.url, '?lang=en');
    // No simulator default: the base URL and model are empty, and the page says what to do.
    assert.equal(await widget.byTestId('base-url').inputValue(), '');
    assert.equal(await widget.byTestId('model').inputValue(), '');
    await widget.byTestId('choose-endpoint').waitFor();
    // Send now is refused at the form (nothing to call), and makes no run.
    await widget.send();
    assert.equal(await widget.byTestId('input-error').getAttribute('data-field'), 'base_url');
    assert.equal(await widget.runRows.count(), 0);
    // The host itself as the endpoint: a file server, not an LLM API.
    await widget.fill({ baseUrl: `${site.url}/v1`, model: 'any' });
    await widget.send();
    await widget.waitForRuns(1);
    assert.equal(await widget.diagnosisCause(), 'not_an_api');
    assert.match(await widget.diagnosis.textContent(), /not an LLM API/);
    assert.deepEqual(await widget.pageErrors(), []);
    await widget.close();
    await site.stop();
  });

  test('the theme switch applies and is remembered; the summary is copied to the clipboard', async () => {
    const lab = await LabPage.open(browser, sim.url, '?lang=en&model=sim-fast%40prefill_ms%3D60', { clipboard: true });
    await lab.byTestId('theme').selectOption('light');
    assert.equal(await lab.evaluate(() => document.documentElement.dataset.theme), 'light');
    assert.equal(await lab.evaluate(() => getComputedStyle(document.body).backgroundColor), 'rgb(247, 247, 245)');
    await lab.byTestId('theme').selectOption('dark');
    await lab.reload();
    assert.equal(await lab.evaluate(() => document.documentElement.dataset.theme), 'dark');
    assert.equal(await lab.byTestId('theme').inputValue(), 'dark');
    await lab.byTestId('theme').selectOption('auto');
    assert.equal(await lab.evaluate(() => document.documentElement.dataset.theme ?? null), null, 'auto sets no theme');

    await lab.fill({ apiKey: TYPED_KEY });
    await lab.send();
    await lab.waitForRuns(1);
    await lab.byTestId('copy-summary').click();
    await lab.byTestId('share-message').filter({ hasText: 'Summary copied.' }).waitFor();
    const copied = await lab.page.readClipboard();
    const [run] = await lab.storedRuns();
    assert.match(copied, /ttfa/);
    assert.ok(copied.includes(run.settings.model), 'the summary names the model');
    for (const piece of KEY_PIECES) {
      assert.ok(!copied.includes(piece), `the summary must not contain ${piece}`);
    }
    assert.deepEqual(await lab.pageErrors(), []);
    await lab.close();
  });

  test('a failed run is kept across a reload with its cause, message and fix', async () => {
    const lab = await LabPage.open(browser, sim.url, '?lang=en&model=sim-fast%40fault%3D401');
    await lab.send();
    await lab.waitForRuns(1);
    const cause = await lab.diagnosisCause();
    assert.ok(cause, 'the failed run has a cause');
    const [run] = await lab.storedRuns();
    assert.equal(run.diagnosis_cause, cause);
    assert.equal(run.outcome.kind, 'http_error');
    await lab.reload();
    assert.match(await lab.historyItems.textContent(), /failed/);
    const shown = lab.diagnosis;
    assert.equal(await shown.getAttribute('data-cause'), cause);
    // The diagnosis is stored, so a reloaded run is worded as fresh, in the page's language
    // (schema 1 kept only the code).
    assert.match(await shown.locator('strong').textContent(), /401/);
    assert.ok((await shown.locator('p').textContent()).length > 20, 'the fix is shown');
    await lab.byTestId('lang-zh').click();
    assert.match(await shown.locator('strong').textContent(), /[\u4e00-\u9fff]/, 'worded in Chinese');
    await lab.close();
  });
});
