#!/usr/bin/env bash
# ttft-relay in front of one provider that refuses browsers (docs/relay.md): builds it
# (release; quick when nothing changed) and starts it on 127.0.0.1. It prints the base URL to
# paste into the page. Every flag goes to ttft-relay (ttft-relay --help):
#
#   scripts/relay.sh --upstream https://dashscope.aliyuncs.com/compatible-mode/v1
#
# Needs only cargo (Rust); nothing is downloaded but crates from crates.io.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --quiet --release -p ttft-relay
exec target/release/ttft-relay "$@"
