//! Issue 15's fleet measurement in the lab's components, moved here from e2e/fleet.test.mjs
//! by issue 31 (docs/e2e-inventory.md F1, F3-F9): [`LabApp`] mounted in headless Chromium
//! (wasm-bindgen-test) with its runs played by a [`ScriptedCarrier`]. What the page hands to
//! the browser is read from stand-ins (ttft_web::testing::support): the messages to a host
//! frame (`window.parent`), the clipboard, and the collector (`fetch` to its origin answered
//! in the page). The trace-context check goes around the carrier, to the live ttft-sim whose
//! URL the test command sets at compile time in `TTFT_SIM_URL` (scripts/test.sh).
//!
//! What stays end to end: the real collector on another origin under CORS (and its refusal),
//! traceparent through a real preflight and a server that refuses it, probe mode on load in a
//! real frame, the 360 px layout.
#![cfg(target_arch = "wasm32")]
// clippy's allow-unwrap-in-tests does not see #[wasm_bindgen_test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use ttft_web::testing::support as shipfleet;
use ttft_web::testing::UI_WAIT_MS;

use std::rc::Rc;

use leptos::prelude::*;
use shipfleet::{
    address, answer_script, assert_no_key, js, local_storage, send_and_wait, session_storage,
    set_address, stored_history_text, stored_runs, texts_of, wait_for, wait_for_rows, wait_until,
    with_page_style, Clipboard, Collector, HostFrame, COLLECTOR, RUN_END_MS,
};
use ttft_core::config::UrlConfig;
use ttft_lab_page::page::LabApp;
use ttft_web::testing::{clear_storage, frames, mount, Mounted};
use ttft_web::transport::scripted::{Script, ScriptedCarrier};
use ttft_web::transport::SharedCarrier;
use wasm_bindgen::JsValue;
use wasm_bindgen_test::*;

/// Where the lab's form points: nothing listens there (the carrier plays the runs).
const BASE_URL: &str = "http://127.0.0.1:9/v1";

/// The host page's origin the lab is told to post to.
const HOST_ORIGIN: &str = "http://127.0.0.1:8123";

/// A key that must never reach the collector, in any piece.
const TYPED_KEY: &str = "sk-fleet-QWERTYZXCVB-7f3k";

/// The ttft-sim the test command started (compile-time, since tests run in the browser).
#[allow(clippy::option_env_unwrap)]
fn sim_url() -> &'static str {
    option_env!("TTFT_SIM_URL")
        .expect("TTFT_SIM_URL names a running ttft-sim; run the tests through scripts/test.sh")
}

/// The lab mounted with `query` as its address's parameters; storage as it is.
fn lab_with(query: &[(&str, &str)], carrier: &ScriptedCarrier) -> Mounted {
    let config = UrlConfig::from_pairs(query.iter().copied());
    let carrier: SharedCarrier = Rc::new(carrier.clone());
    mount(move || view! { <LabApp config=config carrier=carrier /> })
}

/// The lab on a first visit, aimed at [`BASE_URL`] in English, with `extra` parameters.
fn lab(extra: &[(&str, &str)], carrier: &ScriptedCarrier) -> Mounted {
    clear_storage();
    let mut query = vec![
        ("base_url", BASE_URL),
        ("protocol", "chat"),
        ("model", "sim-fast@prefill_ms=200"),
        ("lang", "en"),
    ];
    for (name, value) in extra {
        query.retain(|(kept, _)| kept != name);
        query.push((name, value));
    }
    lab_with(&query, carrier)
}

/// A W3C traceparent (`00-<trace id>-<span id>-01`).
fn is_traceparent(value: &str) -> bool {
    let parts: Vec<&str> = value.split('-').collect();
    let hex = |part: &str, length: usize| {
        part.len() == length
            && part
                .chars()
                .all(|character| matches!(character, '0'..='9' | 'a'..='f'))
    };
    parts.len() == 4
        && parts[0] == "00"
        && hex(parts[1], 32)
        && hex(parts[2], 16)
        && parts[3] == "01"
}

fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(kept, _)| kept.eq_ignore_ascii_case(name))
        .map(|(_, value)| value.as_str())
}

