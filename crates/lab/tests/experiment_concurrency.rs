//! Concurrency experiment against ttft-sim's FIFO slots and a browser connection pool
//! (6 per host on HTTP/1.1, unlimited on HTTP/2) as ground truth.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::experiment_sim_model as sim_model;

use sim_model::{sim_count, SimProfile, SIM_DEFAULT};
use ttft_lab::experiment::concurrency::{
    analyze, plan, ConcurrencyConfig, ConcurrencyKey, ConcurrencyVerdict, PlannedWave,
};
use ttft_lab::experiment::{Observation, RunSample};

/// One-way network time, ms.
const NETWORK_MS: f64 = 20.0;
/// Connection setup (DNS + TCP + TLS) paid by a new connection, ms.
const SETUP_MS: f64 = 60.0;
/// Gap between the launches of two streams of a wave, ms.
const LAUNCH_GAP_MS: f64 = 1.0;

/// The world a wave runs in.
struct World {
    /// Server slots (the sim's `--slots`).
    slots: usize,
    /// Browser connections per host (6 on HTTP/1.1; None = HTTP/2, one connection).
    connections: Option<usize>,
    profile: SimProfile,
}

/// Runs one wave; every wave starts on an idle server (the app waits for the previous one).
/// Connections exist after the first wave, so only wave 0 pays setup.
fn run_wave(world: &World, wave: &PlannedWave) -> Vec<Observation<ConcurrencyKey>> {
    let mut slot_free_at = vec![0.0_f64; world.slots];
    let pool_size = world
        .connections
        .unwrap_or(usize::MAX)
        .min(wave.streams.len());
    let mut connection_free_at = vec![0.0_f64; pool_size];
    let mut observations = Vec::new();
    let mut last_arrival = 0.0_f64;
    for stream in &wave.streams {
        let launch_ms = stream.key.rank as f64 * LAUNCH_GAP_MS;
        // The browser takes the connection that frees first.
        let connection = (0..pool_size)
            .min_by(|&a, &b| connection_free_at[a].total_cmp(&connection_free_at[b]))
            .unwrap();
        let sent_ms = launch_ms.max(connection_free_at[connection]);
        let new_connection = wave.wave == 0 && connection_free_at[connection] == 0.0;
        let setup_ms = if new_connection { SETUP_MS } else { 0.0 };
        let queueing_ms = sent_ms - launch_ms + setup_ms;
        let arrival_ms = sent_ms + setup_ms + NETWORK_MS;
        assert!(
            arrival_ms >= last_arrival,
            "the model books in arrival order"
        );
        last_arrival = arrival_ms;
        // The server's FIFO slots (lowest index on ties), as in ttft-sim's SlotSchedule.
        let tokens = sim_count(&stream.prompt);
        let slot = (0..world.slots)
            .min_by(|&a, &b| slot_free_at[a].total_cmp(&slot_free_at[b]))
            .unwrap();
        let start_ms = arrival_ms.max(slot_free_at[slot]);
        slot_free_at[slot] = start_ms + world.profile.slot_ms(tokens);
        let first_token_ms = start_ms + world.profile.prefill_ms(tokens, None) + NETWORK_MS;
        connection_free_at[connection] = slot_free_at[slot] + NETWORK_MS;
        observations.push(stream.observe(RunSample {
            queueing_ms: Some(queueing_ms),
            connection_reused: Some(!new_connection),
            prompt_tokens: Some(tokens),
            ..RunSample::with_ttft(first_token_ms - launch_ms)
        }));
    }
    observations
}

fn run_plan(world: &World) -> Vec<Observation<ConcurrencyKey>> {
    plan(&ConcurrencyConfig::default())
        .iter()
        .flat_map(|wave| run_wave(world, wave))
        .collect()
}

#[test]
fn plan_has_waves_of_each_level_with_unique_nonces() {
    let waves = plan(&ConcurrencyConfig::default());
    assert_eq!(waves.len(), 12);
    let levels: Vec<u32> = waves.iter().map(|w| w.level).collect();
    assert_eq!(&levels[..8], &[1, 2, 4, 8, 2, 4, 8, 1]);
    let streams: Vec<_> = waves.iter().flat_map(|w| &w.streams).collect();
    assert_eq!(streams.len(), 3 * (1 + 2 + 4 + 8));
    let mut nonces: Vec<&str> = streams.iter().filter_map(|s| s.nonce.as_deref()).collect();
    nonces.sort_unstable();
    nonces.dedup();
    assert_eq!(nonces.len(), streams.len());
    for wave in &waves {
        for (rank, stream) in wave.streams.iter().enumerate() {
            assert_eq!(
                stream.key,
                ConcurrencyKey {
                    level: wave.level,
                    wave: wave.wave,
                    rank
                }
            );
            assert_eq!(sim_count(&stream.prompt), 1_000);
        }
    }
}

