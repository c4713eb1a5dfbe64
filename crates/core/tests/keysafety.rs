//! Issue 11 natively: the key never leaves in anything the engine hands out or records, a
//! run's memory is bounded, URL credentials and redirects are refused, and the stored
//! history's rules (renumbering, scrubbing, refusal of records holding the key).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use proptest::prelude::*;
use ttft_core::diagnosis::Cause;
use ttft_core::export::{Environment, ExportDocument, ImportError};
use ttft_core::failure::NetworkFailure;
use ttft_core::history::{self, HistoryNotice};
use ttft_core::lang::Lang;
use ttft_core::measure::{
    FetchError, FinishContext, Measurement, Progress, ResponseHead, RunInput, RunPlan,
    MAX_ERROR_BODY_BYTES, MAX_PROVIDER_TEXT_BYTES, REDIRECT_ERROR_NAME,
};
use ttft_core::protocol::{Protocol, ProtocolChoice};
use ttft_core::quote::MAX_QUOTED_CHARS;
use ttft_core::record::{RunRecord, Transport};
use ttft_core::request::{normalize_base_url, UrlError};
use ttft_core::scrub::{KeyScrubber, REPLACEMENT, WINDOW_CHARS};
use ttft_core::timeline::RunOutcome;

const LONG_KEY: &str = "sk-ttftmeter-CANARY-7f3a9c2e5b1d4806aa17";
const SHORT_KEY: &str = "k9Qz2Lm4Xw";
const JWT_KEY: &str = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ0dGZ0LWNhbmFyeSJ9.Zm9vYmFyYmF6cXV4";
const KEYS: [&str; 3] = [LONG_KEY, SHORT_KEY, JWT_KEY];

/// Every 8-character window of `key` found in `text` (an oracle independent of the
/// scrubber).
fn windows_in(key: &str, text: &str) -> Vec<String> {
    let width = key.len().min(WINDOW_CHARS);
    key.as_bytes()
        .windows(width)
        .map(|window| String::from_utf8_lossy(window).into_owned())
        .filter(|window| text.contains(window.as_str()))
        .collect()
}

fn base64(data: &[u8], url_safe: bool) -> String {
    let alphabet: &[u8] = if url_safe {
        b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    } else {
        b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    };
    let mut out = String::new();
    for group in data.chunks(3) {
        let value = (u32::from(group[0]) << 16)
            | (u32::from(*group.get(1).unwrap_or(&0)) << 8)
            | u32::from(*group.get(2).unwrap_or(&0));
        for index in 0..=group.len() {
            out.push(alphabet[((value >> (18 - 6 * index)) & 63) as usize] as char);
        }
        for _ in group.len()..3 {
            out.push('=');
        }
    }
    out
}

fn plan(protocol: Protocol, key: &str) -> RunPlan {
    RunPlan::parse(&RunInput {
        protocol: ProtocolChoice::Fixed(protocol),
        base_url: "http://127.0.0.1:8787/v1",
        api_key: key,
        model: "sim-fast",
        prompt: "Hi",
        max_tokens: "",
        reasoning: false,
        timeout_s: "",
        ttft_only: false,
    })
    .unwrap()
}

fn finish(run: Measurement) -> RunRecord {
    run.finish(&FinishContext::new(
        "2026-12-01T00:00:00.000Z",
        Transport::Worker,
    ))
}

