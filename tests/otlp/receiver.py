#!/usr/bin/env python3
"""A strict OTLP/HTTP JSON receiver for tests, on 127.0.0.1.

It accepts POST /v1/metrics and /v1/traces and parses every body with the official OTLP
protobuf definitions (PyPI opentelemetry-proto + protobuf):
``google.protobuf.json_format.Parse(body, ExportMetricsServiceRequest(),
ignore_unknown_fields=False)``. Before that, it checks what the protobuf JSON parser lets
through but the OTLP/JSON encoding rules forbid (OTLP specification, "JSON Protobuf
Encoding"):

- a JSON key with an underscore, or any key that is not the field's lowerCamelCase JSON name
  (the parser also accepts the original snake_case names);
- traceId / spanId / parentSpanId that are not hex of the right length (the parser would
  read them as base64);
- enum values written as names instead of integers;
- 64-bit integers written as JSON numbers instead of decimal strings (proto3 JSON mapping);
- duplicate keys;
and, after parsing, what protobuf cannot check: histogram bucket counts that do not match
their bounds or their count, and all-zero trace or span ids.

CORS is answered as the OpenTelemetry Collector's otlp receiver does (confighttp with
github.com/rs/cors v1.11.1, AllowCredentials: true): a preflight (OPTIONS with
Access-Control-Request-Method) gets 204 and, when the origin, method (GET, POST, HEAD) and
requested headers (default: accept, content-type, x-requested-with) are allowed, the
requested origin, method and headers echoed with Access-Control-Allow-Credentials: true;
actual requests from an allowed origin get Access-Control-Allow-Origin (the origin),
Access-Control-Expose-Headers (the --exposed-header names; Retry-After must be one for a page
to read it) and Access-Control-Allow-Credentials: true; every answer carries Vary. With CORS off (no
allowed origin, or --no-cors) the receiver answers OPTIONS with 405 as the Collector's OTLP
handler does, so a browser's preflight fails.

Routes for tests (no CORS): GET /received (what was accepted, parsed back to OTLP JSON with hex
ids), GET /rejected (what was refused and why), DELETE /received (forget both), POST /control
({"refuse_status": 503, "retry_after": "1", "cors": false}: refuse or drop CORS from now on),
GET /health.

    receiver.py [--port 0] [--allowed-origin ORIGIN]... [--allowed-header NAME]...
                [--exposed-header NAME]... [--no-cors]
    receiver.py --check FILE...   # parse files strictly, print what is wrong, exit 1 if any

It prints "otlp receiver listening on http://127.0.0.1:PORT" once ready.
"""

import argparse
import base64
import binascii
import json
import re
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from google.protobuf import json_format
from google.protobuf.descriptor import FieldDescriptor
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
    ExportMetricsServiceRequest,
)
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
)

SIGNALS = {
    "/v1/metrics": ("metrics", ExportMetricsServiceRequest),
    "/v1/traces": ("traces", ExportTraceServiceRequest),
}
# Bytes fields that OTLP/JSON writes as hex, with their lengths in bytes.
HEX_ID_FIELDS = {"traceId": 16, "spanId": 8, "parentSpanId": 8}
INT64_TYPES = {
    FieldDescriptor.TYPE_INT64,
    FieldDescriptor.TYPE_UINT64,
    FieldDescriptor.TYPE_FIXED64,
    FieldDescriptor.TYPE_SFIXED64,
    FieldDescriptor.TYPE_SINT64,
}
INT32_TYPES = {
    FieldDescriptor.TYPE_INT32,
    FieldDescriptor.TYPE_UINT32,
    FieldDescriptor.TYPE_FIXED32,
    FieldDescriptor.TYPE_SFIXED32,
    FieldDescriptor.TYPE_SINT32,
}
DOUBLE_TYPES = {FieldDescriptor.TYPE_DOUBLE, FieldDescriptor.TYPE_FLOAT}
DECIMAL = re.compile(r"^-?[0-9]+$")
HEX = re.compile(r"^[0-9a-fA-F]*$")
# rs/cors defaults as the Collector configures them.
DEFAULT_ALLOWED_HEADERS = {"accept", "content-type", "x-requested-with"}
ALLOWED_METHODS = {"GET", "POST", "HEAD"}
MAX_BODY_BYTES = 4 * 1024 * 1024


class Strictness(Exception):
    """A body that the OTLP/JSON rules forbid."""


def no_duplicate_keys(pairs):
    keys = [key for key, _ in pairs]
    duplicates = sorted({key for key in keys if keys.count(key) > 1})
    if duplicates:
        raise Strictness(f"duplicate JSON keys {duplicates}")
    return dict(pairs)


