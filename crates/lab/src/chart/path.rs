//! SVG path strings: polylines with gaps, the step path of an empirical CDF, and the
//! min/max-per-pixel-column envelope that keeps long series drawable.
//!
//! Paths are written compactly, `M10 20L30.5 40H50V12`, with coordinates rounded to 0.1 px
//! (finer than any screen shows, and short: most numbers have at most one decimal).

use std::fmt::Write;

use super::frame::is_drawable;
use super::scale::LinearScale;

/// Writes an SVG path string, rounding coordinates to 0.1 px and skipping `H`/`V` commands
/// that would not move the pen.
#[derive(Clone, Debug, Default)]
pub struct PathBuilder {
    path: String,
    /// The pen position in tenths of a px, once a command was written.
    pen_tenths: Option<(i64, i64)>,
}

impl PathBuilder {
    /// An empty path.
    pub fn new() -> Self {
        Self::default()
    }

    /// Starts a new subpath at (x, y): `M x y`.
    fn move_to(&mut self, x_px: f64, y_px: f64) {
        self.point_command('M', x_px, y_px);
    }

    /// A straight line to (x, y): `L x y`.
    fn line_to(&mut self, x_px: f64, y_px: f64) {
        self.point_command('L', x_px, y_px);
    }

    /// A horizontal line to x: `H x`, omitted if the pen is already there (or has not been
    /// placed by a `PathBuilder::move_to` yet).
    fn horizontal_to(&mut self, x_px: f64) {
        let x_tenths = tenths(x_px);
        if let Some((pen_x, pen_y)) = self.pen_tenths {
            if pen_x != x_tenths {
                self.path.push('H');
                push_tenths(&mut self.path, x_tenths);
                self.pen_tenths = Some((x_tenths, pen_y));
            }
        }
    }

    /// A vertical line to y: `V y`, omitted if the pen is already there (or has not been
    /// placed yet).
    fn vertical_to(&mut self, y_px: f64) {
        let y_tenths = tenths(y_px);
        if let Some((pen_x, pen_y)) = self.pen_tenths {
            if pen_y != y_tenths {
                self.path.push('V');
                push_tenths(&mut self.path, y_tenths);
                self.pen_tenths = Some((pen_x, y_tenths));
            }
        }
    }

    /// The path string.
    pub fn finish(self) -> String {
        self.path
    }

    fn point_command(&mut self, command: char, x_px: f64, y_px: f64) {
        let (x_tenths, y_tenths) = (tenths(x_px), tenths(y_px));
        self.path.push(command);
        push_tenths(&mut self.path, x_tenths);
        self.path.push(' ');
        push_tenths(&mut self.path, y_tenths);
        self.pen_tenths = Some((x_tenths, y_tenths));
    }
}

/// `value_px` in tenths of a px, rounded half away from zero; non-finite values give 0
/// (callers only pass finite coordinates).
fn tenths(value_px: f64) -> i64 {
    let scaled = (value_px * 10.0).round();
    if scaled.is_finite() {
        // Saturates at the i64 range, far beyond any drawable coordinate.
        scaled as i64
    } else {
        0
    }
}

/// Appends a number of tenths as a decimal with at most one decimal: 305 → "30.5", 40 → "4".
fn push_tenths(path: &mut String, value_tenths: i64) {
    if value_tenths < 0 {
        path.push('-');
    }
    let magnitude = value_tenths.unsigned_abs();
    // Writing to a String cannot fail.
    let _ = write!(path, "{}", magnitude / 10);
    let decimal = magnitude % 10;
    if decimal != 0 {
        let _ = write!(path, ".{decimal}");
    }
}

/// A polyline through points in px; `None` (or a non-finite coordinate) breaks the line,
/// and the next point starts a new `M` subpath. Subpaths of a single point are left out
/// (a lone `M` draws nothing): draw isolated points as markers.
///
/// `[(0, 0), (10, 5), None, (20, 5), (30, 0)]` → `"M0 0L10 5M20 5L30 0"`.
pub fn polyline_path(points_px: impl IntoIterator<Item = Option<(f64, f64)>>) -> String {
    let mut builder = PathBuilder::new();
    // The first point of the current subpath, written only when a second point follows.
    let mut pending_start: Option<(f64, f64)> = None;
    let mut drawing = false;
    for point in points_px {
        match point.filter(|(x_px, y_px)| x_px.is_finite() && y_px.is_finite()) {
            None => {
                pending_start = None;
                drawing = false;
            }
            Some((x_px, y_px)) if drawing => builder.line_to(x_px, y_px),
            Some((x_px, y_px)) => match pending_start.take() {
                None => pending_start = Some((x_px, y_px)),
                Some((start_x_px, start_y_px)) => {
                    builder.move_to(start_x_px, start_y_px);
                    builder.line_to(x_px, y_px);
                    drawing = true;
                }
            },
        }
    }
    builder.finish()
}

