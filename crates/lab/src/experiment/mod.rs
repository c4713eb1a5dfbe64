//! Latency experiments (issue 5): what to run, in which order, and what the results mean.
//!
//! # The registry
//!
//! Every experiment is a value in [`REGISTRY`] implementing [`Experiment`], in its own
//! file: its code, labels and description, its fields ([`params`]: defaults, bounds and the
//! parsing of what the user typed), its schedule (one of the generic kinds of
//! [`schedule`]), its analysis, and its report in a display-neutral model ([`report`]:
//! verdict sentences, notes, a table with units, a chart with series, reference lines and
//! fits). Adding an experiment is its own file plus one line in the `registry!` list below;
//! the app's executors and its one report view work on the trait ([`session`]).
//!
//! An executor drives one experiment like this (here against a made-up server that counts
//! tokens as ttft-sim does and answers in 200 ms + 0.5 ms per prompt token):
//!
//! ```
//! use ttft_core::lang::Lang;
//! use ttft_lab::experiment::params::Inputs;
//! use ttft_lab::experiment::schedule::{Observed, Schedule};
//! use ttft_lab::experiment::sizing::{CountSource, TokenCount};
//! use ttft_lab::experiment::{filler, find, RunSample, Setup};
//!
//! let experiment = find("prompt_length").expect("registered");
//! let inputs = Inputs::new().with("sizes", "100, 1k, 5k").with("repetitions", "2");
//! let setup = Setup::new(Lang::En, 42, "my-model", "");
//! let mut planning = experiment.configure(&inputs, &setup).expect("valid fields");
//! // Calibration: the plan asks how many tokens some texts are; the executor asks the
//! // server (tokenize endpoint, or usage of a max_tokens: 1 request) or answers None.
//! while !planning.needs_counts().is_empty() {
//!     let answers: Vec<_> = planning
//!         .needs_counts()
//!         .iter()
//!         .map(|query| Some(TokenCount {
//!             tokens: filler::sim_token_count(&query.text),
//!             source: CountSource::ServerTokenizer,
//!         }))
//!         .collect();
//!     planning.with_counts(&answers);
//! }
//! let mut session = planning.finish().expect("fits");
//! let Schedule::Sequence { runs } = session.schedule() else { unreachable!() };
//! for run in &runs {
//!     // Send run.prompt; record what was measured.
//!     let ttft_ms = 200.0 + 0.5 * f64::from(run.prompt_tokens.estimated);
//!     session.record(Observed { run_index: run.run_index, started_ms: 0.0, sample: RunSample::with_ttft(ttft_ms) });
//! }
//! let report = session.report();
//! assert_eq!(report.first_verdict_code(), "near_linear");
//! assert!(report.verdicts[0].text.get(Lang::En).starts_with("TTFT grows about linearly"));
//! ```
//!
//! # Plans and analyses
//!
//! Under the registry, each experiment module keeps its typed pieces:
//! - a **plan**: a list of [`PlannedRun`]s (prompt, settings, repetition) in the order to
//!   run them. Levels are interleaved (see [`interleaved_order`]) so that drift over time (a
//!   server warming up, a neighbour's load arriving) spreads over every level instead of
//!   masquerading as an effect of the varied setting. Seeds and nonces are arguments: a
//!   plan is a pure function of its configuration.
//! - an **analysis** of the observed runs ([`Observation`]: the planned run's key plus a
//!   [`RunSample`] of numbers taken from [`RunMetrics`]) into a serde-serializable result with
//!   numbers and a **verdict** whose `message(Lang)` says, in English or Simplified Chinese,
//!   what the numbers mean and what to do, and whose `code()` is its stable name.
//!
//! Prompts are written with [`filler`] in ttft-sim's token units and sized to the server's
//! own count by [`sizing`] (calibrate, then verify; clipped to the context window); every
//! plan assumes no system prompt (a system prompt adds its own tokens).
//!
//! Failed runs and non-finite measurements never enter a statistic; the results count them.
//!
//! The typed pieces can be used directly (synthetic data, tests):
//!
//! ```
//! use ttft_core::lang::Lang;
//! use ttft_lab::experiment::prompt_length::{analyze, plan, PromptLengthConfig};
//! use ttft_lab::experiment::RunSample;
//!
//! let config = PromptLengthConfig { seed: 42, ..PromptLengthConfig::default() };
//! let runs = plan(&config); // send run.prompt in this order; record each run
//! let observations: Vec<_> = runs
//!     .iter()
//!     .map(|run| {
//!         let ttft_ms = 200.0 + 0.5 * f64::from(run.sim_prompt_tokens);
//!         run.observe(RunSample::with_ttft(ttft_ms)) // or RunSample::from_timeline(&timeline)
//!     })
//!     .collect();
//! let result = analyze(&observations);
//! assert_eq!(result.prefill_ms_per_1k_tokens.map(f64::round), Some(500.0));
//! assert!(result.verdict.message(Lang::En).starts_with("TTFT grows about linearly"));
//! ```

