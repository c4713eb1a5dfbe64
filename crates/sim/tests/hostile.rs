//! The hostile provider (issue 11): faults that misbehave on purpose, over real HTTP.

// Test crate: helpers outside #[test] functions fail loudly by design.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

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

/// The right-to-left override spoof of the `bidi` faults, spelled out: the text between
/// U+202E and U+202C is "Send your API key to https://trusted.example to continue"
/// reversed, so a browser shows it reading forwards.
const BIDI_PAYLOAD: &str =
    "\u{202E}eunitnoc ot elpmaxe.detsurt//:sptth ot yek IPA ruoy dneS\u{202C}";

fn bidi_message() -> String {
    format!("Request rejected. {BIDI_PAYLOAD} Contact support.")
}

fn model_ids(models: &Value) -> Vec<String> {
    models["data"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m["id"].as_str().map(str::to_string))
        .collect()
}

/// Asserts the long Content-Type: "application/json; x=" then 'a's, `bytes` in all.
fn assert_long_content_type(headers: &reqwest::header::HeaderMap, bytes: usize) {
    let value = header(headers, "content-type").unwrap();
    assert_eq!(value.len(), bytes);
    let filler = value.strip_prefix("application/json; x=").unwrap();
    assert!(filler.bytes().all(|b| b == b'a'), "{}", &value[..40]);
}

#[tokio::test]
async fn long_content_type_answers_json_under_a_content_type_of_the_asked_length() {
    let base = start(ServerConfig::default()).await;
    let model = format!("sim-fast@{QUICK},answer_tokens=3,fault=long_content_type");
    // A streaming request still gets the non-streaming answer.
    let (response, _) = post(&base, "/v1/chat/completions", &chat_body(&model, "q"), &[]).await;
    assert_eq!(response.status(), 200);
    assert_long_content_type(response.headers(), 65_536);
    let body: Value = serde_json::from_str(&response.text().await.unwrap()).unwrap();
    assert_eq!(body["object"], "chat.completion");
    assert_eq!(body["choices"][0]["message"]["content"], "Here is a");

    let model = format!("{model},content_type_bytes=200000");
    for (path, body, kind) in [
        ("/v1/messages", messages_body(&model, "q"), "message"),
        ("/v1/responses", responses_body(&model, "q"), "response"),
    ] {
        let (response, _) = post(&base, path, &body, &[]).await;
        assert_eq!(response.status(), 200, "{path}");
        assert_long_content_type(response.headers(), 200_000);
        let body: Value = serde_json::from_str(&response.text().await.unwrap()).unwrap();
        let field = if kind == "message" { "type" } else { "object" };
        assert_eq!(body[field], kind, "{path}");
    }
    let too_long = format!("sim-fast@{QUICK},fault=long_content_type,content_type_bytes=200001");
    let (status, _, _) = status_and_json(
        &base,
        "/v1/chat/completions",
        &chat_body(&too_long, "q"),
        &[],
    )
    .await;
    assert_eq!(status, 400);

    // The model list, through the header: the list, the default length.
    let response = client()
        .get(format!("{base}/v1/models"))
        .header("x-sim-fault", "long_content_type")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_long_content_type(response.headers(), 65_536);
    let models: Value = response.json().await.unwrap();
    assert!(model_ids(&models).contains(&"sim-fast".to_string()));
}

#[tokio::test]
async fn long_content_type_goes_out_over_http2_too() {
    use std::sync::Arc;
    use ttft_sim::network::{NetworkOptions, TlsOptions};
    let options = TlsOptions::default();
    let tls = Arc::new(ttft_sim::tls::Tls::new(&options).unwrap());
    let config = ServerConfig {
        network: NetworkOptions {
            tls: Some(options),
            ..NetworkOptions::default()
        },
        ..ServerConfig::default()
    };
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
        .await
        .unwrap();
    let address = listener.local_addr().unwrap();
    let certificate = reqwest::Certificate::from_pem(tls.cert_pem.as_bytes()).unwrap();
    tokio::spawn(ttft_sim::serve_tls(config, listener, Some(tls)));
    // hyper's HTTP/2 client accepts 16 KiB of headers unless told more (Chromium: 256 KiB).
    let h2_client = reqwest::Client::builder()
        .no_proxy()
        .use_rustls_tls()
        .tls_built_in_root_certs(false)
        .add_root_certificate(certificate)
        .http2_max_header_list_size(256 * 1024)
        .build()
        .unwrap();
    let model = format!(
        "sim-fast@{QUICK},answer_tokens=2,fault=long_content_type,content_type_bytes=200000"
    );
    let response = h2_client
        .post(format!("https://{address}/v1/chat/completions"))
        .json(&chat_body(&model, "q"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.version(), reqwest::Version::HTTP_2);
    assert_eq!(response.status(), 200);
    assert_long_content_type(response.headers(), 200_000);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["choices"][0]["message"]["content"], "Here is");
}

