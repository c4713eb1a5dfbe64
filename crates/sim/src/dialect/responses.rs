//! OpenAI Responses API events (docs/stream-formats.md §5).

use serde_json::{json, Value};

use super::{json_str, Frame, WriterInput};

struct Ids {
    response: String,
    reasoning: String,
    message: String,
}

fn ids(input: &WriterInput<'_>) -> Ids {
    Ids {
        response: format!("resp_sim{:06}", input.request_id),
        reasoning: format!("rs_sim{:06}", input.request_id),
        message: format!("msg_sim{:06}", input.request_id),
    }
}

fn reasoning_item(input: &WriterInput<'_>, done: bool) -> Value {
    let summary = if done && input.reasoning_visible() {
        json!([{"type": "summary_text", "text": input.reasoning.concat()}])
    } else {
        json!([])
    };
    json!({"id": ids(input).reasoning, "type": "reasoning", "summary": summary})
}

fn message_item(input: &WriterInput<'_>, done: bool) -> Value {
    let (status, content) = if done {
        let part = json!({"type": "output_text", "annotations": [], "logprobs": [], "text": input.answer.concat()});
        ("completed", json!([part]))
    } else {
        ("in_progress", json!([]))
    };
    json!({"id": ids(input).message, "type": "message", "status": status, "content": content, "role": "assistant"})
}

/// The response object; `final_state` fills output, usage and status.
fn response_object(input: &WriterInput<'_>, final_state: bool) -> Value {
    let (status, output, usage, incomplete) = if final_state {
        let mut output = Vec::new();
        if !input.reasoning.is_empty() {
            output.push(reasoning_item(input, true));
        }
        if !input.answer.is_empty() {
            output.push(message_item(input, true));
        }
        let usage = input.usage;
        let usage = json!({
            "input_tokens": usage.prompt_tokens,
            "input_tokens_details": {"cached_tokens": usage.cached_tokens},
            "output_tokens": usage.output_tokens(),
            "output_tokens_details": {"reasoning_tokens": usage.reasoning_tokens},
            "total_tokens": usage.prompt_tokens + usage.output_tokens(),
        });
        if input.truncated {
            (
                "incomplete",
                json!(output),
                usage,
                json!({"reason": "max_output_tokens"}),
            )
        } else {
            ("completed", json!(output), usage, Value::Null)
        }
    } else {
        ("in_progress", json!([]), Value::Null, Value::Null)
    };
    json!({
        "id": ids(input).response,
        "object": "response",
        "created_at": input.created_s,
        "status": status,
        "error": null,
        "incomplete_details": incomplete,
        "model": input.model,
        "output": output,
        "usage": usage,
        "metadata": {},
    })
}

/// Builds events with increasing `sequence_number`s. The JSON keys after `type` are in
/// serde_json's (sorted) order; clients read them by name.
struct Events {
    frames: Vec<Frame>,
    sequence_number: u64,
}

impl Events {
    fn push(&mut self, at_ms: f64, name: &str, mut data: Value, token: bool) {
        data["sequence_number"] = json!(self.sequence_number);
        self.sequence_number += 1;
        let mut text = format!("event: {name}\ndata: {{\"type\":{}", json_str(name));
        if let Value::Object(fields) = data {
            for (key, value) in fields {
                text.push(',');
                text.push_str(&json_str(&key));
                text.push(':');
                text.push_str(&value.to_string());
            }
        }
        text.push_str("}\n\n");
        self.frames.push(Frame {
            at_ms,
            body: super::FrameBody::Bytes(text),
            token,
        });
    }
}

