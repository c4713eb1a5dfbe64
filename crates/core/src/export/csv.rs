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

use crate::metric::{Metric, METRICS};
use crate::record::RunRecord;
use crate::timeline::{PaintTime, RunOutcome, WaitPart, WaitVerdict};

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
    /// The metric of the catalogue this column shows, if it is one.
    pub metric: Option<&'static Metric>,
    /// The cell's text for a run (before quoting), for columns that are not metrics.
    cell: fn(&RunRecord) -> String,
}

impl CsvColumn {
    /// The cell's text for a run, unquoted.
    pub fn cell(&self, run: &RunRecord) -> String {
        match self.metric {
            Some(metric) => metric.read(run).csv_cell().unwrap_or_default(),
            None => (self.cell)(run),
        }
    }
}

/// Milliseconds with 3 decimals; empty for `None`.
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
    ($name:literal, $cell:expr) => {
        CsvColumn {
            name: $name,
            metric: None,
            cell: $cell,
        }
    };
}

/// The columns before the metrics: what was asked and how the run went.
const LEADING: &[CsvColumn] = &[
    column!("run_index", |r| r.run_index.to_string()),
    column!("started_at", |r| r.started_at.clone()),
    column!("warm_up", |r| r.warm_up.to_string()),
    column!("cold", |r| boolean(r.cold)),
    column!("outcome", |r| r.outcome.code().to_owned()),
    column!("outcome_detail", |r| outcome_detail(&r.outcome)),
    column!("diagnosis_cause", |r| r
        .diagnosis_cause
        .clone()
        .unwrap_or_default()),
    column!("experiment", |r| r
        .experiment
        .as_ref()
        .map(|tag| tag.kind.clone())
        .unwrap_or_default()),
    column!("experiment_arm", |r| r
        .experiment
        .as_ref()
        .map(|tag| tag.arm.clone())
        .unwrap_or_default()),
    column!("protocol", |r| serde_name(Some(&r.settings.protocol))),
    column!("endpoint_url", |r| r.settings.endpoint_url.clone()),
    column!("model", |r| r.settings.model.clone()),
    column!("dialect", |r| serde_name(r.settings.dialect.as_ref())),
    column!("max_tokens", |r| integer(r.settings.max_tokens)),
    column!("ttft_only", |r| r.settings.ttft_only.to_string()),
    column!("reasoning", |r| r.settings.reasoning.to_string()),
    column!("transport", |r| serde_name(Some(&r.transport))),
    column!("reasoning_paint_method", |r| {
        serde_name(r.instants.reasoning_painted.map(|p| p.method).as_ref())
    }),
    column!("answer_paint_method", |r| {
        serde_name(r.instants.answer_painted.map(|p| p.method).as_ref())
    }),
    column!("answer_paint_bias_ms", |r| decimal(
        r.instants
            .answer_painted
            .and_then(|p| p.expected_error)
            .map(|error| error.bias_ms)
    )),
    column!("answer_paint_error_p95_ms", |r| decimal(
        r.instants
            .answer_painted
            .and_then(|p| p.expected_error)
            .map(|error| error.error_p95_ms)
    )),
    column!("connection", |r| {
        serde_name(r.network.as_ref().map(|n| n.connection).as_ref())
    }),
    column!("connection_evidence", |r| r
        .connection_evidence
        .map(|evidence| evidence.code().to_owned())
        .unwrap_or_default()),
    column!("http_protocol", |r| r
        .network
        .as_ref()
        .and_then(|n| n.protocol)
        .map(|protocol| protocol.code().to_owned())
        .unwrap_or_default()),
    column!("via_relay", |r| r.via_relay().to_string()),
    column!("relay_version", |r| r
        .relay
        .as_ref()
        .and_then(|relay| relay.version.clone())
        .unwrap_or_default()),
    column!("relay_connection", |r| r
        .relay
        .as_ref()
        .and_then(|relay| relay.conn)
        .map(|conn| conn.code().to_owned())
        .unwrap_or_default()),
    column!("wait_browser_ms", |r| wait_ms(r, WaitPart::Browser)),
    column!("wait_relay_ms", |r| wait_ms(r, WaitPart::Relay)),
    column!("wait_connection_ms", |r| wait_ms(r, WaitPart::Connection)),
    column!("wait_preflight_ms", |r| wait_ms(r, WaitPart::Preflight)),
    column!("wait_network_ms", |r| wait_ms(r, WaitPart::Network)),
    column!("wait_gateway_ms", |r| wait_ms(r, WaitPart::Gateway)),
    column!("wait_queue_ms", |r| wait_ms(r, WaitPart::Queue)),
    column!("wait_prompt_ms", |r| wait_ms(r, WaitPart::Prompt)),
    column!("wait_server_ms", |r| wait_ms(r, WaitPart::Server)),
    column!("wait_reasoning_ms", |r| wait_ms(r, WaitPart::Reasoning)),
    column!("wait_paint_ms", |r| wait_ms(r, WaitPart::Paint)),
    column!("wait_verdict", |r| r
        .breakdown
        .as_ref()
        .and_then(WaitVerdict::of)
        .map(|verdict| verdict.cause.code().to_owned())
        .unwrap_or_default()),
    column!("server_account", |r| r
        .server_account
        .as_ref()
        .map(|account| {
            account
                .sources
                .iter()
                .map(|source| source.code())
                .collect::<Vec<_>>()
                .join("+")
        })
        .unwrap_or_default()),
    column!("timer_step_ms", |r| decimal(
        r.timer.and_then(|timer| timer.step_ms)
    )),
    column!("buffered_arrival", |r| r
        .buffered_arrival
        .is_some()
        .to_string()),
];

