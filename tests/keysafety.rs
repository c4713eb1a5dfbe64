//! Key safety in the widget's components (issue 11's end-to-end checks that no engine is
//! needed for, moved here by issue 31; docs/e2e-inventory.md, "keysafety.test.mjs"):
//! [`WidgetApp`] mounted in headless Chromium (wasm-bindgen-test) with its runs played by a
//! [`ScriptedCarrier`]. What the run's request carried is the carrier's `sent()`; the
//! requests that go around the carrier (the models list) are real fetches, to the live
//! ttft-sim named by `TTFT_SIM_URL` at compile time (scripts/test.sh starts it), each one
//! seen by a recorder this file puts in front of `window.fetch`.
//!
//! The engines' own paths (CORS, redirects, real streams, the console and cookies of three
//! engines, downloads) stay in e2e/keysafety.test.mjs; the key's scrubbing over every key
//! shape is native (crates/core/tests/keysafety.rs, crates/sim/tests/keysafety.rs).
#![cfg(target_arch = "wasm32")]
// clippy's allow-unwrap-in-tests does not see #[wasm_bindgen_test] functions.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::option_env_unwrap
)]

use std::rc::Rc;

use leptos::prelude::*;
use ttft_core::config::UrlConfig;
use ttft_core::measure::ResponseHead;
use ttft_core::preset::PRESETS;
use ttft_web::testing::support::{send_and_wait, wait_for_rows};
use ttft_web::testing::{clear_storage, frames, mount, until, Mounted};
use ttft_web::transport::scripted::{Script, ScriptedCarrier, Step};
use ttft_web::transport::{HttpRequest, SharedCarrier};
use ttft_widget::WidgetApp;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;

/// The key of e2e/keysafety.test.mjs's long-key test.
const KEY: &str = "sk-ttftmeter-CANARY-7f3a9c2e5b1d4806aa17";

/// Endpoint A: the one the key is typed for. Nothing listens there (the carrier plays the
/// runs; its models list fails, as a side request to a closed port does).
const A_BASE_URL: &str = "http://127.0.0.1:9/v1";
const A_ORIGIN: &str = "http://127.0.0.1:9";

/// The width of a piece of the key that counts as a leak (ttft-core's scrubber window).
const WINDOW: usize = 8;

/// Endpoint B (another origin than A): the live ttft-sim.
fn sim_url() -> &'static str {
    option_env!("TTFT_SIM_URL")
        .expect("TTFT_SIM_URL names a running ttft-sim; run the tests through scripts/test.sh")
}

fn b_base_url() -> String {
    format!("{}/v1", sim_url())
}

// ---------------------------------------------------------------------------------------
// The page's side: a recorder in front of fetch, the console and uncaught errors; what the
// page keeps or shows.

/// Installs (once per test page) `window.__ks`: every `fetch` the page makes is recorded
/// (URL, method, headers) before it goes out, and may get a header added by a rule (a
/// hostile server's fault, asked for by header); console lines and uncaught errors are
/// recorded too. `__ks.capture` fetches with the original `fetch`, unrecorded.
const RECORDER_JS: &str = r#"
if (window.__ks) return;
const original = window.fetch.bind(window);
const ks = { requests: [], rules: [], console: [], errors: [] };
window.__ks = ks;
window.fetch = function (input, init) {
  let request;
  try { request = new Request(input, init); } catch (error) { return original(input, init); }
  ks.requests.push({ url: request.url, method: request.method, headers: [...request.headers] });
  const rule = ks.rules.find((rule) => request.url.startsWith(rule.prefix));
  if (rule) {
    const headers = new Headers(request.headers);
    headers.set(rule.name, rule.value);
    request = new Request(request, { headers });
  }
  return original(request);
};
for (const level of ['log', 'info', 'warn', 'error', 'debug']) {
  const before = console[level];
  console[level] = function (...args) {
    ks.console.push(args.map((arg) => String(arg)).join(' '));
    return before.apply(this, args);
  };
}
window.addEventListener('error', (event) => ks.errors.push(String(event.message)));
window.addEventListener('unhandledrejection', (event) => ks.errors.push(String(event.reason)));
ks.capture = async (url, method, headers, body) => {
  const response = await original(url, { method, headers, body });
  return JSON.stringify({
    status: response.status,
    contentType: response.headers.get('content-type') ?? '',
    retryAfter: response.headers.get('retry-after'),
    body: await response.text(),
  });
};
ks.state = () => {
  const dump = (storage) => Object.keys(storage).map((name) => [name, storage.getItem(name)]);
  const attributes = [];
  for (const element of document.querySelectorAll('*')) {
    for (const attribute of element.attributes) attributes.push(`${attribute.name}=${attribute.value}`);
  }
  return JSON.stringify({
    local: JSON.stringify(dump(localStorage)),
    session: dump(sessionStorage),
    cookies: document.cookie,
    url: location.href,
    text: `${document.body.innerText}\n${document.body.textContent}`,
    attributes: attributes.join('\n'),
    inputValues: [...document.querySelectorAll('input:not([type=password]), textarea')].map((input) => input.value).join('\n'),
    xss: window.__xss ?? null,
  });
};
"#;

