//! Asking the server itself: how many tokens a text is (for [`super::sizing`]) and how
//! large its context window is (for [`super::sizing::fit_sizes`]). The requests are built
//! here and the answers read here; the app only sends them (bounded in time and size).
//!
//! # Token counts
//!
//! Two ways, tried in this order ([`CountMethod`]):
//! 1. **tokenize**: `POST <server root>/tokenize` with `{"model", "prompt", "content"}`:
//!    llama.cpp reads `content` and answers `{"tokens": [ids]}`; vLLM reads `model` and
//!    `prompt` and answers `{"count", "max_model_len", "tokens"}` (it ignores unknown fields).
//!    Free, instant, and the user's text only (no chat template): [`CountSource::ServerTokenizer`].
//! 2. **usage**: the run's own request, not streamed, with the smallest output limit the
//!    protocol accepts, no reasoning options; its `usage` has the prompt's tokens, chat
//!    template included: [`CountSource::ServerUsage`]. It costs one prefill of the text.
//!
//! [`TokenCounter`] remembers which way works (a way that never answered is dropped at its
//! first failure; one that answered before is kept) and caches counts per text.
//!
//! # Context windows
//!
//! Where servers publish them: llama.cpp `GET <root>/props` →
//! `default_generation_settings.n_ctx` (the window the server runs with); `/v1/models`
//! entries → vLLM `max_model_len`, llama.cpp `meta.n_ctx_train`, OpenRouter
//! `context_length`, LiteLLM `max_input_tokens`; LiteLLM's `GET <root>/model/info` →
//! `data[].model_info.max_input_tokens` of `data[].model_name` (what its config or its
//! upstream says; tests/fixtures/gateways/litellm). [`ContextWindows`] combines the answers
//! per model.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::sizing::{CountSource, TokenCount};
use ttft_core::diagnosis::{read_context_overflow, Cause};
use ttft_core::measure::RunPlan;
use ttft_core::protocol::Protocol;
use ttft_core::request::{
    build_body, is_version_segment, BodyError, Endpoint, PreparedRequest, MAX_MODELS_BODY_BYTES,
};

/// The most of a count answer read: llama.cpp lists every token id (about 6 bytes each),
/// so 8 MiB covers a prompt of a million tokens; a longer answer is not read (no count).
pub const MAX_COUNT_BODY_BYTES: usize = 8 * 1024 * 1024;

/// The most of a `/props` or `/models` answer read for context windows.
pub const MAX_INFO_BODY_BYTES: usize = MAX_MODELS_BODY_BYTES;

/// Smallest `max_output_tokens` OpenAI Responses accepts (it refuses fewer than 16).
const RESPONSES_MIN_OUTPUT_TOKENS: u32 = 16;

/// Most counts a [`TokenCounter`] caches (a plan asks a few dozen at most).
const MAX_CACHED_COUNTS: usize = 256;

/// A way of asking the server for a token count.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CountMethod {
    /// `POST <root>/tokenize` (llama.cpp, vLLM).
    Tokenize,
    /// `usage` of a non-streamed request with the smallest output.
    Usage,
}

impl CountMethod {
    /// Every way, in the order tried.
    pub const ALL: [CountMethod; 2] = [CountMethod::Tokenize, CountMethod::Usage];

    /// Where a count of this way comes from.
    pub fn source(self) -> CountSource {
        match self {
            CountMethod::Tokenize => CountSource::ServerTokenizer,
            CountMethod::Usage => CountSource::ServerUsage,
        }
    }

    fn index(self) -> usize {
        match self {
            CountMethod::Tokenize => 0,
            CountMethod::Usage => 1,
        }
    }
}

/// The server's root: the version base without its last segment when that is an API
/// version (`http://127.0.0.1:8080/v1` → `http://127.0.0.1:8080`), where llama.cpp and
/// vLLM serve `/tokenize` and `/props`.
fn server_root(endpoint: &Endpoint) -> String {
    let base = endpoint.base_url.trim_end_matches('/');
    match base.rsplit_once('/') {
        // `https://v1` (a host named like a version) leaves `https:/`: not a root.
        Some((root, last)) if is_version_segment(last) && root.contains("://") => root.to_owned(),
        _ => base.to_owned(),
    }
}

