//! The lean widget: the first screen, and all a visitor downloads before the meter works
//! (`src/bin/widget.rs`, the page's `index.html`). It measures and shows runs exactly as the
//! lab does (same form, key gate, engine, live panes, readouts, diagnosis, runs table, URL
//! parameters and `postMessage` messages), and nothing else: experiments, history import and
//! export, charts, PNG export, fleet settings (OTLP, trace context, SLOs, probe mode) and
//! share links live in the lab (`lab/`, the full [`crate::app::App`], its own wasm), which
//! the widget opens on request with a link. Both pages share the origin, so the session's
//! runs (localStorage history) and the key (sessionStorage, this tab) carry over.
//!
//! Whatever is not referenced from here is left out of the widget's wasm by the linker: keep
//! lab-only modules (`fleet`, `experiments`, `components::{charts, share, chart_export,
//! experiments}`) out of this file's reach.

use std::time::Duration;

use leptos::prelude::*;
use leptos::task::spawn_local;
use ttft_core::config::{Theme, UrlConfig};
use ttft_core::measure::SeriesPlan;
use ttft_core::preset::SIMULATOR_PROBE_PATH;
use ttft_core::record::{cohort_summary, Cohort, Transport};
use web_sys::MouseEvent;

use crate::app::{
    repeating_can_succeed, save_on_pagehide, scroll_into_view, set_root_attribute, status_text,
    wasm_memory_bytes, ChooseEndpointNotice, HistoryNotices, KeyRefusedNotice, LanguageSwitch,
    RunProgress, ThemeSwitch,
};
use crate::components::endpoint::EndpointForm;
use crate::components::live::{LivePanes, LiveRun, Readouts};
use crate::components::results::{RunDetailLean, RunsFilter, RunsTable, RunsView};
use crate::embed::{self, Embed};
use crate::form::FormState;
use crate::i18n::{browser_lang, provide_i18n};
use crate::key_gate::{KeyConsent, KeyGate};
use crate::run::{self, RunControl, RunOptions};
use crate::session::Session;
use crate::{clock, paint, persist, transport};

/// Where the lab is, relative to the widget's page.
pub const LAB_PATH: &str = "lab/";

/// Whether the page's address asks for something only the lab does: an experiment, the
/// fleet options (OTLP export, trace context, SLOs, probe mode) or a share link.
pub fn needs_lab(config: &UrlConfig, fragment: &str) -> bool {
    config.experiment.is_some()
        || config.otlp_endpoint.is_some()
        || config.traceparent
        || config.probe.is_some()
        || config.slo.is_some()
        || fragment.contains(ttft_core::share::FRAGMENT_PREFIX.trim_end_matches("v1."))
}

/// This page's query and fragment (its configuration).
fn search_and_hash() -> String {
    let location = web_sys::window().map(|window| window.location());
    let search = location
        .as_ref()
        .and_then(|location| location.search().ok())
        .unwrap_or_default();
    let hash = location
        .as_ref()
        .and_then(|location| location.hash().ok())
        .unwrap_or_default();
    format!("{search}{hash}")
}

/// The lab's address with this page's configuration, relative to the widget's page.
fn lab_href() -> String {
    format!("{LAB_PATH}{}", search_and_hash())
}

/// From the lab: the widget's address with the lab's query (not its fragment: a share link
/// is the lab's), relative to the lab's page.
pub fn widget_href() -> String {
    let search = web_sys::window()
        .and_then(|window| window.location().search().ok())
        .unwrap_or_default();
    format!("../{search}")
}

/// Sends this page to the lab, without a history entry for the widget. Returns whether it
/// could.
pub fn replace_with_lab() -> bool {
    web_sys::window().is_some_and(|window| window.location().replace(&lab_href()).is_ok())
}

/// What a series needs from the page. Cheap to clone.
#[derive(Clone)]
struct WidgetSeries {
    live: LiveRun,
    session: Session,
    embed: Embed,
    control: StoredValue<Option<RunControl>, LocalStorage>,
    /// Set when a series is asked for, before the view shows it.
    running: StoredValue<bool>,
}

impl WidgetSeries {
    fn busy(&self) -> bool {
        self.running.get_value() || self.live.streaming.get_untracked()
    }
}

