//! The session's finished runs, on both pages: the per-run table (which runs it shows, the
//! newest first window, the extra columns) and the selected run's details (diagnosis,
//! network breakdown; the lab adds the waterfall).

use std::collections::HashMap;

use leptos::prelude::*;
use ttft_core::failure::NetworkFailure;
use ttft_core::metric::{Column, METRICS};
use ttft_core::record::RunRecord;
use ttft_core::timeline::RunOutcome;

use super::controls::ShowAllToggle;
use super::live::{format_ms, DiagnosisBox};
use crate::i18n::use_i18n;

pub fn cell_number(value: Option<f64>, decimals: usize) -> String {
    value
        .map(|value| format!("{value:.decimals$}"))
        .unwrap_or_else(|| "—".into())
}

fn cell_count(value: Option<u64>) -> String {
    value
        .map(|value| value.to_string())
        .unwrap_or_else(|| "—".into())
}

/// A short outcome label (en, zh).
fn outcome_label(outcome: &RunOutcome) -> (String, String) {
    match outcome {
        RunOutcome::Streaming => ("streaming".into(), "进行中".into()),
        RunOutcome::Completed => ("ok".into(), "成功".into()),
        RunOutcome::StoppedAfterFirstAnswer => ("ok (TTFT only)".into(), "成功（只测首字）".into()),
        RunOutcome::HttpError { status } => (format!("HTTP {status}"), format!("HTTP {status}")),
        RunOutcome::NetworkFailure { failure } => {
            let (en, zh) = match failure {
                NetworkFailure::NetworkError => ("network error", "网络错误"),
                NetworkFailure::Timeout => ("timeout", "超时"),
                NetworkFailure::Aborted => ("stopped", "已停止"),
                NetworkFailure::Redirected => ("redirected", "被重定向"),
            };
            (en.into(), zh.into())
        }
        RunOutcome::StreamError { .. } => ("error in stream".into(), "流中出错".into()),
        RunOutcome::MalformedChunk { .. } => ("malformed chunk".into(), "数据块格式错误".into()),
        RunOutcome::EmptyStream => ("empty stream".into(), "空响应流".into()),
        RunOutcome::EndedWithoutTerminal => ("cut off".into(), "流被截断".into()),
        RunOutcome::NotSent => ("not sent".into(), "未发送".into()),
    }
}

fn connection_label(record: &RunRecord) -> (&'static str, &'static str) {
    let preflight = record
        .network
        .as_ref()
        .is_some_and(|network| network.preflight_ms.is_some());
    match (record.warm_up, record.cold) {
        (true, _) => ("warm-up", "预热"),
        (false, Some(true)) if preflight => ("cold (preflight)", "冷（预检）"),
        (false, Some(true)) => ("cold", "冷"),
        (false, Some(false)) => ("warm", "热"),
        (false, None) => ("?", "?"),
    }
}

/// Which runs the results show: all, those made with Send, or one experiment's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunsFilter {
    /// Every run.
    All,
    /// Runs made with Send.
    Send,
    /// One experiment's runs: its kind and session.
    Experiment(String, u32),
}

impl RunsFilter {
    /// The `<select>` value.
    pub fn code(&self) -> String {
        match self {
            RunsFilter::All => "all".into(),
            RunsFilter::Send => "send".into(),
            RunsFilter::Experiment(kind, session) => format!("{kind}#{session}"),
        }
    }

    /// Whether `record` is shown.
    pub fn keeps(&self, record: &RunRecord) -> bool {
        match self {
            RunsFilter::All => true,
            RunsFilter::Send => record.experiment.is_none(),
            RunsFilter::Experiment(kind, session) => record
                .experiment
                .as_ref()
                .is_some_and(|tag| &tag.kind == kind && tag.session == *session),
        }
    }
}

/// The session's runs through a filter, borrowed (a long session is never copied whole).
#[derive(Clone, Copy)]
pub struct RunsView {
    /// Every run of the session.
    pub runs: RwSignal<Vec<RunRecord>>,
    /// Which of them are shown.
    pub filter: RwSignal<RunsFilter>,
}

impl RunsView {
    /// Calls `read` with the shown runs, oldest first (tracked).
    pub fn with<R>(&self, read: impl FnOnce(&[&RunRecord]) -> R) -> R {
        let filter = self.filter.get();
        self.runs.with(|runs| {
            let shown: Vec<&RunRecord> =
                runs.iter().filter(|record| filter.keeps(record)).collect();
            read(&shown)
        })
    }
}

/// Rows the runs table shows by default: the newest ones. A long session (1,000 stored
/// runs) would otherwise cost a thousand rows of DOM and their updates on every change.
pub const TABLE_WINDOW_ROWS: usize = 100;

