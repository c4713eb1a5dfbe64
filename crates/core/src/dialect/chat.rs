//! OpenAI Chat Completions and compatible servers (stream-formats.md §2, §3).

use std::borrow::Cow;

use serde_json::{json, Value};

use super::decoder::{EventInput, Totals};
use super::json::{chat_usage, present, str_at};
use super::think::{Split, TagSplitter, THINK, THOUGHT};
use super::{DecodedEvent, Dialect, StreamError};

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
    /// `None` auto-detects inline tags.
    pub(crate) fn new(dialect: Option<Dialect>) -> Self {
        let splitter = match dialect {
            None => TagSplitter::new(&[THINK, THOUGHT]),
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
        let mut split = Split::default();
        if input.data.starts_with("[DONE]") {
            out.terminal = true;
            self.splitter.flush(&mut split);
        } else if let Some(json) = input.json {
            // Chat usage: keep the last non-null object, never sum (§8).
            if let Some(usage) = present(json, "usage").filter(|usage| usage.is_object()) {
                totals.usage = Some(chat_usage(usage));
                out.usage_updated = true;
            }
            let choices = json
                .get("choices")
                .and_then(Value::as_array)
                .map(Vec::as_slice);
            let first_choice =
                choices
                    .unwrap_or_default()
                    .iter()
                    .enumerate()
                    .find(|(position, choice)| {
                        choice
                            .get("index")
                            .and_then(Value::as_u64)
                            .unwrap_or(*position as u64)
                            == 0
                    });
            if let Some((_, choice)) = first_choice {
                self.decode_choice(choice, out, &mut split);
            }
        }
        if !split.reasoning.is_empty() || !split.answer.is_empty() || self.splitter.undecided() {
            self.last_content_index = Some(out.index);
        }
        out.reasoning.push_str(&split.reasoning);
        out.answer.push_str(&split.answer);
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

    fn decode_choice(&mut self, choice: &Value, out: &mut DecodedEvent, split: &mut Split) {
        if let Some(delta) = present(choice, "delta") {
            let reasoning = delta_reasoning(delta);
            if !reasoning.is_empty() {
                self.reasoning_from_side_channel(&reasoning, split);
            }
            match present(delta, "content") {
                Some(Value::String(text)) => self.splitter.push(text, split),
                Some(Value::Array(parts)) => self.decode_parts(parts, split),
                _ => {}
            }
        }
        if let Some(reason) = str_at(choice, "finish_reason") {
            out.finish_reason = Some(reason.to_owned());
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
    fn decode_parts(&mut self, parts: &[Value], split: &mut Split) {
        for part in parts {
            match str_at(part, "type") {
                Some("thinking") => {
                    let text = match present(part, "thinking") {
                        Some(Value::String(text)) => Cow::Borrowed(text.as_str()),
                        Some(Value::Array(inner)) => Cow::Owned(
                            inner
                                .iter()
                                .filter_map(|item| item.as_str().or_else(|| str_at(item, "text")))
                                .collect(),
                        ),
                        _ => Cow::Borrowed(""),
                    };
                    if !text.is_empty() {
                        self.reasoning_from_side_channel(&text, split);
                    }
                }
                Some("text") | None => {
                    if let Some(text) = str_at(part, "text") {
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
fn delta_reasoning(delta: &Value) -> Cow<'_, str> {
    for key in ["reasoning_content", "reasoning"] {
        if let Some(text) = str_at(delta, key).filter(|text| !text.is_empty()) {
            return Cow::Borrowed(text);
        }
    }
    let details = delta
        .get("reasoning_details")
        .and_then(Value::as_array)
        .map(Vec::as_slice);
    // `reasoning.text` items carry `text`, `reasoning.summary` items `summary`;
    // `reasoning.encrypted` carries no readable text.
    Cow::Owned(
        details
            .unwrap_or_default()
            .iter()
            .filter_map(|detail| str_at(detail, "text").or_else(|| str_at(detail, "summary")))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_reasoning_source_per_delta() {
        let delta = json!({"reasoning": "a", "reasoning_content": "a", "reasoning_details": [{"type": "reasoning.text", "text": "a"}]});
        assert_eq!(delta_reasoning(&delta), "a");
        let delta = json!({"reasoning_content": "", "reasoning": "b"});
        assert_eq!(delta_reasoning(&delta), "b");
        let delta = json!({"reasoning_content": null, "reasoning_details": [{"type": "reasoning.summary", "summary": "s"}, {"type": "reasoning.encrypted", "data": "x"}]});
        assert_eq!(delta_reasoning(&delta), "s");
        assert_eq!(delta_reasoning(&json!({"content": "x"})), "");
    }
}
