//! Incremental WHATWG server-sent-events parser: bytes in, split anywhere; events out.
//!
//! Implements HTML Living Standard §9.2 "Parsing an event stream" and "Interpreting an event
//! stream" (<https://html.spec.whatwg.org/multipage/server-sent-events.html#parsing-an-event-stream>),
//! push-style like `eventsource-parser`: call [`SseParser::feed`] with every network read, in
//! order, then [`SseParser::finish`] when the body ends. Any split of the same bytes into reads
//! yields exactly the same events (a property test and a fuzz target check this).
//!
//! Decoding follows the spec's "UTF-8 decode" with a streaming decoder: a multibyte character
//! split across reads is held back until it completes, and invalid bytes become U+FFFD using
//! the same "maximal subpart" rule as a browser `TextDecoder`.

use std::mem;

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
}

/// Streaming UTF-8 decoder that holds back an incomplete trailing sequence, like a
/// `TextDecoder` used with `{stream: true}`.
#[derive(Debug, Default, Clone)]
struct Utf8Stream {
    /// Bytes of a multibyte sequence whose end has not arrived yet (at most 3).
    pending: [u8; 4],
    pending_len: usize,
}

impl Utf8Stream {
    /// Decodes `bytes`, calling `sink` with each decoded piece in order.
    fn decode(&mut self, mut bytes: &[u8], sink: &mut impl FnMut(&str)) {
        bytes = self.complete_pending(bytes, sink);
        loop {
            match std::str::from_utf8(bytes) {
                Ok(text) => {
                    sink(text);
                    return;
                }
                Err(error) => {
                    let (valid, rest) = bytes.split_at(error.valid_up_to());
                    // `valid` is valid UTF-8 by construction; the fallback is unreachable.
                    sink(std::str::from_utf8(valid).unwrap_or_default());
                    match error.error_len() {
                        Some(invalid_len) => {
                            sink("\u{FFFD}");
                            bytes = rest.get(invalid_len..).unwrap_or_default();
                        }
                        None => {
                            // Incomplete sequence at the end of this read: keep it for later.
                            self.pending_len = rest.len().min(self.pending.len());
                            self.pending[..self.pending_len]
                                .copy_from_slice(&rest[..self.pending_len]);
                            return;
                        }
                    }
                }
            }
        }
    }

    /// Feeds bytes one at a time into a pending partial sequence until it completes or
    /// proves invalid; returns the input not consumed.
    fn complete_pending<'a>(
        &mut self,
        mut bytes: &'a [u8],
        sink: &mut impl FnMut(&str),
    ) -> &'a [u8] {
        while self.pending_len > 0 {
            let Some((&byte, rest)) = bytes.split_first() else {
                return bytes;
            };
            if self.pending_len >= self.pending.len() {
                // Unreachable: a pending prefix is at most 3 bytes long.
                self.pending_len = 0;
                sink("\u{FFFD}");
                return bytes;
            }
            self.pending[self.pending_len] = byte;
            self.pending_len += 1;
            match std::str::from_utf8(&self.pending[..self.pending_len]) {
                Ok(text) => {
                    sink(text);
                    self.pending_len = 0;
                    return rest;
                }
                Err(error) if error.error_len().is_some() => {
                    // The pending prefix was valid, so the byte just added broke it: emit one
                    // U+FFFD for the maximal subpart and decode that byte again on its own.
                    self.pending_len = 0;
                    sink("\u{FFFD}");
                    return bytes;
                }
                Err(_) => bytes = rest,
            }
        }
        bytes
    }

    /// End of stream: an incomplete sequence decodes to one U+FFFD (TextDecoder flush).
    fn flush(&mut self) -> bool {
        let had_pending = self.pending_len > 0;
        self.pending_len = 0;
        had_pending
    }
}

/// The per-block buffers of "Interpreting an event stream" (reset at each blank line).
#[derive(Debug, Default, Clone)]
struct Block {
    data: String,
    event_type: String,
    retry_ms: Option<u64>,
}

