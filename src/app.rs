//! The widget: layout and the series of runs. Components only wire signals to elements;
//! measuring happens in [`crate::run`], computing in ttft-core.

use std::time::Duration;

use leptos::prelude::*;
use leptos::task::spawn_local;
use ttft_core::diagnosis::Lang;
use web_sys::MouseEvent;

use crate::components::charts::{DistributionView, ItlView, RunsChartView};
use crate::components::endpoint::EndpointForm;
use crate::components::experiments::ExperimentsPanel;
use crate::components::live::{LivePanes, LiveRun, Readouts};
use crate::components::results::{RunDetail, RunsTable, SummaryTable};
use crate::i18n::{browser_lang, provide_i18n, use_i18n};
use crate::run::{self, RunControl, RunRecord, RunSettings, RunUpdate};
use crate::state::{cohort_metrics, cohort_summary, Cohort, FormState, RunEntry, Session};
use crate::{paint, storage};

/// Runs `measured` runs (after an optional warm-up) one after the other; a failed run is
/// recorded with its diagnosis and the series goes on; Stop ends the series.
async fn run_series(
    settings: RunSettings,
    measured: u32,
    warmup: bool,
    clicked_ms: f64,
    live: LiveRun,
    session: Session,
    control: StoredValue<Option<RunControl>, LocalStorage>,
) {
    let total = measured as usize + usize::from(warmup);
    for index in 0..total {
        let run_control = RunControl::default();
        control.set_value(Some(run_control.clone()));
        live.reset();
        live.progress.set((index + 1, total));
        // Only the first run starts with the user's click; later runs are scheduled.
        let clicked = (index == 0).then_some(clicked_ms);
        let mut finished: Option<RunRecord> = None;
        run::measure(settings.clone(), clicked, run_control.clone(), |update| {
            live.apply(&update);
            if let RunUpdate::Finished(record) = update {
                finished = Some(*record);
            }
        })
        .await;
        if let Some(record) = finished {
            let number = session
                .runs
                .with_untracked(|runs| runs.last().map_or(1, |last| last.number + 1));
            session.runs.update(|runs| {
                runs.push(RunEntry {
                    number,
                    warmup: warmup && index == 0,
                    model: settings.model.clone(),
                    record,
                })
            });
            session.selected.set(Some(number));
        }
        if run_control.stopped() {
            break;
        }
    }
    control.set_value(None);
}

/// The whole widget.
#[component]
pub fn App() -> impl IntoView {
    let i18n = provide_i18n(browser_lang());
    let form = FormState::new(storage::load_api_key());
    let live = LiveRun::new();
    let session = Session {
        runs: RwSignal::new(Vec::new()),
        selected: RwSignal::new(None),
    };
    let control = StoredValue::new_local(None::<RunControl>);
    paint::install_observer();

    let send = move |event: MouseEvent| {
        if live.streaming.get_untracked() {
            return;
        }
        // The user's start: the click's own timestamp, on the page clock.
        let clicked_ms = event.time_stamp();
        let (settings, measured) = match form.settings(i18n.lang_untracked()) {
            Ok(parsed) => parsed,
            Err(message) => {
                live.reset();
                live.input_error.set(Some(message));
                live.status.set("invalid input".into());
                return;
            }
        };
        let warmup = form.warmup.get_untracked();
        live.streaming.set(true);
        let ticker = set_interval_with_handle(move || live.tick(), Duration::from_millis(100)).ok();
        spawn_local(async move {
            run_series(
                settings, measured, warmup, clicked_ms, live, session, control,
            )
            .await;
            if let Some(ticker) = ticker {
                ticker.clear();
            }
            live.streaming.set(false);
        });
    };
    let stop = move |_| {
        control.with_value(|run_control| {
            if let Some(run_control) = run_control {
                run_control.stop();
            }
        });
    };

    view! {
        <main class="ttft">
            <header>
                <h1>"TTFT Meter"</h1>
                <p class="tagline">
                    {move || i18n.t(
                        "Time to first token, measured in your browser, as painted.",
                        "在你的浏览器中测量首 token 时间——以屏幕上显示为准。",
                    )}
                </p>
                <LanguageSwitch />
            </header>
            <EndpointForm form=form streaming=live.streaming />
            <section class="panel" aria-labelledby="run-heading">
                <h2 id="run-heading">{move || i18n.t("Run", "运行")}</h2>
                <div class="actions">
                    <button
                        class="primary"
                        data-testid="send"
                        on:click=send
                        disabled=move || live.streaming.get()
                    >
                        {move || i18n.t("Send", "发送")}
                    </button>
                    <button data-testid="stop" on:click=stop disabled=move || !live.streaming.get()>
                        {move || i18n.t("Stop", "停止")}
                    </button>
                    <span class="status" data-testid="status" data-state=move || live.status.get() role="status">
                        {move || status_text(live)}
                    </span>
                </div>
                <Readouts live=live />
                <LivePanes live=live />
            </section>
            <Results session=session />
            <ExperimentsPanel form=form />
        </main>
    }
}

