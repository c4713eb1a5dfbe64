//! Anthropic Messages events (docs/stream-formats.md §6).

use serde_json::json;

use super::{
    flood_frames, hostile, json_str, json_str_array, Frame, Pane, StreamError, WriterInput,
    FLOOD_TEXT_MARK,
};

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

/// The `message_start` event.
fn message_start(input: &WriterInput<'_>) -> String {
    let message_start = format!(
        "{{\"type\":\"message_start\",\"message\":{{\"id\":\"{}\",\"type\":\"message\",\
         \"role\":\"assistant\",\"model\":{},\"content\":[],\"stop_reason\":null,\
         \"stop_sequence\":null,\"usage\":{}}}}}",
        message_id(input),
        json_str(input.model),
        usage_json(input, 1),
    );
    event("message_start", &message_start)
}

/// The ping event that follows the first block's start.
fn ping() -> String {
    event("ping", r#"{"type": "ping"}"#)
}

/// `message_start`, the first block's start (`first_block`) and the ping, with the
/// keep-alives before them, or after them when they come early.
fn push_preamble(input: &WriterInput<'_>, first_block: &str, frames: &mut Vec<Frame>) {
    let preamble_ms = input.preamble_ms();
    if !input.early {
        input.keepalives(frames);
    }
    frames.push(Frame::bytes(preamble_ms, message_start(input)));
    frames.push(Frame::bytes(preamble_ms, block_start(0, first_block)));
    frames.push(Frame::bytes(preamble_ms, ping()));
    // Keep-alives only come before the first token, so they follow the preamble in time
    // when it is early.
    if input.early {
        input.keepalives(frames);
    }
}

/// The answer's text deltas in block `text_index`, or the flood in their place.
fn push_answer(input: &WriterInput<'_>, text_index: usize, frames: &mut Vec<Frame>) {
    let plan = input.plan;
    let text_delta = |text: &str| {
        let delta = format!("{{\"type\":\"text_delta\",\"text\":{}}}", json_str(text));
        block_delta(text_index, &delta)
    };
    if !input.flood.is_empty() {
        let at_ms = plan.first_answer_ms().unwrap_or(plan.end_ms);
        let template = text_delta(FLOOD_TEXT_MARK);
        frames.extend(flood_frames(at_ms, &template, input.flood, None));
        return;
    }
    for (at_ms, token) in plan.answer_at_ms.iter().zip(input.answer) {
        frames.push(Frame::token(*at_ms, text_delta(token)));
    }
}

/// `message_delta` (stop reason, cumulative usage) and `message_stop`.
fn push_end(input: &WriterInput<'_>, frames: &mut Vec<Frame>) {
    let end_ms = input.plan.end_ms;
    let message_delta = format!(
        "{{\"type\":\"message_delta\",\"delta\":{{\"stop_reason\":\"{}\",\"stop_sequence\":null}},\
         \"usage\":{}}}",
        stop_reason(input),
        usage_json(input, input.usage.output_tokens()),
    );
    frames.push(Frame::bytes(end_ms, event("message_delta", &message_delta)));
    frames.push(Frame::bytes(
        end_ms,
        event("message_stop", r#"{"type":"message_stop"}"#),
    ));
}

/// The events of a successful stream.
pub fn frames(input: &WriterInput<'_>) -> Vec<Frame> {
    let plan = input.plan;
    let first_ms = plan.first_token_ms();
    let answer_start_ms = plan.first_answer_ms().unwrap_or(plan.end_ms);
    let mut frames = Vec::new();
    let thinking = !input.reasoning.is_empty();
    let first_block = if thinking { THINKING_BLOCK } else { TEXT_BLOCK };
    push_preamble(input, first_block, &mut frames);
    let mut text_index = 0;
    if thinking {
        if input.reasoning_visible() {
            for (at_ms, token) in plan.reasoning_at_ms.iter().zip(input.reasoning) {
                frames.push(Frame::token(*at_ms, thinking_delta(0, token)));
            }
        }
        let signed_ms = answer_start_ms.max(first_ms);
        frames.push(Frame::bytes(signed_ms, signature_delta(0)));
        frames.push(Frame::bytes(signed_ms, block_stop(0)));
        text_index = 1;
        if !input.answer.is_empty() {
            frames.push(Frame::bytes(answer_start_ms, block_start(1, TEXT_BLOCK)));
        }
    }
    push_answer(input, text_index, &mut frames);
    if !thinking || !input.answer.is_empty() {
        frames.push(Frame::bytes(plan.end_ms, block_stop(text_index)));
    }
    push_end(input, &mut frames);
    frames
}

/// An empty thinking block.
const THINKING_BLOCK: &str = r#"{"type":"thinking","thinking":"","signature":""}"#;
/// An empty text block.
const TEXT_BLOCK: &str = r#"{"type":"text","text":""}"#;

/// A thinking delta of block `index`.
fn thinking_delta(index: usize, text: &str) -> String {
    let delta = format!(
        "{{\"type\":\"thinking_delta\",\"thinking\":{}}}",
        json_str(text)
    );
    block_delta(index, &delta)
}

/// The signature that closes thinking block `index`.
fn signature_delta(index: usize) -> String {
    let delta = format!("{{\"type\":\"signature_delta\",\"signature\":\"{SIGNATURE}\"}}");
    block_delta(index, &delta)
}

/// The `key_split_panes` stream: each pane its own block (thinking, signed, or text),
/// opened at its time, between the usual preamble and end.
pub fn pane_frames(input: &WriterInput<'_>, panes: &[Pane]) -> Vec<Frame> {
    let mut frames = Vec::new();
    let first_block = match panes.first() {
        Some(pane) if pane.reasoning => THINKING_BLOCK,
        _ => TEXT_BLOCK,
    };
    push_preamble(input, first_block, &mut frames);
    for (index, pane) in panes.iter().enumerate() {
        let at_ms = pane.at_ms;
        if index > 0 {
            let block = if pane.reasoning {
                THINKING_BLOCK
            } else {
                TEXT_BLOCK
            };
            frames.push(Frame::bytes(at_ms, block_start(index, block)));
        }
        if pane.reasoning {
            frames.push(Frame::token(at_ms, thinking_delta(index, &pane.text)));
            frames.push(Frame::bytes(at_ms, signature_delta(index)));
        } else {
            let delta = format!(
                "{{\"type\":\"text_delta\",\"text\":{}}}",
                json_str(&pane.text)
            );
            frames.push(Frame::token(at_ms, block_delta(index, &delta)));
        }
        frames.push(Frame::bytes(at_ms, block_stop(index)));
    }
    if panes.is_empty() {
        frames.push(Frame::bytes(input.plan.end_ms, block_stop(0)));
    }
    push_end(input, &mut frames);
    frames
}

/// An `error` event after HTTP 200 (the standard one is Anthropic's documented overload
/// error, Python spacing as on the wire); no `message_stop` follows.
pub fn error_event(error: &StreamError<'_>) -> String {
    let seen = error.seen.map_or(String::new(), |keys| {
        format!(", \"seen\": {}", json_str_array(keys, ", "))
    });
    event(
        "error",
        &format!(
            "{{\"type\": \"error\", \"error\": {{\"type\": {}, \"message\": {}{seen}}}}}",
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
