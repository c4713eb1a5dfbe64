//! The latency experiments (issue 5): turn ttft-core's plans into measured runs.
//!
//! ttft-core decides what to run and what the results mean
//! ([`ttft_core::experiment`]); this module only sends the planned runs through
//! [`run::measure`] (one after another, in concurrent waves, with a number kept in flight,
//! or on a timer), re-analyses after every finished run so that a stopped experiment keeps
//! an analysis of what it measured, and publishes the results in [`Experiments`] (provided
//! as context) for the panel, and for persistence and export as [`ExperimentOutcome`]s.

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::rc::Rc;
use std::time::Duration;

use futures_util::future::join_all;
use leptos::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use ttft_core::experiment::cache::{self, CacheConfig, CacheKey, CacheResult};
use ttft_core::experiment::concurrency::{
    self, ConcurrencyConfig, ConcurrencyKey, ConcurrencyResult,
};
use ttft_core::experiment::filler::TokenCalibration;
use ttft_core::experiment::max_tokens::{self, MaxTokensConfig, MaxTokensResult};
use ttft_core::experiment::models::{self, ModelKey, ModelsConfig, ModelsResult};
use ttft_core::experiment::monitor::{
    self, MonitorPercentile, MonitorSchedule, MonitorStatus, MonitorThreshold, MonitorWindow,
};
use ttft_core::experiment::prompt_length::{self, PromptLengthConfig, PromptLengthResult};
use ttft_core::experiment::reasoning::{self, ReasoningConfig, ReasoningResult};
use ttft_core::experiment::tails::{self, TailsConfig, TailsResult};
use ttft_core::experiment::{run_nonce, Observation, PlannedRun, RunSample};
use ttft_core::request::with_nonce;

use ttft_core::measure::RunPlan;
use ttft_core::record::{ExperimentTag, RunRecord};

use crate::clock;
use crate::embed::{self, Embed};
use crate::run::{self, RunControl, RunOptions};
use crate::session::Session;

/// Which experiment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExperimentKind {
    /// TTFT against prompt length, with linear and quadratic fits.
    PromptLength,
    /// Small against large `max_tokens`.
    MaxTokens,
    /// Several models on the same prompt set.
    Models,
    /// Waves of concurrent streams.
    Concurrency,
    /// Cold, warm and first-token-changed prompts.
    PrefixCache,
    /// Many runs of mixed lengths, kept in flight together.
    Tails,
    /// First reasoning against first answer.
    Reasoning,
    /// One run every N seconds, with a rolling summary.
    Monitor,
}

impl ExperimentKind {
    /// Every experiment, in the order the panel lists them.
    pub const ALL: [ExperimentKind; 8] = [
        ExperimentKind::PromptLength,
        ExperimentKind::MaxTokens,
        ExperimentKind::Models,
        ExperimentKind::Concurrency,
        ExperimentKind::PrefixCache,
        ExperimentKind::Tails,
        ExperimentKind::Reasoning,
        ExperimentKind::Monitor,
    ];

    /// Stable code (the `kind` of an [`ExperimentOutcome`], the `<select>` value).
    pub fn code(self) -> &'static str {
        match self {
            ExperimentKind::PromptLength => "prompt_length",
            ExperimentKind::MaxTokens => "max_tokens",
            ExperimentKind::Models => "models",
            ExperimentKind::Concurrency => "concurrency",
            ExperimentKind::PrefixCache => "prefix_cache",
            ExperimentKind::Tails => "tails",
            ExperimentKind::Reasoning => "reasoning",
            ExperimentKind::Monitor => "monitor",
        }
    }

    /// From a code; `None` for an unknown one.
    pub fn from_code(code: &str) -> Option<ExperimentKind> {
        ExperimentKind::ALL
            .into_iter()
            .find(|kind| kind.code() == code)
    }

    /// Shown name (en, zh).
    pub fn label(self) -> (&'static str, &'static str) {
        match self {
            ExperimentKind::PromptLength => ("Prompt length", "提示长度"),
            ExperimentKind::MaxTokens => ("max_tokens", "max_tokens"),
            ExperimentKind::Models => ("Models", "模型对比"),
            ExperimentKind::Concurrency => ("Concurrency", "并发"),
            ExperimentKind::PrefixCache => ("Prefix cache", "前缀缓存"),
            ExperimentKind::Tails => ("Tails", "长尾"),
            ExperimentKind::Reasoning => ("Reasoning", "推理"),
            ExperimentKind::Monitor => ("Monitor", "监控"),
        }
    }
}

