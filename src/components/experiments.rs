//! The experiments panel: choose an experiment, edit its parameters, run or stop it, and
//! read its progress, chart, table and verdict. Plans and analyses come from
//! `ttft_core::experiment`; running them from [`crate::experiments`]. Every chart's data is
//! also shown as a table, and exact values are on `data-*` attributes for the tests.

use leptos::prelude::*;
use serde::Serialize;
use ttft_core::chart::{
    self, runs_chart, scatter_chart, FitCurve, Reference, RunSeries, ScatterSeries,
};
use ttft_core::experiment::cache::{CacheArm, CacheConfig, CacheKey, CacheResult};
use ttft_core::experiment::concurrency::{ConcurrencyConfig, ConcurrencyKey, ConcurrencyResult};
use ttft_core::experiment::max_tokens::{MaxTokensConfig, MaxTokensResult};
use ttft_core::experiment::models::{ModelKey, ModelsConfig, ModelsResult};
use ttft_core::experiment::monitor::{
    MonitorPercentile, MonitorSchedule, MonitorStatus, MonitorThreshold, MonitorWindow,
};
use ttft_core::experiment::prompt_length::{PromptLengthConfig, PromptLengthResult};
use ttft_core::experiment::reasoning::{ReasoningConfig, ReasoningResult};
use ttft_core::experiment::tails::{TailsConfig, TailsResult};
use ttft_core::experiment::{
    cache, concurrency, max_tokens, prompt_length, reasoning, tails, Observation,
};
use ttft_core::lang::Lang;
use ttft_core::stats::{Fit, Summary};

use super::charts::{axes, frame, reference_lines, view_box};
use crate::experiments::{
    fresh_seed, ExperimentConfig, ExperimentKind, ExperimentOutcome, ExperimentReport, Experiments,
    MonitorConfig, RollingPoint,
};
use crate::form::FormState;
use crate::i18n::use_i18n;

/// Height of the experiment charts, px (viewBox units).
const CHART_HEIGHT_PX: f64 = 240.0;
/// Samples along a fitted curve.
const CURVE_SAMPLES: usize = 120;
/// Largest prompt size accepted, tokens: past every current context window.
const MAX_PROMPT_TOKENS: u32 = 2_000_000;
/// Most repetitions / runs per level, so a typo cannot start thousands of requests.
const MAX_REPETITIONS: u32 = 500;
/// Most concurrent streams in a wave.
const MAX_LEVEL: u32 = 64;

/// An input error, in English and Chinese.
type InputError = (String, String);

/// The panel's editable parameters, as typed.
#[derive(Clone, Copy)]
pub struct ExperimentParams {
    /// Which experiment.
    pub kind: RwSignal<ExperimentKind>,
    /// Prompt sizes, tokens (prompt length, models, tails).
    pub sizes_tokens: RwSignal<String>,
    /// Runs per level (or waves per level, or runs per size).
    pub repetitions: RwSignal<String>,
    /// One prompt size, tokens (max_tokens, concurrency, prefix cache).
    pub prompt_tokens: RwSignal<String>,
    /// max_tokens values to compare.
    pub max_tokens_values: RwSignal<String>,
    /// Models, comma-separated.
    pub models: RwSignal<String>,
    /// Concurrency levels.
    pub levels: RwSignal<String>,
    /// Runs kept in flight (tails).
    pub in_flight: RwSignal<String>,
    /// The reasoning question.
    pub question: RwSignal<String>,
    /// Monitor: seconds between runs.
    pub interval_s: RwSignal<String>,
    /// Monitor: seconds it lasts.
    pub duration_s: RwSignal<String>,
    /// Monitor: the threshold, ms.
    pub threshold_ms: RwSignal<String>,
    /// Monitor: runs in the rolling window.
    pub window_runs: RwSignal<String>,
}

