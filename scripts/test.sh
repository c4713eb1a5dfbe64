#!/usr/bin/env bash
# README command 2: installs what is missing, then runs every check and test:
# formatting, clippy (native and wasm32), ttft-core and ttft-sim tests, the OTLP bodies through
# the strict receiver (tests/otlp/), the app's browser
# tests (wasm-bindgen-test in headless Chromium), the release build, and the end-to-end
# tests (playwright-core + Debian Chromium against ttft-sim on 127.0.0.1).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/setup.sh

step() { printf '\n==> %s\n' "$*" >&2; }
sim_pid=""
cleanup() { [ -z "$sim_pid" ] || kill "$sim_pid" 2>/dev/null || true; }
trap cleanup EXIT

step "rustfmt"
cargo fmt --all --check

step "clippy: native crates"
cargo clippy --quiet -p ttft-core -p ttft-sim --all-targets -- -D warnings
step "clippy: the app on wasm32"
cargo clippy --quiet -p ttft-meter --target wasm32-unknown-unknown --all-targets -- -D warnings

step "cargo test: ttft-core and ttft-sim"
cargo test -p ttft-core -p ttft-sim

step "OTLP bodies through the strict receiver (official protobuf definitions, CORS as the Collector)"
"$OTLP_PYTHON" tests/otlp/receiver_test.py

step "wasm-bindgen-test: the app in headless Chromium, against a live ttft-sim"
cargo build --quiet -p ttft-sim
sim_log=$(mktemp)
target/debug/ttft-sim --port 0 >"$sim_log" &
sim_pid=$!
for _ in $(seq 1 100); do grep -q 'listening on' "$sim_log" && break; sleep 0.1; done
TTFT_SIM_URL=$(grep -o 'http://127\.0\.0\.1:[0-9]*' "$sim_log" | head -n1)
[ -n "$TTFT_SIM_URL" ] || { echo "ttft-sim did not start" >&2; cat "$sim_log" >&2; exit 1; }
export TTFT_SIM_URL
cargo test -p ttft-meter --target wasm32-unknown-unknown
kill "$sim_pid"; sim_pid=""

step "trunk build --release"
trunk build --release --quiet
for file in dist/ttft-meter-*_bg.wasm dist/ttft-meter-*.js dist/fetch-worker.js dist/style-*.css dist/index.html; do
  printf 'shipped: %-45s %8s B raw %8s B gzip\n' "$file" "$(wc -c <"$file")" "$(gzip -9c "$file" | wc -c)"
done

step "end-to-end: playwright-core + Debian Chromium against ttft-sim"
node --test --test-concurrency=1 e2e/
