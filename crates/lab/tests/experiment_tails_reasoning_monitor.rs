//! Tails (head-of-line blocking on the sim's FIFO slots), reasoning (sim-reasoning's
//! timing) and the monitor's schedule and rolling window.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::experiment_sim_model as sim_model;

use sim_model::{sim_count, Noise, SimProfile, SIM_DEFAULT, SIM_REASONING};
use ttft_core::lang::Lang;
use ttft_lab::experiment::monitor::{
    window_status, MonitorPercentile, MonitorThreshold, MonitorVerdict, MonitorWindow,
};
use ttft_lab::experiment::reasoning::{self, ReasoningConfig, ReasoningVerdict};
use ttft_lab::experiment::tails::{self, TailsConfig, TailsVerdict};
use ttft_lab::experiment::timed::{MonitorSchedule, MAX_SCHEDULED_RUNS};
use ttft_lab::experiment::{Observation, RunSample};

const NETWORK_MS: f64 = 40.0;

/// Closed loop: `in_flight` clients each start the next planned run when their last one
/// got its first token ("TTFT only" mode: the slot is released then). FIFO on `slots`.
fn run_tails(config: &TailsConfig, slots: usize, profile: SimProfile) -> Vec<Observation<u32>> {
    let mut client_free_at = vec![0.0_f64; config.in_flight];
    let mut slot_free_at = vec![0.0_f64; slots];
    let mut noise = Noise::new(4, 10.0);
    tails::plan(config)
        .iter()
        .map(|run| {
            let client = (0..client_free_at.len())
                .min_by(|&a, &b| client_free_at[a].total_cmp(&client_free_at[b]))
                .unwrap();
            let sent_ms = client_free_at[client];
            let arrival_ms = sent_ms + NETWORK_MS / 2.0;
            let slot = (0..slots)
                .min_by(|&a, &b| slot_free_at[a].total_cmp(&slot_free_at[b]))
                .unwrap();
            let start_ms = arrival_ms.max(slot_free_at[slot]);
            let prefill_ms = profile.prefill_ms(sim_count(&run.prompt), None) + noise.next_ms();
            slot_free_at[slot] = start_ms + prefill_ms;
            let first_token_ms = start_ms + prefill_ms + NETWORK_MS / 2.0;
            client_free_at[client] = first_token_ms;
            run.observe(RunSample::with_ttft(first_token_ms - sent_ms))
        })
        .collect()
}

fn tails_config() -> TailsConfig {
    TailsConfig {
        sizes_tokens: vec![100, 8_000],
        runs_per_size: 30,
        in_flight: 2,
        ..TailsConfig::default()
    }
}

#[test]
fn tails_plan_mixes_sizes() {
    let runs = tails::plan(&TailsConfig::default());
    assert_eq!(runs.len(), 90);
    assert!(runs
        .iter()
        .all(|r| sim_count(&r.prompt) == u64::from(r.key)));
    let first_six: Vec<u32> = runs[..6].iter().map(|r| r.key).collect();
    assert_eq!(first_six, vec![100, 1_000, 8_000, 1_000, 8_000, 100]);
}

#[test]
fn a_shared_slot_gives_short_prompts_a_blocked_tail() {
    // One slot, two clients: a 100-token prompt (110 ms prefill) sometimes lands behind an
    // 8000-token one (900 ms): head-of-line blocking.
    let result = tails::analyze(&run_tails(&tails_config(), 1, SIM_DEFAULT));
    match &result.verdict {
        TailsVerdict::HeadOfLineSuspected {
            planned_tokens,
            p99_over_p50,
            bimodal,
            ..
        } => {
            // About half the short prompts wait behind a long prefill: two modes, the
            // median between them (p95/p50 ≈ 1.6, under the heavy-tail threshold of 2).
            assert_eq!(*planned_tokens, 100);
            assert!(*bimodal);
            assert!(*p99_over_p50 > 1.5);
        }
        other => panic!("expected head-of-line blocking, got {other:?}"),
    }
    let short = &result.buckets[0];
    assert!(short.flagged());
    assert!(short.p99_over_min.unwrap() > 5.0);
}

#[test]
fn enough_slots_give_tight_tails() {
    let result = tails::analyze(&run_tails(&tails_config(), 2, SIM_DEFAULT));
    match result.verdict {
        TailsVerdict::TightTails { worst_p95_over_p50 } => assert!(worst_p95_over_p50 < 1.2),
        other => panic!("expected tight tails, got {other:?}"),
    }
    assert!(result.buckets.iter().all(|b| !b.flagged()));
    // Uniform noise of 10 ms on 900 ms can score as "two modes" on shape alone; the spread
    // floor keeps it from a verdict.
    assert!(result.buckets.iter().all(|b| b.p99_over_min.unwrap() < 1.5));
    assert!(result
        .buckets
        .iter()
        .any(|b| b.bimodality.as_ref().unwrap().bimodal && !b.bimodal()));
    // The pooled summary mixes sizes (and would look bimodal): it is reported, not judged.
    let overall = result.overall_ttft_ms.unwrap();
    assert_eq!(overall.count, 60);
}