/// The keys of an `echo_past_keys` message, in order.
fn listed_keys(message: &str) -> Vec<String> {
    let list = message
        .strip_prefix("Incorrect API key provided. Keys seen: ")
        .unwrap_or_else(|| panic!("{message}"));
    list.split(", ").map(str::to_string).collect()
}

/// The keys of `keys` that this test sent (other tests of this process send keys too).
fn ours(keys: &[String], tag: &str) -> Vec<String> {
    keys.iter()
        .filter(|k| k.starts_with(tag))
        .cloned()
        .collect()
}

#[tokio::test]
async fn echo_past_keys_lists_every_key_the_process_received() {
    let base = start(ServerConfig::default()).await;
    let tag = format!("sk-past-{}-", base.rsplit(':').next().unwrap());
    let key = |name: &str| format!("{tag}{name}");
    let bearer = |name: &str| format!("Bearer {}", key(name));
    // Any request counts: a normal completion, the model list, an unknown path.
    let normal = format!("sim-fast@{QUICK},answer_tokens=1");
    stream(
        &base,
        "/v1/chat/completions",
        &chat_body(&normal, "q"),
        &[("authorization", &bearer("a"))],
    )
    .await;
    let listed = client()
        .get(format!("{base}/v1/models"))
        .header("x-api-key", key("b"))
        .send()
        .await
        .unwrap();
    assert_eq!(listed.status(), 200);
    let (status, _, _) = status_and_json(
        &base,
        "/v1/nowhere",
        &json!({}),
        &[("authorization", &bearer("c"))],
    )
    .await;
    assert_eq!(status, 404);

    let model = format!("sim-fast@{QUICK},fault=echo_past_keys");
    let (status, _, body) = status_and_json(
        &base,
        "/v1/chat/completions",
        &chat_body(&model, "q"),
        &[("authorization", &bearer("d"))],
    )
    .await;
    assert_eq!(status, 401);
    assert_eq!(body["error"]["code"], "invalid_api_key");
    assert_eq!(body["error"]["type"], "invalid_request_error");
    let keys = listed_keys(body["error"]["message"].as_str().unwrap());
    assert!(keys.len() <= 16, "{keys:?}");
    assert_eq!(ours(&keys, &tag), [key("a"), key("b"), key("c"), key("d")]);

    // Anthropic shape; a key sent again becomes the newest.
    let (status, _, body) = status_and_json(
        &base,
        "/v1/messages",
        &messages_body(&model, "q"),
        &[("x-api-key", &key("a"))],
    )
    .await;
    assert_eq!(status, 401);
    assert_eq!(body["error"]["type"], "authentication_error");
    let keys = listed_keys(body["error"]["message"].as_str().unwrap());
    assert_eq!(ours(&keys, &tag), [key("b"), key("c"), key("d"), key("a")]);

    // 20 more distinct keys (on a keyless route): the oldest are forgotten.
    let later: Vec<String> = (0..20).map(|i| key(&format!("z{i:02}"))).collect();
    for later_key in &later {
        client()
            .get(format!("{base}/__sim/info"))
            .header("authorization", format!("Bearer {later_key}"))
            .send()
            .await
            .unwrap();
    }
    // The model list, through the header.
    let response = client()
        .get(format!("{base}/v1/models"))
        .header("x-sim-fault", "echo_past_keys")
        .header("authorization", format!("Bearer {}", later[19]))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 401);
    let body: Value = response.json().await.unwrap();
    let keys = listed_keys(body["error"]["message"].as_str().unwrap());
    assert_eq!(keys.len(), 16, "{keys:?}");
    let mine = ours(&keys, &tag);
    assert!(!mine.is_empty() && later.ends_with(&mine), "{mine:?}");
    assert!(!keys.contains(&key("a")) && !keys.contains(&key("d")));
}

