//! The CSV export: one row per run, in a fixed column order documented in
//! docs/export-schema.md.
//!
//! RFC 4180: fields are separated by commas, records end with CRLF, and a field holding a
//! comma, a double quote, CR or LF is enclosed in double quotes with its quotes doubled.
//! Empty cells mean "not measured" (`None`); milliseconds have 3 decimals (microseconds),
//! `output_tps` too. Text cells that a spreadsheet would run as a formula (starting with
//! `=`, `+`, `-`, `@`, tab or CR; they come from providers' error messages and model names)
//! are prefixed with `'`, as OWASP advises against CSV injection; numbers never are.

use serde::Serialize;

use super::{outcome_code, peer_names, RunRecord};
use crate::timeline::{PaintTime, RunOutcome};

/// Which header rows to write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CsvHeader {
    /// One header row with our column names.
    Plain,
    /// Our names, then a row of AIPerf's names and a row of GuideLLM's names (empty where
    /// the peer has no such metric); the first cell of those rows says `aiperf` / `guidellm`.
    WithPeerNames,
}

/// One column of the CSV.
#[derive(Debug, Clone, Copy)]
pub struct CsvColumn {
    /// The header name (a DESIGN.md §2 name for metrics and instants).
    pub name: &'static str,
    /// Whether the column is a metric, listed in [`PEER_NAMES`](super::PEER_NAMES).
    pub metric: bool,
    /// The cell's text for a run (before quoting).
    cell: fn(&RunRecord) -> String,
}

impl CsvColumn {
    /// The cell's text for a run, unquoted.
    pub fn cell(&self, run: &RunRecord) -> String {
        (self.cell)(run)
    }
}

/// Milliseconds (or tokens/s) with 3 decimals; empty for `None`.
fn decimal(value: Option<f64>) -> String {
    value.map(|v| format!("{v:.3}")).unwrap_or_default()
}

/// An integer; empty for `None`.
fn integer<T: ToString>(value: Option<T>) -> String {
    value.map(|v| v.to_string()).unwrap_or_default()
}

/// `true` / `false`; empty for `None`.
fn boolean(value: Option<bool>) -> String {
    value.map(|v| v.to_string()).unwrap_or_default()
}

