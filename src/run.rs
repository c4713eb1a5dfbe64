//! One measured run: builds the request with ttft-core, sends it through the fetch worker,
//! feeds every stamped read to ttft-core's [`StreamReader`] and [`RunTimeline`], and tells
//! the view about text and first-token times as they happen. No metric is computed here.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use futures_channel::mpsc::{unbounded, UnboundedReceiver};
use futures_channel::oneshot;
use futures_util::StreamExt;
use ttft_core::diagnosis::{diagnose, Diagnosis, FailureContext, NetworkFailure};
use ttft_core::dialect::{Dialect, StreamReader};
use ttft_core::lang::Lang;
use ttft_core::protocol::Protocol;
use ttft_core::request::{
    normalize_base_url, prepare_request, ApiKey, PreparedRequest, PromptSpec, ReasoningEffort,
    ReasoningSummary, RequestDescription,
};

/// Anthropic's smallest thinking budget (the API rejects less).
const ANTHROPIC_THINKING_BUDGET_TOKENS: u32 = 1024;
use ttft_core::timeline::{
    Instants, NetworkBreakdown, PaintTarget, ResourceTiming, RunMetrics, RunOutcome, RunTimeline,
};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::spawn_local;

use crate::net::HttpRequest;
use crate::paint;
use crate::worker::{FetchWorker, WorkerEvent, WORKER_SCRIPT_URL};

/// What the user set for one run.
#[derive(Debug, Clone, PartialEq)]
pub struct RunSettings {
    /// Which API the endpoint speaks.
    pub protocol: Protocol,
    /// The stream dialect, or `None` to detect it from the stream.
    pub dialect: Option<Dialect>,
    /// Base URL as typed (normalized by ttft-core).
    pub base_url: String,
    /// The API key as typed (may be empty).
    pub api_key: String,
    /// Model name.
    pub model: String,
    /// Prompt text.
    pub prompt: String,
    /// Output limit in tokens.
    pub max_output_tokens: Option<u32>,
    /// Ask for reasoning: `reasoning_effort` (Chat), thinking with a 1024-token budget
    /// (Anthropic), `reasoning.summary: auto` (Responses, to see reasoning text at all).
    pub reasoning: bool,
    /// The whole run's deadline, from `request_started`.
    pub timeout_ms: f64,
    /// Abort right after the first answer token ("TTFT only" mode).
    pub ttft_only: bool,
    /// Language of the messages.
    pub lang: Lang,
}

/// A diagnosis as the view shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct ShownDiagnosis {
    /// Stable cause code (`key_refused`, `model_not_found`, ...), as in exports.
    pub cause_code: String,
    /// What happened.
    pub title: String,
    /// What to do about it.
    pub fix: String,
}

impl ShownDiagnosis {
    fn from_diagnosis(diagnosis: &Diagnosis, lang: Lang) -> Self {
        ShownDiagnosis {
            cause_code: ttft_core::export::cause_code(&diagnosis.cause),
            title: diagnosis.message(lang),
            fix: diagnosis.fix(lang),
        }
    }

    fn bad_input(cause_code: &str, title: String) -> Self {
        ShownDiagnosis {
            cause_code: cause_code.into(),
            title,
            fix: String::new(),
        }
    }
}

/// Which transport stamped the arrivals.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transport {
    /// The fetch worker: arrivals cannot be delayed by main-thread work.
    Worker,
    /// Main-thread fetch (no Worker available): long tasks can delay arrivals.
    MainThread,
}

/// Everything a finished run leaves behind (never the key).
#[derive(Debug, Clone, PartialEq)]
pub struct RunRecord {
    /// The metrics of docs/DESIGN.md §2.
    pub metrics: RunMetrics,
    /// How the run ended.
    pub outcome: RunOutcome,
    /// The instants of docs/DESIGN.md §2 (page clock), for the waterfall.
    pub instants: Instants,
    /// DNS/TCP/TLS/queueing from Resource Timing, when the server allows it.
    pub network: Option<NetworkBreakdown>,
    /// The cause and fix, when the run failed.
    pub diagnosis: Option<ShownDiagnosis>,
    /// The request as shown and exported (key masked); `None` when input was rejected.
    pub request: Option<RequestDescription>,
    /// Which transport measured the arrivals.
    pub transport: Transport,
    /// The stream dialect that was used or detected.
    pub dialect: Option<Dialect>,
}