/// The request that counts `text` the `method` way, with the plan's model and headers (the
/// key included: llama.cpp and vLLM guard `/tokenize` with the same key).
pub fn count_request(
    plan: &RunPlan,
    method: CountMethod,
    text: &str,
) -> Result<PreparedRequest, BodyError> {
    let mut request = plan.request().clone();
    match method {
        CountMethod::Tokenize => {
            request.url = format!("{}/tokenize", server_root(&plan.endpoint));
            request.body = json!({
                "model": plan.spec.model.trim(),
                "prompt": text,
                "content": text,
            });
        }
        CountMethod::Usage => {
            let protocol = plan.endpoint.protocol;
            let mut spec = plan.spec.clone();
            spec.prompt = text.to_owned();
            spec.system = None;
            spec.cache_nonce = None;
            spec.include_stream_options = false;
            spec.reasoning_effort = None;
            spec.reasoning_summary = None;
            spec.thinking_budget_tokens = None;
            spec.max_output_tokens = Some(match protocol {
                Protocol::OpenAiResponses => RESPONSES_MIN_OUTPUT_TOKENS,
                Protocol::OpenAiChat | Protocol::AnthropicMessages => 1,
            });
            let mut body = build_body(protocol, &spec)?;
            if let Some(object) = body.as_object_mut() {
                object.insert("stream".into(), Value::Bool(false));
            }
            request.body = body;
        }
    }
    Ok(request)
}

/// A whole number of a JSON value, when it is one and fits `u32`.
fn whole(value: Option<&Value>) -> Option<u32> {
    value
        .and_then(Value::as_u64)
        .and_then(|n| u32::try_from(n).ok())
}

/// The count in a server's answer to [`count_request`]: `None` unless the status is 2xx
/// and the body holds a positive count where the protocol puts it.
pub fn read_count(
    method: CountMethod,
    protocol: Protocol,
    status: u16,
    body: &str,
) -> Option<TokenCount> {
    if !(200..300).contains(&status) || body.len() > MAX_COUNT_BODY_BYTES {
        return None;
    }
    let value: Value = serde_json::from_str(body).ok()?;
    let tokens = match method {
        CountMethod::Tokenize => whole(value.get("count")).or_else(|| {
            value
                .get("tokens")?
                .as_array()
                .and_then(|tokens| u32::try_from(tokens.len()).ok())
        }),
        CountMethod::Usage => {
            let usage = value.get("usage")?;
            match protocol {
                Protocol::OpenAiChat => whole(usage.get("prompt_tokens")),
                Protocol::OpenAiResponses => whole(usage.get("input_tokens")),
                // Anthropic's input_tokens leaves out what was read from or written to
                // the cache.
                Protocol::AnthropicMessages => {
                    let part = |name: &str| whole(usage.get(name)).unwrap_or(0);
                    whole(usage.get("input_tokens")).map(|input| {
                        input
                            .saturating_add(part("cache_read_input_tokens"))
                            .saturating_add(part("cache_creation_input_tokens"))
                    })
                }
            }
        }
    }?;
    (tokens > 0).then_some(TokenCount {
        tokens,
        source: method.source(),
    })
}

/// What to do after an answer (see [`TokenCounter::answer`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CountStep {
    /// The text is counted.
    Counted(TokenCount),
    /// This way does not work on this server: try the next one ([`TokenCounter::method`]).
    TryNext,
    /// This way worked before but not for this text: leave it uncounted.
    Uncounted,
}