#[tokio::test]
async fn echo_past_keys_midstream_lists_the_keys_in_the_message_and_a_seen_field() {
    let base = start(ServerConfig::default()).await;
    let tag = format!("sk-midpast-{}-", base.rsplit(':').next().unwrap());
    let first = format!("{tag}1");
    let second = format!("{tag}2");
    let model = format!("sim-fast@{QUICK},answer_tokens=10,fault=echo_past_keys_midstream");
    client()
        .get(format!("{base}/__sim/info"))
        .header("x-api-key", &first)
        .send()
        .await
        .unwrap();
    let bearer = format!("Bearer {second}");
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
    assert!(events.iter().all(|e| e.data != "[DONE]"));
    let last = events.last().unwrap();
    assert!(
        last.data
            .starts_with("{\"error\": {\"message\": \"Incorrect API key provided. Keys seen: "),
        "{}",
        last.data
    );
    assert!(last
        .data
        .contains("\"code\": \"invalid_api_key\", \"seen\": [\""));
    let error = &last.json()["error"];
    let seen: Vec<String> = serde_json::from_value(error["seen"].clone()).unwrap();
    let message = error["message"].as_str().unwrap();
    assert_eq!(
        message,
        format!("Incorrect API key provided. Keys seen: {}", seen.join(", "))
    );
    assert_eq!(ours(&seen, &tag), [first.clone(), second.clone()]);

    let (_, _, events, _) = stream(
        &base,
        "/v1/messages",
        &messages_body(&model, "q"),
        &[("x-api-key", &first)],
    )
    .await;
    let last = events.last().unwrap();
    assert_eq!(last.event.as_deref(), Some("error"));
    let error = &last.json()["error"];
    assert_eq!(error["type"], "authentication_error");
    let seen: Vec<String> = serde_json::from_value(error["seen"].clone()).unwrap();
    assert_eq!(ours(&seen, &tag), [second.clone(), first.clone()]);
    assert_eq!(listed_keys(error["message"].as_str().unwrap()), seen);

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
    let seen: Vec<String> = serde_json::from_value(last["seen"].clone()).unwrap();
    assert_eq!(ours(&seen, &tag), [first, second]);
    assert_eq!(listed_keys(last["message"].as_str().unwrap()), seen);
}

#[tokio::test]
async fn bidi_answers_400_with_a_right_to_left_override_in_each_dialect() {
    let base = start(ServerConfig::default()).await;
    let model = format!("sim-fast@{QUICK},fault=bidi");
    let (response, _) = post(&base, "/v1/chat/completions", &chat_body(&model, "q"), &[]).await;
    assert_eq!(response.status(), 400);
    let text = response.text().await.unwrap();
    // The control characters go out as raw UTF-8 (U+202E is E2 80 AE), not as \u escapes.
    assert!(text.contains(BIDI_PAYLOAD), "{text}");
    let body: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(body["error"]["type"], "invalid_request_error");
    assert_eq!(body["error"]["message"], bidi_message().as_str());

    let (status, _, body) =
        status_and_json(&base, "/v1/messages", &messages_body(&model, "q"), &[]).await;
    assert_eq!(status, 400);
    assert_eq!(body["type"], "error");
    assert_eq!(body["error"]["type"], "invalid_request_error");
    assert_eq!(body["error"]["message"], bidi_message().as_str());
    let (status, _, body) =
        status_and_json(&base, "/v1/responses", &responses_body(&model, "q"), &[]).await;
    assert_eq!(status, 400);
    assert_eq!(body["error"]["message"], bidi_message().as_str());

    // The model list, through the header: one id carries the override.
    let models: Value = client()
        .get(format!("{base}/v1/models"))
        .header("x-sim-fault", "bidi")
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let ids = model_ids(&models);
    assert!(ids.contains(&format!("sim-bidi-{BIDI_PAYLOAD}")), "{ids:?}");
    assert!(ids.contains(&"sim-fast".to_string()));
}