/// The columns after the catalogue's metrics: (test id or name, shown only with "More
/// columns", en header, zh header).
const OTHER_COLUMNS: [(&str, bool, &str, &str); 7] = [
    (
        "tokens",
        false,
        "tokens in / cached / out",
        "输入 / 缓存 / 输出 token",
    ),
    ("paint", true, "paint", "绘制方法"),
    (
        "paint error",
        true,
        "paint error (bias, p95)",
        "绘制时间误差（偏差，p95）",
    ),
    ("dns/tcp/tls_ms", true, "dns/tcp/tls_ms", "dns/tcp/tls_ms"),
    ("transport", true, "transport", "传输"),
    ("model", true, "model", "模型"),
    ("experiment", true, "experiment", "实验"),
];

/// Whether the possible arrival delay is a main column: where this browser's Worker arrivals
/// wait for the main thread (WebKit), the bound stands beside the figures it qualifies.
fn arrival_bound_is_main() -> bool {
    crate::availability::engine().worker_arrivals_wait_for_main_thread()
}

/// Whether a catalogue metric's column is among the rare ones ("More columns").
fn is_extra(name: &str, column: Column, bound_main: bool) -> bool {
    column == Column::More && !(bound_main && name == "arrival_delay_bound_ms")
}

/// The paint method's expected error as shown: "0 (reference)", "−0.7 / ±5.2 ms".
fn paint_error_cell(record: &RunRecord) -> String {
    let Some(painted) = record.instants.answer_painted else {
        return "—".into();
    };
    let error = painted
        .expected_error
        .unwrap_or_else(|| painted.method.expected_error());
    if error.error_p95_ms == 0.0 && error.bias_ms == 0.0 {
        return "0 (reference)".into();
    }
    format!("{:+.1} / ±{:.1} ms", error.bias_ms, error.error_p95_ms)
}

/// One row of the runs table. The rare columns are always rendered and hidden by the
/// table's class, so "More columns" flips one class instead of rebuilding every row.
fn run_row(record: RunRecord, selected: RwSignal<Option<u32>>, bound_main: bool) -> impl IntoView {
    let i18n = use_i18n();
    let number = record.run_index;
    let (outcome_en, outcome_zh) = outcome_label(&record.outcome);
    let (connection_en, connection_zh) = connection_label(&record);
    let failed = !record.is_ok();
    let delayed = record.arrival_delayed();
    let metric_cells = METRICS
        .iter()
        .filter(|metric| metric.column != Column::Hidden)
        .map(|metric| {
            let flagged = delayed && metric.name == "arrival_delay_bound_ms";
            view! {
                <td
                    class:extra=is_extra(metric.name, metric.column, bound_main)
                    class:flagged=flagged
                    data-metric=metric.name
                >
                    {metric.read(&record).table_cell()}
                </td>
            }
        })
        .collect_view();
    let bound_ms = record
        .arrival_delay_bound_ms
        .map(|bound_ms| format!("{bound_ms:.3}"));
    let delay_title = delayed.then(|| {
        format!(
            "Arrival times may be late by up to {:.0} ms: the page's main thread was busy that long while this run waited for its first answer token (more than 50 ms).",
            record.arrival_delay_bound_ms.unwrap_or_default()
        )
    });
    let metrics = &record.metrics;
    let tokens = format!(
        "{} / {} / {}",
        cell_count(metrics.prompt_tokens),
        cell_count(metrics.cached_prompt_tokens),
        cell_count(metrics.output_tokens),
    );
    let paint = record
        .instants
        .answer_painted
        .map(|painted| painted.method.label());
    let paint_error = paint_error_cell(&record);
    let setup = record.network.as_ref().map(|network| {
        format!(
            "{}/{}/{}",
            cell_number(network.dns_ms, 1),
            cell_number(network.tcp_ms, 1),
            cell_number(network.tls_ms, 1)
        )
    });
    let experiment = record
        .experiment
        .as_ref()
        .map(|tag| format!("{} #{}: {}", tag.kind, tag.session, tag.arm))
        .unwrap_or_else(|| "—".into());
    view! {
        <tr
            data-testid="run-row"
            data-run=number
            data-outcome=if failed { "failed" } else { "ok" }
            data-arrival-delay-bound-ms=bound_ms
            data-arrival-delayed=delayed.to_string()
            title=delay_title
            class:failed=failed
            class:arrival-delayed=delayed
            class:selected=move || selected.get() == Some(number)
            tabindex="0"
            aria-selected=move || (selected.get() == Some(number)).to_string()
            on:click=move |_| selected.set(Some(number))
            on:keydown=move |event: web_sys::KeyboardEvent| {
                if event.key() == "Enter" || event.key() == " " {
                    event.prevent_default();
                    selected.set(Some(number));
                }
            }
        >
            <td>{number}{run_mark(number)}</td>
            <td>{move || i18n.t(connection_en, connection_zh)}</td>
            <td data-testid="run-outcome">{move || i18n.pick(outcome_en.clone(), outcome_zh.clone())}</td>
            {metric_cells}
            <td>{tokens}</td>
            <td class="extra" data-testid="paint-method">{paint.unwrap_or("—")}</td>
            <td class="extra" data-testid="paint-error">{paint_error}</td>
            <td class="extra">{setup.unwrap_or_else(|| "—".into())}</td>
            <td class="extra" data-testid="transport">{record.transport.code()}</td>
            <td class="extra">{record.settings.model.clone()}</td>
            <td class="extra" data-testid="run-experiment">{experiment}</td>
        </tr>
    }
}

