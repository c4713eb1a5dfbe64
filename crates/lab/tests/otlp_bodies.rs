//! OTLP/JSON bodies built from three handmade runs (completed, refused with 401, reasoning),
//! checked value by value against hand computations, and kept as golden files in
//! tests/otlp/bodies/ that the strict receiver (tests/otlp/receiver.py, run by
//! scripts/test.sh) parses with the official OTLP protobuf definitions.
//!
//! `TTFT_UPDATE_GOLDEN=1 cargo test -p ttft-core --test otlp_bodies` rewrites the golden files
//! after an intended change; review the diff.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;

use serde_json::{json, Value};
use ttft_core::protocol::Protocol;
use ttft_core::record::TimerGrade;
use ttft_core::record::{RunRecord, RunSettings, Transport};
use ttft_core::request::{normalize_base_url, prepare_request, ApiKey, PromptSpec};
use ttft_core::timeline::{BreakdownInput, WaitBreakdown};
use ttft_core::timeline::{
    HttpProtocol, NetworkBreakdown, PaintMethod, PaintTarget, ResourceTiming, RunTimeline,
};
use ttft_lab::otlp::{
    metrics_request, traces_request, ConnectionFacts, DeltaWindow, ExportOptions, OtlpExporter,
    QueueConfig, ResourceFacts, RunIds, SendOutcome, SpanId, TraceId, WallClock,
};
use ttft_lab::slo::SloSet;
use ttft_stream::dialect::{AccountSource, DecodedEvent, Dialect, ServerAccount, Usage};

const SECRET_KEY: &str = "sk-otlp-secret-98765";
const PROMPT: &str = "Say hi to the collector";
const MODEL: &str = "sim-reasoning";
/// `performance.timeOrigin` of the page that made the runs.
const TIME_ORIGIN_UNIX_MS: f64 = 1_764_000_000_000.0;
/// Unix nanoseconds of page-clock `ms` (whole ms only, as every instant below).
fn nanos(ms: u64) -> String {
    (1_764_000_000_000_u64 * 1_000_000 + ms * 1_000_000).to_string()
}

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
    let endpoint = normalize_base_url("http://127.0.0.1:8787/v1", Protocol::OpenAiChat).unwrap();
    let mut spec = PromptSpec::new(MODEL, PROMPT);
    spec.max_output_tokens = Some(64);
    let key = ApiKey::parse(SECRET_KEY).unwrap().unwrap();
    let request = prepare_request(&endpoint, &spec, Some(&key), None)
        .unwrap()
        .describe();
    RunSettings {
        protocol: Protocol::OpenAiChat,
        endpoint_url: endpoint.endpoint_url,
        model: MODEL.to_owned(),
        dialect: Some(Dialect::Chat),
        max_tokens: Some(64),
        ttft_only: false,
        reasoning: false,
        request: Some(request),
    }
}

fn text(index: usize, answer: &str, reasoning: &str) -> DecodedEvent {
    DecodedEvent {
        index,
        answer: answer.into(),
        reasoning: reasoning.into(),
        ..Default::default()
    }
}

fn terminal(index: usize) -> DecodedEvent {
    DecodedEvent {
        index,
        terminal: true,
        ..Default::default()
    }
}

/// Run 1, completed: click 995, request 1000, headers 1050, role chunk 1060, answers at
/// 1250/1270/1290/1310, painted 1266, [DONE] 1311. Usage 12 in / 4 out. New connection.
fn completed() -> RunRecord {
    let mut run = RunTimeline::new(Some(995.0), 1000.0);
    run.set_network(NetworkBreakdown::from_resource_timing(&ResourceTiming {
        fetch_start: 1001.0,
        domain_lookup_start: 1001.0,
        domain_lookup_end: 1002.0,
        connect_start: 1002.0,
        connect_end: 1010.0,
        secure_connection_start: 0.0,
        request_start: 1010.0,
        response_start: 1048.0,
        next_hop_protocol: HttpProtocol::H2,
    }));
    run.on_headers(1050.0, 200);
    run.on_body_chunk(1060.0, 90);
    run.on_event(1060.0, &DecodedEvent::default());
    for (step, word) in ["Hi", " there", ",", " collector"].iter().enumerate() {
        run.on_event(1250.0 + 20.0 * step as f64, &text(step + 1, word, ""));
    }
    run.on_paint(PaintTarget::Answer, 1266.0, PaintMethod::PresentationTime);
    run.set_usage(&Usage {
        prompt_tokens: Some(12),
        output_tokens: Some(4),
        raw: json!({"prompt_tokens": 12, "completion_tokens": 4}),
        ..Default::default()
    });
    run.on_event(1311.0, &terminal(5));
    run.on_stream_end(1312.0);
    let mut record = record_from(1, settings(), &run);
    // The server said: queued 30 ms, prompt 150 ms. The TCP handshake (8 ms) is the round
    // trip: connection 9 (queueing), network 8, queue 30, prompt 150, the rest 53.
    let account = ServerAccount {
        sources: vec![AccountSource::Groq],
        queue_ms: Some(30.0),
        prompt_ms: Some(150.0),
        ..ServerAccount::default()
    };
    record.breakdown = WaitBreakdown::compute(&BreakdownInput {
        instants: &record.instants,
        network: record.network.as_ref(),
        cold: record.cold,
        https: false,
        first_preflight: false,
        earlier_round_trip_ms: None,
        ping_round_trip: None,
        account: Some(&account),
        request_bytes: None,
        downlink_mbps: None,
        relay: None,
    });
    record.server_account = Some(account);
    record.timer = Some(TimerGrade {
        cross_origin_isolated: true,
        step_ms: Some(0.005),
    });
    record
}