/// The serialized name of an enum value, as in the JSON export; empty for `None`.
fn serde_name<T: Serialize>(value: Option<&T>) -> String {
    value
        .and_then(|v| serde_json::to_value(v).ok())
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

/// A paint instant's page-clock time.
fn painted_at(paint: Option<PaintTime>) -> Option<f64> {
    paint.map(|p| p.at_ms)
}

/// What the outcome adds to its code: the status, the failure kind, the provider's
/// message or the parser's detail.
fn outcome_detail(outcome: &RunOutcome) -> String {
    match outcome {
        RunOutcome::HttpError { status } => status.to_string(),
        RunOutcome::NetworkFailure { failure } => serde_name(Some(failure)),
        RunOutcome::StreamError { error } => match &error.kind {
            Some(kind) => format!("{kind}: {}", error.message),
            None => error.message.clone(),
        },
        RunOutcome::MalformedChunk { detail, .. } => detail.clone(),
        _ => String::new(),
    }
}

macro_rules! column {
    ($name:literal, $metric:literal, $cell:expr) => {
        CsvColumn {
            name: $name,
            metric: $metric,
            cell: $cell,
        }
    };
}

/// The columns, in order. Documented in docs/export-schema.md ("CSV"); adding, removing or
/// reordering one is a schema change.
const COLUMNS: &[CsvColumn] = &[
    column!("run_index", false, |r| r.run_index.to_string()),
    column!("started_at", false, |r| r.started_at.clone()),
    column!("warm_up", false, |r| r.warm_up.to_string()),
    column!("cold", false, |r| boolean(r.cold)),
    column!("outcome", false, |r| outcome_code(&r.outcome).to_owned()),
    column!("outcome_detail", false, |r| outcome_detail(&r.outcome)),
    column!("diagnosis_cause", false, |r| r
        .diagnosis_cause
        .clone()
        .unwrap_or_default()),
    column!("protocol", false, |r| serde_name(Some(
        &r.settings.protocol
    ))),
    column!("endpoint_url", false, |r| r.settings.endpoint_url.clone()),
    column!("model", false, |r| r.settings.model.clone()),
    column!("dialect", false, |r| serde_name(
        r.settings.dialect.as_ref()
    )),
    column!("max_tokens", false, |r| integer(r.settings.max_tokens)),
    column!("ttft_only", false, |r| r.settings.ttft_only.to_string()),
    column!("reasoning", false, |r| r.settings.reasoning.to_string()),
    column!("transport", false, |r| serde_name(Some(&r.transport))),
    column!("http_status", true, |r| integer(r.metrics.http_status)),
    column!("ttft_ms", true, |r| decimal(r.metrics.ttft_ms)),
    column!("ttfa_ms", true, |r| decimal(r.metrics.ttfa_ms)),
    column!("ttfa_visible_ms", true, |r| decimal(
        r.metrics.ttfa_visible_ms
    )),
    column!("ttfr_ms", true, |r| decimal(r.metrics.ttfr_ms)),
    column!("first_chunk_ms", true, |r| decimal(
        r.metrics.first_chunk_ms
    )),
    column!("setup_ms", true, |r| decimal(r.metrics.setup_ms)),
    column!("perceived_ttft_ms", true, |r| decimal(
        r.metrics.perceived_ttft_ms
    )),
    column!("perceived_ttfa_ms", true, |r| decimal(
        r.metrics.perceived_ttfa_ms
    )),
    column!("perceived_from", true, |r| serde_name(Some(
        &r.metrics.perceived_from
    ))),
    column!("reasoning_ui_delay_ms", true, |r| decimal(
        r.metrics.reasoning_ui_delay_ms
    )),
    column!("answer_ui_delay_ms", true, |r| decimal(
        r.metrics.answer_ui_delay_ms
    )),
    column!("reasoning_ms", true, |r| decimal(r.metrics.reasoning_ms)),
    column!("decode_ms", true, |r| decimal(r.metrics.decode_ms)),
    column!("e2e_ms", true, |r| decimal(r.metrics.e2e_ms)),
    column!("itl_ms", true, |r| decimal(r.metrics.itl_ms)),
    column!("output_tokens_counted", true, |r| integer(
        r.metrics.output_tokens_counted
    )),
    column!("token_count_source", true, |r| serde_name(
        r.metrics.token_count_source.as_ref()
    )),
    column!("output_tps", true, |r| decimal(r.metrics.output_tps)),
    column!("prompt_tokens", true, |r| integer(r.metrics.prompt_tokens)),
    column!("cached_prompt_tokens", true, |r| integer(
        r.metrics.cached_prompt_tokens
    )),
    column!("output_tokens", true, |r| integer(r.metrics.output_tokens)),
    column!("reasoning_tokens", true, |r| integer(
        r.metrics.reasoning_tokens
    )),
    column!("reasoning_paint_method", false, |r| {
        serde_name(r.instants.reasoning_painted.map(|p| p.method).as_ref())
    }),
    column!("answer_paint_method", false, |r| {
        serde_name(r.instants.answer_painted.map(|p| p.method).as_ref())
    }),
    column!("connection", false, |r| {
        serde_name(r.network.as_ref().map(|n| n.connection).as_ref())
    }),
    column!("dns_ms", true, |r| decimal(
        r.network.as_ref().and_then(|n| n.dns_ms)
    )),
    column!("tcp_ms", true, |r| decimal(
        r.network.as_ref().and_then(|n| n.tcp_ms)
    )),
    column!("tls_ms", true, |r| decimal(
        r.network.as_ref().and_then(|n| n.tls_ms)
    )),
    column!("queueing_ms", true, |r| decimal(
        r.network.as_ref().and_then(|n| n.queueing_ms)
    )),
    column!("waiting_ms", true, |r| decimal(
        r.network.as_ref().and_then(|n| n.waiting_ms)
    )),
    column!("request_ms", true, |r| decimal(
        r.network.as_ref().and_then(|n| n.request_ms)
    )),
    column!("clicked", false, |r| decimal(r.instants.clicked)),
    column!("request_started", false, |r| decimal(Some(
        r.instants.request_started
    ))),
    column!("headers_received", false, |r| decimal(
        r.instants.headers_received
    )),
    column!("first_byte", false, |r| decimal(r.instants.first_byte)),
    column!("first_event", false, |r| decimal(r.instants.first_event)),
    column!("first_reasoning", false, |r| decimal(
        r.instants.first_reasoning
    )),
    column!("first_answer", false, |r| decimal(r.instants.first_answer)),
    column!("first_answer_visible", false, |r| decimal(
        r.instants.first_answer_visible
    )),
    column!("reasoning_painted", false, |r| decimal(painted_at(
        r.instants.reasoning_painted
    ))),
    column!("answer_painted", false, |r| decimal(painted_at(
        r.instants.answer_painted
    ))),
    column!("last_token", false, |r| decimal(r.instants.last_token)),
    column!("finished", false, |r| decimal(r.instants.finished)),
];

/// The CSV's columns, in order.
pub fn csv_columns() -> &'static [CsvColumn] {
    COLUMNS
}

/// Whether a spreadsheet would treat the text as a formula.
fn looks_like_formula(text: &str) -> bool {
    text.starts_with(['=', '+', '-', '@', '\t', '\r'])
}

/// One field, quoted per RFC 4180 when needed.
fn quote(field: &str) -> String {
    if field.contains([',', '"', '\r', '\n']) {
        format!("\"{}\"", field.replace('"', "\"\""))
    } else {
        field.to_owned()
    }
}

/// One record: fields quoted and joined, CRLF-terminated.
fn record<'a>(fields: impl Iterator<Item = &'a str>) -> String {
    let mut line = fields.map(quote).collect::<Vec<_>>().join(",");
    line.push_str("\r\n");
    line
}

/// A row's cell text, formula-guarded when it is text and not a number.
fn guarded_cell(column: &CsvColumn, run: &RunRecord) -> String {
    let text = column.cell(run);
    if looks_like_formula(&text) && text.parse::<f64>().is_err() {
        format!("'{text}")
    } else {
        text
    }
}

/// The runs as CSV: header row(s), then one row per run, runs [redacted](RunRecord::redacted).
pub fn runs_csv(runs: &[RunRecord], header: CsvHeader) -> String {
    let mut csv = record(COLUMNS.iter().map(|column| column.name));
    if header == CsvHeader::WithPeerNames {
        let peer_row =
            |label: &'static str, pick: fn(&super::PeerNames) -> Option<&'static str>| {
                let cells = COLUMNS.iter().enumerate().map(|(index, column)| {
                    if index == 0 {
                        return label;
                    }
                    peer_names(column.name)
                        .as_ref()
                        .and_then(pick)
                        .unwrap_or("")
                });
                record(cells)
            };
        csv.push_str(&peer_row("aiperf", |names| names.aiperf));
        csv.push_str(&peer_row("guidellm", |names| names.guidellm));
    }
    for run in runs.iter().map(RunRecord::redacted) {
        let cells: Vec<String> = COLUMNS
            .iter()
            .map(|column| guarded_cell(column, &run))
            .collect();
        csv.push_str(&record(cells.iter().map(String::as_str)));
    }
    csv
}
