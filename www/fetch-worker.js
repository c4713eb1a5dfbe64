// TTFT Meter's fetch worker: performs the streaming fetch and stamps every event where the
// bytes arrive, with this worker's performance.now(), so main-thread work (rendering,
// charts, garbage collection) cannot delay the arrival times. Parsing stays in the page's
// wasm (ttft-core); this script only moves bytes and timestamps. docs/DESIGN.md §3.
//
// Protocol (page -> worker):
//   {type: 'start', id, url, method, headers: [[name, value], ...], body, targetAddressSpace?}
//                                                  targetAddressSpace ('loopback', 'local'):
//                                                  Local Network Access, set by the page only
//                                                  for a request from a public page into a
//                                                  closer address space
//   {type: 'abort', id}
//   {type: 'ack', id}                              a 'chunks' message of `id` was received
// Protocol (worker -> page), every `t` on this worker's clock (see `ready.timeOrigin`):
//   {type: 'ready', timeOrigin}
//   {type: 'started', id, t, crossOrigin, firstPreflight}   just before fetch()
//   {type: 'sent', id, t}                          fetch() called: the request is on its way
//   {type: 'headers', id, t, status, contentType, retryAfter, timingHeaders: [[name, value], ...]}
//   {type: 'chunks', id, reads: [[t, bytes], ...]} each read with its own arrival time; bytes:
//                                                  ArrayBuffer (transferred)
//
// Flow control: at most MAX_UNACKED 'chunks' messages of a request are on their way to the
// page; reads that arrive meanwhile wait here, each stamped when it arrived, and go in the
// next message. A flooding server (millions of tiny events) so never fills the page's task
// queue with messages: the page's other work (input, the heartbeat, paints) waits behind at
// most that many. Arrival times are unchanged: every read keeps the stamp it got here.
//   {type: 'end', id, t}                           body complete
//   {type: 'failed', id, t, name, message}         TypeError, AbortError, RedirectError, ...
//   {type: 'timing', id, entry}                    Resource Timing of the request
'use strict';

const controllers = new Map();

const MAX_UNACKED = 2;
// Per request: {unacked, pending: [[t, bytes], ...]}.
const flows = new Map();

function sendReads(id, flow) {
  const reads = flow.pending;
  flow.pending = [];
  flow.unacked += 1;
  postMessage({ type: 'chunks', id, reads }, reads.map((read) => read[1]));
}

function flush(id, flow) {
  if (flow.pending.length > 0) sendReads(id, flow);
}

// CORS: a cross-origin request with a JSON body or a key header is preceded by an OPTIONS
// preflight, which the browser caches per origin (ttft-sim: Access-Control-Max-Age 600 s).
// The first such request of the page to an origin pays it (and usually the new connection
// with it): the run that follows is cold even though its own POST reuses the connection.
const preflightedOrigins = new Set();
const SAFELISTED_HEADERS = new Set(['accept', 'accept-language', 'content-language']);

function needsPreflight(method, headers) {
  if (method !== 'GET' && method !== 'HEAD' && method !== 'POST') return true;
  return headers.some(([name, value]) => {
    const lower = name.toLowerCase();
    if (lower === 'content-type') {
      const type = String(value).split(';')[0].trim().toLowerCase();
      return !['text/plain', 'multipart/form-data', 'application/x-www-form-urlencoded'].includes(type);
    }
    return !SAFELISTED_HEADERS.has(lower);
  });
}

function route(url, method, headers) {
  let origin = '';
  try { origin = new URL(url, self.location.href).origin; } catch (error) { /* fetch will say */ }
  const crossOrigin = origin !== '' && origin !== self.location.origin;
  const preflight = crossOrigin && needsPreflight(method, headers);
  const firstPreflight = preflight && !preflightedOrigins.has(origin);
  if (preflight) preflightedOrigins.add(origin);
  return { crossOrigin, firstPreflight };
}

// Resource Timing entries reach the timeline on their own schedule: in Chromium often after
// the body reader has reported `done`, and later still on a busy machine. So entries are
// taken from an observer, and a finished request waits for its own entry (a bounded wait:
// browsers report no entry for some aborted requests). Several requests to one URL may be
// in flight: an entry belongs to the request whose fetch started last before the entry's
// startTime.
const ENTRY_WAIT_MS = { ok: 2000, failed: 300 };
const unclaimed = [];
const waiting = [];

function claim(entry) {
  let best = -1;
  for (let i = 0; i < waiting.length; i++) {
    const w = waiting[i];
    if (w.url !== entry.name || entry.startTime < w.since - 1) continue;
    if (best < 0 || w.since > waiting[best].since) best = i;
  }
  if (best < 0) {
    unclaimed.push(entry);
    if (unclaimed.length > 64) unclaimed.shift();
    return;
  }
  const [w] = waiting.splice(best, 1);
  clearTimeout(w.timer);
  w.resolve(entry);
}

if (typeof PerformanceObserver === 'function') {
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) claim(entry);
    // The observer has them: keep the 250-entry buffer from filling up in long sessions.
    performance.clearResourceTimings();
  }).observe({ type: 'resource', buffered: true });
}

function entryFor(url, since, waitMs) {
  let found = -1;
  for (let i = 0; i < unclaimed.length; i++) {
    const entry = unclaimed[i];
    if (entry.name !== url || entry.startTime < since - 1) continue;
    if (found < 0 || entry.startTime < unclaimed[found].startTime) found = i;
  }
  if (found >= 0) return Promise.resolve(unclaimed.splice(found, 1)[0]);
  return new Promise((resolve) => {
    const w = { url, since, resolve };
    w.timer = setTimeout(() => {
      const at = waiting.indexOf(w);
      if (at >= 0) waiting.splice(at, 1);
      resolve(null);
    }, waitMs);
    waiting.push(w);
  });
}

