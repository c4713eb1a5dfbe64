//! The network the simulator presents to its clients: plain HTTP/1.1 or TLS with HTTP/2 and
//! HTTP/1.1 by ALPN (`--tls`, `--alpn`), connections closed after some requests as gateways
//! do (`--close-after`), and a one-way delay on every byte each way (`--delay-ms`), so that
//! the TLS handshake, a CORS preflight, the request and the response all pay the round
//! trip that real providers are away.

use std::path::PathBuf;

/// Which application protocols a TLS server offers in ALPN.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Alpn {
    /// `h2` and `http/1.1`, the client chooses (what real providers offer).
    #[default]
    Both,
    /// `h2` only.
    H2,
    /// `http/1.1` only (an HTTP/1.1-only gateway).
    Http11,
}

impl Alpn {
    /// The protocol ids offered, in the server's order of preference.
    pub fn protocols(self) -> Vec<Vec<u8>> {
        match self {
            Self::Both => vec![b"h2".to_vec(), b"http/1.1".to_vec()],
            Self::H2 => vec![b"h2".to_vec()],
            Self::Http11 => vec![b"http/1.1".to_vec()],
        }
    }

    /// Parses `both`, `h2` or `http/1.1` (also `h1`, `http1.1`).
    pub fn parse(value: &str) -> Option<Self> {
        match value.trim().to_ascii_lowercase().as_str() {
            "both" | "auto" | "h2,http/1.1" => Some(Self::Both),
            "h2" => Some(Self::H2),
            "http/1.1" | "h1" | "http1.1" | "http1" => Some(Self::Http11),
            _ => None,
        }
    }
}

/// `--tls`: a certificate made at start, for these names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TlsOptions {
    /// ALPN offer.
    pub alpn: Alpn,
    /// Subject alternative names of the certificate (IP addresses or DNS names).
    pub names: Vec<String>,
    /// Where to write the certificate (PEM), for clients that trust a file (curl
    /// `--cacert`, a Firefox profile, nginx's `proxy_ssl_trusted_certificate`).
    pub cert_out: Option<PathBuf>,
    /// A certificate chain and its key (PEM files) to serve instead of making one: several
    /// sims of a test share one certificate that way, or a user serves one their browser
    /// already trusts.
    pub cert_and_key: Option<(PathBuf, PathBuf)>,
}

impl Default for TlsOptions {
    fn default() -> Self {
        Self {
            alpn: Alpn::Both,
            names: vec!["127.0.0.1".into(), "localhost".into()],
            cert_out: None,
            cert_and_key: None,
        }
    }
}

/// How connections are served.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NetworkOptions {
    /// TLS, when set; plain HTTP/1.1 otherwise.
    pub tls: Option<TlsOptions>,
    /// Close each connection after this many requests (CORS preflights count, as they do
    /// at a gateway): HTTP/1.1 answers the last one with `Connection: close`, HTTP/2 sends
    /// GOAWAY and finishes the streams it has.
    pub close_after_requests: Option<u32>,
    /// Added to every byte in each direction, ms (a round trip is twice this). The TCP
    /// handshake itself is the kernel's and does not pay it.
    pub one_way_delay_ms: f64,
    /// Up to this much more per segment, drawn at random, ms (`--link-jitter-ms`).
    pub jitter_ms: f64,
    /// The share of segments lost once and resent, in each direction, percent
    /// (`--loss-percent`).
    pub loss_percent: f64,
    /// What a resend costs, ms (`--retransmit-ms`); `None`: Linux's least retransmission
    /// timeout (200 ms) plus one round trip.
    pub retransmit_ms: Option<f64>,
    /// The client's upload rate, kbit/s (`--up-kbps`); `None`: unlimited.
    pub up_kbps: Option<f64>,
    /// The client's download rate, kbit/s (`--down-kbps`); `None`: unlimited.
    pub down_kbps: Option<f64>,
    /// The seed of the link's random draws (`--link-seed`); each connection adds its number.
    pub link_seed: u64,
}

impl NetworkOptions {
    /// The link the options describe, when it changes anything (crate::delay).
    pub fn link(&self) -> Option<crate::delay::Link> {
        let retransmit_ms = self
            .retransmit_ms
            .unwrap_or(crate::delay::MIN_RTO_MS + 2.0 * self.one_way_delay_ms);
        let direction = |kbps: Option<f64>| crate::delay::Direction {
            one_way_ms: self.one_way_delay_ms,
            jitter_ms: self.jitter_ms,
            loss: self.loss_percent / 100.0,
            retransmit_ms,
            rate_bps: kbps.map(|kbps| kbps * 1000.0),
        };
        let link = crate::delay::Link {
            up: direction(self.up_kbps),
            down: direction(self.down_kbps),
        };
        (!(link.up.is_plain() && link.down.is_plain())).then_some(link)
    }

    /// `https` with TLS, else `http`.
    pub fn scheme(&self) -> &'static str {
        if self.tls.is_some() {
            "https"
        } else {
            "http"
        }
    }
}

/// The application protocol a connection speaks, as browsers' Resource Timing names it
/// (`nextHopProtocol`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum WireProtocol {
    /// HTTP/1.1, with or without TLS.
    #[serde(rename = "http/1.1")]
    Http11,
    /// HTTP/2 over TLS.
    #[serde(rename = "h2")]
    H2,
}

impl WireProtocol {
    /// `http/1.1` or `h2`.
    pub fn code(self) -> &'static str {
        match self {
            Self::Http11 => "http/1.1",
            Self::H2 => "h2",
        }
    }

    /// The protocol ALPN chose (`None`: no ALPN, which means HTTP/1.1).
    pub fn from_alpn(alpn: Option<&[u8]>) -> Self {
        match alpn {
            Some(b"h2") => Self::H2,
            _ => Self::Http11,
        }
    }
}

/// What a request knows of its connection (a request extension).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConnectionInfo {
    /// The connection's number, from 1 in accept order.
    pub id: u64,
    /// The protocol it speaks.
    pub protocol: WireProtocol,
    /// Whether it is TLS.
    pub tls: bool,
    /// This request's number on the connection, from 1 (a preflight counts).
    pub request_number: u32,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alpn_values() {
        assert_eq!(Alpn::parse("h2"), Some(Alpn::H2));
        assert_eq!(Alpn::parse("HTTP/1.1"), Some(Alpn::Http11));
        assert_eq!(Alpn::parse("both"), Some(Alpn::Both));
        assert_eq!(Alpn::parse("h3"), None);
        assert_eq!(
            Alpn::Both.protocols(),
            vec![b"h2".to_vec(), b"http/1.1".to_vec()]
        );
        assert_eq!(WireProtocol::from_alpn(Some(b"h2")), WireProtocol::H2);
        assert_eq!(WireProtocol::from_alpn(None), WireProtocol::Http11);
        assert_eq!(
            WireProtocol::from_alpn(Some(b"http/1.1")).code(),
            "http/1.1"
        );
    }
}
