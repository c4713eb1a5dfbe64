//! The run in progress: controls, headline numbers, elapsed time, and the streamed text.

use leptos::prelude::*;
use leptos::tachys::html::attribute::custom::CustomAttribute;
use ttft_core::blocks::plan_blocks;
use ttft_core::measure::{cut_note, Channel, InputError, Progress, ShownText};
use ttft_core::record::RunRecord;

use crate::clock;
use crate::i18n::use_i18n;

/// Streamed text split around its first painted piece: the first (visible) text goes into
/// a fresh element with a unique `elementtiming` name so its paint can be timed.
///
/// The rest of a long answer is appended, never re-rendered: text that arrives between two
/// frames is batched and added as one text node at the next animation frame, so a
/// 100,000-token answer costs the page work in proportion to each piece, not to the whole.
#[derive(Clone, Copy)]
pub struct StreamedText {
    lead: RwSignal<String>,
    first: RwSignal<Option<(String, String)>>,
    /// Bytes of text appended after the first piece (drawn or pending).
    rest_len: RwSignal<usize>,
    rest_node: NodeRef<leptos::html::Span>,
    pending: StoredValue<String, LocalStorage>,
    flush_scheduled: StoredValue<bool, LocalStorage>,
    /// The block the next text goes into (`None`: the inline `rest` span itself).
    chunk: StoredValue<Option<web_sys::Element>, LocalStorage>,
    /// Bytes in that block.
    chunk_len: StoredValue<usize, LocalStorage>,
    /// 0: append at every animation frame; else at most every this many ms (reasoning text,
    /// which streams while the run still waits for its first answer token).
    throttle_ms: f64,
    /// The first piece was just set: the rest waits one more frame, so the first text is
    /// laid out and painted alone.
    hold_one_frame: StoredValue<bool, LocalStorage>,
    /// How much was shown: the first `MAX_SHOWN_TEXT_BYTES`, then the text is cut.
    shown: StoredValue<ShownText, LocalStorage>,
    /// Whether the text was cut (a note says so).
    cut: RwSignal<bool>,
}

/// Reasoning text is appended at most this often (ms): it streams while the run waits for
/// its first answer token, when the page should leave the main thread alone (in WebKit the
/// answer's arrival waits for it), and nobody reads thinking at 60 frames per second.
const REASONING_FLUSH_MS: f64 = 200.0;

impl StreamedText {
    fn new(throttle_ms: f64) -> Self {
        Self {
            lead: RwSignal::new(String::new()),
            first: RwSignal::new(None),
            rest_len: RwSignal::new(0),
            rest_node: NodeRef::new(),
            pending: StoredValue::new_local(String::new()),
            flush_scheduled: StoredValue::new_local(false),
            chunk: StoredValue::new_local(None),
            chunk_len: StoredValue::new_local(0),
            throttle_ms,
            hold_one_frame: StoredValue::new_local(false),
            shown: StoredValue::new_local(ShownText::default()),
            cut: RwSignal::new(false),
        }
    }

    fn clear(&self) {
        self.hold_one_frame.set_value(false);
        self.lead.set(String::new());
        self.first.set(None);
        self.rest_len.set(0);
        self.pending.update_value(String::clear);
        self.chunk.set_value(None);
        self.chunk_len.set_value(0);
        self.shown.set_value(ShownText::default());
        self.cut.set(false);
        if let Some(node) = self.rest_node.get_untracked() {
            node.set_text_content(None);
        }
    }

    fn push(&self, text: &str, paint_id: Option<String>) {
        // Only the first MAX_SHOWN_TEXT_BYTES are shown; the measurement goes on.
        let text = self
            .shown
            .try_update_value(|shown| shown.admit(text).to_owned())
            .unwrap_or_default();
        if !self.cut.get_untracked() && self.shown.with_value(ShownText::is_cut) {
            self.cut.set(true);
        }
        if text.is_empty() {
            return;
        }
        if let Some(paint_id) = paint_id {
            self.first.set(Some((paint_id, text)));
            self.hold_one_frame.set_value(true);
        } else if self.first.with_untracked(Option::is_none) {
            self.lead.update(|lead| lead.push_str(&text));
        } else {
            // Only "is there any" is shown reactively: no effect runs per token.
            if self.rest_len.get_untracked() == 0 {
                self.rest_len.set(text.len());
            } else {
                self.rest_len
                    .update_untracked(|rest_len| *rest_len += text.len());
            }
            self.pending.update_value(|pending| pending.push_str(&text));
            self.schedule_flush();
        }
    }

