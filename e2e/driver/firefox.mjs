// Firefox: Debian's firefox-esr through puppeteer-core over WebDriver BiDi (Firefox's own
// Remote Agent; no geckodriver). puppeteer-core never downloads a browser.
import { existsSync, mkdtempSync, readdirSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import puppeteer from 'puppeteer-core';
import { fillAtOnce } from './query.mjs';

export const FIREFOX_BINARY = '/usr/lib/firefox-esr/firefox-esr';

/**
 * Preferences of the test profile: no traffic off loopback, no favicon requests, and
 * navigator.clipboard usable without a paste prompt (the test copies and reads back).
 */
export const FIREFOX_PREFS = {
  'dom.events.testing.asyncClipboard': true,
  'browser.chrome.site_icons': false,
  'network.captive-portal-service.enabled': false,
  'network.connectivity-service.enabled': false,
  'browser.safebrowsing.update.enabled': false,
  'app.update.enabled': false,
  'datareporting.policy.dataSubmissionEnabled': false,
  'toolkit.telemetry.enabled': false,
  'browser.download.always_ask_before_handling_new_types': false,
  'browser.download.useDownloadDir': true,
  'browser.download.folderList': 2,
  // The downloads panel, opened by a download, keeps the keyboard focus: typing in the next
  // page (another context, same window) went to it, and a fill left the field empty.
  'browser.download.alwaysOpenPanel': false,
};

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export async function launchFirefox({ trust = null } = {}) {
  const browser = await puppeteer.launch({
    browser: 'firefox',
    // trustCertificate (index.mjs): the BiDi session's acceptInsecureCerts capability. Firefox
    // then accepts every certificate error (not only this certificate), in every context.
    ...(trust ? { acceptInsecureCerts: true } : {}),
    executablePath: FIREFOX_BINARY,
    headless: true,
    extraPrefsFirefox: FIREFOX_PREFS,
    // Run as root (as the test machines run it) with a HOME it owns: Firefox needs nothing more.
    env: { ...process.env, MOZ_CRASHREPORTER_DISABLE: '1' },
  });
  return {
    version: await browser.version(),
    async newBackend({ viewport }) {
      const downloads = mkdtempSync(path.join(os.tmpdir(), 'e2e-firefox-downloads-'));
      const context = await browser.createBrowserContext({ downloadBehavior: { policy: 'allow', downloadPath: downloads } });
      const page = await context.newPage();
      await page.setViewport(viewport);
      return new FirefoxBackend(context, page, downloads);
    },
    async close() {
      await browser.close();
    },
    native: browser,
  };
}

class FirefoxBackend {
  constructor(context, page, downloads) {
    this.context = context;
    this.page = page;
    this.downloads = downloads;
    this.errors = [];
    this.requests = [];
    this.console = [];
    page.on('pageerror', (error) => {
      // Firefox reports its own network-console lines ("Cross-Origin Request Blocked: …",
      // logged by the browser for a refused CORS request, as Chromium logs "Access to fetch
      // … has been blocked" to the console) through the same BiDi log as page errors: they
      // are not the page's errors (the page sees a TypeError, which it handles), so they go
      // to the console lines.
      const message = String(error?.message ?? error);
      if (message.startsWith('Cross-Origin Request Blocked:')) {
        this.console.push(`error: ${message}`);
      } else {
        this.errors.push(error);
      }
    });
    page.on('request', (request) => {
      let body = '';
      try {
        body = request.postData() ?? '';
      } catch {
        // puppeteer over BiDi may not expose the body: the test's servers record it.
      }
      this.requests.push({ url: request.url(), method: request.method(), headers: request.headers(), body });
    });
    // BiDi log.entryAdded: console calls of the page and its frames.
    page.on('console', (message) => this.console.push(`${message.type()}: ${message.text()}`));
  }

  consoleMessages() {
    return [...this.console];
  }

  /** Every cookie of the context (BiDi storage.getCookies). */
  async cookies() {
    return this.context.cookies();
  }

  // The frame of an `<iframe>` is looked up once per selector and kept while it is attached:
  // looking it up for every call (a wait for the element, then its content frame: two more
  // round trips) made each query into the embedded widget cost about 95 ms in Firefox against
  // 3 ms in the page itself, 1.1 s of each run of e2e/keysafety's fault series.
  frames = new Map();

  async #frame(frame) {
    if (!frame) return this.page.mainFrame();
    const kept = this.frames.get(frame);
    if (kept && !kept.detached) return kept;
    const element = await this.page.waitForSelector(frame);
    const content = await element.contentFrame();
    if (!content) throw new Error(`${frame} has no document yet`);
    this.frames.set(frame, content);
    return content;
  }

  /** Runs `use` with the frame; a kept frame that fails because it went away is looked up again. */
  async #inFrame(frame, use) {
    const content = await this.#frame(frame);
    try {
      return await use(content);
    } catch (error) {
      if (!frame || this.frames.get(frame) !== content || !content.detached) throw error;
      this.frames.delete(frame);
      return use(await this.#frame(frame));
    }
  }

  async evaluate(frame, expression) {
    return this.#inFrame(frame, (content) => content.evaluate(expression));
  }

  async handle(frame, expression) {
    const handle = await this.#inFrame(frame, (content) => content.evaluateHandle(expression));
    return handle.asElement();
  }

  async click(handle) {
    await handle.click();
  }

  async fill(handle, value) {
    if (value === '') {
      // puppeteer's fill('') empties the field without an input event: select all and
      // delete, as a user would.
      await handle.focus();
      await this.page.keyboard.down('Control');
      await this.page.keyboard.press('a');
      await this.page.keyboard.up('Control');
      await this.page.keyboard.press('Backspace');
      return;
    }
    // A text field gets its whole value at once and one input event, as Playwright's fill
    // does in Chromium (insertText): puppeteer's Locator.fill types it key by key, one BiDi
    // round trip each, about 1.5 s for a long model name in every run's form.
    const filledAtOnce = await handle.evaluate(fillAtOnce, value);
    if (!filledAtOnce) await handle.asLocator().fill(value);
  }

  async setFiles(handle, filePath) {
    await handle.uploadFile(filePath);
  }

  async press(key) {
    await this.page.keyboard.press(key);
  }

  async goto(url) {
    await this.page.goto(url);
  }

  async reload() {
    await this.page.reload();
  }

  url() {
    return this.page.url();
  }

  async screenshot(filePath, { fullPage }) {
    await this.page.screenshot({ path: filePath, fullPage });
  }

  async elementScreenshot(handle, filePath) {
    await handle.screenshot({ path: filePath });
  }

  /** Firefox saves into the context's folder (BiDi browser.setDownloadBehavior). */
  async download(action) {
    const before = new Set(readdirSync(this.downloads));
    await action();
    const deadline = Date.now() + 15_000;
    while (Date.now() < deadline) {
      const fresh = readdirSync(this.downloads).filter((name) => !before.has(name) && !name.endsWith('.part'));
      const done = fresh.find((name) => !existsSync(path.join(this.downloads, `${name}.part`)) && statSync(path.join(this.downloads, name)).size > 0);
      if (done) {
        before.add(done);
        return path.join(this.downloads, done);
      }
      await sleep(50);
    }
    throw new Error(`No download arrived in ${this.downloads} within 15 s`);
  }

  async close() {
    await this.context.close();
  }
}
