//! What the relay tells the page about the upstream: the connection's verdict, the phases,
//! and their `Server-Timing` and SSE-comment forms (docs/relay.md, "The relay's protocol").
//! Pure: the instants are measured by the caller.

use std::fmt::Write as _;
use std::time::Duration;

/// How this request's upstream connection came to be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConnVerdict {
    /// Opened for this request: its set-up is on this request's path.
    New,
    /// Opened while this request waited, for a concurrent one (HTTP/2): this request waited
    /// for its set-up too.
    NewShared,
    /// Opened by the pool in the background before this request: no set-up on its path.
    Preopened,
    /// Used before.
    Reused,
}

impl ConnVerdict {
    /// From whether the connection's set-up ended after this request was handed to the
    /// pool (`opened_on_path`: the request waited for it) and whether this is its first
    /// request (`first_use`): the table of docs/research/relay.md §2.2, with the set-up's end
    /// instead of its start, so that a request that waited for a concurrent request's
    /// handshake (HTTP/2 over ALPN, where every waiting request starts one and the first to
    /// finish is shared) is `new-shared`, not `reused`.
    pub fn of(opened_on_path: bool, first_use: bool) -> Self {
        match (opened_on_path, first_use) {
            (true, true) => Self::New,
            (true, false) => Self::NewShared,
            (false, true) => Self::Preopened,
            (false, false) => Self::Reused,
        }
    }

    /// Its name on the wire.
    pub fn name(self) -> &'static str {
        match self {
            Self::New => "new",
            Self::NewShared => "new-shared",
            Self::Preopened => "preopened",
            Self::Reused => "reused",
        }
    }

    /// Whether the connection's set-up was on this request's path.
    pub fn setup_on_path(self) -> bool {
        matches!(self, Self::New | Self::NewShared)
    }
}

/// The upstream protocol of a response.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UpstreamProtocol {
    /// HTTP/2.
    H2,
    /// HTTP/1.1 (or 1.0).
    Http11,
}

impl UpstreamProtocol {
    /// Its name on the wire (ALPN's).
    pub fn name(self) -> &'static str {
        match self {
            Self::H2 => "h2",
            Self::Http11 => "http/1.1",
        }
    }
}

/// The connection's set-up times.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ConnSetup {
    /// Name resolution.
    pub dns: Duration,
    /// TCP connect.
    pub tcp: Duration,
    /// TLS handshake.
    pub tls: Option<Duration>,
}

/// What the relay knows when it answers: each part present only when known.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct UpstreamReport {
    /// How the connection came to be.
    pub conn: Option<ConnVerdict>,
    /// Its protocol.
    pub protocol: Option<UpstreamProtocol>,
    /// Its set-up (reported only when on this request's path).
    pub setup: Option<ConnSetup>,
    /// The connection's TCP connect, reported on every response as the round trip.
    pub rtt: Option<Duration>,
    /// t0 → the request's last byte handed to the upstream connection.
    pub sent: Option<Duration>,
    /// t0 → the upstream's response headers.
    pub headers: Option<Duration>,
}

/// Milliseconds with at most one decimal.
pub fn ms(duration: Duration) -> String {
    format!("{:.1}", duration.as_secs_f64() * 1000.0)
}

impl UpstreamReport {
    /// The value of the relay's `Server-Timing` header (empty when nothing is known).
    pub fn server_timing(&self) -> String {
        let mut metrics: Vec<String> = Vec::new();
        if let Some(conn) = self.conn {
            metrics.push(format!("relay-conn;desc={}", conn.name()));
        }
        if let Some(protocol) = self.protocol {
            metrics.push(format!("relay-proto;desc={}", protocol.name()));
        }
        let setup_on_path = self.conn.is_some_and(ConnVerdict::setup_on_path);
        if let (Some(setup), true) = (self.setup, setup_on_path) {
            metrics.push(format!("relay-dns;dur={}", ms(setup.dns)));
            metrics.push(format!("relay-tcp;dur={}", ms(setup.tcp)));
            if let Some(tls) = setup.tls {
                metrics.push(format!("relay-tls;dur={}", ms(tls)));
            }
        }
        let mut push = |name: &str, value: Option<Duration>| {
            if let Some(value) = value {
                metrics.push(format!("{name};dur={}", ms(value)));
            }
        };
        push("relay-rtt", self.rtt);
        push("relay-sent", self.sent);
        push("relay-headers", self.headers);
        metrics.join(", ")
    }
}

/// The line written right before the upstream's first body bytes.
pub fn first_byte_line(first_byte: Duration) -> String {
    let mut line = String::from(": ttft-relay first-byte=");
    let _ = write!(line, "{}", ms(first_byte));
    line.push('\n');
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms_duration(ms: f64) -> Duration {
        Duration::from_secs_f64(ms / 1000.0)
    }

    #[test]
    fn a_new_connection_reports_every_phase_in_the_documented_order() {
        let report = UpstreamReport {
            conn: Some(ConnVerdict::New),
            protocol: Some(UpstreamProtocol::H2),
            setup: Some(ConnSetup {
                dns: ms_duration(0.44),
                tcp: ms_duration(50.3),
                tls: Some(ms_duration(103.06)),
            }),
            rtt: Some(ms_duration(50.3)),
            sent: Some(ms_duration(154.6)),
            headers: Some(ms_duration(226.0)),
        };
        assert_eq!(
            report.server_timing(),
            "relay-conn;desc=new, relay-proto;desc=h2, relay-dns;dur=0.4, relay-tcp;dur=50.3, \
             relay-tls;dur=103.1, relay-rtt;dur=50.3, relay-sent;dur=154.6, relay-headers;dur=226.0"
        );
    }

    #[test]
    fn a_reused_connection_reports_no_setup() {
        let report = UpstreamReport {
            conn: Some(ConnVerdict::of(false, false)),
            protocol: Some(UpstreamProtocol::Http11),
            setup: Some(ConnSetup::default()),
            rtt: Some(ms_duration(0.12)),
            sent: Some(ms_duration(0.3)),
            headers: None,
        };
        assert_eq!(
            report.server_timing(),
            "relay-conn;desc=reused, relay-proto;desc=http/1.1, relay-rtt;dur=0.1, relay-sent;dur=0.3"
        );
        assert_eq!(UpstreamReport::default().server_timing(), "");
    }

    #[test]
    fn the_verdict_table() {
        assert_eq!(ConnVerdict::of(true, true), ConnVerdict::New);
        assert_eq!(ConnVerdict::of(true, false), ConnVerdict::NewShared);
        assert_eq!(ConnVerdict::of(false, true), ConnVerdict::Preopened);
        assert_eq!(ConnVerdict::of(false, false), ConnVerdict::Reused);
        assert!(!ConnVerdict::Preopened.setup_on_path());
        assert!(ConnVerdict::NewShared.setup_on_path());
    }

    #[test]
    fn the_first_byte_line() {
        assert_eq!(
            first_byte_line(ms_duration(412.34)),
            ": ttft-relay first-byte=412.3\n"
        );
    }
}
