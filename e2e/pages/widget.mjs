// The widget's page object: what a user does with the widget (open it, fill the form, send,
// stop) and what the tests read from it (the run table, the readouts, the diagnosis, the
// stored history), in the terms of the page rather than of its markup. Built on the
// engine-neutral page of e2e/driver/page.mjs, so every method works alike in Chromium,
// Firefox and WebKit, in a page of its own or framed by a host page (e2e/pages/host.mjs).

/** The localStorage slot of the stored run history (the export's document). */
export const RUNS_SLOT = 'ttft-meter.runs.v1';

/** The form's fields, by the option names of {@link WidgetPage#fill}, in the order they are filled. */
const TEXT_FIELDS = [
  ['apiKey', 'api-key'],
  ['baseUrl', 'base-url'],
  ['model', 'model'],
  ['prompt', 'prompt'],
  ['runs', 'run-count'],
  ['timeoutS', 'timeout-s'],
];

export class WidgetPage {
  /**
   * `page` is a page of e2e/driver (a fresh browser context each); `root` is where the
   * widget's document is queried: the page itself, or a frame of it
   * (`page.frameLocator(css)`) where a host page embeds the widget.
   */
  constructor(page, root = page) {
    this.page = page;
    this.root = root;
  }

  /**
   * Opens the app under `base` (an origin, or an origin and the sub-path a host serves the
   * build under, without the last slash), with `query` ('?…': URL configuration), in a fresh
   * browser context (its own storage: history saved by another test cannot leak in), and
   * waits until it is ready ({@link WidgetPage#waitUntilReady}). `options` go to
   * `browser.newPage` (viewport, clipboard, observeRequests).
   */
  static async open(browser, base, query = '', options = {}) {
    return this.openAt(await browser.newPage(options), `${base}/${this.PATH}${query}`);
  }

  /** Navigates `page` (an open page, whose storage is kept) to `url` and waits until the app is ready. */
  static async openAt(page, url) {
    const widget = new this(page);
    await widget.goto(url);
    return widget;
  }

  /** The widget framed by `page` in the `<iframe>` matching `css`. */
  static framed(page, css = '#widget') {
    return new this(page, page.frameLocator(css));
  }

  /** The app's path under its origin: the widget is the root page. */
  static PATH = '';

  /** Navigates this page to `url` and waits until the app is ready. */
  async goto(url) {
    await this.page.goto(url);
    await this.waitUntilReady();
  }

  /** Reloads this page and waits until the app is ready again. */
  async reload() {
    await this.page.reload();
    await this.waitUntilReady();
  }

  /**
   * Waits until the wasm app has mounted (Send is shown) and its fetch worker is ready: the
   * worker is started at load, and a run sent before it is ready would wait for it (or its
   * click be lost). A page whose worker never reports ready fails with what it knows.
   */
  async waitUntilReady() {
    await this.byTestId('send').waitFor({ state: 'visible', timeout: 20_000 });
    try {
      await this.locator('[data-testid=app][data-transport=worker]').waitFor({ timeout: 10_000 });
    } catch (error) {
      throw new Error(`${error.message}\n${await this.#transportReport()}`, { cause: error });
    }
  }

  byTestId(testId) {
    return this.root.getByTestId(testId);
  }

  locator(css) {
    return this.root.locator(css);
  }

  /** Runs `fn(arg)` in the widget's document. */
  evaluate(fn, arg) {
    return this.root.evaluate(fn, arg);
  }

  // The form.

  /**
   * Fills the form as a user does; only the fields given change. Text fields: `apiKey`,
   * `baseUrl`, `model`, `prompt`, `runs`, `timeoutS` (filled in that order: a key belongs to
   * the base URL shown when it is typed); `protocol` (a choice); `warmup`, `ttftOnly`
   * (checkboxes).
   */
  async fill({ protocol, warmup, ttftOnly, ...texts } = {}) {
    for (const [name, testId] of TEXT_FIELDS) {
      if (name === 'model' && protocol !== undefined) await this.byTestId('protocol').selectOption(protocol);
      if (texts[name] !== undefined) await this.byTestId(testId).fill(String(texts[name]));
    }
    if (warmup !== undefined) await this.byTestId('warmup').setChecked(warmup);
    if (ttftOnly !== undefined) await this.byTestId('ttft-only').setChecked(ttftOnly);
  }

