//! ttft-core: everything TTFT Meter computes, with no web dependency and no clock.
//!
//! Time is always an argument (`now_ms: f64`, milliseconds on the page's
//! `performance.now()` clock); nothing here reads a clock. See docs/DESIGN.md.
#![warn(missing_docs)]

pub mod blocks;
pub mod chart;
pub mod config;
pub mod diagnosis;
pub mod dialect;
pub mod experiment;
pub mod export;
pub mod history;
pub mod itl;
pub mod key_binding;
pub mod lang;
pub mod measure;
pub mod metric;
pub mod otlp;
pub mod preset;
pub mod probe;
pub mod protocol;
pub mod record;
pub mod request;
mod scan;
pub mod scrub;
pub mod secret;
pub mod share;
pub mod slo;
pub mod sse;
pub mod stats;
pub mod timeline;
pub mod trace_context;
