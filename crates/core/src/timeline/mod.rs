//! The run timeline: the instants of one run and the metrics of DESIGN.md §2.
//!
//! Every time is a number of milliseconds on the page's `performance.now()` clock, passed in
//! by the glue code; nothing here reads a clock. The serialized names (`request_started`,
//! `ttft_ms`, …) are the names of DESIGN.md §2 and go unchanged into exports.
//!
//! Typical use by the app:
//!
//! ```
//! use ttft_stream::dialect::DecodedEvent;
//! use ttft_core::timeline::{PaintMethod, PaintTarget, RunTimeline};
//!
//! let mut run = RunTimeline::new(Some(995.0), 1000.0); // click, then fetch() at 1000 ms
//! run.on_headers(1080.0, 200);
//! run.on_body_chunk(1090.0, 120);
//! let answer = DecodedEvent { index: 1, answer: "Hi".into(), ..Default::default() };
//! run.on_event(1250.0, &answer);
//! run.on_paint(PaintTarget::Answer, 1266.0, PaintMethod::PresentationTime);
//! run.on_event(1300.0, &DecodedEvent { index: 2, terminal: true, ..Default::default() });
//! run.on_stream_end(1301.0);
//! let metrics = run.metrics();
//! assert_eq!(metrics.ttft_ms, Some(250.0));
//! assert_eq!(metrics.perceived_ttfa_ms, Some(271.0)); // 1266 − 995
//! ```

mod breakdown;
mod buffer;
mod connection;
mod network;
mod paint;
mod ping;
mod run;
mod summary;
mod verdict;

pub use breakdown::{
    BreakdownInput, PartSource, PartTime, RelayLeg, RoundTrip, RoundTripSource, ServerClaim,
    WaitBreakdown, WaitPart, SERVER_CLAIM_SLACK_MS,
};
pub use buffer::{
    BufferedArrival, BUFFER_MAX_MS_PER_CHUNK, BUFFER_MIN_SILENCE_MS, BUFFER_MIN_TEXT_CHUNKS,
};
pub use connection::{
    ConnectionEvidence, ConnectionVerdict, OriginContact, OriginContacts, PreflightClock,
    KEEP_ALIVE_ASSUMED_MS, PREFLIGHT_HANDSHAKE_FLOOR_MS,
};
pub use network::{ConnectionKind, HttpProtocol, NetworkBreakdown, ResourceTiming};
pub use paint::{
    PaintError, PaintMethod, PaintTarget, PaintTime, RAF_MESSAGE_CHANNEL_ERROR, RENDER_TIME_ERROR,
};
pub use ping::{pings_to_send, PingSamples, MAX_PINGS, MIN_PINGS, PING_TIMEOUT_MS};
pub use run::{
    HeadersSource, Instants, PerceivedAnchor, RunMetrics, RunOutcome, RunTimeline,
    TokenCountSource, HEADERS_WITH_BODY_MS,
};
pub use summary::RunsSummary;
pub use verdict::{WaitCause, WaitSummary, WaitVerdict};
