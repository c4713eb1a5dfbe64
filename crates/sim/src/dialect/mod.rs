//! Dialect writers: a request's plan and text in, the timed SSE frames (or the JSON
//! completion) out. Pure: time is the plan's ms after arrival.

pub mod chat;
pub mod errors;
pub mod messages;
pub mod responses;

use crate::fault::Fault;
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
            FrameBody::Abort | FrameBody::Filler(_) => None,
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
        }
    }

    /// A server error with this message.
    pub fn server_with(message: &'a str) -> Self {
        Self {
            message,
            openai_type: "server_error",
            code: None,
            anthropic_type: "api_error",
            anthropic_message: message,
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
        }
    }
}

/// What in-stream faults need beyond the stream itself.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FaultDetails {
    /// The request's key headers, echoed by `echo_key_midstream`.
    pub key_echo: String,
    /// Length of the `huge_line` fault's line, bytes.
    pub huge_line_bytes: u64,
}

/// A JSON string literal.
pub(crate) fn json_str(text: &str) -> String {
    serde_json::Value::String(text.to_string()).to_string()
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

/// Rewrites a successful stream for an in-stream fault (`midstream`, `drop`, `malformed`,
/// `echo_key_midstream`, `xss_error`, `huge_line`); other faults leave it unchanged. The
/// fault strikes after `after_tokens` token frames, at the time the next token would have
/// come.
pub fn apply_stream_fault(
    dialect: Dialect,
    input: &WriterInput<'_>,
    mut frames: Vec<Frame>,
    fault: Fault,
    after_tokens: u32,
    details: &FaultDetails,
) -> Vec<Frame> {
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
    let xss_message = crate::fault::xss_all();
    let error = match fault {
        Fault::Midstream => Some(StreamError::server()),
        Fault::EchoKeyMidstream => Some(StreamError::auth(&details.key_echo)),
        Fault::XssError => Some(StreamError::server_with(&xss_message)),
        _ => None,
    };
    if let Some(error) = error {
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
}
