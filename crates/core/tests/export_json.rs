//! The JSON export: round trip, import errors with field paths, and the key kept out.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::export_fixture as fixture;

use serde_json::{json, Value};
use ttft_core::export::{
    runs_csv, summary_text, CsvHeader, ExportDocument, ExportError, ImportError, SCHEMA_NAME,
    SCHEMA_VERSION,
};
use ttft_core::lang::Lang;

use fixture::{document, SECRET_KEY};

#[test]
fn export_import_export_is_identical() {
    let original = document();
    let first = original.to_json().unwrap();
    let imported = ExportDocument::from_json(&first).unwrap();
    assert_eq!(imported, original.canonicalized().unwrap());
    // Times that are short decimals are kept exactly; 200/3 tokens/s is cut to 15 digits.
    assert_eq!(imported.runs[2].metrics.ttft_ms, Some(200.0));
    assert_eq!(original.runs[2].metrics.output_tps, Some(200.0 / 3.0));
    assert_eq!(
        imported.runs[2].metrics.output_tps,
        Some(66.666_666_666_666_7)
    );
    assert_eq!(imported.to_json().unwrap(), first);
}

#[test]
fn a_byte_order_mark_from_a_windows_editor_is_skipped() {
    let text = format!("\u{feff}{}", document().to_json().unwrap());
    assert_eq!(
        ExportDocument::from_json(&text).unwrap(),
        document().canonicalized().unwrap()
    );
}

#[test]
fn header_fields_come_first_with_the_schema_name_and_version() {
    let text = document().to_json().unwrap();
    let expected_start = format!(
        "{{\n  \"schema\": \"{SCHEMA_NAME}\",\n  \"schema_version\": {SCHEMA_VERSION},\n  \"tool_version\": \"0.1.0\",\n  \"exported_at\": \"2026-11-29T16:10:00.000Z\",\n  \"environment\": {{"
    );
    assert!(text.starts_with(&expected_start), "{text}");
    assert_eq!(SCHEMA_VERSION, 6);
}

#[test]
fn full_precision_floats_round_trip_to_the_same_text() {
    let mut original = document();
    // 17-digit values that serde_json's default parser reads back one ulp off.
    original.runs[1].metrics.ttft_ms = Some(414.015_845_536_046_36);
    original.runs[1].instants.request_started = 0.1 + 0.2;
    original.environment.timer_resolution_ms = Some(419.696_335_042_805_97);
    let first = original.to_json().unwrap();
    assert!(first.contains("\"ttft_ms\": 414.015845536046,"), "{first}");
    let imported = ExportDocument::from_json(&first).unwrap();
    assert_eq!(imported.to_json().unwrap(), first);
    assert_eq!(imported, original.canonicalized().unwrap());
}

/// Every text output of a document, for the secrecy checks.
fn all_outputs(document: &ExportDocument) -> Vec<(&'static str, String)> {
    vec![
        ("json", document.to_json().unwrap()),
        ("csv", runs_csv(&document.runs, CsvHeader::WithPeerNames)),
        ("text", summary_text(&document.runs, Lang::En).unwrap()),
    ]
}

fn assert_no_secret(document: &ExportDocument) {
    for (name, text) in all_outputs(document) {
        assert!(!text.contains(SECRET_KEY), "{name} holds the key:\n{text}");
        assert!(
            !text.contains("secret-12"),
            "{name} holds part of the key:\n{text}"
        );
    }
}

#[test]
fn the_key_never_appears_in_any_output() {
    let document = document();
    assert_no_secret(&document);
    let json = document.to_json().unwrap();
    assert!(
        json.contains("\"Bearer sk-…3456\""),
        "the masked form is kept:\n{json}"
    );
}

