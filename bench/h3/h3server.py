#!/usr/bin/env python3
"""A small OpenAI-compatible streaming endpoint over HTTP/3 (aioquic) and, on the same port
number over TCP+TLS, HTTP/2 and HTTP/1.1 (the `h2` package and a hand-written HTTP/1.1), for
bench/h3 (issue 21 item 7: what Chromium does against an endpoint that offers HTTP/3).

Routes (the same on every protocol):
  POST /v1/chat/completions  200 text/event-stream: headers at once, then after --prefill-ms
                             --chunks SSE chunks --itl-ms apart, then `data: [DONE]`.
  GET  /v1/models            {"object":"list","data":[{"id":"m","object":"model"}]}
  OPTIONS *                  CORS preflight: 204, allow-headers `authorization, content-type`,
                             max-age 600.
  anything else              404.
Every answer carries `access-control-allow-origin: *` and `timing-allow-origin: *`; with
--alt-svc the TCP answers also carry `alt-svc: h3=":PORT"; ma=86400` (PORT = the UDP port).

Listens on 127.0.0.1 and ::1 (Chromium resolves `localhost` to both), UDP for QUIC and TCP
for TLS, on one port number (--port; 0 = a free one). Prints one line
`h3server listening on PORT` when ready, then one JSON line per event on stdout (the
server's truth about connections), `t` in Unix ms: {"ev": "open"} when a connection's handshake
is complete, {"ev": "req", "req_on_conn", "method", "path"} when a request has arrived whole,
{"ev": "end"} when its answer is sent, {"ev": "close", "error", "reason"} (QUIC: the error
code, e.g. 0x12e = TLS alert 46 certificate_unknown from the client); each with "proto", "conn"
(connections numbered in order across all protocols) and "peer".
"""
from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import socket
import ssl
import sys
import time

from aioquic.asyncio import QuicConnectionProtocol, serve
from aioquic.h3.connection import H3_ALPN, H3Connection
from aioquic.h3.events import DataReceived, HeadersReceived
from aioquic.quic.configuration import QuicConfiguration
from aioquic.quic.events import ConnectionTerminated, HandshakeCompleted, ProtocolNegotiated

CONN_IDS = itertools.count(1)
ARGS: argparse.Namespace


def log(**fields) -> None:
    fields = {"t": round(time.time() * 1000, 1), **fields}
    print(json.dumps(fields), flush=True)


def chunk(text: str) -> bytes:
    obj = {"id": "x", "object": "chat.completion.chunk", "created": 0, "model": "m",
           "choices": [{"index": 0, "delta": {"content": text}, "finish_reason": None}]}
    return b"data: " + json.dumps(obj, separators=(",", ":")).encode() + b"\n\n"


WORDS = ["Hello", " from", " HTTP", "/3", "!"]


def plan(method: str, path: str, tcp: bool):
    """(status, [(name, value)], [(delay_ms, bytes)]) for a request."""
    headers = [("access-control-allow-origin", "*"), ("timing-allow-origin", "*")]
    if tcp and ARGS.alt_svc:
        headers.append(("alt-svc", f'h3=":{ARGS.port}"; ma=86400'))
    path = path.split("?", 1)[0]
    if method == "OPTIONS":
        headers += [("access-control-allow-methods", "GET, POST, OPTIONS"),
                    ("access-control-allow-headers", "authorization, content-type"),
                    ("access-control-max-age", "600")]
        return 204, headers, []
    if method == "POST" and path == "/v1/chat/completions":
        headers += [("content-type", "text/event-stream"), ("cache-control", "no-cache")]
        n = max(1, ARGS.chunks)
        body = [(ARGS.prefill_ms, chunk(WORDS[0]))]
        body += [(ARGS.itl_ms, chunk(WORDS[i % len(WORDS)])) for i in range(1, n)]
        body.append((ARGS.itl_ms, b"data: [DONE]\n\n"))
        return 200, headers, body
    if method == "GET" and path == "/v1/models":
        data = b'{"object":"list","data":[{"id":"m","object":"model"}]}'
        headers += [("content-type", "application/json"), ("content-length", str(len(data)))]
        return 200, headers, [(0, data)]
    data = json.dumps({"error": {"message": f"Invalid URL ({method} {path})"}}).encode()
    headers += [("content-type", "application/json"), ("content-length", str(len(data)))]
    return 404, headers, [(0, data)]


