//! The send queue: bounded, batching, retrying with exponential backoff, and never sending
//! while a stream is open. Pure: the glue tells it the time, whether a stream is open, and
//! what each request returned; it answers with the requests to make.
//!
//! Follows the OTLP/HTTP specification ("Failures", "Retryable Response Codes", "OTLP/HTTP
//! Throttling"): 429, 502, 503 and 504 are retried, honouring `Retry-After` (seconds), with
//! exponential backoff and random jitter otherwise; every other 4xx or 5xx is not retried;
//! a dropped connection is retried. A 200 with `partialSuccess` is not retried.

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use ttft_core::lang::Lang;

use super::names::path;
use super::resource::cut;
use crate::texts as t;

/// Bytes a page may have in flight in `fetch(…, {keepalive: true})` requests (Fetch
/// standard, "keepalive": 64 KiB for all of them together). The `pagehide` flush stays
/// under it.
pub const KEEPALIVE_BUDGET_BYTES: usize = 64 * 1024;

/// Which OTLP signal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Signal {
    /// `/v1/metrics`.
    Metrics,
    /// `/v1/traces`.
    Traces,
}

impl Signal {
    /// The OTLP/HTTP path.
    pub fn path(self) -> &'static str {
        match self {
            Signal::Metrics => path::METRICS,
            Signal::Traces => path::TRACES,
        }
    }

    /// The request's top-level JSON key.
    fn list_key(self) -> &'static str {
        match self {
            Signal::Metrics => "resourceMetrics",
            Signal::Traces => "resourceSpans",
        }
    }
}

/// The queue's limits and timings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QueueConfig {
    /// Most items (one per recorded run) waiting per signal; beyond, the oldest is dropped
    /// and counted.
    pub max_queued_items: usize,
    /// Largest body a batch grows to (one item alone may be larger). Under
    /// [`KEEPALIVE_BUDGET_BYTES`] so a batch can also go out with `keepalive`.
    pub max_batch_bytes: usize,
    /// First retry delay, ms.
    pub initial_backoff_ms: f64,
    /// Longest retry delay, ms (a `Retry-After` may ask for up to [`MAX_RETRY_AFTER_MS`]).
    pub max_backoff_ms: f64,
    /// Attempts per batch (the first send included) before it is dropped.
    pub max_attempts: u32,
}

/// The longest `Retry-After` honoured, ms (10 minutes).
pub const MAX_RETRY_AFTER_MS: f64 = 600_000.0;

impl Default for QueueConfig {
    fn default() -> QueueConfig {
        QueueConfig {
            max_queued_items: 200,
            max_batch_bytes: 60_000,
            initial_backoff_ms: 1_000.0,
            max_backoff_ms: 60_000.0,
            max_attempts: 6,
        }
    }
}

/// A request the glue should make: `POST {endpoint}{path}` with `Content-Type:
/// application/json` and the body.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OutgoingRequest {
    /// Give it back to [`SendQueue::on_outcome`].
    pub id: u64,
    /// Metrics or traces.
    pub signal: Signal,
    /// `/v1/metrics` or `/v1/traces`.
    pub path: String,
    /// The JSON body.
    pub body: String,
    /// How many runs it carries.
    pub runs: u64,
    /// Send with `fetch(…, {keepalive: true})` (the `pagehide` flush).
    pub keepalive: bool,
}

/// What a send came to, as the glue saw it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SendOutcome {
    /// The collector answered.
    Response {
        /// The HTTP status.
        status: u16,
        /// The `Retry-After` header, if any.
        retry_after: Option<String>,
        /// The start of the body (the glue may cut it; 4 KiB is plenty).
        body: String,
    },
    /// `fetch()` was rejected (a `TypeError`): the collector is down or unreachable, or CORS
    /// refused this origin. A browser does not say which.
    NetworkError,
    /// Our deadline fired before an answer.
    Timeout,
}

/// Why an export did not (entirely) land. Shown in the UI; a run never fails because of it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SendProblem {
    /// `fetch()` failed: collector down or unreachable, or CORS refused the page's origin.
    Unreachable,
    /// No answer in time.
    TimedOut,
    /// 429, 502, 503 or 504: the collector is busy (retried).
    Busy {
        /// The status.
        status: u16,
    },
    /// Another 4xx or 5xx: not retried.
    Refused {
        /// The status.
        status: u16,
        /// The collector's `Status.message`, cut, if it gave one.
        detail: Option<String>,
    },
    /// A 200 whose `partialSuccess` rejected part of the data.
    PartiallyRejected {
        /// Rejected data points or spans.
        rejected: u64,
        /// The collector's `errorMessage`, cut.
        detail: Option<String>,
    },
    /// A retried batch was dropped after its last attempt.
    GaveUp {
        /// Attempts made.
        attempts: u32,
        /// The last problem.
        last: Box<SendProblem>,
    },
    /// The queue was full: the oldest waiting runs were dropped.
    Overflow {
        /// Runs dropped so far.
        dropped_runs: u64,
    },
}

