//! Service level objectives over runs: thresholds, a compact text form for URLs and embed
//! configuration, per-run attainment, goodput and a pass/fail verdict.
//!
//! # The text form
//!
//! ```text
//! perceived_ttfa_ms:p95<=1500,ttfa_ms<=800,goodput>=95%
//! ```
//!
//! Comma-separated items, spaces allowed around tokens, at most [`MAX_SPEC_BYTES`] bytes and
//! [`MAX_THRESHOLDS`] items:
//! - `metric<=value`: a **per-run** threshold, checked on every run (`ttfa_ms<=800`: each run's
//!   first answer token within 800 ms). A run that did not measure the metric (it failed
//!   before) does not meet it.
//! - `metric:stat<=value`: a **distribution** threshold over all counted runs that measured the
//!   metric; `stat` is `pNN` (any percentile from `p0` to `p100`, decimals allowed: `p99.9`),
//!   `median` (p50), `mean` or `max`. Percentiles are those of [`ttft_core::stats::percentile`]
//!   (Hyndman-Fan type 7, numpy's default, what AIPerf reports).
//! - `goodput>=0.95` or `goodput>=95%`: the share of runs that must meet every per-run
//!   threshold. Without it, every run must (goodput ≥ 100%).
//! - Operators: `<=`, `<`, `>=`, `>`. Metrics are the numeric ones of the metric catalogue
//!   ([`ttft_core::metric::METRICS`], the names of DESIGN.md §2: `slo_metric_names`); values
//!   are in the metric's unit, and millisecond metrics also take `s` or `ms` after the number
//!   (`perceived_ttfa_ms:p95<=1.5s`).
//!
//! [`SloSet`]'s `Display` writes the canonical form (values in the metric's unit, percent
//! for goodput), which parses back to the same set.
//!
//! # Goodput
//!
//! Peers name these things differently; ours follow AIPerf. AIPerf counts the requests that
//! meet every per-request SLO as **good request count**, reports their share of all
//! attempted requests, failed ones included, as **good request fraction**, and calls the rate
//! good requests / benchmark duration **goodput** (req/s); vLLM `bench serve --goodput`
//! reports that same rate as "Request goodput". GuideLLM (as of its 2026 sources) has no
//! goodput metric. A series of sequential runs in a browser has no meaningful request rate,
//! so TTFT Meter reports the count and the fraction ([`SloReport::good_run_count`],
//! [`SloReport::good_run_fraction`]) and the UI labels the fraction "goodput".
//!
//! Runs that count: sent, finished, not warm-up, and not stopped by the user (AIPerf also
//! leaves cancelled requests out of the fraction's denominator). Failed runs count, and fail
//! every per-run threshold.

use std::fmt;

use serde::{Serialize, Serializer};

use ttft_core::failure::NetworkFailure;
use ttft_core::lang::Lang;
use ttft_core::metric::{self, Metric, Unit};
use ttft_core::record::RunRecord;
use ttft_core::stats::percentile;
use ttft_core::timeline::RunOutcome;

use crate::texts as t;

/// Longest text form accepted, in bytes: it travels in URLs and embed configuration.
pub const MAX_SPEC_BYTES: usize = 512;

/// Most thresholds (goodput target included) in one set.
pub const MAX_THRESHOLDS: usize = 16;

/// Whether thresholds can be set on `metric`: a number per run (ms, tokens/s, tokens), not a
/// code or a distribution.
fn is_slo_metric(metric: &Metric) -> bool {
    !metric.series && metric.unit != Unit::Label
}

/// The names thresholds can use, from the metric catalogue ([`ttft_core::metric::METRICS`]).
fn slo_metric_names() -> Vec<&'static str> {
    metric::METRICS
        .iter()
        .filter(|metric| is_slo_metric(metric))
        .map(|metric| metric.name)
        .collect()
}

/// A metric's value in a run, when measured and finite.
fn value_of(metric: &Metric, record: &RunRecord) -> Option<f64> {
    metric
        .read(record)
        .number()
        .filter(|value| value.is_finite())
}

