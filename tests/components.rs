//! The widget's components, mounted whole ([`WidgetApp`]) in headless Chromium
//! (wasm-bindgen-test) with its runs' requests played by a [`ScriptedCarrier`]: what a user
//! sees after each click, with every number checked against the script's instants. The
//! network, the engines' timing and the paint itself are the end-to-end tests' (e2e/).
#![cfg(target_arch = "wasm32")]
// clippy's allow-unwrap-in-tests does not see #[wasm_bindgen_test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::rc::Rc;

use leptos::prelude::*;
use ttft_core::config::UrlConfig;
use ttft_core::measure::{FetchError, ResponseHead};
use ttft_web::testing::support::{chat_event, send_and_wait, wait_for_rows};
use ttft_web::testing::UI_WAIT_MS;
use ttft_web::testing::{clear_storage, mount, Mounted};
use ttft_web::transport::scripted::{Script, ScriptedCarrier, Step};
use ttft_web::transport::SharedCarrier;
use ttft_widget::WidgetApp;
use wasm_bindgen_test::*;

/// Where the widget's form points in these tests; nothing listens there (the carrier plays
/// the script instead).
const BASE_URL: &str = "http://127.0.0.1:9/v1";

/// A run of these tests ends within this (the scripts' instants are under a second).
const RUN_END_MS: f64 = 10_000.0;

/// The widget mounted with `query` as its address's parameters and `carrier` for its runs,
/// on a first visit (nothing stored).
fn widget(query: &[(&str, &str)], carrier: &ScriptedCarrier) -> Mounted {
    clear_storage();
    let config = UrlConfig::from_pairs(query.iter().copied());
    let carrier: SharedCarrier = Rc::new(carrier.clone());
    mount(move || view! { <WidgetApp config=config carrier=carrier /> })
}

/// The widget aimed at [`BASE_URL`] with the Chat Completions protocol and `model`.
fn chat_widget(model: &str, carrier: &ScriptedCarrier) -> Mounted {
    widget(
        &[
            ("base_url", BASE_URL),
            ("protocol", "chat"),
            ("model", model),
        ],
        carrier,
    )
}

fn role() -> String {
    chat_event(serde_json::json!({"role": "assistant", "content": ""}))
}

fn reasoning(text: &str) -> String {
    chat_event(serde_json::json!({"reasoning_content": text}))
}

fn content(text: &str) -> String {
    chat_event(serde_json::json!({"content": text}))
}

fn finish() -> String {
    let chunk = serde_json::json!({
        "id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "m",
        "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
    });
    format!("data: {chunk}\n\ndata: [DONE]\n\n")
}

/// A reasoning model's stream: headers at 20 ms, the role at 25, reasoning at 200 and 250,
/// the answer at 700 and 720, the end at 740 (ms after the request left).
fn reasoning_script() -> Script {
    let (role, think, more, hello, world, finish) = (
        role(),
        reasoning("Thinking"),
        reasoning(" more"),
        content("Hello"),
        content(" world"),
        finish(),
    );
    Script::event_stream(
        20.0,
        &[
            (25.0, &role),
            (200.0, &think),
            (250.0, &more),
            (700.0, &hello),
            (720.0, &world),
            (740.0, &finish),
        ],
        741.0,
    )
}

/// A plain answer whose first token comes `ttfa_ms` after the request left.
fn answer_script(ttfa_ms: f64, text: &str) -> Script {
    let (role, text, finish) = (role(), content(text), finish());
    Script::event_stream(
        5.0,
        &[(6.0, &role), (ttfa_ms, &text), (ttfa_ms + 2.0, &finish)],
        ttfa_ms + 3.0,
    )
}

/// A readout's exact value (`data-ms`, 3 decimals).
fn readout_ms(view: &Mounted, id: &str) -> f64 {
    view.attribute(id, "data-ms")
        .and_then(|ms| ms.parse().ok())
        .unwrap_or_else(|| panic!("{id} has no value"))
}