def is_repeated(field):
    # protobuf 5+ has `is_repeated`; older ones only `label`.
    repeated = getattr(field, "is_repeated", None)
    if repeated is not None:
        return repeated
    return field.label == FieldDescriptor.LABEL_REPEATED


def check_value(field, value, path):
    """Checks one (non-repeated) value of `field`; returns it as json_format.Parse wants it."""
    if field.type == FieldDescriptor.TYPE_MESSAGE:
        if not isinstance(value, dict):
            raise Strictness(f"{path}: expected an object for {field.message_type.name}")
        return check_message(field.message_type, value, path)
    if field.type == FieldDescriptor.TYPE_ENUM:
        if not isinstance(value, int) or isinstance(value, bool):
            raise Strictness(f"{path}: enum values must be integers, not {value!r}")
        return value
    if field.type in INT64_TYPES:
        if not isinstance(value, str) or not DECIMAL.match(value):
            raise Strictness(f"{path}: 64-bit integers must be decimal strings, not {value!r}")
        return value
    if field.type in INT32_TYPES:
        if not isinstance(value, int) or isinstance(value, bool):
            raise Strictness(f"{path}: expected a JSON integer, not {value!r}")
        return value
    if field.type in DOUBLE_TYPES:
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            raise Strictness(f"{path}: expected a JSON number, not {value!r}")
        return value
    if field.type == FieldDescriptor.TYPE_BOOL:
        if not isinstance(value, bool):
            raise Strictness(f"{path}: expected true or false, not {value!r}")
        return value
    if field.type == FieldDescriptor.TYPE_STRING:
        if not isinstance(value, str):
            raise Strictness(f"{path}: expected a string, not {value!r}")
        return value
    if field.type == FieldDescriptor.TYPE_BYTES:
        if not isinstance(value, str):
            raise Strictness(f"{path}: expected a string, not {value!r}")
        if field.json_name in HEX_ID_FIELDS:
            size = HEX_ID_FIELDS[field.json_name]
            allowed = {size * 2, 0} if field.json_name == "parentSpanId" else {size * 2}
            if len(value) not in allowed or not HEX.match(value):
                raise Strictness(
                    f"{path}: {field.json_name} must be {size * 2} hex characters, not {value!r}"
                )
            if value and set(value) == {"0"}:
                raise Strictness(f"{path}: {field.json_name} must not be all zeros")
            # json_format reads bytes as base64: hand it the same bytes that way.
            return base64.b64encode(bytes.fromhex(value)).decode()
        return value
    raise Strictness(f"{path}: unexpected field type {field.type}")


def check_message(descriptor, obj, path):
    """Checks every key of `obj` against `descriptor`; returns the object to Parse."""
    out = {}
    for key, value in obj.items():
        where = f"{path}.{key}"
        if "_" in key:
            raise Strictness(f"{where}: OTLP/JSON keys are lowerCamelCase; '{key}' has an underscore")
        field = descriptor.fields_by_camelcase_name.get(key)
        if field is None or field.json_name != key:
            raise Strictness(f"{where}: {descriptor.full_name} has no field '{key}'")
        if is_repeated(field):
            if not isinstance(value, list):
                raise Strictness(f"{where}: expected an array")
            out[key] = [check_value(field, item, f"{where}[{i}]") for i, item in enumerate(value)]
        else:
            out[key] = check_value(field, value, where)
    return out


def check_semantics(signal, message):
    """What protobuf cannot check about the values."""
    if signal != "metrics":
        return
    for rm in message.resource_metrics:
        for sm in rm.scope_metrics:
            for metric in sm.metrics:
                if metric.WhichOneof("data") != "histogram":
                    continue
                for point in metric.histogram.data_points:
                    if len(point.bucket_counts) != len(point.explicit_bounds) + 1:
                        raise Strictness(
                            f"{metric.name}: {len(point.bucket_counts)} bucket counts for "
                            f"{len(point.explicit_bounds)} bounds (must be one more)"
                        )
                    if sum(point.bucket_counts) != point.count:
                        raise Strictness(
                            f"{metric.name}: bucket counts add up to {sum(point.bucket_counts)}, "
                            f"count is {point.count}"
                        )
                    bounds = list(point.explicit_bounds)
                    if bounds != sorted(bounds) or len(set(bounds)) != len(bounds):
                        raise Strictness(f"{metric.name}: bounds are not strictly increasing")


