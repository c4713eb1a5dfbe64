//! Browser tests of the app's glue, in headless Chromium (wasm-bindgen-test).
//!
//! Network tests talk to a real ttft-sim that the test command starts on 127.0.0.1 and
//! names in `TTFT_SIM_URL` at compile time.
#![cfg(target_arch = "wasm32")]
// clippy's allow-unwrap-in-tests does not see #[wasm_bindgen_test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use ttft_meter::storage;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn window() -> web_sys::Window {
    web_sys::window().expect("tests run in a window")
}

#[wasm_bindgen_test]
fn api_key_lives_in_session_storage_only() {
    let local = window().local_storage().unwrap().unwrap();
    let session = window().session_storage().unwrap().unwrap();
    local.clear().unwrap();
    storage::save_api_key("sk-test-123");
    assert_eq!(
        session.get_item(storage::API_KEY_SLOT).unwrap().as_deref(),
        Some("sk-test-123")
    );
    assert_eq!(storage::load_api_key(), "sk-test-123");
    assert_eq!(local.length().unwrap(), 0, "nothing may reach localStorage");
    let cookies = js_sys::Reflect::get(&window().document().unwrap(), &"cookie".into()).unwrap();
    assert!(!cookies.as_string().unwrap_or_default().contains("sk-test"));
    storage::forget_api_key();
    assert_eq!(session.get_item(storage::API_KEY_SLOT).unwrap(), None);
    assert_eq!(storage::load_api_key(), "");
}
