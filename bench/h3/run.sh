#!/usr/bin/env bash
# What does Chromium do against an endpoint that offers HTTP/3, and does the widget report it?
# (issue 21 item 7). Reproduces bench/h3/README.md's measurements from scratch:
#   makes bench/h3/.venv from PyPI if missing (aioquic, h2), a throw-away certificate for
#   localhost in a temp dir, starts ttft-sim --tls (the built page, dist/) and two h3server.py
#   endpoints on free loopback ports (UDP: HTTP/3; TCP: h2 + http/1.1, or http/1.1 only; both
#   answering with alt-svc h3=":PORT"), runs measure.mjs (headless Chromium WITHOUT
#   --disable-quic), prints the tables and stops everything it started.
#
# Usage: bench/h3/run.sh
# Env:   KEEP=1          keep the temp dir (server logs, NetLogs, results.json)
#        ONLY="a b"      run only these scenarios (names in measure.mjs)
#        REPEAT=N        run each widget scenario N times (default 1; at most 10)
#        PREFILL_MS=300  the endpoint's scripted wait before the first token
#        TTFT_SIM=PATH   default target/release/ttft-sim, else target/debug/ttft-sim
#        CHROMIUM=PATH   default /usr/bin/chromium; PLAYWRIGHT_CORE_DIR=DIR to pick playwright-core
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
T=$(mktemp -d /tmp/bench-h3.XXXXXX)
PIDS=()
PREFILL_MS=${PREFILL_MS:-300}
[[ "${REPEAT:-1}" =~ ^[0-9]+$ && "$PREFILL_MS" =~ ^[0-9]+$ ]] || { echo "REPEAT and PREFILL_MS must be whole numbers" >&2; exit 2; }

cleanup() {
  local p
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${PIDS[@]}"; do
    for _ in $(seq 30); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$p" 2>/dev/null || true
  done
  if [[ "${KEEP:-0}" == 1 ]]; then echo "kept $T" >&2; else rm -rf "$T"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---------------------------------------------------------------- tools
command -v openssl >/dev/null || { echo "openssl is required" >&2; exit 1; }
command -v node >/dev/null || { echo "node is required" >&2; exit 1; }
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
[[ -x "$CHROMIUM" ]] || { echo "no Chromium at $CHROMIUM (Debian: apt-get install chromium)" >&2; exit 1; }
SIM=${TTFT_SIM:-}
[[ -n "$SIM" ]] || for c in "$ROOT/target/release/ttft-sim" "$ROOT/target/debug/ttft-sim"; do [[ -x "$c" ]] && { SIM=$c; break; }; done
[[ -x "$SIM" ]] || { echo "ttft-sim is not built (cargo build --release -p ttft-sim)" >&2; exit 1; }
[[ -f "$ROOT/dist/index.html" ]] || { echo "the page is not built (trunk build --release)" >&2; exit 1; }
VENV="$HERE/.venv"
if ! "$VENV/bin/python" -c 'import aioquic, h2' 2>/dev/null; then
  echo "making $VENV (PyPI: aioquic, h2)" >&2
  python3 -m venv "$VENV"
  timeout 600 "$VENV/bin/pip" install -q 'aioquic>=1.2,<2' 'h2>=4,<5' >&2
fi
if [[ -z "${PLAYWRIGHT_CORE_DIR:-}" && ! -d "$ROOT/node_modules/playwright-core" ]]; then
  echo "playwright-core missing: run npm ci in $ROOT (no browser download is needed)" >&2; exit 1
fi

wait_line() { # file, pattern, max 10 s
  local i; for i in $(seq 100); do grep -q "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done
  echo "no '$2' in $1:" >&2; cat "$1" >&2; return 1
}

# ---------------------------------------------------------------- certificate (made now, deleted at exit)
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$T/key.pem" -out "$T/cert.pem" \
  -days 2 -subj /CN=localhost -addext subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1 2>/dev/null

# ---------------------------------------------------------------- servers
"$SIM" --port 0 --dist "$ROOT/dist" --tls --tls-cert "$T/cert.pem" --tls-key "$T/key.pem" --no-csp >"$T/sim.log" 2>&1 & PIDS+=($!)
wait_line "$T/sim.log" 'listening on https://'
PAGE=$(grep -o 'https://127.0.0.1:[0-9]*' "$T/sim.log" | head -1)

"$VENV/bin/python" "$HERE/h3server.py" --cert "$T/cert.pem" --key "$T/key.pem" --alt-svc --prefill-ms "$PREFILL_MS" \
  --tcp-alpn h2,http/1.1 >"$T/srv-both.log" 2>&1 & PIDS+=($!)
"$VENV/bin/python" "$HERE/h3server.py" --cert "$T/cert.pem" --key "$T/key.pem" --alt-svc --prefill-ms "$PREFILL_MS" \
  --tcp-alpn http/1.1 >"$T/srv-h1.log" 2>&1 & PIDS+=($!)
wait_line "$T/srv-both.log" 'h3server listening on'
wait_line "$T/srv-h1.log" 'h3server listening on'
P=$(awk '/h3server listening on/{print $4; exit}' "$T/srv-both.log")
P1=$(awk '/h3server listening on/{print $4; exit}' "$T/srv-h1.log")

CHROMIUM_VERSION=$("$CHROMIUM" --version 2>/dev/null | head -1 | sed 's/ built on.*//')
AIOQUIC_VERSION=$("$VENV/bin/python" -c 'import importlib.metadata as m; print(m.version("aioquic"))')
echo "page $PAGE (ttft-sim $("$SIM" --version | awk '{print $2}'), endpoints localhost:$P (UDP h3; TCP h2+http/1.1) and localhost:$P1 (UDP h3; TCP http/1.1), prefill $PREFILL_MS ms" >&2
echo "$CHROMIUM_VERSION; aioquic $AIOQUIC_VERSION; $(node --version)" >&2

ONLY_JSON=$(printf '%s\n' ${ONLY:-} | node -e 'const l=require("fs").readFileSync(0,"utf8").split("\n").filter(Boolean);console.log(JSON.stringify(l))')
cat >"$T/config.json" <<JSON
{"page": "$PAGE", "cert": "$T/cert.pem", "out": "$T", "prefill_ms": $PREFILL_MS, "only": $ONLY_JSON, "repeat": ${REPEAT:-1},
 "servers": {"both": {"port": $P, "log": "$T/srv-both.log"}, "h1": {"port": $P1, "log": "$T/srv-h1.log"}}}
JSON
echo "# $CHROMIUM_VERSION, aioquic $AIOQUIC_VERSION, prefill $PREFILL_MS ms"
CHROMIUM="$CHROMIUM" CHROMIUM_VERSION="$CHROMIUM_VERSION" timeout $((120 + 30 * (6 + 4 * ${REPEAT:-1}))) node "$HERE/measure.mjs" "$T/config.json"
