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
//! #     transport: Transport::Worker, cold: None, connection_evidence: None, warm_up: false, metrics: timeline.metrics(),
//! #     instants: timeline.instants.clone(), usage: None, network: None,
//! #     outcome: timeline.outcome.clone(), diagnosis_cause: None, diagnosis: None,
//! #     experiment: None, arrival_delay_bound_ms: None, arrivals_wait_for_main_thread: None, main_thread_stall_ms: None,
//! #     server_account: None, breakdown: None, timer: None, relay: None,
//! #     buffered_arrival: None };
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
mod exporter;
mod json;
mod metrics;
pub mod names;
mod options;
mod queue;
mod resource;
mod run;
mod traces;
pub use config::{
    OtlpConfigError, OtlpEndpoint, OtlpHeaders, MAX_ENDPOINT_BYTES, MAX_HEADERS, MAX_HEADERS_BYTES,
};
pub use exporter::OtlpExporter;
pub use metrics::{metrics_request, resource_metrics, DeltaWindow};
pub use options::{ExportOptions, OtlpError};
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
