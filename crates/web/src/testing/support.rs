//! What the component tests share beyond mounting (tests/, crates/web/tests,
//! crates/lab-page/tests): scripted Chat Completions
//! answers, waiting for a series, storage and the stored history, the page's stylesheet,
//! pieces of a key, and stand-ins for what the page hands to the browser (a host frame's
//! `postMessage`, the clipboard, a download, a collector), each installed for one test and
//! taken away after it. None of these is product code: the page calls the browser's own
//! objects, and the test puts a recording one in their place.
// Test support fails loudly, naming what it did not find.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use super::{until, Mounted};
use crate::transport::scripted::Script;
use wasm_bindgen::JsValue;

/// A series of these tests ends within this (the scripts' instants are under 2.5 s).
pub const RUN_END_MS: f64 = 15_000.0;

/// One Chat Completions event with `delta`.
pub fn chat_event(delta: serde_json::Value) -> String {
    let chunk = serde_json::json!({
        "id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "m",
        "choices": [{"index": 0, "delta": delta, "finish_reason": null}],
    });
    format!("data: {chunk}\n\n")
}

/// The answer's end: a `stop` chunk, a usage chunk and `[DONE]`.
pub fn finish() -> String {
    let chunk = serde_json::json!({
        "id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "m",
        "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
    });
    let usage = serde_json::json!({
        "id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "m",
        "choices": [], "usage": {"prompt_tokens": 12, "completion_tokens": 3, "total_tokens": 15},
    });
    format!("data: {chunk}\n\ndata: {usage}\n\ndata: [DONE]\n\n")
}

/// A plain answer whose first token comes `ttfa_ms` after the request left (headers at
/// 5 ms, the role at 6 ms, two more tokens 2 and 4 ms later, the end at `ttfa_ms + 6`).
pub fn answer_script(ttfa_ms: f64) -> Script {
    let role = chat_event(serde_json::json!({"role": "assistant", "content": ""}));
    let (hello, world, again) = (
        chat_event(serde_json::json!({"content": "Hello"})),
        chat_event(serde_json::json!({"content": " world"})),
        chat_event(serde_json::json!({"content": "!"})),
    );
    let finish = finish();
    Script::event_stream(
        5.0,
        &[
            (6.0, &role),
            (ttfa_ms, &hello),
            (ttfa_ms + 2.0, &world),
            (ttfa_ms + 4.0, &again),
            (ttfa_ms + 5.0, &finish),
        ],
        ttfa_ms + 6.0,
    )
}

