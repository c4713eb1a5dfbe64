//! Routes beyond the completion APIs, as real servers expose them, so the page can learn
//! a server's limits and token counts: llama.cpp's `GET /props`, the `POST /tokenize` of
//! llama.cpp and of vLLM, the context window in `/v1/models` (vLLM `max_model_len`,
//! llama.cpp `meta.n_ctx_train`), and ttft-sim's own identity at `GET /__sim/info`.
//! Every count uses the sim's token rule, so it equals the completions' `prompt_tokens`.

use serde_json::{json, Value};

use crate::cache::token_hash;
use crate::profile::{Profile, ProfileError, Profiles};
use crate::request::collect_content;
use crate::tokens;

/// Vocabulary size reported in `/v1/models` `meta.n_vocab`; token ids are below it.
pub const N_VOCAB: u64 = 65_536;

/// The identity route (keyless, cheap): lets a page tell that its origin is ttft-sim.
pub const INFO_PATH: &str = "/__sim/info";

/// `GET /__sim/info`.
pub fn info() -> Value {
    json!({"name": "ttft-sim", "version": env!("CARGO_PKG_VERSION"), "api_base": "/v1"})
}

/// The id of a token piece (stable: a hash of its text, below [`N_VOCAB`]).
fn token_id(piece: &str) -> u64 {
    token_hash(piece) % N_VOCAB
}

/// One `/v1/models` entry. With `context_info`, it carries the window where vLLM
/// (`ModelCard.max_model_len`, vllm/entrypoints/openai/protocol.py) and llama.cpp
/// (`meta` = `model_meta()`: vocab_type, n_vocab, n_ctx_train, ..., tools/server) put it.
pub fn model_entry(id: &str, profile: &Profile, context_info: bool) -> Value {
    let mut entry =
        json!({"id": id, "object": "model", "created": 1_767_225_600, "owned_by": "ttft-sim"});
    if context_info {
        entry["root"] = json!(id);
        entry["parent"] = Value::Null;
        entry["max_model_len"] = json!(profile.context_tokens);
        entry["meta"] = json!({"n_vocab": N_VOCAB, "n_ctx_train": profile.context_tokens});
    }
    entry
}

/// Why an extras request was refused.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ExtrasError {
    /// The body is not a JSON object.
    #[error("We could not parse the JSON body of your request: {0}")]
    InvalidJson(String),
    /// Neither `content` (llama.cpp) nor `prompt`/`messages` (vLLM).
    #[error("/tokenize needs `content` (llama.cpp) or `prompt` or `messages` (vLLM)")]
    NothingToTokenize,
    /// The model (query `model=` or body `model`) is not a profile or its suffix is bad.
    #[error("{0}")]
    Model(#[from] ProfileError),
}

/// The profile a request names (`None`: the first profile by name).
fn profile_for(profiles: &Profiles, model: Option<&str>) -> Result<Profile, ExtrasError> {
    match model {
        Some(name) => Ok(profiles.resolve(name)?.profile),
        None => Ok(profiles
            .by_name
            .values()
            .next()
            .cloned()
            .unwrap_or_default()),
    }
}

/// `GET /props[?model=NAME]`, llama.cpp's shape (tools/server `handle_props`):
/// `default_generation_settings.n_ctx` is the slot's context window.
pub fn props(profiles: &Profiles, model: Option<&str>, slots: usize) -> Result<Value, ExtrasError> {
    let (name, profile) = match model {
        Some(name) => (name.to_string(), profile_for(profiles, Some(name))?),
        None => {
            let first = profiles.by_name.iter().next();
            (
                first.map_or_else(String::new, |(name, _)| name.clone()),
                first.map(|(_, p)| p.clone()).unwrap_or_default(),
            )
        }
    };
    Ok(json!({
        "default_generation_settings": {
            "id": 0,
            "n_ctx": profile.context_tokens,
            "model": name,
            "params": {"n_predict": -1},
        },
        "total_slots": slots,
        "model_alias": name,
        "model_path": format!("ttft-sim/{name}"),
        "build_info": format!("ttft-sim {}", env!("CARGO_PKG_VERSION")),
    }))
}

