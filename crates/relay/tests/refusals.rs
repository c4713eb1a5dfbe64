//! Never an open proxy: every other host, path escape, absolute-form or authority-form
//! target, `CONNECT`, foreign `Host` or `Origin`, oversized head or body is refused by the
//! relay itself (its JSON and `X-TTFT-Relay-Error`), and the sim's log proves none of them
//! reached the upstream. What does reach it carries what an SDK would send.

// Test crate: helpers outside #[test] functions fail loudly by design.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use std::time::Duration;

use common::*;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpStream;

/// A raw HTTP/1.1 exchange (the request as bytes, exactly as written): the status, the
/// head's lines (lowercase) and the body.
async fn raw(relay: &str, request: &[u8]) -> (u16, Vec<String>, String) {
    let address = relay.trim_start_matches("http://");
    let mut stream = TcpStream::connect(address).await.unwrap();
    stream.write_all(request).await.unwrap();
    let mut response = Vec::new();
    tokio::time::timeout(Duration::from_secs(5), stream.read_to_end(&mut response))
        .await
        .unwrap()
        .unwrap();
    let text = String::from_utf8_lossy(&response).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|line| line.split(' ').nth(1))
        .and_then(|code| code.parse().ok())
        .unwrap_or_else(|| panic!("no status in {text:?}"));
    let headers = lines.map(str::to_ascii_lowercase).collect();
    (status, headers, body.to_owned())
}

fn relay_error(headers: &[String]) -> Option<&str> {
    headers
        .iter()
        .find_map(|line| line.strip_prefix("x-ttft-relay-error: "))
}

/// The body is the relay's JSON with the kind as its type.
fn assert_relay_json(body: &str, kind: &str) {
    // A chunked body: the JSON is on the chunk's line.
    let json = body
        .lines()
        .find(|line| line.starts_with('{'))
        .unwrap_or_else(|| panic!("no JSON in {body:?}"));
    let value: serde_json::Value = serde_json::from_str(json).unwrap();
    assert_eq!(value["error"]["type"], kind, "{body}");
    let message = value["error"]["message"].as_str().unwrap();
    assert!(message.starts_with("ttft-relay: "), "{message}");
}

#[tokio::test]
async fn targets_outside_the_one_upstream_are_refused_and_never_forwarded() {
    let sim = start_sim(None, 0.0).await;
    let relay = start_relay(&sim).await;
    let port = relay.rsplit(':').next().unwrap();
    let host = format!("127.0.0.1:{port}");
    let sim_authority = sim.origin.trim_start_matches("http://").to_owned();
    let requests: Vec<(String, &str)> = vec![
        // Absolute-form, to another host and to the upstream itself.
        (
            "GET http://evil.example/v1/models HTTP/1.1\r\nHost: evil.example\r\n".to_owned(),
            "absolute-form",
        ),
        (
            format!("GET {}/v1/models HTTP/1.1\r\nHost: {host}\r\n", sim.origin),
            "absolute-form to the upstream",
        ),
        // Authority-form and CONNECT.
        (
            "CONNECT evil.example:443 HTTP/1.1\r\nHost: evil.example:443\r\n".to_owned(),
            "CONNECT",
        ),
        (
            format!("CONNECT {sim_authority} HTTP/1.1\r\nHost: {sim_authority}\r\n"),
            "CONNECT to the upstream",
        ),
        (
            format!("GET evil.example:443 HTTP/1.1\r\nHost: {host}\r\n"),
            "authority-form",
        ),
        (
            format!("OPTIONS * HTTP/1.1\r\nHost: {host}\r\n"),
            "asterisk-form",
        ),
        // Paths out of the base path, plain and disguised.
        (
            format!("GET /__sim/requests HTTP/1.1\r\nHost: {host}\r\n"),
            "outside the base",
        ),
        (
            format!("GET /v1/../__sim/requests HTTP/1.1\r\nHost: {host}\r\n"),
            "dot-dot",
        ),
        (
            format!("GET /v1/%2e%2e/__sim/requests HTTP/1.1\r\nHost: {host}\r\n"),
            "encoded dots",
        ),
        (
            format!("GET /v1/%252e%252e/__sim/requests HTTP/1.1\r\nHost: {host}\r\n"),
            "double-encoded dots",
        ),
        (
            format!("GET /v1/..;/__sim/requests HTTP/1.1\r\nHost: {host}\r\n"),
            "dot-dot with a parameter",
        ),
        (
            format!("GET /v1%2f..%2f__sim/requests HTTP/1.1\r\nHost: {host}\r\n"),
            "encoded slash",
        ),
        (
            format!("GET /v1\\..\\__sim\\requests HTTP/1.1\r\nHost: {host}\r\n"),
            "backslashes",
        ),
        (
            format!("GET //evil.example/v1/models HTTP/1.1\r\nHost: {host}\r\n"),
            "double slash",
        ),
        (
            format!("GET /v1x/models HTTP/1.1\r\nHost: {host}\r\n"),
            "a sibling of the base",
        ),
        // A page whose name was rebound to 127.0.0.1 sends its own Host.
        (
            "GET /v1/models HTTP/1.1\r\nHost: evil.example\r\n".to_owned(),
            "foreign Host",
        ),
        (
            format!("GET /v1/models HTTP/1.1\r\nHost: evil.example:{port}\r\n"),
            "foreign Host, our port",
        ),
    ];
    for (head, what) in &requests {
        let request = format!("{head}Connection: close\r\n\r\n");
        let (status, headers, body) = raw(&relay, request.as_bytes()).await;
        assert_eq!(status, 400, "{what}: {headers:?} {body}");
        assert_eq!(relay_error(&headers), Some("forbidden-target"), "{what}");
        assert_relay_json(&body, "forbidden-target");
    }
    // The only request that reaches the sim is a good one, sent last.
    let request = format!("GET /v1/models HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n");
    let (status, _, _) = raw(&relay, request.as_bytes()).await;
    assert_eq!(status, 200);
    let log = sim.log().await;
    let paths: Vec<_> = log
        .requests
        .iter()
        .map(|r| (r.method.as_str(), r.path.as_str()))
        .collect();
    assert_eq!(paths, [("GET", "/v1/models")]);
}

