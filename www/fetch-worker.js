// TTFT Meter's fetch worker: performs the streaming fetch and stamps every event where the
// bytes arrive, with this worker's performance.now(), so main-thread work (rendering,
// charts, garbage collection) cannot delay the arrival times. Parsing stays in the page's
// wasm (ttft-core); this script only moves bytes and timestamps. docs/DESIGN.md §3.
//
// Protocol (page -> worker):
//   {type: 'start', id, url, method, headers: [[name, value], ...], body}
//   {type: 'abort', id}
// Protocol (worker -> page), every `t` on this worker's clock (see `ready.timeOrigin`):
//   {type: 'ready', timeOrigin}
//   {type: 'started', id, t}                       just before fetch()
//   {type: 'headers', id, t, status, contentType, retryAfter}
//   {type: 'chunk', id, t, bytes}                  bytes: ArrayBuffer (transferred)
//   {type: 'end', id, t}                           body complete
//   {type: 'failed', id, t, name, message}         TypeError, AbortError, ...
//   {type: 'timing', id, entry}                    Resource Timing of the request
'use strict';

const controllers = new Map();

function resourceTiming(url) {
  const entries = performance.getEntriesByName(url, 'resource');
  const entry = entries[entries.length - 1];
  performance.clearResourceTimings();
  if (!entry) return null;
  const fields = [
    'startTime', 'fetchStart', 'domainLookupStart', 'domainLookupEnd', 'connectStart',
    'connectEnd', 'secureConnectionStart', 'requestStart', 'responseStart', 'responseEnd',
    'transferSize', 'encodedBodySize',
  ];
  const copy = { nextHopProtocol: entry.nextHopProtocol };
  for (const field of fields) copy[field] = entry[field];
  return copy;
}

async function run({ id, url, method, headers, body }) {
  const controller = new AbortController();
  controllers.set(id, controller);
  try {
    postMessage({ type: 'started', id, t: performance.now() });
    const response = await fetch(url, { method, headers, body, signal: controller.signal });
    postMessage({
      type: 'headers', id, t: performance.now(), status: response.status,
      contentType: response.headers.get('content-type') || '',
      retryAfter: response.headers.get('retry-after'),
    });
    if (response.body) {
      const reader = response.body.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        const t = performance.now();
        if (done) break;
        const bytes = value.buffer.slice(value.byteOffset, value.byteOffset + value.byteLength);
        postMessage({ type: 'chunk', id, t, bytes }, [bytes]);
      }
    }
    postMessage({ type: 'end', id, t: performance.now() });
  } catch (error) {
    postMessage({
      type: 'failed', id, t: performance.now(),
      name: (error && error.name) || 'Error', message: String((error && error.message) || error),
    });
  } finally {
    controllers.delete(id);
    postMessage({ type: 'timing', id, entry: resourceTiming(url) });
  }
}

onmessage = (event) => {
  const message = event.data;
  if (message.type === 'start') run(message);
  else if (message.type === 'abort') controllers.get(message.id)?.abort();
};

postMessage({ type: 'ready', timeOrigin: performance.timeOrigin });
