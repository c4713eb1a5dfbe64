//! The language of user-facing text: English or Simplified Chinese.
//!
//! A leaf module: every other module that words a message depends on it, and it depends on
//! nothing, so it can never be part of an import circle.

use serde::{Deserialize, Serialize};

/// Language of user-facing text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Lang {
    /// English.
    #[default]
    En,
    /// Simplified Chinese.
    Zh,
}

impl Lang {
    /// Both languages, in the order the page offers them.
    pub const ALL: [Lang; 2] = [Lang::En, Lang::Zh];

    /// The code used in URLs, storage and the `lang` attribute: `en` or `zh`.
    pub fn code(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::Zh => "zh",
        }
    }

    /// From a code as written in a URL or storage (`en`, `zh`, `zh-CN`, `zh-Hans`);
    /// `None` for anything else.
    pub fn from_code(code: &str) -> Option<Lang> {
        match code.trim() {
            "en" => Some(Lang::En),
            "zh" | "zh-CN" | "zh-Hans" => Some(Lang::Zh),
            _ => None,
        }
    }

    /// From a BCP 47 tag such as `navigator.language`: any `zh` tag gives Chinese, anything
    /// else English.
    pub fn from_language_tag(tag: &str) -> Lang {
        let primary = tag.trim().split(['-', '_']).next().unwrap_or("");
        if primary.eq_ignore_ascii_case("zh") {
            Lang::Zh
        } else {
            Lang::En
        }
    }
}

/// A text in both languages, for messages decided before the language is known (the view
/// picks one when it renders, so a language switch re-words it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Bilingual {
    /// English.
    pub en: String,
    /// Simplified Chinese.
    pub zh: String,
}

impl Bilingual {
    /// Both texts.
    pub fn new(en: impl Into<String>, zh: impl Into<String>) -> Bilingual {
        Bilingual {
            en: en.into(),
            zh: zh.into(),
        }
    }

    /// The text in `lang`.
    pub fn get(&self, lang: Lang) -> &str {
        match lang {
            Lang::En => &self.en,
            Lang::Zh => &self.zh,
        }
    }

    /// A message in every language from a function of the language.
    pub fn from_fn(mut message: impl FnMut(Lang) -> String) -> Bilingual {
        Bilingual {
            en: message(Lang::En),
            zh: message(Lang::Zh),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip_and_tags_map_to_a_language() {
        for lang in Lang::ALL {
            assert_eq!(Lang::from_code(lang.code()), Some(lang));
        }
        assert_eq!(Lang::from_code("zh-Hans"), Some(Lang::Zh));
        assert_eq!(Lang::from_code("fr"), None);
        assert_eq!(Lang::from_language_tag("zh-TW"), Lang::Zh);
        assert_eq!(Lang::from_language_tag("en-GB"), Lang::En);
        assert_eq!(Lang::from_language_tag(""), Lang::En);
    }

    #[test]
    fn bilingual_chooses_by_language() {
        let text = Bilingual::from_fn(|lang| match lang {
            Lang::En => "ok".to_owned(),
            Lang::Zh => "成功".to_owned(),
        });
        assert_eq!(text.get(Lang::En), "ok");
        assert_eq!(text.get(Lang::Zh), "成功");
    }
}
