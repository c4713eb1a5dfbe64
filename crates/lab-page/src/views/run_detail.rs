//! The selected run's details with its waterfall (the lab's; the widget shows
//! [`ttft_web::views::runs_table::RunDetailLean`]).

use leptos::prelude::*;
use ttft_core::record::RunRecord;
use ttft_web::views::runs_table::run_detail;

use crate::views::charts::WaterfallView;

/// The selected run: its diagnosis, network breakdown and waterfall.
#[component]
pub fn RunDetail(
    /// The run.
    record: RunRecord,
) -> impl IntoView {
    let phases = ttft_lab::chart::run_phases(&record.instants, record.network.as_ref());
    // A run without a first token has only its connection setup: no chart.
    let chart = (phases.len() > 1)
        .then(|| view! { <WaterfallView phases=Signal::derive(move || phases.clone()) /> });
    run_detail(record, chart)
}
