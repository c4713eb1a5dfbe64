// Shared helpers of the benchmark: processes, the browser, the widget, statistics.
import { spawn } from 'node:child_process';
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS, ROOT, startSim as startSimProcess } from '../e2e/support.mjs';

export { CHROMIUM_ARGS, ROOT };

/**
 * Headless Debian Chromium through playwright-core, for the Chromium-only sections (size,
 * the Python and curl peers' fidelity and paint, parser, long stream, scale: they use CDP
 * or init scripts). The per-engine section (engines.mjs) goes through e2e/driver instead.
 */
export async function launchBrowser() {
  return chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS });
}

/**
 * Starts the release ttft-sim on a free loopback port; `dist` serves the built page. Without
 * its CSP: the same-page peers start blob: Workers, which the page's `worker-src 'self'`
 * refuses.
 */
export async function startSim({ dist = true, extraArgs = [] } = {}) {
  return startSimProcess(dist ? ['--no-csp', ...extraArgs] : extraArgs, { profile: 'release', dist });
}

/**
 * Instrumentation installed before any page script: long tasks, rAF gaps, the wasm
 * instance's memory (by wrapping WebAssembly.instantiate*), and a stamp of the moment the
 * widget became interactive (Send present and enabled).
 */
export const INIT_SCRIPT = `(() => {
  window.__bench = { longtasks: [], memories: [], interactiveMs: null, rafGaps: [], rafOn: false };
  try {
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) window.__bench.longtasks.push({ start: entry.startTime, duration: entry.duration });
    }).observe({ type: 'longtask', buffered: true });
  } catch (error) { window.__bench.longtaskError = String(error); }
  for (const name of ['instantiate', 'instantiateStreaming']) {
    const original = WebAssembly[name];
    if (!original) continue;
    WebAssembly[name] = function (...args) {
      return original.apply(this, args).then((result) => {
        const instance = result.instance || result;
        if (instance && instance.exports && instance.exports.memory) window.__bench.memories.push(instance.exports.memory);
        return result;
      });
    };
  }
  const check = () => {
    const send = document.querySelector('[data-testid=send]');
    if (send && !send.disabled && window.__bench.interactiveMs === null) {
      window.__bench.interactiveMs = performance.now();
      observer.disconnect();
    }
  };
  const observer = new MutationObserver(check);
  observer.observe(document, { childList: true, subtree: true, attributes: true });
  window.__benchRaf = (on) => {
    window.__bench.rafOn = on;
    if (!on) return;
    window.__bench.rafGaps = [];
    let last = performance.now();
    const loop = (now) => {
      window.__bench.rafGaps.push(now - last);
      last = now;
      if (window.__bench.rafOn) requestAnimationFrame(loop);
    };
    requestAnimationFrame(loop);
  };
})();`;

/** Opens the widget in a fresh context (own connections, own preflight cache). */
// Tall enough that the answer pane is inside the viewport: Element Timing never reports an
// element outside it (at Playwright's default 1280×720 the pane is below the fold).
export const VIEWPORT = { width: 1280, height: 2000 };

export async function openWidget(browser, pageUrl) {
  const context = await browser.newContext({ viewport: VIEWPORT });
  await context.addInitScript(INIT_SCRIPT);
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (error) => errors.push(String(error)));
  await page.goto(pageUrl);
  await page.getByTestId('send').waitFor({ state: 'visible', timeout: 30_000 });
  return { page, context, errors };
}

/** Sets the form: base URL, model, run count, warm-up. */
export async function setForm(page, { baseUrl, model, runs = 1, warmup = false, ttftOnly = false }) {
  if (baseUrl !== undefined) await page.getByTestId('base-url').fill(baseUrl);
  await page.getByTestId('model').fill(model);
  await page.getByTestId('run-count').fill(String(runs));
  await page.getByTestId('warmup').setChecked(warmup);
  await page.getByTestId('ttft-only').setChecked(ttftOnly);
}

