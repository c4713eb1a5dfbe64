//! One run's timeline: its instants as the engine records them, its outcome, and the
//! metrics computed from them (DESIGN.md §2).

use super::network::NetworkBreakdown;
use super::paint::{PaintMethod, PaintTarget, PaintTime};
use crate::failure::{NetworkFailure, StreamFailure};
use crate::itl::ItlGaps;
use serde::{Deserialize, Serialize};
use ttft_stream::dialect::{DecodedEvent, StreamError, Usage};

/// Which source gave `headers_received`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HeadersSource {
    /// The `fetch()` promise resolved.
    FetchResolved,
    /// Resource Timing `responseStart`, earlier than the resolution of `fetch()` (Firefox
    /// resolves it with the first body bytes, WebKit when the main thread is free).
    ResponseStart,
}

/// The instants of one run (DESIGN.md §2), ms on the page's `performance.now()` clock.
/// `None` means the instant did not happen (or was not observable).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Instants {
    /// The Send click's `event.timeStamp`; absent for scheduled runs.
    pub clicked: Option<f64>,
    /// Just before `fetch()` was called.
    pub request_started: f64,
    /// The response headers arrived: the earlier of the `fetch()` promise's resolution and
    /// Resource Timing's `responseStart` (see `headers_received_from`).
    pub headers_received: Option<f64>,
    /// Which of the two gave `headers_received`. Absent before schema 3 (the fetch
    /// promise's resolution then).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub headers_received_from: Option<HeadersSource>,
    /// First body chunk read.
    pub first_byte: Option<f64>,
    /// First SSE event of any kind (role chunk, ping, `message_start`…).
    pub first_event: Option<f64>,
    /// First event carrying non-empty reasoning text.
    pub first_reasoning: Option<f64>,
    /// First event carrying non-empty answer text.
    pub first_answer: Option<f64>,
    /// First event carrying answer text that is not only whitespace.
    pub first_answer_visible: Option<f64>,
    /// When the first reasoning text was presented on screen.
    pub reasoning_painted: Option<PaintTime>,
    /// When the first visible answer text was presented on screen.
    pub answer_painted: Option<PaintTime>,
    /// Last arrival of an event carrying text (reasoning or answer).
    pub last_token: Option<f64>,
    /// Stream end: the terminal marker or the close, whichever came first.
    pub finished: Option<f64>,
}

/// How close the response headers and the first body bytes may be for the headers to count
/// as having come with the body, ms. The two are stamped by different code: the network
/// stack's `responseStart`, and the first read in the page's worker after the bytes crossed
/// to it: 3 to 6 ms apart for one TLS record on loopback in Chromium and Firefox (e2e,
/// `hold_headers=1`), more on a busy machine.
pub const HEADERS_WITH_BODY_MS: f64 = 20.0;

/// Below this wait for the headers there is nothing worth explaining, ms.
pub const HEADERS_HELD_MIN_MS: f64 = 50.0;

impl Instants {
    /// Whether the response headers reached the browser only with the first token: Resource
    /// Timing's `responseStart` within [`HEADERS_WITH_BODY_MS`] of the first body bytes, which
    /// carried the first token, after a wait of at least [`HEADERS_HELD_MIN_MS`]. Then the
    /// wait before the headers is the server's work (queue, prefill) together with anything
    /// that held the headers on the way, such as nginx before 1.23 over HTTP/2
    /// (docs/engines.md), not the server's silence alone. Only judged when the headers' time
    /// comes from `responseStart`: Firefox and WebKit resolve `fetch()` with the body, so a
    /// resolution time says nothing about when the headers came. A server that sends a role
    /// chunk at once gets its headers out with it: not held.
    pub fn headers_came_with_body(&self) -> bool {
        let first_token = match (self.first_reasoning, self.first_answer) {
            (Some(reasoning), Some(answer)) => Some(reasoning.min(answer)),
            (reasoning, answer) => reasoning.or(answer),
        };
        match (
            self.headers_received_from,
            self.headers_received,
            self.first_byte,
            first_token,
        ) {
            (
                Some(HeadersSource::ResponseStart),
                Some(headers_ms),
                Some(first_byte_ms),
                Some(token_ms),
            ) => {
                headers_ms - self.request_started >= HEADERS_HELD_MIN_MS
                    && (first_byte_ms - headers_ms).abs() <= HEADERS_WITH_BODY_MS
                    && token_ms - first_byte_ms <= HEADERS_WITH_BODY_MS
            }
            _ => false,
        }
    }
}

