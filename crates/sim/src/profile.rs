//! Model profiles: the timing and output parameters of one simulated model, the built-in
//! set, and overrides (`key=value`) from the config file, `--set` and the model-name suffix.

use std::collections::BTreeMap;
use std::fmt;

use crate::fault::Fault;

/// How a chat-completions stream carries reasoning text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReasoningStyle {
    /// `delta.reasoning_content` (DeepSeek, SGLang, llama.cpp, older vLLM).
    ReasoningContent,
    /// `delta.reasoning` (vLLM after the rename, Ollama).
    Reasoning,
    /// Inline `<think>…</think>` inside `delta.content` (servers without a reasoning parser).
    Think,
    /// Reasoning as plain `delta.content`, then `</think>`, then the answer: no opening tag
    /// (DeepSeek-R1 whose chat template opens `<think>` in the prompt, served without a
    /// reasoning parser).
    ThinkNoOpen,
    /// Reasoning takes time but is not streamed (OpenAI o-series on Chat Completions); only
    /// `completion_tokens_details.reasoning_tokens` tells. Anthropic and Responses streams
    /// then omit the thinking text too.
    None,
}

impl ReasoningStyle {
    /// The name used in config files and suffixes.
    pub fn name(self) -> &'static str {
        match self {
            Self::ReasoningContent => "reasoning_content",
            Self::Reasoning => "reasoning",
            Self::Think => "think",
            Self::ThinkNoOpen => "think_no_open",
            Self::None => "none",
        }
    }

    fn parse(value: &str) -> Option<Self> {
        match value {
            "reasoning_content" => Some(Self::ReasoningContent),
            "reasoning" => Some(Self::Reasoning),
            "think" => Some(Self::Think),
            "think_no_open" => Some(Self::ThinkNoOpen),
            "none" => Some(Self::None),
            _ => None,
        }
    }
}

/// Whose wording and rule a context overflow follows on the OpenAI-style routes (the
/// Anthropic route always answers as Anthropic does).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OverflowStyle {
    /// api.openai.com: prompt + max_tokens > window, 400 `context_length_exceeded`.
    OpenAi,
    /// vLLM: prompt + max_tokens > max_model_len, 400 `BadRequestError`.
    Vllm,
    /// llama.cpp server: prompt >= n_ctx, 400 `exceed_context_size_error`.
    LlamaCpp,
}

impl OverflowStyle {
    /// The name used in config files and suffixes.
    pub fn name(self) -> &'static str {
        match self {
            Self::OpenAi => "openai",
            Self::Vllm => "vllm",
            Self::LlamaCpp => "llamacpp",
        }
    }

    fn parse(value: &str) -> Option<Self> {
        match value {
            "openai" => Some(Self::OpenAi),
            "vllm" => Some(Self::Vllm),
            "llamacpp" | "llama.cpp" => Some(Self::LlamaCpp),
            _ => None,
        }
    }
}

/// The ways a server or gateway reports its own time (docs/stream-formats.md §12), any
/// combination of them: `server_account=groq`, `server_account=server_timing+litellm`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AccountStyles {
    /// llama.cpp's server: `timings` on the final chunk (chat streams).
    pub llamacpp: bool,
    /// Groq: `x_groq.usage` on the final chunk (chat streams; seconds).
    pub groq: bool,
    /// SambaNova: `time_to_first_token` and `total_latency` in the usage chunk (chat
    /// streams; seconds; the usage chunk is sent whether asked for or not).
    pub sambanova: bool,
    /// A `Server-Timing` header (`gateway`, `queue`, `prefill`), exposed to pages.
    pub server_timing: bool,
    /// LiteLLM's `x-litellm-overhead-duration-ms` header (the `gateway_ms`), exposed.
    pub litellm: bool,
    /// vLLM with `--enable-per-request-metrics`: `metrics` on the usage chunk (ms; sent only
    /// with `include_usage`, as vLLM does).
    pub vllm: bool,
    /// NVIDIA NIM with `NIM_PER_REQ_METRICS_ENABLE=1`: `stats` on the usage chunk (ms).
    pub nim: bool,
    /// Cerebras: `time_info` on the finish chunk (seconds).
    pub cerebras: bool,
    /// Fireworks with `perf_metrics_in_response`: `perf_metrics` on the finish chunk
    /// (seconds).
    pub fireworks: bool,
    /// LocalAI with the header `Extra-Usage`: `timing_prompt_processing` and
    /// `timing_token_generation` in usage (ms).
    pub localai: bool,
}

