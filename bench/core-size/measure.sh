#!/usr/bin/env bash
# Prints what ttft-core's slo, otlp (+ the send queue) and share modules add to a wasm32 build
# that already uses ttft-core as the app does, after `wasm-opt -Oz`, raw and gzip -9.
set -euo pipefail
cd "$(dirname "$0")"
root=$(cd ../.. && pwd)
wasm_opt="$root/node_modules/.bin/wasm-opt"
[ -x "$wasm_opt" ] || { echo "wasm-opt missing: run scripts/setup.sh first" >&2; exit 1; }
mkdir -p out
base_raw=0 base_gzip=0
printf '%-22s %10s %10s %12s %12s\n' features "raw B" "gzip B" "+raw B" "+gzip B"
for features in none slo otlp otlp,queue share slo,otlp,queue,share; do
  dir=${features//,/_}
  args=()
  [ "$features" = none ] || args=(--features "$features")
  nice -n 10 cargo build --quiet --release --target wasm32-unknown-unknown --target-dir "target/$dir" "${args[@]}"
  "$wasm_opt" -Oz --enable-bulk-memory --enable-nontrapping-float-to-int \
    "target/$dir/wasm32-unknown-unknown/release/ttft_core_size.wasm" -o "out/$dir.wasm"
  raw=$(wc -c <"out/$dir.wasm"); gzip=$(gzip -9c "out/$dir.wasm" | wc -c)
  if [ "$features" = none ]; then base_raw=$raw base_gzip=$gzip; fi
  printf '%-22s %10s %10s %+12d %+12d\n' "$features" "$raw" "$gzip" $((raw - base_raw)) $((gzip - base_gzip))
done
