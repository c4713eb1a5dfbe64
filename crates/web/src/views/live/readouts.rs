//! The headline numbers of the run in progress (first answer token, on screen, first
//! reasoning token, first chunk, elapsed).

use crate::clock;
use crate::i18n::use_i18n;
use crate::state::LiveRun;
use crate::texts as t;
use leptos::prelude::*;
use leptos::tachys::html::attribute::custom::CustomAttribute;

/// Milliseconds for display: whole ms, or "—" when missing.
pub fn format_ms(value_ms: Option<f64>) -> String {
    value_ms.map_or_else(|| "—".into(), |value_ms| format!("{value_ms:.0} ms"))
}

fn raw_ms(value_ms: Option<f64>) -> String {
    value_ms
        .map(|value_ms| format!("{value_ms:.3}"))
        .unwrap_or_default()
}

/// One headline number; `data-ms` holds the exact value for tests and scripts.
#[component]
fn Readout(
    /// `data-testid`.
    test_id: &'static str,
    /// The label.
    #[prop(into)]
    label: Signal<&'static str>,
    /// The metric name shown under the value.
    note: &'static str,
    /// The value.
    value_ms: RwSignal<Option<f64>>,
    /// While there is no value yet: whole seconds so far, shown as "3 s…".
    #[prop(optional)]
    running_s: Option<RwSignal<Option<u32>>>,
) -> impl IntoView {
    let shown = move || match (
        value_ms.get(),
        running_s.and_then(|running_s| running_s.get()),
    ) {
        (None, Some(whole_s)) => format!("{whole_s} s…"),
        (value_ms, _) => format_ms(value_ms),
    };
    view! {
        <div class="readout">
            <div class="label">{label}</div>
            <div class="value" data-testid=test_id data-ms=move || raw_ms(value_ms.get())>
                {shown}
            </div>
            <div class="note">{note}</div>
        </div>
    }
}

/// The headline numbers of the current run, the elapsed counter and the timer resolution.
#[component]
pub fn Readouts(
    /// The run being shown.
    live: LiveRun,
) -> impl IntoView {
    let i18n = use_i18n();
    let grade = clock::timer_grade();
    let (resolution, isolated) = (grade.step_ms, grade.cross_origin_isolated);
    let step = resolution.map(|step_ms| format!("{step_ms:.3}"));
    view! {
        <div class="readouts">
            <Readout
                test_id="ttfa"
                label=Signal::derive(move || i18n.t(t::FIRST_ANSWER_TOKEN))
                note="ttfa_ms"
                value_ms=live.ttfa_ms
            />
            <Readout
                test_id="perceived-ttfa"
                label=Signal::derive(move || i18n.t(t::FIRST_ANSWER_ON_SCREEN))
                note="perceived_ttfa_ms"
                value_ms=live.perceived_ttfa_ms
            />
            <Readout
                test_id="ttfr"
                label=Signal::derive(move || i18n.t(t::FIRST_REASONING_TOKEN))
                note="ttfr_ms"
                value_ms=live.ttfr_ms
            />
            <Readout
                test_id="first-chunk"
                label=Signal::derive(move || i18n.t(t::FIRST_CHUNK_OF_ANY_KIND))
                note="first_chunk_ms"
                value_ms=live.first_chunk_ms
            />
            <Readout
                test_id="elapsed"
                label=Signal::derive(move || i18n.t(t::ELAPSED))
                note="e2e_ms"
                value_ms=live.elapsed_ms
                running_s=live.running_s
            />
        </div>
        <p class="meta" data-testid="timer-resolution" data-step-ms=resolution.map(|step_ms| format!("{step_ms}")).unwrap_or_default()>
            {move || match &step {
                Some(step) => i18n.fill(t::TIMER_STEP, &[
                    ("step_ms", step),
                    ("isolation", &i18n.t(if isolated { t::TIMER_STEP_ISOLATED } else { t::TIMER_STEP_NOT_ISOLATED })),
                ]),
                None => i18n.t(t::TIMER_STEP_UNKNOWN).to_string(),
            }}
        </p>
    }
}

/// The warning on a run whose answer arrived all at once after a long silence: something
/// between the page and the model buffered it.
#[component]
pub fn BufferedNote(
    /// What was seen.
    buffered: ttft_core::timeline::BufferedArrival,
) -> impl IntoView {
    let i18n = use_i18n();
    view! {
        <p class="meta arrival-delay flagged" data-testid="buffered-arrival">
            {move || buffered.warning(i18n.lang.get())}
        </p>
    }
}

/// What a finished run's arrivals and main thread add to its readouts: the possible
/// arrival delay (where the worker's arrivals wait for the main thread) and the main
/// thread's stall, each only when there is something to say. Shown below the panes, so that
/// it moves nothing the user is reading.
#[component]
pub fn RunNotes(
    /// The run being shown.
    live: LiveRun,
) -> impl IntoView {
    let i18n = use_i18n();
    view! {
        {move || live.arrival_delay.get().map(|(bound_ms, flagged)| {
            let bound = format!("{bound_ms:.0}");
            view! {
                <p
                    class="meta arrival-delay"
                    class:flagged=flagged
                    data-testid="arrival-delay"
                    data-ms=format!("{bound_ms:.3}")
                    data-flagged=flagged.to_string()
                >
                    {move || i18n.fill(t::ARRIVAL_DELAY, &[
                        ("bound_ms", &bound),
                        ("flagged", &if flagged { i18n.t(t::ARRIVAL_DELAY_FLAGGED) } else { "" }),
                    ])}
                </p>
            }
        })}
        {move || live.stall_ms.get().map(|stall_ms| {
            let stall = format!("{stall_ms:.0}");
            view! {
                <p class="meta arrival-delay flagged" data-testid="main-thread-stall"
                    data-ms=format!("{stall_ms:.3}")>
                    {move || i18n.fill(t::MAIN_THREAD_STALL, &[("stall_ms", &stall)])}
                </p>
            }
        })}
        {move || live.buffered.get().map(|buffered| view! { <BufferedNote buffered=buffered /> })}
    }
}
