//! What a crash looks like: a plain-DOM banner (no Leptos: the app's state may be broken)
//! saying that the page stopped and that finished runs are saved, with a Reload link; and
//! the panic message in the console, scrubbed of the key.
//!
//! In the shipped build a panic aborts (`panic = "abort"`): the hook runs, nothing after
//! it. So nothing here calls back into the app, and the Reload control is a plain link to
//! the page itself (it works with no script at all). The history is saved after every
//! finished run ([`crate::session::Session::push`]), so it is already saved when a panic
//! comes.

use ttft_core::lang::Lang;
use wasm_bindgen::JsValue;

use crate::texts as t;

/// The banner's element id (only one banner is ever shown).
pub const BANNER_ID: &str = "crash-banner";

/// The page's language, as the `lang` attribute of `<html>` says it.
fn page_lang(lang: &str) -> Lang {
    if lang.starts_with("zh") {
        Lang::Zh
    } else {
        Lang::En
    }
}

/// Appends the banner to `<body>` (once).
pub fn show_banner() {
    let Some(document) = web_sys::window().and_then(|window| window.document()) else {
        return;
    };
    if document.get_element_by_id(BANNER_ID).is_some() {
        return;
    }
    let lang = page_lang(
        &document
            .document_element()
            .and_then(|root| root.get_attribute("lang"))
            .unwrap_or_default(),
    );
    let message = t::CRASH_MESSAGE.get(lang);
    let reload = t::CRASH_RELOAD.get(lang);
    let build = || -> Result<web_sys::Element, JsValue> {
        let banner = document.create_element("div")?;
        banner.set_id(BANNER_ID);
        banner.set_class_name("crash-banner");
        banner.set_attribute("role", "alert")?;
        banner.set_attribute("data-testid", "crash-banner")?;
        let text = document.create_element("p")?;
        text.set_text_content(Some(message));
        // A link to this very page: reloading needs no script.
        let link = document.create_element("a")?;
        link.set_attribute("href", "")?;
        link.set_class_name("button-like");
        link.set_attribute("data-testid", "crash-reload")?;
        link.set_text_content(Some(reload));
        banner.append_child(&text)?;
        banner.append_child(&link)?;
        Ok(banner)
    };
    if let (Ok(banner), Some(body)) = (build(), document.body()) {
        let _ = body.prepend_with_node_1(&banner);
    }
}

/// The panic hook: the message (scrubbed of the key) and its stack to the console, then
/// the banner.
pub fn install() {
    std::panic::set_hook(Box::new(|info| {
        let mut message = info.to_string();
        if let Some(scrubber) = crate::storage::stored_key_scrubber() {
            message = scrubber.scrub(&message).into_owned();
        }
        let stack = js_sys::Reflect::get(&js_sys::Error::new(""), &"stack".into())
            .ok()
            .and_then(|stack| stack.as_string())
            .unwrap_or_default();
        web_sys::console::error_1(&JsValue::from_str(&format!("{message}\n\nStack:\n{stack}")));
        show_banner();
    }));
}

/// Whether the page was opened with `debug_panic=1`: the app then panics on purpose when
/// its first series ends (after the run was saved), to show and test the banner.
pub fn debug_panic_requested() -> bool {
    web_sys::window()
        .and_then(|window| window.location().search().ok())
        .is_some_and(|search| {
            search
                .trim_start_matches('?')
                .split('&')
                .any(|pair| pair == "debug_panic=1")
        })
}
