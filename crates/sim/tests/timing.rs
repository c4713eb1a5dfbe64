//! Timing measured over real HTTP against the scripted ground truth. Tolerances: +40 ms
//! late at most (loopback, a loaded 2-core machine), never early beyond 2 ms.

// Test crate: helpers outside #[test] functions fail loudly by design.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use common::*;
use serde_json::Value;
use tokio::time::{Duration, Instant};
use ttft_sim::ServerConfig;

const LATE_MS: f64 = 40.0;

fn assert_near(measured_ms: f64, expected_ms: f64, what: &str) {
    assert!(
        measured_ms >= expected_ms - 2.0 && measured_ms <= expected_ms + LATE_MS,
        "{what}: measured {measured_ms:.1} ms, expected {expected_ms} ms (+{LATE_MS})"
    );
}

fn first_with(events: &[Event], field: &str) -> Option<f64> {
    events
        .iter()
        .filter(|e| !e.comment && e.data != "[DONE]")
        .find(|e| {
            e.json()["choices"][0]["delta"][field]
                .as_str()
                .is_some_and(|t| !t.is_empty())
        })
        .map(|e| e.at_ms)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn early_role_chunk_then_first_token_at_300_ms() {
    let base = start(ServerConfig::default()).await;
    let model = "sim-fast@prefill_ms=300,early_role=1,itl_ms=20,answer_tokens=3";
    let (_, _, events, _) = stream(
        &base,
        "/v1/chat/completions",
        &chat_body(model, "hello"),
        &[],
    )
    .await;
    let role = &events[0];
    assert_eq!(role.json()["choices"][0]["delta"]["role"], "assistant");
    assert!(role.at_ms <= 30.0, "role chunk at {:.1} ms", role.at_ms);
    let first = first_with(&events, "content").unwrap();
    assert!(
        (300.0..=340.0).contains(&first),
        "first content at {first:.1} ms"
    );
    let contents: Vec<f64> = events
        .iter()
        .filter(|e| !e.comment && e.data != "[DONE]")
        .filter(|e| {
            e.json()["choices"][0]["delta"]["content"]
                .as_str()
                .is_some_and(|t| !t.is_empty())
        })
        .map(|e| e.at_ms)
        .collect();
    assert_eq!(contents.len(), 3);
    assert_near(contents[2], 340.0, "third token (300 + 2*20)");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reasoning_then_answer_as_in_the_brief() {
    let base = start(ServerConfig::default()).await;
    let model =
        "sim-reasoning@prefill_ms=200,reasoning_tokens=10,itl_ms=50,early_role=1,answer_tokens=2";
    let (_, headers, events, _) =
        stream(&base, "/v1/chat/completions", &chat_body(model, "q"), &[]).await;
    assert_near(
        first_with(&events, "reasoning_content").unwrap(),
        200.0,
        "first reasoning",
    );
    assert_near(
        first_with(&events, "content").unwrap(),
        700.0,
        "first answer",
    );
    assert_eq!(header_f64(&headers, "x-sim-first-reasoning-ms"), 200.0);
    assert_eq!(header_f64(&headers, "x-sim-first-answer-ms"), 700.0);
    assert_eq!(header_f64(&headers, "x-sim-end-ms"), 750.0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn anthropic_and_responses_first_tokens() {
    let base = start(ServerConfig::default()).await;
    let model = "sim-reasoning@prefill_ms=150,reasoning_tokens=4,itl_ms=25,answer_tokens=2";
    let (_, _, events, _) = stream(&base, "/v1/messages", &messages_body(model, "q"), &[]).await;
    let first_of = |kind: &str| {
        events
            .iter()
            .find(|e| e.json()["delta"]["type"] == kind)
            .map(|e| e.at_ms)
            .unwrap()
    };
    assert_near(first_of("thinking_delta"), 150.0, "anthropic thinking");
    assert_near(first_of("text_delta"), 250.0, "anthropic text");
    let (_, _, events, _) = stream(&base, "/v1/responses", &responses_body(model, "q"), &[]).await;
    let first_event = |name: &str| {
        events
            .iter()
            .find(|e| e.event.as_deref() == Some(name))
            .map(|e| e.at_ms)
            .unwrap()
    };
    assert_near(
        first_event("response.reasoning_summary_text.delta"),
        150.0,
        "responses reasoning",
    );
    assert_near(
        first_event("response.output_text.delta"),
        250.0,
        "responses text",
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_slot_queues_the_second_request_behind_the_whole_first() {
    let base = start(ServerConfig {
        slots: 1,
        ..ServerConfig::default()
    })
    .await;
    // Each request: prefill 200 ms + 4 gaps of 20 ms = holds the slot 280 ms.
    let model = "sim-fast@prefill_ms=200,itl_ms=20,answer_tokens=5";
    let body = chat_body(model, "q");
    let t0 = Instant::now();
    let first = tokio::spawn({
        let base = base.clone();
        let body = body.clone();
        async move { stream(&base, "/v1/chat/completions", &body, &[]).await }
    });
    tokio::time::sleep(Duration::from_millis(20)).await;
    let second_sent_ms = t0.elapsed().as_secs_f64() * 1000.0;
    let (_, headers_b, events_b, _) = stream(&base, "/v1/chat/completions", &body, &[]).await;
    let (_, headers_a, events_a, _) = first.await.unwrap();
    let first_a = first_with(&events_a, "content").unwrap();
    let first_b = second_sent_ms + first_with(&events_b, "content").unwrap();
    assert_near(first_a, 200.0, "first request's first token");
    assert_near(
        first_b,
        280.0 + 200.0,
        "second request's first token (after 280 + its 200)",
    );
    assert_eq!(header_f64(&headers_a, "x-sim-queue-ms"), 0.0);
    let queue_b = header_f64(&headers_b, "x-sim-queue-ms");
    assert!(
        (240.0..=262.0).contains(&queue_b),
        "queue of the second: {queue_b}"
    );

    // With 4 slots neither waits.
    let base = start(ServerConfig::default()).await;
    let (a, b) = tokio::join!(
        stream(&base, "/v1/chat/completions", &body, &[]),
        stream(&base, "/v1/chat/completions", &body, &[])
    );
    assert_near(
        first_with(&a.2, "content").unwrap(),
        200.0,
        "4 slots, first",
    );
    assert_near(
        first_with(&b.2, "content").unwrap(),
        200.0,
        "4 slots, second",
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keepalives_during_prefill() {
    let base = start(ServerConfig::default()).await;
    let model = "sim-fast@prefill_ms=250,keepalive_ms=100,answer_tokens=1";
    let (_, _, events, _) =
        stream(&base, "/v1/chat/completions", &chat_body(model, "q"), &[]).await;
    let comments: Vec<f64> = events
        .iter()
        .filter(|e| e.comment)
        .map(|e| e.at_ms)
        .collect();
    assert_eq!(comments.len(), 2, "{events:?}");
    assert_near(comments[0], 100.0, "first keep-alive");
    assert_near(comments[1], 200.0, "second keep-alive");
    assert_eq!(events[0].data, "keep-alive");
    assert_near(
        first_with(&events, "content").unwrap(),
        250.0,
        "first token",
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prefill_grows_with_uncached_prompt_and_cache_skips_it() {
    let base = start(ServerConfig::default()).await;
    // sim-linear-prefill: 200 + 0.5 ms/token. 1000 tokens -> 700 ms.
    let prompt = prompt_of(1000, "ij");
    let model = "sim-linear-prefill@answer_tokens=1";
    let (_, headers, events, _) = stream(
        &base,
        "/v1/chat/completions",
        &chat_body(model, &prompt),
        &[],
    )
    .await;
    assert_eq!(header(&headers, "x-sim-prompt-tokens"), Some("1000"));
    assert_eq!(header_f64(&headers, "x-sim-prefill-ms"), 700.0);
    assert_near(
        first_with(&events, "content").unwrap(),
        700.0,
        "uncached 1000 tokens",
    );
    // Repeat: 15 blocks of 64 = 960 cached, 40 uncached -> 200 + 20 = 220 ms.
    let (_, headers, events, _) = stream(
        &base,
        "/v1/chat/completions",
        &chat_body(model, &prompt),
        &[],
    )
    .await;
    assert_eq!(header(&headers, "x-sim-cached-tokens"), Some("960"));
    assert_near(
        first_with(&events, "content").unwrap(),
        220.0,
        "960 of 1000 cached",
    );
    // max_tokens does not change TTFT.
    let mut capped = chat_body("sim-linear-prefill@answer_tokens=5", &prompt_of(400, "kl"));
    capped["max_tokens"] = Value::from(1);
    let (_, headers, events, _) = stream(&base, "/v1/chat/completions", &capped, &[]).await;
    assert_eq!(header_f64(&headers, "x-sim-prefill-ms"), 400.0);
    assert_near(
        first_with(&events, "content").unwrap(),
        400.0,
        "capped request",
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn non_streaming_answers_at_the_end() {
    let base = start(ServerConfig::default()).await;
    let mut body = chat_body("sim-fast@prefill_ms=100,itl_ms=20,answer_tokens=6", "q");
    body["stream"] = Value::Bool(false);
    let (response, sent) = post(&base, "/v1/chat/completions", &body, &[]).await;
    // Headers and body come together when the whole answer is done.
    assert_near(
        sent.elapsed().as_secs_f64() * 1000.0,
        200.0,
        "response at 100 + 5*20",
    );
    let value: Value = response.json().await.unwrap();
    assert_eq!(value["usage"]["completion_tokens"], 6);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_goes_away_frees_its_slot() {
    let base = start(ServerConfig {
        slots: 1,
        ..ServerConfig::default()
    })
    .await;
    // Holds the only slot for 100 + 49*20 = 1080 ms if read to the end.
    let long = chat_body("sim-fast@prefill_ms=100,itl_ms=20,answer_tokens=50", "q");
    let (mut response, _) = post(&base, "/v1/chat/completions", &long, &[]).await;
    let _first = response.chunk().await.unwrap();
    drop(response);
    tokio::time::sleep(Duration::from_millis(100)).await;
    let short = chat_body("sim-fast@prefill_ms=100,answer_tokens=1", "q");
    let (_, headers, events, _) = stream(&base, "/v1/chat/completions", &short, &[]).await;
    let queue_ms = header_f64(&headers, "x-sim-queue-ms");
    assert!(
        queue_ms < 50.0,
        "the abandoned request still held the slot: queue {queue_ms} ms"
    );
    assert_near(
        first_with(&events, "content").unwrap(),
        100.0 + queue_ms,
        "after the freed slot",
    );
}

/// A server's clock starts when it has the whole request: a body that arrives 300 ms after
/// the headers (a slow upload) delays the first token by those 300 ms, with or without the
/// recorder (issue 32: without it, the upload used to overlap the scripted prefill).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_scripted_clock_starts_when_the_whole_body_is_in() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    const UPLOAD_MS: u64 = 300;
    const PREFILL_MS: f64 = 100.0;
    for record_requests in [false, true] {
        let base = start(ServerConfig {
            record_requests,
            ..ServerConfig::default()
        })
        .await;
        let address = base.trim_start_matches("http://").to_owned();
        let body = chat_body(
            &format!(
                "sim-fast@prefill_ms={PREFILL_MS},answer_tokens=1,server_account=server_timing"
            ),
            "hello",
        )
        .to_string();
        let mut socket = tokio::net::TcpStream::connect(&address).await.unwrap();
        let head = format!(
            "POST /v1/chat/completions HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
            body.len()
        );
        socket.write_all(head.as_bytes()).await.unwrap();
        tokio::time::sleep(Duration::from_millis(UPLOAD_MS)).await;
        // The first half, then the rest: the request is whole only now.
        let (first, rest) = body.as_bytes().split_at(body.len() / 2);
        socket.write_all(first).await.unwrap();
        tokio::time::sleep(Duration::from_millis(20)).await;
        let whole = Instant::now();
        socket.write_all(rest).await.unwrap();
        // Read until the first content delta.
        let mut seen = Vec::new();
        let mut buffer = [0u8; 4096];
        let first_token_ms = loop {
            let read = tokio::time::timeout(timeout(), socket.read(&mut buffer))
                .await
                .expect("an answer in time")
                .unwrap();
            assert!(read > 0, "the stream ended before its first token");
            seen.extend_from_slice(&buffer[..read]);
            if String::from_utf8_lossy(&seen).contains("\"content\":\"") {
                break whole.elapsed().as_secs_f64() * 1000.0;
            }
        };
        assert_near(
            first_token_ms,
            PREFILL_MS,
            &format!("first token after the whole body (recorder {record_requests})"),
        );
        // And it says how long the upload took, as it saw it: the head to the body's end.
        let text = String::from_utf8_lossy(&seen).to_ascii_lowercase();
        let timing = text
            .lines()
            .find_map(|line| line.strip_prefix("server-timing:"))
            .expect("a Server-Timing header");
        let upload_ms: f64 = timing
            .split(',')
            .find_map(|metric| metric.trim().strip_prefix("upload;dur="))
            .expect("an upload metric")
            .trim()
            .parse()
            .unwrap();
        let sent_ms = (UPLOAD_MS + 20) as f64;
        assert!(
            upload_ms >= sent_ms - 5.0 && upload_ms < sent_ms + 60.0,
            "upload {upload_ms} ms for a body sent over {sent_ms} ms (recorder {record_requests})"
        );
    }
}
