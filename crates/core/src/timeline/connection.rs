//! Cold or warm: whether a run paid for opening a connection, from what the browser says and
//! what the page did before.
//!
//! Resource Timing tells whether the request itself opened a connection
//! (`connectEnd > connectStart`) when the server's `Timing-Allow-Origin` lets the page see
//! it. Two things it does not tell:
//!
//! - A CORS preflight has no entry of its own. The page's first preflighted request to an
//!   origin sends OPTIONS first; if that opened the connection, the request then reuses it
//!   and looks warm, although the run paid the handshake. But the connection may as well
//!   have been opened earlier by the page's own requests (the models list at load, token
//!   counting): then the run is warm.
//! - Without `Timing-Allow-Origin` nothing is visible at all.
//!
//! So the page keeps, per origin, when it last heard from it, and the least round trip and
//! handshake it saw there ([`OriginContact`]); the rule ([`ConnectionVerdict::decide`])
//! calls a preflighted reuse warm or cold only when the preflight's own time decides it
//! ([`PreflightClock`]), and unknown otherwise:
//!
//! ```
//! use ttft_core::timeline::{ConnectionEvidence, ConnectionKind, ConnectionVerdict};
//!
//! use ttft_core::timeline::PreflightClock;
//!
//! // The models list at load answered 1.7 s before Send, over a 50 ms round trip whose TLS
//! // connection took 100 ms to open; the run's POST was preflighted and its own entry shows
//! // a reused connection. Its preflight took 58 ms: it found the connection open.
//! let clock = |before_request_ms| {
//!     Some(PreflightClock { before_request_ms, round_trip_ms: 50.0, handshake_ms: 100.0 })
//! };
//! let verdict = ConnectionVerdict::decide(ConnectionKind::Reused, true, Some(1700.0), clock(58.0));
//! assert_eq!(verdict.cold, Some(false));
//! // 160 ms: the connection had closed since, and the preflight opened a new one.
//! let verdict = ConnectionVerdict::decide(ConnectionKind::Reused, true, Some(1700.0), clock(160.0));
//! assert_eq!((verdict.cold, verdict.evidence), (Some(true), ConnectionEvidence::PreflightClock));
//! // Nothing before: the preflight opened the connection.
//! let verdict = ConnectionVerdict::decide(ConnectionKind::Reused, true, None, None);
//! assert_eq!((verdict.cold, verdict.evidence), (Some(true), ConnectionEvidence::PreflightOpened));
//! ```

use serde::{Deserialize, Serialize};

use super::breakdown::RoundTrip;
use super::network::ConnectionKind;
use super::ping::PingSamples;

/// How long after the page last heard from an origin its connection is taken to be still
/// open: below the shortest keep-alive of the servers users run (uvicorn's 5 s, behind
/// vLLM, SGLang and LiteLLM; Node's 5 s; nginx keeps 75 s). Past it, a connection found
/// reused by a preflighted request may have been opened by the preflight: unknown.
pub const KEEP_ALIVE_ASSUMED_MS: f64 = 4000.0;

/// What the page knows of its earlier traffic with an origin: the end of its latest
/// exchange (a response received, a run ended) and the latest request it sent there, ms on
/// the page clock.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct OriginContact {
    /// The latest, `None` when the page never heard from the origin.
    pub last_heard_ms: Option<f64>,
    /// When the page last sent a request there (answered or not: a request on its way may
    /// already have opened the connection a run then reuses), `None` when it never did.
    pub last_sent_ms: Option<f64>,
    /// The least network round trip to the origin the page saw (a handshake in Resource
    /// Timing: its models list, an earlier run; a run's preflight), ms; `None` when it saw
    /// none.
    pub round_trip_ms: Option<f64>,
    /// The round trip the page's pings to the origin estimate, once it has enough of them
    /// ([`PingSamples::estimate`]).
    pub ping_round_trip: Option<RoundTrip>,
    /// The least time a new connection to the origin took to open that the page saw (TCP and
    /// TLS, `connectEnd − connectStart`), ms; `None` when it saw none.
    pub handshake_ms: Option<f64>,
}