impl AccountStyles {
    const NAMES: &'static str =
        "none, or any of llamacpp, groq, sambanova, server_timing, litellm, vllm, nim, cerebras, fireworks, localai joined by +";

    fn parse(value: &str) -> Option<Self> {
        let mut styles = Self::default();
        if value == "none" || value.is_empty() {
            return Some(styles);
        }
        for name in value.split('+') {
            match name.trim() {
                "llamacpp" | "llama.cpp" => styles.llamacpp = true,
                "groq" => styles.groq = true,
                "sambanova" => styles.sambanova = true,
                "server_timing" => styles.server_timing = true,
                "litellm" => styles.litellm = true,
                "vllm" => styles.vllm = true,
                "nim" => styles.nim = true,
                "cerebras" => styles.cerebras = true,
                "fireworks" => styles.fireworks = true,
                "localai" => styles.localai = true,
                _ => return None,
            }
        }
        Some(styles)
    }

    /// The value as written in config files and suffixes.
    pub fn name(self) -> String {
        let names: Vec<&str> = [
            (self.llamacpp, "llamacpp"),
            (self.groq, "groq"),
            (self.sambanova, "sambanova"),
            (self.server_timing, "server_timing"),
            (self.litellm, "litellm"),
            (self.vllm, "vllm"),
            (self.nim, "nim"),
            (self.cerebras, "cerebras"),
            (self.fireworks, "fireworks"),
            (self.localai, "localai"),
        ]
        .into_iter()
        .filter_map(|(on, name)| on.then_some(name))
        .collect();
        if names.is_empty() {
            "none".to_owned()
        } else {
            names.join("+")
        }
    }
}

/// Every parameter of a simulated model. Field names are the keys of overrides.
#[derive(Clone, Debug, PartialEq)]
pub struct Profile {
    /// Fixed prefill cost, ms.
    pub base_ms: f64,
    /// Linear prefill cost, ms per uncached prompt token.
    pub a_ms_per_token: f64,
    /// Quadratic prefill cost, ms per uncached prompt token squared.
    pub b_ms_per_token2: f64,
    /// When set, prefill takes exactly this many ms whatever the prompt (formula ignored).
    pub prefill_ms: Option<f64>,
    /// Inter-token latency of decode, ms (reasoning and answer tokens alike).
    pub itl_ms: f64,
    /// A scripted queue, ms: every request waits this long before its prefill, on top of any
    /// wait for a free slot (`--slots`).
    pub queue_ms: f64,
    /// A gateway's own time, ms: spent before the queue, as a proxy in front of the model
    /// server would (reported by the `litellm` and `server_timing` accounts).
    pub gateway_ms: f64,
    /// How the server reports its own time ([`AccountStyles`]).
    pub server_account: AccountStyles,
    /// Reasoning tokens generated before the answer.
    pub reasoning_tokens: u32,
    /// Answer tokens generated (before any `max_tokens` cap).
    pub answer_tokens: u32,
    /// A paragraph break (`\n\n`) before every this-many-th answer token; 0 = one line.
    pub paragraph_tokens: u32,
    /// How chat streams carry the reasoning.
    pub reasoning_style: ReasoningStyle,
    /// Send the role-only chunk (or `message_start` / `response.created`) on arrival,
    /// before queue and prefill, instead of just before the first token.
    pub early_role: bool,
    /// Hold the response headers until the first body frame is due, and send them with it,
    /// as nginx before 1.23 does over HTTP/2 (docs/engines.md).
    pub hold_headers: bool,
    /// Interval of `: keep-alive` comments while queued and prefilling, ms; 0 = none.
    pub keepalive_ms: f64,
    /// Extra prefill per requested `max_tokens`, ms per token (reservation cost); 0 = none.
    pub reserve_ms_per_max_token: f64,
    /// Visible tokens sent before a `midstream`, `drop` or `malformed` fault strikes.
    pub fault_after_tokens: u32,
    /// `Retry-After` of the `429` fault, seconds.
    pub retry_after_s: u32,
    /// Chat streams carry usage when `stream_options.include_usage` asks (false: never,
    /// like llama-cpp-python; non-streamed answers keep their usage).
    pub stream_usage: bool,
    /// Context window, tokens: exposed in `/v1/models`, `/props` and `/tokenize`, and
    /// enforced with a context-overflow 400.
    pub context_tokens: u32,
    /// Wording and rule of a context overflow on the OpenAI-style routes.
    pub overflow_style: OverflowStyle,
    /// Length of the `huge_line` fault's line, bytes.
    pub huge_line_bytes: u64,
    /// Target of the `redirect` fault (an origin, or a full URL); unset: the server's.
    pub redirect_to: Option<String>,
    /// Length of the `long_content_type` fault's `Content-Type` value, bytes.
    pub content_type_bytes: u32,
    /// Answer events of the `flood_chars` fault (one character each).
    pub flood_events: u64,
    /// Newlines the `flood_lines` fault sends before its word.
    pub flood_newlines: u64,
    /// Length of the `flood_lines` fault's word, bytes.
    pub flood_word_bytes: u64,
}

