// Section 5b. Floods (issue 23): a hostile provider's answer of 2,000,000 one-character
// events, and one of 50,000 newlines then a 1 MiB word, through the widget and, in the same
// page and run, through a peer: a plain streaming chat view as a careful app writes it
// (fetch and its reader on the main thread, each SSE event parsed with JSON.parse, the text
// appended to a <pre> once per animation frame, at most 1 MiB shown as the widget does).
// Chromium's Long Tasks API counts tasks over 50 ms; a requestAnimationFrame loop gives the
// longest frame gap; the widget's record gives its own stall figure (main_thread_stall_ms).
import { openWidget, readRows, rowCount, setForm, waitForRows } from './lib.mjs';

export const FLOODS = [
  { name: '2,000,000 one-character events', model: 'sim-fast@fault=flood_chars,prefill_ms=10,flood_events=2000000' },
  { name: '50,000 newlines, then a 1 MiB word', model: 'sim-fast@fault=flood_lines,prefill_ms=10,flood_newlines=50000,flood_word_bytes=1048576' },
];

const round = (value, digits = 1) => (value === null || value === undefined ? null : Number(value.toFixed(digits)));

/** The long tasks and frame gaps of the page between `start()` and `stop()`. */
async function watch(page) {
  await page.evaluate(() => {
    window.__bench.longtasks = [];
    window.__benchRaf(true);
  });
  return async () => page.evaluate(() => {
    window.__benchRaf(false);
    const tasks = window.__bench.longtasks.map((task) => task.duration);
    return { tasks, gaps: window.__bench.rafGaps };
  });
}

function summarise({ tasks, gaps }) {
  return {
    long_tasks: tasks.length,
    longest_task_ms: round(Math.max(0, ...tasks)),
    long_task_total_ms: round(tasks.reduce((sum, task) => sum + task, 0), 0),
    longest_frame_gap_ms: round(Math.max(0, ...gaps)),
  };
}

/** The peer: a plain streaming chat view in the page (see the header). */
function peerRun(page, url, model) {
  return page.evaluate(async ({ url, model }) => {
    const MAX_SHOWN = 1024 * 1024;
    const pre = document.createElement('pre');
    pre.style.cssText = 'position:fixed;left:0;bottom:0;width:600px;max-height:320px;overflow-y:auto;white-space:pre-wrap;overflow-wrap:anywhere;font:13px monospace;background:#fff;margin:0';
    document.body.append(pre);
    const started = performance.now();
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer sk-bench' },
      body: JSON.stringify({ model, stream: true, messages: [{ role: 'user', content: 'Hello' }] }),
    });
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let buffered = '';
    let pending = '';
    let shown = 0;
    let scheduled = false;
    const flush = () => {
      scheduled = false;
      pre.append(pending);
      pending = '';
    };
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      buffered += decoder.decode(value, { stream: true });
      const lines = buffered.split('\n');
      buffered = lines.pop();
      for (const line of lines) {
        if (!line.startsWith('data:')) continue;
        const data = line.slice(5).trim();
        if (data === '[DONE]') continue;
        const content = JSON.parse(data).choices?.[0]?.delta?.content;
        if (!content || shown >= MAX_SHOWN) continue;
        const piece = content.slice(0, MAX_SHOWN - shown);
        shown += piece.length;
        pending += piece;
        if (!scheduled) {
          scheduled = true;
          requestAnimationFrame(flush);
        }
      }
    }
    if (pending) flush();
    const wallMs = performance.now() - started;
    pre.remove();
    return { wall_ms: wallMs, shown_chars: shown };
  }, { url, model });
}

export async function flood(browser, pageSim, { log }) {
  const { page, context, errors } = await openWidget(browser, pageSim.url);
  const url = `${pageSim.url}/v1/chat/completions`;
  const floods = [];
  try {
    for (const { name, model } of FLOODS) {
      log(`flood: ${name}, widget then peer`);
      await setForm(page, { model, runs: 1 });
      const before = await rowCount(page);
      let stop = await watch(page);
      const started = Date.now();
      await page.getByTestId('send').click();
      await waitForRows(page, before + 1, 240_000);
      const widgetWallMs = Date.now() - started;
      const widget = summarise(await stop());
      const record = await page.evaluate(() => JSON.parse(localStorage.getItem('ttft-meter.runs.v1')).runs.at(-1));
      const row = (await readRows(page)).at(-1);
      stop = await watch(page);
      const peerResult = await peerRun(page, url, model);
      const peer = summarise(await stop());
      floods.push({
        name,
        model,
        widget: { ...widget, wall_ms: widgetWallMs, main_thread_stall_ms: round(record.main_thread_stall_ms), outcome: row?.outcome },
        peer: { ...peer, wall_ms: round(peerResult.wall_ms, 0), shown_chars: peerResult.shown_chars },
        longest_task_ratio: peer.longest_task_ms > 0 ? round(widget.longest_task_ms / peer.longest_task_ms, 3) : null,
      });
    }
  } finally {
    await context.close();
  }
  const longest = Math.max(0, ...floods.map((f) => f.widget.longest_task_ms));
  return { floods, page_errors: errors, target: { no_task_over_50ms: longest <= 50, longest_task_ms: longest, miss_ms: round(Math.max(0, longest - 50)) } };
}
