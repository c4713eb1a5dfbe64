// Engine quirks (issue 13, item 5) and WebKit's main-thread dependence (item 4), measured in
// each engine of E2E_ENGINES against ttft-sim's scripted timing. Each test states what every
// engine does; docs/engines.md explains each quirk and what the app does about it.
import assert from 'node:assert/strict';
import http from 'node:http';
import { readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { ROOT, forEachEngine, launchBrowser, openWidget, perEngine, startSim } from './support.mjs';

/**
 * Runs `body` (a function's source, called as `body(arg)`) in a fresh dedicated Worker of
 * the page and resolves to what it returns. The worker's own clock is reported as
 * `timeOrigin`, so its stamps convert to the page clock.
 */
async function inWorker(page, body, arg) {
  return page.evaluate(
    async ({ source, arg }) => {
      const script = `onmessage = async (event) => {
        try { postMessage({ value: await (${source})(event.data) }); }
        catch (error) { postMessage({ thrown: { name: error.name, message: error.message } }); }
      };`;
      const worker = new Worker(URL.createObjectURL(new Blob([script], { type: 'text/javascript' })));
      const reply = await new Promise((resolve) => {
        worker.onmessage = (event) => resolve(event.data);
        worker.postMessage(arg);
      });
      worker.terminate();
      return reply;
    },
    { source: body.toString(), arg },
  );
}

/** The smallest step of performance.now() seen over 30 ms of spinning, in ms. */
function timerStep() {
  let smallest = Infinity;
  const until = performance.now() + 30;
  let last = performance.now();
  while (last < until) {
    const now = performance.now();
    if (now > last) smallest = Math.min(smallest, now - last);
    last = now;
  }
  return smallest;
}

/** A plain static host of dist/ with no COOP/COEP: the page is not cross-origin isolated. */
async function startPlainHost() {
  const types = { '.html': 'text/html', '.js': 'text/javascript', '.wasm': 'application/wasm', '.css': 'text/css' };
  const server = http.createServer((request, response) => {
    const pathname = new URL(request.url, 'http://host').pathname;
    const file = path.join(ROOT, 'dist', pathname === '/' ? 'index.html' : pathname.slice(1));
    if (!existsSync(file) || !file.startsWith(path.join(ROOT, 'dist'))) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': types[path.extname(file)] ?? 'application/octet-stream' });
    response.end(readFileSync(file));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    stop: () => new Promise((resolve) => server.close(resolve)),
  };
}

forEachEngine((engine) => {
  let sim;
  let browser;
  let plain;
  before(async () => {
    sim = await startSim();
    plain = await startPlainHost();
    browser = await launchBrowser(engine);
  });
  after(async () => {
    await browser?.close();
    await plain?.stop();
    await sim?.stop();
  });

  test('timer resolution: the step of performance.now() per engine, isolated or not, and what the page reports', async () => {
    // Measured steps (ms): cross-origin isolated (ttft-sim sends COOP/COEP) and not.
    const expected = perEngine(engine, {
      chromium: { isolated: 0.005, plain: 0.1 },
      firefox: { isolated: 0.02, plain: 1 },
      webkit: { isolated: 0.02, plain: 1 },
    });
    for (const [kind, url] of [['isolated', sim.url], ['plain', plain.url]]) {
      const { page } = await openWidget(browser, url);
      const isolated = await page.evaluate(() => globalThis.crossOriginIsolated);
      assert.equal(isolated, kind === 'isolated', `${kind}: crossOriginIsolated`);
      const pageStep = await page.evaluate(timerStep);
      const worker = await inWorker(page, timerStep);
      const shown = Number(await page.getByTestId('timer-resolution').getAttribute('data-step-ms'));
      console.log(`${engine} ${kind}: step ${pageStep} ms in the page, ${worker.value} ms in a worker, page shows ${shown} ms`);
      // The step is the engine's clamp: equal to it up to float noise (a slow loop may miss
      // the smallest step, never go below it).
      for (const [where, step] of [['page', pageStep], ['worker', worker.value], ['readout', shown]]) {
        assert.ok(step >= expected[kind] * 0.99 && step <= expected[kind] * 1.5, `${engine} ${kind} ${where}: step ${step} ms, expected ${expected[kind]} ms`);
      }
      await page.close();
    }
  });
});