/// The monitor's settings (ttft-core has no plan for it: the app drives the clock).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MonitorConfig {
    /// When to run.
    pub schedule: MonitorSchedule,
    /// Which runs the rolling summary covers.
    pub window: MonitorWindow,
    /// The alert threshold.
    pub threshold: MonitorThreshold,
    /// Seed of the nonce put before the form's prompt (no cache hides prefill).
    pub seed: u64,
}

/// A parsed experiment, ready to run.
#[derive(Debug, Clone, PartialEq)]
pub enum ExperimentConfig {
    /// See [`ExperimentKind::PromptLength`].
    PromptLength(PromptLengthConfig),
    /// See [`ExperimentKind::MaxTokens`].
    MaxTokens(MaxTokensConfig),
    /// See [`ExperimentKind::Models`].
    Models(ModelsConfig),
    /// See [`ExperimentKind::Concurrency`].
    Concurrency(ConcurrencyConfig),
    /// See [`ExperimentKind::PrefixCache`].
    PrefixCache(CacheConfig),
    /// See [`ExperimentKind::Tails`].
    Tails(TailsConfig),
    /// See [`ExperimentKind::Reasoning`].
    Reasoning(ReasoningConfig),
    /// See [`ExperimentKind::Monitor`].
    Monitor(MonitorConfig),
}

impl ExperimentConfig {
    /// Which experiment this is.
    pub fn kind(&self) -> ExperimentKind {
        match self {
            ExperimentConfig::PromptLength(_) => ExperimentKind::PromptLength,
            ExperimentConfig::MaxTokens(_) => ExperimentKind::MaxTokens,
            ExperimentConfig::Models(_) => ExperimentKind::Models,
            ExperimentConfig::Concurrency(_) => ExperimentKind::Concurrency,
            ExperimentConfig::PrefixCache(_) => ExperimentKind::PrefixCache,
            ExperimentConfig::Tails(_) => ExperimentKind::Tails,
            ExperimentConfig::Reasoning(_) => ExperimentKind::Reasoning,
            ExperimentConfig::Monitor(_) => ExperimentKind::Monitor,
        }
    }

    /// The configuration as JSON (for the outcome).
    fn to_json(&self) -> Value {
        let value = match self {
            ExperimentConfig::PromptLength(config) => serde_json::to_value(config),
            ExperimentConfig::MaxTokens(config) => serde_json::to_value(config),
            ExperimentConfig::Models(config) => serde_json::to_value(config),
            ExperimentConfig::Concurrency(config) => serde_json::to_value(config),
            ExperimentConfig::PrefixCache(config) => serde_json::to_value(config),
            ExperimentConfig::Tails(config) => serde_json::to_value(config),
            ExperimentConfig::Reasoning(config) => serde_json::to_value(config),
            ExperimentConfig::Monitor(config) => serde_json::to_value(config),
        };
        value.unwrap_or(Value::Null)
    }
}

/// One point of the monitor's rolling chart.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RollingPoint {
    /// When the run started, ms after the monitor's start.
    pub started_ms: f64,
    /// The run's own TTFT, ms (None when it failed).
    pub ttft_ms: Option<f64>,
    /// Rolling p50 / p95 / p99 at that instant, ms.
    pub p50_ms: Option<f64>,
    /// See `p50_ms`.
    pub p95_ms: Option<f64>,
    /// See `p50_ms`.
    pub p99_ms: Option<f64>,
}

