//! `parse(bytes, chunk)`: feeds a whole SSE transcript to ttft-core's `StreamReader` (the
//! incremental SSE parser plus the auto-detected dialect, exactly what the app runs on each
//! network read) in reads of `chunk` bytes, and returns the number of dispatched events.

use ttft_stream::dialect::StreamReader;
use ttft_stream::sse::SseParser;
use wasm_bindgen::prelude::wasm_bindgen;

/// Parses `bytes` in reads of `chunk` bytes (0 = one read) and returns the event count.
#[wasm_bindgen]
pub fn parse(bytes: &[u8], chunk: usize) -> u32 {
    let mut reader = StreamReader::new(None);
    let mut decoded = Vec::new();
    let step = if chunk == 0 {
        bytes.len().max(1)
    } else {
        chunk
    };
    for piece in bytes.chunks(step) {
        if reader.on_bytes_into(piece, &mut decoded).is_err() {
            return 0;
        }
        decoded.clear();
    }
    reader.finish_into(&mut decoded);
    let summary = reader.summary();
    // The answer text's length keeps the decode from being optimised away.
    std::hint::black_box(summary.answer_text.len());
    summary.event_count as u32
}

/// The answer text ttft-core extracted, to check both parsers agree.
#[wasm_bindgen]
pub fn answer_text(bytes: &[u8]) -> String {
    let mut reader = StreamReader::new(None);
    let mut decoded = Vec::new();
    let _ = reader.on_bytes_into(bytes, &mut decoded);
    reader.finish().answer_text
}

/// The SSE layer alone (no JSON, no dialect): where the time goes. Events are borrowed, as
/// `StreamReader` takes them; the data's length is summed so that nothing is optimised away.
#[wasm_bindgen]
pub fn parse_sse_only(bytes: &[u8], chunk: usize) -> u32 {
    let mut parser = SseParser::new();
    let mut data_bytes = 0;
    let step = if chunk == 0 {
        bytes.len().max(1)
    } else {
        chunk
    };
    for piece in bytes.chunks(step) {
        let fed = parser.feed_with(piece, &mut |event| data_bytes += event.data.len());
        if fed.is_err() {
            return 0;
        }
    }
    std::hint::black_box(data_bytes);
    parser.finish();
    parser.event_count() as u32
}