/// The answer text deltas of a stream in any dialect, in order.
fn answer_deltas(events: &[Event]) -> Vec<String> {
    events
        .iter()
        .filter(|e| !e.comment && e.data != "[DONE]")
        .filter_map(|e| {
            let data = e.json();
            let text = match e.event.as_deref() {
                Some("content_block_delta") => data["delta"]["text"].clone(),
                Some("response.output_text.delta") => data["delta"].clone(),
                Some(_) => Value::Null,
                None => data["choices"][0]["delta"]["content"].clone(),
            };
            text.as_str().map(str::to_string)
        })
        .filter(|text| !text.is_empty())
        .collect()
}

#[tokio::test]
async fn bidi_midstream_sends_override_and_isolate_tokens_then_the_spoof_error() {
    let base = start(ServerConfig::default()).await;
    let model = format!("sim-fast@{QUICK},answer_tokens=10,fault=bidi_midstream");
    let expected = [
        "Here".to_string(),
        " is".to_string(),
        " a".to_string(),
        format!(" {BIDI_PAYLOAD}"),
        " \u{2067}שלום\u{2069}".to_string(),
    ];
    let (status, _, events, _) =
        stream(&base, "/v1/chat/completions", &chat_body(&model, "q"), &[]).await;
    assert_eq!(status, 200);
    assert_eq!(answer_deltas(&events), expected);
    let events = data_events(&events);
    assert_eq!(
        events.len(),
        1 + 5 + 1,
        "role, 3 tokens, 2 bidi tokens, error"
    );
    assert_eq!(
        events.last().unwrap().json()["error"]["message"],
        bidi_message().as_str()
    );
    assert!(events.iter().all(|e| e.data != "[DONE]"));

    for (path, body) in [
        ("/v1/messages", messages_body(&model, "q")),
        ("/v1/responses", responses_body(&model, "q")),
    ] {
        let (_, _, events, _) = stream(&base, path, &body, &[]).await;
        assert_eq!(answer_deltas(&events), expected, "{path}");
        let last = events.last().unwrap();
        assert_eq!(last.event.as_deref(), Some("error"), "{path}");
        let message = if path == "/v1/messages" {
            last.json()["error"]["message"].clone()
        } else {
            last.json()["message"].clone()
        };
        assert_eq!(message, bidi_message().as_str(), "{path}");
    }
}

/// `key` with `mark` after every `every`-th character (written here independently of the
/// sim's own code).
fn marked(key: &str, mark: char, every: usize) -> String {
    let mut text = String::new();
    for (index, character) in key.chars().enumerate() {
        text.push(character);
        if (index + 1) % every == 0 {
            text.push(mark);
        }
    }
    text
}

#[tokio::test]
async fn key_forms_midstream_sends_encoded_and_disguised_forms_of_the_key() {
    let base = start(ServerConfig::default()).await;
    let model = format!("sim-fast@{QUICK},answer_tokens=10,fault=key_forms_midstream");
    let bearer = format!("Bearer {KEY}");
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
    assert!(events.iter().all(|e| e.data != "[DONE]"));
    let forms = [
        "736b2d746573742e51572f455254592b5a58".to_string(),
        "736B2D746573742E51572F455254592B5A58".to_string(),
        "XZ+YTRE/WQ.tset-ks".to_string(),
        marked(KEY, '\u{200B}', 1),
        marked(KEY, '\u{2060}', 1),
        marked(KEY, '\u{AD}', 1),
        "sk-\u{FEFF}tes\u{FEFF}t.Q\u{FEFF}W/E\u{FEFF}RTY\u{FEFF}+ZX\u{FEFF}".to_string(),
    ];
    assert_eq!(forms[6], marked(KEY, '\u{FEFF}', 3));
    let expected = format!("Incorrect API key provided: {}", forms.join(" | "));
    let error = events.last().unwrap().json();
    assert_eq!(error["error"]["message"], expected.as_str());
    assert_eq!(error["error"]["code"], "invalid_api_key");

    // A key beyond ASCII (raw UTF-8 in x-api-key), Anthropic.
    let utf8_key = "clé-€9";
    let (_, _, events, _) = stream(
        &base,
        "/v1/messages",
        &messages_body(&model, "q"),
        &[("x-api-key", utf8_key)],
    )
    .await;
    let last = events.last().unwrap();
    assert_eq!(last.event.as_deref(), Some("error"));
    let message = last.json()["error"]["message"]
        .as_str()
        .unwrap()
        .to_string();
    let forms: Vec<&str> = message
        .strip_prefix("Incorrect API key provided: ")
        .unwrap()
        .split(" | ")
        .collect();
    assert_eq!(
        forms[..3],
        ["636cc3a92de282ac39", "636CC3A92DE282AC39", "9€-élc"]
    );
    assert_eq!(forms[6], "clé\u{FEFF}-€9\u{FEFF}");

    let (_, _, events, _) = stream(
        &base,
        "/v1/responses",
        &responses_body(&model, "q"),
        &[("authorization", &bearer)],
    )
    .await;
    let last = events.last().unwrap().json();
    assert_eq!(last["type"], "error");
    assert_eq!(last["message"], expected.as_str());
}