/// The lab's series without its fleet hooks: runs one after the other, keeps and posts each,
/// then saves and posts the summary. Returns whether Stop ended it.
async fn run_and_report(series: SeriesPlan, clicked_ms: Option<f64>, context: WidgetSeries) {
    let WidgetSeries {
        live,
        session,
        embed,
        control,
        running,
    } = context;
    running.set_value(true);
    let ticker = std::rc::Rc::new(std::cell::Cell::new(None));
    let ticking = std::rc::Rc::clone(&ticker);
    let mut on_first_started = Some(move || {
        scroll_into_view("answer-pane");
        live.streaming.set(true);
        ticking.set(set_interval_with_handle(move || live.tick(), Duration::from_millis(100)).ok());
    });
    let total = series.total_runs() as usize;
    for index in 0..total {
        let run_control = RunControl::default();
        control.set_value(Some(run_control.clone()));
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
            clicked_ms: clicked_ms.filter(|_| index == 0),
            warm_up: series.warm_up && index == 0,
            painted: true,
        };
        let record =
            run::measure_with(&series.run, options, &run_control, on_started, |progress| {
                live.apply(progress)
            })
            .await;
        // The end of a run is a chain of work: the record built, then shown, stored and
        // posted, then (after the last run) the history saved and the summary posted. Each
        // link runs in a task of its own, so that the end of a long run holds the main thread
        // for no long task (issue 14 #6).
        clock::sleep_ms(0.0).await;
        live.finish(&record);
        let repeatable = repeating_can_succeed(&record.outcome);
        let kept = session.push(record);
        clock::sleep_ms(0.0).await;
        embed.post_run(&kept);
        if run_control.stopped() || !repeatable {
            break;
        }
    }
    control.set_value(None);
    if let Some(ticker) = ticker.take() {
        ticker.clear();
    }
    running.set_value(false);
    live.streaming.set(false);
    session.save();
    clock::sleep_ms(0.0).await;
    let (total_runs, summary) = session.runs.with_untracked(|records| {
        let summary = cohort_summary(records, Cohort::All).ok().flatten();
        (records.len(), summary)
    });
    embed.post(
        "ttft-meter.summary",
        embed::summary_message(total_runs, summary.as_ref(), None),
    );
}

