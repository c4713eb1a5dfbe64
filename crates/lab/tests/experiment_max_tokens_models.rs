//! max_tokens and model-comparison experiments: plans, hand-computed rules and runs
//! generated from ttft-sim's profiles.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::experiment_sim_model as sim_model;

use sim_model::{sim_count, Noise, SimProfile, SIM_DEFAULT, SIM_LINEAR_PREFILL, SIM_SLOW_PREFILL};
use ttft_lab::experiment::max_tokens::{self, MaxTokensConfig, MaxTokensVerdict};
use ttft_lab::experiment::models::{self, ModelKey, ModelsConfig, ModelsVerdict};
use ttft_lab::experiment::{Observation, RunSample};

fn observations(max_tokens: u32, ttfts_ms: &[f64]) -> Vec<Observation<u32>> {
    ttfts_ms
        .iter()
        .map(|&ttft| Observation::new(max_tokens, RunSample::with_ttft(ttft)))
        .collect()
}

#[test]
fn max_tokens_plan_alternates_limits_on_the_same_input_size() {
    let runs = max_tokens::plan(&MaxTokensConfig::default());
    assert_eq!(runs.len(), 16);
    let limits: Vec<u32> = runs.iter().map(|r| r.key).collect();
    assert_eq!(
        &limits[..8],
        &[200, 4_000, 4_000, 200, 200, 4_000, 4_000, 200]
    );
    for run in &runs {
        assert_eq!(run.max_tokens, Some(run.key));
        assert_eq!(sim_count(&run.prompt), 1_000);
        assert!(run.prompt.starts_with(run.nonce.as_deref().unwrap()));
    }
}

/// Runs the plan on a sim profile: TTFT = prefill(1000 tokens, max_tokens) + noise.
fn run_max_tokens_on_sim(profile: SimProfile) -> Vec<Observation<u32>> {
    let mut noise = Noise::new(5, 30.0);
    max_tokens::plan(&MaxTokensConfig::default())
        .iter()
        .map(|run| {
            let ttft = profile.prefill_ms(sim_count(&run.prompt), run.max_tokens) + noise.next_ms();
            run.observe(RunSample::with_ttft(ttft))
        })
        .collect()
}

#[test]
fn sim_without_reservation_is_independent_of_max_tokens() {
    let result = max_tokens::analyze(&run_max_tokens_on_sim(SIM_DEFAULT));
    match result.verdict {
        MaxTokensVerdict::Independent {
            difference_ms,
            threshold_ms,
        } => {
            assert!(difference_ms.abs() < 30.0);
            // Uniform noise of 30 ms: 2 × robust σ is about 22 ms, so the 50 ms floor rules.
            assert_eq!(threshold_ms, 50.0);
        }
        other => panic!("expected independent, got {other:?}"),
    }
    assert_eq!(result.levels.len(), 2);
    assert_eq!(result.levels[0].ttft_ms.as_ref().unwrap().count, 8);
}

#[test]
fn sim_with_reservation_cost_is_flagged() {
    // reserve_ms_per_max_token = 0.1: 4000 instead of 200 adds 380 ms of prefill.
    let reserving = SimProfile {
        reserve_ms_per_max_token: 0.1,
        ..SIM_DEFAULT
    };
    let result = max_tokens::analyze(&run_max_tokens_on_sim(reserving));
    match result.verdict {
        MaxTokensVerdict::Depends {
            low_max_tokens,
            high_max_tokens,
            difference_ms,
            ..
        } => {
            assert_eq!((low_max_tokens, high_max_tokens), (200, 4_000));
            assert!((difference_ms - 380.0).abs() < 30.0, "{difference_ms}");
        }
        other => panic!("expected depends, got {other:?}"),
    }
}

