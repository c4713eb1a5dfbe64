// Test-time TLS for the end-to-end tests: a self-signed certificate made when the test runs
// (never a key checked in), and loopback servers that speak HTTP/2 (ALPN h2, HTTP/1.1 kept
// for clients without h2) or HTTP/1.1 only, serving a small page, a worker script and a
// streaming SSE endpoint with CORS and Timing-Allow-Origin.
import { execFileSync } from 'node:child_process';
import { createHash, X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http2 from 'node:http2';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';

/**
 * Makes a P-256 self-signed certificate for 127.0.0.1 and localhost, valid one day, with
 * openssl in a temporary folder. Resolves to `{ certPem, keyPem, certFile, keyFile, spki,
 * sha256, dir, remove() }`: `spki` is the base64 SHA-256 of the SubjectPublicKeyInfo (DER),
 * as Chromium's --ignore-certificate-errors-spki-list wants it; `sha256` the certificate's
 * fingerprint (AA:BB:…). `remove()` deletes the folder (the key with it).
 */
export function makeCertificate({ cn = '127.0.0.1' } = {}) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'e2e-tls-'));
  const keyFile = path.join(dir, 'key.pem');
  const certFile = path.join(dir, 'cert.pem');
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
    '-subj', `/CN=${cn}`, '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost',
    '-keyout', keyFile, '-out', certFile,
  ], { stdio: ['ignore', 'ignore', 'pipe'] });
  const certPem = readFileSync(certFile, 'utf8');
  const keyPem = readFileSync(keyFile, 'utf8');
  return { certPem, keyPem, certFile, keyFile, dir, ...certificateIds(certPem), remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** `{ spki, sha256 }` of a PEM certificate (see makeCertificate). */
export function certificateIds(certPem) {
  const x509 = new X509Certificate(certPem);
  const der = x509.publicKey.export({ type: 'spki', format: 'der' });
  return { spki: createHash('sha256').update(der).digest('base64'), sha256: x509.fingerprint256 };
}

const PAGE = `<!doctype html><meta charset="utf-8"><title>tls probe</title><p id="ready">tls probe</p>`;

// The worker runs the same probe as the page (PROBE_SOURCE) when asked.
const WORKER = (probeSource) => `'use strict';
const probe = ${probeSource};
onmessage = async (event) => {
  try { postMessage({ ok: true, value: await probe(event.data) }); }
  catch (error) { postMessage({ ok: false, error: String(error && error.message || error) }); }
};`;

/**
 * Runs fetches and reads each one's Resource Timing entry; the same source runs in the page
 * and in the worker. `requests`: [{ label, url, init }]. Returns per label the entry's fields.
 */
export const PROBE_SOURCE = `async function probe(requests) {
  const out = {};
  for (const { label, url, init } of requests) {
    const since = performance.now();
    let status = 0; let error = '';
    try {
      const response = await fetch(url, init || {});
      status = response.status;
      await response.text();
    } catch (e) { error = String(e && e.message || e); }
    // Entries are queued after the body ends, on the engine's schedule: wait for it.
    let entry = null;
    for (let i = 0; i < 100 && !entry; i++) {
      entry = performance.getEntriesByType('resource').filter((x) => x.name === url && x.startTime >= since - 1).pop() || null;
      if (!entry) await new Promise((r) => setTimeout(r, 20));
    }
    const e = entry || {};
    out[label] = {
      status, error, entry: !!entry,
      nextHopProtocol: e.nextHopProtocol,
      connectStart: e.connectStart, secureConnectionStart: e.secureConnectionStart, connectEnd: e.connectEnd,
      domainLookupStart: e.domainLookupStart, requestStart: e.requestStart, responseStart: e.responseStart,
      fetchStart: e.fetchStart, startTime: e.startTime, transferSize: e.transferSize,
    };
  }
  return out;
}`;

/** CORS for the API: any origin, the JSON body's preflight, a 600 s preflight cache. */
const CORS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, POST, OPTIONS',
  'access-control-allow-headers': 'content-type, authorization, x-probe',
  'access-control-max-age': '600',
};

export function handler(log) {
  return (request, response) => {
    const url = new URL(request.url, 'https://x');
    const tao = url.searchParams.get('tao') !== '0';
    log.push({ method: request.method, path: request.url, httpVersion: request.httpVersion, clientPort: request.socket?.remotePort });
    if (request.method === 'OPTIONS') {
      response.writeHead(204, { ...CORS, ...(tao ? { 'timing-allow-origin': '*' } : {}) });
      response.end();
      return;
    }
    if (url.pathname === '/' || url.pathname === '/index.html') {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
      response.end(PAGE);
      return;
    }
    if (url.pathname === '/worker.js') {
      response.writeHead(200, { 'content-type': 'text/javascript', 'cache-control': 'no-store' });
      response.end(WORKER(PROBE_SOURCE));
      return;
    }
    if (url.pathname === '/stream') {
      // A short SSE stream, as an LLM API streams: three events, 20 ms apart.
      response.writeHead(200, {
        'content-type': 'text/event-stream',
        'cache-control': 'no-store',
        ...CORS,
        ...(tao ? { 'timing-allow-origin': '*' } : {}),
      });
      let sent = 0;
      const tick = () => {
        if (response.destroyed || response.writableEnded) return;
        if (sent === 3) {
          response.end('data: [DONE]\n\n');
          return;
        }
        response.write(`data: {"n":${sent}}\n\n`);
        sent += 1;
        setTimeout(tick, 20);
      };
      request.resume();
      request.on('end', tick);
      return;
    }
    response.writeHead(404, { 'content-type': 'text/plain', ...CORS });
    response.end('not found');
  };
}

/**
 * Starts a TLS server on 127.0.0.1 (a free port). `protocol`: 'h2' (http2.createSecureServer,
 * ALPN h2 and http/1.1) or 'h1' (https.createServer, ALPN http/1.1 only). Resolves to
 * `{ origin, port, protocol, log, connections, close() }`; `log` lists every request with the
 * HTTP version the server saw and the client's port (one port, one connection); `connections`
 * counts the TLS connections accepted.
 */
export async function startTlsServer({ protocol = 'h2', keyPem, certPem }) {
  const log = [];
  const options = { key: keyPem, cert: certPem };
  const server = protocol === 'h2'
    ? http2.createSecureServer({ ...options, allowHTTP1: true }, handler(log))
    : https.createServer({ ...options, ALPNProtocols: ['http/1.1'] }, handler(log));
  const sockets = new Set();
  const sessions = new Set();
  const counts = { tls: 0 };
  server.on('secureConnection', (socket) => {
    counts.tls += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('session', (session) => {
    sessions.add(session);
    session.on('close', () => sessions.delete(session));
  });
  // A browser that does not trust the certificate aborts the handshake: not the server's error.
  server.on('tlsClientError', () => {});
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return {
    origin: `https://127.0.0.1:${port}`,
    port,
    protocol,
    log,
    /** TLS connections accepted so far. */
    get connections() {
      return counts.tls;
    },
    async close() {
      for (const session of sessions) session.destroy();
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
