//! SLO evaluation over handmade runs: which runs count, per-run attainment, goodput (AIPerf's
//! good request fraction) and the verdict, checked against hand computations.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use ttft_core::failure::NetworkFailure;
use ttft_core::protocol::Protocol;
use ttft_core::record::{RunRecord, RunSettings, Transport};
use ttft_core::timeline::{PaintMethod, PaintTarget, RunTimeline};
use ttft_lab::slo::{SloSet, Verdict};
use ttft_stream::dialect::DecodedEvent;

/// A run's record as `Measurement::finish` makes it, from a handmade timeline.
fn record_from(run_index: u32, settings: RunSettings, run: &RunTimeline) -> RunRecord {
    RunRecord {
        run_index,
        started_at: "2026-11-24T16:00:00.000Z".to_owned(),
        settings,
        transport: Transport::Worker,
        cold: run
            .network
            .as_ref()
            .and_then(|network| network.connection.cold()),
        connection_evidence: None,
        warm_up: false,
        metrics: run.metrics(),
        instants: run.instants.clone(),
        usage: run.usage.clone(),
        network: run.network.clone(),
        outcome: run.outcome.clone(),
        diagnosis_cause: None,
        diagnosis: None,
        experiment: None,
        arrival_delay_bound_ms: None,
        arrivals_wait_for_main_thread: None,
        main_thread_stall_ms: None,
        server_account: None,
        breakdown: None,
        timer: None,
        relay: None,
        buffered_arrival: None,
    }
}

fn settings() -> RunSettings {
    RunSettings {
        protocol: Protocol::OpenAiChat,
        endpoint_url: "http://127.0.0.1:8787/v1/chat/completions".into(),
        model: "sim-fast".into(),
        dialect: None,
        max_tokens: None,
        ttft_only: false,
        reasoning: false,
        request: None,
    }
}

/// A completed run: clicked 5 ms before the request, answer after `ttfa_ms`, painted 16 ms
/// later (so perceived_ttfa = ttfa + 21), done 100 ms after the answer.
fn completed(index: u32, ttfa_ms: f64) -> RunRecord {
    let start = 10_000.0 * f64::from(index);
    let mut run = RunTimeline::new(Some(start - 5.0), start);
    run.on_headers(start + 40.0, 200);
    let answer = DecodedEvent {
        index: 1,
        answer: "Hi".into(),
        ..Default::default()
    };
    run.on_event(start + ttfa_ms, &answer);
    run.on_paint(
        PaintTarget::Answer,
        start + ttfa_ms + 16.0,
        PaintMethod::PresentationTime,
    );
    let done = DecodedEvent {
        index: 2,
        terminal: true,
        ..Default::default()
    };
    run.on_event(start + ttfa_ms + 100.0, &done);
    run.on_stream_end(start + ttfa_ms + 101.0);
    record_from(index, settings(), &run)
}

fn runs() -> Vec<RunRecord> {
    let mut warm_up = completed(1, 5000.0);
    warm_up.warm_up = true;
    let mut refused = RunTimeline::new(Some(49_995.0), 50_000.0);
    refused.on_headers(50_100.0, 401);
    let mut stopped = RunTimeline::new(Some(59_995.0), 60_000.0);
    stopped.on_network_failure(60_050.0, NetworkFailure::Aborted);
    vec![
        warm_up,
        completed(2, 200.0),
        completed(3, 300.0),
        completed(4, 900.0),
        record_from(5, settings(), &refused),
        record_from(6, settings(), &stopped),
    ]
}

#[test]
fn goodput_counts_failed_runs_but_not_warm_ups_or_stopped_ones() {
    let set = SloSet::parse("ttfa_ms<=800,perceived_ttfa_ms:p95<=1500").unwrap();
    let report = set.evaluate(&runs());
    // Counted: runs 2, 3, 4 and the 401; good: 2 and 3.
    assert_eq!(report.counted_runs, 4);
    assert_eq!(report.good_run_count, 2);
    assert_eq!(report.good_run_fraction, Some(0.5));
    let per_run: Vec<(u32, bool)> = report
        .runs
        .iter()
        .map(|run| (run.run_index, run.met_every_threshold))
        .collect();
    assert_eq!(per_run, vec![(2, true), (3, true), (4, false), (5, false)]);
    // perceived_ttfa: 221, 321, 921 ms; type 7 p95: h = 2·0.95 = 1.9 → 321 + 0.9·600 = 861.
    let p95 = &report.thresholds[1];
    assert!(
        (p95.observed.unwrap() - 861.0).abs() < 1e-9,
        "{:?}",
        p95.observed
    );
    assert_eq!(p95.samples, 3);
    assert!(p95.met);
    assert_eq!(report.thresholds[0].met_runs, Some(2));
    // Goodput 50 % is below the default target (every run): fail.
    assert_eq!(report.verdict, Verdict::Fail);
    assert_eq!(report.spec, "ttfa_ms<=800,perceived_ttfa_ms:p95<=1500");
}

#[test]
fn a_goodput_target_and_distribution_thresholds_decide_the_verdict() {
    let relaxed = SloSet::parse("ttfa_ms<=800,perceived_ttfa_ms:p95<=1500,goodput>=50%").unwrap();
    assert_eq!(relaxed.evaluate(&runs()).verdict, Verdict::Pass);
    let strict_tail =
        SloSet::parse("ttfa_ms<=800,perceived_ttfa_ms:p95<=800,goodput>=50%").unwrap();
    assert_eq!(strict_tail.evaluate(&runs()).verdict, Verdict::Fail);
    let only_distribution = SloSet::parse("perceived_ttfa_ms:max<=1000").unwrap();
    let report = only_distribution.evaluate(&runs());
    assert_eq!((report.verdict, report.good_run_count), (Verdict::Pass, 4));
    assert_eq!(
        only_distribution.evaluate(&runs()[..1]).verdict,
        Verdict::NoData,
        "only a warm-up"
    );
}
