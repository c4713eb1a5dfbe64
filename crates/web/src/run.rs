//! One run's I/O: sends the plan's request through the transport, hands every stamped event
//! to ttft-core's [`Measurement`], arms the timeout, waits for paint times, and returns the
//! run's record. What the events mean is decided in ttft-core (`ttft_core::measure`).

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use futures_channel::oneshot;
use futures_util::StreamExt;
use ttft_core::measure::{
    AbortReason, Channel, FetchError, FinishContext, Measurement, Progress, RunPlan, StreamControl,
};
use ttft_core::record::RunRecord;
use wasm_bindgen_futures::spawn_local;

use crate::availability::{self, Heartbeat};
use crate::clock::{self, Timer};
use crate::paint;
use crate::transport::{self, AbortHandle, Carrier, HttpRequest, TransportEvent};

/// The Stop button's handle on a run. Cheap to clone.
#[derive(Clone, Default)]
pub struct RunControl {
    reason: Rc<Cell<Option<AbortReason>>>,
    abort: Rc<RefCell<Option<AbortHandle>>>,
}

impl RunControl {
    /// Whether Stop was pressed (a series of runs ends there too).
    pub fn stopped(&self) -> bool {
        self.reason.get() == Some(AbortReason::Stop)
    }

    /// Stops the run; what it measured so far is kept.
    pub fn stop(&self) {
        self.abort(AbortReason::Stop);
    }

    /// Aborts the request for `reason` (the first reason given is the one kept).
    fn abort(&self, reason: AbortReason) {
        if self.reason.get().is_none() {
            self.reason.set(Some(reason));
        }
        if let Some(handle) = &*self.abort.borrow() {
            handle.abort();
        }
    }
}

/// How a run is shown and counted.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RunOptions {
    /// The Send click's `event.timeStamp`; `None` for scheduled runs. A clicked run sends
    /// its request at once, before any UI work; a scheduled run first lets the page render
    /// what changed since the previous run ([`quiet_point`]), so its request does not wait
    /// behind that rendering (in WebKit a worker's request leaves through the main thread).
    pub clicked_ms: Option<f64>,
    /// An unmeasured warm-up run.
    pub warm_up: bool,
    /// Whether the view shows the run's text (so its paint is awaited); experiments' runs
    /// are not shown, and waiting for paints that never come would only delay them.
    pub painted: bool,
}

thread_local! {
    static NEXT_PAINT_KEY: Cell<u32> = const { Cell::new(1) };
}

/// A number that makes this run's `elementtiming` names unique in the page.
fn next_paint_key() -> u32 {
    NEXT_PAINT_KEY.with(|next| {
        let key = next.get();
        next.set(key.wrapping_add(1));
        key
    })
}

/// How long to wait for Element Timing before taking the next-frame time instead: an
/// element outside the viewport (or in a hidden tab) is never painted, so never reported.
const ELEMENT_TIMING_WAIT_MS: f64 = 1_000.0;
/// How much longer than the wait for Element Timing the end of a run waits for outstanding
/// paint reports.
const PAINT_SETTLE_MORE_MS: f64 = 500.0;

thread_local! {
    /// The wait for Element Timing in this page: [`ELEMENT_TIMING_WAIT_MS`], except in the
    /// component tests ([`crate::testing::mount`]).
    static ELEMENT_TIMING_WAIT: std::cell::Cell<f64> = const { std::cell::Cell::new(ELEMENT_TIMING_WAIT_MS) };
}

/// Sets this page's wait for Element Timing (the component tests' support only: in
/// wasm-bindgen-test-runner's Chromium no Element Timing entry ever reaches the mounted
/// pages, so every scripted run waited the whole second and then took the next frame's
/// time, as an engine without Element Timing does; the real engines' Element Timing is
/// e2e's to check).
pub fn set_element_timing_wait_ms(wait_ms: f64) {
    ELEMENT_TIMING_WAIT.with(|wait| wait.set(wait_ms));
}

fn element_timing_wait_ms() -> f64 {
    ELEMENT_TIMING_WAIT.with(std::cell::Cell::get)
}

