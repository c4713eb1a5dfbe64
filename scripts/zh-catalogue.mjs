// Writes the widget's second language, zh.json: the Chinese column of each catalogue the
// widget uses (ttft_core::text::ON_DEMAND_CATALOGUES, in that order: ttft-core, ttft-web, the
// widget), read from their texts.rs, as an array of arrays of strings in the lines' order
// (the order of the `texts!` macro's index). The widget is built with ttft-core's
// `zh-on-demand` feature and fetches this file before it first shows Chinese.
//
// Usage: node scripts/zh-catalogue.mjs OUT_DIR   (scripts/post-build.sh runs it)
//        node scripts/zh-catalogue.mjs --check   (every catalogue parses; counts printed)
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** In ON_DEMAND_CATALOGUES' order. */
const CATALOGUES = ['crates/core/src/texts.rs', 'crates/web/src/texts.rs', 'src/texts.rs'];

/** The value of the Rust string literal starting at `text[at]`, and where it ends. */
function readLiteral(text, at) {
  const raw = /^r(#*)"/.exec(text.slice(at));
  if (raw) {
    const close = `"${raw[1]}`;
    const start = at + raw[0].length;
    const end = text.indexOf(close, start);
    if (end < 0) throw new Error(`unterminated raw string at ${at}`);
    return { value: text.slice(start, end), end: end + close.length };
  }
  if (text[at] !== '"') throw new Error(`expected a string literal at ${at}: ${text.slice(at, at + 40)}`);
  let value = '';
  let i = at + 1;
  for (;;) {
    const c = text[i];
    if (c === undefined) throw new Error(`unterminated string at ${at}`);
    if (c === '"') return { value, end: i + 1 };
    if (c !== '\\') { value += c; i += 1; continue; }
    const next = text[i + 1];
    i += 2;
    if (next === '\n') { while (/\s/.test(text[i])) i += 1; continue; } // line continuation
    if (next === 'n') value += '\n';
    else if (next === 't') value += '\t';
    else if (next === 'r') value += '\r';
    else if (next === '0') value += '\0';
    else if (next === '\\' || next === '"' || next === "'") value += next;
    else if (next === 'u') {
      const close = text.indexOf('}', i);
      value += String.fromCodePoint(parseInt(text.slice(i + 1, close), 16));
      i = close + 1;
    } else throw new Error(`unknown escape \\${next} at ${i}`);
  }
}

/** [name, en, zh] of every line of a texts.rs, in order. */
export function readCatalogue(file) {
  const text = readFileSync(path.join(ROOT, file), 'utf8');
  const body = text.slice(text.indexOf('texts! {'));
  const entries = [];
  const line = /\n\s*([A-Z][A-Z0-9_]*)\s*=\s*/g;
  let match;
  while ((match = line.exec(body)) !== null) {
    const en = readLiteral(body, match.index + match[0].length);
    let at = en.end;
    while (/[\s,]/.test(body[at])) at += 1;
    const zh = readLiteral(body, at);
    entries.push([match[1], en.value, zh.value]);
    line.lastIndex = zh.end;
  }
  if (entries.length === 0) throw new Error(`${file}: no texts found`);
  return entries;
}

const columns = CATALOGUES.map((file) => readCatalogue(file).map(([, , zh]) => zh));
const [target] = process.argv.slice(2);
if (target === '--check' || target === undefined) {
  CATALOGUES.forEach((file, index) => console.log(`${file}: ${columns[index].length} texts`));
} else {
  const out = path.join(target, 'zh.json');
  writeFileSync(out, JSON.stringify(columns));
  console.log(`zh-catalogue: ${out} (${columns.map((column) => column.length).join(' + ')} texts)`);
}