/// Which way of counting works on a server, and the counts so far (see the module docs).
///
/// ```
/// use ttft_lab::experiment::counting::{CountMethod, CountStep, TokenCounter};
/// use ttft_core::protocol::Protocol;
///
/// let mut counter = TokenCounter::new();
/// // The server has no /tokenize…
/// assert_eq!(counter.method(), Some(CountMethod::Tokenize));
/// let step = counter.answer(CountMethod::Tokenize, "hello", Protocol::OpenAiChat, Some((404, "")));
/// assert_eq!(step, CountStep::TryNext);
/// // …but reports usage.
/// assert_eq!(counter.method(), Some(CountMethod::Usage));
/// let body = r#"{"usage": {"prompt_tokens": 9, "completion_tokens": 1}}"#;
/// let step = counter.answer(CountMethod::Usage, "hello", Protocol::OpenAiChat, Some((200, body)));
/// assert!(matches!(step, CountStep::Counted(count) if count.tokens == 9));
/// assert_eq!(counter.cached("hello").map(|count| count.tokens), Some(9));
/// assert_eq!(counter.requests(), 2);
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TokenCounter {
    /// Per way ([`CountMethod::ALL`] order): it failed before ever answering.
    failed: [bool; 2],
    /// Per way: it answered at least once.
    answered: [bool; 2],
    /// (hash, length) of a text and its count.
    cache: Vec<((u64, usize), TokenCount)>,
    requests: usize,
    /// The context window a server named when it refused a text for length.
    overflow_window: Option<u32>,
}

impl TokenCounter {
    /// A counter that has tried nothing yet.
    pub fn new() -> TokenCounter {
        TokenCounter::default()
    }

    /// The way to ask now; `None` when no way works on this server.
    pub fn method(&self) -> Option<CountMethod> {
        CountMethod::ALL
            .into_iter()
            .find(|method| !self.failed[method.index()])
    }

    /// The count of `text` if it was counted before.
    pub fn cached(&self, text: &str) -> Option<TokenCount> {
        let key = text_key(text);
        self.cache
            .iter()
            .find(|(cached, _)| *cached == key)
            .map(|(_, count)| *count)
    }

    /// Requests sent so far (answered or not).
    pub fn requests(&self) -> usize {
        self.requests
    }

    /// The context window the server named when it refused a text for length (see
    /// [`read_overflow_window`]): servers that publish no window (llama-cpp-python) still
    /// say it there.
    pub fn overflow_window(&self) -> Option<u32> {
        self.overflow_window
    }

    /// Takes the server's answer to the `method` request for `text`: `(status, body)`, or
    /// `None` when no answer came (network error, timeout, body past its bound).
    pub fn answer(
        &mut self,
        method: CountMethod,
        text: &str,
        protocol: Protocol,
        response: Option<(u16, &str)>,
    ) -> CountStep {
        self.requests += 1;
        let index = method.index();
        let count = response.and_then(|(status, body)| read_count(method, protocol, status, body));
        if count.is_none() {
            if let Some(window) =
                response.and_then(|(status, body)| read_overflow_window(status, body))
            {
                self.overflow_window = Some(window);
            }
        }
        match count {
            Some(count) => {
                self.answered[index] = true;
                if self.cache.len() < MAX_CACHED_COUNTS {
                    self.cache.push((text_key(text), count));
                }
                CountStep::Counted(count)
            }
            None if self.answered[index] => CountStep::Uncounted,
            None => {
                self.failed[index] = true;
                CountStep::TryNext
            }
        }
    }
}

/// The context window named in a server's refusal of a prompt for length (a 4xx answer),
/// read with the diagnosis's own reader ([`read_context_overflow`]), so planning and the
/// diagnosis know the same wordings: OpenAI's, which llama-cpp-python and vLLM use too
/// ("This model's maximum context length is 8192 tokens"), llama-cpp-python's own
/// ("Requested tokens (9000) exceed context window of 8192"), llama.cpp's `n_ctx` field of
/// an `exceed_context_size_error`, SGLang's and Anthropic's. `None` for any other answer,
/// or a window out of range.
pub fn read_overflow_window(status: u16, body: &str) -> Option<u32> {
    if !(400..500).contains(&status) || body.len() > MAX_COUNT_BODY_BYTES {
        return None;
    }
    match read_context_overflow(body)? {
        Cause::ContextOverflow {
            window_tokens: Some(tokens),
            ..
        } if (1..=MAX_WINDOW_TOKENS).contains(&tokens) => Some(tokens),
        _ => None,
    }
}

/// A cache key of a text: its hash (SipHash with fixed keys: the same in every run) and
/// its length.
fn text_key(text: &str) -> (u64, usize) {
    let mut hasher = DefaultHasher::new();
    text.hash(&mut hasher);
    (hasher.finish(), text.len())
}

