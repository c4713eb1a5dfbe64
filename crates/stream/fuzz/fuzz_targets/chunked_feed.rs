//! The SSE parser: arbitrary bytes, split into reads at arbitrary points, must never panic and
//! must give the same events (and the same "line too long" failure) as the whole input in one
//! read, holding no more than its limit; the stream reader on top must agree too (auto,
//! `chat+think` and `chat+think_missing_open`).
//!
//! Input layout: `payload ++ steps ++ [n]`, where the last byte `n` says how many bytes before
//! it are read lengths (`steps`), so the fixtures themselves are meaningful seeds.
#![no_main]

#[path = "common/mod.rs"]
mod common;

use libfuzzer_sys::fuzz_target;
use ttft_stream::dialect::Dialect;
use ttft_stream::sse::{SseEvent, SseParser};

/// What one parse saw: events, comments, ttft-relay notes, retry, last event ID, and whether
/// the limit stopped the parser.
type Parsed = (Vec<SseEvent>, usize, Vec<String>, Option<u64>, Option<String>, bool);

/// Events, comments, notes, retry, last event ID, and whether the limit stopped the parser.
fn parse(limit: usize, reads: &[&[u8]]) -> Parsed {
    let mut parser = SseParser::with_max_event_bytes(limit);
    let mut events = Vec::new();
    let mut notes = Vec::new();
    let mut too_long = false;
    for read in reads {
        let result = parser.feed_into(read, &mut events);
        notes.extend(parser.take_notes());
        assert!(parser.buffered_bytes() <= limit, "the parser holds more than its limit");
        assert!(notes.len() <= ttft_stream::sse::MAX_NOTES, "more notes than the bound");
        if result.is_err() {
            too_long = true;
            break;
        }
    }
    parser.finish();
    let last_event_id = parser.last_event_id().map(str::to_owned);
    (events, parser.comment_count(), notes, parser.retry_ms(), last_event_id, too_long)
}

fuzz_target!(|data: &[u8]| {
    let Some((payload, steps)) = common::split_input(data) else {
        return;
    };
    let whole = [payload];
    let reads = common::reads(payload, steps);
    for limit in [common::SMALL_LIMIT, ttft_stream::sse::MAX_EVENT_BYTES] {
        assert_eq!(parse(limit, &reads), parse(limit, &whole), "SSE events depend on the split");
    }
    for dialect in [None, Some(Dialect::ChatThink), Some(Dialect::ChatThinkMissingOpen)] {
        common::check_chunking(dialect, payload, steps);
    }
});
