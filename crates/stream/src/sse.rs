//! Incremental WHATWG server-sent-events parser: bytes in, split anywhere; events out.
//!
//! Implements HTML Living Standard §9.2 "Parsing an event stream" and "Interpreting an event
//! stream" (<https://html.spec.whatwg.org/multipage/server-sent-events.html#parsing-an-event-stream>),
//! push-style like `eventsource-parser`: call [`SseParser::feed_with`] (or
//! [`SseParser::feed_into`]) with every network read, in order, then [`SseParser::finish`] when
//! the body ends. Any split of the same bytes into reads yields exactly the same events (a
//! property test and fuzz targets check this).
//!
//! **Bytes, not text.** Lines are split on the raw bytes, eight at a time (`scan::line_end`):
//! CR and LF are ASCII, and no byte of a multibyte UTF-8 sequence is ASCII, so splitting
//! before decoding finds the same lines as the spec's "decode, then split". Only the values
//! that are used are decoded, with the spec's "UTF-8 decode": invalid bytes become U+FFFD by
//! the same "maximal subpart" rule as a browser `TextDecoder` (which is what
//! `String::from_utf8_lossy` implements), and since a maximal subpart never contains an ASCII
//! byte, decoding a line alone gives the same text as decoding the whole stream.
//!
//! **No copies of the data.** [`SseParser::feed_with`] hands each event to a callback as an
//! [`SseEventRef`] whose `data` borrows the read itself when its `data:` line lay in that read.
//! Bytes are copied only when a line or an event spans two reads, or an event has several
//! `data:` lines (they must be joined with LF).
//!
//! **Bounded memory.** A line, or the data of one event, may not grow past
//! [`MAX_EVENT_BYTES`] (1 MiB): the read that crosses the limit returns [`LineTooLong`] at once,
//! without buffering it, so the parser never holds more than 1 MiB of a partial line plus
//! the event's data (together), plus its event type and last event ID (each a line, so each
//! under the limit as well). The caller holds the read.
//!
//! **Notes.** Comments are never dispatched, but a comment line that starts with
//! [`NOTE_PREFIX`] (`: ttft-relay first-byte=412.3`, written by ttft-relay: docs/relay.md) is
//! kept for the reader ([`SseParser::take_notes`]): at most [`MAX_NOTES`] per response, each at
//! most [`MAX_NOTE_BYTES`] (a longer one is only counted as a comment). They are taken from
//! whole lines, so any split of the input gives the same notes.

use std::borrow::Cow;
use std::mem;

use memchr::memchr;

use crate::scan::line_end;

/// The most bytes the event being read may hold: its data lines so far (each with its LF)
/// plus the line being read, 1 MiB. An LLM stream sends a few hundred bytes per event; the
/// limit only stops a stream that is not one (a file, a misconfigured proxy, an attack).
pub const MAX_EVENT_BYTES: usize = 1 << 20;

/// What starts a comment the parser keeps as a note (after the colon and one optional
/// space): ttft-relay's own lines (docs/relay.md).
pub const NOTE_PREFIX: &[u8] = b"ttft-relay ";

/// The most notes kept per response: the relay writes one (`first-byte`), or two when the
/// upstream fails mid-stream (`upstream-error`).
pub const MAX_NOTES: usize = 4;

/// The longest note kept, bytes after [`NOTE_PREFIX`].
pub const MAX_NOTE_BYTES: usize = 128;

/// One dispatched server-sent event.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SseEvent {
    /// The `event:` field of the block, `None` when the block had none or set it empty.
    ///
    /// WHATWG: "If the event type buffer has a value other than the empty string, change the
    /// type of the newly created event to equal the value of the event type buffer"; otherwise
    /// the type is `message`. `None` therefore means `message`, and `Some("message")` means the
    /// server wrote `event: message` explicitly (fixtures list only explicit names).
    pub event: Option<String>,
    /// The data buffer with its final LF removed: several `data:` lines joined with `\n`.
    pub data: String,
    /// The last event ID string when the event was dispatched (`None` until an `id:` field
    /// without NUL has been seen; WHATWG keeps it across events until the server changes it).
    pub last_event_id: Option<String>,
    /// The reconnection time set by a valid `retry:` field inside this event's block, if any.
    pub retry_ms: Option<u64>,
}

impl SseEvent {
    /// The event type as a browser `EventSource` reports it (`message` by default).
    pub fn event_type(&self) -> &str {
        self.event.as_deref().unwrap_or("message")
    }

    /// The event, borrowed (what [`SseParser::feed_with`] hands out).
    pub fn as_ref(&self) -> SseEventRef<'_> {
        SseEventRef {
            event: self.event.as_deref(),
            data: &self.data,
            last_event_id: self.last_event_id.as_deref(),
            retry_ms: self.retry_ms,
        }
    }
}

