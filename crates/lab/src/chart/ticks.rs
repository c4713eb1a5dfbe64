//! "Nice" tick values (1, 2 or 5 × 10^k), nice domains and tick labels.
//!
//! The step rule is Heckbert's nice numbers with d3-scale's thresholds: the raw step
//! `span / target_count` is written `f × 10^k` with 1 ≤ f < 10 and rounded to 1 if f < √2,
//! 2 if f < √10, 5 if f < √50, else 10. Tick values are computed as integer multiples of the
//! step (`i × 2 / 10`, not `i × 0.2`) so that they print exactly.

use serde::{Deserialize, Serialize};

use super::scale::{Domain, LinearScale};

/// Most ticks one axis may carry, whatever the domain (a guard against hand-built domains).
const MAX_TICKS: i64 = 1000;

/// A tick step `mantissa × 10^exponent` with mantissa 1, 2 or 5.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NiceStep {
    /// 1, 2 or 5.
    pub mantissa: u8,
    /// The power of ten.
    pub exponent: i32,
}

impl NiceStep {
    /// A step of 1, the smallest step of integer axes (run numbers, counts, tokens).
    pub const ONE: NiceStep = NiceStep {
        mantissa: 1,
        exponent: 0,
    };

    /// The step as a number.
    pub fn value(&self) -> f64 {
        self.multiple(1)
    }

    /// `index × step`, computed so that decimal steps give the nearest double (3 × 0.1 = 0.3).
    pub fn multiple(&self, index: i64) -> f64 {
        let units = (index.saturating_mul(i64::from(self.mantissa))) as f64;
        if self.exponent >= 0 {
            units * pow10(self.exponent)
        } else {
            units / pow10(-self.exponent)
        }
    }

    /// `value / step`, the inverse of [`NiceStep::multiple`] (not rounded).
    pub(super) fn index_of(&self, value: f64) -> f64 {
        let units = if self.exponent >= 0 {
            value / pow10(self.exponent)
        } else {
            value * pow10(-self.exponent)
        };
        units / f64::from(self.mantissa)
    }

    /// The larger of the two steps.
    fn at_least(self, other: NiceStep) -> NiceStep {
        if other.value() > self.value() {
            other
        } else {
            self
        }
    }

    /// Index of the first multiple of the step that is ≥ `value`.
    fn first_index_at_or_above(&self, value: f64) -> i64 {
        let index = self.index_of(value).round() as i64;
        if self.multiple(index) < value {
            index.saturating_add(1)
        } else {
            index
        }
    }

    /// Index of the last multiple of the step that is ≤ `value`.
    fn last_index_at_or_below(&self, value: f64) -> i64 {
        let index = self.index_of(value).round() as i64;
        if self.multiple(index) > value {
            index.saturating_sub(1)
        } else {
            index
        }
    }
}

/// 10^exponent; exact for |exponent| ≤ 22, the range chart values use.
fn pow10(exponent: i32) -> f64 {
    if exponent.unsigned_abs() > 22 {
        return 10f64.powi(exponent);
    }
    let mut power = 1.0;
    for _ in 0..exponent.unsigned_abs() {
        power *= 10.0;
    }
    if exponent < 0 {
        1.0 / power
    } else {
        power
    }
}

/// The nice step that cuts `span` into about `target_count` parts (see the module doc).
/// `target_count` is taken within 1..=50; a span that is not a positive finite number gives
/// [`NiceStep::ONE`].
pub fn nice_step(span: f64, target_count: usize) -> NiceStep {
    let target = target_count.clamp(1, 50) as f64;
    let raw = span / target;
    if !(raw.is_finite() && raw > 0.0) {
        return NiceStep::ONE;
    }
    let mut exponent = raw.log10().floor() as i32;
    let mut fraction = raw / pow10(exponent);
    // log10 may land one off near powers of ten.
    if fraction >= 10.0 {
        exponent += 1;
        fraction /= 10.0;
    } else if fraction < 1.0 {
        exponent -= 1;
        fraction *= 10.0;
    }
    let (mantissa, exponent) = if fraction >= 50f64.sqrt() {
        (1, exponent + 1)
    } else if fraction >= 10f64.sqrt() {
        (5, exponent)
    } else if fraction >= 2f64.sqrt() {
        (2, exponent)
    } else {
        (1, exponent)
    };
    NiceStep { mantissa, exponent }
}

