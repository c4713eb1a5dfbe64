//! The relay's pass-through delay: how much later a body chunk reaches the client through
//! the relay than directly, over an HTTP/2 and an HTTP/1.1 upstream (TLS both).
//!
//! The upstream is this test's own server (TLS by ttft-sim's certificate maker): each
//! request's body is fed by the test, which stamps the instant it hands each chunk to the
//! server. A reader task stamps the instant the client reads it. Both stamps are on the
//! same monotonic clock, in one process. Two measures:
//!
//! 1. Every chunk, and the first one (which carries the relay's line), direct and through
//!    the relay: the relay's added delay is the difference of the medians (the server's and
//!    the client's own costs are on both paths; the client's TLS decryption is on the direct
//!    path only, so this slightly underestimates). Both must stay under 1 ms.
//! 2. The first byte, one-sided: the client's time from sending the request to reading the
//!    first chunk, minus the relay's own `first-byte` (t0 → first upstream byte at the
//!    relay). What is left is the forwarding of that byte plus the request's loopback trip
//!    to the relay before t0 and the client's read: an upper bound of the relay's delay
//!    that needs no baseline, held under 1.5 ms (median) since the request's trip is in it.

// Test crate: helpers outside #[test] functions fail loudly by design.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use std::convert::Infallible;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use common::*;
use hyper::body::{Body, Frame, Incoming};
use hyper_util::rt::{TokioExecutor, TokioIo};
use tokio::sync::mpsc;
use tokio::time::Instant;
use ttft_sim::network::{Alpn, TlsOptions};
use ttft_sim::tls::Tls;

const REQUESTS: usize = 8;
const CHUNKS: usize = 6;
const GAP: Duration = Duration::from_millis(6);
/// The relay's added delay, per chunk and for the first chunk (medians).
const BOUND_MS: f64 = 1.0;
/// The one-sided bound of the first byte, which also holds the request's own trip from the
/// client to the relay (about half of it on this machine).
const FIRST_BYTE_BOUND_MS: f64 = 1.5;

/// A body fed chunk by chunk by the test.
struct Fed(mpsc::UnboundedReceiver<Bytes>);

impl Body for Fed {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        self.0
            .poll_recv(cx)
            .map(|chunk| chunk.map(|chunk| Ok(Frame::data(chunk))))
    }
}

/// The test's upstream: TLS offering `alpn`; each request answers 200 text/event-stream
/// with a body the test feeds through the sender it receives on the returned channel.
async fn start_upstream(
    alpn: Alpn,
) -> (
    String,
    std::path::PathBuf,
    String,
    mpsc::UnboundedReceiver<mpsc::UnboundedSender<Bytes>>,
) {
    let tls = Arc::new(
        Tls::new(&TlsOptions {
            alpn,
            ..TlsOptions::default()
        })
        .unwrap(),
    );
    let cert_file = temp_path("upstream-cert.pem");
    std::fs::write(&cert_file, &tls.cert_pem).unwrap();
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
        .await
        .unwrap();
    let address = listener.local_addr().unwrap();
    let (feeds_tx, feeds_rx) = mpsc::unbounded_channel();
    let acceptor = tls.acceptor.clone();
    tokio::spawn(async move {
        loop {
            let (socket, _) = listener.accept().await.unwrap();
            socket.set_nodelay(true).unwrap();
            let acceptor = acceptor.clone();
            let feeds_tx = feeds_tx.clone();
            tokio::spawn(async move {
                let Ok(stream) = acceptor.accept(socket).await else {
                    return;
                };
                let service =
                    hyper::service::service_fn(move |_request: hyper::Request<Incoming>| {
                        let (chunk_tx, chunk_rx) = mpsc::unbounded_channel();
                        feeds_tx.send(chunk_tx).unwrap();
                        async move {
                            let response = hyper::Response::builder()
                                .header("content-type", "text/event-stream")
                                .body(Fed(chunk_rx))
                                .unwrap();
                            Ok::<_, Infallible>(response)
                        }
                    });
                let _ = hyper_util::server::conn::auto::Builder::new(TokioExecutor::new())
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
            });
        }
    });
    (
        format!("https://127.0.0.1:{}/v1", address.port()),
        cert_file,
        tls.cert_pem.clone(),
        feeds_rx,
    )
}

