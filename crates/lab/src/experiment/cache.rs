//! Experiment 5: prefix caching.
//!
//! Three arms, interleaved:
//! - **cold**: a unique nonce at position 0, so no block of the prompt was seen before;
//! - **warm**: the identical prompt every time, each warm run *right after* a priming run
//!   of the same prompt. Servers such as llama.cpp's (and llama-cpp-python's) keep only
//!   the last prompt's KV per slot: a warm run that follows any other request finds
//!   nothing to reuse, so interleaving the arms without a priming run before each warm run
//!   measured no cache at all (issue 12: warm 560 ms against cold 572 ms, every run
//!   evaluating all 2,091 prompt tokens). Priming runs are recorded but enter no statistic;
//! - **first token changed**: the warm prompt with only its first token replaced (a new
//!   one every run). Prefix caches match block by block from the first token, so this
//!   loses the whole cache although 99.9% of the text is the same.
//!
//! The evidence of a hit comes from usage (`cached_prompt_tokens`) when the server reports
//! it, else from timing ([`TIMING_HIT_MAX_WARM_SHARE`]); the result says which
//! ([`HitEvidence`]). The time saved is the cold median minus the warm median.

use serde::{Deserialize, Serialize};

use super::book::{context_budget, plan_sized, run_spec, session, Design, RunBook};
use super::figures::{ms, percent, summary_of};
use super::filler::{estimated_tokens, filler_text, sized_prompt};
use super::limits::{MAX_PROMPT_TOKENS, MAX_REPETITIONS};
use super::order::{interleaved_order, run_nonce, split_mix64};
use super::params::{CountParam, Inputs, ParamSpec};
use super::report::{
    same_text, Axis, Cell, Chart, ChartKind, Colour, Column, Report, Series, Table, Unit,
};
use super::sample::{Observation, PlannedRun};
use super::schedule::{RunRole, Schedule, ScheduleKind};
use super::session::{Experiment, Planning, Setup, SetupError};
use super::sizing::PromptSizing;
use ttft_core::lang::Bilingual;
use ttft_core::lang::Lang;
use ttft_core::stats::Summary;
use crate::texts as t;

/// Default prompt size, tokens: above the 1,024-token minimum of OpenAI's automatic
/// caching, so a hosted provider caches it too.
pub const DEFAULT_PROMPT_TOKENS: u32 = 4_096;

/// Default runs per arm (the priming run excluded).
pub const DEFAULT_REPETITIONS: usize = 5;

/// Fewest successful runs in the cold and the warm arm before judging.
pub const MIN_RUNS_PER_ARM: usize = 3;

/// Warm runs must hit on at least this share to count as reliable; below it hits are
/// intermittent, the signature of several replicas behind a round-robin balancer, each
/// with its own cache (1 − 1/replicas of the requests land on a replica that has not seen
/// the prompt yet). 0.8 tolerates one eviction in five runs.
pub const RELIABLE_HIT_SHARE: f64 = 0.8;

/// The warm median must be lower than the cold one by at least this much, ms, to say the
/// cache saves time; 50 ms is about what users cannot notice and what network jitter gives.
pub const MIN_SAVING_MS: f64 = 50.0;

/// … and by at least this share of the cold median, so that a 50 ms difference on a 5 s
/// TTFT is not sold as a working cache.
pub const MIN_SAVING_SHARE: f64 = 0.10;

/// Without cached tokens in usage, the warm arm hit when its median is at most this share
/// of the cold median (and [`MIN_SAVING_MS`] lower).
///
/// A hit skips the prefill of the repeated prompt, which at the default 4,096 tokens is
/// most of TTFT on any server where caching matters; a miss leaves the two medians equal up
/// to noise (issue 12's no-hit case: 560 against 572 ms, 98%), and the interleaved arms
/// cancel drift. Requiring a 20% drop is twice the 10% asked of a saving confirmed by
/// usage, because timing is then the only witness.
pub const TIMING_HIT_MAX_WARM_SHARE: f64 = 0.8;

