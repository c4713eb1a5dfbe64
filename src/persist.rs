//! What the page keeps in `localStorage`: finished runs (never the key), and the language
//! and theme choices.
//!
//! Runs are stored as ttft-core's export document ([`ExportDocument`]): the same versioned
//! schema as the JSON export, so stored history and exported files can never drift apart.
//! The storage slot name carries its own version, so a future incompatible layout starts a
//! new slot instead of misreading an old one.

use ttft_core::export::{Environment, ExportDocument};
use ttft_core::lang::Lang;
use ttft_core::record::{RunRecord, Transport};

use crate::clock;

/// The localStorage slot of the run history (versioned).
pub const RUNS_SLOT: &str = "ttft-meter.runs.v1";
/// The localStorage slot of the chosen language (`en` / `zh`).
pub const LANG_SLOT: &str = "ttft-meter.lang";
/// The localStorage slot of the chosen theme (`light` / `dark`; absent: the system's).
pub const THEME_SLOT: &str = "ttft-meter.theme";
/// The most runs kept: older ones are dropped first, so storage stays far under the
/// browser's ~5 MB per-origin quota (a run with its ITL gaps is a few KB).
pub const MAX_STORED_RUNS: usize = 1000;

fn local_storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok().flatten()
}

/// Reads a small preference.
pub fn load_preference(slot: &str) -> Option<String> {
    local_storage()?.get_item(slot).ok().flatten()
}

/// Writes a small preference (`None` removes it). A failing write only costs the choice.
pub fn save_preference(slot: &str, value: Option<&str>) {
    if let Some(storage) = local_storage() {
        let _ = match value {
            Some(value) => storage.set_item(slot, value),
            None => storage.remove_item(slot),
        };
    }
}

/// The language saved by an earlier visit, if any.
pub fn saved_lang() -> Option<Lang> {
    Lang::from_code(&load_preference(LANG_SLOT)?)
}

/// This page's origin (`location.origin`).
pub fn page_origin() -> String {
    web_sys::window()
        .and_then(|window| window.location().origin().ok())
        .unwrap_or_default()
}

/// Where the measurement was taken, for export documents.
pub fn environment(transport: Transport) -> Environment {
    Environment {
        user_agent: web_sys::window()
            .and_then(|window| window.navigator().user_agent().ok())
            .unwrap_or_default(),
        timer_resolution_ms: clock::timer_resolution_ms(),
        cross_origin_isolated: clock::cross_origin_isolated(),
        transport,
        page_origin: page_origin(),
    }
}

/// A document holding `runs` (at most the last [`MAX_STORED_RUNS`]).
pub fn document(runs: &[RunRecord], transport: Transport) -> ExportDocument {
    let mut document = ExportDocument::new(
        env!("CARGO_PKG_VERSION"),
        &clock::iso_time(clock::now_ms()),
        environment(transport),
    );
    let skip = runs.len().saturating_sub(MAX_STORED_RUNS);
    document.runs = runs[skip..].to_vec();
    document
}

/// The stored history, oldest first (empty when none, unreadable or of another schema).
pub fn load_runs() -> Vec<RunRecord> {
    load_preference(RUNS_SLOT)
        .and_then(|text| ExportDocument::from_json(&text).ok())
        .map(|document| document.runs)
        .unwrap_or_default()
}

/// Stores the history. When the quota is hit, the older half is dropped and it tries again,
/// so the newest runs are the ones kept.
pub fn save_runs(runs: &[RunRecord]) {
    let Some(storage) = local_storage() else {
        return;
    };
    if runs.is_empty() {
        let _ = storage.remove_item(RUNS_SLOT);
        return;
    }
    let mut kept = runs;
    loop {
        // Compact JSON (the export's pretty form is a third larger). The records are
        // canonical already (the session makes them so when it keeps them), so the document
        // is written as it is: no second rounding pass over every run.
        let Ok(text) = serde_json::to_string(&document(kept, Transport::Worker)) else {
            return;
        };
        if storage.set_item(RUNS_SLOT, &text).is_ok() || kept.len() <= 1 {
            return;
        }
        kept = &kept[kept.len() / 2..];
    }
}
