"""Peer for the fidelity benchmark: the official `openai` Python SDK, timed the way the
usual latency articles do it (a perf_counter stamp before `create(stream=True)`, then the
first chunk of any kind, and the first chunk whose `delta.content` is non-empty).

Usage: peer_openai.py BASE_URL MODEL RUNS   (one client, one warm-up request, then RUNS)
Prints one JSON object: {"first_chunk_ms": [...], "first_content_ms": [...], "cold": {...}}.
"""

import json
import sys
import time

from openai import OpenAI


def one(client, model):
    start = time.perf_counter()
    stream = client.chat.completions.create(
        model=model,
        messages=[{"role": "user", "content": "Hello"}],
        stream=True,
    )
    first_chunk = None
    first_content = None
    for chunk in stream:
        now = time.perf_counter()
        if first_chunk is None:
            first_chunk = now
        if first_content is None and chunk.choices and chunk.choices[0].delta.content:
            first_content = now
    return (first_chunk - start) * 1000.0, (first_content - start) * 1000.0


def main():
    base_url, model, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
    client = OpenAI(base_url=base_url, api_key="sk-bench")
    cold_chunk, cold_content = one(client, model)  # new connection: reported apart
    first_chunk_ms, first_content_ms = [], []
    for _ in range(runs):
        chunk_ms, content_ms = one(client, model)
        first_chunk_ms.append(chunk_ms)
        first_content_ms.append(content_ms)
    print(json.dumps({
        "openai_version": __import__("openai").__version__,
        "cold": {"first_chunk_ms": cold_chunk, "first_content_ms": cold_content},
        "first_chunk_ms": first_chunk_ms,
        "first_content_ms": first_content_ms,
    }))


if __name__ == "__main__":
    main()
