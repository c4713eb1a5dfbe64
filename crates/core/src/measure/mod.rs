//! The measurement engine: one run from `fetch()` to its record, with time as an argument.
//!
//! The app's glue does only I/O: it sends [`RunPlan::request`] through its transport, stamps
//! every event where the bytes arrive (page clock, ms), and hands each one to a
//! [`Measurement`]; it shows the [`Progress`] it gets back, reports paint times, and asks
//! for the [`RunRecord`] at the end. Everything else lives here, tested natively: the
//! stream reader and the timeline, the TTFT-only stop, what an abort means, the bound on an
//! error body, the diagnosis of a failure and the record.
//!
//! ```
//! use ttft_core::measure::{FinishContext, Measurement, Progress, ResponseHead, RunInput, RunPlan};
//! use ttft_core::protocol::ProtocolChoice;
//! use ttft_core::record::Transport;
//!
//! let plan = RunPlan::parse(&RunInput {
//!     protocol: ProtocolChoice::Auto,
//!     base_url: "http://127.0.0.1:8787/v1",
//!     api_key: "",
//!     model: "sim-fast",
//!     prompt: "Hi",
//!     max_tokens: "",
//!     reasoning: false,
//!     timeout_s: "",
//!     ttft_only: false,
//! })
//! .unwrap();
//! let mut run = Measurement::new(&plan, Some(990.0), 1000.0, 1); // click, then fetch()
//! run.on_headers(1040.0, ResponseHead::event_stream(200));
//! let mut progress = Vec::new();
//! run.on_chunk(1300.0, b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"}}]}\n\n", &mut progress);
//! run.on_chunk(1320.0, b"data: [DONE]\n\n", &mut progress);
//! run.on_end(1321.0, &mut progress);
//! assert!(matches!(&progress[1], Progress::Text { first_token_ms: Some(ms), .. } if *ms == 300.0));
//! let record = run.finish(&FinishContext::new("2026-12-01T00:00:00.000Z", Transport::Worker));
//! assert_eq!(record.metrics.ttfa_ms, Some(300.0));
//! assert!(record.is_ok());
//! ```

mod plan;
mod shown;

pub use crate::availability::{
    BrowserEngine, MainThreadMonitor, ARRIVAL_DELAY_THRESHOLD_MS, HEARTBEAT_INTERVAL_MS,
};
pub use plan::{
    parse_count, CountField, InputError, RunInput, RunPlan, SeriesInput, SeriesPlan,
    DEFAULT_TIMEOUT_S, MAX_OUTPUT_TOKENS, MAX_RUNS, MAX_TIMEOUT_S,
};
pub use shown::{
    cut_note, lead_cut_note, ShownText, MAX_SHOWN_LEAD_BYTES, MAX_SHOWN_LEAD_LINES,
    MAX_SHOWN_TEXT_BYTES,
};

use crate::cut::prefix_within;
use crate::diagnosis::{diagnose, FailureContext};
use crate::failure::NetworkFailure;
use crate::quote::{quote_in_place, quote_json_strings};
use crate::record::{DiagnosisText, RunRecord, TimerGrade, Transport};
use crate::request::{RequestDescription, SpacePermission};
use crate::scrub::{KeyScrubber, StreamScrub};
use crate::timeline::{
    BreakdownInput, BufferedArrival, ConnectionEvidence, ConnectionKind, ConnectionVerdict,
    NetworkBreakdown, OriginContact, PaintMethod, PaintTarget, PreflightClock, ResourceTiming,
    RunOutcome, RunTimeline, WaitBreakdown,
};
use ttft_stream::dialect::{
    DecodedEvent, RelayAccount, ServerAccount, StreamError, StreamReader, Usage,
};

/// The most of a non-2xx body kept for the diagnosis; the rest is counted, not stored. A
/// hostile or broken server can send an endless error page.
pub const MAX_ERROR_BODY_BYTES: usize = 64 * 1024;

/// The most kept of the JSON of a provider's raw error object and of its usage object
/// (each, bytes), after each of their strings was quoted (at most
/// [`MAX_QUOTED_CHARS`](crate::quote::MAX_QUOTED_CHARS) characters): the record is stored
/// and exported, a provider could put a megabyte there. A longer object is replaced by the
/// first [`MAX_PROVIDER_TEXT_BYTES`] of its JSON, as a string ending in `…`.
pub const MAX_PROVIDER_TEXT_BYTES: usize = 16 * 1024;

