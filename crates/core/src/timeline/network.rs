//! The network part of a run from the browser's Resource Timing: the entry as read, the
//! connection it used, and the breakdown of its phases.

use serde::{Deserialize, Serialize};

/// The raw `PerformanceResourceTiming` fields, as the browser gives them (ms, page clock).
/// Cross-origin responses without `Timing-Allow-Origin` report 0 for all but `fetch_start`.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct ResourceTiming {
    /// `fetchStart`.
    pub fetch_start: f64,
    /// `domainLookupStart`.
    pub domain_lookup_start: f64,
    /// `domainLookupEnd`.
    pub domain_lookup_end: f64,
    /// `connectStart`.
    pub connect_start: f64,
    /// `connectEnd`.
    pub connect_end: f64,
    /// `secureConnectionStart` (0 for plain http).
    pub secure_connection_start: f64,
    /// `requestStart`.
    pub request_start: f64,
    /// `responseStart`.
    pub response_start: f64,
    /// `nextHopProtocol`, read ([`HttpProtocol::from_next_hop`]).
    #[serde(default)]
    pub next_hop_protocol: HttpProtocol,
}

/// The HTTP version a request went over, as Resource Timing's `nextHopProtocol` names it
/// (the ALPN ids of the IANA registry). Browsers leave it empty when the server's
/// `Timing-Allow-Origin` does not cover the page, and for some cached or service-worker
/// answers: then [`HttpProtocol::Hidden`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum HttpProtocol {
    /// `http/1.0`.
    #[serde(rename = "http/1.0")]
    Http10,
    /// `http/1.1`.
    #[serde(rename = "http/1.1")]
    Http11,
    /// `h2`: HTTP/2 over TLS (or `h2c` in clear).
    #[serde(rename = "h2")]
    H2,
    /// `h3` (and the drafts' `h3-29`…): HTTP/3 over QUIC.
    #[serde(rename = "h3")]
    H3,
    /// The browser did not say.
    #[default]
    #[serde(rename = "hidden")]
    Hidden,
}

impl HttpProtocol {
    /// Every protocol, for tables and tests.
    pub const ALL: [HttpProtocol; 5] = [
        HttpProtocol::Http10,
        HttpProtocol::Http11,
        HttpProtocol::H2,
        HttpProtocol::H3,
        HttpProtocol::Hidden,
    ];

    /// Reads `nextHopProtocol` (case and surrounding spaces ignored; an id this build does
    /// not know is [`HttpProtocol::Hidden`], since nothing true can be said of it).
    pub fn from_next_hop(value: &str) -> HttpProtocol {
        let value = value.trim().to_ascii_lowercase();
        match value.as_str() {
            "http/1.0" => HttpProtocol::Http10,
            "http/1.1" => HttpProtocol::Http11,
            "h2" | "h2c" => HttpProtocol::H2,
            "h3" => HttpProtocol::H3,
            other if other.starts_with("h3-") => HttpProtocol::H3,
            _ => HttpProtocol::Hidden,
        }
    }

    /// The code shown and exported: `http/1.0`, `http/1.1`, `h2`, `h3` or `hidden`.
    pub fn code(self) -> &'static str {
        match self {
            HttpProtocol::Http10 => "http/1.0",
            HttpProtocol::Http11 => "http/1.1",
            HttpProtocol::H2 => "h2",
            HttpProtocol::H3 => "h3",
            HttpProtocol::Hidden => "hidden",
        }
    }

    /// Parses [`HttpProtocol::code`] back.
    pub fn from_code(code: &str) -> Option<HttpProtocol> {
        HttpProtocol::ALL
            .into_iter()
            .find(|protocol| protocol.code() == code)
    }

    /// OpenTelemetry's `network.protocol.name` and `network.protocol.version`
    /// (`http` and `1.1`, `2` or `3`), when known.
    pub fn otel_name_version(self) -> Option<(&'static str, &'static str)> {
        match self {
            HttpProtocol::Http10 => Some(("http", "1.0")),
            HttpProtocol::Http11 => Some(("http", "1.1")),
            HttpProtocol::H2 => Some(("http", "2")),
            HttpProtocol::H3 => Some(("http", "3")),
            HttpProtocol::Hidden => None,
        }
    }

    /// Whether requests to one origin share one connection (HTTP/2 and HTTP/3), rather than
    /// up to six at once (HTTP/1.x).
    pub fn multiplexed(self) -> Option<bool> {
        match self {
            HttpProtocol::Http10 | HttpProtocol::Http11 => Some(false),
            HttpProtocol::H2 | HttpProtocol::H3 => Some(true),
            HttpProtocol::Hidden => None,
        }
    }
}

/// Whether the request opened a new connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ConnectionKind {
    /// A new connection: DNS/TCP/TLS were paid (a cold run).
    New,
    /// An existing connection was reused (a warm run).
    Reused,
    /// Hidden by the missing `Timing-Allow-Origin` header.
    Unknown,
}