/// The table cell of `metric` in run `number`'s row.
fn cell(view: &Mounted, number: usize, metric: &str) -> String {
    let row = &view.find_all("run-row")[number - 1];
    row.query_selector(&format!("[data-metric=\"{metric}\"]"))
        .unwrap()
        .unwrap_or_else(|| panic!("no {metric} cell in row {number}"))
        .text_content()
        .unwrap_or_default()
}

#[wasm_bindgen_test]
async fn a_scripted_reasoning_run_shows_the_scripts_instants() {
    let carrier = ScriptedCarrier::new([reasoning_script()]);
    let view = chat_widget("deep-thinker", &carrier);
    view.until_attribute("status", "data-state", "ready", UI_WAIT_MS)
        .await;
    send_and_wait(&view).await;
    assert_eq!(
        view.attribute("status", "data-state").as_deref(),
        Some("done")
    );
    // Arrival instants are the script's, exactly (stamped by the carrier).
    assert_eq!(readout_ms(&view, "first-chunk"), 25.0);
    assert_eq!(readout_ms(&view, "ttfr"), 200.0);
    assert_eq!(readout_ms(&view, "ttfa"), 700.0);
    // On screen after the click, so at least the arrival, and painted within a second.
    let perceived = readout_ms(&view, "perceived-ttfa");
    assert!(
        (700.0..1_700.0).contains(&perceived),
        "perceived {perceived}"
    );
    assert_eq!(view.text_of("pre[data-testid=reasoning]"), "Thinking more");
    assert_eq!(view.text("answer"), "Hello world");
    // The runs table: one row, the same numbers to its tenth.
    assert_eq!(view.find_all("run-row").len(), 1);
    assert_eq!(cell(&view, 1, "ttfa_ms"), "700.0");
    assert_eq!(cell(&view, 1, "ttfr_ms"), "200.0");
    assert_eq!(cell(&view, 1, "first_chunk_ms"), "25.0");
    // What left: one streaming Chat Completions request, with no key.
    let sent = carrier.sent();
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0].url, format!("{BASE_URL}/chat/completions"));
    let body: serde_json::Value = serde_json::from_str(sent[0].body.as_deref().unwrap()).unwrap();
    assert_eq!(body["model"], "deep-thinker");
    assert_eq!(body["stream"], true);
    assert!(
        sent[0]
            .headers
            .iter()
            .all(|(name, _)| !name.eq_ignore_ascii_case("authorization")),
        "no key was typed, none is sent: {:?}",
        sent[0].headers
    );
}

/// A failure as the network or a provider would give it, and the cause the widget names.
struct Fault {
    what: &'static str,
    key: &'static str,
    script: Script,
    cause: &'static str,
    /// Words of the provider's that the diagnosis quotes.
    quoted: Option<&'static str>,
    timeout_s: Option<&'static str>,
}

fn json_error(status: u16, body: &str) -> Script {
    Script::answer(status, "application/json", body, 30.0)
}

/// A stream whose connection drops (a `TypeError` on the next read) after `events`.
fn dropped_after(events: &[String]) -> Script {
    let mut steps = vec![Step::Headers {
        at_ms: 5.0,
        head: ResponseHead::event_stream(200),
    }];
    steps.extend(events.iter().enumerate().map(|(index, event)| Step::Read {
        at_ms: 6.0 + index as f64,
        bytes: event.clone().into_bytes(),
    }));
    steps.push(Step::Fail {
        at_ms: 50.0,
        error: FetchError {
            name: "TypeError".into(),
            message: "network error".into(),
        },
    });
    Script {
        steps,
        ..Script::default()
    }
}

