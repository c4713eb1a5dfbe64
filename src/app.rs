//! The widget: layout and the series of runs. Components only wire signals to elements;
//! measuring happens in [`crate::run`], computing in ttft-core.

use leptos::prelude::*;
use leptos::task::spawn_local;
use ttft_core::config::Theme;
use ttft_core::itl::ItlGaps;
use ttft_core::lang::Lang;
use ttft_core::record::{cohort_summary, Cohort, RunRecord, Transport};
use wasm_bindgen::JsCast;
use web_sys::MouseEvent;

use crate::components::charts::{DistributionView, ItlView, RunsChartView};
use crate::components::endpoint::EndpointForm;
use crate::components::experiments::ExperimentsPanel;
use crate::components::live::{LivePanes, LiveRun, Readouts};
use crate::components::results::{RunDetail, RunsFilter, RunsTable, RunsView, SummaryTable};
use crate::components::share::HistoryList;
use crate::embed::{self, ExperimentRequest};
use crate::fleet::otlp::OtlpStatusLine;
use crate::fleet::probe::{ProbeNotice, ProbeState};
use crate::fleet::settings::FleetSettings;
use crate::fleet::share::{self, SharedLinkError, SharedView};
use crate::fleet::slo::SloSummary;
use crate::fleet::{self, Fleet};
use crate::form::FormState;
use crate::i18n::use_i18n;
use crate::key_gate::KeyConsent;
use crate::page::{post_ready, start_transport, PageStart, PageState};
use crate::series::{run_and_report, send_handler, wasm_memory_bytes, SeriesContext};
use crate::session::Session;
use crate::{paint, persist};

/// Probe mode (`probe=N`): once the page is ready, N runs without a click, unless a key is
/// set or it already ran in this tab (the notice says which). Probe runs never carry a key.
fn start_probe(requested: Option<&str>, form: FormState, context: SeriesContext<Fleet>) {
    let state = context.hooks.probe;
    let runs = match fleet::probe::start(requested, &form.api_key.get_untracked()) {
        None => return,
        Some(Err(error)) => return state.set(ProbeState::Refused(error)),
        Some(Ok(runs)) => runs,
    };
    let mut series = match form.series_with_key(None) {
        Ok(series) => series,
        Err(error) => return context.live.refuse(error),
    };
    series.measured_runs = runs;
    series.warm_up = false;
    let host = ttft_lab::otlp::ServerAddress::from_url(&series.run.endpoint.endpoint_url)
        .map(|server| server.host)
        .unwrap_or_default();
    state.set(ProbeState::Running { runs, host });
    spawn_local(async move {
        let stopped = run_and_report(series, None, context).await;
        state.set(ProbeState::Done { runs, stopped });
    });
}

