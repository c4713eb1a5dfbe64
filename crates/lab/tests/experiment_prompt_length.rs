//! Prompt-length experiment: plan shape, and analysis of runs generated from ttft-sim's
//! prefill formula (sim-linear-prefill, sim-slow-prefill) as ground truth.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::experiment_sim_model as sim_model;

use sim_model::{sim_count, Noise, SimProfile, SIM_LINEAR_PREFILL, SIM_SLOW_PREFILL};
use ttft_lab::experiment::prompt_length::{analyze, plan, PromptLengthConfig, PromptLengthVerdict};
use ttft_lab::experiment::{interleaved_order, Observation, PlannedRun, RunSample};

/// Fixed network time added to every TTFT, ms.
const NETWORK_MS: f64 = 40.0;

fn within(actual: f64, expected: f64, tolerance: f64) -> bool {
    (actual - expected).abs() <= tolerance * expected.abs()
}

/// Runs a plan against a sim profile: TTFT = network + prefill(usage tokens) + noise.
fn run_on_sim(
    runs: &[PlannedRun<u32>],
    profile: SimProfile,
    noise_ms: f64,
) -> Vec<Observation<u32>> {
    let mut noise = Noise::new(11, noise_ms);
    runs.iter()
        .map(|run| {
            let prompt_tokens = sim_count(&run.prompt);
            let ttft_ms = NETWORK_MS + profile.prefill_ms(prompt_tokens, None) + noise.next_ms();
            run.observe(RunSample {
                prompt_tokens: Some(prompt_tokens),
                ..RunSample::with_ttft(ttft_ms)
            })
        })
        .collect()
}

#[test]
fn interleaving_is_a_cyclic_latin_square() {
    assert_eq!(
        interleaved_order(3, 3, 0),
        vec![
            (0, 0),
            (1, 0),
            (2, 0),
            (1, 1),
            (2, 1),
            (0, 1),
            (2, 2),
            (0, 2),
            (1, 2)
        ]
    );
    // Two levels: A B, B A (ABBA counterbalancing); the seed picks the starting level.
    let levels: Vec<usize> = interleaved_order(2, 4, 1).iter().map(|p| p.0).collect();
    assert_eq!(levels, vec![1, 0, 0, 1, 1, 0, 0, 1]);
    assert!(interleaved_order(0, 5, 0).is_empty());
}

#[test]
fn plan_interleaves_sizes_with_a_nonce_first_and_exact_sizes() {
    let config = PromptLengthConfig {
        seed: 9,
        ..PromptLengthConfig::default()
    };
    let runs = plan(&config);
    assert_eq!(runs.len(), 20);
    for (round, chunk) in runs.chunks(4).enumerate() {
        let mut sizes: Vec<u32> = chunk.iter().map(|r| r.key).collect();
        sizes.sort_unstable();
        assert_eq!(sizes, vec![100, 1_000, 5_000, 10_000], "round {round}");
        assert!(chunk.iter().all(|r| r.repetition == round));
    }
    let mut nonces: Vec<&str> = runs.iter().filter_map(|r| r.nonce.as_deref()).collect();
    nonces.sort_unstable();
    nonces.dedup();
    assert_eq!(nonces.len(), 20, "every prompt has its own nonce");
    for (index, run) in runs.iter().enumerate() {
        assert_eq!(run.run_index, index);
        let nonce = run.nonce.as_deref().unwrap();
        assert!(run.prompt.starts_with(nonce), "nonce at position 0");
        assert_eq!(sim_count(&run.prompt), u64::from(run.key));
        assert_eq!(run.sim_prompt_tokens, run.key);
        assert_eq!(run.max_tokens, Some(16));
    }
    assert_eq!(plan(&config), runs, "deterministic");
}

