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
            Self::None => "none",
        }
    }

    fn parse(value: &str) -> Option<Self> {
        match value {
            "reasoning_content" => Some(Self::ReasoningContent),
            "reasoning" => Some(Self::Reasoning),
            "think" => Some(Self::Think),
            "none" => Some(Self::None),
            _ => None,
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
    /// Interval of `: keep-alive` comments while queued and prefilling, ms; 0 = none.
    pub keepalive_ms: f64,
    /// Extra prefill per requested `max_tokens`, ms per token (reservation cost); 0 = none.
    pub reserve_ms_per_max_token: f64,
    /// Visible tokens sent before a `midstream`, `drop` or `malformed` fault strikes.
    pub fault_after_tokens: u32,
    /// `Retry-After` of the `429` fault, seconds.
    pub retry_after_s: u32,
}

impl Default for Profile {
    fn default() -> Self {
        Self {
            base_ms: 100.0,
            a_ms_per_token: 0.1,
            b_ms_per_token2: 0.0,
            prefill_ms: None,
            itl_ms: 20.0,
            reasoning_tokens: 0,
            answer_tokens: 40,
            paragraph_tokens: 0,
            reasoning_style: ReasoningStyle::None,
            early_role: false,
            keepalive_ms: 0.0,
            reserve_ms_per_max_token: 0.0,
            fault_after_tokens: 3,
            retry_after_s: 2,
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
    "reasoning_tokens",
    "answer_tokens",
    "paragraph_tokens",
    "reasoning_style",
    "early_role",
    "keepalive_ms",
    "reserve_ms_per_max_token",
    "fault_after_tokens",
    "retry_after_s",
];

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
    #[error("unknown fault `{0}`; known faults: {known}", known = Fault::NAMES.join(", "))]
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
            "reasoning_tokens" => self.reasoning_tokens = parse_count(key, value)?,
            "answer_tokens" => self.answer_tokens = parse_count(key, value)?,
            "paragraph_tokens" => self.paragraph_tokens = parse_count(key, value)?,
            "reasoning_style" => {
                self.reasoning_style =
                    ReasoningStyle::parse(value).ok_or_else(|| ProfileError::BadValue {
                        key: key.into(),
                        value: value.into(),
                        expected: "reasoning_content, reasoning, think or none",
                    })?
            }
            "early_role" => self.early_role = parse_bool(key, value)?,
            "keepalive_ms" => self.keepalive_ms = parse_ms(key, value)?,
            "reserve_ms_per_max_token" => self.reserve_ms_per_max_token = parse_ms(key, value)?,
            "fault_after_tokens" => self.fault_after_tokens = parse_count(key, value)?,
            "retry_after_s" => self.retry_after_s = parse_count(key, value)?,
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
    pub fn apply_suffix(&mut self, suffix: &str) -> Result<Option<Fault>, ProfileError> {
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
             early_role={} keepalive_ms={}",
            self.itl_ms,
            self.reasoning_tokens,
            self.answer_tokens,
            self.reasoning_style.name(),
            u8::from(self.early_role),
            self.keepalive_ms
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
                "early_role" => "1",
                _ => "7",
            };
            profile.set(key, value).unwrap();
        }
        assert_eq!(profile.retry_after_s, 7);
        assert_eq!(profile.reasoning_style, ReasoningStyle::Think);
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
