//! ttft-web: what both of TTFT Meter's pages show and do in the browser. The widget
//! (the root package, the first load) and the lab (`crates/lab-page`) are each a thin page over it.
//! Measurement logic lives in `ttft-core` (and the stream's in `ttft-stream`); this crate
//! reads clocks, talks to the network, storage and the DOM, and shows what they computed.
//!
//! - set-up and pages: [`page`] (what both pages set up first), [`navigation`] (the two
//!   pages' addresses), [`embed`] (URL configuration and `postMessage`), [`crash`];
//! - runs: [`series`] (a series of runs, and the one way to keep a run), [`run`] (one run's
//!   I/O), [`transport`] (the fetch worker and its main-thread fallback), [`paint`] and
//!   [`availability`] (paint times, the main thread's stalls), [`clock`];
//! - state: [`state`] (the live run, which runs the results show and their marks: what
//!   controllers set and views read), [`form`], [`key_gate`], [`session`] (the runs every
//!   view reads), [`persist`] and [`storage`] (localStorage, the key's sessionStorage),
//!   [`i18n`];
//! - [`views`]: the components both pages show;
//! - [`testing`]: what the component tests use to mount and drive them (with
//!   [`transport::scripted`]); the pages never call it.

pub mod availability;
pub mod clock;
pub mod crash;
pub mod embed;
pub mod flood;
pub mod form;
pub mod i18n;
pub mod key_gate;
pub mod navigation;
pub mod page;
pub mod paint;
pub mod persist;
pub mod run;
pub mod series;
pub mod session;
pub mod state;
pub mod storage;
pub mod testing;
pub mod texts;
pub mod transport;
pub mod views;
