//! The measurement engine driven natively: every shared transcript fed whole, byte by byte
//! and by its replay plan with the plan's delays as arrival times, compared with
//! EXPECTED.json and with first-token times computed by hand from the replay plans; then
//! the engine's own decisions (TTFT-only stop, aborts, error bodies, paints, records).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

// ttft-stream's fixture helpers, compiled into this test from their one source: they read
// the transcripts through ttft-stream's reader (a dependency of ttft-core already), and a
// path keeps each crate's tests building on their own, with no helper package to maintain.
#[path = "../../stream/tests/common/mod.rs"]
mod common;

use common::{feeding_ways, load_fixtures, Fixture, EXTRA_DIR, SHARED_DIR};
use serde_json::Value;
use ttft_core::measure::{
    AbortReason, Channel, FetchError, FinishContext, Measurement, Progress, RequestRoute,
    ResponseHead, RunInput, RunPlan, StreamControl, MAX_ERROR_BODY_BYTES,
};
use ttft_core::protocol::{Protocol, ProtocolChoice};
use ttft_core::record::{RunRecord, Transport};
use ttft_core::timeline::{
    ConnectionEvidence, HeadersSource, HttpProtocol, OriginContact, PaintMethod, PaintTarget,
    PerceivedAnchor, ResourceTiming, RunOutcome, TokenCountSource,
};
use ttft_stream::dialect::Dialect;

/// `fetch()` is called at this page-clock time in every run below.
const STARTED_MS: f64 = 1000.0;
/// The response headers arrive 5 ms later.
const HEADERS_MS: f64 = 1005.0;
/// The first read arrives at 1010 ms; a replay plan's delays are added to it.
const FIRST_READ_MS: f64 = 1010.0;

fn input(protocol: Protocol) -> RunInput<'static> {
    RunInput {
        protocol: ProtocolChoice::Fixed(protocol),
        base_url: "http://127.0.0.1:8787/v1",
        api_key: "",
        model: "m",
        prompt: "Hi",
        max_tokens: "",
        reasoning: false,
        timeout_s: "",
        ttft_only: false,
    }
}

fn plan_for(dialect: Dialect) -> RunPlan {
    let protocol = match dialect {
        Dialect::Anthropic => Protocol::AnthropicMessages,
        Dialect::Responses => Protocol::OpenAiResponses,
        _ => Protocol::OpenAiChat,
    };
    let mut plan = RunPlan::parse(&input(protocol)).unwrap();
    plan.dialect = Some(dialect);
    plan
}

/// Texts and first-token progress collected from a run's [`Progress`].
#[derive(Default, Debug)]
struct Seen {
    reasoning: String,
    answer: String,
    first_chunk_ms: Option<f64>,
    ttfr_ms: Option<f64>,
    ttfa_ms: Option<f64>,
    paint_ids: Vec<String>,
}

impl Seen {
    fn take(&mut self, progress: Vec<Progress>) {
        for item in progress {
            match item {
                Progress::FirstChunk { first_chunk_ms } => {
                    assert!(self.first_chunk_ms.is_none(), "first chunk reported twice");
                    self.first_chunk_ms = Some(first_chunk_ms);
                }
                Progress::Text {
                    channel,
                    text,
                    first_token_ms,
                    paint_id,
                } => {
                    let (buffer, first) = match channel {
                        Channel::Reasoning => (&mut self.reasoning, &mut self.ttfr_ms),
                        Channel::Answer => (&mut self.answer, &mut self.ttfa_ms),
                    };
                    buffer.push_str(&text);
                    if let Some(ms) = first_token_ms {
                        assert!(first.is_none(), "first token reported twice");
                        *first = Some(ms);
                    }
                    self.paint_ids.extend(paint_id);
                }
            }
        }
    }
}

/// Feeds `reads` (bytes, arrival time) after 200 headers, ends the body at `end_ms`.
fn drive(fixture: &Fixture, reads: &[(&[u8], f64)], end_ms: f64) -> (Seen, RunRecord) {
    let mut run = Measurement::new(&plan_for(fixture.dialect()), None, STARTED_MS, 7);
    run.on_headers(HEADERS_MS, ResponseHead::event_stream(200));
    let mut seen = Seen::default();
    for (bytes, at_ms) in reads {
        let mut progress = Vec::new();
        assert_eq!(
            run.on_chunk(*at_ms, bytes, &mut progress),
            StreamControl::Continue
        );
        seen.take(progress);
    }
    let mut progress = Vec::new();
    run.on_end(end_ms, &mut progress);
    seen.take(progress);
    let record = run.finish(&FinishContext::new(
        "2026-12-01T00:00:00.000Z",
        Transport::Worker,
    ));
    (seen, record)
}

fn every_fixture() -> Vec<Fixture> {
    let mut fixtures = load_fixtures(SHARED_DIR);
    fixtures.extend(load_fixtures(EXTRA_DIR));
    fixtures
}

