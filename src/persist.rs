//! Finished runs (never the key) kept in `localStorage`, so a reload loses nothing; the
//! page's language and theme choices next to them.
//!
//! Runs are stored as ttft-core's export document ([`ExportDocument`]): the same versioned
//! schema as the JSON export, so stored history and exported files can never drift apart,
//! and every stored request goes through [`export::RunRecord::redacted`]. The storage slot
//! name carries its own version, so a future incompatible layout starts a new slot instead
//! of misreading an old one.

use leptos::prelude::*;
use ttft_core::export::{
    self, cold_from_connection, Environment, ExportDocument, RunSettings as ExportSettings,
};
use ttft_core::lang::Lang;
use ttft_core::protocol::Protocol;

use crate::run::{RunRecord, ShownDiagnosis, Transport};
use crate::state::{FormState, RunEntry};

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
    match load_preference(LANG_SLOT)?.as_str() {
        "zh" => Some(Lang::Zh),
        "en" => Some(Lang::En),
        _ => None,
    }
}

/// The code stored and used in URLs for a language.
pub fn lang_code(lang: Lang) -> &'static str {
    match lang {
        Lang::En => "en",
        Lang::Zh => "zh",
    }
}

/// `performance.timeOrigin + at_ms` as ISO 8601 UTC: the wall-clock time of a page-clock
/// instant of this page load.
pub fn iso_time(at_ms: f64) -> String {
    let origin_ms = web_sys::window()
        .and_then(|window| window.performance())
        .map_or(0.0, |performance| performance.time_origin());
    let date = js_sys::Date::new(&(origin_ms + at_ms).into());
    date.to_iso_string().into()
}

/// Where the measurement was taken, for export documents.
pub fn environment() -> Environment {
    Environment {
        user_agent: web_sys::window()
            .and_then(|window| window.navigator().user_agent().ok())
            .unwrap_or_default(),
        timer_resolution_ms: crate::clock::timer_resolution_ms(),
        cross_origin_isolated: crate::clock::cross_origin_isolated(),
        transport: export::Transport::Worker,
        page_origin: crate::state::page_origin(),
    }
}

fn export_transport(transport: Transport) -> export::Transport {
    match transport {
        Transport::Worker => export::Transport::Worker,
        Transport::MainThread => export::Transport::MainThread,
    }
}

/// The export record of a run made on this page load. What the app's [`RunRecord`] does
/// not hold (output limit, reasoning, TTFT-only) is read from the form, which is locked
/// while a series runs, so it still holds what the run sent.
pub fn export_record(entry: &RunEntry, form: &FormState) -> export::RunRecord {
    let record = &entry.record;
    let request = record.request.clone();
    let endpoint_url = request.as_ref().map_or_else(
        || form.base_url.get_untracked(),
        |request| request.url.clone(),
    );
    let protocol = request.as_ref().map_or_else(
        || form.protocol.get_untracked().resolve(&endpoint_url),
        |request| request.protocol,
    );
    let max_tokens = form.max_tokens.get_untracked().trim().parse::<u32>().ok();
    let exported = export::RunRecord {
        run_index: u32::try_from(entry.number).unwrap_or(u32::MAX),
        started_at: iso_time(record.instants.request_started),
        settings: ExportSettings {
            protocol,
            endpoint_url,
            model: entry.model.clone(),
            dialect: record.dialect,
            max_tokens,
            ttft_only: form.ttft_only.get_untracked(),
            reasoning: form.reasoning.get_untracked(),
            request,
        },
        transport: export_transport(record.transport),
        cold: record
            .network
            .as_ref()
            .and_then(|network| cold_from_connection(network.connection)),
        warm_up: entry.warmup,
        metrics: record.metrics.clone(),
        instants: record.instants.clone(),
        usage: None,
        network: record.network.clone(),
        outcome: record.outcome.clone(),
        diagnosis_cause: record
            .diagnosis
            .as_ref()
            .map(|diagnosis| diagnosis.cause_code.clone()),
    };
    // Canonical once, here, so saving the history need not round every run again.
    exported
        .canonicalized()
        .unwrap_or_else(|_| exported.redacted())
}

/// A stored or imported run as the widget shows it. The diagnosis text is not stored (only
/// its cause code), so a failed run from history shows its code (`key_refused`, …).
pub fn entry_from_export(record: &export::RunRecord) -> RunEntry {
    RunEntry {
        number: record.run_index as usize,
        warmup: record.warm_up,
        model: record.settings.model.clone(),
        record: RunRecord {
            metrics: record.metrics.clone(),
            outcome: record.outcome.clone(),
            instants: record.instants.clone(),
            network: record.network.clone(),
            diagnosis: record
                .diagnosis_cause
                .as_ref()
                .map(|cause_code| ShownDiagnosis {
                    cause_code: cause_code.clone(),
                    // The stable code, the same in both languages.
                    title: cause_code.clone(),
                    fix: String::new(),
                }),
            request: record.settings.request.clone(),
            transport: match record.transport {
                export::Transport::Worker => Transport::Worker,
                export::Transport::MainThread => Transport::MainThread,
            },
            dialect: record.settings.dialect,
        },
    }
}

