// An X display for WebKitGTK's MiniBrowser: $DISPLAY when set (scripts/test.sh starts one
// Xvfb for the suite), else an Xvfb of our own on a free display number, shared by every
// browser of this process and stopped when the last one is closed.
import { spawn } from 'node:child_process';

let shared = null;
let users = 0;

async function startXvfb() {
  // -displayfd: Xvfb picks a free display number and writes it to fd 3 once it is ready.
  const child = spawn('Xvfb', ['-displayfd', '3', '-screen', '0', '1920x1080x24', '-nolisten', 'tcp'], {
    stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (data) => (stderr += data));
  const number = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`Xvfb gave no display within 10 s: ${stderr}`)), 10_000);
    child.once('error', (error) => reject(new Error(`cannot start Xvfb (is the xvfb package installed?): ${error.message}`)));
    child.once('exit', (code) => reject(new Error(`Xvfb exited with ${code}: ${stderr}`)));
    let buffered = '';
    child.stdio[3].on('data', (data) => {
      buffered += data;
      if (buffered.includes('\n')) {
        clearTimeout(timer);
        resolve(buffered.trim());
      }
    });
  });
  process.once('exit', () => child.kill('SIGTERM'));
  return { name: `:${number}`, child };
}

/** Resolves to `{ name, release }`: the display to use, and a function to call when done. */
export async function ensureDisplay() {
  if (process.env.DISPLAY) return { name: process.env.DISPLAY, release: async () => {} };
  shared ??= startXvfb();
  users += 1;
  const display = await shared;
  return {
    name: display.name,
    async release() {
      users -= 1;
      if (users === 0) {
        shared = null;
        display.child.kill('SIGTERM');
      }
    },
  };
}
