//! ttft-sim's real echo bytes through ttft-core's measurement, for every shape of key
//! (issue 31: what e2e/keysafety.test.mjs's short-key and JWT-key runs proved end to end,
//! natively). The sim echoes the key it received in full, base64-encoded and URL-encoded
//! (`echo_key`, `echo_key_midstream`), in each dialect; the bytes it sends over real HTTP
//! are fed, cut into small reads, to [`Measurement`] as the page feeds them, and nothing the
//! run hands out or records holds a piece of the key or of its encoded forms: not the
//! shown text, the diagnosis in either language, the record, the JSON export or the CSV.
//!
//! crates/core/tests/keysafety.rs proves the same rules over hand-written bodies (OpenAI
//! Chat only); this file ties them to the sim's own bytes and to each dialect's error shape.

// Test crate: helpers outside #[test] functions fail loudly by design.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use common::*;
use ttft_core::export::{runs_csv, CsvHeader, Environment, ExportDocument};
use ttft_core::lang::Lang;
use ttft_core::measure::{FinishContext, Measurement, Progress, ResponseHead, RunInput, RunPlan};
use ttft_core::protocol::{Protocol, ProtocolChoice};
use ttft_core::record::{RunRecord, Transport};
use ttft_core::scrub::{KeyScrubber, WINDOW_CHARS};
use ttft_sim::ServerConfig;

/// The keys of e2e/keysafety.test.mjs: a long distinctive one, a short one (10 characters:
/// shape guessing misses it), and a JWT-like dotted one.
const KEYS: [&str; 3] = [
    "sk-ttftmeter-CANARY-7f3a9c2e5b1d4806aa17",
    "k9Qz2Lm4Xw",
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ0dGZ0LWNhbmFyeSJ9.Zm9vYmFyYmF6cXV4",
];

/// A read of the page is this many bytes here: keys and their forms are cut across reads.
const READ_BYTES: usize = 7;

fn base64(data: &[u8], url_safe: bool) -> String {
    let alphabet: &[u8] = if url_safe {
        b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    } else {
        b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    };
    let mut out = String::new();
    for group in data.chunks(3) {
        let value = (u32::from(group[0]) << 16)
            | (u32::from(*group.get(1).unwrap_or(&0)) << 8)
            | u32::from(*group.get(2).unwrap_or(&0));
        for index in 0..=group.len() {
            out.push(alphabet[((value >> (18 - 6 * index)) & 63) as usize] as char);
        }
        for _ in group.len()..3 {
            out.push('=');
        }
    }
    out
}

/// JavaScript's `encodeURIComponent`, in upper or lower case hex.
fn percent_encoded(text: &str, lower: bool) -> String {
    text.bytes()
        .map(|byte| {
            if byte.is_ascii_alphanumeric() || b"-_.!~*'()".contains(&byte) {
                char::from(byte).to_string()
            } else if lower {
                format!("%{byte:02x}")
            } else {
                format!("%{byte:02X}")
            }
        })
        .collect()
}

/// The key and the forms a provider may echo (as e2e/keysafety.test.mjs's `keyForms`):
/// percent-encoded in both cases, and the base64 characters the key alone decides at each
/// byte alignment, in both alphabets. An oracle independent of the scrubber.
fn key_forms(key: &str) -> Vec<String> {
    let mut forms = vec![
        key.to_owned(),
        percent_encoded(key, false),
        percent_encoded(key, true),
    ];
    for pad in 0..3usize {
        let encoded = base64(format!("{}{key}", "x".repeat(pad)).as_bytes(), false);
        let core = &encoded[(8 * pad).div_ceil(6)..(8 * (pad + key.len())) / 6];
        forms.push(core.to_owned());
        forms.push(core.replace('+', "-").replace('/', "_"));
    }
    forms
}

/// The windows (8 characters, or the whole key when shorter) of the key and of its forms
/// found in `text`.
fn leaks(key: &str, text: &str) -> Vec<String> {
    let width = WINDOW_CHARS.min(key.len());
    let mut found: Vec<String> = Vec::new();
    for form in key_forms(key) {
        for at in 0..=form.len().saturating_sub(width) {
            let window = &form[at..at + width];
            if text.contains(window) && !found.iter().any(|seen| seen == window) {
                found.push(window.to_owned());
            }
        }
    }
    found
}

fn plan(protocol: Protocol, key: &str) -> RunPlan {
    RunPlan::parse(&RunInput {
        protocol: ProtocolChoice::Fixed(protocol),
        base_url: "http://127.0.0.1:8787/v1",
        api_key: key,
        model: "sim-fast",
        prompt: "Hi",
        max_tokens: "",
        reasoning: false,
        timeout_s: "",
        ttft_only: false,
    })
    .unwrap()
}

/// The route, body and key header of a run of `protocol` with `model` and `key`.
fn request(
    protocol: Protocol,
    model: &str,
    key: &str,
) -> (&'static str, serde_json::Value, (&'static str, String)) {
    match protocol {
        Protocol::AnthropicMessages => (
            "/v1/messages",
            messages_body(model, "Hi"),
            ("x-api-key", key.to_owned()),
        ),
        Protocol::OpenAiResponses => (
            "/v1/responses",
            responses_body(model, "Hi"),
            ("authorization", format!("Bearer {key}")),
        ),
        Protocol::OpenAiChat => (
            "/v1/chat/completions",
            chat_body(model, "Hi"),
            ("authorization", format!("Bearer {key}")),
        ),
    }
}

