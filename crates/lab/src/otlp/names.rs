//! Every name TTFT Meter sends over OTLP, in one place.
//!
//! The GenAI semantic conventions are still in development and rename things between
//! releases; when one changes, change its constant here and nothing else.
//!
//! **The GenAI client metrics follow semantic-conventions-genai v0.1.0** (the GenAI
//! conventions' own repository, whose `docs/gen-ai/client-inference.md` renamed them:
//! `gen_ai.client.inference.duration`, `…time_to_first_chunk`, `…time_per_output_chunk`, the
//! `gen_ai.client.inference.usage.*` counters and `…operation.*_tokens` histograms;
//! semantic-conventions v1.42.0 deprecated the `gen_ai.client.operation.*` and
//! `gen_ai.client.token.usage` names "moved to the GenAI repository", definitions and buckets
//! unchanged). The names of v1.41.0 are one switch away: [`GEN_AI_CONVENTIONS`]
//! (docs/research/server-accounts.md has the mapping and its sources).
//!
//! Everything else is checked against the released text of OpenTelemetry semantic
//! conventions **v1.41.0**:
//! `docs/gen-ai/gen-ai-metrics.md` (metric names, units, attributes and the recommended
//! bucket boundaries quoted below), `docs/gen-ai/gen-ai-spans.md` (span name, kind and
//! attributes), `docs/resource/browser.md`, and `docs/registry/attributes/{browser,network,
//! user-agent,server,error,service}.md`. Every name exists there exactly as written, except
//! those under `ttft_meter.*`, which are ours and documented in docs/otel.md.

/// The GenAI conventions' names a build sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GenAiConventions {
    /// semantic-conventions v1.41.0: `gen_ai.client.operation.*`, `gen_ai.client.token.usage`
    /// (a histogram with `gen_ai.token.type`), `gen_ai.usage.cache_creation.input_tokens`.
    V1_41_0,
    /// semantic-conventions-genai v0.1.0: `gen_ai.client.inference.*`, usage counters with
    /// `gen_ai.token.modality`, `gen_ai.usage.cache_write.input_tokens`.
    GenAi0_1_0,
}

/// The switch: which GenAI names this build sends.
pub const GEN_AI_CONVENTIONS: GenAiConventions = GenAiConventions::GenAi0_1_0;

/// Whether the v0.1.0 names are sent.
const GEN_AI_0_1: bool = matches!(GEN_AI_CONVENTIONS, GenAiConventions::GenAi0_1_0);

/// `a` under semantic-conventions-genai v0.1.0, `b` under v1.41.0.
const fn genai(a: &'static str, b: &'static str) -> &'static str {
    if GEN_AI_0_1 {
        a
    } else {
        b
    }
}

/// The semantic conventions release the names follow (the GenAI ones: see
/// [`GEN_AI_CONVENTIONS`]).
pub const SEMCONV_VERSION: &str = "1.41.0";

/// The GenAI conventions release the GenAI names follow, as docs/otel.md and the span's
/// `ttft_meter.semconv.gen_ai` say.
pub const GEN_AI_SEMCONV_VERSION: &str = genai("genai-0.1.0", "1.41.0");

/// The schema URL of that release, sent as `schemaUrl` of resources and scopes.
pub const SCHEMA_URL: &str = "https://opentelemetry.io/schemas/1.41.0";

/// The instrumentation scope name (the code that produced the telemetry).
pub const SCOPE_NAME: &str = "ttft-meter";

/// `service.name` when the embedder does not choose one.
pub const DEFAULT_SERVICE_NAME: &str = "ttft-meter";

/// OTLP/HTTP paths, appended to the configured endpoint (OTLP specification, "OTLP/HTTP
/// Request").
pub mod path {
    /// Metrics: `ExportMetricsServiceRequest`.
    pub const METRICS: &str = "/v1/metrics";
    /// Traces: `ExportTraceServiceRequest`.
    pub const TRACES: &str = "/v1/traces";
}

