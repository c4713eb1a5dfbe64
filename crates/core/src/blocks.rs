//! Where streamed text is cut into blocks (docs/DESIGN.md §3).
//!
//! The page appends a long answer to blocks of about [`BLOCK_BYTES`], each starting after a
//! line break: appending to one growing text node made the browser lay out the whole answer
//! again on every frame (tasks grew past 200 ms over a 100,000-token answer), while a new
//! block leaves the earlier ones' layout cached. Since every block starts right after a line
//! break, the blocks lay out exactly as one text.
//!
//! However much text one frame brings, every line break that completes a block's
//! [`BLOCK_BYTES`] starts a new block (WebKit can deliver a whole 19 KB answer in one frame
//! while its main thread is busy); a block also closes at its [`BLOCK_MAX_LINES`]-th line
//! break (50,000 empty lines are 50,000 line boxes), and no block passes
//! [`BLOCK_MAX_BYTES`]: a line longer than that (a hostile megabyte without a break) is cut
//! there, the one place where block boundaries show (as a line break inside a line already
//! wrapped many times). A frame appends at most [`frame_share`] of what waits, and the
//! page's CSS skips the rendering of blocks out of view (`content-visibility: auto`), so a
//! flood costs each frame a bounded amount of layout (issue 23, `e2e/hostile.test.mjs`).
//!
//! ```
//! use ttft_core::blocks::{plan_blocks, Fill, Piece, BLOCK_BYTES};
//!
//! let line = "x".repeat(99) + "\n"; // 100 bytes
//! let text = line.repeat(100); // 10,000 bytes arriving in one frame
//! let plan = plan_blocks(Fill::default(), &text);
//! let blocks = plan.pieces.iter().filter(|piece| piece.new_block).count();
//! assert_eq!(blocks, 2); // cut after 4,100 and 8,200 bytes
//! assert_eq!(plan.filled, Fill { bytes: 10_000 - 8_200, lines: 18 });
//! assert!(plan.pieces.iter().all(|piece| piece.text.len() <= BLOCK_BYTES + line.len()));
//! ```

/// A block closes at the first line break once it holds this many bytes.
pub const BLOCK_BYTES: usize = 4_096;
/// No block passes this: a longer line is cut here. WebKit lays out an open block of
/// unbreakable text again whole as it grows (16 KiB: 120 ms a frame; 8 KiB: 20 ms).
pub const BLOCK_MAX_BYTES: usize = 8_192;
/// A block closes at its this-many-th line break, however short the lines (each is a line
/// box the browser lays out again when the block grows).
pub const BLOCK_MAX_LINES: usize = 256;

/// The most text a frame appends, bytes; the rest waits for the next frames, so a flood
/// (a megabyte arriving at once) is laid out a bounded amount per frame. WebKit's rendering
/// step takes about 20 ms for 8 KiB of new text in this page's panes (150 to 190 ms for
/// 64 KiB; Chromium 3 and 10 to 28 ms); 8 KiB a frame still shows 480 KB/s, far above any
/// model's stream.
pub const FRAME_BUDGET_BYTES: usize = 8 * 1024;
/// The most line breaks a frame appends (each is a line box to lay out).
pub const FRAME_BUDGET_LINES: usize = 256;

/// How many bytes of `pending` one frame appends: all of it within
/// [`FRAME_BUDGET_BYTES`] and [`FRAME_BUDGET_LINES`], else the longest prefix within both
/// (at a character boundary, at least one character).
pub fn frame_share(pending: &str) -> usize {
    let within_bytes = crate::cut::prefix_within(pending, FRAME_BUDGET_BYTES);
    let share = within_bytes
        .match_indices('\n')
        .nth(FRAME_BUDGET_LINES - 1)
        .map_or(within_bytes.len(), |(at, _)| at + 1);
    if share == 0 {
        pending.chars().next().map_or(0, char::len_utf8)
    } else {
        share
    }
}

/// The window over which [`FloodGauge`] counts body bytes, ms.
pub const FLOOD_WINDOW_MS: f64 = 250.0;
/// Body bytes in one [`FLOOD_WINDOW_MS`] window that make a flood: 4 MiB in 250 ms (about
/// 17 MB/s, kept up). The fastest model streams send well under 1 MB/s (3,000 tokens/s of
/// about 300-byte events); a hostile stream of one-character events arrives at 50 to
/// 200 MB/s over loopback. A burst (a buffered answer of a megabyte or two arriving at
/// once) is no flood: it is drawn a frame's share at a time.
pub const FLOOD_BYTES_PER_WINDOW: usize = 4 << 20;
/// How long a flood is still counted after the page handled a read of a full window, ms:
/// the panes draw again once the body has been calm this long.
pub const FLOOD_CALM_MS: f64 = 250.0;

