//! The streamed reasoning and answer panes (plain text, never HTML).

use super::diagnosis_box::DiagnosisBox;
use crate::i18n::use_i18n;
use crate::state::LiveRun;
use crate::state::StreamedText;
use crate::texts as t;
use leptos::prelude::*;
use leptos::tachys::html::attribute::custom::CustomAttribute;
use ttft_core::measure::{cut_note, lead_cut_note};

/// Streamed text as plain text (never HTML), its first piece in a fresh element whose
/// paint is timed.
#[component]
fn StreamedPane(
    /// The text.
    text: StreamedText,
) -> impl IntoView {
    let i18n = use_i18n();
    view! {
        {move || text.lead.get()}
        <Show when=move || text.lead_cut.get()>
            <span class="cut-note" data-testid="lead-cut">{move || lead_cut_note(i18n.lang.get())}</span>
        </Show>
        {move || {
            text.first
                .get()
                .map(|(paint_id, first_text)| {
                    // `elementtiming` has no typed setter in the view macro.
                    leptos::html::span()
                        .class("painted-first")
                        .attr("elementtiming", paint_id)
                        .child(first_text)
                })
        }}
        <span class="rest" node_ref=text.rest_node></span>
        <span class="blocks" node_ref=text.blocks_node></span>
        <Show when=move || text.cut.get()>
            <span class="cut-note" data-testid="text-cut">{move || cut_note(i18n.lang.get())}</span>
        </Show>
    }
}

/// The live run: reasoning and answer as they stream in, then what the run's end adds (an
/// input problem, the diagnosis of a failure). Nothing above the answer pane changes when a
/// run ends or the next one starts (the reasoning pane stays for the whole series once a run
/// had reasoning), so the place where the first answer token appears never moves.
#[component]
pub fn LivePanes(
    /// The run being shown.
    live: LiveRun,
) -> impl IntoView {
    let i18n = use_i18n();
    view! {
        <Show when=move || live.shows_reasoning()>
            <h3 class="pane-title">{move || i18n.t(t::REASONING)}</h3>
            <pre class="pane reasoning" data-testid="reasoning">
                <StreamedPane text=live.reasoning />
            </pre>
        </Show>
        <h3 class="pane-title">{move || i18n.t(t::ANSWER)}</h3>
        <pre class="pane" id="answer-pane" data-testid="answer" aria-live="polite">
            <StreamedPane text=live.answer />
        </pre>
        {move || live.input_error.get().map(|error| {
            let field = error.field_code();
            view! {
                <div class="diagnosis" data-testid="input-error" data-field=field role="alert">
                    <strong>{move || error.message(i18n.lang.get())}</strong>
                </div>
            }
        })}
        {move || live.failed.get().map(|record| view! { <DiagnosisBox record=record /> })}
    }
}
