//! Experiment 8: monitoring. One run every N seconds for a while, and a rolling summary.
//!
//! The app drives the clock: it asks the [`MonitorSchedule`] when the next run is due and
//! passes the current time to [`window_status`]. Observations are keyed by the instant the
//! run started (ms on the page clock).

use serde::{Deserialize, Serialize};

use super::Observation;
use super::{bilingual, ms, percent, summary_of};
use crate::lang::Lang;
use crate::stats::Summary;

/// Most runs a schedule plans, so a typo (an interval of 0.001 s for a week) cannot make
/// the page allocate millions of entries.
pub const MAX_SCHEDULED_RUNS: usize = 100_000;

/// Fewest successful runs in the window before the threshold is judged: a percentile of
/// one or two runs is a single measurement, not a level.
pub const MIN_WINDOW_RUNS: usize = 3;

/// Failure share in the window from which the monitor reports failures instead of
/// latency: one run in five failing is an outage for users, whatever the TTFT of the rest.
pub const FAILING_SHARE: f64 = 0.2;

/// When to run: at 0, N, 2N… seconds after the start, while the offset is below the
/// duration.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MonitorSchedule {
    /// Seconds between run starts.
    pub interval_s: f64,
    /// Seconds the monitor lasts.
    pub duration_s: f64,
}

impl MonitorSchedule {
    /// Whether both numbers are finite and positive.
    fn valid(&self) -> bool {
        self.interval_s.is_finite()
            && self.duration_s.is_finite()
            && self.interval_s > 0.0
            && self.duration_s > 0.0
    }

    /// Number of runs planned (at most [`MAX_SCHEDULED_RUNS`]; 0 when invalid).
    pub fn run_count(&self) -> usize {
        if !self.valid() {
            return 0;
        }
        let count = (self.duration_s / self.interval_s).ceil();
        (count.min(MAX_SCHEDULED_RUNS as f64)) as usize
    }

    /// Start offsets of every run, ms after the monitor's start.
    pub fn run_offsets_ms(&self) -> Vec<f64> {
        (0..self.run_count())
            .map(|index| index as f64 * self.interval_s * 1000.0)
            .collect()
    }

    /// Offset of the first run due at or after `elapsed_ms`; `None` once the monitor is over.
    pub fn next_run_ms(&self, elapsed_ms: f64) -> Option<f64> {
        if !self.valid() || !elapsed_ms.is_finite() {
            return None;
        }
        let interval_ms = self.interval_s * 1000.0;
        let index = (elapsed_ms.max(0.0) / interval_ms).ceil() as usize;
        (index < self.run_count()).then_some(index as f64 * interval_ms)
    }
}

/// Which runs the rolling summary covers.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum MonitorWindow {
    /// The last `runs` runs started at or before now.
    LastRuns {
        /// How many.
        runs: usize,
    },
    /// The runs started in the last `duration_ms` (now − duration, now].
    LastMs {
        /// Window length, ms.
        duration_ms: f64,
    },
}

/// Which percentile the threshold applies to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MonitorPercentile {
    /// Median.
    P50,
    /// 95th percentile.
    P95,
    /// 99th percentile.
    P99,
}

impl MonitorPercentile {
    /// The percentile's value in a summary.
    pub fn of(self, summary: &Summary) -> f64 {
        match self {
            MonitorPercentile::P50 => summary.p50,
            MonitorPercentile::P95 => summary.p95,
            MonitorPercentile::P99 => summary.p99,
        }
    }

    /// Its short name ("p95").
    pub fn name(self) -> &'static str {
        match self {
            MonitorPercentile::P50 => "p50",
            MonitorPercentile::P95 => "p95",
            MonitorPercentile::P99 => "p99",
        }
    }
}

/// The alert threshold: a TTFT percentile must stay at or below `limit_ms`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MonitorThreshold {
    /// Which percentile.
    pub percentile: MonitorPercentile,
    /// Its limit, ms.
    pub limit_ms: f64,
}

/// The rolling summary at one instant.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MonitorStatus {
    /// Runs in the window.
    pub runs: usize,
    /// Failed runs in the window (or without a TTFT).
    pub failures: usize,
    /// TTFT of the successful runs in the window (p50/p95/p99 inside), ms.
    pub ttft_ms: Option<Summary>,
    /// The thresholded percentile's value, ms.
    pub observed_ms: Option<f64>,
    /// Whether it exceeds the limit (with at least [`MIN_WINDOW_RUNS`] runs).
    pub breached: bool,
    /// The conclusion.
    pub verdict: MonitorVerdict,
}

/// The monitor's state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum MonitorVerdict {
    /// Fewer than [`MIN_WINDOW_RUNS`] successful runs in the window.
    NotEnoughData,
    /// At least [`FAILING_SHARE`] of the window's runs failed.
    Failing {
        /// Failed runs.
        failures: usize,
        /// Runs in the window.
        runs: usize,
    },
    /// The percentile is within the limit.
    Healthy {
        /// Which percentile.
        percentile: MonitorPercentile,
        /// Its value, ms.
        observed_ms: f64,
        /// The limit, ms.
        limit_ms: f64,
    },
    /// The percentile exceeds the limit.
    Breach {
        /// Which percentile.
        percentile: MonitorPercentile,
        /// Its value, ms.
        observed_ms: f64,
        /// The limit, ms.
        limit_ms: f64,
    },
}