/// A part of the run's wait, ms (empty without a breakdown).
fn wait_ms(run: &RunRecord, part: WaitPart) -> String {
    decimal(
        run.breakdown
            .as_ref()
            .and_then(|breakdown| breakdown.ms(part)),
    )
}

/// The columns after the metrics: the instants of DESIGN.md §2, page clock.
const INSTANTS: &[CsvColumn] = &[
    column!("clicked", |r| decimal(r.instants.clicked)),
    column!("request_started", |r| decimal(Some(
        r.instants.request_started
    ))),
    column!("headers_received", |r| decimal(r.instants.headers_received)),
    column!("headers_received_from", |r| serde_name(
        r.instants.headers_received_from.as_ref()
    )),
    column!("first_byte", |r| decimal(r.instants.first_byte)),
    column!("first_event", |r| decimal(r.instants.first_event)),
    column!("first_reasoning", |r| decimal(r.instants.first_reasoning)),
    column!("first_answer", |r| decimal(r.instants.first_answer)),
    column!("first_answer_visible", |r| decimal(
        r.instants.first_answer_visible
    )),
    column!("reasoning_painted", |r| decimal(painted_at(
        r.instants.reasoning_painted
    ))),
    column!("answer_painted", |r| decimal(painted_at(
        r.instants.answer_painted
    ))),
    column!("last_token", |r| decimal(r.instants.last_token)),
    column!("finished", |r| decimal(r.instants.finished)),
];

/// The CSV's columns, in order: what was asked, every metric of the catalogue that fits a
/// cell ([`METRICS`], in its order), then the instants. Documented in docs/export-schema.md
/// ("CSV"); adding, removing or reordering one is a schema change.
pub fn csv_columns() -> Vec<CsvColumn> {
    let metrics = METRICS
        .iter()
        .filter(|metric| !metric.series)
        .map(|metric| CsvColumn {
            name: metric.name,
            metric: Some(metric),
            cell: |_| String::new(),
        });
    LEADING
        .iter()
        .copied()
        .chain(metrics)
        .chain(INSTANTS.iter().copied())
        .collect()
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
    let columns = csv_columns();
    let mut csv = record(columns.iter().map(|column| column.name));
    if header == CsvHeader::WithPeerNames {
        let peer_row =
            |label: &'static str, pick: fn(&crate::metric::PeerNames) -> Option<&'static str>| {
                let cells = columns.iter().enumerate().map(|(index, column)| {
                    if index == 0 {
                        return label;
                    }
                    column
                        .metric
                        .and_then(|metric| pick(&metric.peers))
                        .unwrap_or("")
                });
                record(cells)
            };
        csv.push_str(&peer_row("aiperf", |names| names.aiperf));
        csv.push_str(&peer_row("guidellm", |names| names.guidellm));
    }
    for run in runs.iter().map(RunRecord::redacted) {
        let cells: Vec<String> = columns
            .iter()
            .map(|column| guarded_cell(column, &run))
            .collect();
        csv.push_str(&record(cells.iter().map(String::as_str)));
    }
    csv
}