/// Whether the page is flooded: a stream's body arriving faster than any model streams.
///
/// While a flood lasts the panes draw nothing new, and draw what waits (at most
/// [`frame_share`] a frame) once it is over. In WebKit, drawing the answer while 562 MB of
/// one-character events arrived made most of the page's stalls (an in-page timer probe: 26
/// to 124 waits over 50 ms in a run, 2.1 to 3.6 s in all beyond 50 ms each). The first text
/// of each pane is drawn at once whatever comes after, so the paint the run measures is not
/// held back.
///
/// A flood is judged by when the bytes *arrived* (the reads' stamps), and lasts until
/// [`FLOOD_CALM_MS`] after the page *handled* the last of them. Judged by handling time
/// alone, a page that handles the flood slowly (WebKit's first seconds of a page's first
/// flood: a tenth of its later pace) would count it as calm, draw, and be slowed further by
/// the drawing.
///
/// Time is an argument: `arrived_ms` and `handled_ms` on one clock, `handled_ms` never
/// decreasing.
///
/// ```
/// use ttft_core::blocks::{FloodGauge, FLOOD_CALM_MS};
///
/// let mut gauge = FloodGauge::default();
/// // A fast model: 3,000 events a second of 300 bytes, for 10 s.
/// for event in 0..30_000 {
///     let at_ms = f64::from(event) / 3.0;
///     gauge.observe(at_ms, at_ms, 300);
/// }
/// assert!(!gauge.is_flooding(10_000.0));
/// // A hostile stream: 64 KiB reads, 80 of them (5 MiB) arriving in 40 ms, handled over
/// // 400 ms by a slow page.
/// for read in 0..80 {
///     gauge.observe(20_000.0 + f64::from(read) * 0.5, 20_000.0 + f64::from(read) * 5.0, 64 * 1024);
/// }
/// assert!(gauge.is_flooding(20_395.0));
/// assert!(!gauge.is_flooding(20_395.0 + FLOOD_CALM_MS));
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FloodGauge {
    /// When the first read of the current window arrived.
    window_start_ms: f64,
    /// Bytes that arrived in the current window.
    window_bytes: usize,
    /// Reads arriving before this time belong to the flood (a full window's last read
    /// arrived [`FLOOD_CALM_MS`] before), so that the flood goes on across windows.
    flood_arrivals_until_ms: f64,
    /// The flood counts until this time, on the handling side (`NEG_INFINITY`: none seen).
    flooded_until_ms: f64,
}

impl Default for FloodGauge {
    fn default() -> Self {
        FloodGauge {
            window_start_ms: f64::NEG_INFINITY,
            window_bytes: 0,
            flood_arrivals_until_ms: f64::NEG_INFINITY,
            flooded_until_ms: f64::NEG_INFINITY,
        }
    }
}

impl FloodGauge {
    /// Counts `bytes` of a body read that arrived at `arrived_ms` and is handled at
    /// `handled_ms`. A read that arrived before the current window began (another run's,
    /// handled late) counts in it; one that arrived within [`FLOOD_CALM_MS`] of a full
    /// window's reads belongs to the flood, so a flood goes on from window to window
    /// however slowly the page handles it.
    pub fn observe(&mut self, arrived_ms: f64, handled_ms: f64, bytes: usize) {
        let in_window = arrived_ms - self.window_start_ms < FLOOD_WINDOW_MS;
        if !in_window {
            self.window_start_ms = arrived_ms;
            self.window_bytes = 0;
        }
        self.window_bytes = self.window_bytes.saturating_add(bytes);
        if self.window_bytes >= FLOOD_BYTES_PER_WINDOW {
            self.flood_arrivals_until_ms =
                self.flood_arrivals_until_ms.max(arrived_ms + FLOOD_CALM_MS);
        }
        if arrived_ms < self.flood_arrivals_until_ms {
            self.flooded_until_ms = self.flooded_until_ms.max(handled_ms + FLOOD_CALM_MS);
        }
    }

    /// Whether a flood is on at `now_ms` (handling side).
    pub fn is_flooding(&self, now_ms: f64) -> bool {
        now_ms < self.flooded_until_ms
    }

