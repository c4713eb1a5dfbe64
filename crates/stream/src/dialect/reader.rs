//! [`StreamReader`]: bytes of one streamed response in, decoded events and a summary out.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::decoded::{has_visible_text, DecodedEvent, StreamError, Usage};
use super::decoder::Decoder;
use super::names::Dialect;
use crate::sse::{LineTooLong, SseParser};

/// How a stream ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// The terminal marker arrived and no error was reported.
    Completed,
    /// The stream reported an error (even if a terminal marker followed, as vLLM sends).
    StreamError,
    /// Events arrived but the stream closed before its terminal marker (network drop, proxy
    /// timeout, or a server that dies silently).
    EndedWithoutTerminalMarker,
    /// Not a single event was dispatched (empty body, only comments, or not SSE at all).
    EmptyStream,
    /// A line or an event passed the parser's 1 MiB limit ([`LineTooLong`]): the stream could
    /// not be read to its end.
    LineTooLong,
}

/// Everything a stream said, in the fixtures' EXPECTED.json terms (see
/// [`StreamSummary::to_expected_json`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StreamSummary {
    /// The requested dialect, else the detected one.
    pub dialect: Dialect,
    /// All reasoning text, concatenated.
    pub reasoning_text: String,
    /// All answer text, concatenated.
    pub answer_text: String,
    /// Index of the first event that added non-empty reasoning text.
    pub first_reasoning_event: Option<usize>,
    /// Index of the first event whose reasoning text has a non-whitespace character.
    pub first_reasoning_event_visible: Option<usize>,
    /// Index of the first event that added non-empty answer text.
    pub first_answer_event: Option<usize>,
    /// Index of the first event whose answer text has a non-whitespace character.
    pub first_answer_event_visible: Option<usize>,
    /// Merged usage, if the stream reported any.
    pub usage: Option<Usage>,
    /// The first error the stream reported.
    pub error: Option<StreamError>,
    /// The last finish / stop reason.
    pub finish_reason: Option<String>,
    /// Whether the protocol's terminal marker arrived.
    pub terminal_marker_seen: bool,
    /// Dispatched SSE events.
    pub event_count: usize,
    /// Comment lines (keep-alives).
    pub comment_count: usize,
    /// Distinct explicit `event:` names, sorted (default `message` events add nothing).
    pub event_names: Vec<String>,
    /// The SSE last event ID string at the end.
    pub last_event_id: Option<String>,
    /// The SSE reconnection time set by the last valid `retry:` field.
    pub retry_ms: Option<u64>,
    /// Events whose data was neither JSON nor `[DONE]`.
    pub malformed_event_count: usize,
    /// How the stream ended.
    pub outcome: Outcome,
}

impl StreamSummary {
    /// The summary in exactly the schema of the fixtures' EXPECTED.json (`usage` and `error`
    /// are the provider's objects). Used by `ttft-parse` and the fixture tests.
    pub fn to_expected_json(&self) -> Value {
        json!({
            "first_reasoning_event": self.first_reasoning_event,
            "first_reasoning_event_visible": self.first_reasoning_event_visible,
            "reasoning_text": self.reasoning_text,
            "first_answer_event": self.first_answer_event,
            "first_answer_event_visible": self.first_answer_event_visible,
            "answer_text": self.answer_text,
            "dialect": self.dialect.as_str(),
            "event_count": self.event_count,
            "comment_count": self.comment_count,
            "event_names": self.event_names,
            "last_event_id": self.last_event_id,
            "retry_ms": self.retry_ms,
            "usage": self.usage.as_ref().map(|usage| &usage.raw),
            "error": self.error.as_ref().map(|error| &error.raw),
            "finish_reason": self.finish_reason,
            "terminal_marker_seen": self.terminal_marker_seen,
        })
    }
}

/// Running texts and first-event indices.
#[derive(Debug, Clone, Default)]
struct Progress {
    reasoning_text: String,
    answer_text: String,
    first_reasoning_event: Option<usize>,
    first_reasoning_event_visible: Option<usize>,
    first_answer_event: Option<usize>,
    first_answer_event_visible: Option<usize>,
    event_names: BTreeSet<String>,
}

