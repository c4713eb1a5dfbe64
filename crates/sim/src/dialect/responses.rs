//! OpenAI Responses API events (docs/stream-formats.md §5).
//!
//! JSON is written with keys in the order of the recorded stream (`type` first, then the
//! event's fields alphabetically; nested objects in the API's own order), so the bytes look
//! like the real thing. Values are pre-serialized JSON strings.

use super::{hostile, json_str, Frame, FrameBody, StreamError, WriterInput};

/// `{"k":v,...}` from already-serialized values, in the given order.
fn object(fields: &[(&str, String)]) -> String {
    let body: Vec<String> = fields
        .iter()
        .map(|(key, value)| format!("{}:{value}", json_str(key)))
        .collect();
    format!("{{{}}}", body.join(","))
}

fn array(items: &[String]) -> String {
    format!("[{}]", items.join(","))
}

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

fn summary_part(text: &str) -> String {
    object(&[("type", json_str("summary_text")), ("text", json_str(text))])
}

fn output_text_part(text: &str) -> String {
    object(&[
        ("type", json_str("output_text")),
        ("annotations", "[]".into()),
        ("logprobs", "[]".into()),
        ("text", json_str(text)),
    ])
}

fn reasoning_item(input: &WriterInput<'_>, done: bool) -> String {
    let summary = if done && input.reasoning_visible() {
        array(&[summary_part(&input.reasoning.concat())])
    } else {
        "[]".to_string()
    };
    object(&[
        ("id", json_str(&ids(input).reasoning)),
        ("type", json_str("reasoning")),
        ("summary", summary),
    ])
}

fn message_item(input: &WriterInput<'_>, done: bool) -> String {
    let (status, content) = if done {
        (
            "completed",
            array(&[output_text_part(&input.answer.concat())]),
        )
    } else {
        ("in_progress", "[]".to_string())
    };
    object(&[
        ("id", json_str(&ids(input).message)),
        ("type", json_str("message")),
        ("status", json_str(status)),
        ("content", content),
        ("role", json_str("assistant")),
    ])
}

fn usage(input: &WriterInput<'_>) -> String {
    if input.hostile_usage {
        return object(&[
            ("input_tokens", hostile::HUGE.into()),
            (
                "input_tokens_details",
                object(&[("cached_tokens", hostile::FRACTION.into())]),
            ),
            ("output_tokens", hostile::NEGATIVE.into()),
            (
                "output_tokens_details",
                object(&[("reasoning_tokens", hostile::OVERFLOW.into())]),
            ),
            ("total_tokens", hostile::HUGE.into()),
        ]);
    }
    let usage = input.usage;
    object(&[
        ("input_tokens", usage.prompt_tokens.to_string()),
        (
            "input_tokens_details",
            object(&[("cached_tokens", usage.cached_tokens.to_string())]),
        ),
        ("output_tokens", usage.output_tokens().to_string()),
        (
            "output_tokens_details",
            object(&[("reasoning_tokens", usage.reasoning_tokens.to_string())]),
        ),
        (
            "total_tokens",
            (usage.prompt_tokens + usage.output_tokens()).to_string(),
        ),
    ])
}

/// The response object; `final_state` fills output, usage and status.
fn response_object(input: &WriterInput<'_>, final_state: bool) -> String {
    let null = || "null".to_string();
    let (status, completed_at, incomplete, output, usage) = if final_state {
        let mut output = Vec::new();
        if !input.reasoning.is_empty() {
            output.push(reasoning_item(input, true));
        }
        if !input.answer.is_empty() {
            output.push(message_item(input, true));
        }
        if input.truncated {
            let reason = object(&[("reason", json_str("max_output_tokens"))]);
            ("incomplete", null(), reason, array(&output), usage(input))
        } else {
            let completed_at = input.created_s.to_string();
            (
                "completed",
                completed_at,
                null(),
                array(&output),
                usage(input),
            )
        }
    } else {
        ("in_progress", null(), null(), "[]".to_string(), null())
    };
    object(&[
        ("id", json_str(&ids(input).response)),
        ("object", json_str("response")),
        ("created_at", input.created_s.to_string()),
        ("status", json_str(status)),
        ("background", "false".into()),
        ("completed_at", completed_at),
        ("error", null()),
        ("incomplete_details", incomplete),
        ("model", json_str(input.model)),
        ("output", output),
        ("usage", usage),
        ("metadata", "{}".into()),
    ])
}

/// Builds events with increasing `sequence_number`s.
struct Events {
    frames: Vec<Frame>,
    sequence_number: u64,
}