impl OriginContact {
    /// How long before `now_ms` the page last sent a request to the origin or heard from it,
    /// whichever was later.
    pub fn ago_ms(&self, now_ms: f64) -> Option<f64> {
        let latest_ms = match (self.last_heard_ms, self.last_sent_ms) {
            (Some(heard_ms), Some(sent_ms)) => Some(heard_ms.max(sent_ms)),
            (heard_ms, sent_ms) => heard_ms.or(sent_ms),
        };
        latest_ms.map(|at_ms| (now_ms - at_ms).max(0.0))
    }
}

/// One value per origin, the most recent origins last, at most
/// [`OriginContacts::MAX_ORIGINS`] of them (the oldest goes).
#[derive(Debug, Clone, PartialEq)]
struct PerOrigin<T>(Vec<(String, T)>);

impl<T> Default for PerOrigin<T> {
    fn default() -> Self {
        PerOrigin(Vec::new())
    }
}

impl<T> PerOrigin<T> {
    /// `origin`'s value.
    fn get(&self, origin: &str) -> Option<&T> {
        self.0
            .iter()
            .find(|(known, _)| known == origin)
            .map(|(_, value)| value)
    }

    /// Sets `origin`'s value to `update(its value so far)`, and makes it the most recent.
    fn update(&mut self, origin: &str, update: impl FnOnce(Option<T>) -> T) {
        let known = self
            .0
            .iter()
            .position(|(known, _)| known == origin)
            .map(|at| self.0.remove(at).1);
        if self.0.len() == OriginContacts::MAX_ORIGINS {
            self.0.remove(0);
        }
        self.0.push((origin.to_owned(), update(known)));
    }
}

/// The page's contacts per origin (the latest answer from each), for
/// [`Measurement::on_origin_contact`](crate::measure::Measurement::on_origin_contact).
/// Keeps the [`OriginContacts::MAX_ORIGINS`] most recent origins.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OriginContacts {
    /// Last heard, ms.
    heard: PerOrigin<f64>,
    /// Last sent, ms.
    sent: PerOrigin<f64>,
    /// The least round trip seen, ms.
    round_trips: PerOrigin<f64>,
    /// The least handshake seen, ms.
    handshakes: PerOrigin<f64>,
    /// The latest pings.
    pings: PerOrigin<PingSamples>,
    /// Whether the browser showed the origin's timing, from its latest Resource Timing entry.
    timing_visible: PerOrigin<bool>,
}

/// `ms` when it is a real duration.
fn duration(ms: f64) -> Option<f64> {
    (ms.is_finite() && ms >= 0.0).then_some(ms)
}

impl OriginContacts {
    /// Origins kept (a page talks to a handful: its endpoint, a collector, a gateway).
    pub const MAX_ORIGINS: usize = 32;

    /// The page heard from `origin` (`scheme://host:port`) at `at_ms`.
    pub fn heard(&mut self, origin: &str, at_ms: f64) {
        self.heard.update(origin, |known| {
            known.map_or(at_ms, |known| known.max(at_ms))
        });
    }

    /// The page sent a request to `origin` at `at_ms` (before any answer: it may open a
    /// connection that a run then reuses).
    pub fn sent(&mut self, origin: &str, at_ms: f64) {
        self.sent.update(origin, |known| {
            known.map_or(at_ms, |known| known.max(at_ms))
        });
    }

    /// A round trip of `ms` to `origin` was seen (a handshake's or a preflight's time). The
    /// least one seen is kept: each carries the trip plus some work (crypto, scheduling).
    pub fn round_trip(&mut self, origin: &str, ms: f64) {
        if let Some(ms) = duration(ms) {
            self.round_trips
                .update(origin, |known| known.map_or(ms, |known| known.min(ms)));
        }
    }

    /// A new connection to `origin` took `ms` to open (TCP and TLS, from Resource Timing).
    /// The least one seen is kept.
    pub fn handshake(&mut self, origin: &str, ms: f64) {
        if let Some(ms) = duration(ms).filter(|ms| *ms > 0.0) {
            self.handshakes
                .update(origin, |known| known.map_or(ms, |known| known.min(ms)));
        }
    }

