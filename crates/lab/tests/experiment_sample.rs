//! From a recorded run to the numbers the experiments use.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use ttft_core::failure::NetworkFailure;
use ttft_core::timeline::{HttpProtocol, NetworkBreakdown, ResourceTiming, RunTimeline};
use ttft_lab::experiment::RunSample;
use ttft_stream::dialect::{DecodedEvent, Usage};

/// A reasoning run: fetch at 1000, first reasoning at 1250, first answer at 1750, done.
fn reasoning_run() -> RunTimeline {
    let mut run = RunTimeline::new(Some(990.0), 1_000.0);
    run.on_headers(1_080.0, 200);
    run.on_body_chunk(1_090.0, 100);
    let thinking = DecodedEvent {
        index: 0,
        reasoning: "Let me think".into(),
        ..Default::default()
    };
    run.on_event(1_250.0, &thinking);
    let answer = DecodedEvent {
        index: 1,
        answer: "3 h 35 min".into(),
        ..Default::default()
    };
    run.on_event(1_750.0, &answer);
    run.set_usage(&Usage {
        prompt_tokens: Some(4_000),
        cached_prompt_tokens: Some(3_968),
        ..Default::default()
    });
    let end = DecodedEvent {
        index: 2,
        terminal: true,
        ..Default::default()
    };
    run.on_event(1_800.0, &end);
    run.on_stream_end(1_801.0);
    run
}

#[test]
fn a_completed_run_gives_its_numbers() {
    let mut run = reasoning_run();
    // Reused connection (connectStart == connectEnd), 700 ms held in the browser.
    run.set_network(NetworkBreakdown::from_resource_timing(&ResourceTiming {
        fetch_start: 1_000.0,
        domain_lookup_start: 1_000.0,
        domain_lookup_end: 1_000.0,
        connect_start: 1_700.0,
        connect_end: 1_700.0,
        secure_connection_start: 0.0,
        request_start: 1_700.0,
        response_start: 1_780.0,
        next_hop_protocol: HttpProtocol::Http11,
    }));
    let sample = RunSample::from_timeline(&run);
    assert_eq!(
        sample,
        RunSample {
            succeeded: true,
            ttft_ms: Some(250.0),
            ttfa_ms: Some(750.0),
            reasoning_ms: Some(500.0),
            prompt_tokens: Some(4_000),
            cached_prompt_tokens: Some(3_968),
            queueing_ms: Some(700.0),
            connection_reused: Some(true),
            http_protocol: Some(HttpProtocol::Http11),
        }
    );
    assert_eq!(sample.usable_ttft_ms(), Some(250.0));
}

#[test]
fn failures_and_hidden_timing() {
    let run = reasoning_run();
    let sample = RunSample::from_timeline(&run);
    assert_eq!(sample.queueing_ms, None);
    assert_eq!(sample.connection_reused, None);
    // A run that failed keeps its numbers but is not usable.
    let mut failed = RunTimeline::new(None, 0.0);
    failed.on_headers(50.0, 200);
    failed.on_event(
        400.0,
        &DecodedEvent {
            answer: "partial".into(),
            ..Default::default()
        },
    );
    failed.on_network_failure(900.0, NetworkFailure::Timeout);
    let sample = RunSample::from_timeline(&failed);
    assert!(!sample.succeeded);
    assert_eq!(sample.ttft_ms, Some(400.0));
    assert_eq!(sample.usable_ttft_ms(), None);
    // "TTFT only" mode stops after the first answer on purpose: a success.
    let mut stopped = RunTimeline::new(None, 0.0);
    stopped.on_headers(50.0, 200);
    stopped.on_event(
        300.0,
        &DecodedEvent {
            answer: "Hi".into(),
            ..Default::default()
        },
    );
    stopped.on_stopped_after_first_answer(301.0);
    assert_eq!(
        RunSample::from_timeline(&stopped).usable_ttft_ms(),
        Some(300.0)
    );
    // An HTTP error is a failure.
    let mut refused = RunTimeline::new(None, 0.0);
    refused.on_headers(30.0, 401);
    refused.on_stream_end(31.0);
    assert!(!RunSample::from_timeline(&refused).succeeded);
    // Non-finite values never count.
    assert_eq!(RunSample::with_ttft(f64::INFINITY).usable_ttft_ms(), None);
}