#[test]
fn max_tokens_rule_by_hand() {
    // Medians 120 and 320; deviations from own medians [20,10,0,10,20] twice: pooled MAD 10,
    // σ = 14.826; threshold = max(50, 2·14.826) = 50; difference 200 > 50.
    let mut runs = observations(200, &[100.0, 110.0, 120.0, 130.0, 140.0]);
    runs.extend(observations(4_000, &[300.0, 310.0, 320.0, 330.0, 340.0]));
    let result = max_tokens::analyze(&runs);
    assert!((result.pooled_spread_ms.unwrap() - 14.826).abs() < 1e-9);
    assert_eq!(result.threshold_ms, Some(50.0));
    assert_eq!(result.median_difference_ms, Some(200.0));
    assert!(matches!(result.verdict, MaxTokensVerdict::Depends { .. }));
    // Wide spread: medians 500 and 650, pooled MAD 200 → σ 296.52 → threshold 593.04: the
    // 150 ms difference is noise.
    let mut runs = observations(200, &[100.0, 300.0, 500.0, 700.0, 900.0]);
    runs.extend(observations(4_000, &[250.0, 450.0, 650.0, 850.0, 1_050.0]));
    let result = max_tokens::analyze(&runs);
    assert!((result.threshold_ms.unwrap() - 593.04).abs() < 1e-9);
    assert_eq!(
        result.verdict,
        MaxTokensVerdict::Independent {
            difference_ms: 150.0,
            threshold_ms: 593.04
        }
    );
    // A 40 ms difference with no noise stays under the 50 ms floor.
    let mut runs = observations(200, &[100.0; 4]);
    runs.extend(observations(4_000, &[140.0; 4]));
    assert!(matches!(
        max_tokens::analyze(&runs).verdict,
        MaxTokensVerdict::Independent { .. }
    ));
    // Two successful runs at one limit (the failure does not count).
    let mut runs = observations(200, &[100.0, 110.0]);
    runs.push(Observation::new(200, RunSample::failed()));
    runs.extend(observations(4_000, &[100.0, 110.0, 120.0]));
    let result = max_tokens::analyze(&runs);
    assert_eq!(result.verdict, MaxTokensVerdict::NotEnoughData);
    assert_eq!(result.levels[0].failures, 1);
}

fn models_config(models: &[&str], sizes: &[u32]) -> ModelsConfig {
    ModelsConfig {
        models: models.iter().map(|m| m.to_string()).collect(),
        sizes_tokens: sizes.to_vec(),
        repetitions: 4,
        ..ModelsConfig::default()
    }
}

fn profile_of(model: &str) -> SimProfile {
    match model {
        "sim-fast" => SimProfile {
            base_ms: 60.0,
            a_ms_per_token: 0.05,
            b_ms_per_token2: 0.000_001,
            ..SIM_DEFAULT
        },
        "sim-linear-prefill" => SIM_LINEAR_PREFILL,
        _ => SIM_SLOW_PREFILL,
    }
}

fn run_models_on_sim(config: &ModelsConfig) -> Vec<Observation<ModelKey>> {
    let mut noise = Noise::new(8, 20.0);
    models::plan(config)
        .iter()
        .map(|run| {
            let model = run.model.as_deref().unwrap();
            let tokens = sim_count(&run.prompt);
            let ttft = profile_of(model).prefill_ms(tokens, None) + noise.next_ms();
            run.observe(RunSample {
                prompt_tokens: Some(tokens),
                ..RunSample::with_ttft(ttft)
            })
        })
        .collect()
}

#[test]
fn models_plan_visits_every_model_each_round() {
    let config = models_config(&["b", "a", "c"], &[1_000]);
    let runs = models::plan(&config);
    assert_eq!(runs.len(), 12);
    for chunk in runs.chunks(3) {
        let mut names: Vec<&str> = chunk.iter().map(|r| r.key.model.as_str()).collect();
        names.sort_unstable();
        assert_eq!(names, vec!["a", "b", "c"]);
    }
    assert!(runs
        .iter()
        .all(|r| r.model.as_deref() == Some(r.key.model.as_str())));
    assert!(runs.iter().all(|r| sim_count(&r.prompt) == 1_000));
}

