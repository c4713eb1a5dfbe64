//! Key safety and storage in the lab's components (issue 11's end-to-end checks that no
//! engine is needed for, moved here by issue 31; docs/e2e-inventory.md,
//! "keysafety.test.mjs" KS4, KS10, KS11): [`LabApp`] mounted in headless Chromium
//! (wasm-bindgen-test) with its runs played by a [`ScriptedCarrier`].
//!
//! Built as `cargo test -p ttft-lab-page` builds it, ttft-core has its Chinese column
//! compiled in (the lab does not load it on demand, the widget does), so the Chinese texts
//! are checked here. Built together with the widget in one cargo command, ttft-core's
//! `zh-on-demand` would be on for both, and the Chinese checks would read English.
#![cfg(target_arch = "wasm32")]
// clippy's allow-unwrap-in-tests does not see #[wasm_bindgen_test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::rc::Rc;

use leptos::prelude::*;
use ttft_core::config::UrlConfig;
use ttft_lab_page::page::LabApp;
use ttft_web::persist::RUNS_SLOT;
use ttft_web::testing::UI_WAIT_MS;
use ttft_web::testing::{clear_storage, frames, mount, until, Mounted};
use ttft_web::transport::scripted::{Script, ScriptedCarrier};
use ttft_web::transport::SharedCarrier;
use wasm_bindgen::JsValue;
use wasm_bindgen_test::*;

/// Where the lab's form points: nothing listens there (the carrier plays the runs).
const A_BASE_URL: &str = "http://127.0.0.1:9/v1";

/// Another origin than A's (its models list fails at once: a closed, unsafe port).
const B_BASE_URL: &str = "http://localhost:9/v1";
const B_ORIGIN: &str = "http://localhost:9";

const KEY: &str = "sk-ttftmeter-CANARY-7f3a9c2e5b1d4806aa17";

/// A series of these tests ends within this.
const RUN_END_MS: f64 = 10_000.0;

/// The lab mounted with `query` as its address's parameters and `carrier` for its runs.
/// Storage is left as it is (a mount is a page load).
fn lab(query: &[(&str, &str)], carrier: &ScriptedCarrier) -> Mounted {
    let config = UrlConfig::from_pairs(query.iter().copied());
    let carrier: SharedCarrier = Rc::new(carrier.clone());
    mount(move || view! { <LabApp config=config carrier=carrier /> })
}

fn lab_at_a(carrier: &ScriptedCarrier) -> Mounted {
    lab(
        &[
            ("base_url", A_BASE_URL),
            ("protocol", "chat"),
            ("model", "m"),
            ("lang", "en"),
        ],
        carrier,
    )
}

/// One Chat Completions event with `delta`.
fn chat_event(delta: serde_json::Value) -> String {
    let chunk = serde_json::json!({
        "id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "m",
        "choices": [{"index": 0, "delta": delta, "finish_reason": null}],
    });
    format!("data: {chunk}\n\n")
}

/// A plain answer whose first token comes 40 ms after the request left.
fn answer_script(text: &str) -> Script {
    let role = chat_event(serde_json::json!({"role": "assistant", "content": ""}));
    let text = chat_event(serde_json::json!({"content": text}));
    let finish = format!(
        "data: {}\n\ndata: [DONE]\n\n",
        serde_json::json!({
            "id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "m",
            "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
        })
    );
    Script::event_stream(5.0, &[(6.0, &role), (40.0, &text), (42.0, &finish)], 43.0)
}

/// Waits until the runs table holds at least `rows` runs and no series is running.
async fn wait_for_rows(view: &Mounted, rows: usize) {
    until(
        "the series ended",
        || {
            let shown = view.find_all("run-row").len();
            let state = view.attribute("status", "data-state").unwrap_or_default();
            let stop_enabled = !view.get("stop").has_attribute("disabled");
            if shown >= rows && (state == "done" || state == "failed") && !stop_enabled {
                Ok(())
            } else {
                Err(format!(
                    "{shown} rows, status {state}, stop enabled {stop_enabled}"
                ))
            }
        },
        RUN_END_MS,
    )
    .await
    .unwrap();
}