/// Progress of a run, as the view needs it.
#[derive(Debug, Clone, PartialEq)]
pub enum RunUpdate {
    /// The request is about to be sent to `url`; `warnings` explain URL fixes.
    Calling {
        /// The endpoint URL actually called.
        url: String,
        /// What looked wrong in the typed URL.
        warnings: Vec<String>,
    },
    /// The first SSE event of any kind arrived.
    FirstChunk {
        /// `first_chunk_ms`.
        first_chunk_ms: f64,
    },
    /// Reasoning text arrived. `paint_id` is set on the first one: the view must put that
    /// text into a fresh element with `elementtiming` = `paint_id`.
    Reasoning {
        /// The text.
        text: String,
        /// `ttfr_ms`, on the first reasoning text.
        ttfr_ms: Option<f64>,
        /// Element Timing name for the first text.
        paint_id: Option<String>,
    },
    /// Answer text arrived. `paint_id` is set on the first visible (non-whitespace) text.
    Answer {
        /// The text.
        text: String,
        /// `ttfa_ms`, on the first answer text.
        ttfa_ms: Option<f64>,
        /// Element Timing name for the first visible text.
        paint_id: Option<String>,
    },
    /// The run ended (completed, stopped or failed).
    Finished(Box<RunRecord>),
}

/// Why the run was aborted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum AbortReason {
    Stop,
    Timeout,
    TtftOnly,
}

enum Sender {
    Worker(Rc<FetchWorker>, u32),
    MainThread(web_sys::AbortController),
}

/// The Stop button's handle on a run. Cheap to clone.
#[derive(Clone, Default)]
pub struct RunControl {
    reason: Rc<Cell<Option<AbortReason>>>,
    sender: Rc<RefCell<Option<Sender>>>,
    unpainted: bool,
}

impl RunControl {
    /// A handle for a run whose text is never shown (experiments): no paint time is
    /// awaited, so the run ends when its stream ends instead of waiting out the paint
    /// timeout for elements that will never exist.
    pub fn unpainted() -> Self {
        RunControl {
            unpainted: true,
            ..RunControl::default()
        }
    }

    /// Whether Stop was pressed (a series of runs ends there too).
    pub fn stopped(&self) -> bool {
        self.reason.get() == Some(AbortReason::Stop)
    }

    /// Stops the run; what it measured so far is kept.
    pub fn stop(&self) {
        self.abort(AbortReason::Stop);
    }

    fn abort(&self, reason: AbortReason) {
        if self.reason.get().is_none() {
            self.reason.set(Some(reason));
        }
        match &*self.sender.borrow() {
            Some(Sender::Worker(worker, request_id)) => worker.abort(*request_id),
            Some(Sender::MainThread(controller)) => controller.abort(),
            None => {}
        }
    }
}

/// The page's fetch worker: not started, starting (callers waiting), or settled.
enum WorkerSlot {
    Idle,
    Starting(Vec<oneshot::Sender<Option<Rc<FetchWorker>>>>),
    Settled(Option<Rc<FetchWorker>>),
}

thread_local! {
    static SHARED_WORKER: RefCell<WorkerSlot> = const { RefCell::new(WorkerSlot::Idle) };
}