/// A document holding `runs` (at most the last [`MAX_STORED_RUNS`]).
pub fn document(runs: &[export::RunRecord]) -> ExportDocument {
    let mut document = ExportDocument::new(
        env!("CARGO_PKG_VERSION"),
        &iso_time(now_ms()),
        environment(),
    );
    let skip = runs.len().saturating_sub(MAX_STORED_RUNS);
    document.runs = runs[skip..].to_vec();
    document
}

/// `performance.now()` (0 when unavailable).
pub fn now_ms() -> f64 {
    web_sys::window()
        .and_then(|window| window.performance())
        .map_or(0.0, |performance| performance.now())
}

/// The stored history, oldest first (empty when none, unreadable or of another schema).
pub fn load_runs() -> Vec<export::RunRecord> {
    load_preference(RUNS_SLOT)
        .and_then(|text| ExportDocument::from_json(&text).ok())
        .map(|document| document.runs)
        .unwrap_or_default()
}

/// Stores the history. When the quota is hit, the older half is dropped and it tries again,
/// so the newest runs are the ones kept.
pub fn save_runs(runs: &[export::RunRecord]) {
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
        // canonical already (made by `export_record`, or read from storage or an import),
        // so the document is written as it is: no second rounding pass over every run.
        let Ok(text) = serde_json::to_string(&document(kept)) else {
            return;
        };
        if storage.set_item(RUNS_SLOT, &text).is_ok() || kept.len() <= 1 {
            return;
        }
        kept = &kept[kept.len() / 2..];
    }
}

/// The export records of the session, kept beside `Session::runs` (same run numbers), so
/// exporting and storing use exactly what was recorded or imported. Provided as context.
#[derive(Clone, Copy)]
pub struct Archive {
    /// One record per run of the session, oldest first.
    pub records: RwSignal<Vec<export::RunRecord>>,
    /// Whether `records` holds changes not yet written to storage.
    unsaved: StoredValue<bool>,
    /// Page-clock time of the last write, ms.
    last_saved_ms: StoredValue<f64>,
}

impl Default for Archive {
    fn default() -> Self {
        Self::new()
    }
}

/// While a series runs, the history is written at most this often: writing it serializes
/// every stored run (a few MB at [`MAX_STORED_RUNS`]), too much to repeat for every run.
/// The series' end, a deletion and leaving the page write at once.
pub const SAVE_INTERVAL_MS: f64 = 2_000.0;

impl Archive {
    /// An empty archive.
    pub fn new() -> Archive {
        Archive {
            records: RwSignal::new(Vec::new()),
            unsaved: StoredValue::new(false),
            last_saved_ms: StoredValue::new(f64::NEG_INFINITY),
        }
    }

    /// Writes the records when they changed and either `now` is asked or
    /// [`SAVE_INTERVAL_MS`] have passed since the last write. Returns whether it wrote.
    pub fn save(&self, now: bool) -> bool {
        let at_ms = now_ms();
        if !self.unsaved.get_value()
            || !(now || at_ms - self.last_saved_ms.get_value() >= SAVE_INTERVAL_MS)
        {
            return false;
        }
        self.records.with_untracked(|records| save_runs(records));
        self.unsaved.set_value(false);
        self.last_saved_ms.set_value(at_ms);
        true
    }

    /// Brings the archive in line with the session's runs: records of new runs are made
    /// from the form, records of deleted runs dropped, and the change marked for the next
    /// [`save`](Self::save). Returns `None` when nothing changed, else the run numbers of the
    /// records made now (the new runs).
    pub fn sync(&self, runs: &[RunEntry], form: &FormState) -> Option<Vec<u32>> {
        // Records never change once made, so equal run numbers in the same order mean
        // nothing to do: an O(n) check of numbers, not a deep comparison of records.
        let unchanged = self.records.with_untracked(|records| {
            records.len() == runs.len()
                && records
                    .iter()
                    .zip(runs)
                    .all(|(record, entry)| record.run_index as usize == entry.number)
        });
        if unchanged {
            return None;
        }
        let mut kept: std::collections::HashMap<usize, export::RunRecord> = self
            .records
            .update_untracked(std::mem::take)
            .into_iter()
            .map(|record| (record.run_index as usize, record))
            .collect();
        let mut made = Vec::new();
        let synced: Vec<export::RunRecord> = runs
            .iter()
            .map(|entry| {
                kept.remove(&entry.number).unwrap_or_else(|| {
                    let record = export_record(entry, form);
                    made.push(record.run_index);
                    record
                })
            })
            .collect();
        self.records.set(synced);
        self.unsaved.set_value(true);
        Some(made)
    }
}

/// The protocol of an export record, as a short code for messages.
pub fn protocol_code(protocol: Protocol) -> &'static str {
    match protocol {
        Protocol::OpenAiChat => "chat",
        Protocol::AnthropicMessages => "anthropic",
        Protocol::OpenAiResponses => "responses",
    }
}
