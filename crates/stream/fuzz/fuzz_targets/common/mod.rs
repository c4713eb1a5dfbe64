//! Shared by the fuzz targets: input layout, the chunking property, and builders of
//! well-formed streams of each dialect from fuzz bytes (so that the dialect decoders see deep
//! inputs, not only what mutations of raw bytes reach).
#![allow(dead_code)]

use serde_json::{json, Value};
use ttft_stream::dialect::{Dialect, StreamReader};

/// A small limit, so that fuzz inputs reach "line too long" too.
pub const SMALL_LIMIT: usize = 300;

/// Input layout: `payload ++ steps ++ [n]`, the last byte `n` saying how many bytes before it
/// are read lengths, so the fixture transcripts are meaningful seeds as they are.
pub fn split_input(data: &[u8]) -> Option<(&[u8], &[u8])> {
    let (&step_count, rest) = data.split_last()?;
    Some(rest.split_at(rest.len() - usize::from(step_count).min(rest.len())))
}

/// The reads: lengths from `steps` (0 is an empty read), the rest in one read.
pub fn reads<'a>(payload: &'a [u8], steps: &[u8]) -> Vec<&'a [u8]> {
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

/// Everything a reader reports for these reads: the decoded events (those released at the
/// end included), whether the limit stopped it, and the summary. Checks the memory bound
/// after every read.
pub fn run(dialect: Option<Dialect>, limit: usize, reads: &[&[u8]]) -> String {
    let mut reader = StreamReader::with_max_event_bytes(dialect, limit);
    let mut decoded = Vec::new();
    let mut too_long = false;
    for read in reads {
        let result = reader.on_bytes_into(read, &mut decoded);
        assert!(
            reader.buffered_bytes() <= limit,
            "the parser holds {} bytes, more than its limit {limit}",
            reader.buffered_bytes()
        );
        if result.is_err() {
            too_long = true;
            break;
        }
    }
    let summary = reader.finish_into(&mut decoded);
    format!("{decoded:?}\n{too_long}\n{summary:?}")
}

/// The property: any split of the stream into reads gives exactly what one read gives, with
/// the real limit and with a small one.
pub fn check_chunking(dialect: Option<Dialect>, stream: &[u8], steps: &[u8]) {
    let split = reads(stream, steps);
    for limit in [SMALL_LIMIT, ttft_stream::sse::MAX_EVENT_BYTES] {
        assert_eq!(
            run(dialect, limit, &split),
            run(dialect, limit, &[stream]),
            "dialect {dialect:?}, limit {limit}: the result depends on the split"
        );
    }
}

/// Fuzz bytes as a list of (kind, text) pieces: pieces are separated by 0xFF, the first
/// byte of a piece picks its kind, the rest is its text (invalid UTF-8 replaced).
fn pieces(data: &[u8]) -> impl Iterator<Item = (u8, String)> + '_ {
    data.split(|&byte| byte == 0xFF).map(|piece| match piece.split_first() {
        Some((&kind, text)) => (kind, String::from_utf8_lossy(text).into_owned()),
        None => (0, String::new()),
    })
}

fn sse_data(stream: &mut String, data: &Value) {
    stream.push_str("data: ");
    stream.push_str(&data.to_string());
    stream.push_str("\n\n");
}

fn sse_event(stream: &mut String, name: &str, data: &Value) {
    stream.push_str("event: ");
    stream.push_str(name);
    stream.push('\n');
    sse_data(stream, data);
}

fn chat_chunk(choices: Value) -> Value {
    json!({"id": "c", "object": "chat.completion.chunk", "model": "m", "choices": choices})
}

