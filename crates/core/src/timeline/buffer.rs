//! A buffered answer: the stream's text arrived all at once after a long silence, faster than
//! any model decodes. Something between the page and the model held it back (a proxy such as
//! nginx with `proxy_buffering on`, a cors-anywhere Worker, a tunnel, a compression layer),
//! so the run's first token is when the buffer let go, not when the model produced it.
//!
//! Judged from the run's own arrival stamps (pure, time as an argument): at least
//! [`BUFFER_MIN_TEXT_CHUNKS`] text chunks, their first after at least
//! [`BUFFER_MIN_SILENCE_MS`], and all of them within [`BUFFER_MAX_MS_PER_CHUNK`] per chunk
//! after the first:
//!
//! ```
//! use ttft_core::timeline::BufferedArrival;
//! // 40 chunks in one read 900 ms after the request: a buffer.
//! assert!(BufferedArrival::detect(1000.0, 1900.0, 1900.0, 40).is_some());
//! // The same 40 chunks spread over 400 ms (10 ms apart): a model decoding.
//! assert!(BufferedArrival::detect(1000.0, 1900.0, 2300.0, 40).is_none());
//! ```

use serde::{Deserialize, Serialize};

use crate::lang::Lang;
use crate::texts as t;

/// The fewest text chunks that can show a buffer: three gaps, so one read that happened to
/// hold two or three events of a fast model is not taken for one.
pub const BUFFER_MIN_TEXT_CHUNKS: u64 = 4;

/// The least wait before the first text, ms: a buffer only matters when it hides a wait the
/// user notices, and a model's decode of a short answer can fit in less.
pub const BUFFER_MIN_SILENCE_MS: f64 = 300.0;

/// The most time per chunk after the first that the text's arrivals may take to count as all
/// at once, ms: 0.2 ms a chunk is 5,000 chunks a second, above the fastest decode published
/// (about 3,000 tokens a second, one token or more per chunk), while a buffer's release
/// arrives in one read or a few within a millisecond or two (and a large body's over its
/// download: 1,000 chunks of about 100 bytes in 200 ms is 4 Mbit/s).
pub const BUFFER_MAX_MS_PER_CHUNK: f64 = 0.2;

/// A run whose text arrived all at once after a long silence.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct BufferedArrival {
    /// Text chunks (events carrying reasoning or answer text).
    pub text_chunks: u64,
    /// `fetch()` → the first text, ms.
    pub silence_ms: f64,
    /// The first text → the last, ms.
    pub span_ms: f64,
}

impl BufferedArrival {
    /// Whether `text_chunks` text chunks arriving from `first_text_ms` to `last_text_ms`, on
    /// a request started at `request_started_ms` (ms, one clock), arrived all at once after a
    /// long silence.
    pub fn detect(
        request_started_ms: f64,
        first_text_ms: f64,
        last_text_ms: f64,
        text_chunks: u64,
    ) -> Option<BufferedArrival> {
        let silence_ms = first_text_ms - request_started_ms;
        let span_ms = last_text_ms - first_text_ms;
        #[allow(clippy::cast_precision_loss)] // a chunk count: far below 2^52
        let most_span_ms = text_chunks.saturating_sub(1) as f64 * BUFFER_MAX_MS_PER_CHUNK;
        let buffered = text_chunks >= BUFFER_MIN_TEXT_CHUNKS
            && silence_ms >= BUFFER_MIN_SILENCE_MS
            && (0.0..=most_span_ms).contains(&span_ms);
        buffered.then_some(BufferedArrival {
            text_chunks,
            silence_ms,
            span_ms,
        })
    }

    /// The warning shown on the run, in `lang`.
    pub fn warning(&self, lang: Lang) -> String {
        t::BUFFERED_ARRIVAL.fill(
            lang,
            &[
                ("chunks", &self.text_chunks.to_string()),
                ("span_ms", &format!("{:.1}", self.span_ms)),
                ("silence_ms", &format!("{:.0}", self.silence_ms)),
            ],
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// (silence ms, span ms, text chunks) → buffered. Each line is a case met in practice
    /// or the edge of a threshold.
    #[test]
    fn the_rule_as_a_table() {
        let cases = [
            // nginx with proxy_buffering: a short answer in one read after the prefill.
            (850.0, 0.0, 12, true),
            // A cors-anywhere Worker that reads the whole body first: 200 chunks in 3 ms.
            (2400.0, 3.0, 200, true),
            // A large body released at once, downloaded over 150 ms (1,000 chunks).
            (6000.0, 150.0, 1000, true),
            // Exactly at the thresholds.
            (300.0, 0.6, 4, true),
            (299.9, 0.0, 4, false),
            (300.0, 0.61, 4, false),
            (900.0, 0.0, 3, false),
            // A model streaming at 100 tokens/s: 10 ms apart.
            (900.0, 390.0, 40, false),
            // A very fast decoder (3,000 tokens/s, a token a chunk): 0.33 ms apart.
            (400.0, 13.0, 40, false),
            // Four chunks in one read of a fast model, quickly: the wait is short.
            (120.0, 0.0, 4, false),
            // Clock noise: a negative span is not a span.
            (900.0, -1.0, 10, false),
        ];
        for (silence_ms, span_ms, chunks, buffered) in cases {
            let found = BufferedArrival::detect(
                1000.0,
                1000.0 + silence_ms,
                1000.0 + silence_ms + span_ms,
                chunks,
            );
            assert_eq!(
                found.is_some(),
                buffered,
                "silence {silence_ms} ms, span {span_ms} ms, {chunks} chunks"
            );
        }
    }

    #[test]
    fn the_warning_says_what_was_seen() {
        let found = BufferedArrival::detect(0.0, 812.0, 812.4, 9).unwrap();
        let text = found.warning(Lang::En);
        assert!(
            text.contains("9 text chunks within 0.4 ms after 812 ms"),
            "{text}"
        );
    }

    proptest! {
        /// A model decoding at any real speed (at most 3,000 chunks a second, with jitter that
        /// bunches chunks into reads) is never taken for a buffer, however long its prefill.
        #[test]
        fn a_model_decoding_is_never_a_buffer(
            silence_ms in 0.0..60_000.0_f64,
            gaps_ms in proptest::collection::vec(0.0..2.0_f64, 3..400),
        ) {
            // Reads bunch chunks: a gap may be 0, but the mean decode stays at or under
            // 3,000 chunks a second (one third of a ms each).
            let mean_ms = gaps_ms.iter().sum::<f64>() / gaps_ms.len() as f64;
            prop_assume!(mean_ms >= 1.0 / 3.0);
            let span_ms: f64 = gaps_ms.iter().sum();
            let chunks = gaps_ms.len() as u64 + 1;
            prop_assert!(BufferedArrival::detect(0.0, silence_ms, silence_ms + span_ms, chunks).is_none());
        }

        /// A buffer's release (every chunk within a couple of reads, 1 ms apart at most, of
        /// bodies of 20 chunks or more) after a prefill of 300 ms or more is always one.
        #[test]
        fn a_release_after_a_silence_is_a_buffer(
            silence_ms in 300.0..60_000.0_f64,
            chunks in 20_u64..2000,
            reads in 1_u32..4,
        ) {
            let span_ms = f64::from(reads - 1);
            prop_assert!(BufferedArrival::detect(0.0, silence_ms, silence_ms + span_ms, chunks).is_some());
        }
    }
}
