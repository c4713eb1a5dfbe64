//! Experiment 6: tails. Many runs of mixed prompt lengths, percentiles per length.
//!
//! A long prompt's prefill holds the GPU while shorter requests wait behind it
//! (head-of-line blocking), so a short prompt's TTFT becomes bimodal: fast when it arrives
//! alone, slow when it lands behind a long prefill; p95 and p99 reach 5 to 10 times p50
//! (DESIGN.md §1). Runs of one prompt length have the same prefill, so a heavy tail or two
//! modes *within* a length bucket point at something other than the prompt: queueing
//! behind others. Chunked prefill (splitting long prefills into pieces interleaved with
//! other requests' decode) lowers that tail.

use serde::{Deserialize, Serialize};

use super::book::{context_budget, plan_sized, run_spec, session, tokens_level, Design, RunBook};
use super::figures::summary_of;
use super::filler::estimated_tokens;
use super::limits::{MAX_PROMPT_TOKENS, MAX_REPETITIONS, MAX_STREAMS};
use super::order::{interleaved_order, run_nonce};
use super::params::{CountListParam, CountParam, Inputs, ParamSpec};
use super::report::{
    counted_label, same_text, Axis, Cell, Chart, ChartKind, Colour, Column, Report, Series, Table,
    Unit,
};
use super::sample::{Observation, PlannedRun};
use super::schedule::{RunRole, Schedule, ScheduleKind};
use super::session::{Experiment, Planning, Setup, SetupError};
use super::sizing::{counts_note, prompt_tokens_of, PromptSizing};
use crate::texts as t;
use ttft_core::lang::Bilingual;
use ttft_core::lang::Lang;
use ttft_core::stats::{
    BimodalityCheck, Summary, TailCheck, BIMODALITY_MIN_SAMPLES, DEFAULT_TAIL_RATIO_THRESHOLD,
};

/// Default prompt sizes, tokens: short chat turns mixed with long documents, the mix that
/// shows head-of-line blocking.
pub const DEFAULT_SIZES_TOKENS: [u32; 3] = [100, 1_000, 8_000];

/// Default runs per size: p99 needs many runs to mean anything; 30 is a floor that still
/// finishes in minutes.
pub const DEFAULT_RUNS_PER_SIZE: usize = 30;

/// Default number of runs the app keeps in flight, so that the mix competes for the server.
pub const DEFAULT_IN_FLIGHT: usize = 4;

/// Output limit of every run.
pub const DEFAULT_MAX_TOKENS: u32 = 16;

/// Two modes count only when the slow end is at least this many times the fast end
/// (p99 / min). Sarle's coefficient judges shape, not size: 900 ± 5 ms of uniform noise
/// scores about 5/9 too and crosses the threshold by chance, yet no user notices 1%. Being
/// stuck behind another prompt's prefill costs at least that prefill, so a real second mode
/// sits well beyond 1.5× the fast one.
pub const BIMODAL_MIN_SPREAD: f64 = 1.5;

/// What to run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TailsConfig {
    /// Prompt sizes (the buckets), tokens.
    pub sizes_tokens: Vec<u32>,
    /// Runs per size.
    pub runs_per_size: usize,
    /// Runs the app keeps in flight at once (it starts the next planned run when one ends).
    pub in_flight: usize,
    /// Language of the filler.
    pub lang: Lang,
    /// Seed of the nonces and of the interleaving.
    pub seed: u64,
    /// How prompts are sized to the provider's token count.
    pub sizing: PromptSizing,
    /// Output limit.
    pub max_tokens: Option<u32>,
}

impl Default for TailsConfig {
    fn default() -> Self {
        TailsConfig {
            sizes_tokens: DEFAULT_SIZES_TOKENS.to_vec(),
            runs_per_size: DEFAULT_RUNS_PER_SIZE,
            in_flight: DEFAULT_IN_FLIGHT,
            lang: Lang::En,
            seed: 0,
            sizing: PromptSizing::estimate(),
            max_tokens: Some(DEFAULT_MAX_TOKENS),
        }
    }
}

/// The plan: every size `runs_per_size` times, interleaved, each with its own nonce. The
/// key is the planned size (the bucket).
pub fn plan(config: &TailsConfig) -> Vec<PlannedRun<u32>> {
    interleaved_order(config.sizes_tokens.len(), config.runs_per_size, config.seed)
        .into_iter()
        .enumerate()
        .filter_map(|(run_index, (level, repetition))| {
            let size_tokens = *config.sizes_tokens.get(level)?;
            let nonce = run_nonce(config.seed, run_index);
            let prompt = config.sizing.prompt(size_tokens, config.lang, Some(&nonce));
            Some(PlannedRun {
                run_index,
                key: size_tokens,
                repetition,
                sim_prompt_tokens: estimated_tokens(&prompt),
                nonce: Some(nonce),
                prompt,
                model: None,
                max_tokens: config.max_tokens,
            })
        })
        .collect()
}