/// Runs `body` (a JavaScript function body) with `args` bound to `names`.
fn js(names: &str, body: &str, args: &[JsValue]) -> JsValue {
    let function = js_sys::Function::new_with_args(names, body);
    let array: js_sys::Array = args.iter().collect();
    function.apply(&JsValue::NULL, &array).unwrap()
}

fn recorder() -> JsValue {
    // Beneath the recorder: nothing leaves loopback (a preset's models list names a public
    // host); the recorder still sees those requests.
    ttft_web::testing::loopback_only();
    js("", RECORDER_JS, &[]);
    js("", "return window.__ks;", &[])
}

/// Forgets what the recorder saw and its header rules.
fn recorder_reset() {
    js(
        "",
        "const ks = window.__ks; ks.requests.length = 0; ks.rules.length = 0; ks.console.length = 0; ks.errors.length = 0;",
        &[],
    );
}

/// Adds `name: value` to every request the page makes to a URL starting with `prefix`.
fn recorder_add_header(prefix: &str, name: &str, value: &str) {
    js(
        "prefix, name, value",
        "window.__ks.rules.push({ prefix, name, value });",
        &[prefix.into(), name.into(), value.into()],
    );
}

/// A request the page made around the carrier, as the recorder saw it.
#[derive(Debug, Clone)]
struct Seen {
    url: String,
    method: String,
    headers: Vec<(String, String)>,
    /// Everything about it, as one text.
    json: String,
}

fn seen_requests() -> Vec<Seen> {
    let text = js("", "return JSON.stringify(window.__ks.requests);", &[])
        .as_string()
        .unwrap();
    let list: Vec<serde_json::Value> = serde_json::from_str(&text).unwrap();
    list.into_iter()
        .map(|request| Seen {
            url: request["url"].as_str().unwrap_or_default().to_owned(),
            method: request["method"].as_str().unwrap_or_default().to_owned(),
            headers: request["headers"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|pair| {
                    (
                        pair[0].as_str().unwrap_or_default().to_owned(),
                        pair[1].as_str().unwrap_or_default().to_owned(),
                    )
                })
                .collect(),
            json: request.to_string(),
        })
        .collect()
}

fn console_lines() -> Vec<String> {
    let text = js("", "return JSON.stringify(window.__ks.console);", &[])
        .as_string()
        .unwrap();
    serde_json::from_str(&text).unwrap()
}

/// Uncaught errors of the page, but the test page's own: it serves no fetch worker
/// (`fetch-worker.js`), so the page's worker fails to start there (the carrier replaces it).
fn page_errors() -> Vec<String> {
    let text = js("", "return JSON.stringify(window.__ks.errors);", &[])
        .as_string()
        .unwrap();
    let errors: Vec<String> = serde_json::from_str(&text).unwrap();
    errors
        .into_iter()
        .filter(|error| !error.contains("fetch-worker.js"))
        .collect()
}

/// What the page keeps or shows: storage of both kinds, cookies, the address, text,
/// attributes, other inputs' values, and `window.__xss`.
fn page_state() -> serde_json::Value {
    let text = js("", "return window.__ks.state();", &[])
        .as_string()
        .unwrap();
    serde_json::from_str(&text).unwrap()
}

/// `window.__xss`, set by any XSS payload that ran.
fn xss_ran() -> bool {
    !js("", "return window.__xss ?? null;", &[]).is_null()
}

// ---------------------------------------------------------------------------------------
// The key and its forms.

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

/// JavaScript's `encodeURIComponent`.
fn percent_encoded(text: &str) -> String {
    text.bytes()
        .map(|byte| {
            if byte.is_ascii_alphanumeric() || b"-_.!~*'()".contains(&byte) {
                char::from(byte).to_string()
            } else {
                format!("%{byte:02X}")
            }
        })
        .collect()
}