/// Sets or removes an attribute of `<html>` (theme, language).
pub(crate) fn set_root_attribute(name: &str, value: Option<&str>) {
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

/// Saves what is pending when the page is left.
pub(crate) fn save_on_pagehide(session: Session) {
    if let Some(window) = web_sys::window() {
        let flush = wasm_bindgen::closure::Closure::<dyn Fn()>::new(move || {
            session.save();
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
    let PageState {
        i18n,
        gate,
        form,
        live,
        session,
        embed,
        runs_filter,
        theme,
    } = PageState::provide(&config);
    provide_context(ExperimentRequest(config.experiment.clone()));
    let fleet = Fleet::new(
        &config,
        session,
        &form.api_key.get_untracked(),
        live.streaming.into(),
    );
    // A share link shows someone's results instead of the meter (until "Measure it yourself").
    let shared_link = share::read_fragment();
    let shared = RwSignal::new(shared_link.clone().and_then(Result::ok));
    let shared_error = shared_link.and_then(Result::err);
    post_ready(&embed);
    let context = SeriesContext::new(live, session, embed.clone(), fleet);
    paint::install_observer();
    crate::availability::install_observer();
    let (
        PageStart {
            transport,
            simulator,
        },
        started,
    ) = start_transport(form, crate::form::LAB_SIMULATOR_PROBE_PATH);
    let probe_request = config.probe.clone();
    let probe_context = context.clone();
    spawn_local(async move {
        started.await;
        // Someone opening a share link is looking at results, not measuring.
        if shared.get_untracked().is_none() {
            start_probe(probe_request.as_deref(), form, probe_context);
        }
    });
    let compact = config.compact;
    // Shown on the root for scripts and tests until the experiments panel reads the context.
    let experiment = config.experiment.clone();
    let refused_keys = config.refused_keys.clone();
    // The wasm heap after the last series, for tests of the memory bound.
    let wasm_bytes = RwSignal::new(wasm_memory_bytes());

    // Send: a new run must be in the table, so an experiment's filter gives way.
    let send = send_handler(form, gate, context.clone(), wasm_bytes, move || {
        if matches!(runs_filter.get_untracked(), RunsFilter::Experiment(..)) {
            runs_filter.set(RunsFilter::All);
        }
    });
    let stop = context.stopper();

    let close_shared = Callback::new(move |()| shared.set(None));

    view! {
        <main
            class=if compact { "ttft compact" } else { "ttft" }
            data-testid="app"
            data-experiment=experiment
            data-transport=move || transport.get().map_or("starting", Transport::code)
            data-wasm-bytes=move || wasm_bytes.get().to_string()
            data-shared=move || shared.with(Option::is_some).to_string()
        >
            <PageHeader theme=theme>
                <a class="page-link" data-testid="open-widget" href=crate::widget::widget_href>
                    {move || i18n.t("← Back to the widget", "← 返回小组件")}
                </a>
            </PageHeader>
            {shared_error.map(|error| view! { <SharedLinkError error=error /> })}
            <Show when=move || shared.with(Option::is_some)>
                {move || shared.get().map(|results| view! { <SharedView results=results on_close=close_shared /> })}
            </Show>
            <Show when=move || shared.with(Option::is_none)>
                <KeyRefusedNotice names=refused_keys.clone() />
                <ProbeNotice state=fleet.probe on_stop=Callback::new(move |()| stop()) />
                <ChooseEndpointNotice form=form simulator=simulator />
                <HistoryNotices session=session />
                <KeyConsent />
                <EndpointForm form=form streaming=live.streaming />
                <FleetSettings fleet=fleet form=form />
                <RunPanel live=live send=send.clone() stop=stop>
                    <OtlpStatusLine export=fleet.otlp />
                </RunPanel>
                <Results session=session filter=runs_filter />
                <ExperimentsPanel form=form />
                <HistoryList />
            </Show>
        </main>
    }
}

/// What the user should know about the stored history (storage full, a history set aside,
/// runs renumbered or refused), each with a button to dismiss it.
#[component]
pub(crate) fn HistoryNotices(
    /// The session whose notices are shown.
    session: Session,
) -> impl IntoView {
    let i18n = use_i18n();
    view! {
        {move || {
            session
                .notices
                .get()
                .into_iter()
                .enumerate()
                .map(|(index, notice)| {
                    let code = notice.code();
                    view! {
                        <p class="notice" role="alert" data-testid="storage-notice" data-notice=code>
                            {move || notice.message(i18n.lang.get())}
                            " "
                            <button type="button" class="small" on:click=move |_| session.dismiss_notice(index)>
                                {move || i18n.t("OK", "知道了")}
                            </button>
                        </p>
                    }
                })
                .collect_view()
        }}
    }
}

pub(crate) fn status_text(live: LiveRun) -> String {
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
    let (en, zh) = live.status.get().text();
    let state = i18n.t(en, zh);
    format!("{state}{of}")
}

/// Switches the language and remembers the choice for the next visit.
fn choose_lang(i18n: crate::i18n::I18n, lang: Lang) {
    i18n.lang.set(lang);
    persist::save_preference(persist::LANG_SLOT, Some(lang.code()));
}

/// A progress bar while a series of several runs is going.
#[component]
pub(crate) fn RunProgress(
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

/// On a page not served by ttft-sim (a docs site, any static host), there is no endpoint
/// until the user picks one: says so, instead of failing on a made-up default.
#[component]
pub(crate) fn ChooseEndpointNotice(
    /// The form (its base URL).
    form: FormState,
    /// `Some(false)` once the page knows its origin is not the simulator.
    simulator: RwSignal<Option<bool>>,
) -> impl IntoView {
    let i18n = use_i18n();
    let shown =
        move || simulator.get() == Some(false) && form.base_url.with(|url| url.trim().is_empty());
    view! {
        <Show when=shown>
            <p class="notice" data-testid="choose-endpoint" role="status">
                {move || i18n.t(
                    "Choose your endpoint: pick a preset below or type your server's base URL (this page is not served by the bundled simulator, so there is nothing to measure yet).",
                    "请选择要测量的接口：在下方选择预设，或填写服务器的基础 URL（此页面不是由内置模拟器提供的，因此还没有可测量的接口）。",
                )}
            </p>
        </Show>
    }
}

/// Says that a key given in the URL was refused, and why.
#[component]
pub(crate) fn KeyRefusedNotice(
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
pub(crate) fn ThemeSwitch(
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

/// The page's header: the name, the tagline, the language and theme switches, and what the
/// page adds (the lab: the link back to the widget).
#[component]
pub(crate) fn PageHeader(
    theme: RwSignal<Option<Theme>>,
    #[prop(optional)] children: Option<Children>,
) -> impl IntoView {
    let i18n = use_i18n();
    view! {
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
            {children.map(|children| children())}
        </header>
    }
}

/// The Run panel: Send and Stop, the status, the series' progress, the readouts and the
/// live panes, and what the page adds (the lab: the OTLP export's status line).
#[component]
pub(crate) fn RunPanel<S, T>(
    live: LiveRun,
    /// Send's click handler ([`crate::series::send_handler`]).
    send: S,
    /// Stop ([`crate::series::SeriesContext::stopper`]).
    stop: T,
    #[prop(optional)] children: Option<Children>,
) -> impl IntoView
where
    S: Fn(MouseEvent) + Clone + 'static,
    T: Fn() + Copy + 'static,
{
    let i18n = use_i18n();
    view! {
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
            {children.map(|children| children())}
        </section>
    }
}

/// English / 中文.
#[component]
pub(crate) fn LanguageSwitch() -> impl IntoView {
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
    /// Which runs are shown.
    filter: RwSignal<RunsFilter>,
) -> impl IntoView {
    let i18n = use_i18n();
    // The experiments present, for the filter.
    let experiments = Memo::new(move |_| {
        session.runs.with(|runs| {
            let mut seen: Vec<(String, u32)> = Vec::new();
            for tag in runs.iter().filter_map(|record| record.experiment.as_ref()) {
                if !seen
                    .iter()
                    .any(|(kind, n)| kind == &tag.kind && *n == tag.session)
                {
                    seen.push((tag.kind.clone(), tag.session));
                }
            }
            seen
        })
    });
    let runs = RunsView {
        runs: session.runs,
        filter,
    };
    // Memos: computed once per change of the runs, and unchanged values re-render nothing.
    let series = Memo::new(move |_| {
        runs.with(|runs| {
            let pick = |metric: fn(&RunRecord) -> Option<f64>| {
                runs.iter()
                    .filter(|record| !record.warm_up)
                    .map(|record| metric(record))
                    .collect::<Vec<_>>()
            };
            [
                pick(|record| record.metrics.ttft_ms),
                pick(|record| record.metrics.ttfa_ms),
                pick(|record| record.metrics.perceived_ttfa_ms),
            ]
        })
    });
    let ttfa_summary = Memo::new(move |_| {
        runs.with(|runs| {
            cohort_summary(runs.iter().copied(), Cohort::All)
                .ok()
                .flatten()
        })
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
            runs.iter()
                .filter(|record| Cohort::All.contains(record))
                .filter_map(|record| record.metrics.ttfa_ms)
                .collect::<Vec<f64>>()
        })
    });
    let selected_record = move || session.selected_record();
    let itl_gaps = Signal::derive(move || {
        selected_record()
            .map(|record| record.metrics.itl_gaps)
            .unwrap_or_default()
    });
    let on_clear = Callback::new(move |()| session.clear());
    let choose_filter = move |event: web_sys::Event| {
        let value = event_target_value(&event);
        let chosen = match value.as_str() {
            "all" => RunsFilter::All,
            "send" => RunsFilter::Send,
            other => experiments
                .get_untracked()
                .into_iter()
                .find(|(kind, n)| format!("{kind}#{n}") == other)
                .map_or(RunsFilter::All, |(kind, n)| RunsFilter::Experiment(kind, n)),
        };
        filter.set(chosen);
    };
    view! {
        <section class="panel" aria-labelledby="results-heading" data-testid="results">
            <h2 id="results-heading">{move || i18n.t("Results", "结果")}</h2>
            <Show
                when=move || !session.runs.with(Vec::is_empty)
                fallback=move || view! { <p class="meta">{move || i18n.t("No runs yet: press Send.", "还没有运行记录：请点击“发送”。")}</p> }
            >
                <Show when=move || !experiments.with(Vec::is_empty)>
                    <label class="filter">
                        <span>{move || i18n.t("Show", "显示")}</span>
                        // Each option says whether it is chosen: an experiment's option
                        // appears with its first run, after the filter chose it.
                        <select data-testid="runs-filter" data-value=move || filter.get().code() on:change=choose_filter>
                            {move || {
                                let lang = i18n.lang.get();
                                let fixed = [
                                    ("all".to_owned(), lang.pick("All runs", "全部运行").to_owned()),
                                    ("send".to_owned(), lang.pick("Runs made with Send", "通过“发送”进行的运行").to_owned()),
                                ];
                                let experiments = experiments.get().into_iter().map(|(kind, n)| {
                                    let label = ttft_lab::experiment::find(&kind)
                                        .map_or_else(|| kind.clone(), |experiment| experiment.label().get(lang).to_owned());
                                    (format!("{kind}#{n}"), format!("{label} #{n}"))
                                });
                                fixed.into_iter().chain(experiments).map(|(value, label)| {
                                    let chosen = value.clone();
                                    view! {
                                        <option value=value prop:selected=move || filter.get().code() == chosen>{label}</option>
                                    }
                                }).collect_view()
                            }}
                        </select>
                    </label>
                </Show>
                <RunsTable runs=runs selected=session.selected on_clear=on_clear />
                <SummaryTable runs=runs />
                <SloSummary />
                <Show when=move || !ttfa_values.with(Vec::is_empty)>
                    <div class="charts">
                        <RunsChartView series=series.into() references=references />
                        <DistributionView values_ms=ttfa_values.into() markers=markers metric="ttfa_ms" />
                        <Show when=move || !itl_gaps.with(ItlGaps::is_empty)>
                            <ItlView gaps=itl_gaps />
                        </Show>
                    </div>
                </Show>
                {move || selected_record().map(|record| view! { <RunDetail record=record /> })}
            </Show>
        </section>
    }
}
