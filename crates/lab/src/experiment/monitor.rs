//! Experiment 8: monitoring. One run every N seconds for a while, and a rolling summary.
//!
//! The app drives the clock: it asks the [`MonitorSchedule`] what is due now
//! ([`MonitorSchedule::due`]) and passes the current time to [`window_status`].
//! Observations are keyed by the instant the run started (ms after the monitor's start).

use serde::{Deserialize, Serialize};

use super::figures::{ms, percent, summary_of};
use super::params::{CountParam, Inputs, ParamSpec};
use super::report::{
    same_text, Axis, Cell, Chart, ChartKind, Colour, Column, ReferenceMark, Report, Series, Table,
    Unit,
};
use super::sample::Observation;
use super::schedule::{Observed, Schedule, ScheduleKind, TimedRuns};
use super::session::{Experiment, ExperimentSession, Planning, Setup, SetupError};
use super::timed::MonitorSchedule;
use crate::texts as t;
use ttft_core::lang::Bilingual;
use ttft_core::lang::Lang;
use ttft_core::stats::Summary;

/// Fewest successful runs in the window before the threshold is judged: a percentile of
/// one or two runs is a single measurement, not a level.
pub const MIN_WINDOW_RUNS: usize = 3;

/// Failure share in the window from which the monitor reports failures instead of
/// latency: one run in five failing is an outage for users, whatever the TTFT of the rest.
pub const FAILING_SHARE: f64 = 0.2;

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
    /// Stable code (the serde tag).
    pub fn code(&self) -> &'static str {
        match self {
            MonitorVerdict::NotEnoughData => "not_enough_data",
            MonitorVerdict::Failing { .. } => "failing",
            MonitorVerdict::Healthy { .. } => "healthy",
            MonitorVerdict::Breach { .. } => "breach",
        }
    }

    /// What it means and what to do, in `lang`.
    pub fn message(&self, lang: Lang) -> String {
        match self {
            MonitorVerdict::NotEnoughData => t::MONITOR_VERDICT_NOT_ENOUGH_DATA
                .fill(lang, &[("min_window_runs", &MIN_WINDOW_RUNS)]),
            MonitorVerdict::Failing { failures, runs } => {
                let share = percent(*failures as f64 / (*runs).max(1) as f64);
                t::MONITOR_VERDICT_FAILING.fill(
                    lang,
                    &[("failures", &failures), ("runs", &runs), ("share", &share)],
                )
            }
            MonitorVerdict::Healthy {
                percentile,
                observed_ms,
                limit_ms,
            } => {
                let (name, observed, limit) = (percentile.name(), ms(*observed_ms), ms(*limit_ms));
                t::MONITOR_VERDICT_HEALTHY.fill(
                    lang,
                    &[("name", &name), ("observed", &observed), ("limit", &limit)],
                )
            }
            MonitorVerdict::Breach {
                percentile,
                observed_ms,
                limit_ms,
            } => {
                let (name, observed, limit) = (percentile.name(), ms(*observed_ms), ms(*limit_ms));
                t::MONITOR_VERDICT_BREACH.fill(
                    lang,
                    &[("name", &name), ("observed", &observed), ("limit", &limit)],
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

/// One point of the monitor's rolling chart.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RollingPoint {
    /// When the run started, ms after the monitor's start.
    pub started_ms: f64,
    /// The run's own TTFT, ms (None when it failed).
    pub ttft_ms: Option<f64>,
    /// Rolling p50 at that instant, ms.
    pub p50_ms: Option<f64>,
    /// Rolling p95 at that instant, ms.
    pub p95_ms: Option<f64>,
    /// Rolling p99 at that instant, ms.
    pub p99_ms: Option<f64>,
}

/// The monitor's settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MonitorConfig {
    /// When to run.
    pub schedule: MonitorSchedule,
    /// Which runs the rolling summary covers.
    pub window: MonitorWindow,
    /// The alert threshold.
    pub threshold: MonitorThreshold,
    /// Seed of the nonce put before the question (no cache hides prefill).
    pub seed: u64,
    /// The question (the form's prompt).
    pub prompt: String,
}

/// A week, s: the longest interval or duration accepted.
pub const MAX_SECONDS: u32 = 7 * 24 * 3600;

/// The interval field.
pub const INTERVAL: CountParam = CountParam {
    id: "interval",
    label: t::PARAM_INTERVAL_S,
    min: 1,
    max: MAX_SECONDS,
    default: 10,
};

/// The duration field.
pub const DURATION: CountParam = CountParam {
    id: "duration",
    label: t::PARAM_DURATION_S,
    min: 1,
    max: MAX_SECONDS,
    default: 300,
};

/// The p95 limit field.
pub const THRESHOLD: CountParam = CountParam {
    id: "threshold",
    label: t::PARAM_P95_LIMIT_MS,
    min: 1,
    max: 10_000_000,
    default: 2_000,
};

/// The window field.
pub const WINDOW: CountParam = CountParam {
    id: "window",
    label: t::PARAM_WINDOW_RUNS,
    min: 1,
    max: 10_000,
    default: 20,
};

/// The monitor in the registry.
#[derive(Debug, Clone, Copy)]
pub struct Monitor;

impl Experiment for Monitor {
    fn code(&self) -> &'static str {
        "monitor"
    }

    fn label(&self) -> Bilingual {
        t::MONITOR.bilingual()
    }

    fn description(&self) -> Bilingual {
        t::MONITOR_DESCRIPTION.bilingual()
    }

    fn schedule_kind(&self) -> ScheduleKind {
        ScheduleKind::Timed
    }

    fn params(&self) -> Vec<ParamSpec> {
        vec![
            INTERVAL.spec(),
            DURATION.spec(),
            THRESHOLD.spec(),
            WINDOW.spec(),
        ]
    }

    fn configure(&self, inputs: &Inputs, setup: &Setup) -> Result<Planning, SetupError> {
        let config = MonitorConfig {
            schedule: MonitorSchedule {
                interval_s: f64::from(INTERVAL.read(inputs)?),
                duration_s: f64::from(DURATION.read(inputs)?),
            },
            window: MonitorWindow::LastRuns {
                runs: WINDOW.read(inputs)? as usize,
            },
            threshold: MonitorThreshold {
                percentile: MonitorPercentile::P95,
                limit_ms: f64::from(THRESHOLD.read(inputs)?),
            },
            seed: setup.seed,
            prompt: setup.prompt.clone(),
        };
        Ok(Planning::ready(Box::new(MonitorSession {
            config,
            observations: Vec::new(),
            rolling: Vec::new(),
            status: None,
        })))
    }
}

/// A configured monitor.
///
/// Written by hand rather than as a `book::Design`: the monitor plans no runs up front (its
/// timed schedule sends one prompt at each instant), keys its observations by start time,
/// and updates its rolling window on every record, so a run book would hold nothing and
/// the shared session would need hooks for `record` and the tally that only it uses.
#[derive(Debug, Clone)]
struct MonitorSession {
    config: MonitorConfig,
    observations: Vec<Observation<f64>>,
    rolling: Vec<RollingPoint>,
    status: Option<MonitorStatus>,
}

impl ExperimentSession for MonitorSession {
    fn code(&self) -> &'static str {
        Monitor.code()
    }

    fn schedule(&self) -> Schedule {
        Schedule::Timed {
            timing: self.config.schedule,
            runs: TimedRuns {
                prompt: self.config.prompt.clone(),
                seed: self.config.seed,
                model: None,
                max_tokens: None,
            },
        }
    }

    fn record(&mut self, observed: Observed) {
        if observed.run_index >= self.config.schedule.run_count() {
            return;
        }
        let started_ms = observed.started_ms;
        let ttft_ms = observed.sample.usable_ttft_ms();
        self.observations
            .push(Observation::new(started_ms, observed.sample));
        let status = window_status(
            &self.observations,
            started_ms,
            self.config.window,
            self.config.threshold,
        );
        let percentile = |which: MonitorPercentile| status.ttft_ms.as_ref().map(|s| which.of(s));
        self.rolling.push(RollingPoint {
            started_ms,
            ttft_ms,
            p50_ms: percentile(MonitorPercentile::P50),
            p95_ms: percentile(MonitorPercentile::P95),
            p99_ms: percentile(MonitorPercentile::P99),
        });
        self.status = Some(status);
    }

    fn report(&self) -> Report {
        let mut report = report(self.status.as_ref(), &self.config.threshold, &self.rolling);
        report.tally = super::report::RunTally {
            measured: self.observations.len(),
            failed: self
                .observations
                .iter()
                .filter(|o| o.sample.usable_ttft_ms().is_none())
                .count(),
            priming: 0,
            calibration_requests: 0,
            planned: self.config.schedule.run_count(),
        };
        report
    }
}

