//! The provider JSON that decoding reads, deserialized straight from an event's data: the few
//! fields that matter, borrowed where the text has no escapes, and everything else skipped
//! without being built (no `serde_json::Value` per event; only the rare usage and error
//! objects are kept whole, because they are reported exactly as sent).
//!
//! The visitors are written out rather than derived so that they read JSON as leniently as a
//! `Value` lookup does: a field of an unexpected type counts as absent (`"index": "0"`, a
//! string `choices`, a non-object `delta`...) instead of making the whole event malformed,
//! and a repeated key keeps its last value, as `serde_json::Map` does. An event is malformed
//! exactly when its data is not JSON.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::Value;

mod fast;

/// One SSE event as the family decoders see it.
pub(crate) struct EventInput<'a> {
    /// The SSE `event:` name, if the block had one.
    pub(crate) name: Option<&'a str>,
    /// The raw data (`[DONE]` is not JSON).
    pub(crate) data: &'a str,
    /// The data read as JSON, when it is JSON.
    pub(crate) json: Option<&'a Envelope<'a>>,
}

impl EventInput<'_> {
    /// JSON `type`, else the SSE event name (Anthropic and Responses send both; the SDKs
    /// dispatch on the name, so it is the fallback — stream-formats.md §6.3).
    pub(crate) fn kind(&self) -> Option<&str> {
        self.json
            .and_then(|json| json.kind.as_deref())
            .or(self.name)
    }
}

/// The top level of an event's JSON: the union of what the Chat, Anthropic and Responses
/// decoders read (a JSON value that is not an object reads as all absent).
#[derive(Debug, Default)]
pub(crate) struct Envelope<'a> {
    /// `type`.
    pub(crate) kind: Option<Cow<'a, str>>,
    /// `object` (Chat: `chat.completion.chunk`).
    pub(crate) object: Option<Cow<'a, str>>,
    /// Whether a `choices` key is present, whatever its value (Chat detection).
    pub(crate) has_choices: bool,
    /// Choice 0 of `choices`: the first element whose `index` is 0, or that has no integer
    /// `index` and stands at position 0.
    pub(crate) first_choice: Option<Choice<'a>>,
    /// `usage`, unless absent or `null`.
    pub(crate) usage: Option<Value>,
    /// `error`, unless absent or `null`.
    pub(crate) error: Option<Value>,
    /// `delta`: a string (Responses) or an object (Anthropic).
    pub(crate) delta: Fields<'a>,
    /// `content_block` (Anthropic `content_block_start`).
    pub(crate) content_block: Fields<'a>,
    /// `message` (Anthropic `message_start`: its `usage`).
    pub(crate) message: ResponseBody<'a>,
    /// `response` (Responses terminal events).
    pub(crate) response: ResponseBody<'a>,
    /// `timings` (llama.cpp's server, on the final chunk), unless absent or `null`.
    pub(crate) timings: Option<Value>,
    /// `x_groq` (Groq: its `usage` holds the server's times), unless absent or `null`.
    pub(crate) x_groq: Option<Value>,
    /// `metrics` (vLLM with `--enable-per-request-metrics`, on the final usage chunk).
    pub(crate) metrics: Option<Value>,
    /// `stats` (NVIDIA NIM with `NIM_PER_REQ_METRICS_ENABLE=1`).
    pub(crate) stats: Option<Value>,
    /// `time_info` (Cerebras, on the final chunk; seconds).
    pub(crate) time_info: Option<Value>,
    /// `perf_metrics` (Fireworks with `perf_metrics_in_response`, on the final chunk).
    pub(crate) perf_metrics: Option<Value>,
}

