// Chromium trace of widget runs (issue 14 items 3 and 4): what the page's main thread and
// the fetch worker do from the Send click until the response headers reach the worker, and
// what the frame that paints the first answer token contains. Diagnostic, not a benchmark:
// it prints, per run and summed over the runs, the main-thread tasks in each window by
// kind, the worker's steps (message received, fetch() called, request sent, response
// received, fetch() resolved) and the rendering work of the first-answer frame.
//
// Usage: node bench/trace.mjs  (after scripts/bench.sh built dist/ and the release ttft-sim)
//   TRACE_RUNS=8  TRACE_MODEL='sim-fast@prefill_ms=100,early_role=1,itl_ms=2,answer_tokens=150'
//   TRACE_OUT=bench/out/trace.json (the last run's raw trace, for chrome://tracing)
// Window C (item 4): what the renderer's threads did in the 10 ms before the worker read the
// first answer (tasks by kind, busy time per thread), beside the run's ttfa_ms.
import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ROOT, launchBrowser, openWidget, rowCount, setForm, startSim, waitForRows } from './lib.mjs';

const RUNS = Number(process.env.TRACE_RUNS || 8);
const MODEL = process.env.TRACE_MODEL || 'sim-fast@prefill_ms=100,early_role=1,itl_ms=2,answer_tokens=150';
const ARRIVAL_WINDOW_MS = 10;
const OUT = process.env.TRACE_OUT || path.join(ROOT, 'bench', 'out', 'trace.json');
const CATEGORIES = [
  'devtools.timeline', 'disabled-by-default-devtools.timeline', 'disabled-by-default-devtools.timeline.frame',
  'blink.user_timing', 'toplevel', 'loading', 'v8.execute', 'blink', 'cc',
];

/** Rendering and script events worth naming inside a task (devtools.timeline names). */
const KINDS = {
  FunctionCall: 'script', EvaluateScript: 'script', 'v8.callFunction': 'script', TimerFire: 'timer',
  EventDispatch: 'event', FireAnimationFrame: 'rAF', RunMicrotasks: 'microtasks',
  UpdateLayoutTree: 'style', Layout: 'layout', PrePaint: 'prepaint', Paint: 'paint', Commit: 'commit',
  Layerize: 'layerize', 'MajorGC': 'gc', 'MinorGC': 'gc', 'V8.GC_SCAVENGER': 'gc', HitTest: 'hittest',
  ScrollLayer: 'scroll', UpdateLayer: 'layer', ParseHTML: 'parse',
};

const round = (value, digits = 2) => (value === null || value === undefined || Number.isNaN(value) ? null : Number(value.toFixed(digits)));

function threads(events) {
  const names = new Map();
  for (const event of events) {
    if (event.ph === 'M' && event.name === 'thread_name') names.set(`${event.pid}:${event.tid}`, event.args.name);
  }
  return names;
}

/**
 * A thread's tasks: 'ThreadControllerImpl::RunTask' and 'RunTask' events, each counted once
 * (Chromium nests one inside the other for the same task).
 */
function topTasks(own) {
  const all = own.filter((event) => event.name === 'RunTask' || event.name === 'ThreadControllerImpl::RunTask').sort((a, b) => a.ts - b.ts || b.dur - a.dur);
  const out = [];
  for (const event of all) {
    const last = out.at(-1);
    if (last && event.ts >= last.ts && event.ts + event.dur <= last.ts + last.dur) continue;
    out.push(event);
  }
  return out;
}

/** Complete events ('X') of one thread, grouped by thread in one pass over the trace (once per
 *  trace: it has hundreds of thousands of events, and each run asks for several
 *  windows of the same threads). */
const threadCache = new WeakMap();
function threadEvents(events, pid, tid) {
  let byThread = threadCache.get(events);
  if (!byThread) {
    byThread = new Map();
    for (const event of events) {
      if (event.ph !== 'X' || event.dur === undefined) continue;
      const key = `${event.pid}:${event.tid}`;
      if (!byThread.has(key)) byThread.set(key, []);
      byThread.get(key).push(event);
    }
    threadCache.set(events, byThread);
  }
  return byThread.get(`${pid}:${tid}`) ?? [];
}

/** Busy time of one thread's top-level tasks clipped to [fromMs, toMs], ms. */
function busyWithin(events, pid, tid, fromMs, toMs, toPage) {
  let total = 0;
  const own = threadEvents(events, pid, tid);
  for (const event of topTasks(own)) {
    const start = Math.max(fromMs, toPage(event.ts));
    const end = Math.min(toMs, toPage(event.ts + event.dur));
    if (end > start) total += end - start;
  }
  return total;
}

