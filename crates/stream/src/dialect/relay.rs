//! ttft-relay's account of a run (docs/relay.md, "The relay's protocol"): its headers
//! (`X-TTFT-Relay: <version>`, `X-TTFT-Relay-Error: <kind>`, and the `relay-*` metrics of a
//! `Server-Timing` header) and the notes it writes in the stream (`: ttft-relay first-byte=…`,
//! `: ttft-relay upstream-error=…`, read by the SSE parser as notes).
//!
//! Every duration is the relay's, on its monotonic clock, from the instant it had read the
//! request's head (t0), in ms, bounded as a server's account is
//! ([`MAX_ACCOUNT_MS`](super::MAX_ACCOUNT_MS)). Nothing here is text a provider could write:
//! the version is a short token, the rest are numbers and known codes.

use serde::{Deserialize, Serialize};

use super::account::{bounded_ms, header_number, MAX_HEADER_BYTES};

/// The header that says a run went through ttft-relay, with its version (lower case).
pub const RELAY_HEADER: &str = "x-ttft-relay";

/// The header of an answer the relay made itself (a refusal, an upstream failure).
pub const RELAY_ERROR_HEADER: &str = "x-ttft-relay-error";

/// The longest version kept, bytes (`0.1.0`, `12.345.6789-rc.1+build`).
const MAX_VERSION_BYTES: usize = 32;

/// The relay's connection to the provider for this request (`relay-conn`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RelayConn {
    /// Opened for this request: it paid DNS, TCP and TLS.
    New,
    /// Opened for a concurrent request whose handshake this one waited for (HTTP/2).
    NewShared,
    /// Opened by the relay's pool before this request: no setup on its path.
    Preopened,
    /// Reused.
    Reused,
}

impl RelayConn {
    /// The serialized code (`new`, `new_shared`, `preopened`, `reused`).
    pub fn code(self) -> &'static str {
        match self {
            RelayConn::New => "new",
            RelayConn::NewShared => "new_shared",
            RelayConn::Preopened => "preopened",
            RelayConn::Reused => "reused",
        }
    }

    /// Whether this request waited for the connection's setup: a cold run.
    pub fn opened(self) -> bool {
        matches!(self, RelayConn::New | RelayConn::NewShared)
    }

    fn from_wire(desc: &str) -> Option<RelayConn> {
        match desc {
            "new" => Some(RelayConn::New),
            "new-shared" => Some(RelayConn::NewShared),
            "preopened" => Some(RelayConn::Preopened),
            "reused" => Some(RelayConn::Reused),
            _ => None,
        }
    }
}

/// The protocol the relay spoke to the provider (`relay-proto`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum RelayProto {
    /// HTTP/2.
    #[serde(rename = "h2")]
    H2,
    /// HTTP/1.1.
    #[serde(rename = "http/1.1")]
    Http11,
}

impl RelayProto {
    /// The ALPN id (`h2`, `http/1.1`).
    pub fn code(self) -> &'static str {
        match self {
            RelayProto::H2 => "h2",
            RelayProto::Http11 => "http/1.1",
        }
    }
}

/// Why the relay answered itself, or which side failed mid-stream (docs/relay.md, "When the
/// relay itself answers").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RelayError {
    /// A request outside the upstream's base path, absolute-form, or `CONNECT`.
    ForbiddenTarget,
    /// The page's origin is not allowed (`--allow-origin`).
    ForbiddenOrigin,
    /// A request head or body over the relay's bound.
    TooLarge,
    /// The provider's name did not resolve.
    UpstreamDns,
    /// TCP connect refused or unreachable.
    UpstreamConnect,
    /// The TLS handshake failed.
    UpstreamTls,
    /// No response headers in time, or the stream stalled.
    UpstreamTimeout,
    /// The connection to the provider dropped.
    UpstreamReset,
    /// A kind this page does not know.
    Other,
}

impl RelayError {
    /// The serialized code (`upstream_reset`, …).
    pub fn code(self) -> &'static str {
        match self {
            RelayError::ForbiddenTarget => "forbidden_target",
            RelayError::ForbiddenOrigin => "forbidden_origin",
            RelayError::TooLarge => "too_large",
            RelayError::UpstreamDns => "upstream_dns",
            RelayError::UpstreamConnect => "upstream_connect",
            RelayError::UpstreamTls => "upstream_tls",
            RelayError::UpstreamTimeout => "upstream_timeout",
            RelayError::UpstreamReset => "upstream_reset",
            RelayError::Other => "other",
        }
    }

    /// Whether the provider's side failed (not the relay refusing the page).
    pub fn upstream(self) -> bool {
        matches!(
            self,
            RelayError::UpstreamDns
                | RelayError::UpstreamConnect
                | RelayError::UpstreamTls
                | RelayError::UpstreamTimeout
                | RelayError::UpstreamReset
        )
    }

    fn from_wire(kind: &str) -> RelayError {
        match kind.trim() {
            "forbidden-target" => RelayError::ForbiddenTarget,
            "forbidden-origin" => RelayError::ForbiddenOrigin,
            "too-large" => RelayError::TooLarge,
            "upstream-dns" => RelayError::UpstreamDns,
            "upstream-connect" => RelayError::UpstreamConnect,
            "upstream-tls" => RelayError::UpstreamTls,
            "upstream-timeout" => RelayError::UpstreamTimeout,
            "upstream-reset" => RelayError::UpstreamReset,
            _ => RelayError::Other,
        }
    }
}

