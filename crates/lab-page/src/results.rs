//! The lab's Results section: the runs table with its experiment filter, the summary, the
//! SLO summary, the charts and the selected run's details.

use leptos::prelude::*;
use ttft_core::itl::ItlGaps;
use ttft_core::metric::runs_chart_metrics;
use ttft_core::record::{cohort_summary, Cohort};
use ttft_web::i18n::use_i18n;
use ttft_web::session::Session;
use ttft_web::state::{RunsFilter, RunsView};
use ttft_web::views::runs_table::RunsTable;

use crate::fleet::slo::SloSummary;
use crate::texts as t;
use crate::views::charts::{DistributionView, ItlView, RunsChartView};
use crate::views::run_detail::RunDetail;
use crate::views::summary_table::SummaryTable;

/// Tables, charts and the selected run's details.
#[component]
pub fn Results(
    /// The session.
    session: Session,
    /// Which runs are shown.
    filter: RwSignal<RunsFilter>,
) -> impl IntoView {
    let i18n = use_i18n();
    let experiments = experiments_present(session);
    let runs = RunsView {
        runs: session.runs,
        filter,
    };
    let on_clear = Callback::new(move |()| session.clear());
    view! {
        <section class="panel" aria-labelledby="results-heading" data-testid="results">
            <h2 id="results-heading">{move || i18n.t(t::RESULTS)}</h2>
            <Show
                when=move || !session.runs.with(Vec::is_empty)
                fallback=move || view! { <p class="meta">{move || i18n.t(t::NO_RUNS_YET_PRESS_SEND)}</p> }
            >
                <Show when=move || !experiments.with(Vec::is_empty)>
                    <RunsFilterSelect experiments=experiments filter=filter />
                </Show>
                <RunsTable runs=runs selected=session.selected on_clear=on_clear />
                <SummaryTable runs=runs />
                <SloSummary />
                <ResultsCharts runs=runs session=session />
                {move || session.selected_record().map(|record| view! { <RunDetail record=record /> })}
            </Show>
        </section>
    }
}

/// The experiments (code, session number) that have runs in the session, for the filter.
fn experiments_present(session: Session) -> Memo<Vec<(String, u32)>> {
    Memo::new(move |_| {
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
    })
}

/// Which runs the results show: all, those made with Send, or one experiment's.
#[component]
fn RunsFilterSelect(
    /// The experiments present.
    experiments: Memo<Vec<(String, u32)>>,
    /// Which runs are shown.
    filter: RwSignal<RunsFilter>,
) -> impl IntoView {
    let i18n = use_i18n();
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
        <label class="filter">
            <span>{move || i18n.t(t::SHOW)}</span>
            // Each option says whether it is chosen: an experiment's option
            // appears with its first run, after the filter chose it.
            <select data-testid="runs-filter" data-value=move || filter.get().code() on:change=choose_filter>
                {move || {
                    let lang = i18n.lang.get();
                    let fixed = [
                        ("all".to_owned(), t::ALL_RUNS.get(lang).to_owned()),
                        ("send".to_owned(), t::RUNS_MADE_WITH_SEND.get(lang).to_owned()),
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
    }
}

/// The charts over the shown runs (TTFT per run, the ttfa distribution) and the selected
/// run's inter-token gaps.
#[component]
fn ResultsCharts(
    /// The shown runs.
    runs: RunsView,
    /// The session (the selected run).
    session: Session,
) -> impl IntoView {
    // Memos: computed once per change of the runs, and unchanged values re-render nothing.
    let series = Memo::new(move |_| {
        runs.with(|runs| {
            runs_chart_metrics()
                .map(|(metric, _)| {
                    runs.iter()
                        .filter(|record| !record.warm_up)
                        .map(|record| metric.read(record).number())
                        .collect::<Vec<_>>()
                })
                .collect::<Vec<_>>()
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
    let percentiles = move |names: &[&'static str]| {
        ttfa_summary
            .get()
            .map(|summary| {
                names
                    .iter()
                    .map(|&name| {
                        let value = match name {
                            "p50" => summary.p50,
                            "p95" => summary.p95,
                            _ => summary.p99,
                        };
                        (name, value)
                    })
                    .collect()
            })
            .unwrap_or_default()
    };
    let references = Signal::derive(move || percentiles(&["p50", "p95"]));
    let markers = Signal::derive(move || percentiles(&["p50", "p95", "p99"]));
    let ttfa_values = Memo::new(move |_| {
        runs.with(|runs| {
            runs.iter()
                .filter(|record| Cohort::All.contains(record))
                .filter_map(|record| record.metrics.ttfa_ms)
                .collect::<Vec<f64>>()
        })
    });
    let itl_gaps = Signal::derive(move || {
        session
            .selected_record()
            .map(|record| record.metrics.itl_gaps)
            .unwrap_or_default()
    });
    view! {
        <Show when=move || !ttfa_values.with(Vec::is_empty)>
            <div class="charts">
                <RunsChartView series=series.into() references=references />
                <DistributionView values_ms=ttfa_values.into() markers=markers metric="ttfa_ms" />
                <Show when=move || !itl_gaps.with(ItlGaps::is_empty)>
                    <ItlView gaps=itl_gaps />
                </Show>
            </div>
        </Show>
    }
}
