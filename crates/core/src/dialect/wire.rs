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
    pub(crate) delta: TopDelta<'a>,
    /// `content_block` (Anthropic `content_block_start`).
    pub(crate) content_block: ContentBlock<'a>,
    /// `message.usage` (Anthropic `message_start`), unless absent or `null`.
    pub(crate) message_usage: Option<Value>,
    /// `response` (Responses terminal events).
    pub(crate) response: ResponseBody<'a>,
}

impl<'a> Envelope<'a> {
    /// Reads `data` as JSON; `None` when it is not JSON.
    pub(crate) fn parse(data: &'a str) -> Option<Envelope<'a>> {
        serde_json::from_str(data).ok()
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
    pub(crate) reasoning_details: Option<String>,
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

/// A top-level `delta`: Responses sends the text as a string, Anthropic an object.
#[derive(Debug, Default)]
pub(crate) struct TopDelta<'a> {
    /// The value itself, when a string (Responses).
    pub(crate) text_value: Option<Cow<'a, str>>,
    /// `type` (Anthropic: `text_delta`, `thinking_delta`...).
    pub(crate) kind: Option<Cow<'a, str>>,
    /// `thinking`.
    pub(crate) thinking: Option<Cow<'a, str>>,
    /// `text`.
    pub(crate) text: Option<Cow<'a, str>>,
    /// `stop_reason` (Anthropic `message_delta`).
    pub(crate) stop_reason: Option<Cow<'a, str>>,
}

/// An Anthropic `content_block`.
#[derive(Debug, Default)]
pub(crate) struct ContentBlock<'a> {
    /// `type`.
    pub(crate) kind: Option<Cow<'a, str>>,
    /// `thinking`.
    pub(crate) thinking: Option<Cow<'a, str>>,
    /// `text`.
    pub(crate) text: Option<Cow<'a, str>>,
}

/// A Responses `response` object.
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
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            while seq.next_element::<IgnoredAny>()?.is_some() {}
            Ok(Default::default())
        }
    };
    (@method map) => {
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
            Ok(Default::default())
        }
    };
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

/// Reads a map's keys as the position of a known name (`None` for any other key), without
/// allocating for escaped keys.
struct KeyIndex(&'static [&'static str]);

impl<'de> DeserializeSeed<'de> for KeyIndex {
    type Value = Option<usize>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeyIndex {
    type Value = Option<usize>;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("an object key")
    }

    fn visit_str<E: de::Error>(self, key: &str) -> Result<Self::Value, E> {
        Ok(self.0.iter().position(|name| *name == key))
    }
}

/// Iterates an object's known keys: `on_field(position, map)` must read the value.
fn for_each_field<'de, A: MapAccess<'de>>(
    mut map: A,
    names: &'static [&'static str],
    mut on_field: impl FnMut(usize, &mut A) -> Result<(), A::Error>,
) -> Result<(), A::Error> {
    while let Some(key) = map.next_key_seed(KeyIndex(names))? {
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

struct EnvelopeVisitor;

impl<'de> Visitor<'de> for EnvelopeVisitor {
    type Value = Envelope<'de>;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("any JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        const NAMES: &[&str] = &[
            "type",
            "object",
            "choices",
            "usage",
            "error",
            "delta",
            "content_block",
            "message",
            "response",
        ];
        let mut envelope = Envelope::default();
        for_each_field(map, NAMES, |position, map| {
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
                7 => envelope.message_usage = map.next_value::<MessageUsage>()?.0,
                _ => envelope.response = map.next_value()?,
            }
            Ok(())
        })?;
        Ok(envelope)
    }

    absent_unless!(map);
}

deserialize_with!(Envelope, EnvelopeVisitor);

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
        for_each_field(
            map,
            &["index", "delta", "finish_reason"],
            |position, map| {
                match position {
                    0 => choice.index = map.next_value::<Index>()?.0,
                    1 => choice.delta = map.next_value()?,
                    _ => choice.finish_reason = text(map)?,
                }
                Ok(())
            },
        )?;
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
        const NAMES: &[&str] = &[
            "content",
            "reasoning_content",
            "reasoning",
            "reasoning_details",
        ];
        let mut delta = ChatDelta::default();
        for_each_field(map, NAMES, |position, map| {
            match position {
                0 => delta.content = map.next_value()?,
                1 => delta.reasoning_content = text(map)?,
                2 => delta.reasoning = text(map)?,
                _ => delta.reasoning_details = map.next_value::<DetailsText>()?.0,
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
        for_each_field(map, &["type", "text", "thinking"], |position, map| {
            match position {
                0 => part.kind = text(map)?,
                1 => part.text = text(map)?,
                _ => part.thinking = map.next_value::<ThinkingText>()?.0,
            }
            Ok(())
        })?;
        Ok(part)
    }

    absent_unless!(map);
}

deserialize_with!(Part, PartVisitor);

/// A part's `thinking`: a string, or an array whose items are strings or `{text}` parts.
#[derive(Default)]
struct ThinkingText<'a>(Option<Cow<'a, str>>);

struct ThinkingTextVisitor;

