//! Issue 6's "ship it" checks that need no engine's network, timing or layout, moved here from
//! e2e/ship.test.mjs by issue 31 (docs/e2e-inventory.md SH1, SH4, SH5, SH11, SH14): the
//! widget ([`WidgetApp`]) mounted in headless Chromium with its runs played by a
//! [`ScriptedCarrier`]. The messages to a host page are read from a stand-in for
//! `window.parent` (ttft_web::testing::support): what the widget posts, to which origin.
//! The real frame, the engine's referrer and the request log stay end to end.
#![cfg(target_arch = "wasm32")]
// clippy's allow-unwrap-in-tests does not see #[wasm_bindgen_test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use ttft_web::testing::support as shipfleet;
use ttft_web::testing::UI_WAIT_MS;

use std::rc::Rc;

use leptos::prelude::*;
use shipfleet::{
    address, answer_script, assert_no_key, local_storage, send_and_wait, session_storage,
    set_address, storage_text, stored_runs, wait_for, HostFrame,
};
use ttft_core::config::UrlConfig;
use ttft_web::testing::{clear_storage, frames, mount, Mounted};
use ttft_web::transport::scripted::{Script, ScriptedCarrier};
use ttft_web::transport::SharedCarrier;
use ttft_widget::WidgetApp;
use wasm_bindgen_test::*;

/// Where the widget's form points: nothing listens there (the carrier plays the script).
const BASE_URL: &str = "http://127.0.0.1:9/v1";

/// The host page's origin the widget is told to post to.
const HOST_ORIGIN: &str = "http://127.0.0.1:8123";

/// A key that must never show up in messages, storage or the address.
const TYPED_KEY: &str = "sk-test-QWERTYZXCVB";

/// The widget mounted with `config`, its runs played by `carrier`; storage as it is.
fn widget_with(config: UrlConfig, carrier: &ScriptedCarrier) -> Mounted {
    let carrier: SharedCarrier = Rc::new(carrier.clone());
    mount(move || view! { <WidgetApp config=config carrier=carrier /> })
}

/// The widget on a first visit (nothing stored), with `query` as its address's parameters.
fn widget(query: &[(&str, &str)], carrier: &ScriptedCarrier) -> Mounted {
    clear_storage();
    widget_with(UrlConfig::from_pairs(query.iter().copied()), carrier)
}

#[wasm_bindgen_test]
async fn embedded_the_widget_posts_each_run_and_the_summary_to_its_host_without_the_key() {
    let host = HostFrame::install();
    let carrier = ScriptedCarrier::new([answer_script(200.0), answer_script(210.0)]);
    let view = widget(
        &[
            ("base_url", BASE_URL),
            ("protocol", "chat"),
            ("model", "sim-fast@prefill_ms=200"),
            ("runs", "2"),
            ("compact", "1"),
            ("target_origin", HOST_ORIGIN),
            ("source", "example-widget"),
        ],
        &carrier,
    );
    assert!(
        view.get("app").class_list().contains("compact"),
        "the compact layout"
    );
    view.type_into("api-key", TYPED_KEY);
    send_and_wait(&view).await;
    shipfleet::wait_for_rows(&view, 2).await;
    shipfleet::wait_until(
        "the summary message",
        || match host.types().last().map(String::as_str) {
            Some("ttft-meter.summary") => Ok(()),
            _ => Err(format!("{:?}", host.types())),
        },
        5_000.0,
    )
    .await;
    let messages = host.messages();
    assert_eq!(
        host.types(),
        [
            "ttft-meter.ready",
            "ttft-meter.run",
            "ttft-meter.run",
            "ttft-meter.summary"
        ]
    );
    for message in &messages {
        assert_eq!(
            message["origin"], HOST_ORIGIN,
            "posted to the host's origin only"
        );
        assert_eq!(message["data"]["version"], 1);
        assert_eq!(message["data"]["source"], "example-widget");
    }
    let runs: Vec<&serde_json::Value> = messages[1..3]
        .iter()
        .map(|message| &message["data"]["run"])
        .collect();
    for (index, run) in runs.iter().enumerate() {
        assert_eq!(run["run_index"], index + 1);
        assert_eq!(run["model"], "sim-fast@prefill_ms=200");
        assert_eq!(run["outcome"], "completed");
        assert_eq!(run["ok"], true);
        assert_eq!(run["protocol"], "chat");
        assert_eq!(run["endpoint_url"], format!("{BASE_URL}/chat/completions"));
    }
    // The scripts' instants, exactly (the carrier stamps each arrival).
    assert_eq!(runs[0]["metrics"]["ttfa_ms"], 200.0);
    assert_eq!(runs[1]["metrics"]["ttfa_ms"], 210.0);
    let summary = &messages[3]["data"]["summary"];
    assert_eq!(summary["total_runs"], 2);
    assert_eq!(summary["stats"]["ttfa_ms"]["count"], 2);
    assert_eq!(summary["stats"]["ttfa_ms"]["min"], 200.0);
    assert_eq!(summary["stats"]["ttfa_ms"]["max"], 210.0);
    // The key was sent with the runs, and is in no message: no piece, no mask, no header.
    assert!(carrier.sent().iter().all(|request| request
        .headers
        .iter()
        .any(|(name, _)| name.eq_ignore_ascii_case("authorization"))));
    let text = serde_json::to_string(&messages).unwrap();
    assert_no_key(TYPED_KEY, &text, "the messages");
    for piece in ["QWERTY", "ZXCVB", "sk-test", "…", "headers", "uthorization"] {
        assert!(!text.contains(piece), "the messages hold {piece:?}: {text}");
    }
    drop(view);
    drop(host);

    // No origin to trust (no target_origin, no referrer in this page): nothing is posted.
    let host = HostFrame::install();
    let carrier = ScriptedCarrier::new([answer_script(50.0)]);
    let view = widget(
        &[("base_url", BASE_URL), ("protocol", "chat"), ("model", "m")],
        &carrier,
    );
    send_and_wait(&view).await;
    frames(2).await;
    assert!(host.messages().is_empty(), "{:?}", host.messages());
}