/// The page's one fetch worker, started once (concurrent callers wait for the same start);
/// `None` where Workers are unavailable, and the runs then fetch on the main thread.
async fn shared_worker() -> Option<Rc<FetchWorker>> {
    let waiting = SHARED_WORKER.with(|slot| {
        let mut slot = slot.borrow_mut();
        match &mut *slot {
            WorkerSlot::Settled(worker) => Err(worker.clone()),
            WorkerSlot::Starting(waiters) => {
                let (sender, receiver) = oneshot::channel();
                waiters.push(sender);
                Ok(Some(receiver))
            }
            WorkerSlot::Idle => {
                *slot = WorkerSlot::Starting(Vec::new());
                Ok(None)
            }
        }
    });
    match waiting {
        Err(settled) => settled,
        Ok(Some(receiver)) => receiver.await.ok().flatten(),
        Ok(None) => {
            let worker = FetchWorker::spawn(WORKER_SCRIPT_URL)
                .await
                .ok()
                .map(Rc::new);
            let waiters = SHARED_WORKER.with(|slot| {
                match std::mem::replace(
                    &mut *slot.borrow_mut(),
                    WorkerSlot::Settled(worker.clone()),
                ) {
                    WorkerSlot::Starting(waiters) => waiters,
                    _ => Vec::new(),
                }
            });
            for waiter in waiters {
                let _ = waiter.send(worker.clone());
            }
            worker
        }
    }
}

/// Starts the fetch worker ahead of the first run, so a click sends its request at once:
/// a worker that is still starting when the user clicks would hold the request back.
/// Returns whether a worker is available.
pub async fn prewarm_worker() -> bool {
    shared_worker().await.is_some()
}

fn http_request(prepared: &PreparedRequest) -> HttpRequest {
    HttpRequest {
        method: "POST",
        url: prepared.url.clone(),
        headers: prepared
            .headers
            .iter()
            .map(|header| (header.name.clone(), header.value.clone()))
            .collect(),
        body: Some(prepared.body_text()),
    }
}

/// Validates the settings into a request, or says what is wrong with the input.
fn prepare(settings: &RunSettings) -> Result<(PreparedRequest, Vec<String>), ShownDiagnosis> {
    let lang = settings.lang;
    let endpoint = normalize_base_url(&settings.base_url, settings.protocol)
        .map_err(|error| ShownDiagnosis::bad_input("invalid_url", error.message(lang)))?;
    let key = ApiKey::parse(&settings.api_key).map_err(|error| {
        ShownDiagnosis::from_diagnosis(&Diagnosis::from_key_error(&error), lang)
    })?;
    let mut spec = PromptSpec::new(settings.model.trim(), &settings.prompt);
    spec.max_output_tokens = settings.max_output_tokens;
    if settings.reasoning {
        match settings.protocol {
            Protocol::OpenAiChat => spec.reasoning_effort = Some(ReasoningEffort::Medium),
            Protocol::AnthropicMessages => {
                spec.thinking_budget_tokens = Some(ANTHROPIC_THINKING_BUDGET_TOKENS)
            }
            Protocol::OpenAiResponses => {
                spec.reasoning_effort = Some(ReasoningEffort::Medium);
                spec.reasoning_summary = Some(ReasoningSummary::Auto);
            }
        }
    }
    let prepared = prepare_request(&endpoint, &spec, key.as_ref(), None)
        .map_err(|error| ShownDiagnosis::bad_input("invalid_request", error.message(lang)))?;
    let warnings = endpoint
        .warnings
        .iter()
        .map(|warning| warning.message(lang))
        .collect();
    Ok((prepared, warnings))
}

fn set_timeout(callback: impl FnOnce() + 'static, delay_ms: f64) -> Option<i32> {
    let window = web_sys::window()?;
    let closure = Closure::once_into_js(callback);
    window
        .set_timeout_with_callback_and_timeout_and_arguments_0(
            closure.unchecked_ref(),
            delay_ms.clamp(0.0, f64::from(i32::MAX)) as i32,
        )
        .ok()
}

fn clear_timeout(handle: Option<i32>) {
    if let (Some(window), Some(handle)) = (web_sys::window(), handle) {
        window.clear_timeout_with_handle(handle);
    }
}

