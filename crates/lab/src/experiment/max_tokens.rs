//! Experiment 2: does TTFT depend on `max_tokens`?
//!
//! Prefill does not depend on the output limit (DESIGN.md §1), so the same input at a small
//! and a large `max_tokens` should give the same TTFT. Some servers still pay for a large
//! limit up front (KV-cache reservation, admission by requested length); this experiment
//! shows it.

use serde::{Deserialize, Serialize};

use super::book::{context_budget, plan_sized, run_spec, session, Design, RunBook};
use super::figures::{median_of, ms, summary_of};
use super::filler::estimated_tokens;
use super::limits::{MAX_PROMPT_TOKENS, MAX_REPETITIONS};
use super::order::{interleaved_order, run_nonce};
use super::params::{CountListParam, CountParam, Inputs, ParamSpec};
use super::report::{
    same_text, Axis, Cell, Chart, ChartKind, Colour, Column, Report, Series, Table, Unit,
};
use super::sample::{Observation, PlannedRun};
use super::schedule::{RunRole, Schedule, ScheduleKind};
use super::session::{Experiment, Planning, Setup, SetupError};
use super::sizing::{fit_outputs, PromptSizing};
use crate::texts as t;
use ttft_core::lang::Bilingual;
use ttft_core::lang::Lang;
use ttft_core::stats::Summary;

/// Default output limits compared: a short answer and a long one.
pub const DEFAULT_MAX_TOKENS_VALUES: [u32; 2] = [200, 4_000];

/// Default runs per limit.
pub const DEFAULT_REPETITIONS: usize = 8;

/// Default prompt size, tokens: long enough for a real prefill, short enough to be quick.
pub const DEFAULT_PROMPT_TOKENS: u32 = 1_000;

/// Fewest successful runs per limit before judging.
pub const MIN_RUNS_PER_LEVEL: usize = 3;

/// Smallest difference of medians reported as an effect, ms: below 50 ms no user notices
/// and no decision changes, whatever the statistics say.
pub const MIN_EFFECT_MS: f64 = 50.0;

/// The difference of medians must also exceed this many robust standard deviations of a
/// single run (pooled MAD × 1.4826). Twice the per-run spread is conservative for a
/// difference of medians (whose own error is several times smaller), which is what we want
/// for a flag that tells users to change a setting.
pub const NOISE_FACTOR: f64 = 2.0;

/// MAD to standard deviation for normal data.
const MAD_TO_SIGMA: f64 = 1.4826;

/// What to run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MaxTokensConfig {
    /// Output limits to compare (the analysis compares the smallest with the largest).
    pub max_tokens_values: Vec<u32>,
    /// Runs per limit.
    pub repetitions: usize,
    /// Prompt size, tokens.
    pub prompt_tokens: u32,
    /// Language of the filler.
    pub lang: Lang,
    /// Seed of the nonces and of the interleaving.
    pub seed: u64,
    /// How the prompt is sized to the provider's token count.
    pub sizing: PromptSizing,
}

impl Default for MaxTokensConfig {
    fn default() -> Self {
        MaxTokensConfig {
            max_tokens_values: DEFAULT_MAX_TOKENS_VALUES.to_vec(),
            repetitions: DEFAULT_REPETITIONS,
            prompt_tokens: DEFAULT_PROMPT_TOKENS,
            lang: Lang::En,
            seed: 0,
            sizing: PromptSizing::estimate(),
        }
    }
}

/// The plan: the same input size at every limit, interleaved (A B, B A, …), each prompt
/// with its own nonce so caching cannot favour one arm. The key is `max_tokens`.
pub fn plan(config: &MaxTokensConfig) -> Vec<PlannedRun<u32>> {
    interleaved_order(
        config.max_tokens_values.len(),
        config.repetitions,
        config.seed,
    )
    .into_iter()
    .enumerate()
    .filter_map(|(run_index, (level, repetition))| {
        let max_tokens = *config.max_tokens_values.get(level)?;
        let nonce = run_nonce(config.seed, run_index);
        let prompt = config
            .sizing
            .prompt(config.prompt_tokens, config.lang, Some(&nonce));
        Some(PlannedRun {
            run_index,
            key: max_tokens,
            repetition,
            sim_prompt_tokens: estimated_tokens(&prompt),
            nonce: Some(nonce),
            prompt,
            model: None,
            max_tokens: Some(max_tokens),
        })
    })
    .collect()
}