async fn send_and_wait(view: &Mounted) {
    let rows_before = view.find_all("run-row").len();
    view.click("send");
    wait_for_rows(view, rows_before + 1).await;
}

fn local_storage() -> web_sys::Storage {
    web_sys::window().unwrap().local_storage().unwrap().unwrap()
}

fn stored(slot: &str) -> Option<String> {
    local_storage().get_item(slot).unwrap()
}

/// Every localStorage slot's name.
fn slots() -> Vec<String> {
    let storage = local_storage();
    (0..storage.length().unwrap())
        .filter_map(|index| storage.key(index).unwrap())
        .collect()
}

/// The stored history's runs (none when nothing is stored).
fn stored_runs() -> Vec<serde_json::Value> {
    stored(RUNS_SLOT)
        .map(|text| {
            let document: serde_json::Value = serde_json::from_str(&text).unwrap();
            document["runs"].as_array().cloned().unwrap_or_default()
        })
        .unwrap_or_default()
}

/// The notice `code` (`data-notice`), once shown; its text.
async fn notice(view: &Mounted, code: &str) -> String {
    let selector = format!("[data-testid=\"storage-notice\"][data-notice=\"{code}\"]");
    until(
        &format!("the {code} notice"),
        || {
            view.root
                .query_selector(&selector)
                .ok()
                .flatten()
                .map(|_| ())
                .ok_or_else(|| {
                    let shown: Vec<String> = view
                        .find_all("storage-notice")
                        .iter()
                        .filter_map(|element| element.get_attribute("data-notice"))
                        .collect();
                    format!("notices shown: {shown:?}")
                })
        },
        5_000.0,
    )
    .await
    .unwrap();
    view.text_of(&selector)
}

/// Chooses `file` (a JavaScript `File`) in the lab's import, as the file chooser does.
fn import(view: &Mounted, file: &JsValue) {
    let input = view.get("import-json");
    let choose = js_sys::Function::new_with_args(
        "input, file",
        "const transfer = new DataTransfer(); transfer.items.add(file); input.files = transfer.files; \
         input.dispatchEvent(new Event('change', { bubbles: true }));",
    );
    choose.call2(&JsValue::NULL, &input, file).unwrap();
}

/// A JavaScript `File` named `name` holding `text`.
fn text_file(name: &str, text: &str) -> JsValue {
    js_sys::Function::new_with_args(
        "name, text",
        "return new File([text], name, { type: 'application/json' });",
    )
    .call2(&JsValue::NULL, &name.into(), &text.into())
    .unwrap()
}

/// A JavaScript `File` of `bytes` spaces.
fn blank_file(name: &str, bytes: u32) -> JsValue {
    js_sys::Function::new_with_args(
        "name, bytes",
        "return new File([new Uint8Array(bytes).fill(32)], name, { type: 'application/json' });",
    )
    .call2(&JsValue::NULL, &name.into(), &bytes.into())
    .unwrap()
}

// ---------------------------------------------------------------------------------------
// KS11: storage.

#[wasm_bindgen_test]
async fn an_unreadable_history_is_set_aside_and_kept_as_it_was() {
    clear_storage();
    let newer = r#"{"schema":"ttft-meter/export","schema_version":99,"runs":[]}"#;
    local_storage().set_item(RUNS_SLOT, newer).unwrap();
    let view = lab_at_a(&ScriptedCarrier::default());
    let text = notice(&view, "set_aside").await;
    assert!(text.contains("schema version 99"), "{text}");
    let aside: Vec<String> = slots()
        .into_iter()
        .filter(|slot| slot.starts_with(&format!("{RUNS_SLOT}.unreadable-")))
        .collect();
    assert_eq!(aside.len(), 1, "{:?}", slots());
    assert!(
        text.contains(&aside[0]),
        "the notice names the slot: {text}"
    );
    assert_eq!(stored(&aside[0]).as_deref(), Some(newer), "kept as it was");
    assert_eq!(stored(RUNS_SLOT), None, "a new history was started");
}

