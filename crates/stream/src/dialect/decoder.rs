//! The dialect-independent part of decoding: reading the JSON, auto-detection, the generic
//! error shapes and the merged totals.

use super::account::ServerAccount;
use super::anthropic;
use super::chat::ChatDecoder;
use super::decoded::{DecodedEvent, StreamError, Totals, Usage};
use super::json::generic_error;
use super::names::Dialect;
use super::responses;
use super::wire::{Envelope, EventInput};
use crate::sse::{SseEvent, SseEventRef};

#[derive(Debug, Clone)]
enum Family {
    /// Auto-detection has not recognized the protocol yet.
    Undetected,
    Chat(ChatDecoder),
    Anthropic,
    Responses,
}

/// Decodes dispatched SSE events of one stream in a given or auto-detected [`Dialect`].
///
/// **Auto-detection** (when no dialect is given), on the first event that tells:
/// 1. JSON `type` (else SSE event name) `message_start`, `message_delta`, `message_stop`,
///    `content_block_start|delta|stop` or `ping` → [`Dialect::Anthropic`];
///    a `type` starting with `response.` → [`Dialect::Responses`];
/// 2. data `[DONE]`, or JSON with a `choices` key or an `object` starting with
///    `chat.completion` → the Chat family. Within it, the first non-whitespace `content` of
///    choice 0 decides: `<think>` → [`Dialect::ChatThink`], `<thought>` →
///    [`Dialect::ChatGeminiThought`], anything else (or reasoning arriving in a side-channel
///    field or a `thinking` part first) → [`Dialect::Chat`]. Until then leading whitespace in
///    `content` is held back, so it is reported with the next content event.
/// 3. within the Chat family, content that was plain so far and then a `</think>` with no
///    opening tag → [`Dialect::ChatThinkMissingOpen`] (the chat template put `<think>` in the
///    prompt, stream-formats.md §3.10 case 3). Nothing at the start of such a stream tells it
///    apart from plain chat, so its reasoning is reported as answer until the tag comes; the
///    event with the tag then hands that text back in
///    [`DecodedEvent::earlier_answer_was_reasoning`], and the first answer is the first
///    content after the tag. A stream that never sends the tag stays plain answer (pass
///    [`Dialect::ChatThinkMissingOpen`] explicitly to read such a stream as reasoning from its
///    first token). Not looked for once a reasoning side channel or an opening tag was seen,
///    nor after 1 MiB of answer text.
///
/// **Rules common to every dialect** (stream-formats.md §4, §7, §8):
/// - reasoning and answer text are what each event *adds*; role-only chunks, `ping`,
///   `message_start`, `content_block_start` skeletons, `signature_delta`, usage-only chunks
///   and lifecycle events add nothing;
/// - chat: only choice 0 is reported (matched by its `index` field); per delta exactly one of
///   `reasoning_content` / `reasoning` / `reasoning_details` is taken; `null` is absent;
/// - errors: a non-null top-level `error`, JSON `type == "error"`, SSE `event: error`,
///   chat `finish_reason: "error"`, Responses `response.failed`; the first error is kept;
/// - usage: chat keeps the last non-null object, Anthropic overwrites key by key, Responses
///   takes the terminal event's; nothing is ever summed.
///
/// Events before detection are checked for errors only.
#[derive(Debug, Clone)]
pub struct Decoder {
    requested: Option<Dialect>,
    family: Family,
    totals: Totals,
    event_count: usize,
    malformed_event_count: usize,
}

impl Decoder {
    /// A decoder for `dialect`, or auto-detecting when `None`.
    pub fn new(dialect: Option<Dialect>) -> Self {
        let family = match dialect {
            None => Family::Undetected,
            Some(Dialect::Anthropic) => Family::Anthropic,
            Some(Dialect::Responses) => Family::Responses,
            Some(chat) => Family::Chat(ChatDecoder::new(Some(chat))),
        };
        Self {
            requested: dialect,
            family,
            totals: Totals::default(),
            event_count: 0,
            malformed_event_count: 0,
        }
    }

    /// Decodes the next dispatched event (events must be passed in order, all of them, so that
    /// indices match the stream).
    pub fn decode(&mut self, event: &SseEvent) -> DecodedEvent {
        self.decode_ref(event.as_ref())
    }

