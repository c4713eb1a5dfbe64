#!/usr/bin/env bash
# README command 2: installs what is missing, then runs every check and test:
# formatting, clippy (native and wasm32, as the test builds compile), the native crates' tests, the OTLP bodies through
# the strict receiver (tests/otlp/), the app's browser
# tests (wasm-bindgen-test in headless Chromium), the release build, and the end-to-end
# tests against ttft-sim on 127.0.0.1 in three engines, one after the other: Debian's
# Chromium (playwright-core), Firefox ESR (puppeteer-core, WebDriver BiDi) and WebKitGTK's
# MiniBrowser (selenium-webdriver + WebKitWebDriver, under Xvfb). E2E_ENGINES="chromium
# firefox webkit" (the default) chooses the engines.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/setup.sh

step() { printf '\n==> [%d s] %s\n' "$SECONDS" "$*" >&2; }
sim_pid=""
xvfb_pid=""
pages_pid=""
cycles_pid=""
cleanup() {
  [ -z "$cycles_pid" ] || kill "$cycles_pid" 2>/dev/null || true
  [ -z "$sim_pid" ] || kill "$sim_pid" 2>/dev/null || true
  [ -z "$xvfb_pid" ] || kill "$xvfb_pid" 2>/dev/null || true
  [ -z "$pages_pid" ] || kill -- "-$pages_pid" 2>/dev/null || kill "$pages_pid" 2>/dev/null || true
}
trap cleanup EXIT

step "rustfmt"
cargo fmt --all --check

# The release build of both pages runs beside the test builds, which lint as they compile
# (setup.sh's lint_while_building: clippy as the compiler of our crates, -D warnings): its
# final optimisation of each page holds one core for minutes, and the test builds have the
# other. The release build is the longer, so the test builds run at a lower priority (nice):
# they take what it leaves. Its own target directory (setup.sh's build_pages) keeps it from
# waiting on cargo's lock. Nothing timed runs beside it: the tests start after it ends.
step "trunk build --release, in the background until the test builds end"
pages_log=$(mktemp)
set -m
build_pages >"$pages_log" 2>&1 &
pages_pid=$!
set +m

step "the lint gate is live (clippy-driver refuses a known lint), then every cargo command below lints our crates as it builds them"
lint_while_building

step "test builds, linted (clippy -D warnings): the native crates"
nice -n 15 cargo test --quiet -p ttft-stream -p ttft-core -p ttft-lab -p ttft-sim -p ttft-tokens -p ttft-relay --no-run
# The pages' browser tests: one test binary per page package (tests/browser.rs). ttft-web's
# and the lab's share one build; the widget's apart: it builds ttft-core with `zh-on-demand`
# (Chinese loaded from zh.json), the others with the Chinese column compiled in.
step "test builds, linted: the pages on wasm32 (ttft-web and ttft-lab-page, then ttft-widget)"
nice -n 15 cargo test --quiet -p ttft-web -p ttft-lab-page --target wasm32-unknown-unknown --no-run
nice -n 15 cargo test --quiet -p ttft-widget --target wasm32-unknown-unknown --no-run
step "the servers the browser tests time (ttft-sim, ttft-relay), compiled by rustc alone (setup.sh's build_servers)"
(renice -n 15 "$BASHPID" >/dev/null && build_servers)
# ttft-core as the widget builds it (zh-on-demand) is linted twice on the way: in the
# widget's wasm32 test build above, and natively in its texts' test build below (its unit
# tests). Its integration tests read no feature (no cfg of it), so a third, all-targets
# clippy of it would only lint the same code again (17 s of a fresh clone's run).
node scripts/zh-catalogue.mjs --check

step "waiting for the release build of the pages"
if ! wait "$pages_pid"; then
  pages_pid=""
  echo "trunk build --release failed:" >&2
  cat "$pages_log" >&2
  exit 1
fi
pages_pid=""
cat "$pages_log"
rm -f "$pages_log"
# The widget (the first load) and the lab (dist/lab/, loaded when opened).
for file in dist/widget-*_bg.wasm dist/widget-*.js dist/fetch-worker.js dist/style-*.css dist/index.html \
  dist/lab/lab-*_bg.wasm dist/lab/lab-*.js; do
  printf 'shipped: %-45s %8s B raw %8s B gzip\n' "$file" "$(wc -c <"$file")" "$(gzip -9c "$file" | wc -c)"
done

step "cargo test: the native crates (ttft-stream, ttft-core, ttft-lab, ttft-sim, ttft-tokens, ttft-relay)"
cargo test -p ttft-stream -p ttft-core -p ttft-lab -p ttft-sim -p ttft-tokens -p ttft-relay
step "ttft-core's texts as the widget builds them (zh-on-demand: the Chinese column loaded from zh.json)"
cargo test --quiet -p ttft-core --features zh-on-demand --lib text

