// Renders bench/out/report.json as Markdown.
import { renderRelay } from './relay.mjs';

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
    out.push(`ttft-sim scripted \`prefill_ms\` = 100, 300, 1000 with an early role-only chunk (\`early_role=1\`), ${fid.runs} warm runs per client and level (after one warm-up request on the same connection)${fid.rounds ? `; the widget and the bare browser peers take turns in ${fid.rounds} rounds` : ''}. Error = measured − scripted, ms.`, '');
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
    out.push('', '| scripted | widget p95 abs error | ≤ 2 ms | best peer (p95 abs error) | no worse than best peer | best same-page peer (p95 abs error) | within 1 ms of it (issue 14 #4) | cold first run: widget / openai SDK |', '|---|---|---|---|---|---|---|---|');
    for (const level of fid.levels) {
      const t = level.target;
      out.push(`| ${level.scripted_ms} ms | ${f(t.p95_abs_error_ms, 3)} ms | ${verdict(t.le_2ms, `${f(t.miss_vs_2ms, 3)} ms`)} | ${t.best_peer} (${f(t.best_peer_p95_abs_error_ms, 3)} ms) | ${verdict(t.no_worse_than_best_peer, `${f(t.miss_vs_best_peer, 3)} ms`)} | ${t.best_same_page_peer ? `${t.best_same_page_peer} (${f(t.best_same_page_peer_p95_abs_error_ms, 3)} ms)` : '—'} | ${t.best_same_page_peer ? `${f(t.excess_over_best_same_page_peer_ms, 3)} ms ${verdict(t.within_1ms_of_best_same_page_peer, 'more than 1 ms')}` : '—'} | ${f(level.cold.widget_ttfa_error_ms)} / ${f(level.cold.openai_sdk_first_content_error_ms)} ms |`);
    }
    out.push('', `Ground truth read from the sim's headers in the same run: x-sim-first-answer-ms = ${fid.levels.map((l) => l.ground_truth_header_x_sim_first_answer_ms.join(',')).join(' / ')}; x-sim-queue-ms = ${fid.levels.map((l) => l.ground_truth_header_x_sim_queue_ms.join(',')).join(' / ')}. openai ${fid.levels[0].openai_version}.`, '');
  } else if (s.fidelity) out.push('## 1. Fidelity', '', '```', s.fidelity.error, '```', '');

  if (s.paint && !s.paint.error) {
    const p = s.paint;
    out.push('## 2. Paint delay: `answer_ui_delay_ms` (first answer painted − arrived)', '');
    out.push(`Peer, in the same page and run: the least a page can do (a plain Worker fetch, \`textContent\` of a fresh \`elementtiming\` span on the first content, Element Timing presentationTime − arrival)${p.rounds ? `; a fresh page per rate, where the widget and the peer take turns in ${p.rounds} rounds` : ''}.`, '');
    out.push('| stream | itl_ms | ui_delay p50 | p95 | max | peer p50 | peer p95 | p95 ÷ peer p95 | paint method | ttfa error p95 |', '|---|---|---|---|---|---|---|---|---|---|');
    for (const r of p.rates) out.push(`| ${r.tokens_per_s} tokens/s | ${r.itl_ms} | ${f(r.ui_delay_ms.p50)} | ${f(r.ui_delay_ms.p95)} | ${f(r.ui_delay_ms.max)} | ${f(r.peer_ui_delay_ms?.p50)} | ${f(r.peer_ui_delay_ms?.p95)} | ${r.peer_ui_delay_ms ? f(r.ui_delay_ms.p95 / r.peer_ui_delay_ms.p95) : '—'} | ${r.paint_methods.join(', ')} | ${f(r.ttfa_error_ms.p95)} |`);
    const i = p.injected_task;
    out.push(`| ${i.tokens_per_s} tokens/s + ${i.task_ms} ms main-thread task starting ${i.starts_ms_before_first_answer} ms before the first answer | 2 | ${f(i.ui_delay_ms.p50)} | ${f(i.ui_delay_ms.p95)} | ${f(i.ui_delay_ms.max)} | | | | | ${f(i.ttfa_error_ms.p95)} |`);
    out.push('', `Under the injected task, a bare \`fetch()\` in a plain Worker of the same page (stamps taken in the worker) has a first-content error of p50 ${f(i.bare_worker_fetch_first_content_error_ms.p50)} ms, p95 ${f(i.bare_worker_fetch_first_content_error_ms.p95)} ms (the widget's ttfa error above: p50 ${f(i.ttfa_error_ms.p50)}, p95 ${f(i.ttfa_error_ms.p95)}).`);
    out.push('', `The widget's own breakdown under the injected task (p50 / p95 ms): setup_ms ${f(i.setup_ms.p50)} / ${f(i.setup_ms.p95)}, queueing_ms ${f(i.queueing_ms.p50)} / ${f(i.queueing_ms.p95)}, waiting_ms ${f(i.waiting_ms.p50)} / ${f(i.waiting_ms.p95)}, first_chunk_ms ${f(i.first_chunk_ms.p50)} / ${f(i.first_chunk_ms.p95)}.`);
    out.push('', `Target p95 ≤ 16.7 ms at 500 tokens/s: ${f(p.target.p95_at_500_tps_ms)} ms, ${verdict(p.target.le_16_7ms, `${f(p.target.miss_ms)} ms`)}; the peer's p95 ${f(p.target.peer_p95_at_500_tps_ms)} ms (widget ÷ peer ${f(p.target.ratio_to_peer_p95)}).`, '');
  } else if (s.paint) out.push('## 2. Paint delay', '', '```', s.paint.error, '```', '');

  if (s.engines && !s.engines.error) {
    out.push('## 2b. Every engine: fidelity and paint beside the engine\'s own same-page peers', '');
    out.push('Each engine through e2e/driver (Chromium: playwright-core; Firefox ESR: puppeteer-core over WebDriver BiDi; WebKitGTK MiniBrowser: selenium-webdriver + WebKitWebDriver under Xvfb). Fidelity: scripted 300 ms first answer after an early role chunk, API on another origin, warm runs; peers: a bare `fetch()` in a Worker and on the main thread of the same page. Paint: 500 tokens/s; peer: a plain Worker fetch whose first content goes into a fresh element, timed by Element Timing presentationTime where the engine has it, else rAF + MessageChannel (the app\'s own fallback). Targets: ttfa error p95 within 1 ms of the best peer; ui_delay p95 ≤ 1.3 × the peer\'s.', '');
    out.push('| engine | widget ttfa error p50 / p95 | Worker fetch p50 / p95 | main-thread fetch p50 / p95 | p95 − best peer | widget setup_ms p50 / p95 | ui_delay p50 / p95 | peer p50 / p95 (method) | ui_delay p95 ÷ peer p95 |', '|---|---|---|---|---|---|---|---|---|');
    for (const [name, e] of Object.entries(s.engines.engines)) {
      if (e.error) {
        out.push(`| ${name} | failed: ${e.error.split('\n')[0]} | | | | | | | |`);
        continue;
      }
      const fi = e.fidelity;
      const pa = e.paint;
      out.push(`| ${name} ${e.version ?? ''} | ${f(fi.widget_ttfa_error_ms.p50)} / ${f(fi.widget_ttfa_error_ms.p95)} | ${f(fi.browser_fetch_worker.p50)} / ${f(fi.browser_fetch_worker.p95)} | ${f(fi.browser_fetch_main_thread.p50)} / ${f(fi.browser_fetch_main_thread.p95)} | ${f(fi.target.excess_ms)} ms ${verdict(fi.target.within_1ms_of_best_peer, 'more than 1 ms')} | ${f(fi.widget_setup_ms.p50)} / ${f(fi.widget_setup_ms.p95)} | ${f(pa.widget_ui_delay_ms.p50)} / ${f(pa.widget_ui_delay_ms.p95)} (${pa.paint_methods.join(', ')}) | ${f(pa.peer_ui_delay_ms.p50)} / ${f(pa.peer_ui_delay_ms.p95)} (${pa.peer_method}) | ${f(pa.target.ratio_p95)} ${verdict(pa.target.le_1_3x_peer, 'over 1.3')} |`);
    }
    const bounds = Object.entries(s.engines.engines).filter(([, e]) => e.fidelity?.widget_arrival_delay_bound_ms?.n);
    if (bounds.length) {
      out.push('', 'The widget\'s possible arrival delay in the same fidelity runs (`arrival_delay_bound_ms`: the main thread\'s longest unavailability from the request to the first answer token; flagged over 50 ms where arrivals wait for the main thread, i.e. WebKit):', '');
      out.push('| engine | p50 | p95 | max |', '|---|---|---|---|');
      for (const [name, e] of bounds) {
        const b = e.fidelity.widget_arrival_delay_bound_ms;
        out.push(`| ${name} | ${f(b.p50)} | ${f(b.p95)} | ${f(b.max)} |`);
      }
    }
    const chromium = s.engines.engines.chromium;
    if (chromium?.paint_fallback_vs_presentation_time) {
      const fb = chromium.paint_fallback_vs_presentation_time;
      out.push('', 'The paint fallback against Element Timing `presentationTime`, Chromium, same runs of the probe (fallback − presentationTime, ms):', '');
      out.push('| fallback | bias (p50 of the signed difference) | p95 absolute error | min | max |', '|---|---|---|---|---|');
      for (const [name, label] of [['raf_message_channel', 'rAF + MessageChannel (the app\'s)'], ['double_raf', 'double rAF'], ['render_time', 'Element Timing renderTime']]) {
        const x = fb[name];
        if (!x) continue;
        out.push(`| ${label} | ${f(x.bias_p50_ms)} | ${f(x.abs_error_p95_ms)} | ${f(x.signed.min)} | ${f(x.signed.max)} |`);
      }
      out.push('', `Best by p95 absolute error: ${fb.best_by_abs_error_p95}.`);
    }
    out.push('');
  } else if (s.engines) out.push('## 2b. Every engine', '', '```', s.engines.error, '```', '');

  if (s.size && !s.size.error) {
    const z = s.size;
    out.push('## 3. Size and start', '', '| kind | raw | gzip -9 | files |', '|---|---|---|---|');
    for (const [kind, entry] of Object.entries(z.by_kind)) out.push(`| ${kind} | ${kb(entry.raw)} | ${kb(entry.gzip)} | ${entry.files.join(', ')} |`);
    if (z.first_load) out.push(`| **first load** (fetched before the widget is interactive) | ${kb(z.first_load.raw)} | **${kb(z.first_load.gzip)}** | ${z.first_load.files.join(', ')} |`);
    out.push(`| **total** (every asset, the lab included) | ${kb(z.total.raw)} | **${kb(z.total.gzip)}** | |`);
    if (z.first_load) {
      out.push('', `Target first load ≤ 150 KB gzip, no lab file in it: ${verdict(z.target.met, z.first_load.lab_files_fetched.length ? `${kb(z.target.miss_bytes)}; lab files fetched: ${z.first_load.lab_files_fetched.join(', ')}` : kb(z.target.miss_bytes))}.`);
      out.push(`Target all assets ≤ 400 KB gzip: ${verdict(z.target.total_met, kb(z.target.total_miss_bytes))}.`, '');
    } else out.push('', `Target ≤ 150 KB gzip: ${verdict(z.target.met, kb(z.target.miss_bytes))}.`, '');
    out.push(`Navigation → interactive widget (Send present and enabled, wasm mounted), fresh context each, 10 loads: p50 ${f(z.interactive_ms.p50, 1)} ms, p95 ${f(z.interactive_ms.p95, 1)} ms (min ${f(z.interactive_ms.min, 1)}, max ${f(z.interactive_ms.max, 1)}); DOMContentLoaded p50 ${f(z.dom_content_loaded_ms.p50, 1)} ms.`, '');
  } else if (s.size) out.push('## 3. Size and start', '', '```', s.size.error, '```', '');

  if (s.start && !s.start.error) {
    const st = s.start;
    out.push('## 3b. Start on a network', '', `Navigation → interactive widget (Send present and enabled) under Chromium's \`Network.emulateNetworkConditions\`, cache disabled, a fresh context per load, ${st.loads_per_case} loads per case. ${st.networks.map((n) => `${n.name}: ${n.latency_ms} ms latency, ${n.down_mbps} Mbps down, ${n.up_mbps} up`).join('; ')}. \`br\`: precompressed files as a static host sends them; \`identity\`: the same files uncompressed (the request asks \`Accept-Encoding: identity\`), as ttft-sim served every file before precompression. The lab is the whole app in one wasm (what the single page was before the split).`, '');
    out.push('| network | page | encoding | bytes over the wire p50 | interactive p50 | p95 | min | max | target |', '|---|---|---|---|---|---|---|---|---|');
    for (const c of st.cases) {
      const target = c.met === null ? '' : `p95 ≤ ${(c.target_ms / 1000).toFixed(1)} s: ${mark(c.met)}`;
      out.push(`| ${c.network} | ${c.page} | ${c.encoding}${c.wasm_encodings.join(',') !== c.encoding ? ` (wasm sent as ${c.wasm_encodings.join(', ')})` : ''} | ${kb(c.wire_bytes_p50)} | ${f(c.interactive_ms.p50, 0)} ms | ${f(c.interactive_ms.p95, 0)} ms | ${f(c.interactive_ms.min, 0)} | ${f(c.interactive_ms.max, 0)} | ${target} |`);
    }
    out.push('');
  } else if (s.start) out.push('## 3b. Start on a network', '', '```', s.start.error, '```', '');

  if (s.network && !s.network.error) {
    const n = s.network;
    out.push('## 2c. Beyond loopback: TLS, HTTP/2 and a 50 ms round trip', '');
    out.push(`ttft-sim over TLS with HTTP/2, every byte delayed ${n.one_way_delay_ms} ms each way; scripted prefill ${n.prefill_ms} ms, first body bytes = first answer token. Warm: one kept connection (expected ${n.expected_ms.warm} ms: prefill + 1 round trip). Cold: a gateway closing each connection after one request (expected ${n.expected_ms.cold} ms: + 1 round trip for TLS 1.3). ${n.runs} runs per client; ms.`, '');
    out.push('| connection | client | p50 | p95 | min | max | p50 − expected | widget p50 ÷ client p50 |', '|---|---|---|---|---|---|---|---|');
    for (const [kind, entry] of Object.entries(n.clients)) {
      for (const [key, label] of [['widget_ttfa', 'TTFT Meter `ttfa_ms`'], ['browser_fetch_worker', 'bare `fetch()` in a Worker, same page'], ['curl_first_data', 'curl --http2, first body data (its trace)']]) {
        const c = entry[key];
        out.push(`| ${kind} | ${label} | ${f(c.p50)} | ${f(c.p95)} | ${f(c.min)} | ${f(c.max)} | ${f(c.p50 - entry.expected_ms)} | ${f(entry.widget_ttfa.p50 / c.p50, 3)} |`);
      }
    }
    out.push('', `The widget's runs: HTTP ${[...new Set(Object.values(n.clients).flatMap((e) => e.widget_http_protocol))].join(', ')}; connection ${Object.entries(n.clients).map(([kind, e]) => `${kind}: ${e.widget_connection.join('/')}`).join('; ')}.`, '');
  } else if (s.network) out.push('## 2c. Beyond loopback', '', '```', s.network.error, '```', '');

  if (s.relay && !s.relay.error) out.push(...renderRelay(s.relay));
  else if (s.relay) out.push('## 2d. Through ttft-relay', '', '```', s.relay.error, '```', '');

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

  if (s.flood && !s.flood.error) {
    const fl = s.flood;
    out.push('## 5b. Floods (a hostile provider)', '');
    out.push('Each flood through the widget, then, in the same page, through a peer: a plain streaming chat view as a careful app writes it (fetch on the main thread, JSON.parse per event, the text appended to a `<pre>` once per frame, 1 MiB shown). Long tasks: Chromium\'s Long Tasks API (over 50 ms); frame gap: a requestAnimationFrame loop; stall: the widget\'s own record (`main_thread_stall_ms`).', '');
    out.push('| flood | side | wall | long tasks | longest task | total in long tasks | longest frame gap | run\'s stall |', '|---|---|---|---|---|---|---|---|');
    for (const x of fl.floods) {
      out.push(`| ${x.name} | widget | ${f(x.widget.wall_ms, 0)} ms | ${x.widget.long_tasks} | ${f(x.widget.longest_task_ms, 1)} ms | ${f(x.widget.long_task_total_ms, 0)} ms | ${f(x.widget.longest_frame_gap_ms, 1)} ms | ${f(x.widget.main_thread_stall_ms, 1)} ms |`);
      out.push(`| | peer | ${f(x.peer.wall_ms, 0)} ms | ${x.peer.long_tasks} | ${f(x.peer.longest_task_ms, 1)} ms | ${f(x.peer.long_task_total_ms, 0)} ms | ${f(x.peer.longest_frame_gap_ms, 1)} ms | |`);
    }
    out.push('', `Target no task over 50 ms: ${verdict(fl.target.no_task_over_50ms, `${f(fl.target.miss_ms, 1)} ms`)}.`, '');
  } else if (s.flood) out.push('## 5b. Floods', '', '```', s.flood.error, '```', '');

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

  if (s.llama && !s.llama.error) {
    out.push(...renderLlama(s.llama));
    if (s.llama.cpp_server) out.push(...renderCppServer(s.llama.cpp_server));
  } else if (s.llama) out.push('## 7. A real server (llama-cpp-python)', '', '```', s.llama.error, '```', '');

  return out.join('\n') + '\n';
}

