//! Cutting text to a byte bound without splitting a character: the one cutter every bound on
//! provider text, shown text and exported text uses.

/// The longest prefix of `text` of at most `max_bytes` bytes that ends at a character
/// boundary (all of `text` when it fits).
pub fn prefix_within(text: &str, max_bytes: usize) -> &str {
    let mut end = max_bytes.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

#[cfg(test)]
mod tests {
    use super::prefix_within;

    #[test]
    fn cuts_only_between_characters() {
        let text = "aé中😀"; // 1 + 2 + 3 + 4 bytes
        let cuts: Vec<&str> = (0..=11).map(|max| prefix_within(text, max)).collect();
        assert_eq!(
            cuts,
            [
                "",
                "a",
                "a",
                "aé",
                "aé",
                "aé",
                "aé中",
                "aé中",
                "aé中",
                "aé中",
                "aé中😀",
                "aé中😀"
            ]
        );
    }
}
