//! Every layout keeps its geometry inside the plot area, for any data: random values
//! including NaN, infinities, zeros, huge and tiny magnitudes, on random frames including
//! frames smaller than their margins. Path strings are parsed back and checked point by
//! point (they are rounded to 0.1 px, so they may exceed the area by 0.05 px).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use proptest::prelude::*;
use ttft_lab::chart::{
    distribution_chart, itl_chart, runs_chart, scatter_chart, waterfall_chart, Axis, Fit, FitCurve,
    Frame, Margins, Marker, Phase, PhaseSpan, Rect, Reference, ReferenceLine, RunSeries,
    ScatterSeries,
};

/// Exact geometry may sit on the border; float error of a projection stays far below this.
const EXACT_TOLERANCE_PX: f64 = 1e-6;
/// Path coordinates are rounded to 0.1 px.
const PATH_TOLERANCE_PX: f64 = 0.05 + 1e-6;

/// A value as measurements (and bugs) produce them.
fn value() -> impl Strategy<Value = f64> {
    prop_oneof![
        6 => 0.0..5000.0f64,
        2 => -1e4..1e7f64,
        1 => Just(0.0),
        1 => Just(f64::NAN),
        1 => Just(f64::INFINITY),
        1 => Just(f64::NEG_INFINITY),
        1 => Just(1e15),
        1 => Just(-1e15),
        1 => Just(1e300),
        1 => Just(1e-300),
        1 => any::<f64>(),
    ]
}

fn frame() -> impl Strategy<Value = Frame> {
    (
        0.0..3000.0f64,
        0.0..1500.0f64,
        prop::array::uniform4(0.0..120.0f64),
    )
        .prop_map(
            |(width_px, height_px, [top_px, right_px, bottom_px, left_px])| {
                Frame::new(
                    width_px,
                    height_px,
                    Margins {
                        top_px,
                        right_px,
                        bottom_px,
                        left_px,
                    },
                )
            },
        )
}

fn references() -> impl Strategy<Value = Vec<f64>> {
    prop::collection::vec(value(), 0..4)
}

fn named(values: &[f64]) -> Vec<Reference<'static>> {
    values
        .iter()
        .map(|&value| Reference { name: "p", value })
        .collect()
}

/// Checks that `(x, y)` lies in `plot`, within `tolerance_px`.
fn assert_inside(plot: &Rect, x_px: f64, y_px: f64, tolerance_px: f64, what: &str) {
    assert!(
        plot.contains(x_px, y_px, tolerance_px),
        "{what}: ({x_px}, {y_px}) outside {plot:?}"
    );
}

/// The points an SVG path of `M`/`L`/`H`/`V` commands visits.
fn path_points(path: &str) -> Vec<(f64, f64)> {
    let mut points = Vec::new();
    let (mut x_px, mut y_px) = (0.0, 0.0);
    let mut rest = path;
    while let Some(command) = rest.chars().next() {
        rest = &rest[1..];
        let end = rest
            .find(|c: char| c.is_ascii_alphabetic())
            .unwrap_or(rest.len());
        let numbers: Vec<f64> = rest[..end]
            .split(' ')
            .map(|number| {
                number
                    .parse()
                    .unwrap_or_else(|_| panic!("bad number in {path}"))
            })
            .collect();
        match (command, numbers.as_slice()) {
            ('M' | 'L', [x, y]) => (x_px, y_px) = (*x, *y),
            ('H', [x]) => x_px = *x,
            ('V', [y]) => y_px = *y,
            _ => panic!("unexpected {command} {numbers:?} in {path}"),
        }
        points.push((x_px, y_px));
        rest = &rest[end..];
    }
    points
}

fn assert_path_inside(plot: &Rect, path: &str, what: &str) {
    for (x_px, y_px) in path_points(path) {
        assert_inside(plot, x_px, y_px, PATH_TOLERANCE_PX, what);
    }
}

fn assert_markers_inside(plot: &Rect, markers: &[Marker], what: &str) {
    for marker in markers {
        assert_inside(plot, marker.x_px, marker.y_px, EXACT_TOLERANCE_PX, what);
    }
}

fn assert_lines_inside(plot: &Rect, lines: &[ReferenceLine], what: &str) {
    for line in lines {
        assert_inside(plot, line.x1_px, line.y1_px, EXACT_TOLERANCE_PX, what);
        assert_inside(plot, line.x2_px, line.y2_px, EXACT_TOLERANCE_PX, what);
    }
}