impl Default for Profile {
    fn default() -> Self {
        Self {
            base_ms: 100.0,
            a_ms_per_token: 0.1,
            b_ms_per_token2: 0.0,
            prefill_ms: None,
            itl_ms: 20.0,
            queue_ms: 0.0,
            gateway_ms: 0.0,
            server_account: AccountStyles::default(),
            reasoning_tokens: 0,
            answer_tokens: 40,
            paragraph_tokens: 0,
            reasoning_style: ReasoningStyle::None,
            early_role: false,
            hold_headers: false,
            keepalive_ms: 0.0,
            reserve_ms_per_max_token: 0.0,
            fault_after_tokens: 3,
            retry_after_s: 2,
            stream_usage: true,
            context_tokens: DEFAULT_CONTEXT_TOKENS,
            overflow_style: OverflowStyle::OpenAi,
            huge_line_bytes: crate::fault::DEFAULT_HUGE_LINE_BYTES,
            redirect_to: None,
            content_type_bytes: crate::fault::DEFAULT_CONTENT_TYPE_BYTES,
            flood_events: crate::fault::DEFAULT_FLOOD_EVENTS,
            flood_newlines: crate::fault::DEFAULT_FLOOD_NEWLINES,
            flood_word_bytes: crate::fault::DEFAULT_FLOOD_WORD_BYTES,
        }
    }
}

/// The override keys, in documentation order (`fault` is handled by the suffix parser).
pub const PROFILE_KEYS: &[&str] = &[
    "base_ms",
    "a_ms_per_token",
    "b_ms_per_token2",
    "prefill_ms",
    "itl_ms",
    "queue_ms",
    "gateway_ms",
    "server_account",
    "reasoning_tokens",
    "answer_tokens",
    "paragraph_tokens",
    "reasoning_style",
    "early_role",
    "hold_headers",
    "keepalive_ms",
    "reserve_ms_per_max_token",
    "fault_after_tokens",
    "retry_after_s",
    "stream_usage",
    "context_tokens",
    "overflow_style",
    "huge_line_bytes",
    "redirect_to",
    "content_type_bytes",
    "flood_events",
    "flood_newlines",
    "flood_word_bytes",
];

/// Context window of every profile unless set, tokens (large, so nothing overflows unless
/// a test asks).
pub const DEFAULT_CONTEXT_TOKENS: u32 = 32_768;

/// Upper bound of `context_tokens`.
pub const MAX_CONTEXT_TOKENS: u32 = 100_000_000;

/// Upper bound of `huge_line_bytes` (16 GiB).
pub const MAX_HUGE_LINE_BYTES: u64 = 16 * 1024 * 1024 * 1024;

/// Lower bound of `content_type_bytes`: the length of
/// [`LONG_CONTENT_TYPE_PREFIX`](crate::fault::LONG_CONTENT_TYPE_PREFIX).
pub const MIN_CONTENT_TYPE_BYTES: u32 = crate::fault::LONG_CONTENT_TYPE_PREFIX.len() as u32;

