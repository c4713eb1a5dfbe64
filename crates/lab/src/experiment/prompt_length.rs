//! Experiment 1: TTFT against prompt length.
//!
//! Prefill reads the whole prompt before the first token, so TTFT grows with the number of
//! prompt tokens: about linearly, with a quadratic attention term that shows on long
//! prompts (DESIGN.md §1). Every prompt starts with a unique nonce so no prefix cache helps.

use serde::{Deserialize, Serialize};

use super::book::{context_budget, plan_sized, run_spec, session, tokens_level, Design, RunBook};
use super::figures::{ms, percent, summary_of};
use super::filler::estimated_tokens;
use super::limits::{MAX_PROMPT_TOKENS, MAX_REPETITIONS};
use super::order::{interleaved_order, run_nonce};
use super::params::{CountListParam, CountParam, Inputs, ParamSpec};
use super::report::{
    counted_label, same_text, Axis, Cell, Chart, ChartKind, Colour, Column, FitLine, Report,
    Series, Table, Unit,
};
use super::sample::{Observation, PlannedRun};
use super::schedule::{RunRole, Schedule, ScheduleKind};
use super::session::{Experiment, Planning, Setup, SetupError};
use super::sizing::{counts_note, prompt_tokens_of, CountSource, PromptSizing, TokenCount};
use crate::texts as t;
use ttft_core::lang::Bilingual;
use ttft_core::lang::Lang;
use ttft_core::stats::{linear_fit, quadratic_fit, Fit, Summary};

/// Default prompt sizes, tokens: from "nothing to read" to a long document.
pub const DEFAULT_PROMPT_SIZES_TOKENS: [u32; 4] = [100, 1_000, 5_000, 10_000];

/// Default repetitions per size: enough for a median that one slow run cannot move.
pub const DEFAULT_REPETITIONS: usize = 5;

/// Output limit of every run: only the first token matters, and a small limit keeps the
/// context window for the prompt.
pub const DEFAULT_MAX_TOKENS: u32 = 16;

/// The quadratic term must be at least this share of the fitted TTFT at the largest size
/// to call the growth superlinear: below 10% the attention cost is within the run-to-run
/// noise of a typical network path and would not change any decision.
pub const SUPERLINEAR_MIN_SHARE: f64 = 0.10;

/// The quadratic fit must remove at least this share of the linear fit's residual sum of
/// squares: a real curvature explains most of what the line misses, while pure noise lets
/// the extra parameter remove only about 1/(n − 2) of it.
pub const SUPERLINEAR_MIN_RESIDUAL_REDUCTION: f64 = 0.5;

/// Below this linear R², TTFT does not follow prompt length: other delays dominate.
pub const TREND_MIN_R_SQUARED: f64 = 0.5;

/// A linear fit leaving less than this share of the variance unexplained is exact up to
/// floating-point rounding: there is no residual for a quadratic term to remove, and the
/// ratio of two rounding errors must not decide the verdict.
const PERFECT_FIT_UNEXPLAINED: f64 = 1e-12;

/// Fewest distinct prompt sizes with a successful TTFT before fitting: a line through two
/// sizes always fits, so its R² says nothing.
pub const MIN_DISTINCT_SIZES: usize = 3;

/// What to run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PromptLengthConfig {
    /// Prompt sizes to compare, tokens (as the provider counts them after sizing).
    pub sizes_tokens: Vec<u32>,
    /// Runs per size.
    pub repetitions: usize,
    /// Language of the filler.
    pub lang: Lang,
    /// Seed of the nonces and of the interleaving.
    pub seed: u64,
    /// How prompts are sized to the provider's token count (the estimate for the sim).
    pub sizing: PromptSizing,
    /// Output limit; small, since only the first token matters.
    pub max_tokens: Option<u32>,
}

impl Default for PromptLengthConfig {
    fn default() -> Self {
        PromptLengthConfig {
            sizes_tokens: DEFAULT_PROMPT_SIZES_TOKENS.to_vec(),
            repetitions: DEFAULT_REPETITIONS,
            lang: Lang::En,
            seed: 0,
            sizing: PromptSizing::estimate(),
            max_tokens: Some(DEFAULT_MAX_TOKENS),
        }
    }
}

