//! Prefix-cache experiment: the plan's prompts go through a copy of ttft-sim's block
//! cache (64-token blocks, chained from position 0) and its prefill formula, or through a
//! cache that keeps only the last prompt (llama.cpp's slots, llama-cpp-python).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::experiment_sim_model as sim_model;

use sim_model::{sim_count, sim_tokenize, SimCache, SIM_SLOW_PREFILL};
use ttft_core::lang::Lang;
use ttft_lab::experiment::cache::{
    analyze, plan, CacheArm, CacheConfig, CacheKey, CacheVerdict, HitEvidence,
};
use ttft_lab::experiment::{Observation, PlannedRun, RunSample};

const NETWORK_MS: f64 = 40.0;

fn config() -> CacheConfig {
    CacheConfig {
        prompt_tokens: 4_000,
        seed: 21,
        ..CacheConfig::default()
    }
}

/// How the provider behaves.
struct Provider {
    /// Replicas behind a round-robin balancer, each with its own cache.
    replicas: usize,
    /// Whether usage reports cached tokens.
    reports_cache: bool,
    /// Whether the cache is on.
    cache_on: bool,
}

fn run(provider: &Provider, runs: &[PlannedRun<CacheKey>]) -> Vec<Observation<CacheKey>> {
    let mut caches: Vec<SimCache> = (0..provider.replicas)
        .map(|_| SimCache::default())
        .collect();
    runs.iter()
        .map(|run| {
            let replica = run.run_index % provider.replicas;
            let tokens = sim_count(&run.prompt);
            let cached = if provider.cache_on {
                caches[replica].lookup_and_insert(&run.prompt)
            } else {
                0
            };
            let ttft = NETWORK_MS + SIM_SLOW_PREFILL.prefill_ms(tokens - cached, None);
            run.observe(RunSample {
                prompt_tokens: Some(tokens),
                cached_prompt_tokens: provider.reports_cache.then_some(cached),
                ..RunSample::with_ttft(ttft)
            })
        })
        .collect()
}

/// A server cache that keeps only the last prompt (llama.cpp's slot, llama-cpp-python):
/// a prompt reuses the tokens it shares from position 0 with the previous prompt.
#[derive(Default)]
struct LastPromptCache {
    last: Vec<String>,
}

impl LastPromptCache {
    fn lookup_and_insert(&mut self, text: &str) -> u64 {
        let tokens = sim_tokenize(text);
        let shared = tokens
            .iter()
            .zip(&self.last)
            .take_while(|(a, b)| a == b)
            .count();
        // The last token is always evaluated again (its logits start the answer).
        let reused = shared.min(tokens.len().saturating_sub(1));
        self.last = tokens;
        reused as u64
    }
}

#[test]
fn plan_primes_right_before_every_warm_run_and_interleaves_three_arms() {
    let runs = plan(&config());
    // 5 rounds of cold, priming + warm, first token changed.
    assert_eq!(runs.len(), 20);
    assert_eq!(
        runs[1].key,
        CacheKey {
            arm: CacheArm::Warm,
            priming: true
        }
    );
    let warm_prompt = &runs[1].prompt;
    let warm_tokens = sim_tokenize(warm_prompt);
    for chunk in runs.chunks(4) {
        let mut arms: Vec<CacheArm> = chunk
            .iter()
            .filter(|r| !r.key.priming)
            .map(|r| r.key.arm)
            .collect();
        arms.sort_by_key(|arm| *arm as u8);
        assert_eq!(
            arms,
            vec![CacheArm::Cold, CacheArm::Warm, CacheArm::FirstTokenChanged]
        );
    }
    // Every warm run comes right after a priming run of the same prompt, and every priming
    // run right before a warm run.
    for (index, run) in runs.iter().enumerate() {
        assert_eq!(run.run_index, index);
        if run.key.arm == CacheArm::Warm && !run.key.priming {
            let before = &runs[index - 1];
            assert!(before.key.priming, "run {index} follows {:?}", before.key);
            assert_eq!(before.prompt, run.prompt);
        }
        if run.key.priming {
            assert_eq!(runs[index + 1].key.arm, CacheArm::Warm);
            assert!(!runs[index + 1].key.priming);
        }
    }
    let mut changed_first_tokens = Vec::new();
    for run in &runs {
        assert_eq!(sim_count(&run.prompt), 4_000, "{:?}", run.key);
        match run.key.arm {
            CacheArm::Warm => assert_eq!(&run.prompt, warm_prompt),
            CacheArm::Cold => assert!(run.prompt.starts_with(run.nonce.as_deref().unwrap())),
            CacheArm::FirstTokenChanged => {
                let tokens = sim_tokenize(&run.prompt);
                // Only token 0 differs from the warm prompt.
                assert_ne!(tokens[0], warm_tokens[0]);
                // Even the first character differs, so any tokenizer's first token does.
                assert_ne!(tokens[0].chars().next(), warm_tokens[0].chars().next());
                assert_eq!(tokens[0].len(), 4);
                assert_eq!(tokens[1..], warm_tokens[1..]);
                changed_first_tokens.push(tokens[0].clone());
            }
        }
    }
    changed_first_tokens.sort();
    changed_first_tokens.dedup();
    assert_eq!(changed_first_tokens.len(), 5, "a new first token every run");
    // Many repetitions: still distinct, still one sim token each.
    let many = plan(&CacheConfig {
        prompt_tokens: 200,
        repetitions: 300,
        ..config()
    });
    let mut words: Vec<&str> = many
        .iter()
        .filter(|r| r.key.arm == CacheArm::FirstTokenChanged)
        .filter_map(|r| r.nonce.as_deref())
        .collect();
    assert!(many.iter().all(|r| sim_count(&r.prompt) == 200));
    words.sort_unstable();
    words.dedup();
    assert_eq!(words.len(), 300);
    // The Chinese plan has the same structure.
    let chinese = plan(&CacheConfig {
        lang: Lang::Zh,
        ..config()
    });
    assert!(chinese.iter().all(|r| sim_count(&r.prompt) == 4_000));
}