/// What the oracle says the run's outcome must be.
fn expected_outcome(expected: &Value) -> &'static str {
    if !expected["error"].is_null() {
        "stream_error"
    } else if expected["first_reasoning_event"].is_null()
        && expected["first_answer_event"].is_null()
    {
        "empty_stream"
    } else if expected["terminal_marker_seen"].as_bool().unwrap() {
        "completed"
    } else {
        "ended_without_terminal"
    }
}

#[test]
fn every_transcript_fed_every_way_gives_the_oracle_texts_and_outcome() {
    for fixture in every_fixture() {
        for (way, reads) in feeding_ways(&fixture) {
            // Every read at the same instant: the instants are the first read's.
            let timed: Vec<(&[u8], f64)> =
                reads.iter().map(|read| (*read, FIRST_READ_MS)).collect();
            let (seen, record) = drive(&fixture, &timed, FIRST_READ_MS);
            let context = format!("{} fed {way}", fixture.name);
            let expected = &fixture.expected;
            assert_eq!(
                seen.reasoning,
                expected["reasoning_text"].as_str().unwrap(),
                "{context}"
            );
            assert_eq!(
                seen.answer,
                expected["answer_text"].as_str().unwrap(),
                "{context}"
            );
            assert_eq!(
                record.outcome.code(),
                expected_outcome(expected),
                "{context}"
            );
            let at_first_read = |present: bool| present.then_some(FIRST_READ_MS - STARTED_MS);
            let reasoned = !expected["first_reasoning_event"].is_null();
            let answered = !expected["first_answer_event"].is_null();
            assert_eq!(record.metrics.ttfr_ms, at_first_read(reasoned), "{context}");
            assert_eq!(record.metrics.ttfa_ms, at_first_read(answered), "{context}");
            assert_eq!(seen.ttfr_ms, record.metrics.ttfr_ms, "{context}");
            assert_eq!(seen.ttfa_ms, record.metrics.ttfa_ms, "{context}");
            assert_eq!(record.metrics.first_chunk_ms, Some(10.0), "{context}");
            assert_eq!(seen.first_chunk_ms, Some(10.0), "{context}");
            assert_eq!(record.metrics.setup_ms, Some(5.0), "{context}");
            assert_eq!(
                record.settings.dialect,
                Some(fixture.dialect()),
                "{context}"
            );
            // A paint id for the first reasoning and the first visible answer, and no more.
            let visible = !expected["first_answer_event_visible"].is_null();
            let mut ids = Vec::new();
            if reasoned {
                ids.push("reasoning-7".to_owned());
            }
            if visible {
                ids.push("answer-7".to_owned());
            }
            assert_eq!(seen.paint_ids, ids, "{context}");
            // A failed run is diagnosed, a successful one is not.
            assert_eq!(record.diagnosis.is_some(), !record.is_ok(), "{context}");
            assert_eq!(
                record.diagnosis_cause.is_some(),
                record.diagnosis.is_some(),
                "{context}"
            );
        }
    }
}