impl<'a> Envelope<'a> {
    /// Reads `data` as JSON; `None` when it is not JSON.
    #[cfg(test)]
    pub(crate) fn parse(data: &'a str) -> Option<Envelope<'a>> {
        let mut envelope = Envelope::default();
        envelope.read(data).then_some(envelope)
    }

    /// Reads `data` as JSON into this (default) envelope, in place: it is large, and moving it
    /// per event costs more than reading most events. False when `data` is not JSON.
    ///
    /// The usual Chat chunk is read by a fast path ([`fast`]), everything else (and anything
    /// the fast path is unsure of) by serde; both read the same envelope.
    pub(crate) fn read(&mut self, data: &'a str) -> bool {
        fast::read(self, data) || self.read_with_serde(data)
    }

    /// [`Envelope::read`] through serde alone.
    pub(crate) fn read_with_serde(&mut self, data: &'a str) -> bool {
        let mut deserializer = serde_json::Deserializer::from_str(data);
        EnvelopeVisitor(self)
            .deserialize(&mut deserializer)
            .and_then(|()| deserializer.end())
            .is_ok()
    }
}

/// One element of Chat `choices`.
#[derive(Debug, Default)]
pub(crate) struct Choice<'a> {
    /// `index`, when a non-negative integer.
    pub(crate) index: Option<u64>,
    /// `delta`.
    pub(crate) delta: ChatDelta<'a>,
    /// `finish_reason`, when a string.
    pub(crate) finish_reason: Option<Cow<'a, str>>,
}

/// A Chat `delta`.
#[derive(Debug, Default)]
pub(crate) struct ChatDelta<'a> {
    /// `content`.
    pub(crate) content: Content<'a>,
    /// `reasoning_content` (DeepSeek, SGLang, vLLM before the rename).
    pub(crate) reasoning_content: Option<Cow<'a, str>>,
    /// `reasoning` (vLLM, Ollama, OpenRouter).
    pub(crate) reasoning: Option<Cow<'a, str>>,
    /// The text of `reasoning_details` items (`text`, else `summary`), concatenated; `None`
    /// when the key is absent or not an array.
    pub(crate) reasoning_details: Option<Cow<'a, str>>,
}

/// Chat `content`: a string, or an array of typed parts (Mistral Magistral, §3.9).
#[derive(Debug, Default)]
pub(crate) enum Content<'a> {
    /// Absent, `null` or of another type.
    #[default]
    Absent,
    /// A string.
    Text(Cow<'a, str>),
    /// An array of parts.
    Parts(Vec<Part<'a>>),
}

/// One content part.
#[derive(Debug, Default)]
pub(crate) struct Part<'a> {
    /// `type`, when a string.
    pub(crate) kind: Option<Cow<'a, str>>,
    /// `text`, when a string.
    pub(crate) text: Option<Cow<'a, str>>,
    /// `thinking`: a string, or the text of its items (strings or `{text}` parts) joined.
    pub(crate) thinking: Option<Cow<'a, str>>,
}

/// The text fields of an object, or a bare string: what Anthropic's `delta` and
/// `content_block`, Responses' string `delta`, `reasoning_details` items and `thinking` list
/// items hold (one shape, so one visitor serves them all).
#[derive(Debug, Default)]
pub(crate) struct Fields<'a> {
    /// The value itself, when a string (Responses `delta`, a `thinking` list item).
    pub(crate) text_value: Option<Cow<'a, str>>,
    /// `type` (Anthropic: `text_delta`, `thinking_delta`...).
    pub(crate) kind: Option<Cow<'a, str>>,
    /// `thinking`.
    pub(crate) thinking: Option<Cow<'a, str>>,
    /// `text`.
    pub(crate) text: Option<Cow<'a, str>>,
    /// `stop_reason` (Anthropic `message_delta`).
    pub(crate) stop_reason: Option<Cow<'a, str>>,
    /// `summary` (`reasoning.summary` items).
    pub(crate) summary: Option<Cow<'a, str>>,
}

