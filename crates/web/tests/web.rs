//! Browser tests of the app's glue, in headless Chromium (wasm-bindgen-test).
//!
//! Network tests talk to a real ttft-sim that the test command starts on 127.0.0.1 and
//! names in `TTFT_SIM_URL` at compile time.
#![cfg(target_arch = "wasm32")]
// clippy's allow-unwrap-in-tests does not see #[wasm_bindgen_test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::option_env_unwrap)]

use ttft_web::storage;
use wasm_bindgen_test::*;

fn window() -> web_sys::Window {
    web_sys::window().expect("tests run in a window")
}

#[wasm_bindgen_test]
fn api_key_lives_in_session_storage_only_with_its_origin() {
    use ttft_core::key_binding::{KeyBinding, KeyDecision};
    use ttft_core::protocol::Protocol;
    let local = window().local_storage().unwrap().unwrap();
    let session = window().session_storage().unwrap().unwrap();
    local.clear().unwrap();
    let binding = KeyBinding::typed(
        "sk-test-123",
        "http://127.0.0.1:8787/v1",
        Protocol::OpenAiChat,
    );
    storage::save_key_binding(&binding);
    let stored = session.get_item(storage::API_KEY_SLOT).unwrap().unwrap();
    assert!(
        stored.contains("\"origin\":\"http://127.0.0.1:8787\""),
        "{stored}"
    );
    let loaded = storage::load_key_binding();
    assert_eq!(loaded, binding);
    assert_eq!(
        loaded.decision("http://127.0.0.1:9999/v1/models"),
        KeyDecision::NeedsConsent {
            origin: "http://127.0.0.1:9999".into()
        }
    );
    assert_eq!(local.length().unwrap(), 0, "nothing may reach localStorage");
    let cookies = js_sys::Reflect::get(&window().document().unwrap(), &"cookie".into()).unwrap();
    assert!(!cookies.as_string().unwrap_or_default().contains("sk-test"));
    // A plain key stored by an earlier version is bound to no origin.
    session
        .set_item(storage::API_KEY_SLOT, "sk-old-456789")
        .unwrap();
    assert_eq!(storage::load_key_binding().origin, None);
    storage::forget_api_key();
    assert_eq!(session.get_item(storage::API_KEY_SLOT).unwrap(), None);
    assert!(!storage::load_key_binding().has_key());
}

/// The ttft-sim the test command started (compile-time, since tests run in the browser).
fn sim_url() -> &'static str {
    option_env!("TTFT_SIM_URL")
        .expect("TTFT_SIM_URL names a running ttft-sim; run the tests through scripts/test.sh")
}

fn chat_request(model: &str) -> ttft_web::transport::HttpRequest {
    ttft_web::transport::HttpRequest {
        method: "POST",
        url: format!("{}/v1/chat/completions", sim_url()),
        headers: vec![("content-type".into(), "application/json".into())],
        body: Some(
            serde_json::json!({
                "model": model,
                "stream": true,
                "messages": [{"role": "user", "content": "Say hello."}],
            })
            .to_string(),
        ),
    }
}

/// Blocks the main thread, as a long rendering or GC task would.
fn busy_wait_ms(duration_ms: f64) {
    let start_ms = ttft_web::clock::now_ms();
    while ttft_web::clock::now_ms() - start_ms < duration_ms {}
}

/// Arrival times of one request through the worker: (started, role chunk, first content).
async fn worker_arrivals(block_main_thread_ms: f64) -> (f64, f64, f64) {
    use futures_util::StreamExt;
    use ttft_web::transport::worker::FetchWorker;
    use ttft_web::transport::TransportEvent;
    let worker = FetchWorker::spawn_from_source(include_str!("../../../www/fetch-worker.js"))
        .await
        .unwrap();
    let before_ms = ttft_web::clock::now_ms();
    let (_, mut events) = worker
        .start(&chat_request("sim-fast@prefill_ms=300,early_role=1"))
        .unwrap();
    busy_wait_ms(block_main_thread_ms);
    let (mut started_ms, mut role_ms, mut content_ms) = (None, None, None);
    while let Some(event) = events.next().await {
        match event {
            TransportEvent::Started { at_ms, .. } => started_ms = Some(at_ms),
            TransportEvent::Chunk { at_ms, bytes } => {
                let bytes = bytes.to_vec();
                let text = String::from_utf8_lossy(&bytes);
                if role_ms.is_none() && text.contains("\"role\"") {
                    role_ms = Some(at_ms);
                }
                if content_ms.is_none()
                    && text.contains("\"content\":\"")
                    && !text.contains("\"content\":\"\"")
                {
                    content_ms = Some(at_ms);
                }
            }
            TransportEvent::Timing(..) => break,
            _ => {}
        }
    }
    let started_ms = started_ms.unwrap();
    // The conversion to the page clock puts the worker's stamps on this page's timeline.
    assert!(
        started_ms >= before_ms - 1.0,
        "worker start {started_ms} before send {before_ms}"
    );
    (started_ms, role_ms.unwrap(), content_ms.unwrap())
}