#[tokio::test]
async fn origins_methods_and_sizes_are_bounded() {
    let sim = start_sim(None, 0.0).await;
    let relay = start_relay_with(&sim.base_url(), None, |config| {
        config.limits.body_bytes = 1000;
    })
    .await;
    let port = relay.rsplit(':').next().unwrap();
    let host = format!("Host: 127.0.0.1:{port}\r\nConnection: close\r\n");

    // A page origin not allowed: refused, with no CORS header that would let it read why.
    let request = format!("GET /v1/models HTTP/1.1\r\n{host}Origin: https://evil.example\r\n\r\n");
    let (status, headers, body) = raw(&relay, request.as_bytes()).await;
    assert_eq!(
        (status, relay_error(&headers)),
        (403, Some("forbidden-origin"))
    );
    assert_relay_json(&body, "forbidden-origin");
    assert!(
        !headers.iter().any(|h| h.starts_with("access-control-")),
        "{headers:?}"
    );
    let request = format!("GET /v1/models HTTP/1.1\r\n{host}Origin: null\r\n\r\n");
    assert_eq!(raw(&relay, request.as_bytes()).await.0, 403);

    // Methods the page never uses.
    for method in ["DELETE", "PUT", "PATCH", "TRACE"] {
        let request = format!("{method} /v1/models HTTP/1.1\r\n{host}\r\n");
        let (status, headers, _) = raw(&relay, request.as_bytes()).await;
        assert_eq!(
            (status, relay_error(&headers)),
            (405, Some("forbidden-target")),
            "{method}"
        );
    }

    // A body over the bound, announced or chunked.
    let body = "x".repeat(1001);
    let request =
        format!("POST /v1/chat/completions HTTP/1.1\r\n{host}Content-Length: 1001\r\n\r\n{body}");
    let (status, headers, json) = raw(&relay, request.as_bytes()).await;
    assert_eq!((status, relay_error(&headers)), (413, Some("too-large")));
    assert_relay_json(&json, "too-large");
    let request = format!(
        "POST /v1/chat/completions HTTP/1.1\r\n{host}Transfer-Encoding: chunked\r\n\r\n3e9\r\n{body}\r\n0\r\n\r\n"
    );
    let (status, headers, _) = raw(&relay, request.as_bytes()).await;
    assert_eq!((status, relay_error(&headers)), (413, Some("too-large")));

    // A head over the relay's bound (100 headers): its JSON; far over (hyper's, 200): hyper's
    // bare 431.
    let many: String = (0..120).map(|i| format!("x-h{i}: v\r\n")).collect();
    let request = format!("GET /v1/models HTTP/1.1\r\n{host}{many}\r\n");
    let (status, headers, json) = raw(&relay, request.as_bytes()).await;
    assert_eq!((status, relay_error(&headers)), (431, Some("too-large")));
    assert_relay_json(&json, "too-large");
    let long = format!("x-long: {}\r\n", "a".repeat(70 * 1024));
    let request = format!("GET /v1/models HTTP/1.1\r\n{host}{long}\r\n");
    let (status, headers, _) = raw(&relay, request.as_bytes()).await;
    assert_eq!((status, relay_error(&headers)), (431, Some("too-large")));
    let very_many: String = (0..300).map(|i| format!("x-h{i}: v\r\n")).collect();
    let request = format!("GET /v1/models HTTP/1.1\r\n{host}{very_many}\r\n");
    assert_eq!(raw(&relay, request.as_bytes()).await.0, 431);

    assert!(
        sim.log().await.requests.is_empty(),
        "nothing reached the sim"
    );
}

