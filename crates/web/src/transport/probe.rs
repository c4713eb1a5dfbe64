//! After a run fails as a network error: did the endpoint's host answer at all? The browser
//! reports a CORS refusal and an unreachable host with the same error ("Failed to fetch"), so
//! the page asks once more, in a way CORS cannot refuse: a keyless `no-cors` GET of the same
//! URL (no query, fragment or user; never one holding a key the tab holds). Its answer is
//! opaque, but the `fetch()` resolves only when the host answered
//! (`ttft_core::diagnosis::FailureContext::answers_without_cors`).

use js_sys::{Object, Reflect};
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

use crate::clock::Timer;

/// The longest the probe is waited for, ms: a host that takes longer is taken as not
/// answering (a run already failed; the diagnosis should not wait long).
pub const PROBE_TIMEOUT_MS: f64 = 5_000.0;

/// Whether the host of `url` answers a keyless `no-cors` GET: `Some(true)` it did,
/// `Some(false)` it did not (within [`PROBE_TIMEOUT_MS`]), `None` not asked (no window, or
/// the URL holds a key or is not http(s)).
pub async fn answers_without_cors(url: &str) -> Option<bool> {
    let url = super::pings::ping_url(url, &crate::storage::held_keys())?;
    let window = web_sys::window()?;
    let abort = web_sys::AbortController::new().ok()?;
    let init = web_sys::RequestInit::new();
    init.set_method("GET");
    init.set_mode(web_sys::RequestMode::NoCors);
    init.set_signal(Some(&abort.signal()));
    // No cookies, no cache: the probe must reach the host, and carry nothing of the user's.
    let object: &Object = init.unchecked_ref();
    let _ = Reflect::set(object, &"credentials".into(), &"omit".into());
    let _ = Reflect::set(object, &"cache".into(), &"no-store".into());
    super::space::declare(object, &url);
    let _deadline = Timer::once(PROBE_TIMEOUT_MS, {
        let abort = abort.clone();
        move || abort.abort()
    });
    let answered = JsFuture::from(window.fetch_with_str_and_init(&url, &init))
        .await
        .is_ok();
    Some(answered)
}
