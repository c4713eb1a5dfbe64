//! The components both pages show. Each is small and only wires signals to elements.

pub mod controls;
pub mod endpoint;
pub mod header;
pub mod live;
pub mod notices;
pub mod run_panel;
pub mod runs_table;
pub mod wait;
