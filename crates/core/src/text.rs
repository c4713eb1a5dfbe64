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
//!
//! # The second language on demand (feature `zh-on-demand`)
//!
//! The widget, the first load of every visitor, builds ttft-core with `zh-on-demand`: then a
//! text keeps only its English and its place in its catalogue (catalogue number, index), and
//! the Chinese column of the catalogues the widget uses ([`ON_DEMAND_CATALOGUES`]) is a file
//! beside the page (`zh.json`, written from the catalogues by `scripts/zh-catalogue.mjs`),
//! fetched before the page first shows Chinese and handed to [`install`]. Until then, and if
//! it never comes, Chinese reads as English. The lab is built without the feature and carries
//! both languages.

use std::fmt::{Display, Write};

use crate::lang::{Bilingual, Lang};

/// The catalogues' numbers, the first column of a text's place.
pub mod catalogue {
    /// ttft-core's.
    pub const CORE: u8 = 0;
    /// ttft-web's (what both pages show).
    pub const WEB: u8 = 1;
    /// The widget's own.
    pub const WIDGET: u8 = 2;
    /// ttft-lab's.
    pub const LAB: u8 = 3;
    /// The lab page's own.
    pub const LAB_PAGE: u8 = 4;
}

/// The catalogues whose Chinese column the widget loads on demand, in `zh.json`'s order.
pub const ON_DEMAND_CATALOGUES: [u8; 3] = [catalogue::CORE, catalogue::WEB, catalogue::WIDGET];

/// A text in both languages. Declared in a catalogue with [`texts!`](crate::texts).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Text {
    en: &'static str,
    #[cfg(not(feature = "zh-on-demand"))]
    zh: &'static str,
    /// Catalogue number × 65536 + index; [`SAME_IN_BOTH`] for a text that reads the same.
    #[cfg(feature = "zh-on-demand")]
    place: u32,
}

/// The place of a text that reads the same in both languages.
#[cfg(feature = "zh-on-demand")]
const SAME_IN_BOTH: u32 = u32::MAX;

impl Text {
    /// A catalogue's text: its English and Chinese, and its place (catalogue number, index)
    /// for the Chinese loaded on demand. [`texts!`](crate::texts) writes these.
    pub const fn declare(en: &'static str, zh: &'static str, catalogue: u8, index: u16) -> Text {
        #[cfg(not(feature = "zh-on-demand"))]
        {
            let _ = (catalogue, index);
            Text { en, zh }
        }
        #[cfg(feature = "zh-on-demand")]
        {
            let _ = zh;
            Text {
                en,
                place: (catalogue as u32) << 16 | index as u32,
            }
        }
    }

    /// A text that reads the same in both languages (a metric's name, a code).
    pub const fn same(text: &'static str) -> Text {
        #[cfg(not(feature = "zh-on-demand"))]
        {
            Text { en: text, zh: text }
        }
        #[cfg(feature = "zh-on-demand")]
        {
            Text {
                en: text,
                place: SAME_IN_BOTH,
            }
        }
    }

    /// The text in `lang` (a template's placeholders as they are).
    pub fn get(self, lang: Lang) -> &'static str {
        match lang {
            Lang::En => self.en,
            Lang::Zh => self.zh(),
        }
    }

    #[cfg(not(feature = "zh-on-demand"))]
    fn zh(self) -> &'static str {
        self.zh
    }

    /// The installed Chinese column's entry, or the English until it is installed.
    #[cfg(feature = "zh-on-demand")]
    fn zh(self) -> &'static str {
        if self.place == SAME_IN_BOTH {
            return self.en;
        }
        let (catalogue, index) = ((self.place >> 16) as u8, (self.place & 0xffff) as usize);
        loaded::get(catalogue, index).unwrap_or(self.en)
    }

    /// The text in `lang` with each `{name}` replaced by the value named `name` in `values`;
    /// a placeholder without a value stays as it is, `{{` and `}}` become `{` and `}`.
    pub fn fill(self, lang: Lang, values: &[(&str, &dyn Display)]) -> String {
        fill_template(self.get(lang), values)
    }

    /// Both languages, owned.
    pub fn bilingual(self) -> Bilingual {
        Bilingual::new(self.en, self.zh())
    }

    /// Both languages, filled with `values` ([`Text::fill`]).
    pub fn bilingual_with(self, values: &[(&str, &dyn Display)]) -> Bilingual {
        Bilingual::from_fn(|lang| self.fill(lang, values))
    }
}