/// The name a transport gives the failure of a request the server redirected: the
/// transports never follow a redirect (`redirect: 'manual'`), since the request carries
/// the key, and report an opaque-redirect answer as this error.
pub const REDIRECT_ERROR_NAME: &str = "RedirectError";

/// The first `max_bytes` of `text` at a character boundary, with `…` when cut.
fn cut_text(text: &str, max_bytes: usize) -> std::borrow::Cow<'_, str> {
    if text.len() <= max_bytes {
        return std::borrow::Cow::Borrowed(text);
    }
    std::borrow::Cow::Owned(format!("{}…", prefix_within(text, max_bytes)))
}

/// A provider's JSON object as kept: itself when its JSON is at most `max_bytes`, else the
/// cut JSON text as a string.
fn cut_json(value: &mut serde_json::Value, max_bytes: usize) {
    let text = value.to_string();
    if text.len() > max_bytes {
        *value = serde_json::Value::String(cut_text(&text, max_bytes).into_owned());
    }
}

/// A provider's stream error as kept: its type and message [`quote`]d, every string of its
/// raw object too, and the object's JSON bounded.
fn bound_stream_error(error: &mut StreamError) {
    if let Some(kind) = &mut error.kind {
        quote_in_place(kind);
    }
    quote_in_place(&mut error.message);
    quote_json_strings(&mut error.raw);
    cut_json(&mut error.raw, MAX_PROVIDER_TEXT_BYTES);
}

/// Why the glue aborted a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AbortReason {
    /// The user pressed Stop.
    Stop,
    /// The run's deadline ([`RunPlan::timeout_ms`]) passed.
    Timeout,
    /// "TTFT only" mode: the first answer token arrived ([`StreamControl::Stop`]).
    TtftOnly,
    /// The stream cannot be read further ([`StreamControl::Abandon`]): a line or an event
    /// passed the parser's limit, and the run already ended as a malformed stream.
    Unreadable,
}

/// The response's status line and the headers the engine reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResponseHead {
    /// HTTP status.
    pub status: u16,
    /// `Content-Type` (empty when absent).
    pub content_type: String,
    /// `Retry-After`, when the server sent it and CORS exposes it.
    pub retry_after: Option<String>,
    /// The headers of a server's or gateway's own account of its time
    /// ([`ACCOUNT_HEADERS`](ttft_stream::dialect::ACCOUNT_HEADERS)) that it sent and CORS
    /// exposes, as `(name, value)`.
    pub timing_headers: Vec<(String, String)>,
}

impl ResponseHead {
    /// A `text/event-stream` answer with `status` (tests, examples).
    pub fn event_stream(status: u16) -> ResponseHead {
        ResponseHead {
            status,
            content_type: "text/event-stream".to_owned(),
            retry_after: None,
            timing_headers: Vec::new(),
        }
    }
}

/// How `fetch()` or a body read rejected, as the browser reported it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FetchError {
    /// The error's `name`: `TypeError` for network failures (connection refused, CORS,
    /// mixed content, a dropped connection all look the same), `AbortError` after an abort.
    pub name: String,
    /// The error's message (browser-specific wording).
    pub message: String,
}

/// Where a request went, as the transport saw it when it started.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RequestRoute {
    /// The endpoint is another origin than the page's (CORS applies).
    pub cross_origin: bool,
    /// This was the page's first request to that origin that needed a CORS preflight:
    /// the browser sent OPTIONS first, on the connection the request then reused.
    pub first_preflight: bool,
}

/// Whether the glue should abort the stream now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[must_use]
pub enum StreamControl {
    /// Keep reading.
    Continue,
    /// "TTFT only" mode has its first answer token: abort with [`AbortReason::TtftOnly`].
    Stop,
    /// The stream cannot be read further (a line past `sse::MAX_EVENT_BYTES`): the run has
    /// ended as a malformed stream; abort with [`AbortReason::Unreadable`].
    Abandon,
}

/// Which text a [`Progress::Text`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Channel {
    /// Reasoning ("thinking") text.
    Reasoning,
    /// Answer text.
    Answer,
}

impl Channel {
    /// The paint target of this channel's first text.
    pub fn paint_target(self) -> PaintTarget {
        match self {
            Channel::Reasoning => PaintTarget::Reasoning,
            Channel::Answer => PaintTarget::Answer,
        }
    }
}

