//! Dialect writers: a request's plan and text in, the timed SSE frames (or the JSON
//! completion) out. Pure: time is the plan's ms after arrival.

pub mod chat;
pub mod errors;
pub mod messages;
pub mod responses;

use crate::fault::{Fault, FloodRun};
use crate::profile::{AccountStyles, ReasoningStyle};
use crate::request::Dialect;
use crate::timing::StreamPlan;

/// What a frame does.
#[derive(Clone, Debug, PartialEq)]
pub enum FrameBody {
    /// Bytes written (and flushed) as one write.
    Bytes(String),
    /// The connection is cut (the `drop` fault).
    Abort,
    /// This many filler bytes (`x`), written in chunks as fast as the client reads them,
    /// never held in memory at once (the `huge_line` fault).
    Filler(u64),
    /// Many delta events of one layout, written in batches as fast as the client reads
    /// them, never held in memory at once (the flood faults).
    Deltas(DeltaRun),
}

/// One timed write.
#[derive(Clone, Debug, PartialEq)]
pub struct Frame {
    /// When to send it, ms after the request arrived.
    pub at_ms: f64,
    /// What to send.
    pub body: FrameBody,
    /// Whether it carries visible token text (counted by faults' `fault_after_tokens`).
    pub token: bool,
}

impl Frame {
    fn bytes(at_ms: f64, text: String) -> Self {
        Self {
            at_ms,
            body: FrameBody::Bytes(text),
            token: false,
        }
    }

    fn token(at_ms: f64, text: String) -> Self {
        Self {
            at_ms,
            body: FrameBody::Bytes(text),
            token: true,
        }
    }

    /// The text of a bytes frame.
    pub fn text(&self) -> Option<&str> {
        match &self.body {
            FrameBody::Bytes(text) => Some(text),
            FrameBody::Abort | FrameBody::Filler(_) | FrameBody::Deltas(_) => None,
        }
    }
}

/// Token accounting of one request, reported in each dialect's usage place.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Usage {
    /// All prompt tokens.
    pub prompt_tokens: u32,
    /// Prompt tokens served from the prefix cache (a subset of `prompt_tokens`).
    pub cached_tokens: u32,
    /// Reasoning tokens generated.
    pub reasoning_tokens: u32,
    /// Answer tokens generated.
    pub answer_tokens: u32,
}

impl Usage {
    /// Reasoning + answer.
    pub fn output_tokens(&self) -> u32 {
        self.reasoning_tokens + self.answer_tokens
    }

    /// Prompt tokens not served from cache.
    pub fn uncached_tokens(&self) -> u32 {
        self.prompt_tokens - self.cached_tokens
    }
}

/// Everything a writer needs.
#[derive(Clone, Debug)]
pub struct WriterInput<'a> {
    /// Per-server request number (ids are derived from it).
    pub request_id: u64,
    /// Model name as sent.
    pub model: &'a str,
    /// Unix seconds for `created`.
    pub created_s: u64,
    /// The timing.
    pub plan: &'a StreamPlan,
    /// Chat reasoning field; `None` hides reasoning text in every dialect.
    pub style: ReasoningStyle,
    /// Role chunk / `message_start` / `response.created` on arrival.
    pub early: bool,
    /// Chat streams carry usage (`stream_options.include_usage`, unless the profile's
    /// `stream_usage` is off).
    pub include_usage: bool,
    /// Usage counts are the `bad_usage` fault's hostile numbers (see [`hostile`]).
    pub hostile_usage: bool,
    /// Reasoning token texts (one per `plan.reasoning_at_ms`).
    pub reasoning: &'a [String],
    /// Answer token texts (one per `plan.answer_at_ms`).
    pub answer: &'a [String],
    /// Usage numbers.
    pub usage: Usage,
    /// `max_tokens` cut the output.
    pub truncated: bool,
    /// How the server reports its own time in the stream.
    pub account: Account,
    /// The flood faults' answer events, sent at the first answer time in place of the
    /// answer's deltas (`answer` then holds their whole text); empty: none.
    pub flood: &'a [FloodRun],
}

