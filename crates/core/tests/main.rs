//! The integration tests of ttft-core, one test binary: each file beside this one is a module
//! of it. One binary, not one per file: each binary links the crate and its dependencies on
//! its own, and the test build of a fresh clone paid that once per file (55 files in the
//! native crates); built once, the tests run in one process, on the same test threads.
//! `cargo test -p ttft-core --test integration -- <file>::` runs one file's tests.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod breakdown;
mod diagnosis_causes;
mod export_csv;
mod export_docs;
mod export_fixture;
mod export_json;
mod export_props;
mod export_text;
mod keysafety;
mod measure_engine;
mod measure_plan;
mod request_build;
mod request_props;
mod stats_props;
mod stats_summary;
mod texts_zh;
mod timeline_metrics;
mod timeline_props;
