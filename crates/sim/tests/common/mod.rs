//! Test helpers: start the server in-process on 127.0.0.1:0, send requests with a real
//! HTTP client, and read SSE with arrival times.
#![allow(dead_code)]

use std::time::Duration;

use serde_json::Value;
use tokio::time::Instant;
use ttft_sim::ServerConfig;

/// Starts a server; returns its base URL.
pub async fn start(config: ServerConfig) -> String {
    let (address, _task) = ttft_sim::spawn(config, 0).await.expect("bind");
    format!("http://{address}")
}

pub fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .no_proxy()
        .build()
        .expect("client")
}

/// One SSE event (or comment) and when its last byte arrived, ms after the request was sent.
#[derive(Clone, Debug)]
pub struct Event {
    pub at_ms: f64,
    pub event: Option<String>,
    pub data: String,
    pub comment: bool,
}

impl Event {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.data).unwrap_or_else(|e| panic!("bad JSON {:?}: {e}", self.data))
    }
}

/// How a body ended.
#[derive(Debug, PartialEq)]
pub enum End {
    Clean,
    Error,
}

/// Reads a whole SSE body, stamping each event with the arrival of its final chunk. The
/// simulator writes `\n` line ends only, so a line parser is enough here.
pub async fn read_sse(mut response: reqwest::Response, sent: Instant) -> (Vec<Event>, End) {
    let mut events = Vec::new();
    let mut buffer = String::new();
    let mut end = End::Clean;
    loop {
        match response.chunk().await {
            Ok(Some(bytes)) => {
                let at_ms = sent.elapsed().as_secs_f64() * 1000.0;
                buffer.push_str(std::str::from_utf8(&bytes).expect("utf8"));
                while let Some(position) = buffer.find("\n\n") {
                    let block: String = buffer.drain(..position + 2).collect();
                    let mut event = Event {
                        at_ms,
                        event: None,
                        data: String::new(),
                        comment: false,
                    };
                    let mut data_lines = Vec::new();
                    for line in block.lines() {
                        if let Some(comment) = line.strip_prefix(':') {
                            event.comment = true;
                            event.data = comment.trim().to_string();
                        } else if let Some(value) = line.strip_prefix("event: ") {
                            event.event = Some(value.to_string());
                        } else if let Some(value) = line.strip_prefix("data: ") {
                            data_lines.push(value.to_string());
                        }
                    }
                    if !event.comment {
                        event.data = data_lines.join("\n");
                    }
                    events.push(event);
                }
            }
            Ok(None) => break,
            Err(_) => {
                end = End::Error;
                break;
            }
        }
    }
    (events, end)
}

/// POSTs JSON to `path`, returning the response and when it was sent.
pub async fn post(
    base: &str,
    path: &str,
    body: &Value,
    headers: &[(&str, &str)],
) -> (reqwest::Response, Instant) {
    let mut request = client().post(format!("{base}{path}")).json(body);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let sent = Instant::now();
    let response = request.send().await.expect("send");
    (response, sent)
}

/// POSTs and reads the whole SSE body.
pub async fn stream(
    base: &str,
    path: &str,
    body: &Value,
    headers: &[(&str, &str)],
) -> (
    reqwest::StatusCode,
    reqwest::header::HeaderMap,
    Vec<Event>,
    End,
) {
    let (response, sent) = post(base, path, body, headers).await;
    let status = response.status();
    let header_map = response.headers().clone();
    let (events, end) = read_sse(response, sent).await;
    (status, header_map, events, end)
}

/// POSTs JSON; returns the status, headers and the body as JSON (a string if it is not).
pub async fn status_and_json(
    base: &str,
    path: &str,
    body: &Value,
    headers: &[(&str, &str)],
) -> (u16, reqwest::header::HeaderMap, Value) {
    let (response, _) = post(base, path, body, headers).await;
    let status = response.status().as_u16();
    let header_map = response.headers().clone();
    let text = response.text().await.unwrap();
    (
        status,
        header_map,
        serde_json::from_str(&text).unwrap_or(Value::String(text)),
    )
}

pub fn chat_body(model: &str, prompt: &str) -> Value {
    serde_json::json!({
        "model": model,
        "stream": true,
        "stream_options": {"include_usage": true},
        "messages": [{"role": "user", "content": prompt}],
    })
}

pub fn messages_body(model: &str, prompt: &str) -> Value {
    serde_json::json!({
        "model": model,
        "stream": true,
        "max_tokens": 1024,
        "messages": [{"role": "user", "content": prompt}],
    })
}

pub fn responses_body(model: &str, prompt: &str) -> Value {
    serde_json::json!({"model": model, "stream": true, "input": prompt})
}

/// A prompt of exactly `n` tokens under the counting rule (each word "wxyz" is 1 token).
pub fn prompt_of(n: usize, tag: &str) -> String {
    (0..n)
        .map(|i| format!("{tag}{}", i % 10))
        .collect::<Vec<_>>()
        .join(" ")
}

pub fn header<'a>(headers: &'a reqwest::header::HeaderMap, name: &str) -> Option<&'a str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

pub fn header_f64(headers: &reqwest::header::HeaderMap, name: &str) -> f64 {
    header(headers, name)
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("header {name}"))
}

pub const QUICK: &str = "prefill_ms=5,itl_ms=1";

pub fn timeout() -> Duration {
    Duration::from_secs(10)
}