/// What a stream says of the server's own time ([`AccountStyles`]), from the plan.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Account {
    /// Which styles.
    pub styles: AccountStyles,
    /// The gateway's part of the plan's queue, ms.
    pub gateway_ms: f64,
}

impl WriterInput<'_> {
    fn reasoning_visible(&self) -> bool {
        self.style != ReasoningStyle::None && !self.reasoning.is_empty()
    }

    /// Time the preamble (role chunk, `message_start`, `response.created`) is sent.
    fn preamble_ms(&self) -> f64 {
        if self.early {
            0.0
        } else {
            self.plan.first_token_ms()
        }
    }

    fn keepalives(&self, frames: &mut Vec<Frame>) {
        for at_ms in &self.plan.keepalive_at_ms {
            frames.push(Frame::bytes(*at_ms, ": keep-alive\n\n".to_string()));
        }
    }
}

/// The `bad_usage` fault's token counts, as JSON number literals: one kind of bad number
/// per field, in each dialect's usage place.
pub mod hostile {
    /// Far beyond any count (and beyond f32).
    pub const HUGE: &str = "1e308";
    /// Negative.
    pub const NEGATIVE: &str = "-1";
    /// Not a whole number.
    pub const FRACTION: &str = "2.5";
    /// 2^64 + 1: overflows u64 (and is not exact in f64).
    pub const OVERFLOW: &str = "18446744073709551617";
}

/// An error event sent after HTTP 200, in each dialect's words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StreamError<'a> {
    /// The message (OpenAI chat and Responses).
    pub message: &'a str,
    /// OpenAI `type` (chat).
    pub openai_type: &'a str,
    /// OpenAI `code` (chat: omitted when `None`; Responses: `server_error` when `None`).
    pub code: Option<&'a str>,
    /// Anthropic `error.type`.
    pub anthropic_type: &'a str,
    /// Anthropic `error.message`.
    pub anthropic_message: &'a str,
    /// Keys listed in an extra `seen` field of the error (`echo_past_keys_midstream`).
    pub seen: Option<&'a [String]>,
}

/// OpenAI's mid-stream server error message.
pub const SERVER_ERROR_MESSAGE: &str =
    "The server had an error while processing your request. Sorry about that!";

impl<'a> StreamError<'a> {
    /// The standard server error (Anthropic: `overloaded_error` "Overloaded").
    pub fn server() -> Self {
        Self {
            message: SERVER_ERROR_MESSAGE,
            openai_type: "server_error",
            code: None,
            anthropic_type: "overloaded_error",
            anthropic_message: "Overloaded",
            seen: None,
        }
    }

    /// A server error with this message.
    fn server_with(message: &'a str) -> Self {
        Self {
            message,
            openai_type: "server_error",
            code: None,
            anthropic_type: "api_error",
            anthropic_message: message,
            seen: None,
        }
    }

    /// An authentication error with this message.
    pub fn auth(message: &'a str) -> Self {
        Self {
            message,
            openai_type: "invalid_request_error",
            code: Some("invalid_api_key"),
            anthropic_type: "authentication_error",
            anthropic_message: message,
            seen: None,
        }
    }

    /// The same error listing `keys` in a `seen` field.
    fn with_seen(self, keys: &'a [String]) -> Self {
        Self {
            seen: Some(keys),
            ..self
        }
    }
}

/// A JSON array of strings, its items separated by `separator` (`", "` as Python writes
/// JSON, `","` compact).
pub(crate) fn json_str_array(items: &[String], separator: &str) -> String {
    let items: Vec<String> = items.iter().map(|item| json_str(item)).collect();
    format!("[{}]", items.join(separator))
}

/// What in-stream faults need beyond the stream itself.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FaultDetails {
    /// The request's key headers, echoed by `echo_key_midstream`.
    pub key_echo: String,
    /// Length of the `huge_line` fault's line, bytes.
    pub huge_line_bytes: u64,
    /// The request's key (`key_forms_midstream`).
    pub key: Option<String>,
    /// Every key the process remembers, oldest first (`echo_past_keys_midstream`).
    pub seen_keys: Vec<String>,
}

