// Prints the medians of run.sh's results.tsv (case, client, metric, value) as a Markdown table.
import fs from 'node:fs';
const rows = fs.readFileSync(process.argv[2], 'utf8').split('\n').filter(Boolean).map((l) => l.split('\t'));
const cases = [...new Set(rows.map((r) => r[0]))];
const med = (a) => { const s = a.slice().sort((x, y) => x - y); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
const cell = (c, client, metric) => {
  const v = rows.filter((r) => r[0] === c && r[1] === client && r[2] === metric).map((r) => r[3]);
  if (!v.length) return '–';
  if (metric === 'proto') return [...new Set(v)].join(',');
  const n = v.map(Number).filter((x) => Number.isFinite(x));
  return n.length ? `${med(n).toFixed(n.length && med(n) < 10 ? 1 : 0)} (${n.length})` : '–';
};
const cols = [
  ['nghttp HEADERS', 'nghttp', 'hdr'], ['nghttp 1st DATA', 'nghttp', 'data'],
  ['curl header (trace)', 'curl', 'hdr'], ['curl `time_starttransfer`', 'curl', 'starttransfer'],
  ['Chromium fetch() resolved', 'chromium', 't_headers'], ['Chromium RT responseStart−requestStart', 'chromium', 'rt_wait'],
  ['Chromium CDP receiveHeadersEnd−sendEnd', 'chromium', 'cdp_hdr'], ['Chromium first `data:`', 'chromium', 't_data'],
  ['nextHopProtocol', 'chromium', 'proto'],
];
console.log('| case | ' + cols.map((c) => c[0]).join(' | ') + ' |');
console.log('|---|' + cols.map(() => '---:').join('|') + '|');
for (const c of cases) console.log(`| ${c} | ` + cols.map(([, cl, m]) => cell(c, cl, m)).join(' | ') + ' |');
console.log('\nms, median (number of runs). Upstream: headers at once, first SSE event after 300 ms.');