/// A Responses `response` object, or Anthropic's `message` (only its `usage` is read).
#[derive(Debug, Default)]
pub(crate) struct ResponseBody<'a> {
    /// `status`.
    pub(crate) status: Option<Cow<'a, str>>,
    /// `usage`, unless absent or `null`.
    pub(crate) usage: Option<Value>,
    /// `error`, unless absent or `null`.
    pub(crate) error: Option<Value>,
}

// ----- The lenient reading machinery ---------------------------------------------------------

/// Visitor methods that read every JSON type the visitor does not want as "absent"
/// (`Default`), skipping nested arrays and objects without building them.
macro_rules! absent_unless {
    ($($wanted:ident),*) => {
        absent_unless!(@each [bool i64 u64 f64 str unit seq map] [$($wanted)*]);
    };
    (@each [$($kind:ident)*] $wanted:tt) => {
        $( absent_unless!(@one $kind $wanted); )*
    };
    (@one $kind:ident [$($wanted:ident)*]) => {
        absent_unless!(@maybe $kind [$($wanted)*] [$($wanted)*]);
    };
    // Generate the method only when `$kind` is not in the wanted list.
    (@maybe $kind:ident [] $all:tt) => { absent_unless!(@method $kind); };
    (@maybe $kind:ident [$first:ident $($rest:ident)*] $all:tt) => {
        absent_unless!(@compare $kind $first [$($rest)*] $all);
    };
    (@compare bool bool $rest:tt $all:tt) => {};
    (@compare i64 i64 $rest:tt $all:tt) => {};
    (@compare u64 u64 $rest:tt $all:tt) => {};
    (@compare f64 f64 $rest:tt $all:tt) => {};
    (@compare str str $rest:tt $all:tt) => {};
    (@compare unit unit $rest:tt $all:tt) => {};
    (@compare seq seq $rest:tt $all:tt) => {};
    (@compare map map $rest:tt $all:tt) => {};
    (@compare $kind:ident $other:ident $rest:tt $all:tt) => {
        absent_unless!(@maybe $kind $rest $all);
    };
    (@method bool) => {
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
            Ok(Default::default())
        }
    };
    (@method i64) => {
        fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
            Ok(Default::default())
        }
    };
    (@method u64) => {
        fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
            Ok(Default::default())
        }
    };
    (@method f64) => {
        fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
            Ok(Default::default())
        }
    };
    (@method str) => {
        fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
            Ok(Default::default())
        }
    };
    (@method unit) => {
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(Default::default())
        }
    };
    (@method seq) => {
        fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
            skip_seq(seq).map(|()| Default::default())
        }
    };
    (@method map) => {
        fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
            skip_map(map).map(|()| Default::default())
        }
    };
}

/// Skips an array unread. Not inlined: every visitor shares this one copy (wasm size).
#[inline(never)]
fn skip_seq<'de, A: SeqAccess<'de>>(mut seq: A) -> Result<(), A::Error> {
    while seq.next_element::<IgnoredAny>()?.is_some() {}
    Ok(())
}

/// Skips an object unread (one shared copy, as [`skip_seq`]).
#[inline(never)]
fn skip_map<'de, A: MapAccess<'de>>(mut map: A) -> Result<(), A::Error> {
    while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
    Ok(())
}

/// Implements `Deserialize` for a type through its visitor, with `deserialize_any` (JSON is
/// self-describing, and a lenient reader must accept every type).
macro_rules! deserialize_with {
    ($target:ident, $visitor:ident) => {
        impl<'de> Deserialize<'de> for $target<'de> {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                deserializer.deserialize_any($visitor)
            }
        }
    };
}

/// A matcher from an object's key to the position of a known name (`None` for other keys).
/// The length and first byte are compared before the bytes: most keys of an event are not
/// read, and at the shipped opt-level a byte comparison is a call.
macro_rules! key_positions {
    ($($position:literal: $name:literal),* $(,)?) => {
        |key: &str| {
            let first = key.as_bytes().first().copied();
            $(
                if key.len() == $name.len() && first == Some($name.as_bytes()[0]) && key == $name {
                    return Some($position);
                }
            )*
            None
        }
    };
}