/// A rejected override or model name.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ProfileError {
    /// The key is not a profile field.
    #[error("unknown option `{key}`; known options: {known}, fault", known = PROFILE_KEYS.join(", "))]
    UnknownKey {
        /// The key as written.
        key: String,
    },
    /// The value does not parse for this key.
    #[error("option `{key}` got `{value}`, expected {expected}")]
    BadValue {
        /// The key.
        key: String,
        /// The value as written.
        value: String,
        /// What was expected.
        expected: &'static str,
    },
    /// `key=value` without `=`.
    #[error("option `{0}` is not of the form key=value")]
    NotKeyValue(String),
    /// The base model name is not a profile.
    #[error("model `{0}` does not exist")]
    UnknownModel(String),
    /// `fault=` named no known fault.
    #[error("unknown fault `{0}`; known faults: {known}", known = Fault::names().collect::<Vec<_>>().join(", "))]
    UnknownFault(String),
}

/// Upper bound of time values (ms, ms per token...), so sums stay finite.
pub const MAX_MS: f64 = 10_000_000.0;

fn parse_ms(key: &str, value: &str) -> Result<f64, ProfileError> {
    match value.parse::<f64>() {
        Ok(v) if (0.0..=MAX_MS).contains(&v) => Ok(v),
        _ => Err(ProfileError::BadValue {
            key: key.into(),
            value: value.into(),
            expected: "a number from 0 to 10000000",
        }),
    }
}

/// Upper bound of token counts, so a typo cannot make the server plan a billion tokens.
pub const MAX_COUNT: u32 = 1_000_000;

fn parse_count(key: &str, value: &str) -> Result<u32, ProfileError> {
    match value.parse::<u32>() {
        Ok(count) if count <= MAX_COUNT => Ok(count),
        _ => Err(ProfileError::BadValue {
            key: key.into(),
            value: value.into(),
            expected: "a whole number from 0 to 1000000",
        }),
    }
}

fn parse_bounded<T: std::str::FromStr + PartialOrd>(
    key: &str,
    value: &str,
    range: std::ops::RangeInclusive<T>,
    expected: &'static str,
) -> Result<T, ProfileError> {
    match value.parse::<T>() {
        Ok(parsed) if range.contains(&parsed) => Ok(parsed),
        _ => Err(ProfileError::BadValue {
            key: key.into(),
            value: value.into(),
            expected,
        }),
    }
}

fn parse_bool(key: &str, value: &str) -> Result<bool, ProfileError> {
    match value {
        "1" | "true" | "yes" | "on" => Ok(true),
        "0" | "false" | "no" | "off" => Ok(false),
        _ => Err(ProfileError::BadValue {
            key: key.into(),
            value: value.into(),
            expected: "1/0/true/false",
        }),
    }
}

