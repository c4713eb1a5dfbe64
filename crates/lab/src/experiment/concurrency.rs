//! Experiment 4: concurrency. Waves of 1, 2, 4, 8… simultaneous streams.
//!
//! Two different queues make TTFT grow with concurrency, and they have different fixes:
//! - **server queueing**: the server runs a fixed number of requests at once (slots, a
//!   batch limit); the next one waits for a free slot. Within a wave the TTFTs then form a
//!   step: the first `k` streams start at the normal TTFT, the others a whole request later.
//! - **browser queueing**: over HTTP/1.1 a browser opens at most 6 connections per host;
//!   the 7th stream waits in the browser before it is even sent. Resource Timing shows it
//!   as a large `requestStart − fetchStart` (`queueing_ms`).
//!
//! The analysis separates them: a stream's browser wait is its `queueing_ms` above the
//! wave's smallest (which holds any connection setup all streams paid alike); streams held
//! by the browser reach the server later, so only the others enter the server-step search.

use serde::{Deserialize, Serialize};

use super::book::{context_budget, plan_sized, run_spec, session, Design, RunBook};
use super::figures::summary_of;
use super::filler::estimated_tokens;
use super::limits::{MAX_PROMPT_TOKENS, MAX_REPETITIONS, MAX_STREAMS};
use super::order::{interleaved_order, run_nonce};
use super::params::{CountListParam, CountParam, Inputs, ParamSpec};
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
use ttft_core::stats::Summary;
use ttft_core::timeline::HttpProtocol;

/// Default concurrency levels: doubling, up to past the browser's 6 connections.
pub const DEFAULT_LEVELS: [u32; 4] = [1, 2, 4, 8];

/// Default waves per level.
pub const DEFAULT_WAVES_PER_LEVEL: usize = 3;

/// Default prompt size, tokens.
pub const DEFAULT_PROMPT_TOKENS: u32 = 1_000;

/// Output limit of every stream: enough decode to overlap the next stream's prefill.
pub const DEFAULT_MAX_TOKENS: u32 = 64;

/// Connections per host a browser opens over HTTP/1.1 (all major browsers; the Fetch
/// standard leaves it to them, and they settled on 6).
pub const HTTP1_CONNECTIONS_PER_HOST: usize = 6;

/// A stream waited in the browser when its `queueing_ms` exceeds the wave's smallest by
/// this much, ms. A stream held for a connection waits for a whole other stream (hundreds
/// of ms at least), while differences in connection setup between parallel streams stay
/// well below 100 ms on any usable network.
pub const BROWSER_QUEUE_MIN_MS: f64 = 100.0;

/// A server step is a gap between consecutive sorted TTFTs of a wave larger than this, ms,
/// and larger than [`SERVER_STEP_MIN_FRACTION`] of the wave's fastest TTFT. A stream that
/// waits for a slot waits for a whole request (prefill and decode), which is at least one
/// TTFT; 50 ms keeps network jitter from looking like a step on tiny prompts.
pub const SERVER_STEP_MIN_MS: f64 = 50.0;

/// See [`SERVER_STEP_MIN_MS`]: half the fastest TTFT, well below the one full TTFT a slot
/// wait adds, well above jitter.
pub const SERVER_STEP_MIN_FRACTION: f64 = 0.5;

/// p50 at the highest level over p50 at the lowest above which TTFT is said to grow with
/// concurrency even without a step (servers that batch share their capacity gradually).
pub const GROWTH_RATIO_THRESHOLD: f64 = 1.5;

/// Which stream of which wave a run was.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ConcurrencyKey {
    /// Streams in flight together.
    pub level: u32,
    /// Wave index in the plan, from 0.
    pub wave: usize,
    /// Launch order within the wave, from 0 (the order `fetch()` was called).
    pub rank: usize,
}

/// What to run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConcurrencyConfig {
    /// Concurrency levels.
    pub levels: Vec<u32>,
    /// Waves per level.
    pub waves_per_level: usize,
    /// Prompt size, tokens.
    pub prompt_tokens: u32,
    /// Language of the filler.
    pub lang: Lang,
    /// Seed of the nonces and of the interleaving.
    pub seed: u64,
    /// How the prompt is sized to the provider's token count.
    pub sizing: PromptSizing,
    /// Output limit.
    pub max_tokens: Option<u32>,
}