/// Reads a map's keys through a matcher, without allocating for escaped keys.
struct KeyIndex<K>(K);

impl<'de, K: Fn(&str) -> Option<usize>> DeserializeSeed<'de> for KeyIndex<K> {
    type Value = Option<usize>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de, K: Fn(&str) -> Option<usize>> Visitor<'de> for KeyIndex<K> {
    type Value = Option<usize>;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("an object key")
    }

    fn visit_str<E: de::Error>(self, key: &str) -> Result<Self::Value, E> {
        Ok((self.0)(key))
    }
}

/// Iterates an object's known keys: `on_field(position, map)` must read the value.
fn for_each_field<'de, A: MapAccess<'de>>(
    mut map: A,
    keys: impl Fn(&str) -> Option<usize> + Copy,
    mut on_field: impl FnMut(usize, &mut A) -> Result<(), A::Error>,
) -> Result<(), A::Error> {
    while let Some(key) = map.next_key_seed(KeyIndex(keys))? {
        match key {
            Some(position) => on_field(position, &mut map)?,
            None => {
                map.next_value::<IgnoredAny>()?;
            }
        }
    }
    Ok(())
}

/// A string, borrowed when it has no escapes; any other type is absent.
#[derive(Debug, Default)]
struct Text<'a>(Option<Cow<'a, str>>);

struct TextVisitor;

impl<'de> Visitor<'de> for TextVisitor {
    type Value = Text<'de>;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("any JSON value")
    }

    fn visit_borrowed_str<E: de::Error>(self, text: &'de str) -> Result<Self::Value, E> {
        Ok(Text(Some(Cow::Borrowed(text))))
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<Self::Value, E> {
        Ok(Text(Some(Cow::Owned(text.to_owned()))))
    }

    absent_unless!(str);
}

deserialize_with!(Text, TextVisitor);

/// Reads the value of the current key as a lenient string.
fn text<'de, A: MapAccess<'de>>(map: &mut A) -> Result<Option<Cow<'de, str>>, A::Error> {
    Ok(map.next_value::<Text<'de>>()?.0)
}

/// A JSON value kept whole unless it is `null` (usage and error objects, reported as sent).
fn non_null<'de, A: MapAccess<'de>>(map: &mut A) -> Result<Option<Value>, A::Error> {
    Ok(Some(map.next_value::<Value>()?).filter(|value| !value.is_null()))
}

/// A non-negative integer; any other value is absent (as `Value::as_u64`).
#[derive(Default)]
struct Index(Option<u64>);

struct IndexVisitor;

impl<'de> Visitor<'de> for IndexVisitor {
    type Value = Index;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("any JSON value")
    }

    fn visit_u64<E: de::Error>(self, index: u64) -> Result<Self::Value, E> {
        Ok(Index(Some(index)))
    }

    fn visit_i64<E: de::Error>(self, index: i64) -> Result<Self::Value, E> {
        Ok(Index(u64::try_from(index).ok()))
    }

    absent_unless!(u64, i64);
}

impl<'de> Deserialize<'de> for Index {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(IndexVisitor)
    }
}

// ----- The shapes ----------------------------------------------------------------------------

/// Fills an envelope in place (see [`Envelope::read`]).
struct EnvelopeVisitor<'e, 'a>(&'e mut Envelope<'a>);

