//! ttft-sim: a simulated LLM provider (OpenAI Chat Completions, OpenAI Responses, Anthropic
//! Messages) with a deterministic timing model, so end-to-end tests know the ground truth
//! of every first token. See `HELP` (printed by `ttft-sim --help`) for the whole contract.

mod app;
pub mod auth;
pub mod cache;
mod clock;
pub mod config;
pub mod dialect;
pub mod extras;
pub mod fault;
pub mod help;
mod http;
pub mod profile;
pub mod recorder;
pub mod request;
mod routes;
pub mod server;
pub mod static_files;
pub mod text;
pub mod timing;
pub mod tokens;

use std::net::SocketAddr;

pub use config::ServerConfig;
pub use help::HELP;

/// Serves `config` on `listener` until the process ends (or the future is dropped).
/// `TCP_NODELAY` is set on every connection so small SSE frames are not held back by
/// Nagle's algorithm.
pub async fn serve(config: ServerConfig, listener: tokio::net::TcpListener) -> std::io::Result<()> {
    use axum::serve::ListenerExt;
    let port = listener.local_addr()?.port();
    let listener = listener.tap_io(|tcp| {
        // Best effort: without it frames may be delayed by up to one delayed-ACK period.
        let _ = tcp.set_nodelay(true);
    });
    // Connection info: the request log tells connections apart by the client's port.
    axum::serve(
        listener,
        server::router(config, port).into_make_service_with_connect_info::<SocketAddr>(),
    )
    .await
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