/** Complete events ('X') of one thread, sorted, with self time by kind of their children. */
function tasksOf(events, pid, tid, fromMs, toMs, toPage) {
  const own = threadEvents(events, pid, tid);
  const tasks = topTasks(own);
  const out = [];
  for (const task of tasks) {
    const start = toPage(task.ts);
    const end = toPage(task.ts + task.dur);
    if (end < fromMs || start > toMs) continue;
    const inside = own.filter((event) => event !== task && event.ts >= task.ts && event.ts + event.dur <= task.ts + task.dur && KINDS[event.name]);
    const byKind = {};
    for (const event of inside) {
      // Time of the event not inside another named event of the task (self time by kind).
      const nested = inside.filter((other) => other !== event && other.ts <= event.ts && other.ts + other.dur >= event.ts + event.dur && (other.ts < event.ts || other.dur > event.dur));
      if (nested.length) continue;
      const kind = KINDS[event.name] === 'event' ? `event:${event.args?.data?.type ?? '?'}` : KINDS[event.name];
      byKind[kind] = (byKind[kind] || 0) + event.dur / 1000;
    }
    out.push({ start_ms: round(start), duration_ms: round(task.dur / 1000), kinds: Object.fromEntries(Object.entries(byKind).map(([k, v]) => [k, round(v)])) });
  }
  return out;
}

function instantEvents(events, pid, names, toPage) {
  return events
    .filter((event) => event.pid === pid && names.includes(event.name))
    .map((event) => ({ name: event.name, at_ms: round(toPage(event.ts)), tid: event.tid, url: event.args?.data?.url }));
}