/// What a distribution threshold looks at.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Statistic {
    /// A percentile, 0 to 100 (type 7).
    Percentile {
        /// 95 for p95.
        percent: f64,
    },
    /// The arithmetic mean.
    Mean,
    /// The largest value.
    Max,
}

impl fmt::Display for Statistic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Statistic::Percentile { percent } => write!(f, "p{percent}"),
            Statistic::Mean => f.write_str("mean"),
            Statistic::Max => f.write_str("max"),
        }
    }
}

/// A comparison operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Comparison {
    /// `<=`.
    AtMost,
    /// `<`.
    Below,
    /// `>=`.
    AtLeast,
    /// `>`.
    Above,
}

impl Comparison {
    /// The operator as written.
    pub fn symbol(self) -> &'static str {
        match self {
            Comparison::AtMost => "<=",
            Comparison::Below => "<",
            Comparison::AtLeast => ">=",
            Comparison::Above => ">",
        }
    }

    /// Whether `value` satisfies `value <op> limit`.
    pub fn holds(self, value: f64, limit: f64) -> bool {
        match self {
            Comparison::AtMost => value <= limit,
            Comparison::Below => value < limit,
            Comparison::AtLeast => value >= limit,
            Comparison::Above => value > limit,
        }
    }
}

/// One threshold on one metric.
#[derive(Debug, Clone, Copy)]
pub struct Threshold {
    /// The metric, from the catalogue.
    pub metric: &'static Metric,
    /// `None`: checked on every run; `Some`: on this statistic of all runs.
    pub statistic: Option<Statistic>,
    /// The operator.
    pub comparison: Comparison,
    /// The limit, in the metric's unit (ms, or tokens/s for `output_tps`).
    pub limit: f64,
}

impl PartialEq for Threshold {
    fn eq(&self, other: &Threshold) -> bool {
        self.metric.name == other.metric.name
            && self.statistic == other.statistic
            && self.comparison == other.comparison
            && self.limit == other.limit
    }
}

impl Serialize for Threshold {
    /// `{"metric": "ttfa_ms", "statistic": null, "comparison": "at_most", "limit": 800.0}`.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut fields = serializer.serialize_struct("Threshold", 4)?;
        fields.serialize_field("metric", self.metric.name)?;
        fields.serialize_field("statistic", &self.statistic)?;
        fields.serialize_field("comparison", &self.comparison)?;
        fields.serialize_field("limit", &self.limit)?;
        fields.end()
    }
}

impl fmt::Display for Threshold {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.metric.name)?;
        if let Some(statistic) = self.statistic {
            write!(f, ":{statistic}")?;
        }
        write!(f, "{}{}", self.comparison.symbol(), self.limit)
    }
}

/// A set of thresholds and the goodput target.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SloSet {
    /// The thresholds, in the order written.
    pub thresholds: Vec<Threshold>,
    /// Share of counted runs (0 to 1) that must meet every per-run threshold; `None` means 1.
    pub goodput_target: Option<f64>,
}

impl fmt::Display for SloSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut items: Vec<String> = self.thresholds.iter().map(ToString::to_string).collect();
        if let Some(target) = self.goodput_target {
            items.push(format!("goodput>={}%", round_percent(target * 100.0)));
        }
        f.write_str(&items.join(","))
    }
}

/// A percentage with float noise removed (95.00000000000001 → 95).
fn round_percent(percent: f64) -> f64 {
    (percent * 1e9).round() / 1e9
}