/// The sim's answer to a run: status, content type and every body byte.
async fn sim_answer(
    base: &str,
    protocol: Protocol,
    fault: &str,
    key: &str,
) -> (u16, String, Vec<u8>) {
    let model = format!("sim-fast@{QUICK},answer_tokens=8,fault={fault}");
    let (path, body, (name, value)) = request(protocol, &model, key);
    let (response, _) = post(base, path, &body, &[(name, &value)]).await;
    let status = response.status().as_u16();
    let content_type = header(response.headers(), "content-type")
        .unwrap_or_default()
        .to_owned();
    let bytes = response.bytes().await.unwrap().to_vec();
    (status, content_type, bytes)
}

/// `bytes` through a run of `protocol` with `key`, in reads of [`READ_BYTES`]: the record,
/// and the text the run handed out to be shown.
fn measured(
    protocol: Protocol,
    key: &str,
    status: u16,
    content_type: &str,
    bytes: &[u8],
) -> (RunRecord, String) {
    let mut run = Measurement::new(&plan(protocol, key), None, 1000.0, 1);
    run.on_headers(
        1005.0,
        ResponseHead {
            status,
            content_type: content_type.to_owned(),
            retry_after: None,
            timing_headers: Vec::new(),
        },
    );
    let mut progress = Vec::new();
    let mut at_ms = 1010.0;
    for read in bytes.chunks(READ_BYTES) {
        let _ = run.on_chunk(at_ms, read, &mut progress);
        at_ms += 0.5;
    }
    run.on_end(at_ms, &mut progress);
    let shown: String = progress
        .iter()
        .filter_map(|item| match item {
            Progress::Text { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    let record = run.finish(&FinishContext::new(
        "2026-12-01T00:00:00.000Z",
        Transport::Worker,
    ));
    (record, shown)
}

fn export_json(record: &RunRecord) -> String {
    let mut document = ExportDocument::new(
        "0.1.0",
        "2026-12-01T00:00:00.000Z",
        Environment {
            user_agent: "test".into(),
            timer_resolution_ms: None,
            cross_origin_isolated: false,
            transport: Transport::Worker,
            page_origin: "http://127.0.0.1:8787".into(),
        },
    );
    document.runs = vec![record.clone()];
    document.to_json().unwrap()
}

#[tokio::test]
async fn the_sims_echo_of_each_key_shape_is_scrubbed_in_every_dialect() {
    let base = start(ServerConfig::default()).await;
    let cases = [
        ("echo_key", Protocol::OpenAiChat, "key_refused"),
        ("echo_key", Protocol::AnthropicMessages, "key_refused"),
        ("echo_key", Protocol::OpenAiResponses, "key_refused"),
        (
            "echo_key_midstream",
            Protocol::OpenAiChat,
            "mid_stream_error",
        ),
        (
            "echo_key_midstream",
            Protocol::AnthropicMessages,
            "mid_stream_error",
        ),
        (
            "echo_key_midstream",
            Protocol::OpenAiResponses,
            "mid_stream_error",
        ),
    ];
    for key in KEYS {
        let scrubber = KeyScrubber::new(key).unwrap();
        for (fault, protocol, cause) in cases {
            let what = format!("{fault} in {} with {key}", protocol.code());
            let (status, content_type, bytes) = sim_answer(&base, protocol, fault, key).await;
            let body = String::from_utf8_lossy(&bytes);
            // The sim's echo holds the key, its base64 and its URL encoding: there is
            // something to find.
            assert!(body.contains(key), "{what}: {body}");
            assert!(
                body.contains(&base64(key.as_bytes(), false)),
                "{what}: {body}"
            );
            assert!(
                body.contains(&percent_encoded(key, false)),
                "{what}: {body}"
            );
            assert!(leaks(key, &body).len() > 1, "{what}: the oracle finds them");

            let (record, shown) = measured(protocol, key, status, &content_type, &bytes);
            assert_eq!(record.diagnosis_cause.as_deref(), Some(cause), "{what}");
            let diagnosis = record.diagnosis.clone().unwrap();
            let quoted = diagnosis.provider_message.clone().unwrap_or_default();
            assert!(
                quoted.contains(scrubber.replacement()),
                "{what}: the quote says the key was removed: {quoted}"
            );
            assert_eq!(
                leaks(key, &shown),
                Vec::<String>::new(),
                "{what}: shown {shown}"
            );
            for lang in [Lang::En, Lang::Zh] {
                let said = format!("{} {}", diagnosis.message(lang), diagnosis.fix(lang));
                assert_eq!(leaks(key, &said), Vec::<String>::new(), "{what}: {said}");
            }
            let json = serde_json::to_string(&record).unwrap();
            let exported = export_json(&record);
            let csv = runs_csv(std::slice::from_ref(&record), CsvHeader::WithPeerNames);
            for (text, place) in [
                (&json, "the record"),
                (&exported, "the JSON export"),
                (&csv, "the CSV"),
            ] {
                assert_eq!(
                    leaks(key, text),
                    Vec::<String>::new(),
                    "{what}: {place}: {text}"
                );
                assert!(
                    !scrubber.contains_key(text),
                    "{what}: {place} holds a form of the key"
                );
            }
        }
    }
}
