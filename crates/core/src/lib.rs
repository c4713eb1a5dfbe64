//! ttft-core: the run engine of TTFT Meter, with no web dependency and no clock.
//!
//! Requests and where they go, the measurement of one run ([`measure`]), its timeline and
//! metrics, statistics, the diagnosis of failures, the run record, the key's scrubbing and
//! binding to an origin, URL configuration, presets, the stored history and exports. The
//! stream is read by `ttft-stream`; what only the lab computes is in `ttft-lab`.
//!
//! Time is always an argument (`now_ms: f64`, milliseconds on the page's
//! `performance.now()` clock); nothing here reads a clock. See docs/DESIGN.md.
#![warn(missing_docs)]

pub mod availability;
pub mod blocks;
pub mod config;
pub mod cut;
pub mod diagnosis;
pub mod export;
pub mod failure;
pub mod history;
pub mod itl;
pub mod key_binding;
pub mod lang;
pub mod measure;
pub mod metric;
pub mod preset;
pub mod probe;
pub mod protocol;
pub mod quote;
pub mod record;
pub mod request;
pub mod scrub;
pub mod stats;
pub mod text;
pub mod texts;
pub mod timeline;
pub mod trace_context;
