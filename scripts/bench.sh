#!/usr/bin/env bash
# The benchmark (not part of scripts/test.sh; takes about 5 to 10 minutes): fidelity against
# the openai Python SDK and curl, paint delay, size and start, parser cost against
# eventsource-parser, a 100,000-token stream and 1,000 runs. Writes bench/out/report.md and
# bench/out/report.json. Usage: scripts/bench.sh [section ...]
#   sections: size start fidelity paint engines network relay parser long flood scale (default: all of
#   these); BENCH_RUNS=40
#   llama: only when named: a real llama-cpp-python server (bench/llama/; its first run builds
#   llama-cpp-python from source, about 6 to 7 minutes on 2 cores), then llama.cpp's C++ server
#   (xllamacpp's prebuilt wheel); LLAMA_ROUNDS=5, LLAMA_SIZES=250,1000,2000,4000,
#   LLAMA_VOCAB=4096 (smaller: a poorer tokenizer), LLAMA_DIMS, LLAMA_SERVERS=python,cpp
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/setup.sh
say() { printf '[bench] %s\n' "$*" >&2; }

# Peers: curl (Debian) and the openai SDK (PyPI, into bench/.venv).
if ! command -v curl >/dev/null; then
  sudo_cmd=()
  [ "$(id -u)" = 0 ] || sudo_cmd=(sudo)
  say "installing curl from Debian"
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq curl >/dev/null
fi
if ! bench/.venv/bin/python -c 'import openai' 2>/dev/null; then
  say "installing the openai Python SDK from PyPI into bench/.venv"
  python3 -m venv bench/.venv
  bench/.venv/bin/pip install --quiet --disable-pip-version-check openai
fi

say "building the widget (trunk build --release), ttft-sim and ttft-relay (release)"
build_pages
cargo build --quiet --release -p ttft-sim
cargo build --quiet --release -p ttft-relay

sections=("$@")
[ ${#sections[@]} -gt 0 ] || sections=(size start fidelity paint engines network relay parser long flood scale)
wants() { local section; for section in "${sections[@]}"; do [ "$section" = "$1" ] && return 0; done; return 1; }

if wants llama; then
  # llama-cpp-python[server], gguf, numpy, openai: exact pins, wheel cached (bench/llama/).
  bench/llama/install.sh
  # llama.cpp's C++ server (llama-server) as xllamacpp's prebuilt CPU wheel: exact pin.
  bench/llama/install-server.sh
fi

if wants parser; then
  say "building ttft-core's stream reader to wasm for the parser benchmark (bench/parser-wasm)"
  (
    cd bench/parser-wasm
    cargo build --quiet --release --target wasm32-unknown-unknown
    wasm-bindgen --target web --out-dir pkg target/wasm32-unknown-unknown/release/ttft_parser_bench.wasm
    # The same at opt-level 3, to show how much of the parser's cost is the size-first profile.
    CARGO_PROFILE_RELEASE_OPT_LEVEL=3 cargo build --quiet --release --target wasm32-unknown-unknown --target-dir target/o3
    wasm-bindgen --target web --out-dir pkg-o3 target/o3/wasm32-unknown-unknown/release/ttft_parser_bench.wasm
  )
fi

node bench/run.mjs "$@"
