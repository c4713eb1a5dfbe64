//! The API key: trimmed, checked that a header can carry it, never serialized, masked when
//! shown.

use serde::{Deserialize, Serialize};

use crate::lang::Lang;
use crate::texts as t;

/// The key cannot be sent as typed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum KeyError {
    /// A line break inside the key (often a copy from a terminal or a wrapped e-mail).
    LineBreak {
        /// 1-based character position in the trimmed key.
        position: usize,
    },
    /// A space or tab inside the key.
    InnerWhitespace {
        /// 1-based character position in the trimmed key.
        position: usize,
    },
    /// A character a browser refuses in a header (fetch throws before sending).
    InvalidCharacter {
        /// 1-based character position in the trimmed key.
        position: usize,
    },
}

/// An API key, trimmed and validated. Never serialized; `Debug` shows it masked.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    /// Trims the key and checks it can be sent in a header. `Ok(None)` when nothing was
    /// typed (local servers need no key).
    pub fn parse(raw: &str) -> Result<Option<ApiKey>, KeyError> {
        let key = raw.trim();
        if key.is_empty() {
            return Ok(None);
        }
        for (index, character) in key.chars().enumerate() {
            let position = index + 1;
            if character == '\n' || character == '\r' {
                return Err(KeyError::LineBreak { position });
            }
            if character.is_whitespace() {
                return Err(KeyError::InnerWhitespace { position });
            }
            if !character.is_ascii_graphic() {
                return Err(KeyError::InvalidCharacter { position });
            }
        }
        Ok(Some(ApiKey(key.to_owned())))
    }

    /// The key itself, for the header only.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// A masked form safe to show: the first 3 and last 4 characters of keys longer than
    /// 12 characters (`sk-…abcd`), otherwise only `…`.
    pub fn masked(&self) -> String {
        let chars: Vec<char> = self.0.chars().collect();
        if chars.len() > 12 {
            let head: String = chars[..3].iter().collect();
            let tail: String = chars[chars.len() - 4..].iter().collect();
            format!("{head}…{tail}")
        } else {
            "…".to_owned()
        }
    }
}

impl std::fmt::Debug for ApiKey {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(formatter, "ApiKey({})", self.masked())
    }
}

impl KeyError {
    /// The error for the user, in a language.
    pub fn message(&self, lang: Lang) -> String {
        match self {
            KeyError::LineBreak { position } => {
                t::KEY_ERROR_LINE_BREAK.fill(lang, &[("position", position)])
            }
            KeyError::InnerWhitespace { position } => {
                t::KEY_ERROR_INNER_WHITESPACE.fill(lang, &[("position", position)])
            }
            KeyError::InvalidCharacter { position } => {
                t::KEY_ERROR_INVALID_CHARACTER.fill(lang, &[("position", position)])
            }
        }
    }
}

impl std::fmt::Display for KeyError {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str(&self.message(Lang::En))
    }
}

impl std::error::Error for KeyError {}
