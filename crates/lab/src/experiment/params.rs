//! The parameters an experiment declares, and the parsing of what the user typed into them.
//!
//! Each experiment lists its parameters ([`ParamSpec`]: id, label, default, bounds); the app
//! draws one field per parameter and hands the typed texts back as [`Inputs`]. The typed
//! parameter constants ([`CountParam`], [`CountListParam`], [`NamesParam`], [`TextParam`])
//! parse their field into a value of the right type, so an experiment cannot read a list as
//! a number. Counts accept a thousands suffix ("5k", "1.5K"); lists split on commas
//! (ASCII or full-width) and spaces ("125, 1k, 2k, 4k"). Every input has a size bound, and
//! every error quotes the input and says what was expected, in English and Chinese.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

use ttft_core::lang::Bilingual;
use ttft_core::lang::Lang;
use ttft_core::text::Text;

use crate::texts as t;

/// Longest text accepted in any field, characters: longer input is refused, not cut.
pub const MAX_FIELD_CHARS: usize = 4_000;

/// Most values in a list field: more levels than anyone can read on one chart.
pub const MAX_LIST_VALUES: usize = 32;

/// What is wrong with one field's text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum InputProblem {
    /// Nothing was typed where a value is needed.
    Empty,
    /// Not a whole number (or a whole number of thousands: "1.2345k").
    NotANumber {
        /// The part of the input that was read.
        input: String,
    },
    /// A whole number outside the bounds.
    OutOfRange {
        /// The part of the input that was read.
        input: String,
        /// Smallest accepted.
        min: u32,
        /// Largest accepted.
        max: u32,
    },
    /// More list values than accepted.
    TooManyValues {
        /// Values given.
        count: usize,
        /// Most accepted.
        max: usize,
    },
    /// Text longer than accepted.
    TooLong {
        /// Characters given (of the whole field, or of one name).
        chars: usize,
        /// Most accepted.
        max: usize,
    },
}

impl InputProblem {
    /// The problem in `lang`.
    pub fn message(&self, lang: Lang) -> String {
        match self {
            InputProblem::Empty => t::INPUT_PROBLEM_EMPTY.get(lang).to_owned(),
            InputProblem::NotANumber { input } => {
                t::INPUT_PROBLEM_NOT_A_NUMBER.fill(lang, &[("input", input)])
            }
            InputProblem::OutOfRange { input, min, max } => t::INPUT_PROBLEM_OUT_OF_RANGE
                .fill(lang, &[("input", input), ("max", max), ("min", min)]),
            InputProblem::TooManyValues { count, max } => {
                t::INPUT_PROBLEM_TOO_MANY_VALUES.fill(lang, &[("count", count), ("max", max)])
            }
            InputProblem::TooLong { chars, max } => {
                t::INPUT_PROBLEM_TOO_LONG.fill(lang, &[("chars", chars), ("max", max)])
            }
        }
    }
}

impl fmt::Display for InputProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message(Lang::En))
    }
}

impl std::error::Error for InputProblem {}

/// A field whose text cannot be used: which field, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ParamError {
    /// The field's id ([`ParamSpec::id`]).
    pub id: String,
    /// The field's label.
    pub label: Bilingual,
    /// What is wrong.
    pub problem: InputProblem,
}

impl ParamError {
    /// "Label: problem" in `lang`.
    pub fn message(&self, lang: Lang) -> String {
        t::PARAM_ERROR.fill(
            lang,
            &[
                ("label", &self.label.get(lang)),
                ("problem", &self.problem.message(lang)),
            ],
        )
    }
}

impl fmt::Display for ParamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message(Lang::En))
    }
}

impl std::error::Error for ParamError {}

/// A whole number in `[min, max]`; "5k" and "1.5K" mean 5000 and 1500.
pub fn parse_count(text: &str, min: u32, max: u32) -> Result<u32, InputProblem> {
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Err(InputProblem::Empty);
    }
    let chars = trimmed.chars().count();
    if chars > MAX_FIELD_CHARS {
        return Err(InputProblem::TooLong {
            chars,
            max: MAX_FIELD_CHARS,
        });
    }
    let lower = trimmed.to_ascii_lowercase();
    let parsed: Option<u64> = match lower.strip_suffix('k') {
        Some(thousands) => thousands
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|value| value.is_finite() && *value >= 0.0)
            .map(|value| value * 1000.0)
            // "1.5k" is 1500; "1.2345k" is not a whole number.
            .filter(|value| (value - value.round()).abs() < 1e-6)
            .map(|value| value.round().min(u64::MAX as f64) as u64),
        None => lower.parse::<u64>().ok(),
    };
    let Some(value) = parsed else {
        return Err(InputProblem::NotANumber {
            input: trimmed.to_owned(),
        });
    };
    match u32::try_from(value) {
        Ok(value) if (min..=max).contains(&value) => Ok(value),
        _ => Err(InputProblem::OutOfRange {
            input: trimmed.to_owned(),
            min,
            max,
        }),
    }
}

