//! ttft-sim's token rule: how the simulated provider counts prompt tokens.
//!
//! One home for the rule, so the simulator (the tests' oracle) and ttft-core (which sizes
//! prompts for experiments) can never drift apart. It depends on nothing, and in
//! particular not on ttft-core's parser: the oracle stays independent of what it checks.
//!
//! The rule is simple enough for a test to compute by hand:
//! - every CJK ideograph (U+3400–4DBF, U+4E00–9FFF, U+F900–FAFF, U+20000–2A6DF,
//!   U+2A700–2EBEF, U+2F800–2FA1F, U+30000–3134F) is one token;
//! - every other maximal run of non-whitespace, non-ideograph characters is
//!   `ceil(chars / 4)` tokens (chars = Unicode scalar values);
//! - whitespace is free;
//! - a request's count is the sum over every text it carries.
//!
//! The token *sequence* (not just its length) feeds the simulator's prefix cache: a run is
//! cut into pieces of 4 characters (the last piece may be shorter), and each ideograph is
//! a piece of its own.
#![forbid(unsafe_code)]

/// Characters per token in a run of non-ideograph, non-whitespace characters.
pub const CHARS_PER_TOKEN: usize = 4;

/// Whether `c` is a CJK ideograph (one token each).
pub fn is_cjk_ideograph(c: char) -> bool {
    matches!(c as u32,
        0x3400..=0x4DBF
        | 0x4E00..=0x9FFF
        | 0xF900..=0xFAFF
        | 0x20000..=0x2A6DF
        | 0x2A700..=0x2EBEF
        | 0x2F800..=0x2FA1F
        | 0x30000..=0x3134F)
}

/// Number of tokens in `text` (equals `pieces(text).count()`, without walking pieces).
pub fn count_tokens(text: &str) -> u32 {
    let run_tokens = |chars: usize| chars.div_ceil(CHARS_PER_TOKEN) as u32;
    let mut tokens: u32 = 0;
    let mut run_chars: usize = 0;
    for c in text.chars() {
        if c.is_whitespace() {
            tokens += run_tokens(run_chars);
            run_chars = 0;
        } else if is_cjk_ideograph(c) {
            tokens += run_tokens(run_chars) + 1;
            run_chars = 0;
        } else {
            run_chars += 1;
        }
    }
    tokens + run_tokens(run_chars)
}

/// The tokens of `text`, in order, as slices of it (see the module docs).
pub fn pieces(text: &str) -> Pieces<'_> {
    Pieces { rest: text }
}

/// Iterator over the token pieces of a text; made by [`pieces`].
#[derive(Clone, Debug)]
pub struct Pieces<'a> {
    rest: &'a str,
}

impl<'a> Iterator for Pieces<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        let start = self.rest.find(|c: char| !c.is_whitespace())?;
        let rest = &self.rest[start..];
        let mut end = 0;
        for (chars, (index, c)) in rest.char_indices().enumerate() {
            if c.is_whitespace() || chars == CHARS_PER_TOKEN {
                break;
            }
            if is_cjk_ideograph(c) {
                if chars == 0 {
                    end = index + c.len_utf8();
                }
                break;
            }
            end = index + c.len_utf8();
        }
        self.rest = &rest[end..];
        Some(&rest[..end])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counting_table() {
        let table: &[(&str, u32)] = &[
            ("", 0),
            ("   \n\t", 0),
            ("a", 1),
            ("abcd", 1),
            ("abcde", 2),
            ("Hello, world!", 4), // "Hello," = 6 chars -> 2; "world!" = 6 -> 2
            ("hi there", 3),      // "hi" = 1; "there" = 5 chars -> 2
            ("你好", 2),
            ("你好，世界", 5), // the full-width comma is not an ideograph: its own run of 1
            ("abc你def", 3),
            ("12345678", 2),
            ("supercalifragilistic", 5),
            ("ünïcödé", 2),              // 7 scalar values, not 11 bytes
            ("\u{3000}全角\u{3000}", 2), // the ideographic space is whitespace
        ];
        for (text, expected) in table {
            assert_eq!(count_tokens(text), *expected, "count of {text:?}");
            assert_eq!(pieces(text).count() as u32, *expected, "pieces of {text:?}");
        }
    }

    #[test]
    fn pieces_are_four_chars_and_ideographs() {
        assert_eq!(
            pieces("abcdefghi x你").collect::<Vec<_>>(),
            vec!["abcd", "efgh", "i", "x", "你"]
        );
        assert_eq!(
            pieces("ab你好cdefg ").collect::<Vec<_>>(),
            vec!["ab", "你", "好", "cdef", "g"]
        );
    }

    #[test]
    fn pieces_and_count_agree_on_mixed_text() {
        // Every combination of the character classes the rule tells apart, up to 6 long.
        let alphabet = ['a', 'é', ' ', '\n', '中', '，', '𠀀'];
        let mut texts = vec![String::new()];
        for _ in 0..6 {
            let longer: Vec<String> = texts
                .iter()
                .filter(|t| t.chars().count() == texts.last().map_or(0, |l| l.chars().count()))
                .flat_map(|t| alphabet.iter().map(move |c| format!("{t}{c}")))
                .collect();
            texts.extend(longer);
        }
        for text in &texts {
            assert_eq!(pieces(text).count() as u32, count_tokens(text), "{text:?}");
            let joined: String = pieces(text).collect();
            let without_space: String = text.chars().filter(|c| !c.is_whitespace()).collect();
            assert_eq!(
                joined, without_space,
                "pieces cover every visible char of {text:?}"
            );
        }
    }
}
