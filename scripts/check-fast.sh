#!/usr/bin/env bash
# The quick checks, for the edit-and-check loop (a few minutes on a warm build): rustfmt;
# `cargo test` of the native crates (ttft-stream, ttft-core, ttft-lab, ttft-sim, ttft-tokens,
# ttft-relay) and of the pages on wasm32, each build linted by clippy with -D warnings as it
# compiles (setup.sh's lint_while_building, as scripts/test.sh does); the pages'
# browser tests (wasm-bindgen-test in headless Chromium: ttft-web's glue and the three
# packages' component tests) against a live ttft-sim, started as scripts/test.sh starts it.
#
# Left to scripts/test.sh (README command 2, about 40 minutes): the import-circle check,
# ttft-core's zh-on-demand build and texts, the OTLP bodies through the strict receiver, the
# release build (trunk build --release, with the shipped sizes) and the end-to-end tests in
# Chromium, Firefox and WebKit.
#
# CHECK_FAST_WASM=0 leaves out the pages' wasm32 steps (their linted builds and browser tests), for
# when only native crates changed or the pages are being rebuilt elsewhere.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/setup.sh

step() { printf '\n==> [%d s] %s\n' "$SECONDS" "$*" >&2; }
sim_pid=""
cleanup() { [ -z "$sim_pid" ] || kill "$sim_pid" 2>/dev/null || true; }
trap cleanup EXIT
started=$(date +%s)

step "rustfmt"
cargo fmt --all --check

step "the lint gate is live (clippy-driver refuses a known lint); the builds below lint our crates"
lint_while_building

step "cargo test, linted: the native crates (ttft-stream, ttft-core, ttft-lab, ttft-sim, ttft-tokens, ttft-relay)"
cargo test --quiet -p ttft-stream -p ttft-core -p ttft-lab -p ttft-sim -p ttft-tokens -p ttft-relay

if [ "${CHECK_FAST_WASM:-1}" = 0 ]; then
  step "wasm-bindgen-test: left out (CHECK_FAST_WASM=0)"
else
  pages=(-p ttft-web -p ttft-lab-page)
  step "wasm-bindgen-test, linted builds: ttft-web, ttft-lab-page and ttft-widget in headless Chromium, against a live ttft-sim"
  cargo build --quiet -p ttft-sim
  sim_log=$(mktemp)
  "${CARGO_TARGET_DIR:-target}/debug/ttft-sim" --port 0 >"$sim_log" &
  sim_pid=$!
  for _ in $(seq 1 100); do grep -q 'listening on' "$sim_log" && break; sleep 0.1; done
  TTFT_SIM_URL=$(grep -o 'http://127\.0\.0\.1:[0-9]*' "$sim_log" | head -n1)
  [ -n "$TTFT_SIM_URL" ] || { echo "ttft-sim did not start" >&2; cat "$sim_log" >&2; exit 1; }
  export TTFT_SIM_URL
  # Apart: the widget builds ttft-core with `zh-on-demand`, which would reach the others'
  # tests if built together (their Chinese checks would read English). Both built, then run
  # at once (as scripts/test.sh does).
  cargo test "${pages[@]}" --target wasm32-unknown-unknown --no-run
  cargo test -p ttft-widget --target wasm32-unknown-unknown --no-run
  widget_log=$(mktemp)
  cargo test -p ttft-widget --target wasm32-unknown-unknown >"$widget_log" 2>&1 &
  widget_pid=$!
  wasm_status=0
  cargo test "${pages[@]}" --target wasm32-unknown-unknown || wasm_status=1
  wait "$widget_pid" || wasm_status=1
  echo "--- the widget's browser tests"
  cat "$widget_log"
  rm -f "$widget_log"
  [ "$wasm_status" = 0 ] || { echo "browser tests failed (above)" >&2; exit 1; }
  kill "$sim_pid"; sim_pid=""
  rm -f "$sim_log"
fi

step "all quick checks passed in $(( $(date +%s) - started )) s (scripts/test.sh runs the rest)"
