// Every trust mechanism tried for the test-time self-signed certificate, engine by engine,
// outside the driver layer (which uses one per engine: see ../driver/index.mjs):
//
//   node e2e/tls-probe/alternatives.mjs
//
// For each mechanism: does the https page load (no interstitial), does a fetch from the page
// and one from a dedicated Worker (to another port) succeed, and is a server with ANOTHER
// self-signed certificate still refused (is the trust limited to this certificate)?
// The Firefox NSS-profile rows need certutil (Debian's libnss3-tools); they are skipped
// without it. Bounded: each mechanism has a time limit; everything is closed at the end.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import puppeteer from 'puppeteer-core';
import { Builder } from 'selenium-webdriver';
import { CHROMIUM_ARGS } from '../driver/chromium.mjs';
import { FIREFOX_BINARY, FIREFOX_PREFS } from '../driver/firefox.mjs';
import { MINIBROWSER, WEBKIT_DRIVER } from '../driver/webkit.mjs';
import { ensureDisplay } from '../driver/xvfb.mjs';
import { makeCertificate, startTlsServer } from './tls-server.mjs';

const LIMIT_MS = 60_000;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function limit(promise, what, ms = LIMIT_MS) {
  let timer;
  return Promise.race([
    promise,
    new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms / 1000} s`)), ms))),
  ]).finally(() => clearTimeout(timer));
}

function hasCertutil() {
  try {
    execFileSync('certutil', ['-H'], { stdio: 'ignore' });
    return true;
  } catch (error) {
    return error.code !== 'ENOENT';
  }
}

/** The same certificate as makeCertificate, plus basicConstraints CA:FALSE (see the README). */
function makeEndEntityCertificate() {
  const cert = makeCertificate();
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
    '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost',
    '-addext', 'basicConstraints=critical,CA:FALSE', '-keyout', cert.keyFile, '-out', cert.certFile,
  ], { stdio: 'ignore' });
  return { ...cert, keyPem: readFileSync(cert.keyFile, 'utf8'), certPem: readFileSync(cert.certFile, 'utf8') };
}

// The check run in the page: a same-origin fetch, a Worker's cross-origin fetch, and a fetch
// to the server with another certificate. Written as a function source for every backend.
const CHECK = `async function ({ api, other }) {
  const get = (url) => fetch(url).then((r) => String(r.status), (e) => 'failed: ' + e.message);
  const page = await get('/stream');
  const blob = new Blob(["onmessage = (e) => fetch(e.data).then((r) => postMessage(String(r.status)), (x) => postMessage('failed: ' + x.message));"], { type: 'text/javascript' });
  const worker = new Worker(URL.createObjectURL(blob));
  const inWorker = await new Promise((resolve) => { worker.onmessage = (e) => resolve(e.data); worker.postMessage(api + '/stream'); });
  worker.terminate();
  return { title: document.title, page, worker: inWorker, other: await get(other + '/stream') };
}`;

const rows = [];
async function attempt(engine, mechanism, run) {
  try {
    const result = await limit(run(), `${engine} ${mechanism}`);
    rows.push([engine, mechanism, result.title === 'tls probe' ? 'yes' : `no (${result.title})`, result.page ?? '-', result.worker ?? '-', result.other ?? '-']);
  } catch (error) {
    rows.push([engine, mechanism, `no: ${String(error.message).split('\n')[0].slice(0, 150)}`, '-', '-', '-']);
  }
}

async function main() {
  const cert = makeCertificate();
  const eeCert = makeEndEntityCertificate();
  const otherCert = makeCertificate();
  const servers = [];
  const start = async (c) => {
    const server = await startTlsServer({ protocol: 'h2', keyPem: c.keyPem, certPem: c.certPem });
    servers.push(server);
    return server;
  };
  const site = await start(cert);
  const api = await start(cert);
  const eeSite = await start(eeCert);
  const eeApi = await start(eeCert);
  const other = await start(otherCert);
  const arg = { api: api.origin, other: other.origin };
  const eeArg = { api: eeApi.origin, other: other.origin };
  const cleanups = [];
  try {
    // Chromium: the SPKI flag, playwright's ignoreHTTPSErrors, both.
    for (const [mechanism, flag, ignoreHTTPSErrors] of [
      ['--ignore-certificate-errors-spki-list', true, false],
      ['playwright ignoreHTTPSErrors only', false, true],
      ['both', true, true],
    ]) {
      await attempt('chromium', mechanism, async () => {
        const args = flag ? [...CHROMIUM_ARGS, `--ignore-certificate-errors-spki-list=${cert.spki}`] : CHROMIUM_ARGS;
        const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args });
        try {
          const context = await browser.newContext({ ignoreHTTPSErrors });
          const page = await context.newPage();
          await page.goto(`${site.origin}/`);
          return await page.evaluate(`(${CHECK})(${JSON.stringify(arg)})`);
        } finally {
          await browser.close();
        }
      });
    }

    // Firefox: BiDi acceptInsecureCerts; an NSS profile with the certificate (certutil).
    const firefox = async ({ acceptInsecureCerts = false, userDataDir, origin = site.origin, check = arg }) => {
      const browser = await puppeteer.launch({
        browser: 'firefox', executablePath: FIREFOX_BINARY, headless: true, extraPrefsFirefox: FIREFOX_PREFS,
        acceptInsecureCerts, ...(userDataDir ? { userDataDir } : {}),
        env: { ...process.env, MOZ_CRASHREPORTER_DISABLE: '1' },
      });
      try {
        const context = await browser.createBrowserContext();
        const page = await context.newPage();
        await page.goto(`${origin}/`);
        return await page.evaluate(`(${CHECK})(${JSON.stringify(check)})`);
      } finally {
        await browser.close();
      }
    };
    await attempt('firefox', 'nothing', () => firefox({}));
    await attempt('firefox', 'puppeteer.launch acceptInsecureCerts', () => firefox({ acceptInsecureCerts: true }));
    const profiles = [
      ['NSS profile, cert as made (CA:TRUE), certutil -t C,,', cert, 'C,,'],
      ['NSS profile, cert as made (CA:TRUE), certutil -t P,,', cert, 'P,,'],
      ['NSS profile, cert with CA:FALSE, certutil -t P,,', eeCert, 'P,,'],
      ['NSS profile, cert with CA:FALSE, certutil -t C,,', eeCert, 'C,,'],
    ];
    for (const [mechanism, c, flags] of profiles) {
      if (!hasCertutil()) {
        rows.push(['firefox', mechanism, 'skipped: no certutil (apt-get install libnss3-tools)', '-', '-', '-']);
        continue;
      }
      await attempt('firefox', mechanism, async () => {
        const profile = mkdtempSync(path.join(os.tmpdir(), 'e2e-firefox-nss-'));
        try {
          execFileSync('certutil', ['-N', '-d', `sql:${profile}`, '--empty-password']);
          execFileSync('certutil', ['-A', '-d', `sql:${profile}`, '-n', 'e2e-test', '-t', flags, '-i', c.certFile]);
          const ee = c === eeCert;
          return await firefox({ userDataDir: profile, origin: ee ? eeSite.origin : site.origin, check: ee ? eeArg : arg });
        } finally {
          rmSync(profile, { recursive: true, force: true });
        }
      });
    }

    // WebKit: capabilities of WebKitWebDriver, or MiniBrowser's own flag.
    const display = await ensureDisplay();
    cleanups.push(() => display.release());
    const webkit = async ({ capabilities = {}, browserOptions = {}, args = [] }) => {
      const server = net.createServer();
      await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
      const { port } = server.address();
      await new Promise((resolve) => server.close(resolve));
      const home = mkdtempSync(path.join(os.tmpdir(), 'e2e-webkit-tls-'));
      const driver = spawn(WEBKIT_DRIVER, [`--port=${port}`], {
        stdio: 'ignore', detached: true,
        env: { ...process.env, DISPLAY: display.name, XDG_CONFIG_HOME: home, WEBKIT_DISABLE_SANDBOX_THIS_IS_DANGEROUS: '1' },
      });
      let session = null;
      try {
        for (let i = 0; i < 100; i += 1) {
          try {
            if ((await fetch(`http://127.0.0.1:${port}/status`)).ok) break;
          } catch {}
          await sleep(100);
        }
        session = await new Builder().usingServer(`http://127.0.0.1:${port}`).withCapabilities({
          browserName: 'MiniBrowser',
          ...capabilities,
          'webkitgtk:browserOptions': { binary: MINIBROWSER, args: ['--automation', ...args], ...browserOptions },
        }).build();
        await session.get(`${site.origin}/`);
        return await session.executeScript(`return (${CHECK})(${JSON.stringify(arg)})`);
      } finally {
        await session?.quit().catch(() => {});
        try {
          process.kill(-driver.pid, 'SIGTERM');
        } catch {}
        rmSync(home, { recursive: true, force: true });
      }
    };
    await attempt('webkit', 'nothing', () => webkit({}));
    await attempt('webkit', 'capability acceptInsecureCerts: true', () => webkit({ capabilities: { acceptInsecureCerts: true } }));
    await attempt('webkit', 'browserOptions.certificates [{ host, certificateFile }]', () => webkit({
      browserOptions: { certificates: [{ host: '127.0.0.1', certificateFile: cert.certFile }] },
    }));
    await attempt('webkit', 'MiniBrowser --ignore-tls-errors', () => webkit({ args: ['--ignore-tls-errors'] }));
  } finally {
    for (const cleanup of cleanups) await cleanup().catch(() => {});
    for (const server of servers) await server.close();
    for (const c of [cert, eeCert, otherCert]) c.remove();
  }
  const header = ['engine', 'mechanism', 'page loads', 'page fetch', 'worker fetch (other port)', 'other self-signed cert'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)));
  const line = (cells) => `| ${cells.map((cell, i) => cell.padEnd(widths[i])).join(' | ')} |`;
  console.log(line(header));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const row of rows) console.log(line(row));
}

const watchdog = setTimeout(() => {
  console.error('alternatives: still running after 10 min; exiting');
  process.exit(2);
}, 10 * 60_000);
watchdog.unref();
await main();
