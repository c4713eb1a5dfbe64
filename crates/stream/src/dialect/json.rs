//! Small helpers to read provider JSON without panicking, and the error / usage shapes shared
//! by the dialects (stream-formats.md §7, §8).

use serde_json::{Map, Value};

use super::decoded::{StreamError, Usage};
use super::wire::Envelope;

/// A string at `key`, `None` when absent, `null` or not a string.
pub(crate) fn str_at<'v>(value: &'v Value, key: &str) -> Option<&'v str> {
    value.get(key).and_then(Value::as_str)
}

/// A non-negative integer at a path of keys.
pub(crate) fn u64_at(value: &Value, path: &[&str]) -> Option<u64> {
    path.iter()
        .try_fold(value, |node, key| node.get(key))?
        .as_u64()
}

/// Builds a [`StreamError`] from a provider error object (`{"type"|"code", "message"}`) or a
/// bare string.
pub(crate) fn stream_error_from(raw: &Value) -> StreamError {
    let kind = str_at(raw, "type")
        .map(str::to_owned)
        .or_else(|| match raw.get("code") {
            Some(Value::String(code)) => Some(code.clone()),
            Some(Value::Number(code)) => Some(code.to_string()),
            _ => None,
        });
    let message = match raw {
        Value::String(text) => text.clone(),
        _ => str_at(raw, "message").unwrap_or_default().to_owned(),
    };
    StreamError {
        kind,
        message,
        raw: raw.clone(),
    }
}

/// The error an event reports in any of the generic shapes of stream-formats.md §7: a non-null
/// top-level `error`, a JSON `type == "error"`, or an SSE `event: error`.
///
/// Without a nested `error` the event itself is the error object, minus its envelope keys
/// (`type`, `sequence_number`), which is how the Responses `ResponseErrorEvent` reads. That
/// rare case reads the data a second time, whole.
pub(crate) fn generic_error(
    event_name: Option<&str>,
    data: &str,
    json: Option<&Envelope<'_>>,
) -> Option<StreamError> {
    if let Some(nested) = json.and_then(|json| json.error.as_ref()) {
        return Some(stream_error_from(nested));
    }
    let typed_error = json.and_then(|json| json.kind.as_deref()) == Some("error");
    if !typed_error && event_name != Some("error") {
        return None;
    }
    let whole: Option<Value> = json.and_then(|_| serde_json::from_str(data).ok());
    Some(match whole {
        Some(Value::Object(fields)) => {
            let body: Map<String, Value> = fields
                .into_iter()
                .filter(|(key, _)| !matches!(key.as_str(), "type" | "sequence_number"))
                .collect();
            stream_error_from(&Value::Object(body))
        }
        // Not a JSON object: the text is all there is to report.
        _ => StreamError {
            kind: None,
            message: data.to_owned(),
            raw: Value::String(data.to_owned()),
        },
    })
}

/// Chat Completions usage (OpenAI `CompletionUsage` and compatible servers).
pub(crate) fn chat_usage(raw: &Value) -> Usage {
    Usage {
        prompt_tokens: u64_at(raw, &["prompt_tokens"]),
        // DeepSeek reports hits natively; OpenAI-style `cached_tokens` wins when both exist.
        cached_prompt_tokens: u64_at(raw, &["prompt_tokens_details", "cached_tokens"])
            .or_else(|| u64_at(raw, &["prompt_cache_hit_tokens"])),
        cache_creation_tokens: u64_at(raw, &["prompt_tokens_details", "cache_write_tokens"]),
        output_tokens: u64_at(raw, &["completion_tokens"]),
        reasoning_tokens: u64_at(raw, &["completion_tokens_details", "reasoning_tokens"]),
        raw: raw.clone(),
    }
}

/// Anthropic usage: the cache buckets are disjoint from `input_tokens`, so all input is
/// `input + cache_read + cache_creation` (stream-formats.md §6.2).
pub(crate) fn anthropic_usage(raw: &Value) -> Usage {
    let input = u64_at(raw, &["input_tokens"]);
    let cache_read = u64_at(raw, &["cache_read_input_tokens"]);
    let cache_creation = u64_at(raw, &["cache_creation_input_tokens"]);
    let prompt_tokens = match (input, cache_read, cache_creation) {
        (None, None, None) => None,
        _ => Some(input.unwrap_or(0) + cache_read.unwrap_or(0) + cache_creation.unwrap_or(0)),
    };
    Usage {
        prompt_tokens,
        cached_prompt_tokens: cache_read,
        cache_creation_tokens: cache_creation,
        output_tokens: u64_at(raw, &["output_tokens"]),
        reasoning_tokens: None,
        raw: raw.clone(),
    }
}

/// Responses API usage (`response.completed.response.usage`).
pub(crate) fn responses_usage(raw: &Value) -> Usage {
    Usage {
        prompt_tokens: u64_at(raw, &["input_tokens"]),
        cached_prompt_tokens: u64_at(raw, &["input_tokens_details", "cached_tokens"]),
        cache_creation_tokens: None,
        output_tokens: u64_at(raw, &["output_tokens"]),
        reasoning_tokens: u64_at(raw, &["output_tokens_details", "reasoning_tokens"]),
        raw: raw.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn error_kind_prefers_type_then_code() {
        let error =
            stream_error_from(&json!({"code": 500, "message": "m", "type": "server_error"}));
        assert_eq!(error.kind.as_deref(), Some("server_error"));
        let error = stream_error_from(&json!({"code": 500, "message": "m"}));
        assert_eq!(error.kind.as_deref(), Some("500"));
        let error = stream_error_from(&json!("boom"));
        assert_eq!((error.kind, error.message.as_str()), (None, "boom"));
    }

    #[test]
    fn generic_error_shapes() {
        let data = r#"{"type":"error","code":"E","message":"m","param":null,"sequence_number":4}"#;
        let json = Envelope::parse(data);
        let error = generic_error(Some("error"), data, json.as_ref());
        assert_eq!(
            error.map(|error| error.raw),
            Some(json!({"code":"E","message":"m","param":null}))
        );
        assert_eq!(
            generic_error(Some("error"), "oops", None).map(|error| error.message),
            Some("oops".into())
        );
        assert_eq!(
            generic_error(None, "{}", Envelope::parse(r#"{"error": null}"#).as_ref()),
            None
        );
    }

    #[test]
    fn anthropic_prompt_tokens_add_the_disjoint_cache_buckets() {
        let usage = anthropic_usage(
            &json!({"input_tokens": 50, "cache_read_input_tokens": 100000, "cache_creation_input_tokens": 7, "output_tokens": 89}),
        );
        assert_eq!(usage.prompt_tokens, Some(100_057));
        assert_eq!(usage.cached_prompt_tokens, Some(100_000));
        assert_eq!(usage.cache_creation_tokens, Some(7));
    }

    #[test]
    fn deepseek_hit_tokens_fill_cached_when_openai_field_is_absent() {
        let usage = chat_usage(
            &json!({"prompt_tokens": 97, "prompt_cache_hit_tokens": 64, "prompt_cache_miss_tokens": 33}),
        );
        assert_eq!(usage.cached_prompt_tokens, Some(64));
    }
}
