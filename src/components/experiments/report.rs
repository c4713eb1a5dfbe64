//! One view for every experiment's report: verdicts, notes on method, the requests made,
//! the chart and the table. The report's figures are set as `data-<key>` attributes.

use leptos::html::Div;
use leptos::prelude::*;
use ttft_core::experiment::report::{Report, RunTally};
use ttft_core::lang::Lang;

use super::chart::ReportChart;
use super::table::DataTable;
use crate::i18n::use_i18n;

/// What the experiment sent: measured runs (failed, priming) and calibration requests.
fn tally_text(tally: &RunTally, lang: Lang) -> String {
    let RunTally {
        measured,
        failed,
        priming,
        calibration_requests,
        planned,
    } = *tally;
    let mut text = lang.pick(
        format!("{measured} of {planned} planned runs made ({failed} failed)"),
        format!("已完成计划中 {planned} 次运行里的 {measured} 次（{failed} 次失败）"),
    );
    if priming > 0 {
        text.push_str(&lang.pick(
            format!("; {priming} of them priming runs, in no statistic"),
            format!("；其中 {priming} 次为预热请求，不计入统计"),
        ));
    }
    if calibration_requests > 0 {
        text.push_str(&lang.pick(
            format!(
                "; {calibration_requests} calibration requests counted tokens (not measured runs)"
            ),
            format!("；另有 {calibration_requests} 次校准请求用于计数 token（不是测量运行）"),
        ));
    }
    text.push_str(lang.pick(".", "。"));
    text
}

/// The report of the current experiment.
#[component]
pub(super) fn ReportView(
    /// What was measured and concluded so far.
    report: Report,
) -> impl IntoView {
    let i18n = use_i18n();
    let Report {
        experiment,
        verdicts,
        notes,
        figures,
        table,
        chart,
        tally,
    } = report;
    let node = NodeRef::<Div>::new();
    node.on_load(move |element| {
        for figure in &figures {
            // A key is ttft-core's constant: a valid attribute name.
            let _ =
                element.set_attribute(&format!("data-{}", figure.key), &figure.value.attribute());
        }
    });
    let codes: Vec<String> = verdicts
        .iter()
        .map(|verdict| verdict.code.clone())
        .collect();
    let verdicts = verdicts
        .into_iter()
        .map(|verdict| {
            let text = verdict.text;
            view! { <p class="verdict" data-verdict=verdict.code>{move || text.get(i18n.lang.get()).to_owned()}</p> }
        })
        .collect_view();
    let notes = notes
        .into_iter()
        .map(|note| view! { <li>{move || note.get(i18n.lang.get()).to_owned()}</li> })
        .collect_view();
    let table = move || {
        let lang = i18n.lang.get();
        let headers = table
            .columns
            .iter()
            .map(|column| column.header(lang))
            .collect();
        let rows = table
            .rows
            .iter()
            .map(|row| row.iter().map(|cell| cell.display(lang)).collect())
            .collect();
        view! { <DataTable testid="exp-table" headers=headers rows=rows /> }
    };
    view! {
        <div class="report" data-testid="exp-report" data-kind=experiment node_ref=node>
            <div
                class="verdicts"
                data-testid="exp-verdict"
                data-verdict=codes.first().cloned().unwrap_or_default()
                data-verdicts=codes.join(" ")
            >
                {verdicts}
            </div>
            <ul class="meta notes" data-testid="exp-notes">{notes}</ul>
            <p
                class="meta"
                data-testid="exp-tally"
                data-measured=tally.measured.to_string()
                data-priming=tally.priming.to_string()
                data-calibration-requests=tally.calibration_requests.to_string()
            >
                {move || tally_text(&tally, i18n.lang.get())}
            </p>
            {chart.map(|chart| view! { <ReportChart chart=chart /> })}
            {table}
        </div>
    }
}
