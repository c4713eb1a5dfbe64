//! Provider dialects: turn SSE events into reasoning text, answer text, usage, finish,
//! error and terminal signals.
//!
//! [`Decoder`] decodes one [`SseEvent`](crate::sse::SseEvent) at a time into a
//! [`DecodedEvent`]; [`StreamReader`] owns an [`SseParser`](crate::sse::SseParser) and a
//! [`Decoder`] and is what the app calls on each network read. Wire formats are described in
//! docs/stream-formats.md; the section numbers below refer to it.
//!
//! Modules, from the leaves up (no module imports one above it): `names` and `decoded` (the
//! vocabulary), `wire` (the JSON fields read, borrowed from the event), `json` (usage and error
//! objects), `think` (inline tags), the families `chat`, `anthropic` and `responses`, then
//! `decoder` (detection and dispatch) and `reader` (parser + decoder + summary).

mod account;
mod anthropic;
mod chat;
mod decoded;
mod decoder;
mod json;
mod names;
mod reader;
mod relay;
mod responses;
mod think;
mod wire;

pub use account::{
    AccountSource, ServerAccount, ACCOUNT_HEADERS, MAX_ACCOUNT_MS, MAX_ACCOUNT_TOKENS,
    MAX_HEADER_BYTES,
};
pub use decoded::{DecodedEvent, StreamError, Usage};
pub use decoder::Decoder;
pub use names::{Dialect, UnknownDialect};
pub use reader::{Outcome, StreamReader, StreamSummary};
pub use relay::{
    RelayAccount, RelayConn, RelayError, RelayProto, RELAY_ERROR_HEADER, RELAY_HEADER,
};