impl Events {
    /// `fields` must be in alphabetical order without `sequence_number`, which is inserted.
    fn push(&mut self, at_ms: f64, name: &str, fields: Vec<(&str, String)>, token: bool) {
        let mut all = vec![("type", json_str(name))];
        let sequence = ("sequence_number", self.sequence_number.to_string());
        self.sequence_number += 1;
        let mut inserted = false;
        for field in fields {
            if !inserted && field.0 > "sequence_number" {
                all.push(sequence.clone());
                inserted = true;
            }
            all.push(field);
        }
        if !inserted {
            all.push(sequence);
        }
        let text = format!("event: {name}\ndata: {}\n\n", object(&all));
        self.frames.push(Frame {
            at_ms,
            body: FrameBody::Bytes(text),
            token,
        });
    }
}

/// The events of a successful stream.
pub fn frames(input: &WriterInput<'_>) -> Vec<Frame> {
    let plan = input.plan;
    let first_ms = plan.first_token_ms();
    let answer_start_ms = plan.first_answer_ms().unwrap_or(plan.end_ms);
    let mut events = Events {
        frames: Vec::new(),
        sequence_number: 0,
    };
    push_preamble(&mut events, input);
    let mut output_index = 0;
    if !input.reasoning.is_empty() {
        push_reasoning_item(&mut events, input, first_ms, answer_start_ms);
        output_index = 1;
    }
    if !input.answer.is_empty() {
        push_message_item(&mut events, input, output_index, answer_start_ms);
    }
    let terminal = if input.truncated {
        "response.incomplete"
    } else {
        "response.completed"
    };
    let response = response_object(input, true);
    events.push(plan.end_ms, terminal, vec![("response", response)], false);
    events.frames
}

/// The keep-alives and the `response.created` / `response.in_progress` events (the
/// keep-alives after them when the headers come early, else before them).
fn push_preamble(events: &mut Events, input: &WriterInput<'_>) {
    if !input.early {
        input.keepalives(&mut events.frames);
    }
    let preamble_ms = input.preamble_ms();
    for name in ["response.created", "response.in_progress"] {
        let response = response_object(input, false);
        events.push(preamble_ms, name, vec![("response", response)], false);
    }
    if input.early {
        input.keepalives(&mut events.frames);
    }
}

/// The reasoning output item (index 0): added, its summary when visible, done.
fn push_reasoning_item(
    events: &mut Events,
    input: &WriterInput<'_>,
    first_ms: f64,
    answer_start_ms: f64,
) {
    events.push(
        first_ms,
        "response.output_item.added",
        vec![
            ("item", reasoning_item(input, false)),
            ("output_index", "0".into()),
        ],
        false,
    );
    if input.reasoning_visible() {
        push_reasoning_summary(events, input, first_ms, answer_start_ms);
    }
    events.push(
        answer_start_ms,
        "response.output_item.done",
        vec![
            ("item", reasoning_item(input, true)),
            ("output_index", "0".into()),
        ],
        false,
    );
}

/// The reasoning summary part: added, one delta per reasoning token, text done, part done.
fn push_reasoning_summary(
    events: &mut Events,
    input: &WriterInput<'_>,
    first_ms: f64,
    answer_start_ms: f64,
) {
    let item_id = json_str(&ids(input).reasoning);
    let part_fields = |extra: Vec<(&'static str, String)>| {
        let mut fields = vec![("item_id", item_id.clone()), ("output_index", "0".into())];
        fields.extend(extra);
        fields.push(("summary_index", "0".into()));
        fields.sort_by(|a, b| a.0.cmp(b.0));
        fields
    };
    events.push(
        first_ms,
        "response.reasoning_summary_part.added",
        part_fields(vec![("part", summary_part(""))]),
        false,
    );
    for (at_ms, token) in input.plan.reasoning_at_ms.iter().zip(input.reasoning) {
        let fields = part_fields(vec![
            ("delta", json_str(token)),
            ("obfuscation", json_str("")),
        ]);
        events.push(
            *at_ms,
            "response.reasoning_summary_text.delta",
            fields,
            true,
        );
    }
    let text = input.reasoning.concat();
    events.push(
        answer_start_ms,
        "response.reasoning_summary_text.done",
        part_fields(vec![("text", json_str(&text))]),
        false,
    );
    events.push(
        answer_start_ms,
        "response.reasoning_summary_part.done",
        part_fields(vec![("part", summary_part(&text))]),
        false,
    );
}