    /// A ping to `origin` took `ms` (`fetch()` → response headers; [`PingSamples`]).
    pub fn pinged(&mut self, origin: &str, ms: f64) {
        self.pings.update(origin, |known| {
            let mut samples = known.unwrap_or_default();
            samples.push(ms);
            samples
        });
    }

    /// A Resource Timing entry of `origin` showed its timing (`visible`), or hid it (no
    /// `Timing-Allow-Origin`).
    pub fn saw_timing(&mut self, origin: &str, visible: bool) {
        self.timing_visible.update(origin, |_| visible);
    }

    /// Whether the browser shows `origin`'s timing, from its latest entry; `None` before any.
    pub fn timing_visible(&self, origin: &str) -> Option<bool> {
        self.timing_visible.get(origin).copied()
    }

    /// How many pings to send to `origin` now, between runs ([`super::pings_to_send`]).
    pub fn pings_to_send(&self, origin: &str) -> usize {
        super::ping::pings_to_send(self.timing_visible(origin), self.ping_count(origin))
    }

    /// How many pings to `origin` are kept.
    pub fn ping_count(&self, origin: &str) -> usize {
        self.pings.get(origin).map_or(0, PingSamples::len)
    }

    /// What the page knows of `origin`.
    pub fn contact(&self, origin: &str) -> OriginContact {
        OriginContact {
            last_heard_ms: self.heard.get(origin).copied(),
            last_sent_ms: self.sent.get(origin).copied(),
            round_trip_ms: self.round_trips.get(origin).copied(),
            ping_round_trip: self.pings.get(origin).and_then(PingSamples::estimate),
            handshake_ms: self.handshakes.get(origin).copied(),
        }
    }
}

/// Why a run is called cold, warm or unknown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ConnectionEvidence {
    /// The request's own Resource Timing entry: it opened a connection, or reused one
    /// without a preflight before it.
    ResourceTiming,
    /// Its CORS preflight opened the connection: the page's first preflighted request to
    /// the origin, found on a reused connection, to an origin the page had neither sent to nor
    /// heard from
    /// before.
    PreflightOpened,
    /// Reused after a preflight, and the page's own request had used the connection a
    /// moment before (within [`KEEP_ALIVE_ASSUMED_MS`]). Records before issue 32 only: the
    /// rule now asks the preflight's own time ([`ConnectionEvidence::PreflightClock`]).
    EarlierRequest,
    /// Reused after a preflight the page had used the origin shortly before: the time
    /// before the request left ([`PreflightClock`]) against the round trip and the handshake
    /// the page saw on the origin. A preflight that found the connection open took one round
    /// trip (warm); one that opened it took a handshake more (cold); in between, unknown.
    PreflightClock,
    /// Timing hidden, but the page had never sent to or heard from the origin: this run (its request
    /// or its preflight) opened the connection.
    FirstContact,
    /// Not knowable: timing hidden after earlier traffic, or a preflight on a reused
    /// connection long after the page last heard from the origin.
    Unknown,
    /// The run went through ttft-relay, which said whether it opened its connection to the
    /// provider for the request (`relay-conn`): cold and warm describe that connection, the
    /// one that crosses the network (the browser's own is a loopback to the relay).
    Relay,
}

impl ConnectionEvidence {
    /// The code in exports.
    pub fn code(self) -> &'static str {
        match self {
            ConnectionEvidence::ResourceTiming => "resource_timing",
            ConnectionEvidence::PreflightOpened => "preflight_opened",
            ConnectionEvidence::EarlierRequest => "earlier_request",
            ConnectionEvidence::PreflightClock => "preflight_clock",
            ConnectionEvidence::FirstContact => "first_contact",
            ConnectionEvidence::Unknown => "unknown",
            ConnectionEvidence::Relay => "relay",
        }
    }
}

/// Cold (`Some(true)`), warm (`Some(false)`) or unknown, and why.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConnectionVerdict {
    /// Whether the run paid for a new connection.
    pub cold: Option<bool>,
    /// Why.
    pub evidence: ConnectionEvidence,
}