/// Output limit of every run.
pub const DEFAULT_MAX_TOKENS: u32 = 16;

/// The arm of a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CacheArm {
    /// Unique nonce at position 0.
    Cold,
    /// The identical prompt every time.
    Warm,
    /// The warm prompt with its first token changed.
    FirstTokenChanged,
}

/// Which arm a run was in, and whether it was the priming run (excluded from the warm arm).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct CacheKey {
    /// The arm.
    pub arm: CacheArm,
    /// The first warm run, which fills the cache.
    pub priming: bool,
}

/// What to run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CacheConfig {
    /// Prompt size, tokens.
    pub prompt_tokens: u32,
    /// Runs per arm (the priming run excluded).
    pub repetitions: usize,
    /// Language of the filler.
    pub lang: Lang,
    /// Seed of the nonces, first tokens and interleaving; use a new one per experiment so
    /// an earlier experiment's cache entries do not count.
    pub seed: u64,
    /// How prompts are sized to the provider's token count.
    pub sizing: PromptSizing,
    /// Output limit.
    pub max_tokens: Option<u32>,
}

impl Default for CacheConfig {
    fn default() -> Self {
        CacheConfig {
            prompt_tokens: DEFAULT_PROMPT_TOKENS,
            repetitions: DEFAULT_REPETITIONS,
            lang: Lang::En,
            seed: 0,
            sizing: PromptSizing::estimate(),
            max_tokens: Some(DEFAULT_MAX_TOKENS),
        }
    }
}

/// The first word of the warm prompt (`index` 0) and of the first-token-changed prompts
/// (`index` 1, 2, …): 4 hex digits, one sim token.
///
/// A changed word starts with a different *character* than the warm one (its first hex
/// digit cycles through the 15 others), so the first token differs under any tokenizer,
/// not just the sim's; its last 3 digits count up, so changed words are distinct for up to
/// 4,095 runs.
fn first_word(seed: u64, index: usize) -> String {
    let base = split_mix64(seed) as u16;
    let warm_lead = base >> 12;
    if index == 0 {
        return format!("{base:04x}");
    }
    let lead = (warm_lead + 1 + ((index - 1) % 15) as u16) % 16;
    let tail = base.wrapping_add(index as u16) & 0x0FFF;
    format!("{lead:x}{tail:03x}")
}

/// The plan: the three arms interleaved; each warm run right after a priming run of the
/// same prompt.
pub fn plan(config: &CacheConfig) -> Vec<PlannedRun<CacheKey>> {
    let planned_tokens = config.sizing.filler_tokens_for(config.prompt_tokens);
    // The first word is one sim token; the body is shared by the warm and changed prompts.
    let body = filler_text(planned_tokens.saturating_sub(1), config.lang);
    let run = |run_index: usize,
               key: CacheKey,
               repetition: usize,
               nonce: Option<String>,
               prompt: String| {
        PlannedRun {
            run_index,
            key,
            repetition,
            sim_prompt_tokens: estimated_tokens(&prompt),
            nonce,
            prompt,
            model: None,
            max_tokens: config.max_tokens,
        }
    };
    let warm_prompt = format!("{} {body}", first_word(config.seed, 0));
    let priming = CacheKey {
        arm: CacheArm::Warm,
        priming: true,
    };
    let mut runs = Vec::new();
    let arms = [CacheArm::Cold, CacheArm::Warm, CacheArm::FirstTokenChanged];
    let mut changed_count = 0;
    for (arm_index, repetition) in interleaved_order(arms.len(), config.repetitions, config.seed) {
        let run_index = runs.len();
        let arm = arms[arm_index % arms.len()];
        let key = CacheKey {
            arm,
            priming: false,
        };
        let planned = match arm {
            CacheArm::Cold => {
                let nonce = run_nonce(config.seed, run_index);
                let prompt = sized_prompt(planned_tokens, config.lang, Some(&nonce));
                run(run_index, key, repetition, Some(nonce), prompt)
            }
            CacheArm::Warm => {
                runs.push(run(
                    run_index,
                    priming,
                    repetition,
                    None,
                    warm_prompt.clone(),
                ));
                run(run_index + 1, key, repetition, None, warm_prompt.clone())
            }
            CacheArm::FirstTokenChanged => {
                changed_count += 1;
                let word = first_word(config.seed, changed_count);
                let prompt = format!("{word} {body}");
                run(run_index, key, repetition, Some(word), prompt)
            }
        };
        runs.push(planned);
    }
    runs
}

