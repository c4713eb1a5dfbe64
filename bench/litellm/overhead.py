#!/usr/bin/env python3
"""Gateway overhead: N streamed chat requests straight to ttft-sim and N through LiteLLM,
alternating, each on a new connection; times (ms from the first byte of the request sent)
to the response headers, to the first body byte and to the first content token (the first
SSE event whose choices[0].delta.content is non-empty), and what LiteLLM says in its
x-litellm-*-duration-ms headers. Standard library only.

With --recorder (ttft-sim started with --record-requests; its recorder is cleared first), the
time each request reached ttft-sim splits LiteLLM's share in two: `forward` (client sent ->
upstream received; the clocks are aligned on the direct requests, whose forward time is taken
as 0, error < 0.3 ms) and `back` (ttft-sim's first token, at arrival + x-sim-first-token-ms
-> the client read it).

Usage: overhead.py --sim URL --proxy URL --key KEY [--n 20] [--warmup 3] [--model sim-fast]
                   [--recorder] [--json OUT.json]
"""
import argparse
import http.client
import json
import statistics
import time
import urllib.parse

PROMPT = [{"role": "user", "content": "Hello, world!"}]


def one(base, key, model):
    u = urllib.parse.urlsplit(base)
    body = json.dumps({"model": model, "messages": PROMPT, "stream": True,
                       "stream_options": {"include_usage": True}}).encode()
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=60)
    conn.connect()  # the TCP handshake is not timed (loopback: ~0.1 ms)
    t0 = time.perf_counter()
    conn.putrequest("POST", "/v1/chat/completions", skip_accept_encoding=True)
    for k, v in (("Content-Type", "application/json"), ("Authorization", f"Bearer {key}"),
                 ("Content-Length", str(len(body)))):
        conn.putheader(k, v)
    conn.endheaders(body)
    resp = conn.getresponse()
    ms = lambda: round((time.perf_counter() - t0) * 1000, 2)  # noqa: E731
    r = {"sent_at": t0, "status": resp.status, "headers_ms": ms(), "first_byte_ms": None, "first_content_ms": None,
         "done_ms": None, "content_events": 0}
    h = {k.lower(): v for k, v in resp.getheaders()}
    for name in ("x-litellm-response-duration-ms", "x-litellm-overhead-duration-ms",
                 "x-litellm-callback-duration-ms", "x-litellm-timing-pre-processing-ms",
                 "x-litellm-timing-llm-api-ms", "x-litellm-timing-post-processing-ms",
                 "x-sim-first-token-ms", "llm_provider-x-sim-first-token-ms"):
        if name in h:
            r[name] = float(h[name]) if h[name] not in ("None", "") else None
    buf = b""
    while True:
        part = resp.read1(65536)
        if not part:
            break
        if r["first_byte_ms"] is None:
            r["first_byte_ms"] = ms()
        buf += part
        while b"\n\n" in buf:
            event, buf = buf.split(b"\n\n", 1)
            for line in event.split(b"\n"):
                if not line.startswith(b"data:"):
                    continue
                data = line[5:].strip()
                if data == b"[DONE]":
                    r["done_ms"] = ms()
                    continue
                try:
                    obj = json.loads(data)
                except ValueError:
                    continue
                ch = obj.get("choices") or []
                if ch and (ch[0].get("delta") or {}).get("content"):
                    r["content_events"] += 1
                    if r["first_content_ms"] is None:
                        r["first_content_ms"] = ms()
    conn.close()
    return r


def sim_call(base, method):
    u = urllib.parse.urlsplit(base)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=30)
    conn.request(method, "/__sim/requests")
    resp = conn.getresponse()
    body = resp.read()
    conn.close()
    if resp.status not in (200, 204):
        raise SystemExit(f"{method} /__sim/requests: {resp.status} (start ttft-sim with --record-requests)")
    return json.loads(body) if method == "GET" else None


def split_with_recorder(sim, warm, runs):
    """Pairs each client request with its arrival at ttft-sim (same order: requests are serial)."""
    arrivals = [r for r in sim_call(sim, "GET")["requests"]
                if r["method"] == "POST" and r["path"] == "/v1/chat/completions"]
    ours = []
    for i in range(len(warm["direct"]) + len(runs["direct"])):
        for name in ("direct", "litellm"):
            src = warm if i < len(warm["direct"]) else runs
            ours.append((name, src[name][i - (0 if src is warm else len(warm["direct"]))]))
    if len(arrivals) != len(ours):
        print(f"recorder: {len(arrivals)} arrivals for {len(ours)} requests; no forward/back split")
        return
    # at_ms counts from ttft-sim's start, on the same monotonic clock as perf_counter (Linux)
    offset = min(a["at_ms"] - r["sent_at"] * 1000 for (name, r), a in zip(ours, arrivals) if name == "direct")
    for (name, r), a in zip(ours, arrivals):
        fwd = a["at_ms"] - offset - r["sent_at"] * 1000
        first = r.get("x-sim-first-token-ms", r.get("llm_provider-x-sim-first-token-ms"))
        r["forward_ms"] = round(fwd, 2)
        r["back_ms"] = round(r["first_content_ms"] - fwd - first, 2) if first is not None else None
        r["upstream_connection"] = [a.get("connection"), a.get("connection_request")]


