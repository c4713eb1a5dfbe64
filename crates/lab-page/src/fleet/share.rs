//! Share links: "Copy link" puts the session's results in the URL fragment
//! (`#share=v1.…`, ttft-core's [`ttft_lab::share`], at most 16 KiB), and a page opened on
//! such a link shows them read-only, clearly marked as someone else's results, without
//! reading or writing the stored history.

use leptos::prelude::*;
use leptos::task::spawn_local;
use ttft_core::lang::{Bilingual, Lang};
use ttft_core::metric::{runs_chart_metrics, shared_metrics};
use ttft_core::stats::Summary;
use ttft_core::text::Text;
use ttft_lab::share::{
    self, encode_fitting, ShareError, ShareFacts, SharedResults, SharedRun, MAX_FRAGMENT_BYTES,
};
use wasm_bindgen::JsValue;
use wasm_bindgen_futures::JsFuture;

use crate::texts as t;
use crate::views::charts::{DistributionView, RunsChartView};
use ttft_web::form::FormState;
use ttft_web::i18n::use_i18n;
use ttft_web::session::Session;

/// The shared results in this page's address, if it holds any: `None` when the fragment
/// has no `share=` part, else what it decoded to.
pub fn read_fragment() -> Option<Result<SharedResults, ShareError>> {
    let hash = web_sys::window()?.location().hash().ok()?;
    hash.contains(share::FRAGMENT_PREFIX.trim_end_matches("v1."))
        .then(|| share::decode(&hash))
}

/// The page's address without query and fragment: a link opened by someone else must not
/// start an embedder's probe or export from their browser.
fn page_base_url() -> String {
    web_sys::window()
        .and_then(|window| {
            let location = window.location();
            Some(format!(
                "{}{}",
                location.origin().ok()?,
                location.pathname().ok()?
            ))
        })
        .unwrap_or_default()
}

/// Removes the fragment from the address (no new history entry).
fn clear_fragment() {
    if let Some(window) = web_sys::window() {
        let location = window.location();
        let url = format!(
            "{}{}",
            location.pathname().unwrap_or_default(),
            location.search().unwrap_or_default()
        );
        if let Ok(history) = window.history() {
            let _ = history.replace_state_with_url(&JsValue::NULL, "", Some(&url));
        }
    }
}

/// "Copy link": the newest runs that fit in a link, the prompt only when chosen.
#[component]
pub fn CopyLink() -> impl IntoView {
    let i18n = use_i18n();
    let session = use_context::<Session>().unwrap_or_default();
    let form = use_context::<FormState>();
    let slo = use_context::<super::slo::SloState>();
    let include_prompt = RwSignal::new(false);
    let message = RwSignal::new(None::<Bilingual>);
    let link = RwSignal::new(None::<String>);
    let copy = move |_| {
        let facts = ShareFacts {
            tool_version: env!("CARGO_PKG_VERSION").to_owned(),
            created_at: ttft_web::clock::iso_time(ttft_web::clock::now_ms()),
            user_agent: web_sys::window()
                .and_then(|window| window.navigator().user_agent().ok())
                .unwrap_or_default(),
            effective_type: super::otlp::effective_type(),
            slo: slo.and_then(|slo| slo.set.get_untracked().map(|set| set.to_string())),
            prompt: include_prompt
                .get_untracked()
                .then(|| form.map(|form| form.prompt.get_untracked()))
                .flatten(),
        };
        let results = session
            .runs
            .with_untracked(|runs| SharedResults::from_records(runs, facts));
        let total = results.runs.len();
        let (fragment, kept) = match encode_fitting(&results, MAX_FRAGMENT_BYTES) {
            Ok(fitted) => fitted,
            Err(error) => {
                link.set(None);
                return message.set(Some(Bilingual::from_fn(|lang| error.message(lang))));
            }
        };
        let url = format!("{}#{fragment}", page_base_url());
        let bytes = fragment.len();
        let size = if kept < total {
            t::LINK_HOLDS_NEWEST_RUNS
        } else {
            t::LINK_HOLDS_ALL_RUNS
        };
        link.set(Some(url.clone()));
        spawn_local(async move {
            let copied = match web_sys::window().map(|window| window.navigator().clipboard()) {
                Some(clipboard) => JsFuture::from(clipboard.write_text(&url)).await.is_ok(),
                None => false,
            };
            let outcome = if copied {
                t::LINK_COPIED
            } else {
                t::LINK_CLIPBOARD_UNAVAILABLE
            };
            message.set(Some(Bilingual::from_fn(|lang| {
                let size = size.fill(
                    lang,
                    &[
                        ("kept", &kept),
                        ("total", &total),
                        ("bytes", &bytes),
                        ("max_bytes", &MAX_FRAGMENT_BYTES),
                    ],
                );
                outcome.fill(lang, &[("size", &size)])
            })));
        });
    };
    let empty = move || session.runs.with(Vec::is_empty);
    view! {
        <div class="copy-link" role="group" aria-label=move || i18n.t(t::SHARE_LINK)>
            <button type="button" data-testid="copy-link" on:click=copy disabled=empty>
                {move || i18n.t(t::COPY_LINK)}
            </button>
            <label class="check">
                <input type="checkbox" data-testid="share-prompt" prop:checked=move || include_prompt.get()
                    on:change=move |event| include_prompt.set(event_target_checked(&event)) />
                {move || i18n.t(t::INCLUDE_THE_PROMPT)}
            </label>
            <p class="meta" role="status" data-testid="share-link-message">
                {move || message.with(|message| message.as_ref().map(|text| i18n.pick(text)))}
            </p>
            {move || link.get().map(|url| view! {
                <input class="share-link" readonly data-testid="share-link" prop:value=url
                    aria-label=move || i18n.t(t::SHARE_LINK) />
            })}
        </div>
    }
}

