//! Splits chat `content` into reasoning and answer around inline `<think>…</think>` or
//! `<thought>…</thought>` tags (stream-formats.md §3.8, §3.10), with tags split anywhere
//! across deltas.
//!
//! A possible partial tag at the end of a delta is held back until the next delta decides
//! it, so the held text is reported with the later event (it is at most a few characters).
//!
//! When auto-detecting, a stream may also close a block it never opened (§3.10 case 3: the
//! chat template put `<think>` in the prompt). Its reasoning then arrives as plain content,
//! reported as answer at once (holding it back would delay every answer); when `</think>`
//! comes, the answer so far is handed back as reasoning in
//! [`Split::earlier_answer_was_reasoning`], and what follows the tag is the answer.

use std::mem;

/// An inline reasoning tag pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TagPair {
    pub(crate) open: &'static str,
    pub(crate) close: &'static str,
}

/// `<think>…</think>`: R1 distills, QwQ, Qwen3 served without a reasoning parser.
pub(crate) const THINK: TagPair = TagPair {
    open: "<think>",
    close: "</think>",
};
/// `<thought>…</thought>`: Gemini's OpenAI-compatible endpoint with `include_thoughts`.
pub(crate) const THOUGHT: TagPair = TagPair {
    open: "<thought>",
    close: "</thought>",
};

/// Leading whitespace held while deciding how the content starts, at most: past it the
/// content is taken as having no opening tag (a reasoning model opens its block at once).
const MAX_HELD_WHITESPACE_BYTES: usize = 4096;

/// Plain answer text kept, at most, in case a `</think>` without an opening tag reveals it
/// as reasoning (auto-detection only). Past it the text stays answer and is no longer kept:
/// a reasoning block of more than 1 MiB before its first answer word is not a plausible
/// stream, and the copy would cost memory for every long plain answer.
const MAX_UNOPENED_REASONING_BYTES: usize = 1 << 20;

#[derive(Debug, Clone, PartialEq, Eq)]
enum State {
    /// Nothing decided yet: leading whitespace and a possible partial opening tag are held.
    /// `inside_by_default`: the stream starts inside the block (`chat+think_missing_open`).
    Before { inside_by_default: bool },
    /// Inside the reasoning block; a possible partial closing tag is held.
    Inside,
    /// After the block (or no block at all): everything is answer.
    After,
}

/// Incremental tag splitter for one choice's `content`.
#[derive(Debug, Clone)]
pub(crate) struct TagSplitter {
    /// Tag pairs accepted at the start (one in an explicit dialect, both when auto-detecting).
    candidates: &'static [TagPair],
    /// The pair that opened the block, once known.
    chosen: Option<TagPair>,
    state: State,
    held: String,
    /// Auto-detection: a `</think>` may close a block that was never opened.
    detect_missing_open: bool,
    /// While detecting it, after plain content: the answer reported so far (`None` when
    /// not watching).
    unopened: Option<String>,
    /// A `</think>` closed a block that was never opened.
    closed_without_open: bool,
}

/// Text one delta contributed after splitting.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Split {
    pub(crate) reasoning: String,
    pub(crate) answer: String,
    /// Answer text of earlier deltas that this one revealed to be reasoning (without the
    /// closing tag); see [`crate::dialect::DecodedEvent::earlier_answer_was_reasoning`].
    pub(crate) earlier_answer_was_reasoning: Option<String>,
}

impl TagSplitter {
    /// Looks for an opening tag (after optional whitespace) from `candidates`.
    pub(crate) fn new(candidates: &'static [TagPair]) -> Self {
        Self {
            candidates,
            chosen: None,
            state: State::Before {
                inside_by_default: false,
            },
            held: String::new(),
            detect_missing_open: false,
            unopened: None,
            closed_without_open: false,
        }
    }

    /// Auto-detection: `<think>` or `<thought>` at the start, or a `</think>` whose opening
    /// tag was in the prompt.
    pub(crate) fn auto() -> Self {
        Self {
            detect_missing_open: true,
            ..Self::new(&[THINK, THOUGHT])
        }
    }

    /// Starts inside the block: the template put the opening tag in the prompt. An opening tag
    /// that still arrives before any text is dropped.
    pub(crate) fn starting_inside(pair: &'static [TagPair]) -> Self {
        Self {
            chosen: pair.first().copied(),
            state: State::Before {
                inside_by_default: true,
            },
            ..Self::new(pair)
        }
    }

    /// Plain content: no tags are looked for.
    pub(crate) fn plain() -> Self {
        Self {
            state: State::After,
            ..Self::new(&[])
        }
    }

    /// The pair that opened the reasoning block, if one did.
    pub(crate) fn chosen(&self) -> Option<TagPair> {
        self.chosen
    }

    /// Whether auto-detection found a `</think>` that closed a block never opened.
    pub(crate) fn found_close_without_open(&self) -> bool {
        self.closed_without_open
    }

