//! docs/export-schema.md agrees with the code: its example is what the code writes, and it
//! lists the CSV header, the summary and the peer names exactly as the code has them.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::export_fixture as fixture;

use ttft_core::export::{
    csv_columns, runs_csv, summary_text, CsvHeader, ExperimentResult, ExportDocument,
};
use ttft_core::lang::Lang;
use ttft_core::metric::PeerNames;
use ttft_core::metric::METRICS;
use ttft_core::record::Transport;
use ttft_core::request::ReasoningEffort;

const SCHEMA_DOC: &str = include_str!("../../../docs/export-schema.md");

/// The documented example: one reasoning run and one experiment.
fn example_document() -> ExportDocument {
    let mut document =
        ExportDocument::new("0.1.0", "2026-11-29T16:10:00.000Z", fixture::environment());
    let mut settings = fixture::settings("o4-mini");
    settings.reasoning = true;
    settings.request = Some(fixture::request_with_effort(
        "o4-mini",
        Some(ReasoningEffort::Low),
    ));
    document.runs.push(fixture::record_from_timeline(
        1,
        "2026-11-29T16:00:00.000Z",
        settings,
        Transport::Worker,
        &fixture::reasoning(1000.0),
    ));
    document.experiments.push(ExperimentResult {
        kind: "prompt_length_sweep".to_owned(),
        kind_version: 1,
        result: serde_json::json!({"points": [{"prompt_tokens": 1000, "ttft_ms": 412.5}]}),
    });
    document
}

fn csv_header() -> String {
    runs_csv(&[], CsvHeader::Plain).trim_end().to_owned()
}

fn peer_cell(name: Option<&str>) -> String {
    name.map_or_else(|| "—".to_owned(), |name| format!("`{name}`"))
}

fn peer_row(metric: &str, names: &PeerNames) -> String {
    format!(
        "| `{metric}` | {} | {} | {} |",
        peer_cell(names.aiperf),
        peer_cell(names.guidellm),
        names.note
    )
}

fn summary_example() -> String {
    summary_text(&fixture::six_runs(), Lang::En)
        .unwrap()
        .trim_end()
        .to_owned()
}

#[test]
fn the_example_is_what_the_code_writes_and_imports_back() {
    let json = example_document().to_json().unwrap();
    assert!(
        SCHEMA_DOC.contains(&format!("```json\n{json}\n```")),
        "docs/export-schema.md's example differs from:\n{json}"
    );
    let imported = ExportDocument::from_json(&json).unwrap();
    assert_eq!(imported.to_json().unwrap(), json);
}

#[test]
fn the_csv_header_and_every_column_are_documented() {
    assert!(SCHEMA_DOC.contains(&format!("```text\n{}\n```", csv_header())));
    for column in csv_columns() {
        assert!(
            SCHEMA_DOC.contains(&format!("`{}`", column.name)),
            "{} is not documented",
            column.name
        );
    }
}

#[test]
fn the_peer_table_is_the_code_table() {
    for metric in METRICS {
        let row = peer_row(metric.name, &metric.peers);
        assert!(SCHEMA_DOC.contains(&row), "missing row:\n{row}");
    }
}

#[test]
fn the_summary_example_is_what_the_code_writes() {
    assert!(SCHEMA_DOC.contains(&format!("```text\n{}\n```", summary_example())));
}

/// Prints the generated parts of the document (run with `--ignored --nocapture` after a
/// change, and paste).
#[test]
#[ignore]
fn print_doc_parts() {
    println!("=====HEADER\n{}", csv_header());
    println!("=====SUMMARY\n{}", summary_example());
    let rows: Vec<String> = METRICS
        .iter()
        .map(|metric| peer_row(metric.name, &metric.peers))
        .collect();
    println!("=====PEERS\n{}", rows.join("\n"));
    println!("=====EXAMPLE\n{}", example_document().to_json().unwrap());
    println!("=====END");
}

#[test]
#[ignore = "prints the example and CSV header for docs/export-schema.md"]
fn print_example_for_docs() {
    println!("<<JSON\n{}\nJSON>>", example_document().to_json().unwrap());
    println!("<<CSV\n{}\nCSV>>", csv_header());
}
