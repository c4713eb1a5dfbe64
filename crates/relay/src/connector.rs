//! The upstream connector: every new connection's DNS, TCP connect and TLS handshake timed,
//! and those times attached to the connection (hyper-util's `Connected::extra`), so every
//! response that connection carries knows them and how many responses came before it.
//!
//! hyper-util's legacy client keeps the pool (HTTP/1.1 keep-alive, one shared HTTP/2
//! connection chosen by ALPN, retries of requests a stale connection never sent); this
//! connector only opens connections, and only to the one upstream.

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use hyper_util::client::legacy::connect::{Connected, Connection};
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio::time::Instant;
use tokio_rustls::client::TlsStream;
use tokio_rustls::rustls;

use crate::config::{Scheme, Upstream};

/// How long one TCP connect attempt (one resolved address) may take before the next
/// address is tried.
const CONNECT_ATTEMPT_TIMEOUT: Duration = Duration::from_secs(10);

/// Why a connection could not be opened; each maps to an `upstream-*` kind.
#[derive(Debug, thiserror::Error)]
pub enum ConnectError {
    /// The name did not resolve (or resolved to nothing).
    #[error("{host} did not resolve: {reason}")]
    Dns {
        /// The upstream's host.
        host: String,
        /// The resolver's reason.
        reason: String,
    },
    /// Every address refused or did not answer.
    #[error("cannot connect to {authority}: {reason}")]
    Connect {
        /// `host:port`.
        authority: String,
        /// The last address's reason.
        reason: String,
    },
    /// The TLS handshake failed (certificate, protocol).
    #[error("the TLS handshake with {authority} failed: {reason}")]
    Tls {
        /// `host:port`.
        authority: String,
        /// rustls's reason.
        reason: String,
    },
    /// The client asked for another authority: never, since the relay builds every URI
    /// from the one upstream; refused all the same.
    #[error("refusing to connect anywhere but the upstream")]
    OtherAuthority,
}

/// One upstream connection's set-up, shared by every response it carries.
#[derive(Debug)]
pub struct ConnMeta {
    /// Numbered from 1 in the order connections were opened.
    pub id: u64,
    /// When its set-up ended (TLS handshake done, or TCP connected over plain HTTP): a
    /// request handed to the pool before this instant waited for a connection being set up.
    pub ready_at: Instant,
    /// Name resolution.
    pub dns: Duration,
    /// TCP connect: one round trip.
    pub tcp: Duration,
    /// TLS handshake (`None` over plain HTTP).
    pub tls: Option<Duration>,
    /// Whether TLS 1.3 was negotiated (its handshake is one round trip).
    pub tls13: bool,
    /// Whether ALPN chose HTTP/2.
    pub h2: bool,
    /// Requests that have used it (see [`ConnMeta::take_use`]).
    uses: AtomicU32,
}

/// A TCP connect shorter than this did not cross a network: the kernel of this machine (or
/// a local TUN-mode proxy that answers the handshake itself, as many VPN and proxy tools do,
/// or ttft-sim's delay line, which the kernel's handshake skips) answered it.
pub const LOCAL_CONNECT: Duration = Duration::from_millis(1);

impl ConnMeta {
    /// The round trip to the upstream, as this connection's set-up measured it: its TCP
    /// connect (one round trip), unless that was answered locally ([`LOCAL_CONNECT`]) while
    /// a TLS 1.3 handshake (one round trip, plus both sides' crypto: a millisecond or two)
    /// took longer; then the handshake, which crossed the network whatever answered the SYN.
    pub fn round_trip(&self) -> Duration {
        match self.tls {
            Some(tls) if self.tls13 && self.tcp < LOCAL_CONNECT && tls > self.tcp => tls,
            _ => self.tcp,
        }
    }

    /// Counts one more request on this connection; returns whether it was the first.
    pub fn take_use(&self) -> bool {
        self.uses.fetch_add(1, Ordering::SeqCst) == 0
    }
}

