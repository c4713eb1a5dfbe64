#!/usr/bin/env python3
"""Posts the golden OTLP bodies that ttft-core writes (tests/otlp/bodies/, kept equal to the
builders' output by crates/core/tests/otlp_bodies.rs) to the strict receiver over real HTTP
on 127.0.0.1, the way a browser would (CORS preflight, then POST), and checks that

- each is accepted (200) and parses back, through the official protobuf definitions, to
  exactly the JSON that was sent: our encoding is the canonical OTLP/JSON one;
- the receiver is strict: bodies broken in each way the OTLP/JSON rules forbid are refused
  with 400 and the reason;
- CORS is answered as the Collector answers it, and refusals (4xx/5xx, no CORS) can be
  switched on for diagnosis tests.

Run: <venv>/bin/python tests/otlp/receiver_test.py (scripts/test.sh does).
"""

import copy
import glob
import json
import os
import sys
import threading
import unittest
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import receiver  # noqa: E402

PAGE_ORIGIN = "http://127.0.0.1:8787"
BODIES = sorted(glob.glob(os.path.join(HERE, "bodies", "*.json")))


def read_bytes(file_path):
    with open(file_path, "rb") as handle:
        return handle.read()


def load_json(file_path):
    return json.loads(read_bytes(file_path))


def signal_path(file_path):
    return "/v1/traces" if "traces" in os.path.basename(file_path) else "/v1/metrics"


class ReceiverTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = receiver.serve("127.0.0.1", 0, [PAGE_ORIGIN], [], True, ["retry-after"])
        cls.base = f"http://127.0.0.1:{cls.server.server_address[1]}"
        cls.thread = threading.Thread(target=cls.server.serve_forever, daemon=True)
        cls.thread.start()

    @classmethod
    def tearDownClass(cls):
        cls.server.shutdown()
        cls.server.server_close()

    def setUp(self):
        self.request("DELETE", "/received")
        self.control({"refuse_status": None, "retry_after": None, "cors": True})

    def request(self, method, path, body=None, headers=None):
        data = body if isinstance(body, (bytes, type(None))) else body.encode()
        req = urllib.request.Request(self.base + path, data=data, method=method, headers=headers or {})
        try:
            with urllib.request.urlopen(req, timeout=10) as response:
                return response.status, dict(response.headers), response.read()
        except urllib.error.HTTPError as error:
            return error.code, dict(error.headers), error.read()

    def control(self, settings):
        status, _, _ = self.request("POST", "/control", json.dumps(settings))
        self.assertEqual(status, 200)

    def preflight(self, path, origin=PAGE_ORIGIN, headers="content-type"):
        return self.request(
            "OPTIONS",
            path,
            headers={
                "Origin": origin,
                "Access-Control-Request-Method": "POST",
                "Access-Control-Request-Headers": headers,
            },
        )

    def post(self, path, body, origin=PAGE_ORIGIN, content_type="application/json"):
        return self.request(
            "POST", path, body, {"Content-Type": content_type, "Origin": origin}
        )

    def test_every_golden_body_is_accepted_and_parses_back_to_itself(self):
        self.assertGreaterEqual(len(BODIES), 4, "the golden bodies are missing")
        for file_path in BODIES:
            with self.subTest(body=os.path.basename(file_path)):
                path = signal_path(file_path)
                raw = read_bytes(file_path)
                status, headers, _ = self.preflight(path)
                self.assertEqual(status, 204)
                self.assertEqual(headers.get("Access-Control-Allow-Origin"), PAGE_ORIGIN)
                status, headers, body = self.post(path, raw)
                self.assertEqual(status, 200, body)
                self.assertEqual(headers.get("Access-Control-Allow-Origin"), PAGE_ORIGIN)
        _, _, received = self.request("GET", "/received")
        received = json.loads(received)["requests"]
        self.assertEqual(len(received), len(BODIES))
        for file_path, stored in zip(BODIES, received):
            sent = load_json(file_path)
            self.assertEqual(stored["body"], sent, os.path.basename(file_path))
            self.assertEqual(stored["headers"]["origin"], PAGE_ORIGIN)

    def test_bodies_breaking_the_otlp_json_rules_are_refused_with_the_reason(self):
        metrics = load_json(os.path.join(HERE, "bodies", "metrics.json"))
        traces = load_json(os.path.join(HERE, "bodies", "traces.json"))

        def metric(body):
            return body["resourceMetrics"][0]["scopeMetrics"][0]["metrics"][0]

        def point(body):
            return metric(body)["histogram"]["dataPoints"][0]

        def span(body):
            return body["resourceSpans"][0]["scopeSpans"][0]["spans"][0]

        def snake_case(body):
            point(body)["time_unix_nano"] = point(body).pop("timeUnixNano")

        def enum_name(body):
            span(body)["kind"] = "SPAN_KIND_CLIENT"

        def int64_number(body):
            point(body)["count"] = int(point(body)["count"])

        def unknown_field(body):
            span(body)["flavour"] = "vanilla"

        def base64_trace_id(body):
            span(body)["traceId"] = "oaGhoaGhoaGhoaGhoaGhoQ=="

        def zero_span_id(body):
            span(body)["spanId"] = "0" * 16

        def short_buckets(body):
            point(body)["bucketCounts"].pop()

        def count_mismatch(body):
            point(body)["count"] = "99"

        def enum_temporality_name(body):
            metric(body)["histogram"]["aggregationTemporality"] = "AGGREGATION_TEMPORALITY_DELTA"

        cases = [
            ("/v1/metrics", metrics, snake_case, "underscore"),
            ("/v1/traces", traces, enum_name, "enum values must be integers"),
            ("/v1/metrics", metrics, int64_number, "decimal strings"),
            ("/v1/traces", traces, unknown_field, "no field 'flavour'"),
            ("/v1/traces", traces, base64_trace_id, "32 hex characters"),
            ("/v1/traces", traces, zero_span_id, "all zeros"),
            ("/v1/metrics", metrics, short_buckets, "must be one more"),
            ("/v1/metrics", metrics, count_mismatch, "add up to"),
            ("/v1/metrics", metrics, enum_temporality_name, "enum values must be integers"),
        ]
        for path, original, breaking, reason in cases:
            with self.subTest(case=breaking.__name__):
                body = copy.deepcopy(original)
                breaking(body)
                status, _, answer = self.post(path, json.dumps(body))
                self.assertEqual(status, 400, answer)
                self.assertIn(reason, json.loads(answer)["message"])
        status, _, _ = self.post("/v1/traces", "{\"resourceSpans\": [], \"resourceSpans\": []}")
        self.assertEqual(status, 400, "duplicate keys")
        status, _, _ = self.post("/v1/metrics", json.dumps(metrics), content_type="text/plain")
        self.assertEqual(status, 415)
        _, _, received = self.request("GET", "/received")
        self.assertEqual(json.loads(received)["requests"], [])
        _, _, rejected = self.request("GET", "/rejected")
        self.assertEqual(len(json.loads(rejected)["requests"]), len(cases) + 1)

    def test_cors_is_answered_as_the_collector_answers_it(self):
        status, headers, _ = self.preflight("/v1/traces", headers="content-type,x-api-token")
        self.assertEqual(status, 204)
        self.assertNotIn("Access-Control-Allow-Origin", headers, "x-api-token is not allowed")
        status, headers, _ = self.preflight("/v1/traces", origin="https://elsewhere.example")
        self.assertEqual(status, 204)
        self.assertNotIn("Access-Control-Allow-Origin", headers)
        self.assertIn("Origin", headers["Vary"])
        status, headers, _ = self.preflight("/v1/metrics")
        self.assertEqual(headers["Access-Control-Allow-Methods"], "POST")
        self.assertEqual(headers["Access-Control-Allow-Headers"], "content-type")
        self.assertEqual(headers["Access-Control-Allow-Credentials"], "true")
        self.control({"cors": False})
        status, headers, _ = self.preflight("/v1/metrics")
        self.assertEqual(status, 405, "no cors configuration: the OTLP handler refuses OPTIONS")
        self.assertNotIn("Access-Control-Allow-Origin", headers)

    def test_refusals_can_be_switched_on_for_diagnosis_tests(self):
        raw = read_bytes(BODIES[0])
        path = signal_path(BODIES[0])
        self.control({"refuse_status": 503, "retry_after": "2"})
        status, headers, body = self.post(path, raw)
        self.assertEqual((status, headers.get("Retry-After")), (503, "2"))
        self.assertEqual(headers.get("Access-Control-Expose-Headers"), "Retry-After")
        self.assertIn("message", json.loads(body))
        self.assertEqual(headers.get("Access-Control-Allow-Origin"), PAGE_ORIGIN)
        self.control({"refuse_status": 401, "retry_after": None})
        status, headers, _ = self.post(path, raw)
        self.assertEqual(status, 401)
        self.assertNotIn("Retry-After", headers)
        _, _, received = self.request("GET", "/received")
        self.assertEqual(json.loads(received)["requests"], [])

    def test_the_command_line_check_refuses_a_broken_file(self):
        broken = os.path.join(HERE, "bodies", "..", "broken-metrics.tmp.json")
        metrics = load_json(os.path.join(HERE, "bodies", "metrics.json"))
        metrics["resourceMetrics"][0]["schema_url"] = "x"
        try:
            with open(broken, "w") as handle:
                json.dump(metrics, handle)
            self.assertEqual(receiver.check_files([broken]), 1)
            self.assertEqual(receiver.check_files(BODIES), 0)
        finally:
            os.remove(broken)


if __name__ == "__main__":
    result = unittest.main(exit=False, verbosity=1).result
    failed = len(result.failures) + len(result.errors)
    print(f"{result.testsRun - failed} passed, {failed} failed")
    sys.exit(1 if failed or not result.wasSuccessful() else 0)
