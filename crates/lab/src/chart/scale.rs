//! Domains (value intervals) and the linear scale that projects them onto px.

use serde::{Deserialize, Serialize};

use super::frame::{is_drawable, Rect};

/// A closed interval of values, `min < max`, that a scale maps onto px.
///
/// Built with [`Domain::new`] or [`Domain::of_values`], a domain is always *usable*: ordered,
/// drawable and wide enough to divide by. Degenerate inputs are padded:
/// - no drawable value → `[0, 1]`;
/// - one value, or all values equal to `v` (within 10⁻⁹ relative): `v = 0` → `[0, 1]`,
///   else `[v − p, v + p]` with `p = max(|v| / 10, 0.001)`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Domain {
    /// Lower end.
    pub min: f64,
    /// Upper end.
    pub max: f64,
}

impl Domain {
    /// `[0, 1]`: the domain of nothing, and of fractions (CDF).
    pub const UNIT: Domain = Domain { min: 0.0, max: 1.0 };

    /// The usable domain spanning `a` and `b` (in either order); see [`Domain::of_values`].
    pub fn new(a: f64, b: f64) -> Self {
        Self::of_values([a, b])
    }

    /// The usable domain spanning the drawable values; non-drawable ones (NaN, ±inf) are
    /// ignored, and degenerate extents are padded as described on [`Domain`].
    pub fn of_values(values: impl IntoIterator<Item = f64>) -> Self {
        let extent = values.into_iter().filter(|value| is_drawable(*value)).fold(
            None,
            |extent: Option<(f64, f64)>, value| match extent {
                None => Some((value, value)),
                Some((min, max)) => Some((min.min(value), max.max(value))),
            },
        );
        match extent {
            None => Self::UNIT,
            Some((min, max)) => Self::padded(min, max),
        }
    }

    /// The domain widened to include `value` if it is drawable (unchanged otherwise).
    pub fn including(self, value: f64) -> Self {
        if is_drawable(value) {
            Self {
                min: self.min.min(value),
                max: self.max.max(value),
            }
        } else {
            self
        }
    }

    /// `max − min`, > 0 for a usable domain.
    pub fn span(&self) -> f64 {
        self.max - self.min
    }

    /// Whether `value` lies in the closed interval.
    pub fn contains(&self, value: f64) -> bool {
        value >= self.min && value <= self.max
    }

    /// Whether the ends are finite and min < max, with a span wide enough to divide by
    /// (10⁻⁹ relative). Padding may take an end slightly past ±[`super::MAX_ABS_VALUE`].
    pub fn is_usable(&self) -> bool {
        self.min.is_finite() && self.max.is_finite() && !is_degenerate(self.min, self.max)
    }

    fn padded(min: f64, max: f64) -> Self {
        if !is_degenerate(min, max) {
            return Self { min, max };
        }
        let middle = min / 2.0 + max / 2.0;
        if middle == 0.0 {
            return Self::UNIT;
        }
        let pad = (middle.abs() / 10.0).max(0.001);
        Self {
            min: middle - pad,
            max: middle + pad,
        }
    }
}

/// Too narrow to divide by: a span within 10⁻⁹ of the magnitude (and of 1).
fn is_degenerate(min: f64, max: f64) -> bool {
    let magnitude = min.abs().max(max.abs()).max(1.0);
    // Written so that NaN counts as degenerate.
    let wide_enough = max - min > 1e-9 * magnitude;
    !wide_enough
}

/// Projects values of a [`Domain`] linearly onto a px range.
///
/// `range_start_px` is where `domain.min` lands and `range_end_px` where `domain.max` lands,
/// so a y scale for SVG (y grows down) runs from the plot's bottom to its top
/// ([`LinearScale::for_y`]). With `clamp`, values outside the domain land on the nearest end.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct LinearScale {
    /// The values mapped.
    pub domain: Domain,
    /// Where `domain.min` lands.
    pub range_start_px: f64,
    /// Where `domain.max` lands.
    pub range_end_px: f64,
    /// Whether values outside the domain are held at its ends.
    pub clamp: bool,
}

impl LinearScale {
    /// An unclamped scale from `domain` onto `range_start_px..range_end_px`.
    pub fn new(domain: Domain, range_start_px: f64, range_end_px: f64) -> Self {
        Self {
            domain,
            range_start_px,
            range_end_px,
            clamp: false,
        }
    }

    /// A horizontal scale across `plot`: `domain.min` at its left edge.
    pub fn for_x(domain: Domain, plot: &Rect) -> Self {
        Self::new(domain, plot.x_px, plot.right_px())
    }

    /// A vertical scale up `plot` (inverted for SVG): `domain.min` at its bottom edge.
    pub fn for_y(domain: Domain, plot: &Rect) -> Self {
        Self::new(domain, plot.bottom_px(), plot.y_px)
    }

    /// The same scale, holding out-of-domain values at the domain's ends.
    pub fn clamped(self) -> Self {
        Self {
            clamp: true,
            ..self
        }
    }

    /// The px position of `value`. A domain that is not usable (only possible when built by
    /// hand) maps everything to the middle of the range; NaN stays NaN.
    pub fn project(&self, value: f64) -> f64 {
        let fraction = if self.domain.is_usable() {
            (value - self.domain.min) / self.domain.span()
        } else {
            0.5
        };
        let fraction = if self.clamp {
            fraction.clamp(0.0, 1.0)
        } else {
            fraction
        };
        self.range_start_px + fraction * (self.range_end_px - self.range_start_px)
    }

