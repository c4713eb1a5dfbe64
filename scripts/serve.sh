#!/usr/bin/env bash
# README command 1: installs what is missing, builds the widget, and serves it together with
# ttft-sim, the bundled simulated provider, which is the widget's default endpoint (no key).
# Usage: scripts/serve.sh [PORT]   (default 8787; extra ttft-sim flags via TTFT_SIM_ARGS)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/setup.sh
port=${1:-8787}
echo "[serve] building the widget (trunk build --release)" >&2
trunk build --release --quiet
echo "[serve] building ttft-sim" >&2
cargo build --quiet -p ttft-sim
echo "[serve] open the URL below; Ctrl-C stops" >&2
# shellcheck disable=SC2086
exec target/debug/ttft-sim --port "$port" --dist dist ${TTFT_SIM_ARGS:-}