/// The per-run SLO marks a page adds to the runs table (the lab, when SLOs are set),
/// provided as context: per `run_index`, whether the run met every per-run threshold; absent
/// when it does not count.
#[derive(Clone, Copy)]
pub struct RunMarks(pub Memo<HashMap<u32, bool>>);

/// A per-run mark for the runs table (✓ met every per-run threshold, ✗ missed one); nothing
/// without [`RunMarks`] or for a run that does not count.
fn run_mark(run_index: u32) -> impl IntoView {
    let marks = use_context::<RunMarks>();
    let i18n = use_i18n();
    move || {
        let met = marks?.0.with(|marks| marks.get(&run_index).copied())?;
        let title = if met {
            i18n.t(
                "Met every per-run SLO threshold",
                "达到全部单次运行 SLO 阈值",
            )
        } else {
            i18n.t(
                "Missed a per-run SLO threshold",
                "未达到某个单次运行 SLO 阈值",
            )
        };
        Some(view! {
            <span class="slo-mark" class:missed=!met data-testid="run-slo" data-met=met.to_string() title=title aria-label=title>
                {if met { "✓" } else { "✗" }}
            </span>
        })
    }
}

/// Per-run table of the newest [`TABLE_WINDOW_ROWS`] runs (all on request); a row click
/// selects the run for the details below.
#[component]
pub fn RunsTable(
    /// The runs to list.
    runs: RunsView,
    /// The selected run number.
    selected: RwSignal<Option<u32>>,
    /// Clears the session (table and stored history).
    on_clear: Callback<()>,
) -> impl IntoView {
    let i18n = use_i18n();
    let more = RwSignal::new(false);
    let show_all = RwSignal::new(false);
    let total = Memo::new(move |_| runs.with(|runs| runs.len()));
    let hidden = move || {
        if show_all.get() {
            0
        } else {
            total.get().saturating_sub(TABLE_WINDOW_ROWS)
        }
    };
    let bound_main = arrival_bound_is_main();
    let metric_headers = METRICS
        .iter()
        .filter(|metric| metric.column != Column::Hidden)
        .map(|metric| {
            let (en, zh) = metric.label;
            view! {
                <th scope="col" class:extra=is_extra(metric.name, metric.column, bound_main) title=move || i18n.t(en, zh)>
                    {metric.name}
                </th>
            }
        })
        .collect_view();
    let other_headers = OTHER_COLUMNS
        .iter()
        .map(|&(_, extra, en, zh)| view! { <th scope="col" class:extra=extra>{move || i18n.t(en, zh)}</th> })
        .collect_view();
    // Clearing the table also clears the stored history: a second click confirms (in the
    // page: an embedding iframe may not allow `window.confirm`).
    let confirming = RwSignal::new(false);
    let clear = move |_| {
        if confirming.get_untracked() {
            on_clear.run(());
            confirming.set(false);
        } else {
            confirming.set(true);
        }
    };
    // The table scrolls in its own box, newest run last; it follows new runs while the user
    // is at its bottom, and stays put when they scrolled up to read an older run.
    let scroller = NodeRef::<leptos::html::Div>::new();
    let follow = StoredValue::new(true);
    let on_scroll = move |_| {
        if let Some(element) = scroller.get_untracked() {
            let from_bottom =
                element.scroll_height() - element.scroll_top() - element.client_height();
            follow.set_value(from_bottom < 24);
        }
    };
    Effect::new(move |_| {
        total.track();
        if !follow.get_value() {
            return;
        }
        // After the new row is in the DOM.
        request_animation_frame(move || {
            if let Some(element) = scroller.get_untracked() {
                element.set_scroll_top(element.scroll_height());
            }
        });
    });
    view! {
        <div class="table-head">
            <h3>{move || i18n.t("Runs", "运行记录")}</h3>
            <label class="check">
                <input type="checkbox" data-testid="more-columns" prop:checked=move || more.get() on:change=move |event| more.set(event_target_checked(&event)) />
                {move || i18n.t("More columns", "更多列")}
            </label>
            <ShowAllToggle testid="show-all-runs" show_all=show_all total=total window=TABLE_WINDOW_ROWS />
            <button type="button" data-testid="clear-runs" on:click=clear on:blur=move |_| confirming.set(false)>
                {move || if confirming.get() {
                    i18n.t("Also deletes the stored history: click again", "也会删除已保存的历史：再点一次")
                } else {
                    i18n.t("Clear", "清空")
                }}
            </button>
        </div>
        <Show when=move || { hidden() > 0 }>
            <p class="meta" data-testid="rows-hidden">
                {move || i18n.pick(
                    format!("The {} older runs are left out of the table (they are in the summary, the charts and the exports).", hidden()),
                    format!("较早的 {} 次运行未列在表中（汇总、图表和导出中仍包含它们）。", hidden()),
                )}
            </p>
        </Show>
        <div class="table-scroll runs-scroll" tabindex="0" node_ref=scroller on:scroll=on_scroll>
            <table class="runs" class:more=move || more.get() data-testid="runs-table" data-runs=move || total.get()>
                <thead>
                    <tr>
                        <th scope="col">"#"</th>
                        <th scope="col">{move || i18n.t("connection", "连接")}</th>
                        <th scope="col">{move || i18n.t("outcome", "结果")}</th>
                        {metric_headers}
                        {other_headers}
                    </tr>
                </thead>
                <tbody>
                    // Keyed by run number: a new run adds one row instead of rebuilding all.
                    <For
                        each=move || {
                            let skip = hidden();
                            runs.with(|runs| {
                                runs[skip.min(runs.len())..]
                                    .iter()
                                    .map(|record| (*record).clone())
                                    .collect::<Vec<_>>()
                            })
                        }
                        key=|record| record.run_index
                        children=move |record| run_row(record, selected, bound_main)
                    />
                </tbody>
            </table>
        </div>
    }
}

