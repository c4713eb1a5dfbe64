//! The Run panel, on both pages: Send and Stop, the status, the series' progress, the
//! readouts and the live panes.

use leptos::prelude::*;
use web_sys::MouseEvent;

use crate::i18n::use_i18n;
use crate::state::LiveRun;
use crate::texts as t;
use crate::views::live::{LivePanes, Readouts, RunNotes};

pub fn status_text(live: LiveRun) -> String {
    let i18n = use_i18n();
    let (run, total) = live.progress.get();
    let of = if total > 1 {
        i18n.fill(t::STATUS_RUN_OF, &[("run", &run), ("total", &total)])
    } else {
        String::new()
    };
    let state = i18n.t(live.status.get().text());
    format!("{state}{of}")
}

/// A progress bar while a series of several runs is going (its place kept otherwise).
#[component]
pub fn RunProgress(
    /// The live run (progress and streaming flag).
    live: LiveRun,
) -> impl IntoView {
    let i18n = use_i18n();
    let series_running = move || live.streaming.get() && live.progress.get().1 > 1;
    // Always in the layout, hidden when there is no series to show: its coming and going
    // would move the answer pane below it.
    view! {
        <progress
            class="run-progress"
            class:idle=move || !series_running()
            data-testid="run-progress"
            aria-hidden=move || (!series_running()).to_string()
            max=move || live.progress.get().1.max(1)
            value=move || live.progress.get().0.saturating_sub(1)
            aria-label=move || i18n.t(t::RUNS_DONE)
        ></progress>
    }
}

/// The Run panel: Send and Stop, the status, the series' progress, the readouts, the live
/// panes, then what a finished run adds (its notes, where its wait went) and what the page
/// adds (the lab: the OTLP export's status line).
#[component]
pub fn RunPanel<S, T>(
    live: LiveRun,
    /// Send's click handler ([`crate::series::send_handler`]).
    send: S,
    /// Stop ([`crate::series::SeriesContext::stopper`]).
    stop: T,
    #[prop(optional)] children: Option<Children>,
) -> impl IntoView
where
    S: Fn(MouseEvent) + Clone + 'static,
    T: Fn() + Copy + 'static,
{
    let i18n = use_i18n();
    view! {
        <section class="panel" aria-labelledby="run-heading">
            <h2 id="run-heading">{move || i18n.t(t::RUN_HEADING)}</h2>
            <div class="actions">
                <button
                    class="primary"
                    data-testid="send"
                    on:click=send
                    disabled=move || live.streaming.get()
                >
                    {move || i18n.t(t::SEND)}
                </button>
                <button data-testid="stop" on:click=move |_| stop() disabled=move || !live.streaming.get()>
                    {move || i18n.t(t::STOP)}
                </button>
                <span class="status" data-testid="status" data-state=move || live.status.get().code() role="status">
                    {move || status_text(live)}
                </span>
            </div>
            <RunProgress live=live />
            <Readouts live=live />
            <LivePanes live=live />
            // What the run's end adds goes below the panes: the answer pane stays where the
            // user is looking when a run ends and when the next starts.
            <RunNotes live=live />
            {move || {
                let lang = i18n.lang.get();
                live.breakdown.with(|breakdown| {
                    breakdown
                        .as_ref()
                        .map(|breakdown| crate::views::wait::wait_view(breakdown, lang))
                })
            }}
            {children.map(|children| children())}
        </section>
    }
}
