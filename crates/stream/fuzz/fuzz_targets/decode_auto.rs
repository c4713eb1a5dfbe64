//! Auto-detection: fuzz bytes as a raw SSE stream and built into a well-formed stream of each
//! protocol, read with no dialect given; any split into reads gives the same events (the
//! detection, and a `</think>` that re-attributes earlier answer text, included), the memory
//! bound holds, nothing panics.
#![no_main]

#[path = "common/mod.rs"]
mod common;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((payload, steps)) = common::split_input(data) else {
        return;
    };
    common::check_chunking(None, payload, steps);
    common::check_chunking(None, &common::chat_stream(payload), steps);
    common::check_chunking(None, &common::anthropic_stream(payload), steps);
    common::check_chunking(None, &common::responses_stream(payload), steps);
});
