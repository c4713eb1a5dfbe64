//! Wire formats, faults, auth, CORS, static files and paths, over real HTTP.

// Test crate: helpers outside #[test] functions fail loudly by design.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use common::*;
use serde_json::{json, Value};
use ttft_sim::ServerConfig;

fn data_events(events: &[Event]) -> Vec<&Event> {
    events.iter().filter(|e| !e.comment).collect()
}

#[tokio::test]
async fn chat_stream_is_well_formed_with_usage_and_cached_tokens() {
    let base = start(ServerConfig::default()).await;
    let prompt = prompt_of(150, "ab");
    let model = format!("sim-fast@{QUICK},answer_tokens=5");
    let (status, headers, events, end) = stream(
        &base,
        "/v1/chat/completions",
        &chat_body(&model, &prompt),
        &[],
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(end, End::Clean);
    assert!(header(&headers, "content-type")
        .unwrap()
        .starts_with("text/event-stream"));
    let events = data_events(&events);
    assert_eq!(
        events.len(),
        1 + 5 + 1 + 1 + 1,
        "role, 5 tokens, finish, usage, [DONE]"
    );
    let role = events[0].json();
    assert_eq!(role["object"], "chat.completion.chunk");
    assert_eq!(role["model"], model, "model echoed as sent");
    assert_eq!(role["choices"][0]["delta"]["role"], "assistant");
    assert_eq!(role["choices"][0]["delta"]["content"], "");
    assert_eq!(role["usage"], Value::Null);
    let answer: String = events[1..6]
        .iter()
        .map(|e| {
            e.json()["choices"][0]["delta"]["content"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(answer, "Here is a simulated answer");
    let finish = events[6].json();
    assert_eq!(finish["choices"][0]["finish_reason"], "stop");
    assert_eq!(finish["choices"][0]["delta"], json!({}));
    let usage_chunk = events[7].json();
    assert_eq!(usage_chunk["choices"], json!([]));
    assert_eq!(
        usage_chunk["usage"],
        json!({"prompt_tokens": 150, "completion_tokens": 5, "total_tokens": 155,
               "prompt_tokens_details": {"cached_tokens": 0},
               "completion_tokens_details": {"reasoning_tokens": 0}})
    );
    assert_eq!(events[8].data, "[DONE]");
    assert_eq!(header(&headers, "x-sim-prompt-tokens"), Some("150"));

    // The same prompt again: two whole 64-token blocks are cached.
    let (_, headers, events, _) = stream(
        &base,
        "/v1/chat/completions",
        &chat_body(&model, &prompt),
        &[],
    )
    .await;
    let usage = data_events(&events)[7].json()["usage"].clone();
    assert_eq!(usage["prompt_tokens_details"]["cached_tokens"], 128);
    assert_eq!(header(&headers, "x-sim-cached-tokens"), Some("128"));
}

#[tokio::test]
async fn chat_without_include_usage_has_no_usage_fields() {
    let base = start(ServerConfig::default()).await;
    let body = json!({"model": format!("sim-fast@{QUICK},answer_tokens=2"), "stream": true,
                      "messages": [{"role": "user", "content": "hi"}]});
    let (_, _, events, _) = stream(&base, "/v1/chat/completions", &body, &[]).await;
    let events = data_events(&events);
    assert_eq!(events.len(), 5);
    for event in &events[..4] {
        assert!(event.json().get("usage").is_none(), "{}", event.data);
    }
    assert_eq!(events[4].data, "[DONE]");
}

fn chat_delta_texts(events: &[Event], field: &str) -> String {
    events
        .iter()
        .filter(|e| !e.comment && e.data != "[DONE]")
        .filter_map(|e| {
            e.json()["choices"][0]["delta"][field]
                .as_str()
                .map(str::to_string)
        })
        .collect()
}

#[tokio::test]
async fn chat_reasoning_styles() {
    let base = start(ServerConfig::default()).await;
    let suffix = format!("{QUICK},reasoning_tokens=3,answer_tokens=2");
    // DeepSeek style.
    let (_, headers, events, _) = stream(
        &base,
        "/v1/chat/completions",
        &chat_body(&format!("sim-reasoning@{suffix}"), "q"),
        &[],
    )
    .await;
    assert_eq!(
        chat_delta_texts(&events, "reasoning_content"),
        "Let me think"
    );
    assert_eq!(chat_delta_texts(&events, "content"), "Here is");
    let role = data_events(&events)[0].json();
    assert_eq!(
        role["choices"][0]["delta"],
        json!({"role": "assistant", "content": null, "reasoning_content": ""})
    );
    let usage = data_events(&events).iter().rev().nth(1).unwrap().json()["usage"].clone();
    assert_eq!(usage["completion_tokens_details"]["reasoning_tokens"], 3);
    assert_eq!(usage["completion_tokens"], 5);
    assert!(header(&headers, "x-sim-first-reasoning-ms").is_some());
    // vLLM / Ollama style.
    let model = format!("sim-reasoning@{suffix},reasoning_style=reasoning");
    let (_, _, events, _) =
        stream(&base, "/v1/chat/completions", &chat_body(&model, "q"), &[]).await;
    assert_eq!(chat_delta_texts(&events, "reasoning"), "Let me think");
    assert_eq!(chat_delta_texts(&events, "reasoning_content"), "");
    // Inline think tags.
    let (_, _, events, _) = stream(
        &base,
        "/v1/chat/completions",
        &chat_body(&format!("sim-think@{suffix}"), "q"),
        &[],
    )
    .await;
    assert_eq!(
        chat_delta_texts(&events, "content"),
        "<think>\nLet me think\n</think>\n\nHere is"
    );
    // Hidden reasoning: only usage tells.
    let model = format!("sim-reasoning@{suffix},reasoning_style=none");
    let (_, headers, events, _) =
        stream(&base, "/v1/chat/completions", &chat_body(&model, "q"), &[]).await;
    assert_eq!(chat_delta_texts(&events, "content"), "Here is");
    assert_eq!(chat_delta_texts(&events, "reasoning_content"), "");
    assert!(header(&headers, "x-sim-first-reasoning-ms").is_none());
}

#[tokio::test]
async fn chat_non_streaming_and_chinese_answer() {
    let base = start(ServerConfig::default()).await;
    let body = json!({"model": format!("sim-reasoning@{QUICK},reasoning_tokens=2,answer_tokens=3"),
                      "messages": [{"role": "user", "content": "你好"}]});
    let (response, _) = post(&base, "/v1/chat/completions", &body, &[]).await;
    assert_eq!(response.status(), 200);
    let value: Value = response.json().await.unwrap();
    assert_eq!(value["object"], "chat.completion");
    assert_eq!(value["choices"][0]["message"]["content"], "这是一个模拟");
    assert_eq!(value["choices"][0]["message"]["reasoning_content"], "让我");
    assert_eq!(value["usage"]["prompt_tokens"], 2);
    assert_eq!(value["usage"]["completion_tokens"], 5);
}

#[tokio::test]
async fn max_tokens_truncates_output() {
    let base = start(ServerConfig::default()).await;
    let mut body = chat_body(&format!("sim-fast@{QUICK},answer_tokens=10"), "q");
    body["max_tokens"] = json!(4);
    let (_, _, events, _) = stream(&base, "/v1/chat/completions", &body, &[]).await;
    let events = data_events(&events);
    assert_eq!(events.len(), 1 + 4 + 3);
    assert_eq!(events[5].json()["choices"][0]["finish_reason"], "length");
}

#[tokio::test]
async fn anthropic_stream_event_flow_and_cache() {
    let base = start(ServerConfig::default()).await;
    let model = format!("sim-reasoning@{QUICK},reasoning_tokens=2,answer_tokens=3");
    let prompt = prompt_of(70, "cd");
    let mut body = messages_body(&model, &prompt);
    body["system"] = json!("sys");
    let (status, _, events, end) = stream(&base, "/v1/messages", &body, &[]).await;
    assert_eq!((status.as_u16(), end), (200, End::Clean));
    let names: Vec<String> = events.iter().map(|e| e.event.clone().unwrap()).collect();
    let delta_types: Vec<String> = events
        .iter()
        .filter(|e| e.event.as_deref() == Some("content_block_delta"))
        .map(|e| e.json()["delta"]["type"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        names,
        [
            "message_start",
            "content_block_start",
            "ping",
            "content_block_delta",
            "content_block_delta",
            "content_block_delta",
            "content_block_stop",
            "content_block_start",
            "content_block_delta",
            "content_block_delta",
            "content_block_delta",
            "content_block_stop",
            "message_delta",
            "message_stop"
        ]
    );
    assert_eq!(
        delta_types,
        [
            "thinking_delta",
            "thinking_delta",
            "signature_delta",
            "text_delta",
            "text_delta",
            "text_delta"
        ]
    );
    for event in &events {
        assert_eq!(
            event.json()["type"].as_str(),
            event.event.as_deref(),
            "type repeats the name"
        );
    }
    assert_eq!(
        events[1].json()["content_block"],
        json!({"type": "thinking", "thinking": "", "signature": ""})
    );
    assert_eq!(events[7].json()["index"], 1);
    let start = events[0].json();
    assert_eq!(start["message"]["model"], model);
    assert_eq!(start["message"]["usage"]["input_tokens"], 71, "70 + `sys`");
    assert_eq!(start["message"]["usage"]["cache_read_input_tokens"], 0);
    let delta = events[12].json();
    assert_eq!(delta["delta"]["stop_reason"], "end_turn");
    assert_eq!(delta["usage"]["output_tokens"], 5);

    let (_, headers, events, _) = stream(&base, "/v1/messages", &body, &[]).await;
    let usage = events[0].json()["message"]["usage"].clone();
    assert_eq!(usage["cache_read_input_tokens"], 64);
    assert_eq!(usage["input_tokens"], 7);
    assert_eq!(events[12].json()["usage"]["cache_read_input_tokens"], 64);
    assert_eq!(header(&headers, "x-sim-cached-tokens"), Some("64"));
}

#[tokio::test]
async fn anthropic_without_reasoning_has_one_text_block() {
    let base = start(ServerConfig::default()).await;
    let (_, _, events, _) = stream(
        &base,
        "/v1/messages",
        &messages_body(&format!("sim-fast@{QUICK},answer_tokens=2"), "q"),
        &[],
    )
    .await;
    let names: Vec<&str> = events.iter().map(|e| e.event.as_deref().unwrap()).collect();
    assert_eq!(
        names,
        [
            "message_start",
            "content_block_start",
            "ping",
            "content_block_delta",
            "content_block_delta",
            "content_block_stop",
            "message_delta",
            "message_stop"
        ]
    );
    assert_eq!(
        events[1].json()["content_block"],
        json!({"type": "text", "text": ""})
    );
}

#[tokio::test]
async fn responses_stream_event_order_and_usage() {
    let base = start(ServerConfig::default()).await;
    let model = format!("sim-reasoning@{QUICK},reasoning_tokens=2,answer_tokens=2");
    let prompt = prompt_of(64, "ef");
    let (status, _, events, end) = stream(
        &base,
        "/v1/responses",
        &responses_body(&model, &prompt),
        &[],
    )
    .await;
    assert_eq!((status.as_u16(), end), (200, End::Clean));
    let names: Vec<&str> = events.iter().map(|e| e.event.as_deref().unwrap()).collect();
    assert_eq!(
        names,
        [
            "response.created",
            "response.in_progress",
            "response.output_item.added",
            "response.reasoning_summary_part.added",
            "response.reasoning_summary_text.delta",
            "response.reasoning_summary_text.delta",
            "response.reasoning_summary_text.done",
            "response.reasoning_summary_part.done",
            "response.output_item.done",
            "response.output_item.added",
            "response.content_part.added",
            "response.output_text.delta",
            "response.output_text.delta",
            "response.output_text.done",
            "response.content_part.done",
            "response.output_item.done",
            "response.completed"
        ]
    );
    for (index, event) in events.iter().enumerate() {
        let value = event.json();
        assert_eq!(value["type"].as_str(), event.event.as_deref());
        assert_eq!(value["sequence_number"], index);
    }
    assert_eq!(events[2].json()["item"]["type"], "reasoning");
    assert_eq!(events[9].json()["item"]["type"], "message");
    assert_eq!(events[4].json()["delta"], "Let");
    assert_eq!(events[11].json()["delta"], "Here");
    let completed = events[16].json();
    assert_eq!(completed["response"]["status"], "completed");
    assert_eq!(completed["response"]["model"], model);
    assert_eq!(
        completed["response"]["usage"],
        json!({"input_tokens": 64, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 4,
               "output_tokens_details": {"reasoning_tokens": 2}, "total_tokens": 68})
    );
    let (_, _, events, _) = stream(
        &base,
        "/v1/responses",
        &responses_body(&model, &prompt),
        &[],
    )
    .await;
    let usage = events.last().unwrap().json()["response"]["usage"].clone();
    assert_eq!(usage["input_tokens_details"]["cached_tokens"], 64);
}

#[tokio::test]
async fn no_cache_flag_reports_no_cached_tokens() {
    let base = start(ServerConfig {
        cache_mode: ttft_sim::cache::CacheMode::Off,
        ..ServerConfig::default()
    })
    .await;
    let body = chat_body(
        &format!("sim-fast@{QUICK},answer_tokens=1"),
        &prompt_of(200, "gh"),
    );
    for _ in 0..2 {
        let (_, headers, _, _) = stream(&base, "/v1/chat/completions", &body, &[]).await;
        assert_eq!(header(&headers, "x-sim-cached-tokens"), Some("0"));
    }
}

#[tokio::test]
async fn models_lists_profiles() {
    let base = start(ServerConfig::default()).await;
    let value: Value = client()
        .get(format!("{base}/v1/models"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(value["object"], "list");
    let ids: Vec<&str> = value["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_str().unwrap())
        .collect();
    for name in [
        "sim-fast",
        "sim-reasoning",
        "sim-think",
        "sim-slow-prefill",
        "sim-linear-prefill",
    ] {
        assert!(ids.contains(&name), "{name}");
    }
    assert_eq!(value["data"][0]["object"], "model");
}

#[tokio::test]
async fn status_faults_in_each_dialect() {
    let base = start(ServerConfig::default()).await;
    let cases: &[(&str, u16, &str, Option<&str>, &str)] = &[
        (
            "401",
            401,
            "invalid_request_error",
            Some("invalid_api_key"),
            "authentication_error",
        ),
        (
            "403",
            403,
            "request_forbidden",
            Some("unsupported_country_region_territory"),
            "permission_error",
        ),
        (
            "404",
            404,
            "invalid_request_error",
            Some("model_not_found"),
            "not_found_error",
        ),
        (
            "400",
            400,
            "invalid_request_error",
            None,
            "invalid_request_error",
        ),
        (
            "429",
            429,
            "requests",
            Some("rate_limit_exceeded"),
            "rate_limit_error",
        ),
        ("500", 500, "server_error", None, "api_error"),
    ];
    for (fault, status, openai_type, openai_code, anthropic_type) in cases {
        let model = format!("sim-fast@fault={fault}");
        let (got, headers, body) =
            status_and_json(&base, "/v1/chat/completions", &chat_body(&model, "q"), &[]).await;
        assert_eq!(got, *status, "chat {fault}");
        assert_eq!(body["error"]["type"], *openai_type, "chat {fault}");
        assert_eq!(body["error"]["code"].as_str(), *openai_code, "chat {fault}");
        assert_eq!(body["error"]["param"], Value::Null);
        assert!(body["error"]["message"]
            .as_str()
            .is_some_and(|m| !m.is_empty()));
        if *status == 429 {
            assert_eq!(header(&headers, "retry-after"), Some("2"));
        }
        // The header selects a fault too, in the Anthropic shape there.
        let (got, headers, body) = status_and_json(
            &base,
            "/v1/messages",
            &messages_body("sim-fast", "q"),
            &[("x-sim-fault", fault)],
        )
        .await;
        assert_eq!(got, *status, "messages {fault}");
        assert_eq!(body["type"], "error");
        assert_eq!(body["error"]["type"], *anthropic_type, "messages {fault}");
        if *status == 429 {
            assert_eq!(header(&headers, "retry-after"), Some("2"));
        }
        let (got, _, body) =
            status_and_json(&base, "/v1/responses", &responses_body(&model, "q"), &[]).await;
        assert_eq!(got, *status, "responses {fault}");
        assert_eq!(body["error"]["type"], *openai_type);
    }
    let (_, headers, _) = status_and_json(
        &base,
        "/v1/chat/completions",
        &chat_body("sim-fast@fault=429,retry_after_s=7", "q"),
        &[],
    )
    .await;
    assert_eq!(header(&headers, "retry-after"), Some("7"));
    let (status, _, body) = status_and_json(
        &base,
        "/v1/chat/completions",
        &chat_body("sim-fast", "q"),
        &[("x-sim-fault", "bogus")],
    )
    .await;
    assert_eq!(status, 400);
    assert!(body["error"]["message"]
        .as_str()
        .unwrap()
        .contains("midstream"));
}

#[tokio::test]
async fn unknown_model_and_unknown_suffix_key() {
    let base = start(ServerConfig::default()).await;
    let (status, _, body) =
        status_and_json(&base, "/v1/chat/completions", &chat_body("gpt-x", "q"), &[]).await;
    assert_eq!(status, 404);
    assert_eq!(
        body,
        json!({"error": {"message": "The model `gpt-x` does not exist or you do not have access to it.",
               "type": "invalid_request_error", "param": null, "code": "model_not_found"}})
    );
    let (status, _, body) =
        status_and_json(&base, "/v1/messages", &messages_body("claude-x", "q"), &[]).await;
    assert_eq!(status, 404);
    assert_eq!(
        body,
        json!({"type": "error", "error": {"type": "not_found_error", "message": "model: claude-x"}})
    );
    let (status, _, body) = status_and_json(
        &base,
        "/v1/chat/completions",
        &chat_body("sim-fast@itl=5", "q"),
        &[],
    )
    .await;
    assert_eq!(status, 400);
    let message = body["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("unknown option `itl`") && message.contains("itl_ms"),
        "{message}"
    );
    let (status, _, body) = status_and_json(
        &base,
        "/v1/messages",
        &messages_body("sim-fast@nope=1", "q"),
        &[],
    )
    .await;
    assert_eq!(status, 400);
    assert_eq!(body["error"]["type"], "invalid_request_error");
    let (status, _, _) =
        status_and_json(&base, "/v1/chat/completions", &json!({"messages": []}), &[]).await;
    assert_eq!(status, 400);
}

#[tokio::test]
async fn midstream_error_in_each_dialect() {
    let base = start(ServerConfig::default()).await;
    let model = format!("sim-fast@{QUICK},answer_tokens=10,fault=midstream");
    let (status, _, events, end) =
        stream(&base, "/v1/chat/completions", &chat_body(&model, "q"), &[]).await;
    assert_eq!((status.as_u16(), end), (200, End::Clean));
    let events = data_events(&events);
    assert_eq!(events.len(), 1 + 3 + 1, "role, 3 tokens, error");
    let last = events.last().unwrap().json();
    assert_eq!(last["error"]["type"], "server_error");
    assert!(last.get("choices").is_none());
    assert!(events.iter().all(|e| e.data != "[DONE]"));

    let (_, _, events, _) = stream(&base, "/v1/messages", &messages_body(&model, "q"), &[]).await;
    let last = events.last().unwrap();
    assert_eq!(last.event.as_deref(), Some("error"));
    assert_eq!(last.json()["error"]["type"], "overloaded_error");
    assert!(events
        .iter()
        .all(|e| e.event.as_deref() != Some("message_stop")));
    let text_deltas = events
        .iter()
        .filter(|e| e.event.as_deref() == Some("content_block_delta"))
        .count();
    assert_eq!(text_deltas, 3);

    let (_, _, events, _) = stream(&base, "/v1/responses", &responses_body(&model, "q"), &[]).await;
    let last = events.last().unwrap();
    assert_eq!(last.event.as_deref(), Some("error"));
    let value = last.json();
    assert_eq!(value["type"], "error");
    assert_eq!(value["sequence_number"], events.len() - 1);
    assert!(events
        .iter()
        .all(|e| e.event.as_deref() != Some("response.completed")));
}

#[tokio::test]
async fn drop_cuts_the_connection_after_a_few_tokens() {
    let base = start(ServerConfig::default()).await;
    let model = format!("sim-fast@{QUICK},answer_tokens=10,fault=drop,fault_after_tokens=2");
    let (status, _, events, end) =
        stream(&base, "/v1/chat/completions", &chat_body(&model, "q"), &[]).await;
    assert_eq!(status, 200);
    assert_eq!(
        end,
        End::Error,
        "the body must end in an error, not cleanly"
    );
    let events = data_events(&events);
    assert_eq!(events.len(), 3, "role + 2 tokens");
    assert!(events.iter().all(|e| e.data != "[DONE]"));
}

#[tokio::test]
async fn malformed_chunk_then_normal_rest() {
    let base = start(ServerConfig::default()).await;
    let model = format!("sim-fast@{QUICK},answer_tokens=5");
    let (_, _, events, end) = stream(
        &base,
        "/v1/chat/completions",
        &chat_body(&model, "q"),
        &[("x-sim-fault", "malformed")],
    )
    .await;
    assert_eq!(end, End::Clean);
    let events = data_events(&events);
    let bad: Vec<usize> = events
        .iter()
        .enumerate()
        .filter(|(_, e)| e.data != "[DONE]" && serde_json::from_str::<Value>(&e.data).is_err())
        .map(|(i, _)| i)
        .collect();
    assert_eq!(bad, vec![4], "one invalid chunk after role + 3 tokens");
    assert_eq!(events.last().unwrap().data, "[DONE]");
    assert_eq!(
        chat_delta_texts(
            &events
                .iter()
                .filter(|e| serde_json::from_str::<Value>(&e.data).is_ok() || e.data == "[DONE]")
                .map(|e| (*e).clone())
                .collect::<Vec<_>>(),
            "content"
        ),
        "Here is a simulated answer"
    );
}

#[tokio::test]
async fn stall_sends_headers_then_nothing() {
    let base = start(ServerConfig::default()).await;
    let (mut response, _) = post(
        &base,
        "/v1/chat/completions",
        &chat_body("sim-fast@fault=stall", "q"),
        &[],
    )
    .await;
    assert_eq!(response.status(), 200);
    let waited =
        tokio::time::timeout(std::time::Duration::from_millis(400), response.chunk()).await;
    assert!(waited.is_err(), "no byte may arrive: {waited:?}");
}

#[tokio::test]
async fn nocors_fault_strips_cors_from_a_normal_stream() {
    let base = start(ServerConfig::default()).await;
    let model = format!("sim-fast@{QUICK},answer_tokens=2,fault=nocors");
    let (status, headers, events, _) =
        stream(&base, "/v1/chat/completions", &chat_body(&model, "q"), &[]).await;
    assert_eq!(status, 200);
    assert!(headers.get("access-control-allow-origin").is_none());
    assert!(headers.get("timing-allow-origin").is_none());
    assert_eq!(data_events(&events).last().unwrap().data, "[DONE]");
}

#[tokio::test]
async fn auth_mode() {
    let base = start(ServerConfig {
        require_key: Some("sk-test".into()),
        ..ServerConfig::default()
    })
    .await;
    let chat = chat_body(&format!("sim-fast@{QUICK},answer_tokens=1"), "q");
    let messages = messages_body(&format!("sim-fast@{QUICK},answer_tokens=1"), "q");
    let (status, _, body) = status_and_json(&base, "/v1/chat/completions", &chat, &[]).await;
    assert_eq!(status, 401);
    assert!(body["error"]["message"]
        .as_str()
        .unwrap()
        .contains("didn't provide an API key"));
    let (status, _, body) = status_and_json(
        &base,
        "/v1/chat/completions",
        &chat,
        &[("authorization", "Bearer sk-wrong")],
    )
    .await;
    assert_eq!(status, 401);
    assert_eq!(body["error"]["code"], "invalid_api_key");
    let (status, _, _) = status_and_json(
        &base,
        "/v1/chat/completions",
        &chat,
        &[("authorization", "Bearer  sk-test")],
    )
    .await;
    // HTTP trims a value's outer whitespace, but a pasted key's leading space survives here.
    assert_eq!(status, 401, "a key with a stray space is a wrong key");
    let (status, _, body) = status_and_json(
        &base,
        "/v1/chat/completions",
        &chat,
        &[("x-api-key", "sk-test")],
    )
    .await;
    assert_eq!(status, 401);
    assert!(body["error"]["message"]
        .as_str()
        .unwrap()
        .contains("Authorization: Bearer"));
    let (status, _, _) = status_and_json(
        &base,
        "/v1/chat/completions",
        &chat,
        &[("authorization", "Bearer sk-test")],
    )
    .await;
    assert_eq!(status, 200);
    let (status, _, _) = status_and_json(
        &base,
        "/v1/responses",
        &responses_body("sim-fast", "q"),
        &[("authorization", "Bearer sk-test")],
    )
    .await;
    assert_eq!(status, 200);

    let (status, _, body) = status_and_json(&base, "/v1/messages", &messages, &[]).await;
    assert_eq!(status, 401);
    assert_eq!(body["error"]["type"], "authentication_error");
    let (status, _, body) =
        status_and_json(&base, "/v1/messages", &messages, &[("x-api-key", "nope")]).await;
    assert_eq!(status, 401);
    assert_eq!(body["error"]["message"], "invalid x-api-key");
    let (status, _, body) = status_and_json(
        &base,
        "/v1/messages",
        &messages,
        &[("authorization", "Bearer sk-test")],
    )
    .await;
    assert_eq!(status, 401);
    let message = body["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("x-api-key") && message.contains("Bearer"),
        "{message}"
    );
    let (status, _, _) = status_and_json(
        &base,
        "/v1/messages",
        &messages,
        &[("x-api-key", "sk-test")],
    )
    .await;
    assert_eq!(status, 200);
    let models = client()
        .get(format!("{base}/v1/models"))
        .send()
        .await
        .unwrap();
    assert_eq!(models.status(), 401);
}

#[tokio::test]
async fn cors_headers_and_preflight() {
    let base = start(ServerConfig::default()).await;
    let preflight = client()
        .request(reqwest::Method::OPTIONS, format!("{base}/v1/messages"))
        .header("origin", "http://localhost:8080")
        .header("access-control-request-method", "POST")
        .header(
            "access-control-request-headers",
            "x-api-key, anthropic-version, content-type",
        )
        .send()
        .await
        .unwrap();
    assert!(preflight.status().is_success());
    let headers = preflight.headers();
    assert_eq!(header(headers, "access-control-allow-origin"), Some("*"));
    let methods = header(headers, "access-control-allow-methods").unwrap();
    assert!(["POST", "GET", "OPTIONS"]
        .iter()
        .all(|m| methods.contains(m)));
    let allowed = header(headers, "access-control-allow-headers").unwrap();
    for name in [
        "authorization",
        "content-type",
        "x-api-key",
        "anthropic-version",
        "anthropic-dangerous-direct-browser-access",
        "x-sim-fault",
    ] {
        assert!(allowed.contains(name), "{name}");
    }
    for path in [
        "/v1/chat/completions",
        "/v1/responses",
        "/v1/models",
        "/v1/chat/completion",
    ] {
        let response = client()
            .request(reqwest::Method::OPTIONS, format!("{base}{path}"))
            .send()
            .await
            .unwrap();
        assert!(response.status().is_success(), "{path}");
    }
    let (_, headers, _, _) = stream(
        &base,
        "/v1/chat/completions",
        &chat_body(&format!("sim-fast@{QUICK},answer_tokens=1"), "q"),
        &[],
    )
    .await;
    assert_eq!(header(&headers, "access-control-allow-origin"), Some("*"));
    assert_eq!(header(&headers, "timing-allow-origin"), Some("*"));
    assert_eq!(
        header(&headers, "cross-origin-resource-policy"),
        Some("cross-origin")
    );
    let exposed = header(&headers, "access-control-expose-headers").unwrap();
    for name in [
        "retry-after",
        "x-sim-queue-ms",
        "x-sim-prefill-ms",
        "x-sim-cached-tokens",
        "x-sim-prompt-tokens",
    ] {
        assert!(exposed.contains(name), "{name}");
    }
    // Errors are readable cross-origin too.
    let (_, headers, _) =
        status_and_json(&base, "/v1/chat/completions", &chat_body("nope", "q"), &[]).await;
    assert_eq!(header(&headers, "access-control-allow-origin"), Some("*"));

    let base = start(ServerConfig {
        cors_enabled: false,
        ..ServerConfig::default()
    })
    .await;
    let (_, headers, _, _) = stream(
        &base,
        "/v1/chat/completions",
        &chat_body(&format!("sim-fast@{QUICK},answer_tokens=1"), "q"),
        &[],
    )
    .await;
    assert!(headers.get("access-control-allow-origin").is_none());
    assert_eq!(
        header(&headers, "cross-origin-resource-policy"),
        Some("cross-origin")
    );
}

#[tokio::test]
async fn wrong_paths_get_openai_404() {
    let base = start(ServerConfig::default()).await;
    for path in [
        "/chat/completions",
        "/v1/chat/completion",
        "/v1/v1/chat/completions",
        "/messages",
    ] {
        let (status, _, body) =
            status_and_json(&base, path, &chat_body("sim-fast", "q"), &[]).await;
        assert_eq!(status, 404, "{path}");
        assert_eq!(
            body,
            json!({"error": {"message": format!("Invalid URL (POST {path})"), "type": "invalid_request_error",
                   "param": null, "code": null}})
        );
    }
    let base = start(ServerConfig {
        accept_unversioned: true,
        ..ServerConfig::default()
    })
    .await;
    let body = chat_body(&format!("sim-fast@{QUICK},answer_tokens=1"), "q");
    let (status, _, _, _) = stream(&base, "/chat/completions", &body, &[]).await;
    assert_eq!(status, 200);
    let (status, _, _, _) = stream(
        &base,
        "/messages",
        &messages_body(&format!("sim-fast@{QUICK}"), "q"),
        &[],
    )
    .await;
    assert_eq!(status, 200);
    let (status, _, _) = status_and_json(&base, "/v1/v1/chat/completions", &body, &[]).await;
    assert_eq!(status, 404);
    let models = client().get(format!("{base}/models")).send().await.unwrap();
    assert_eq!(models.status(), 200);
}

#[tokio::test]
async fn serves_the_page_cross_origin_isolated() {
    let dist = std::env::temp_dir().join(format!("ttft-sim-dist-{}", std::process::id()));
    std::fs::create_dir_all(dist.join("pkg")).unwrap();
    std::fs::write(dist.join("index.html"), "<!doctype html><title>t</title>").unwrap();
    std::fs::write(dist.join("pkg/app_bg.wasm"), b"\0asm\x01\0\0\0").unwrap();
    let base = start(ServerConfig {
        dist: Some(dist.clone()),
        ..ServerConfig::default()
    })
    .await;
    let page = client().get(format!("{base}/")).send().await.unwrap();
    assert_eq!(page.status(), 200);
    let headers = page.headers().clone();
    assert_eq!(
        header(&headers, "content-type"),
        Some("text/html; charset=utf-8")
    );
    assert_eq!(
        header(&headers, "cross-origin-opener-policy"),
        Some("same-origin")
    );
    assert_eq!(
        header(&headers, "cross-origin-embedder-policy"),
        Some("require-corp")
    );
    // A document may be framed by a cross-origin isolated host (static_page.rs has more).
    assert_eq!(
        header(&headers, "cross-origin-resource-policy"),
        Some("cross-origin")
    );
    assert!(page.text().await.unwrap().contains("<title>t</title>"));
    let wasm = client()
        .get(format!("{base}/pkg/app_bg.wasm"))
        .send()
        .await
        .unwrap();
    assert_eq!(
        header(wasm.headers(), "content-type"),
        Some("application/wasm")
    );
    assert_eq!(wasm.bytes().await.unwrap().as_ref(), b"\0asm\x01\0\0\0");
    let missing = client()
        .get(format!("{base}/nope.js"))
        .send()
        .await
        .unwrap();
    assert_eq!(missing.status(), 404);
    let (status, headers, _, _) = stream(
        &base,
        "/v1/chat/completions",
        &chat_body(&format!("sim-fast@{QUICK},answer_tokens=1"), "q"),
        &[],
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(
        header(&headers, "cross-origin-resource-policy"),
        Some("cross-origin")
    );
    let _ = std::fs::remove_dir_all(dist);

    // Without --dist there is no static serving.
    let base = start(ServerConfig::default()).await;
    let page = client().get(format!("{base}/")).send().await.unwrap();
    assert_eq!(page.status(), 404);
}

#[tokio::test]
async fn jitter_is_zero_by_default_and_repeats_with_a_seed() {
    let body = chat_body("sim-fast@prefill_ms=5,itl_ms=1,answer_tokens=2", "q");
    let prefill_of = |config: ServerConfig| {
        let body = body.clone();
        async move {
            let base = start(config).await;
            let (_, headers, _, _) = stream(&base, "/v1/chat/completions", &body, &[]).await;
            header_f64(&headers, "x-sim-prefill-ms")
        }
    };
    assert_eq!(prefill_of(ServerConfig::default()).await, 5.0);
    let seeded = || ServerConfig {
        jitter_ms: 10.0,
        seed: 42,
        ..ServerConfig::default()
    };
    let first = prefill_of(seeded()).await;
    assert!((5.0..15.0).contains(&first) && first != 5.0, "{first}");
    assert_eq!(prefill_of(seeded()).await, first, "same seed, same jitter");
}

#[tokio::test]
async fn messages_and_responses_non_streaming() {
    let base = start(ServerConfig::default()).await;
    let model = format!("sim-reasoning@{QUICK},reasoning_tokens=2,answer_tokens=2");
    let mut body = messages_body(&model, "q");
    body["stream"] = json!(false);
    let (status, _, value) = status_and_json(&base, "/v1/messages", &body, &[]).await;
    assert_eq!(status, 200);
    assert_eq!(value["type"], "message");
    assert_eq!(value["content"][0]["type"], "thinking");
    assert_eq!(value["content"][0]["thinking"], "Let me");
    assert_eq!(
        value["content"][1],
        json!({"type": "text", "text": "Here is"})
    );
    assert_eq!(value["usage"]["output_tokens"], 4);
    let mut body = responses_body(&model, "q");
    body["stream"] = json!(false);
    let (status, _, value) = status_and_json(&base, "/v1/responses", &body, &[]).await;
    assert_eq!(status, 200);
    assert_eq!(value["object"], "response");
    assert_eq!(value["status"], "completed");
    assert_eq!(value["output"][1]["content"][0]["text"], "Here is");
    assert_eq!(
        value["usage"]["output_tokens_details"]["reasoning_tokens"],
        2
    );
}

#[tokio::test]
async fn anthropic_hidden_thinking_sends_only_the_signature() {
    let base = start(ServerConfig::default()).await;
    let model =
        format!("sim-reasoning@{QUICK},reasoning_tokens=3,answer_tokens=1,reasoning_style=none");
    let (_, _, events, _) = stream(&base, "/v1/messages", &messages_body(&model, "q"), &[]).await;
    let delta_types: Vec<String> = events
        .iter()
        .filter(|e| e.event.as_deref() == Some("content_block_delta"))
        .map(|e| e.json()["delta"]["type"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(delta_types, ["signature_delta", "text_delta"]);
}