/// The runs of one limit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MaxTokensLevel {
    /// The limit.
    pub max_tokens: u32,
    /// Failed runs (or without a TTFT).
    pub failures: usize,
    /// TTFT of the successful runs, ms.
    pub ttft_ms: Option<Summary>,
}

/// What the runs say.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MaxTokensResult {
    /// Per limit, ascending.
    pub levels: Vec<MaxTokensLevel>,
    /// Median TTFT at the largest limit minus at the smallest, ms.
    pub median_difference_ms: Option<f64>,
    /// Robust per-run spread: pooled median absolute deviation × 1.4826, ms.
    pub pooled_spread_ms: Option<f64>,
    /// The difference needed to flag: max(MIN_EFFECT_MS, NOISE_FACTOR × spread), ms.
    pub threshold_ms: Option<f64>,
    /// The conclusion.
    pub verdict: MaxTokensVerdict,
}

/// The conclusion of the max_tokens experiment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum MaxTokensVerdict {
    /// Fewer than [`MIN_RUNS_PER_LEVEL`] successful runs at the smallest or largest limit.
    NotEnoughData,
    /// The difference is within noise: TTFT does not depend on the output length.
    Independent {
        /// Median difference (largest − smallest limit), ms.
        difference_ms: f64,
        /// The threshold it stayed under, ms.
        threshold_ms: f64,
    },
    /// The difference is beyond noise.
    Depends {
        /// Smallest limit.
        low_max_tokens: u32,
        /// Largest limit.
        high_max_tokens: u32,
        /// Median difference (largest − smallest limit), ms; negative when the large
        /// limit was faster.
        difference_ms: f64,
        /// The threshold it exceeded, ms.
        threshold_ms: f64,
    },
}

impl MaxTokensVerdict {
    /// Stable code (the serde tag).
    pub fn code(&self) -> &'static str {
        match self {
            MaxTokensVerdict::NotEnoughData => "not_enough_data",
            MaxTokensVerdict::Independent { .. } => "independent",
            MaxTokensVerdict::Depends { .. } => "depends",
        }
    }

    /// What it means and what to do, in `lang`.
    pub fn message(&self, lang: Lang) -> String {
        match self {
            MaxTokensVerdict::NotEnoughData => t::MAX_TOKENS_VERDICT_NOT_ENOUGH_DATA
                .fill(lang, &[("min_runs", &MIN_RUNS_PER_LEVEL)]),
            MaxTokensVerdict::Independent {
                difference_ms,
                threshold_ms,
            } => {
                let (difference, threshold) = (ms(difference_ms.abs()), ms(*threshold_ms));
                t::MAX_TOKENS_VERDICT_INDEPENDENT.fill(
                    lang,
                    &[("difference", &difference), ("threshold", &threshold)],
                )
            }
            MaxTokensVerdict::Depends {
                low_max_tokens,
                high_max_tokens,
                difference_ms,
                threshold_ms,
            } => {
                let (difference, threshold) = (format!("{difference_ms:+.0}"), ms(*threshold_ms));
                t::MAX_TOKENS_VERDICT_DEPENDS.fill(
                    lang,
                    &[
                        ("high_max_tokens", &high_max_tokens),
                        ("low_max_tokens", &low_max_tokens),
                        ("difference", &difference),
                        ("threshold", &threshold),
                    ],
                )
            }
        }
    }
}

/// TTFTs of the successful runs at `max_tokens`.
fn ttfts_at(observations: &[Observation<u32>], max_tokens: u32) -> Vec<f64> {
    observations
        .iter()
        .filter(|o| o.key == max_tokens)
        .filter_map(|o| o.sample.usable_ttft_ms())
        .collect()
}

/// Absolute deviations of `values` from their own median.
fn deviations(values: &[f64]) -> Vec<f64> {
    match median_of(values) {
        Some(median) => values.iter().map(|v| (v - median).abs()).collect(),
        None => Vec::new(),
    }
}

