//! The metric catalogue: every metric of a run once, with its unit, its label (a [`Text`]
//! of the crate's text catalogue, `METRIC_LABEL_…`), how to read it from a [`RunRecord`],
//! where the runs table shows it, and what AIPerf and GuideLLM call the same (or the
//! nearest) quantity.
//!
//! The runs table, the CSV (its metric columns and its peer-name header rows), the lab's
//! summary table, the runs chart's series, the share links' summary rows and
//! docs/export-schema.md (checked by a test) all come from [`METRICS`]: a new metric is one
//! entry here (its [`Shown`] says where else than the runs table and the CSV it appears).
//!
//! A peer name is given only when the peer measures the same interval; `note` says where
//! the definitions still differ (window ends, token counts, units). AIPerf names are its
//! metric tags (`profile_export_aiperf.json`, ms); GuideLLM names are the fields of its
//! per-request stats and benchmark report (`*_ms` in ms, `request_latency` in seconds).

use serde::Serialize;

use crate::lang::Lang;
use crate::record::RunRecord;
use crate::text::Text;
use crate::texts as t;
use crate::timeline::NetworkBreakdown;

/// What a metric's number counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// Milliseconds.
    Ms,
    /// Output tokens per second.
    TokensPerSecond,
    /// Tokens.
    Tokens,
    /// Not a quantity: a status or a code that qualifies the others.
    Label,
}

/// One metric's value in one run.
#[derive(Debug, Clone, PartialEq)]
pub enum Reading {
    /// A measured number (ms, tokens/s); `None`: not measured.
    Number(Option<f64>),
    /// A count (tokens, HTTP status); `None`: not reported.
    Integer(Option<u64>),
    /// A code (`usage`, `clicked`); `None`: not known.
    Code(Option<String>),
    /// A distribution (the inter-token gaps): too long for a cell.
    Series(Vec<f64>),
}

impl Reading {
    /// The value as a number, when it is one.
    pub fn number(&self) -> Option<f64> {
        match self {
            Reading::Number(value) => *value,
            Reading::Integer(value) => value.map(|value| value as f64),
            Reading::Code(_) | Reading::Series(_) => None,
        }
    }

    /// The CSV cell: 3 decimals for numbers (microseconds), integers and codes as they are,
    /// empty when not measured; `None` for a series, which has no column.
    pub fn csv_cell(&self) -> Option<String> {
        match self {
            Reading::Number(value) => Some(value.map(|v| format!("{v:.3}")).unwrap_or_default()),
            Reading::Integer(value) => Some(value.map(|v| v.to_string()).unwrap_or_default()),
            Reading::Code(value) => Some(value.clone().unwrap_or_default()),
            Reading::Series(_) => None,
        }
    }

    /// The runs table's cell: 1 decimal for numbers, "—" when not measured.
    pub fn table_cell(&self) -> String {
        match self {
            Reading::Number(Some(value)) => format!("{value:.1}"),
            Reading::Integer(Some(value)) => value.to_string(),
            Reading::Code(Some(code)) => code.clone(),
            Reading::Series(values) => values.len().to_string(),
            _ => "—".to_owned(),
        }
    }
}

/// Where the runs table shows a metric.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Column {
    /// Always.
    Main,
    /// With "More columns".
    More,
    /// Not in the table (exports only).
    Hidden,
}

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

/// Where a metric appears besides the runs table ([`Column`]) and the CSV (every metric
/// that is not a series).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shown {
    /// A row of the lab's summary table (p50 … n by cohort, from [`RunsSummary::get`]).
    ///
    /// [`RunsSummary::get`]: crate::timeline::RunsSummary::get
    pub summary: bool,
    /// A series of the runs chart: its CSS class and its legend.
    pub runs_chart: Option<(&'static str, Text)>,
    /// A summary row of a share link's view (a link carries this metric of every run).
    pub shared: bool,
}

impl Shown {
    /// Only the runs table and the CSV.
    const TABLE: Shown = Shown {
        summary: false,
        runs_chart: None,
        shared: false,
    };
}

