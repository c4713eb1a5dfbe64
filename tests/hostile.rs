//! A hostile provider's text, as the widget shows and keeps it (issue 23's cases that need
//! no engine): a key in the address's fragment, a provider echoing the keys this tab held
//! before, bidi controls, disguised forms of the key. The widget is mounted whole with a
//! [`ScriptedCarrier`] playing what ttft-sim's hostile faults send (the sim's own bytes are
//! checked in crates/sim/tests/hostile.rs; the scrubbing rules in crates/core/src/scrub.rs).
//! Floods and the provider header WebKit refuses stay end to end (e2e/hostile.test.mjs).
#![cfg(target_arch = "wasm32")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::rc::Rc;

use leptos::prelude::*;
use ttft_core::config::UrlConfig;
use ttft_web::testing::support::assert_no_key;
use ttft_web::testing::UI_WAIT_MS;
use ttft_web::testing::{clear_storage, mount, until, Mounted};
use ttft_web::transport::scripted::{Script, ScriptedCarrier};
use ttft_web::transport::SharedCarrier;
use ttft_widget::WidgetApp;
use wasm_bindgen_test::*;

const BASE_URL: &str = "http://127.0.0.1:9/v1";
const KEY_ONE: &str = "sk-ttftmeter-FIRST-4e1b9d7c2a5f8e3b6d0a";
const KEY_TWO: &str = "sk-ttftmeter-SECOND-9c2e5b1d4806aa177f3a";
const WINDOW: usize = 8;
/// What the page writes where it removed a key.
const REMOVED: &str = "«key removed»";

fn widget(carrier: &ScriptedCarrier) -> Mounted {
    clear_storage();
    let config = UrlConfig::from_pairs([
        ("base_url", BASE_URL),
        ("protocol", "chat"),
        ("model", "m"),
        ("lang", "en"),
    ]);
    let carrier: SharedCarrier = Rc::new(carrier.clone());
    mount(move || view! { <WidgetApp config=config carrier=carrier /> })
}

/// The 8-character windows of `key` found in `text` (at most 5).
fn leaks(key: &str, text: &str) -> Vec<String> {
    let key: Vec<char> = key.chars().collect();
    key.windows(WINDOW)
        .map(|window| window.iter().collect::<String>())
        .filter(|window| text.contains(window.as_str()))
        .take(5)
        .collect()
}

/// Invisible formatting characters removed: what a reader sees of a text.
fn visible(text: &str) -> String {
    text.chars()
        .filter(|c| {
            !matches!(*c as u32, 0xAD | 0x200B..=0x200F | 0x202A..=0x202E | 0x2060..=0x206F | 0xFEFF)
        })
        .collect()
}

/// The forms of a key a provider might send (as ttft-sim's `key_forms`): hex lower and
/// upper, reversed, and laced with U+200B, U+2060, U+00AD after each character or U+FEFF
/// after every third.
fn key_forms(key: &str) -> Vec<String> {
    let hex: String = key.bytes().map(|byte| format!("{byte:02x}")).collect();
    let lace = |mark: char, every: usize| -> String {
        key.chars()
            .enumerate()
            .flat_map(|(index, c)| {
                let marked = (index + 1) % every == 0;
                std::iter::once(c).chain(marked.then_some(mark))
            })
            .collect()
    };
    vec![
        hex.clone(),
        hex.to_uppercase(),
        key.chars().rev().collect(),
        lace('\u{200B}', 1),
        lace('\u{2060}', 1),
        lace('\u{AD}', 1),
        lace('\u{FEFF}', 3),
    ]
}

/// Every form of `key` (and the key) of which a window is in `text`, as seen.
fn form_leaks(key: &str, text: &str) -> Vec<String> {
    let seen = visible(text);
    std::iter::once(key.to_owned())
        .chain(key_forms(key))
        .filter(|form| !leaks(&visible(form), &seen).is_empty())
        .collect()
}

/// Storage (but the key's own slot), the page's text and the address.
struct Kept {
    local: String,
    session: String,
    text: String,
    url: String,
}

impl Kept {
    /// Each text with the place it was read from.
    fn places(&self) -> [(&str, &str); 4] {
        [
            (&self.local, "localStorage"),
            (&self.session, "the other session slots"),
            (&self.text, "the page's text"),
            (&self.url, "the address"),
        ]
    }
}