/// First event, first reasoning and first answer arrival after `fetch()` (ms) for each
/// transcript with a replay plan, computed by hand from its `.chunks.json`: the read that
/// completes the event arrives at 10 ms (the first read) plus the plan's delays up to it.
/// E.g. openai_role_chunk_then_delay: the role chunk in read 1 at 10 ms, "Hello" in read 2
/// after 1500 ms more: ttfa 1510 ms, first chunk 10 ms. openrouter_error_midstream: a
/// comment first (not an event), the role chunk's closing blank line in the read at 50 ms,
/// "The capital"'s in the read at 80 ms.
/// (transcript, first_chunk_ms, ttfr_ms, ttfa_ms, last read ms)
type Replayed = (&'static str, f64, Option<f64>, Option<f64>, f64);

const REPLAYED: [Replayed; 9] = [
    (
        "openai_role_chunk_then_delay.sse",
        10.0,
        None,
        Some(1510.0),
        1510.0,
    ),
    ("utf8_split_multibyte.sse", 30.0, None, Some(50.0), 150.0),
    (
        "anthropic_thinking_omitted.sse",
        30.0,
        None,
        Some(150.0),
        210.0,
    ),
    (
        "gemini_thought_extra_content.sse",
        50.0,
        Some(50.0),
        Some(120.0),
        190.0,
    ),
    (
        "mistral_content_array_thinking.sse",
        40.0,
        Some(60.0),
        Some(120.0),
        200.0,
    ),
    (
        "ollama_reasoning_include_usage.sse",
        40.0,
        Some(40.0),
        Some(130.0),
        220.0,
    ),
    (
        "openrouter_error_midstream.sse",
        50.0,
        None,
        Some(80.0),
        150.0,
    ),
    (
        "think_tags_split_rechunked.sse",
        40.0,
        Some(110.0),
        Some(180.0),
        260.0,
    ),
    ("vllm_error_then_done.sse", 40.0, Some(60.0), None, 120.0),
];

fn replay_delays(fixture: &Fixture) -> Vec<f64> {
    let plan_path = fixture.path.with_extension("chunks.json");
    let plan: Value = serde_json::from_str(&std::fs::read_to_string(plan_path).unwrap()).unwrap();
    plan["reads"]
        .as_array()
        .unwrap()
        .iter()
        .map(|read| read["delay_ms_before"].as_f64().unwrap())
        .collect()
}

#[test]
fn replay_plans_with_their_delays_give_the_hand_computed_first_token_times() {
    let fixtures = every_fixture();
    for (name, first_chunk_ms, ttfr_ms, ttfa_ms, last_read_ms) in REPLAYED {
        let fixture = fixtures.iter().find(|f| f.name == name).unwrap();
        let reads = fixture.replay_reads.as_ref().unwrap();
        let mut at_ms = FIRST_READ_MS;
        let timed: Vec<(&[u8], f64)> = reads
            .iter()
            .zip(replay_delays(fixture))
            .map(|(&(start, end), delay_ms)| {
                at_ms += delay_ms;
                (&fixture.bytes[start..end], at_ms)
            })
            .collect();
        let (seen, record) = drive(fixture, &timed, at_ms + 1.0);
        let metrics = &record.metrics;
        assert_eq!(metrics.ttfr_ms, ttfr_ms, "{name}");
        assert_eq!(metrics.ttfa_ms, ttfa_ms, "{name}");
        assert_eq!(metrics.first_chunk_ms, Some(first_chunk_ms), "{name}");
        assert_eq!(
            at_ms - STARTED_MS,
            last_read_ms,
            "{name}: the plan's total delay"
        );
        assert_eq!(seen.ttfa_ms, ttfa_ms, "{name}");
        assert_eq!(
            metrics.ttft_ms,
            [ttfr_ms, ttfa_ms].into_iter().flatten().reduce(f64::min),
            "{name}"
        );
        if let (Some(ttfr_ms), Some(ttfa_ms)) = (ttfr_ms, ttfa_ms) {
            assert_eq!(metrics.reasoning_ms, Some(ttfa_ms - ttfr_ms), "{name}");
        }
        if record.is_ok() {
            // Closed by the terminal marker in the last read, or by the close 1 ms later.
            let e2e_ms = metrics.e2e_ms.unwrap();
            assert!(
                e2e_ms == last_read_ms || e2e_ms == last_read_ms + 1.0,
                "{name}: e2e {e2e_ms}"
            );
        }
    }
    // Every transcript with a replay plan is in the table.
    let planned = fixtures.iter().filter(|f| f.replay_reads.is_some()).count();
    assert_eq!(planned, REPLAYED.len());
}

fn chat_run(ttft_only: bool) -> Measurement {
    let mut input = input(Protocol::OpenAiChat);
    input.ttft_only = ttft_only;
    let mut plan = RunPlan::parse(&input).unwrap();
    // Fixed, so a leading newline is answer text at once (auto-detection holds it back to
    // see whether `<think>` follows).
    plan.dialect = Some(Dialect::Chat);
    let mut run = Measurement::new(&plan, Some(990.0), STARTED_MS, 1);
    run.on_headers(HEADERS_MS, ResponseHead::event_stream(200));
    run
}

fn delta(content: &str) -> Vec<u8> {
    format!("data: {{\"choices\":[{{\"index\":0,\"delta\":{{\"content\":{content:?}}}}}]}}\n\n")
        .into_bytes()
}

fn context() -> FinishContext<'static> {
    FinishContext::new("2026-12-01T00:00:00.000Z", Transport::Worker)
}

#[test]
fn ttft_only_stops_at_the_first_visible_answer_and_the_abort_is_not_a_failure() {
    let mut run = chat_run(true);
    let mut progress = Vec::new();
    // A whitespace-only answer is not worth stopping for.
    assert_eq!(
        run.on_chunk(1100.0, &delta("\n"), &mut progress),
        StreamControl::Continue
    );
    assert_eq!(
        run.on_chunk(1200.0, &delta("Hello"), &mut progress),
        StreamControl::Stop
    );
    // The abort the glue then makes comes back as an AbortError.
    let abort = FetchError {
        name: "AbortError".into(),
        message: "aborted".into(),
    };
    run.on_failure(1201.0, &abort, Some(AbortReason::TtftOnly), &mut progress);
    let record = run.finish(&context());
    assert_eq!(record.outcome, RunOutcome::StoppedAfterFirstAnswer);
    assert!(record.is_ok());
    assert_eq!(record.metrics.ttfa_ms, Some(100.0));
    assert_eq!(record.metrics.ttfa_visible_ms, Some(200.0));
    assert_eq!(
        record.metrics.e2e_ms, None,
        "the stream did not end by itself"
    );
    assert_eq!(record.diagnosis, None);
    assert!(record.settings.ttft_only);
}