/// The step path of the empirical CDF of `values`: F(v) = (number of values ≤ v) / n, from
/// 0 at the left end of `x_scale`'s domain to 1 at its right end, rising at each value.
/// Values that are not drawable are ignored; no values gives an empty string. Pass clamped scales to
/// keep the path inside the plot; `y_scale`'s domain is normally [`super::Domain::UNIT`].
///
/// Values `[1, 3, 3]` on x `[0, 4]` → 0 up to 1, 1/3 up to 3, then 1 up to 4.
pub fn ecdf_step_path(values: &[f64], x_scale: &LinearScale, y_scale: &LinearScale) -> String {
    let mut sorted: Vec<f64> = values.iter().copied().filter(|v| is_drawable(*v)).collect();
    if sorted.is_empty() {
        return String::new();
    }
    sorted.sort_by(f64::total_cmp);
    let count = sorted.len() as f64;
    let mut builder = PathBuilder::new();
    builder.move_to(x_scale.project(x_scale.domain.min), y_scale.project(0.0));
    for (index, value) in sorted.iter().enumerate() {
        let rank = index + 1;
        // Equal values make one step: rise only after the last of them.
        if sorted.get(rank) == Some(value) {
            continue;
        }
        builder.horizontal_to(x_scale.project(*value));
        builder.vertical_to(y_scale.project(rank as f64 / count));
    }
    builder.horizontal_to(x_scale.project(x_scale.domain.max));
    builder.finish()
}

/// Most pixel columns [`column_envelope`] keeps (16,384: wider than any screen), so that a
/// bogus width cannot allocate without bound.
pub const MAX_COLUMNS: usize = 1 << 14;

/// A point with its rank in the input: `(order, (x_px, y_px))`.
type Seen = (usize, (f64, f64));

/// Downsamples a long line to at most two vertices per pixel column: in each column, the
/// points with the lowest and the highest y, in their original order (a spike of a single
/// point always survives, unlike with averaging or taking every n-th point). Columns are
/// `column_count` 1-px slices starting at `left_px`; points left or right of them count in
/// the first or last column. Non-finite points are skipped.
///
/// Points should come sorted by x (as a series over token positions does); the output is
/// ordered by column, and never longer than `2 × column_count` (`column_count` taken within
/// 1..=[`MAX_COLUMNS`]).
pub fn column_envelope(
    points_px: impl IntoIterator<Item = (f64, f64)>,
    left_px: f64,
    column_count: usize,
) -> Vec<(f64, f64)> {
    let column_count = column_count.clamp(1, MAX_COLUMNS);
    // Per column: the lowest and the highest y seen.
    let mut columns: Vec<Option<[Seen; 2]>> = vec![None; column_count];
    let finite = points_px
        .into_iter()
        .filter(|(x_px, y_px)| x_px.is_finite() && y_px.is_finite());
    for (order, (x_px, y_px)) in finite.enumerate() {
        let offset_px = (x_px - left_px).floor().max(0.0);
        // The cast saturates; the min keeps it in range.
        let column = (offset_px as usize).min(column_count - 1);
        let entry = (order, (x_px, y_px));
        if let Some(slot) = columns.get_mut(column) {
            match slot {
                None => *slot = Some([entry, entry]),
                Some([lowest, highest]) => {
                    if y_px < lowest.1 .1 {
                        *lowest = entry;
                    }
                    if y_px > highest.1 .1 {
                        *highest = entry;
                    }
                }
            }
        }
    }
    let mut vertices = Vec::with_capacity(column_count * 2);
    for [lowest, highest] in columns.into_iter().flatten() {
        let (first, second) = if lowest.0 <= highest.0 {
            (lowest, highest)
        } else {
            (highest, lowest)
        };
        vertices.push(first.1);
        if second.0 != first.0 {
            vertices.push(second.1);
        }
    }
    vertices
}