// A table of cases, one entry per cause: long by nature.
#[allow(clippy::too_many_lines)]
fn faults() -> Vec<Fault> {
    let openai_key = r#"{"error":{"message":"Incorrect API key provided: sk-test*****7890. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","code":"invalid_api_key"}}"#;
    let mid_stream = format!(
        "{}{}data: {}\n\n",
        role(),
        content("Hel"),
        r#"{"error":{"message":"The server had an error while processing your request. Sorry about that!","type":"server_error"}}"#
    );
    let malformed = format!("{}data: {{\"choices\":[{{\"delta\":\n\n", role());
    let (role_event, partial) = (role(), content("Hello"));
    vec![
        Fault {
            what: "401 with a key",
            key: "sk-test-1234567890",
            script: json_error(401, openai_key),
            cause: "key_refused",
            quoted: Some("Incorrect API key provided"),
            timeout_s: None,
        },
        Fault {
            what: "401 without a key",
            key: "",
            script: json_error(401, openai_key),
            cause: "key_missing",
            quoted: None,
            timeout_s: None,
        },
        Fault {
            what: "403",
            key: "sk-test-1234567890",
            script: json_error(
                403,
                r#"{"error":{"message":"Project does not have access to model","type":"invalid_request_error","code":"model_not_found"}}"#,
            ),
            cause: "forbidden",
            quoted: None,
            timeout_s: None,
        },
        Fault {
            what: "an unknown model",
            key: "",
            script: json_error(
                404,
                r#"{"error":{"message":"The model `no-such-model` does not exist or you do not have access to it.","type":"invalid_request_error","code":"model_not_found"}}"#,
            ),
            cause: "model_not_found",
            quoted: None,
            timeout_s: None,
        },
        Fault {
            what: "a wrong path",
            key: "",
            script: Script::answer(
                404,
                "text/html",
                "<!DOCTYPE html><html><head><title>404 Not Found</title></head><body><h1>Not Found</h1></body></html>",
                30.0,
            ),
            cause: "wrong_path",
            quoted: None,
            timeout_s: None,
        },
        Fault {
            what: "400",
            key: "",
            script: json_error(
                400,
                r#"{"error":{"message":"Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.","type":"invalid_request_error"}}"#,
            ),
            cause: "bad_request",
            quoted: Some("max_completion_tokens"),
            timeout_s: None,
        },
        Fault {
            what: "429",
            key: "",
            script: json_error(
                429,
                r#"{"error":{"message":"Rate limit reached for requests","type":"requests","code":"rate_limit_exceeded"}}"#,
            )
            .with_head(|head| head.retry_after = Some("20".into())),
            cause: "rate_limited",
            quoted: None,
            timeout_s: None,
        },
        Fault {
            what: "500",
            key: "",
            script: json_error(
                500,
                r#"{"error":{"message":"The server had an error processing your request.","type":"server_error"}}"#,
            ),
            cause: "server_error",
            quoted: None,
            timeout_s: None,
        },
        Fault {
            what: "an error event mid-stream",
            key: "",
            script: Script::event_stream(5.0, &[(40.0, &mid_stream)], 41.0),
            cause: "mid_stream_error",
            quoted: Some("Sorry about that!"),
            timeout_s: None,
        },
        Fault {
            what: "a malformed chunk",
            key: "",
            script: Script::event_stream(5.0, &[(40.0, &malformed)], 41.0),
            cause: "malformed_chunk",
            quoted: None,
            timeout_s: None,
        },
        Fault {
            what: "a stream that ends without its terminal event",
            key: "",
            script: Script::event_stream(5.0, &[(6.0, &role_event), (40.0, &partial)], 60.0),
            cause: "ended_without_terminal",
            quoted: None,
            timeout_s: None,
        },
        Fault {
            what: "a connection dropped before any text",
            key: "",
            script: dropped_after(&[role()]),
            cause: "empty_stream",
            quoted: None,
            timeout_s: None,
        },
        Fault {
            what: "a connection dropped mid-answer",
            key: "",
            script: dropped_after(&[role(), content("Hel")]),
            cause: "ended_without_terminal",
            quoted: None,
            timeout_s: None,
        },
        Fault {
            what: "a stall past the timeout",
            key: "",
            script: Script::event_stream(5.0, &[(6.0, &role_event)], 60_000.0),
            cause: "timeout",
            quoted: None,
            timeout_s: Some("1"),
        },
        Fault {
            what: "a refused connection (or CORS)",
            key: "",
            script: Script::network_error("Failed to fetch", 3.0),
            cause: "connection_failed",
            quoted: None,
            timeout_s: None,
        },
    ]
}