/// The multiples of a step that lie in a domain: tick values without allocation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TickValues {
    /// The step between ticks.
    pub step: NiceStep,
    /// Index (multiple of the step) of the first tick.
    pub first_index: i64,
    /// Number of ticks.
    pub count: usize,
}

impl TickValues {
    /// The multiples of `step` inside `domain` (ends included), at most 1000.
    fn in_domain(domain: Domain, step: NiceStep) -> Self {
        let first_index = step.first_index_at_or_above(domain.min);
        let last_index = step.last_index_at_or_below(domain.max);
        // Saturating: a hand-built domain with infinite ends must not overflow.
        let count = last_index
            .saturating_sub(first_index)
            .saturating_add(1)
            .clamp(0, MAX_TICKS);
        Self {
            step,
            first_index,
            count: usize::try_from(count).unwrap_or(0),
        }
    }

    /// The tick values, ascending.
    pub fn iter(&self) -> impl Iterator<Item = f64> + '_ {
        (0..self.count as i64).map(move |offset| self.step.multiple(self.first_index + offset))
    }

    /// The largest magnitude among the ticks (0 if there are none).
    fn largest_magnitude(&self) -> f64 {
        self.iter().map(f64::abs).fold(0.0, f64::max)
    }
}

/// About `target_count` round tick values inside `domain` (1, 2 or 5 × 10^k apart).
///
/// The domain's ends are ticks only if they are multiples of the step; use [`nice_domain`]
/// first for an axis that starts and ends on a tick.
pub fn tick_values(domain: Domain, target_count: usize) -> TickValues {
    TickValues::in_domain(domain, nice_step(domain.span(), target_count))
}

/// `domain` extended outwards to the nearest multiples of its nice step, so that both ends
/// are ticks (`[3, 97]` with 10 ticks → `[0, 100]`). Repeated until the step is stable,
/// since widening can change the step (as d3-scale's `nice` does).
pub fn nice_domain(domain: Domain, target_count: usize) -> Domain {
    let mut current = if domain.is_usable() {
        domain
    } else {
        Domain::new(domain.min, domain.max)
    };
    for _ in 0..4 {
        let step = nice_step(current.span(), target_count);
        let next = Domain {
            min: step.multiple(step.last_index_at_or_below(current.min)),
            max: step.multiple(step.first_index_at_or_above(current.max)),
        };
        if next == current {
            break;
        }
        current = next;
    }
    current
}

/// How tick values are labelled. Every label of an axis uses the same unit and the same
/// number of decimals: just enough to show the step (step 0.5 s → "1.0 s", "1.5 s").
/// Zero is always written without decimals ("0 ms", "0 s", "0").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum TickFormat {
    /// Durations given in ms: "250 ms"; once any tick reaches 1000 ms, the whole axis is in
    /// seconds: "0.5 s", "1.0 s".
    Milliseconds,
    /// Token counts: "500"; from 1000 on the axis "1.5k", "10k"; from 10⁶ "1.2M".
    /// Integer steps only.
    Tokens,
    /// Plain counts (runs, histogram counts): "12". Integer steps only.
    Count,
    /// Fractions shown as percentages: 0.25 → "25%".
    Percent,
}

impl TickFormat {
    /// Whether ticks must be whole numbers (steps of at least 1).
    fn is_integer(&self) -> bool {
        matches!(self, Self::Tokens | Self::Count)
    }

    /// Labels for every tick of `ticks`, in order.
    pub fn labels(&self, ticks: &TickValues) -> Vec<String> {
        let (shift, suffix, zero) = self.unit(ticks.largest_magnitude());
        // Decimals that show the step in the chosen unit: step m × 10^k shown in units of
        // 10^shift needs max(0, shift − k) decimals.
        let decimals = (shift - ticks.step.exponent).clamp(0, 12) as usize;
        ticks
            .iter()
            .map(|value| {
                if value == 0.0 {
                    zero.to_owned()
                } else {
                    label(value, shift, decimals, suffix)
                }
            })
            .collect()
    }

    /// Power of ten of the display unit, its suffix and the label of zero, for an axis
    /// whose largest tick magnitude is `largest`.
    fn unit(&self, largest: f64) -> (i32, &'static str, &'static str) {
        match self {
            Self::Milliseconds if largest >= 1000.0 => (3, " s", "0 s"),
            Self::Milliseconds => (0, " ms", "0 ms"),
            Self::Tokens if largest >= 1e6 => (6, "M", "0"),
            Self::Tokens if largest >= 1e3 => (3, "k", "0"),
            Self::Tokens | Self::Count => (0, "", "0"),
            Self::Percent => (-2, "%", "0%"),
        }
    }
}