/// What a busy machine adds to a request on its own, ms (a reused preflight took 27.6 ms
/// more than its round trip in Firefox under a full test run): a preflight is called one
/// that opened its connection only when two thirds of a handshake stand above this.
pub const PREFLIGHT_HANDSHAKE_FLOOR_MS: f64 = 30.0;

/// A preflighted request's own clock, for telling whether its preflight found the
/// connection open: a preflight on an open connection takes one round trip, one that opened
/// it a handshake more.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PreflightClock {
    /// `fetch()` until the request left (`fetch_lead_ms + queueing_ms`): the preflight's
    /// round trip, and the handshake when it opened the connection, ms.
    pub before_request_ms: f64,
    /// The least round trip the page saw to the origin, ms.
    pub round_trip_ms: f64,
    /// The least handshake (TCP and TLS) the page saw to the origin, ms.
    pub handshake_ms: f64,
}

impl PreflightClock {
    /// Cold (`Some(true)`) when the time beyond the round trip holds most of a handshake (two
    /// thirds) and a handshake stands out of a busy machine's noise (two thirds of one at
    /// least [`PREFLIGHT_HANDSHAKE_FLOOR_MS`]); warm (`Some(false)`) when it holds less than a
    /// third of one; unknown otherwise.
    pub fn cold(&self) -> Option<bool> {
        let beyond_ms = self.before_request_ms - self.round_trip_ms;
        if !(beyond_ms.is_finite() && self.handshake_ms.is_finite() && self.handshake_ms > 0.0) {
            return None;
        }
        let most_of_a_handshake_ms = 2.0 * self.handshake_ms / 3.0;
        if beyond_ms < self.handshake_ms / 3.0 {
            Some(false)
        } else if most_of_a_handshake_ms >= PREFLIGHT_HANDSHAKE_FLOOR_MS
            && beyond_ms >= most_of_a_handshake_ms
        {
            Some(true)
        } else {
            None
        }
    }
}