/// One arm's results.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CacheArmSummary {
    /// The arm.
    pub arm: CacheArm,
    /// Failed runs (or without a TTFT).
    pub failures: usize,
    /// TTFT of the successful runs, ms.
    pub ttft_ms: Option<Summary>,
    /// Successful runs whose usage reported cached tokens (0 included).
    pub runs_reporting_cache: usize,
    /// Successful runs with cached tokens > 0.
    pub runs_with_hit: usize,
    /// Σ cached / Σ prompt tokens over the runs reporting both.
    pub cached_token_share: Option<f64>,
}

/// How a cache hit was judged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HitEvidence {
    /// Cached prompt tokens in usage.
    Usage,
    /// The warm median against the cold one ([`TIMING_HIT_MAX_WARM_SHARE`]): the server
    /// reports no cached tokens.
    Timing,
    /// Not judged (not enough runs).
    None,
}

impl HitEvidence {
    /// Stable code.
    pub fn code(self) -> &'static str {
        match self {
            HitEvidence::Usage => "usage",
            HitEvidence::Timing => "timing",
            HitEvidence::None => "none",
        }
    }
}

/// What the runs say.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CacheResult {
    /// Cold, warm (priming runs excluded), first token changed.
    pub arms: Vec<CacheArmSummary>,
    /// Cold p50 − warm p50, ms.
    pub ttft_saved_ms: Option<f64>,
    /// That saving as a share of the cold p50.
    pub ttft_saved_share: Option<f64>,
    /// How hits were judged.
    pub hit_evidence: HitEvidence,
    /// The findings, most important first.
    pub verdicts: Vec<CacheVerdict>,
}

/// A finding of the prefix-cache experiment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum CacheVerdict {
    /// Fewer than [`MIN_RUNS_PER_ARM`] successful cold or warm runs.
    NotEnoughData,
    /// Warm runs hit reliably and are faster.
    CacheWorks {
        /// Cold p50 − warm p50, ms.
        saved_ms: f64,
        /// Share of the warm prompt tokens served from the cache.
        cached_token_share: f64,
    },
    /// The provider reports no cached tokens, and timing shows a hit: the warm median is at
    /// most [`TIMING_HIT_MAX_WARM_SHARE`] of the cold one.
    TimingShowsHit {
        /// Cold p50 − warm p50, ms.
        saved_ms: f64,
        /// Warm p50 / cold p50.
        warm_share: f64,
    },
    /// The provider reports no cached tokens, and timing shows no hit.
    TimingShowsNoHit {
        /// Cold p50 − warm p50, ms.
        saved_ms: f64,
        /// Warm p50 / cold p50.
        warm_share: f64,
    },
    /// The provider reports cached tokens, but warm runs never hit.
    NoHits,
    /// Warm runs hit only sometimes.
    IntermittentHits {
        /// Warm runs with a hit.
        hit_runs: usize,
        /// Warm runs reporting the cache.
        warm_runs: usize,
    },
    /// Warm runs hit but are not faster than cold ones.
    HitsButNotFaster {
        /// Cold p50 − warm p50, ms.
        saved_ms: f64,
    },
    /// Changing only the first token lost the whole cache (as prefix caches work).
    FirstTokenChangedMisses {
        /// Its p50 − warm p50, ms: what the changed first token cost.
        lost_ms: Option<f64>,
    },
}