fn assert_axes_inside(plot: &Rect, x_axis: Option<&Axis>, y_axes: &[&Axis]) {
    for tick in x_axis.iter().flat_map(|axis| axis.ticks.iter()) {
        assert_inside(
            plot,
            tick.position_px,
            plot.y_px,
            EXACT_TOLERANCE_PX,
            "x tick",
        );
        assert_label_clean(&tick.label);
    }
    for tick in y_axes.iter().flat_map(|axis| axis.ticks.iter()) {
        assert_inside(
            plot,
            plot.x_px,
            tick.position_px,
            EXACT_TOLERANCE_PX,
            "y tick",
        );
        assert_label_clean(&tick.label);
    }
}

fn assert_label_clean(label: &str) {
    assert!(
        !label.is_empty() && !label.contains("NaN") && !label.contains("inf"),
        "label {label:?}"
    );
}

fn assert_rect_inside(plot: &Rect, rect: (f64, f64, f64, f64), what: &str) {
    let (x_px, y_px, width_px, height_px) = rect;
    assert!(
        width_px >= 0.0 && height_px >= 0.0,
        "{what}: negative size {rect:?}"
    );
    assert_inside(plot, x_px, y_px, EXACT_TOLERANCE_PX, what);
    assert_inside(
        plot,
        x_px + width_px,
        y_px + height_px,
        EXACT_TOLERANCE_PX,
        what,
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn runs_chart_stays_inside(
        ttft in prop::collection::vec(prop::option::of(value()), 0..60),
        ttfa in prop::collection::vec(prop::option::of(value()), 0..60),
        reference_values in references(),
        frame in frame(),
    ) {
        let series = [
            RunSeries { name: "ttft_ms", values_ms: &ttft },
            RunSeries { name: "ttfa_ms", values_ms: &ttfa },
        ];
        let chart = runs_chart(&series, &named(&reference_values), &frame);
        let plot = chart.plot;
        assert_axes_inside(&plot, Some(&chart.x_axis), &[&chart.y_axis]);
        for one in &chart.series {
            assert_path_inside(&plot, &one.path, "runs path");
            assert_markers_inside(&plot, &one.markers, "runs marker");
        }
        assert_lines_inside(&plot, &chart.references, "runs reference");
        prop_assert!(!chart.x_axis.ticks.is_empty());
    }

    #[test]
    fn distribution_chart_stays_inside(
        values in prop::collection::vec(value(), 0..200),
        marker_values in references(),
        frame in frame(),
    ) {
        let chart = distribution_chart(&values, &named(&marker_values), &frame);
        let plot = chart.plot;
        assert_axes_inside(&plot, Some(&chart.x_axis), &[&chart.y_axis, &chart.cdf_axis]);
        for bar in &chart.bars {
            assert_rect_inside(&plot, (bar.x_px, bar.y_px, bar.width_px, bar.height_px), "bar");
        }
        assert_path_inside(&plot, &chart.cdf_path, "cdf");
        assert_lines_inside(&plot, &chart.markers, "percentile marker");
        let counted: usize = chart.bars.iter().map(|bar| bar.count).sum();
        let drawable = values.iter().filter(|v| ttft_lab::chart::is_drawable(**v)).count();
        prop_assert_eq!(counted, drawable);
        prop_assert!(chart.bars.len() <= 100);
    }

    #[test]
    fn itl_chart_stays_inside_and_is_bounded(
        gaps in prop::collection::vec(value(), 0..400),
        reference_values in references(),
        frame in frame(),
    ) {
        let chart = itl_chart(&gaps, 1, &named(&reference_values), &frame);
        let plot = chart.plot;
        assert_axes_inside(&plot, Some(&chart.x_axis), &[&chart.y_axis]);
        assert_path_inside(&plot, &chart.path, "itl path");
        assert_markers_inside(&plot, chart.largest_gap.as_slice(), "largest gap");
        assert_lines_inside(&plot, &chart.references, "itl reference");
        let columns = (plot.width_px.ceil() as usize).max(1);
        prop_assert!(chart.vertex_count <= 2 * columns);
    }

    #[test]
    fn scatter_chart_stays_inside(
        points in prop::collection::vec((value(), value()), 0..80),
        coefficients in prop::array::uniform3(value()),
        quadratic in any::<bool>(),
        sample_count in 0usize..300,
        frame in frame(),
    ) {
        let [a, b, c] = coefficients;
        let fit = if quadratic { Fit::Quadratic { a, b, c } } else { Fit::Linear { a, b } };
        let chart = scatter_chart(
            &[ScatterSeries { name: "ttft_ms", points: &points }],
            &[FitCurve { name: "fit", fit }],
            sample_count,
            &frame,
        );
        let plot = chart.plot;
        assert_axes_inside(&plot, Some(&chart.x_axis), &[&chart.y_axis]);
        assert_markers_inside(&plot, &chart.series[0].markers, "scatter marker");
        assert_path_inside(&plot, &chart.curves[0].path, "fit curve");
    }

    #[test]
    fn waterfall_chart_stays_inside(
        spans in prop::collection::vec((0usize..5, value(), value()), 0..8),
        frame in frame(),
    ) {
        let phases = [
            Phase::ConnectionSetup,
            Phase::Waiting,
            Phase::Reasoning,
            Phase::Answer,
            Phase::PaintDelay,
        ];
        let spans: Vec<PhaseSpan> = spans
            .into_iter()
            .map(|(phase, start_ms, end_ms)| PhaseSpan { phase: phases[phase], start_ms, end_ms })
            .collect();
        let chart = waterfall_chart(&spans, &frame);
        let plot = chart.plot;
        assert_axes_inside(&plot, Some(&chart.x_axis), &[]);
        for bar in &chart.bars {
            assert_rect_inside(&plot, (bar.x_px, bar.y_px, bar.width_px, bar.height_px), "phase bar");
            assert_inside(&plot, bar.x_px, bar.label_y_px, EXACT_TOLERANCE_PX, "phase label");
        }
    }
}

#[test]
fn charts_serialize_to_json() {
    let frame = Frame::new(600.0, 300.0, Margins::uniform(30.0));
    let values = [Some(420.5), None, Some(380.0)];
    let chart = runs_chart(
        &[RunSeries {
            name: "ttft_ms",
            values_ms: &values,
        }],
        &[],
        &frame,
    );
    let json = serde_json::to_value(&chart).expect("json");
    assert_eq!(json["series"][0]["name"], "ttft_ms");
    assert_eq!(json["y_axis"]["format"], "Milliseconds");
    let back: ttft_lab::chart::RunsChart = serde_json::from_value(json).expect("round trip");
    assert_eq!(back, chart);
}

/// Fails on any `null` in `json` outside the optional fields (serde_json writes NaN and
/// infinities as `null`).
fn assert_no_null(json: &serde_json::Value, path: &str) {
    match json {
        serde_json::Value::Null => panic!("null (NaN?) at {path}"),
        serde_json::Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                assert_no_null(item, &format!("{path}[{index}]"));
            }
        }
        serde_json::Value::Object(fields) => {
            for (key, value) in fields {
                let optional = key == "bins" || key == "largest_gap";
                if !(optional && value.is_null()) {
                    assert_no_null(value, &format!("{path}.{key}"));
                }
            }
        }
        _ => {}
    }
}

