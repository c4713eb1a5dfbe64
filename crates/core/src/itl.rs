//! The inter-token gaps of a run, kept in bounded memory: a histogram at a stated resolution
//! (for exact percentiles) and an evenly strided sample in stream order (for the chart).
//!
//! A 100,000-token answer has 99,999 gaps. Keeping each as an `f64` cost 800 KB per run in
//! the page, in every stored record and in every export, and summarizing them at the end of
//! the run was one long task. [`ItlGaps`] keeps, whatever the stream's length:
//!
//! - a histogram of the gaps rounded to `resolution_ms` (1 µs, finer than any browser's
//!   timer: `performance.now()` steps by 5 µs at best, docs/engines.md), so the percentiles
//!   it gives are those of the raw gaps. Beyond [`MAX_BINS`] distinct values the resolution
//!   doubles (bins merge) until they fit, and the record says which resolution was used:
//!   every gap is then within one `resolution_ms` of its true value;
//! - a sample of at most [`MAX_SAMPLE`] values in stream order: every gap while the run
//!   has up to [`MAX_SAMPLE`] of them, then the largest gap of each window of 2, 4, …
//!   consecutive gaps (`sample_every`), so a long stream still draws as "ITL over the
//!   stream" and every stall stays visible at its height.
//!
//! Memory bound: at most [`MAX_BINS`] bins (two `u64` each, in a `BTreeMap`) and
//! [`MAX_SAMPLE`] `f64`s: under 100 KB per run, independent of the number of tokens.
//!
//! Percentiles use the method of [`crate::stats`] (Hyndman–Fan type 7, numpy's default),
//! applied to the histogram's values, so with a 1 µs resolution they equal
//! `np.percentile(gaps, q)` of the raw gaps up to 0.5 µs.
//!
//! ```
//! use ttft_core::itl::ItlGaps;
//!
//! let mut gaps = ItlGaps::new();
//! for gap_ms in [20.0, 20.0, 25.5, 120.0] {
//!     gaps.push(gap_ms);
//! }
//! let summary = gaps.summary().unwrap();
//! assert_eq!((summary.count, summary.min, summary.max), (4, 20.0, 120.0));
//! assert_eq!(summary.p50, 22.75);
//! assert_eq!(gaps.sample_ms(), &[20.0, 20.0, 25.5, 120.0]);
//! ```

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::stats::Summary;

/// The histogram's finest resolution: 1 µs.
pub const FINEST_RESOLUTION_US: u64 = 1;
/// The most distinct values (bins) the histogram keeps before its resolution doubles.
pub const MAX_BINS: usize = 2_048;
/// The most gaps the stream-order sample keeps.
pub const MAX_SAMPLE: usize = 2_048;

/// The gaps between consecutive text-carrying events of one run (or of several, merged).
///
/// Serialized (export schema 3) as `{count, resolution_ms, histogram_ms: [[gap_ms, count],
/// …], sample_every, sample_ms}`, `histogram_ms` left out while the sample holds every gap
/// (`sample_every` 1: the histogram is rebuilt from it); a plain array of gaps (schema 1
/// and 2's `itl_gaps_ms`) reads as the same gaps.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "ItlGapsWire", into = "CompactWire")]
pub struct ItlGaps {
    /// Bin width, µs (a power of two times [`FINEST_RESOLUTION_US`]).
    resolution_us: u64,
    /// Gap in units of `resolution_us` (rounded) → how many gaps.
    bins: BTreeMap<u64, u64>,
    /// Gaps pushed.
    count: u64,
    /// Position `i` of the sample is the largest of gaps `i · sample_every` to
    /// `(i + 1) · sample_every − 1`.
    sample_every: u64,
    /// The sampled gaps, ms, in stream order, as measured (not rounded).
    sample_ms: Vec<f64>,
}

impl Default for ItlGaps {
    fn default() -> Self {
        Self::new()
    }
}

impl ItlGaps {
    /// No gaps yet.
    pub fn new() -> ItlGaps {
        ItlGaps {
            resolution_us: FINEST_RESOLUTION_US,
            bins: BTreeMap::new(),
            count: 0,
            sample_every: 1,
            sample_ms: Vec::new(),
        }
    }