    /// Whether the splitter is still deciding how the content starts.
    pub(crate) fn undecided(&self) -> bool {
        matches!(self.state, State::Before { .. })
    }

    /// Gives up looking for tags (a reasoning side channel proved the server splits reasoning
    /// itself); held text becomes answer.
    pub(crate) fn settle_plain(&mut self, out: &mut Split) {
        self.unopened = None;
        if let State::Before {
            inside_by_default: false,
        } = self.state
        {
            self.state = State::After;
            out.answer.push_str(&self.held);
            self.held.clear();
        }
    }

    /// Splits the next piece of content.
    pub(crate) fn push(&mut self, text: &str, out: &mut Split) {
        match self.state {
            State::After => self.push_after(text, out),
            State::Before { inside_by_default } => {
                let mut buffer = mem::take(&mut self.held);
                buffer.push_str(text);
                self.push_before(&buffer, inside_by_default, out);
            }
            State::Inside => {
                let mut buffer = mem::take(&mut self.held);
                buffer.push_str(text);
                self.push_inside(&buffer, out);
            }
        }
    }

    /// End of content: whatever is held is what it looked like.
    pub(crate) fn flush(&mut self, out: &mut Split) {
        let held = mem::take(&mut self.held);
        match self.state {
            State::Before {
                inside_by_default: false,
            }
            | State::After => out.answer.push_str(&held),
            State::Before {
                inside_by_default: true,
            }
            | State::Inside => out.reasoning.push_str(&held),
        }
    }

    fn push_before(&mut self, buffer: &str, inside_by_default: bool, out: &mut Split) {
        let trimmed = buffer.trim_start();
        if trimmed.is_empty() && buffer.len() <= MAX_HELD_WHITESPACE_BYTES {
            self.held.push_str(buffer);
            return;
        }
        if let Some(pair) = self
            .candidates
            .iter()
            .find(|pair| trimmed.starts_with(pair.open))
        {
            self.chosen = Some(*pair);
            self.state = State::Inside;
            self.push_inside(&trimmed[pair.open.len()..], out);
            return;
        }
        let closes = self.detect_missing_open && trimmed.starts_with(THINK.close);
        if closes {
            // The block was opened in the prompt and is already over (or only whitespace
            // was thought): the held whitespace is its reasoning, as a known
            // `chat+think_missing_open` stream reads.
            self.chosen = Some(THINK);
            self.closed_without_open = true;
            self.state = State::Inside;
            self.push_inside(buffer, out);
            return;
        }
        let may_become_tag = !trimmed.is_empty()
            && (self
                .candidates
                .iter()
                .any(|pair| pair.open.starts_with(trimmed))
                || (self.detect_missing_open && THINK.close.starts_with(trimmed)));
        if may_become_tag {
            self.held.push_str(buffer);
            return;
        }
        if inside_by_default {
            self.state = State::Inside;
            self.push_inside(buffer, out);
        } else {
            self.state = State::After;
            if self.detect_missing_open {
                self.unopened = Some(String::new());
            }
            self.push_after(buffer, out);
        }
    }

    fn push_inside(&mut self, buffer: &str, out: &mut Split) {
        let close = self.chosen.map_or(THINK.close, |pair| pair.close);
        if let Some(start) = buffer.find(close) {
            out.reasoning.push_str(&buffer[..start]);
            self.state = State::After;
            out.answer.push_str(&buffer[start + close.len()..]);
            return;
        }
        let held_len = partial_suffix_len(buffer, close);
        let (emit, hold) = buffer.split_at(buffer.len() - held_len);
        out.reasoning.push_str(emit);
        self.held.push_str(hold);
    }

    /// After the block, or plain content: answer. While watching for a `</think>` without
    /// an opening tag, the text is kept, and the tag is looked for across deltas.
    fn push_after(&mut self, text: &str, out: &mut Split) {
        let Some(seen) = self.unopened.as_mut() else {
            out.answer.push_str(text);
            return;
        };
        let earlier_len = seen.len();
        seen.push_str(text);
        // Only this delta can complete the tag (earlier deltas were searched already), and
        // the tag ends with '>'. It may have begun in the earlier text, whose last bytes were
        // then reported as answer.
        let tag_start = if text.contains('>') {
            let mut search_from = earlier_len.saturating_sub(THINK.close.len() - 1);
            while !seen.is_char_boundary(search_from) {
                search_from -= 1;
            }
            seen[search_from..]
                .find(THINK.close)
                .map(|offset| search_from + offset)
        } else {
            None
        };
        let Some(tag_start) = tag_start else {
            out.answer.push_str(text);
            if seen.len() > MAX_UNOPENED_REASONING_BYTES {
                self.unopened = None;
            }
            return;
        };
        let tag_end = tag_start + THINK.close.len();
        if tag_start > earlier_len {
            out.reasoning.push_str(&seen[earlier_len..tag_start]);
        }
        out.answer.push_str(&seen[tag_end..]);
        let mut earlier = mem::take(seen);
        self.unopened = None;
        if earlier_len > 0 {
            earlier.truncate(tag_start.min(earlier_len));
            out.earlier_answer_was_reasoning = Some(earlier);
        }
        self.chosen = Some(THINK);
        self.closed_without_open = true;
    }
}