/// What the view needs to know as the run goes.
#[derive(Debug, Clone, PartialEq)]
pub enum Progress {
    /// The first SSE event of any kind arrived.
    FirstChunk {
        /// `first_chunk_ms`.
        first_chunk_ms: f64,
    },
    /// Text arrived. When `paint_id` is set, the view must put this text into a fresh
    /// element with `elementtiming` = `paint_id` and report its paint with
    /// [`Measurement::on_paint`] for [`Channel::paint_target`].
    Text {
        /// Reasoning or answer.
        channel: Channel,
        /// The text (plain text: never HTML).
        text: String,
        /// On the channel's first text: `ttfr_ms` or `ttfa_ms`.
        first_token_ms: Option<f64>,
        /// On the first text worth painting: the first reasoning text, the first answer
        /// text that is not only whitespace.
        paint_id: Option<String>,
    },
}

/// What only the page knows when the run ends.
#[derive(Debug, Clone, PartialEq)]
pub struct FinishContext<'a> {
    /// Wall-clock time of `request_started`, ISO 8601 UTC.
    pub started_at: &'a str,
    /// Which transport stamped the arrivals.
    pub transport: Transport,
    /// An unmeasured warm-up run.
    pub warm_up: bool,
    /// Whether the page is served over https (mixed-content diagnosis).
    pub page_is_https: bool,
    /// Wall-clock now, Unix seconds (an HTTP-date `Retry-After` becomes seconds).
    pub now_unix_s: Option<i64>,
    /// Whether this page's Worker arrivals wait for its main thread
    /// ([`BrowserEngine::worker_arrivals_wait_for_main_thread`]); `None`: not known. With
    /// [`Transport::MainThread`] they always do.
    pub worker_arrivals_wait_for_main_thread: Option<bool>,
    /// The page's timer: whether it was cross-origin isolated and its step.
    pub timer: Option<TimerGrade>,
    /// The page's permission to reach the endpoint's address space (Local Network Access),
    /// asked when a request into this machine or the local network from a public page failed
    /// as a network error; `None` otherwise.
    pub space_permission: Option<SpacePermission>,
    /// Whether the endpoint's host answered the page's keyless `no-cors` probe, asked when the
    /// run failed as a network error ([`FailureContext::answers_without_cors`]); `None`
    /// otherwise.
    pub answers_without_cors: Option<bool>,
    /// The browser's estimate of its link, Mbit/s (`navigator.connection.downlink`: a
    /// downlink), where it gives one.
    pub downlink_mbps: Option<f64>,
}

impl<'a> FinishContext<'a> {
    /// A measured run on an http page with no wall clock: set the other fields as they apply.
    pub fn new(started_at: &'a str, transport: Transport) -> FinishContext<'a> {
        FinishContext {
            started_at,
            transport,
            warm_up: false,
            page_is_https: false,
            now_unix_s: None,
            worker_arrivals_wait_for_main_thread: None,
            timer: None,
            space_permission: None,
            answers_without_cors: None,
            downlink_mbps: None,
        }
    }
}

/// What a [`Measurement`] holds, in bytes (see [`Measurement::retained`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Retained {
    /// The kept part of an error body (at most [`MAX_ERROR_BODY_BYTES`]).
    pub error_body_bytes: usize,
    /// The inter-token gaps ([`crate::itl::ItlGaps`]): a histogram and a sample, each of a
    /// bounded size, whatever the stream's length.
    pub text_arrival_bytes: usize,
    /// The provider's error and usage objects (each at most [`MAX_PROVIDER_TEXT_BYTES`] of
    /// JSON, plus its message).
    pub provider_object_bytes: usize,
    /// Scratch buffers reused between reads (the events of the largest read so far).
    pub scratch_bytes: usize,
}

impl Retained {
    /// Everything counted.
    pub fn total_bytes(&self) -> usize {
        self.error_body_bytes
            + self.text_arrival_bytes
            + self.provider_object_bytes
            + self.scratch_bytes
    }
}

