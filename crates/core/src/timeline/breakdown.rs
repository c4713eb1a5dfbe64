//! Where one run's wait went: its time to first answer token split into the connection, the
//! CORS preflight, the network round trip, the gateway and server (queue, prompt processing,
//! the rest) and reasoning, whose parts sum to `ttfa_ms` exactly; and around it the browser
//! before the request (click → `fetch()`) and the paint, which with `ttfa_ms` sum to
//! `perceived_ttfa_ms`. Each part says how it is known: measured by the browser, reported by
//! the server, or estimated (DESIGN.md §2, "Where the wait went").
//!
//! A run through ttft-relay (docs/relay.md) is split by what the relay saw upstream: the
//! browser ↔ relay part (the page's time to the relay's answer less the relay's own time to
//! it), the relay's connection to the provider when it opened one, its round trip to the
//! provider, and the provider's server (DESIGN.md §2, "Through ttft-relay").
//!
//! Pure: every time is an argument (ms, page clock).

use serde::{Deserialize, Serialize};
use ttft_stream::dialect::{RelayAccount, RelayConn, ServerAccount};

use super::network::{ConnectionKind, NetworkBreakdown};
use super::run::Instants;
use crate::lang::Lang;
use crate::texts as t;

/// How much more time than the browser waited a server may claim before its account is not
/// believed, ms: the server's clock and the page's are different clocks, and a server rounds.
pub const SERVER_CLAIM_SLACK_MS: f64 = 2.0;

/// One part of the wait.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WaitPart {
    /// The Send click until `fetch()` was called (the page's own work): outside `ttfa_ms`.
    Browser,
    /// Through ttft-relay: the browser, this machine's loopback and the relay's own work
    /// (the page's connection and preflight to the relay included), measured against the
    /// relay's clock.
    Relay,
    /// `fetch()` until the request left: opening a connection (DNS, TCP, TLS) when the run
    /// opened one, and the browser's own queueing.
    Connection,
    /// The CORS preflight the request waited for (an OPTIONS round trip).
    Preflight,
    /// The request's and the first token's trip over the network: one round trip.
    Network,
    /// A gateway's own time, as the gateway reported it.
    Gateway,
    /// Waiting in the server's queue, as the server reported it.
    Queue,
    /// Prompt processing (prefill), as the server reported it.
    Prompt,
    /// The gateway and server before the first token, beyond what they reported (all of it
    /// when they reported nothing).
    Server,
    /// First reasoning token → first answer token.
    Reasoning,
    /// The first answer token's arrival → its paint: outside `ttfa_ms`.
    Paint,
}

impl WaitPart {
    /// Every part, in the order of the wait.
    pub const ALL: [WaitPart; 11] = [
        WaitPart::Browser,
        WaitPart::Relay,
        WaitPart::Connection,
        WaitPart::Preflight,
        WaitPart::Network,
        WaitPart::Gateway,
        WaitPart::Queue,
        WaitPart::Prompt,
        WaitPart::Server,
        WaitPart::Reasoning,
        WaitPart::Paint,
    ];

    /// The serialized code (`connection`, `prompt`, …), for `data-*` attributes, CSV and
    /// OTLP names.
    pub fn code(self) -> &'static str {
        match self {
            WaitPart::Browser => "browser",
            WaitPart::Relay => "relay",
            WaitPart::Connection => "connection",
            WaitPart::Preflight => "preflight",
            WaitPart::Network => "network",
            WaitPart::Gateway => "gateway",
            WaitPart::Queue => "queue",
            WaitPart::Prompt => "prompt",
            WaitPart::Server => "server",
            WaitPart::Reasoning => "reasoning",
            WaitPart::Paint => "paint",
        }
    }

    /// Parses [`WaitPart::code`] back.
    pub fn from_code(code: &str) -> Option<WaitPart> {
        WaitPart::ALL.into_iter().find(|part| part.code() == code)
    }

    /// Its short name, in `lang` (the server part as "gateway and server"; a run's own
    /// wording is [`WaitBreakdown::label`]).
    pub fn label(self, lang: Lang) -> &'static str {
        match self {
            WaitPart::Browser => t::WAIT_PART_BROWSER,
            WaitPart::Relay => t::WAIT_PART_RELAY,
            WaitPart::Connection => t::WAIT_PART_CONNECTION,
            WaitPart::Preflight => t::WAIT_PART_PREFLIGHT,
            WaitPart::Network => t::WAIT_PART_NETWORK,
            WaitPart::Gateway => t::WAIT_PART_GATEWAY,
            WaitPart::Queue => t::WAIT_PART_QUEUE,
            WaitPart::Prompt => t::WAIT_PART_PROMPT,
            WaitPart::Server => t::WAIT_PART_SERVER,
            WaitPart::Reasoning => t::WAIT_PART_REASONING,
            WaitPart::Paint => t::WAIT_PART_PAINT,
        }
        .get(lang)
    }
}

