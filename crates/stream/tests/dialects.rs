//! Dialect behaviour on small hand-written streams, for shapes of stream-formats.md that no
//! transcript covers.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::json;
use ttft_stream::dialect::{Decoder, Dialect, Outcome, StreamReader, StreamSummary};
use ttft_stream::sse::SseEvent;

fn read_all(dialect: Option<Dialect>, stream: &str) -> StreamSummary {
    let mut reader = StreamReader::new(dialect);
    reader.on_bytes(stream.as_bytes()).unwrap();
    reader.finish()
}

fn chat_chunk(choices: serde_json::Value) -> String {
    format!(
        "data: {}\n\n",
        json!({ "object": "chat.completion.chunk", "choices": choices })
    )
}

#[test]
fn several_choices_report_choice_zero_by_index_not_position() {
    let stream = [
        chat_chunk(json!([{"index": 1, "delta": {"content": "B"}}, {"index": 0, "delta": {"role": "assistant", "content": ""}}])),
        chat_chunk(json!([{"index": 1, "delta": {"content": "BB"}}])),
        chat_chunk(json!([{"index": 0, "delta": {"content": "A"}}])),
        chat_chunk(json!([{"index": 1, "delta": {}, "finish_reason": "length"}])),
        chat_chunk(json!([{"index": 0, "delta": {}, "finish_reason": "stop"}])),
        "data: [DONE]\n\n".to_owned(),
    ]
    .concat();
    let summary = read_all(None, &stream);
    assert_eq!(summary.answer_text, "A");
    assert_eq!(summary.first_answer_event, Some(2));
    assert_eq!(summary.finish_reason.as_deref(), Some("stop"));
    assert_eq!(summary.outcome, Outcome::Completed);
}

#[test]
fn content_parts_text_and_thinking_with_string_thinking() {
    let stream = [
        chat_chunk(json!([{"index": 0, "delta": {"content": [{"type": "thinking", "thinking": "Hm."}, {"type": "text", "text": "Yes"}]}}])),
        "data: [DONE]\n\n".to_owned(),
    ]
    .concat();
    let summary = read_all(Some(Dialect::Chat), &stream);
    assert_eq!(
        (
            summary.reasoning_text.as_str(),
            summary.answer_text.as_str()
        ),
        ("Hm.", "Yes")
    );
    assert_eq!(
        (summary.first_reasoning_event, summary.first_answer_event),
        (Some(0), Some(0))
    );
}

#[test]
fn plain_chat_never_strips_tags() {
    let stream = [
        chat_chunk(json!([{"index": 0, "delta": {"content": "<think>x</think>y"}}])),
        "data: [DONE]\n\n".to_owned(),
    ]
    .concat();
    let summary = read_all(Some(Dialect::Chat), &stream);
    assert_eq!(summary.answer_text, "<think>x</think>y");
    assert_eq!(summary.reasoning_text, "");
    let summary = read_all(None, &stream);
    assert_eq!(
        (
            summary.dialect,
            summary.reasoning_text.as_str(),
            summary.answer_text.as_str()
        ),
        (Dialect::ChatThink, "x", "y")
    );
}

#[test]
fn missing_open_without_close_is_all_reasoning() {
    let stream = [
        chat_chunk(json!([{"index": 0, "delta": {"content": "Still thinking"}}])),
        "data: [DONE]\n\n".to_owned(),
    ]
    .concat();
    let summary = read_all(Some(Dialect::ChatThinkMissingOpen), &stream);
    assert_eq!(
        (
            summary.reasoning_text.as_str(),
            summary.answer_text.as_str()
        ),
        ("Still thinking", "")
    );
}

#[test]
fn held_partial_tag_is_released_at_end_of_stream() {
    // No finish_reason and no [DONE]: the held "<th" is answer text after all.
    let stream = chat_chunk(json!([{"index": 0, "delta": {"content": "<th"}}]));
    let summary = read_all(Some(Dialect::ChatThink), &stream);
    assert_eq!(summary.answer_text, "<th");
    assert_eq!(summary.first_answer_event, Some(0));
    assert_eq!(summary.outcome, Outcome::EndedWithoutTerminalMarker);
}