/// One metric of the catalogue.
#[derive(Debug, Clone, Copy)]
pub struct Metric {
    /// The name of DESIGN.md §2, used in the UI, exports and tests (`ttfa_ms`).
    pub name: &'static str,
    /// What the number counts.
    pub unit: Unit,
    /// A short label.
    pub label: Text,
    /// Where the runs table shows it.
    pub column: Column,
    /// The peers' names.
    pub peers: PeerNames,
    /// A distribution ([`Reading::Series`]) rather than one value: no CSV cell, no table cell.
    pub series: bool,
    /// Where else it appears.
    pub shown: Shown,
    read: fn(&RunRecord) -> Reading,
}

impl Metric {
    /// This metric's value in `record`.
    pub fn read(&self, record: &RunRecord) -> Reading {
        (self.read)(record)
    }

    /// The label in `lang`.
    pub fn label(&self, lang: Lang) -> &'static str {
        self.label.get(lang)
    }

    /// The runs chart's legend for this metric (`ttfa (first answer token)`); its label
    /// when it is not on the runs chart.
    pub fn legend(&self, lang: Lang) -> &'static str {
        self.shown
            .runs_chart
            .map_or(self.label, |(_, legend)| legend)
            .get(lang)
    }

    /// Also a row of the lab's summary table.
    const fn in_summary(mut self) -> Metric {
        self.shown.summary = true;
        self
    }

    /// Also a series of the runs chart, drawn with `class`, its legend `legend`.
    const fn on_runs_chart(mut self, class: &'static str, legend: Text) -> Metric {
        self.shown.runs_chart = Some((class, legend));
        self
    }

    /// Also carried by share links, with a summary row in their view.
    const fn shared(mut self) -> Metric {
        self.shown.shared = true;
        self
    }
}

/// The rows of the lab's summary table, in catalogue order.
pub fn summary_metrics() -> impl Iterator<Item = &'static Metric> {
    METRICS.iter().filter(|metric| metric.shown.summary)
}

/// The runs chart's series, in catalogue order, with their CSS class.
pub fn runs_chart_metrics() -> impl Iterator<Item = (&'static Metric, &'static str)> {
    METRICS
        .iter()
        .filter_map(|metric| Some((metric, metric.shown.runs_chart?.0)))
}

/// The metrics a share link carries, in catalogue order.
pub fn shared_metrics() -> impl Iterator<Item = &'static Metric> {
    METRICS.iter().filter(|metric| metric.shown.shared)
}

/// A metric by name.
pub fn find(name: &str) -> Option<&'static Metric> {
    METRICS.iter().find(|metric| metric.name == name)
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

fn ms(value: Option<f64>) -> Reading {
    Reading::Number(value)
}

fn network(record: &RunRecord, pick: fn(&NetworkBreakdown) -> Option<f64>) -> Reading {
    Reading::Number(record.network.as_ref().and_then(pick))
}

/// The serialized name of an enum value, as in the JSON export.
fn code<T: Serialize>(value: Option<&T>) -> Reading {
    Reading::Code(
        value
            .and_then(|v| serde_json::to_value(v).ok())
            .and_then(|v| v.as_str().map(str::to_owned)),
    )
}

macro_rules! metric {
    ($name:literal, $unit:ident, $label:expr, $column:ident, $peers:expr, $read:expr) => {
        Metric {
            name: $name,
            unit: Unit::$unit,
            label: $label,
            column: Column::$column,
            peers: $peers,
            series: false,
            shown: Shown::TABLE,
            read: $read,
        }
    };
}