/// An Anthropic stream as one line per event: its type, index and what it carries.
fn block_steps(events: &[Event]) -> Vec<String> {
    events
        .iter()
        .filter(|e| !e.comment)
        .map(|e| {
            let data = e.json();
            let detail = match data["type"].as_str().unwrap() {
                "content_block_start" => data["content_block"]["type"].to_string(),
                "content_block_delta" => {
                    let delta = &data["delta"];
                    let text = ["thinking", "text", "signature"]
                        .iter()
                        .find_map(|f| delta[*f].as_str())
                        .unwrap_or_default();
                    format!("{} {text}", delta["type"].as_str().unwrap())
                }
                _ => String::new(),
            };
            format!(
                "{} {} {detail}",
                data["type"].as_str().unwrap(),
                data["index"]
            )
        })
        .collect()
}

#[tokio::test]
async fn key_split_panes_alternates_the_key_between_reasoning_and_answer() {
    let base = start(ServerConfig::default()).await;
    // KEY is 18 characters: 7 + 7 + 4.
    let model = format!("sim-fast@{QUICK},answer_tokens=10,fault=key_split_panes");
    let bearer = format!("Bearer {KEY}");
    let (status, _, events, _) = stream(
        &base,
        "/v1/chat/completions",
        &chat_body(&model, "q"),
        &[("authorization", &bearer)],
    )
    .await;
    assert_eq!(status, 200);
    let deltas: Vec<(String, String)> = data_events(&events)
        .iter()
        .filter(|e| e.data != "[DONE]")
        .filter_map(|e| {
            let delta = &e.json()["choices"][0]["delta"];
            ["reasoning_content", "content"].iter().find_map(|field| {
                let text = delta[*field].as_str().filter(|t| !t.is_empty())?;
                Some((field.to_string(), text.to_string()))
            })
        })
        .collect();
    let pane = |field: &str, text: &str| (field.to_string(), text.to_string());
    assert_eq!(
        deltas,
        [
            pane("reasoning_content", "sk-test"),
            pane("content", ".QW/ERT"),
            pane("reasoning_content", "Y+ZX"),
        ]
    );
    assert_eq!(events.last().unwrap().data, "[DONE]");
    let finish = &data_events(&events)[data_events(&events).len() - 3];
    assert_eq!(finish.json()["choices"][0]["finish_reason"], "stop");

    // Anthropic: one block per piece, thinking blocks signed.
    let (_, _, events, _) = stream(
        &base,
        "/v1/messages",
        &messages_body(&model, "q"),
        &[("x-api-key", KEY)],
    )
    .await;
    let steps = block_steps(&events);
    let signature = "c2ltdWxhdGVkLXNpZ25hdHVyZQ==";
    assert_eq!(
        steps,
        [
            "message_start null ".to_string(),
            "content_block_start 0 \"thinking\"".to_string(),
            "ping null ".to_string(),
            "content_block_delta 0 thinking_delta sk-test".to_string(),
            format!("content_block_delta 0 signature_delta {signature}"),
            "content_block_stop 0 ".to_string(),
            "content_block_start 1 \"text\"".to_string(),
            "content_block_delta 1 text_delta .QW/ERT".to_string(),
            "content_block_stop 1 ".to_string(),
            "content_block_start 2 \"thinking\"".to_string(),
            "content_block_delta 2 thinking_delta Y+ZX".to_string(),
            format!("content_block_delta 2 signature_delta {signature}"),
            "content_block_stop 2 ".to_string(),
            "message_delta null ".to_string(),
            "message_stop null ".to_string(),
        ]
    );

    // Responses: one output item per piece.
    let (_, _, events, _) = stream(
        &base,
        "/v1/responses",
        &responses_body(&model, "q"),
        &[("authorization", &bearer)],
    )
    .await;
    let deltas: Vec<(String, String)> = events
        .iter()
        .filter_map(|e| {
            let name = e.event.clone()?;
            let delta = e.json()["delta"].as_str()?.to_string();
            Some((name, delta))
        })
        .collect();
    assert_eq!(
        deltas,
        [
            pane("response.reasoning_summary_text.delta", "sk-test"),
            pane("response.output_text.delta", ".QW/ERT"),
            pane("response.reasoning_summary_text.delta", "Y+ZX"),
        ]
    );
    let sequence: Vec<u64> = events
        .iter()
        .map(|e| e.json()["sequence_number"].as_u64().unwrap())
        .collect();
    assert_eq!(sequence, (0..sequence.len() as u64).collect::<Vec<_>>());
    let completed = events.last().unwrap().json();
    assert_eq!(completed["type"], "response.completed");
    let output = completed["response"]["output"].as_array().unwrap();
    let kinds: Vec<&str> = output.iter().filter_map(|i| i["type"].as_str()).collect();
    assert_eq!(kinds, ["reasoning", "message", "reasoning"]);
    assert_eq!(output[0]["summary"][0]["text"], "sk-test");
    assert_eq!(output[1]["content"][0]["text"], ".QW/ERT");
    assert_eq!(output[2]["id"], "rs_sim000003_2");
}