impl<'de> Visitor<'de> for ThinkingTextVisitor {
    type Value = ThinkingText<'de>;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("any JSON value")
    }

    fn visit_borrowed_str<E: de::Error>(self, text: &'de str) -> Result<Self::Value, E> {
        Ok(ThinkingText(Some(Cow::Borrowed(text))))
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<Self::Value, E> {
        Ok(ThinkingText(Some(Cow::Owned(text.to_owned()))))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut joined = String::new();
        while let Some(item) = seq.next_element::<TextItem<'de>>()? {
            joined.push_str(item.0.as_deref().unwrap_or_default());
        }
        Ok(ThinkingText(Some(Cow::Owned(joined))))
    }

    absent_unless!(str, seq);
}

deserialize_with!(ThinkingText, ThinkingTextVisitor);

/// An item of a text list: a string, or an object's `text` string.
#[derive(Default)]
struct TextItem<'a>(Option<Cow<'a, str>>);

struct TextItemVisitor;

impl<'de> Visitor<'de> for TextItemVisitor {
    type Value = TextItem<'de>;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("any JSON value")
    }

    fn visit_borrowed_str<E: de::Error>(self, text: &'de str) -> Result<Self::Value, E> {
        Ok(TextItem(Some(Cow::Borrowed(text))))
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<Self::Value, E> {
        Ok(TextItem(Some(Cow::Owned(text.to_owned()))))
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        let mut item = None;
        for_each_field(map, &["text"], |_, map| {
            item = text(map)?;
            Ok(())
        })?;
        Ok(TextItem(item))
    }

    absent_unless!(str, map);
}

deserialize_with!(TextItem, TextItemVisitor);

/// The text of `reasoning_details`: per item `text`, else `summary` (`reasoning.encrypted`
/// items carry neither); `None` when the value is not an array.
#[derive(Default)]
struct DetailsText(Option<String>);

struct DetailsTextVisitor;

impl<'de> Visitor<'de> for DetailsTextVisitor {
    type Value = DetailsText;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("any JSON value")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut joined = String::new();
        while let Some(detail) = seq.next_element::<Detail<'de>>()? {
            if let Some(text) = detail.text.or(detail.summary) {
                joined.push_str(&text);
            }
        }
        Ok(DetailsText(Some(joined)))
    }

    absent_unless!(seq);
}

impl<'de> Deserialize<'de> for DetailsText {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(DetailsTextVisitor)
    }
}

/// One `reasoning_details` item.
#[derive(Default)]
struct Detail<'a> {
    text: Option<Cow<'a, str>>,
    summary: Option<Cow<'a, str>>,
}

struct DetailVisitor;

impl<'de> Visitor<'de> for DetailVisitor {
    type Value = Detail<'de>;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("any JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        let mut detail = Detail::default();
        for_each_field(map, &["text", "summary"], |position, map| {
            match position {
                0 => detail.text = text(map)?,
                _ => detail.summary = text(map)?,
            }
            Ok(())
        })?;
        Ok(detail)
    }

    absent_unless!(map);
}

deserialize_with!(Detail, DetailVisitor);

struct TopDeltaVisitor;

impl<'de> Visitor<'de> for TopDeltaVisitor {
    type Value = TopDelta<'de>;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("any JSON value")
    }

    fn visit_borrowed_str<E: de::Error>(self, text: &'de str) -> Result<Self::Value, E> {
        Ok(TopDelta {
            text_value: Some(Cow::Borrowed(text)),
            ..TopDelta::default()
        })
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<Self::Value, E> {
        Ok(TopDelta {
            text_value: Some(Cow::Owned(text.to_owned())),
            ..TopDelta::default()
        })
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        let mut delta = TopDelta::default();
        const NAMES: &[&str] = &["type", "thinking", "text", "stop_reason"];
        for_each_field(map, NAMES, |position, map| {
            match position {
                0 => delta.kind = text(map)?,
                1 => delta.thinking = text(map)?,
                2 => delta.text = text(map)?,
                _ => delta.stop_reason = text(map)?,
            }
            Ok(())
        })?;
        Ok(delta)
    }

    absent_unless!(str, map);
}

deserialize_with!(TopDelta, TopDeltaVisitor);

struct ContentBlockVisitor;

impl<'de> Visitor<'de> for ContentBlockVisitor {
    type Value = ContentBlock<'de>;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("any JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        let mut block = ContentBlock::default();
        for_each_field(map, &["type", "thinking", "text"], |position, map| {
            match position {
                0 => block.kind = text(map)?,
                1 => block.thinking = text(map)?,
                _ => block.text = text(map)?,
            }
            Ok(())
        })?;
        Ok(block)
    }

    absent_unless!(map);
}

deserialize_with!(ContentBlock, ContentBlockVisitor);

/// `message.usage` of Anthropic's `message_start`.
#[derive(Default)]
struct MessageUsage(Option<Value>);

struct MessageUsageVisitor;

impl<'de> Visitor<'de> for MessageUsageVisitor {
    type Value = MessageUsage;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("any JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        let mut usage = None;
        for_each_field(map, &["usage"], |_, map| {
            usage = non_null(map)?;
            Ok(())
        })?;
        Ok(MessageUsage(usage))
    }

    absent_unless!(map);
}

impl<'de> Deserialize<'de> for MessageUsage {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(MessageUsageVisitor)
    }
}

struct ResponseBodyVisitor;

impl<'de> Visitor<'de> for ResponseBodyVisitor {
    type Value = ResponseBody<'de>;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("any JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        let mut response = ResponseBody::default();
        for_each_field(map, &["status", "usage", "error"], |position, map| {
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
