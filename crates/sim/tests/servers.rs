//! What real servers do that the page must cope with (issue 12) and the sim's test hooks
//! (issues 11, 12, 15), over real HTTP: context windows and their overflow wording, tokenize
//! and props, streams without usage, reasoning without an opening tag, a prefix cache that
//! holds one prompt per slot, the request recorder, the identity route and trace headers.

// Test crate: helpers outside #[test] functions fail loudly by design.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use common::*;
use serde_json::{json, Value};
use ttft_sim::cache::CacheMode;
use ttft_sim::ServerConfig;

async fn get_json(url: &str) -> (u16, reqwest::header::HeaderMap, Value) {
    let response = client().get(url).send().await.unwrap();
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    let text = response.text().await.unwrap();
    (
        status,
        headers,
        serde_json::from_str(&text).unwrap_or(Value::String(text)),
    )
}

fn content_text(events: &[Event]) -> String {
    events
        .iter()
        .filter(|e| !e.comment && e.data != "[DONE]")
        .filter_map(|e| {
            e.json()["choices"][0]["delta"]["content"]
                .as_str()
                .map(str::to_string)
        })
        .collect()
}

#[tokio::test]
async fn think_no_open_streams_reasoning_as_content_then_a_closing_tag() {
    let base = start(ServerConfig::default()).await;
    let model = format!(
        "sim-fast@{QUICK},reasoning_tokens=3,answer_tokens=2,reasoning_style=think_no_open"
    );
    let (_, headers, events, _) =
        stream(&base, "/v1/chat/completions", &chat_body(&model, "q"), &[]).await;
    assert_eq!(content_text(&events), "Let me think\n</think>\n\nHere is");
    // The ground truth still knows which part was reasoning.
    assert_eq!(header(&headers, "x-sim-reasoning-tokens"), Some("3"));
    assert!(header(&headers, "x-sim-first-reasoning-ms").is_some());
    let mut body = chat_body(&model, "q");
    body["stream"] = json!(false);
    let (_, _, value) = status_and_json(&base, "/v1/chat/completions", &body, &[]).await;
    assert_eq!(
        value["choices"][0]["message"]["content"],
        "Let me think\n</think>\n\nHere is"
    );
}

#[tokio::test]
async fn stream_usage_off_never_sends_usage_in_streams() {
    let base = start(ServerConfig::default()).await;
    let model = format!("sim-fast@{QUICK},answer_tokens=2,stream_usage=0");
    let (_, _, events, _) = stream(
        &base,
        "/v1/chat/completions",
        &chat_body(&model, "abcd efgh"),
        &[],
    )
    .await;
    let events: Vec<_> = events.iter().filter(|e| !e.comment).collect();
    assert_eq!(
        events.len(),
        1 + 2 + 1 + 1,
        "role, 2 tokens, finish, [DONE]: no usage chunk"
    );
    for event in &events[..events.len() - 1] {
        assert!(event.json().get("usage").is_none(), "{}", event.data);
    }
    // Non-streamed answers still carry usage.prompt_tokens.
    let mut body = chat_body(&model, "abcd efgh");
    body["stream"] = json!(false);
    let (_, _, value) = status_and_json(&base, "/v1/chat/completions", &body, &[]).await;
    assert_eq!(value["usage"]["prompt_tokens"], 2);
}

#[tokio::test]
async fn context_windows_are_exposed_where_real_servers_expose_them() {
    let mut config = ServerConfig::default();
    config.profiles.set_all("context_tokens", "8192").unwrap();
    config.slots = 3;
    let base = start(config).await;
    let (_, _, models) = get_json(&format!("{base}/v1/models")).await;
    for entry in models["data"].as_array().unwrap() {
        assert_eq!(entry["max_model_len"], 8192, "vLLM: {entry}");
        assert_eq!(entry["meta"]["n_ctx_train"], 8192, "llama.cpp: {entry}");
    }
    let (status, _, props) = get_json(&format!("{base}/props")).await;
    assert_eq!(status, 200);
    assert_eq!(props["default_generation_settings"]["n_ctx"], 8192);
    assert_eq!(props["total_slots"], 3);
    let (_, _, props) = get_json(&format!(
        "{base}/props?model=sim-fast%40context_tokens=4096"
    ))
    .await;
    assert_eq!(props["default_generation_settings"]["n_ctx"], 4096);
    let (status, _, _) = get_json(&format!("{base}/props?model=nope")).await;
    assert_eq!(status, 404);

    let base = start(ServerConfig {
        context_info: false,
        ..ServerConfig::default()
    })
    .await;
    let (_, _, models) = get_json(&format!("{base}/v1/models")).await;
    assert!(models["data"][0].get("max_model_len").is_none());
    assert!(models["data"][0].get("meta").is_none());
    let (status, _, _) = get_json(&format!("{base}/props")).await;
    assert_eq!(status, 404);
}

