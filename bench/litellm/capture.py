#!/usr/bin/env python3
"""Captures what LiteLLM's proxy answers to the requests TTFT Meter makes (issue 22, item 5).

Usage: capture.py --proxy http://127.0.0.1:PORT --key KEY --out DIR [--no-master-key]

Writes one JSON file per case into DIR:
  {"case", "request": {"method", "path", "headers", "body"}, "status", "headers", "body"}
with the key replaced by "KEY" everywhere, response headers in the order received (names
lower-cased; a repeated header's values joined by ", "), and the streamed case's raw body
also as DIR/g_stream.sse. Standard library only, so any python3 runs it.
"""
import argparse
import http.client
import json
import os
import sys
import time
import urllib.parse

ORIGIN = "http://localhost:5173"  # a page of another origin, as the widget's is
WRONG_KEY = "sk-wrong-0000000000000000"
PROMPT = [{"role": "user", "content": "Hello, world!"}]


def request(base, method, path, headers, body=None, stream=False):
    u = urllib.parse.urlsplit(base)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=60)
    data = None if body is None else json.dumps(body).encode()
    t0 = time.perf_counter()
    conn.putrequest(method, path, skip_accept_encoding=True)
    for k, v in headers.items():
        conn.putheader(k, v)
    if data is not None:
        conn.putheader("Content-Length", str(len(data)))
    conn.endheaders(data)
    resp = conn.getresponse()
    t_headers = time.perf_counter() - t0
    raw = b""
    chunks = []
    while True:
        part = resp.read1(65536) if stream else resp.read()
        if not part:
            break
        chunks.append([round((time.perf_counter() - t0) * 1000, 2), len(part)])
        raw += part
        if not stream:
            break
    conn.close()
    hdrs = {}
    for k, v in resp.getheaders():
        k = k.lower()
        hdrs[k] = v if k not in hdrs else hdrs[k] + ", " + v
    return resp.status, hdrs, raw, round(t_headers * 1000, 2), chunks


def scrub(x, key):
    if not key:
        return x
    if isinstance(x, str):
        return x.replace(key, "KEY")
    if isinstance(x, dict):
        return {scrub(k, key): scrub(v, key) for k, v in x.items()}
    if isinstance(x, list):
        return [scrub(v, key) for v in x]
    return x


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--proxy", required=True)
    ap.add_argument("--key", required=True, help="the proxy's master key (or any key without one)")
    ap.add_argument("--out", required=True)
    ap.add_argument("--model", default="sim-fast")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    key = args.key
    chat = {"model": args.model, "messages": PROMPT}
    stream_body = dict(chat, stream=True, stream_options={"include_usage": True})
    json_h = {"Content-Type": "application/json", "Origin": ORIGIN}
    bearer = {"Authorization": f"Bearer {key}"}
    cases = [
        ("a_right_key", "POST", "/v1/chat/completions", {**json_h, **bearer}, chat),
        ("b_wrong_key", "POST", "/v1/chat/completions",
         {**json_h, "Authorization": f"Bearer {WRONG_KEY}"}, chat),
        ("b2_wrong_key_no_sk_prefix", "POST", "/v1/chat/completions",
         {**json_h, "Authorization": "Bearer wrong-key"}, chat),
        ("c_no_authorization", "POST", "/v1/chat/completions", json_h, chat),
        ("d_bearer_empty", "POST", "/v1/chat/completions", {**json_h, "Authorization": "Bearer "}, chat),
        ("d2_key_without_bearer", "POST", "/v1/chat/completions", {**json_h, "Authorization": key}, chat),
        ("e_x_api_key", "POST", "/v1/chat/completions", {**json_h, "x-api-key": key}, chat),
        ("e2_x_api_key_wrong", "POST", "/v1/chat/completions", {**json_h, "x-api-key": WRONG_KEY}, chat),
        ("f_unknown_model", "POST", "/v1/chat/completions", {**json_h, **bearer},
         dict(chat, model="no-such-model")),
        ("f2_unknown_model_wrong_key", "POST", "/v1/chat/completions",
         {**json_h, "Authorization": f"Bearer {WRONG_KEY}"}, dict(chat, model="no-such-model")),
        ("g_stream", "POST", "/v1/chat/completions",
         {**json_h, **bearer, "Accept": "text/event-stream"}, stream_body),
        ("h_preflight", "OPTIONS", "/v1/chat/completions",
         {"Origin": ORIGIN, "Access-Control-Request-Method": "POST",
          "Access-Control-Request-Headers": "authorization, content-type"}, None),
        ("h2_preflight_x_api_key", "OPTIONS", "/v1/chat/completions",
         {"Origin": ORIGIN, "Access-Control-Request-Method": "POST",
          "Access-Control-Request-Headers": "content-type, x-api-key"}, None),
    ]
    for path in ("/model/info", "/v1/model/info", "/v1/models", "/model_group/info"):
        slug = path.strip("/").replace("/", "_")
        cases.append((f"i_{slug}_with_key", "GET", path, {"Origin": ORIGIN, **bearer}, None))
        cases.append((f"i_{slug}_without_key", "GET", path, {"Origin": ORIGIN}, None))
    summary = []
    for name, method, path, headers, body in cases:
        stream = name == "g_stream"
        status, hdrs, raw, t_headers, chunks = request(args.proxy, method, path, headers, body, stream)
        text = raw.decode("utf-8", "replace")
        rec = {
            "case": name,
            "request": {"method": method, "path": path, "headers": headers,
                        "body": None if body is None else json.dumps(body)},
            "status": status,
            "headers": hdrs,
            "body": text,
        }
        if stream:
            rec["timing_ms"] = {"headers": t_headers, "reads": chunks}
            with open(os.path.join(args.out, "g_stream.sse"), "w", encoding="utf-8") as f:
                f.write(scrub(text, key))
        with open(os.path.join(args.out, name + ".json"), "w", encoding="utf-8") as f:
            json.dump(scrub(rec, key), f, indent=2, ensure_ascii=False)
            f.write("\n")
        short = text if len(text) <= 160 else text[:157] + "..."
        summary.append(f"{name:34} {status}  {scrub(short, key)!r}")
    print("\n".join(summary))


if __name__ == "__main__":
    sys.exit(main())