impl ConnectionVerdict {
    /// Decides from the request's Resource Timing (`connection`), whether it was the page's
    /// first preflighted request to its origin, how long before the request the page last
    /// sent to or heard from that origin (`heard_ago_ms`: [`OriginContact::ago_ms`]; `None`:
    /// never), and the preflight's own clock
    /// when the page knows the origin's round trip and handshake (`clock`).
    pub fn decide(
        connection: ConnectionKind,
        first_preflight: bool,
        heard_ago_ms: Option<f64>,
        clock: Option<PreflightClock>,
    ) -> ConnectionVerdict {
        use ConnectionEvidence as E;
        let verdict = |cold, evidence| ConnectionVerdict { cold, evidence };
        let recently_heard = heard_ago_ms.is_some_and(|ago_ms| ago_ms <= KEEP_ALIVE_ASSUMED_MS);
        match connection {
            ConnectionKind::New => verdict(Some(true), E::ResourceTiming),
            ConnectionKind::Reused if !first_preflight => verdict(Some(false), E::ResourceTiming),
            ConnectionKind::Reused if heard_ago_ms.is_none() => {
                verdict(Some(true), E::PreflightOpened)
            }
            // The page used the origin shortly before, but the connection may have closed
            // since (a gateway closing after each request, a short keep-alive): only the
            // preflight's own time tells.
            ConnectionKind::Reused if recently_heard => match clock.and_then(|c| c.cold()) {
                Some(cold) => verdict(Some(cold), E::PreflightClock),
                None => verdict(None, E::Unknown),
            },
            ConnectionKind::Reused => verdict(None, E::Unknown),
            ConnectionKind::Unknown if heard_ago_ms.is_none() => {
                verdict(Some(true), E::FirstContact)
            }
            ConnectionKind::Unknown => verdict(None, E::Unknown),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ConnectionEvidence as E;
    use ConnectionKind::{New, Reused, Unknown};

    /// Every case: (connection, first preflight, heard ago) → (cold, evidence).
    #[test]
    fn the_rule_as_a_table() {
        let cases = [
            (New, false, None, Some(true), E::ResourceTiming),
            (New, false, Some(100.0), Some(true), E::ResourceTiming),
            (New, true, Some(100.0), Some(true), E::ResourceTiming),
            (Reused, false, None, Some(false), E::ResourceTiming),
            (
                Reused,
                false,
                Some(60_000.0),
                Some(false),
                E::ResourceTiming,
            ),
            // The models list at load 1.7 s before, then a preflight: without its clock
            // (no round trip or handshake seen), unknown; with it, see the clock's own test.
            (Reused, true, Some(1700.0), None, E::Unknown),
            (Reused, true, Some(KEEP_ALIVE_ASSUMED_MS), None, E::Unknown),
            (
                Reused,
                true,
                Some(KEEP_ALIVE_ASSUMED_MS + 1.0),
                None,
                E::Unknown,
            ),
            (Reused, true, None, Some(true), E::PreflightOpened),
            (Unknown, false, None, Some(true), E::FirstContact),
            (Unknown, true, None, Some(true), E::FirstContact),
            (Unknown, false, Some(10.0), None, E::Unknown),
            (Unknown, true, Some(10.0), None, E::Unknown),
        ];
        for (connection, first_preflight, heard_ago_ms, cold, evidence) in cases {
            let verdict =
                ConnectionVerdict::decide(connection, first_preflight, heard_ago_ms, None);
            assert_eq!(
                (verdict.cold, verdict.evidence),
                (cold, evidence),
                "{connection:?}, first preflight {first_preflight}, heard {heard_ago_ms:?} ms ago"
            );
        }
    }

    /// A preflighted reuse shortly after the page's own request: the preflight's time beyond
    /// the round trip against the handshake the page saw, over a far link, a near one and
    /// loopback (figures seen in the e2e runs).
    #[test]
    fn the_preflight_clock_decides_only_with_a_clear_margin() {
        let clock = |before_request_ms, round_trip_ms, handshake_ms| PreflightClock {
            before_request_ms,
            round_trip_ms,
            handshake_ms,
        };
        let cases = [
            // 50 ms round trip, 100 ms TLS handshake: a reused preflight 64 to 77 ms
            // (Firefox once 27.6 ms late), an opening one 150 ms and more.
            (clock(64.0, 58.3, 105.0), Some(false)),
            (clock(77.0, 50.0, 100.0), Some(false)),
            (clock(152.0, 50.0, 100.0), Some(true)),
            (clock(110.0, 50.0, 100.0), None),
            // Loopback: a handshake of 3 ms is within a busy machine's noise: never cold.
            (clock(1.2, 2.5, 3.0), Some(false)),
            (clock(6.0, 2.5, 3.0), None),
            (clock(20.0, 2.5, 3.0), None),
            // A 20 ms round trip over plain http (a TCP handshake of 20 ms): a reused
            // preflight 35 ms late on a loaded machine is not called cold.
            (clock(55.0, 20.0, 20.0), None),
            (clock(22.0, 20.0, 20.0), Some(false)),
            // A 300 ms round trip: 600 ms handshake.
            (clock(910.0, 300.0, 600.0), Some(true)),
            (clock(330.0, 300.0, 600.0), Some(false)),
            // Nonsense decides nothing.
            (clock(f64::NAN, 50.0, 100.0), None),
            (clock(60.0, 50.0, 0.0), None),
        ];
        for (clock, cold) in cases {
            assert_eq!(clock.cold(), cold, "{clock:?}");
            let verdict = ConnectionVerdict::decide(Reused, true, Some(500.0), Some(clock));
            assert_eq!(verdict.cold, cold, "{clock:?}");
            let evidence = if cold.is_some() {
                E::PreflightClock
            } else {
                E::Unknown
            };
            assert_eq!(verdict.evidence, evidence);
        }
        // Long after the last contact the clock is not asked: unknown, as before.
        let late = ConnectionVerdict::decide(
            Reused,
            true,
            Some(KEEP_ALIVE_ASSUMED_MS + 1.0),
            Some(clock(152.0, 50.0, 100.0)),
        );
        assert_eq!(late.cold, None);
    }

    #[test]
    fn contacts_per_origin_keep_the_latest_and_a_bounded_number() {
        let mut contacts = OriginContacts::default();
        contacts.heard("https://a.test", 100.0);
        contacts.heard("https://b.test", 150.0);
        contacts.heard("https://a.test", 300.0);
        // A late report of an older answer does not move it back.
        contacts.heard("https://a.test", 200.0);
        assert_eq!(
            contacts.contact("https://a.test").last_heard_ms,
            Some(300.0)
        );
        assert_eq!(
            contacts.contact("https://b.test").last_heard_ms,
            Some(150.0)
        );
        assert_eq!(contacts.contact("https://c.test").last_heard_ms, None);
        for i in 0..OriginContacts::MAX_ORIGINS {
            contacts.heard(&format!("https://{i}.test"), 400.0 + i as f64);
        }
        assert_eq!(
            contacts.contact("https://a.test").last_heard_ms,
            None,
            "the oldest went"
        );
        assert_eq!(
            contacts.contact("https://31.test").last_heard_ms,
            Some(431.0)
        );
    }

    #[test]
    fn pings_per_origin_give_an_estimate_once_there_are_enough() {
        let mut contacts = OriginContacts::default();
        for ms in [120.0, 52.0] {
            contacts.pinged("https://a.test", ms);
        }
        contacts.pinged("https://b.test", 9.0);
        assert_eq!(contacts.contact("https://a.test").ping_round_trip, None);
        contacts.pinged("https://a.test", 50.0);
        let trip = contacts.contact("https://a.test").ping_round_trip.unwrap();
        assert_eq!((trip.ms, trip.pings), (52.0, Some(3)));
        assert_eq!(contacts.ping_count("https://b.test"), 1);
        assert_eq!(contacts.ping_count("https://c.test"), 0);
        for i in 0..OriginContacts::MAX_ORIGINS {
            contacts.pinged(&format!("https://{i}.test"), 1.0);
        }
        assert_eq!(contacts.ping_count("https://a.test"), 0, "the oldest went");
    }

    #[test]
    fn pings_go_to_an_origin_once_it_is_seen_to_hide_its_timing() {
        let mut contacts = OriginContacts::default();
        assert_eq!(contacts.pings_to_send("https://a.test"), 0, "not known yet");
        contacts.saw_timing("https://a.test", false);
        assert_eq!(contacts.pings_to_send("https://a.test"), 3);
        contacts.pinged("https://a.test", 50.0);
        assert_eq!(contacts.pings_to_send("https://a.test"), 2);
        contacts.saw_timing("https://a.test", true);
        assert_eq!(
            contacts.pings_to_send("https://a.test"),
            0,
            "the latest entry decides"
        );
    }

    #[test]
    fn contact_age() {
        let contact = OriginContact {
            last_heard_ms: Some(1000.0),
            ..OriginContact::default()
        };
        assert_eq!(contact.ago_ms(2700.0), Some(1700.0));
        assert_eq!(contact.ago_ms(900.0), Some(0.0));
        assert_eq!(OriginContact::default().ago_ms(5.0), None);
        // A request on its way counts: it may have opened the connection (seen in CI: a run
        // sent while the models list was still unanswered reused that list's connection).
        let in_flight = OriginContact {
            last_sent_ms: Some(2500.0),
            ..OriginContact::default()
        };
        assert_eq!(in_flight.ago_ms(2700.0), Some(200.0));
        let both = OriginContact {
            last_heard_ms: Some(1000.0),
            last_sent_ms: Some(2500.0),
            ..OriginContact::default()
        };
        assert_eq!(both.ago_ms(2700.0), Some(200.0));
        let mut contacts = OriginContacts::default();
        contacts.sent("https://a.test", 2500.0);
        contacts.sent("https://a.test", 2400.0);
        assert_eq!(
            contacts.contact("https://a.test").last_sent_ms,
            Some(2500.0)
        );
    }
}