impl Profile {
    /// Sets one field from its textual value.
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), ProfileError> {
        let value = value.trim();
        match key {
            "base_ms" => self.base_ms = parse_ms(key, value)?,
            "a_ms_per_token" => self.a_ms_per_token = parse_ms(key, value)?,
            "b_ms_per_token2" => self.b_ms_per_token2 = parse_ms(key, value)?,
            "prefill_ms" => {
                self.prefill_ms = match value {
                    "" | "none" | "formula" => None,
                    _ => Some(parse_ms(key, value)?),
                }
            }
            "itl_ms" => self.itl_ms = parse_ms(key, value)?,
            "queue_ms" => self.queue_ms = parse_ms(key, value)?,
            "gateway_ms" => self.gateway_ms = parse_ms(key, value)?,
            "server_account" => {
                self.server_account =
                    AccountStyles::parse(value).ok_or_else(|| ProfileError::BadValue {
                        key: key.into(),
                        value: value.into(),
                        expected: AccountStyles::NAMES,
                    })?
            }
            "reasoning_tokens" => self.reasoning_tokens = parse_count(key, value)?,
            "answer_tokens" => self.answer_tokens = parse_count(key, value)?,
            "paragraph_tokens" => self.paragraph_tokens = parse_count(key, value)?,
            "reasoning_style" => {
                self.reasoning_style =
                    ReasoningStyle::parse(value).ok_or_else(|| ProfileError::BadValue {
                        key: key.into(),
                        value: value.into(),
                        expected: "reasoning_content, reasoning, think, think_no_open or none",
                    })?
            }
            "early_role" => self.early_role = parse_bool(key, value)?,
            "hold_headers" => self.hold_headers = parse_bool(key, value)?,
            "keepalive_ms" => self.keepalive_ms = parse_ms(key, value)?,
            "reserve_ms_per_max_token" => self.reserve_ms_per_max_token = parse_ms(key, value)?,
            "fault_after_tokens" => self.fault_after_tokens = parse_count(key, value)?,
            "retry_after_s" => self.retry_after_s = parse_count(key, value)?,
            "stream_usage" => self.stream_usage = parse_bool(key, value)?,
            "context_tokens" => {
                self.context_tokens = parse_bounded(
                    key,
                    value,
                    1..=MAX_CONTEXT_TOKENS,
                    "a whole number from 1 to 100000000",
                )?
            }
            "overflow_style" => {
                self.overflow_style =
                    OverflowStyle::parse(value).ok_or_else(|| ProfileError::BadValue {
                        key: key.into(),
                        value: value.into(),
                        expected: "openai, vllm or llamacpp",
                    })?
            }
            "huge_line_bytes" => {
                self.huge_line_bytes = parse_bounded(
                    key,
                    value,
                    1..=MAX_HUGE_LINE_BYTES,
                    "a whole number of bytes from 1 to 17179869184",
                )?
            }
            "content_type_bytes" => {
                self.content_type_bytes = parse_bounded(
                    key,
                    value,
                    MIN_CONTENT_TYPE_BYTES..=crate::fault::MAX_CONTENT_TYPE_BYTES,
                    "a whole number of bytes from 20 to 200000",
                )?
            }
            "flood_events" => {
                self.flood_events = parse_bounded(
                    key,
                    value,
                    0..=crate::fault::MAX_FLOOD_EVENTS,
                    "a whole number from 0 to 5000000",
                )?
            }
            "flood_newlines" => {
                self.flood_newlines = parse_bounded(
                    key,
                    value,
                    0..=crate::fault::MAX_FLOOD_NEWLINES,
                    "a whole number from 0 to 10000000",
                )?
            }
            "flood_word_bytes" => {
                self.flood_word_bytes = parse_bounded(
                    key,
                    value,
                    0..=crate::fault::MAX_FLOOD_WORD_BYTES,
                    "a whole number of bytes from 0 to 8388608",
                )?
            }
            "redirect_to" => {
                self.redirect_to = match value {
                    "" | "none" => None,
                    url if url.starts_with("http://") || url.starts_with("https://") => {
                        Some(url.to_string())
                    }
                    _ => {
                        return Err(ProfileError::BadValue {
                            key: key.into(),
                            value: value.into(),
                            expected: "an http:// or https:// URL",
                        })
                    }
                }
            }
            _ => return Err(ProfileError::UnknownKey { key: key.into() }),
        }
        Ok(())
    }

    /// Sets one field from a config-file value (number, bool or string).
    pub fn set_json(&mut self, key: &str, value: &serde_json::Value) -> Result<(), ProfileError> {
        let text = match value {
            serde_json::Value::String(s) => s.clone(),
            serde_json::Value::Null => "none".to_string(),
            other => other.to_string(),
        };
        self.set(key, &text)
    }

    /// Applies a comma-separated `key=value` list (the model-name suffix). `fault=NAME` is
    /// returned rather than stored: it is a property of the request, not of the model.
    fn apply_suffix(&mut self, suffix: &str) -> Result<Option<Fault>, ProfileError> {
        let mut fault = None;
        for pair in suffix.split(',').filter(|p| !p.trim().is_empty()) {
            let (key, value) = pair
                .split_once('=')
                .ok_or_else(|| ProfileError::NotKeyValue(pair.to_string()))?;
            let key = key.trim();
            if key == "fault" {
                fault = Some(
                    Fault::parse(value.trim())
                        .ok_or_else(|| ProfileError::UnknownFault(value.trim().to_string()))?,
                );
            } else {
                self.set(key, value)?;
            }
        }
        Ok(fault)
    }

    /// Whether reasoning text is visible in streams.
    pub fn reasoning_visible(&self) -> bool {
        self.reasoning_tokens > 0 && self.reasoning_style != ReasoningStyle::None
    }
}

