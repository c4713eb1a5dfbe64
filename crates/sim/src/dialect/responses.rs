//! OpenAI Responses API events (docs/stream-formats.md §5).
//!
//! JSON is written with keys in the order of the recorded stream (`type` first, then the
//! event's fields alphabetically; nested objects in the API's own order), so the bytes look
//! like the real thing. Values are pre-serialized JSON strings.

use super::{
    flood_frames, hostile, json_str, json_str_array, FloodRun, Frame, FrameBody, Pane, StreamError,
    WriterInput, FLOOD_SEQUENCE_MARK, FLOOD_TEXT_MARK,
};

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

/// A reasoning item; its summary is `summary` (none: an empty list).
fn reasoning_item(id: &str, summary: Option<&str>) -> String {
    let summary = summary.map_or_else(|| "[]".to_string(), |text| array(&[summary_part(text)]));
    object(&[
        ("id", json_str(id)),
        ("type", json_str("reasoning")),
        ("summary", summary),
    ])
}

/// A message item: completed with `text`, or in progress and empty (`None`).
fn message_item(id: &str, text: Option<&str>) -> String {
    let (status, content) = match text {
        Some(text) => ("completed", array(&[output_text_part(text)])),
        None => ("in_progress", "[]".to_string()),
    };
    object(&[
        ("id", json_str(id)),
        ("type", json_str("message")),
        ("status", json_str(status)),
        ("content", content),
        ("role", json_str("assistant")),
    ])
}