impl CacheVerdict {
    /// Stable code (the serde tag).
    pub fn code(&self) -> &'static str {
        match self {
            CacheVerdict::NotEnoughData => "not_enough_data",
            CacheVerdict::CacheWorks { .. } => "cache_works",
            CacheVerdict::TimingShowsHit { .. } => "timing_shows_hit",
            CacheVerdict::TimingShowsNoHit { .. } => "timing_shows_no_hit",
            CacheVerdict::NoHits => "no_hits",
            CacheVerdict::IntermittentHits { .. } => "intermittent_hits",
            CacheVerdict::HitsButNotFaster { .. } => "hits_but_not_faster",
            CacheVerdict::FirstTokenChangedMisses { .. } => "first_token_changed_misses",
        }
    }

    /// What it means and what to do, in `lang`.
    pub fn message(&self, lang: Lang) -> String {
        match self {
            CacheVerdict::NotEnoughData => not_enough_data_message(lang),
            CacheVerdict::CacheWorks {
                saved_ms,
                cached_token_share,
            } => cache_works_message(lang, *saved_ms, *cached_token_share),
            CacheVerdict::TimingShowsHit {
                saved_ms,
                warm_share,
            } => timing_shows_hit_message(lang, *saved_ms, *warm_share),
            CacheVerdict::TimingShowsNoHit {
                saved_ms,
                warm_share,
            } => timing_shows_no_hit_message(lang, *saved_ms, *warm_share),
            CacheVerdict::NoHits => no_hits_message(lang),
            CacheVerdict::IntermittentHits {
                hit_runs,
                warm_runs,
            } => intermittent_hits_message(lang, *hit_runs, *warm_runs),
            CacheVerdict::HitsButNotFaster { saved_ms } => {
                hits_but_not_faster_message(lang, *saved_ms)
            }
            CacheVerdict::FirstTokenChangedMisses { lost_ms } => {
                first_token_changed_misses_message(lang, *lost_ms)
            }
        }
    }
}

/// The message of [`CacheVerdict::NotEnoughData`].
fn not_enough_data_message(lang: Lang) -> String {
    t::CACHE_VERDICT_NOT_ENOUGH_DATA.fill(lang, &[("min_runs_per_arm", &MIN_RUNS_PER_ARM)])
}

/// The message of [`CacheVerdict::CacheWorks`].
fn cache_works_message(lang: Lang, saved_ms: f64, cached_token_share: f64) -> String {
    let (saved, share) = (ms(saved_ms), percent(cached_token_share));
    t::CACHE_VERDICT_CACHE_WORKS.fill(lang, &[("share", &share), ("saved", &saved)])
}

/// The message of [`CacheVerdict::TimingShowsHit`].
fn timing_shows_hit_message(lang: Lang, saved_ms: f64, warm_share: f64) -> String {
    let (saved, share, limit) = (
        ms(saved_ms),
        percent(warm_share),
        percent(TIMING_HIT_MAX_WARM_SHARE),
    );
    t::CACHE_VERDICT_TIMING_SHOWS_HIT.fill(lang, &[("share", &share), ("limit", &limit), ("saved", &saved)])
}

/// The message of [`CacheVerdict::TimingShowsNoHit`].
fn timing_shows_no_hit_message(lang: Lang, saved_ms: f64, warm_share: f64) -> String {
    let (saved, share, limit) = (
        ms(saved_ms),
        percent(warm_share),
        percent(TIMING_HIT_MAX_WARM_SHARE),
    );
    t::CACHE_VERDICT_TIMING_SHOWS_NO_HIT.fill(lang, &[("share", &share), ("saved", &saved), ("limit", &limit)])
}

/// The message of [`CacheVerdict::NoHits`].
fn no_hits_message(lang: Lang) -> String {
    t::CACHE_VERDICT_NO_HITS.fill(lang, &[])
}

