//! The experiment choice and one text field per parameter the chosen experiment declares.
//! Parsing is ttft-core's: the typed texts go to it as they are.

use leptos::prelude::*;
use ttft_core::lang::Lang;
use ttft_lab::experiment::params::{Inputs, ParamKind, ParamSpec};
use ttft_lab::experiment::{find, Experiment, REGISTRY};

use crate::texts as t;
use ttft_web::i18n::use_i18n;

/// One field: what it is and what was typed.
#[derive(Clone)]
struct Field {
    spec: ParamSpec,
    text: RwSignal<String>,
}

/// The chosen experiment and its fields as typed. Cheap to copy.
#[derive(Clone, Copy)]
pub(super) struct ExperimentChoice {
    code: RwSignal<&'static str>,
    fields: RwSignal<Vec<Field>>,
}

impl ExperimentChoice {
    /// The experiment with `code` when there is one, else the registry's first, with its
    /// default fields.
    pub(super) fn new(code: Option<&str>) -> ExperimentChoice {
        let choice = ExperimentChoice {
            code: RwSignal::new(""),
            fields: RwSignal::new(Vec::new()),
        };
        let experiment = code.and_then(find).or_else(|| REGISTRY.first().copied());
        if let Some(experiment) = experiment {
            choice.select(experiment);
        }
        choice
    }

    /// Switches to `experiment`, its fields at their defaults.
    fn select(&self, experiment: &'static dyn Experiment) {
        self.code.set(experiment.code());
        self.fields.set(
            experiment
                .params()
                .into_iter()
                .map(|spec| Field {
                    text: RwSignal::new(spec.default_text.clone()),
                    spec,
                })
                .collect(),
        );
    }

    /// The chosen experiment.
    pub(super) fn experiment(&self) -> &'static dyn Experiment {
        let code = self.code.get_untracked();
        find(code).unwrap_or(REGISTRY[0])
    }

    /// What was typed, by field id.
    pub(super) fn inputs(&self) -> Inputs {
        self.fields.with_untracked(|fields| {
            fields.iter().fold(Inputs::new(), |inputs, field| {
                inputs.with(field.spec.id, field.text.get_untracked())
            })
        })
    }
}

/// One labelled text input (test id `exp-<id>`), in `lang`.
fn param_field(field: Field, lang: Lang) -> impl IntoView {
    let Field { spec, text } = field;
    let id = format!("exp-{}", spec.id);
    let wide = matches!(spec.kind, ParamKind::Names | ParamKind::Text);
    view! {
        <div class=if wide { "field wide" } else { "field" }>
            <label for=id.clone()>{spec.label.get(lang).to_owned()}</label>
            <input
                id=id.clone()
                data-testid=id
                type="text"
                spellcheck="false"
                inputmode=if matches!(spec.kind, ParamKind::Count) { "numeric" } else { "text" }
                maxlength=spec.max_chars.to_string()
                placeholder=spec.placeholder.as_ref().map(|text| text.get(lang).to_owned())
                prop:value=move || text.get()
                on:input=move |event| text.set(event_target_value(&event))
            />
        </div>
    }
}

/// The experiment choice (locked while one runs), its description and its fields; the
/// fields are redrawn when the choice or the language changes (what was typed is kept in
/// their signals).
#[component]
pub(super) fn ParamsEditor(
    /// The choice and the fields.
    choice: ExperimentChoice,
    /// Whether an experiment is under way.
    busy: Signal<bool>,
) -> impl IntoView {
    let i18n = use_i18n();
    let fields = move || {
        let lang = i18n.lang.get();
        choice
            .fields
            .get()
            .into_iter()
            .map(|field| param_field(field, lang))
            .collect_view()
    };
    let description = move || {
        let lang = i18n.lang.get();
        find(choice.code.get()).map(|experiment| experiment.description().get(lang).to_owned())
    };
    view! {
        <div class="fields">
            <div class="field">
                <label for="exp-kind">{move || i18n.t(t::EXPERIMENT)}</label>
                <select
                    id="exp-kind"
                    data-testid="exp-kind"
                    disabled=move || busy.get()
                    prop:value=move || choice.code.get()
                    on:change=move |event| {
                        if let Some(experiment) = find(&event_target_value(&event)) {
                            choice.select(experiment);
                        }
                    }
                >
                    {REGISTRY
                        .iter()
                        .map(|experiment| {
                            let label = experiment.label();
                            view! { <option value=experiment.code()>{move || label.get(i18n.lang.get()).to_owned()}</option> }
                        })
                        .collect_view()}
                </select>
            </div>
            {fields}
        </div>
        <p class="meta" data-testid="exp-description">{description}</p>
    }
}
