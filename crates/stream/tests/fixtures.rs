//! Every transcript, fed whole, byte by byte and by its replay plan, gives exactly its oracle
//! entry (tests/fixtures/sse/EXPECTED.json, and extra/EXPECTED.json for the transcripts written
//! from the documentation).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use common::{feeding_ways, load_fixtures, run_reads, Fixture, EXTRA_DIR, SHARED_DIR};
use ttft_stream::dialect::{Dialect, Outcome};

fn assert_matches_oracle(fixtures: &[Fixture], auto: bool) {
    for fixture in fixtures {
        let dialect = if auto { None } else { Some(fixture.dialect()) };
        for (way, reads) in feeding_ways(fixture) {
            let summary = run_reads(dialect, reads);
            assert_eq!(
                summary.to_expected_json(),
                fixture.expected,
                "{} fed {way} (dialect {dialect:?})",
                fixture.name
            );
        }
    }
}

#[test]
fn shared_transcripts_match_oracle_with_their_dialect() {
    let fixtures = load_fixtures(SHARED_DIR);
    assert_eq!(fixtures.len(), 17);
    assert_eq!(
        fixtures
            .iter()
            .filter(|fixture| fixture.replay_reads.is_some())
            .count(),
        2
    );
    assert_matches_oracle(&fixtures, false);
}

#[test]
fn extra_transcripts_match_oracle_with_their_dialect() {
    let fixtures = load_fixtures(EXTRA_DIR);
    assert_eq!(fixtures.len(), 7);
    assert!(fixtures
        .iter()
        .all(|fixture| fixture.replay_reads.is_some()));
    assert_matches_oracle(&fixtures, false);
}

/// Auto-detection gives every oracle entry, dialect included. For
/// `think_tags_missing_open.sse` the oracle describes the stream read as
/// `chat+think_missing_open`; auto-detection reaches exactly those values (reasoning from
/// event 1, first answer at event 6, visible at 7) by re-attributing the plain content when
/// the `</think>` without an opening tag arrives.
#[test]
fn auto_detection_matches_oracle_for_every_transcript() {
    for dir in [SHARED_DIR, EXTRA_DIR] {
        assert_matches_oracle(&load_fixtures(dir), true);
    }
}

/// The transcript has no replay plan of its own: these reads cut through the `</think>`
/// event's JSON, through the tag itself, and through the blank line before it.
#[test]
fn missing_open_think_under_auto_fed_by_reads_that_cut_the_tag() {
    let fixture = load_fixtures(SHARED_DIR)
        .into_iter()
        .find(|fixture| fixture.name == "think_tags_missing_open.sse")
        .unwrap();
    let bytes = fixture.bytes.as_slice();
    let tag_at = bytes
        .windows(b"</think>".len())
        .position(|window| window == b"</think>")
        .unwrap();
    let cuts = [tag_at - 30, tag_at - 1, tag_at + 2, tag_at + 5, tag_at + 8];
    let mut reads = Vec::new();
    let mut start = 0;
    for cut in cuts {
        reads.push(&bytes[start..cut]);
        start = cut;
    }
    reads.push(&bytes[start..]);
    let summary = run_reads(None, reads);
    assert_eq!(summary.to_expected_json(), fixture.expected);
    assert_eq!(summary.dialect, Dialect::ChatThinkMissingOpen);
}

#[test]
fn outcomes_of_shared_transcripts() {
    let expected_outcome = |name: &str| match name {
        "openai_error_midstream.sse"
        | "anthropic_error_overloaded.sse"
        | "responses_api_error_midstream.sse"
        | "llamacpp_error_midstream.sse" => Outcome::StreamError,
        _ => Outcome::Completed,
    };
    for fixture in load_fixtures(SHARED_DIR) {
        let summary = run_reads(Some(fixture.dialect()), [fixture.bytes.as_slice()]);
        assert_eq!(
            summary.outcome,
            expected_outcome(&fixture.name),
            "{}",
            fixture.name
        );
        assert_eq!(summary.malformed_event_count, 0, "{}", fixture.name);
    }
}

#[test]
fn normalized_usage_of_shared_transcripts() {
    // (fixture, prompt, cached, cache creation, output, reasoning)
    type Tokens = Option<u64>;
    let table: [(&str, Tokens, Tokens, Tokens, Tokens, Tokens); 6] = [
        (
            "openai_include_usage_cached.sse",
            Some(2006),
            Some(1920),
            None,
            Some(4),
            Some(0),
        ),
        (
            "deepseek_reasoning_content.sse",
            Some(97),
            Some(64),
            None,
            Some(106),
            Some(88),
        ),
        ("vllm_reasoning.sse", Some(19), None, None, Some(42), None),
        (
            "anthropic_thinking.sse",
            Some(100_050),
            Some(100_000),
            Some(0),
            Some(89),
            None,
        ),
        (
            "anthropic_error_overloaded.sse",
            Some(18),
            Some(0),
            Some(0),
            Some(1),
            None,
        ),
        (
            "responses_api_reasoning.sse",
            Some(4006),
            Some(0),
            None,
            Some(13),
            Some(0),
        ),
    ];
    let fixtures = load_fixtures(SHARED_DIR);
    for (name, prompt, cached, creation, output, reasoning) in table {
        let fixture = fixtures
            .iter()
            .find(|fixture| fixture.name == name)
            .unwrap();
        let usage = run_reads(Some(fixture.dialect()), [fixture.bytes.as_slice()])
            .usage
            .unwrap();
        assert_eq!(
            (
                usage.prompt_tokens,
                usage.cached_prompt_tokens,
                usage.cache_creation_tokens,
                usage.output_tokens,
                usage.reasoning_tokens
            ),
            (prompt, cached, creation, output, reasoning),
            "{name}"
        );
    }
}

#[test]
fn error_kinds_of_shared_transcripts() {
    let table = [
        ("openai_error_midstream.sse", "server_error"),
        ("anthropic_error_overloaded.sse", "overloaded_error"),
        ("responses_api_error_midstream.sse", "ERR_SOMETHING"),
        ("llamacpp_error_midstream.sse", "server_error"),
    ];
    let fixtures = load_fixtures(SHARED_DIR);
    for (name, kind) in table {
        let fixture = fixtures
            .iter()
            .find(|fixture| fixture.name == name)
            .unwrap();
        let error = run_reads(Some(fixture.dialect()), [fixture.bytes.as_slice()])
            .error
            .unwrap();
        assert_eq!(error.kind.as_deref(), Some(kind), "{name}");
        assert!(!error.message.is_empty(), "{name}");
    }
}

#[test]
fn outcomes_of_extra_transcripts() {
    for fixture in load_fixtures(EXTRA_DIR) {
        let summary = run_reads(Some(fixture.dialect()), [fixture.bytes.as_slice()]);
        let expected = match fixture.name.as_str() {
            // vLLM sends `[DONE]` after its error: the marker does not make it a success.
            "openrouter_error_midstream.sse" | "vllm_error_then_done.sse" => Outcome::StreamError,
            _ => Outcome::Completed,
        };
        assert_eq!(summary.outcome, expected, "{}", fixture.name);
    }
}