/// Where the export goes and from where, for the messages.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProblemContext {
    /// The collector's base URL, e.g. `https://otel.example.com:4318`.
    pub endpoint: String,
    /// The page's origin, e.g. `https://docs.example.com`.
    pub page_origin: String,
}

impl SendProblem {
    /// A stable code for `data-*` attributes and tests.
    pub fn code(&self) -> &'static str {
        match self {
            SendProblem::Unreachable => "unreachable",
            SendProblem::TimedOut => "timed_out",
            SendProblem::Busy { .. } => "busy",
            SendProblem::Refused { .. } => "refused",
            SendProblem::PartiallyRejected { .. } => "partially_rejected",
            SendProblem::GaveUp { .. } => "gave_up",
            SendProblem::Overflow { .. } => "overflow",
        }
    }

    /// What happened and what to do, in the user's language. The run itself is never
    /// affected, and every message says so.
    pub fn message(&self, lang: Lang, context: &ProblemContext) -> String {
        let endpoint = &context.endpoint;
        let origin = &context.page_origin;
        let said = |detail: &Option<String>| {
            detail
                .as_deref()
                .map(|detail| t::OTLP_SEND_COLLECTOR_SAID.fill(lang, &[("detail", &detail)]))
                .unwrap_or_default()
        };
        match self {
            SendProblem::Unreachable => {
                t::OTLP_SEND_UNREACHABLE.fill(lang, &[("endpoint", endpoint), ("origin", origin)])
            }
            SendProblem::TimedOut => t::OTLP_SEND_TIMED_OUT.fill(lang, &[("endpoint", endpoint)]),
            SendProblem::Busy { status } => {
                t::OTLP_SEND_BUSY.fill(lang, &[("endpoint", endpoint), ("status", status)])
            }
            SendProblem::Refused { status, detail } => {
                let advice = match status {
                    400 => t::OTLP_REFUSED_ADVICE_MALFORMED,
                    401 | 403 => t::OTLP_REFUSED_ADVICE_CREDENTIALS,
                    404 => t::OTLP_REFUSED_ADVICE_NOT_FOUND,
                    413 => t::OTLP_REFUSED_ADVICE_TOO_LARGE,
                    415 => t::OTLP_REFUSED_ADVICE_NOT_JSON,
                    _ => t::OTLP_REFUSED_ADVICE_DROPPED,
                }
                .fill(lang, &[("endpoint", endpoint)]);
                t::OTLP_SEND_REFUSED.fill(
                    lang,
                    &[
                        ("endpoint", endpoint),
                        ("status", status),
                        ("advice", &advice),
                        ("detail", &said(detail)),
                    ],
                )
            }
            SendProblem::PartiallyRejected { rejected, detail } => t::OTLP_SEND_PARTIALLY_REJECTED
                .fill(
                    lang,
                    &[
                        ("endpoint", endpoint),
                        ("rejected", rejected),
                        ("detail", &said(detail)),
                    ],
                ),
            SendProblem::GaveUp { attempts, last } => t::OTLP_SEND_GAVE_UP.fill(
                lang,
                &[
                    ("attempts", attempts),
                    ("last", &last.message(lang, context)),
                ],
            ),
            SendProblem::Overflow { dropped_runs } => t::OTLP_SEND_OVERFLOW.fill(
                lang,
                &[("dropped_runs", dropped_runs), ("endpoint", endpoint)],
            ),
        }
    }
}

/// How the queue handles an outcome.
#[derive(Debug, Clone, PartialEq)]
enum Classified {
    Accepted {
        partial: Option<SendProblem>,
    },
    Retry {
        after_ms: Option<f64>,
        problem: SendProblem,
    },
    Permanent(SendProblem),
}

/// A `Retry-After` in delay-seconds form, in ms. The HTTP-date form needs a wall clock and
/// falls back to the backoff.
fn retry_after_ms(header: Option<&str>) -> Option<f64> {
    let seconds: f64 = header?.trim().parse().ok()?;
    (seconds.is_finite() && seconds >= 0.0).then(|| (seconds * 1000.0).min(MAX_RETRY_AFTER_MS))
}