    /// The gaps of `gaps_ms`, in order (a schema-2 `itl_gaps_ms` array; tests).
    pub fn from_gaps(gaps_ms: &[f64]) -> ItlGaps {
        let mut gaps = ItlGaps::new();
        for &gap_ms in gaps_ms {
            gaps.push(gap_ms);
        }
        gaps
    }

    /// Adds the next gap, ms. A gap that is not a finite number is not a measurement and is
    /// left out; a negative one (clock noise) counts as 0.
    pub fn push(&mut self, gap_ms: f64) {
        if !gap_ms.is_finite() {
            return;
        }
        let gap_ms = gap_ms.max(0.0);
        let index = self.count;
        self.count += 1;
        *self.bins.entry(self.key(gap_ms)).or_insert(0) += 1;
        if self.bins.len() > MAX_BINS {
            self.coarsen();
        }
        if index.is_multiple_of(self.sample_every) {
            self.sample_ms.push(gap_ms);
            if self.sample_ms.len() > MAX_SAMPLE {
                self.thin_sample();
            }
        } else if let Some(window_max) = self.sample_ms.last_mut() {
            *window_max = window_max.max(gap_ms);
        }
    }

    /// The bin of `gap_ms` at the current resolution (round half up).
    fn key(&self, gap_ms: f64) -> u64 {
        // Saturating cast: a gap of more than 584,000 years does not happen.
        (gap_ms * 1_000.0 / self.resolution_us as f64 + 0.5).floor() as u64
    }

    /// Doubles the resolution until the bins fit in [`MAX_BINS`].
    fn coarsen(&mut self) {
        while self.bins.len() > MAX_BINS {
            self.coarsen_once();
        }
    }

    fn coarsen_once(&mut self) {
        let mut merged = BTreeMap::new();
        for (&key, &count) in &self.bins {
            *merged.entry(key.div_ceil(2)).or_insert(0) += count;
        }
        self.bins = merged;
        self.resolution_us *= 2;
    }

    /// Merges the sample's windows two by two (the larger gap of each pair stays).
    fn thin_sample(&mut self) {
        self.sample_ms = self
            .sample_ms
            .chunks(2)
            .map(|pair| pair.iter().copied().fold(f64::NEG_INFINITY, f64::max))
            .collect();
        self.sample_every *= 2;
    }

    /// Number of gaps.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// The payload this holds, bytes: 16 per histogram bin (at most [`MAX_BINS`]) and 8 per
    /// sampled gap (at most [`MAX_SAMPLE`]), whatever the stream's length.
    pub fn held_bytes(&self) -> usize {
        self.bins.len() * 2 * std::mem::size_of::<u64>()
            + self.sample_ms.len() * std::mem::size_of::<f64>()
    }

    /// Whether there are none (fewer than two text events).
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// The histogram's bin width, ms: 0.001 unless more than [`MAX_BINS`] distinct values
    /// made it coarser. Every gap in the histogram is within this of its measured value.
    pub fn resolution_ms(&self) -> f64 {
        self.resolution_us as f64 / 1_000.0
    }