/// The plan: every size `repetitions` times, interleaved, each prompt with its own nonce at
/// position 0. The key is the planned size in tokens.
pub fn plan(config: &PromptLengthConfig) -> Vec<PlannedRun<u32>> {
    interleaved_order(config.sizes_tokens.len(), config.repetitions, config.seed)
        .into_iter()
        .enumerate()
        .filter_map(|(run_index, (level, repetition))| {
            let size_tokens = *config.sizes_tokens.get(level)?;
            Some(sized_run(config, run_index, size_tokens, repetition))
        })
        .collect()
}

/// One planned run of `size_tokens`.
fn sized_run(
    config: &PromptLengthConfig,
    run_index: usize,
    size_tokens: u32,
    repetition: usize,
) -> PlannedRun<u32> {
    let nonce = run_nonce(config.seed, run_index);
    let prompt = config.sizing.prompt(size_tokens, config.lang, Some(&nonce));
    PlannedRun {
        run_index,
        key: size_tokens,
        repetition,
        sim_prompt_tokens: estimated_tokens(&prompt),
        nonce: Some(nonce),
        prompt,
        model: None,
        max_tokens: config.max_tokens,
    }
}

/// The runs of one planned size.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SizeLevel {
    /// Planned size, tokens.
    pub planned_tokens: u32,
    /// Successful runs with a TTFT.
    pub runs: usize,
    /// Failed runs (or runs without a TTFT).
    pub failures: usize,
    /// Mean usage prompt tokens of the runs that reported them.
    pub mean_prompt_tokens: Option<f64>,
    /// The server's count of a prompt of this size (calibration), when it counted.
    pub counted_tokens: Option<TokenCount>,
    /// TTFT of the successful runs, ms.
    pub ttft_ms: Option<Summary>,
}

/// What the prompt-length runs say.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PromptLengthResult {
    /// Per planned size, ascending.
    pub levels: Vec<SizeLevel>,
    /// Points whose x came from usage `prompt_tokens` (the others use the server's count
    /// of their size, else the planned size).
    pub points_from_usage: usize,
    /// Where the x of the points came from: the weakest source among them.
    pub x_source: Option<CountSource>,
    /// TTFT (ms) = intercept + slope · prompt tokens.
    pub linear: Option<Fit>,
    /// TTFT (ms) = intercept + slope · n + quadratic · n².
    pub quadratic: Option<Fit>,
    /// Prefill cost per 1,000 prompt tokens from the linear fit (slope · 1000), ms.
    pub prefill_ms_per_1k_tokens: Option<f64>,
    /// Cost of one more 1,000 tokens at the largest size, from the quadratic fit:
    /// (slope + 2 · quadratic · n_max) · 1000, ms.
    pub marginal_ms_per_1k_tokens_at_max: Option<f64>,
    /// Largest prompt size observed, tokens.
    pub max_prompt_tokens: Option<f64>,
    /// quadratic · n_max² / fitted TTFT at n_max (quadratic fit).
    pub quadratic_share_at_max: Option<f64>,
    /// Share of the linear fit's residual sum of squares that the quadratic fit removes.
    pub residual_reduction: Option<f64>,
    /// The conclusion.
    pub verdict: PromptLengthVerdict,
}

/// The conclusion of the prompt-length experiment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum PromptLengthVerdict {
    /// Fewer than [`MIN_DISTINCT_SIZES`] planned sizes with a successful TTFT.
    NotEnoughData,
    /// The linear R² is below [`TREND_MIN_R_SQUARED`] or TTFT does not grow.
    NoClearTrend {
        /// Linear R² (None when TTFT did not vary at all).
        r_squared: Option<f64>,
    },
    /// TTFT grows about linearly.
    NearLinear {
        /// Prefill per 1,000 tokens, ms.
        prefill_ms_per_1k_tokens: f64,
        /// Linear R².
        r_squared: Option<f64>,
    },
    /// TTFT grows faster than linearly: the attention cost is visible.
    Superlinear {
        /// Prefill per 1,000 tokens from the linear fit (the average over the range), ms.
        prefill_ms_per_1k_tokens: f64,
        /// Cost of one more 1,000 tokens at the largest size, ms.
        marginal_ms_per_1k_tokens_at_max: f64,
        /// Largest prompt, tokens.
        max_prompt_tokens: f64,
        /// Share of TTFT at the largest size due to the quadratic term.
        quadratic_share_at_max: f64,
    },
}

