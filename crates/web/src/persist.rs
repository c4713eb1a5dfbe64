//! What the page keeps in `localStorage`: finished runs (never the key), and the language
//! and theme choices.
//!
//! Runs are stored as ttft-core's export document ([`ExportDocument`]): the same versioned
//! schema as the JSON export, so stored history and exported files can never drift apart.
//! The storage slot name carries its own version, so a future incompatible layout starts a
//! new slot instead of misreading an old one. The rules (what is refused, renumbered, set
//! aside, and what the user is told) are ttft-core's [`ttft_core::history`].

use ttft_core::export::{Environment, ExportDocument};
use ttft_core::history::{self, HistoryNotice, StoredRun};
use ttft_core::lang::Lang;
use ttft_core::record::{RunRecord, Transport};
use ttft_core::scrub::KeyScrubber;

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

/// The stored history as read at start-up.
pub struct LoadedRuns {
    /// The runs, oldest first (scrubbed of the current key, renumbered when needed).
    pub runs: Vec<RunRecord>,
    /// What the user should know (runs renumbered, a history set aside).
    pub notice: Option<HistoryNotice>,
    /// Whether this tab may write the history slot (not when an unreadable history had to
    /// be left in it).
    pub may_save: bool,
}

/// Reads the stored history. One that cannot be read (not JSON, another schema, a newer
/// version) is never overwritten: it is moved to a slot of its own and reported, or, when
/// there is no room to move it, left where it is and saving is turned off for this tab.
pub fn load_runs(scrubber: Option<&KeyScrubber>) -> LoadedRuns {
    let empty = |notice, may_save| LoadedRuns {
        runs: Vec::new(),
        notice,
        may_save,
    };
    let Some(text) = load_preference(RUNS_SLOT) else {
        return empty(None, true);
    };
    let reason = match history::read_stored(&text, scrubber) {
        Ok((runs, notice)) => {
            return LoadedRuns {
                runs,
                notice,
                may_save: true,
            }
        }
        Err(reason) => reason,
    };
    let slot = format!(
        "{RUNS_SLOT}.unreadable-{}",
        clock::iso_time(clock::now_ms()).replace(':', "-")
    );
    let moved = local_storage().is_some_and(|storage| {
        storage.set_item(&slot, &text).is_ok() && storage.remove_item(RUNS_SLOT).is_ok()
    });
    if moved {
        empty(Some(HistoryNotice::SetAside { slot, reason }), true)
    } else {
        empty(Some(HistoryNotice::UnreadableKept { reason }), false)
    }
}

/// Stores the history (`runs`: each run's JSON, oldest first). Runs that still hold a piece
/// of the key are not written. When the quota is hit, the older half is dropped and it
/// tries again, so the newest runs are the ones kept. Returns what the user should know.
pub fn save_runs(runs: &[&StoredRun], scrubber: Option<&KeyScrubber>) -> Vec<HistoryNotice> {
    let Some(storage) = local_storage() else {
        return vec![HistoryNotice::NotSaved { runs: runs.len() }];
    };
    if runs.is_empty() {
        let _ = storage.remove_item(RUNS_SLOT);
        return Vec::new();
    }
    let skip = runs.len().saturating_sub(MAX_STORED_RUNS);
    let envelope = document(&[], Transport::Worker);
    let mut kept = &runs[skip..];
    loop {
        // Compact JSON (the export's pretty form is a third larger), of runs serialized
        // once when the session kept them.
        let Ok((text, refused)) = history::stored_text(&envelope, kept, scrubber) else {
            return vec![HistoryNotice::NotSaved { runs: runs.len() }];
        };
        let mut notices = Vec::new();
        if refused > 0 {
            notices.push(HistoryNotice::KeyFound { runs: refused });
        }
        if !text.is_empty() && storage.set_item(RUNS_SLOT, &text).is_ok() {
            if kept.len() < runs.len() - skip {
                notices.push(HistoryNotice::StorageFull {
                    saved: kept.len(),
                    not_saved: runs.len() - kept.len(),
                });
            }
            return notices;
        }
        if text.is_empty() || kept.len() <= 1 {
            notices.push(HistoryNotice::NotSaved { runs: runs.len() });
            return notices;
        }
        kept = &kept[kept.len() / 2..];
    }
}
