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
use serde_json::Value;

use crate::protocol::{AuthStyle, Protocol};

mod address_space;
mod body;
mod headers;
mod key;
mod models;
pub mod secret;
mod url;

pub use address_space::{address_space_of, crosses_into, AddressSpace, SpacePermission};
pub use body::{
    anthropic_body, build_body, openai_chat_body, responses_body, with_nonce, BodyError,
    MaxTokensField, PromptSpec, ReasoningEffort, ReasoningSummary, ANTHROPIC_DEFAULT_MAX_TOKENS,
    ANTHROPIC_MIN_THINKING_BUDGET_TOKENS,
};
pub(crate) use headers::masked_header_value;
pub use headers::{build_headers, has_traceparent, Header, TRACEPARENT};
pub use key::{ApiKey, KeyError};
pub use models::{
    parse_model_list, MAX_MODELS, MAX_MODELS_BODY_BYTES, MAX_MODEL_ID_CHARS, MODELS_TIMEOUT_MS,
};
pub use url::is_version_segment;
pub(crate) use url::{host_without_port, is_loopback_host};
pub use url::{normalize_base_url, Endpoint, UrlError, UrlWarning};

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
    let mut body = build_body(endpoint.protocol, spec)?;
    ask_for_the_account(endpoint, &mut body);
    Ok(PreparedRequest {
        protocol: endpoint.protocol,
        url: endpoint.endpoint_url.clone(),
        headers: build_headers(endpoint.protocol, auth_style, key),
        body,
        auth_style,
        key_sent: key.is_some(),
    })
}

/// The host Fireworks serves its API from: it reports its own time on a stream only when the
/// body asks (`perf_metrics_in_response: true`, docs/stream-formats.md §12).
pub const FIREWORKS_HOST: &str = "api.fireworks.ai";

/// Asks the server for its own account of the request where it reports one only on request
/// and the request can ask without a cost: Fireworks' `perf_metrics_in_response` (a body
/// field, so no CORS preflight changes). Other servers get nothing extra: an unknown field is
/// refused by some (OpenAI answers 400), and an extra header (LocalAI's `Extra-Usage`) would
/// make every page's request wait for a preflight a server may refuse (Ollama's CORS lists
/// its allowed headers).
fn ask_for_the_account(endpoint: &Endpoint, body: &mut serde_json::Value) {
    if endpoint.protocol != Protocol::OpenAiChat {
        return;
    }
    let authority = endpoint
        .base_url
        .split_once("://")
        .map_or("", |(_, rest)| rest)
        .split('/')
        .next()
        .unwrap_or_default();
    if host_without_port(authority).eq_ignore_ascii_case(FIREWORKS_HOST) {
        if let Some(object) = body.as_object_mut() {
            object.insert("perf_metrics_in_response".into(), serde_json::json!(true));
        }
    }
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
