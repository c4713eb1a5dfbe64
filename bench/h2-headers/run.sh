#!/usr/bin/env bash
# Who holds the HTTP/2 HEADERS frame of a streaming (SSE) response?
# Reproduces the whole measurement on Debian 12 from scratch (see README.md):
#   installs nginx / nghttp2-client / curl / openssl if missing, makes a throw-away certificate,
#   starts an HTTP/1.1 SSE upstream, several nginx instances and a Node HTTP/2 server on free
#   loopback ports, measures with nghttp, curl and headless Chromium, prints a table of medians,
#   and stops everything it started.
#
# Usage: bench/h2-headers/run.sh [N]          N runs per client and case (default 7)
# Env:   KEEP=1            keep the temp dir (configs, raw logs, results.tsv)
#        CASES="a b ..."   run only these cases (names as in the table)
#        NGINX_SRC=DIR     an unpacked nginx 1.22.1 source tree: also build it twice (as is, and
#                          with a one-line "flush the response HEADERS" change) and measure both
#        NGINX_SRC_EXTRA="1.23.0=DIR ..."  more nginx source trees, built as is and measured
#                          (proxy_buffering off, and defaults); needs gcc, make, libssl-dev
#        NO_EVIDENCE=1     skip the frame trace and nginx debug-log excerpt printed after the table
#        TTFT_SIM=PATH     the project's simulator binary (default: target/{release,debug}/ttft-sim if
#                          built): also measured directly (--tls, its own HTTP/2) and behind nginx
#        CHROMIUM=PATH     default /usr/bin/chromium; PLAYWRIGHT_CORE_DIR=DIR to pick playwright-core
set -euo pipefail
N=${1:-7}
HERE=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d /tmp/h2-headers.XXXXXX)
PIDS=()