/// One dispatched event, borrowed from the read (its data) and from the parser (its type and
/// the last event ID); the fields mean what [`SseEvent`]'s do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SseEventRef<'a> {
    /// See [`SseEvent::event`].
    pub event: Option<&'a str>,
    /// See [`SseEvent::data`].
    pub data: &'a str,
    /// See [`SseEvent::last_event_id`].
    pub last_event_id: Option<&'a str>,
    /// See [`SseEvent::retry_ms`].
    pub retry_ms: Option<u64>,
}

impl SseEventRef<'_> {
    /// The event type as a browser `EventSource` reports it (`message` by default).
    pub fn event_type(&self) -> &str {
        self.event.unwrap_or("message")
    }

    /// An owned copy.
    fn to_owned_event(self) -> SseEvent {
        SseEvent {
            event: self.event.map(str::to_owned),
            data: self.data.to_owned(),
            last_event_id: self.last_event_id.map(str::to_owned),
            retry_ms: self.retry_ms,
        }
    }
}

/// A line, or one event's data, grew past the parser's limit ([`MAX_EVENT_BYTES`]).
///
/// The stream cannot be read further: the parser keeps returning this error until
/// [`SseParser::finish`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", self.describe())]
pub struct LineTooLong {
    /// The limit in bytes.
    pub limit_bytes: usize,
    /// The event's bytes when the limit was crossed: its completed data lines (with their LFs)
    /// plus the line being read, as far as it had arrived.
    pub seen_bytes: usize,
    /// Of `seen_bytes`, the completed data lines (0 when one line alone was too long).
    pub data_bytes: usize,
}

impl LineTooLong {
    fn describe(&self) -> String {
        let limit = format!("the limit is {} bytes (1 MiB)", self.limit_bytes);
        let fix = "A streaming LLM API sends events of a few hundred bytes: check that the URL is \
                   the provider's streaming endpoint and that no proxy rewrites the response.";
        if self.data_bytes == 0 {
            format!(
                "line too long: the stream sent {} bytes without a line break ({limit}). {fix}",
                self.seen_bytes
            )
        } else {
            format!(
                "line too long: one event grew to {} bytes ({} of them in earlier data lines) \
                 without the blank line that ends it ({limit}). {fix}",
                self.seen_bytes, self.data_bytes
            )
        }
    }
}

/// What one line asks of the caller of [`SseParser::process_line`].
enum LineAction<'l> {
    /// Nothing more (a comment, another field, or a field already applied).
    Nothing,
    /// "Append the field value to the data buffer, then append a single U+000A LINE FEED (LF)
    /// character to the data buffer."
    Data(&'l [u8]),
    /// "If the line is empty (a blank line): Dispatch the event."
    Dispatch,
}

/// Incremental, push-style SSE parser.
///
/// ```
/// use ttft_stream::sse::SseParser;
/// let mut parser = SseParser::new();
/// assert!(parser.feed(b"data: hel")?.is_empty());
/// assert!(parser.feed(b"lo\r")?.is_empty()); // The line is complete, the event is not.
/// let events = parser.feed(b"\r\n")?; // A blank line (CR; its LF is swallowed) dispatches.
/// assert_eq!(events.len(), 1);
/// assert_eq!(events[0].data, "hello");
/// # Ok::<(), ttft_stream::sse::LineTooLong>(())
/// ```
#[derive(Debug, Clone)]
pub struct SseParser {
    max_event_bytes: usize,
    /// Whether the first line has been looked at for a BOM.
    bom_checked: bool,
    /// The current line when a read ended in its middle (raw bytes).
    line: Vec<u8>,
    /// The last byte processed was CR: a LF starting the next read belongs to it.
    after_cr: bool,
    /// WHATWG "data buffer", raw bytes, each value followed by LF. While the only data line of
    /// the event lies in the current read, it is borrowed from the read instead (see
    /// [`SseParser::feed_with`]) and this stays empty.
    data: Vec<u8>,
    /// WHATWG "event type buffer".
    event_type: String,
    /// The reconnection time set inside the current block.
    block_retry_ms: Option<u64>,
    /// WHATWG "last event ID buffer": set by `id:` lines, survives dispatches.
    last_event_id_buffer: Option<String>,
    /// WHATWG "last event ID string": copied from the buffer at each dispatch.
    last_event_id: Option<String>,
    retry_ms: Option<u64>,
    event_count: usize,
    comment_count: usize,
    /// Notes not taken yet ([`SseParser::take_notes`]).
    notes: Vec<String>,
    /// Notes kept in this response, taken or not: the bound [`MAX_NOTES`] counts them.
    notes_kept: usize,
    /// Set when the limit was crossed; returned by every read until `finish`.
    failed: Option<LineTooLong>,
}