/// How a part's time is known.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PartSource {
    /// From the browser's own clocks (instants, Resource Timing).
    Measured,
    /// From the server's or gateway's own account.
    ServerReported,
    /// Derived: a round trip taken from a handshake, or what remains once the rest is known.
    Estimated,
}

impl PartSource {
    /// Its name, in `lang`.
    pub fn label(self, lang: Lang) -> &'static str {
        match self {
            PartSource::Measured => t::PART_SOURCE_MEASURED,
            PartSource::ServerReported => t::PART_SOURCE_SERVER_REPORTED,
            PartSource::Estimated => t::PART_SOURCE_ESTIMATED,
        }
        .get(lang)
    }

    /// The serialized code.
    pub fn code(self) -> &'static str {
        match self {
            PartSource::Measured => "measured",
            PartSource::ServerReported => "server_reported",
            PartSource::Estimated => "estimated",
        }
    }
}

/// One part's time.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PartTime {
    /// Which part.
    pub part: WaitPart,
    /// Its time, ms.
    pub ms: f64,
    /// How it is known.
    pub source: PartSource,
}

/// Where a round-trip estimate came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RoundTripSource {
    /// This run's TLS handshake (TLS 1.3: one round trip).
    TlsHandshake,
    /// This run's TCP handshake (one round trip), on plain http.
    TcpHandshake,
    /// A handshake the page saw earlier on the same origin (its models list, an earlier run).
    Earlier,
    /// This run's CORS preflight on a connection already open: an OPTIONS round trip, which
    /// a server answers at once.
    Preflight,
    /// Keyless requests the page timed between runs ([`super::PingSamples`]): what is left
    /// where the browser hides every handshake (no `Timing-Allow-Origin`).
    Pings,
    /// ttft-relay's round trip to the provider (`relay-rtt`: the least of its connection's
    /// exchanges that cross the network, its TLS handshake and each request's trip to the
    /// response headers; before any, its TCP connect).
    Relay,
}

/// A network round trip to the endpoint, estimated.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RoundTrip {
    /// The round trip, ms.
    pub ms: f64,
    /// How it was found.
    pub from: RoundTripSource,
    /// How many pings the estimate rests on ([`RoundTripSource::Pings`] only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pings: Option<u32>,
}

impl RoundTrip {
    /// The round trip a request's own handshake shows, when it opened a connection the
    /// browser let the page see: the TLS handshake (one round trip in TLS 1.3, what LLM APIs
    /// speak; TLS 1.2's two would double it), else the TCP handshake.
    pub fn of_handshake(network: &NetworkBreakdown) -> Option<RoundTrip> {
        if !network.timing_visible || network.connection != ConnectionKind::New {
            return None;
        }
        match (network.tls_ms, network.tcp_ms) {
            (Some(tls_ms), _) => Some(RoundTrip {
                ms: tls_ms,
                from: RoundTripSource::TlsHandshake,
                pings: None,
            }),
            (None, Some(tcp_ms)) => Some(RoundTrip {
                ms: tcp_ms,
                from: RoundTripSource::TcpHandshake,
                pings: None,
            }),
            (None, None) => None,
        }
    }
}

/// A server account that claimed more time than the browser waited, and was not believed.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ServerClaim {
    /// What the server (and gateway) said they spent before the first token, ms.
    pub claimed_ms: f64,
    /// What the browser waited for the server at most (the wait after the connection and the
    /// preflight), ms.
    pub waited_ms: f64,
}