/// The collector's message from a `google.rpc.Status` or `partialSuccess` JSON body, cut to
/// 200 bytes and kept on one line.
fn collector_message(text: Option<&str>) -> Option<String> {
    let text = text?.trim();
    if text.is_empty() {
        return None;
    }
    let one_line: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    Some(cut(&one_line, 200))
}

/// The count in a `partialSuccess` field (int64 as a string, or a number).
fn json_count(value: Option<&Value>) -> u64 {
    match value {
        Some(Value::String(text)) => text.parse().unwrap_or(0),
        Some(Value::Number(number)) => number.as_u64().unwrap_or(0),
        _ => 0,
    }
}

fn classify(outcome: &SendOutcome) -> Classified {
    match outcome {
        SendOutcome::NetworkError => Classified::Retry {
            after_ms: None,
            problem: SendProblem::Unreachable,
        },
        SendOutcome::Timeout => Classified::Retry {
            after_ms: None,
            problem: SendProblem::TimedOut,
        },
        SendOutcome::Response {
            status,
            retry_after,
            body,
        } => {
            let json: Option<Value> = serde_json::from_str(body).ok();
            match status {
                200..=299 => {
                    let partial = json.as_ref().and_then(|json| json.get("partialSuccess"));
                    let rejected = partial.map_or(0, |partial| {
                        json_count(partial.get("rejectedDataPoints"))
                            + json_count(partial.get("rejectedSpans"))
                    });
                    Classified::Accepted {
                        partial: (rejected > 0).then(|| SendProblem::PartiallyRejected {
                            rejected,
                            detail: collector_message(
                                partial
                                    .and_then(|partial| partial.get("errorMessage"))
                                    .and_then(Value::as_str),
                            ),
                        }),
                    }
                }
                429 | 502 | 503 | 504 => Classified::Retry {
                    after_ms: retry_after_ms(retry_after.as_deref()),
                    problem: SendProblem::Busy { status: *status },
                },
                _ => Classified::Permanent(SendProblem::Refused {
                    status: *status,
                    detail: collector_message(
                        json.as_ref()
                            .and_then(|json| json.get("message"))
                            .and_then(Value::as_str)
                            .or((!body.trim_start().starts_with('<')).then_some(body.as_str())),
                    ),
                }),
            }
        }
    }
}

/// One recorded run's part of a request: a `ResourceMetrics` or `ResourceSpans` JSON object.
#[derive(Debug, Clone, PartialEq)]
struct Item {
    entry_json: String,
    runs: u64,
}

/// Items sent together, and their attempts so far.
#[derive(Debug, Clone, PartialEq)]
struct Batch {
    items: Vec<Item>,
    attempts: u32,
}

impl Batch {
    fn runs(&self) -> u64 {
        self.items.iter().map(|item| item.runs).sum()
    }

    fn body(&self, signal: Signal) -> String {
        let entries: Vec<&str> = self
            .items
            .iter()
            .map(|item| item.entry_json.as_str())
            .collect();
        format!("{{\"{}\":[{}]}}", signal.list_key(), entries.join(","))
    }
}

/// A batch waiting for its next attempt.
#[derive(Debug, Clone, PartialEq)]
struct Retry {
    batch: Batch,
    next_attempt_at_ms: f64,
}

/// Counts per signal.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SignalStats {
    /// Runs the collector accepted.
    pub sent_runs: u64,
    /// Runs dropped because the queue was full.
    pub dropped_runs: u64,
    /// Runs refused or given up on.
    pub failed_runs: u64,
    /// Runs handed to the `pagehide` flush (their fate is unknown).
    pub flushed_runs: u64,
    /// Runs waiting (queued or awaiting a retry).
    pub waiting_runs: u64,
}

#[derive(Debug, Clone)]
struct Lane {
    signal: Signal,
    items: VecDeque<Item>,
    retry: Option<Retry>,
    stats: SignalStats,
}

impl Lane {
    fn new(signal: Signal) -> Lane {
        Lane {
            signal,
            items: VecDeque::new(),
            retry: None,
            stats: SignalStats::default(),
        }
    }

    fn waiting_runs(&self) -> u64 {
        self.items.iter().map(|item| item.runs).sum::<u64>()
            + self.retry.as_ref().map_or(0, |retry| retry.batch.runs())
    }