/// Incremental, push-style SSE parser.
///
/// ```
/// use ttft_core::sse::SseParser;
/// let mut parser = SseParser::new();
/// assert!(parser.feed(b"data: hel").is_empty());
/// assert!(parser.feed(b"lo\r").is_empty()); // The line is complete, the event is not.
/// let events = parser.feed(b"\r\n"); // A blank line (CR; its LF is swallowed) dispatches.
/// assert_eq!(events.len(), 1);
/// assert_eq!(events[0].data, "hello");
/// ```
#[derive(Debug, Default, Clone)]
pub struct SseParser {
    utf8: Utf8Stream,
    /// Whether the first decoded character has been looked at for a BOM.
    bom_checked: bool,
    /// The current line when a read ended in its middle.
    line: String,
    /// The last character processed was CR: a LF starting the next read belongs to it.
    after_cr: bool,
    block: Block,
    /// WHATWG "last event ID buffer": set by `id:` lines, survives dispatches.
    last_event_id_buffer: Option<String>,
    /// WHATWG "last event ID string": copied from the buffer at each dispatch.
    last_event_id: Option<String>,
    retry_ms: Option<u64>,
    event_count: usize,
    comment_count: usize,
}

impl SseParser {
    /// A parser at the start of a stream.
    pub fn new() -> Self {
        Self::default()
    }

    /// Parses the next read of the body and returns the events it completed.
    pub fn feed(&mut self, bytes: &[u8]) -> Vec<SseEvent> {
        let mut events = Vec::new();
        self.feed_into(bytes, &mut events);
        events
    }

    /// Like [`SseParser::feed`], appending the completed events to `out` (no allocation when
    /// the read completes no event).
    pub fn feed_into(&mut self, bytes: &[u8], out: &mut Vec<SseEvent>) {
        let mut utf8 = mem::take(&mut self.utf8);
        utf8.decode(bytes, &mut |text| self.push_text(text, out));
        self.utf8 = utf8;
    }

