//! Statistics over runs: percentiles with a stated method, tails, bimodality, fits,
//! histogram and empirical CDF.
//!
//! # Percentile method
//!
//! Percentiles are exact over all samples (no sketch, no binning) and use linear
//! interpolation between closest ranks: Hyndman & Fan (1996) definition 7, which is
//! numpy's default (`np.percentile(x, q)`, `method="linear"`), R's default `quantile()` type
//! and what AIPerf reports (it calls numpy). Users compare our p50/p90/p95/p99 with those
//! tools, so we compute the same number rather than a "nearest rank" variant that would
//! differ on small samples (5 to 50 runs is the usual size here). (AIPerf's
//! `MetricArray.to_result` calls `np.percentile(arr, [1, 5, 25, 50, 75, 90, 95, 99])` with the
//! default method; its `std` is `np.std`, the population form: see
//! [`Summary::population_std_dev`].)
//!
//! For sorted samples `x[0] ≤ … ≤ x[n−1]` and a fraction `p` in `[0, 1]`:
//! `h = (n − 1)·p`, `lo = ⌊h⌋`, `q = x[lo] + (h − lo)·(x[lo+1] − x[lo])`.
//!
//! # Errors
//!
//! Empty input gives `None` (there is nothing to report, which is not an error); a NaN or an
//! infinity anywhere in the input is rejected with [`StatsError::NotFinite`], because a
//! silent NaN would poison every statistic and sort order.

use serde::{Deserialize, Serialize};

/// Why a statistic could not be computed from the given samples.
#[derive(Debug, Clone, Copy, PartialEq, thiserror::Error)]
pub enum StatsError {
    /// A percentile fraction was NaN or infinite.
    #[error("the percentile fraction must be a finite number between 0 and 1 (got {fraction})")]
    InvalidFraction {
        /// The fraction asked for.
        fraction: f64,
    },
    /// A sample was NaN or infinite.
    #[error("sample {index} is not a finite number ({value}); measurements must be finite")]
    NotFinite {
        /// Position of the offending sample in the input.
        index: usize,
        /// The offending value.
        value: f64,
    },
}

/// Checks that every sample is finite.
fn check_finite(samples: &[f64]) -> Result<(), StatsError> {
    match samples.iter().position(|value| !value.is_finite()) {
        Some(index) => Err(StatsError::NotFinite {
            index,
            value: samples[index],
        }),
        None => Ok(()),
    }
}

/// Sorted copy of finite samples (`total_cmp` is a total order, so sorting cannot panic).
fn sorted_copy(samples: &[f64]) -> Vec<f64> {
    let mut sorted = samples.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted
}

/// Percentile of already sorted, non-empty, finite samples, Hyndman–Fan type 7.
/// `fraction` is clamped into `[0, 1]` (0.95 means p95).
fn percentile_sorted(sorted: &[f64], fraction: f64) -> Option<f64> {
    let last = sorted.len().checked_sub(1)?;
    let rank = last as f64 * fraction.clamp(0.0, 1.0);
    let lower_index = rank.floor() as usize;
    let lower = *sorted.get(lower_index)?;
    let upper = *sorted.get(lower_index + 1).unwrap_or(&lower);
    Some(lower + (rank - lower_index as f64) * (upper - lower))
}

/// Percentile of unsorted samples, Hyndman–Fan type 7 (numpy default).
///
/// `fraction` is in `[0, 1]` (0.95 for p95; finite values outside are clamped, NaN is an
/// error). `Ok(None)` for empty input.
pub fn percentile(samples: &[f64], fraction: f64) -> Result<Option<f64>, StatsError> {
    if !fraction.is_finite() {
        return Err(StatsError::InvalidFraction { fraction });
    }
    check_finite(samples)?;
    Ok(percentile_sorted(&sorted_copy(samples), fraction))
}

/// Arithmetic mean; `None` for empty input. Assumes finite samples.
fn mean_of(samples: &[f64]) -> Option<f64> {
    if samples.is_empty() {
        return None;
    }
    Some(samples.iter().sum::<f64>() / samples.len() as f64)
}