#[test]
fn single_replica_cache_works_and_position_0_loses_everything() {
    let provider = Provider {
        replicas: 1,
        reports_cache: true,
        cache_on: true,
    };
    let result = analyze(&run(&provider, &plan(&config())));
    // 4000 tokens = 62 whole blocks of 64 (3968 tokens) + 32. Cold prefill:
    // 300 + 0.5·4000 + 2e-4·4000² = 5500 ms; warm: 300 + 0.5·32 + 2e-4·32² = 316.2048 ms.
    let saved = 5_500.0 - 316.2048;
    assert!((result.ttft_saved_ms.unwrap() - saved).abs() < 1e-6);
    let warm = &result.arms[1];
    assert_eq!(warm.arm, CacheArm::Warm);
    assert_eq!((warm.runs_with_hit, warm.runs_reporting_cache), (5, 5));
    assert!((warm.cached_token_share.unwrap() - 3_968.0 / 4_000.0).abs() < 1e-12);
    assert_eq!(result.arms[0].runs_with_hit, 0, "cold never hits");
    assert_eq!(
        result.arms[2].runs_with_hit, 0,
        "changed first token never hits"
    );
    assert_eq!(
        result.verdicts,
        vec![
            CacheVerdict::CacheWorks {
                saved_ms: result.ttft_saved_ms.unwrap(),
                cached_token_share: 3_968.0 / 4_000.0
            },
            CacheVerdict::FirstTokenChangedMisses {
                lost_ms: Some(saved)
            }
        ]
    );
}

#[test]
fn round_robin_replicas_make_hits_intermittent() {
    // Runs go to replica run_index % 5. With seed 21 the arms start at the cold arm
    // (21 % 3 = 0): rounds C P W F, P W F C, F C P W, C P W F, P W F C, so the priming runs
    // are 1, 4, 10, 13, 16 (replicas 1, 4, 0, 3, 1) and the warm runs 2, 5, 11, 14, 17
    // (replicas 2, 0, 1, 4, 2). A warm run lands on another replica than its priming run:
    // it hits only where an earlier run of the warm prompt went. Runs 2 and 5 miss
    // (replicas 2 and 0 had not seen it); 11, 14 and 17 hit: 3 of 5.
    let provider = Provider {
        replicas: 5,
        reports_cache: true,
        cache_on: true,
    };
    let runs = plan(&config());
    let warm_indexes: Vec<usize> = runs
        .iter()
        .filter(|r| r.key.arm == CacheArm::Warm && !r.key.priming)
        .map(|r| r.run_index)
        .collect();
    assert_eq!(warm_indexes, vec![2, 5, 11, 14, 17]);
    let result = analyze(&run(&provider, &runs));
    assert_eq!(
        result.verdicts[0],
        CacheVerdict::IntermittentHits {
            hit_runs: 3,
            warm_runs: 5
        }
    );
    assert!(!result
        .verdicts
        .iter()
        .any(|v| matches!(v, CacheVerdict::CacheWorks { .. })));
}