/** Runs in the session (the table lists only the newest 100, its data-runs counts all). */
export async function rowCount(page) {
  return page.evaluate(() => Number(document.querySelector('[data-testid=runs-table]')?.dataset.runs ?? 0));
}

/** Waits until the session holds `count` runs and the series is over (Send enabled again). */
export async function waitForRows(page, count, timeoutMs = 120_000) {
  await page.waitForFunction(
    (wanted) =>
      Number(document.querySelector('[data-testid=runs-table]')?.dataset.runs ?? 0) >= wanted &&
      !document.querySelector('[data-testid=send]').disabled,
    count,
    { timeout: timeoutMs, polling: 50 },
  );
}

/** Every row of the runs table as { run, outcome, <metric>: number|null } (all columns). */
export async function readRows(page) {
  return page.evaluate(() => {
    const heads = [...document.querySelectorAll('[data-testid=runs-table] thead th')].map((th) => th.textContent.trim());
    return [...document.querySelectorAll('[data-testid=run-row]')]
      .map((tr) => {
        const row = { run: Number(tr.dataset.run), outcome: tr.dataset.outcome };
        [...tr.children].forEach((td, index) => {
          const key = td.dataset.metric || heads[index];
          const value = Number.parseFloat(td.textContent);
          row[key] = Number.isFinite(value) ? value : td.textContent.trim();
        });
        return row;
      })
      .sort((a, b) => a.run - b.run);
  });
}

/** Runs one series in the widget and returns its new rows (warm-up row dropped). */
export async function runSeries(page, form, timeoutMs = 180_000) {
  await setForm(page, form);
  const before = await rowCount(page);
  const total = form.runs + (form.warmup ? 1 : 0);
  await page.getByTestId('send').click();
  await waitForRows(page, before + total, timeoutMs);
  const rows = (await readRows(page)).slice(before);
  return form.warmup ? rows.slice(1) : rows;
}

/** Percentile by linear interpolation between closest ranks (R-7, as numpy's default). */
export function percentile(values, p) {
  const sorted = values.filter((value) => typeof value === 'number' && Number.isFinite(value)).sort((a, b) => a - b);
  if (sorted.length === 0) return null;
  const rank = (p / 100) * (sorted.length - 1);
  const low = Math.floor(rank);
  const high = Math.ceil(rank);
  return sorted[low] + (sorted[high] - sorted[low]) * (rank - low);
}

export function summary(values) {
  const numbers = values.filter((value) => typeof value === 'number' && Number.isFinite(value));
  return {
    n: numbers.length,
    p50: percentile(numbers, 50),
    p95: percentile(numbers, 95),
    min: numbers.length ? Math.min(...numbers) : null,
    max: numbers.length ? Math.max(...numbers) : null,
  };
}

export function run(command, args, options = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], ...options });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (data) => (stdout += data));
    child.stderr.on('data', (data) => (stderr += data));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(stdout) : reject(new Error(`${command} exited ${code}: ${stderr}`))));
  });
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A bare-browser peer in the same page: `fetch()` + `reader.read()`, stopping the clock at
 * the first read whose accumulated text holds a non-empty `"content"` (the first answer
 * token), on the main thread or in a fresh dedicated Worker (one request per message, both
 * stamps taken in the worker). One warm-up request first. With `busy`, a busy loop of
 * `busy.ms` runs on the page's main thread `busy.afterMs` after each request is posted.
 */
