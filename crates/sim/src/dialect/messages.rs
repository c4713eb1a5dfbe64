//! Anthropic Messages events (docs/stream-formats.md §6).

use serde_json::json;

use super::{hostile, json_str, Frame, StreamError, WriterInput};

fn message_id(input: &WriterInput<'_>) -> String {
    format!("msg_sim{:06}", input.request_id)
}

/// A fixed, recognisable stand-in for the opaque thinking signature.
const SIGNATURE: &str = "c2ltdWxhdGVkLXNpZ25hdHVyZQ==";

fn event(name: &str, data: &str) -> String {
    format!("event: {name}\ndata: {data}\n\n")
}

fn usage_json(input: &WriterInput<'_>, output_tokens: u32) -> String {
    if input.hostile_usage {
        return format!(
            "{{\"input_tokens\":{},\"cache_creation_input_tokens\":{},\
             \"cache_read_input_tokens\":{},\"output_tokens\":{}}}",
            hostile::HUGE,
            hostile::OVERFLOW,
            hostile::FRACTION,
            hostile::NEGATIVE,
        );
    }
    format!(
        "{{\"input_tokens\":{},\"cache_creation_input_tokens\":0,\"cache_read_input_tokens\":{},\
         \"output_tokens\":{output_tokens}}}",
        input.usage.uncached_tokens(),
        input.usage.cached_tokens,
    )
}

