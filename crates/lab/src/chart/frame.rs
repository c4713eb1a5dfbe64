//! The frame every chart is drawn in: the SVG's size and margins, its plot area, and what
//! counts as a drawable value.

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
pub(super) fn inner_span(total_px: f64, before_px: f64, after_px: f64) -> (f64, f64) {
    let total_px = non_negative(total_px);
    let start_px = non_negative(before_px).min(total_px);
    let length_px = (total_px - start_px - non_negative(after_px)).max(0.0);
    (start_px, length_px)
}

/// `value` if it is a finite number ≥ 0, else 0.
pub(super) fn non_negative(value: f64) -> f64 {
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