/// What the breakdown is computed from.
#[derive(Debug, Clone, Copy)]
pub struct BreakdownInput<'a> {
    /// The run's instants.
    pub instants: &'a Instants,
    /// Its Resource Timing, when read.
    pub network: Option<&'a NetworkBreakdown>,
    /// Whether the run opened a connection (the connection verdict).
    pub cold: Option<bool>,
    /// Whether the endpoint is https (a new connection then pays a TLS round trip too).
    pub https: bool,
    /// Whether the request waited for a CORS preflight (its first preflighted request to
    /// the origin in this page).
    pub first_preflight: bool,
    /// A round trip the page knew before this run, for the same origin.
    pub earlier_round_trip_ms: Option<f64>,
    /// The round trip the page's pings to the origin estimate ([`super::PingSamples`]),
    /// when it has enough of them.
    pub ping_round_trip: Option<RoundTrip>,
    /// What the server and gateway said.
    pub account: Option<&'a ServerAccount>,
    /// The request body's size, bytes (its upload is part of the wait).
    pub request_bytes: Option<u64>,
    /// The browser's estimate of its link, Mbit/s (`navigator.connection.downlink`: a
    /// downlink), when it gives one.
    pub downlink_mbps: Option<f64>,
    /// What ttft-relay said, when the run went through it.
    pub relay: Option<&'a RelayAccount>,
}

/// What a run through ttft-relay adds to its breakdown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct RelayLeg {
    /// The relay's connection to the provider, which cold and warm describe on such a run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conn: Option<RelayConn>,
}

/// One run's wait, part by part.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WaitBreakdown {
    /// The parts of `ttfa_ms`, in the order of the wait; they sum to it exactly.
    pub parts: Vec<PartTime>,
    /// `ttfa_ms`, which the parts sum to.
    pub ttfa_ms: f64,
    /// Click → `fetch()`, when the run had a click (measured).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub browser_ms: Option<f64>,
    /// First answer token → painted (measured), when it was painted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paint_ms: Option<f64>,
    /// The round trip used for the network part, when one was known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub round_trip: Option<RoundTrip>,
    /// The server's account when it claimed more than the browser waited (then not used).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_claim_rejected: Option<ServerClaim>,
    /// The request went on a connection already open (Resource Timing): its measured
    /// connection part is only the browser's own queueing.
    #[serde(default)]
    pub connection_reused: bool,
    /// The request body's size, bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_bytes: Option<u64>,
    /// The browser's estimate of its link, Mbit/s (a downlink), when it gave one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub downlink_mbps: Option<f64>,
    /// Split through ttft-relay: the parts are browser ↔ relay, the relay's connection and
    /// round trip to the provider, and the provider's. Since schema 6.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relay: Option<RelayLeg>,
}

/// A request body from this size on, bytes, gets a word on its upload when the server does
/// not report it (16 KiB: about 130 ms at 1 Mbit/s up).
pub const UPLOAD_NOTE_MIN_BYTES: u64 = 16 * 1024;

/// The parts as they are found, each taken from what is left of the wait.
struct Parts {
    parts: Vec<PartTime>,
    left_ms: f64,
}

impl Parts {
    /// Takes `ms` of what is left for `part`: never more than is left, never negative,
    /// never NaN.
    fn take(&mut self, part: WaitPart, ms: f64, source: PartSource) {
        let ms = if ms.is_nan() {
            0.0
        } else {
            ms.min(self.left_ms).max(0.0)
        };
        if ms > 0.0 {
            self.parts.push(PartTime { part, ms, source });
            self.left_ms -= ms;
        }
    }