/// How a run ended (or that it has not yet).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum RunOutcome {
    /// Still running.
    Streaming,
    /// The protocol's terminal marker arrived and text was received.
    Completed,
    /// "TTFT only" mode aborted the stream after the first answer token, as planned.
    StoppedAfterFirstAnswer,
    /// The server answered with a non-2xx status.
    HttpError {
        /// The status.
        status: u16,
    },
    /// `fetch()` or a body read failed, timed out or was aborted.
    NetworkFailure {
        /// Which.
        failure: NetworkFailure,
    },
    /// An error event inside the 200 stream.
    StreamError {
        /// The provider's error.
        error: StreamError,
    },
    /// A chunk could not be parsed as the protocol's JSON.
    MalformedChunk {
        /// What the parser said (no model text).
        detail: String,
        /// When the chunk arrived (ms, page clock).
        at_ms: f64,
    },
    /// The stream ended without any reasoning or answer text.
    EmptyStream,
    /// Nothing was sent: the input (URL, key, model, limits) was rejected before the request.
    NotSent,
    /// The stream closed with text but without the terminal marker.
    EndedWithoutTerminal,
}

impl RunOutcome {
    /// Whether the run measured what it set out to: it completed, or "TTFT only" mode
    /// stopped it after the first answer token as planned. Everything else counts as failed.
    pub fn is_ok(&self) -> bool {
        matches!(
            self,
            RunOutcome::Completed | RunOutcome::StoppedAfterFirstAnswer
        )
    }

    /// The snake_case code of the outcome (its serialized `kind`), for `data-*` attributes,
    /// CSV and messages.
    pub fn code(&self) -> &'static str {
        match self {
            RunOutcome::Streaming => "streaming",
            RunOutcome::Completed => "completed",
            RunOutcome::StoppedAfterFirstAnswer => "stopped_after_first_answer",
            RunOutcome::HttpError { .. } => "http_error",
            RunOutcome::NetworkFailure { .. } => "network_failure",
            RunOutcome::StreamError { .. } => "stream_error",
            RunOutcome::MalformedChunk { .. } => "malformed_chunk",
            RunOutcome::EmptyStream => "empty_stream",
            RunOutcome::EndedWithoutTerminal => "ended_without_terminal",
            RunOutcome::NotSent => "not_sent",
        }
    }
}

/// Where `perceived_*` metrics are measured from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PerceivedAnchor {
    /// The Send click.
    Clicked,
    /// `request_started`, for runs without a click (scheduled runs).
    RequestStarted,
}

/// Where the token count used for `itl_ms` and `output_tps` came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TokenCountSource {
    /// The provider's reported `output_tokens` (usage).
    Usage,
    /// The number of text-carrying events (chunks); a chunk may hold several tokens.
    Chunks,
}

/// The metrics of one run, named as in DESIGN.md §2. `None` whenever an instant they need
/// is missing: never a made-up zero.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunMetrics {
    /// min(first_reasoning, first_answer) − request_started.
    pub ttft_ms: Option<f64>,
    /// first_answer − request_started.
    pub ttfa_ms: Option<f64>,
    /// first_answer_visible − request_started (first non-whitespace answer).
    pub ttfa_visible_ms: Option<f64>,
    /// first_reasoning − request_started.
    pub ttfr_ms: Option<f64>,
    /// first_event − request_started.
    pub first_chunk_ms: Option<f64>,
    /// headers_received − request_started.
    pub setup_ms: Option<f64>,
    /// min(reasoning_painted, answer_painted) − clicked (or request_started).
    pub perceived_ttft_ms: Option<f64>,
    /// answer_painted − clicked (or request_started).
    pub perceived_ttfa_ms: Option<f64>,
    /// What the perceived metrics were measured from.
    pub perceived_from: PerceivedAnchor,
    /// reasoning_painted − first_reasoning.
    pub reasoning_ui_delay_ms: Option<f64>,
    /// answer_painted − first_answer_visible (the text that was painted).
    pub answer_ui_delay_ms: Option<f64>,
    /// first_answer − first_reasoning (time spent thinking before the answer).
    pub reasoning_ms: Option<f64>,
    /// last_token − min(first_reasoning, first_answer).
    pub decode_ms: Option<f64>,
    /// finished − request_started.
    pub e2e_ms: Option<f64>,
    /// Gaps between consecutive text-carrying events (the ITL distribution), in bounded
    /// memory: a histogram at 1 µs and a sample in stream order ([`ItlGaps`]). Serialized as
    /// `itl_gaps`; schema 1 and 2 documents' `itl_gaps_ms` array reads into it.
    #[serde(rename = "itl_gaps", alias = "itl_gaps_ms")]
    pub itl_gaps: ItlGaps,
    /// Per-run mean ITL: (last_token − first token) / (n − 1); `None` when n < 2.
    pub itl_ms: Option<f64>,
    /// n used for `itl_ms` and `output_tps`.
    pub output_tokens_counted: Option<u64>,
    /// Where n came from: usage when the provider reported output tokens, else chunks.
    pub token_count_source: Option<TokenCountSource>,
    /// n / (decode_ms / 1000); `None` when decode_ms is 0 or missing.
    pub output_tps: Option<f64>,
    /// HTTP status.
    pub http_status: Option<u16>,
    /// Prompt tokens, cached ones included (usage).
    pub prompt_tokens: Option<u64>,
    /// Prompt tokens read from the cache (usage).
    pub cached_prompt_tokens: Option<u64>,
    /// Output tokens (usage).
    pub output_tokens: Option<u64>,
    /// Reasoning tokens (usage).
    pub reasoning_tokens: Option<u64>,
}