#[test]
fn chat_error_shapes() {
    // (stream, kind, raw) — top-level `error`, `type == "error"`, SSE `event: error`,
    // `finish_reason: "error"` without an error object.
    let cases = [
        (
            "data: {\"error\": {\"message\": \"m\", \"type\": \"t\"}}\n\n",
            Some("t"),
            json!({"message": "m", "type": "t"}),
        ),
        (
            "data: {\"type\": \"error\", \"message\": \"m\"}\n\n",
            None,
            json!({"message": "m"}),
        ),
        ("event: error\ndata: not json\n\n", None, json!("not json")),
        (
            "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"error\"}]}\n\n",
            Some("error"),
            json!({"finish_reason": "error"}),
        ),
    ];
    for (stream, kind, raw) in cases {
        let summary = read_all(None, stream);
        let error = summary.error.unwrap();
        assert_eq!((error.kind.as_deref(), error.raw), (kind, raw), "{stream}");
        assert_eq!(summary.outcome, Outcome::StreamError, "{stream}");
    }
}

#[test]
fn first_error_is_kept_and_done_after_error_is_not_success() {
    let stream = "data: {\"error\": {\"type\": \"first\"}}\n\ndata: {\"error\": {\"type\": \"second\"}}\n\ndata: [DONE]\n\n";
    let summary = read_all(Some(Dialect::Chat), stream);
    assert_eq!(summary.error.unwrap().kind.as_deref(), Some("first"));
    assert!(summary.terminal_marker_seen);
    assert_eq!(summary.outcome, Outcome::StreamError);
}

#[test]
fn outcomes_without_marker_and_empty() {
    let summary = read_all(
        None,
        &chat_chunk(json!([{"index": 0, "delta": {"content": "x"}}])),
    );
    assert_eq!(summary.outcome, Outcome::EndedWithoutTerminalMarker);
    assert_eq!(
        read_all(None, ": only a comment\n\n").outcome,
        Outcome::EmptyStream
    );
    assert_eq!(read_all(None, "").outcome, Outcome::EmptyStream);
    // An unterminated last event does not count.
    assert_eq!(read_all(None, "data: [DONE]").outcome, Outcome::EmptyStream);
}

#[test]
fn usage_is_last_non_null_never_summed() {
    let stream = [
        format!(
            "data: {}\n\n",
            json!({"choices": [], "usage": {"prompt_tokens": 5, "completion_tokens": 1}})
        ),
        format!("data: {}\n\n", json!({"choices": [], "usage": null})),
        format!(
            "data: {}\n\n",
            json!({"choices": [], "usage": {"prompt_tokens": 5, "completion_tokens": 3}})
        ),
        "data: [DONE]\n\n".to_owned(),
    ]
    .concat();
    let summary = read_all(None, &stream);
    let usage = summary.usage.unwrap();
    assert_eq!(
        (usage.prompt_tokens, usage.output_tokens),
        (Some(5), Some(3))
    );
    assert_eq!(
        usage.raw,
        json!({"prompt_tokens": 5, "completion_tokens": 3})
    );
}

#[test]
fn malformed_json_is_counted_and_contributes_nothing() {
    let stream = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}\n\ndata: {broken\n\ndata: [DONE]\n\n";
    let summary = read_all(None, stream);
    assert_eq!(
        (summary.malformed_event_count, summary.answer_text.as_str()),
        (1, "a")
    );
    assert_eq!(summary.outcome, Outcome::Completed);
}

fn sse(event: &str, data: serde_json::Value) -> String {
    format!("event: {event}\ndata: {data}\n\n")
}

#[test]
fn responses_raw_reasoning_failed_and_incomplete() {
    let failed = [
        sse("response.reasoning_text.delta", json!({"type": "response.reasoning_text.delta", "delta": "raw cot"})),
        sse("response.output_text.delta", json!({"type": "response.output_text.delta", "delta": "Hi"})),
        sse(
            "response.failed",
            json!({"type": "response.failed", "response": {"status": "failed", "error": {"code": "server_error", "message": "boom"}, "usage": null}}),
        ),
    ]
    .concat();
    let summary = read_all(None, &failed);
    assert_eq!(summary.dialect, Dialect::Responses);
    assert_eq!(
        (
            summary.reasoning_text.as_str(),
            summary.answer_text.as_str()
        ),
        ("raw cot", "Hi")
    );
    assert_eq!(
        summary.error.as_ref().unwrap().raw,
        json!({"code": "server_error", "message": "boom"})
    );
    assert_eq!(summary.error.unwrap().kind.as_deref(), Some("server_error"));
    assert_eq!(summary.finish_reason.as_deref(), Some("failed"));
    assert!(summary.terminal_marker_seen);
    assert_eq!(summary.outcome, Outcome::StreamError);

    let incomplete = sse(
        "response.incomplete",
        json!({"type": "response.incomplete", "response": {"status": "incomplete", "incomplete_details": {"reason": "max_output_tokens"}, "usage": {"input_tokens": 3, "output_tokens": 9, "output_tokens_details": {"reasoning_tokens": 9}}}}),
    );
    let summary = read_all(Some(Dialect::Responses), &incomplete);
    assert_eq!(summary.finish_reason.as_deref(), Some("incomplete"));
    assert_eq!(summary.usage.unwrap().reasoning_tokens, Some(9));
    assert_eq!(summary.outcome, Outcome::Completed);
}

