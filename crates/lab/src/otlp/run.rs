//! What OTLP says about one run: its common attributes, its error type, when the operation
//! ended, and the values of every metric. Both the metrics and the traces builders read a
//! run only through here.

use ttft_core::failure::NetworkFailure;
use ttft_core::protocol::Protocol;
use ttft_core::record::RunRecord;
use ttft_core::timeline::{PerceivedAnchor, RunOutcome, WaitPart};

use super::json::Attributes;
use super::names::{attr, token_type, GenAiConventions, MetricSpec, OPERATION_CHAT};
use super::names::{
    GEN_AI_CONVENTIONS, OPERATION_DURATION, OPERATION_INPUT_TOKENS, OPERATION_OUTPUT_TOKENS,
    PAINT_DELAY, TIME_PER_OUTPUT_CHUNK, TIME_TO_FIRST_ANSWER_PAINTED, TIME_TO_FIRST_ANSWER_TOKEN,
    TIME_TO_FIRST_CHUNK, TIME_TO_FIRST_REASONING_TOKEN, TIME_TO_FIRST_TOKEN, TOKEN_USAGE,
    USAGE_CACHE_READ_INPUT_TOKENS, USAGE_INPUT_TOKENS, USAGE_OUTPUT_TOKENS,
    USAGE_REASONING_OUTPUT_TOKENS, WAIT_PARTS,
};

/// Scheme, host and port of a URL, as `server.address` / `server.port` want them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerAddress {
    /// `http` or `https` (lowercase).
    pub scheme: String,
    /// The host, lowercase, IPv6 without brackets (`api.openai.com`, `127.0.0.1`, `::1`).
    pub host: String,
    /// The explicit port, else the scheme's default (443 for https, 80 for http).
    pub port: u16,
}

impl ServerAddress {
    /// Parses an absolute http(s) URL; `None` for anything else.
    pub fn from_url(url: &str) -> Option<ServerAddress> {
        let (scheme, rest) = url.trim().split_once("://")?;
        let scheme = scheme.to_ascii_lowercase();
        let default_port = match scheme.as_str() {
            "https" => 443,
            "http" => 80,
            _ => return None,
        };
        let authority = rest.split(['/', '?', '#']).next()?;
        let authority = authority.rsplit('@').next()?;
        let (host, port) = if let Some(bracketed) = authority.strip_prefix('[') {
            let (host, after) = bracketed.split_once(']')?;
            (host, after.strip_prefix(':'))
        } else {
            match authority.split_once(':') {
                Some((host, port)) => (host, Some(port)),
                None => (authority, None),
            }
        };
        if host.is_empty() {
            return None;
        }
        let port = match port {
            Some(port) => port.parse().ok()?,
            None => default_port,
        };
        Some(ServerAddress {
            scheme,
            host: host.to_ascii_lowercase(),
            port,
        })
    }

    /// Whether the host is this machine (`localhost`, `127.x`, `::1`).
    pub fn is_loopback(&self) -> bool {
        self.host == "localhost"
            || self.host.ends_with(".localhost")
            || self.host.starts_with("127.")
            || self.host == "::1"
    }
}

/// `gen_ai.provider.name` for an endpoint: the conventions' well-known value for the hosts of
/// the providers they list, else the protocol's flavor (`openai` for OpenAI-compatible
/// servers such as vLLM, SGLang, llama.cpp or Ollama, `anthropic` for Anthropic-style ones).
/// The conventions define the attribute as the telemetry flavor "as identified by the client",
/// and `server.address` tells the actual servers apart. An embedder can override it
/// ([`super::ExportOptions::provider_name`]).
pub fn provider_name(protocol: Protocol, host: &str) -> &'static str {
    let host = host.to_ascii_lowercase();
    let is = |domain: &str| host == domain || host.ends_with(&format!(".{domain}"));
    if is("openai.azure.com") {
        "azure.ai.openai"
    } else if is("openai.com") {
        "openai"
    } else if is("anthropic.com") {
        "anthropic"
    } else if is("deepseek.com") {
        "deepseek"
    } else if is("groq.com") {
        "groq"
    } else if is("mistral.ai") {
        "mistral_ai"
    } else if is("x.ai") {
        "x_ai"
    } else if is("perplexity.ai") {
        "perplexity"
    } else if is("cohere.com") || is("cohere.ai") {
        "cohere"
    } else if host == "generativelanguage.googleapis.com" {
        "gcp.gemini"
    } else if host.ends_with("aiplatform.googleapis.com") {
        "gcp.vertex_ai"
    } else if host.starts_with("bedrock-runtime.") && host.ends_with(".amazonaws.com") {
        "aws.bedrock"
    } else {
        match protocol {
            Protocol::OpenAiChat | Protocol::OpenAiResponses => "openai",
            Protocol::AnthropicMessages => "anthropic",
        }
    }
}