cleanup() {
  local p
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${PIDS[@]}"; do # nginx masters stop their workers first: wait up to 3 s each
    for _ in $(seq 30); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$p" 2>/dev/null || true
  done
  if [[ "${KEEP:-0}" == 1 ]]; then echo "kept $T" >&2; else rm -rf "$T"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---------------------------------------------------------------- tools
need=()
command -v nginx >/dev/null || [[ -x /usr/sbin/nginx ]] || need+=(nginx)
command -v nghttp >/dev/null || need+=(nghttp2-client)
command -v curl >/dev/null || need+=(curl)
command -v openssl >/dev/null || need+=(openssl)
if ((${#need[@]})); then
  echo "installing ${need[*]}" >&2
  apt-get -o DPkg::Lock::Timeout=900 install -y "${need[@]}" >&2 ||
    { apt-get update >&2 && apt-get -o DPkg::Lock::Timeout=900 install -y "${need[@]}" >&2; }
fi
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
command -v node >/dev/null || { echo "node is required" >&2; exit 1; }
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
if [[ -z "${PLAYWRIGHT_CORE_DIR:-}" && ! -d "$HERE/../../node_modules/playwright-core" ]]; then
  # the project's npm ci did not run: install the same playwright-core into the temp dir (no browser download)
  pwv=$(node -e "try{console.log(require('$HERE/../../package-lock.json').packages['node_modules/playwright-core'].version)}catch{console.log('1.65.1')}")
  (cd "$T" && npm install --no-audit --no-fund --loglevel=error "playwright-core@$pwv" >&2)
  export PLAYWRIGHT_CORE_DIR="$T/node_modules/playwright-core"
fi

free_port() { node -e "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"; }
wait_port() { # port, max 5 s
  local i; for i in $(seq 50); do (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0; sleep 0.1; done
  echo "port $1 did not open" >&2; return 1
}

# ---------------------------------------------------------------- certificate (made now, deleted at exit)
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$T/key.pem" -out "$T/cert.pem" \
  -days 2 -subj /CN=test.local -addext subjectAltName=DNS:test.local,IP:127.0.0.1 2>/dev/null
SPKI=$(openssl x509 -in "$T/cert.pem" -pubkey -noout | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64)
printf '{"model":"sim","stream":true,"messages":[{"role":"user","content":"hi"}]}' >"$T/body.json"

# ---------------------------------------------------------------- servers
UP=$(free_port)
FIRST_MS=300 node "$HERE/upstream.mjs" "$UP" >"$T/upstream.log" 2>&1 & PIDS+=($!)
wait_port "$UP"
NH2=$(free_port)
FIRST_MS=300 node "$HERE/h2server.mjs" "$NH2" "$T/key.pem" "$T/cert.pem" >"$T/h2server.log" 2>&1 & PIDS+=($!)
wait_port "$NH2"

# start_nginx NAME BINARY LISTEN_PARAMS "server-level directives" "location-level directives" -> sets PORT
start_nginx() {
  local name=$1 bin=$2 listen=$3 srv=$4 loc=$5 d="$T/$1"
  PORT=$(free_port)
  mkdir -p "$d/tmp" "$d/logs"
  local tls=""
  [[ "$listen" == *ssl* ]] && tls="ssl_certificate $T/cert.pem; ssl_certificate_key $T/key.pem; ssl_protocols TLSv1.2 TLSv1.3;"
  cat >"$d/nginx.conf" <<EOF
worker_processes 1;
daemon off;
pid $d/nginx.pid;
error_log $d/error.log ${LOGLEVEL:-notice};
events { worker_connections 256; }
http {
  access_log $d/access.log;
  client_body_temp_path $d/tmp/body; proxy_temp_path $d/tmp/proxy; fastcgi_temp_path $d/tmp/f;
  uwsgi_temp_path $d/tmp/u; scgi_temp_path $d/tmp/s;
  server {
    listen 127.0.0.1:$PORT $listen;
    $tls
    $srv
    location = /page.html { alias $HERE/page.html; default_type text/html; }
    location / { proxy_pass http://127.0.0.1:${UPSTREAM_PORT:-$UP}; $loc }
  }
}
EOF
  "$bin" -t -q -c "$d/nginx.conf" -p "$d" >&2
  "$bin" -c "$d/nginx.conf" -p "$d" >>"$d/error.log" 2>&1 & PIDS+=($!)
  wait_port "$PORT"
}

# ---------------------------------------------------------------- clients
RES="$T/results.tsv"; : >"$RES"
rec() { printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" >>"$RES"; }

# nghttp: frame timestamps. hdr = response HEADERS - request HEADERS sent; data = first non-empty DATA - same.
run_nghttp() { # case url
  local i out
  for i in $(seq "$N"); do
    out=$(timeout 10 nghttp -v -d "${BODY:-$T/body.json}" -H ':method: POST' -H 'content-type: application/json' "$2" 2>/dev/null) || true
    echo "$out" >>"$T/$1.nghttp.log"
    echo "$out" | awk -v c="$1" '
      function ts(l) { sub(/^\[ */, "", l); sub(/\].*/, "", l); return l + 0 }
      /send HEADERS frame/ && req == "" { req = ts($0) }
      /recv \(stream_id=[0-9]+\) :status/ && hdr == "" { hdr = ts($0) }
      /recv DATA frame <length=[1-9]/ && data == "" { data = ts($0) }
      END { if (req != "" && hdr != "") printf "%s\tnghttp\thdr\t%.1f\n%s\tnghttp\tdata\t%.1f\n", c, (hdr-req)*1000, c, (data-req)*1000 }' >>"$RES"
  done
}

# curl: -w time_starttransfer (what people quote) and, from --trace-time, the real arrival of the
# response header and of the first body bytes, both after the first request byte was sent.
run_curl() { # case url http-flag
  local i out
  for i in $(seq "$N"); do
    out=$(timeout 10 curl -sk "$3" -o /dev/null -X POST -H 'content-type: application/json' --data-binary @"${BODY:-$T/body.json}" \
      --trace-time --trace-ascii - -w 'WOUT %{time_pretransfer} %{time_starttransfer} %{http_version}\n' "$2" 2>/dev/null) || true
    echo "$out" | grep -E '^WOUT|^[0-9:.]+ (=> Send header|<= Recv header|<= Recv data)' >>"$T/$1.curl.log"
    echo "$out" | awk -v c="$1" '
      function ts(s,  a) { split(s, a, ":"); return a[1]*3600 + a[2]*60 + a[3] }
      / => Send header/ && req == "" { req = ts($1) }
      / <= Recv header/ && hdr == "" { hdr = ts($1) }
      / <= Recv data/ && data == "" { data = ts($1) }
      /^WOUT/ { st = ($3 - $2) * 1000; stabs = $3 * 1000 }
      END { if (req != "" && hdr != "") printf "%s\tcurl\thdr\t%.1f\n%s\tcurl\tdata\t%.1f\n%s\tcurl\tstarttransfer\t%.1f\n", c, (hdr-req)*1000, c, (data-req)*1000, c, stabs }' >>"$RES"
  done
}

run_chromium() { # case origin
  local out
  out=$(timeout $((90 + N * 5)) node "$HERE/browser.mjs" "$2/page.html" "$2/v1/chat/completions${3:-}" "$N" "$SPKI" \
    "MAP test.local 127.0.0.1" 2>>"$T/$1.chromium.err") || { echo "chromium failed for $1 (see $T/$1.chromium.err)" >&2; return 0; }
  echo "$out" >>"$T/$1.chromium.log"
  echo "$out" | node -e '
    const c = process.argv[1];
    for (const l of require("fs").readFileSync(0, "utf8").split("\n").filter(Boolean)) {
      const r = JSON.parse(l);
      for (const k of ["t_headers", "rt_wait", "cdp_hdr", "t_data"]) if (typeof r[k] === "number") console.log([c, "chromium", k, r[k].toFixed(1)].join("\t"));
      console.log([c, "chromium", "proto", r.proto].join("\t"));
    }' "$1" >>"$RES"
}

# measure CASE SCHEME://HOST:PORT KIND [query]   KIND: h2tls | h1tls | h2c
measure() {
  local c=$1 base=$2 kind=$3 q=${4:-}
  [[ -n "${CASES:-}" && " $CASES " != *" $c "* ]] && return 0
  echo "== $c ($kind) $base$q" >&2
  case $kind in
    h2tls) run_nghttp "$c" "$base/v1/chat/completions$q"; run_curl "$c" "$base/v1/chat/completions$q" --http2
           run_chromium "$c" "${base/127.0.0.1/test.local}" "$q" ;;
    h1tls) run_curl "$c" "$base/v1/chat/completions$q" --http1.1
           run_chromium "$c" "${base/127.0.0.1/test.local}" "$q" ;;
    h2tls-sim) run_nghttp "$c" "$base/v1/chat/completions$q"; run_curl "$c" "$base/v1/chat/completions$q" --http2
           SPKI=$SIM_SPKI run_chromium "$c" "${base/127.0.0.1/test.local}" "$q" ;;
    h2c)   run_nghttp "$c" "$base/v1/chat/completions$q"; run_curl "$c" "$base/v1/chat/completions$q" --http2-prior-knowledge ;;
  esac
}

NOBUF='proxy_http_version 1.1; proxy_buffering off;'
KNOBS="$NOBUF proxy_request_buffering off; http2_chunk_size 1k; postpone_output 0; tcp_nodelay on; sendfile off;"

start_nginx h2-nobuf "$NGINX" "ssl http2" "" "$NOBUF"; P_NOBUF=$PORT
measure h2-nobuf "https://127.0.0.1:$P_NOBUF" h2tls
start_nginx h2-defaults "$NGINX" "ssl http2" "" ""; P_DEF=$PORT
measure h2-defaults "https://127.0.0.1:$P_DEF" h2tls
measure h2-defaults+xaccel "https://127.0.0.1:$P_DEF" h2tls "?xaccel=1"
start_nginx h2-knobs "$NGINX" "ssl http2" "ssl_buffer_size 4k;" "$KNOBS"
measure h2-knobs "https://127.0.0.1:$PORT" h2tls
start_nginx h2-sslbuf1 "$NGINX" "ssl http2" "ssl_buffer_size 1;" "$NOBUF"
measure h2-sslbuf1 "https://127.0.0.1:$PORT" h2tls
measure h2-nobuf+prelude "https://127.0.0.1:$P_NOBUF" h2tls "?prelude=1"
measure h2-defaults+prelude "https://127.0.0.1:$P_DEF" h2tls "?prelude=1"
start_nginx h2c-nobuf "$NGINX" "http2" "" "$NOBUF"
measure h2c-nobuf "http://127.0.0.1:$PORT" h2c
start_nginx h1-nobuf "$NGINX" "ssl" "" "$NOBUF"
measure h1-nobuf "https://127.0.0.1:$PORT" h1tls
start_nginx h1-defaults "$NGINX" "ssl" "" ""
measure h1-defaults "https://127.0.0.1:$PORT" h1tls
measure node-h2 "https://127.0.0.1:$NH2" h2tls

# ---------------------------------------------------------------- optional: nginx built from source
# NGINX_SRC: a 1.22.1 tree, built as is ("src-1.22.1") and with the one-line change ("src-1.22.1+flush").
# NGINX_SRC_EXTRA="LABEL=DIR ...": other trees built as is (e.g. 1.23.0, the first with ticket #1743's fix).
build_nginx() { # label srcdir patch(0|1) -> sets BIN
  local d="$T/build-$1"
  rm -rf "$d"; cp -r "$2" "$d"
  if [[ $3 == 1 ]]; then
    # mark the response HEADERS frame's last buffer "flush", as nginx does for DATA frames, so that
    # ngx_ssl_send_chain() writes it out at once instead of keeping it in the SSL buffer
    sed -i 's/^        b->last_buf = fin;$/        b->last_buf = fin;\n        b->flush = 1;  \/* h2-headers bench *\//' \
      "$d/src/http/v2/ngx_http_v2_filter_module.c"
    grep -q 'h2-headers bench' "$d/src/http/v2/ngx_http_v2_filter_module.c" || { echo "patch failed" >&2; return 1; }
  fi
  local cfg=./configure; [[ -x "$d/configure" ]] || cfg=./auto/configure
  echo "== building nginx $1 (a minute or two)" >&2
  (cd "$d" && $cfg --prefix="$d/inst" --with-http_ssl_module --with-http_v2_module \
      --without-http_rewrite_module --without-http_gzip_module >"$T/build-$1.log" 2>&1 &&
    timeout 900 nice make -j2 >>"$T/build-$1.log" 2>&1) || { echo "build failed: $T/build-$1.log" >&2; return 1; }
  BIN="$d/objs/nginx"
}
if [[ -n "${NGINX_SRC:-}" ]]; then
  for variant in "src-1.22.1 0" "src-1.22.1+flush 1"; do
    set -- $variant
    if build_nginx "$1" "$NGINX_SRC" "$2"; then
      start_nginx "$1" "$BIN" "ssl http2" "" "$NOBUF"
      measure "$1" "https://127.0.0.1:$PORT" h2tls
    fi
  done
fi
for spec in ${NGINX_SRC_EXTRA:-}; do
  label="src-${spec%%=*}"
  if build_nginx "$label" "${spec#*=}" 0; then
    start_nginx "$label" "$BIN" "ssl http2" "" "$NOBUF"; P_EXTRA=$PORT
    measure "$label" "https://127.0.0.1:$P_EXTRA" h2tls
    start_nginx "$label-defaults" "$BIN" "ssl http2" "" ""
    measure "$label-defaults" "https://127.0.0.1:$PORT" h2tls
  fi
done

# ---------------------------------------------------------------- optional: the project's simulator, ttft-sim
# TTFT_SIM=PATH (default: the repo's target/release or target/debug ttft-sim, if built). Model
# sim-fast@prefill_ms=300 (first chunk after 300 ms) and the same with early_role=1 (role chunk at once).
TTFT_SIM=${TTFT_SIM:-}
for cand in "$HERE/../../target/release/ttft-sim" "$HERE/../../target/debug/ttft-sim"; do
  [[ -z "$TTFT_SIM" && -x "$cand" ]] && TTFT_SIM=$cand
done
if [[ -n "$TTFT_SIM" && -x "$TTFT_SIM" ]]; then
  sim_start() { # log args... -> sets SIMPORT
    local log=$1; shift
    "$TTFT_SIM" --port 0 "$@" >"$log" 2>&1 & PIDS+=($!)
    local i; for i in $(seq 50); do grep -q 'listening on' "$log" && break; sleep 0.1; done
    SIMPORT=$(grep -o 'listening on https\?://127.0.0.1:[0-9]*' "$log" | grep -o '[0-9]*$')
  }
  sim_start "$T/sim-plain.log"
  sim_start "$T/sim-tls.log" --tls --tls-name test.local --tls-name 127.0.0.1 --dist "$HERE"; SIM_TLS=$SIMPORT
  SIM_SPKI=$(grep -o 'spki sha256 .*' "$T/sim-tls.log" | cut -d' ' -f3)
  UPSTREAM_PORT=$(grep -o 'listening on http://127.0.0.1:[0-9]*' "$T/sim-plain.log" | grep -o '[0-9]*$') \
    start_nginx h2-nobuf-sim "$NGINX" "ssl http2" "" "$NOBUF"
  for m in "sim-fast@prefill_ms=300" "sim-fast@prefill_ms=300,early_role=1"; do
    printf '{"model":"%s","stream":true,"messages":[{"role":"user","content":"hi"}]}' "$m" >"$T/body-${m##*@}.json"
    tag=${m##*,}; [[ $tag == early_role=1 ]] && tag="+early_role" || tag=""
    BODY="$T/body-${m##*@}.json" MODEL=$m measure "sim-tls-direct$tag" "https://127.0.0.1:$SIM_TLS" h2tls-sim
    BODY="$T/body-${m##*@}.json" MODEL=$m measure "nginx-h2-nobuf->sim$tag" "https://127.0.0.1:$PORT" h2tls
  done
fi

# ---------------------------------------------------------------- evidence: frames and nginx's own debug log
if [[ "${NO_EVIDENCE:-0}" != 1 ]]; then
  LOGLEVEL=debug start_nginx h2-debug "$NGINX" "ssl http2" "" "$NOBUF"
  for q in "" "?prelude=1"; do
    echo; echo "### nghttp -v, nginx 1.22 h2 + proxy_buffering off, upstream query '${q:-none}' (frames of the response)"
    timeout 10 nghttp -v -d "$T/body.json" -H ':method: POST' "https://127.0.0.1:$PORT/v1/chat/completions$q" 2>/dev/null |
      grep -E 'send HEADERS frame|recv HEADERS frame|recv DATA frame' | head -4
  done
  echo; echo "### nginx debug log of the first request above (Debian's nginx is built --with-debug)"
  grep -E 'create HEADERS frame|SSL buf copy|SSL to write|http write filter: l:0 f:1 s:0|http2 send chain|create DATA frame|HEADERS frame .* was sent' \
    "$T/h2-debug/error.log" | awk '/create HEADERS frame/ { p = 1 } p { print } p && /SSL to write/ { exit }' | sed 's/^[0-9/]* [0-9:]* \[debug\] [0-9#]*: \*[0-9]* /  /'
fi

# ---------------------------------------------------------------- versions and table
{
  echo "nginx: $("$NGINX" -v 2>&1 | sed 's/.*: //')   nghttp: $(nghttp --version | head -1)   curl: $(curl --version | head -1 | cut -d' ' -f1-2)"
  echo "chromium: $("$CHROMIUM" --version 2>/dev/null | head -1)   node: $(node --version)   openssl: $(openssl version | cut -d' ' -f1-2)   N=$N per cell"
} >&2
node "$HERE/table.mjs" "$RES"