/// The instrument kind of a metric we send.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InstrumentKind {
    /// An explicit-bucket histogram.
    Histogram,
    /// A monotonic sum (a counter).
    Counter,
}

/// One metric: its name, UCUM unit, description and, for histograms, explicit bucket
/// boundaries (upper bounds, inclusive, in the metric's unit).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MetricSpec {
    /// The metric name.
    pub name: &'static str,
    /// The UCUM unit (`s`, `{token}`, `{run}`).
    pub unit: &'static str,
    /// What it measures.
    pub description: &'static str,
    /// Histogram or counter.
    pub kind: InstrumentKind,
    /// Explicit bucket boundaries (empty for counters).
    pub bounds: &'static [f64],
}

/// The boundaries gen-ai-metrics.md v1.41.0 recommends for every GenAI duration histogram
/// (`gen_ai.client.operation.duration`, `…time_to_first_chunk`, `…time_per_output_chunk`):
/// "[0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92]",
/// in seconds.
pub const GEN_AI_DURATION_BOUNDS_S: [f64; 14] = [
    0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92,
];

/// The boundaries gen-ai-metrics.md v1.41.0 recommends for `gen_ai.client.token.usage`:
/// "[1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216,
/// 67108864]", in tokens.
pub const GEN_AI_TOKEN_BOUNDS: [f64; 14] = [
    1.0, 4.0, 16.0, 64.0, 256.0, 1024.0, 4096.0, 16384.0, 65536.0, 262144.0, 1048576.0, 4194304.0,
    16777216.0, 67108864.0,
];

/// Our boundaries for what a person waits for (seconds). Finer than the GenAI ones where
/// user-facing thresholds sit (0.4 s, 0.8 s, 1 s, 1.5 s, 2 s, 3 s: the usual SLO values and
/// the 1.5-3 s where users give up), so a p95 read from buckets (PromQL
/// `histogram_quantile`) is off by at most one narrow bucket there, not by a factor of two.
pub const PERCEIVED_BOUNDS_S: [f64; 22] = [
    0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5, 0.6, 0.8, 1.0, 1.25, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0,
    7.5, 10.0, 20.0, 60.0,
];

/// Our boundaries for the paint delay (seconds): one frame at 60 Hz is 16.7 ms, so the
/// buckets follow frames up to a few, then long tasks.
pub const PAINT_DELAY_BOUNDS_S: [f64; 11] = [
    0.002, 0.004, 0.008, 0.017, 0.033, 0.05, 0.067, 0.1, 0.2, 0.5, 1.0,
];

/// `gen_ai.client.operation.duration` (required by the conventions): request start to the
/// end of the stream, or to the failure.
pub const OPERATION_DURATION: MetricSpec = MetricSpec {
    name: genai(
        "gen_ai.client.inference.duration",
        "gen_ai.client.operation.duration",
    ),
    unit: "s",
    description: "GenAI operation duration.",
    kind: InstrumentKind::Histogram,
    bounds: &GEN_AI_DURATION_BOUNDS_S,
};

/// `gen_ai.client.operation.time_to_first_chunk`: request start to the first SSE event of any
/// kind (our `first_chunk_ms`).
pub const TIME_TO_FIRST_CHUNK: MetricSpec = MetricSpec {
    name: genai(
        "gen_ai.client.inference.time_to_first_chunk",
        "gen_ai.client.operation.time_to_first_chunk",
    ),
    unit: "s",
    description: "Time to receive the first chunk, measured from when the client issues the generation request to when the first chunk is received in the response stream.",
    kind: InstrumentKind::Histogram,
    bounds: &GEN_AI_DURATION_BOUNDS_S,
};

/// `gen_ai.client.operation.time_per_output_chunk`: one observation per text-carrying chunk
/// after the first (our `itl_gaps_ms`).
pub const TIME_PER_OUTPUT_CHUNK: MetricSpec = MetricSpec {
    name: genai(
        "gen_ai.client.inference.time_per_output_chunk",
        "gen_ai.client.operation.time_per_output_chunk",
    ),
    unit: "s",
    description: "Time per output chunk, recorded for each chunk received after the first one, measured as the time elapsed from the end of the previous chunk to the end of the current chunk.",
    kind: InstrumentKind::Histogram,
    bounds: &GEN_AI_DURATION_BOUNDS_S,
};