/// What ttft-relay said of one request: present when its headers were read. Durations from
/// t0 (the relay had the request's head), ms; `None`: not said.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RelayAccount {
    /// The relay's version (`X-TTFT-Relay`), when it gave a well-formed one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// Its connection to the provider (`relay-conn`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conn: Option<RelayConn>,
    /// The protocol to the provider (`relay-proto`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proto: Option<RelayProto>,
    /// Name resolution of a connection opened on this request's path (`relay-dns`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dns_ms: Option<f64>,
    /// TCP connect of that connection (`relay-tcp`): one round trip.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tcp_ms: Option<f64>,
    /// TLS handshake of that connection (`relay-tls`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tls_ms: Option<f64>,
    /// The round trip to the provider (`relay-rtt`): the least of the connection's exchanges
    /// that cross the network (its TLS 1.3 handshake, each request's trip from written to
    /// response headers); before any, its TCP connect.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rtt_ms: Option<f64>,
    /// t0 → the request's last byte handed to the upstream connection (`relay-sent`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sent_ms: Option<f64>,
    /// t0 → the provider's response headers (`relay-headers`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub headers_ms: Option<f64>,
    /// t0 → the provider's first body byte (the stream's `: ttft-relay first-byte=` note).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_byte_ms: Option<f64>,
    /// The relay's own answer (`X-TTFT-Relay-Error`) or the upstream's failure mid-stream
    /// (`: ttft-relay upstream-error=`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<RelayError>,
}

/// A version as the relay writes it: a short token of letters, digits and `.+-_`.
fn version_token(value: &str) -> Option<String> {
    let value = value.trim();
    let plain = value
        .bytes()
        .all(|byte| byte.is_ascii_alphanumeric() || matches!(byte, b'.' | b'+' | b'-' | b'_'));
    (plain && !value.is_empty() && value.len() <= MAX_VERSION_BYTES).then(|| value.to_owned())
}