#[test]
fn aborts_are_told_apart_by_their_reason() {
    let abort = FetchError {
        name: "AbortError".into(),
        message: String::new(),
    };
    let cases = [
        (Some(AbortReason::Timeout), "timeout"),
        (Some(AbortReason::Stop), "aborted"),
        (None, "aborted"),
    ];
    for (reason, cause) in cases {
        let mut run = chat_run(false);
        let mut progress = Vec::new();
        let _ = run.on_chunk(1100.0, b": keep-alive\n\n", &mut progress);
        run.on_failure(3000.0, &abort, reason, &mut progress);
        let record = run.finish(&context());
        assert_eq!(record.diagnosis_cause.as_deref(), Some(cause), "{reason:?}");
        assert_eq!(record.outcome.code(), "network_failure");
    }
}

#[test]
fn a_dropped_connection_mid_stream_is_a_cut_off_stream_not_a_connection_failure() {
    let mut run = chat_run(false);
    let mut progress = Vec::new();
    let _ = run.on_chunk(1100.0, &delta("Hel"), &mut progress);
    let dropped = FetchError {
        name: "TypeError".into(),
        message: "network error".into(),
    };
    run.on_failure(1150.0, &dropped, None, &mut progress);
    let record = run.finish(&context());
    assert_eq!(record.outcome, RunOutcome::EndedWithoutTerminal);
    assert_eq!(
        record.diagnosis_cause.as_deref(),
        Some("ended_without_terminal")
    );
    // Before any body byte it is a connection failure.
    let plan = RunPlan::parse(&input(Protocol::OpenAiChat)).unwrap();
    let mut refused = Measurement::new(&plan, None, STARTED_MS, 2);
    refused.on_failure(1003.0, &dropped, None, &mut progress);
    let record = refused.finish(&context());
    assert_eq!(record.diagnosis_cause.as_deref(), Some("connection_failed"));
    assert_eq!(record.metrics.setup_ms, None);
}

#[test]
fn an_error_body_is_diagnosed_from_its_first_64_kib_only() {
    let plan = RunPlan::parse(&input(Protocol::OpenAiChat)).unwrap();
    let mut run = Measurement::new(&plan, None, STARTED_MS, 3);
    run.on_headers(
        HEADERS_MS,
        ResponseHead {
            status: 401,
            content_type: "application/json".into(),
            retry_after: None,
            timing_headers: Vec::new(),
        },
    );
    let body = br#"{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}"#;
    let mut progress = Vec::new();
    let _ = run.on_chunk(1010.0, body, &mut progress);
    // An endless error page after it: kept to the bound.
    let junk = vec![b' '; 1024 * 1024];
    for at_ms in 0..8 {
        let _ = run.on_chunk(1011.0 + f64::from(at_ms), &junk, &mut progress);
    }
    run.on_end(1030.0, &mut progress);
    assert!(progress.is_empty(), "an error page is not shown as text");
    assert_eq!(
        run.timeline().bytes_received,
        body.len() as u64 + 8 * 1024 * 1024
    );
    let record = run.finish(&context());
    assert_eq!(record.outcome, RunOutcome::HttpError { status: 401 });
    assert_eq!(record.diagnosis_cause.as_deref(), Some("key_missing"));
    let diagnosis = record.diagnosis.unwrap();
    assert!(diagnosis.message(ttft_core::lang::Lang::En).contains("401"));
    assert!(diagnosis.message(ttft_core::lang::Lang::Zh).contains("401"));
    let quoted = diagnosis.provider_message.unwrap();
    assert!(quoted.contains("Incorrect API key"), "{quoted}");
    const { assert!(MAX_ERROR_BODY_BYTES == 64 * 1024) };
}

#[test]
fn paints_resource_timing_and_the_click_make_the_perceived_and_network_numbers() {
    let mut run = chat_run(false);
    let mut progress = Vec::new();
    let _ = run.on_chunk(1300.0, &delta("Hi"), &mut progress);
    let _ = run.on_chunk(1350.0, &delta(" there"), &mut progress);
    let _ = run.on_chunk(1351.0, b"data: [DONE]\n\n", &mut progress);
    run.on_end(1352.0, &mut progress);
    run.on_paint(PaintTarget::Answer, 1316.0, PaintMethod::PresentationTime);
    run.on_resource_timing(&ResourceTiming {
        fetch_start: 1000.5,
        domain_lookup_start: 1000.5,
        domain_lookup_end: 1000.5,
        connect_start: 1001.0,
        connect_end: 1002.0,
        secure_connection_start: 0.0,
        request_start: 1002.5,
        response_start: 1004.0,
        next_hop_protocol: HttpProtocol::Http11,
    });
    let record = run.finish(&context());
    let metrics = &record.metrics;
    assert_eq!(metrics.ttfa_ms, Some(300.0));
    // Perceived from the click at 990 ms.
    assert_eq!(metrics.perceived_from, PerceivedAnchor::Clicked);
    assert_eq!(metrics.perceived_ttfa_ms, Some(326.0));
    assert_eq!(metrics.answer_ui_delay_ms, Some(16.0));
    assert_eq!(metrics.itl_gaps.sample_ms(), &[50.0]);
    assert_eq!(metrics.token_count_source, Some(TokenCountSource::Chunks));
    assert_eq!(metrics.e2e_ms, Some(351.0));
    assert_eq!(
        record.cold,
        Some(true),
        "connectStart after fetchStart: a new connection"
    );
    let network = record.network.clone().unwrap();
    assert_eq!(network.queueing_ms, Some(2.0));
    assert!(record.is_ok());
    assert_eq!(
        record.settings.request.unwrap().url,
        "http://127.0.0.1:8787/v1/chat/completions"
    );
}