impl<'de> DeserializeSeed<'de> for EnvelopeVisitor<'_, 'de> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for EnvelopeVisitor<'_, 'de> {
    type Value = ();

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("any JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<(), A::Error> {
        // Chat's keys first: they are the most frequent.
        let keys = key_positions!(
            2: "choices",
            1: "object",
            3: "usage",
            0: "type",
            4: "error",
            5: "delta",
            6: "content_block",
            7: "message",
            8: "response",
            9: "timings",
            10: "x_groq",
            11: "metrics",
            12: "stats",
            13: "time_info",
            14: "perf_metrics",
        );
        let envelope = self.0;
        for_each_field(map, keys, |position, map| {
            match position {
                0 => envelope.kind = text(map)?,
                1 => envelope.object = text(map)?,
                2 => {
                    envelope.has_choices = true;
                    envelope.first_choice = map.next_value::<FirstChoice<'de>>()?.0;
                }
                3 => envelope.usage = non_null(map)?,
                4 => envelope.error = non_null(map)?,
                5 => envelope.delta = map.next_value()?,
                6 => envelope.content_block = map.next_value()?,
                7 => envelope.message = map.next_value()?,
                8 => envelope.response = map.next_value()?,
                9 => envelope.timings = non_null(map)?,
                10 => envelope.x_groq = non_null(map)?,
                11 => envelope.metrics = non_null(map)?,
                12 => envelope.stats = non_null(map)?,
                13 => envelope.time_info = non_null(map)?,
                _ => envelope.perf_metrics = non_null(map)?,
            }
            Ok(())
        })
    }

    absent_unless!(map);
}

/// Choice 0 of a `choices` array (anything else reads as no choice).
#[derive(Default)]
struct FirstChoice<'a>(Option<Choice<'a>>);

struct FirstChoiceVisitor;

impl<'de> Visitor<'de> for FirstChoiceVisitor {
    type Value = FirstChoice<'de>;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("any JSON value")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut found = None;
        let mut position: u64 = 0;
        while found.is_none() {
            let Some(choice) = seq.next_element::<Choice<'de>>()? else {
                break;
            };
            if choice.index.unwrap_or(position) == 0 {
                found = Some(choice);
            }
            position += 1;
        }
        // The other choices are other answers to the same prompt: skip them unread.
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(FirstChoice(found))
    }

    absent_unless!(seq);
}

deserialize_with!(FirstChoice, FirstChoiceVisitor);

struct ChoiceVisitor;

impl<'de> Visitor<'de> for ChoiceVisitor {
    type Value = Choice<'de>;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("any JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        let mut choice = Choice::default();
        let keys = key_positions!(1: "delta", 0: "index", 2: "finish_reason");
        for_each_field(map, keys, |position, map| {
            match position {
                0 => choice.index = map.next_value::<Index>()?.0,
                1 => choice.delta = map.next_value()?,
                _ => choice.finish_reason = text(map)?,
            }
            Ok(())
        })?;
        Ok(choice)
    }

    absent_unless!(map);
}

deserialize_with!(Choice, ChoiceVisitor);

struct ChatDeltaVisitor;

impl<'de> Visitor<'de> for ChatDeltaVisitor {
    type Value = ChatDelta<'de>;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("any JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        let keys = key_positions!(
            0: "content",
            1: "reasoning_content",
            2: "reasoning",
            3: "reasoning_details",
        );
        let mut delta = ChatDelta::default();
        for_each_field(map, keys, |position, map| {
            match position {
                0 => delta.content = map.next_value()?,
                1 => delta.reasoning_content = text(map)?,
                2 => delta.reasoning = text(map)?,
                _ => delta.reasoning_details = map.next_value_seed(JoinedText::DETAILS)?,
            }
            Ok(())
        })?;
        Ok(delta)
    }

    absent_unless!(map);
}

deserialize_with!(ChatDelta, ChatDeltaVisitor);

struct ContentVisitor;

impl<'de> Visitor<'de> for ContentVisitor {
    type Value = Content<'de>;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("any JSON value")
    }

    fn visit_borrowed_str<E: de::Error>(self, text: &'de str) -> Result<Self::Value, E> {
        Ok(Content::Text(Cow::Borrowed(text)))
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<Self::Value, E> {
        Ok(Content::Text(Cow::Owned(text.to_owned())))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut parts = Vec::new();
        while let Some(part) = seq.next_element::<Part<'de>>()? {
            parts.push(part);
        }
        Ok(Content::Parts(parts))
    }

    absent_unless!(str, seq);
}

