//! Request building: base URL normalization, bodies and headers per protocol.
//!
//! # Base URL rule
//!
//! What the user types is turned into the endpoint actually called by [`normalize_base_url`]:
//!
//! 1. Surrounding whitespace is removed (warned); whitespace inside is an error.
//! 2. A missing scheme gets `http://` for loopback hosts (`localhost`, `127.x`, `[::1]`,
//!    `0.0.0.0`: local servers rarely have TLS) and `https://` otherwise (warned).
//! 3. A pasted full route (`…/chat/completions`, `/messages`, `/responses`, `/completions`)
//!    or a models URL (`…/models`) is cut back to its base (warned; a route of another
//!    protocol is warned as a protocol mismatch).
//! 4. A doubled version (`/v1/v1`) is collapsed (warned).
//! 5. Then:
//!    * the path contains a version segment (`v1`, `v2`, `v1beta`, `v1alpha2`, …) anywhere:
//!      the route is appended to it as is. This is exactly what the OpenAI SDKs do with
//!      `base_url` (`https://api.openai.com/v1` + `/chat/completions`) and it covers
//!      `https://openrouter.ai/api/v1`, `https://api.groq.com/openai/v1` and Gemini's
//!      `https://generativelanguage.googleapis.com/v1beta/openai`;
//!    * the path is empty (just a host): `/v1/<route>` is appended. This is what the
//!      Anthropic SDKs do with their base URL (`https://api.anthropic.com` + `/v1/messages`)
//!      and what chat GUIs (NextChat, Cherry Studio, Chatbox) do with a bare host; every
//!      OpenAI-compatible server we target (vLLM, SGLang, llama.cpp, Ollama, LiteLLM,
//!      DeepSeek) serves `/v1/chat/completions`;
//!    * any other path (`https://host/api`, `https://host/openai/deployments/x`) is taken as
//!      the user's deliberate base, like the SDKs do, and only the route is appended; a
//!      warning suggests `/v1` in case the server answers 404.
//!
//!    Hosts whose API prefix is not the generic `/v1` are fixed and warned: OpenRouter
//!    (`/` or `/api` → `/api/v1`), Groq (`/openai` → `/openai/v1`), Gemini's OpenAI
//!    endpoint (`/` → `/v1beta/openai`).
//! 6. A query string is kept (Azure needs `?api-version=`) and placed after the route, with a
//!    warning since a pasted browser URL often carries one by mistake; a fragment is dropped.
//!
//! The models URL is `<version base>/models` (`https://api.openai.com/v1/models`,
//! `https://api.anthropic.com/v1/models`): every protocol here lists models there.
//!
//! # The key
//!
//! [`ApiKey`] holds the key; it has no `Serialize`, its `Debug` is masked, and
//! [`RequestDescription`] (what the UI shows and exports) carries only a masked form.

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use crate::diagnosis::Lang;

/// The wire protocol of the endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Protocol {
    /// OpenAI Chat Completions (`/chat/completions`) and compatible servers.
    OpenAiChat,
    /// Anthropic Messages (`/messages`).
    AnthropicMessages,
    /// OpenAI Responses (`/responses`).
    OpenAiResponses,
}

impl Protocol {
    /// The route appended to the version base, without leading slash.
    pub fn route(self) -> &'static str {
        match self {
            Protocol::OpenAiChat => "chat/completions",
            Protocol::AnthropicMessages => "messages",
            Protocol::OpenAiResponses => "responses",
        }
    }

    /// The protocol's name as shown to users.
    pub fn label(self) -> &'static str {
        match self {
            Protocol::OpenAiChat => "OpenAI Chat Completions",
            Protocol::AnthropicMessages => "Anthropic Messages",
            Protocol::OpenAiResponses => "OpenAI Responses",
        }
    }

    /// The authentication header this protocol expects.
    pub fn default_auth_style(self) -> AuthStyle {
        match self {
            Protocol::OpenAiChat | Protocol::OpenAiResponses => AuthStyle::Bearer,
            Protocol::AnthropicMessages => AuthStyle::XApiKey,
        }
    }
}