/// Every metric of a run, in the order of the runs table and the CSV.
pub const METRICS: &[Metric] = &[
    metric!("http_status", Label, t::METRIC_LABEL_HTTP_STATUS, Hidden,
        peers(None, None, "Not a measurement: the HTTP status."),
        |r| Reading::Integer(r.metrics.http_status.map(u64::from))),
    metric!("ttft_ms", Ms, t::METRIC_LABEL_TTFT_MS, Main,
        peers(Some("time_to_first_token"), Some("time_to_first_token_ms"),
            "Same interval: request sent to the first non-empty reasoning or answer token."),
        |r| ms(r.metrics.ttft_ms)).in_summary().on_runs_chart("series-ttft", t::RUNS_CHART_LEGEND_TTFT).shared(),
    metric!("ttfa_ms", Ms, t::METRIC_LABEL_TTFA_MS, Main,
        peers(Some("time_to_first_output_token"), Some("time_to_first_output_token_ms"),
            "Same interval: request sent to the first answer (non-reasoning) token."),
        |r| ms(r.metrics.ttfa_ms)).in_summary().on_runs_chart("series-ttfa", t::RUNS_CHART_LEGEND_TTFA).shared(),
    metric!("ttfa_visible_ms", Ms, t::METRIC_LABEL_TTFA_VISIBLE_MS, More,
        peers(None, None, "First answer text that is not only whitespace; no peer separates it."),
        |r| ms(r.metrics.ttfa_visible_ms)),
    metric!("ttfr_ms", Ms, t::METRIC_LABEL_TTFR_MS, Main,
        peers(None, None, "First reasoning token."),
        |r| ms(r.metrics.ttfr_ms)).shared(),
    metric!("first_chunk_ms", Ms, t::METRIC_LABEL_FIRST_CHUNK_MS, Main,
        peers(None, None,
            "First SSE event of any kind; what vLLM's bench and naive scripts call TTFT."),
        |r| ms(r.metrics.first_chunk_ms)).shared(),
    metric!("setup_ms", Ms, t::METRIC_LABEL_SETUP_MS, More,
        peers(Some("stream_setup_latency"), None, "Request sent to response headers."),
        |r| ms(r.metrics.setup_ms)),
    metric!("perceived_ttft_ms", Ms, t::METRIC_LABEL_PERCEIVED_TTFT_MS, More,
        peers(None, None, "Ours: click to first token painted on screen."),
        |r| ms(r.metrics.perceived_ttft_ms)),
    metric!("perceived_ttfa_ms", Ms, t::METRIC_LABEL_PERCEIVED_TTFA_MS, Main,
        peers(None, None, "Ours: click to first answer painted on screen."),
        |r| ms(r.metrics.perceived_ttfa_ms)).in_summary().on_runs_chart("series-perceived", t::RUNS_CHART_LEGEND_PERCEIVED_TTFA).shared(),
    metric!("perceived_from", Label, t::METRIC_LABEL_PERCEIVED_FROM, Hidden,
        peers(None, None, "Not a measurement: which instant the perceived metrics start from."),
        |r| code(Some(&r.metrics.perceived_from))),
    metric!("reasoning_ui_delay_ms", Ms, t::METRIC_LABEL_REASONING_UI_DELAY_MS, Hidden,
        peers(None, None, "Ours: arrival to paint of reasoning."),
        |r| ms(r.metrics.reasoning_ui_delay_ms)),
    metric!("answer_ui_delay_ms", Ms, t::METRIC_LABEL_ANSWER_UI_DELAY_MS, More,
        peers(None, None, "Ours: arrival to paint of the answer."),
        |r| ms(r.metrics.answer_ui_delay_ms)),
    metric!("reasoning_ms", Ms, t::METRIC_LABEL_REASONING_MS, More,
        peers(None, None, "First reasoning token to first answer token."),
        |r| ms(r.metrics.reasoning_ms)),
    metric!("decode_ms", Ms, t::METRIC_LABEL_DECODE_MS, More,
        peers(Some("decode_duration"), None,
            "Ours ends at the last text token; AIPerf's at the last response (request_latency − TTFT)."),
        |r| ms(r.metrics.decode_ms)),
    metric!("e2e_ms", Ms, t::METRIC_LABEL_E2E_MS, Main,
        peers(Some("request_latency"), Some("request_latency"),
            "Request sent to stream end. GuideLLM reports request_latency in seconds, not ms."),
        |r| ms(r.metrics.e2e_ms)).in_summary().shared(),
    Metric {
        name: "itl_gaps",
        unit: Unit::Ms,
        label: t::METRIC_LABEL_ITL_GAPS,
        column: Column::Hidden,
        peers: peers(Some("inter_chunk_latency"), None,
            "Every gap between text-carrying chunks (a distribution, not a mean): a histogram at 1 µs and a sample in stream order."),
        series: true,
        shown: Shown::TABLE,
        read: |r| Reading::Series(r.metrics.itl_gaps.sample_ms().to_vec()),
    },
    metric!("itl_ms", Ms, t::METRIC_LABEL_ITL_MS, Main,
        peers(Some("inter_token_latency"), Some("inter_token_latency_ms"),
            "(last − first token) / (n − 1). AIPerf's window ends at the last response, not the last token."),
        |r| ms(r.metrics.itl_ms)).in_summary().shared(),
    metric!("output_tokens_counted", Tokens, t::METRIC_LABEL_OUTPUT_TOKENS_COUNTED, Hidden,
        peers(None, None, "Not a measurement: the n used for itl_ms and output_tps."),
        |r| Reading::Integer(r.metrics.output_tokens_counted)),
    metric!("token_count_source", Label, t::METRIC_LABEL_TOKEN_COUNT_SOURCE, Hidden,
        peers(None, None, "Not a measurement: whether n came from usage or from counting chunks."),
        |r| code(r.metrics.token_count_source.as_ref())),
    metric!("output_tps", TokensPerSecond, t::METRIC_LABEL_OUTPUT_TPS, Main,
        peers(Some("output_token_throughput_per_user"), None,
            "Ours is n / decode time; AIPerf's is 1 / ITL = (n − 1) / decode time. GuideLLM's output_tokens_per_second divides by the whole request latency: a different quantity."),
        |r| ms(r.metrics.output_tps)).in_summary(),
    metric!("prompt_tokens", Tokens, t::METRIC_LABEL_PROMPT_TOKENS, Hidden,
        peers(Some("input_sequence_length"), Some("prompt_tokens"),
            "Ours from the provider's usage; AIPerf counts with its own tokenizer."),
        |r| Reading::Integer(r.metrics.prompt_tokens)),
    metric!("cached_prompt_tokens", Tokens, t::METRIC_LABEL_CACHED_PROMPT_TOKENS, Hidden,
        peers(None, None, "Prompt tokens served from the provider's prefix cache (usage)."),
        |r| Reading::Integer(r.metrics.cached_prompt_tokens)),
    metric!("output_tokens", Tokens, t::METRIC_LABEL_OUTPUT_TOKENS, Hidden,
        peers(Some("output_sequence_length"), Some("output_tokens"),
            "From usage, reasoning included where the provider counts it there (AIPerf's output_token_count excludes reasoning)."),
        |r| Reading::Integer(r.metrics.output_tokens)),
    metric!("reasoning_tokens", Tokens, t::METRIC_LABEL_REASONING_TOKENS, Hidden,
        peers(Some("reasoning_token_count"), None, "From usage."),
        |r| Reading::Integer(r.metrics.reasoning_tokens)),
    metric!("dns_ms", Ms, t::METRIC_LABEL_DNS_MS, Hidden,
        peers(None, None, "Resource Timing: DNS lookup."),
        |r| network(r, |n| n.dns_ms)),
    metric!("tcp_ms", Ms, t::METRIC_LABEL_TCP_MS, Hidden,
        peers(None, None, "Resource Timing: TCP handshake."),
        |r| network(r, |n| n.tcp_ms)),
    metric!("tls_ms", Ms, t::METRIC_LABEL_TLS_MS, Hidden,
        peers(None, None, "Resource Timing: TLS handshake."),
        |r| network(r, |n| n.tls_ms)),
    metric!("queueing_ms", Ms, t::METRIC_LABEL_QUEUEING_MS, More,
        peers(None, None, "Resource Timing: browser queueing (requestStart − fetchStart)."),
        |r| network(r, |n| n.queueing_ms)),
    metric!("waiting_ms", Ms, t::METRIC_LABEL_WAITING_MS, More,
        peers(None, None, "Resource Timing: waiting for the server (responseStart − requestStart)."),
        |r| network(r, |n| n.waiting_ms)),
    metric!("request_ms", Ms, t::METRIC_LABEL_REQUEST_MS, Hidden,
        peers(None, None, "Resource Timing: fetchStart to the first response byte."),
        |r| network(r, |n| n.request_ms)),
    metric!("arrival_delay_bound_ms", Ms, t::METRIC_LABEL_ARRIVAL_DELAY_BOUND_MS, More,
        peers(None, None,
            "Ours: the longest time the page's main thread was unavailable between the request and the first answer token (heartbeat gap or long task). Where arrivals wait for the main thread (WebKit, the main-thread transport) an arrival stamp may be late by up to this."),
        |r| ms(r.arrival_delay_bound_ms)),
    metric!("arrival_delayed", Label, t::METRIC_LABEL_ARRIVAL_DELAYED, Hidden,
        peers(None, None,
            "Not a measurement: true when the run's arrivals waited for the main thread and arrival_delay_bound_ms exceeds 50 ms."),
        |r| Reading::Code(
            r.arrivals_wait_for_main_thread
                .map(|_| r.arrival_delayed().to_string()),
        )),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_units_match_names() {
        for (index, metric) in METRICS.iter().enumerate() {
            assert!(
                METRICS[index + 1..]
                    .iter()
                    .all(|other| other.name != metric.name),
                "{} twice",
                metric.name
            );
            if metric.name.ends_with("_ms") {
                assert_eq!(metric.unit, Unit::Ms, "{}", metric.name);
            }
            assert_eq!(find(metric.name).map(|found| found.name), Some(metric.name));
        }
        assert!(find("model").is_none());
    }

    #[test]
    fn readings_format_for_csv_and_table() {
        assert_eq!(
            Reading::Number(Some(1.23456)).csv_cell().as_deref(),
            Some("1.235")
        );
        assert_eq!(Reading::Number(Some(1.25)).table_cell(), "1.2");
        assert_eq!(Reading::Number(None).table_cell(), "—");
        assert_eq!(Reading::Number(None).csv_cell().as_deref(), Some(""));
        assert_eq!(Reading::Integer(Some(42)).number(), Some(42.0));
        assert_eq!(Reading::Series(vec![1.0]).csv_cell(), None);
    }

    #[test]
    fn every_view_derives_from_the_catalogue() {
        use crate::stats::Summary;
        use crate::timeline::RunsSummary;
        let one = Summary::from_samples(&[1.0]).ok().flatten();
        // A summary where every field holds a value: each summary row must find its own.
        let summary = RunsSummary {
            runs: 1,
            ttft_ms: one.clone(),
            ttfa_ms: one.clone(),
            ttfa_visible_ms: one.clone(),
            ttfr_ms: one.clone(),
            first_chunk_ms: one.clone(),
            setup_ms: one.clone(),
            perceived_ttft_ms: one.clone(),
            perceived_ttfa_ms: one.clone(),
            reasoning_ms: one.clone(),
            decode_ms: one.clone(),
            e2e_ms: one.clone(),
            itl_ms: one.clone(),
            itl_gaps_pooled_ms: one.clone(),
            output_tps: one.clone(),
        };
        let rows: Vec<&str> = summary_metrics().map(|metric| metric.name).collect();
        assert_eq!(
            rows,
            [
                "ttft_ms",
                "ttfa_ms",
                "perceived_ttfa_ms",
                "e2e_ms",
                "itl_ms",
                "output_tps"
            ]
        );
        for name in rows {
            assert!(summary.get(name).is_some(), "{name} has no summary");
        }
        let chart: Vec<(&str, &str)> = runs_chart_metrics()
            .map(|(metric, class)| (metric.name, class))
            .collect();
        assert_eq!(
            chart,
            [
                ("ttft_ms", "series-ttft"),
                ("ttfa_ms", "series-ttfa"),
                ("perceived_ttfa_ms", "series-perceived")
            ]
        );
        // The share view draws the runs chart from what a link carries.
        for (metric, _) in runs_chart_metrics() {
            assert!(
                metric.shown.shared,
                "{} is charted but not shared",
                metric.name
            );
        }
        assert_eq!(shared_metrics().count(), 7);
        assert_eq!(
            find("perceived_ttfa_ms").map(|metric| metric.legend(Lang::Zh)),
            Some("感知 ttfa（已显示）")
        );
    }
}