deserialize_with!(Content, ContentVisitor);

struct PartVisitor;

impl<'de> Visitor<'de> for PartVisitor {
    type Value = Part<'de>;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("any JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        let mut part = Part::default();
        let keys = key_positions!(0: "type", 1: "text", 2: "thinking");
        for_each_field(map, keys, |position, map| {
            match position {
                0 => part.kind = text(map)?,
                1 => part.text = text(map)?,
                _ => part.thinking = map.next_value_seed(JoinedText::THINKING)?,
            }
            Ok(())
        })?;
        Ok(part)
    }

    absent_unless!(map);
}

deserialize_with!(Part, PartVisitor);

/// Text joined from a list: a part's `thinking` (a string, or items that are strings or
/// `{text}` parts) or `reasoning_details` (items' `text`, else `summary`; an array only).
/// `None` when the value has another type.
#[derive(Clone, Copy)]
struct JoinedText {
    /// A string value is the text itself.
    string_too: bool,
    /// Which text an item gives.
    item_text: for<'f, 'a> fn(&'f Fields<'a>) -> Option<&'f Cow<'a, str>>,
}

impl JoinedText {
    const THINKING: JoinedText = JoinedText {
        string_too: true,
        item_text: |item| item.text_value.as_ref().or(item.text.as_ref()),
    };
    const DETAILS: JoinedText = JoinedText {
        string_too: false,
        // `reasoning.text` items carry `text`, `reasoning.summary` items `summary`;
        // `reasoning.encrypted` carries no readable text.
        item_text: |item| item.text.as_ref().or(item.summary.as_ref()),
    };
}

impl<'de> DeserializeSeed<'de> for JoinedText {
    type Value = Option<Cow<'de, str>>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for JoinedText {
    type Value = Option<Cow<'de, str>>;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("any JSON value")
    }

    fn visit_borrowed_str<E: de::Error>(self, text: &'de str) -> Result<Self::Value, E> {
        Ok(self.string_too.then_some(Cow::Borrowed(text)))
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<Self::Value, E> {
        Ok(self.string_too.then(|| Cow::Owned(text.to_owned())))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut joined = String::new();
        while let Some(item) = seq.next_element::<Fields<'de>>()? {
            if let Some(text) = (self.item_text)(&item) {
                joined.push_str(text);
            }
        }
        Ok(Some(Cow::Owned(joined)))
    }

    absent_unless!(str, seq);
}

struct FieldsVisitor;

impl<'de> Visitor<'de> for FieldsVisitor {
    type Value = Fields<'de>;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("any JSON value")
    }

    fn visit_borrowed_str<E: de::Error>(self, text: &'de str) -> Result<Self::Value, E> {
        Ok(Fields {
            text_value: Some(Cow::Borrowed(text)),
            ..Fields::default()
        })
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<Self::Value, E> {
        Ok(Fields {
            text_value: Some(Cow::Owned(text.to_owned())),
            ..Fields::default()
        })
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        let mut fields = Fields::default();
        let keys = key_positions!(
            0: "type",
            1: "thinking",
            2: "text",
            3: "stop_reason",
            4: "summary",
        );
        for_each_field(map, keys, |position, map| {
            let slot = match position {
                0 => &mut fields.kind,
                1 => &mut fields.thinking,
                2 => &mut fields.text,
                3 => &mut fields.stop_reason,
                _ => &mut fields.summary,
            };
            *slot = text(map)?;
            Ok(())
        })?;
        Ok(fields)
    }

    absent_unless!(str, map);
}

deserialize_with!(Fields, FieldsVisitor);

struct ResponseBodyVisitor;

