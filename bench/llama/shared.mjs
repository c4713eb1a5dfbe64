// What both servers' parts of section 7 use (section.mjs: llama-cpp-python's server;
// cpp-server.mjs: llama.cpp's C++ server): the statistics, a free port, and the widget's
// experiments panel as the benchmark drives and reads it (the page's requests captured on
// the way). Its own module so that section.mjs can start cpp-server.mjs's part without the
// two importing each other.
import { createServer } from 'node:net';
import { openWidget } from '../lib.mjs';

// ---------------------------------------------------------------------------------------
// Statistics.

export function median(values) {
  const sorted = values.filter((value) => typeof value === 'number' && Number.isFinite(value)).sort((a, b) => a - b);
  if (!sorted.length) return null;
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** Ordinary least squares y = intercept + slope·x (as ttft-core's stats::linear_fit). */
export function linearFit(points) {
  const usable = points.filter(([x, y]) => Number.isFinite(x) && Number.isFinite(y));
  const n = usable.length;
  if (n < 2) return null;
  const meanX = usable.reduce((sum, [x]) => sum + x, 0) / n;
  const meanY = usable.reduce((sum, [, y]) => sum + y, 0) / n;
  let sxx = 0;
  let sxy = 0;
  let syy = 0;
  for (const [x, y] of usable) {
    sxx += (x - meanX) ** 2;
    sxy += (x - meanX) * (y - meanY);
    syy += (y - meanY) ** 2;
  }
  if (sxx === 0) return null;
  const slope = sxy / sxx;
  const intercept = meanY - slope * meanX;
  const residual = usable.reduce((sum, [x, y]) => sum + (y - intercept - slope * x) ** 2, 0);
  return { n, slope, intercept, r_squared: syy > 0 ? 1 - residual / syy : null };
}

// ---------------------------------------------------------------------------------------
// The server's port.

/** A port free on 127.0.0.1 now (the OS's pick), for a server about to start. */
export async function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

// ---------------------------------------------------------------------------------------
// The widget's experiments panel, and the requests the page sends.

/** The experiment panel's report, read through its test ids and data attributes. */
export async function readExperiment(page) {
  return page.evaluate(() => {
    const report = document.querySelector('[data-testid=exp-report]');
    const data = report ? { ...report.dataset } : null;
    const table = document.querySelector('[data-testid=exp-table]');
    const headers = table ? [...table.querySelectorAll('thead th')].map((th) => th.textContent.trim()) : [];
    const rows = table ? [...table.querySelectorAll('tbody tr')].map((tr) => [...tr.children].map((td) => td.textContent.trim())) : [];
    const verdict = document.querySelector('[data-testid=exp-verdict]');
    const error = document.querySelector('[data-testid=exp-input-error]');
    const progress = document.querySelector('[data-testid=exp-progress]');
    const tally = document.querySelector('[data-testid=exp-tally]');
    return {
      report: data,
      headers,
      rows,
      notes: [...document.querySelectorAll('[data-testid=exp-notes] li')].map((li) => li.textContent.trim()),
      tally: tally ? { measured: Number(tally.dataset.measured), priming: Number(tally.dataset.priming), calibration_requests: Number(tally.dataset.calibrationRequests), text: tally.textContent.trim() } : null,
      verdicts: verdict ? verdict.dataset.verdicts || verdict.dataset.verdict : null,
      verdict_text: verdict ? verdict.textContent.trim() : null,
      input_error: error ? error.textContent.trim() : null,
      progress: progress ? { state: progress.dataset.state, done: Number(progress.dataset.done), planned: Number(progress.dataset.planned), text: progress.textContent.trim() } : null,
    };
  });
}

/**
 * Opens the page that has the experiments panel (`exp-kind`) in a fresh context: the widget
 * page itself when it has one, else the lab (`/lab/` of the same server), where the split
 * build keeps the experiments.
 */
export async function openExperiments(browser, pageUrl) {
  const widget = await openWidget(browser, pageUrl);
  if (await widget.page.getByTestId('exp-kind').count()) return { ...widget, url: pageUrl };
  await widget.context.close();
  const labUrl = new URL('lab/', pageUrl.endsWith('/') ? pageUrl : `${pageUrl}/`).href;
  return { ...(await openWidget(browser, labUrl)), url: labUrl };
}

/** Progress states in which an experiment is over (src/experiments/mod.rs). */
const ENDED = ['done', 'stopped', 'refused'];

/**
 * Starts experiment `kind` with its fields (test id → value) and waits until
 * `exp-progress[data-state]` says it ended (done, stopped or refused): it first waits for
 * the new experiment to leave the previous one's end state (preparing: the widget asks the
 * server for its context window and counts tokens; running: the measured runs).
 */
export async function runExperiment(page, kind, fields, timeoutMs) {
  await page.getByTestId('exp-kind').selectOption(kind);
  for (const [testId, value] of Object.entries(fields)) await page.getByTestId(testId).fill(value);
  await page.getByTestId('exp-run').click();
  await page.waitForFunction(
    () => ['preparing', 'running', 'refused'].includes(document.querySelector('[data-testid=exp-progress]')?.dataset.state),
    null,
    { timeout: 30_000, polling: 20 },
  );
  await page.waitForFunction(
    (ended) => ended.includes(document.querySelector('[data-testid=exp-progress]')?.dataset.state),
    ENDED,
    { timeout: timeoutMs, polling: 100 },
  );
  return readExperiment(page);
}

/** Column index by header text (case-insensitive regex), or -1. */
export function column(headers, pattern) {
  return headers.findIndex((header) => pattern.test(header));
}

export const numberIn = (text) => {
  const value = Number.parseFloat(String(text ?? '').replace(/,/g, ''));
  return Number.isFinite(value) ? value : null;
};

/**
 * The requests the page sent to the server (the fetch worker's included), in order:
 * POSTs with their JSON bodies (chat completions, measured or counting; /tokenize), and the
 * GETs it asked before planning (/props, /v1/models: where a context window can be read),
 * with their status and the start of their answer. Observed through Playwright's request
 * and response events, nothing altered.
 */
export function captureRequests(context, serverUrl) {
  const requests = [];
  const gets = [];
  context.on('request', (request) => {
    if (!request.url().startsWith(serverUrl) || request.method() !== 'POST') return;
    let body = null;
    try {
      body = JSON.parse(request.postData() || 'null');
    } catch {}
    requests.push({ url: request.url().slice(serverUrl.length), body });
  });
  context.on('response', async (response) => {
    const request = response.request();
    if (!request.url().startsWith(serverUrl) || request.method() !== 'GET') return;
    const entry = { url: request.url().slice(serverUrl.length), status: response.status(), body: null };
    gets.push(entry);
    try {
      entry.body = (await response.text()).slice(0, 400);
    } catch {}
  });
  return {
    take() {
      return requests.splice(0, requests.length);
    },
    takeGets() {
      return gets.splice(0, gets.length);
    },
  };
}

/** A measured request: a streamed chat completion (calibration requests are not streamed). */
export const isMeasured = (request) => request.url.endsWith('/chat/completions') && request.body?.stream === true;