    /// The oldest items that fit in `max_bytes` together (at least one).
    fn take_batch(&mut self, max_bytes: usize) -> Option<Batch> {
        let mut items = Vec::new();
        let mut bytes = 32;
        while let Some(next) = self.items.front() {
            if !items.is_empty() && bytes + next.entry_json.len() + 1 > max_bytes {
                break;
            }
            bytes += next.entry_json.len() + 1;
            items.extend(self.items.pop_front());
        }
        (!items.is_empty()).then_some(Batch { items, attempts: 0 })
    }
}

/// What became of a request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Delivery {
    /// Accepted (perhaps partly: see [`QueueStatus::last_problem`]).
    Delivered {
        /// Runs it carried.
        runs: u64,
    },
    /// Will be sent again at `at_ms` (page clock).
    WillRetry {
        /// When.
        at_ms: f64,
        /// Why.
        problem: SendProblem,
    },
    /// Dropped: refused, or out of attempts.
    Dropped {
        /// Why.
        problem: SendProblem,
    },
    /// No request with that id is in flight (a late answer to a flushed request).
    Unknown,
}

/// The queue's state, for the UI.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QueueStatus {
    /// Metrics counts.
    pub metrics: SignalStats,
    /// Traces counts.
    pub traces: SignalStats,
    /// Whether a request is in flight.
    pub in_flight: bool,
    /// The earliest pending retry, ms page clock.
    pub next_attempt_at_ms: Option<f64>,
    /// The last problem seen (cleared by a full success).
    pub last_problem: Option<SendProblem>,
}

/// The queue itself. At most one request is in flight.
#[derive(Debug, Clone)]
pub struct SendQueue {
    config: QueueConfig,
    lanes: [Lane; 2],
    in_flight: Option<(u64, Signal, Batch)>,
    next_id: u64,
    last_problem: Option<SendProblem>,
}

impl SendQueue {
    /// An empty queue.
    pub fn new(config: QueueConfig) -> SendQueue {
        SendQueue {
            config,
            lanes: [Lane::new(Signal::Metrics), Lane::new(Signal::Traces)],
            in_flight: None,
            next_id: 1,
            last_problem: None,
        }
    }

    fn lane_mut(&mut self, signal: Signal) -> &mut Lane {
        match signal {
            Signal::Metrics => &mut self.lanes[0],
            Signal::Traces => &mut self.lanes[1],
        }
    }

    /// Queues one run's `ResourceMetrics` / `ResourceSpans` object (JSON text) covering
    /// `runs` runs. When the signal's queue is full the oldest waiting item is dropped and
    /// counted.
    pub fn push(&mut self, signal: Signal, entry_json: String, runs: u64) {
        let max = self.config.max_queued_items.max(1);
        let lane = self.lane_mut(signal);
        lane.items.push_back(Item { entry_json, runs });
        let mut dropped = 0;
        while lane.items.len() > max {
            dropped += lane.items.pop_front().map_or(0, |item| item.runs);
        }
        if dropped > 0 {
            lane.stats.dropped_runs += dropped;
            let dropped_runs = lane.stats.dropped_runs;
            self.last_problem = Some(SendProblem::Overflow { dropped_runs });
        }
    }

    /// The next request to make now, if any: none while a stream is open (a send could
    /// delay the measured stream's reads), while another is in flight, or before a pending
    /// retry's time. Retries keep their order: a batch waiting for a retry goes before newer
    /// items of its signal.
    pub fn poll(&mut self, now_ms: f64, stream_open: bool) -> Option<OutgoingRequest> {
        if stream_open || self.in_flight.is_some() {
            return None;
        }
        let max_batch_bytes = self.config.max_batch_bytes;
        for index in 0..self.lanes.len() {
            let lane = &mut self.lanes[index];
            let batch = match &lane.retry {
                Some(retry) if retry.next_attempt_at_ms > now_ms => continue,
                Some(_) => lane.retry.take().map(|retry| retry.batch),
                None => lane.take_batch(max_batch_bytes),
            };
            let Some(mut batch) = batch else { continue };
            batch.attempts += 1;
            let signal = lane.signal;
            let id = self.next_id;
            self.next_id += 1;
            let request = OutgoingRequest {
                id,
                signal,
                path: signal.path().to_owned(),
                body: batch.body(signal),
                runs: batch.runs(),
                keepalive: false,
            };
            self.in_flight = Some((id, signal, batch));
            return Some(request);
        }
        None
    }