impl PromptLengthVerdict {
    /// Stable code (the serde tag).
    pub fn code(&self) -> &'static str {
        match self {
            PromptLengthVerdict::NotEnoughData => "not_enough_data",
            PromptLengthVerdict::NoClearTrend { .. } => "no_clear_trend",
            PromptLengthVerdict::NearLinear { .. } => "near_linear",
            PromptLengthVerdict::Superlinear { .. } => "superlinear",
        }
    }

    /// What it means and what to do, in `lang`.
    pub fn message(&self, lang: Lang) -> String {
        match self {
            PromptLengthVerdict::NotEnoughData => t::PROMPT_LENGTH_VERDICT_NOT_ENOUGH_DATA
                .get(lang)
                .to_owned(),
            PromptLengthVerdict::NoClearTrend { r_squared } => {
                let r2 = r_squared.map_or("-".to_string(), |r| format!("{r:.2}"));
                t::PROMPT_LENGTH_VERDICT_NO_CLEAR_TREND.fill(lang, &[("r2", &r2)])
            }
            PromptLengthVerdict::NearLinear {
                prefill_ms_per_1k_tokens,
                r_squared,
            } => {
                let r2 = r_squared.map_or("-".to_string(), |r| format!("{r:.2}"));
                let cost = ms(*prefill_ms_per_1k_tokens);
                t::PROMPT_LENGTH_VERDICT_NEAR_LINEAR.fill(lang, &[("cost", &cost), ("r2", &r2)])
            }
            PromptLengthVerdict::Superlinear {
                prefill_ms_per_1k_tokens,
                marginal_ms_per_1k_tokens_at_max,
                max_prompt_tokens,
                quadratic_share_at_max,
            } => {
                let (average, marginal) = (
                    ms(*prefill_ms_per_1k_tokens),
                    ms(*marginal_ms_per_1k_tokens_at_max),
                );
                let (largest, share) = (
                    format!("{max_prompt_tokens:.0}"),
                    percent(*quadratic_share_at_max),
                );
                t::PROMPT_LENGTH_VERDICT_SUPERLINEAR.fill(
                    lang,
                    &[
                        ("largest", &largest),
                        ("share", &share),
                        ("marginal", &marginal),
                        ("average", &average),
                    ],
                )
            }
        }
    }
}

/// Analyses the runs. x is usage `prompt_tokens` when reported, else the planned size.
pub fn analyze(observations: &[Observation<u32>]) -> PromptLengthResult {
    analyze_sized(observations, &PromptSizing::estimate())
}

/// Analyses the runs of a plan sized by `sizing`. x is usage `prompt_tokens` when reported,
/// else the server's count of the run's size, else the planned size (see
/// [`prompt_tokens_of`]).
fn analyze_sized(
    observations: &[Observation<u32>],
    sizing: &PromptSizing,
) -> PromptLengthResult {
    let counted: Vec<(TokenCount, f64)> = observations
        .iter()
        .filter_map(|o| {
            let ttft_ms = o.sample.usable_ttft_ms()?;
            Some((prompt_tokens_of(&o.sample, o.key, sizing), ttft_ms))
        })
        .collect();
    let points: Vec<(f64, f64)> = counted
        .iter()
        .map(|(count, ttft_ms)| (f64::from(count.tokens), *ttft_ms))
        .collect();
    let x_source = counted.iter().map(|(count, _)| count.source).max();
    let points_from_usage = observations
        .iter()
        .filter(|o| o.sample.usable_ttft_ms().is_some() && o.sample.prompt_tokens.is_some())
        .count();
    let enough_sizes = distinct_sizes(observations) >= MIN_DISTINCT_SIZES;
    let linear = linear_fit(&points).ok().flatten().filter(|_| enough_sizes);
    let quadratic = quadratic_fit(&points)
        .ok()
        .flatten()
        .filter(|_| enough_sizes);
    let max_prompt_tokens = points.iter().map(|p| p.0).reduce(f64::max);
    let curvature = curvature(linear.as_ref(), quadratic.as_ref(), max_prompt_tokens);
    let verdict = verdict(linear.as_ref(), &curvature, max_prompt_tokens);
    PromptLengthResult {
        levels: levels(observations, sizing),
        points_from_usage,
        x_source,
        prefill_ms_per_1k_tokens: linear.as_ref().map(|fit| fit.slope * 1000.0),
        marginal_ms_per_1k_tokens_at_max: curvature.marginal_ms_per_1k_tokens_at_max,
        max_prompt_tokens,
        quadratic_share_at_max: curvature.quadratic_share_at_max,
        residual_reduction: curvature.residual_reduction,
        linear,
        quadratic,
        verdict,
    }
}

