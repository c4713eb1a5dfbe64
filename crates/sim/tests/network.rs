//! The networks users have (issue 21), over real sockets: TLS with HTTP/2 and HTTP/1.1 by
//! ALPN, the connection log (which request came on which connection: the ground truth of
//! cold and warm), closing a connection after N requests, and the delay line's round trips.

// Test crate: helpers outside #[test] functions fail loudly by design.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;
use tokio::time::Instant;

use ttft_sim::network::{Alpn, NetworkOptions, TlsOptions, WireProtocol};
use ttft_sim::recorder::RecordedRequests;
use ttft_sim::tls::Tls;
use ttft_sim::ServerConfig;

/// A recording sim with `network` (TLS made here so the client can trust it); its base URL
/// and a client that trusts its certificate.
async fn start(network: NetworkOptions, http1_only: bool) -> (String, reqwest::Client) {
    let tls = network
        .tls
        .as_ref()
        .map(|options| Arc::new(Tls::new(options).unwrap()));
    let config = ServerConfig {
        record_requests: true,
        network: network.clone(),
        ..ServerConfig::default()
    };
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
        .await
        .unwrap();
    let address = listener.local_addr().unwrap();
    let mut builder = reqwest::Client::builder().no_proxy().use_rustls_tls();
    if let Some(tls) = &tls {
        builder = builder
            .tls_built_in_root_certs(false)
            .add_root_certificate(reqwest::Certificate::from_pem(tls.cert_pem.as_bytes()).unwrap());
    }
    if http1_only {
        builder = builder.http1_only();
    }
    tokio::spawn(ttft_sim::serve_tls(config, listener, tls));
    let url = format!("{}://{address}", network.scheme());
    (url, builder.build().unwrap())
}

fn tls(alpn: Alpn) -> Option<TlsOptions> {
    Some(TlsOptions {
        alpn,
        ..TlsOptions::default()
    })
}

async fn get_ms(client: &reqwest::Client, url: &str) -> (f64, reqwest::Version) {
    let sent = Instant::now();
    let response = client.get(url).send().await.unwrap();
    assert_eq!(response.status(), 200);
    let version = response.version();
    response.bytes().await.unwrap();
    (sent.elapsed().as_secs_f64() * 1000.0, version)
}