/// How the key is sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AuthStyle {
    /// `Authorization: Bearer <key>` (OpenAI and compatible servers).
    Bearer,
    /// `x-api-key: <key>` (Anthropic).
    XApiKey,
}

/// The anthropic-version header value sent on every Anthropic request.
pub const ANTHROPIC_VERSION: &str = "2023-06-01";

/// Something probably wrong with the typed base URL; the endpoint was still derived.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum UrlWarning {
    /// Spaces or line breaks around the URL were removed.
    SurroundingWhitespace,
    /// No scheme was typed; this one was assumed.
    MissingScheme {
        /// `http` or `https`.
        assumed: String,
    },
    /// The full route was pasted; it was removed and is added back.
    FullPathPasted {
        /// The route that was removed (`chat/completions`).
        removed: String,
    },
    /// The pasted route belongs to another protocol than the one selected.
    ProtocolPathMismatch {
        /// The route that was pasted.
        pasted: String,
        /// The protocol whose route was used instead.
        selected: Protocol,
    },
    /// A models-list URL was pasted; its base was used.
    ModelsUrlPasted,
    /// `/v1/v1` was collapsed to `/v1`.
    DoubledVersion,
    /// A version prefix was added: `/v1` to a bare host, or the prefix a known host requires.
    MissingVersionAdded {
        /// The prefix inserted, e.g. `/v1` or `/api/v1`.
        added: String,
    },
    /// The path has no version segment; it was used as typed. Try adding `/v1` if 404.
    NoVersionSegment,
    /// Plain http to a non-local host: the key travels unencrypted, and an https page
    /// cannot call it (mixed content).
    InsecureHttp,
    /// https to a local server, which usually serves plain http.
    HttpsToLocalServer,
    /// A query string was kept and placed after the route.
    QueryStringKept {
        /// The query without `?`.
        query: String,
    },
    /// A `#fragment` was dropped.
    FragmentDropped,
}

/// The typed base URL cannot be used at all.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum UrlError {
    /// Nothing was typed.
    #[error("Enter the API base URL, for example https://api.openai.com/v1.")]
    Empty,
    /// Whitespace inside the URL.
    #[error("The URL contains a space or line break; remove it.")]
    InnerWhitespace,
    /// A scheme other than http or https.
    #[error("Only http:// and https:// URLs can be called (got {scheme}://).")]
    UnsupportedScheme {
        /// The scheme that was typed.
        scheme: String,
    },
    /// No host after the scheme.
    #[error("The URL has no host name.")]
    MissingHost,
}

/// The endpoint derived from what the user typed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Endpoint {
    /// The protocol the endpoint was derived for.
    pub protocol: Protocol,
    /// The URL the request is sent to (`https://api.openai.com/v1/chat/completions`).
    pub endpoint_url: String,
    /// The version base (`https://api.openai.com/v1`), without trailing slash.
    pub base_url: String,
    /// The models-list URL (`https://api.openai.com/v1/models`).
    pub models_url: String,
    /// Whether the host is a loopback address.
    pub local: bool,
    /// What looked wrong in the input, in the order found.
    pub warnings: Vec<UrlWarning>,
}

/// Routes recognised at the end of a pasted URL, with the protocol they belong to.
const KNOWN_ROUTES: [(&str, Option<Protocol>); 4] = [
    ("chat/completions", Some(Protocol::OpenAiChat)),
    ("messages", Some(Protocol::AnthropicMessages)),
    ("responses", Some(Protocol::OpenAiResponses)),
    ("completions", None),
];

/// Hosts whose API lives under a prefix other than the generic `/v1`, for a path that
/// lacks a version: `(host, path typed, correct path)`.
const KNOWN_PREFIXES: [(&str, &str, &str); 4] = [
    ("openrouter.ai", "", "/api/v1"),
    ("openrouter.ai", "/api", "/api/v1"),
    ("api.groq.com", "/openai", "/openai/v1"),
    ("generativelanguage.googleapis.com", "", "/v1beta/openai"),
];