/// Why an SLO text was refused. Each message names the item and says what to write instead.
#[derive(Debug, Clone, PartialEq)]
pub enum SloParseError {
    /// Nothing was written.
    Empty,
    /// Longer than [`MAX_SPEC_BYTES`].
    TooLong {
        /// Its length.
        length: usize,
        /// [`MAX_SPEC_BYTES`].
        max: usize,
    },
    /// More than [`MAX_THRESHOLDS`] items.
    TooMany {
        /// How many.
        count: usize,
        /// [`MAX_THRESHOLDS`].
        max: usize,
    },
    /// An empty item (two commas in a row, or a trailing comma).
    EmptyItem {
        /// 1-based.
        position: usize,
    },
    /// No `<=`, `<`, `>=` or `>` in an item.
    MissingComparison {
        /// 1-based.
        position: usize,
        /// The item.
        item: String,
    },
    /// The metric name is not one of `slo_metric_names`.
    UnknownMetric {
        /// 1-based.
        position: usize,
        /// What was written.
        name: String,
        /// The known names, comma-separated.
        known: String,
    },
    /// The statistic after `:` is not `pNN`, `median`, `mean` or `max`.
    UnknownStatistic {
        /// 1-based.
        position: usize,
        /// What was written.
        statistic: String,
    },
    /// The value is not a finite number (with an allowed unit).
    BadValue {
        /// 1-based.
        position: usize,
        /// What was written.
        value: String,
        /// Which units the metric takes.
        unit_hint: String,
    },
    /// The value is negative.
    NegativeValue {
        /// 1-based.
        position: usize,
        /// The value.
        value: f64,
    },
    /// A goodput target that is not a share between 0 and 1 (or 0 % and 100 %).
    BadGoodput {
        /// 1-based.
        position: usize,
        /// What was written.
        value: String,
    },
    /// Goodput given twice, with a statistic, or with another operator than `>=`.
    GoodputForm {
        /// 1-based.
        position: usize,
    },
    /// A goodput target without any per-run threshold to meet.
    GoodputWithoutPerRunThreshold,
}

impl SloParseError {
    /// The message in the user's language.
    pub fn message(&self, lang: Lang) -> String {
        match self {
            SloParseError::Empty => t::SLO_PARSE_ERROR_EMPTY.get(lang).to_owned(),
            SloParseError::TooLong { length, max } => {
                t::SLO_PARSE_ERROR_TOO_LONG.fill(lang, &[("length", length), ("max", max)])
            }
            SloParseError::TooMany { count, max } => {
                t::SLO_PARSE_ERROR_TOO_MANY.fill(lang, &[("count", count), ("max", max)])
            }
            SloParseError::EmptyItem { position } => {
                t::SLO_PARSE_ERROR_EMPTY_ITEM.fill(lang, &[("position", position)])
            }
            SloParseError::MissingComparison { position, item } => {
                t::SLO_PARSE_ERROR_MISSING_COMPARISON
                    .fill(lang, &[("item", item), ("position", position)])
            }
            SloParseError::UnknownMetric {
                position,
                name,
                known,
            } => t::SLO_PARSE_ERROR_UNKNOWN_METRIC.fill(
                lang,
                &[("known", known), ("name", name), ("position", position)],
            ),
            SloParseError::UnknownStatistic {
                position,
                statistic,
            } => t::SLO_PARSE_ERROR_UNKNOWN_STATISTIC
                .fill(lang, &[("position", position), ("statistic", statistic)]),
            SloParseError::BadValue {
                position,
                value,
                unit_hint,
            } => t::SLO_PARSE_ERROR_BAD_VALUE.fill(
                lang,
                &[
                    ("position", position),
                    ("unit_hint", unit_hint),
                    ("value", value),
                ],
            ),
            SloParseError::NegativeValue { position, value } => t::SLO_PARSE_ERROR_NEGATIVE_VALUE
                .fill(lang, &[("position", position), ("value", value)]),
            SloParseError::BadGoodput { position, value } => t::SLO_PARSE_ERROR_BAD_GOODPUT
                .fill(lang, &[("position", position), ("value", value)]),
            SloParseError::GoodputForm { position } => {
                t::SLO_PARSE_ERROR_GOODPUT_FORM.fill(lang, &[("position", position)])
            }
            SloParseError::GoodputWithoutPerRunThreshold => {
                t::SLO_PARSE_ERROR_GOODPUT_WITHOUT_PER_RUN_THRESHOLD
                    .get(lang)
                    .to_owned()
            }
        }
    }
}

