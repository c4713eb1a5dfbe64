// Where a wasm's code and data are, by crate and by part (issue 14): reads twiggy's
// `top --format csv` report of a wasm-opt output whose name section was kept (-g), and
// prints each crate's bytes and the parts of DESIGN.md §4's table. Raw bytes: gzip does not
// split by function. Custom sections (the names themselves) are left out: the shipped wasm
// has none. A function inlined into another counts for the one it was inlined into.
// Usage: node by-crate.mjs LABEL twiggy.csv shipped.wasm
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';

const [label, csvPath, shippedPath] = process.argv.slice(2);

/** twiggy's CSV rows: [name, shallow bytes]. */
function rows(text) {
  const out = [];
  for (const line of text.split('\n').slice(1)) {
    if (!line) continue;
    let name;
    let rest;
    if (line.startsWith('"')) {
      let i = 1;
      name = '';
      for (;;) {
        if (line[i] === '"' && line[i + 1] === '"') { name += '"'; i += 2; }
        else if (line[i] === '"') { i += 1; break; }
        else { name += line[i]; i += 1; }
      }
      rest = line.slice(i + 1);
    } else {
      const comma = line.indexOf(',');
      name = line.slice(0, comma);
      rest = line.slice(comma + 1);
    }
    out.push([name, Number(rest.split(',')[0])]);
  }
  return out;
}

/** The bytes of a wasm's data section (section 11). */
function dataSection(wasm) {
  const leb = (at) => {
    let value = 0;
    let shift = 0;
    for (;;) {
      const byte = wasm[at.i++];
      value += (byte & 0x7f) * 2 ** shift;
      shift += 7;
      if (byte < 0x80) return value;
    }
  };
  const at = { i: 8 };
  while (at.i < wasm.length) {
    const id = wasm[at.i++];
    const size = leb(at);
    if (id === 11) return wasm.subarray(at.i, at.i + size);
    at.i += size;
  }
  return Buffer.alloc(0);
}

const PRIMITIVES = new Set(['u8', 'u16', 'u32', 'u64', 'u128', 'usize', 'i8', 'i16', 'i32', 'i64', 'i128', 'isize', 'f32', 'f64', 'bool', 'char', 'str']);
const BINDINGS = /^(__wbindgen|__wbg_|__externref|__wbg|intounderlying|.* (externref )?shim$)/;

