//! Request bodies per protocol, from a protocol-neutral [`PromptSpec`].

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use crate::lang::Lang;
use crate::protocol::Protocol;
use crate::texts as t;

/// Reasoning effort (OpenAI `reasoning_effort` / Responses `reasoning.effort`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReasoningEffort {
    /// `minimal`.
    Minimal,
    /// `low`.
    Low,
    /// `medium`.
    Medium,
    /// `high`.
    High,
}

impl ReasoningEffort {
    /// The wire value.
    pub fn as_str(self) -> &'static str {
        match self {
            ReasoningEffort::Minimal => "minimal",
            ReasoningEffort::Low => "low",
            ReasoningEffort::Medium => "medium",
            ReasoningEffort::High => "high",
        }
    }
}

/// Responses API reasoning summary (`reasoning.summary`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReasoningSummary {
    /// `auto`.
    Auto,
    /// `concise`.
    Concise,
    /// `detailed`.
    Detailed,
}

impl ReasoningSummary {
    /// The wire value.
    pub fn as_str(self) -> &'static str {
        match self {
            ReasoningSummary::Auto => "auto",
            ReasoningSummary::Concise => "concise",
            ReasoningSummary::Detailed => "detailed",
        }
    }
}

/// Which field carries the output limit in OpenAI Chat Completions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MaxTokensField {
    /// `max_tokens`: understood by every compatible server; refused by OpenAI reasoning models.
    #[default]
    MaxTokens,
    /// `max_completion_tokens`: OpenAI's current name, required by o-series / GPT-5 models.
    MaxCompletionTokens,
}

/// What to ask, independent of protocol.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct PromptSpec {
    /// Model id.
    pub model: String,
    /// Optional system prompt.
    pub system: Option<String>,
    /// The user prompt.
    pub prompt: String,
    /// Output limit in tokens; Anthropic requires one (see [`anthropic_body`]).
    pub max_output_tokens: Option<u32>,
    /// OpenAI Chat: which field carries the limit.
    pub max_tokens_field: MaxTokensField,
    /// OpenAI Chat: send `stream_options: {include_usage: true}` (default true; turned off
    /// for the retry described in [`should_retry_without_stream_options`]).
    pub include_stream_options: bool,
    /// OpenAI Chat `reasoning_effort`, Responses `reasoning.effort`.
    pub reasoning_effort: Option<ReasoningEffort>,
    /// Responses `reasoning.summary` (needed to see reasoning text at all).
    pub reasoning_summary: Option<ReasoningSummary>,
    /// Anthropic extended thinking budget in tokens (`thinking.budget_tokens`).
    pub thinking_budget_tokens: Option<u32>,
    /// A cache-busting nonce placed at position 0 of the prompt (see [`with_nonce`]).
    pub cache_nonce: Option<String>,
}

impl PromptSpec {
    /// A spec with the usual defaults: stream options on, no reasoning options.
    pub fn new(model: &str, prompt: &str) -> PromptSpec {
        PromptSpec {
            model: model.to_owned(),
            prompt: prompt.to_owned(),
            include_stream_options: true,
            ..PromptSpec::default()
        }
    }

    /// Asks for reasoning the way `protocol` does: `reasoning_effort: medium` (Chat), a
    /// thinking budget of [`ANTHROPIC_MIN_THINKING_BUDGET_TOKENS`] (Anthropic), effort and
    /// `reasoning.summary: auto` (Responses, which shows no reasoning text without a summary).
    pub fn with_reasoning(mut self, protocol: Protocol) -> PromptSpec {
        match protocol {
            Protocol::OpenAiChat => self.reasoning_effort = Some(ReasoningEffort::Medium),
            Protocol::AnthropicMessages => {
                self.thinking_budget_tokens = Some(ANTHROPIC_MIN_THINKING_BUDGET_TOKENS)
            }
            Protocol::OpenAiResponses => {
                self.reasoning_effort = Some(ReasoningEffort::Medium);
                self.reasoning_summary = Some(ReasoningSummary::Auto);
            }
        }
        self
    }
}