/// One request: the delay of each chunk (in order) from its hand-over to the server to the
/// client's read, ms; and the client's time from sending to reading the first chunk, with the body.
async fn measure(
    client: &reqwest::Client,
    url: &str,
    feeds: &mut mpsc::UnboundedReceiver<mpsc::UnboundedSender<Bytes>>,
) -> (Vec<f64>, f64, String) {
    let sent_at = Instant::now();
    let request = client
        .post(url)
        .header("origin", PAGE_ORIGIN)
        .body("{}")
        .send();
    let (response, feed) = tokio::join!(request, feeds.recv());
    let mut response = response.unwrap();
    let feed = feed.unwrap();
    assert_eq!(response.status(), 200);
    let reader = tokio::spawn(async move {
        let mut reads = Vec::new();
        let mut body = String::new();
        while let Some(chunk) = response.chunk().await.unwrap() {
            let read_at = Instant::now();
            let text = String::from_utf8(chunk.to_vec()).unwrap();
            for line in text.lines() {
                if let Some(index) = line.strip_prefix("data: ") {
                    reads.push((index.parse::<usize>().unwrap(), read_at));
                }
            }
            body.push_str(&text);
        }
        (reads, body)
    });
    let mut written = Vec::new();
    for index in 0..CHUNKS {
        tokio::time::sleep(GAP).await;
        written.push(Instant::now());
        feed.send(Bytes::from(format!("data: {index}\n\n")))
            .unwrap();
    }
    drop(feed);
    let (reads, body) = reader.await.unwrap();
    assert_eq!(reads.len(), CHUNKS, "{body}");
    let mut delays = vec![0.0; CHUNKS];
    for (index, read_at) in &reads {
        delays[*index] = (*read_at - written[*index]).as_secs_f64() * 1000.0;
    }
    let first_read_ms = (reads[0].1 - sent_at).as_secs_f64() * 1000.0;
    (delays, first_read_ms, body)
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

async fn pass_through(alpn: Alpn, protocol: &str) {
    let (upstream, cert_file, cert_pem, mut feeds) = start_upstream(alpn).await;
    let relay = start_relay_with(&upstream, Some(cert_file), |_| {}).await;
    let relayed_client = client();
    let mut direct_client = reqwest::Client::builder()
        .no_proxy()
        .use_rustls_tls()
        .tls_built_in_root_certs(false)
        .add_root_certificate(reqwest::Certificate::from_pem(cert_pem.as_bytes()).unwrap());
    if alpn == Alpn::Http11 {
        direct_client = direct_client.http1_only();
    }
    let direct_client = direct_client.build().unwrap();
    let relayed_url = format!("{relay}/v1/chat/completions");
    let direct_url = format!("{upstream}/chat/completions");

    let (mut direct, mut relayed) = (Vec::new(), Vec::new());
    let (mut direct_first, mut relayed_first, mut first_byte_bounds) =
        (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..REQUESTS {
        let (delays, _, _) = measure(&direct_client, &direct_url, &mut feeds).await;
        direct_first.push(delays[0]);
        direct.extend(delays);
        let (delays, first_read_ms, body) =
            measure(&relayed_client, &relayed_url, &mut feeds).await;
        assert!(body.starts_with(": ttft-relay first-byte="), "{body}");
        first_byte_bounds.push(first_read_ms - first_byte_ms(&body));
        relayed_first.push(delays[0]);
        relayed.extend(delays);
    }
    let (direct_ms, relayed_ms) = (median(&mut direct), median(&mut relayed));
    let added_ms = relayed_ms - direct_ms;
    let first_added_ms = median(&mut relayed_first) - median(&mut direct_first);
    let first_byte_bound_ms = median(&mut first_byte_bounds);
    println!(
        "{protocol} upstream, {REQUESTS} requests of {CHUNKS} chunks: the relay adds \
         {added_ms:.3} ms to a chunk and {first_added_ms:.3} ms to the first one (medians; \
         direct {direct_ms:.3} ms, through the relay {relayed_ms:.3} ms, slowest {:.3} ms); \
         the first byte reached the client at most {first_byte_bound_ms:.3} ms after it \
         reached the relay, the request's own trip included (median; slowest {:.3} ms)",
        relayed.last().unwrap(),
        first_byte_bounds.last().unwrap(),
    );
    assert!(
        added_ms < BOUND_MS,
        "{protocol}: the relay adds {added_ms:.3} ms per chunk (median)"
    );
    assert!(
        first_added_ms < BOUND_MS,
        "{protocol}: the relay adds {first_added_ms:.3} ms to the first chunk (median)"
    );
    assert!(
        first_byte_bound_ms < FIRST_BYTE_BOUND_MS,
        "{protocol}: the first byte reached the client {first_byte_bound_ms:.3} ms after the \
         relay (median; the request's trip included)"
    );
}

/// Both protocols in one test, one after the other: run beside each other on two cores
/// they would measure each other.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_chunk_passes_through_within_a_millisecond_over_h2_and_http11() {
    pass_through(Alpn::H2, "h2").await;
    pass_through(Alpn::Http11, "http/1.1").await;
}
