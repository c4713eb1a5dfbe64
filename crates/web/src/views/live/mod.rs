//! The run in progress as the run panel shows it: its headline numbers, its streamed text
//! and, when it failed, its diagnosis. Its state ([`crate::state::LiveRun`]) lives in
//! [`crate::state`].
//!
//! - `readouts`: [`Readouts`] and the run's end notes ([`RunNotes`]);
//! - `panes`: [`LivePanes`];
//! - `diagnosis_box`: [`DiagnosisBox`].

mod diagnosis_box;
mod panes;
mod readouts;

pub use diagnosis_box::DiagnosisBox;
pub use panes::LivePanes;
pub use readouts::{format_ms, BufferedNote, Readouts, RunNotes};
