// Per-engine fidelity and paint delay (issue 13, items 2 and 3): in Chromium, Firefox and
// WebKit (through e2e/driver, the layer the end-to-end tests use), the widget beside that
// engine's own same-page peers:
//   fidelity  widget ttfa_ms − scripted, against a bare fetch() in a Worker (and on the
//             main thread) of the same page, same connection pool;
//   paint     widget answer_ui_delay_ms, against a plain Worker fetch whose first content
//             goes into a fresh element, painted as the engine allows: Element Timing
//             presentationTime where it exists (Chromium), else rAF + MessageChannel.
// And the paint fallback's error where Element Timing is the reference (Chromium): on the
// same runs, rAF + MessageChannel and a double rAF against presentationTime.
import { launch } from '../e2e/driver/index.mjs';
import { rawFetchPeer, readRows, runSeries, summary } from './lib.mjs';

/** The viewport of the bench (the answer pane must be on screen for Element Timing). */
const VIEWPORT = { width: 1280, height: 2000 };

const round = (value, digits = 2) => (value === null || value === undefined ? null : Number(value.toFixed(digits)));

async function openWidget(browser, url) {
  const page = await browser.newPage({ viewport: VIEWPORT });
  await page.goto(url);
  await page.getByTestId('send').waitFor({ timeout: 30_000 });
  await page.locator('[data-testid=app][data-transport=worker]').waitFor({ timeout: 10_000 });
  return page;
}

/**
 * The paint peer with every paint clock at once. A plain Worker fetches the stream and posts
 * each read with its arrival stamp; on the first non-empty `content` the page puts the text
 * into a fresh inline-block span (with an `elementtiming` name) and, in the same task, asks
 * for (a) a rAF that posts a MessageChannel message (the app's fallback), (b) a rAF inside a
 * rAF. Per run (after one warm-up): arrival, and each clock's time, page clock, ms.
 */
export async function paintProbe(page, { url, model, runs }) {
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
      const elementTiming = (PerformanceObserver.supportedEntryTypes || []).includes('element');
      const entries = new Map();
      let observer = null;
      if (elementTiming) {
        observer = new PerformanceObserver((list) => {
          for (const entry of list.getEntries()) {
            entries.set(entry.identifier, {
              presentation: entry.presentationTime || null,
              render: entry.renderTime || null,
              paint: entry.paintTime || null,
            });
          }
        });
        observer.observe({ type: 'element', buffered: true });
      }
      const out = [];
      for (let i = 0; i <= runs; i += 1) {
        const id = `bench-probe-${performance.now()}-${i}`;
        const decoder = new TextDecoder();
        let text = '';
        const run = { arrival: null, raf_mc: null, double_raf: null };
        await new Promise((resolve) => {
          worker.onmessage = (event) => {
            if (event.data.done) return resolve();
            if (run.arrival !== null) return;
            text += decoder.decode(event.data.bytes, { stream: true });
            const match = text.match(/"content":"([^"]+)"/);
            if (!match) return;
            run.arrival = event.data.t + workerOrigin - performance.timeOrigin;
            const span = document.createElement('span');
            span.style.display = 'inline-block';
            span.setAttribute('elementtiming', id);
            span.textContent = match[1];
            host.replaceChildren(span);
            const channel = new MessageChannel();
            channel.port2.onmessage = () => (run.raf_mc = performance.now());
            requestAnimationFrame(() => channel.port1.postMessage(null));
            requestAnimationFrame(() => requestAnimationFrame(() => (run.double_raf = performance.now())));
          };
          worker.postMessage({ url, model });
        });
        const waitStart = performance.now();
        while ((run.double_raf === null || (elementTiming && !entries.has(id))) && performance.now() - waitStart < 1000) {
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        if (i > 0) out.push({ ...run, ...(entries.get(id) ?? {}) });
      }
      observer?.disconnect();
      worker.terminate();
      host.remove();
      return { elementTiming, runs: out };
    },
    { url, model, runs },
  );
}

