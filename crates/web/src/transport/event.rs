//! What the transports speak: the request as sent ([`HttpRequest`]) and what happened to it
//! ([`TransportEvent`]).

use ttft_core::measure::{FetchError, RequestRoute, ResponseHead};
use ttft_core::request::PreparedRequest;
use ttft_core::timeline::ResourceTiming;

/// A request as the transport sends it. The body is already serialized by ttft-core.
#[derive(Debug, Clone, PartialEq)]
pub struct HttpRequest {
    /// `GET` or `POST`.
    pub method: &'static str,
    /// The URL.
    pub url: String,
    /// Header names and values (the key travels here and nowhere else).
    pub headers: Vec<(String, String)>,
    /// The body, when there is one.
    pub body: Option<String>,
}

impl From<&PreparedRequest> for HttpRequest {
    fn from(prepared: &PreparedRequest) -> HttpRequest {
        HttpRequest {
            method: "POST",
            url: prepared.url.clone(),
            headers: prepared
                .headers
                .iter()
                .map(|header| (header.name.clone(), header.value.clone()))
                .collect(),
            body: Some(prepared.body_text()),
        }
    }
}

/// One thing that happened to a request; every `at_ms` is on the page clock.
#[derive(Debug, Clone)]
pub enum TransportEvent {
    /// Just before `fetch()` was called.
    Started {
        /// Page-clock time.
        at_ms: f64,
        /// Cross-origin, and whether this is the page's first preflighted request there.
        route: RequestRoute,
    },
    /// `fetch()` was called: the request is on its way. The page waits for this before its
    /// own UI work after a click (in WebKit a worker's request leaves through the page's main
    /// thread). The main-thread transport calls `fetch()` right after `Started` and sends no
    /// `Sent`.
    Sent {
        /// Page-clock time.
        at_ms: f64,
    },
    /// Status and headers are known.
    Headers {
        /// Page-clock time.
        at_ms: f64,
        /// Status and the headers the engine reads.
        head: ResponseHead,
    },
    /// A body read.
    Chunk {
        /// Page-clock time the read resolved.
        at_ms: f64,
        /// The bytes of this read, still in JS memory: the run copies them into the wasm
        /// heap when it reads them, into one buffer it reuses, and not at all once it has
        /// stopped reading the body. A hostile stream's multi-megabyte reads, queued while
        /// the page was busy, cost the wasm heap nothing (issue 11; WebKit grew it by 18 to
        /// 39 MiB when each read was copied on arrival).
        bytes: js_sys::Uint8Array,
    },
    /// The body ended normally.
    End {
        /// Page-clock time.
        at_ms: f64,
    },
    /// The fetch or a read failed (`TypeError`, `AbortError`, ...).
    Failed {
        /// Page-clock time.
        at_ms: f64,
        /// What the browser said.
        error: FetchError,
    },
    /// The request's Resource Timing entry (page clock), if the browser gave one, and its
    /// `serverTiming` written as a `Server-Timing` value (empty when none). The last event
    /// of every request.
    Timing(Option<ResourceTiming>, String),
}