impl fmt::Display for SloParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message(Lang::En))
    }
}

impl std::error::Error for SloParseError {}

/// Splits `item` at its operator: `(left, comparison, right)`.
fn split_comparison(item: &str) -> Option<(&str, Comparison, &str)> {
    let index = item.find(['<', '>'])?;
    let (left, rest) = item.split_at(index);
    let (comparison, right) = if let Some(right) = rest.strip_prefix("<=") {
        (Comparison::AtMost, right)
    } else if let Some(right) = rest.strip_prefix(">=") {
        (Comparison::AtLeast, right)
    } else if let Some(right) = rest.strip_prefix('<') {
        (Comparison::Below, right)
    } else {
        (Comparison::Above, rest.get(1..)?)
    };
    Some((left.trim(), comparison, right.trim()))
}

/// A finite number, or `None`.
fn number(text: &str) -> Option<f64> {
    let text = text.trim();
    // Rust's parser also takes `inf`, `NaN` and `1e5`; only plain decimals are meant here.
    if text.is_empty()
        || !text
            .bytes()
            .all(|byte| byte.is_ascii_digit() || byte == b'.' || byte == b'-' || byte == b'+')
    {
        return None;
    }
    text.parse::<f64>().ok().filter(|value| value.is_finite())
}

fn parse_statistic(text: &str, position: usize) -> Result<Statistic, SloParseError> {
    let unknown = || SloParseError::UnknownStatistic {
        position,
        statistic: text.to_owned(),
    };
    match text.to_ascii_lowercase().as_str() {
        "mean" | "avg" => Ok(Statistic::Mean),
        "max" => Ok(Statistic::Max),
        "median" => Ok(Statistic::Percentile { percent: 50.0 }),
        lower => {
            let percent = lower
                .strip_prefix('p')
                .and_then(number)
                .ok_or_else(unknown)?;
            if (0.0..=100.0).contains(&percent) {
                Ok(Statistic::Percentile { percent })
            } else {
                Err(unknown())
            }
        }
    }
}

fn parse_limit(metric: &Metric, text: &str, position: usize) -> Result<f64, SloParseError> {
    let milliseconds = metric.unit == Unit::Ms;
    let bad = || SloParseError::BadValue {
        position,
        value: text.to_owned(),
        unit_hint: match metric.unit {
            Unit::Ms => " (in ms, or with `s` or `ms` after it)",
            Unit::TokensPerSecond => " (tokens per second)",
            Unit::Tokens | Unit::Label => " (tokens)",
        }
        .to_owned(),
    };
    let lower = text.to_ascii_lowercase();
    let value = if milliseconds {
        if let Some(ms) = lower.strip_suffix("ms") {
            number(ms)
        } else if let Some(seconds) = lower.strip_suffix('s') {
            number(seconds).map(|seconds| seconds * 1000.0)
        } else {
            number(&lower)
        }
    } else {
        number(&lower)
    }
    .ok_or_else(bad)?;
    if value < 0.0 {
        return Err(SloParseError::NegativeValue { position, value });
    }
    Ok(value)
}

fn parse_goodput(
    statistic: Option<&str>,
    comparison: Comparison,
    text: &str,
    position: usize,
) -> Result<f64, SloParseError> {
    if statistic.is_some() || comparison != Comparison::AtLeast {
        return Err(SloParseError::GoodputForm { position });
    }
    let bad = || SloParseError::BadGoodput {
        position,
        value: text.to_owned(),
    };
    let share = match text.strip_suffix('%') {
        Some(percent) => number(percent).map(|percent| percent / 100.0),
        None => number(text),
    }
    .ok_or_else(bad)?;
    if (0.0..=1.0).contains(&share) {
        Ok(share)
    } else {
        Err(bad())
    }
}