    /// `(gap_ms, count)` per bin, shortest gap first.
    pub fn histogram(&self) -> impl Iterator<Item = (f64, u64)> + '_ {
        self.bins
            .iter()
            .map(|(&key, &count)| (self.value_ms(key), count))
    }

    fn value_ms(&self, key: u64) -> f64 {
        (key * self.resolution_us) as f64 / 1_000.0
    }

    /// How many consecutive gaps each sample value covers (1: the sample is every gap).
    pub fn sample_every(&self) -> u64 {
        self.sample_every
    }

    /// The sample in stream order: `sample_ms()[i]` is the largest of gaps
    /// `i · sample_every` to `(i + 1) · sample_every − 1` (gap 0 is the wait before the
    /// second text event), as measured.
    pub fn sample_ms(&self) -> &[f64] {
        &self.sample_ms
    }

    /// Adds every gap of `other` to the histogram (pooling runs). The sample stays this
    /// one's: a pooled sample in "stream order" would mean nothing.
    fn merge_histogram(&mut self, other: &ItlGaps) {
        let mut other_bins = other.bins.clone();
        let mut other_resolution_us = other.resolution_us;
        while other_resolution_us < self.resolution_us {
            other_bins =
                other_bins
                    .into_iter()
                    .fold(BTreeMap::new(), |mut merged, (key, count)| {
                        *merged.entry(key.div_ceil(2)).or_insert(0) += count;
                        merged
                    });
            other_resolution_us *= 2;
        }
        while self.resolution_us < other_resolution_us {
            self.coarsen_once();
        }
        for (key, count) in other_bins {
            *self.bins.entry(key).or_insert(0) += count;
        }
        self.count += other.count;
        self.coarsen();
    }

    /// The gaps of several runs in one histogram (a pooled ITL distribution).
    pub fn pooled<'a>(runs: impl IntoIterator<Item = &'a ItlGaps>) -> ItlGaps {
        let mut pooled = ItlGaps::new();
        for gaps in runs {
            pooled.merge_histogram(gaps);
        }
        pooled
    }

    /// The histogram's value at sorted position `rank` (0-based); bins are in order.
    fn value_at(&self, rank: u64) -> Option<f64> {
        let mut seen = 0;
        for (&key, &count) in &self.bins {
            seen += count;
            if rank < seen {
                return Some(self.value_ms(key));
            }
        }
        None
    }

    /// Percentile, type 7 (numpy's default), of the histogram's values; `fraction` in
    /// `[0, 1]` (clamped). `None` without gaps.
    pub fn percentile(&self, fraction: f64) -> Option<f64> {
        let last = self.count.checked_sub(1)?;
        let rank = last as f64 * fraction.clamp(0.0, 1.0);
        let lower_rank = rank.floor() as u64;
        let lower = self.value_at(lower_rank)?;
        let upper = self.value_at(lower_rank + 1).unwrap_or(lower);
        Some(lower + (rank - lower_rank as f64) * (upper - lower))
    }

    /// Count, min, max, mean, sample standard deviation and p50/p90/p95/p99 of the gaps
    /// (to the histogram's resolution); `None` without gaps.
    pub fn summary(&self) -> Option<Summary> {
        let (&first, _) = self.bins.first_key_value()?;
        let (&last, _) = self.bins.last_key_value()?;
        let n = self.count as f64;
        let mean = self
            .histogram()
            .map(|(value, count)| value * count as f64)
            .sum::<f64>()
            / n;
        let std_dev = (self.count >= 2).then(|| {
            let squares: f64 = self
                .histogram()
                .map(|(value, count)| (value - mean).powi(2) * count as f64)
                .sum();
            (squares / (n - 1.0)).sqrt()
        });
        let at = |fraction| self.percentile(fraction).unwrap_or(mean);
        Some(Summary {
            count: self.count as usize,
            min: self.value_ms(first),
            max: self.value_ms(last),
            mean,
            std_dev,
            p50: at(0.50),
            p90: at(0.90),
            p95: at(0.95),
            p99: at(0.99),
        })
    }
}

/// The serialized form (export schema 3).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct CompactWire {
    count: u64,
    resolution_ms: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    histogram_ms: Option<Vec<(f64, u64)>>,
    sample_every: u64,
    sample_ms: Vec<f64>,
}

/// What an export may hold: the schema-3 object, or a schema-1/2 array of every gap.
#[derive(Deserialize)]
#[serde(untagged)]
enum ItlGapsWire {
    Gaps(Vec<f64>),
    Compact(CompactWire),
}

impl From<ItlGaps> for CompactWire {
    fn from(gaps: ItlGaps) -> CompactWire {
        // While the sample holds every gap, the histogram is the sample's and is left out.
        let every_gap_sampled = gaps.sample_every == 1 && gaps.sample_ms.len() as u64 == gaps.count;
        CompactWire {
            count: gaps.count,
            resolution_ms: gaps.resolution_ms(),
            histogram_ms: (!every_gap_sampled).then(|| gaps.histogram().collect()),
            sample_every: gaps.sample_every,
            sample_ms: gaps.sample_ms,
        }
    }
}

