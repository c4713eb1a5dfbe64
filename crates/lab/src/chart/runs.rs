//! TTFT per run: one line per metric over run numbers, with reference levels.

use serde::{Deserialize, Serialize};

use super::frame::{is_drawable, Frame, Rect};
use super::layout::{
    horizontal_lines, tick_target, zero_based_domain, Marker, Reference, ReferenceLine,
    SeriesGeometry, EMPTY_MS_DOMAIN, X_TICK_SPACING_PX, Y_TICK_SPACING_PX,
};
use super::path::polyline_path;
use super::scale::{Domain, LinearScale};
use super::ticks::{nice_domain, Axis, TickFormat};

/// One metric over runs: `values_ms[i]` belongs to run `i + 1`; `None` where the run has no
/// value (failed, aborted, no reasoning...).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RunSeries<'a> {
    /// The metric name (`ttft_ms`, `ttfa_ms`, `perceived_ttfa_ms`).
    pub name: &'a str,
    /// One entry per run, in run order.
    pub values_ms: &'a [Option<f64>],
}

/// Geometry of the TTFT-per-run chart.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunsChart {
    /// Where the data is drawn.
    pub plot: Rect,
    /// Run numbers (1..n), integer ticks.
    pub x_axis: Axis,
    /// Milliseconds from 0, ending on a tick.
    pub y_axis: Axis,
    /// One entry per input series, in input order; missing values break the line.
    pub series: Vec<SeriesGeometry>,
    /// Horizontal lines for the references (p50, p95...), in input order.
    pub references: Vec<ReferenceLine>,
}

/// Lays out the TTFT-per-run chart.
///
/// x runs over `[0.5, n + 0.5]` so that the first and last runs are not drawn on the plot's
/// edges (n is the longest series, at least 1). y starts at 0 and extends to a tick at or
/// above every value and reference; with no values at all it shows 0–1 s.
pub fn runs_chart(
    series: &[RunSeries<'_>],
    references: &[Reference<'_>],
    frame: &Frame,
) -> RunsChart {
    let plot = frame.plot_area();
    let run_count = series
        .iter()
        .map(|one| one.values_ms.len())
        .max()
        .unwrap_or(0)
        .max(1);
    let x_scale = LinearScale::for_x(Domain::new(0.5, run_count as f64 + 0.5), &plot).clamped();

    let values = series
        .iter()
        .flat_map(|one| one.values_ms.iter().flatten().copied())
        .chain(references.iter().map(|reference| reference.value));
    let y_target = tick_target(plot.height_px, Y_TICK_SPACING_PX);
    let y_domain = nice_domain(zero_based_domain(values, EMPTY_MS_DOMAIN), y_target);
    let y_scale = LinearScale::for_y(y_domain, &plot).clamped();

    RunsChart {
        plot,
        x_axis: Axis::new(
            &x_scale,
            tick_target(plot.width_px, X_TICK_SPACING_PX),
            TickFormat::Count,
        ),
        y_axis: Axis::new(&y_scale, y_target, TickFormat::Milliseconds),
        series: series
            .iter()
            .map(|one| series_geometry(one, &x_scale, &y_scale))
            .collect(),
        references: horizontal_lines(references, &y_scale, &plot),
    }
}

fn series_geometry(
    series: &RunSeries<'_>,
    x_scale: &LinearScale,
    y_scale: &LinearScale,
) -> SeriesGeometry {
    // (run number, value) for each run, None where missing or not drawable.
    let points = || {
        series
            .values_ms
            .iter()
            .enumerate()
            .map(|(index, value_ms)| {
                value_ms
                    .filter(|value_ms| is_drawable(*value_ms))
                    .map(|value_ms| ((index + 1) as f64, value_ms))
            })
    };
    let project = |(run, value_ms): (f64, f64)| (x_scale.project(run), y_scale.project(value_ms));
    SeriesGeometry {
        name: series.name.to_owned(),
        path: polyline_path(points().map(|point| point.map(project))),
        markers: points()
            .flatten()
            .map(|(run, value_ms)| Marker {
                x_px: x_scale.project(run),
                y_px: y_scale.project(value_ms),
                x_value: run,
                y_value: value_ms,
            })
            .collect(),
    }
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
    fn four_runs_with_a_failure_and_references() {
        let ttft = [Some(300.0), Some(500.0), None, Some(400.0)];
        let ttfa = [Some(900.0), None, None, Some(700.0)];
        let chart = runs_chart(
            &[
                RunSeries {
                    name: "ttft_ms",
                    values_ms: &ttft,
                },
                RunSeries {
                    name: "ttfa_ms",
                    values_ms: &ttfa,
                },
            ],
            &[Reference {
                name: "p50",
                value: 400.0,
            }],
            &frame(),
        );
        // x: [0.5, 4.5] over 400 px → 100 px per run, run 1 at x = 50 + 50 = 100.
        // y: [0, 900] with 5 ticks → step 200 → nice [0, 1000]: 0.2 px per ms from y = 210.
        assert_eq!(
            chart.y_axis.domain,
            Domain {
                min: 0.0,
                max: 1000.0
            }
        );
        let y_labels: Vec<&str> = chart
            .y_axis
            .ticks
            .iter()
            .map(|tick| tick.label.as_str())
            .collect();
        assert_eq!(
            y_labels,
            ["0 s", "0.2 s", "0.4 s", "0.6 s", "0.8 s", "1.0 s"]
        );
        let x_ticks: Vec<(f64, f64)> = chart
            .x_axis
            .ticks
            .iter()
            .map(|tick| (tick.value, tick.position_px))
            .collect();
        assert_eq!(
            x_ticks,
            [(1.0, 100.0), (2.0, 200.0), (3.0, 300.0), (4.0, 400.0)]
        );

        assert_eq!(chart.series[0].name, "ttft_ms");
        // Run 3 failed: the line stops after run 2; run 4 alone draws no line.
        assert_eq!(chart.series[0].path, "M100 150L200 110");
        let markers: Vec<(f64, f64)> = chart.series[0]
            .markers
            .iter()
            .map(|marker| (marker.x_px, marker.y_px))
            .collect();
        assert_eq!(markers, [(100.0, 150.0), (200.0, 110.0), (400.0, 130.0)]);
        assert_eq!(chart.series[1].path, "");
        assert_eq!(chart.series[1].markers.len(), 2);

        let p50 = &chart.references[0];
        assert_eq!(
            (p50.x1_px, p50.y1_px, p50.x2_px, p50.y2_px),
            (50.0, 130.0, 450.0, 130.0)
        );
    }

    #[test]
    fn no_runs_shows_an_empty_second() {
        let chart = runs_chart(&[], &[], &frame());
        assert_eq!(
            chart.y_axis.domain,
            Domain {
                min: 0.0,
                max: 1000.0
            }
        );
        assert_eq!(chart.x_axis.domain, Domain { min: 0.5, max: 1.5 });
        assert!(chart.series.is_empty());
    }

    #[test]
    fn a_reference_above_every_value_extends_the_axis() {
        let values = [Some(100.0)];
        let chart = runs_chart(
            &[RunSeries {
                name: "ttft_ms",
                values_ms: &values,
            }],
            &[
                Reference {
                    name: "p99",
                    value: 2600.0,
                },
                Reference {
                    name: "bad",
                    value: f64::NAN,
                },
            ],
            &frame(),
        );
        assert_eq!(
            chart.y_axis.domain,
            Domain {
                min: 0.0,
                max: 3000.0
            }
        );
        assert_eq!(chart.references.len(), 1);
    }
}
