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
mod itl;
mod path;
mod runs;
mod scale;
mod scatter;
mod ticks;
mod waterfall;

pub use distribution::{distribution_chart, Bar, BinRule, Bins, DistributionChart};
pub use itl::{itl_chart, ItlChart};
pub use path::{column_envelope, ecdf_step_path, polyline_path, PathBuilder, MAX_COLUMNS};
pub use runs::{runs_chart, RunSeries, RunsChart};
pub use scale::{Domain, LinearScale};
pub use scatter::{scatter_chart, Curve, Fit, FitCurve, PointSeries, ScatterChart, ScatterSeries};
pub use ticks::{
    nice_domain, nice_step, tick_values, Axis, NiceStep, Tick, TickFormat, TickValues,
};
pub use waterfall::{run_phases, waterfall_chart, Phase, PhaseBar, PhaseSpan, WaterfallChart};

use serde::{Deserialize, Serialize};

/// Largest magnitude a drawable value may have (10^15: about 31,700 years in ms, and still
/// below 2^53, so tick arithmetic on integers stays exact).
pub const MAX_ABS_VALUE: f64 = 1e15;

/// Whether `value` can be placed on a chart: finite and within ±[`MAX_ABS_VALUE`].
pub fn is_drawable(value: f64) -> bool {
    value.is_finite() && value.abs() <= MAX_ABS_VALUE
}

/// Empty space around the plot area, in px, where axes and labels go.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Margins {
    /// Space above the plot area.
    pub top_px: f64,
    /// Space right of the plot area.
    pub right_px: f64,
    /// Space below the plot area (x axis labels).
    pub bottom_px: f64,
    /// Space left of the plot area (y axis labels).
    pub left_px: f64,
}

impl Margins {
    /// The same margin on all four sides.
    pub fn uniform(margin_px: f64) -> Self {
        Self {
            top_px: margin_px,
            right_px: margin_px,
            bottom_px: margin_px,
            left_px: margin_px,
        }
    }
}

/// The size of a whole SVG chart and its margins, in px.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Frame {
    /// Width of the `<svg>` element.
    pub width_px: f64,
    /// Height of the `<svg>` element.
    pub height_px: f64,
    /// Space kept free around the plot area.
    pub margins: Margins,
}

impl Frame {
    /// A frame of `width_px` × `height_px` with the given margins.
    pub fn new(width_px: f64, height_px: f64, margins: Margins) -> Self {
        Self {
            width_px,
            height_px,
            margins,
        }
    }

    /// The rectangle data is drawn in: the frame minus its margins. Never negative: a frame
    /// smaller than its margins (or with NaN sizes) gives a zero-size area inside the frame.
    pub fn plot_area(&self) -> Rect {
        let (x_px, width_px) =
            inner_span(self.width_px, self.margins.left_px, self.margins.right_px);
        let (y_px, height_px) =
            inner_span(self.height_px, self.margins.top_px, self.margins.bottom_px);
        Rect {
            x_px,
            y_px,
            width_px,
            height_px,
        }
    }
}

/// Start and length of what remains of `total_px` after two margins; all clamped to ≥ 0.
fn inner_span(total_px: f64, before_px: f64, after_px: f64) -> (f64, f64) {
    let total_px = non_negative(total_px);
    let start_px = non_negative(before_px).min(total_px);
    let length_px = (total_px - start_px - non_negative(after_px)).max(0.0);
    (start_px, length_px)
}

/// `value` if it is a finite number ≥ 0, else 0.
fn non_negative(value: f64) -> f64 {
    if value.is_finite() && value > 0.0 {
        value
    } else {
        0.0
    }
}

/// An axis-aligned rectangle in SVG px (`x_px`, `y_px` is its top-left corner).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Rect {
    /// Left edge.
    pub x_px: f64,
    /// Top edge.
    pub y_px: f64,
    /// Width, ≥ 0.
    pub width_px: f64,
    /// Height, ≥ 0.
    pub height_px: f64,
}

impl Rect {
    /// Right edge.
    pub fn right_px(&self) -> f64 {
        self.x_px + self.width_px
    }

    /// Bottom edge.
    pub fn bottom_px(&self) -> f64 {
        self.y_px + self.height_px
    }

    /// Whether the point lies inside the rectangle or on its border, with `tolerance_px`.
    pub fn contains(&self, x_px: f64, y_px: f64, tolerance_px: f64) -> bool {
        x_px >= self.x_px - tolerance_px
            && x_px <= self.right_px() + tolerance_px
            && y_px >= self.y_px - tolerance_px
            && y_px <= self.bottom_px() + tolerance_px
    }
}

