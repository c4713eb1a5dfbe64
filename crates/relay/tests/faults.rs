//! Upstream failures, each told by the relay with its kind (docs/relay.md): before the
//! headers as the relay's own JSON and `X-TTFT-Relay-Error`, after them as the stream's
//! `upstream-error` line and an aborted body (the page sees the network error a direct call
//! would). ttft-sim's faults are the upstream's misbehaviour; the status faults and a
//! provider without CORS pass through.

// Test crate: helpers outside #[test] functions fail loudly by design.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use std::time::Duration;

use common::*;
use tokio::io::AsyncReadExt as _;
use tokio::time::Instant;
use ttft_sim::network::Alpn;
use ttft_sim::ServerConfig;

/// A GET through `relay` (no upstream needed to answer): status, kind, message, metrics.
async fn relay_failure(relay: &str) -> (u16, Option<String>, String, Metrics) {
    let response = client()
        .post(format!("{relay}/v1/chat/completions"))
        .header("origin", PAGE_ORIGIN)
        .json(&chat_body("sim-fast"))
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    let kind = header(response.headers(), "x-ttft-relay-error").map(str::to_owned);
    assert_eq!(
        header(response.headers(), "access-control-allow-origin"),
        Some(PAGE_ORIGIN),
        "the page can read the relay's failure"
    );
    let metrics = relay_metrics(response.headers());
    let json: serde_json::Value = response.json().await.unwrap();
    assert_eq!(json["error"]["type"].as_str(), kind.as_deref());
    let message = json["error"]["message"].as_str().unwrap().to_owned();
    (status, kind, message, metrics)
}

#[tokio::test]
async fn a_drop_mid_stream_is_told_then_the_body_aborts() {
    for alpn in [Alpn::Both, Alpn::Http11] {
        let sim = start_sim(Some(alpn), 0.0).await;
        let relay = start_relay(&sim).await;
        let model = "sim-fast@prefill_ms=5,itl_ms=5,answer_tokens=30,fault=drop";
        let (response, _) = post_chat(&relay, model).await;
        assert_eq!(response.status(), 200);
        let (body, clean) = read_all(response).await;
        assert!(!clean, "{alpn:?}: the page sees the network error: {body}");
        let lines: Vec<&str> = body.lines().collect();
        assert!(lines[0].starts_with(": ttft-relay first-byte="), "{body}");
        assert_eq!(
            lines.last(),
            Some(&": ttft-relay upstream-error=upstream-reset"),
            "{alpn:?}: {body}"
        );
        assert!(!body.contains("[DONE]"));
    }
}