fn join(values: &[u32]) -> String {
    values
        .iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

impl ExperimentParams {
    /// The prompt-length experiment with ttft-core's defaults.
    pub fn new() -> Self {
        let params = ExperimentParams {
            kind: RwSignal::new(ExperimentKind::PromptLength),
            sizes_tokens: RwSignal::new(String::new()),
            repetitions: RwSignal::new(String::new()),
            prompt_tokens: RwSignal::new(String::new()),
            max_tokens_values: RwSignal::new(join(&max_tokens::DEFAULT_MAX_TOKENS_VALUES)),
            models: RwSignal::new(String::new()),
            levels: RwSignal::new(join(&concurrency::DEFAULT_LEVELS)),
            in_flight: RwSignal::new(tails::DEFAULT_IN_FLIGHT.to_string()),
            // Empty: the default question in the page's language (shown as the placeholder).
            question: RwSignal::new(String::new()),
            interval_s: RwSignal::new("10".into()),
            duration_s: RwSignal::new("300".into()),
            threshold_ms: RwSignal::new("2000".into()),
            window_runs: RwSignal::new("20".into()),
        };
        params.select(ExperimentKind::PromptLength);
        params
    }

    /// Switches to `kind` and puts its defaults into the fields that differ per kind.
    pub fn select(&self, kind: ExperimentKind) {
        self.kind.set(kind);
        let (sizes, repetitions, prompt_tokens): (&[u32], usize, u32) = match kind {
            ExperimentKind::PromptLength => (
                &prompt_length::DEFAULT_PROMPT_SIZES_TOKENS,
                prompt_length::DEFAULT_REPETITIONS,
                0,
            ),
            ExperimentKind::MaxTokens => (
                &[],
                max_tokens::DEFAULT_REPETITIONS,
                max_tokens::DEFAULT_PROMPT_TOKENS,
            ),
            // Three sizes, so each model gets its own prompt-length line.
            ExperimentKind::Models => (&[100, 1_000, 5_000], 3, 0),
            ExperimentKind::Concurrency => (
                &[],
                concurrency::DEFAULT_WAVES_PER_LEVEL,
                concurrency::DEFAULT_PROMPT_TOKENS,
            ),
            ExperimentKind::PrefixCache => (
                &[],
                cache::DEFAULT_REPETITIONS,
                cache::DEFAULT_PROMPT_TOKENS,
            ),
            ExperimentKind::Tails => (
                &tails::DEFAULT_SIZES_TOKENS,
                tails::DEFAULT_RUNS_PER_SIZE,
                0,
            ),
            ExperimentKind::Reasoning => (&[], reasoning::DEFAULT_REPETITIONS, 0),
            ExperimentKind::Monitor => (&[], 0, 0),
        };
        self.sizes_tokens.set(join(sizes));
        self.repetitions.set(repetitions.to_string());
        self.prompt_tokens.set(prompt_tokens.to_string());
    }

    /// The experiment to run, or which field is wrong.
    pub fn config(&self, lang: Lang, form_model: &str) -> Result<ExperimentConfig, InputError> {
        let seed = fresh_seed();
        let repetitions = || {
            parse_count(&self.repetitions.get_untracked(), 1, MAX_REPETITIONS)
                .map(|count| count as usize)
                .map_err(|e| named("Runs per level", "每档运行次数", e))
        };
        let sizes = || {
            parse_list(&self.sizes_tokens.get_untracked(), 1, MAX_PROMPT_TOKENS)
                .map_err(|e| named("Prompt sizes (tokens)", "提示长度（token）", e))
        };
        let prompt_tokens = || {
            parse_count(&self.prompt_tokens.get_untracked(), 1, MAX_PROMPT_TOKENS)
                .map_err(|e| named("Prompt size (tokens)", "提示长度（token）", e))
        };
        Ok(match self.kind.get_untracked() {
            ExperimentKind::PromptLength => ExperimentConfig::PromptLength(PromptLengthConfig {
                sizes_tokens: sizes()?,
                repetitions: repetitions()?,
                lang,
                seed,
                ..PromptLengthConfig::default()
            }),
            ExperimentKind::MaxTokens => ExperimentConfig::MaxTokens(MaxTokensConfig {
                max_tokens_values: parse_list(
                    &self.max_tokens_values.get_untracked(),
                    1,
                    1_000_000,
                )
                .map_err(|e| named("max_tokens values", "max_tokens 取值", e))?,
                repetitions: repetitions()?,
                prompt_tokens: prompt_tokens()?,
                lang,
                seed,
                ..MaxTokensConfig::default()
            }),
            ExperimentKind::Models => {
                let mut models: Vec<String> = self
                    .models
                    .get_untracked()
                    .split(',')
                    .map(str::trim)
                    .filter(|model| !model.is_empty())
                    .map(str::to_owned)
                    .collect();
                if models.is_empty() && !form_model.trim().is_empty() {
                    models.push(form_model.trim().to_owned());
                }
                if models.is_empty() {
                    return Err(named("Models", "模型", "list at least one model".into()));
                }
                ExperimentConfig::Models(ModelsConfig {
                    models,
                    sizes_tokens: sizes()?,
                    repetitions: repetitions()?,
                    lang,
                    seed,
                    ..ModelsConfig::default()
                })
            }
            ExperimentKind::Concurrency => ExperimentConfig::Concurrency(ConcurrencyConfig {
                levels: parse_list(&self.levels.get_untracked(), 1, MAX_LEVEL)
                    .map_err(|e| named("Concurrency levels", "并发档位", e))?,
                waves_per_level: repetitions()?,
                prompt_tokens: prompt_tokens()?,
                lang,
                seed,
                ..ConcurrencyConfig::default()
            }),
            ExperimentKind::PrefixCache => ExperimentConfig::PrefixCache(CacheConfig {
                prompt_tokens: prompt_tokens()?,
                repetitions: repetitions()?,
                lang,
                seed,
                ..CacheConfig::default()
            }),
            ExperimentKind::Tails => ExperimentConfig::Tails(TailsConfig {
                sizes_tokens: sizes()?,
                runs_per_size: repetitions()?,
                in_flight: parse_count(&self.in_flight.get_untracked(), 1, MAX_LEVEL)
                    .map_err(|e| named("Runs in flight", "同时进行的运行", e))?
                    as usize,
                lang,
                seed,
                ..TailsConfig::default()
            }),
            ExperimentKind::Reasoning => {
                let mut config = ReasoningConfig::new(lang);
                let question = self.question.get_untracked();
                if !question.trim().is_empty() {
                    config.question = question;
                }
                config.repetitions = repetitions()?;
                config.seed = seed;
                ExperimentConfig::Reasoning(config)
            }
            ExperimentKind::Monitor => {
                let seconds = |text: String, en: &'static str, zh: &'static str| {
                    parse_count(&text, 1, 7 * 24 * 3600)
                        .map(f64::from)
                        .map_err(|e| named(en, zh, e))
                };
                ExperimentConfig::Monitor(MonitorConfig {
                    schedule: MonitorSchedule {
                        interval_s: seconds(
                            self.interval_s.get_untracked(),
                            "Every (s)",
                            "间隔（秒）",
                        )?,
                        duration_s: seconds(
                            self.duration_s.get_untracked(),
                            "For (s)",
                            "持续（秒）",
                        )?,
                    },
                    window: MonitorWindow::LastRuns {
                        runs: parse_count(&self.window_runs.get_untracked(), 1, 10_000)
                            .map_err(|e| named("Window (runs)", "窗口（次）", e))?
                            as usize,
                    },
                    threshold: MonitorThreshold {
                        percentile: MonitorPercentile::P95,
                        limit_ms: f64::from(
                            parse_count(&self.threshold_ms.get_untracked(), 1, 10_000_000)
                                .map_err(|e| named("p95 limit (ms)", "p95 限值（毫秒）", e))?,
                        ),
                    },
                    seed,
                })
            }
        })
    }
}

impl Default for ExperimentParams {
    fn default() -> Self {
        Self::new()
    }
}

fn named(en: &str, zh: &str, problem: String) -> InputError {
    (format!("{en}: {problem}"), format!("{zh}：{problem}"))
}

/// A whole number in `[min, max]`; "5k" means 5000.
fn parse_count(text: &str, min: u32, max: u32) -> Result<u32, String> {
    let trimmed = text.trim();
    let lower = trimmed.to_ascii_lowercase();
    let parsed = match lower.strip_suffix('k') {
        Some(thousands) => thousands
            .trim()
            .parse::<f64>()
            .ok()
            .map(|value| value * 1000.0)
            // "1.5k" is 1500; "1.2345k" is not a whole number of tokens.
            .filter(|value| (value - value.round()).abs() < 1e-6)
            .filter(|value| *value >= 0.0 && *value <= f64::from(u32::MAX))
            .map(|value| value.round() as u32),
        None => lower.parse::<u32>().ok(),
    };
    match parsed {
        Some(value) if (min..=max).contains(&value) => Ok(value),
        _ => Err(format!(
            "\"{trimmed}\" is not a whole number from {min} to {max}"
        )),
    }
}

/// A comma- or space-separated list of whole numbers in `[min, max]`, at least one.
fn parse_list(text: &str, min: u32, max: u32) -> Result<Vec<u32>, String> {
    let values = text
        .split(|c: char| c == ',' || c == '，' || c.is_whitespace())
        .filter(|part| !part.is_empty())
        .map(|part| parse_count(part, min, max))
        .collect::<Result<Vec<u32>, String>>()?;
    if values.is_empty() {
        return Err("give at least one value".into());
    }
    Ok(values)
}

/// The `kind` tag of a serde-tagged verdict: its stable code.
fn verdict_code<T: Serialize>(verdict: &T) -> String {
    serde_json::to_value(verdict)
        .ok()
        .and_then(|value| value.get("kind")?.as_str().map(str::to_owned))
        .unwrap_or_default()
}

fn cell_ms(value_ms: Option<f64>) -> String {
    value_ms.map_or_else(|| "—".into(), |value| format!("{value:.0}"))
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

fn attr(value: Option<f64>) -> Option<String> {
    value.filter(|v| v.is_finite()).map(|v| v.to_string())
}

fn to_chart_fit(fit: &Fit) -> chart::Fit {
    if fit.quadratic == 0.0 {
        chart::Fit::Linear {
            a: fit.intercept,
            b: fit.slope,
        }
    } else {
        chart::Fit::Quadratic {
            a: fit.intercept,
            b: fit.slope,
            c: fit.quadratic,
        }
    }
}

/// The experiments section of the page.
#[component]
pub fn ExperimentsPanel(
    /// The endpoint form: every experiment runs against its endpoint, key and model.
    form: FormState,
) -> impl IntoView {
    let i18n = use_i18n();
    let experiments = Experiments::use_or_provide();
    let params = ExperimentParams::new();
    // `experiment=` in the page URL (embedding) preselects an experiment.
    if let Some(kind) = use_context::<crate::embed::ExperimentRequest>()
        .and_then(|request| request.0)
        .and_then(|code| ExperimentKind::from_code(&code))
    {
        params.kind.set(kind);
    }
    let input_error = RwSignal::new(None::<InputError>);
    let refuse = move |error: ttft_core::measure::InputError| {
        input_error.set(Some((
            error.message(ttft_core::lang::Lang::En),
            error.message(ttft_core::lang::Lang::Zh),
        )))
    };
    let gate = crate::key_gate::use_key_gate();
    let run = move |event: web_sys::MouseEvent| {
        // Where the runs go; the key goes along only if the key gate says so.
        let target_url = match form.series_with_key(None) {
            Ok(series) => series.run.request().url.clone(),
            Err(error) => return refuse(error),
        };
        gate.request(&target_url, event.time_stamp(), move |_| {
            let lang = i18n.lang_untracked();
            let plan = match form.series_with_key(None).and_then(|keyless| {
                let key = gate.allowed_key(&keyless.run.request().url);
                form.series_with_key(key.as_deref())
            }) {
                Ok(series) => series.run,
                Err(error) => return refuse(error),
            };
            match params.config(lang, &plan.spec.model) {
                Ok(config) => {
                    input_error.set(None);
                    experiments.start(config, plan);
                }
                Err(message) => input_error.set(Some(message)),
            }
        });
    };
    view! {
        <section class="panel experiments" aria-labelledby="experiments-heading" data-testid="experiments"
            data-outcomes=move || experiments.outcomes.with(Vec::len).to_string()>
            <h2 id="experiments-heading">{move || i18n.t("Experiments", "实验")}</h2>
            <p class="meta">
                {move || i18n.t(
                    "Planned series of runs against the endpoint above; each ends with a verdict.",
                    "针对上方接口的成组运行；每个实验最后给出结论。",
                )}
            </p>
            <ParamsEditor params=params running=experiments.running />
            <div class="actions">
                <button class="primary" data-testid="exp-run" on:click=run disabled=move || experiments.running.get()>
                    {move || i18n.t("Run experiment", "运行实验")}
                </button>
                <button data-testid="exp-stop" on:click=move |_| experiments.stop() disabled=move || !experiments.running.get()>
                    {move || i18n.t("Stop", "停止")}
                </button>
                <ProgressLine experiments=experiments />
            </div>
            {move || input_error.get().map(|(en, zh)| view! {
                <p class="error" role="alert" data-testid="exp-input-error">{i18n.pick(en.clone(), zh.clone())}</p>
            })}
            {move || {
                // Captions, headers and legends are read once per render: redraw on a
                // language switch too.
                i18n.lang.track();
                experiments.report.get().map(|report| view! { <ReportView report=report /> })
            }}
            <OutcomesList outcomes=experiments.outcomes />
        </section>
    }
}

/// Run k of n, or how the last experiment ended.
#[component]
fn ProgressLine(
    /// The experiments' state.
    experiments: Experiments,
) -> impl IntoView {
    let i18n = use_i18n();
    let state = move || {
        if experiments.running.get() {
            "running"
        } else {
            match experiments
                .outcomes
                .with(|outcomes| outcomes.last().map(|o| o.complete))
            {
                Some(true) => "done",
                Some(false) => "stopped",
                None => "idle",
            }
        }
    };
    let text = move || {
        let (done, planned) = experiments.progress.get();
        match state() {
            "running" => i18n.pick(
                format!("Run {} of {planned}…", (done + 1).min(planned.max(1))),
                format!("第 {}/{planned} 次运行…", (done + 1).min(planned.max(1))),
            ),
            "done" => i18n.pick(
                format!("Done: {done} runs."),
                format!("完成：共 {done} 次运行。"),
            ),
            "stopped" => i18n.pick(
                format!("Stopped after {done} of {planned} runs; the results so far are kept."),
                format!("已在 {done}/{planned} 次运行后停止；已有结果保留。"),
            ),
            _ => String::new(),
        }
    };
    view! {
        <span
            class="status"
            role="status"
            data-testid="exp-progress"
            data-state=state
            data-done=move || experiments.progress.get().0.to_string()
            data-planned=move || experiments.progress.get().1.to_string()
        >
            {text}
        </span>
    }
}

/// One labelled text input.
#[component]
fn ParamField(
    /// Label (en, zh).
    label: (&'static str, &'static str),
    /// Test id and element id.
    id: &'static str,
    /// The value as typed.
    value: RwSignal<String>,
    /// Wide field.
    #[prop(optional)]
    wide: bool,
    /// Shown while the field is empty (en, zh).
    #[prop(optional)]
    placeholder: Option<(&'static str, &'static str)>,
) -> impl IntoView {
    let i18n = use_i18n();
    let placeholder = move || placeholder.map(|(en, zh)| i18n.t(en, zh));
    view! {
        <div class=if wide { "field wide" } else { "field" }>
            <label for=id>{move || i18n.t(label.0, label.1)}</label>
            <input
                id=id
                data-testid=id
                type="text"
                spellcheck="false"
                placeholder=placeholder
                prop:value=move || value.get()
                on:input=move |event| value.set(event_target_value(&event))
            />
        </div>
    }
}

/// The experiment choice and the parameters of the chosen one.
#[component]
fn ParamsEditor(
    /// The parameters.
    params: ExperimentParams,
    /// Whether an experiment runs (the choice is locked meanwhile).
    running: RwSignal<bool>,
) -> impl IntoView {
    let i18n = use_i18n();
    let fields = move || {
        let kind = params.kind.get();
        let repetitions_label = match kind {
            ExperimentKind::Concurrency => ("Waves per level", "每档波数"),
            ExperimentKind::Tails => ("Runs per size", "每种长度的运行次数"),
            ExperimentKind::Reasoning => ("Runs", "运行次数"),
            _ => ("Runs per level", "每档运行次数"),
        };
        let sizes = view! { <ParamField label=("Prompt sizes (tokens)", "提示长度（token）") id="exp-sizes" value=params.sizes_tokens /> };
        let reps = view! { <ParamField label=repetitions_label id="exp-repetitions" value=params.repetitions /> };
        let prompt = view! { <ParamField label=("Prompt size (tokens)", "提示长度（token）") id="exp-prompt-tokens" value=params.prompt_tokens /> };
        match kind {
            ExperimentKind::PromptLength => view! { {sizes} {reps} }.into_any(),
            ExperimentKind::MaxTokens => view! {
                <ParamField label=("max_tokens values", "max_tokens 取值") id="exp-max-tokens" value=params.max_tokens_values />
                {prompt} {reps}
            }
            .into_any(),
            ExperimentKind::Models => view! {
                <ParamField label=("Models (comma-separated)", "模型（逗号分隔）") id="exp-models" value=params.models wide=true />
                {sizes} {reps}
            }
            .into_any(),
            ExperimentKind::Concurrency => view! {
                <ParamField label=("Concurrency levels", "并发档位") id="exp-levels" value=params.levels />
                {prompt} {reps}
            }
            .into_any(),
            ExperimentKind::PrefixCache => view! { {prompt} {reps} }.into_any(),
            ExperimentKind::Tails => view! {
                {sizes} {reps}
                <ParamField label=("Runs in flight", "同时进行的运行") id="exp-in-flight" value=params.in_flight />
            }
            .into_any(),
            ExperimentKind::Reasoning => view! {
                <ParamField label=("Question", "问题") id="exp-question" value=params.question wide=true placeholder=(reasoning::DEFAULT_QUESTION_EN, reasoning::DEFAULT_QUESTION_ZH) />
                {reps}
            }
            .into_any(),
            ExperimentKind::Monitor => view! {
                <ParamField label=("Every (s)", "间隔（秒）") id="exp-interval" value=params.interval_s />
                <ParamField label=("For (s)", "持续（秒）") id="exp-duration" value=params.duration_s />
                <ParamField label=("p95 limit (ms)", "p95 限值（毫秒）") id="exp-threshold" value=params.threshold_ms />
                <ParamField label=("Window (runs)", "窗口（次）") id="exp-window" value=params.window_runs />
            }
            .into_any(),
        }
    };
    view! {
        <div class="fields">
            <div class="field">
                <label for="exp-kind">{move || i18n.t("Experiment", "实验")}</label>
                <select
                    id="exp-kind"
                    data-testid="exp-kind"
                    disabled=move || running.get()
                    prop:value=move || params.kind.get().code()
                    on:change=move |event| {
                        if let Some(kind) = ExperimentKind::from_code(&event_target_value(&event)) {
                            params.select(kind);
                        }
                    }
                >
                    {ExperimentKind::ALL
                        .iter()
                        .map(|kind| {
                            let (en, zh) = kind.label();
                            view! { <option value=kind.code()>{move || i18n.t(en, zh)}</option> }
                        })
                        .collect_view()}
                </select>
            </div>
            {fields}
        </div>
    }
}

/// The verdicts, in the page's language, with their stable codes.
#[component]
fn Verdicts(
    /// (code, English, Chinese) per verdict, most important first.
    items: Vec<(String, String, String)>,
) -> impl IntoView {
    let i18n = use_i18n();
    let first = items.first().map(|item| item.0.clone()).unwrap_or_default();
    let all = items
        .iter()
        .map(|item| item.0.clone())
        .collect::<Vec<_>>()
        .join(" ");
    view! {
        <div class="verdicts" data-testid="exp-verdict" data-verdict=first data-verdicts=all>
            {items
                .into_iter()
                .map(|(code, en, zh)| view! {
                    <p class="verdict" data-verdict=code>{move || i18n.pick(en.clone(), zh.clone())}</p>
                })
                .collect_view()}
        </div>
    }
}

/// A verdict's (code, en, zh).
fn verdict_item<T: Serialize>(
    verdict: &T,
    message: impl Fn(Lang) -> String,
) -> (String, String, String) {
    (verdict_code(verdict), message(Lang::En), message(Lang::Zh))
}

/// A plain table: the data of a chart, or a result.
#[component]
fn DataTable(
    /// Test id.
    testid: &'static str,
    /// Column headers.
    headers: Vec<String>,
    /// Cells, row by row.
    rows: Vec<Vec<String>>,
) -> impl IntoView {
    view! {
        <div class="table-scroll">
            <table class="experiment" data-testid=testid>
                <thead>
                    <tr>{headers.into_iter().map(|h| view! { <th scope="col">{h}</th> }).collect_view()}</tr>
                </thead>
                <tbody>
                    {rows
                        .into_iter()
                        .map(|row| view! { <tr>{row.into_iter().map(|c| view! { <td>{c}</td> }).collect_view()}</tr> })
                        .collect_view()}
                </tbody>
            </table>
        </div>
    }
}

/// Latency against a number (prompt tokens, streams): points per series and fitted curves.
#[component]
fn ScatterFigure(
    /// Caption.
    caption: String,
    /// (name, points) per series.
    series: Vec<(String, Vec<(f64, f64)>)>,
    /// (name, fit, colour index, dashed) per curve.
    fits: Vec<(String, chart::Fit, usize, bool)>,
) -> impl IntoView {
    let frame = frame(CHART_HEIGHT_PX, 56.0);
    let scatter_series: Vec<ScatterSeries> = series
        .iter()
        .map(|(name, points)| ScatterSeries { name, points })
        .collect();
    let curves: Vec<FitCurve> = fits
        .iter()
        .map(|(name, fit, ..)| FitCurve { name, fit: *fit })
        .collect();
    let chart = scatter_chart(&scatter_series, &curves, CURVE_SAMPLES, &frame);
    let dots = chart
        .series
        .iter()
        .enumerate()
        .map(|(index, one)| {
            let markers = one
                .markers
                .iter()
                .map(|m| view! { <circle cx=m.x_px cy=m.y_px r="3"><title>{format!("{:.0}: {:.0} ms", m.x_value, m.y_value)}</title></circle> })
                .collect_view();
            view! { <g class=format!("exp-series exp-series-{}", index % 6)>{markers}</g> }
        })
        .collect_view();
    let lines = chart
        .curves
        .iter()
        .zip(&fits)
        .map(|(curve, (_, _, colour, dashed))| {
            let class = format!(
                "exp-fit exp-series-{}{}",
                colour % 6,
                if *dashed { " dashed" } else { "" }
            );
            view! { <path class=class d=curve.path.clone()></path> }
        })
        .collect_view();
    let legend = series
        .iter()
        .enumerate()
        .map(|(index, (name, _))| (format!("exp-series-{}", index % 6), name.clone()))
        .chain(fits.iter().map(|(name, _, colour, dashed)| {
            let dash = if *dashed { " dashed" } else { "" };
            (
                format!("exp-fit exp-series-{}{dash}", colour % 6),
                name.clone(),
            )
        }))
        .map(|(class, name)| view! { <li class=class>{name}</li> })
        .collect_view();
    view! {
        <figure class="chart">
            <figcaption>{caption.clone()}</figcaption>
            <svg viewBox=view_box(&frame) role="img" aria-label=caption>
                {axes(chart.plot, &chart.x_axis, Some(&chart.y_axis))}
                {lines}
                {dots}
            </svg>
            <ul class="legend">{legend}</ul>
        </figure>
    }
}

/// Values in order (runs, repetitions) as lines, with reference lines.
#[component]
fn LinesFigure(
    /// Caption.
    caption: String,
    /// (name, values) per series; `None` breaks the line.
    series: Vec<(String, Vec<Option<f64>>)>,
    /// (name, value) horizontal lines.
    #[prop(optional)]
    references: Vec<(String, f64)>,
) -> impl IntoView {
    let frame = frame(CHART_HEIGHT_PX, 56.0);
    let run_series: Vec<RunSeries> = series
        .iter()
        .map(|(name, values_ms)| RunSeries { name, values_ms })
        .collect();
    let refs: Vec<Reference> = references
        .iter()
        .map(|(name, value)| Reference {
            name,
            value: *value,
        })
        .collect();
    let chart = runs_chart(&run_series, &refs, &frame);
    let lines = chart
        .series
        .iter()
        .enumerate()
        .map(|(index, geometry)| {
            let dots = geometry
                .markers
                .iter()
                .map(|m| view! { <circle cx=m.x_px cy=m.y_px r="3"></circle> })
                .collect_view();
            view! {
                <g class=format!("exp-series exp-series-{}", index % 6)>
                    <path d=geometry.path.clone()></path>
                    {dots}
                </g>
            }
        })
        .collect_view();
    let legend = series
        .iter()
        .enumerate()
        .map(|(index, (name, _))| view! { <li class=format!("exp-series-{}", index % 6)>{name.clone()}</li> })
        .collect_view();
    view! {
        <figure class="chart">
            <figcaption>{caption.clone()}</figcaption>
            <svg viewBox=view_box(&frame) role="img" aria-label=caption>
                {axes(chart.plot, &chart.x_axis, Some(&chart.y_axis))}
                {reference_lines(&chart.references)}
                {lines}
            </svg>
            <ul class="legend">{legend}</ul>
        </figure>
    }
}

/// The current experiment's chart, table and verdict.
#[component]
fn ReportView(
    /// What was measured and analysed so far.
    report: ExperimentReport,
) -> impl IntoView {
    match report {
        ExperimentReport::PromptLength {
            result,
            observations,
        } => view! { <PromptLengthReport result=result observations=observations /> }.into_any(),
        ExperimentReport::MaxTokens {
            result,
            observations,
        } => view! { <MaxTokensReport result=result observations=observations /> }.into_any(),
        ExperimentReport::Models {
            result,
            observations,
        } => view! { <ModelsReport result=result observations=observations /> }.into_any(),
        ExperimentReport::Concurrency {
            result,
            observations,
        } => view! { <ConcurrencyReport result=result observations=observations /> }.into_any(),
        ExperimentReport::PrefixCache {
            result,
            observations,
        } => view! { <CacheReport result=result observations=observations /> }.into_any(),
        ExperimentReport::Tails {
            result,
            observations,
        } => view! { <TailsReport result=result observations=observations /> }.into_any(),
        ExperimentReport::Reasoning {
            result,
            observations,
        } => view! { <ReasoningReport result=result observations=observations /> }.into_any(),
        ExperimentReport::Monitor {
            status,
            threshold,
            rolling,
        } => {
            view! { <MonitorReport status=status threshold=threshold rolling=rolling /> }.into_any()
        }
    }
}

/// The summary columns p50, p95, p99, min, max as cells.
fn summary_cells(summary: Option<&Summary>) -> Vec<String> {
    match summary {
        Some(s) => [s.p50, s.p95, s.p99, s.min, s.max]
            .iter()
            .map(|v| cell_ms(Some(*v)))
            .collect(),
        None => vec!["—".into(); 5],
    }
}

fn summary_headers() -> Vec<String> {
    ["p50 ms", "p95 ms", "p99 ms", "min ms", "max ms"]
        .iter()
        .map(|h| (*h).to_string())
        .collect()
}

/// Prompt length: scatter with linear and quadratic fits, per-size table, verdict.
#[component]
fn PromptLengthReport(
    /// Analysis.
    result: PromptLengthResult,
    /// Runs.
    observations: Vec<Observation<u32>>,
) -> impl IntoView {
    let i18n = use_i18n();
    let points: Vec<(f64, f64)> = observations
        .iter()
        .filter_map(|o| {
            let ttft = o.sample.usable_ttft_ms()?;
            let x = o
                .sample
                .prompt_tokens
                .map_or(f64::from(o.key), |t| t as f64);
            Some((x, ttft))
        })
        .collect();
    let mut fits = Vec::new();
    if let Some(linear) = &result.linear {
        fits.push((
            i18n.t("linear fit", "线性拟合").to_string(),
            to_chart_fit(linear),
            1,
            false,
        ));
    }
    if let Some(quadratic) = &result.quadratic {
        fits.push((
            i18n.t("quadratic fit", "二次拟合").to_string(),
            to_chart_fit(quadratic),
            2,
            true,
        ));
    }
    let mut headers = vec![
        i18n.t("planned tokens", "计划 token").to_string(),
        i18n.t("prompt tokens (usage)", "提示 token（用量）")
            .to_string(),
        i18n.t("runs", "次数").to_string(),
        i18n.t("failed", "失败").to_string(),
    ];
    headers.extend(summary_headers());
    let rows = result
        .levels
        .iter()
        .map(|level| {
            let mut row = vec![
                level.planned_tokens.to_string(),
                level
                    .mean_prompt_tokens
                    .map_or("—".into(), |t| format!("{t:.0}")),
                level.runs.to_string(),
                level.failures.to_string(),
            ];
            row.extend(summary_cells(level.ttft_ms.as_ref()));
            row
        })
        .collect();
    let fit_line = {
        let linear = result.linear.as_ref();
        let quadratic = result.quadratic.as_ref();
        let prefill = result
            .prefill_ms_per_1k_tokens
            .map_or("—".into(), |v| format!("{v:.1}"));
        let r2 = linear
            .and_then(|f| f.r_squared)
            .map_or("—".into(), |r| format!("{r:.3}"));
        let fitted = match (linear, quadratic) {
            (Some(l), Some(q)) => format!(
                "ttft = {:.1} {}·n (R² {r2}); ttft = {:.1} {}·n {}·n²",
                l.intercept,
                signed(l.slope, 4),
                q.intercept,
                signed(q.slope, 4),
                signed_scientific(q.quadratic),
            ),
            _ => String::new(),
        };
        (prefill, fitted)
    };
    let verdict = verdict_item(&result.verdict, |lang| result.verdict.message(lang));
    view! {
        <div
            class="report"
            data-testid="exp-report"
            data-kind="prompt_length"
            data-slope-ms-per-token=attr(result.linear.as_ref().map(|f| f.slope))
            data-intercept-ms=attr(result.linear.as_ref().map(|f| f.intercept))
            data-quadratic-ms-per-token2=attr(result.quadratic.as_ref().map(|f| f.quadratic))
            data-prefill-ms-per-1k=attr(result.prefill_ms_per_1k_tokens)
            data-r-squared=attr(result.linear.as_ref().and_then(|f| f.r_squared))
        >
            <Verdicts items=vec![verdict] />
            <p class="meta" data-testid="exp-prefill">
                {i18n.pick(
                    format!("Prefill cost: {} ms per 1,000 prompt tokens. {}", fit_line.0, fit_line.1),
                    format!("预填充成本：每 1000 个提示 token {} 毫秒。{}", fit_line.0, fit_line.1),
                )}
            </p>
            <div class="charts">
                <ScatterFigure
                    caption=i18n.t("TTFT (ms) against prompt tokens", "首字延迟（毫秒）与提示 token 数").to_string()
                    series=vec![("ttft_ms".to_string(), points)]
                    fits=fits
                />
            </div>
            <DataTable testid="exp-table" headers=headers rows=rows />
        </div>
    }
}

/// Values of `key` in observation order, one series per distinct key.
fn series_by_key<K: PartialEq + Clone>(
    observations: &[Observation<K>],
    keys: &[K],
    value: impl Fn(&Observation<K>) -> Option<f64>,
) -> Vec<Vec<Option<f64>>> {
    keys.iter()
        .map(|key| {
            observations
                .iter()
                .filter(|o| &o.key == key)
                .map(&value)
                .collect()
        })
        .collect()
}

/// max_tokens: TTFT per repetition at each limit, table, verdict.
#[component]
fn MaxTokensReport(
    /// Analysis.
    result: MaxTokensResult,
    /// Runs.
    observations: Vec<Observation<u32>>,
) -> impl IntoView {
    let i18n = use_i18n();
    let limits: Vec<u32> = result.levels.iter().map(|l| l.max_tokens).collect();
    let series = series_by_key(&observations, &limits, |o| o.sample.usable_ttft_ms())
        .into_iter()
        .zip(&limits)
        .map(|(values, limit)| (format!("max_tokens={limit}"), values))
        .collect();
    let mut headers = vec![
        "max_tokens".to_string(),
        i18n.t("failed", "失败").to_string(),
    ];
    headers.extend(summary_headers());
    let rows = result
        .levels
        .iter()
        .map(|level| {
            let mut row = vec![level.max_tokens.to_string(), level.failures.to_string()];
            row.extend(summary_cells(level.ttft_ms.as_ref()));
            row
        })
        .collect();
    let verdict = verdict_item(&result.verdict, |lang| result.verdict.message(lang));
    view! {
        <div
            class="report"
            data-testid="exp-report"
            data-kind="max_tokens"
            data-difference-ms=attr(result.median_difference_ms)
            data-threshold-ms=attr(result.threshold_ms)
        >
            <Verdicts items=vec![verdict] />
            <div class="charts">
                <LinesFigure
                    caption=i18n.t("TTFT (ms) per repetition, by max_tokens", "各 max_tokens 下每次重复的首字延迟（毫秒）").to_string()
                    series=series
                />
            </div>
            <DataTable testid="exp-table" headers=headers rows=rows />
        </div>
    }
}

/// Models: one prompt-length line per model, ranking table, verdict.
#[component]
fn ModelsReport(
    /// Analysis.
    result: ModelsResult,
    /// Runs.
    observations: Vec<Observation<ModelKey>>,
) -> impl IntoView {
    let i18n = use_i18n();
    let series: Vec<(String, Vec<(f64, f64)>)> = result
        .models
        .iter()
        .map(|summary| {
            let points = observations
                .iter()
                .filter(|o| o.key.model == summary.model)
                .filter_map(|o| {
                    let ttft = o.sample.usable_ttft_ms()?;
                    let x = o
                        .sample
                        .prompt_tokens
                        .map_or(f64::from(o.key.planned_tokens), |t| t as f64);
                    Some((x, ttft))
                })
                .collect();
            (summary.model.clone(), points)
        })
        .collect();
    // Each model's line takes its points' colour.
    let fits = result
        .models
        .iter()
        .enumerate()
        .filter_map(|(index, summary)| {
            summary.prompt_length_fit.as_ref().map(|fit| {
                let name = i18n.pick(
                    format!("{} (fit)", summary.model),
                    format!("{}（拟合）", summary.model),
                );
                (name, to_chart_fit(fit), index, true)
            })
        })
        .collect();
    let headers = vec![
        i18n.t("model", "模型").to_string(),
        i18n.t("rank", "排名").to_string(),
        "p50 ms".into(),
        "p95 ms".into(),
        i18n.t("runs", "次数").to_string(),
        i18n.t("failed", "失败").to_string(),
        i18n.t("prefill ms / 1k tokens", "每 1k token 预填充毫秒")
            .to_string(),
    ];
    let rows = result
        .models
        .iter()
        .map(|m| {
            vec![
                m.model.clone(),
                m.rank.map_or("—".into(), |r| r.to_string()),
                cell_ms(m.ttft_ms.as_ref().map(|s| s.p50)),
                cell_ms(m.ttft_ms.as_ref().map(|s| s.p95)),
                m.ttft_ms.as_ref().map_or(0, |s| s.count).to_string(),
                m.failures.to_string(),
                m.prefill_ms_per_1k_tokens
                    .map_or("—".into(), |v| format!("{v:.1}")),
            ]
        })
        .collect();
    let ranking = result
        .models
        .iter()
        .filter(|m| m.rank.is_some())
        .map(|m| m.model.clone())
        .collect::<Vec<_>>()
        .join(" ");
    let verdict = verdict_item(&result.verdict, |lang| result.verdict.message(lang));
    view! {
        <div class="report" data-testid="exp-report" data-kind="models" data-ranking=ranking>
            <Verdicts items=vec![verdict] />
            <div class="charts">
                <ScatterFigure
                    caption=i18n.t("TTFT (ms) against prompt tokens, per model", "各模型的首字延迟（毫秒）与提示 token 数").to_string()
                    series=series
                    fits=fits
                />
            </div>
            <DataTable testid="exp-table" headers=headers rows=rows />
        </div>
    }
}

/// Concurrency: TTFT per stream against the level, p50/p95/p99 per level, queueing.
#[component]
fn ConcurrencyReport(
    /// Analysis.
    result: ConcurrencyResult,
    /// Streams.
    observations: Vec<Observation<ConcurrencyKey>>,
) -> impl IntoView {
    let i18n = use_i18n();
    let points: Vec<(f64, f64)> = observations
        .iter()
        .filter_map(|o| Some((f64::from(o.key.level), o.sample.usable_ttft_ms()?)))
        .collect();
    let headers = vec![
        i18n.t("streams", "并发流").to_string(),
        i18n.t("waves", "波数").to_string(),
        i18n.t("failed", "失败").to_string(),
        "p50 ms".into(),
        "p95 ms".into(),
        "p99 ms".into(),
        i18n.t("server queueing (waves)", "服务器排队（波）")
            .to_string(),
        i18n.t("browser queueing (waves)", "浏览器排队（波）")
            .to_string(),
        i18n.t("max browser queueing ms", "浏览器最长排队毫秒")
            .to_string(),
    ];
    let rows = result
        .levels
        .iter()
        .map(|level| {
            let max_queueing = observations
                .iter()
                .filter(|o| o.key.level == level.level)
                .filter_map(|o| o.sample.queueing_ms)
                .reduce(f64::max);
            vec![
                level.level.to_string(),
                level.waves.to_string(),
                level.failures.to_string(),
                cell_ms(level.ttft_ms.as_ref().map(|s| s.p50)),
                cell_ms(level.ttft_ms.as_ref().map(|s| s.p95)),
                cell_ms(level.ttft_ms.as_ref().map(|s| s.p99)),
                level.waves_with_server_queueing.to_string(),
                level.waves_with_browser_queueing.to_string(),
                cell_ms(max_queueing),
            ]
        })
        .collect();
    let verdicts = result
        .verdicts
        .iter()
        .map(|v| verdict_item(v, |lang| v.message(lang)))
        .collect();
    let count = |value: Option<usize>| value.map(|v| v.to_string());
    view! {
        <div
            class="report"
            data-testid="exp-report"
            data-kind="concurrency"
            data-server-parallel=count(result.server_parallel_streams)
            data-server-first-waiting=count(result.server_first_waiting_stream)
            data-server-from-level=result.server_queueing_from_level.map(|v| v.to_string())
            data-browser-parallel=count(result.browser_parallel_streams)
            data-browser-from-level=result.browser_queueing_from_level.map(|v| v.to_string())
            data-p50-growth=attr(result.p50_growth_ratio)
        >
            <Verdicts items=verdicts />
            <div class="charts">
                <ScatterFigure
                    caption=i18n.t("TTFT (ms) of each stream against concurrent streams", "每个流的首字延迟（毫秒）与并发流数").to_string()
                    series=vec![("ttft_ms".to_string(), points)]
                    fits=Vec::new()
                />
            </div>
            <DataTable testid="exp-table" headers=headers rows=rows />
        </div>
    }
}

/// Median of the cached tokens the runs of `arm` reported.
fn median_cached_tokens(observations: &[Observation<CacheKey>], arm: CacheArm) -> Option<f64> {
    let mut cached: Vec<u64> = observations
        .iter()
        .filter(|o| o.key.arm == arm && !o.key.priming && o.sample.succeeded)
        .filter_map(|o| o.sample.cached_prompt_tokens)
        .collect();
    cached.sort_unstable();
    let middle = cached.len() / 2;
    match cached.len() {
        0 => None,
        n if n % 2 == 1 => cached.get(middle).map(|&c| c as f64),
        _ => Some((cached[middle - 1] + cached[middle]) as f64 / 2.0),
    }
}

fn arm_label(arm: CacheArm) -> (&'static str, &'static str) {
    match arm {
        CacheArm::Cold => ("cold", "冷"),
        CacheArm::Warm => ("warm", "热"),
        CacheArm::FirstTokenChanged => ("first token changed", "首 token 改变"),
    }
}

/// Prefix cache: TTFT per arm, cached tokens, hit rate, time saved, verdicts.
#[component]
fn CacheReport(
    /// Analysis.
    result: CacheResult,
    /// Runs.
    observations: Vec<Observation<CacheKey>>,
) -> impl IntoView {
    let i18n = use_i18n();
    let arms = [CacheArm::Cold, CacheArm::Warm, CacheArm::FirstTokenChanged];
    let series = arms
        .iter()
        .map(|&arm| {
            let values = observations
                .iter()
                .filter(|o| o.key.arm == arm && !o.key.priming)
                .map(|o| o.sample.usable_ttft_ms())
                .collect();
            (
                i18n.t(arm_label(arm).0, arm_label(arm).1).to_string(),
                values,
            )
        })
        .collect();
    let headers = vec![
        i18n.t("arm", "组").to_string(),
        i18n.t("failed", "失败").to_string(),
        "p50 ms".into(),
        "p95 ms".into(),
        i18n.t("cached tokens (median)", "缓存 token（中位数）")
            .to_string(),
        i18n.t("hits", "命中").to_string(),
        i18n.t("cached share", "缓存占比").to_string(),
    ];
    let rows = result
        .arms
        .iter()
        .map(|summary| {
            let (en, zh) = arm_label(summary.arm);
            vec![
                i18n.t(en, zh).to_string(),
                summary.failures.to_string(),
                cell_ms(summary.ttft_ms.as_ref().map(|s| s.p50)),
                cell_ms(summary.ttft_ms.as_ref().map(|s| s.p95)),
                median_cached_tokens(&observations, summary.arm)
                    .map_or("—".into(), |c| format!("{c:.0}")),
                format!("{}/{}", summary.runs_with_hit, summary.runs_reporting_cache),
                summary
                    .cached_token_share
                    .map_or("—".into(), |s| format!("{:.0}%", s * 100.0)),
            ]
        })
        .collect();
    let verdicts = result
        .verdicts
        .iter()
        .map(|v| verdict_item(v, |lang| v.message(lang)))
        .collect();
    let p50 = |arm: CacheArm| {
        result
            .arms
            .iter()
            .find(|a| a.arm == arm)
            .and_then(|a| a.ttft_ms.as_ref().map(|s| s.p50))
    };
    let saved = result
        .ttft_saved_ms
        .map_or("—".into(), |v| format!("{v:.0}"));
    view! {
        <div
            class="report"
            data-testid="exp-report"
            data-kind="prefix_cache"
            data-warm-cached-tokens=attr(median_cached_tokens(&observations, CacheArm::Warm))
            data-cold-cached-tokens=attr(median_cached_tokens(&observations, CacheArm::Cold))
            data-cold-p50-ms=attr(p50(CacheArm::Cold))
            data-warm-p50-ms=attr(p50(CacheArm::Warm))
            data-saved-ms=attr(result.ttft_saved_ms)
        >
            <Verdicts items=verdicts />
            <p class="meta">
                {i18n.pick(
                    format!("TTFT saved by the cache (cold p50 − warm p50): {saved} ms."),
                    format!("缓存节省的首字延迟（冷 p50 − 热 p50）：{saved} 毫秒。"),
                )}
            </p>
            <div class="charts">
                <LinesFigure
                    caption=i18n.t("TTFT (ms) per repetition, by arm", "各组每次重复的首字延迟（毫秒）").to_string()
                    series=series
                />
            </div>
            <DataTable testid="exp-table" headers=headers rows=rows />
        </div>
    }
}

/// Tails: every run's TTFT against its prompt size, percentiles per bucket, verdict.
#[component]
fn TailsReport(
    /// Analysis.
    result: TailsResult,
    /// Runs.
    observations: Vec<Observation<u32>>,
) -> impl IntoView {
    let i18n = use_i18n();
    let points: Vec<(f64, f64)> = observations
        .iter()
        .filter_map(|o| Some((f64::from(o.key), o.sample.usable_ttft_ms()?)))
        .collect();
    let headers = vec![
        i18n.t("prompt tokens", "提示 token").to_string(),
        i18n.t("runs", "次数").to_string(),
        i18n.t("failed", "失败").to_string(),
        "p50 ms".into(),
        "p95 ms".into(),
        "p99 ms".into(),
        "p99/p50".into(),
        i18n.t("two modes", "双峰").to_string(),
    ];
    let rows = result
        .buckets
        .iter()
        .map(|b| {
            vec![
                b.planned_tokens.to_string(),
                b.ttft_ms.as_ref().map_or(0, |s| s.count).to_string(),
                b.failures.to_string(),
                cell_ms(b.ttft_ms.as_ref().map(|s| s.p50)),
                cell_ms(b.ttft_ms.as_ref().map(|s| s.p95)),
                cell_ms(b.ttft_ms.as_ref().map(|s| s.p99)),
                b.p99_over_p50.map_or("—".into(), |r| format!("{r:.1}")),
                if b.bimodal() {
                    i18n.t("yes", "是")
                } else {
                    i18n.t("no", "否")
                }
                .to_string(),
            ]
        })
        .collect();
    let verdict = verdict_item(&result.verdict, |lang| result.verdict.message(lang));
    let bimodal = result.buckets.iter().any(|b| b.bimodal());
    view! {
        <div class="report" data-testid="exp-report" data-kind="tails" data-bimodal=bimodal.to_string()>
            <Verdicts items=vec![verdict] />
            <div class="charts">
                <ScatterFigure
                    caption=i18n.t("TTFT (ms) of every run against its prompt tokens", "每次运行的首字延迟（毫秒）与提示 token 数").to_string()
                    series=vec![("ttft_ms".to_string(), points)]
                    fits=Vec::new()
                />
            </div>
            <DataTable testid="exp-table" headers=headers rows=rows />
        </div>
    }
}

/// Reasoning: first reasoning and first answer per run, thinking share, verdict.
#[component]
fn ReasoningReport(
    /// Analysis.
    result: ReasoningResult,
    /// Runs.
    observations: Vec<Observation<usize>>,
) -> impl IntoView {
    let i18n = use_i18n();
    let ttfr: Vec<Option<f64>> = observations
        .iter()
        .map(|o| {
            o.sample
                .usable_ttft_ms()
                .filter(|_| o.sample.reasoning_ms.is_some())
        })
        .collect();
    let ttfa: Vec<Option<f64>> = observations
        .iter()
        .map(|o| o.sample.usable_ttfa_ms())
        .collect();
    let headers = vec![
        "#".to_string(),
        i18n.t("first reasoning ms", "首个思考 token 毫秒")
            .to_string(),
        i18n.t("first answer ms", "首个回答 token 毫秒").to_string(),
        i18n.t("reasoning ms", "思考毫秒").to_string(),
        i18n.t("reasoning share", "思考占比").to_string(),
    ];
    let rows = observations
        .iter()
        .zip(ttfr.iter().zip(&ttfa))
        .map(|(o, (r, a))| {
            let share = o
                .sample
                .reasoning_ms
                .zip(*a)
                .filter(|(_, a)| *a > 0.0)
                .map(|(r, a)| r / a);
            vec![
                (o.key + 1).to_string(),
                cell_ms(*r),
                cell_ms(*a),
                cell_ms(o.sample.reasoning_ms),
                share.map_or("—".into(), |s| format!("{:.0}%", s * 100.0)),
            ]
        })
        .collect();
    let verdict = verdict_item(&result.verdict, |lang| result.verdict.message(lang));
    view! {
        <div
            class="report"
            data-testid="exp-report"
            data-kind="reasoning"
            data-thinking-share=attr(result.thinking_share.as_ref().map(|s| s.p50))
        >
            <Verdicts items=vec![verdict] />
            <div class="charts">
                <LinesFigure
                    caption=i18n.t("First reasoning and first answer token (ms) per run", "每次运行的首个思考与首个回答 token（毫秒）").to_string()
                    series=vec![
                        (i18n.t("first reasoning", "首个思考").to_string(), ttfr),
                        (i18n.t("first answer", "首个回答").to_string(), ttfa),
                    ]
                />
            </div>
            <DataTable testid="exp-table" headers=headers rows=rows />
        </div>
    }
}

/// Monitor: rolling p50/p95/p99 with the threshold line, per-run table, verdict.
#[component]
fn MonitorReport(
    /// The rolling summary at the last run.
    status: MonitorStatus,
    /// The threshold.
    threshold: MonitorThreshold,
    /// Rolling percentiles after each run.
    rolling: Vec<RollingPoint>,
) -> impl IntoView {
    let i18n = use_i18n();
    let pick =
        |value: fn(&RollingPoint) -> Option<f64>| rolling.iter().map(value).collect::<Vec<_>>();
    let series = vec![
        ("ttft_ms".to_string(), pick(|p| p.ttft_ms)),
        ("p50".to_string(), pick(|p| p.p50_ms)),
        ("p95".to_string(), pick(|p| p.p95_ms)),
        ("p99".to_string(), pick(|p| p.p99_ms)),
    ];
    let references = vec![(
        format!(
            "{} {}",
            threshold.percentile.name(),
            i18n.t("limit", "限值")
        ),
        threshold.limit_ms,
    )];
    let headers = vec![
        "#".to_string(),
        i18n.t("started (s)", "开始（秒）").to_string(),
        "ttft_ms".into(),
        "p50 ms".into(),
        "p95 ms".into(),
        "p99 ms".into(),
    ];
    let rows = rolling
        .iter()
        .enumerate()
        .map(|(index, p)| {
            vec![
                (index + 1).to_string(),
                format!("{:.1}", p.started_ms / 1000.0),
                cell_ms(p.ttft_ms),
                cell_ms(p.p50_ms),
                cell_ms(p.p95_ms),
                cell_ms(p.p99_ms),
            ]
        })
        .collect();
    let verdict = verdict_item(&status.verdict, |lang| status.verdict.message(lang));
    view! {
        <div
            class="report"
            data-testid="exp-report"
            data-kind="monitor"
            data-runs=rolling.len().to_string()
            data-breached=status.breached.to_string()
        >
            <Verdicts items=vec![verdict] />
            <div class="charts">
                <LinesFigure
                    caption=i18n.t("Rolling TTFT percentiles (ms) per run", "每次运行后的滚动首字延迟分位数（毫秒）").to_string()
                    series=series
                    references=references
                />
            </div>
            <DataTable testid="exp-table" headers=headers rows=rows />
        </div>
    }
}

/// The verdict codes of an outcome's result (`verdict` or `verdicts`, each tagged `kind`).
fn outcome_verdicts(result: &serde_json::Value) -> String {
    let code = |verdict: &serde_json::Value| verdict.get("kind")?.as_str().map(str::to_owned);
    match (result.get("verdict"), result.get("verdicts")) {
        (Some(verdict), _) => code(verdict).unwrap_or_default(),
        (None, Some(serde_json::Value::Array(verdicts))) => verdicts
            .iter()
            .filter_map(code)
            .collect::<Vec<_>>()
            .join(", "),
        _ => String::new(),
    }
}

/// The session's finished and stopped experiments (kept for export).
#[component]
fn OutcomesList(
    /// Every experiment of the session, oldest first.
    outcomes: RwSignal<Vec<ExperimentOutcome>>,
) -> impl IntoView {
    let i18n = use_i18n();
    let rows = move || {
        outcomes
            .get()
            .iter()
            .enumerate()
            .map(|(index, outcome)| {
                let (en, zh) = ExperimentKind::from_code(&outcome.kind)
                    .map_or(("?", "?"), ExperimentKind::label);
                vec![
                    (index + 1).to_string(),
                    i18n.t(en, zh).to_string(),
                    outcome.model.clone(),
                    format!("{}/{}", outcome.runs_done, outcome.runs_planned),
                    if outcome.complete {
                        i18n.t("complete", "完成")
                    } else {
                        i18n.t("stopped", "已停止")
                    }
                    .to_string(),
                    outcome_verdicts(&outcome.result),
                ]
            })
            .collect::<Vec<_>>()
    };
    view! {
        <Show when=move || !outcomes.with(Vec::is_empty)>
            <h3>{move || i18n.t("Experiments this session", "本次会话的实验")}</h3>
            {move || {
                let headers = vec![
                    "#".to_string(),
                    i18n.t("experiment", "实验").to_string(),
                    i18n.t("model", "模型").to_string(),
                    i18n.t("runs", "次数").to_string(),
                    i18n.t("ended", "结束").to_string(),
                    i18n.t("verdict", "结论").to_string(),
                ];
                view! { <DataTable testid="exp-outcomes" headers=headers rows=rows() /> }
            }}
        </Show>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wasm_bindgen_test::wasm_bindgen_test;

    #[wasm_bindgen_test]
    fn counts_accept_thousands_and_reject_out_of_range() {
        assert_eq!(parse_count(" 400 ", 1, 1000), Ok(400));
        assert_eq!(parse_count("5k", 1, 10_000), Ok(5_000));
        assert_eq!(parse_count("1.5K", 1, 10_000), Ok(1_500));
        assert!(parse_count("0", 1, 10).is_err());
        assert!(parse_count("11", 1, 10).is_err());
        assert!(parse_count("ten", 1, 10).is_err());
        assert!(parse_count("1.2345k", 1, 10_000).is_err());
    }

    #[wasm_bindgen_test]
    fn lists_split_on_commas_and_spaces() {
        assert_eq!(
            parse_list("100, 1k 5000，10k", 1, 100_000),
            Ok(vec![100, 1_000, 5_000, 10_000])
        );
        assert!(parse_list(" , ", 1, 10).is_err());
        assert!(parse_list("1, x", 1, 10).is_err());
    }

    #[wasm_bindgen_test]
    fn verdict_codes_are_the_serde_tags() {
        let verdict = ttft_core::experiment::max_tokens::MaxTokensVerdict::NotEnoughData;
        assert_eq!(verdict_code(&verdict), "not_enough_data");
        let result =
            serde_json::json!({ "verdicts": [{ "kind": "cache_works" }, { "kind": "no_hits" }] });
        assert_eq!(outcome_verdicts(&result), "cache_works, no_hits");
    }

    #[wasm_bindgen_test]
    fn formula_terms_carry_their_sign() {
        assert_eq!(signed(-0.5, 2), "− 0.50");
        assert_eq!(signed(0.26, 1), "+ 0.3");
        assert_eq!(signed_scientific(0.0002), "+ 2.00e-4");
    }
}