/// A Chat Completions stream: content (most pieces, to exercise the tag splitter), the
/// reasoning side channels, content parts, other choices, finish, usage, errors, comments.
pub fn chat_stream(data: &[u8]) -> Vec<u8> {
    let mut stream = String::new();
    for (kind, text) in pieces(data) {
        match kind % 16 {
            0..=6 => sse_data(&mut stream, &chat_chunk(json!([{"index": 0, "delta": {"content": text}}]))),
            7 => sse_data(&mut stream, &chat_chunk(json!([{"index": 0, "delta": {"reasoning_content": text, "content": null}}]))),
            8 => sse_data(&mut stream, &chat_chunk(json!([{"index": 0, "delta": {"reasoning": text}}]))),
            9 => sse_data(&mut stream, &chat_chunk(json!([{"index": 0, "delta": {"reasoning_details": [{"type": "reasoning.text", "text": text}]}}]))),
            10 => sse_data(&mut stream, &chat_chunk(json!([{"index": 0, "delta": {"content": [{"type": "thinking", "thinking": [{"type": "text", "text": text}]}, {"type": "text", "text": text}]}}]))),
            11 => sse_data(&mut stream, &chat_chunk(json!([{"index": 1, "delta": {"content": text}}, {"index": 0, "delta": {"role": "assistant"}}]))),
            12 => sse_data(&mut stream, &chat_chunk(json!([{"index": 0, "delta": {}, "finish_reason": text}]))),
            13 => sse_data(&mut stream, &json!({"choices": [], "usage": {"prompt_tokens": text.len(), "completion_tokens": 3, "prompt_tokens_details": {"cached_tokens": 1}}})),
            14 => sse_data(&mut stream, &json!({"error": {"message": text, "type": "server_error"}})),
            _ => {
                stream.push_str(": ");
                stream.push_str(&text.replace(['\r', '\n'], " "));
                stream.push_str("\n\n");
            }
        }
    }
    stream.push_str("data: [DONE]\n\n");
    stream.into_bytes()
}

/// An Anthropic Messages stream: thinking and text blocks, signatures, usage updates, pings,
/// stop reasons, errors.
pub fn anthropic_stream(data: &[u8]) -> Vec<u8> {
    let mut stream = String::new();
    sse_event(&mut stream, "message_start", &json!({"type": "message_start", "message": {"usage": {"input_tokens": 5, "output_tokens": 1}}}));
    for (kind, text) in pieces(data) {
        match kind % 10 {
            0..=2 => sse_event(&mut stream, "content_block_delta", &json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}})),
            3..=4 => sse_event(&mut stream, "content_block_delta", &json!({"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": text}})),
            5 => sse_event(&mut stream, "content_block_start", &json!({"type": "content_block_start", "index": 0, "content_block": {"type": if text.len() % 2 == 0 { "thinking" } else { "text" }, "thinking": text, "text": text}})),
            6 => sse_event(&mut stream, "content_block_delta", &json!({"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta", "signature": text}})),
            7 => sse_event(&mut stream, "message_delta", &json!({"type": "message_delta", "delta": {"stop_reason": text}, "usage": {"output_tokens": text.len()}})),
            8 => sse_event(&mut stream, "ping", &json!({"type": "ping"})),
            _ => sse_event(&mut stream, "error", &json!({"type": "error", "error": {"type": "overloaded_error", "message": text}})),
        }
    }
    sse_event(&mut stream, "message_stop", &json!({"type": "message_stop"}));
    stream.into_bytes()
}

/// An OpenAI Responses stream: reasoning summary and raw reasoning deltas, output text,
/// lifecycle events, and each terminal event.
pub fn responses_stream(data: &[u8]) -> Vec<u8> {
    let mut stream = String::new();
    let mut sequence = 0;
    let mut event = |stream: &mut String, kind: &str, mut body: Value| {
        body["type"] = json!(kind);
        body["sequence_number"] = json!(sequence);
        sequence += 1;
        sse_event(stream, kind, &body);
    };
    event(&mut stream, "response.created", json!({"response": {"status": "in_progress", "usage": null}}));
    for (kind, text) in pieces(data) {
        match kind % 8 {
            0..=2 => event(&mut stream, "response.output_text.delta", json!({"delta": text})),
            3 => event(&mut stream, "response.reasoning_summary_text.delta", json!({"delta": text})),
            4 => event(&mut stream, "response.reasoning_text.delta", json!({"delta": text})),
            5 => event(&mut stream, "response.output_item.added", json!({"item": {"type": "message", "content": [text]}})),
            6 => event(&mut stream, "error", json!({"code": "ERR", "message": text})),
            _ => event(&mut stream, "response.failed", json!({"response": {"status": "failed", "error": {"code": "server_error", "message": text}}})),
        }
    }
    event(&mut stream, "response.completed", json!({"response": {"status": "completed", "usage": {"input_tokens": 3, "output_tokens": 4, "output_tokens_details": {"reasoning_tokens": 1}}}}));
    stream.into_bytes()
}