#[tokio::test]
async fn the_preflight_is_answered_by_the_relay_and_never_forwarded() {
    let sim = start_sim(None, 0.0).await;
    let relay = start_relay(&sim).await;
    let preflight = |origin: &'static str| {
        client()
            .request(
                reqwest::Method::OPTIONS,
                format!("{relay}/v1/chat/completions"),
            )
            .header("origin", origin)
            .header("access-control-request-method", "POST")
            .header(
                "access-control-request-headers",
                "authorization, content-type, x-dashscope-sse",
            )
            .send()
    };
    let response = preflight(PAGE_ORIGIN).await.unwrap();
    assert_eq!(response.status(), 204);
    let headers = response.headers();
    assert_eq!(
        header(headers, "access-control-allow-origin"),
        Some(PAGE_ORIGIN)
    );
    assert_eq!(
        header(headers, "access-control-allow-methods"),
        Some("GET, POST, OPTIONS")
    );
    assert_eq!(
        header(headers, "access-control-allow-headers"),
        Some("authorization, content-type, x-dashscope-sse")
    );
    assert_eq!(header(headers, "access-control-max-age"), Some("600"));
    assert_eq!(
        header(headers, "x-ttft-relay"),
        Some(env!("CARGO_PKG_VERSION"))
    );
    let response = preflight("http://localhost:5173").await.unwrap();
    assert_eq!(response.status(), 204, "any loopback port by default");
    let response = preflight("https://evil.example").await.unwrap();
    assert_eq!(response.status(), 403);
    assert_eq!(
        header(response.headers(), "access-control-allow-origin"),
        None
    );
    assert!(
        sim.log().await.requests.is_empty(),
        "no OPTIONS reached the sim"
    );
}

/// What reaches the upstream is what an SDK would send: the key, the content type, the
/// provider's own headers; not the page's origin, referrer, cookies or fetch metadata; the
/// upstream's own Host; identity encoding.
#[tokio::test]
async fn the_upstream_gets_what_an_sdk_would_send() {
    let sim = start_sim(None, 0.0).await;
    let relay = start_relay(&sim).await;
    let response = client()
        .post(format!("{relay}/v1/chat/completions"))
        .header("origin", PAGE_ORIGIN)
        .header("referer", "http://127.0.0.1:8787/")
        .header("cookie", "session=1")
        .header("sec-fetch-mode", "cors")
        .header("accept-encoding", "gzip, br")
        .header("authorization", "Bearer sk-test")
        .header("x-dashscope-sse", "enable")
        .json(&chat_body("sim-fast@prefill_ms=1,answer_tokens=1"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let headers = response.headers().clone();
    let (body, clean) = read_all(response).await;
    assert!(clean && body.contains("[DONE]"), "{body}");
    // The page can read the upstream's headers and the relay's.
    let exposed = header(&headers, "access-control-expose-headers").unwrap();
    for name in [
        "server-timing",
        "x-ttft-relay",
        "x-ttft-relay-error",
        "x-sim-first-token-ms",
    ] {
        assert!(
            exposed.split(", ").any(|n| n == name),
            "{name} in {exposed}"
        );
    }
    assert_eq!(header(&headers, "timing-allow-origin"), Some(PAGE_ORIGIN));
    assert_eq!(
        header(&headers, "access-control-allow-origin"),
        Some(PAGE_ORIGIN)
    );
    let log = sim.log().await;
    let forwarded = &log.requests[0];
    let names: Vec<&str> = forwarded.headers.iter().map(|(n, _)| n.as_str()).collect();
    for dropped in ["origin", "referer", "cookie", "sec-fetch-mode"] {
        assert!(!names.contains(&dropped), "{dropped} forwarded: {names:?}");
    }
    let value = |name: &str| {
        forwarded
            .headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    };
    assert_eq!(
        value("host"),
        Some(sim.origin.trim_start_matches("http://"))
    );
    assert_eq!(value("accept-encoding"), Some("identity"));
    assert_eq!(value("authorization"), Some("Bearer sk-test"));
    assert_eq!(value("x-dashscope-sse"), Some("enable"));
    assert_eq!(forwarded.origin, None);
}