impl Default for ConcurrencyConfig {
    fn default() -> Self {
        ConcurrencyConfig {
            levels: DEFAULT_LEVELS.to_vec(),
            waves_per_level: DEFAULT_WAVES_PER_LEVEL,
            prompt_tokens: DEFAULT_PROMPT_TOKENS,
            lang: Lang::En,
            seed: 0,
            sizing: PromptSizing::estimate(),
            max_tokens: Some(DEFAULT_MAX_TOKENS),
        }
    }
}

/// A wave: `level` streams launched together, in `streams` order. The app waits for a wave
/// to finish before the next.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlannedWave {
    /// Wave index, from 0.
    pub wave: usize,
    /// Streams in the wave.
    pub level: u32,
    /// Which repetition of this level, from 0.
    pub repetition: usize,
    /// The streams, in launch order; each prompt has its own nonce.
    pub streams: Vec<PlannedRun<ConcurrencyKey>>,
}

/// The plan: `waves_per_level` waves per level, levels interleaved.
pub fn plan(config: &ConcurrencyConfig) -> Vec<PlannedWave> {
    let mut run_index = 0;
    interleaved_order(config.levels.len(), config.waves_per_level, config.seed)
        .into_iter()
        .enumerate()
        .filter_map(|(wave, (level_index, repetition))| {
            let level = *config.levels.get(level_index)?;
            let streams = (0..level as usize)
                .map(|rank| {
                    let nonce = run_nonce(config.seed, run_index);
                    let prompt =
                        config
                            .sizing
                            .prompt(config.prompt_tokens, config.lang, Some(&nonce));
                    let run = PlannedRun {
                        run_index,
                        key: ConcurrencyKey { level, wave, rank },
                        repetition,
                        sim_prompt_tokens: estimated_tokens(&prompt),
                        nonce: Some(nonce),
                        prompt,
                        model: None,
                        max_tokens: config.max_tokens,
                    };
                    run_index += 1;
                    run
                })
                .collect();
            Some(PlannedWave {
                wave,
                level,
                repetition,
                streams,
            })
        })
        .collect()
}

/// One level's results.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConcurrencyLevel {
    /// Streams in flight together.
    pub level: u32,
    /// Waves observed.
    pub waves: usize,
    /// Failed streams (or without a TTFT).
    pub failures: usize,
    /// TTFT of all successful streams at this level (p50/p95/p99 inside), ms.
    pub ttft_ms: Option<Summary>,
    /// Waves in which some streams waited in the browser.
    pub waves_with_browser_queueing: usize,
    /// Waves in which the server made some streams wait (a TTFT step).
    pub waves_with_server_queueing: usize,
}

/// What one wave shows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WaveFinding {
    /// Wave index.
    pub wave: usize,
    /// Streams in the wave.
    pub level: u32,
    /// Successful streams (the ones analysed).
    pub streams: usize,
    /// Streams that waited in the browser (queueing above the wave's smallest by
    /// [`BROWSER_QUEUE_MIN_MS`]).
    pub browser_queued: usize,
    /// Streams the server ran before the step: waiting starts at stream `k + 1` in TTFT
    /// order; `None` without a step.
    pub server_parallel: Option<usize>,
}

/// What the runs say.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConcurrencyResult {
    /// Per level, ascending.
    pub levels: Vec<ConcurrencyLevel>,
    /// Per wave, in wave order.
    pub waves: Vec<WaveFinding>,
    /// Streams the server ran at once before others waited (lower median over the waves
    /// of queueing levels).
    pub server_parallel_streams: Option<usize>,
    /// The first stream (1-based, in TTFT order within a wave) that waited for the server:
    /// `server_parallel_streams + 1`.
    pub server_first_waiting_stream: Option<usize>,
    /// Lowest level at which most waves showed a server step.
    pub server_queueing_from_level: Option<u32>,
    /// Streams the browser sent at once when it held others back (lower median).
    pub browser_parallel_streams: Option<usize>,
    /// Lowest level at which most waves showed browser queueing.
    pub browser_queueing_from_level: Option<u32>,
    /// p50 TTFT at the highest level over p50 at the lowest.
    pub p50_growth_ratio: Option<f64>,
    /// The findings; [`ConcurrencyVerdict::NoQueueing`] alone when nothing was found.
    pub verdicts: Vec<ConcurrencyVerdict>,
}