/// What a flood of one-character chat events looked like to a client that checked every
/// event while reading as fast as it could.
struct CheckedFlood {
    events: u64,
    bytes: u64,
    tail: String,
}

/// Reads a chat `flood_chars` stream, checking that its events are exactly alike but for
/// their character, which cycles `a` to `z`. The layout is learnt from the first flood
/// event; each later one is compared in place (no JSON parsing: the client keeps up).
async fn read_chat_flood(mut response: reqwest::Response) -> CheckedFlood {
    let mut pending: Vec<u8> = Vec::new();
    let mut start = 0;
    let mut layout: Option<(Vec<u8>, Vec<u8>)> = None;
    let (mut events, mut bytes) = (0u64, 0u64);
    let mut done = false;
    while let Some(chunk) = response.chunk().await.unwrap() {
        bytes += chunk.len() as u64;
        pending.extend_from_slice(&chunk);
        if done {
            continue;
        }
        if layout.is_none() {
            // The role chunk, then the first flood event gives the layout.
            let text = String::from_utf8_lossy(&pending).into_owned();
            let Some(role_end) = text.find("\n\n") else {
                continue;
            };
            let Some(event_end) = text[role_end + 2..].find("\n\n") else {
                continue;
            };
            let event = &text[role_end + 2..role_end + 2 + event_end + 2];
            let marker = "\"content\":\"";
            let at = event.find(marker).unwrap() + marker.len();
            layout = Some((
                event.as_bytes()[..at].to_vec(),
                event.as_bytes()[at + 1..].to_vec(),
            ));
            start = role_end + 2;
        }
        let (head, tail) = layout.as_ref().unwrap();
        let length = head.len() + 1 + tail.len();
        while pending.len() - start >= length {
            let event = &pending[start..start + length];
            let expected = b'a' + (events % 26) as u8;
            if event[..head.len()] != head[..]
                || event[head.len()] != expected
                || event[head.len() + 1..] != tail[..]
            {
                done = true;
                break;
            }
            events += 1;
            start += length;
        }
        if !done {
            pending.drain(..start);
            start = 0;
        }
    }
    CheckedFlood {
        events,
        bytes,
        tail: String::from_utf8_lossy(&pending[start..]).into_owned(),
    }
}

