//! Anthropic Messages streaming (stream-formats.md §6).

use serde_json::Value;

use super::decoded::{DecodedEvent, Totals};
use super::json::anthropic_usage;
use super::wire::EventInput;

/// Event types that identify the Anthropic protocol during auto-detection.
pub(crate) fn is_anthropic_kind(kind: &str) -> bool {
    matches!(
        kind,
        "message_start"
            | "message_delta"
            | "message_stop"
            | "content_block_start"
            | "content_block_delta"
            | "content_block_stop"
            | "ping"
    )
}

/// Decodes one event. `ping`, `content_block_stop`, `signature_delta`, `input_json_delta`,
/// `citations_delta` and unknown types contribute nothing ("your code should handle unknown
/// event types gracefully"). Errors are found by the generic check (`event: error`,
/// `type == "error"`), preferring `data.type` and falling back to the event name.
pub(crate) fn decode(input: &EventInput<'_>, out: &mut DecodedEvent, totals: &mut Totals) {
    let Some(json) = input.json else {
        return;
    };
    match input.kind().unwrap_or_default() {
        "message_start" => {
            if let Some(usage) = &json.message.usage {
                merge_usage(usage, totals, out);
            }
        }
        "content_block_start" => {
            // The skeleton's text is "" in practice; take it if a server ever fills it.
            let block = &json.content_block;
            match block.kind.as_deref() {
                Some("thinking") => out
                    .reasoning
                    .push_str(block.thinking.as_deref().unwrap_or_default()),
                Some("text") => out
                    .answer
                    .push_str(block.text.as_deref().unwrap_or_default()),
                _ => {}
            }
        }
        "content_block_delta" => {
            let delta = &json.delta;
            match delta.kind.as_deref() {
                Some("thinking_delta") => out
                    .reasoning
                    .push_str(delta.thinking.as_deref().unwrap_or_default()),
                Some("text_delta") => out
                    .answer
                    .push_str(delta.text.as_deref().unwrap_or_default()),
                // A signature is an opaque token, not reasoning text (§6.1).
                _ => {}
            }
        }
        "message_delta" => {
            if let Some(reason) = &json.delta.stop_reason {
                out.finish_reason = Some(reason.clone().into_owned());
            }
            if let Some(usage) = &json.usage {
                merge_usage(usage, totals, out);
            }
        }
        "message_stop" => out.terminal = true,
        _ => {}
    }
}

/// `message_delta` counts are cumulative: overwrite key by key, never add (§6.2).
fn merge_usage(update: &Value, totals: &mut Totals, out: &mut DecodedEvent) {
    let Value::Object(update) = update else {
        return;
    };
    let mut merged = match totals.usage.take().map(|usage| usage.raw) {
        Some(Value::Object(previous)) => previous,
        _ => serde_json::Map::new(),
    };
    for (key, value) in update {
        merged.insert(key.clone(), value.clone());
    }
    totals.usage = Some(anthropic_usage(&Value::Object(merged)));
    out.usage_updated = true;
}