/// The events of a successful stream.
pub fn frames(input: &WriterInput<'_>) -> Vec<Frame> {
    let plan = input.plan;
    let ids = ids(input);
    let first_ms = plan.first_token_ms();
    let answer_start_ms = plan.first_answer_ms().unwrap_or(plan.end_ms);
    let mut events = Events {
        frames: Vec::new(),
        sequence_number: 0,
    };
    if !input.early {
        input.keepalives(&mut events.frames);
    }
    let preamble_ms = input.preamble_ms();
    events.push(
        preamble_ms,
        "response.created",
        json!({"response": response_object(input, false)}),
        false,
    );
    events.push(
        preamble_ms,
        "response.in_progress",
        json!({"response": response_object(input, false)}),
        false,
    );
    if input.early {
        input.keepalives(&mut events.frames);
    }
    let mut output_index = 0;
    if !input.reasoning.is_empty() {
        events.push(
            first_ms,
            "response.output_item.added",
            json!({"item": reasoning_item(input, false), "output_index": 0}),
            false,
        );
        if input.reasoning_visible() {
            let part_key = json!({"item_id": ids.reasoning, "output_index": 0, "summary_index": 0});
            let mut added = part_key.clone();
            added["part"] = json!({"type": "summary_text", "text": ""});
            events.push(
                first_ms,
                "response.reasoning_summary_part.added",
                added,
                false,
            );
            for (at_ms, token) in plan.reasoning_at_ms.iter().zip(input.reasoning) {
                let mut delta = part_key.clone();
                delta["delta"] = json!(token);
                delta["obfuscation"] = json!("");
                events.push(*at_ms, "response.reasoning_summary_text.delta", delta, true);
            }
            let text = input.reasoning.concat();
            let mut done = part_key.clone();
            done["text"] = json!(text);
            events.push(
                answer_start_ms,
                "response.reasoning_summary_text.done",
                done,
                false,
            );
            let mut part_done = part_key;
            part_done["part"] = json!({"type": "summary_text", "text": text});
            events.push(
                answer_start_ms,
                "response.reasoning_summary_part.done",
                part_done,
                false,
            );
        }
        events.push(
            answer_start_ms,
            "response.output_item.done",
            json!({"item": reasoning_item(input, true), "output_index": 0}),
            false,
        );
        output_index = 1;
    }
    if !input.answer.is_empty() {
        events.push(
            answer_start_ms,
            "response.output_item.added",
            json!({"item": message_item(input, false), "output_index": output_index}),
            false,
        );
        let part_key =
            json!({"content_index": 0, "item_id": ids.message, "output_index": output_index});
        let mut added = part_key.clone();
        added["part"] =
            json!({"type": "output_text", "annotations": [], "logprobs": [], "text": ""});
        events.push(answer_start_ms, "response.content_part.added", added, false);
        for (at_ms, token) in plan.answer_at_ms.iter().zip(input.answer) {
            let mut delta = part_key.clone();
            delta["delta"] = json!(token);
            delta["logprobs"] = json!([]);
            delta["obfuscation"] = json!("");
            events.push(*at_ms, "response.output_text.delta", delta, true);
        }
        let text = input.answer.concat();
        let mut done = part_key.clone();
        done["text"] = json!(text);
        done["logprobs"] = json!([]);
        events.push(plan.end_ms, "response.output_text.done", done, false);
        let mut part_done = part_key;
        part_done["part"] =
            json!({"type": "output_text", "annotations": [], "logprobs": [], "text": text});
        events.push(plan.end_ms, "response.content_part.done", part_done, false);
        events.push(
            plan.end_ms,
            "response.output_item.done",
            json!({"item": message_item(input, true), "output_index": output_index}),
            false,
        );
    }
    let terminal = if input.truncated {
        "response.incomplete"
    } else {
        "response.completed"
    };
    events.push(
        plan.end_ms,
        terminal,
        json!({"response": response_object(input, true)}),
        false,
    );
    events.frames
}

/// The `error` event after HTTP 200 (spec `ResponseErrorEvent`); nothing follows.
pub fn midstream_error(sequence_number: usize) -> String {
    format!(
        "event: error\ndata: {{\"type\":\"error\",\"code\":\"server_error\",\"message\":\"The \
         server had an error while processing your request. Sorry about that!\",\"param\":null,\
         \"sequence_number\":{sequence_number}}}\n\n"
    )
}

/// An event whose JSON is cut off.
pub fn malformed() -> String {
    "event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"delta\":\"\n\n"
        .to_string()
}

/// The non-streaming body.
pub fn completion(input: &WriterInput<'_>) -> String {
    response_object(input, true).to_string()
}