/// What `Connected::extra` carries (an `Arc`, so cloning it is cheap).
#[derive(Clone, Debug)]
pub struct ConnTag(pub Arc<ConnMeta>);

/// The relay's connector: opens TCP (and TLS) connections to the upstream.
#[derive(Clone)]
pub struct TimedConnector {
    upstream: Arc<Upstream>,
    tls: Option<tokio_rustls::TlsConnector>,
    next_id: Arc<AtomicU64>,
}

impl TimedConnector {
    /// A connector to `upstream`, with `tls` for an https upstream.
    pub fn new(upstream: Arc<Upstream>, tls: Option<Arc<rustls::ClientConfig>>) -> Self {
        Self {
            upstream,
            tls: tls.map(tokio_rustls::TlsConnector::from),
            next_id: Arc::new(AtomicU64::new(1)),
        }
    }

    async fn open(self, dst: http::Uri) -> Result<UpstreamIo, ConnectError> {
        let upstream = &self.upstream;
        if dst.authority().map(|a| a.as_str()) != Some(upstream.authority.as_str()) {
            return Err(ConnectError::OtherAuthority);
        }
        let authority = format!("{}:{}", upstream.host, upstream.port);
        let connect_started = Instant::now();
        let addresses: Vec<SocketAddr> =
            tokio::net::lookup_host((upstream.host_to_resolve(), upstream.port))
                .await
                .map_err(|error| ConnectError::Dns {
                    host: upstream.host.clone(),
                    reason: error.to_string(),
                })?
                .collect();
        if addresses.is_empty() {
            return Err(ConnectError::Dns {
                host: upstream.host.clone(),
                reason: "no address".into(),
            });
        }
        let resolved = Instant::now();
        let tcp = connect_first(&addresses)
            .await
            .map_err(|error| ConnectError::Connect {
                authority: authority.clone(),
                reason: error.to_string(),
            })?;
        // Small SSE frames must not wait for a delayed ACK (Nagle).
        let _ = tcp.set_nodelay(true);
        let connected = Instant::now();
        let id = self.next_id.fetch_add(1, Ordering::SeqCst);
        let (io, tls, h2, tls13) = match (&self.tls, upstream.scheme) {
            (Some(connector), Scheme::Https) => {
                let server_name =
                    rustls::pki_types::ServerName::try_from(upstream.host_to_resolve())
                        .map_err(|error| ConnectError::Tls {
                            authority: authority.clone(),
                            reason: error.to_string(),
                        })?
                        .to_owned();
                let stream = connector.connect(server_name, tcp).await.map_err(|error| {
                    ConnectError::Tls {
                        authority: authority.clone(),
                        reason: error.to_string(),
                    }
                })?;
                let session = stream.get_ref().1;
                let h2 = session.alpn_protocol() == Some(b"h2");
                let tls13 = session.protocol_version() == Some(rustls::ProtocolVersion::TLSv1_3);
                let tls = Some(connected.elapsed());
                (Io::Tls(Box::new(stream)), tls, h2, tls13)
            }
            _ => (Io::Plain(tcp), None, false, false),
        };
        let meta = ConnMeta {
            id,
            ready_at: Instant::now(),
            dns: resolved - connect_started,
            tcp: connected - resolved,
            tls,
            tls13,
            h2,
            uses: AtomicU32::new(0),
        };
        Ok(UpstreamIo {
            io,
            meta: Arc::new(meta),
        })
    }
}

/// Tries each address in turn (one upstream: no need for Happy Eyeballs' racing).
async fn connect_first(addresses: &[SocketAddr]) -> io::Result<TcpStream> {
    let mut last_error = io::Error::new(io::ErrorKind::NotFound, "no address");
    for address in addresses {
        match tokio::time::timeout(CONNECT_ATTEMPT_TIMEOUT, TcpStream::connect(address)).await {
            Ok(Ok(stream)) => return Ok(stream),
            Ok(Err(error)) => last_error = error,
            Err(_) => {
                last_error = io::Error::new(io::ErrorKind::TimedOut, "connect timed out");
            }
        }
    }
    Err(last_error)
}

