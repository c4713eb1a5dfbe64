//! ttft-lab: what only the lab page computes, over the run records of `ttft-core`.
//!
//! - [`experiment`]: the registry of experiments, their plans, analyses and reports;
//! - [`otlp`]: OpenTelemetry bodies (OTLP/HTTP JSON) of finished runs, and their send queue;
//! - [`slo`]: service-level objectives and goodput;
//! - [`share`]: the share-link codec;
//! - [`chart`]: chart geometry (scales, ticks, paths) for the lab's SVG charts.
//!
//! Like ttft-core it has no web dependency and reads no clock. The widget's package does not
//! depend on this crate: Cargo keeps all of it out of the widget's first load. See
//! docs/DESIGN.md §4.
#![warn(missing_docs)]

pub mod chart;
pub mod experiment;
pub mod otlp;
pub mod share;
pub mod slo;
pub mod texts;