/// Where a context window was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WindowSource {
    /// llama.cpp `/props` `default_generation_settings.n_ctx`.
    Props,
    /// A `/models` entry (`max_model_len`, `context_length`, `meta.n_ctx_train`).
    ModelList,
}

/// The context windows a server published.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContextWindows {
    /// From `/props` (asked for the form's model): the window the server runs with.
    pub props_tokens: Option<u32>,
    /// From the `/models` list: (model id, window), in list order.
    pub listed: Vec<(String, u32)>,
}

impl ContextWindows {
    /// The windows read from the answers of `/props`, `/models` and a gateway's
    /// `/model/info` (`None`: no answer). A model listed in both lists keeps its `/models`
    /// window.
    pub fn read(
        props_body: Option<&str>,
        models_body: Option<&str>,
        model_info_body: Option<&str>,
    ) -> ContextWindows {
        let mut listed = models_body.map(parse_model_windows).unwrap_or_default();
        for (id, tokens) in model_info_body
            .map(parse_model_info_windows)
            .unwrap_or_default()
        {
            if !listed.iter().any(|(known, _)| *known == id)
                && listed.len() < ttft_core::request::MAX_MODELS
            {
                listed.push((id, tokens));
            }
        }
        ContextWindows {
            props_tokens: props_body.and_then(parse_props_window),
            listed,
        }
    }

    /// The window of `model`: its own `/models` entry, else `/props` (llama.cpp serves one
    /// model, and ttft-sim answers `/props?model=` for names with settings after `@`).
    /// `/props` wins when both are known for the form's model, since llama.cpp may run
    /// with less than the trained window: the caller asks with `prefer_props`.
    pub fn for_model(&self, model: &str, prefer_props: bool) -> Option<(u32, WindowSource)> {
        let listed = self
            .listed
            .iter()
            .find(|(id, _)| id == model.trim())
            .map(|(_, tokens)| (*tokens, WindowSource::ModelList));
        let props = self
            .props_tokens
            .map(|tokens| (tokens, WindowSource::Props));
        if prefer_props {
            props.or(listed)
        } else {
            listed.or(props)
        }
    }

    /// (model, window) for every listed model, for [`super::Setup::model_windows`].
    pub fn model_windows(&self) -> Vec<(String, u32)> {
        self.listed.clone()
    }
}

/// `<root>/model/info` (LiteLLM's proxy: every model's `model_info`).
pub fn model_info_url(endpoint: &Endpoint) -> String {
    format!("{}/model/info", server_root(endpoint))
}

/// `<root>/props?model=<model>` (llama.cpp; in router mode `model` picks the model).
pub fn props_url(endpoint: &Endpoint, model: &str) -> String {
    format!(
        "{}/props?model={}",
        server_root(endpoint),
        encode_query_value(model.trim())
    )
}

/// Percent-encodes everything but RFC 3986's unreserved characters.
fn encode_query_value(value: &str) -> String {
    let mut encoded = String::with_capacity(value.len());
    for byte in value.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~') {
            encoded.push(char::from(byte));
        } else {
            encoded.push_str(&format!("%{byte:02X}"));
        }
    }
    encoded
}

/// A positive window, at most what any model has (a bogus value is ignored).
/// Larger than any model's context (100 M tokens).
const MAX_WINDOW_TOKENS: u32 = 100_000_000;

fn window(value: Option<&Value>) -> Option<u32> {
    whole(value).filter(|tokens| (1..=MAX_WINDOW_TOKENS).contains(tokens))
}

/// The window in a llama.cpp `/props` answer: `default_generation_settings.n_ctx` (older
/// servers: a top-level `n_ctx`).
fn parse_props_window(body: &str) -> Option<u32> {
    if body.len() > MAX_INFO_BODY_BYTES {
        return None;
    }
    let value: Value = serde_json::from_str(body).ok()?;
    window(
        value
            .get("default_generation_settings")
            .and_then(|settings| settings.get("n_ctx")),
    )
    .or_else(|| window(value.get("n_ctx")))
}