/// `POST /tokenize`. llama.cpp: `{"content": TEXT[, "with_pieces": true]}` →
/// `{"tokens": [ids]}` (or `[{"id", "piece"}]`); vLLM: `{"model", "prompt"}` or
/// `{"model", "messages"}` → `{"count", "max_model_len", "tokens", "token_strs": null}`.
/// Messages count as the chat route counts them (every text part; roles are free).
pub fn tokenize(profiles: &Profiles, body: &[u8]) -> Result<Value, ExtrasError> {
    let body: Value =
        serde_json::from_slice(body).map_err(|e| ExtrasError::InvalidJson(e.to_string()))?;
    if !body.is_object() {
        return Err(ExtrasError::InvalidJson(
            "the body is not a JSON object".into(),
        ));
    }
    if let Some(content) = body.get("content") {
        let mut texts = Vec::new();
        collect_content(content, &mut texts);
        let pieces: Vec<&str> = texts.iter().flat_map(|t| tokens::pieces(t)).collect();
        let with_pieces = body.get("with_pieces").and_then(Value::as_bool) == Some(true);
        let ids: Vec<Value> = pieces
            .iter()
            .map(|piece| {
                if with_pieces {
                    json!({"id": token_id(piece), "piece": piece})
                } else {
                    json!(token_id(piece))
                }
            })
            .collect();
        return Ok(json!({ "tokens": ids }));
    }
    let mut texts = Vec::new();
    match (body.get("prompt"), body.get("messages")) {
        (Some(prompt), _) => collect_content(prompt, &mut texts),
        (None, Some(Value::Array(messages))) => {
            for message in messages {
                if let Some(content) = message.get("content") {
                    collect_content(content, &mut texts);
                }
            }
        }
        _ => return Err(ExtrasError::NothingToTokenize),
    }
    let model = body.get("model").and_then(Value::as_str);
    let profile = profile_for(profiles, model)?;
    let ids: Vec<u64> = texts
        .iter()
        .flat_map(|t| tokens::pieces(t))
        .map(token_id)
        .collect();
    Ok(json!({
        "count": ids.len(),
        "max_model_len": profile.context_tokens,
        "tokens": ids,
        "token_strs": null,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokenize_both_shapes_count_like_the_chat_route() {
        let profiles = Profiles::builtin();
        let llama = tokenize(&profiles, r#"{"content": "Hello, world! 你好"}"#.as_bytes()).unwrap();
        assert_eq!(llama["tokens"].as_array().map(Vec::len), Some(6));
        let pieces = tokenize(&profiles, br#"{"content": "abcdef", "with_pieces": true}"#).unwrap();
        assert_eq!(pieces["tokens"][0]["piece"], "abcd");
        assert_eq!(pieces["tokens"][1]["piece"], "ef");
        assert_eq!(pieces["tokens"][0]["id"], token_id("abcd"));
        let vllm = tokenize(
            &profiles,
            br#"{"model": "sim-fast@context_tokens=8192", "messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": [{"type": "text", "text": "Hello, world!"}]}]}"#,
        )
        .unwrap();
        assert_eq!(vllm["count"], 3 + 4);
        assert_eq!(vllm["max_model_len"], 8192);
        assert_eq!(vllm["tokens"].as_array().map(Vec::len), Some(7));
        let prompt = tokenize(&profiles, br#"{"model": "sim-fast", "prompt": "abcde"}"#).unwrap();
        assert_eq!(prompt["count"], 2);
        assert_eq!(
            tokenize(&profiles, br#"{"model": "sim-fast"}"#),
            Err(ExtrasError::NothingToTokenize)
        );
        assert!(matches!(
            tokenize(&profiles, br#"{"model": "nope", "prompt": "a"}"#),
            Err(ExtrasError::Model(ProfileError::UnknownModel(_)))
        ));
    }

    #[test]
    fn props_and_models_show_the_window() {
        let profiles = Profiles::builtin();
        let props = props(&profiles, Some("sim-fast@context_tokens=4096"), 4).unwrap();
        assert_eq!(props["default_generation_settings"]["n_ctx"], 4096);
        assert_eq!(props["total_slots"], 4);
        let entry = model_entry("m", &Profile::default(), true);
        assert_eq!(entry["max_model_len"], 32_768);
        assert_eq!(entry["meta"]["n_ctx_train"], 32_768);
        assert!(model_entry("m", &Profile::default(), false)
            .get("max_model_len")
            .is_none());
    }
}