/// The request body cannot be built.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum BodyError {
    /// No model id.
    MissingModel,
    /// Anthropic thinking budget below the minimum.
    ThinkingBudgetTooSmall {
        /// The budget asked for.
        budget_tokens: u32,
    },
    /// Anthropic thinking budget not below max_tokens.
    ThinkingBudgetNotBelowMaxTokens {
        /// The budget asked for.
        budget_tokens: u32,
        /// The max_tokens asked for.
        max_tokens: u32,
    },
}

/// Anthropic's smallest accepted `thinking.budget_tokens`.
pub const ANTHROPIC_MIN_THINKING_BUDGET_TOKENS: u32 = 1024;

/// `max_tokens` sent to Anthropic when none is given (it is required): 1024, or the
/// thinking budget + 1024 when thinking is on, so the answer has room after the thinking.
pub const ANTHROPIC_DEFAULT_MAX_TOKENS: u32 = 1024;

/// Puts the nonce at position 0 of `text`: `"<nonce>\n\n<text>"`.
///
/// Prefix caches match from the first token, so a nonce at position 0 guarantees a cold
/// prefill; anywhere later the part before it could still hit the cache.
pub fn with_nonce(nonce: Option<&str>, text: &str) -> String {
    match nonce {
        Some(nonce) if !nonce.is_empty() => format!("{nonce}\n\n{text}"),
        _ => text.to_owned(),
    }
}

/// The system and user texts with the nonce at the first position of the whole prompt:
/// in the system prompt when there is one (it is rendered first), else in the user prompt.
fn texts_with_nonce(spec: &PromptSpec) -> (Option<String>, String) {
    let nonce = spec.cache_nonce.as_deref();
    match &spec.system {
        Some(system) => (Some(with_nonce(nonce, system)), spec.prompt.clone()),
        None => (None, with_nonce(nonce, &spec.prompt)),
    }
}

fn check_model(spec: &PromptSpec) -> Result<(), BodyError> {
    if spec.model.trim().is_empty() {
        return Err(BodyError::MissingModel);
    }
    Ok(())
}

/// OpenAI Chat Completions body: `model`, `messages`, `stream: true`,
/// `stream_options: {include_usage: true}` (unless turned off), the limit under the chosen
/// field, `reasoning_effort` when set.
pub fn openai_chat_body(spec: &PromptSpec) -> Result<Value, BodyError> {
    check_model(spec)?;
    let (system, prompt) = texts_with_nonce(spec);
    let mut messages = Vec::new();
    if let Some(system) = system {
        messages.push(json!({"role": "system", "content": system}));
    }
    messages.push(json!({"role": "user", "content": prompt}));
    let mut body = Map::new();
    body.insert("model".into(), json!(spec.model.trim()));
    body.insert("messages".into(), Value::Array(messages));
    body.insert("stream".into(), json!(true));
    if spec.include_stream_options {
        body.insert("stream_options".into(), json!({"include_usage": true}));
    }
    if let Some(limit) = spec.max_output_tokens {
        let field = match spec.max_tokens_field {
            MaxTokensField::MaxTokens => "max_tokens",
            MaxTokensField::MaxCompletionTokens => "max_completion_tokens",
        };
        body.insert(field.into(), json!(limit));
    }
    if let Some(effort) = spec.reasoning_effort {
        body.insert("reasoning_effort".into(), json!(effort.as_str()));
    }
    Ok(Value::Object(body))
}