/// The message of [`CacheVerdict::IntermittentHits`].
fn intermittent_hits_message(lang: Lang, hit_runs: usize, warm_runs: usize) -> String {
    t::CACHE_VERDICT_INTERMITTENT_HITS.fill(lang, &[("hit_runs", &hit_runs), ("warm_runs", &warm_runs)])
}

/// The message of [`CacheVerdict::HitsButNotFaster`].
fn hits_but_not_faster_message(lang: Lang, saved_ms: f64) -> String {
    let saved = ms(saved_ms);
    t::CACHE_VERDICT_HITS_BUT_NOT_FASTER.fill(lang, &[("saved", &saved)])
}

/// The message of [`CacheVerdict::FirstTokenChangedMisses`].
fn first_token_changed_misses_message(lang: Lang, lost_ms: Option<f64>) -> String {
    let lost = lost_ms.map_or("-".to_string(), ms);
    t::CACHE_VERDICT_FIRST_TOKEN_CHANGED_MISSES.fill(lang, &[("lost", &lost)])
}

/// Summarizes one arm (the priming run is never part of an arm).
fn arm_summary(observations: &[Observation<CacheKey>], arm: CacheArm) -> CacheArmSummary {
    let runs: Vec<&Observation<CacheKey>> = observations
        .iter()
        .filter(|o| o.key.arm == arm && !o.key.priming)
        .collect();
    let ok: Vec<&Observation<CacheKey>> = runs
        .iter()
        .copied()
        .filter(|o| o.sample.usable_ttft_ms().is_some())
        .collect();
    let ttfts: Vec<f64> = ok
        .iter()
        .filter_map(|o| o.sample.usable_ttft_ms())
        .collect();
    let cached: Vec<u64> = ok
        .iter()
        .filter_map(|o| o.sample.cached_prompt_tokens)
        .collect();
    let (cached_sum, prompt_sum) = ok
        .iter()
        .filter_map(|o| Some((o.sample.cached_prompt_tokens?, o.sample.prompt_tokens?)))
        .fold((0u64, 0u64), |(c, p), (cached, prompt)| {
            (c + cached, p + prompt)
        });
    CacheArmSummary {
        arm,
        failures: runs.len() - ok.len(),
        ttft_ms: summary_of(&ttfts),
        runs_reporting_cache: cached.len(),
        runs_with_hit: cached.iter().filter(|&&c| c > 0).count(),
        cached_token_share: (prompt_sum > 0).then(|| cached_sum as f64 / prompt_sum as f64),
    }
}

/// Analyses the runs (see the constants for each rule).
pub fn analyze(observations: &[Observation<CacheKey>]) -> CacheResult {
    let cold = arm_summary(observations, CacheArm::Cold);
    let warm = arm_summary(observations, CacheArm::Warm);
    let changed = arm_summary(observations, CacheArm::FirstTokenChanged);
    let p50 = |arm: &CacheArmSummary| arm.ttft_ms.as_ref().map(|s| s.p50);
    let count = |arm: &CacheArmSummary| arm.ttft_ms.as_ref().map_or(0, |s| s.count);
    let saved = match (p50(&cold), p50(&warm)) {
        (Some(cold_ms), Some(warm_ms)) => Some((cold_ms - warm_ms, cold_ms)),
        _ => None,
    };
    let ttft_saved_ms = saved.map(|(saved_ms, _)| saved_ms);
    let ttft_saved_share = saved
        .filter(|(_, cold_ms)| *cold_ms > 0.0)
        .map(|(saved_ms, cold_ms)| saved_ms / cold_ms);
    let (verdicts, hit_evidence) = match saved {
        Some((saved_ms, cold_ms))
            if count(&cold) >= MIN_RUNS_PER_ARM && count(&warm) >= MIN_RUNS_PER_ARM =>
        {
            let lost_ms = p50(&changed).zip(p50(&warm)).map(|(c, w)| c - w);
            if warm.runs_reporting_cache == 0 {
                let timing = timing_verdicts(saved_ms, cold_ms, p50(&changed), lost_ms);
                (timing, HitEvidence::Timing)
            } else {
                let mut verdicts = warm_verdicts(&warm, saved_ms, cold_ms);
                if warm.runs_with_hit > 0
                    && changed.runs_reporting_cache > 0
                    && changed.runs_with_hit == 0
                {
                    verdicts.push(CacheVerdict::FirstTokenChangedMisses { lost_ms });
                }
                (verdicts, HitEvidence::Usage)
            }
        }
        _ => (vec![CacheVerdict::NotEnoughData], HitEvidence::None),
    };
    CacheResult {
        arms: vec![cold, warm, changed],
        ttft_saved_ms,
        ttft_saved_share,
        hit_evidence,
        verdicts,
    }
}