/// A data point drawn as a marker: its position and the values it stands for (tooltips).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Marker {
    /// Horizontal position.
    pub x_px: f64,
    /// Vertical position.
    pub y_px: f64,
    /// The x value (run number, prompt tokens...).
    pub x_value: f64,
    /// The y value (usually ms).
    pub y_value: f64,
}

/// A labelled straight line across the plot area: a reference level (p50, p95...) drawn as
/// `<line x1 y1 x2 y2>`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReferenceLine {
    /// The caller's name for it ("p50").
    pub name: String,
    /// The value it marks, in the axis unit.
    pub value: f64,
    /// Start x.
    pub x1_px: f64,
    /// Start y.
    pub y1_px: f64,
    /// End x.
    pub x2_px: f64,
    /// End y.
    pub y2_px: f64,
    /// Where the label's text ends (it is drawn right-aligned, `text-anchor="end"`).
    pub label_x_px: f64,
    /// The label's baseline.
    pub label_y_px: f64,
}

/// Height of one label line, px (the stylesheet draws them at about 10 px).
pub const LABEL_LINE_PX: f64 = 11.0;
/// Width given to one short label ("p95"), px.
pub const LABEL_WIDTH_PX: f64 = 24.0;

/// A named value to mark on a chart, such as `("p95", 812.0)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Reference<'a> {
    /// The label ("p50", "p95").
    pub name: &'a str,
    /// The value, in the axis unit (ms).
    pub value: f64,
}

/// Where a label starting at `start` (x, y in px) can go: moved by `step` until it is
/// clear of every label already placed (closer than [`LABEL_WIDTH_PX`] across and
/// [`LABEL_LINE_PX`] down counts as overlapping).
fn clear_label_position(
    placed: &[ReferenceLine],
    start: (f64, f64),
    step: (f64, f64),
) -> (f64, f64) {
    let mut at = start;
    while placed.iter().any(|line| {
        (line.label_x_px - at.0).abs() < LABEL_WIDTH_PX
            && (line.label_y_px - at.1).abs() < LABEL_LINE_PX
    }) {
        at = (at.0 + step.0, at.1 + step.1);
    }
    at
}

