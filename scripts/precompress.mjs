#!/usr/bin/env node
// Writes `NAME.br` (brotli, quality 11) and `NAME.gz` (gzip, level 9) beside every
// compressible file of the built page, as static hosts serve them precompressed; ttft-sim
// `--dist` picks one by Accept-Encoding (crates/sim/README.md, STATIC PAGE). Node's own
// zlib does both, so this needs no dependency.
//
// Run by Trunk as a post_build hook (Trunk.toml) on TRUNK_STAGING_DIR, or by hand:
//   node scripts/precompress.mjs [DIR]      (default: dist)
// Prints one line per file with its raw, gzip and brotli sizes, and the totals.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

// Keep in step with crates/sim/src/static_files.rs `compressible`.
const COMPRESSIBLE = new Set([
  '.html', '.htm', '.js', '.mjs', '.wasm', '.css', '.json', '.map', '.webmanifest', '.svg', '.txt', '.xml',
]);

const dir = process.argv[2] ?? process.env.TRUNK_STAGING_DIR ?? 'dist';

/** Every file under `root`, recursively. */
function files(root) {
  return readdirSync(root, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(root, entry.name);
    return entry.isDirectory() ? files(full) : [full];
  });
}

function compress(file) {
  const raw = readFileSync(file);
  const text = path.extname(file).toLowerCase() !== '.wasm';
  const brotli = brotliCompressSync(raw, {
    params: {
      [constants.BROTLI_PARAM_MODE]: text ? constants.BROTLI_MODE_TEXT : constants.BROTLI_MODE_GENERIC,
      [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
      [constants.BROTLI_PARAM_SIZE_HINT]: raw.length,
    },
  });
  const gzip = gzipSync(raw, { level: 9 });
  writeFileSync(`${file}.br`, brotli);
  writeFileSync(`${file}.gz`, gzip);
  return { raw: raw.length, gzip: gzip.length, brotli: brotli.length };
}

let statOk = true;
try {
  statOk = statSync(dir).isDirectory();
} catch {
  statOk = false;
}
if (!statOk) {
  console.error(`precompress: ${dir} is not a directory (build the page first: trunk build --release)`);
  process.exit(1);
}
const targets = files(dir).filter((file) => COMPRESSIBLE.has(path.extname(file).toLowerCase()));
const totals = { raw: 0, gzip: 0, brotli: 0 };
const rows = [];
for (const file of targets.sort()) {
  const sizes = compress(file);
  for (const key of Object.keys(totals)) totals[key] += sizes[key];
  rows.push([path.relative(dir, file), sizes]);
}
const width = Math.max(5, ...rows.map(([name]) => name.length));
const line = (name, { raw, gzip, brotli }) =>
  `${name.padEnd(width)}  ${String(raw).padStart(9)}  ${String(gzip).padStart(9)}  ${String(brotli).padStart(9)}`;
console.log(`${'file'.padEnd(width)}  ${'raw B'.padStart(9)}  ${'gzip B'.padStart(9)}  ${'brotli B'.padStart(9)}`);
for (const [name, sizes] of rows) console.log(line(name, sizes));
console.log(line('total', totals));