/// Everything recorded about one run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunTimeline {
    /// The instants.
    pub instants: Instants,
    /// Number of events carrying reasoning or answer text.
    pub text_event_count: u64,
    /// Gaps between consecutive text-carrying events, kept as they arrive (bounded memory).
    pub itl_gaps: ItlGaps,
    /// HTTP status, once headers arrived.
    pub http_status: Option<u16>,
    /// The last usage the decoder reported.
    pub usage: Option<Usage>,
    /// How the run ended.
    pub outcome: RunOutcome,
    /// Whether the protocol's terminal marker arrived.
    pub terminal_seen: bool,
    /// Number of decoded SSE events.
    pub event_count: usize,
    /// Body bytes received.
    pub bytes_received: u64,
    /// Network breakdown from Resource Timing, when the app could read it.
    pub network: Option<NetworkBreakdown>,
    /// When the run ended for any reason (stream close, abort, failure), ms page clock.
    /// Unlike `finished` it is also set for aborted and failed runs.
    pub ended_ms: Option<f64>,
}

/// `later − earlier` when both exist.
fn span(earlier: Option<f64>, later: Option<f64>) -> Option<f64> {
    Some(later? - earlier?)
}

/// The earlier of two optional instants.
fn earliest(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

impl RunTimeline {
    /// Starts a run: `clicked_ms` is the click's `event.timeStamp` (None for scheduled
    /// runs), `request_started_ms` the instant just before `fetch()`.
    pub fn new(clicked_ms: Option<f64>, request_started_ms: f64) -> RunTimeline {
        RunTimeline {
            instants: Instants {
                clicked: clicked_ms,
                request_started: request_started_ms,
                headers_received: None,
                headers_received_from: None,
                first_byte: None,
                first_event: None,
                first_reasoning: None,
                first_answer: None,
                first_answer_visible: None,
                reasoning_painted: None,
                answer_painted: None,
                last_token: None,
                finished: None,
            },
            text_event_count: 0,
            itl_gaps: ItlGaps::new(),
            http_status: None,
            usage: None,
            outcome: RunOutcome::Streaming,
            terminal_seen: false,
            event_count: 0,
            bytes_received: 0,
            network: None,
            ended_ms: None,
        }
    }

    /// The fetch promise resolved with `status`. A non-2xx status sets the outcome.
    pub fn on_headers(&mut self, now_ms: f64, status: u16) {
        if self.instants.headers_received.is_none() {
            self.instants.headers_received = Some(now_ms);
            self.instants.headers_received_from = Some(HeadersSource::FetchResolved);
        }
        self.http_status = Some(status);
        if !(200..300).contains(&status) {
            self.set_outcome(RunOutcome::HttpError { status });
        }
    }

    /// Resource Timing's `responseStart` (page clock; 0 when hidden): the headers' arrival
    /// when it is earlier than the resolution of `fetch()` and not before the request.
    pub fn on_response_start(&mut self, response_start_ms: f64) {
        let Some(resolved_ms) = self.instants.headers_received else {
            return;
        };
        if response_start_ms > 0.0
            && response_start_ms >= self.instants.request_started
            && response_start_ms < resolved_ms
        {
            self.instants.headers_received = Some(response_start_ms);
            self.instants.headers_received_from = Some(HeadersSource::ResponseStart);
        }
    }

    /// A body chunk of `byte_len` bytes was read (empty reads are ignored).
    pub fn on_body_chunk(&mut self, now_ms: f64, byte_len: usize) {
        if byte_len == 0 {
            return;
        }
        self.instants.first_byte.get_or_insert(now_ms);
        self.bytes_received += byte_len as u64;
    }

    /// A decoded SSE event arrived at `now_ms`.
    ///
    /// Any event sets `first_event`; only non-empty text sets the first-token instants, so a
    /// role chunk, `message_start`, `ping` or an empty `reasoning_content` never starts TTFT.
    ///
    /// An event that reveals earlier answer text as reasoning
    /// ([`DecodedEvent::earlier_answer_was_reasoning`]) first moves the answer's instants to
    /// the reasoning (see `RunTimeline::on_answer_was_reasoning`); its own text then counts
    /// as usual, so the first answer is the first text after the closing tag.
    pub fn on_event(&mut self, now_ms: f64, event: &DecodedEvent) {
        self.event_count += 1;
        self.instants.first_event.get_or_insert(now_ms);
        if let Some(reasoning) = &event.earlier_answer_was_reasoning {
            self.on_answer_was_reasoning(!reasoning.is_empty());
        }
        let has_reasoning = !event.reasoning.is_empty();
        let has_answer = !event.answer.is_empty();
        if has_reasoning {
            self.instants.first_reasoning.get_or_insert(now_ms);
        }
        if has_answer {
            self.instants.first_answer.get_or_insert(now_ms);
            if !event.answer.trim().is_empty() {
                self.instants.first_answer_visible.get_or_insert(now_ms);
            }
        }
        if has_reasoning || has_answer {
            if let Some(previous_ms) = self.instants.last_token {
                self.itl_gaps.push(now_ms - previous_ms);
            }
            self.instants.last_token = Some(now_ms);
            self.text_event_count += 1;
        }
        if let Some(error) = &event.error {
            self.set_outcome(RunOutcome::StreamError {
                error: error.clone(),
            });
        }
        if event.terminal {
            self.terminal_seen = true;
            self.instants.finished.get_or_insert(now_ms);
        }
    }

    /// The answer text so far was reasoning (a `</think>` arrived without an opening tag;
    /// `had_text`: that text was not empty). No reasoning can have come before it, so:
    /// the first answer's arrival becomes the first reasoning's, and the answer's paint the
    /// reasoning's (it painted that text); the answer instants are cleared, to be taken
    /// again from the first answer text that follows. The glue must report a paint that was
    /// still pending for the old answer text as [`PaintTarget::Reasoning`], and watch the new
    /// first answer's paint.
    fn on_answer_was_reasoning(&mut self, had_text: bool) {
        let at = &mut self.instants;
        let first_answer = at.first_answer.take();
        at.first_answer_visible = None;
        let answer_painted = at.answer_painted.take();
        if had_text {
            at.first_reasoning = earliest(at.first_reasoning, first_answer);
            if at.reasoning_painted.is_none() {
                at.reasoning_painted = answer_painted;
            }
        }
    }

    /// The stream cannot be read further (a line or an event passed the parser's limit):
    /// the run ends here as a malformed stream with `detail` as its cause, and the glue
    /// aborts the request. `finished` stays unset (the stream did not end by itself).
    pub fn on_stream_unreadable(&mut self, now_ms: f64, detail: &str) {
        self.ended_ms.get_or_insert(now_ms);
        self.set_outcome(RunOutcome::MalformedChunk {
            detail: crate::quote::quote(detail),
            at_ms: now_ms,
        });
    }

    /// The decoder's merged usage changed (`DecodedEvent::usage_updated`); keeps the last.
    pub fn set_usage(&mut self, usage: &Usage) {
        self.usage = Some(usage.clone());
    }

    /// A chunk could not be parsed (the decoder's error, without model text). The stream
    /// may go on; `on_stream_end` still records its end.
    pub fn on_malformed_chunk(&mut self, now_ms: f64, detail: &str) {
        self.set_outcome(RunOutcome::MalformedChunk {
            detail: crate::quote::quote(detail),
            at_ms: now_ms,
        });
    }

    /// A paint was observed; only the first per target is kept.
    pub fn on_paint(&mut self, target: PaintTarget, painted_ms: f64, method: PaintMethod) {
        let slot = match target {
            PaintTarget::Reasoning => &mut self.instants.reasoning_painted,
            PaintTarget::Answer => &mut self.instants.answer_painted,
        };
        slot.get_or_insert(PaintTime {
            at_ms: painted_ms,
            method,
            expected_error: Some(method.expected_error()),
        });
    }

    /// The body stream closed (reader `done`). Sets `finished` if the terminal marker did
    /// not, and settles the outcome of a run still streaming. A close after our own abort
    /// (TTFT-only mode, Stop, timeout) is not the stream's end and sets nothing.
    pub fn on_stream_end(&mut self, now_ms: f64) {
        if matches!(
            self.outcome,
            RunOutcome::StoppedAfterFirstAnswer | RunOutcome::NetworkFailure { .. }
        ) {
            return;
        }
        self.instants.finished.get_or_insert(now_ms);
        self.ended_ms.get_or_insert(now_ms);
        let outcome = if self.text_event_count == 0 {
            RunOutcome::EmptyStream
        } else if self.terminal_seen {
            RunOutcome::Completed
        } else {
            RunOutcome::EndedWithoutTerminal
        };
        self.set_outcome(outcome);
    }

    /// "TTFT only" mode aborted the stream after the first answer token. `finished` stays
    /// unset (the stream did not end by itself), so `e2e_ms` is `None`.
    pub fn on_stopped_after_first_answer(&mut self, now_ms: f64) {
        self.ended_ms.get_or_insert(now_ms);
        self.set_outcome(RunOutcome::StoppedAfterFirstAnswer);
    }

    /// `fetch()` or a read rejected (network error, timeout, user abort). What was measured
    /// stays; `finished` stays unset, so `e2e_ms` is `None`.
    pub fn on_network_failure(&mut self, now_ms: f64, failure: NetworkFailure) {
        self.ended_ms.get_or_insert(now_ms);
        self.set_outcome(RunOutcome::NetworkFailure { failure });
    }

    /// Records the Resource Timing breakdown for this request.
    pub fn set_network(&mut self, network: NetworkBreakdown) {
        self.network = Some(network);
    }

    /// The first outcome other than `Streaming` wins: an error is not overwritten by the
    /// close that follows it (vLLM even sends `[DONE]` after an error).
    fn set_outcome(&mut self, outcome: RunOutcome) {
        if self.outcome == RunOutcome::Streaming {
            self.outcome = outcome;
        }
    }

    /// Time from `request_started` to the end of the run, whatever ended it.
    pub fn elapsed_ms(&self) -> Option<f64> {
        Some(self.ended_ms? - self.instants.request_started)
    }

    /// The network failure that ended the run, if one did.
    pub fn network_failure(&self) -> Option<NetworkFailure> {
        match self.outcome {
            RunOutcome::NetworkFailure { failure } => Some(failure),
            _ => None,
        }
    }

    /// The stream-level failure, in the form diagnosis takes.
    pub fn stream_failure(&self) -> Option<StreamFailure> {
        match &self.outcome {
            RunOutcome::StreamError { error } => Some(StreamFailure::MidStreamError {
                error: error.clone(),
            }),
            RunOutcome::MalformedChunk { detail, .. } => Some(StreamFailure::MalformedChunk {
                detail: detail.clone(),
            }),
            RunOutcome::EmptyStream => Some(StreamFailure::EmptyStream),
            RunOutcome::EndedWithoutTerminal => Some(StreamFailure::EndedWithoutTerminal),
            _ => None,
        }
    }

    /// The token count for ITL and throughput: usage's `output_tokens` when reported,
    /// else the number of text-carrying events.
    fn token_count(&self) -> Option<(u64, TokenCountSource)> {
        if let Some(tokens) = self.usage.as_ref().and_then(|u| u.output_tokens) {
            return Some((tokens, TokenCountSource::Usage));
        }
        let chunks = self.text_event_count;
        (chunks > 0).then_some((chunks, TokenCountSource::Chunks))
    }

    /// Computes the metrics of DESIGN.md §2 from what was recorded.
    pub fn metrics(&self) -> RunMetrics {
        let at = &self.instants;
        let start = Some(at.request_started);
        let first_token = earliest(at.first_reasoning, at.first_answer);
        let (anchor, perceived_from) = match at.clicked {
            Some(clicked) => (Some(clicked), PerceivedAnchor::Clicked),
            None => (start, PerceivedAnchor::RequestStarted),
        };
        let reasoning_painted = at.reasoning_painted.map(|p| p.at_ms);
        let answer_painted = at.answer_painted.map(|p| p.at_ms);
        let decode_ms = span(first_token, at.last_token);
        let counted = self.token_count();
        let itl_ms = match (counted, decode_ms) {
            (Some((n, _)), Some(window_ms)) if n >= 2 => Some(window_ms / (n - 1) as f64),
            _ => None,
        };
        let output_tps = match (counted, decode_ms) {
            (Some((n, _)), Some(window_ms)) if window_ms > 0.0 => {
                Some(n as f64 / (window_ms / 1000.0))
            }
            _ => None,
        };
        let usage = self.usage.as_ref();
        RunMetrics {
            ttft_ms: span(start, first_token),
            ttfa_ms: span(start, at.first_answer),
            ttfa_visible_ms: span(start, at.first_answer_visible),
            ttfr_ms: span(start, at.first_reasoning),
            first_chunk_ms: span(start, at.first_event),
            setup_ms: span(start, at.headers_received),
            perceived_ttft_ms: span(anchor, earliest(reasoning_painted, answer_painted)),
            perceived_ttfa_ms: span(anchor, answer_painted),
            perceived_from,
            reasoning_ui_delay_ms: span(at.first_reasoning, reasoning_painted),
            answer_ui_delay_ms: span(at.first_answer_visible, answer_painted),
            reasoning_ms: span(at.first_reasoning, at.first_answer),
            decode_ms,
            e2e_ms: span(start, at.finished),
            itl_gaps: self.itl_gaps.clone(),
            itl_ms,
            output_tokens_counted: counted.map(|(n, _)| n),
            token_count_source: counted.map(|(_, source)| source),
            output_tps,
            http_status: self.http_status,
            prompt_tokens: usage.and_then(|u| u.prompt_tokens),
            cached_prompt_tokens: usage.and_then(|u| u.cached_prompt_tokens),
            output_tokens: usage.and_then(|u| u.output_tokens),
            reasoning_tokens: usage.and_then(|u| u.reasoning_tokens),
        }
    }
}

#[cfg(test)]
mod headers_tests {
    use super::*;

    #[test]
    fn headers_with_the_body_only_from_response_start() {
        // (source, headers, first byte, first answer), ms after the request; measured cases
        // of e2e's hold_headers test in Chromium, and the cases around them.
        let instants = |from, headers_ms: f64, first_byte_ms: f64, answer_ms: f64| Instants {
            request_started: 1000.0,
            headers_received: Some(1000.0 + headers_ms),
            headers_received_from: Some(from),
            first_byte: Some(1000.0 + first_byte_ms),
            first_answer: Some(1000.0 + answer_ms),
            ..Instants::default()
        };
        use HeadersSource::{FetchResolved, ResponseStart};
        let cases = [
            // Held until the first token (nginx 1.22 over HTTP/2; ttft-sim hold_headers=1).
            (ResponseStart, 108.1, 112.6, 112.6, true),
            (ResponseStart, 302.0, 302.4, 302.4, true),
            // A server that answers at once and streams 100 ms later.
            (ResponseStart, 7.8, 107.4, 107.4, false),
            // Held, but released at once by a role chunk (early_role=1): nothing held.
            (ResponseStart, 9.4, 11.6, 110.3, false),
            // A short wait: nothing worth explaining.
            (ResponseStart, 12.0, 14.0, 14.0, false),
            // Firefox without Timing-Allow-Origin: fetch() resolved with the body anyway.
            (FetchResolved, 302.0, 302.1, 302.1, false),
        ];
        for (from, headers_ms, first_byte_ms, answer_ms, held) in cases {
            assert_eq!(
                instants(from, headers_ms, first_byte_ms, answer_ms).headers_came_with_body(),
                held,
                "{from:?} {headers_ms} {first_byte_ms} {answer_ms}"
            );
        }
        assert!(!Instants::default().headers_came_with_body());
    }
}
