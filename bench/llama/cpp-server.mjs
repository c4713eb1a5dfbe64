// Section 7, second server: llama.cpp's own C++ server (llama-server), as xllamacpp's
// prebuilt CPU wheel (PyPI; bench/llama/install-server.sh), serving the same random-weight
// GGUF on 127.0.0.1. Unlike llama-cpp-python's Python server it reports its own time on the
// final streamed chunk of /v1/chat/completions: `timings` {cache_n, prompt_n, prompt_ms,
// predicted_n, predicted_ms, ...} (on the usage chunk when stream_options.include_usage asks
// for usage, else on the finish_reason chunk).
//
// Per round: the widget's prompt-length experiment (the lab's experiments panel, cross-origin
// as with any provider, one run per size); then, as ground truth, each of its measured
// requests sent again by the bench with a plain node fetch (same body, `cache_prompt: false`
// so the server prefills the whole prompt as the widget's nonce-led run did) and that
// stream's final `timings` read; the server's log gives each widget run's own prompt eval too.
// The widget's run records (its localStorage slot, the JSON export's schema) give TTFA and,
// once the widget has it, the per-run `breakdown` (parts prompt/server/...) and the server's
// account it read. Anything the widget does not give yet is null.
import { spawn } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ROOT, readRows, run, runSeries, sleep } from '../lib.mjs';
import { captureRequests, column, freePort, isMeasured, median, numberIn, openExperiments, runExperiment } from './shared.mjs';

const PYTHON = process.env.BENCH_PYTHON || path.join(ROOT, 'bench', '.venv', 'bin', 'python');
/** The app's storage slot of runs (crates/web/src/persist.rs RUNS_SLOT; the export schema). */
const RUNS_SLOT = 'ttft-meter.runs.v1';
const log = (...args) => console.error('[bench] llama (C++ server):', ...args);
const round = (value, digits = 3) => (value === null || value === undefined || !Number.isFinite(value) ? null : Number(value.toFixed(digits)));

// ---------------------------------------------------------------------------------------
// The server.

/**
 * Starts bench/llama/cpp_server.py (xllamacpp.Server: llama-server's HTTP server in-process)
 * on a free loopback port and waits until /health answers 200. Its log (stderr) is kept in
 * memory: `mark()` and `since(mark)` as in section.mjs.
 */
export async function startCppServer(modelFile, { alias, nCtx, threads }) {
  const port = await freePort();
  const script = path.join(ROOT, 'bench', 'llama', 'cpp_server.py');
  const args = [modelFile, '--alias', alias, '--host', '127.0.0.1', '--port', String(port), '--n-ctx', String(nCtx), '--threads', String(threads), '--parallel', '1'];
  const started = Date.now();
  // stdin stays open: the script exits when it closes (this process gone) or on SIGTERM.
  const child = spawn(PYTHON, [script, ...args], { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, PYTHONUNBUFFERED: '1' } });
  let text = '';
  let stdout = '';
  child.stdout.on('data', (data) => (stdout += data));
  child.stderr.on('data', (data) => (text += data));
  const stopOnExit = () => child.kill('SIGKILL');
  process.once('exit', stopOnExit);
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`cpp_server.py exited with ${child.exitCode}:\n${stdout}\n${text.slice(-4000)}`);
    try {
      const response = await fetch(`${url}/health`);
      if (response.ok) break;
    } catch {}
    if (Date.now() > deadline) {
      child.kill('SIGTERM');
      throw new Error(`cpp_server.py did not answer /health within 120 s:\n${text.slice(-4000)}`);
    }
    await sleep(200);
  }
  let hello = null;
  try {
    hello = JSON.parse(stdout.split('\n')[0]);
  } catch {}
  return {
    url,
    hello,
    args: args.map((arg) => (arg === modelFile ? path.relative(ROOT, modelFile) : arg)),
    start_seconds: round((Date.now() - started) / 1000, 1),
    mark: () => text.length,
    since: (mark) => text.slice(mark),
    all: () => text,
    async stop() {
      process.removeListener('exit', stopOnExit);
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
        await exited;
        clearTimeout(timer);
      }
    },
  };
}