export async function rawFetchPeer(page, { url, model, runs, inWorker, busy = null }) {
  return page.evaluate(
    async ({ url, model, runs, inWorker, busy }) => {
      // This function's source also runs inside the worker: keep it self-contained.
      const measure = async (url, model) => {
        const start = performance.now();
        const response = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: 'Bearer sk-bench' },
          body: JSON.stringify({ model, stream: true, messages: [{ role: 'user', content: 'Hello' }] }),
        });
        const reader = response.body.getReader();
        const decoder = new TextDecoder();
        let text = '';
        let first = null;
        for (;;) {
          const { done, value } = await reader.read();
          const now = performance.now();
          if (done) break;
          text += decoder.decode(value, { stream: true });
          if (first === null && /"content":"[^"]/.test(text)) first = now - start;
        }
        return first;
      };
      const spin = () => {
        if (!busy) return;
        setTimeout(() => {
          const until = performance.now() + busy.ms;
          while (performance.now() < until) {}
        }, busy.afterMs);
      };
      const out = [];
      if (!inWorker) {
        for (let i = 0; i <= runs; i += 1) out.push(await measure(url, model));
        return out.slice(1);
      }
      const source = `const measure = ${measure.toString()};
        onmessage = async (event) => postMessage(await measure(event.data.url, event.data.model));`;
      const worker = new Worker(URL.createObjectURL(new Blob([source], { type: 'text/javascript' })));
      for (let i = 0; i <= runs; i += 1) {
        const result = new Promise((resolve) => (worker.onmessage = (event) => resolve(event.data)));
        worker.postMessage({ url, model });
        if (i > 0) spin();
        out.push(await result);
      }
      worker.terminate();
      return out.slice(1);
    },
    { url, model, runs, inWorker, busy },
  );
}

/**
 * The paint-delay peer: the least a page can do to show the first answer token. A plain
 * Worker fetches the stream and posts each read with its arrival stamp; the page decodes,
 * and on the first non-empty `content` puts it in a fresh inline-block span with an
 * `elementtiming` name (fixed at the top of the viewport). Returns, per run (after one
 * warm-up), Element Timing's presentationTime − arrival (page clock), ms; null when no
 * entry came within a second.
 */
export async function paintPeer(page, { url, model, runs }) {
  return page.evaluate(
    async ({ url, model, runs }) => {
      const source = `onmessage = async (event) => {
        const { url, model } = event.data;
        const response = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: 'Bearer sk-bench' },
          body: JSON.stringify({ model, stream: true, messages: [{ role: 'user', content: 'Hello' }] }),
        });
        const reader = response.body.getReader();
        for (;;) {
          const { done, value } = await reader.read();
          const t = performance.now();
          if (done) break;
          postMessage({ t, bytes: value }, [value.buffer]);
        }
        postMessage({ done: true });
      };
      postMessage({ origin: performance.timeOrigin });`;
      const worker = new Worker(URL.createObjectURL(new Blob([source], { type: 'text/javascript' })));
      const workerOrigin = await new Promise((resolve) => (worker.onmessage = (event) => resolve(event.data.origin)));
      const host = document.createElement('div');
      host.style.cssText = 'position:fixed;top:0;left:0;z-index:99;background:#fff;color:#000;font:14px monospace;padding:4px';
      document.body.append(host);
      const paints = new Map();
      const observer = new PerformanceObserver((list) => {
        for (const entry of list.getEntries()) paints.set(entry.identifier, entry.presentationTime || entry.renderTime);
      });
      observer.observe({ type: 'element', buffered: true });
      const out = [];
      for (let i = 0; i <= runs; i += 1) {
        const id = `bench-peer-${performance.now()}-${i}`;
        const decoder = new TextDecoder();
        let text = '';
        let arrival = null;
        await new Promise((resolve) => {
          worker.onmessage = (event) => {
            if (event.data.done) return resolve();
            if (arrival !== null) return;
            text += decoder.decode(event.data.bytes, { stream: true });
            const match = text.match(/"content":"([^"]+)"/);
            if (!match) return;
            arrival = event.data.t + workerOrigin - performance.timeOrigin;
            const span = document.createElement('span');
            span.style.display = 'inline-block';
            span.setAttribute('elementtiming', id);
            span.textContent = match[1];
            host.replaceChildren(span);
          };
          worker.postMessage({ url, model });
        });
        const waitStart = performance.now();
        while (!paints.has(id) && performance.now() - waitStart < 1000) await new Promise((resolve) => setTimeout(resolve, 20));
        if (i > 0) out.push(paints.has(id) && arrival !== null ? paints.get(id) - arrival : null);
      }
      observer.disconnect();
      worker.terminate();
      host.remove();
      return out;
    },
    { url, model, runs },
  );
}
