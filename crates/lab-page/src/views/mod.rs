//! The lab's components. Each is small and only wires signals to elements.

pub mod chart_export;
pub mod charts;
pub mod download;
pub mod experiments;
pub mod history;
pub mod run_detail;
pub mod summary_table;
