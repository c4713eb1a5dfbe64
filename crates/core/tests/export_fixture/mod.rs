//! Runs with known timings for the export tests, built through the real `RunTimeline`
//! (`export_json.rs` checks that the numbers are what the other tests assume), and a small
//! RFC 4180 reader.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, dead_code)]

use ttft_core::export::{Environment, ExportDocument};
use ttft_core::protocol::Protocol;
use ttft_core::record::RunRecord;
use ttft_core::record::RunSettings;
use ttft_core::record::Transport;
use ttft_core::request::{
    normalize_base_url, prepare_request, ApiKey, PromptSpec, ReasoningEffort, RequestDescription,
};
use ttft_core::timeline::{
    ConnectionEvidence, HttpProtocol, NetworkBreakdown, PaintMethod, PaintTarget, ResourceTiming,
    RunTimeline,
};
use ttft_stream::dialect::{DecodedEvent, Dialect, Usage};

/// The key every fixture request is sent with; it must never appear in an export.
pub const SECRET_KEY: &str = "sk-secret-123456";

/// A real request description for `model` with [`SECRET_KEY`] (masked by `describe()`).
pub fn request(model: &str) -> RequestDescription {
    request_with_effort(model, None)
}

/// [`request`] with a reasoning effort.
pub fn request_with_effort(model: &str, effort: Option<ReasoningEffort>) -> RequestDescription {
    let endpoint = normalize_base_url("https://api.openai.com/v1", Protocol::OpenAiChat).unwrap();
    let mut spec = PromptSpec::new(model, "Say hi");
    spec.max_output_tokens = Some(64);
    spec.reasoning_effort = effort;
    let key = ApiKey::parse(SECRET_KEY).unwrap().unwrap();
    prepare_request(&endpoint, &spec, Some(&key), None)
        .unwrap()
        .describe()
}

/// Settings of the fixture endpoint.
pub fn settings(model: &str) -> RunSettings {
    RunSettings {
        protocol: Protocol::OpenAiChat,
        endpoint_url: "https://api.openai.com/v1/chat/completions".to_owned(),
        model: model.to_owned(),
        dialect: Some(Dialect::Chat),
        max_tokens: Some(64),
        ttft_only: false,
        reasoning: false,
        request: Some(request(model)),
    }
}

/// Resource Timing of a new (cold) or reused (warm) connection, starting at `start_ms`.
pub fn network(start_ms: f64, cold: bool) -> NetworkBreakdown {
    let connect_end = if cold {
        start_ms + 30.0
    } else {
        start_ms + 1.0
    };
    NetworkBreakdown::from_resource_timing(&ResourceTiming {
        fetch_start: start_ms + 1.0,
        domain_lookup_start: start_ms + 1.0,
        domain_lookup_end: if cold {
            start_ms + 11.0
        } else {
            start_ms + 1.0
        },
        connect_start: start_ms + 1.0,
        connect_end,
        secure_connection_start: if cold { start_ms + 20.0 } else { 0.0 },
        request_start: connect_end,
        response_start: start_ms + 48.0,
        next_hop_protocol: HttpProtocol::H2,
    })
}

fn answer(index: usize, text: &str) -> DecodedEvent {
    DecodedEvent {
        index,
        answer: text.into(),
        ..Default::default()
    }
}

/// A completed answer-only run: click 5 ms before `start_ms`, headers at +50, a role chunk
/// at +60, four answer chunks 20 ms apart from +`ttft_ms`, painted 16 ms after the first,
/// `[DONE]` 1 ms after the last. So: ttft = ttfa = `ttft_ms`, perceived_ttfa = ttft + 21,
/// itl = 20 (4 chunks), decode = 60, output_tps = 66.667, e2e = ttft + 61.
pub fn completed(start_ms: f64, ttft_ms: f64, cold: bool) -> RunTimeline {
    let mut run = RunTimeline::new(Some(start_ms - 5.0), start_ms);
    run.set_network(network(start_ms, cold));
    run.on_headers(start_ms + 50.0, 200);
    run.on_body_chunk(start_ms + 60.0, 100);
    run.on_event(start_ms + 60.0, &DecodedEvent::default());
    let first = start_ms + ttft_ms;
    for (step, text) in ["Hi", " there", ",", " friend"].iter().enumerate() {
        run.on_event(first + 20.0 * step as f64, &answer(step + 1, text));
    }
    run.on_paint(
        PaintTarget::Answer,
        first + 16.0,
        PaintMethod::PresentationTime,
    );
    run.on_event(
        first + 61.0,
        &DecodedEvent {
            index: 5,
            terminal: true,
            ..Default::default()
        },
    );
    run.on_stream_end(first + 62.0);
    run
}

/// A run refused with HTTP 401 after 120 ms.
pub fn refused(start_ms: f64) -> RunTimeline {
    let mut run = RunTimeline::new(Some(start_ms - 5.0), start_ms);
    run.on_headers(start_ms + 120.0, 401);
    run
}

