//! The live run's state ([`LiveRun`]): status, progress, the readouts' values and the
//! streamed texts, fed by the run's progress.

use super::streamed_text::{StreamedText, REASONING_FLUSH_MS};
use crate::clock;
use crate::texts as t;
use leptos::prelude::*;
use ttft_core::measure::{Channel, InputError, Progress};
use ttft_core::record::RunRecord;
use ttft_core::text::Text;

/// Where the run shown stands, as `data-state` says it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunStatus {
    /// Nothing running.
    Ready,
    /// Sent; no answer token yet.
    Waiting,
    /// The answer is streaming.
    Streaming,
    /// The run ended as planned.
    Done,
    /// The run failed (its diagnosis is shown).
    Failed,
    /// The form was refused before anything was sent.
    InvalidInput,
}

impl RunStatus {
    /// The code for `data-state` and tests.
    pub fn code(self) -> &'static str {
        match self {
            RunStatus::Ready => "ready",
            RunStatus::Waiting => "waiting",
            RunStatus::Streaming => "streaming",
            RunStatus::Done => "done",
            RunStatus::Failed => "failed",
            RunStatus::InvalidInput => "invalid input",
        }
    }

    /// The one-line state shown beside Send.
    pub fn text(self) -> Text {
        match self {
            RunStatus::Ready => t::STATUS_READY,
            RunStatus::Waiting => t::STATUS_WAITING,
            RunStatus::Streaming => t::STATUS_STREAMING,
            RunStatus::Done => t::STATUS_DONE,
            RunStatus::Failed => t::STATUS_FAILED,
            RunStatus::InvalidInput => t::STATUS_INVALID_INPUT,
        }
    }
}

/// The live state of the current (or last) run.
#[derive(Clone, Copy)]
pub struct LiveRun {
    /// A series of runs is in progress.
    pub streaming: RwSignal<bool>,
    /// Run `n` of `total` of the current series (warm-up included).
    pub progress: RwSignal<(usize, usize)>,
    pub(crate) reasoning: StreamedText,
    pub(crate) answer: StreamedText,
    pub(crate) ttfa_ms: RwSignal<Option<f64>>,
    pub(crate) ttfr_ms: RwSignal<Option<f64>>,
    pub(crate) first_chunk_ms: RwSignal<Option<f64>>,
    pub(crate) perceived_ttfa_ms: RwSignal<Option<f64>>,
    pub(crate) started_ms: RwSignal<Option<f64>>,
    /// The finished run's `e2e_ms` (or the time to its failure).
    pub(crate) elapsed_ms: RwSignal<Option<f64>>,
    /// Whole seconds since the run started, while it runs (from its first second on).
    pub(crate) running_s: RwSignal<Option<u32>>,
    /// Where the run stands.
    pub status: RwSignal<RunStatus>,
    /// An input problem found before any request.
    pub input_error: RwSignal<Option<InputError>>,
    /// The last finished run, when it failed (its diagnosis is shown).
    pub(crate) failed: RwSignal<Option<RunRecord>>,
    /// The last finished run's arrival-delay bound, when its arrivals waited for the main
    /// thread (WebKit, the main-thread transport), and whether it is over the threshold.
    pub(crate) arrival_delay: RwSignal<Option<(f64, bool)>>,
    /// The run's main-thread stall, ms, when over the threshold.
    pub(crate) stall_ms: RwSignal<Option<f64>>,
    /// The last finished run's wait, part by part (runs that got an answer token).
    pub breakdown: RwSignal<Option<ttft_core::timeline::WaitBreakdown>>,
    /// The last finished run's answer arrived all at once after a long silence (a buffer).
    pub(crate) buffered: RwSignal<Option<ttft_core::timeline::BufferedArrival>>,
    /// Counts runs shown: an update deferred past a frame applies only to its own run.
    pub(crate) shown_run: StoredValue<u32, LocalStorage>,
    /// The first answer text is on its way to the screen: the elapsed counter waits.
    pub(crate) first_paint_pending: StoredValue<bool, LocalStorage>,
    /// A run streamed reasoning since the page last measured another endpoint or model:
    /// the reasoning pane stays (empty until the next run's reasoning comes), so that the
    /// answer pane below it does not move between runs, nor between series of the same model.
    pub(crate) reasoning_seen: RwSignal<bool>,
    /// What the last series measured (its URL and model): a series of another resets
    /// `reasoning_seen`.
    measured: StoredValue<String, LocalStorage>,
}

