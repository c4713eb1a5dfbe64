//! Experiment 7: reasoning. How much of the wait for the answer is thinking?
//!
//! A reasoning model first streams (or hides) its thinking; the first *answer* token comes
//! `reasoning_ms` after the first reasoning token. When the product does not show the
//! thinking, users wait the whole `ttfa_ms` with nothing on screen (DESIGN.md §1).

use serde::{Deserialize, Serialize};

use super::book::{run_spec, session, Design, RunBook};
use super::figures::{ms, percent, summary_of};
use super::filler::estimated_tokens;
use super::limits::MAX_REPETITIONS;
use super::order::run_nonce;
use super::params::{CountParam, Inputs, ParamSpec, TextParam};
use super::report::{
    same_text, Axis, Cell, Chart, ChartKind, Colour, Column, Report, Series, Table, Unit,
};
use super::sample::{Observation, PlannedRun};
use super::schedule::{RunRole, Schedule, ScheduleKind};
use super::session::{Experiment, Planning, Setup, SetupError};
use super::sizing::PromptSizing;
use crate::texts as t;
use ttft_core::lang::Bilingual;
use ttft_core::lang::Lang;
use ttft_core::request::with_nonce;
use ttft_core::stats::Summary;

/// Default runs.
pub const DEFAULT_REPETITIONS: usize = 5;

/// Thinking is said to dominate the wait when the median share of the answer wait spent
/// thinking (`reasoning_ms / ttfa_ms`) is at least one half: then showing the thinking
/// or lowering the effort moves the first visible text more than any network fix.
pub const THINKING_DOMINANT_SHARE: f64 = 0.5;

/// What to run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReasoningConfig {
    /// The question asked every run (after a nonce at position 0).
    pub question: String,
    /// Runs.
    pub repetitions: usize,
    /// Seed of the nonces.
    pub seed: u64,
    /// Output limit (reasoning tokens count against it on most providers: leave room).
    pub max_tokens: Option<u32>,
}

impl ReasoningConfig {
    /// The defaults with the question in `lang`.
    pub fn new(lang: Lang) -> ReasoningConfig {
        ReasoningConfig {
            question: t::REASONING_DEFAULT_QUESTION.get(lang).to_owned(),
            repetitions: DEFAULT_REPETITIONS,
            seed: 0,
            max_tokens: Some(4_096),
        }
    }
}

/// The plan: the question `repetitions` times, each with its own nonce. The key is the
/// repetition number.
pub fn plan(config: &ReasoningConfig) -> Vec<PlannedRun<usize>> {
    (0..config.repetitions)
        .map(|run_index| {
            let nonce = run_nonce(config.seed, run_index);
            let prompt = with_nonce(Some(&nonce), &config.question);
            PlannedRun {
                run_index,
                key: run_index,
                repetition: run_index,
                sim_prompt_tokens: estimated_tokens(&prompt),
                nonce: Some(nonce),
                prompt,
                model: None,
                max_tokens: config.max_tokens,
            }
        })
        .collect()
}

/// What the runs say.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReasoningResult {
    /// Successful runs with a first answer.
    pub runs: usize,
    /// Of those, runs that streamed reasoning before the answer.
    pub runs_with_reasoning: usize,
    /// Time to the first token of any kind (the first reasoning token when there is one), ms.
    pub ttft_ms: Option<Summary>,
    /// Time to the first answer token, ms.
    pub ttfa_ms: Option<Summary>,
    /// Thinking time before the answer, ms.
    pub reasoning_ms: Option<Summary>,
    /// Per run `reasoning_ms / ttfa_ms`: the share of the answer wait spent thinking.
    pub thinking_share: Option<Summary>,
    /// The conclusion.
    pub verdict: ReasoningVerdict,
}

/// The conclusion of the reasoning experiment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ReasoningVerdict {
    /// No successful run reached an answer.
    NotEnoughData,
    /// No run streamed reasoning text.
    NoVisibleReasoning {
        /// Median time to the first answer token, ms.
        median_ttfa_ms: f64,
    },
    /// Users wait mostly for thinking.
    MostlyThinking {
        /// Median share of the answer wait spent thinking.
        median_share: f64,
        /// Median thinking time, ms.
        median_reasoning_ms: f64,
        /// Median time to the first answer token, ms.
        median_ttfa_ms: f64,
    },
    /// Thinking is a minor part of the wait.
    ThinkingMinor {
        /// Median share of the answer wait spent thinking.
        median_share: f64,
        /// Median time to the first answer token, ms.
        median_ttfa_ms: f64,
    },
}