/// Run 2, refused: request 2000, HTTP 401 at 2120 (diagnosed `key_refused`).
fn refused() -> RunRecord {
    let mut run = RunTimeline::new(Some(1995.0), 2000.0);
    run.on_headers(2120.0, 401);
    let mut record = record_from(2, settings(), &run);
    record.diagnosis_cause = Some("key_refused".to_owned());
    record
}

/// Run 3, reasoning, scheduled (no click): request 3000, headers 3050, first event 3055,
/// reasoning 3400 (painted 3410 by rAF), answer 3900 (painted 3920), [DONE] 4000.
/// Usage 12 in (8 cached) / 30 out (20 reasoning).
fn reasoning() -> RunRecord {
    let mut run = RunTimeline::new(None, 3000.0);
    run.on_headers(3050.0, 200);
    run.on_body_chunk(3055.0, 80);
    run.on_event(3055.0, &DecodedEvent::default());
    run.on_event(3400.0, &text(1, "", "Hmm"));
    run.on_paint(
        PaintTarget::Reasoning,
        3410.0,
        PaintMethod::RafMessageChannel,
    );
    run.on_event(3900.0, &text(2, "Yes", ""));
    run.on_paint(PaintTarget::Answer, 3920.0, PaintMethod::RafMessageChannel);
    run.set_usage(&Usage {
        prompt_tokens: Some(12),
        cached_prompt_tokens: Some(8),
        output_tokens: Some(30),
        reasoning_tokens: Some(20),
        raw: json!({"prompt_tokens": 12, "completion_tokens": 30}),
        ..Default::default()
    });
    run.on_event(4000.0, &terminal(3));
    run.on_stream_end(4001.0);
    record_from(3, settings(), &run)
}

fn runs() -> Vec<RunRecord> {
    vec![completed(), refused(), reasoning()]
}

fn ids(seed: u8) -> RunIds {
    RunIds {
        trace_id: TraceId::from_bytes([seed; 16]).unwrap(),
        span_id: SpanId::from_bytes([seed, 1, 2, 3, 4, 5, 6, 7]).unwrap(),
    }
}

fn resource() -> ResourceFacts {
    ResourceFacts {
        service_name: String::new(),
        service_version: "0.1.0".to_owned(),
        service_instance_id: "0b6f5a3e-9d1c-4e55-8a0b-3c2d1e0f9a87".to_owned(),
        page_origin: "http://127.0.0.1:8787".to_owned(),
        user_agent: "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/156.0.7390.54 Safari/537.36".to_owned(),
        brands: vec!["Chromium 156".to_owned(), "Not=A?Brand 24".to_owned()],
        platform: Some("Linux".to_owned()),
        mobile: Some(false),
        language: Some("en-US".to_owned()),
        connection: Some(ConnectionFacts {
            effective_type: Some("4g".to_owned()),
            rtt_ms: Some(50.0),
            downlink_mbps: Some(10.0),
            connection_type: None,
        }),
        cross_origin_isolated: true,
    }
}

fn clock() -> WallClock {
    WallClock {
        time_origin_unix_ms: TIME_ORIGIN_UNIX_MS,
    }
}

fn options() -> ExportOptions {
    ExportOptions {
        slo: Some(SloSet::parse("ttfa_ms<=800").unwrap()),
        ..ExportOptions::default()
    }
}

fn window() -> DeltaWindow {
    DeltaWindow {
        start_unix_nanos: nanos(1000).parse().unwrap(),
        end_unix_nanos: nanos(5000).parse().unwrap(),
    }
}

fn metrics_body() -> Value {
    let text = metrics_request(&runs(), &resource(), window(), &options())
        .unwrap()
        .unwrap();
    serde_json::from_str(&text).unwrap()
}

fn traced_runs() -> Vec<(RunRecord, RunIds)> {
    runs()
        .into_iter()
        .zip([ids(0xa1), ids(0xa2), ids(0xa3)])
        .collect()
}