#[wasm_bindgen_test]
async fn a_full_storage_says_what_was_not_saved() {
    clear_storage();
    let carrier = ScriptedCarrier::new([answer_script("one"), answer_script("two")]);
    let view = lab_at_a(&carrier);
    send_and_wait(&view).await;
    assert_eq!(stored_runs().len(), 1);
    // Fill the storage until one more run cannot be written.
    let storage = local_storage();
    let chunk = "x".repeat(256 * 1024);
    let mut index = 0;
    while storage.set_item(&format!("filler-{index}"), &chunk).is_ok() {
        index += 1;
    }
    let mut size = 128 * 1024;
    while size >= 16 {
        let _ = storage.set_item(&format!("filler-small-{size}"), &"x".repeat(size));
        size /= 2;
    }
    assert!(index > 0, "the storage took some filler first");
    send_and_wait(&view).await;
    let full = view
        .find_all("storage-notice")
        .into_iter()
        .find(|element| {
            matches!(
                element.get_attribute("data-notice").as_deref(),
                Some("storage_full" | "not_saved")
            )
        })
        .expect("a storage_full or not_saved notice");
    let text = full.text_content().unwrap_or_default();
    assert!(
        text.contains("storage is full") || text.contains("could not be saved"),
        "{text}"
    );
    // Both runs stay on the page.
    assert_eq!(view.find_all("run-row").len(), 2);
    clear_storage();
}

#[wasm_bindgen_test]
async fn an_import_with_duplicate_numbers_is_renumbered_and_a_file_over_16_mib_is_refused() {
    clear_storage();
    let carrier = ScriptedCarrier::new([answer_script("one")]);
    let view = lab_at_a(&carrier);
    send_and_wait(&view).await;
    // The stored history is an export document: the same run three times, all numbered 1.
    let mut document: serde_json::Value =
        serde_json::from_str(&stored(RUNS_SLOT).unwrap()).unwrap();
    let run = document["runs"][0].clone();
    assert_eq!(run["run_index"], 1);
    document["runs"] = serde_json::json!([run.clone(), run.clone(), run]);
    import(&view, &text_file("duplicates.json", &document.to_string()));
    let text = notice(&view, "renumbered").await;
    assert!(text.contains("numbered again from 1 to 3"), "{text}");
    until(
        "three history items",
        || {
            let numbers: Vec<String> = view
                .find_all("history-item")
                .iter()
                .filter_map(|item| item.get_attribute("data-run"))
                .collect();
            if numbers == ["3", "2", "1"] {
                Ok(())
            } else {
                Err(format!("{numbers:?}"))
            }
        },
        2_000.0,
    )
    .await
    .unwrap();
    let kept: Vec<u64> = stored_runs()
        .iter()
        .filter_map(|run| run["run_index"].as_u64())
        .collect();
    assert_eq!(kept, [1, 2, 3], "stored as renumbered");
    // A file over 16 MiB is refused before it is read.
    import(&view, &blank_file("big.json", 17 * 1024 * 1024));
    let text = notice(&view, "file_too_large").await;
    assert!(text.contains("17.0 MiB"), "{text}");
    assert_eq!(stored_runs().len(), 3, "the history is unchanged");
}

// ---------------------------------------------------------------------------------------
// KS10: the crash banner, and a run saved before its series ends.

/// Sets `<html lang>` (`None`: removes it).
fn set_page_lang(lang: Option<&str>) {
    let root = web_sys::window()
        .unwrap()
        .document()
        .unwrap()
        .document_element()
        .unwrap();
    match lang {
        Some(lang) => root.set_attribute("lang", lang).unwrap(),
        None => root.remove_attribute("lang").unwrap(),
    }
}

