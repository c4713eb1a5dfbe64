//! The page's finished and stopped experiments, each with its verdict in words (the codes
//! on the row's `data-verdict` / `data-verdicts`).

use leptos::prelude::*;
use ttft_lab::experiment::find;

use super::table::data_table;
use crate::experiments::ExperimentOutcome;
use crate::texts as t;
use ttft_web::i18n::use_i18n;

/// The list of past experiments (shown once there is one), redrawn whole on a change or a
/// language switch.
#[component]
pub(super) fn OutcomesList(
    /// Every experiment of the page, oldest first.
    outcomes: RwSignal<Vec<ExperimentOutcome>>,
) -> impl IntoView {
    let i18n = use_i18n();
    move || {
        let lang = i18n.lang.get();
        outcomes.with(|outcomes| {
            (!outcomes.is_empty()).then(|| {
                let columns = [
                    t::COLUMN_EXPERIMENT,
                    t::COLUMN_MODEL,
                    t::COLUMN_RUNS,
                    t::COLUMN_ENDED,
                    t::COLUMN_VERDICT,
                ];
                let headers = std::iter::once("#")
                    .chain(columns.into_iter().map(|column| column.get(lang)))
                    .map(str::to_owned)
                    .collect();
                let rows = outcomes
                    .iter()
                    .enumerate()
                    .map(|(index, outcome)| {
                        let label = find(&outcome.kind).map_or_else(
                            || outcome.kind.clone(),
                            |experiment| experiment.label().get(lang).to_owned(),
                        );
                        let ended = if outcome.complete {
                            t::EXPERIMENT_ENDED_COMPLETE.get(lang)
                        } else {
                            t::EXPERIMENT_ENDED_STOPPED.get(lang)
                        };
                        let verdict = outcome
                            .report
                            .verdicts
                            .iter()
                            .map(|verdict| verdict.text.get(lang))
                            .collect::<Vec<_>>()
                            .join(" ");
                        vec![
                            (index + 1).to_string(),
                            label,
                            outcome.model.clone(),
                            format!("{}/{}", outcome.runs_done, outcome.runs_planned),
                            ended.to_owned(),
                            verdict,
                        ]
                    })
                    .collect();
                let codes = outcomes
                    .iter()
                    .map(|outcome| {
                        let report = &outcome.report;
                        (
                            report.first_verdict_code().to_owned(),
                            report.verdict_codes().join(" "),
                        )
                    })
                    .collect();
                view! {
                    <h3>{t::EXPERIMENTS_THIS_SESSION.get(lang)}</h3>
                    {data_table("exp-outcomes", headers, rows, codes)}
                }
            })
        })
    }
}