#[test]
fn linear_profile_gives_near_linear_and_its_per_token_cost() {
    let runs = plan(&PromptLengthConfig::default());
    let result = analyze(&run_on_sim(&runs, SIM_LINEAR_PREFILL, 20.0));
    // Ground truth: a = 0.5 ms/token, i.e. 500 ms per 1k tokens; the linear slope must be
    // within 10% of it.
    let per_1k = result.prefill_ms_per_1k_tokens.unwrap();
    assert!(within(per_1k, 500.0, 0.10), "{per_1k}");
    match result.verdict {
        PromptLengthVerdict::NearLinear {
            prefill_ms_per_1k_tokens,
            r_squared,
        } => {
            assert_eq!(prefill_ms_per_1k_tokens, per_1k);
            assert!(r_squared.unwrap() > 0.99);
        }
        other => panic!("expected near-linear, got {other:?}"),
    }
    assert!(result.residual_reduction.unwrap() < 0.5);
    assert_eq!(result.points_from_usage, 20);
    assert_eq!(result.levels.len(), 4);
    assert_eq!(result.levels[3].planned_tokens, 10_000);
    assert_eq!(result.levels[3].runs, 5);
    assert_eq!(result.levels[3].mean_prompt_tokens, Some(10_000.0));
}

#[test]
fn quadratic_profile_gives_superlinear_with_the_sims_coefficients() {
    let runs = plan(&PromptLengthConfig::default());
    let result = analyze(&run_on_sim(&runs, SIM_SLOW_PREFILL, 20.0));
    let quadratic = result.quadratic.clone().unwrap();
    // The quadratic fit recovers the sim's a = 0.5 ms/token and b = 2e-4 ms/token².
    assert!(
        within(quadratic.slope, 0.5, 0.10),
        "a = {}",
        quadratic.slope
    );
    assert!(
        within(quadratic.quadratic, 2e-4, 0.10),
        "b = {}",
        quadratic.quadratic
    );
    // The linear slope is the least-squares line through a + b·n² over the design
    // {100, 1000, 5000, 10000}: a + b·Σ(x − x̄)x² / Σ(x − x̄)² = 0.5 + 2e-4·10110.05
    // = 2.522 ms/token (x̄ = 4025, Σd² = 61 207 500, Σd·x² = 618 810 750 000).
    let per_1k = result.prefill_ms_per_1k_tokens.unwrap();
    assert!(within(per_1k, 2_522.0, 0.10), "{per_1k}");
    // One more 1k tokens at 10k costs a + 2·b·10 000 = 4.5 ms/token.
    let marginal = result.marginal_ms_per_1k_tokens_at_max.unwrap();
    assert!(within(marginal, 4_500.0, 0.10), "{marginal}");
    match result.verdict {
        PromptLengthVerdict::Superlinear {
            quadratic_share_at_max,
            max_prompt_tokens,
            ..
        } => {
            // b·n² / TTFT at 10k = 20 000 / (40 + 300 + 5 000 + 20 000) ≈ 0.79.
            assert!(within(quadratic_share_at_max, 20_000.0 / 25_340.0, 0.05));
            assert_eq!(max_prompt_tokens, 10_000.0);
        }
        other => panic!("expected superlinear, got {other:?}"),
    }
}

#[test]
fn a_small_quadratic_term_is_not_called_superlinear() {
    // sim-fast's b = 1e-6: at 10k tokens b·n² = 100 ms of 660 ms, 15%, with a clean fit it
    // counts; at 5k it is 25 ms of 335 ms (7%), below the 10% share: near-linear.
    let sim_fast = SimProfile {
        base_ms: 60.0,
        a_ms_per_token: 0.05,
        b_ms_per_token2: 0.000_001,
        ..SIM_LINEAR_PREFILL
    };
    let small = PromptLengthConfig {
        sizes_tokens: vec![100, 1_000, 2_500, 5_000],
        ..PromptLengthConfig::default()
    };
    let result = analyze(&run_on_sim(&plan(&small), sim_fast, 2.0));
    assert!(result.quadratic_share_at_max.unwrap() < 0.10);
    assert!(matches!(
        result.verdict,
        PromptLengthVerdict::NearLinear { .. }
    ));
    let result = analyze(&run_on_sim(
        &plan(&PromptLengthConfig::default()),
        sim_fast,
        2.0,
    ));
    assert!(matches!(
        result.verdict,
        PromptLengthVerdict::Superlinear { .. }
    ));
}