/// Sample standard deviation (divides by n − 1); `None` below two samples.
fn sample_std_dev(samples: &[f64], mean: f64) -> Option<f64> {
    if samples.len() < 2 {
        return None;
    }
    let sum_squares: f64 = samples.iter().map(|x| (x - mean).powi(2)).sum();
    Some((sum_squares / (samples.len() - 1) as f64).sqrt())
}

/// The usual summary of one metric over runs (all in the metric's own unit).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Number of samples.
    pub count: usize,
    /// Smallest sample.
    pub min: f64,
    /// Largest sample.
    pub max: f64,
    /// Arithmetic mean.
    pub mean: f64,
    /// Sample standard deviation (n − 1 in the denominator); `None` for a single sample.
    pub std_dev: Option<f64>,
    /// Median (type 7).
    pub p50: f64,
    /// 90th percentile (type 7).
    pub p90: f64,
    /// 95th percentile (type 7).
    pub p95: f64,
    /// 99th percentile (type 7).
    pub p99: f64,
}

impl Summary {
    /// Summarizes samples; `Ok(None)` when there are none, an error on NaN or infinity.
    pub fn from_samples(samples: &[f64]) -> Result<Option<Summary>, StatsError> {
        check_finite(samples)?;
        let sorted = sorted_copy(samples);
        let (Some(&min), Some(&max), Some(mean)) =
            (sorted.first(), sorted.last(), mean_of(&sorted))
        else {
            return Ok(None);
        };
        let at = |fraction| percentile_sorted(&sorted, fraction).unwrap_or(min);
        Ok(Some(Summary {
            count: sorted.len(),
            min,
            max,
            mean,
            std_dev: sample_std_dev(&sorted, mean),
            p50: at(0.50),
            p90: at(0.90),
            p95: at(0.95),
            p99: at(0.99),
        }))
    }

    /// Population standard deviation (divides by n), what `np.std` and therefore AIPerf's
    /// `std` column report: `std_dev · √((n − 1)/n)`, 0 for a single sample.
    pub fn population_std_dev(&self) -> f64 {
        let n = self.count as f64;
        self.std_dev
            .map_or(0.0, |sample| sample * ((n - 1.0) / n).sqrt())
    }

    /// Ratio p95 / p50, the tail indicator; `None` when the median is not positive.
    pub fn p95_over_p50(&self) -> Option<f64> {
        (self.p50 > 0.0).then(|| self.p95 / self.p50)
    }
}

/// Default p95/p50 ratio above which the tail is flagged as heavy.
///
/// A well-behaved serving stack keeps p95 within about twice the median for a fixed prompt;
/// head-of-line blocking behind long prefills pushes it to 5 to 10 times (DESIGN.md §1).
pub const DEFAULT_TAIL_RATIO_THRESHOLD: f64 = 2.0;

/// The tail flag: p95 / p50 against a threshold.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TailCheck {
    /// p95 / p50.
    pub p95_over_p50: f64,
    /// The threshold it was compared with.
    pub threshold: f64,
    /// `p95_over_p50 > threshold`.
    pub heavy_tail: bool,
}

impl TailCheck {
    /// Flags a heavy tail; `None` when the summary's median is not positive.
    pub fn from_summary(summary: &Summary, threshold: f64) -> Option<TailCheck> {
        let ratio = summary.p95_over_p50()?;
        Some(TailCheck {
            p95_over_p50: ratio,
            threshold,
            heavy_tail: ratio > threshold,
        })
    }
}

/// Sarle's bimodality coefficient threshold: the value for a uniform distribution (5/9).
/// Larger values suggest two modes.
pub const BIMODALITY_THRESHOLD: f64 = 5.0 / 9.0;

/// Fewest samples for which the bimodality check gives a verdict.
///
/// The coefficient needs n ≥ 4 to be defined and is too noisy below about ten samples.
pub const BIMODALITY_MIN_SAMPLES: usize = 10;

