//! Where the API key lives: `sessionStorage` only, gone when the tab closes.
//!
//! The key is never written to localStorage, IndexedDB, cookies, the URL, logs or exports
//! (docs/DESIGN.md §5). This module is the only code that touches it at rest.

/// The sessionStorage slot holding the API key.
pub const API_KEY_SLOT: &str = "ttft-meter.api-key";

fn session_storage() -> Option<web_sys::Storage> {
    web_sys::window()?.session_storage().ok().flatten()
}

/// The key saved in this tab, or an empty string.
pub fn load_api_key() -> String {
    session_storage()
        .and_then(|storage| storage.get_item(API_KEY_SLOT).ok().flatten())
        .unwrap_or_default()
}

/// Keeps the key for this tab only; an empty key clears the slot.
pub fn save_api_key(api_key: &str) {
    let Some(storage) = session_storage() else {
        return;
    };
    // A failing write (storage disabled) only costs the user retyping the key.
    let _ = if api_key.is_empty() {
        storage.remove_item(API_KEY_SLOT)
    } else {
        storage.set_item(API_KEY_SLOT, api_key)
    };
}

/// The "forget key" control: removes the key from this tab.
pub fn forget_api_key() {
    save_api_key("");
}