#[wasm_bindgen_test]
async fn worker_stamps_arrivals_on_the_page_clock() {
    let (started_ms, role_ms, content_ms) = worker_arrivals(0.0).await;
    assert!(
        role_ms - started_ms < 100.0,
        "role chunk after {} ms",
        role_ms - started_ms
    );
    let first_content_ms = content_ms - started_ms;
    assert!(
        (300.0..360.0).contains(&first_content_ms),
        "first content after {first_content_ms} ms"
    );
}

#[wasm_bindgen_test]
async fn a_blocked_main_thread_does_not_delay_worker_arrivals() {
    // The main thread is busy for 600 ms, past the 300 ms first token: a main-thread
    // reader would see it at >= 600 ms; the worker stamps it when it arrived.
    let (started_ms, _, content_ms) = worker_arrivals(600.0).await;
    let first_content_ms = content_ms - started_ms;
    assert!(
        (300.0..360.0).contains(&first_content_ms),
        "first content after {first_content_ms} ms"
    );
}

fn plan(model: &str, api_key: &str) -> ttft_core::measure::RunPlan {
    let base_url = format!("{}/v1", sim_url());
    ttft_core::measure::RunPlan::parse(&ttft_core::measure::RunInput {
        protocol: ttft_core::protocol::ProtocolChoice::Auto,
        base_url: &base_url,
        api_key,
        model,
        prompt: "Say hello.",
        max_tokens: "",
        reasoning: false,
        timeout_s: "10",
        ttft_only: false,
    })
    .unwrap()
}

async fn measure(plan: ttft_core::measure::RunPlan) -> ttft_core::record::RunRecord {
    use ttft_web::run::{measure, RunControl, RunOptions};
    let options = RunOptions {
        clicked_ms: Some(ttft_web::clock::now_ms()),
        warm_up: false,
        painted: false,
    };
    measure(
        &ttft_web::transport::PageCarrier,
        &plan,
        options,
        &RunControl::default(),
        |_| {},
    )
    .await
}

#[wasm_bindgen_test]
async fn a_run_measures_the_scripted_first_answer_token() {
    // A warm-up run first: the test page is another origin than ttft-sim, so a first request
    // also pays the CORS preflight and a new connection (4 to 40 ms on this shared machine),
    // which is not what this test is about.
    let warm_up = measure(plan("sim-fast@prefill_ms=0,answer_tokens=1", "")).await;
    assert_eq!(warm_up.diagnosis, None);
    let record = measure(plan(
        "sim-reasoning@prefill_ms=200,reasoning_tokens=10,itl_ms=50,early_role=1",
        "",
    ))
    .await;
    let metrics = &record.metrics;
    assert_eq!(record.diagnosis, None);
    let ttfr_ms = metrics.ttfr_ms.unwrap();
    let ttfa_ms = metrics.ttfa_ms.unwrap();
    assert!((200.0..240.0).contains(&ttfr_ms), "ttfr_ms {ttfr_ms}");
    assert!((700.0..740.0).contains(&ttfa_ms), "ttfa_ms {ttfa_ms}");
    assert!(
        metrics.first_chunk_ms.unwrap() < 100.0,
        "the role chunk came first"
    );
    assert_eq!(
        metrics.ttft_ms,
        Some(ttfr_ms),
        "ttft is the first token of either channel"
    );
}

#[wasm_bindgen_test]
async fn a_refused_key_is_diagnosed() {
    let record = measure(plan("sim-fast@fault=401", "sk-wrong-0123456789")).await;
    assert_eq!(record.diagnosis_cause.as_deref(), Some("key_refused"));
    assert!(record.diagnosis.is_some(), "a 401 is diagnosed");
    assert_eq!(record.metrics.http_status, Some(401));
    let exported = serde_json::to_string(&record).unwrap();
    assert!(
        !exported.contains("sk-wrong-0123456789"),
        "the key must not survive in the record: {exported}"
    );
}

/// A ping's URL: the models URL without query and fragment; none for a URL that holds any key
/// the tab holds (by value, wherever it is) or that is not http(s).
#[wasm_bindgen_test]
fn a_ping_never_carries_a_key() {
    use ttft_web::transport::pings::ping_url;
    let held = vec!["sk-held-1234".to_owned()];
    assert_eq!(
        ping_url(
            "https://api.example.test/v1/models?api-version=2&x=1#top",
            &held
        )
        .as_deref(),
        Some("https://api.example.test/v1/models")
    );
    for url in [
        "https://api.example.test/sk-held-1234/v1/models",
        "https://api.example.test/v1/models?key=sk-held-1234",
        "https://user:sk-held-1234@api.example.test/v1/models",
    ] {
        assert_eq!(ping_url(url, &held), None, "{url}");
    }
    assert_eq!(ping_url("ftp://api.example.test/v1/models", &held), None);
    assert_eq!(ping_url("not a url", &held), None);
}