/// v1.41.0's `gen_ai.client.token.usage`, with [`attr::GEN_AI_TOKEN_TYPE`] `input` /
/// `output`; only when the provider reported usage.
pub const TOKEN_USAGE: MetricSpec = MetricSpec {
    name: "gen_ai.client.token.usage",
    unit: "{token}",
    description: "Number of input and output tokens used.",
    kind: InstrumentKind::Histogram,
    bounds: &GEN_AI_TOKEN_BOUNDS,
};

/// v0.1.0's `gen_ai.client.inference.operation.input_tokens`: one call's input tokens
/// (cached ones included), when the provider reported usage.
pub const OPERATION_INPUT_TOKENS: MetricSpec = MetricSpec {
    name: "gen_ai.client.inference.operation.input_tokens",
    unit: "{token}",
    description: "Number of input tokens of one inference call.",
    kind: InstrumentKind::Histogram,
    bounds: &GEN_AI_TOKEN_BOUNDS,
};

/// v0.1.0's `gen_ai.client.inference.operation.output_tokens` (reasoning included).
pub const OPERATION_OUTPUT_TOKENS: MetricSpec = MetricSpec {
    name: "gen_ai.client.inference.operation.output_tokens",
    unit: "{token}",
    description: "Number of output tokens of one inference call.",
    kind: InstrumentKind::Histogram,
    bounds: &GEN_AI_TOKEN_BOUNDS,
};

/// A v0.1.0 usage counter (`gen_ai.client.inference.usage.*`, with
/// [`attr::GEN_AI_TOKEN_MODALITY`]).
const fn usage_counter(name: &'static str, description: &'static str) -> MetricSpec {
    MetricSpec {
        name,
        unit: "{token}",
        description,
        kind: InstrumentKind::Counter,
        bounds: &[],
    }
}

/// v0.1.0's `gen_ai.client.inference.usage.input_tokens`.
pub const USAGE_INPUT_TOKENS: MetricSpec = usage_counter(
    "gen_ai.client.inference.usage.input_tokens",
    "Number of input tokens used.",
);
/// v0.1.0's `gen_ai.client.inference.usage.output_tokens`.
pub const USAGE_OUTPUT_TOKENS: MetricSpec = usage_counter(
    "gen_ai.client.inference.usage.output_tokens",
    "Number of output tokens used.",
);
/// v0.1.0's `gen_ai.client.inference.usage.cache_read.input_tokens`.
pub const USAGE_CACHE_READ_INPUT_TOKENS: MetricSpec = usage_counter(
    "gen_ai.client.inference.usage.cache_read.input_tokens",
    "Number of input tokens read from the provider's cache.",
);
/// v0.1.0's `gen_ai.client.inference.usage.reasoning.output_tokens`.
pub const USAGE_REASONING_OUTPUT_TOKENS: MetricSpec = usage_counter(
    "gen_ai.client.inference.usage.reasoning.output_tokens",
    "Number of output tokens spent on reasoning.",
);

/// Our boundaries for the parts of a wait (seconds): from a paint's few ms to a long
/// prefill or queue.
pub const WAIT_PART_BOUNDS_S: [f64; 18] = [
    0.001, 0.002, 0.005, 0.01, 0.02, 0.03, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.5, 0.75, 1.0, 2.0,
    5.0, 20.0,
];

/// Ours: one histogram per part of the wait (`ttft_meter.client.wait.<part>`, the parts of
/// `ttft_core::timeline::WaitPart`), with [`attr::WAIT_SOURCE`].
const fn wait_part(name: &'static str, description: &'static str) -> MetricSpec {
    MetricSpec {
        name,
        unit: "s",
        description,
        kind: InstrumentKind::Histogram,
        bounds: &WAIT_PART_BOUNDS_S,
    }
}