/// The key and the encoded forms a provider may echo (as e2e/keysafety.test.mjs's
/// `keyForms`): percent-encoded (both cases), and the base64 characters the key alone
/// decides at each byte alignment, in both alphabets.
fn key_forms(key: &str) -> Vec<String> {
    let percent = percent_encoded(key);
    let mut lower = String::new();
    let mut rest = percent.as_str();
    while let Some(at) = rest.find('%') {
        lower.push_str(&rest[..at]);
        lower.push_str(&rest[at..at + 3].to_lowercase());
        rest = &rest[at + 3..];
    }
    lower.push_str(rest);
    let mut forms = vec![key.to_owned(), percent, lower];
    for pad in 0..3usize {
        let encoded = base64(format!("{}{key}", "x".repeat(pad)).as_bytes(), false);
        let start = (8 * pad).div_ceil(6);
        let end = (8 * (pad + key.len())) / 6;
        let core = &encoded[start..end];
        forms.push(core.to_owned());
        forms.push(core.replace('+', "-").replace('/', "_"));
    }
    forms
}

/// Every 8-character window of the key and of its forms.
fn windows_of(key: &str) -> Vec<String> {
    let width = WINDOW.min(key.len());
    let mut windows: Vec<String> = Vec::new();
    for form in key_forms(key) {
        for at in 0..=form.len().saturating_sub(width) {
            let window = form[at..at + width].to_owned();
            if !windows.contains(&window) {
                windows.push(window);
            }
        }
    }
    windows
}

fn assert_no_leak(text: &str, place: &str) {
    let found: Vec<String> = windows_of(KEY)
        .into_iter()
        .filter(|window| text.contains(window.as_str()))
        .take(5)
        .collect();
    assert!(
        found.is_empty(),
        "{place} holds pieces of the key: {found:?}"
    );
}

/// The names of headers that carry a key.
fn is_key_header(name: &str) -> bool {
    name.eq_ignore_ascii_case("authorization") || name.eq_ignore_ascii_case("x-api-key")
}

fn has_no_key_header(headers: &[(String, String)]) -> bool {
    headers.iter().all(|(name, _)| !is_key_header(name))
}

// ---------------------------------------------------------------------------------------
// The widget and its runs.

/// The widget mounted with `query` as its address's parameters and `carrier` for its runs.
/// Storage is left as it is: a mount after another one in the same test is a navigation in
/// the same tab (sessionStorage, the key's slot, survives).
fn widget(query: &[(&str, &str)], carrier: &ScriptedCarrier) -> Mounted {
    let config = UrlConfig::from_pairs(query.iter().copied());
    let carrier: SharedCarrier = Rc::new(carrier.clone());
    mount(move || view! { <WidgetApp config=config carrier=carrier /> })
}

/// One Chat Completions event with `delta`.
fn chat_event(delta: serde_json::Value) -> String {
    let chunk = serde_json::json!({
        "id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "m",
        "choices": [{"index": 0, "delta": delta, "finish_reason": null}],
    });
    format!("data: {chunk}\n\n")
}

fn role() -> String {
    chat_event(serde_json::json!({"role": "assistant", "content": ""}))
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

/// A plain answer `text` whose first token comes 40 ms after the request left.
fn answer_script(text: &str) -> Script {
    let (role, text, finish) = (role(), content(text), finish());
    Script::event_stream(5.0, &[(6.0, &role), (40.0, &text), (42.0, &finish)], 43.0)
}

/// The page's own stylesheet in the test page, as index.html links it (the answer pane's
/// blocks out of view are not rendered: `content-visibility: auto`).
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

async fn until_seen(url: &str, before: usize) -> Vec<Seen> {
    until(
        &format!("a request to {url}"),
        || {
            let count = seen_requests()
                .iter()
                .filter(|seen| seen.url == url)
                .count();
            if count > before {
                Ok(())
            } else {
                Err(format!("{count} seen"))
            }
        },
        5_000.0,
    )
    .await
    .unwrap();
    seen_requests()
        .into_iter()
        .filter(|seen| seen.url == url)
        .collect()
}

/// Waits until the models list shows (the endpoint answered it).
async fn until_models_listed(view: &Mounted) {
    view.until_text(
        "model-count",
        |text| text.contains("models listed"),
        5_000.0,
    )
    .await;
}

/// Waits until the key question is shown.
async fn until_asked(view: &Mounted) {
    until(
        "the key question",
        || view.find("key-consent").map(|_| ()).ok_or_else(String::new),
        2_000.0,
    )
    .await
    .unwrap();
}

fn header<'a>(request: &'a HttpRequest, name: &str) -> Option<&'a str> {
    request
        .headers
        .iter()
        .find(|(header, _)| header.eq_ignore_ascii_case(name))
        .map(|(_, value)| value.as_str())
}

// ---------------------------------------------------------------------------------------
// KS4, KS5: the key goes to another origin only when the user says so.