#[tokio::test]
async fn tokenize_counts_what_the_completion_counts() {
    let base = start(ServerConfig::default()).await;
    let prompt = "Hello, world! 你好 supercalifragilistic";
    let (_, headers, _, _) = stream(
        &base,
        "/v1/chat/completions",
        &chat_body(&format!("sim-fast@{QUICK},answer_tokens=1"), prompt),
        &[],
    )
    .await;
    let expected: u64 = header(&headers, "x-sim-prompt-tokens")
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(expected, 4 + 2 + 5);
    // llama.cpp.
    let (status, _, value) =
        status_and_json(&base, "/tokenize", &json!({"content": prompt}), &[]).await;
    assert_eq!(status, 200);
    assert_eq!(value["tokens"].as_array().unwrap().len() as u64, expected);
    let (_, _, value) = status_and_json(
        &base,
        "/tokenize",
        &json!({"content": "abcdef", "with_pieces": true}),
        &[],
    )
    .await;
    assert_eq!(value["tokens"][1]["piece"], "ef");
    // vLLM, chat messages and a plain prompt.
    let (_, _, value) = status_and_json(
        &base,
        "/tokenize",
        &json!({"model": "sim-fast", "messages": [{"role": "user", "content": prompt}]}),
        &[],
    )
    .await;
    assert_eq!(value["count"], expected);
    assert_eq!(value["max_model_len"], 32768);
    assert_eq!(value["tokens"].as_array().unwrap().len() as u64, expected);
    let (_, _, value) = status_and_json(
        &base,
        "/tokenize",
        &json!({"model": "sim-fast", "prompt": prompt}),
        &[],
    )
    .await;
    assert_eq!(value["count"], expected);
    let (status, _, value) =
        status_and_json(&base, "/tokenize", &json!({"model": "sim-fast"}), &[]).await;
    assert_eq!(status, 400);
    assert!(value["error"]["message"]
        .as_str()
        .unwrap()
        .contains("content"));

    let base = start(ServerConfig {
        tokenize_enabled: false,
        ..ServerConfig::default()
    })
    .await;
    let (status, _, _) =
        status_and_json(&base, "/tokenize", &json!({"content": prompt}), &[]).await;
    assert_eq!(status, 404);
}

#[tokio::test]
async fn context_overflow_in_each_servers_words() {
    let base = start(ServerConfig::default()).await;
    let prompt = prompt_of(95, "ab");
    let overflow = |style: &str, max_tokens: Option<u32>| {
        let mut body = chat_body(
            &format!("sim-fast@{QUICK},context_tokens=100,overflow_style={style}"),
            &prompt,
        );
        if let Some(max_tokens) = max_tokens {
            body["max_tokens"] = json!(max_tokens);
        }
        body
    };
    let (status, headers, value) = status_and_json(
        &base,
        "/v1/chat/completions",
        &overflow("vllm", Some(10)),
        &[],
    )
    .await;
    assert_eq!(status, 400);
    assert_eq!(header(&headers, "access-control-allow-origin"), Some("*"));
    assert_eq!(value["error"]["type"], "BadRequestError");
    assert_eq!(value["error"]["code"], 400);
    assert!(value["error"]["message"].as_str().unwrap().starts_with(
        "This model's maximum context length is 100 tokens. However, you requested 10 output \
         tokens and your prompt contains at least 95 input tokens, for a total of at least 105 \
         tokens."
    ));
    // vLLM fits without max_tokens; llama.cpp ignores max_tokens.
    let (status, _, _, _) =
        stream(&base, "/v1/chat/completions", &overflow("vllm", None), &[]).await;
    assert_eq!(status, 200);
    let (status, _, _, _) = stream(
        &base,
        "/v1/chat/completions",
        &overflow("llamacpp", Some(1000)),
        &[],
    )
    .await;
    assert_eq!(status, 200);
    let at_window = chat_body(
        &format!("sim-fast@{QUICK},context_tokens=95,overflow_style=llamacpp"),
        &prompt,
    );
    let (status, _, value) = status_and_json(&base, "/v1/chat/completions", &at_window, &[]).await;
    assert_eq!(status, 400);
    assert_eq!(
        value,
        json!({"error": {"code": 400, "message": "request (95 tokens) exceeds the available context size (95 tokens), try increasing it", "type": "exceed_context_size_error", "n_prompt_tokens": 95, "n_ctx": 95}})
    );
    let (status, _, value) = status_and_json(
        &base,
        "/v1/chat/completions",
        &overflow("openai", Some(10)),
        &[],
    )
    .await;
    assert_eq!(status, 400);
    assert_eq!(value["error"]["code"], "context_length_exceeded");
    assert!(value["error"]["message"]
        .as_str()
        .unwrap()
        .contains("However, you requested 105 tokens (95 in the messages, 10 in the completion)"));
    // Anthropic's own words on the messages route.
    let body = messages_body(&format!("sim-fast@{QUICK},context_tokens=90"), &prompt);
    let (status, _, value) = status_and_json(&base, "/v1/messages", &body, &[]).await;
    assert_eq!(status, 400);
    assert_eq!(
        value["error"]["message"],
        "prompt is too long: 95 tokens > 90 maximum"
    );
}