/// Whether a host (without port) is a loopback address.
pub(crate) fn is_loopback_host(host: &str) -> bool {
    host == "localhost"
        || host.ends_with(".localhost")
        || host.starts_with("127.")
        || host == "[::1]"
        || host == "0.0.0.0"
}

/// Host without port (keeps IPv6 brackets).
pub(crate) fn host_without_port(authority: &str) -> &str {
    let authority = authority.rsplit('@').next().unwrap_or(authority);
    if authority.starts_with('[') {
        return match authority.find(']') {
            Some(end) => &authority[..=end],
            None => authority,
        };
    }
    authority.split(':').next().unwrap_or(authority)
}

/// Whether a path segment is an API version (`v1`, `v2`, `v1beta`, `v1alpha2`).
fn is_version_segment(segment: &str) -> bool {
    let Some(rest) = segment.strip_prefix('v') else {
        return false;
    };
    let digits = rest.chars().take_while(char::is_ascii_digit).count();
    if digits == 0 {
        return false;
    }
    let suffix = &rest[digits..];
    let suffix = suffix
        .strip_prefix("alpha")
        .or_else(|| suffix.strip_prefix("beta"))
        .unwrap_or(suffix);
    suffix.chars().all(|c| c.is_ascii_digit())
}

/// Splits the path of a URL into non-empty segments.
fn segments(path: &str) -> Vec<&str> {
    path.split('/').filter(|s| !s.is_empty()).collect()
}

/// Removes a known route from the end of the path segments, warning about it.
fn strip_route(segs: &mut Vec<&str>, protocol: Protocol, warnings: &mut Vec<UrlWarning>) {
    if segs.last() == Some(&"models") {
        segs.pop();
        warnings.push(UrlWarning::ModelsUrlPasted);
        return;
    }
    for (route, route_protocol) in KNOWN_ROUTES {
        let route_segs: Vec<&str> = route.split('/').collect();
        if segs.len() >= route_segs.len() && segs.ends_with(&route_segs) {
            segs.truncate(segs.len() - route_segs.len());
            if route_protocol == Some(protocol) {
                warnings.push(UrlWarning::FullPathPasted {
                    removed: route.to_owned(),
                });
            } else {
                warnings.push(UrlWarning::ProtocolPathMismatch {
                    pasted: route.to_owned(),
                    selected: protocol,
                });
            }
            return;
        }
    }
}

/// Collapses consecutive identical version segments (`/v1/v1` → `/v1`).
fn collapse_doubled_version(segs: &mut Vec<&str>, warnings: &mut Vec<UrlWarning>) {
    let before = segs.len();
    segs.dedup_by(|later, earlier| later == earlier && is_version_segment(later));
    if segs.len() != before {
        warnings.push(UrlWarning::DoubledVersion);
    }
}

