//! Pings: the round trip to an endpoint that hides its timing, from the page's own clocks
//! (`ttft_core::timeline::PingSamples` says why and how it is estimated).
//!
//! A ping is `GET {base}/models` **without the key** (no header but the browser's own: a
//! simple request, so no CORS preflight), sent by the carrier of the runs (the fetch worker,
//! so on the connection the runs use) and timed from just before `fetch()` to the response
//! headers. It is the request the page already makes at load for its models list: a keyed
//! provider answers 401 at once, a keyless server its list; nothing is generated or billed.
//! Pings go only to an origin whose Resource Timing is hidden (with it visible, the
//! handshakes give the round trip), and only between runs, never during one:
//!
//! - after the models list at load, once its entry says the timing is hidden;
//! - after each run of a series (three until three are kept, then one);
//! - each one only while no measured request is open, and a run that starts while a ping is
//!   on its way waits for it to end ([`settled`]), so no run shares its connection with one.
//!
//! A ping that fails (a network error, or a keyless answer without CORS headers) counts for
//! nothing. The key never travels in a ping: the URL is the models URL without query or
//! fragment, and no ping is sent when it holds any key the tab holds.

use std::cell::RefCell;

use futures_channel::oneshot;
use futures_util::StreamExt;
use ttft_core::timeline::PING_TIMEOUT_MS;

use super::{contacts, Carrier, HttpRequest, TransportEvent};
use crate::clock::{self, Timer};

thread_local! {
    /// `Some(waiters)` while a ping is on its way: runs that wait for it to end.
    static IN_FLIGHT: RefCell<Option<Vec<oneshot::Sender<()>>>> = const { RefCell::new(None) };
}

/// Ends a ping on its way; returns whether a run was waiting for it (the round then stops:
/// the run goes first, and no ping follows it on the wire while it is under way).
fn end_ping() -> bool {
    let waiters = IN_FLIGHT.with(|in_flight| in_flight.borrow_mut().take());
    let mut run_waited = false;
    for waiter in waiters.into_iter().flatten() {
        run_waited = true;
        let _ = waiter.send(());
    }
    run_waited
}

thread_local! {
    /// Runs under way: from the moment a run is asked for (before it waits for a ping on
    /// its way) until its record is made.
    static RUNS_UNDER_WAY: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

/// A run under way while it lives: no ping starts meanwhile.
pub struct RunUnderWay;

impl RunUnderWay {
    /// Counts a run as under way until dropped.
    pub fn enter() -> RunUnderWay {
        RUNS_UNDER_WAY.with(|runs| runs.set(runs.get() + 1));
        RunUnderWay
    }
}

impl Drop for RunUnderWay {
    fn drop(&mut self) {
        RUNS_UNDER_WAY.with(|runs| runs.set(runs.get().saturating_sub(1)));
    }
}

/// Resolves once no ping is on its way (at once when none is; at most
/// [`PING_TIMEOUT_MS`] later, a ping's own bound).
pub async fn settled() {
    let waiting = IN_FLIGHT.with(|in_flight| {
        in_flight.borrow_mut().as_mut().map(|waiters| {
            let (sender, receiver) = oneshot::channel();
            waiters.push(sender);
            receiver
        })
    });
    if let Some(receiver) = waiting {
        let timeout = Box::pin(clock::sleep_ms(PING_TIMEOUT_MS));
        futures_util::future::select(receiver, timeout).await;
    }
}

/// Marks a ping on its way until dropped; then the runs waiting for it go on.
struct InFlight;

impl InFlight {
    fn enter() -> InFlight {
        IN_FLIGHT.with(|in_flight| *in_flight.borrow_mut() = Some(Vec::new()));
        InFlight
    }
}

impl InFlight {
    /// The ping ended; whether a run was waiting for it.
    fn end(self) -> bool {
        std::mem::forget(self);
        end_ping()
    }
}

impl Drop for InFlight {
    /// A ping dropped on its way (its task cancelled) lets the runs go too.
    fn drop(&mut self) {
        end_ping();
    }
}

/// The URL a ping asks for: `models_url` without user, query and fragment; `None` when it is not
/// an absolute http(s) URL, or holds a key the tab holds (scrubbed by value: a key is never
/// sent in a ping, not even one pasted into the base URL).
pub fn ping_url(models_url: &str, held_keys: &[String]) -> Option<String> {
    let url = web_sys::Url::new(models_url).ok()?;
    if !matches!(url.protocol().as_str(), "http:" | "https:") {
        return None;
    }
    url.set_search("");
    url.set_hash("");
    url.set_username("");
    url.set_password("");
    let href = url.href();
    let holds_key = held_keys.iter().any(|key| {
        !key.is_empty() && (href.contains(key.as_str()) || models_url.contains(key.as_str()))
    });
    (!holds_key).then_some(href)
}

/// Sends the pings the page wants for `models_url`'s origin now
/// ([`ttft_core::timeline::OriginContacts::pings_to_send`]), one after another, each while
/// no measured request is open; each ping's time is kept for the origin. Returns how many
/// were answered.
pub async fn round(carrier: &dyn Carrier, models_url: &str) -> usize {
    let Some(url) = ping_url(models_url, &crate::storage::held_keys()) else {
        return 0;
    };
    let mut answered = 0;
    for _ in 0..contacts::pings_to_send(&url) {
        let run_under_way = RUNS_UNDER_WAY.with(std::cell::Cell::get) > 0;
        if run_under_way || super::quiet_for_ms(clock::now_ms()).is_none() {
            break;
        }
        let in_flight = InFlight::enter();
        contacts::sent_to(&url, clock::now_ms());
        let time = carrier.ping(&url).await;
        if let Some(ms) = time {
            contacts::pinged(&url, ms);
            answered += 1;
        }
        if in_flight.end() {
            break;
        }
    }
    answered
}

/// How long the pings after the models list at load wait first, ms: the page is still
/// starting then (its wasm compiled, the worker's first fetch set up), and pings sent at once
/// came back 10 to 20 ms late in Firefox and WebKit.
pub const LOAD_SETTLE_MS: f64 = 500.0;

/// One ping through the page's transport ([`super::open`]): `fetch()` → response headers,
/// ms, once the body is read (the connection is free again); `None` when it failed or took
/// longer than [`PING_TIMEOUT_MS`].
pub async fn ping_through_page(url: &str) -> Option<f64> {
    let request = HttpRequest {
        method: "GET",
        url: url.to_owned(),
        headers: Vec::new(),
        body: None,
    };
    let mut open = super::open(&request).await.ok()?;
    let abort = open.abort.clone();
    let _deadline = Timer::once(PING_TIMEOUT_MS, move || abort.abort());
    let (mut started_ms, mut answered_ms) = (None, None);
    while let Some(event) = open.events.next().await {
        match event {
            TransportEvent::Started { at_ms, .. } => started_ms = Some(at_ms),
            TransportEvent::Headers { at_ms, .. } => {
                answered_ms = Some(at_ms);
                contacts::heard_from(url, at_ms);
            }
            TransportEvent::End { .. } => break,
            TransportEvent::Failed { .. } => return None,
            TransportEvent::Sent { .. } | TransportEvent::Chunk { .. } => {}
            TransportEvent::Timing(..) => break,
        }
    }
    Some(answered_ms? - started_ms?)
}
