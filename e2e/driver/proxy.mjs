// A recording HTTP forward proxy on 127.0.0.1, for engines whose driver reports no network
// events (WebKit: classic WebDriver). The browser is pointed at it for every host (loopback
// included), so it sees each request the browser sends, from the page, its frames and its
// workers, as sent: `{ url, method, headers, body }`. HTTPS is tunnelled with CONNECT, whose
// contents it cannot read: it records `CONNECT host:port` and refuses the tunnel (the tests
// reach only loopback; a real host is unreachable here anyway). A refused or failed upstream
// connection closes the browser's connection, so the page sees the same network error it
// would see without the proxy.
import http from 'node:http';

/** Bytes of each request body kept in the record. */
const BODY_KEPT_BYTES = 256 * 1024;

export async function startRecordingProxy() {
  const requests = [];
  const server = http.createServer((request, response) => {
    const entry = { url: request.url, method: request.method, headers: { ...request.headers }, body: '' };
    delete entry.headers['proxy-connection'];
    requests.push(entry);
    let target;
    try {
      target = new URL(request.url);
    } catch {
      response.writeHead(400).end();
      return;
    }
    const headers = { ...request.headers };
    delete headers['proxy-connection'];
    const upstream = http.request(
      { host: target.hostname.replace(/^\[|\]$/g, ''), port: target.port || 80, method: request.method, path: `${target.pathname}${target.search}`, headers, autoSelectFamily: true },
      (answer) => {
        response.writeHead(answer.statusCode, answer.rawHeaders);
        answer.pipe(response);
        // An answer cut off upstream is cut off for the browser too (pipe alone would leave
        // the browser's connection open, waiting).
        answer.on('aborted', () => response.destroy());
        answer.on('error', () => response.destroy());
      },
    );
    upstream.on('error', () => response.destroy());
    response.on('close', () => upstream.destroy());
    const chunks = [];
    let kept = 0;
    request.on('data', (chunk) => {
      if (kept < BODY_KEPT_BYTES) {
        chunks.push(chunk.subarray(0, BODY_KEPT_BYTES - kept));
        kept += chunk.length;
      }
    });
    request.on('end', () => (entry.body = Buffer.concat(chunks).toString('utf8')));
    request.pipe(upstream);
  });
  server.on('connect', (request, socket) => {
    requests.push({ url: request.url, method: 'CONNECT', headers: { ...request.headers }, body: '' });
    socket.end('HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\n\r\n');
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    requests,
    async stop() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