/// Turns what the user typed into the endpoint actually called (see the module docs).
pub fn normalize_base_url(input: &str, protocol: Protocol) -> Result<Endpoint, UrlError> {
    let mut warnings = Vec::new();
    let trimmed = input.trim();
    if trimmed.is_empty() {
        return Err(UrlError::Empty);
    }
    if trimmed.len() != input.len() {
        warnings.push(UrlWarning::SurroundingWhitespace);
    }
    if trimmed.chars().any(char::is_whitespace) {
        return Err(UrlError::InnerWhitespace);
    }
    let (without_fragment, fragment) = match trimmed.split_once('#') {
        Some((before, _)) => (before, true),
        None => (trimmed, false),
    };
    let (without_query, query) = match without_fragment.split_once('?') {
        Some((before, query)) => (before, Some(query)),
        None => (without_fragment, None),
    };
    let (scheme, rest) = match without_query.split_once("://") {
        Some((scheme, rest)) => (scheme.to_ascii_lowercase(), rest),
        None => (String::new(), without_query),
    };
    let (authority, path) = match rest.find('/') {
        Some(slash) => (&rest[..slash], &rest[slash..]),
        None => (rest, ""),
    };
    let host = host_without_port(authority).to_ascii_lowercase();
    if host.is_empty() {
        return Err(UrlError::MissingHost);
    }
    let local = is_loopback_host(&host);
    let scheme = match scheme.as_str() {
        "" => {
            let assumed = if local { "http" } else { "https" };
            warnings.push(UrlWarning::MissingScheme {
                assumed: assumed.to_owned(),
            });
            assumed.to_owned()
        }
        "http" | "https" => scheme,
        _ => return Err(UrlError::UnsupportedScheme { scheme }),
    };
    if scheme == "http" && !local {
        warnings.push(UrlWarning::InsecureHttp);
    }
    if scheme == "https" && local {
        warnings.push(UrlWarning::HttpsToLocalServer);
    }

    let mut segs = segments(path);
    strip_route(&mut segs, protocol, &mut warnings);
    collapse_doubled_version(&mut segs, &mut warnings);
    let typed_path: String = segs.iter().map(|s| format!("/{s}")).collect();
    let base_path = if segs.iter().any(|s| is_version_segment(s)) {
        typed_path
    } else if let Some((_, _, known)) = KNOWN_PREFIXES
        .iter()
        .find(|(known_host, typed, _)| *known_host == host && *typed == typed_path)
    {
        warnings.push(UrlWarning::MissingVersionAdded {
            added: (*known).to_owned(),
        });
        (*known).to_owned()
    } else if typed_path.is_empty() {
        warnings.push(UrlWarning::MissingVersionAdded {
            added: "/v1".to_owned(),
        });
        "/v1".to_owned()
    } else {
        warnings.push(UrlWarning::NoVersionSegment);
        typed_path
    };
    if let Some(query) = query.filter(|q| !q.is_empty()) {
        warnings.push(UrlWarning::QueryStringKept {
            query: query.to_owned(),
        });
    }
    if fragment {
        warnings.push(UrlWarning::FragmentDropped);
    }
    let base_url = format!("{scheme}://{}{base_path}", authority.to_ascii_lowercase());
    let query_suffix = query
        .filter(|q| !q.is_empty())
        .map(|q| format!("?{q}"))
        .unwrap_or_default();
    Ok(Endpoint {
        protocol,
        endpoint_url: format!("{base_url}/{}{query_suffix}", protocol.route()),
        models_url: format!("{base_url}/models{query_suffix}"),
        base_url,
        local,
        warnings,
    })
}

/// The key cannot be sent as typed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum KeyError {
    /// A line break inside the key (often a copy from a terminal or a wrapped e-mail).
    #[error(
        "The API key contains a line break at character {position}. Paste it again as one line."
    )]
    LineBreak {
        /// 1-based character position in the trimmed key.
        position: usize,
    },
    /// A space or tab inside the key.
    #[error(
        "The API key contains a space at character {position}. Remove it; keys have no spaces."
    )]
    InnerWhitespace {
        /// 1-based character position in the trimmed key.
        position: usize,
    },
    /// A character a browser refuses in a header (fetch throws before sending).
    #[error(
        "The API key contains a character that cannot be sent in an HTTP header at character \
         {position} (often a typographic quote or an invisible character from a document)."
    )]
    InvalidCharacter {
        /// 1-based character position in the trimmed key.
        position: usize,
    },
}

/// An API key, trimmed and validated. Never serialized; `Debug` shows it masked.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    /// Trims the key and checks it can be sent in a header. `Ok(None)` when nothing was
    /// typed (local servers need no key).
    pub fn parse(raw: &str) -> Result<Option<ApiKey>, KeyError> {
        let key = raw.trim();
        if key.is_empty() {
            return Ok(None);
        }
        for (index, character) in key.chars().enumerate() {
            let position = index + 1;
            if character == '\n' || character == '\r' {
                return Err(KeyError::LineBreak { position });
            }
            if character.is_whitespace() {
                return Err(KeyError::InnerWhitespace { position });
            }
            if !character.is_ascii_graphic() {
                return Err(KeyError::InvalidCharacter { position });
            }
        }
        Ok(Some(ApiKey(key.to_owned())))
    }

    /// The key itself, for the header only.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// A masked form safe to show: the first 3 and last 4 characters of keys longer than
    /// 12 characters (`sk-…abcd`), otherwise only `…`.
    pub fn masked(&self) -> String {
        let chars: Vec<char> = self.0.chars().collect();
        if chars.len() > 12 {
            let head: String = chars[..3].iter().collect();
            let tail: String = chars[chars.len() - 4..].iter().collect();
            format!("{head}…{tail}")
        } else {
            "…".to_owned()
        }
    }
}