/// (id, window) of every entry of a `{"data": [...]}` answer that `read` finds both in
/// (ids trimmed, empty ones skipped), at most [`ttft_core::request::MAX_MODELS`]; none for
/// an answer over [`MAX_INFO_BODY_BYTES`] or not of that shape.
fn data_windows(body: &str, read: impl Fn(&Value) -> Option<(&str, u32)>) -> Vec<(String, u32)> {
    if body.len() > MAX_INFO_BODY_BYTES {
        return Vec::new();
    }
    let Ok(value) = serde_json::from_str::<Value>(body) else {
        return Vec::new();
    };
    let Some(entries) = value.get("data").and_then(Value::as_array) else {
        return Vec::new();
    };
    entries
        .iter()
        .filter_map(|entry| {
            let (id, tokens) = read(entry)?;
            let id = id.trim();
            (!id.is_empty()).then(|| (id.to_owned(), tokens))
        })
        .take(ttft_core::request::MAX_MODELS)
        .collect()
}

/// (model id, window) of every `/models` entry that says its window: vLLM `max_model_len`,
/// OpenRouter `context_length`, LiteLLM `max_input_tokens`, llama.cpp `meta.n_ctx_train`.
fn parse_model_windows(body: &str) -> Vec<(String, u32)> {
    data_windows(body, |entry| {
        let tokens = window(entry.get("max_model_len"))
            .or_else(|| window(entry.get("context_length")))
            .or_else(|| window(entry.get("max_input_tokens")))
            .or_else(|| window(entry.get("meta").and_then(|meta| meta.get("n_ctx_train"))))?;
        Some((entry.get("id")?.as_str()?, tokens))
    })
}

