//! Experiment 5: prefix caching.
//!
//! Three arms, interleaved after one priming run of the warm prompt:
//! - **cold**: a unique nonce at position 0, so no block of the prompt was seen before;
//! - **warm**: the identical prompt every time (the priming run put it in the cache);
//! - **first token changed**: the warm prompt with only its first token replaced (a new
//!   one every run). Prefix caches match block by block from the first token, so this
//!   loses the whole cache although 99.9% of the text is the same.
//!
//! The numbers come from usage (`cached_prompt_tokens`) and from TTFT: the time saved is
//! the cold median minus the warm median.

use serde::{Deserialize, Serialize};

use super::filler::{filler_text, sim_token_count, sized_prompt, TokenCalibration};
use super::{bilingual, interleaved_order, ms, percent, run_nonce, split_mix64, summary_of};
use super::{Observation, PlannedRun};
use crate::lang::Lang;
use crate::stats::Summary;

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
    /// Correction for the provider's tokenizer.
    pub calibration: TokenCalibration,
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
            calibration: TokenCalibration::IDENTITY,
            max_tokens: Some(16),
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

/// The plan: one priming run of the warm prompt, then the three arms interleaved.
pub fn plan(config: &CacheConfig) -> Vec<PlannedRun<CacheKey>> {
    let planned_tokens = config.calibration.planned_for(config.prompt_tokens);
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
            sim_prompt_tokens: sim_token_count(&prompt),
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
    let mut runs = vec![run(0, priming, 0, None, warm_prompt.clone())];
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
            CacheArm::Warm => run(run_index, key, repetition, None, warm_prompt.clone()),
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

/// What the runs say.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CacheResult {
    /// Cold, warm (priming run excluded), first token changed.
    pub arms: Vec<CacheArmSummary>,
    /// Cold p50 − warm p50, ms.
    pub ttft_saved_ms: Option<f64>,
    /// That saving as a share of the cold p50.
    pub ttft_saved_share: Option<f64>,
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
    /// The provider reports no cached tokens: usage cannot tell.
    CacheNotReported {
        /// Cold p50 − warm p50, ms (the only evidence left).
        saved_ms: f64,
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
    /// What it means and what to do, in `lang`.
    pub fn message(&self, lang: Lang) -> String {
        match self {
            CacheVerdict::NotEnoughData => bilingual(
                lang,
                format!(
                    "Not enough successful runs: the cold and warm arms need at least \
                     {MIN_RUNS_PER_ARM} each. Check the failed runs and try again."
                ),
                format!(
                    "成功的运行不够：冷启动组和热缓存组各至少需要 {MIN_RUNS_PER_ARM} 次。请检查失败的运行后重试。"
                ),
            ),
            CacheVerdict::CacheWorks {
                saved_ms,
                cached_token_share,
            } => {
                let (saved, share) = (ms(*saved_ms), percent(*cached_token_share));
                bilingual(
                    lang,
                    format!(
                        "The prefix cache works: {share} of the repeated prompt came from the \
                         cache and TTFT dropped by {saved} ms. Keep the start of your prompts \
                         stable (system prompt, tools, documents first; dates, names and the \
                         question last)."
                    ),
                    format!(
                        "前缀缓存有效：重复提示中 {share} 的 token 来自缓存，首字延迟降低了 {saved} 毫秒。\
                         请保持提示开头不变（系统提示、工具、文档在前；日期、姓名和问题放在最后）。"
                    ),
                )
            }
            CacheVerdict::CacheNotReported { saved_ms } => {
                let saved = ms(*saved_ms);
                bilingual(
                    lang,
                    format!(
                        "The provider reports no cached tokens, so usage cannot tell whether the \
                         cache hit. The only evidence is TTFT: repeated prompts were {saved} ms \
                         faster than cold ones (a clear drop suggests a hit)."
                    ),
                    format!(
                        "服务商没有报告缓存的 token 数，无法从用量判断是否命中缓存。唯一的证据是首字延迟：\
                         重复提示比冷启动快 {saved} 毫秒（明显变快说明可能命中）。"
                    ),
                )
            }
            CacheVerdict::NoHits => bilingual(
                lang,
                "No cache hit: the identical prompt was never served from the cache. Caching may be \
                 off, need an explicit opt-in (cache_control) or a minimum length (often 1,024 \
                 tokens), or something at the start of the prompt changes on every request."
                    .into(),
                "没有命中缓存：完全相同的提示一次也没有从缓存读取。可能缓存未开启、需要显式开启\
                 （cache_control）或有最小长度要求（常见为 1024 个 token），或者提示开头每次都在变化。"
                    .into(),
            ),
            CacheVerdict::IntermittentHits {
                hit_runs,
                warm_runs,
            } => bilingual(
                lang,
                format!(
                    "Cache hits are intermittent: only {hit_runs} of {warm_runs} identical \
                     prompts hit. Round-robin replicas dilute hits (each replica has its own \
                     cache); use session affinity or the provider's cache key (such as \
                     prompt_cache_key or a user id) to route repeats to the same replica."
                ),
                format!(
                    "缓存命中时有时无：{warm_runs} 次相同提示中只有 {hit_runs} 次命中。轮询的多个副本会稀释\
                     命中（每个副本有自己的缓存）；请使用会话亲和或服务商的缓存键（如 prompt_cache_key \
                     或用户 ID）把重复请求路由到同一副本。"
                ),
            ),
            CacheVerdict::HitsButNotFaster { saved_ms } => {
                let saved = ms(*saved_ms);
                bilingual(
                    lang,
                    format!(
                        "The cache hits but warm runs are not faster (difference {saved} ms): \
                         prefill is not what makes this endpoint slow. Look at the network and \
                         queueing instead, or at a provider that bills cached tokens without \
                         skipping their computation."
                    ),
                    format!(
                        "缓存命中了，但热缓存的运行并没有更快（相差 {saved} 毫秒）：拖慢这个端点的不是预填充。\
                         请检查网络和排队，或者服务商只是对缓存 token 计费优惠而并未跳过计算。"
                    ),
                )
            }
            CacheVerdict::FirstTokenChangedMisses { lost_ms } => {
                let lost = lost_ms.map_or("-".to_string(), ms);
                bilingual(
                    lang,
                    format!(
                        "Changing only the first token lost the whole cache (TTFT {lost} ms \
                         slower than warm): caches match from position 0. Never put anything \
                         that changes (a timestamp, a request id, a user name) at the start of \
                         the prompt."
                    ),
                    format!(
                        "只改动第一个 token 就完全失去了缓存（首字延迟比热缓存慢 {lost} 毫秒）：缓存从第 0 个\
                         位置开始匹配。不要把会变化的内容（时间戳、请求 ID、用户名）放在提示开头。"
                    ),
                )
            }
        }
    }
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
    let verdicts = match saved {
        Some((saved_ms, cold_ms))
            if count(&cold) >= MIN_RUNS_PER_ARM && count(&warm) >= MIN_RUNS_PER_ARM =>
        {
            let mut verdicts = warm_verdicts(&warm, saved_ms, cold_ms);
            let lost_ms = p50(&changed).zip(p50(&warm)).map(|(c, w)| c - w);
            if warm.runs_with_hit > 0
                && changed.runs_reporting_cache > 0
                && changed.runs_with_hit == 0
            {
                verdicts.push(CacheVerdict::FirstTokenChangedMisses { lost_ms });
            }
            verdicts
        }
        _ => vec![CacheVerdict::NotEnoughData],
    };
    CacheResult {
        arms: vec![cold, warm, changed],
        ttft_saved_ms,
        ttft_saved_share,
        verdicts,
    }
}

/// The verdicts about the warm arm: reporting, hits, reliability, saving.
fn warm_verdicts(warm: &CacheArmSummary, saved_ms: f64, cold_ms: f64) -> Vec<CacheVerdict> {
    if warm.runs_reporting_cache == 0 {
        return vec![CacheVerdict::CacheNotReported { saved_ms }];
    }
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