/// One run being measured. Feed it the transport's events in order, with their times.
///
/// It keeps no text of the answer or the reasoning: each piece is handed to the view in a
/// [`Progress::Text`] and forgotten (the view bounds what it shows). Every provider string
/// it hands out or records is scrubbed of the plan's key first ([`crate::scrub`]).
#[derive(Debug, Clone)]
pub struct Measurement {
    plan: RunPlan,
    paint_key: u32,
    timeline: RunTimeline,
    reader: StreamReader,
    scrubber: Option<KeyScrubber>,
    reasoning_scrub: StreamScrub,
    answer_scrub: StreamScrub,
    head: Option<ResponseHead>,
    server_account: Option<ServerAccount>,
    relay: Option<RelayAccount>,
    error_body: Vec<u8>,
    error_body_dropped_bytes: u64,
    decoded: Vec<DecodedEvent>,
    route: RequestRoute,
    origin_contact: OriginContact,
    main_thread: MainThreadMonitor,
}

impl Measurement {
    /// Starts measuring `plan`: `clicked_ms` is the Send click's `event.timeStamp` (`None`
    /// for scheduled runs), `request_started_ms` the instant just before `fetch()`.
    /// `paint_key` makes this run's `elementtiming` names unique in the page.
    pub fn new(
        plan: &RunPlan,
        clicked_ms: Option<f64>,
        request_started_ms: f64,
        paint_key: u32,
    ) -> Measurement {
        Measurement {
            plan: plan.clone(),
            paint_key,
            timeline: RunTimeline::new(clicked_ms, request_started_ms),
            reader: StreamReader::without_text(plan.dialect),
            scrubber: plan.scrubber(),
            reasoning_scrub: StreamScrub::default(),
            answer_scrub: StreamScrub::default(),
            head: None,
            server_account: None,
            relay: None,
            error_body: Vec::new(),
            error_body_dropped_bytes: 0,
            decoded: Vec::new(),
            route: RequestRoute::default(),
            origin_contact: OriginContact::default(),
            main_thread: MainThreadMonitor::new(request_started_ms),
        }
    }

    /// What this run holds in memory, by kind. Bounded by [`MAX_ERROR_BODY_BYTES`], twice
    /// [`MAX_PROVIDER_TEXT_BYTES`] and 8 bytes per text event, plus the scratch of the
    /// largest read; the stream reader's buffer of an unfinished line or event comes on top
    /// (at most `sse::MAX_EVENT_BYTES`, see [`StreamReader::buffered_bytes`]).
    pub fn retained(&self) -> Retained {
        let json_bytes = |value: &serde_json::Value| value.to_string().len();
        let error_bytes = match &self.timeline.outcome {
            RunOutcome::StreamError { error } => error.message.len() + json_bytes(&error.raw),
            _ => 0,
        };
        let usage_bytes = self
            .timeline
            .usage
            .as_ref()
            .map_or(0, |usage| json_bytes(&usage.raw));
        let scratch_bytes = self
            .decoded
            .iter()
            .map(|event| event.reasoning.len() + event.answer.len())
            .sum::<usize>();
        Retained {
            error_body_bytes: self.error_body.len(),
            text_arrival_bytes: self.timeline.itl_gaps.held_bytes(),
            provider_object_bytes: error_bytes + usage_bytes,
            scratch_bytes,
        }
    }

    /// What was recorded so far.
    pub fn timeline(&self) -> &RunTimeline {
        &self.timeline
    }

    /// The plan being measured.
    pub fn plan(&self) -> &RunPlan {
        &self.plan
    }

    /// Where the request went (the transport tells it when it starts).
    pub fn on_route(&mut self, route: RequestRoute) {
        self.route = route;
    }

    /// When the page last heard from the endpoint's origin before this run (its own
    /// requests: the models list, token counting, earlier runs): what decides cold and
    /// warm where Resource Timing cannot ([`ConnectionVerdict`]).
    pub fn on_origin_contact(&mut self, contact: OriginContact) {
        self.origin_contact = contact;
    }

