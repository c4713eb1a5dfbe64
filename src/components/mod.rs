//! The widget's components. Each is small and only wires signals to elements.

pub mod chart_export;
pub mod charts;
pub mod controls;
pub mod endpoint;
pub mod experiments;
pub mod live;
pub mod results;
pub mod share;
