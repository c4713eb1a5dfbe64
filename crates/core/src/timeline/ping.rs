//! The round trip to an endpoint without its permission: pings.
//!
//! No real provider sends `Timing-Allow-Origin`, so Resource Timing shows the page no
//! handshake and no round trip for any real endpoint (docs/provider-cors.md). The page's own
//! clocks still see when each of its requests resolves. So between runs, never during one,
//! the page times small keyless requests to the endpoint's origin, on the connection its
//! runs use: `GET {base}/models` without the key, the request the page already makes at load
//! for its models list (a keyed provider answers 401 at once, a keyless one its list; no
//! tokens, nothing billed; it is a simple request, so no CORS preflight). Each ping's time,
//! `fetch()` until the response headers, is one round trip plus the server's time to answer
//! it, so every ping is an upper bound of the round trip; the estimate is a low order
//! statistic of the latest pings ([`PingSamples::estimate`]), labelled estimated, with how
//! many pings it rests on.
//!
//! Pure: the glue passes each ping's time in.
//!
//! ```
//! use ttft_core::timeline::{PingSamples, RoundTripSource};
//!
//! let mut pings = PingSamples::default();
//! pings.push(182.0); // the first opened a connection: two more round trips
//! pings.push(61.0);
//! assert_eq!(pings.estimate(), None); // too few to say
//! pings.push(58.0);
//! let trip = pings.estimate().unwrap();
//! assert_eq!((trip.ms, trip.from, trip.pings), (61.0, RoundTripSource::Pings, Some(3)));
//! ```

use super::breakdown::{RoundTrip, RoundTripSource};

/// Pings needed before the page states a round trip.
pub const MIN_PINGS: usize = 3;

/// The latest pings an estimate rests on: a network changes (Wi-Fi to mobile, a VPN), so
/// older pings go.
pub const MAX_PINGS: usize = 9;

/// The longest a ping is waited for, ms: a ping that takes longer says nothing a run's
/// breakdown can use (and a run never waits longer than this for one to end).
pub const PING_TIMEOUT_MS: f64 = 5_000.0;

/// How many pings to send to an origin now, between runs: none where the browser shows its
/// timing (`timing_visible`: `Some(true)`; Resource Timing's handshakes are the better round
/// trip) or before the page knows whether it does (`None`: the first entry tells), else
/// enough to reach [`MIN_PINGS`] (`kept`: the pings kept for it), then one each time.
pub fn pings_to_send(timing_visible: Option<bool>, kept: usize) -> usize {
    match timing_visible {
        Some(false) if kept < MIN_PINGS => MIN_PINGS - kept,
        Some(false) => 1,
        _ => 0,
    }
}

/// The latest pings to one origin, ms each (`fetch()` → response headers), most recent last.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PingSamples {
    samples_ms: Vec<f64>,
}

impl PingSamples {
    /// Adds a ping's time; one that is not a finite, non-negative number, or that took
    /// longer than [`PING_TIMEOUT_MS`], is ignored.
    pub fn push(&mut self, ms: f64) {
        if !(ms.is_finite() && (0.0..=PING_TIMEOUT_MS).contains(&ms)) {
            return;
        }
        if self.samples_ms.len() == MAX_PINGS {
            self.samples_ms.remove(0);
        }
        self.samples_ms.push(ms);
    }

    /// How many pings are kept.
    pub fn len(&self) -> usize {
        self.samples_ms.len()
    }

    /// Whether none is.
    pub fn is_empty(&self) -> bool {
        self.samples_ms.is_empty()
    }

    /// The round trip, estimated: the second least of the kept pings, once there are at
    /// least [`MIN_PINGS`]. Every ping is the trip plus the server's answer and the page's
    /// scheduling, so the low end is the closest to the trip; the second least rather than
    /// the least, so that one ping the clock misread (a coarse timer, a stamp taken late in
    /// a busy worker) does not decide alone. A ping that opened a connection (two more round
    /// trips) is never the estimate once two others are kept.
    pub fn estimate(&self) -> Option<RoundTrip> {
        if self.samples_ms.len() < MIN_PINGS {
            return None;
        }
        let mut sorted = self.samples_ms.clone();
        sorted.sort_by(f64::total_cmp);
        Some(RoundTrip {
            ms: sorted[1],
            from: RoundTripSource::Pings,
            pings: Some(self.samples_ms.len() as u32),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_estimate_is_the_second_least_of_at_least_three() {
        let mut pings = PingSamples::default();
        assert_eq!(pings.estimate(), None);
        pings.push(70.0);
        pings.push(52.0);
        assert_eq!(pings.estimate(), None, "two are too few");
        pings.push(55.0);
        assert_eq!(pings.estimate().map(|trip| trip.ms), Some(55.0));
        // A clock misread low decides nothing alone.
        pings.push(3.0);
        assert_eq!(pings.estimate().map(|trip| trip.ms), Some(52.0));
        assert_eq!(pings.estimate().and_then(|trip| trip.pings), Some(4));
    }

    #[test]
    fn pings_go_only_where_the_timing_is_hidden() {
        assert_eq!(pings_to_send(Some(true), 0), 0);
        assert_eq!(pings_to_send(None, 0), 0);
        assert_eq!(pings_to_send(Some(false), 0), MIN_PINGS);
        assert_eq!(pings_to_send(Some(false), 2), 1);
        assert_eq!(pings_to_send(Some(false), MIN_PINGS), 1);
        assert_eq!(pings_to_send(Some(false), MAX_PINGS), 1);
    }

    #[test]
    fn only_the_latest_pings_count_and_nonsense_is_ignored() {
        let mut pings = PingSamples::default();
        for ms in [f64::NAN, -1.0, f64::INFINITY, PING_TIMEOUT_MS + 1.0] {
            pings.push(ms);
        }
        assert!(pings.is_empty());
        // Nine pings over a near link, then the user moves to a far one.
        for _ in 0..MAX_PINGS {
            pings.push(10.0);
        }
        for _ in 0..MAX_PINGS - 1 {
            pings.push(200.0);
        }
        assert_eq!(pings.len(), MAX_PINGS);
        assert_eq!(
            pings.estimate().map(|trip| trip.ms),
            Some(200.0),
            "one near ping left is not enough to keep the old estimate"
        );
    }
}