#[test]
fn anthropic_error_falls_back_to_event_name_and_usage_overwrites() {
    // No JSON `type`: the SSE event name decides (the SDKs dispatch on it).
    let stream = [
        sse("message_start", json!({"message": {"usage": {"input_tokens": 10, "cache_read_input_tokens": 4, "output_tokens": 1}}})),
        sse("message_delta", json!({"delta": {"stop_reason": null}, "usage": {"output_tokens": 5}})),
        sse("message_delta", json!({"delta": {"stop_reason": "max_tokens"}, "usage": {"output_tokens": 7, "input_tokens": 11}})),
        sse("error", json!({"error": {"type": "api_error", "message": "m"}})),
    ]
    .concat();
    let summary = read_all(None, &stream);
    assert_eq!(summary.dialect, Dialect::Anthropic);
    let usage = summary.usage.unwrap();
    assert_eq!(
        usage.raw,
        json!({"input_tokens": 11, "cache_read_input_tokens": 4, "output_tokens": 7})
    );
    assert_eq!(
        (
            usage.prompt_tokens,
            usage.cached_prompt_tokens,
            usage.output_tokens
        ),
        (Some(15), Some(4), Some(7))
    );
    assert_eq!(summary.finish_reason.as_deref(), Some("max_tokens"));
    assert_eq!(summary.error.unwrap().kind.as_deref(), Some("api_error"));
    assert!(!summary.terminal_marker_seen);
}