impl Default for SseParser {
    fn default() -> Self {
        Self::new()
    }
}

/// WHATWG: "One leading U+FEFF BYTE ORDER MARK character must be ignored if any are present."
const BOM: &[u8] = b"\xEF\xBB\xBF";

impl SseParser {
    /// A parser at the start of a stream, with the [`MAX_EVENT_BYTES`] limit.
    pub fn new() -> Self {
        Self::with_max_event_bytes(MAX_EVENT_BYTES)
    }

    /// A parser whose event being read may hold at most `max_event_bytes` (a smaller limit
    /// lets tests and fuzzing reach it with small inputs).
    pub fn with_max_event_bytes(max_event_bytes: usize) -> Self {
        SseParser {
            max_event_bytes,
            bom_checked: false,
            line: Vec::new(),
            after_cr: false,
            data: Vec::new(),
            event_type: String::new(),
            block_retry_ms: None,
            last_event_id_buffer: None,
            last_event_id: None,
            retry_ms: None,
            event_count: 0,
            comment_count: 0,
            notes: Vec::new(),
            notes_kept: 0,
            failed: None,
        }
    }

    /// Parses the next read of the body and returns the events it completed (owned copies;
    /// [`SseParser::feed_with`] avoids them).
    pub fn feed(&mut self, bytes: &[u8]) -> Result<Vec<SseEvent>, LineTooLong> {
        let mut events = Vec::new();
        self.feed_into(bytes, &mut events)?;
        Ok(events)
    }

    /// Like [`SseParser::feed`], appending the completed events to `out` (also those completed
    /// before the line that crossed the limit, when it returns an error).
    pub fn feed_into(&mut self, bytes: &[u8], out: &mut Vec<SseEvent>) -> Result<(), LineTooLong> {
        self.feed_with(bytes, &mut |event| out.push(event.to_owned_event()))
    }