/// Length in bytes of the longest suffix of `text` that is a proper prefix of `tag`.
fn partial_suffix_len(text: &str, tag: &str) -> usize {
    (1..tag.len().min(text.len() + 1))
        .rev()
        .find(|&len| text.is_char_boundary(text.len() - len) && text.ends_with(&tag[..len]))
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split_all(mut splitter: TagSplitter, deltas: &[&str]) -> Vec<Split> {
        let mut splits: Vec<Split> = deltas
            .iter()
            .map(|delta| {
                let mut split = Split::default();
                splitter.push(delta, &mut split);
                split
            })
            .collect();
        let mut last = Split::default();
        splitter.flush(&mut last);
        splits.push(last);
        splits
    }

    fn joined(splits: &[Split]) -> (String, String) {
        (
            splits
                .iter()
                .map(|split| split.reasoning.as_str())
                .collect(),
            splits.iter().map(|split| split.answer.as_str()).collect(),
        )
    }

    #[test]
    fn tags_split_anywhere_give_the_same_texts() {
        let content = "\n <think>\nI think.</think>\n\nAnswer <think> stays.";
        for first in 0..content.len() {
            for second in first..content.len() {
                if !content.is_char_boundary(first) || !content.is_char_boundary(second) {
                    continue;
                }
                let deltas = [
                    &content[..first],
                    &content[first..second],
                    &content[second..],
                ];
                let splits = split_all(TagSplitter::new(&[THINK]), &deltas);
                assert_eq!(
                    joined(&splits),
                    (
                        "\nI think.".to_owned(),
                        "\n\nAnswer <think> stays.".to_owned()
                    ),
                    "{deltas:?}"
                );
            }
        }
    }

    #[test]
    fn partial_tag_is_held_until_decided() {
        let splits = split_all(
            TagSplitter::new(&[THINK]),
            &["<th", "ink>Hm</thi", "nk>Yes"],
        );
        assert_eq!(splits[0], Split::default());
        assert_eq!(
            splits[1],
            Split {
                reasoning: "Hm".into(),
                answer: String::new(),
                ..Split::default()
            }
        );
        assert_eq!(
            splits[2],
            Split {
                reasoning: String::new(),
                answer: "Yes".into(),
                ..Split::default()
            }
        );
    }

    #[test]
    fn content_without_tag_is_answer_including_held_whitespace() {
        let splits = split_all(TagSplitter::new(&[THINK, THOUGHT]), &["\n", "<b>Hi"]);
        assert_eq!(joined(&splits), (String::new(), "\n<b>Hi".to_owned()));
        assert_eq!(splits[1].answer, "\n<b>Hi");
    }

    #[test]
    fn auto_candidates_pick_thought() {
        let mut splitter = TagSplitter::new(&[THINK, THOUGHT]);
        let mut split = Split::default();
        splitter.push("<thought>plan</thought>Go", &mut split);
        assert_eq!(splitter.chosen(), Some(THOUGHT));
        assert_eq!(
            split,
            Split {
                reasoning: "plan".into(),
                answer: "Go".into(),
                ..Split::default()
            }
        );
    }

    #[test]
    fn starting_inside_treats_text_as_reasoning_until_close() {
        let splits = split_all(
            TagSplitter::starting_inside(&[THINK]),
            &["Okay", "</think>", "\n\n4"],
        );
        assert_eq!(joined(&splits), ("Okay".to_owned(), "\n\n4".to_owned()));
        // An opening tag that arrives anyway is dropped.
        let splits = split_all(
            TagSplitter::starting_inside(&[THINK]),
            &["<think>", "Hm</think>A"],
        );
        assert_eq!(joined(&splits), ("Hm".to_owned(), "A".to_owned()));
    }

    #[test]
    fn unclosed_block_is_all_reasoning_and_partial_close_flushes_as_reasoning() {
        let splits = split_all(TagSplitter::new(&[THINK]), &["<think>abc</th"]);
        assert_eq!(joined(&splits), ("abc</th".to_owned(), String::new()));
    }

    #[test]
    fn multibyte_text_before_partial_tag() {
        assert_eq!(partial_suffix_len("é<", "</think>"), 1);
        assert_eq!(partial_suffix_len("é", "</think>"), 0);
        assert_eq!(partial_suffix_len("x</think", "</think>"), 7);
    }
}