    /// Cold or warm, and why: the request's own Resource Timing, its preflight and the
    /// page's earlier contact with the origin.
    fn connection_verdict(&self) -> ConnectionVerdict {
        // Through ttft-relay, the connection that crosses the network is the relay's.
        if let Some(conn) = self.relay.as_ref().and_then(|relay| relay.conn) {
            return ConnectionVerdict {
                cold: Some(conn.opened()),
                evidence: ConnectionEvidence::Relay,
            };
        }
        let connection = self
            .timeline
            .network
            .as_ref()
            .map_or(ConnectionKind::Unknown, |network| network.connection);
        let heard_ago_ms = self
            .origin_contact
            .ago_ms(self.timeline.instants.request_started);
        let network = self.timeline.network.as_ref();
        let clock = match (
            network,
            self.origin_contact.round_trip_ms,
            self.origin_contact.handshake_ms,
        ) {
            (Some(network), Some(round_trip_ms), Some(handshake_ms)) if network.timing_visible => {
                network.queueing_ms.map(|queueing_ms| PreflightClock {
                    before_request_ms: network.fetch_lead_ms.unwrap_or(0.0) + queueing_ms,
                    round_trip_ms,
                    handshake_ms,
                })
            }
            _ => None,
        };
        ConnectionVerdict::decide(connection, self.route.first_preflight, heard_ago_ms, clock)
    }

    /// The main thread's heartbeat ran at `now_ms` (see [`MainThreadMonitor`]). The glue
    /// beats every [`HEARTBEAT_INTERVAL_MS`] while [`Self::wants_main_thread_beats`].
    pub fn on_main_thread_beat(&mut self, now_ms: f64) {
        self.main_thread.on_beat(now_ms);
    }

    /// A long task or long animation frame (Long Tasks / LoAF) on the page's main thread.
    pub fn on_main_thread_busy(&mut self, start_ms: f64, duration_ms: f64) {
        self.main_thread.on_busy(start_ms, duration_ms);
    }

    /// Whether the run still watches the main thread: until its record is made.
    pub fn wants_main_thread_beats(&self) -> bool {
        self.main_thread.wants_beats()
    }

    /// The fetch promise resolved: status and headers are known.
    pub fn on_headers(&mut self, now_ms: f64, head: ResponseHead) {
        self.timeline.on_headers(now_ms, head.status);
        let headers = head
            .timing_headers
            .iter()
            .map(|(name, value)| (name.as_str(), value.as_str()));
        let streamed = head.content_type.contains("text/event-stream");
        if let Some(account) = ServerAccount::from_headers(headers.clone(), streamed) {
            self.take_account(account);
        }
        self.relay = RelayAccount::from_headers(headers);
        self.head = Some(head);
    }

    /// The `serverTiming` of the request's Resource Timing entry, written as a
    /// `Server-Timing` header value (`name;dur=…`, comma separated).
    pub fn on_server_timing(&mut self, value: &str) {
        if value.len() <= ttft_stream::dialect::MAX_HEADER_BYTES {
            let streamed = self
                .head
                .as_ref()
                .is_some_and(|head| head.content_type.contains("text/event-stream"));
            if let Some(account) = ServerAccount::from_server_timing(value, streamed) {
                self.take_account(account);
            }
        }
    }

    fn take_account(&mut self, account: ServerAccount) {
        self.server_account
            .get_or_insert_with(ServerAccount::default)
            .merge(account);
    }

    /// What the server and gateway said of their own time so far: the headers', the
    /// Resource Timing entry's and the stream's accounts.
    pub fn server_account(&self) -> Option<ServerAccount> {
        let mut account = self.server_account.clone();
        if let Some(streamed) = self.reader.server_account() {
            account
                .get_or_insert_with(ServerAccount::default)
                .merge(streamed.clone());
        }
        account
    }

    /// Whether the body is the stream (a 2xx answer): other bodies are error pages.
    fn streaming_body(&self) -> bool {
        self.head
            .as_ref()
            .is_some_and(|head| (200..300).contains(&head.status))
    }

