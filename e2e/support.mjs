// Shared end-to-end harness: a real ttft-sim on 127.0.0.1 serving the built page, and
// Debian's Chromium driven by playwright-core. Nothing here mocks fetch or the network.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

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

// Sims still running when node exits (an uncaught error) are stopped too.
const children = new Set();
process.once('exit', () => {
  for (const child of children) child.kill('SIGTERM');
});

/**
 * Starts ttft-sim (built by the test command; `profile: 'release'` for the benchmarks) on a
 * free loopback port, serving the built page unless `dist` is false.
 * Resolves to { url, stop } once it prints its listening line.
 */
export async function startSim(extraArgs = [], { profile = 'debug', dist = true } = {}) {
  const binary = path.join(ROOT, 'target', profile, 'ttft-sim');
  const args = ['--port', '0', ...(dist ? ['--dist', path.join(ROOT, 'dist')] : []), ...extraArgs];
  const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  children.add(child);
  child.once('exit', () => children.delete(child));
  let buffered = '';
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('ttft-sim did not start within 15 s')), 15_000);
    child.once('exit', (code) => reject(new Error(`ttft-sim exited early with ${code}`)));
    child.stdout.on('data', (data) => {
      buffered += data.toString();
      const match = buffered.match(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
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

/** Launches headless Debian Chromium (never a downloaded browser). */
export async function launchBrowser() {
  return chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS });
}

/**
 * Opens the widget in a fresh browser context (its own storage: history saved by another
 * test cannot leak in) and waits until the wasm app has mounted.
 */
export async function openWidget(browser, simUrl, query = '') {
  const context = await browser.newContext();
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (error) => errors.push(error));
  await page.goto(`${simUrl}/${query}`);
  await page.getByTestId('send').waitFor({ state: 'visible', timeout: 20_000 });
  // The fetch worker is started at load; a run sent before it is ready would wait for it.
  await page.locator('[data-testid=app][data-transport=worker]').waitFor({ timeout: 10_000 });
  return { page, errors };
}