step "OTLP bodies through the strict receiver (official protobuf definitions, CORS as the Collector)"
"$OTLP_PYTHON" tests/otlp/receiver_test.py

step "wasm-bindgen-test in headless Chromium: ttft-web (glue against a live ttft-sim, components), the widget's and the lab's components (scripted transports)"
# ttft-sim for the browser tests and the end-to-end suite, ttft-relay for the latter
# (e2e/relay.test.mjs): rustc's builds (above), put back at target/debug/ (the native tests'
# build, through clippy, put its own there).
build_servers
sim_log=$(mktemp)
target/debug/ttft-sim --port 0 >"$sim_log" &
sim_pid=$!
for _ in $(seq 1 100); do grep -q 'listening on' "$sim_log" && break; sleep 0.1; done
TTFT_SIM_URL=$(grep -o 'http://127\.0\.0\.1:[0-9]*' "$sim_log" | head -n1)
[ -n "$TTFT_SIM_URL" ] || { echo "ttft-sim did not start" >&2; cat "$sim_log" >&2; exit 1; }
export TTFT_SIM_URL
# Both browser test binaries (built above) run at once, each in its own headless Chromium:
# their runs are scripted (instants from the script, not the clock), and running them side
# by side takes the longer one's time, not the sum.
# The import-circle check runs beside them: it reads sources (cargo-modules' module graphs;
# the proc macros and build scripts it needs are those the test builds made), and the
# browser tests leave a core free.
cycles_log=$(mktemp)
{
  node scripts/check-cycles.mjs
  # The check itself: a circle closed only by uses of constants fails it, named; no circle passes.
  node --test scripts/check-cycles.test.mjs
} >"$cycles_log" 2>&1 &
cycles_pid=$!
widget_log=$(mktemp)
cargo test -p ttft-widget --target wasm32-unknown-unknown >"$widget_log" 2>&1 &
widget_pid=$!
pages_status=0
cargo test -p ttft-web -p ttft-lab-page --target wasm32-unknown-unknown || pages_status=1
wait "$widget_pid" || pages_status=1
echo "--- the widget's browser tests"
cat "$widget_log"
rm -f "$widget_log"
[ "$pages_status" = 0 ] || { echo "browser tests failed (above)" >&2; exit 1; }
step "no import circles in any package (cargo-modules' module graphs, scripts/check-cycles.mjs; run beside the browser tests)"
cycles_status=0
wait "$cycles_pid" || cycles_status=1
cycles_pid=""
cat "$cycles_log"
rm -f "$cycles_log"
[ "$cycles_status" = 0 ] || { echo "the import-circle check failed (above)" >&2; exit 1; }
kill "$sim_pid"; sim_pid=""

step "end-to-end: every test in each engine, against ttft-sim"
# MiniBrowser needs an X display: one Xvfb for the whole suite, on a display number it
# picks itself (-displayfd), stopped on exit.
display_file=$(mktemp)
Xvfb -displayfd 5 -screen 0 1920x1080x24 -nolisten tcp 5>"$display_file" 2>/dev/null &
xvfb_pid=$!
for _ in $(seq 1 100); do [ -s "$display_file" ] && break; sleep 0.1; done
[ -s "$display_file" ] || { echo "Xvfb did not start" >&2; exit 1; }
export DISPLAY=":$(tr -d '[:space:]' <"$display_file")"
# The engines run one after the other: on two cores, engines in parallel would disturb the
# timing tests. Each engine's closing counts are kept, and summed at the end.
e2e_status=0
summary=()
passed=0; failed=0; skipped=0; todo=0
for engine in ${E2E_ENGINES:-chromium firefox webkit}; do
  step "end-to-end in $engine"
  log=$(mktemp)
  started=$(date +%s)
  E2E_ENGINES=$engine node --test --test-concurrency=1 e2e/ 2>&1 | tee "$log" || e2e_status=1
  seconds=$(( $(date +%s) - started ))
  count() { local n; n=$(awk -v key="# $1" '$1 " " $2 == key { print $3 }' "$log" | tail -n1); echo "${n:-0}"; }
  # Tests run once more because the browser lost their page (e2e/driver/crashes.mjs).
  reruns=$(grep -c '^# browser page lost: ' "$log" || true)
  summary+=("$(printf '%-8s %4d s  pass %s  fail %s  skipped %s  todo %s  run again after a lost page %s' "$engine" "$seconds" "$(count pass)" "$(count fail)" "$(count skipped)" "$(count todo)" "$reruns")")
  passed=$((passed + $(count pass))); failed=$((failed + $(count fail)))
  skipped=$((skipped + $(count skipped))); todo=$((todo + $(count todo)))
  rm -f "$log"
done
step "end-to-end, per engine"
printf '%s\n' "${summary[@]}"
echo "e2e: $passed passed, $failed failed, $skipped skipped"
exit "$e2e_status"