/// The header `name` a stored record says its request carried.
fn recorded_header(record: &serde_json::Value, name: &str) -> Option<String> {
    record["settings"]["request"]["headers"]
        .as_array()?
        .iter()
        .find(|pair| pair[0] == name)
        .and_then(|pair| pair[1].as_str().map(str::to_owned))
}

/// Waits for the OTLP status line in `state`; its text.
async fn otlp_status(view: &Mounted, state: &str, timeout_ms: f64) -> String {
    let selector = format!("[data-testid=otlp-status][data-state={state}]");
    wait_for(view, &selector, timeout_ms).await;
    view.text_of(&selector)
}

#[wasm_bindgen_test]
async fn a_series_is_exported_with_the_traceparent_its_requests_carried_and_never_the_key() {
    let collector = Collector::install(200);
    let carrier = ScriptedCarrier::new([answer_script(200.0), answer_script(201.0)]);
    let view = lab(
        &[
            ("runs", "2"),
            ("otlp_endpoint", COLLECTOR),
            ("traceparent", "1"),
        ],
        &carrier,
    );
    view.type_into("api-key", TYPED_KEY);
    send_and_wait(&view).await;
    wait_for_rows(&view, 2).await;
    // Sent between runs only: after the series, a quiet moment, then metrics and traces.
    wait_for(
        &view,
        "[data-testid=otlp-status][data-state=ok][data-sent-runs=\"2\"]",
        10_000.0,
    )
    .await;
    assert!(
        view.text("otlp-status").contains("2 runs sent"),
        "{}",
        view.text("otlp-status")
    );
    // Each model request carried a traceparent, and its record shows it.
    let sent = carrier.sent();
    assert_eq!(sent.len(), 2);
    let records = stored_runs();
    assert_eq!(records.len(), 2);
    let mut span_ids = Vec::new();
    for (request, record) in sent.iter().zip(&records) {
        let traceparent = header(&request.headers, "traceparent").expect("a traceparent");
        assert!(is_traceparent(traceparent), "{traceparent}");
        assert_eq!(
            recorded_header(record, "traceparent").as_deref(),
            Some(traceparent)
        );
        span_ids.push(traceparent.split('-').nth(2).unwrap().to_owned());
    }
    // The collector got metrics and traces: JSON, the spans with the requests' ids, and
    // never the key, the endpoint's path or a header with a key.
    let collected = collector.requests();
    let urls: Vec<&str> = collected
        .iter()
        .map(|request| request["url"].as_str().unwrap())
        .collect();
    assert!(
        urls.contains(&format!("{COLLECTOR}/v1/metrics").as_str()),
        "{urls:?}"
    );
    assert!(
        urls.contains(&format!("{COLLECTOR}/v1/traces").as_str()),
        "{urls:?}"
    );
    let everything = serde_json::to_string(&collected).unwrap();
    for id in &span_ids {
        assert!(
            everything.contains(id.as_str()),
            "a span has the request's span id {id}"
        );
    }
    assert_no_key(TYPED_KEY, &everything, "the collector's requests");
    assert!(
        !everything.contains("/v1/chat/completions"),
        "never the endpoint path"
    );
    assert!(
        !everything.contains("gen_ai.input.messages"),
        "no prompt without the opt-in"
    );
    for request in &collected {
        assert!(request["headers"]["authorization"].is_null());
        assert_eq!(request["headers"]["content-type"], "application/json");
        let _: serde_json::Value = serde_json::from_str(request["body"].as_str().unwrap()).unwrap();
    }
    drop(view);
    drop(collector);
}

