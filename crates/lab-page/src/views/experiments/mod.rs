//! The experiments panel: choose an experiment of ttft-core's registry, edit its fields,
//! run or stop it, and read its report. Every experiment is drawn by the same components:
//! its fields come from its [`ParamSpec`](ttft_lab::experiment::params::ParamSpec)s, its
//! report from ttft-core's display-neutral model. Exact values are on `data-*` attributes
//! for the tests.

mod chart;
mod outcomes;
mod params;
mod progress;
mod report;
mod table;

use leptos::prelude::*;
use ttft_core::lang::Bilingual;

use crate::experiments::Experiments;
use crate::texts as t;
use ttft_web::form::FormState;
use ttft_web::i18n::use_i18n;

use outcomes::OutcomesList;
use params::{ExperimentChoice, ParamsEditor};
use progress::ProgressLine;
use report::report_view;

/// The experiments section of the page.
#[component]
pub fn ExperimentsPanel(
    /// The endpoint form: every experiment runs against its endpoint, key and model.
    form: FormState,
) -> impl IntoView {
    let i18n = use_i18n();
    let experiments = Experiments::use_or_provide();
    // `experiment=` in the page URL (embedding) preselects an experiment.
    let requested =
        use_context::<ttft_web::embed::ExperimentRequest>().and_then(|request| request.0);
    let choice = ExperimentChoice::new(requested.as_deref());
    let input_error = RwSignal::new(None::<Bilingual>);
    let gate = ttft_web::key_gate::use_key_gate();
    let run = move |event: web_sys::MouseEvent| {
        // Where the runs go; the key goes along only if the key gate says so.
        let target_url = match form.series_with_key(None) {
            Ok(series) => series.run.request().url.clone(),
            Err(error) => {
                return input_error.set(Some(Bilingual::from_fn(|lang| error.message(lang))))
            }
        };
        gate.request(&target_url, event.time_stamp(), move |_| {
            let lang = i18n.lang_untracked();
            // The key of the URL the runs go to now (the form may have changed meanwhile).
            let result = form
                .series_with_key(None)
                .and_then(|keyless| {
                    let key = gate.allowed_key(&keyless.run.request().url);
                    form.series_with_key(key.as_deref())
                })
                .map_err(|error| Bilingual::from_fn(|lang| error.message(lang)))
                .and_then(|series| {
                    experiments
                        .start(choice.experiment(), choice.inputs(), series.run, lang)
                        .map_err(|error| Bilingual::from_fn(|lang| error.message(lang)))
                });
            input_error.set(result.err());
        });
    };
    let error = move || input_error.get().or_else(|| experiments.error.get());
    view! {
        <section class="panel experiments" aria-labelledby="experiments-heading" data-testid="experiments"
            data-outcomes=move || experiments.outcomes.with(Vec::len).to_string()>
            <h2 id="experiments-heading">{move || i18n.t(t::EXPERIMENTS)}</h2>
            <p class="meta">
                {move || i18n.t(t::EXPERIMENTS_INTRO)}
            </p>
            <ParamsEditor choice=choice busy=Signal::derive(move || experiments.state.get().busy()) />
            <div class="actions">
                <button class="primary" data-testid="exp-run" on:click=run disabled=move || experiments.state.get().busy()>
                    {move || i18n.t(t::RUN_EXPERIMENT)}
                </button>
                <button data-testid="exp-stop" on:click=move |_| experiments.stop() disabled=move || !experiments.state.get().busy()>
                    {move || i18n.t(t::STOP)}
                </button>
                <ProgressLine experiments=experiments />
            </div>
            {move || error().map(|message| view! {
                <p class="error" role="alert" data-testid="exp-input-error">{message.get(i18n.lang.get()).to_owned()}</p>
            })}
            {move || {
                let lang = i18n.lang.get();
                experiments.report.with(|report| report.as_ref().map(|report| report_view(report, lang)))
            }}
            <OutcomesList outcomes=experiments.outcomes />
        </section>
    }
}
