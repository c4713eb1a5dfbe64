//! Reading an export back: checks in the order a user can act on them (is it JSON, is it
//! ours, is it a version this build reads, is every field right), each with its own error.

use serde_json::Value;

use crate::cut::prefix_within;
use crate::lang::Lang;
use crate::texts as t;

/// Why a file could not be imported. The messages say what to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ImportError {
    /// The text is not JSON at all.
    NotJson {
        /// serde_json's description, with line and column.
        detail: String,
    },
    /// JSON, but its `schema` field is not `ttft-meter/export`.
    NotAnExport {
        /// What was found instead: `missing`, or the value as JSON.
        found: String,
    },
    /// Written by a newer TTFT Meter with a schema this build cannot read.
    NewerVersion {
        /// The file's `schema_version`.
        found: u64,
        /// The newest version this build reads.
        supported: u32,
    },
    /// `schema_version` is missing or not a positive integer.
    InvalidVersion {
        /// What was found: `missing`, or the value as JSON.
        found: String,
    },
    /// A required field is absent.
    MissingField {
        /// Where: a path such as `runs[2].metrics`.
        path: String,
        /// The missing field's name.
        field: String,
    },
    /// A field has the wrong type or an unknown value.
    WrongField {
        /// Which field: a path such as `runs[2].metrics.ttft_ms`.
        path: String,
        /// What was wrong (e.g. `invalid type: string "fast", expected f64`).
        detail: String,
    },
}

impl ImportError {
    /// The error for the user, in a language.
    pub fn message(&self, lang: Lang) -> String {
        match self {
            ImportError::NotJson { detail } => {
                t::IMPORT_ERROR_NOT_JSON.fill(lang, &[("detail", detail)])
            }
            ImportError::NotAnExport { found } => {
                t::IMPORT_ERROR_NOT_AN_EXPORT.fill(lang, &[("found", found)])
            }
            ImportError::NewerVersion { found, supported } => t::IMPORT_ERROR_NEWER_VERSION
                .fill(lang, &[("found", found), ("supported", supported)]),
            ImportError::InvalidVersion { found } => {
                t::IMPORT_ERROR_INVALID_VERSION.fill(lang, &[("found", found)])
            }
            ImportError::MissingField { path, field } => {
                t::IMPORT_ERROR_MISSING_FIELD.fill(lang, &[("path", path), ("field", field)])
            }
            ImportError::WrongField { path, detail } => {
                t::IMPORT_ERROR_WRONG_FIELD.fill(lang, &[("path", path), ("detail", detail)])
            }
        }
    }
}

impl std::fmt::Display for ImportError {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str(&self.message(Lang::En))
    }
}

impl std::error::Error for ImportError {}

/// A JSON value in an error message: `missing` when absent, else compact JSON, shortened.
fn describe_found(value: Option<&Value>) -> String {
    const MAX_CHARS: usize = 60;
    let Some(value) = value else {
        return "missing".to_owned();
    };
    let text = value.to_string();
    if text.chars().count() <= MAX_CHARS {
        return text;
    }
    let head: String = text.chars().take(MAX_CHARS).collect();
    format!("{head}…")
}

/// The `schema` field must name our format, `schema_name`.
fn check_schema(document: &Value, schema_name: &str) -> Result<(), ImportError> {
    let schema = document.get("schema");
    if schema.and_then(Value::as_str) == Some(schema_name) {
        return Ok(());
    }
    Err(ImportError::NotAnExport {
        found: describe_found(schema),
    })
}

/// The `schema_version` field: a positive integer no newer than this build's, `supported`.
fn check_version(document: &Value, supported: u32) -> Result<u64, ImportError> {
    let found = document.get("schema_version");
    let version = found
        .and_then(Value::as_u64)
        .filter(|&version| version >= 1)
        .ok_or_else(|| ImportError::InvalidVersion {
            found: describe_found(found),
        })?;
    if version > u64::from(supported) {
        return Err(ImportError::NewerVersion {
            found: version,
            supported,
        });
    }
    Ok(version)
}

/// Reads an export document of type `T` (the export's [`super::ExportDocument`]): JSON, then
/// the schema (`schema_name`), then the version (at most `supported_version`), then every
/// field. A leading byte order mark is skipped. The format's names come in as arguments, so
/// this module depends on nothing of the document's.
///
/// Version 1 is the only one so far, so there is nothing to migrate; a version-2 build
/// would turn a version-1 `Value` into the version-2 shape here before the typed read.
pub(super) fn from_json<T: serde::de::DeserializeOwned>(
    text: &str,
    schema_name: &str,
    supported_version: u32,
) -> Result<T, ImportError> {
    // Windows editors save UTF-8 with a byte order mark, which JSON parsers refuse.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let document: Value = serde_json::from_str(text).map_err(|error| ImportError::NotJson {
        detail: error.to_string(),
    })?;
    check_schema(&document, schema_name)?;
    check_version(&document, supported_version)?;
    // Read from the text, not the Value, so a type error comes with its position, which
    // gives the field's path.
    serde_json::from_str(text).map_err(|error| field_error(text, &error))
}