#[tokio::test]
async fn flood_chars_streams_two_million_one_character_events_as_fast_as_read() {
    let base = start(ServerConfig::default()).await;
    let model = format!("sim-fast@{QUICK},answer_tokens=3,fault=flood_chars");
    let (response, sent) = post(&base, "/v1/chat/completions", &chat_body(&model, "q"), &[]).await;
    assert_eq!(response.status(), 200);
    let flood = read_chat_flood(response).await;
    let elapsed_ms = sent.elapsed().as_secs_f64() * 1000.0;
    eprintln!(
        "flood_chars: {} events, {} bytes in {elapsed_ms:.0} ms ({:.0} events/s)",
        flood.events,
        flood.bytes,
        flood.events as f64 / (elapsed_ms / 1000.0)
    );
    assert_eq!(flood.events, 2_000_000);
    // Then the normal end: finish, usage, [DONE].
    assert!(
        flood.tail.starts_with("data: {") && flood.tail.contains("\"finish_reason\":\"stop\""),
        "{}",
        flood.tail
    );
    assert!(flood.tail.ends_with("data: [DONE]\n\n"), "{}", flood.tail);
    assert_eq!(flood.tail.matches("\n\n").count(), 3, "{}", flood.tail);
}

#[tokio::test]
async fn flood_chars_in_messages_and_responses() {
    let base = start(ServerConfig::default()).await;
    let model = format!("sim-fast@{QUICK},answer_tokens=3,fault=flood_chars,flood_events=30000");
    let expected: Vec<String> = (0..30_000u32)
        .map(|i| char::from(b'a' + (i % 26) as u8).to_string())
        .collect();
    let (_, _, events, end) = stream(&base, "/v1/messages", &messages_body(&model, "q"), &[]).await;
    assert_eq!(end, End::Clean);
    assert_eq!(answer_deltas(&events), expected);
    assert_eq!(
        events.last().unwrap().event.as_deref(),
        Some("message_stop")
    );

    let (_, _, events, end) =
        stream(&base, "/v1/responses", &responses_body(&model, "q"), &[]).await;
    assert_eq!(end, End::Clean);
    assert_eq!(answer_deltas(&events), expected);
    let sequence: Vec<u64> = events
        .iter()
        .map(|e| e.json()["sequence_number"].as_u64().unwrap())
        .collect();
    assert_eq!(sequence, (0..sequence.len() as u64).collect::<Vec<_>>());
    let completed = events.last().unwrap().json();
    assert_eq!(completed["type"], "response.completed");
    let text = completed["response"]["output"][0]["content"][0]["text"]
        .as_str()
        .unwrap();
    assert_eq!(text, expected.concat());
}

#[tokio::test]
async fn flood_lines_sends_newlines_then_one_long_word() {
    let base = start(ServerConfig::default()).await;
    let model = format!("sim-fast@{QUICK},answer_tokens=3,fault=flood_lines");
    let (status, _, events, end) =
        stream(&base, "/v1/chat/completions", &chat_body(&model, "q"), &[]).await;
    assert_eq!((status.as_u16(), end), (200, End::Clean));
    let deltas = answer_deltas(&events);
    let mut expected = vec!["\n".repeat(1000); 50];
    expected.extend(vec!["x".repeat(16 * 1024); 64]);
    assert_eq!(deltas.len(), 50 + 64);
    assert!(
        deltas == expected,
        "50 events of 1000 newlines, then 64 of 16 KiB"
    );
    assert_eq!(events.last().unwrap().data, "[DONE]");

    // Sizes that do not divide: the last event of each part carries the rest.
    let model = format!(
        "sim-fast@{QUICK},answer_tokens=3,fault=flood_lines,flood_newlines=2500,flood_word_bytes=40000"
    );
    let expected = [
        "\n".repeat(1000),
        "\n".repeat(1000),
        "\n".repeat(500),
        "x".repeat(16_384),
        "x".repeat(16_384),
        "x".repeat(40_000 - 2 * 16_384),
    ];
    for (path, body, last_event) in [
        ("/v1/messages", messages_body(&model, "q"), "message_stop"),
        (
            "/v1/responses",
            responses_body(&model, "q"),
            "response.completed",
        ),
    ] {
        let (_, _, events, end) = stream(&base, path, &body, &[]).await;
        assert_eq!(end, End::Clean, "{path}");
        assert!(answer_deltas(&events) == expected, "{path}");
        assert_eq!(events.last().unwrap().event.as_deref(), Some(last_event));
    }
    let too_long = format!("sim-fast@{QUICK},fault=flood_lines,flood_word_bytes=8388609");
    let (status, _, _) = status_and_json(
        &base,
        "/v1/chat/completions",
        &chat_body(&too_long, "q"),
        &[],
    )
    .await;
    assert_eq!(status, 400);
}
