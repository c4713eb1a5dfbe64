//! One session's exporter: the send queue with the spans and the metrics of the runs
//! recorded since the last send.

use super::metrics::{resource_metrics, DeltaWindow};
use super::options::{ExportOptions, OtlpError};
use super::queue::{
    Delivery, OutgoingRequest, QueueConfig, QueueStatus, SendOutcome, SendQueue, Signal,
};
use super::resource::{ResourceFacts, RunIds, WallClock};
use super::traces::resource_spans;
use ttft_core::record::RunRecord;

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