/// Number of planned sizes with at least one successful TTFT.
fn distinct_sizes(observations: &[Observation<u32>]) -> usize {
    let mut sizes: Vec<u32> = observations
        .iter()
        .filter(|o| o.sample.usable_ttft_ms().is_some())
        .map(|o| o.key)
        .collect();
    sizes.sort_unstable();
    sizes.dedup();
    sizes.len()
}

/// Per planned size, ascending.
fn levels(observations: &[Observation<u32>], sizing: &PromptSizing) -> Vec<SizeLevel> {
    let mut sizes: Vec<u32> = observations.iter().map(|o| o.key).collect();
    sizes.sort_unstable();
    sizes.dedup();
    sizes
        .into_iter()
        .map(|planned_tokens| {
            let of_size: Vec<&Observation<u32>> = observations
                .iter()
                .filter(|o| o.key == planned_tokens)
                .collect();
            let ttfts: Vec<f64> = of_size
                .iter()
                .filter_map(|o| o.sample.usable_ttft_ms())
                .collect();
            let reported: Vec<f64> = of_size
                .iter()
                .filter_map(|o| o.sample.prompt_tokens.map(|t| t as f64))
                .collect();
            SizeLevel {
                planned_tokens,
                runs: ttfts.len(),
                failures: of_size.len() - ttfts.len(),
                mean_prompt_tokens: (!reported.is_empty())
                    .then(|| reported.iter().sum::<f64>() / reported.len() as f64),
                counted_tokens: sizing.counted_for(planned_tokens),
                ttft_ms: summary_of(&ttfts),
            }
        })
        .collect()
}

/// The numbers of the superlinearity rule.
#[derive(Debug, Default)]
struct Curvature {
    quadratic_share_at_max: Option<f64>,
    residual_reduction: Option<f64>,
    marginal_ms_per_1k_tokens_at_max: Option<f64>,
}

/// Computes the quadratic term's share at the largest size, the residual reduction and the
/// marginal cost there.
fn curvature(linear: Option<&Fit>, quadratic: Option<&Fit>, max_x: Option<f64>) -> Curvature {
    let (Some(linear), Some(quadratic), Some(max_x)) = (linear, quadratic, max_x) else {
        return Curvature::default();
    };
    let predicted_at_max = quadratic.predict(max_x);
    let quadratic_share_at_max =
        (predicted_at_max > 0.0).then(|| quadratic.quadratic * max_x * max_x / predicted_at_max);
    // SS_res = (1 − R²)·SS_tot, with the same SS_tot for both fits.
    let residual_reduction = match (linear.r_squared, quadratic.r_squared) {
        (Some(r2_linear), Some(r2_quadratic)) => {
            let unexplained_linear = 1.0 - r2_linear;
            Some(if unexplained_linear <= PERFECT_FIT_UNEXPLAINED {
                0.0
            } else {
                1.0 - (1.0 - r2_quadratic) / unexplained_linear
            })
        }
        _ => None,
    };
    Curvature {
        quadratic_share_at_max,
        residual_reduction,
        marginal_ms_per_1k_tokens_at_max: Some(
            (quadratic.slope + 2.0 * quadratic.quadratic * max_x) * 1000.0,
        ),
    }
}