impl<'de> Visitor<'de> for ResponseBodyVisitor {
    type Value = ResponseBody<'de>;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("any JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        let mut response = ResponseBody::default();
        let keys = key_positions!(0: "status", 1: "usage", 2: "error");
        for_each_field(map, keys, |position, map| {
            match position {
                0 => response.status = text(map)?,
                1 => response.usage = non_null(map)?,
                _ => response.error = non_null(map)?,
            }
            Ok(())
        })?;
        Ok(response)
    }

    absent_unless!(map);
}

deserialize_with!(ResponseBody, ResponseBodyVisitor);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unexpected_types_read_as_absent_and_the_event_stays_json() {
        for data in [
            r#"{"choices":"x","type":5,"delta":[1,{"a":2}],"usage":null,"response":7}"#,
            r#"[1,2,{"choices":[]}]"#,
            r#""text""#,
            "12.5",
            "null",
            r#"{"choices":[{"index":"0","delta":3,"finish_reason":false}]}"#,
        ] {
            let envelope = Envelope::parse(data);
            assert!(envelope.is_some(), "{data}");
        }
        let envelope = Envelope::parse(r#"{"choices":"x"}"#).unwrap();
        assert!(envelope.has_choices && envelope.first_choice.is_none());
        assert!(Envelope::parse(r#"{"choices":[}"#).is_none());
        assert!(Envelope::parse("").is_none());
    }

    #[test]
    fn choice_zero_by_index_else_position_and_last_duplicate_key_wins() {
        let envelope = Envelope::parse(
            r#"{"choices":[{"index":1,"delta":{"content":"B"}},{"index":0,"delta":{"content":"A"}}]}"#,
        )
        .unwrap();
        let choice = envelope.first_choice.unwrap();
        assert!(matches!(choice.delta.content, Content::Text(ref text) if text == "A"));
        let envelope = Envelope::parse(
            r#"{"choices":[{"index":-1,"delta":{"content":"first"}},{"delta":{"content":"x"}}]}"#,
        )
        .unwrap();
        // A negative index is no integer index: position 0 decides.
        assert!(
            matches!(envelope.first_choice.unwrap().delta.content, Content::Text(ref t) if t == "first")
        );
        let envelope =
            Envelope::parse(r#"{"type":"a","type":"b","object":"o","object":3}"#).unwrap();
        assert_eq!(envelope.kind.as_deref(), Some("b"));
        assert_eq!(envelope.object, None);
    }

    #[test]
    fn text_is_borrowed_unless_escaped() {
        let envelope = Envelope::parse(
            r#"{"choices":[{"delta":{"content":"plain","reasoning":"new\nline"}}]}"#,
        )
        .unwrap();
        let delta = envelope.first_choice.unwrap().delta;
        assert!(matches!(
            delta.content,
            Content::Text(Cow::Borrowed("plain"))
        ));
        assert!(matches!(delta.reasoning, Some(Cow::Owned(ref text)) if text == "new\nline"));
    }

    #[test]
    fn details_parts_and_escaped_keys() {
        let envelope = Envelope::parse(
            r#"{"choices":[{"delta":{"reasoning_details":[{"type":"reasoning.summary","summary":"s"},{"text":null,"summary":"t"},{"type":"reasoning.encrypted","data":"x"},5],
            "content":[{"type":"thinking","thinking":["a",{"text":"b"},3]},{"t\u0079pe":"text","text":"c"}]}}]}"#,
        )
        .unwrap();
        let delta = envelope.first_choice.unwrap().delta;
        assert_eq!(delta.reasoning_details.as_deref(), Some("st"));
        let Content::Parts(parts) = delta.content else {
            panic!("parts expected");
        };
        assert_eq!(parts[0].thinking.as_deref(), Some("ab"));
        assert_eq!(
            (parts[1].kind.as_deref(), parts[1].text.as_deref()),
            (Some("text"), Some("c"))
        );
    }
}