#[test]
fn a_transport_that_goes_silent_still_leaves_a_failed_record() {
    let mut run = chat_run(false);
    let mut progress = Vec::new();
    let _ = run.on_chunk(1100.0, &delta("Hi"), &mut progress);
    let record = run.finish(&context());
    assert_eq!(record.outcome.code(), "network_failure");
    assert!(!record.is_ok());
    assert_eq!(
        record.metrics.ttfa_ms,
        Some(100.0),
        "what was measured stays"
    );
}

#[test]
fn the_key_never_reaches_the_record() {
    let mut input = input(Protocol::OpenAiChat);
    input.api_key = "sk-test-0123456789abcdefSECRET";
    let plan = RunPlan::parse(&input).unwrap();
    assert!(plan
        .request()
        .headers
        .iter()
        .any(|header| header.value.contains("SECRET")));
    let run = Measurement::new(&plan, None, STARTED_MS, 4);
    let record = run.finish(&context());
    let json = serde_json::to_string(&record).unwrap();
    assert!(!json.contains("SECRET"), "{json}");
    assert!(json.contains("sk-…CRET"), "the masked key is shown");
}

#[test]
fn the_first_preflighted_request_to_an_origin_is_cold_with_its_preflight_shown() {
    // Resource Timing of a POST whose preflight opened the connection: connectStart equals
    // fetchStart (the POST reused it), and queueing holds the OPTIONS round trip.
    let timing = ResourceTiming {
        fetch_start: 1000.2,
        domain_lookup_start: 1000.2,
        domain_lookup_end: 1000.2,
        connect_start: 1000.2,
        connect_end: 1000.2,
        secure_connection_start: 0.0,
        request_start: 1012.0,
        response_start: 1014.0,
        next_hop_protocol: HttpProtocol::H2,
    };
    // (first preflight, the page last heard from the origin at, cold, evidence, preflight)
    let cases = [
        (
            true,
            None,
            Some(true),
            ConnectionEvidence::PreflightOpened,
            Some(11.8),
        ),
        // The models list at load answered 1.7 s before the run, and the page saw a 10 ms
        // round trip and a 20 ms handshake there: the preflight's 12 ms left no room for a
        // handshake, so its connection was reused.
        (
            true,
            Some(STARTED_MS - 1700.0),
            Some(false),
            ConnectionEvidence::PreflightClock,
            Some(11.8),
        ),
        // The same without a round trip or handshake seen: nothing tells.
        (
            true,
            Some(STARTED_MS - 1700.5),
            None,
            ConnectionEvidence::Unknown,
            Some(11.8),
        ),
        // Heard from a minute before: the preflight may have opened a new connection.
        (
            true,
            Some(STARTED_MS - 60_000.0),
            None,
            ConnectionEvidence::Unknown,
            Some(11.8),
        ),
        (
            false,
            None,
            Some(false),
            ConnectionEvidence::ResourceTiming,
            None,
        ),
    ];
    for (first_preflight, last_heard_ms, cold, evidence, preflight_ms) in cases {
        let mut run = chat_run(false);
        run.on_route(RequestRoute {
            cross_origin: true,
            first_preflight,
        });
        // The clock's references (see the cases): all but the one heard 1.7005 s before.
        let seen = last_heard_ms != Some(STARTED_MS - 1700.5);
        run.on_origin_contact(OriginContact {
            last_heard_ms,
            round_trip_ms: seen.then_some(10.0),
            handshake_ms: seen.then_some(20.0),
            ..OriginContact::default()
        });
        let mut progress = Vec::new();
        let _ = run.on_chunk(1300.0, &delta("Hi"), &mut progress);
        run.on_resource_timing(&timing);
        let record = run.finish(&context());
        assert_eq!(
            record.cold, cold,
            "first preflight {first_preflight}, {last_heard_ms:?}"
        );
        assert_eq!(record.connection_evidence, Some(evidence));
        assert_eq!(
            record.network.as_ref().and_then(|n| n.protocol),
            Some(HttpProtocol::H2)
        );
        let network = record.network.unwrap();
        assert_eq!(
            network.preflight_ms.map(|ms| (ms * 10.0).round() / 10.0),
            preflight_ms
        );
        assert_eq!(
            network.queueing_ms.map(|ms| (ms * 10.0).round() / 10.0),
            Some(11.8)
        );
    }
}

