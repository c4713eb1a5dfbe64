//! OpenTelemetry export: OTLP/HTTP JSON bodies for finished runs, and the queue that sends
//! them without disturbing a measurement.
//!
//! Everything here is pure. The glue passes in what only a browser knows (the
//! [`ResourceFacts`], the [`WallClock`], random [`RunIds`], the time, whether a stream is
//! open) and gets back JSON text to POST. docs/otel.md documents every name and unit, the
//! Collector configuration and example queries.
//!
//! # What is sent, and what never is
//!
//! Per finished run: histograms (`gen_ai.client.*` as the GenAI semantic conventions v1.41.0
//! define them, and ours under `ttft_meter.client.*`, all in seconds), a run counter, and one
//! CLIENT span with events. Names live in [`names`]. Never sent: the key, any header of the
//! model request, the answer, the endpoint's path or query (only host and port), and the
//! prompt, unless the embedder opts in ([`ExportOptions::include_prompt`]).
//!
//! # Typical use by the glue
//!
//! ```
//! use ttft_lab::otlp::*;
//! # use ttft_core::protocol::Protocol;
//! # use ttft_core::record::{RunRecord, RunSettings, Transport};
//! # use ttft_core::timeline::RunTimeline;
//! # let mut timeline = RunTimeline::new(Some(995.0), 1000.0);
//! # timeline.on_headers(1080.0, 200);
//! # timeline.on_stream_end(1300.0);
//! # let settings = RunSettings { protocol: Protocol::OpenAiChat,
//! #     endpoint_url: "http://127.0.0.1:8787/v1/chat/completions".into(), model: "sim-fast".into(),
//! #     dialect: None, max_tokens: None, ttft_only: false, reasoning: false, request: None };
//! # let record = RunRecord { run_index: 1, started_at: String::new(), settings,
//! #     transport: Transport::Worker, cold: None, warm_up: false, metrics: timeline.metrics(),
//! #     instants: timeline.instants.clone(), usage: None, network: None,
//! #     outcome: timeline.outcome.clone(), diagnosis_cause: None, diagnosis: None,
//! #     experiment: None, arrival_delay_bound_ms: None, arrivals_wait_for_main_thread: None };
//! let resource = ResourceFacts {
//!     service_name: String::new(),
//!     service_version: "0.1.0".into(),
//!     service_instance_id: "4f1c…".into(),
//!     page_origin: "https://docs.example.com".into(),
//!     user_agent: "Mozilla/5.0 … Chrome/156.0.0.0 Safari/537.36".into(),
//!     brands: vec![],
//!     platform: None,
//!     mobile: None,
//!     language: Some("en-US".into()),
//!     connection: None,
//!     cross_origin_isolated: true,
//! };
//! let clock = WallClock { time_origin_unix_ms: 1_764_000_000_000.0 };
//! let mut exporter =
//!     OtlpExporter::new(resource, clock, ExportOptions::default(), QueueConfig::default());
//! let ids = RunIds {
//!     trace_id: TraceId::from_bytes([7; 16]).unwrap(),
//!     span_id: SpanId::from_bytes([9; 8]).unwrap(),
//! };
//! exporter.record_run(record, ids).unwrap();
//! // Between runs (never while a stream is open):
//! let request = exporter.poll(1500.0, false).unwrap().unwrap();
//! assert_eq!(request.path, "/v1/metrics");
//! // … fetch(endpoint + request.path, {method: "POST", body: request.body, …}) …
//! let delivery = exporter.on_outcome(
//!     request.id,
//!     &SendOutcome::Response { status: 200, retry_after: None, body: "{}".into() },
//!     1520.0,
//!     0.3,
//! );
//! assert_eq!(delivery, Delivery::Delivered { runs: 1 });
//! ```

mod config;
mod json;
mod metrics;
pub mod names;
mod queue;
mod resource;
mod run;
mod traces;

