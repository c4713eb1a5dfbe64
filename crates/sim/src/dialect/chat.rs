//! OpenAI Chat Completions chunks (docs/stream-formats.md §2, §3).

use serde_json::json;

use super::{json_str, Frame, WriterInput};
use crate::profile::ReasoningStyle;

fn chat_id(input: &WriterInput<'_>) -> String {
    format!("chatcmpl-sim{:06}", input.request_id)
}

const FINGERPRINT: &str = "fp_ttft_sim";

/// One `data:` chunk with a single choice.
fn chunk(input: &WriterInput<'_>, delta: &str, finish_reason: Option<&str>) -> String {
    let usage = if input.include_usage {
        ",\"usage\":null"
    } else {
        ""
    };
    let finish = finish_reason.map_or("null".to_string(), json_str);
    format!(
        "data: {{\"id\":\"{id}\",\"object\":\"chat.completion.chunk\",\"created\":{created},\
         \"model\":{model},\"system_fingerprint\":\"{FINGERPRINT}\",\"choices\":[{{\"index\":0,\
         \"delta\":{delta},\"logprobs\":null,\"finish_reason\":{finish}}}]{usage}}}\n\n",
        id = chat_id(input),
        created = input.created_s,
        model = json_str(input.model),
    )
}

fn usage_json(input: &WriterInput<'_>) -> String {
    let usage = input.usage;
    format!(
        "{{\"prompt_tokens\":{p},\"completion_tokens\":{c},\"total_tokens\":{t},\
         \"prompt_tokens_details\":{{\"cached_tokens\":{k}}},\
         \"completion_tokens_details\":{{\"reasoning_tokens\":{r}}}}}",
        p = usage.prompt_tokens,
        c = usage.output_tokens(),
        t = usage.prompt_tokens + usage.output_tokens(),
        k = usage.cached_tokens,
        r = usage.reasoning_tokens,
    )
}

fn role_delta(style: ReasoningStyle) -> &'static str {
    match style {
        ReasoningStyle::ReasoningContent => {
            r#"{"role":"assistant","content":null,"reasoning_content":""}"#
        }
        ReasoningStyle::Reasoning | ReasoningStyle::Think => r#"{"role":"assistant","content":""}"#,
        ReasoningStyle::None => r#"{"role":"assistant","content":"","refusal":null}"#,
    }
}

/// Inline-tag reasoning: the first reasoning token opens `<think>`, the last closes it, so
/// the first reasoning text and the first answer text arrive exactly at their token times.
fn think_text(index: usize, count: usize, token: &str) -> String {
    let open = if index == 0 { "<think>\n" } else { "" };
    let close = if index + 1 == count {
        "\n</think>\n\n"
    } else {
        ""
    };
    format!("{open}{token}{close}")
}

fn reasoning_delta(style: ReasoningStyle, index: usize, count: usize, token: &str) -> String {
    match style {
        ReasoningStyle::ReasoningContent => {
            format!(
                "{{\"content\":null,\"reasoning_content\":{}}}",
                json_str(token)
            )
        }
        ReasoningStyle::Reasoning => format!("{{\"reasoning\":{}}}", json_str(token)),
        ReasoningStyle::Think => {
            format!(
                "{{\"content\":{}}}",
                json_str(&think_text(index, count, token))
            )
        }
        ReasoningStyle::None => String::new(),
    }
}

fn answer_delta(style: ReasoningStyle, token: &str) -> String {
    match style {
        ReasoningStyle::ReasoningContent => {
            format!(
                "{{\"content\":{},\"reasoning_content\":null}}",
                json_str(token)
            )
        }
        _ => format!("{{\"content\":{}}}", json_str(token)),
    }
}

/// The chunks of a successful stream.
pub fn frames(input: &WriterInput<'_>) -> Vec<Frame> {
    let plan = input.plan;
    let mut frames = Vec::new();
    let role = chunk(input, role_delta(input.style), None);
    if input.early {
        frames.push(Frame::bytes(0.0, role.clone()));
    }
    input.keepalives(&mut frames);
    if !input.early {
        frames.push(Frame::bytes(plan.first_token_ms(), role));
    }
    if input.reasoning_visible() {
        let count = input.reasoning.len();
        for (index, (at_ms, token)) in plan.reasoning_at_ms.iter().zip(input.reasoning).enumerate()
        {
            let delta = reasoning_delta(input.style, index, count, token);
            frames.push(Frame::token(*at_ms, chunk(input, &delta, None)));
        }
    }
    for (at_ms, token) in plan.answer_at_ms.iter().zip(input.answer) {
        frames.push(Frame::token(
            *at_ms,
            chunk(input, &answer_delta(input.style, token), None),
        ));
    }
    let finish_delta = match input.style {
        ReasoningStyle::ReasoningContent => r#"{"content":"","reasoning_content":null}"#,
        _ => "{}",
    };
    let finish_reason = if input.truncated { "length" } else { "stop" };
    frames.push(Frame::bytes(
        plan.end_ms,
        chunk(input, finish_delta, Some(finish_reason)),
    ));
    if input.include_usage {
        let usage_chunk = format!(
            "data: {{\"id\":\"{id}\",\"object\":\"chat.completion.chunk\",\"created\":{created},\
             \"model\":{model},\"system_fingerprint\":\"{FINGERPRINT}\",\"choices\":[],\
             \"usage\":{usage}}}\n\n",
            id = chat_id(input),
            created = input.created_s,
            model = json_str(input.model),
            usage = usage_json(input),
        );
        frames.push(Frame::bytes(plan.end_ms, usage_chunk));
    }
    frames.push(Frame::bytes(plan.end_ms, "data: [DONE]\n\n".to_string()));
    frames
}

/// OpenAI's recorded mid-stream error event (Python spacing as on the wire); no `[DONE]`.
pub fn midstream_error() -> String {
    "data: {\"error\": {\"message\": \"The server had an error while processing your request. \
     Sorry about that!\", \"type\": \"server_error\"}}\n\n"
        .to_string()
}

/// A chunk cut off in the middle of its JSON.
pub fn malformed(input: &WriterInput<'_>) -> String {
    format!(
        "data: {{\"id\":\"{}\",\"object\":\"chat.completion.chunk\",\"choices\":[{{\"index\":0,\
         \"delta\":{{\"content\":\"\n\n",
        chat_id(input)
    )
}

/// The `stream: false` body.
pub fn completion(input: &WriterInput<'_>) -> String {
    let answer: String = input.answer.concat();
    let reasoning: String = input.reasoning.concat();
    let mut message = json!({"role": "assistant", "content": answer, "refusal": null});
    if input.reasoning_visible() {
        match input.style {
            ReasoningStyle::ReasoningContent => message["reasoning_content"] = json!(reasoning),
            ReasoningStyle::Reasoning => message["reasoning"] = json!(reasoning),
            ReasoningStyle::Think => {
                message["content"] = json!(format!("<think>\n{reasoning}\n</think>\n\n{answer}"))
            }
            ReasoningStyle::None => {}
        }
    }
    let usage: serde_json::Value =
        serde_json::from_str(&usage_json(input)).unwrap_or(serde_json::Value::Null);
    json!({
        "id": chat_id(input),
        "object": "chat.completion",
        "created": input.created_s,
        "model": input.model,
        "choices": [{
            "index": 0,
            "message": message,
            "logprobs": null,
            "finish_reason": if input.truncated { "length" } else { "stop" },
        }],
        "usage": usage,
        "system_fingerprint": FINGERPRINT,
    })
    .to_string()
}
