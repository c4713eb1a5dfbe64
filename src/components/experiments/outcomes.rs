//! The page's finished and stopped experiments, each with its verdict in words (the codes
//! on `data-verdict` / `data-verdicts` of the verdict cell).

use leptos::prelude::*;
use ttft_core::experiment::find;

use crate::experiments::ExperimentOutcome;
use crate::i18n::use_i18n;

/// One past experiment.
#[component]
fn OutcomeRow(
    /// Its position in the list, from 1.
    number: usize,
    /// The experiment.
    outcome: ExperimentOutcome,
) -> impl IntoView {
    let i18n = use_i18n();
    let label = find(&outcome.kind).map(|experiment| experiment.label());
    let kind = outcome.kind.clone();
    let codes: Vec<String> = outcome
        .report
        .verdicts
        .iter()
        .map(|verdict| verdict.code.clone())
        .collect();
    let sentences = outcome.report.verdicts;
    let verdict = move || {
        let lang = i18n.lang.get();
        sentences
            .iter()
            .map(|verdict| verdict.text.get(lang))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let complete = outcome.complete;
    view! {
        <tr data-kind=outcome.kind.clone() data-session=outcome.session.to_string()>
            <td>{number}</td>
            <td>{move || label.as_ref().map_or_else(|| kind.clone(), |label| label.get(i18n.lang.get()).to_owned())}</td>
            <td>{outcome.model}</td>
            <td>{format!("{}/{}", outcome.runs_done, outcome.runs_planned)}</td>
            <td>{move || if complete { i18n.t("complete", "完成") } else { i18n.t("stopped", "已停止") }}</td>
            <td class="verdict-cell" data-verdict=codes.first().cloned().unwrap_or_default() data-verdicts=codes.join(" ")>
                {verdict}
            </td>
        </tr>
    }
}

/// The list of past experiments (shown once there is one).
#[component]
pub(super) fn OutcomesList(
    /// Every experiment of the page, oldest first.
    outcomes: RwSignal<Vec<ExperimentOutcome>>,
) -> impl IntoView {
    let i18n = use_i18n();
    view! {
        <Show when=move || !outcomes.with(Vec::is_empty)>
            <h3>{move || i18n.t("Experiments this session", "本次会话的实验")}</h3>
            <div class="table-scroll">
                <table class="experiment" data-testid="exp-outcomes">
                    <thead>
                        <tr>
                            <th scope="col">"#"</th>
                            <th scope="col">{move || i18n.t("experiment", "实验")}</th>
                            <th scope="col">{move || i18n.t("model", "模型")}</th>
                            <th scope="col">{move || i18n.t("runs", "次数")}</th>
                            <th scope="col">{move || i18n.t("ended", "结束")}</th>
                            <th scope="col">{move || i18n.t("verdict", "结论")}</th>
                        </tr>
                    </thead>
                    <tbody>
                        {move || outcomes
                            .get()
                            .into_iter()
                            .enumerate()
                            .map(|(index, outcome)| view! { <OutcomeRow number=index + 1 outcome=outcome /> })
                            .collect_view()}
                    </tbody>
                </table>
            </div>
        </Show>
    }
}