impl SloSet {
    /// Parses the text form (see the module documentation).
    pub fn parse(text: &str) -> Result<SloSet, SloParseError> {
        if text.len() > MAX_SPEC_BYTES {
            return Err(SloParseError::TooLong {
                length: text.len(),
                max: MAX_SPEC_BYTES,
            });
        }
        if text.trim().is_empty() {
            return Err(SloParseError::Empty);
        }
        let items: Vec<&str> = text.split(',').collect();
        if items.len() > MAX_THRESHOLDS {
            return Err(SloParseError::TooMany {
                count: items.len(),
                max: MAX_THRESHOLDS,
            });
        }
        let mut set = SloSet {
            thresholds: Vec::new(),
            goodput_target: None,
        };
        for (index, raw) in items.iter().enumerate() {
            let position = index + 1;
            let item = raw.trim();
            if item.is_empty() {
                return Err(SloParseError::EmptyItem { position });
            }
            let (left, comparison, right) =
                split_comparison(item).ok_or_else(|| SloParseError::MissingComparison {
                    position,
                    item: item.to_owned(),
                })?;
            let (name, statistic) = match left.split_once(':') {
                Some((name, statistic)) => (name.trim(), Some(statistic.trim())),
                None => (left, None),
            };
            if name.eq_ignore_ascii_case("goodput") {
                if set.goodput_target.is_some() {
                    return Err(SloParseError::GoodputForm { position });
                }
                set.goodput_target = Some(parse_goodput(statistic, comparison, right, position)?);
                continue;
            }
            let metric = metric::find(&name.to_ascii_lowercase())
                .filter(|metric| is_slo_metric(metric))
                .ok_or_else(|| SloParseError::UnknownMetric {
                    position,
                    name: name.to_owned(),
                    known: slo_metric_names().join(", "),
                })?;
            let statistic = statistic
                .map(|statistic| parse_statistic(statistic, position))
                .transpose()?;
            let limit = parse_limit(metric, right, position)?;
            set.thresholds.push(Threshold {
                metric,
                statistic,
                comparison,
                limit,
            });
        }
        if set.goodput_target.is_some() && set.per_run_thresholds().next().is_none() {
            return Err(SloParseError::GoodputWithoutPerRunThreshold);
        }
        Ok(set)
    }

    /// The per-run thresholds.
    fn per_run_thresholds(&self) -> impl Iterator<Item = &Threshold> {
        self.thresholds
            .iter()
            .filter(|threshold| threshold.statistic.is_none())
    }

    /// Whether one run meets every per-run threshold (true when there is none).
    pub fn run_meets(&self, record: &RunRecord) -> bool {
        self.per_run_thresholds()
            .all(|threshold| threshold_met_by_run(threshold, record) == Some(true))
    }

    /// Evaluates the set over runs (see the module documentation for which runs count).
    pub fn evaluate(&self, runs: &[RunRecord]) -> SloReport {
        let counted: Vec<&RunRecord> = runs.iter().filter(|run| counts_for_slo(run)).collect();
        let per_run: Vec<&Threshold> = self.per_run_thresholds().collect();
        let run_results: Vec<RunAttainment> = counted
            .iter()
            .map(|run| {
                let checks: Vec<bool> = per_run
                    .iter()
                    .map(|threshold| threshold_met_by_run(threshold, run) == Some(true))
                    .collect();
                RunAttainment {
                    run_index: run.run_index,
                    met_every_threshold: checks.iter().all(|met| *met),
                    thresholds_met: checks,
                }
            })
            .collect();
        let threshold_results: Vec<ThresholdResult> = self
            .thresholds
            .iter()
            .map(|threshold| evaluate_threshold(threshold, &counted))
            .collect();
        let good_run_count = run_results
            .iter()
            .filter(|run| run.met_every_threshold)
            .count();
        let counted_runs = counted.len();
        let good_run_fraction =
            (counted_runs > 0).then(|| good_run_count as f64 / counted_runs as f64);
        let goodput_target = self.goodput_target.unwrap_or(1.0);
        let verdict = if counted_runs == 0 {
            Verdict::NoData
        } else {
            let goodput_ok = per_run.is_empty()
                || good_run_fraction.is_some_and(|fraction| fraction >= goodput_target - 1e-12);
            let distributions_ok = threshold_results
                .iter()
                .filter(|result| result.threshold.statistic.is_some())
                .all(|result| result.met);
            if goodput_ok && distributions_ok {
                Verdict::Pass
            } else {
                Verdict::Fail
            }
        };
        SloReport {
            spec: self.to_string(),
            counted_runs,
            good_run_count,
            good_run_fraction,
            goodput_target,
            runs: run_results,
            thresholds: threshold_results,
            verdict,
        }
    }
}