#[test]
fn http2_with_4_slots_shows_server_queueing_from_the_5th_stream() {
    let world = World {
        slots: 4,
        connections: None,
        profile: SIM_DEFAULT,
    };
    let result = analyze(&run_plan(&world));
    assert_eq!(result.server_parallel_streams, Some(4));
    assert_eq!(result.server_first_waiting_stream, Some(5));
    assert_eq!(result.server_queueing_from_level, Some(8));
    assert_eq!(result.browser_queueing_from_level, None);
    assert_eq!(
        result.verdicts,
        vec![ConcurrencyVerdict::ServerQueueing {
            parallel_streams: 4,
            from_level: 8
        }]
    );
    // Level 8: 12 streams at 20 + 200 + 20 = 240 ms (+ launch offsets), 12 that waited a
    // whole request (slot 980 ms) for a slot: about 1220 ms.
    let level_8 = result.levels.iter().find(|l| l.level == 8).unwrap();
    let ttft = level_8.ttft_ms.as_ref().unwrap();
    assert!((ttft.min - 240.0).abs() < 5.0, "{}", ttft.min);
    assert!((ttft.p99 - 1_220.0).abs() < 10.0, "{}", ttft.p99);
    assert_eq!(level_8.waves_with_server_queueing, 3);
    let level_4 = result.levels.iter().find(|l| l.level == 4).unwrap();
    assert_eq!(level_4.waves_with_server_queueing, 0);
    assert!(level_4.ttft_ms.as_ref().unwrap().p95 < 250.0);
}

#[test]
fn http1_holds_streams_7_and_8_in_the_browser_not_the_server() {
    let world = World {
        slots: 4,
        connections: Some(6),
        profile: SIM_DEFAULT,
    };
    let result = analyze(&run_plan(&world));
    assert_eq!(result.browser_parallel_streams, Some(6));
    assert_eq!(result.browser_queueing_from_level, Some(8));
    // Streams 5 and 6 still queue on the server: it runs 4 at once.
    assert_eq!(result.server_parallel_streams, Some(4));
    assert_eq!(
        result.verdicts,
        vec![
            ConcurrencyVerdict::BrowserQueueing {
                parallel_streams: 6,
                from_level: 8
            },
            ConcurrencyVerdict::ServerQueueing {
                parallel_streams: 4,
                from_level: 8
            }
        ]
    );
    let wave_8 = result.waves.iter().find(|w| w.level == 8).unwrap();
    assert_eq!(wave_8.browser_queued, 2);
}

#[test]
fn http1_with_enough_slots_is_browser_queueing_only() {
    let world = World {
        slots: 8,
        connections: Some(6),
        profile: SIM_DEFAULT,
    };
    let result = analyze(&run_plan(&world));
    assert_eq!(
        result.verdicts,
        vec![ConcurrencyVerdict::BrowserQueueing {
            parallel_streams: 6,
            from_level: 8
        }]
    );
    assert_eq!(result.server_parallel_streams, None);
}

#[test]
fn enough_slots_and_http2_is_flat() {
    let world = World {
        slots: 8,
        connections: None,
        profile: SIM_DEFAULT,
    };
    let result = analyze(&run_plan(&world));
    assert_eq!(
        result.verdicts,
        vec![ConcurrencyVerdict::NoQueueing { max_level: 8 }]
    );
    assert!((result.p50_growth_ratio.unwrap() - 1.0).abs() < 0.05);
}

fn synthetic(level: u32, wave: usize, ttfts_ms: &[f64]) -> Vec<Observation<ConcurrencyKey>> {
    ttfts_ms
        .iter()
        .enumerate()
        .map(|(rank, &ttft)| {
            Observation::new(
                ConcurrencyKey { level, wave, rank },
                RunSample::with_ttft(ttft),
            )
        })
        .collect()
}