#[cfg(test)]
mod tests {
    use super::super::Domain;
    use super::*;

    #[test]
    fn coordinates_are_rounded_to_tenths() {
        let cases = [
            (0.0, "0"),
            (10.0, "10"),
            (30.5, "30.5"),
            (30.54, "30.5"),
            (30.55, "30.6"),
            (12.96, "13"),
            (-3.25, "-3.3"),
            (-0.04, "0"),
            (f64::NAN, "0"),
        ];
        for (value_px, expected) in cases {
            let mut text = String::new();
            push_tenths(&mut text, tenths(value_px));
            assert_eq!(text, expected, "{value_px}");
        }
    }

    #[test]
    fn polylines_break_at_gaps_and_drop_lone_points() {
        let p = |x: f64, y: f64| Some((x, y));
        type Case<'a> = (&'a [Option<(f64, f64)>], &'a str);
        let cases: [Case; 7] = [
            (&[], ""),
            (&[p(1.0, 2.0)], ""),
            (&[p(0.0, 0.0), p(10.0, 5.0)], "M0 0L10 5"),
            (
                &[p(0.0, 0.0), p(10.0, 5.0), None, p(20.0, 5.0), p(30.0, 0.0)],
                "M0 0L10 5M20 5L30 0",
            ),
            (&[p(0.0, 0.0), None, p(10.0, 5.0), None, p(20.0, 5.0)], ""),
            (
                &[p(0.0, 0.0), None, p(10.0, 5.0), p(20.0, 5.0)],
                "M10 5L20 5",
            ),
            (
                &[p(0.04, 1.26), p(f64::NAN, 3.0), p(2.0, 3.0), p(4.0, -1.0)],
                "M2 3L4 -1",
            ),
        ];
        for (points, expected) in cases {
            assert_eq!(
                polyline_path(points.iter().copied()),
                expected,
                "{points:?}"
            );
        }
    }

    #[test]
    fn ecdf_steps() {
        // x: [0, 4] → 0..400 px; y: [0, 1] → 300..0 px (inverted).
        let x = LinearScale::new(Domain::new(0.0, 4.0), 0.0, 400.0).clamped();
        let y = LinearScale::new(Domain::UNIT, 300.0, 0.0).clamped();
        let cases: [(&[f64], &str); 5] = [
            (&[], ""),
            (&[2.0], "M0 300H200V0H400"),
            (&[3.0, 1.0, 3.0], "M0 300H100V200H300V0H400"),
            (&[0.0, 4.0], "M0 300V150H400V0"),
            (
                &[1.0, f64::NAN, 2.0, 3.0, 4.0],
                "M0 300H100V225H200V150H300V75H400V0",
            ),
        ];
        for (values, expected) in cases {
            assert_eq!(ecdf_step_path(values, &x, &y), expected, "{values:?}");
        }
    }

    #[test]
    fn envelope_keeps_extremes_per_column_in_order() {
        // Columns start at 10 px: [10, 11) is column 0, [11, 12) column 1...
        let points = [
            (10.0, 50.0),
            (10.3, 5.0), // spike (smallest y = highest value)
            (10.6, 40.0),
            (10.9, 60.0),
            (11.2, 30.0),
            (12.5, 20.0),
            (12.7, 25.0),
            (f64::NAN, 0.0),
            (40.0, 1.0), // right of the last column: counted in it
        ];
        let vertices = column_envelope(points, 10.0, 3);
        assert_eq!(
            vertices,
            [
                (10.3, 5.0),
                (10.9, 60.0),
                (11.2, 30.0),
                (12.7, 25.0),
                (40.0, 1.0)
            ]
        );
    }

    #[test]
    fn envelope_output_is_bounded_by_columns() {
        let points = (0..100_000).map(|index| (index as f64 / 1000.0, (index % 97) as f64));
        let vertices = column_envelope(points, 0.0, 100);
        assert_eq!(vertices.len(), 200);
        assert_eq!(column_envelope([(1.0, 1.0), (2.0, 2.0)], 0.0, 0).len(), 2);
    }
}