/// Analyses the runs: the smallest limit against the largest (see [`MIN_EFFECT_MS`] and
/// [`NOISE_FACTOR`] for the rule).
pub fn analyze(observations: &[Observation<u32>]) -> MaxTokensResult {
    let mut limits: Vec<u32> = observations.iter().map(|o| o.key).collect();
    limits.sort_unstable();
    limits.dedup();
    let levels: Vec<MaxTokensLevel> = limits
        .iter()
        .map(|&max_tokens| {
            let ttfts = ttfts_at(observations, max_tokens);
            let planned = observations.iter().filter(|o| o.key == max_tokens).count();
            MaxTokensLevel {
                max_tokens,
                failures: planned - ttfts.len(),
                ttft_ms: summary_of(&ttfts),
            }
        })
        .collect();
    let not_enough = MaxTokensResult {
        levels: levels.clone(),
        median_difference_ms: None,
        pooled_spread_ms: None,
        threshold_ms: None,
        verdict: MaxTokensVerdict::NotEnoughData,
    };
    let (Some(&low), Some(&high)) = (limits.first(), limits.last()) else {
        return not_enough;
    };
    let (low_ttfts, high_ttfts) = (ttfts_at(observations, low), ttfts_at(observations, high));
    if low == high || low_ttfts.len() < MIN_RUNS_PER_LEVEL || high_ttfts.len() < MIN_RUNS_PER_LEVEL
    {
        return not_enough;
    }
    let (Some(low_median), Some(high_median)) = (median_of(&low_ttfts), median_of(&high_ttfts))
    else {
        return not_enough;
    };
    let mut pooled = deviations(&low_ttfts);
    pooled.extend(deviations(&high_ttfts));
    let spread_ms = median_of(&pooled).unwrap_or(0.0) * MAD_TO_SIGMA;
    let threshold_ms = MIN_EFFECT_MS.max(NOISE_FACTOR * spread_ms);
    let difference_ms = high_median - low_median;
    let verdict = if difference_ms.abs() > threshold_ms {
        MaxTokensVerdict::Depends {
            low_max_tokens: low,
            high_max_tokens: high,
            difference_ms,
            threshold_ms,
        }
    } else {
        MaxTokensVerdict::Independent {
            difference_ms,
            threshold_ms,
        }
    };
    MaxTokensResult {
        levels,
        median_difference_ms: Some(difference_ms),
        pooled_spread_ms: Some(spread_ms),
        threshold_ms: Some(threshold_ms),
        verdict,
    }
}

/// The output limits field.
pub const MAX_TOKENS_VALUES: CountListParam = CountListParam {
    id: "max-tokens",
    label: t::PARAM_MAX_TOKENS_VALUES,
    min: 1,
    max: 1_000_000,
    default: &DEFAULT_MAX_TOKENS_VALUES,
};

/// The prompt size field.
pub const PROMPT_TOKENS: CountParam = CountParam {
    id: "prompt-tokens",
    label: t::PARAM_PROMPT_SIZE,
    min: 1,
    max: MAX_PROMPT_TOKENS,
    default: DEFAULT_PROMPT_TOKENS,
};

/// The repetitions field.
pub const REPETITIONS: CountParam = CountParam {
    id: "repetitions",
    label: t::PARAM_RUNS_PER_LEVEL,
    min: 1,
    max: MAX_REPETITIONS,
    default: DEFAULT_REPETITIONS as u32,
};

/// The max_tokens experiment in the registry.
#[derive(Debug, Clone, Copy)]
pub struct MaxTokens;