/// The bimodality check: Sarle's bimodality coefficient, computed on the logarithm of
/// the samples when they are all positive.
///
/// # Choice
///
/// `b = (g² + 1) / (k + 3(n − 1)² / ((n − 2)(n − 3)))`, with `g` the bias-corrected sample
/// skewness and `k` the bias-corrected sample excess kurtosis (SAS manual, "bimodality
/// coefficient"; Pfister et al. 2013). A two-point distribution gives `b → 1`, a normal one
/// `1/3`, a uniform one `5/9`; `b > 5/9` suggests two modes. It needs no clustering
/// parameter, handles unequal group sizes (90/10 mixtures still give `b ≈ 1` when the
/// groups are tight) and is a closed formula, easy to check by hand.
///
/// Its known weakness is strong right skew: an exponential sample gives `b ≈ 5/9` with no
/// second mode. Latency samples are right-skewed, so the coefficient is computed on
/// `ln(x)` (all TTFTs are positive): a log-normal becomes normal (`b = 1/3`), an exponential
/// becomes a left-skewed Gumbel-like shape (`b ≈ 0.43`), while a fast group and a
/// slow group (the head-of-line blocking signature: 300 ms and 3 s) stay two groups.
/// When a sample is zero or negative the raw values are used and `log_scale` says so.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BimodalityCheck {
    /// Sarle's bimodality coefficient.
    pub coefficient: f64,
    /// The threshold (5/9).
    pub threshold: f64,
    /// Whether the coefficient was computed on `ln(x)`.
    pub log_scale: bool,
    /// `coefficient > threshold`.
    pub bimodal: bool,
}

impl BimodalityCheck {
    /// Runs the check; `Ok(None)` below [`BIMODALITY_MIN_SAMPLES`] samples or when all
    /// samples are equal (no shape to judge).
    pub fn from_samples(samples: &[f64]) -> Result<Option<BimodalityCheck>, StatsError> {
        check_finite(samples)?;
        if samples.len() < BIMODALITY_MIN_SAMPLES {
            return Ok(None);
        }
        let log_scale = samples.iter().all(|&x| x > 0.0);
        let values: Vec<f64> = if log_scale {
            samples.iter().map(|x| x.ln()).collect()
        } else {
            samples.to_vec()
        };
        Ok(
            bimodality_coefficient(&values).map(|coefficient| BimodalityCheck {
                coefficient,
                threshold: BIMODALITY_THRESHOLD,
                log_scale,
                bimodal: coefficient > BIMODALITY_THRESHOLD,
            }),
        )
    }
}

/// Sarle's bimodality coefficient of finite values; `None` for n < 4 or zero variance.
pub fn bimodality_coefficient(values: &[f64]) -> Option<f64> {
    let n = values.len() as f64;
    if values.len() < 4 {
        return None;
    }
    let mean = mean_of(values)?;
    let central_moment =
        |power: i32| values.iter().map(|x| (x - mean).powi(power)).sum::<f64>() / n;
    let (m2, m3, m4) = (central_moment(2), central_moment(3), central_moment(4));
    if m2 <= 0.0 {
        return None;
    }
    // Bias-corrected sample skewness G1 and excess kurtosis G2 (what SAS, Excel SKEW/KURT and
    // scipy with bias=False compute).
    let g1 = m3 / m2.powf(1.5);
    let g2 = m4 / (m2 * m2) - 3.0;
    let skewness = g1 * (n * (n - 1.0)).sqrt() / (n - 2.0);
    let excess_kurtosis = (n - 1.0) / ((n - 2.0) * (n - 3.0)) * ((n + 1.0) * g2 + 6.0);
    let denominator = excess_kurtosis + 3.0 * (n - 1.0).powi(2) / ((n - 2.0) * (n - 3.0));
    (denominator > 0.0).then(|| (skewness * skewness + 1.0) / denominator)
}