/// Every part's histogram, in the order of `WaitPart::ALL`.
pub const WAIT_PARTS: [MetricSpec; 11] = [
    wait_part("ttft_meter.client.wait.browser", "The page's own time from the Send click to fetch()."),
    wait_part("ttft_meter.client.wait.relay", "Through ttft-relay: the browser, the loopback to the relay and the relay's own work."),
    wait_part("ttft_meter.client.wait.connection", "Opening the connection (DNS, TCP, TLS) and the browser's queueing before the request left."),
    wait_part("ttft_meter.client.wait.preflight", "The CORS preflight the request waited for."),
    wait_part("ttft_meter.client.wait.network", "One network round trip to the endpoint (estimated from a handshake)."),
    wait_part("ttft_meter.client.wait.gateway", "A gateway's own time, as the gateway reported it."),
    wait_part("ttft_meter.client.wait.queue", "Time queued at the server, as the server reported it."),
    wait_part("ttft_meter.client.wait.prompt", "Prompt processing (prefill), as the server reported it."),
    wait_part("ttft_meter.client.wait.server", "The gateway and server before the first token, beyond what they reported."),
    wait_part("ttft_meter.client.wait.reasoning", "From the first reasoning token to the first answer token."),
    wait_part("ttft_meter.client.wait.paint", "From the first answer token's arrival to its paint."),
];

/// Ours: `ttft_meter.client.time_to_first_token`, request start to the first reasoning or
/// answer text (`ttft_ms`; AIPerf's and GuideLLM's TTFT).
pub const TIME_TO_FIRST_TOKEN: MetricSpec = MetricSpec {
    name: "ttft_meter.client.time_to_first_token",
    unit: "s",
    description:
        "Time from the request to the first event carrying reasoning or answer text (ttft_ms).",
    kind: InstrumentKind::Histogram,
    bounds: &PERCEIVED_BOUNDS_S,
};

/// Ours: `ttft_meter.client.time_to_first_answer_token` (`ttfa_ms`).
pub const TIME_TO_FIRST_ANSWER_TOKEN: MetricSpec = MetricSpec {
    name: "ttft_meter.client.time_to_first_answer_token",
    unit: "s",
    description: "Time from the request to the first event carrying answer text (ttfa_ms).",
    kind: InstrumentKind::Histogram,
    bounds: &PERCEIVED_BOUNDS_S,
};

/// Ours: `ttft_meter.client.time_to_first_reasoning_token` (`ttfr_ms`).
pub const TIME_TO_FIRST_REASONING_TOKEN: MetricSpec = MetricSpec {
    name: "ttft_meter.client.time_to_first_reasoning_token",
    unit: "s",
    description: "Time from the request to the first event carrying reasoning text (ttfr_ms).",
    kind: InstrumentKind::Histogram,
    bounds: &PERCEIVED_BOUNDS_S,
};

/// Ours: `ttft_meter.client.time_to_first_answer_painted` (`perceived_ttfa_ms`): from the
/// Send click (or the request, for scheduled runs: see [`attr::PERCEIVED_FROM`]) to the first
/// answer text presented on screen.
pub const TIME_TO_FIRST_ANSWER_PAINTED: MetricSpec = MetricSpec {
    name: "ttft_meter.client.time_to_first_answer_painted",
    unit: "s",
    description: "Time from the Send click (or the request for scheduled runs) to the first answer text painted on screen (perceived_ttfa_ms).",
    kind: InstrumentKind::Histogram,
    bounds: &PERCEIVED_BOUNDS_S,
};

/// Ours: `ttft_meter.client.paint_delay`: from the arrival of the first text to its paint
/// (`answer_ui_delay_ms`, `reasoning_ui_delay_ms`), with [`attr::PAINT_TARGET`].
pub const PAINT_DELAY: MetricSpec = MetricSpec {
    name: "ttft_meter.client.paint_delay",
    unit: "s",
    description: "Time from the arrival of the first text of a channel to its paint on screen (answer_ui_delay_ms, reasoning_ui_delay_ms).",
    kind: InstrumentKind::Histogram,
    bounds: &PAINT_DELAY_BOUNDS_S,
};

