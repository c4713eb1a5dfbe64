//! The server accounts ttft-sim emits (`server_account=…`), read back by ttft-stream as the
//! widget reads them: each style says the scripted queue, prefill, gateway time and cached
//! tokens, in its own units and place.

// Test crate: helpers outside #[test] functions fail loudly by design.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use common::*;
use ttft_sim::ServerConfig;
use ttft_stream::dialect::{AccountSource, ServerAccount, StreamReader, ACCOUNT_HEADERS};

/// Streams `model` (chat, usage asked for when `usage`) and reads the account from the body
/// and the account headers.
async fn account_of(base: &str, model: &str, usage: bool) -> ServerAccount {
    let mut body = chat_body(model, "hello there");
    if !usage {
        body.as_object_mut().unwrap().remove("stream_options");
    }
    let (response, _) = post(base, "/v1/chat/completions", &body, &[]).await;
    assert_eq!(response.status(), 200);
    let headers: Vec<(String, String)> = ACCOUNT_HEADERS
        .iter()
        .filter_map(|name| {
            header(response.headers(), name).map(|value| ((*name).to_owned(), value.to_owned()))
        })
        .collect();
    let exposed = header(response.headers(), "access-control-expose-headers")
        .unwrap_or_default()
        .to_owned();
    for (name, _) in &headers {
        assert!(
            exposed.contains(name.as_str()),
            "{name} not exposed: {exposed}"
        );
    }
    let bytes = response.bytes().await.unwrap();
    let mut reader = StreamReader::without_text(None);
    reader.on_bytes(&bytes).unwrap();
    reader.finish();
    let mut account = ServerAccount::from_headers(
        headers
            .iter()
            .map(|(name, value)| (name.as_str(), value.as_str())),
        true,
    )
    .unwrap_or_default();
    if let Some(streamed) = reader.server_account() {
        account.merge(streamed.clone());
    }
    account
}

const SCRIPT: &str = "prefill_ms=120,queue_ms=80,gateway_ms=15,answer_tokens=3,itl_ms=5";

fn near(value: Option<f64>, expected: f64, what: &str) {
    let value = value.unwrap_or_else(|| panic!("{what}: missing"));
    assert!(
        (value - expected).abs() < 0.01,
        "{what}: {value} ≠ {expected}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_style_says_the_script() {
    let base = start(ServerConfig::default()).await;

    let groq = account_of(
        &base,
        &format!("sim-fast@{SCRIPT},server_account=groq"),
        true,
    )
    .await;
    assert_eq!(groq.sources, vec![AccountSource::Groq]);
    near(groq.queue_ms, 80.0, "groq queue");
    near(groq.prompt_ms, 120.0, "groq prompt");

    for usage in [true, false] {
        let llama = account_of(
            &base,
            &format!("sim-fast@{SCRIPT},server_account=llamacpp"),
            usage,
        )
        .await;
        assert_eq!(
            llama.sources,
            vec![AccountSource::Llamacpp],
            "usage {usage}"
        );
        near(llama.prompt_ms, 120.0, "llama.cpp prompt");
        assert_eq!(llama.cached_tokens, Some(0));
        assert!(llama.prompt_tokens.unwrap() > 0);
    }

    let sambanova = account_of(
        &base,
        &format!("sim-fast@{SCRIPT},server_account=sambanova"),
        false,
    )
    .await;
    assert_eq!(sambanova.sources, vec![AccountSource::Sambanova]);
    // Its time to first token is the whole wait: gateway + queue + prefill.
    near(sambanova.ttft_ms, 215.0, "sambanova ttft");

    let headers = account_of(
        &base,
        &format!("sim-fast@{SCRIPT},server_account=server_timing+litellm"),
        true,
    )
    .await;
    assert_eq!(
        headers.sources,
        vec![AccountSource::ServerTiming, AccountSource::Litellm]
    );
    near(headers.gateway_ms, 15.0, "gateway");
    near(headers.queue_ms, 80.0, "server-timing queue");
    near(headers.prompt_ms, 120.0, "server-timing prefill");

    // vLLM, NIM and LocalAI ride on the usage chunk; Cerebras and Fireworks on the finish
    // chunk, in seconds.
    let vllm = account_of(
        &base,
        &format!("sim-fast@{SCRIPT},server_account=vllm"),
        true,
    )
    .await;
    assert_eq!(vllm.sources, vec![AccountSource::Vllm]);
    near(vllm.queue_ms, 80.0, "vllm queue");
    near(
        vllm.prompt_ms,
        120.0,
        "vllm time to first token from scheduling",
    );
    let nim = account_of(
        &base,
        &format!("sim-fast@{SCRIPT},server_account=nim"),
        true,
    )
    .await;
    assert_eq!(nim.sources, vec![AccountSource::Nim]);
    near(nim.queue_ms, 80.0, "nim queue");
    near(nim.prompt_ms, 120.0, "nim time to first token");
    let localai = account_of(
        &base,
        &format!("sim-fast@{SCRIPT},server_account=localai"),
        true,
    )
    .await;
    assert_eq!(localai.sources, vec![AccountSource::Localai]);
    near(localai.prompt_ms, 120.0, "localai prompt processing");
    assert_eq!(localai.queue_ms, None);
    let cerebras = account_of(
        &base,
        &format!("sim-fast@{SCRIPT},server_account=cerebras"),
        false,
    )
    .await;
    assert_eq!(cerebras.sources, vec![AccountSource::Cerebras]);
    near(cerebras.queue_ms, 80.0, "cerebras queue");
    near(cerebras.prompt_ms, 120.0, "cerebras prompt");
    let fireworks = account_of(
        &base,
        &format!("sim-fast@{SCRIPT},server_account=fireworks"),
        false,
    )
    .await;
    assert_eq!(fireworks.sources, vec![AccountSource::Fireworks]);
    // From the request's start at Fireworks: its queue and prefill (the gateway in front of
    // it is not its).
    near(fireworks.ttft_ms, 200.0, "fireworks time to first token");
    assert_eq!(fireworks.cached_tokens, Some(0));

    let none = account_of(&base, &format!("sim-fast@{SCRIPT}"), true).await;
    assert!(none.is_empty(), "{none:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cached_tokens_in_the_llamacpp_account() {
    // The same long prompt twice: the second request's prefix comes from the cache.
    let base = start(ServerConfig::default()).await;
    let model = format!("sim-fast@{SCRIPT},server_account=llamacpp");
    let prompt = prompt_of(400, "cache");
    let mut accounts = Vec::new();
    for _ in 0..2 {
        let (response, _) = post(
            &base,
            "/v1/chat/completions",
            &chat_body(&model, &prompt),
            &[],
        )
        .await;
        let bytes = response.bytes().await.unwrap();
        let mut reader = StreamReader::without_text(None);
        reader.on_bytes(&bytes).unwrap();
        accounts.push(reader.server_account().cloned().unwrap());
    }
    assert_eq!(accounts[0].cached_tokens, Some(0));
    assert!(
        accounts[1].cached_tokens.unwrap() > 0,
        "second request: {:?}",
        accounts[1]
    );
    assert_eq!(accounts[0].prompt_tokens, accounts[1].prompt_tokens);
}