#[wasm_bindgen_test]
async fn a_crafted_link_to_another_origin_sends_no_key_until_the_user_says_so() {
    clear_storage();
    recorder();
    // The key, typed while the form names A: it belongs to A (this tab's session slot).
    let carrier = ScriptedCarrier::new([answer_script("first"), answer_script("second")]);
    let typed = widget(
        &[
            ("base_url", A_BASE_URL),
            ("protocol", "chat"),
            ("model", "m"),
        ],
        &carrier,
    );
    typed.type_into("api-key", KEY);
    drop(typed);
    recorder_reset();

    // The same tab opens a link that names B: the models list is asked for on load, keyless.
    let b_models = format!("{}/models", b_base_url());
    let view = widget(
        &[
            ("base_url", &b_base_url()),
            ("protocol", "chat"),
            ("model", "sim-fast"),
            ("lang", "en"),
        ],
        &carrier,
    );
    let on_load = until_seen(&b_models, 0).await;
    assert!(
        on_load.iter().all(|seen| has_no_key_header(&seen.headers)),
        "{on_load:?}"
    );
    until_models_listed(&view).await;

    // Send: the page asks first, and nothing has been sent yet.
    view.click("send");
    until_asked(&view).await;
    assert_eq!(
        view.attribute("key-consent", "data-origin").as_deref(),
        Some(sim_url())
    );
    let question = view.text("key-consent");
    assert!(
        question.contains(&format!("Send your API key to {}?", sim_url())),
        "{question}"
    );
    assert!(
        question.contains(&format!("The key was typed for {A_ORIGIN}.")),
        "{question}"
    );
    assert!(
        carrier.sent().is_empty(),
        "nothing goes out before the answer"
    );

    // Don't send: the run goes to B without the key, and the answer is remembered.
    view.click("key-consent-refuse");
    wait_for_rows(&view, 1).await;
    view.click("send");
    frames(1).await;
    assert!(
        view.find("key-consent").is_none(),
        "not asked again for the refused origin"
    );
    wait_for_rows(&view, 2).await;
    let sent = carrier.sent();
    assert_eq!(sent.len(), 2, "both runs went");
    for request in &sent {
        assert_eq!(request.url, format!("{}/chat/completions", b_base_url()));
        assert!(has_no_key_header(&request.headers), "{:?}", request.headers);
        assert_no_leak(&format!("{request:?}"), "a run's request to B");
    }
    // List models (a click): the refused origin gets no key either.
    let listed_before = seen_requests()
        .iter()
        .filter(|seen| seen.url == b_models)
        .count();
    view.click("list-models");
    let to_b = until_seen(&b_models, listed_before).await;
    assert!(to_b.len() >= 2);
    for seen in seen_requests() {
        assert_no_leak(&seen.json, &format!("{} {}", seen.method, seen.url));
    }
    let slot = page_state()["session"]
        .as_array()
        .unwrap()
        .iter()
        .find(|pair| pair[0] == ttft_web::storage::API_KEY_SLOT)
        .map(|pair| pair[1].as_str().unwrap_or_default().to_owned())
        .unwrap_or_default();
    assert!(slot.contains(KEY), "the tab still holds the key");
    assert!(
        slot.contains(&format!("\"origin\":\"{A_ORIGIN}\"")),
        "bound to the origin it was typed for: {slot}"
    );
    drop(view);

    // The control: typed for A, then the base URL changed to B, and "Send key": B gets it.
    clear_storage();
    let carrier = ScriptedCarrier::new([answer_script("third")]);
    let view = widget(
        &[
            ("base_url", A_BASE_URL),
            ("protocol", "chat"),
            ("model", "m"),
        ],
        &carrier,
    );
    view.type_into("api-key", KEY);
    view.type_into("base-url", &b_base_url());
    view.click("send");
    until_asked(&view).await;
    assert!(carrier.sent().is_empty());
    view.click("key-consent-send");
    wait_for_rows(&view, 1).await;
    let sent = carrier.sent();
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0].url, format!("{}/chat/completions", b_base_url()));
    assert_eq!(
        header(&sent[0], "authorization"),
        Some(format!("Bearer {KEY}").as_str()),
        "after \"Send key\", B gets it"
    );
    assert!(page_errors().is_empty(), "{:?}", page_errors());
}

