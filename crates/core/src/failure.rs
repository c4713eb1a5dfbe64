//! What went wrong in a run, as the run engine observes it: how `fetch()` or a body read
//! failed ([`NetworkFailure`]), and what went wrong inside a 2xx stream
//! ([`StreamFailure`]). The vocabulary the timeline records and the diagnosis
//! ([`crate::diagnosis`]) reads; it depends on nothing of this crate.

use serde::{Deserialize, Serialize};
use ttft_stream::dialect::StreamError;

/// How `fetch()` or a body read failed. The browser only gives a `TypeError` for network
/// failures, so CORS, refused connections, DNS and mixed content all look the same.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NetworkFailure {
    /// `TypeError: Failed to fetch` / `NetworkError when attempting to fetch resource`.
    NetworkError,
    /// Our own deadline fired (the request was aborted by the timeout).
    Timeout,
    /// The user pressed Stop.
    Aborted,
    /// The server answered with a redirect (3xx). The page never follows one: the request
    /// carries the key, which must not go to the new address.
    Redirected,
}

/// What went wrong inside an HTTP 2xx stream.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum StreamFailure {
    /// The provider reported an error inside the stream.
    MidStreamError {
        /// The error.
        error: StreamError,
    },
    /// A chunk was not the protocol's JSON (an error body or an empty `choices` read as a
    /// normal chunk is the classic "reading 'choices'" crash of naive clients).
    MalformedChunk {
        /// The parser's message.
        detail: String,
    },
    /// The stream ended without any reasoning or answer text.
    EmptyStream,
    /// The stream closed without the protocol's terminal marker.
    EndedWithoutTerminal,
}