impl Experiment for MaxTokens {
    fn code(&self) -> &'static str {
        "max_tokens"
    }

    fn label(&self) -> Bilingual {
        t::MAX_TOKENS.bilingual()
    }

    fn description(&self) -> Bilingual {
        t::MAX_TOKENS_DESCRIPTION.bilingual()
    }

    fn schedule_kind(&self) -> ScheduleKind {
        ScheduleKind::Sequence
    }

    fn params(&self) -> Vec<ParamSpec> {
        vec![
            MAX_TOKENS_VALUES.spec(),
            PROMPT_TOKENS.spec(),
            REPETITIONS.spec(),
        ]
    }

    fn configure(&self, inputs: &Inputs, setup: &Setup) -> Result<Planning, SetupError> {
        let requested_values = MAX_TOKENS_VALUES.read(inputs)?;
        let requested_prompt = PROMPT_TOKENS.read(inputs)?;
        let repetitions = REPETITIONS.read(inputs)? as usize;
        // The prompt must fit with the smallest limit; larger limits are clipped to what the
        // prompt leaves once the server has counted it.
        let smallest_output = requested_values.iter().copied().min().unwrap_or(0);
        let window = setup.context_window_tokens;
        let budget = context_budget(window, smallest_output);
        plan_sized(setup, budget, &[requested_prompt], move |fitted| {
            let prompt_tokens = fitted.only(requested_prompt);
            let mut sizing = fitted.sizing;
            let mut values = requested_values;
            if let Some(window_tokens) = window {
                let counted = sizing
                    .counted_for(prompt_tokens)
                    .map_or(prompt_tokens, |count| count.tokens);
                let (limits, clips) = fit_outputs(&values, window_tokens, counted)?;
                values = limits;
                sizing.clips.extend(clips);
            }
            let config = MaxTokensConfig {
                max_tokens_values: values,
                repetitions,
                prompt_tokens,
                lang: fitted.lang,
                seed: fitted.seed,
                sizing,
            };
            let planned = plan(&config);
            Ok(session(config, planned))
        })
    }
}

impl Design for MaxTokensConfig {
    type Key = u32;

    fn code(&self) -> &'static str {
        MaxTokens.code()
    }

    fn schedule(&self, book: &RunBook<u32>) -> Schedule {
        let sizing = Some((&self.sizing, self.prompt_tokens));
        Schedule::Sequence {
            runs: book
                .specs(|run| run_spec(run, RunRole::Measured, max_tokens_level(run.key), sizing)),
        }
    }

    fn report(&self, book: &RunBook<u32>) -> Report {
        let result = analyze(&book.observations);
        report(&result, &book.observations, &self.sizing)
    }

    fn sizing(&self) -> Option<&PromptSizing> {
        Some(&self.sizing)
    }
}

/// "max_tokens=200".
fn max_tokens_level(max_tokens: u32) -> Bilingual {
    same_text(format!("max_tokens={max_tokens}"))
}

/// The display-neutral report of a max_tokens analysis.
pub fn report(
    result: &MaxTokensResult,
    observations: &[Observation<u32>],
    sizing: &PromptSizing,
) -> Report {
    let mut report = Report::new(MaxTokens.code());
    report.verdict(
        result.verdict.code(),
        Bilingual::from_fn(|lang| result.verdict.message(lang)),
    );
    report.notes.extend(sizing.notes());
    report.number("difference-ms", result.median_difference_ms);
    report.number("threshold-ms", result.threshold_ms);
    let series = result
        .levels
        .iter()
        .enumerate()
        .map(|(index, level)| {
            let values = observations
                .iter()
                .filter(|o| o.key == level.max_tokens)
                .map(|o| o.sample.usable_ttft_ms())
                .collect();
            Series::values(
                max_tokens_level(level.max_tokens),
                Colour::category(index),
                values,
            )
        })
        .collect();
    report.chart = Some(Chart {
        title: t::MAX_TOKENS_CHART_TITLE.bilingual(),
        kind: ChartKind::Sequence,
        x: Axis::new(t::REPETITION.bilingual(), Unit::Count),
        y: Axis::new(t::TTFT.bilingual(), Unit::Ms),
        series,
        references: Vec::new(),
        fits: Vec::new(),
    });
    let mut columns = vec![
        Column::new(same_text("max_tokens"), Unit::Tokens),
        Column::new(t::FAILED.bilingual(), Unit::Count),
    ];
    columns.extend(Table::summary_columns());
    let rows = result
        .levels
        .iter()
        .map(|level| {
            let mut row = vec![
                Cell::Count(u64::from(level.max_tokens)),
                Cell::count(level.failures),
            ];
            row.extend(Table::summary_cells(level.ttft_ms.as_ref()));
            row
        })
        .collect();
    report.table = Table { columns, rows };
    report
}