#[test]
fn a_line_past_the_parser_limit_ends_the_run_at_once_as_a_malformed_stream() {
    // A hostile provider sends a first answer, then 2 MiB without a newline in 64 KiB reads.
    let mut run = chat_run(false);
    let mut progress = Vec::new();
    assert_eq!(
        run.on_chunk(1100.0, &delta("Hi"), &mut progress),
        StreamControl::Continue
    );
    let read = [b'x'; 64 * 1024];
    let mut at_ms = 1200.0;
    let mut reads = 0;
    let control = loop {
        reads += 1;
        let control = run.on_chunk(at_ms, &read, &mut progress);
        if control != StreamControl::Continue || reads > 64 {
            break control;
        }
        at_ms += 1.0;
    };
    assert_eq!(control, StreamControl::Abandon);
    // 1 MiB is 16 reads of 64 KiB: the read that passes it is the 17th.
    assert_eq!(reads, 17, "stopped at the read that passed 1 MiB");
    // The abort the glue then makes is the plan, not another failure.
    let abort = FetchError {
        name: "AbortError".into(),
        message: "aborted".into(),
    };
    run.on_failure(
        at_ms + 1.0,
        &abort,
        Some(AbortReason::Unreadable),
        &mut progress,
    );
    let record = run.finish(&context());
    match &record.outcome {
        RunOutcome::MalformedChunk {
            at_ms: failed_ms,
            detail,
        } => {
            assert_eq!(*failed_ms, at_ms);
            assert!(detail.contains("line too long"), "{detail}");
        }
        other => panic!("expected a malformed stream, got {other:?}"),
    }
    assert_eq!(
        record.metrics.ttfa_ms,
        Some(100.0),
        "what was measured is kept"
    );
}

#[test]
fn the_headers_come_from_response_start_when_fetch_resolved_later() {
    // Firefox resolves fetch() with the first body bytes (here at 1300 ms, with the first
    // answer); Resource Timing's responseStart says the headers came at 1004 ms.
    let timing = |response_start| ResourceTiming {
        fetch_start: 1000.5,
        domain_lookup_start: 1000.5,
        domain_lookup_end: 1000.5,
        connect_start: 1000.5,
        connect_end: 1000.5,
        secure_connection_start: 0.0,
        request_start: 1001.0,
        response_start,
        next_hop_protocol: HttpProtocol::Http11,
    };
    let cases = [
        // (fetch resolved, responseStart, setup_ms, source)
        (1300.0, 1004.0, 4.0, HeadersSource::ResponseStart),
        // Chromium: resolved a fraction of a ms after responseStart.
        (1004.6, 1004.0, 4.0, HeadersSource::ResponseStart),
        // Hidden by a missing Timing-Allow-Origin (0), or not earlier: fetch() stands.
        (1300.0, 0.0, 300.0, HeadersSource::FetchResolved),
        (1005.0, 1006.0, 5.0, HeadersSource::FetchResolved),
        // Before the request started: not this request's (or a clock error); ignored.
        (1005.0, 999.0, 5.0, HeadersSource::FetchResolved),
    ];
    for (resolved_ms, response_start_ms, setup_ms, source) in cases {
        let mut plan = RunPlan::parse(&input(Protocol::OpenAiChat)).unwrap();
        plan.dialect = Some(Dialect::Chat);
        let mut run = Measurement::new(&plan, None, STARTED_MS, 1);
        run.on_headers(resolved_ms, ResponseHead::event_stream(200));
        let mut progress = Vec::new();
        let _ = run.on_chunk(1300.0, &delta("Hi"), &mut progress);
        let _ = run.on_chunk(1301.0, b"data: [DONE]\n\n", &mut progress);
        run.on_end(1302.0, &mut progress);
        run.on_resource_timing(&timing(response_start_ms));
        let record = run.finish(&context());
        assert_eq!(
            record.metrics.setup_ms,
            Some(setup_ms),
            "{resolved_ms} / {response_start_ms}"
        );
        assert_eq!(record.instants.headers_received_from, Some(source));
    }
}

