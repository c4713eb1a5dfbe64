//! A failed run's diagnosis: what happened and what to do, in the page's language.

use crate::i18n::use_i18n;
use leptos::prelude::*;
use ttft_core::record::RunRecord;

/// The failure of a run, with its cause and the fix, in the page's language. A run read
/// from a schema-1 history has only its cause code, which is shown as it is.
#[component]
pub fn DiagnosisBox(
    /// The failed run.
    record: RunRecord,
) -> impl IntoView {
    let i18n = use_i18n();
    let cause_code = record.diagnosis_cause.clone().unwrap_or_default();
    let diagnosis = record.diagnosis.clone();
    let code = cause_code.clone();
    // What happened, with the provider's words (if any) set apart: isolated (`<bdi>`: no
    // right-to-left text in them can move the page's words around) and styled as a quote.
    let title = {
        let diagnosis = diagnosis.clone();
        move || {
            let lang = i18n.lang.get();
            let Some(diagnosis) = diagnosis.as_ref() else {
                return code.clone().into_any();
            };
            let (before, quote, after) = diagnosis.message_parts(lang);
            let quote = quote.map(|quote| {
                view! { <bdi class="provider-quote" data-testid="provider-quote">{quote.to_owned()}</bdi> }
            });
            view! { {before.to_owned()} {quote} {after.to_owned()} }.into_any()
        }
    };
    let fix = move || {
        diagnosis
            .as_ref()
            .map(|d| d.fix(i18n.lang.get()).to_owned())
            .unwrap_or_default()
    };
    // The relay's command, its base URL filled in, to copy into a terminal: text, never HTML
    // (the base URL is the user's, and was scrubbed of the key with the record).
    let relay_command = record
        .diagnosis
        .as_ref()
        .and_then(|diagnosis| diagnosis.relay_command.clone())
        .map(|command| {
            view! { <pre class="relay-command"><code data-testid="relay-command">{command}</code></pre> }
        });
    view! {
        <div class="diagnosis" data-testid="diagnosis" data-cause=cause_code role="alert">
            <strong>{title}</strong>
            <p>{fix}</p>
            {relay_command}
        </div>
    }
}