impl LiveRun {
    /// A run view with nothing in it.
    pub fn new() -> Self {
        Self {
            streaming: RwSignal::new(false),
            progress: RwSignal::new((0, 0)),
            reasoning: StreamedText::new(REASONING_FLUSH_MS),
            answer: StreamedText::new(0.0),
            ttfa_ms: RwSignal::new(None),
            ttfr_ms: RwSignal::new(None),
            first_chunk_ms: RwSignal::new(None),
            perceived_ttfa_ms: RwSignal::new(None),
            started_ms: RwSignal::new(None),
            elapsed_ms: RwSignal::new(None),
            running_s: RwSignal::new(None),
            status: RwSignal::new(RunStatus::Ready),
            input_error: RwSignal::new(None),
            failed: RwSignal::new(None),
            arrival_delay: RwSignal::new(None),
            stall_ms: RwSignal::new(None),
            breakdown: RwSignal::new(None),
            buffered: RwSignal::new(None),
            shown_run: StoredValue::new_local(0),
            first_paint_pending: StoredValue::new_local(false),
            reasoning_seen: RwSignal::new(false),
            measured: StoredValue::new_local(String::new()),
        }
    }

    /// A new series of `plan` starts: the reasoning pane's place is kept for the same URL
    /// and model, and given up for another.
    pub fn begin_series(&self, plan: &ttft_core::measure::RunPlan) {
        let measured = format!("{} {}", plan.request().url, plan.settings(None).model);
        if self.measured.with_value(|last| *last != measured) {
            self.measured.set_value(measured);
            self.reasoning_seen.set(false);
        }
    }

    /// Whether the reasoning pane is shown: while this run has reasoning, or an earlier run
    /// of the series had.
    pub fn shows_reasoning(&self) -> bool {
        self.reasoning_seen.get() || !self.reasoning.is_empty()
    }

    /// Runs `update` after the next frame has been rendered, if the same run is still
    /// shown: the frame that paints a first text is left to that text alone (readouts and
    /// status change in the frame after).
    fn after_next_frame(&self, update: impl FnOnce(LiveRun) + 'static) {
        let this = *self;
        let run = self.shown_run.get_value();
        crate::paint::after_next_frame(move || {
            if this.shown_run.get_value() == run {
                update(this);
            }
        });
    }

    /// Clears the view for the next run.
    pub fn reset(&self) {
        self.shown_run
            .update_value(|run| *run = run.wrapping_add(1));
        self.first_paint_pending.set_value(false);
        self.arrival_delay.set(None);
        self.stall_ms.set(None);
        self.breakdown.set(None);
        self.buffered.set(None);
        self.reasoning.clear();
        self.answer.clear();
        self.ttfa_ms.set(None);
        self.ttfr_ms.set(None);
        self.first_chunk_ms.set(None);
        self.perceived_ttfa_ms.set(None);
        self.elapsed_ms.set(None);
        self.running_s.set(None);
        self.started_ms.set(Some(clock::now_ms()));
        self.failed.set(None);
        self.input_error.set(None);
    }

    /// The form was refused: nothing is sent, and the view says why.
    pub fn refuse(&self, error: InputError) {
        self.reset();
        self.started_ms.set(None);
        self.input_error.set(Some(error));
        self.status.set(RunStatus::InvalidInput);
    }

    /// Advances the elapsed counter (called every [`ELAPSED_TICK_MS`] while a series runs):
    /// whole seconds, changed only when the second changes.
    pub fn tick(&self) {
        if self.first_paint_pending.get_value() {
            return;
        }
        let Some(started_ms) = self.started_ms.get_untracked() else {
            return;
        };
        let whole_s = ((clock::now_ms() - started_ms) / 1000.0).floor();
        if whole_s >= 1.0 && self.running_s.get_untracked() != Some(whole_s as u32) {
            self.running_s.set(Some(whole_s as u32));
        }
    }