    fn schedule_flush(&self) {
        if self.flush_scheduled.get_value() {
            return;
        }
        let this = *self;
        let callback = wasm_bindgen::closure::Closure::once_into_js(move || {
            this.flush_scheduled.set_value(false);
            if this.hold_one_frame.get_value() {
                // The frame that paints the first text: the rest goes into the next one.
                this.hold_one_frame.set_value(false);
                return this.schedule_flush();
            }
            this.flush();
        });
        let scheduled = web_sys::window().is_some_and(|window| {
            let callback = wasm_bindgen::JsCast::unchecked_ref(&callback);
            if self.throttle_ms > 0.0 {
                window
                    .set_timeout_with_callback_and_timeout_and_arguments_0(
                        callback,
                        self.throttle_ms as i32,
                    )
                    .is_ok()
            } else {
                window.request_animation_frame(callback).is_ok()
            }
        });
        self.flush_scheduled.set_value(scheduled);
    }

    /// Appends the pending text (plain text, never HTML) to the current block, starting a
    /// new block after each line break that completes 4 KB ([`plan_blocks`]).
    fn flush(&self) {
        let Some(node) = self.rest_node.get_untracked() else {
            // Not mounted yet (the pane appears with its first text): try next frame.
            if !self.pending.with_value(String::is_empty) {
                self.schedule_flush();
            }
            return;
        };
        let pending = self
            .pending
            .try_update_value(std::mem::take)
            .unwrap_or_default();
        if pending.is_empty() {
            return;
        }
        let rest: web_sys::Element = node.into();
        let mut current = self.chunk.get_value().unwrap_or_else(|| rest.clone());
        // ttft-core decides the cuts: every line break that completes 4 KB starts a block,
        // however much text this frame brings.
        let plan = plan_blocks(self.chunk_len.get_value(), &pending);
        for piece in &plan.pieces {
            if piece.new_block {
                if let Some(block) = new_block(&rest) {
                    current = block;
                }
            }
            if !piece.text.is_empty() {
                let _ = current.append_with_str_1(piece.text);
            }
        }
        if !current.is_same_node(Some(&rest)) {
            self.chunk.set_value(Some(current));
        }
        self.chunk_len.set_value(plan.filled);
    }

    fn is_empty(&self) -> bool {
        self.lead.with(String::is_empty)
            && self.first.with(Option::is_none)
            && self.rest_len.get() == 0
    }
}