pub use config::{
    OtlpConfigError, OtlpEndpoint, OtlpHeaders, MAX_ENDPOINT_BYTES, MAX_HEADERS, MAX_HEADERS_BYTES,
};
pub use metrics::{metrics_request, resource_metrics, DeltaWindow};
pub use queue::{
    backoff_ms, Delivery, OutgoingRequest, ProblemContext, QueueConfig, QueueStatus, SendOutcome,
    SendProblem, SendQueue, Signal, SignalStats, KEEPALIVE_BUDGET_BYTES, MAX_RETRY_AFTER_MS,
};
pub use resource::{
    browser_from_user_agent, connection_type, BrowserName, ConnectionFacts, ResourceFacts, RunIds,
    SpanId, TraceId, WallClock,
};
pub use run::{error_type, provider_name, ServerAddress};
pub use traces::{resource_spans, span, traces_request, MAX_PROMPT_BYTES};

use crate::slo::SloSet;
use ttft_core::record::RunRecord;

/// Choices of the embedder or user that shape what is sent.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ExportOptions {
    /// `gen_ai.provider.name` to send instead of the one derived from the endpoint
    /// ([`provider_name`]).
    pub provider_name: Option<String>,
    /// Send the prompt as `gen_ai.input.messages` on spans (cut to [`MAX_PROMPT_BYTES`]).
    /// Off unless the embedder explicitly opts in.
    pub include_prompt: bool,
    /// SLOs: the run counter then says whether each run met them.
    pub slo: Option<SloSet>,
}

/// A body could not be built.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum OtlpError {
    /// The resource has no `service.instance.id`.
    #[error("The OTLP resource has no service.instance.id; the page must make one (a random UUID) per session.")]
    MissingInstanceId,
    /// A trace or span id of zeros (invalid in OTLP and W3C Trace Context).
    #[error("The {what} is all zeros, which OTLP treats as invalid; make it from random bytes.")]
    ZeroId {
        /// `trace id` or `span id`.
        what: &'static str,
    },
    /// A page-clock instant that cannot be placed on the wall clock.
    #[error("The instant {page_ms} ms cannot be converted to wall-clock time; check performance.timeOrigin.")]
    TimeOutOfRange {
        /// The instant.
        page_ms: f64,
    },
    /// A metrics window that ends before it starts.
    #[error("A metrics window ends before it starts; times must come from one clock.")]
    WindowBackwards,
}

/// The export of one page session: builds each finished run's span at once, and the
/// metrics of all runs recorded since the last send as one aggregated delta when a send can
/// happen (so ten runs cost one set of histogram points, not ten).
#[derive(Debug, Clone)]
pub struct OtlpExporter {
    resource: ResourceFacts,
    clock: WallClock,
    options: ExportOptions,
    queue: SendQueue,
    max_pending_runs: usize,
    /// Runs whose metrics are not built yet (request bodies dropped: the prompt is not
    /// needed for metrics and can be large).
    pending_metric_runs: Vec<RunRecord>,
    /// Runs dropped from `pending_metric_runs` because it was full.
    dropped_metric_runs: u64,
    last_window_end_unix_nanos: Option<u64>,
}

impl OtlpExporter {
    /// A new session's exporter.
    pub fn new(
        resource: ResourceFacts,
        clock: WallClock,
        options: ExportOptions,
        config: QueueConfig,
    ) -> OtlpExporter {
        OtlpExporter {
            resource,
            clock,
            options,
            max_pending_runs: config.max_queued_items.max(1),
            queue: SendQueue::new(config),
            pending_metric_runs: Vec::new(),
            dropped_metric_runs: 0,
            last_window_end_unix_nanos: None,
        }
    }

    /// New resource facts (the connection changed); they apply to what is built from now.
    pub fn set_resource(&mut self, resource: ResourceFacts) {
        self.resource = resource;
    }

    /// New options (SLOs changed); they apply to what is built from now.
    pub fn set_options(&mut self, options: ExportOptions) {
        self.options = options;
    }