# ------------------------------------------------------------------ HTTP/3 over QUIC
class H3Protocol(QuicConnectionProtocol):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._h3: H3Connection | None = None
        self._conn = None
        self._reqs = 0
        self._pending: dict[int, tuple[str, str]] = {}

    def quic_event_received(self, event) -> None:
        if isinstance(event, ProtocolNegotiated) and event.alpn_protocol in H3_ALPN:
            self._h3 = H3Connection(self._quic)
            self._conn = next(CONN_IDS)
        if isinstance(event, HandshakeCompleted):
            log(ev="open", proto="h3", conn=self._conn, peer=self._peer(),
                resumed=event.session_resumed, early_data=event.early_data_accepted)
        if isinstance(event, ConnectionTerminated):
            log(ev="close", proto="h3", conn=self._conn, peer=self._peer(),
                error=hex(event.error_code), reason=event.reason_phrase)
        if self._h3 is None:
            return
        for ev in self._h3.handle_event(event):
            if isinstance(ev, HeadersReceived):
                h = {k.decode(): v.decode() for k, v in ev.headers}
                self._pending[ev.stream_id] = (h.get(":method", ""), h.get(":path", ""))
                if ev.stream_ended:
                    self._start(ev.stream_id)
            elif isinstance(ev, DataReceived) and ev.stream_ended:
                self._start(ev.stream_id)

    def _start(self, stream_id: int) -> None:
        if stream_id not in self._pending:
            return
        method, path = self._pending.pop(stream_id)
        self._reqs += 1
        log(ev="req", proto="h3", conn=self._conn, req_on_conn=self._reqs, method=method, path=path, peer=self._peer())
        asyncio.ensure_future(self._respond(stream_id, method, path, self._reqs))

    def _peer(self) -> str:
        paths = getattr(self._quic, "_network_paths", None)
        return paths[0].addr[0] if paths else "?"

    async def _respond(self, stream_id: int, method: str, path: str, req: int) -> None:
        status, headers, body = plan(method, path, tcp=False)
        hs = [(b":status", str(status).encode())] + [(k.encode(), v.encode()) for k, v in headers]
        self._h3.send_headers(stream_id, hs, end_stream=not body)
        self.transmit()
        for i, (delay, data) in enumerate(body):
            if delay:
                await asyncio.sleep(delay / 1000)
            self._h3.send_data(stream_id, data, end_stream=i == len(body) - 1)
            self.transmit()
        log(ev="end", proto="h3", conn=self._conn, req_on_conn=req)