/// Ours: `ttft_meter.client.runs`, a counter of finished runs; with SLOs set, split by
/// [`attr::SLO_MET`], so goodput (the good request fraction) is a ratio of two rates.
pub const RUNS: MetricSpec = MetricSpec {
    name: "ttft_meter.client.runs",
    unit: "{run}",
    description: "Finished runs; with SLOs set, ttft_meter.slo.met says whether a run met every per-run threshold.",
    kind: InstrumentKind::Counter,
    bounds: &[],
};

/// The metric list with `$tokens` (the conventions' token metrics) in their place.
macro_rules! metric_list {
    ($($tokens:expr),*) => {
        &[
            OPERATION_DURATION,
            TIME_TO_FIRST_CHUNK,
            TIME_PER_OUTPUT_CHUNK,
            $($tokens,)*
            TIME_TO_FIRST_TOKEN,
            TIME_TO_FIRST_ANSWER_TOKEN,
            TIME_TO_FIRST_REASONING_TOKEN,
            TIME_TO_FIRST_ANSWER_PAINTED,
            PAINT_DELAY,
            WAIT_PARTS[0],
            WAIT_PARTS[1],
            WAIT_PARTS[2],
            WAIT_PARTS[3],
            WAIT_PARTS[4],
            WAIT_PARTS[5],
            WAIT_PARTS[6],
            WAIT_PARTS[7],
            WAIT_PARTS[8],
            WAIT_PARTS[9],
            WAIT_PARTS[10],
            RUNS,
        ]
    };
}

/// Every metric we send, in the order they appear in a request.
pub const METRICS: &[MetricSpec] = if GEN_AI_0_1 {
    metric_list!(
        OPERATION_INPUT_TOKENS,
        OPERATION_OUTPUT_TOKENS,
        USAGE_INPUT_TOKENS,
        USAGE_OUTPUT_TOKENS,
        USAGE_CACHE_READ_INPUT_TOKENS,
        USAGE_REASONING_OUTPUT_TOKENS
    )
} else {
    metric_list!(TOKEN_USAGE)
};