#[test]
fn gradual_growth_without_a_step_is_a_slowdown() {
    // Batching server: TTFT = 200·(1 + 0.3·(level − 1)) plus 10 ms per rank; no gap > 50 ms.
    let mut runs = Vec::new();
    for (wave, level) in [1_u32, 2, 4, 8].iter().enumerate() {
        let base = 200.0 * (1.0 + 0.3 * f64::from(level - 1));
        let ttfts: Vec<f64> = (0..*level)
            .map(|rank| base + 10.0 * f64::from(rank))
            .collect();
        runs.extend(synthetic(*level, wave, &ttfts));
    }
    let result = analyze(&runs);
    // p50 at 8 = 620 + 35 = 655 (ranks 0..7: mean of the 4th and 5th, 650 and 660), at 1 = 200.
    assert!((result.p50_growth_ratio.unwrap() - 655.0 / 200.0).abs() < 1e-9);
    assert_eq!(
        result.verdicts,
        vec![ConcurrencyVerdict::ServerSlowdown {
            growth_ratio: 655.0 / 200.0,
            max_level: 8
        }]
    );
}

#[test]
fn step_rule_by_hand_and_majority_of_waves() {
    // Fastest 300: a step needs a gap > max(50, 150) = 150 ms. Wave 0: 300, 320, 340, 600 →
    // gap 260 after the third stream: 3 in parallel. Wave 1: gaps of 100 → no step.
    // Wave 2: like wave 0. Two of three waves step → level 4 queues, parallel 3.
    let mut runs = synthetic(4, 0, &[300.0, 320.0, 340.0, 600.0]);
    runs.extend(synthetic(4, 1, &[300.0, 400.0, 500.0, 600.0]));
    runs.extend(synthetic(4, 2, &[340.0, 300.0, 600.0, 320.0]));
    let result = analyze(&runs);
    let parallel: Vec<Option<usize>> = result.waves.iter().map(|w| w.server_parallel).collect();
    assert_eq!(parallel, vec![Some(3), None, Some(3)]);
    assert_eq!(result.server_queueing_from_level, Some(4));
    assert_eq!(result.server_parallel_streams, Some(3));
    // One wave of three stepping is not a majority.
    let mut runs = synthetic(4, 0, &[300.0, 320.0, 340.0, 600.0]);
    runs.extend(synthetic(4, 1, &[300.0, 400.0, 500.0, 600.0]));
    runs.extend(synthetic(4, 2, &[300.0, 400.0, 500.0, 600.0]));
    assert_eq!(analyze(&runs).server_queueing_from_level, None);
}

#[test]
fn browser_rule_uses_queueing_above_the_waves_smallest() {
    // All six paid 80 ms of setup; one waited 80 + 99 (not held), one 80 + 100 (held).
    let mut runs = synthetic(8, 0, &[300.0; 8]);
    let queueing = [80.0, 80.0, 80.0, 80.0, 80.0, 80.0, 179.0, 180.0];
    for (run, q) in runs.iter_mut().zip(queueing) {
        run.sample.queueing_ms = Some(q);
    }
    let result = analyze(&runs);
    assert_eq!(result.waves[0].browser_queued, 1);
    assert_eq!(result.browser_parallel_streams, Some(7));
    // Failed streams and empty input.
    let mut runs = synthetic(2, 0, &[300.0]);
    runs.push(Observation::new(
        ConcurrencyKey {
            level: 2,
            wave: 0,
            rank: 1,
        },
        RunSample::failed(),
    ));
    let result = analyze(&runs);
    assert_eq!(result.levels[0].failures, 1);
    assert_eq!(result.waves[0].streams, 1);
    assert_eq!(
        analyze(&[]).verdicts,
        vec![ConcurrencyVerdict::NotEnoughData]
    );
}

#[test]
fn hidden_timing_makes_a_step_at_six_ambiguous() {
    // HTTP/1.1, 8 slots, but no Timing-Allow-Origin: queueing_ms is unknown, and the two
    // streams the browser held look like a server step after 6.
    let world = World {
        slots: 8,
        connections: Some(6),
        profile: SIM_DEFAULT,
    };
    let mut runs = run_plan(&world);
    for run in &mut runs {
        run.sample.queueing_ms = None;
        run.sample.connection_reused = None;
    }
    let result = analyze(&runs);
    assert_eq!(
        result.verdicts,
        vec![
            ConcurrencyVerdict::ServerQueueing {
                parallel_streams: 6,
                from_level: 8
            },
            ConcurrencyVerdict::StepMayBeBrowserLimit {
                parallel_streams: 6
            }
        ]
    );
}