/// One prompt-length bucket.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TailBucket {
    /// Planned prompt size, tokens.
    pub planned_tokens: u32,
    /// Failed runs (or without a TTFT).
    pub failures: usize,
    /// TTFT, ms (p50/p95/p99 inside).
    pub ttft_ms: Option<Summary>,
    /// p99 / p50.
    pub p99_over_p50: Option<f64>,
    /// p99 / min: how far apart the fast and the slow ends are.
    pub p99_over_min: Option<f64>,
    /// p95 / p50 against [`DEFAULT_TAIL_RATIO_THRESHOLD`].
    pub tail: Option<TailCheck>,
    /// Sarle's coefficient on log TTFT; `None` below [`BIMODALITY_MIN_SAMPLES`] runs.
    pub bimodality: Option<BimodalityCheck>,
}

impl TailBucket {
    /// Whether the bucket has two modes at least [`BIMODAL_MIN_SPREAD`] apart.
    pub fn bimodal(&self) -> bool {
        self.bimodality.as_ref().is_some_and(|b| b.bimodal)
            && self
                .p99_over_min
                .is_some_and(|spread| spread >= BIMODAL_MIN_SPREAD)
    }

    /// Whether the bucket has a heavy tail or two modes far enough apart.
    pub fn flagged(&self) -> bool {
        self.tail.as_ref().is_some_and(|t| t.heavy_tail) || self.bimodal()
    }
}

/// What the runs say.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TailsResult {
    /// Per size, ascending.
    pub buckets: Vec<TailBucket>,
    /// All successful runs together (mixes sizes: not judged, shown for reference).
    pub overall_ttft_ms: Option<Summary>,
    /// The conclusion.
    pub verdict: TailsVerdict,
}

/// The conclusion of the tails experiment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TailsVerdict {
    /// No bucket has [`BIMODALITY_MIN_SAMPLES`] successful runs.
    NotEnoughData,
    /// Within every bucket p95 stays within the threshold of p50 and there is one mode.
    TightTails {
        /// The largest p95/p50 over the buckets.
        worst_p95_over_p50: f64,
    },
    /// A bucket is heavy-tailed or bimodal (see [`TailBucket::flagged`]): head-of-line
    /// blocking suspected.
    HeadOfLineSuspected {
        /// The worst flagged bucket, tokens.
        planned_tokens: u32,
        /// Its p95 / p50.
        p95_over_p50: f64,
        /// Its p99 / p50.
        p99_over_p50: f64,
        /// Whether it has two modes far enough apart.
        bimodal: bool,
    },
}

impl TailsVerdict {
    /// Stable code (the serde tag).
    pub fn code(&self) -> &'static str {
        match self {
            TailsVerdict::NotEnoughData => "not_enough_data",
            TailsVerdict::TightTails { .. } => "tight_tails",
            TailsVerdict::HeadOfLineSuspected { .. } => "head_of_line_suspected",
        }
    }

    /// What it means and what to do, in `lang`.
    pub fn message(&self, lang: Lang) -> String {
        match self {
            TailsVerdict::NotEnoughData => t::TAILS_VERDICT_NOT_ENOUGH_DATA
                .fill(lang, &[("min_runs", &BIMODALITY_MIN_SAMPLES)]),
            TailsVerdict::TightTails { worst_p95_over_p50 } => {
                let ratio = format!("{worst_p95_over_p50:.1}");
                t::TAILS_VERDICT_TIGHT_TAILS.fill(lang, &[("ratio", &ratio)])
            }
            TailsVerdict::HeadOfLineSuspected {
                planned_tokens,
                p95_over_p50,
                p99_over_p50,
                bimodal,
            } => {
                let (p95, p99) = (format!("{p95_over_p50:.1}"), format!("{p99_over_p50:.1}"));
                let modes = if *bimodal {
                    t::TAILS_VERDICT_TWO_MODES.get(lang)
                } else {
                    ""
                };
                t::TAILS_VERDICT_HEAD_OF_LINE_SUSPECTED.fill(
                    lang,
                    &[
                        ("planned_tokens", &planned_tokens),
                        ("p95", &p95),
                        ("p99", &p99),
                        ("modes", &modes),
                    ],
                )
            }
        }
    }
}