/// A run's outcome code as the runs table words it, in `lang`.
fn outcome_label(outcome: &str, lang: Lang) -> String {
    match outcome {
        "completed" => t::OUTCOME_OK.get(lang).to_owned(),
        "stopped_after_first_answer" => t::OUTCOME_OK_TTFT_ONLY.get(lang).to_owned(),
        other => t::OUTCOME_FAILED_WITH_CODE.fill(lang, &[("code", &other)]),
    }
}

/// A run's cohort as the runs table words it, in `lang` (an unknown code as it is).
fn cohort_label(cohort: Option<&str>, lang: Lang) -> String {
    match cohort {
        Some("cold") => t::RUN_COHORT_COLD.get(lang).to_owned(),
        Some("warm") => t::RUN_COHORT_WARM.get(lang).to_owned(),
        Some(other) => other.to_owned(),
        None => "—".to_owned(),
    }
}

fn cell(value: Option<f64>) -> String {
    value.map_or_else(|| "—".to_owned(), |value| format!("{value:.1}"))
}

/// Someone's shared results, read-only: who measured what where, the charts, the summary
/// and the runs. Nothing here touches the stored history.
#[component]
pub fn SharedView(
    /// The decoded link.
    results: SharedResults,
    /// Leaves the shared view for the meter itself.
    on_close: Callback<()>,
) -> impl IntoView {
    let i18n = use_i18n();
    let runs = results.runs.clone();
    let series: Vec<Vec<Option<f64>>> = runs_chart_metrics()
        .map(|(metric, _)| runs.iter().map(|run| run.metric(metric.name)).collect())
        .collect();
    let ttfa = results.summary("ttfa_ms");
    let references = ttfa
        .as_ref()
        .map(|summary| vec![("p50", summary.p50), ("p95", summary.p95)])
        .unwrap_or_default();
    let markers = ttfa
        .as_ref()
        .map(|summary| {
            vec![
                ("p50", summary.p50),
                ("p95", summary.p95),
                ("p99", summary.p99),
            ]
        })
        .unwrap_or_default();
    let ttfa_values: Vec<f64> = results
        .counted_runs()
        .filter_map(|run| run.ttfa_ms)
        .collect();
    let summary_rows = summary_rows(&results);
    let run_rows = run_rows(&runs);
    let facts = facts(&results);
    let prompt = results.prompt.clone().map(|prompt| {
        view! {
            <p class="meta">{move || i18n.t(t::SHARED_PROMPT)}</p>
            <pre class="pane" data-testid="shared-prompt">{prompt}</pre>
        }
    });
    let count = runs.len();
    view! {
        <section class="panel shared" aria-labelledby="shared-heading" data-testid="shared-view" data-runs=count>
            <h2 id="shared-heading">{move || i18n.t(t::SHARED_HEADING)}</h2>
            <p class="notice info shared-notice" data-testid="shared-notice">
                {move || i18n.fill(t::SHARED_NOTICE, &[("count", &count)])}
            </p>
            <ul class="shared-facts">{facts}</ul>
            {prompt}
            <div class="charts">
                <RunsChartView series=Signal::derive(move || series.clone()) references=Signal::derive(move || references.clone()) />
                <DistributionView values_ms=Signal::derive(move || ttfa_values.clone()) markers=Signal::derive(move || markers.clone()) metric="ttfa_ms" />
            </div>
            <h3>{move || i18n.t(t::SUMMARY)}</h3>
            <p class="meta">{move || i18n.t(t::SHARED_SUMMARY_NOTE)}</p>
            <div class="table-scroll" tabindex="0">
                <table class="summary" data-testid="shared-summary">
                    <thead><tr>
                        <th scope="col">{move || i18n.t(t::COLUMN_METRIC)}</th>
                        <th scope="col">"p50"</th><th scope="col">"p95"</th><th scope="col">"p99"</th>
                        <th scope="col">"min"</th><th scope="col">"max"</th><th scope="col">"mean"</th><th scope="col">"n"</th>
                    </tr></thead>
                    <tbody>{summary_rows}</tbody>
                </table>
            </div>
            <h3>{move || i18n.t(t::RUNS)}</h3>
            <div class="table-scroll" tabindex="0">
                <table class="runs" data-testid="shared-runs">
                    <thead><tr>
                        <th scope="col">"#"</th>
                        <th scope="col">{move || i18n.t(t::COLUMN_CONNECTION)}</th>
                        <th scope="col">{move || i18n.t(t::COLUMN_OUTCOME)}</th>
                        {shared_metrics().map(|metric| view! { <th scope="col">{metric.name}</th> }).collect_view()}
                        <th scope="col">"HTTP"</th>
                    </tr></thead>
                    <tbody>{run_rows}</tbody>
                </table>
            </div>
            <div class="actions">
                <button type="button" class="primary" data-testid="shared-close" on:click=move |_| {
                    clear_fragment();
                    on_close.run(());
                }>
                    {move || i18n.t(t::MEASURE_IT_YOURSELF)}
                </button>
            </div>
        </section>
    }
}

