//! Issue 6's "ship it" checks of the lab that need no engine's network, timing or layout,
//! moved here from e2e/ship.test.mjs by issue 31 (docs/e2e-inventory.md SH3, SH6, SH7, SH8,
//! SH9, SH15, SH16): [`LabApp`] mounted in headless Chromium (wasm-bindgen-test) with its
//! runs played by a [`ScriptedCarrier`]; a fresh mount over the same storage stands in for a
//! reload. Downloads and the clipboard are read from stand-ins (ttft_web::testing::support):
//! the real files and the engines' clipboards stay end to end.
//!
//! Built alone (`cargo test -p ttft-lab-page`), ttft-core has its Chinese column compiled in,
//! so the Chinese texts are checked here.
#![cfg(target_arch = "wasm32")]
// clippy's allow-unwrap-in-tests does not see #[wasm_bindgen_test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use ttft_web::testing::support as shipfleet;
use ttft_web::testing::UI_WAIT_MS;

use std::rc::Rc;

use leptos::prelude::*;
use shipfleet::{
    answer_script, assert_no_key, body_background, js, local_storage, root_attribute, select_all,
    send_and_wait, stored_history_text, stored_runs, texts_of, wait_for, wait_for_rows, wait_until,
    with_page_style, Clipboard, Downloads, RUN_END_MS,
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

/// A key that must never show up in storage or the summary.
const TYPED_KEY: &str = "sk-test-QWERTYZXCVB";

/// The lab mounted with `query` as its address's parameters; storage as it is (a mount is a
/// page load).
fn lab_with(query: &[(&str, &str)], carrier: &ScriptedCarrier) -> Mounted {
    let config = UrlConfig::from_pairs(query.iter().copied());
    let carrier: SharedCarrier = Rc::new(carrier.clone());
    mount(move || view! { <LabApp config=config carrier=carrier /> })
}

/// The lab aimed at [`BASE_URL`] in English with `model`, on a first visit.
fn lab(model: &str, carrier: &ScriptedCarrier) -> Mounted {
    clear_storage();
    lab_with(&chat(model), carrier)
}

fn chat(model: &str) -> [(&str, &str); 4] {
    [
        ("base_url", BASE_URL),
        ("protocol", "chat"),
        ("model", model),
        ("lang", "en"),
    ]
}

/// A run's history items' texts.
fn history_texts(view: &Mounted) -> Vec<String> {
    texts_of(view, "[data-testid=history-item]")
}

fn stored_indexes() -> Vec<u64> {
    stored_runs()
        .iter()
        .map(|run| run["run_index"].as_u64().unwrap())
        .collect()
}

#[wasm_bindgen_test]
async fn address_parameters_configure_the_lab_in_chinese_and_dark_and_a_series_uses_them() {
    with_page_style();
    clear_storage();
    let carrier = ScriptedCarrier::new([answer_script(150.0), answer_script(150.0)]);
    let view = lab_with(
        &[
            ("base_url", BASE_URL),
            ("protocol", "chat"),
            ("model", "sim-fast@prefill_ms=150"),
            ("prompt", "Name three colours."),
            ("runs", "2"),
            ("lang", "zh"),
            ("theme", "dark"),
            ("experiment", "prompt_length_sweep"),
        ],
        &carrier,
    );
    frames(1).await;
    assert_eq!(view.value("base-url"), BASE_URL);
    assert_eq!(view.value("protocol"), "chat");
    assert_eq!(view.value("model"), "sim-fast@prefill_ms=150");
    assert_eq!(view.value("prompt"), "Name three colours.");
    assert_eq!(view.value("run-count"), "2");
    assert_eq!(
        view.attribute("app", "data-experiment").as_deref(),
        Some("prompt_length_sweep")
    );
    assert_eq!(root_attribute("data-theme").as_deref(), Some("dark"));
    assert!(root_attribute("lang").unwrap_or_default().starts_with("zh"));
    assert_eq!(view.text("send"), "发送");
    // The page's dark colours apply.
    assert_eq!(body_background(), "rgb(19, 20, 22)");
    view.click("send");
    wait_until(
        "a progress bar over the 2 runs",
        || match view.attribute("run-progress", "max").as_deref() {
            Some("2") => Ok(()),
            other => Err(format!("max {other:?}")),
        },
        RUN_END_MS,
    )
    .await;
    wait_for_rows(&view, 2).await;
    assert!(
        view.get("run-progress").class_list().contains("idle"),
        "the bar hides when the series is over"
    );
    let sent = carrier.sent();
    assert_eq!(sent.len(), 2);
    for request in &sent {
        assert_eq!(request.method, "POST");
        assert_eq!(request.url, format!("{BASE_URL}/chat/completions"));
        let body: serde_json::Value =
            serde_json::from_str(request.body.as_deref().unwrap()).unwrap();
        assert_eq!(
            body["messages"],
            serde_json::json!([{"role": "user", "content": "Name three colours."}])
        );
    }
    let runs = stored_runs();
    assert_eq!(runs.len(), 2);
    for run in &runs {
        assert_eq!(run["settings"]["model"], "sim-fast@prefill_ms=150");
        assert_eq!(
            run["settings"]["endpoint_url"],
            format!("{BASE_URL}/chat/completions")
        );
        assert_eq!(run["metrics"]["ttfa_ms"], 150.0);
    }
    drop(view);
    js(
        "",
        "document.documentElement.removeAttribute('data-theme');",
        &[],
    );
}

#[wasm_bindgen_test]
async fn finished_runs_come_back_after_a_reload_and_are_deleted_one_and_all() {
    let carrier = ScriptedCarrier::new([
        answer_script(120.0),
        answer_script(121.5),
        answer_script(122.25),
    ]);
    let view = lab("sim-fast@prefill_ms=120", &carrier);
    view.type_into("api-key", TYPED_KEY);
    view.type_into("run-count", "3");
    send_and_wait(&view).await;
    wait_for_rows(&view, 3).await;
    wait_for(
        &view,
        "[data-testid=history-item][data-run=\"3\"]",
        UI_WAIT_MS,
    )
    .await;
    let ttfa: Vec<f64> = stored_runs()
        .iter()
        .map(|run| run["metrics"]["ttfa_ms"].as_f64().unwrap())
        .collect();
    assert_eq!(ttfa, [120.0, 121.5, 122.25]);
    let shown = history_texts(&view);
    assert_eq!(shown.len(), 3);
    let rows = view.find_all("run-row").len();
    assert_no_key(
        TYPED_KEY,
        &shipfleet::storage_text(&local_storage()),
        "localStorage",
    );
    drop(view);

    // A reload: the same history, rows and numbers.
    let view = lab_with(&chat("sim-fast@prefill_ms=120"), &carrier);
    wait_for(
        &view,
        "[data-testid=history-item][data-run=\"3\"]",
        UI_WAIT_MS,
    )
    .await;
    assert_eq!(history_texts(&view), shown);
    assert_eq!(view.find_all("run-row").len(), rows);
    let again: Vec<f64> = stored_runs()
        .iter()
        .map(|run| run["metrics"]["ttfa_ms"].as_f64().unwrap())
        .collect();
    assert_eq!(again, ttfa);
    let cells = texts_of(
        &view,
        "[data-testid=chart-runs-table] tbody tr td:nth-child(3)",
    );
    assert_eq!(cells.len(), 3, "{cells:?}");
    assert_eq!(cells[0], "120.0");
    assert_eq!(cells[1], "121.5");
    assert!(cells[2] == "122.2" || cells[2] == "122.3", "{cells:?}");

    // Delete run 2, then all (asked twice).
    let delete = view
        .root
        .query_selector("[data-testid=history-item][data-run=\"2\"] [data-testid=history-delete]")
        .unwrap()
        .unwrap();
    wasm_bindgen::JsCast::unchecked_ref::<web_sys::HtmlElement>(&delete).click();
    frames(1).await;
    assert_eq!(stored_indexes(), [1, 3]);
    view.click("history-delete-all");
    frames(1).await;
    view.click("history-delete-all");
    frames(1).await;
    assert!(history_texts(&view).is_empty());
    assert_eq!(stored_history_text(), None);
    drop(view);
    let view = lab_with(&chat("sim-fast@prefill_ms=120"), &carrier);
    frames(2).await;
    assert!(history_texts(&view).is_empty());
}

#[wasm_bindgen_test]
async fn a_thousand_stored_runs_fill_the_summary_and_the_history_window_and_the_next_is_kept() {
    let carrier = ScriptedCarrier::new([answer_script(20.0)]);
    let view = lab("sim-fast@prefill_ms=20", &carrier);
    send_and_wait(&view).await;
    drop(view);
    // 1,000 stored runs (the measured one, numbered 1 to 1,000), then a reload.
    let mut document: serde_json::Value =
        serde_json::from_str(&stored_history_text().unwrap()).unwrap();
    let first = document["runs"][0].clone();
    document["runs"] = (1..=1000u32)
        .map(|index| {
            let mut run = first.clone();
            run["run_index"] = index.into();
            run
        })
        .collect();
    local_storage()
        .set_item(ttft_web::persist::RUNS_SLOT, &document.to_string())
        .unwrap();
    let view = lab_with(&chat("sim-fast@prefill_ms=20"), &carrier);
    view.until_attribute("runs-table", "data-runs", "1000", UI_WAIT_MS)
        .await;
    let rows = view.find_all("run-row");
    assert_eq!(rows.len(), 100);
    assert_eq!(rows[0].get_attribute("data-run").as_deref(), Some("901"));
    assert!(view.text("rows-hidden").contains("900 older runs"));
    // The summary covers every run, the history lists the newest 50.
    let count = texts_of(
        &view,
        "[data-testid=summary-table] tr[data-cohort=all][data-metric=ttfa_ms] td",
    );
    assert_eq!(count.last().map(String::as_str), Some("1000"), "{count:?}");
    assert_eq!(history_texts(&view).len(), 50);

    // One more run: number 1001, listed, and stored (the oldest dropped: 1,000 kept).
    view.click("send");
    wait_for(
        &view,
        "[data-testid=run-row][data-run=\"1001\"]",
        RUN_END_MS,
    )
    .await;
    wait_for_rows(&view, 100).await;
    assert_eq!(
        view.attribute("runs-table", "data-runs").as_deref(),
        Some("1001")
    );
    assert_eq!(view.find_all("run-row").len(), 100);
    let stored = stored_indexes();
    assert_eq!(stored.len(), 1000);
    assert_eq!((stored[0], stored[999]), (2, 1001));

    // Clear deletes the stored history too, so the first click only asks.
    view.click("clear-runs");
    frames(1).await;
    assert_eq!(
        view.attribute("runs-table", "data-runs").as_deref(),
        Some("1001")
    );
    assert!(view.text("clear-runs").contains("click again"));
    view.click("clear-runs");
    frames(1).await;
    assert!(view.root.text_content().unwrap().contains("No runs yet"));
    assert_eq!(stored_history_text(), None);
}

/// Puts a file named `name` holding `text` in the import input, as the file chooser does.
fn choose_file(view: &Mounted, name: &str, text: &str) {
    js(
        "input, name, text",
        "const files = new DataTransfer();
         files.items.add(new File([text], name, { type: 'application/json' }));
         input.files = files.files;
         input.dispatchEvent(new Event('change', { bubbles: true }));",
        &[
            view.get("import-json").into(),
            JsValue::from(name),
            JsValue::from(text),
        ],
    );
}

/// An export without what is sampled anew at each export: its time and the timer step.
fn without_stamp(mut document: serde_json::Value) -> serde_json::Value {
    let fields = document.as_object_mut().unwrap();
    fields.remove("exported_at");
    let step = fields["environment"]
        .as_object_mut()
        .unwrap()
        .remove("timer_resolution_ms")
        .and_then(|step| step.as_f64())
        .unwrap_or_default();
    assert!(step > 0.0 && step <= 0.1, "timer_resolution_ms {step}");
    document
}

#[wasm_bindgen_test]
async fn the_json_export_imports_back_identically_and_csv_and_svg_are_written() {
    with_page_style();
    let downloads = Downloads::install();
    let carrier = ScriptedCarrier::new([answer_script(100.0), answer_script(101.0)]);
    let view = lab("sim-fast@prefill_ms=100", &carrier);
    view.type_into("run-count", "2");
    send_and_wait(&view).await;
    wait_for_rows(&view, 2).await;
    view.click("export-json");
    let exported_text = downloads.last(".json");
    let exported: serde_json::Value = serde_json::from_str(&exported_text).unwrap();
    assert_eq!(exported["schema"], "ttft-meter/export");
    assert_eq!(exported["schema_version"], 6);
    assert_eq!(exported["runs"].as_array().unwrap().len(), 2);
    view.click("export-csv");
    let csv = downloads.last(".csv");
    assert_eq!(
        csv.trim().lines().count(),
        3 + 2,
        "three header rows (ours, aiperf, guidellm) and two runs"
    );
    view.click("chart-runs-svg");
    let svg = downloads.last(".svg");
    assert!(svg.starts_with("<svg"), "{}", &svg[..80.min(svg.len())]);
    assert!(svg.contains("xmlns=\"http://www.w3.org/2000/svg\""));
    assert!(svg.contains("stroke-width:"), "styles are inlined");
    assert!(
        svg.contains(">— ttfa (first answer token)</text>"),
        "the legend travels with the file"
    );
    drop(view);

    // A fresh profile: import the file, export again, compare.
    let view = lab("sim-fast@prefill_ms=100", &ScriptedCarrier::default());
    choose_file(&view, "export.json", &exported_text);
    view.until_text(
        "share-message",
        |text| text.contains("Imported 2 runs"),
        5_000.0,
    )
    .await;
    wait_for(
        &view,
        "[data-testid=history-item][data-run=\"2\"]",
        UI_WAIT_MS,
    )
    .await;
    assert_eq!(history_texts(&view).len(), 2);
    view.click("export-json");
    let reexported: serde_json::Value = serde_json::from_str(&downloads.last(".json")).unwrap();
    assert_eq!(without_stamp(reexported), without_stamp(exported.clone()));
    // The import is kept like any run.
    assert_eq!(
        serde_json::Value::Array(stored_runs()),
        exported["runs"].clone()
    );
    // A broken file is refused with the reason; the history stays.
    choose_file(&view, "broken.json", r#"{"schema": "something-else"}"#);
    view.until_text(
        "share-message",
        |text| !text.is_empty() && !text.contains("Imported"),
        5_000.0,
    )
    .await;
    assert_eq!(history_texts(&view).len(), 2);
    assert_eq!(stored_runs().len(), 2);
}

/// Words of visible text in English that the Chinese page may still show (as in
/// e2e/ship.test.mjs before issue 31, plus the header name `Timing-Allow-Origin`: the
/// scripted runs carry no Resource Timing, so the page names the header a server must send).
const ALLOWED_IN_ZH: &str = r"^(TTFT|Meter|English|Timing-Allow-Origin)$|^(ttft|ttfa|ttfr|itl|e2e|tps|p50|p95|p99|ms|JSON|CSV|SVG|PNG|API|URL|HTTP|SSE|token|tokens)$|^(UTC|min|max|mean|POST|sessionStorage|localStorage|Resource|Timing|DNS|TCP|TLS|CORS|AIPerf|GuideLLM|numpy)$|^(OpenAI|Anthropic|OpenRouter|DeepSeek|LiteLLM|Ollama|SGLang|vLLM|llama|cpp|server|proxy|ttft-sim|sim|Responses|Chat|Completions|Messages|localhost|max_tokens|Bearer|Authorization|worker|Worker|presentationTime|renderTime|rAF|MessageChannel|COOP|COEP)$|^(OpenTelemetry|OTLP|Collector|SLO|SLOs|traceparent|W3C|span|goodput)$";

/// The visible text of the view (the results included, the model's output not), split into
/// English words.
fn english_words(view: &Mounted) -> Vec<String> {
    let words = js(
        "root",
        r#"const words = [];
        const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
          const element = node.parentElement;
          if (!element || !element.checkVisibility() || ['SCRIPT', 'STYLE', 'TITLE'].includes(element.tagName)) continue;
          if (element.closest('[data-testid=answer], [data-testid=reasoning]')) continue;
          const text = node.textContent.replace(/https?:\/\/\S+/g, ' ');
          for (const token of text.split(/[\s,;:()（）、。，：；/·—–|"'“”=<>+?!…]+/)) {
            if (/^[A-Za-z][A-Za-z-]*[A-Za-z]$/.test(token) && !/[_@\d.]/.test(token)) words.push(token);
          }
        }
        return words;"#,
        &[view.root.clone().into()],
    );
    shipfleet::as_json(&words)
        .as_array()
        .unwrap()
        .iter()
        .map(|word| word.as_str().unwrap().to_owned())
        .collect()
}

#[wasm_bindgen_test]
async fn switching_to_chinese_leaves_no_english_word_outside_the_allow_list() {
    with_page_style();
    let carrier = ScriptedCarrier::new([answer_script(50.0), answer_script(52.0)]);
    let view = lab("sim-fast@prefill_ms=50", &carrier);
    view.type_into("run-count", "2");
    send_and_wait(&view).await;
    wait_for_rows(&view, 2).await;
    // Every chart's data table open, so its headers count too.
    for details in select_all(&view, ".chart-data") {
        details.set_attribute("open", "").unwrap();
    }
    frames(1).await;
    let english = english_words(&view);
    assert!(
        english.iter().any(|word| word == "Send") && english.iter().any(|word| word == "History"),
        "the English page shows English: {english:?}"
    );
    view.click("lang-zh");
    frames(2).await;
    assert_eq!(view.text("send"), "发送");
    let allowed = js_sys::RegExp::new(ALLOWED_IN_ZH, "");
    let mut left: Vec<String> = english_words(&view)
        .into_iter()
        .filter(|word| !allowed.test(word))
        .collect();
    left.sort();
    left.dedup();
    assert!(
        left.is_empty(),
        "English words left on the Chinese page: {left:?}"
    );
    drop(view);
    // The choice is remembered.
    let view = lab_with(&chat("m")[..3], &carrier);
    frames(1).await;
    assert_eq!(view.text("send"), "发送");
    drop(view);
    clear_storage();
}

#[wasm_bindgen_test]
async fn the_theme_applies_and_is_remembered_and_the_summary_is_copied_without_the_key() {
    with_page_style();
    let carrier = ScriptedCarrier::new([answer_script(60.0)]);
    let view = lab("sim-fast@prefill_ms=60", &carrier);
    view.type_into("theme", "light");
    frames(1).await;
    assert_eq!(root_attribute("data-theme").as_deref(), Some("light"));
    assert_eq!(body_background(), "rgb(247, 247, 245)");
    view.type_into("theme", "dark");
    frames(1).await;
    drop(view);
    let view = lab_with(&chat("sim-fast@prefill_ms=60"), &carrier);
    frames(1).await;
    assert_eq!(root_attribute("data-theme").as_deref(), Some("dark"));
    assert_eq!(view.value("theme"), "dark");
    view.type_into("theme", "auto");
    frames(1).await;
    assert_eq!(root_attribute("data-theme"), None, "auto sets no theme");

    let clipboard = Clipboard::install();
    view.type_into("api-key", TYPED_KEY);
    send_and_wait(&view).await;
    view.click("copy-summary");
    view.until_text(
        "share-message",
        |text| text == "Summary copied.",
        UI_WAIT_MS,
    )
    .await;
    let copied = clipboard.copied();
    assert_eq!(copied.len(), 1);
    assert!(copied[0].contains("ttfa"), "{}", copied[0]);
    assert!(
        copied[0].contains("sim-fast@prefill_ms=60"),
        "the summary names the model: {}",
        copied[0]
    );
    assert_no_key(TYPED_KEY, &copied[0], "the summary");
}

#[wasm_bindgen_test]
async fn a_failed_run_is_kept_across_a_reload_with_its_cause_message_and_fix() {
    let carrier = ScriptedCarrier::new([Script::answer(
        401,
        "application/json",
        r#"{"error":{"message":"Incorrect API key provided: sk-****. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","code":"invalid_api_key"}}"#,
        20.0,
    )]);
    let view = lab("sim-fast@fault=401", &carrier);
    send_and_wait(&view).await;
    let cause = view.attribute("diagnosis", "data-cause").unwrap();
    let runs = stored_runs();
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0]["diagnosis_cause"], cause.as_str());
    assert_eq!(runs[0]["outcome"]["kind"], "http_error");
    drop(view);

    let view = lab_with(&chat("sim-fast@fault=401"), &carrier);
    wait_for(&view, "[data-testid=history-item]", UI_WAIT_MS).await;
    assert!(history_texts(&view)[0].contains("failed"));
    wait_for(&view, "[data-testid=diagnosis]", UI_WAIT_MS).await;
    assert_eq!(
        view.attribute("diagnosis", "data-cause").as_deref(),
        Some(cause.as_str())
    );
    // The stored diagnosis is worded afresh, in the page's language.
    let strong = view.text_of("[data-testid=diagnosis] strong");
    assert!(strong.contains("401"), "{strong}");
    let fix = view.text_of("[data-testid=diagnosis] p");
    assert!(fix.chars().count() > 20, "the fix is shown: {fix}");
    view.click("lang-zh");
    frames(1).await;
    let strong = view.text_of("[data-testid=diagnosis] strong");
    assert!(
        strong
            .chars()
            .any(|character| ('\u{4e00}'..='\u{9fff}').contains(&character)),
        "worded in Chinese: {strong}"
    );
    drop(view);
    clear_storage();
}