impl ConnectionKind {
    /// Whether this means a cold run: `Some(true)` for a new connection, `Some(false)` for
    /// a reused one, `None` when the browser hid it.
    pub fn cold(self) -> Option<bool> {
        match self {
            ConnectionKind::New => Some(true),
            ConnectionKind::Reused => Some(false),
            ConnectionKind::Unknown => None,
        }
    }
}

/// Network phases of one request from Resource Timing. `None` for phases the browser did
/// not expose (no `Timing-Allow-Origin`) or that did not apply (no TLS on plain http).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NetworkBreakdown {
    /// domainLookupEnd − domainLookupStart.
    pub dns_ms: Option<f64>,
    /// TCP handshake: (secureConnectionStart, or connectEnd without TLS) − connectStart.
    pub tcp_ms: Option<f64>,
    /// TLS handshake: connectEnd − secureConnectionStart.
    pub tls_ms: Option<f64>,
    /// Browser queueing, requestStart − fetchStart (DESIGN.md §2). It reveals the
    /// six-connections-per-host limit of HTTP/1.1; on a new connection it also contains
    /// DNS + TCP + TLS.
    pub queueing_ms: Option<f64>,
    /// Waiting for the server, responseStart − requestStart (DevTools' "waiting for server
    /// response"): server queue, and prefill on servers that hold the headers.
    pub waiting_ms: Option<f64>,
    /// The whole request up to the first response byte, responseStart − fetchStart
    /// (= queueing + waiting).
    pub request_ms: Option<f64>,
    /// New or reused connection.
    pub connection: ConnectionKind,
    /// Whether the detailed fields were visible (`Timing-Allow-Origin` allowed them).
    pub timing_visible: bool,
    /// The CORS preflight this request waited for, when it was the page's first preflighted
    /// request to its origin: the OPTIONS round trip (and the new connection it opened) is
    /// inside `queueing_ms`, which is what this repeats. Resource Timing has no entry for the
    /// preflight itself. Since schema 2.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preflight_ms: Option<f64>,
    /// The HTTP version the request went over (`nextHopProtocol`); `None` in records made
    /// before schema 4, which did not keep it. Since schema 4.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocol: Option<HttpProtocol>,
    /// `fetchStart − request_started`: the browser's own time before Resource Timing starts
    /// counting. WebKit starts the entry only after the CORS preflight, so there the
    /// preflight (and the connection it opened) is here, not in `queueing_ms`. Known even
    /// when timing is hidden (`fetchStart` always is). Since schema 5.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fetch_lead_ms: Option<f64>,
}

/// `end − start` when both are real timestamps (non-zero) in order.
fn phase(start: f64, end: f64) -> Option<f64> {
    (start > 0.0 && end > 0.0 && end >= start).then_some(end - start)
}

impl NetworkBreakdown {
    /// Builds the breakdown from the raw fields, treating zeros as hidden.
    ///
    /// Without `Timing-Allow-Origin` every field but `fetchStart` is 0: all phases are
    /// `None` and the connection is `Unknown`. A reused connection has
    /// `connectStart == connectEnd` (no handshake), so its DNS and TCP phases are 0.
    pub fn from_resource_timing(timing: &ResourceTiming) -> NetworkBreakdown {
        let visible = timing.request_start > 0.0 || timing.response_start > 0.0;
        if !visible {
            return NetworkBreakdown {
                dns_ms: None,
                tcp_ms: None,
                tls_ms: None,
                queueing_ms: None,
                waiting_ms: None,
                request_ms: None,
                connection: ConnectionKind::Unknown,
                timing_visible: false,
                preflight_ms: None,
                protocol: Some(timing.next_hop_protocol),
                fetch_lead_ms: None,
            };
        }
        let has_tls = timing.secure_connection_start > 0.0;
        let tcp_end = if has_tls {
            timing.secure_connection_start
        } else {
            timing.connect_end
        };
        let connection = if timing.connect_start <= 0.0 {
            ConnectionKind::Unknown
        } else if timing.connect_end > timing.connect_start {
            ConnectionKind::New
        } else {
            ConnectionKind::Reused
        };
        NetworkBreakdown {
            dns_ms: phase(timing.domain_lookup_start, timing.domain_lookup_end),
            tcp_ms: phase(timing.connect_start, tcp_end),
            tls_ms: if has_tls {
                phase(timing.secure_connection_start, timing.connect_end)
            } else {
                None
            },
            queueing_ms: phase(timing.fetch_start, timing.request_start),
            waiting_ms: phase(timing.request_start, timing.response_start),
            request_ms: phase(timing.fetch_start, timing.response_start),
            connection,
            timing_visible: true,
            preflight_ms: None,
            protocol: Some(timing.next_hop_protocol),
            fetch_lead_ms: None,
        }
    }
}