    /// Queues a finished run: its span now, its metrics with the next send. A run never
    /// sent, or still streaming, queues nothing.
    pub fn record_run(&mut self, record: RunRecord, ids: RunIds) -> Result<(), OtlpError> {
        let record = record.redacted();
        if self
            .clock
            .unix_nanos(record.instants.request_started)
            .is_none()
        {
            return Err(OtlpError::TimeOutOfRange {
                page_ms: record.instants.request_started,
            });
        }
        let runs = [(record, ids)];
        if let Some(spans) = resource_spans(&runs, &self.resource, &self.clock, &self.options)? {
            self.queue.push(Signal::Traces, spans.to_string(), 1);
        }
        let [(mut record, _)] = runs;
        record.settings.request = None;
        self.pending_metric_runs.push(record);
        if self.pending_metric_runs.len() > self.max_pending_runs {
            self.pending_metric_runs.remove(0);
            self.dropped_metric_runs += 1;
        }
        Ok(())
    }

    /// Builds the metrics of the pending runs as one delta from the end of the previous
    /// window (or the first run's start) to `now_ms`, and queues it.
    fn build_pending_metrics(&mut self, now_ms: f64) -> Result<(), OtlpError> {
        let Some(first) = self.pending_metric_runs.first() else {
            return Ok(());
        };
        let first_start = first.instants.request_started;
        let start = match self.last_window_end_unix_nanos {
            Some(end) => end,
            None => self
                .clock
                .unix_nanos(first_start)
                .ok_or(OtlpError::TimeOutOfRange {
                    page_ms: first_start,
                })?,
        };
        let now = self
            .clock
            .unix_nanos(now_ms)
            .ok_or(OtlpError::TimeOutOfRange { page_ms: now_ms })?;
        let window = DeltaWindow {
            start_unix_nanos: start,
            end_unix_nanos: now.max(start),
        };
        let runs = std::mem::take(&mut self.pending_metric_runs);
        if let Some(entry) = resource_metrics(&runs, &self.resource, window, &self.options)? {
            self.last_window_end_unix_nanos = Some(window.end_unix_nanos);
            self.queue
                .push(Signal::Metrics, entry.to_string(), runs.len() as u64);
        }
        Ok(())
    }

    /// The next request to make (see [`SendQueue::poll`]); when a send can happen, the
    /// metrics of the runs recorded since the last one are built first, covering up to
    /// `now_ms`.
    pub fn poll(
        &mut self,
        now_ms: f64,
        stream_open: bool,
    ) -> Result<Option<OutgoingRequest>, OtlpError> {
        if stream_open || self.queue.in_flight() {
            return Ok(None);
        }
        self.build_pending_metrics(now_ms)?;
        Ok(self.queue.poll(now_ms, stream_open))
    }

    /// What a request came to (see [`SendQueue::on_outcome`]).
    pub fn on_outcome(
        &mut self,
        id: u64,
        outcome: &SendOutcome,
        now_ms: f64,
        jitter: f64,
    ) -> Delivery {
        self.queue.on_outcome(id, outcome, now_ms, jitter)
    }

    /// Everything waiting, for `fetch(…, {keepalive: true})` on `pagehide` (see
    /// [`SendQueue::flush_on_pagehide`]); pending metrics are built up to `now_ms` first.
    pub fn flush_on_pagehide(&mut self, now_ms: f64) -> Result<Vec<OutgoingRequest>, OtlpError> {
        self.build_pending_metrics(now_ms)?;
        Ok(self.queue.flush_on_pagehide())
    }

    /// Counts and the last problem, for the UI. Runs whose metrics are not built yet count
    /// as waiting.
    pub fn status(&self) -> QueueStatus {
        let mut status = self.queue.status();
        status.metrics.waiting_runs += self.pending_metric_runs.len() as u64;
        status.metrics.dropped_runs += self.dropped_metric_runs;
        status
    }
}
