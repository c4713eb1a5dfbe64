//! The OTLP/JSON encoding of the few protobuf shapes we write.
//!
//! OTLP/JSON is the proto3 JSON mapping with the deviations of the OTLP specification
//! ("JSON Protobuf Encoding"): keys are the lowerCamelCase field names (never the original
//! snake_case ones), `traceId` / `spanId` are hex strings (not base64), enums are integers
//! (never their names). From the proto3 mapping itself: 64-bit integers (`int64`,
//! `fixed64`: every `*UnixNano`, `count`, `bucketCounts`, `asInt`, `intValue`) are decimal
//! strings; doubles are JSON numbers; fields at their default value may be left out.

use serde_json::{json, Map, Value};

/// `AggregationTemporality.AGGREGATION_TEMPORALITY_DELTA` (metrics.proto).
pub(crate) const AGGREGATION_TEMPORALITY_DELTA: u32 = 1;
/// `Span.SpanKind.SPAN_KIND_CLIENT` (trace.proto).
pub(crate) const SPAN_KIND_CLIENT: u32 = 3;
/// `Status.StatusCode.STATUS_CODE_ERROR` (trace.proto).
pub(crate) const STATUS_CODE_ERROR: u32 = 2;

/// An attribute value (`AnyValue`) as we build it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum AttrValue {
    /// `stringValue`.
    Str(String),
    /// `intValue` (an int64: written as a decimal string).
    Int(i64),
    /// `doubleValue` (finite only; see [`Attributes::double`]).
    Double(f64),
    /// `boolValue`.
    Bool(bool),
    /// `arrayValue` of strings.
    StrArray(Vec<String>),
    /// An already encoded `AnyValue` (structured values such as `gen_ai.input.messages`).
    Any(Value),
}

impl AttrValue {
    /// The `AnyValue` JSON object.
    pub(crate) fn to_json(&self) -> Value {
        match self {
            AttrValue::Str(text) => json!({ "stringValue": text }),
            AttrValue::Int(number) => json!({ "intValue": number.to_string() }),
            AttrValue::Double(number) => json!({ "doubleValue": number }),
            AttrValue::Bool(flag) => json!({ "boolValue": flag }),
            AttrValue::StrArray(items) => json!({
                "arrayValue": {
                    "values": items.iter().map(|item| json!({ "stringValue": item })).collect::<Vec<_>>()
                }
            }),
            AttrValue::Any(value) => value.clone(),
        }
    }
}

/// An ordered list of attributes (`repeated KeyValue`). Keys are `&'static str` from
/// [`super::names::attr`], so a typo cannot make a new name.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Attributes {
    entries: Vec<(&'static str, AttrValue)>,
}

impl Attributes {
    /// An empty list.
    pub(crate) fn new() -> Attributes {
        Attributes::default()
    }

    /// Adds (or replaces) `key`.
    pub(crate) fn set(&mut self, key: &'static str, value: AttrValue) -> &mut Self {
        match self
            .entries
            .iter_mut()
            .find(|(existing, _)| *existing == key)
        {
            Some(entry) => entry.1 = value,
            None => self.entries.push((key, value)),
        }
        self
    }

    /// Adds a string.
    pub(crate) fn str(&mut self, key: &'static str, value: impl Into<String>) -> &mut Self {
        self.set(key, AttrValue::Str(value.into()))
    }

    /// Adds a string when there is one.
    pub(crate) fn opt_str(&mut self, key: &'static str, value: Option<&str>) -> &mut Self {
        if let Some(value) = value {
            self.str(key, value);
        }
        self
    }

    /// Adds an integer.
    pub(crate) fn int(&mut self, key: &'static str, value: i64) -> &mut Self {
        self.set(key, AttrValue::Int(value))
    }

    /// Adds an unsigned count when there is one (saturating at `i64::MAX`).
    pub(crate) fn opt_count(&mut self, key: &'static str, value: Option<u64>) -> &mut Self {
        if let Some(value) = value {
            self.int(key, i64::try_from(value).unwrap_or(i64::MAX));
        }
        self
    }

    /// Adds a double when there is one and it is finite (JSON has no NaN or infinity, and
    /// proto3 JSON would write them as strings a reader may not expect).
    pub(crate) fn double(&mut self, key: &'static str, value: Option<f64>) -> &mut Self {
        if let Some(value) = value.filter(|value| value.is_finite()) {
            self.set(key, AttrValue::Double(value));
        }
        self
    }

    /// Adds a boolean.
    pub(crate) fn bool(&mut self, key: &'static str, value: bool) -> &mut Self {
        self.set(key, AttrValue::Bool(value))
    }

    /// Adds a boolean when there is one.
    pub(crate) fn opt_bool(&mut self, key: &'static str, value: Option<bool>) -> &mut Self {
        if let Some(value) = value {
            self.bool(key, value);
        }
        self
    }

    /// The `repeated KeyValue` JSON array.
    pub(crate) fn to_json(&self) -> Value {
        Value::Array(
            self.entries
                .iter()
                .map(|(key, value)| json!({ "key": key, "value": value.to_json() }))
                .collect(),
        )
    }

    /// Whether there is no entry.
    pub(crate) fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// A 64-bit unsigned integer as proto3 JSON writes it: a decimal string.
pub(crate) fn u64_string(value: u64) -> Value {
    Value::String(value.to_string())
}

/// An object from `(key, value)` pairs, leaving out nulls (proto3 JSON omits unset fields).
pub(crate) fn object(fields: Vec<(&str, Value)>) -> Value {
    let mut map = Map::new();
    for (key, value) in fields {
        if !value.is_null() {
            map.insert(key.to_owned(), value);
        }
    }
    Value::Object(map)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn any_values_have_the_otlp_json_shapes() {
        assert_eq!(
            AttrValue::Int(443).to_json(),
            json!({ "intValue": "443" }),
            "int64 is a decimal string"
        );
        assert_eq!(
            AttrValue::Double(0.25).to_json(),
            json!({ "doubleValue": 0.25 })
        );
        assert_eq!(
            AttrValue::StrArray(vec!["Chromium 156".into()]).to_json(),
            json!({ "arrayValue": { "values": [{ "stringValue": "Chromium 156" }] } })
        );
    }

    #[test]
    fn setting_a_key_twice_replaces_it_in_place() {
        let mut attributes = Attributes::new();
        attributes.str("a", "1").str("b", "2").str("a", "3");
        assert_eq!(
            attributes.to_json(),
            json!([
                { "key": "a", "value": { "stringValue": "3" } },
                { "key": "b", "value": { "stringValue": "2" } }
            ])
        );
    }

    #[test]
    fn non_finite_doubles_are_left_out() {
        let mut attributes = Attributes::new();
        attributes
            .double("nan", Some(f64::NAN))
            .double("inf", Some(f64::INFINITY));
        assert!(attributes.is_empty());
    }
}