/// Whether texts in `lang` are still to be loaded: Chinese, built with `zh-on-demand`, and not
/// [`install`]ed yet.
pub fn needs_loading(lang: Lang) -> bool {
    #[cfg(feature = "zh-on-demand")]
    {
        lang == Lang::Zh && !loaded::installed()
    }
    #[cfg(not(feature = "zh-on-demand"))]
    {
        let _ = lang;
        false
    }
}

/// Why a loaded second language was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InstallError {
    /// Not JSON of one column (an array of strings) per catalogue of
    /// [`ON_DEMAND_CATALOGUES`].
    #[error("the Chinese texts file does not hold {expected} columns of texts")]
    Shape {
        /// How many catalogues were expected.
        expected: usize,
    },
}

/// Installs the Chinese columns of the [`ON_DEMAND_CATALOGUES`] from `zh.json`'s text (an
/// array of arrays of strings, in that order); once per page, later calls change nothing.
/// Without `zh-on-demand` the texts are compiled in and this only checks the shape.
pub fn install(json: &str) -> Result<(), InstallError> {
    let shape = InstallError::Shape {
        expected: ON_DEMAND_CATALOGUES.len(),
    };
    let columns: Vec<Vec<String>> = serde_json::from_str(json).map_err(|_| shape.clone())?;
    if columns.len() != ON_DEMAND_CATALOGUES.len() {
        return Err(shape);
    }
    #[cfg(feature = "zh-on-demand")]
    loaded::set(columns);
    Ok(())
}

/// The installed Chinese columns (one per page: texts are `&'static str`, so the loaded
/// strings live as long as the page).
#[cfg(feature = "zh-on-demand")]
mod loaded {
    use std::sync::OnceLock;

    use super::ON_DEMAND_CATALOGUES;

    static COLUMNS: OnceLock<Vec<Vec<&'static str>>> = OnceLock::new();

    pub(super) fn set(columns: Vec<Vec<String>>) {
        let columns = columns
            .into_iter()
            .map(|column| {
                column
                    .into_iter()
                    .map(|text| &*Box::leak(text.into_boxed_str()))
                    .collect()
            })
            .collect();
        let _ = COLUMNS.set(columns);
    }

    pub(super) fn installed() -> bool {
        COLUMNS.get().is_some()
    }

    pub(super) fn get(catalogue: u8, index: usize) -> Option<&'static str> {
        let position = ON_DEMAND_CATALOGUES
            .iter()
            .position(|&id| id == catalogue)?;
        COLUMNS.get()?.get(position)?.get(index).copied()
    }
}

