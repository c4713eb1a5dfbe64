//! Where the experiment is: counting tokens, run k of n, or how it ended.

use leptos::prelude::*;

use crate::experiments::{ExperimentState, Experiments};
use crate::texts as t;
use ttft_web::i18n::use_i18n;

/// The experiment's progress, with its state and counts on `data-*` attributes.
#[component]
pub(super) fn ProgressLine(
    /// The experiments' state.
    experiments: Experiments,
) -> impl IntoView {
    let i18n = use_i18n();
    let text = move || {
        let (done, planned) = experiments.progress.get();
        let next = (done + 1).min(planned.max(1));
        match experiments.state.get() {
            ExperimentState::Preparing => i18n.t(t::EXPERIMENT_PREPARING).to_owned(),
            ExperimentState::Running => i18n.fill(
                t::EXPERIMENT_RUN_OF,
                &[("next", &next), ("planned", &planned)],
            ),
            ExperimentState::Done => i18n.fill(t::EXPERIMENT_DONE, &[("done", &done)]),
            ExperimentState::Stopped => i18n.fill(
                t::EXPERIMENT_STOPPED_AFTER,
                &[("done", &done), ("planned", &planned)],
            ),
            ExperimentState::Idle | ExperimentState::Refused => String::new(),
        }
    };
    view! {
        <span
            class="status"
            role="status"
            data-testid="exp-progress"
            data-state=move || experiments.state.get().code()
            data-done=move || experiments.progress.get().0.to_string()
            data-planned=move || experiments.progress.get().1.to_string()
        >
            {text}
        </span>
    }
}
