#!/usr/bin/env bash
# Installs the C++ llama.cpp server (llama-server) that the benchmark's real-server section
# also measures, from PyPI only: xllamacpp, a prebuilt CPU wheel that compiles llama.cpp's
# tools/server into a Python extension (bench/llama/cpp_server.py starts it), at the exact
# version of bench/llama/requirements-server.txt, into bench/.venv. No build: a ~34 MB wheel.
# Quick when it is there. Writes bench/.cache/wheels/last-install-server.json (the version).
set -euo pipefail
cd "$(dirname "$0")/../.."
say() { printf '[bench] llama: %s\n' "$*" >&2; }

requirements=bench/llama/requirements-server.txt
version=$(sed -n 's/^xllamacpp==\(.*\)$/\1/p' "$requirements")
[ -n "$version" ] || { echo "no xllamacpp pin in $requirements" >&2; exit 1; }

[ -x bench/.venv/bin/python ] || python3 -m venv bench/.venv
pip=(bench/.venv/bin/pip --disable-pip-version-check --quiet)

installed_now=false
if ! bench/.venv/bin/python - "$version" <<'PY' 2>/dev/null
import sys
from importlib.metadata import version
assert version("xllamacpp") == sys.argv[1], version("xllamacpp")
import xllamacpp
PY
then
  say "installing xllamacpp $version (prebuilt llama.cpp server, CPU) into bench/.venv"
  "${pip[@]}" install --only-binary xllamacpp -r "$requirements"
  installed_now=true
fi

mkdir -p bench/.cache/wheels
cat > bench/.cache/wheels/last-install-server.json <<JSON
{"xllamacpp": "$version", "installed_now": $installed_now}
JSON