/// A finding of the concurrency experiment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ConcurrencyVerdict {
    /// What the endpoint spoke, as the browser reported it: over HTTP/1.1 a browser opens at
    /// most 6 connections per host; over HTTP/2 or HTTP/3 one connection carries every stream.
    Protocol {
        /// The HTTP version most streams went over.
        protocol: HttpProtocol,
    },
    /// No level had a successful stream.
    NotEnoughData,
    /// TTFT stays flat up to the highest level.
    NoQueueing {
        /// Highest level measured.
        max_level: u32,
    },
    /// The browser held streams back (HTTP/1.1's 6 connections per host).
    BrowserQueueing {
        /// Streams sent at once.
        parallel_streams: usize,
        /// Lowest level where it happened.
        from_level: u32,
    },
    /// The server ran a fixed number of streams at once; the others waited for a slot.
    ServerQueueing {
        /// Streams the server ran at once.
        parallel_streams: usize,
        /// Lowest level where waiting happened.
        from_level: u32,
    },
    /// A step after exactly 6 streams while the browser hid Resource Timing (no
    /// `Timing-Allow-Origin`): it may be HTTP/1.1's limit rather than the server.
    StepMayBeBrowserLimit {
        /// Streams before the step (6).
        parallel_streams: usize,
    },
    /// TTFT grows with concurrency without a step: the server shares its capacity.
    ServerSlowdown {
        /// p50 at the highest level over p50 at the lowest.
        growth_ratio: f64,
        /// Highest level measured.
        max_level: u32,
    },
}

impl ConcurrencyVerdict {
    /// Stable code (the serde tag).
    pub fn code(&self) -> &'static str {
        match self {
            ConcurrencyVerdict::Protocol { .. } => "protocol",
            ConcurrencyVerdict::NotEnoughData => "not_enough_data",
            ConcurrencyVerdict::NoQueueing { .. } => "no_queueing",
            ConcurrencyVerdict::BrowserQueueing { .. } => "browser_queueing",
            ConcurrencyVerdict::ServerQueueing { .. } => "server_queueing",
            ConcurrencyVerdict::StepMayBeBrowserLimit { .. } => "step_may_be_browser_limit",
            ConcurrencyVerdict::ServerSlowdown { .. } => "server_slowdown",
        }
    }

    /// What it means and what to do, in `lang`.
    pub fn message(&self, lang: Lang) -> String {
        match self {
            ConcurrencyVerdict::Protocol { protocol } => {
                let text = if protocol.multiplexed() == Some(true) {
                    t::CONCURRENCY_VERDICT_PROTOCOL_MULTIPLEXED
                } else {
                    t::CONCURRENCY_VERDICT_PROTOCOL_HTTP1
                };
                text.fill(lang, &[("protocol", &protocol.code())])
            }
            ConcurrencyVerdict::NotEnoughData => {
                t::CONCURRENCY_VERDICT_NOT_ENOUGH_DATA.get(lang).to_owned()
            }
            ConcurrencyVerdict::NoQueueing { max_level } => {
                t::CONCURRENCY_VERDICT_NO_QUEUEING.fill(lang, &[("max_level", &max_level)])
            }
            ConcurrencyVerdict::BrowserQueueing {
                parallel_streams,
                from_level,
            } => t::CONCURRENCY_VERDICT_BROWSER_QUEUEING.fill(
                lang,
                &[
                    ("from_level", &from_level),
                    ("parallel_streams", &parallel_streams),
                ],
            ),
            ConcurrencyVerdict::ServerQueueing {
                parallel_streams,
                from_level,
            } => {
                let first_waiting = parallel_streams + 1;
                t::CONCURRENCY_VERDICT_SERVER_QUEUEING.fill(
                    lang,
                    &[
                        ("parallel_streams", &parallel_streams),
                        ("from_level", &from_level),
                        ("first_waiting", &first_waiting),
                    ],
                )
            }
            ConcurrencyVerdict::StepMayBeBrowserLimit { parallel_streams } => {
                t::CONCURRENCY_VERDICT_STEP_MAY_BE_BROWSER_LIMIT
                    .fill(lang, &[("parallel_streams", &parallel_streams)])
            }
            ConcurrencyVerdict::ServerSlowdown {
                growth_ratio,
                max_level,
            } => {
                let ratio = format!("{growth_ratio:.1}");
                t::CONCURRENCY_VERDICT_SERVER_SLOWDOWN
                    .fill(lang, &[("max_level", &max_level), ("ratio", &ratio)])
            }
        }
    }
}

