// Minifies the widget's JavaScript in Trunk's staging folder on release builds (issue 14:
// the first load): wasm-bindgen's glue (an ES module, which Trunk's own minifier cannot
// parse) and the fetch worker (a classic script). terser from npm (package.json). The
// page's index.html pins the glue with Subresource Integrity, so its hash is replaced by the
// minified file's; a glue whose old hash is not in index.html stops the build rather than
// ship a page the browser would refuse. The lab (lab/) is left as Trunk built it.
// Usage (scripts/post-build.sh): node scripts/minify-js.mjs STAGING_DIR
import { createHash } from 'node:crypto';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { minify } from 'terser';

const stage = process.argv[2];
if (!stage) {
  console.error('usage: node scripts/minify-js.mjs STAGING_DIR');
  process.exit(2);
}

const sri = (bytes) => `sha384-${createHash('sha384').update(bytes).digest('base64')}`;

/** Minifies `file` in place; returns its old and new bytes. */
async function minifyFile(file, module) {
  const before = await readFile(file);
  const result = await minify(before.toString('utf8'), {
    module,
    compress: true,
    mangle: true,
    format: { comments: false },
  });
  if (typeof result.code !== 'string') throw new Error(`terser returned nothing for ${file}`);
  const after = Buffer.from(result.code, 'utf8');
  await writeFile(file, after);
  return { before, after };
}

const indexPath = path.join(stage, 'index.html');
let index = await readFile(indexPath, 'utf8');
const names = await readdir(stage);
const glue = names.filter((name) => /^widget-[0-9a-f]+\.js$/.test(name));
if (glue.length !== 1) throw new Error(`expected one widget glue file in ${stage}, found ${glue.length}`);
for (const [name, module] of [
  [glue[0], true],
  ['fetch-worker.js', false],
]) {
  const { before, after } = await minifyFile(path.join(stage, name), module);
  if (module) {
    const old = sri(before);
    if (!index.includes(old)) throw new Error(`index.html does not pin ${name} with ${old}`);
    index = index.split(old).join(sri(after));
  }
  console.log(`minify-js: ${name} ${before.length} → ${after.length} B`);
}
await writeFile(indexPath, index);
