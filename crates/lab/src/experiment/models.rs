//! Experiment 3: several models or endpoints on the same prompt set.
//!
//! Every model gets the same prompt sizes (each prompt with its own nonce so no cache
//! favours the model that ran second); the result ranks them by median TTFT, ties broken by
//! p95, and fits a per-model prompt-length line when several sizes were run (experiment 1
//! combined with this one).

use serde::{Deserialize, Serialize};

use super::book::{context_budget, plan_sized, run_spec, session, Design, RunBook};
use super::figures::{ms, summary_of};
use super::filler::estimated_tokens;
use super::limits::{MAX_PROMPT_TOKENS, MAX_REPETITIONS};
use super::order::{interleaved_order, run_nonce};
use super::params::{CountListParam, CountParam, InputProblem, Inputs, NamesParam, ParamSpec};
use super::report::{
    same_text, Axis, Cell, Chart, ChartKind, Colour, Column, FitLine, Report, Series, Table, Unit,
};
use super::sample::{Observation, PlannedRun};
use super::schedule::{RunRole, Schedule, ScheduleKind};
use super::session::{Experiment, Planning, Setup, SetupError};
use super::sizing::{counts_note, prompt_tokens_of, PromptSizing};
use crate::texts as t;
use ttft_core::lang::Bilingual;
use ttft_core::lang::Lang;
use ttft_core::stats::{linear_fit, Fit, Summary};

/// Default prompt size when none is given, tokens.
pub const DEFAULT_PROMPT_TOKENS: u32 = 1_000;

/// Default runs per model and size.
pub const DEFAULT_REPETITIONS: usize = 5;

/// The sizes the panel's field starts with: three, so each model gets its own
/// prompt-length line.
pub const FIELD_DEFAULT_SIZES_TOKENS: [u32; 3] = [100, 1_000, 5_000];

/// The repetitions the panel's field starts with: 3 per size, so 3 sizes × 3 runs keep a
/// comparison of several models within minutes.
pub const FIELD_DEFAULT_REPETITIONS: u32 = 3;

/// Output limit of every run.
pub const DEFAULT_MAX_TOKENS: u32 = 16;

/// Most models compared at once.
pub const MAX_MODELS: usize = 16;

/// Longest model name, characters.
pub const MAX_MODEL_NAME_CHARS: usize = 200;

/// Two medians closer than this are a tie, ms: users do not tell 50 ms apart at the start
/// of an answer, and run-to-run noise over the internet is of that order.
pub const TIE_MIN_DIFFERENCE_MS: f64 = 50.0;

/// Two medians closer than this share of the faster one are a tie too: a 10% difference on
/// a few seconds is within day-to-day variation of a hosted API.
pub const TIE_RELATIVE_DIFFERENCE: f64 = 0.10;

/// Which model and prompt size a run used.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ModelKey {
    /// Model id (or an endpoint label chosen by the app).
    pub model: String,
    /// Planned prompt size, tokens.
    pub planned_tokens: u32,
}

/// What to run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelsConfig {
    /// Models (or endpoint labels) to compare.
    pub models: Vec<String>,
    /// Prompt sizes, tokens (one size, or several for a per-model prompt-length line).
    pub sizes_tokens: Vec<u32>,
    /// Runs per model and size.
    pub repetitions: usize,
    /// Language of the filler.
    pub lang: Lang,
    /// Seed of the nonces and of the interleaving.
    pub seed: u64,
    /// How prompts are sized to the provider's token count (one sizing for all models).
    pub sizing: PromptSizing,
    /// Output limit.
    pub max_tokens: Option<u32>,
}

impl Default for ModelsConfig {
    fn default() -> Self {
        ModelsConfig {
            models: Vec::new(),
            sizes_tokens: vec![DEFAULT_PROMPT_TOKENS],
            repetitions: DEFAULT_REPETITIONS,
            lang: Lang::En,
            seed: 0,
            sizing: PromptSizing::estimate(),
            max_tokens: Some(DEFAULT_MAX_TOKENS),
        }
    }
}

/// The plan: every (model, size) pair `repetitions` times, interleaved so that each round
/// visits every model once.
pub fn plan(config: &ModelsConfig) -> Vec<PlannedRun<ModelKey>> {
    let pairs: Vec<(&String, u32)> = config
        .sizes_tokens
        .iter()
        .flat_map(|&size| config.models.iter().map(move |model| (model, size)))
        .collect();
    interleaved_order(pairs.len(), config.repetitions, config.seed)
        .into_iter()
        .enumerate()
        .filter_map(|(run_index, (level, repetition))| {
            let (model, planned_tokens) = *pairs.get(level)?;
            let nonce = run_nonce(config.seed, run_index);
            let prompt = config
                .sizing
                .prompt(planned_tokens, config.lang, Some(&nonce));
            Some(PlannedRun {
                run_index,
                key: ModelKey {
                    model: model.clone(),
                    planned_tokens,
                },
                repetition,
                sim_prompt_tokens: estimated_tokens(&prompt),
                nonce: Some(nonce),
                prompt,
                model: Some(model.clone()),
                max_tokens: config.max_tokens,
            })
        })
        .collect()
}

