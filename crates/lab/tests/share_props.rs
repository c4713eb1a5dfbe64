//! Share links round-trip: whatever the results, a link that is made reads back as exactly
//! the normalized results (times to 0.1 ms, strings cleaned and cut), and reading never
//! panics on arbitrary input.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use proptest::prelude::*;
use ttft_core::timeline::HttpProtocol;
use ttft_lab::share::{decode, encode, encode_fitting, ShareError, SharedResults, SharedRun};

fn time() -> impl Strategy<Value = Option<f64>> {
    prop_oneof![
        4 => (0.0..5_000.0f64).prop_map(Some),
        1 => Just(None),
        1 => prop_oneof![
            Just(Some(f64::NAN)),
            Just(Some(-1.0)),
            Just(Some(1e12)),
            Just(Some(86_400_000.0)),
            (0.0..1.0f64).prop_map(Some)
        ],
    ]
}

fn text(max: usize) -> impl Strategy<Value = String> {
    proptest::string::string_regex(&format!(".{{0,{max}}}")).unwrap()
}

fn run() -> impl Strategy<Value = SharedRun> {
    (
        any::<u32>(),
        proptest::option::of(text(80)),
        proptest::option::of(prop::sample::select(vec!["cold", "warm", "A", "B · 4k"])),
        prop::sample::select(vec!["completed", "http_error", "network_failure"]),
        (
            proptest::option::of(any::<bool>()),
            proptest::option::of(prop::sample::select(HttpProtocol::ALL.to_vec())),
        ),
        [time(), time(), time(), time(), time(), time(), time()],
    )
        .prop_map(
            |(run_index, label, cohort, outcome, (cold, http_protocol), times)| SharedRun {
                http_protocol,
                run_index,
                label,
                cohort: cohort.map(str::to_owned),
                outcome: outcome.to_owned(),
                cold,
                ttft_ms: times[0],
                ttfa_ms: times[1],
                ttfr_ms: times[2],
                perceived_ttfa_ms: times[3],
                first_chunk_ms: times[4],
                e2e_ms: times[5],
                itl_ms: times[6],
            },
        )
}

fn results() -> impl Strategy<Value = SharedResults> {
    (
        text(20),
        proptest::option::of(text(40)),
        proptest::option::of(text(600)),
        proptest::option::of(text(300)),
        prop::collection::vec(run(), 1..60),
    )
        .prop_map(|(version, host, slo, prompt, runs)| SharedResults {
            tool_version: version,
            created_at: "2026-11-29T16:45:10.123Z".into(),
            host,
            model: Some("sim-fast".into()),
            protocol: None,
            environment: None,
            slo,
            prompt,
            runs,
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn a_link_reads_back_as_the_normalized_results(results in results()) {
        match encode(&results) {
            Ok(fragment) => {
                prop_assert!(fragment.len() <= ttft_lab::share::MAX_FRAGMENT_BYTES);
                prop_assert_eq!(decode(&fragment).unwrap(), results.normalized());
            }
            Err(ShareError::TooLarge { .. }) => {
                let (fragment, kept) = encode_fitting(&results, ttft_lab::share::MAX_FRAGMENT_BYTES).unwrap();
                let decoded = decode(&fragment).unwrap();
                prop_assert_eq!(decoded.runs.len(), kept);
            }
            Err(other) => prop_assert!(false, "unexpected {other:?}"),
        }
    }

    #[test]
    fn normalizing_twice_changes_nothing(results in results()) {
        prop_assert_eq!(results.normalized().normalized(), results.normalized());
    }

    #[test]
    fn reading_arbitrary_text_never_panics(text in ".{0,400}") {
        let _ = decode(&text);
        let _ = decode(&format!("share=v1.{text}"));
    }
}