/// Anthropic Messages body: `model`, `max_tokens` (required), `messages`, `system` when set,
/// `stream: true`, and `thinking: {type: "enabled", budget_tokens}` when a budget is set.
///
/// Constraints checked here, as Anthropic would refuse them with a 400: the budget is at least
/// 1024 tokens and below `max_tokens`. (Thinking also forbids `temperature` other than 1 and
/// `top_k`; we send neither.)
pub fn anthropic_body(spec: &PromptSpec) -> Result<Value, BodyError> {
    check_model(spec)?;
    let (system, prompt) = texts_with_nonce(spec);
    let max_tokens = spec
        .max_output_tokens
        .unwrap_or(match spec.thinking_budget_tokens {
            Some(budget) => budget.saturating_add(ANTHROPIC_DEFAULT_MAX_TOKENS),
            None => ANTHROPIC_DEFAULT_MAX_TOKENS,
        });
    let mut body = Map::new();
    body.insert("model".into(), json!(spec.model.trim()));
    body.insert("max_tokens".into(), json!(max_tokens));
    if let Some(system) = system {
        body.insert("system".into(), json!(system));
    }
    body.insert(
        "messages".into(),
        json!([{"role": "user", "content": prompt}]),
    );
    body.insert("stream".into(), json!(true));
    if let Some(budget_tokens) = spec.thinking_budget_tokens {
        if budget_tokens < ANTHROPIC_MIN_THINKING_BUDGET_TOKENS {
            return Err(BodyError::ThinkingBudgetTooSmall { budget_tokens });
        }
        if budget_tokens >= max_tokens {
            return Err(BodyError::ThinkingBudgetNotBelowMaxTokens {
                budget_tokens,
                max_tokens,
            });
        }
        body.insert(
            "thinking".into(),
            json!({"type": "enabled", "budget_tokens": budget_tokens}),
        );
    }
    Ok(Value::Object(body))
}

/// OpenAI Responses body: `model`, `input` (the user prompt), `instructions` (the system
/// prompt) when set, `stream: true`, `max_output_tokens`, and `reasoning: {effort, summary}`
/// with whichever is set.
pub fn responses_body(spec: &PromptSpec) -> Result<Value, BodyError> {
    check_model(spec)?;
    let (system, prompt) = texts_with_nonce(spec);
    let mut body = Map::new();
    body.insert("model".into(), json!(spec.model.trim()));
    if let Some(system) = system {
        body.insert("instructions".into(), json!(system));
    }
    body.insert("input".into(), json!(prompt));
    body.insert("stream".into(), json!(true));
    if let Some(limit) = spec.max_output_tokens {
        body.insert("max_output_tokens".into(), json!(limit));
    }
    let mut reasoning = Map::new();
    if let Some(effort) = spec.reasoning_effort {
        reasoning.insert("effort".into(), json!(effort.as_str()));
    }
    if let Some(summary) = spec.reasoning_summary {
        reasoning.insert("summary".into(), json!(summary.as_str()));
    }
    if !reasoning.is_empty() {
        body.insert("reasoning".into(), Value::Object(reasoning));
    }
    Ok(Value::Object(body))
}

/// The body for a protocol.
pub fn build_body(protocol: Protocol, spec: &PromptSpec) -> Result<Value, BodyError> {
    match protocol {
        Protocol::OpenAiChat => openai_chat_body(spec),
        Protocol::AnthropicMessages => anthropic_body(spec),
        Protocol::OpenAiResponses => responses_body(spec),
    }
}

impl BodyError {
    /// The error for the user, in a language.
    pub fn message(&self, lang: Lang) -> String {
        match self {
            BodyError::MissingModel => t::BODY_ERROR_MISSING_MODEL.get(lang).to_owned(),
            BodyError::ThinkingBudgetTooSmall { budget_tokens } => {
                t::BODY_ERROR_THINKING_BUDGET_TOO_SMALL
                    .fill(lang, &[("budget_tokens", budget_tokens)])
            }
            BodyError::ThinkingBudgetNotBelowMaxTokens {
                budget_tokens,
                max_tokens,
            } => t::BODY_ERROR_THINKING_BUDGET_NOT_BELOW_MAX_TOKENS.fill(
                lang,
                &[("budget_tokens", budget_tokens), ("max_tokens", max_tokens)],
            ),
        }
    }
}

impl std::fmt::Display for BodyError {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str(&self.message(Lang::En))
    }
}

impl std::error::Error for BodyError {}