    /// [`Decoder::decode`] on a borrowed event (what [`StreamReader`](super::StreamReader)
    /// passes, straight from the parser).
    pub fn decode_ref(&mut self, event: SseEventRef<'_>) -> DecodedEvent {
        let index = self.event_count;
        self.event_count += 1;
        let is_done = event.data.starts_with("[DONE]");
        let mut envelope = Envelope::default();
        let is_json = !is_done && envelope.read(event.data);
        if !is_json && !is_done {
            self.malformed_event_count += 1;
        }
        let input = EventInput {
            name: event.event,
            data: event.data,
            json: is_json.then_some(&envelope),
        };
        let mut out = DecodedEvent {
            index,
            error: generic_error(input.name, input.data, input.json),
            ..DecodedEvent::default()
        };
        self.detect(&input);
        match &mut self.family {
            Family::Undetected => {}
            Family::Chat(chat) => chat.decode(&input, &mut out, &mut self.totals),
            Family::Anthropic => anthropic::decode(&input, &mut out, &mut self.totals),
            Family::Responses => responses::decode(&input, &mut out, &mut self.totals),
        }
        self.record(&out);
        out
    }

    /// The stream ended: releases content held back while deciding a possible partial tag,
    /// as an extra [`DecodedEvent`] whose index is the event the held text arrived with.
    pub fn finish(&mut self) -> Option<DecodedEvent> {
        match &mut self.family {
            Family::Chat(chat) => chat.finish(),
            _ => None,
        }
    }

    /// The requested dialect, else the detected one ([`Dialect::Chat`] while undetected).
    pub fn dialect(&self) -> Dialect {
        if let Some(dialect) = self.requested {
            return dialect;
        }
        match &self.family {
            Family::Undetected => Dialect::Chat,
            Family::Chat(chat) => chat.dialect(),
            Family::Anthropic => Dialect::Anthropic,
            Family::Responses => Dialect::Responses,
        }
    }

    /// Usage merged so far (chat: last non-null object; Anthropic: key-by-key overwrite;
    /// Responses: the terminal event's).
    pub fn usage(&self) -> Option<&Usage> {
        self.totals.usage.as_ref()
    }

    /// What the server said of its own time so far (llama.cpp's `timings`, Groq's
    /// `x_groq.usage`, SambaNova's usage times), merged across events.
    pub fn server_account(&self) -> Option<&ServerAccount> {
        self.totals.server_account.as_ref()
    }

    /// The last finish / stop reason seen (chat: choice 0's; Anthropic: `stop_reason`;
    /// Responses: the terminal event's `response.status`).
    pub fn finish_reason(&self) -> Option<&str> {
        self.totals.finish_reason.as_deref()
    }

    /// The first error the stream reported (later ones are usually consequences).
    pub fn error(&self) -> Option<&StreamError> {
        self.totals.error.as_ref()
    }

    /// Whether the protocol's terminal marker has been seen.
    pub fn terminal_marker_seen(&self) -> bool {
        self.totals.terminal_marker_seen
    }

    /// Events decoded so far.
    pub fn event_count(&self) -> usize {
        self.event_count
    }

    /// Events whose data was neither JSON nor `[DONE]` (they contribute nothing but errors).
    pub fn malformed_event_count(&self) -> usize {
        self.malformed_event_count
    }

    fn detect(&mut self, input: &EventInput<'_>) {
        if !matches!(self.family, Family::Undetected) {
            return;
        }
        let kind = input.kind().unwrap_or_default();
        let is_chat = input.data.starts_with("[DONE]")
            || input.json.is_some_and(|json| {
                json.has_choices
                    || json
                        .object
                        .as_deref()
                        .is_some_and(|object| object.starts_with("chat.completion"))
            });
        self.family = if anthropic::is_anthropic_kind(kind) {
            Family::Anthropic
        } else if kind.starts_with("response.") {
            Family::Responses
        } else if is_chat {
            Family::Chat(ChatDecoder::new(None))
        } else {
            Family::Undetected
        };
    }

    fn record(&mut self, out: &DecodedEvent) {
        if let Some(reason) = &out.finish_reason {
            self.totals.finish_reason = Some(reason.clone());
        }
        if self.totals.error.is_none() {
            self.totals.error.clone_from(&out.error);
        }
        self.totals.terminal_marker_seen |= out.terminal;
    }
}