/// Why a stored histogram of gaps cannot be read.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ItlGapsError {
    /// `resolution_ms` is not 0.001 times a power of two.
    #[error(
        "resolution_ms is {found}, expected 0.001 ms times a power of two (0.001, 0.002, 0.004, …)"
    )]
    Resolution {
        /// The value found.
        found: f64,
    },
    /// A bin's gap is negative or not a number, or a sampled gap is not a number.
    #[error("a gap of {found} ms: gaps are finite and not negative")]
    Gap {
        /// The value found.
        found: f64,
    },
    /// The bins' counts do not add up to `count`.
    #[error("the histogram holds {in_bins} gaps but count says {count}")]
    Count {
        /// The `count` field.
        count: u64,
        /// The sum of the bins' counts.
        in_bins: u64,
    },
    /// `sample_every` is 0 or not a power of two.
    #[error("sample_every is {found}, expected a power of two (1, 2, 4, …)")]
    SampleEvery {
        /// The value found.
        found: u64,
    },
}

impl TryFrom<CompactWire> for ItlGaps {
    type Error = ItlGapsError;

    fn try_from(wire: CompactWire) -> Result<ItlGaps, ItlGapsError> {
        let Some(histogram_ms) = wire.histogram_ms else {
            // Every gap is in the sample.
            if wire.sample_every != 1 || wire.sample_ms.len() as u64 != wire.count {
                return Err(ItlGapsError::Count {
                    count: wire.count,
                    in_bins: wire.sample_ms.len() as u64,
                });
            }
            if let Some(&found) = wire.sample_ms.iter().find(|gap| !gap.is_finite()) {
                return Err(ItlGapsError::Gap { found });
            }
            return Ok(ItlGaps::from_gaps(&wire.sample_ms));
        };
        let resolution_us = (wire.resolution_ms * 1_000.0).round();
        if !(1.0..1e15).contains(&resolution_us) || !(resolution_us as u64).is_power_of_two() {
            return Err(ItlGapsError::Resolution {
                found: wire.resolution_ms,
            });
        }
        if wire.sample_every == 0 || !wire.sample_every.is_power_of_two() {
            return Err(ItlGapsError::SampleEvery {
                found: wire.sample_every,
            });
        }
        let mut gaps = ItlGaps {
            resolution_us: resolution_us as u64,
            bins: BTreeMap::new(),
            count: 0,
            sample_every: wire.sample_every,
            sample_ms: Vec::new(),
        };
        for (gap_ms, count) in histogram_ms {
            if !gap_ms.is_finite() || gap_ms < 0.0 {
                return Err(ItlGapsError::Gap { found: gap_ms });
            }
            *gaps.bins.entry(gaps.key(gap_ms)).or_insert(0) += count;
            gaps.count = gaps.count.saturating_add(count);
        }
        if gaps.count != wire.count {
            return Err(ItlGapsError::Count {
                count: wire.count,
                in_bins: gaps.count,
            });
        }
        gaps.coarsen();
        if let Some(&found) = wire.sample_ms.iter().find(|gap| !gap.is_finite()) {
            return Err(ItlGapsError::Gap { found });
        }
        gaps.sample_ms = wire.sample_ms;
        while gaps.sample_ms.len() > MAX_SAMPLE {
            gaps.thin_sample();
        }
        Ok(gaps)
    }
}

impl TryFrom<ItlGapsWire> for ItlGaps {
    type Error = ItlGapsError;