/// A stream of a wave with what the analysis needs.
struct Stream {
    ttft_ms: f64,
    queueing_ms: Option<f64>,
}

/// Analyses one wave (successful streams only).
fn wave_finding(wave: usize, level: u32, streams: &[Stream]) -> WaveFinding {
    let min_queueing_ms = streams
        .iter()
        .filter_map(|s| s.queueing_ms)
        .filter(|q| q.is_finite())
        .reduce(f64::min);
    let browser_held = |stream: &Stream| match (stream.queueing_ms, min_queueing_ms) {
        (Some(queueing), Some(min)) => queueing - min >= BROWSER_QUEUE_MIN_MS,
        _ => false,
    };
    let browser_queued = streams.iter().filter(|s| browser_held(s)).count();
    let mut sent_together: Vec<f64> = streams
        .iter()
        .filter(|s| !browser_held(s))
        .map(|s| s.ttft_ms)
        .collect();
    sent_together.sort_by(f64::total_cmp);
    WaveFinding {
        wave,
        level,
        streams: streams.len(),
        browser_queued,
        server_parallel: server_step(&sent_together),
    }
}

/// The number of streams before the first step in sorted TTFTs (see
/// [`SERVER_STEP_MIN_MS`]).
fn server_step(sorted_ttfts_ms: &[f64]) -> Option<usize> {
    let fastest_ms = *sorted_ttfts_ms.first()?;
    let min_gap_ms = SERVER_STEP_MIN_MS.max(SERVER_STEP_MIN_FRACTION * fastest_ms);
    sorted_ttfts_ms
        .windows(2)
        .position(|pair| pair[1] - pair[0] > min_gap_ms)
        .map(|index| index + 1)
}

/// Lower median of counts.
fn lower_median(mut values: Vec<usize>) -> Option<usize> {
    values.sort_unstable();
    values.get(values.len().checked_sub(1)? / 2).copied()
}

/// Analyses the runs.
pub fn analyze(observations: &[Observation<ConcurrencyKey>]) -> ConcurrencyResult {
    let waves = wave_findings(observations);
    let mut level_values: Vec<u32> = observations.iter().map(|o| o.key.level).collect();
    level_values.sort_unstable();
    level_values.dedup();
    let levels: Vec<ConcurrencyLevel> = level_values
        .iter()
        .map(|&level| level_summary(observations, &waves, level))
        .collect();
    let majority = |count: usize, of: usize| of > 0 && 2 * count > of;
    let server_queueing_from_level = levels
        .iter()
        .find(|l| majority(l.waves_with_server_queueing, l.waves))
        .map(|l| l.level);
    let browser_queueing_from_level = levels
        .iter()
        .find(|l| majority(l.waves_with_browser_queueing, l.waves))
        .map(|l| l.level);
    let at_or_above = |from: Option<u32>, wave: &WaveFinding| from.is_some_and(|f| wave.level >= f);
    let server_parallel_streams = lower_median(
        waves
            .iter()
            .filter(|w| at_or_above(server_queueing_from_level, w))
            .filter_map(|w| w.server_parallel)
            .collect(),
    );
    let browser_parallel_streams = lower_median(
        waves
            .iter()
            .filter(|w| at_or_above(browser_queueing_from_level, w) && w.browser_queued > 0)
            .map(|w| w.streams - w.browser_queued)
            .collect(),
    );
    let mut result = ConcurrencyResult {
        p50_growth_ratio: p50_growth_ratio(&levels),
        levels,
        waves,
        server_parallel_streams,
        server_first_waiting_stream: server_parallel_streams.map(|parallel| parallel + 1),
        server_queueing_from_level,
        browser_parallel_streams,
        browser_queueing_from_level,
        verdicts: Vec::new(),
    };
    let timing_hidden = observations.iter().all(|o| o.sample.queueing_ms.is_none());
    result.verdicts = verdicts(&result, timing_hidden, most_common_protocol(observations));
    result
}