/// A typed-read error, with the path of the field it happened in.
fn field_error(text: &str, error: &serde_json::Error) -> ImportError {
    let path = json_path_at(text, byte_offset(text, error.line(), error.column()));
    let full = error.to_string();
    let suffix = format!(" at line {} column {}", error.line(), error.column());
    let detail = full.strip_suffix(&suffix).unwrap_or(&full).to_owned();
    let missing = detail
        .strip_prefix("missing field `")
        .and_then(|rest| rest.strip_suffix('`'));
    match missing {
        Some(field) => ImportError::MissingField {
            path,
            field: field.to_owned(),
        },
        None => ImportError::WrongField { path, detail },
    }
}

/// The byte offset of serde_json's (1-based line, column in bytes from the line start).
fn byte_offset(text: &str, line: usize, column: usize) -> usize {
    let line_start: usize = text
        .split_inclusive('\n')
        .take(line.saturating_sub(1))
        .map(str::len)
        .sum();
    (line_start + column).min(text.len())
}

/// A container open at some point of the text.
enum Frame {
    /// Inside an object: the last key read, and whether the next string is a key.
    Object {
        key: Option<String>,
        expecting_key: bool,
    },
    /// Inside an array: the index of the current element.
    Array { index: usize },
}

/// The path (`runs[2].metrics.ttft_ms`) of the value being read at `offset` of a JSON text,
/// found by scanning the text up to there. `(document)` at the top level.
pub(crate) fn json_path_at(text: &str, offset: usize) -> String {
    let mut frames: Vec<Frame> = Vec::new();
    let mut chars = prefix_within(text, offset).chars();
    while let Some(character) = chars.next() {
        match character {
            '"' => {
                let string = read_string(&mut chars);
                if let Some(Frame::Object {
                    key,
                    expecting_key: expecting_key @ true,
                }) = frames.last_mut()
                {
                    *key = Some(string);
                    *expecting_key = false;
                }
            }
            '{' => frames.push(Frame::Object {
                key: None,
                expecting_key: true,
            }),
            '[' => frames.push(Frame::Array { index: 0 }),
            '}' | ']' => {
                frames.pop();
            }
            ',' => match frames.last_mut() {
                Some(Frame::Object { expecting_key, .. }) => *expecting_key = true,
                Some(Frame::Array { index }) => *index += 1,
                None => {}
            },
            _ => {}
        }
    }
    let path = frames.iter().fold(String::new(), |mut path, frame| {
        match frame {
            Frame::Object { key: Some(key), .. } => {
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(key);
            }
            Frame::Object { key: None, .. } => {}
            Frame::Array { index } => path.push_str(&format!("[{index}]")),
        }
        path
    });
    if path.is_empty() {
        "(document)".to_owned()
    } else {
        path
    }
}

/// Reads a JSON string after its opening quote, up to the closing one (escapes kept as the
/// escaped character; `\uXXXX` is left as is, which keys of this schema never use).
fn read_string(chars: &mut std::str::Chars<'_>) -> String {
    let mut string = String::new();
    while let Some(character) = chars.next() {
        match character {
            '"' => break,
            '\\' => {
                if let Some(escaped) = chars.next() {
                    string.push(escaped);
                }
            }
            _ => string.push(character),
        }
    }
    string
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_of_offsets() {
        let text = r#"{"runs": [{"a": 1}, {"metrics": {"ttft_ms": "x"}}], "b\"c": [1, 2]}"#;
        let cases = [
            (r#""x""#, "runs[1].metrics.ttft_ms"),
            (r#"1}"#, "runs[0].a"),
            (r#"2]"#, "b\"c[1]"),
        ];
        for (needle, expected) in cases {
            let offset = text.find(needle).map(|at| at + 1).unwrap_or(0);
            assert_eq!(json_path_at(text, offset), expected, "{needle}");
        }
        assert_eq!(json_path_at(text, 0), "(document)");
    }

    #[test]
    fn byte_offsets_of_lines() {
        let text = "ab\ncdé\nf";
        assert_eq!(byte_offset(text, 1, 2), 2);
        assert_eq!(byte_offset(text, 2, 1), 4);
        assert_eq!(byte_offset(text, 3, 0), 8);
        assert_eq!(byte_offset(text, 9, 9), text.len());
    }
}