/// The display-neutral report of a monitor: the rolling status after the last run.
pub fn report(
    status: Option<&MonitorStatus>,
    threshold: &MonitorThreshold,
    rolling: &[RollingPoint],
) -> Report {
    let mut report = Report::new(Monitor.code());
    let verdict = status.map_or(MonitorVerdict::NotEnoughData, |s| s.verdict.clone());
    report.verdict(
        verdict.code(),
        Bilingual::from_fn(|lang| verdict.message(lang)),
    );
    report.count("runs", Some(rolling.len()));
    report.flag("breached", status.is_some_and(|s| s.breached));
    let pick =
        |value: fn(&RollingPoint) -> Option<f64>| rolling.iter().map(value).collect::<Vec<_>>();
    let name = threshold.percentile.name();
    report.chart = Some(Chart {
        title: t::MONITOR_CHART_TITLE.bilingual(),
        kind: ChartKind::Sequence,
        x: Axis::new(t::RUN.bilingual(), Unit::Count),
        y: Axis::new(t::TTFT.bilingual(), Unit::Ms),
        series: vec![
            Series::values(same_text("ttft_ms"), Colour::Measured, pick(|p| p.ttft_ms)),
            Series::values(same_text("p50"), Colour::Median, pick(|p| p.p50_ms)),
            Series::values(same_text("p95"), Colour::Tail, pick(|p| p.p95_ms)),
            Series::values(same_text("p99"), Colour::FarTail, pick(|p| p.p99_ms)),
        ],
        references: vec![ReferenceMark {
            name: t::PERCENTILE_LIMIT.bilingual_with(&[("name", &name)]),
            value: threshold.limit_ms,
            colour: Colour::Limit,
        }],
        fits: Vec::new(),
    });
    let columns = vec![
        Column::new(same_text("#"), Unit::Count),
        Column::new(t::STARTED.bilingual(), Unit::S),
        Column::new(same_text("ttft_ms"), Unit::None),
        Column::new(same_text("p50"), Unit::Ms),
        Column::new(same_text("p95"), Unit::Ms),
        Column::new(same_text("p99"), Unit::Ms),
    ];
    let rows = rolling
        .iter()
        .enumerate()
        .map(|(index, point)| {
            vec![
                Cell::count(index + 1),
                Cell::number(Some(point.started_ms / 1000.0), 1),
                Cell::ms(point.ttft_ms),
                Cell::ms(point.p50_ms),
                Cell::ms(point.p95_ms),
                Cell::ms(point.p99_ms),
            ]
        })
        .collect();
    report.table = Table { columns, rows };
    report
}