/// p50 at the highest measured level over p50 at the lowest.
fn p50_growth_ratio(levels: &[ConcurrencyLevel]) -> Option<f64> {
    let measured: Vec<&Summary> = levels.iter().filter_map(|l| l.ttft_ms.as_ref()).collect();
    match (measured.first(), measured.last()) {
        (Some(low), Some(high)) if measured.len() > 1 && low.p50 > 0.0 => Some(high.p50 / low.p50),
        _ => None,
    }
}

/// The findings, browser first (it hides what the server would do), then the server.
fn verdicts(
    result: &ConcurrencyResult,
    timing_hidden: bool,
    protocol: Option<HttpProtocol>,
) -> Vec<ConcurrencyVerdict> {
    let max_level = result
        .levels
        .iter()
        .filter(|l| l.ttft_ms.is_some())
        .map(|l| l.level)
        .next_back();
    let mut verdicts = Vec::new();
    if let (Some(parallel_streams), Some(from_level)) = (
        result.browser_parallel_streams,
        result.browser_queueing_from_level,
    ) {
        verdicts.push(ConcurrencyVerdict::BrowserQueueing {
            parallel_streams,
            from_level,
        });
    }
    if let (Some(parallel_streams), Some(from_level)) = (
        result.server_parallel_streams,
        result.server_queueing_from_level,
    ) {
        verdicts.push(ConcurrencyVerdict::ServerQueueing {
            parallel_streams,
            from_level,
        });
        if timing_hidden && parallel_streams == HTTP1_CONNECTIONS_PER_HOST {
            verdicts.push(ConcurrencyVerdict::StepMayBeBrowserLimit { parallel_streams });
        }
    } else if let (Some(growth_ratio), Some(max_level)) = (result.p50_growth_ratio, max_level) {
        if growth_ratio > GROWTH_RATIO_THRESHOLD && result.browser_queueing_from_level.is_none() {
            verdicts.push(ConcurrencyVerdict::ServerSlowdown {
                growth_ratio,
                max_level,
            });
        }
    }
    if verdicts.is_empty() {
        verdicts.push(match max_level {
            Some(max_level) => ConcurrencyVerdict::NoQueueing { max_level },
            None => ConcurrencyVerdict::NotEnoughData,
        });
    }
    // What the endpoint spoke, after the findings (the advice about HTTP/1.1's limit rests
    // on it).
    if let Some(protocol) = protocol.filter(|protocol| *protocol != HttpProtocol::Hidden) {
        verdicts.push(ConcurrencyVerdict::Protocol { protocol });
    }
    verdicts
}

/// The HTTP version most streams went over (ties: the first seen), when any said.
fn most_common_protocol(observations: &[Observation<ConcurrencyKey>]) -> Option<HttpProtocol> {
    let mut counts: Vec<(HttpProtocol, usize)> = Vec::new();
    for protocol in observations.iter().filter_map(|o| o.sample.http_protocol) {
        match counts.iter_mut().find(|(known, _)| *known == protocol) {
            Some((_, count)) => *count += 1,
            None => counts.push((protocol, 1)),
        }
    }
    counts
        .iter()
        .fold(None, |best: Option<(HttpProtocol, usize)>, &(protocol, count)| match best {
            Some((_, best_count)) if best_count >= count => best,
            _ => Some((protocol, count)),
        })
        .map(|(protocol, _)| protocol)
}