impl MonitorVerdict {
    /// What it means and what to do, in `lang`.
    pub fn message(&self, lang: Lang) -> String {
        match self {
            MonitorVerdict::NotEnoughData => bilingual(
                lang,
                format!(
                    "Waiting for data: the window needs at least {MIN_WINDOW_RUNS} successful runs."
                ),
                format!("等待数据：窗口内至少需要 {MIN_WINDOW_RUNS} 次成功运行。"),
            ),
            MonitorVerdict::Failing { failures, runs } => {
                let share = percent(*failures as f64 / (*runs).max(1) as f64);
                bilingual(
                    lang,
                    format!(
                        "{failures} of the last {runs} runs failed ({share}): users see errors, \
                         not just latency. Open the failed runs for the cause."
                    ),
                    format!(
                        "最近 {runs} 次运行中有 {failures} 次失败（{share}）：用户看到的是错误，而不只是慢。\
                         请打开失败的运行查看原因。"
                    ),
                )
            }
            MonitorVerdict::Healthy {
                percentile,
                observed_ms,
                limit_ms,
            } => {
                let (name, observed, limit) = (percentile.name(), ms(*observed_ms), ms(*limit_ms));
                bilingual(
                    lang,
                    format!("Within the limit: TTFT {name} is {observed} ms (limit {limit} ms)."),
                    format!(
                        "在限值之内：首字延迟 {name} 为 {observed} 毫秒（限值 {limit} 毫秒）。"
                    ),
                )
            }
            MonitorVerdict::Breach {
                percentile,
                observed_ms,
                limit_ms,
            } => {
                let (name, observed, limit) = (percentile.name(), ms(*observed_ms), ms(*limit_ms));
                bilingual(
                    lang,
                    format!(
                        "Limit exceeded: TTFT {name} is {observed} ms, above {limit} ms. Check the \
                         provider's status page, then compare prompt length, concurrency and \
                         cache hits with a good period."
                    ),
                    format!(
                        "超出限值：首字延迟 {name} 为 {observed} 毫秒，高于 {limit} 毫秒。请先查看服务商的状态页，\
                         再把提示长度、并发和缓存命中与正常时段对比。"
                    ),
                )
            }
        }
    }
}

/// The runs in the window at `now_ms`, in start order. Keys are start instants (ms).
fn in_window(
    observations: &[Observation<f64>],
    now_ms: f64,
    window: MonitorWindow,
) -> Vec<&Observation<f64>> {
    let mut started: Vec<&Observation<f64>> = observations
        .iter()
        .filter(|o| o.key.is_finite() && o.key <= now_ms)
        .collect();
    started.sort_by(|a, b| a.key.total_cmp(&b.key));
    match window {
        MonitorWindow::LastRuns { runs } => {
            let skip = started.len().saturating_sub(runs);
            started.split_off(skip)
        }
        MonitorWindow::LastMs { duration_ms } => started
            .into_iter()
            .filter(|o| o.key > now_ms - duration_ms)
            .collect(),
    }
}

/// The rolling summary at `now_ms` over `window`, against `threshold`.
pub fn window_status(
    observations: &[Observation<f64>],
    now_ms: f64,
    window: MonitorWindow,
    threshold: MonitorThreshold,
) -> MonitorStatus {
    let runs = in_window(observations, now_ms, window);
    let ttfts: Vec<f64> = runs
        .iter()
        .filter_map(|o| o.sample.usable_ttft_ms())
        .collect();
    let failures = runs.len() - ttfts.len();
    let ttft_ms = summary_of(&ttfts);
    let observed_ms = ttft_ms.as_ref().map(|s| threshold.percentile.of(s));
    let enough = ttfts.len() >= MIN_WINDOW_RUNS;
    let breached = enough && observed_ms.is_some_and(|value| value > threshold.limit_ms);
    let failing = failures > 0 && failures as f64 >= FAILING_SHARE * runs.len() as f64;
    let verdict = match observed_ms {
        _ if failing => MonitorVerdict::Failing {
            failures,
            runs: runs.len(),
        },
        Some(observed_ms) if enough && breached => MonitorVerdict::Breach {
            percentile: threshold.percentile,
            observed_ms,
            limit_ms: threshold.limit_ms,
        },
        Some(observed_ms) if enough => MonitorVerdict::Healthy {
            percentile: threshold.percentile,
            observed_ms,
            limit_ms: threshold.limit_ms,
        },
        _ => MonitorVerdict::NotEnoughData,
    };
    MonitorStatus {
        runs: runs.len(),
        failures,
        ttft_ms,
        observed_ms,
        breached,
        verdict,
    }
}
