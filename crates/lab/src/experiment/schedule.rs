//! What an executor runs: planned runs in one of four generic schedules, and what it hands
//! back after each run.
//!
//! - [`Schedule::Sequence`]: one run after the other (prompt length, max_tokens, models,
//!   prefix cache, reasoning);
//! - [`Schedule::Waves`]: all runs of a wave in flight at once, the next wave when the whole
//!   wave has ended (concurrency);
//! - [`Schedule::Lanes`]: `in_flight` lanes, each taking the next run when its run ends, so
//!   that the runs compete for the server (tails);
//! - [`Schedule::Timed`]: one run at each instant of a [`MonitorSchedule`] (monitor); the
//!   executor asks [`MonitorSchedule::due`] what to do at the current time.
//!
//! The executor sends each [`RunSpec`] as a normal run (its prompt as the user message, no
//! system prompt) and records it with [`Observed`]. Runs cut short by the user's Stop are
//! not recorded: they say nothing about the endpoint.

use serde::{Deserialize, Serialize};

use super::order::run_nonce;
use super::sample::RunSample;
use super::sizing::TokenCount;
use super::timed::MonitorSchedule;
use crate::texts as t;
use ttft_core::lang::Bilingual;
use ttft_core::record::ExperimentTag;
use ttft_core::request::with_nonce;

/// Why a run is made.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunRole {
    /// A measured run: it enters the analysis.
    Measured,
    /// A run that fills the server's cache for the next run; recorded and shown, but in no
    /// statistic.
    Priming,
}

impl RunRole {
    /// Stable code (run records, `data-*` attributes).
    pub fn code(self) -> &'static str {
        match self {
            RunRole::Measured => "measured",
            RunRole::Priming => "priming",
        }
    }
}

/// The prompt's size as planned and as the server counted it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PromptTokens {
    /// The planned size in the server's tokens, when the experiment sizes prompts.
    pub target: Option<u32>,
    /// The server's count of a prompt of this size (calibration), when it counted.
    pub counted: Option<TokenCount>,
    /// The size under the filler's own rule (ttft-sim's), nonce included.
    pub estimated: u32,
}

/// One run to make.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunSpec {
    /// Position in the plan, from 0; hand it back in [`Observed`].
    pub run_index: usize,
    /// Measured or priming.
    pub role: RunRole,
    /// The varied setting's value, as shown in the runs table ("1000 tokens", "warm").
    pub level: Bilingual,
    /// The user message (nonce included).
    pub prompt: String,
    /// The cache-busting nonce at position 0 of `prompt`, when there is one.
    pub nonce: Option<String>,
    /// The model to ask; `None`: the form's.
    pub model: Option<String>,
    /// The output limit; `None`: the form's.
    pub max_tokens: Option<u32>,
    /// Ask for reasoning (effort or thinking budget per protocol) even if the form does not.
    pub ask_reasoning: bool,
    /// The prompt's size.
    pub prompt_tokens: PromptTokens,
}

impl RunSpec {
    /// The tag the run's record carries: the experiment's `code`, which of its sessions in
    /// the page (from 1), and the level as shown in English (a priming run says so).
    pub fn experiment_tag(&self, code: &str, session: u32) -> ExperimentTag {
        ExperimentTag {
            kind: code.to_owned(),
            session,
            arm: self.level.en.clone(),
        }
    }

    /// Whether the run's record is a warm-up (measured, left out of statistics): priming
    /// runs are.
    pub fn warm_up(&self) -> bool {
        self.role == RunRole::Priming
    }
}

/// The runs of a timed schedule, made one at a time: the same question after a new nonce.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TimedRuns {
    /// The question (the form's prompt).
    pub prompt: String,
    /// Seed of the nonces.
    pub seed: u64,
    /// The model; `None`: the form's.
    pub model: Option<String>,
    /// The output limit; `None`: the form's.
    pub max_tokens: Option<u32>,
}

impl TimedRuns {
    /// Run `index` of the schedule.
    pub fn run(&self, index: usize) -> RunSpec {
        let nonce = run_nonce(self.seed, index);
        let prompt = with_nonce(Some(&nonce), &self.prompt);
        RunSpec {
            run_index: index,
            role: RunRole::Measured,
            level: t::RUN_NUMBER.bilingual_with(&[("number", &(index + 1))]),
            prompt_tokens: PromptTokens {
                target: None,
                counted: None,
                estimated: super::filler::estimated_tokens(&prompt),
            },
            prompt,
            nonce: Some(nonce),
            model: self.model.clone(),
            max_tokens: self.max_tokens,
            ask_reasoning: false,
        }
    }
}

/// Which of the generic schedules an experiment uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ScheduleKind {
    /// One run after the other.
    Sequence,
    /// Concurrent waves.
    Waves,
    /// Lanes kept in flight.
    Lanes,
    /// On a timer.
    Timed,
}

/// The runs of an experiment and how to run them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Schedule {
    /// In order, one at a time.
    Sequence {
        /// The runs.
        runs: Vec<RunSpec>,
    },
    /// Each wave's runs all at once (in launch order); the next wave when it has ended.
    Waves {
        /// The waves.
        waves: Vec<Vec<RunSpec>>,
    },
    /// `in_flight` lanes; each takes the next run (in order) when its run ends.
    Lanes {
        /// Runs in flight at once.
        in_flight: usize,
        /// The runs.
        runs: Vec<RunSpec>,
    },
    /// One run at each instant of `timing`.
    Timed {
        /// When.
        timing: MonitorSchedule,
        /// What.
        runs: TimedRuns,
    },
}

impl Schedule {
    /// Which kind.
    pub fn kind(&self) -> ScheduleKind {
        match self {
            Schedule::Sequence { .. } => ScheduleKind::Sequence,
            Schedule::Waves { .. } => ScheduleKind::Waves,
            Schedule::Lanes { .. } => ScheduleKind::Lanes,
            Schedule::Timed { .. } => ScheduleKind::Timed,
        }
    }

    /// Runs planned.
    pub fn run_count(&self) -> usize {
        match self {
            Schedule::Sequence { runs } | Schedule::Lanes { runs, .. } => runs.len(),
            Schedule::Waves { waves } => waves.iter().map(Vec::len).sum(),
            Schedule::Timed { timing, .. } => timing.run_count(),
        }
    }
}

/// A finished run, handed back to the experiment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Observed {
    /// [`RunSpec::run_index`].
    pub run_index: usize,
    /// When the run started, ms after the experiment's start (the timed schedule's key).
    pub started_ms: f64,
    /// What was measured.
    pub sample: RunSample,
}