/// Resolves after `delay_ms` (for bounded waits).
async fn sleep_ms(delay_ms: f64) {
    let (sender, receiver) = oneshot::channel::<()>();
    set_timeout(
        move || {
            let _ = sender.send(());
        },
        delay_ms,
    );
    let _ = receiver.await;
}

fn resource_timing(fields: &std::collections::HashMap<String, f64>) -> ResourceTiming {
    let field = |name: &str| fields.get(name).copied().unwrap_or_default();
    ResourceTiming {
        fetch_start: field("fetchStart"),
        domain_lookup_start: field("domainLookupStart"),
        domain_lookup_end: field("domainLookupEnd"),
        connect_start: field("connectStart"),
        connect_end: field("connectEnd"),
        secure_connection_start: field("secureConnectionStart"),
        request_start: field("requestStart"),
        response_start: field("responseStart"),
    }
}

/// How long to wait for Element Timing before taking the next-frame time instead: an
/// element outside the viewport (or in a hidden tab) is never painted, so never reported.
const ELEMENT_TIMING_WAIT_MS: f64 = 1_000.0;

/// The paint of `paint_id` from Element Timing; if none comes within
/// [`ELEMENT_TIMING_WAIT_MS`], the rAF + MessageChannel time of the frame after the text
/// was set (recorded as that method).
async fn painted_or_next_frame(paint_id: &str) -> Option<paint::Painted> {
    let next_frame = paint::next_frame_painted().await;
    if !paint::element_timing_supported() {
        return next_frame;
    }
    let (timeout_sender, timeout_receiver) = oneshot::channel::<()>();
    spawn_local(async move {
        sleep_ms(ELEMENT_TIMING_WAIT_MS).await;
        let _ = timeout_sender.send(());
    });
    let element = Box::pin(paint::painted(paint_id));
    match futures_util::future::select(element, timeout_receiver).await {
        futures_util::future::Either::Left((Some(painted), _)) => Some(painted),
        _ => {
            paint::forget(paint_id);
            next_frame
        }
    }
}

/// The state of one run while its events arrive.
struct Measurement {
    timeline: Rc<RefCell<RunTimeline>>,
    reader: StreamReader,
    http_status: Option<u16>,
    content_type: Option<String>,
    retry_after: Option<String>,
    error_body: Vec<u8>,
    first_reasoning_sent: bool,
    first_visible_answer_sent: bool,
    ttfa_reported: bool,
    pending_paints: Vec<oneshot::Receiver<()>>,
    run_id: u32,
    watch_paints: bool,
}

thread_local! {
    static NEXT_RUN_ID: Cell<u32> = const { Cell::new(1) };
}

impl Measurement {
    fn new(
        clicked_ms: Option<f64>,
        request_started_ms: f64,
        dialect: Option<Dialect>,
        watch_paints: bool,
    ) -> Self {
        let run_id = NEXT_RUN_ID.with(|next| {
            let run_id = next.get();
            next.set(run_id.wrapping_add(1));
            run_id
        });
        Measurement {
            timeline: Rc::new(RefCell::new(RunTimeline::new(
                clicked_ms,
                request_started_ms,
            ))),
            reader: StreamReader::new(dialect),
            http_status: None,
            content_type: None,
            retry_after: None,
            error_body: Vec::new(),
            first_reasoning_sent: false,
            first_visible_answer_sent: false,
            ttfa_reported: false,
            pending_paints: Vec::new(),
            run_id,
            watch_paints,
        }
    }

    fn streaming_body(&self) -> bool {
        self.http_status
            .is_some_and(|status| (200..300).contains(&status))
    }

    /// Waits for the paint of `paint_id` and records it on the timeline.
    fn watch_paint(&mut self, target: PaintTarget, paint_id: String) {
        if !self.watch_paints {
            return;
        }
        let timeline = Rc::clone(&self.timeline);
        let (done_sender, done_receiver) = oneshot::channel();
        self.pending_paints.push(done_receiver);
        spawn_local(async move {
            let painted = painted_or_next_frame(&paint_id).await;
            if let Some(painted) = painted {
                timeline
                    .borrow_mut()
                    .on_paint(target, painted.painted_ms, painted.method);
            }
            let _ = done_sender.send(());
        });
    }