/// Headers, then nothing: the relay waits as a direct call would (the page's own timeout
/// decides); when the page gives up, the relay lets go of the upstream request too.
#[tokio::test]
async fn a_stall_passes_through_and_a_page_that_gives_up_frees_the_upstream() {
    let sim = start_sim(Some(Alpn::Http11), 0.0).await;
    let relay = start_relay(&sim).await;
    let (mut response, _) = post_chat(&relay, "sim-fast@fault=stall").await;
    assert_eq!(response.status(), 200);
    let waited = tokio::time::timeout(Duration::from_millis(300), response.chunk()).await;
    assert!(waited.is_err(), "no byte during a stall: {waited:?}");
    drop(response);
    // HTTP/1.1 upstream: its connection is closed (an HTTP/2 stream would be reset).
    let deadline = Instant::now() + Duration::from_secs(2);
    loop {
        let log = sim.log().await;
        if log.connections[0].closed_at_ms.is_some() {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the upstream request lives on: {log:?}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn no_headers_in_time_is_upstream_timeout() {
    let sim = start_sim(Some(Alpn::Both), 0.0).await;
    let relay = start_relay_with(&sim.base_url(), sim.cert_file.clone(), |config| {
        config.upstream_timeout = Duration::from_millis(300);
    })
    .await;
    let started = Instant::now();
    let (response, _) = post_chat(&relay, "sim-fast@prefill_ms=3000,hold_headers=1").await;
    let elapsed_ms = started.elapsed().as_secs_f64() * 1000.0;
    assert_eq!(response.status(), 504);
    assert_eq!(
        header(response.headers(), "x-ttft-relay-error"),
        Some("upstream-timeout")
    );
    let metrics = relay_metrics(response.headers());
    assert_eq!(
        desc(&metrics, "relay-conn"),
        "new",
        "what was known is told"
    );
    assert!(metrics.contains_key("relay-sent") && !metrics.contains_key("relay-headers"));
    assert!((300.0..1000.0).contains(&elapsed_ms), "{elapsed_ms} ms");
}

#[tokio::test]
async fn connect_tls_dns_and_reset_failures_have_their_kinds() {
    // Nothing listens on the port.
    let closed = tokio::net::TcpListener::bind(("127.0.0.1", 0))
        .await
        .unwrap();
    let port = closed.local_addr().unwrap().port();
    drop(closed);
    let relay = start_relay_with(&format!("http://127.0.0.1:{port}/v1"), None, |_| {}).await;
    let (status, kind, message, _) = relay_failure(&relay).await;
    assert_eq!(
        (status, kind.as_deref()),
        (502, Some("upstream-connect")),
        "{message}"
    );

    // A certificate the relay does not trust (no --ca-file): the system store only.
    let sim = start_sim(Some(Alpn::Both), 0.0).await;
    let relay = start_relay_with(&sim.base_url(), None, |_| {}).await;
    let (status, kind, message, _) = relay_failure(&relay).await;
    assert_eq!(
        (status, kind.as_deref()),
        (502, Some("upstream-tls")),
        "{message}"
    );
    assert!(message.contains("--ca-file"), "{message}");

    // A name that cannot resolve (RFC 6761: .invalid never does).
    let relay = start_relay_with("https://ttft-relay-test.invalid/v1", None, |_| {}).await;
    let (status, kind, message, _) = relay_failure(&relay).await;
    assert_eq!(
        (status, kind.as_deref()),
        (502, Some("upstream-dns")),
        "{message}"
    );

    // An upstream that takes the request and hangs up before answering.
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
        .await
        .unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        loop {
            let (mut socket, _) = listener.accept().await.unwrap();
            let mut buffer = [0u8; 1024];
            let _ = socket.read(&mut buffer).await;
            drop(socket);
        }
    });
    let relay = start_relay_with(&format!("http://127.0.0.1:{port}/v1"), None, |_| {}).await;
    let (status, kind, message, metrics) = relay_failure(&relay).await;
    assert_eq!(
        (status, kind.as_deref()),
        (502, Some("upstream-reset")),
        "{message}"
    );
    assert_eq!(desc(&metrics, "relay-conn"), "new", "{metrics:?}");
}

/// The provider's own answers pass untouched: an error status with its body and headers, an
/// error event inside the stream (a clean end), and a provider with no CORS at all (what the
/// relay is for) or no Timing-Allow-Origin, which the relay supplies.
#[tokio::test]
async fn the_providers_own_answers_pass_through() {
    let sim = start_sim(Some(Alpn::Both), 0.0).await;
    let relay = start_relay(&sim).await;
    let (response, _) = post_chat(&relay, "sim-fast@fault=429,retry_after_s=7").await;
    assert_eq!(response.status(), 429);
    assert_eq!(header(response.headers(), "retry-after"), Some("7"));
    assert_eq!(header(response.headers(), "x-ttft-relay-error"), None);
    assert_eq!(
        header(response.headers(), "x-ttft-relay"),
        Some(env!("CARGO_PKG_VERSION"))
    );
    let json: serde_json::Value = response.json().await.unwrap();
    assert!(!json["error"]["message"]
        .as_str()
        .unwrap()
        .starts_with("ttft-relay"));

    let (response, _) = post_chat(&relay, "sim-fast@fault=midstream,prefill_ms=1,itl_ms=1").await;
    let (body, clean) = read_all(response).await;
    assert!(clean, "{body}");
    assert!(body.contains("\"error\""), "{body}");
    assert!(!body.contains("upstream-error"), "{body}");

    let config = ServerConfig {
        cors_enabled: false,
        timing_allow_origin: false,
        ..ServerConfig::default()
    };
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
        .await
        .unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(ttft_sim::serve_tls(config, listener, None));
    let relay = start_relay_with(&format!("http://{address}/v1"), None, |_| {}).await;
    let preflight = client()
        .request(
            reqwest::Method::OPTIONS,
            format!("{relay}/v1/chat/completions"),
        )
        .header("origin", PAGE_ORIGIN)
        .header("access-control-request-method", "POST")
        .header(
            "access-control-request-headers",
            "authorization, content-type",
        )
        .send()
        .await
        .unwrap();
    assert_eq!(preflight.status(), 204);
    let (response, _) = post_chat(&relay, "sim-fast@prefill_ms=1").await;
    assert_eq!(response.status(), 200);
    let headers = response.headers();
    assert_eq!(
        header(headers, "access-control-allow-origin"),
        Some(PAGE_ORIGIN)
    );
    assert_eq!(header(headers, "timing-allow-origin"), Some(PAGE_ORIGIN));
    let (body, clean) = read_all(response).await;
    assert!(clean && body.contains("[DONE]"), "{body}");
}