/// One model's results.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelSummary {
    /// Model id.
    pub model: String,
    /// Rank by p50 TTFT (ties broken by p95), from 1; `None` without successful runs.
    pub rank: Option<usize>,
    /// Failed runs (or without a TTFT).
    pub failures: usize,
    /// TTFT of the successful runs (all sizes), ms.
    pub ttft_ms: Option<Summary>,
    /// TTFT against prompt tokens, when at least 3 distinct sizes succeeded.
    pub prompt_length_fit: Option<Fit>,
    /// Prefill per 1,000 prompt tokens from that fit, ms.
    pub prefill_ms_per_1k_tokens: Option<f64>,
}

/// What the runs say.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelsResult {
    /// Ranked models first (by rank), then models without successful runs, by name.
    pub models: Vec<ModelSummary>,
    /// The conclusion.
    pub verdict: ModelsVerdict,
}

/// The conclusion of the model comparison.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ModelsVerdict {
    /// No model had a successful run.
    NoSuccessfulRuns,
    /// One model is the fastest by more than the tie margin (or is the only one measured).
    Fastest {
        /// The fastest model.
        model: String,
        /// Its median TTFT, ms.
        p50_ms: f64,
        /// The second, if any.
        runner_up: Option<String>,
        /// The second's median TTFT, ms.
        runner_up_p50_ms: Option<f64>,
    },
    /// The fastest models are within the tie margin of each other.
    Tie {
        /// The tied models, fastest first.
        models: Vec<String>,
        /// The fastest median TTFT, ms.
        p50_ms: f64,
    },
}

impl ModelsVerdict {
    /// Stable code (the serde tag).
    pub fn code(&self) -> &'static str {
        match self {
            ModelsVerdict::NoSuccessfulRuns => "no_successful_runs",
            ModelsVerdict::Fastest { .. } => "fastest",
            ModelsVerdict::Tie { .. } => "tie",
        }
    }

    /// What it means and what to do, in `lang`.
    pub fn message(&self, lang: Lang) -> String {
        match self {
            ModelsVerdict::NoSuccessfulRuns => {
                t::MODELS_VERDICT_NO_SUCCESSFUL_RUNS.get(lang).to_owned()
            }
            ModelsVerdict::Fastest {
                model,
                p50_ms,
                runner_up,
                runner_up_p50_ms,
            } => {
                let fastest = ms(*p50_ms);
                match (runner_up, runner_up_p50_ms) {
                    (Some(second), Some(second_ms)) => {
                        let second_ms = ms(*second_ms);
                        t::MODELS_VERDICT_CLEAR_WINNER.fill(
                            lang,
                            &[
                                ("model", &model),
                                ("fastest", &fastest),
                                ("second_ms", &second_ms),
                                ("second", &second),
                            ],
                        )
                    }
                    _ => t::MODELS_VERDICT_SINGLE_MODEL
                        .fill(lang, &[("model", &model), ("fastest", &fastest)]),
                }
            }
            ModelsVerdict::Tie { models, p50_ms } => {
                let names = models.join(", ");
                let fastest = ms(*p50_ms);
                t::MODELS_VERDICT_TIED.fill(lang, &[("names", &names), ("fastest", &fastest)])
            }
        }
    }
}

/// Analyses the runs: per-model summaries, the ranking and the verdict. x of the
/// per-model lines is usage `prompt_tokens`, else the planned size.
pub fn analyze(observations: &[Observation<ModelKey>]) -> ModelsResult {
    analyze_sized(observations, &PromptSizing::estimate())
}

/// Like [`analyze`] for a plan sized by `sizing`: x is usage `prompt_tokens`, else the
/// server's count of the run's size, else the planned size.
fn analyze_sized(
    observations: &[Observation<ModelKey>],
    sizing: &PromptSizing,
) -> ModelsResult {
    let mut names: Vec<&String> = observations.iter().map(|o| &o.key.model).collect();
    names.sort();
    names.dedup();
    let mut models: Vec<ModelSummary> = names
        .into_iter()
        .map(|model| model_summary(observations, model, sizing))
        .collect();
    models.sort_by(|a, b| ranking_order(a, b).then_with(|| a.model.cmp(&b.model)));
    let mut rank = 0;
    for model in models.iter_mut().filter(|m| m.ttft_ms.is_some()) {
        rank += 1;
        model.rank = Some(rank);
    }
    let verdict = verdict(&models);
    ModelsResult { models, verdict }
}