/// `error.type` of a run: `None` when it succeeded. The values (docs/otel.md):
/// the HTTP status for an HTTP error (`401`, `429`, `500`, as the HTTP conventions do); for
/// network failures `network_error` (refused, DNS, CORS: the browser cannot tell), `timeout`
/// or `aborted` (Stop pressed); the provider's error type for an error inside the stream
/// (`overloaded_error`; `stream_error` when it gave none or an odd one); and
/// `malformed_chunk`, `empty_stream`, `ended_without_terminal`.
pub fn error_type(outcome: &RunOutcome) -> Option<String> {
    match outcome {
        RunOutcome::Completed
        | RunOutcome::StoppedAfterFirstAnswer
        | RunOutcome::Streaming
        | RunOutcome::NotSent => None,
        RunOutcome::HttpError { status } => Some(status.to_string()),
        RunOutcome::NetworkFailure { failure } => Some(
            match failure {
                NetworkFailure::NetworkError => "network_error",
                NetworkFailure::Timeout => "timeout",
                NetworkFailure::Aborted => "aborted",
                NetworkFailure::Redirected => "redirected",
            }
            .to_owned(),
        ),
        RunOutcome::StreamError { error } => Some(
            error
                .kind
                .as_deref()
                .filter(|kind| is_low_cardinality_code(kind))
                .unwrap_or("stream_error")
                .to_owned(),
        ),
        other => Some(other.code().to_owned()),
    }
}

/// A short identifier-like code (letters, digits, `_ . -`, at most 64 bytes): safe as a
/// low-cardinality attribute value. Anything else (a sentence, an id) is not.
fn is_low_cardinality_code(text: &str) -> bool {
    !text.is_empty()
        && text.len() <= 64
        && text
            .bytes()
            .all(|byte| byte.is_ascii_alphanumeric() || matches!(byte, b'_' | b'.' | b'-'))
}

/// Whether a run is exported at all: it was sent and it has ended.
pub(crate) fn is_exportable(record: &RunRecord) -> bool {
    !matches!(record.outcome, RunOutcome::NotSent | RunOutcome::Streaming)
}

/// When the operation ended (ms, page clock): the stream end when there was one, else the
/// last instant the run recorded (headers of an HTTP error, the last token of a "TTFT only"
/// run, the malformed chunk). `None` when nothing after the request was recorded (a
/// network failure before any response): the record has no instant for it.
pub(crate) fn operation_end_ms(record: &RunRecord) -> Option<f64> {
    let instants = &record.instants;
    if let Some(finished) = instants.finished {
        return Some(finished);
    }
    let malformed_at = match &record.outcome {
        RunOutcome::MalformedChunk { at_ms, .. } => Some(*at_ms),
        _ => None,
    };
    [
        instants.headers_received,
        instants.first_byte,
        instants.first_event,
        instants.first_reasoning,
        instants.first_answer,
        instants.first_answer_visible,
        instants.last_token,
        malformed_at,
    ]
    .into_iter()
    .flatten()
    .filter(|at| at.is_finite())
    .reduce(f64::max)
}

/// The attributes every signal of a run carries: operation, provider, request model, server
/// address and port.
pub(crate) fn base_attributes(record: &RunRecord, provider_override: Option<&str>) -> Attributes {
    let server = ServerAddress::from_url(&record.settings.endpoint_url);
    let provider = provider_override.map(str::to_owned).unwrap_or_else(|| {
        provider_name(
            record.settings.protocol,
            server.as_ref().map_or("", |server| server.host.as_str()),
        )
        .to_owned()
    });
    let mut attributes = Attributes::new();
    attributes
        .str(attr::GEN_AI_OPERATION_NAME, OPERATION_CHAT)
        .str(attr::GEN_AI_PROVIDER_NAME, provider)
        .str(attr::GEN_AI_REQUEST_MODEL, record.settings.model.clone());
    if let Some(server) = server {
        attributes
            .str(attr::SERVER_ADDRESS, server.host)
            .int(attr::SERVER_PORT, i64::from(server.port));
    }
    attributes
}

/// `clicked` or `request_started`.
pub(crate) fn perceived_from_code(anchor: PerceivedAnchor) -> &'static str {
    match anchor {
        PerceivedAnchor::Clicked => "clicked",
        PerceivedAnchor::RequestStarted => "request_started",
    }
}