#[wasm_bindgen_test]
async fn a_preset_change_or_a_base_url_edit_sends_no_key_and_the_run_asks_first() {
    clear_storage();
    recorder();
    recorder_reset();
    let carrier = ScriptedCarrier::new([answer_script("to B")]);
    let view = widget(
        &[
            ("base_url", A_BASE_URL),
            ("protocol", "chat"),
            ("model", "m"),
            ("lang", "en"),
        ],
        &carrier,
    );
    view.type_into("api-key", KEY);
    // Every preset (each lists its models, keyless), then vLLM's.
    for preset in PRESETS {
        view.type_into("preset", preset.id);
        frames(1).await;
    }
    view.type_into("preset", "vllm");
    // A base URL edit (its change event) to B lists B's models: keyless.
    let b_models = format!("{}/models", b_base_url());
    view.type_into("base-url", &b_base_url());
    until_seen(&b_models, 0).await;
    until_models_listed(&view).await;
    let seen = seen_requests();
    let preset_hosts: Vec<&Seen> = seen
        .iter()
        .filter(|seen| {
            seen.url.starts_with("http://localhost:") || seen.url.starts_with("https://")
        })
        .collect();
    assert!(
        preset_hosts.len() >= 3,
        "the presets' models lists were asked for: {seen:?}"
    );
    for request in &seen {
        assert!(
            has_no_key_header(&request.headers),
            "{} {}",
            request.method,
            request.url
        );
        assert_no_leak(
            &request.json,
            &format!("{} {}", request.method, request.url),
        );
    }
    // Send to B: asked first; refused, the run goes without the key.
    view.click("send");
    until_asked(&view).await;
    assert_eq!(
        view.attribute("key-consent", "data-origin").as_deref(),
        Some(sim_url())
    );
    assert!(carrier.sent().is_empty());
    view.click("key-consent-refuse");
    wait_for_rows(&view, 1).await;
    let sent = carrier.sent();
    assert_eq!(sent.len(), 1);
    assert!(
        sent[0].url.starts_with(&b_base_url()),
        "the run went to B: {}",
        sent[0].url
    );
    assert!(has_no_key_header(&sent[0].headers), "{:?}", sent[0].headers);
    assert_no_leak(&format!("{:?}", sent[0]), "the run B received");
}

// ---------------------------------------------------------------------------------------
// KS7: a hostile server's models list.

#[wasm_bindgen_test]
async fn a_hostile_servers_models_list_and_its_xss_payloads_stay_inert() {
    clear_storage();
    recorder();
    recorder_reset();
    // ttft-sim's xss fault, asked for by header on its models route: the ids are payloads.
    recorder_add_header(&format!("{}/models", b_base_url()), "x-sim-fault", "xss");
    let payload_answer = "<script>window.__xss=1</script> <img src=x onerror=\"window.__xss=1\">";
    let carrier = ScriptedCarrier::new([answer_script(payload_answer)]);
    let view = widget(
        &[
            ("base_url", &b_base_url()),
            ("protocol", "chat"),
            ("model", "m"),
            ("lang", "en"),
        ],
        &carrier,
    );
    until_models_listed(&view).await;
    let options: Vec<String> = {
        let list = view.root.query_selector_all("#model-list option").unwrap();
        (0..list.length())
            .filter_map(|index| list.item(index))
            .map(|node| {
                node.unchecked_into::<web_sys::Element>()
                    .get_attribute("value")
                    .unwrap_or_default()
            })
            .collect()
    };
    assert!(
        options.iter().any(|value| value.contains("<script>")),
        "payloads are listed as plain values: {options:?}"
    );
    let image = options
        .iter()
        .find(|value| value.contains("<img"))
        .cloned()
        .expect("an <img> payload among the ids");
    // Nothing the payloads name was created: the list holds options only.
    let datalist = view.root.query_selector("#model-list").unwrap().unwrap();
    assert_eq!(
        datalist.query_selector_all("*").unwrap().length() as usize,
        options.len()
    );
    // A run with that id, whose answer holds payloads too.
    view.type_into("model", &image);
    send_and_wait(&view).await;
    let sent = carrier.sent();
    let body: serde_json::Value = serde_json::from_str(sent[0].body.as_deref().unwrap()).unwrap();
    assert_eq!(body["model"], image.as_str(), "the id went as the model");
    assert_eq!(
        view.text("answer"),
        payload_answer,
        "the answer is shown as text"
    );
    let pane = view.get("answer");
    assert_eq!(
        pane.query_selector_all("script, img, svg, a")
            .unwrap()
            .length(),
        0
    );
    frames(2).await;
    assert!(!xss_ran(), "window.__xss stays unset");
    assert!(page_errors().is_empty(), "{:?}", page_errors());
}

// ---------------------------------------------------------------------------------------
// KS8: a long answer's text is cut at 1 MiB.