/// The paint of `paint_id` from Element Timing; if none comes within
/// [`ELEMENT_TIMING_WAIT_MS`], the rAF + MessageChannel time of the frame after the text was
/// set (recorded as that method).
async fn painted_or_next_frame(paint_id: &str) -> Option<paint::Painted> {
    let next_frame = paint::next_frame_painted().await;
    if !paint::element_timing_supported() {
        return next_frame;
    }
    let element = Box::pin(paint::painted(paint_id));
    let timeout = Box::pin(clock::sleep_ms(element_timing_wait_ms()));
    match futures_util::future::select(element, timeout).await {
        futures_util::future::Either::Left((Some(painted), _)) => Some(painted),
        _ => {
            paint::forget(paint_id);
            next_frame
        }
    }
}

/// Watches the paint of a first text and records it on the measurement.
fn watch_paint(
    measurement: &Rc<RefCell<Measurement>>,
    channel: Channel,
    paint_id: String,
    pending: &mut Vec<oneshot::Receiver<()>>,
) {
    let measurement = Rc::clone(measurement);
    let (done, done_receiver) = oneshot::channel();
    pending.push(done_receiver);
    spawn_local(async move {
        if let Some(painted) = painted_or_next_frame(&paint_id).await {
            measurement.borrow_mut().on_paint(
                channel.paint_target(),
                painted.painted_ms,
                painted.method,
            );
        }
        let _ = done.send(());
    });
}

/// Waits (bounded) for outstanding paint reports: a hidden tab never paints.
async fn settle_paints(pending: Vec<oneshot::Receiver<()>>) {
    if pending.is_empty() {
        return;
    }
    let all_painted = Box::pin(futures_util::future::join_all(pending));
    let timeout = Box::pin(clock::sleep_ms(
        element_timing_wait_ms() + PAINT_SETTLE_MORE_MS,
    ));
    futures_util::future::select(all_painted, timeout).await;
}

/// How long after `fetch()` was called the UI work of a clicked run may wait for the
/// response headers: the main thread stays free while the request leaves and the headers
/// come back (a long task then delays them in the worker, in Chromium too), and the user
/// sees the run start within a frame or two.
const UI_START_WAIT_MS: f64 = 30.0;

/// The largest part of a body read copied into the wasm heap at once, bytes. A browser may
/// hand over megabytes in one read (WebKit 2.5 MB and more when the page was busy); the wasm
/// heap, which never shrinks, only ever holds this much of it.
const READ_SLICE_BYTES: u32 = 64 * 1024;

/// Longest wait for a rendered frame before a scheduled run (a hidden tab renders none).
const QUIET_POINT_MAX_MS: f64 = 100.0;

/// Resolves once the page has rendered the next frame and the task after it has run (or
/// after [`QUIET_POINT_MAX_MS`]): what the previous run changed (table row, summary,
/// charts) is then laid out and painted, and the main thread is free.
pub async fn quiet_point() {
    let rendered = Box::pin(paint::next_frame_painted());
    let timeout = Box::pin(clock::sleep_ms(QUIET_POINT_MAX_MS));
    futures_util::future::select(rendered, timeout).await;
}

/// What a run waits for before its request leaves: a ping on its way (after the models list
/// at load) ends first, so no run shares its connection with one (transport::pings); a
/// scheduled run then lets the page render ([`quiet_point`]).
async fn ready_to_send(options: &RunOptions) {
    transport::pings::settled().await;
    if options.clicked_ms.is_none() {
        quiet_point().await;
    }
}

/// Calls the run's UI-start callback once.
type OnSent = Rc<RefCell<Option<Box<dyn FnOnce()>>>>;

fn fire(on_sent: &OnSent) {
    let callback = on_sent.borrow_mut().take();
    if let Some(callback) = callback {
        callback();
    }
}

fn page_is_https() -> bool {
    web_sys::window()
        .and_then(|window| window.location().protocol().ok())
        .is_some_and(|protocol| protocol == "https:")
}

/// Runs `plan` once through `carrier` and reports its progress as it goes; returns the
/// run's record (its `run_index` is set by the session that keeps it).
pub async fn measure(
    carrier: &dyn Carrier,
    plan: &RunPlan,
    options: RunOptions,
    control: &RunControl,
    on_progress: impl FnMut(&Progress),
) -> RunRecord {
    measure_with(carrier, plan, options, control, || {}, on_progress).await
}