impl std::fmt::Debug for ApiKey {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(formatter, "ApiKey({})", self.masked())
    }
}

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
}

/// The request body cannot be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum BodyError {
    /// No model id.
    #[error("Enter a model name.")]
    MissingModel,
    /// Anthropic thinking budget below the minimum.
    #[error("Anthropic requires a thinking budget of at least 1024 tokens (got {budget_tokens}).")]
    ThinkingBudgetTooSmall {
        /// The budget asked for.
        budget_tokens: u32,
    },
    /// Anthropic thinking budget not below max_tokens.
    #[error(
        "Anthropic requires the thinking budget ({budget_tokens}) to be below max_tokens \
         ({max_tokens})."
    )]
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

/// Whether to resend an OpenAI Chat request without `stream_options`.
///
/// Some older or strict OpenAI-compatible servers reject the unknown field: pydantic-based
/// ones with 422 ("Extra inputs are not permitted", `loc: ["body", "stream_options"]`),
/// others with 400 ("Unrecognized request argument supplied: stream_options"). When the
/// answer is 400 or 422 and its body names `stream_options`, the app retries once with
/// [`PromptSpec::include_stream_options`] off; usage is then usually absent, and the ITL
/// falls back to chunk counting.
pub fn should_retry_without_stream_options(status: u16, body: &str) -> bool {
    matches!(status, 400 | 422) && body.to_ascii_lowercase().contains("stream_options")
}

/// Whether to resend an OpenAI Chat request with `max_completion_tokens` instead of
/// `max_tokens`: OpenAI reasoning models answer 400 "Unsupported parameter: 'max_tokens' …
/// Use 'max_completion_tokens' instead."
pub fn should_retry_with_max_completion_tokens(status: u16, body: &str) -> bool {
    status == 400 && body.contains("max_completion_tokens")
}

/// One HTTP header.
#[derive(Clone, PartialEq, Eq)]
pub struct Header {
    /// Header name, lower case.
    pub name: String,
    /// Header value (may contain the key: never log or export it).
    pub value: String,
}

impl std::fmt::Debug for Header {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            formatter,
            "{}: {}",
            self.name,
            masked_header_value(&self.name, &self.value)
        )
    }
}

/// Header names whose values carry the key.
fn is_secret_header(name: &str) -> bool {
    matches!(name, "authorization" | "x-api-key" | "api-key")
}

/// A header value fit for display: secrets masked.
fn masked_header_value(name: &str, value: &str) -> String {
    if !is_secret_header(name) {
        return value.to_owned();
    }
    let (prefix, secret) = match value.strip_prefix("Bearer ") {
        Some(secret) => ("Bearer ", secret),
        None => ("", value),
    };
    match ApiKey::parse(secret) {
        Ok(Some(key)) => format!("{prefix}{}", key.masked()),
        _ => format!("{prefix}…"),
    }
}

/// Request headers: content type, the key in the chosen style (only when there is one) and,
/// for Anthropic, `anthropic-version` and `anthropic-dangerous-direct-browser-access: true`
/// (without it api.anthropic.com sends no CORS headers and the browser blocks the answer).
pub fn build_headers(
    protocol: Protocol,
    auth_style: AuthStyle,
    key: Option<&ApiKey>,
) -> Vec<Header> {
    let header = |name: &str, value: String| Header {
        name: name.to_owned(),
        value,
    };
    let mut headers = vec![header("content-type", "application/json".to_owned())];
    if let Some(key) = key {
        headers.push(match auth_style {
            AuthStyle::Bearer => header("authorization", format!("Bearer {}", key.expose())),
            AuthStyle::XApiKey => header("x-api-key", key.expose().to_owned()),
        });
    }
    if protocol == Protocol::AnthropicMessages {
        headers.push(header("anthropic-version", ANTHROPIC_VERSION.to_owned()));
        headers.push(header(
            "anthropic-dangerous-direct-browser-access",
            "true".to_owned(),
        ));
    }
    headers
}