#[test]
fn the_arrival_delay_bound_is_the_longest_main_thread_gap_until_the_first_answer() {
    // Heartbeats every 8 ms from fetch() at 1000 ms, but nothing from 1100 to 1400 ms (a
    // 300 ms task); the first answer arrives at 1500 ms; later gaps do not count.
    let drive = |transport, wait| {
        let mut run = chat_run(false);
        let mut beat_ms = STARTED_MS;
        while beat_ms < 1100.0 {
            beat_ms += 8.0;
            run.on_main_thread_beat(beat_ms);
        }
        beat_ms = 1400.0;
        while beat_ms < 1500.0 {
            run.on_main_thread_beat(beat_ms);
            beat_ms += 8.0;
        }
        let mut progress = Vec::new();
        let _ = run.on_chunk(1500.0, &delta("Hi"), &mut progress);
        run.on_main_thread_beat(1504.0);
        assert!(run.wants_main_thread_beats(), "the whole run is watched");
        run.on_main_thread_beat(2500.0); // after the window: the run's stall, not the bound
        let _ = run.on_chunk(2501.0, b"data: [DONE]\n\n", &mut progress);
        run.on_end(2502.0, &mut progress);
        let mut context = FinishContext::new("2026-12-01T00:00:00.000Z", transport);
        context.worker_arrivals_wait_for_main_thread = wait;
        run.finish(&context)
    };
    // 1104 → 1400: the gap over the task.
    let webkit = drive(Transport::Worker, Some(true));
    assert_eq!(webkit.arrival_delay_bound_ms, Some(296.0));
    // 1504 → 2500: the page stalled after the first answer; the run says so.
    assert_eq!(webkit.main_thread_stall_ms, Some(996.0));
    assert!(webkit.stalled());
    assert_eq!(webkit.arrivals_wait_for_main_thread, Some(true));
    assert!(webkit.arrival_delayed(), "over 50 ms where arrivals wait");
    let chromium = drive(Transport::Worker, Some(false));
    assert_eq!(chromium.arrival_delay_bound_ms, Some(296.0));
    assert!(!chromium.arrival_delayed(), "recorded, not flagged");
    // The main-thread transport always waits for the main thread.
    let main_thread = drive(Transport::MainThread, Some(false));
    assert_eq!(main_thread.arrivals_wait_for_main_thread, Some(true));
    assert!(main_thread.arrival_delayed());
    // A long task reported by the engine (LoAF) counts too, for its part in the window.
    let mut run = chat_run(false);
    run.on_main_thread_beat(1008.0);
    let mut progress = Vec::new();
    let _ = run.on_chunk(1200.0, &delta("Hi"), &mut progress);
    run.on_main_thread_busy(1150.0, 120.0);
    let record = run.finish(&context());
    // The gap 1008 → 1200 (the window's end) is longer than the task's 50 ms inside it.
    assert_eq!(record.arrival_delay_bound_ms, Some(192.0));
    assert_eq!(record.arrivals_wait_for_main_thread, None);
    assert!(
        !record.arrival_delayed(),
        "unknown engine in the context: not flagged"
    );
}

/// A run through ttft-relay: its headers and Server-Timing, and its first-byte note split
/// across reads, as the page reads them.
fn relay_run() -> Measurement {
    let mut plan = RunPlan::parse(&input(Protocol::OpenAiChat)).unwrap();
    plan.dialect = Some(Dialect::Chat);
    let mut run = Measurement::new(&plan, Some(990.0), STARTED_MS, 1);
    let mut head = ResponseHead::event_stream(200);
    head.timing_headers = vec![
        (
            "server-timing".to_owned(),
            "queue;dur=40, relay-conn;desc=new, relay-proto;desc=h2, relay-dns;dur=0.4, \
             relay-tcp;dur=50.3, relay-tls;dur=103.1, relay-rtt;dur=50.3, relay-sent;dur=154.6, \
             relay-headers;dur=226.0"
                .to_owned(),
        ),
        ("x-ttft-relay".to_owned(), "0.1.0".to_owned()),
    ];
    // The headers 2.5 ms after the relay's 226.0 (loopback).
    run.on_headers(STARTED_MS + 228.5, head);
    run
}

#[test]
fn a_run_through_the_relay_records_its_account_and_is_split_by_it() {
    let mut run = relay_run();
    let mut progress = Vec::new();
    // The note and the provider's first event in one write, read in two pieces that cut the
    // note; the first byte 2.0 ms after the relay's 412.3.
    let first = [
        b": ttft-relay first-by".as_slice(),
        b"te=412.3\n".as_slice(),
    ];
    let _ = run.on_chunk(STARTED_MS + 414.3, first[0], &mut progress);
    let role = b"data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\"}}]}\n\n";
    let _ = run.on_chunk(
        STARTED_MS + 414.4,
        &[first[1], role.as_slice()].concat(),
        &mut progress,
    );
    let _ = run.on_chunk(STARTED_MS + 650.0, &delta("Hi"), &mut progress);
    let _ = run.on_chunk(STARTED_MS + 680.0, &delta(" there"), &mut progress);
    let _ = run.on_chunk(STARTED_MS + 681.0, b"data: [DONE]\n\n", &mut progress);
    run.on_end(STARTED_MS + 682.0, &mut progress);
    let record = run.finish(&context());
    let relay = record.relay.clone().expect("via relay");
    assert!(record.via_relay());
    assert_eq!(relay.version.as_deref(), Some("0.1.0"));
    assert_eq!(relay.first_byte_ms, Some(412.3));
    assert_eq!(relay.conn, Some(ttft_stream::dialect::RelayConn::New));
    // Cold and warm describe the relay's connection to the provider.
    assert_eq!(record.cold, Some(true));
    assert_eq!(record.connection_evidence, Some(ConnectionEvidence::Relay));
    // The provider's own Server-Timing (queue 40 ms) is still its account.
    assert_eq!(record.server_account.as_ref().unwrap().queue_ms, Some(40.0));
    let breakdown = record.breakdown.clone().expect("a breakdown");
    let part = |part| breakdown.ms(part).unwrap();
    use ttft_core::timeline::WaitPart;
    assert!((part(WaitPart::Relay) - 2.0).abs() < 1e-9);
    assert!((part(WaitPart::Connection) - 154.6).abs() < 1e-9);
    assert!((part(WaitPart::Network) - 50.3).abs() < 1e-9);
    assert!((part(WaitPart::Queue) - 40.0).abs() < 1e-9);
    let sum: f64 = breakdown.parts.iter().map(|part| part.ms).sum();
    assert!((sum - 650.0).abs() < 1e-9);
    assert_eq!(
        record.buffered_arrival, None,
        "streamed over 31 ms: not buffered"
    );
    // Stored and read back whole.
    let text = serde_json::to_string(&record).unwrap();
    assert_eq!(serde_json::from_str::<RunRecord>(&text).unwrap(), record);
}

