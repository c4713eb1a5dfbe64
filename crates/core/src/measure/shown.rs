//! How much streamed text the page shows: the first [`MAX_SHOWN_TEXT_BYTES`] of each
//! channel, then a note. The measurement goes on to the end of the stream; only the text
//! on screen stops growing (an endless answer would otherwise grow the page without bound).

use crate::cut::prefix_within;
use crate::lang::Lang;
use crate::texts as t;

/// The most of each streamed text (reasoning, answer) shown per run: the first 1 MiB.
pub const MAX_SHOWN_TEXT_BYTES: usize = 1024 * 1024;

/// The most of the blank text before an answer's first visible text shown (its lead:
/// white space and invisible characters): 256 bytes …
pub const MAX_SHOWN_LEAD_BYTES: usize = 256;
/// … and 4 line breaks. A real answer's lead is a space or a line break or two; a hostile
/// one (50,000 line breaks) would be laid out again whole with every piece (issue 23), and
/// would push the first visible text out of the pane's view (its paint then not timed).
pub const MAX_SHOWN_LEAD_LINES: usize = 4;

/// What was shown of one channel's text in the current run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ShownText {
    shown_bytes: usize,
    cut_bytes: u64,
    lead_bytes: usize,
    lead_lines: usize,
    lead_cut: bool,
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

    /// The part of `text`, a piece of the answer's lead (before its first visible text), to
    /// show: while the lead shown stays within [`MAX_SHOWN_LEAD_BYTES`] and
    /// [`MAX_SHOWN_LEAD_LINES`] line breaks, then nothing (its last line break is kept, so
    /// the first visible text starts a line as it would have). The rest is not counted as
    /// cut text: [`ShownText::is_lead_cut`] says so.
    pub fn admit_lead<'a>(&mut self, text: &'a str) -> &'a str {
        let within_bytes =
            prefix_within(text, MAX_SHOWN_LEAD_BYTES.saturating_sub(self.lead_bytes));
        let lines_left = MAX_SHOWN_LEAD_LINES.saturating_sub(self.lead_lines);
        let within = match within_bytes.match_indices('\n').nth(lines_left) {
            // The line break after the last one allowed: cut before it.
            Some((at, _)) => &within_bytes[..at],
            None => within_bytes,
        };
        if within.len() < text.len() {
            self.lead_cut = true;
        }
        self.lead_bytes += within.len();
        self.lead_lines += within.matches('\n').count();
        self.admit(within)
    }

    /// Whether some of the answer's lead was not shown.
    pub fn is_lead_cut(&self) -> bool {
        self.lead_cut
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

/// The note after a cut lead: "… (more blank text before the answer is not shown)".
pub fn lead_cut_note(lang: Lang) -> String {
    t::SHOWN_LEAD_CUT_NOTE.get(lang).to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lead_is_shown_up_to_its_bounds() {
        // 50,000 line breaks in pieces of 1,000: 4 shown.
        let mut shown = ShownText::default();
        let piece = "\n".repeat(1000);
        let total: usize = (0..50).map(|_| shown.admit_lead(&piece).len()).sum();
        assert_eq!(total, MAX_SHOWN_LEAD_LINES);
        assert!(shown.is_lead_cut());
        assert!(!shown.is_cut(), "a cut lead is not a cut text");
        // A real lead is shown whole.
        let mut real = ShownText::default();
        assert_eq!(real.admit_lead(" "), " ");
        assert_eq!(real.admit_lead("\n\n"), "\n\n");
        assert!(!real.is_lead_cut());
        // Spaces: 256 bytes, at a character boundary (U+3000, the ideographic space, is 3 bytes).
        let mut wide = ShownText::default();
        let spaces = "\u{3000}".repeat(400);
        let admitted = wide.admit_lead(&spaces);
        assert_eq!(admitted.len(), 255);
        assert!(wide.is_lead_cut());
        assert_eq!(wide.admit_lead("  "), " ", "one byte left");
        assert_eq!(wide.admit_lead(" "), "");
        assert_eq!(wide.shown_bytes(), MAX_SHOWN_LEAD_BYTES);
        assert!(lead_cut_note(Lang::Zh).contains("空白"));
    }

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