/// The message output item at `output_index`: added, its text part (one delta per answer
/// token), done.
fn push_message_item(
    events: &mut Events,
    input: &WriterInput<'_>,
    output_index: usize,
    answer_start_ms: f64,
) {
    let plan = input.plan;
    let index = output_index.to_string();
    events.push(
        answer_start_ms,
        "response.output_item.added",
        vec![
            ("item", message_item(input, false)),
            ("output_index", index.clone()),
        ],
        false,
    );
    let item_id = json_str(&ids(input).message);
    let part_fields = |extra: Vec<(&'static str, String)>| {
        let mut fields = vec![
            ("content_index", "0".to_string()),
            ("item_id", item_id.clone()),
            ("output_index", index.clone()),
        ];
        fields.extend(extra);
        fields.sort_by(|a, b| a.0.cmp(b.0));
        fields
    };
    events.push(
        answer_start_ms,
        "response.content_part.added",
        part_fields(vec![("part", output_text_part(""))]),
        false,
    );
    for (at_ms, token) in plan.answer_at_ms.iter().zip(input.answer) {
        let fields = part_fields(vec![
            ("delta", json_str(token)),
            ("logprobs", "[]".into()),
            ("obfuscation", json_str("")),
        ]);
        events.push(*at_ms, "response.output_text.delta", fields, true);
    }
    let text = input.answer.concat();
    events.push(
        plan.end_ms,
        "response.output_text.done",
        part_fields(vec![("logprobs", "[]".into()), ("text", json_str(&text))]),
        false,
    );
    events.push(
        plan.end_ms,
        "response.content_part.done",
        part_fields(vec![("part", output_text_part(&text))]),
        false,
    );
    events.push(
        plan.end_ms,
        "response.output_item.done",
        vec![
            ("item", message_item(input, true)),
            ("output_index", index.clone()),
        ],
        false,
    );
}

/// The `error` event after HTTP 200 (spec `ResponseErrorEvent`); nothing follows.
pub fn error_event(error: &StreamError<'_>, sequence_number: usize) -> String {
    format!(
        "event: error\ndata: {{\"type\":\"error\",\"code\":{},\"message\":{},\"param\":null,\
         \"sequence_number\":{sequence_number}}}\n\n",
        json_str(error.code.unwrap_or("server_error")),
        json_str(error.message)
    )
}

/// The `huge_line` fault's event line and the start of its data line (a text delta that
/// never ends).
pub fn huge_line_prefix() -> (String, String) {
    (
        "event: response.output_text.delta\n".to_string(),
        "data: {\"type\":\"response.output_text.delta\",\"delta\":\"".to_string(),
    )
}

/// An event whose JSON is cut off.
pub fn malformed() -> String {
    "event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"delta\":\"\n\n"
        .to_string()
}

/// The non-streaming body.
pub fn completion(input: &WriterInput<'_>) -> String {
    response_object(input, true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dialect::Usage;
    use crate::profile::ReasoningStyle;
    use crate::timing::StreamPlan;

    #[test]
    fn delta_event_bytes_match_the_recorded_layout() {
        let plan = StreamPlan {
            queue_ms: 0.0,
            prefill_ms: 10.0,
            reasoning_at_ms: vec![],
            answer_at_ms: vec![10.0],
            keepalive_at_ms: vec![],
            end_ms: 10.0,
        };
        let answer = vec!["Hello".to_string()];
        let input = WriterInput {
            request_id: 7,
            model: "sim-fast",
            created_s: 1,
            plan: &plan,
            style: ReasoningStyle::None,
            early: false,
            include_usage: false,
            hostile_usage: false,
            reasoning: &[],
            answer: &answer,
            usage: Usage {
                prompt_tokens: 3,
                cached_tokens: 0,
                reasoning_tokens: 0,
                answer_tokens: 1,
            },
            truncated: false,
            account: super::super::Account::default(),
        };
        let frames = frames(&input);
        let delta = frames
            .iter()
            .filter_map(Frame::text)
            .find(|t| t.starts_with("event: response.output_text.delta"))
            .unwrap();
        assert_eq!(
            delta,
            "event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\
             \"content_index\":0,\"delta\":\"Hello\",\"item_id\":\"msg_sim000007\",\"logprobs\":[],\
             \"obfuscation\":\"\",\"output_index\":0,\"sequence_number\":4}\n\n"
        );
        let created = frames[0].text().unwrap();
        assert!(created.starts_with(
            "event: response.created\ndata: {\"type\":\"response.created\",\"response\":{\"id\":\"resp_sim000007\",\"object\":\"response\",\"created_at\":1,\"status\":\"in_progress\""
        ), "{created}");
    }
}