#[test]
fn a_note_without_the_relays_headers_is_the_providers_text_and_ignored() {
    let mut run = chat_run(false);
    let mut progress = Vec::new();
    let _ = run.on_chunk(1300.0, b": ttft-relay first-byte=1.0\n", &mut progress);
    let _ = run.on_chunk(1301.0, &delta("Hi"), &mut progress);
    run.on_end(1302.0, &mut progress);
    let record = run.finish(&context());
    assert_eq!(record.relay, None);
    assert_ne!(record.connection_evidence, Some(ConnectionEvidence::Relay));
}

#[test]
fn an_upstream_failure_mid_stream_is_the_relays_word() {
    let mut run = relay_run();
    let mut progress = Vec::new();
    let _ = run.on_chunk(
        STARTED_MS + 414.3,
        &[b": ttft-relay first-byte=412.3\n".as_slice(), &delta("Hi")].concat(),
        &mut progress,
    );
    let _ = run.on_chunk(
        STARTED_MS + 900.0,
        b": ttft-relay upstream-error=upstream-reset\n",
        &mut progress,
    );
    run.on_failure(
        STARTED_MS + 900.5,
        &FetchError {
            name: "TypeError".into(),
            message: "network error".into(),
        },
        None,
        &mut progress,
    );
    let record = run.finish(&context());
    assert_eq!(
        record.relay.and_then(|relay| relay.error),
        Some(ttft_stream::dialect::RelayError::UpstreamReset)
    );
}

#[test]
fn an_answer_released_all_at_once_after_a_silence_is_flagged_buffered() {
    let mut run = chat_run(false);
    let mut progress = Vec::new();
    // nginx with proxy_buffering: twelve events in one read, 900 ms after fetch().
    let body: Vec<u8> = (0..12)
        .flat_map(|index| delta(&format!("w{index} ")))
        .chain(b"data: [DONE]\n\n".iter().copied())
        .collect();
    let _ = run.on_chunk(STARTED_MS + 900.0, &body, &mut progress);
    run.on_end(STARTED_MS + 900.5, &mut progress);
    let record = run.finish(&context());
    let buffered = record.buffered_arrival.expect("flagged");
    assert_eq!(buffered.text_chunks, 12);
    assert_eq!((buffered.silence_ms, buffered.span_ms), (900.0, 0.0));
    assert!(buffered
        .warning(ttft_core::lang::Lang::En)
        .contains("TTFT here is the buffer's"));

    // The same events 20 ms apart: a model decoding, not a buffer.
    let mut run = chat_run(false);
    for index in 0..12 {
        let at_ms = STARTED_MS + 900.0 + 20.0 * f64::from(index);
        let _ = run.on_chunk(at_ms, &delta(&format!("w{index} ")), &mut progress);
    }
    run.on_end(STARTED_MS + 1200.0, &mut progress);
    assert_eq!(run.finish(&context()).buffered_arrival, None);
}

#[test]
fn a_stalled_page_that_stamps_arrivals_late_is_not_called_buffered() {
    // Arrivals that wait for the main thread, which stalled 600 ms: what piled up is stamped
    // at once, which says nothing of a buffer.
    let mut run = chat_run(false);
    let mut progress = Vec::new();
    run.on_main_thread_beat(STARTED_MS);
    run.on_main_thread_busy(STARTED_MS + 300.0, 600.0);
    let body: Vec<u8> = (0..12)
        .flat_map(|index| delta(&format!("w{index} ")))
        .collect();
    let _ = run.on_chunk(STARTED_MS + 900.0, &body, &mut progress);
    run.on_end(STARTED_MS + 901.0, &mut progress);
    let mut context = context();
    context.transport = Transport::MainThread;
    assert_eq!(run.finish(&context).buffered_arrival, None);
}
