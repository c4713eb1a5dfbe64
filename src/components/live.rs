//! The run in progress: controls, headline numbers, elapsed time, and the streamed text.

use leptos::prelude::*;
use leptos::tachys::html::attribute::custom::CustomAttribute;
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
    /// How much was shown: the first `MAX_SHOWN_TEXT_BYTES`, then the text is cut.
    shown: StoredValue<ShownText, LocalStorage>,
    /// Whether the text was cut (a note says so).
    cut: RwSignal<bool>,
}

/// A long answer is laid out in blocks of about this many bytes, each starting after a line
/// break: appending to one text node makes the browser lay out the whole text again on every
/// frame (tasks grew past 200 ms over a 100,000-token answer), while a new block leaves the
/// earlier ones' layout cached.
const CHUNK_BYTES: usize = 4_096;
/// Text without line breaks is cut into a new block after this many bytes anyway.
const CHUNK_MAX_BYTES: usize = 16_384;

impl StreamedText {
    fn new() -> Self {
        Self {
            lead: RwSignal::new(String::new()),
            first: RwSignal::new(None),
            rest_len: RwSignal::new(0),
            rest_node: NodeRef::new(),
            pending: StoredValue::new_local(String::new()),
            flush_scheduled: StoredValue::new_local(false),
            chunk: StoredValue::new_local(None),
            chunk_len: StoredValue::new_local(0),
            shown: StoredValue::new_local(ShownText::default()),
            cut: RwSignal::new(false),
        }
    }

    fn clear(&self) {
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
        } else if self.first.with_untracked(Option::is_none) {
            self.lead.update(|lead| lead.push_str(&text));
        } else {
            self.rest_len.update(|rest_len| *rest_len += text.len());
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
            this.flush();
        });
        let scheduled = web_sys::window().is_some_and(|window| {
            window
                .request_animation_frame(wasm_bindgen::JsCast::unchecked_ref(&callback))
                .is_ok()
        });
        self.flush_scheduled.set_value(scheduled);
    }

    /// Appends the pending text (plain text, never HTML) to the current block, starting a
    /// new block after a line break once the current one holds [`CHUNK_BYTES`].
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
        let current = self.chunk.get_value().unwrap_or_else(|| rest.clone());
        let filled = self.chunk_len.get_value();
        let (now, later) = if filled + pending.len() <= CHUNK_BYTES {
            (pending.as_str(), "")
        } else if let Some(line_end) = pending.rfind('\n') {
            pending.split_at(line_end + 1)
        } else if filled + pending.len() > CHUNK_MAX_BYTES {
            ("", pending.as_str())
        } else {
            (pending.as_str(), "")
        };
        if !now.is_empty() {
            let _ = current.append_with_str_1(now);
        }
        if now.len() == pending.len() {
            self.chunk_len.set_value(filled + now.len());
            return;
        }
        let Some(block) = rest
            .owner_document()
            .and_then(|document| document.create_element("span").ok())
        else {
            let _ = current.append_with_str_1(later);
            return;
        };
        block.set_class_name("chunk");
        if !later.is_empty() {
            let _ = block.append_with_str_1(later);
        }
        let _ = rest.append_child(&block);
        self.chunk.set_value(Some(block));
        self.chunk_len.set_value(later.len());
    }

    fn is_empty(&self) -> bool {
        self.lead.with(String::is_empty)
            && self.first.with(Option::is_none)
            && self.rest_len.get() == 0
    }
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
    elapsed_ms: RwSignal<Option<f64>>,
    /// Where the run stands.
    pub status: RwSignal<RunStatus>,
    /// An input problem found before any request.
    pub input_error: RwSignal<Option<InputError>>,
    /// The last finished run, when it failed (its diagnosis is shown).
    failed: RwSignal<Option<RunRecord>>,
}

impl LiveRun {
    /// A run view with nothing in it.
    pub fn new() -> Self {
        Self {
            streaming: RwSignal::new(false),
            progress: RwSignal::new((0, 0)),
            reasoning: StreamedText::new(),
            answer: StreamedText::new(),
            ttfa_ms: RwSignal::new(None),
            ttfr_ms: RwSignal::new(None),
            first_chunk_ms: RwSignal::new(None),
            perceived_ttfa_ms: RwSignal::new(None),
            started_ms: RwSignal::new(None),
            elapsed_ms: RwSignal::new(None),
            status: RwSignal::new(RunStatus::Ready),
            input_error: RwSignal::new(None),
            failed: RwSignal::new(None),
        }
    }

    /// Clears the view for the next run.
    pub fn reset(&self) {
        self.reasoning.clear();
        self.answer.clear();
        self.ttfa_ms.set(None);
        self.ttfr_ms.set(None);
        self.first_chunk_ms.set(None);
        self.perceived_ttfa_ms.set(None);
        self.elapsed_ms.set(None);
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

    /// Advances the elapsed counter (called on a timer while streaming).
    pub fn tick(&self) {
        if let Some(started_ms) = self.started_ms.get_untracked() {
            self.elapsed_ms.set(Some(clock::now_ms() - started_ms));
        }
    }

    /// The request was sent.
    pub fn sent(&self) {
        self.status.set(RunStatus::Waiting);
    }

    /// Shows one step of the run.
    pub fn apply(&self, progress: &Progress) {
        match progress {
            Progress::FirstChunk { first_chunk_ms } => {
                self.first_chunk_ms.set(Some(*first_chunk_ms))
            }
            Progress::Text {
                channel,
                text,
                first_token_ms,
                paint_id,
            } => match channel {
                Channel::Reasoning => {
                    self.reasoning.push(text, paint_id.clone());
                    if first_token_ms.is_some() {
                        self.ttfr_ms.set(*first_token_ms);
                    }
                }
                Channel::Answer => {
                    self.answer.push(text, paint_id.clone());
                    if first_token_ms.is_some() {
                        self.ttfa_ms.set(*first_token_ms);
                        self.status.set(RunStatus::Streaming);
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
        self.elapsed_ms
            .set(metrics.e2e_ms.or(self.elapsed_ms.get_untracked()));
        self.started_ms.set(None);
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
) -> impl IntoView {
    view! {
        <div class="readout">
            <div class="label">{label}</div>
            <div class="value" data-testid=test_id data-ms=move || raw_ms(value_ms.get())>
                {move || format_ms(value_ms.get())}
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
            />
        </div>
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