    /// Before the request left: the connection and the preflight, measured where Resource
    /// Timing shows them, estimated from the round trip where it hides them.
    fn before_request(&mut self, input: &BreakdownInput<'_>, round_trip: Option<RoundTrip>) {
        let Some(network) = input.network.filter(|network| network.timing_visible) else {
            if input.cold == Some(true) {
                self.take(
                    WaitPart::Connection,
                    handshakes_ms(input, round_trip),
                    PartSource::Estimated,
                );
            }
            if let (true, Some(trip)) = (input.first_preflight, round_trip) {
                self.take(WaitPart::Preflight, trip.ms, PartSource::Estimated);
            }
            return;
        };
        // fetch() → the request left: the browser's lead before Resource Timing starts (WebKit
        // holds the preflight there), then its queueing (Chromium and Firefox hold it there).
        let before_ms = (network.fetch_lead_ms.unwrap_or(0.0) + network.queueing_ms.unwrap_or(0.0))
            .min(self.left_ms);
        if !input.first_preflight {
            self.take(WaitPart::Connection, before_ms, PartSource::Measured);
            return;
        }
        let own_handshake_ms = if network.connection == ConnectionKind::New {
            [network.dns_ms, network.tcp_ms, network.tls_ms]
                .into_iter()
                .flatten()
                .sum::<f64>()
        } else {
            0.0
        };
        // The preflight's round trip; when it opened the connection the request then
        // reused (a cold run on a reused connection), that opening is the connection's,
        // estimated from the round trip.
        let opened_by_preflight_ms =
            if network.connection != ConnectionKind::New && input.cold == Some(true) {
                handshakes_ms(input, round_trip)
            } else {
                0.0
            };
        let preflight_ms = (before_ms - own_handshake_ms - opened_by_preflight_ms).max(0.0);
        let opened_by_preflight_ms = opened_by_preflight_ms.min(before_ms - preflight_ms);
        self.take(
            WaitPart::Connection,
            before_ms - preflight_ms - opened_by_preflight_ms,
            PartSource::Measured,
        );
        self.take(
            WaitPart::Connection,
            opened_by_preflight_ms,
            PartSource::Estimated,
        );
        self.take(WaitPart::Preflight, preflight_ms, PartSource::Measured);
    }

    /// Before the provider had the request, through ttft-relay: browser ↔ relay, then the
    /// relay's connection to the provider when it opened one for this request (its time to
    /// the request written: DNS, TCP, TLS and its own work, or the handshakes it shared).
    /// The relay's own work before a reused connection is its part of browser ↔ relay.
    fn before_provider(&mut self, relay: &RelayAccount, loopback_ms: f64) {
        let handshakes_ms = relay.handshakes_ms();
        let before_send_ms = relay.sent_ms.or(handshakes_ms).unwrap_or(0.0);
        if relay.conn.is_some_and(RelayConn::opened) {
            self.take(WaitPart::Relay, loopback_ms, PartSource::Measured);
            // The time until the request was written (`relay-sent`) is what the set-up cost
            // this request: a request that joined a handshake already under way (another
            // request's, begun before it came) waited for only its end, less than the
            // connection's whole DNS + TCP + TLS. The handshakes stand in only without it.
            self.take(WaitPart::Connection, before_send_ms, PartSource::Measured);
        } else {
            self.take(
                WaitPart::Relay,
                loopback_ms + before_send_ms,
                PartSource::Measured,
            );
        }
    }
}

/// Browser ↔ relay, ms: the page's time to the relay's response headers less the relay's
/// time to them (`relay-headers`), or to the first body byte less the relay's
/// (`first-byte`), whichever is less. Both are the page's request to the relay and the
/// answer's way back (loopback, the browser's own work, the page's connection and preflight
/// to the relay); each can only be inflated (Firefox resolves `fetch()` with the first body
/// bytes; a read waits for the worker), so the lesser is the closer. `None` when the relay
/// gave neither.
fn relay_loopback_ms(relay: &RelayAccount, instants: &Instants) -> Option<f64> {
    let start = instants.request_started;
    let since = |at: Option<f64>, relay_ms: Option<f64>| {
        at.zip(relay_ms)
            .map(|(at, relay_ms)| (at - start - relay_ms).max(0.0))
    };
    [
        since(instants.headers_received, relay.headers_ms),
        since(instants.first_byte, relay.first_byte_ms),
    ]
    .into_iter()
    .flatten()
    .filter(|ms| ms.is_finite())
    .min_by(f64::total_cmp)
}