/// Whether a median of `arm_ms` against the cold median is a hit by timing.
fn hit_by_timing(arm_ms: f64, cold_ms: f64) -> bool {
    cold_ms > 0.0
        && arm_ms <= TIMING_HIT_MAX_WARM_SHARE * cold_ms
        && cold_ms - arm_ms >= MIN_SAVING_MS
}

/// The verdicts when usage reports no cached tokens: timing is the evidence.
fn timing_verdicts(
    saved_ms: f64,
    cold_ms: f64,
    changed_ms: Option<f64>,
    lost_ms: Option<f64>,
) -> Vec<CacheVerdict> {
    let warm_ms = cold_ms - saved_ms;
    let warm_share = if cold_ms > 0.0 {
        warm_ms / cold_ms
    } else {
        1.0
    };
    if !hit_by_timing(warm_ms, cold_ms) {
        return vec![CacheVerdict::TimingShowsNoHit {
            saved_ms,
            warm_share,
        }];
    }
    let mut verdicts = vec![CacheVerdict::TimingShowsHit {
        saved_ms,
        warm_share,
    }];
    if changed_ms.is_some_and(|changed_ms| !hit_by_timing(changed_ms, cold_ms)) {
        verdicts.push(CacheVerdict::FirstTokenChangedMisses { lost_ms });
    }
    verdicts
}

/// The verdicts about the warm arm from usage: hits, reliability, saving.
fn warm_verdicts(warm: &CacheArmSummary, saved_ms: f64, cold_ms: f64) -> Vec<CacheVerdict> {
    if warm.runs_with_hit == 0 {
        return vec![CacheVerdict::NoHits];
    }
    let mut verdicts = Vec::new();
    let hit_share = warm.runs_with_hit as f64 / warm.runs_reporting_cache as f64;
    if hit_share < RELIABLE_HIT_SHARE {
        verdicts.push(CacheVerdict::IntermittentHits {
            hit_runs: warm.runs_with_hit,
            warm_runs: warm.runs_reporting_cache,
        });
    }
    let min_saving_ms = MIN_SAVING_MS.max(MIN_SAVING_SHARE * cold_ms);
    if saved_ms < min_saving_ms {
        verdicts.push(CacheVerdict::HitsButNotFaster { saved_ms });
    } else if hit_share >= RELIABLE_HIT_SHARE {
        verdicts.push(CacheVerdict::CacheWorks {
            saved_ms,
            cached_token_share: warm.cached_token_share.unwrap_or(0.0),
        });
    }
    verdicts
}

/// Median of the cached tokens the successful runs of `arm` reported (priming runs
/// excluded).
fn median_cached_tokens(observations: &[Observation<CacheKey>], arm: CacheArm) -> Option<f64> {
    let cached: Vec<f64> = observations
        .iter()
        .filter(|o| o.key.arm == arm && !o.key.priming && o.sample.succeeded)
        .filter_map(|o| o.sample.cached_prompt_tokens.map(|c| c as f64))
        .collect();
    super::figures::median_of(&cached)
}

/// The arm's name.
fn arm_label(arm: CacheArm) -> Bilingual {
    match arm {
        CacheArm::Cold => t::COLD.bilingual(),
        CacheArm::Warm => t::WARM.bilingual(),
        CacheArm::FirstTokenChanged => t::FIRST_TOKEN_CHANGED.bilingual(),
    }
}

