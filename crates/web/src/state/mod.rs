//! The pages' state, apart from the views that show it: what the controllers (a series of
//! runs, an experiment, the fleet, the page's start) set and the views read.
//!
//! - [`live`]: [`LiveRun`] and [`RunStatus`], the run in progress as the run panel shows it,
//!   fed by the run's progress;
//! - [`streamed_text`]: [`StreamedText`], a pane's streamed text and its frame-by-frame
//!   writer (the first piece in its own timed element, the rest appended in blocks);
//! - [`runs`]: [`RunsFilter`], [`RunsView`] and [`RunMarks`], which runs the results show
//!   and how each is marked.

pub mod live;
pub mod runs;
pub mod streamed_text;

pub use live::{LiveRun, RunStatus, ELAPSED_TICK_MS};
pub use runs::{RunMarks, RunsFilter, RunsView};
pub use streamed_text::StreamedText;