#[test]
fn unreported_and_disabled_caches() {
    let silent = Provider {
        replicas: 1,
        reports_cache: false,
        cache_on: true,
    };
    let result = analyze(&run(&silent, &plan(&config())));
    // No usage: timing judges. Warm 40 + 316.2 ms is 6.4% of cold 40 + 5500 ms (a hit
    // needs ≤ 80%); the changed first token stays at the cold TTFT (no hit).
    let saved = 5_500.0 - 316.2048;
    assert_eq!(result.hit_evidence, HitEvidence::Timing);
    assert_eq!(result.verdicts.len(), 2);
    let CacheVerdict::TimingShowsHit {
        saved_ms,
        warm_share,
    } = result.verdicts[0]
    else {
        panic!("{:?}", result.verdicts);
    };
    assert!((saved_ms - saved).abs() < 1e-6);
    assert!((warm_share - (NETWORK_MS + 316.2048) / (NETWORK_MS + 5_500.0)).abs() < 1e-12);
    assert_eq!(
        result.verdicts[1],
        CacheVerdict::FirstTokenChangedMisses {
            lost_ms: Some(saved)
        }
    );
    assert_eq!(result.arms[1].runs_reporting_cache, 0);
    // No usage and no cache: timing sees equal medians.
    let silent_and_off = Provider {
        replicas: 1,
        reports_cache: false,
        cache_on: false,
    };
    let result = analyze(&run(&silent_and_off, &plan(&config())));
    assert_eq!(
        result.verdicts,
        vec![CacheVerdict::TimingShowsNoHit {
            saved_ms: 0.0,
            warm_share: 1.0
        }]
    );
    let disabled = Provider {
        replicas: 1,
        reports_cache: true,
        cache_on: false,
    };
    let result = analyze(&run(&disabled, &plan(&config())));
    assert_eq!(result.verdicts, vec![CacheVerdict::NoHits]);
    assert_eq!(result.hit_evidence, HitEvidence::Usage);
    assert_eq!(result.ttft_saved_ms, Some(0.0));
}

/// Runs `runs` in order through a last-prompt cache; usage reports cached tokens when
/// `reports_cache`.
fn run_last_prompt(
    runs: &[PlannedRun<CacheKey>],
    reports_cache: bool,
) -> Vec<Observation<CacheKey>> {
    let mut cache = LastPromptCache::default();
    runs.iter()
        .map(|run| {
            let tokens = sim_count(&run.prompt);
            let cached = cache.lookup_and_insert(&run.prompt);
            let ttft = NETWORK_MS + SIM_SLOW_PREFILL.prefill_ms(tokens - cached, None);
            run.observe(RunSample {
                prompt_tokens: Some(tokens),
                cached_prompt_tokens: reports_cache.then_some(cached),
                ..RunSample::with_ttft(ttft)
            })
        })
        .collect()
}

#[test]
fn a_cache_of_the_last_prompt_only_hits_because_each_warm_run_follows_its_priming_run() {
    // Issue 12: llama-cpp-python keeps only the last prompt's KV. Every warm run right after
    // its priming run reuses all but the last of its 4000 tokens: prefill of 1 token.
    let runs = plan(&config());
    let warm_ms = NETWORK_MS + SIM_SLOW_PREFILL.prefill_ms(1, None);
    let cold_ms = NETWORK_MS + SIM_SLOW_PREFILL.prefill_ms(4_000, None);
    let result = analyze(&run_last_prompt(&runs, true));
    let warm = &result.arms[1];
    assert_eq!((warm.runs_with_hit, warm.runs_reporting_cache), (5, 5));
    assert!((warm.cached_token_share.unwrap() - 3_999.0 / 4_000.0).abs() < 1e-12);
    assert_eq!(result.arms[0].runs_with_hit, 0);
    assert_eq!(result.arms[2].runs_with_hit, 0);
    assert!((result.ttft_saved_ms.unwrap() - (cold_ms - warm_ms)).abs() < 1e-6);
    assert!(matches!(
        result.verdicts[0],
        CacheVerdict::CacheWorks { .. }
    ));
    assert_eq!(result.hit_evidence, HitEvidence::Usage);
    // The same server without cached tokens in usage: timing sees the hit.
    let result = analyze(&run_last_prompt(&runs, false));
    assert_eq!(result.hit_evidence, HitEvidence::Timing);
    assert!(matches!(
        result.verdicts[0],
        CacheVerdict::TimingShowsHit { .. }
    ));
    // The old plan (arms interleaved, no priming run before each warm run) on this server:
    // a warm run never follows a run of its own prompt, so not one hits, and timing says so.
    let unprimed: Vec<PlannedRun<CacheKey>> =
        runs.iter().filter(|r| !r.key.priming).cloned().collect();
    let result = analyze(&run_last_prompt(&unprimed, true));
    assert_eq!(result.arms[1].runs_with_hit, 0);
    assert_eq!(result.verdicts[0], CacheVerdict::NoHits);
    let result = analyze(&run_last_prompt(&unprimed, false));
    assert!(matches!(
        result.verdicts[0],
        CacheVerdict::TimingShowsNoHit { .. }
    ));
}