    fn try_from(wire: ItlGapsWire) -> Result<ItlGaps, ItlGapsError> {
        match wire {
            ItlGapsWire::Gaps(gaps_ms) => Ok(ItlGaps::from_gaps(&gaps_ms)),
            ItlGapsWire::Compact(compact) => ItlGaps::try_from(compact),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::percentile;

    #[test]
    fn percentiles_equal_those_of_the_raw_gaps() {
        let raw: Vec<f64> = (0..5_000)
            .map(|i| ((i * 37) % 1_000) as f64 * 0.005)
            .collect();
        let gaps = ItlGaps::from_gaps(&raw);
        assert_eq!(gaps.resolution_ms(), 0.001);
        for fraction in [0.0, 0.5, 0.9, 0.95, 0.99, 1.0] {
            let expected = percentile(&raw, fraction).unwrap().unwrap();
            let got = gaps.percentile(fraction).unwrap();
            assert!(
                (got - expected).abs() < 1e-9,
                "{fraction}: {got} vs {expected}"
            );
        }
        let summary = gaps.summary().unwrap();
        let exact = Summary::from_samples(&raw).unwrap().unwrap();
        assert_eq!(summary.count, exact.count);
        assert!((summary.mean - exact.mean).abs() < 1e-9);
        assert!((summary.std_dev.unwrap() - exact.std_dev.unwrap()).abs() < 1e-9);
    }

    #[test]
    fn memory_stays_bounded_and_the_sample_stays_in_stream_order() {
        let raw: Vec<f64> = (0..100_000)
            .map(|i| 0.2 + (i % 7_919) as f64 * 0.0013)
            .collect();
        let gaps = ItlGaps::from_gaps(&raw);
        assert_eq!(gaps.count(), 100_000);
        assert!(gaps.bins.len() <= MAX_BINS);
        assert!(gaps.sample_ms().len() <= MAX_SAMPLE);
        assert!(gaps.resolution_ms() > 0.001);
        let every = gaps.sample_every() as usize;
        for (position, gap) in gaps.sample_ms().iter().enumerate() {
            let window = &raw[position * every..((position + 1) * every).min(raw.len())];
            assert_eq!(
                *gap,
                window.iter().copied().fold(f64::NEG_INFINITY, f64::max)
            );
        }
        assert_eq!(gaps.sample_ms().len(), raw.len().div_ceil(every));
        // Within one resolution step of the raw percentile.
        for fraction in [0.5, 0.95, 0.99] {
            let expected = percentile(&raw, fraction).unwrap().unwrap();
            let got = gaps.percentile(fraction).unwrap();
            assert!(
                (got - expected).abs() <= gaps.resolution_ms(),
                "{fraction}: {got} vs {expected}"
            );
        }
    }

    #[test]
    fn reads_the_old_array_and_round_trips_the_new_form() {
        let old: ItlGaps = serde_json::from_str("[20.0, 20.0, 25.5]").unwrap();
        assert_eq!(old, ItlGaps::from_gaps(&[20.0, 20.0, 25.5]));
        let text = serde_json::to_string(&old).unwrap();
        assert_eq!(
            text,
            r#"{"count":3,"resolution_ms":0.001,"sample_every":1,"sample_ms":[20.0,20.0,25.5]}"#
        );
        assert_eq!(serde_json::from_str::<ItlGaps>(&text).unwrap(), old);
        let long = ItlGaps::from_gaps(&(0..10_000).map(|i| i as f64 * 0.25).collect::<Vec<_>>());
        let text = serde_json::to_string(&long).unwrap();
        assert!(text.contains("histogram_ms"));
        let again: ItlGaps = serde_json::from_str(&text).unwrap();
        assert_eq!(again, long);
    }

    #[test]
    fn refuses_inconsistent_documents() {
        let wrong_count = r#"{"count":4,"resolution_ms":0.001,"histogram_ms":[[20.0,2]],"sample_every":1,"sample_ms":[]}"#;
        assert!(serde_json::from_str::<ItlGaps>(wrong_count).is_err());
        let wrong_resolution = r#"{"count":2,"resolution_ms":0.003,"histogram_ms":[[20.0,2]],"sample_every":1,"sample_ms":[]}"#;
        assert!(serde_json::from_str::<ItlGaps>(wrong_resolution).is_err());
    }

    #[test]
    fn pooling_merges_resolutions() {
        let fine = ItlGaps::from_gaps(&[1.0, 2.0]);
        let mut coarse = ItlGaps::from_gaps(&[3.0]);
        coarse.coarsen_once();
        let pooled = ItlGaps::pooled([&fine, &coarse]);
        assert_eq!(pooled.count(), 3);
        assert_eq!(pooled.resolution_ms(), 0.002);
        assert_eq!(pooled.summary().unwrap().max, 3.0);
        assert!(ItlGaps::new().summary().is_none());
    }
}
