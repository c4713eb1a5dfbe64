// Case (c): Node's own HTTP/2 (TLS) server, no nginx. Same handler as upstream.mjs through
// the compatibility API: res.writeHead() + res.flushHeaders() makes stream.respond() send the
// HEADERS frame at once; the first DATA frame follows after FIRST_MS. allowHTTP1: true.
// Usage: [FIRST_MS=300] node h2server.mjs PORT KEY.pem CERT.pem
import http2 from 'node:http2';
import fs from 'node:fs';
import { handle } from './upstream.mjs';

const [, , port, key, cert] = process.argv;
const srv = http2.createSecureServer(
  { key: fs.readFileSync(key), cert: fs.readFileSync(cert), allowHTTP1: true }, handle);
srv.listen(Number(port), '127.0.0.1', () => console.log('h2server listening', srv.address().port));