    /// Feeds one read; returns true when TTFT-only mode should stop the stream now.
    fn on_chunk(
        &mut self,
        at_ms: f64,
        bytes: &[u8],
        settings: &RunSettings,
        on_update: &mut impl FnMut(RunUpdate),
    ) -> bool {
        self.timeline.borrow_mut().on_body_chunk(at_ms, bytes.len());
        if !self.streaming_body() {
            self.error_body.extend_from_slice(bytes);
            return false;
        }
        let malformed_before = self.reader.malformed_event_count();
        let events = self.reader.on_bytes(bytes);
        if self.reader.malformed_event_count() > malformed_before {
            self.timeline
                .borrow_mut()
                .on_malformed_chunk(at_ms, "a chunk was not valid JSON");
        }
        let mut stop_now = false;
        for event in &events {
            let first_event = self.timeline.borrow().instants.first_event.is_none();
            self.timeline.borrow_mut().on_event(at_ms, event);
            if event.usage_updated {
                if let Some(usage) = self.reader.usage() {
                    self.timeline.borrow_mut().set_usage(usage);
                }
            }
            let timeline = Rc::clone(&self.timeline);
            let metrics = move || timeline.borrow().metrics();
            if first_event {
                if let Some(first_chunk_ms) = metrics().first_chunk_ms {
                    on_update(RunUpdate::FirstChunk { first_chunk_ms });
                }
            }
            if !event.reasoning.is_empty() {
                let first = !self.first_reasoning_sent;
                self.first_reasoning_sent = true;
                let paint_id = first.then(|| format!("reasoning-{}", self.run_id));
                if let Some(paint_id) = &paint_id {
                    self.watch_paint(PaintTarget::Reasoning, paint_id.clone());
                }
                on_update(RunUpdate::Reasoning {
                    text: event.reasoning.clone(),
                    // Metrics are computed once per first, not per event: computing them
                    // walks every arrival, which per event would be quadratic in the stream.
                    ttfr_ms: if first { metrics().ttfr_ms } else { None },
                    paint_id,
                });
            }
            if !event.answer.is_empty() {
                let first_answer = !self.ttfa_reported;
                self.ttfa_reported = true;
                let first_visible =
                    !self.first_visible_answer_sent && !event.answer.trim().is_empty();
                let paint_id = first_visible.then(|| format!("answer-{}", self.run_id));
                if let Some(paint_id) = &paint_id {
                    self.first_visible_answer_sent = true;
                    self.watch_paint(PaintTarget::Answer, paint_id.clone());
                }
                on_update(RunUpdate::Answer {
                    text: event.answer.clone(),
                    ttfa_ms: if first_answer {
                        metrics().ttfa_ms
                    } else {
                        None
                    },
                    paint_id,
                });
                if settings.ttft_only && self.first_visible_answer_sent {
                    stop_now = true;
                }
            }
        }
        stop_now
    }

    /// The body ended: flush what the reader held back, then close the timeline.
    fn on_end(&mut self, at_ms: f64, on_update: &mut impl FnMut(RunUpdate)) {
        if !self.streaming_body() {
            self.timeline.borrow_mut().on_stream_end(at_ms);
            return;
        }
        let mut released = Vec::new();
        self.reader.finish_into(&mut released);
        for event in &released {
            self.timeline.borrow_mut().on_event(at_ms, event);
            if !event.answer.is_empty() {
                on_update(RunUpdate::Answer {
                    text: event.answer.clone(),
                    ttfa_ms: None,
                    paint_id: None,
                });
            }
            if !event.reasoning.is_empty() {
                on_update(RunUpdate::Reasoning {
                    text: event.reasoning.clone(),
                    ttfr_ms: None,
                    paint_id: None,
                });
            }
        }
        self.timeline.borrow_mut().on_stream_end(at_ms);
    }

