//! The experiment registry's interface: what every experiment declares, and the life of
//! one experiment from the user's fields to its report.
//!
//! ```text
//! Experiment::configure(inputs, setup) ─► Planning ──needs_counts()──► executor counts tokens
//!                                            ▲                                │
//!                                            └──────── with_counts(answers) ◄─┘
//! Planning::finish() ─► ExperimentSession ─► schedule() ─► executor runs each RunSpec
//!                              ▲                                      │
//!                              └──────────── record(Observed) ◄───────┘
//!                       report() ─► Report (verdicts, notes, figures, table, chart)
//! ```
//!
//! # Choice: a trait object per experiment
//!
//! Each experiment is a unit struct implementing [`Experiment`], listed in
//! [`super::REGISTRY`] as `&dyn Experiment`; a configured one is a
//! `Box<dyn ExperimentSession>`. A struct of function pointers would cost the same (a
//! vtable *is* one), but the trait documents each method once, and the executors and the
//! report view are written once against it instead of once per experiment (no generic code
//! monomorphized eight times in the wasm). Behind the trait object, the experiments that
//! plan their runs up front share one session type, `book::BookSession`: its four methods
//! are what each of them used to write by hand.

use thiserror::Error;

use super::params::{Inputs, ParamError, ParamSpec};
use super::report::Report;
use super::schedule::{Observed, Schedule, ScheduleKind};
use super::sizing::{CountQuery, PromptSizer, PromptSizing, SizingError, TokenCount};
use ttft_core::lang::Bilingual;
use ttft_core::lang::Lang;

/// What the executor knows when an experiment starts.
#[derive(Debug, Clone, PartialEq)]
pub struct Setup {
    /// The page's language (filler, default question).
    pub lang: Lang,
    /// Seed of nonces and interleaving: new for every experiment (the wall clock), so no
    /// earlier experiment's prompts sit in the server's cache.
    pub seed: u64,
    /// The form's model.
    pub model: String,
    /// The form's prompt (the monitor asks it).
    pub prompt: String,
    /// The server's context window for the form's model, tokens, when its metadata tells
    /// (llama.cpp `/props`, `/v1/models` entries; see [`super::counting::ContextWindows`]).
    pub context_window_tokens: Option<u32>,
    /// The windows of other models the server listed (the models experiment asks several).
    pub model_windows: Vec<(String, u32)>,
}

impl Setup {
    /// A setup with no context window known.
    pub fn new(lang: Lang, seed: u64, model: &str, prompt: &str) -> Setup {
        Setup {
            lang,
            seed,
            model: model.to_owned(),
            prompt: prompt.to_owned(),
            context_window_tokens: None,
            model_windows: Vec::new(),
        }
    }

    /// The smallest known window of `models` (each: its listed window, or the form's model's
    /// when it is the form's model or unlisted); `None` when none is known.
    pub fn window_for(&self, models: &[String]) -> Option<u32> {
        models
            .iter()
            .filter_map(|model| {
                let model = model.trim();
                let listed = self
                    .model_windows
                    .iter()
                    .find(|(id, _)| id == model)
                    .map(|(_, tokens)| *tokens);
                if model == self.model.trim() {
                    self.context_window_tokens.or(listed)
                } else {
                    listed.or(self.context_window_tokens)
                }
            })
            .min()
    }
}

/// Why an experiment cannot start.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum SetupError {
    /// A field's text cannot be used.
    #[error("{0}")]
    Param(#[from] ParamError),
    /// The sizes cannot fit the context window.
    #[error("{0}")]
    Sizing(#[from] SizingError),
}

impl SetupError {
    /// What is wrong and what to do, in `lang`.
    pub fn message(&self, lang: Lang) -> String {
        match self {
            SetupError::Param(error) => error.message(lang),
            SetupError::Sizing(error) => error.message().get(lang).to_owned(),
        }
    }
}

/// One experiment of the registry: its name, its fields, and how it is configured.
pub trait Experiment: Sync {
    /// Stable code (`prompt_length`): outcomes, URL parameter `experiment=`, `<select>`.
    fn code(&self) -> &'static str;

    /// Shown name.
    fn label(&self) -> Bilingual;

    /// One or two sentences: what it measures and why.
    fn description(&self) -> Bilingual;

    /// How its runs are scheduled.
    fn schedule_kind(&self) -> ScheduleKind;

    /// Its fields, in the order shown.
    fn params(&self) -> Vec<ParamSpec>;

    /// Parses the fields and plans; the plan may first need token counts from the server.
    fn configure(&self, inputs: &Inputs, setup: &Setup) -> Result<Planning, SetupError>;
}

/// A configured experiment in progress: its runs, what was observed, and the report.
pub trait ExperimentSession {
    /// The experiment's code.
    fn code(&self) -> &'static str;

    /// What to run.
    fn schedule(&self) -> Schedule;

    /// A finished run (any order; unknown run indexes are ignored).
    fn record(&mut self, observed: Observed);

    /// The analysis of what was recorded so far.
    fn report(&self) -> Report;
}

/// Builds the session once the sizes are known.
type Build = Box<dyn FnOnce(PromptSizing) -> Result<Box<dyn ExperimentSession>, SetupError>>;

/// An experiment being planned: it may need token counts from the server first.
pub struct Planning {
    sizer: Option<PromptSizer>,
    build: Build,
}

impl Planning {
    /// A plan that needs no counts.
    pub fn ready(session: Box<dyn ExperimentSession>) -> Planning {
        Planning {
            sizer: None,
            build: Box::new(move |_| Ok(session)),
        }
    }

    /// A plan that sizes prompts with `sizer`, then builds the session from the sizing.
    pub fn sized(
        sizer: PromptSizer,
        build: impl FnOnce(PromptSizing) -> Result<Box<dyn ExperimentSession>, SetupError> + 'static,
    ) -> Planning {
        Planning {
            sizer: Some(sizer),
            build: Box::new(build),
        }
    }

    /// Texts whose token count the server should tell; empty when the plan is ready.
    pub fn needs_counts(&self) -> &[CountQuery] {
        self.sizer.as_ref().map_or(&[], PromptSizer::needs_counts)
    }

    /// The answers to [`needs_counts`](Self::needs_counts), in its order (`None`: not
    /// counted).
    pub fn with_counts(&mut self, answers: &[Option<TokenCount>]) {
        if let Some(sizer) = &mut self.sizer {
            sizer.with_counts(answers);
        }
    }

    /// The session (with the sizing reached so far, if counting stopped early).
    pub fn finish(self) -> Result<Box<dyn ExperimentSession>, SetupError> {
        let sizing = self
            .sizer
            .map_or_else(PromptSizing::estimate, PromptSizer::finish);
        (self.build)(sizing)
    }
}

impl std::fmt::Debug for Planning {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("Planning")
            .field("sizer", &self.sizer)
            .finish_non_exhaustive()
    }
}
