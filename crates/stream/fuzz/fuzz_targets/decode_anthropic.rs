//! The Anthropic Messages decoder: fuzz bytes as a raw SSE stream and built into a
//! well-formed stream of the dialect; any split into reads gives the same events, the memory bound
//! holds, nothing panics.
#![no_main]

#[path = "common/mod.rs"]
mod common;

use libfuzzer_sys::fuzz_target;
use ttft_stream::dialect::Dialect;

fuzz_target!(|data: &[u8]| {
    let Some((payload, steps)) = common::split_input(data) else {
        return;
    };
    common::check_chunking(Some(Dialect::Anthropic), payload, steps);
    common::check_chunking(Some(Dialect::Anthropic), &common::anthropic_stream(payload), steps);
});