fn traces_body(options: &ExportOptions) -> Value {
    let text = traces_request(&traced_runs(), &resource(), &clock(), options)
        .unwrap()
        .unwrap();
    serde_json::from_str(&text).unwrap()
}

/// `{key: value}` of a `repeated KeyValue`, values as their AnyValue JSON.
fn attributes(list: &Value) -> serde_json::Map<String, Value> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|kv| (kv["key"].as_str().unwrap().to_owned(), kv["value"].clone()))
        .collect()
}

fn metric<'a>(body: &'a Value, name: &str) -> &'a Value {
    body["resourceMetrics"][0]["scopeMetrics"][0]["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|metric| metric["name"] == name)
        .unwrap_or_else(|| panic!("no metric {name}"))
}

fn points(body: &Value, name: &str) -> Vec<Value> {
    let metric = metric(body, name);
    let data = metric.get("histogram").or(metric.get("sum")).unwrap();
    data["dataPoints"].as_array().unwrap().clone()
}

/// The one point whose attributes include every `(key, string value)` of `filter`.
fn point(body: &Value, name: &str, filter: &[(&str, &str)]) -> Value {
    let matching: Vec<Value> = points(body, name)
        .into_iter()
        .filter(|point| {
            let attrs = attributes(&point["attributes"]);
            filter.iter().all(|(key, value)| {
                attrs.get(*key).and_then(|v| v["stringValue"].as_str()) == Some(*value)
            })
        })
        .collect();
    assert_eq!(matching.len(), 1, "{name} {filter:?}: {matching:?}");
    matching[0].clone()
}

fn counts(point: &Value) -> Vec<u64> {
    point["bucketCounts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|count| count.as_str().unwrap().parse().unwrap())
        .collect()
}

/// Bucket counts with `1`s added at `indices` (a bucket hit twice is listed twice).
fn buckets(len: usize, indices: &[usize]) -> Vec<u64> {
    let mut counts = vec![0; len];
    for index in indices {
        counts[*index] += 1;
    }
    counts
}

fn close(actual: &Value, expected: f64) {
    let actual = actual.as_f64().unwrap();
    assert!((actual - expected).abs() < 1e-9, "{actual} != {expected}");
}

#[test]
fn the_runs_measure_what_the_hand_computations_below_assume() {
    let [one, two, three] = <[RunRecord; 3]>::try_from(runs()).unwrap();
    assert_eq!(
        (
            one.metrics.ttfa_ms,
            one.metrics.first_chunk_ms,
            one.metrics.e2e_ms
        ),
        (Some(250.0), Some(60.0), Some(311.0))
    );
    assert_eq!(one.metrics.perceived_ttfa_ms, Some(271.0));
    assert_eq!(one.metrics.answer_ui_delay_ms, Some(16.0));
    assert_eq!(one.metrics.itl_gaps.sample_ms(), &[20.0, 20.0, 20.0]);
    assert_eq!(one.cold, Some(true));
    assert_eq!(two.metrics.http_status, Some(401));
    assert_eq!(two.metrics.ttft_ms, None);
    assert_eq!(
        (
            three.metrics.ttfr_ms,
            three.metrics.ttfa_ms,
            three.metrics.perceived_ttfa_ms
        ),
        (Some(400.0), Some(900.0), Some(920.0))
    );
    assert_eq!(three.metrics.itl_gaps.sample_ms(), &[500.0]);
}

#[test]
fn metrics_are_delta_histograms_in_seconds_with_the_conventions_names() {
    let body = metrics_body();
    let scope = &body["resourceMetrics"][0]["scopeMetrics"][0];
    assert_eq!(scope["scope"]["name"], "ttft-meter");
    assert_eq!(
        scope["schemaUrl"],
        "https://opentelemetry.io/schemas/1.41.0"
    );
    let names: Vec<&str> = scope["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|metric| metric["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "gen_ai.client.inference.duration",
            "gen_ai.client.inference.time_to_first_chunk",
            "gen_ai.client.inference.time_per_output_chunk",
            "gen_ai.client.inference.operation.input_tokens",
            "gen_ai.client.inference.operation.output_tokens",
            "gen_ai.client.inference.usage.input_tokens",
            "gen_ai.client.inference.usage.output_tokens",
            "gen_ai.client.inference.usage.cache_read.input_tokens",
            "gen_ai.client.inference.usage.reasoning.output_tokens",
            "ttft_meter.client.time_to_first_token",
            "ttft_meter.client.time_to_first_answer_token",
            "ttft_meter.client.time_to_first_reasoning_token",
            "ttft_meter.client.time_to_first_answer_painted",
            "ttft_meter.client.paint_delay",
            "ttft_meter.client.wait.browser",
            "ttft_meter.client.wait.connection",
            "ttft_meter.client.wait.network",
            "ttft_meter.client.wait.queue",
            "ttft_meter.client.wait.prompt",
            "ttft_meter.client.wait.server",
            "ttft_meter.client.wait.paint",
            "ttft_meter.client.runs",
        ]
    );
    for metric in scope["metrics"].as_array().unwrap() {
        let name = metric["name"].as_str().unwrap();
        let expected_unit = match name {
            name if name.ends_with("_tokens") => "{token}",
            "ttft_meter.client.runs" => "{run}",
            _ => "s",
        };
        assert_eq!(metric["unit"], expected_unit, "{name}");
        let data = metric.get("histogram").or(metric.get("sum")).unwrap();
        assert_eq!(data["aggregationTemporality"], 1, "{name} is DELTA");
        for point in data["dataPoints"].as_array().unwrap() {
            assert_eq!(point["startTimeUnixNano"], nanos(1000));
            assert_eq!(point["timeUnixNano"], nanos(5000));
        }
    }
    let duration = metric(&body, "gen_ai.client.inference.duration");
    assert_eq!(
        duration["histogram"]["dataPoints"][0]["explicitBounds"],
        json!([
            0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92
        ])
    );
}

