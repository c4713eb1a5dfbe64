//! The session: every finished run of this page (and those read back from storage), one
//! [`RunRecord`] each, and which one is selected. Provided as context; the runs table, the
//! summaries, the charts, the history, exports and messages all read these records.
//!
//! Storage follows the session: every finished run is saved at once (a crash or a closed
//! tab loses nothing), as are deletions and imports. Each run is serialized once, when it is
//! kept ([`StoredRun`]), so a save copies the stored texts instead of serializing every run
//! again. What the user should know about storage (full, a history set aside, runs
//! renumbered or refused) is in [`Session::notices`].

use leptos::prelude::*;
use ttft_core::history::{HistoryNotice, StoredRun};
use ttft_core::record::RunRecord;
use ttft_core::scrub::KeyScrubber;

use crate::key_gate::KeyGate;
use crate::persist;

/// The session's runs. Cheap to copy.
#[derive(Clone, Copy)]
pub struct Session {
    /// Every run, oldest first (a failed run is kept with its diagnosis).
    pub runs: RwSignal<Vec<RunRecord>>,
    /// The `run_index` of the run whose details are shown.
    pub selected: RwSignal<Option<u32>>,
    /// What the user should know about the stored history.
    pub notices: RwSignal<Vec<HistoryNotice>>,
    /// Each run's stored JSON, in the order of `runs` (`None` for a run that could not be
    /// serialized: it is not stored).
    stored: StoredValue<Vec<Option<StoredRun>>>,
    unsaved: StoredValue<bool>,
    may_save: StoredValue<bool>,
    /// The key's gate: what is stored is checked against the current key.
    gate: Option<KeyGate>,
}

impl Default for Session {
    fn default() -> Self {
        Self::new()
    }
}

fn stored_runs(records: &[RunRecord]) -> Vec<Option<StoredRun>> {
    records
        .iter()
        .map(|record| StoredRun::new(record).ok())
        .collect()
}

impl Session {
    /// An empty session.
    pub fn new() -> Session {
        Session {
            runs: RwSignal::new(Vec::new()),
            selected: RwSignal::new(None),
            notices: RwSignal::new(Vec::new()),
            stored: StoredValue::new(Vec::new()),
            unsaved: StoredValue::new(false),
            may_save: StoredValue::new(true),
            gate: None,
        }
    }

    /// The session with the stored history (scrubbed of the gate's key), the newest run
    /// selected, and what the user should know about it.
    pub fn restored(gate: KeyGate) -> Session {
        let session = Session {
            gate: Some(gate),
            ..Session::new()
        };
        let loaded = persist::load_runs(gate.scrubber().as_ref());
        session
            .selected
            .set(loaded.runs.last().map(|record| record.run_index));
        session.stored.set_value(stored_runs(&loaded.runs));
        session.runs.set(loaded.runs);
        session.may_save.set_value(loaded.may_save);
        session.notices.set(loaded.notice.into_iter().collect());
        session
    }

    /// Keeps a finished run: numbers it after the last one, makes it canonical (as storage
    /// and exports write it), selects it, and saves the history at once. Returns the record
    /// as kept.
    pub fn push(&self, mut record: RunRecord) -> RunRecord {
        record.run_index = self
            .runs
            .with_untracked(|runs| runs.last().map_or(1, |last| last.run_index + 1));
        let record = record.canonicalized().unwrap_or_else(|_| record.redacted());
        self.stored
            .update_value(|stored| stored.push(StoredRun::new(&record).ok()));
        self.runs.update(|runs| runs.push(record.clone()));
        self.selected.set(Some(record.run_index));
        self.unsaved.set_value(true);
        self.save();
        record
    }

    /// Deletes one run.
    pub fn delete(&self, run_index: u32) {
        let position = self
            .runs
            .with_untracked(|runs| runs.iter().position(|record| record.run_index == run_index));
        let Some(position) = position else {
            return;
        };
        self.stored.update_value(|stored| {
            if position < stored.len() {
                stored.remove(position);
            }
        });
        self.runs.update(|runs| {
            runs.remove(position);
        });
        if self.selected.get_untracked() == Some(run_index) {
            self.selected.set(None);
        }
        self.unsaved.set_value(true);
        self.save();
    }

    /// Deletes every run.
    pub fn clear(&self) {
        self.stored.set_value(Vec::new());
        self.runs.set(Vec::new());
        self.selected.set(None);
        self.unsaved.set_value(true);
        self.save();
    }

    /// Replaces every run (an import, already prepared by
    /// [`ttft_core::history::prepare_runs`]), the newest selected.
    pub fn replace(&self, records: Vec<RunRecord>) {
        self.selected
            .set(records.last().map(|record| record.run_index));
        self.stored.set_value(stored_runs(&records));
        self.runs.set(records);
        self.unsaved.set_value(true);
        self.save();
    }

    /// Writes the history when it changed since the last write (every change saves at
    /// once; the page being hidden flushes anything left). Returns whether it wrote.
    pub fn save(&self) -> bool {
        if !self.unsaved.get_value() || !self.may_save.get_value() {
            return false;
        }
        let scrubber: Option<KeyScrubber> = self.gate.and_then(|gate| gate.scrubber());
        let notices = self.stored.with_value(|stored| {
            let runs: Vec<&StoredRun> = stored.iter().flatten().collect();
            persist::save_runs(&runs, scrubber.as_ref())
        });
        self.set_storage_notices(notices);
        self.unsaved.set_value(false);
        true
    }

    /// Shows `notice` (an import's, an export's) beside the storage notices.
    pub fn notify(&self, notice: HistoryNotice) {
        self.notices.update(|notices| {
            notices.retain(|known| known.code() != notice.code());
            notices.push(notice);
        });
    }

    /// Removes the notice at `index` (the user read it).
    pub fn dismiss_notice(&self, index: usize) {
        self.notices.update(|notices| {
            if index < notices.len() {
                notices.remove(index);
            }
        });
    }

    /// The notices of the last save replace those of the save before (a full storage that
    /// has room again says nothing more).
    fn set_storage_notices(&self, fresh: Vec<HistoryNotice>) {
        let storage_codes = ["storage_full", "not_saved", "key_found"];
        let changed = self.notices.with_untracked(|notices| {
            let current: Vec<&HistoryNotice> = notices
                .iter()
                .filter(|notice| storage_codes.contains(&notice.code()))
                .collect();
            current.len() != fresh.len() || current.iter().zip(&fresh).any(|(a, b)| *a != b)
        });
        if changed {
            self.notices.update(|notices| {
                notices.retain(|notice| !storage_codes.contains(&notice.code()));
                notices.extend(fresh);
            });
        }
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