#[wasm_bindgen_test]
async fn a_refusing_or_unreachable_collector_is_reported_in_both_languages_and_the_runs_succeed() {
    let collector = Collector::install(500);
    let carrier = ScriptedCarrier::new([answer_script(50.0)]);
    let view = lab(&[("otlp_endpoint", COLLECTOR)], &carrier);
    send_and_wait(&view).await;
    let text = otlp_status(&view, "refused", 10_000.0).await;
    assert!(text.contains("refused the export (HTTP 500)"), "{text}");
    assert!(text.contains("The measurements are kept."), "{text}");
    view.click("lang-zh");
    frames(1).await;
    let text = view.text("otlp-status");
    assert!(text.contains("拒绝了导出（HTTP 500）"), "{text}");
    view.click("lang-en");
    // The collector unreachable (as when it does not allow this origin): the advice names
    // the page's origin for its CORS setting.
    collector.answer(0);
    send_and_wait(&view).await;
    let text = otlp_status(&view, "unreachable", 10_000.0).await;
    let origin = web_sys::window().unwrap().location().origin().unwrap();
    assert!(
        text.contains(&format!(
            "list {origin} in protocols.http.cors.allowed_origins"
        )),
        "{text}"
    );
    assert!(text.contains("The measurements are kept"), "{text}");
    assert_eq!(
        texts_of(&view, "[data-testid=run-row][data-outcome=ok]").len(),
        2,
        "both runs succeeded"
    );
    let outcomes: Vec<serde_json::Value> = stored_runs()
        .iter()
        .map(|run| run["outcome"]["kind"].clone())
        .collect();
    assert_eq!(outcomes, ["completed", "completed"]);
    view.click("lang-zh");
    frames(1).await;
    assert!(view.text("otlp-status").contains("cors.allowed_origins"));
    drop(view);
    drop(collector);
}

#[wasm_bindgen_test]
async fn the_model_key_is_refused_as_a_collector_header_with_the_reason_shown() {
    let view = lab(&[], &ScriptedCarrier::default());
    view.type_into("api-key", TYPED_KEY);
    view.type_into("otlp-endpoint", "http://127.0.0.1:4318");
    view.type_into("otlp-headers", &format!("authorization=Bearer {TYPED_KEY}"));
    view.click("otlp-apply");
    let text = otlp_status(&view, "refused_settings", UI_WAIT_MS).await;
    assert!(text.contains("contains the model's API key"), "{text}");
    assert!(
        !text.contains("QWERTY"),
        "the refusal does not repeat the key: {text}"
    );
}

#[wasm_bindgen_test]
async fn trace_context_refused_is_diagnosed_and_stops_the_series_and_without_it_the_run_goes() {
    // The model request fails as a CORS refusal does; the check (the same request without
    // the header) goes to the live sim, which answers it.
    let base_url = format!("{}/v1", sim_url());
    let carrier = ScriptedCarrier::new([
        Script::network_error("Failed to fetch", 3.0),
        answer_script(50.0),
    ]);
    let view = lab(
        &[
            ("base_url", &base_url),
            ("model", "sim-fast@prefill_ms=50"),
            ("runs", "3"),
            ("traceparent", "1"),
        ],
        &carrier,
    );
    let checkbox: web_sys::HtmlInputElement =
        wasm_bindgen::JsCast::unchecked_into(view.get("traceparent"));
    assert!(checkbox.checked(), "checked from ?traceparent=1");
    send_and_wait(&view).await;
    let selector =
        "[data-testid=run-detail] [data-testid=diagnosis][data-cause=trace_context_refused]";
    wait_for(&view, selector, 10_000.0).await;
    let text = view.text_of(selector);
    assert!(
        text.contains("refuses the traceparent header in CORS"),
        "{text}"
    );
    assert!(
        text.to_lowercase().contains("turn off trace context"),
        "{text}"
    );
    let records = stored_runs();
    assert_eq!(
        records.len(),
        1,
        "repeating cannot succeed: the series stopped after run 1"
    );
    assert_eq!(records[0]["diagnosis_cause"], "trace_context_refused");
    assert_eq!(carrier.sent().len(), 1);
    assert!(header(&carrier.sent()[0].headers, "traceparent").is_some());
    view.click("lang-zh");
    frames(1).await;
    assert!(view.text_of(selector).contains("traceparent"));
    view.click("lang-en");
    // Trace context off: the next run goes, without the header.
    view.type_into("traceparent", "off");
    view.type_into("run-count", "1");
    send_and_wait(&view).await;
    let records = stored_runs();
    assert_eq!(records.len(), 2);
    assert_eq!(records[1]["outcome"]["kind"], "completed");
    assert_eq!(recorded_header(&records[1], "traceparent"), None);
    let sent = carrier.sent();
    assert_eq!(sent.len(), 2);
    assert!(
        header(&sent[1].headers, "traceparent").is_none(),
        "{:?}",
        sent[1].headers
    );
}