#[test]
fn operation_duration_has_one_point_per_attribute_set_and_counts_by_hand() {
    let body = metrics_body();
    assert_eq!(points(&body, "gen_ai.client.inference.duration").len(), 2);
    // Runs 1 and 3 succeeded: 0.311 s → (0.16, 0.32], index 5; 1.000 s → (0.64, 1.28], 7.
    let ok = points(&body, "gen_ai.client.inference.duration")
        .into_iter()
        .find(|point| !attributes(&point["attributes"]).contains_key("error.type"))
        .unwrap();
    assert_eq!(ok["count"], "2");
    close(&ok["sum"], 0.311 + 1.0);
    close(&ok["min"], 0.311);
    close(&ok["max"], 1.0);
    assert_eq!(counts(&ok), buckets(15, &[5, 7]));
    let attrs = attributes(&ok["attributes"]);
    assert_eq!(
        attrs["gen_ai.operation.name"],
        json!({"stringValue": "chat"})
    );
    assert_eq!(
        attrs["gen_ai.provider.name"],
        json!({"stringValue": "openai"})
    );
    assert_eq!(attrs["gen_ai.request.model"], json!({"stringValue": MODEL}));
    assert_eq!(attrs["server.address"], json!({"stringValue": "127.0.0.1"}));
    assert_eq!(attrs["server.port"], json!({"intValue": "8787"}));
    // Run 2 was refused after 120 ms: 0.12 s → (0.08, 0.16], index 4, error.type "401".
    let failed = point(
        &body,
        "gen_ai.client.inference.duration",
        &[("error.type", "401")],
    );
    assert_eq!(failed["count"], "1");
    close(&failed["sum"], 0.12);
    assert_eq!(counts(&failed), buckets(15, &[4]));
}