#[wasm_bindgen_test]
async fn every_fault_is_diagnosed_and_earlier_runs_stay() {
    let carrier = ScriptedCarrier::new([answer_script(50.0, "Hi")]);
    let view = chat_widget("m", &carrier);
    send_and_wait(&view).await;
    assert_eq!(cell(&view, 1, "ttfa_ms"), "50.0");
    let mut rows = 1;
    for fault in faults() {
        carrier.then([fault.script.clone()]);
        view.type_into("api-key", fault.key);
        view.type_into("timeout-s", fault.timeout_s.unwrap_or("30"));
        send_and_wait(&view).await;
        rows += 1;
        let diagnosis = view
            .find("diagnosis")
            .unwrap_or_else(|| panic!("{}: no diagnosis shown", fault.what));
        assert_eq!(
            diagnosis.get_attribute("data-cause").as_deref(),
            Some(fault.cause),
            "{}: {}",
            fault.what,
            diagnosis.text_content().unwrap_or_default()
        );
        let text = diagnosis.text_content().unwrap_or_default();
        assert!(
            text.len() > 40,
            "{}: a cause and a fix are written out: {text}",
            fault.what
        );
        if let Some(quoted) = fault.quoted {
            assert!(
                view.text("provider-quote").contains(quoted),
                "{}: the provider's words are quoted as text: {text}",
                fault.what
            );
        }
        assert_eq!(
            view.attribute("status", "data-state").as_deref(),
            Some("failed"),
            "{}",
            fault.what
        );
        let shown = view.find_all("run-row");
        assert_eq!(shown.len(), rows, "{}: no run was lost", fault.what);
        assert_eq!(
            shown[0].get_attribute("data-outcome").as_deref(),
            Some("ok"),
            "{}: the first run is still there, still ok",
            fault.what
        );
        assert_eq!(
            shown[rows - 1].get_attribute("data-outcome").as_deref(),
            Some("failed"),
            "{}",
            fault.what
        );
    }
    assert_eq!(
        cell(&view, 1, "ttfa_ms"),
        "50.0",
        "the first run's numbers are unchanged"
    );
}

/// The stored history (localStorage) as JSON, when there is one.
fn stored_history() -> Option<serde_json::Value> {
    let text = web_sys::window()
        .unwrap()
        .local_storage()
        .unwrap()
        .unwrap()
        .get_item(ttft_web::persist::RUNS_SLOT)
        .unwrap()?;
    Some(serde_json::from_str(&text).unwrap())
}

/// The stored history's runs array, wherever the document keeps it.
fn runs_of(document: &mut serde_json::Value) -> &mut Vec<serde_json::Value> {
    if document.is_array() {
        return document.as_array_mut().unwrap();
    }
    document
        .get_mut("runs")
        .and_then(serde_json::Value::as_array_mut)
        .expect("the history holds a runs array")
}