/// One value of one metric, with the attributes of its data point.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Observation {
    /// Which metric.
    pub(crate) metric: MetricSpec,
    /// The data point's attributes.
    pub(crate) attributes: Attributes,
    /// The value in the metric's unit (seconds or tokens).
    pub(crate) value: f64,
    /// How many times it was observed (inter-token gaps come as histogram bins).
    pub(crate) times: u64,
}

/// Seconds from milliseconds.
fn seconds(ms: f64) -> f64 {
    ms / 1000.0
}

/// Every histogram observation of one run (the run counter is added by the builder, which
/// knows the SLOs). Warm-up runs and runs that were never sent give none. `effective_type`
/// is `navigator.connection.effectiveType` when known, put on our own metrics so they can be
/// grouped by network type without a join.
pub(crate) fn observations(
    record: &RunRecord,
    provider_override: Option<&str>,
    effective_type: Option<&str>,
) -> Vec<Observation> {
    if record.warm_up || !is_exportable(record) {
        return Vec::new();
    }
    let base = base_attributes(record, provider_override);
    let metrics = &record.metrics;
    let mut out = Vec::new();
    let mut push = |metric: MetricSpec, attributes: &Attributes, value: Option<f64>| {
        if let Some(value) = value.filter(|value| value.is_finite() && *value >= 0.0) {
            out.push(Observation {
                metric,
                attributes: attributes.clone(),
                value,
                times: 1,
            });
        }
    };

    let mut with_error = base.clone();
    with_error.opt_str(attr::ERROR_TYPE, error_type(&record.outcome).as_deref());
    // A "TTFT only" run was cut on purpose after its first answer token: its length says
    // nothing about the operation's duration.
    // The record's own e2e_ms when the stream ended (the same number as in exports, to the
    // bit); else up to the last thing that happened (a failed run).
    let duration_ms = metrics.e2e_ms.or_else(|| {
        operation_end_ms(record)
            .filter(|_| record.outcome != RunOutcome::StoppedAfterFirstAnswer)
            .map(|end| end - record.instants.request_started)
    });
    push(OPERATION_DURATION, &with_error, duration_ms.map(seconds));
    push(
        TIME_TO_FIRST_CHUNK,
        &base,
        metrics.first_chunk_ms.map(seconds),
    );
    // One observation per chunk gap, from the run's histogram of gaps (bin value × count).
    let chunk_gaps = base.clone();
    if let Some(usage) = &record.usage {
        let tokens = |count: Option<u64>| count.map(|count| count as f64);
        match GEN_AI_CONVENTIONS {
            GenAiConventions::V1_41_0 => {
                for (kind, count) in [
                    (token_type::INPUT, usage.prompt_tokens),
                    (token_type::OUTPUT, usage.output_tokens),
                ] {
                    let mut attributes = base.clone();
                    attributes.str(attr::GEN_AI_TOKEN_TYPE, kind);
                    push(TOKEN_USAGE, &attributes, tokens(count));
                }
            }
            GenAiConventions::GenAi0_1_0 => {
                push(
                    OPERATION_INPUT_TOKENS,
                    &with_error,
                    tokens(usage.prompt_tokens),
                );
                push(
                    OPERATION_OUTPUT_TOKENS,
                    &with_error,
                    tokens(usage.output_tokens),
                );
                let mut text = base.clone();
                text.str(attr::GEN_AI_TOKEN_MODALITY, "text");
                for (metric, count) in [
                    (USAGE_INPUT_TOKENS, usage.prompt_tokens),
                    (USAGE_OUTPUT_TOKENS, usage.output_tokens),
                    (USAGE_CACHE_READ_INPUT_TOKENS, usage.cached_prompt_tokens),
                    (USAGE_REASONING_OUTPUT_TOKENS, usage.reasoning_tokens),
                ] {
                    push(metric, &text, tokens(count));
                }
            }
        }
    }

    let mut ours = base;
    ours.opt_str(attr::NETWORK_EFFECTIVE_TYPE, effective_type);
    ours.opt_bool(attr::VIA_RELAY, record.via_relay().then_some(true));
    push(TIME_TO_FIRST_TOKEN, &ours, metrics.ttft_ms.map(seconds));
    push(
        TIME_TO_FIRST_ANSWER_TOKEN,
        &ours,
        metrics.ttfa_ms.map(seconds),
    );
    push(
        TIME_TO_FIRST_REASONING_TOKEN,
        &ours,
        metrics.ttfr_ms.map(seconds),
    );
    let mut painted = ours.clone();
    painted.str(
        attr::PERCEIVED_FROM,
        perceived_from_code(metrics.perceived_from),
    );
    push(
        TIME_TO_FIRST_ANSWER_PAINTED,
        &painted,
        metrics.perceived_ttfa_ms.map(seconds),
    );
    for (target, delay_ms) in [
        ("answer", metrics.answer_ui_delay_ms),
        ("reasoning", metrics.reasoning_ui_delay_ms),
    ] {
        let mut attributes = ours.clone();
        attributes.str(attr::PAINT_TARGET, target);
        push(PAINT_DELAY, &attributes, delay_ms.map(seconds));
    }
    // Where the wait went: each part's time, with how it is known.
    if let Some(breakdown) = &record.breakdown {
        for (part, metric) in WaitPart::ALL.into_iter().zip(WAIT_PARTS) {
            let Some(source) = breakdown.source(part) else {
                continue;
            };
            let mut attributes = ours.clone();
            attributes.str(attr::WAIT_SOURCE, source.code());
            push(metric, &attributes, breakdown.ms(part).map(seconds));
        }
    }
    for (gap_ms, times) in metrics.itl_gaps.histogram() {
        out.push(Observation {
            metric: TIME_PER_OUTPUT_CHUNK,
            attributes: chunk_gaps.clone(),
            value: seconds(gap_ms),
            times,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn server_address_takes_the_explicit_port_or_the_schemes_default() {
        let cases = [
            (
                "https://api.openai.com/v1/chat/completions",
                "api.openai.com",
                443,
            ),
            (
                "http://127.0.0.1:8787/v1/chat/completions",
                "127.0.0.1",
                8787,
            ),
            ("http://LOCALHOST/v1", "localhost", 80),
            ("http://[::1]:11434/v1/chat/completions", "::1", 11434),
            ("https://user:pw@Example.com:8443?x=1", "example.com", 8443),
        ];
        for (url, host, port) in cases {
            let server = ServerAddress::from_url(url).unwrap();
            assert_eq!((server.host.as_str(), server.port), (host, port), "{url}");
        }
        assert_eq!(ServerAddress::from_url("ftp://example.com/"), None);
        assert_eq!(ServerAddress::from_url("https:///v1"), None);
        assert_eq!(ServerAddress::from_url("http://host:99999/"), None);
    }

    #[test]
    fn provider_names_are_the_conventions_well_known_values() {
        let cases = [
            (Protocol::OpenAiChat, "api.openai.com", "openai"),
            (Protocol::OpenAiResponses, "api.openai.com", "openai"),
            (
                Protocol::OpenAiChat,
                "myres.openai.azure.com",
                "azure.ai.openai",
            ),
            (
                Protocol::AnthropicMessages,
                "api.anthropic.com",
                "anthropic",
            ),
            (Protocol::OpenAiChat, "api.deepseek.com", "deepseek"),
            (Protocol::OpenAiChat, "api.mistral.ai", "mistral_ai"),
            (
                Protocol::OpenAiChat,
                "generativelanguage.googleapis.com",
                "gcp.gemini",
            ),
            (Protocol::OpenAiChat, "127.0.0.1", "openai"),
            (Protocol::AnthropicMessages, "gateway.example", "anthropic"),
            (Protocol::OpenAiChat, "notopenai.com", "openai"),
        ];
        for (protocol, host, expected) in cases {
            assert_eq!(provider_name(protocol, host), expected, "{host}");
        }
    }

    #[test]
    fn error_types_are_low_cardinality_codes() {
        use ttft_stream::dialect::StreamError;
        assert_eq!(error_type(&RunOutcome::Completed), None);
        assert_eq!(
            error_type(&RunOutcome::HttpError { status: 429 }).as_deref(),
            Some("429")
        );
        assert_eq!(
            error_type(&RunOutcome::NetworkFailure {
                failure: NetworkFailure::Timeout
            })
            .as_deref(),
            Some("timeout")
        );
        let stream_error = |kind: Option<&str>| RunOutcome::StreamError {
            error: StreamError {
                kind: kind.map(str::to_owned),
                message: "busy".into(),
                raw: serde_json::Value::Null,
            },
        };
        assert_eq!(
            error_type(&stream_error(Some("overloaded_error"))).as_deref(),
            Some("overloaded_error")
        );
        assert_eq!(
            error_type(&stream_error(Some("The server is overloaded, retry"))).as_deref(),
            Some("stream_error")
        );
        assert_eq!(
            error_type(&stream_error(None)).as_deref(),
            Some("stream_error")
        );
        assert_eq!(
            error_type(&RunOutcome::EmptyStream).as_deref(),
            Some("empty_stream")
        );
    }
}
