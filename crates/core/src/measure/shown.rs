//! How much streamed text the page shows: the first [`MAX_SHOWN_TEXT_BYTES`] of each
//! channel, then a note. The measurement goes on to the end of the stream; only the text
//! on screen stops growing (an endless answer would otherwise grow the page without bound).

use crate::cut::prefix_within;
use crate::lang::Lang;
use crate::texts as t;

/// The most of each streamed text (reasoning, answer) shown per run: the first 1 MiB.
pub const MAX_SHOWN_TEXT_BYTES: usize = 1024 * 1024;

/// What was shown of one channel's text in the current run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ShownText {
    shown_bytes: usize,
    cut_bytes: u64,
}

impl ShownText {
    /// The part of `text` (the next piece of the stream) to show: all of it while the total
    /// stays within [`MAX_SHOWN_TEXT_BYTES`], then what fits (cut at a character
    /// boundary), then nothing. The rest is counted.
    pub fn admit<'a>(&mut self, text: &'a str) -> &'a str {
        let room = MAX_SHOWN_TEXT_BYTES.saturating_sub(self.shown_bytes);
        let admitted = prefix_within(text, room);
        self.shown_bytes += admitted.len();
        self.cut_bytes += (text.len() - admitted.len()) as u64;
        admitted
    }

    /// Whether some text was not shown.
    pub fn is_cut(&self) -> bool {
        self.cut_bytes > 0
    }

    /// Bytes not shown.
    pub fn cut_bytes(&self) -> u64 {
        self.cut_bytes
    }

    /// Bytes shown.
    pub fn shown_bytes(&self) -> usize {
        self.shown_bytes
    }
}

/// The note after a cut text: "… (text cut at 1 MiB; the measurement goes on)".
pub fn cut_note(lang: Lang) -> String {
    let mib = MAX_SHOWN_TEXT_BYTES / (1024 * 1024);
    t::SHOWN_TEXT_CUT_NOTE.fill(lang, &[("mib", &mib)])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_mib_is_shown_at_a_character_boundary() {
        let mut shown = ShownText::default();
        let piece = "é".repeat(1000); // 2000 bytes
        let mut total = 0;
        for _ in 0..600 {
            total += shown.admit(&piece).len();
        }
        assert_eq!(total, MAX_SHOWN_TEXT_BYTES);
        assert_eq!(shown.shown_bytes(), MAX_SHOWN_TEXT_BYTES);
        assert_eq!(shown.cut_bytes(), 600 * 2000 - MAX_SHOWN_TEXT_BYTES as u64);
        assert!(shown.is_cut());
        assert_eq!(shown.admit("x"), "");
        let mut odd = ShownText::default();
        odd.admit(&"a".repeat(MAX_SHOWN_TEXT_BYTES - 1));
        assert_eq!(odd.admit("éa"), "");
        assert!(cut_note(Lang::En).contains("1 MiB"));
    }
}
