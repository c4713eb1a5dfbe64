//! One view for every experiment's report: verdicts, notes on method, the requests made,
//! the chart and the table. The report's figures are set as `data-<key>` attributes.

use leptos::html::Div;
use leptos::prelude::*;
use ttft_core::lang::Lang;
use ttft_lab::experiment::report::{Report, RunTally};

use super::chart::chart_view;
use super::table::data_table;
use crate::texts as t;

/// What the experiment sent: measured runs (failed, priming) and calibration requests.
fn tally_text(tally: &RunTally, lang: Lang) -> String {
    let RunTally {
        measured,
        failed,
        priming,
        calibration_requests,
        planned,
    } = *tally;
    let priming = if priming > 0 {
        t::TALLY_PRIMING.fill(lang, &[("priming", &priming)])
    } else {
        String::new()
    };
    let calibration = if calibration_requests > 0 {
        t::TALLY_CALIBRATION.fill(lang, &[("calibration_requests", &calibration_requests)])
    } else {
        String::new()
    };
    t::TALLY.fill(
        lang,
        &[
            ("measured", &measured),
            ("planned", &planned),
            ("failed", &failed),
            ("priming", &priming),
            ("calibration", &calibration),
        ],
    )
}

/// The report of the current experiment in `lang` (redrawn whole when either changes:
/// one reactive scope instead of one per text keeps the wasm small).
pub(super) fn report_view(report: &Report, lang: Lang) -> impl IntoView {
    let node = NodeRef::<Div>::new();
    let figures = report.figures.clone();
    node.on_load(move |element| {
        for figure in &figures {
            // A key is ttft-core's constant: a valid attribute name.
            let _ =
                element.set_attribute(&format!("data-{}", figure.key), &figure.value.attribute());
        }
    });
    let codes = report.verdict_codes();
    let verdicts = report
        .verdicts
        .iter()
        .map(|verdict| {
            view! { <p class="verdict" data-verdict=verdict.code.clone()>{verdict.text.get(lang).to_owned()}</p> }
        })
        .collect_view();
    let notes = report
        .notes
        .iter()
        .map(|note| view! { <li>{note.get(lang).to_owned()}</li> })
        .collect_view();
    let table = &report.table;
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
    let tally = report.tally;
    view! {
        <div class="report" data-testid="exp-report" data-kind=report.experiment.clone() node_ref=node>
            <div
                class="verdicts"
                data-testid="exp-verdict"
                data-verdict=report.first_verdict_code().to_owned()
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
                {tally_text(&tally, lang)}
            </p>
            {report.chart.as_ref().map(|chart| chart_view(chart, lang))}
            {data_table("exp-table", headers, rows, Vec::new())}
        </div>
    }
}