/// A list of whole numbers in `[min, max]` separated by commas (`,` or `，`) or spaces; at
/// least one, at most [`MAX_LIST_VALUES`]. Order and repeats are kept as typed.
fn parse_count_list(text: &str, min: u32, max: u32) -> Result<Vec<u32>, InputProblem> {
    let chars = text.chars().count();
    if chars > MAX_FIELD_CHARS {
        return Err(InputProblem::TooLong {
            chars,
            max: MAX_FIELD_CHARS,
        });
    }
    let parts: Vec<&str> = split_list(text).collect();
    if parts.is_empty() {
        return Err(InputProblem::Empty);
    }
    if parts.len() > MAX_LIST_VALUES {
        return Err(InputProblem::TooManyValues {
            count: parts.len(),
            max: MAX_LIST_VALUES,
        });
    }
    parts
        .into_iter()
        .map(|part| parse_count(part, min, max))
        .collect()
}

/// Names separated by commas (`,` or `，`), trimmed, empty ones dropped; at most
/// `max_items`, each at most `max_chars` characters. May be empty.
fn parse_names(
    text: &str,
    max_items: usize,
    max_chars: usize,
) -> Result<Vec<String>, InputProblem> {
    let chars = text.chars().count();
    if chars > MAX_FIELD_CHARS {
        return Err(InputProblem::TooLong {
            chars,
            max: MAX_FIELD_CHARS,
        });
    }
    let names: Vec<String> = text
        .split([',', '，'])
        .map(str::trim)
        .filter(|name| !name.is_empty())
        .map(str::to_owned)
        .collect();
    if names.len() > max_items {
        return Err(InputProblem::TooManyValues {
            count: names.len(),
            max: max_items,
        });
    }
    if let Some(long) = names.iter().find(|name| name.chars().count() > max_chars) {
        return Err(InputProblem::TooLong {
            chars: long.chars().count(),
            max: max_chars,
        });
    }
    Ok(names)
}

/// The parts of a list field.
fn split_list(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| c == ',' || c == '，' || c.is_whitespace())
        .filter(|part| !part.is_empty())
}

/// Numbers written back as a list field ("100, 1000, 5000").
fn join_counts(values: &[u32]) -> String {
    values
        .iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// What kind of value a field holds (for the view: input mode, width).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ParamKind {
    /// One whole number.
    Count,
    /// A list of whole numbers.
    CountList,
    /// A list of names.
    Names,
    /// Free text.
    Text,
}

/// One field of an experiment, as the view draws it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ParamSpec {
    /// Stable id: the key in [`Inputs`], and the field's test id is `exp-<id>`.
    pub id: &'static str,
    /// Label.
    pub label: Bilingual,
    /// What it holds.
    pub kind: ParamKind,
    /// The text the field starts with (may be empty: then `placeholder` shows).
    pub default_text: String,
    /// Shown while the field is empty.
    pub placeholder: Option<Bilingual>,
    /// Longest text the field takes, characters.
    pub max_chars: usize,
}

/// The texts the user typed, by field id. A field not given reads as its default.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Inputs {
    texts: BTreeMap<String, String>,
}

impl Inputs {
    /// No field typed: every field reads as its default.
    pub fn new() -> Inputs {
        Inputs::default()
    }

    /// With the text of field `id`.
    pub fn with(mut self, id: &str, text: impl Into<String>) -> Inputs {
        self.set(id, text);
        self
    }

    /// Sets the text of field `id`.
    pub fn set(&mut self, id: &str, text: impl Into<String>) {
        self.texts.insert(id.to_owned(), text.into());
    }

    /// The text of field `id`, if given.
    pub fn get(&self, id: &str) -> Option<&str> {
        self.texts.get(id).map(String::as_str)
    }
}

/// A field holding one whole number.
#[derive(Debug, Clone, PartialEq)]
pub struct CountParam {
    /// See [`ParamSpec::id`].
    pub id: &'static str,
    /// Label.
    pub label: Text,
    /// Smallest accepted.
    pub min: u32,
    /// Largest accepted.
    pub max: u32,
    /// Default value.
    pub default: u32,
}