/**
 * llama-server's per-task lines in its log (`slot print_timing: id 0 | task 12 | prompt eval
 * time = 2.84 ms / 17 tokens (...)`), in order: what each completed request evaluated.
 */
export function parseCppLog(text) {
  const tasks = [];
  const byTask = new Map();
  for (const line of text.split('\n')) {
    const match = line.match(/print_timing: id\s+(\d+) \| task (\d+) \|\s+(prompt eval|eval) time =\s+([\d.]+) ms \/\s+(\d+) tokens/);
    if (!match) continue;
    const [, slot, task, kind, ms, tokens] = match;
    let entry = byTask.get(task);
    if (!entry) {
      entry = { slot: Number(slot), task: Number(task), prompt_ms: null, prompt_tokens: null, eval_ms: null, eval_tokens: null };
      byTask.set(task, entry);
      tasks.push(entry);
    }
    if (kind === 'prompt eval') {
      entry.prompt_ms = Number(ms);
      entry.prompt_tokens = Number(tokens);
    } else {
      entry.eval_ms = Number(ms);
      entry.eval_tokens = Number(tokens);
    }
  }
  return tasks;
}

// ---------------------------------------------------------------------------------------
// A plain client: one streamed request, every event with its arrival time.

/** Splits SSE text into events' data (joined data lines), with a trailing partial kept. */
function takeEvents(buffer) {
  const events = [];
  const normalized = buffer.replace(/\r\n?/g, '\n');
  let rest = normalized;
  let index;
  while ((index = rest.indexOf('\n\n')) >= 0) {
    const block = rest.slice(0, index);
    rest = rest.slice(index + 2);
    const data = block.split('\n').filter((line) => line.startsWith('data:')).map((line) => line.slice(5).replace(/^ /, '')).join('\n');
    if (data) events.push(data);
  }
  return { events, rest };
}

/**
 * POSTs `body` to /v1/chat/completions and reads the whole stream: status, headers, the raw
 * text, every event's data with its arrival time, the first non-empty `delta.content` time
 * and the last `timings` and `usage` seen.
 */
