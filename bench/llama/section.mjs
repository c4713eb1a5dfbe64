// Section 7 of the benchmark: a real OpenAI-compatible server. llama-cpp-python's server
// (PyPI, built from source by bench/llama/install.sh) serves a small random-weight llama
// GGUF written here (bench/llama/make_model.py: seeded weights, a vocabulary built from this
// repository's docs, nothing from a model hub) on 127.0.0.1. In one sitting, round after
// round, the widget's prompt-length experiment (driven in Chromium, cross-origin as with any
// real provider) and the openai Python SDK (bench/peer_openai.py) run at the same
// server-counted prompt sizes; the server's own prompt-eval times, read from its log, are the
// third reference. Then the widget's prefix-cache experiment runs, and the log says how many
// prompt tokens each of its requests really evaluated.
//
// Then llama.cpp's own C++ server (llama-server, as xllamacpp's prebuilt wheel: cpp-server.mjs)
// serves the same model: the widget's prompt-length experiment again, each run's breakdown
// beside the server's `timings.prompt_ms` (LLAMA_SERVERS=python,cpp chooses the servers).
//
// Nothing here asserts a timing: the figures and their targets go to the report.
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ROOT, readRows, run, runSeries, sleep } from '../lib.mjs';
import { cppServer } from './cpp-server.mjs';
import { parseServerLog } from './log.mjs';
import { captureRequests, column, freePort, isMeasured, linearFit, median, numberIn, openExperiments, runExperiment } from './shared.mjs';

const PYTHON = process.env.BENCH_PYTHON || path.join(ROOT, 'bench', '.venv', 'bin', 'python');
const CACHE = path.join(ROOT, 'bench', '.cache', 'llama');
/** Server-counted prompt sizes (tokens) the widget is asked for and the SDK sends. */
const SIZES = (process.env.LLAMA_SIZES || '250,1000,2000,4000').split(',').map(Number).sort((a, b) => a - b);
/** Rounds: each is one widget experiment (one run per size) and one SDK pass. */
const ROUNDS = Number(process.env.LLAMA_ROUNDS || 5);
const N_CTX = Number(process.env.LLAMA_N_CTX || 8192);
// One thread: on a shared 2-core machine two OpenMP threads wait on each other at every
// barrier whenever one is descheduled, and prefill was 5 to 8 times slower and erratic.
const THREADS = Number(process.env.LLAMA_THREADS || 1);
/** Same output limit for both clients: the widget's prompt-length default. */
const MAX_TOKENS = 16;
/** Prompt of the prefix-cache experiment, tokens (fits the context as planned today too). */
const CACHE_PROMPT_TOKENS = Number(process.env.LLAMA_CACHE_TOKENS || 1000);
const CACHE_REPETITIONS = Number(process.env.LLAMA_CACHE_REPETITIONS || 3);
const MODEL_ALIAS = 'ttft-bench-llama';
/** Model files the vocabulary is learned from (this repository's own prose). */
const CORPUS = ['README.md', 'docs/DESIGN.md', 'docs/stream-formats.md'];

const log = (...args) => console.error('[bench] llama:', ...args);
const round = (value, digits = 3) => (value === null || value === undefined || !Number.isFinite(value) ? null : Number(value.toFixed(digits)));

// ---------------------------------------------------------------------------------------
// The model and the server.

/** The GGUF, made once per (generator, corpus, dimensions) and kept in bench/.cache/llama. */
export async function ensureModel() {
  await mkdir(CACHE, { recursive: true });
  const script = path.join(ROOT, 'bench', 'llama', 'make_model.py');
  const dims = (process.env.LLAMA_DIMS || '').split(/[\s,]+/).filter(Boolean);
  // A smaller vocabulary tokenizes like a poor tokenizer (more tokens per word): LLAMA_VOCAB=300
  // is nearly byte-level, as the vocabulary behind issue 12's 2.6x was.
  const vocab = process.env.LLAMA_VOCAB ? ['--vocab', String(Number(process.env.LLAMA_VOCAB))] : [];
  const hash = createHash('sha256');
  hash.update(await readFile(script));
  for (const file of CORPUS) hash.update(await readFile(path.join(ROOT, file)));
  hash.update(JSON.stringify([dims, vocab]));
  const key = hash.digest('hex').slice(0, 16);
  const file = path.join(CACHE, `model-${key}.gguf`);
  const summaryFile = `${file}.json`;
  if (!existsSync(file) || !existsSync(summaryFile)) {
    log(`writing the random-weight GGUF (${path.relative(ROOT, file)})`);
    const started = Date.now();
    const out = await run(PYTHON, [script, file, ...CORPUS.map((name) => path.join(ROOT, name)), ...vocab, ...(dims.length ? ['--dims', ...dims] : [])]);
    const summary = { ...JSON.parse(out), write_seconds: round((Date.now() - started) / 1000, 1) };
    await writeFile(summaryFile, JSON.stringify(summary, null, 2) + '\n');
  }
  const summary = JSON.parse(await readFile(summaryFile, 'utf8'));
  return { file, summary: { ...summary, path: path.relative(ROOT, file) } };
}

/**
 * Starts `python -m llama_cpp.server` on a free loopback port and waits until /v1/models
 * answers. Its stdout and stderr (the log) are kept in memory: `mark()` returns the current
 * length and `since(mark)` the text after it.
 */
