//! A series of runs, as both pages run it: Send (through the key gate), the runs one after
//! the other with the live view, each finished run kept, stored and posted to the host page,
//! then the summary. The widget runs it as it is; the lab adds its fleet's hooks (trace
//! context, OTLP export, the SLO summary) through [`SeriesHooks`], so that none of the
//! fleet's code is in the widget's wasm (the widget's hooks are `()`).
//!
//! [`RunKeeper`] is the one way a run is measured and kept, for the runs of a series and
//! the lab's experiments alike: the hooks prepare the plan (trace context), the run is
//! measured, a failed run's diagnosis is completed by the hooks (the trace-context check),
//! the session keeps it (numbered and canonical), the host page gets it, and the hooks get
//! it (OTLP export with the ids the request carried).

use std::time::Duration;

use leptos::prelude::*;
use leptos::task::spawn_local;
use ttft_core::measure::{RunPlan, SeriesPlan};
use ttft_core::record::{cohort_summary, Cohort, RunRecord};
use ttft_core::timeline::RunOutcome;
use web_sys::MouseEvent;

use crate::clock;
use crate::embed::{self, Embed};
use crate::form::FormState;
use crate::key_gate::KeyGate;
use crate::run::{self, RunControl, RunOptions};
use crate::session::Session;
use crate::state::LiveRun;
use crate::transport::{CarrierSlot, SharedCarrier};

/// What a page adds to each run of a series. The widget adds nothing (`()`).
// Single-threaded wasm: the futures are never sent between threads, so no `Send` bound.
#[allow(async_fn_in_trait)]
pub trait SeriesHooks: Clone + 'static {
    /// What [`SeriesHooks::prepare`] hands to [`SeriesHooks::kept`] for the same run.
    type RunIds;

    /// The plan of one run as it is sent (`None`: the series' own plan).
    fn prepare(&self, plan: &RunPlan) -> (Option<RunPlan>, Self::RunIds);

    /// After a run ends: completes a failed run's diagnosis. Returns `true` when the failure
    /// is one that every further run would repeat.
    async fn check_failed(&self, _plan: &RunPlan, _record: &mut RunRecord) -> bool {
        false
    }

    /// A run the session kept (numbered and canonical).
    fn kept(&self, _record: &RunRecord, _ids: Self::RunIds) {}

    /// The `slo` object of the summary message.
    fn summary_slo(&self) -> Option<serde_json::Value> {
        None
    }
}

impl SeriesHooks for () {
    type RunIds = ();

    fn prepare(&self, _plan: &RunPlan) -> (Option<RunPlan>, ()) {
        (None, ())
    }
}

/// A run measured by [`RunKeeper::measure`], not kept yet.
pub struct Measured<I> {
    /// Its record.
    pub record: RunRecord,
    /// What the hooks prepared for it (the ids its request carried).
    ids: I,
    /// Whether the hooks found a failure that every further run would repeat.
    pub hopeless: bool,
}

/// Where finished runs go, and what the page adds to each: the one way to measure and keep
/// a run, for a series and an experiment alike. Cheap to clone.
#[derive(Clone)]
pub struct RunKeeper<H> {
    /// The page's runs (table, charts, storage).
    pub session: Session,
    /// The host page's channel.
    pub embed: Embed,
    /// What the page adds to each run (the lab: its fleet; the widget: `()`).
    pub hooks: H,
    /// What carries the runs' requests (the page's fetch worker; a test's script).
    pub carrier: SharedCarrier,
}

impl<H: SeriesHooks> RunKeeper<H> {
    /// Measures one run of `plan` as the hooks prepare it (trace context), then completes
    /// a failed run's diagnosis with the hooks' check. `on_started` and `on_progress` as in
    /// [`run::measure_with`].
    pub async fn measure(
        &self,
        plan: &RunPlan,
        options: RunOptions,
        control: &RunControl,
        on_started: impl FnOnce() + 'static,
        on_progress: impl FnMut(&ttft_core::measure::Progress),
    ) -> Measured<H::RunIds> {
        let (prepared, ids) = self.hooks.prepare(plan);
        let plan = prepared.as_ref().unwrap_or(plan);
        let mut record = run::measure_with(
            self.carrier.as_ref(),
            plan,
            options,
            control,
            on_started,
            on_progress,
        )
        .await;
        let hopeless = self.hooks.check_failed(plan, &mut record).await;
        Measured {
            record,
            ids,
            hopeless,
        }
    }

