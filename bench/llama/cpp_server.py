"""Serves a GGUF with llama.cpp's own C++ server (llama-server), as packaged by xllamacpp.

xllamacpp (PyPI, prebuilt CPU wheel, pinned in bench/llama/requirements-server.txt) compiles
llama.cpp's tools/server into a Python extension: `xllamacpp.Server(params)` starts the same
HTTP server as the `llama-server` binary (cpp-httplib, the same routes, the same streamed
chunks, `timings` on the final chunk of /v1/chat/completions) on a background thread, with
the command-line options as `CommonParams` fields. This script sets the fields the benchmark
needs, prints one JSON line ({"url": ..., "version": ..., "build": ...}) once the server
listens, and keeps the process alive until SIGTERM/SIGINT or its stdin closes.

Usage: cpp_server.py MODEL.gguf --alias NAME [--host 127.0.0.1] [--port 0] [--n-ctx 8192]
       [--threads 1] [--parallel 1]
"""

import argparse
import json
import signal
import sys
import threading

import xllamacpp


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("model")
    parser.add_argument("--alias", required=True)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--n-ctx", type=int, default=8192)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--parallel", type=int, default=1, help="slots (llama-server -np)")
    args = parser.parse_args()

    params = xllamacpp.CommonParams()
    params.model.path = args.model
    params.model_alias = {args.alias}
    params.hostnames = [args.host]
    params.port = args.port
    params.n_ctx = args.n_ctx
    params.n_parallel = args.parallel
    params.cpuparams.n_threads = args.threads
    params.cpuparams_batch.n_threads = args.threads
    # No web UI: the API only (llama-server --no-webui).
    params.ui = False

    server = xllamacpp.Server(params)
    print(json.dumps({
        "url": server.listening_address,
        "version": xllamacpp.__version__,
        "build": getattr(xllamacpp, "BUILD_INFO", None),
    }), flush=True)

    done = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: done.set())
    # The parent closes stdin when it goes away without a signal.
    threading.Thread(target=lambda: (sys.stdin.read(), done.set()), daemon=True).start()
    done.wait()
    # The server thread is native; leave without running its destructors on this thread.
    sys.stdout.flush()
    sys.stderr.flush()
    import os

    os._exit(0)


if __name__ == "__main__":
    main()
