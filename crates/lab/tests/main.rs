//! The integration tests of ttft-lab, one test binary: each file beside this one is a module
//! of it. One binary, not one per file: each binary links the crate and its dependencies on
//! its own, and the test build of a fresh clone paid that once per file (55 files in the
//! native crates); built once, the tests run in one process, on the same test threads.
//! `cargo test -p ttft-lab --test integration -- <file>::` runs one file's tests.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod chart_bounds;
mod experiment_cache;
mod experiment_concurrency;
mod experiment_filler;
mod experiment_max_tokens_models;
mod experiment_prompt_length;
mod experiment_registry;
mod experiment_sample;
mod experiment_sim_model;
mod experiment_sizing;
mod experiment_tails_reasoning_monitor;
mod experiment_verdicts;
mod otlp_bodies;
mod otlp_queue;
mod share_props;
mod slo_goodput;
mod texts_zh;
