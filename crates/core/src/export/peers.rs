//! Our metric names next to the names AIPerf and GuideLLM give the same (or the nearest)
//! quantity, for users comparing numbers across tools. docs/export-schema.md prints this
//! table; the CSV can carry it as extra header rows ([`CsvHeader::WithPeerNames`]).
//!
//! A peer name is given only when the peer measures the same interval; `note` says where
//! the definitions still differ (window ends, token counts, units). AIPerf names are its
//! metric tags (`profile_export_aiperf.json`, ms); GuideLLM names are the fields of its
//! per-request stats and benchmark report (`*_ms` in ms, `request_latency` in seconds).
//!
//! [`CsvHeader::WithPeerNames`]: super::CsvHeader::WithPeerNames

/// What AIPerf and GuideLLM call one of our metrics.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PeerNames {
    /// AIPerf's metric tag, when it has the same metric.
    pub aiperf: Option<&'static str>,
    /// GuideLLM's field name, when it has the same metric.
    pub guidellm: Option<&'static str>,
    /// Where the definitions differ, or what the metric is when no peer has it.
    pub note: &'static str,
}

const fn peers(
    aiperf: Option<&'static str>,
    guidellm: Option<&'static str>,
    note: &'static str,
) -> PeerNames {
    PeerNames {
        aiperf,
        guidellm,
        note,
    }
}

/// Every metric of a run (the fields of [`RunMetrics`](crate::timeline::RunMetrics) and the
/// network phases of [`NetworkBreakdown`](crate::timeline::NetworkBreakdown)) with its
/// peers' names, in the CSV's order.
pub const PEER_NAMES: [(&str, PeerNames); 30] = [
    ("ttft_ms", peers(Some("time_to_first_token"), Some("time_to_first_token_ms"),
        "Same interval: request sent to the first non-empty reasoning or answer token.")),
    ("ttfa_ms", peers(Some("time_to_first_output_token"), Some("time_to_first_output_token_ms"),
        "Same interval: request sent to the first answer (non-reasoning) token.")),
    ("ttfa_visible_ms", peers(None, None,
        "First answer text that is not only whitespace; no peer separates it.")),
    ("ttfr_ms", peers(None, None, "First reasoning token.")),
    ("first_chunk_ms", peers(None, None,
        "First SSE event of any kind; what vLLM's bench and naive scripts call TTFT.")),
    ("setup_ms", peers(Some("stream_setup_latency"), None,
        "Request sent to response headers.")),
    ("perceived_ttft_ms", peers(None, None,
        "Ours: click to first token painted on screen.")),
    ("perceived_ttfa_ms", peers(None, None,
        "Ours: click to first answer painted on screen.")),
    ("perceived_from", peers(None, None,
        "Not a measurement: which instant the perceived metrics start from.")),
    ("reasoning_ui_delay_ms", peers(None, None, "Ours: arrival to paint of reasoning.")),
    ("answer_ui_delay_ms", peers(None, None, "Ours: arrival to paint of the answer.")),
    ("reasoning_ms", peers(None, None, "First reasoning token to first answer token.")),
    ("decode_ms", peers(Some("decode_duration"), None,
        "Ours ends at the last text token; AIPerf's at the last response (request_latency − TTFT).")),
    ("e2e_ms", peers(Some("request_latency"), Some("request_latency"),
        "Request sent to stream end. GuideLLM reports request_latency in seconds, not ms.")),
    ("itl_gaps_ms", peers(Some("inter_chunk_latency"), None,
        "Every gap between text-carrying chunks (a distribution, not a mean).")),
    ("itl_ms", peers(Some("inter_token_latency"), Some("inter_token_latency_ms"),
        "(last − first token) / (n − 1). AIPerf's window ends at the last response, not the last token.")),
    ("output_tokens_counted", peers(None, None,
        "Not a measurement: the n used for itl_ms and output_tps.")),
    ("token_count_source", peers(None, None,
        "Not a measurement: whether n came from usage or from counting chunks.")),
    ("output_tps", peers(Some("output_token_throughput_per_user"), None,
        "Ours is n / decode time; AIPerf's is 1 / ITL = (n − 1) / decode time. GuideLLM's output_tokens_per_second divides by the whole request latency: a different quantity.")),
    ("http_status", peers(None, None, "Not a measurement: the HTTP status.")),
    ("prompt_tokens", peers(Some("input_sequence_length"), Some("prompt_tokens"),
        "Ours from the provider's usage; AIPerf counts with its own tokenizer.")),
    ("cached_prompt_tokens", peers(None, None,
        "Prompt tokens served from the provider's prefix cache (usage).")),
    ("output_tokens", peers(Some("output_sequence_length"), Some("output_tokens"),
        "From usage, reasoning included where the provider counts it there (AIPerf's output_token_count excludes reasoning).")),
    ("reasoning_tokens", peers(Some("reasoning_token_count"), None, "From usage.")),
    ("dns_ms", peers(None, None, "Resource Timing: DNS lookup.")),
    ("tcp_ms", peers(None, None, "Resource Timing: TCP handshake.")),
    ("tls_ms", peers(None, None, "Resource Timing: TLS handshake.")),
    ("queueing_ms", peers(None, None,
        "Resource Timing: browser queueing (requestStart − fetchStart).")),
    ("waiting_ms", peers(None, None,
        "Resource Timing: waiting for the server (responseStart − requestStart).")),
    ("request_ms", peers(None, None,
        "Resource Timing: fetchStart to the first response byte.")),
];

/// The peers' names for one of our metrics; `None` when `metric` is not a metric name.
pub fn peer_names(metric: &str) -> Option<PeerNames> {
    PEER_NAMES
        .iter()
        .find(|(name, _)| *name == metric)
        .map(|(_, names)| *names)
}