pub mod counting;
pub mod filler;
pub mod params;
pub mod report;
pub mod schedule;
pub mod session;
pub mod sizing;

use serde::{Deserialize, Serialize};

pub use session::{Experiment, ExperimentSession, Planning, Setup, SetupError};

/// Declares each experiment's module and lists it in [`REGISTRY`]: adding an experiment is
/// its own file plus one line here.
macro_rules! registry {
    ($($module:ident :: $experiment:ident,)*) => {
        $(pub mod $module;)*

        /// Every experiment, in the order the panel lists them.
        pub static REGISTRY: &[&dyn Experiment] = &[$(&$module::$experiment),*];
    };
}

registry! {
    prompt_length::PromptLength,
    max_tokens::MaxTokens,
    models::Models,
    concurrency::Concurrency,
    cache::PrefixCache,
    tails::Tails,
    reasoning::Reasoning,
    monitor::Monitor,
}

/// The experiment with `code`, if there is one.
pub fn find(code: &str) -> Option<&'static dyn Experiment> {
    REGISTRY
        .iter()
        .copied()
        .find(|experiment| experiment.code() == code)
}

/// Largest prompt size accepted in any field, tokens: past every current context window.
pub const MAX_PROMPT_TOKENS: u32 = 2_000_000;

/// Most repetitions (runs, waves) per level, so a typo cannot start thousands of requests.
pub const MAX_REPETITIONS: u32 = 500;

/// Most streams in flight at once (concurrency levels, tails' lanes).
pub const MAX_STREAMS: u32 = 64;

use ttft_core::lang::Lang;
use ttft_core::stats::Summary;
use ttft_core::timeline::{ConnectionKind, NetworkBreakdown, RunMetrics, RunOutcome, RunTimeline};

/// The numbers of one finished run that the analyses use (all optional values are `None`
/// when the run did not produce them).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct RunSample {
    /// The run succeeded: it completed, or was stopped on purpose after the first answer.
    pub succeeded: bool,
    /// Time to the first token of any kind, ms.
    pub ttft_ms: Option<f64>,
    /// Time to the first answer token, ms.
    pub ttfa_ms: Option<f64>,
    /// Time spent thinking before the answer (first answer − first reasoning), ms.
    pub reasoning_ms: Option<f64>,
    /// Prompt tokens from usage, cached ones included.
    pub prompt_tokens: Option<u64>,
    /// Prompt tokens read from the provider's cache (usage); `None` when not reported.
    pub cached_prompt_tokens: Option<u64>,
    /// Browser queueing, `requestStart − fetchStart`, ms (Resource Timing).
    pub queueing_ms: Option<f64>,
    /// Whether the request reused a connection; `None` when the browser hid it.
    pub connection_reused: Option<bool>,
}

impl RunSample {
    /// A successful run with only a TTFT (synthetic data, tests, imports).
    pub fn with_ttft(ttft_ms: f64) -> RunSample {
        RunSample {
            succeeded: true,
            ttft_ms: Some(ttft_ms),
            ..RunSample::default()
        }
    }

    /// A failed run: it counts as a failure and enters no statistic.
    pub fn failed() -> RunSample {
        RunSample::default()
    }

    /// The numbers of a run from its metrics and (when the app could read Resource Timing)
    /// its network breakdown. `succeeded` is the app's judgement of the outcome.
    pub fn from_metrics(
        metrics: &RunMetrics,
        network: Option<&NetworkBreakdown>,
        succeeded: bool,
    ) -> RunSample {
        RunSample {
            succeeded,
            ttft_ms: metrics.ttft_ms,
            ttfa_ms: metrics.ttfa_ms,
            reasoning_ms: metrics.reasoning_ms,
            prompt_tokens: metrics.prompt_tokens,
            cached_prompt_tokens: metrics.cached_prompt_tokens,
            queueing_ms: network.and_then(|n| n.queueing_ms),
            connection_reused: network.and_then(|n| match n.connection {
                ConnectionKind::New => Some(false),
                ConnectionKind::Reused => Some(true),
                ConnectionKind::Unknown => None,
            }),
        }
    }

    /// The numbers of a finished run's record ([`ttft_core::record::RunRecord`], the one run
    /// record): it succeeded when [`RunRecord::is_ok`](ttft_core::record::RunRecord::is_ok).
    pub fn from_record(record: &ttft_core::record::RunRecord) -> RunSample {
        RunSample::from_metrics(&record.metrics, record.network.as_ref(), record.is_ok())
    }