/// By p50, then p95; models without runs last.
fn ranking_order(a: &ModelSummary, b: &ModelSummary) -> std::cmp::Ordering {
    match (&a.ttft_ms, &b.ttft_ms) {
        (Some(a), Some(b)) => a.p50.total_cmp(&b.p50).then(a.p95.total_cmp(&b.p95)),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => std::cmp::Ordering::Equal,
    }
}

/// One model's summary (rank filled in later).
fn model_summary(
    observations: &[Observation<ModelKey>],
    model: &str,
    sizing: &PromptSizing,
) -> ModelSummary {
    let runs: Vec<&Observation<ModelKey>> = observations
        .iter()
        .filter(|o| o.key.model == model)
        .collect();
    let points: Vec<(f64, f64)> = runs
        .iter()
        .filter_map(|o| {
            let x = prompt_tokens_of(&o.sample, o.key.planned_tokens, sizing).tokens;
            Some((f64::from(x), o.sample.usable_ttft_ms()?))
        })
        .collect();
    let ttfts: Vec<f64> = points.iter().map(|p| p.1).collect();
    let prompt_length_fit = linear_fit(&points).ok().flatten();
    ModelSummary {
        model: model.to_owned(),
        rank: None,
        failures: runs.len() - ttfts.len(),
        ttft_ms: summary_of(&ttfts),
        prefill_ms_per_1k_tokens: prompt_length_fit.as_ref().map(|fit| fit.slope * 1000.0),
        prompt_length_fit,
    }
}

/// Whether two medians are a tie (see [`TIE_MIN_DIFFERENCE_MS`], [`TIE_RELATIVE_DIFFERENCE`]).
fn tied(fastest_p50_ms: f64, other_p50_ms: f64) -> bool {
    let margin_ms = TIE_MIN_DIFFERENCE_MS.max(TIE_RELATIVE_DIFFERENCE * fastest_p50_ms);
    other_p50_ms - fastest_p50_ms < margin_ms
}

/// The verdict from the ranked summaries.
fn verdict(ranked: &[ModelSummary]) -> ModelsVerdict {
    let measured: Vec<(&String, f64)> = ranked
        .iter()
        .filter_map(|m| Some((&m.model, m.ttft_ms.as_ref()?.p50)))
        .collect();
    let Some(&(fastest, fastest_p50_ms)) = measured.first() else {
        return ModelsVerdict::NoSuccessfulRuns;
    };
    let tied_models: Vec<String> = measured
        .iter()
        .take_while(|(_, p50)| tied(fastest_p50_ms, *p50))
        .map(|(name, _)| (*name).clone())
        .collect();
    if tied_models.len() > 1 {
        return ModelsVerdict::Tie {
            models: tied_models,
            p50_ms: fastest_p50_ms,
        };
    }
    let runner_up = measured.get(1);
    ModelsVerdict::Fastest {
        model: fastest.clone(),
        p50_ms: fastest_p50_ms,
        runner_up: runner_up.map(|(name, _)| (*name).clone()),
        runner_up_p50_ms: runner_up.map(|(_, p50)| *p50),
    }
}

/// The models field.
pub const MODELS: NamesParam = NamesParam {
    id: "models",
    label: t::PARAM_MODELS,
    max_items: MAX_MODELS,
    max_chars: MAX_MODEL_NAME_CHARS,
    placeholder: t::PARAM_MODELS_PLACEHOLDER,
};

/// The prompt sizes field.
pub const SIZES: CountListParam = CountListParam {
    id: "sizes",
    label: t::PARAM_PROMPT_SIZES,
    min: 1,
    max: MAX_PROMPT_TOKENS,
    default: &FIELD_DEFAULT_SIZES_TOKENS,
};

/// The repetitions field.
pub const REPETITIONS: CountParam = CountParam {
    id: "repetitions",
    label: t::PARAM_RUNS_PER_LEVEL,
    min: 1,
    max: MAX_REPETITIONS,
    default: FIELD_DEFAULT_REPETITIONS,
};

/// The models experiment in the registry.
#[derive(Debug, Clone, Copy)]
pub struct Models;