impl WaitBreakdown {
    /// The breakdown of a run that received an answer token; `None` otherwise.
    pub fn compute(input: &BreakdownInput<'_>) -> Option<WaitBreakdown> {
        let instants = input.instants;
        let start = instants.request_started;
        let first_answer = instants.first_answer?;
        let ttfa_ms = first_answer - start;
        if !(ttfa_ms.is_finite() && ttfa_ms >= 0.0) {
            return None;
        }
        // A first token before the request (a record from elsewhere) counts from its start.
        let first_token = instants
            .first_reasoning
            .map_or(first_answer, |reasoning| reasoning.min(first_answer))
            .max(start);
        let mut parts = Parts {
            parts: Vec::new(),
            left_ms: first_token - start,
        };
        let through_relay = input
            .relay
            .and_then(|relay| relay_loopback_ms(relay, instants).map(|ms| (relay, ms)));
        let round_trip = match through_relay {
            Some((relay, loopback_ms)) => {
                parts.before_provider(relay, loopback_ms);
                relay
                    .rtt_ms
                    .filter(|ms| ms.is_finite() && *ms >= 0.0)
                    .map(|ms| RoundTrip {
                        ms,
                        from: RoundTripSource::Relay,
                        pings: None,
                    })
            }
            None => {
                let round_trip = browser_round_trip(input);
                parts.before_request(input, round_trip);
                round_trip
            }
        };
        // The server's account, checked against the wait left (network included: the
        // round trip is only an estimate, the server's clock is the server's).
        let (reported, server_claim_rejected) = reported_parts(input.account, parts.left_ms);
        let reported_ms: f64 = reported.iter().map(|(_, ms)| ms).sum();
        if let Some(trip) = round_trip {
            let network_ms = trip.ms.min(parts.left_ms - reported_ms);
            parts.take(WaitPart::Network, network_ms, PartSource::Estimated);
        }
        // The upload the server reported is the network's (`reported_parts` lists it as such).
        for (part, ms) in reported {
            parts.take(part, ms, PartSource::ServerReported);
        }
        parts.take(WaitPart::Server, parts.left_ms, PartSource::Estimated);
        let mut parts = parts.parts;
        let reasoning_ms = first_answer - first_token;
        if reasoning_ms > 0.0 {
            parts.push(PartTime {
                part: WaitPart::Reasoning,
                ms: reasoning_ms,
                source: PartSource::Measured,
            });
        }
        // Exact sum: the last part absorbs the floating-point dust.
        let sum: f64 = parts.iter().map(|part| part.ms).sum();
        if let Some(last) = parts.last_mut() {
            last.ms += ttfa_ms - sum;
        }
        Some(WaitBreakdown {
            parts,
            ttfa_ms,
            browser_ms: instants.clicked.map(|clicked| (start - clicked).max(0.0)),
            paint_ms: instants
                .answer_painted
                .as_ref()
                .map(|painted| (painted.at_ms - first_answer).max(0.0)),
            round_trip,
            server_claim_rejected,
            connection_reused: through_relay.is_none()
                && input.network.is_some_and(|network| {
                    network.timing_visible && network.connection == ConnectionKind::Reused
                }),
            request_bytes: input.request_bytes,
            downlink_mbps: input
                .downlink_mbps
                .filter(|mbps| mbps.is_finite() && *mbps > 0.0 && *mbps < 1e6),
            relay: through_relay.map(|(relay, _)| RelayLeg { conn: relay.conn }),
        })
    }

    /// The server's report of the request's upload, ms (inside the network part), when it
    /// gave one.
    pub fn upload_ms(&self) -> Option<f64> {
        let reported: Vec<f64> = self
            .parts
            .iter()
            .filter(|time| {
                time.part == WaitPart::Network && time.source == PartSource::ServerReported
            })
            .map(|time| time.ms)
            .collect();
        (!reported.is_empty()).then(|| reported.iter().sum())
    }

    /// What the page can say of a large request's upload when the server did not report it:
    /// that it is inside the server's part, with the body's size and the browser's link
    /// estimate (a downlink: said so); `None` for a small body or a reported upload.
    pub fn upload_note(&self, lang: Lang) -> Option<String> {
        let bytes = self
            .request_bytes
            .filter(|bytes| *bytes >= UPLOAD_NOTE_MIN_BYTES)?;
        if self.upload_ms().is_some() {
            return None;
        }
        let downlink = match self.downlink_mbps {
            Some(mbps) => t::WAIT_UPLOAD_DOWNLINK.fill(lang, &[("mbps", &format!("{mbps}"))]),
            None => t::WAIT_UPLOAD_NO_DOWNLINK.get(lang).to_owned(),
        };
        #[allow(clippy::cast_precision_loss)] // a body size: far below 2^52 bytes
        let kb = bytes as f64 / 1000.0;
        Some(t::WAIT_UPLOAD_INCLUDED.fill(
            lang,
            &[("kb", &format!("{kb:.1}")), ("downlink", &downlink)],
        ))
    }

