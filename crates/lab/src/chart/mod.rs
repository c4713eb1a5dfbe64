//! Chart geometry: scales, ticks, SVG path strings and the layouts of TTFT Meter's charts.
//!
//! Everything here is pure: data and a [`Frame`] (SVG size and margins, in px) in, plain
//! serializable geometry out. The app's SVG components only copy these numbers and strings
//! into `<svg>` elements. Modelled on leptos-chartistry's split (projections, ticks and paths
//! as plain Rust with tests) without its ~500 KB of wasm.
//!
//! Conventions shared by every function here:
//! - SVG coordinates: x grows to the right, y grows *down*; value axes are inverted so
//!   larger values are drawn higher (see [`LinearScale::for_y`]).
//! - A value is *drawable* when it is finite and within ±[`MAX_ABS_VALUE`]; other values
//!   (NaN, infinities, absurd magnitudes) are treated as missing, never as numbers.
//! - Every coordinate a layout returns lies inside its plot area ([`Frame::plot_area`]);
//!   path strings round coordinates to 0.1 px, so they may exceed it by at most 0.05 px.
//! - Labels are plain text; axis titles, series colours and translations belong to the app.

mod distribution;
mod frame;
mod itl;
mod layout;
mod path;
mod runs;
mod scale;
mod scatter;
mod ticks;
mod waterfall;
pub use distribution::{distribution_chart, Bar, BinRule, Bins, DistributionChart};
pub use frame::{is_drawable, Frame, Margins, Rect, MAX_ABS_VALUE};
pub use itl::{itl_chart, ItlChart};
pub use layout::{Marker, Reference, ReferenceLine, SeriesGeometry, LABEL_LINE_PX, LABEL_WIDTH_PX};
pub use path::{column_envelope, ecdf_step_path, polyline_path, PathBuilder, MAX_COLUMNS};
pub use runs::{runs_chart, RunSeries, RunsChart};
pub use scale::{Domain, LinearScale};
pub use scatter::{scatter_chart, Curve, Fit, FitCurve, PointSeries, ScatterChart, ScatterSeries};
pub use ticks::{
    nice_domain, nice_step, tick_values, Axis, NiceStep, Tick, TickFormat, TickValues,
};
pub use waterfall::{run_phases, waterfall_chart, Phase, PhaseBar, PhaseSpan, WaterfallChart};