/// A least-squares polynomial fit `y = intercept + slope·x (+ quadratic·x²)` with R².
///
/// Used for TTFT against prompt tokens: the slope is the prefill cost per token, the
/// quadratic term the attention cost that shows on long prompts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Fit {
    /// Value at x = 0.
    pub intercept: f64,
    /// Linear coefficient (y units per x unit).
    pub slope: f64,
    /// Quadratic coefficient (0 for a linear fit).
    pub quadratic: f64,
    /// Coefficient of determination, 1 − SS_res / SS_tot; `None` when all y are equal.
    pub r_squared: Option<f64>,
    /// Number of points fitted.
    pub points: usize,
}

impl Fit {
    /// The fitted y at `x`.
    pub fn predict(&self, x: f64) -> f64 {
        self.intercept + self.slope * x + self.quadratic * x * x
    }
}

/// Least-squares line through `(x, y)` points.
///
/// `Ok(None)` with fewer than 3 points (two points always fit exactly, R² says nothing) or
/// when x does not vary. x is centred and scaled before solving so that prompt sizes in
/// the hundred thousands do not lose precision.
pub fn linear_fit(points: &[(f64, f64)]) -> Result<Option<Fit>, StatsError> {
    polynomial_fit(points, 1)
}

/// Least-squares parabola through `(x, y)` points.
///
/// `Ok(None)` with fewer than 4 points or fewer than 3 distinct x values.
pub fn quadratic_fit(points: &[(f64, f64)]) -> Result<Option<Fit>, StatsError> {
    polynomial_fit(points, 2)
}

/// Fits a polynomial of degree 1 or 2 in the scaled variable `u = (x − x̄)/s`, then expands
/// back to coefficients in x.
fn polynomial_fit(points: &[(f64, f64)], degree: usize) -> Result<Option<Fit>, StatsError> {
    let xs: Vec<f64> = points.iter().map(|p| p.0).collect();
    let ys: Vec<f64> = points.iter().map(|p| p.1).collect();
    check_finite(&xs)?;
    check_finite(&ys)?;
    if points.len() < degree + 2 || distinct_count(&xs) < degree + 1 {
        return Ok(None);
    }
    let Some(x_mean) = mean_of(&xs) else {
        return Ok(None);
    };
    let x_scale = xs.iter().map(|x| (x - x_mean).abs()).fold(0.0, f64::max);
    if x_scale == 0.0 {
        return Ok(None);
    }
    let us: Vec<f64> = xs.iter().map(|x| (x - x_mean) / x_scale).collect();
    let Some(coefficients_u) = solve_normal_equations(&us, &ys, degree) else {
        return Ok(None);
    };
    // y = a + b·u + c·u², u = (x − m)/s
    //   = (a − b·m/s + c·m²/s²) + (b/s − 2·c·m/s²)·x + (c/s²)·x².
    let a = coefficients_u[0];
    let b = coefficients_u[1];
    let c = coefficients_u.get(2).copied().unwrap_or(0.0);
    let (m, s) = (x_mean, x_scale);
    let fit_u = |u: f64| a + b * u + c * u * u;
    let y_mean = mean_of(&ys).unwrap_or(0.0);
    let ss_tot: f64 = ys.iter().map(|y| (y - y_mean).powi(2)).sum();
    let ss_res: f64 = us
        .iter()
        .zip(&ys)
        .map(|(u, y)| (y - fit_u(*u)).powi(2))
        .sum();
    Ok(Some(Fit {
        intercept: a - b * m / s + c * m * m / (s * s),
        slope: b / s - 2.0 * c * m / (s * s),
        quadratic: c / (s * s),
        r_squared: (ss_tot > 0.0).then(|| 1.0 - ss_res / ss_tot),
        points: points.len(),
    }))
}

/// Number of distinct values (exact comparison).
fn distinct_count(values: &[f64]) -> usize {
    let sorted = sorted_copy(values);
    let mut count = 0;
    let mut previous: Option<f64> = None;
    for value in sorted {
        if previous != Some(value) {
            count += 1;
        }
        previous = Some(value);
    }
    count
}