/// The lean widget.
#[component]
pub fn WidgetApp() -> impl IntoView {
    // First, before anything can keep it: a key in the URL is dropped from the address bar.
    let config = embed::read_page_config();
    let fragment = web_sys::window()
        .and_then(|window| window.location().hash().ok())
        .unwrap_or_default();
    // An address made for the lab (an experiment, fleet options, a share link) opens it.
    let redirecting = needs_lab(&config, &fragment) && replace_with_lab();
    let i18n = provide_i18n(
        config
            .lang
            .or_else(persist::saved_lang)
            .unwrap_or_else(browser_lang),
    );
    let gate = KeyGate::restored();
    provide_context(gate);
    let form = FormState::new(gate.binding.with_untracked(|binding| binding.key.clone()));
    form.apply_config(&config);
    let live = LiveRun::new();
    let session = Session::restored(gate);
    let embed = Embed::from_config(&config);
    provide_context(form);
    provide_context(live);
    provide_context(session);
    provide_context(embed.clone());
    let runs_filter = RwSignal::new(RunsFilter::All);
    provide_context(runs_filter);
    let theme = RwSignal::new(config.theme.or_else(|| {
        persist::load_preference(persist::THEME_SLOT).and_then(|code| Theme::parse(&code))
    }));
    provide_context(theme);
    Effect::new(move |_| set_root_attribute("data-theme", theme.get().map(Theme::code)));
    Effect::new(move |_| set_root_attribute("lang", Some(i18n.lang.get().code())));
    save_on_pagehide(session);
    if !redirecting {
        embed.post(
            "ttft-meter.ready",
            serde_json::json!({ "page_origin": persist::page_origin() }),
        );
    }
    let context = WidgetSeries {
        live,
        session,
        embed,
        control: StoredValue::new_local(None::<RunControl>),
        running: StoredValue::new(false),
    };
    paint::install_observer();
    crate::availability::install_observer();
    let transport = RwSignal::new(None::<Transport>);
    provide_context(transport);
    let simulator = RwSignal::new(None::<bool>);
    if !redirecting {
        spawn_local(async move {
            let (api_base, kind) = futures_util::future::join(
                crate::form::detect_simulator(SIMULATOR_PROBE_PATH),
                transport::prewarm(),
            )
            .await;
            if let Some(api_base) = &api_base {
                form.use_simulator(api_base);
            }
            simulator.set(Some(api_base.is_some()));
            transport.set(Some(kind));
        });
    }
    let compact = config.compact;
    let refused_keys = config.refused_keys.clone();
    let wasm_bytes = RwSignal::new(wasm_memory_bytes());

    let send_context = context.clone();
    let control = context.control;
    let start_series = move |clicked_ms: f64| {
        if context.busy() {
            return;
        }
        let series = match form.series_with_key(None).and_then(|keyless| {
            let api_key = gate.allowed_key(&keyless.run.request().url);
            form.series_with_key(api_key.as_deref())
        }) {
            Ok(series) => series,
            Err(error) => return live.refuse(error),
        };
        context.running.set_value(true);
        let context = context.clone();
        spawn_local(async move {
            run_and_report(series, Some(clicked_ms), context).await;
            wasm_bytes.set(wasm_memory_bytes());
            #[allow(clippy::panic)]
            if crate::crash::debug_panic_requested() {
                panic!("debug_panic=1: a panic on purpose, to show the crash banner");
            }
        });
    };
    let send = move |event: MouseEvent| {
        if send_context.busy() {
            return;
        }
        let target_url = match form.series_with_key(None) {
            Ok(series) => series.run.request().url.clone(),
            Err(error) => return live.refuse(error),
        };
        gate.request(&target_url, event.time_stamp(), start_series.clone());
    };
    let stop = move || {
        control.with_value(|run_control| {
            if let Some(run_control) = run_control {
                run_control.stop();
            }
        });
    };
    let runs = RunsView {
        runs: session.runs,
        filter: runs_filter,
    };
    let on_clear = Callback::new(move |()| session.clear());
    // Saved before the lab opens: it reads the history from storage.
    let open_lab = move |_| {
        session.save();
    };

    view! {
        <main
            class=if compact { "ttft compact" } else { "ttft" }
            data-testid="app"
            data-page="widget"
            data-transport=move || transport.get().map_or("starting", Transport::code)
            data-wasm-bytes=move || wasm_bytes.get().to_string()
            data-shared="false"
        >
            <header>
                <h1>"TTFT Meter"</h1>
                <p class="tagline">
                    {move || i18n.t(
                        "Time to first token, measured in your browser, as painted.",
                        "在你的浏览器中测量首 token 时间——以屏幕上显示为准。",
                    )}
                </p>
                <LanguageSwitch />
                <ThemeSwitch theme=theme />
            </header>
            <KeyRefusedNotice names=refused_keys />
            <ChooseEndpointNotice form=form simulator=simulator />
            <HistoryNotices session=session />
            <KeyConsent />
            <EndpointForm form=form streaming=live.streaming />
            <section class="panel" aria-labelledby="run-heading">
                <h2 id="run-heading">{move || i18n.t("Run", "运行")}</h2>
                <div class="actions">
                    <button
                        class="primary"
                        data-testid="send"
                        on:click=send.clone()
                        disabled=move || live.streaming.get()
                    >
                        {move || i18n.t("Send", "发送")}
                    </button>
                    <button data-testid="stop" on:click=move |_| stop() disabled=move || !live.streaming.get()>
                        {move || i18n.t("Stop", "停止")}
                    </button>
                    <span class="status" data-testid="status" data-state=move || live.status.get().code() role="status">
                        {move || status_text(live)}
                    </span>
                </div>
                <RunProgress live=live />
                <Readouts live=live />
                <LivePanes live=live />
            </section>
            <section class="panel" aria-labelledby="results-heading" data-testid="results">
                <h2 id="results-heading">{move || i18n.t("Results", "结果")}</h2>
                <Show
                    when=move || !session.runs.with(Vec::is_empty)
                    fallback=move || view! { <p class="meta">{move || i18n.t("No runs yet: press Send.", "还没有运行记录：请点击“发送”。")}</p> }
                >
                    <RunsTable runs=runs selected=session.selected on_clear=on_clear />
                    {move || session.selected_record().map(|record| view! { <RunDetailLean record=record /> })}
                </Show>
                <p class="page-link">
                    <a data-testid="open-lab" href=lab_href on:click=open_lab>
                        {move || i18n.t(
                            "More: experiments, history, exports, charts, fleet →",
                            "更多：实验、历史、导出、图表、监控 →",
                        )}
                    </a>
                </p>
            </section>
        </main>
    }
}
