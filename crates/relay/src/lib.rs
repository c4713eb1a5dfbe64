//! ttft-relay: a relay on loopback in front of one LLM provider. It answers the page's CORS
//! preflight (which some providers do not), streams the provider's answer through untouched,
//! and tells the page what it saw upstream (the handshakes, when the request was written,
//! when the headers and the first body byte came). The protocol is docs/relay.md.

pub mod answer;
pub mod body;
pub mod config;
pub mod connector;
pub mod headers;
pub mod relay;
pub mod target;
pub mod timing;
pub mod trust;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::TcpListener;

pub use config::{RelayConfig, Upstream};
pub use relay::Relay;

/// Why a relay could not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// The trust store.
    #[error(transparent)]
    Trust(#[from] trust::TrustError),
    /// The listening socket.
    #[error("cannot listen on 127.0.0.1:{port}: {reason}")]
    Listen {
        /// The port asked for.
        port: u16,
        /// The OS's reason.
        reason: String,
    },
}

/// The browser's request head: bounded by hyper too, above the relay's own bound (which
/// answers with the JSON of docs/relay.md); past hyper's, hyper answers 431 itself.
const HYPER_MAX_HEADERS: usize = 200;
const HYPER_MAX_BUF_BYTES: usize = 256 * 1024;

/// A relay bound to its port, ready to serve.
pub struct Bound {
    /// The relay's state.
    pub relay: Arc<Relay>,
    /// The listening socket.
    pub listener: TcpListener,
    /// Where it listens.
    pub address: SocketAddr,
    /// What the trust store was made of (for the start-up message), when upstream is https.
    pub trust: Option<TrustSummary>,
}

/// How many certificates the relay trusts, from where.
#[derive(Clone, Debug)]
pub struct TrustSummary {
    /// From the system's bundle.
    pub system_certificates: usize,
    /// From `--ca-file`.
    pub extra_certificates: usize,
    /// Why the system's bundle gave nothing, if it did not.
    pub system_problem: Option<String>,
}

/// Binds `127.0.0.1:port` (0: any free port) and prepares the relay: loopback only, since
/// the relay is a door into whatever the upstream trusts this machine with.
pub async fn bind(config: RelayConfig, port: u16, log: bool) -> Result<Bound, StartError> {
    let (tls, trust) = match config.upstream.scheme {
        config::Scheme::Https => {
            let loaded = trust::Trust::load(&config.ca_bundle, config.extra_ca_file.as_ref())?;
            let summary = TrustSummary {
                system_certificates: loaded.system_certificates,
                extra_certificates: loaded.extra_certificates,
                system_problem: loaded.system_problem.clone(),
            };
            (Some(loaded.client_config()?), Some(summary))
        }
        config::Scheme::Http => (None, None),
    };
    let listener = TcpListener::bind(("127.0.0.1", port))
        .await
        .map_err(|error| StartError::Listen {
            port,
            reason: error.to_string(),
        })?;
    let address = listener.local_addr().map_err(|error| StartError::Listen {
        port,
        reason: error.to_string(),
    })?;
    let relay = Arc::new(Relay::new(config, address.port(), tls, log));
    Ok(Bound {
        relay,
        listener,
        address,
        trust,
    })
}

/// Serves browsers on `listener` until the process ends (or the future is dropped): each
/// connection HTTP/1.1 (a page reaches `http://127.0.0.1` over HTTP/1.1 only), with
/// `TCP_NODELAY`.
pub async fn serve(relay: Arc<Relay>, listener: TcpListener) {
    loop {
        let (socket, _peer) = match listener.accept().await {
            Ok(accepted) => accepted,
            // Out of file descriptors and the like: wait a little rather than spin.
            Err(_) => {
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let _ = socket.set_nodelay(true);
        let relay = Arc::clone(&relay);
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |request| {
                let relay = Arc::clone(&relay);
                async move { Ok::<_, std::convert::Infallible>(relay.handle(request).await) }
            });
            let _ = hyper::server::conn::http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(Duration::from_secs(30))
                .max_headers(HYPER_MAX_HEADERS)
                .max_buf_size(HYPER_MAX_BUF_BYTES)
                .serve_connection(TokioIo::new(socket), service)
                .await;
        });
    }
}

/// Binds `127.0.0.1:port` and serves in a background task, without a log: for tests and
/// embedding. Returns the bound address.
pub async fn spawn(config: RelayConfig, port: u16) -> Result<SocketAddr, StartError> {
    let bound = bind(config, port, false).await?;
    let address = bound.address;
    tokio::spawn(serve(bound.relay, bound.listener));
    Ok(address)
}