/// What an experiment measured so far and what ttft-core made of it (for the panel).
#[derive(Debug, Clone, PartialEq)]
pub enum ExperimentReport {
    /// Prompt length.
    PromptLength {
        /// Analysis.
        result: PromptLengthResult,
        /// Runs.
        observations: Vec<Observation<u32>>,
    },
    /// max_tokens.
    MaxTokens {
        /// Analysis.
        result: MaxTokensResult,
        /// Runs (key: max_tokens).
        observations: Vec<Observation<u32>>,
    },
    /// Models.
    Models {
        /// Analysis.
        result: ModelsResult,
        /// Runs.
        observations: Vec<Observation<ModelKey>>,
    },
    /// Concurrency.
    Concurrency {
        /// Analysis.
        result: ConcurrencyResult,
        /// Streams.
        observations: Vec<Observation<ConcurrencyKey>>,
    },
    /// Prefix cache.
    PrefixCache {
        /// Analysis.
        result: CacheResult,
        /// Runs.
        observations: Vec<Observation<CacheKey>>,
    },
    /// Tails.
    Tails {
        /// Analysis.
        result: TailsResult,
        /// Runs (key: planned size).
        observations: Vec<Observation<u32>>,
    },
    /// Reasoning.
    Reasoning {
        /// Analysis.
        result: ReasoningResult,
        /// Runs (key: repetition).
        observations: Vec<Observation<usize>>,
    },
    /// Monitor.
    Monitor {
        /// The rolling summary at the last run.
        status: MonitorStatus,
        /// The threshold.
        threshold: MonitorThreshold,
        /// Rolling percentiles after every run.
        rolling: Vec<RollingPoint>,
    },
}

impl ExperimentReport {
    /// The analysis as JSON (for the outcome).
    fn result_json(&self) -> Value {
        let value = match self {
            ExperimentReport::PromptLength { result, .. } => serde_json::to_value(result),
            ExperimentReport::MaxTokens { result, .. } => serde_json::to_value(result),
            ExperimentReport::Models { result, .. } => serde_json::to_value(result),
            ExperimentReport::Concurrency { result, .. } => serde_json::to_value(result),
            ExperimentReport::PrefixCache { result, .. } => serde_json::to_value(result),
            ExperimentReport::Tails { result, .. } => serde_json::to_value(result),
            ExperimentReport::Reasoning { result, .. } => serde_json::to_value(result),
            ExperimentReport::Monitor { status, .. } => serde_json::to_value(status),
        };
        value.unwrap_or(Value::Null)
    }

    /// The observations as JSON (for the outcome).
    fn observations_json(&self) -> Value {
        let value = match self {
            ExperimentReport::PromptLength { observations, .. }
            | ExperimentReport::MaxTokens { observations, .. }
            | ExperimentReport::Tails { observations, .. } => serde_json::to_value(observations),
            ExperimentReport::Models { observations, .. } => serde_json::to_value(observations),
            ExperimentReport::Concurrency { observations, .. } => {
                serde_json::to_value(observations)
            }
            ExperimentReport::PrefixCache { observations, .. } => {
                serde_json::to_value(observations)
            }
            ExperimentReport::Reasoning { observations, .. } => serde_json::to_value(observations),
            ExperimentReport::Monitor { rolling, .. } => serde_json::to_value(rolling),
        };
        value.unwrap_or(Value::Null)
    }
}

/// A finished (or stopped) experiment, serializable for persistence and export.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExperimentOutcome {
    /// [`ExperimentKind::code`].
    pub kind: String,
    /// When it started, ms since the Unix epoch.
    pub started_unix_ms: f64,
    /// The endpoint's base URL, as typed (never the key).
    pub base_url: String,
    /// The form's model (the models experiment names its own in `config`).
    pub model: String,
    /// False when Stop ended it early (the analysis covers the runs made).
    pub complete: bool,
    /// Runs observed (concurrency: streams; monitor: runs made).
    pub runs_done: usize,
    /// Runs planned.
    pub runs_planned: usize,
    /// The configuration (ttft-core's config type as JSON).
    pub config: Value,
    /// Every observation (key + sample), or the monitor's rolling points.
    pub observations: Value,
    /// ttft-core's result, verdict(s) included.
    pub result: Value,
}

