//! The integration tests of ttft-sim, one test binary: each file beside this one is a module
//! of it. One binary, not one per file: each binary links the crate and its dependencies on
//! its own, and the test build of a fresh clone paid that once per file (55 files in the
//! native crates); built once, the tests run in one process, on the same test threads.
//! `cargo test -p ttft-sim --test integration -- <file>::` runs one file's tests.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod accounts;
mod cli;
mod common;
mod hostile;
mod keysafety;
mod network;
mod protocols;
mod servers;
mod static_page;
mod timing;
