//! The endpoint form: protocol, preset, base URL, key, model, prompt and run options.

use leptos::prelude::*;
use leptos::task::spawn_local;
use ttft_core::measure::MAX_RUNS;
use ttft_core::preset::PRESETS;
use ttft_core::protocol::{Protocol, ProtocolChoice};
use ttft_core::request::{
    build_headers, normalize_base_url, parse_model_list, ApiKey, MAX_MODELS_BODY_BYTES,
    MODELS_TIMEOUT_MS,
};

use crate::clock::Timer;
use crate::form::FormState;
use crate::i18n::use_i18n;
use crate::key_gate::{use_key_gate, KeyGate};
use crate::texts as t;
use crate::transport::main_thread;
use crate::transport::{CarrierSlot, HttpRequest};

/// The models URL of the form's endpoint, if the base URL can be called.
fn models_url(form: FormState) -> Option<String> {
    let base_url = form.base_url.get_untracked();
    let protocol = form.protocol.get_untracked().resolve(&base_url);
    normalize_base_url(&base_url, protocol)
        .ok()
        .map(|endpoint| endpoint.models_url)
}

/// Asks the endpoint's `/models` for its model ids (bounded in time and size), with `key`
/// when the key gate allowed it; empty when it does not answer, answers something else, or
/// `signal` aborts it.
async fn list_models(
    form: FormState,
    key: Option<String>,
    signal: web_sys::AbortSignal,
) -> Vec<String> {
    let base_url = form.base_url.get_untracked();
    let protocol = form.protocol.get_untracked().resolve(&base_url);
    let Ok(endpoint) = normalize_base_url(&base_url, protocol) else {
        return Vec::new();
    };
    let Ok(key) = ApiKey::parse(key.as_deref().unwrap_or_default()) else {
        return Vec::new();
    };
    let headers = build_headers(protocol, protocol.default_auth_style(), key.as_ref())
        .into_iter()
        .filter(|header| header.name != "content-type")
        .map(|header| (header.name, header.value))
        .collect();
    let request = HttpRequest {
        method: "GET",
        url: endpoint.models_url,
        headers,
        body: None,
    };
    let Ok(response) = main_thread::open(&request, &signal).await else {
        return Vec::new();
    };
    if response.head.status != 200 {
        // Read to its end all the same (bounded): the request's entry, which says whether
        // the endpoint hides its timing, is complete only then.
        let _ = response.text_bounded(MAX_MODELS_BODY_BYTES).await;
        return Vec::new();
    }
    let body = response.text_bounded(MAX_MODELS_BODY_BYTES).await;
    match body {
        Ok(Some(text)) => parse_model_list(&text),
        _ => Vec::new(),
    }
}

/// How often, and how many times, the models list's Resource Timing entry is looked for
/// after the list was read (Chromium may queue it later).
const MODELS_ENTRY_LOOKS: (f64, u32) = (100.0, 10);

/// After the models list (answered or refused: a keyed provider answers 401): its entry
/// tells the handshake's round trip, and whether the endpoint hides its timing; where it
/// does, the runs' carrier pings it ([`crate::transport::pings`]) so the first run's wait
/// already splits the network from the server.
async fn after_models_list(carrier: CarrierSlot, models_url: &str) {
    let (every_ms, looks) = MODELS_ENTRY_LOOKS;
    for _ in 0..looks {
        if crate::transport::contacts::learn_round_trip_from_entries(models_url) {
            break;
        }
        crate::clock::sleep_ms(every_ms).await;
    }
    crate::clock::sleep_ms(crate::transport::pings::LOAD_SETTLE_MS).await;
    crate::transport::pings::round(carrier.carrier().as_ref(), models_url).await;
}

/// Model ids as shown: scrubbed of the key (a hostile server can list it as a model).
fn scrubbed_models(gate: KeyGate, models: Vec<String>) -> Vec<String> {
    match gate.scrubber() {
        Some(scrubber) => models
            .into_iter()
            .map(|model| scrubber.scrub(&model).into_owned())
            .collect(),
        None => models,
    }
}

