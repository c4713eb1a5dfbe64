//! Provider dialects: turn SSE events into reasoning text, answer text, usage, finish,
//! error and terminal signals.
//!
//! [`Decoder`] decodes one [`SseEvent`](crate::sse::SseEvent) at a time into a
//! [`DecodedEvent`]; [`StreamReader`] owns an [`SseParser`](crate::sse::SseParser) and a
//! [`Decoder`] and is what the app calls on each network read. Wire formats are described in
//! docs/stream-formats.md; the section numbers below refer to it.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

mod anthropic;
mod chat;
mod decoder;
mod json;
mod reader;
mod responses;
mod think;

pub use decoder::Decoder;
pub use reader::{Outcome, StreamReader, StreamSummary};

/// What one dispatched SSE event contributed, as a dialect decoded it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DecodedEvent {
    /// 0-based index of the dispatched SSE event in the stream (every event counts).
    pub index: usize,
    /// Reasoning text this event added (empty when none).
    pub reasoning: String,
    /// Answer text this event added (empty when none).
    pub answer: String,
    /// Finish or stop reason, when this event carried one.
    pub finish_reason: Option<String>,
    /// An error reported inside the stream (after HTTP 200).
    pub error: Option<StreamError>,
    /// This event is the protocol's terminal marker (`[DONE]`, `message_stop`,
    /// `response.completed|incomplete|failed`).
    pub terminal: bool,
    /// This event carried usage (the decoder's merged usage changed).
    pub usage_updated: bool,
}

impl DecodedEvent {
    /// The event added reasoning text that is not only whitespace.
    pub fn has_visible_reasoning(&self) -> bool {
        has_visible_text(&self.reasoning)
    }

    /// The event added answer text that is not only whitespace.
    pub fn has_visible_answer(&self) -> bool {
        has_visible_text(&self.answer)
    }
}

/// "Visible" text has at least one non-whitespace character (Unicode `White_Space`).
pub(crate) fn has_visible_text(text: &str) -> bool {
    text.chars().any(|character| !character.is_whitespace())
}

/// An error reported inside an HTTP 200 stream, in any provider's shape.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct StreamError {
    /// The provider's error type or code (`server_error`, `overloaded_error`, `ERR_SOMETHING`).
    pub kind: Option<String>,
    /// The provider's message.
    pub message: String,
    /// The error object exactly as the provider sent it.
    pub raw: serde_json::Value,
}

/// Token usage, normalized across providers, with the provider's object kept as sent.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Usage {
    /// All input tokens, cached ones included (Anthropic: input + cache read + cache creation).
    pub prompt_tokens: Option<u64>,
    /// Input tokens read from the provider's prompt cache (a subset of `prompt_tokens`).
    pub cached_prompt_tokens: Option<u64>,
    /// Input tokens written to the cache (Anthropic `cache_creation_input_tokens`).
    pub cache_creation_tokens: Option<u64>,
    /// Output tokens (reasoning included where the provider counts it there).
    pub output_tokens: Option<u64>,
    /// Reasoning tokens, when reported.
    pub reasoning_tokens: Option<u64>,
    /// The usage object as the client should report it (last non-null value, or Anthropic's
    /// key-by-key merge), exactly as in the fixtures' EXPECTED.json.
    pub raw: serde_json::Value,
}

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
    /// prompt, so only `</think>` arrives (§3.10 case 3).
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
