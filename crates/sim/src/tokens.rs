//! Deterministic prompt token counting: the rule lives in the `ttft-tokens` crate (shared
//! with ttft-core, documented in `--help`); this module adds what only the simulator needs.

pub use ttft_tokens::{count_tokens, is_cjk_ideograph, pieces, CHARS_PER_TOKEN};

/// Splits `text` into its tokens (as slices of it).
pub fn tokenize(text: &str) -> Vec<&str> {
    pieces(text).collect()
}

/// Whether any text contains a CJK ideograph (the answer is then written in Chinese).
pub fn has_cjk(texts: &[String]) -> bool {
    texts.iter().any(|t| t.chars().any(is_cjk_ideograph))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shared_rule_is_the_sims() {
        assert_eq!(count_tokens("Hello, world!"), 4);
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
