//! The session: every finished run of this page (and those read back from storage), one
//! [`RunRecord`] each, and which one is selected. Provided as context; the runs table, the
//! summaries, the charts, the history, exports and messages all read these records.
//!
//! Storage follows the session: every change is saved, at most every
//! [`SAVE_INTERVAL_MS`] while a series runs (writing serializes every stored run), at once
//! when a series ends, a run is deleted or the page is hidden.

use leptos::prelude::*;
use ttft_core::record::RunRecord;

use crate::{clock, persist};

/// While a series runs, the history is written at most this often.
pub const SAVE_INTERVAL_MS: f64 = 2_000.0;

/// The session's runs. Cheap to copy.
#[derive(Clone, Copy)]
pub struct Session {
    /// Every run, oldest first (a failed run is kept with its diagnosis).
    pub runs: RwSignal<Vec<RunRecord>>,
    /// The `run_index` of the run whose details are shown.
    pub selected: RwSignal<Option<u32>>,
    unsaved: StoredValue<bool>,
    last_saved_ms: StoredValue<f64>,
}

impl Default for Session {
    fn default() -> Self {
        Self::new()
    }
}

impl Session {
    /// An empty session.
    pub fn new() -> Session {
        Session {
            runs: RwSignal::new(Vec::new()),
            selected: RwSignal::new(None),
            unsaved: StoredValue::new(false),
            last_saved_ms: StoredValue::new(f64::NEG_INFINITY),
        }
    }

    /// The session with the stored history, the newest run selected.
    pub fn restored() -> Session {
        let session = Session::new();
        let stored = persist::load_runs();
        session
            .selected
            .set(stored.last().map(|record| record.run_index));
        session.runs.set(stored);
        session
    }

    /// Keeps a finished run: numbers it after the last one, makes it canonical (as storage
    /// and exports write it), selects it, and marks the history for saving. Returns the
    /// record as kept.
    pub fn push(&self, mut record: RunRecord) -> RunRecord {
        record.run_index = self
            .runs
            .with_untracked(|runs| runs.last().map_or(1, |last| last.run_index + 1));
        let record = record.canonicalized().unwrap_or_else(|_| record.redacted());
        self.runs.update(|runs| runs.push(record.clone()));
        self.selected.set(Some(record.run_index));
        self.unsaved.set_value(true);
        record
    }

    /// Deletes one run.
    pub fn delete(&self, run_index: u32) {
        self.runs
            .update(|runs| runs.retain(|record| record.run_index != run_index));
        if self.selected.get_untracked() == Some(run_index) {
            self.selected.set(None);
        }
        self.unsaved.set_value(true);
        self.save(true);
    }

    /// Deletes every run.
    pub fn clear(&self) {
        self.runs.set(Vec::new());
        self.selected.set(None);
        self.unsaved.set_value(true);
        self.save(true);
    }

    /// Replaces every run (an import), the newest selected.
    pub fn replace(&self, records: Vec<RunRecord>) {
        self.selected
            .set(records.last().map(|record| record.run_index));
        self.runs.set(records);
        self.unsaved.set_value(true);
        self.save(true);
    }

    /// Writes the history when it changed and either `now` is asked or
    /// [`SAVE_INTERVAL_MS`] have passed since the last write. Returns whether it wrote.
    pub fn save(&self, now: bool) -> bool {
        let at_ms = clock::now_ms();
        if !self.unsaved.get_value()
            || !(now || at_ms - self.last_saved_ms.get_value() >= SAVE_INTERVAL_MS)
        {
            return false;
        }
        self.runs.with_untracked(|runs| persist::save_runs(runs));
        self.unsaved.set_value(false);
        self.last_saved_ms.set_value(at_ms);
        true
    }

    /// The selected run, if any.
    pub fn selected_record(&self) -> Option<RunRecord> {
        let selected = self.selected.get()?;
        self.runs.with(|runs| {
            runs.iter()
                .find(|record| record.run_index == selected)
                .cloned()
        })
    }
}