/// The endpoint's models list, asked for in the background: a newer request (the form
/// changed) aborts the one in flight, and so does its timeout, so the list shown is always
/// the current endpoint's. Cheap to copy.
#[derive(Clone, Copy)]
struct ModelsRefresh {
    form: FormState,
    gate: KeyGate,
    /// The runs' carrier, which pings the endpoint after the list ([`after_models_list`]).
    carrier: Option<CarrierSlot>,
    in_flight: StoredValue<Option<(web_sys::AbortController, Timer)>, LocalStorage>,
}

impl ModelsRefresh {
    fn new(form: FormState, gate: KeyGate) -> ModelsRefresh {
        ModelsRefresh {
            form,
            gate,
            carrier: use_context::<CarrierSlot>(),
            in_flight: StoredValue::new_local(None),
        }
    }

    /// Asks for the list; `key` only from the key gate, after a click (automatic refreshes
    /// send no key).
    fn with_key(self, key: Option<String>) {
        let Ok(controller) = web_sys::AbortController::new() else {
            return;
        };
        let signal = controller.signal();
        let timeout = {
            let controller = controller.clone();
            Timer::once(MODELS_TIMEOUT_MS, move || controller.abort())
        };
        if let Some((previous, _)) = self
            .in_flight
            .try_update_value(|slot| slot.replace((controller, timeout)))
            .flatten()
        {
            previous.abort();
        }
        let (form, gate, carrier) = (self.form, self.gate, self.carrier);
        // On its way from now (the request leaves in a task after this one): a Send clicked
        // in the same gesture (the base URL's change fires as its field loses focus to the
        // click) must know that this request may open the connection its run then finds.
        if let Some(url) = models_url(form) {
            crate::transport::contacts::sent_to(&url, crate::clock::now_ms());
        }
        spawn_local(async move {
            let aborted = signal.clone();
            let models = scrubbed_models(gate, list_models(form, key, signal).await);
            if aborted.aborted() {
                return;
            }
            form.listed_models.set(models);
            if let (Some(carrier), Some(url)) = (carrier, models_url(form)) {
                after_models_list(carrier, &url).await;
            }
        })
    }

    /// Page load, preset and base URL changes: never with the key.
    fn keyless(self) {
        self.with_key(None);
    }
}

/// Protocol, preset, base URL (with the URL actually called), key, model and prompt.
#[component]
pub fn EndpointForm(
    /// The form's state.
    form: FormState,
    /// Whether a run is in progress (inputs stay editable; this only labels).
    #[prop(into)]
    streaming: Signal<bool>,
) -> impl IntoView {
    let i18n = use_i18n();
    let gate = use_key_gate();
    let models = ModelsRefresh::new(form, gate);
    models.keyless();
    view! {
        <section class="panel" aria-labelledby="endpoint-heading">
            <h2 id="endpoint-heading">{move || i18n.t(t::ENDPOINT)}</h2>
            <div class="fields">
                {preset_field(form, gate, models)}
                {protocol_field(form, gate)}
                {base_url_field(form, gate, models)}
                {key_field(form, gate)}
                {model_field(form, gate, models)}
                <div class="field wide">
                    <label for="prompt">{move || i18n.t(t::PROMPT)}</label>
                    <textarea
                        id="prompt"
                        data-testid="prompt"
                        prop:value=move || form.prompt.get()
                        on:input=move |event| form.prompt.set(event_target_value(&event))
                    ></textarea>
                </div>
            </div>
            <RunOptions form=form streaming=streaming />
        </section>
    }
}

/// The preset list: choosing one fills the form and lists its models (without the key).
fn preset_field(form: FormState, gate: KeyGate, models: ModelsRefresh) -> impl IntoView {
    let i18n = use_i18n();
    view! {
        <div class="field">
            <label for="preset">{move || i18n.t(t::PRESET)}</label>
            <select
                id="preset"
                data-testid="preset"
                on:change=move |event| {
                    let id = event_target_value(&event);
                    if let Some(preset) = PRESETS.iter().find(|preset| preset.id == id) {
                        gate.cancel();
                        form.apply_preset(preset);
                        models.keyless();
                    }
                }
            >
                <option value="">{move || i18n.t(t::CHOOSE_A_SERVER)}</option>
                {PRESETS
                    .iter()
                    .map(|preset| view! { <option value=preset.id>{preset.name}</option> })
                    .collect_view()}
            </select>
        </div>
    }
}

