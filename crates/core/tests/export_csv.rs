//! The CSV export against a hand-written expected file, RFC 4180 quoting, and the peer names.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::export_fixture as fixture;

use ttft_core::export::{csv_columns, runs_csv, CsvHeader};
use ttft_core::metric::find;
use ttft_core::metric::METRICS;
use ttft_core::record::RunRecord;
use ttft_core::record::Transport;
use ttft_core::timeline::{RunMetrics, RunTimeline};
use ttft_stream::dialect::{DecodedEvent, StreamError};

/// A run whose stream carried an error event, with a model name and a message that need
/// quoting (comma, double quotes, line break).
fn overloaded_run() -> RunRecord {
    let mut timeline = RunTimeline::new(Some(4995.0), 5000.0);
    timeline.on_headers(5040.0, 200);
    timeline.on_body_chunk(5050.0, 50);
    timeline.on_event(
        5050.0,
        &DecodedEvent {
            error: Some(StreamError {
                kind: Some("overloaded_error".to_owned()),
                message: "Overloaded, \"retry\" later\nplease".to_owned(),
                raw: serde_json::json!({"type": "overloaded_error"}),
            }),
            ..Default::default()
        },
    );
    timeline.on_stream_end(5051.0);
    let model = "my \"fast\", model\nv2";
    let mut record = fixture::record_from_timeline(
        2,
        "2026-11-29T16:01:00.000Z",
        fixture::settings(model),
        Transport::Worker,
        &timeline,
    );
    record.diagnosis_cause = Some("overloaded".to_owned());
    record
}

fn reasoning_run() -> RunRecord {
    let mut settings = fixture::settings("o4-mini");
    settings.reasoning = true;
    fixture::record_from_timeline(
        1,
        "2026-11-29T16:00:00.000Z",
        settings,
        Transport::MainThread,
        &fixture::reasoning(1000.0),
    )
}

const EXPECTED_HEADER: &str = "run_index,started_at,warm_up,cold,outcome,outcome_detail,diagnosis_cause,\
experiment,experiment_arm,protocol,endpoint_url,model,dialect,max_tokens,ttft_only,reasoning,transport,\
reasoning_paint_method,answer_paint_method,answer_paint_bias_ms,answer_paint_error_p95_ms,connection,connection_evidence,http_protocol,\
via_relay,relay_version,relay_connection,\
wait_browser_ms,wait_relay_ms,wait_connection_ms,wait_preflight_ms,wait_network_ms,wait_gateway_ms,wait_queue_ms,\
wait_prompt_ms,wait_server_ms,wait_reasoning_ms,wait_paint_ms,wait_verdict,server_account,timer_step_ms,\
buffered_arrival,http_status,\
ttft_ms,ttfa_ms,ttfa_visible_ms,ttfr_ms,first_chunk_ms,setup_ms,perceived_ttft_ms,perceived_ttfa_ms,\
perceived_from,reasoning_ui_delay_ms,answer_ui_delay_ms,reasoning_ms,decode_ms,e2e_ms,itl_ms,\
output_tokens_counted,token_count_source,output_tps,prompt_tokens,cached_prompt_tokens,output_tokens,\
reasoning_tokens,dns_ms,tcp_ms,tls_ms,\
queueing_ms,waiting_ms,request_ms,arrival_delay_bound_ms,arrival_delayed,\
clicked,request_started,headers_received,headers_received_from,first_byte,first_event,\
first_reasoning,first_answer,first_answer_visible,reasoning_painted,answer_painted,last_token,finished\r\n";

// Reasoning run (see fixture::reasoning, started at 1000 ms, no click): ttft 400 (first
// reasoning), ttfa 900, perceived from request_started: 410 / 920; decode 1900 − 1400 = 500
// over usage's 30 tokens: itl 500 / 29 = 17.241, 60 tokens/s; cold connection with
// DNS 10, TCP 19, TLS 10, over HTTP/2 (Resource Timing's evidence). Its wait: no click
// (browser empty), the connection 29 (queueing), one round trip 10 (the TLS handshake), the
// server 400 − 29 − 10 = 361, reasoning 500, the paint 20 (parts it did not have are 0); the
// verdict reasoning; no server account, no timer grade; not through a relay (browser ↔ relay
// 0), not buffered.
const EXPECTED_REASONING_ROW: &str = "1,2026-11-29T16:00:00.000Z,false,true,completed,,,,,\
open_ai_chat,https://api.openai.com/v1/chat/completions,o4-mini,chat,64,false,true,main_thread,\
raf_message_channel,raf_message_channel,-0.710,5.200,new,resource_timing,h2,\
false,,,\
,0.000,29.000,0.000,10.000,0.000,0.000,0.000,361.000,500.000,20.000,reasoning,,,false,200,\
400.000,900.000,900.000,400.000,55.000,50.000,410.000,920.000,\
request_started,10.000,20.000,500.000,500.000,1000.000,17.241,\
30,usage,60.000,12,8,30,\
20,10.000,19.000,10.000,\
29.000,18.000,47.000,,,,1000.000,1050.000,fetch_resolved,1055.000,1055.000,\
1400.000,1900.000,1900.000,1410.000,1920.000,1900.000,2000.000\r\n";