/** The crate a symbol belongs to: its first path segment (the type's, for `<T as Trait>`). */
function crateOf(name) {
  if (name.startsWith('data segment')) return '(data)';
  if (/^(elem|table|type|import|export|global|memory|func)\[/.test(name) || name === 'wasm magic bytes') return '(wasm sections)';
  if (/^code\[\d+\]$/.test(name)) return '(unnamed code)';
  if (BINDINGS.test(name) || /^(import|export) /.test(name)) return 'wasm_bindgen';
  if (/impl serde(_core)?::|as serde(_core)?::/.test(name)) return '(serde impls)';
  const stripped = name.replace(/^[<&(\[ ]+|^(mut |dyn |\*const |\*mut )+/g, '').replace(/^[<&(\[ ]+|^(mut |dyn |\*const |\*mut )+/g, '');
  const match = /^([A-Za-z_][A-Za-z0-9_]*)/.exec(stripped);
  if (!match) return '(other)';
  let crate = match[1];
  // `<T as Trait>::f` with T a generic parameter: the trait's crate.
  const trait = /^[A-Z][A-Za-z0-9]? as ([A-Za-z_][A-Za-z0-9_]*)(\[[0-9a-f]+\])?::/.exec(stripped);
  if (trait) return trait[1];
  if (PRIMITIVES.has(crate)) return 'core';
  if (crate === '__rustc') return 'std';
  if (!/^[A-Za-z_][A-Za-z0-9_]*(\[[0-9a-f]+\])?::/.test(stripped)) {
    return /^(main|mem(cpy|move|set|cmp)|__[a-z0-9]+[0-9]$|__(multi|udivti|umodti|divti|modti|ashl|lshr|ashr)[0-9])/.test(crate) ? 'core' : '(other)';
  }
  return crate;
}

const PARTS = [
  ['Leptos: tachys, reactive_graph, leptos and helpers', /^(tachys|reactive_graph|leptos.*|any_spawner|throw_error|or_poisoned|send_wrapper|slotmap|guardian|oco_ref|next_tuple|either_of|reactive_stores.*|hydration_context|server_fn.*|paste|typed_builder.*|futures_executor|indexmap|pin_project.*|async_lock|event_listener.*|concurrent_queue|wasm_streams)$/],
  ['our view code: ttft_meter (components, widget), the bin', /^(ttft_meter|widget|leptos_min|leptos_engine|engine_websys|hello_websys)$/],
  ['Rust std: core, alloc, std, hashbrown, dlmalloc', /^(core|alloc|std|hashbrown|dlmalloc|compiler_builtins|rustc_demangle|\(other\))$/],
  ['JSON: serde, serde_json, derived (de)serializers', /^(serde|serde_core|serde_json|ryu|itoa|zmij|\(serde impls\))$/],
  ['our logic: ttft_core, ttft_tokens (+ memchr, base64)', /^(ttft_core|ttft_tokens|memchr|base64|thiserror)$/],
  ['bindings: wasm_bindgen, js_sys, web_sys, futures', /^(wasm_bindgen.*|js_sys|web_sys|futures.*|slab|once_cell|pin_utils)$/],
  ['data (.rodata: texts, tables, panic locations)', /^\(data\)$/],
  ['wasm sections, unnamed code', /^\((wasm sections|unnamed code)\)$/],
];

const byCrate = new Map();
for (const [name, bytes] of rows(readFileSync(csvPath, 'utf8'))) {
  if (/subsection"?$|^custom section/.test(name)) continue;
  const crate = crateOf(name);
  byCrate.set(crate, (byCrate.get(crate) || 0) + bytes);
  if (process.env.SHOW_CRATE === crate) console.log(`    ${bytes} ${name}`);
}
const total = [...byCrate.values()].reduce((a, b) => a + b, 0);
const shipped = readFileSync(shippedPath);
const gzip = gzipSync(shipped, { level: 9 }).length;
console.log(`\n${label}: ${shipped.length} B raw, ${gzip} B gzip shipped; by crate (bytes counted: ${total})`);
const pct = (bytes) => ((100 * bytes) / total).toFixed(1).padStart(5);
const sorted = [...byCrate].sort((a, b) => b[1] - a[1]);
for (const [crate, bytes] of sorted.slice(0, 20)) console.log(`  ${crate.padEnd(26)} ${String(bytes).padStart(9)} ${pct(bytes)} %`);
const rest = sorted.slice(20).reduce((sum, [, bytes]) => sum + bytes, 0);
if (rest) console.log(`  ${'(the other crates)'.padEnd(26)} ${String(rest).padStart(9)} ${pct(rest)} %  ${sorted.slice(20).map(([c]) => c).join(' ')}`);
console.log(`${label}: by part (raw B, share, ≈ gzip B at the share)`);
const seen = new Set();
for (const [part, pattern] of PARTS) {
  const crates = sorted.filter(([crate]) => pattern.test(crate) && !seen.has(crate));
  crates.forEach(([crate]) => seen.add(crate));
  const bytes = crates.reduce((sum, [, b]) => sum + b, 0);
  console.log(`  | ${part} | ${bytes} | ${pct(bytes)} % | ${Math.round((gzip * bytes) / total)} |`);
}
// Chinese text in the data: CJK characters and full-width punctuation (3 bytes each in
// UTF-8); a lower bound of the second language's texts (their ASCII is not counted).
const cjk = (dataSection(shipped).toString('utf8').match(/[\u3000-\u303f\u3400-\u9fff\uff00-\uffef]/g) || []).length;
console.log(`  Chinese characters in the wasm: ${cjk} (${3 * cjk} B raw)`);
const unplaced = sorted.filter(([crate]) => !seen.has(crate));
if (unplaced.length) console.log(`  unplaced: ${unplaced.map(([c, b]) => `${c} ${b}`).join(', ')}`);