    /// Records what a request came to. `jitter` is a random number in `[0, 1)` from the glue
    /// (the OTLP specification asks for random jitter between retries).
    pub fn on_outcome(
        &mut self,
        id: u64,
        outcome: &SendOutcome,
        now_ms: f64,
        jitter: f64,
    ) -> Delivery {
        let Some((in_flight_id, signal, batch)) = self.in_flight.take() else {
            return Delivery::Unknown;
        };
        if in_flight_id != id {
            self.in_flight = Some((in_flight_id, signal, batch));
            return Delivery::Unknown;
        }
        let runs = batch.runs();
        let config = self.config.clone();
        match classify(outcome) {
            Classified::Accepted { partial } => {
                self.lane_mut(signal).stats.sent_runs += runs;
                self.last_problem = partial;
                Delivery::Delivered { runs }
            }
            Classified::Permanent(problem) => {
                self.lane_mut(signal).stats.failed_runs += runs;
                self.last_problem = Some(problem.clone());
                Delivery::Dropped { problem }
            }
            Classified::Retry { after_ms, problem } => {
                if batch.attempts >= config.max_attempts {
                    let problem = SendProblem::GaveUp {
                        attempts: batch.attempts,
                        last: Box::new(problem),
                    };
                    self.lane_mut(signal).stats.failed_runs += runs;
                    self.last_problem = Some(problem.clone());
                    return Delivery::Dropped { problem };
                }
                let delay_ms =
                    after_ms.unwrap_or_else(|| backoff_ms(&config, batch.attempts, jitter));
                let at_ms = now_ms + delay_ms;
                self.lane_mut(signal).retry = Some(Retry {
                    batch,
                    next_attempt_at_ms: at_ms,
                });
                self.last_problem = Some(problem.clone());
                Delivery::WillRetry { at_ms, problem }
            }
        }
    }

    /// Everything waiting, as `keepalive` requests for `pagehide` (stream or backoff
    /// notwithstanding: the page is going away). All together stay under
    /// [`KEEPALIVE_BUDGET_BYTES`]; what does not fit is dropped and counted. A request in
    /// flight is left alone.
    pub fn flush_on_pagehide(&mut self) -> Vec<OutgoingRequest> {
        let mut budget = KEEPALIVE_BUDGET_BYTES;
        let mut requests = Vec::new();
        for index in 0..self.lanes.len() {
            let lane = &mut self.lanes[index];
            let mut items: VecDeque<Item> = lane
                .retry
                .take()
                .map(|retry| retry.batch.items)
                .unwrap_or_default()
                .into();
            items.append(&mut lane.items);
            lane.items = items;
            while !lane.items.is_empty() {
                let Some(batch) = lane.take_batch(budget.min(self.config.max_batch_bytes)) else {
                    break;
                };
                let body = batch.body(lane.signal);
                if body.len() > budget {
                    lane.stats.dropped_runs += batch.runs();
                    continue;
                }
                budget -= body.len();
                lane.stats.flushed_runs += batch.runs();
                requests.push(OutgoingRequest {
                    id: self.next_id,
                    signal: lane.signal,
                    path: lane.signal.path().to_owned(),
                    body,
                    runs: batch.runs(),
                    keepalive: true,
                });
                self.next_id += 1;
            }
        }
        requests
    }

    /// Whether a request is in flight (nothing else is sent until its outcome is known).
    pub fn in_flight(&self) -> bool {
        self.in_flight.is_some()
    }

    /// Counts and state for the UI.
    pub fn status(&self) -> QueueStatus {
        let stats = |lane: &Lane| SignalStats {
            waiting_runs: lane.waiting_runs()
                + self
                    .in_flight
                    .as_ref()
                    .filter(|(_, signal, _)| *signal == lane.signal)
                    .map_or(0, |(_, _, batch)| batch.runs()),
            ..lane.stats.clone()
        };
        QueueStatus {
            metrics: stats(&self.lanes[0]),
            traces: stats(&self.lanes[1]),
            in_flight: self.in_flight.is_some(),
            next_attempt_at_ms: self
                .lanes
                .iter()
                .filter_map(|lane| lane.retry.as_ref().map(|retry| retry.next_attempt_at_ms))
                .reduce(f64::min),
            last_problem: self.last_problem.clone(),
        }
    }
}

/// The delay before attempt `attempts + 1`: `initial · 2^(attempts − 1)`, capped, with "equal
/// jitter" (half fixed, half random) so many browsers do not retry in step.
pub fn backoff_ms(config: &QueueConfig, attempts: u32, jitter: f64) -> f64 {
    let exponent = attempts.saturating_sub(1).min(30) as i32;
    let base = (config.initial_backoff_ms * 2f64.powi(exponent)).min(config.max_backoff_ms);
    let jitter = if jitter.is_finite() {
        jitter.clamp(0.0, 1.0)
    } else {
        0.5
    };
    base * (0.5 + 0.5 * jitter)
}
