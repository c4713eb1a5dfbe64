#!/usr/bin/env bash
# Installs what TTFT Meter's build and tests need, and only what is missing, on Debian 12
# with rustup/cargo, node/npm and apt. Everything comes from package registries: crates.io,
# npm and Debian. Trunk never downloads wasm-bindgen or wasm-opt itself (Trunk.toml has
# offline = true): this script provides both.
#
# Source it (`. scripts/setup.sh`) to also get PATH set for trunk, wasm-bindgen and wasm-opt.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

TRUNK_VERSION=0.21.14 # the newest trunk that builds with rustc 1.95
export PATH="$PWD/node_modules/.bin:$HOME/.cargo/bin:$PATH"

say() { printf '[setup] %s\n' "$*" >&2; }

# Where Debian's libwebkit2gtk-4.1-0 puts MiniBrowser (e2e/driver/webkit.mjs uses the same).
MINIBROWSER=/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser

# 1. Debian's browsers: Chromium and ChromeDriver (wasm-bindgen-test, end-to-end tests
#    through playwright-core), Firefox ESR (end-to-end tests through puppeteer-core over
#    WebDriver BiDi), WebKitGTK's WebKitWebDriver with its MiniBrowser (end-to-end tests
#    through selenium-webdriver), and Xvfb, the X display MiniBrowser needs.
missing_debs=()
[ -x /usr/bin/chromium ] || missing_debs+=(chromium)
[ -x /usr/bin/chromedriver ] || missing_debs+=(chromium-driver)
python3 -c 'import venv, ensurepip' 2>/dev/null || missing_debs+=(python3-venv)
[ -x /usr/lib/firefox-esr/firefox-esr ] || missing_debs+=(firefox-esr)
[ -x /usr/bin/WebKitWebDriver ] && [ -x "$MINIBROWSER" ] || missing_debs+=(webkit2gtk-driver)
command -v Xvfb >/dev/null || missing_debs+=(xvfb)
# The TLS end-to-end tests make their certificate with openssl at test time.
command -v openssl >/dev/null || missing_debs+=(openssl)
if [ ${#missing_debs[@]} -gt 0 ]; then
  sudo_cmd=()
  [ "$(id -u)" = 0 ] || sudo_cmd=(sudo)
  say "installing ${missing_debs[*]} from Debian"
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq "${missing_debs[@]}" >/dev/null
fi

# 2. The wasm target.
if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  say "adding the wasm32-unknown-unknown target"
  rustup target add wasm32-unknown-unknown
fi

# 3. Trunk, pinned.
if [ "$(trunk --version 2>/dev/null || true)" != "trunk $TRUNK_VERSION" ]; then
  say "installing trunk $TRUNK_VERSION from crates.io (6 to 15 minutes, once)"
  cargo install --locked trunk --version "$TRUNK_VERSION"
fi

# 4. wasm-bindgen-cli at exactly Cargo.lock's wasm-bindgen version. Installed without
#    --locked: its own lockfile pins a crate version that crates.io no longer serves.
wasm_bindgen_version=$(awk '$0 == "name = \"wasm-bindgen\"" { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)
if [ -z "$wasm_bindgen_version" ]; then
  say "cannot read wasm-bindgen's version from Cargo.lock"; exit 1
fi
installed_wasm_bindgen=$(wasm-bindgen --version 2>/dev/null | awk '{print $2}' || true)
if [ "$installed_wasm_bindgen" != "$wasm_bindgen_version" ]; then
  say "Cargo.lock has wasm-bindgen $wasm_bindgen_version but the installed wasm-bindgen-cli is '${installed_wasm_bindgen:-none}': installing $wasm_bindgen_version"
  cargo install wasm-bindgen-cli --version "$wasm_bindgen_version" --force
fi
if ! grep -qx "wasm_bindgen = \"$wasm_bindgen_version\"" Trunk.toml; then
  say "Trunk.toml names another wasm-bindgen than Cargo.lock ($wasm_bindgen_version): fixing Trunk.toml"
  sed -i "s/^wasm_bindgen = \".*\"/wasm_bindgen = \"$wasm_bindgen_version\"/" Trunk.toml
fi

# 4b. cargo-modules, pinned: the module graphs the import-circle check reads
#     (scripts/check-cycles.mjs). 0.27.0 builds with rustc 1.95 (its rust-version).
CARGO_MODULES_VERSION=0.27.0
if [ "$(cargo-modules --version 2>/dev/null || true)" != "cargo-modules $CARGO_MODULES_VERSION" ]; then
  say "installing cargo-modules $CARGO_MODULES_VERSION from crates.io (about 10 minutes, once)"
  cargo install --locked cargo-modules --version "$CARGO_MODULES_VERSION"
fi

# 5. npm tools from the lockfile: binaryen (wasm-opt), terser (the widget's JS on release
#    builds) and the three browser drivers (playwright-core, puppeteer-core,
#    selenium-webdriver; none of them downloads a browser).
if [ ! -x node_modules/.bin/wasm-opt ] || [ ! -d node_modules/terser ] || [ ! -d node_modules/playwright-core ] \
  || [ ! -d node_modules/puppeteer-core ] || [ ! -d node_modules/selenium-webdriver ] \
  || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  say "installing npm packages from package-lock.json"
  npm ci --no-audit --no-fund --loglevel=error >/dev/null
fi
wasm_opt_version=$(wasm-opt --version | awk '{print $3}')
wanted_wasm_opt=$(awk -F'"' '/^wasm_opt = / { sub(/version_/, "", $2); print $2 }' Trunk.toml)
if [ "$wasm_opt_version" != "$wanted_wasm_opt" ]; then
  say "wasm-opt on PATH is version $wasm_opt_version, Trunk.toml wants $wanted_wasm_opt (npm binaryen); is Debian's binaryen shadowing it?"
  exit 1
fi

# 6. Crates, since Trunk runs cargo offline.
cargo fetch --quiet

# 7. The strict OTLP test receiver's Python packages (tests/otlp/requirements.txt: exact
#    versions from PyPI), in a venv of their own; reinstalled only when the pins change.
OTLP_VENV="$PWD/.venv-otlp"
if [ ! -x "$OTLP_VENV/bin/python" ] || ! cmp -s tests/otlp/requirements.txt "$OTLP_VENV/requirements.txt"; then
  say "installing the OTLP test receiver's packages from PyPI into .venv-otlp"
  python3 -m venv --clear "$OTLP_VENV"
  "$OTLP_VENV/bin/pip" install --quiet --disable-pip-version-check --no-input -r tests/otlp/requirements.txt
  cp tests/otlp/requirements.txt "$OTLP_VENV/requirements.txt"
fi
export OTLP_PYTHON="$OTLP_VENV/bin/python"

# The release build of both pages (trunk: the widget, then scripts/post-build.sh builds the
# lab), in a Cargo target directory of its own: its wasm-small artifacts share nothing with
# the debug builds in target/, and a directory of its own lets it run while cargo works in
# target/ (scripts/test.sh builds the pages while the tests are built and linted).
PAGES_TARGET_DIR="$PWD/target/pages"
build_pages() {
  # Never through clippy (below): the shipped build is compiled by rustc alone.
  (
    unset RUSTC_WORKSPACE_WRAPPER CLIPPY_ARGS
    CARGO_TARGET_DIR="$PAGES_TARGET_DIR" trunk build --release --quiet "$@"
  )
}

# Clippy as the compiler of our own crates (what `cargo clippy` does to `cargo check`:
# clippy-driver as RUSTC_WORKSPACE_WRAPPER, its arguments in CLIPPY_ARGS), so that building
# the tests lints every package with -D warnings on the way (lib, bins, unit and integration
# tests: --all-targets, as the crates have no benches or examples) and the dependencies are
# compiled once, for the tests, instead of checked for clippy and then built again: about
# three minutes of a fresh clone's test run. Dependencies are compiled by rustc, as under
# `cargo clippy`. Every cargo command that shares target/ with the test builds must run with
# the same two variables, or cargo rebuilds our crates (scripts/test.sh exports them).
# CLIPPY_ARGS is cargo-clippy's own interface to clippy-driver, not a documented one: the
# probe below proves on every run that a known lint still fails the build, so a change in a
# future toolchain stops the run instead of silently linting nothing.
# The servers the browser tests time (ttft-sim, ttft-relay), compiled by rustc alone: clippy-
# driver compiles with MIR optimisations off (its lints need the unoptimised MIR), and a sim
# built so answered its first request 10 to 17 ms later than rustc's build, enough to move the
# network part of an e2e run out of its bound (fc29). The two builds live side by side in
# target/ (cargo hashes the wrapper into the artifacts' names), so neither rebuilds the other;
# this puts rustc's binaries at target/debug/ttft-sim and target/debug/ttft-relay.
build_servers() {
  (
    unset RUSTC_WORKSPACE_WRAPPER CLIPPY_ARGS
    cargo build --quiet -p ttft-sim -p ttft-relay "$@"
  )
}

lint_while_building() {
  export RUSTC_WORKSPACE_WRAPPER=clippy-driver
  export CLIPPY_ARGS="-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__"
  local probe
  probe=$(mktemp -d)
  printf 'pub fn probe(v: &Vec<u8>) -> usize {\n    v.len()\n}\n' >"$probe/lib.rs"
  if clippy-driver --edition 2021 --crate-type lib --emit metadata --out-dir "$probe" "$probe/lib.rs" >"$probe/log" 2>&1 \
    || ! grep -q 'clippy::ptr-arg' "$probe/log"; then
    echo "clippy-driver with CLIPPY_ARGS=-D warnings did not refuse clippy::ptr_arg: the lint gate of the test builds is not live (scripts/setup.sh, lint_while_building)" >&2
    cat "$probe/log" >&2
    rm -rf "$probe"
    return 1
  fi
  rm -rf "$probe"
}