/// The output of a finished response: its reasoning item and its message item.
fn final_output(input: &WriterInput<'_>) -> Vec<String> {
    let ids = ids(input);
    let mut output = Vec::new();
    if !input.reasoning.is_empty() {
        let summary = input.reasoning_visible().then(|| input.reasoning.concat());
        output.push(reasoning_item(&ids.reasoning, summary.as_deref()));
    }
    if !input.answer.is_empty() {
        output.push(message_item(&ids.message, Some(&input.answer.concat())));
    }
    output
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

/// The response object: in progress (`None`), or finished with `output` (its items),
/// usage and status.
fn response_object(input: &WriterInput<'_>, output: Option<&[String]>) -> String {
    let null = || "null".to_string();
    let (status, completed_at, incomplete, output, usage) = match output {
        Some(output) if input.truncated => {
            let reason = object(&[("reason", json_str("max_output_tokens"))]);
            ("incomplete", null(), reason, array(output), usage(input))
        }
        Some(output) => {
            let completed_at = input.created_s.to_string();
            (
                "completed",
                completed_at,
                null(),
                array(output),
                usage(input),
            )
        }
        None => ("in_progress", null(), null(), "[]".to_string(), null()),
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

impl Events {
    /// No events yet.
    fn new() -> Self {
        Self {
            frames: Vec::new(),
            sequence_number: 0,
        }
    }
}

/// One output item as streamed: its id, its place in `output`, its deltas with their
/// times, its whole text, and when it is added and done.
struct ItemPlan<'a> {
    id: String,
    output_index: usize,
    deltas: Vec<(f64, &'a str)>,
    text: String,
    added_ms: f64,
    done_ms: f64,
}

impl ItemPlan<'_> {
    /// The fields every event of the item's part carries, with `extra`, alphabetical.
    fn part_fields(
        &self,
        mut fields: Vec<(&'static str, String)>,
        summary: bool,
    ) -> Vec<(&'static str, String)> {
        fields.push(("item_id", json_str(&self.id)));
        fields.push(("output_index", self.output_index.to_string()));
        if summary {
            fields.push(("summary_index", "0".into()));
        } else {
            fields.push(("content_index", "0".into()));
        }
        fields.sort_by(|a, b| a.0.cmp(b.0));
        fields
    }
}

/// The events of a successful stream.
pub fn frames(input: &WriterInput<'_>) -> Vec<Frame> {
    let plan = input.plan;
    let ids = ids(input);
    let answer_start_ms = plan.first_answer_ms().unwrap_or(plan.end_ms);
    let mut events = Events::new();
    push_preamble(&mut events, input);
    let mut output_index = 0;
    if !input.reasoning.is_empty() {
        let item = ItemPlan {
            id: ids.reasoning,
            output_index,
            deltas: zip_times(&plan.reasoning_at_ms, input.reasoning),
            text: input.reasoning.concat(),
            added_ms: plan.first_token_ms(),
            done_ms: answer_start_ms,
        };
        push_reasoning_item(&mut events, &item, input.reasoning_visible());
        output_index = 1;
    }
    if !input.answer.is_empty() {
        let item = ItemPlan {
            id: ids.message,
            output_index,
            deltas: zip_times(&plan.answer_at_ms, input.answer),
            text: input.answer.concat(),
            added_ms: answer_start_ms,
            done_ms: plan.end_ms,
        };
        push_message_item(&mut events, &item, input.flood);
    }
    push_terminal(&mut events, input, &final_output(input));
    events.frames
}

/// Each token with its time.
fn zip_times<'a>(times: &[f64], tokens: &'a [String]) -> Vec<(f64, &'a str)> {
    times
        .iter()
        .zip(tokens)
        .map(|(at_ms, token)| (*at_ms, token.as_str()))
        .collect()
}

/// `response.completed` (or `response.incomplete` when `max_output_tokens` cut it) with
/// `output`.
fn push_terminal(events: &mut Events, input: &WriterInput<'_>, output: &[String]) {
    let terminal = if input.truncated {
        "response.incomplete"
    } else {
        "response.completed"
    };
    let response = response_object(input, Some(output));
    events.push(
        input.plan.end_ms,
        terminal,
        vec![("response", response)],
        false,
    );
}

/// The `key_split_panes` stream: each pane its own output item (a reasoning item with a
/// summary, or a message), between the usual preamble and end.
pub fn pane_frames(input: &WriterInput<'_>, panes: &[Pane]) -> Vec<Frame> {
    let ids = ids(input);
    let mut events = Events::new();
    push_preamble(&mut events, input);
    let mut output = Vec::new();
    for (index, pane) in panes.iter().enumerate() {
        let prefix = if pane.reasoning {
            &ids.reasoning
        } else {
            &ids.message
        };
        let item = ItemPlan {
            id: format!("{prefix}_{index}"),
            output_index: index,
            deltas: vec![(pane.at_ms, pane.text.as_str())],
            text: pane.text.clone(),
            added_ms: pane.at_ms,
            done_ms: pane.at_ms,
        };
        if pane.reasoning {
            push_reasoning_item(&mut events, &item, true);
            output.push(reasoning_item(&item.id, Some(&item.text)));
        } else {
            push_message_item(&mut events, &item, &[]);
            output.push(message_item(&item.id, Some(&item.text)));
        }
    }
    push_terminal(&mut events, input, &output);
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
        let response = response_object(input, None);
        events.push(preamble_ms, name, vec![("response", response)], false);
    }
    if input.early {
        input.keepalives(&mut events.frames);
    }
}

/// A reasoning output item: added, its summary when `visible`, done.
fn push_reasoning_item(events: &mut Events, item: &ItemPlan<'_>, visible: bool) {
    let index = item.output_index.to_string();
    events.push(
        item.added_ms,
        "response.output_item.added",
        vec![
            ("item", reasoning_item(&item.id, None)),
            ("output_index", index.clone()),
        ],
        false,
    );
    if visible {
        push_reasoning_summary(events, item);
    }
    let summary = visible.then_some(item.text.as_str());
    events.push(
        item.done_ms,
        "response.output_item.done",
        vec![
            ("item", reasoning_item(&item.id, summary)),
            ("output_index", index),
        ],
        false,
    );
}

/// The reasoning summary part: added, one delta per reasoning token, text done, part done.
fn push_reasoning_summary(events: &mut Events, item: &ItemPlan<'_>) {
    events.push(
        item.added_ms,
        "response.reasoning_summary_part.added",
        item.part_fields(vec![("part", summary_part(""))], true),
        false,
    );
    for (at_ms, token) in &item.deltas {
        let fields = vec![("delta", json_str(token)), ("obfuscation", json_str(""))];
        events.push(
            *at_ms,
            "response.reasoning_summary_text.delta",
            item.part_fields(fields, true),
            true,
        );
    }
    events.push(
        item.done_ms,
        "response.reasoning_summary_text.done",
        item.part_fields(vec![("text", json_str(&item.text))], true),
        false,
    );
    events.push(
        item.done_ms,
        "response.reasoning_summary_part.done",
        item.part_fields(vec![("part", summary_part(&item.text))], true),
        false,
    );
}

/// The fields of an output text delta (the text already JSON).
fn text_delta_fields(delta_json: String) -> Vec<(&'static str, String)> {
    vec![
        ("delta", delta_json),
        ("logprobs", "[]".into()),
        ("obfuscation", json_str("")),
    ]
}

/// A message output item: added, its text part (one delta per answer token, or the
/// `flood` in their place), done.
fn push_message_item(events: &mut Events, item: &ItemPlan<'_>, flood: &[FloodRun]) {
    let index = item.output_index.to_string();
    events.push(
        item.added_ms,
        "response.output_item.added",
        vec![
            ("item", message_item(&item.id, None)),
            ("output_index", index.clone()),
        ],
        false,
    );
    events.push(
        item.added_ms,
        "response.content_part.added",
        item.part_fields(vec![("part", output_text_part(""))], false),
        false,
    );
    if flood.is_empty() {
        for (at_ms, token) in &item.deltas {
            let fields = item.part_fields(text_delta_fields(json_str(token)), false);
            events.push(*at_ms, "response.output_text.delta", fields, true);
        }
    } else {
        push_flood(events, item, flood);
    }
    events.push(
        item.done_ms,
        "response.output_text.done",
        item.part_fields(
            vec![("logprobs", "[]".into()), ("text", json_str(&item.text))],
            false,
        ),
        false,
    );
    events.push(
        item.done_ms,
        "response.content_part.done",
        item.part_fields(vec![("part", output_text_part(&item.text))], false),
        false,
    );
    events.push(
        item.done_ms,
        "response.output_item.done",
        vec![
            ("item", message_item(&item.id, Some(&item.text))),
            ("output_index", index),
        ],
        false,
    );
}

/// The flood's delta events, numbered on from the events before them.
fn push_flood(events: &mut Events, item: &ItemPlan<'_>, flood: &[FloodRun]) {
    let at_ms = item
        .deltas
        .first()
        .map_or(item.added_ms, |(at_ms, _)| *at_ms);
    let mut template = Events {
        frames: Vec::new(),
        sequence_number: FLOOD_SEQUENCE_MARK,
    };
    let fields = item.part_fields(text_delta_fields(json_str(FLOOD_TEXT_MARK)), false);
    template.push(at_ms, "response.output_text.delta", fields, true);
    let template = template.frames.first().and_then(Frame::text).unwrap_or("");
    let first = events.sequence_number;
    events
        .frames
        .extend(flood_frames(at_ms, template, flood, Some(first)));
    events.sequence_number += flood.iter().map(|run| run.count).sum::<u64>();
}

/// The `error` event after HTTP 200 (spec `ResponseErrorEvent`); nothing follows.
pub fn error_event(error: &StreamError<'_>, sequence_number: usize) -> String {
    let seen = error.seen.map_or(String::new(), |keys| {
        format!(",\"seen\":{}", json_str_array(keys, ","))
    });
    format!(
        "event: error\ndata: {{\"type\":\"error\",\"code\":{},\"message\":{},\"param\":null\
         {seen},\"sequence_number\":{sequence_number}}}\n\n",
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
    response_object(input, Some(&final_output(input)))
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
            flood: &[],
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