#[wasm_bindgen_test]
async fn probe_mode_runs_on_load_reports_to_the_host_and_runs_once_per_tab() {
    let host = HostFrame::install();
    let carrier = ScriptedCarrier::new([
        answer_script(100.0),
        answer_script(101.0),
        answer_script(102.0),
    ]);
    let query = [
        ("probe", "3"),
        ("model", "sim-fast@prefill_ms=100"),
        ("target_origin", HOST_ORIGIN),
    ];
    let view = lab(&query, &carrier);
    wait_for(
        &view,
        "[data-testid=probe-notice][data-state=running]",
        5_000.0,
    )
    .await;
    assert!(view.text("probe-notice").contains("3 short requests"));
    wait_for(
        &view,
        "[data-testid=probe-notice][data-state=done]",
        RUN_END_MS,
    )
    .await;
    assert!(view.text("probe-notice").contains("finished its 3 runs"));
    assert_eq!(
        session_storage()
            .get_item("ttft-meter.probe.ran")
            .unwrap()
            .as_deref(),
        Some("1")
    );
    wait_until(
        "the summary message",
        || match host.types().last().map(String::as_str) {
            Some("ttft-meter.summary") => Ok(()),
            _ => Err(format!("{:?}", host.types())),
        },
        5_000.0,
    )
    .await;
    assert_eq!(
        host.types(),
        [
            "ttft-meter.ready",
            "ttft-meter.run",
            "ttft-meter.run",
            "ttft-meter.run",
            "ttft-meter.summary"
        ]
    );
    let messages = host.messages();
    for (index, message) in messages[1..4].iter().enumerate() {
        let run = &message["data"]["run"];
        assert_eq!(run["outcome"], "completed");
        // No click started them: perceived times are measured from the request.
        assert_eq!(run["metrics"]["perceived_from"], "request_started");
        assert_eq!(run["metrics"]["ttfa_ms"], 100.0 + index as f64);
        assert!(run["timer"]["cross_origin_isolated"].is_boolean());
        let step = run["timer"]["step_ms"].as_f64().unwrap();
        assert!(step > 0.0 && step <= 1.01, "the timer step {step} ms");
        let verdict = run["wait_verdict"].as_str().unwrap_or_default();
        assert!(
            ["server", "page"].contains(&verdict),
            "run {}: {verdict}",
            index + 1
        );
    }
    let summary = &messages[4]["data"]["summary"];
    assert_eq!(summary["wait"]["runs"], 3, "{summary}");
    let server = summary["wait"]["p50_ms"]["server"]
        .as_f64()
        .unwrap_or_default();
    assert!(
        server >= 99.0,
        "the server part's p50 {server} ms: {summary}"
    );
    assert!(
        ["server", "page"].contains(&summary["wait"]["verdict"].as_str().unwrap_or_default()),
        "{summary}"
    );
    drop(view);
    drop(host);

    // A reload in the same tab: probe mode does not run again.
    let host = HostFrame::install();
    let view = lab_with(
        &[
            ("base_url", BASE_URL),
            ("protocol", "chat"),
            ("lang", "en"),
            ("probe", "3"),
            ("model", "sim-fast@prefill_ms=100"),
            ("target_origin", HOST_ORIGIN),
        ],
        &carrier,
    );
    wait_for(
        &view,
        "[data-testid=probe-notice][data-state=refused]",
        5_000.0,
    )
    .await;
    assert!(view
        .text("probe-notice")
        .contains("already ran in this tab"));
    ttft_web::clock::sleep_ms(500.0).await;
    assert_eq!(carrier.sent().len(), 3, "nothing more was sent");
    assert_eq!(host.types(), ["ttft-meter.ready"]);
    drop(view);
    drop(host);
    clear_storage();
}