    /// The request was sent.
    pub fn sent(&self) {
        self.status.set(RunStatus::Waiting);
    }

    /// Shows one step of the run. Only the streamed text changes at once; the readouts and
    /// the status follow a frame later, so the frame that paints a first text does nothing
    /// else (its paint time is what is measured).
    pub fn apply(&self, progress: &Progress) {
        match progress {
            Progress::FirstChunk { first_chunk_ms } => {
                let first_chunk_ms = *first_chunk_ms;
                self.after_next_frame(move |live| live.first_chunk_ms.set(Some(first_chunk_ms)));
            }
            Progress::Text {
                channel,
                text,
                first_token_ms,
                paint_id,
            } => match channel {
                Channel::Reasoning => {
                    self.reasoning.push(text, paint_id.clone());
                    if !self.reasoning_seen.get_untracked() {
                        self.reasoning_seen.set(true);
                    }
                    if let Some(ttfr_ms) = *first_token_ms {
                        self.after_next_frame(move |live| live.ttfr_ms.set(Some(ttfr_ms)));
                    }
                }
                Channel::Answer => {
                    if paint_id.is_some() {
                        self.first_paint_pending.set_value(true);
                    }
                    self.answer.push(text, paint_id.clone());
                    if let Some(ttfa_ms) = *first_token_ms {
                        self.after_next_frame(move |live| {
                            live.first_paint_pending.set_value(false);
                            live.ttfa_ms.set(Some(ttfa_ms));
                            if live.status.get_untracked() == RunStatus::Waiting {
                                live.status.set(RunStatus::Streaming);
                            }
                        });
                    }
                }
            },
        }
    }

    /// Shows the run's end: its final numbers and, when it failed, its diagnosis.
    pub fn finish(&self, record: &RunRecord) {
        // Whatever arrived since the last frame is shown now, with the result.
        self.reasoning.flush();
        self.answer.flush();
        let metrics = &record.metrics;
        self.ttfa_ms.set(metrics.ttfa_ms);
        self.ttfr_ms.set(metrics.ttfr_ms);
        self.first_chunk_ms.set(metrics.first_chunk_ms);
        self.perceived_ttfa_ms.set(metrics.perceived_ttfa_ms);
        let since_start_ms = self
            .started_ms
            .get_untracked()
            .map(|started_ms| clock::now_ms() - started_ms);
        self.elapsed_ms.set(metrics.e2e_ms.or(since_start_ms));
        self.running_s.set(None);
        self.started_ms.set(None);
        self.first_paint_pending.set_value(false);
        let waits = record.arrivals_wait_for_main_thread == Some(true);
        self.arrival_delay.set(
            record
                .arrival_delay_bound_ms
                .filter(|_| waits)
                .map(|bound_ms| (bound_ms, record.arrival_delayed())),
        );
        self.stall_ms
            .set(record.main_thread_stall_ms.filter(|_| record.stalled()));
        let failed = !record.is_ok();
        self.breakdown.set(record.breakdown.clone());
        self.buffered.set(record.buffered_arrival);
        self.failed.set(failed.then(|| record.clone()));
        self.status.set(if failed {
            RunStatus::Failed
        } else {
            RunStatus::Done
        });
    }
}

impl Default for LiveRun {
    fn default() -> Self {
        Self::new()
    }
}

/// How often the elapsed counter is looked at while a series runs (ms). Each change of the
/// counter costs the page a frame, and a first answer token that arrives while such a frame
/// is in flight waits for the next one: with a 100 ms tick (whole ms shown) the first
/// answer's paint delay p95 was 22–24 ms against 12–15 ms without a tick (bench/REPORT.md,
/// 2026-12-02). Whole seconds, looked at four times a second (a timer callback, no frame)
/// and changed once a second, leave one frame per second.
pub const ELAPSED_TICK_MS: u64 = 250;