impl tower_service::Service<http::Uri> for TimedConnector {
    type Response = TokioIo<UpstreamIo>;
    type Error = ConnectError;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Self::Error>> + Send>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, dst: http::Uri) -> Self::Future {
        let this = self.clone();
        Box::pin(async move { this.open(dst).await.map(TokioIo::new) })
    }
}

enum Io {
    Plain(TcpStream),
    Tls(Box<TlsStream<TcpStream>>),
}

/// A connection to the upstream with its set-up times.
pub struct UpstreamIo {
    io: Io,
    meta: Arc<ConnMeta>,
}

impl Connection for UpstreamIo {
    fn connected(&self) -> Connected {
        let connected = Connected::new().extra(ConnTag(Arc::clone(&self.meta)));
        if self.meta.h2 {
            connected.negotiated_h2()
        } else {
            connected
        }
    }
}

impl AsyncRead for UpstreamIo {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        match &mut self.get_mut().io {
            Io::Plain(stream) => Pin::new(stream).poll_read(cx, buf),
            Io::Tls(stream) => Pin::new(stream.as_mut()).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for UpstreamIo {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match &mut self.get_mut().io {
            Io::Plain(stream) => Pin::new(stream).poll_write(cx, buf),
            Io::Tls(stream) => Pin::new(stream.as_mut()).poll_write(cx, buf),
        }
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        match &mut self.get_mut().io {
            Io::Plain(stream) => Pin::new(stream).poll_write_vectored(cx, bufs),
            Io::Tls(stream) => Pin::new(stream.as_mut()).poll_write_vectored(cx, bufs),
        }
    }

    fn is_write_vectored(&self) -> bool {
        match &self.io {
            Io::Plain(stream) => stream.is_write_vectored(),
            Io::Tls(stream) => stream.is_write_vectored(),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match &mut self.get_mut().io {
            Io::Plain(stream) => Pin::new(stream).poll_flush(cx),
            Io::Tls(stream) => Pin::new(stream.as_mut()).poll_flush(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match &mut self.get_mut().io {
            Io::Plain(stream) => Pin::new(stream).poll_shutdown(cx),
            Io::Tls(stream) => Pin::new(stream.as_mut()).poll_shutdown(cx),
        }
    }
}

#[cfg(test)]
mod round_trip_tests {
    use super::*;

    fn meta(tcp_ms: f64, tls_ms: Option<f64>, tls13: bool) -> ConnMeta {
        ConnMeta {
            id: 1,
            ready_at: Instant::now(),
            dns: Duration::ZERO,
            tcp: Duration::from_secs_f64(tcp_ms / 1000.0),
            tls: tls_ms.map(|ms| Duration::from_secs_f64(ms / 1000.0)),
            tls13,
            h2: true,
            uses: AtomicU32::new(0),
        }
    }

    #[test]
    fn the_round_trip_is_the_connect_unless_it_was_answered_locally() {
        let ms = |meta: ConnMeta| meta.round_trip().as_secs_f64() * 1000.0;
        // Across a network: the TCP connect, even beside a longer TLS handshake.
        assert_eq!(ms(meta(48.0, Some(51.0), true)), 48.0);
        // Answered locally (a TUN proxy, the sim's delay line): TLS 1.3's one round trip.
        assert_eq!(ms(meta(0.1, Some(50.5), true)), 50.5);
        // TLS 1.2's handshake is two round trips: not a round trip's measure.
        assert_eq!(ms(meta(0.1, Some(101.0), false)), 0.1);
        // Plain HTTP: the connect is all there is.
        assert_eq!(ms(meta(0.1, None, false)), 0.1);
    }
}