impl ReasoningVerdict {
    /// Stable code (the serde tag).
    pub fn code(&self) -> &'static str {
        match self {
            ReasoningVerdict::NotEnoughData => "not_enough_data",
            ReasoningVerdict::NoVisibleReasoning { .. } => "no_visible_reasoning",
            ReasoningVerdict::MostlyThinking { .. } => "mostly_thinking",
            ReasoningVerdict::ThinkingMinor { .. } => "thinking_minor",
        }
    }

    /// What it means and what to do, in `lang`.
    pub fn message(&self, lang: Lang) -> String {
        match self {
            ReasoningVerdict::NotEnoughData => {
                t::REASONING_VERDICT_NOT_ENOUGH_DATA.get(lang).to_owned()
            }
            ReasoningVerdict::NoVisibleReasoning { median_ttfa_ms } => {
                let ttfa = ms(*median_ttfa_ms);
                t::REASONING_VERDICT_NO_VISIBLE_REASONING.fill(lang, &[("ttfa", &ttfa)])
            }
            ReasoningVerdict::MostlyThinking {
                median_share,
                median_reasoning_ms,
                median_ttfa_ms,
            } => {
                let (share, thinking, ttfa) = (
                    percent(*median_share),
                    ms(*median_reasoning_ms),
                    ms(*median_ttfa_ms),
                );
                t::REASONING_VERDICT_MOSTLY_THINKING.fill(
                    lang,
                    &[("share", &share), ("ttfa", &ttfa), ("thinking", &thinking)],
                )
            }
            ReasoningVerdict::ThinkingMinor {
                median_share,
                median_ttfa_ms,
            } => {
                let (share, ttfa) = (percent(*median_share), ms(*median_ttfa_ms));
                t::REASONING_VERDICT_THINKING_MINOR
                    .fill(lang, &[("share", &share), ("ttfa", &ttfa)])
            }
        }
    }
}

/// Analyses the runs (see [`THINKING_DOMINANT_SHARE`] for the rule).
pub fn analyze<K>(observations: &[Observation<K>]) -> ReasoningResult {
    let answered: Vec<&Observation<K>> = observations
        .iter()
        .filter(|o| o.sample.usable_ttfa_ms().is_some())
        .collect();
    let collect = |value: &dyn Fn(&Observation<K>) -> Option<f64>| -> Vec<f64> {
        answered.iter().filter_map(|o| value(o)).collect()
    };
    let ttfts = collect(&|o| o.sample.usable_ttft_ms());
    let ttfas = collect(&|o| o.sample.usable_ttfa_ms());
    let reasonings = collect(&|o| o.sample.reasoning_ms.filter(|r| r.is_finite()));
    let shares = collect(&|o| {
        let ttfa_ms = o.sample.usable_ttfa_ms()?;
        let reasoning_ms = o.sample.reasoning_ms.filter(|r| r.is_finite())?;
        (ttfa_ms > 0.0).then(|| reasoning_ms / ttfa_ms)
    });
    let ttfa_ms = summary_of(&ttfas);
    let reasoning_ms = summary_of(&reasonings);
    let thinking_share = summary_of(&shares);
    let verdict = match (&ttfa_ms, &reasoning_ms, &thinking_share) {
        (None, _, _) => ReasoningVerdict::NotEnoughData,
        (Some(ttfa), Some(reasoning), Some(share)) if share.p50 >= THINKING_DOMINANT_SHARE => {
            ReasoningVerdict::MostlyThinking {
                median_share: share.p50,
                median_reasoning_ms: reasoning.p50,
                median_ttfa_ms: ttfa.p50,
            }
        }
        (Some(ttfa), _, Some(share)) => ReasoningVerdict::ThinkingMinor {
            median_share: share.p50,
            median_ttfa_ms: ttfa.p50,
        },
        (Some(ttfa), _, None) => ReasoningVerdict::NoVisibleReasoning {
            median_ttfa_ms: ttfa.p50,
        },
    };
    ReasoningResult {
        runs: answered.len(),
        runs_with_reasoning: reasonings.len(),
        ttft_ms: summary_of(&ttfts),
        ttfa_ms,
        reasoning_ms,
        thinking_share,
        verdict,
    }
}

/// Longest question accepted, characters.
pub const MAX_QUESTION_CHARS: usize = 4_000;

/// The question field (empty: the default question in the page's language).
pub const QUESTION: TextParam = TextParam {
    id: "question",
    label: t::PARAM_QUESTION,
    max_chars: MAX_QUESTION_CHARS,
    placeholder: t::REASONING_DEFAULT_QUESTION,
};

/// The runs field.
pub const REPETITIONS: CountParam = CountParam {
    id: "repetitions",
    label: t::PARAM_RUNS,
    min: 1,
    max: MAX_REPETITIONS,
    default: DEFAULT_REPETITIONS as u32,
};

