// Issue 6, "Ship it", end to end: what only an engine can tell (issue 31). A host page
// with no origin to trust gets nothing; a key in the URL reaches no request after the page;
// the export and a chart's PNG land as files; the 360 px layout; keyboard use; the release
// build under a sub-path of another static host. Everything runs against the built page and
// ttft-sim on 127.0.0.1, in every engine of E2E_ENGINES; nothing is mocked.
// Moved to component tests (docs/e2e-inventory.md, "ship.test.mjs"): the messages' content
// (tests/ship.rs, and fleet.test.mjs's embedded tests keep the real frame), the
// address's parameters, presets, the refusal of a key in the URL, no simulator, the language
// names (tests/ship.rs); history across reloads, 1,000 runs, the import round
// trip, CSV and SVG, every string in Chinese, theme and summary copy, a failed run after a
// reload (crates/lab-page/tests/ship.rs).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before } from 'node:test';
import { HostPage } from './pages/host.mjs';
import { LabPage } from './pages/lab.mjs';
import { WidgetPage } from './pages/widget.mjs';
import { startHost, startRecorder, startStaticHost } from './servers.mjs';
import { forEachEngine, launchBrowser, outPath, startSim, test } from './support.mjs';
import { LATE_MS, assertOnTime } from './timing.mjs';

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

  test('a key in the URL reaches no request after the page itself (page files, worker, endpoint, Referer)', async () => {
    // Every request reaches the sim through a recording proxy: the page, its files, the
    // worker and the endpoint (the page's default, its own origin + /v1). The refusal's
    // notice, the cleaned address, the empty key field and storage are component tests
    // (tests/ship.rs); what the engine sends before the address is rewritten,
    // under <meta name="referrer" content="strict-origin">, is only seen here.
    const recorder = await startRecorder(sim.url);
    const sent = recorder.requests;
    const widget = await WidgetPage.open(browser, recorder.url, `?model=sim-fast%40prefill_ms%3D50&api_key=${TYPED_KEY}&token=${TYPED_KEY}&lang=en`);
    await widget.byTestId('key-refused').waitFor();
    await widget.send();
    await widget.waitForRuns(1);
    // Only the page request itself carried it (the user typed it there); nothing after it,
    // not even as Referer of the page's own files.
    const later = JSON.stringify(sent.slice(1));
    assert.ok(sent[0].url.includes('api_key='), 'the first request is the page itself');
    for (const piece of KEY_PIECES) {
      assert.ok(!later.includes(piece), `no later request may carry ${piece}`);
    }
    assert.deepEqual(await widget.pageErrors(), []);
    await widget.close();
    await recorder.stop();
  });

  test('the JSON export and a chart\'s PNG download as files', async () => {
    // The export's content, its import back, the CSV and the SVG are component tests
    // (crates/lab-page/tests/ship.rs) and native ones (crates/core/tests/export_json.rs,
    // export_csv.rs); here, the engine's download and its canvas's PNG.
    const lab = await LabPage.open(browser, sim.url);
    await lab.fill({ model: 'sim-fast@prefill_ms=100', runs: 2 });
    await lab.send();
    await lab.waitForRuns(2);
    const exported = JSON.parse(readFileSync(await lab.download('export-json'), 'utf8'));
    assert.equal(exported.schema, 'ttft-meter/export');
    assert.equal(exported.runs.length, 2);
    const pngBytes = readFileSync(await lab.download('chart-runs-png'));
    assert.deepEqual([...pngBytes.subarray(1, 4)], [0x50, 0x4e, 0x47]);
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

});