/// Whether a run counts for SLOs: sent, ended, not a warm-up, not stopped by the user.
fn counts_for_slo(run: &RunRecord) -> bool {
    !run.warm_up
        && !matches!(
            run.outcome,
            RunOutcome::NotSent
                | RunOutcome::Streaming
                | RunOutcome::NetworkFailure {
                    failure: NetworkFailure::Aborted
                }
        )
}

/// A per-run threshold on one run: `None` when the run did not measure the metric.
fn threshold_met_by_run(threshold: &Threshold, record: &RunRecord) -> Option<bool> {
    let value = value_of(threshold.metric, record)?;
    Some(threshold.comparison.holds(value, threshold.limit))
}

fn evaluate_threshold(threshold: &Threshold, runs: &[&RunRecord]) -> ThresholdResult {
    let values: Vec<f64> = runs
        .iter()
        .filter_map(|run| value_of(threshold.metric, run))
        .collect();
    match threshold.statistic {
        None => {
            let met_runs = runs
                .iter()
                .filter(|run| threshold_met_by_run(threshold, run) == Some(true))
                .count();
            ThresholdResult {
                threshold: *threshold,
                observed: None,
                samples: values.len(),
                met_runs: Some(met_runs),
                met: met_runs == runs.len() && !runs.is_empty(),
            }
        }
        Some(statistic) => {
            let observed = match statistic {
                Statistic::Percentile { percent } => {
                    percentile(&values, percent / 100.0).ok().flatten()
                }
                Statistic::Mean => {
                    (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
                }
                Statistic::Max => values.iter().copied().reduce(f64::max),
            };
            ThresholdResult {
                threshold: *threshold,
                observed,
                samples: values.len(),
                met_runs: None,
                met: observed
                    .is_some_and(|value| threshold.comparison.holds(value, threshold.limit)),
            }
        }
    }
}

/// One run's attainment.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunAttainment {
    /// The run's `run_index`.
    pub run_index: u32,
    /// Whether it met every per-run threshold (a "good" run).
    pub met_every_threshold: bool,
    /// Per per-run threshold, in the set's order: met or not (not measured = not met).
    pub thresholds_met: Vec<bool>,
}

/// One threshold's result.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ThresholdResult {
    /// The threshold.
    pub threshold: Threshold,
    /// The statistic's value, for a distribution threshold with samples.
    pub observed: Option<f64>,
    /// How many counted runs measured the metric.
    pub samples: usize,
    /// For a per-run threshold: how many counted runs met it.
    pub met_runs: Option<usize>,
    /// Per-run: every counted run met it; distribution: the statistic meets the limit.
    pub met: bool,
}

/// The overall verdict: what the badge shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Every distribution threshold met, and goodput at or above its target.
    Pass,
    /// Something was missed.
    Fail,
    /// No run counted yet.
    NoData,
}

impl Verdict {
    /// `pass`, `fail` or `no_data`, for `data-*` attributes and messages.
    pub fn code(self) -> &'static str {
        match self {
            Verdict::Pass => "pass",
            Verdict::Fail => "fail",
            Verdict::NoData => "no_data",
        }
    }
}