fn progress_text(progress: &[Progress]) -> String {
    progress
        .iter()
        .filter_map(|item| match item {
            Progress::Text { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

/// The echo of a naive gateway: the key in clear, base64 and URL-encoded.
fn echo(key: &str) -> String {
    let pct: String = key
        .bytes()
        .map(|byte| {
            if byte.is_ascii_alphanumeric() || b"-_.~".contains(&byte) {
                (byte as char).to_string()
            } else {
                format!("%{byte:02X}")
            }
        })
        .collect();
    format!(
        "Incorrect API key provided. Received authorization: Bearer {key}; the key base64-encoded: {}; basic: {}; URL-encoded: {pct}.",
        base64(format!("Bearer {key}").as_bytes(), false),
        base64(format!("user:{key}").as_bytes(), true),
    )
}

#[test]
fn an_error_body_echoing_the_key_is_scrubbed_before_the_diagnosis_and_the_record() {
    for key in KEYS {
        let mut run = Measurement::new(&plan(Protocol::OpenAiChat, key), None, 1000.0, 1);
        run.on_headers(
            1005.0,
            ResponseHead {
                status: 401,
                content_type: "application/json".into(),
                retry_after: None,
                timing_headers: Vec::new(),
            },
        );
        let body = serde_json::json!({"error": {"message": echo(key), "type": "invalid_request_error", "code": "invalid_api_key"}});
        let mut progress = Vec::new();
        let text = body.to_string();
        // Split inside the key: the error body is scrubbed whole, not per read.
        let (first, second) = text.split_at(text.find(key).unwrap() + 5);
        let _ = run.on_chunk(1010.0, first.as_bytes(), &mut progress);
        let _ = run.on_chunk(1011.0, second.as_bytes(), &mut progress);
        run.on_end(1012.0, &mut progress);
        let record = finish(run);
        let diagnosis = record.diagnosis.clone().unwrap();
        assert_eq!(
            record.diagnosis_cause.as_deref(),
            Some(Cause::KeyRefused.code())
        );
        let quoted = diagnosis.provider_message.clone().unwrap();
        assert!(quoted.contains(REPLACEMENT), "{quoted}");
        for lang in [Lang::En, Lang::Zh] {
            let shown = format!("{} {}", diagnosis.message(lang), diagnosis.fix(lang));
            assert_eq!(windows_in(key, &shown), Vec::<String>::new(), "{shown}");
        }
        let json = serde_json::to_string(&record).unwrap();
        assert_eq!(
            windows_in(key, &json),
            Vec::<String>::new(),
            "{key}: {json}"
        );
        let scrubber = KeyScrubber::new(key).unwrap();
        assert!(
            !scrubber.contains_key(&json),
            "an encoded form is left: {json}"
        );
    }
}

#[test]
fn a_midstream_error_echoing_the_key_and_an_answer_holding_it_are_scrubbed() {
    for key in KEYS {
        let mut run = Measurement::new(&plan(Protocol::OpenAiChat, key), None, 1000.0, 1);
        run.on_headers(1005.0, ResponseHead::event_stream(200));
        let delta = |text: &str| {
            format!(
                "data: {}\n\n",
                serde_json::json!({"choices": [{"index": 0, "delta": {"content": text}}]})
            )
        };
        // The key split across events, and an event split across reads inside the key.
        let (head, tail) = key.split_at(5);
        let mut stream = String::new();
        stream.push_str(&delta("Your key: "));
        stream.push_str(&delta(head));
        stream.push_str(&delta(tail));
        stream.push_str(&delta(&format!(" again {key} and {}", &key[1..9])));
        stream.push_str(&format!(
            "data: {}\n\n",
            serde_json::json!({"error": {"message": echo(key), "type": "invalid_request_error", "code": key}})
        ));
        let mut progress = Vec::new();
        let cut = stream.find(&key[2..]).unwrap() + 3;
        let _ = run.on_chunk(1010.0, &stream.as_bytes()[..cut], &mut progress);
        let _ = run.on_chunk(1011.0, &stream.as_bytes()[cut..], &mut progress);
        run.on_end(1012.0, &mut progress);
        let shown = progress_text(&progress);
        assert!(shown.starts_with("Your key: "), "{shown}");
        assert_eq!(windows_in(key, &shown), Vec::<String>::new(), "{shown}");
        let record = finish(run);
        assert!(matches!(record.outcome, RunOutcome::StreamError { .. }));
        let json = serde_json::to_string(&record).unwrap();
        assert_eq!(windows_in(key, &json), Vec::<String>::new(), "{json}");
        assert!(!KeyScrubber::new(key).unwrap().contains_key(&json));
    }
}

#[test]
fn without_a_key_nothing_is_changed() {
    let mut run = Measurement::new(&plan(Protocol::OpenAiChat, ""), None, 1000.0, 1);
    run.on_headers(1005.0, ResponseHead::event_stream(200));
    let mut progress = Vec::new();
    let _ = run.on_chunk(
        1010.0,
        b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"sk-looks-like-a-key-but-is-not\"}}]}\n\ndata: [DONE]\n\n",
        &mut progress,
    );
    assert_eq!(progress_text(&progress), "sk-looks-like-a-key-but-is-not");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Whatever text a provider streams, however it is cut into events, nothing shown
    /// holds an 8-character window of the key.
    #[test]
    fn no_window_of_the_key_is_ever_shown(
        key in "[!-~]{8,48}",
        pieces in proptest::collection::vec((0usize..3, 0usize..48, 1usize..48, "[ a-z]{0,6}"), 1..30),
        cuts in proptest::collection::vec(1usize..12, 1..40),
    ) {
        prop_assume!(!key.trim().is_empty() && key.trim() == key);
        // A text made of key pieces (whole, slices, the key twice) and filler.
        let mut text = String::new();
        for (kind, start, len, filler) in &pieces {
            let start = start % key.len();
            let end = (start + len).min(key.len());
            match kind {
                0 => text.push_str(&key),
                1 => text.push_str(&key[start..end]),
                _ => text.push_str(filler),
            }
        }
        let scrubber = KeyScrubber::new(&key).unwrap();
        let mut state = ttft_core::scrub::StreamScrub::default();
        let mut shown = String::new();
        let mut rest = text.as_str();
        let mut cut_index = 0;
        while !rest.is_empty() {
            let mut take = cuts[cut_index % cuts.len()].min(rest.len());
            while !rest.is_char_boundary(take) { take += 1; }
            let (piece, after) = rest.split_at(take);
            let mut piece = piece.to_owned();
            scrubber.scrub_stream(&mut state, &mut piece);
            shown.push_str(&piece);
            rest = after;
            cut_index += 1;
        }
        prop_assert_eq!(windows_in(&key, &shown), Vec::<String>::new(), "{}", shown);
        prop_assert!(!scrubber.contains_key(&shown));
        // Whole-text scrubbing agrees.
        prop_assert_eq!(windows_in(&key, &scrubber.scrub(&text)), Vec::<String>::new());
    }

    /// Text that holds no window of the key (nor of its encodings) is left as it is.
    #[test]
    fn other_text_is_untouched(text in "[ -~]{0,200}", key in "[A-Za-z0-9]{20,40}") {
        let scrubber = KeyScrubber::new(&key).unwrap();
        prop_assume!(!scrubber.contains_key(&text));
        prop_assert_eq!(scrubber.scrub(&text), text.as_str());
    }
}

/// A 64 MiB answer in ~1 KiB events, read 64 KiB at a time: what the engine keeps stays
/// within its stated bound (no text, the bounded inter-token gaps, the scratch of one read).
#[test]
fn a_run_of_a_64_mib_answer_keeps_only_its_bound() {
    const ANSWER_BYTES: usize = 64 * 1024 * 1024;
    const READ_BYTES: usize = 64 * 1024;
    let mut run = Measurement::new(&plan(Protocol::OpenAiChat, LONG_KEY), None, 1000.0, 1);
    run.on_headers(1005.0, ResponseHead::event_stream(200));
    let text = "x".repeat(1000);
    let event =
        format!("data: {{\"choices\":[{{\"index\":0,\"delta\":{{\"content\":\"{text}\"}}}}]}}\n\n");
    let events_per_read = READ_BYTES / event.len();
    let read = event.repeat(events_per_read);
    let mut answered = 0usize;
    let mut events = 0usize;
    let mut progress = Vec::new();
    let mut largest_retained = 0;
    let mut now_ms = 1010.0;
    while answered < ANSWER_BYTES {
        progress.clear();
        let _ = run.on_chunk(now_ms, read.as_bytes(), &mut progress);
        now_ms += 1.0;
        answered += text.len() * events_per_read;
        events += events_per_read;
        let retained = run.retained();
        largest_retained = largest_retained.max(retained.total_bytes());
        let itl_bound = 16 * ttft_core::itl::MAX_BINS + 8 * ttft_core::itl::MAX_SAMPLE;
        let bound = MAX_ERROR_BODY_BYTES + 2 * MAX_PROVIDER_TEXT_BYTES + itl_bound + 2 * READ_BYTES;
        assert!(
            retained.total_bytes() <= bound,
            "{retained:?} over {bound} after {answered} bytes"
        );
        assert!(retained.text_arrival_bytes <= itl_bound);
        assert!(retained.scratch_bytes <= 2 * READ_BYTES);
    }
    run.on_end(now_ms, &mut progress);
    let record = finish(run);
    assert_eq!(record.metrics.output_tokens_counted, Some(events as u64));
    // 67,108 events: at most 48 KiB of gaps, against 64 MiB of text that was not kept.
    assert!(largest_retained < 512 * 1024, "{largest_retained}");
}

#[test]
fn provider_objects_are_bounded_in_the_record() {
    let mut run = Measurement::new(&plan(Protocol::OpenAiChat, ""), None, 1000.0, 1);
    run.on_headers(1005.0, ResponseHead::event_stream(200));
    // Two fields of 400 KiB: far over the 16 KiB kept, under the parser's 1 MiB event limit.
    let huge = "m".repeat(400 * 1024);
    let event = format!(
        "data: {}\n\n",
        serde_json::json!({"error": {"message": huge, "type": "server_error", "extra": huge}})
    );
    let mut progress = Vec::new();
    let _ = run.on_chunk(1010.0, event.as_bytes(), &mut progress);
    run.on_end(1011.0, &mut progress);
    let record = finish(run);
    let RunOutcome::StreamError { error } = &record.outcome else {
        panic!("{:?}", record.outcome);
    };
    // Every provider string is a quote: 200 characters and the ellipsis, in the raw object
    // too, which keeps its shape.
    assert_eq!(error.message.chars().count(), MAX_QUOTED_CHARS + 1);
    assert_eq!(
        error.raw["extra"].as_str().unwrap().chars().count(),
        MAX_QUOTED_CHARS + 1
    );
    assert_eq!(error.raw["type"], "server_error");
    let stored = serde_json::to_string(&record).unwrap().len();
    assert!(stored < 8 * 1024, "{stored} bytes");
}

/// Issue 23: a 200 answer whose `Content-Type` is 64 KB is quoted in 200 characters in the
/// "not a stream" diagnosis, in both languages, and the record stays small.
#[test]
fn a_huge_content_type_is_quoted_within_its_bound() {
    let mut run = Measurement::new(&plan(Protocol::OpenAiChat, ""), None, 1000.0, 1);
    let content_type = format!("application/json; x={}", "a".repeat(65_536 - 20));
    run.on_headers(
        1005.0,
        ResponseHead {
            content_type: content_type.clone(),
            ..ResponseHead::event_stream(200)
        },
    );
    let mut progress = Vec::new();
    let _ = run.on_chunk(1010.0, br#"{"id":"x","choices":[]}"#, &mut progress);
    run.on_end(1011.0, &mut progress);
    let record = finish(run);
    assert_eq!(
        record.diagnosis_cause.as_deref(),
        Some("not_an_event_stream")
    );
    let diagnosis = record.diagnosis.as_ref().unwrap();
    for lang in [Lang::En, Lang::Zh] {
        let message = diagnosis.message(lang);
        assert!(message.contains("application/json; x=aaa"), "{message}");
        assert!(
            message.chars().count() < 600,
            "{} characters",
            message.chars().count()
        );
    }
    let stored = serde_json::to_string(&record).unwrap().len();
    assert!(
        stored < 8 * 1024,
        "{stored} bytes (was 134 KB before the bound)"
    );
}

#[test]
fn a_redirect_is_its_own_cause() {
    let mut run = Measurement::new(&plan(Protocol::OpenAiChat, LONG_KEY), None, 1000.0, 1);
    let mut progress = Vec::new();
    run.on_failure(
        1004.0,
        &FetchError {
            name: REDIRECT_ERROR_NAME.into(),
            message: "the server redirected the request".into(),
        },
        None,
        &mut progress,
    );
    let record = finish(run);
    assert_eq!(
        record.outcome,
        RunOutcome::NetworkFailure {
            failure: NetworkFailure::Redirected
        }
    );
    let diagnosis = record.diagnosis.unwrap();
    assert_eq!(record.diagnosis_cause.as_deref(), Some("redirected"));
    assert!(diagnosis
        .message(Lang::En)
        .contains("the key was not sent to the new address"));
    assert!(diagnosis.message(Lang::Zh).contains("密钥没有发送到新地址"));
}

#[test]
fn user_and_password_in_a_base_url_are_refused() {
    for url in [
        "https://user:pass@api.example.com/v1",
        "https://sk-123@api.example.com",
        "user:pass@127.0.0.1:8000/v1",
    ] {
        assert_eq!(
            normalize_base_url(url, Protocol::OpenAiChat),
            Err(UrlError::Credentials),
            "{url}"
        );
    }
    assert!(normalize_base_url("https://api.example.com/v1/x@y", Protocol::OpenAiChat).is_ok());
    let error = UrlError::Credentials;
    assert!(error.message(Lang::En).contains("user:password@host"));
    assert!(error.message(Lang::Zh).contains("用户名或密码"));
}

fn record_with(run_index: u32, model: &str) -> RunRecord {
    let mut run = Measurement::new(&plan(Protocol::OpenAiChat, ""), None, 1000.0, 1);
    run.on_headers(1005.0, ResponseHead::event_stream(200));
    let mut progress = Vec::new();
    let _ = run.on_chunk(
        1010.0,
        b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"}}]}\n\ndata: [DONE]\n\n",
        &mut progress,
    );
    run.on_end(1011.0, &mut progress);
    let mut record = finish(run);
    record.run_index = run_index;
    record.settings.model = model.to_owned();
    record
}

fn document(runs: Vec<RunRecord>) -> ExportDocument {
    let mut document = ExportDocument::new(
        "0.1.0",
        "2026-12-01T00:00:00.000Z",
        Environment {
            user_agent: "test".into(),
            timer_resolution_ms: None,
            cross_origin_isolated: false,
            transport: Transport::Worker,
            page_origin: "http://127.0.0.1:8787".into(),
        },
    );
    document.runs = runs;
    document
}

#[test]
fn imported_runs_are_renumbered_when_their_numbers_do_not_rise_and_scrubbed() {
    let scrubber = KeyScrubber::new(LONG_KEY).unwrap();
    for numbers in [vec![1, 1, 2], vec![3, 2, 1], vec![0, 1, 2], vec![5, 9, 9]] {
        let runs = numbers
            .iter()
            .map(|&number| record_with(number, &format!("model {LONG_KEY}")))
            .collect();
        let (runs, notice) = history::prepare_runs(runs, Some(&scrubber));
        assert_eq!(
            runs.iter().map(|run| run.run_index).collect::<Vec<_>>(),
            vec![1, 2, 3]
        );
        assert_eq!(notice, Some(HistoryNotice::Renumbered { runs: 3 }));
        assert!(runs
            .iter()
            .all(|run| run.settings.model == format!("model {REPLACEMENT}")));
    }
    let rising = vec![record_with(2, "a"), record_with(7, "b")];
    let (runs, notice) = history::prepare_runs(rising, None);
    assert_eq!(notice, None);
    assert_eq!(runs[1].run_index, 7);
    let message = HistoryNotice::Renumbered { runs: 3 }.message(Lang::En);
    assert!(message.contains("numbered again from 1 to 3"));
}

#[test]
fn storage_refuses_records_holding_the_key() {
    let scrubber = KeyScrubber::new(SHORT_KEY).unwrap();
    let runs = vec![
        record_with(1, "clean"),
        record_with(2, &format!("leaky {SHORT_KEY}")),
        record_with(3, "clean too"),
    ];
    let stored: Vec<history::StoredRun> = runs
        .iter()
        .map(|run| history::StoredRun::new(run).unwrap())
        .collect();
    let stored: Vec<&history::StoredRun> = stored.iter().collect();
    let (text, refused) =
        history::stored_text(&document(Vec::new()), &stored, Some(&scrubber)).unwrap();
    assert_eq!(refused, 1);
    assert!(!text.contains(SHORT_KEY));
    let read_back = ExportDocument::from_json(&text).unwrap();
    assert_eq!(
        read_back
            .runs
            .iter()
            .map(|run| run.run_index)
            .collect::<Vec<_>>(),
        vec![1, 3]
    );
    let (text, refused) = history::stored_text(&document(Vec::new()), &stored, None).unwrap();
    assert_eq!(refused, 0);
    // The spliced text is the document serde writes.
    assert_eq!(text, serde_json::to_string(&document(runs)).unwrap());
    assert!(HistoryNotice::KeyFound { runs: 1 }
        .message(Lang::Zh)
        .contains("API 密钥"));
}

#[test]
fn unreadable_or_newer_histories_say_why() {
    let newer = r#"{"schema":"ttft-meter/export","schema_version":99,"runs":[]}"#;
    let error = history::read_stored(newer, None).unwrap_err();
    assert!(matches!(error, ImportError::NewerVersion { found: 99, .. }));
    let notice = HistoryNotice::SetAside {
        slot: "ttft-meter.runs.v1.unreadable-2026".into(),
        reason: error,
    };
    let message = notice.message(Lang::En);
    assert!(
        message.contains("ttft-meter.runs.v1.unreadable-2026"),
        "{message}"
    );
    assert!(message.contains("schema version 99"), "{message}");
    assert!(matches!(
        history::read_stored("{not json", None),
        Err(ImportError::NotJson { .. })
    ));
    let (runs, _) = history::read_stored(
        &serde_json::to_string(&document(vec![record_with(1, "a")])).unwrap(),
        None,
    )
    .unwrap();
    assert_eq!(runs.len(), 1);
}

/// The scrubber's cost on the hot path, against peers in the same run (printed, never
/// asserted): `cargo test --release -p ttft-core --test keysafety -- --ignored --nocapture`.
/// Peers: `str::contains` of the whole key (what a naive exact check costs), and the engine
/// without a key (what scrubbing adds to a run).
#[test]
#[ignore = "a measurement: run with --release --ignored --nocapture"]
#[allow(clippy::disallowed_methods)] // A benchmark reads the clock; the code it times does not.
fn scrubbing_cost() {
    use std::time::Instant;
    const TEXT_BYTES: usize = 64 * 1024 * 1024;
    let piece = "Here is a simulated answer from ttft-sim, with sk-ttft and 0123 pieces. ";
    let text = piece.repeat(TEXT_BYTES / piece.len());
    let scrubber = KeyScrubber::new(LONG_KEY).unwrap();
    let time = |label: &str, work: &mut dyn FnMut() -> usize| {
        let started = Instant::now();
        let result = work();
        let seconds = started.elapsed().as_secs_f64();
        println!(
            "{label}: {:.0} MB/s ({result})",
            text.len() as f64 / seconds / 1e6
        );
        seconds
    };
    let naive = time("str::contains(key)", &mut || {
        usize::from(text.contains(LONG_KEY))
    });
    let whole = time("KeyScrubber::contains_key", &mut || {
        usize::from(scrubber.contains_key(&text))
    });
    let mut state = ttft_core::scrub::StreamScrub::default();
    let streamed = time("scrub_stream, 16-byte pieces", &mut || {
        let mut replaced = 0;
        for chunk in text.as_bytes().chunks(16) {
            let mut piece = String::from_utf8_lossy(chunk).into_owned();
            scrubber.scrub_stream(&mut state, &mut piece);
            replaced += piece.len();
        }
        replaced
    });
    println!(
        "contains_key / str::contains: {:.2}x the time; streamed: {:.2}x",
        whole / naive,
        streamed / naive
    );
    // The engine with and without a key, on 16 MiB of answer in ~70-byte deltas.
    let event = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Here is a simulated answer \"}}]}\n\n";
    let read = event.repeat(64 * 1024 / event.len());
    let reads = (16 * 1024 * 1024) / read.len();
    let engine = |key: &str| {
        let mut run = Measurement::new(&plan(Protocol::OpenAiChat, key), None, 1000.0, 1);
        run.on_headers(1005.0, ResponseHead::event_stream(200));
        let mut progress = Vec::new();
        let started = Instant::now();
        for index in 0..reads {
            progress.clear();
            let _ = run.on_chunk(1010.0 + index as f64, read.as_bytes(), &mut progress);
        }
        started.elapsed().as_secs_f64()
    };
    let without = engine("");
    let with = engine(LONG_KEY);
    println!(
        "engine, 16 MiB of stream: {:.0} MB/s without a key, {:.0} MB/s with one ({:+.1}%)",
        (reads * read.len()) as f64 / without / 1e6,
        (reads * read.len()) as f64 / with / 1e6,
        (with / without - 1.0) * 100.0
    );
}