#[test]
fn tails_by_hand() {
    // 18 runs at 300 ms and 2 at 3000: p95 at h = 19·0.95 = 18.05 → 3000; p50 300 → 10×.
    let mut runs: Vec<Observation<u32>> = (0..18)
        .map(|_| Observation::new(100, RunSample::with_ttft(300.0)))
        .collect();
    runs.extend((0..2).map(|_| Observation::new(100, RunSample::with_ttft(3_000.0))));
    let result = tails::analyze(&runs);
    assert_eq!(
        result.verdict,
        TailsVerdict::HeadOfLineSuspected {
            planned_tokens: 100,
            p95_over_p50: 10.0,
            p99_over_p50: 10.0,
            bimodal: true
        }
    );
    // Nine runs: below the 10-run floor.
    let few: Vec<Observation<u32>> = (0..9)
        .map(|i| Observation::new(100, RunSample::with_ttft(300.0 + f64::from(i))))
        .collect();
    assert_eq!(tails::analyze(&few).verdict, TailsVerdict::NotEnoughData);
}

/// Runs the reasoning plan on a sim profile. `visible` says whether reasoning is streamed.
fn run_reasoning(profile: SimProfile, visible: bool) -> Vec<Observation<usize>> {
    reasoning::plan(&ReasoningConfig::new(Lang::En))
        .iter()
        .map(|run| {
            let first_ms = NETWORK_MS + profile.prefill_ms(sim_count(&run.prompt), None);
            let thinking_ms = f64::from(profile.reasoning_tokens) * profile.itl_ms;
            let ttfa_ms = first_ms + thinking_ms;
            run.observe(RunSample {
                ttfa_ms: Some(ttfa_ms),
                reasoning_ms: (visible && profile.reasoning_tokens > 0).then_some(thinking_ms),
                ..RunSample::with_ttft(if visible { first_ms } else { ttfa_ms })
            })
        })
        .collect()
}

#[test]
fn sim_reasoning_users_wait_mostly_for_thinking() {
    let runs = reasoning::plan(&ReasoningConfig::new(Lang::En));
    assert_eq!(runs.len(), 5);
    let tokens = sim_count(&runs[0].prompt);
    // 4 nonce tokens + the question's 25: A train(2) leaves(2) at 9:40 and arrives(2) at
    // 13:15.(2) How long is the trip?(2) Answer(2) in one line.(2), other words 1 each.
    assert_eq!(tokens, 29);
    assert!(runs.iter().all(|r| sim_count(&r.prompt) == tokens));
    let result = reasoning::analyze(&run_reasoning(SIM_REASONING, true));
    // 60 reasoning tokens at 25 ms: the answer comes 1500 ms after the first reasoning token.
    let prefill = 150.0 + 0.1 * 29.0 + 0.000_002 * 29.0 * 29.0;
    let ttfa = NETWORK_MS + prefill + 1_500.0;
    assert_eq!(result.runs_with_reasoning, 5);
    match result.verdict {
        ReasoningVerdict::MostlyThinking {
            median_share,
            median_reasoning_ms,
            median_ttfa_ms,
        } => {
            assert!((median_share - 1_500.0 / ttfa).abs() < 1e-9);
            assert_eq!(median_reasoning_ms, 1_500.0);
            assert!((median_ttfa_ms - ttfa).abs() < 1e-9);
        }
        other => panic!("expected mostly thinking, got {other:?}"),
    }
}

#[test]
fn hidden_or_short_reasoning() {
    let result = reasoning::analyze(&run_reasoning(SIM_REASONING, false));
    assert!(matches!(
        result.verdict,
        ReasoningVerdict::NoVisibleReasoning { median_ttfa_ms } if median_ttfa_ms > 1_500.0
    ));
    // 2 reasoning tokens (50 ms) before a 2000 ms prefill: thinking is minor.
    let short = SimProfile {
        base_ms: 2_000.0,
        reasoning_tokens: 2,
        ..SIM_REASONING
    };
    let result = reasoning::analyze(&run_reasoning(short, true));
    match result.verdict {
        ReasoningVerdict::ThinkingMinor { median_share, .. } => assert!(median_share < 0.05),
        other => panic!("expected minor, got {other:?}"),
    }
    let failed = vec![Observation::new(0, RunSample::failed())];
    assert_eq!(
        reasoning::analyze(&failed).verdict,
        ReasoningVerdict::NotEnoughData
    );
    // Exactly half is "mostly" (the rule is share ≥ 0.5).
    let half = vec![Observation::new(
        0,
        RunSample {
            ttfa_ms: Some(1_000.0),
            reasoning_ms: Some(500.0),
            ..RunSample::with_ttft(500.0)
        },
    )];
    assert!(matches!(
        reasoning::analyze(&half).verdict,
        ReasoningVerdict::MostlyThinking { .. }
    ));
}

