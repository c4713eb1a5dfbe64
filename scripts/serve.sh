#!/usr/bin/env bash
# README command 1: installs what is missing, builds the widget, and serves it together with
# ttft-sim, the bundled simulated provider, which is the widget's default endpoint (no key).
# Usage: scripts/serve.sh [PORT]   (default 8787; extra ttft-sim flags via TTFT_SIM_ARGS)
#
# The release build (trunk build --release: both pages, wasm-opt, scripts/post-build.sh; about
# a minute even with every crate built) runs only when dist/ is not already the build of the
# sources as they are now. target/serve-build.stamp keeps, from the last build here, a hash of
# every input file's content (tracked or untracked and not ignored, as it is in the work tree,
# so a local edit counts), of the tools' versions, and of what that build left in dist/; when
# all of them still match, the build is skipped. SERVE_REBUILD=1 builds anyway. ttft-sim's
# `cargo build` always runs: cargo's own check takes well under a second when nothing changed.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/setup.sh
port=${1:-8787}

# Everything the release build reads: the two pages' HTML and Trunk configurations, the
# packages compiled to wasm (src, crates/web, crates/lab-page) and the crates they depend on, the static assets, the
# post-build hook and its scripts, the npm tools' lockfile (terser, binaryen), and Cargo's
# manifests, lockfile and configuration. Tests and fuzz targets are not in the build. The
# widget's package is the root one (src/); the lab's page and ttft-web are under crates/.
build_inputs=(
  index.html lab.html Trunk.toml Trunk.lab.toml
  Cargo.toml Cargo.lock .cargo package-lock.json
  src crates/web crates/lab-page crates/stream crates/core crates/lab crates/tokens www
  scripts/serve.sh scripts/post-build.sh scripts/minify-js.mjs scripts/zh-catalogue.mjs
  scripts/precompress.mjs
  ':(exclude,glob)crates/*/tests/**' ':(exclude,glob)crates/*/fuzz/**'
)
stamp=target/serve-build.stamp

# A hash of the inputs' contents and the tools' versions; empty outside a git work tree
# (then the build always runs).
inputs_hash() {
  git rev-parse --is-inside-work-tree >/dev/null 2>&1 || return 0
  local files=() file
  while IFS= read -r file; do
    if [ -f "$file" ]; then files+=("$file"); fi
  done < <(git ls-files --cached --others --exclude-standard -- "${build_inputs[@]}" | sort -u)
  {
    printf '%s\n' "${files[@]}" | git hash-object --stdin-paths | paste -d' ' - <(printf '%s\n' "${files[@]}")
    { rustc --version; trunk --version; wasm-bindgen --version; wasm-opt --version; node --version; } 2>&1 || true
    printf 'RUSTFLAGS=%s\n' "${RUSTFLAGS:-}"
  } | sha256sum | cut -d' ' -f1
}

# A hash of dist/'s files (names and contents): another build (a debug one, say) since the
# stamp was written means dist/ is not what the stamp describes.
dist_hash() {
  [ -d dist ] || return 0
  (cd dist && find . -type f -print0 | sort -z | xargs -0 -r sha256sum) | sha256sum | cut -d' ' -f1
}

inputs=$(inputs_hash)
if [ -n "$inputs" ] && [ -z "${SERVE_REBUILD:-}" ] && [ -f "$stamp" ] \
  && [ "$(cat "$stamp")" = "$(printf 'inputs %s\ndist %s' "$inputs" "$(dist_hash)")" ]; then
  echo "[serve] dist/ is the release build of these sources (target/serve-build.stamp): not building the widget again" >&2
else
  echo "[serve] building the widget (trunk build --release)" >&2
  rm -f "$stamp"
  build_pages
  if [ -n "$inputs" ]; then
    mkdir -p target
    printf 'inputs %s\ndist %s' "$inputs" "$(dist_hash)" >"$stamp"
  fi
fi
echo "[serve] building ttft-sim" >&2
cargo build --quiet -p ttft-sim
echo "[serve] open the URL below; Ctrl-C stops" >&2
# shellcheck disable=SC2086
exec target/debug/ttft-sim --port "$port" --dist dist ${TTFT_SIM_ARGS:-}
