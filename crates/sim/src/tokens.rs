//! Deterministic prompt token counting.
//!
//! The rule (documented in `--help` and the crate README) is simple enough for a test to
//! compute by hand:
//! - every CJK ideograph is one token;
//! - every other maximal run of non-whitespace, non-ideograph characters is
//!   `ceil(chars / 4)` tokens (chars = Unicode scalar values);
//! - whitespace is free;
//! - a prompt's count is the sum over every text the request carries, in order: system
//!   prompt / instructions first, then each message's text parts. Roles, names and JSON
//!   punctuation are not counted.
//!
//! The token *sequence* (not just its length) feeds the prefix cache: a run is cut into
//! pieces of 4 characters (the last piece may be shorter), each ideograph is its own piece.

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

/// Characters per token for a run of non-ideograph, non-space characters.
pub const CHARS_PER_TOKEN: usize = 4;

/// Splits `text` into its tokens (as strings), following the module's rule.
pub fn tokenize(text: &str) -> Vec<String> {
    let mut tokens = Vec::new();
    let mut run: Vec<char> = Vec::new();
    let flush = |run: &mut Vec<char>, tokens: &mut Vec<String>| {
        for piece in run.chunks(CHARS_PER_TOKEN) {
            tokens.push(piece.iter().collect());
        }
        run.clear();
    };
    for c in text.chars() {
        if c.is_whitespace() {
            flush(&mut run, &mut tokens);
        } else if is_cjk_ideograph(c) {
            flush(&mut run, &mut tokens);
            tokens.push(c.to_string());
        } else {
            run.push(c);
        }
    }
    flush(&mut run, &mut tokens);
    tokens
}

/// Number of tokens in `text` (equals `tokenize(text).len()`).
pub fn count_tokens(text: &str) -> u32 {
    let mut tokens: u32 = 0;
    let mut run_chars: usize = 0;
    let run_tokens = |chars: usize| chars.div_ceil(CHARS_PER_TOKEN) as u32;
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

/// Whether any text contains a CJK ideograph (the answer is then written in Chinese).
pub fn has_cjk(texts: &[String]) -> bool {
    texts.iter().any(|t| t.chars().any(is_cjk_ideograph))
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
        ];
        for (text, expected) in table {
            assert_eq!(count_tokens(text), *expected, "count of {text:?}");
            assert_eq!(
                tokenize(text).len() as u32,
                *expected,
                "tokenize of {text:?}"
            );
        }
    }

    #[test]
    fn pieces_are_four_chars_and_ideographs() {
        assert_eq!(
            tokenize("abcdefghi x你"),
            vec!["abcd", "efgh", "i", "x", "你"]
        );
    }

    #[test]
    fn cjk_detection() {
        assert!(has_cjk(&["plain".into(), "中文".into()]));
        assert!(!has_cjk(&["plain".into(), "ünïcode".into()]));
    }
}
