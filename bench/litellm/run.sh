#!/usr/bin/env bash
# What does LiteLLM's proxy (a gateway in front of an OpenAI-compatible server) answer to the
# widget's requests, and how much time does it add? (issue 22, item 5). Reproduces
# tests/fixtures/gateways/litellm/ from scratch:
#   makes a venv from PyPI if missing (litellm[proxy] at the exact pin below), starts
#   ttft-sim (target/release) on a free loopback port with --record-requests, then LiteLLM's
#   proxy in front of it with bench/litellm/config.yaml in four variants, one after another:
#     master_key          general_settings.master_key set, no database (as most quick setups)
#     no_master_key       no master key (no auth at all; needs dangerously_permit_weak_or_unset_master_key)
#     master_key_prisma   master_key, no database, with the `prisma` Python package importable
#                         (as in LiteLLM's Docker image; litellm[proxy] alone lacks it, which
#                         turns every auth error that is not an HTTPException into a bare 500)
#     detailed_timing     master_key with LITELLM_DETAILED_TIMING=true (x-litellm-timing-*)
#   and for each: capture.py (one JSON per case, g_stream.sse), the upstream requests LiteLLM
#   made (ttft-sim's recorder), and for master_key and detailed_timing overhead.py (N streamed
#   requests straight to ttft-sim vs through LiteLLM). Stops everything it started.
#
# Usage: bench/litellm/run.sh OUT_DIR
# Env:   VENV=DIR        default /tmp/litellm-venv (made if it lacks litellm==$LITELLM_VERSION)
#        N=20            streamed requests per side for the overhead measurement
#        ONLY="a b"      only these variants
#        TTFT_SIM=PATH   default target/release/ttft-sim
#        KEEP=1          keep the temp dir (server logs)
set -euo pipefail
LITELLM_VERSION=1.108.7   # newest litellm[proxy] that installed from PyPI on 2026-12-04
PRISMA_VERSION=0.15.0     # litellm's extra-proxy asks prisma>=0.11,<1
NODEENV_VERSION=1.12.0    # prisma's one dependency that litellm[proxy] does not bring
MASTER_KEY=sk-test-master-1234
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
[[ $# -eq 1 ]] || { echo "usage: $0 OUT_DIR" >&2; exit 2; }
OUT=$1
N=${N:-20}
[[ "$N" =~ ^[0-9]+$ && "$N" -ge 1 && "$N" -le 200 ]] || { echo "N must be 1..200" >&2; exit 2; }
VARIANTS=${ONLY:-master_key no_master_key master_key_prisma detailed_timing}
VENV=${VENV:-/tmp/litellm-venv}
T=$(mktemp -d /tmp/bench-litellm.XXXXXX)
PIDS=()

cleanup() {
  local p
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${PIDS[@]}"; do
    for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$p" 2>/dev/null || true
  done
  if [[ "${KEEP:-0}" == 1 ]]; then echo "kept $T" >&2; else rm -rf "$T"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---------------------------------------------------------------- tools
SIM=${TTFT_SIM:-$ROOT/target/release/ttft-sim}
[[ -x "$SIM" ]] || { echo "ttft-sim is not built (cargo build --release -p ttft-sim)" >&2; exit 1; }
if ! "$VENV/bin/python" -c "import importlib.metadata as m, sys; sys.exit(m.version('litellm') != '$LITELLM_VERSION')" 2>/dev/null; then
  echo "making $VENV (PyPI: litellm[proxy]==$LITELLM_VERSION; a few minutes)" >&2
  python3 -m venv "$VENV"
  nice -n 10 timeout 1200 "$VENV/bin/pip" install -q --disable-pip-version-check "litellm[proxy]==$LITELLM_VERSION" >&2
fi
PRISMA_DIR="$VENV/prisma-extra"   # on PYTHONPATH for master_key_prisma only
if [[ " $VARIANTS " == *" master_key_prisma "* ]] && ! PYTHONPATH="$PRISMA_DIR" "$VENV/bin/python" -c 'import prisma.errors, nodeenv' 2>/dev/null; then
  echo "adding prisma==$PRISMA_VERSION to $PRISMA_DIR (PyPI)" >&2
  nice -n 10 "$VENV/bin/pip" install -q --disable-pip-version-check --no-deps --target "$PRISMA_DIR" \
    "prisma==$PRISMA_VERSION" "nodeenv==$NODEENV_VERSION" >&2
fi
PY="$VENV/bin/python"

free_port() { "$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
wait_line() { # file, pattern, tries of 0.1 s
  local i; for i in $(seq "${3:-100}"); do grep -q "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done
  echo "no '$2' in $1:" >&2; tail -40 "$1" >&2; return 1
}

mkdir -p "$OUT"
cp "$HERE/config.yaml" "$OUT/config.yaml"

# ---------------------------------------------------------------- ttft-sim
printf '[profiles.sim-fast]\ncontext_tokens = 16384\n' > "$T/sim.toml"
"$SIM" --port 0 --config "$T/sim.toml" --record-requests > "$T/sim.out" 2> "$T/sim.err" &
PIDS+=($!)
wait_line "$T/sim.out" 'listening on'
SIM_URL=$(sed -n 's#^ttft-sim listening on \(http://[0-9.:]*\).*#\1#p' "$T/sim.out")
echo "ttft-sim at $SIM_URL" >&2

# ---------------------------------------------------------------- variants
for v in $VARIANTS; do
  cfg="$T/config-$v.yaml"
  env_extra=()
  case $v in
    master_key) cp "$HERE/config.yaml" "$cfg" ;;
    no_master_key)  # LiteLLM >= 1.10x refuses to start without a master key unless told to; it
      # would also take one from the environment variable LITELLM_MASTER_KEY (run.sh unsets it)
      { sed '/^general_settings:/,$d' "$HERE/config.yaml"
        printf 'general_settings:\n  dangerously_permit_weak_or_unset_master_key: true\n'; } > "$cfg"
      cp "$cfg" "$OUT/config-no_master_key.yaml" ;;
    master_key_prisma) cp "$HERE/config.yaml" "$cfg"; env_extra=(PYTHONPATH="$PRISMA_DIR") ;;
    detailed_timing) cp "$HERE/config.yaml" "$cfg"; env_extra=(LITELLM_DETAILED_TIMING=true) ;;
    *) echo "unknown variant $v" >&2; exit 2 ;;
  esac
  port=$(free_port)
  mkdir -p "$OUT/$v"
  curl -s -X DELETE "$SIM_URL/__sim/requests" > /dev/null
  env -u LITELLM_MASTER_KEY -u DATABASE_URL TTFT_SIM_API_BASE="$SIM_URL/v1" TTFT_LITELLM_MASTER_KEY="$MASTER_KEY" LITELLM_LOCAL_MODEL_COST_MAP=True \
    "${env_extra[@]}" nice -n 10 "$VENV/bin/litellm" --config "$cfg" --host 127.0.0.1 --port "$port" \
    > "$T/litellm-$v.log" 2>&1 &
  pid=$!
  PIDS+=("$pid")
  wait_line "$T/litellm-$v.log" 'Uvicorn running on' 1200
  for _ in $(seq 50); do curl -sf "http://127.0.0.1:$port/health/liveliness" > /dev/null && break; sleep 0.1; done
  sleep 2  # let the startup job that reads the upstream's /v1/models finish
  echo "== $v: LiteLLM $LITELLM_VERSION at http://127.0.0.1:$port" >&2
  "$PY" "$HERE/capture.py" --proxy "http://127.0.0.1:$port" --key "$MASTER_KEY" --out "$OUT/$v" \
    | tee "$OUT/$v/summary.txt"
  curl -s "$SIM_URL/__sim/requests" | "$PY" -c '
import json, sys
d = json.load(sys.stdin)
for r in d["requests"]:
    r.pop("client_port", None)
json.dump({"requests": d["requests"]}, sys.stdout, indent=1)
print()' > "$OUT/$v/upstream_requests.json"
  if [[ $v == master_key || $v == detailed_timing ]]; then
    "$PY" "$HERE/overhead.py" --sim "$SIM_URL" --proxy "http://127.0.0.1:$port" --key "$MASTER_KEY" \
      --n "$N" --recorder --json "$OUT/$v/overhead.json" | tee "$OUT/$v/overhead.txt"
  fi
  kill "$pid"
  for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
done
{
  echo "{"
  echo "  \"date\": \"$(date -u +%Y-%m-%dT%H:%M:%SZ)\","
  echo "  \"litellm\": \"$LITELLM_VERSION\","
  echo "  \"ttft_sim\": \"$("$SIM" --version | awk '{print $2}')\","
  echo "  \"python\": \"$("$PY" -c 'import platform; print(platform.python_version())')\","
  echo "  \"n\": $N"
  echo "}"
} > "$OUT/versions.json"
"$VENV/bin/pip" freeze --disable-pip-version-check > "$OUT/pip-freeze.txt"
echo "wrote $OUT" >&2
