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

mod book;
pub mod counting;
mod figures;

pub mod filler;
mod limits;
mod order;

pub mod params;

pub mod report;
mod sample;
pub mod timed;

pub mod schedule;

pub mod session;

pub mod sizing;

pub use limits::{MAX_PROMPT_TOKENS, MAX_REPETITIONS, MAX_STREAMS};
pub use order::{interleaved_order, run_nonce};
pub use sample::{Observation, PlannedRun, RunSample};
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