impl CountParam {
    /// The field as the view draws it.
    pub fn spec(&self) -> ParamSpec {
        ParamSpec {
            id: self.id,
            label: self.label.bilingual(),
            kind: ParamKind::Count,
            default_text: self.default.to_string(),
            placeholder: None,
            max_chars: MAX_FIELD_CHARS,
        }
    }

    /// The value typed (the default when the field was not given).
    pub fn read(&self, inputs: &Inputs) -> Result<u32, ParamError> {
        match inputs.get(self.id) {
            None => Ok(self.default),
            Some(text) => parse_count(text, self.min, self.max).map_err(|problem| ParamError {
                id: self.id.into(),
                label: self.label.bilingual(),
                problem,
            }),
        }
    }
}

/// A field holding a list of whole numbers.
#[derive(Debug, Clone, PartialEq)]
pub struct CountListParam {
    /// See [`ParamSpec::id`].
    pub id: &'static str,
    /// Label.
    pub label: Text,
    /// Smallest accepted value.
    pub min: u32,
    /// Largest accepted value.
    pub max: u32,
    /// Default values.
    pub default: &'static [u32],
}

impl CountListParam {
    /// The field as the view draws it.
    pub fn spec(&self) -> ParamSpec {
        ParamSpec {
            id: self.id,
            label: self.label.bilingual(),
            kind: ParamKind::CountList,
            default_text: join_counts(self.default),
            placeholder: None,
            max_chars: MAX_FIELD_CHARS,
        }
    }

    /// The values typed (the default when the field was not given).
    pub fn read(&self, inputs: &Inputs) -> Result<Vec<u32>, ParamError> {
        match inputs.get(self.id) {
            None => Ok(self.default.to_vec()),
            Some(text) => {
                parse_count_list(text, self.min, self.max).map_err(|problem| ParamError {
                    id: self.id.into(),
                    label: self.label.bilingual(),
                    problem,
                })
            }
        }
    }
}

/// A field holding comma-separated names (models).
#[derive(Debug, Clone, PartialEq)]
pub struct NamesParam {
    /// See [`ParamSpec::id`].
    pub id: &'static str,
    /// Label.
    pub label: Text,
    /// Most names.
    pub max_items: usize,
    /// Longest name, characters.
    pub max_chars: usize,
    /// Shown while empty.
    pub placeholder: Text,
}

impl NamesParam {
    /// The field as the view draws it.
    pub fn spec(&self) -> ParamSpec {
        ParamSpec {
            id: self.id,
            label: self.label.bilingual(),
            kind: ParamKind::Names,
            default_text: String::new(),
            placeholder: Some(self.placeholder.bilingual()),
            max_chars: MAX_FIELD_CHARS,
        }
    }

    /// The names typed (none when the field was not given or is empty).
    pub fn read(&self, inputs: &Inputs) -> Result<Vec<String>, ParamError> {
        parse_names(
            inputs.get(self.id).unwrap_or(""),
            self.max_items,
            self.max_chars,
        )
        .map_err(|problem| self.error(problem))
    }

    /// An error about this field.
    pub fn error(&self, problem: InputProblem) -> ParamError {
        ParamError {
            id: self.id.into(),
            label: self.label.bilingual(),
            problem,
        }
    }
}

/// A field holding free text (a question).
#[derive(Debug, Clone, PartialEq)]
pub struct TextParam {
    /// See [`ParamSpec::id`].
    pub id: &'static str,
    /// Label.
    pub label: Text,
    /// Longest text, characters.
    pub max_chars: usize,
    /// Shown while empty, and meant when empty.
    pub placeholder: Text,
}

impl TextParam {
    /// The field as the view draws it.
    pub fn spec(&self) -> ParamSpec {
        ParamSpec {
            id: self.id,
            label: self.label.bilingual(),
            kind: ParamKind::Text,
            default_text: String::new(),
            placeholder: Some(self.placeholder.bilingual()),
            max_chars: self.max_chars,
        }
    }

