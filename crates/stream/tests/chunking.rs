//! Chunk-boundary invariance: any split of the same bytes into reads yields identical events,
//! for every transcript and for generated streams mixing CR / LF / CRLF, BOMs, comments,
//! multibyte and invalid UTF-8. Generated streams are also checked against a deliberately
//! naive whole-input reference parser written from the WHATWG text.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use common::{load_fixtures, EXTRA_DIR, SHARED_DIR};
use proptest::prelude::*;
use proptest::sample::Index;
use ttft_stream::dialect::{DecodedEvent, StreamReader, StreamSummary};
use ttft_stream::sse::{SseEvent, SseParser};

/// What a parser run observably produced.
#[derive(Debug, PartialEq)]
struct ParseRun {
    events: Vec<SseEvent>,
    comment_count: usize,
    /// ttft-relay's notes (comments starting with `ttft-relay `), taken after every read.
    notes: Vec<String>,
    retry_ms: Option<u64>,
    last_event_id: Option<String>,
}

fn split_at_points<'a>(bytes: &'a [u8], points: &[Index]) -> Vec<&'a [u8]> {
    let mut cuts: Vec<usize> = points
        .iter()
        .map(|point| point.index(bytes.len() + 1))
        .collect();
    cuts.sort_unstable();
    cuts.dedup();
    let mut reads = Vec::new();
    let mut start = 0;
    for cut in cuts {
        reads.push(&bytes[start..cut]);
        start = cut;
    }
    reads.push(&bytes[start..]);
    reads
}

fn parse_reads(reads: &[&[u8]]) -> ParseRun {
    let mut parser = SseParser::new();
    let mut events = Vec::new();
    let mut notes = Vec::new();
    for read in reads {
        parser.feed_into(read, &mut events).unwrap();
        notes.extend(parser.take_notes());
    }
    parser.finish();
    ParseRun {
        events,
        comment_count: parser.comment_count(),
        notes,
        retry_ms: parser.retry_ms(),
        last_event_id: parser.last_event_id().map(str::to_owned),
    }
}

fn decode_reads(reads: &[&[u8]]) -> (Vec<DecodedEvent>, StreamSummary) {
    let mut reader = StreamReader::new(None);
    let mut decoded = Vec::new();
    for read in reads {
        reader.on_bytes_into(read, &mut decoded).unwrap();
    }
    (decoded, reader.finish())
}

/// A direct, non-incremental reading of WHATWG "Parsing/Interpreting an event stream".
fn reference_parse(bytes: &[u8]) -> ParseRun {
    let text = String::from_utf8_lossy(bytes);
    let text = text.strip_prefix('\u{FEFF}').unwrap_or(&text);
    let mut lines = Vec::new();
    let mut line = String::new();
    let mut chars = text.chars().peekable();
    while let Some(character) = chars.next() {
        match character {
            '\r' => {
                if chars.peek() == Some(&'\n') {
                    chars.next();
                }
                lines.push(std::mem::take(&mut line));
            }
            '\n' => lines.push(std::mem::take(&mut line)),
            other => line.push(other),
        }
    }
    // The unterminated last line (in `line`) is discarded with its event.
    let mut run = ParseRun {
        events: Vec::new(),
        comment_count: 0,
        notes: Vec::new(),
        retry_ms: None,
        last_event_id: None,
    };
    let (mut data, mut event_type, mut id_buffer, mut block_retry) =
        (String::new(), String::new(), None, None);
    for line in lines {
        if line.is_empty() {
            run.last_event_id.clone_from(&id_buffer);
            if !data.is_empty() {
                data.pop();
                run.events.push(SseEvent {
                    event: (!event_type.is_empty()).then(|| event_type.clone()),
                    data: std::mem::take(&mut data),
                    last_event_id: run.last_event_id.clone(),
                    retry_ms: block_retry,
                });
            }
            data.clear();
            event_type.clear();
            block_retry = None;
            continue;
        }
        if let Some(comment) = line.strip_prefix(':') {
            run.comment_count += 1;
            let comment = comment.strip_prefix(' ').unwrap_or(comment);
            if let Some(note) = comment.strip_prefix("ttft-relay ") {
                if run.notes.len() < ttft_stream::sse::MAX_NOTES
                    && note.len() <= ttft_stream::sse::MAX_NOTE_BYTES
                {
                    run.notes.push(note.to_owned());
                }
            }
            continue;
        }
        let (field, value) = match line.find(':') {
            Some(colon) => {
                let value = &line[colon + 1..];
                (&line[..colon], value.strip_prefix(' ').unwrap_or(value))
            }
            None => (line.as_str(), ""),
        };
        match field {
            "event" => event_type = value.to_owned(),
            "data" => {
                data.push_str(value);
                data.push('\n');
            }
            "id" if !value.contains('\0') => id_buffer = Some(value.to_owned()),
            "retry" if !value.is_empty() && value.chars().all(|c| c.is_ascii_digit()) => {
                if let Ok(retry) = value.parse() {
                    run.retry_ms = Some(retry);
                    block_retry = Some(retry);
                }
            }
            _ => {}
        }
    }
    run
}