    /// The value at px position `position_px` (for pointer hover); a zero-length range gives
    /// the middle of the domain. Clamped scales clamp here too.
    pub fn invert(&self, position_px: f64) -> f64 {
        let length_px = self.range_end_px - self.range_start_px;
        let fraction = if length_px != 0.0 && length_px.is_finite() {
            (position_px - self.range_start_px) / length_px
        } else {
            0.5
        };
        let fraction = if self.clamp {
            fraction.clamp(0.0, 1.0)
        } else {
            fraction
        };
        self.domain.min + fraction * self.domain.span()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn domains_of_values_are_ordered_padded_and_ignore_non_drawable() {
        let cases: [(&[f64], (f64, f64)); 9] = [
            (&[], (0.0, 1.0)),
            (&[f64::NAN, f64::INFINITY], (0.0, 1.0)),
            (&[300.0, 120.0, 450.0], (120.0, 450.0)),
            (&[120.0, f64::NAN, 450.0, f64::NEG_INFINITY], (120.0, 450.0)),
            // One point, or all equal: ±10 %.
            (&[500.0], (450.0, 550.0)),
            (&[-20.0, -20.0], (-22.0, -18.0)),
            // All zero: the unit interval.
            (&[0.0, 0.0, 0.0], (0.0, 1.0)),
            // Tiny values: at least ±0.001.
            (&[0.000_5], (-0.000_5, 0.001_5)),
            // 2e15 is not drawable: one point left.
            (&[1e15, 2e15], (0.9e15, 1.1e15)),
        ];
        for (values, (min, max)) in cases {
            let domain = Domain::of_values(values.iter().copied());
            let tolerance = 1e-12 * min.abs().max(max.abs()).max(1.0);
            assert!(
                (domain.min - min).abs() <= tolerance,
                "{values:?} → {domain:?}"
            );
            assert!(
                (domain.max - max).abs() <= tolerance,
                "{values:?} → {domain:?}"
            );
            assert!(domain.is_usable(), "{values:?}");
        }
    }

    #[test]
    fn including_widens_with_drawable_values_only() {
        let domain = Domain::new(100.0, 200.0);
        let cases = [
            (150.0, (100.0, 200.0)),
            (20.0, (20.0, 200.0)),
            (900.0, (100.0, 900.0)),
            (f64::NAN, (100.0, 200.0)),
            (f64::INFINITY, (100.0, 200.0)),
        ];
        for (value, (min, max)) in cases {
            assert_eq!(domain.including(value), Domain { min, max }, "{value}");
        }
    }

    #[test]
    fn new_accepts_either_order() {
        assert_eq!(
            Domain::new(10.0, 2.0),
            Domain {
                min: 2.0,
                max: 10.0
            }
        );
        assert_eq!(Domain::new(f64::NAN, 2.0), Domain { min: 1.8, max: 2.2 });
    }

    #[test]
    fn projections() {
        let domain = Domain::new(0.0, 200.0);
        let x = LinearScale::new(domain, 40.0, 440.0);
        let y = LinearScale::new(domain, 300.0, 100.0);
        let cases = [
            // (value, x px, inverted y px)
            (0.0, 40.0, 300.0),
            (50.0, 140.0, 250.0),
            (200.0, 440.0, 100.0),
            (-100.0, -160.0, 400.0),
            (300.0, 640.0, 0.0),
        ];
        for (value, x_px, y_px) in cases {
            assert_eq!(x.project(value), x_px, "x {value}");
            assert_eq!(y.project(value), y_px, "y {value}");
            assert_eq!(x.invert(x_px), value, "invert x {x_px}");
            assert_eq!(y.invert(y_px), value, "invert y {y_px}");
        }
    }

    #[test]
    fn clamped_projections_stay_in_range() {
        let y = LinearScale::new(Domain::new(0.0, 200.0), 300.0, 100.0).clamped();
        let cases = [(-100.0, 300.0), (100.0, 200.0), (1e9, 100.0)];
        for (value, y_px) in cases {
            assert_eq!(y.project(value), y_px, "{value}");
        }
        assert_eq!(y.invert(0.0), 200.0);
    }

    #[test]
    fn scales_for_a_plot_area() {
        let plot = Rect {
            x_px: 50.0,
            y_px: 10.0,
            width_px: 300.0,
            height_px: 100.0,
        };
        let domain = Domain::new(0.0, 1000.0);
        assert_eq!(LinearScale::for_x(domain, &plot).project(250.0), 125.0);
        assert_eq!(LinearScale::for_y(domain, &plot).project(250.0), 85.0);
    }

    #[test]
    fn hand_built_degenerate_scales_do_not_produce_nan() {
        let domain = Domain { min: 5.0, max: 5.0 };
        let x = LinearScale::new(domain, 0.0, 100.0);
        assert_eq!(x.project(5.0), 50.0);
        assert_eq!(x.project(7.0), 50.0);
        let flat = LinearScale::new(Domain::UNIT, 20.0, 20.0);
        assert_eq!(flat.project(0.7), 20.0);
        assert_eq!(flat.invert(20.0), 0.5);
    }
}