    /// A part's time: `browser` and `paint` from their fields, the others summed over the
    /// parts (0 when the run had none of it).
    pub fn ms(&self, part: WaitPart) -> Option<f64> {
        match part {
            WaitPart::Browser => self.browser_ms,
            WaitPart::Paint => self.paint_ms,
            // `+ 0.0`: an empty sum of floats is −0, which would print as "-0.000".
            other => Some(
                self.parts
                    .iter()
                    .filter(|time| time.part == other)
                    .map(|time| time.ms)
                    .sum::<f64>()
                    + 0.0,
            ),
        }
    }

    /// A part's source, when the run had it.
    pub fn source(&self, part: WaitPart) -> Option<PartSource> {
        match part {
            WaitPart::Browser => self.browser_ms.map(|_| PartSource::Measured),
            WaitPart::Paint => self.paint_ms.map(|_| PartSource::Measured),
            other => self
                .parts
                .iter()
                .find(|time| time.part == other)
                .map(|time| time.source),
        }
    }

    /// A part's name in this run, in `lang`: the server part is "server, the rest" when the
    /// server reported part of its time, "network, gateway and server" when no round trip
    /// was known.
    pub fn label(&self, time: &PartTime, lang: Lang) -> &'static str {
        let relay = self.relay.is_some();
        match time.part {
            WaitPart::Connection if relay => t::WAIT_PART_RELAY_CONNECTION.get(lang),
            WaitPart::Network if relay && time.source == PartSource::Estimated => {
                t::WAIT_PART_RELAY_NETWORK.get(lang)
            }
            WaitPart::Server
                if relay && self.round_trip.is_some() && !self.has_server_account() =>
            {
                t::WAIT_PART_PROVIDER_SERVER.get(lang)
            }
            WaitPart::Server if time.source == PartSource::ServerReported => {
                t::WAIT_PART_SERVER_REPORTED.get(lang)
            }
            WaitPart::Network if time.source == PartSource::ServerReported => {
                t::WAIT_PART_UPLOAD.get(lang)
            }
            WaitPart::Server if self.has_server_account() => t::WAIT_PART_SERVER_REST.get(lang),
            WaitPart::Server if self.round_trip.is_none() => {
                t::WAIT_PART_SERVER_AND_NETWORK.get(lang)
            }
            WaitPart::Connection
                if self.connection_reused && time.source == PartSource::Measured =>
            {
                t::WAIT_PART_CONNECTION_REUSED.get(lang)
            }
            part => part.label(lang),
        }
    }

    /// Where the round trip came from, in a sentence, in `lang`.
    pub fn round_trip_text(&self, lang: Lang) -> String {
        match self.round_trip {
            Some(trip) => {
                let from = match trip.from {
                    RoundTripSource::TlsHandshake => t::WAIT_ROUND_TRIP_FROM_TLS.get(lang).into(),
                    RoundTripSource::TcpHandshake => t::WAIT_ROUND_TRIP_FROM_TCP.get(lang).into(),
                    RoundTripSource::Earlier => t::WAIT_ROUND_TRIP_FROM_EARLIER.get(lang).into(),
                    RoundTripSource::Preflight => {
                        t::WAIT_ROUND_TRIP_FROM_PREFLIGHT.get(lang).into()
                    }
                    RoundTripSource::Relay => t::WAIT_ROUND_TRIP_FROM_RELAY.get(lang).into(),
                    RoundTripSource::Pings => t::WAIT_ROUND_TRIP_FROM_PINGS.fill(
                        lang,
                        &[("count", &trip.pings.unwrap_or_default().to_string())],
                    ),
                };
                t::WAIT_ROUND_TRIP
                    .fill(lang, &[("ms", &format!("{:.1}", trip.ms)), ("from", &from)])
            }
            None => t::WAIT_ROUND_TRIP_UNKNOWN.get(lang).to_owned(),
        }
    }

    /// Through ttft-relay: what its parts are and what cold and warm describe, in `lang`.
    pub fn relay_text(&self, lang: Lang) -> Option<String> {
        let leg = self.relay?;
        let conn = match leg.conn {
            Some(RelayConn::New) => t::WAIT_RELAY_CONN_NEW,
            Some(RelayConn::NewShared) => t::WAIT_RELAY_CONN_NEW_SHARED,
            Some(RelayConn::Preopened) => t::WAIT_RELAY_CONN_PREOPENED,
            Some(RelayConn::Reused) => t::WAIT_RELAY_CONN_REUSED,
            None => t::WAIT_RELAY_CONN_UNKNOWN,
        };
        Some(t::WAIT_RELAY_NOTE.fill(lang, &[("conn", &conn.get(lang))]))
    }

    /// What a server that claimed more than the browser waited is told, in `lang`.
    pub fn claim_text(&self, lang: Lang) -> Option<String> {
        self.server_claim_rejected.map(|claim| {
            t::WAIT_SERVER_CLAIM_REJECTED.fill(
                lang,
                &[
                    ("claimed_ms", &format!("{:.0}", claim.claimed_ms)),
                    ("waited_ms", &format!("{:.0}", claim.waited_ms)),
                ],
            )
        })
    }

    /// Whether the server or gateway reported any part.
    pub fn has_server_account(&self) -> bool {
        self.parts
            .iter()
            .any(|part| part.source == PartSource::ServerReported)
    }
}

