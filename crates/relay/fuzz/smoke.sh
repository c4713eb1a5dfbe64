#!/usr/bin/env bash
# A short fuzzing of ttft-relay's pure request parsing (the request-target check, the header
# filters), for CI: FUZZ_SMOKE_SECONDS (default 15) per target, two targets, so about 30 s of
# fuzzing after the build. Seeds: what the earlier runs left in corpus/. A failure prints the
# crashing input's path (artifacts/) and exits non-zero.
#
# Needs cargo-fuzz (installed from crates.io when missing) and, on the stable toolchain,
# RUSTC_BOOTSTRAP=1 for the sanitizer flags cargo-fuzz passes.
set -euo pipefail
cd "$(dirname "$0")"
seconds=${FUZZ_SMOKE_SECONDS:-15}
targets=(request_target headers)
export RUSTC_BOOTSTRAP=1

if ! cargo fuzz --version >/dev/null 2>&1; then
  echo "[fuzz] installing cargo-fuzz from crates.io" >&2
  cargo install cargo-fuzz --locked
fi

echo "[fuzz] building ${#targets[@]} targets" >&2
build_started=$(date +%s)
cargo fuzz build --release --debug-assertions
echo "[fuzz] built in $(( $(date +%s) - build_started )) s" >&2

log=$(mktemp)
for target in "${targets[@]}"; do
  mkdir -p "corpus/$target"
  if ! cargo fuzz run --release --debug-assertions "$target" "corpus/$target" -- \
    -max_total_time="$seconds" -max_len=4096 -dict=relay.dict -print_final_stats=1 >"$log" 2>&1; then
    tail -n 40 "$log" >&2
    echo "[fuzz] $target FAILED (the input is in artifacts/$target/)" >&2
    exit 1
  fi
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$')
  echo "[fuzz] $target: ${runs:-?} runs in ${seconds} s, no failure" >&2
done
rm -f "$log"
echo "[fuzz] all targets passed" >&2