export async function startServer(modelFile) {
  const port = await freePort();
  const args = [
    '-m', 'llama_cpp.server',
    '--model', modelFile,
    '--model_alias', MODEL_ALIAS,
    '--host', '127.0.0.1',
    '--port', String(port),
    '--n_ctx', String(N_CTX),
    '--n_threads', String(THREADS),
    '--n_threads_batch', String(THREADS),
    '--verbose', 'True',
  ];
  const started = Date.now();
  const child = spawn(PYTHON, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, PYTHONUNBUFFERED: '1' } });
  let text = '';
  child.stdout.on('data', (data) => (text += data));
  child.stderr.on('data', (data) => (text += data));
  const stopOnExit = () => child.kill('SIGKILL');
  process.once('exit', stopOnExit);
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 180_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`llama_cpp.server exited with ${child.exitCode}:\n${text.slice(-4000)}`);
    try {
      const response = await fetch(`${url}/v1/models`);
      if (response.ok) break;
    } catch {}
    if (Date.now() > deadline) {
      child.kill('SIGTERM');
      throw new Error(`llama_cpp.server did not answer /v1/models within 180 s:\n${text.slice(-4000)}`);
    }
    await sleep(250);
  }
  return {
    url,
    args: args.slice(2).map((arg) => (arg === modelFile ? path.relative(ROOT, modelFile) : arg)),
    start_seconds: round((Date.now() - started) / 1000, 1),
    mark: () => text.length,
    since: (mark) => text.slice(mark),
    all: () => text,
    async stop() {
      process.removeListener('exit', stopOnExit);
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        // Uvicorn waits for open requests; a wedged one never ends.
        const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
        await exited;
        clearTimeout(timer);
      }
    },
  };
}

/** The log lines printed for requests that ran to their end, after a short settle. */
async function logSince(server, mark) {
  await sleep(300);
  return parseServerLog(server.since(mark));
}

// ---------------------------------------------------------------------------------------
// Counting tokens as the server does.

/** The prompt the model's ChatML template renders for `messages` (make_model.py). */
export function renderChatML(messages) {
  return messages.map((m) => `<|im_start|>${m.role}\n${typeof m.content === 'string' ? m.content : JSON.stringify(m.content)}<|im_end|>\n`).join('') + '<|im_start|>assistant\n';
}

async function postJson(url, body) {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await response.text();
  let json = null;
  try {
    json = JSON.parse(text);
  } catch {}
  return { status: response.status, headers: Object.fromEntries(response.headers), text, json };
}

/**
 * The server's own count of a chat request's prompt: its tokenizer endpoint
 * (`/extras/tokenize/count`, llama-cpp-python's path; it adds BOS and parses special tokens)
 * over the rendered template, plus `templateOffset`, found once from a non-streamed
 * `max_tokens: 1` request's `usage.prompt_tokens` (and verified at a second size).
 */
export function makeCounter(server) {
  const cache = new Map();
  const counter = {
    templateOffset: 0,
    async countText(text) {
      if (!cache.has(text)) {
        const answer = await postJson(`${server.url}/extras/tokenize/count`, { model: MODEL_ALIAS, input: text });
        if (answer.status !== 200 || typeof answer.json?.count !== 'number') throw new Error(`/extras/tokenize/count answered ${answer.status}: ${answer.text.slice(0, 300)}`);
        cache.set(text, answer.json.count);
      }
      return cache.get(text);
    },
    async countMessages(messages) {
      return (await counter.countText(renderChatML(messages))) + counter.templateOffset;
    },
  };
  return counter;
}

export async function usagePromptTokens(server, content) {
  const answer = await postJson(`${server.url}/v1/chat/completions`, {
    model: MODEL_ALIAS, messages: [{ role: 'user', content }], max_tokens: 1, stream: false,
  });
  return answer.json?.usage?.prompt_tokens ?? null;
}

// ---------------------------------------------------------------------------------------
// Prompts for the SDK peer: a unique nonce at position 0, then prose, to an exact count.

const PROSE = `A person waits between pressing send and seeing the first word of an answer. That wait
holds the trip over the network, the time in a queue, and the prefill, in which the model reads
every token of the prompt before it can write one. Longer prompts take longer to read. A cache
can skip a prefix that was read before, but only when the prompt starts the same way. Under load
a request may wait for a free slot, and one long prefill can hold short requests back.`.split(/\s+/);

function nonce() {
  return randomBytes(8).toString('hex');
}

function proseOf(words) {
  const out = [];
  for (let i = 0; i < words; i += 1) out.push(PROSE[i % PROSE.length]);
  return out.join(' ');
}

/** A user prompt of `target` server tokens (within a token or two): nonce, blank line, prose. */
export async function sizedPrompt(counter, target) {
  const head = `${nonce()}\n\n`;
  const count = async (words) => counter.countMessages([{ role: 'user', content: head + proseOf(words) }]);
  let low = 0;
  let high = Math.max(8, target);
  while ((await count(high)) < target) high *= 2;
  while (high - low > 1) {
    const middle = (low + high) >> 1;
    if ((await count(middle)) <= target) low = middle;
    else high = middle;
  }
  // Words of several tokens can leave it a little short: pad with one-token words.
  let content = head + proseOf(low);
  let tokens = await counter.countMessages([{ role: 'user', content }]);
  for (let pad = 0; tokens < target && pad < 16; pad += 1) {
    const padded = `${content} a`;
    const count = await counter.countMessages([{ role: 'user', content: padded }]);
    if (count > target) break;
    content = padded;
    tokens = count;
  }
  return { content, tokens };
}