    /// Pings the endpoint of `plan` between runs, where it hides its timing
    /// ([`crate::transport::pings::round`]).
    pub async fn ping_between_runs(&self, plan: &RunPlan) {
        crate::transport::pings::round(self.carrier.as_ref(), &plan.endpoint.models_url).await;
    }

    /// Keeps a measured run: the session numbers and stores it, then (in a task of its own,
    /// so that the end of a long run holds the main thread for no long task) the host page
    /// and the hooks get the kept record. Returns it.
    pub async fn keep(&self, measured: Measured<H::RunIds>) -> RunRecord {
        let Measured { record, ids, .. } = measured;
        let kept = self.session.push(record);
        clock::sleep_ms(0.0).await;
        self.embed.post_run(&kept);
        self.hooks.kept(&kept, ids);
        kept
    }
}

/// What a series needs from the page. Cheap to clone.
#[derive(Clone)]
pub struct SeriesContext<H> {
    pub live: LiveRun,
    pub session: Session,
    pub embed: Embed,
    /// The running run's Stop.
    pub control: StoredValue<Option<RunControl>, LocalStorage>,
    /// Set when a series is asked for, before the view shows it (which waits for the
    /// request to leave): a second click in between must not start another series.
    pub running: StoredValue<bool>,
    pub hooks: H,
    /// What carries the runs' requests.
    pub carrier: CarrierSlot,
}

impl<H: SeriesHooks> SeriesContext<H> {
    /// A series' context over the page's state, its hooks and the carrier of its runs'
    /// requests ([`crate::page::PageState`]'s `carrier`).
    pub fn new(
        live: LiveRun,
        session: Session,
        embed: Embed,
        hooks: H,
        carrier: CarrierSlot,
    ) -> Self {
        SeriesContext {
            live,
            session,
            embed,
            control: StoredValue::new_local(None),
            running: StoredValue::new(false),
            hooks,
            carrier,
        }
    }

    /// Where this series' runs go: the one way to measure and keep a run.
    pub fn keeper(&self) -> RunKeeper<H> {
        RunKeeper {
            session: self.session,
            embed: self.embed.clone(),
            hooks: self.hooks.clone(),
            carrier: self.carrier.carrier(),
        }
    }

    /// Whether a series is under way (asked for, or showing).
    pub fn busy(&self) -> bool {
        self.running.get_value() || self.live.streaming.get_untracked()
    }

    /// Stop: ends the running run, and the series with it. Cheap to copy.
    pub fn stopper(&self) -> impl Fn() + Copy + 'static {
        let control = self.control;
        move || {
            control.with_value(|run_control| {
                if let Some(run_control) = run_control {
                    run_control.stop();
                }
            });
        }
    }
}

/// Whether the next run of a series can end differently: not after the server refused the
/// request itself (4xx other than 408 and 429), where every further run would fail the
/// same way.
pub fn repeating_can_succeed(outcome: &RunOutcome) -> bool {
    match outcome {
        RunOutcome::NotSent => false,
        RunOutcome::HttpError { status } => {
            !(400..500).contains(status) || matches!(status, 408 | 429)
        }
        _ => true,
    }
}