#[wasm_bindgen_test]
async fn probe_mode_is_refused_with_a_key_set_in_the_tab_and_stop_ends_it_early() {
    // A key kept for this tab (typed on an earlier load), then a probe link.
    let carrier = ScriptedCarrier::new([answer_script(50.0)]);
    let view = lab(&[], &carrier);
    view.type_into("api-key", TYPED_KEY);
    frames(1).await;
    drop(view);
    let view = lab_with(
        &[
            ("base_url", BASE_URL),
            ("protocol", "chat"),
            ("lang", "en"),
            ("probe", "2"),
            ("model", "sim-fast@prefill_ms=50"),
        ],
        &carrier,
    );
    wait_for(
        &view,
        "[data-testid=probe-notice][data-state=refused]",
        5_000.0,
    )
    .await;
    assert!(view
        .text("probe-notice")
        .contains("an API key is set in this tab"));
    ttft_web::clock::sleep_ms(1_000.0).await;
    assert!(carrier.sent().is_empty(), "nothing was sent");
    assert!(view.find_all("run-row").is_empty());
    drop(view);

    let slow = ScriptedCarrier::new([answer_script(700.0)]);
    let view = lab(
        &[("probe", "5"), ("model", "sim-fast@prefill_ms=700")],
        &slow,
    );
    wait_for(
        &view,
        "[data-testid=probe-notice][data-state=running]",
        5_000.0,
    )
    .await;
    assert!(view.text("probe-notice").contains("5 short requests"));
    view.click("probe-stop");
    wait_for(
        &view,
        "[data-testid=probe-notice][data-state=stopped]",
        RUN_END_MS,
    )
    .await;
    let stored = stored_runs().len();
    assert!(stored <= 1, "Stop ended probe mode ({stored} runs kept)");
    assert!(slow.sent().len() <= 2, "{} requests", slow.sent().len());
    drop(view);
    clear_storage();
}

#[wasm_bindgen_test]
// One user's path through the feature, step by step, as the end-to-end test it replaces.
#[allow(clippy::too_many_lines)]
async fn slos_mark_runs_count_goodput_show_a_badge_and_go_into_the_summary_message() {
    with_page_style();
    let host = HostFrame::install();
    let carrier = ScriptedCarrier::new([answer_script(100.0), answer_script(2_000.0)]);
    let view = lab(
        &[
            ("slo", "ttfa_ms<=1000"),
            ("model", "sim-fast@prefill_ms=100"),
            ("compact", "1"),
            ("target_origin", HOST_ORIGIN),
        ],
        &carrier,
    );
    send_and_wait(&view).await;
    let slo = summary_number(&host, 1).await["slo"].clone();
    assert_eq!(slo["spec"], "ttfa_ms<=1000");
    assert_eq!(slo["verdict"], "pass");
    assert_eq!(slo["good_run_count"], 1);
    assert_eq!(slo["good_run_fraction"], 1.0);
    assert_eq!(
        view.attribute("slo-badge", "data-verdict").as_deref(),
        Some("pass")
    );
    assert!(view.get("app").class_list().contains("compact"));
    let visible = js(
        "badge",
        "return badge.checkVisibility();",
        &[view.get("slo-badge").into()],
    );
    assert_eq!(
        visible,
        JsValue::TRUE,
        "the badge shows in the compact layout"
    );

    view.type_into("model", "sim-fast@prefill_ms=2000");
    send_and_wait(&view).await;
    let slo = summary_number(&host, 2).await["slo"].clone();
    assert_eq!(slo["verdict"], "fail");
    assert_eq!(slo["counted_runs"], 2);
    assert_eq!(slo["good_run_count"], 1);
    assert_eq!(slo["good_run_fraction"], 0.5);
    assert_eq!(slo["goodput_target"], 1.0);
    let thresholds: Vec<(serde_json::Value, serde_json::Value, serde_json::Value)> = slo
        ["thresholds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|result| {
            (
                result["threshold"]["metric"].clone(),
                result["met_runs"].clone(),
                result["met"].clone(),
            )
        })
        .collect();
    assert_eq!(thresholds, [("ttfa_ms".into(), 1.into(), false.into())]);
    assert!(slo.get("runs").is_none(), "no per-run list in the message");
    assert_eq!(
        view.attribute("slo-badge", "data-verdict").as_deref(),
        Some("fail")
    );
    let marks: Vec<String> = shipfleet::select_all(&view, "[data-testid=run-slo]")
        .iter()
        .map(|mark| mark.get_attribute("data-met").unwrap_or_default())
        .collect();
    assert_eq!(marks, ["true", "false"]);
    assert_eq!(
        view.attribute("slo-goodput", "data-good-runs").as_deref(),
        Some("1")
    );
    assert_eq!(
        view.attribute("slo-goodput", "data-fraction").as_deref(),
        Some("0.5")
    );
    assert!(
        view.text("slo-goodput")
            .contains("good runs 1 of 2 · goodput 50 %"),
        "{}",
        view.text("slo-goodput")
    );
    let ttfa: Vec<f64> = stored_runs()
        .iter()
        .map(|run| run["metrics"]["ttfa_ms"].as_f64().unwrap())
        .collect();
    assert_eq!(ttfa, [100.0, 2_000.0]);

    // A goodput target of 50 % passes; a bad text is refused with the reason.
    view.type_into("slo-input", "ttfa_ms<=1000, goodput>=50%");
    view.click("slo-apply");
    view.until_attribute("slo-badge", "data-verdict", "pass", UI_WAIT_MS)
        .await;
    view.type_into("slo-input", "tffa_ms<=1000");
    view.click("slo-apply");
    wait_for(&view, "[data-testid=slo-error]", UI_WAIT_MS).await;
    assert!(
        view.text("slo-error").contains("`tffa_ms` is not a metric"),
        "{}",
        view.text("slo-error")
    );
    assert_eq!(
        view.attribute("slo-badge", "data-verdict").as_deref(),
        Some("pass"),
        "a refused text leaves the SLOs as they were"
    );
    drop(view);
    drop(host);
}