#[test]
fn monitor_schedule() {
    let every_10s = MonitorSchedule {
        interval_s: 10.0,
        duration_s: 60.0,
    };
    assert_eq!(every_10s.run_count(), 6);
    assert_eq!(
        every_10s.run_offsets_ms(),
        vec![0.0, 10_000.0, 20_000.0, 30_000.0, 40_000.0, 50_000.0]
    );
    let table = [
        (0.0, Some(0.0)),
        (1.0, Some(10_000.0)),
        (50_000.0, Some(50_000.0)),
        (50_001.0, None),
        (-5.0, Some(0.0)),
    ];
    for (elapsed_ms, expected) in table {
        assert_eq!(every_10s.next_run_ms(elapsed_ms), expected, "{elapsed_ms}");
    }
    let uneven = MonitorSchedule {
        interval_s: 10.0,
        duration_s: 65.0,
    };
    assert_eq!(uneven.run_count(), 7);
    for bad in [
        (0.0, 60.0),
        (10.0, 0.0),
        (f64::NAN, 60.0),
        (10.0, f64::INFINITY),
    ] {
        let schedule = MonitorSchedule {
            interval_s: bad.0,
            duration_s: bad.1,
        };
        assert_eq!(schedule.run_count(), 0);
        assert_eq!(schedule.next_run_ms(0.0), None);
    }
    let silly = MonitorSchedule {
        interval_s: 0.001,
        duration_s: 7.0 * 24.0 * 3600.0,
    };
    assert_eq!(silly.run_count(), MAX_SCHEDULED_RUNS);
}

/// Runs every 10 s from 0 to 90 s with TTFT 100, 200, …, 1000 ms.
fn ramp() -> Vec<Observation<f64>> {
    (0..10)
        .map(|i| {
            Observation::new(
                f64::from(i) * 10_000.0,
                RunSample::with_ttft(100.0 * f64::from(i + 1)),
            )
        })
        .collect()
}

#[test]
fn monitor_window_and_breach() {
    let p95_under_950 = MonitorThreshold {
        percentile: MonitorPercentile::P95,
        limit_ms: 950.0,
    };
    // Last 3 runs at 95 s: 800, 900, 1000 → p95 at h = 1.9 → 900 + 0.9·100 = 990 > 950.
    let status = window_status(
        &ramp(),
        95_000.0,
        MonitorWindow::LastRuns { runs: 3 },
        p95_under_950,
    );
    assert_eq!(status.runs, 3);
    assert!((status.observed_ms.unwrap() - 990.0).abs() < 1e-9);
    assert!(status.breached);
    assert!(matches!(status.verdict, MonitorVerdict::Breach { .. }));
    // The last 30 s at 95 s: runs at 70, 80, 90 s (65 s excluded): the same three.
    let by_time = window_status(
        &ramp(),
        95_000.0,
        MonitorWindow::LastMs {
            duration_ms: 30_000.0,
        },
        p95_under_950,
    );
    assert_eq!(by_time.ttft_ms, status.ttft_ms);
    // At 55 s the last 3 started runs are at 30, 40, 50 s: 400, 500, 600 → p95 590.
    let earlier = window_status(
        &ramp(),
        55_000.0,
        MonitorWindow::LastRuns { runs: 3 },
        p95_under_950,
    );
    assert!((earlier.observed_ms.unwrap() - 590.0).abs() < 1e-9);
    assert!(!earlier.breached);
    assert_eq!(
        earlier.verdict,
        MonitorVerdict::Healthy {
            percentile: MonitorPercentile::P95,
            observed_ms: earlier.observed_ms.unwrap(),
            limit_ms: 950.0
        }
    );
    // Two runs in the window: no judgement, even above the limit.
    let two = window_status(
        &ramp(),
        95_000.0,
        MonitorWindow::LastRuns { runs: 2 },
        p95_under_950,
    );
    assert_eq!(two.verdict, MonitorVerdict::NotEnoughData);
    assert!(!two.breached);
}

#[test]
fn monitor_failures() {
    let mut runs = ramp();
    runs[9].sample = RunSample::failed();
    let threshold = MonitorThreshold {
        percentile: MonitorPercentile::P50,
        limit_ms: 10_000.0,
    };
    // 1 failure in the last 5 runs = 20%: failing.
    let status = window_status(
        &runs,
        95_000.0,
        MonitorWindow::LastRuns { runs: 5 },
        threshold,
    );
    assert_eq!(
        status.verdict,
        MonitorVerdict::Failing {
            failures: 1,
            runs: 5
        }
    );
    // 1 in 6 is below 20%: judged on latency.
    let status = window_status(
        &runs,
        95_000.0,
        MonitorWindow::LastRuns { runs: 6 },
        threshold,
    );
    assert!(matches!(status.verdict, MonitorVerdict::Healthy { .. }));
    assert_eq!(status.failures, 1);
}