/// `value` in units of 10^shift with `decimals` decimals and `suffix`.
fn label(value: f64, shift: i32, decimals: usize, suffix: &str) -> String {
    let scaled = if shift >= 0 {
        value / pow10(shift)
    } else {
        value * pow10(-shift)
    };
    format!("{scaled:.decimals$}{suffix}")
}

/// One tick: a value, where it is drawn along its axis, and its label.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Tick {
    /// The value, in data units (ms, tokens...).
    pub value: f64,
    /// Position along the axis: x for a horizontal axis, y for a vertical one.
    pub position_px: f64,
    /// The text to draw.
    pub label: String,
}

/// An axis: its domain, how it is labelled, and its ticks.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Axis {
    /// The values the axis spans.
    pub domain: Domain,
    /// The label format (and so the unit).
    pub format: TickFormat,
    /// Ticks inside the domain, ascending by value.
    pub ticks: Vec<Tick>,
}

impl Axis {
    /// The axis of `scale`: about `target_count` ticks inside its domain (integer steps for
    /// integer formats), positioned by the scale and labelled with `format`.
    pub fn new(scale: &LinearScale, target_count: usize, format: TickFormat) -> Self {
        let mut step = nice_step(scale.domain.span(), target_count);
        if format.is_integer() {
            step = step.at_least(NiceStep::ONE);
        }
        let values = TickValues::in_domain(scale.domain, step);
        let ticks = values
            .iter()
            .zip(format.labels(&values))
            .map(|(value, label)| Tick {
                value,
                position_px: scale.project(value),
                label,
            })
            .collect();
        Self {
            domain: scale.domain,
            format,
            ticks,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(mantissa: u8, exponent: i32) -> NiceStep {
        NiceStep { mantissa, exponent }
    }

    #[test]
    fn nice_steps() {
        let cases = [
            // (span, target) → step
            (1000.0, 5, step(2, 2)),  // raw 200
            (1000.0, 10, step(1, 2)), // raw 100
            (1000.0, 4, step(2, 2)),  // raw 250: 2.5 < √10
            (1000.0, 3, step(5, 2)),  // raw 333: √10 ≤ 3.33 < √50
            (1000.0, 1, step(1, 3)),  // raw 1000
            (730.0, 5, step(2, 2)),   // raw 146: 1.46 ≥ √2
            (1.0, 5, step(2, -1)),    // raw 0.2
            (0.03, 3, step(1, -2)),   // raw 0.01
            (7.5, 1, step(1, 1)),     // raw 7.5 ≥ √50 → 10
            (0.0, 5, NiceStep::ONE),
            (f64::NAN, 5, NiceStep::ONE),
            (f64::INFINITY, 5, NiceStep::ONE),
        ];
        for (span, target, expected) in cases {
            assert_eq!(nice_step(span, target), expected, "{span} / {target}");
        }
    }

    #[test]
    fn multiples_are_exact_decimals() {
        let cases = [
            (step(1, -1), 3, 0.3),
            (step(2, -1), 3, 0.6),
            (step(5, -2), 7, 0.35),
            (step(2, 2), -3, -600.0),
            (step(5, 3), 4, 20_000.0),
        ];
        for (nice, index, value) in cases {
            assert_eq!(nice.multiple(index), value, "{nice:?} × {index}");
        }
    }

    #[test]
    fn tick_values_cover_the_domain_with_round_numbers() {
        let cases: [((f64, f64), usize, &[f64]); 6] = [
            ((0.0, 1000.0), 5, &[0.0, 200.0, 400.0, 600.0, 800.0, 1000.0]),
            ((120.0, 450.0), 4, &[200.0, 300.0, 400.0]),
            ((0.0, 1.0), 5, &[0.0, 0.2, 0.4, 0.6, 0.8, 1.0]),
            ((-0.3, 0.3), 3, &[-0.2, 0.0, 0.2]),
            ((0.5, 3.5), 3, &[1.0, 2.0, 3.0]),
            (
                (1e12, 1e12 + 3e6),
                3,
                &[1e12, 1e12 + 1e6, 1e12 + 2e6, 1e12 + 3e6],
            ),
        ];
        for ((min, max), target, expected) in cases {
            let values: Vec<f64> = tick_values(Domain::new(min, max), target).iter().collect();
            assert_eq!(values, expected, "[{min}, {max}] / {target}");
        }
    }

    #[test]
    fn nice_domains_end_on_ticks() {
        let cases = [
            ((3.0, 97.0), 10, (0.0, 100.0)),
            ((120.0, 450.0), 4, (100.0, 500.0)),
            ((0.0, 1234.0), 5, (0.0, 1400.0)),
            ((-13.0, 42.0), 5, (-20.0, 50.0)),
            ((0.12, 0.38), 5, (0.1, 0.4)),
            ((1000.0, 1000.0), 5, (900.0, 1100.0)),
        ];
        for ((min, max), target, (nice_min, nice_max)) in cases {
            let nice = nice_domain(Domain::new(min, max), target);
            assert_eq!((nice.min, nice.max), (nice_min, nice_max), "[{min}, {max}]");
        }
    }

    fn labels_of(format: TickFormat, min: f64, max: f64, target: usize) -> Vec<String> {
        format.labels(&tick_values(Domain::new(min, max), target))
    }

    #[test]
    fn millisecond_labels_switch_to_seconds_at_1000_ms() {
        let cases: [((f64, f64), usize, &[&str]); 6] = [
            ((0.0, 500.0), 2, &["0 ms", "200 ms", "400 ms"]),
            (
                (0.0, 250.0),
                5,
                &["0 ms", "50 ms", "100 ms", "150 ms", "200 ms", "250 ms"],
            ),
            (
                (0.0, 2000.0),
                4,
                &["0 s", "0.5 s", "1.0 s", "1.5 s", "2.0 s"],
            ),
            (
                (0.0, 10_000.0),
                5,
                &["0 s", "2 s", "4 s", "6 s", "8 s", "10 s"],
            ),
            (
                (900.0, 1100.0),
                4,
                &["0.90 s", "0.95 s", "1.00 s", "1.05 s", "1.10 s"],
            ),
            ((0.0, 1.5), 3, &["0 ms", "0.5 ms", "1.0 ms", "1.5 ms"]),
        ];
        for ((min, max), target, expected) in cases {
            assert_eq!(
                labels_of(TickFormat::Milliseconds, min, max, target),
                expected,
                "[{min}, {max}]"
            );
        }
    }

    #[test]
    fn token_count_and_percent_labels() {
        type Case<'a> = (TickFormat, (f64, f64), usize, &'a [&'a str]);
        let cases: [Case; 6] = [
            (
                TickFormat::Tokens,
                (0.0, 800.0),
                4,
                &["0", "200", "400", "600", "800"],
            ),
            (
                TickFormat::Tokens,
                (0.0, 1500.0),
                3,
                &["0", "0.5k", "1.0k", "1.5k"],
            ),
            (
                TickFormat::Tokens,
                (0.0, 40_000.0),
                4,
                &["0", "10k", "20k", "30k", "40k"],
            ),
            (
                TickFormat::Tokens,
                (0.0, 2.5e6),
                5,
                &["0", "0.5M", "1.0M", "1.5M", "2.0M", "2.5M"],
            ),
            (TickFormat::Count, (0.0, 12.0), 3, &["0", "5", "10"]),
            (
                TickFormat::Percent,
                (0.0, 1.0),
                4,
                &["0%", "20%", "40%", "60%", "80%", "100%"],
            ),
        ];
        for (format, (min, max), target, expected) in cases {
            assert_eq!(
                labels_of(format, min, max, target),
                expected,
                "{format:?} [{min}, {max}]"
            );
        }
    }

    #[test]
    fn axes_position_ticks_and_keep_integer_steps() {
        let scale = LinearScale::new(Domain::new(0.5, 3.5), 0.0, 300.0);
        let axis = Axis::new(&scale, 10, TickFormat::Count);
        let ticks: Vec<(f64, f64, &str)> = axis
            .ticks
            .iter()
            .map(|tick| (tick.value, tick.position_px, tick.label.as_str()))
            .collect();
        assert_eq!(
            ticks,
            [(1.0, 50.0, "1"), (2.0, 150.0, "2"), (3.0, 250.0, "3")]
        );

        let scale = LinearScale::new(Domain::new(0.0, 1000.0), 200.0, 0.0);
        let axis = Axis::new(&scale, 2, TickFormat::Milliseconds);
        let ticks: Vec<(f64, f64, &str)> = axis
            .ticks
            .iter()
            .map(|tick| (tick.value, tick.position_px, tick.label.as_str()))
            .collect();
        assert_eq!(
            ticks,
            [
                (0.0, 200.0, "0 s"),
                (500.0, 100.0, "0.5 s"),
                (1000.0, 0.0, "1.0 s")
            ]
        );
    }
}
