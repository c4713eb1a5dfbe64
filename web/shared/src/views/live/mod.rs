//! The run in progress: its state, its headline numbers, its streamed text and, when it
//! failed, its diagnosis.
//!
//! - `state`: [`LiveRun`] and [`RunStatus`], what the views read;
//! - `text_writer`: [`StreamedText`], the DOM text writer with its frame scheduling;
//! - `readouts`: [`Readouts`];
//! - `panes`: [`LivePanes`];
//! - `diagnosis_box`: [`DiagnosisBox`].

mod diagnosis_box;
mod panes;
mod readouts;
mod state;
mod text_writer;

pub use diagnosis_box::DiagnosisBox;
pub use panes::LivePanes;
pub use readouts::{format_ms, Readouts};
pub use state::{LiveRun, RunStatus, ELAPSED_TICK_MS};
pub use text_writer::StreamedText;
