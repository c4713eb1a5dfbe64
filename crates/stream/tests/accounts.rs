//! The server accounts of tests/fixtures/sse/accounts (documented and recorded streams of
//! llama.cpp, Groq, SambaNova, vLLM, NIM, Cerebras, Fireworks and LocalAI),
//! tests/fixtures/headers/accounts.json (OpenAI, Anthropic, TGI, Fireworks response headers)
//! and tests/fixtures/gateways/new_api (a New API gateway's log), against their EXPECTED values (README.md there says
//! where each came from). Times in ms; `null` where the server says nothing.

use std::path::Path;

use serde_json::Value;
use ttft_stream::dialect::{ServerAccount, StreamReader};

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures");

/// The normalized shape of EXPECTED.json.
fn normalized(account: Option<&ServerAccount>) -> Value {
    let Some(account) = account else {
        return serde_json::json!({ "source": "none" });
    };
    let source = account
        .sources
        .first()
        .map_or("none", |source| source.code());
    serde_json::json!({
        "source": source,
        "queue_ms": account.queue_ms,
        "prompt_ms": account.prompt_ms,
        "prompt_tokens": account.prompt_tokens,
        "cached_tokens": account.cached_tokens,
        "ttft_ms": account.ttft_ms,
        "total_ms": account.total_ms,
        "completion_ms": account.completion_ms,
    })
}

fn same(actual: &Value, expected: &Value, what: &str) {
    for key in [
        "source",
        "queue_ms",
        "prompt_ms",
        "prompt_tokens",
        "cached_tokens",
        "ttft_ms",
        "total_ms",
        "completion_ms",
    ] {
        let (got, want) = (&actual[key], &expected[key]);
        match (got.as_f64(), want.as_f64()) {
            (Some(got), Some(want)) => assert!(
                (got - want).abs() < 1e-6,
                "{what}: {key} = {got}, expected {want}"
            ),
            _ => assert_eq!(got, want, "{what}: {key}"),
        }
    }
}

#[test]
fn streamed_accounts_match_expected() {
    let dir = Path::new(ROOT).join("sse/accounts");
    let expected: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("EXPECTED.json")).unwrap()).unwrap();
    let entries = expected.as_object().unwrap();
    assert!(entries.len() >= 12, "{} fixtures", entries.len());
    for (file, want) in entries {
        let bytes = std::fs::read(dir.join(file)).unwrap();
        let mut reader = StreamReader::without_text(None);
        // Split into small reads: an account is read whatever the chunking.
        for piece in bytes.chunks(37) {
            reader.on_bytes(piece).unwrap();
        }
        reader.finish();
        same(&normalized(reader.server_account()), want, file);
    }
}

#[test]
fn header_accounts_match_expected() {
    let text = std::fs::read_to_string(Path::new(ROOT).join("headers/accounts.json")).unwrap();
    let cases: Vec<Value> = serde_json::from_str(&text).unwrap();
    assert!(cases.len() >= 5);
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let headers: Vec<(&str, &str)> = case["headers"]
            .as_object()
            .unwrap()
            .iter()
            .map(|(name, value)| (name.as_str(), value.as_str().unwrap()))
            .collect();
        let streamed = case["stream"].as_bool().unwrap();
        let account = ServerAccount::from_headers(headers, streamed);
        let mut want = case["expected"].clone();
        // TGI's streams carry no account at all: "tgi" with every figure null is none.
        let figures_null = [
            "queue_ms",
            "prompt_ms",
            "prompt_tokens",
            "ttft_ms",
            "total_ms",
        ]
        .iter()
        .all(|key| want[key].is_null());
        if figures_null {
            want["source"] = Value::from("none");
        }
        same(&normalized(account.as_ref()), &want, name);
    }
}

#[test]
fn new_api_log_entries_give_the_gateways_first_response_time() {
    // Recent versions write `other` as an object, older ones as a JSON string; an entry that
    // was not streamed says nothing (older versions write frt -1000 there).
    let text =
        std::fs::read_to_string(Path::new(ROOT).join("gateways/new_api/log_self.json")).unwrap();
    let fixture: Value = serde_json::from_str(&text).unwrap();
    let items = fixture["response"]["data"]["items"].as_array().unwrap();
    let expected = fixture["expected"].as_array().unwrap();
    assert_eq!(items.len(), expected.len());
    for (item, want) in items.iter().zip(expected) {
        assert_eq!(item["id"], want["id"]);
        let account = ServerAccount::from_new_api_log(item);
        let id = &want["id"];
        match want["source"].as_str().unwrap() {
            "none" => assert_eq!(account, None, "entry {id}"),
            source => {
                let account = account.unwrap();
                assert_eq!(account.sources[0].code(), source, "entry {id}");
                assert_eq!(account.ttft_ms, want["ttft_ms"].as_f64(), "entry {id}");
                assert_eq!(
                    account.prompt_tokens,
                    want["prompt_tokens"].as_u64(),
                    "entry {id}"
                );
                assert_eq!(account.queue_ms, None);
            }
        }
    }
}