/// The rule: superlinear when the quadratic coefficient is positive, its term is at least
/// [`SUPERLINEAR_MIN_SHARE`] of the fitted TTFT at the largest size, and the quadratic fit
/// removes at least [`SUPERLINEAR_MIN_RESIDUAL_REDUCTION`] of the line's residual; else
/// near-linear when the line explains at least [`TREND_MIN_R_SQUARED`] with a positive
/// slope; else no clear trend.
fn verdict(linear: Option<&Fit>, curvature: &Curvature, max_x: Option<f64>) -> PromptLengthVerdict {
    let Some(linear) = linear else {
        return PromptLengthVerdict::NotEnoughData;
    };
    let prefill_ms_per_1k_tokens = linear.slope * 1000.0;
    if let (Some(share), Some(reduction), Some(marginal), Some(max_prompt_tokens)) = (
        curvature.quadratic_share_at_max,
        curvature.residual_reduction,
        curvature.marginal_ms_per_1k_tokens_at_max,
        max_x,
    ) {
        if share >= SUPERLINEAR_MIN_SHARE && reduction >= SUPERLINEAR_MIN_RESIDUAL_REDUCTION {
            return PromptLengthVerdict::Superlinear {
                prefill_ms_per_1k_tokens,
                marginal_ms_per_1k_tokens_at_max: marginal,
                max_prompt_tokens,
                quadratic_share_at_max: share,
            };
        }
    }
    match linear.r_squared {
        Some(r2) if r2 >= TREND_MIN_R_SQUARED && linear.slope > 0.0 => {
            PromptLengthVerdict::NearLinear {
                prefill_ms_per_1k_tokens,
                r_squared: Some(r2),
            }
        }
        r_squared => PromptLengthVerdict::NoClearTrend { r_squared },
    }
}

/// The prompt sizes field.
pub const SIZES: CountListParam = CountListParam {
    id: "sizes",
    label: t::PARAM_PROMPT_SIZES,
    min: 1,
    max: MAX_PROMPT_TOKENS,
    default: &DEFAULT_PROMPT_SIZES_TOKENS,
};

/// The repetitions field.
pub const REPETITIONS: CountParam = CountParam {
    id: "repetitions",
    label: t::PARAM_RUNS_PER_LEVEL,
    min: 1,
    max: MAX_REPETITIONS,
    default: DEFAULT_REPETITIONS as u32,
};

/// The prompt-length experiment in the registry.
#[derive(Debug, Clone, Copy)]
pub struct PromptLength;

impl Experiment for PromptLength {
    fn code(&self) -> &'static str {
        "prompt_length"
    }

    fn label(&self) -> Bilingual {
        t::PROMPT_LENGTH.bilingual()
    }

    fn description(&self) -> Bilingual {
        t::PROMPT_LENGTH_DESCRIPTION.bilingual()
    }

    fn schedule_kind(&self) -> ScheduleKind {
        ScheduleKind::Sequence
    }

    fn params(&self) -> Vec<ParamSpec> {
        vec![SIZES.spec(), REPETITIONS.spec()]
    }

    fn configure(&self, inputs: &Inputs, setup: &Setup) -> Result<Planning, SetupError> {
        let requested = SIZES.read(inputs)?;
        let repetitions = REPETITIONS.read(inputs)? as usize;
        let budget = context_budget(setup.context_window_tokens, DEFAULT_MAX_TOKENS);
        plan_sized(setup, budget, &requested, move |fitted| {
            let config = PromptLengthConfig {
                sizes_tokens: fitted.sizes_tokens,
                repetitions,
                lang: fitted.lang,
                seed: fitted.seed,
                sizing: fitted.sizing,
                max_tokens: Some(DEFAULT_MAX_TOKENS),
            };
            let planned = plan(&config);
            Ok(session(config, planned))
        })
    }
}

impl Design for PromptLengthConfig {
    type Key = u32;

    fn code(&self) -> &'static str {
        PromptLength.code()
    }

    fn schedule(&self, book: &RunBook<u32>) -> Schedule {
        let sizing = &self.sizing;
        Schedule::Sequence {
            runs: book.specs(|run| {
                run_spec(
                    run,
                    RunRole::Measured,
                    tokens_level(run.key),
                    Some((sizing, run.key)),
                )
            }),
        }
    }

    fn report(&self, book: &RunBook<u32>) -> Report {
        let result = analyze_sized(&book.observations, &self.sizing);
        report(&result, &book.observations, &self.sizing)
    }

    fn sizing(&self) -> Option<&PromptSizing> {
        Some(&self.sizing)
    }
}

/// "+ 0.5000" or "− 0.5000": a term of a formula.
fn signed(value: f64, decimals: usize) -> String {
    let sign = if value < 0.0 { '−' } else { '+' };
    format!("{sign} {:.decimals$}", value.abs())
}

/// Like [`signed`] in scientific notation ("+ 2.00e-4"), for the tiny quadratic term.
fn signed_scientific(value: f64) -> String {
    let sign = if value < 0.0 { '−' } else { '+' };
    format!("{sign} {:.2e}", value.abs())
}