/// A JSON string literal.
pub(crate) fn json_str(text: &str) -> String {
    serde_json::Value::String(text.to_string()).to_string()
}

/// Stands for the text in a flood's template event (a control character, so never in a
/// real text).
pub(crate) const FLOOD_TEXT_MARK: &str = "\u{1}flood\u{1}";

/// Stands for the sequence number in a flood's template event (Responses): no real
/// number comes near it, and the template's builder may count past it.
pub(crate) const FLOOD_SEQUENCE_MARK: u64 = 987_654_321_987_654_321;

/// Many delta events of one layout, generated as they are written (the flood faults):
/// event `i` is `head`, the JSON string `texts[i % texts.len()]`, `middle`, and, when
/// numbered (Responses), the sequence number `first_sequence + i` and `tail`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeltaRun {
    head: String,
    texts: Vec<String>,
    middle: String,
    first_sequence: Option<u64>,
    tail: String,
    count: u64,
}

impl DeltaRun {
    /// The run of `run`'s texts in the layout of `template`, an event whose text is
    /// [`FLOOD_TEXT_MARK`] (and, when `first_sequence` is set, whose sequence number is
    /// [`FLOOD_SEQUENCE_MARK`]).
    fn new(template: &str, run: &FloodRun, first_sequence: Option<u64>) -> Self {
        let (head, rest) = template
            .split_once(&json_str(FLOOD_TEXT_MARK))
            .unwrap_or((template, ""));
        let (middle, tail) = match first_sequence {
            Some(_) => rest
                .split_once(&FLOOD_SEQUENCE_MARK.to_string())
                .unwrap_or((rest, "")),
            None => (rest, ""),
        };
        Self {
            head: head.to_string(),
            texts: run.texts.iter().map(|text| json_str(text)).collect(),
            middle: middle.to_string(),
            first_sequence,
            tail: tail.to_string(),
            count: run.count,
        }
    }

    /// How many events.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// The length of its longest event, bytes.
    pub fn longest_event_bytes(&self) -> usize {
        let longest_text = self.texts.iter().map(String::len).max().unwrap_or(2);
        let sequence_digits = if self.first_sequence.is_some() { 20 } else { 0 };
        self.head.len() + longest_text + self.middle.len() + sequence_digits + self.tail.len()
    }

    /// Appends events from number `from` to `buffer` until it holds `limit_bytes` or more
    /// or the run is done; returns the number of the next event.
    pub fn write(&self, from: u64, buffer: &mut Vec<u8>, limit_bytes: usize) -> u64 {
        let mut next = from;
        let texts = self.texts.len().max(1) as u64;
        while next < self.count && buffer.len() < limit_bytes {
            buffer.extend_from_slice(self.head.as_bytes());
            let text = self.texts.get((next % texts) as usize);
            buffer.extend_from_slice(text.map_or("\"\"", String::as_str).as_bytes());
            buffer.extend_from_slice(self.middle.as_bytes());
            if let Some(first) = self.first_sequence {
                push_decimal(buffer, first + next);
                buffer.extend_from_slice(self.tail.as_bytes());
            }
            next += 1;
        }
        next
    }
}

