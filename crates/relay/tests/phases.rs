//! Every upstream phase the relay reports, against ttft-sim's script and connection log,
//! over TLS with HTTP/2 and with HTTP/1.1, behind the sim's delay line.
//!
//! The delay line (`--delay-ms D`) makes every byte wait D ms each way, so a round trip is
//! 2·D; the kernel's TCP handshake does not pay it (ttft-sim's HELP, NETWORK). Hence, on
//! loopback: `relay-tcp` is well under a millisecond, `relay-tls` is TLS 1.3's one round trip
//! and so is `relay-rtt` (the least of the TLS 1.3 handshake and the requests' trips from
//! written to headers, `ConnMeta::round_trip`), `relay-headers − relay-sent` is one
//! round trip (the sim answers its headers on arrival), and the first byte comes one round
//! trip plus the script's first-token time after the request was sent.
//!
//! Tolerances: never early by more than 1 ms (the delay line only adds), late by at most
//! `LATE_MS` (the crypto of a debug build and a loaded 2-core machine).

// Test crate: helpers outside #[test] functions fail loudly by design.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use common::*;
use ttft_sim::network::{Alpn, NetworkOptions, WireProtocol};

const ONE_WAY_MS: f64 = 30.0;
const ROUND_TRIP_MS: f64 = 2.0 * ONE_WAY_MS;
const LATE_MS: f64 = 30.0;
const FIRST_TOKEN_MS: f64 = 150.0;
const MODEL: &str = "sim-fast@prefill_ms=150,answer_tokens=2,itl_ms=1";

fn assert_near(measured_ms: f64, expected_ms: f64, what: &str) {
    assert!(
        measured_ms >= expected_ms - 1.0 && measured_ms <= expected_ms + LATE_MS,
        "{what}: measured {measured_ms:.1} ms, expected {expected_ms:.1} ms (-1, +{LATE_MS})"
    );
}

/// One streamed request through the relay: its metrics, the first-byte line's value, the
/// sim's scripted first token.
async fn run(relay: &str, model: &str) -> (Metrics, f64, f64) {
    let (response, _) = post_chat(relay, model).await;
    assert_eq!(response.status(), 200);
    let metrics = relay_metrics(response.headers());
    let first_token_ms = header_f64(response.headers(), "x-sim-first-token-ms");
    let (body, clean) = read_all(response).await;
    assert!(clean, "{body}");
    assert!(body.ends_with("data: [DONE]\n\n"), "{body}");
    (metrics, first_byte_ms(&body), first_token_ms)
}