/** Fidelity and paint for one engine. */
async function engineSection(engine, pageSim, apiSim, runs, log) {
  const browser = await launch(engine);
  const result = { engine, version: browser.version };
  try {
    // Fidelity: a scripted 300 ms first answer after an early role chunk, API cross-origin.
    const scripted = 300;
    const model = `sim-fast@prefill_ms=${scripted},early_role=1,itl_ms=1,answer_tokens=5`;
    log(`engines: ${engine} fidelity (widget, then bare fetch in a Worker and on the main thread)`);
    const page = await openWidget(browser, pageSim.url);
    const rows = await runSeries(page, { baseUrl: `${apiSim.url}/v1`, model, runs, warmup: true });
    await page.getByTestId('more-columns').setChecked(true);
    const detailed = (await readRows(page)).slice(-runs);
    const apiUrl = `${apiSim.url}/v1/chat/completions`;
    const worker = await rawFetchPeer(page, { url: apiUrl, model, runs, inWorker: true });
    const main = await rawFetchPeer(page, { url: apiUrl, model, runs, inWorker: false });
    await page.close();
    const errors = (values) => values.map((value) => value - scripted);
    const widget = summary(errors(rows.map((row) => row.ttfa_ms)));
    const peers = { browser_fetch_worker: summary(errors(worker)), browser_fetch_main_thread: summary(errors(main)) };
    const best = Object.entries(peers).sort((a, b) => Math.abs(a[1].p95) - Math.abs(b[1].p95))[0];
    result.fidelity = {
      scripted_ms: scripted,
      model,
      runs,
      widget_ttfa_error_ms: widget,
      widget_setup_ms: summary(detailed.map((row) => row.setup_ms)),
      // The run's possible arrival delay (issue 13 item 4): the main thread's longest
      // unavailability from the request to the first answer token.
      widget_arrival_delay_bound_ms: summary(detailed.map((row) => row.arrival_delay_bound_ms)),
      widget_waiting_ms: summary(detailed.map((row) => row.waiting_ms)),
      ...peers,
      target: {
        best_peer: best[0],
        widget_p95_ms: round(widget.p95, 3),
        best_peer_p95_ms: round(best[1].p95, 3),
        within_1ms_of_best_peer: widget.p95 <= best[1].p95 + 1,
        excess_ms: round(widget.p95 - best[1].p95, 3),
      },
    };

    // Paint at 500 tokens/s, page and API on the page's origin (as the paint section).
    log(`engines: ${engine} paint (widget, then the same-page paint probe)`);
    const paintModel = 'sim-fast@prefill_ms=50,itl_ms=2,answer_tokens=150';
    const paintPage = await openWidget(browser, pageSim.url);
    await runSeries(paintPage, { model: 'sim-fast@prefill_ms=50,itl_ms=2,answer_tokens=5', runs: 1 });
    await paintPage.getByTestId('more-columns').setChecked(true);
    const paintRows = await runSeries(paintPage, { model: paintModel, runs, warmup: true });
    const probe = await paintProbe(paintPage, { url: `${pageSim.url}/v1/chat/completions`, model: paintModel, runs });
    await paintPage.close();
    const delay = (field) => probe.runs.map((run) => (run[field] !== null && run[field] !== undefined && run.arrival !== null ? run[field] - run.arrival : null));
    const peerField = probe.elementTiming ? 'presentation' : 'raf_mc';
    const uiDelay = summary(paintRows.map((row) => row.answer_ui_delay_ms));
    const peer = summary(delay(peerField));
    result.paint = {
      model: paintModel,
      runs,
      paint_methods: [...new Set(paintRows.map((row) => row.paint))],
      widget_ui_delay_ms: uiDelay,
      peer_method: probe.elementTiming ? 'Element Timing presentationTime' : 'rAF + MessageChannel',
      peer_ui_delay_ms: peer,
      probe_delays_ms: {
        presentation_time: summary(delay('presentation')),
        render_time: summary(delay('render')),
        paint_time: summary(delay('paint')),
        raf_message_channel: summary(delay('raf_mc')),
        double_raf: summary(delay('double_raf')),
      },
      target: {
        ratio_p95: round(uiDelay.p95 / peer.p95, 2),
        le_1_3x_peer: uiDelay.p95 <= 1.3 * peer.p95,
      },
    };
    // Item 3: each fallback against presentationTime on the same runs (Chromium only).
    if (probe.elementTiming) {
      const against = (field) => {
        const differences = probe.runs
          .filter((run) => run.presentation && run[field] !== null)
          .map((run) => run[field] - run.presentation);
        const absolute = summary(differences.map(Math.abs));
        return { bias_p50_ms: summary(differences).p50, abs_error_p95_ms: absolute.p95, signed: summary(differences) };
      };
      const fallbacks = { raf_message_channel: against('raf_mc'), double_raf: against('double_raf') };
      const best = Object.entries(fallbacks).sort((a, b) => a[1].abs_error_p95_ms - b[1].abs_error_p95_ms)[0][0];
      // renderTime is the app's method where an engine reports no presentationTime.
      result.paint_fallback_vs_presentation_time = { ...fallbacks, render_time: against('render'), best_by_abs_error_p95: best };
    }
  } finally {
    await browser.close();
  }
  return result;
}

/** The section: every engine of BENCH_ENGINES (default all three), one after the other. */
export async function engines(pageSim, apiSim, { runs, log }) {
  const names = (process.env.BENCH_ENGINES || 'chromium firefox webkit').split(/[\s,]+/).filter(Boolean);
  const out = { engines: {} };
  for (const name of names) {
    try {
      out.engines[name] = await engineSection(name, pageSim, apiSim, runs, log);
    } catch (error) {
      log(`engines: ${name} failed: ${error.stack}`);
      out.engines[name] = { error: String(error.stack || error) };
    }
  }
  return out;
}