/// Lines across the plot at each drawable reference value on the y axis of `y_scale`.
/// Labels sit above their line at the right end; one that would overlap an earlier line's
/// label moves left by [`LABEL_WIDTH_PX`] until it is clear.
fn horizontal_lines(
    references: &[Reference<'_>],
    y_scale: &LinearScale,
    plot: &Rect,
) -> Vec<ReferenceLine> {
    let mut lines: Vec<ReferenceLine> = Vec::new();
    for reference in references
        .iter()
        .filter(|reference| is_drawable(reference.value))
    {
        let y_px = y_scale.project(reference.value);
        let (label_x_px, label_y_px) = clear_label_position(
            &lines,
            (plot.right_px() - 2.0, y_px - 3.0),
            (-LABEL_WIDTH_PX, 0.0),
        );
        lines.push(ReferenceLine {
            name: reference.name.to_owned(),
            value: reference.value,
            x1_px: plot.x_px,
            y1_px: y_px,
            x2_px: plot.right_px(),
            y2_px: y_px,
            label_x_px,
            label_y_px,
        });
    }
    lines
}

/// Lines down the plot at each drawable reference value on the x axis of `x_scale`.
/// Labels sit at the top, right-aligned to their line; one that would overlap an earlier
/// line's label moves down by [`LABEL_LINE_PX`] until it is clear.
fn vertical_lines(
    references: &[Reference<'_>],
    x_scale: &LinearScale,
    plot: &Rect,
) -> Vec<ReferenceLine> {
    let mut lines: Vec<ReferenceLine> = Vec::new();
    for reference in references
        .iter()
        .filter(|reference| is_drawable(reference.value))
    {
        let x_px = x_scale.project(reference.value);
        let (label_x_px, label_y_px) =
            clear_label_position(&lines, (x_px - 2.0, plot.y_px - 3.0), (0.0, LABEL_LINE_PX));
        lines.push(ReferenceLine {
            name: reference.name.to_owned(),
            value: reference.value,
            x1_px: x_px,
            y1_px: plot.y_px,
            x2_px: x_px,
            y2_px: plot.bottom_px(),
            label_x_px,
            label_y_px,
        });
    }
    lines
}

/// The drawn form of one named series: its line and its markers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SeriesGeometry {
    /// The caller's name for the series (`ttft_ms`).
    pub name: String,
    /// The line through the series (see [`polyline_path`]); empty if nothing to join.
    pub path: String,
    /// One marker per drawable point.
    pub markers: Vec<Marker>,
}

/// The domain of a value axis that starts at zero (latencies, gaps, token counts): the
/// drawable values and 0; `empty` when no value other than 0 is drawable.
fn zero_based_domain(values: impl IntoIterator<Item = f64>, empty: Domain) -> Domain {
    let mut found_non_zero = false;
    let domain = Domain::of_values(
        values
            .into_iter()
            .inspect(|value| found_non_zero |= is_drawable(*value) && *value != 0.0)
            .chain([0.0]),
    );
    if found_non_zero {
        domain
    } else {
        empty
    }
}

/// What an empty millisecond axis shows: 0 to 1 s.
const EMPTY_MS_DOMAIN: Domain = Domain {
    min: 0.0,
    max: 1000.0,
};

/// How many ticks to aim for along `length_px` of axis, one per `spacing_px`, 2 to 10.
fn tick_target(length_px: f64, spacing_px: f64) -> usize {
    let count = (non_negative(length_px) / spacing_px).floor();
    // The cast saturates; the clamp keeps the result small.
    (count as usize).clamp(2, 10)
}

/// Tick spacing aimed for on horizontal axes (labels such as "1,500 ms" are wide).
const X_TICK_SPACING_PX: f64 = 80.0;
/// Tick spacing aimed for on vertical axes.
const Y_TICK_SPACING_PX: f64 = 40.0;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plot_area_subtracts_margins_and_never_goes_negative() {
        let margins = Margins {
            top_px: 10.0,
            right_px: 20.0,
            bottom_px: 30.0,
            left_px: 40.0,
        };
        let cases = [
            // (width, height) → (x, y, w, h)
            ((400.0, 200.0), (40.0, 10.0, 340.0, 160.0)),
            ((50.0, 30.0), (40.0, 10.0, 0.0, 0.0)),
            ((30.0, 5.0), (30.0, 5.0, 0.0, 0.0)),
            ((f64::NAN, f64::INFINITY), (0.0, 0.0, 0.0, 0.0)),
        ];
        for ((width_px, height_px), (x, y, w, h)) in cases {
            let plot = Frame::new(width_px, height_px, margins).plot_area();
            assert_eq!(
                (plot.x_px, plot.y_px, plot.width_px, plot.height_px),
                (x, y, w, h),
                "frame {width_px}×{height_px}"
            );
        }
    }

    #[test]
    fn close_reference_labels_do_not_overlap() {
        let plot = Rect {
            x_px: 40.0,
            y_px: 10.0,
            width_px: 400.0,
            height_px: 200.0,
        };
        // 0..100 ms over 400 px: 1 ms = 4 px.
        let x_scale = LinearScale::new(Domain::new(0.0, 100.0), 40.0, 440.0);
        let references = [
            Reference {
                name: "p50",
                value: 50.0,
            },
            Reference {
                name: "p95",
                value: 98.0,
            },
            Reference {
                name: "p99",
                value: 99.0,
            },
        ];
        let lines = vertical_lines(&references, &x_scale, &plot);
        let labels: Vec<(f64, f64)> = lines
            .iter()
            .map(|line| (line.label_x_px, line.label_y_px))
            .collect();
        // p50 and p95 are far apart: same height; p99 is 4 px from p95: one line lower.
        assert_eq!(labels, [(238.0, 7.0), (430.0, 7.0), (434.0, 18.0)]);

        // Horizontal: p95 3 px above p50 moves left by one label width.
        let y_scale = LinearScale::new(Domain::new(0.0, 100.0), 210.0, 10.0);
        let references = [
            Reference {
                name: "p50",
                value: 50.0,
            },
            Reference {
                name: "p95",
                value: 51.5,
            },
            Reference {
                name: "p99",
                value: 90.0,
            },
        ];
        let lines = horizontal_lines(&references, &y_scale, &plot);
        let labels: Vec<(f64, f64)> = lines
            .iter()
            .map(|line| (line.label_x_px, line.label_y_px))
            .collect();
        assert_eq!(labels, [(438.0, 107.0), (414.0, 104.0), (438.0, 27.0)]);
    }

    #[test]
    fn drawable_values() {
        let cases = [
            (0.0, true),
            (-12.5, true),
            (1e15, true),
            (1.000_001e15, false),
            (f64::NAN, false),
            (f64::INFINITY, false),
            (f64::NEG_INFINITY, false),
        ];
        for (value, drawable) in cases {
            assert_eq!(is_drawable(value), drawable, "{value}");
        }
    }

    #[test]
    fn tick_targets_scale_with_length() {
        let cases = [
            (0.0, 2),
            (100.0, 2),
            (400.0, 5),
            (2000.0, 10),
            (f64::NAN, 2),
        ];
        for (length_px, target) in cases {
            assert_eq!(tick_target(length_px, 80.0), target, "{length_px}");
        }
    }
}
