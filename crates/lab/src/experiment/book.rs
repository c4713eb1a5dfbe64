//! The glue between an experiment that plans its runs up front and the registry, written
//! once: the [`RunBook`] of planned and observed runs, the [`Design`] each experiment's
//! configuration implements (its schedule and its report), the one session type over both
//! ([`session`]), and the sizing step most experiments start with ([`plan_sized`]).
//!
//! An experiment file keeps only what is its own: fields, plan, analysis, verdicts, report
//! and one `impl Design`. The monitor does not use it: it plans no runs (a timed schedule of
//! one prompt), keys its runs by start time, and updates a rolling window on every record.
//!
//! # Choice: a generic session, not a second trait object
//!
//! [`BookSession`] is generic over the design, so it is compiled once per experiment; each
//! copy is the four short methods every experiment used to write by hand, so the wasm holds
//! no more code than before, and the executors still see one `dyn ExperimentSession`.

use super::report::{Report, RunTally};
use super::sample::{Observation, PlannedRun};
use super::schedule::{Observed, PromptTokens, RunRole, RunSpec, Schedule};
use super::session::{ExperimentSession, Planning, Setup, SetupError};
use super::sizing::{fit_sizes, ContextBudget, PromptSizer, PromptSizing};
use crate::texts as t;
use ttft_core::lang::{Bilingual, Lang};

/// The planned runs of a session and what was observed of them.
#[derive(Debug, Clone)]
pub(crate) struct RunBook<K> {
    /// The plan, in run order (`run_index` = position).
    pub planned: Vec<PlannedRun<K>>,
    /// Observations, in the order recorded.
    pub observations: Vec<Observation<K>>,
}

impl<K: Clone> RunBook<K> {
    /// A book of `planned`.
    pub fn new(planned: Vec<PlannedRun<K>>) -> RunBook<K> {
        RunBook {
            planned,
            observations: Vec::new(),
        }
    }

    /// The planned run of `run_index`.
    pub fn planned(&self, run_index: usize) -> Option<&PlannedRun<K>> {
        self.planned
            .get(run_index)
            .filter(|run| run.run_index == run_index)
            .or_else(|| self.planned.iter().find(|run| run.run_index == run_index))
    }

    /// The run to make of each planned run, in plan order.
    pub fn specs(&self, spec: impl Fn(&PlannedRun<K>) -> RunSpec) -> Vec<RunSpec> {
        self.planned.iter().map(spec).collect()
    }

    /// Records a run; `false` when its index is not in the plan.
    pub fn record(&mut self, observed: Observed) -> bool {
        let Some(planned) = self.planned(observed.run_index) else {
            return false;
        };
        let observation = planned.observe(observed.sample);
        self.observations.push(observation);
        true
    }

    /// The requests made so far; `priming` tells priming runs.
    pub fn tally(&self, sizing: Option<&PromptSizing>, priming: impl Fn(&K) -> bool) -> RunTally {
        RunTally {
            measured: self.observations.len(),
            failed: self
                .observations
                .iter()
                .filter(|o| o.sample.usable_ttft_ms().is_none())
                .count(),
            priming: self.observations.iter().filter(|o| priming(&o.key)).count(),
            calibration_requests: sizing.map_or(0, |s| s.calibration_requests),
            planned: self.planned.len(),
        }
    }
}

/// A configured experiment whose runs are all planned before the first one starts: what
/// [`BookSession`] needs besides the book.
pub(crate) trait Design: 'static {
    /// What tells the planned runs apart (a size, a model and size, an arm…).
    type Key: Clone + 'static;

    /// The experiment's code.
    fn code(&self) -> &'static str;

    /// What to run, made of the book's planned runs.
    fn schedule(&self, book: &RunBook<Self::Key>) -> Schedule;

    /// The report of the book's observations; its tally is left to the session, so that
    /// every experiment counts its requests the same way.
    fn report(&self, book: &RunBook<Self::Key>) -> Report;

    /// How the prompts were sized, when they were: its counting requests enter the tally.
    /// Required, so that no sized experiment forgets its calibration requests.
    fn sizing(&self) -> Option<&PromptSizing>;

    /// Whether a run of `key` only primes the server (counted apart in the tally).
    fn is_priming(&self, _key: &Self::Key) -> bool {
        false
    }
}