    /// Parses the next read of the body, calling `on_event` with each event it completes, in
    /// order. An event's `data` borrows `bytes` when its one `data:` line lay in this read.
    ///
    /// Returns [`LineTooLong`] as soon as a line or the event being read passes the limit
    /// (events completed before that line have been handed out); the parser then ignores
    /// further reads, returning the same error, until [`SseParser::finish`].
    pub fn feed_with(
        &mut self,
        bytes: &[u8],
        on_event: &mut impl FnMut(SseEventRef<'_>),
    ) -> Result<(), LineTooLong> {
        if let Some(error) = &self.failed {
            return Err(error.clone());
        }
        // The event's one data value while it lies in `bytes` (then `self.data` is empty).
        let mut borrowed_data: Option<&[u8]> = None;
        let result = self.feed_lines(bytes, &mut borrowed_data, on_event);
        if let Some(value) = borrowed_data {
            // The event goes on in the next read: the one copy of data that spans reads.
            self.data.extend_from_slice(value);
            self.data.push(b'\n');
        }
        result
    }

    /// Splits `bytes` into lines and processes them.
    ///
    /// WHATWG: "Lines must be separated by either a U+000D CARRIAGE RETURN U+000A LINE FEED
    /// (CRLF) character pair, a single U+000A LINE FEED (LF) character, or a single U+000D
    /// CARRIAGE RETURN (CR) character." A CR is acted on at once (so `data: x\r\r` dispatches
    /// without waiting), and `after_cr` swallows the LF of a CRLF split across reads.
    fn feed_lines<'b>(
        &mut self,
        bytes: &'b [u8],
        borrowed_data: &mut Option<&'b [u8]>,
        on_event: &mut impl FnMut(SseEventRef<'_>),
    ) -> Result<(), LineTooLong> {
        let mut rest = bytes;
        loop {
            if self.after_cr {
                match rest.split_first() {
                    None => return Ok(()),
                    Some((b'\n', after_lf)) => rest = after_lf,
                    Some(_) => {}
                }
                self.after_cr = false;
            }
            let data_len = self.data_len(*borrowed_data);
            let Some(end) = line_end(rest) else {
                // A partial line: keep it for the next read, unless it is already too long.
                let seen_bytes = data_len + self.line.len() + rest.len();
                if seen_bytes > self.max_event_bytes {
                    return Err(self.fail(seen_bytes, data_len));
                }
                self.line.extend_from_slice(rest);
                return Ok(());
            };
            let seen_bytes = data_len + self.line.len() + end;
            if seen_bytes > self.max_event_bytes {
                return Err(self.fail(seen_bytes, data_len));
            }
            self.after_cr = rest[end] == b'\r';
            if self.line.is_empty() {
                // The whole line is in this read: its data value can be borrowed.
                let line = &rest[..end];
                match self.process_line(line) {
                    LineAction::Nothing => {}
                    LineAction::Data(value) => {
                        if borrowed_data.is_none() && self.data.is_empty() {
                            *borrowed_data = Some(value);
                        } else {
                            self.append_data(borrowed_data.take(), value);
                        }
                    }
                    LineAction::Dispatch => self.dispatch(borrowed_data.take(), on_event),
                }
            } else {
                // The line began in an earlier read: complete it in the buffer, keep capacity.
                let mut whole = mem::take(&mut self.line);
                whole.extend_from_slice(&rest[..end]);
                match self.process_line(&whole) {
                    LineAction::Nothing => {}
                    LineAction::Data(value) => self.append_data(borrowed_data.take(), value),
                    LineAction::Dispatch => self.dispatch(borrowed_data.take(), on_event),
                }
                whole.clear();
                self.line = whole;
            }
            rest = &rest[end + 1..];
        }
    }

    /// The length of the data buffer, borrowed part included.
    fn data_len(&self, borrowed_data: Option<&[u8]>) -> usize {
        self.data.len() + borrowed_data.map_or(0, |value| value.len() + 1)
    }

    /// Appends a data value to the owned buffer, after the borrowed one if there is one.
    fn append_data(&mut self, borrowed_data: Option<&[u8]>, value: &[u8]) {
        if let Some(earlier) = borrowed_data {
            self.data.extend_from_slice(earlier);
            self.data.push(b'\n');
        }
        self.data.extend_from_slice(value);
        self.data.push(b'\n');
    }

    /// Records the limit error and drops what was buffered for the event.
    fn fail(&mut self, seen_bytes: usize, data_bytes: usize) -> LineTooLong {
        let error = LineTooLong {
            limit_bytes: self.max_event_bytes,
            seen_bytes,
            data_bytes,
        };
        self.line = Vec::new();
        self.data = Vec::new();
        self.failed = Some(error.clone());
        error
    }

    /// The body ended.
    ///
    /// WHATWG: "Once the end of the file is reached, any pending data must be discarded. (If
    /// the file ends in the middle of an event, before the final empty line, the incomplete
    /// event is not dispatched.)" A partial line (and so a partial UTF-8 sequence) is dropped
    /// too. The parser can then read a new response (as after an `EventSource` reconnection:
    /// the last event ID, reconnection time and counters are kept, a leading BOM is stripped
    /// again, a [`LineTooLong`] failure is cleared).
    pub fn finish(&mut self) {
        self.line.clear();
        self.data.clear();
        self.event_type.clear();
        self.block_retry_ms = None;
        self.after_cr = false;
        self.bom_checked = false;
        self.failed = None;
        self.notes_kept = 0;
    }

    /// The notes read since the last call (comment lines starting with [`NOTE_PREFIX`],
    /// the prefix removed), in order. Feeding the same bytes split any way and taking the
    /// notes after each read gives the same notes in all.
    pub fn take_notes(&mut self) -> Vec<String> {
        mem::take(&mut self.notes)
    }

    /// Number of events dispatched so far.
    pub fn event_count(&self) -> usize {
        self.event_count
    }

    /// Number of comment lines (starting with `:`) seen so far; they are never dispatched.
    pub fn comment_count(&self) -> usize {
        self.comment_count
    }

    /// The stream's reconnection time in milliseconds, from the last valid `retry:` field.
    pub fn retry_ms(&self) -> Option<u64> {
        self.retry_ms
    }

    /// The last event ID string as of the last dispatch.
    pub fn last_event_id(&self) -> Option<&str> {
        self.last_event_id.as_deref()
    }

    /// Bytes the parser holds for the event being read (partial line and data): at most the
    /// limit, whatever was fed.
    pub fn buffered_bytes(&self) -> usize {
        self.line.len() + self.data.len()
    }

    /// The limit error the stream hit, if it hit it.
    pub fn failure(&self) -> Option<&LineTooLong> {
        self.failed.as_ref()
    }

    /// Keeps a comment (the text after its colon) that is a note, within the bounds.
    fn keep_note(&mut self, comment: &[u8]) {
        let comment = comment.strip_prefix(b" ").unwrap_or(comment);
        let Some(note) = comment.strip_prefix(NOTE_PREFIX) else {
            return;
        };
        if self.notes_kept < MAX_NOTES && note.len() <= MAX_NOTE_BYTES {
            self.notes_kept += 1;
            self.notes.push(String::from_utf8_lossy(note).into_owned());
        }
    }

    /// WHATWG "Interpreting an event stream", one line.
    fn process_line<'l>(&mut self, mut line: &'l [u8]) -> LineAction<'l> {
        if !self.bom_checked {
            // Only the stream's very first bytes can be a BOM.
            self.bom_checked = true;
            line = line.strip_prefix(BOM).unwrap_or(line);
        }
        let Some((&first, _)) = line.split_first() else {
            // "If the line is empty (a blank line): Dispatch the event."
            return LineAction::Dispatch;
        };
        if first == b':' {
            // "If the line starts with a U+003A COLON character (:): Ignore the line."
            self.comment_count += 1;
            self.keep_note(&line[1..]);
            return LineAction::Nothing;
        }
        let (field, value) = match memchr(b':', line) {
            // "Collect the characters on the line before the first U+003A COLON character
            // (:), and let field be that string. [...] If value starts with a U+0020 SPACE
            // character, remove it from value."
            Some(colon) => {
                let value = &line[colon + 1..];
                (&line[..colon], value.strip_prefix(b" ").unwrap_or(value))
            }
            // "Otherwise, the string is not empty but does not contain a U+003A COLON
            // character (:): Process the field using the whole line as the field name, and the
            // empty string as the field value."
            None => (line, &line[line.len()..]),
        };
        self.process_field(field, value)
    }

    /// WHATWG "process the field". Field names are compared as bytes: a name with an invalid
    /// byte decodes to U+FFFD and matches no field either way.
    fn process_field<'l>(&mut self, field: &[u8], value: &'l [u8]) -> LineAction<'l> {
        match field {
            // "Set the event type buffer to field value."
            b"event" => {
                self.event_type.clear();
                self.event_type.push_str(&String::from_utf8_lossy(value));
            }
            // "Append the field value to the data buffer, then append a single U+000A LINE
            // FEED (LF) character to the data buffer." (The caller does it, borrowing when it
            // can.)
            b"data" => return LineAction::Data(value),
            // "If the field value does not contain U+0000 NULL, then set the last event ID
            // buffer to the field value. Otherwise, ignore the field."
            b"id" if memchr(0, value).is_none() => {
                let id = String::from_utf8_lossy(value);
                match &mut self.last_event_id_buffer {
                    Some(buffer) => {
                        buffer.clear();
                        buffer.push_str(&id);
                    }
                    None => self.last_event_id_buffer = Some(id.into_owned()),
                }
            }
            // "If the field value consists of only ASCII digits, then interpret the field value
            // as an integer in base ten, and set the event stream's reconnection time to that
            // integer. Otherwise, ignore the field." An empty value or one too large for u64 is
            // ignored too.
            b"retry" if !value.is_empty() && value.iter().all(u8::is_ascii_digit) => {
                let retry_ms = std::str::from_utf8(value)
                    .ok()
                    .and_then(|digits| digits.parse::<u64>().ok());
                if let Some(retry_ms) = retry_ms {
                    self.retry_ms = Some(retry_ms);
                    self.block_retry_ms = Some(retry_ms);
                }
            }
            // "Otherwise: The field is ignored."
            _ => {}
        }
        LineAction::Nothing
    }

    /// WHATWG "dispatch the event". `borrowed_data` is the event's one data value when it lies
    /// in the current read (then the owned buffer is empty).
    fn dispatch(
        &mut self,
        borrowed_data: Option<&[u8]>,
        on_event: &mut impl FnMut(SseEventRef<'_>),
    ) {
        // "1. Set the last event ID string of the event source to the value of the last event
        // ID buffer."
        if self.last_event_id != self.last_event_id_buffer {
            self.last_event_id.clone_from(&self.last_event_id_buffer);
        }
        let retry_ms = self.block_retry_ms.take();
        let data = match borrowed_data {
            Some(value) => value,
            // "2. If the data buffer is an empty string, set the data buffer and the event
            // type buffer to the empty string and return."
            None if self.data.is_empty() => {
                self.event_type.clear();
                return;
            }
            // "3. If the data buffer's last character is a U+000A LINE FEED (LF) character,
            // then remove the last character from the data buffer." (It always is.)
            None => &self.data[..self.data.len() - 1],
        };
        // "UTF-8 decode": borrowed when valid, as almost every stream is (`from_utf8` checks
        // ASCII a word at a time; `from_utf8_lossy` alone walks every byte).
        let text = match std::str::from_utf8(data) {
            Ok(text) => Cow::Borrowed(text),
            Err(_) => String::from_utf8_lossy(data),
        };
        self.event_count += 1;
        on_event(SseEventRef {
            event: (!self.event_type.is_empty()).then_some(self.event_type.as_str()),
            data: &text,
            last_event_id: self.last_event_id.as_deref(),
            retry_ms,
        });
        self.data.clear();
        self.event_type.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_chunks(chunks: &[&[u8]]) -> (Vec<SseEvent>, SseParser) {
        let mut parser = SseParser::new();
        let mut events = Vec::new();
        for chunk in chunks {
            parser.feed_into(chunk, &mut events).unwrap();
        }
        parser.finish();
        (events, parser)
    }

    fn datas(events: &[SseEvent]) -> Vec<&str> {
        events.iter().map(|event| event.data.as_str()).collect()
    }

    #[test]
    fn line_endings_lf_cr_crlf_and_mixed() {
        for input in [
            &b"data: a\n\ndata: b\n\n"[..],
            b"data: a\r\rdata: b\r\r",
            b"data: a\r\n\r\ndata: b\r\n\r\n",
            b"data: a\r\n\rdata: b\n\r\n",
        ] {
            let (events, _) = parse_chunks(&[input]);
            assert_eq!(datas(&events), ["a", "b"], "{input:?}");
        }
    }

    #[test]
    fn cr_ending_one_read_and_lf_starting_the_next_is_one_line_break() {
        // eventsource-parser issue #17.
        let (events, _) = parse_chunks(&[b"data: A\r", b"\n", b"data: B\r", b"\n", b"\r\n"]);
        assert_eq!(datas(&events), ["A\nB"]);
    }

    #[test]
    fn blank_cr_line_ending_a_read_dispatches_exactly_once() {
        let mut parser = SseParser::new();
        assert!(parser.feed(b"data: one\r").unwrap().is_empty());
        let dispatched = parser.feed(b"\r").unwrap();
        assert_eq!(datas(&dispatched), ["one"]);
        assert!(parser.feed(b"\n").unwrap().is_empty());
        parser.finish();
        assert_eq!(parser.event_count(), 1);
    }

    #[test]
    fn double_cr_is_two_line_breaks() {
        let (events, _) = parse_chunks(&[b"data: x\r\rdata: y\r\r"]);
        assert_eq!(datas(&events), ["x", "y"]);
    }

    #[test]
    fn only_the_first_bom_is_stripped_even_when_split() {
        let (events, _) =
            parse_chunks(&[b"\xEF", b"\xBB", b"\xBFdata: a\n\n\xEF\xBB\xBFdata: b\n\n"]);
        // The second BOM starts a line whose field name is "\u{FEFF}data": unknown, ignored.
        assert_eq!(datas(&events), ["a"]);
        let (events, _) = parse_chunks(&[b"\xEF\xBB\xBF\xEF\xBB\xBFdata: a\n\n"]);
        assert!(events.is_empty());
    }

    #[test]
    fn bom_inside_data_is_kept() {
        let (events, _) = parse_chunks(&[b"data: \xEF\xBB\xBFx\n\n"]);
        assert_eq!(datas(&events), ["\u{FEFF}x"]);
    }

    #[test]
    fn comments_are_counted_not_dispatched() {
        let (events, parser) =
            parse_chunks(&[b": keep-alive\n\n:\ndata: a\n: inside a block\ndata: b\n\n"]);
        assert_eq!(datas(&events), ["a\nb"]);
        assert_eq!(parser.comment_count(), 3);
        assert_eq!(parser.event_count(), 1);
    }

    #[test]
    fn relay_notes_are_kept_whole_bounded_and_in_order() {
        let stream = b": ttft-relay first-byte=412.3\r\ndata: a\n\n:ttft-relay upstream-error=upstream-reset\n: keep-alive\n: ttft-relayx no\n";
        let whole = {
            let mut parser = SseParser::new();
            parser.feed(stream).unwrap();
            parser.take_notes()
        };
        assert_eq!(whole, ["first-byte=412.3", "upstream-error=upstream-reset"]);
        for read_len in 1..stream.len() {
            let mut parser = SseParser::new();
            let mut notes = Vec::new();
            for read in stream.chunks(read_len) {
                parser.feed(read).unwrap();
                notes.extend(parser.take_notes());
            }
            assert_eq!(notes, whole, "reads of {read_len}");
            assert_eq!(parser.comment_count(), 4);
        }
        // Bounded: a long note is only a comment; at most MAX_NOTES per response.
        let long = format!(": ttft-relay {}\n", "x".repeat(MAX_NOTE_BYTES + 1));
        let many = ": ttft-relay n\n".repeat(MAX_NOTES + 3);
        let mut parser = SseParser::new();
        parser.feed(format!("{long}{many}").as_bytes()).unwrap();
        assert_eq!(parser.take_notes().len(), MAX_NOTES);
        parser.feed(b": ttft-relay late\n").unwrap();
        assert!(parser.take_notes().is_empty());
        parser.finish();
        parser.feed(b": ttft-relay next\n").unwrap();
        assert_eq!(parser.take_notes(), ["next"]);
    }

    #[test]
    fn exactly_one_leading_space_is_removed() {
        let (events, _) = parse_chunks(&[b"data:x\n\ndata: x\n\ndata:  x\n\n"]);
        assert_eq!(datas(&events), ["x", "x", " x"]);
    }

    #[test]
    fn oddly_shaped_data_fields() {
        // `data:` with an empty value dispatches "", `data` without colon is the same field.
        let (events, _) = parse_chunks(&[b"data:\n\ndata\ndata\n\n"]);
        assert_eq!(datas(&events), ["", "\n"]);
    }

    #[test]
    fn block_without_data_is_not_dispatched() {
        let (events, parser) = parse_chunks(&[b"event: ping\nid: 7\n\ndata: x\n\n"]);
        assert_eq!(events.len(), 1);
        // The event type does not leak into the next block; the id does (WHATWG keeps it).
        assert_eq!(events[0].event, None);
        assert_eq!(events[0].last_event_id.as_deref(), Some("7"));
        assert_eq!(parser.last_event_id(), Some("7"));
    }

    #[test]
    fn event_type_and_empty_event_field() {
        let (events, _) = parse_chunks(&[
            b"event: message_start\ndata: {}\n\nevent:\ndata: a\n\nevent: message\ndata: b\n\n",
        ]);
        assert_eq!(events[0].event.as_deref(), Some("message_start"));
        assert_eq!(events[1].event, None);
        assert_eq!(events[1].event_type(), "message");
        assert_eq!(events[2].event.as_deref(), Some("message"));
    }

    #[test]
    fn id_containing_nul_is_ignored() {
        let (events, _) =
            parse_chunks(&[b"id: 1\ndata: a\n\nid: 2\0x\ndata: b\n\nid\ndata: c\n\n"]);
        let ids: Vec<_> = events
            .iter()
            .map(|event| event.last_event_id.as_deref())
            .collect();
        assert_eq!(ids, [Some("1"), Some("1"), Some("")]);
    }

    #[test]
    fn retry_only_when_all_ascii_digits() {
        let (events, parser) = parse_chunks(&[
            b"retry: 1000\ndata: a\n\nretry: 12x\ndata: b\n\nretry:\nretry: -5\nretry: 1.5\nretry: \xD9\xA3\ndata: c\n\nretry: 99999999999999999999999\nretry:2500\n\n",
        ]);
        let retries: Vec<_> = events.iter().map(|event| event.retry_ms).collect();
        assert_eq!(retries, [Some(1000), None, None]);
        assert_eq!(parser.retry_ms(), Some(2500));
    }

    #[test]
    fn unknown_fields_and_field_names_are_case_sensitive() {
        let (events, _) = parse_chunks(&[b"foo: bar\nData: x\nDATA: y\ndata: z\n\n"]);
        assert_eq!(datas(&events), ["z"]);
    }

    #[test]
    fn unterminated_last_event_is_discarded() {
        let (events, parser) = parse_chunks(&[b"data: a\n\ndata: b\n"]);
        assert_eq!(datas(&events), ["a"]);
        assert_eq!(parser.event_count(), 1);
        let (events, _) = parse_chunks(&[b"data: a\n\ndata: b"]);
        assert_eq!(datas(&events), ["a"]);
    }

    #[test]
    fn multibyte_split_across_reads_is_held_back() {
        let text = "data: известни 😀\n\n".as_bytes();
        for split in 0..=text.len() {
            let (events, _) = parse_chunks(&[&text[..split], &text[split..]]);
            assert_eq!(datas(&events), ["известни 😀"], "split at {split}");
        }
        let one_byte_reads: Vec<&[u8]> = text.chunks(1).collect();
        assert_eq!(datas(&parse_chunks(&one_byte_reads).0), ["известни 😀"]);
    }

    #[test]
    fn invalid_utf8_becomes_replacement_characters_like_text_decoder() {
        // Lone continuation byte, truncated 3-byte sequence followed by ASCII, overlong form,
        // surrogate encoding: TextDecoder gives one U+FFFD per maximal subpart.
        let input = b"data: a\x80b\xE4\xBDc\xC0\xAFd\xED\xA0\x80e\n\n";
        let expected = "a\u{FFFD}b\u{FFFD}c\u{FFFD}\u{FFFD}d\u{FFFD}\u{FFFD}\u{FFFD}e";
        assert_eq!(datas(&parse_chunks(&[input]).0), [expected]);
        let one_byte_reads: Vec<&[u8]> = input.chunks(1).collect();
        assert_eq!(datas(&parse_chunks(&one_byte_reads).0), [expected]);
    }

    #[test]
    fn a_line_of_exactly_the_limit_is_read_and_one_more_byte_is_too_long() {
        let payload = "x".repeat(MAX_EVENT_BYTES - "data: ".len());
        let input = format!("data: {payload}\n\n");
        let reads: Vec<&[u8]> = input.as_bytes().chunks(4096).collect();
        let (events, _) = parse_chunks(&reads);
        assert_eq!(events.len(), 1);
        assert_eq!(events[0].data.len(), MAX_EVENT_BYTES - 6);

        let input = format!("data: {payload}x\n\n");
        let mut parser = SseParser::new();
        let mut results = input.as_bytes().chunks(4096).map(|read| parser.feed(read));
        // 256 reads of 4 KiB hold exactly the limit; the 257th completes a line one byte over.
        assert!(results
            .by_ref()
            .take(256)
            .all(|result| result == Ok(Vec::new())));
        let too_long = LineTooLong {
            limit_bytes: MAX_EVENT_BYTES,
            seen_bytes: MAX_EVENT_BYTES + 1,
            data_bytes: 0,
        };
        assert_eq!(results.next(), Some(Err(too_long.clone())));
        assert_eq!(parser.buffered_bytes(), 0);
        // The stream stays failed until it is finished.
        assert_eq!(parser.feed(b"data: a\n\n"), Err(too_long));
        parser.finish();
        assert_eq!(datas(&parser.feed(b"data: a\n\n").unwrap()), ["a"]);
    }

    #[test]
    fn data_lines_of_one_event_count_together_with_the_line_being_read() {
        let limit = 64;
        let mut parser = SseParser::with_max_event_bytes(limit);
        // Each line is 26 bytes and adds 21 (20 + LF) to the data: at the third line
        // 2 × 21 + 26 = 68 > 64.
        let line = format!("data: {}\n", "y".repeat(20));
        let stream = format!("data: ok\n\n{}", line.repeat(4));
        let mut events = Vec::new();
        let error = parser.feed_into(stream.as_bytes(), &mut events);
        assert_eq!(datas(&events), ["ok"], "the event before is kept");
        assert_eq!(
            error,
            Err(LineTooLong {
                limit_bytes: limit,
                seen_bytes: 68,
                data_bytes: 42
            })
        );
        assert!(error.unwrap_err().to_string().starts_with(
            "line too long: one event grew to 68 bytes (42 of them in earlier data lines)"
        ));
    }

    #[test]
    fn the_limit_error_does_not_depend_on_how_the_reads_fall() {
        // A 29-byte comment fits in 36; the third 16-byte data line does not (22 + 16 > 36).
        let limit = 36;
        let stream = b"data: a\n\n: comment that is long enough\ndata: 0123456789\ndata: 0123456789\ndata: 0123456789\n\n";
        let whole = SseParser::with_max_event_bytes(limit).feed(stream);
        assert!(whole.is_err());
        for read_len in 1..stream.len() {
            let mut parser = SseParser::with_max_event_bytes(limit);
            let mut events = Vec::new();
            let mut error = None;
            for read in stream.chunks(read_len) {
                if let Err(too_long) = parser.feed_into(read, &mut events) {
                    error = Some(too_long);
                    break;
                }
                assert!(parser.buffered_bytes() <= limit);
            }
            assert_eq!(datas(&events), ["a"], "reads of {read_len}");
            let error = error.unwrap();
            assert_eq!(error.data_bytes, 22, "reads of {read_len}");
            assert!(error.seen_bytes > limit && error.seen_bytes <= 22 + 16);
            assert_eq!(parser.feed(b"\n"), Err(error), "reads of {read_len}");
        }
    }

    #[test]
    fn finish_resets_a_partial_block_and_the_bom_check() {
        let mut parser = SseParser::new();
        assert_eq!(
            datas(
                &parser
                    .feed(b"id: 4\ndata: a\n\nevent: x\ndata: partial\xE4")
                    .unwrap()
            ),
            ["a"]
        );
        parser.finish();
        let events = parser.feed(b"\xEF\xBB\xBFdata: new\n\n").unwrap();
        assert_eq!(datas(&events), ["new"]);
        assert_eq!(events[0].event, None);
        assert_eq!(events[0].last_event_id.as_deref(), Some("4"));
    }
}