/// The summary table's rows: one per metric a link carries that any counted run measured.
fn summary_rows(results: &SharedResults) -> impl IntoView {
    shared_metrics()
        .filter_map(|metric| Some((metric.name, results.summary(metric.name)?)))
        .map(|(name, summary): (&str, Summary)| {
            let cells = [
                summary.p50,
                summary.p95,
                summary.p99,
                summary.min,
                summary.max,
                summary.mean,
            ];
            view! {
                <tr data-metric=name>
                    <th scope="row">{name}</th>
                    {cells.iter().map(|value| view! { <td>{format!("{value:.1}")}</td> }).collect_view()}
                    <td>{summary.count}</td>
                </tr>
            }
        })
        .collect_view()
}

/// The runs table's rows: number, connection, outcome and every metric a link carries.
fn run_rows(runs: &[SharedRun]) -> impl IntoView {
    let i18n = use_i18n();
    runs.iter()
        .map(|run| {
            let outcome = run.outcome.clone();
            let cohort = run.cohort.clone();
            view! {
                <tr data-testid="shared-run" data-run=run.run_index data-outcome=run.outcome.clone()>
                    <td>{run.run_index}</td>
                    <td>{move || cohort_label(cohort.as_deref(), i18n.lang.get())}</td>
                    <td>{move || outcome_label(&outcome, i18n.lang.get())}</td>
                    {shared_metrics()
                        .map(|metric| view! { <td data-metric=metric.name>{cell(run.metric(metric.name))}</td> })
                        .collect_view()}
                    <td data-testid="shared-http-protocol">{run.http_protocol.map_or("—", |protocol| protocol.code())}</td>
                </tr>
            }
        })
        .collect_view()
}

/// Who measured what where: the facts the link carries.
fn facts(results: &SharedResults) -> impl IntoView {
    let i18n = use_i18n();
    let facts: [(Text, Option<String>); 7] = [
        (
            t::FACT_MEASURED_WITH,
            Some(format!("TTFT Meter {}", results.tool_version)),
        ),
        (
            t::FACT_LINK_MADE,
            Some(
                results
                    .created_at
                    .replace('T', " ")
                    .chars()
                    .take(19)
                    .collect::<String>()
                    + " UTC",
            ),
        ),
        (t::FACT_ENDPOINT_HOST, results.host.clone()),
        (t::FACT_MODEL, results.model.clone()),
        (t::FACT_PROTOCOL, results.protocol.clone()),
        (t::FACT_ENVIRONMENT, results.environment.clone()),
        (t::FACT_SLO, results.slo.clone()),
    ];
    facts
    .into_iter()
    .filter_map(|(label, value)| {
        value.map(|value| view! { <li><span class="meta">{move || i18n.t(label)}": "</span>{value}</li> })
    })
    .collect_view()
}

/// A link that could not be read: why, in the user's language.
#[component]
pub fn SharedLinkError(
    /// What was wrong.
    error: ShareError,
) -> impl IntoView {
    let i18n = use_i18n();
    view! {
        <p class="notice" role="alert" data-testid="shared-error">
            {move || error.message(i18n.lang.get())}
        </p>
    }
}
