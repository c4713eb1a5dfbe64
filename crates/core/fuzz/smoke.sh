#!/usr/bin/env bash
# A short fuzzing of the key-safety targets (issue 11), for CI: FUZZ_SMOKE_SECONDS (default
# 5) per target, five targets, so about 25 s of fuzzing after the build. Seeds: small inputs
# written here, the export fixture, and what earlier runs left in corpus/. A failure prints
# the crashing input's path (artifacts/) and exits non-zero. The stream parser's targets have
# their own package and smoke.sh: crates/stream/fuzz.
#
# Needs cargo-fuzz (installed from crates.io when missing) and, on the stable toolchain,
# RUSTC_BOOTSTRAP=1 for the sanitizer flags cargo-fuzz passes.
set -euo pipefail
cd "$(dirname "$0")"
seconds=${FUZZ_SMOKE_SECONDS:-5}
targets=(import_json url_config base_url diagnose_body scrubber)
export RUSTC_BOOTSTRAP=1

if ! cargo fuzz --version >/dev/null 2>&1; then
  echo "[fuzz] installing cargo-fuzz from crates.io" >&2
  cargo install cargo-fuzz --locked
fi

seed() { # target name content
  mkdir -p "corpus/$1"
  [ -e "corpus/$1/$2" ] || printf '%s' "$3" >"corpus/$1/$2"
}
mkdir -p corpus/import_json
cp -n ../tests/export_fixture/*.json corpus/import_json/ 2>/dev/null || true
seed url_config basic 'preset=openai&model=gpt-4o&api_key=sk-secret-123456&lang=zh&target_origin=https://docs.example.com&compact=1'
seed url_config secrets 'subscription-key=abcdefghij&code=zyxwvuts&x-api-key=12345678&prompt=hello'
seed base_url plain $'\x00https://api.openai.com/v1'
seed base_url credentials $'\x01https://user:pw@api.anthropic.com'
seed base_url routes $'\x02127.0.0.1:8000/v1/v1/responses?api-version=1#frag'
seed diagnose_body openai $'\x2d\x01\x02{"error":{"message":"Incorrect API key provided: sk-abc","type":"invalid_request_error","code":"invalid_api_key"}}'
seed diagnose_body html $'\x92\x01\x04<html><head><title>502 Bad Gateway</title></head></html>'
seed scrubber key $'\x10sk-fuzz-CANARY-0\x04\x03\x05\x07\x0bYour key is \xff and again \xff!'

echo "[fuzz] building ${#targets[@]} targets" >&2
build_started=$(date +%s)
for target in "${targets[@]}"; do
  cargo fuzz build --release --debug-assertions "$target"
done
echo "[fuzz] built in $(( $(date +%s) - build_started )) s" >&2

log=$(mktemp)
for target in "${targets[@]}"; do
  mkdir -p "corpus/$target"
  if ! cargo fuzz run --release --debug-assertions "$target" "corpus/$target" -- \
    -max_total_time="$seconds" -max_len=16384 -print_final_stats=1 >"$log" 2>&1; then
    tail -n 40 "$log" >&2
    echo "[fuzz] $target FAILED (the input is in artifacts/$target/)" >&2
    exit 1
  fi
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$')
  echo "[fuzz] $target: ${runs:-?} runs in ${seconds} s, no failure" >&2
done
rm -f "$log"
echo "[fuzz] all key-safety targets passed" >&2