/// The prompt size field.
pub const PROMPT_TOKENS: CountParam = CountParam {
    id: "prompt-tokens",
    label: t::PARAM_PROMPT_SIZE,
    min: 1,
    max: MAX_PROMPT_TOKENS,
    default: DEFAULT_PROMPT_TOKENS,
};

/// The repetitions field.
pub const REPETITIONS: CountParam = CountParam {
    id: "repetitions",
    label: t::PARAM_RUNS_PER_LEVEL,
    min: 1,
    max: MAX_REPETITIONS,
    default: DEFAULT_REPETITIONS as u32,
};

/// The prefix-cache experiment in the registry.
#[derive(Debug, Clone, Copy)]
pub struct PrefixCache;

impl Experiment for PrefixCache {
    fn code(&self) -> &'static str {
        "prefix_cache"
    }

    fn label(&self) -> Bilingual {
        t::PREFIX_CACHE.bilingual()
    }

    fn description(&self) -> Bilingual {
        t::CACHE_DESCRIPTION.bilingual()
    }

    fn schedule_kind(&self) -> ScheduleKind {
        ScheduleKind::Sequence
    }

    fn params(&self) -> Vec<ParamSpec> {
        vec![PROMPT_TOKENS.spec(), REPETITIONS.spec()]
    }

    fn configure(&self, inputs: &Inputs, setup: &Setup) -> Result<Planning, SetupError> {
        let requested = PROMPT_TOKENS.read(inputs)?;
        let repetitions = REPETITIONS.read(inputs)? as usize;
        let budget = context_budget(setup.context_window_tokens, DEFAULT_MAX_TOKENS);
        plan_sized(setup, budget, &[requested], move |fitted| {
            let config = CacheConfig {
                prompt_tokens: fitted.only(requested),
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

impl Design for CacheConfig {
    type Key = CacheKey;

    fn code(&self) -> &'static str {
        PrefixCache.code()
    }

    fn schedule(&self, book: &RunBook<CacheKey>) -> Schedule {
        let sizing = Some((&self.sizing, self.prompt_tokens));
        Schedule::Sequence {
            runs: book.specs(|run| {
                let (role, level) = if run.key.priming {
                    (
                        RunRole::Priming,
                        t::WARM_PRIMING.bilingual(),
                    )
                } else {
                    (RunRole::Measured, arm_label(run.key.arm))
                };
                run_spec(run, role, level, sizing)
            }),
        }
    }

    fn report(&self, book: &RunBook<CacheKey>) -> Report {
        let result = analyze(&book.observations);
        report(&result, &book.observations, &self.sizing)
    }

    fn sizing(&self) -> Option<&PromptSizing> {
        Some(&self.sizing)
    }

    fn is_priming(&self, key: &CacheKey) -> bool {
        key.priming
    }
}

/// The display-neutral report of a prefix-cache analysis.
pub fn report(
    result: &CacheResult,
    observations: &[Observation<CacheKey>],
    sizing: &PromptSizing,
) -> Report {
    let mut report = Report::new(PrefixCache.code());
    for verdict in &result.verdicts {
        report.verdict(
            verdict.code(),
            Bilingual::from_fn(|lang| verdict.message(lang)),
        );
    }
    push_notes(&mut report, result, sizing);
    push_numbers(&mut report, result, observations);
    report.chart = Some(ttft_chart(observations));
    report.table = arms_table(result, observations);
    report
}

/// The notes: the time saved, the priming runs, how hits were judged, the prompt sizing.
fn push_notes(report: &mut Report, result: &CacheResult, sizing: &PromptSizing) {
    let saved = result
        .ttft_saved_ms
        .map_or("—".into(), |v| format!("{v:.0}"));
    report.notes.push(t::TTFT_SAVED_BY_THE_CACHE_COLD.bilingual_with(&[("saved", &saved)]));
    report.notes.push(t::CACHE_NOTE_PRIMING.bilingual());
    match result.hit_evidence {
        HitEvidence::Usage => report.notes.push(t::HITS_WERE_JUDGED_FROM_USAGE_THE.bilingual()),
        HitEvidence::Timing => {
            let limit = percent(TIMING_HIT_MAX_WARM_SHARE);
            report.notes.push(t::CACHE_NOTE_TIMING_EVIDENCE.bilingual_with(&[
                ("limit", &limit),
                ("min_saving_ms", &format!("{MIN_SAVING_MS:.0}")),
            ]));
        }
        HitEvidence::None => {}
    }
    report.notes.extend(sizing.notes());
}

/// The named numbers and words: cached tokens, medians, time saved, hit evidence.
fn push_numbers(report: &mut Report, result: &CacheResult, observations: &[Observation<CacheKey>]) {
    let p50 = |arm: CacheArm| {
        result
            .arms
            .iter()
            .find(|a| a.arm == arm)
            .and_then(|a| a.ttft_ms.as_ref().map(|s| s.p50))
    };
    report.number(
        "warm-cached-tokens",
        median_cached_tokens(observations, CacheArm::Warm),
    );
    report.number(
        "cold-cached-tokens",
        median_cached_tokens(observations, CacheArm::Cold),
    );
    report.number("cold-p50-ms", p50(CacheArm::Cold));
    report.number("warm-p50-ms", p50(CacheArm::Warm));
    report.number("saved-ms", result.ttft_saved_ms);
    report.word("hit-evidence", result.hit_evidence.code());
}

/// The chart: TTFT per repetition, one series per arm (priming runs left out).
fn ttft_chart(observations: &[Observation<CacheKey>]) -> Chart {
    let arms = [
        (CacheArm::Cold, Colour::Cold),
        (CacheArm::Warm, Colour::Warm),
        (CacheArm::FirstTokenChanged, Colour::Changed),
    ];
    let series = arms
        .iter()
        .map(|&(arm, colour)| {
            let values = observations
                .iter()
                .filter(|o| o.key.arm == arm && !o.key.priming)
                .map(|o| o.sample.usable_ttft_ms())
                .collect();
            Series::values(arm_label(arm), colour, values)
        })
        .collect();
    Chart {
        title: t::TTFT_MS_PER_REPETITION_BY_ARM.bilingual(),
        kind: ChartKind::Sequence,
        x: Axis::new(t::REPETITION.bilingual(), Unit::Count),
        y: Axis::new(t::TTFT.bilingual(), Unit::Ms),
        series,
        references: Vec::new(),
        fits: Vec::new(),
    }
}

/// The table: one row per arm with failures, percentiles, cached tokens and hits.
fn arms_table(result: &CacheResult, observations: &[Observation<CacheKey>]) -> Table {
    let columns = vec![
        Column::new(t::ARM.bilingual(), Unit::None),
        Column::new(t::FAILED.bilingual(), Unit::Count),
        Column::new(same_text("p50"), Unit::Ms),
        Column::new(same_text("p95"), Unit::Ms),
        Column::new(
            t::CACHED_TOKENS_MEDIAN.bilingual(),
            Unit::Tokens,
        ),
        Column::new(t::HITS.bilingual(), Unit::None),
        Column::new(t::CACHED_SHARE.bilingual(), Unit::Share),
    ];
    let rows = result
        .arms
        .iter()
        .map(|summary| {
            vec![
                Cell::Text(arm_label(summary.arm)),
                Cell::count(summary.failures),
                Cell::ms(summary.ttft_ms.as_ref().map(|s| s.p50)),
                Cell::ms(summary.ttft_ms.as_ref().map(|s| s.p95)),
                Cell::number(median_cached_tokens(observations, summary.arm), 0),
                Cell::word(format!(
                    "{}/{}",
                    summary.runs_with_hit, summary.runs_reporting_cache
                )),
                Cell::share(summary.cached_token_share),
            ]
        })
        .collect();
    Table { columns, rows }
}
