//! Where the API key lives: `sessionStorage` only, gone when the tab closes, together with
//! the origin it was typed for, the user's answers for other origins and the keys the tab
//! held before (for scrubbing only) ([`KeyBinding`], one JSON slot).
//!
//! The key is never written to localStorage, IndexedDB, cookies, the URL, logs or exports
//! (docs/DESIGN.md §5). This module is the only code that touches it at rest.

use ttft_core::key_binding::KeyBinding;
use ttft_core::scrub::KeyScrubber;

/// The sessionStorage slot holding the key and its origin (JSON; a plain key from earlier
/// versions is read as bound to no origin).
pub const API_KEY_SLOT: &str = "ttft-meter.api-key";

fn session_storage() -> Option<web_sys::Storage> {
    web_sys::window()?.session_storage().ok().flatten()
}

/// The key saved in this tab, with its origin (empty when none).
pub fn load_key_binding() -> KeyBinding {
    session_storage()
        .and_then(|storage| storage.get_item(API_KEY_SLOT).ok().flatten())
        .map(|text| KeyBinding::from_stored(&text))
        .unwrap_or_default()
}

/// Keeps the key for this tab only; a binding holding no key (current or earlier) clears
/// the slot.
pub fn save_key_binding(binding: &KeyBinding) {
    let Some(storage) = session_storage() else {
        return;
    };
    // A failing write (storage disabled) only costs the user retyping the key.
    let _ = if binding.holds_anything() {
        storage.set_item(API_KEY_SLOT, &binding.to_stored())
    } else {
        storage.remove_item(API_KEY_SLOT)
    };
}

/// The "forget key" control: removes the key (and every answer about it) from this tab.
pub fn forget_api_key() {
    save_key_binding(&KeyBinding::default());
}

/// A scrubber for every key saved in this tab (current and earlier), read straight from
/// storage (for code that runs outside the app's reactive state: the panic hook, a run).
pub fn stored_key_scrubber() -> Option<KeyScrubber> {
    KeyScrubber::for_keys(load_key_binding().held_keys())
}

/// Every key saved in this tab (current and earlier), for a run to scrub besides the one
/// it sends.
pub fn held_keys() -> Vec<String> {
    load_key_binding().held_keys().map(str::to_owned).collect()
}