/// Runs the series one run after the other (a warm-up first when asked); a failed run is
/// recorded with its diagnosis and the series goes on unless every further run would fail
/// the same way; Stop ends the series. Each finished run is kept by the session, posted to
/// the host page and handed to the hooks. Returns whether Stop ended it.
///
/// The first run's request leaves before the page does anything else: the view starts
/// showing it (`on_first_started`: Send disabled, panes cleared, the answer pane scrolled
/// into view, the elapsed counter) once the request is out ([`run::measure_with`]). Later
/// runs show their start first and send their request after the page has rendered it.
async fn run_series<H: SeriesHooks>(
    series: &SeriesPlan,
    clicked_ms: Option<f64>,
    context: &SeriesContext<H>,
    on_first_started: impl FnOnce() + 'static,
) -> bool {
    let live = context.live;
    let mut stopped = false;
    let total = series.total_runs() as usize;
    let mut on_first_started = Some(on_first_started);
    live.begin_series(&series.run);
    for index in 0..total {
        let run_control = RunControl::default();
        context.control.set_value(Some(run_control.clone()));
        let show_start = move || {
            live.reset();
            live.progress.set((index + 1, total));
            live.sent();
        };
        let on_started: Box<dyn FnOnce()> = match on_first_started.take() {
            Some(first) => Box::new(move || {
                first();
                show_start();
            }),
            None => {
                show_start();
                Box::new(|| {})
            }
        };
        let options = RunOptions {
            // Only the first run starts with the user's click; later runs are scheduled.
            clicked_ms: clicked_ms.filter(|_| index == 0),
            warm_up: series.warm_up && index == 0,
            painted: true,
        };
        let keeper = context.keeper();
        let measured = keeper
            .measure(&series.run, options, &run_control, on_started, |progress| {
                live.apply(progress)
            })
            .await;
        // The end of a run is a chain of work: the record built, then shown, stored and
        // posted, then (after the last run) the history saved and the summary posted. Each
        // link runs in a task of its own, so that the end of a long run holds the main thread
        // for no long task.
        clock::sleep_ms(0.0).await;
        live.finish(&measured.record);
        let repeatable = repeating_can_succeed(&measured.record.outcome) && !measured.hopeless;
        keeper.keep(measured).await;
        stopped = run_control.stopped();
        if stopped || !repeatable {
            break;
        }
        // Between runs (never during one): where the endpoint hides its timing, pings give
        // the next runs their round trip (transport::pings). After the last run they go in
        // the background, for the next series; a run started meanwhile waits for the one on
        // its way.
        if index + 1 < total {
            keeper.ping_between_runs(&series.run).await;
        } else {
            let url = series.run.endpoint.models_url.clone();
            spawn_local(async move {
                crate::transport::pings::round(keeper.carrier.as_ref(), &url).await;
            });
        }
    }
    context.control.set_value(None);
    stopped
}

/// Runs a series with the live view, then saves the history and posts the summary (with
/// the hooks' SLO result). Returns whether Stop ended the series.
pub async fn run_and_report<H: SeriesHooks>(
    series: SeriesPlan,
    clicked_ms: Option<f64>,
    context: SeriesContext<H>,
) -> bool {
    let live = context.live;
    context.running.set_value(true);
    let ticker = std::rc::Rc::new(std::cell::Cell::new(None));
    // The view's side of the start, once the first request is out (run::measure_with).
    let ticking = std::rc::Rc::clone(&ticker);
    let show_series = move || {
        // The answer must be on screen to be painted (Element Timing reports only what is
        // painted in the viewport), and the user is looking for it anyway.
        scroll_into_view("answer-pane");
        live.streaming.set(true);
        ticking.set(
            set_interval_with_handle(
                move || live.tick(),
                Duration::from_millis(crate::state::ELAPSED_TICK_MS),
            )
            .ok(),
        );
    };
    let stopped = run_series(&series, clicked_ms, &context, show_series).await;
    if let Some(ticker) = ticker.take() {
        ticker.clear();
    }
    context.running.set_value(false);
    live.streaming.set(false);
    context.session.save();
    clock::sleep_ms(0.0).await;
    // From the session's records, as the run messages are: the same (canonical) numbers in
    // both, and the same path as the page's summary table.
    let (total_runs, summary, wait) = context.session.runs.with_untracked(|records| {
        let summary = cohort_summary(records, Cohort::All).ok().flatten();
        let wait = ttft_core::timeline::WaitSummary::of(
            records
                .iter()
                .filter(|record| record.counts())
                .filter_map(|record| record.breakdown.as_ref()),
        );
        (records.len(), summary, wait)
    });
    context.embed.post(
        "ttft-meter.summary",
        embed::summary_message(
            total_runs,
            summary.as_ref(),
            wait.map(|wait| wait.to_json()),
            context.hooks.summary_slo(),
        ),
    );
    stopped
}

