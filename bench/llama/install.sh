#!/usr/bin/env bash
# Installs what the benchmark's real-server section needs into bench/.venv, from PyPI only:
# llama-cpp-python[server] (built from source: its wheel is cached in bench/.cache/wheels,
# keyed by version, Python and this CPU's flags, since the build uses -march=native), gguf,
# numpy and the openai SDK, at the exact versions of bench/llama/requirements.txt.
# Quick when everything is there. Writes bench/.cache/wheels/last-install.json (versions,
# whether the wheel was built or reused, and the build's seconds).
set -euo pipefail
cd "$(dirname "$0")/../.."
say() { printf '[bench] llama: %s\n' "$*" >&2; }

requirements=bench/llama/requirements.txt
version=$(sed -n 's/^llama-cpp-python\[server\]==\(.*\)$/\1/p' "$requirements")
[ -n "$version" ] || { echo "no llama-cpp-python pin in $requirements" >&2; exit 1; }

[ -x bench/.venv/bin/python ] || python3 -m venv bench/.venv
pip=(bench/.venv/bin/pip --disable-pip-version-check --quiet)

python_tag=$(bench/.venv/bin/python -c 'import sys; print(f"cp{sys.version_info[0]}{sys.version_info[1]}")')
cpu_key=$( (uname -m; grep -m1 '^flags' /proc/cpuinfo 2>/dev/null || true) | sha256sum | cut -c1-12)
wheels="bench/.cache/wheels/llama-cpp-python-$version-$python_tag-$cpu_key"
built=false
build_seconds=null
if ! ls "$wheels"/llama_cpp_python-"$version"-*.whl >/dev/null 2>&1; then
  say "building llama-cpp-python $version from source (about 6 to 7 minutes on 2 cores; once per CPU)"
  mkdir -p "$wheels.tmp"
  start=$(date +%s)
  # The sdist's build needs a C++ compiler; scikit-build-core fetches cmake and ninja from PyPI.
  CMAKE_BUILD_PARALLEL_LEVEL=$(nproc) nice -n 10 "${pip[@]}" wheel --no-deps -w "$wheels.tmp" "llama-cpp-python==$version"
  build_seconds=$(( $(date +%s) - start ))
  rm -rf "$wheels" && mv "$wheels.tmp" "$wheels"
  echo "$build_seconds" > "$wheels/build-seconds"
  built=true
fi
wheel=$(ls "$wheels"/llama_cpp_python-"$version"-*.whl | head -n1)
[ "$build_seconds" != null ] || build_seconds=$(cat "$wheels/build-seconds" 2>/dev/null || echo null)

if ! bench/.venv/bin/python - "$requirements" <<'EOF' 2>/dev/null
import sys
from importlib.metadata import version
for line in open(sys.argv[1]):
    line = line.split("#")[0].strip()
    if not line:
        continue
    name, pinned = line.split("==")
    name = name.split("[")[0]
    assert version(name) == pinned, (name, version(name), pinned)
import llama_cpp.server, gguf, numpy, openai
EOF
then
  say "installing $(grep -c '==' "$requirements") pinned packages into bench/.venv (llama-cpp-python from $wheel)"
  "${pip[@]}" install --find-links "$wheels" -r "$requirements"
fi

mkdir -p bench/.cache/wheels
cat > bench/.cache/wheels/last-install.json <<EOF
{"llama_cpp_python": "$version", "wheel": "$(basename "$wheel")", "cache_key": "$python_tag-$cpu_key", "built_now": $built, "build_seconds": $build_seconds}
EOF