/// (model name, window) of every entry of LiteLLM's `/model/info`:
/// `data[].model_info.max_input_tokens` of `data[].model_name` (null when LiteLLM does not
/// know it: left out).
fn parse_model_info_windows(body: &str) -> Vec<(String, u32)> {
    data_windows(body, |entry| {
        let info = entry.get("model_info")?;
        let tokens = window(info.get("max_input_tokens"))?;
        Some((entry.get("model_name")?.as_str()?, tokens))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn litellm_publishes_windows_in_model_info_and_its_models_list() {
        let dir = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/fixtures/gateways/litellm"
        );
        let read = |path: &str| -> String {
            let case: Value =
                serde_json::from_str(&std::fs::read_to_string(format!("{dir}/{path}")).unwrap())
                    .unwrap();
            case["body"].as_str().unwrap().to_owned()
        };
        let info = read("master_key/i_model_info_with_key.json");
        let windows = ContextWindows::read(None, None, Some(&info));
        assert!(!windows.listed.is_empty(), "{info}");
        for (model, tokens) in &windows.listed {
            assert!(*tokens > 0, "{model}");
        }
        let models = read("master_key/i_v1_models_with_key.json");
        let from_list = ContextWindows::read(None, Some(&models), None);
        assert_eq!(from_list.listed, windows.listed, "{models}");
    }

    #[test]
    fn overflow_answers_name_the_window() {
        let openai = r#"{"error":{"message":"This model's maximum context length is 8192 tokens. However, you requested 10210 tokens (10209 in the messages, 1 in the completion).","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}"#;
        assert_eq!(read_overflow_window(400, openai), Some(8192));
        let llama_cpp_python =
            r#"{"detail":"Requested tokens (9000) exceed context window of 4096"}"#;
        assert_eq!(read_overflow_window(400, llama_cpp_python), Some(4096));
        let llama_cpp = r#"{"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error","n_prompt_tokens":5000,"n_ctx":4096}}"#;
        assert_eq!(read_overflow_window(400, llama_cpp), Some(4096));
        let sglang = r#"{"object":"error","message":"The input (9000 tokens) is longer than the model's context length (8192 tokens).","type":"BadRequestError","param":null,"code":400}"#;
        assert_eq!(read_overflow_window(400, sglang), Some(8192));
        let anthropic = r#"{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210000 tokens > 200000 maximum"}}"#;
        assert_eq!(read_overflow_window(400, anthropic), Some(200_000));
        let no_window = r#"{"error":{"message":"context length exceeded"}}"#;
        assert_eq!(read_overflow_window(400, no_window), None);
        assert_eq!(read_overflow_window(200, openai), None);
        assert_eq!(
            read_overflow_window(400, r#"{"error":{"message":"bad key"}}"#),
            None
        );
        assert_eq!(read_overflow_window(400, "not json"), None);
        let mut counter = TokenCounter::new();
        let step = counter.answer(
            CountMethod::Usage,
            "long",
            Protocol::OpenAiChat,
            Some((400, openai)),
        );
        assert_eq!(step, CountStep::TryNext);
        assert_eq!(counter.overflow_window(), Some(8192));
    }
    use ttft_core::measure::RunInput;
    use ttft_core::protocol::ProtocolChoice;

    fn plan(base_url: &str, protocol: Protocol) -> RunPlan {
        RunPlan::parse(&RunInput {
            protocol: ProtocolChoice::Fixed(protocol),
            base_url,
            api_key: "sk-test-1234",
            model: "m",
            prompt: "hi",
            max_tokens: "",
            reasoning: true,
            timeout_s: "",
            ttft_only: false,
        })
        .expect("valid plan")
    }

    #[test]
    fn the_root_drops_a_trailing_version_only() {
        let root = |url: &str| server_root(&plan(url, Protocol::OpenAiChat).endpoint);
        assert_eq!(root("http://127.0.0.1:8080"), "http://127.0.0.1:8080");
        assert_eq!(root("http://127.0.0.1:8080/v1"), "http://127.0.0.1:8080");
        assert_eq!(root("https://host/api/v1"), "https://host/api");
        assert_eq!(root("https://host/api"), "https://host/api");
    }

    #[test]
    fn count_requests_keep_the_key_and_ask_for_one_token() {
        let chat = plan("http://127.0.0.1:8080/v1", Protocol::OpenAiChat);
        let tokenize = count_request(&chat, CountMethod::Tokenize, "abc").unwrap();
        assert_eq!(tokenize.url, "http://127.0.0.1:8080/tokenize");
        assert_eq!(
            tokenize.body,
            json!({"model": "m", "prompt": "abc", "content": "abc"})
        );
        assert!(tokenize
            .headers
            .iter()
            .any(|h| h.value == "Bearer sk-test-1234"));
        let usage = count_request(&chat, CountMethod::Usage, "abc").unwrap();
        assert_eq!(usage.url, "http://127.0.0.1:8080/v1/chat/completions");
        assert_eq!(usage.body["stream"], json!(false));
        assert_eq!(usage.body["max_tokens"], json!(1));
        assert!(usage.body.get("stream_options").is_none());
        assert!(usage.body.get("reasoning_effort").is_none());
        assert_eq!(usage.body["messages"][0]["content"], json!("abc"));
        let anthropic = plan("http://127.0.0.1:8080", Protocol::AnthropicMessages);
        let usage = count_request(&anthropic, CountMethod::Usage, "abc").unwrap();
        assert_eq!(usage.body["max_tokens"], json!(1));
        assert!(usage.body.get("thinking").is_none());
        let responses = plan("http://127.0.0.1:8080", Protocol::OpenAiResponses);
        let usage = count_request(&responses, CountMethod::Usage, "abc").unwrap();
        assert_eq!(usage.body["max_output_tokens"], json!(16));
        assert!(usage.body.get("reasoning").is_none());
    }

    #[test]
    fn counts_are_read_where_each_server_puts_them() {
        let tokenize =
            |body: &str| read_count(CountMethod::Tokenize, Protocol::OpenAiChat, 200, body);
        assert_eq!(
            tokenize(r#"{"tokens": [1, 2, 3]}"#).map(|c| (c.tokens, c.source)),
            Some((3, CountSource::ServerTokenizer))
        );
        assert_eq!(
            tokenize(r#"{"count": 5, "max_model_len": 8192, "tokens": [1]}"#).map(|c| c.tokens),
            Some(5)
        );
        assert_eq!(tokenize(r#"{"tokens": []}"#), None);
        assert_eq!(tokenize("<html>"), None);
        assert_eq!(
            read_count(
                CountMethod::Tokenize,
                Protocol::OpenAiChat,
                404,
                r#"{"tokens": [1]}"#
            ),
            None
        );
        let usage = |protocol, body: &str| {
            read_count(CountMethod::Usage, protocol, 200, body).map(|c| (c.tokens, c.source))
        };
        assert_eq!(
            usage(Protocol::OpenAiChat, r#"{"usage": {"prompt_tokens": 12}}"#),
            Some((12, CountSource::ServerUsage))
        );
        assert_eq!(
            usage(
                Protocol::OpenAiResponses,
                r#"{"usage": {"input_tokens": 7}}"#
            )
            .map(|c| c.0),
            Some(7)
        );
        assert_eq!(
            usage(
                Protocol::AnthropicMessages,
                r#"{"usage": {"input_tokens": 2, "cache_read_input_tokens": 64, "cache_creation_input_tokens": 0}}"#
            )
            .map(|c| c.0),
            Some(66)
        );
        assert_eq!(usage(Protocol::OpenAiChat, r#"{"choices": []}"#), None);
    }

    #[test]
    fn a_way_that_worked_is_kept_after_one_failure() {
        let mut counter = TokenCounter::new();
        let body = r#"{"tokens": [1, 2]}"#;
        assert_eq!(
            counter.answer(
                CountMethod::Tokenize,
                "a",
                Protocol::OpenAiChat,
                Some((200, body))
            ),
            CountStep::Counted(TokenCount {
                tokens: 2,
                source: CountSource::ServerTokenizer
            })
        );
        assert_eq!(
            counter.answer(CountMethod::Tokenize, "b", Protocol::OpenAiChat, None),
            CountStep::Uncounted
        );
        assert_eq!(counter.method(), Some(CountMethod::Tokenize));
        // Neither way works: nothing left to try.
        let mut none = TokenCounter::new();
        assert_eq!(
            none.answer(
                CountMethod::Tokenize,
                "a",
                Protocol::OpenAiChat,
                Some((404, ""))
            ),
            CountStep::TryNext
        );
        assert_eq!(
            none.answer(
                CountMethod::Usage,
                "a",
                Protocol::OpenAiChat,
                Some((500, ""))
            ),
            CountStep::TryNext
        );
        assert_eq!(none.method(), None);
        assert_eq!(none.cached("a"), None);
    }

    #[test]
    fn windows_come_from_props_and_the_model_list() {
        let props = r#"{"default_generation_settings": {"n_ctx": 4096}, "total_slots": 1}"#;
        assert_eq!(parse_props_window(props), Some(4096));
        assert_eq!(parse_props_window(r#"{"n_ctx": 2048}"#), Some(2048));
        assert_eq!(
            parse_props_window(r#"{"default_generation_settings": {"n_ctx": 0}}"#),
            None
        );
        let models = r#"{"data": [
            {"id": "a", "max_model_len": 8192},
            {"id": "b", "meta": {"n_vocab": 10, "n_ctx_train": 32768}},
            {"id": "c", "context_length": 128000},
            {"id": "d"}
        ]}"#;
        assert_eq!(
            parse_model_windows(models),
            vec![
                ("a".into(), 8192),
                ("b".into(), 32768),
                ("c".into(), 128_000)
            ]
        );
        let windows = ContextWindows::read(Some(props), Some(models), None);
        assert_eq!(
            windows.for_model("a", true),
            Some((4096, WindowSource::Props))
        );
        assert_eq!(
            windows.for_model("a", false),
            Some((8192, WindowSource::ModelList))
        );
        assert_eq!(
            windows.for_model("x@k=v", false),
            Some((4096, WindowSource::Props))
        );
        assert_eq!(
            ContextWindows::read(None, Some("<html>"), None).for_model("a", true),
            None
        );
        let chat = plan("http://127.0.0.1:8080/v1", Protocol::OpenAiChat);
        assert_eq!(
            props_url(&chat.endpoint, "sim-fast@context_tokens=4096"),
            "http://127.0.0.1:8080/props?model=sim-fast%40context_tokens%3D4096"
        );
    }
}
