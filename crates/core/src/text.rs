//! One shape for every text the pages show, in both languages: a [`Text`], declared once in
//! its crate's catalogue (a `texts.rs` holding one [`texts!`](crate::texts) list), where each
//! line is a name, the English text and the Chinese text. A language is one column of the
//! catalogues; nothing else in the code holds a translated literal.
//!
//! A text with values in it is a template: `{name}` marks where a value goes, filled by
//! [`Text::fill`] (`{{` and `}}` stand for braces). Numbers are formatted by the caller
//! (`format!("{ms:.1}")`), so a template never decides a unit or a precision.
//!
//! A [`Bilingual`] is the owned pair, for texts decided before the language is known and
//! kept with a run (its diagnosis): [`Text::bilingual`] and [`Text::bilingual_with`] make one.
//!
//! Why constants, not an id into runtime tables: each text is a `const` of two `&'static
//! str`, so the linker drops every text a page never shows (the widget carries none of the
//! lab's), exactly as it did with literals at the call sites.

use std::fmt::{Display, Write};

use crate::lang::{Bilingual, Lang};

/// A text in both languages. Declared in a catalogue with [`texts!`](crate::texts).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Text {
    en: &'static str,
    zh: &'static str,
}

impl Text {
    /// A text (catalogues use [`texts!`](crate::texts) rather than calling this).
    pub const fn new(en: &'static str, zh: &'static str) -> Text {
        Text { en, zh }
    }

    /// The text in `lang` (a template's placeholders as they are).
    pub fn get(self, lang: Lang) -> &'static str {
        match lang {
            Lang::En => self.en,
            Lang::Zh => self.zh,
        }
    }

    /// The text in `lang` with each `{name}` replaced by the value named `name` in `values`;
    /// a placeholder without a value stays as it is, `{{` and `}}` become `{` and `}`.
    pub fn fill(self, lang: Lang, values: &[(&str, &dyn Display)]) -> String {
        fill_template(self.get(lang), values)
    }

    /// Both languages, owned.
    pub fn bilingual(self) -> Bilingual {
        Bilingual::new(self.en, self.zh)
    }

    /// Both languages, filled with `values` ([`Text::fill`]).
    pub fn bilingual_with(self, values: &[(&str, &dyn Display)]) -> Bilingual {
        Bilingual::from_fn(|lang| self.fill(lang, values))
    }
}

/// `template` with its `{name}` placeholders filled from `values` (see [`Text::fill`]).
pub fn fill_template(template: &str, values: &[(&str, &dyn Display)]) -> String {
    let mut out = String::with_capacity(template.len() + 16);
    let mut rest = template;
    while let Some(at) = rest.find(['{', '}']) {
        out.push_str(&rest[..at]);
        let tail = &rest[at..];
        if tail.starts_with("{{") || tail.starts_with("}}") {
            out.push_str(&tail[..1]);
            rest = &tail[2..];
            continue;
        }
        let name_end = tail[1..].find('}').map(|end| end + 1);
        let value = name_end.and_then(|end| {
            let name = &tail[1..end];
            values
                .iter()
                .find(|(key, _)| *key == name)
                .map(|(_, value)| (end, *value))
        });
        match value {
            Some((end, value)) => {
                let _ = write!(out, "{value}");
                rest = &tail[end + 1..];
            }
            None => {
                out.push_str(&tail[..1]);
                rest = &tail[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// Declares a crate's catalogue: one `pub const NAME: Text` per line `NAME = "English",
/// "中文";` (doc comments and attributes allowed before a line).
///
/// ```
/// ttft_core::texts! {
///     /// The button that starts a series.
///     SEND = "Send", "发送";
///     RUN_OF = " (run {run} of {total})", "（第 {run}/{total} 次）";
/// }
/// use ttft_core::lang::Lang;
/// assert_eq!(SEND.get(Lang::Zh), "发送");
/// assert_eq!(RUN_OF.fill(Lang::En, &[("run", &2), ("total", &5)]), " (run 2 of 5)");
/// ```
#[macro_export]
macro_rules! texts {
    ($($(#[$meta:meta])* $name:ident = $en:expr, $zh:expr;)*) => {
        $(
            $(#[$meta])*
            #[allow(missing_docs)]
            pub const $name: $crate::text::Text = $crate::text::Text::new($en, $zh);
        )*
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_are_filled_by_name_and_braces_escaped() {
        let run = 3;
        let cases: [(&str, String); 6] = [
            ("(run {run} of {total})", "(run 3 of 7)".to_owned()),
            ("{run}{run}", "33".to_owned()),
            ("{missing} stays", "{missing} stays".to_owned()),
            ("{{literal}} and {run}", "{literal} and 3".to_owned()),
            ("unclosed {run", "unclosed {run".to_owned()),
            ("第 {run}/{total} 次", "第 3/7 次".to_owned()),
        ];
        for (template, expected) in cases {
            assert_eq!(
                fill_template(template, &[("run", &run), ("total", &7)]),
                expected,
                "{template}"
            );
        }
    }

    #[test]
    fn a_text_gives_its_language_and_its_pair() {
        let text = Text::new("Send", "发送");
        assert_eq!(text.get(Lang::En), "Send");
        assert_eq!(text.get(Lang::Zh), "发送");
        assert_eq!(text.bilingual(), Bilingual::new("Send", "发送"));
        let runs = Text::new("{n} runs", "{n} 次运行").bilingual_with(&[("n", &4)]);
        assert_eq!((runs.en.as_str(), runs.zh.as_str()), ("4 runs", "4 次运行"));
    }
}