/// Stop for a whole experiment: a flag checked before each run, and the runs in flight.
#[derive(Clone, Default)]
struct ExperimentControl {
    stopped: Rc<Cell<bool>>,
    /// The runs in flight, by a number of this experiment.
    in_flight: Rc<RefCell<Vec<(usize, RunControl)>>>,
    next_run: Rc<Cell<usize>>,
}

impl ExperimentControl {
    fn stopped(&self) -> bool {
        self.stopped.get()
    }

    fn stop(&self) {
        self.stopped.set(true);
        for (_, control) in self.in_flight.borrow().iter() {
            control.stop();
        }
    }

    /// A control for a new run (stopped with the experiment) and its number.
    fn begin(&self) -> (usize, RunControl) {
        let number = self.next_run.get();
        self.next_run.set(number + 1);
        let control = RunControl::default();
        self.in_flight.borrow_mut().push((number, control.clone()));
        (number, control)
    }

    fn end(&self, number: usize) {
        self.in_flight
            .borrow_mut()
            .retain(|(other, _)| *other != number);
    }
}

/// The experiments' state, provided as context.
#[derive(Clone, Copy)]
pub struct Experiments {
    /// Every finished or stopped experiment of the session, oldest first.
    pub outcomes: RwSignal<Vec<ExperimentOutcome>>,
    /// The current (or last) experiment's runs and analysis, updated after every run.
    pub report: RwSignal<Option<ExperimentReport>>,
    /// Whether an experiment is running.
    pub running: RwSignal<bool>,
    /// (runs done, runs planned) of the current experiment.
    pub progress: RwSignal<(usize, usize)>,
    control: StoredValue<ExperimentControl, LocalStorage>,
    /// Experiments started in this page, for their tags.
    sessions: StoredValue<u32>,
    /// Where finished runs go: the page's session (and the host page, when embedded).
    session: Option<Session>,
    embed: StoredValue<Option<Embed>>,
}

impl Experiments {
    /// Fresh state, provided as context.
    pub fn provide() -> Experiments {
        let experiments = Experiments {
            outcomes: RwSignal::new(Vec::new()),
            report: RwSignal::new(None),
            running: RwSignal::new(false),
            progress: RwSignal::new((0, 0)),
            control: StoredValue::new_local(ExperimentControl::default()),
            sessions: StoredValue::new(0),
            session: use_context::<Session>(),
            embed: StoredValue::new(use_context::<Embed>()),
        };
        provide_context(experiments);
        experiments
    }

    /// The provided state, or a fresh one provided now.
    pub fn use_or_provide() -> Experiments {
        use_context::<Experiments>().unwrap_or_else(Experiments::provide)
    }

    /// Stops the running experiment; what it measured is kept and analysed.
    pub fn stop(&self) {
        self.control.with_value(ExperimentControl::stop);
    }

