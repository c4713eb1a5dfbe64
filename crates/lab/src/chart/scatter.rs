//! Latency against prompt length: points per series and fitted curves.

use serde::{Deserialize, Serialize};

use super::frame::{is_drawable, Frame, Rect};
use super::layout::{
    tick_target, zero_based_domain, Marker, EMPTY_MS_DOMAIN, X_TICK_SPACING_PX, Y_TICK_SPACING_PX,
};
use super::path::polyline_path;
use super::scale::{Domain, LinearScale};
use super::ticks::{nice_domain, Axis, TickFormat};

/// What an empty token axis shows.
const EMPTY_TOKENS_DOMAIN: Domain = Domain {
    min: 0.0,
    max: 1000.0,
};
/// Most samples a fitted curve gets.
const MAX_CURVE_SAMPLES: usize = 1000;

/// Measured points of one series: `(prompt_tokens, value_ms)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ScatterSeries<'a> {
    /// The series name (`ttft_ms`, or a model name).
    pub name: &'a str,
    /// `(prompt_tokens, value_ms)` pairs, in any order.
    pub points: &'a [(f64, f64)],
}

/// Fitted coefficients (computed by the statistics module), y in ms, x in prompt tokens.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum Fit {
    /// y = a + b·x.
    Linear {
        /// Intercept, ms.
        a: f64,
        /// Slope, ms per token.
        b: f64,
    },
    /// y = a + b·x + c·x².
    Quadratic {
        /// Intercept, ms.
        a: f64,
        /// Linear term, ms per token.
        b: f64,
        /// Quadratic term, ms per token².
        c: f64,
    },
}

impl Fit {
    /// The fitted value at `x`.
    pub fn evaluate(&self, x: f64) -> f64 {
        match *self {
            Self::Linear { a, b } => a + b * x,
            Self::Quadratic { a, b, c } => a + x * (b + c * x),
        }
    }
}

/// A fit to draw, with its name.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FitCurve<'a> {
    /// The name shown for it ("linear fit").
    pub name: &'a str,
    /// The coefficients.
    pub fit: Fit,
}

/// The markers of one scatter series.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PointSeries {
    /// The series name.
    pub name: String,
    /// One marker per drawable point, in input order.
    pub markers: Vec<Marker>,
}

/// A sampled curve.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Curve {
    /// The curve's name.
    pub name: String,
    /// The curve as a polyline; breaks where it leaves the chart (see [`scatter_chart`]).
    pub path: String,
}

/// Geometry of the scatter chart.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScatterChart {
    /// Where the data is drawn.
    pub plot: Rect,
    /// Prompt tokens, from 0, ending on a tick.
    pub x_axis: Axis,
    /// Milliseconds, from 0, ending on a tick.
    pub y_axis: Axis,
    /// One entry per input series, in input order.
    pub series: Vec<PointSeries>,
    /// One entry per fit, in input order.
    pub curves: Vec<Curve>,
}

