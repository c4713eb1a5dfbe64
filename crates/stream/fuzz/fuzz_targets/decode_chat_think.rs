//! Chat with inline tags (`chat+think`, and the stream that starts inside the block, `chat+think_missing_open`): fuzz bytes as a raw SSE stream and built into a
//! well-formed chat stream; any split into reads gives the same events, the memory bound
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
    let built = common::chat_stream(payload);
    for dialect in [Dialect::ChatThink, Dialect::ChatThinkMissingOpen, Dialect::ChatGeminiThought] {
        common::check_chunking(Some(dialect), payload, steps);
        common::check_chunking(Some(dialect), &built, steps);
    }
});
