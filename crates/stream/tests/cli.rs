//! `ttft-parse` end to end: the built binary on the transcripts, compared with the oracles.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use std::io::Write;
use std::process::{Command, Output, Stdio};

use common::{load_fixtures, EXTRA_DIR, SHARED_DIR};
use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_ttft-parse");

fn run(args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    input.write_all(stdin.unwrap_or_default()).unwrap();
    drop(input);
    child.wait_with_output().unwrap()
}

fn expected_exit_code(expected: &Value) -> i32 {
    if !expected["error"].is_null() {
        3
    } else if expected["terminal_marker_seen"] == Value::Bool(true) {
        0
    } else {
        4
    }
}

/// The printed JSON holds exactly the oracle's fields plus `outcome` and
/// `malformed_event_count`.
fn assert_output_matches(output: &Output, expected: &Value, what: &str) {
    let mut printed: Value = serde_json::from_slice(&output.stdout).unwrap();
    let fields = printed.as_object_mut().unwrap();
    let outcome = fields.remove("outcome").unwrap();
    assert_eq!(
        fields.remove("malformed_event_count"),
        Some(Value::from(0)),
        "{what}"
    );
    assert_eq!(printed, *expected, "{what}");
    let code = expected_exit_code(expected);
    let outcome_for_code = [
        "completed",
        "",
        "",
        "stream_error",
        "ended_without_terminal_marker",
    ];
    assert_eq!(
        outcome,
        Value::from(outcome_for_code[code as usize]),
        "{what}"
    );
    assert_eq!(output.status.code(), Some(code), "{what}");
}

#[test]
fn every_transcript_from_a_file_argument() {
    for dir in [SHARED_DIR, EXTRA_DIR] {
        for fixture in load_fixtures(dir) {
            let dialect = fixture.expected["dialect"].as_str().unwrap();
            let path = fixture.path.to_str().unwrap();
            let output = run(&["--dialect", dialect, path], None);
            assert_output_matches(&output, &fixture.expected, &fixture.name);
        }
    }
}

#[test]
fn transcript_from_stdin_with_auto_detection() {
    let fixture = load_fixtures(SHARED_DIR)
        .into_iter()
        .find(|fixture| fixture.name == "anthropic_thinking.sse")
        .unwrap();
    let output = run(&[], Some(&fixture.bytes));
    assert_output_matches(&output, &fixture.expected, "stdin, auto");
    let output = run(&["--dialect", "auto", "-"], Some(&fixture.bytes));
    assert_output_matches(&output, &fixture.expected, "stdin via -, explicit auto");
}

#[test]
fn empty_input_exits_5() {
    let output = run(&[], Some(b": keep-alive\n\n"));
    assert_eq!(output.status.code(), Some(5));
    let printed: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(printed["outcome"], "empty_stream");
    assert_eq!(printed["comment_count"], 1);
}

#[test]
fn help_and_usage_errors() {
    let output = run(&["--help"], None);
    assert_eq!(output.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&output.stdout).contains("EXIT CODES"));

    let output = run(&["--dialect", "gpt"], None);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("unknown dialect \"gpt\""));
    assert!(output.stdout.is_empty());

    let output = run(&["/nonexistent/run.sse"], None);
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&output.stderr).contains("cannot read /nonexistent/run.sse"));
}
