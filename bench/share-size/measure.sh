#!/usr/bin/env bash
# Measures the wasm cost and the link sizes of the share-link compression choices
# (docs/otel.md, "Share links"): the same cdylib with no compression, with DEFLATE
# (miniz_oxide, what ttft-core uses) and with a hand-written columnar varint codec, each
# built as the app is (opt-level z, LTO) and then `wasm-opt -Oz` (npm's binaryen, from
# scripts/setup.sh). Prints sizes after wasm-opt, raw and gzip -9, and the link length for
# 10, 100 and 500 runs.
set -euo pipefail
cd "$(dirname "$0")"
root=$(cd ../.. && pwd)
wasm_opt="$root/node_modules/.bin/wasm-opt"
[ -x "$wasm_opt" ] || { echo "wasm-opt missing: run scripts/setup.sh first" >&2; exit 1; }
mkdir -p out
for variant in none deflate varint; do
  features=()
  [ "$variant" = none ] || features=(--features "$variant")
  nice -n 10 cargo build --quiet --release --target wasm32-unknown-unknown \
    --target-dir "target/$variant" "${features[@]}"
  cp "target/$variant/wasm32-unknown-unknown/release/ttft_share_size.wasm" "out/$variant.wasm"
  "$wasm_opt" -Oz --enable-bulk-memory --enable-nontrapping-float-to-int \
    "out/$variant.wasm" -o "out/$variant.opt.wasm"
done
printf '%-8s %12s %12s\n' variant "raw B" "gzip -9 B"
for variant in none deflate varint; do
  file="out/$variant.opt.wasm"
  printf '%-8s %12s %12s\n' "$variant" "$(wc -c <"$file")" "$(gzip -9c "$file" | wc -c)"
done
node measure.mjs out
