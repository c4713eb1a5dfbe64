//! Reading a provider's own words: the error body (JSON in its several shapes, an HTML
//! page's title, plain text), a context overflow in any server's wording, and the quote made
//! safe to show.

use serde_json::Value;

use super::cause::Cause;
use crate::quote::quote;
pub use crate::quote::MAX_QUOTED_CHARS;
use crate::scrub::redact_key_shaped_word;

/// The error fields found in a provider's error body.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct ProviderError {
    pub(super) message: Option<String>,
    pub(super) kind: Option<String>,
    pub(super) code: Option<String>,
    pub(super) json: bool,
}

/// A JSON value as a short string (strings unquoted, numbers printed).
fn value_text(value: Option<&Value>) -> Option<String> {
    match value? {
        Value::String(text) => Some(text.clone()),
        Value::Number(number) => Some(number.to_string()),
        _ => None,
    }
}

/// Reads `{"error": {...}}`, `{"error": "..."}`, `{"message": ...}`, `{"detail": ...}`
/// (FastAPI), HTML pages (their `<title>`) and plain text.
pub(super) fn parse_error_body(body: &str, content_type: Option<&str>) -> ProviderError {
    let trimmed = body.trim();
    if let Ok(json) = serde_json::from_str::<Value>(trimmed) {
        if let Value::String(text) = &json {
            return ProviderError {
                message: Some(text.clone()).filter(|t| !t.trim().is_empty()),
                json: true,
                ..ProviderError::default()
            };
        }
        let error = json.get("error");
        let (message, kind, code) = match error {
            Some(Value::Object(_)) => (
                value_text(error.and_then(|e| e.get("message"))),
                value_text(error.and_then(|e| e.get("type"))),
                value_text(error.and_then(|e| e.get("code"))),
            ),
            Some(Value::String(text)) => (Some(text.clone()), None, None),
            _ => (None, None, None),
        };
        let detail = match json.get("detail") {
            Some(Value::String(text)) => Some(text.clone()),
            Some(Value::Array(items)) => Some(
                items
                    .iter()
                    .filter_map(|item| value_text(item.get("msg")))
                    .collect::<Vec<_>>()
                    .join("; "),
            ),
            _ => None,
        };
        return ProviderError {
            message: message
                .or_else(|| value_text(json.get("message")))
                .or(detail)
                .filter(|m| !m.trim().is_empty()),
            kind: kind.or_else(|| value_text(json.get("type"))),
            code: code.or_else(|| value_text(json.get("code"))),
            json: true,
        };
    }
    let is_html = content_type.is_some_and(|ct| ct.contains("html")) || trimmed.starts_with('<');
    let message = if is_html {
        html_title(trimmed)
    } else {
        Some(trimmed.to_owned()).filter(|t| !t.is_empty())
    };
    ProviderError {
        message,
        ..ProviderError::default()
    }
}

/// The text of an HTML page's `<title>`, if any.
fn html_title(html: &str) -> Option<String> {
    let lower = html.to_ascii_lowercase();
    let start = lower.find("<title")?;
    let open_end = start + lower[start..].find('>')? + 1;
    let close = open_end + lower[open_end..].find("</title")?;
    let title = html.get(open_end..close)?.trim();
    (!title.is_empty()).then(|| title.to_owned())
}

/// Provider text made safe to show: key-like words redacted, then [`quote`]d (control
/// characters and runs of whitespace collapsed, invisible formatting characters shown as
/// escapes, at most [`MAX_QUOTED_CHARS`] characters).
pub(super) fn sanitize_quote(text: &str) -> Option<String> {
    // Only what the quote can keep is split into words: a megabyte of message costs no more.
    let head = text
        .char_indices()
        .nth(4 * MAX_QUOTED_CHARS)
        .map_or(text, |(at, _)| &text[..at]);
    let words: Vec<String> = head
        .split(|c: char| c.is_whitespace() || c.is_control())
        .filter(|w| !w.is_empty())
        .map(redact_key_shaped_word)
        .collect();
    let mut joined = words.join(" ");
    if head.len() < text.len() {
        joined.push_str(" …");
    }
    let quoted = quote(&joined);
    (!quoted.is_empty()).then_some(quoted)
}

/// The first number after `phrase` in `text` (already lowercase), skipping spaces, `(`,
/// `:` and `"`.
fn number_after(text: &str, phrase: &str) -> Option<u32> {
    let (_, after) = text.split_once(phrase)?;
    let after = after.trim_start_matches([' ', '(', ':', '"', '=']);
    let digits: String = after.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

/// Reads a context overflow from a provider's words, with the numbers it names. Each
/// server's wording: OpenAI and vLLM ("This model's maximum context length is 8192 tokens.
/// However, you requested 9000 tokens", code `context_length_exceeded`), llama-cpp-python
/// ("Requested tokens (9000) exceed context window of 8192"), llama.cpp
/// (`exceed_context_size_error` with `n_prompt_tokens` and `n_ctx`), SGLang ("The input
/// (9000 tokens) is longer than the model's context length (8192 tokens)"), Anthropic
/// ("prompt is too long: 210000 tokens > 200000 maximum"), Ollama and others ("context
/// length", "context window" with "exceed"). `None` for any other text.
pub fn read_context_overflow(text: &str) -> Option<Cause> {
    let text = text.to_ascii_lowercase();
    let (window_tokens, requested_tokens) = if text.contains("maximum context length is") {
        (
            number_after(&text, "maximum context length is"),
            number_after(&text, "you requested"),
        )
    } else if text.contains("exceed context window of") {
        (
            number_after(&text, "exceed context window of"),
            number_after(&text, "requested tokens"),
        )
    } else if text.contains("exceed_context_size_error") {
        (
            number_after(&text, "\"n_ctx\""),
            number_after(&text, "\"n_prompt_tokens\""),
        )
    } else if text.contains("longer than the model's context length") {
        (
            number_after(&text, "longer than the model's context length"),
            number_after(&text, "the input"),
        )
    } else if text.contains("prompt is too long") {
        let requested = number_after(&text, "prompt is too long");
        let window = text
            .split_once("prompt is too long")
            .and_then(|(_, after)| number_after(after, ">"));
        (window, requested)
    } else if text.contains("context_length_exceeded")
        || ((text.contains("context length") || text.contains("context window"))
            && (text.contains("exceed")
                || text.contains("too long")
                || text.contains("longer than")))
    {
        (None, None)
    } else {
        return None;
    };
    Some(Cause::ContextOverflow {
        window_tokens,
        requested_tokens,
    })
}
