//! The hostile provider (issue 11): faults that misbehave on purpose, over real HTTP.

// Test crate: helpers outside #[test] functions fail loudly by design.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::time::Duration;

use common::*;
use serde_json::{json, Value};
use ttft_sim::fault::{xss_all, Fault, XSS_PAYLOADS};
use ttft_sim::recorder::RecordedRequests;
use ttft_sim::ServerConfig;

/// A key with the characters that make encodings differ (`.`, `/`, `+`).
const KEY: &str = "sk-test.QW/ERTY+ZX";
const KEY_BASE64: &str = "c2stdGVzdC5RVy9FUlRZK1pY";
const KEY_URL_ENCODED: &str = "sk-test.QW%2FERTY%2BZX";

fn data_events(events: &[Event]) -> Vec<&Event> {
    events.iter().filter(|e| !e.comment).collect()
}

fn assert_echoes_the_key(message: &str, header: &str) {
    for piece in [header, KEY_BASE64, KEY_URL_ENCODED] {
        assert!(message.contains(piece), "{piece} not in {message}");
    }
}

#[tokio::test]
async fn echo_key_answers_401_with_the_key_headers_in_full() {
    let base = start(ServerConfig::default()).await;
    let bearer = format!("Bearer {KEY}");
    let model = format!("sim-fast@{QUICK},fault=echo_key");
    let (status, headers, body) = status_and_json(
        &base,
        "/v1/chat/completions",
        &chat_body(&model, "q"),
        &[("authorization", &bearer)],
    )
    .await;
    assert_eq!(status, 401);
    assert_eq!(header(&headers, "access-control-allow-origin"), Some("*"));
    assert_eq!(body["error"]["code"], "invalid_api_key");
    assert_echoes_the_key(
        body["error"]["message"].as_str().unwrap(),
        &format!("authorization: Bearer {KEY}"),
    );
    // Anthropic shape, x-api-key.
    let (status, _, body) = status_and_json(
        &base,
        "/v1/messages",
        &messages_body(&model, "q"),
        &[("x-api-key", KEY)],
    )
    .await;
    assert_eq!(status, 401);
    assert_eq!(body["type"], "error");
    assert_eq!(body["error"]["type"], "authentication_error");
    assert_echoes_the_key(
        body["error"]["message"].as_str().unwrap(),
        &format!("x-api-key: {KEY}"),
    );
    // The model list, through the header.
    let response = client()
        .get(format!("{base}/v1/models"))
        .header("authorization", &bearer)
        .header("x-sim-fault", "echo_key")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 401);
    let body: Value = response.json().await.unwrap();
    assert_echoes_the_key(
        body["error"]["message"].as_str().unwrap(),
        &format!("authorization: Bearer {KEY}"),
    );
}

#[tokio::test]
async fn echo_key_midstream_echoes_the_key_in_each_dialects_error_event() {
    let base = start(ServerConfig::default()).await;
    let bearer = format!("Bearer {KEY}");
    let model = format!("sim-fast@{QUICK},answer_tokens=10,fault=echo_key_midstream");
    let (status, _, events, _) = stream(
        &base,
        "/v1/chat/completions",
        &chat_body(&model, "q"),
        &[("authorization", &bearer)],
    )
    .await;
    assert_eq!(status, 200);
    let events = data_events(&events);
    assert_eq!(events.len(), 1 + 3 + 1, "role, 3 tokens, error");
    let error = events.last().unwrap().json();
    assert_eq!(error["error"]["code"], "invalid_api_key");
    assert_echoes_the_key(
        error["error"]["message"].as_str().unwrap(),
        &format!("authorization: Bearer {KEY}"),
    );
    assert!(events.iter().all(|e| e.data != "[DONE]"));

    let (_, _, events, _) = stream(
        &base,
        "/v1/messages",
        &messages_body(&model, "q"),
        &[("x-api-key", KEY)],
    )
    .await;
    let last = events.last().unwrap();
    assert_eq!(last.event.as_deref(), Some("error"));
    assert_eq!(last.json()["error"]["type"], "authentication_error");
    assert_echoes_the_key(
        last.json()["error"]["message"].as_str().unwrap(),
        &format!("x-api-key: {KEY}"),
    );

    let (_, _, events, _) = stream(
        &base,
        "/v1/responses",
        &responses_body(&model, "q"),
        &[("authorization", &bearer)],
    )
    .await;
    let last = events.last().unwrap().json();
    assert_eq!(
        (last["type"].as_str(), last["code"].as_str()),
        (Some("error"), Some("invalid_api_key"))
    );
    assert!(last["message"].as_str().unwrap().contains(KEY));
}

