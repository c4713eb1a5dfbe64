//! Run timeline metrics against hand-computed values.

use ttft_core::failure::{NetworkFailure, StreamFailure};
use ttft_core::timeline::{
    ConnectionKind, HttpProtocol, NetworkBreakdown, PaintMethod, PaintTarget, PerceivedAnchor,
    ResourceTiming, RunOutcome, RunTimeline, RunsSummary, TokenCountSource,
};
use ttft_stream::dialect::{DecodedEvent, StreamError, Usage};

/// What one step of a scripted run does.
enum Step {
    Headers(f64, u16),
    Bytes(f64, usize),
    /// An event with (reasoning, answer) text.
    Event(f64, &'static str, &'static str),
    Terminal(f64),
    Error(f64, &'static str),
    Usage(Option<u64>),
    Paint(PaintTarget, f64, PaintMethod),
    End(f64),
    /// An event revealing the earlier answer text (given) as reasoning, with its own
    /// (reasoning, answer) text.
    Reattribute(f64, &'static str, &'static str, &'static str),
}

fn play(clicked: Option<f64>, request_started: f64, steps: &[Step]) -> RunTimeline {
    let mut run = RunTimeline::new(clicked, request_started);
    let mut index = 0;
    let mut next = || {
        index += 1;
        index - 1
    };
    for step in steps {
        match *step {
            Step::Headers(at, status) => run.on_headers(at, status),
            Step::Bytes(at, len) => run.on_body_chunk(at, len),
            Step::Event(at, reasoning, answer) => run.on_event(
                at,
                &DecodedEvent {
                    index: next(),
                    reasoning: reasoning.into(),
                    answer: answer.into(),
                    ..Default::default()
                },
            ),
            Step::Terminal(at) => run.on_event(
                at,
                &DecodedEvent {
                    index: next(),
                    terminal: true,
                    ..Default::default()
                },
            ),
            Step::Error(at, message) => run.on_event(
                at,
                &DecodedEvent {
                    index: next(),
                    error: Some(StreamError {
                        kind: Some("server_error".into()),
                        message: message.into(),
                        raw: serde_json::Value::Null,
                    }),
                    ..Default::default()
                },
            ),
            Step::Usage(output_tokens) => run.set_usage(&Usage {
                prompt_tokens: Some(2006),
                cached_prompt_tokens: Some(1920),
                output_tokens,
                reasoning_tokens: Some(30),
                ..Default::default()
            }),
            Step::Paint(target, at, method) => run.on_paint(target, at, method),
            Step::End(at) => run.on_stream_end(at),
            Step::Reattribute(at, earlier, reasoning, answer) => run.on_event(
                at,
                &DecodedEvent {
                    index: next(),
                    reasoning: reasoning.into(),
                    answer: answer.into(),
                    earlier_answer_was_reasoning: Some(earlier.into()),
                    ..Default::default()
                },
            ),
        }
    }
    run
}

use Step::*;

#[test]
fn role_chunk_does_not_start_ttft() {
    // fetch() at 1000; the role-only chunk arrives at 1060, long before the first token.
    let run = play(
        Some(990.0),
        1000.0,
        &[
            Headers(1050.0, 200),
            Bytes(1060.0, 150),
            Event(1060.0, "", ""), // role chunk: {"role":"assistant","content":""}
            Event(1500.0, "", "Hello"),
            Event(1550.0, "", " world"),
            Event(1600.0, "", "!"),
            Event(1610.0, "", ""), // finish chunk
            Terminal(1611.0),
            End(1612.0),
        ],
    );
    let m = run.metrics();
    assert_eq!(m.first_chunk_ms, Some(60.0)); // 1060 − 1000
    assert_eq!(m.setup_ms, Some(50.0)); // 1050 − 1000
    assert_eq!(m.ttft_ms, Some(500.0)); // 1500 − 1000, not 60
    assert_eq!(m.ttfa_ms, Some(500.0));
    assert_eq!(m.ttfa_visible_ms, Some(500.0));
    assert_eq!(m.ttfr_ms, None);
    assert_eq!(m.reasoning_ms, None);
    assert_eq!(m.decode_ms, Some(100.0)); // 1600 − 1500
    assert_eq!(m.itl_gaps.sample_ms(), &[50.0, 50.0]);
    // No usage: n = 3 text chunks → (1600 − 1500) / 2 = 50.
    assert_eq!(m.itl_ms, Some(50.0));
    assert_eq!(m.token_count_source, Some(TokenCountSource::Chunks));
    assert_eq!(m.output_tokens_counted, Some(3));
    assert_eq!(m.output_tps, Some(30.0)); // 3 / 0.1 s
    assert_eq!(m.e2e_ms, Some(611.0)); // terminal marker at 1611 − 1000
    assert_eq!(m.http_status, Some(200));
    assert_eq!(run.outcome, RunOutcome::Completed);
    assert_eq!(run.instants.first_byte, Some(1060.0));
    assert_eq!(run.bytes_received, 150);
    assert_eq!(run.event_count, 6);
    assert_eq!(run.stream_failure(), None);
}

#[test]
fn whitespace_first_answer() {
    let run = play(
        Some(990.0),
        1000.0,
        &[
            Event(1200.0, "", "\n\n"),
            Event(1300.0, "", "Hi"),
            Paint(PaintTarget::Answer, 1320.0, PaintMethod::PresentationTime),
            Terminal(1400.0),
            End(1401.0),
        ],
    );
    let m = run.metrics();
    assert_eq!(m.ttft_ms, Some(200.0)); // 1200 − 1000: non-empty text
    assert_eq!(m.ttfa_ms, Some(200.0));
    assert_eq!(m.ttfa_visible_ms, Some(300.0)); // 1300 − 1000: first non-whitespace
    assert_eq!(m.perceived_ttfa_ms, Some(330.0)); // 1320 − 990 (click)
    assert_eq!(m.perceived_ttft_ms, Some(330.0)); // only the answer was painted
    assert_eq!(m.perceived_from, PerceivedAnchor::Clicked);
    assert_eq!(m.answer_ui_delay_ms, Some(20.0)); // 1320 − 1300 (the visible text)
}

#[test]
fn reasoning_then_answer_with_usage_based_itl() {
    let run = play(
        Some(990.0),
        1000.0,
        &[
            Headers(1040.0, 200),
            Event(1100.0, "", ""), // message_start
            Event(1300.0, "Let", ""),
            Paint(PaintTarget::Reasoning, 1316.0, PaintMethod::RenderTime),
            Event(1400.0, " me think", ""),
            Event(2300.0, "", "OK"),
            Paint(PaintTarget::Answer, 2333.0, PaintMethod::PresentationTime),
            Event(2350.0, "", "."),
            Usage(Some(41)),
            Terminal(2360.0),
            End(2361.0),
        ],
    );
    let m = run.metrics();
    let cases: [(&str, Option<f64>, Option<f64>); 13] = [
        ("ttft_ms", m.ttft_ms, Some(300.0)),            // 1300 − 1000
        ("ttfr_ms", m.ttfr_ms, Some(300.0)),            // 1300 − 1000
        ("ttfa_ms", m.ttfa_ms, Some(1300.0)),           // 2300 − 1000
        ("reasoning_ms", m.reasoning_ms, Some(1000.0)), // 2300 − 1300
        ("first_chunk_ms", m.first_chunk_ms, Some(100.0)),
        ("setup_ms", m.setup_ms, Some(40.0)),
        ("decode_ms", m.decode_ms, Some(1050.0)), // 2350 − 1300
        ("itl_ms", m.itl_ms, Some(26.25)),        // 1050 / (41 − 1)
        ("perceived_ttft_ms", m.perceived_ttft_ms, Some(326.0)), // 1316 − 990
        ("perceived_ttfa_ms", m.perceived_ttfa_ms, Some(1343.0)), // 2333 − 990
        ("reasoning_ui_delay_ms", m.reasoning_ui_delay_ms, Some(16.0)), // 1316 − 1300
        ("answer_ui_delay_ms", m.answer_ui_delay_ms, Some(33.0)), // 2333 − 2300
        ("e2e_ms", m.e2e_ms, Some(1360.0)),
    ];
    for (name, actual, expected) in cases {
        assert_eq!(actual, expected, "{name}");
    }
    // Chunk gaps stay the per-chunk distribution: 1400−1300, 2300−1400, 2350−2300.
    assert_eq!(m.itl_gaps.sample_ms(), &[100.0, 900.0, 50.0]);
    assert_eq!(m.token_count_source, Some(TokenCountSource::Usage));
    assert_eq!(m.output_tokens_counted, Some(41));
    // 41 tokens / 1.05 s = 39.0476…
    assert!((m.output_tps.unwrap() - 41.0 / 1.05).abs() < 1e-9);
    assert_eq!(m.prompt_tokens, Some(2006));
    assert_eq!(m.cached_prompt_tokens, Some(1920));
    assert_eq!(m.output_tokens, Some(41));
    assert_eq!(m.reasoning_tokens, Some(30));
}

#[test]
fn usage_vs_chunk_itl() {
    // Same arrivals (1100, 1200, 1300, 1400): window 300 ms.
    let arrivals = [
        Event(1100.0, "", "a"),
        Event(1200.0, "", "b"),
        Event(1300.0, "", "c"),
        Event(1400.0, "", "d"),
    ];
    let chunks = play(None, 1000.0, &arrivals).metrics();
    assert_eq!(chunks.itl_ms, Some(100.0)); // 300 / (4 − 1)
    assert_eq!(chunks.token_count_source, Some(TokenCountSource::Chunks));
    let mut with_usage = play(None, 1000.0, &arrivals);
    with_usage.set_usage(&Usage {
        output_tokens: Some(13),
        ..Default::default()
    });
    let usage = with_usage.metrics();
    assert_eq!(usage.itl_ms, Some(25.0)); // 300 / (13 − 1)
    assert_eq!(usage.token_count_source, Some(TokenCountSource::Usage));
    assert_eq!(usage.itl_gaps, chunks.itl_gaps);
    // Usage without output tokens falls back to chunks.
    let mut partial = play(None, 1000.0, &arrivals);
    partial.set_usage(&Usage {
        prompt_tokens: Some(10),
        ..Default::default()
    });
    assert_eq!(
        partial.metrics().token_count_source,
        Some(TokenCountSource::Chunks)
    );
}

#[test]
fn usage_keeps_the_last_one() {
    let run = play(None, 0.0, &[Usage(Some(1)), Usage(Some(7))]);
    assert_eq!(run.usage.unwrap().output_tokens, Some(7));
}

#[test]
fn single_token_has_no_itl_or_throughput() {
    let run = play(
        None,
        1000.0,
        &[Event(1100.0, "", "x"), Usage(Some(1)), End(1200.0)],
    );
    let m = run.metrics();
    assert_eq!(m.decode_ms, Some(0.0));
    assert_eq!(m.itl_ms, None); // n = 1
    assert_eq!(m.output_tps, None); // decode window 0
    assert!(m.itl_gaps.is_empty());
    assert_eq!(run.outcome, RunOutcome::EndedWithoutTerminal);
}

#[test]
fn no_click_falls_back_to_request_started() {
    let run = play(
        None,
        1000.0,
        &[
            Event(1200.0, "", "Hi"),
            Paint(PaintTarget::Answer, 1216.0, PaintMethod::RafMessageChannel),
            Paint(PaintTarget::Answer, 1300.0, PaintMethod::PresentationTime), // later: ignored
        ],
    );
    let m = run.metrics();
    assert_eq!(m.perceived_from, PerceivedAnchor::RequestStarted);
    assert_eq!(m.perceived_ttfa_ms, Some(216.0)); // 1216 − 1000
    assert_eq!(
        run.instants.answer_painted.map(|p| p.method),
        Some(PaintMethod::RafMessageChannel)
    );
}

#[test]
fn missing_instants_give_none_not_zero() {
    let run = RunTimeline::new(Some(5.0), 10.0);
    let m = run.metrics();
    let all = [
        m.ttft_ms,
        m.ttfa_ms,
        m.ttfa_visible_ms,
        m.ttfr_ms,
        m.first_chunk_ms,
        m.setup_ms,
        m.perceived_ttft_ms,
        m.perceived_ttfa_ms,
        m.reasoning_ui_delay_ms,
        m.answer_ui_delay_ms,
        m.reasoning_ms,
        m.decode_ms,
        m.e2e_ms,
        m.itl_ms,
        m.output_tps,
    ];
    assert!(all.iter().all(Option::is_none), "{m:?}");
    assert_eq!(m.token_count_source, None);
    assert_eq!(run.outcome, RunOutcome::Streaming);
}

#[test]
fn outcomes() {
    let cases: Vec<(Vec<Step>, RunOutcome)> = vec![
        (
            vec![Event(1.0, "", ""), Terminal(2.0), End(3.0)],
            RunOutcome::EmptyStream,
        ),
        (vec![End(3.0)], RunOutcome::EmptyStream),
        (
            vec![Event(1.0, "", "a"), End(3.0)],
            RunOutcome::EndedWithoutTerminal,
        ),
        (
            vec![Headers(1.0, 401), End(2.0)],
            RunOutcome::HttpError { status: 401 },
        ),
    ];
    for (steps, expected) in cases {
        assert_eq!(play(None, 0.0, &steps).outcome, expected);
    }
    let empty = play(None, 0.0, &[Terminal(2.0), End(3.0)]);
    assert_eq!(empty.stream_failure(), Some(StreamFailure::EmptyStream));
}

#[test]
fn mid_stream_error_is_kept_even_with_done_after_it() {
    // vLLM sends [DONE] after an error event; the error must stay the outcome.
    let run = play(
        None,
        1000.0,
        &[
            Event(1100.0, "", "Hel"),
            Error(1200.0, "boom"),
            Terminal(1201.0),
            End(1202.0),
        ],
    );
    assert!(matches!(run.outcome, RunOutcome::StreamError { .. }));
    assert!(matches!(
        run.stream_failure(),
        Some(StreamFailure::MidStreamError { error }) if error.message == "boom"
    ));
    // What was measured before the error stays.
    assert_eq!(run.metrics().ttft_ms, Some(100.0));
}

#[test]
fn malformed_abort_and_ttft_only() {
    let mut run = play(None, 0.0, &[Event(5.0, "", "a")]);
    run.on_malformed_chunk(6.0, "expected value at line 1 column 1");
    assert_eq!(
        run.stream_failure(),
        Some(StreamFailure::MalformedChunk {
            detail: "expected value at line 1 column 1".into()
        })
    );
    let mut aborted = play(None, 0.0, &[Event(5.0, "", "a")]);
    aborted.on_network_failure(7.0, NetworkFailure::Aborted);
    assert_eq!(aborted.elapsed_ms(), Some(7.0));
    assert_eq!(aborted.network_failure(), Some(NetworkFailure::Aborted));
    assert_eq!(
        aborted.outcome,
        RunOutcome::NetworkFailure {
            failure: NetworkFailure::Aborted
        }
    );
    assert_eq!(aborted.metrics().e2e_ms, None);
    assert_eq!(aborted.metrics().ttft_ms, Some(5.0));
    let mut ttft_only = play(None, 0.0, &[Event(5.0, "", "a")]);
    ttft_only.on_stopped_after_first_answer(5.5);
    ttft_only.on_stream_end(6.0);
    assert_eq!(ttft_only.outcome, RunOutcome::StoppedAfterFirstAnswer);
    assert_eq!(ttft_only.ended_ms, Some(5.5));
    assert_eq!(ttft_only.metrics().e2e_ms, None); // the stream did not end by itself
    assert_eq!(ttft_only.metrics().ttfa_ms, Some(5.0));
}

#[test]
fn export_names_are_the_design_names() {
    let run = play(
        None,
        0.0,
        &[
            Event(5.0, "", "a"),
            Paint(PaintTarget::Answer, 9.0, PaintMethod::RafMessageChannel),
            Usage(Some(2)),
        ],
    );
    let metrics = serde_json::to_value(run.metrics()).unwrap();
    for name in [
        "ttft_ms",
        "ttfa_ms",
        "ttfr_ms",
        "first_chunk_ms",
        "setup_ms",
        "perceived_ttft_ms",
        "perceived_ttfa_ms",
        "reasoning_ui_delay_ms",
        "answer_ui_delay_ms",
        "reasoning_ms",
        "decode_ms",
        "e2e_ms",
        "itl_ms",
        "itl_gaps",
        "output_tps",
        "ttfa_visible_ms",
    ] {
        assert!(metrics.get(name).is_some(), "missing {name}");
    }
    assert_eq!(metrics["ttfr_ms"], serde_json::Value::Null);
    assert_eq!(metrics["token_count_source"], "usage");
    assert_eq!(metrics["perceived_from"], "request_started");
    let timeline = serde_json::to_value(&run).unwrap();
    for name in [
        "clicked",
        "request_started",
        "headers_received",
        "first_byte",
        "first_event",
        "first_reasoning",
        "first_answer",
        "first_answer_visible",
        "reasoning_painted",
        "answer_painted",
        "last_token",
        "finished",
    ] {
        assert!(timeline["instants"].get(name).is_some(), "missing {name}");
    }
    assert_eq!(
        timeline["instants"]["answer_painted"],
        serde_json::json!({
            "at_ms": 9.0,
            "method": "raf_message_channel",
            // The method's measured error against Element Timing (schema 3).
            "expected_error": {"bias_ms": -0.71, "error_p95_ms": 5.2}
        })
    );
    assert_eq!(
        timeline["outcome"],
        serde_json::json!({"kind": "streaming"})
    );
    let back: RunTimeline = serde_json::from_value(timeline).unwrap();
    assert_eq!(back, run);
}

#[test]
fn network_breakdown_table() {
    let new_tls = ResourceTiming {
        fetch_start: 100.0,
        domain_lookup_start: 101.0,
        domain_lookup_end: 111.0,
        connect_start: 111.0,
        secure_connection_start: 131.0,
        connect_end: 161.0,
        request_start: 162.0,
        response_start: 400.0,
        next_hop_protocol: HttpProtocol::H2,
    };
    let reused = ResourceTiming {
        fetch_start: 100.0,
        domain_lookup_start: 100.0,
        domain_lookup_end: 100.0,
        connect_start: 100.0,
        connect_end: 100.0,
        secure_connection_start: 0.0,
        request_start: 101.0,
        response_start: 250.0,
        next_hop_protocol: HttpProtocol::from_next_hop("http/1.1"),
    };
    let new_plain_http = ResourceTiming {
        secure_connection_start: 0.0,
        connect_end: 121.0,
        ..new_tls
    };
    let hidden = ResourceTiming {
        fetch_start: 100.0,
        ..ResourceTiming::default()
    };
    type Row = (
        ResourceTiming,
        [Option<f64>; 6], // dns, tcp, tls, queueing, waiting, request
        ConnectionKind,
        bool,
    );
    let cases: [Row; 4] = [
        // dns 111−101, tcp 131−111, tls 161−131, queue 162−100, wait 400−162, request 400−100
        (
            new_tls,
            [
                Some(10.0),
                Some(20.0),
                Some(30.0),
                Some(62.0),
                Some(238.0),
                Some(300.0),
            ],
            ConnectionKind::New,
            true,
        ),
        (
            reused,
            [
                Some(0.0),
                Some(0.0),
                None,
                Some(1.0),
                Some(149.0),
                Some(150.0),
            ],
            ConnectionKind::Reused,
            true,
        ),
        // tcp 121−111 without TLS
        (
            new_plain_http,
            [
                Some(10.0),
                Some(10.0),
                None,
                Some(62.0),
                Some(238.0),
                Some(300.0),
            ],
            ConnectionKind::New,
            true,
        ),
        (hidden, [None; 6], ConnectionKind::Unknown, false),
    ];
    for (timing, phases, connection, visible) in cases {
        let b = NetworkBreakdown::from_resource_timing(&timing);
        assert_eq!(
            [
                b.dns_ms,
                b.tcp_ms,
                b.tls_ms,
                b.queueing_ms,
                b.waiting_ms,
                b.request_ms
            ],
            phases,
            "{timing:?}"
        );
        assert_eq!(b.connection, connection);
        assert_eq!(b.timing_visible, visible);
        assert_eq!(b.protocol, Some(timing.next_hop_protocol), "{timing:?}");
    }
}

/// `nextHopProtocol` as browsers give it: ALPN ids, drafts of h3, and the empty string when
/// `Timing-Allow-Origin` hides it; codes and OpenTelemetry names round-trip.
#[test]
fn next_hop_protocol_table() {
    let cases = [
        ("h2", HttpProtocol::H2, Some(("http", "2"))),
        ("http/1.1", HttpProtocol::Http11, Some(("http", "1.1"))),
        ("HTTP/1.1 ", HttpProtocol::Http11, Some(("http", "1.1"))),
        ("http/1.0", HttpProtocol::Http10, Some(("http", "1.0"))),
        ("h3", HttpProtocol::H3, Some(("http", "3"))),
        ("h3-29", HttpProtocol::H3, Some(("http", "3"))),
        ("", HttpProtocol::Hidden, None),
        ("spdy/3", HttpProtocol::Hidden, None),
    ];
    for (next_hop, protocol, otel) in cases {
        assert_eq!(
            HttpProtocol::from_next_hop(next_hop),
            protocol,
            "{next_hop:?}"
        );
        assert_eq!(protocol.otel_name_version(), otel, "{next_hop:?}");
        assert_eq!(HttpProtocol::from_code(protocol.code()), Some(protocol));
        let json = serde_json::to_string(&protocol).unwrap();
        assert_eq!(json, format!("\"{}\"", protocol.code()));
    }
    assert_eq!(HttpProtocol::H2.multiplexed(), Some(true));
    assert_eq!(HttpProtocol::Http11.multiplexed(), Some(false));
    assert_eq!(HttpProtocol::Hidden.multiplexed(), None);
}

#[test]
fn summary_over_runs() {
    // Three runs: TTFT 100, 200, 300; the third has no answer paint; gaps pooled.
    let runs: Vec<_> = [
        (1100.0, vec![1100.0, 1110.0, 1130.0]),
        (1200.0, vec![1200.0, 1240.0]),
        (1300.0, vec![1300.0]),
    ]
    .iter()
    .map(|(first, arrivals)| {
        let mut run = RunTimeline::new(None, 1000.0);
        for (index, at) in arrivals.iter().enumerate() {
            run.on_event(
                *at,
                &DecodedEvent {
                    index,
                    answer: "x".into(),
                    ..Default::default()
                },
            );
        }
        if *first < 1300.0 {
            run.on_paint(
                PaintTarget::Answer,
                first + 16.0,
                PaintMethod::PresentationTime,
            );
        }
        run.metrics()
    })
    .collect();
    let summary = RunsSummary::from_runs(&runs).unwrap();
    assert_eq!(summary.runs, 3);
    let ttft = summary.ttft_ms.unwrap();
    assert_eq!(
        (ttft.count, ttft.min, ttft.p50, ttft.max),
        (3, 100.0, 200.0, 300.0)
    );
    let perceived = summary.perceived_ttfa_ms.unwrap();
    // 116 and 216 only: p50 = 116 + 0.5·100 = 166.
    assert_eq!((perceived.count, perceived.p50), (2, 166.0));
    assert_eq!(summary.ttfr_ms, None);
    // Pooled gaps: 10, 20 (run 1), 40 (run 2) → mean 23.333…, p50 20.
    let pooled = summary.itl_gaps_pooled_ms.unwrap();
    assert_eq!((pooled.count, pooled.p50), (3, 20.0));
    // Per-run means: run 1 (1130 − 1100)/2 = 15, run 2 40/1 = 40; run 3 has none.
    let itl = summary.itl_ms.unwrap();
    assert_eq!((itl.count, itl.min, itl.max), (2, 15.0, 40.0));
    assert!(RunsSummary::from_runs(&[]).unwrap().ttft_ms.is_none());
}

/// think_tags_missing_open.sse under auto-detection, with times: the plain content before the
/// `</think>` (events 1 to 4) was reasoning; the first answer is the "\n\n" after the tag, the
/// first visible answer the "4". The paint of "Okay" was the first reasoning's paint; the
/// answer's paint is measured again on "4".
#[test]
fn closing_think_without_opening_moves_the_first_answer_to_the_reasoning() {
    let run = play(
        Some(990.0),
        1000.0,
        &[
            Headers(1040.0, 200),
            Event(1060.0, "", ""),
            Event(1100.0, "", "Okay"),
            Paint(PaintTarget::Answer, 1118.0, PaintMethod::PresentationTime),
            Event(1150.0, "", ", 2+2"),
            Event(1160.0, "", " is 4."),
            Event(1170.0, "", "\n"),
            Reattribute(1200.0, "Okay, 2+2 is 4.\n", "", ""),
            Event(1250.0, "", "\n\n"),
            Event(1300.0, "", "4"),
            Paint(PaintTarget::Answer, 1316.0, PaintMethod::PresentationTime),
            Terminal(1301.0),
            End(1302.0),
        ],
    );
    let at = &run.instants;
    assert_eq!(at.first_reasoning, Some(1100.0));
    assert_eq!(at.first_answer, Some(1250.0));
    assert_eq!(at.first_answer_visible, Some(1300.0));
    assert_eq!(at.reasoning_painted.map(|paint| paint.at_ms), Some(1118.0));
    assert_eq!(at.answer_painted.map(|paint| paint.at_ms), Some(1316.0));
    let metrics = run.metrics();
    assert_eq!(metrics.ttft_ms, Some(100.0));
    assert_eq!(metrics.ttfr_ms, Some(100.0));
    assert_eq!(metrics.ttfa_ms, Some(250.0));
    assert_eq!(metrics.ttfa_visible_ms, Some(300.0));
    assert_eq!(metrics.reasoning_ms, Some(150.0));
    assert_eq!(metrics.reasoning_ui_delay_ms, Some(18.0));
    assert_eq!(metrics.answer_ui_delay_ms, Some(16.0));
    assert_eq!(metrics.perceived_ttft_ms, Some(128.0)); // 1118 − 990
    assert_eq!(metrics.perceived_ttfa_ms, Some(326.0)); // 1316 − 990
                                                        // Arrivals are what they were: the event with the tag carried no text of its own.
    assert_eq!(
        metrics.itl_gaps.sample_ms(),
        &[50.0, 10.0, 10.0, 80.0, 50.0]
    );
    assert_eq!(run.outcome, RunOutcome::Completed);
}

/// The first answer's paint may be reported after the move (the glue then reports it as a
/// reasoning paint), and the tag's event may carry the text around the tag.
#[test]
fn late_reasoning_paint_and_text_around_the_tag() {
    let run = play(
        None,
        1000.0,
        &[
            Event(1100.0, "", "Hm"),
            Reattribute(1150.0, "Hm", " so", "Yes"),
            Paint(
                PaintTarget::Reasoning,
                1160.0,
                PaintMethod::RafMessageChannel,
            ),
            Paint(PaintTarget::Answer, 1170.0, PaintMethod::RafMessageChannel),
        ],
    );
    let at = &run.instants;
    assert_eq!(
        (at.first_reasoning, at.first_answer, at.first_answer_visible),
        (Some(1100.0), Some(1150.0), Some(1150.0))
    );
    let metrics = run.metrics();
    assert_eq!(metrics.reasoning_ui_delay_ms, Some(60.0));
    assert_eq!(metrics.answer_ui_delay_ms, Some(20.0));
    assert_eq!(metrics.perceived_ttfa_ms, Some(170.0));
}

/// Empty re-attributed text (the stream opened with `</think>` split across deltas whose
/// first part was reported): nothing becomes reasoning; the answer instants start again.
#[test]
fn reattributing_nothing_only_restarts_the_answer() {
    let run = play(
        None,
        1000.0,
        &[
            Event(1100.0, "", "</th"),
            Reattribute(1150.0, "", "", "Yes"),
        ],
    );
    let at = &run.instants;
    assert_eq!((at.first_reasoning, at.first_answer), (None, Some(1150.0)));
}

/// A line past the parser's limit ends the run at once as a malformed stream.
#[test]
fn unreadable_stream_ends_the_run_as_malformed() {
    let mut run = play(
        None,
        1000.0,
        &[Headers(1040.0, 200), Event(1100.0, "", "Hi")],
    );
    run.on_stream_unreadable(1500.0, "line too long: …");
    assert_eq!(run.elapsed_ms(), Some(500.0));
    assert_eq!(run.instants.finished, None);
    assert_eq!(
        run.stream_failure(),
        Some(StreamFailure::MalformedChunk {
            detail: "line too long: …".into()
        })
    );
}
