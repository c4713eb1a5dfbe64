#!/usr/bin/env bash
# The widget's size floor (issue 14): builds tiny programs the way Trunk builds the widget
# (profile wasm-small: opt-level z, LTO, one codegen unit, panic = abort; wasm-bindgen
# --target=web at Cargo.lock's version; npm's wasm-opt -Oz with index.html's
# data-wasm-opt-params; the JS glue minified by terser as release builds do) and prints each
# one's wasm and JS glue, raw and gzip -9 (node's zlib, as bench/run.mjs counts), beside
# today's widget built the same way:
#   hello-websys   one paragraph written with web-sys: std, allocator, wasm-bindgen glue
#   leptos-min     Leptos 0.8 CSR mounting a form shaped like the widget's first screen
#   engine-websys  ttft-core's engine as the widget uses it, DOM written by hand (no Leptos)
#   engine-nohistory  the same without the stored history (no record deserializers)
#   leptos-engine  leptos-min's form with engine-websys's engine behind Send
#   leptos-engine-nohistory  the same without the stored history
#   widget         today's widget (src/bin/widget.rs)
# Then, for each, where its shipped code is by crate (bench/size-floor/by-crate.mjs over
# twiggy's report of the same wasm-opt output with its name section kept).
# Usage: bench/size-floor/measure.sh [name ...]   (default: all). Needs `twiggy` on PATH
# (cargo install twiggy) for the by-crate tables; skipped without it.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
export PATH="$root/node_modules/.bin:$HOME/.cargo/bin:$PATH"
[ -x "$root/node_modules/.bin/wasm-opt" ] || { echo "npm's wasm-opt missing: run scripts/setup.sh first" >&2; exit 1; }
# One target dir with the app's: the crates share the widget's compiled dependencies.
target=${CARGO_TARGET_DIR:-$root/target}
out=$here/out
mkdir -p "$out"

# wasm-opt's parameters as index.html gives them to Trunk (data-wasm-opt-params).
read -r -a opt_params <<<"$(sed -n 's/.*data-bin="widget".*data-wasm-opt-params="\([^"]*\)".*/\1/p' "$root/index.html")"
[ ${#opt_params[@]} -gt 0 ] || { echo "no data-wasm-opt-params in index.html" >&2; exit 1; }
echo "wasm-opt -Oz ${opt_params[*]}"

lock_version() { awk '$0 == "name = \"wasm-bindgen\"" { getline; gsub(/version = |"/, ""); print; exit }' "$1"; }
bindgen_version=$(wasm-bindgen --version | awk '{print $2}')

names=("$@")
[ ${#names[@]} -gt 0 ] || names=(hello-websys leptos-min engine-websys engine-nohistory leptos-engine leptos-engine-nohistory widget)

build() {
  local name=$1 dir bin features=()
  case $name in
    widget) dir=$root bin=widget ;;
    engine-nohistory) dir=$here/engine-websys bin=engine-websys features=(--no-default-features) ;;
    leptos-engine-nohistory) dir=$here/leptos-engine bin=leptos-engine features=(--no-default-features) ;;
    *) dir=$here/$name bin=$name ;;
  esac
  local locked
  locked=$(lock_version "$dir/Cargo.lock")
  if [ "$locked" != "$bindgen_version" ]; then
    echo "$name: Cargo.lock has wasm-bindgen $locked, wasm-bindgen-cli is $bindgen_version" >&2
    exit 1
  fi
  nice -n 10 cargo build --quiet --locked --profile wasm-small --target wasm32-unknown-unknown \
    --manifest-path "$dir/Cargo.toml" --target-dir "$target" --bin "$bin" "${features[@]}"
  rm -rf "${out:?}/$name" && mkdir -p "$out/$name"
  wasm-bindgen --target=web --no-typescript --out-dir "$out/$name" --out-name "$name" \
    "$target/wasm32-unknown-unknown/wasm-small/$bin.wasm"
  # The glue as release builds ship it (scripts/minify-js.mjs: terser, an ES module).
  node --input-type=module -e "
    import { readFileSync, writeFileSync } from 'node:fs';
    import { minify } from '$root/node_modules/terser/main.js';
    const [from, to] = process.argv.slice(1);
    const { code } = await minify(readFileSync(from, 'utf8'), { module: true, compress: true, mangle: true, format: { comments: false } });
    writeFileSync(to, code);" "$out/$name/$name.js" "$out/$name/$name.min.js"
  # As Trunk runs it: -Oz (index.html's data-wasm-opt="z") and index.html's params.
  wasm-opt "$out/$name/${name}_bg.wasm" -Oz "${opt_params[@]}" -o "$out/$name/shipped.wasm"
  # The same with the name section kept (-g): for twiggy only.
  wasm-opt "$out/$name/${name}_bg.wasm" -Oz "${opt_params[@]/--strip-debug/-g}" -o "$out/$name/named.wasm"
}

# gzip -9 as bench/run.mjs counts it (node's zlib; the gzip tool's deflate differs slightly).
gz() { node -e 'process.stdout.write(String(require("zlib").gzipSync(require("fs").readFileSync(process.argv[1]), { level: 9 }).length))' "$1"; }

for name in "${names[@]}"; do build "$name"; done

printf '\n%-24s %12s %12s %10s %10s %12s\n' build "wasm raw B" "wasm gzip B" "js raw B" "js gzip B" "gzip sum B"
for name in "${names[@]}"; do
  wasm=$out/$name/shipped.wasm js=$out/$name/$name.min.js
  printf '%-24s %12d %12d %10d %10d %12d\n' "$name" "$(wc -c <"$wasm")" "$(gz "$wasm")" \
    "$(wc -c <"$js")" "$(gz "$js")" $(($(gz "$wasm") + $(gz "$js")))
done

if command -v twiggy >/dev/null; then
  for name in "${names[@]}"; do
    twiggy top -n 1000000 --format csv "$out/$name/named.wasm" >"$out/$name/twiggy.csv"
    node "$here/by-crate.mjs" "$name" "$out/$name/twiggy.csv" "$out/$name/shipped.wasm"
  done
else
  echo "twiggy not on PATH: no by-crate tables (cargo install twiggy)" >&2
fi