async function main() {
  const sim = await startSim();
  const browser = await launchBrowser();
  const { page } = await openWidget(browser, sim.url);
  await page.locator('[data-testid=app][data-transport=worker]').waitFor({ timeout: 10_000 });
  await setForm(page, { model: MODEL, runs: 1 });
  // A first run warms the connection and the page.
  let before = await rowCount(page);
  await page.getByTestId('send').click();
  await waitForRows(page, before + 1);
  const perRun = [];
  let lastTrace = null;
  for (let i = 0; i < RUNS; i += 1) {
    await browser.startTracing(page, { categories: CATEGORIES });
    await page.evaluate(() => performance.mark('ttft-trace-sync'));
    before = await rowCount(page);
    await page.getByTestId('send').click();
    await waitForRows(page, before + 1);
    await page.waitForTimeout(300);
    const trace = JSON.parse((await browser.stopTracing()).toString());
    lastTrace = trace;
    const events = trace.traceEvents;
    const syncMark = await page.evaluate(() => performance.getEntriesByName('ttft-trace-sync').at(-1).startTime);
    const sync = events.find((event) => event.name === 'ttft-trace-sync' && event.cat.includes('blink.user_timing'));
    if (!sync) throw new Error('no sync mark in the trace (blink.user_timing)');
    const offsetMs = sync.ts / 1000 - syncMark;
    const toPage = (ts) => ts / 1000 - offsetMs;
    const names = threads(events);
    const pid = sync.pid;
    const mainTid = [...names.entries()].find(([key, name]) => key.startsWith(`${pid}:`) && name === 'CrRendererMain')?.[0].split(':')[1];
    const workerTids = [...names.entries()].filter(([key, name]) => key.startsWith(`${pid}:`) && /DedicatedWorker/.test(name)).map(([key]) => Number(key.split(':')[1]));
    const record = await page.evaluate(() => {
      const stored = JSON.parse(localStorage.getItem('ttft-meter.runs.v1') ?? '{"runs":[]}');
      return stored.runs.at(-1);
    });
    const at = record.instants;
    const headers = at.headers_received;
    const paintedAt = at.answer_painted?.at_ms ?? null;
    const main = Number(mainTid);
    const windowA = tasksOf(events, pid, main, at.clicked ?? at.request_started, headers, toPage);
    const workerA = workerTids.flatMap((tid) => tasksOf(events, pid, tid, at.clicked ?? at.request_started, headers + 5, toPage));
    const windowB = paintedAt === null ? [] : tasksOf(events, pid, main, at.first_answer_visible, paintedAt, toPage);
    // Window C (item 4): what the renderer's threads did in the 10 ms before the worker read
    // the first answer: work there competes with the worker (and the network service) for
    // the machine's cores, and can only make the worker's stamp later.
    const beforeFrom = at.first_answer - ARRIVAL_WINDOW_MS;
    const windowC = tasksOf(events, pid, main, beforeFrom, at.first_answer, toPage);
    const otherTids = [...names.entries()].filter(([key, name]) => key.startsWith(`${pid}:`) && !/DedicatedWorker|CrRendererMain/.test(name));
    const otherC = otherTids.map(([key, name]) => ({ thread: name, busy_ms: busyWithin(events, pid, Number(key.split(':')[1]), beforeFrom, at.first_answer, toPage) })).filter((entry) => entry.busy_ms > 0);
    const workerC = workerTids.reduce((sum, tid) => sum + busyWithin(events, pid, tid, beforeFrom, at.first_answer, toPage), 0);
    const network = instantEvents(events, pid, ['ResourceWillSendRequest', 'ResourceSendRequest', 'ResourceReceiveResponse', 'ResourceReceivedData', 'ResourceFinish'], toPage)
      .filter((event) => event.at_ms >= (at.clicked ?? at.request_started) - 5 && event.at_ms <= (at.first_answer_visible ?? headers) + 5);
    const busy = (tasks) => round(tasks.reduce((sum, task) => sum + task.duration_ms, 0));
    perRun.push({
      run: i + 1,
      instants_ms: {
        clicked: at.clicked, request_started: at.request_started, headers_received: headers, headers_from: at.headers_received_from ?? 'fetch_resolved',
        first_answer_visible: at.first_answer_visible, answer_painted: paintedAt,
      },
      setup_ms: round(record.metrics.setup_ms), answer_ui_delay_ms: round(record.metrics.answer_ui_delay_ms), waiting_ms: round(record.network?.waiting_ms),
      arrival_delay_bound_ms: round(record.arrival_delay_bound_ms),
      click_to_headers: { main_thread_busy_ms: busy(windowA), tasks: windowA, worker_tasks: workerA, network },
      first_answer_frame: { main_thread_busy_ms: busy(windowB), tasks: windowB },
      before_first_answer: {
        window_ms: ARRIVAL_WINDOW_MS,
        main_thread_busy_ms: round(busyWithin(events, pid, main, beforeFrom, at.first_answer, toPage)),
        tasks: windowC,
        other_renderer_threads: otherC,
        worker_busy_ms: round(workerC),
      },
      ttfa_ms: round(record.metrics.ttfa_ms),
    });
    console.error(`[trace] run ${i + 1}: setup ${round(record.metrics.setup_ms)} ms, main thread busy ${busy(windowA)} ms click→headers; ui_delay ${round(record.metrics.answer_ui_delay_ms)} ms, busy ${busy(windowB)} ms arrival→paint`);
  }
  await browser.close();
  await sim.stop();
  // Sums over the runs, by kind.
  const sumKinds = (pick) => {
    const total = {};
    for (const run of perRun) for (const task of pick(run)) for (const [kind, ms] of Object.entries(task.kinds)) total[kind] = round((total[kind] || 0) + ms);
    return Object.fromEntries(Object.entries(total).sort((a, b) => b[1] - a[1]));
  };
  const report = {
    date: new Date().toISOString(),
    load_average: os.loadavg().map((value) => round(value)),
    model: MODEL,
    runs: RUNS,
    click_to_headers_by_kind_ms: sumKinds((run) => run.click_to_headers.tasks),
    worker_click_to_headers_by_kind_ms: sumKinds((run) => run.click_to_headers.worker_tasks),
    first_answer_frame_by_kind_ms: sumKinds((run) => run.first_answer_frame.tasks),
    before_first_answer_by_kind_ms: sumKinds((run) => run.before_first_answer.tasks),
    per_run: perRun,
  };
  await mkdir(path.dirname(OUT), { recursive: true });
  await writeFile(OUT, JSON.stringify(lastTrace));
  await writeFile(OUT.replace(/\.json$/, '-summary.json'), JSON.stringify(report, null, 2));
  console.log(JSON.stringify({ ...report, per_run: perRun.map((run) => ({ run: run.run, setup_ms: run.setup_ms, headers_from: run.instants_ms.headers_from, ui_delay_ms: run.answer_ui_delay_ms, bound_ms: run.arrival_delay_bound_ms, busy_click_to_headers_ms: run.click_to_headers.main_thread_busy_ms, busy_arrival_to_paint_ms: run.first_answer_frame.main_thread_busy_ms, ttfa_ms: run.ttfa_ms, busy_before_first_answer_ms: { main: run.before_first_answer.main_thread_busy_ms, worker: run.before_first_answer.worker_busy_ms, others: run.before_first_answer.other_renderer_threads } })) }, null, 2));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
