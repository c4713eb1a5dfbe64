// The driver layer: one small API over three engines, so that every end-to-end test is
// written once and runs in Chromium, Firefox and WebKit.
//
//   Chromium  Debian's chromium      playwright-core (CDP)
//   Firefox   Debian's firefox-esr   puppeteer-core over WebDriver BiDi (no geckodriver)
//   WebKit    Debian's MiniBrowser   selenium-webdriver over WebKitWebDriver (classic WebDriver), under Xvfb
//
// E2E_ENGINES=chromium,firefox,webkit (the default) chooses which engines a run covers.
import { afterEach, describe, test as nodeTest } from 'node:test';
import { createHash, X509Certificate } from 'node:crypto';
import { lostPages } from './crashes.mjs';
import { Page } from './page.mjs';

export { DEFAULT_TIMEOUT_MS } from './page.mjs';

/** Every engine the layer knows, in the order the suite runs them. */
export const ENGINES = ['chromium', 'firefox', 'webkit'];

/** The engines named by E2E_ENGINES (comma or space separated), else all of them. */
export function selectedEngines() {
  const raw = process.env.E2E_ENGINES?.trim();
  if (!raw) return [...ENGINES];
  const names = raw.split(/[\s,]+/).filter(Boolean);
  const unknown = names.filter((name) => !ENGINES.includes(name));
  if (unknown.length) {
    throw new Error(`E2E_ENGINES names ${unknown.join(', ')}; the engines are ${ENGINES.join(', ')}`);
  }
  return names;
}

/** Playwright's default viewport, kept for every engine. */
export const DEFAULT_VIEWPORT = { width: 1280, height: 720 };

/**
 * Starts `engine`'s browser. Resolves to `{ engine, version, newPage(options), close() }`;
 * every `newPage` is a fresh context (own storage, cache and connections) with one page.
 * Options: `viewport` ({ width, height } of the page, CSS px), `clipboard` (allow
 * navigator.clipboard reads), `observeRequests` (WebKit: send every request through a
 * recording proxy so that `page.requests` lists them; Chromium and Firefox always do).
 *
 * Launch options (all optional; without them nothing changes):
 *   `trustCertificate: { certPem, spki? }`: make every page of this browser accept HTTPS
 *   from a server with this (test-time, self-signed) certificate, with no interstitial, in
 *   the page and in its workers, over HTTP/2 and HTTP/1.1. `spki` (base64 SHA-256 of the
 *   SubjectPublicKeyInfo DER) is computed from `certPem` when left out. Per engine:
 *     Chromium  --ignore-certificate-errors-spki-list=<spki>: this key only, any host/port
 *               (the certificate counts as valid, so no cert-error side effects)
 *     Firefox   acceptInsecureCerts at launch (WebDriver BiDi session capability): Firefox
 *               then accepts ANY certificate error, not only this certificate
 *     WebKit    webkitgtk:browserOptions.certificates [{ host, certificateFile }] for
 *               127.0.0.1 and localhost (WebKitWebDriver allows exactly this certificate
 *               for those hosts, any port)
 *   e2e/tls-probe/ (probe.mjs, README.md) shows what each engine then reports over TLS.
 *   WebKit's observeRequests proxy refuses CONNECT, so it cannot be used with https pages.
 */
export async function launch(engine, { trustCertificate = null } = {}) {
  const trust = trustCertificate ? certificateTrust(trustCertificate) : null;
  const backends = {
    chromium: async () => (await import('./chromium.mjs')).launchChromium({ trust }),
    firefox: async () => (await import('./firefox.mjs')).launchFirefox({ trust }),
    webkit: async () => (await import('./webkit.mjs')).launchWebKit({ trust }),
  };
  if (!backends[engine]) throw new Error(`unknown engine ${engine}; the engines are ${ENGINES.join(', ')}`);
  const browser = await backends[engine]();
  const pages = new Set();
  const launched = {
    engine,
    version: browser.version,
    native: browser.native,
    async newPage({ viewport = DEFAULT_VIEWPORT, clipboard = false, observeRequests = false } = {}) {
      const page = new Page(engine, await browser.newBackend({ viewport, clipboard, observeRequests }));
      pages.add(page);
      const close = page.close.bind(page);
      page.close = async () => {
        pages.delete(page);
        await close();
      };
      return page;
    },
    /** Closes every page still open (a WebKit page is a MiniBrowser process). */
    async closePages() {
      for (const page of [...pages]) await page.close().catch(() => {});
    },
    async close() {
      await launched.closePages();
      openBrowsers.delete(launched);
      await browser.close();
    },
  };
  openBrowsers.add(launched);
  return launched;
}

/** `{ certPem, spki }` of a trustCertificate option, `spki` computed when not given. */
function certificateTrust({ certPem, spki }) {
  if (typeof certPem !== 'string' || !certPem.includes('BEGIN CERTIFICATE')) {
    throw new Error('trustCertificate needs certPem, a PEM certificate');
  }
  const der = new X509Certificate(certPem).publicKey.export({ type: 'spki', format: 'der' });
  const computed = createHash('sha256').update(der).digest('base64');
  if (spki && spki !== computed) throw new Error(`trustCertificate: spki ${spki} is not the certificate's (${computed})`);
  return { certPem, spki: computed };
}

// Browsers launched by this process; each test's pages are closed after it.
const openBrowsers = new Set();

/** Registers `suite(engine)` once per selected engine, each in its own `describe`. */
export function forEachEngine(suite) {
  for (const engine of selectedEngines()) {
    describe(engine, () => {
      afterEach(async () => {
        for (const browser of openBrowsers) await browser.closePages();
      });
      suite(engine);
    });
  }
}

/**
 * node:test's `test`, which runs the test once more when it failed and a browser page was
 * lost under it (crashes.mjs: WebKit's web process crashed or hung, and the WebDriver
 * session went with it). Only then: any other failure stands, and so does a failure of the
 * second run. Each second run is logged as `# browser page lost: …`, with what the driver
 * said, and scripts/test.sh counts them in its summary.
 */
export function test(name, options, fn) {
  if (typeof options === 'function') [options, fn] = [{}, options];
  return nodeTest(name, options, async (context) => {
    const lostBefore = lostPages.length;
    try {
      return await fn(context);
    } catch (error) {
      const lost = lostPages.slice(lostBefore);
      if (!lost.length) throw error;
      console.log(`browser page lost: ${name}: ${lost.map((loss) => `${loss.engine}: ${loss.message}; processes ${JSON.stringify(loss.processes)}; driver log ${JSON.stringify(loss.driver_log.trim())}`).join(' | ')}; the test failed with ${JSON.stringify(String(error?.message ?? error).slice(0, 300))} and runs once more`);
      for (const browser of openBrowsers) await browser.closePages();
      return await fn(context);
    }
  });
}

/**
 * `reasons[engine]` or false: for node:test's `skip` (cannot run in that engine) and
 * `todo` (runs, but a known engine-specific failure does not fail the suite).
 */
export function reasonFor(engine, reasons) {
  return reasons[engine] ?? false;
}

/** The value for `engine` in a table of per-engine expectations (`default` for the rest). */
export function perEngine(engine, table) {
  if (engine in table) return table[engine];
  if ('default' in table) return table.default;
  throw new Error(`no expectation for ${engine} in ${JSON.stringify(Object.keys(table))}`);
}
