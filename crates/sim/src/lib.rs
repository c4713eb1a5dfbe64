//! ttft-sim: a simulated LLM provider (OpenAI Chat Completions, OpenAI Responses, Anthropic
//! Messages) with a deterministic timing model, so end-to-end tests know the ground truth
//! of every first token. See `HELP` (printed by `ttft-sim --help`) for the whole contract.

mod app;
pub mod auth;
pub mod cache;
mod clock;
pub mod config;
mod connection;
mod delay;
pub mod dialect;
pub mod extras;
pub mod fault;
pub mod help;
mod http;
pub mod network;
pub mod profile;
pub mod recorder;
pub mod request;
mod routes;
pub mod seen_keys;
pub mod server;
pub mod static_files;
pub mod text;
pub mod timing;
pub mod tls;
pub mod tokens;

use std::net::SocketAddr;

pub use config::ServerConfig;
pub use help::HELP;

/// Serves `config` on `listener` until the process ends (or the future is dropped): plain
/// HTTP/1.1, or TLS with HTTP/2 and HTTP/1.1 by ALPN when `config.network.tls` is set
/// (a certificate made now; use [`serve_tls`] to know it). `TCP_NODELAY` is set on every
/// connection so small SSE frames are not held back by Nagle's algorithm.
pub async fn serve(config: ServerConfig, listener: tokio::net::TcpListener) -> std::io::Result<()> {
    let tls = match &config.network.tls {
        Some(options) => Some(std::sync::Arc::new(
            tls::Tls::new(options).map_err(std::io::Error::other)?,
        )),
        None => None,
    };
    serve_tls(config, listener, tls).await
}

/// [`serve`] with the TLS set-up made by the caller (`None`: plain HTTP).
pub async fn serve_tls(
    config: ServerConfig,
    listener: tokio::net::TcpListener,
    tls: Option<std::sync::Arc<tls::Tls>>,
) -> std::io::Result<()> {
    let port = listener.local_addr()?.port();
    let network = config.network.clone();
    let app = std::sync::Arc::new(app::App::new(config, port));
    let router = server::router(std::sync::Arc::clone(&app));
    let shared = connection::Shared {
        router,
        app,
        network,
        tls,
    };
    connection::accept_loop(listener, shared).await
}

/// Binds `127.0.0.1:port` (0 = any free port) and serves in a background task; returns the
/// bound address. For tests and embedding.
pub async fn spawn(
    config: ServerConfig,
    port: u16,
) -> std::io::Result<(SocketAddr, tokio::task::JoinHandle<std::io::Result<()>>)> {
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    let address = listener.local_addr()?;
    let task = tokio::spawn(serve(config, listener));
    Ok((address, task))
}