#[test]
fn usage_prompt_tokens_win_over_the_planned_size() {
    // A tokenizer that counts 1.3×: x must be the reported count, so the slope is the
    // sim's 0.5 ms per *reported* token, not 0.65 per planned token.
    let observations: Vec<Observation<u32>> = [100_u32, 1_000, 5_000, 10_000]
        .iter()
        .flat_map(|&planned| {
            let reported = (f64::from(planned) * 1.3) as u64;
            let ttft_ms = SIM_LINEAR_PREFILL.prefill_ms(reported, None);
            (0..3).map(move |_| {
                Observation::new(
                    planned,
                    RunSample {
                        prompt_tokens: Some(reported),
                        ..RunSample::with_ttft(ttft_ms)
                    },
                )
            })
        })
        .collect();
    let result = analyze(&observations);
    // Noise-free line: nothing for a quadratic term to explain, whatever rounding says.
    assert_eq!(result.residual_reduction, Some(0.0));
    assert!(matches!(
        result.verdict,
        PromptLengthVerdict::NearLinear { .. }
    ));
    assert!(within(
        result.prefill_ms_per_1k_tokens.unwrap(),
        500.0,
        1e-6
    ));
    // Without usage, the planned size is used: 0.65 ms per planned token.
    let planned_only: Vec<Observation<u32>> = observations
        .iter()
        .map(|o| Observation::new(o.key, RunSample::with_ttft(o.sample.ttft_ms.unwrap())))
        .collect();
    let result = analyze(&planned_only);
    assert!(within(
        result.prefill_ms_per_1k_tokens.unwrap(),
        650.0,
        1e-6
    ));
    assert_eq!(result.points_from_usage, 0);
}

#[test]
fn noise_without_trend_and_missing_data() {
    // TTFT 500..2500 ms at random, prompt sizes that barely matter: no trend.
    let mut noise = Noise::new(3, 2_000.0);
    let observations: Vec<Observation<u32>> = [100_u32, 200, 300, 400]
        .iter()
        .cycle()
        .take(24)
        .map(|&size| Observation::new(size, RunSample::with_ttft(500.0 + noise.next_ms())))
        .collect();
    let result = analyze(&observations);
    match result.verdict {
        PromptLengthVerdict::NoClearTrend { r_squared } => assert!(r_squared.unwrap() < 0.5),
        other => panic!("expected no trend, got {other:?}"),
    }
    // Two sizes only, and failures that must not count.
    let mut observations = vec![
        Observation::new(100, RunSample::with_ttft(300.0)),
        Observation::new(100, RunSample::with_ttft(310.0)),
        Observation::new(1_000, RunSample::with_ttft(700.0)),
        Observation::new(5_000, RunSample::failed()),
        Observation::new(
            5_000,
            RunSample {
                succeeded: false,
                ..RunSample::with_ttft(1.0)
            },
        ),
    ];
    let result = analyze(&observations);
    assert_eq!(result.verdict, PromptLengthVerdict::NotEnoughData);
    assert_eq!(result.levels[2].failures, 2);
    assert_eq!(result.levels[2].ttft_ms, None);
    // A NaN TTFT is ignored rather than poisoning the fit.
    observations.push(Observation::new(5_000, RunSample::with_ttft(f64::NAN)));
    // On the line through the other sizes' means: 305 + (395 / 900)·4900 ≈ 2455.6 ms.
    observations.push(Observation::new(5_000, RunSample::with_ttft(2_455.6)));
    let result = analyze(&observations);
    assert!(
        matches!(result.verdict, PromptLengthVerdict::NearLinear { .. }),
        "{:?}",
        result.verdict
    );
    assert!(analyze(&[]).levels.is_empty());
    assert_eq!(analyze(&[]).verdict, PromptLengthVerdict::NotEnoughData);
}