async fn log(client: &reqwest::Client, url: &str) -> RecordedRequests {
    // A separate client: the log's own request must not use (or close) the tested ones.
    let _ = client;
    let fresh = reqwest::Client::builder()
        .no_proxy()
        .danger_accept_invalid_certs(true)
        .use_rustls_tls()
        .build()
        .unwrap();
    fresh
        .get(format!("{url}/__sim/requests"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

/// `(connection, number on it, protocol)` of each recorded request but the log's own.
fn placements(log: &RecordedRequests) -> Vec<(u64, u32, WireProtocol)> {
    log.requests
        .iter()
        .map(|r| {
            (
                r.connection.unwrap(),
                r.connection_request.unwrap(),
                r.protocol.unwrap(),
            )
        })
        .collect()
}

#[tokio::test]
async fn tls_offers_h2_and_one_connection_carries_every_request() {
    let network = NetworkOptions {
        tls: tls(Alpn::Both),
        ..NetworkOptions::default()
    };
    let (url, client) = start(network, false).await;
    for _ in 0..3 {
        let (_, version) = get_ms(&client, &format!("{url}/v1/models")).await;
        assert_eq!(version, reqwest::Version::HTTP_2);
    }
    let log = log(&client, &url).await;
    use WireProtocol::H2;
    assert_eq!(placements(&log), vec![(1, 1, H2), (1, 2, H2), (1, 3, H2)]);
    let first = &log.connections[0];
    assert_eq!(
        (first.id, first.protocol, first.tls, first.requests),
        (1, H2, true, 3)
    );
    assert_eq!(first.closed_at_ms, None);
}

#[tokio::test]
async fn an_http11_only_offer_is_what_the_client_gets() {
    let network = NetworkOptions {
        tls: tls(Alpn::Http11),
        ..NetworkOptions::default()
    };
    let (url, client) = start(network, false).await;
    let (_, version) = get_ms(&client, &format!("{url}/v1/models")).await;
    assert_eq!(version, reqwest::Version::HTTP_11);
    let log = log(&client, &url).await;
    assert_eq!(placements(&log), vec![(1, 1, WireProtocol::Http11)]);
}

#[tokio::test]
async fn plain_http_is_logged_too() {
    let (url, client) = start(NetworkOptions::default(), true).await;
    get_ms(&client, &format!("{url}/v1/models")).await;
    get_ms(&client, &format!("{url}/v1/models")).await;
    let log = log(&client, &url).await;
    use WireProtocol::Http11;
    assert_eq!(placements(&log), vec![(1, 1, Http11), (1, 2, Http11)]);
    assert!(!log.connections[0].tls);
}

#[tokio::test]
async fn a_connection_closes_after_n_requests_in_both_protocols() {
    for (http1_only, protocol) in [(true, WireProtocol::Http11), (false, WireProtocol::H2)] {
        let network = NetworkOptions {
            tls: tls(Alpn::Both),
            close_after_requests: Some(2),
            ..NetworkOptions::default()
        };
        let (url, client) = start(network, http1_only).await;
        for _ in 0..5 {
            get_ms(&client, &format!("{url}/v1/models")).await;
        }
        let log = log(&client, &url).await;
        let p = protocol;
        assert_eq!(
            placements(&log),
            vec![(1, 1, p), (1, 2, p), (2, 1, p), (2, 2, p), (3, 1, p)],
            "{protocol:?}"
        );
        assert!(log.connections[0].closed_at_ms.is_some(), "{protocol:?}");
        assert!(log.connections[1].closed_at_ms.is_some(), "{protocol:?}");
    }
}

/// TLS 1.3 costs one round trip before the request; the request another. Over the delay
/// line both pay 2 × the one-way delay; a second request on the connection pays only its own.
#[tokio::test]
async fn the_delay_line_makes_round_trips() {
    let one_way_ms = 60.0;
    let round_trip_ms = 2.0 * one_way_ms;
    let network = NetworkOptions {
        tls: tls(Alpn::Both),
        one_way_delay_ms: one_way_ms,
        ..NetworkOptions::default()
    };
    let (url, client) = start(network, false).await;
    let (cold_ms, _) = get_ms(&client, &format!("{url}/v1/models")).await;
    let (warm_ms, _) = get_ms(&client, &format!("{url}/v1/models")).await;
    // At least the round trips the protocol needs, and less than one more (a loaded
    // machine only adds).
    assert!(
        (2.0 * round_trip_ms..3.0 * round_trip_ms).contains(&cold_ms),
        "cold {cold_ms} ms: TLS + request = 2 round trips of {round_trip_ms} ms"
    );
    assert!(
        (round_trip_ms..2.0 * round_trip_ms).contains(&warm_ms),
        "warm {warm_ms} ms: 1 round trip of {round_trip_ms} ms"
    );
}

/// The link model's rate: an 80 KB body up a 1 Mbit/s link reaches the server over about
/// 640 ms, which its `Server-Timing: upload` reports, and the first token waits for it (the
/// scripted clock starts with the whole body); a lossy link's resends show in the round trip.
#[tokio::test]
async fn a_slow_uplink_and_a_lossy_link_cost_what_their_model_says() {
    let network = NetworkOptions {
        one_way_delay_ms: 10.0,
        up_kbps: Some(1000.0),
        ..NetworkOptions::default()
    };
    let (url, client) = start(network, true).await;
    let prompt = "Summarize this. ".repeat(5_000);
    let body = serde_json::json!({
        "model": "sim-fast@prefill_ms=50,answer_tokens=1,server_account=server_timing",
        "stream": true,
        "messages": [{"role": "user", "content": prompt}],
    })
    .to_string();
    let upload_ms = body.len() as f64 * 8.0 / 1000.0;
    let response = client
        .post(format!("{url}/v1/chat/completions"))
        .header("content-type", "application/json")
        .body(body)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let timing = response
        .headers()
        .get("server-timing")
        .unwrap()
        .to_str()
        .unwrap()
        .to_owned();
    let reported: f64 = timing
        .split(',')
        .find_map(|metric| metric.trim().strip_prefix("upload;dur="))
        .unwrap()
        .parse()
        .unwrap();
    assert!(
        reported > 0.9 * upload_ms && reported < 1.1 * upload_ms + 30.0,
        "upload {reported} ms reported for {upload_ms} ms at 1 Mbit/s ({timing})"
    );
    response.bytes().await.unwrap();

    // 20 % loss (to see it in a few requests) with a 100 ms resend: some round trips pay it,
    // none pays less than the delay.
    let lossy = NetworkOptions {
        one_way_delay_ms: 10.0,
        loss_percent: 20.0,
        retransmit_ms: Some(100.0),
        link_seed: 5,
        ..NetworkOptions::default()
    };
    let (url, client) = start(lossy, true).await;
    let mut times = Vec::new();
    for _ in 0..12 {
        times.push(get_ms(&client, &format!("{url}/v1/models")).await.0);
    }
    assert!(times.iter().all(|ms| *ms >= 20.0), "{times:?}");
    assert!(
        times.iter().any(|ms| *ms >= 120.0),
        "a resend in 12 round trips at 20 % loss: {times:?}"
    );
}