async fn new_then_reused(alpn: Alpn, protocol: &str) {
    let sim = start_sim(Some(alpn), ONE_WAY_MS).await;
    let relay = start_relay(&sim).await;

    let (cold, cold_first_byte, first_token) = run(&relay, MODEL).await;
    let first_byte = cold_first_byte;
    assert_eq!(first_token, FIRST_TOKEN_MS);
    assert_eq!(desc(&cold, "relay-conn"), "new", "{cold:?}");
    assert_eq!(desc(&cold, "relay-proto"), protocol);
    assert!(dur(&cold, "relay-dns") < 1.0, "an IP address: {cold:?}");
    assert!(
        dur(&cold, "relay-tcp") < 2.0,
        "loopback's handshake: {cold:?}"
    );
    // The round trip: the least of the handshake (TLS 1.3: one trip) and the request's own
    // trip (written → headers), each rounded to 0.1 ms in the header.
    let least = dur(&cold, "relay-tls").min(dur(&cold, "relay-headers") - dur(&cold, "relay-sent"));
    assert!(
        (dur(&cold, "relay-rtt") - least).abs() <= 0.15,
        "rtt {} ms, the least trip {least} ms: {cold:?}",
        dur(&cold, "relay-rtt")
    );
    assert_near(dur(&cold, "relay-rtt"), ROUND_TRIP_MS, "the round trip");
    assert_near(
        dur(&cold, "relay-tls"),
        ROUND_TRIP_MS,
        "TLS 1.3: one round trip",
    );
    let setup = dur(&cold, "relay-dns") + dur(&cold, "relay-tcp") + dur(&cold, "relay-tls");
    let sent = dur(&cold, "relay-sent");
    assert!(
        sent >= setup - 0.2 && sent <= setup + 5.0,
        "sent {sent} ms after a set-up of {setup} ms"
    );
    let headers = dur(&cold, "relay-headers");
    assert_near(headers - sent, ROUND_TRIP_MS, "headers − sent (new)");
    assert_near(
        first_byte - sent,
        ROUND_TRIP_MS + FIRST_TOKEN_MS,
        "first byte − sent (new)",
    );

    let (warm, first_byte, _) = run(&relay, MODEL).await;
    assert_eq!(desc(&warm, "relay-conn"), "reused", "{warm:?}");
    assert_eq!(desc(&warm, "relay-proto"), protocol);
    for setup_phase in ["relay-dns", "relay-tcp", "relay-tls"] {
        assert!(!warm.contains_key(setup_phase), "{warm:?}");
    }
    // A later trip only lowers the connection's round trip.
    assert!(
        dur(&warm, "relay-rtt") <= dur(&cold, "relay-rtt"),
        "{warm:?}"
    );
    assert_near(
        dur(&warm, "relay-rtt"),
        ROUND_TRIP_MS,
        "the round trip (reused)",
    );
    let sent = dur(&warm, "relay-sent");
    assert!(sent < 5.0, "nothing to set up: sent at {sent} ms");
    assert_near(
        dur(&warm, "relay-headers") - sent,
        ROUND_TRIP_MS,
        "headers − sent (reused)",
    );
    assert_near(
        first_byte - sent,
        ROUND_TRIP_MS + FIRST_TOKEN_MS,
        "first byte − sent (reused)",
    );

    // The sim's ground truth: one connection, both requests on it.
    let log = sim.log().await;
    let wire = if protocol == "h2" {
        WireProtocol::H2
    } else {
        WireProtocol::Http11
    };
    let placements: Vec<_> = log
        .requests
        .iter()
        .map(|r| {
            (
                r.connection,
                r.connection_request,
                r.protocol,
                r.path.as_str(),
            )
        })
        .collect();
    assert_eq!(
        placements,
        [
            (Some(1), Some(1), Some(wire), "/v1/chat/completions"),
            (Some(1), Some(2), Some(wire), "/v1/chat/completions"),
        ]
    );
    println!(
        "{protocol} behind a {ROUND_TRIP_MS} ms round trip, first token at {FIRST_TOKEN_MS} ms: \
         new {} first-byte={cold_first_byte}, reused {} first-byte={first_byte}",
        server_timing_text(&cold),
        server_timing_text(&warm)
    );
}