# ------------------------------------------------------------------ TCP + TLS: h2 or http/1.1
async def tcp_client(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    sslobj = writer.get_extra_info("ssl_object")
    alpn = sslobj.selected_alpn_protocol() if sslobj else None
    peer = writer.get_extra_info("peername")[0]
    conn = next(CONN_IDS)
    log(ev="open", proto=alpn or "http/1.1", conn=conn, peer=peer)
    try:
        if alpn == "h2":
            await serve_h2(reader, writer, conn, peer)
        else:
            await serve_h1(reader, writer, conn, peer)
    except (ConnectionError, asyncio.IncompleteReadError, ssl.SSLError):
        pass
    finally:
        log(ev="close", proto=alpn or "http/1.1", conn=conn, peer=peer)
        writer.close()


async def serve_h1(reader, writer, conn: int, peer: str) -> None:
    reqs = 0
    while True:
        head = await reader.readuntil(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        method, path, _ = lines[0].split(" ", 2)
        hdrs = {k.strip().lower(): v.strip() for k, v in (l.split(":", 1) for l in lines[1:] if ":" in l)}
        if int(hdrs.get("content-length", "0") or 0):
            await reader.readexactly(int(hdrs["content-length"]))
        reqs += 1
        log(ev="req", proto="http/1.1", conn=conn, req_on_conn=reqs, method=method, path=path, peer=peer)
        status, headers, body = plan(method, path, tcp=True)
        chunked = bool(body) and not any(k == "content-length" for k, _ in headers)
        if chunked:
            headers.append(("transfer-encoding", "chunked"))
        out = f"HTTP/1.1 {status} {'OK' if status < 300 else 'Not Found'}\r\n"
        out += "".join(f"{k}: {v}\r\n" for k, v in headers) + "\r\n"
        writer.write(out.encode())
        await writer.drain()
        for delay, data in body:
            if delay:
                await asyncio.sleep(delay / 1000)
            writer.write(b"%x\r\n%s\r\n" % (len(data), data) if chunked else data)
            await writer.drain()
        if chunked:
            writer.write(b"0\r\n\r\n")
            await writer.drain()
        log(ev="end", proto="http/1.1", conn=conn, req_on_conn=reqs)


async def serve_h2(reader, writer, conn: int, peer: str) -> None:
    import h2.config
    import h2.connection
    import h2.events

    h2c = h2.connection.H2Connection(h2.config.H2Configuration(client_side=False, header_encoding="utf-8"))
    h2c.initiate_connection()
    writer.write(h2c.data_to_send())
    pending: dict[int, tuple[str, str]] = {}
    reqs = 0

    async def respond(stream_id: int, method: str, path: str, req: int) -> None:
        status, headers, body = plan(method, path, tcp=True)
        h2c.send_headers(stream_id, [(":status", str(status))] + headers, end_stream=not body)
        writer.write(h2c.data_to_send())
        await writer.drain()
        for i, (delay, data) in enumerate(body):
            if delay:
                await asyncio.sleep(delay / 1000)
            h2c.send_data(stream_id, data, end_stream=i == len(body) - 1)
            writer.write(h2c.data_to_send())
            await writer.drain()
        log(ev="end", proto="h2", conn=conn, req_on_conn=req)

    while True:
        data = await reader.read(65536)
        if not data:
            return
        for ev in h2c.receive_data(data):
            if isinstance(ev, h2.events.RequestReceived):
                h = dict(ev.headers)
                pending[ev.stream_id] = (h.get(":method", ""), h.get(":path", ""))
            elif isinstance(ev, h2.events.DataReceived):
                h2c.acknowledge_received_data(ev.flow_controlled_length, ev.stream_id)
            if isinstance(ev, h2.events.StreamEnded) and ev.stream_id in pending:
                method, path = pending.pop(ev.stream_id)
                reqs += 1
                log(ev="req", proto="h2", conn=conn, req_on_conn=reqs, method=method, path=path, peer=peer)
                asyncio.ensure_future(respond(ev.stream_id, method, path, reqs))
            elif isinstance(ev, h2.events.ConnectionTerminated):
                return
        writer.write(h2c.data_to_send())
        await writer.drain()


# ------------------------------------------------------------------ main
def pick_port() -> int:
    """A port number free for TCP and UDP on 127.0.0.1 and ::1 (bounded tries)."""
    for _ in range(50):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        s.close()
        ok = True
        for fam, host in ((socket.AF_INET, "127.0.0.1"), (socket.AF_INET6, "::1")):
            for typ in (socket.SOCK_STREAM, socket.SOCK_DGRAM):
                t = socket.socket(fam, typ)
                try:
                    t.bind((host, port))
                except OSError:
                    ok = False
                finally:
                    t.close()
        if ok:
            return port
    raise SystemExit("no free port")


async def main() -> None:
    global ARGS
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--cert", required=True)
    p.add_argument("--key", required=True)
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--prefill-ms", type=float, default=300)
    p.add_argument("--itl-ms", type=float, default=20)
    p.add_argument("--chunks", type=int, default=5)
    p.add_argument("--alt-svc", action="store_true", help="send alt-svc h3 on TCP answers")
    p.add_argument("--tcp-alpn", default="h2,http/1.1", help="ALPN offer on TCP ('' = no TCP listener)")
    p.add_argument("--no-ipv6", action="store_true")
    ARGS = p.parse_args()
    if ARGS.port == 0:
        ARGS.port = pick_port()
    hosts = ["127.0.0.1"] + ([] if ARGS.no_ipv6 else ["::1"])

    qc = QuicConfiguration(alpn_protocols=H3_ALPN, is_client=False, max_datagram_frame_size=65536)
    qc.load_cert_chain(ARGS.cert, ARGS.key)
    for host in hosts:
        await serve(host, ARGS.port, configuration=qc, create_protocol=H3Protocol)

    if ARGS.tcp_alpn:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(ARGS.cert, ARGS.key)
        ctx.set_alpn_protocols([a for a in ARGS.tcp_alpn.split(",") if a])
        for host in hosts:
            await asyncio.start_server(tcp_client, host, ARGS.port, ssl=ctx)

    print(f"h3server listening on {ARGS.port}", flush=True)
    await asyncio.Event().wait()


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        sys.exit(0)