/// Lays out the scatter of latency against prompt tokens with fitted curves, each sampled
/// at `sample_count` evenly spaced x values (taken within 2..=1000) across the x axis.
///
/// Both axes start at 0 (the intercept is the fixed cost of a request). The y axis covers
/// the points and the curves, but a curve is only followed up to half the points' y span
/// beyond them: a wild fit cannot squash the data, and its samples further out are left
/// out (the line breaks) rather than flattened onto the plot's edge.
pub fn scatter_chart(
    series: &[ScatterSeries<'_>],
    fits: &[FitCurve<'_>],
    sample_count: usize,
    frame: &Frame,
) -> ScatterChart {
    let plot = frame.plot_area();
    let drawable_points = || {
        series
            .iter()
            .flat_map(|one| one.points.iter().copied())
            .filter(|(x, y)| is_drawable(*x) && is_drawable(*y))
    };
    let x_target = tick_target(plot.width_px, X_TICK_SPACING_PX);
    let x_domain = zero_based_domain(drawable_points().map(|(x, _)| x), EMPTY_TOKENS_DOMAIN);
    let x_domain = nice_domain(x_domain, x_target);
    let x_scale = LinearScale::for_x(x_domain, &plot).clamped();

    let data_y = zero_based_domain(drawable_points().map(|(_, y)| y), EMPTY_MS_DOMAIN);
    let reach = Domain {
        min: data_y.min - data_y.span() / 2.0,
        max: data_y.max + data_y.span() / 2.0,
    };
    let sample_count = sample_count.clamp(2, MAX_CURVE_SAMPLES);
    let curve_values = fits
        .iter()
        .flat_map(|fit| samples(fit.fit, x_domain, sample_count, reach))
        .flatten()
        .map(|(_, y)| y);
    let y_target = tick_target(plot.height_px, Y_TICK_SPACING_PX);
    let y_domain = curve_values.fold(data_y, Domain::including);
    let y_scale = LinearScale::for_y(nice_domain(y_domain, y_target), &plot).clamped();

    let project = |(x, y): (f64, f64)| (x_scale.project(x), y_scale.project(y));
    ScatterChart {
        plot,
        x_axis: Axis::new(&x_scale, x_target, TickFormat::Tokens),
        y_axis: Axis::new(&y_scale, y_target, TickFormat::Milliseconds),
        series: series
            .iter()
            .map(|one| PointSeries {
                name: one.name.to_owned(),
                markers: one
                    .points
                    .iter()
                    .filter(|(x, y)| is_drawable(*x) && is_drawable(*y))
                    .map(|&(x, y)| Marker {
                        x_px: x_scale.project(x),
                        y_px: y_scale.project(y),
                        x_value: x,
                        y_value: y,
                    })
                    .collect(),
            })
            .collect(),
        curves: fits
            .iter()
            .map(|fit| Curve {
                name: fit.name.to_owned(),
                path: polyline_path(
                    samples(fit.fit, x_domain, sample_count, reach).map(|point| point.map(project)),
                ),
            })
            .collect(),
    }
}

/// `sample_count` points of the fit evenly spaced across `x_domain`; `None` where the value
/// is not drawable or outside `reach`.
fn samples(
    fit: Fit,
    x_domain: Domain,
    sample_count: usize,
    reach: Domain,
) -> impl Iterator<Item = Option<(f64, f64)>> {
    let last = sample_count.saturating_sub(1).max(1) as f64;
    (0..sample_count).map(move |index| {
        let x = x_domain.min + x_domain.span() * (index as f64 / last);
        let y = fit.evaluate(x);
        (is_drawable(y) && reach.contains(y)).then_some((x, y))
    })
}

#[cfg(test)]
mod tests {
    use super::super::Margins;
    use super::*;

    /// Plot area 400 × 200 px at (50, 10).
    fn frame() -> Frame {
        Frame::new(
            470.0,
            240.0,
            Margins {
                top_px: 10.0,
                right_px: 20.0,
                bottom_px: 30.0,
                left_px: 50.0,
            },
        )
    }

    #[test]
    fn fits_evaluate() {
        let cases = [
            (Fit::Linear { a: 200.0, b: 0.5 }, 1000.0, 700.0),
            (
                Fit::Quadratic {
                    a: 200.0,
                    b: 0.5,
                    c: 0.001,
                },
                1000.0,
                1700.0,
            ),
            (
                Fit::Quadratic {
                    a: 1.0,
                    b: 0.0,
                    c: -1.0,
                },
                3.0,
                -8.0,
            ),
        ];
        for (fit, x, y) in cases {
            assert_eq!(fit.evaluate(x), y, "{fit:?} at {x}");
        }
    }

    #[test]
    fn points_and_a_linear_fit() {
        let points = [
            (1000.0, 700.0),
            (2000.0, 1200.0),
            (4000.0, 2100.0),
            (f64::NAN, 5.0),
        ];
        let chart = scatter_chart(
            &[ScatterSeries {
                name: "ttft_ms",
                points: &points,
            }],
            &[FitCurve {
                name: "linear",
                fit: Fit::Linear { a: 200.0, b: 0.5 },
            }],
            3,
            &frame(),
        );
        // x: [0, 4000], 5 ticks → step 1000 → 0.1 px per token from x = 50.
        // y: points [0, 2100] and the fit (200, 1200, 2200) → [0, 2200] → step 500 →
        // [0, 2500]: 0.08 px per ms from y = 210.
        assert_eq!(
            chart.x_axis.domain,
            Domain {
                min: 0.0,
                max: 4000.0
            }
        );
        assert_eq!(
            chart.y_axis.domain,
            Domain {
                min: 0.0,
                max: 2500.0
            }
        );
        let markers: Vec<(f64, f64)> = chart.series[0]
            .markers
            .iter()
            .map(|marker| (marker.x_px, marker.y_px))
            .collect();
        assert_eq!(markers.len(), 3);
        assert_eq!(markers[0], (150.0, 154.0));
        assert_eq!(chart.curves[0].path, "M50 194L250 114L450 34");
        let x_labels: Vec<&str> = chart
            .x_axis
            .ticks
            .iter()
            .map(|tick| tick.label.as_str())
            .collect();
        assert_eq!(x_labels, ["0", "1k", "2k", "3k", "4k"]);
    }

    #[test]
    fn a_wild_fit_is_cut_not_allowed_to_squash_the_data() {
        let points = [(0.0, 100.0), (1000.0, 1000.0)];
        let chart = scatter_chart(
            &[ScatterSeries {
                name: "ttft_ms",
                points: &points,
            }],
            &[FitCurve {
                name: "quadratic",
                fit: Fit::Quadratic {
                    a: 0.0,
                    b: 0.0,
                    c: 0.002,
                },
            }],
            11,
            &frame(),
        );
        // Data y [0, 1000] reaches to 1500: 0.002·x² is followed for x = 0, 100 ... 800
        // (1280 ms; 1620 at x = 900 is beyond), so y covers [0, 1280] → step 200 → [0, 1400].
        assert_eq!(
            chart.y_axis.domain,
            Domain {
                min: 0.0,
                max: 1400.0
            }
        );
        let path = &chart.curves[0].path;
        assert_eq!(path.matches('M').count(), 1, "{path}");
        // x = 100 → 20 ms → y = 210 − 20 × 200 / 1400 = 207.14; x = 800 → 1280 ms → 27.14.
        assert!(path.starts_with("M50 210L90 207.1L"), "{path}");
        assert!(path.ends_with("L370 27.1"), "{path}");
    }
}