/// The protocol: inferred from the URL, or chosen.
fn protocol_field(form: FormState, gate: KeyGate) -> impl IntoView {
    let i18n = use_i18n();
    view! {
        <div class="field">
            <label for="protocol">{move || i18n.t(t::PROTOCOL)}</label>
            <select
                id="protocol"
                data-testid="protocol"
                prop:value=move || form.protocol.get().code()
                on:change=move |event| {
                    gate.cancel();
                    form.protocol.set(ProtocolChoice::from_code(&event_target_value(&event)))
                }
            >
                <option value="auto">{move || i18n.t(t::PROTOCOL_AUTO)}</option>
                {Protocol::ALL
                    .iter()
                    .map(|protocol| view! { <option value=protocol.code()>{protocol.label()}</option> })
                    .collect_view()}
            </select>
        </div>
    }
}

/// The base URL, with the URL actually called and what looks wrong, recomputed as the user
/// types.
fn base_url_field(form: FormState, gate: KeyGate, models: ModelsRefresh) -> impl IntoView {
    let i18n = use_i18n();
    let endpoint_preview = move || {
        let base_url = form.base_url.get();
        let protocol = form.protocol.get().resolve(&base_url);
        let lang = i18n.lang.get();
        match normalize_base_url(&base_url, protocol) {
            Ok(endpoint) => (
                format!("POST {}", endpoint.endpoint_url),
                endpoint
                    .warnings
                    .iter()
                    .map(|warning| warning.message(lang))
                    .collect::<Vec<_>>(),
            ),
            Err(error) => (String::new(), vec![error.message(lang)]),
        }
    };
    view! {
        <div class="field wide">
            <label for="base-url">{move || i18n.t(t::BASE_URL)}</label>
            <input
                id="base-url"
                data-testid="base-url"
                type="url"
                spellcheck="false"
                prop:value=move || form.base_url.get()
                on:input=move |event| {
                    // A question about the key was about the old address.
                    gate.cancel();
                    form.base_url.set(event_target_value(&event))
                }
                on:change=move |_| models.keyless()
            />
            <span class="hint" data-testid="url-preview">{move || endpoint_preview().0}</span>
            <ul class="warnings" data-testid="url-warnings">
                {move || {
                    endpoint_preview()
                        .1
                        .into_iter()
                        .map(|warning| view! { <li>{warning}</li> })
                        .collect_view()
                }}
            </ul>
        </div>
    }
}

/// The API key: bound to the endpoint it is typed for, masked in its note, forgettable.
fn key_field(form: FormState, gate: KeyGate) -> impl IntoView {
    let i18n = use_i18n();
    let forget_key = move |_| {
        gate.forget();
        form.api_key.set(String::new());
    };
    let key_masked = move || {
        ApiKey::parse(&form.api_key.get())
            .ok()
            .flatten()
            .map(|key| key.masked())
            .unwrap_or_default()
    };
    view! {
        <div class="field">
            <label for="api-key">{move || i18n.t(t::API_KEY)}</label>
            <div class="key-row">
                <input
                    id="api-key"
                    data-testid="api-key"
                    type="password"
                    autocomplete="off"
                    spellcheck="false"
                    placeholder=move || i18n.t(t::KEY_PLACEHOLDER)
                    prop:value=move || form.api_key.get()
                    on:input=move |event| {
                        let api_key = event_target_value(&event);
                        // The key belongs to the endpoint it is typed for.
                        gate.typed(
                            &api_key,
                            &form.base_url.get_untracked(),
                            form.protocol.get_untracked(),
                        );
                        form.api_key.set(api_key);
                    }
                />
                <button type="button" data-testid="forget-key" on:click=forget_key>
                    {move || i18n.t(t::FORGET_KEY)}
                </button>
            </div>
            <span class="hint" data-testid="key-note">
                {move || {
                    let masked = key_masked();
                    let origin = gate.binding.with(|binding| binding.origin.clone());
                    match (masked.is_empty(), origin) {
                        (true, _) => i18n
                            .t(t::KEY_NOTE_NO_KEY)
                            .to_string(),
                        (false, Some(origin)) => i18n.fill(t::KEY_NOTE_BOUND, &[("masked", &masked), ("origin", &origin)]),
                        (false, None) => i18n.fill(t::KEY_NOTE_UNBOUND, &[("masked", &masked)]),
                    }
                }}
            </span>
        </div>
    }
}

