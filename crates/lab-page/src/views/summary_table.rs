//! The summary table: p50/p95/p99/min/max/mean/n of the main metrics by cohort.

use leptos::prelude::*;
use ttft_core::metric::summary_metrics;
use ttft_core::record::{cohort_summary, Cohort};
use ttft_core::stats::Summary;
use ttft_core::text::Text;
use ttft_core::timeline::RunsSummary;
use ttft_web::i18n::use_i18n;
use ttft_web::state::RunsView;
use ttft_web::views::runs_table::cell_number;

use crate::texts as t;

/// The heading of a cohort's rows.
fn cohort_label(cohort: Cohort) -> Text {
    match cohort {
        Cohort::All => t::COHORT_ALL_MEASURED_RUNS,
        Cohort::Cold => t::COHORT_COLD_NEW_CONNECTION,
        Cohort::Warm => t::COHORT_WARM_REUSED_CONNECTION,
    }
}

/// p50, p95, p99, min, max, mean and n of the main metrics, for all, cold and warm runs.
#[component]
pub fn SummaryTable(
    /// The runs summarized.
    runs: RunsView,
) -> impl IntoView {
    let i18n = use_i18n();
    let body = move || {
        let summaries: Vec<Option<RunsSummary>> = runs.with(|runs| {
            Cohort::ALL
                .iter()
                .map(|cohort| cohort_summary(runs.iter().copied(), *cohort).ok().flatten())
                .collect()
        });
        Cohort::ALL
            .into_iter()
            .zip(summaries)
            .filter_map(|(cohort, summary)| {
                let label = cohort_label(cohort);
                let id = cohort.code();
                let summary = summary?;
                let rows = summary_metrics()
                    .map(|metric| {
                        let cells = summary_cells(summary.get(metric.name));
                        view! {
                            <tr data-cohort=id data-metric=metric.name>
                                <th scope="row">{metric.name}</th>
                                {cells[..6]
                                    .iter()
                                    .map(|value| view! { <td>{cell_number(*value, 1)}</td> })
                                    .collect_view()}
                                <td>{cell_number(cells[6], 0)}</td>
                            </tr>
                        }
                    })
                    .collect_view();
                Some(view! {
                    <tbody>
                        <tr class="cohort"><th colspan="8" scope="rowgroup">{move || i18n.t(label)}</th></tr>
                        {rows}
                    </tbody>
                })
            })
            .collect_view()
    };
    let wait = move || {
        runs.with(|runs| {
            ttft_core::timeline::WaitSummary::of(
                runs.iter()
                    .filter(|record| record.counts())
                    .filter_map(|record| record.breakdown.as_ref()),
            )
        })
        .map(|summary| view! { <ttft_web::views::wait::WaitSummaryView summary=summary /> })
    };
    view! {
        <h3>{move || i18n.t(t::SUMMARY)}</h3>
        <p class="meta">
            {move || i18n.t(t::SUCCESSFUL_MEASURED_RUNS_ONLY_WARM_UPS)}
        </p>
        <div class="table-scroll" tabindex="0">
            <table class="summary" data-testid="summary-table">
                <thead>
                    <tr>
                        <th scope="col">{move || i18n.t(t::COLUMN_METRIC)}</th>
                        <th scope="col">"p50"</th>
                        <th scope="col">"p95"</th>
                        <th scope="col">"p99"</th>
                        <th scope="col">"min"</th>
                        <th scope="col">"max"</th>
                        <th scope="col">"mean"</th>
                        <th scope="col">"n"</th>
                    </tr>
                </thead>
                {body}
            </table>
        </div>
        {wait}
    }
}

/// A summary's row for one metric: p50, p95, p99, min, max, mean, n.
fn summary_cells(summary: Option<&Summary>) -> [Option<f64>; 7] {
    match summary {
        Some(summary) => [
            Some(summary.p50),
            Some(summary.p95),
            Some(summary.p99),
            Some(summary.min),
            Some(summary.max),
            Some(summary.mean),
            Some(summary.count as f64),
        ],
        None => [None; 7],
    }
}
