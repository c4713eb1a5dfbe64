//! Arbitrary bytes, split into reads at arbitrary points, must never panic and must give the
//! same SSE events and the same decoded events and summary as the whole input in one read.
//!
//! Input layout: `payload ++ steps ++ [n]`, where the last byte `n` says how many bytes before
//! it are read lengths (`steps`), so the fixtures themselves are meaningful seeds.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ttft_core::dialect::{Dialect, StreamReader};
use ttft_core::sse::SseParser;

fn split<'a>(payload: &'a [u8], steps: &[u8]) -> Vec<&'a [u8]> {
    let mut reads = Vec::with_capacity(steps.len() + 1);
    let mut start = 0;
    for &step in steps {
        let end = (start + usize::from(step)).min(payload.len());
        reads.push(&payload[start..end]);
        start = end;
    }
    reads.push(&payload[start..]);
    reads
}

fn parse(reads: &[&[u8]]) -> (Vec<ttft_core::sse::SseEvent>, usize, Option<u64>) {
    let mut parser = SseParser::new();
    let mut events = Vec::new();
    for read in reads {
        parser.feed_into(read, &mut events);
    }
    parser.finish();
    (events, parser.comment_count(), parser.retry_ms())
}

fn decode(dialect: Option<Dialect>, reads: &[&[u8]]) -> String {
    let mut reader = StreamReader::new(dialect);
    let mut decoded = Vec::new();
    for read in reads {
        reader.on_bytes_into(read, &mut decoded);
    }
    format!("{decoded:?}\n{:?}", reader.finish())
}

fuzz_target!(|data: &[u8]| {
    let Some((&step_count, rest)) = data.split_last() else {
        return;
    };
    let (payload, steps) = rest.split_at(rest.len() - usize::from(step_count).min(rest.len()));
    let whole = [payload];
    let reads = split(payload, steps);
    assert_eq!(parse(&reads), parse(&whole), "SSE events depend on the split");
    for dialect in [None, Some(Dialect::ChatThink), Some(Dialect::ChatThinkMissingOpen)] {
        assert_eq!(decode(dialect, &reads), decode(dialect, &whole), "decoding depends on the split");
    }
});