def hex_ids(value):
    """MessageToDict writes bytes as base64; OTLP/JSON wants hex ids back."""
    if isinstance(value, dict):
        return {
            key: (
                base64.b64decode(item).hex()
                if key in HEX_ID_FIELDS and isinstance(item, str)
                else hex_ids(item)
            )
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [hex_ids(item) for item in value]
    return value


def parse_strict(path, raw):
    """Parses one body for `path` (/v1/metrics or /v1/traces). Returns (signal, message,
    parsed-back JSON) or raises Strictness / json_format.ParseError."""
    signal, message_type = SIGNALS[path]
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise Strictness(f"the body is not UTF-8: {error}") from error
    try:
        document = json.loads(text, object_pairs_hook=no_duplicate_keys)
    except json.JSONDecodeError as error:
        raise Strictness(f"the body is not JSON: {error}") from error
    if not isinstance(document, dict):
        raise Strictness("the body is not a JSON object")
    message = message_type()
    checked = check_message(message.DESCRIPTOR, document, "$")
    json_format.Parse(json.dumps(checked), message, ignore_unknown_fields=False)
    check_semantics(signal, message)
    back = hex_ids(json_format.MessageToDict(message, use_integers_for_enums=True))
    return signal, message, back


def status_body(code, message):
    return json.dumps({"code": code, "message": message}).encode()


class State:
    def __init__(self, allowed_origins, allowed_headers, cors, exposed_headers=()):
        self.lock = threading.Lock()
        self.received = []
        self.rejected = []
        self.allowed_origins = [origin.lower() for origin in allowed_origins]
        self.allowed_headers = (
            {header.lower() for header in allowed_headers} or set(DEFAULT_ALLOWED_HEADERS)
        )
        self.cors = cors and bool(self.allowed_origins)
        # rs/cors writes them canonicalized and joined: "Retry-After, X-Foo".
        self.exposed_headers = ", ".join(
            "-".join(part.capitalize() for part in name.split("-")) for name in exposed_headers
        )
        self.refuse_status = None
        self.retry_after = None

    def origin_allowed(self, origin):
        origin = origin.lower()
        for allowed in self.allowed_origins:
            if allowed == "*":
                return True
            if "*" in allowed:
                prefix, suffix = allowed.split("*", 1)
                if (
                    len(origin) >= len(prefix) + len(suffix)
                    and origin.startswith(prefix)
                    and origin.endswith(suffix)
                ):
                    return True
            elif allowed == origin:
                return True
        return False

    def headers_allowed(self, requested):
        if "*" in self.allowed_headers:
            return True
        names = [name.strip().lower() for name in requested.split(",") if name.strip()]
        return all(name in self.allowed_headers for name in names)


class Handler(BaseHTTPRequestHandler):
    server_version = "ttft-otlp-receiver"
    protocol_version = "HTTP/1.1"

    def log_message(self, format, *args):  # noqa: A002 - quiet: tests read /rejected.
        pass

    @property
    def state(self):
        return self.server.state

    def reply(self, status, body=b"", content_type="application/json", headers=()):
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def cors_actual(self):
        headers = [("Vary", "Origin")]
        origin = self.headers.get("Origin")
        if (
            self.state.cors
            and origin
            and self.state.origin_allowed(origin)
            and self.command in ALLOWED_METHODS
        ):
            headers.append(("Access-Control-Allow-Origin", origin))
            if self.state.exposed_headers:
                headers.append(("Access-Control-Expose-Headers", self.state.exposed_headers))
            headers.append(("Access-Control-Allow-Credentials", "true"))
        return headers

    def do_OPTIONS(self):
        path = self.path.split("?")[0]
        method = self.headers.get("Access-Control-Request-Method")
        if not self.state.cors or not method or path not in SIGNALS:
            # The Collector's OTLP handler only takes POST.
            self.reply(405, b"405 method not allowed, supported: [POST]", "text/plain")
            return
        headers = [("Vary", "Origin, Access-Control-Request-Method, Access-Control-Request-Headers")]
        origin = self.headers.get("Origin")
        requested = self.headers.get("Access-Control-Request-Headers")
        if (
            origin
            and self.state.origin_allowed(origin)
            and method.upper() in ALLOWED_METHODS
            and (requested is None or self.state.headers_allowed(requested))
        ):
            headers += [
                ("Access-Control-Allow-Origin", origin),
                ("Access-Control-Allow-Methods", method),
                ("Access-Control-Allow-Credentials", "true"),
            ]
            if requested:
                headers.append(("Access-Control-Allow-Headers", requested))
        self.send_response(204)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def read_body(self):
        length = int(self.headers.get("Content-Length") or 0)
        if length > MAX_BODY_BYTES:
            return None
        return self.rfile.read(length)

    def do_POST(self):
        path = self.path.split("?")[0]
        if path == "/control":
            body = self.read_body() or b"{}"
            control = json.loads(body)
            with self.state.lock:
                if "refuse_status" in control:
                    self.state.refuse_status = control["refuse_status"]
                if "retry_after" in control:
                    self.state.retry_after = control["retry_after"]
                if "cors" in control:
                    self.state.cors = bool(control["cors"]) and bool(self.state.allowed_origins)
            self.reply(200, b"{}")
            return
        if path not in SIGNALS:
            self.reply(404, b"404 page not found", "text/plain")
            return
        cors = self.cors_actual()
        content_type = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        if content_type != "application/json":
            self.reply(
                415,
                b"415 unsupported media type, supported: [application/json, application/x-protobuf]",
                "text/plain",
                cors,
            )
            return
        raw = self.read_body()
        if raw is None:
            self.reply(413, status_body(8, "request body too large"), headers=cors)
            return
        with self.state.lock:
            refuse, retry_after = self.state.refuse_status, self.state.retry_after
        if refuse:
            extra = [("Retry-After", str(retry_after))] if retry_after is not None else []
            self.reply(refuse, status_body(14, f"refused on request ({refuse})"), headers=cors + extra)
            return
        try:
            signal, _, back = parse_strict(path, raw)
        except (Strictness, json_format.ParseError, binascii.Error) as error:
            with self.state.lock:
                self.state.rejected.append({"path": path, "reason": str(error)})
            self.reply(400, status_body(3, str(error)), headers=cors)
            return
        captured = {
            name.lower(): value
            for name, value in self.headers.items()
            if name.lower() not in ("host", "content-length", "connection")
        }
        with self.state.lock:
            self.state.received.append(
                {"signal": signal, "path": path, "headers": captured, "body": back}
            )
        self.reply(200, b"{}", headers=cors)

    def do_GET(self):
        path = self.path.split("?")[0]
        with self.state.lock:
            if path == "/received":
                body = json.dumps({"requests": self.state.received}).encode()
            elif path == "/rejected":
                body = json.dumps({"requests": self.state.rejected}).encode()
            elif path == "/health":
                body = b'{"status":"ok"}'
            elif path in SIGNALS:
                body = None
            else:
                self.reply(404, b"404 page not found", "text/plain")
                return
        if body is None:
            self.reply(405, b"405 method not allowed, supported: [POST]", "text/plain", self.cors_actual())
            return
        self.reply(200, body)

    def do_DELETE(self):
        if self.path.split("?")[0] != "/received":
            self.reply(404, b"404 page not found", "text/plain")
            return
        with self.state.lock:
            self.state.received.clear()
            self.state.rejected.clear()
        self.reply(200, b"{}")


def serve(host, port, allowed_origins, allowed_headers, cors, exposed_headers=()):
    server = ThreadingHTTPServer((host, port), Handler)
    server.daemon_threads = True
    server.state = State(allowed_origins, allowed_headers, cors, exposed_headers)
    return server


def check_files(paths):
    failures = 0
    for file_path in paths:
        name = file_path.rsplit("/", 1)[-1]
        path = "/v1/traces" if name.startswith("traces") or "traces" in name else "/v1/metrics"
        with open(file_path, "rb") as handle:
            raw = handle.read()
        try:
            parse_strict(path, raw)
            print(f"ok   {file_path} ({path})")
        except (Strictness, json_format.ParseError, binascii.Error) as error:
            failures += 1
            print(f"FAIL {file_path} ({path}): {error}")
    return failures


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--allowed-origin", action="append", default=[])
    parser.add_argument("--allowed-header", action="append", default=[])
    parser.add_argument("--exposed-header", action="append", default=[])
    parser.add_argument("--no-cors", action="store_true")
    parser.add_argument("--check", nargs="+", metavar="FILE")
    args = parser.parse_args()
    if args.check:
        sys.exit(1 if check_files(args.check) else 0)
    if args.host not in ("127.0.0.1", "localhost", "::1"):
        parser.error("the test receiver only listens on loopback")
    server = serve(
        args.host,
        args.port,
        args.allowed_origin,
        args.allowed_header,
        not args.no_cors,
        args.exposed_header,
    )
    print(f"otlp receiver listening on http://127.0.0.1:{server.server_address[1]}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