/// A tenth as the page shows it: `value` rounded, or the shown text off by one in the last
/// digit (a value on a half).
fn assert_tenth(shown: &str, value: f64, what: &str) {
    let number: f64 = shown
        .parse()
        .unwrap_or_else(|_| panic!("{what}: {shown:?}"));
    assert!(
        (number - value).abs() <= 0.051,
        "{what}: shown {shown}, value {value}"
    );
}

#[wasm_bindgen_test]
// One user's path through the feature, step by step, as the end-to-end test it replaces.
#[allow(clippy::too_many_lines)]
async fn a_share_link_opens_read_only_with_the_same_values_and_the_history_untouched() {
    let original = address();
    let clipboard = Clipboard::install();
    let carrier = ScriptedCarrier::new([
        answer_script(80.0),
        answer_script(81.5),
        answer_script(83.25),
    ]);
    let view = lab(&[("model", "sim-fast@prefill_ms=80")], &carrier);
    view.type_into("api-key", TYPED_KEY);
    view.type_into("run-count", "3");
    send_and_wait(&view).await;
    wait_for_rows(&view, 3).await;
    view.click("copy-link");
    view.until_text(
        "share-link-message",
        |text| text.contains("holds all 3 runs"),
        5_000.0,
    )
    .await;
    let link = view.value("share-link");
    assert_eq!(clipboard.copied(), std::slice::from_ref(&link));
    let location = web_sys::window().unwrap().location();
    let page = format!(
        "{}{}",
        location.origin().unwrap(),
        location.pathname().unwrap()
    );
    assert!(link.starts_with(&format!("{page}#share=v1.")), "{link}");
    let fragment = &link[link.find('#').unwrap()..];
    assert!(
        fragment.len() - 1 <= 16 * 1024,
        "at most 16 KiB of fragment"
    );
    assert_no_key(TYPED_KEY, &link, "the link");
    for piece in ["Why%20is", "sky"] {
        assert!(!link.contains(piece), "the link holds {piece}");
    }
    let records = stored_runs();
    let stored_before = stored_history_text();
    let storage_before = shipfleet::storage_text(&local_storage());
    drop(view);

    // A fresh profile opens the link: the shared view, no Send, nothing stored.
    clear_storage();
    set_address(&format!("{}{fragment}", location.pathname().unwrap()));
    let other = lab_with(&[], &ScriptedCarrier::default());
    wait_for(&other, "[data-testid=shared-view]", UI_WAIT_MS).await;
    assert_eq!(
        other.attribute("shared-view", "data-runs").as_deref(),
        Some("3")
    );
    assert!(other
        .text("shared-notice")
        .contains("results someone measured and shared"));
    assert!(other.find("send").is_none(), "read-only: no Send");
    for metric in ["ttfa_ms", "e2e_ms"] {
        let shown = texts_of(
            &other,
            &format!("[data-testid=shared-run] td[data-metric={metric}]"),
        );
        assert_eq!(shown.len(), 3, "{metric}");
        for (text, record) in shown.iter().zip(&records) {
            assert_tenth(text, record["metrics"][metric].as_f64().unwrap(), metric);
        }
    }
    let http: Vec<String> = records
        .iter()
        .map(|record| {
            record["network"]["protocol"]
                .as_str()
                .unwrap_or("—")
                .to_owned()
        })
        .collect();
    assert_eq!(texts_of(&other, "[data-testid=shared-http-protocol]"), http);
    let row = texts_of(
        &other,
        "[data-testid=shared-summary] tr[data-metric=ttfa_ms] td",
    );
    assert_tenth(&row[3], 80.0, "summary min");
    assert_tenth(&row[4], 83.25, "summary max");
    assert_eq!(row[6], "3");
    assert!(other.find("chart-distribution").is_some());
    assert_eq!(
        stored_history_text(),
        None,
        "the shared runs are not stored"
    );
    assert!(
        !other
            .root
            .text_content()
            .unwrap()
            .contains("Why is the sky"),
        "no prompt unless chosen"
    );
    drop(other);

    // The same tab opening the link: its own history is left exactly as it was.
    for line in storage_before.lines() {
        let (name, value) = line.split_once('=').unwrap();
        local_storage().set_item(name, value).unwrap();
    }
    set_address(&format!("{}{fragment}", location.pathname().unwrap()));
    let view = lab_with(&[("lang", "en")], &carrier);
    wait_for(&view, "[data-testid=shared-view]", UI_WAIT_MS).await;
    assert_eq!(stored_history_text(), stored_before);
    view.click("shared-close");
    frames(2).await;
    wait_for(&view, "[data-testid=run-row]", UI_WAIT_MS).await;
    assert_eq!(
        view.find_all("run-row").len(),
        3,
        "back to the meter with its own history"
    );
    assert_eq!(location.hash().unwrap(), "");

    // With the prompt chosen, the link carries it.
    view.type_into("share-prompt", "on");
    view.click("copy-link");
    view.until_text(
        "share-link-message",
        |text| text.contains("holds all 3 runs"),
        5_000.0,
    )
    .await;
    let with_prompt = view.value("share-link");
    drop(view);
    set_address(&format!(
        "{}{}",
        location.pathname().unwrap(),
        &with_prompt[with_prompt.find('#').unwrap()..]
    ));
    let third = lab_with(&[("lang", "en")], &carrier);
    wait_for(&third, "[data-testid=shared-prompt]", UI_WAIT_MS).await;
    assert!(third.text("shared-prompt").contains("Why is the sky blue"));
    drop(third);

    // A damaged link is refused with the reason, and the meter still works.
    set_address(&format!("{}#share=v1.AAAA", location.pathname().unwrap()));
    let damaged = lab_with(&[("lang", "en")], &carrier);
    wait_for(&damaged, "[data-testid=shared-error]", UI_WAIT_MS).await;
    let text = damaged.text("shared-error");
    assert!(
        text.contains("damaged") || text.contains("not valid"),
        "{text}"
    );
    assert!(damaged.find("send").is_some());
    drop(damaged);
    drop(clipboard);
    set_address(&original);
    clear_storage();
}

/// The host's `count`-th summary message, once `count` have come.
async fn summary_number(host: &HostFrame, count: usize) -> serde_json::Value {
    let summaries = || -> Vec<serde_json::Value> {
        host.messages()
            .into_iter()
            .filter(|message| message["data"]["type"] == "ttft-meter.summary")
            .map(|message| message["data"]["summary"].clone())
            .collect()
    };
    wait_until(
        &format!("{count} summaries"),
        || {
            let seen = summaries().len();
            if seen == count {
                Ok(())
            } else {
                Err(format!("{seen} so far"))
            }
        },
        5_000.0,
    )
    .await;
    summaries()[count - 1].clone()
}
