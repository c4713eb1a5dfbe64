//! The widget: layout and the series of runs. Components only wire signals to elements;
//! measuring happens in [`crate::run`], computing in ttft-core.

use std::time::Duration;

use leptos::prelude::*;
use leptos::task::spawn_local;
use ttft_core::lang::Lang;
use ttft_core::timeline::RunOutcome;
use wasm_bindgen::JsCast;
use web_sys::MouseEvent;

use crate::components::charts::{DistributionView, ItlView, RunsChartView};
use crate::components::endpoint::EndpointForm;
use crate::components::experiments::ExperimentsPanel;
use crate::components::live::{LivePanes, LiveRun, Readouts};
use crate::components::results::{RunDetail, RunsTable, SummaryTable};
use crate::components::share::HistoryList;
use crate::embed::{self, Embed, ExperimentRequest, Theme};
use crate::i18n::{browser_lang, provide_i18n, use_i18n};
use crate::persist::{self, entry_from_export, Archive};
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
        let repeatable = finished
            .as_ref()
            .is_none_or(|record| repeating_can_succeed(&record.outcome));
        if let Some(record) = finished {
            session.push(warmup && index == 0, settings.model.clone(), record);
        }
        if run_control.stopped() || !repeatable {
            break;
        }
    }
    control.set_value(None);
}

/// Whether the next run of a series can end differently: not after the input was rejected
/// or the server refused the request itself (4xx other than 408 and 429), where every
/// further run would fail the same way.
fn repeating_can_succeed(outcome: &RunOutcome) -> bool {
    match outcome {
        RunOutcome::NotSent => false,
        RunOutcome::HttpError { status } => {
            !(400..500).contains(status) || matches!(status, 408 | 429)
        }
        _ => true,
    }
}

/// Sets or removes an attribute of `<html>` (theme, language).
fn set_root_attribute(name: &str, value: Option<&str>) {
    let Some(root) = web_sys::window()
        .and_then(|window| window.document())
        .and_then(|document| document.document_element())
    else {
        return;
    };
    let _ = match value {
        Some(value) => root.set_attribute(name, value),
        None => root.remove_attribute(name),
    };
}

/// Brings the archive in line with the session's runs; on a change, posts each new run to
/// the host page and saves (at once when `save_now`, else at most every
/// [`persist::SAVE_INTERVAL_MS`]). Idempotent, so the summary can call it first to keep run
/// messages before the summary.
fn sync_and_publish(
    session: Session,
    form: FormState,
    archive: Archive,
    embed: &Embed,
    save_now: bool,
) {
    if let Some(made) = session.runs.with(|runs| archive.sync(runs, &form)) {
        archive.records.with_untracked(|records| {
            for record in records
                .iter()
                .filter(|record| made.contains(&record.run_index))
            {
                embed.post("ttft-meter.run", embed::run_message(record));
            }
        });
    }
    archive.save(save_now);
}

/// Loads the stored history into the session and keeps storage (and the host page, when
/// embedded) in step with it: every change of the runs is saved (throttled while a series
/// runs), every new run posted; leaving the page writes what is pending.
fn persist_session(
    session: Session,
    form: FormState,
    archive: Archive,
    embed: Embed,
    streaming: RwSignal<bool>,
) {
    let stored = persist::load_runs();
    session
        .selected
        .set(stored.last().map(|record| record.run_index as usize));
    session
        .runs
        .set(stored.iter().map(entry_from_export).collect());
    archive.records.set(stored);
    Effect::new(move |_| {
        sync_and_publish(session, form, archive, &embed, !streaming.get_untracked())
    });
    if let Some(window) = web_sys::window() {
        let flush = wasm_bindgen::closure::Closure::<dyn Fn()>::new(move || {
            archive.save(true);
        });
        let _ = window.add_event_listener_with_callback("pagehide", flush.as_ref().unchecked_ref());
        // Lives as long as the page.
        flush.forget();
    }
}