/// The session of a [`Design`]: the design and its book.
#[derive(Debug, Clone)]
struct BookSession<D: Design> {
    design: D,
    book: RunBook<D::Key>,
}

impl<D: Design> ExperimentSession for BookSession<D> {
    fn code(&self) -> &'static str {
        self.design.code()
    }

    fn schedule(&self) -> Schedule {
        self.design.schedule(&self.book)
    }

    fn record(&mut self, observed: Observed) {
        self.book.record(observed);
    }

    fn report(&self) -> Report {
        let mut report = self.design.report(&self.book);
        report.tally = self
            .book
            .tally(self.design.sizing(), |key| self.design.is_priming(key));
        report
    }
}

/// The session of `design` running `planned` (in run order).
pub(crate) fn session<D: Design>(
    design: D,
    planned: Vec<PlannedRun<D::Key>>,
) -> Box<dyn ExperimentSession> {
    Box::new(BookSession {
        design,
        book: RunBook::new(planned),
    })
}

/// The prompt sizes of an experiment once fitted to the window and sized, with what its
/// configuration takes from the setup (the build runs after the setup is gone).
#[derive(Debug, Clone)]
pub(crate) struct Fitted {
    /// The sizes to plan, tokens: the requested ones, clipped to the window.
    pub sizes_tokens: Vec<u32>,
    /// How prompts of those sizes are written.
    pub sizing: PromptSizing,
    /// The setup's language.
    pub lang: Lang,
    /// The setup's seed.
    pub seed: u64,
}

impl Fitted {
    /// The one size of an experiment that asked for one, `requested`: fitting never drops
    /// a single size (it clips it), so the fallback is only there to need no `unwrap`.
    pub fn only(&self, requested: u32) -> u32 {
        self.sizes_tokens.first().copied().unwrap_or(requested)
    }
}

/// What a run may use of a window of `window_tokens` (when known) with `output_tokens`
/// reserved for the answer.
pub(crate) fn context_budget(
    window_tokens: Option<u32>,
    output_tokens: u32,
) -> Option<ContextBudget> {
    window_tokens.map(|window_tokens| ContextBudget {
        window_tokens,
        output_tokens,
    })
}

/// Fits `requested` prompt sizes into `budget` (when the window is known), plans their
/// calibration, and builds the session once the server has counted.
pub(crate) fn plan_sized(
    setup: &Setup,
    budget: Option<ContextBudget>,
    requested: &[u32],
    build: impl FnOnce(Fitted) -> Result<Box<dyn ExperimentSession>, SetupError> + 'static,
) -> Result<Planning, SetupError> {
    let (sizes_tokens, clips) = fit_sizes(requested, budget)?;
    let sizer = PromptSizer::new(&sizes_tokens, setup.lang, setup.seed, budget).with_clips(clips);
    let (lang, seed) = (setup.lang, setup.seed);
    Ok(Planning::sized(sizer, move |sizing| {
        build(Fitted {
            sizes_tokens,
            sizing,
            lang,
            seed,
        })
    }))
}

/// A run to make from a planned run.
pub(crate) fn run_spec<K>(
    planned: &PlannedRun<K>,
    role: RunRole,
    level: Bilingual,
    sizing: Option<(&PromptSizing, u32)>,
) -> RunSpec {
    RunSpec {
        run_index: planned.run_index,
        role,
        level,
        prompt: planned.prompt.clone(),
        nonce: planned.nonce.clone(),
        model: planned.model.clone(),
        max_tokens: planned.max_tokens,
        ask_reasoning: false,
        prompt_tokens: PromptTokens {
            target: sizing.map(|(_, target)| target),
            counted: sizing.and_then(|(sizing, target)| sizing.counted_for(target)),
            estimated: planned.sim_prompt_tokens,
        },
    }
}

/// A size level's name, "1000 tokens" in English ([`t::TOKENS_LEVEL`]).
pub(crate) fn tokens_level(tokens: u32) -> Bilingual {
    t::TOKENS_LEVEL.bilingual_with(&[("tokens", &tokens)])
}