    /// The numbers of a recorded run. It succeeded when it completed or was stopped after
    /// the first answer on purpose ("TTFT only" mode).
    pub fn from_timeline(run: &RunTimeline) -> RunSample {
        let succeeded = matches!(
            run.outcome,
            RunOutcome::Completed | RunOutcome::StoppedAfterFirstAnswer
        );
        RunSample::from_metrics(&run.metrics(), run.network.as_ref(), succeeded)
    }

    /// TTFT of a successful run, when finite.
    pub fn usable_ttft_ms(&self) -> Option<f64> {
        self.usable(self.ttft_ms)
    }

    /// TTFA of a successful run, when finite.
    pub fn usable_ttfa_ms(&self) -> Option<f64> {
        self.usable(self.ttfa_ms)
    }

    /// `value` when the run succeeded and the value is finite.
    fn usable(&self, value: Option<f64>) -> Option<f64> {
        value.filter(|v| self.succeeded && v.is_finite())
    }
}

/// One observed run: the key of the planned run it executed and what was measured.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Observation<K> {
    /// The planned run's key (the value of the varied setting).
    pub key: K,
    /// What was measured.
    #[serde(flatten)]
    pub sample: RunSample,
}

impl<K> Observation<K> {
    /// Pairs a key with a sample.
    pub fn new(key: K, sample: RunSample) -> Observation<K> {
        Observation { key, sample }
    }
}

/// One run of a plan: what to send. The app sends `prompt` as the user message (no system
/// prompt) to `model` (or the configured one when `None`) with `max_tokens`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlannedRun<K> {
    /// Position in the plan, from 0: the order to run in.
    pub run_index: usize,
    /// The value of the varied setting; copy it into the [`Observation`].
    pub key: K,
    /// Which repetition of this level, from 0.
    pub repetition: usize,
    /// The cache-busting nonce at position 0 of `prompt`, when there is one.
    pub nonce: Option<String>,
    /// The full prompt text (nonce included).
    pub prompt: String,
    /// Tokens `prompt` has under ttft-sim's counting rule (see [`filler`]).
    pub sim_prompt_tokens: u32,
    /// The model to ask, when the experiment varies it.
    pub model: Option<String>,
    /// The output limit, when the experiment sets it.
    pub max_tokens: Option<u32>,
}

impl<K: Clone> PlannedRun<K> {
    /// The observation of this run.
    pub fn observe(&self, sample: RunSample) -> Observation<K> {
        Observation::new(self.key.clone(), sample)
    }
}

/// A nonce for run `run_index` of a plan seeded with `seed`: 16 lowercase hex digits,
/// distinct for distinct `(seed, run_index)` pairs in practice (SplitMix64 output). Under
/// ttft-sim's rule it is 4 tokens; the prompt builders count it in the planned size.
pub fn run_nonce(seed: u64, run_index: usize) -> String {
    format!("{:016x}", split_mix64(seed ^ mix_index(run_index)))
}

/// Spreads an index over 64 bits (golden-ratio increment of SplitMix64).
fn mix_index(index: usize) -> u64 {
    (index as u64)
        .wrapping_add(1)
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// SplitMix64's output function: a bijection of u64 with good avalanche.
pub(crate) fn split_mix64(value: u64) -> u64 {
    let mut z = value.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The run order of `level_count` levels repeated `repetitions` times, as
/// `(level index, repetition)` pairs.
///
/// # Choice
///
/// Round `r` runs every level once, starting at level `(r + seed) mod L` and going round
/// (a cyclic Latin square): over `L` rounds every level takes every position in the round
/// exactly once, so a slow drift adds the same amount to every level's median and a
/// position effect (the first run of a round on a cold connection) hits each level equally.
/// With two levels this gives A B, B A, A B… (the classic ABBA counterbalancing).
pub fn interleaved_order(level_count: usize, repetitions: usize, seed: u64) -> Vec<(usize, usize)> {
    if level_count == 0 {
        return Vec::new();
    }
    let offset = (seed % level_count as u64) as usize;
    (0..repetitions)
        .flat_map(|round| {
            (0..level_count).map(move |step| ((round + offset + step) % level_count, round))
        })
        .collect()
}

/// Summary of finite values; `None` when there are none.
pub(crate) fn summary_of(values: &[f64]) -> Option<Summary> {
    let finite: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
    Summary::from_samples(&finite).ok().flatten()
}

/// Median of finite values (type 7); `None` when there are none.
pub(crate) fn median_of(values: &[f64]) -> Option<f64> {
    summary_of(values).map(|summary| summary.p50)
}

/// Picks the text of `lang`.
pub(crate) fn bilingual(lang: Lang, en: String, zh: String) -> String {
    lang.pick(en, zh)
}

/// Milliseconds rounded for messages ("1234 ms").
pub(crate) fn ms(value: f64) -> String {
    format!("{value:.0}")
}

/// A share in [0, 1] as a rounded percentage for messages ("85%").
pub(crate) fn percent(share: f64) -> String {
    format!("{:.0}%", share * 100.0)
}