    /// How long until the flood is over, from `now_ms` (0 when none is on), ms.
    pub fn calm_in_ms(&self, now_ms: f64) -> f64 {
        (self.flooded_until_ms - now_ms).max(0.0)
    }
}

/// One piece of a frame's text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Piece<'a> {
    /// Whether the piece starts a new block (else it goes on at the end of the current one).
    pub new_block: bool,
    /// The text (never empty, except a new block opened by a final line break).
    pub text: &'a str,
}

/// Where one frame's text goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockPlan<'a> {
    /// The pieces, in order; appended in order they give back the frame's text.
    pub pieces: Vec<Piece<'a>>,
    /// What the last block holds afterwards.
    pub filled: Fill,
}

/// What the current block holds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Fill {
    /// Bytes.
    pub bytes: usize,
    /// Line breaks.
    pub lines: usize,
}

/// Cuts `text` into pieces, the current block holding `filled` already.
pub fn plan_blocks(filled: Fill, text: &str) -> BlockPlan<'_> {
    let mut pieces = Vec::new();
    let mut filled = filled;
    let mut rest = text;
    let mut new_block = false;
    loop {
        let (cut, closes) = next_cut(filled, rest);
        if cut > 0 || (new_block && rest.is_empty()) {
            pieces.push(Piece {
                new_block,
                text: &rest[..cut],
            });
        }
        let piece = &rest[..cut];
        filled.bytes += piece.len();
        filled.lines += piece.bytes().filter(|&byte| byte == b'\n').count();
        rest = &rest[cut..];
        if !closes {
            break;
        }
        new_block = true;
        filled = Fill::default();
    }
    BlockPlan { pieces, filled }
}

