//! Inter-token latency over token position, downsampled per pixel column.

use serde::{Deserialize, Serialize};

use super::frame::{is_drawable, Frame, Rect};
use super::layout::{
    horizontal_lines, tick_target, zero_based_domain, Marker, Reference, ReferenceLine,
    EMPTY_MS_DOMAIN, X_TICK_SPACING_PX, Y_TICK_SPACING_PX,
};
use super::path::{column_envelope, polyline_path};
use super::scale::{Domain, LinearScale};
use super::ticks::{nice_domain, Axis, TickFormat};

/// Geometry of the ITL chart.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ItlChart {
    /// Where the data is drawn.
    pub plot: Rect,
    /// Token position (integer ticks, "10k" labels).
    pub x_axis: Axis,
    /// Gap in ms, from 0, ending on a tick.
    pub y_axis: Axis,
    /// The gaps as one line, downsampled to at most two vertices per pixel column.
    pub path: String,
    /// Number of vertices in `path`: at most 2 × ⌈plot width in px⌉ (2 for a zero width).
    pub vertex_count: usize,
    /// The longest gap (the first, if several are equal), for a highlight.
    pub largest_gap: Option<Marker>,
    /// Horizontal lines for the references (mean ITL, reading speed...), in input order.
    pub references: Vec<ReferenceLine>,
}

/// Lays out the gaps between consecutive tokens of one run: `gaps_ms[i]` is the wait before
/// token `i + 1` (token 0, the first, has none), drawn at x = `i + 1`; with `every` > 1,
/// `gaps_ms[i]` stands for the gaps `i · every` to `(i + 1) · every − 1` (the sample of
/// [`ttft_core::itl::ItlGaps`]) and is drawn at x = `i · every + 1`.
///
/// A run can stream 100k tokens, far more than the plot has pixel columns, so the line is
/// reduced with [`column_envelope`]: per 1-px column, the smallest and the largest gap, in
/// stream order. Every spike survives at its height, and the path has at most two vertices
/// per column whatever the input length. Gaps that are not drawable are skipped.
pub fn itl_chart(
    gaps_ms: &[f64],
    every: u64,
    references: &[Reference<'_>],
    frame: &Frame,
) -> ItlChart {
    let every = every.max(1);
    let plot = frame.plot_area();
    let x_domain = Domain::new(1.0, (gaps_ms.len() as u64 * every).max(1) as f64);
    let x_scale = LinearScale::for_x(x_domain, &plot).clamped();

    let y_target = tick_target(plot.height_px, Y_TICK_SPACING_PX);
    let values = gaps_ms
        .iter()
        .copied()
        .chain(references.iter().map(|reference| reference.value));
    let y_domain = nice_domain(zero_based_domain(values, EMPTY_MS_DOMAIN), y_target);
    let y_scale = LinearScale::for_y(y_domain, &plot).clamped();

    let drawable = || {
        gaps_ms
            .iter()
            .enumerate()
            .filter(|(_, gap_ms)| is_drawable(**gap_ms))
            .map(|(index, gap_ms)| ((index as u64 * every + 1) as f64, *gap_ms))
    };
    let projected =
        drawable().map(|(position, gap_ms)| (x_scale.project(position), y_scale.project(gap_ms)));
    // The cast saturates; plot widths are small.
    let column_count = plot.width_px.ceil() as usize;
    let vertices = column_envelope(projected, plot.x_px, column_count);
    let largest_gap = drawable()
        .reduce(|largest, next| if next.1 > largest.1 { next } else { largest })
        .map(|(position, gap_ms)| Marker {
            x_px: x_scale.project(position),
            y_px: y_scale.project(gap_ms),
            x_value: position,
            y_value: gap_ms,
        });

    ItlChart {
        plot,
        x_axis: Axis::new(
            &x_scale,
            tick_target(plot.width_px, X_TICK_SPACING_PX),
            TickFormat::Tokens,
        ),
        y_axis: Axis::new(&y_scale, y_target, TickFormat::Milliseconds),
        path: polyline_path(vertices.iter().copied().map(Some)),
        vertex_count: vertices.len(),
        largest_gap,
        references: horizontal_lines(references, &y_scale, &plot),
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
    fn short_runs_are_drawn_point_by_point() {
        // 5 gaps at tokens 1..5: x [1, 5] → 100 px per token from x = 50.
        // y: [0, 80] with 5 ticks → step 20 → [0, 80] → 2.5 px per ms from y = 210.
        let chart = itl_chart(&[20.0, 40.0, f64::NAN, 80.0, 20.0], 1, &[], &frame());
        assert_eq!(
            chart.y_axis.domain,
            Domain {
                min: 0.0,
                max: 80.0
            }
        );
        assert_eq!(chart.path, "M50 160L150 110L350 10L450 160");
        assert_eq!(chart.vertex_count, 4);
        let largest = chart.largest_gap.expect("largest gap");
        assert_eq!(
            (largest.x_value, largest.y_value, largest.x_px, largest.y_px),
            (4.0, 80.0, 350.0, 10.0)
        );
    }

    #[test]
    fn a_single_spike_among_100k_gaps_survives_downsampling() {
        let mut gaps_ms = vec![25.0; 100_000];
        gaps_ms[61_234] = 900.0;
        gaps_ms[61_235] = 1.0;
        let chart = itl_chart(
            &gaps_ms,
            1,
            &[Reference {
                name: "mean",
                value: 25.0,
            }],
            &frame(),
        );
        assert!(
            chart.vertex_count <= 2 * 400,
            "{} vertices",
            chart.vertex_count
        );
        // y: [0, 900] → [0, 1000]: 900 ms at y = 210 − 180 = 30, 1 ms at 209.8.
        assert!(chart.path.contains(" 30L"), "{}", chart.path);
        assert!(chart.path.contains(" 209.8"), "{}", chart.path);
        assert_eq!(chart.largest_gap.map(|gap| gap.x_value), Some(61_235.0));
        let x_labels: Vec<&str> = chart
            .x_axis
            .ticks
            .iter()
            .map(|tick| tick.label.as_str())
            .collect();
        assert_eq!(x_labels, ["20k", "40k", "60k", "80k", "100k"]);
    }

    #[test]
    fn no_gaps() {
        let chart = itl_chart(&[], 1, &[], &frame());
        assert_eq!((chart.path.as_str(), chart.vertex_count), ("", 0));
        assert_eq!(chart.largest_gap, None);
        assert_eq!(chart.y_axis.domain, EMPTY_MS_DOMAIN);
    }
}
