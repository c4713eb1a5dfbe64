// The import-circle check checked: scripts/check-cycles.mjs run on the two crates of
// scripts/check-cycles-fixtures/. In `circle`, alpha and beta reach each other only through
// `use`s of constants, gamma and delta through a static and an enum's variant (what
// cargo-modules' graph leaves out): the check must exit 1 and name both circles. `clean`
// has the same kinds of use one way only, plus lookalikes that are not uses (a test
// module's, a comment's, a string's): it must pass. Needs cargo-modules (scripts/setup.sh).
// Run: node --test scripts/check-cycles.test.mjs
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const manifest = path.join(here, 'check-cycles-fixtures', 'Cargo.toml');

function check(pkg) {
  const run = spawnSync(process.execPath, [path.join(here, 'check-cycles.mjs'), '--manifest-path', manifest, pkg], {
    encoding: 'utf8',
    // The fixtures' own target directory, out of the work tree, unless one is set.
    env: { CARGO_TARGET_DIR: path.join(os.tmpdir(), 'ttft-check-cycles-fixtures'), ...process.env },
  });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

test('a circle closed only by uses of constants, statics and variants fails the check, named', () => {
  const { status, output } = check('cycles-fixture-circle');
  assert.equal(status, 1, output);
  assert.match(output, /cycles-fixture-circle: \d+ modules \(\d+ of its edges from uses of constants, statics or variants\), 2 import circle\(s\):/, output);
  assert.ok(output.includes('cycles_fixture_circle::alpha → cycles_fixture_circle::beta → cycles_fixture_circle::alpha'), output);
  assert.ok(output.includes('cycles_fixture_circle::delta → cycles_fixture_circle::gamma → cycles_fixture_circle::delta'), output);
});

test('the same uses one way only (and lookalikes that are not uses) pass', () => {
  const { status, output } = check('cycles-fixture-clean');
  assert.equal(status, 0, output);
  assert.match(output, /cycles-fixture-clean: \d+ modules.*, no import circle/, output);
});