    /// Runs `config` against the endpoint of `base` (its prompt, model and max_tokens are
    /// replaced by the plan's where the plan sets them). Returns at once; the experiment
    /// runs in the background.
    pub fn start(&self, config: ExperimentConfig, mut base: RunPlan) {
        if self.running.get_untracked() {
            return;
        }
        // The reasoning experiment is about thinking: ask for it even when the form does not
        // (effort or thinking budget per protocol, see `PromptSpec::with_reasoning`).
        if config.kind() == ExperimentKind::Reasoning && !base.reasoning {
            let protocol = base.endpoint.protocol;
            if let Ok(mut reasoning) =
                base.varied(|spec| *spec = spec.clone().with_reasoning(protocol))
            {
                reasoning.reasoning = true;
                base = reasoning;
            }
        }
        // Usage (prompt and cached tokens) comes at the end of the stream.
        base.ttft_only = false;
        let session_number = self.sessions.get_value() + 1;
        self.sessions.set_value(session_number);
        let control = ExperimentControl::default();
        self.control.set_value(control.clone());
        self.running.set(true);
        self.report.set(None);
        self.progress.set((0, 0));
        let experiments = *self;
        let (base_url, model) = (base.endpoint.base_url.clone(), base.spec.model.clone());
        let kind = config.kind().code();
        leptos::task::spawn_local(async move {
            let started_unix_ms = js_sys::Date::now();
            let runner = Runner {
                base,
                control: control.clone(),
                experiments,
                kind,
                session_number,
            };
            let planned = runner.execute(&config).await;
            if let Some(report) = experiments.report.get_untracked() {
                let observations = report.observations_json();
                let outcome = ExperimentOutcome {
                    kind: config.kind().code().into(),
                    started_unix_ms,
                    base_url,
                    model,
                    complete: !control.stopped(),
                    runs_done: observations.as_array().map_or(0, Vec::len),
                    runs_planned: planned,
                    config: config.to_json(),
                    observations,
                    result: report.result_json(),
                };
                experiments
                    .outcomes
                    .update(|outcomes| outcomes.push(outcome));
            }
            experiments.running.set(false);
        });
    }
}

/// Resolves after `delay_ms`.
async fn sleep_ms(delay_ms: f64) {
    let (sender, receiver) = futures_channel::oneshot::channel::<()>();
    set_timeout(
        move || {
            let _ = sender.send(());
        },
        Duration::from_millis(delay_ms.clamp(0.0, 1e9) as u64),
    );
    let _ = receiver.await;
}

/// Runs plans for one experiment.
struct Runner {
    base: RunPlan,
    control: ExperimentControl,
    experiments: Experiments,
    kind: &'static str,
    session_number: u32,
}

impl Runner {
    /// Runs the experiment; returns the number of runs planned.
    async fn execute(&self, config: &ExperimentConfig) -> usize {
        match config {
            ExperimentConfig::PromptLength(config) => self.prompt_length(config).await,
            ExperimentConfig::MaxTokens(config) => {
                let plan = max_tokens::plan(config);
                self.sequence(&plan, |observations| ExperimentReport::MaxTokens {
                    result: max_tokens::analyze(observations),
                    observations: observations.to_vec(),
                })
                .await;
                plan.len()
            }
            ExperimentConfig::Models(config) => {
                let plan = models::plan(config);
                self.sequence(&plan, |observations| ExperimentReport::Models {
                    result: models::analyze(observations),
                    observations: observations.to_vec(),
                })
                .await;
                plan.len()
            }
            ExperimentConfig::Concurrency(config) => self.concurrency(config).await,
            ExperimentConfig::PrefixCache(config) => {
                let plan = cache::plan(config);
                self.sequence(&plan, |observations| ExperimentReport::PrefixCache {
                    result: cache::analyze(observations),
                    observations: observations.to_vec(),
                })
                .await;
                plan.len()
            }
            ExperimentConfig::Tails(config) => self.tails(config).await,
            ExperimentConfig::Reasoning(config) => {
                let plan = reasoning::plan(config);
                self.sequence(&plan, |observations| ExperimentReport::Reasoning {
                    result: reasoning::analyze(observations),
                    observations: observations.to_vec(),
                })
                .await;
                plan.len()
            }
            ExperimentConfig::Monitor(config) => self.monitor(config).await,
        }
    }

    /// Measures one planned run; `None` when Stop interrupted it (a run cut short by the
    /// user is not a failure of the endpoint, so it enters no statistic).
    async fn measure<K: Serialize>(&self, planned: &PlannedRun<K>) -> Option<RunSample> {
        let plan = self
            .base
            .varied(|spec| {
                spec.prompt = planned.prompt.clone();
                if let Some(model) = &planned.model {
                    spec.model = model.clone();
                }
                if planned.max_tokens.is_some() {
                    spec.max_output_tokens = planned.max_tokens;
                }
            })
            .ok()?;
        let arm = serde_json::to_string(&planned.key).unwrap_or_default();
        self.measure_plan(plan, arm).await
    }

