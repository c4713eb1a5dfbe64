//! The endpoint's model list (`GET <base>/models`), read with bounds: a hostile or broken
//! server cannot make the page hold more than [`MAX_MODELS_BODY_BYTES`] of it.

use serde::Deserialize;

/// The most of a `/models` body read; a longer one is cut and not parsed.
pub const MAX_MODELS_BODY_BYTES: usize = 1024 * 1024;
/// The most model ids kept.
pub const MAX_MODELS: usize = 2_000;
/// The longest model id kept, in characters.
pub const MAX_MODEL_ID_CHARS: usize = 200;
/// How long the page waits for `/models`, ms.
pub const MODELS_TIMEOUT_MS: f64 = 10_000.0;

#[derive(Deserialize)]
struct ModelList {
    data: Vec<ModelEntry>,
}

#[derive(Deserialize)]
struct ModelEntry {
    id: Option<String>,
}

/// The model ids of an OpenAI- or Anthropic-style list (`{"data": [{"id": …}, …]}`), in
/// order, without duplicates, within the bounds above (ids holding control or invisible
/// formatting characters left out); empty for anything else.
pub fn parse_model_list(body: &str) -> Vec<String> {
    if body.len() > MAX_MODELS_BODY_BYTES {
        return Vec::new();
    }
    let Ok(list) = serde_json::from_str::<ModelList>(body) else {
        return Vec::new();
    };
    let mut ids: Vec<String> = Vec::new();
    for id in list.data.into_iter().filter_map(|entry| entry.id) {
        let id = id.trim();
        // An id holding a control or an invisible formatting character (a bidi override
        // that makes it read as something else) is not listed.
        if id.is_empty()
            || id.chars().count() > MAX_MODEL_ID_CHARS
            || id
                .chars()
                .any(|c| c.is_control() || crate::quote::is_invisible_format(c))
            || ids.iter().any(|seen| seen == id)
        {
            continue;
        }
        ids.push(id.to_owned());
        if ids.len() == MAX_MODELS {
            break;
        }
    }
    ids
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_are_read_in_order_without_duplicates() {
        let body = r#"{"object":"list","data":[{"id":"b","object":"model"},{"id":"a"},{"id":"b"},{"id":" "},{"name":"x"}]}"#;
        assert_eq!(parse_model_list(body), vec!["b", "a"]);
        assert!(parse_model_list("<html>").is_empty());
        assert!(parse_model_list(r#"{"models":[]}"#).is_empty());
    }

    #[test]
    fn bounds_hold() {
        let many: Vec<String> = (0..MAX_MODELS + 10)
            .map(|i| format!(r#"{{"id":"m{i}"}}"#))
            .collect();
        let body = format!(r#"{{"data":[{}]}}"#, many.join(","));
        assert_eq!(parse_model_list(&body).len(), MAX_MODELS);
        let long = format!(
            r#"{{"data":[{{"id":"{}"}},{{"id":"ok"}}]}}"#,
            "x".repeat(MAX_MODEL_ID_CHARS + 1)
        );
        assert_eq!(parse_model_list(&long), vec!["ok"]);
        let spoof = r#"{"data":[{"id":"gpt\u202e1-oiduA"},{"id":"a\u200bb"},{"id":"x\ny"},{"id":"שלום-7b"}]}"#;
        assert_eq!(parse_model_list(spoof), vec!["שלום-7b"]);
        let huge = " ".repeat(MAX_MODELS_BODY_BYTES + 1);
        assert!(parse_model_list(&huge).is_empty());
    }
}