/// Everything an SLO evaluation found.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SloReport {
    /// The set, in canonical text form.
    pub spec: String,
    /// Runs that count (see `counts_for_slo`).
    pub counted_runs: usize,
    /// Runs that met every per-run threshold (AIPerf: good request count).
    pub good_run_count: usize,
    /// `good_run_count / counted_runs` (AIPerf: good request fraction; our "goodput");
    /// `None` with no counted run.
    pub good_run_fraction: Option<f64>,
    /// The goodput target used (1 when none was written).
    pub goodput_target: f64,
    /// Per counted run.
    pub runs: Vec<RunAttainment>,
    /// Per threshold, in the set's order.
    pub thresholds: Vec<ThresholdResult>,
    /// Pass, fail or no data.
    pub verdict: Verdict,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_issue_examples_parse() {
        let set = SloSet::parse("perceived_ttfa_ms:p95<=1.5s, ttfa_ms<=800").unwrap();
        assert_eq!(
            set.thresholds,
            vec![
                Threshold {
                    metric: metric::find("perceived_ttfa_ms").unwrap(),
                    statistic: Some(Statistic::Percentile { percent: 95.0 }),
                    comparison: Comparison::AtMost,
                    limit: 1500.0,
                },
                Threshold {
                    metric: metric::find("ttfa_ms").unwrap(),
                    statistic: None,
                    comparison: Comparison::AtMost,
                    limit: 800.0,
                },
            ]
        );
        assert_eq!(set.to_string(), "perceived_ttfa_ms:p95<=1500,ttfa_ms<=800");
    }

    #[test]
    fn canonical_text_parses_back_to_the_same_set() {
        for text in [
            "ttft_ms:p99.9<200,output_tps>=20,goodput>=0.9",
            "e2e_ms:mean<=2000,itl_ms:max<50ms",
            "ttfa_ms:median<=300,ttft_ms<300,goodput>=95%",
        ] {
            let set = SloSet::parse(text).unwrap();
            assert_eq!(SloSet::parse(&set.to_string()).unwrap(), set, "{text}");
        }
        assert_eq!(
            SloSet::parse("ttfa_ms<=300,goodput>=0.95")
                .unwrap()
                .to_string(),
            "ttfa_ms<=300,goodput>=95%"
        );
    }

    #[test]
    fn bad_input_is_refused_with_the_item_named() {
        let cases: [(&str, &str); 11] = [
            ("", "No SLO was given"),
            ("ttfa_ms<=800,,ttft_ms<=1", "Item 2 of the SLO is empty"),
            ("ttfa_ms=800", "Item 1 (`ttfa_ms=800`) has no comparison"),
            ("tffa_ms<=800", "`tffa_ms` is not a metric"),
            ("ttfa_ms:p950<=800", "`p950` is not a statistic"),
            ("ttfa_ms<=fast", "`fast` is not a number (in ms"),
            ("ttfa_ms<=inf", "`inf` is not a number"),
            ("ttfa_ms<=-3", "the limit -3 is negative"),
            ("ttfa_ms<=800,goodput>=120%", "goodput must be a share"),
            ("ttfa_ms<=800,goodput<=0.5", "goodput is written once"),
            (
                "ttfa_ms:p95<=800,goodput>=0.5",
                "needs at least one per-run threshold",
            ),
        ];
        for (text, expected) in cases {
            let error = SloSet::parse(text).unwrap_err();
            assert!(
                error.to_string().contains(expected),
                "{text}: {error} (wanted {expected})"
            );
            assert!(!error.message(Lang::Zh).is_empty());
        }
        let long = "ttfa_ms<=800,".repeat(60);
        assert!(matches!(
            SloSet::parse(&long),
            Err(SloParseError::TooLong { .. })
        ));
        let many = vec!["ttfa_ms<=800"; 17].join(",");
        assert!(matches!(
            SloSet::parse(&many),
            Err(SloParseError::TooMany { count: 17, .. })
        ));
    }
}