#[wasm_bindgen_test]
async fn a_long_answer_shows_its_first_mib_with_a_note() {
    clear_storage();
    with_page_style();
    // About 1.6 MB of answer text in 1,600 events of 1,000 bytes, each a line of words
    // numbered by the event (so that the cut point can be checked), read 64 KiB at a time
    // (events cut across reads), 5 ms apart.
    let pieces: Vec<String> = (0..1_600)
        .map(|index| {
            let line = format!("{index:04} {}", "word ".repeat(199));
            format!("{}\n", &line[..999])
        })
        .collect();
    let answer: String = pieces.concat();
    let mut stream = role();
    for piece in &pieces {
        stream.push_str(&content(piece));
    }
    stream.push_str(&finish());
    let bytes = stream.into_bytes();
    let mut steps = vec![Step::Headers {
        at_ms: 5.0,
        head: ResponseHead::event_stream(200),
    }];
    let mut at_ms = 10.0;
    for read in bytes.chunks(64 * 1024) {
        steps.push(Step::Read {
            at_ms,
            bytes: read.to_vec(),
        });
        at_ms += 5.0;
    }
    steps.push(Step::End { at_ms });
    let reads = steps.len() - 2;
    let carrier = ScriptedCarrier::new([Script {
        steps,
        ..Script::default()
    }]);
    let view = widget(
        &[
            ("base_url", A_BASE_URL),
            ("protocol", "chat"),
            ("model", "m"),
            ("lang", "en"),
        ],
        &carrier,
    );
    let started_ms = ttft_web::clock::now_ms();
    send_and_wait(&view).await;
    let ended_ms = ttft_web::clock::now_ms();
    assert!(reads > 16, "a script of {reads} reads of 64 KiB");
    assert_eq!(
        view.find_all("run-row")[0]
            .get_attribute("data-outcome")
            .as_deref(),
        Some("ok")
    );
    // The pane appends at most 8 KiB a frame (ttft-core FRAME_BUDGET_BYTES): it is all there
    // within seconds.
    let shown_bytes = || {
        let pane = view.get("answer").text_content().unwrap_or_default();
        let note = view
            .find("text-cut")
            .and_then(|note| note.text_content())
            .unwrap_or_default();
        (pane.len() - note.len(), pane, note)
    };
    until(
        "the pane to draw the first 1 MiB",
        || {
            let (bytes, _, _) = shown_bytes();
            if bytes >= 1000 * 1024 {
                Ok(())
            } else {
                Err(format!("{bytes} bytes drawn"))
            }
        },
        30_000.0,
    )
    .await
    .unwrap();
    web_sys::console::log_1(
        &format!(
            "long answer: run {:.0} ms, drawn {:.0} ms later",
            ended_ms - started_ms,
            ttft_web::clock::now_ms() - ended_ms
        )
        .into(),
    );
    frames(2).await;
    let (bytes, pane, note) = shown_bytes();
    assert!(
        bytes > 1000 * 1024 && bytes <= 1024 * 1024,
        "the pane holds the first 1 MiB: {bytes} bytes"
    );
    assert!(
        note.contains("text cut at 1 MiB; the measurement goes on"),
        "{note}"
    );
    assert!(
        pane.starts_with(&answer[..bytes]),
        "the text shown is the answer's start"
    );
    assert!(answer.len() > 1_500_000);
    if let Some(style) = web_sys::window()
        .unwrap()
        .document()
        .unwrap()
        .get_element_by_id("page-style")
    {
        style.remove();
    }
}

// ---------------------------------------------------------------------------------------
// KS1's faults whose path is the same in every engine: each cause, and no piece of the key
// anywhere but the key's slot and the request to its own endpoint.

/// A fault of ttft-sim, with the protocol it is asked in and the cause the widget names.
struct SimFault {
    fault: &'static str,
    protocol: &'static str,
    cause: &'static str,
}

/// The request a widget run of `protocol` sends, in the sim's route and body.
fn sim_request(protocol: &str, model: &str) -> (String, serde_json::Value, (String, String)) {
    let messages = serde_json::json!([{"role": "user", "content": "Hi"}]);
    match protocol {
        "anthropic" => (
            format!("{}/v1/messages", sim_url()),
            serde_json::json!({"model": model, "stream": true, "max_tokens": 64, "messages": messages}),
            ("x-api-key".to_owned(), KEY.to_owned()),
        ),
        "responses" => (
            format!("{}/v1/responses", sim_url()),
            serde_json::json!({"model": model, "stream": true, "input": "Hi"}),
            ("authorization".to_owned(), format!("Bearer {KEY}")),
        ),
        _ => (
            format!("{}/v1/chat/completions", sim_url()),
            serde_json::json!({"model": model, "stream": true, "stream_options": {"include_usage": true}, "messages": messages}),
            ("authorization".to_owned(), format!("Bearer {KEY}")),
        ),
    }
}