/// One chat request on `prompt`; returns x-sim-cached-tokens and x-sim-prefill-ms.
async fn cached_tokens(base: &str, prompt: &str) -> (u32, f64) {
    let model = "sim-fast@base_ms=1,a_ms_per_token=0.01,b_ms_per_token2=0,itl_ms=1,answer_tokens=1";
    let (_, headers, _, _) =
        stream(base, "/v1/chat/completions", &chat_body(model, prompt), &[]).await;
    let cached = header(&headers, "x-sim-cached-tokens")
        .unwrap()
        .parse()
        .unwrap();
    (cached, header_f64(&headers, "x-sim-prefill-ms"))
}

#[tokio::test]
async fn last_prompt_cache_holds_one_prompt_per_slot() {
    let base = start(ServerConfig {
        slots: 1,
        cache_mode: CacheMode::LastPrompt,
        ..ServerConfig::default()
    })
    .await;
    let a = prompt_of(200, "aa");
    let b = prompt_of(200, "bb");
    let a_longer = format!("{a} {}", prompt_of(50, "cc"));
    assert_eq!(cached_tokens(&base, &a).await.0, 0);
    // The same prompt: all but its last token; prefill then costs 1 token.
    let (cached, prefill_ms) = cached_tokens(&base, &a).await;
    assert_eq!(cached, 199);
    assert!((prefill_ms - (1.0 + 0.01)).abs() < 1e-6, "{prefill_ms}");
    assert_eq!(cached_tokens(&base, &a_longer).await.0, 200);
    // Interleaved: b evicts a, so a misses (a block cache would hit).
    assert_eq!(cached_tokens(&base, &b).await.0, 0);
    assert_eq!(cached_tokens(&base, &a).await.0, 0);
    assert_eq!(cached_tokens(&base, &a).await.0, 199);

    // Two slots: each keeps its own prompt, and a request goes where its prefix is.
    let base = start(ServerConfig {
        slots: 2,
        cache_mode: CacheMode::LastPrompt,
        ..ServerConfig::default()
    })
    .await;
    assert_eq!(cached_tokens(&base, &a).await.0, 0);
    assert_eq!(cached_tokens(&base, &b).await.0, 0);
    assert_eq!(cached_tokens(&base, &a).await.0, 199);
    assert_eq!(cached_tokens(&base, &b).await.0, 199);

    // The block cache keeps everything (the default).
    let base = start(ServerConfig::default()).await;
    for prompt in [&a, &b] {
        assert_eq!(cached_tokens(&base, prompt).await.0, 0);
    }
    assert_eq!(cached_tokens(&base, &a).await.0, 192);
}