/// The model, with the endpoint's list as suggestions; "List models" asks with the key when
/// the gate allows it (it may ask first).
fn model_field(form: FormState, gate: KeyGate, models: ModelsRefresh) -> impl IntoView {
    let i18n = use_i18n();
    let list_models_clicked = move |event: web_sys::MouseEvent| {
        let Some(url) = models_url(form) else {
            return;
        };
        gate.request(&url, event.time_stamp(), move |_| {
            // The URL the form names now (it may have changed while the user was asked).
            let key = models_url(form).and_then(|url| gate.allowed_key(&url));
            models.with_key(key)
        });
    };
    view! {
        <div class="field">
            <label for="model">{move || i18n.t(t::MODEL)}</label>
            <input
                id="model"
                data-testid="model"
                list="model-list"
                spellcheck="false"
                prop:value=move || form.model.get()
                on:input=move |event| form.model.set(event_target_value(&event))
            />
            <datalist id="model-list">
                {move || {
                    form.listed_models
                        .get()
                        .into_iter()
                        .map(|model| view! { <option value=model></option> })
                        .collect_view()
                }}
            </datalist>
            <button type="button" class="small" data-testid="list-models" on:click=list_models_clicked>
                {move || i18n.t(t::LIST_MODELS)}
            </button>
            <span class="hint" data-testid="model-count">
                {move || {
                    let count = form.listed_models.get().len();
                    if count == 0 {
                        String::new()
                    } else {
                        i18n.fill(t::MODELS_LISTED, &[("count", &count)])
                    }
                }}
            </span>
        </div>
    }
}

/// Runs, warm-up, TTFT-only, max_tokens, reasoning and timeout.
#[component]
fn RunOptions(
    /// The form's state.
    form: FormState,
    /// Whether a run is in progress.
    #[prop(into)]
    streaming: Signal<bool>,
) -> impl IntoView {
    let i18n = use_i18n();
    let number_field = move |id: &'static str,
                             label: Signal<&'static str>,
                             value: RwSignal<String>,
                             placeholder: Signal<&'static str>| {
        view! {
            <div class="field small">
                <label for=id>{label}</label>
                <input
                    id=id
                    data-testid=id
                    inputmode="numeric"
                    placeholder=placeholder
                    prop:value=move || value.get()
                    on:input=move |event| value.set(event_target_value(&event))
                />
            </div>
        }
    };
    let check = move |id: &'static str, label: Signal<&'static str>, value: RwSignal<bool>| {
        view! {
            <label class="check">
                <input
                    type="checkbox"
                    data-testid=id
                    prop:checked=move || value.get()
                    on:change=move |event| value.set(event_target_checked(&event))
                />
                {label}
            </label>
        }
    };
    view! {
        <div class="fields options" aria-disabled=move || streaming.get().to_string()>
            {number_field(
                "run-count",
                Signal::derive(move || i18n.t(t::RUN_COUNT)),
                form.run_count,
                Signal::stored("1"),
            )}
            {number_field(
                "max-tokens",
                Signal::derive(move || i18n.t(t::MAX_TOKENS)),
                form.max_tokens,
                Signal::derive(move || i18n.t(t::MAX_TOKENS_PLACEHOLDER)),
            )}
            {number_field(
                "timeout-s",
                Signal::derive(move || i18n.t(t::TIMEOUT_PER_RUN_S)),
                form.timeout_s,
                Signal::stored("120"),
            )}
            <div class="checks">
                {check(
                    "warmup",
                    Signal::derive(move || i18n.t(t::WARM_UP)),
                    form.warmup,
                )}
                {check(
                    "ttft-only",
                    Signal::derive(move || i18n.t(t::TTFT_ONLY)),
                    form.ttft_only,
                )}
                {check(
                    "reasoning",
                    Signal::derive(move || i18n.t(t::ASK_FOR_REASONING)),
                    form.reasoning,
                )}
            </div>
            <span class="hint">{move || i18n.fill(t::MAX_RUNS_HINT, &[("max_runs", &MAX_RUNS)])}</span>
        </div>
    }
}
