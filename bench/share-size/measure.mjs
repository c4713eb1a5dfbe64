// Link lengths per codec for share data of 10, 100 and 500 runs, in the columnar JSON form
// of ttft-core's share wire, with the jittered sample of share.rs's tests (same generator).
// Each codec's decode(encode(x)) is checked to give x back.
import { deepStrictEqual } from 'node:assert';
import { readFileSync } from 'node:fs';
import path from 'node:path';

const dir = process.argv[2] ?? 'out';
const PREFIX = 'share=v1.';

function sample(runs) {
  let state = 0x9e3779b97f4a7c15n;
  const mask = (1n << 64n) - 1n;
  const next = (spread) => {
    state = (state * 6364136223846793005n + 1442695040888963407n) & mask;
    const unit = Number(state >> 33n) / 2 ** 31;
    return Math.round(unit * spread * 10) / 10;
  };
  const round = (x) => Math.round(x * 10) / 10;
  const cols = { ttft: [], ttfa: [], ttfr: [], perceived_ttfa: [], first_chunk: [], e2e: [], itl: [] };
  const index = [], label = [], cohort = [], outcome = [], cold = [];
  for (let i = 0; i < runs; i++) {
    const ttft = 180 + next(600);
    index.push(i + 1); label.push(null); cohort.push(i === 0 ? 0 : 1); outcome.push(0); cold.push(i === 0);
    cols.ttft.push(round(ttft + 0.04)); cols.ttfa.push(round(ttft)); cols.ttfr.push(null);
    cols.perceived_ttfa.push(round(ttft + 8 + next(30))); cols.first_chunk.push(round(60 + next(40)));
    cols.e2e.push(round(ttft + 400 + next(300))); cols.itl.push(round(15 + next(10)));
  }
  return JSON.stringify({
    tool: '0.1.0', at: '2026-11-29T16:45:10.123Z', host: 'api.openai.com', model: 'gpt-4o-mini',
    protocol: 'open_ai_chat', env: 'Chrome 156 · 4g', slo: 'ttfa_ms<=800',
    cohorts: runs > 1 ? ['cold', 'warm'] : ['cold'], outcomes: ['completed'],
    index, label, cohort, outcome, cold, ...cols,
  });
}

const rows = [];
for (const variant of ['none', 'deflate', 'varint']) {
  const bytes = readFileSync(path.join(dir, `${variant}.opt.wasm`));
  const { instance } = await WebAssembly.instantiate(bytes, {});
  const { memory, buffer, encode, decode } = instance.exports;
  const row = { variant };
  for (const runs of [10, 100, 500]) {
    const json = Buffer.from(sample(runs));
    const view = () => new Uint8Array(memory.buffer, buffer(), 1 << 20);
    view().set(json);
    const length = encode(json.length); // may grow memory: take views afterwards
    const text = Buffer.from(view().slice(0, length));
    view().set(text);
    const backLength = decode(text.length);
    const back = Buffer.from(view().slice(0, backLength)).toString();
    deepStrictEqual(JSON.parse(back), JSON.parse(json.toString()), `${variant}: ${runs} runs`);
    row[`${runs} runs`] = `${PREFIX.length + length} B (json ${json.length})`;
  }
  rows.push(row);
}
console.table(rows);