    /// Waits (bounded) for outstanding paint reports: a hidden tab never paints.
    async fn settle_paints(&mut self) {
        const PAINT_WAIT_MS: f64 = ELEMENT_TIMING_WAIT_MS + 500.0;
        let pending = std::mem::take(&mut self.pending_paints);
        if pending.is_empty() {
            return;
        }
        let (timeout_sender, timeout_receiver) = oneshot::channel::<()>();
        spawn_local(async move {
            sleep_ms(PAINT_WAIT_MS).await;
            let _ = timeout_sender.send(());
        });
        let all_painted = futures_util::future::join_all(pending);
        futures_util::future::select(Box::pin(all_painted), timeout_receiver).await;
    }

    fn record(
        &self,
        settings: &RunSettings,
        prepared: &PreparedRequest,
        transport: Transport,
    ) -> RunRecord {
        let timeline = self.timeline.borrow();
        let description = prepared.describe();
        let outcome = timeline.outcome.clone();
        let failed = !matches!(
            outcome,
            RunOutcome::Completed | RunOutcome::StoppedAfterFirstAnswer
        );
        let diagnosis = failed
            .then(|| {
                let mut context = FailureContext::from_run(&timeline, &description);
                context.content_type = self.content_type.clone();
                context.retry_after = self.retry_after.clone();
                context.response_body = (!self.error_body.is_empty())
                    .then(|| String::from_utf8_lossy(&self.error_body).into_owned());
                context.now_unix_s = Some((js_sys::Date::now() / 1000.0) as i64);
                context.page_is_https = web_sys::window()
                    .and_then(|window| window.location().protocol().ok())
                    .is_some_and(|protocol| protocol == "https:");
                diagnose(&context)
            })
            .flatten()
            .map(|diagnosis| ShownDiagnosis::from_diagnosis(&diagnosis, settings.lang));
        RunRecord {
            metrics: timeline.metrics(),
            outcome,
            instants: timeline.instants.clone(),
            network: timeline.network.clone(),
            diagnosis,
            request: Some(description),
            transport,
            dialect: Some(self.reader.dialect()),
        }
    }
}

/// Opens the request on the worker (or the main thread when no worker can start).
async fn send(
    request: HttpRequest,
    control: &RunControl,
) -> Result<(UnboundedReceiver<WorkerEvent>, Transport), String> {
    if let Some(worker) = shared_worker().await {
        let (request_id, receiver) = worker.start(&request)?;
        *control.sender.borrow_mut() = Some(Sender::Worker(worker, request_id));
        return Ok((receiver, Transport::Worker));
    }
    let controller = web_sys::AbortController::new().map_err(|error| format!("{error:?}"))?;
    let signal = controller.signal();
    *control.sender.borrow_mut() = Some(Sender::MainThread(controller));
    let (sender, receiver) = unbounded();
    spawn_local(crate::net::fetch_on_main_thread(request, signal, sender));
    Ok((receiver, Transport::MainThread))
}