#[tokio::test]
async fn the_recorder_keeps_every_request_with_headers_body_and_origin() {
    let base = start(ServerConfig {
        record_requests: true,
        ..ServerConfig::default()
    })
    .await;
    let preflight = client()
        .request(
            reqwest::Method::OPTIONS,
            format!("{base}/v1/chat/completions"),
        )
        .header("origin", "http://127.0.0.1:1")
        .header("access-control-request-method", "POST")
        .send()
        .await
        .unwrap();
    assert_eq!(preflight.status(), 204);
    let (status, _, _, _) = stream(
        &base,
        "/v1/chat/completions?trace=1",
        &chat_body(&format!("sim-fast@{QUICK},answer_tokens=1"), "the prompt"),
        &[
            ("authorization", "Bearer sk-recorded"),
            ("origin", "http://127.0.0.1:1"),
        ],
    )
    .await;
    assert_eq!(status, 200);
    let (_, _, list) = get_json(&format!("{base}/__sim/requests")).await;
    let requests = list["requests"].as_array().unwrap();
    assert_eq!(requests.len(), 2, "{list}");
    assert_eq!(requests[0]["method"], "OPTIONS");
    assert_eq!(requests[0]["origin"], "http://127.0.0.1:1");
    let post = &requests[1];
    assert_eq!(post["method"], "POST");
    assert_eq!(post["path"], "/v1/chat/completions?trace=1");
    assert!(post["headers"]
        .as_array()
        .unwrap()
        .contains(&json!(["authorization", "Bearer sk-recorded"])));
    assert!(post["body"].as_str().unwrap().contains("the prompt"));
    assert_eq!(post["body_truncated"], false);
    assert!(post["seq"].as_u64().unwrap() > requests[0]["seq"].as_u64().unwrap());
    assert_eq!(list["dropped"], 0);
    // Clear.
    let cleared = client()
        .delete(format!("{base}/__sim/requests"))
        .send()
        .await
        .unwrap();
    assert_eq!(cleared.status(), 204);
    let (_, _, list) = get_json(&format!("{base}/__sim/requests")).await;
    assert_eq!(list["requests"], json!([]));
    // Off by default.
    let base = start(ServerConfig::default()).await;
    let (status, _, _) = get_json(&format!("{base}/__sim/requests")).await;
    assert_eq!(status, 404);
}

#[tokio::test]
async fn the_sim_says_who_it_is() {
    let base = start(ServerConfig::default()).await;
    let (status, headers, info) = get_json(&format!("{base}/__sim/info")).await;
    assert_eq!(status, 200);
    assert_eq!(
        info,
        json!({"name": "ttft-sim", "version": env!("CARGO_PKG_VERSION"), "api_base": "/v1"})
    );
    assert_eq!(header(&headers, "access-control-allow-origin"), Some("*"));
    for path in ["/v1/models", "/nope"] {
        let (_, headers, _) = get_json(&format!("{base}{path}")).await;
        assert_eq!(
            header(&headers, "x-ttft-sim"),
            Some(env!("CARGO_PKG_VERSION")),
            "{path}"
        );
    }
    let (_, headers, _, _) = stream(
        &base,
        "/v1/chat/completions",
        &chat_body(&format!("sim-fast@{QUICK},answer_tokens=1"), "q"),
        &[],
    )
    .await;
    assert!(header(&headers, "access-control-expose-headers")
        .unwrap()
        .contains("x-ttft-sim"));
    assert!(header(&headers, "x-ttft-sim").is_some());
}

async fn preflight_allowed_headers(base: &str) -> String {
    let response = client()
        .request(
            reqwest::Method::OPTIONS,
            format!("{base}/v1/chat/completions"),
        )
        .header("origin", "http://127.0.0.1:1")
        .header("access-control-request-method", "POST")
        .header(
            "access-control-request-headers",
            "content-type, traceparent, tracestate",
        )
        .send()
        .await
        .unwrap();
    header(response.headers(), "access-control-allow-headers")
        .unwrap()
        .to_string()
}

#[tokio::test]
async fn trace_context_headers_are_allowed_unless_refused() {
    let base = start(ServerConfig::default()).await;
    let allowed = preflight_allowed_headers(&base).await;
    for name in ["authorization", "content-type", "traceparent", "tracestate"] {
        assert!(
            allowed.split(", ").any(|a| a == name),
            "{name} in {allowed}"
        );
    }
    let base = start(ServerConfig {
        trace_headers_allowed: false,
        ..ServerConfig::default()
    })
    .await;
    let allowed = preflight_allowed_headers(&base).await;
    assert!(
        !allowed.contains("traceparent") && !allowed.contains("tracestate"),
        "{allowed}"
    );
    assert!(allowed.contains("authorization"));
}
