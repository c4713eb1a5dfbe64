// Where the widget's timer waits go under a flood, per engine (issue 23): the widget runs the
// hostile stream of 2,000,000 one-character events while the page logs every
// `performance.now()` call (the widget reads the clock before each slice of a body read, at
// most 64 KiB, and around each yield), every worker acknowledgement and every animation
// frame, and a `setTimeout(0)` loop measures how long the page's timers wait.
//
// A *silence* is a stretch with no clock read at all: no slice of the page's own work ran in
// it. Where a timer waits over 50 ms and the wait is one silence, the engine was busy with
// something else than the page's tasks (its rendering, the worker's network traffic, which
// WebKit passes through the page's main thread, or another process holding the CPU).
//
// Per engine and setting, 2 runs each (RUNS=n):
//   cold      a fresh page, the flood is its first.
//   warm      a second flood in the same page (the first one not measured).
//   priority  cold, the page's process at nice -15 (root only; WebKit's web process, whose
//             main thread is the page's): what is left when no other process takes the CPU.
//
// Usage: node bench/flood-silences.mjs [webkit,chromium,firefox] [cold,warm,priority]
// (WebKit needs an X display: DISPLAY=:NN with Xvfb running). Needs dist/ and ttft-sim.
import { execFileSync } from 'node:child_process';
import { WidgetPage } from '../e2e/pages/widget.mjs';
import { launchBrowser, startSim } from '../e2e/support.mjs';
import { FLOODS } from './flood.mjs';

const engines = (process.argv[2] || 'webkit').split(',');
const settings = (process.argv[3] || 'cold,warm,priority').split(',');
const runs = Number(process.env.RUNS || 2);
const { model } = FLOODS[0];

/** Starts the page's logs: clock reads, acknowledgements to the worker, frames, timer waits. */
function startLogs(widget) {
  return widget.evaluate(() => {
    const originalNow = Performance.prototype.now;
    const now = () => originalNow.call(performance);
    const reads = new Float64Array(4_000_000);
    let readCount = 0;
    Performance.prototype.now = function () {
      const at = originalNow.call(this);
      if (readCount < reads.length) reads[readCount++] = at;
      return at;
    };
    const log = { waits: [], acks: [], frames: [], running: true };
    const postMessage = Worker.prototype.postMessage;
    Worker.prototype.postMessage = function (...args) {
      log.acks.push(now());
      return postMessage.apply(this, args);
    };
    let last = now();
    const turn = () => {
      const at = now();
      if (at - last > 50) log.waits.push([last, at - last]);
      last = at;
      if (log.running) setTimeout(turn, 0);
    };
    setTimeout(turn, 0);
    const frame = () => {
      log.frames.push(now());
      if (log.running) requestAnimationFrame(frame);
    };
    requestAnimationFrame(frame);
    window.__silences = () => {
      log.running = false;
      Performance.prototype.now = originalNow;
      Worker.prototype.postMessage = postMessage;
      return { ...log, reads: Array.from(reads.subarray(0, readCount)) };
    };
  });
}

/** The waits over 50 ms, each with its longest silence and what happened in it. */
function analyse({ waits, reads, acks, frames }) {
  const within = (list, at, ms) => list.filter((t) => t > at && t < at + ms);
  const rows = waits.map(([at, ms]) => {
    const inside = within(reads, at, ms);
    let silence = 0;
    let previous = at;
    for (const t of [...inside, at + ms]) {
      silence = Math.max(silence, t - previous);
      previous = t;
    }
    return { ms, silence, reads: inside.length, acks: within(acks, at, ms).length, frames: within(frames, at, ms).length };
  });
  const sum = (list) => list.reduce((total, value) => total + value, 0);
  return {
    waits_over_50: rows.length,
    longest_wait_ms: Math.round(Math.max(0, ...rows.map((row) => row.ms))),
    beyond_50_ms: Math.round(sum(rows.map((row) => row.ms - 50))),
    // The share of the waits' time that was silences (no slice of the page's work ran).
    silent_share: rows.length ? sum(rows.map((row) => row.silence)) / sum(rows.map((row) => row.ms)) : null,
    longest_silence_ms: Math.round(Math.max(0, ...rows.map((row) => row.silence))),
  };
}

async function floodRun(browser, sim, setting) {
  const widget = await WidgetPage.open(browser, sim.url, '?lang=en');
  try {
    await widget.fill({ baseUrl: `${sim.url}/v1`, model, timeoutS: 120 });
    let runsBefore = 0;
    if (setting === 'warm') {
      await widget.send();
      await widget.waitForRuns(1, { timeout: 180_000 });
      runsBefore = 1;
    }
    if (setting === 'priority') {
      // The newest web process is this page's (WebKit); other engines: the browser's tree
      // is left alone and the setting is skipped.
      const pid = execFileSync('pgrep', ['-n', 'WebKitWebProces']).toString().trim();
      execFileSync('renice', ['-n', '-15', '-p', pid]);
    }
    await startLogs(widget);
    await widget.send();
    await widget.waitForRuns(runsBefore + 1, { timeout: 180_000 });
    return analyse(await widget.evaluate(() => window.__silences()));
  } finally {
    await widget.close();
  }
}

const sim = await startSim();
try {
  for (const engine of engines) {
    const browser = await launchBrowser(engine);
    try {
      for (const setting of settings) {
        if (setting === 'priority' && engine !== 'webkit') continue;
        for (let run = 1; run <= runs; run += 1) {
          const result = await floodRun(browser, sim, setting);
          const share = result.silent_share === null ? '-' : `${Math.round(result.silent_share * 100)} %`;
          console.log(
            result.waits_over_50 === 0
              ? `${engine} ${setting} #${run}: no timer wait over 50 ms`
              : `${engine} ${setting} #${run}: ${result.waits_over_50} timer waits over 50 ms, longest ${result.longest_wait_ms} ms, ` +
                  `${result.beyond_50_ms} ms beyond 50 in all; of the waits' time ${share} silent (no slice of the page's work ran), longest silence ${result.longest_silence_ms} ms`,
          );
        }
      }
    } finally {
      await browser.close();
    }
  }
} finally {
  await sim.stop();
}
