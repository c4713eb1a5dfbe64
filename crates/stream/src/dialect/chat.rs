//! OpenAI Chat Completions and compatible servers (stream-formats.md §2, §3).

use std::mem;

use serde_json::json;

use super::account::ServerAccount;
use super::decoded::{DecodedEvent, StreamError, Totals};
use super::json::chat_usage;
use super::names::Dialect;
use super::think::{Split, TagSplitter, THINK, THOUGHT};
use super::wire::{ChatDelta, Choice, Content, EventInput, Part};

/// Chat state: the tag splitter of choice 0's content.
///
/// Only choice 0 is reported: with `n > 1` the other choices are separate answers to the same
/// prompt, and "first token" is measured on the one a user reads first. Choices are matched by
/// their `index` field (their position when it is missing), never by array position alone,
/// because a chunk may carry any subset of choices.
#[derive(Debug, Clone)]
pub(crate) struct ChatDecoder {
    splitter: TagSplitter,
    auto: bool,
    /// The event whose content is held in the splitter, if any (for [`ChatDecoder::finish`]).
    last_content_index: Option<usize>,
}

impl ChatDecoder {
    /// `None` auto-detects inline tags, and a `</think>` that arrives without its opening tag.
    pub(crate) fn new(dialect: Option<Dialect>) -> Self {
        let splitter = match dialect {
            None => TagSplitter::auto(),
            Some(Dialect::ChatThink) => TagSplitter::new(&[THINK]),
            Some(Dialect::ChatThinkMissingOpen) => TagSplitter::starting_inside(&[THINK]),
            Some(Dialect::ChatGeminiThought) => TagSplitter::new(&[THOUGHT]),
            Some(_) => TagSplitter::plain(),
        };
        Self {
            splitter,
            auto: dialect.is_none(),
            last_content_index: None,
        }
    }

    /// The chat dialect auto-detection settled on.
    pub(crate) fn dialect(&self) -> Dialect {
        if self.splitter.found_close_without_open() {
            return Dialect::ChatThinkMissingOpen;
        }
        match self.splitter.chosen() {
            Some(pair) if pair == THOUGHT => Dialect::ChatGeminiThought,
            Some(_) => Dialect::ChatThink,
            None => Dialect::Chat,
        }
    }

    pub(crate) fn decode(
        &mut self,
        input: &EventInput<'_>,
        out: &mut DecodedEvent,
        totals: &mut Totals,
    ) {
        let mut split = Split {
            reasoning: mem::take(&mut out.reasoning),
            answer: mem::take(&mut out.answer),
            earlier_answer_was_reasoning: None,
        };
        if input.data.starts_with("[DONE]") {
            out.terminal = true;
            self.splitter.flush(&mut split);
        } else if let Some(json) = input.json {
            // Chat usage: keep the last non-null object, never sum (§8).
            if let Some(usage) = json.usage.as_ref().filter(|usage| usage.is_object()) {
                totals.usage = Some(chat_usage(usage));
                out.usage_updated = true;
            }
            // The server's own account of its time (§12): SambaNova's, Groq's and LocalAI's
            // usage fields, llama.cpp's `timings`, Groq's `x_groq.usage`, vLLM's `metrics`,
            // NIM's `stats`, Cerebras' `time_info`, Fireworks' `perf_metrics`.
            let accounts = [
                json.usage.as_ref().and_then(ServerAccount::from_chat_usage),
                json.timings
                    .as_ref()
                    .and_then(ServerAccount::from_llamacpp_timings),
                json.x_groq.as_ref().and_then(ServerAccount::from_groq),
                json.metrics
                    .as_ref()
                    .and_then(ServerAccount::from_vllm_metrics),
                json.stats.as_ref().and_then(ServerAccount::from_nim_stats),
                json.time_info
                    .as_ref()
                    .and_then(ServerAccount::from_cerebras_time_info),
                json.perf_metrics
                    .as_ref()
                    .and_then(ServerAccount::from_fireworks_perf_metrics),
            ];
            for account in accounts.into_iter().flatten() {
                totals
                    .server_account
                    .get_or_insert_with(ServerAccount::default)
                    .merge(account);
            }
            if let Some(choice) = &json.first_choice {
                self.decode_choice(choice, out, &mut split);
            }
        }
        if !split.reasoning.is_empty() || !split.answer.is_empty() || self.splitter.undecided() {
            self.last_content_index = Some(out.index);
        }
        out.reasoning = split.reasoning;
        out.answer = split.answer;
        out.earlier_answer_was_reasoning = split.earlier_answer_was_reasoning;
    }