#[wasm_bindgen_test]
async fn a_thousand_stored_runs_come_back_after_a_reload_in_a_window_of_100() {
    let carrier = ScriptedCarrier::new([answer_script(120.0, "Hi")]);
    let view = chat_widget("m", &carrier);
    send_and_wait(&view).await;
    drop(view);
    // 1,000 runs in the history (the one measured, numbered 1 to 1,000), then a reload: a
    // fresh mount reads the history as the page does.
    let mut document = stored_history().expect("the history was saved");
    let runs = runs_of(&mut document);
    assert_eq!(runs.len(), 1);
    let first = runs[0].clone();
    runs.clear();
    for index in 1..=1000u32 {
        let mut run = first.clone();
        run["run_index"] = index.into();
        runs.push(run);
    }
    web_sys::window()
        .unwrap()
        .local_storage()
        .unwrap()
        .unwrap()
        .set_item(ttft_web::persist::RUNS_SLOT, &document.to_string())
        .unwrap();
    let config = UrlConfig::from_pairs([("base_url", BASE_URL), ("protocol", "chat")]);
    let scripted: SharedCarrier = Rc::new(carrier.clone());
    let view = mount(move || view! { <WidgetApp config=config carrier=scripted /> });
    view.until_attribute("runs-table", "data-runs", "1000", UI_WAIT_MS)
        .await;
    // The newest 100 rows, and a note for the rest.
    let rows = view.find_all("run-row");
    assert_eq!(rows.len(), 100);
    assert_eq!(rows[0].get_attribute("data-run").as_deref(), Some("901"));
    assert_eq!(rows[99].get_attribute("data-run").as_deref(), Some("1000"));
    assert!(
        view.text("rows-hidden").contains("900"),
        "{}",
        view.text("rows-hidden")
    );
    assert_eq!(
        cell(&view, 100, "ttfa_ms"),
        "120.0",
        "the stored numbers, as measured"
    );
    // Show all: every row; and back.
    assert!(
        view.text("show-all-runs").contains("1000"),
        "{}",
        view.text("show-all-runs")
    );
    view.click("show-all-runs");
    ttft_web::testing::frames(1).await;
    assert_eq!(view.find_all("run-row").len(), 1000);
    assert!(view.find("rows-hidden").is_none());
    view.click("show-all-runs");
    ttft_web::testing::frames(1).await;
    assert_eq!(view.find_all("run-row").len(), 100);
    // More columns: the rare columns are shown by a class on the table.
    assert!(!view.get("runs-table").class_list().contains("more"));
    view.type_into("more-columns", "on");
    ttft_web::testing::frames(1).await;
    assert!(view.get("runs-table").class_list().contains("more"));
    // Clear asks first: one click changes the button, the second clears table and history.
    let clear_label = view.text("clear-runs");
    view.click("clear-runs");
    ttft_web::testing::frames(1).await;
    assert_ne!(
        view.text("clear-runs"),
        clear_label,
        "the button asks to confirm"
    );
    assert_eq!(view.find_all("run-row").len(), 100, "nothing cleared yet");
    view.click("clear-runs");
    ttft_web::testing::frames(1).await;
    assert!(view.find("runs-table").is_none(), "the table is gone");
    let stored = stored_history().map_or(0, |mut document| runs_of(&mut document).len());
    assert_eq!(stored, 0, "the history is cleared too");
}

/// The answer pane's top, in page pixels.
fn answer_top(view: &Mounted) -> f64 {
    let scroll_y = web_sys::window().unwrap().scroll_y().unwrap_or_default();
    view.get("answer").get_bounding_client_rect().top() + scroll_y
}

/// The page's own stylesheet in the test page, as index.html links it: layout tests see the
/// page's layout.
fn with_page_style() {
    let document = web_sys::window().unwrap().document().unwrap();
    if document.get_element_by_id("page-style").is_some() {
        return;
    }
    let style = document.create_element("style").unwrap();
    style.set_id("page-style");
    style.set_text_content(Some(include_str!("../www/style.css")));
    document.head().unwrap().append_child(&style).unwrap();
}

#[wasm_bindgen_test]
async fn the_answer_pane_stays_where_the_first_token_appears_across_a_series() {
    // Three runs of a reasoning model: the first ends well, the second fails (a diagnosis
    // is shown), the third ends well; each run's end shows where its wait went.
    let failing = json_error(
        500,
        r#"{"error":{"message":"The server had an error processing your request.","type":"server_error"}}"#,
    );
    with_page_style();
    let carrier = ScriptedCarrier::new([reasoning_script(), reasoning_script()]);
    let view = chat_widget("deep-thinker", &carrier);
    view.until_attribute("status", "data-state", "ready", UI_WAIT_MS)
        .await;
    view.type_into("run-count", "2");
    view.click("send");
    // Run 1's first answer token is on screen: the place every later run must keep.
    view.until_text("answer", |text| text.starts_with("Hello"), RUN_END_MS)
        .await;
    let first_top = answer_top(&view);
    let mut tops = Vec::new();
    for _ in 0..2 {
        // Sample through the run's end and the next run's start.
        let started_ms = ttft_web::clock::now_ms();
        while ttft_web::clock::now_ms() - started_ms < 900.0 {
            tops.push(answer_top(&view));
            ttft_web::testing::frames(1).await;
        }
    }
    wait_for_rows(&view, 2).await;
    assert!(view.find("wait").is_some(), "the run's wait is shown");
    tops.push(answer_top(&view));
    // A failed run next, then a good one: the diagnosis comes and goes below the pane.
    carrier.then([failing, reasoning_script()]);
    view.type_into("run-count", "1");
    send_and_wait(&view).await;
    assert!(view.find("diagnosis").is_some());
    tops.push(answer_top(&view));
    view.click("send");
    view.until_text("answer", |text| text.starts_with("Hello"), RUN_END_MS)
        .await;
    tops.push(answer_top(&view));
    wait_for_rows(&view, 4).await;
    tops.push(answer_top(&view));
    let moved: Vec<f64> = tops
        .iter()
        .copied()
        .filter(|top| (top - first_top).abs() > 0.5)
        .collect();
    assert!(
        moved.is_empty(),
        "the answer pane's top stays at {first_top} px; seen at {moved:?} ({} samples)",
        tops.len()
    );
}