/// Waits until the runs table holds at least `rows` runs and no series is running.
pub async fn wait_for_rows(view: &Mounted, rows: usize) {
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

/// Clicks Send and waits for the series to end with at least one more run in the table.
pub async fn send_and_wait(view: &Mounted) {
    let rows_before = view.find_all("run-row").len();
    view.click("send");
    wait_for_rows(view, rows_before + 1).await;
}

/// Waits until `check` holds, or fails naming `what` and the last thing seen.
pub async fn wait_until(what: &str, check: impl Fn() -> Result<(), String>, timeout_ms: f64) {
    until(what, check, timeout_ms).await.unwrap();
}

/// Waits for an element matching the CSS `selector` in the view.
pub async fn wait_for(view: &Mounted, selector: &str, timeout_ms: f64) {
    wait_until(
        selector,
        || match view.root.query_selector(selector) {
            Ok(Some(_)) => Ok(()),
            _ => Err("not there".into()),
        },
        timeout_ms,
    )
    .await;
}

/// Every element matching `selector` in the view, in document order.
pub fn select_all(view: &Mounted, selector: &str) -> Vec<web_sys::Element> {
    let list = view.root.query_selector_all(selector).unwrap();
    (0..list.length())
        .filter_map(|index| list.item(index))
        .map(wasm_bindgen::JsCast::unchecked_into)
        .collect()
}

/// The trimmed texts of every element matching `selector`.
pub fn texts_of(view: &Mounted, selector: &str) -> Vec<String> {
    select_all(view, selector)
        .iter()
        .map(|element| element.text_content().unwrap_or_default().trim().to_owned())
        .collect()
}

pub fn local_storage() -> web_sys::Storage {
    web_sys::window().unwrap().local_storage().unwrap().unwrap()
}

pub fn session_storage() -> web_sys::Storage {
    web_sys::window()
        .unwrap()
        .session_storage()
        .unwrap()
        .unwrap()
}

/// Every slot of `storage` as `name=value` lines.
pub fn storage_text(storage: &web_sys::Storage) -> String {
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
}

/// The stored history's text, as the page keeps it.
pub fn stored_history_text() -> Option<String> {
    local_storage().get_item(crate::persist::RUNS_SLOT).unwrap()
}

/// The stored history's runs (none when nothing is stored).
pub fn stored_runs() -> Vec<serde_json::Value> {
    stored_history_text()
        .map(|text| {
            let document: serde_json::Value = serde_json::from_str(&text).unwrap();
            document["runs"].as_array().cloned().unwrap_or_default()
        })
        .unwrap_or_default()
}

/// `<html>`'s attribute `name`.
pub fn root_attribute(name: &str) -> Option<String> {
    web_sys::window()
        .unwrap()
        .document()
        .unwrap()
        .document_element()
        .unwrap()
        .get_attribute(name)
}

/// The page's own stylesheet in the test page, as index.html links it.
pub fn with_page_style() {
    let document = web_sys::window().unwrap().document().unwrap();
    if document.get_element_by_id("page-style").is_some() {
        return;
    }
    let style = document.create_element("style").unwrap();
    style.set_id("page-style");
    style.set_text_content(Some(include_str!("../../../../www/style.css")));
    document.head().unwrap().append_child(&style).unwrap();
}

/// `<body>`'s computed background colour.
pub fn body_background() -> String {
    js(
        "",
        "return getComputedStyle(document.body).backgroundColor;",
        &[],
    )
    .as_string()
    .unwrap_or_default()
}

/// Runs `body` (JavaScript) with `args` bound to `names`; its result.
pub fn js(names: &str, body: &str, args: &[JsValue]) -> JsValue {
    let function = js_sys::Function::new_with_args(names, body);
    let array = js_sys::Array::new();
    for arg in args {
        array.push(arg);
    }
    function
        .apply(&JsValue::NULL, &array)
        .unwrap_or_else(|error| panic!("{body}: {error:?}"))
}

/// A JavaScript value as JSON (through `JSON.stringify`).
pub fn as_json(value: &JsValue) -> serde_json::Value {
    let text = js_sys::JSON::stringify(value)
        .ok()
        .and_then(|text| text.as_string())
        .unwrap_or_else(|| "null".into());
    serde_json::from_str(&text).unwrap()
}

/// While it lives, this page seems framed by a host: `window.parent` is a stand-in whose
/// `postMessage` records what the page posts (data and target origin), as a host page's
/// `message` listener would see it. Dropping it puts the real `parent` back.
pub struct HostFrame;

impl HostFrame {
    pub fn install() -> HostFrame {
        js(
            "",
            "window.__shipSavedParent = Object.getOwnPropertyDescriptor(window, 'parent');
             window.__shipMessages = [];
             const host = { postMessage(data, origin) {
                 window.__shipMessages.push({ data: JSON.parse(JSON.stringify(data)), origin });
             } };
             Object.defineProperty(window, 'parent', { configurable: true, get() { return host; } });",
            &[],
        );
        HostFrame
    }

    /// Every message posted so far: `{data, origin}`.
    pub fn messages(&self) -> Vec<serde_json::Value> {
        let value = js("", "return window.__shipMessages;", &[]);
        as_json(&value).as_array().cloned().unwrap_or_default()
    }

    /// The messages' types, in order.
    pub fn types(&self) -> Vec<String> {
        self.messages()
            .iter()
            .map(|message| {
                message["data"]["type"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned()
            })
            .collect()
    }
}

impl Drop for HostFrame {
    fn drop(&mut self) {
        js(
            "",
            "const saved = window.__shipSavedParent;
             if (saved) { Object.defineProperty(window, 'parent', saved); } else { delete window.parent; }",
            &[],
        );
    }
}

/// While it lives, `navigator.clipboard.writeText` records the text instead (the clipboard
/// itself is the engine's, checked nowhere else: docs/e2e-inventory.md).
pub struct Clipboard;

impl Clipboard {
    pub fn install() -> Clipboard {
        js(
            "",
            "window.__shipCopied = [];
             Object.defineProperty(navigator, 'clipboard', { configurable: true, value: {
                 writeText(text) { window.__shipCopied.push(text); return Promise.resolve(); },
             } });",
            &[],
        );
        Clipboard
    }

    /// The texts written, in order.
    pub fn copied(&self) -> Vec<String> {
        let value = js("", "return window.__shipCopied;", &[]);
        as_json(&value)
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|text| text.as_str().map(str::to_owned))
            .collect()
    }
}

impl Drop for Clipboard {
    fn drop(&mut self) {
        js("", "delete navigator.clipboard;", &[]);
    }
}

/// While it lives, a click on a link that downloads (`<a download>`) records the file's
/// name and text instead of saving it (the file itself is the engine's: e2e keeps that).
pub struct Downloads;

impl Downloads {
    pub fn install() -> Downloads {
        js(
            "",
            "window.__shipDownloads = [];
             window.__shipClick = HTMLAnchorElement.prototype.click;
             HTMLAnchorElement.prototype.click = function () {
                 if (!this.download) { return window.__shipClick.call(this); }
                 const request = new XMLHttpRequest();
                 request.open('GET', this.href, false);
                 request.send();
                 window.__shipDownloads.push({ name: this.download, text: request.responseText });
             };",
            &[],
        );
        Downloads
    }

    /// `(file name, text)` of every download so far.
    pub fn files(&self) -> Vec<(String, String)> {
        let value = js("", "return window.__shipDownloads;", &[]);
        as_json(&value)
            .as_array()
            .into_iter()
            .flatten()
            .map(|file| {
                (
                    file["name"].as_str().unwrap_or_default().to_owned(),
                    file["text"].as_str().unwrap_or_default().to_owned(),
                )
            })
            .collect()
    }

    /// The text of the newest download whose name ends with `suffix`.
    pub fn last(&self, suffix: &str) -> String {
        self.files()
            .into_iter()
            .rev()
            .find(|(name, _)| name.ends_with(suffix))
            .unwrap_or_else(|| panic!("no {suffix} was downloaded: {:?}", self.files()))
            .1
    }
}

impl Drop for Downloads {
    fn drop(&mut self) {
        js("", "delete HTMLAnchorElement.prototype.click;", &[]);
    }
}

/// The collector of these tests: nothing listens at this origin; [`Collector`] answers
/// for it.
pub const COLLECTOR: &str = "http://127.0.0.1:4318";

/// While it lives, `fetch` to [`COLLECTOR`] is answered in the page with `status` (each
/// request recorded: URL, headers, body); any other fetch goes out as before. The real
/// collector (CORS, the strict OTLP parser) is e2e/fleet.test.mjs's.
pub struct Collector;

impl Collector {
    pub fn install(status: u16) -> Collector {
        js(
            "status",
            "window.__shipCollected = [];
             window.__shipCollectorStatus = status;
             window.__shipFetch = window.fetch;
             window.fetch = async function (input, init) {
                 const request = new Request(input, init);
                 if (!request.url.startsWith('http://127.0.0.1:4318/')) {
                     return window.__shipFetch.call(window, input, init);
                 }
                 window.__shipCollected.push({
                     url: request.url,
                     headers: Object.fromEntries(request.headers.entries()),
                     body: await request.text(),
                 });
                 const code = window.__shipCollectorStatus;
                 if (code === 0) { throw new TypeError('Failed to fetch'); }
                 return new Response(code < 300 ? '{}' : 'refused', {
                     status: code, headers: { 'content-type': 'application/json' },
                 });
             };",
            &[JsValue::from(status)],
        );
        Collector
    }

    /// What the collector answers from now on (0: the fetch fails, as a CORS refusal does).
    pub fn answer(&self, status: u16) {
        js(
            "status",
            "window.__shipCollectorStatus = status;",
            &[JsValue::from(status)],
        );
    }

    /// Every request the collector got: `{url, headers, body}`.
    pub fn requests(&self) -> Vec<serde_json::Value> {
        let value = js("", "return window.__shipCollected;", &[]);
        as_json(&value).as_array().cloned().unwrap_or_default()
    }
}

impl Drop for Collector {
    fn drop(&mut self) {
        js("", "window.fetch = window.__shipFetch;", &[]);
    }
}

/// The test page's address (path, query, fragment), to put back after a test changed it.
pub fn address() -> String {
    let location = web_sys::window().unwrap().location();
    format!(
        "{}{}{}",
        location.pathname().unwrap(),
        location.search().unwrap(),
        location.hash().unwrap()
    )
}

/// Replaces the test page's address (no navigation), as a link or a reload would set it.
pub fn set_address(url: &str) {
    web_sys::window()
        .unwrap()
        .history()
        .unwrap()
        .replace_state_with_url(&JsValue::NULL, "", Some(url))
        .unwrap();
}

/// Every 8-character window of `key`: a text that holds any of them holds a piece of it.
pub fn key_windows(key: &str) -> Vec<&str> {
    (0..=key.len() - 8)
        .map(|start| &key[start..start + 8])
        .collect()
}

/// Fails when `text` (found in `place`) holds a piece of `key`.
pub fn assert_no_key(key: &str, text: &str, place: &str) {
    for piece in key_windows(key) {
        assert!(
            !text.contains(piece),
            "{piece:?} of the key is in {place}: {text}"
        );
    }
}