/// A request ready for `fetch()`. Holds the key in its headers: not serializable; use
/// [`PreparedRequest::describe`] for anything shown or exported.
#[derive(Debug, Clone, PartialEq)]
pub struct PreparedRequest {
    /// Protocol.
    pub protocol: Protocol,
    /// The URL to POST to.
    pub url: String,
    /// Headers to send.
    pub headers: Vec<Header>,
    /// The JSON body.
    pub body: Value,
    /// How the key is sent.
    pub auth_style: AuthStyle,
    /// Whether a key is in the headers.
    pub key_sent: bool,
}

/// Builds the request for an endpoint: body, headers (key in `auth_style`, or the
/// protocol's default when `None`).
pub fn prepare_request(
    endpoint: &Endpoint,
    spec: &PromptSpec,
    key: Option<&ApiKey>,
    auth_style: Option<AuthStyle>,
) -> Result<PreparedRequest, BodyError> {
    let auth_style = auth_style.unwrap_or_else(|| endpoint.protocol.default_auth_style());
    Ok(PreparedRequest {
        protocol: endpoint.protocol,
        url: endpoint.endpoint_url.clone(),
        headers: build_headers(endpoint.protocol, auth_style, key),
        body: build_body(endpoint.protocol, spec)?,
        auth_style,
        key_sent: key.is_some(),
    })
}

impl PreparedRequest {
    /// The body as the string to send.
    pub fn body_text(&self) -> String {
        self.body.to_string()
    }

    /// What the UI shows and exports: everything but the key, which is masked.
    pub fn describe(&self) -> RequestDescription {
        RequestDescription {
            protocol: self.protocol,
            method: "POST".to_owned(),
            url: self.url.clone(),
            headers: self
                .headers
                .iter()
                .map(|h| (h.name.clone(), masked_header_value(&h.name, &h.value)))
                .collect(),
            body: self.body.clone(),
            auth_style: self.auth_style,
            key_sent: self.key_sent,
        }
    }
}

/// A request as shown to the user and written to exports; the key is masked.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RequestDescription {
    /// Protocol.
    pub protocol: Protocol,
    /// Always `POST`.
    pub method: String,
    /// The endpoint URL.
    pub url: String,
    /// Header names and values, the key masked (`Bearer sk-…abcd`).
    pub headers: Vec<(String, String)>,
    /// The JSON body (contains no key).
    pub body: Value,
    /// How the key was sent.
    pub auth_style: AuthStyle,
    /// Whether a key was sent.
    pub key_sent: bool,
}

/// Picks the text for a language.
fn in_lang(lang: Lang, en: String, zh: String) -> String {
    match lang {
        Lang::En => en,
        Lang::Zh => zh,
    }
}