fn chat_text(events: &[Event], field: &str) -> String {
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
async fn xss_puts_every_payload_in_reasoning_answer_and_model_id() {
    let base = start(ServerConfig::default()).await;
    let model = format!("sim-reasoning@{QUICK},reasoning_tokens=10,answer_tokens=10,fault=xss");
    let (status, _, events, _) =
        stream(&base, "/v1/chat/completions", &chat_body(&model, "q"), &[]).await;
    assert_eq!(status, 200);
    let reasoning = chat_text(&events, "reasoning_content");
    let answer = chat_text(&events, "content");
    for payload in XSS_PAYLOADS {
        assert!(reasoning.contains(payload), "reasoning lacks {payload}");
        assert!(answer.contains(payload), "answer lacks {payload}");
    }
    let all = xss_all();
    assert!(
        all.starts_with('='),
        "a CSV cell with it starts with a formula"
    );
    for event in data_events(&events).iter().filter(|e| e.data != "[DONE]") {
        assert_eq!(event.json()["model"], all.as_str());
    }
    assert_eq!(
        events.last().unwrap().data,
        "[DONE]",
        "a normal stream otherwise"
    );

    // Anthropic and Responses carry the payload model id too.
    let (_, _, events, _) = stream(&base, "/v1/messages", &messages_body(&model, "q"), &[]).await;
    assert_eq!(events[0].json()["message"]["model"], all.as_str());
    let thinking: String = events
        .iter()
        .filter_map(|e| e.json()["delta"]["thinking"].as_str().map(str::to_string))
        .collect();
    assert!(thinking.contains(XSS_PAYLOADS[1]));
    let (_, _, events, _) = stream(&base, "/v1/responses", &responses_body(&model, "q"), &[]).await;
    let completed = events.last().unwrap().json();
    assert_eq!(completed["response"]["model"], all.as_str());

    // The model list, through the header: every payload is an id.
    let models: Value = client()
        .get(format!("{base}/v1/models"))
        .header("x-sim-fault", "xss")
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let ids: Vec<&str> = models["data"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m["id"].as_str())
        .collect();
    for payload in XSS_PAYLOADS.iter().copied().chain([all.as_str()]) {
        assert!(ids.contains(&payload), "/v1/models lacks {payload}");
    }
    assert!(ids.contains(&"sim-fast"));
}

#[tokio::test]
async fn xss_error_ends_with_an_error_whose_text_is_the_payloads() {
    let base = start(ServerConfig::default()).await;
    let model = format!("sim-fast@{QUICK},answer_tokens=10,fault=xss_error");
    let (_, _, events, _) =
        stream(&base, "/v1/chat/completions", &chat_body(&model, "q"), &[]).await;
    let error = data_events(&events).last().unwrap().json();
    assert_eq!(error["error"]["message"], xss_all().as_str());
    let (_, _, events, _) = stream(&base, "/v1/messages", &messages_body(&model, "q"), &[]).await;
    assert_eq!(
        events.last().unwrap().json()["error"]["message"],
        xss_all().as_str()
    );
}

#[tokio::test]
async fn a_server_wide_fault_applies_to_requests_that_name_none() {
    let base = start(ServerConfig {
        fault: Some(Fault::Xss),
        ..ServerConfig::default()
    })
    .await;
    let (_, _, events, _) = stream(
        &base,
        "/v1/chat/completions",
        &chat_body(&format!("sim-fast@{QUICK},answer_tokens=3"), "q"),
        &[],
    )
    .await;
    assert_eq!(data_events(&events)[0].json()["model"], xss_all().as_str());
    let models: Value = client()
        .get(format!("{base}/v1/models"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert!(models.to_string().contains("onerror"));
    // A request's own fault wins.
    let model = format!("sim-fast@{QUICK},fault=500");
    let (status, _, _) =
        status_and_json(&base, "/v1/chat/completions", &chat_body(&model, "q"), &[]).await;
    assert_eq!(status, 500);
}

/// Reads a body to its end without keeping it: (bytes, reads, last line's length, whether
/// a line end came after the last byte of a line).
async fn measure_body(mut response: reqwest::Response) -> (u64, u32, u64, Vec<u8>) {
    let (mut total, mut reads, mut line) = (0u64, 0u32, 0u64);
    let mut head = Vec::new();
    while let Some(chunk) = response.chunk().await.unwrap() {
        total += chunk.len() as u64;
        reads += 1;
        if head.len() < 4096 {
            head.extend_from_slice(&chunk[..chunk.len().min(4096)]);
        }
        match chunk.iter().rposition(|b| *b == b'\n') {
            Some(position) => line = (chunk.len() - position - 1) as u64,
            None => line += chunk.len() as u64,
        }
    }
    (total, reads, line, head)
}

#[tokio::test]
async fn huge_line_streams_one_unterminated_data_line_of_the_default_64_mib() {
    let base = start(ServerConfig::default()).await;
    let model = format!("sim-fast@{QUICK},answer_tokens=10,fault=huge_line,fault_after_tokens=2");
    let (response, _) = post(&base, "/v1/chat/completions", &chat_body(&model, "q"), &[]).await;
    assert_eq!(response.status(), 200);
    let (total, reads, last_line, head) = measure_body(response).await;
    assert_eq!(
        last_line,
        64 * 1024 * 1024,
        "the last line is exactly 64 MiB"
    );
    assert!(total > last_line, "a role chunk and 2 tokens came first");
    // Streamed in many writes (64 KiB each), not one buffer.
    assert!(reads >= 64, "{reads} reads");
    let head = String::from_utf8_lossy(&head);
    assert_eq!(head.matches("\"content\":").count(), 1 + 2 + 1, "{head}");
}

#[tokio::test]
async fn huge_line_length_is_configurable_in_each_dialect() {
    let base = start(ServerConfig::default()).await;
    let model = format!("sim-fast@{QUICK},answer_tokens=4,fault=huge_line,huge_line_bytes=300000");
    for (path, body) in [
        ("/v1/chat/completions", chat_body(&model, "q")),
        ("/v1/messages", messages_body(&model, "q")),
        ("/v1/responses", responses_body(&model, "q")),
    ] {
        let (response, _) = post(&base, path, &body, &[]).await;
        let (_, _, last_line, _) = measure_body(response).await;
        assert_eq!(last_line, 300_000, "{path}");
    }
}

#[tokio::test]
async fn html_error_is_a_502_html_page() {
    let base = start(ServerConfig::default()).await;
    let model = format!("sim-fast@{QUICK},fault=html_error");
    let (response, _) = post(&base, "/v1/chat/completions", &chat_body(&model, "q"), &[]).await;
    assert_eq!(response.status(), 502);
    assert_eq!(
        header(response.headers(), "content-type"),
        Some("text/html")
    );
    let text = response.text().await.unwrap();
    assert!(
        text.contains("<title>502 Bad Gateway</title>") && text.contains("nginx"),
        "{text}"
    );
}

#[tokio::test]
async fn redirect_is_a_307_to_another_origin_keeping_the_method() {
    // The target: a second sim that records what reaches it.
    let target = start(ServerConfig {
        record_requests: true,
        ..ServerConfig::default()
    })
    .await;
    let base = start(ServerConfig {
        redirect_to: Some(target.clone()),
        ..ServerConfig::default()
    })
    .await;
    let no_follow = reqwest::Client::builder()
        .no_proxy()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let model = format!("sim-fast@{QUICK},answer_tokens=1,fault=redirect");
    let response = no_follow
        .post(format!("{base}/v1/chat/completions?x=1"))
        .json(&chat_body(&model, "q"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 307);
    assert_eq!(
        header(response.headers(), "location"),
        Some(format!("{target}/v1/chat/completions?x=1").as_str())
    );
    // A full URL in the suffix is used as is.
    let model = format!("sim-fast@{QUICK},fault=redirect,redirect_to=http://127.0.0.1:9/elsewhere");
    let response = no_follow
        .post(format!("{base}/v1/chat/completions"))
        .json(&chat_body(&model, "q"))
        .send()
        .await
        .unwrap();
    assert_eq!(
        header(response.headers(), "location"),
        Some("http://127.0.0.1:9/elsewhere")
    );
    // The default: the port after this one, same path.
    let own = start(ServerConfig::default()).await;
    let port: u16 = own.rsplit(':').next().unwrap().parse().unwrap();
    let response = no_follow
        .post(format!("{own}/v1/messages"))
        .json(&messages_body(
            &format!("sim-fast@{QUICK},fault=redirect"),
            "q",
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(
        header(response.headers(), "location"),
        Some(format!("http://127.0.0.1:{}/v1/messages", port + 1).as_str())
    );
    // Followed: the target sees a POST with the same body and headers. (It redirects again,
    // as the header came along, to its own next port where nothing listens: the client's
    // error is expected; what the target recorded is the point.)
    let body = chat_body(&format!("sim-fast@{QUICK},answer_tokens=1"), "follow me");
    let followed = client()
        .post(format!("{base}/v1/chat/completions"))
        .header("x-sim-fault", "redirect")
        .json(&body)
        .send()
        .await;
    assert!(followed.is_err(), "{followed:?}");
    let recorded: RecordedRequests = serde_json::from_value(
        client()
            .get(format!("{target}/__sim/requests"))
            .send()
            .await
            .unwrap()
            .json::<Value>()
            .await
            .unwrap(),
    )
    .unwrap_or_else(|_| panic!("recorded requests"));
    let posts: Vec<_> = recorded
        .requests
        .iter()
        .filter(|r| r.method == "POST")
        .collect();
    assert_eq!(posts.len(), 1);
    assert_eq!(posts[0].path, "/v1/chat/completions");
    assert!(posts[0].body.contains("follow me"));
    assert!(posts[0]
        .headers
        .contains(&("x-sim-fault".to_string(), "redirect".to_string())));
}

#[tokio::test]
async fn drip_sends_keepalives_forever_and_takes_no_slot() {
    let base = start(ServerConfig {
        slots: 1,
        ..ServerConfig::default()
    })
    .await;
    let model = format!("sim-fast@{QUICK},fault=drip");
    let (mut response, sent) =
        post(&base, "/v1/chat/completions", &chat_body(&model, "q"), &[]).await;
    assert_eq!(response.status(), 200);
    let mut text = String::new();
    while sent.elapsed() < Duration::from_millis(450) {
        match tokio::time::timeout(Duration::from_millis(300), response.chunk()).await {
            Ok(Ok(Some(chunk))) => text.push_str(std::str::from_utf8(&chunk).unwrap()),
            Ok(_) => panic!("the drip ended"),
            Err(_) => panic!("no comment within 300 ms"),
        }
    }
    let comments = text.matches(": keep-alive\n\n").count();
    assert!(
        (3..=6).contains(&comments),
        "{comments} comments in {text:?}"
    );
    assert_eq!(
        text.replace(": keep-alive\n\n", ""),
        "",
        "nothing but comments"
    );
    // The only slot is free for a real request meanwhile.
    let (_, headers, _, _) = stream(
        &base,
        "/v1/chat/completions",
        &chat_body(&format!("sim-fast@{QUICK},answer_tokens=1"), "q"),
        &[],
    )
    .await;
    assert_eq!(header_f64(&headers, "x-sim-queue-ms"), 0.0);
    drop(response);
}

#[tokio::test]
async fn bad_usage_sends_hostile_counts_in_each_dialect() {
    let base = start(ServerConfig::default()).await;
    let model = format!("sim-fast@{QUICK},answer_tokens=2,fault=bad_usage");
    // Without include_usage: the usage chunk comes anyway.
    let body =
        json!({"model": model, "stream": true, "messages": [{"role": "user", "content": "q"}]});
    let (response, _) = post(&base, "/v1/chat/completions", &body, &[]).await;
    let text = response.text().await.unwrap();
    assert!(
        text.contains(
            "\"usage\":{\"prompt_tokens\":1e308,\"completion_tokens\":-1,\"total_tokens\":1e308,\
         \"prompt_tokens_details\":{\"cached_tokens\":2.5},\
         \"completion_tokens_details\":{\"reasoning_tokens\":18446744073709551617}}"
        ),
        "{text}"
    );
    let mut plain = body.clone();
    plain["stream"] = json!(false);
    let (response, _) = post(&base, "/v1/chat/completions", &plain, &[]).await;
    let text = response.text().await.unwrap();
    assert!(
        text.contains("\"reasoning_tokens\":18446744073709551617"),
        "{text}"
    );
    assert!(
        serde_json::from_str::<Value>(&text).is_ok(),
        "still valid JSON"
    );

    let (response, _) = post(&base, "/v1/messages", &messages_body(&model, "q"), &[]).await;
    let text = response.text().await.unwrap();
    assert!(text.contains(
        "\"usage\":{\"input_tokens\":1e308,\"cache_creation_input_tokens\":18446744073709551617,\
         \"cache_read_input_tokens\":2.5,\"output_tokens\":-1}"
    ), "{text}");
    let (response, _) = post(&base, "/v1/responses", &responses_body(&model, "q"), &[]).await;
    let text = response.text().await.unwrap();
    assert!(text.contains(
        "\"usage\":{\"input_tokens\":1e308,\"input_tokens_details\":{\"cached_tokens\":2.5},\
         \"output_tokens\":-1,\"output_tokens_details\":{\"reasoning_tokens\":18446744073709551617},\
         \"total_tokens\":1e308}"
    ), "{text}");
}