/// Runs one measurement and reports as it goes; the last update is always
/// [`RunUpdate::Finished`].
pub async fn measure(
    settings: RunSettings,
    clicked_ms: Option<f64>,
    control: RunControl,
    mut on_update: impl FnMut(RunUpdate),
) {
    let rejected = |diagnosis: ShownDiagnosis| {
        let timeline = RunTimeline::new(clicked_ms, clicked_ms.unwrap_or_default());
        RunRecord {
            metrics: timeline.metrics(),
            outcome: RunOutcome::NotSent,
            instants: timeline.instants.clone(),
            network: None,
            diagnosis: Some(diagnosis),
            request: None,
            transport: Transport::Worker,
            dialect: settings.dialect,
        }
    };
    let (prepared, warnings) = match prepare(&settings) {
        Ok(prepared) => prepared,
        Err(diagnosis) => return on_update(RunUpdate::Finished(Box::new(rejected(diagnosis)))),
    };
    on_update(RunUpdate::Calling {
        url: prepared.url.clone(),
        warnings,
    });
    let (mut events, transport) = match send(http_request(&prepared), &control).await {
        Ok(opened) => opened,
        Err(message) => {
            let diagnosis = ShownDiagnosis::bad_input("invalid_request", message);
            return on_update(RunUpdate::Finished(Box::new(rejected(diagnosis))));
        }
    };
    if control.reason.get().is_some() {
        control.abort(AbortReason::Stop);
    }
    let mut measurement: Option<Measurement> = None;
    let mut deadline = None;
    while let Some(event) = events.next().await {
        match event {
            WorkerEvent::Started { at_ms } => {
                measurement = Some(Measurement::new(
                    clicked_ms,
                    at_ms,
                    settings.dialect,
                    !control.unpainted,
                ));
                let timeout_control = control.clone();
                deadline = set_timeout(
                    move || timeout_control.abort(AbortReason::Timeout),
                    settings.timeout_ms,
                );
            }
            WorkerEvent::Headers {
                at_ms,
                status,
                content_type,
                retry_after,
            } => {
                if let Some(measurement) = measurement.as_mut() {
                    measurement.timeline.borrow_mut().on_headers(at_ms, status);
                    measurement.http_status = Some(status);
                    measurement.content_type = Some(content_type);
                    measurement.retry_after = retry_after;
                }
            }
            WorkerEvent::Chunk { at_ms, bytes } => {
                let stop_now = measurement.as_mut().is_some_and(|measurement| {
                    measurement.on_chunk(at_ms, &bytes, &settings, &mut on_update)
                });
                if stop_now {
                    if let Some(measurement) = measurement.as_mut() {
                        measurement
                            .timeline
                            .borrow_mut()
                            .on_stopped_after_first_answer(at_ms);
                    }
                    control.abort(AbortReason::TtftOnly);
                }
            }
            WorkerEvent::End { at_ms } => {
                if let Some(measurement) = measurement.as_mut() {
                    measurement.on_end(at_ms, &mut on_update);
                }
            }
            WorkerEvent::Failed { at_ms, name, .. } => {
                if let Some(measurement) = measurement.as_mut() {
                    let failure = match (name.as_str(), control.reason.get()) {
                        ("AbortError", Some(AbortReason::TtftOnly)) => None,
                        ("AbortError", Some(AbortReason::Timeout)) => Some(NetworkFailure::Timeout),
                        ("AbortError", _) => Some(NetworkFailure::Aborted),
                        _ => Some(NetworkFailure::NetworkError),
                    };
                    let mid_stream = measurement.streaming_body()
                        && measurement.timeline.borrow().bytes_received > 0;
                    match failure {
                        // The connection dropped after a 200 stream had started: the stream
                        // was cut off (no terminal marker), which is what to diagnose.
                        Some(NetworkFailure::NetworkError) if mid_stream => {
                            measurement.on_end(at_ms, &mut on_update)
                        }
                        Some(failure) => measurement
                            .timeline
                            .borrow_mut()
                            .on_network_failure(at_ms, failure),
                        None => {}
                    }
                }
            }
            WorkerEvent::Timing { fields, .. } => {
                if let Some(measurement) = measurement.as_mut() {
                    if !fields.is_empty() {
                        let breakdown =
                            NetworkBreakdown::from_resource_timing(&resource_timing(&fields));
                        measurement.timeline.borrow_mut().set_network(breakdown);
                    }
                }
                break;
            }
        }
    }
    clear_timeout(deadline);
    *control.sender.borrow_mut() = None;
    let Some(mut measurement) = measurement else {
        let diagnosis =
            ShownDiagnosis::bad_input("invalid_request", "The request never started.".into());
        return on_update(RunUpdate::Finished(Box::new(rejected(diagnosis))));
    };
    measurement.settle_paints().await;
    let record = measurement.record(&settings, &prepared, transport);
    on_update(RunUpdate::Finished(Box::new(record)));
}
