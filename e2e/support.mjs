// Shared end-to-end harness: a real ttft-sim on 127.0.0.1 serving the built page, and a
// browser engine (Chromium, Firefox or WebKit, Debian's own) driven through e2e/driver.
// Nothing here mocks fetch or the network. The pages under test are driven through the page
// objects of e2e/pages/, the other servers of the tests are in e2e/servers.mjs, and every
// timing tolerance is in e2e/timing.mjs.
import https from 'node:https';
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch } from './driver/index.mjs';

export { CHROMIUM_ARGS } from './driver/chromium.mjs';
export { forEachEngine, perEngine, reasonFor, selectedEngines, test } from './driver/index.mjs';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * The built page every test serves: TTFT_DIST (another build of the page: the benchmark's
 * "before" figures beside "after", or a copy made while the tree is being rebuilt), else
 * dist/ (`trunk build --release`).
 */
export const DIST = path.resolve(process.env.TTFT_DIST || path.join(ROOT, 'dist'));

/** Artifacts of the tests (screenshots, exports): never asserted on. */
export const OUT = path.join(ROOT, 'e2e', 'out');

/** The path of artifact `name` in {@link OUT}, which is created if needed. */
export function outPath(name) {
  mkdirSync(OUT, { recursive: true });
  return path.join(OUT, name);
}

/**
 * The ttft-sim binary: TTFT_SIM_BIN (a copy made while the tree is being rebuilt), else the
 * build of `profile` in target/.
 */
export function simBinary(profile = 'debug') {
  return process.env.TTFT_SIM_BIN || path.join(ROOT, 'target', profile, 'ttft-sim');
}

// Sims still running when node exits (an uncaught error) are stopped too.
const children = new Set();
process.once('exit', () => {
  for (const child of children) child.kill('SIGTERM');
});

/**
 * Starts ttft-sim ({@link simBinary}; `profile: 'release'` for the benchmarks) on a free
 * loopback port, serving the built page ({@link DIST}) unless `dist` is false.
 * Resolves to { url, stop } once it prints its listening line.
 */
export async function startSim(extraArgs = [], { profile = 'debug', dist = true } = {}) {
  const args = ['--port', '0', ...(dist ? ['--dist', DIST] : []), ...extraArgs];
  return startServer('ttft-sim', simBinary(profile), args, /listening on (https?:\/\/127\.0\.0\.1:\d+)/);
}

/** The ttft-relay binary: TTFT_RELAY_BIN, else the debug build in target/. */
export function relayBinary() {
  return process.env.TTFT_RELAY_BIN || path.join(ROOT, 'target', 'debug', 'ttft-relay');
}

/**
 * Starts ttft-relay ({@link relayBinary}) on a free loopback port in front of `upstream`
 * (a base URL) with `extraArgs` (`--ca-file`, `--allow-origin`). Resolves to { url, stop }
 * once it prints its listening line.
 */
export async function startRelay(upstream, extraArgs = []) {
  const args = ['--upstream', upstream, '--port', '0', ...extraArgs];
  return startServer('ttft-relay', relayBinary(), args, /ttft-relay listening on (http:\/\/127\.0\.0\.1:\d+)/);
}

/** Starts `binary` with `args` and resolves to { url, stop } once stdout matches `listening`. */
async function startServer(name, binary, args, listening) {
  const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  children.add(child);
  child.once('exit', () => children.delete(child));
  let buffered = '';
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start within 15 s`)), 15_000);
    child.once('error', (error) => reject(new Error(`cannot start ${name} (${binary}): ${error.message}`)));
    child.once('exit', (code) => reject(new Error(`${name} exited early with ${code}`)));
    child.stdout.on('data', (data) => {
      buffered += data.toString();
      const match = buffered.match(listening);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
  });
  return {
    url,
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await once(child, 'exit');
      }
    },
  };
}

/**
 * Launches `engine` (chromium, firefox, webkit): Debian's browser, never a downloaded one.
 * `options.trustCertificate` ({ certPem }): pages accept that test certificate
 * (e2e/driver/index.mjs says how in each engine).
 */
export async function launchBrowser(engine = 'chromium', options = {}) {
  return launch(engine, options);
}

/**
 * A key and a self-signed certificate for 127.0.0.1 and localhost, made now by Debian's
 * openssl in a temporary folder (never checked in): `{ certPath, keyPath, certPem,
 * simArgs }`, where `simArgs` makes a ttft-sim serve TLS with it (every sim of a test file
 * shares it, so one browser trusts them all).
 */
export function makeTestCertificate() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'ttft-e2e-tls-'));
  const certPath = path.join(dir, 'cert.pem');
  const keyPath = path.join(dir, 'key.pem');
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
    '-days', '2', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost',
    '-keyout', keyPath, '-out', certPath,
  ], { stdio: ['ignore', 'ignore', 'pipe'] });
  return {
    certPath,
    keyPath,
    certPem: readFileSync(certPath, 'utf8'),
    simArgs: ['--tls', '--tls-cert', certPath, '--tls-key', keyPath],
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Polls `probe` (async) until it returns something other than undefined, and resolves to
 * that; throws after `timeoutMs` naming `what`.
 */
export async function eventually(probe, what, timeoutMs = 30_000, intervalMs = 200) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(intervalMs);
  }
}

/** The sim's request and connection log, asked over TLS trusting the test certificate only. */
export function serverLog(sim, certPem) {
  return new Promise((resolve, reject) => {
    https.get(`${sim.url}/__sim/requests`, { ca: certPem }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk) => (body += chunk));
      response.on('end', () => {
        try {
          resolve(JSON.parse(body));
        } catch (error) {
          reject(error);
        }
      });
    }).on('error', reject);
  });
}

/**
 * Cold or warm per run, from the server's log: a run paid for a connection when its POST was
 * the first request on its connection, or the second right after its own preflight, which
 * was the first (`preflight: true`). The truth the page's verdict must match.
 * `ownPreflight`: the request just before the POST on its connection was an OPTIONS.
 */
export function connectionTruth(log, apiPath = '/v1/chat/completions') {
  const byPlace = new Map(log.requests.map((request) => [`${request.connection}/${request.connection_request}`, request]));
  return log.requests
    .filter((request) => request.method === 'POST' && request.path === apiPath)
    .map((post) => {
      const before = byPlace.get(`${post.connection}/${post.connection_request - 1}`);
      const ownPreflight = before?.method === 'OPTIONS' && before.path === apiPath;
      if (post.connection_request === 1) return { cold: true, preflight: false, ownPreflight, post };
      const opened = ownPreflight && before.connection_request === 1;
      return { cold: opened, preflight: opened, ownPreflight, post };
    });
}