#[test]
fn chunk_token_and_our_histograms_match_the_runs() {
    let body = metrics_body();
    // First chunk: 0.060 and 0.055 s, both in (0.04, 0.08], index 3; the 401 run had none.
    let first_chunk = point(&body, "gen_ai.client.inference.time_to_first_chunk", &[]);
    assert_eq!(first_chunk["count"], "2");
    close(&first_chunk["sum"], 0.115);
    assert_eq!(counts(&first_chunk), buckets(15, &[3, 3]));
    // Per chunk after the first: 0.02 ×3 (≤ 0.02: index 1) and 0.5 (index 6).
    let per_chunk = point(&body, "gen_ai.client.inference.time_per_output_chunk", &[]);
    assert_eq!(per_chunk["count"], "4");
    close(&per_chunk["sum"], 0.56);
    assert_eq!(counts(&per_chunk), buckets(15, &[1, 1, 1, 6]));
    // Tokens per call: input 12 and 12 (≤ 16: index 2); output 4 (≤ 4: index 1) and 30
    // (≤ 64: 3).
    let input = point(&body, "gen_ai.client.inference.operation.input_tokens", &[]);
    assert_eq!(
        (input["count"].as_str(), counts(&input)),
        (Some("2"), buckets(15, &[2, 2]))
    );
    close(&input["sum"], 24.0);
    let output = point(
        &body,
        "gen_ai.client.inference.operation.output_tokens",
        &[],
    );
    assert_eq!(counts(&output), buckets(15, &[1, 3]));
    close(&output["sum"], 34.0);
    // The usage counters add them up, as text.
    let used_in = point(
        &body,
        "gen_ai.client.inference.usage.input_tokens",
        &[("gen_ai.token.modality", "text")],
    );
    assert_eq!(used_in["asInt"], "24");
    let used_out = point(&body, "gen_ai.client.inference.usage.output_tokens", &[]);
    assert_eq!(used_out["asInt"], "34");
    // Where run 1's wait went (the server's account: queue 30, prompt 150): each part in
    // seconds, with how it is known.
    for (part, seconds, source) in [
        ("connection", 0.009, "measured"),
        ("network", 0.008, "estimated"),
        ("queue", 0.030, "server_reported"),
        ("prompt", 0.150, "server_reported"),
        ("server", 0.053, "estimated"),
        ("browser", 0.005, "measured"),
        ("paint", 0.016, "measured"),
    ] {
        let wait = point(
            &body,
            &format!("ttft_meter.client.wait.{part}"),
            &[("ttft_meter.wait.source", source)],
        );
        assert_eq!(wait["count"], "1", "{part}");
        close(&wait["sum"], seconds);
    }
    // Ours, with the finer bounds [0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5, 0.6, 0.8, 1, …]:
    // ttfa 0.25 (index 4) and 0.9 (index 10); ttfr 0.4 (index 6), only run 3.
    let ttfa = point(
        &body,
        "ttft_meter.client.time_to_first_answer_token",
        &[("ttft_meter.network.effective_type", "4g")],
    );
    assert_eq!(counts(&ttfa), buckets(23, &[4, 10]));
    close(&ttfa["sum"], 1.15);
    let ttfr = point(
        &body,
        "ttft_meter.client.time_to_first_reasoning_token",
        &[],
    );
    assert_eq!(
        (ttfr["count"].as_str(), counts(&ttfr)),
        (Some("1"), buckets(23, &[6]))
    );
    // Painted: run 1 from the click (0.271 s, index 5), run 3 from the request (0.92, 10).
    let clicked = point(
        &body,
        "ttft_meter.client.time_to_first_answer_painted",
        &[("ttft_meter.perceived_from", "clicked")],
    );
    close(&clicked["sum"], 0.271);
    assert_eq!(counts(&clicked), buckets(23, &[5]));
    let scheduled = point(
        &body,
        "ttft_meter.client.time_to_first_answer_painted",
        &[("ttft_meter.perceived_from", "request_started")],
    );
    close(&scheduled["sum"], 0.92);
    // Paint delay [0.002, 0.004, 0.008, 0.017, 0.033, …]: answer 0.016 (3) and 0.02 (4);
    // reasoning 0.01 (3).
    let answer = point(
        &body,
        "ttft_meter.client.paint_delay",
        &[("ttft_meter.paint.target", "answer")],
    );
    assert_eq!(counts(&answer), buckets(12, &[3, 4]));
    let reasoning = point(
        &body,
        "ttft_meter.client.paint_delay",
        &[("ttft_meter.paint.target", "reasoning")],
    );
    assert_eq!(counts(&reasoning), buckets(12, &[3]));
}

