// The engine-neutral page and locator the tests use. Every query runs in the page (query.mjs),
// every wait polls from node, and only the few things a page cannot do to itself (a real
// click, typing, choosing a file, a key press, a screenshot, a download) go to the engine's
// backend (chromium.mjs, firefox.mjs, webkit.mjs).
import { writeFileSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { RESOLVE_SOURCE, STATE_SOURCE, callExpression, textStep } from './query.mjs';

/** Default time to wait for an element or a condition, as Playwright's test timeout did. */
export const DEFAULT_TIMEOUT_MS = 30_000;
const POLL_MS = 50;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Polls `probe` (async, returns a value; `undefined` means "not yet") until it yields, or
 * throws after `timeoutMs` with `what` and the last (and first) error seen (a navigation
 * can make a probe fail for a moment).
 */
async function poll(probe, timeoutMs, what) {
  const deadline = Date.now() + timeoutMs;
  let firstError = null;
  let lastError = null;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      firstError ??= error;
      lastError = error;
    }
    if (Date.now() >= deadline) {
      // The first error too: a lost WebDriver session says why only once.
      const said = (error) => `${error.name ?? 'Error'}: ${error.message}`;
      const cause = lastError
        ? ` (last error: ${said(lastError)}${firstError.message !== lastError.message ? `; first: ${said(firstError)}` : ''})`
        : '';
      throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}${cause}`);
    }
    await sleep(POLL_MS);
  }
}

/** Runs `fn` (a function or its source) with `arg` in `frame` of the page. */
function evaluateIn(backend, frame, fn, arg) {
  return backend.evaluate(frame, callExpression(fn.toString(), arg));
}

/** A query for elements in one document (the page, or an iframe of it); lazy, like Playwright's. */
export class Locator {
  constructor(page, frame, steps) {
    this.page = page;
    this.frame = frame;
    this.steps = steps;
  }

  #extend(step) {
    return new Locator(this.page, this.frame, [...this.steps, step]);
  }

  /** Descendants matching a CSS selector. */
  locator(css) {
    return this.#extend({ css });
  }

  /** Descendants with this `data-testid`. */
  getByTestId(testId) {
    return this.locator(`[data-testid="${testId}"]`);
  }

  /** Elements matched by this and by `other` (a query from the same document's root). */
  and(other) {
    return this.#extend({ and: other.steps });
  }

  /** Keeps elements whose text has (or has not) a string or pattern. */
  filter({ hasText, hasNotText }) {
    let next = this;
    if (hasText !== undefined) next = next.#extend(textStep(hasText));
    if (hasNotText !== undefined) next = next.#extend(textStep(hasNotText, 'notText'));
    return next;
  }

  nth(index) {
    return this.#extend({ nth: index });
  }

  first() {
    return this.nth(0);
  }

  last() {
    return this.nth(-1);
  }

  #evaluateFirst(fn, arg) {
    const expression = `(${fn})(${RESOLVE_SOURCE}(${JSON.stringify(this.steps)})[0], ${JSON.stringify(arg ?? null)})`;
    return this.page.backend.evaluate(this.frame, expression);
  }

  #describe() {
    return `${JSON.stringify(this.steps)}${this.frame ? ` in frame ${this.frame}` : ''}`;
  }

  /** The element's state: attached, visible, enabled. */
  #state() {
    return evaluateIn(this.page.backend, this.frame, STATE_SOURCE, this.steps);
  }

  async count() {
    return this.page.backend.evaluate(this.frame, `${RESOLVE_SOURCE}(${JSON.stringify(this.steps)}).length`);
  }

  /** Waits until the first match is `visible` (default), `attached`, `hidden` or `detached`. */
  async waitFor({ state = 'visible', timeout = DEFAULT_TIMEOUT_MS } = {}) {
    await poll(
      async () => {
        const now = await this.#state();
        const reached = {
          visible: now.visible,
          attached: now.attached,
          hidden: !now.visible,
          detached: !now.attached,
        }[state];
        return reached ? true : undefined;
      },
      timeout,
      `${this.#describe()} to be ${state}`,
    );
  }

  /** Runs `fn(element, arg)` in the page on the first match, once there is one. */
  async evaluate(fn, arg, { timeout = DEFAULT_TIMEOUT_MS } = {}) {
    await this.waitFor({ state: 'attached', timeout });
    return this.#evaluateFirst(fn.toString(), arg);
  }

  /** Runs `fn(elements, arg)` in the page on every match (possibly none). */
  async evaluateAll(fn, arg) {
    const expression = `(${fn})(${RESOLVE_SOURCE}(${JSON.stringify(this.steps)}), ${JSON.stringify(arg ?? null)})`;
    return this.page.backend.evaluate(this.frame, expression);
  }

  async getAttribute(name, options) {
    return this.evaluate((element, attribute) => element.getAttribute(attribute), name, options);
  }

  async textContent(options) {
    return this.evaluate((element) => element.textContent, undefined, options);
  }

  async inputValue(options) {
    return this.evaluate((element) => element.value, undefined, options);
  }

  async allTextContents() {
    return this.evaluateAll((elements) => elements.map((element) => element.textContent));
  }

  async isChecked() {
    return this.evaluate((element) => element.checked);
  }

  /** The engine's own handle on the first match, once it is visible and enabled. */
  async #actionable(timeout = DEFAULT_TIMEOUT_MS) {
    await poll(
      async () => {
        const now = await this.#state();
        return now.visible && now.enabled ? true : undefined;
      },
      timeout,
      `${this.#describe()} to be visible and enabled`,
    );
    return this.#handle();
  }

  async #handle() {
    const handle = await this.page.backend.handle(this.frame, `${RESOLVE_SOURCE}(${JSON.stringify(this.steps)})[0]`);
    if (!handle) throw new Error(`No element for ${this.#describe()}`);
    return handle;
  }

  /** A real click (the engine's input events), after waiting until it can take one. */
  async click({ timeout } = {}) {
    await this.page.backend.click(await this.#actionable(timeout), this.frame);
  }

  /** Replaces the field's text as a user would (the engine's own fill or typing). */
  async fill(value, { timeout } = {}) {
    await this.page.backend.fill(await this.#actionable(timeout), String(value), this.frame);
  }

  /** Clicks a checkbox until it is in the wanted state. */
  async setChecked(checked) {
    if ((await this.isChecked()) !== checked) await this.click();
    if ((await this.isChecked()) !== checked) throw new Error(`${this.#describe()} did not become checked=${checked}`);
  }

  async check() {
    await this.setChecked(true);
  }

  /**
   * Chooses an option of a `<select>` by value, and fires `input` and `change` as a user's
   * choice does (what Playwright's selectOption does too).
   */
  async selectOption(value) {
    await this.#actionable();
    const chosen = await this.#evaluateFirst(
      ((element, wanted) => {
        if (![...element.options].some((option) => option.value === wanted)) return false;
        element.value = wanted;
        element.dispatchEvent(new Event('input', { bubbles: true }));
        element.dispatchEvent(new Event('change', { bubbles: true }));
        return true;
      }).toString(),
      value,
    );
    if (!chosen) throw new Error(`${this.#describe()} has no option ${value}`);
  }

  /**
   * Chooses a file in an `<input type=file>`: a path, or `{ name, buffer }` written to a
   * temporary file first (the engines take paths).
   */
  async setInputFiles(file) {
    await this.waitFor({ state: 'attached' });
    let filePath = file;
    if (typeof file !== 'string') {
      const directory = mkdtempSync(path.join(os.tmpdir(), 'e2e-upload-'));
      filePath = path.join(directory, file.name);
      writeFileSync(filePath, file.buffer);
    }
    await this.page.backend.setFiles(await this.#handle(), filePath, this.frame);
  }

  /** A PNG of the first match. */
  async screenshot({ path: filePath }) {
    await this.waitFor();
    await this.page.backend.elementScreenshot(await this.#handle(), filePath, this.frame);
  }
}

/** One page in a fresh browser context (its own storage and connections). */
export class Page {
  constructor(engine, backend) {
    this.engine = engine;
    this.backend = backend;
    this.keyboard = { press: (key) => backend.press(key) };
  }

  /**
   * Messages of the page's uncaught errors so far. WebKit's hook is installed after each
   * navigation (webkit.mjs): errors thrown while the page starts are not seen there.
   */
  async pageErrors() {
    if (this.backend.pageErrors) return this.backend.pageErrors();
    return this.backend.errors.map((error) => String(error?.message ?? error));
  }

  /**
   * Requests the browser made (the page, its frames and their workers), as `{ url, method,
   * headers, body }`. Chromium (CDP) and Firefox (BiDi; `body` may be '') always report
   * them; WebKit only in a page opened with `observeRequests` (a recording proxy: classic
   * WebDriver has no network events), else null.
   */
  get requests() {
    return this.backend.requests;
  }

  /**
   * Console messages so far, as `type: text` lines. Chromium and Firefox: every console
   * call of the page and its frames (Chromium: and their workers), through the engine's log
   * events. WebKit: calls made by the scripts of the page and its frames after the driver
   * first reached them (webkit.mjs says why).
   */
  async consoleMessages() {
    return this.backend.consoleMessages();
  }

  /** What the browser's side says of a page that stopped answering (WebKit), else null. */
  async diagnose() {
    return this.backend.diagnose ? this.backend.diagnose() : null;
  }

  /**
   * Cookies: Chromium and Firefox every cookie of the page's context; WebKit those of the
   * page's and its frames' documents (WebDriver's Get All Cookies).
   */
  async cookies() {
    return this.backend.cookies();
  }

  async goto(url) {
    await this.backend.goto(url);
  }

  async reload() {
    await this.backend.reload();
  }

  async url() {
    return this.backend.url();
  }

  async evaluate(fn, arg) {
    return evaluateIn(this.backend, null, fn, arg);
  }

  /** Waits until `fn(arg)` is truthy in the page; returns its value. */
  async waitForFunction(fn, arg, { timeout = DEFAULT_TIMEOUT_MS } = {}) {
    return poll(
      async () => (await evaluateIn(this.backend, null, fn, arg)) || undefined,
      timeout,
      `${fn.toString().slice(0, 120)} to be true`,
    );
  }

  async waitForTimeout(ms) {
    await sleep(ms);
  }

  locator(css) {
    return new Locator(this, null, [{ css }]);
  }

  getByTestId(testId) {
    return this.locator(`[data-testid="${testId}"]`);
  }

  /** The document of the `<iframe>` matching `css` (in the page itself), to query inside. */
  frameLocator(css) {
    return {
      locator: (inner) => new Locator(this, css, [{ css: inner }]),
      getByTestId: (testId) => new Locator(this, css, [{ css: `[data-testid="${testId}"]` }]),
      /** Runs `fn(arg)` in the frame's document. */
      evaluate: (fn, arg) => evaluateIn(this.backend, css, fn, arg),
      /** Waits until `fn(arg)` is truthy in the frame's document; returns its value. */
      waitForFunction: (fn, arg, { timeout = DEFAULT_TIMEOUT_MS } = {}) =>
        poll(
          async () => (await evaluateIn(this.backend, css, fn, arg)) || undefined,
          timeout,
          `${fn.toString().slice(0, 120)} to be true in ${css}`,
        ),
    };
  }

  /**
   * Reads the clipboard as a user's paste does: from a click (a real user gesture, which
   * WebKit requires for navigator.clipboard.readText) on a button added for the purpose.
   */
  async readClipboard() {
    await this.evaluate(() => {
      const button = document.createElement('button');
      button.id = 'e2e-paste';
      button.textContent = 'paste';
      button.style.cssText = 'position:fixed;top:0;left:0;z-index:2147483647';
      button.addEventListener('click', () => {
        window.e2ePaste = navigator.clipboard.readText().then(
          (text) => ({ text }),
          (error) => ({ error: `${error.name}: ${error.message}` }),
        );
      });
      document.body.append(button);
    });
    await this.locator('#e2e-paste').click();
    const result = await this.evaluate(async () => {
      const pasted = await window.e2ePaste;
      document.getElementById('e2e-paste').remove();
      return pasted;
    });
    if (result.error) throw new Error(`${this.engine} refused to read the clipboard: ${result.error}`);
    return result.text;
  }

  /** Adds a stylesheet to the page. */
  async addStyleTag({ content }) {
    await this.evaluate((css) => {
      const style = document.createElement('style');
      style.textContent = css;
      document.head.append(style);
    }, content);
  }

  /** A PNG of the viewport, or of the whole page with `fullPage`. */
  async screenshot({ path: filePath, fullPage = false }) {
    await this.backend.screenshot(filePath, { fullPage });
  }

  /**
   * Runs `action` (which should start a file download) and resolves to the downloaded
   * file's path once it is complete.
   */
  async download(action) {
    return this.backend.download(action);
  }

  async close() {
    await this.backend.close();
  }
}
