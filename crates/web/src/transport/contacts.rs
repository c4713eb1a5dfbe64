//! When the page last heard from each origin: every answer to the page's own requests (the
//! models list, token counting, the zh catalogue, experiments' server questions) and every
//! measured run. A run reads it when it starts, so that cold and warm can be told where
//! Resource Timing cannot ([`ttft_core::timeline::ConnectionVerdict`]).
//!
//! Page-wide like the browser's connection pool it mirrors: the page's requests and its fetch
//! worker's share one pool (same origin, same network partition), so one log serves both.

use std::cell::RefCell;

use ttft_core::timeline::{
    NetworkBreakdown, OriginContact, OriginContacts, ResourceTiming, RoundTrip,
};

thread_local! {
    static CONTACTS: RefCell<OriginContacts> = RefCell::new(OriginContacts::default());
}

/// `scheme://host:port` of `url`, when it is an absolute URL.
fn origin_of(url: &str) -> Option<String> {
    web_sys::Url::new(url).ok().map(|url| url.origin())
}

/// An answer from `url`'s origin arrived at `at_ms` (page clock).
pub fn heard_from(url: &str, at_ms: f64) {
    if let Some(origin) = origin_of(url) {
        CONTACTS.with(|contacts| contacts.borrow_mut().heard(&origin, at_ms));
    }
}

/// A request to `url`'s origin was sent at `at_ms` (page clock): it may open a connection
/// before any answer comes.
pub fn sent_to(url: &str, at_ms: f64) {
    if let Some(origin) = origin_of(url) {
        CONTACTS.with(|contacts| contacts.borrow_mut().sent(&origin, at_ms));
    }
}

/// What the page knows of `url`'s origin. Without a round trip learned yet, the page's
/// Resource Timing buffer is searched for the latest handshake with the origin (the models
/// list at load, whose entry may have been queued after the list was read).
pub fn contact_with(url: &str) -> OriginContact {
    let Some(origin) = origin_of(url) else {
        return OriginContact::default();
    };
    let contact = CONTACTS.with(|contacts| contacts.borrow().contact(&origin));
    if contact.round_trip_ms.is_some() {
        return contact;
    }
    if let Some(timing) = latest_handshake_with(&origin) {
        learn_round_trip(url, &timing);
    }
    CONTACTS.with(|contacts| contacts.borrow().contact(&origin))
}

/// The latest resource entry of `origin` that opened a connection the browser lets the page
/// see, else the page's own navigation when it came from `origin`.
fn latest_handshake_with(origin: &str) -> Option<ResourceTiming> {
    let performance = web_sys::window()?.performance()?;
    let resources = performance.get_entries_by_type("resource");
    let navigation = performance.get_entries_by_type("navigation");
    let resources = resources.iter().rev();
    resources.chain(navigation.iter()).find_map(|entry| {
        let name = js_sys::Reflect::get(&entry, &"name".into())
            .ok()?
            .as_string()?;
        if origin_of(&name).as_deref() != Some(origin) {
            return None;
        }
        let timing = timing_of(&entry);
        let network = NetworkBreakdown::from_resource_timing(&timing);
        RoundTrip::of_handshake(&network).map(|_| timing)
    })
}

/// A resource entry's fields (page clock), as Resource Timing gives them.
fn timing_of(entry: &wasm_bindgen::JsValue) -> ResourceTiming {
    let field = |name: &str| {
        js_sys::Reflect::get(entry, &name.into())
            .ok()
            .and_then(|value| value.as_f64())
            .unwrap_or(0.0)
    };
    ResourceTiming {
        fetch_start: field("fetchStart"),
        domain_lookup_start: field("domainLookupStart"),
        domain_lookup_end: field("domainLookupEnd"),
        connect_start: field("connectStart"),
        connect_end: field("connectEnd"),
        secure_connection_start: field("secureConnectionStart"),
        request_start: field("requestStart"),
        response_start: field("responseStart"),
        next_hop_protocol: ttft_core::timeline::HttpProtocol::Hidden,
    }
}

/// Remembers a round trip of `ms` to `url`'s origin (the least seen is kept).
pub fn remember_round_trip(url: &str, ms: f64) {
    if let Some(origin) = origin_of(url) {
        CONTACTS.with(|contacts| contacts.borrow_mut().round_trip(&origin, ms));
    }
}

/// Remembers the round trip a request's handshake showed (its Resource Timing, when it opened
/// a connection the browser lets the page see), for later runs to the same origin, and
/// whether the origin shows its timing at all (where it does not, the page pings it:
/// [`super::pings`]).
pub fn learn_round_trip(url: &str, timing: &ResourceTiming) {
    let Some(origin) = origin_of(url) else {
        return;
    };
    let network = NetworkBreakdown::from_resource_timing(timing);
    CONTACTS.with(|contacts| {
        let mut contacts = contacts.borrow_mut();
        contacts.saw_timing(&origin, network.timing_visible);
        if let Some(trip) = RoundTrip::of_handshake(&network) {
            contacts.round_trip(&origin, trip.ms);
        }
        // What opening a connection costs there (for a preflight's clock: it tells whether
        // the preflight opened one).
        if network.connection == ttft_core::timeline::ConnectionKind::New {
            let handshake_ms = network.tcp_ms.unwrap_or(0.0) + network.tls_ms.unwrap_or(0.0);
            contacts.handshake(&origin, handshake_ms);
        }
    });
}

/// A ping to `url`'s origin took `ms` ([`super::pings`]).
pub fn pinged(url: &str, ms: f64) {
    if let Some(origin) = origin_of(url) {
        CONTACTS.with(|contacts| contacts.borrow_mut().pinged(&origin, ms));
    }
}

/// How many pings `url`'s origin wants now (none until the page knows it hides its timing).
pub fn pings_to_send(url: &str) -> usize {
    origin_of(url).map_or(0, |origin| {
        CONTACTS.with(|contacts| contacts.borrow().pings_to_send(&origin))
    })
}

/// [`learn_round_trip`] from the page's own Resource Timing entries for `url` (its latest),
/// for requests made on the main thread (the models list).
/// Returns whether an entry was found (Chromium may queue it after the response is read).
pub fn learn_round_trip_from_entries(url: &str) -> bool {
    let Some(performance) = web_sys::window().and_then(|window| window.performance()) else {
        return false;
    };
    let entries = performance.get_entries_by_name(url);
    let Some(entry) = entries.iter().last() else {
        return false;
    };
    let timing = timing_of(&entry);
    learn_round_trip(url, &timing);
    true
}