/// Every 8-character window of `key`: a place that holds any of them holds a piece of it.
fn key_windows(key: &str) -> Vec<&str> {
    (0..=key.len() - 8)
        .map(|start| &key[start..start + 8])
        .collect()
}

#[wasm_bindgen_test]
async fn the_key_is_sent_and_lives_in_session_storage_only() {
    let key = "sk-e2e-secret-0123456789abcdef";
    let carrier = ScriptedCarrier::new([answer_script(20.0, "Hi")]);
    let view = chat_widget("m", &carrier);
    view.type_into("api-key", key);
    view.type_into("run-count", "2");
    send_and_wait(&view).await;
    wait_for_rows(&view, 2).await;
    // Sent with both runs, as the protocol's header.
    let sent = carrier.sent();
    assert_eq!(sent.len(), 2);
    for request in &sent {
        assert!(
            request
                .headers
                .iter()
                .any(|(name, value)| name.eq_ignore_ascii_case("authorization")
                    && value == &format!("Bearer {key}")),
            "{:?}",
            request.headers
        );
    }
    let window = web_sys::window().unwrap();
    let storage_text = |storage: web_sys::Storage| {
        (0..storage.length().unwrap())
            .filter_map(|index| storage.key(index).unwrap())
            .map(|name| {
                format!(
                    "{name}={}",
                    storage.get_item(&name).unwrap().unwrap_or_default()
                )
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    let session = storage_text(window.session_storage().unwrap().unwrap());
    assert!(session.contains(key), "sessionStorage holds the key");
    let document = window.document().unwrap();
    let cookies = js_sys::Reflect::get(&document, &"cookie".into())
        .unwrap()
        .as_string()
        .unwrap_or_default();
    // The page's markup without the key field's own value (an input's value is not markup).
    let markup = document.document_element().unwrap().outer_html();
    let places = [
        (
            "localStorage",
            storage_text(window.local_storage().unwrap().unwrap()),
        ),
        ("cookies", cookies),
        ("the address", window.location().href().unwrap()),
        ("the page's text", view.root.inner_text()),
        ("the page's markup", markup),
    ];
    for (place, text) in &places {
        for piece in key_windows(key) {
            assert!(!text.contains(piece), "{piece:?} of the key is in {place}");
        }
    }
    let note = view.text("key-note");
    assert!(
        note.contains('…') && note.contains("cdef"),
        "the key is shown masked: {note}"
    );
    view.click("forget-key");
    ttft_web::testing::frames(1).await;
    let session = storage_text(window.session_storage().unwrap().unwrap());
    assert!(!session.contains(key), "Forget key clears it: {session}");
    assert_eq!(view.value("api-key"), "");
}

#[wasm_bindgen_test]
async fn ttft_only_stops_each_run_at_its_first_answer_token() {
    // 200 answer tokens 50 ms apart would take 10 s; TTFT-only ends at the first (100 ms).
    let tokens: Vec<(f64, String)> = (0..200)
        .map(|index| {
            (
                100.0 + 50.0 * f64::from(index),
                content(&format!("w{index} ")),
            )
        })
        .collect();
    let mut reads: Vec<(f64, &str)> = vec![(5.0, "")];
    let role_event = role();
    reads[0] = (6.0, role_event.as_str());
    reads.extend(tokens.iter().map(|(at_ms, text)| (*at_ms, text.as_str())));
    let script = Script::event_stream(5.0, &reads, 10_200.0);
    let carrier = ScriptedCarrier::new([script]);
    let view = chat_widget("m", &carrier);
    view.type_into("ttft-only", "on");
    view.type_into("run-count", "2");
    let started_ms = ttft_web::clock::now_ms();
    send_and_wait(&view).await;
    wait_for_rows(&view, 2).await;
    let took_ms = ttft_web::clock::now_ms() - started_ms;
    assert!(
        took_ms < 5_000.0,
        "both runs ended at their first token: {took_ms} ms"
    );
    for number in [1, 2] {
        let row = &view.find_all("run-row")[number - 1];
        assert_eq!(row.get_attribute("data-outcome").as_deref(), Some("ok"));
        let outcome = row
            .query_selector("[data-testid=run-outcome]")
            .unwrap()
            .unwrap()
            .text_content()
            .unwrap_or_default();
        assert!(outcome.contains("TTFT only"), "{outcome}");
        assert_eq!(cell(&view, number, "ttfa_ms"), "100.0");
        assert_eq!(
            cell(&view, number, "e2e_ms"),
            "—",
            "an aborted stream has no end"
        );
    }
    let answer = view.text("answer");
    assert!(
        answer.len() < 40,
        "only the first tokens were shown: {answer:?}"
    );
}

#[wasm_bindgen_test]
async fn a_long_answer_is_laid_out_in_blocks_that_read_as_one_text() {
    with_page_style();
    // About 19 KB in paragraphs of 50 tokens, in 200 reads.
    let mut answer = String::new();
    let mut events = String::new();
    for index in 0..4000 {
        let token = if index > 0 && index % 50 == 0 {
            format!("\n\nt{index}")
        } else {
            format!(" t{index}")
        };
        answer.push_str(&token);
        events.push_str(&content(&token));
    }
    events.push_str(&finish());
    let pieces: Vec<String> = events
        .as_bytes()
        .chunks(events.len() / 200 + 1)
        .map(|piece| String::from_utf8(piece.to_vec()).unwrap())
        .collect();
    let role_event = role();
    let mut reads: Vec<(f64, &str)> = vec![(6.0, role_event.as_str())];
    reads.extend(
        pieces
            .iter()
            .enumerate()
            .map(|(index, piece)| (10.0 + index as f64, piece.as_str())),
    );
    let carrier = ScriptedCarrier::new([Script::event_stream(5.0, &reads, 300.0)]);
    let view = chat_widget("m", &carrier);
    send_and_wait(&view).await;
    // The pane draws a frame's share at a time: wait until it holds everything.
    view.until_text(
        "answer",
        |text| text.len() >= answer.trim().len(),
        RUN_END_MS,
    )
    .await;
    let pane = view.get("answer");
    assert_eq!(
        pane.text_content().unwrap_or_default(),
        answer,
        "the pane holds the answer, character for character"
    );
    let blocks = pane.query_selector_all(".chunk").unwrap().length();
    assert!(blocks >= 3, "{blocks} blocks of about 4 KB");
    // The same text as one text node in an identical pane lays out to the same height.
    let document = web_sys::window().unwrap().document().unwrap();
    let single = document.create_element("pre").unwrap();
    single.set_class_name("pane");
    single.set_text_content(Some(&answer));
    pane.after_with_node_1(&single).unwrap();
    let (height, single_height) = (pane.scroll_height(), single.scroll_height());
    single.remove();
    assert_eq!(
        height, single_height,
        "blocks start at line breaks: one text's layout"
    );
}

#[wasm_bindgen_test]
fn every_widget_text_has_its_chinese_column() {
    // The widget loads its Chinese on demand (zh.json), but its catalogue holds both columns.
    let missing = ttft_core::text::untranslated(ttft_widget::texts::ALL, &[]);
    assert!(
        missing.is_empty(),
        "{} texts:\n{}",
        missing.len(),
        missing.join("\n")
    );
    assert!(!ttft_widget::texts::ALL.is_empty());
}