#[test]
fn timing_threshold_is_80_percent_of_cold_and_50_ms() {
    let observed = |arm: CacheArm, ttft_ms: f64| {
        Observation::new(
            CacheKey {
                arm,
                priming: false,
            },
            RunSample::with_ttft(ttft_ms),
        )
    };
    let arms = |cold_ms: f64, warm_ms: f64| {
        let mut runs: Vec<Observation<CacheKey>> =
            (0..3).map(|_| observed(CacheArm::Cold, cold_ms)).collect();
        runs.extend((0..3).map(|_| observed(CacheArm::Warm, warm_ms)));
        analyze(&runs).verdicts[0].clone()
    };
    // 800 of 1000 ms: exactly 80%, and 200 ms lower: a hit.
    assert!(matches!(
        arms(1_000.0, 800.0),
        CacheVerdict::TimingShowsHit { .. }
    ));
    // 801 ms: 80.1%, no hit.
    assert!(matches!(
        arms(1_000.0, 801.0),
        CacheVerdict::TimingShowsNoHit { .. }
    ));
    // 80% of a 200 ms TTFT saves only 40 ms: below 50 ms, no hit.
    assert!(matches!(
        arms(200.0, 160.0),
        CacheVerdict::TimingShowsNoHit { .. }
    ));
    // Issue 12's no-hit case: warm 560 against cold 572 ms.
    assert_eq!(
        arms(572.0, 560.0),
        CacheVerdict::TimingShowsNoHit {
            saved_ms: 12.0,
            warm_share: 560.0 / 572.0
        }
    );
}

fn observed(arm: CacheArm, ttft_ms: f64, cached: u64) -> Observation<CacheKey> {
    Observation::new(
        CacheKey {
            arm,
            priming: false,
        },
        RunSample {
            prompt_tokens: Some(1_000),
            cached_prompt_tokens: Some(cached),
            ..RunSample::with_ttft(ttft_ms)
        },
    )
}

#[test]
fn hits_that_do_not_save_time_and_thresholds() {
    // Cold 1000 ms, warm 960 ms with full hits: 40 ms < max(50, 10% of 1000 = 100).
    let mut runs: Vec<Observation<CacheKey>> = (0..3)
        .map(|_| observed(CacheArm::Cold, 1_000.0, 0))
        .collect();
    runs.extend((0..3).map(|_| observed(CacheArm::Warm, 960.0, 896)));
    let result = analyze(&runs);
    assert_eq!(
        result.verdicts,
        vec![CacheVerdict::HitsButNotFaster { saved_ms: 40.0 }]
    );
    assert!((result.ttft_saved_share.unwrap() - 0.04).abs() < 1e-12);
    // 101 ms saved on 1000 passes the 100 ms bar.
    let mut runs: Vec<Observation<CacheKey>> = (0..3)
        .map(|_| observed(CacheArm::Cold, 1_000.0, 0))
        .collect();
    runs.extend((0..3).map(|_| observed(CacheArm::Warm, 899.0, 896)));
    assert!(matches!(
        analyze(&runs).verdicts[0],
        CacheVerdict::CacheWorks { .. }
    ));
    // Priming runs never count, and two warm runs are not enough.
    let mut runs: Vec<Observation<CacheKey>> = (0..3)
        .map(|_| observed(CacheArm::Cold, 1_000.0, 0))
        .collect();
    runs.extend((0..2).map(|_| observed(CacheArm::Warm, 300.0, 896)));
    runs.push(Observation::new(
        CacheKey {
            arm: CacheArm::Warm,
            priming: true,
        },
        RunSample::with_ttft(1_000.0),
    ));
    assert_eq!(analyze(&runs).verdicts, vec![CacheVerdict::NotEnoughData]);
}