/// [`measure`], calling `on_started` once when the UI may show the run: after the request
/// has left and its headers came back, or [`UI_START_WAIT_MS`] after it left, whichever is
/// first (and at the latest before the first progress). Until then the page does no work
/// of its own, so nothing holds the request back. The request goes through `carrier` (the
/// page's: the fetch worker; a test's: a script), and nowhere else.
pub async fn measure_with(
    carrier: &dyn Carrier,
    plan: &RunPlan,
    options: RunOptions,
    control: &RunControl,
    on_started: impl FnOnce() + 'static,
    on_progress: impl FnMut(&Progress),
) -> RunRecord {
    // No ping starts until this run's record is made (transport::pings).
    let _under_way = transport::pings::RunUnderWay::enter();
    ready_to_send(&options).await;
    let plan = &scrubbing_held_keys(plan);
    let on_started: OnSent = Rc::new(RefCell::new(Some(Box::new(on_started))));
    let mut ui_start_timer: Option<Timer> = None;
    let request = HttpRequest::from(plan.request());
    // Read before this run's own answer can count as one.
    let contact = transport::contacts::contact_with(&request.url);
    transport::contacts::sent_to(&request.url, clock::now_ms());
    let paint_key = next_paint_key();
    // Until the transport says it started, the run starts now (a transport that cannot
    // even open leaves a failed record from here).
    let measurement = Rc::new(RefCell::new(Measurement::new(
        plan,
        options.clicked_ms,
        clock::now_ms(),
        paint_key,
    )));
    let mut transport_kind = ttft_core::record::Transport::Worker;
    let mut sink = ProgressSink {
        on_started: Rc::clone(&on_started),
        painted: options.painted,
        pending_paints: Vec::new(),
        on_progress,
    };
    let mut progress = Vec::new();
    // The main thread's availability until the first answer token (the arrival-delay bound).
    let heartbeat = Heartbeat::start(&measurement);
    match carrier.open(&request).await {
        Err(message) => {
            let error = FetchError {
                name: "TypeError".into(),
                message,
            };
            measurement
                .borrow_mut()
                .on_failure(clock::now_ms(), &error, None, &mut progress);
        }
        Ok(mut open) => {
            transport_kind = open.kind;
            *control.abort.borrow_mut() = Some(open.abort.clone());
            if control.reason.get().is_some() {
                open.abort.abort();
            }
            let mut deadline: Option<Timer> = None;
            let mut body = BodyReader::new();
            loop {
                let Some(event) = body.next_event(&mut open.events).await else {
                    break;
                };
                let mut run = measurement.borrow_mut();
                match event {
                    TransportEvent::Started { at_ms, route } => {
                        *run = Measurement::new(plan, options.clicked_ms, at_ms, paint_key);
                        run.on_route(route);
                        run.on_origin_contact(contact);
                        let timeout_control = control.clone();
                        deadline = Some(Timer::once(plan.timeout_ms, move || {
                            timeout_control.abort(AbortReason::Timeout)
                        }));
                        if open.kind == ttft_core::record::Transport::MainThread {
                            // Its fetch() is called right after this event.
                            let started = Rc::clone(&on_started);
                            ui_start_timer =
                                Some(Timer::once(UI_START_WAIT_MS, move || fire(&started)));
                        }
                    }
                    TransportEvent::Sent { .. } => {
                        let started = Rc::clone(&on_started);
                        ui_start_timer =
                            Some(Timer::once(UI_START_WAIT_MS, move || fire(&started)));
                    }
                    TransportEvent::Headers { at_ms, head } => {
                        transport::contacts::heard_from(&request.url, at_ms);
                        run.on_headers(at_ms, head);
                        drop(run);
                        fire(&on_started);
                        continue;
                    }
                    TransportEvent::Chunk { at_ms, bytes } => {
                        drop(run);
                        body.feed(
                            &measurement,
                            at_ms,
                            &bytes,
                            control,
                            &mut progress,
                            &mut sink,
                        )
                        .await;
                        continue;
                    }
                    TransportEvent::End { at_ms } => {
                        // The stream ended with the connection open: the latest contact.
                        transport::contacts::heard_from(&request.url, at_ms);
                        run.on_end(at_ms, &mut progress)
                    }
                    TransportEvent::Failed { at_ms, error } => {
                        run.on_failure(at_ms, &error, control.reason.get(), &mut progress)
                    }
                    TransportEvent::Timing(timing, server_timing) => {
                        if let Some(timing) = timing {
                            run.on_resource_timing(&timing);
                            transport::contacts::learn_round_trip(&request.url, &timing);
                        }
                        run.on_server_timing(&server_timing);
                        break;
                    }
                }
                drop(run);
                sink.deliver(&measurement, &mut progress);
            }
            drop(deadline);
            *control.abort.borrow_mut() = None;
        }
    }
    drop(ui_start_timer);
    fire(&on_started);
    for item in progress.drain(..) {
        (sink.on_progress)(&item);
    }
    settle_paints(sink.pending_paints).await;
    drop(heartbeat);
    finish_record(measurement, transport_kind, options.warm_up, &request.url).await
}