/// Appends `number` in decimal.
fn push_decimal(buffer: &mut Vec<u8>, number: u64) {
    let mut digits = [0u8; 20];
    let mut start = digits.len();
    let mut rest = number;
    loop {
        start -= 1;
        digits[start] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    buffer.extend_from_slice(&digits[start..]);
}

/// The frames of a flood at `at_ms`, one per run, in the layout of `template` (see
/// [`DeltaRun`]); Responses numbers the events from `first_sequence` on.
pub(crate) fn flood_frames(
    at_ms: f64,
    template: &str,
    runs: &[FloodRun],
    first_sequence: Option<u64>,
) -> Vec<Frame> {
    let mut sequence = first_sequence;
    runs.iter()
        .map(|run| {
            let deltas = DeltaRun::new(template, run, sequence);
            sequence = sequence.map(|number| number + run.count);
            Frame {
                at_ms,
                body: FrameBody::Deltas(deltas),
                token: true,
            }
        })
        .collect()
}

/// One piece of a `key_split_panes` stream: its text, whether it is reasoning (else
/// answer), and when it is sent.
#[derive(Clone, Debug, PartialEq)]
pub struct Pane {
    /// When, ms after arrival.
    pub at_ms: f64,
    /// A reasoning delta (else an answer delta).
    pub reasoning: bool,
    /// The text.
    pub text: String,
}

/// `pieces` as panes: reasoning first, then alternating, at the plan's token times in
/// order (pieces beyond them at its end).
pub fn panes(plan: &StreamPlan, pieces: &[String]) -> Vec<Pane> {
    let mut times = plan.reasoning_at_ms.iter().chain(&plan.answer_at_ms);
    pieces
        .iter()
        .enumerate()
        .map(|(index, text)| Pane {
            at_ms: times.next().copied().unwrap_or(plan.end_ms),
            reasoning: index % 2 == 0,
            text: text.clone(),
        })
        .collect()
}

/// The `key_split_panes` stream: `pieces` alternating between reasoning deltas (chat:
/// `reasoning_content`; Anthropic: thinking blocks; Responses: reasoning items) and answer
/// deltas (text blocks, message items), then the normal end.
pub fn pane_frames(dialect: Dialect, input: &WriterInput<'_>, pieces: &[String]) -> Vec<Frame> {
    let input = WriterInput {
        style: ReasoningStyle::ReasoningContent,
        ..input.clone()
    };
    let panes = panes(input.plan, pieces);
    match dialect {
        Dialect::Chat => chat::pane_frames(&input, &panes),
        Dialect::Messages => messages::pane_frames(&input, &panes),
        Dialect::Responses => responses::pane_frames(&input, &panes),
    }
}

/// The timed frames of a successful stream.
pub fn stream_frames(dialect: Dialect, input: &WriterInput<'_>) -> Vec<Frame> {
    match dialect {
        Dialect::Chat => chat::frames(input),
        Dialect::Messages => messages::frames(input),
        Dialect::Responses => responses::frames(input),
    }
}

/// The non-streaming JSON body.
pub fn completion_body(dialect: Dialect, input: &WriterInput<'_>) -> String {
    match dialect {
        Dialect::Chat => chat::completion(input),
        Dialect::Messages => messages::completion(input),
        Dialect::Responses => responses::completion(input),
    }
}

/// Minimum time between the last frame and a `drop` fault's cut, ms.
pub const DROP_GRACE_MS: f64 = 20.0;

/// Token frames before `bidi_midstream`'s error: the visible reasoning, the normal answer
/// tokens and its two bidi tokens (see [`crate::fault::bidi_index`]).
fn bidi_cut_tokens(input: &WriterInput<'_>, after_tokens: u32) -> u32 {
    let reasoning = if input.reasoning_visible() {
        input.reasoning.len().min(input.plan.reasoning_at_ms.len())
    } else {
        0
    };
    let answer = input.answer.len().min(input.plan.answer_at_ms.len());
    let bidi_end = (crate::fault::bidi_index(after_tokens, answer) + 2).min(answer);
    u32::try_from(reasoning + bidi_end).unwrap_or(u32::MAX)
}

/// The message of an in-stream fault's error event when the fault writes its own (empty
/// for the others).
fn error_message(fault: Fault, details: &FaultDetails) -> String {
    match fault {
        Fault::XssError => crate::fault::xss_all(),
        Fault::EchoPastKeysMidstream => crate::fault::past_keys_message(&details.seen_keys),
        Fault::KeyFormsMidstream => crate::fault::key_forms_message(details.key.as_deref()),
        Fault::BidiMidstream => crate::fault::bidi_message(),
        _ => String::new(),
    }
}

/// The error event an in-stream fault ends with, if it ends with one (`message`: its
/// [`error_message`]).
fn stream_error<'a>(
    fault: Fault,
    details: &'a FaultDetails,
    message: &'a str,
) -> Option<StreamError<'a>> {
    match fault {
        Fault::Midstream => Some(StreamError::server()),
        Fault::EchoKeyMidstream => Some(StreamError::auth(&details.key_echo)),
        Fault::XssError | Fault::BidiMidstream => Some(StreamError::server_with(message)),
        Fault::EchoPastKeysMidstream => {
            Some(StreamError::auth(message).with_seen(&details.seen_keys))
        }
        Fault::KeyFormsMidstream => Some(StreamError::auth(message)),
        _ => None,
    }
}