#[wasm_bindgen_test]
async fn a_preset_parameter_applies_the_preset() {
    let view = widget(&[("preset", "ollama")], &ScriptedCarrier::default());
    frames(1).await;
    assert_eq!(view.value("base-url"), "http://localhost:11434/v1");
}

#[wasm_bindgen_test]
async fn the_language_switch_names_each_language_in_itself_before_the_chinese_texts_are_loaded() {
    // The widget loads its Chinese column on demand; nothing loaded it in this test build.
    assert!(ttft_core::text::needs_loading(ttft_core::lang::Lang::Zh));
    let view = widget(&[("lang", "en")], &ScriptedCarrier::default());
    frames(1).await;
    assert_eq!(view.text("lang-en"), "English");
    assert_eq!(view.text("lang-zh"), "中文");
}

#[wasm_bindgen_test]
async fn a_key_in_the_address_is_refused_explained_removed_and_never_kept() {
    clear_storage();
    let original = address();
    let path = web_sys::window().unwrap().location().pathname().unwrap();
    let base = "http%3A%2F%2F127.0.0.1%3A9%2Fv1";
    set_address(&format!(
        "{path}?base_url={base}&model=sim-fast%40prefill_ms%3D50&api_key={TYPED_KEY}&token={TYPED_KEY}&lang=en"
    ));
    // What the page's start does first: read the address, and take the key out of it.
    let config = ttft_web::embed::read_page_config();
    let search = web_sys::window().unwrap().location().search().unwrap();
    assert_eq!(
        search,
        format!("?base_url={base}&model=sim-fast%40prefill_ms%3D50&lang=en")
    );
    let carrier = ScriptedCarrier::new([answer_script(50.0)]);
    let view = widget_with(config, &carrier);
    let notice = view.text("key-refused");
    assert!(notice.contains("api_key, token"), "{notice}");
    assert!(notice.contains("ignored and removed"), "{notice}");
    assert_eq!(view.value("api-key"), "");
    // A run still works with the other parameters, and sends no key.
    send_and_wait(&view).await;
    let sent = carrier.sent();
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0].url, "http://127.0.0.1:9/v1/chat/completions");
    assert!(
        sent[0]
            .headers
            .iter()
            .all(|(name, _)| !name.eq_ignore_ascii_case("authorization")),
        "{:?}",
        sent[0].headers
    );
    assert!(
        !format!("{:?}{:?}", sent[0].url, sent[0].body).contains("QWERTY"),
        "the request holds no key"
    );
    let runs = stored_runs();
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0]["settings"]["request"]["key_sent"], false);
    let kept = format!(
        "{}\n{}\n{}",
        storage_text(&local_storage()),
        storage_text(&session_storage()),
        web_sys::window().unwrap().location().href().unwrap()
    );
    assert_no_key(TYPED_KEY, &kept, "storage or the address");
    drop(view);
    // A reload: the address no longer holds it, so nothing is refused.
    let config = ttft_web::embed::read_page_config();
    assert!(config.refused_keys.is_empty());
    let view = widget_with(config, &carrier);
    frames(1).await;
    assert!(view.find("key-refused").is_none());
    drop(view);
    set_address(&original);
}

#[wasm_bindgen_test]
async fn with_no_simulator_the_page_asks_for_an_endpoint_and_a_file_server_is_not_an_llm_api() {
    // The test page's own origin is a static file server, not ttft-sim: its /__sim/info is a
    // 404, so the form starts empty and the page says what to do.
    let carrier = ScriptedCarrier::default();
    let view = widget(&[("lang", "en")], &carrier);
    wait_for(&view, "[data-testid=choose-endpoint]", UI_WAIT_MS).await;
    assert_eq!(view.value("base-url"), "");
    assert_eq!(view.value("model"), "");
    view.click("send");
    wait_for(&view, "[data-testid=input-error]", UI_WAIT_MS).await;
    assert_eq!(
        view.attribute("input-error", "data-field").as_deref(),
        Some("base_url")
    );
    assert!(view.find_all("run-row").is_empty());
    assert!(carrier.sent().is_empty(), "nothing was sent");
    // A file server as the endpoint (python3 -m http.server's answer to a POST).
    carrier.then([Script::answer(
        501,
        "text/html;charset=utf-8",
        "<!DOCTYPE HTML><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Error response</title></head>\
         <body><h1>Error response</h1><p>Error code: 501</p><p>Message: Unsupported method ('POST').</p>\
         <p>Error code explanation: 501 - Server does not support this operation.</p></body></html>\n",
        3.0,
    )]);
    view.type_into("base-url", BASE_URL);
    view.type_into("model", "any");
    send_and_wait(&view).await;
    assert_eq!(
        view.attribute("diagnosis", "data-cause").as_deref(),
        Some("not_an_api")
    );
    assert!(
        view.text("diagnosis").contains("not an LLM API"),
        "{}",
        view.text("diagnosis")
    );
}
