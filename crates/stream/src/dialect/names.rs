//! The wire dialects and their names (a leaf module).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// A wire dialect. The names are those of the fixtures' EXPECTED.json `dialect` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Dialect {
    /// OpenAI Chat Completions and compatible servers; reasoning only from side-channel fields
    /// (`reasoning_content`, `reasoning`, `reasoning_details`) and `thinking` content parts;
    /// `content` is never tag-stripped.
    #[serde(rename = "chat")]
    Chat,
    /// Chat with inline `<think>…</think>` in `content` (no server-side reasoning parser).
    #[serde(rename = "chat+think")]
    ChatThink,
    /// Chat whose output starts inside the think block: the chat template put `<think>` in the
    /// prompt, so only `</think>` arrives (§3.10 case 3). Given explicitly, content is
    /// reasoning from the first token; auto-detection finds it only when the `</think>` comes.
    #[serde(rename = "chat+think_missing_open")]
    ChatThinkMissingOpen,
    /// Chat with Gemini's `<thought>…</thought>` in `content` (§3.8).
    #[serde(rename = "chat+gemini_thought")]
    ChatGeminiThought,
    /// Anthropic Messages (§6).
    #[serde(rename = "anthropic")]
    Anthropic,
    /// OpenAI Responses (§5).
    #[serde(rename = "responses")]
    Responses,
}

impl Dialect {
    /// Every dialect, in documentation order.
    pub const ALL: [Dialect; 6] = [
        Dialect::Chat,
        Dialect::ChatThink,
        Dialect::ChatThinkMissingOpen,
        Dialect::ChatGeminiThought,
        Dialect::Anthropic,
        Dialect::Responses,
    ];

    /// The dialect's name, as in EXPECTED.json and on the `ttft-parse` command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Dialect::Chat => "chat",
            Dialect::ChatThink => "chat+think",
            Dialect::ChatThinkMissingOpen => "chat+think_missing_open",
            Dialect::ChatGeminiThought => "chat+gemini_thought",
            Dialect::Anthropic => "anthropic",
            Dialect::Responses => "responses",
        }
    }

    /// Whether this is one of the Chat Completions dialects.
    pub fn is_chat(self) -> bool {
        !matches!(self, Dialect::Anthropic | Dialect::Responses)
    }
}

impl fmt::Display for Dialect {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(self.as_str())
    }
}

/// A dialect name that is none of [`Dialect::ALL`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown dialect \"{0}\": use one of chat, chat+think, chat+think_missing_open, \
     chat+gemini_thought, anthropic, responses (or auto)"
)]
pub struct UnknownDialect(pub String);

impl FromStr for Dialect {
    type Err = UnknownDialect;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        Dialect::ALL
            .into_iter()
            .find(|dialect| dialect.as_str() == name)
            .ok_or_else(|| UnknownDialect(name.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_match_serde() {
        for dialect in Dialect::ALL {
            assert_eq!(dialect.as_str().parse::<Dialect>(), Ok(dialect));
            assert_eq!(
                serde_json::to_value(dialect).ok(),
                Some(serde_json::Value::String(dialect.as_str().to_owned()))
            );
        }
        assert_eq!(
            "auto".parse::<Dialect>(),
            Err(UnknownDialect("auto".to_owned()))
        );
    }
}
