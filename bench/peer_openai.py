"""Peer for the fidelity benchmark: the official `openai` Python SDK, timed the way the
usual latency articles do it (a perf_counter stamp before `create(stream=True)`, then the
first chunk of any kind, and the first chunk whose `delta.content` is non-empty).

Usage: peer_openai.py BASE_URL MODEL RUNS   (one client, one warm-up request, then RUNS)
Prints one JSON object: {"first_chunk_ms": [...], "first_content_ms": [...], "cold": {...}}.

       peer_openai.py --plan PLAN.json   (the real-server section, bench/llama/)
PLAN.json: {"base_url", "model", "requests": [{"id", "prompt", "max_tokens"}]}. One client,
one warm-up request ("Hello", max_tokens 1: opens the connection), then each request in
order, each prompt sent as given (the caller puts a unique nonce at position 0). Prints
{"openai_version", "warmup": {...}, "results": [{"id", "first_chunk_ms", "first_content_ms"}]}.
"""

import json
import sys
import time

from openai import OpenAI


def one(client, model, prompt="Hello", max_tokens=None):
    extra = {} if max_tokens is None else {"max_tokens": max_tokens}
    start = time.perf_counter()
    stream = client.chat.completions.create(
        model=model,
        messages=[{"role": "user", "content": prompt}],
        stream=True,
        **extra,
    )
    first_chunk = None
    first_content = None
    for chunk in stream:
        now = time.perf_counter()
        if first_chunk is None:
            first_chunk = now
        if first_content is None and chunk.choices and chunk.choices[0].delta.content:
            first_content = now

    def ms(stamp):
        return None if stamp is None else (stamp - start) * 1000.0

    return ms(first_chunk), ms(first_content)


def run_plan(path):
    with open(path, encoding="utf-8") as file:
        plan = json.load(file)
    client = OpenAI(base_url=plan["base_url"], api_key=plan.get("api_key", "sk-bench"))
    warm_chunk, warm_content = one(client, plan["model"], "Hello", 1)
    results = []
    for request in plan["requests"]:
        chunk_ms, content_ms = one(client, plan["model"], request["prompt"], request.get("max_tokens"))
        results.append({"id": request["id"], "first_chunk_ms": chunk_ms, "first_content_ms": content_ms})
    print(json.dumps({
        "openai_version": __import__("openai").__version__,
        "warmup": {"first_chunk_ms": warm_chunk, "first_content_ms": warm_content},
        "results": results,
    }))


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--plan":
        run_plan(sys.argv[2])
        return
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