/// Rewrites a successful stream for an in-stream fault (`midstream`, `drop`, `malformed`,
/// `echo_key_midstream`, `xss_error`, `huge_line`, `echo_past_keys_midstream`,
/// `bidi_midstream`, `key_forms_midstream`); other faults leave it unchanged. The fault
/// strikes after `after_tokens` token frames (`bidi_midstream`: after its two bidi tokens
/// too), at the time the next token would have come.
pub fn apply_stream_fault(
    dialect: Dialect,
    input: &WriterInput<'_>,
    mut frames: Vec<Frame>,
    fault: Fault,
    after_tokens: u32,
    details: &FaultDetails,
) -> Vec<Frame> {
    let after_tokens = if fault == Fault::BidiMidstream {
        bidi_cut_tokens(input, after_tokens)
    } else {
        after_tokens
    };
    let token_positions: Vec<usize> = frames
        .iter()
        .enumerate()
        .filter(|(_, frame)| frame.token)
        .map(|(index, _)| index)
        .collect();
    let cut = match after_tokens {
        0 => token_positions.first().copied().unwrap_or(frames.len()),
        n => token_positions
            .get(n as usize - 1)
            .or(token_positions.last())
            .map_or(frames.len(), |index| index + 1),
    };
    let next_token_ms = token_positions
        .iter()
        .find(|index| **index >= cut)
        .map(|index| frames[*index].at_ms);
    let previous_ms = cut.checked_sub(1).map_or(0.0, |index| frames[index].at_ms);
    let at_ms = next_token_ms.unwrap_or(previous_ms);
    let message = error_message(fault, details);
    if let Some(error) = stream_error(fault, details, &message) {
        frames.truncate(cut);
        let events_before = frames
            .iter()
            .filter(|frame| frame.text().is_some_and(|t| !t.starts_with(':')))
            .count();
        let text = match dialect {
            Dialect::Chat => chat::error_event(&error),
            Dialect::Messages => messages::error_event(&error),
            Dialect::Responses => responses::error_event(&error, events_before),
        };
        frames.push(Frame::bytes(at_ms, text));
        return frames;
    }
    match fault {
        Fault::Drop => {
            frames.truncate(cut);
            // The cut resets the connection, and a reset makes the client's kernel throw
            // away bytes it has not read yet: leave the client time to read the tokens.
            let at_ms = at_ms.max(previous_ms + DROP_GRACE_MS);
            frames.push(Frame {
                at_ms,
                body: FrameBody::Abort,
                token: false,
            });
            frames
        }
        Fault::HugeLine => {
            frames.truncate(cut);
            let (event_line, data_prefix) = match dialect {
                Dialect::Chat => (String::new(), chat::huge_line_prefix(input)),
                Dialect::Messages => messages::huge_line_prefix(input),
                Dialect::Responses => responses::huge_line_prefix(),
            };
            let filler = details
                .huge_line_bytes
                .saturating_sub(data_prefix.len() as u64);
            frames.push(Frame::bytes(at_ms, format!("{event_line}{data_prefix}")));
            frames.push(Frame {
                at_ms,
                body: FrameBody::Filler(filler),
                token: false,
            });
            frames
        }
        Fault::Malformed => {
            let text = match dialect {
                Dialect::Chat => chat::malformed(input),
                Dialect::Messages => messages::malformed(),
                Dialect::Responses => responses::malformed(),
            };
            frames.insert(cut, Frame::bytes(previous_ms, text));
            frames
        }
        _ => frames,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(answers: usize) -> StreamPlan {
        StreamPlan {
            queue_ms: 0.0,
            prefill_ms: 100.0,
            reasoning_at_ms: vec![],
            answer_at_ms: (0..answers).map(|i| 100.0 + 10.0 * i as f64).collect(),
            keepalive_at_ms: vec![],
            end_ms: 100.0 + 10.0 * (answers.max(1) - 1) as f64,
        }
    }

    fn input<'a>(plan: &'a StreamPlan, answer: &'a [String]) -> WriterInput<'a> {
        WriterInput {
            request_id: 1,
            model: "sim-fast",
            created_s: 5,
            plan,
            style: ReasoningStyle::None,
            early: false,
            include_usage: false,
            hostile_usage: false,
            reasoning: &[],
            answer,
            usage: Usage {
                prompt_tokens: 1,
                cached_tokens: 0,
                reasoning_tokens: 0,
                answer_tokens: answer.len() as u32,
            },
            truncated: false,
            account: Account::default(),
            flood: &[],
        }
    }

    #[test]
    fn chat_chunk_bytes_follow_openai_layout() {
        let plan = plan(1);
        let answer = vec!["Hi".to_string()];
        let frames = stream_frames(Dialect::Chat, &input(&plan, &answer));
        assert_eq!(
            frames[1].text(),
            Some(
                "data: {\"id\":\"chatcmpl-sim000001\",\"object\":\"chat.completion.chunk\",\
                 \"created\":5,\"model\":\"sim-fast\",\"system_fingerprint\":\"fp_ttft_sim\",\
                 \"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"},\"logprobs\":null,\
                 \"finish_reason\":null}]}\n\n"
            )
        );
        assert_eq!(
            frames[0].at_ms, 100.0,
            "role chunk just before the first token"
        );
        assert!(frames[1].token && !frames[0].token);
    }

    #[test]
    fn faults_cut_after_n_tokens_at_the_next_token_time() {
        let plan = plan(6);
        let answer: Vec<String> = (0..6).map(|i| format!("t{i}")).collect();
        let input = input(&plan, &answer);
        let frames = stream_frames(Dialect::Chat, &input);
        let details = FaultDetails {
            key_echo: "Bearer k".into(),
            huge_line_bytes: 1000,
            ..FaultDetails::default()
        };
        let apply = |fault, after| {
            apply_stream_fault(
                Dialect::Chat,
                &input,
                frames.clone(),
                fault,
                after,
                &details,
            )
        };
        let midstream = apply(Fault::Midstream, 3);
        assert_eq!(midstream.len(), 1 + 3 + 1);
        assert_eq!(midstream[4].at_ms, 130.0);
        assert!(midstream[4].text().unwrap().contains("server_error"));
        let dropped = apply(Fault::Drop, 3);
        assert_eq!(
            dropped.last().map(|f| (&f.body, f.at_ms)),
            Some((&FrameBody::Abort, 140.0))
        );
        let malformed = apply(Fault::Malformed, 2);
        assert_eq!(malformed.len(), frames.len() + 1);
        assert!(serde_json::from_str::<serde_json::Value>(
            malformed[3]
                .text()
                .unwrap()
                .trim()
                .trim_start_matches("data: ")
        )
        .is_err());
        // Fewer tokens than asked: the fault strikes after the last one.
        let late = apply(Fault::Midstream, 99);
        assert_eq!(late.len(), 1 + 6 + 1);
        let unchanged = apply(Fault::NoCors, 3);
        assert_eq!(unchanged, frames);
        // The echo and the huge line.
        let echoed = apply(Fault::EchoKeyMidstream, 1);
        let last = echoed.last().and_then(Frame::text).unwrap();
        assert!(
            last.contains("Bearer k") && last.contains("invalid_api_key"),
            "{last}"
        );
        let huge = apply(Fault::HugeLine, 1);
        let prefix = huge[huge.len() - 2].text().unwrap();
        assert!(
            prefix.starts_with("data: {") && !prefix.contains('\n'),
            "{prefix}"
        );
        assert_eq!(
            huge.last().map(|f| &f.body),
            Some(&FrameBody::Filler(1000 - prefix.len() as u64))
        );
    }

    /// The bytes of every event of the flood frames in `frames`, and how many there were.
    fn written_floods(frames: &[Frame]) -> (String, u64) {
        let mut bytes = Vec::new();
        let mut events = 0;
        for frame in frames {
            if let FrameBody::Deltas(run) = &frame.body {
                events += run.write(0, &mut bytes, usize::MAX);
            }
        }
        (String::from_utf8(bytes).unwrap_or_default(), events)
    }

    #[test]
    fn floods_are_written_in_each_dialects_delta_layout() {
        let plain_plan = plan(4);
        let plan = plan(2);
        let runs = [
            FloodRun {
                texts: vec!["a".into(), "\n".into()],
                count: 3,
            },
            FloodRun {
                texts: vec!["x".into()],
                count: 1,
            },
        ];
        let answer = vec![crate::fault::flood_text(&runs)];
        assert_eq!(answer[0], "a\nax");
        for dialect in [Dialect::Chat, Dialect::Messages, Dialect::Responses] {
            let mut flooded = input(&plan, &answer);
            flooded.flood = &runs;
            let frames = stream_frames(dialect, &flooded);
            let (written, events) = written_floods(&frames);
            assert_eq!(events, 4, "{dialect:?}");
            // Each event is the one the dialect writes for that token.
            let tokens: Vec<String> = ["a", "\n", "a", "x"].map(String::from).to_vec();
            let plain = stream_frames(dialect, &input(&plain_plan, &tokens));
            let expected: String = plain
                .iter()
                .filter(|frame| frame.token)
                .filter_map(Frame::text)
                .collect();
            // (Responses: numbered on from the events before, as the tokens would be.)
            assert_eq!(written, expected, "{dialect:?}");
            if dialect == Dialect::Responses {
                // The events after the flood number on from its last.
                let after = frames.iter().rev().take_while(|f| !f.token).last();
                let after = after.and_then(Frame::text).unwrap_or_default();
                assert!(after.contains("\"sequence_number\":8"), "{after}");
            }
        }
        // A batch ends once it passes its limit: one event here.
        let frames = stream_frames(Dialect::Chat, &{
            let mut flooded = input(&plan, &answer);
            flooded.flood = &runs;
            flooded
        });
        let run = frames
            .iter()
            .find_map(|frame| match &frame.body {
                FrameBody::Deltas(run) => Some(run),
                _ => None,
            })
            .unwrap();
        let mut batch = Vec::new();
        assert_eq!(run.write(0, &mut batch, 1), 1);
        // The longest event carries "\n", written as 2 bytes ("a": 1).
        assert_eq!(batch.len() + 1, run.longest_event_bytes());
        assert_eq!(run.write(1, &mut batch, usize::MAX), 3);
    }

    #[test]
    fn past_keys_ride_in_a_seen_field() {
        let plan = plan(6);
        let answer: Vec<String> = (0..6).map(|i| format!("t{i}")).collect();
        let input = input(&plan, &answer);
        let details = FaultDetails {
            seen_keys: vec!["k1".into(), "k2".into()],
            ..FaultDetails::default()
        };
        for (dialect, seen) in [
            (Dialect::Chat, "\"code\": \"invalid_api_key\", \"seen\": [\"k1\", \"k2\"]}}"),
            (Dialect::Messages, "\"message\": \"Incorrect API key provided. Keys seen: k1, k2\", \"seen\": [\"k1\", \"k2\"]}}"),
            (Dialect::Responses, "\"param\":null,\"seen\":[\"k1\",\"k2\"],\"sequence_number\":"),
        ] {
            let frames = stream_frames(dialect, &input);
            let faulted =
                apply_stream_fault(dialect, &input, frames, Fault::EchoPastKeysMidstream, 2, &details);
            let last = faulted.last().and_then(Frame::text).unwrap();
            assert!(last.contains(seen), "{last}");
            assert!(last.contains("Keys seen: k1, k2"), "{last}");
        }
    }
}
