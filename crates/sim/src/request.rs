//! What the simulator needs from a request body, for each dialect.

use serde_json::Value;

/// The API dialect of a route.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    /// OpenAI Chat Completions (`/v1/chat/completions`).
    Chat,
    /// Anthropic Messages (`/v1/messages`).
    Messages,
    /// OpenAI Responses (`/v1/responses`).
    Responses,
}

/// The parts of a request body the simulation uses.
#[derive(Clone, Debug, PartialEq)]
pub struct SimRequest {
    /// The model name exactly as sent (echoed in responses).
    pub model: String,
    /// `stream: true`.
    pub stream: bool,
    /// Chat: `stream_options.include_usage`.
    pub include_usage: bool,
    /// Every prompt text in order (system / instructions first).
    pub texts: Vec<String>,
    /// The output cap (`max_tokens`, `max_completion_tokens`, `max_output_tokens`).
    pub max_tokens: Option<u32>,
}

/// Why a body was refused (answered with 400 in the dialect's shape).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RequestError {
    /// Not JSON, or not an object.
    #[error("We could not parse the JSON body of your request: {0}")]
    InvalidJson(String),
    /// No `model` string.
    #[error("you must provide a model parameter")]
    MissingModel,
}

/// Collects text from a content value: a string, or an array of parts with `text`
/// (chat `{"type":"text"}`, Anthropic text blocks, Responses `input_text`).
pub fn collect_content(content: &Value, texts: &mut Vec<String>) {
    match content {
        Value::String(text) => texts.push(text.clone()),
        Value::Array(parts) => {
            for part in parts {
                match part {
                    Value::String(text) => texts.push(text.clone()),
                    Value::Object(object) => {
                        if let Some(Value::String(text)) = object.get("text") {
                            texts.push(text.clone());
                        } else if let Some(inner) = object.get("content") {
                            collect_content(inner, texts);
                        }
                    }
                    _ => {}
                }
            }
        }
        _ => {}
    }
}

fn u32_field(body: &Value, keys: &[&str]) -> Option<u32> {
    keys.iter()
        .find_map(|key| body.get(*key).and_then(Value::as_u64))
        .map(|v| u32::try_from(v).unwrap_or(u32::MAX))
}

/// Parses a body for `dialect`.
pub fn parse_request(dialect: Dialect, bytes: &[u8]) -> Result<SimRequest, RequestError> {
    let body: Value =
        serde_json::from_slice(bytes).map_err(|e| RequestError::InvalidJson(e.to_string()))?;
    if !body.is_object() {
        return Err(RequestError::InvalidJson(
            "the body is not a JSON object".into(),
        ));
    }
    let model = body
        .get("model")
        .and_then(Value::as_str)
        .ok_or(RequestError::MissingModel)?
        .to_string();
    let stream = body.get("stream").and_then(Value::as_bool).unwrap_or(false);
    let include_usage = body
        .pointer("/stream_options/include_usage")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let mut texts = Vec::new();
    let max_tokens = match dialect {
        Dialect::Chat => {
            if let Some(Value::Array(messages)) = body.get("messages") {
                for message in messages {
                    if let Some(content) = message.get("content") {
                        collect_content(content, &mut texts);
                    }
                }
            }
            u32_field(&body, &["max_completion_tokens", "max_tokens"])
        }
        Dialect::Messages => {
            if let Some(system) = body.get("system") {
                collect_content(system, &mut texts);
            }
            if let Some(Value::Array(messages)) = body.get("messages") {
                for message in messages {
                    if let Some(content) = message.get("content") {
                        collect_content(content, &mut texts);
                    }
                }
            }
            u32_field(&body, &["max_tokens"])
        }
        Dialect::Responses => {
            if let Some(Value::String(instructions)) = body.get("instructions") {
                texts.push(instructions.clone());
            }
            match body.get("input") {
                Some(Value::String(input)) => texts.push(input.clone()),
                Some(Value::Array(items)) => {
                    for item in items {
                        if let Some(content) = item.get("content") {
                            collect_content(content, &mut texts);
                        } else if let Some(Value::String(text)) = item.get("text") {
                            texts.push(text.clone());
                        }
                    }
                }
                _ => {}
            }
            u32_field(&body, &["max_output_tokens"])
        }
    };
    Ok(SimRequest {
        model,
        stream,
        include_usage,
        texts,
        max_tokens,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chat_body() {
        let body = br#"{"model":"sim-fast","stream":true,"stream_options":{"include_usage":true},
            "max_tokens":5,"messages":[{"role":"system","content":"Be brief."},
            {"role":"user","content":[{"type":"text","text":"Hi"}]}]}"#;
        let request = parse_request(Dialect::Chat, body).unwrap();
        assert_eq!(request.texts, vec!["Be brief.", "Hi"]);
        assert!(request.stream && request.include_usage);
        assert_eq!(request.max_tokens, Some(5));
    }

    #[test]
    fn messages_and_responses_bodies() {
        let body = br#"{"model":"m","system":[{"type":"text","text":"S"}],"max_tokens":9,
            "messages":[{"role":"user","content":"U"}]}"#;
        let request = parse_request(Dialect::Messages, body).unwrap();
        assert_eq!(request.texts, vec!["S", "U"]);
        assert_eq!(request.max_tokens, Some(9));
        let body = br#"{"model":"m","instructions":"I","input":[{"role":"user",
            "content":[{"type":"input_text","text":"U"}]}],"max_output_tokens":3}"#;
        let request = parse_request(Dialect::Responses, body).unwrap();
        assert_eq!(request.texts, vec!["I", "U"]);
        assert_eq!(request.max_tokens, Some(3));
    }

    #[test]
    fn refusals() {
        assert!(matches!(
            parse_request(Dialect::Chat, b"{"),
            Err(RequestError::InvalidJson(_))
        ));
        assert_eq!(
            parse_request(Dialect::Chat, b"{}"),
            Err(RequestError::MissingModel)
        );
    }
}
