//! The OTLP send queue: bounds, batching, "never while a stream is open", retries with
//! backoff as the OTLP/HTTP specification asks, and the `pagehide` flush.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::Value;
use ttft_core::lang::Lang;
use ttft_lab::otlp::{
    backoff_ms, Delivery, ProblemContext, QueueConfig, SendOutcome, SendProblem, SendQueue, Signal,
    KEEPALIVE_BUDGET_BYTES,
};

/// A `ResourceMetrics`-like item whose `n` we can find in the body again.
fn item(n: u32) -> String {
    format!("{{\"n\":{n}}}")
}

fn numbers(body: &str, key: &str) -> Vec<u64> {
    let body: Value = serde_json::from_str(body).unwrap();
    body[key]
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| entry["n"].as_u64().unwrap())
        .collect()
}

fn response(status: u16, retry_after: Option<&str>, body: &str) -> SendOutcome {
    SendOutcome::Response {
        status,
        retry_after: retry_after.map(str::to_owned),
        body: body.to_owned(),
    }
}

fn ok() -> SendOutcome {
    response(200, None, "{}")
}

#[test]
fn nothing_is_sent_while_a_stream_is_open_or_a_request_is_in_flight() {
    let mut queue = SendQueue::new(QueueConfig::default());
    queue.push(Signal::Metrics, item(1), 1);
    queue.push(Signal::Traces, item(1), 1);
    assert_eq!(queue.poll(0.0, true), None);
    let first = queue.poll(0.0, false).unwrap();
    assert_eq!((first.signal, first.keepalive), (Signal::Metrics, false));
    assert_eq!(queue.poll(1.0, false), None, "one request at a time");
    assert_eq!(
        queue.on_outcome(first.id, &ok(), 2.0, 0.5),
        Delivery::Delivered { runs: 1 }
    );
    let second = queue.poll(3.0, false).unwrap();
    assert_eq!(second.signal, Signal::Traces);
    assert_eq!(second.body, "{\"resourceSpans\":[{\"n\":1}]}");
}

#[test]
fn a_full_queue_drops_the_oldest_and_counts_them() {
    let mut queue = SendQueue::new(QueueConfig {
        max_queued_items: 3,
        ..QueueConfig::default()
    });
    for n in 1..=5 {
        queue.push(Signal::Metrics, item(n), 1);
    }
    let status = queue.status();
    assert_eq!(
        (status.metrics.dropped_runs, status.metrics.waiting_runs),
        (2, 3)
    );
    assert_eq!(
        status.last_problem,
        Some(SendProblem::Overflow { dropped_runs: 2 })
    );
    let request = queue.poll(0.0, false).unwrap();
    assert_eq!(numbers(&request.body, "resourceMetrics"), vec![3, 4, 5]);
    assert_eq!(request.runs, 3);
}

#[test]
fn batches_grow_up_to_the_byte_limit_in_order() {
    let mut queue = SendQueue::new(QueueConfig {
        max_batch_bytes: 60,
        ..QueueConfig::default()
    });
    for n in 1..=5 {
        queue.push(Signal::Traces, item(n), 1);
    }
    let mut batches = Vec::new();
    let mut now_ms = 0.0;
    while let Some(request) = queue.poll(now_ms, false) {
        assert!(request.body.len() <= 60 || request.runs == 1);
        batches.push(numbers(&request.body, "resourceSpans"));
        queue.on_outcome(request.id, &ok(), now_ms, 0.5);
        now_ms += 1.0;
    }
    // 32 bytes of envelope budget + 8 bytes per item: three fit, then two.
    assert_eq!(batches, vec![vec![1, 2, 3], vec![4, 5]]);
    assert_eq!(queue.status().traces.sent_runs, 5);
}

#[test]
fn network_errors_retry_with_exponential_backoff_and_jitter() {
    let config = QueueConfig::default();
    let mut queue = SendQueue::new(config.clone());
    queue.push(Signal::Metrics, item(1), 1);
    let first = queue.poll(0.0, false).unwrap();
    // Attempt 1 failed: base 1000 ms, jitter 0 → half of it.
    assert_eq!(
        queue.on_outcome(first.id, &SendOutcome::NetworkError, 100.0, 0.0),
        Delivery::WillRetry {
            at_ms: 600.0,
            problem: SendProblem::Unreachable
        }
    );
    assert_eq!(queue.status().next_attempt_at_ms, Some(600.0));
    assert_eq!(queue.poll(599.0, false), None, "not before its time");
    let second = queue.poll(600.0, false).unwrap();
    assert_eq!(second.body, first.body, "the same batch again");
    // Attempt 2 failed: base 2000 ms, jitter 1 → all of it.
    assert_eq!(
        queue.on_outcome(second.id, &SendOutcome::Timeout, 700.0, 1.0),
        Delivery::WillRetry {
            at_ms: 2700.0,
            problem: SendProblem::TimedOut
        }
    );
    assert_eq!(backoff_ms(&config, 3, 0.5), 3000.0);
    assert_eq!(backoff_ms(&config, 20, 1.0), 60_000.0, "capped");
}