/// The whole widget.
#[component]
pub fn App() -> impl IntoView {
    // First, before anything can keep it: a key in the URL is dropped from the address bar.
    let config = embed::read_page_config();
    let i18n = provide_i18n(
        config
            .lang
            .or_else(persist::saved_lang)
            .unwrap_or_else(browser_lang),
    );
    let form = FormState::new(storage::load_api_key());
    config.apply_to(&form);
    let live = LiveRun::new();
    let session = Session::new();
    let archive = Archive::new();
    let embed = Embed::from_config(&config);
    provide_context(form);
    provide_context(live);
    provide_context(session);
    provide_context(archive);
    provide_context(embed.clone());
    provide_context(ExperimentRequest(config.experiment.clone()));
    let theme = RwSignal::new(config.theme.or_else(|| {
        persist::load_preference(persist::THEME_SLOT).and_then(|code| Theme::parse(&code))
    }));
    provide_context(theme);
    Effect::new(move |_| set_root_attribute("data-theme", theme.get().map(Theme::code)));
    Effect::new(move |_| set_root_attribute("lang", Some(persist::lang_code(i18n.lang.get()))));
    persist_session(session, form, archive, embed.clone(), live.streaming);
    embed.post(
        "ttft-meter.ready",
        serde_json::json!({ "page_origin": crate::state::page_origin() }),
    );
    let control = StoredValue::new_local(None::<RunControl>);
    paint::install_observer();
    // "starting", then "worker" or "main-thread": which transport runs will use.
    let transport = RwSignal::new("starting");
    spawn_local(async move {
        let worker = run::prewarm_worker().await;
        transport.set(if worker { "worker" } else { "main-thread" });
    });
    let compact = config.compact;
    // Shown on the root for scripts and tests until the experiments panel reads the context.
    let experiment = config.experiment.clone();
    let refused_keys = config.refused_keys.clone();
    let post_embed = embed.clone();

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
        // The answer must be on screen to be painted (Element Timing reports only what is
        // painted in the viewport), and the user is looking for it anyway.
        scroll_into_view("answer-pane");
        live.streaming.set(true);
        let ticker = set_interval_with_handle(move || live.tick(), Duration::from_millis(100)).ok();
        let post_embed = post_embed.clone();
        spawn_local(async move {
            run_series(
                settings, measured, warmup, clicked_ms, live, session, control,
            )
            .await;
            if let Some(ticker) = ticker {
                ticker.clear();
            }
            live.streaming.set(false);
            sync_and_publish(session, form, archive, &post_embed, true);
            // From the archive's records, as the run messages are: the same (canonical)
            // numbers in both.
            let (total_runs, summary) = archive.records.with_untracked(|records| {
                let summary = ttft_core::export::statistics_summary(records)
                    .ok()
                    .flatten();
                (records.len(), summary)
            });
            post_embed.post(
                "ttft-meter.summary",
                embed::summary_message(total_runs, summary.as_ref()),
            );
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
        <main
            class=if compact { "ttft compact" } else { "ttft" }
            data-testid="app"
            data-experiment=experiment
            data-transport=move || transport.get()
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
                <RunProgress live=live />
                <Readouts live=live />
                <LivePanes live=live />
            </section>
            <Results session=session />
            <ExperimentsPanel form=form />
            <HistoryList />
        </main>
    }
}

/// Scrolls the element with `id` just enough to be visible.
fn scroll_into_view(id: &str) {
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

/// Switches the language and remembers the choice for the next visit.
fn choose_lang(i18n: crate::i18n::I18n, lang: Lang) {
    i18n.lang.set(lang);
    persist::save_preference(persist::LANG_SLOT, Some(persist::lang_code(lang)));
}

/// A progress bar while a series of several runs is going.
#[component]
fn RunProgress(
    /// The live run (progress and streaming flag).
    live: LiveRun,
) -> impl IntoView {
    let i18n = use_i18n();
    let series_running = move || live.streaming.get() && live.progress.get().1 > 1;
    view! {
        <Show when=series_running>
            <progress
                class="run-progress"
                data-testid="run-progress"
                max=move || live.progress.get().1
                value=move || live.progress.get().0.saturating_sub(1)
                aria-label=move || i18n.t("Runs done", "已完成的运行")
            ></progress>
        </Show>
    }
}

/// Says that a key given in the URL was refused, and why.
#[component]
fn KeyRefusedNotice(
    /// The refused parameter names.
    names: Vec<String>,
) -> impl IntoView {
    let i18n = use_i18n();
    (!names.is_empty()).then(|| {
        let names = names.join(", ");
        view! {
            <p class="notice" role="alert" data-testid="key-refused">
                {move || i18n.pick(
                    format!("A key in the page address ({names}) was ignored and removed from the address: addresses end up in browser history, server logs and shared links. Type the key in the API key field instead; it stays in this tab only."),
                    format!("页面地址中的密钥（{names}）已被忽略并从地址中移除：地址会留在浏览器历史、服务器日志和分享的链接中。请在 API 密钥输入框中输入密钥；它只保存在当前标签页中。"),
                )}
            </p>
        }
    })
}

/// Light / dark / the system's choice; remembered for the next visit.
#[component]
fn ThemeSwitch(
    /// The chosen theme (`None`: follow the system).
    theme: RwSignal<Option<Theme>>,
) -> impl IntoView {
    let i18n = use_i18n();
    let choose = move |event: web_sys::Event| {
        let chosen = Theme::parse(&event_target_value(&event));
        theme.set(chosen);
        persist::save_preference(persist::THEME_SLOT, chosen.map(Theme::code));
    };
    let code = move || theme.get().map_or("auto", Theme::code);
    view! {
        <label class="theme-switch">
            <span>{move || i18n.t("Theme", "主题")}</span>
            <select data-testid="theme" on:change=choose prop:value=code>
                <option value="auto" selected=move || code() == "auto">{move || i18n.t("System", "跟随系统")}</option>
                <option value="light" selected=move || code() == "light">{move || i18n.t("Light", "浅色")}</option>
                <option value="dark" selected=move || code() == "dark">{move || i18n.t("Dark", "深色")}</option>
            </select>
        </label>
    }
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
                on:click=move |_| choose_lang(i18n, Lang::En)
            >
                "English"
            </button>
            <button
                type="button"
                data-testid="lang-zh"
                aria-pressed=move || (i18n.lang.get() == Lang::Zh).to_string()
                on:click=move |_| choose_lang(i18n, Lang::Zh)
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
    // Memos: computed once per change of the runs, and unchanged values re-render nothing.
    let series = Memo::new(move |_| {
        runs.with(|runs| {
            let pick = |metric: fn(&RunEntry) -> Option<f64>| {
                runs.iter()
                    .filter(|entry| !entry.warmup)
                    .map(metric)
                    .collect::<Vec<_>>()
            };
            [
                pick(|entry| entry.record.metrics.ttft_ms),
                pick(|entry| entry.record.metrics.ttfa_ms),
                pick(|entry| entry.record.metrics.perceived_ttfa_ms),
            ]
        })
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
    let ttfa_values = Memo::new(move |_| {
        runs.with(|runs| {
            cohort_metrics(runs, Cohort::All)
                .iter()
                .filter_map(|metrics| metrics.ttfa_ms)
                .collect::<Vec<f64>>()
        })
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
                <Show when=move || !ttfa_values.with(Vec::is_empty)>
                    <div class="charts">
                        <RunsChartView series=series.into() references=references />
                        <DistributionView values_ms=ttfa_values.into() markers=markers metric="ttfa_ms" />
                        <Show when=move || !itl_gaps.with(Vec::is_empty)>
                            <ItlView gaps_ms=itl_gaps />
                        </Show>
                    </div>
                </Show>
                {move || selected_entry().map(|entry| view! { <RunDetail entry=entry /> })}
            </Show>
        </section>
    }
}
