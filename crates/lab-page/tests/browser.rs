//! The lab's browser tests (wasm-bindgen-test in headless Chromium), one test binary:
//! each file below is a module of it. One binary, not one per file, because each wasm test
//! binary links all of Leptos and the page, and wasm-bindgen-test-runner starts a driver and
//! a browser for each: built and run once, they cost a fraction. The modules share one
//! page: each test mounts its own app and clears the storage it reads.
#![cfg(target_arch = "wasm32")]

use wasm_bindgen_test::wasm_bindgen_test_configure;

wasm_bindgen_test_configure!(run_in_browser);

mod experiments;
mod fleet;
mod keysafety;
mod ship;
mod texts;