#[test]
fn the_run_counter_splits_by_error_and_by_slo_attainment() {
    let body = metrics_body();
    let metric = metric(&body, "ttft_meter.client.runs");
    assert_eq!(metric["sum"]["isMonotonic"], true);
    let points = points(&body, "ttft_meter.client.runs");
    let summary: Vec<(Option<String>, bool, String)> = points
        .iter()
        .map(|point| {
            let attrs = attributes(&point["attributes"]);
            (
                attrs
                    .get("error.type")
                    .map(|value| value["stringValue"].as_str().unwrap().to_owned()),
                attrs["ttft_meter.slo.met"]["boolValue"].as_bool().unwrap(),
                point["asInt"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    // ttfa_ms<=800: run 1 (250 ms) met it, run 3 (900 ms) did not, run 2 measured nothing.
    assert_eq!(
        summary,
        vec![
            (None, true, "1".to_owned()),
            (Some("401".to_owned()), false, "1".to_owned()),
            (None, false, "1".to_owned()),
        ]
    );
    assert_eq!(
        attributes(&points[0]["attributes"])["ttft_meter.slo.spec"],
        json!({"stringValue": "ttfa_ms<=800"})
    );
}

#[test]
fn the_resource_says_who_measured_from_where() {
    let body = metrics_body();
    let resource = attributes(&body["resourceMetrics"][0]["resource"]["attributes"]);
    assert_eq!(
        resource["service.name"],
        json!({"stringValue": "ttft-meter"})
    );
    assert_eq!(resource["service.version"], json!({"stringValue": "0.1.0"}));
    assert_eq!(
        resource["browser.brands"],
        json!({"arrayValue": {"values": [{"stringValue": "Chromium 156"}, {"stringValue": "Not=A?Brand 24"}]}})
    );
    assert!(
        !resource.contains_key("user_agent.original"),
        "only where client hints are missing"
    );
    assert_eq!(
        resource["user_agent.name"],
        json!({"stringValue": "HeadlessChrome"})
    );
    assert_eq!(
        resource["user_agent.version"],
        json!({"stringValue": "156.0.7390.54"})
    );
    assert_eq!(
        resource["ttft_meter.browser.engine"],
        json!({"stringValue": "blink"})
    );
    assert_eq!(
        resource["ttft_meter.network.effective_type"],
        json!({"stringValue": "4g"})
    );
    assert_eq!(
        resource["ttft_meter.network.rtt_ms"],
        json!({"intValue": "50"})
    );
    assert_eq!(
        resource["ttft_meter.page.origin"],
        json!({"stringValue": "http://127.0.0.1:8787"})
    );
    assert_eq!(resource["browser.mobile"], json!({"boolValue": false}));
}

fn span(body: &Value, index: usize) -> Value {
    body["resourceSpans"][0]["scopeSpans"][0]["spans"][index].clone()
}

#[test]
fn one_client_span_per_run_with_events_and_error_status() {
    let body = traces_body(&ExportOptions::default());
    let first = span(&body, 0);
    assert_eq!(first["traceId"], "a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1");
    assert_eq!(first["spanId"], "a101020304050607");
    assert_eq!(first["name"], "chat sim-reasoning");
    assert_eq!(first["kind"], 3);
    assert_eq!(first["startTimeUnixNano"], nanos(1000));
    assert_eq!(first["endTimeUnixNano"], nanos(1311));
    assert!(first.get("status").is_none(), "unset on success");
    let attrs = attributes(&first["attributes"]);
    assert_eq!(
        attrs["gen_ai.response.time_to_first_chunk"],
        json!({"doubleValue": 0.06})
    );
    assert_eq!(
        attrs["gen_ai.usage.input_tokens"],
        json!({"intValue": "12"})
    );
    assert_eq!(
        attrs["gen_ai.request.max_tokens"],
        json!({"intValue": "64"})
    );
    assert_eq!(attrs["gen_ai.request.stream"], json!({"boolValue": true}));
    assert_eq!(attrs["ttft_meter.ttfa_ms"], json!({"doubleValue": 250.0}));
    assert_eq!(
        attrs["ttft_meter.perceived_ttfa_ms"],
        json!({"doubleValue": 271.0})
    );
    assert_eq!(
        attrs["ttft_meter.connection.cold"],
        json!({"boolValue": true})
    );
    assert_eq!(
        first["events"],
        json!([
            {"timeUnixNano": nanos(1250), "name": "ttft_meter.first_answer_token"},
            {"timeUnixNano": nanos(1266), "name": "ttft_meter.first_answer_painted",
             "attributes": [{"key": "ttft_meter.paint.method", "value": {"stringValue": "presentation_time"}}]}
        ])
    );

    let refused = span(&body, 1);
    assert_eq!(
        refused["status"],
        json!({"code": 2, "message": "http_error (401)"})
    );
    assert_eq!(refused["endTimeUnixNano"], nanos(2120));
    let attrs = attributes(&refused["attributes"]);
    assert_eq!(attrs["error.type"], json!({"stringValue": "401"}));
    assert_eq!(
        attrs["http.response.status_code"],
        json!({"intValue": "401"})
    );
    assert_eq!(
        attrs["ttft_meter.diagnosis.cause"],
        json!({"stringValue": "key_refused"})
    );
    assert!(refused.get("events").is_none(), "no events: left out");

    let reasoning = span(&body, 2);
    let names: Vec<&str> = reasoning["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|event| event["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "ttft_meter.first_reasoning_token",
            "ttft_meter.first_answer_token",
            "ttft_meter.first_reasoning_painted",
            "ttft_meter.first_answer_painted"
        ]
    );
    assert_eq!(reasoning["events"][0]["timeUnixNano"], nanos(3400));
    assert_eq!(reasoning["endTimeUnixNano"], nanos(4000));
    let attrs = attributes(&reasoning["attributes"]);
    assert_eq!(
        attrs["gen_ai.usage.reasoning.output_tokens"],
        json!({"intValue": "20"})
    );
    assert_eq!(
        attrs["gen_ai.usage.cache_read.input_tokens"],
        json!({"intValue": "8"})
    );
}

#[test]
fn no_body_holds_the_key_and_the_prompt_only_when_opted_in() {
    let bodies = [
        metrics_body().to_string(),
        traces_body(&ExportOptions::default()).to_string(),
    ];
    for body in &bodies {
        assert!(!body.contains(SECRET_KEY));
        assert!(!body.contains("98765"), "not even the masked key's tail");
        assert!(!body.contains(PROMPT));
        assert!(!body.contains("/v1/chat/completions"), "no endpoint path");
    }
    let opted_in = traces_body(&ExportOptions {
        include_prompt: true,
        ..ExportOptions::default()
    });
    let attrs = attributes(&span(&opted_in, 0)["attributes"]);
    let message =
        &attrs["gen_ai.input.messages"]["arrayValue"]["values"][0]["kvlistValue"]["values"];
    assert_eq!(
        message[0],
        json!({"key": "role", "value": {"stringValue": "user"}})
    );
    let part = &message[1]["value"]["arrayValue"]["values"][0]["kvlistValue"]["values"];
    assert_eq!(
        part[1],
        json!({"key": "content", "value": {"stringValue": PROMPT}})
    );
    assert!(!opted_in.to_string().contains(SECRET_KEY));
}

#[test]
fn every_json_key_is_lower_camel_case() {
    fn check(value: &Value, path: &str) {
        match value {
            Value::Object(map) => {
                for (key, value) in map {
                    assert!(
                        !key.contains('_') && key.chars().next().is_some_and(char::is_lowercase),
                        "{path}.{key}"
                    );
                    check(value, &format!("{path}.{key}"));
                }
            }
            Value::Array(items) => items.iter().for_each(|item| check(item, path)),
            _ => {}
        }
    }
    check(&metrics_body(), "metrics");
    check(
        &traces_body(&ExportOptions {
            include_prompt: true,
            ..ExportOptions::default()
        }),
        "traces",
    );
}

#[test]
fn warm_up_runs_make_spans_but_no_metrics() {
    let mut warm_up = completed();
    warm_up.warm_up = true;
    assert_eq!(
        metrics_request(&[warm_up.clone()], &resource(), window(), &options()).unwrap(),
        None
    );
    let traces = traces_request(&[(warm_up, ids(9))], &resource(), &clock(), &options()).unwrap();
    assert!(traces.unwrap().contains("\"ttft_meter.run.warm_up\""));
}

#[test]
fn successive_runs_get_successive_delta_windows_and_batch_into_one_request() {
    let mut exporter = OtlpExporter::new(resource(), clock(), options(), QueueConfig::default());
    let ok = SendOutcome::Response {
        status: 200,
        retry_after: None,
        body: "{}".into(),
    };
    let mut windows = Vec::new();
    let mut metric_bodies = Vec::new();
    let mut traces_bodies = Vec::new();
    let mut traced = traced_runs().into_iter();
    // Run 1 alone, sent at 3000 ms; runs 2 and 3 together, sent at 5000 ms (during run 3's
    // stream nothing goes out).
    exporter
        .record_run(traced.next().unwrap().0, ids(0xa1))
        .unwrap();
    for (now_ms, record) in [(3000.0, None), (5000.0, Some(2))] {
        if let Some(count) = record {
            for _ in 0..count {
                let (record, run_ids) = traced.next().unwrap();
                exporter.record_run(record, run_ids).unwrap();
                assert_eq!(
                    exporter.poll(now_ms - 1.0, true).unwrap(),
                    None,
                    "stream open"
                );
            }
        }
        let metrics = exporter.poll(now_ms, false).unwrap().unwrap();
        assert_eq!(metrics.path, "/v1/metrics");
        let body: Value = serde_json::from_str(&metrics.body).unwrap();
        assert_eq!(
            body["resourceMetrics"].as_array().unwrap().len(),
            1,
            "aggregated"
        );
        let point = &body["resourceMetrics"][0]["scopeMetrics"][0]["metrics"][0]["histogram"]
            ["dataPoints"][0];
        windows.push((
            metrics.runs,
            point["startTimeUnixNano"].as_str().unwrap().to_owned(),
            point["timeUnixNano"].as_str().unwrap().to_owned(),
        ));
        metric_bodies.push(metrics.body.clone());
        exporter.on_outcome(metrics.id, &ok, now_ms + 10.0, 0.5);
        let traces = exporter.poll(now_ms + 20.0, false).unwrap().unwrap();
        assert_eq!(traces.path, "/v1/traces");
        let body: Value = serde_json::from_str(&traces.body).unwrap();
        assert_eq!(
            body["resourceSpans"].as_array().unwrap().len() as u64,
            traces.runs
        );
        traces_bodies.push(traces.body.clone());
        exporter.on_outcome(traces.id, &ok, now_ms + 30.0, 0.5);
    }
    // The second window starts where the first ended.
    assert_eq!(
        windows,
        vec![(1, nanos(1000), nanos(3000)), (2, nanos(3000), nanos(5000)),]
    );
    let status = exporter.status();
    assert_eq!((status.metrics.sent_runs, status.traces.sent_runs), (3, 3));
    // Runs 2 and 3 make one duration point per attribute set: run 3 ok, run 2 refused.
    let second: Value = serde_json::from_str(&metric_bodies[1]).unwrap();
    assert_eq!(points(&second, "gen_ai.client.inference.duration").len(), 2);
    let runs: u64 = points(&second, "ttft_meter.client.runs")
        .iter()
        .map(|point| point["asInt"].as_str().unwrap().parse::<u64>().unwrap())
        .sum();
    assert_eq!(runs, 2);
    write_golden("batched_traces.json", &traces_bodies[1]);
}

fn golden_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/otlp/bodies")
}

/// Compares `body` with the golden file (or rewrites it with `TTFT_UPDATE_GOLDEN=1`).
fn write_golden(name: &str, body: &str) {
    let path = golden_dir().join(name);
    let pretty =
        serde_json::to_string_pretty(&serde_json::from_str::<Value>(body).unwrap()).unwrap() + "\n";
    if std::env::var_os("TTFT_UPDATE_GOLDEN").is_some() {
        std::fs::create_dir_all(golden_dir()).unwrap();
        std::fs::write(&path, pretty).unwrap();
        return;
    }
    let golden = std::fs::read_to_string(&path).unwrap_or_else(|_| {
        panic!("{path:?} is missing: run with TTFT_UPDATE_GOLDEN=1 to write it")
    });
    assert_eq!(
        golden, pretty,
        "{name} changed: if intended, rewrite it with TTFT_UPDATE_GOLDEN=1 and review the diff"
    );
}

#[test]
fn golden_bodies_are_what_the_builders_write() {
    write_golden("metrics.json", &metrics_body().to_string());
    write_golden(
        "traces.json",
        &traces_body(&ExportOptions::default()).to_string(),
    );
    write_golden(
        "traces_with_prompt.json",
        &traces_body(&ExportOptions {
            include_prompt: true,
            ..ExportOptions::default()
        })
        .to_string(),
    );
}

#[test]
fn a_ttft_only_run_has_no_operation_duration_but_its_first_tokens() {
    let mut run = RunTimeline::new(Some(995.0), 1000.0);
    run.on_headers(1050.0, 200);
    run.on_event(1060.0, &DecodedEvent::default());
    run.on_event(1250.0, &text(1, "Hi", ""));
    run.on_stopped_after_first_answer(1251.0);
    let record = record_from(1, settings(), &run);
    let body: Value = serde_json::from_str(
        &metrics_request(&[record], &resource(), window(), &ExportOptions::default())
            .unwrap()
            .unwrap(),
    )
    .unwrap();
    let names: Vec<&str> = body["resourceMetrics"][0]["scopeMetrics"][0]["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|metric| metric["name"].as_str().unwrap())
        .collect();
    assert!(
        !names.contains(&"gen_ai.client.inference.duration"),
        "{names:?}"
    );
    assert!(names.contains(&"ttft_meter.client.time_to_first_answer_token"));
    assert!(names.contains(&"gen_ai.client.inference.time_to_first_chunk"));
}

/// The completed run, as if through ttft-relay with a buffered answer.
fn via_relay() -> RunRecord {
    let mut record = completed();
    record.relay = Some(ttft_stream::dialect::RelayAccount {
        version: Some("0.1.0".to_owned()),
        conn: Some(ttft_stream::dialect::RelayConn::Reused),
        proto: Some(ttft_stream::dialect::RelayProto::H2),
        rtt_ms: Some(20.0),
        ..Default::default()
    });
    record.buffered_arrival = Some(ttft_core::timeline::BufferedArrival {
        text_chunks: 4,
        silence_ms: 311.0,
        span_ms: 0.0,
    });
    record
}

#[test]
fn a_run_through_the_relay_says_so_on_its_span_and_our_metrics_only() {
    let text = traces_request(
        &[(via_relay(), ids(0xa1))],
        &resource(),
        &clock(),
        &ExportOptions::default(),
    )
    .unwrap()
    .unwrap();
    let body: Value = serde_json::from_str(&text).unwrap();
    let attrs = attributes(&span(&body, 0)["attributes"]);
    assert_eq!(attrs["ttft_meter.via_relay"], json!({"boolValue": true}));
    assert_eq!(
        attrs["ttft_meter.relay.version"],
        json!({"stringValue": "0.1.0"})
    );
    assert_eq!(
        attrs["ttft_meter.relay.connection"],
        json!({"stringValue": "reused"})
    );
    assert_eq!(
        attrs["ttft_meter.relay.protocol"],
        json!({"stringValue": "h2"})
    );
    assert!(!attrs.contains_key("ttft_meter.relay.error"));
    assert_eq!(
        attrs["ttft_meter.buffered_arrival"],
        json!({"boolValue": true})
    );
    // A direct run carries none of them.
    let direct = attributes(&span(&traces_body(&ExportOptions::default()), 0)["attributes"]);
    assert!(direct
        .keys()
        .all(|key| !key.contains("relay") && key != "ttft_meter.buffered_arrival"));
    // Metrics: ours carry ttft_meter.via_relay, the conventions' keep their attribute set.
    let text = metrics_request(&[via_relay()], &resource(), window(), &options())
        .unwrap()
        .unwrap();
    let body: Value = serde_json::from_str(&text).unwrap();
    let ours = attributes(&points(&body, "ttft_meter.client.time_to_first_token")[0]["attributes"]);
    assert_eq!(ours["ttft_meter.via_relay"], json!({"boolValue": true}));
    let theirs =
        attributes(&points(&body, "gen_ai.client.inference.time_to_first_chunk")[0]["attributes"]);
    assert!(!theirs.contains_key("ttft_meter.via_relay"));
}