    pub(crate) fn finish(&mut self) -> Option<DecodedEvent> {
        let mut split = Split::default();
        self.splitter.flush(&mut split);
        if split.reasoning.is_empty() && split.answer.is_empty() {
            return None;
        }
        Some(DecodedEvent {
            index: self.last_content_index.unwrap_or_default(),
            reasoning: split.reasoning,
            answer: split.answer,
            ..DecodedEvent::default()
        })
    }

    fn decode_choice(&mut self, choice: &Choice<'_>, out: &mut DecodedEvent, split: &mut Split) {
        let delta = &choice.delta;
        let reasoning = delta_reasoning(delta);
        if !reasoning.is_empty() {
            self.reasoning_from_side_channel(reasoning, split);
        }
        match &delta.content {
            Content::Text(text) => self.splitter.push(text, split),
            Content::Parts(parts) => self.decode_parts(parts, split),
            Content::Absent => {}
        }
        if let Some(reason) = &choice.finish_reason {
            out.finish_reason = Some(reason.clone().into_owned());
            // The choice is over: nothing can complete a held partial tag any more.
            self.splitter.flush(split);
            if reason == "error" && out.error.is_none() {
                out.error = Some(StreamError {
                    kind: Some("error".to_owned()),
                    message: "the provider ended the choice with finish_reason \"error\""
                        .to_owned(),
                    raw: json!({ "finish_reason": "error" }),
                });
            }
        }
    }

    /// Content as an array of typed parts (Mistral Magistral, §3.9): `thinking` parts hold
    /// reasoning (a list of text parts, or a string), `text` parts hold answer text.
    fn decode_parts(&mut self, parts: &[Part<'_>], split: &mut Split) {
        for part in parts {
            match part.kind.as_deref() {
                Some("thinking") => {
                    let text = part.thinking.as_deref().unwrap_or_default();
                    if !text.is_empty() {
                        self.reasoning_from_side_channel(text, split);
                    }
                }
                Some("text") | None => {
                    if let Some(text) = &part.text {
                        self.splitter.push(text, split);
                    }
                }
                Some(_) => {}
            }
        }
    }

    fn reasoning_from_side_channel(&mut self, text: &str, split: &mut Split) {
        if self.auto {
            // The server separates reasoning itself: its content carries no tags.
            self.splitter.settle_plain(split);
        }
        split.reasoning.push_str(text);
    }
}

/// The reasoning text of one delta: the first non-empty of `reasoning_content`, `reasoning`
/// and the text of `reasoning_details` — servers that send several send the same text in each
/// (§3.2, §3.6), so exactly one is taken. `null` counts as absent.
fn delta_reasoning<'d>(delta: &'d ChatDelta<'_>) -> &'d str {
    let non_empty = |text: Option<&'d str>| text.filter(|text| !text.is_empty());
    non_empty(delta.reasoning_content.as_deref())
        .or_else(|| non_empty(delta.reasoning.as_deref()))
        .or_else(|| non_empty(delta.reasoning_details.as_deref()))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dialect::wire::Envelope;

    fn reasoning_of(delta: &str) -> String {
        let data = format!(r#"{{"choices":[{{"index":0,"delta":{delta}}}]}}"#);
        let envelope = Envelope::parse(&data).unwrap();
        delta_reasoning(&envelope.first_choice.unwrap().delta).to_owned()
    }

    #[test]
    fn one_reasoning_source_per_delta() {
        assert_eq!(
            reasoning_of(
                r#"{"reasoning": "a", "reasoning_content": "a", "reasoning_details": [{"type": "reasoning.text", "text": "a"}]}"#
            ),
            "a"
        );
        assert_eq!(
            reasoning_of(r#"{"reasoning_content": "", "reasoning": "b"}"#),
            "b"
        );
        assert_eq!(
            reasoning_of(
                r#"{"reasoning_content": null, "reasoning_details": [{"type": "reasoning.summary", "summary": "s"}, {"type": "reasoning.encrypted", "data": "x"}]}"#
            ),
            "s"
        );
        assert_eq!(reasoning_of(r#"{"content": "x"}"#), "");
    }
}