#[test]
fn sim_models_rank_by_median_ttft() {
    let config = models_config(
        &["sim-slow-prefill", "sim-fast", "sim-linear-prefill"],
        &[1_000],
    );
    let result = models::analyze(&run_models_on_sim(&config));
    let order: Vec<(&str, Option<usize>)> = result
        .models
        .iter()
        .map(|m| (m.model.as_str(), m.rank))
        .collect();
    // At 1000 tokens: fast 60+50+1 = 111 ms, linear 200+500 = 700, slow 300+500+200 = 1000.
    assert_eq!(
        order,
        vec![
            ("sim-fast", Some(1)),
            ("sim-linear-prefill", Some(2)),
            ("sim-slow-prefill", Some(3))
        ]
    );
    let fast_p50 = result.models[0].ttft_ms.as_ref().unwrap().p50;
    assert!((fast_p50 - 111.0).abs() < 20.0);
    match &result.verdict {
        ModelsVerdict::Fastest {
            model, runner_up, ..
        } => {
            assert_eq!(model, "sim-fast");
            assert_eq!(runner_up.as_deref(), Some("sim-linear-prefill"));
        }
        other => panic!("expected fastest, got {other:?}"),
    }
}

#[test]
fn per_model_prompt_length_line() {
    let config = models_config(
        &["sim-linear-prefill", "sim-slow-prefill"],
        &[100, 1_000, 5_000],
    );
    let result = models::analyze(&run_models_on_sim(&config));
    let linear = result
        .models
        .iter()
        .find(|m| m.model == "sim-linear-prefill")
        .unwrap();
    // The sim's a = 0.5 ms/token → 500 ms per 1k tokens, within 10%.
    let per_1k = linear.prefill_ms_per_1k_tokens.unwrap();
    assert!((per_1k - 500.0).abs() <= 50.0, "{per_1k}");
    let slow = result
        .models
        .iter()
        .find(|m| m.model == "sim-slow-prefill")
        .unwrap();
    assert!(slow.prefill_ms_per_1k_tokens.unwrap() > 1_000.0);
    // One size only: no line.
    let single = models::analyze(&run_models_on_sim(&models_config(&["sim-fast"], &[1_000])));
    assert_eq!(single.models[0].prompt_length_fit, None);
    assert!(matches!(
        single.verdict,
        ModelsVerdict::Fastest {
            runner_up: None,
            ..
        }
    ));
}

fn model_runs(model: &str, ttfts_ms: &[f64]) -> Vec<Observation<ModelKey>> {
    ttfts_ms
        .iter()
        .map(|&ttft| {
            Observation::new(
                ModelKey {
                    model: model.into(),
                    planned_tokens: 1_000,
                },
                RunSample::with_ttft(ttft),
            )
        })
        .collect()
}

#[test]
fn ties_tie_breaks_and_failures() {
    // Same p50 (1000), p95 decides: "steady" 1000/1000/1000 before "spiky" 900/1000/3000.
    let mut runs = model_runs("spiky", &[900.0, 1_000.0, 3_000.0]);
    runs.extend(model_runs("steady", &[1_000.0, 1_000.0, 1_000.0]));
    runs.extend(model_runs("slow", &[2_000.0, 2_000.0, 2_000.0]));
    let mut broken = model_runs("broken", &[]);
    broken.push(Observation::new(
        ModelKey {
            model: "broken".into(),
            planned_tokens: 1_000,
        },
        RunSample::failed(),
    ));
    runs.extend(broken);
    let result = models::analyze(&runs);
    let names: Vec<&str> = result.models.iter().map(|m| m.model.as_str()).collect();
    assert_eq!(names, vec!["steady", "spiky", "slow", "broken"]);
    assert_eq!(result.models[3].rank, None);
    assert_eq!(result.models[3].failures, 1);
    // 1000 vs 1000: within max(50, 10% of 1000) = 100 ms → tie; 2000 is not.
    assert_eq!(
        result.verdict,
        ModelsVerdict::Tie {
            models: vec!["steady".into(), "spiky".into()],
            p50_ms: 1_000.0
        }
    );
    // 1000 vs 1101: beyond the 100 ms margin.
    let mut runs = model_runs("a", &[1_000.0]);
    runs.extend(model_runs("b", &[1_101.0]));
    assert!(matches!(
        models::analyze(&runs).verdict,
        ModelsVerdict::Fastest { .. }
    ));
    let only_failures: Vec<Observation<ModelKey>> = vec![Observation::new(
        ModelKey {
            model: "x".into(),
            planned_tokens: 1,
        },
        RunSample::failed(),
    )];
    assert_eq!(
        models::analyze(&only_failures).verdict,
        ModelsVerdict::NoSuccessfulRuns
    );
}