  /** Clicks Send. */
  async send() {
    await this.byTestId('send').click();
  }

  /**
   * Fills the form (`fields`, as {@link WidgetPage#fill}), clicks Send, answers the key
   * question with `consent` ('send' or 'refuse') when it is asked, and waits until the
   * series has ended: every run of it is in the table (a warm-up run too) and Send is
   * enabled again. Resolves to the newest run's `{ outcome, cause }` (`cause`: its
   * diagnosis, null for a good run).
   */
  async measure({ consent = null, timeout, ...fields } = {}) {
    await this.fill(fields);
    // The series as the form now says: its run count, and a warm-up run when it is checked.
    const series = await this.evaluate(() => ({
      rows: document.querySelectorAll('[data-testid=run-row]').length,
      runs: Number(document.querySelector('[data-testid=run-count]')?.value || 1),
      warmup: document.querySelector('[data-testid=warmup]')?.checked === true,
    }));
    const expected = series.rows + series.runs + (series.warmup ? 1 : 0);
    await this.send();
    if (consent) {
      await this.byTestId('key-consent').waitFor({ timeout: 5_000 });
      await this.byTestId(consent === 'send' ? 'key-consent-send' : 'key-consent-refuse').click();
    }
    await this.root.waitForFunction(
      (count) => document.querySelectorAll('[data-testid=run-row]').length >= count
        && !document.querySelector('[data-testid=send]').disabled,
      expected,
      { timeout: timeout ?? Math.max(60_000, ((fields.timeoutS ?? 0) + 30) * 1000) },
    );
    const outcome = await this.runRows.last().getAttribute('data-outcome');
    // A failed run's diagnosis may be drawn a frame after its row.
    if (outcome === 'failed') await this.diagnosis.waitFor({ state: 'attached', timeout: 5_000 });
    return { outcome, cause: (await this.diagnosis.count()) > 0 ? await this.diagnosis.getAttribute('data-cause') : null };
  }

  /** Waits until Send is enabled again (the series is over). */
  async waitForIdle({ timeout = 30_000 } = {}) {
    await this.root.waitForFunction(() => !document.querySelector('[data-testid=send]').disabled, undefined, { timeout });
  }

  /** Waits until the table lists `count` runs and the series is over (Stop is disabled). */
  async waitForRuns(count, { timeout = 60_000 } = {}) {
    await this.runRows.nth(count - 1).waitFor({ timeout });
    await this.root.waitForFunction(() => !document.querySelector('[data-testid=stop]:not([disabled])'), undefined, { timeout: 30_000 });
  }

  // What the page shows.

  /** Every row of the run table (oldest first). */
  get runRows() {
    return this.byTestId('run-row');
  }

  /** The table's row of run `number` (1-based). */
  row(number) {
    return this.locator(`[data-testid=run-row][data-run="${number}"]`);
  }

  /**
   * The metric cells of run `number`, as numbers (NaN for "—"), keyed by metric
   * (`ttfa_ms`, …; the extra columns only after `showMoreColumns`).
   */
  async rowMetrics(number) {
    // Texts cross the driver (WebDriver's JSON has no NaN); numbers are made here.
    const cells = await this.rowTexts(number);
    return Object.fromEntries(Object.entries(cells).map(([metric, text]) => [metric, Number(text)]));
  }

  /** The metric cells of run `number`, as shown (one-decimal texts), keyed by metric. */
  async rowTexts(number) {
    return this.row(number).evaluate((element) => Object.fromEntries(
      [...element.querySelectorAll('td[data-metric]')].map((cell) => [cell.dataset.metric, cell.textContent]),
    ));
  }

  /** Shows the run table's extra columns (network breakdown, UI delays). */
  async showMoreColumns() {
    await this.byTestId('more-columns').check();
  }

