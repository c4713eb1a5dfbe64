//! Test helpers: a ttft-sim upstream in-process (TLS with its certificate written for the
//! relay's --ca-file, the delay line, faults, the connection log), a relay in-process in
//! front of it, and readers of what the relay adds (Server-Timing, the stream's lines).
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tokio::time::Instant;
use ttft_relay::{RelayConfig, Upstream};
use ttft_sim::network::{Alpn, NetworkOptions, TlsOptions};
use ttft_sim::recorder::RecordedRequests;
use ttft_sim::tls::Tls;
use ttft_sim::ServerConfig;

/// A running sim: its base URL (`https://127.0.0.1:PORT/v1`) and its certificate's file.
pub struct Sim {
    pub origin: String,
    pub cert_file: Option<PathBuf>,
}

impl Sim {
    pub fn base_url(&self) -> String {
        format!("{}/v1", self.origin)
    }

    /// The sim's request and connection log, read with a client of its own (so the log's
    /// request uses none of the relay's connections).
    pub async fn log(&self) -> RecordedRequests {
        reqwest::Client::builder()
            .no_proxy()
            .danger_accept_invalid_certs(true)
            .use_rustls_tls()
            .build()
            .unwrap()
            .get(format!("{}/__sim/requests", self.origin))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap()
    }
}

/// A temporary file path unique to this process and call.
pub fn temp_path(name: &str) -> PathBuf {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let dir = std::env::temp_dir().join(format!("ttft-relay-tests-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(format!("{}-{name}", NEXT.fetch_add(1, Ordering::SeqCst)))
}

/// A recording sim: TLS offering `alpn` (None: plain HTTP), each byte delayed `one_way_ms`.
pub async fn start_sim(alpn: Option<Alpn>, one_way_ms: f64) -> Sim {
    start_sim_with(
        alpn,
        NetworkOptions {
            one_way_delay_ms: one_way_ms,
            ..NetworkOptions::default()
        },
    )
    .await
}

/// A recording sim with `network` (its TLS replaced by `alpn`'s).
pub async fn start_sim_with(alpn: Option<Alpn>, mut network: NetworkOptions) -> Sim {
    network.tls = alpn.map(|alpn| TlsOptions {
        alpn,
        ..TlsOptions::default()
    });
    let tls = network
        .tls
        .as_ref()
        .map(|options| Arc::new(Tls::new(options).unwrap()));
    let cert_file = tls.as_ref().map(|tls| {
        let path = temp_path("sim-cert.pem");
        std::fs::write(&path, &tls.cert_pem).unwrap();
        path
    });
    let config = ServerConfig {
        record_requests: true,
        network: network.clone(),
        ..ServerConfig::default()
    };
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
        .await
        .unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(ttft_sim::serve_tls(config, listener, tls));
    Sim {
        origin: format!("{}://{address}", network.scheme()),
        cert_file,
    }
}

/// A relay in front of `upstream` trusting `ca_file`, changed by `adjust`; its origin.
pub async fn start_relay_with(
    upstream: &str,
    ca_file: Option<PathBuf>,
    adjust: impl FnOnce(&mut RelayConfig),
) -> String {
    let mut config = RelayConfig::new(Upstream::parse(upstream).unwrap());
    config.extra_ca_file = ca_file;
    adjust(&mut config);
    let address = ttft_relay::spawn(config, 0).await.unwrap();
    format!("http://{address}")
}

/// A relay in front of the sim, trusting its certificate.
pub async fn start_relay(sim: &Sim) -> String {
    start_relay_with(&sim.base_url(), sim.cert_file.clone(), |_| {}).await
}

pub fn client() -> reqwest::Client {
    reqwest::Client::builder().no_proxy().build().unwrap()
}

pub const PAGE_ORIGIN: &str = "http://127.0.0.1:8787";

/// A chat request's body for `model` (a sim profile with its suffix).
pub fn chat_body(model: &str) -> serde_json::Value {
    serde_json::json!({
        "model": model,
        "stream": true,
        "messages": [{"role": "user", "content": "Hello"}],
    })
}

/// POSTs a chat request through `relay` as the page would (its origin, a key).
pub async fn post_chat(relay: &str, model: &str) -> (reqwest::Response, Instant) {
    let sent = Instant::now();
    let response = client()
        .post(format!("{relay}/v1/chat/completions"))
        .header("origin", PAGE_ORIGIN)
        .header("authorization", "Bearer sk-test")
        .json(&chat_body(model))
        .send()
        .await
        .unwrap();
    (response, sent)
}

/// The relay's Server-Timing metrics: name → (dur, desc).
pub type Metrics = BTreeMap<String, (Option<f64>, Option<String>)>;

pub fn relay_metrics(headers: &reqwest::header::HeaderMap) -> Metrics {
    let mut metrics = Metrics::new();
    for value in headers.get_all("server-timing") {
        for metric in value.to_str().unwrap().split(',') {
            let mut parts = metric.trim().split(';');
            let name = parts.next().unwrap().to_owned();
            if !name.starts_with("relay-") {
                continue;
            }
            let (mut dur, mut desc) = (None, None);
            for parameter in parts {
                match parameter.split_once('=') {
                    Some(("dur", value)) => dur = Some(value.parse().unwrap()),
                    Some(("desc", value)) => desc = Some(value.to_owned()),
                    _ => {}
                }
            }
            metrics.insert(name, (dur, desc));
        }
    }
    metrics
}

pub fn dur(metrics: &Metrics, name: &str) -> f64 {
    metrics
        .get(name)
        .and_then(|(dur, _)| *dur)
        .unwrap_or_else(|| panic!("no {name} in {metrics:?}"))
}

pub fn desc<'a>(metrics: &'a Metrics, name: &str) -> &'a str {
    metrics
        .get(name)
        .and_then(|(_, desc)| desc.as_deref())
        .unwrap_or_else(|| panic!("no {name} in {metrics:?}"))
}

pub fn header<'a>(headers: &'a reqwest::header::HeaderMap, name: &str) -> Option<&'a str> {
    headers.get(name).and_then(|value| value.to_str().ok())
}

pub fn header_f64(headers: &reqwest::header::HeaderMap, name: &str) -> f64 {
    header(headers, name)
        .and_then(|value| value.parse().ok())
        .unwrap_or_else(|| panic!("header {name}"))
}

/// A whole body and whether it ended cleanly.
pub async fn read_all(mut response: reqwest::Response) -> (String, bool) {
    let mut body = Vec::new();
    loop {
        match tokio::time::timeout(Duration::from_secs(10), response.chunk()).await {
            Ok(Ok(Some(chunk))) => body.extend_from_slice(&chunk),
            Ok(Ok(None)) => return (String::from_utf8_lossy(&body).into_owned(), true),
            Ok(Err(_)) | Err(_) => return (String::from_utf8_lossy(&body).into_owned(), false),
        }
    }
}

/// `: ttft-relay first-byte=X`'s X.
pub fn first_byte_ms(body: &str) -> f64 {
    body.lines()
        .find_map(|line| line.strip_prefix(": ttft-relay first-byte="))
        .unwrap_or_else(|| panic!("no first-byte line in {body:?}"))
        .parse()
        .unwrap()
}