// Error-event run: only setup (40), first chunk (50) and e2e (51) exist; the detail and the
// model are quoted with their quotes doubled and their line break kept. No paint,
// connection or HTTP version is known; after e2e_ms come 16 empty cells (itl_ms … arrival_delayed), then
// the instants.
const EXPECTED_OVERLOADED_ROW: &str = "2,2026-11-29T16:01:00.000Z,false,,stream_error,\
\"overloaded_error: Overloaded, \"\"retry\"\" later\nplease\",overloaded,,,\
open_ai_chat,https://api.openai.com/v1/chat/completions,\"my \"\"fast\"\", model\nv2\",chat,64,false,false,worker,\
,,,,,,,false,,,,,,,,,,,,,,,,,false,200,\
,,,,50.000,40.000,,,\
clicked,,,,,51.000,\
,,,,,,,,,,,,,,,,4995.000,5000.000,5040.000,fetch_resolved,5050.000,5050.000,\
,,,,,,5051.000\r\n";

#[test]
fn csv_matches_the_hand_written_file() {
    let csv = runs_csv(&[reasoning_run(), overloaded_run()], CsvHeader::Plain);
    let expected = format!("{EXPECTED_HEADER}{EXPECTED_REASONING_ROW}{EXPECTED_OVERLOADED_ROW}");
    assert_eq!(csv, expected);
}

#[test]
fn every_row_reads_back_with_one_field_per_column() {
    let runs = [reasoning_run(), overloaded_run()];
    let records = fixture::parse_csv(&runs_csv(&runs, CsvHeader::WithPeerNames));
    assert_eq!(records.len(), 5);
    for record in &records {
        assert_eq!(record.len(), csv_columns().len());
    }
    let model_column = csv_columns()
        .iter()
        .position(|column| column.name == "model")
        .unwrap();
    assert_eq!(records[4][model_column], "my \"fast\", model\nv2");
}

#[test]
fn formula_like_text_is_defused_but_numbers_are_not() {
    let mut run = overloaded_run();
    run.settings.model = "=HYPERLINK(\"http://evil.example\")".to_owned();
    run.instants.clicked = Some(-3.5);
    let records = fixture::parse_csv(&runs_csv(&[run], CsvHeader::Plain));
    let cell = |name: &str| {
        let index = csv_columns()
            .iter()
            .position(|column| column.name == name)
            .unwrap();
        records[1][index].clone()
    };
    assert_eq!(cell("model"), "'=HYPERLINK(\"http://evil.example\")");
    assert_eq!(cell("clicked"), "-3.500");
}

#[test]
fn peer_rows_follow_the_header() {
    let records = fixture::parse_csv(&runs_csv(&[], CsvHeader::WithPeerNames));
    assert_eq!(records.len(), 3);
    let at = |name: &str| {
        csv_columns()
            .iter()
            .position(|column| column.name == name)
            .unwrap()
    };
    let cases = [
        ("ttft_ms", "time_to_first_token", "time_to_first_token_ms"),
        (
            "ttfa_ms",
            "time_to_first_output_token",
            "time_to_first_output_token_ms",
        ),
        ("itl_ms", "inter_token_latency", "inter_token_latency_ms"),
        ("e2e_ms", "request_latency", "request_latency"),
        ("output_tps", "output_token_throughput_per_user", ""),
        ("perceived_ttfa_ms", "", ""),
        ("model", "", ""),
    ];
    for (column, aiperf, guidellm) in cases {
        assert_eq!(records[1][at(column)], aiperf, "{column}");
        assert_eq!(records[2][at(column)], guidellm, "{column}");
    }
    assert_eq!(records[1][0], "aiperf");
    assert_eq!(records[2][0], "guidellm");
}

#[test]
fn every_metric_column_has_a_peer_entry() {
    for column in csv_columns() {
        assert_eq!(
            find(column.name).is_some(),
            column.metric.is_some(),
            "{} is{} a metric column",
            column.name,
            if column.metric.is_some() { "" } else { " not" }
        );
    }
}

#[test]
fn every_run_metric_has_a_peer_entry_and_every_entry_a_column() {
    let metrics: RunMetrics = RunTimeline::new(None, 0.0).metrics();
    let value = serde_json::to_value(metrics).unwrap();
    for name in value.as_object().unwrap().keys() {
        assert!(find(name).is_some(), "{name} has no catalogue entry");
    }
    for name in METRICS.iter().map(|metric| metric.name) {
        // The gaps are a list: JSON only.
        let in_csv = csv_columns().iter().any(|column| column.name == name);
        assert_eq!(in_csv, name != "itl_gaps", "{name}");
    }
    assert!(find("model").is_none());
}