/// The prefill cost and the fitted formulas, as a note.
fn fit_note(result: &PromptLengthResult) -> Bilingual {
    let prefill = result
        .prefill_ms_per_1k_tokens
        .map_or("—".into(), |v| format!("{v:.1}"));
    let fitted = match (&result.linear, &result.quadratic) {
        (Some(l), Some(q)) => {
            let r2 = l.r_squared.map_or("—".into(), |r| format!("{r:.3}"));
            format!(
                " ttft = {:.1} {}·n (R² {r2}); ttft = {:.1} {}·n {}·n²",
                l.intercept,
                signed(l.slope, 4),
                q.intercept,
                signed(q.slope, 4),
                signed_scientific(q.quadratic),
            )
        }
        _ => String::new(),
    };
    t::PROMPT_LENGTH_NOTE_FIT.bilingual_with(&[("prefill", &prefill), ("fitted", &fitted)])
}

/// The display-neutral report of a prompt-length analysis.
pub fn report(
    result: &PromptLengthResult,
    observations: &[Observation<u32>],
    sizing: &PromptSizing,
) -> Report {
    let mut report = Report::new(PromptLength.code());
    report.verdict(
        result.verdict.code(),
        Bilingual::from_fn(|lang| result.verdict.message(lang)),
    );
    report.notes.push(fit_note(result));
    report.notes.extend(sizing.notes());
    let linear = result.linear.as_ref();
    report.number("slope-ms-per-token", linear.map(|f| f.slope));
    report.number("intercept-ms", linear.map(|f| f.intercept));
    report.number(
        "quadratic-ms-per-token2",
        result.quadratic.as_ref().map(|f| f.quadratic),
    );
    report.number("prefill-ms-per-1k", result.prefill_ms_per_1k_tokens);
    report.number("r-squared", linear.and_then(|f| f.r_squared));
    let x_source = result.x_source.unwrap_or(sizing.source);
    report.word("token-source", x_source.code());
    report.notes.push(counts_note(x_source));
    report.count("calibration-requests", Some(sizing.calibration_requests));
    let points: Vec<(f64, f64)> = observations
        .iter()
        .filter_map(|o| {
            let ttft_ms = o.sample.usable_ttft_ms()?;
            Some((
                f64::from(prompt_tokens_of(&o.sample, o.key, sizing).tokens),
                ttft_ms,
            ))
        })
        .collect();
    let mut fits = Vec::new();
    if let Some(linear) = linear {
        fits.push(FitLine::from_fit(
            t::LINEAR_FIT.bilingual(),
            linear,
            Colour::Fit,
            false,
        ));
    }
    if let Some(quadratic) = &result.quadratic {
        fits.push(FitLine::from_fit(
            t::QUADRATIC_FIT.bilingual(),
            quadratic,
            Colour::SecondFit,
            true,
        ));
    }
    report.chart = Some(Chart {
        title: t::PROMPT_LENGTH_CHART_TITLE.bilingual(),
        kind: ChartKind::Scatter,
        x: Axis::tokens(t::PROMPT_TOKENS.bilingual(), x_source),
        y: Axis::new(t::TTFT.bilingual(), Unit::Ms),
        series: vec![Series::points(
            same_text("ttft_ms"),
            Colour::Measured,
            points,
        )],
        references: Vec::new(),
        fits,
    });
    let mut columns = vec![
        Column::new(t::PLANNED_TOKENS.bilingual(), Unit::Tokens),
        Column::new(
            counted_label(&t::PROMPT_TOKENS.bilingual(), sizing.source),
            Unit::Tokens,
        ),
        Column::new(t::PROMPT_TOKENS_USAGE.bilingual(), Unit::Tokens),
        Column::new(t::RUNS.bilingual(), Unit::Count),
        Column::new(t::FAILED.bilingual(), Unit::Count),
    ];
    columns.extend(Table::summary_columns());
    let rows = result
        .levels
        .iter()
        .map(|level| {
            let mut row = vec![
                Cell::Count(u64::from(level.planned_tokens)),
                level
                    .counted_tokens
                    .map_or(Cell::Empty, |count| Cell::Count(u64::from(count.tokens))),
                Cell::number(level.mean_prompt_tokens, 0),
                Cell::count(level.runs),
                Cell::count(level.failures),
            ];
            row.extend(Table::summary_cells(level.ttft_ms.as_ref()));
            row
        })
        .collect();
    report.table = Table { columns, rows };
    report
}
