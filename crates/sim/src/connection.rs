//! The accept loop: every connection numbered, optionally behind the delay line and TLS,
//! served by hyper as HTTP/1.1 or HTTP/2 (ALPN decides over TLS; plain connections speak
//! HTTP/1.1), closed after `--close-after` requests, and logged (with `--record-requests`)
//! as the ground truth of which request came on which connection.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use axum::extract::ConnectInfo;
use axum::Router;
use futures_util::StreamExt as _;
use hyper::body::Incoming;
use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Notify;
use tokio::time::Instant;
use tower::ServiceExt as _;

use crate::app::App;
use crate::delay::link_line;
use crate::network::{ConnectionInfo, NetworkOptions, WireProtocol};
use crate::tls::Tls;

/// A connection being served.
struct Served {
    id: u64,
    protocol: WireProtocol,
    tls: bool,
    requests: AtomicU32,
    close_after_requests: Option<u32>,
    /// Notified when the connection has taken its last request.
    closing: Notify,
}

impl Served {
    /// Numbers a new request; notifies `closing` when it is the last one allowed.
    /// Numbers a new request; says whether it is the last one the connection takes.
    fn take_request(&self) -> (ConnectionInfo, bool) {
        let request_number = self.requests.fetch_add(1, Ordering::SeqCst) + 1;
        let info = ConnectionInfo {
            id: self.id,
            protocol: self.protocol,
            tls: self.tls,
            request_number,
        };
        (info, self.close_after_requests == Some(request_number))
    }
}

/// Closes its connection (gracefully) when dropped: held by the last response's body over
/// HTTP/2, so GOAWAY goes out once that response is whole, as gateways send it. (Sent while
/// the response was still streaming, WebKit's HTTP/2 client failed the request it was
/// answering, though that stream was never refused.)
struct CloseWhenDone(Arc<Served>);

impl Drop for CloseWhenDone {
    fn drop(&mut self) {
        self.0.closing.notify_one();
    }
}

/// What every connection of a server shares.
pub struct Shared {
    /// The routes.
    pub router: Router,
    /// The simulator's state (its recorder logs the connections).
    pub app: Arc<App>,
    /// TLS, closing after N requests, the delay line.
    pub network: NetworkOptions,
    /// The certificate and ALPN offer, with `--tls`.
    pub tls: Option<Arc<Tls>>,
}

/// One accepted connection: who, its number, when (ms after the server started).
#[derive(Clone, Copy)]
struct Accepted {
    peer: SocketAddr,
    id: u64,
    opened_ms: f64,
}

/// Serves `shared` on `listener` until the process ends.
pub async fn accept_loop(listener: TcpListener, shared: Shared) -> std::io::Result<()> {
    let shared = Arc::new(shared);
    let next_id = AtomicU64::new(1);
    loop {
        let (socket, peer) = match listener.accept().await {
            Ok(accepted) => accepted,
            // Out of file descriptors and the like: wait a little rather than spin.
            Err(_) => {
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        // Without it small SSE frames may wait for a delayed ACK.
        let _ = socket.set_nodelay(true);
        let accepted = Accepted {
            peer,
            id: next_id.fetch_add(1, Ordering::SeqCst),
            opened_ms: shared.app.ms_since_epoch(Instant::now()),
        };
        tokio::spawn(serve_socket(socket, accepted, Arc::clone(&shared)));
    }
}

async fn serve_socket(socket: TcpStream, accepted: Accepted, shared: Arc<Shared>) {
    if let Some(link) = shared.network.link() {
        let seed = shared.network.link_seed.wrapping_add(accepted.id);
        serve_io(link_line(socket, link, seed), accepted, shared).await;
    } else {
        serve_io(socket, accepted, shared).await;
    }
}

async fn serve_io<I>(io: I, accepted: Accepted, shared: Arc<Shared>)
where
    I: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    match &shared.tls {
        Some(tls) => {
            // A client that gives up on the handshake (or distrusts the certificate) just
            // closes: nothing to serve.
            let Ok(stream) = tls.acceptor.accept(io).await else {
                return;
            };
            let protocol = WireProtocol::from_alpn(stream.get_ref().1.alpn_protocol());
            let served = served(accepted.id, protocol, true, &shared.network);
            serve_http(stream, accepted, served, &shared).await;
        }
        None => {
            let served = served(accepted.id, WireProtocol::Http11, false, &shared.network);
            serve_http(io, accepted, served, &shared).await;
        }
    }
}

fn served(id: u64, protocol: WireProtocol, tls: bool, network: &NetworkOptions) -> Arc<Served> {
    Arc::new(Served {
        id,
        protocol,
        tls,
        requests: AtomicU32::new(0),
        close_after_requests: network.close_after_requests,
        closing: Notify::new(),
    })
}

async fn serve_http<I>(io: I, accepted: Accepted, served: Arc<Served>, shared: &Shared)
where
    I: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let Accepted {
        peer, opened_ms, ..
    } = accepted;
    let app = &shared.app;
    let router = shared.router.clone();
    if let Some(recorder) = &app.recorder {
        recorder.connection_opened(
            served.id,
            peer.port(),
            served.protocol,
            served.tls,
            opened_ms,
        );
    }
    let service = {
        let served = Arc::clone(&served);
        hyper::service::service_fn(move |mut request: hyper::Request<Incoming>| {
            request.extensions_mut().insert(ConnectInfo(peer));
            let (info, last) = served.take_request();
            request.extensions_mut().insert(info);
            let router = router.clone();
            let served = Arc::clone(&served);
            async move {
                let response = router.oneshot(request).await?;
                if !last {
                    return Ok::<_, std::convert::Infallible>(response);
                }
                Ok(match served.protocol {
                    // HTTP/1.1: hyper answers with `Connection: close` and closes after it.
                    WireProtocol::Http11 => {
                        served.closing.notify_one();
                        response
                    }
                    WireProtocol::H2 => {
                        let guard = CloseWhenDone(served);
                        response.map(|body| {
                            let stream = body.into_data_stream().map(move |frame| {
                                let _held = &guard;
                                frame
                            });
                            axum::body::Body::from_stream(stream)
                        })
                    }
                })
            }
        })
    };
    let mut builder = auto::Builder::new(TokioExecutor::new());
    builder = match served.protocol {
        WireProtocol::H2 => builder.http2_only(),
        WireProtocol::Http11 => builder.http1_only(),
    };
    let connection = builder.serve_connection(TokioIo::new(io), service);
    tokio::pin!(connection);
    tokio::select! {
        _ = connection.as_mut() => {}
        () = served.closing.notified() => {
            // HTTP/1.1: no keep-alive after the response in progress; HTTP/2: GOAWAY, the
            // open streams finish.
            connection.as_mut().graceful_shutdown();
            let _ = connection.await;
        }
    }
    if let Some(recorder) = &app.recorder {
        recorder.connection_closed(served.id, app.ms_since_epoch(Instant::now()));
    }
}