    /// One body read arrived at `now_ms`. Appends what the view should show to `out`.
    pub fn on_chunk(
        &mut self,
        now_ms: f64,
        bytes: &[u8],
        out: &mut Vec<Progress>,
    ) -> StreamControl {
        self.timeline.on_body_chunk(now_ms, bytes.len());
        if !self.streaming_body() {
            self.keep_error_body(bytes);
            return StreamControl::Continue;
        }
        let malformed_before = self.reader.malformed_event_count();
        let mut decoded = std::mem::take(&mut self.decoded);
        decoded.clear();
        let unreadable = self.reader.on_bytes_into(bytes, &mut decoded).err();
        for note in self.reader.take_notes() {
            // Only a relay's answer carries its notes; elsewhere they are the provider's text.
            if let Some(relay) = &mut self.relay {
                relay.on_note(&note);
            }
        }
        if self.reader.malformed_event_count() > malformed_before {
            self.timeline
                .on_malformed_chunk(now_ms, "a chunk was not valid JSON");
        }
        for event in &mut decoded {
            self.on_event(now_ms, event, out);
        }
        self.decoded = decoded;
        if let Some(first_answer_ms) = self.timeline.instants.first_answer {
            self.main_thread.close_at(first_answer_ms);
        }
        if let Some(too_long) = unreadable {
            self.timeline
                .on_stream_unreadable(now_ms, &too_long.to_string());
            self.main_thread.close_at(now_ms);
            return StreamControl::Abandon;
        }
        let answered = self.timeline.instants.first_answer_visible.is_some();
        if self.plan.ttft_only && answered && self.timeline.outcome == RunOutcome::Streaming {
            self.timeline.on_stopped_after_first_answer(now_ms);
            self.main_thread.close_at(now_ms);
            return StreamControl::Stop;
        }
        StreamControl::Continue
    }

    fn keep_error_body(&mut self, bytes: &[u8]) {
        let room = MAX_ERROR_BODY_BYTES.saturating_sub(self.error_body.len());
        let kept = bytes.len().min(room);
        self.error_body.extend_from_slice(&bytes[..kept]);
        self.error_body_dropped_bytes += (bytes.len() - kept) as u64;
    }

    /// Scrubs the key out of what the provider sent in one event (streamed texts with
    /// what was shown before them, an error whole) and bounds its error.
    fn clean_event(&mut self, event: &mut DecodedEvent) {
        if let Some(scrubber) = &self.scrubber {
            if !event.reasoning.is_empty() {
                scrubber.scrub_stream(&mut self.reasoning_scrub, &mut event.reasoning);
            }
            if !event.answer.is_empty() {
                scrubber.scrub_stream(&mut self.answer_scrub, &mut event.answer);
            }
            if let Some(reason) = &mut event.finish_reason {
                scrubber.scrub_in_place(reason);
            }
        }
        if let Some(error) = &mut event.error {
            // Scrubbed whole first: the quote's escapes would hide a key laced with
            // invisible characters from the scrubber.
            if let Some(scrubber) = &self.scrubber {
                scrubber.scrub_stream_error(error);
            }
            bound_stream_error(error);
        }
    }

    /// The decoder's usage as kept: raw object bounded and scrubbed.
    fn clean_usage(&self, usage: &Usage) -> Usage {
        let mut usage = usage.clone();
        if let Some(scrubber) = &self.scrubber {
            scrubber.scrub_json(&mut usage.raw);
        }
        quote_json_strings(&mut usage.raw);
        cut_json(&mut usage.raw, MAX_PROVIDER_TEXT_BYTES);
        usage
    }

    /// One decoded event: the timeline first, then what the view needs. First-token times
    /// are read from the instants the timeline just set, so nothing here repeats them.
    fn on_event(&mut self, now_ms: f64, event: &mut DecodedEvent, out: &mut Vec<Progress>) {
        self.clean_event(event);
        let before = self.timeline.instants.clone();
        self.timeline.on_event(now_ms, event);
        if event.usage_updated {
            if let Some(usage) = self.reader.usage() {
                let usage = self.clean_usage(usage);
                self.timeline.set_usage(&usage);
            }
        }
        let after = &self.timeline.instants;
        let started = after.request_started;
        if before.first_event.is_none() {
            out.push(Progress::FirstChunk {
                first_chunk_ms: now_ms - started,
            });
        }
        if !event.reasoning.is_empty() {
            let first = before.first_reasoning.is_none();
            out.push(Progress::Text {
                channel: Channel::Reasoning,
                text: event.reasoning.clone(),
                first_token_ms: first.then_some(now_ms - started),
                paint_id: first.then(|| self.paint_id(Channel::Reasoning)),
            });
        }
        if !event.answer.is_empty() {
            let first_visible =
                before.first_answer_visible.is_none() && after.first_answer_visible.is_some();
            out.push(Progress::Text {
                channel: Channel::Answer,
                text: event.answer.clone(),
                first_token_ms: before.first_answer.is_none().then_some(now_ms - started),
                paint_id: first_visible.then(|| self.paint_id(Channel::Answer)),
            });
        }
    }

    fn paint_id(&self, channel: Channel) -> String {
        match channel {
            Channel::Reasoning => format!("reasoning-{}", self.paint_key),
            Channel::Answer => format!("answer-{}", self.paint_key),
        }
    }