fn status_text(live: LiveRun) -> String {
    let i18n = use_i18n();
    let (run, total) = live.progress.get();
    let of = if total > 1 {
        i18n.pick(
            format!(" (run {run} of {total})"),
            format!("（第 {run}/{total} 次）"),
        )
    } else {
        String::new()
    };
    let state = match live.status.get().as_str() {
        "waiting" => i18n.t("Waiting for the first token…", "正在等待首个 token…"),
        "streaming" => i18n.t("Streaming…", "正在接收…"),
        "done" => i18n.t("Done.", "完成。"),
        "failed" => i18n.t("The run failed; see why below.", "运行失败，原因见下方。"),
        "invalid input" => i18n.t("Check the input.", "请检查输入。"),
        _ => i18n.t("Ready.", "就绪。"),
    };
    format!("{state}{of}")
}

/// English / 中文.
#[component]
fn LanguageSwitch() -> impl IntoView {
    let i18n = use_i18n();
    view! {
        <div class="lang-switch" role="group" aria-label="Language / 语言">
            <button
                type="button"
                data-testid="lang-en"
                aria-pressed=move || (i18n.lang.get() == Lang::En).to_string()
                on:click=move |_| i18n.lang.set(Lang::En)
            >
                "English"
            </button>
            <button
                type="button"
                data-testid="lang-zh"
                aria-pressed=move || (i18n.lang.get() == Lang::Zh).to_string()
                on:click=move |_| i18n.lang.set(Lang::Zh)
            >
                "中文"
            </button>
        </div>
    }
}

/// Tables, charts and the selected run's details.
#[component]
fn Results(
    /// The session.
    session: Session,
) -> impl IntoView {
    let i18n = use_i18n();
    let runs = session.runs;
    let measured = move || {
        runs.get()
            .into_iter()
            .filter(|entry| !entry.warmup)
            .collect::<Vec<_>>()
    };
    let series = Signal::derive(move || {
        let measured = measured();
        let pick =
            |metric: fn(&RunEntry) -> Option<f64>| measured.iter().map(metric).collect::<Vec<_>>();
        [
            pick(|entry| entry.record.metrics.ttft_ms),
            pick(|entry| entry.record.metrics.ttfa_ms),
            pick(|entry| entry.record.metrics.perceived_ttfa_ms),
        ]
    });
    let ttfa_summary = Memo::new(move |_| {
        runs.with(|runs| cohort_summary(runs, Cohort::All))
            .and_then(|summary| summary.ttfa_ms)
    });
    let references = Signal::derive(move || {
        ttfa_summary
            .get()
            .map(|summary| vec![("p50", summary.p50), ("p95", summary.p95)])
            .unwrap_or_default()
    });
    let markers = Signal::derive(move || {
        ttfa_summary
            .get()
            .map(|summary| {
                vec![
                    ("p50", summary.p50),
                    ("p95", summary.p95),
                    ("p99", summary.p99),
                ]
            })
            .unwrap_or_default()
    });
    let ttfa_values = Signal::derive(move || {
        runs.with(|runs| cohort_metrics(runs, Cohort::All))
            .iter()
            .filter_map(|metrics| metrics.ttfa_ms)
            .collect()
    });
    let selected_entry = move || {
        let selected = session.selected.get()?;
        runs.with(|runs| runs.iter().find(|entry| entry.number == selected).cloned())
    };
    let itl_gaps = Signal::derive(move || {
        selected_entry()
            .map(|entry| entry.record.metrics.itl_gaps_ms)
            .unwrap_or_default()
    });
    view! {
        <section class="panel" aria-labelledby="results-heading" data-testid="results">
            <h2 id="results-heading">{move || i18n.t("Results", "结果")}</h2>
            <Show
                when=move || !runs.with(Vec::is_empty)
                fallback=move || view! { <p class="meta">{move || i18n.t("No runs yet: press Send.", "还没有运行记录：请点击“发送”。")}</p> }
            >
                <RunsTable runs=runs selected=session.selected />
                <SummaryTable runs=runs />
                <div class="charts">
                    <RunsChartView series=series references=references />
                    <DistributionView values_ms=ttfa_values markers=markers metric="ttfa_ms" />
                    <ItlView gaps_ms=itl_gaps />
                </div>
                {move || selected_entry().map(|entry| view! { <RunDetail entry=entry /> })}
            </Show>
        </section>
    }
}