/// A new block (`<span class="chunk">`, a block box) at the end of `rest`.
fn new_block(rest: &web_sys::Element) -> Option<web_sys::Element> {
    let block = rest.owner_document()?.create_element("span").ok()?;
    block.set_class_name("chunk");
    rest.append_child(&block).ok()?;
    Some(block)
}

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

    /// The one-line state shown beside Send (en, zh).
    pub fn text(self) -> (&'static str, &'static str) {
        match self {
            RunStatus::Ready => ("Ready.", "就绪。"),
            RunStatus::Waiting => ("Waiting for the first token…", "正在等待首个 token…"),
            RunStatus::Streaming => ("Streaming…", "正在接收…"),
            RunStatus::Done => ("Done.", "完成。"),
            RunStatus::Failed => ("The run failed; see why below.", "运行失败，原因见下方。"),
            RunStatus::InvalidInput => ("Check the input.", "请检查输入。"),
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
    reasoning: StreamedText,
    answer: StreamedText,
    ttfa_ms: RwSignal<Option<f64>>,
    ttfr_ms: RwSignal<Option<f64>>,
    first_chunk_ms: RwSignal<Option<f64>>,
    perceived_ttfa_ms: RwSignal<Option<f64>>,
    started_ms: RwSignal<Option<f64>>,
    /// The finished run's `e2e_ms` (or the time to its failure).
    elapsed_ms: RwSignal<Option<f64>>,
    /// Whole seconds since the run started, while it runs (from its first second on).
    running_s: RwSignal<Option<u32>>,
    /// Where the run stands.
    pub status: RwSignal<RunStatus>,
    /// An input problem found before any request.
    pub input_error: RwSignal<Option<InputError>>,
    /// The last finished run, when it failed (its diagnosis is shown).
    failed: RwSignal<Option<RunRecord>>,
    /// The last finished run's arrival-delay bound, when its arrivals waited for the main
    /// thread (WebKit, the main-thread transport), and whether it is over the threshold.
    arrival_delay: RwSignal<Option<(f64, bool)>>,
    /// Counts runs shown: an update deferred past a frame applies only to its own run.
    shown_run: StoredValue<u32, LocalStorage>,
    /// The first answer text is on its way to the screen: the elapsed counter waits.
    first_paint_pending: StoredValue<bool, LocalStorage>,
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
            shown_run: StoredValue::new_local(0),
            first_paint_pending: StoredValue::new_local(false),
        }
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
        let failed = !record.is_ok();
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

/// Milliseconds for display: whole ms, or "—" when missing.
pub fn format_ms(value_ms: Option<f64>) -> String {
    value_ms.map_or_else(|| "—".into(), |value_ms| format!("{value_ms:.0} ms"))
}

fn raw_ms(value_ms: Option<f64>) -> String {
    value_ms
        .map(|value_ms| format!("{value_ms:.3}"))
        .unwrap_or_default()
}

/// One headline number; `data-ms` holds the exact value for tests and scripts.
#[component]
fn Readout(
    /// `data-testid`.
    test_id: &'static str,
    /// The label.
    #[prop(into)]
    label: Signal<&'static str>,
    /// The metric name shown under the value.
    note: &'static str,
    /// The value.
    value_ms: RwSignal<Option<f64>>,
    /// While there is no value yet: whole seconds so far, shown as "3 s…".
    #[prop(optional)]
    running_s: Option<RwSignal<Option<u32>>>,
) -> impl IntoView {
    let shown = move || match (
        value_ms.get(),
        running_s.and_then(|running_s| running_s.get()),
    ) {
        (None, Some(whole_s)) => format!("{whole_s} s…"),
        (value_ms, _) => format_ms(value_ms),
    };
    view! {
        <div class="readout">
            <div class="label">{label}</div>
            <div class="value" data-testid=test_id data-ms=move || raw_ms(value_ms.get())>
                {shown}
            </div>
            <div class="note">{note}</div>
        </div>
    }
}

/// The headline numbers of the current run, the elapsed counter and the timer resolution.
#[component]
pub fn Readouts(
    /// The run being shown.
    live: LiveRun,
) -> impl IntoView {
    let i18n = use_i18n();
    let resolution = clock::timer_resolution_ms();
    let isolated = clock::cross_origin_isolated();
    view! {
        <div class="readouts">
            <Readout
                test_id="ttfa"
                label=Signal::derive(move || i18n.t("First answer token", "首个回答 token"))
                note="ttfa_ms"
                value_ms=live.ttfa_ms
            />
            <Readout
                test_id="perceived-ttfa"
                label=Signal::derive(move || i18n.t("First answer on screen", "回答首次显示"))
                note="perceived_ttfa_ms"
                value_ms=live.perceived_ttfa_ms
            />
            <Readout
                test_id="ttfr"
                label=Signal::derive(move || i18n.t("First reasoning token", "首个推理 token"))
                note="ttfr_ms"
                value_ms=live.ttfr_ms
            />
            <Readout
                test_id="first-chunk"
                label=Signal::derive(move || i18n.t("First chunk of any kind", "首个数据块"))
                note="first_chunk_ms"
                value_ms=live.first_chunk_ms
            />
            <Readout
                test_id="elapsed"
                label=Signal::derive(move || i18n.t("Elapsed", "已用时间"))
                note="e2e_ms"
                value_ms=live.elapsed_ms
                running_s=live.running_s
            />
        </div>
        {move || live.arrival_delay.get().map(|(bound_ms, flagged)| {
            view! {
                <p
                    class="meta arrival-delay"
                    class:flagged=flagged
                    data-testid="arrival-delay"
                    data-ms=format!("{bound_ms:.3}")
                    data-flagged=flagged.to_string()
                >
                    {move || i18n.pick(
                        format!(
                            "Arrival times may be late by up to {bound_ms:.0} ms{}: this browser hands a worker's network traffic to the page's main thread, which was busy that long while the run waited for its first answer token.",
                            if flagged { " (over 50 ms: read this run's times with care)" } else { "" },
                        ),
                        format!(
                            "到达时间最多可能偏晚 {bound_ms:.0} ms{}：此浏览器的 Worker 网络数据需经页面主线程传递，而在等待首个回答 token 期间主线程曾繁忙这么久。",
                            if flagged { "（超过 50 ms：请谨慎看待本次运行的时间）" } else { "" },
                        ),
                    )}
                </p>
            }
        })}
        <p class="meta" data-testid="timer-resolution" data-step-ms=resolution.map(|step_ms| format!("{step_ms}")).unwrap_or_default()>
            {move || match resolution {
                Some(step_ms) => {
                    i18n.pick(
                        format!(
                            "Timer step {step_ms:.3} ms{}",
                            if isolated { " (cross-origin isolated)" } else { " (not isolated: serve with COOP/COEP for 5 µs steps)" },
                        ),
                        format!(
                            "计时精度 {step_ms:.3} ms{}",
                            if isolated { "（已跨源隔离）" } else { "（未隔离：使用 COOP/COEP 可达 5 µs）" },
                        ),
                    )
                }
                None => i18n.t("Timer step unknown", "计时精度未知").to_string(),
            }}
        </p>
    }
}

/// The failure of a run, with its cause and the fix, in the page's language. A run read
/// from a schema-1 history has only its cause code, which is shown as it is.
#[component]
pub fn DiagnosisBox(
    /// The failed run.
    record: RunRecord,
) -> impl IntoView {
    let i18n = use_i18n();
    let cause_code = record.diagnosis_cause.clone().unwrap_or_default();
    let diagnosis = record.diagnosis.clone();
    let code = cause_code.clone();
    let title = {
        let diagnosis = diagnosis.clone();
        move || {
            diagnosis
                .as_ref()
                .map_or_else(|| code.clone(), |d| d.message(i18n.lang.get()).to_owned())
        }
    };
    let fix = move || {
        diagnosis
            .as_ref()
            .map(|d| d.fix(i18n.lang.get()).to_owned())
            .unwrap_or_default()
    };
    view! {
        <div class="diagnosis" data-testid="diagnosis" data-cause=cause_code role="alert">
            <strong>{title}</strong>
            <p>{fix}</p>
        </div>
    }
}

/// Streamed text as plain text (never HTML), its first piece in a fresh element whose
/// paint is timed.
#[component]
fn StreamedPane(
    /// The text.
    text: StreamedText,
) -> impl IntoView {
    let i18n = use_i18n();
    view! {
        {move || text.lead.get()}
        {move || {
            text.first
                .get()
                .map(|(paint_id, first_text)| {
                    // `elementtiming` has no typed setter in the view macro.
                    leptos::html::span()
                        .class("painted-first")
                        .attr("elementtiming", paint_id)
                        .child(first_text)
                })
        }}
        <span class="rest" node_ref=text.rest_node></span>
        <Show when=move || text.cut.get()>
            <span class="cut-note" data-testid="text-cut">{move || cut_note(i18n.lang.get())}</span>
        </Show>
    }
}

/// The live run: diagnosis of its failure, reasoning and answer as they stream in.
#[component]
pub fn LivePanes(
    /// The run being shown.
    live: LiveRun,
) -> impl IntoView {
    let i18n = use_i18n();
    view! {
        {move || live.input_error.get().map(|error| {
            let field = error.field_code();
            view! {
                <div class="diagnosis" data-testid="input-error" data-field=field role="alert">
                    <strong>{move || error.message(i18n.lang.get())}</strong>
                </div>
            }
        })}
        {move || live.failed.get().map(|record| view! { <DiagnosisBox record=record /> })}
        <Show when=move || !live.reasoning.is_empty()>
            <h3 class="pane-title">{move || i18n.t("Reasoning", "推理")}</h3>
            <pre class="pane reasoning" data-testid="reasoning">
                <StreamedPane text=live.reasoning />
            </pre>
        </Show>
        <h3 class="pane-title">{move || i18n.t("Answer", "回答")}</h3>
        <pre class="pane" id="answer-pane" data-testid="answer" aria-live="polite">
            <StreamedPane text=live.answer />
        </pre>
    }
}