/// Attribute keys (of data points, spans, events and the resource).
pub mod attr {
    /// `gen_ai.operation.name`: always `chat` here (gen-ai-spans.md; openai.md maps both
    /// Chat Completions and Responses to `chat`, with `openai.api.type` telling them apart).
    pub const GEN_AI_OPERATION_NAME: &str = "gen_ai.operation.name";
    /// `gen_ai.provider.name` (`openai`, `anthropic`, …; see `provider_name`).
    pub const GEN_AI_PROVIDER_NAME: &str = "gen_ai.provider.name";
    /// `gen_ai.request.model`.
    pub const GEN_AI_REQUEST_MODEL: &str = "gen_ai.request.model";
    /// `gen_ai.response.model` (sent only when known).
    pub const GEN_AI_RESPONSE_MODEL: &str = "gen_ai.response.model";
    /// `gen_ai.token.type` (`input` / `output`) on v1.41.0's `gen_ai.client.token.usage`.
    pub const GEN_AI_TOKEN_TYPE: &str = "gen_ai.token.type";
    /// `gen_ai.token.modality` (`text` here) on v0.1.0's usage counters.
    pub const GEN_AI_TOKEN_MODALITY: &str = "gen_ai.token.modality";
    /// `gen_ai.request.stream` (span): always true, we only stream.
    pub const GEN_AI_REQUEST_STREAM: &str = "gen_ai.request.stream";
    /// `gen_ai.request.max_tokens` (span).
    pub const GEN_AI_REQUEST_MAX_TOKENS: &str = "gen_ai.request.max_tokens";
    /// `gen_ai.response.time_to_first_chunk` (span), seconds.
    pub const GEN_AI_RESPONSE_TIME_TO_FIRST_CHUNK: &str = "gen_ai.response.time_to_first_chunk";
    /// `gen_ai.usage.input_tokens` (span).
    pub const GEN_AI_USAGE_INPUT_TOKENS: &str = "gen_ai.usage.input_tokens";
    /// `gen_ai.usage.output_tokens` (span).
    pub const GEN_AI_USAGE_OUTPUT_TOKENS: &str = "gen_ai.usage.output_tokens";
    /// `gen_ai.usage.cache_read.input_tokens` (span).
    pub const GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS: &str = "gen_ai.usage.cache_read.input_tokens";
    /// `gen_ai.usage.cache_write.input_tokens` (span; v1.41.0:
    /// `gen_ai.usage.cache_creation.input_tokens`).
    pub const GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS: &str = super::genai(
        "gen_ai.usage.cache_write.input_tokens",
        "gen_ai.usage.cache_creation.input_tokens",
    );
    /// `gen_ai.usage.reasoning.output_tokens` (span).
    pub const GEN_AI_USAGE_REASONING_OUTPUT_TOKENS: &str = "gen_ai.usage.reasoning.output_tokens";
    /// `gen_ai.input.messages` (span, opt-in only: the prompt).
    pub const GEN_AI_INPUT_MESSAGES: &str = "gen_ai.input.messages";
    /// `openai.api.type` (span, OpenAI protocols): `chat_completions` or `responses`.
    pub const OPENAI_API_TYPE: &str = "openai.api.type";
    /// `server.address`: the endpoint's host.
    pub const SERVER_ADDRESS: &str = "server.address";
    /// `server.port`: the endpoint's port (explicit, or the scheme's default).
    pub const SERVER_PORT: &str = "server.port";
    /// `error.type`: set only when the run failed (see docs/otel.md for the values).
    pub const ERROR_TYPE: &str = "error.type";
    /// `http.response.status_code` (span).
    pub const HTTP_RESPONSE_STATUS_CODE: &str = "http.response.status_code";
    /// `network.protocol.name` (span): `http`, when the browser said which version the
    /// request went over (Resource Timing's `nextHopProtocol`).
    pub const NETWORK_PROTOCOL_NAME: &str = "network.protocol.name";
    /// `network.protocol.version` (span): `1.1`, `2` or `3`.
    pub const NETWORK_PROTOCOL_VERSION: &str = "network.protocol.version";

    /// Resource: `service.name`.
    pub const SERVICE_NAME: &str = "service.name";
    /// Resource: `service.version` (the TTFT Meter version).
    pub const SERVICE_VERSION: &str = "service.version";
    /// Resource: `service.instance.id`, random per page session, so each browser's delta
    /// series are its own (a collector drops interleaved deltas of one series).
    pub const SERVICE_INSTANCE_ID: &str = "service.instance.id";
    /// Resource: `browser.brands` (`navigator.userAgentData.brands`, "Name Version").
    pub const BROWSER_BRANDS: &str = "browser.brands";
    /// Resource: `browser.platform` (`navigator.userAgentData.platform`).
    pub const BROWSER_PLATFORM: &str = "browser.platform";
    /// Resource: `browser.mobile` (`navigator.userAgentData.mobile`).
    pub const BROWSER_MOBILE: &str = "browser.mobile";
    /// Resource: `browser.language` (`navigator.language`).
    pub const BROWSER_LANGUAGE: &str = "browser.language";
    /// Resource: `user_agent.original`, only where client hints are missing (browser.md
    /// note 5).
    pub const USER_AGENT_ORIGINAL: &str = "user_agent.original";
    /// Resource: `user_agent.name` (the browser's name, from the user agent).
    pub const USER_AGENT_NAME: &str = "user_agent.name";
    /// Resource: `user_agent.version` (the browser's version, from the user agent).
    pub const USER_AGENT_VERSION: &str = "user_agent.version";
    /// Resource: `network.connection.type` (`wifi`, `wired`, `cell`, `unavailable`,
    /// `unknown`), from `navigator.connection.type` where a browser has it.
    pub const NETWORK_CONNECTION_TYPE: &str = "network.connection.type";

