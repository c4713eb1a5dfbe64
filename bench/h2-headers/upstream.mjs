// Plain HTTP/1.1 upstream: an OpenAI-style SSE stream.
// POST /v1/chat/completions -> 200 text/event-stream, headers flushed at once,
// first event after FIRST_MS (300), then 4 more events 20 ms apart, then [DONE].
// Query flags: ?prelude=1  write an SSE comment ": ok\n\n" right after the headers
//              ?xaccel=1   add "X-Accel-Buffering: no"
// GET / serves the measuring page (same origin when proxied by nginx).
// Usage: [FIRST_MS=300] node upstream.mjs PORT
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const port = Number(process.argv[2] || 0);
const FIRST_MS = Number(process.env.FIRST_MS || 300);
const here = path.dirname(fileURLToPath(import.meta.url));
const page = fs.readFileSync(path.join(here, 'page.html'));

const cors = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, POST, OPTIONS',
  'access-control-allow-headers': '*',
  'access-control-max-age': '600',
  'timing-allow-origin': '*',
};

export function handle(req, res) {
  const url = new URL(req.url, 'http://x');
  if (req.method === 'OPTIONS') {
    res.writeHead(204, cors);
    return res.end();
  }
  if (req.method === 'GET' && (url.pathname === '/' || url.pathname === '/page.html')) {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', ...cors });
    return res.end(page);
  }
  if (url.pathname === '/v1/chat/completions') {
    // drain the request body, then answer
    req.on('data', () => {});
    req.on('end', () => {
      const h = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...cors };
      if (url.searchParams.get('xaccel') === '1') h['x-accel-buffering'] = 'no';
      res.writeHead(200, h);
      res.flushHeaders();
      if (url.searchParams.get('prelude') === '1') res.write(': ok\n\n');
      const id = 'chatcmpl-' + Date.now();
      const ev = (content) => 'data: ' + JSON.stringify({ id, object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content } }] }) + '\n\n';
      let i = 0;
      const next = () => {
        if (res.destroyed) return;
        if (i < 5) { res.write(ev('tok' + i)); i++; setTimeout(next, 20); }
        else { res.end('data: [DONE]\n\n'); }
      };
      setTimeout(next, FIRST_MS);
    });
    return;
  }
  res.writeHead(404, cors);
  res.end('not found\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const srv = http.createServer(handle);
  srv.keepAliveTimeout = 30000;
  srv.listen(port, '127.0.0.1', () => console.log('upstream listening', srv.address().port));
}