impl RelayAccount {
    /// The relay's account of the response headers (`name`, `value` pairs, names in any
    /// case), when the answer came through ttft-relay (an `X-TTFT-Relay` or
    /// `X-TTFT-Relay-Error` header); `None` otherwise. `relay-*` metrics of every
    /// `Server-Timing` header are read (a browser joins several into one value); the
    /// provider's own metrics there are [`ServerAccount`](super::ServerAccount)'s.
    pub fn from_headers<'h>(
        headers: impl IntoIterator<Item = (&'h str, &'h str)>,
    ) -> Option<RelayAccount> {
        let mut account = RelayAccount::default();
        let mut seen = false;
        for (name, value) in headers {
            if value.len() > MAX_HEADER_BYTES {
                continue;
            }
            let name = name.to_ascii_lowercase();
            match name.as_str() {
                RELAY_HEADER => {
                    seen = true;
                    account.version = version_token(value);
                }
                RELAY_ERROR_HEADER => {
                    seen = true;
                    account.error = Some(RelayError::from_wire(value));
                }
                "server-timing" => account.read_server_timing(value),
                _ => {}
            }
        }
        seen.then_some(account)
    }

    /// The `relay-*` metrics of a `Server-Timing` value (`name;desc=…;dur=…`, comma separated).
    fn read_server_timing(&mut self, value: &str) {
        for metric in value.split(',') {
            let mut params = metric.split(';');
            let name = params.next().unwrap_or_default().trim();
            let Some(name) = name.strip_prefix("relay-") else {
                continue;
            };
            let mut desc = None;
            let mut dur = None;
            for (key, value) in params.filter_map(|param| param.split_once('=')) {
                let value = value.trim().trim_matches('"');
                match key.trim() {
                    "desc" => desc = Some(value),
                    "dur" => dur = header_number(value).and_then(bounded_ms),
                    _ => {}
                }
            }
            match name {
                "conn" => self.conn = desc.and_then(RelayConn::from_wire),
                "proto" => {
                    self.proto = match desc {
                        Some("h2") => Some(RelayProto::H2),
                        Some("http/1.1") => Some(RelayProto::Http11),
                        _ => None,
                    }
                }
                "dns" => self.dns_ms = dur,
                "tcp" => self.tcp_ms = dur,
                "tls" => self.tls_ms = dur,
                "rtt" => self.rtt_ms = dur,
                "sent" => self.sent_ms = dur,
                "headers" => self.headers_ms = dur,
                _ => {}
            }
        }
    }

    /// A note from the stream (the text after `ttft-relay `): `first-byte=412.3` or
    /// `upstream-error=upstream-reset`. The first of each is kept: the relay writes its
    /// `first-byte` before the provider's first byte, so a copy inside the provider's own
    /// stream comes later and is ignored.
    pub fn on_note(&mut self, note: &str) {
        for field in note.split_ascii_whitespace() {
            match field.split_once('=') {
                Some(("first-byte", value)) if self.first_byte_ms.is_none() => {
                    self.first_byte_ms = header_number(value).and_then(bounded_ms);
                }
                Some(("upstream-error", kind)) if self.error.is_none() => {
                    self.error = Some(RelayError::from_wire(kind));
                }
                _ => {}
            }
        }
    }

    /// The setup on the request's path that the relay timed: DNS + TCP + TLS of a connection
    /// it opened for it, ms (`None` when it reported none).
    pub fn handshakes_ms(&self) -> Option<f64> {
        let phases = [self.dns_ms, self.tcp_ms, self.tls_ms];
        phases
            .iter()
            .any(Option::is_some)
            .then(|| phases.into_iter().flatten().sum())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const EXAMPLE: &str = "relay-conn;desc=new, relay-proto;desc=h2, relay-dns;dur=0.4, \
        relay-tcp;dur=50.3, relay-tls;dur=103.1, relay-rtt;dur=50.3, relay-sent;dur=154.6, \
        relay-headers;dur=226.0";

    #[test]
    fn the_documented_example() {
        let account = RelayAccount::from_headers([
            ("X-TTFT-Relay", "0.1.0"),
            ("Server-Timing", EXAMPLE),
            ("openai-processing-ms", "300"),
        ])
        .unwrap();
        assert_eq!(
            account,
            RelayAccount {
                version: Some("0.1.0".into()),
                conn: Some(RelayConn::New),
                proto: Some(RelayProto::H2),
                dns_ms: Some(0.4),
                tcp_ms: Some(50.3),
                tls_ms: Some(103.1),
                rtt_ms: Some(50.3),
                sent_ms: Some(154.6),
                headers_ms: Some(226.0),
                first_byte_ms: None,
                error: None,
            }
        );
        assert!((account.handshakes_ms().unwrap() - 153.8).abs() < 1e-9);
        assert!(account.conn.unwrap().opened());
    }

    #[test]
    fn joined_with_the_providers_server_timing_and_quoted() {
        // A browser joins two Server-Timing headers with ", ".
        let account = RelayAccount::from_headers([
            ("x-ttft-relay", "0.2.0-rc.1"),
            (
                "server-timing",
                "queue;dur=150, relay-conn;desc=\"reused\", relay-proto;desc=http/1.1, relay-rtt;dur=12, relay-headers;dur=\"90.5\"",
            ),
        ])
        .unwrap();
        assert_eq!(account.version.as_deref(), Some("0.2.0-rc.1"));
        assert_eq!(account.conn, Some(RelayConn::Reused));
        assert_eq!(account.proto, Some(RelayProto::Http11));
        assert_eq!(
            (account.rtt_ms, account.headers_ms),
            (Some(12.0), Some(90.5))
        );
        assert_eq!(account.handshakes_ms(), None);
    }

    #[test]
    fn no_relay_header_no_account() {
        assert_eq!(
            RelayAccount::from_headers([("server-timing", EXAMPLE)]),
            None
        );
    }

    #[test]
    fn the_relays_own_answer() {
        let account =
            RelayAccount::from_headers([("X-TTFT-Relay-Error", "upstream-connect")]).unwrap();
        assert_eq!(account.error, Some(RelayError::UpstreamConnect));
        assert!(account.error.unwrap().upstream());
        let odd = RelayAccount::from_headers([("x-ttft-relay-error", "gremlins")]).unwrap();
        assert_eq!(odd.error, Some(RelayError::Other));
    }

    #[test]
    fn hostile_values_are_ignored() {
        let long = "9".repeat(MAX_HEADER_BYTES + 1);
        let account = RelayAccount::from_headers([
            ("x-ttft-relay", "0.1.0 <script>"),
            (
                "server-timing",
                "relay-dns;dur=-1, relay-tcp;dur=NaN, relay-tls;dur=1e300, relay-conn;desc=sideways, relay-rtt;dur=12ms",
            ),
            ("server-timing", long.as_str()),
        ])
        .unwrap();
        assert_eq!(account, RelayAccount::default());
        let long_version = "1".repeat(MAX_VERSION_BYTES + 1);
        let account = RelayAccount::from_headers([("x-ttft-relay", long_version.as_str())]);
        assert_eq!(account.unwrap().version, None);
    }

    #[test]
    fn notes_first_of_each_kept() {
        let mut account = RelayAccount::default();
        account.on_note("first-byte=412.3");
        account.on_note("first-byte=1.0");
        account.on_note("upstream-error=upstream-reset");
        account.on_note("upstream-error=upstream-tls");
        account.on_note("first-byte=abc unknown=1");
        assert_eq!(account.first_byte_ms, Some(412.3));
        assert_eq!(account.error, Some(RelayError::UpstreamReset));
        let mut bad = RelayAccount::default();
        bad.on_note("first-byte=-3");
        assert_eq!(bad.first_byte_ms, None);
    }
}
