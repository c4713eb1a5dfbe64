//! TTFT Meter's web app: browser glue and views. Measurement logic lives in `ttft-core`;
//! this crate reads clocks, talks to the network, storage and the DOM, and shows what
//! ttft-core computed.

pub mod app;
pub mod availability;
pub mod clock;
pub mod components;
pub mod crash;
pub mod embed;
pub mod experiments;
pub mod fleet;
pub mod form;
pub mod i18n;
pub mod key_gate;
pub mod page;
pub mod paint;
pub mod persist;
pub mod run;
pub mod series;
pub mod session;
pub mod storage;
pub mod transport;
pub mod widget;