/// `template` with its `{name}` placeholders filled from `values` (see [`Text::fill`]).
fn fill_template(template: &str, values: &[(&str, &dyn Display)]) -> String {
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

/// Declares a crate's catalogue: its number ([`catalogue`]), then one `pub const NAME: Text`
/// per line `NAME = "English", "中文";` (doc comments and attributes allowed before a line).
/// The lines' order is the Chinese column's order in `zh.json`.
///
/// ```
/// ttft_core::texts! {
///     catalogue = ttft_core::text::catalogue::WIDGET;
///     /// The button that starts a series.
///     SEND = "Send", "发送";
///     RUN_OF = " (run {run} of {total})", "（第 {run}/{total} 次）";
/// }
/// use ttft_core::lang::Lang;
/// assert_eq!(SEND.get(Lang::En), "Send");
/// assert_eq!(RUN_OF.fill(Lang::En, &[("run", &2), ("total", &5)]), " (run 2 of 5)");
/// ```
#[macro_export]
macro_rules! texts {
    (catalogue = $catalogue:expr; $($(#[$meta:meta])* $name:ident = $en:expr, $zh:expr;)*) => {
        /// The lines' indexes in this catalogue.
        #[allow(non_camel_case_types, dead_code, clippy::upper_case_acronyms)]
        #[repr(u16)]
        enum __TextIndex {
            $($name),*
        }
        $(
            $(#[$meta])*
            #[allow(missing_docs)]
            pub const $name: $crate::text::Text =
                $crate::text::Text::declare($en, $zh, $catalogue, __TextIndex::$name as u16);
        )*
        /// Every text of this catalogue as (name, English, Chinese), in order, whatever the
        /// build loads (for the check that each has its Chinese column,
        /// [`untranslated`](crate::text::untranslated); nothing else reads it, so no page
        /// carries it).
        #[allow(dead_code)]
        pub const ALL: &[(&str, &str, &str)] = &[$((stringify!($name), $en, $zh)),*];
    };
}

/// The texts of a catalogue ([`texts!`](crate::texts)' `ALL`) whose Chinese column is
/// missing: empty (but for a separator, blank in English too), the same as the English
/// (unless `same_in_both` names it: a code, a unit), or not filling the same
/// `{placeholders}`. Each as `NAME: why`.
pub fn untranslated(all: &[(&str, &str, &str)], same_in_both: &[&str]) -> Vec<String> {
    fn placeholders(text: &str) -> Vec<&str> {
        let mut names: Vec<&str> = text
            .split('{')
            .skip(1)
            .filter_map(|rest| rest.split_once('}').map(|(name, _)| name))
            .filter(|name| {
                !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            })
            .collect();
        names.sort_unstable();
        names.dedup();
        names
    }
    all.iter()
        .filter_map(|&(name, en, zh)| {
            // A separator (English's space between words, none in Chinese) may be empty.
            let why = if zh.trim().is_empty() && !en.trim().is_empty() {
                "no Chinese"
            } else if zh == en && !same_in_both.contains(&name) {
                "the Chinese is the English"
            } else if placeholders(en) != placeholders(zh) {
                "the Chinese fills other placeholders"
            } else {
                return None;
            };
            Some(format!("{name}: {why} ({en:?} / {zh:?})"))
        })
        .collect()
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
        let text = Text::declare("Send", "发送", catalogue::CORE, 0);
        assert_eq!(text.get(Lang::En), "Send");
        assert_eq!(Text::same("ttfa_ms").get(Lang::Zh), "ttfa_ms");
        #[cfg(not(feature = "zh-on-demand"))]
        {
            assert_eq!(text.get(Lang::Zh), "发送");
            assert_eq!(text.bilingual(), Bilingual::new("Send", "发送"));
            let runs = Text::declare("{n} runs", "{n} 次运行", 0, 1).bilingual_with(&[("n", &4)]);
            assert_eq!((runs.en.as_str(), runs.zh.as_str()), ("4 runs", "4 次运行"));
            assert!(!needs_loading(Lang::Zh));
        }
    }

    /// `cargo test -p ttft-core --features zh-on-demand --lib text`: English until the column
    /// is installed, then the installed entry at the text's place; a wrong file is refused.
    #[cfg(feature = "zh-on-demand")]
    #[test]
    fn the_chinese_column_loads_on_demand() {
        let text = Text::declare("Send", "发送", catalogue::WEB, 1);
        assert!(needs_loading(Lang::Zh) && !needs_loading(Lang::En));
        assert_eq!(text.get(Lang::Zh), "Send");
        assert!(install(r#"[["x"]]"#).is_err());
        assert!(install("not json").is_err());
        install(r#"[["核心"], ["零", "发送"], []]"#).unwrap();
        assert!(!needs_loading(Lang::Zh));
        assert_eq!(text.get(Lang::Zh), "发送");
        assert_eq!(text.bilingual(), Bilingual::new("Send", "发送"));
        // A place the file does not have reads as English.
        assert_eq!(
            Text::declare("Other", "其他", catalogue::WEB, 7).get(Lang::Zh),
            "Other"
        );
    }
}