fn kept(view: &Mounted) -> Kept {
    let window = web_sys::window().unwrap();
    let dump = |storage: web_sys::Storage| {
        (0..storage.length().unwrap())
            .filter_map(|index| storage.key(index).unwrap())
            .filter(|name| name != ttft_web::storage::API_KEY_SLOT)
            .map(|name| {
                format!(
                    "{name}={}",
                    storage.get_item(&name).unwrap().unwrap_or_default()
                )
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    Kept {
        local: dump(window.local_storage().unwrap().unwrap()),
        session: dump(window.session_storage().unwrap().unwrap()),
        text: format!(
            "{}\n{}",
            view.root.inner_text(),
            view.root.text_content().unwrap_or_default()
        ),
        url: window.location().href().unwrap(),
    }
}

/// The last stored run, as JSON.
fn last_stored_run() -> serde_json::Value {
    let text = web_sys::window()
        .unwrap()
        .local_storage()
        .unwrap()
        .unwrap()
        .get_item(ttft_web::persist::RUNS_SLOT)
        .unwrap()
        .expect("a stored history");
    let document: serde_json::Value = serde_json::from_str(&text).unwrap();
    document["runs"].as_array().unwrap().last().unwrap().clone()
}

/// Clicks Send and waits until run `rows` is in the table and the series is over.
async fn send(view: &Mounted, rows: usize) {
    view.click("send");
    until(
        "the run ended",
        || {
            let shown = view.find_all("run-row").len();
            let idle = view.get("stop").has_attribute("disabled");
            if shown >= rows && idle {
                Ok(())
            } else {
                Err(format!("{shown} rows, idle {idle}"))
            }
        },
        10_000.0,
    )
    .await
    .unwrap();
}

fn cause(view: &Mounted) -> String {
    view.attribute("diagnosis", "data-cause")
        .unwrap_or_default()
}

fn chat_event(delta: serde_json::Value) -> String {
    let chunk = serde_json::json!({
        "id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "m",
        "choices": [{"index": 0, "delta": delta, "finish_reason": null}],
    });
    format!("data: {chunk}\n\n")
}

fn ok_script() -> Script {
    let (text, done) = (
        chat_event(serde_json::json!({"content": "Hi"})),
        "data: [DONE]\n\n",
    );
    Script::event_stream(5.0, &[(20.0, &text), (21.0, done)], 22.0)
}

/// A stream of two tokens, then an OpenAI-style error event with `error`.
fn midstream_error(error: serde_json::Value) -> Script {
    let (one, two, event) = (
        chat_event(serde_json::json!({"content": "Hel"})),
        chat_event(serde_json::json!({"content": "lo"})),
        format!("data: {}\n\n", serde_json::json!({ "error": error })),
    );
    Script::event_stream(5.0, &[(10.0, &one), (11.0, &two), (12.0, &event)], 13.0)
}

#[wasm_bindgen_test]
async fn keys_this_tab_held_before_are_scrubbed_when_a_provider_echoes_them() {
    let seen = format!("Incorrect API key provided. Keys seen: {KEY_ONE}, {KEY_TWO}");
    let refusal = serde_json::json!({"error": {"message": seen, "type": "invalid_request_error", "code": "invalid_api_key"}});
    let carrier = ScriptedCarrier::new([
        ok_script(),
        Script::answer(401, "application/json", &refusal.to_string(), 10.0),
        midstream_error(serde_json::json!({
            "message": seen, "type": "invalid_request_error", "seen": [KEY_ONE, KEY_TWO],
        })),
    ]);
    let view = widget(&carrier);
    // The first key is sent once, then replaced by the second.
    view.type_into("api-key", KEY_ONE);
    send(&view, 1).await;
    view.type_into("api-key", KEY_TWO);
    let mut diagnoses = Vec::new();
    for (rows, expected) in [(2, "key_refused"), (3, "mid_stream_error")] {
        send(&view, rows).await;
        assert_eq!(cause(&view), expected);
        diagnoses.push(view.text("diagnosis"));
    }
    let state = kept(&view);
    for (key, name) in [(KEY_ONE, "the earlier key"), (KEY_TWO, "the current key")] {
        for (text, place) in state.places() {
            assert_no_key(key, text, &format!("{place} ({name})"));
        }
    }
    assert!(
        diagnoses.iter().all(|text| text.contains(REMOVED)),
        "the diagnoses say the keys were removed: {diagnoses:?}"
    );
    let outcome = last_stored_run()["outcome"].to_string();
    assert!(
        outcome.contains(&format!("Keys seen: {REMOVED}, {REMOVED}")),
        "the stored run holds the message with both keys removed: {outcome}"
    );
}

#[wasm_bindgen_test]
async fn bidi_controls_in_provider_text_are_shown_as_escapes_and_the_quote_is_isolated() {
    let reversed: String = "Send your API key to https://trusted.example to continue"
        .chars()
        .rev()
        .collect();
    let payload = format!("\u{202E}{reversed}\u{202C}");
    let message = format!("Request rejected. {payload} Contact support.");
    let body = serde_json::json!({"error": {"message": message, "type": "invalid_request_error"}});
    let answer_tokens = [
        chat_event(serde_json::json!({"content": "Hello"})),
        chat_event(serde_json::json!({"content": format!(" {payload}")})),
        chat_event(serde_json::json!({"content": " \u{2067}\u{5E9}\u{5DC}\u{5D5}\u{5DD}\u{2069}"})),
        format!(
            "data: {}\n\n",
            serde_json::json!({"error": {"message": message, "type": "server_error"}})
        ),
    ];
    let carrier = ScriptedCarrier::new([
        Script::answer(400, "application/json", &body.to_string(), 10.0),
        Script::event_stream(
            5.0,
            &[
                (10.0, &answer_tokens[0]),
                (11.0, &answer_tokens[1]),
                (12.0, &answer_tokens[2]),
                (13.0, &answer_tokens[3]),
            ],
            14.0,
        ),
    ]);
    // The page's stylesheet: the quote's and the pane's isolation are its doing.
    let document = web_sys::window().unwrap().document().unwrap();
    let style = document.create_element("style").unwrap();
    style.set_text_content(Some(include_str!("../www/style.css")));
    document.head().unwrap().append_child(&style).unwrap();
    let view = widget(&carrier);
    send(&view, 1).await;
    assert_eq!(cause(&view), "bad_request");
    let quote = view.get("provider-quote");
    assert_eq!(quote.tag_name().to_lowercase(), "bdi");
    let computed = |element: &web_sys::Element, property: &str| {
        web_sys::window()
            .unwrap()
            .get_computed_style(element)
            .unwrap()
            .unwrap()
            .get_property_value(property)
            .unwrap()
    };
    assert_eq!(computed(&quote, "unicode-bidi"), "isolate");
    assert_eq!(
        quote.text_content().unwrap_or_default(),
        format!("Request rejected. <U+202E>{reversed}<U+202C> Contact support.")
    );
    let has_control = |text: &str| {
        text.chars()
            .any(|c| matches!(c as u32, 0x200E | 0x200F | 0x202A..=0x202E | 0x2066..=0x2069))
    };
    assert!(
        !has_control(&view.text("diagnosis")),
        "no bidi control reaches the diagnosis"
    );
    let strong = view.text_of("[data-testid=diagnosis] strong");
    assert!(
        strong.contains("The server said: \"Request rejected."),
        "{strong}"
    );
    // Mid-stream: the answer pane is isolated; the stored error holds escapes, not controls.
    send(&view, 2).await;
    assert_eq!(cause(&view), "mid_stream_error");
    assert_eq!(computed(&view.get("answer"), "unicode-bidi"), "isolate");
    let stored = web_sys::window()
        .unwrap()
        .local_storage()
        .unwrap()
        .unwrap()
        .get_item(ttft_web::persist::RUNS_SLOT)
        .unwrap()
        .unwrap();
    let stored_runs: serde_json::Value = serde_json::from_str(&stored).unwrap();
    let outcomes: String = stored_runs["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|run| format!("{}{}", run["outcome"], run["diagnosis"]))
        .collect();
    assert!(
        !has_control(&outcomes),
        "the stored errors hold no bidi control"
    );
    assert!(
        outcomes.contains("<U+202E>"),
        "the stored errors quote them as escapes"
    );
    style.remove();
}

#[wasm_bindgen_test]
async fn disguised_forms_of_the_key_in_a_mid_stream_error_are_scrubbed() {
    let message = format!(
        "Incorrect API key provided: {}",
        key_forms(KEY_ONE).join(" | ")
    );
    let carrier = ScriptedCarrier::new([midstream_error(serde_json::json!({
        "message": message, "type": "invalid_request_error",
    }))]);
    let view = widget(&carrier);
    view.type_into("api-key", KEY_ONE);
    send(&view, 1).await;
    assert_eq!(cause(&view), "mid_stream_error");
    let state = kept(&view);
    assert_eq!(
        form_leaks(KEY_ONE, &state.local),
        Vec::<String>::new(),
        "history holds no form of the key"
    );
    assert_eq!(
        form_leaks(KEY_ONE, &state.text),
        Vec::<String>::new(),
        "the page shows no form of the key"
    );
    let outcome = last_stored_run()["outcome"].to_string();
    assert!(
        outcome.matches(REMOVED).count() >= 7,
        "each of the 7 forms is removed: {}",
        &outcome[..outcome.len().min(400)]
    );
}

#[wasm_bindgen_test]
async fn a_key_split_between_the_panes_leaves_no_window_in_either() {
    // The stated limit (docs/privacy.md "The key's path"): 7-character pieces alternating
    // between reasoning and answer are not recognised; each pane alone holds no window.
    let chars: Vec<char> = KEY_ONE.chars().collect();
    let events: Vec<String> = chars
        .chunks(WINDOW - 1)
        .enumerate()
        .map(|(index, piece)| {
            let piece: String = piece.iter().collect();
            if index % 2 == 0 {
                chat_event(serde_json::json!({"reasoning_content": piece}))
            } else {
                chat_event(serde_json::json!({"content": piece}))
            }
        })
        .chain(std::iter::once("data: [DONE]\n\n".to_owned()))
        .collect();
    let reads: Vec<(f64, &str)> = events
        .iter()
        .enumerate()
        .map(|(index, event)| (10.0 + index as f64, event.as_str()))
        .collect();
    let carrier = ScriptedCarrier::new([Script::event_stream(5.0, &reads, 40.0)]);
    let view = widget(&carrier);
    view.type_into("api-key", KEY_ONE);
    send(&view, 1).await;
    let reasoning = view.text_of("pre[data-testid=reasoning]");
    let answer = view.text("answer");
    assert!(
        !reasoning.is_empty() && !answer.is_empty(),
        "both panes got pieces"
    );
    assert_eq!(leaks(KEY_ONE, &reasoning), Vec::<String>::new());
    assert_eq!(leaks(KEY_ONE, &answer), Vec::<String>::new());
}

#[wasm_bindgen_test]
async fn a_key_in_the_fragment_is_refused_removed_and_never_reaches_the_lab_link() {
    clear_storage();
    let window = web_sys::window().unwrap();
    let history = window.history().unwrap();
    let location = window.location();
    let before = location.href().unwrap();
    let with_key = format!(
        "{}{}?lang=en#api_key={KEY_ONE}&key={KEY_ONE}&lang=zh",
        location.origin().unwrap(),
        location.pathname().unwrap()
    );
    history
        .replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&with_key))
        .unwrap();
    // What the page does first: read (and clean) its address.
    let config = ttft_web::embed::read_page_config();
    let url = location.href().unwrap();
    assert!(
        leaks(KEY_ONE, &url).is_empty(),
        "the address holds no key: {url}"
    );
    assert!(
        url.ends_with("#lang=zh"),
        "the fragment's other parts stay: {url}"
    );
    assert!(
        config.refused_keys.iter().any(|name| name == "api_key"),
        "{:?}",
        config.refused_keys
    );
    let carrier: SharedCarrier = Rc::new(ScriptedCarrier::default());
    let view = mount(move || view! { <WidgetApp config=config carrier=carrier /> });
    view.until_text("key-refused", |text| text.contains("api_key"), UI_WAIT_MS)
        .await;
    let lab_link = view.attribute("open-lab", "href").unwrap_or_default();
    assert!(
        !lab_link.contains("api_key") && leaks(KEY_ONE, &lab_link).is_empty(),
        "the lab link: {lab_link}"
    );
    let state = kept(&view);
    assert!(leaks(KEY_ONE, &state.local).is_empty() && leaks(KEY_ONE, &state.session).is_empty());
    history
        .replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&before))
        .unwrap();
}