def stats(xs):
    xs = [x for x in xs if x is not None]
    if not xs:
        return None
    s = sorted(xs)
    return {"n": len(s), "median": round(statistics.median(s), 2), "mean": round(statistics.fmean(s), 2),
            "min": round(s[0], 2), "p90": round(s[min(len(s) - 1, int(0.9 * len(s)))], 2),
            "max": round(s[-1], 2)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sim", required=True)
    ap.add_argument("--proxy", required=True)
    ap.add_argument("--key", required=True)
    ap.add_argument("--n", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--model", default="sim-fast")
    ap.add_argument("--pause", type=float, default=0.2, help="seconds between requests")
    ap.add_argument("--recorder", action="store_true", help="split forward/back with ttft-sim's recorder")
    ap.add_argument("--json")
    a = ap.parse_args()
    if a.recorder:
        sim_call(a.sim, "DELETE")
    warm = {"direct": [], "litellm": []}
    runs = {"direct": [], "litellm": []}
    for i in range(a.warmup + a.n):
        for name, base in (("direct", a.sim), ("litellm", a.proxy)):
            (warm if i < a.warmup else runs)[name].append(one(base, a.key, a.model))
            time.sleep(a.pause)
    if a.recorder:
        split_with_recorder(a.sim, warm, runs)
    out = {"n": a.n, "warmup": a.warmup, "model": a.model, "warmup_runs": warm, "runs": runs, "summary": {}}
    for name in runs:
        out["summary"][name] = {k: stats([r.get(k) for r in runs[name]]) for k in (
            "headers_ms", "first_byte_ms", "first_content_ms", "done_ms", "x-sim-first-token-ms",
            "llm_provider-x-sim-first-token-ms", "x-litellm-response-duration-ms",
            "x-litellm-overhead-duration-ms", "x-litellm-timing-pre-processing-ms",
            "x-litellm-timing-llm-api-ms", "x-litellm-timing-post-processing-ms", "forward_ms", "back_ms")}
        out["summary"][name] = {k: v for k, v in out["summary"][name].items() if v}
    pairs = list(zip(runs["direct"], runs["litellm"]))
    out["summary"]["added_by_litellm"] = {
        k: stats([p[1][k] - p[0][k] for p in pairs if p[0][k] is not None and p[1][k] is not None])
        for k in ("headers_ms", "first_byte_ms", "first_content_ms", "done_ms")}
    out["summary"]["added_minus_reported_overhead"] = stats([
        (p[1]["first_content_ms"] - p[0]["first_content_ms"]) - p[1]["x-litellm-overhead-duration-ms"]
        for p in pairs if p[1].get("x-litellm-overhead-duration-ms") is not None])
    if a.json:
        with open(a.json, "w") as f:
            json.dump(out, f, indent=1)
            f.write("\n")
    s = out["summary"]
    print(f"{'':28}{'direct':>24}{'litellm':>24}{'added (paired)':>24}")
    for k in ("headers_ms", "first_byte_ms", "first_content_ms", "done_ms"):
        fmt = lambda st: "-" if not st else f"med {st['median']:7.1f} p90 {st['p90']:7.1f}"  # noqa: E731
        print(f"{k:28}{fmt(s['direct'].get(k)):>24}{fmt(s['litellm'].get(k)):>24}"
              f"{fmt(s['added_by_litellm'].get(k)):>24}")
    for k in ("x-litellm-response-duration-ms", "x-litellm-overhead-duration-ms",
              "x-litellm-timing-pre-processing-ms", "x-litellm-timing-llm-api-ms",
              "x-litellm-timing-post-processing-ms"):
        st = s["litellm"].get(k)
        if st:
            print(f"{k:40} median {st['median']:8.2f}  min {st['min']:8.2f}  max {st['max']:8.2f}")
    for k in ("forward_ms", "back_ms"):
        st = s["litellm"].get(k)
        if st:
            print(f"{'LiteLLM ' + k + ' (recorder)':40} median {st['median']:8.2f}  min {st['min']:8.2f}  "
                  f"max {st['max']:8.2f}")
    st = s["added_minus_reported_overhead"]
    if st:
        print(f"{'TTFT added - reported overhead':40} median {st['median']:8.2f}  min {st['min']:8.2f}  "
              f"max {st['max']:8.2f}")


if __name__ == "__main__":
    main()
