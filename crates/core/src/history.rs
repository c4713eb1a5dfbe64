//! The stored history and imported files: what is kept, what is refused, and what the page
//! tells the user about it ([`HistoryNotice`]). Pure: the page reads and writes storage and
//! files; the rules live here.
//!
//! - An imported file over [`MAX_IMPORT_BYTES`] is refused before it is read.
//! - Run numbers must rise strictly (each run is found by its number): a file or stored
//!   history with duplicate or unordered numbers is numbered again 1, 2, … in its order,
//!   and the page says so (`renumber`).
//! - Imported and restored records are scrubbed of the current key ([`crate::scrub`]).
//! - Before anything is written (storage, a JSON or CSV export), its text is checked against
//!   the current key: a record that still holds a piece of it is not written
//!   ([`stored_text`], [`check_export`]), and the page says so.

use serde::Serialize;
use serde_json::value::RawValue;

use crate::export::{Environment, ExperimentResult, ExportDocument, ExportError, ImportError};
use crate::lang::Lang;
use crate::record::RunRecord;
use crate::scrub::KeyScrubber;
use crate::texts as t;

/// The largest file the page imports, in bytes (checked with `File.size` before reading).
/// A history of 1000 runs is about 2 MB.
pub const MAX_IMPORT_BYTES: u64 = 16 * 1024 * 1024;

/// Something about the history the user should know, with its message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HistoryNotice {
    /// The chosen file is over [`MAX_IMPORT_BYTES`]; it was not read.
    FileTooLarge {
        /// The file's size.
        bytes: u64,
    },
    /// Run numbers were duplicated or out of order; the runs were numbered again.
    Renumbered {
        /// How many runs (numbered 1 to `runs`).
        runs: usize,
    },
    /// Browser storage is full: only the newest runs were saved.
    StorageFull {
        /// Runs saved (the newest).
        saved: usize,
        /// Runs not saved (the oldest).
        not_saved: usize,
    },
    /// Nothing could be saved (storage full even for one run, or disabled).
    NotSaved {
        /// Runs in the session that are not in storage.
        runs: usize,
    },
    /// Runs that still held a piece of the API key were not written (storage or export).
    KeyFound {
        /// How many.
        runs: usize,
    },
    /// An export was not written: its text held a piece of the API key.
    ExportRefused,
    /// The stored history could not be read; it was moved to another slot, untouched, and a
    /// new history started.
    SetAside {
        /// The localStorage slot it was moved to.
        slot: String,
        /// Why it could not be read.
        reason: ImportError,
    },
    /// The stored history could not be read, nor moved aside: it is left as it is, and this
    /// tab does not save runs (saving would overwrite it).
    UnreadableKept {
        /// Why it could not be read.
        reason: ImportError,
    },
}

impl HistoryNotice {
    /// A stable code for `data-notice` attributes and tests.
    pub fn code(&self) -> &'static str {
        match self {
            HistoryNotice::FileTooLarge { .. } => "file_too_large",
            HistoryNotice::Renumbered { .. } => "renumbered",
            HistoryNotice::StorageFull { .. } => "storage_full",
            HistoryNotice::NotSaved { .. } => "not_saved",
            HistoryNotice::KeyFound { .. } => "key_found",
            HistoryNotice::ExportRefused => "export_refused",
            HistoryNotice::SetAside { .. } => "set_aside",
            HistoryNotice::UnreadableKept { .. } => "unreadable_kept",
        }
    }

    /// The message for the user, in `lang`.
    pub fn message(&self, lang: Lang) -> String {
        let mib = |bytes: u64| bytes as f64 / (1024.0 * 1024.0);
        match self {
            HistoryNotice::FileTooLarge { bytes } => t::HISTORY_FILE_TOO_LARGE.fill(
                lang,
                &[
                    ("mib", &format!("{:.1}", mib(*bytes))),
                    ("max_mib", &format!("{:.0}", mib(MAX_IMPORT_BYTES))),
                ],
            ),
            HistoryNotice::Renumbered { runs } => {
                t::HISTORY_RENUMBERED.fill(lang, &[("runs", &runs)])
            }
            HistoryNotice::StorageFull { saved, not_saved } => {
                t::HISTORY_STORAGE_FULL.fill(lang, &[("saved", &saved), ("not_saved", &not_saved)])
            }
            HistoryNotice::NotSaved { runs } => t::HISTORY_NOT_SAVED.fill(lang, &[("runs", &runs)]),
            HistoryNotice::KeyFound { runs } => t::HISTORY_KEY_FOUND.fill(lang, &[("runs", &runs)]),
            HistoryNotice::ExportRefused => t::HISTORY_EXPORT_REFUSED.get(lang).to_owned(),
            HistoryNotice::SetAside { slot, reason } => t::HISTORY_SET_ASIDE
                .fill(lang, &[("reason", &reason.message(lang)), ("slot", slot)]),
            HistoryNotice::UnreadableKept { reason } => {
                t::HISTORY_UNREADABLE_KEPT.fill(lang, &[("reason", &reason.message(lang))])
            }
        }
    }
}

