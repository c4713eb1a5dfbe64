// Chromium: Debian's /usr/bin/chromium through playwright-core (CDP). Never a downloaded browser.
import { chromium } from 'playwright-core';

/** Flags Chromium needs here: root, no sandbox, and no background traffic off loopback. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

export async function launchChromium({ trust = null } = {}) {
  // trustCertificate (index.mjs): Chromium treats a certificate whose key is in this list as
  // valid (no interstitial, no cert-error state), for any host and port. The flag needs a
  // --user-data-dir, which playwright always passes.
  const args = trust ? [...CHROMIUM_ARGS, `--ignore-certificate-errors-spki-list=${trust.spki}`] : CHROMIUM_ARGS;
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args });
  return {
    version: browser.version(),
    /** A page in a fresh context: its own storage, cache and connections. */
    async newBackend({ viewport, clipboard }) {
      const context = await browser.newContext({
        viewport,
        acceptDownloads: true,
        permissions: clipboard ? ['clipboard-read', 'clipboard-write'] : [],
      });
      const page = await context.newPage();
      return new ChromiumBackend(context, page);
    },
    async close() {
      await browser.close();
    },
    /** The playwright Browser, for Chromium-only probes (CDP) in the benchmark. */
    native: browser,
  };
}

class ChromiumBackend {
  constructor(context, page) {
    this.context = context;
    this.page = page;
    this.errors = [];
    this.requests = [];
    this.console = [];
    page.on('pageerror', (error) => this.errors.push(error));
    // Every request of the context: the page's, its frames' and its workers'. `headers` are
    // those CDP reports at once; allHeaders() (every header sent) replaces them when known.
    context.on('request', (request) => {
      const entry = { url: request.url(), method: request.method(), headers: request.headers(), body: request.postData() ?? '' };
      this.requests.push(entry);
      request.allHeaders().then((headers) => (entry.headers = headers), () => {});
    });
    // Console messages of the context's pages and frames, and of their dedicated workers.
    const log = (message) => this.console.push(`${message.type()}: ${message.text()}`);
    context.on('console', log);
    page.on('worker', (worker) => worker.on('console', log));
  }

  consoleMessages() {
    return [...this.console];
  }

  /** Every cookie of the context (every origin). */
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
    if (kept && !kept.isDetached()) return kept;
    const element = await this.page.waitForSelector(frame, { state: 'attached' });
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
      if (!frame || this.frames.get(frame) !== content || !content.isDetached()) throw error;
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
    await handle.fill(value);
  }

  async setFiles(handle, filePath) {
    await handle.setInputFiles(filePath);
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

  async download(action) {
    const [download] = await Promise.all([this.page.waitForEvent('download'), action()]);
    return download.path();
  }

  async close() {
    await this.context.close();
  }
}
