// WebKit: Debian's WebKitWebDriver (classic W3C WebDriver) driving WebKitGTK's MiniBrowser,
// through selenium-webdriver. MiniBrowser needs an X display: xvfb.mjs gives one when
// DISPLAY is not set (scripts/test.sh starts one Xvfb for the whole suite).
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Builder, Key } from 'selenium-webdriver';
import { recordLostPage } from './crashes.mjs';
import { startRecordingProxy } from './proxy.mjs';
import { ensureDisplay } from './xvfb.mjs';
import { fillAtOnce } from './query.mjs';

export const WEBKIT_DRIVER = '/usr/bin/WebKitWebDriver';
/** MiniBrowser as Debian's libwebkit2gtk-4.1-0 installs it (`dpkg -L libwebkit2gtk-4.1-0`). */
export const MINIBROWSER = '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** A free loopback port (asked of the kernel, then released for the driver to take). */
async function freePort() {
  const server = net.createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

// Playwright's key names, as the tests use them, to WebDriver's key codes.
const KEYS = { Tab: Key.TAB, Enter: Key.ENTER, Escape: Key.ESCAPE, Backspace: Key.BACK_SPACE };

// Records uncaught errors and rejections in the page. Classic WebDriver has no way to run a
// script before the page's own, so this is installed right after each navigation: an error
// thrown while the page starts is not seen here (the test then fails on the missing UI).
const ERROR_HOOK = `if (!window.__e2eErrors) {
  window.__e2eErrors = [];
  addEventListener('error', (event) => window.__e2eErrors.push(String(event.message)));
  addEventListener('unhandledrejection', (event) => window.__e2eErrors.push(String(event.reason)));
}`;

/**
 * Starts WebKitWebDriver on a free port with `env`. One driver serves one session at a time
 * ("Maximum number of active sessions"), so each page gets its own driver.
 */
async function startDriver(env) {
  const port = await freePort();
  // Its own process group: MiniBrowser and WebKit's helper processes, which the driver
  // starts, inherit it, so `stop` ends them all even when the session's quit failed. A
  // MiniBrowser left behind would keep this process alive (it holds the driver's stderr
  // pipe) and the test file would never exit, after every test had passed.
  const driver = spawn(WEBKIT_DRIVER, [`--port=${port}`], { stdio: ['ignore', 'ignore', 'pipe'], env, detached: true });
  let driverLog = '';
  driver.stderr.on('data', (data) => (driverLog = (driverLog + data).slice(-4000)));
  const url = `http://127.0.0.1:${port}`;
  for (let attempt = 0; ; attempt += 1) {
    try {
      const status = await fetch(`${url}/status`);
      if (status.ok) break;
    } catch {}
    if (attempt > 100 || driver.exitCode !== null) {
      stopGroup(driver);
      throw new Error(`WebKitWebDriver did not start on ${url}: ${driverLog}`);
    }
    await sleep(100);
  }
  return { url, pid: driver.pid, log: () => driverLog, stop: () => stopGroup(driver) };
}

/** The processes of `pgid`'s group (the driver, its MiniBrowser and WebKit's helpers). */
function groupProcesses(pgid) {
  try {
    return execFileSync('ps', ['-o', 'pid=,stat=,etimes=,rss=,comm=', '-g', String(pgid)], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .map((line) => line.trim().replace(/\s+/g, ' '));
  } catch (error) {
    return [`ps failed: ${error.message}`];
  }
}

/** Ends a detached child and everything in its process group, and lets go of its pipes. */
function stopGroup(child) {
  try {
    process.kill(-child.pid, 'SIGTERM');
  } catch {
    child.kill('SIGTERM');
  }
  child.stderr?.destroy();
  child.unref();
}

// Records the page's console calls. WebKitWebDriver has no log command (and this build no
// BiDi), and MiniBrowser's --enable-write-console-messages-to-stdout prints nothing under
// automation, so the calls are recorded in each document by wrapping `console`: installed
// after each navigation and in a frame whenever the driver enters it. Not seen: messages
// before that, a worker's console, and messages the browser itself writes.
const CONSOLE_HOOK = `if (!window.__e2eConsole) {
  window.__e2eConsole = [];
  for (const type of ['log', 'info', 'warn', 'error', 'debug', 'trace', 'dir']) {
    const original = console[type];
    console[type] = function (...values) {
      try {
        window.__e2eConsole.push(type + ': ' + values.map((value) => (typeof value === 'string' ? value : (() => { try { return JSON.stringify(value); } catch { return String(value); } })())).join(' '));
      } catch {}
      return original.apply(this, values);
    };
  }
  addEventListener('error', (event) => window.__e2eConsole.push('pageerror: ' + event.message));
}`;

// MiniBrowser's toolbar makes its window at least about 450 px wide; the test layout at
// 360 px needs a narrower one. A GTK style for the browser's own widgets (never the page's)
// lets the window shrink.
const GTK_CSS = `* { font-size: 1px; min-width: 0; min-height: 0; padding: 0; margin: 0; border-width: 0; }
entry { min-width: 0; }
`;

/** WebKitGTK's version, as Debian's package states it (MiniBrowser --version needs a display). */
function webkitVersion() {
  try {
    return `WebKitGTK ${execFileSync('dpkg-query', ['-W', '-f', '${Version}', 'libwebkit2gtk-4.1-0'], { encoding: 'utf8' }).trim()}`;
  } catch {
    return 'WebKitGTK';
  }
}

export async function launchWebKit({ trust = null } = {}) {
  const display = await ensureDisplay();
  // Downloads land in XDG_DOWNLOAD_DIR, which GLib reads from $XDG_CONFIG_HOME/user-dirs.dirs.
  const home = mkdtempSync(path.join(os.tmpdir(), 'e2e-webkit-'));
  const downloads = path.join(home, 'downloads');
  mkdirSync(path.join(home, 'config', 'gtk-3.0'), { recursive: true });
  mkdirSync(downloads);
  writeFileSync(path.join(home, 'config', 'user-dirs.dirs'), `XDG_DOWNLOAD_DIR="${downloads}"\n`);
  writeFileSync(path.join(home, 'config', 'gtk-3.0', 'gtk.css'), GTK_CSS);
  // trustCertificate (index.mjs): WebKitWebDriver's `certificates` browser option makes the
  // session allow exactly this certificate for each host (webkit_web_context_allow_tls_
  // certificate_for_host), on any port, in the page and its workers.
  let certificates = [];
  if (trust) {
    const certificateFile = path.join(home, 'trusted-certificate.pem');
    writeFileSync(certificateFile, trust.certPem);
    certificates = ['127.0.0.1', 'localhost'].map((host) => ({ host, certificateFile }));
  }
  const env = {
    ...process.env,
    DISPLAY: display.name,
    XDG_CONFIG_HOME: path.join(home, 'config'),
    // WebKitGTK's bubblewrap sandbox cannot start as root in this container.
    WEBKIT_DISABLE_SANDBOX_THIS_IS_DANGEROUS: '1',
  };
  return {
    version: webkitVersion(),
    async newBackend({ viewport, observeRequests = false }) {
      const driver = await startDriver(env);
      let session = null;
      // Requests are observed through a recording proxy for every host (loopback too).
      const proxy = observeRequests ? await startRecordingProxy() : null;
      try {
        // Each session is a new MiniBrowser process with its own ephemeral website data.
        session = await new Builder()
          .usingServer(driver.url)
          .withCapabilities({
            browserName: 'MiniBrowser',
            'webkitgtk:browserOptions': {
              binary: MINIBROWSER,
              args: ['--automation', ...(proxy ? [`--proxy=${proxy.url}`] : [])],
              ...(certificates.length ? { certificates } : {}),
            },
          })
          .build();
        await session.manage().setTimeouts({ script: 300_000, pageLoad: 60_000 });
        const backend = new WebKitBackend(session, downloads, driver, proxy);
        await backend.setViewport(viewport);
        return backend;
      } catch (error) {
        await session?.quit().catch(() => {});
        driver.stop();
        await proxy?.stop();
        throw error;
      }
    },
    async close() {
      await display.release();
    },
    native: null,
  };
}

class WebKitBackend {
  constructor(session, downloads, driver, proxy) {
    this.session = session;
    this.downloads = downloads;
    this.driver = driver;
    this.proxy = proxy;
    // Without the proxy (newPage's observeRequests), classic WebDriver reports no requests.
    this.requests = proxy ? proxy.requests : null;
    this.errors = [];
    // Console lines of documents left behind by a navigation.
    this.console = [];
    // Every command goes through `execute`: the first one to find the session deleted
    // (WebKit's web process crashed or hung) records the loss, with what the driver said.
    this.lost = null;
    const execute = session.execute.bind(session);
    session.execute = async (...args) => {
      try {
        return await execute(...args);
      } catch (error) {
        if (error?.name === 'NoSuchSessionError' && !this.lost) {
          this.lost = { engine: 'webkit', message: error.message || '(no message)', ...this.#browserSide() };
          recordLostPage(this.lost);
        }
        throw error;
      }
    };
  }

  /** Sizes the window so that the page's viewport is `width` × `height` CSS pixels. */
  async setViewport({ width, height }) {
    const window = this.session.manage().window();
    let target = { width, height };
    // The window manager-less X server applies a resize asynchronously: read back, correct
    // by the difference, repeat.
    for (let attempt = 0; attempt < 10; attempt += 1) {
      await window.setRect(target);
      await sleep(50 * attempt);
      const inner = await this.session.executeScript('return [innerWidth, innerHeight]');
      if (inner[0] === width && inner[1] === height) return;
      const rect = await window.getRect();
      target = { width: rect.width + width - inner[0], height: rect.height + height - inner[1] };
    }
    const inner = await this.session.executeScript('return [innerWidth, innerHeight]');
    throw new Error(`MiniBrowser's viewport is ${inner.join('×')}, not ${width}×${height}`);
  }

  async #inFrame(frame, work, { reveal = false } = {}) {
    if (!frame) return work();
    const element = await this.session.executeScript(
      `const frame = document.querySelector(${JSON.stringify(frame)});
       if (frame && ${reveal}) frame.scrollIntoView({ block: 'center' });
       return frame;`,
    );
    if (!element) throw new Error(`no ${frame} yet`);
    await this.session.switchTo().frame(element);
    try {
      await this.session.executeScript(CONSOLE_HOOK);
      return await work();
    } finally {
      await this.session.switchTo().defaultContent();
    }
  }

  async evaluate(frame, expression) {
    // WebDriver's Execute Script awaits a returned promise.
    return this.#inFrame(frame, () => this.session.executeScript(`return ${expression}`));
  }

  async handle(frame, expression) {
    return this.#inFrame(frame, () => this.session.executeScript(`return ${expression}`));
  }

  async click(element, frame) {
    // WebKitWebDriver's click misses an element of a frame that is partly off screen: bring
    // the frame, then the element, to the middle of the view first.
    await this.#inFrame(frame, async () => {
      await this.session.executeScript("arguments[0].scrollIntoView({ block: 'center' })", element);
      await element.click();
    }, { reveal: true });
  }

  async fill(element, value, frame) {
    await this.#inFrame(frame, async () => {
      // A click first brings the field (and its frame) into view and focuses it: Element
      // Clear on a field in an off-screen frame fails with "Element is not focusable".
      await this.session.executeScript("arguments[0].scrollIntoView({ block: 'center' })", element);
      await element.click();
      // Element Clear empties the field (and fires change). A text field then gets its whole
      // value at once and one input event, as Playwright's fill does in Chromium (insertText)
      // and e2e/driver/firefox.mjs does: typing it key by key cost about 150 ms for a long
      // model name, in every run's form. Other fields are typed.
      await element.clear();
      if (value !== '') {
        const filledAtOnce = await this.session.executeScript(`return (${fillAtOnce})(arguments[0], arguments[1]);`, element, value);
        if (!filledAtOnce) await element.sendKeys(value);
      } else {
        await this.session.executeScript(
          'arguments[0].dispatchEvent(new InputEvent("input", { bubbles: true, inputType: "deleteContentBackward" }))',
          element,
        );
      }
    });
  }

  async setFiles(element, filePath, frame) {
    await this.#inFrame(frame, () => element.sendKeys(filePath));
  }

  async press(key) {
    const code = KEYS[key] ?? key;
    await this.session.actions().keyDown(code).keyUp(code).perform();
  }

  async goto(url) {
    await this.#keepConsole();
    await this.session.get(url);
    await this.#hookErrors();
  }

  async reload() {
    await this.#keepConsole();
    await this.session.navigate().refresh();
    await this.#hookErrors();
  }

  async #hookErrors() {
    await this.session.executeScript(`${ERROR_HOOK}\n${CONSOLE_HOOK}`);
  }

  /** Keeps the console lines of the current documents before they are replaced. */
  async #keepConsole() {
    this.console.push(...(await this.#currentConsole().catch(() => [])));
  }

  /** Console lines recorded in the page and in each of its frames (one level deep). */
  async #currentConsole() {
    const lines = [...((await this.session.executeScript('return window.__e2eConsole || []')) ?? [])];
    const frames = await this.session.executeScript('return [...document.querySelectorAll("iframe")]');
    for (const frame of frames ?? []) {
      try {
        await this.session.switchTo().frame(frame);
        lines.push(...((await this.session.executeScript('return window.__e2eConsole || []')) ?? []));
      } catch {
        // A frame without a document yet.
      } finally {
        await this.session.switchTo().defaultContent();
      }
    }
    return lines;
  }

  async consoleMessages() {
    return [...this.console, ...(await this.#currentConsole().catch(() => []))];
  }

  /** Cookies of the page's and its frames' documents (WebDriver's Get All Cookies in each). */
  async cookies() {
    const cookies = [...(await this.session.manage().getCookies())];
    const frames = await this.session.executeScript('return [...document.querySelectorAll("iframe")]');
    for (const frame of frames ?? []) {
      try {
        await this.session.switchTo().frame(frame);
        cookies.push(...(await this.session.manage().getCookies()));
      } finally {
        await this.session.switchTo().defaultContent();
      }
    }
    return cookies;
  }

  async url() {
    return this.session.getCurrentUrl();
  }

  async screenshot(filePath, { fullPage }) {
    // W3C WebDriver screenshots the viewport; the whole page is the <html> element's shot.
    const base64 = fullPage
      ? await (await this.session.executeScript('return document.documentElement')).takeScreenshot()
      : await this.session.takeScreenshot();
    writeFileSync(filePath, Buffer.from(base64, 'base64'));
  }

  async elementScreenshot(element, filePath, frame) {
    const base64 = await this.#inFrame(frame, () => element.takeScreenshot());
    writeFileSync(filePath, Buffer.from(base64, 'base64'));
  }

  async pageErrors() {
    try {
      const seen = await this.session.executeScript('return window.__e2eErrors || []');
      return seen;
    } catch {
      return [];
    }
  }

  async download(action) {
    const before = new Set(readdirSync(this.downloads));
    await action();
    const deadline = Date.now() + 15_000;
    while (Date.now() < deadline) {
      const fresh = readdirSync(this.downloads).filter((name) => !before.has(name) && !/\.(part|download|wkdownload)$/.test(name));
      const done = fresh.find((name) => statSync(path.join(this.downloads, name)).size > 0 && !existsSync(path.join(this.downloads, `${name}.wkdownload`)));
      if (done) return path.join(this.downloads, done);
      await sleep(50);
    }
    throw new Error(`No download arrived in ${this.downloads} within 15 s`);
  }

  /**
   * What the browser's side can tell when the page stops answering scripts: a trivial
   * script's result or error (its WebDriver error name), the window's URL, the processes of
   * this session (state, seconds alive, resident KiB) and the end of the driver's log.
   */
  async diagnose() {
    const attempt = (work) => work().then(
      (value) => ({ ok: value }),
      (error) => ({ error: `${error?.name ?? 'Error'}: ${error?.message ?? error}`.slice(0, 300) }),
    );
    return {
      script: await attempt(() => this.session.executeScript('return document.readyState')),
      url: await attempt(() => this.session.getCurrentUrl()),
      ...this.#browserSide(),
    };
  }

  /** This session's processes and the end of its driver's log. */
  #browserSide() {
    return { processes: groupProcesses(this.driver.pid), driver_log: this.driver.log().slice(-1500) };
  }

  async close() {
    await this.session.quit().catch(() => {});
    this.driver.stop();
    await this.proxy?.stop();
  }
}
