//! ttft-lab-page: the lab (`lab/`, built from `lab.html`): the widget's parts (from
//! `ttft-web`) plus what only the lab has.
//!
//! - [`page`]: the lab page, and probe mode's start;
//! - [`results`]: the Results section (runs by experiment, summary, charts, the run's details);
//! - [`experiments`]: experiments run through the shared series runner;
//! - [`fleet`]: fleet measurement (OTLP export, trace context, probe mode, SLOs, share links);
//! - [`views`]: the lab's components (charts, chart export, history and exports, the summary
//!   table, the run's waterfall, the experiments panel).
//!
//! The computing is in `ttft-lab` and `ttft-core`.

pub mod experiments;
pub mod fleet;
pub mod page;
pub mod results;
pub mod texts;
pub mod views;