#[test]
fn decoder_reports_per_event_fields() {
    let mut decoder = Decoder::new(None);
    let event = |data: &str| SseEvent {
        data: data.to_owned(),
        ..SseEvent::default()
    };
    let first = decoder.decode(&event(
        r#"{"choices":[{"index":0,"delta":{"reasoning_content":"\n"}}]}"#,
    ));
    assert_eq!((first.index, first.reasoning.as_str()), (0, "\n"));
    assert!(!first.has_visible_reasoning());
    let usage = decoder.decode(&event(r#"{"choices":[],"usage":{"prompt_tokens":1}}"#));
    assert!(usage.usage_updated && usage.answer.is_empty());
    let done = decoder.decode(&event("[DONE]"));
    assert_eq!((done.index, done.terminal), (2, true));
    assert_eq!(decoder.event_count(), 3);
    assert_eq!(decoder.dialect(), Dialect::Chat);
}

/// A chat stream whose choice-0 content arrives in these deltas, then `finish_reason: stop`
/// and `[DONE]`.
fn content_stream(deltas: &[&str]) -> String {
    let mut stream =
        chat_chunk(json!([{"index": 0, "delta": {"role": "assistant", "content": ""}}]));
    for delta in deltas {
        stream.push_str(&chat_chunk(
            json!([{"index": 0, "delta": {"content": delta}}]),
        ));
    }
    stream.push_str(&chat_chunk(
        json!([{"index": 0, "delta": {}, "finish_reason": "stop"}]),
    ));
    stream.push_str("data: [DONE]\n\n");
    stream
}

fn decode_all(dialect: Option<Dialect>, stream: &str) -> Vec<ttft_stream::dialect::DecodedEvent> {
    let mut reader = StreamReader::new(dialect);
    let mut events = reader.on_bytes(stream.as_bytes()).unwrap();
    reader.finish_into(&mut events);
    events
}

#[test]
fn closing_think_split_across_deltas_re_attributes_the_answer_without_the_tag() {
    let stream = content_stream(&["Hmm, ", "2+2=4</th", "ink>\n\nFour."]);
    let events = decode_all(None, &stream);
    assert_eq!(events[1].answer, "Hmm, ");
    assert_eq!(events[2].answer, "2+2=4</th");
    assert_eq!(
        events[3].earlier_answer_was_reasoning.as_deref(),
        Some("Hmm, 2+2=4")
    );
    assert_eq!(
        (events[3].reasoning.as_str(), events[3].answer.as_str()),
        ("", "\n\nFour.")
    );
    assert!(events
        .iter()
        .filter(|event| event.index != 3)
        .all(|event| event.earlier_answer_was_reasoning.is_none()));
    let summary = read_all(None, &stream);
    assert_eq!(summary.dialect, Dialect::ChatThinkMissingOpen);
    assert_eq!(
        (
            summary.reasoning_text.as_str(),
            summary.answer_text.as_str(),
            summary.first_reasoning_event,
            summary.first_answer_event,
            summary.first_answer_event_visible,
        ),
        ("Hmm, 2+2=4", "\n\nFour.", Some(1), Some(3), Some(3))
    );
}

/// Wherever the deltas split the content, auto-detection ends with exactly what the explicit
/// `chat+think_missing_open` dialect reads, event indices included. One exception: whitespace
/// before a partial `</think>` at the very start is held until the tag completes (auto cannot
/// tell yet whether it is reasoning), so a whitespace-only reasoning is reported one event
/// later than the explicit dialect, which knows.
#[test]
fn auto_equals_the_explicit_missing_open_dialect_under_any_delta_split() {
    for content in [
        "  Let me think.\nOK</think>\n\nYes </think> stays.",
        "</think>Straight to the answer",
        "\n\n</think>\n\n4",
        "<b>bold</b> thoughts</think>answer",
    ] {
        for first in 0..=content.len() {
            for second in first..=content.len() {
                if !content.is_char_boundary(first) || !content.is_char_boundary(second) {
                    continue;
                }
                let deltas = [
                    &content[..first],
                    &content[first..second],
                    &content[second..],
                ];
                let stream = content_stream(&deltas);
                let mut auto = read_all(None, &stream);
                let explicit = read_all(Some(Dialect::ChatThinkMissingOpen), &stream);
                if explicit.reasoning_text.trim().is_empty()
                    && auto.first_reasoning_event != explicit.first_reasoning_event
                {
                    assert!(auto.first_reasoning_event > explicit.first_reasoning_event);
                    auto.first_reasoning_event = explicit.first_reasoning_event;
                }
                assert_eq!(
                    auto.to_expected_json(),
                    explicit.to_expected_json(),
                    "{deltas:?}"
                );
            }
        }
    }
}

#[test]
fn a_stream_that_never_closes_the_tag_stays_answer() {
    let stream = content_stream(&["Still", " thinking", " </thin"]);
    let summary = read_all(None, &stream);
    assert_eq!(summary.dialect, Dialect::Chat);
    assert_eq!(
        (
            summary.reasoning_text.as_str(),
            summary.answer_text.as_str()
        ),
        ("", "Still thinking </thin")
    );
    assert_eq!(summary.first_answer_event, Some(1));
    assert!(decode_all(None, &stream)
        .iter()
        .all(|event| event.earlier_answer_was_reasoning.is_none()));
}

#[test]
fn closing_think_is_answer_after_an_opening_tag_a_side_channel_or_a_first_close() {
    // Opened and closed: the later `</think>` is answer text.
    let summary = read_all(None, &content_stream(&["<think>a</think>b", " </think> c"]));
    assert_eq!(summary.dialect, Dialect::ChatThink);
    assert_eq!(summary.answer_text, "b </think> c");
    // The server split reasoning itself: content is never re-read.
    let stream = [
        chat_chunk(json!([{"index": 0, "delta": {"reasoning_content": "r"}}])),
        chat_chunk(json!([{"index": 0, "delta": {"content": "x</think>y"}}])),
        "data: [DONE]\n\n".to_owned(),
    ]
    .concat();
    let summary = read_all(None, &stream);
    assert_eq!(
        (
            summary.dialect,
            summary.reasoning_text.as_str(),
            summary.answer_text.as_str()
        ),
        (Dialect::Chat, "r", "x</think>y")
    );
    // Only the first `</think>` closes the block that was never opened.
    let summary = read_all(None, &content_stream(&["a</think>b", "</think>c"]));
    assert_eq!(
        (
            summary.dialect,
            summary.reasoning_text.as_str(),
            summary.answer_text.as_str()
        ),
        (Dialect::ChatThinkMissingOpen, "a", "b</think>c")
    );
}