    /// The text typed, `None` when empty (then the placeholder's text in the page's
    /// language is meant).
    pub fn read(&self, inputs: &Inputs) -> Result<Option<String>, ParamError> {
        let text = inputs.get(self.id).unwrap_or("");
        let chars = text.chars().count();
        if chars > self.max_chars {
            return Err(ParamError {
                id: self.id.into(),
                label: self.label.bilingual(),
                problem: InputProblem::TooLong {
                    chars,
                    max: self.max_chars,
                },
            });
        }
        Ok((!text.trim().is_empty()).then(|| text.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_accept_thousands_and_reject_out_of_range() {
        assert_eq!(parse_count(" 400 ", 1, 1000), Ok(400));
        assert_eq!(parse_count("5k", 1, 10_000), Ok(5_000));
        assert_eq!(parse_count("1.5K", 1, 10_000), Ok(1_500));
        assert_eq!(parse_count("1 k", 1, 10_000), Ok(1_000));
        assert_eq!(
            parse_count("0", 1, 10),
            Err(InputProblem::OutOfRange {
                input: "0".into(),
                min: 1,
                max: 10
            })
        );
        assert!(matches!(
            parse_count("11", 1, 10),
            Err(InputProblem::OutOfRange { .. })
        ));
        assert_eq!(
            parse_count("ten", 1, 10),
            Err(InputProblem::NotANumber {
                input: "ten".into()
            })
        );
        assert!(matches!(
            parse_count("1.2345k", 1, 10_000),
            Err(InputProblem::NotANumber { .. })
        ));
        assert!(matches!(
            parse_count("-1k", 1, 10_000),
            Err(InputProblem::NotANumber { .. })
        ));
        // Past u32: out of range, not a wrap-around.
        assert!(matches!(
            parse_count("5000000000", 1, 10),
            Err(InputProblem::OutOfRange { .. })
        ));
        assert!(matches!(
            parse_count("9e99k", 1, 10),
            Err(InputProblem::OutOfRange { .. })
        ));
        assert_eq!(parse_count("  ", 1, 10), Err(InputProblem::Empty));
    }

    #[test]
    fn lists_split_on_commas_and_spaces() {
        assert_eq!(
            parse_count_list("100, 1k 5000，10k", 1, 100_000),
            Ok(vec![100, 1_000, 5_000, 10_000])
        );
        assert_eq!(
            parse_count_list("125, 1k, 2k, 4k", 1, 100_000),
            Ok(vec![125, 1_000, 2_000, 4_000])
        );
        assert_eq!(parse_count_list(" , ", 1, 10), Err(InputProblem::Empty));
        assert_eq!(
            parse_count_list("1, x", 1, 10),
            Err(InputProblem::NotANumber { input: "x".into() })
        );
        let many = vec!["1"; MAX_LIST_VALUES + 1].join(",");
        assert_eq!(
            parse_count_list(&many, 1, 10),
            Err(InputProblem::TooManyValues {
                count: MAX_LIST_VALUES + 1,
                max: MAX_LIST_VALUES
            })
        );
        let long = "1".repeat(MAX_FIELD_CHARS + 1);
        assert!(matches!(
            parse_count_list(&long, 1, 10),
            Err(InputProblem::TooLong { .. })
        ));
    }

    #[test]
    fn names_are_trimmed_and_bounded() {
        assert_eq!(
            parse_names(" a, b ，, c ", 4, 10),
            Ok(vec!["a".to_string(), "b".into(), "c".into()])
        );
        assert_eq!(parse_names("", 4, 10), Ok(Vec::new()));
        assert!(matches!(
            parse_names("a,b,c", 2, 10),
            Err(InputProblem::TooManyValues { count: 3, max: 2 })
        ));
        assert!(matches!(
            parse_names("abcdefghijk", 2, 10),
            Err(InputProblem::TooLong { chars: 11, max: 10 })
        ));
    }

    #[test]
    fn errors_quote_the_input_in_both_languages() {
        const SIZES: CountListParam = CountListParam {
            id: "sizes",
            label: t::PARAM_PROMPT_SIZES,
            min: 1,
            max: 1000,
            default: &[100, 200],
        };
        let error = SIZES
            .read(&Inputs::new().with("sizes", "100, 5k"))
            .unwrap_err();
        assert_eq!(
            error.message(Lang::En),
            "Prompt sizes (tokens): \"5k\" is not a whole number from 1 to 1000"
        );
        assert_eq!(
            error.message(Lang::Zh),
            "提示长度（token）：“5k”不是 1 到 1000 之间的整数"
        );
        assert_eq!(SIZES.read(&Inputs::new()), Ok(vec![100, 200]));
        assert_eq!(SIZES.spec().default_text, "100, 200");
        let problems = [
            InputProblem::Empty,
            InputProblem::NotANumber { input: "x".into() },
            InputProblem::OutOfRange {
                input: "0".into(),
                min: 1,
                max: 2,
            },
            InputProblem::TooManyValues { count: 3, max: 2 },
            InputProblem::TooLong { chars: 9, max: 8 },
        ];
        for problem in problems {
            let (en, zh) = (problem.message(Lang::En), problem.message(Lang::Zh));
            assert!(en.is_ascii(), "{en}");
            assert!(!zh.is_ascii(), "{zh}");
        }
    }
}
