// The floor under a flood, per engine (issue 23): how long a page's timers wait while a bare
// Worker reads a hostile stream to its end and throws it away, the page itself doing
// nothing. Whatever the widget does, it cannot wait less than this in that engine: in WebKit
// a Worker's network traffic passes through the page's main thread (docs/engines.md).
// Compare with the widget's own figure under the same flood (e2e/hostile.test.mjs logs
// `run's stall`; bench section 5b in Chromium).
//
// Usage: node bench/flood-floor.mjs [chromium,firefox,webkit]  (WebKit needs an X display:
// DISPLAY=:NN with Xvfb running; scripts/test.sh starts one). Needs dist/ and ttft-sim.
import { launch } from '../e2e/driver/index.mjs';
import { startSim } from '../e2e/support.mjs';
import { FLOODS } from './flood.mjs';

const engines = (process.argv[2] || 'chromium,firefox,webkit').split(',');
// --no-csp: the probe's Worker comes from a blob: URL, which the page's CSP refuses.
const sim = await startSim(['--no-csp']);
try {
  for (const engine of engines) {
    const browser = await launch(engine);
    try {
      for (const { name, model } of FLOODS) {
        const page = await browser.newPage();
        await page.goto(`${sim.url}/`);
        const result = await page.evaluate(async ({ url, model }) => {
          // The page's own start (the widget's wasm) is over before the probe begins.
          await new Promise((resolve) => setTimeout(resolve, 1500));
          const source = `onmessage = async (event) => {
            const response = await fetch(event.data.url, {
              method: 'POST',
              headers: { 'content-type': 'application/json', authorization: 'Bearer sk-floor' },
              body: JSON.stringify({ model: event.data.model, stream: true, messages: [{ role: 'user', content: 'Hi' }] }),
            });
            const reader = response.body.getReader();
            let bytes = 0;
            for (;;) {
              const { done, value } = await reader.read();
              if (done) break;
              bytes += value.length;
            }
            postMessage(bytes);
          };`;
          const worker = new Worker(URL.createObjectURL(new Blob([source], { type: 'text/javascript' })));
          // A chain of timers, as the widget's heartbeat and e2e/hostile's probe are.
          const gaps = [];
          let last = performance.now();
          let running = true;
          const turn = () => {
            const now = performance.now();
            if (now - last > 20) gaps.push(now - last);
            last = now;
            if (running) setTimeout(turn, 0);
          };
          setTimeout(turn, 0);
          const started = performance.now();
          const bytes = await new Promise((resolve) => {
            worker.onmessage = (event) => resolve(event.data);
            worker.postMessage({ url, model });
          });
          running = false;
          worker.terminate();
          return { bytes, wall_ms: Math.round(performance.now() - started), longest_timer_wait_ms: Math.round(Math.max(0, ...gaps)), waits_over_20_ms: gaps.length };
        }, { url: `${sim.url}/v1/chat/completions`, model }, { timeout: 180_000 });
        console.log(`${engine}, ${name}: ${JSON.stringify(result)}`);
      }
    } finally {
      await browser.close();
    }
  }
} finally {
  await sim.stop();
}