/// Analyses the runs: per-bucket percentiles, tail ratio and bimodality.
pub fn analyze(observations: &[Observation<u32>]) -> TailsResult {
    let mut sizes: Vec<u32> = observations.iter().map(|o| o.key).collect();
    sizes.sort_unstable();
    sizes.dedup();
    let buckets: Vec<TailBucket> = sizes
        .into_iter()
        .map(|size| bucket(observations, size))
        .collect();
    let all: Vec<f64> = observations
        .iter()
        .filter_map(|o| o.sample.usable_ttft_ms())
        .collect();
    let verdict = verdict(&buckets);
    TailsResult {
        buckets,
        overall_ttft_ms: summary_of(&all),
        verdict,
    }
}

/// One bucket's numbers.
fn bucket(observations: &[Observation<u32>], planned_tokens: u32) -> TailBucket {
    let runs: Vec<&Observation<u32>> = observations
        .iter()
        .filter(|o| o.key == planned_tokens)
        .collect();
    let ttfts: Vec<f64> = runs
        .iter()
        .filter_map(|o| o.sample.usable_ttft_ms())
        .collect();
    let summary = summary_of(&ttfts);
    TailBucket {
        planned_tokens,
        failures: runs.len() - ttfts.len(),
        p99_over_p50: summary
            .as_ref()
            .filter(|s| s.p50 > 0.0)
            .map(|s| s.p99 / s.p50),
        p99_over_min: summary
            .as_ref()
            .filter(|s| s.min > 0.0)
            .map(|s| s.p99 / s.min),
        tail: summary
            .as_ref()
            .filter(|s| s.count >= BIMODALITY_MIN_SAMPLES)
            .and_then(|s| TailCheck::from_summary(s, DEFAULT_TAIL_RATIO_THRESHOLD)),
        bimodality: BimodalityCheck::from_samples(&ttfts).ok().flatten(),
        ttft_ms: summary,
    }
}

/// The rule: head-of-line blocking is suspected when a bucket with at least
/// [`BIMODALITY_MIN_SAMPLES`] runs has p95/p50 above [`DEFAULT_TAIL_RATIO_THRESHOLD`], or a
/// bimodality coefficient above 5/9 with p99/min at least [`BIMODAL_MIN_SPREAD`]; the worst
/// such bucket (highest p95/p50) is named.
fn verdict(buckets: &[TailBucket]) -> TailsVerdict {
    let judged: Vec<(&TailBucket, &TailCheck)> = buckets
        .iter()
        .filter_map(|b| Some((b, b.tail.as_ref()?)))
        .collect();
    let flagged: Vec<(&TailBucket, &TailCheck)> = judged
        .iter()
        .copied()
        .filter(|(b, _)| b.flagged())
        .collect();
    if let Some((bucket, tail)) = worst(&flagged) {
        return TailsVerdict::HeadOfLineSuspected {
            planned_tokens: bucket.planned_tokens,
            p95_over_p50: tail.p95_over_p50,
            p99_over_p50: bucket.p99_over_p50.unwrap_or(tail.p95_over_p50),
            bimodal: bucket.bimodal(),
        };
    }
    match worst(&judged) {
        Some((_, tail)) => TailsVerdict::TightTails {
            worst_p95_over_p50: tail.p95_over_p50,
        },
        None => TailsVerdict::NotEnoughData,
    }
}

/// The bucket with the highest p95/p50.
fn worst<'a>(
    candidates: &[(&'a TailBucket, &'a TailCheck)],
) -> Option<(&'a TailBucket, &'a TailCheck)> {
    candidates
        .iter()
        .copied()
        .max_by(|a, b| a.1.p95_over_p50.total_cmp(&b.1.p95_over_p50))
}

/// The prompt sizes field.
pub const SIZES: CountListParam = CountListParam {
    id: "sizes",
    label: t::PARAM_PROMPT_SIZES,
    min: 1,
    max: MAX_PROMPT_TOKENS,
    default: &DEFAULT_SIZES_TOKENS,
};

/// The runs per size field.
pub const RUNS_PER_SIZE: CountParam = CountParam {
    id: "repetitions",
    label: t::PARAM_RUNS_PER_SIZE,
    min: 1,
    max: MAX_REPETITIONS,
    default: DEFAULT_RUNS_PER_SIZE as u32,
};

/// The runs in flight field.
pub const IN_FLIGHT: CountParam = CountParam {
    id: "in-flight",
    label: t::PARAM_RUNS_IN_FLIGHT,
    min: 1,
    max: MAX_STREAMS,
    default: DEFAULT_IN_FLIGHT as u32,
};

/// The tails experiment in the registry.
#[derive(Debug, Clone, Copy)]
pub struct Tails;