#[test]
fn a_hand_built_request_with_a_raw_key_is_masked_on_export() {
    let mut document = document();
    let request = document.runs[1].settings.request.as_mut().unwrap();
    request.headers = vec![
        ("authorization".to_owned(), format!("Bearer {SECRET_KEY}")),
        ("X-Api-Key".to_owned(), SECRET_KEY.to_owned()),
        ("api-key".to_owned(), "short".to_owned()),
        ("content-type".to_owned(), "application/json".to_owned()),
    ];
    request.url = format!("https://llm.example/v1/chat/completions?api-version=1&key={SECRET_KEY}");
    document.runs[1].settings.endpoint_url = request.url.clone();
    assert_no_secret(&document);

    let imported = ExportDocument::from_json(&document.to_json().unwrap()).unwrap();
    let settings = &imported.runs[1].settings;
    let headers = &settings.request.as_ref().unwrap().headers;
    let values: Vec<&str> = headers.iter().map(|(_, value)| value.as_str()).collect();
    assert_eq!(
        values,
        ["Bearer sk-…3456", "sk-…3456", "…", "application/json"]
    );
    assert_eq!(
        settings.endpoint_url,
        "https://llm.example/v1/chat/completions?api-version=1&key=…"
    );
}

#[test]
fn import_rejects_what_is_not_an_export_with_the_reason() {
    let cases: [(&str, ImportError); 7] = [
        (
            "run_index,started_at\n1,x",
            ImportError::NotJson {
                detail: "expected value at line 1 column 1".to_owned(),
            },
        ),
        (
            "",
            ImportError::NotJson {
                detail: "EOF while parsing a value at line 1 column 0".to_owned(),
            },
        ),
        (
            r#"{"hello": 1}"#,
            ImportError::NotAnExport {
                found: "missing".to_owned(),
            },
        ),
        (
            r#"[1, 2]"#,
            ImportError::NotAnExport {
                found: "missing".to_owned(),
            },
        ),
        (
            r#"{"schema": "aiperf/profile"}"#,
            ImportError::NotAnExport {
                found: "\"aiperf/profile\"".to_owned(),
            },
        ),
        (
            r#"{"schema": "ttft-meter/export", "schema_version": 7}"#,
            ImportError::NewerVersion {
                found: 7,
                supported: 6,
            },
        ),
        (
            r#"{"schema": "ttft-meter/export", "schema_version": "1"}"#,
            ImportError::InvalidVersion {
                found: "\"1\"".to_owned(),
            },
        ),
    ];
    for (text, expected) in cases {
        assert_eq!(ExportDocument::from_json(text), Err(expected), "{text}");
    }
    assert_eq!(
        ExportDocument::from_json(r#"{"schema": "ttft-meter/export", "schema_version": 0}"#),
        Err(ImportError::InvalidVersion {
            found: "0".to_owned()
        })
    );
}

/// The fixture document as a JSON value, changed by `edit`, then imported.
fn import_edited(edit: impl FnOnce(&mut Value)) -> Result<ExportDocument, ImportError> {
    let mut value: Value = serde_json::from_str(&document().to_json().unwrap()).unwrap();
    edit(&mut value);
    ExportDocument::from_json(&serde_json::to_string_pretty(&value).unwrap())
}

#[test]
fn import_names_the_field_with_a_wrong_value() {
    type Edit = fn(&mut Value);
    let cases: [(Edit, ImportError); 5] = [
        (
            |v| v["runs"][1]["metrics"]["ttft_ms"] = json!("fast"),
            ImportError::WrongField {
                path: "runs[1].metrics.ttft_ms".to_owned(),
                detail: "invalid type: string \"fast\", expected f64".to_owned(),
            },
        ),
        (
            |v| v["runs"][0]["settings"]["protocol"] = json!("carrier_pigeon"),
            ImportError::WrongField {
                path: "runs[0].settings.protocol".to_owned(),
                detail: "unknown variant `carrier_pigeon`, expected one of `open_ai_chat`, `anthropic_messages`, `open_ai_responses`".to_owned(),
            },
        ),
        (
            |v| v["environment"]["cross_origin_isolated"] = json!("yes"),
            ImportError::WrongField {
                path: "environment.cross_origin_isolated".to_owned(),
                detail: "invalid type: string \"yes\", expected a boolean".to_owned(),
            },
        ),
        (
            |v| {
                if let Some(instants) = v["runs"][2]["instants"].as_object_mut() {
                    instants.remove("request_started");
                }
            },
            ImportError::MissingField {
                path: "runs[2].instants".to_owned(),
                field: "request_started".to_owned(),
            },
        ),
        (
            |v| v["experiments"][0]["kind_version"] = json!(-1),
            ImportError::WrongField {
                path: "experiments[0].kind_version".to_owned(),
                detail: "invalid value: integer `-1`, expected u32".to_owned(),
            },
        ),
    ];
    for (edit, expected) in cases {
        assert_eq!(import_edited(edit), Err(expected));
    }
}

#[test]
fn unknown_fields_are_ignored_and_absent_optional_fields_are_none() {
    let imported = import_edited(|v| {
        v["written_by_a_later_build"] = json!(true);
        if let Some(metrics) = v["runs"][1]["metrics"].as_object_mut() {
            metrics.remove("ttfr_ms");
        }
    })
    .unwrap();
    assert_eq!(imported, document().canonicalized().unwrap());
}

#[test]
fn error_messages_say_what_to_do_in_both_languages() {
    let newer = ImportError::NewerVersion {
        found: 3,
        supported: 2,
    };
    assert_eq!(
        newer.message(Lang::En),
        "This export uses schema version 3, but this version of TTFT Meter reads versions up to 2. Open it with a newer TTFT Meter (reload the page to get the latest)."
    );
    assert_eq!(
        newer.message(Lang::Zh),
        "该导出文件使用第 3 版格式，而当前 TTFT Meter 最高只能读取第 2 版。请用更新的 TTFT Meter 打开（刷新页面即可获取最新版本）。"
    );
    let wrong = ImportError::WrongField {
        path: "runs[1].metrics.ttft_ms".to_owned(),
        detail: "invalid type: string \"fast\", expected f64".to_owned(),
    };
    assert!(wrong.message(Lang::En).contains("runs[1].metrics.ttft_ms"));
    assert!(wrong.message(Lang::Zh).contains("runs[1].metrics.ttft_ms"));
}

#[test]
fn a_document_is_always_written_with_this_builds_schema() {
    let mut changed = document();
    changed.schema = "something else".to_owned();
    changed.schema_version = 7;
    let imported = ExportDocument::from_json(&changed.to_json().unwrap()).unwrap();
    assert_eq!(imported.schema, SCHEMA_NAME);
    assert_eq!(imported.schema_version, SCHEMA_VERSION);
}

#[test]
fn non_finite_times_become_null_or_refuse_the_export() {
    let mut document = document();
    document.runs[1].metrics.ttft_ms = Some(f64::NAN);
    document.runs[1].metrics.e2e_ms = Some(f64::INFINITY);
    let imported = ExportDocument::from_json(&document.to_json().unwrap()).unwrap();
    assert_eq!(imported.runs[1].metrics.ttft_ms, None);
    assert_eq!(imported.runs[1].metrics.e2e_ms, None);

    document.runs[1].instants.request_started = f64::NAN;
    assert_eq!(
        document.to_json(),
        Err(ExportError::Json {
            detail: "invalid type: null, expected f64".to_owned()
        })
    );
}

#[test]
fn fixture_numbers_are_what_the_tests_assume() {
    let metrics = fixture::completed(10_000.0, 250.0, false).metrics();
    assert_eq!(metrics.ttft_ms, Some(250.0));
    assert_eq!(metrics.perceived_ttfa_ms, Some(271.0));
    assert_eq!(metrics.itl_ms, Some(20.0));
    assert_eq!(metrics.e2e_ms, Some(311.0));
    let runs = fixture::six_runs();
    assert_eq!(runs[1].cold, Some(true));
    assert_eq!(runs[2].cold, Some(false));
    let thinking = fixture::reasoning(0.0).metrics();
    assert_eq!(thinking.ttft_ms, Some(400.0));
    assert_eq!(thinking.ttfa_ms, Some(900.0));
    assert_eq!(thinking.perceived_ttfa_ms, Some(920.0));
}

#[test]
fn outcome_and_cause_codes_are_the_serialized_kinds() {
    use ttft_core::diagnosis::Cause;
    use ttft_core::failure::NetworkFailure;
    use ttft_core::protocol::AuthStyle;
    use ttft_stream::dialect::StreamError;

    use ttft_core::timeline::RunOutcome;
    let outcomes = [
        (RunOutcome::Streaming, false),
        (RunOutcome::Completed, true),
        (RunOutcome::StoppedAfterFirstAnswer, true),
        (RunOutcome::HttpError { status: 500 }, false),
        (
            RunOutcome::NetworkFailure {
                failure: NetworkFailure::Timeout,
            },
            false,
        ),
        (
            RunOutcome::StreamError {
                error: StreamError::default(),
            },
            false,
        ),
        (
            RunOutcome::MalformedChunk {
                detail: String::new(),
                at_ms: 1.0,
            },
            false,
        ),
        (RunOutcome::EmptyStream, false),
        (RunOutcome::EndedWithoutTerminal, false),
    ];
    for (outcome, ok) in outcomes {
        let kind = serde_json::to_value(&outcome).unwrap()["kind"].clone();
        assert_eq!(json!(outcome.code()), kind);
        assert_eq!(outcome.is_ok(), ok, "{kind}");
    }
    // Every cause: its code is its serialized kind.
    let causes = [
        Cause::KeyMissing,
        Cause::KeyRefused,
        Cause::KeyHasWhitespace,
        Cause::KeyHasInvalidCharacter,
        Cause::WrongAuthHeader {
            sent: AuthStyle::Bearer,
            expected: AuthStyle::XApiKey,
        },
        Cause::Forbidden,
        Cause::BrowserAccessRefused,
        Cause::ModelNotFound,
        Cause::WrongPath,
        Cause::BadRequest,
        Cause::RequestTimeout,
        Cause::PayloadTooLarge,
        Cause::Unprocessable,
        Cause::RateLimited {
            retry_after_s: Some(2.0),
            quota_exhausted: false,
        },
        Cause::Overloaded { status: 529 },
        Cause::ServerError { status: 500 },
        Cause::OtherHttpStatus { status: 418 },
        Cause::NotAnApi { status: 501 },
        Cause::NotAnEventStream {
            content_type: "text/html".into(),
        },
        Cause::TraceContextRefused,
        Cause::ConnectionFailed { hints: Vec::new() },
        Cause::Timeout {
            after_ms: None,
            headers_received: false,
        },
        Cause::Aborted,
        Cause::MidStreamError { error_kind: None },
        Cause::MalformedChunk {
            detail: String::new(),
        },
        Cause::EmptyStream,
        Cause::EndedWithoutTerminal,
    ];
    for cause in causes {
        let kind = serde_json::to_value(&cause).unwrap()["kind"].clone();
        assert_eq!(json!(cause.code()), kind);
    }
}

#[test]
fn a_version_1_document_imports_without_migration() {
    // The example of docs/export-schema.md as version 1 wrote it.
    let text = include_str!("export_fixture/version1.json");
    let document = ExportDocument::from_json(text).unwrap();
    assert_eq!(document.schema_version, 1);
    assert!(!document.runs.is_empty());
    for run in &document.runs {
        assert_eq!(run.diagnosis, None);
        assert_eq!(run.experiment, None);
    }
    // Written again, it is a version-2 document that reads back as itself.
    let again = ExportDocument::from_json(&document.to_json().unwrap()).unwrap();
    assert_eq!(again.schema_version, SCHEMA_VERSION);
    assert_eq!(again.runs, document.canonicalized().unwrap().runs);
}

#[test]
fn a_version_2_document_imports_its_gaps_into_the_compact_form() {
    // The example of docs/export-schema.md as version 2 wrote it: every gap in an array.
    let text = include_str!("export_fixture/version2.json");
    let document = ExportDocument::from_json(text).unwrap();
    assert_eq!(document.schema_version, 2);
    let gaps = &document.runs[0].metrics.itl_gaps;
    assert_eq!((gaps.count(), gaps.sample_ms()), (1, &[500.0][..]));
    assert_eq!(gaps.histogram().collect::<Vec<_>>(), [(500.0, 1)]);
    assert_eq!(document.runs[0].arrival_delay_bound_ms, None);
    assert_eq!(document.runs[0].instants.headers_received_from, None);
    // Written again, it is a current document that reads back as itself.
    let again = ExportDocument::from_json(&document.to_json().unwrap()).unwrap();
    assert_eq!(again.schema_version, SCHEMA_VERSION);
    assert_eq!(again.runs, document.canonicalized().unwrap().runs);
}