impl UrlWarning {
    /// A one-line explanation for the user.
    pub fn message(&self, lang: Lang) -> String {
        let (en, zh) = match self {
            UrlWarning::SurroundingWhitespace => (
                "Spaces or line breaks around the URL were removed.".to_owned(),
                "已去掉 URL 前后的空格或换行。".to_owned(),
            ),
            UrlWarning::MissingScheme { assumed } => (
                format!("No http:// or https:// was typed; {assumed}:// is used."),
                format!("没有填写 http:// 或 https://，已使用 {assumed}://。"),
            ),
            UrlWarning::FullPathPasted { removed } => (
                format!("The full path was pasted; the base URL is enough (/{removed} is added automatically)."),
                format!("粘贴了完整路径；只需填写基础 URL（会自动加上 /{removed}）。"),
            ),
            UrlWarning::ProtocolPathMismatch { pasted, selected } => (
                format!("The URL ends in /{pasted}, which belongs to another protocol than the selected one ({}); the selected protocol's path is used. Check the protocol choice.", selected.label()),
                format!("URL 以 /{pasted} 结尾，这属于另一种协议，而不是所选协议（{}）；已改用所选协议的路径。请检查协议选择。", selected.label()),
            ),
            UrlWarning::ModelsUrlPasted => (
                "A models-list URL was pasted; its base URL is used.".to_owned(),
                "粘贴的是模型列表 URL，已使用其基础 URL。".to_owned(),
            ),
            UrlWarning::DoubledVersion => (
                "/v1/v1 was written; it was reduced to one /v1.".to_owned(),
                "URL 中出现了 /v1/v1，已合并为一个 /v1。".to_owned(),
            ),
            UrlWarning::MissingVersionAdded { added } => (
                format!("{added} was added to the host, where this API lives."),
                format!("已在主机后加上 {added}（该 API 位于此路径下）。"),
            ),
            UrlWarning::NoVersionSegment => (
                "The path has no version such as /v1; it is used as typed. If the server answers 404, try adding /v1.".to_owned(),
                "路径中没有 /v1 之类的版本号，已按原样使用。如果服务器返回 404，请尝试加上 /v1。".to_owned(),
            ),
            UrlWarning::InsecureHttp => (
                "Plain http to a remote host: the key travels unencrypted, and an https page cannot call it (mixed content).".to_owned(),
                "对远程主机使用了 http：密钥以明文传输，而且 https 页面无法调用它（混合内容）。".to_owned(),
            ),
            UrlWarning::HttpsToLocalServer => (
                "https to a local server: local servers usually serve plain http.".to_owned(),
                "对本地服务使用了 https：本地服务通常只提供 http。".to_owned(),
            ),
            UrlWarning::QueryStringKept { query } => (
                format!("The query string ?{query} is kept and sent after the path; remove it unless the server needs it (Azure needs api-version)."),
                format!("查询字符串 ?{query} 已保留并附在路径之后；除非服务器需要（Azure 需要 api-version），否则请删除。"),
            ),
            UrlWarning::FragmentDropped => (
                "The #fragment was dropped; it is never sent to a server.".to_owned(),
                "已去掉 # 之后的部分；它不会被发送到服务器。".to_owned(),
            ),
        };
        in_lang(lang, en, zh)
    }
}

impl UrlError {
    /// The error for the user, in a language.
    pub fn message(&self, lang: Lang) -> String {
        let zh = match self {
            UrlError::Empty => "请填写 API 基础 URL，例如 https://api.openai.com/v1。".to_owned(),
            UrlError::InnerWhitespace => "URL 中含有空格或换行，请删除。".to_owned(),
            UrlError::UnsupportedScheme { scheme } => {
                format!("只能调用 http:// 和 https:// 的 URL（填写的是 {scheme}://）。")
            }
            UrlError::MissingHost => "URL 中没有主机名。".to_owned(),
        };
        in_lang(lang, self.to_string(), zh)
    }
}

impl KeyError {
    /// The error for the user, in a language.
    pub fn message(&self, lang: Lang) -> String {
        let zh = match self {
            KeyError::LineBreak { position } => {
                format!("API 密钥的第 {position} 个字符处有换行。请重新粘贴为一行。")
            }
            KeyError::InnerWhitespace { position } => {
                format!("API 密钥的第 {position} 个字符处有空格。请删除；密钥中没有空格。")
            }
            KeyError::InvalidCharacter { position } => format!(
                "API 密钥的第 {position} 个字符无法放入 HTTP 请求头（通常是从文档中复制来的弯引号或不可见字符）。"
            ),
        };
        in_lang(lang, self.to_string(), zh)
    }
}

impl BodyError {
    /// The error for the user, in a language.
    pub fn message(&self, lang: Lang) -> String {
        let zh = match self {
            BodyError::MissingModel => "请填写模型名称。".to_owned(),
            BodyError::ThinkingBudgetTooSmall { budget_tokens } => {
                format!("Anthropic 要求思考预算至少为 1024 个 token（当前为 {budget_tokens}）。")
            }
            BodyError::ThinkingBudgetNotBelowMaxTokens {
                budget_tokens,
                max_tokens,
            } => format!(
                "Anthropic 要求思考预算（{budget_tokens}）小于 max_tokens（{max_tokens}）。"
            ),
        };
        in_lang(lang, self.to_string(), zh)
    }
}