impl Progress {
    fn record(&mut self, decoded: &DecodedEvent) {
        if let Some(reasoning) = &decoded.earlier_answer_was_reasoning {
            // What was read as answer was reasoning (a `</think>` without an opening tag):
            // no reasoning came before it, so the answer's text and first events move over.
            self.answer_text.clear();
            let first = self.first_answer_event.take();
            let first_visible = self.first_answer_event_visible.take();
            if !reasoning.is_empty() {
                self.reasoning_text.push_str(reasoning);
                self.first_reasoning_event = self.first_reasoning_event.or(first);
                if has_visible_text(reasoning) {
                    self.first_reasoning_event_visible =
                        self.first_reasoning_event_visible.or(first_visible);
                }
            }
        }
        record_text(
            &decoded.reasoning,
            decoded.index,
            &mut self.reasoning_text,
            &mut self.first_reasoning_event,
            &mut self.first_reasoning_event_visible,
        );
        record_text(
            &decoded.answer,
            decoded.index,
            &mut self.answer_text,
            &mut self.first_answer_event,
            &mut self.first_answer_event_visible,
        );
    }
}

fn record_text(
    added: &str,
    index: usize,
    text: &mut String,
    first: &mut Option<usize>,
    first_visible: &mut Option<usize>,
) {
    if added.is_empty() {
        return;
    }
    text.push_str(added);
    first.get_or_insert(index);
    if first_visible.is_none() && has_visible_text(added) {
        *first_visible = Some(index);
    }
}

/// Parser + decoder for one streamed response: call [`StreamReader::on_bytes`] with every
/// network read, in order, then [`StreamReader::finish`].
///
/// ```
/// use ttft_stream::dialect::{Outcome, StreamReader};
/// let mut reader = StreamReader::new(None);
/// let events = reader.on_bytes(b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"}}]}\n\n")?;
/// assert_eq!(events[0].answer, "Hi"); // Stamp the first-answer time now.
/// reader.on_bytes(b"data: [DONE]\n\n")?;
/// let summary = reader.finish();
/// assert_eq!(summary.outcome, Outcome::Completed);
/// # Ok::<(), ttft_stream::sse::LineTooLong>(())
/// ```
#[derive(Debug, Clone)]
pub struct StreamReader {
    parser: SseParser,
    decoder: Decoder,
    progress: Progress,
    /// The limit error that stopped the stream, kept past [`SseParser::finish`].
    failure: Option<LineTooLong>,
    /// Whether the summary keeps the texts (see [`StreamReader::without_text`]).
    keep_text: bool,
}

impl StreamReader {
    /// A reader for `dialect`, auto-detecting when `None` (see [`Decoder`] for the rule).
    pub fn new(dialect: Option<Dialect>) -> Self {
        Self::with_parser(dialect, SseParser::new())
    }

    /// A reader whose parser has a smaller limit than [`crate::sse::MAX_EVENT_BYTES`] (for
    /// tests and fuzzing).
    pub fn with_max_event_bytes(dialect: Option<Dialect>, max_event_bytes: usize) -> Self {
        Self::with_parser(dialect, SseParser::with_max_event_bytes(max_event_bytes))
    }

    /// A reader that keeps no text: each [`DecodedEvent`] carries its piece, and the
    /// summary's texts and first-event indices stay empty. What the measurement engine
    /// uses, so a run's memory does not grow with its answer (the caller hands each piece
    /// on and forgets it).
    pub fn without_text(dialect: Option<Dialect>) -> Self {
        Self {
            keep_text: false,
            ..Self::new(dialect)
        }
    }

    fn with_parser(dialect: Option<Dialect>, parser: SseParser) -> Self {
        Self {
            parser,
            decoder: Decoder::new(dialect),
            progress: Progress::default(),
            failure: None,
            keep_text: true,
        }
    }

    /// Parses and decodes one network read; returns one [`DecodedEvent`] per dispatched SSE
    /// event (empty when the read completed none).
    ///
    /// On [`LineTooLong`] the events this read completed before the offending line are lost
    /// with it; [`StreamReader::on_bytes_into`] keeps them.
    pub fn on_bytes(&mut self, bytes: &[u8]) -> Result<Vec<DecodedEvent>, LineTooLong> {
        let mut decoded = Vec::new();
        self.on_bytes_into(bytes, &mut decoded)?;
        Ok(decoded)
    }

