//! Text in both of the page's languages, carried as data so that the view picks one.
//!
//! The experiments' reports, labels and errors are display-neutral: they hold English and
//! Simplified Chinese side by side, and the app shows the one the user chose (and can
//! switch without re-running anything).

use std::borrow::Cow;
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::diagnosis::Lang;

/// A text in English and Simplified Chinese.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Text {
    /// English.
    pub en: Cow<'static, str>,
    /// Simplified Chinese.
    pub zh: Cow<'static, str>,
}

impl Text {
    /// A fixed text (usable in constants).
    pub const fn fixed(en: &'static str, zh: &'static str) -> Text {
        Text {
            en: Cow::Borrowed(en),
            zh: Cow::Borrowed(zh),
        }
    }

    /// A text made at run time.
    pub fn new(en: impl Into<Cow<'static, str>>, zh: impl Into<Cow<'static, str>>) -> Text {
        Text {
            en: en.into(),
            zh: zh.into(),
        }
    }

    /// The same text in both languages (a model name, a number).
    pub fn same(text: impl Into<String>) -> Text {
        let text = text.into();
        Text::new(text.clone(), text)
    }

    /// The text made by `message` in each language.
    pub fn from_fn(message: impl Fn(Lang) -> String) -> Text {
        Text::new(message(Lang::En), message(Lang::Zh))
    }

    /// The text in `lang`.
    pub fn get(&self, lang: Lang) -> &str {
        match lang {
            Lang::En => &self.en,
            Lang::Zh => &self.zh,
        }
    }

    /// Both texts transformed alike (`Text::map(|s| format!("{s}…"))`), with the language.
    pub fn map(&self, transform: impl Fn(Lang, &str) -> String) -> Text {
        Text::new(transform(Lang::En, &self.en), transform(Lang::Zh, &self.zh))
    }
}

impl fmt::Display for Text {
    /// The English text (logs, test messages).
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(&self.en)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn picks_the_language_and_maps_both() {
        const LABEL: Text = Text::fixed("runs", "次数");
        assert_eq!(LABEL.get(Lang::En), "runs");
        assert_eq!(LABEL.get(Lang::Zh), "次数");
        let headed = LABEL.map(|lang, text| match lang {
            Lang::En => format!("{text}:"),
            Lang::Zh => format!("{text}："),
        });
        assert_eq!(headed, Text::new("runs:", "次数："));
        assert_eq!(Text::same("sim-fast").get(Lang::Zh), "sim-fast");
        let json = serde_json::to_string(&LABEL).unwrap_or_default();
        assert_eq!(json, r#"{"en":"runs","zh":"次数"}"#);
    }
}