// ---------------------------------------------------------------------------------------
// What the server does, probed directly (for the report's "surprises").

export async function probeServer(server, pageOrigin) {
  const facts = {};
  const models = await fetch(`${server.url}/v1/models`);
  facts.models = { status: models.status, body: await models.json() };
  const preflight = await fetch(`${server.url}/v1/chat/completions`, {
    method: 'OPTIONS',
    headers: { origin: pageOrigin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' },
  });
  facts.cors_preflight = { status: preflight.status, headers: Object.fromEntries([...preflight.headers].filter(([name]) => name.startsWith('access-control'))) };
  const simple = await fetch(`${server.url}/v1/models`, { headers: { origin: pageOrigin } });
  facts.cors_response = Object.fromEntries([...simple.headers].filter(([name]) => name.startsWith('access-control')));
  for (const route of ['/tokenize', '/props', '/extras/tokenize', '/v1/tokenize']) {
    const answer = await postJson(`${server.url}${route}`, { model: MODEL_ALIAS, input: 'Hello world', content: 'Hello world' });
    facts[`route ${route}`] = { status: answer.status, body: answer.text.slice(0, 200) };
  }
  const props = await fetch(`${server.url}/props`);
  facts['GET /props'] = { status: props.status };
  // A stream that asks for usage: does any chunk carry it? When does the role chunk come?
  const start = performance.now();
  const response = await fetch(`${server.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: MODEL_ALIAS, stream: true, stream_options: { include_usage: true }, max_tokens: 8, messages: [{ role: 'user', content: `${nonce()}\n\n${proseOf(600)}` }] }),
  });
  const headersMs = performance.now() - start;
  const decoder = new TextDecoder();
  let buffer = '';
  const events = [];
  for await (const chunk of response.body) {
    const now = performance.now() - start;
    buffer += decoder.decode(chunk, { stream: true });
    let index;
    while ((index = buffer.indexOf('\n\n')) >= 0 || (index = buffer.indexOf('\r\n\r\n')) >= 0) {
      const raw = buffer.slice(0, index);
      buffer = buffer.slice(index + (buffer[index] === '\r' ? 4 : 2));
      const data = raw.split(/\r?\n/).filter((line) => line.startsWith('data:')).map((line) => line.slice(5).trim()).join('\n');
      if (data) events.push({ ms: now, data });
    }
  }
  const parsed = events.map((event) => {
    try {
      return { ms: event.ms, json: JSON.parse(event.data) };
    } catch {
      return { ms: event.ms, raw: event.data };
    }
  });
  const role = parsed.find((event) => event.json?.choices?.[0]?.delta?.role);
  const content = parsed.find((event) => event.json?.choices?.[0]?.delta?.content);
  facts.stream = {
    status: response.status,
    content_type: response.headers.get('content-type'),
    headers_ms: round(headersMs, 1),
    events: parsed.length,
    role_chunk_ms: round(role?.ms, 1),
    first_content_ms: round(content?.ms, 1),
    role_chunk_before_content_by_ms: role && content ? round(content.ms - role.ms, 1) : null,
    usage_in_stream: parsed.some((event) => event.json?.usage),
    ends_with_done: parsed.at(-1)?.raw === '[DONE]',
    first_event: parsed[0]?.json ?? parsed[0]?.raw ?? null,
  };
  // Context overflow, streamed and not: status and wording.
  const long = proseOf(Math.ceil(N_CTX * 1.3));
  const streamed = await postJson(`${server.url}/v1/chat/completions`, { model: MODEL_ALIAS, stream: true, max_tokens: 4, messages: [{ role: 'user', content: long }] });
  const plain = await postJson(`${server.url}/v1/chat/completions`, { model: MODEL_ALIAS, stream: false, max_tokens: 4, messages: [{ role: 'user', content: long }] });
  facts.context_overflow = {
    streamed: { status: streamed.status, content_type: streamed.headers['content-type'], body: streamed.text.slice(0, 600) },
    not_streamed: { status: plain.status, content_type: plain.headers['content-type'], body: plain.text.slice(0, 600) },
  };
  return facts;
}

// ---------------------------------------------------------------------------------------
// The page's requests and the server's log.

/**
 * Pairs the requests of a block with the completions its log holds. Only requests that ran
 * to their end are logged (the server refuses a prompt of n_ctx tokens or more with no
 * completion). The widget's counting requests (`counting`: sent together, so the server may
 * take them in any order) all come before its measured runs, which it sends one at a time:
 * the completions after the counting ones are the measured runs', and each measured request,
 * in order, takes the next one whose prompt (prefix reused + evaluated, as the log says) is
 * its server count within 2 tokens. The log has no prefix line for the first request after
 * the server started: that one is matched on its evaluated tokens. A request without a
 * count (the SDK's warm-up) takes the next completion.
 */
function pairWithLog(requests, completions, counting = () => false) {
  const chats = requests.filter((request) => request.url.endsWith('/chat/completions') && !(request.server_tokens >= N_CTX));
  const countingRan = chats.filter(counting).length;
  const ran = chats.filter((request) => !counting(request));
  let next = countingRan;
  let paired = 0;
  for (const request of ran) {
    for (let index = next; index < completions.length; index += 1) {
      const entry = completions[index];
      const tokens = entry.prompt_tokens ?? entry.prompt_eval_tokens;
      if (request.server_tokens === null || request.server_tokens === undefined || entry.full_hit || Math.abs(tokens - request.server_tokens) <= 2) {
        request.log = entry;
        next = index + 1;
        paired += 1;
        break;
      }
    }
  }
  return { paired: paired === ran.length && countingRan + ran.length === completions.length, counting_requests_that_ran: countingRan, requests_that_ran: ran.length, requests_paired: paired, completions: completions.length };
}

/** Context windows in what the widget fetched, read as ttft-core's counting.rs reads them. */
function windowsIn(gets) {
  const found = [];
  for (const entry of gets) {
    if (entry.status < 200 || entry.status >= 300 || !entry.body) continue;
    let json = null;
    try {
      json = JSON.parse(entry.body);
    } catch {
      continue;
    }
    if (entry.url.startsWith('/props')) {
      const tokens = json?.default_generation_settings?.n_ctx ?? json?.n_ctx;
      if (Number.isInteger(tokens)) found.push({ from: entry.url, tokens });
    } else if (Array.isArray(json?.data)) {
      for (const model of json.data) {
        const tokens = model?.max_model_len ?? model?.context_length ?? model?.meta?.n_ctx_train;
        if (Number.isInteger(tokens)) found.push({ from: `${entry.url} (${model.id})`, tokens });
      }
    }
  }
  return found;
}

/** A prompt past the window: no room for its output (prompt + max_tokens > n_ctx). */
const pastWindow = (tokens) => typeof tokens === 'number' && tokens + MAX_TOKENS > N_CTX;

// ---------------------------------------------------------------------------------------
// The section.

/** Which servers the section measures (LLAMA_SERVERS, comma separated): python, cpp. */
const SERVERS = (process.env.LLAMA_SERVERS || 'python,cpp').split(/[\s,]+/).filter(Boolean);

export async function llama(browser, pageSim) {
  const result = { sizes_tokens: SIZES, rounds_planned: ROUNDS, n_ctx: N_CTX, threads: THREADS, max_tokens: MAX_TOKENS, servers: SERVERS };
  const model = await ensureModel();
  result.model = model.summary;
  if (SERVERS.includes('python')) {
    try {
      await llamaCppPython(browser, pageSim, model, result);
    } catch (error) {
      // The C++ server's part still runs; the report shows this error in the Python part's place.
      if (!SERVERS.includes('cpp')) throw error;
      log(`llama-cpp-python part failed: ${error.stack}`);
      result.python_error = String(error.stack || error);
    }
  } else result.python_skipped = `LLAMA_SERVERS=${SERVERS.join(',')}`;
  if (SERVERS.includes('cpp')) {
    try {
      result.cpp_server = await cppServer(browser, pageSim, model, { sizes: SIZES, rounds: ROUNDS, nCtx: N_CTX, threads: THREADS, maxTokens: MAX_TOKENS, alias: MODEL_ALIAS });
    } catch (error) {
      log(`C++ server part failed: ${error.stack}`);
      result.cpp_server = { error: String(error.stack || error) };
    }
  }
  return result;
}

/** The llama-cpp-python part: fills `result` (server, probe, rounds, edges, prefix cache, analysis). */
async function llamaCppPython(browser, pageSim, model, result) {
  const install = path.join(CACHE, '..', 'wheels', 'last-install.json');
  if (existsSync(install)) result.install = JSON.parse(await readFile(install, 'utf8'));
  log('starting llama_cpp.server');
  const server = await startServer(model.file);
  result.server = { args: server.args, start_seconds: server.start_seconds };
  try {
    result.server.version = (await run(PYTHON, ['-c', 'import llama_cpp; print(llama_cpp.__version__)'])).trim();
    const pageOrigin = new URL(pageSim.url).origin;
    log('probing the server (CORS, routes, usage in streams, context overflow)');
    result.probe = await probeServer(server, pageOrigin);

    // Counting: the template's offset from one usage, verified at another size.
    const counter = makeCounter(server);
    const shortContent = `${nonce()}\n\n${proseOf(40)}`;
    const longContent = `${nonce()}\n\n${proseOf(700)}`;
    const usageShort = await usagePromptTokens(server, shortContent);
    counter.templateOffset = usageShort - (await counter.countText(renderChatML([{ role: 'user', content: shortContent }])));
    const usageLong = await usagePromptTokens(server, longContent);
    const countedLong = await counter.countMessages([{ role: 'user', content: longContent }]);
    result.counting = {
      method: 'POST /extras/tokenize/count over the ChatML-rendered prompt + offset from usage.prompt_tokens',
      template_offset_tokens: counter.templateOffset,
      verify: { usage_prompt_tokens: usageLong, counted: countedLong, agree: usageLong === countedLong },
    };

    // The widget, cross-origin to the server as with any provider.
    const { page, context, errors } = await openExperiments(browser, pageSim.url);
    const captured = captureRequests(context, server.url);
    // Warm-up run from the form: it pays the CORS preflight and opens the connection. A small
    // max_tokens: with the field empty ("server default") llama-cpp-python generates until the
    // context is full, and a run the widget then aborts (its timeout) wedges the server.
    await page.getByTestId('max-tokens').fill(String(MAX_TOKENS));
    await runSeries(page, { baseUrl: `${server.url}/v1`, model: MODEL_ALIAS, runs: 1 }, 120_000);
    const warmupRows = await readRows(page);
    result.widget_warmup = warmupRows.at(-1) ?? null;
    captured.take();

    const rounds = [];
    for (let roundIndex = 0; roundIndex < ROUNDS; roundIndex += 1) {
      log(`round ${roundIndex + 1}/${ROUNDS}: widget prompt-length experiment`);
      // (a) The widget: one run per size, in its own order.
      let mark = server.mark();
      const widget = await runExperiment(page, 'prompt_length', { 'exp-sizes': SIZES.join(', '), 'exp-repetitions': '1' }, 10 * 60_000);
      const widgetLog = await logSince(server, mark);
      const requests = captured.take();
      for (const request of requests) {
        const messages = request.body?.messages;
        request.server_tokens = Array.isArray(messages) ? await counter.countMessages(messages) : null;
      }
      const widgetPairing = pairWithLog(requests, widgetLog.completions, (request) => !isMeasured(request));
      const gets = captured.takeGets();
      // The widget's table: one row per planned size (one run each): planned tokens, the
      // server's count of that size's prompt ("prompt tokens (server usage)": where the count
      // came from is in the header), usage prompt_tokens from the stream, runs, failed, p50…
      const planned = column(widget.headers, /^planned/i);
      const countedColumn = column(widget.headers, /^prompt tokens \((?!usage\))/i);
      const usageColumn = column(widget.headers, /^prompt tokens \(usage\)/i);
      const p50 = column(widget.headers, /^p50\b/i);
      const failed = column(widget.headers, /^failed$/i);
      const countedSource = countedColumn >= 0 ? widget.headers[countedColumn].replace(/^prompt tokens \((.*)\)$/i, '$1') : null;
      const levels = widget.rows.map((row) => {
        const counted = countedColumn >= 0 ? numberIn(row[countedColumn]) : null;
        const usage = usageColumn >= 0 ? numberIn(row[usageColumn]) : null;
        return {
          planned_tokens: numberIn(row[planned]),
          widget_counted_tokens: counted,
          widget_usage_tokens: usage,
          // What the widget fits against (ttft-core prompt_tokens_of): usage, else its count.
          widget_reported_tokens: usage ?? counted,
          ttft_ms: p50 >= 0 ? numberIn(row[p50]) : null,
          failures: failed >= 0 ? numberIn(row[failed]) : null,
        };
      });
      // Measured requests sorted by server size pair with the levels sorted by planned size.
      const measured = requests.filter(isMeasured).sort((a, b) => (a.server_tokens ?? 0) - (b.server_tokens ?? 0));
      const sortedLevels = [...levels].sort((a, b) => a.planned_tokens - b.planned_tokens);
      const levelsPaired = measured.length === sortedLevels.length;
      if (levelsPaired) {
        sortedLevels.forEach((level, index) => {
          level.server_tokens = measured[index].server_tokens;
          level.log = measured[index].log ?? null;
          level.over_context = pastWindow(measured[index].server_tokens);
        });
      }
      const counting = requests.filter((request) => !isMeasured(request));

      // (b) The SDK at the sizes the widget actually sent (round 1 fixes them), or at the
      // asked size where the widget's prompt could not fit.
      if (!result.sdk_targets) {
        result.sdk_targets = SIZES.map((size, index) => {
          const level = sortedLevels[index];
          const sent = levelsPaired ? level.server_tokens : null;
          return sent && sent < N_CTX - MAX_TOKENS ? sent : size;
        });
      }
      log(`round ${roundIndex + 1}/${ROUNDS}: openai SDK at ${result.sdk_targets.join(', ')} tokens`);
      const plan = [];
      for (const [index, target] of result.sdk_targets.entries()) {
        const prompt = await sizedPrompt(counter, target);
        plan.push({ id: index, level: index, target, prompt: prompt.content, server_tokens: prompt.tokens, max_tokens: MAX_TOKENS });
      }
      plan.sort(() => Math.random() - 0.5);
      const planFile = path.join(CACHE, 'sdk-plan.json');
      await writeFile(planFile, JSON.stringify({ base_url: `${server.url}/v1`, model: MODEL_ALIAS, requests: plan }));
      mark = server.mark();
      const sdk = JSON.parse(await run(PYTHON, [path.join(ROOT, 'bench', 'peer_openai.py'), '--plan', planFile]));
      const sdkLog = await logSince(server, mark);
      // The log holds the warm-up ("Hello") and then the plan, in order.
      const sdkRequests = [{ url: '/v1/chat/completions', warmup: true }, ...plan.map((entry) => ({ url: '/v1/chat/completions', entry, server_tokens: entry.server_tokens }))];
      const sdkPairing = pairWithLog(sdkRequests, sdkLog.completions);
      const sdkRuns = plan.map((entry) => {
        const timing = sdk.results.find((item) => item.id === entry.id);
        const request = sdkRequests.find((item) => item.entry === entry);
        return {
          level: entry.level,
          server_tokens: entry.server_tokens,
          first_content_ms: timing?.first_content_ms ?? null,
          first_chunk_ms: timing?.first_chunk_ms ?? null,
          log: request?.log ?? null,
        };
      });
      result.openai_version = sdk.openai_version;
      rounds.push({
        widget: {
          levels: sortedLevels,
          report: widget.report,
          token_source: widget.report?.tokenSource ?? null,
          counted_column: countedSource,
          slope_ms_per_token: numberIn(widget.report?.slopeMsPerToken),
          tally: widget.tally,
          notes: widget.notes,
          verdicts: widget.verdicts,
          input_error: widget.input_error,
          progress: widget.progress,
          pairing: { ...widgetPairing, levels_paired: levelsPaired, measured_requests: measured.length },
          overflows_logged: widgetLog.overflows.length,
          window_gets: gets.map((entry) => ({ url: entry.url, status: entry.status })),
          windows_read: windowsIn(gets),
          counting_requests: counting.map((request) => ({ url: request.url, stream: request.body?.stream ?? null, max_tokens: request.body?.max_tokens ?? null, server_tokens: request.server_tokens, past_window: pastWindow(request.server_tokens) })),
        },
        sdk: { runs: sdkRuns, pairing: sdkPairing },
      });
    }
    result.rounds = rounds;
    result.rounds_detail_input_errors = [...new Set(rounds.map((r) => r.widget.input_error).filter(Boolean))];
    result.widget_first_round_text = { verdict: rounds[0]?.widget.verdicts ?? null };
    result.page_errors = errors;

    // (c) Sizes at the edge of the context window and past it: does the widget plan past it?
    // Just under the window (a plan made with the sim's rule lands past it), and past it (a
    // widget that knows the window clips or refuses it; one that does not sends it).
    result.context_edges = [];
    for (const edgeTokens of [N_CTX - 64, N_CTX + 2000]) {
      log(`edge of the context: the widget asked for ${edgeTokens} tokens (n_ctx ${N_CTX})`);
      const edgeMark = server.mark();
      const edge = await runExperiment(page, 'prompt_length', { 'exp-sizes': String(edgeTokens), 'exp-repetitions': '1' }, 5 * 60_000);
      const edgeLog = await logSince(server, edgeMark);
      const edgeRequests = captured.take();
      const edgeGets = captured.takeGets();
      for (const request of edgeRequests) {
        const messages = request.body?.messages;
        request.server_tokens = Array.isArray(messages) ? await counter.countMessages(messages) : null;
      }
      const edgeMeasured = edgeRequests.filter(isMeasured);
      const edgeFailed = column(edge.headers, /^failed$/i);
      result.context_edges.push({
        asked_tokens: edgeTokens,
        state: edge.progress?.state ?? null,
        input_error: edge.input_error,
        verdicts: edge.verdicts,
        notes: edge.notes,
        headers: edge.headers,
        rows: edge.rows,
        windows_read: windowsIn(edgeGets),
        widget_requests: edgeMeasured.map((request) => ({ server_tokens: request.server_tokens, past_window: pastWindow(request.server_tokens), refused_by_server: request.server_tokens >= N_CTX })),
        widget_failures: edge.rows.reduce((sum, row) => sum + (numberIn(row[edgeFailed]) ?? 0), 0),
        overflows_logged: edgeLog.overflows,
        counting_requests: edgeRequests.filter((request) => !isMeasured(request)).map((request) => ({ url: request.url, stream: request.body?.stream ?? null, max_tokens: request.body?.max_tokens ?? null, server_tokens: request.server_tokens })),
      });
    }

    // (d) The prefix-cache experiment, checked against the log.
    log(`prefix-cache experiment (${CACHE_PROMPT_TOKENS} tokens, ${CACHE_REPETITIONS} runs per arm)`);
    const mark = server.mark();
    const cache = await runExperiment(page, 'prefix_cache', { 'exp-prompt-tokens': String(CACHE_PROMPT_TOKENS), 'exp-repetitions': String(CACHE_REPETITIONS) }, 10 * 60_000);
    const cacheLog = await logSince(server, mark);
    const cacheRequests = captured.take();
    for (const request of cacheRequests) {
      const messages = request.body?.messages;
      request.server_tokens = Array.isArray(messages) ? await counter.countMessages(messages) : null;
    }
    const cachePairing = pairWithLog(cacheRequests, cacheLog.completions, (request) => !isMeasured(request));
    result.prefix_cache = analyseCache(cacheRequests, cache, cachePairing);
    await context.close();
  } finally {
    result.server_log_tail = server.all().split('\n').slice(-30).join('\n');
    // The whole log, for checking any figure by hand.
    await mkdir(path.join(ROOT, 'bench', 'out'), { recursive: true });
    await writeFile(path.join(ROOT, 'bench', 'out', 'llama-server.log'), server.all());
    await server.stop();
  }
  result.analysis = analyse(result);
}

/**
 * The prefix-cache runs: arm of each measured request from its prompt (a prompt seen before
 * is warm, its first occurrence the priming run; one that starts with a 16-hex-digit run
 * nonce is cold; one ending like the warm one but starting differently is "first token
 * changed"), and what the log says
 * it evaluated. A request "hit" when it evaluated under 10% of its prompt.
 */
function analyseCache(requests, experiment, pairing) {
  const measured = requests.filter(isMeasured);
  const text = (request) => request.body?.messages?.map((m) => m.content).join('\n') ?? '';
  const seen = new Map();
  for (const request of measured) seen.set(text(request), (seen.get(text(request)) ?? 0) + 1);
  const warmText = [...seen.entries()].find(([, count]) => count > 1)?.[0] ?? null;
  const tail = warmText ? warmText.slice(warmText.indexOf(' ') + 1) : null;
  const runs = [];
  let primed = false;
  let previous = null;
  for (const request of measured) {
    const body = text(request);
    let arm;
    if (body === warmText) {
      arm = primed ? 'warm' : 'warm (priming)';
      primed = true;
    } else if (/^[0-9a-f]{16}\s/.test(body)) arm = 'cold'; // the run nonce at position 0
    else if (tail && body.endsWith(tail)) arm = 'first_token_changed';
    else arm = 'cold';
    const evaluated = request.log ? request.log.remaining_tokens ?? request.log.prompt_eval_tokens : null;
    runs.push({
      arm,
      after: previous,
      server_tokens: request.server_tokens,
      prefix_hit_tokens: request.log?.prefix_hit_tokens ?? null,
      evaluated_tokens: evaluated,
      prompt_eval_ms: request.log?.prompt_eval_ms ?? null,
      hit: request.log && request.server_tokens ? evaluated < 0.1 * request.server_tokens : null,
    });
    previous = arm;
  }
  const warm = runs.filter((r) => r.arm === 'warm');
  return {
    prompt_tokens_asked: CACHE_PROMPT_TOKENS,
    repetitions: CACHE_REPETITIONS,
    widget: { report: experiment.report, verdicts: experiment.verdicts, verdict_text: experiment.verdict_text, input_error: experiment.input_error, progress: experiment.progress },
    pairing,
    runs,
    warm_runs: warm.length,
    warm_hits: warm.filter((r) => r.hit).length,
    warm_right_after_same_prompt: warm.filter((r) => r.after === 'warm' || r.after === 'warm (priming)').length,
    other_requests: requests.filter((request) => !isMeasured(request)).length,
  };
}

/** Whether the median of the widget's per-round slopes is within 10% of the server's. */
function medianSlope(slopes, serverSlope) {
  const value = median(slopes);
  return value !== null && serverSlope ? Math.abs(value / serverSlope - 1) <= 0.1 : false;
}

/** Per size: medians, ratio; fits; targets. */
export function analyse(result) {
  if (!result.rounds?.length) return null;
  const levels = SIZES.map((size, index) => {
    const widgetLevels = result.rounds.map((r) => r.widget.levels[index]).filter(Boolean);
    const sdkRuns = result.rounds.flatMap((r) => r.sdk.runs.filter((run) => run.level === index));
    const widgetOk = widgetLevels.filter((level) => level.ttft_ms !== null && !level.failures);
    const widgetMs = median(widgetOk.map((level) => level.ttft_ms));
    const sdkMs = median(sdkRuns.map((run) => run.first_content_ms));
    const evals = [...widgetOk.map((level) => level.log), ...sdkRuns.map((run) => run.log)].filter(Boolean);
    // The server's prefill varies with the machine's load from one moment to the next; the
    // part of TTFT that is not the request's own prompt eval is what each client adds.
    const overheadWidget = median(widgetOk.filter((level) => level.log).map((level) => level.ttft_ms - level.log.prompt_eval_ms));
    const overheadSdk = median(sdkRuns.filter((run) => run.log && run.first_content_ms !== null).map((run) => run.first_content_ms - run.log.prompt_eval_ms));
    const evalAll = median(evals.map((entry) => entry.prompt_eval_ms));
    const atEqualPrefill = overheadWidget !== null && overheadSdk !== null && evalAll !== null ? (evalAll + overheadWidget) / (evalAll + overheadSdk) : null;
    return {
      asked_tokens: size,
      widget_prompt_eval_p50_ms: round(median(widgetOk.filter((level) => level.log).map((level) => level.log.prompt_eval_ms)), 1),
      sdk_prompt_eval_p50_ms: round(median(sdkRuns.filter((run) => run.log).map((run) => run.log.prompt_eval_ms)), 1),
      widget_overhead_p50_ms: round(overheadWidget, 1),
      sdk_overhead_p50_ms: round(overheadSdk, 1),
      ratio_at_equal_prefill: round(atEqualPrefill, 3),
      within_10_percent_at_equal_prefill: atEqualPrefill === null ? null : Math.abs(atEqualPrefill - 1) <= 0.1,
      widget_planned_tokens: widgetLevels[0]?.planned_tokens ?? null,
      widget_reported_tokens: median(widgetLevels.map((level) => level.widget_reported_tokens)),
      widget_counted_tokens: median(widgetLevels.map((level) => level.widget_counted_tokens)),
      widget_usage_tokens: median(widgetLevels.map((level) => level.widget_usage_tokens)),
      // The widget's count of a size against the server's count of the prompt it then sent.
      widget_count_error_tokens_max: widgetLevels.reduce((worst, level) => (level.widget_counted_tokens === null || level.server_tokens === undefined ? worst : Math.max(worst ?? 0, Math.abs(level.widget_counted_tokens - level.server_tokens))), null),
      widget_server_tokens: median(widgetLevels.map((level) => level.server_tokens)),
      widget_over_context: widgetLevels.filter((level) => level.over_context).length,
      widget_runs_ok: widgetOk.length,
      widget_failures: widgetLevels.length - widgetOk.length,
      sdk_server_tokens: median(sdkRuns.map((run) => run.server_tokens)),
      widget_ttft_p50_ms: round(widgetMs, 1),
      sdk_first_content_p50_ms: round(sdkMs, 1),
      ratio_widget_over_sdk: widgetMs && sdkMs ? round(widgetMs / sdkMs, 3) : null,
      within_10_percent: widgetMs && sdkMs ? Math.abs(widgetMs / sdkMs - 1) <= 0.1 : null,
      server_prompt_eval_p50_ms: round(median(evals.map((entry) => entry.prompt_eval_ms)), 1),
      server_prompt_eval_tokens_p50: median(evals.map((entry) => entry.prompt_eval_tokens)),
    };
  });
  const widgetPoints = (x) =>
    result.rounds.flatMap((r) => r.widget.levels.filter((level) => level.ttft_ms !== null && !level.failures).map((level) => [x(level), level.ttft_ms]));
  const sdkPoints = result.rounds.flatMap((r) => r.sdk.runs.map((run) => [run.server_tokens, run.first_content_ms]));
  const logs = result.rounds.flatMap((r) => [
    ...r.widget.levels.filter((level) => !level.failures).map((level) => level.log),
    ...r.sdk.runs.map((run) => run.log),
  ]).filter(Boolean);
  const fits = {
    widget_as_reported: linearFit(widgetPoints((level) => level.widget_reported_tokens ?? level.planned_tokens)),
    widget_server_counted: linearFit(widgetPoints((level) => level.server_tokens)),
    sdk_server_counted: linearFit(sdkPoints),
    server_prompt_eval: linearFit(logs.map((entry) => [entry.prompt_eval_tokens, entry.prompt_eval_ms])),
  };
  const reportedSlopes = result.rounds.map((r) => numberIn(r.widget.report?.slopeMsPerToken)).filter((value) => value !== null);
  const serverSlope = fits.server_prompt_eval?.slope ?? null;
  const widgetSlope = fits.widget_as_reported?.slope ?? null;
  const serverSources = ['server_usage', 'server_tokenizer'];
  const countErrors = levels.map((level) => level.widget_count_error_tokens_max).filter((value) => value !== null);
  const sizesFromServer =
    result.rounds.every((r) => serverSources.includes(r.widget.token_source) && r.widget.levels.every((level) => level.widget_reported_tokens !== null)) &&
    // …and the widget's counts are what the server counted in the prompts it sent (2%).
    levels.every((level) => level.widget_count_error_tokens_max !== null && level.widget_count_error_tokens_max <= Math.max(4, 0.02 * level.asked_tokens));
  const edgeRequests = (result.context_edges ?? []).flatMap((edge) => edge.widget_requests);
  const overContext =
    levels.reduce((sum, level) => sum + level.widget_over_context, 0) + edgeRequests.filter((request) => request.past_window).length;
  // Windows in what the widget fetched (/props, /v1/models), and the ones its notes name (a
  // clip note says the window it planned within, however it learned it).
  const noted = (notes, where) =>
    (notes ?? []).flatMap((note) => [...note.matchAll(/context window is (\d+) tokens/g)].map((match) => ({ from: `the widget's note (${where})`, tokens: Number(match[1]) })));
  const windowsRead = [
    ...result.rounds.flatMap((r) => [...(r.widget.windows_read ?? []), ...noted(r.widget.notes, 'sizes')]),
    ...(result.context_edges ?? []).flatMap((edge) => [...(edge.windows_read ?? []), ...noted(edge.notes, `asked ${edge.asked_tokens}`)]),
  ];
  const windowGets = [...new Set(result.rounds.flatMap((r) => (r.widget.window_gets ?? []).map((get) => `GET ${get.url.replace(/\?.*$/, '')} → ${get.status}`)))];
  const ratios = levels.map((level) => level.ratio_widget_over_sdk).filter((value) => value !== null);
  return {
    levels,
    fits,
    widget_reported_slope_per_round: reportedSlopes,
    widget_reported_slope_median: median(reportedSlopes),
    targets: {
      ratio_at_equal_prefill_within_10_percent: { met: levels.every((level) => level.within_10_percent_at_equal_prefill === true), sizes_compared: levels.filter((level) => level.ratio_at_equal_prefill !== null).length, worst: levels.map((level) => level.ratio_at_equal_prefill).filter((value) => value !== null).reduce((worst, value) => (worst === null || Math.abs(value - 1) > Math.abs(worst - 1) ? value : worst), null) },
      ratio_within_10_percent: { met: ratios.length === levels.length && levels.every((level) => level.within_10_percent), sizes_compared: ratios.length, worst: ratios.length ? ratios.reduce((worst, value) => (Math.abs(value - 1) > Math.abs(worst - 1) ? value : worst)) : null },
      widget_slope_within_10_percent_of_server: { met: widgetSlope !== null && serverSlope ? Math.abs(widgetSlope / serverSlope - 1) <= 0.1 : false, widget_ms_per_token: round(widgetSlope, 4), server_ms_per_token: round(serverSlope, 4), ratio: widgetSlope !== null && serverSlope ? round(widgetSlope / serverSlope, 3) : null },
      widget_reported_slope_median_within_10_percent_of_server: { met: medianSlope(reportedSlopes, serverSlope), widget_ms_per_token: round(median(reportedSlopes), 4), server_ms_per_token: round(serverSlope, 4), ratio: median(reportedSlopes) !== null && serverSlope ? round(median(reportedSlopes) / serverSlope, 3) : null },
      sizes_server_counted: { met: sizesFromServer, token_sources: [...new Set(result.rounds.map((r) => r.widget.token_source))], counted_columns: [...new Set(result.rounds.map((r) => r.widget.counted_column))], worst_count_error_tokens: countErrors.length ? Math.max(...countErrors) : null },
      no_size_past_context: { met: overContext === 0, widget_requests_over_context: overContext, edge_requests: edgeRequests.length, windows_read: windowsRead, window_gets: windowGets },
    },
  };
}
