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
    /// The least exchange seen on it that took at least one round trip, µs (`u64::MAX`:
    /// none yet); see [`ConnMeta::round_trip`].
    least_trip_us: AtomicU64,
    /// Whether ALPN chose HTTP/2.
    pub h2: bool,
    /// Requests that have used it (see [`ConnMeta::take_use`]).
    uses: AtomicU32,
}

impl ConnMeta {
    /// The round trip to the upstream, as this connection measured it: the least of its
    /// exchanges that each take at least one round trip, namely its TLS 1.3 handshake (one
    /// trip plus both sides' crypto) and every request's trip from written to response
    /// headers (one trip plus the provider's time to its headers) so far; before any of
    /// them (plain HTTP, TLS 1.2's two-trip handshake), its TCP connect. The connect is only
    /// the last resort because it may not cross the network at all: the kernel answers it
    /// for ttft-sim's delay line, and so does a local TUN-mode proxy or VPN tool for a real
    /// provider (a SYN answered on this machine in 0.1 to 5 ms while the provider is 50 ms
    /// away); and a lost SYN's resend (a second or more) is no round trip either. A
    /// handshake made while this machine was busy (a page loading) can take twice the trip:
    /// a later request's trip then corrects it.
    pub fn round_trip(&self) -> Duration {
        match self.least_trip_us.load(Ordering::SeqCst) {
            u64::MAX => self.tcp,
            us => Duration::from_micros(us),
        }
    }

    /// Counts an exchange on this connection that took at least one round trip.
    pub fn saw_trip(&self, trip: Duration) {
        let us = u64::try_from(trip.as_micros()).unwrap_or(u64::MAX - 1);
        self.least_trip_us.fetch_min(us, Ordering::SeqCst);
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
            least_trip_us: AtomicU64::new(u64::MAX),
            uses: AtomicU32::new(0),
        };
        if let (Some(handshake), true) = (meta.tls, meta.tls13) {
            meta.saw_trip(handshake);
        }
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
        let meta = ConnMeta {
            id: 1,
            ready_at: Instant::now(),
            dns: Duration::ZERO,
            tcp: Duration::from_secs_f64(tcp_ms / 1000.0),
            tls: tls_ms.map(|ms| Duration::from_secs_f64(ms / 1000.0)),
            tls13,
            h2: true,
            least_trip_us: AtomicU64::new(u64::MAX),
            uses: AtomicU32::new(0),
        };
        if let (Some(handshake), true) = (meta.tls, meta.tls13) {
            meta.saw_trip(handshake);
        }
        meta
    }

    /// The round trip, ms to the µs.
    fn ms(meta: &ConnMeta) -> f64 {
        meta.round_trip().as_micros() as f64 / 1000.0
    }

    #[test]
    fn the_round_trip_is_the_least_exchange_of_one_trip_else_the_connect() {
        // TLS 1.3: its one round trip (and crypto), whatever answered the SYN: the network,
        // this machine (a TUN proxy, the sim's delay line) or a resend after a loss.
        assert_eq!(ms(&meta(48.0, Some(51.0), true)), 51.0);
        assert_eq!(ms(&meta(4.2, Some(50.5), true)), 50.5);
        assert_eq!(ms(&meta(1003.0, Some(50.5), true)), 50.5);
        // TLS 1.2's handshake is two round trips, plain HTTP has none: the connect, until
        // a request's trip is seen.
        let tls12 = meta(0.1, Some(101.0), false);
        assert_eq!(ms(&tls12), 0.1);
        tls12.saw_trip(Duration::from_micros(52_300));
        assert_eq!(ms(&tls12), 52.3);
        // A handshake slowed by a busy machine is corrected by a later, quicker trip, and a
        // slower one (a provider holding its headers) changes nothing.
        let busy = meta(3.0, Some(112.9), true);
        busy.saw_trip(Duration::from_micros(56_600));
        busy.saw_trip(Duration::from_micros(480_000));
        assert_eq!(ms(&busy), 56.6);
        assert_eq!(ms(&meta(0.1, None, false)), 0.1);
    }
}