/** Section 7b: llama.cpp's C++ server (xllamacpp), its `timings` beside the widget's breakdown. */
function renderCppServer(c) {
  const out = ['### 7b. llama.cpp\'s C++ server (llama-server, via xllamacpp): `timings` beside the widget\'s breakdown', ''];
  if (c.error || c.skipped) {
    out.push(c.skipped ? `Not run: ${c.skipped}.` : 'Failed:', '');
    if (c.error) out.push('```', c.error, '```', '');
    return out;
  }
  out.push(`xllamacpp ${c.package?.xllamacpp ?? '?'} (PyPI, prebuilt CPU wheel: llama.cpp's tools/server in-process; \`bench/llama/cpp_server.py ${(c.server?.args ?? []).join(' ')}\`, up in ${f(c.server?.start_seconds, 1)} s); same model; the widget's experiments on ${c.page ?? '?'}.`, '');
  const p = c.probe;
  if (p) {
    out.push(`- Context window: \`/props\` \`default_generation_settings.n_ctx\` ${p.props?.n_ctx_paths?.['default_generation_settings.n_ctx'] ?? '—'} (top-level \`n_ctx\` ${p.props?.n_ctx_paths?.n_ctx ?? 'absent'}, ${p.props?.n_ctx_paths?.total_slots ?? '?'} slot(s)); \`/v1/models\` \`data[0].meta\` n_ctx ${p.models_meta?.n_ctx ?? '—'}, n_ctx_train ${p.models_meta?.n_ctx_train ?? '—'}.`);
    out.push(`- \`timings\` with \`stream_options.include_usage\`: on the ${p.stream.timings_with_include_usage}; without it: on the ${p.stream.timings_without_include_usage}. Keys: ${(p.stream.timings_keys ?? []).join(', ') || '—'}.`);
    out.push(`- Headers after ${f(p.stream.headers_ms, 1)} ms, role chunk at ${f(p.stream.role_chunk_ms, 1)} ms, first content at ${f(p.stream.first_content_ms, 1)} ms. Response headers: ${Object.keys(p.stream.headers ?? {}).join(', ')}; Server-Timing: ${p.stream.server_timing ?? 'none'}; other timing headers: ${p.stream.timing_headers.join(', ') || 'none'}.`);
    out.push(`- CORS preflight (authorization, content-type): ${p.cors_preflight.status} ${JSON.stringify(Object.fromEntries(Object.entries(p.cors_preflight.headers).filter(([name]) => name.startsWith('access-control'))))}; plain response: ${JSON.stringify(p.cors_response)}.`);
    out.push('');
  }
  const a = c.analysis;
  if (!a) return out;
  out.push(`${c.rounds.length} rounds (of ${c.rounds_planned}); per round the widget's prompt-length experiment (one run per size), then each of its measured requests sent again from node (same body, \`cache_prompt: false\`, include_usage) for \`timings.prompt_ms\`; "run's own" is the server log's prompt eval of the widget's request itself. Widget breakdowns read: ${a.breakdowns_seen} of ${a.runs} runs${a.breakdowns_seen ? '' : ' (this build records none: its columns are —)'}. Medians; ratios are per run, then the median.`, '');
  out.push('| asked | prompt tokens | widget TTFA | timings.prompt_ms (node) | run\'s own prompt eval | widget prompt part | widget server part | server part ÷ timings.prompt_ms | prompt part ÷ timings.prompt_ms | (prompt + server) ÷ timings.prompt_ms | node first content |', '|---|---|---|---|---|---|---|---|---|---|---|');
  for (const v of a.levels) {
    const src = (sources) => (sources.length ? ` (${sources.join(', ')})` : '');
    out.push(`| ${v.asked_tokens} | ${v.prompt_tokens_p50 ?? '—'} | ${f(v.widget_ttfa_p50_ms, 1)} ms | ${f(v.timings_prompt_ms_p50, 2)} ms (${v.timings_prompt_n_p50 ?? '—'} evaluated) | ${f(v.run_prompt_ms_p50, 2)} ms (${v.run_prompt_tokens_evaluated_p50 ?? '—'}) | ${f(v.widget_prompt_part_p50_ms, 2)}${src(v.widget_prompt_part_sources)} | ${f(v.widget_server_part_p50_ms, 2)}${src(v.widget_server_part_sources)} | ${f(v.ratio_widget_server_part_over_timings_prompt_ms, 3)} | ${f(v.ratio_widget_prompt_part_over_timings_prompt_ms, 3)} | ${f(v.ratio_widget_server_side_over_timings_prompt_ms, 3)}${v.widget_server_claims_rejected ? ` (${v.widget_server_claims_rejected} claim(s) rejected)` : ''} | ${f(v.node_first_content_p50_ms, 1)} ms |`);
  }
  out.push('');
  return out;
}

