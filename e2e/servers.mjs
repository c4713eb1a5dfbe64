// The HTTP servers of the tests besides ttft-sim (e2e/support.mjs starts that one): a host
// page on another origin that embeds the widget, a plain static host of the built page, and
// a recording reverse proxy. Each listens on a free loopback port and records what it was
// asked for; `stop()` closes it for good.
import { existsSync, readFileSync, statSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { DIST, ROOT } from './support.mjs';

/**
 * Stops a test's HTTP server for good: no new connections, and every open one closed, idle
 * or not. `server.close()` alone waits for the connections a browser keeps open: a Chromium
 * connection kept to a test's server can hold the suite for minutes after its test.
 */
function closeServer(server) {
  const closed = new Promise((resolve) => server.close(() => resolve()));
  server.closeAllConnections();
  return closed;
}

async function listen(server) {
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${server.address().port}`;
}

/**
 * Another origin (a loopback port of its own) serving the example host page,
 * www/embed-example.html, that embeds the widget named by its `widget` parameter:
 *
 * - `/embed-example.html` and `/plain.html`: the page as a plain host serves it;
 * - `/isolated.html`: the same page cross-origin isolated (COOP same-origin + COEP
 *   require-corp), as docs pages using SharedArrayBuffer are;
 * - `/bare-host.html?widget=…`: a host that passes no target_origin and sends no referrer
 *   (nothing to trust), and collects what it is sent in `window.ttftMessages`.
 *
 * Resolves to { url, requests, stop }: `requests` holds `{ method, url, headers }` of each
 * request, `url` as the browser asked for it.
 */
export async function startHost() {
  const page = readFileSync(path.join(ROOT, 'www', 'embed-example.html'));
  const requests = [];
  const server = http.createServer((request, response) => {
    requests.push({ method: request.method, url: request.url, headers: request.headers });
    const { pathname, searchParams } = new URL(request.url, 'http://host');
    if (pathname === '/embed-example.html' || pathname === '/plain.html') {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(page);
    } else if (pathname === '/isolated.html') {
      response.writeHead(200, {
        'content-type': 'text/html; charset=utf-8',
        'cross-origin-opener-policy': 'same-origin',
        'cross-origin-embedder-policy': 'require-corp',
      });
      response.end(page);
    } else if (pathname === '/bare-host.html') {
      const widget = searchParams.get('widget');
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(`<!doctype html><iframe id="widget" referrerpolicy="no-referrer" src="${widget}"></iframe>
          <script>window.ttftMessages = []; addEventListener('message', (event) => window.ttftMessages.push(event.data));</script>`);
    } else {
      response.writeHead(404).end();
    }
  });
  const url = await listen(server);
  return { url, requests, stop: () => closeServer(server) };
}

const CONTENT_TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.wasm': 'application/wasm', '.css': 'text/css' };

/**
 * A plain static host of the built page ({@link DIST}) under `prefix`, as `python3 -m
 * http.server` serves a folder: files for GET with a content type from the extension, no
 * COOP/COEP (the page is not cross-origin isolated), no precompressed copies, 404 for
 * anything else, and 501 with an HTML error page for any other method (a POST to it is not
 * an LLM API). Resolves to { url, requests, stop }: `requests` holds `{ method, url }` of
 * each request, `url` absolute.
 */
export async function startStaticHost({ prefix = '/' } = {}) {
  const requests = [];
  let origin = '';
  const server = http.createServer((request, response) => {
    requests.push({ method: request.method, url: `${origin}${request.url}` });
    if (request.method !== 'GET') {
      response.writeHead(501, { 'content-type': 'text/html;charset=utf-8' });
      response.end(`<html><head><title>Error response</title></head><body><h1>Error response</h1><p>Error code: 501</p><p>Message: Unsupported method ('${request.method}').</p></body></html>`);
      return;
    }
    const { pathname } = new URL(request.url, 'http://host');
    const relative = pathname.startsWith(prefix) ? pathname.slice(prefix.length) : null;
    const file = relative === null ? null : path.join(DIST, relative === '' || relative.endsWith('/') ? `${relative}index.html` : relative);
    if (!file || !file.startsWith(DIST + path.sep) || !existsSync(file) || !statSync(file).isFile()) {
      response.writeHead(404, { 'content-type': 'text/html' }).end('<h1>404 File not found</h1>');
      return;
    }
    response.writeHead(200, { 'content-type': CONTENT_TYPES[path.extname(file)] ?? 'application/octet-stream' });
    response.end(readFileSync(file));
  });
  origin = await listen(server);
  return { url: origin, requests, stop: () => closeServer(server) };
}

/**
 * A recording reverse proxy on another loopback port: forwards every request to `target`
 * unchanged (streams included) and keeps `{ method, url, headers }` of each, `url` as the
 * browser asked for it. It sees the requests on the server side, so it works alike in every
 * engine (WebKit's WebDriver reports no network events).
 */
export async function startRecorder(target) {
  const targetUrl = new URL(target);
  const requests = [];
  let origin = '';
  const server = http.createServer((request, response) => {
    requests.push({ method: request.method, url: `${origin}${request.url}`, headers: request.headers });
    const upstream = http.request(
      { host: targetUrl.hostname, port: targetUrl.port, method: request.method, path: request.url, headers: { ...request.headers, host: targetUrl.host } },
      (answer) => {
        response.writeHead(answer.statusCode, answer.headers);
        answer.pipe(response);
      },
    );
    upstream.on('error', () => response.destroy());
    request.pipe(upstream);
  });
  origin = await listen(server);
  return { url: origin, requests, stop: () => closeServer(server) };
}