#[wasm_bindgen_test]
fn the_crash_banner_reads_in_the_pages_language_with_a_reload_link_to_the_page_itself() {
    let document = web_sys::window().unwrap().document().unwrap();
    let lang_before = document.document_element().unwrap().get_attribute("lang");
    for (lang, words, reload) in [
        ("en", "stopped because of an internal error", "Reload"),
        ("zh", "因内部错误而停止", "刷新页面"),
    ] {
        set_page_lang(Some(lang));
        ttft_web::crash::show_banner();
        // Shown once, however often it is asked for.
        ttft_web::crash::show_banner();
        let banners = document
            .query_selector_all("[data-testid=\"crash-banner\"]")
            .unwrap();
        assert_eq!(banners.length(), 1);
        let banner = document
            .get_element_by_id(ttft_web::crash::BANNER_ID)
            .unwrap();
        assert_eq!(banner.get_attribute("role").as_deref(), Some("alert"));
        let text = banner.text_content().unwrap_or_default();
        assert!(text.contains(words), "{lang}: {text}");
        let link = banner
            .query_selector("[data-testid=\"crash-reload\"]")
            .unwrap()
            .expect("a Reload link");
        assert_eq!(
            link.tag_name(),
            "A",
            "a plain link: it works with no script"
        );
        assert_eq!(
            link.get_attribute("href").as_deref(),
            Some(""),
            "to the page itself"
        );
        assert_eq!(link.text_content().as_deref(), Some(reload));
        banner.remove();
    }
    set_page_lang(lang_before.as_deref());
}

#[wasm_bindgen_test]
async fn a_finished_run_is_saved_before_its_series_ends() {
    clear_storage();
    let carrier = ScriptedCarrier::new([answer_script("saved")]);
    let view = lab_at_a(&carrier);
    view.click("send");
    // From the first moment the run is on the page, and from before the series has ended
    // (where `debug_panic=1` panics, after `run_and_report`), it is in storage.
    until(
        "the series ended",
        || {
            let rows = view.find_all("run-row").len();
            let stop_enabled = !view.get("stop").has_attribute("disabled");
            if rows == 0 {
                return Err("no row yet".into());
            }
            assert_eq!(stored_runs().len(), 1, "the run on the page is stored");
            if stop_enabled {
                return Err("still running".into());
            }
            Ok(())
        },
        RUN_END_MS,
    )
    .await
    .unwrap();
    let outcome = &stored_runs()[0]["outcome"];
    assert!(
        outcome == "completed" || outcome["kind"] == "completed",
        "{outcome}"
    );
}

// ---------------------------------------------------------------------------------------
// KS4: the key question, in both languages.

#[wasm_bindgen_test]
async fn the_key_question_names_the_other_origin_in_both_languages() {
    clear_storage();
    let carrier = ScriptedCarrier::new([answer_script("keyless")]);
    let view = lab_at_a(&carrier);
    view.type_into("api-key", KEY);
    view.type_into("base-url", B_BASE_URL);
    view.click("send");
    until(
        "the key question",
        || view.find("key-consent").map(|_| ()).ok_or_else(String::new),
        2_000.0,
    )
    .await
    .unwrap();
    assert_eq!(
        view.attribute("key-consent", "data-origin").as_deref(),
        Some(B_ORIGIN)
    );
    let english = format!("Send your API key to {B_ORIGIN}?");
    assert!(
        view.text("key-consent").contains(&english),
        "{}",
        view.text("key-consent")
    );
    view.click("lang-zh");
    let chinese = format!("把你的 API 密钥发送到 {B_ORIGIN}？");
    view.until_text("key-consent", |text| text.contains(&chinese), UI_WAIT_MS)
        .await;
    view.click("lang-en");
    view.until_text("key-consent", |text| text.contains(&english), UI_WAIT_MS)
        .await;
    assert!(
        carrier.sent().is_empty(),
        "nothing goes out before the answer"
    );
    view.click("key-consent-refuse");
    wait_for_rows(&view, 1).await;
    frames(1).await;
    let sent = carrier.sent();
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0].url, format!("{B_BASE_URL}/chat/completions"));
    assert!(
        sent[0]
            .headers
            .iter()
            .all(|(name, _)| !name.eq_ignore_ascii_case("authorization")),
        "{:?}",
        sent[0].headers
    );
}
