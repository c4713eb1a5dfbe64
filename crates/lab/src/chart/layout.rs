//! Layout pieces the charts share: reference lines and their labels, markers, series
//! geometry, zero-based domains and tick targets.

use serde::{Deserialize, Serialize};

use super::frame::{is_drawable, non_negative, Rect};
use super::scale::{Domain, LinearScale};

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
pub(super) fn clear_label_position(
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
pub(super) fn horizontal_lines(
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
pub(super) fn vertical_lines(
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
pub(super) fn zero_based_domain(values: impl IntoIterator<Item = f64>, empty: Domain) -> Domain {
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
pub(super) const EMPTY_MS_DOMAIN: Domain = Domain {
    min: 0.0,
    max: 1000.0,
};

/// How many ticks to aim for along `length_px` of axis, one per `spacing_px`, 2 to 10.
pub(super) fn tick_target(length_px: f64, spacing_px: f64) -> usize {
    let count = (non_negative(length_px) / spacing_px).floor();
    // The cast saturates; the clamp keeps the result small.
    (count as usize).clamp(2, 10)
}

/// Tick spacing aimed for on horizontal axes (labels such as "1,500 ms" are wide).
pub(super) const X_TICK_SPACING_PX: f64 = 80.0;

/// Tick spacing aimed for on vertical axes.
pub(super) const Y_TICK_SPACING_PX: f64 = 40.0;

#[cfg(test)]
mod tests {
    use super::super::frame::{Frame, Margins};
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