/// Where the block holding `filled` ends in `rest`: `(bytes of rest that go into it,
/// whether it closes there)`. It closes at the line break that completes
/// [`BLOCK_BYTES`] or [`BLOCK_MAX_LINES`] line breaks, or, in a longer line, at
/// [`BLOCK_MAX_BYTES`]; otherwise all of `rest` goes in and it stays open.
fn next_cut(filled: Fill, rest: &str) -> (usize, bool) {
    let room = BLOCK_MAX_BYTES.saturating_sub(filled.bytes).min(rest.len());
    // '\n' is ASCII, so the byte after one is a char boundary.
    let mut lines = filled.lines;
    for (at, &byte) in rest.as_bytes()[..room].iter().enumerate() {
        if byte == b'\n' {
            lines += 1;
            if filled.bytes + at + 1 >= BLOCK_BYTES || lines >= BLOCK_MAX_LINES {
                return (at + 1, true);
            }
        }
    }
    if filled.bytes + rest.len() <= BLOCK_MAX_BYTES {
        return (rest.len(), false);
    }
    // A line longer than the maximum (a megabyte without a break): the block is cut at the
    // maximum, so no block ever costs the browser more than that to lay out.
    (crate::cut::prefix_within(rest, room).len(), true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fast_model_is_no_flood() {
        let mut gauge = FloodGauge::default();
        // 3,000 events a second of 300 bytes, each handled apart, for a minute.
        for event in 0..180_000u32 {
            let at_ms = f64::from(event) / 3.0;
            gauge.observe(at_ms, at_ms, 300);
            assert!(!gauge.is_flooding(at_ms), "event {event}");
        }
    }

    #[test]
    fn a_burst_is_no_flood() {
        let mut gauge = FloodGauge::default();
        // A second of that model handled at once after the page stalled: 900 KB.
        for _ in 0..3_000 {
            gauge.observe(1_000.0, 1_000.0, 300);
        }
        assert!(!gauge.is_flooding(1_000.0));
        // A buffered answer of 2 MiB arriving in one go (e2e/hostile's 1 MiB word and its
        // 50,000 newlines are 1.1 MB).
        gauge.observe(5_000.0, 5_000.0, 2 << 20);
        assert!(!gauge.is_flooding(5_000.0));
    }

    #[test]
    fn a_flood_lasts_until_the_body_is_calm() {
        let mut gauge = FloodGauge::default();
        let slice = 64 * 1024;
        let slices = FLOOD_BYTES_PER_WINDOW / slice;
        // Slices 1 ms apart: flooded from the one that completes the window's bound on.
        for at in 0..slices - 1 {
            gauge.observe(at as f64, at as f64, slice);
            assert!(!gauge.is_flooding(at as f64));
        }
        let last_ms = (slices - 1) as f64;
        gauge.observe(last_ms, last_ms, slice);
        assert!(gauge.is_flooding(last_ms));
        assert_eq!(gauge.calm_in_ms(last_ms), FLOOD_CALM_MS);
        // A read arriving within the calm belongs to the flood; one arriving after it is
        // calm's own, and does not extend it.
        gauge.observe(last_ms + 200.0, last_ms + 200.0, 100);
        assert!(gauge.is_flooding(last_ms + 200.0 + FLOOD_CALM_MS - 1.0));
        assert!(!gauge.is_flooding(last_ms + 200.0 + FLOOD_CALM_MS));
        gauge.observe(last_ms + 500.0, last_ms + 500.0, 100);
        assert!(!gauge.is_flooding(last_ms + 500.0));
        assert_eq!(gauge.calm_in_ms(last_ms + 1_000.0), 0.0);
    }

    #[test]
    fn a_flood_handled_slowly_is_still_a_flood() {
        let mut gauge = FloodGauge::default();
        // 100 MB/s arriving (64 KiB reads 0.64 ms apart) for 2 s, handled at a tenth of
        // that pace by a page whose compilers are still cold: flooded from the read that
        // completes the first window's bound, for as long as the handling lasts.
        let slice = 64 * 1024;
        let reads = 3_125;
        let mut flooded_from = None;
        for read in 0..reads {
            let arrived_ms = f64::from(read) * 0.64;
            let handled_ms = 100.0 + f64::from(read) * 6.4;
            gauge.observe(arrived_ms, handled_ms, slice);
            if gauge.is_flooding(handled_ms) {
                flooded_from.get_or_insert(read);
            } else {
                assert!(flooded_from.is_none(), "calm again at read {read}");
            }
        }
        assert_eq!(
            flooded_from,
            Some(FLOOD_BYTES_PER_WINDOW as u32 / slice as u32 - 1)
        );
        let last_ms = 100.0 + f64::from(reads - 1) * 6.4;
        assert_eq!(gauge.calm_in_ms(last_ms), FLOOD_CALM_MS);
    }

    #[test]
    fn reads_handled_late_count_where_they_arrived() {
        let mut gauge = FloodGauge::default();
        // A fast model's second (900 KB in 3,000 events) handled in one go 2 s late after
        // a stall: no flood, however late.
        for event in 0..3_000u32 {
            gauge.observe(f64::from(event) / 3.0, 3_000.0, 300);
        }
        assert!(!gauge.is_flooding(3_000.0));
        // 5 MiB that arrived within 10 ms, handled a second apart, slice by slice: a flood
        // from the slice that completes the bound, counted from when it was handled.
        let slice = 64 * 1024;
        for read in 0..80u32 {
            gauge.observe(
                10_000.0 + f64::from(read) / 8.0,
                20_000.0 + f64::from(read),
                slice,
            );
        }
        assert!(gauge.is_flooding(20_079.0));
        assert_eq!(gauge.calm_in_ms(20_079.0), FLOOD_CALM_MS);
    }

    #[test]
    fn windows_do_not_add_up_across_their_ends() {
        let mut gauge = FloodGauge::default();
        // Nearly the bound, then nearly the bound again a window later: no window holds it.
        let nearly = FLOOD_BYTES_PER_WINDOW - 1;
        gauge.observe(0.0, 0.0, nearly);
        gauge.observe(FLOOD_WINDOW_MS, FLOOD_WINDOW_MS, nearly);
        assert!(!gauge.is_flooding(FLOOD_WINDOW_MS));
        // The bound in one read is a flood at once.
        gauge.observe(1_000.0, 1_000.0, FLOOD_BYTES_PER_WINDOW);
        assert!(gauge.is_flooding(1_000.0));
    }

    #[test]
    fn no_flood_before_any_body() {
        let gauge = FloodGauge::default();
        assert!(!gauge.is_flooding(0.0));
        assert!(!gauge.is_flooding(f64::MAX));
        assert_eq!(gauge.calm_in_ms(0.0), 0.0);
    }

    fn rebuild(filled: usize, pieces: &[&str]) -> (Vec<String>, usize) {
        // Blocks as the page would hold them: the first one already has `filled` bytes.
        let mut blocks = vec!["#".repeat(filled)];
        let mut last = Fill {
            bytes: filled,
            lines: 0,
        };
        for text in pieces {
            let plan = plan_blocks(last, text);
            let joined: String = plan.pieces.iter().map(|piece| piece.text).collect();
            assert_eq!(&joined, text, "the pieces give back the text");
            for piece in &plan.pieces {
                if piece.new_block {
                    blocks.push(String::new());
                }
                if let Some(block) = blocks.last_mut() {
                    block.push_str(piece.text);
                }
            }
            last = plan.filled;
            assert_eq!(blocks.last().map(String::len), Some(last.bytes));
            let lines = blocks.last().map(|block| block.matches('\n').count());
            assert_eq!(lines, Some(last.lines));
        }
        (blocks, last.bytes)
    }

    #[test]
    fn one_frame_or_many_gives_the_same_blocks() {
        let text: String = (0..400)
            .map(|i| format!("line {i} {}\n", "w".repeat(i % 90)))
            .collect();
        let (whole, _) = rebuild(0, &[&text]);
        let pieces: Vec<&str> = text
            .as_bytes()
            .chunks(97)
            .map(|c| std::str::from_utf8(c).unwrap())
            .collect();
        let (streamed, _) = rebuild(0, &pieces);
        assert!(whole.len() >= 4, "{} blocks", whole.len());
        assert_eq!(whole, streamed);
        for block in &whole[..whole.len() - 1] {
            assert!(
                block.ends_with('\n'),
                "every block but the last ends a line"
            );
            assert!(block.len() >= BLOCK_BYTES, "closed only once full");
            assert!(
                block.len() < BLOCK_BYTES + 200,
                "closed at the first line break once full"
            );
        }
    }

    #[test]
    fn long_lines_without_breaks_cut_at_the_maximum() {
        let text = "é".repeat(20_000); // 40,000 bytes, no line break
        let (blocks, _) = rebuild(10, &[&text[..20_000], &text[20_000..]]);
        let sizes: Vec<usize> = blocks.iter().map(String::len).collect();
        let full = 40_010 / BLOCK_MAX_BYTES;
        let mut expected = vec![BLOCK_MAX_BYTES; full];
        expected.push(40_010 - full * BLOCK_MAX_BYTES);
        assert_eq!(sizes, expected);
        let (small, _) = rebuild(10, &[&text[..2_000], &text[2_000..4_000]]);
        assert_eq!(small.len(), 1, "below the maximum the block grows");
        let plan = plan_blocks(Fill::default(), "");
        assert!(plan.pieces.is_empty());
        assert_eq!(plan.filled, Fill::default());
    }

    #[test]
    fn a_frame_appends_a_bounded_share() {
        assert_eq!(frame_share(""), 0);
        assert_eq!(frame_share("abc\n"), 4);
        let lines = "\n".repeat(50_000);
        assert_eq!(frame_share(&lines), FRAME_BUDGET_LINES);
        let word = "é".repeat(100_000);
        let share = frame_share(&word);
        assert!(share <= FRAME_BUDGET_BYTES && share > FRAME_BUDGET_BYTES - 2);
        assert!(word.is_char_boundary(share));
    }

    /// Issue 23: 50,000 line breaks, then a 1 MiB word, in one frame or in many, never make
    /// a block over the maximum (the browser lays out at most that much per block).
    #[test]
    fn a_flood_of_line_breaks_and_a_huge_word_stay_in_bounded_blocks() {
        let text = format!("{}{}", "\n".repeat(50_000), "x".repeat(1 << 20));
        for pieces in [
            vec![text.as_str()],
            text.as_bytes()
                .chunks(16_384)
                .map(|c| std::str::from_utf8(c).unwrap())
                .collect(),
        ] {
            let (blocks, _) = rebuild(0, &pieces);
            assert_eq!(blocks.concat(), text);
            assert!(blocks.iter().all(|block| block.len() <= BLOCK_MAX_BYTES));
            let lines_per_block = blocks.iter().map(|b| b.matches('\n').count()).max();
            assert_eq!(lines_per_block, Some(BLOCK_MAX_LINES));
            // Full blocks of line breaks, one with the last of them and the word's start,
            // then the word's rest in blocks of the maximum.
            let last_lines = 50_000 % BLOCK_MAX_LINES;
            let word_left = (1 << 20) - (BLOCK_MAX_BYTES - last_lines);
            let expected = 50_000 / BLOCK_MAX_LINES + 1 + word_left.div_ceil(BLOCK_MAX_BYTES);
            assert_eq!(blocks.len(), expected, "{} blocks", blocks.len());
        }
    }
}