// The headers of a server's or gateway's own account of its time, and ttft-relay's
// (ttft-stream's ACCOUNT_HEADERS): read when CORS exposes them.
const ACCOUNT_HEADERS = [
  'server-timing', 'openai-processing-ms', 'x-litellm-overhead-duration-ms', 'x-queue-time',
  'x-total-time', 'x-prompt-tokens', 'fireworks-server-time-to-first-token',
  'fireworks-server-processing-time', 'fireworks-prompt-tokens', 'fireworks-cached-prompt-tokens',
  'x-ttft-relay', 'x-ttft-relay-error',
];
// The longest header value passed on (ttft-stream's MAX_HEADER_BYTES).
const MAX_HEADER_BYTES = 4096;

function timingHeaders(headers) {
  const found = [];
  for (const name of ACCOUNT_HEADERS) {
    const value = headers.get(name);
    if (value !== null && value.length <= MAX_HEADER_BYTES) found.push([name, value]);
  }
  return found;
}

// Resource Timing's serverTiming (visible with Timing-Allow-Origin), written back as one
// Server-Timing header value, bounded.
function serverTimingOf(entry) {
  const metrics = (entry && entry.serverTiming) || [];
  const parts = [];
  for (const metric of metrics.slice(0, 32)) {
    const name = String(metric.name).slice(0, 64).replace(/[;,=\s"]/g, '');
    if (name && Number.isFinite(metric.duration)) parts.push(`${name};dur=${metric.duration}`);
  }
  const value = parts.join(',');
  return value.length <= MAX_HEADER_BYTES ? value : '';
}

function copyTiming(entry) {
  if (!entry) return null;
  const fields = [
    'startTime', 'fetchStart', 'domainLookupStart', 'domainLookupEnd', 'connectStart',
    'connectEnd', 'secureConnectionStart', 'requestStart', 'responseStart', 'responseEnd',
    'transferSize', 'encodedBodySize',
  ];
  const copy = { nextHopProtocol: entry.nextHopProtocol, serverTiming: serverTimingOf(entry) };
  for (const field of fields) copy[field] = entry[field];
  return copy;
}

// fetch() with Local Network Access's targetAddressSpace when the page gave one; an engine
// whose enum lacks the value (Chrome 124-137 knew 'private' and 'local' only) refuses the
// init with a TypeError naming the option: the request then goes without it.
function fetchDeclared(url, init, targetAddressSpace) {
  if (!targetAddressSpace) return fetch(url, init);
  return fetch(url, { ...init, targetAddressSpace }).catch((error) => {
    if (error && error.name === 'TypeError' && String(error.message).includes('targetAddressSpace')) {
      return fetch(url, init);
    }
    throw error;
  });
}

async function run({ id, url, method, headers, body, targetAddressSpace }) {
  const controller = new AbortController();
  controllers.set(id, controller);
  const flow = { unacked: 0, pending: [] };
  flows.set(id, flow);
  const since = performance.now();
  let outcome = 'failed';
  try {
    postMessage({ type: 'started', id, t: since, ...route(url, method, headers) });
    // Never follow a redirect: the request carries the key, which must not go to another
    // address. 'manual' (not 'error') so the redirect is told apart from a network failure.
    const pending = fetchDeclared(url, {
      method, headers, body, signal: controller.signal, redirect: 'manual',
    }, targetAddressSpace);
    // The page waits for this before any UI work: in WebKit, fetch() from a worker hands the
    // request to the page's main thread, and this message reaches the page after it.
    postMessage({ type: 'sent', id, t: performance.now() });
    const response = await pending;
    if (response.type === 'opaqueredirect') {
      const redirected = new Error('the server answered with a redirect, which was not followed');
      redirected.name = 'RedirectError';
      throw redirected;
    }
    postMessage({
      type: 'headers', id, t: performance.now(), status: response.status,
      contentType: response.headers.get('content-type') || '',
      retryAfter: response.headers.get('retry-after'),
      timingHeaders: timingHeaders(response.headers),
    });
    if (response.body) {
      const reader = response.body.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        const t = performance.now();
        if (done) break;
        const bytes = value.buffer.slice(value.byteOffset, value.byteOffset + value.byteLength);
        flow.pending.push([t, bytes]);
        if (flow.unacked < MAX_UNACKED) sendReads(id, flow);
      }
    }
    const ended = performance.now();
    flush(id, flow);
    postMessage({ type: 'end', id, t: ended });
    outcome = 'ok';
  } catch (error) {
    const failed = performance.now();
    flush(id, flow);
    postMessage({
      type: 'failed', id, t: failed,
      name: (error && error.name) || 'Error', message: String((error && error.message) || error),
    });
  } finally {
    controllers.delete(id);
    flows.delete(id);
    const entry = await entryFor(url, since, ENTRY_WAIT_MS[outcome]);
    postMessage({ type: 'timing', id, entry: copyTiming(entry) });
  }
}

onmessage = (event) => {
  const message = event.data;
  if (message.type === 'start') run(message);
  else if (message.type === 'abort') controllers.get(message.id)?.abort();
  else if (message.type === 'ack') {
    const flow = flows.get(message.id);
    if (flow) {
      flow.unacked -= 1;
      if (flow.unacked < MAX_UNACKED) flush(message.id, flow);
    }
  }
};

postMessage({ type: 'ready', timeOrigin: performance.timeOrigin });
