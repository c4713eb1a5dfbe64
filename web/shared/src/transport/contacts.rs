//! When the page last heard from each origin: every answer to the page's own requests (the
//! models list, token counting, the zh catalogue, experiments' server questions) and every
//! measured run. A run reads it when it starts, so that cold and warm can be told where
//! Resource Timing cannot ([`ttft_core::timeline::ConnectionVerdict`]).
//!
//! Page-wide like the browser's connection pool it mirrors: the page's requests and its fetch
//! worker's share one pool (same origin, same network partition), so one log serves both.

use std::cell::RefCell;

use ttft_core::timeline::{OriginContact, OriginContacts};

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

/// What the page knows of `url`'s origin.
pub fn contact_with(url: &str) -> OriginContact {
    origin_of(url).map_or_else(OriginContact::default, |origin| {
        CONTACTS.with(|contacts| contacts.borrow().contact(&origin))
    })
}