/// Solves the least-squares normal equations for coefficients of 1, u, …, u^degree by
/// Gaussian elimination with partial pivoting. `None` when the system is singular.
fn solve_normal_equations(us: &[f64], ys: &[f64], degree: usize) -> Option<Vec<f64>> {
    let size = degree + 1;
    // Augmented matrix [AᵀA | Aᵀy] with (AᵀA)[i][j] = Σ u^(i+j), (Aᵀy)[i] = Σ y·u^i.
    let mut matrix: Vec<Vec<f64>> = (0..size)
        .map(|row| {
            let mut line: Vec<f64> = (0..size)
                .map(|col| us.iter().map(|u| u.powi((row + col) as i32)).sum())
                .collect();
            line.push(us.iter().zip(ys).map(|(u, y)| y * u.powi(row as i32)).sum());
            line
        })
        .collect();
    for col in 0..size {
        let pivot_row =
            (col..size).max_by(|&a, &b| matrix[a][col].abs().total_cmp(&matrix[b][col].abs()))?;
        if matrix[pivot_row][col].abs() < 1e-12 * us.len() as f64 {
            return None;
        }
        matrix.swap(col, pivot_row);
        let pivot_line = matrix[col].clone();
        for (row, line) in matrix.iter_mut().enumerate() {
            if row != col {
                let factor = line[col] / pivot_line[col];
                for (cell, pivot_cell) in line.iter_mut().zip(&pivot_line).skip(col) {
                    *cell -= factor * pivot_cell;
                }
            }
        }
    }
    Some((0..size).map(|i| matrix[i][size] / matrix[i][i]).collect())
}

/// One bin of a histogram: `[start, end)`, the last bin closed `[start, end]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HistogramBin {
    /// Lower edge (inclusive).
    pub start: f64,
    /// Upper edge (exclusive, inclusive for the last bin).
    pub end: f64,
    /// Samples in the bin.
    pub count: usize,
}

/// Equal-width histogram from min to max with `bin_count` bins.
///
/// `Ok(None)` for empty input or zero bins. When all samples are equal there is one bin of
/// zero width holding them all.
pub fn histogram(
    samples: &[f64],
    bin_count: usize,
) -> Result<Option<Vec<HistogramBin>>, StatsError> {
    check_finite(samples)?;
    let sorted = sorted_copy(samples);
    let (Some(&min), Some(&max)) = (sorted.first(), sorted.last()) else {
        return Ok(None);
    };
    if bin_count == 0 {
        return Ok(None);
    }
    if max == min {
        return Ok(Some(vec![HistogramBin {
            start: min,
            end: max,
            count: sorted.len(),
        }]));
    }
    let width = (max - min) / bin_count as f64;
    let mut bins: Vec<HistogramBin> = (0..bin_count)
        .map(|i| HistogramBin {
            start: min + width * i as f64,
            end: if i + 1 == bin_count {
                max
            } else {
                min + width * (i + 1) as f64
            },
            count: 0,
        })
        .collect();
    for value in sorted {
        let index = (((value - min) / width).floor() as usize).min(bin_count - 1);
        if let Some(bin) = bins.get_mut(index) {
            bin.count += 1;
        }
    }
    Ok(Some(bins))
}

/// One step of an empirical CDF: the fraction of samples ≤ `value`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CdfPoint {
    /// A distinct sample value.
    pub value: f64,
    /// Fraction of samples less than or equal to it, in (0, 1].
    pub fraction: f64,
}

/// Empirical CDF: one point per distinct value, ascending; empty for empty input.
pub fn empirical_cdf(samples: &[f64]) -> Result<Vec<CdfPoint>, StatsError> {
    check_finite(samples)?;
    let sorted = sorted_copy(samples);
    let total = sorted.len() as f64;
    let mut points: Vec<CdfPoint> = Vec::new();
    for (index, value) in sorted.iter().enumerate() {
        let fraction = (index + 1) as f64 / total;
        match points.last_mut() {
            Some(last) if last.value == *value => last.fraction = fraction,
            _ => points.push(CdfPoint {
                value: *value,
                fraction,
            }),
        }
    }
    Ok(points)
}