/// Send's click handler: parses the form once, with the key it holds, and asks the key gate
/// whether that key may go where the plan points (the consent question when it must ask);
/// then starts the series: as parsed when the gate lets the key go (or there is none), else
/// parsed again with the key the gate allows (none). `before_start` runs just before (the lab
/// shows all runs again, so that the new one is in the table); `wasm_bytes` gets the wasm
/// heap's size after the series, for the tests of the memory bound.
pub fn send_handler<H: SeriesHooks>(
    form: FormState,
    gate: KeyGate,
    context: SeriesContext<H>,
    wasm_bytes: RwSignal<f64>,
    before_start: impl Fn() + Clone + 'static,
) -> impl Fn(MouseEvent) + Clone + 'static {
    // Starts `series` (sending `typed_key`) if the gate allows that key for its URL, else the
    // form with the key the gate allows; `clicked_ms` is the click that started it (Send, or
    // the answer to the key question).
    let start_series = {
        let context = context.clone();
        move |clicked_ms: f64, series: SeriesPlan, typed_key: String| {
            if context.busy() {
                return;
            }
            let allowed_key = gate.allowed_key(&series.run.request().url);
            let series = if allowed_key.as_deref().unwrap_or_default() == typed_key {
                series
            } else {
                match form.series_with_key(allowed_key.as_deref()) {
                    Ok(series) => series,
                    Err(error) => return context.live.refuse(error),
                }
            };
            before_start();
            context.running.set_value(true);
            let context = context.clone();
            spawn_local(async move {
                run_and_report(series, Some(clicked_ms), context).await;
                wasm_bytes.set(wasm_memory_bytes());
                #[allow(clippy::panic)]
                if crate::crash::debug_panic_requested() {
                    // `debug_panic=1`: the crash banner, on purpose, after the run was saved.
                    panic!("debug_panic=1: a panic on purpose, to show the crash banner");
                }
            });
        }
    };
    move |event: MouseEvent| {
        if context.busy() {
            return;
        }
        // The form, parsed once with the key it holds; the key goes along only if the gate
        // says so for the URL the plan names.
        let typed_key = form.api_key.get_untracked();
        let series = match form.series_with_key(Some(&typed_key)) {
            Ok(series) => series,
            Err(error) => return context.live.refuse(error),
        };
        let target_url = series.run.request().url.clone();
        let start_series = start_series.clone();
        // The user's start: the click's own timestamp, on the page clock.
        gate.request(&target_url, event.time_stamp(), move |clicked_ms| {
            start_series(clicked_ms, series, typed_key)
        });
    }
}

/// The widget's Send handler: [`send_handler`] with no hooks, instantiated in this crate.
/// Generic code instantiated in the widget's own package would carry its own copies of
/// what it inlines from here (a record's clone, the timers), beside this crate's: measured
/// at +5 KB gzip of the first load.
pub fn plain_send_handler(
    form: FormState,
    gate: KeyGate,
    context: SeriesContext<()>,
    wasm_bytes: RwSignal<f64>,
) -> impl Fn(MouseEvent) + Clone + 'static {
    send_handler(form, gate, context, wasm_bytes, || {})
}

/// The size of the wasm heap, in bytes.
pub fn wasm_memory_bytes() -> f64 {
    let memory = wasm_bindgen::memory();
    js_sys::Reflect::get(&memory, &"buffer".into())
        .and_then(|buffer| js_sys::Reflect::get(&buffer, &"byteLength".into()))
        .ok()
        .and_then(|length| length.as_f64())
        .unwrap_or_default()
}

/// Scrolls the element `id` into view (as little as needed).
pub fn scroll_into_view(id: &str) {
    let Some(element) = web_sys::window()
        .and_then(|window| window.document())
        .and_then(|document| document.get_element_by_id(id))
    else {
        return;
    };
    let options = web_sys::ScrollIntoViewOptions::new();
    options.set_block(web_sys::ScrollLogicalPosition::Nearest);
    element.scroll_into_view_with_scroll_into_view_options(&options);
}