    /// Like [`StreamReader::on_bytes`], appending to `out`, also when it returns
    /// [`LineTooLong`]: then `out` has the events completed before the line that crossed the
    /// limit, and the stream cannot be read further (fail the run now, as a malformed stream).
    pub fn on_bytes_into(
        &mut self,
        bytes: &[u8],
        out: &mut Vec<DecodedEvent>,
    ) -> Result<(), LineTooLong> {
        let Self {
            parser,
            decoder,
            progress,
            failure,
            keep_text,
        } = self;
        let fed = parser.feed_with(bytes, &mut |event| {
            if let (true, Some(name)) = (*keep_text, event.event) {
                if !progress.event_names.contains(name) {
                    progress.event_names.insert(name.to_owned());
                }
            }
            let decoded = decoder.decode_ref(event);
            if *keep_text {
                progress.record(&decoded);
            }
            out.push(decoded);
        });
        if let Err(error) = &fed {
            failure.get_or_insert_with(|| error.clone());
        }
        fed
    }

    /// The notes read since the last call: comment lines starting with `ttft-relay `
    /// (bounded; see [`SseParser::take_notes`]).
    pub fn take_notes(&mut self) -> Vec<String> {
        self.parser.take_notes()
    }

    /// Bytes the parser holds for the event being read: at most
    /// [`crate::sse::MAX_EVENT_BYTES`] (the caller holds the current read).
    pub fn buffered_bytes(&self) -> usize {
        self.parser.buffered_bytes()
    }

    /// The dialect in use (the detected one once the stream told it).
    pub fn dialect(&self) -> Dialect {
        self.decoder.dialect()
    }

    /// The merged usage so far: read it when a [`DecodedEvent`] has `usage_updated`.
    pub fn usage(&self) -> Option<&Usage> {
        self.decoder.usage()
    }

    /// What the server said of its own time so far ([`Decoder::server_account`]).
    pub fn server_account(&self) -> Option<&super::ServerAccount> {
        self.decoder.server_account()
    }

    /// How many events so far were not valid JSON for the dialect (the "reading choices"
    /// class of failure); a rise after a read means that read carried a malformed chunk.
    pub fn malformed_event_count(&self) -> usize {
        self.decoder.malformed_event_count()
    }

    /// The summary so far, without ending the stream (for a run aborted after its first
    /// answer token, call [`StreamReader::finish`] instead).
    pub fn summary(&self) -> StreamSummary {
        let progress = self.progress.clone();
        let terminal_marker_seen = self.decoder.terminal_marker_seen();
        let error = self.decoder.error().cloned();
        let event_count = self.parser.event_count();
        let outcome = if self.failure.is_some() {
            Outcome::LineTooLong
        } else if error.is_some() {
            Outcome::StreamError
        } else if event_count == 0 {
            Outcome::EmptyStream
        } else if terminal_marker_seen {
            Outcome::Completed
        } else {
            Outcome::EndedWithoutTerminalMarker
        };
        StreamSummary {
            dialect: self.decoder.dialect(),
            reasoning_text: progress.reasoning_text,
            answer_text: progress.answer_text,
            first_reasoning_event: progress.first_reasoning_event,
            first_reasoning_event_visible: progress.first_reasoning_event_visible,
            first_answer_event: progress.first_answer_event,
            first_answer_event_visible: progress.first_answer_event_visible,
            usage: self.decoder.usage().cloned(),
            error,
            finish_reason: self.decoder.finish_reason().map(str::to_owned),
            terminal_marker_seen,
            event_count,
            comment_count: self.parser.comment_count(),
            event_names: progress.event_names.into_iter().collect(),
            last_event_id: self.parser.last_event_id().map(str::to_owned),
            retry_ms: self.parser.retry_ms(),
            malformed_event_count: self.decoder.malformed_event_count(),
            outcome,
        }
    }

    /// The body ended: discards an unterminated last event (WHATWG), releases text held back
    /// while deciding a partial think tag, and returns the summary.
    pub fn finish(&mut self) -> StreamSummary {
        self.finish_into(&mut Vec::new())
    }

    /// Like [`StreamReader::finish`], also appending the text released at the end (a held
    /// partial think tag, rare) to `out` as a [`DecodedEvent`] whose index is the event the
    /// text arrived with, so a timeline built from decoded events misses nothing.
    pub fn finish_into(&mut self, out: &mut Vec<DecodedEvent>) -> StreamSummary {
        self.parser.finish();
        if let Some(released) = self.decoder.finish() {
            if self.keep_text {
                self.progress.record(&released);
            }
            out.push(released);
        }
        self.summary()
    }
}