/// One generated line, with its terminator.
fn line_strategy() -> impl Strategy<Value = Vec<u8>> {
    let value = prop_oneof![
        Just(String::new()),
        Just(" ".to_owned()),
        Just("  two spaces".to_owned()),
        Just("{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hé 你好 😀\"}}]}".to_owned()),
        Just("[DONE]".to_owned()),
        Just("12345".to_owned()),
        Just("a\0b".to_owned()),
        Just("x:y".to_owned()),
        "[a-z é你😀\u{FEFF}]{0,6}",
    ];
    let body = prop_oneof![
        (
            prop_oneof![
                Just("data"),
                Just("event"),
                Just("id"),
                Just("retry"),
                Just("foo")
            ],
            value.clone(),
            any::<bool>()
        )
            .prop_map(|(field, value, with_colon)| if with_colon {
                format!("{field}:{value}").into_bytes()
            } else {
                field.as_bytes().to_vec()
            }),
        value
            .clone()
            .prop_map(|comment| format!(":{comment}").into_bytes()),
        // ttft-relay's notes, kept by the parser (bounded in number and length).
        (any::<bool>(), value, 0..140_usize).prop_map(|(space, note, pad)| {
            let space = if space { " " } else { "" };
            format!(":{space}ttft-relay first-byte={note}{}", "x".repeat(pad)).into_bytes()
        }),
        Just(Vec::new()),
        // Invalid or truncated UTF-8 inside a data line.
        prop_oneof![
            Just(&b"\xE4\xBD"[..]),
            Just(&b"\x80"[..]),
            Just(&b"\xF0\x9F\x98"[..]),
            Just(&b"\xC0\xAF"[..])
        ]
        .prop_map(|bad| [b"data: ".as_slice(), bad].concat()),
    ];
    let terminator = prop_oneof![Just(&b"\n"[..]), Just(&b"\r"[..]), Just(&b"\r\n"[..])];
    (body, terminator).prop_map(|(body, terminator)| [body.as_slice(), terminator].concat())
}

fn stream_strategy() -> impl Strategy<Value = Vec<u8>> {
    (
        0..3_usize,
        proptest::collection::vec(line_strategy(), 0..40),
        proptest::option::of("[a-z:]{0,5}"),
    )
        .prop_map(|(bom_count, lines, unterminated)| {
            let mut bytes = "\u{FEFF}".repeat(bom_count).into_bytes();
            for line in lines {
                bytes.extend_from_slice(&line);
            }
            bytes.extend_from_slice(unterminated.unwrap_or_default().as_bytes());
            bytes
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn fixtures_give_identical_events_under_any_split(
        fixture_pick in any::<Index>(),
        points in proptest::collection::vec(any::<Index>(), 0..24),
    ) {
        let mut fixtures = load_fixtures(SHARED_DIR);
        fixtures.extend(load_fixtures(EXTRA_DIR));
        let fixture = &fixtures[fixture_pick.index(fixtures.len())];
        let whole = [fixture.bytes.as_slice()];
        let reads = split_at_points(&fixture.bytes, &points);
        prop_assert_eq!(parse_reads(&reads), parse_reads(&whole));
        prop_assert_eq!(decode_reads(&reads), decode_reads(&whole));
    }

    #[test]
    fn generated_streams_give_identical_events_under_any_split(
        bytes in stream_strategy(),
        points in proptest::collection::vec(any::<Index>(), 0..32),
    ) {
        let whole = parse_reads(&[bytes.as_slice()]);
        prop_assert_eq!(&whole, &reference_parse(&bytes));
        let reads = split_at_points(&bytes, &points);
        prop_assert_eq!(parse_reads(&reads), whole);
        let byte_by_byte: Vec<&[u8]> = bytes.chunks(1).collect();
        prop_assert_eq!(decode_reads(&byte_by_byte), decode_reads(&[bytes.as_slice()]));
    }
}

/// The reference itself must disagree with a wrong parse, or the property proves nothing.
#[test]
fn reference_parser_pins_known_answers() {
    let run = reference_parse(b"\xEF\xBB\xBFdata: a\r\rdata:b\r\ndata\n\nid: 3\nretry: 7\n: c\n");
    let datas: Vec<&str> = run.events.iter().map(|event| event.data.as_str()).collect();
    assert_eq!(datas, ["a", "b\n"]);
    assert_eq!(
        (run.comment_count, run.retry_ms, run.last_event_id),
        (1, Some(7), None)
    );
    let run = reference_parse(b":ttft-relay first-byte=1\n: ttft-relay x\n:  ttft-relay no\n");
    assert_eq!(run.notes, ["first-byte=1", "x"]);
    assert_eq!(
        parse_reads(&[b":ttft-relay first-byte=1\n: ttft-relay x\n:  ttft-relay no\n"]),
        run
    );
}