impl fmt::Display for Profile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let prefill = match self.prefill_ms {
            Some(ms) => format!("prefill_ms={ms}"),
            None => format!(
                "base_ms={} a_ms_per_token={} b_ms_per_token2={}",
                self.base_ms, self.a_ms_per_token, self.b_ms_per_token2
            ),
        };
        write!(
            f,
            "{prefill} itl_ms={} reasoning_tokens={} answer_tokens={} reasoning_style={} \
             early_role={} keepalive_ms={} stream_usage={} context_tokens={} overflow_style={}",
            self.itl_ms,
            self.reasoning_tokens,
            self.answer_tokens,
            self.reasoning_style.name(),
            u8::from(self.early_role),
            self.keepalive_ms,
            u8::from(self.stream_usage),
            self.context_tokens,
            self.overflow_style.name()
        )
    }
}

/// The set of profiles a server knows, by model name.
#[derive(Clone, Debug, PartialEq)]
pub struct Profiles {
    /// Profiles by name (sorted, so `/v1/models` lists them in a stable order).
    pub by_name: BTreeMap<String, Profile>,
}

/// A model name resolved to its profile, with its suffix applied.
#[derive(Clone, Debug, PartialEq)]
pub struct ResolvedModel {
    /// The base name (before `@`): the prefix-cache namespace.
    pub base_name: String,
    /// The profile after applying the suffix.
    pub profile: Profile,
    /// A fault asked for by `fault=` in the suffix.
    pub fault: Option<Fault>,
}

impl Profiles {
    /// The built-in profiles (numbers documented in `--help`).
    pub fn builtin() -> Self {
        let mut by_name = BTreeMap::new();
        // A small model on a fast GPU: ~20k prompt tokens/s, 66 tokens/s decode.
        by_name.insert(
            "sim-fast".to_string(),
            Profile {
                base_ms: 60.0,
                a_ms_per_token: 0.05,
                b_ms_per_token2: 0.000_001,
                itl_ms: 15.0,
                answer_tokens: 40,
                ..Profile::default()
            },
        );
        // A DeepSeek-style reasoner: 60 reasoning tokens (~1.5 s) before the answer.
        by_name.insert(
            "sim-reasoning".to_string(),
            Profile {
                base_ms: 150.0,
                a_ms_per_token: 0.1,
                b_ms_per_token2: 0.000_002,
                itl_ms: 25.0,
                reasoning_tokens: 60,
                answer_tokens: 40,
                reasoning_style: ReasoningStyle::ReasoningContent,
                ..Profile::default()
            },
        );
        // A distill served without a reasoning parser: reasoning inline in <think> tags.
        by_name.insert(
            "sim-think".to_string(),
            Profile {
                base_ms: 120.0,
                a_ms_per_token: 0.1,
                b_ms_per_token2: 0.000_002,
                itl_ms: 25.0,
                reasoning_tokens: 40,
                answer_tokens: 40,
                reasoning_style: ReasoningStyle::Think,
                ..Profile::default()
            },
        );
        // A large model on a busy server: the quadratic attention term shows beyond ~2k
        // tokens (1k tokens: 300+500+200 = 1000 ms; 4k tokens: 300+2000+3200 = 5500 ms).
        by_name.insert(
            "sim-slow-prefill".to_string(),
            Profile {
                base_ms: 300.0,
                a_ms_per_token: 0.5,
                b_ms_per_token2: 0.000_2,
                itl_ms: 30.0,
                answer_tokens: 40,
                ..Profile::default()
            },
        );
        // Same scale without the quadratic term (1k tokens: 200+500 = 700 ms).
        by_name.insert(
            "sim-linear-prefill".to_string(),
            Profile {
                base_ms: 200.0,
                a_ms_per_token: 0.5,
                b_ms_per_token2: 0.0,
                itl_ms: 30.0,
                answer_tokens: 40,
                ..Profile::default()
            },
        );
        Self { by_name }
    }

    /// Applies `key=value` to every profile (the `--set` flag).
    pub fn set_all(&mut self, key: &str, value: &str) -> Result<(), ProfileError> {
        for profile in self.by_name.values_mut() {
            profile.set(key, value)?;
        }
        Ok(())
    }