impl Experiment for Tails {
    fn code(&self) -> &'static str {
        "tails"
    }

    fn label(&self) -> Bilingual {
        t::TAILS.bilingual()
    }

    fn description(&self) -> Bilingual {
        t::TAILS_DESCRIPTION.bilingual()
    }

    fn schedule_kind(&self) -> ScheduleKind {
        ScheduleKind::Lanes
    }

    fn params(&self) -> Vec<ParamSpec> {
        vec![SIZES.spec(), RUNS_PER_SIZE.spec(), IN_FLIGHT.spec()]
    }

    fn configure(&self, inputs: &Inputs, setup: &Setup) -> Result<Planning, SetupError> {
        let requested = SIZES.read(inputs)?;
        let runs_per_size = RUNS_PER_SIZE.read(inputs)? as usize;
        let in_flight = IN_FLIGHT.read(inputs)? as usize;
        let budget = context_budget(setup.context_window_tokens, DEFAULT_MAX_TOKENS);
        plan_sized(setup, budget, &requested, move |fitted| {
            let config = TailsConfig {
                sizes_tokens: fitted.sizes_tokens,
                runs_per_size,
                in_flight,
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

impl Design for TailsConfig {
    type Key = u32;

    fn code(&self) -> &'static str {
        Tails.code()
    }

    fn schedule(&self, book: &RunBook<u32>) -> Schedule {
        let sizing = &self.sizing;
        Schedule::Lanes {
            in_flight: self.in_flight.max(1),
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
        let result = analyze(&book.observations);
        report(&result, &book.observations, &self.sizing)
    }

    fn sizing(&self) -> Option<&PromptSizing> {
        Some(&self.sizing)
    }
}

/// The display-neutral report of a tails analysis.
pub fn report(
    result: &TailsResult,
    observations: &[Observation<u32>],
    sizing: &PromptSizing,
) -> Report {
    let mut report = Report::new(Tails.code());
    report.verdict(
        result.verdict.code(),
        Bilingual::from_fn(|lang| result.verdict.message(lang)),
    );
    report.notes.extend(sizing.notes());
    report.flag("bimodal", result.buckets.iter().any(TailBucket::bimodal));
    let mut x_source = None;
    let points: Vec<(f64, f64)> = observations
        .iter()
        .filter_map(|o| {
            let ttft_ms = o.sample.usable_ttft_ms()?;
            let count = prompt_tokens_of(&o.sample, o.key, sizing);
            x_source = x_source.max(Some(count.source));
            Some((f64::from(count.tokens), ttft_ms))
        })
        .collect();
    let x_source = x_source.unwrap_or(sizing.source);
    report.word("token-source", x_source.code());
    report.notes.push(counts_note(x_source));
    report.chart = Some(Chart {
        title: t::TAILS_CHART_TITLE.bilingual(),
        kind: ChartKind::Scatter,
        x: Axis::tokens(t::PROMPT_TOKENS.bilingual(), x_source),
        y: Axis::new(t::TTFT.bilingual(), Unit::Ms),
        series: vec![Series::points(
            same_text("ttft_ms"),
            Colour::Measured,
            points,
        )],
        references: Vec::new(),
        fits: Vec::new(),
    });
    let columns = vec![
        Column::new(t::PROMPT_TOKENS.bilingual(), Unit::Tokens),
        Column::new(t::RUNS.bilingual(), Unit::Count),
        Column::new(t::FAILED.bilingual(), Unit::Count),
        Column::new(same_text("p50"), Unit::Ms),
        Column::new(same_text("p95"), Unit::Ms),
        Column::new(same_text("p99"), Unit::Ms),
        Column::new(same_text("p99/p50"), Unit::Ratio),
        Column::new(t::TWO_MODES.bilingual(), Unit::None),
        Column::new(
            counted_label(&t::PROMPT_TOKENS.bilingual(), sizing.source),
            Unit::Tokens,
        ),
    ];
    let rows = result
        .buckets
        .iter()
        .map(|b| {
            vec![
                Cell::Count(u64::from(b.planned_tokens)),
                Cell::count(b.ttft_ms.as_ref().map_or(0, |s| s.count)),
                Cell::count(b.failures),
                Cell::ms(b.ttft_ms.as_ref().map(|s| s.p50)),
                Cell::ms(b.ttft_ms.as_ref().map(|s| s.p95)),
                Cell::ms(b.ttft_ms.as_ref().map(|s| s.p99)),
                Cell::number(b.p99_over_p50, 1),
                Cell::Flag(b.bimodal()),
                sizing
                    .counted_for(b.planned_tokens)
                    .map_or(Cell::Empty, |count| Cell::Count(u64::from(count.tokens))),
            ]
        })
        .collect();
    report.table = Table { columns, rows };
    report
}
