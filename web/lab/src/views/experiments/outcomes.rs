//! The page's finished and stopped experiments, each with its verdict in words (the codes
//! on the row's `data-verdict` / `data-verdicts`).

use leptos::prelude::*;
use ttft_lab::experiment::find;

use super::table::data_table;
use crate::experiments::ExperimentOutcome;
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
                let headers = [
                    ("#", "#"),
                    ("experiment", "实验"),
                    ("model", "模型"),
                    ("runs", "次数"),
                    ("ended", "结束"),
                    ("verdict", "结论"),
                ]
                .into_iter()
                .map(|(en, zh)| lang.pick(en, zh).to_owned())
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
                            lang.pick("complete", "完成")
                        } else {
                            lang.pick("stopped", "已停止")
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
                    <h3>{lang.pick("Experiments this session", "本次会话的实验")}</h3>
                    {data_table("exp-outcomes", headers, rows, codes)}
                }
            })
        })
    }
}