/// Findings of every wave, in wave order.
fn wave_findings(observations: &[Observation<ConcurrencyKey>]) -> Vec<WaveFinding> {
    let mut wave_ids: Vec<(usize, u32)> = observations
        .iter()
        .map(|o| (o.key.wave, o.key.level))
        .collect();
    wave_ids.sort_unstable();
    wave_ids.dedup();
    wave_ids
        .into_iter()
        .map(|(wave, level)| {
            let streams: Vec<Stream> = observations
                .iter()
                .filter(|o| o.key.wave == wave)
                .filter_map(|o| {
                    Some(Stream {
                        ttft_ms: o.sample.usable_ttft_ms()?,
                        queueing_ms: o.sample.queueing_ms,
                    })
                })
                .collect();
            wave_finding(wave, level, &streams)
        })
        .collect()
}

/// One level's summary.
fn level_summary(
    observations: &[Observation<ConcurrencyKey>],
    waves: &[WaveFinding],
    level: u32,
) -> ConcurrencyLevel {
    let at_level: Vec<&Observation<ConcurrencyKey>> = observations
        .iter()
        .filter(|o| o.key.level == level)
        .collect();
    let ttfts: Vec<f64> = at_level
        .iter()
        .filter_map(|o| o.sample.usable_ttft_ms())
        .collect();
    let level_waves: Vec<&WaveFinding> = waves.iter().filter(|w| w.level == level).collect();
    ConcurrencyLevel {
        level,
        waves: level_waves.len(),
        failures: at_level.len() - ttfts.len(),
        ttft_ms: summary_of(&ttfts),
        waves_with_browser_queueing: level_waves.iter().filter(|w| w.browser_queued > 0).count(),
        waves_with_server_queueing: level_waves
            .iter()
            .filter(|w| w.server_parallel.is_some())
            .count(),
    }
}

/// The concurrency levels field.
pub const LEVELS: CountListParam = CountListParam {
    id: "levels",
    label: t::PARAM_CONCURRENCY_LEVELS,
    min: 1,
    max: MAX_STREAMS,
    default: &DEFAULT_LEVELS,
};

/// The prompt size field.
pub const PROMPT_TOKENS: CountParam = CountParam {
    id: "prompt-tokens",
    label: t::PARAM_PROMPT_SIZE,
    min: 1,
    max: MAX_PROMPT_TOKENS,
    default: DEFAULT_PROMPT_TOKENS,
};

/// The waves field.
pub const WAVES: CountParam = CountParam {
    id: "repetitions",
    label: t::PARAM_WAVES_PER_LEVEL,
    min: 1,
    max: MAX_REPETITIONS,
    default: DEFAULT_WAVES_PER_LEVEL as u32,
};

/// The concurrency experiment in the registry.
#[derive(Debug, Clone, Copy)]
pub struct Concurrency;

impl Experiment for Concurrency {
    fn code(&self) -> &'static str {
        "concurrency"
    }

    fn label(&self) -> Bilingual {
        t::CONCURRENCY.bilingual()
    }

    fn description(&self) -> Bilingual {
        t::CONCURRENCY_DESCRIPTION.bilingual()
    }

    fn schedule_kind(&self) -> ScheduleKind {
        ScheduleKind::Waves
    }

    fn params(&self) -> Vec<ParamSpec> {
        vec![LEVELS.spec(), PROMPT_TOKENS.spec(), WAVES.spec()]
    }

    fn configure(&self, inputs: &Inputs, setup: &Setup) -> Result<Planning, SetupError> {
        let levels = LEVELS.read(inputs)?;
        let requested_prompt = PROMPT_TOKENS.read(inputs)?;
        let waves_per_level = WAVES.read(inputs)? as usize;
        let budget = context_budget(setup.context_window_tokens, DEFAULT_MAX_TOKENS);
        plan_sized(setup, budget, &[requested_prompt], move |fitted| {
            let config = ConcurrencyConfig {
                levels,
                waves_per_level,
                prompt_tokens: fitted.only(requested_prompt),
                lang: fitted.lang,
                seed: fitted.seed,
                sizing: fitted.sizing,
                max_tokens: Some(DEFAULT_MAX_TOKENS),
            };
            let waves = plan(&config);
            let planned = waves.iter().flat_map(|w| w.streams.clone()).collect();
            Ok(session(ConcurrencyDesign { config, waves }, planned))
        })
    }
}