/// `plan`, scrubbing every key the tab holds whatever key it sends.
fn scrubbing_held_keys(plan: &RunPlan) -> RunPlan {
    let held_keys = crate::storage::held_keys();
    plan.clone()
        .scrubbing_also(held_keys.iter().map(String::as_str))
}

/// Where a run's progress goes: the view (`on_progress`), after the UI start (`on_started`)
/// has fired, with the paints of first texts watched when the view shows them.
struct ProgressSink<F: FnMut(&Progress)> {
    on_started: OnSent,
    painted: bool,
    pending_paints: Vec<oneshot::Receiver<()>>,
    on_progress: F,
}

impl<F: FnMut(&Progress)> ProgressSink<F> {
    /// Hands `progress` (drained) to the view.
    fn deliver(&mut self, measurement: &Rc<RefCell<Measurement>>, progress: &mut Vec<Progress>) {
        if !progress.is_empty() {
            fire(&self.on_started);
        }
        for item in progress.drain(..) {
            if self.painted {
                watch_text_paint(measurement, &item, &mut self.pending_paints);
            }
            (self.on_progress)(&item);
        }
    }
}

/// Reads a run's body into its measurement: every read a slice at a time (at most
/// [`READ_SLICE_BYTES`] in the wasm heap), each slice's progress shown at once, yielding to
/// the page whenever this work has run for [`clock::TASK_BUDGET_MS`], so that a flood
/// (megabytes of one-character events) never makes a long task.
struct BodyReader {
    /// One buffer for every slice of every read.
    buffer: Vec<u8>,
    /// The run stopped reading the body (TTFT-only, or unreadable): later reads are not
    /// copied at all.
    ended: bool,
    /// When the page's current stretch of work on this run began (reset on waking from an
    /// idle wait and on each yield).
    work_since_ms: f64,
}

impl BodyReader {
    fn new() -> BodyReader {
        BodyReader {
            buffer: Vec::with_capacity(READ_SLICE_BYTES as usize),
            ended: false,
            work_since_ms: clock::now_ms(),
        }
    }

    /// The transport's next event: at once when one waits, else after an idle wait (which
    /// ends a stretch of work); `None` when the transport is done.
    async fn next_event(
        &mut self,
        events: &mut futures_channel::mpsc::UnboundedReceiver<TransportEvent>,
    ) -> Option<TransportEvent> {
        match events.try_recv() {
            Ok(event) => Some(event),
            Err(futures_channel::mpsc::TryRecvError::Closed) => None,
            Err(futures_channel::mpsc::TryRecvError::Empty) => {
                let event = events.next().await;
                self.work_since_ms = clock::now_ms();
                event
            }
        }
    }

    /// Feeds one read (`bytes`, arrived at `at_ms`), slice by slice.
    async fn feed<F: FnMut(&Progress)>(
        &mut self,
        measurement: &Rc<RefCell<Measurement>>,
        at_ms: f64,
        bytes: &js_sys::Uint8Array,
        control: &RunControl,
        progress: &mut Vec<Progress>,
        sink: &mut ProgressSink<F>,
    ) {
        let length = bytes.length();
        let mut start = 0;
        while start < length && !self.ended {
            let mut now_ms = clock::now_ms();
            if now_ms - self.work_since_ms > clock::TASK_BUDGET_MS {
                clock::next_task().await;
                now_ms = clock::now_ms();
                self.work_since_ms = now_ms;
            }
            let end = length.min(start + READ_SLICE_BYTES);
            // A body faster than any model's stream holds the panes' drawing (flood.rs).
            crate::flood::observe(at_ms, now_ms, (end - start) as usize);
            self.ended = feed_slice(
                &mut measurement.borrow_mut(),
                at_ms,
                &bytes.subarray(start, end),
                &mut self.buffer,
                control,
                progress,
            );
            start = end;
            sink.deliver(measurement, progress);
        }
    }
}