    /// The body ended.
    ///
    /// WHATWG: "Once the end of the file is reached, any pending data must be discarded. (If
    /// the file ends in the middle of an event, before the final empty line, the incomplete
    /// event is not dispatched.)" A partial line and a partial UTF-8 sequence are dropped too.
    /// The parser can then read a new response (as after an `EventSource` reconnection: the
    /// last event ID, reconnection time and counters are kept, a leading BOM is stripped again).
    pub fn finish(&mut self) {
        // A TextDecoder flush would turn the partial sequence into U+FFFD, but it could only
        // extend the unterminated last line, which is discarded anyway.
        let _ = self.utf8.flush();
        self.line.clear();
        self.block = Block::default();
        self.after_cr = false;
        self.bom_checked = false;
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

    /// Splits decoded text into lines.
    ///
    /// WHATWG: "Lines must be separated by either a U+000D CARRIAGE RETURN U+000A LINE FEED
    /// (CRLF) character pair, a single U+000A LINE FEED (LF) character, or a single U+000D
    /// CARRIAGE RETURN (CR) character." A CR is acted on at once (so `data: x\r\r` dispatches
    /// without waiting), and `after_cr` swallows the LF of a CRLF split across reads.
    fn push_text(&mut self, text: &str, out: &mut Vec<SseEvent>) {
        let mut rest = self.strip_bom(text);
        while !rest.is_empty() {
            if mem::take(&mut self.after_cr) {
                if let Some(after_lf) = rest.strip_prefix('\n') {
                    rest = after_lf;
                    continue;
                }
            }
            let Some(end) = rest.find(['\r', '\n']) else {
                self.line.push_str(rest);
                return;
            };
            let (line, terminator_and_rest) = rest.split_at(end);
            self.after_cr = terminator_and_rest.starts_with('\r');
            if self.line.is_empty() {
                self.process_line(line, out);
            } else {
                // The line began in an earlier read: complete it in the buffer, keep capacity.
                let mut whole = mem::take(&mut self.line);
                whole.push_str(line);
                self.process_line(&whole, out);
                whole.clear();
                self.line = whole;
            }
            rest = terminator_and_rest.get(1..).unwrap_or_default();
        }
    }

    /// WHATWG: "One leading U+FEFF BYTE ORDER MARK character must be ignored if any are
    /// present." Only the very first decoded character is looked at.
    fn strip_bom<'t>(&mut self, text: &'t str) -> &'t str {
        if self.bom_checked || text.is_empty() {
            return text;
        }
        self.bom_checked = true;
        text.strip_prefix('\u{FEFF}').unwrap_or(text)
    }

    /// WHATWG "Interpreting an event stream", one line.
    fn process_line(&mut self, line: &str, out: &mut Vec<SseEvent>) {
        if line.is_empty() {
            // "If the line is empty (a blank line): Dispatch the event."
            self.dispatch(out);
        } else if line.starts_with(':') {
            // "If the line starts with a U+003A COLON character (:): Ignore the line."
            self.comment_count += 1;
        } else if let Some((field, value)) = line.split_once(':') {
            // "Collect the characters on the line before the first U+003A COLON character
            // (:), and let field be that string. [...] If value starts with a U+0020 SPACE
            // character, remove it from value."
            self.process_field(field, value.strip_prefix(' ').unwrap_or(value));
        } else {
            // "Otherwise, the string is not empty but does not contain a U+003A COLON
            // character (:): Process the field using the whole line as the field name, and the
            // empty string as the field value."
            self.process_field(line, "");
        }
    }

    /// WHATWG "process the field".
    fn process_field(&mut self, field: &str, value: &str) {
        match field {
            // "Set the event type buffer to field value."
            "event" => value.clone_into(&mut self.block.event_type),
            // "Append the field value to the data buffer, then append a single U+000A LINE
            // FEED (LF) character to the data buffer."
            "data" => {
                self.block.data.push_str(value);
                self.block.data.push('\n');
            }
            // "If the field value does not contain U+0000 NULL, then set the last event ID
            // buffer to the field value. Otherwise, ignore the field."
            "id" if !value.contains('\0') => self.last_event_id_buffer = Some(value.to_owned()),
            // "If the field value consists of only ASCII digits, then interpret the field value
            // as an integer in base ten, and set the event stream's reconnection time to that
            // integer. Otherwise, ignore the field." An empty value or one too large for u64 is
            // ignored too.
            "retry" if !value.is_empty() && value.bytes().all(|byte| byte.is_ascii_digit()) => {
                if let Ok(retry_ms) = value.parse::<u64>() {
                    self.retry_ms = Some(retry_ms);
                    self.block.retry_ms = Some(retry_ms);
                }
            }
            // "Otherwise: The field is ignored."
            _ => {}
        }
    }

    /// WHATWG "dispatch the event".
    fn dispatch(&mut self, out: &mut Vec<SseEvent>) {
        // "1. Set the last event ID string of the event source to the value of the last event
        // ID buffer."
        if self.last_event_id != self.last_event_id_buffer {
            self.last_event_id.clone_from(&self.last_event_id_buffer);
        }
        let block = mem::take(&mut self.block);
        // "2. If the data buffer is an empty string, set the data buffer and the event type
        // buffer to the empty string and return."
        if block.data.is_empty() {
            return;
        }
        let mut data = block.data;
        // "3. If the data buffer's last character is a U+000A LINE FEED (LF) character, then
        // remove the last character from the data buffer."
        if data.ends_with('\n') {
            data.pop();
        }
        let event = (!block.event_type.is_empty()).then_some(block.event_type);
        self.event_count += 1;
        out.push(SseEvent {
            event,
            data,
            last_event_id: self.last_event_id.clone(),
            retry_ms: block.retry_ms,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_chunks(chunks: &[&[u8]]) -> (Vec<SseEvent>, SseParser) {
        let mut parser = SseParser::new();
        let mut events = Vec::new();
        for chunk in chunks {
            parser.feed_into(chunk, &mut events);
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
        assert!(parser.feed(b"data: one\r").is_empty());
        let dispatched = parser.feed(b"\r");
        assert_eq!(datas(&dispatched), ["one"]);
        assert!(parser.feed(b"\n").is_empty());
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
    fn huge_data_field() {
        let payload = "x".repeat(1 << 20);
        let input = format!("data: {payload}\n\n");
        let reads: Vec<&[u8]> = input.as_bytes().chunks(4096).collect();
        let (events, _) = parse_chunks(&reads);
        assert_eq!(events.len(), 1);
        assert_eq!(events[0].data.len(), 1 << 20);
    }

    #[test]
    fn finish_resets_a_partial_block_and_the_bom_check() {
        let mut parser = SseParser::new();
        assert_eq!(
            datas(&parser.feed(b"id: 4\ndata: a\n\nevent: x\ndata: partial\xE4")),
            ["a"]
        );
        parser.finish();
        let events = parser.feed(b"\xEF\xBB\xBFdata: new\n\n");
        assert_eq!(datas(&events), ["new"]);
        assert_eq!(events[0].event, None);
        assert_eq!(events[0].last_event_id.as_deref(), Some("4"));
    }
}