impl Experiment for Models {
    fn code(&self) -> &'static str {
        "models"
    }

    fn label(&self) -> Bilingual {
        t::MODELS.bilingual()
    }

    fn description(&self) -> Bilingual {
        t::MODELS_DESCRIPTION.bilingual()
    }

    fn schedule_kind(&self) -> ScheduleKind {
        ScheduleKind::Sequence
    }

    fn params(&self) -> Vec<ParamSpec> {
        vec![MODELS.spec(), SIZES.spec(), REPETITIONS.spec()]
    }

    fn configure(&self, inputs: &Inputs, setup: &Setup) -> Result<Planning, SetupError> {
        let mut models = MODELS.read(inputs)?;
        if models.is_empty() && !setup.model.trim().is_empty() {
            models.push(setup.model.trim().to_owned());
        }
        if models.is_empty() {
            return Err(MODELS.error(InputProblem::Empty).into());
        }
        let requested = SIZES.read(inputs)?;
        let repetitions = REPETITIONS.read(inputs)? as usize;
        let budget = context_budget(setup.window_for(&models), DEFAULT_MAX_TOKENS);
        plan_sized(setup, budget, &requested, move |fitted| {
            let config = ModelsConfig {
                models,
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

impl Design for ModelsConfig {
    type Key = ModelKey;

    fn code(&self) -> &'static str {
        Models.code()
    }

    fn schedule(&self, book: &RunBook<ModelKey>) -> Schedule {
        let sizing = &self.sizing;
        Schedule::Sequence {
            runs: book.specs(|run| {
                let level = t::MODEL_TOKENS_LEVEL.bilingual_with(&[
                    ("model", &run.key.model),
                    ("planned_tokens", &run.key.planned_tokens),
                ]);
                run_spec(
                    run,
                    RunRole::Measured,
                    level,
                    Some((sizing, run.key.planned_tokens)),
                )
            }),
        }
    }

    fn report(&self, book: &RunBook<ModelKey>) -> Report {
        let result = analyze_sized(&book.observations, &self.sizing);
        report(&result, &book.observations, &self.sizing)
    }

    fn sizing(&self) -> Option<&PromptSizing> {
        Some(&self.sizing)
    }
}

/// The display-neutral report of a models analysis.
pub fn report(
    result: &ModelsResult,
    observations: &[Observation<ModelKey>],
    sizing: &PromptSizing,
) -> Report {
    let mut report = Report::new(Models.code());
    report.verdict(
        result.verdict.code(),
        Bilingual::from_fn(|lang| result.verdict.message(lang)),
    );
    report.notes.extend(sizing.notes());
    let ranking: Vec<&str> = result
        .models
        .iter()
        .filter(|m| m.rank.is_some())
        .map(|m| m.model.as_str())
        .collect();
    report.word("ranking", ranking.join(" "));
    let mut x_source = None;
    let series = result
        .models
        .iter()
        .enumerate()
        .map(|(index, summary)| {
            let points = observations
                .iter()
                .filter(|o| o.key.model == summary.model)
                .filter_map(|o| {
                    let ttft_ms = o.sample.usable_ttft_ms()?;
                    let count = prompt_tokens_of(&o.sample, o.key.planned_tokens, sizing);
                    x_source = x_source.max(Some(count.source));
                    Some((f64::from(count.tokens), ttft_ms))
                })
                .collect();
            Series::points(
                same_text(summary.model.clone()),
                Colour::category(index),
                points,
            )
        })
        .collect();
    // Each model's line takes its points' colour.
    let fits = result
        .models
        .iter()
        .enumerate()
        .filter_map(|(index, summary)| {
            let fit = summary.prompt_length_fit.as_ref()?;
            let name = t::MODEL_FIT.bilingual_with(&[("model", &summary.model)]);
            Some(FitLine::from_fit(name, fit, Colour::category(index), true))
        })
        .collect();
    let x_source = x_source.unwrap_or(sizing.source);
    report.word("token-source", x_source.code());
    report.notes.push(counts_note(x_source));
    report.chart = Some(Chart {
        title: t::MODELS_CHART_TITLE.bilingual(),
        kind: ChartKind::Scatter,
        x: Axis::tokens(t::PROMPT_TOKENS.bilingual(), x_source),
        y: Axis::new(t::TTFT.bilingual(), Unit::Ms),
        series,
        references: Vec::new(),
        fits,
    });
    let columns = vec![
        Column::new(t::MODEL.bilingual(), Unit::None),
        Column::new(t::RANK.bilingual(), Unit::Count),
        Column::new(same_text("p50"), Unit::Ms),
        Column::new(same_text("p95"), Unit::Ms),
        Column::new(t::RUNS.bilingual(), Unit::Count),
        Column::new(t::FAILED.bilingual(), Unit::Count),
        Column::new(t::PREFILL.bilingual(), Unit::MsPer1kTokens),
    ];
    let rows = result
        .models
        .iter()
        .map(|m| {
            vec![
                Cell::word(m.model.clone()),
                m.rank.map_or(Cell::Empty, Cell::count),
                Cell::ms(m.ttft_ms.as_ref().map(|s| s.p50)),
                Cell::ms(m.ttft_ms.as_ref().map(|s| s.p95)),
                Cell::count(m.ttft_ms.as_ref().map_or(0, |s| s.count)),
                Cell::count(m.failures),
                Cell::number(m.prefill_ms_per_1k_tokens, 1),
            ]
        })
        .collect();
    report.table = Table { columns, rows };
    report
}