#[test]
fn busy_answers_honour_retry_after_and_other_errors_are_not_retried() {
    let mut queue = SendQueue::new(QueueConfig::default());
    for (status, retry_after, expected) in [
        (503, Some("7"), Some(7000.0)),
        (429, None, Some(500.0)),
        (502, Some("Wed, 21 Oct 2026 07:28:00 GMT"), Some(500.0)),
        (504, None, Some(500.0)),
        (500, None, None),
        (400, None, None),
        (401, None, None),
        (404, None, None),
    ] {
        let mut queue_for_status = SendQueue::new(QueueConfig::default());
        queue_for_status.push(Signal::Metrics, item(1), 1);
        let request = queue_for_status.poll(0.0, false).unwrap();
        let delivery =
            queue_for_status.on_outcome(request.id, &response(status, retry_after, "{}"), 0.0, 0.0);
        match (expected, delivery) {
            (
                Some(at_ms),
                Delivery::WillRetry {
                    at_ms: actual,
                    problem,
                },
            ) => {
                assert_eq!((actual, problem), (at_ms, SendProblem::Busy { status }));
            }
            (None, Delivery::Dropped { problem }) => {
                assert!(matches!(problem, SendProblem::Refused { status: s, .. } if s == status));
                assert_eq!(queue_for_status.status().metrics.failed_runs, 1);
            }
            (expected, delivery) => panic!("{status}: wanted {expected:?}, got {delivery:?}"),
        }
    }
    // The collector's Status message is kept for the UI.
    queue.push(Signal::Traces, item(1), 1);
    let request = queue.poll(0.0, false).unwrap();
    let delivery = queue.on_outcome(
        request.id,
        &response(400, None, r#"{"code":3,"message":"unknown field \"foo\""}"#),
        0.0,
        0.0,
    );
    assert_eq!(
        delivery,
        Delivery::Dropped {
            problem: SendProblem::Refused {
                status: 400,
                detail: Some("unknown field \"foo\"".into())
            }
        }
    );
}

#[test]
fn a_partial_success_is_delivered_not_retried_and_reported() {
    let mut queue = SendQueue::new(QueueConfig::default());
    queue.push(Signal::Metrics, item(1), 1);
    let request = queue.poll(0.0, false).unwrap();
    let body = r#"{"partialSuccess":{"rejectedDataPoints":"2","errorMessage":"bad\npoints"}}"#;
    assert_eq!(
        queue.on_outcome(request.id, &response(200, None, body), 1.0, 0.0),
        Delivery::Delivered { runs: 1 }
    );
    assert_eq!(
        queue.status().last_problem,
        Some(SendProblem::PartiallyRejected {
            rejected: 2,
            detail: Some("bad points".into())
        })
    );
    assert_eq!(queue.poll(2.0, false), None);
}

#[test]
fn a_batch_is_dropped_after_its_last_attempt() {
    let mut queue = SendQueue::new(QueueConfig {
        max_attempts: 3,
        ..QueueConfig::default()
    });
    queue.push(Signal::Metrics, item(1), 1);
    let mut now_ms = 0.0;
    let mut deliveries = Vec::new();
    for _ in 0..3 {
        let request = queue.poll(now_ms, false).unwrap();
        deliveries.push(queue.on_outcome(request.id, &SendOutcome::NetworkError, now_ms, 0.0));
        now_ms += 100_000.0;
    }
    assert!(matches!(deliveries[1], Delivery::WillRetry { .. }));
    assert_eq!(
        deliveries[2],
        Delivery::Dropped {
            problem: SendProblem::GaveUp {
                attempts: 3,
                last: Box::new(SendProblem::Unreachable)
            }
        }
    );
    assert_eq!(queue.status().metrics.failed_runs, 1);
    assert_eq!(queue.poll(now_ms, false), None);
}

#[test]
fn a_retry_keeps_its_place_before_newer_items_of_its_signal_only() {
    let mut queue = SendQueue::new(QueueConfig::default());
    queue.push(Signal::Metrics, item(1), 1);
    let first = queue.poll(0.0, false).unwrap();
    queue.on_outcome(first.id, &SendOutcome::NetworkError, 0.0, 0.0);
    queue.push(Signal::Metrics, item(2), 1);
    queue.push(Signal::Traces, item(9), 1);
    let traces = queue.poll(10.0, false).unwrap();
    assert_eq!(traces.signal, Signal::Traces, "traces are not held up");
    queue.on_outcome(traces.id, &ok(), 11.0, 0.0);
    assert_eq!(queue.poll(20.0, false), None, "metrics wait for the retry");
    let retry = queue.poll(500.0, false).unwrap();
    assert_eq!(numbers(&retry.body, "resourceMetrics"), vec![1]);
    queue.on_outcome(retry.id, &ok(), 501.0, 0.0);
    let next = queue.poll(502.0, false).unwrap();
    assert_eq!(numbers(&next.body, "resourceMetrics"), vec![2]);
}

#[test]
fn the_pagehide_flush_fits_the_keepalive_budget_and_counts_what_does_not() {
    let mut queue = SendQueue::new(QueueConfig::default());
    let big = format!("{{\"n\":0,\"pad\":\"{}\"}}", "x".repeat(20_000));
    for _ in 0..4 {
        queue.push(Signal::Metrics, big.clone(), 1);
        queue.push(Signal::Traces, big.clone(), 1);
    }
    // A retry waiting is flushed too, despite its backoff.
    let request = queue.poll(0.0, false).unwrap();
    queue.on_outcome(request.id, &SendOutcome::NetworkError, 0.0, 0.0);
    let flushed = queue.flush_on_pagehide();
    let total: usize = flushed.iter().map(|request| request.body.len()).sum();
    assert!(total <= KEEPALIVE_BUDGET_BYTES, "{total}");
    assert!(flushed.iter().all(|request| request.keepalive));
    let status = queue.status();
    let flushed_runs: u64 = flushed.iter().map(|request| request.runs).sum();
    assert_eq!(
        flushed_runs,
        status.metrics.flushed_runs + status.traces.flushed_runs
    );
    assert_eq!(flushed_runs, 3, "three 20 KB items fit in 64 KiB");
    assert_eq!(status.metrics.dropped_runs + status.traces.dropped_runs, 5);
    assert_eq!(status.metrics.waiting_runs + status.traces.waiting_runs, 0);
}

#[test]
fn a_late_answer_to_an_unknown_request_changes_nothing() {
    let mut queue = SendQueue::new(QueueConfig::default());
    assert_eq!(queue.on_outcome(42, &ok(), 0.0, 0.0), Delivery::Unknown);
    queue.push(Signal::Metrics, item(1), 1);
    let request = queue.poll(0.0, false).unwrap();
    assert_eq!(
        queue.on_outcome(request.id + 1, &ok(), 0.0, 0.0),
        Delivery::Unknown
    );
    assert!(queue.status().in_flight);
}

#[test]
fn problems_say_what_to_do_in_both_languages() {
    let context = ProblemContext {
        endpoint: "https://otel.example.com:4318".into(),
        page_origin: "https://docs.example.com".into(),
    };
    let unreachable = SendProblem::Unreachable.message(Lang::En, &context);
    assert!(unreachable.contains("cors.allowed_origins"));
    assert!(unreachable.contains("https://docs.example.com"));
    assert!(unreachable.contains("measurements are kept"));
    let zh = SendProblem::Unreachable.message(Lang::Zh, &context);
    assert!(zh.contains("allowed_origins") && zh.contains("https://docs.example.com"));
    let refused = SendProblem::Refused {
        status: 401,
        detail: None,
    };
    assert!(refused
        .message(Lang::En, &context)
        .contains("Never put the model key there"));
    assert!(refused
        .message(Lang::Zh, &context)
        .contains("切勿填入模型密钥"));
    let gave_up = SendProblem::GaveUp {
        attempts: 6,
        last: Box::new(SendProblem::Busy { status: 503 }),
    };
    assert!(gave_up
        .message(Lang::En, &context)
        .contains("after 6 attempts"));
    assert_eq!(gave_up.code(), "gave_up");
}