    /// Ours, resource: the rendering engine (`blink`, `gecko`, `webkit`).
    pub const BROWSER_ENGINE: &str = "ttft_meter.browser.engine";
    /// Ours, resource and our metrics' data points: `navigator.connection.effectiveType`
    /// (`slow-2g`, `2g`, `3g`, `4g`); the conventions have no name for it.
    pub const NETWORK_EFFECTIVE_TYPE: &str = "ttft_meter.network.effective_type";
    /// Ours, resource: `navigator.connection.rtt` (ms, rounded by the browser to 25 ms).
    pub const NETWORK_RTT_MS: &str = "ttft_meter.network.rtt_ms";
    /// Ours, resource: `navigator.connection.downlink` (Mbit/s).
    pub const NETWORK_DOWNLINK_MBPS: &str = "ttft_meter.network.downlink_mbps";
    /// Ours, resource: `location.origin` of the page that measured.
    pub const PAGE_ORIGIN: &str = "ttft_meter.page.origin";
    /// Ours, resource: `crossOriginIsolated` (5 µs timers and unrounded paint times).
    pub const CROSS_ORIGIN_ISOLATED: &str = "ttft_meter.page.cross_origin_isolated";

    /// Ours: `clicked` or `request_started`, what perceived times start from.
    pub const PERCEIVED_FROM: &str = "ttft_meter.perceived_from";
    /// Ours, on `ttft_meter.client.wait.*`: how the part is known (`measured`,
    /// `server_reported`, `estimated`).
    pub const WAIT_SOURCE: &str = "ttft_meter.wait.source";
    /// Ours, span: the verdict on the run's wait (`prompt`, `queue`, `cold_start`, …).
    pub const WAIT_VERDICT: &str = "ttft_meter.wait.verdict";
    /// Ours, span: whether the run's page was cross-origin isolated (its timer step is then
    /// 5 µs, else 100 µs in Chromium and up to 1 ms elsewhere).
    pub const TIMER_ISOLATED: &str = "ttft_meter.timer.cross_origin_isolated";
    /// Ours, span: the page's timer step, ms (the smallest difference `performance.now()`
    /// showed).
    pub const TIMER_STEP_MS: &str = "ttft_meter.timer.step_ms";
    /// Ours: `answer` or `reasoning`, on `ttft_meter.client.paint_delay`.
    pub const PAINT_TARGET: &str = "ttft_meter.paint.target";
    /// Ours, paint events: `presentation_time`, `render_time` or `raf_message_channel`.
    pub const PAINT_METHOD: &str = "ttft_meter.paint.method";
    /// Ours, `ttft_meter.client.runs`: whether the run met every per-run SLO threshold.
    pub const SLO_MET: &str = "ttft_meter.slo.met";
    /// Ours, `ttft_meter.client.runs`: the SLO set, in its canonical text form.
    pub const SLO_SPEC: &str = "ttft_meter.slo.spec";
    /// Ours, span: position of the run in the session.
    pub const RUN_INDEX: &str = "ttft_meter.run.index";
    /// Ours, span: how the run ended (`completed`, `http_error`, …).
    pub const RUN_OUTCOME: &str = "ttft_meter.run.outcome";
    /// Ours, span: the diagnosed cause (`key_refused`, …) of a failed run.
    pub const DIAGNOSIS_CAUSE: &str = "ttft_meter.diagnosis.cause";
    /// Ours, span: a new connection (`true`), a reused one (`false`); absent when unknown.
    /// Through ttft-relay, the relay's connection to the provider.
    pub const CONNECTION_COLD: &str = "ttft_meter.connection.cold";
    /// Ours, our metrics' data points and span: `true` when the run went through
    /// ttft-relay; absent otherwise.
    pub const VIA_RELAY: &str = "ttft_meter.via_relay";
    /// Ours, span: the version ttft-relay gave (`X-TTFT-Relay`).
    pub const RELAY_VERSION: &str = "ttft_meter.relay.version";
    /// Ours, span: the relay's connection to the provider (`new`, `new_shared`,
    /// `preopened`, `reused`).
    pub const RELAY_CONNECTION: &str = "ttft_meter.relay.connection";
    /// Ours, span: the relay's protocol to the provider (`h2`, `http/1.1`).
    pub const RELAY_PROTOCOL: &str = "ttft_meter.relay.protocol";
    /// Ours, span: which side the relay said failed (`upstream_reset`, …).
    pub const RELAY_ERROR: &str = "ttft_meter.relay.error";
    /// Ours, span: `true` when the answer arrived all at once after a long silence (a
    /// buffer between the page and the model); absent otherwise.
    pub const BUFFERED_ARRIVAL: &str = "ttft_meter.buffered_arrival";
    /// Ours, span: a warm-up run (left out of statistics and metrics).
    pub const WARM_UP: &str = "ttft_meter.run.warm_up";
    /// Ours, span: `worker` or `main_thread`.
    pub const TRANSPORT: &str = "ttft_meter.transport";
    /// Ours, span: "TTFT only" mode (stream aborted after the first answer token).
    pub const TTFT_ONLY: &str = "ttft_meter.request.ttft_only";
    /// Ours, span: `ttft_ms` of DESIGN.md §2 (each metric below keeps its name and unit).
    pub const TTFT_MS: &str = "ttft_meter.ttft_ms";
    /// Ours, span: `ttfa_ms`.
    pub const TTFA_MS: &str = "ttft_meter.ttfa_ms";
    /// Ours, span: `ttfr_ms`.
    pub const TTFR_MS: &str = "ttft_meter.ttfr_ms";
    /// Ours, span: `first_chunk_ms`.
    pub const FIRST_CHUNK_MS: &str = "ttft_meter.first_chunk_ms";
    /// Ours, span: `setup_ms`.
    pub const SETUP_MS: &str = "ttft_meter.setup_ms";
    /// Ours, span: `perceived_ttft_ms`.
    pub const PERCEIVED_TTFT_MS: &str = "ttft_meter.perceived_ttft_ms";
    /// Ours, span: `perceived_ttfa_ms`.
    pub const PERCEIVED_TTFA_MS: &str = "ttft_meter.perceived_ttfa_ms";
    /// Ours, span: `answer_ui_delay_ms`.
    pub const ANSWER_UI_DELAY_MS: &str = "ttft_meter.answer_ui_delay_ms";
    /// Ours, span: `reasoning_ui_delay_ms`.
    pub const REASONING_UI_DELAY_MS: &str = "ttft_meter.reasoning_ui_delay_ms";
    /// Ours, span: `e2e_ms`.
    pub const E2E_MS: &str = "ttft_meter.e2e_ms";
    /// Ours, span: `itl_ms`.
    pub const ITL_MS: &str = "ttft_meter.itl_ms";
    /// Ours, span: `output_tps` (tokens/s).
    pub const OUTPUT_TPS: &str = "ttft_meter.output_tps";
    /// Ours, span: set when the opt-in prompt text was cut to the size limit.
    pub const PROMPT_TRUNCATED: &str = "ttft_meter.prompt.truncated";
}

/// Span event names (ours: the conventions define no first-token events in v1.41.0).
pub mod event {
    /// First event carrying reasoning text arrived.
    pub const FIRST_REASONING_TOKEN: &str = "ttft_meter.first_reasoning_token";
    /// First event carrying answer text arrived.
    pub const FIRST_ANSWER_TOKEN: &str = "ttft_meter.first_answer_token";
    /// First reasoning text presented on screen.
    pub const FIRST_REASONING_PAINTED: &str = "ttft_meter.first_reasoning_painted";
    /// First visible answer text presented on screen.
    pub const FIRST_ANSWER_PAINTED: &str = "ttft_meter.first_answer_painted";
}

/// Values of [`attr::GEN_AI_OPERATION_NAME`].
pub const OPERATION_CHAT: &str = "chat";

/// Values of [`attr::GEN_AI_TOKEN_TYPE`].
pub mod token_type {
    /// Input (prompt) tokens.
    pub const INPUT: &str = "input";
    /// Output (completion) tokens, reasoning included.
    pub const OUTPUT: &str = "output";
}