/// Starts watching the paint of the text `item` shows, when it carries a paint id (the
/// first text of its channel).
fn watch_text_paint(
    measurement: &Rc<RefCell<Measurement>>,
    item: &Progress,
    pending_paints: &mut Vec<oneshot::Receiver<()>>,
) {
    if let Progress::Text {
        channel,
        paint_id: Some(paint_id),
        ..
    } = item
    {
        watch_paint(measurement, *channel, paint_id.clone(), pending_paints);
    }
}

/// Feeds one slice of a body read (at most [`READ_SLICE_BYTES`]) to the run, stamped with
/// the read's arrival, through one reused `buffer` (so it enters the wasm heap a slice at a
/// time). Returns whether the run stopped reading the body (TTFT-only mode has its first
/// answer token, or the stream is unreadable): later reads are then not copied at all.
fn feed_slice(
    run: &mut Measurement,
    at_ms: f64,
    slice: &js_sys::Uint8Array,
    buffer: &mut Vec<u8>,
    control: &RunControl,
    progress: &mut Vec<Progress>,
) -> bool {
    buffer.resize(slice.length() as usize, 0);
    slice.copy_to(buffer);
    match run.on_chunk(at_ms, buffer, progress) {
        StreamControl::Continue => false,
        StreamControl::Stop => {
            control.abort(AbortReason::TtftOnly);
            true
        }
        StreamControl::Abandon => {
            control.abort(AbortReason::Unreadable);
            true
        }
    }
}

/// The browser's estimate of its link, Mbit/s (`navigator.connection.downlink`, Chromium's
/// Network Information API: a downlink, rounded to 25 kbit/s and capped at 10 Mbit/s by the
/// engine); `None` where it gives none.
fn downlink_mbps() -> Option<f64> {
    let navigator = js_sys::Reflect::get(&js_sys::global(), &"navigator".into()).ok()?;
    let connection = js_sys::Reflect::get(&navigator, &"connection".into()).ok()?;
    if !connection.is_object() {
        return None;
    }
    js_sys::Reflect::get(&connection, &"downlink".into())
        .ok()?
        .as_f64()
}

/// The run's record, once its stream and paints are settled: the main thread's stalls
/// reported, then what only the page knows (wall-clock start, transport, page scheme, the
/// engine's arrival path) given to [`Measurement::finish`]. The round trip the run saw (its
/// preflight's, say) is remembered for the next runs to `url`'s origin.
async fn finish_record(
    measurement: Rc<RefCell<Measurement>>,
    transport: ttft_core::record::Transport,
    warm_up: bool,
    url: &str,
) -> RunRecord {
    // A request into this machine or the local network that failed as a network error: the
    // browser may have refused it (Local Network Access); only its permission's state says.
    let failed_in_network = measurement.borrow().timeline().network_failure().is_some();
    let space_permission = if failed_in_network {
        transport::space::permission_for(url).await
    } else {
        None
    };
    // And whether its host answered at all: a CORS refusal or an unreachable host.
    let answers_without_cors = if failed_in_network && !warm_up {
        transport::probe::answers_without_cors(url).await
    } else {
        None
    };
    {
        let mut run = measurement.borrow_mut();
        let since_ms = run.timeline().instants.request_started;
        availability::report_busy(&mut run, since_ms);
        // The last beat of the whole run's watch: the stretch since the heartbeat's last.
        run.on_main_thread_beat(clock::now_ms());
    }
    let started_ms = measurement.borrow().timeline().instants.request_started;
    let started_at = clock::iso_time(started_ms);
    let measurement = Rc::try_unwrap(measurement)
        .map(RefCell::into_inner)
        .unwrap_or_else(|shared| shared.borrow().clone());
    let record = measurement.finish(&FinishContext {
        started_at: &started_at,
        transport,
        warm_up,
        page_is_https: page_is_https(),
        now_unix_s: Some(clock::unix_seconds()),
        worker_arrivals_wait_for_main_thread: Some(
            availability::engine().worker_arrivals_wait_for_main_thread(),
        ),
        timer: Some(clock::timer_grade()),
        space_permission,
        answers_without_cors,
        downlink_mbps: downlink_mbps(),
    });
    // A ping estimate is kept with the pings, not as a handshake the page saw; ttft-relay's
    // round trip is the relay's to the provider, not the page's to the relay.
    if let Some(trip) = record.breakdown.as_ref().and_then(|b| b.round_trip) {
        use ttft_core::timeline::RoundTripSource;
        if !matches!(trip.from, RoundTripSource::Pings | RoundTripSource::Relay) {
            transport::contacts::remember_round_trip(url, trip.ms);
        }
    }
    record
}