/// The reasoning experiment in the registry.
#[derive(Debug, Clone, Copy)]
pub struct Reasoning;

impl Experiment for Reasoning {
    fn code(&self) -> &'static str {
        "reasoning"
    }

    fn label(&self) -> Bilingual {
        t::REASONING.bilingual()
    }

    fn description(&self) -> Bilingual {
        t::REASONING_DESCRIPTION.bilingual()
    }

    fn schedule_kind(&self) -> ScheduleKind {
        ScheduleKind::Sequence
    }

    fn params(&self) -> Vec<ParamSpec> {
        vec![QUESTION.spec(), REPETITIONS.spec()]
    }

    fn configure(&self, inputs: &Inputs, setup: &Setup) -> Result<Planning, SetupError> {
        let mut config = ReasoningConfig::new(setup.lang);
        if let Some(question) = QUESTION.read(inputs)? {
            config.question = question;
        }
        config.repetitions = REPETITIONS.read(inputs)? as usize;
        config.seed = setup.seed;
        let planned = plan(&config);
        Ok(Planning::ready(session(config, planned)))
    }
}

impl Design for ReasoningConfig {
    type Key = usize;

    fn code(&self) -> &'static str {
        Reasoning.code()
    }

    fn schedule(&self, book: &RunBook<usize>) -> Schedule {
        Schedule::Sequence {
            runs: book.specs(|run| {
                let level = t::RUN_NUMBER.bilingual_with(&[("number", &(run.key + 1))]);
                let mut spec = run_spec(run, RunRole::Measured, level, None);
                // The experiment is about thinking: ask for it even when the form does not.
                spec.ask_reasoning = true;
                spec
            }),
        }
    }

    fn report(&self, book: &RunBook<usize>) -> Report {
        let result = analyze(&book.observations);
        report(&result, &book.observations)
    }

    /// The question is the user's own, not sized: no calibration.
    fn sizing(&self) -> Option<&PromptSizing> {
        None
    }
}

/// The display-neutral report of a reasoning analysis.
pub fn report(result: &ReasoningResult, observations: &[Observation<usize>]) -> Report {
    let mut report = Report::new(Reasoning.code());
    report.verdict(
        result.verdict.code(),
        Bilingual::from_fn(|lang| result.verdict.message(lang)),
    );
    report.number(
        "thinking-share",
        result.thinking_share.as_ref().map(|s| s.p50),
    );
    let first_reasoning: Vec<Option<f64>> = observations
        .iter()
        .map(|o| {
            o.sample
                .usable_ttft_ms()
                .filter(|_| o.sample.reasoning_ms.is_some())
        })
        .collect();
    let first_answer: Vec<Option<f64>> = observations
        .iter()
        .map(|o| o.sample.usable_ttfa_ms())
        .collect();
    report.chart = Some(Chart {
        title: t::REASONING_CHART_TITLE.bilingual(),
        kind: ChartKind::Sequence,
        x: Axis::new(t::RUN.bilingual(), Unit::Count),
        y: Axis::new(t::TIME.bilingual(), Unit::Ms),
        series: vec![
            Series::values(
                t::FIRST_REASONING_SERIES.bilingual(),
                Colour::Reasoning,
                first_reasoning.clone(),
            ),
            Series::values(
                t::FIRST_ANSWER_SERIES.bilingual(),
                Colour::Answer,
                first_answer.clone(),
            ),
        ],
        references: Vec::new(),
        fits: Vec::new(),
    });
    let columns = vec![
        Column::new(same_text("#"), Unit::Count),
        Column::new(t::FIRST_REASONING_COLUMN.bilingual(), Unit::Ms),
        Column::new(t::FIRST_ANSWER_COLUMN.bilingual(), Unit::Ms),
        Column::new(t::REASONING_COLUMN.bilingual(), Unit::Ms),
        Column::new(t::REASONING_SHARE.bilingual(), Unit::Share),
    ];
    let rows = observations
        .iter()
        .zip(first_reasoning.iter().zip(&first_answer))
        .map(|(o, (reasoning, answer))| {
            let share = o
                .sample
                .reasoning_ms
                .zip(*answer)
                .filter(|(_, answer)| *answer > 0.0)
                .map(|(reasoning, answer)| reasoning / answer);
            vec![
                Cell::count(o.key + 1),
                Cell::ms(*reasoning),
                Cell::ms(*answer),
                Cell::ms(o.sample.reasoning_ms),
                Cell::share(share),
            ]
        })
        .collect();
    report.table = Table { columns, rows };
    report
}