    /// The body ended normally (reader `done`): text held back by the decoder is released,
    /// then the timeline closes.
    pub fn on_end(&mut self, now_ms: f64, out: &mut Vec<Progress>) {
        if self.streaming_body() {
            let mut released = Vec::new();
            let _summary = self.reader.finish_into(&mut released);
            for event in &mut released {
                self.on_event(now_ms, event, out);
            }
        }
        self.timeline.on_stream_end(now_ms);
        self.main_thread.close_at(now_ms);
    }

    /// `fetch()` or a read rejected. `aborted` is why the glue aborted the request, if it
    /// did: an abort after the first answer in "TTFT only" mode is the plan, not a failure.
    pub fn on_failure(
        &mut self,
        now_ms: f64,
        error: &FetchError,
        aborted: Option<AbortReason>,
        out: &mut Vec<Progress>,
    ) {
        let failure = match (error.name.as_str(), aborted) {
            ("AbortError", Some(AbortReason::TtftOnly | AbortReason::Unreadable)) => return,
            ("AbortError", Some(AbortReason::Timeout)) => NetworkFailure::Timeout,
            ("AbortError", _) => NetworkFailure::Aborted,
            (REDIRECT_ERROR_NAME, _) => NetworkFailure::Redirected,
            _ => NetworkFailure::NetworkError,
        };
        self.main_thread.close_at(now_ms);
        // The connection dropped after a 2xx stream had started: the stream was cut off
        // (no terminal marker), which is what to diagnose, not a connection failure.
        if failure == NetworkFailure::NetworkError
            && self.streaming_body()
            && self.timeline.bytes_received > 0
        {
            return self.on_end(now_ms, out);
        }
        self.timeline.on_network_failure(now_ms, failure);
    }

    /// The request's Resource Timing entry (page clock), when the browser gave one. After
    /// the page's first CORS preflight to an origin, the preflight's cost is what the entry
    /// shows as queueing ([`NetworkBreakdown::preflight_ms`]).
    ///
    /// Its `responseStart` is also when the headers arrived, when it is earlier than the
    /// resolution of `fetch()`: Firefox resolves `fetch()` only with the first body bytes,
    /// and WebKit only once the page's main thread lets the worker know
    /// ([`Instants::headers_received_from`](crate::timeline::Instants::headers_received_from)).
    pub fn on_resource_timing(&mut self, timing: &ResourceTiming) {
        self.timeline.on_response_start(timing.response_start);
        let mut network = NetworkBreakdown::from_resource_timing(timing);
        if self.route.first_preflight {
            network.preflight_ms = network.queueing_ms;
        }
        let lead_ms = timing.fetch_start - self.timeline.instants.request_started;
        network.fetch_lead_ms =
            (timing.fetch_start > 0.0 && lead_ms.is_finite()).then_some(lead_ms.max(0.0));
        self.timeline.set_network(network);
    }

    /// The first text of `target` was presented on screen at `painted_ms`.
    pub fn on_paint(&mut self, target: PaintTarget, painted_ms: f64, method: PaintMethod) {
        self.timeline.on_paint(target, painted_ms, method);
    }