export async function streamChat(serverUrl, body, headers = {}) {
  const start = performance.now();
  const response = await fetch(`${serverUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const headersMs = performance.now() - start;
  const decoder = new TextDecoder();
  let raw = '';
  let buffer = '';
  const events = [];
  let firstContentMs = null;
  let timings = null;
  let usage = null;
  for await (const chunk of response.body) {
    const now = performance.now() - start;
    const text = decoder.decode(chunk, { stream: true });
    raw += text;
    buffer += text;
    const taken = takeEvents(buffer);
    buffer = taken.rest;
    for (const data of taken.events) {
      let json = null;
      try {
        json = JSON.parse(data);
      } catch {}
      events.push({ ms: now, data, json });
      if (firstContentMs === null && json?.choices?.some((choice) => typeof choice?.delta?.content === 'string' && choice.delta.content.length)) firstContentMs = now;
      if (json?.timings) timings = json.timings;
      if (json?.usage) usage = json.usage;
    }
  }
  return {
    status: response.status,
    headers: Object.fromEntries(response.headers),
    headers_ms: headersMs,
    first_content_ms: firstContentMs,
    end_ms: performance.now() - start,
    raw,
    events,
    timings,
    usage,
  };
}

/**
 * The ground truth for a widget request: the same body sent again from node with
 * `cache_prompt: false` (the server prefills the whole prompt, as for the widget's run whose
 * nonce at position 0 leaves nothing but the template's first tokens to reuse; without it the
 * slot's cache would hold the whole prompt) and `stream_options.include_usage`.
 */
async function replay(serverUrl, body) {
  const answer = await streamChat(serverUrl, { ...body, stream: true, stream_options: { include_usage: true }, cache_prompt: false });
  const t = answer.timings;
  return {
    status: answer.status,
    first_content_ms: round(answer.first_content_ms, 2),
    prompt_ms: typeof t?.prompt_ms === 'number' ? t.prompt_ms : null,
    prompt_n: t?.prompt_n ?? null,
    cache_n: t?.cache_n ?? null,
    predicted_ms: t?.predicted_ms ?? null,
    predicted_n: t?.predicted_n ?? null,
    usage_prompt_tokens: answer.usage?.prompt_tokens ?? null,
  };
}

// ---------------------------------------------------------------------------------------
// What the server does, probed directly.

const TIMING_HEADER = /timing|time|latency|duration|processing|elapsed|x-request|x-queue|x-inference/i;

export async function probeCppServer(server, pageOrigin, alias) {
  const facts = {};
  const models = await fetch(`${server.url}/v1/models`);
  facts.models = { status: models.status, body: await models.json().catch(() => null) };
  const props = await fetch(`${server.url}/props`);
  const propsBody = await props.json().catch(() => null);
  facts.props = {
    status: props.status,
    n_ctx_paths: {
      'default_generation_settings.n_ctx': propsBody?.default_generation_settings?.n_ctx ?? null,
      n_ctx: propsBody?.n_ctx ?? null,
      total_slots: propsBody?.total_slots ?? null,
    },
    keys: propsBody ? Object.keys(propsBody) : null,
    build_info: propsBody?.build_info ?? null,
    model_alias: propsBody?.model_alias ?? null,
  };
  const modelMeta = facts.models.body?.data?.[0]?.meta ?? null;
  facts.models_meta = modelMeta ? { n_ctx: modelMeta.n_ctx ?? null, n_ctx_train: modelMeta.n_ctx_train ?? null } : null;
  const preflight = await fetch(`${server.url}/v1/chat/completions`, {
    method: 'OPTIONS',
    headers: { origin: pageOrigin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
  });
  facts.cors_preflight = { status: preflight.status, headers: Object.fromEntries(preflight.headers) };
  const simple = await fetch(`${server.url}/v1/models`, { headers: { origin: pageOrigin } });
  facts.cors_response = Object.fromEntries([...simple.headers].filter(([name]) => name.startsWith('access-control') || name === 'timing-allow-origin'));
  // A small streamed request as the widget sends it (with usage), and one without usage.
  const body = { model: alias, stream: true, stream_options: { include_usage: true }, max_tokens: 8, messages: [{ role: 'user', content: 'Why is the sky blue? Answer in two sentences.' }] };
  const withUsage = await streamChat(server.url, body, { origin: pageOrigin });
  const noUsage = await streamChat(server.url, { ...body, stream_options: undefined });
  const where = (answer) => {
    const index = answer.events.findIndex((event) => event.json?.timings);
    if (index < 0) return 'none';
    const event = answer.events[index].json;
    const fromEnd = answer.events.length - 1 - index;
    const kind = event.choices?.length === 0 ? 'usage chunk (choices: [])' : event.choices?.[0]?.finish_reason ? `finish_reason chunk (${event.choices[0].finish_reason})` : 'a content chunk';
    return `${kind}, event ${index + 1} of ${answer.events.length} (${fromEnd} before the end)`;
  };
  const role = withUsage.events.find((event) => event.json?.choices?.[0]?.delta?.role);
  facts.stream = {
    status: withUsage.status,
    headers: withUsage.headers,
    timing_headers: Object.keys(withUsage.headers).filter((name) => TIMING_HEADER.test(name)),
    server_timing: withUsage.headers['server-timing'] ?? null,
    headers_ms: round(withUsage.headers_ms, 1),
    role_chunk_ms: round(role?.ms, 1),
    first_content_ms: round(withUsage.first_content_ms, 1),
    events: withUsage.events.length,
    timings_with_include_usage: where(withUsage),
    timings_without_include_usage: where(noUsage),
    last_events: withUsage.events.slice(-3).map((event) => event.data),
    timings_keys: withUsage.timings ? Object.keys(withUsage.timings) : null,
  };
  return facts;
}

// ---------------------------------------------------------------------------------------
// The widget's run records and their breakdown.

/** The runs the app keeps (its storage slot: the export document), or [] when unreadable. */
async function storedRuns(page) {
  return page.evaluate((slot) => {
    try {
      return JSON.parse(localStorage.getItem(slot) || 'null')?.runs ?? [];
    } catch {
      return [];
    }
  }, RUNS_SLOT);
}

const finite = (value) => (typeof value === 'number' && Number.isFinite(value) ? value : null);

/**
 * A run record's breakdown as the widget gives it (`breakdown.parts`: {part, ms, source};
 * `server_account`: {source|sources, prompt_ms, prompt_tokens, cached_tokens, ...}), read
 * defensively: every figure null where the record has none (builds before the breakdown).
 */
export function breakdownOf(record) {
  const breakdown = record?.breakdown ?? record?.metrics?.breakdown ?? null;
  const parts = Array.isArray(breakdown?.parts) ? breakdown.parts.filter((part) => part && typeof part.part === 'string') : [];
  const part = (name) => {
    const found = parts.filter((entry) => entry.part === name && finite(entry.ms) !== null);
    if (!found.length) return { ms: null, source: null };
    return { ms: found.reduce((sum, entry) => sum + entry.ms, 0), source: [...new Set(found.map((entry) => entry.source ?? '?'))].join('+') };
  };
  const account = breakdown?.server_account ?? record?.server_account ?? null;
  const sources = Array.isArray(account?.sources) ? account.sources : account?.source ? [account.source] : [];
  const prompt = part('prompt');
  const server = part('server');
  // ttft-core's `server` part is what the server (and gateway) spent before the first token
  // beyond what they reported: with llama.cpp's timings, prefill is `prompt` and `server` the
  // rest; with no account, `server` is all of it. Their sum is the widget's server side.
  const serverSide = prompt.ms === null && server.ms === null ? null : (prompt.ms ?? 0) + (server.ms ?? 0);
  const rejected = breakdown?.server_claim_rejected ?? null;
  return {
    present: breakdown !== null,
    parts: parts.map((entry) => ({ part: entry.part, ms: round(finite(entry.ms), 2), source: entry.source ?? null })),
    prompt_ms: round(prompt.ms, 2),
    prompt_source: prompt.source,
    server_ms: round(server.ms, 2),
    server_source: server.source,
    server_side_ms: round(serverSide, 2),
    ttfa_ms: round(finite(breakdown?.ttfa_ms), 2),
    server_claim_rejected: rejected ? { claimed_ms: finite(rejected.claimed_ms), waited_ms: finite(rejected.waited_ms) } : null,
    account: account
      ? { sources, prompt_ms: finite(account.prompt_ms), prompt_tokens: finite(account.prompt_tokens), cached_tokens: finite(account.cached_tokens) }
      : null,
  };
}

/** The size a run measured, from its experiment arm ("1000 tokens"). */
const armTokens = (record) => numberIn(String(record?.experiment?.arm ?? '').match(/[\d,]+/)?.[0]);

// ---------------------------------------------------------------------------------------
// The part.

export async function cppServer(browser, pageSim, model, { sizes, rounds, nCtx, threads, maxTokens, alias }) {
  const result = { sizes_tokens: sizes, rounds_planned: rounds, n_ctx: nCtx, threads, max_tokens: maxTokens };
  try {
    result.package = { xllamacpp: (await run(PYTHON, ['-c', 'import xllamacpp; print(xllamacpp.__version__)'])).trim() };
  } catch (error) {
    return { ...result, skipped: `xllamacpp is not installed in ${path.relative(ROOT, PYTHON)} (bench/llama/install-server.sh): ${String(error.message).split('\n').slice(-2).join(' ')}` };
  }
  log(`starting llama.cpp's server (xllamacpp ${result.package.xllamacpp})`);
  const server = await startCppServer(model.file, { alias, nCtx, threads });
  result.server = { url: server.url, args: server.args, start_seconds: server.start_seconds, hello: server.hello };
  try {
    const pageOrigin = new URL(pageSim.url).origin;
    log('probing the server (models, props, CORS, headers, where timings ride)');
    result.probe = await probeCppServer(server, pageOrigin, alias);

    const { page, context, errors, url: pageUrl } = await openExperiments(browser, pageSim.url);
    result.page = pageUrl.slice(pageSim.url.length) || '/';
    const captured = captureRequests(context, server.url);
    await page.getByTestId('max-tokens').fill(String(maxTokens));
    await runSeries(page, { baseUrl: `${server.url}/v1`, model: alias, runs: 1 }, 120_000);
    result.widget_warmup = (await readRows(page)).at(-1) ?? null;
    captured.take();
    captured.takeGets();

    result.rounds = [];
    for (let roundIndex = 0; roundIndex < rounds; roundIndex += 1) {
      log(`round ${roundIndex + 1}/${rounds}: widget prompt-length experiment, then each request again from node`);
      const known = new Set((await storedRuns(page)).map((record) => record.run_index));
      const mark = server.mark();
      const experiment = await runExperiment(page, 'prompt_length', { 'exp-sizes': sizes.join(', '), 'exp-repetitions': '1' }, 10 * 60_000);
      await sleep(300);
      const logged = parseCppLog(server.since(mark));
      const requests = captured.take();
      const gets = captured.takeGets();
      const chats = requests.filter((request) => request.url.endsWith('/chat/completions'));
      const measured = chats.filter(isMeasured);
      // One slot, requests one at a time: the log's tasks are the chat requests, in order.
      const logPaired = logged.length === chats.length;
      const logOf = (request) => (logPaired ? logged[chats.indexOf(request)] : null);
      const records = (await storedRuns(page)).filter((record) => !known.has(record.run_index) && record.experiment?.kind === 'prompt_length').sort((a, b) => a.run_index - b.run_index);
      const rows = await readRows(page);
      // The experiment's table (per planned size): p50 ms, the fallback when no record is read.
      const planned = column(experiment.headers, /^planned/i);
      const p50 = column(experiment.headers, /^p50\b/i);
      const tableMs = new Map(experiment.rows.map((row) => [numberIn(row[planned]), p50 >= 0 ? numberIn(row[p50]) : null]));

      const runs = [];
      for (const [index, request] of measured.entries()) {
        // The widget sends its measured runs one at a time, in the order it records them.
        const record = records.length === measured.length ? records[index] : null;
        const asked = armTokens(record);
        const row = record ? rows.find((candidate) => candidate.run === record.run_index) : null;
        const own = logOf(request);
        const truth = await replay(server.url, request.body);
        const breakdown = breakdownOf(record);
        const ttfa = finite(record?.metrics?.ttfa_ms) ?? finite(row?.ttfa_ms) ?? (asked !== null && measured.length === sizes.length ? tableMs.get(asked) ?? null : null);
        runs.push({
          asked_tokens: asked,
          run_index: record?.run_index ?? null,
          outcome: record?.outcome?.kind ?? row?.outcome ?? null,
          widget_ttfa_ms: round(ttfa, 2),
          widget_usage: record?.usage ? { prompt_tokens: record.usage.prompt_tokens ?? null, cached_prompt_tokens: record.usage.cached_prompt_tokens ?? null } : null,
          widget_breakdown: breakdown,
          run_log: own ? { task: own.task, prompt_ms: own.prompt_ms, prompt_tokens_evaluated: own.prompt_tokens } : null,
          truth,
        });
      }
      // Runs whose record carried no arm: sizes by their prompt, smallest first.
      if (runs.some((entry) => entry.asked_tokens === null) && runs.length === sizes.length) {
        const order = [...runs].sort((a, b) => (a.truth.usage_prompt_tokens ?? 0) - (b.truth.usage_prompt_tokens ?? 0));
        order.forEach((entry, index) => {
          if (entry.asked_tokens === null) entry.asked_tokens = sizes[index];
        });
      }
      result.rounds.push({
        runs,
        pairing: { measured_requests: measured.length, records: records.length, chat_requests: chats.length, log_tasks: logged.length, log_paired: logPaired },
        token_source: experiment.report?.tokenSource ?? null,
        notes: experiment.notes,
        verdicts: experiment.verdicts,
        input_error: experiment.input_error,
        progress: experiment.progress,
        window_gets: gets.map((entry) => `GET ${entry.url} → ${entry.status}`),
      });
    }
    result.page_errors = errors;
    await context.close();
  } finally {
    await mkdir(path.join(ROOT, 'bench', 'out'), { recursive: true });
    await writeFile(path.join(ROOT, 'bench', 'out', 'llama-cpp-server.log'), server.all());
    await server.stop();
  }
  result.analysis = analyseCpp(result);
  return result;
}

/** Per size: medians over rounds of each figure, and the ratios of the brief. */
export function analyseCpp(result) {
  if (!result.rounds?.length) return null;
  const all = result.rounds.flatMap((r) => r.runs);
  const ratio = (a, b) => (a !== null && b ? a / b : null);
  const levels = result.sizes_tokens.map((size) => {
    const runs = all.filter((entry) => entry.asked_tokens === size);
    const ok = runs.filter((entry) => !entry.outcome || entry.outcome === 'completed' || entry.outcome === 'ok');
    const pick = (fn) => median(ok.map(fn).filter((value) => value !== null && value !== undefined));
    return {
      asked_tokens: size,
      runs: runs.length,
      runs_ok: ok.length,
      prompt_tokens_p50: pick((entry) => entry.truth.usage_prompt_tokens),
      widget_ttfa_p50_ms: round(pick((entry) => entry.widget_ttfa_ms), 1),
      // Ground truth: timings.prompt_ms of the same request, sent again from node.
      timings_prompt_ms_p50: round(pick((entry) => entry.truth.prompt_ms), 2),
      timings_prompt_n_p50: pick((entry) => entry.truth.prompt_n),
      node_first_content_p50_ms: round(pick((entry) => entry.truth.first_content_ms), 1),
      // The widget run's own prompt eval (the server's log of that very request).
      run_prompt_ms_p50: round(pick((entry) => entry.run_log?.prompt_ms ?? null), 2),
      run_prompt_tokens_evaluated_p50: pick((entry) => entry.run_log?.prompt_tokens_evaluated ?? null),
      widget_breakdowns: ok.filter((entry) => entry.widget_breakdown.present).length,
      widget_prompt_part_p50_ms: round(pick((entry) => entry.widget_breakdown.prompt_ms), 2),
      widget_prompt_part_sources: [...new Set(ok.map((entry) => entry.widget_breakdown.prompt_source).filter(Boolean))],
      widget_server_part_p50_ms: round(pick((entry) => entry.widget_breakdown.server_ms), 2),
      widget_server_part_sources: [...new Set(ok.map((entry) => entry.widget_breakdown.server_source).filter(Boolean))],
      widget_account_prompt_ms_p50: round(pick((entry) => entry.widget_breakdown.account?.prompt_ms ?? null), 2),
      // Per run, then the median: the widget's server part ÷ timings.prompt_ms (node's).
      ratio_widget_server_part_over_timings_prompt_ms: round(pick((entry) => ratio(entry.widget_breakdown.server_ms, entry.truth.prompt_ms)), 3),
      ratio_widget_prompt_part_over_timings_prompt_ms: round(pick((entry) => ratio(entry.widget_breakdown.prompt_ms, entry.truth.prompt_ms)), 3),
      // prompt + server parts (the widget's whole server side) ÷ timings.prompt_ms.
      ratio_widget_server_side_over_timings_prompt_ms: round(pick((entry) => ratio(entry.widget_breakdown.server_side_ms, entry.truth.prompt_ms)), 3),
      widget_server_claims_rejected: ok.filter((entry) => entry.widget_breakdown.server_claim_rejected).length,
      ratio_widget_server_part_over_run_prompt_ms: round(pick((entry) => ratio(entry.widget_breakdown.server_ms, entry.run_log?.prompt_ms ?? null)), 3),
      // How far the replay's prefill is from the run's own (the ground truth's own noise).
      ratio_run_prompt_ms_over_timings_prompt_ms: round(pick((entry) => ratio(entry.run_log?.prompt_ms ?? null, entry.truth.prompt_ms)), 3),
    };
  });
  return { levels, breakdowns_seen: all.filter((entry) => entry.widget_breakdown.present).length, runs: all.length };
}
