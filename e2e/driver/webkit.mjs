// WebKit: Debian's WebKitWebDriver (classic W3C WebDriver) driving WebKitGTK's MiniBrowser,
// through selenium-webdriver. MiniBrowser needs an X display: xvfb.mjs gives one when
// DISPLAY is not set (scripts/test.sh starts one Xvfb for the whole suite).
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Builder, Key } from 'selenium-webdriver';
import { ensureDisplay } from './xvfb.mjs';

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

export async function launchWebKit() {
  const display = await ensureDisplay();
  // Downloads land in XDG_DOWNLOAD_DIR, which GLib reads from $XDG_CONFIG_HOME/user-dirs.dirs.
  const home = mkdtempSync(path.join(os.tmpdir(), 'e2e-webkit-'));
  const downloads = path.join(home, 'downloads');
  mkdirSync(path.join(home, 'config'), { recursive: true });
  mkdirSync(downloads);
  writeFileSync(path.join(home, 'config', 'user-dirs.dirs'), `XDG_DOWNLOAD_DIR="${downloads}"\n`);
  const port = await freePort();
  const driver = spawn(WEBKIT_DRIVER, [`--port=${port}`], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: {
      ...process.env,
      DISPLAY: display.name,
      XDG_CONFIG_HOME: path.join(home, 'config'),
      // WebKitGTK's bubblewrap sandbox cannot start as root in this container.
      WEBKIT_DISABLE_SANDBOX_THIS_IS_DANGEROUS: '1',
    },
  });
  let driverLog = '';
  driver.stderr.on('data', (data) => (driverLog = (driverLog + data).slice(-4000)));
  const url = `http://127.0.0.1:${port}`;
  // Wait for the driver's HTTP endpoint.
  for (let attempt = 0; ; attempt += 1) {
    try {
      const status = await fetch(`${url}/status`);
      if (status.ok) break;
    } catch {}
    if (attempt > 100) throw new Error(`WebKitWebDriver did not start on ${url}: ${driverLog}`);
    await sleep(100);
  }
  return {
    version: null,
    async newBackend({ viewport }) {
      // Each session is a new MiniBrowser process with its own ephemeral website data.
      const session = await new Builder()
        .usingServer(url)
        .withCapabilities({
          browserName: 'MiniBrowser',
          'webkitgtk:browserOptions': { binary: MINIBROWSER, args: ['--automation'] },
        })
        .build();
      await session.manage().setTimeouts({ script: 300_000, pageLoad: 60_000 });
      const backend = new WebKitBackend(session, downloads);
      await backend.setViewport(viewport);
      return backend;
    },
    async close() {
      driver.kill('SIGTERM');
      await display.release();
    },
    native: null,
  };
}

class WebKitBackend {
  constructor(session, downloads) {
    this.session = session;
    this.downloads = downloads;
    this.requests = null;
    this.errors = [];
  }

  /** Sizes the window so that the page's viewport is `width` × `height` CSS pixels. */
  async setViewport({ width, height }) {
    const window = this.session.manage().window();
    let target = { width, height };
    for (let attempt = 0; attempt < 3; attempt += 1) {
      await window.setRect(target);
      const inner = await this.session.executeScript('return [innerWidth, innerHeight]');
      if (inner[0] === width && inner[1] === height) return;
      const rect = await window.getRect();
      target = { width: rect.width + width - inner[0], height: rect.height + height - inner[1] };
    }
    const inner = await this.session.executeScript('return [innerWidth, innerHeight]');
    throw new Error(`MiniBrowser's viewport is ${inner.join('×')}, not ${width}×${height}`);
  }

  async #inFrame(frame, work) {
    if (!frame) return work();
    const element = await this.session.executeScript(`return document.querySelector(${JSON.stringify(frame)})`);
    if (!element) throw new Error(`no ${frame} yet`);
    await this.session.switchTo().frame(element);
    try {
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
    await this.#inFrame(frame, () => element.click());
  }

  async fill(element, value, frame) {
    await this.#inFrame(frame, async () => {
      // Element Clear empties the field (and fires change); typing fires input per key.
      await element.clear();
      if (value !== '') {
        await element.sendKeys(value);
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
    await this.session.get(url);
    await this.#hookErrors();
  }

  async reload() {
    await this.session.navigate().refresh();
    await this.#hookErrors();
  }

  async #hookErrors() {
    await this.session.executeScript(ERROR_HOOK);
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

  async close() {
    await this.session.quit();
  }
}
