//! Distribution of one metric: histogram bars, the empirical CDF and percentile markers.

use serde::{Deserialize, Serialize};

use super::frame::{is_drawable, Frame, Rect};
use super::layout::{
    tick_target, vertical_lines, Reference, ReferenceLine, EMPTY_MS_DOMAIN, X_TICK_SPACING_PX,
    Y_TICK_SPACING_PX,
};
use super::path::ecdf_step_path;
use super::scale::{Domain, LinearScale};
use super::ticks::{nice_domain, nice_step, Axis, NiceStep, TickFormat};

/// Below this many values the histogram uses Sturges' rule: Freedman–Diaconis rests on the
/// quartiles, which a handful of runs pins down poorly.
const FREEDMAN_DIACONIS_MIN_COUNT: usize = 30;
/// Most bins a histogram gets, however wide the plot.
const MAX_BINS: usize = 100;
/// Narrowest bar aimed for: fewer bins on narrow plots.
const MIN_BAR_WIDTH_PX: f64 = 3.0;

/// Which rule chose the number of bins.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum BinRule {
    /// Bin width 2 × IQR / ∛n (used from 30 values on, when the IQR is not zero).
    FreedmanDiaconis,
    /// ⌈log₂ n⌉ + 1 bins (fewer than 30 values, or an IQR of zero).
    Sturges,
}

/// Histogram bins of equal, nice width (1, 2 or 5 × 10^k) with edges on multiples of it:
/// bin `i` covers `[edge(i), edge(i + 1))`, the last one closed on the right.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Bins {
    /// The rule that set the bin count.
    pub rule: BinRule,
    /// The bin width.
    pub step: NiceStep,
    /// The first edge is `first_edge_index × step`.
    pub first_edge_index: i64,
    /// Number of values in each bin (at least one bin).
    pub counts: Vec<usize>,
}

impl Bins {
    /// Bins for the drawable values among `values`, at most `max_bins` (taken as at least 2)
    /// of them.
    ///
    /// The rule gives a bin *count* (see [`BinRule`]); the width is then rounded to a nice
    /// number with edges on its multiples (as d3's `bin` does), so the actual count can
    /// differ from the rule's by a factor of up to about 2, but never exceeds `max_bins`.
    /// `None` when no value is drawable.
    pub fn of_values(values: &[f64], max_bins: usize) -> Option<Self> {
        let mut sorted: Vec<f64> = values.iter().copied().filter(|v| is_drawable(*v)).collect();
        sorted.sort_by(f64::total_cmp);
        let (min, max) = (*sorted.first()?, *sorted.last()?);
        // Edges sit on multiples of the width, so values on both sides of an edge (as
        // around 0) need two bins even when the width exceeds their span.
        let max_bins = max_bins.max(2);
        let (rule, target_count) = bin_count(&sorted);
        let span = Domain::new(min, max).span();
        let mut step = nice_step(span, target_count.min(max_bins));
        let mut edges = edge_indices(step, min, max);
        // Ends: once the width reaches the span, there are at most two bins.
        while edges.1.saturating_sub(edges.0) > max_bins as i64 && step.exponent < 300 {
            step = next_larger(step);
            edges = edge_indices(step, min, max);
        }
        let bin_count = usize::try_from(edges.1.saturating_sub(edges.0))
            .unwrap_or(1)
            .clamp(1, max_bins);
        let mut bins = Self {
            rule,
            step,
            first_edge_index: edges.0,
            counts: vec![0; bin_count],
        };
        for value in &sorted {
            let index = bins.index_of(*value);
            if let Some(count) = bins.counts.get_mut(index) {
                *count += 1;
            }
        }
        Some(bins)
    }

    /// Edge `index` (0 is the lower edge of the first bin), exact for decimal widths.
    pub fn edge(&self, index: usize) -> f64 {
        let index = i64::try_from(index).unwrap_or(i64::MAX);
        self.step
            .multiple(self.first_edge_index.saturating_add(index))
    }

    /// Lower edge of the first bin.
    pub fn start(&self) -> f64 {
        self.edge(0)
    }

    /// Upper edge of the last bin.
    pub fn end(&self) -> f64 {
        self.edge(self.counts.len())
    }

    /// The bin holding `value` (values outside go to the first or last bin).
    fn index_of(&self, value: f64) -> usize {
        let last = self.counts.len().saturating_sub(1);
        let offset = self.step.index_of(value).floor() - self.first_edge_index as f64;
        // The cast saturates; the float division can be one off at an edge: check.
        let mut index = (offset.max(0.0) as usize).min(last);
        if index > 0 && value < self.edge(index) {
            index -= 1;
        } else if index < last && value >= self.edge(index + 1) {
            index += 1;
        }
        index
    }
}