const mark = (met) => (met === null || met === undefined ? '—' : met ? '**met**' : '**missed**');

/** Section 7: the widget and the openai SDK against llama-cpp-python's server. */
function renderLlama(l) {
  const out = [];
  const a = l.analysis;
  const m = l.model;
  out.push('## 7. A real server: llama-cpp-python', '');
  if (l.python_skipped || l.python_error) {
    out.push(l.python_skipped ? `llama-cpp-python's part not run (${l.python_skipped}).` : 'llama-cpp-python\'s part failed:', '');
    if (l.python_error) out.push('```', l.python_error, '```', '');
    return out;
  }
  out.push(`llama-cpp-python ${l.server?.version ?? '?'} (\`python -m llama_cpp.server ${(l.server?.args ?? []).join(' ')}\`, up in ${f(l.server?.start_seconds, 1)} s)${l.install ? `; wheel ${l.install.wheel}, ${l.install.built_now ? `built in this run in ${l.install.build_seconds} s` : `from the cache (built in ${l.install.build_seconds ?? '?'} s)`}` : ''}; openai ${l.openai_version ?? '?'}.`, '');
  out.push(`Model: a random-weight llama GGUF written by bench/llama/make_model.py (nothing from a model hub): n_embd ${m.dims.n_embd}, ${m.dims.n_layer} layers, ${m.dims.n_head} heads (${m.dims.n_head_kv} KV), n_ff ${m.dims.n_ff}, vocabulary ${m.n_vocab} (SentencePiece-style, built from this repository's docs, byte fallback), ${m.dtype}, ${(m.parameters / 1e6).toFixed(1)} M parameters, ${(m.bytes / 2 ** 20).toFixed(1)} MB; n_ctx ${l.n_ctx}; ${l.threads} threads. Chat template: ChatML in the GGUF.`, '');
  out.push(`Counting: ${l.counting?.method}; template offset ${l.counting?.template_offset_tokens} tokens; check at another size: usage ${l.counting?.verify?.usage_prompt_tokens} vs counted ${l.counting?.verify?.counted} (${l.counting?.verify?.agree ? 'agree' : '**disagree**'}).`, '');
  if (a) {
    out.push(`${l.rounds?.length ?? 0} rounds (of ${l.rounds_planned}) in one sitting; each round: the widget's prompt-length experiment (one run per size, its own order) asked for ${l.sizes_tokens.join(' / ')} tokens, then the openai SDK (one client; first non-empty \`delta.content\`; a unique nonce at position 0) at the sizes the widget actually sent (server-counted; the asked size where the widget's prompt did not fit). max_tokens ${l.max_tokens} for both. Server prompt eval: \`llama_perf_context_print: prompt eval time\` lines of the server's log, matched to each request.`, '');
    const sources = [...new Set(l.rounds.map((r) => r.widget.counted_column))].join(', ');
    const tallies = l.rounds.map((r) => r.widget.tally?.calibration_requests).filter((v) => v !== undefined);
    out.push(`The widget's token axis: \`data-token-source\` ${[...new Set(l.rounds.map((r) => r.widget.token_source))].join(', ')}; its table's count column: "prompt tokens (${sources})"; counting requests per round (exp-tally, not measured runs): ${tallies.join(', ')}; its counting requests to the server: ${[...new Set(l.rounds.flatMap((r) => r.widget.counting_requests.map((c) => `POST ${c.url}${c.stream === false ? ` (not streamed, max_tokens ${c.max_tokens})` : ''}`)))].join('; ') || 'none'}.`, '');
    out.push('| asked | widget planned | widget\'s count (its source) | server\'s count of what it sent | SDK sent | widget TTFT p50 | SDK first content p50 | ratio | within 10% | server prompt eval p50 (tokens) | widget runs ok / failed |', '|---|---|---|---|---|---|---|---|---|---|---|');
    for (const v of a.levels) {
      out.push(`| ${v.asked_tokens} | ${v.widget_planned_tokens ?? '—'} | ${v.widget_counted_tokens ?? '—'} (${sources || '—'})${v.widget_usage_tokens !== null ? `; usage ${v.widget_usage_tokens}` : ''} | ${v.widget_server_tokens ?? '—'}${v.widget_over_context ? ` (past n_ctx ${l.n_ctx})` : ''} | ${v.sdk_server_tokens ?? '—'} | ${f(v.widget_ttft_p50_ms, 1)} ms | ${f(v.sdk_first_content_p50_ms, 1)} ms | ${f(v.ratio_widget_over_sdk, 3)} | ${mark(v.within_10_percent)} | ${f(v.server_prompt_eval_p50_ms, 1)} ms (${v.server_prompt_eval_tokens_p50 ?? '—'}) | ${v.widget_runs_ok} / ${v.widget_failures} |`);
    }
    out.push('', 'The server\'s prefill time changes with the machine\'s load from one moment to the next (the two clients never run at once). Per request, TTFT − that request\'s own prompt eval (from the log) is what the client, the network and the server\'s non-prefill work add; at equal prefill (the pooled median prompt eval of the size plus each client\'s median addition):', '');
    out.push('| asked | prompt eval p50: widget\'s requests / SDK\'s | TTFT − own prompt eval p50: widget / SDK | ratio at equal prefill | within 10% |', '|---|---|---|---|---|');
    for (const v of a.levels) out.push(`| ${v.asked_tokens} | ${f(v.widget_prompt_eval_p50_ms, 1)} / ${f(v.sdk_prompt_eval_p50_ms, 1)} ms | ${f(v.widget_overhead_p50_ms, 1)} / ${f(v.sdk_overhead_p50_ms, 1)} ms | ${f(v.ratio_at_equal_prefill, 3)} | ${mark(v.within_10_percent_at_equal_prefill)} |`);
    const fit = (x) => (x ? `${f(x.slope, 4)} ms/token (intercept ${f(x.intercept, 1)} ms, R² ${f(x.r_squared, 3)}, n ${x.n})` : '—');
    out.push('', 'Fitted cost per prompt token (least squares, y = intercept + slope·tokens):', '');
    out.push(`- widget, x = the widget's own token axis (usage where the stream carries it, else its server count of the size), its TTFTs pooled over all rounds: ${fit(a.fits.widget_as_reported)}; the widget's own report per round (data-slope-ms-per-token): ${a.widget_reported_slope_per_round.map((v) => f(v, 4)).join(', ') || '—'}`);
    out.push(`- widget, x = server-counted tokens it really sent: ${fit(a.fits.widget_server_counted)}`);
    out.push(`- openai SDK, x = server-counted tokens: ${fit(a.fits.sdk_server_counted)}`);
    out.push(`- server's own prompt eval (log), x = tokens evaluated: ${fit(a.fits.server_prompt_eval)}`);
    const t = a.targets;
    out.push('', '| target | result | |', '|---|---|---|');
    out.push(`| widget TTFT ÷ SDK first content within 10% at every size | worst ratio ${f(t.ratio_within_10_percent.worst, 3)} over ${t.ratio_within_10_percent.sizes_compared} of ${a.levels.length} sizes | ${mark(t.ratio_within_10_percent.met)} |`);
    out.push(`| the same at equal server prefill | worst ratio ${f(t.ratio_at_equal_prefill_within_10_percent.worst, 3)} over ${t.ratio_at_equal_prefill_within_10_percent.sizes_compared} of ${a.levels.length} sizes | ${mark(t.ratio_at_equal_prefill_within_10_percent.met)} |`);
    out.push(`| widget slope within 10% of the server's prompt-eval slope | ${f(t.widget_slope_within_10_percent_of_server.widget_ms_per_token, 4)} vs ${f(t.widget_slope_within_10_percent_of_server.server_ms_per_token, 4)} ms/token (ratio ${f(t.widget_slope_within_10_percent_of_server.ratio, 3)}) | ${mark(t.widget_slope_within_10_percent_of_server.met)} |`);
    out.push(`| the median of the widget's own per-round slopes (data-slope-ms-per-token) within 10% of the server's | ${f(t.widget_reported_slope_median_within_10_percent_of_server.widget_ms_per_token, 4)} vs ${f(t.widget_reported_slope_median_within_10_percent_of_server.server_ms_per_token, 4)} ms/token (ratio ${f(t.widget_reported_slope_median_within_10_percent_of_server.ratio, 3)}) | ${mark(t.widget_reported_slope_median_within_10_percent_of_server.met)} |`);
    out.push(`| sizes the widget reports are server-counted | token source ${t.sizes_server_counted.token_sources.join(', ')}; the widget's count vs the server's count of the prompt sent: worst ${t.sizes_server_counted.worst_count_error_tokens ?? '—'} tokens apart | ${mark(t.sizes_server_counted.met)} |`);
    out.push(`| no size planned past the context window (prompt + max_tokens > n_ctx ${l.n_ctx}) | ${t.no_size_past_context.widget_requests_over_context} widget requests past it (the experiment's sizes and the ${t.no_size_past_context.edge_requests} edge request(s) below) | ${mark(t.no_size_past_context.met)} |`);
    out.push('');
    const windows = t.no_size_past_context.windows_read;
    out.push(`Context window the widget read: ${windows.length ? [...new Set(windows.map((w) => `${w.tokens} tokens from ${w.from}`))].join('; ') : '**none**'} (what it asked: ${t.no_size_past_context.window_gets.join(', ') || '—'}).`, '');
    for (const e of l.context_edges ?? []) {
      const clipNotes = (e.notes ?? []).filter((note) => /context window/i.test(note));
      out.push(`Edge of the context window: the widget asked for ${e.asked_tokens} tokens (n_ctx ${l.n_ctx}): ${e.input_error ? `refused: "${e.input_error}"` : `ended ${e.state}; planned ${e.rows.map((row) => row[0]).join(', ') || 'nothing'}; sent ${e.widget_requests.map((r) => `${r.server_tokens} server tokens${r.past_window ? ' (**past the context window**)' : ''}`).join(', ') || 'nothing'}; ${e.widget_failures} failed run(s); the server logged ${e.overflows_logged.length} overflow(s)`}${clipNotes.length ? `; its note: "${clipNotes.join(' ')}"` : ''}; counting requests: ${e.counting_requests.length}.`, '');
    }
    const inputErrors = l.rounds_detail_input_errors ?? [];
    if (inputErrors.length) out.push(`The widget refused the sizes: ${inputErrors.join('; ')}`, '');
  }
  const c = l.prefix_cache;
  if (c) {
    const r = c.widget.report ?? {};
    out.push(`### Prefix cache against the log (${c.prompt_tokens_asked} tokens asked, ${c.repetitions} runs per arm)`, '');
    out.push(`The widget reports cold p50 ${f(Number(r.coldP50Ms), 1)} ms, warm p50 ${f(Number(r.warmP50Ms), 1)} ms, saved ${f(Number(r.savedMs), 1)} ms; verdicts: ${c.widget.verdicts ?? '—'}. The server's log, request by request (a hit = under 10% of the prompt evaluated):`, '');
    out.push('| # | arm | after | server tokens | prefix reused | evaluated | prompt eval ms | hit |', '|---|---|---|---|---|---|---|---|');
    c.runs.forEach((run, index) => out.push(`| ${index + 1} | ${run.arm} | ${run.after ?? '—'} | ${run.server_tokens ?? '—'} | ${run.prefix_hit_tokens ?? '—'} | ${run.evaluated_tokens ?? '—'} | ${f(run.prompt_eval_ms, 1)} | ${run.hit === null ? '—' : run.hit ? 'yes' : 'no'} |`));
    out.push('', `Warm runs that hit: **${c.warm_hits} of ${c.warm_runs}** (${c.warm_right_after_same_prompt} ran right after a request with the same prompt). llama-cpp-python keeps one prompt's KV: only a warm run right after its own priming (or another warm run) can hit.${c.pairing?.paired ? '' : ` (Log pairing incomplete: ${c.pairing?.requests_that_ran} requests, ${c.pairing?.completions} logged completions.)`}`, '');
  }
  const p = l.probe;
  if (p) {
    out.push('### What the server does (probed directly)', '');
    out.push(`- Stream with \`stream_options.include_usage\`: usage in the stream **${p.stream.usage_in_stream ? 'yes' : 'no'}**; ${p.stream.events} events, ends with [DONE]: ${p.stream.ends_with_done}; headers after ${f(p.stream.headers_ms, 1)} ms, role chunk at ${f(p.stream.role_chunk_ms, 1)} ms, first content at ${f(p.stream.first_content_ms, 1)} ms (the role chunk comes with the first token, after prefill).`);
    out.push(`- CORS: preflight ${p.cors_preflight.status} ${JSON.stringify(p.cors_preflight.headers)}; plain response ${JSON.stringify(p.cors_response)}.`);
    out.push(`- Tokenizer and props routes: ${Object.entries(p).filter(([k]) => k.startsWith('route ') || k === 'GET /props').map(([k, v]) => `${k.replace('route ', 'POST ')} → ${v.status}`).join(', ')}.`);
    out.push(`- /v1/models: ${JSON.stringify(p.models.body).slice(0, 300)}`);
    out.push(`- Context overflow, streamed: ${p.context_overflow.streamed.status} ${p.context_overflow.streamed.content_type ?? ''} \`${p.context_overflow.streamed.body.replace(/\s+/g, ' ').slice(0, 300)}\`; not streamed: ${p.context_overflow.not_streamed.status} \`${p.context_overflow.not_streamed.body.replace(/\s+/g, ' ').slice(0, 300)}\`.`);
    out.push('');
  }
  return out;
}