/// ttft-sim's own bytes for `fault` (asked with the key, as the page would ask): the script
/// of one run that answers with them, its events read one by one 2 ms apart.
async fn sim_script(fault: &SimFault) -> Script {
    let model = format!(
        "sim-fast@fault={},prefill_ms=10,itl_ms=2,answer_tokens=8",
        fault.fault
    );
    let (url, body, (name, value)) = sim_request(fault.protocol, &model);
    let headers = js_sys::Object::new();
    js_sys::Reflect::set(&headers, &"content-type".into(), &"application/json".into()).unwrap();
    js_sys::Reflect::set(&headers, &name.as_str().into(), &value.as_str().into()).unwrap();
    let promise = js(
        "url, method, headers, body",
        "return window.__ks.capture(url, method, headers, body);",
        &[
            url.as_str().into(),
            "POST".into(),
            headers.into(),
            body.to_string().as_str().into(),
        ],
    );
    let answer = wasm_bindgen_futures::JsFuture::from(promise.unchecked_into::<js_sys::Promise>())
        .await
        .unwrap()
        .as_string()
        .unwrap();
    let answer: serde_json::Value = serde_json::from_str(&answer).unwrap();
    let head = ResponseHead {
        status: answer["status"].as_u64().unwrap() as u16,
        content_type: answer["contentType"]
            .as_str()
            .unwrap_or_default()
            .to_owned(),
        retry_after: answer["retryAfter"].as_str().map(str::to_owned),
        timing_headers: Vec::new(),
    };
    let text = answer["body"].as_str().unwrap_or_default();
    let mut steps = vec![Step::Headers { at_ms: 5.0, head }];
    let mut at_ms = 10.0;
    for event in text.split_inclusive("\n\n") {
        steps.push(Step::Read {
            at_ms,
            bytes: event.as_bytes().to_vec(),
        });
        at_ms += 2.0;
    }
    steps.push(Step::End { at_ms });
    Script {
        steps,
        ..Script::default()
    }
}

/// `drip`: keep-alive comments every 100 ms and never a token (its bytes never end, so they
/// are written here: ttft-sim's `: keep-alive` comment, as crates/sim/tests/hostile.rs
/// `drip_sends_keepalives_forever_and_takes_no_slot` reads it).
fn drip_script() -> Script {
    let comments: Vec<(f64, &str)> = (1..=30)
        .map(|beat| (f64::from(beat) * 100.0, ": keep-alive\n\n"))
        .collect();
    Script::event_stream(5.0, &comments, 60_000.0)
}

/// The faults of e2e/keysafety.test.mjs's list that left it (their path is the same in
/// every engine), with the cause the widget names (empty: a good run).
fn faults_that_left_the_end_to_end_run() -> Vec<SimFault> {
    [
        ("echo_key", "anthropic", "key_refused"),
        ("echo_key", "responses", "key_refused"),
        ("echo_key_midstream", "chat", "mid_stream_error"),
        ("echo_key_midstream", "anthropic", "mid_stream_error"),
        ("html_error", "chat", "server_error"),
        ("drip", "chat", "timeout"),
        ("bad_usage", "chat", ""),
        ("400", "chat", "bad_request"),
        ("401", "chat", "key_refused"),
        ("403", "chat", "forbidden"),
        ("404", "chat", "model_not_found"),
        ("429", "chat", "rate_limited"),
        ("500", "chat", "server_error"),
        ("midstream", "chat", "mid_stream_error"),
        ("malformed", "chat", "malformed_chunk"),
    ]
    .into_iter()
    .map(|(fault, protocol, cause)| SimFault {
        fault,
        protocol,
        cause,
    })
    .collect()
}