/// The rule and its bin count for sorted values (at least one).
fn bin_count(sorted: &[f64]) -> (BinRule, usize) {
    let count = sorted.len();
    let span = sorted.last().unwrap_or(&0.0) - sorted.first().unwrap_or(&0.0);
    let iqr = quantile(sorted, 0.75) - quantile(sorted, 0.25);
    if count >= FREEDMAN_DIACONIS_MIN_COUNT && iqr > 0.0 {
        let width = 2.0 * iqr / (count as f64).cbrt();
        let bins = (span / width).ceil();
        // The cast saturates; callers cap the count.
        return (BinRule::FreedmanDiaconis, (bins as usize).max(1));
    }
    // ⌈log₂ n⌉ + 1, in integers: bits needed for n − 1, plus one.
    let log2_ceil = usize::BITS - (count.max(1) - 1).leading_zeros();
    (BinRule::Sturges, log2_ceil as usize + 1)
}

/// The quantile of sorted values by linear interpolation between closest ranks
/// (Hyndman–Fan type 7, the default of R and NumPy); only used for the IQR here.
fn quantile(sorted: &[f64], probability: f64) -> f64 {
    let Some(last) = sorted.len().checked_sub(1) else {
        return 0.0;
    };
    let position = probability.clamp(0.0, 1.0) * last as f64;
    let lower = position.floor() as usize;
    let lower_value = sorted.get(lower).copied().unwrap_or(0.0);
    let upper_value = sorted.get(lower + 1).copied().unwrap_or(lower_value);
    lower_value + (position - lower as f64) * (upper_value - lower_value)
}

/// Indices (multiples of `step`) of the first and last bin edges around `[min, max]`:
/// at least one bin.
fn edge_indices(step: NiceStep, min: f64, max: f64) -> (i64, i64) {
    let first = (min / step.value()).floor() as i64;
    let first = if step.multiple(first) > min {
        first.saturating_sub(1)
    } else {
        first
    };
    let last = (max / step.value()).ceil() as i64;
    let last = if step.multiple(last) < max {
        last.saturating_add(1)
    } else {
        last
    };
    (first, last.max(first.saturating_add(1)))
}

/// The next nice step up: 1 → 2 → 5 → 10.
fn next_larger(step: NiceStep) -> NiceStep {
    match step.mantissa {
        1 => NiceStep {
            mantissa: 2,
            ..step
        },
        2 => NiceStep {
            mantissa: 5,
            ..step
        },
        _ => NiceStep {
            mantissa: 1,
            exponent: step.exponent + 1,
        },
    }
}

/// One histogram bar.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Bar {
    /// Left edge.
    pub x_px: f64,
    /// Top edge.
    pub y_px: f64,
    /// Width (the bin width on the x scale).
    pub width_px: f64,
    /// Height, 0 for an empty bin.
    pub height_px: f64,
    /// Values in the bin.
    pub count: usize,
    /// Lower edge of the bin, ms (included).
    pub start_ms: f64,
    /// Upper edge of the bin, ms (excluded, except for the last bin).
    pub end_ms: f64,
}

/// Geometry of the distribution chart.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DistributionChart {
    /// Where the data is drawn.
    pub plot: Rect,
    /// Milliseconds, from the first bin edge to the last (widened to the markers).
    pub x_axis: Axis,
    /// Values per bin, from 0 (left axis).
    pub y_axis: Axis,
    /// The CDF's axis, 0–100 % over the same height (right axis).
    pub cdf_axis: Axis,
    /// The bins (rule, width, counts); `None` with no drawable value.
    pub bins: Option<Bins>,
    /// One bar per bin, empty bins included (height 0).
    pub bars: Vec<Bar>,
    /// The empirical CDF as a step path (see [`ecdf_step_path`]).
    pub cdf_path: String,
    /// Vertical lines at the given percentiles, in input order.
    pub markers: Vec<ReferenceLine>,
}