/// The round trip to the endpoint, as the browser and the page saw it: the least of this
/// run's handshake, an earlier one, its preflight on an open connection and the pings (a
/// handshake carries crypto and scheduling on top of the trip; the least is the closest).
fn browser_round_trip(input: &BreakdownInput<'_>) -> Option<RoundTrip> {
    let visible = input.network.filter(|network| network.timing_visible);
    let preflight_trip = visible
        .filter(|network| {
            input.first_preflight
                && network.connection == ConnectionKind::Reused
                && input.cold != Some(true)
        })
        .and_then(|network| network.queueing_ms)
        .map(|ms| RoundTrip {
            ms,
            from: RoundTripSource::Preflight,
            pings: None,
        });
    let earlier_trip = input.earlier_round_trip_ms.map(|ms| RoundTrip {
        ms,
        from: RoundTripSource::Earlier,
        pings: None,
    });
    [
        visible.and_then(RoundTrip::of_handshake),
        earlier_trip,
        preflight_trip,
        input.ping_round_trip,
    ]
    .into_iter()
    .flatten()
    .filter(|trip| trip.ms.is_finite() && trip.ms >= 0.0)
    .min_by(|a, b| a.ms.total_cmp(&b.ms))
}

/// The handshakes a new connection costs: TCP's round trip, and TLS 1.3's on https.
fn handshakes_ms(input: &BreakdownInput<'_>, round_trip: Option<RoundTrip>) -> f64 {
    round_trip.map_or(
        0.0,
        |trip| {
            if input.https {
                2.0 * trip.ms
            } else {
                trip.ms
            }
        },
    )
}

/// The parts a server account gives (gateway, queue, prompt), when they fit in what the
/// browser waited after the connection and preflight; else none, and the claim that did not
/// fit.
fn reported_parts(
    account: Option<&ServerAccount>,
    waited_ms: f64,
) -> (Vec<(WaitPart, f64)>, Option<ServerClaim>) {
    let Some(account) = account else {
        return (Vec::new(), None);
    };
    // The upload the server saw (from the request's first bytes to its last) is network time.
    let mut parts: Vec<(WaitPart, f64)> = [
        (WaitPart::Network, account.upload_ms),
        (WaitPart::Gateway, account.gateway_ms),
        (WaitPart::Queue, account.queue_ms),
        (WaitPart::Prompt, account.prompt_ms),
    ]
    .into_iter()
    .filter_map(|(part, ms)| ms.map(|ms| (part, ms)))
    .collect();
    // A server that reports only its own time to first token (SambaNova): that is its part,
    // the queue and prompt together.
    if parts
        .iter()
        .all(|(part, _)| matches!(part, WaitPart::Gateway | WaitPart::Network))
    {
        if let Some(ttft_ms) = account.ttft_ms {
            parts.push((WaitPart::Server, ttft_ms));
        }
    }
    let claimed_ms: f64 = parts.iter().map(|(_, ms)| ms).sum();
    if claimed_ms > waited_ms + SERVER_CLAIM_SLACK_MS {
        return (
            Vec::new(),
            Some(ServerClaim {
                claimed_ms,
                waited_ms,
            }),
        );
    }
    // Within the slack: trimmed to the wait.
    let mut room_ms = waited_ms;
    for (_, ms) in &mut parts {
        *ms = ms.min(room_ms);
        room_ms -= *ms;
    }
    (parts, None)
}