fn stop_reason(input: &WriterInput<'_>) -> &'static str {
    if input.truncated {
        "max_tokens"
    } else {
        "end_turn"
    }
}

fn block_start(index: usize, block: &str) -> String {
    event(
        "content_block_start",
        &format!(
            "{{\"type\":\"content_block_start\",\"index\":{index},\"content_block\":{block}}}"
        ),
    )
}

fn block_delta(index: usize, delta: &str) -> String {
    event(
        "content_block_delta",
        &format!("{{\"type\":\"content_block_delta\",\"index\":{index},\"delta\":{delta}}}"),
    )
}

fn block_stop(index: usize) -> String {
    event(
        "content_block_stop",
        &format!("{{\"type\":\"content_block_stop\",\"index\":{index}}}"),
    )
}

/// The events of a successful stream.
pub fn frames(input: &WriterInput<'_>) -> Vec<Frame> {
    let plan = input.plan;
    let first_ms = plan.first_token_ms();
    let answer_start_ms = plan.first_answer_ms().unwrap_or(plan.end_ms);
    let preamble_ms = input.preamble_ms();
    let mut frames = Vec::new();
    let message_start = format!(
        "{{\"type\":\"message_start\",\"message\":{{\"id\":\"{}\",\"type\":\"message\",\
         \"role\":\"assistant\",\"model\":{},\"content\":[],\"stop_reason\":null,\
         \"stop_sequence\":null,\"usage\":{}}}}}",
        message_id(input),
        json_str(input.model),
        usage_json(input, 1),
    );
    frames.push(Frame::bytes(
        preamble_ms,
        event("message_start", &message_start),
    ));
    let thinking = !input.reasoning.is_empty();
    let first_block = if thinking {
        r#"{"type":"thinking","thinking":"","signature":""}"#
    } else {
        r#"{"type":"text","text":""}"#
    };
    frames.push(Frame::bytes(preamble_ms, block_start(0, first_block)));
    frames.push(Frame::bytes(
        preamble_ms,
        event("ping", r#"{"type": "ping"}"#),
    ));
    // Keep-alives only come before the first token, so they follow the preamble in time
    // when it is early; otherwise they precede it.
    if input.early {
        input.keepalives(&mut frames);
    } else {
        let mut early = Vec::new();
        input.keepalives(&mut early);
        early.append(&mut frames);
        frames = early;
    }
    let mut text_index = 0;
    if thinking {
        if input.reasoning_visible() {
            for (at_ms, token) in plan.reasoning_at_ms.iter().zip(input.reasoning) {
                let delta = format!(
                    "{{\"type\":\"thinking_delta\",\"thinking\":{}}}",
                    json_str(token)
                );
                frames.push(Frame::token(*at_ms, block_delta(0, &delta)));
            }
        }
        let delta = format!("{{\"type\":\"signature_delta\",\"signature\":\"{SIGNATURE}\"}}");
        frames.push(Frame::bytes(
            answer_start_ms.max(first_ms),
            block_delta(0, &delta),
        ));
        frames.push(Frame::bytes(answer_start_ms.max(first_ms), block_stop(0)));
        text_index = 1;
        if !input.answer.is_empty() {
            frames.push(Frame::bytes(
                answer_start_ms,
                block_start(1, r#"{"type":"text","text":""}"#),
            ));
        }
    }
    for (at_ms, token) in plan.answer_at_ms.iter().zip(input.answer) {
        let delta = format!("{{\"type\":\"text_delta\",\"text\":{}}}", json_str(token));
        frames.push(Frame::token(*at_ms, block_delta(text_index, &delta)));
    }
    if !thinking || !input.answer.is_empty() {
        frames.push(Frame::bytes(plan.end_ms, block_stop(text_index)));
    }
    let message_delta = format!(
        "{{\"type\":\"message_delta\",\"delta\":{{\"stop_reason\":\"{}\",\"stop_sequence\":null}},\
         \"usage\":{}}}",
        stop_reason(input),
        usage_json(input, input.usage.output_tokens()),
    );
    frames.push(Frame::bytes(
        plan.end_ms,
        event("message_delta", &message_delta),
    ));
    frames.push(Frame::bytes(
        plan.end_ms,
        event("message_stop", r#"{"type":"message_stop"}"#),
    ));
    frames
}

/// An `error` event after HTTP 200 (the standard one is Anthropic's documented overload
/// error, Python spacing as on the wire); no `message_stop` follows.
pub fn error_event(error: &StreamError<'_>) -> String {
    event(
        "error",
        &format!(
            "{{\"type\": \"error\", \"error\": {{\"type\": {}, \"message\": {}}}}}",
            json_str(error.anthropic_type),
            json_str(error.anthropic_message)
        ),
    )
}

/// The `huge_line` fault's event line and the start of its data line (a text delta whose
/// text never ends).
pub fn huge_line_prefix(input: &WriterInput<'_>) -> (String, String) {
    let index = usize::from(!input.reasoning.is_empty());
    (
        "event: content_block_delta\n".to_string(),
        format!(
            "data: {{\"type\":\"content_block_delta\",\"index\":{index},\"delta\":\
             {{\"type\":\"text_delta\",\"text\":\""
        ),
    )
}

/// An event whose JSON is cut off.
pub fn malformed() -> String {
    "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":\
     {\"type\":\"text_delta\",\"text\":\"\n\n"
        .to_string()
}

/// The non-streaming body.
pub fn completion(input: &WriterInput<'_>) -> String {
    let mut content = Vec::new();
    if !input.reasoning.is_empty() {
        let thinking = if input.reasoning_visible() {
            input.reasoning.concat()
        } else {
            String::new()
        };
        content.push(json!({"type": "thinking", "thinking": thinking, "signature": SIGNATURE}));
    }
    content.push(json!({"type": "text", "text": input.answer.concat()}));
    json!({
        "id": message_id(input),
        "type": "message",
        "role": "assistant",
        "model": input.model,
        "content": content,
        "stop_reason": stop_reason(input),
        "stop_sequence": null,
        "usage": USAGE_PLACEHOLDER,
    })
    .to_string()
    // Spliced in as written, so the hostile counts keep their exact digits.
    .replacen(
        &json_str(USAGE_PLACEHOLDER),
        &usage_json(input, input.usage.output_tokens()),
        1,
    )
}

/// Stands for the usage object in the `stream: false` body until it is spliced in.
const USAGE_PLACEHOLDER: &str = "\u{0}usage\u{0}";