/// A reasoning run with usage: reasoning at +400, answer at +900 (painted +20), usage
/// 12 prompt (8 cached) / 30 output (20 reasoning) tokens, scheduled (no click).
pub fn reasoning(start_ms: f64) -> RunTimeline {
    let mut run = RunTimeline::new(None, start_ms);
    run.set_network(network(start_ms, true));
    run.on_headers(start_ms + 50.0, 200);
    run.on_body_chunk(start_ms + 55.0, 80);
    run.on_event(start_ms + 55.0, &DecodedEvent::default());
    run.on_event(
        start_ms + 400.0,
        &DecodedEvent {
            index: 1,
            reasoning: "Hmm".into(),
            ..Default::default()
        },
    );
    run.on_paint(
        PaintTarget::Reasoning,
        start_ms + 410.0,
        PaintMethod::RafMessageChannel,
    );
    run.on_event(start_ms + 900.0, &answer(2, "Yes"));
    run.on_paint(
        PaintTarget::Answer,
        start_ms + 920.0,
        PaintMethod::RafMessageChannel,
    );
    run.set_usage(&Usage {
        prompt_tokens: Some(12),
        cached_prompt_tokens: Some(8),
        cache_creation_tokens: None,
        output_tokens: Some(30),
        reasoning_tokens: Some(20),
        raw: serde_json::json!({"prompt_tokens": 12, "completion_tokens": 30}),
    });
    run.on_event(
        start_ms + 1000.0,
        &DecodedEvent {
            index: 3,
            terminal: true,
            ..Default::default()
        },
    );
    run.on_stream_end(start_ms + 1001.0);
    run
}

/// The model all summary runs use.
pub const MODEL: &str = "gpt-4o-mini";

/// A record of a finished timeline, as the engine makes one (without a diagnosis).
pub fn record_from_timeline(
    run_index: u32,
    started_at: &str,
    settings: RunSettings,
    transport: Transport,
    timeline: &RunTimeline,
) -> RunRecord {
    let settings_is_https = settings.endpoint_url.starts_with("https:");
    RunRecord {
        run_index,
        started_at: started_at.to_owned(),
        settings,
        transport,
        cold: timeline
            .network
            .as_ref()
            .and_then(|network| network.connection.cold()),
        connection_evidence: timeline
            .network
            .as_ref()
            .map(|_| ConnectionEvidence::ResourceTiming),
        warm_up: false,
        metrics: timeline.metrics(),
        instants: timeline.instants.clone(),
        usage: timeline.usage.clone(),
        network: timeline.network.clone(),
        outcome: timeline.outcome.clone(),
        diagnosis_cause: None,
        diagnosis: None,
        experiment: None,
        arrival_delay_bound_ms: None,
        arrivals_wait_for_main_thread: None,
        main_thread_stall_ms: None,
        server_account: None,
        // As `Measurement::finish` computes it: no server account, no preflight.
        breakdown: ttft_core::timeline::WaitBreakdown::compute(
            &ttft_core::timeline::BreakdownInput {
                instants: &timeline.instants,
                network: timeline.network.as_ref(),
                cold: timeline
                    .network
                    .as_ref()
                    .and_then(|network| network.connection.cold()),
                https: settings_is_https,
                first_preflight: false,
                earlier_round_trip_ms: None,
                ping_round_trip: None,
                account: None,
                request_bytes: None,
                downlink_mbps: None,
                relay: None,
            },
        ),
        timer: None,
        relay: None,
        buffered_arrival: None,
    }
}

/// Six runs: a warm-up (cold, 900 ms), a cold run (1000 ms), three warm runs (200, 300,
/// 250 ms) and a run refused with 401 (diagnosed `key_refused`).
pub fn six_runs() -> Vec<RunRecord> {
    let plan: [(f64, bool); 5] = [
        (900.0, true),
        (1000.0, true),
        (200.0, false),
        (300.0, false),
        (250.0, false),
    ];
    let mut runs: Vec<RunRecord> = plan
        .iter()
        .enumerate()
        .map(|(index, &(ttft_ms, cold))| {
            let start_ms = 10_000.0 * (index as f64 + 1.0);
            record_from_timeline(
                index as u32 + 1,
                &format!("2026-11-29T16:0{index}:00.000Z"),
                settings(MODEL),
                Transport::Worker,
                &completed(start_ms, ttft_ms, cold),
            )
        })
        .collect();
    runs[0].warm_up = true;
    let mut failed = record_from_timeline(
        6,
        "2026-11-29T16:05:00.000Z",
        settings(MODEL),
        Transport::Worker,
        &refused(60_000.0),
    );
    failed.diagnosis_cause = Some("key_refused".to_owned());
    runs.push(failed);
    runs
}

/// The fixture environment.
pub fn environment() -> Environment {
    Environment {
        user_agent: "Mozilla/5.0 (X11; Linux x86_64) Chrome/131.0".to_owned(),
        timer_resolution_ms: Some(0.005),
        cross_origin_isolated: true,
        transport: Transport::Worker,
        page_origin: "https://ttft.example".to_owned(),
    }
}

/// A document with the six runs and one experiment.
pub fn document() -> ExportDocument {
    let mut document = ExportDocument::new("0.1.0", "2026-11-29T16:10:00.000Z", environment());
    document.runs = six_runs();
    document
        .experiments
        .push(ttft_core::export::ExperimentResult {
            kind: "prompt_length_sweep".to_owned(),
            kind_version: 1,
            result: serde_json::json!({"points": [{"prompt_tokens": 100, "ttft_ms": 210.5}]}),
        });
    document
}

/// A minimal RFC 4180 reader: records of fields, quotes undone.
pub fn parse_csv(text: &str) -> Vec<Vec<String>> {
    let mut records = Vec::new();
    let mut record = Vec::new();
    let mut field = String::new();
    let mut quoted = false;
    let mut chars = text.chars().peekable();
    while let Some(character) = chars.next() {
        match (quoted, character) {
            (true, '"') if chars.peek() == Some(&'"') => {
                chars.next();
                field.push('"');
            }
            (true, '"') => quoted = false,
            (true, other) => field.push(other),
            (false, '"') => quoted = true,
            (false, ',') => record.push(std::mem::take(&mut field)),
            (false, '\r') if chars.peek() == Some(&'\n') => {
                chars.next();
                record.push(std::mem::take(&mut field));
                records.push(std::mem::take(&mut record));
            }
            (false, other) => field.push(other),
        }
    }
    records
}
