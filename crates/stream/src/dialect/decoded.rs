//! What decoding produces: per-event contributions, provider errors and usage, and the
//! totals merged across a stream. A leaf module: the decoder and every dialect import it.

use serde::{Deserialize, Serialize};

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
    /// Set when this event revealed that the answer text of *earlier* events was reasoning:
    /// auto-detection met a `</think>` whose opening tag never came (the chat template put it
    /// in the prompt, as DeepSeek-R1-style servers without a reasoning parser do). Holds that
    /// earlier text, now reasoning (without the tag); `reasoning` and `answer` still hold only
    /// what this event added (the text before and after the tag).
    ///
    /// A consumer moves what it recorded for the answer so far to the reasoning: the text
    /// shown (the answer pane's text becomes this), the first-answer instant (it becomes the
    /// first-reasoning one: ttft-core's `RunTimeline` does it) and the
    /// answer's paint (measured again on the first answer text that follows).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub earlier_answer_was_reasoning: Option<String>,
}

impl DecodedEvent {
    /// The event added reasoning text that is not only whitespace.
    pub fn has_visible_reasoning(&self) -> bool {
        has_visible_text(&self.reasoning)
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

/// What the stream has said so far, merged across events.
#[derive(Debug, Clone, Default)]
pub(crate) struct Totals {
    pub(crate) usage: Option<Usage>,
    pub(crate) server_account: Option<super::account::ServerAccount>,
    pub(crate) finish_reason: Option<String>,
    pub(crate) error: Option<StreamError>,
    pub(crate) terminal_marker_seen: bool,
}