    /// The record of the run: metrics, instants, usage, network, outcome and, when it
    /// failed, its diagnosis. `run_index` is 0 until the session that keeps it numbers it.
    pub fn finish(mut self, context: &FinishContext<'_>) -> RunRecord {
        if self.timeline.outcome == RunOutcome::Streaming {
            // The transport ended without a word (a worker that died): nothing more arrives.
            let ended_ms = self
                .timeline
                .ended_ms
                .or(self.timeline.instants.last_token)
                .unwrap_or(self.timeline.instants.request_started);
            self.timeline
                .on_network_failure(ended_ms, NetworkFailure::NetworkError);
        }
        let window_end_ms = self
            .timeline
            .instants
            .first_answer
            .or(self.timeline.ended_ms)
            .or(self.timeline.instants.last_token)
            .unwrap_or(self.timeline.instants.request_started);
        // The whole run's watch ends at the glue's last beat (it beats once more when it
        // asks for the record).
        self.main_thread.finish(window_end_ms, window_end_ms);
        let arrivals_wait_for_main_thread = match context.transport {
            Transport::MainThread => Some(true),
            Transport::Worker => context.worker_arrivals_wait_for_main_thread,
        };
        let description = self.plan.request().describe();
        let diagnosis = (!self.timeline.outcome.is_ok())
            .then(|| diagnose(&self.failure_context(&description, context)))
            .flatten();
        let dialect = self.head.is_some().then(|| self.reader.dialect());
        let scrubber = self.scrubber.clone();
        let verdict = self.connection_verdict();
        let server_account = self.server_account();
        let breakdown = WaitBreakdown::compute(&BreakdownInput {
            instants: &self.timeline.instants,
            network: self.timeline.network.as_ref(),
            cold: verdict.cold,
            https: self.plan.request().url.starts_with("https:"),
            first_preflight: self.route.first_preflight,
            earlier_round_trip_ms: self.origin_contact.round_trip_ms,
            ping_round_trip: self.origin_contact.ping_round_trip,
            account: server_account.as_ref(),
            request_bytes: u64::try_from(self.plan.request().body_text().len()).ok(),
            downlink_mbps: context.downlink_mbps,
            relay: self.relay.as_ref(),
        });
        let buffered_arrival = self.buffered_arrival(arrivals_wait_for_main_thread);
        let timeline = self.timeline;
        let mut record = RunRecord {
            run_index: 0,
            started_at: context.started_at.to_owned(),
            settings: self.plan.settings(dialect.or(self.plan.dialect)),
            transport: context.transport,
            cold: verdict.cold,
            connection_evidence: Some(verdict.evidence),
            warm_up: context.warm_up,
            metrics: timeline.metrics(),
            usage: timeline.usage.clone(),
            network: timeline.network.clone(),
            outcome: timeline.outcome.clone(),
            diagnosis_cause: diagnosis
                .as_ref()
                .map(|diagnosis| diagnosis.cause.code().to_owned()),
            diagnosis: diagnosis.as_ref().map(DiagnosisText::of),
            experiment: self.plan.experiment.clone(),
            instants: timeline.instants,
            arrival_delay_bound_ms: self.main_thread.bound_ms(),
            main_thread_stall_ms: self.main_thread.stall_ms(),
            arrivals_wait_for_main_thread,
            server_account,
            breakdown,
            timer: context.timer,
            relay: self.relay,
            buffered_arrival,
        };
        if let Some(scrubber) = scrubber {
            record.scrub_key(&scrubber);
        }
        record
    }

    /// Whether the answer arrived all at once after a long silence ([`BufferedArrival`]).
    /// Not judged when the arrival stamps waited for a main thread that stalled: a stalled
    /// page stamps what piled up meanwhile all at once.
    fn buffered_arrival(
        &self,
        arrivals_wait_for_main_thread: Option<bool>,
    ) -> Option<BufferedArrival> {
        let stamps_held = arrivals_wait_for_main_thread == Some(true)
            && self
                .main_thread
                .stall_ms()
                .is_some_and(|stall_ms| stall_ms > crate::availability::ARRIVAL_DELAY_THRESHOLD_MS);
        if stamps_held {
            return None;
        }
        let instants = &self.timeline.instants;
        let first_text_ms = match (instants.first_reasoning, instants.first_answer) {
            (Some(reasoning), Some(answer)) => reasoning.min(answer),
            (reasoning, answer) => reasoning.or(answer)?,
        };
        BufferedArrival::detect(
            instants.request_started,
            first_text_ms,
            instants.last_token?,
            self.timeline.text_event_count,
        )
    }

    fn failure_context(
        &self,
        description: &RequestDescription,
        context: &FinishContext<'_>,
    ) -> FailureContext {
        let mut failure = FailureContext::from_run(&self.timeline, description);
        failure.content_type = self.head.as_ref().map(|head| head.content_type.clone());
        failure.retry_after = self.head.as_ref().and_then(|head| head.retry_after.clone());
        failure.response_body = (!self.error_body.is_empty()).then(|| {
            let body = String::from_utf8_lossy(&self.error_body);
            match &self.scrubber {
                Some(scrubber) => scrubber.scrub(&body).into_owned(),
                None => body.into_owned(),
            }
        });
        failure.now_unix_s = context.now_unix_s;
        failure.page_is_https = context.page_is_https;
        failure.space_permission = context.space_permission;
        failure.answers_without_cors = context.answers_without_cors;
        failure
    }
}