/// Refuses a file over [`MAX_IMPORT_BYTES`] (call with `File.size` before reading it).
pub fn check_import_size(bytes: u64) -> Result<(), HistoryNotice> {
    if bytes > MAX_IMPORT_BYTES {
        return Err(HistoryNotice::FileTooLarge { bytes });
    }
    Ok(())
}

/// Numbers the runs 1, 2, … in their order when their numbers do not rise strictly from
/// 1 or more (duplicates, disorder, zeros). Returns whether it did.
fn renumber(runs: &mut [RunRecord]) -> bool {
    let rising = runs.first().is_none_or(|first| first.run_index >= 1)
        && runs
            .windows(2)
            .all(|pair| pair[0].run_index < pair[1].run_index);
    if rising {
        return false;
    }
    for (index, record) in runs.iter_mut().enumerate() {
        record.run_index = u32::try_from(index + 1).unwrap_or(u32::MAX);
    }
    true
}

/// Runs read from a file or from storage, made ready for the session: scrubbed of the
/// current key, and numbered again when their numbers do not rise (with a notice).
pub fn prepare_runs(
    mut runs: Vec<RunRecord>,
    scrubber: Option<&KeyScrubber>,
) -> (Vec<RunRecord>, Option<HistoryNotice>) {
    if let Some(scrubber) = scrubber {
        for record in &mut runs {
            record.scrub_key(scrubber);
        }
    }
    let renumbered = renumber(&mut runs);
    let notice = renumbered.then_some(HistoryNotice::Renumbered { runs: runs.len() });
    (runs, notice)
}

/// Reads a stored history: its runs, prepared ([`prepare_runs`]), or why it cannot be read.
pub fn read_stored(
    text: &str,
    scrubber: Option<&KeyScrubber>,
) -> Result<(Vec<RunRecord>, Option<HistoryNotice>), ImportError> {
    let document = ExportDocument::from_json(text)?;
    Ok(prepare_runs(document.runs, scrubber))
}

/// One run's compact JSON, written once when the session keeps the run (records are
/// canonical and never change afterwards), so saving the history after each run costs a
/// copy of the stored text, not a serialization of every run.
#[derive(Debug, Clone)]
pub struct StoredRun {
    json: Box<RawValue>,
}

impl StoredRun {
    /// Serializes `record` as it is (make it canonical first).
    pub fn new(record: &RunRecord) -> Result<StoredRun, ExportError> {
        Ok(StoredRun {
            json: serde_json::value::to_raw_value(record)?,
        })
    }

    /// The run's JSON.
    pub fn json(&self) -> &str {
        self.json.get()
    }
}

/// The export document's shape with runs already serialized (the field order is
/// [`ExportDocument`]'s, so the text reads back as one).
#[derive(Serialize)]
struct StoredDocument<'a> {
    schema: &'a str,
    schema_version: u32,
    tool_version: &'a str,
    exported_at: &'a str,
    environment: &'a Environment,
    runs: Vec<&'a RawValue>,
    experiments: &'a [ExperimentResult],
}

/// The compact JSON text to store: `document`'s fields (its own `runs` are ignored) with
/// `runs`, leaving out any run that still holds a piece of the key (defence in depth: the
/// engine scrubs every record already). Returns the text and how many runs were left out;
/// an empty text when the key is outside the runs, where nothing can be written.
pub fn stored_text(
    document: &ExportDocument,
    runs: &[&StoredRun],
    scrubber: Option<&KeyScrubber>,
) -> Result<(String, usize), ExportError> {
    let clean =
        |run: &&&StoredRun| scrubber.is_none_or(|scrubber| !scrubber.contains_key(run.json()));
    let kept: Vec<&RawValue> = runs.iter().filter(clean).map(|run| &*run.json).collect();
    let refused = runs.len() - kept.len();
    let text = serde_json::to_string(&StoredDocument {
        schema: &document.schema,
        schema_version: document.schema_version,
        tool_version: &document.tool_version,
        exported_at: &document.exported_at,
        environment: &document.environment,
        runs: kept,
        experiments: &document.experiments,
    })?;
    if scrubber.is_some_and(|scrubber| scrubber.contains_key(&text)) {
        return Ok((String::new(), runs.len()));
    }
    Ok((text, refused))
}

/// Refuses an export text (JSON, CSV, summary) that holds a piece of the key.
pub fn check_export(text: &str, scrubber: Option<&KeyScrubber>) -> Result<(), HistoryNotice> {
    match scrubber {
        Some(scrubber) if scrubber.contains_key(text) => Err(HistoryNotice::ExportRefused),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert!(check_import_size(MAX_IMPORT_BYTES).is_ok());
        let refused = check_import_size(MAX_IMPORT_BYTES + 1).unwrap_err();
        assert!(refused.message(Lang::En).contains("over 16 MiB"));
        assert!(refused.message(Lang::Zh).contains("16 MiB"));
    }

    #[test]
    fn exports_holding_the_key_are_refused() {
        let scrubber = KeyScrubber::new("sk-0123456789abcdef").unwrap();
        assert!(check_export("a,b\n1,2", Some(&scrubber)).is_ok());
        assert_eq!(
            check_export("a,\"x 0123456789\"", Some(&scrubber)),
            Err(HistoryNotice::ExportRefused)
        );
        assert!(check_export("anything", None).is_ok());
    }
}