    async fn measure_plan(&self, mut plan: RunPlan, arm: String) -> Option<RunSample> {
        if self.control.stopped() {
            return None;
        }
        plan.experiment = Some(ExperimentTag {
            kind: self.kind.to_owned(),
            session: self.session_number,
            arm,
        });
        let (number, run_control) = self.control.begin();
        let options = RunOptions {
            clicked_ms: None,
            warm_up: false,
            painted: false,
        };
        let record: RunRecord = run::measure(&plan, options, &run_control, |_| {}).await;
        self.control.end(number);
        if run_control.stopped() {
            return None;
        }
        let sample =
            RunSample::from_metrics(&record.metrics, record.network.as_ref(), record.is_ok());
        // Experiment runs are results like any other: kept, stored and posted.
        if let Some(session) = self.experiments.session {
            let kept = session.push(record);
            crate::fleet::run_kept(&kept);
            session.save(false);
            self.experiments.embed.with_value(|embed| {
                if let Some(embed) = embed {
                    embed.post("ttft-meter.run", embed::run_message(&kept));
                }
            });
        }
        Some(sample)
    }

    fn advance(&self, total: usize) {
        self.experiments.progress.update(|(done, planned)| {
            *done += 1;
            *planned = total;
        });
    }

    /// Runs a plan one run after the other, re-analysing after each.
    async fn sequence<K: Clone + Serialize>(
        &self,
        plan: &[PlannedRun<K>],
        analyse: impl Fn(&[Observation<K>]) -> ExperimentReport,
    ) {
        self.experiments.progress.set((0, plan.len()));
        let mut observations = Vec::new();
        for planned in plan {
            let Some(sample) = self.measure(planned).await else {
                break;
            };
            observations.push(planned.observe(sample));
            self.advance(plan.len());
            self.experiments.report.set(Some(analyse(&observations)));
        }
    }

    /// Prompt length, calibrated after the first run: when the provider counts the filler
    /// differently from the sim's rule (a real tokenizer), the rest of the plan is made
    /// again so that the planned sizes are the provider's tokens.
    async fn prompt_length(&self, config: &PromptLengthConfig) -> usize {
        /// A count within 2% of the plan needs no correction (the template's few tokens).
        const CALIBRATION_TOLERANCE: f64 = 0.02;
        let mut plan = prompt_length::plan(config);
        let total = plan.len();
        self.experiments.progress.set((0, total));
        let mut observations: Vec<Observation<u32>> = Vec::new();
        let mut index = 0;
        while let Some(planned) = plan.get(index).cloned() {
            let Some(sample) = self.measure(&planned).await else {
                break;
            };
            if index == 0 {
                let calibration = sample.prompt_tokens.and_then(|observed| {
                    TokenCalibration::from_observation(planned.sim_prompt_tokens, observed)
                });
                if let Some(calibration) = calibration {
                    if (calibration.tokens_per_sim_token - 1.0).abs() > CALIBRATION_TOLERANCE {
                        plan = prompt_length::plan(&PromptLengthConfig {
                            calibration,
                            ..config.clone()
                        });
                    }
                }
            }
            observations.push(planned.observe(sample));
            index += 1;
            self.advance(total);
            self.experiments
                .report
                .set(Some(ExperimentReport::PromptLength {
                    result: prompt_length::analyze(&observations),
                    observations: observations.clone(),
                }));
        }
        total
    }

    /// Concurrency: each wave's streams are all in flight at once; the next wave starts
    /// when the whole wave has ended.
    async fn concurrency(&self, config: &ConcurrencyConfig) -> usize {
        let waves = concurrency::plan(config);
        let total: usize = waves.iter().map(|wave| wave.streams.len()).sum();
        self.experiments.progress.set((0, total));
        let mut observations = Vec::new();
        for wave in &waves {
            let samples = join_all(wave.streams.iter().map(|stream| self.measure(stream))).await;
            if self.control.stopped() {
                // A wave cut short says nothing about queueing.
                break;
            }
            for (stream, sample) in wave.streams.iter().zip(samples) {
                if let Some(sample) = sample {
                    observations.push(stream.observe(sample));
                    self.advance(total);
                }
            }
            self.experiments
                .report
                .set(Some(ExperimentReport::Concurrency {
                    result: concurrency::analyze(&observations),
                    observations: observations.clone(),
                }));
        }
        total
    }