/// The key's slot holds the key, bound to A; nothing else the page keeps or shows (the
/// other slots, localStorage, cookies, the address, text, attributes, other inputs, the
/// console) holds a piece of it, nor do the exports made from the `runs` stored runs.
fn assert_the_key_is_nowhere_but_its_slot(runs: usize) {
    let state = page_state();
    let session = state["session"].as_array().unwrap();
    let slot = session
        .iter()
        .find(|pair| pair[0] == ttft_web::storage::API_KEY_SLOT)
        .map(|pair| pair[1].as_str().unwrap_or_default().to_owned())
        .unwrap_or_default();
    assert!(slot.contains(KEY), "sessionStorage holds the key");
    assert!(
        slot.contains(&format!("\"origin\":\"{A_ORIGIN}\"")),
        "{slot}"
    );
    let others: Vec<&serde_json::Value> = session
        .iter()
        .filter(|pair| pair[0] != ttft_web::storage::API_KEY_SLOT)
        .collect();
    assert_no_leak(
        &serde_json::to_string(&others).unwrap(),
        "other sessionStorage slots",
    );
    for (field, place) in [
        ("local", "localStorage"),
        ("cookies", "document.cookie"),
        ("url", "the address"),
        ("text", "the page text"),
        ("attributes", "attributes"),
        ("inputValues", "other inputs"),
    ] {
        assert_no_leak(state[field].as_str().unwrap_or_default(), place);
    }
    js("", "console.warn('keysafety console probe');", &[]);
    let logged = console_lines();
    assert!(
        logged
            .iter()
            .any(|line| line.contains("keysafety console probe")),
        "the console is captured"
    );
    assert_no_leak(&logged.join("\n"), "the console");
    assert!(state["xss"].is_null());
    // The exports are made from the stored runs: the JSON document and its CSV.
    let stored = web_sys::window()
        .unwrap()
        .local_storage()
        .unwrap()
        .unwrap()
        .get_item(ttft_web::persist::RUNS_SLOT)
        .unwrap()
        .expect("the runs were saved");
    let document = ttft_core::export::ExportDocument::from_json(&stored).unwrap();
    assert_eq!(document.runs.len(), runs);
    assert_no_leak(&document.to_json().unwrap(), "the JSON export");
    assert_no_leak(
        &ttft_core::export::runs_csv(&document.runs, ttft_core::export::CsvHeader::WithPeerNames),
        "the CSV export",
    );
}

/// Every run went to A, the key in its key header only; the side requests (A's models list
/// on load) went without it.
fn assert_only_the_runs_to_a_carried_the_key(carrier: &ScriptedCarrier) {
    for request in carrier.sent() {
        assert!(request.url.starts_with(A_BASE_URL), "{}", request.url);
        let key_header = request
            .headers
            .iter()
            .find(|(name, _)| is_key_header(name))
            .map(|(_, value)| value.clone())
            .unwrap_or_default();
        assert!(
            key_header.contains(KEY),
            "A got the key: {:?}",
            request.headers
        );
        let without_key: Vec<&(String, String)> = request
            .headers
            .iter()
            .filter(|(name, _)| !is_key_header(name))
            .collect();
        assert_no_leak(
            &format!("{} {:?} {:?}", request.url, without_key, request.body),
            "a run's URL, other headers and body",
        );
    }
    for request in seen_requests() {
        assert!(has_no_key_header(&request.headers), "{}", request.url);
        assert_no_leak(
            &request.json,
            &format!("{} {}", request.method, request.url),
        );
    }
}

#[wasm_bindgen_test]
async fn the_faults_whose_path_no_engine_changes_are_diagnosed_and_leave_no_piece_of_the_key() {
    clear_storage();
    recorder();
    recorder_reset();
    let faults = faults_that_left_the_end_to_end_run();
    let mut scripts = Vec::new();
    for fault in &faults {
        scripts.push(if fault.fault == "drip" {
            drip_script()
        } else {
            sim_script(fault).await
        });
    }
    let echoed = scripts.iter().take(4).all(|script| {
        script.steps.iter().any(|step| match step {
            Step::Read { bytes, .. } => String::from_utf8_lossy(bytes).contains(KEY),
            _ => false,
        })
    });
    assert!(
        echoed,
        "the echo faults' bytes hold the key: the checks below have something to find"
    );

    let carrier = ScriptedCarrier::new(Vec::<Script>::new());
    let view = widget(
        &[
            ("base_url", A_BASE_URL),
            ("protocol", "chat"),
            ("model", "sim-fast"),
            ("lang", "en"),
        ],
        &carrier,
    );
    view.type_into("api-key", KEY);
    let mut seen = Vec::new();
    for (fault, script) in faults.iter().zip(scripts) {
        carrier.then([script]);
        view.type_into("protocol", fault.protocol);
        view.type_into("timeout-s", if fault.fault == "drip" { "1" } else { "20" });
        send_and_wait(&view).await;
        let cause = view
            .find("diagnosis")
            .and_then(|diagnosis| diagnosis.get_attribute("data-cause"))
            .unwrap_or_default();
        let outcome = view
            .find_all("run-row")
            .last()
            .and_then(|row| row.get_attribute("data-outcome"))
            .unwrap_or_default();
        seen.push(format!(
            "{}/{}: {outcome} {cause}",
            fault.fault, fault.protocol
        ));
        assert_eq!(
            cause, fault.cause,
            "{} ({}); so far: {seen:?}",
            fault.fault, fault.protocol
        );
    }
    assert_eq!(view.find_all("run-row").len(), faults.len());
    assert_the_key_is_nowhere_but_its_slot(faults.len());
    assert_only_the_runs_to_a_carried_the_key(&carrier);
    assert!(page_errors().is_empty(), "{:?}", page_errors());
}
