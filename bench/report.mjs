// Renders bench/out/report.json as Markdown.

const f = (value, digits = 2) => (value === null || value === undefined || Number.isNaN(value) ? '—' : Number(value).toFixed(digits));
const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;
const mb = (bytes) => (bytes === null || bytes === undefined ? '—' : `${(bytes / 2 ** 20).toFixed(1)} MB`);
const verdict = (met, miss) => (met ? '**met**' : `**missed** by ${miss}`);

export function renderMarkdown(report) {
  const m = report.machine;
  const s = report.sections;
  const out = [];
  out.push('# TTFT Meter benchmark report', '');
  out.push(`Date ${m.date}; ${m.host}; ${m.cpu} × ${m.cores} cores, ${m.memory_gb} GB; load average at start ${m.load_average_at_start.join(' / ')} (cores shared with other builds: expect noise); ${m.os}; ${m.chromium}; node ${m.node}; commit ${m.commit}.`);
  out.push('', `Total run time ${f(report.total_seconds, 0)} s. Percentiles: ${report.percentile_method}. Every figure is measured beside its peer in the same run, on 127.0.0.1, headless Chromium.`, '');

  if (s.fidelity && !s.fidelity.error) {
    const fid = s.fidelity;
    out.push('## 1. Fidelity: measured first-answer time − scripted', '');
    out.push(`ttft-sim scripted \`prefill_ms\` = 100, 300, 1000 with an early role-only chunk (\`early_role=1\`), ${fid.runs} warm runs per client and level (after one warm-up request on the same connection). Error = measured − scripted, ms.`, '');
    out.push('| scripted | client (what it stops the clock on) | p50 | p95 | min | max |', '|---|---|---|---|---|---|');
    const names = {
      widget_ttfa: 'TTFT Meter `ttfa_ms` (first non-empty answer, worker-stamped)',
      widget_perceived_ttfa: 'TTFT Meter `perceived_ttfa_ms` (painted; scheduled runs count from fetch)',
      widget_first_chunk: 'TTFT Meter `first_chunk_ms` (first event of any kind)',
      widget_setup_ms: 'TTFT Meter `setup_ms` (headers − fetch; not an error: the sim sends headers at once)',
      widget_queueing_ms: 'TTFT Meter `queueing_ms` (Resource Timing requestStart − fetchStart; not an error)',
      widget_waiting_ms: 'TTFT Meter `waiting_ms` (responseStart − requestStart; not an error)',
      browser_fetch_main_thread: 'bare `fetch()` in the same page, main thread, first non-empty content',
      browser_fetch_worker: 'bare `fetch()` in a Worker of the same page, first non-empty content',
      openai_sdk_first_content: 'openai SDK, first non-empty `delta.content`',
      openai_sdk_first_chunk: 'openai SDK, first chunk of any kind',
      curl_starttransfer: 'curl `time_starttransfer` (first byte)',
      curl_starttransfer_no_early_role: 'curl `time_starttransfer`, same model without the early role chunk',
    };
    for (const level of fid.levels) {
      for (const [key, label] of Object.entries(names)) {
        const c = level.clients[key];
        out.push(`| ${level.scripted_ms} ms | ${label} | ${f(c.p50)} | ${f(c.p95)} | ${f(c.min)} | ${f(c.max)} |`);
      }
    }
    out.push('', '| scripted | widget p95 abs error | ≤ 2 ms | best peer (p95 abs error) | no worse than best peer | cold first run: widget / openai SDK |', '|---|---|---|---|---|---|');
    for (const level of fid.levels) {
      const t = level.target;
      out.push(`| ${level.scripted_ms} ms | ${f(t.p95_abs_error_ms, 3)} ms | ${verdict(t.le_2ms, `${f(t.miss_vs_2ms, 3)} ms`)} | ${t.best_peer} (${f(t.best_peer_p95_abs_error_ms, 3)} ms) | ${verdict(t.no_worse_than_best_peer, `${f(t.miss_vs_best_peer, 3)} ms`)} | ${f(level.cold.widget_ttfa_error_ms)} / ${f(level.cold.openai_sdk_first_content_error_ms)} ms |`);
    }
    out.push('', `Ground truth read from the sim's headers in the same run: x-sim-first-answer-ms = ${fid.levels.map((l) => l.ground_truth_header_x_sim_first_answer_ms.join(',')).join(' / ')}; x-sim-queue-ms = ${fid.levels.map((l) => l.ground_truth_header_x_sim_queue_ms.join(',')).join(' / ')}. openai ${fid.levels[0].openai_version}.`, '');
  } else if (s.fidelity) out.push('## 1. Fidelity', '', '```', s.fidelity.error, '```', '');

  if (s.paint && !s.paint.error) {
    const p = s.paint;
    out.push('## 2. Paint delay: `answer_ui_delay_ms` (first answer painted − arrived)', '');
    out.push('Peer, in the same page and run: the least a page can do (a plain Worker fetch, `textContent` of a fresh `elementtiming` span on the first content, Element Timing presentationTime − arrival).', '');
    out.push('| stream | itl_ms | ui_delay p50 | p95 | max | peer p50 | peer p95 | p95 ÷ peer p95 | paint method | ttfa error p95 |', '|---|---|---|---|---|---|---|---|---|---|');
    for (const r of p.rates) out.push(`| ${r.tokens_per_s} tokens/s | ${r.itl_ms} | ${f(r.ui_delay_ms.p50)} | ${f(r.ui_delay_ms.p95)} | ${f(r.ui_delay_ms.max)} | ${f(r.peer_ui_delay_ms?.p50)} | ${f(r.peer_ui_delay_ms?.p95)} | ${r.peer_ui_delay_ms ? f(r.ui_delay_ms.p95 / r.peer_ui_delay_ms.p95) : '—'} | ${r.paint_methods.join(', ')} | ${f(r.ttfa_error_ms.p95)} |`);
    const i = p.injected_task;
    out.push(`| ${i.tokens_per_s} tokens/s + ${i.task_ms} ms main-thread task starting ${i.starts_ms_before_first_answer} ms before the first answer | 2 | ${f(i.ui_delay_ms.p50)} | ${f(i.ui_delay_ms.p95)} | ${f(i.ui_delay_ms.max)} | | | | | ${f(i.ttfa_error_ms.p95)} |`);
    out.push('', `Under the injected task, a bare \`fetch()\` in a plain Worker of the same page (stamps taken in the worker) has a first-content error of p50 ${f(i.bare_worker_fetch_first_content_error_ms.p50)} ms, p95 ${f(i.bare_worker_fetch_first_content_error_ms.p95)} ms (the widget's ttfa error above: p50 ${f(i.ttfa_error_ms.p50)}, p95 ${f(i.ttfa_error_ms.p95)}).`);
    out.push('', `The widget's own breakdown under the injected task (p50 / p95 ms): setup_ms ${f(i.setup_ms.p50)} / ${f(i.setup_ms.p95)}, queueing_ms ${f(i.queueing_ms.p50)} / ${f(i.queueing_ms.p95)}, waiting_ms ${f(i.waiting_ms.p50)} / ${f(i.waiting_ms.p95)}, first_chunk_ms ${f(i.first_chunk_ms.p50)} / ${f(i.first_chunk_ms.p95)}.`);
    out.push('', `Target p95 ≤ 16.7 ms at 500 tokens/s: ${f(p.target.p95_at_500_tps_ms)} ms, ${verdict(p.target.le_16_7ms, `${f(p.target.miss_ms)} ms`)}; the peer's p95 ${f(p.target.peer_p95_at_500_tps_ms)} ms (widget ÷ peer ${f(p.target.ratio_to_peer_p95)}).`, '');
  } else if (s.paint) out.push('## 2. Paint delay', '', '```', s.paint.error, '```', '');

  if (s.size && !s.size.error) {
    const z = s.size;
    out.push('## 3. Size and start', '', '| kind | raw | gzip -9 | files |', '|---|---|---|---|');
    for (const [kind, entry] of Object.entries(z.by_kind)) out.push(`| ${kind} | ${kb(entry.raw)} | ${kb(entry.gzip)} | ${entry.files.join(', ')} |`);
    out.push(`| **total** | ${kb(z.total.raw)} | **${kb(z.total.gzip)}** | |`);
    out.push('', `Target ≤ 150 KB gzip: ${verdict(z.target.met, kb(z.target.miss_bytes))}.`, '');
    out.push(`Navigation → interactive widget (Send present and enabled, wasm mounted), fresh context each, 10 loads: p50 ${f(z.interactive_ms.p50, 1)} ms, p95 ${f(z.interactive_ms.p95, 1)} ms (min ${f(z.interactive_ms.min, 1)}, max ${f(z.interactive_ms.max, 1)}); DOMContentLoaded p50 ${f(z.dom_content_loaded_ms.p50, 1)} ms.`, '');
  } else if (s.size) out.push('## 3. Size and start', '', '```', s.size.error, '```', '');

  if (s.parser && !s.parser.error) {
    const q = s.parser;
    out.push('## 4. Parser cost (same page, same bytes, same reads)', '');
    out.push(`Transcript: \`${q.transcript.model}\` chat stream with usage, ${kb(q.transcript.bytes)}, ${q.transcript.events} events. Agreement: ttft-core ${q.agreement.rustEvents} events, eventsource-parser ${q.agreement.jsEvents}; same answer text: ${q.agreement.sameAnswer}. Bench wasm ${kb(q.bench_wasm.raw)} (opt-level ${q.bench_wasm.opt_level}). ${q.rounds || 10} rounds, each timing one parse per side, the order of the sides rotated each round; the ratio is the median of the per-round ratios (the two sides of a round ran moments apart).`, '');
    out.push('| read size | ttft-core (wasm) events/s p50 | eventsource-parser + JSON.parse events/s p50 | ratio: median per round (p25–p75; ratio of the p50s) | µs per event: ttft-core / peer |', '|---|---|---|---|---|');
    for (const c of q.chunks) out.push(`| ${c.read_bytes} B | ${f(c.ttft_core_wasm_events_per_s.p50, 0)} | ${f(c.eventsource_parser_json_events_per_s.p50, 0)} | ${f(c.ratio_ttft_core_over_peer_p50, 3)} (${f(c.per_round_ratio.p25, 2)}–${f(c.per_round_ratio.p75, 2)}; ${f(c.ratio_of_p50s, 3)}) | ${f(1e6 / c.ttft_core_wasm_events_per_s.p50, 2)} / ${f(1e6 / c.eventsource_parser_json_events_per_s.p50, 2)} |`);
    out.push('', 'Where the time goes (p50 events/s):', '', '| read size | SSE layer only: ttft-core SseParser | eventsource-parser (no JSON) | ratio | full ttft-core at opt-level 3 | ratio to peer |', '|---|---|---|---|---|---|');
    for (const c of q.chunks) out.push(`| ${c.read_bytes} B | ${f(c.sse_only.ttft_core_events_per_s.p50, 0)} | ${f(c.sse_only.eventsource_parser_events_per_s.p50, 0)} | ${f(c.sse_only.ratio_p50, 3)} | ${c.opt_level_3 ? f(c.opt_level_3.ttft_core_events_per_s.p50, 0) : 'not built'} | ${c.opt_level_3 ? f(c.opt_level_3.ratio_over_peer_p50, 3) : ''} |`);
    if (q.chunks.some((c) => c.baseline)) {
      out.push('', `Before and after in the same page (the earlier build put in \`bench/parser-wasm/pkg-base\`${q.baseline_wasm ? `, bench wasm ${kb(q.baseline_wasm.raw)}` : ''}):`, '', '| read size | earlier build events/s p50 | its ratio to peer | this build events/s p50 | its ratio to peer | speed-up |', '|---|---|---|---|---|---|');
      for (const c of q.chunks.filter((c) => c.baseline)) out.push(`| ${c.read_bytes} B | ${f(c.baseline.ttft_core_events_per_s.p50, 0)} | ${f(c.baseline.ratio_over_peer_p50, 3)} | ${f(c.ttft_core_wasm_events_per_s.p50, 0)} | ${f(c.ratio_ttft_core_over_peer_p50, 3)} | ${f(c.ttft_core_wasm_events_per_s.p50 / c.baseline.ttft_core_events_per_s.p50, 2)}× |`);
    }
    out.push('', `Target at least as fast: ${verdict(q.target.at_least_as_fast, `${f(q.target.miss_percent, 1)} % (worst ratio ${f(q.target.worst_ratio, 3)})`)}; aim 1.5×: ${q.target.aim_1_5x ? 'reached' : 'not reached'}.`, '');
  } else if (s.parser) out.push('## 4. Parser cost', '', '```', s.parser.error, '```', '');

  if (s.long && !s.long.error) {
    const l = s.long;
    out.push('## 5. Long stream: 100,000 answer tokens at 5000 tokens/s', '');
    out.push(`\`${l.model}\`: ${f(l.elapsed_s, 1)} s from click to Send enabled again; outcome ${l.run?.outcome}, e2e ${f(l.run?.e2e_ms, 0)} ms, output_tps ${f(l.run?.output_tps, 0)}.`, '');
    out.push(`- Long tasks: ${l.longtasks.count}, longest ${f(l.longtasks.longest_ms, 1)} ms, total ${f(l.longtasks.total_ms, 0)} ms. Target no task over 50 ms: ${verdict(l.target.no_task_over_50ms, `${f(l.target.miss_ms, 1)} ms`)}.`);
    out.push(`- Long tasks by quarter of the stream (in order): ${l.longtasks_by_quarter.map((q) => `Q${q.quarter} ${q.count} tasks, mean ${f(q.mean_ms, 0)} ms, longest ${f(q.longest_ms, 0)} ms`).join('; ')}.`);
    out.push(`- Frames: ${l.frames.count}, median gap ${f(l.frames.median_gap_ms, 2)} ms, gaps over 2 frames: ${l.frames.gaps_over_2_frames}, longest gap ${f(l.frames.longest_gap_ms, 1)} ms.`);
    out.push('', '| when | t (s) | JS heap used | wasm memory | DOM nodes | answer chars |', '|---|---|---|---|---|---|');
    const [before, after] = l.memory.samples;
    out.push(`| ${before.label} | | ${mb(before.js_heap_used)} | ${mb(before.wasm_memory)} | ${before.nodes} | ${before.answer_chars} |`);
    for (const d of l.memory.during) out.push(`| during | ${d.t_s} | ${mb(d.js_heap_used)} | ${mb(d.wasm_memory)} | ${d.nodes} | ${d.answer_chars} |`);
    out.push(`| ${after.label} | | ${mb(after.js_heap_used)} | ${mb(after.wasm_memory)} | ${after.nodes} | ${after.answer_chars} |`);
    out.push('');
  } else if (s.long) out.push('## 5. Long stream', '', '```', s.long.error, '```', '');

  if (s.scale && !s.scale.error) {
    const c = s.scale;
    out.push('## 6. Scale: 1,000 runs in one session', '');
    out.push(`20 real runs of \`${c.model}\` were made, then the stored history (the app's localStorage slot, export schema) was copied to ${c.seeded.runs} runs (${f(c.seeded.bytes / 1024, 0)} KB of JSON) and the page reloaded. Peer in the same run: the same page holding 20 runs.`, '');
    out.push(`- Reload with ${c.seeded.runs} stored runs: all ${c.load.runs} in the session and ${c.load.rows} rows in the table (its window of the newest) ${f(c.load.wall_ms, 0)} ms after the reload began (interactive at ${f(c.load.interactive_ms, 0)} ms of the page clock); longest task ${f(c.load.longest_task_ms, 1)} ms.`, '');
    out.push('| session before | runs | seconds | ms per run | long tasks | longest task |', '|---|---|---|---|---|---|');
    for (const b of c.batches) out.push(`| ${b.rows_before} runs | ${b.runs} | ${f(b.seconds, 1)} | ${f(b.ms_per_run, 1)} | ${b.longtasks} | ${f(b.longest_task_ms, 1)} ms |`);
    out.push('', `Per-run wall time with ${c.seeded.runs} runs kept, against 20: **${f(c.per_run_ratio, 2)}×**.`, '');
    out.push('Re-render cost, action → second animation frame (ms):', '', '| runs | More columns on | off | language → 中文 | → English | select a row |', '|---|---|---|---|---|---|');
    for (const p of c.probes) out.push(`| ${p.runs} | ${f(p.more_columns_on_ms, 1)} | ${f(p.more_columns_off_ms, 1)} | ${f(p.language_zh_ms, 1)} | ${f(p.language_en_ms, 1)} | ${f(p.select_row_ms, 1)} |`);
    out.push('', `At the end: ${c.rows_shown} table rows, ${c.dom_elements} DOM elements, ${f(c.stored_bytes / 1024, 0)} KB stored; charts: ${c.charts.map((chart) => `${chart.id} ${chart.nodes} elements`).join(', ')}.`, '');
  } else if (s.scale) out.push('## 6. Scale', '', '```', s.scale.error, '```', '');

  return out.join('\n') + '\n';
}