/// A configured concurrency experiment: its schedule groups the book's runs by wave.
#[derive(Debug, Clone)]
struct ConcurrencyDesign {
    config: ConcurrencyConfig,
    waves: Vec<PlannedWave>,
}

impl Design for ConcurrencyDesign {
    type Key = ConcurrencyKey;

    fn code(&self) -> &'static str {
        Concurrency.code()
    }

    fn schedule(&self, _book: &RunBook<ConcurrencyKey>) -> Schedule {
        let sizing = Some((&self.config.sizing, self.config.prompt_tokens));
        Schedule::Waves {
            waves: self
                .waves
                .iter()
                .map(|wave| {
                    wave.streams
                        .iter()
                        .map(|run| {
                            let level = t::STREAMS_WAVE_LEVEL.bilingual_with(&[
                                ("level", &run.key.level),
                                ("wave", &(run.key.wave + 1)),
                            ]);
                            run_spec(run, RunRole::Measured, level, sizing)
                        })
                        .collect()
                })
                .collect(),
        }
    }

    fn report(&self, book: &RunBook<ConcurrencyKey>) -> Report {
        let result = analyze(&book.observations);
        report(&result, &book.observations, &self.config.sizing)
    }

    fn sizing(&self) -> Option<&PromptSizing> {
        Some(&self.config.sizing)
    }
}

/// The display-neutral report of a concurrency analysis.
pub fn report(
    result: &ConcurrencyResult,
    observations: &[Observation<ConcurrencyKey>],
    sizing: &PromptSizing,
) -> Report {
    let mut report = Report::new(Concurrency.code());
    for verdict in &result.verdicts {
        report.verdict(
            verdict.code(),
            Bilingual::from_fn(|lang| verdict.message(lang)),
        );
    }
    report.notes.extend(sizing.notes());
    report.count("server-parallel", result.server_parallel_streams);
    report.count("server-first-waiting", result.server_first_waiting_stream);
    report.number(
        "server-from-level",
        result.server_queueing_from_level.map(f64::from),
    );
    report.count("browser-parallel", result.browser_parallel_streams);
    report.number(
        "browser-from-level",
        result.browser_queueing_from_level.map(f64::from),
    );
    report.number("p50-growth", result.p50_growth_ratio);
    let points: Vec<(f64, f64)> = observations
        .iter()
        .filter_map(|o| Some((f64::from(o.key.level), o.sample.usable_ttft_ms()?)))
        .collect();
    report.chart = Some(Chart {
        title: t::CONCURRENCY_CHART_TITLE.bilingual(),
        kind: ChartKind::Scatter,
        x: Axis::new(t::CONCURRENT_STREAMS.bilingual(), Unit::Count),
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
        Column::new(t::STREAMS.bilingual(), Unit::Count),
        Column::new(t::WAVES.bilingual(), Unit::Count),
        Column::new(t::FAILED.bilingual(), Unit::Count),
        Column::new(same_text("p50"), Unit::Ms),
        Column::new(same_text("p95"), Unit::Ms),
        Column::new(same_text("p99"), Unit::Ms),
        Column::new(t::SERVER_QUEUEING_WAVES.bilingual(), Unit::Count),
        Column::new(t::BROWSER_QUEUEING_WAVES.bilingual(), Unit::Count),
        Column::new(t::MAX_BROWSER_QUEUEING.bilingual(), Unit::Ms),
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
                Cell::Count(u64::from(level.level)),
                Cell::count(level.waves),
                Cell::count(level.failures),
                Cell::ms(level.ttft_ms.as_ref().map(|s| s.p50)),
                Cell::ms(level.ttft_ms.as_ref().map(|s| s.p95)),
                Cell::ms(level.ttft_ms.as_ref().map(|s| s.p99)),
                Cell::count(level.waves_with_server_queueing),
                Cell::count(level.waves_with_browser_queueing),
                Cell::ms(max_queueing),
            ]
        })
        .collect();
    report.table = Table { columns, rows };
    report
}
