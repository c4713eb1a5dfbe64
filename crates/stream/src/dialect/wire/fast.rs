//! The fast path of [`Envelope::read`]: the Chat Completions chunk that almost every event of
//! a chat stream is, read by one forward scan of the bytes instead of through serde's visitors.
//!
//! A chunk such as
//! `{"id":"…","object":"chat.completion.chunk","created":1,"model":"…","choices":[{"index":0,
//! "delta":{"content":"Hi"},"logprobs":null,"finish_reason":null}],"usage":null}` has the same
//! few shapes in every event. Reading it through serde's visitors costs a call per key, per
//! value and per skipped field, which at the shipped size-first opt-level was most of the
//! reader's time once network reads are large (issue 14 item 5). This reader knows only those
//! shapes: it matches keys as bytes, scans strings eight bytes at a time
//! (`scan::json_plain_len`) and borrows them, and hands the rare nested value (a usage or
//! error object, `logprobs`, Gemini's `extra_content`, tool calls) to serde_json on its own.
//!
//! **It either reads exactly what serde would, or gives up.** It accepts a subset of JSON,
//! checked as serde_json checks it (whitespace, literals, integers, strings without control
//! characters, escapes, no trailing comma or trailing text, nested values through serde_json
//! itself), and fills the envelope the way the serde visitors do (the last of repeated keys
//! wins, `null` is absent, choice 0 by `index`, else by position). Anything else gives up — a
//! key with an escape, a negative or fractional number, a `\u` escape of a surrogate in a
//! text that is kept, content parts, a non-empty `reasoning_details`, a value of an
//! unexpected type, another dialect's keys, a top level that is not an object — and
//! [`Envelope::read`] then reads the data through serde, which decides. Giving up costs the
//! scan done so far, never a different answer. The tests below check the equality on
//! generated and edited chunks and on every event of the recorded transcripts.

use std::borrow::Cow;

use serde_json::Value;

use super::{ChatDelta, Choice, Content, Envelope};
use crate::scan::json_plain_len;

/// Reads `data` into `envelope` (default on entry) when it is a chunk this reader knows; true
/// when it did. False leaves the envelope default, for serde to read.
pub(super) fn read<'a>(envelope: &mut Envelope<'a>, data: &'a str) -> bool {
    let mut cursor = Cursor {
        text: data,
        position: 0,
    };
    if cursor.envelope(envelope).is_some() {
        return true;
    }
    *envelope = Envelope::default();
    false
}

/// A position in the data. Every method returns `None` to give up.
struct Cursor<'a> {
    text: &'a str,
    position: usize,
}