  /** A headline readout's exact value (`data-ms`, ms) once it is set. */
  async readoutMs(testId, { timeout = 15_000 } = {}) {
    const readout = this.byTestId(testId).and(this.locator('[data-ms]:not([data-ms=""])'));
    await readout.waitFor({ timeout });
    return Number(await readout.getAttribute('data-ms'));
  }

  /** The selected run's diagnosis (cause in `data-cause`, its text a cause and a fix). */
  get diagnosis() {
    return this.byTestId('run-detail').getByTestId('diagnosis');
  }

  /** The selected run's diagnosed cause. */
  async diagnosisCause() {
    return this.diagnosis.getAttribute('data-cause');
  }

  /** Copy link: resolves to the share link (the runs in its fragment) once the page has made it. */
  async copyShareLink() {
    await this.byTestId('copy-link').click();
    await this.root.waitForFunction(() => document.querySelector('[data-testid=share-link]')?.value.length > 0);
    return this.byTestId('share-link').inputValue();
  }

  // What the page keeps.

  /** The stored history document (localStorage), parsed, or null when there is none. */
  async storedHistory() {
    return this.evaluate((slot) => JSON.parse(localStorage.getItem(slot) ?? 'null'), RUNS_SLOT);
  }

  /** The stored history as the page wrote it (text), or null when there is none. */
  async storedHistoryText() {
    return this.evaluate((slot) => localStorage.getItem(slot), RUNS_SLOT);
  }

  /** The stored run records, oldest first ([] when none are stored). */
  async storedRuns() {
    return (await this.storedHistory())?.runs ?? [];
  }

  /** The stored record of run `number`, or undefined. */
  async storedRun(number) {
    return (await this.storedRuns()).find((record) => record.run_index === number);
  }

  /** Every string the page keeps: storage of both kinds, and the address. */
  async keptStrings() {
    return this.evaluate(() => {
      const dump = (storage) => Object.keys(storage).map((name) => `${name}=${storage.getItem(name)}`);
      return [...dump(localStorage), ...dump(sessionStorage), location.href].join('\n');
    });
  }

  /** Messages of the page's uncaught errors so far (driver: `page.pageErrors`). */
  async pageErrors() {
    return this.page.pageErrors();
  }

  async close() {
    await this.page.close();
  }

  /**
   * What the page knows about its fetch worker, for a page that never reported it ready: the
   * transport it shows, whether the worker script's request completed (Resource Timing), the
   * other requests still without a response end, and the console. WebKit pages opened after
   * earlier tests of the same browser have been seen in that state, with no known cause
   * (bench/REPORT.md): this is what such a page should tell.
   */
  async #transportReport() {
    const state = await this.evaluate(() => {
      const app = document.querySelector('[data-testid=app]');
      const entries = performance.getEntriesByType('resource').map((entry) => ({
        name: entry.name.replace(location.origin, ''),
        start_ms: Math.round(entry.startTime),
        end_ms: Math.round(entry.responseEnd),
      }));
      return {
        transport: app?.getAttribute('data-transport') ?? null,
        since_load_ms: Math.round(performance.now()),
        worker_script: entries.filter((entry) => entry.name.includes('fetch-worker')),
        unfinished: entries.filter((entry) => entry.end_ms === 0),
        crossOriginIsolated: globalThis.crossOriginIsolated ?? null,
      };
    }).catch(async (error) => ({
      evaluate_failed: `${error?.name ?? 'Error'}: ${error?.message ?? error}`,
      // WebKit: what the driver and the browser's processes say (e2e/driver/webkit.mjs).
      browser: await Promise.resolve().then(() => this.page.diagnose?.()).catch(() => null),
    }));
    // (A Playwright page of the budget test has neither: the report goes without them.)
    const consoleLines = await Promise.resolve().then(() => this.page.consoleMessages()).catch(() => []);
    const errors = await Promise.resolve().then(() => this.page.pageErrors()).catch(() => []);
    return `page state: ${JSON.stringify(state)}; page errors: ${JSON.stringify(errors)}; console (last 20): ${JSON.stringify(consoleLines.slice(-20))}`;
  }
}