    /// Tails: `in_flight` runs at once; each lane takes the next planned run when its run
    /// ends, so long and short prompts compete for the server as in production.
    async fn tails(&self, config: &TailsConfig) -> usize {
        let plan = tails::plan(config);
        let total = plan.len();
        self.experiments.progress.set((0, total));
        let queue: RefCell<VecDeque<&PlannedRun<u32>>> = RefCell::new(plan.iter().collect());
        let observations: RefCell<Vec<Observation<u32>>> = RefCell::new(Vec::new());
        let lane = || async {
            loop {
                let next = queue.borrow_mut().pop_front();
                let Some(planned) = next else { break };
                let Some(sample) = self.measure(planned).await else {
                    break;
                };
                let report = {
                    let mut observations = observations.borrow_mut();
                    observations.push(planned.observe(sample));
                    ExperimentReport::Tails {
                        result: tails::analyze(&observations),
                        observations: observations.clone(),
                    }
                };
                self.advance(total);
                self.experiments.report.set(Some(report));
            }
        };
        join_all((0..config.in_flight.max(1)).map(|_| lane())).await;
        total
    }

    /// Monitor: one run at each scheduled instant (a run that overruns its interval makes
    /// the missed instants be skipped, not bunched), a rolling summary after each.
    async fn monitor(&self, config: &MonitorConfig) -> usize {
        /// Longest sleep between checks of the Stop flag, ms: Stop answers within it.
        const STOP_CHECK_MS: f64 = 200.0;
        let offsets_ms = config.schedule.run_offsets_ms();
        let total = offsets_ms.len();
        self.experiments.progress.set((0, total));
        let interval_ms = config.schedule.interval_s * 1000.0;
        let start_ms = clock::now_ms();
        let mut observations: Vec<Observation<f64>> = Vec::new();
        let mut rolling: Vec<RollingPoint> = Vec::new();
        for (index, offset_ms) in offsets_ms.iter().enumerate() {
            loop {
                let elapsed_ms = clock::now_ms() - start_ms;
                if self.control.stopped() || elapsed_ms >= *offset_ms {
                    break;
                }
                sleep_ms((offset_ms - elapsed_ms).min(STOP_CHECK_MS)).await;
            }
            if self.control.stopped() {
                break;
            }
            let started_ms = clock::now_ms() - start_ms;
            if started_ms - offset_ms > interval_ms {
                self.advance(total);
                continue;
            }
            let nonce = run_nonce(config.seed, index);
            let Ok(plan) = self
                .base
                .varied(|spec| spec.prompt = with_nonce(Some(&nonce), &spec.prompt))
            else {
                break;
            };
            let Some(sample) = self.measure_plan(plan, format!("{started_ms:.0} ms")).await else {
                break;
            };
            let ttft_ms = sample.usable_ttft_ms();
            observations.push(Observation::new(started_ms, sample));
            let status =
                monitor::window_status(&observations, started_ms, config.window, config.threshold);
            let percentile =
                |which: MonitorPercentile| status.ttft_ms.as_ref().map(|s| which.of(s));
            rolling.push(RollingPoint {
                started_ms,
                ttft_ms,
                p50_ms: percentile(MonitorPercentile::P50),
                p95_ms: percentile(MonitorPercentile::P95),
                p99_ms: percentile(MonitorPercentile::P99),
            });
            self.advance(total);
            self.experiments.report.set(Some(ExperimentReport::Monitor {
                status,
                threshold: config.threshold,
                rolling: rolling.clone(),
            }));
        }
        total
    }
}

/// A seed for a new experiment: the wall clock, so that no earlier experiment's prompts
/// (in the provider's prefix cache) are repeated.
pub fn fresh_seed() -> u64 {
    js_sys::Date::now() as u64
}
