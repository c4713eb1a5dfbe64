//! The fleet settings, a small disclosure under the endpoint form: the OpenTelemetry
//! collector (endpoint, extra headers, the prompt opt-in), trace context, and SLOs. The URL
//! parameters fill it in; nothing typed here is stored (the collector's headers may hold a
//! token), and the model key is refused as a header value.

use leptos::prelude::*;

use super::otlp::{OtlpExport, OtlpSettings};
use super::slo::SloState;
use super::Fleet;
use crate::texts as t;
use ttft_web::form::FormState;
use ttft_web::i18n::use_i18n;

/// OpenTelemetry export, trace context and SLO settings.
#[component]
pub fn FleetSettings(
    /// The fleet state.
    fleet: Fleet,
    /// The form (the model key, to refuse it as a collector header).
    form: FormState,
) -> impl IntoView {
    let i18n = use_i18n();
    let export: OtlpExport = fleet.otlp;
    let slo: SloState = fleet.slo;
    let initial = export.settings.get_untracked();
    let endpoint = RwSignal::new(initial.endpoint.clone());
    let headers = RwSignal::new(initial.headers.clone());
    let include_prompt = RwSignal::new(initial.include_prompt);
    let slo_text = RwSignal::new(
        slo.set
            .get_untracked()
            .map(|set| set.to_string())
            .unwrap_or_default(),
    );
    let apply_otlp = move |_| {
        let settings = OtlpSettings {
            endpoint: endpoint.get_untracked(),
            headers: headers.get_untracked(),
            include_prompt: include_prompt.get_untracked(),
            ..export.settings.get_untracked()
        };
        let _ = export.configure(
            settings,
            &form.api_key.get_untracked(),
            slo.set.get_untracked(),
        );
    };
    let turn_off = move |_| {
        export.turn_off();
        export.refusal.set(None);
    };
    // The export follows the new set by itself (an effect of the fleet state).
    let apply_slo = move |_| {
        let _ = slo.apply(&slo_text.get_untracked());
    };
    // A model key typed after the export was set up is checked against its headers too.
    Effect::new(move |_| {
        let key = form.api_key.get();
        export.check_model_key(&key);
    });
    let slo_error = move || {
        slo.error.get().map(|error| {
            let text = error.message(i18n.lang.get());
            view! { <p class="error" role="alert" data-testid="slo-error">{text}</p> }
        })
    };
    let on = move || export.status.with(Option::is_some);
    // Trace context asked for by the page's URL: shown, so it can be turned off (not
    // followed afterwards, or unchecking it would hide the checkbox).
    let traced_from_start = fleet.traceparent.get_untracked();
    view! {
        <details class="panel fleet-settings" data-testid="fleet-settings" open=move || traced_from_start || on() || export.refusal.with(Option::is_some) || slo.set.with(Option::is_some) || slo.error.with(Option::is_some)>
            <summary>{move || i18n.t(t::FLEET_MEASUREMENT_OPENTELEMETRY_EXPORT_TRACE_CONTEXT)}</summary>
            <div class="fields">
                <div class="field">
                    <label for="otlp-endpoint">{move || i18n.t(t::OPENTELEMETRY_COLLECTOR_OTLP_HTTP_BASE_URL)}</label>
                    <input id="otlp-endpoint" data-testid="otlp-endpoint" type="url" autocomplete="off" spellcheck="false"
                        placeholder="https://otel.example.com:4318"
                        prop:value=move || endpoint.get() on:input=move |event| endpoint.set(event_target_value(&event)) />
                </div>
                <div class="field">
                    <label for="otlp-headers">{move || i18n.t(t::EXTRA_COLLECTOR_HEADERS_NAME_VALUE_COMMA)}</label>
                    <input id="otlp-headers" data-testid="otlp-headers" type="text" autocomplete="off" spellcheck="false"
                        placeholder="x-collector-token=…"
                        prop:value=move || headers.get() on:input=move |event| headers.set(event_target_value(&event)) />
                </div>
            </div>
            <label class="check">
                <input type="checkbox" data-testid="otlp-prompt" prop:checked=move || include_prompt.get()
                    on:change=move |event| include_prompt.set(event_target_checked(&event)) />
                {move || i18n.t(t::ALSO_SEND_THE_PROMPT_TEXT_OFF)}
            </label>
            <div class="actions">
                <button type="button" data-testid="otlp-apply" on:click=apply_otlp>{move || i18n.t(t::EXPORT_TO_THIS_COLLECTOR)}</button>
                <button type="button" data-testid="otlp-off" on:click=turn_off disabled=move || !on()>{move || i18n.t(t::STOP_EXPORTING)}</button>
            </div>
            <p class="meta">{move || i18n.t(t::SENT_PER_RUN_THE_TIMES_TOKEN)}</p>
            <label class="check">
                <input type="checkbox" data-testid="traceparent" prop:checked=move || fleet.traceparent.get()
                    on:change=move |event| fleet.traceparent.set(event_target_checked(&event)) />
                {move || i18n.t(t::SEND_TRACEPARENT_W3C_TRACE_CONTEXT_WITH)}
            </label>
            <div class="field wide slo-field">
                <label for="slo-input">{move || i18n.t(t::SLOS_FOR_EXAMPLE_PERCEIVED_TTFA_MS)}</label>
                <div class="key-row">
                    <input id="slo-input" data-testid="slo-input" type="text" autocomplete="off" spellcheck="false"
                        prop:value=move || slo_text.get() on:input=move |event| slo_text.set(event_target_value(&event)) />
                    <button type="button" data-testid="slo-apply" on:click=apply_slo>{move || i18n.t(t::APPLY)}</button>
                </div>
                {slo_error}
            </div>
        </details>
    }
}