/// The selected run without its waterfall (the widget's: no chart code in its wasm): its
/// diagnosis and network breakdown.
#[component]
pub fn RunDetailLean(
    /// The run.
    record: RunRecord,
) -> impl IntoView {
    run_detail(record, None::<()>)
}

/// The selected run's details (diagnosis, network breakdown, preflight), with the page's
/// `chart` below them (the lab's waterfall; `None` on the widget).
pub fn run_detail<C: IntoView + 'static>(record: RunRecord, chart: Option<C>) -> impl IntoView {
    let i18n = use_i18n();
    let network = record.network.clone();
    let number = record.run_index;
    let url = record.endpoint_url().to_owned();
    let preflight_line = network.as_ref().and_then(|network| network.preflight_ms).map(|preflight_ms| {
        view! {
            <p class="meta" data-testid="preflight" data-ms=format!("{preflight_ms:.3}")>
                {move || i18n.pick(
                    format!("CORS preflight: the browser asked the server with OPTIONS first ({}, inside the queueing time; it also opened the connection). Later runs to this origin skip it while the browser caches the answer.", format_ms(Some(preflight_ms))),
                    format!("CORS 预检：浏览器先用 OPTIONS 询问服务器（{}，包含在排队时间内；它也建立了连接）。在浏览器缓存预检结果期间，之后对该源的运行不再预检。", format_ms(Some(preflight_ms))),
                )}
            </p>
        }
    });
    let network_line = network.map(|network| {
        let queueing = network.queueing_ms;
        view! {
            <p class="meta" data-testid="network-breakdown">
                {move || i18n.pick(
                    format!(
                        "DNS {} · TCP {} · TLS {} · browser queueing {} · request {} · waiting for first byte {} ({})",
                        format_ms(network.dns_ms),
                        format_ms(network.tcp_ms),
                        format_ms(network.tls_ms),
                        format_ms(queueing),
                        format_ms(network.request_ms),
                        format_ms(network.waiting_ms),
                        if network.timing_visible { "Resource Timing" } else { "hidden: the server sends no Timing-Allow-Origin" },
                    ),
                    format!(
                        "DNS {} · TCP {} · TLS {} · 浏览器排队 {} · 请求 {} · 等待首字节 {}（{}）",
                        format_ms(network.dns_ms),
                        format_ms(network.tcp_ms),
                        format_ms(network.tls_ms),
                        format_ms(queueing),
                        format_ms(network.request_ms),
                        format_ms(network.waiting_ms),
                        if network.timing_visible { "Resource Timing" } else { "不可见：服务器未发送 Timing-Allow-Origin" },
                    ),
                )}
            </p>
        }
    });
    let failed = (!record.is_ok()).then(|| record.clone());
    view! {
        <div class="run-detail" data-testid="run-detail" data-run=number>
            <h3>{move || i18n.pick(format!("Run {number}"), format!("第 {number} 次运行"))}</h3>
            <p class="meta">{format!("POST {url}")}</p>
            {failed.map(|record| view! { <DiagnosisBox record=record /> })}
            {network_line}
            {preflight_line}
            {chart}
        </div>
    }
}