    /// Resolves `name[@k=v,...]`.
    pub fn resolve(&self, model: &str) -> Result<ResolvedModel, ProfileError> {
        let (base, suffix) = match model.split_once('@') {
            Some((base, suffix)) => (base, Some(suffix)),
            None => (model, None),
        };
        let mut profile = self
            .by_name
            .get(base)
            .cloned()
            .ok_or_else(|| ProfileError::UnknownModel(model.to_string()))?;
        let fault = match suffix {
            Some(suffix) => profile.apply_suffix(suffix)?,
            None => None,
        };
        Ok(ResolvedModel {
            base_name: base.to_string(),
            profile,
            fault,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suffix_overrides_fields_and_fault() {
        let profiles = Profiles::builtin();
        let resolved = profiles
            .resolve("sim-reasoning@prefill_ms=200,reasoning_tokens=10,itl_ms=50,early_role=1,fault=drop")
            .unwrap();
        assert_eq!(resolved.base_name, "sim-reasoning");
        assert_eq!(resolved.profile.prefill_ms, Some(200.0));
        assert_eq!(resolved.profile.reasoning_tokens, 10);
        assert_eq!(resolved.profile.itl_ms, 50.0);
        assert!(resolved.profile.early_role);
        assert_eq!(resolved.fault, Some(Fault::Drop));
    }

    #[test]
    fn every_key_is_settable() {
        let mut profile = Profile::default();
        for key in PROFILE_KEYS {
            let value = match *key {
                "reasoning_style" => "think",
                "early_role" | "hold_headers" | "stream_usage" => "1",
                "overflow_style" => "vllm",
                "redirect_to" => "http://127.0.0.1:9",
                "server_account" => "groq+server_timing",
                "content_type_bytes" => "20",
                _ => "7",
            };
            profile.set(key, value).unwrap();
        }
        assert_eq!(profile.retry_after_s, 7);
        assert_eq!(profile.queue_ms, 7.0);
        assert_eq!(profile.gateway_ms, 7.0);
        assert_eq!(profile.server_account.name(), "groq+server_timing");
        assert!(profile.set("server_account", "groq+nope").is_err());
        profile.set("server_account", "none").unwrap();
        assert_eq!(profile.server_account, AccountStyles::default());
        assert_eq!(profile.reasoning_style, ReasoningStyle::Think);
        assert_eq!(profile.context_tokens, 7);
        assert_eq!(profile.huge_line_bytes, 7);
        assert_eq!(profile.overflow_style, OverflowStyle::Vllm);
        assert_eq!(profile.redirect_to.as_deref(), Some("http://127.0.0.1:9"));
        assert!(profile.set("redirect_to", "ftp://x").is_err());
        assert!(profile.set("context_tokens", "0").is_err());
        assert!(profile.set("huge_line_bytes", "17179869185").is_err());
        assert_eq!(profile.content_type_bytes, 20);
        assert_eq!(
            (
                profile.flood_events,
                profile.flood_newlines,
                profile.flood_word_bytes
            ),
            (7, 7, 7)
        );
        assert!(profile.set("content_type_bytes", "19").is_err());
        assert!(profile.set("content_type_bytes", "200001").is_err());
        assert!(profile.set("flood_events", "5000001").is_err());
        assert!(profile.set("flood_word_bytes", "8388609").is_err());
    }

    #[test]
    fn errors() {
        let profiles = Profiles::builtin();
        assert!(matches!(
            profiles.resolve("sim-fast@bogus=1"),
            Err(ProfileError::UnknownKey { .. })
        ));
        assert!(matches!(
            profiles.resolve("sim-fast@itl_ms=-3"),
            Err(ProfileError::BadValue { .. })
        ));
        assert!(matches!(
            profiles.resolve("sim-fast@answer_tokens=4000000000"),
            Err(ProfileError::BadValue { .. })
        ));
        assert!(matches!(
            profiles.resolve("sim-fast@itl_ms=1e300"),
            Err(ProfileError::BadValue { .. })
        ));
        assert!(matches!(
            profiles.resolve("sim-fast@itl_ms=NaN"),
            Err(ProfileError::BadValue { .. })
        ));
        assert!(matches!(
            profiles.resolve("sim-fast@itl_ms"),
            Err(ProfileError::NotKeyValue(_))
        ));
        assert!(matches!(
            profiles.resolve("gpt-4o"),
            Err(ProfileError::UnknownModel(_))
        ));
        assert!(matches!(
            profiles.resolve("sim-fast@fault=boom"),
            Err(ProfileError::UnknownFault(_))
        ));
        let message = ProfileError::UnknownKey { key: "x".into() }.to_string();
        assert!(message.contains("itl_ms"), "{message}");
    }
}