fn server_timing_text(metrics: &Metrics) -> String {
    metrics
        .iter()
        .map(|(name, (dur, desc))| match (dur, desc) {
            (Some(dur), _) => format!("{name}={dur}"),
            (None, Some(desc)) => format!("{name}={desc}"),
            (None, None) => name.clone(),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[tokio::test]
async fn h2_phases_match_the_script_then_the_connection_is_reused() {
    new_then_reused(Alpn::Both, "h2").await;
}

#[tokio::test]
async fn http11_phases_match_the_script_then_the_connection_is_reused() {
    new_then_reused(Alpn::Http11, "http/1.1").await;
}

/// A gateway that closes each connection after one request: every request is `new`, as
/// the sim's log says, in both protocols.
#[tokio::test]
async fn a_connection_closed_by_the_upstream_makes_the_next_request_new() {
    for (alpn, protocol) in [(Alpn::Both, "h2"), (Alpn::Http11, "http/1.1")] {
        let network = NetworkOptions {
            close_after_requests: Some(1),
            ..NetworkOptions::default()
        };
        let sim = start_sim_with(Some(alpn), network).await;
        let relay = start_relay(&sim).await;
        for _ in 0..3 {
            let (metrics, _, _) = run(&relay, "sim-fast@prefill_ms=5,answer_tokens=1").await;
            assert_eq!(
                desc(&metrics, "relay-conn"),
                "new",
                "{protocol}: {metrics:?}"
            );
            assert_eq!(desc(&metrics, "relay-proto"), protocol);
            assert!(metrics.contains_key("relay-tls"), "{metrics:?}");
            // Let the close reach the relay's pool.
            tokio::time::sleep(std::time::Duration::from_millis(30)).await;
        }
        let log = sim.log().await;
        let connections: Vec<_> = log.requests.iter().map(|r| r.connection).collect();
        assert_eq!(connections, [Some(1), Some(2), Some(3)], "{protocol}");
    }
}

/// An upstream that holds its headers until the first token (nginx before 1.23 over
/// HTTP/2): the headers come one round trip plus the first-token time after the request.
#[tokio::test]
async fn headers_held_by_the_upstream_are_reported_when_they_come() {
    let sim = start_sim(Some(Alpn::Both), ONE_WAY_MS).await;
    let relay = start_relay(&sim).await;
    let (metrics, first_byte, _) = run(&relay, &format!("{MODEL},hold_headers=1")).await;
    let sent = dur(&metrics, "relay-sent");
    let headers = dur(&metrics, "relay-headers");
    assert_near(
        headers - sent,
        ROUND_TRIP_MS + FIRST_TOKEN_MS,
        "held headers − sent",
    );
    assert!(first_byte >= headers, "{first_byte} < {headers}");
}

/// Plain HTTP upstream: HTTP/1.1, no TLS phase.
#[tokio::test]
async fn a_plain_http_upstream_has_no_tls_phase() {
    let sim = start_sim(None, ONE_WAY_MS).await;
    let relay = start_relay(&sim).await;
    let (metrics, first_byte, _) = run(&relay, MODEL).await;
    assert_eq!(desc(&metrics, "relay-conn"), "new");
    assert_eq!(desc(&metrics, "relay-proto"), "http/1.1");
    assert!(!metrics.contains_key("relay-tls"), "{metrics:?}");
    let sent = dur(&metrics, "relay-sent");
    assert!(sent < 5.0, "sent at {sent} ms");
    assert_near(
        dur(&metrics, "relay-headers") - sent,
        ROUND_TRIP_MS,
        "headers − sent",
    );
    assert_near(
        first_byte - sent,
        ROUND_TRIP_MS + FIRST_TOKEN_MS,
        "first byte − sent",
    );
}

/// Concurrent requests on a new HTTP/2 connection: one is `new`, the others waited for the
/// same handshake (`new-shared`) and report it too; the sim's log has them all on one
/// connection.
#[tokio::test]
async fn concurrent_requests_share_one_new_h2_connection() {
    let sim = start_sim(Some(Alpn::H2), ONE_WAY_MS).await;
    let relay = start_relay(&sim).await;
    let runs = futures_join(&relay, 3).await;
    let mut verdicts: Vec<String> = runs
        .iter()
        .map(|metrics| desc(metrics, "relay-conn").to_owned())
        .collect();
    verdicts.sort();
    assert_eq!(verdicts, ["new", "new-shared", "new-shared"], "{runs:?}");
    for metrics in &runs {
        assert_near(
            dur(metrics, "relay-tls"),
            ROUND_TRIP_MS,
            "the shared handshake",
        );
    }
    // Every waiting request began a handshake of its own (ALPN tells h2 only at its end);
    // the first to finish carries them all, the others were dropped.
    let log = sim.log().await;
    let used = log.requests[0].connection;
    assert!(log.requests.iter().all(|r| r.connection == used), "{log:?}");
}

async fn futures_join(relay: &str, n: usize) -> Vec<Metrics> {
    let tasks: Vec<_> = (0..n)
        .map(|_| {
            let relay = relay.to_owned();
            tokio::spawn(async move { run(&relay, MODEL).await.0 })
        })
        .collect();
    let mut out = Vec::new();
    for task in tasks {
        out.push(task.await.unwrap());
    }
    out
}