#[test]
fn degenerate_data_gives_finite_geometry() {
    let frame = Frame::new(600.0, 300.0, Margins::uniform(30.0));
    let datasets: [&[f64]; 6] = [&[], &[500.0], &[500.0; 4], &[0.0], &[0.0, 0.0], &[f64::NAN]];
    for values in datasets {
        let what = format!("{values:?}");
        let runs: Vec<Option<f64>> = values.iter().copied().map(Some).collect();
        let points: Vec<(f64, f64)> = values.iter().map(|&value| (value, value)).collect();
        let spans: Vec<PhaseSpan> = values
            .iter()
            .map(|&value| PhaseSpan {
                phase: Phase::Waiting,
                start_ms: 0.0,
                end_ms: value,
            })
            .collect();
        let references = named(values);
        let charts = [
            serde_json::to_value(runs_chart(
                &[RunSeries {
                    name: "ttft_ms",
                    values_ms: &runs,
                }],
                &references,
                &frame,
            )),
            serde_json::to_value(distribution_chart(values, &references, &frame)),
            serde_json::to_value(itl_chart(values, 1, &references, &frame)),
            serde_json::to_value(scatter_chart(
                &[ScatterSeries {
                    name: "ttft_ms",
                    points: &points,
                }],
                &[FitCurve {
                    name: "fit",
                    fit: Fit::Linear { a: 0.0, b: 1.0 },
                }],
                10,
                &frame,
            )),
            serde_json::to_value(waterfall_chart(&spans, &frame)),
        ];
        for (index, chart) in charts.into_iter().enumerate() {
            let json = chart.expect("json");
            assert_no_null(&json, &format!("chart {index} of {what}"));
            let ticks = json["x_axis"]["ticks"].as_array().map_or(0, Vec::len);
            assert!(ticks >= 1, "chart {index} of {what}: no x ticks");
        }
    }
}
