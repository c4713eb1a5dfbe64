//! OpenAI Responses API streaming (stream-formats.md §5).

use serde_json::json;

use super::decoded::{DecodedEvent, StreamError, Totals};
use super::json::{responses_usage, stream_error_from};
use super::wire::EventInput;

/// Decodes one event. Lifecycle events (`response.created`, `*.added`, `*.done`, …) contribute
/// nothing; the `error` event is found by the generic check.
pub(crate) fn decode(input: &EventInput<'_>, out: &mut DecodedEvent, totals: &mut Totals) {
    let Some(json) = input.json else {
        return;
    };
    let kind = input.kind().unwrap_or_default();
    match kind {
        "response.reasoning_summary_text.delta" | "response.reasoning_text.delta" => out
            .reasoning
            .push_str(json.delta.text_value.as_deref().unwrap_or_default()),
        "response.output_text.delta" => out
            .answer
            .push_str(json.delta.text_value.as_deref().unwrap_or_default()),
        "response.completed" | "response.incomplete" | "response.failed" => {
            out.terminal = true;
            let response = &json.response;
            // The finish reason is the response's status (`completed`, `incomplete`, `failed`).
            let status = response
                .status
                .as_deref()
                .unwrap_or(kind.trim_start_matches("response."));
            out.finish_reason = Some(status.to_owned());
            if let Some(usage) = response.usage.as_ref().filter(|usage| usage.is_object()) {
                totals.usage = Some(responses_usage(usage));
                out.usage_updated = true;
            }
            if kind == "response.failed" && out.error.is_none() {
                out.error = Some(response.error.as_ref().map_or_else(
                    || StreamError {
                        kind: Some("failed".to_owned()),
                        message: "the response failed without an error object".to_owned(),
                        raw: json!({ "status": "failed" }),
                    },
                    stream_error_from,
                ));
            }
        }
        _ => {}
    }
}