// At the shipped opt-level ("z") LLVM keeps even these one-line helpers as calls, one per
// byte of the data: they are inlined by hand.
impl<'a> Cursor<'a> {
    #[inline(always)]
    fn bytes(&self) -> &'a [u8] {
        self.text.as_bytes()
    }

    /// The byte at the position, if any.
    #[inline(always)]
    fn peek(&self) -> Option<u8> {
        self.bytes().get(self.position).copied()
    }

    /// The byte at `position`, if any.
    #[inline(always)]
    fn peek_at(&self, position: usize) -> Option<u8> {
        self.bytes().get(position).copied()
    }

    /// JSON whitespace: space, tab, LF, CR (exactly what serde_json skips).
    #[inline(always)]
    fn skip_whitespace(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.position += 1;
        }
    }

    /// The next byte after whitespace, consumed.
    #[inline(always)]
    fn next_token(&mut self) -> Option<u8> {
        self.skip_whitespace();
        let byte = self.peek()?;
        self.position += 1;
        Some(byte)
    }

    /// The whole top level: one object, then only whitespace.
    fn envelope(&mut self, envelope: &mut Envelope<'a>) -> Option<()> {
        self.object(|cursor, key| {
            match key {
                b"choices" => {
                    envelope.has_choices = true;
                    cursor.first_choice(&mut envelope.first_choice)?;
                }
                b"object" => envelope.object = cursor.text_or_null()?,
                // Absent when null; an object is kept whole, as a `Value`.
                b"usage" => envelope.usage = cursor.object_or_null()?,
                b"error" => envelope.error = cursor.object_or_null()?,
                b"type" => envelope.kind = cursor.text_or_null()?,
                b"timings" => envelope.timings = cursor.object_or_null()?,
                b"x_groq" => envelope.x_groq = cursor.object_or_null()?,
                b"metrics" => envelope.metrics = cursor.object_or_null()?,
                b"stats" => envelope.stats = cursor.object_or_null()?,
                b"time_info" => envelope.time_info = cursor.object_or_null()?,
                b"perf_metrics" => envelope.perf_metrics = cursor.object_or_null()?,
                // Other dialects' objects, read by serde.
                b"delta" | b"content_block" | b"message" | b"response" => return None,
                _ => cursor.ignored_value()?,
            }
            Some(())
        })?;
        self.skip_whitespace();
        (self.position == self.text.len()).then_some(())
    }

    /// Choice 0 of `choices`, into `found`: the first element whose `index` is 0, or that has
    /// none and stands at position 0. Every element must be a choice this reader knows. Read
    /// in place: a choice is large, and moving it costs more than reading it.
    fn first_choice(&mut self, found: &mut Option<Choice<'a>>) -> Option<()> {
        // A repeated `choices` key: the last one wins.
        *found = None;
        let mut position: u64 = 0;
        self.array(|cursor| {
            if found.is_some() {
                // Another answer to the same prompt: validated, not kept.
                cursor.choice(&mut Choice::default())?;
            } else {
                let choice = found.insert(Choice::default());
                cursor.choice(choice)?;
                if choice.index.unwrap_or(position) != 0 {
                    *found = None;
                }
            }
            position += 1;
            Some(())
        })
    }

    /// A choice, into `choice` (default on entry).
    fn choice(&mut self, choice: &mut Choice<'a>) -> Option<()> {
        self.object(|cursor, key| {
            match key {
                b"delta" => {
                    choice.delta = ChatDelta::default();
                    match cursor.peek_value()? {
                        b'n' => cursor.null()?,
                        _ => cursor.delta(&mut choice.delta)?,
                    }
                }
                b"index" => {
                    choice.index = match cursor.peek_value()? {
                        b'n' => cursor.null().map(|()| None)?,
                        _ => Some(cursor.integer()?),
                    }
                }
                b"finish_reason" => choice.finish_reason = cursor.text_or_null()?,
                _ => cursor.ignored_value()?,
            }
            Some(())
        })
    }

    /// A chat delta, into `delta` (default on entry).
    fn delta(&mut self, delta: &mut ChatDelta<'a>) -> Option<()> {
        self.object(|cursor, key| {
            match key {
                b"content" => {
                    delta.content = match cursor.text_or_null()? {
                        Some(text) => Content::Text(text),
                        None => Content::Absent,
                    }
                }
                b"reasoning_content" => delta.reasoning_content = cursor.text_or_null()?,
                b"reasoning" => delta.reasoning = cursor.text_or_null()?,
                // The empty list OpenRouter sends with every chunk joins to "".
                b"reasoning_details" => {
                    delta.reasoning_details = match cursor.peek_value()? {
                        b'n' => cursor.null().map(|()| None)?,
                        _ => cursor
                            .empty_array()
                            .map(|()| Some(Cow::Owned(String::new())))?,
                    }
                }
                _ => cursor.ignored_value()?,
            }
            Some(())
        })
    }

    /// An object; `on_member` reads the value of each key.
    fn object(&mut self, mut on_member: impl FnMut(&mut Self, &[u8]) -> Option<()>) -> Option<()> {
        if self.next_token()? != b'{' {
            return None;
        }
        self.skip_whitespace();
        if self.peek()? == b'}' {
            self.position += 1;
            return Some(());
        }
        loop {
            let key = self.key()?;
            if self.next_token()? != b':' {
                return None;
            }
            on_member(self, key)?;
            match self.next_token()? {
                // The next member must follow (a string): a trailing comma gives up.
                b',' => self.skip_whitespace(),
                b'}' => return Some(()),
                _ => return None,
            }
        }
    }

    /// An array; `on_element` reads each element.
    fn array(&mut self, mut on_element: impl FnMut(&mut Self) -> Option<()>) -> Option<()> {
        if self.next_token()? != b'[' {
            return None;
        }
        self.skip_whitespace();
        if self.peek()? == b']' {
            self.position += 1;
            return Some(());
        }
        loop {
            on_element(self)?;
            match self.next_token()? {
                b',' => {}
                b']' => return Some(()),
                _ => return None,
            }
        }
    }

    /// The first byte of the value at the position (after whitespace), not consumed.
    #[inline(always)]
    fn peek_value(&mut self) -> Option<u8> {
        self.skip_whitespace();
        self.peek()
    }

    /// `null`.
    fn null(&mut self) -> Option<()> {
        self.literal("null")
    }

    /// A string, or `null` (absent); any other type gives up.
    fn text_or_null(&mut self) -> Option<Option<Cow<'a, str>>> {
        match self.peek_value()? {
            b'n' => self.null().map(|()| None),
            _ => self.string().map(Some),
        }
    }

    /// A value of no interest, skipped (checked all the same): scalars here, objects and
    /// arrays (`logprobs`, `extra_content`) through serde.
    fn ignored_value(&mut self) -> Option<()> {
        match self.peek_value()? {
            b'"' => self.skip_string(),
            b'n' => self.literal("null"),
            b't' => self.literal("true"),
            b'f' => self.literal("false"),
            // Read as a `Value`, not skipped as serde's full read skips it: no other copy of
            // the serde code (wasm size). A `Value` is stricter (no lone surrogate, no number
            // past f64) and gives up where skipping would not, never the reverse.
            b'{' | b'[' => self.nested_by_serde().map(drop),
            _ => self.integer().map(drop),
        }
    }

    /// An object kept whole (usage, error), or `null` (absent); any other type gives up.
    fn object_or_null(&mut self) -> Option<Option<Value>> {
        match self.peek_value()? {
            b'n' => self.null().map(|()| None),
            b'{' => self.nested_by_serde().map(Some),
            _ => None,
        }
    }

    /// The object or array at the position, read by serde_json on its own text: the value
    /// serde's full read finds there (an object or array ends where its brackets match, so
    /// the full read ends it at the same byte). Found by matching brackets outside strings;
    /// a value with 100 opening brackets or more gives up, as the full read meets
    /// serde_json's nesting limit (128 levels) a few levels higher up.
    fn nested_by_serde(&mut self) -> Option<Value> {
        let start = self.position;
        let (mut depth, mut opened) = (0usize, 0usize);
        loop {
            match self.peek()? {
                b'"' => self.skip_string()?,
                b'{' | b'[' => {
                    depth += 1;
                    opened += 1;
                    self.position += 1;
                }
                b'}' | b']' => {
                    depth = depth.checked_sub(1)?;
                    self.position += 1;
                    if depth == 0 {
                        break;
                    }
                }
                _ => self.position += 1,
            }
            if opened >= 100 {
                return None;
            }
        }
        serde_json::from_str(self.text.get(start..self.position)?).ok()
    }

    /// `[]`, with or without whitespace inside.
    fn empty_array(&mut self) -> Option<()> {
        if self.next_token()? != b'[' || self.next_token()? != b']' {
            return None;
        }
        Some(())
    }

    /// `word`: `null`, `true` or `false`.
    fn literal(&mut self, word: &str) -> Option<()> {
        self.skip_whitespace();
        let rest = self.bytes().get(self.position..)?;
        if !rest.starts_with(word.as_bytes()) {
            return None;
        }
        self.position += word.len();
        Some(())
    }

    /// A non-negative integer without fraction or exponent that fits in 19 digits: `0` or
    /// a digit 1–9 followed by digits. A sign, a fraction or an exponent gives up (what
    /// follows the digits must be a separator, which the caller checks).
    fn integer(&mut self) -> Option<u64> {
        self.skip_whitespace();
        let digits = self.bytes().get(self.position..)?;
        let mut length = 0;
        while digits.get(length).is_some_and(u8::is_ascii_digit) {
            length += 1;
        }
        // `01` is not JSON; past 19 digits a u64 may overflow (serde reads a float).
        let leading_zero = length > 1 && digits[0] == b'0';
        if length == 0 || length > 19 || leading_zero {
            return None;
        }
        let value = digits[..length]
            .iter()
            .fold(0u64, |value, digit| value * 10 + u64::from(digit - b'0'));
        self.position += length;
        Some(value)
    }

    /// A key: the bytes of a string without escapes (serde compares a key with escapes
    /// unescaped; this reader gives up on it).
    fn key(&mut self) -> Option<&'a [u8]> {
        if self.next_token()? != b'"' {
            return None;
        }
        let start = self.position;
        let end = start + json_plain_len(self.bytes().get(start..)?);
        if self.peek_at(end)? != b'"' {
            return None;
        }
        self.position = end + 1;
        self.bytes().get(start..end)
    }

    /// A string, skipped: checked as serde_json checks a string it ignores (no control
    /// character; escapes from the JSON list, any four hex digits after `\u`).
    fn skip_string(&mut self) -> Option<()> {
        if self.next_token()? != b'"' {
            return None;
        }
        loop {
            self.position += json_plain_len(self.bytes().get(self.position..)?);
            match self.peek()? {
                b'"' => {
                    self.position += 1;
                    return Some(());
                }
                b'\\' => {
                    let escape = self.peek_at(self.position + 1)?;
                    self.position += 2;
                    match escape {
                        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => {}
                        b'u' => {
                            self.hex_escape()?;
                        }
                        _ => return None,
                    }
                }
                _ => return None,
            }
        }
    }

    /// A string: borrowed when it has no escapes, unescaped otherwise. A raw control
    /// character, an unknown escape or a `\u` escape of a surrogate gives up.
    fn string(&mut self) -> Option<Cow<'a, str>> {
        if self.next_token()? != b'"' {
            return None;
        }
        let start = self.position;
        let end = start + json_plain_len(self.bytes().get(start..)?);
        self.position = end;
        match self.peek()? {
            b'"' => {
                self.position += 1;
                // Both ends are ASCII, so char boundaries.
                self.text.get(start..end).map(Cow::Borrowed)
            }
            b'\\' => {
                let mut owned = self.text.get(start..end)?.to_owned();
                self.escaped_rest(&mut owned)?;
                Some(Cow::Owned(owned))
            }
            // A control character (U+0000 to U+001F): not JSON.
            _ => None,
        }
    }

    /// The rest of a string from its first backslash, appended to `owned`.
    fn escaped_rest(&mut self, owned: &mut String) -> Option<()> {
        loop {
            match self.peek()? {
                b'"' => {
                    self.position += 1;
                    return Some(());
                }
                b'\\' => {
                    let escape = self.peek_at(self.position + 1)?;
                    self.position += 2;
                    let character = match escape {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'u' => self.unicode_escape()?,
                        _ => return None,
                    };
                    owned.push(character);
                }
                _ => {
                    let start = self.position;
                    let end = start + json_plain_len(self.bytes().get(start..)?);
                    if end == start {
                        // A control character.
                        return None;
                    }
                    owned.push_str(self.text.get(start..end)?);
                    self.position = end;
                }
            }
        }
    }

    /// The four hex digits of a `\u` escape, as a character; a surrogate (half of a pair,
    /// or alone) gives up.
    fn unicode_escape(&mut self) -> Option<char> {
        char::from_u32(self.hex_escape()?)
    }

    /// The four hex digits of a `\u` escape (either case).
    fn hex_escape(&mut self) -> Option<u32> {
        let hex = self.bytes().get(self.position..self.position + 4)?;
        let code = hex.iter().try_fold(0u32, |code, &digit| {
            let value = char::from(digit).to_digit(16)?;
            Some(code * 16 + value)
        })?;
        self.position += 4;
        Some(code)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use proptest::strategy::ValueTree;

    /// The property: when the fast path reads the data, serde reads it too (it is JSON), to
    /// the same envelope (`Debug` shows every field; a `Cow` shows its text, borrowed or
    /// not); when it gives up, the envelope is left default. Returns whether it read.
    fn same_as_serde(data: &str) -> bool {
        let mut fast = Envelope::default();
        if !read(&mut fast, data) {
            assert_eq!(
                format!("{fast:?}"),
                format!("{:?}", Envelope::default()),
                "giving up leaves the envelope default: {data}"
            );
            return false;
        }
        let mut serde = Envelope::default();
        assert!(serde.read_with_serde(data), "read but not JSON: {data}");
        assert_eq!(
            format!("{fast:?}"),
            format!("{serde:?}"),
            "fast path and serde differ on {data}"
        );
        true
    }

    #[test]
    fn the_chunks_of_common_servers_take_the_fast_path() {
        for data in [
            // ttft-sim, the bench's transcript: role chunk, reasoning, answer, finish.
            r#"{"id":"chatcmpl-sim000001","object":"chat.completion.chunk","created":1796157261,"model":"sim-reasoning","system_fingerprint":"fp_ttft_sim","choices":[{"index":0,"delta":{"role":"assistant","content":null,"reasoning_content":""},"logprobs":null,"finish_reason":null}],"usage":null}"#,
            r#"{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":null,"reasoning_content":" me"},"logprobs":null,"finish_reason":null}],"usage":null}"#,
            r#"{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"","reasoning_content":null},"logprobs":null,"finish_reason":"stop"}],"usage":null}"#,
            // OpenAI: no usage key, obfuscation padding, escapes and non-ASCII text.
            r#"{"id":"chatcmpl-B","object":"chat.completion.chunk","created":1730000000,"model":"gpt-4o-mini","service_tier":"default","system_fingerprint":"fp_1","choices":[{"index":0,"delta":{"content":"a \"quoted\"\nline\\ \u00e9 é 😀 \/"},"logprobs":null,"finish_reason":null}],"obfuscation":"x7"}"#,
            // vLLM's `reasoning`, whitespace between tokens, two choices (n = 2), choice 1 first.
            "{ \"choices\" : [ { \"index\" : 1 , \"delta\" : { \"content\" : \"B\" } } ,\n\t{\"index\":0,\"delta\":{\"reasoning\":\"A\"}} ] }\r\n",
            // Empty choices (the usage chunk's shape, usage null), an empty object.
            r#"{"choices":[],"usage":null}"#,
            "{}",
            // Nested values: usage and error objects (kept whole), OpenRouter's empty
            // `reasoning_details`, Gemini's `extra_content`, OpenAI's `logprobs`, tool calls.
            r#"{"choices":[],"usage":{"prompt_tokens":9,"completion_tokens_details":{"reasoning_tokens":0},"cost":9.84e-5}}"#,
            r#"{"error":{"code":"server_error","message":"m"},"choices":[{"index":0,"delta":{"content":""},"finish_reason":"error"}]}"#,
            r#"{"choices":[{"index":0,"delta":{"role":"assistant","content":"Paris","reasoning":null,"reasoning_details":[ ]},"native_finish_reason":null}]}"#,
            r#"{"choices":[{"delta":{"content":"<thought>","extra_content":{"google":{"thought":true}}},"index":0}],"usage":{"total_tokens":30}}"#,
            r#"{"choices":[{"index":0,"delta":{"content":"!"},"logprobs":{"content":[{"token":"!","logprob":-0.26638845,"bytes":[33],"top_logprobs":[]}],"refusal":null}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"a\""}}]}}]}"#,
        ] {
            assert!(same_as_serde(data), "{data}");
        }
        let mut envelope = Envelope::default();
        assert!(read(
            &mut envelope,
            r#"{"object":"chat.completion.chunk","choices":[{"index":1,"delta":{"content":"B"}},{"delta":{"content":"A\tb"},"finish_reason":"length"}]}"#
        ));
        assert_eq!(envelope.object.as_deref(), Some("chat.completion.chunk"));
        // The element without `index` stands at position 1, the other has index 1: no choice 0.
        assert!(envelope.has_choices && envelope.first_choice.is_none());
        let mut envelope = Envelope::default();
        assert!(read(
            &mut envelope,
            r#"{"choices":[{"delta":{"content":"A\tb"},"finish_reason":"length"}]}"#
        ));
        let choice = envelope.first_choice.unwrap();
        assert!(
            matches!(choice.delta.content, Content::Text(Cow::Owned(ref text)) if text == "A\tb")
        );
        assert_eq!(choice.finish_reason.as_deref(), Some("length"));
    }

    #[test]
    fn anything_else_gives_up_and_serde_decides() {
        for data in [
            // Shapes serde reads and this reader leaves to it.
            r#"{"choices":[{"index":0,"delta":{"content":[{"type":"text","text":"x"}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"reasoning_details":[{"text":"x"}]}}]}"#,
            r#"{"choices":[],"usage":7}"#,
            r#"{"choices":[{"index":-1,"delta":{"content":"x"}}]}"#,
            r#"{"choices":[{"index":0.0}]}"#,
            r#"{"choices":[{"index":"0"}]}"#,
            r#"{"choices":null}"#,
            r#"{"choices":[5]}"#,
            r#"{"created":1e3}"#,
            r#"{"created":12345678901234567890}"#,
            r#"{"choices":[{"delta":{"content":"\ud83d\ude00"}}]}"#,
            r#"{"choices":[{"delta":{"t\u0079pe":1}}]}"#,
            r#"{"type":"content_block_delta","delta":{"type":"text_delta","text":"x"}}"#,
            r#"{"type":5}"#,
            r#"[{"choices":[]}]"#,
            r#""text""#,
            "null",
            // Not JSON at all.
            r#"{"choices":[],}"#,
            r#"{"a":1,}"#,
            r#"{"a":01}"#,
            r#"{"a":"\x"}"#,
            "{\"a\":\"tab\there\"}",
            r#"{"a":nul}"#,
            r#"{"a":1} x"#,
            r#"{"a" 1}"#,
            r#"{"a":1"#,
            r#"{"a":"b"#,
            r#"{"a":"\u12"}"#,
            "",
        ] {
            assert!(!same_as_serde(data), "{data}");
        }
    }

    /// Every event of every recorded transcript (tests/fixtures/sse and its extra/): the
    /// fast path reads most chat events, and reads each exactly as serde does.
    #[test]
    fn every_fixture_event_reads_the_same() {
        let root =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/sse");
        let mut paths = Vec::new();
        for directory in [root.clone(), root.join("extra")] {
            for entry in std::fs::read_dir(directory).unwrap() {
                let path = entry.unwrap().path();
                if path.extension().is_some_and(|extension| extension == "sse") {
                    paths.push(path);
                }
            }
        }
        paths.sort();
        assert!(paths.len() >= 24, "{paths:?}");
        let (mut read_count, mut event_count) = (0, 0);
        for path in &paths {
            let mut parser = crate::sse::SseParser::new();
            let events = parser.feed(&std::fs::read(path).unwrap()).unwrap();
            for event in events {
                event_count += 1;
                read_count += usize::from(same_as_serde(&event.data));
            }
        }
        eprintln!("{read_count} of {event_count} fixture events read by the fast path");
        assert!(
            read_count * 2 > event_count,
            "{read_count} of {event_count}"
        );
    }

    /// serde_json stops at 128 nested levels; the fast path hands deep values to serde.
    #[test]
    fn nesting_past_serdes_limit_is_left_to_serde() {
        for levels in [1, 50, 99, 100, 125, 126, 127, 128, 200] {
            let nested = format!("{}{}", "[".repeat(levels), "]".repeat(levels));
            let data = format!(r#"{{"choices":[{{"index":0,"logprobs":{nested}}}],"usage":null}}"#);
            assert_eq!(same_as_serde(&data), levels < 100, "{levels} levels");
            let data = format!(r#"{{"usage":{{"a":{nested}}}}}"#);
            assert_eq!(
                same_as_serde(&data),
                levels < 99,
                "{levels} levels in usage"
            );
        }
    }

    /// JSON strings the fast path reads.
    fn plain_string() -> BoxedStrategy<String> {
        prop_oneof![
            Just(r#""""#.to_owned()),
            Just(r#""plain""#.to_owned()),
            Just(r#"" é 😀""#.to_owned()),
            Just(r#""a\"b\\c\/d\be\ff\ng\rh\ti""#.to_owned()),
            Just(r#""\u00e9\u0041\u0000\uFFFF""#.to_owned()),
            "\"[a-z <>/]{0,6}\"",
        ]
        .boxed()
    }

    /// Scalars the fast path reads.
    fn plain_scalar() -> BoxedStrategy<String> {
        prop_oneof![
            4 => plain_string(),
            2 => Just("null".to_owned()),
            1 => Just("true".to_owned()),
            1 => Just("false".to_owned()),
            1 => Just("0".to_owned()),
            1 => Just("1796157261".to_owned()),
            1 => Just("9999999999999999999".to_owned()),
        ]
        .boxed()
    }

    /// Values off the usual path: JSON or not, that the fast path gives up on or hands to
    /// serde (nested values).
    fn odd_value() -> BoxedStrategy<String> {
        prop_oneof![
            Just(r#""\ud83d\ude00""#.to_owned()),
            Just(r#""\ud83d""#.to_owned()),
            Just(r#""\q""#.to_owned()),
            Just(r#""\u00g0""#.to_owned()),
            Just("\"raw\ttab\"".to_owned()),
            "\"[a-z\\\\\"]{1,4}\"",
            Just("-1".to_owned()),
            Just("1.5".to_owned()),
            Just("2e3".to_owned()),
            Just("01".to_owned()),
            Just("99999999999999999999".to_owned()),
            Just("[]".to_owned()),
            Just("{}".to_owned()),
            Just(r#"{"a":[1]}"#.to_owned()),
            Just(r#"{"a":[1,{"b":"\u00e9\ud83d"}],"c":-2.5e3}"#.to_owned()),
            Just(r#"[{"x":}]"#.to_owned()),
            Just("nul".to_owned()),
        ]
        .boxed()
    }

    /// Mostly `usual`, sometimes an odd value.
    fn or_odd(usual: impl Strategy<Value = String> + 'static) -> BoxedStrategy<String> {
        prop_oneof![40 => usual, 1 => odd_value()].boxed()
    }

    fn whitespace() -> BoxedStrategy<String> {
        prop_oneof![
            6 => Just(String::new()),
            1 => "[ \t\r\n]{1,2}",
        ]
        .boxed()
    }

    /// A key of no interest: mostly without escapes, as keys are.
    fn other_key() -> BoxedStrategy<String> {
        prop_oneof![
            20 => "\"[a-z_ é]{0,8}\"",
            1 => plain_string(),
        ]
        .boxed()
    }

    /// A key: mostly `name`, sometimes another key, or a known name escaped.
    fn key(name: &'static str) -> BoxedStrategy<String> {
        prop_oneof![
            100 => Just(format!("\"{name}\"")),
            1 => plain_string(),
            1 => odd_value(),
            1 => Just(r#""t\u0079pe""#.to_owned()),
            1 => Just(r#""con\/tent""#.to_owned()),
        ]
        .boxed()
    }

    /// An object with each of the `usual` members (most of the time) and up to two `extra`
    /// ones, in any order.
    fn object(
        usual: Vec<BoxedStrategy<(String, String)>>,
        extra: BoxedStrategy<(String, String)>,
    ) -> BoxedStrategy<String> {
        let usual: Vec<_> = usual
            .into_iter()
            .map(|member| proptest::option::weighted(0.85, member))
            .collect();
        (usual, proptest::collection::vec(extra, 0..3), whitespace())
            .prop_flat_map(|(usual, extra, space)| {
                let members: Vec<(String, String)> =
                    usual.into_iter().flatten().chain(extra).collect();
                Just(members).prop_shuffle().prop_map(move |members| {
                    let members: Vec<String> = members
                        .into_iter()
                        .map(|(key, value)| format!("{space}{key}{space}:{space}{value}{space}"))
                        .collect();
                    format!("{{{}}}", members.join(","))
                })
            })
            .boxed()
    }

    /// A text field's value: mostly a string, or null.
    fn text_value() -> BoxedStrategy<String> {
        or_odd(prop_oneof![
            6 => plain_string(),
            2 => Just("null".to_owned()),
            1 => plain_scalar(),
        ])
    }

    fn delta() -> BoxedStrategy<String> {
        object(
            vec![
                (key("content"), text_value()).boxed(),
                (key("reasoning_content"), text_value()).boxed(),
            ],
            prop_oneof![
                (key("reasoning"), text_value()),
                (key("role"), text_value()),
                (
                    key("reasoning_details"),
                    or_odd(prop_oneof![
                        Just("[]".to_owned()),
                        Just("[ ]".to_owned()),
                        plain_scalar()
                    ]),
                ),
                (other_key(), or_odd(plain_scalar())),
            ]
            .boxed(),
        )
    }

    fn choice() -> BoxedStrategy<String> {
        let index = or_odd(prop_oneof![
            6 => Just("0".to_owned()),
            2 => Just("1".to_owned()),
            1 => Just("null".to_owned()),
            1 => plain_scalar(),
        ]);
        let delta_value = or_odd(prop_oneof![8 => delta(), 1 => plain_scalar()]);
        object(
            vec![
                (key("index"), index).boxed(),
                (key("delta"), delta_value).boxed(),
                (key("logprobs"), or_odd(plain_scalar())).boxed(),
                (key("finish_reason"), text_value()).boxed(),
            ],
            (other_key(), or_odd(plain_scalar())).boxed(),
        )
    }

    /// A chunk-like JSON text: mostly what the fast path reads, with every kind of deviation
    /// mixed in.
    fn chunk() -> BoxedStrategy<String> {
        let count = prop_oneof![1 => Just(0), 6 => Just(1), 1 => Just(2)];
        let choices = or_odd(prop_oneof![
            8 => (count, whitespace()).prop_flat_map(|(count, space)| {
                proptest::collection::vec(choice(), count)
                    .prop_map(move |choices| format!("[{space}{}]", choices.join(",")))
            }),
            1 => plain_scalar(),
        ]);
        let object = object(
            vec![
                (key("id"), text_value()).boxed(),
                (key("object"), text_value()).boxed(),
                (key("created"), or_odd(plain_scalar())).boxed(),
                (key("choices"), choices).boxed(),
                (
                    key("usage"),
                    or_odd(prop_oneof![
                        3 => Just("null".to_owned()),
                        1 => Just(r#"{"prompt_tokens":2,"details":{"reasoning_tokens":1}}"#.to_owned()),
                    ]),
                )
                    .boxed(),
            ],
            prop_oneof![
                4 => (other_key(), or_odd(plain_scalar())),
                2 => (key("type"), text_value()),
                1 => (key("error"), or_odd(plain_scalar())),
                1 => (key("delta"), or_odd(plain_scalar())),
            ]
            .boxed(),
        );
        (object, whitespace())
            .prop_map(|(object, around)| format!("{around}{object}{around}"))
            .boxed()
    }

    /// The generator is worth its cases: a good share of its chunks take the fast path, with
    /// a choice 0 and text in it, and a good share give up.
    #[test]
    fn generated_chunks_reach_both_paths() {
        let mut runner = proptest::test_runner::TestRunner::deterministic();
        let strategy = chunk();
        let (mut read_count, mut with_text_count, mut given_up_count) = (0, 0, 0);
        for _ in 0..2000 {
            let data = strategy.new_tree(&mut runner).unwrap().current();
            if !same_as_serde(&data) {
                given_up_count += 1;
                continue;
            }
            read_count += 1;
            let mut envelope = Envelope::default();
            read(&mut envelope, &data);
            let has_text = envelope.first_choice.is_some_and(|choice| {
                matches!(choice.delta.content, Content::Text(_))
                    || choice.delta.reasoning_content.is_some()
                    || choice.delta.reasoning.is_some()
            });
            with_text_count += usize::from(has_text);
        }
        eprintln!("read {read_count} (with text {with_text_count}), gave up {given_up_count}");
        assert!(read_count >= 400 && with_text_count >= 100 && given_up_count >= 400);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4000))]

        #[test]
        fn generated_chunks_read_the_same(data in chunk()) {
            same_as_serde(&data);
        }

        /// Any edit of a chunk (a cut, an inserted or a replaced character): what the fast
        /// path still reads, serde reads the same.
        #[test]
        fn edited_chunks_read_the_same(
            data in chunk(),
            at in 0usize..400,
            length in 0usize..3,
            inserted in prop_oneof![
                Just(""), Just("\""), Just("\\"), Just(","), Just(":"), Just("{"), Just("}"),
                Just("["), Just("]"), Just(" "), Just("0"), Just("-"), Just("."), Just("n"),
                Just("\u{1}"), Just("é"),
            ],
        ) {
            let mut start = at.min(data.len());
            while !data.is_char_boundary(start) {
                start -= 1;
            }
            let mut end = (start + length).min(data.len());
            while !data.is_char_boundary(end) {
                end += 1;
            }
            let edited = format!("{}{inserted}{}", &data[..start], &data[end..]);
            same_as_serde(&edited);
        }
    }
}