/// Lays out the distribution of `values_ms`: a histogram (see [`Bins::of_values`]; bars at
/// least about 3 px wide, at most 100), the empirical CDF over the same x axis and a
/// 0–100 % axis, and vertical markers at the given percentile values (computed by the
/// caller, with its stated method).
pub fn distribution_chart(
    values_ms: &[f64],
    markers: &[Reference<'_>],
    frame: &Frame,
) -> DistributionChart {
    let plot = frame.plot_area();
    let max_bins = ((plot.width_px / MIN_BAR_WIDTH_PX) as usize).clamp(1, MAX_BINS);
    let bins = Bins::of_values(values_ms, max_bins);

    let marker_values = markers.iter().map(|marker| marker.value);
    let x_domain = match &bins {
        Some(bins) => marker_values.fold(
            Domain {
                min: bins.start(),
                max: bins.end(),
            },
            Domain::including,
        ),
        None if markers.iter().any(|marker| is_drawable(marker.value)) => {
            Domain::of_values(marker_values)
        }
        None => EMPTY_MS_DOMAIN,
    };
    let x_scale = LinearScale::for_x(x_domain, &plot).clamped();

    let y_target = tick_target(plot.height_px, Y_TICK_SPACING_PX);
    let largest_count = bins
        .iter()
        .flat_map(|bins| bins.counts.iter())
        .max()
        .copied()
        .unwrap_or(0);
    let y_domain = nice_domain(Domain::new(0.0, largest_count.max(1) as f64), y_target);
    let y_scale = LinearScale::for_y(y_domain, &plot).clamped();
    let cdf_scale = LinearScale::for_y(Domain::UNIT, &plot).clamped();

    DistributionChart {
        plot,
        x_axis: Axis::new(
            &x_scale,
            tick_target(plot.width_px, X_TICK_SPACING_PX),
            TickFormat::Milliseconds,
        ),
        y_axis: Axis::new(&y_scale, y_target, TickFormat::Count),
        cdf_axis: Axis::new(&cdf_scale, y_target, TickFormat::Percent),
        bars: bins
            .as_ref()
            .map(|bins| bars(bins, &x_scale, &y_scale))
            .unwrap_or_default(),
        bins,
        cdf_path: ecdf_step_path(values_ms, &x_scale, &cdf_scale),
        markers: vertical_lines(markers, &x_scale, &plot),
    }
}

fn bars(bins: &Bins, x_scale: &LinearScale, y_scale: &LinearScale) -> Vec<Bar> {
    let baseline_px = y_scale.project(0.0);
    bins.counts
        .iter()
        .enumerate()
        .map(|(index, &count)| {
            let (start_ms, end_ms) = (bins.edge(index), bins.edge(index + 1));
            let (left_px, right_px) = (x_scale.project(start_ms), x_scale.project(end_ms));
            let top_px = y_scale.project(count as f64);
            Bar {
                x_px: left_px,
                y_px: top_px,
                width_px: right_px - left_px,
                height_px: baseline_px - top_px,
                count,
                start_ms,
                end_ms,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::Margins;
    use super::*;

    #[test]
    fn sturges_for_small_samples() {
        // 5 values: ⌈log₂ 5⌉ + 1 = 4 bins over a span of 400 → raw 100 → width 100.
        let bins = Bins::of_values(&[100.0, 180.0, 250.0, 420.0, 500.0], 100);
        assert_eq!(
            bins,
            Some(Bins {
                rule: BinRule::Sturges,
                step: NiceStep {
                    mantissa: 1,
                    exponent: 2
                },
                first_edge_index: 1,
                counts: vec![2, 1, 0, 2],
            })
        );
    }

    #[test]
    fn values_on_decimal_edges_open_the_next_bin() {
        // 6 values: 4 bins over [0.25, 0.3] → raw 0.0125 → width 0.01, 5 bins.
        // 0.29 × 100 is 28.999999999999996 in floating point: still bin [0.29, 0.3].
        let values = [0.25, 0.26, 0.27, 0.28, 0.29, 0.3];
        let bins = Bins::of_values(&values, 100).expect("bins");
        assert_eq!(
            bins.step,
            NiceStep {
                mantissa: 1,
                exponent: -2
            }
        );
        assert_eq!(bins.counts, [1, 1, 1, 1, 2]);
        let edges: Vec<f64> = (0..=5).map(|index| bins.edge(index)).collect();
        assert_eq!(edges, [0.25, 0.26, 0.27, 0.28, 0.29, 0.3]);
    }

    #[test]
    fn sturges_counts() {
        let cases = [
            (1, 1),
            (2, 2),
            (3, 3),
            (4, 3),
            (5, 4),
            (8, 4),
            (9, 5),
            (29, 6),
        ];
        for (count, bins) in cases {
            let values: Vec<f64> = (0..count).map(|index| index as f64).collect();
            assert_eq!(bin_count(&values), (BinRule::Sturges, bins), "n = {count}");
        }
    }

    #[test]
    fn freedman_diaconis_for_larger_samples() {
        // 0, 1, ..., 63: IQR = 47.25 − 15.75 = 31.5, ∛64 = 4 → width 15.75 → ⌈63 / 15.75⌉ = 4.
        let values: Vec<f64> = (0..64).map(|index| index as f64).collect();
        assert_eq!(bin_count(&values), (BinRule::FreedmanDiaconis, 4));
        // 4 bins over 63 → raw 15.75 → width 20: [0, 20) [20, 40) [40, 60) [60, 80].
        let bins = Bins::of_values(&values, 100).expect("bins");
        assert_eq!(
            (bins.start(), bins.step.value(), bins.end()),
            (0.0, 20.0, 80.0)
        );
        assert_eq!(bins.counts, [20, 20, 20, 4]);
    }

    #[test]
    fn zero_iqr_falls_back_to_sturges() {
        let mut values = vec![250.0; 40];
        values.push(900.0);
        assert_eq!(bin_count(&values).0, BinRule::Sturges);
    }

    #[test]
    fn all_equal_values_make_one_bin() {
        // Padded span 100 (±10 % of 500), 4 bins (n = 5) → raw 25 → width 20.
        let bins = Bins::of_values(&[500.0; 5], 100).expect("bins");
        assert_eq!(
            (bins.start(), bins.step.value(), bins.counts),
            (500.0, 20.0, vec![5])
        );
    }

    #[test]
    fn the_bin_count_is_capped() {
        // An extreme outlier would ask Freedman–Diaconis for ~200,000 bins.
        let mut values: Vec<f64> = (0..100).map(|index| 100.0 + index as f64).collect();
        values.push(1e7);
        let bins = Bins::of_values(&values, 10).expect("bins");
        assert!(bins.counts.len() <= 10, "{}", bins.counts.len());
        assert_eq!(bins.counts.iter().sum::<usize>(), 101);
        assert_eq!(Bins::of_values(&[f64::NAN], 10), None);
    }

    #[test]
    fn quantiles_interpolate_between_ranks() {
        let sorted = [1.0, 2.0, 3.0, 4.0];
        let cases = [
            (0.0, 1.0),
            (0.25, 1.75),
            (0.5, 2.5),
            (0.75, 3.25),
            (1.0, 4.0),
        ];
        for (probability, value) in cases {
            assert_eq!(quantile(&sorted, probability), value, "{probability}");
        }
        assert_eq!(quantile(&[], 0.5), 0.0);
    }

    #[test]
    fn chart_of_five_values() {
        // Plot area 400 × 200 px at (50, 10).
        let frame = Frame::new(
            470.0,
            240.0,
            Margins {
                top_px: 10.0,
                right_px: 20.0,
                bottom_px: 30.0,
                left_px: 50.0,
            },
        );
        let values = [100.0, 180.0, 250.0, 420.0, 500.0];
        let chart = distribution_chart(
            &values,
            &[Reference {
                name: "p50",
                value: 250.0,
            }],
            &frame,
        );
        // x: bins [100, 500] → 1 px per ms from x = 50 − 100.
        // y: counts [0, 2] with 5 ticks → step 0.5 → [0, 2] → 100 px per value from y = 210.
        let bars: Vec<(f64, f64, f64, f64, usize)> = chart
            .bars
            .iter()
            .map(|bar| (bar.x_px, bar.y_px, bar.width_px, bar.height_px, bar.count))
            .collect();
        assert_eq!(
            bars,
            [
                (50.0, 10.0, 100.0, 200.0, 2),
                (150.0, 110.0, 100.0, 100.0, 1),
                (250.0, 210.0, 100.0, 0.0, 0),
                (350.0, 10.0, 100.0, 200.0, 2),
            ]
        );
        let y_labels: Vec<&str> = chart
            .y_axis
            .ticks
            .iter()
            .map(|tick| tick.label.as_str())
            .collect();
        assert_eq!(y_labels, ["0", "1", "2"]);
        // CDF: 1/5 steps of 40 px.
        assert_eq!(chart.cdf_path, "M50 210V170H130V130H200V90H370V50H450V10");
        assert_eq!(chart.markers[0].x1_px, 200.0);
        assert_eq!(chart.bins.map(|bins| bins.rule), Some(BinRule::Sturges));
    }
}
