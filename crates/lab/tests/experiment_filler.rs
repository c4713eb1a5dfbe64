//! Prompt filler and calibration against ttft-sim's counting rule (copied in
//! experiment_sim_model.rs) and a fake tokenizer.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::experiment_sim_model as sim_model;

use sim_model::{has_cjk, sim_count};
use ttft_core::lang::Lang;
use ttft_lab::experiment::filler::{filler_text, sim_token_count, sized_prompt, TokenCalibration};
use ttft_lab::experiment::run_nonce;

#[test]
fn counting_rule_table() {
    // Hand-counted: runs of non-space, non-ideograph characters are ceil(chars/4) tokens.
    let table: &[(&str, u32)] = &[
        ("", 0),
        (" \n\t", 0),
        ("a", 1),
        ("abcd", 1),
        ("abcde", 2),
        ("Hello, world!", 4),
        ("hi there", 3),
        ("你好", 2),
        ("你好，世界", 5),
        ("abc你def", 3),
        ("0123456789abcdef\n\nThe", 5),
    ];
    for (text, expected) in table {
        assert_eq!(sim_token_count(text), *expected, "{text:?}");
        assert_eq!(
            sim_count(text),
            u64::from(*expected),
            "copy of the rule, {text:?}"
        );
    }
}

#[test]
fn filler_has_exactly_the_target_count_in_both_languages() {
    let targets = [
        0, 1, 2, 3, 7, 64, 99, 100, 1_000, 1_023, 4_096, 10_000, 33_333,
    ];
    for lang in [Lang::En, Lang::Zh] {
        for target in targets {
            let text = filler_text(target, lang);
            assert_eq!(sim_count(&text), u64::from(target), "{lang:?} {target}");
        }
    }
}

#[test]
fn filler_is_in_the_asked_language_and_deterministic() {
    let english = filler_text(500, Lang::En);
    let chinese = filler_text(500, Lang::Zh);
    assert!(!has_cjk(&english));
    assert!(english.starts_with("The time to first token"));
    assert!(chinese.chars().filter(|c| has_cjk(&c.to_string())).count() > 400);
    assert_eq!(english, filler_text(500, Lang::En));
    // A longer filler starts with the shorter one's text (up to the last words).
    let longer = filler_text(5_000, Lang::En);
    assert!(longer.starts_with(&english[..english.len() - 20]));
}

#[test]
fn sized_prompt_counts_the_nonce_and_puts_it_first() {
    for lang in [Lang::En, Lang::Zh] {
        for target in [10, 100, 1_000, 5_000] {
            let nonce = run_nonce(42, target as usize);
            let prompt = sized_prompt(target, lang, Some(&nonce));
            assert!(prompt.starts_with(&format!("{nonce}\n\n")));
            assert_eq!(sim_count(&prompt), u64::from(target), "{lang:?} {target}");
        }
    }
    // A nonce longer than the target: the nonce alone (4 tokens), more than asked.
    let nonce = run_nonce(1, 0);
    assert_eq!(sim_count(&sized_prompt(2, Lang::En, Some(&nonce))), 4);
    assert_eq!(sim_count(&sized_prompt(2, Lang::En, None)), 2);
}

#[test]
fn nonces_are_16_hex_digits_and_distinct() {
    let nonces: Vec<String> = (0..1_000).map(|i| run_nonce(7, i)).collect();
    let mut unique = nonces.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), nonces.len());
    assert!(nonces
        .iter()
        .all(|n| n.len() == 16 && n.chars().all(|c| c.is_ascii_hexdigit())));
    assert_ne!(run_nonce(7, 0), run_nonce(8, 0));
    assert_eq!(run_nonce(7, 3), run_nonce(7, 3));
}

/// A tokenizer that counts 1.3 tokens per sim token (rounded), plus a fixed template.
fn fake_tokenizer(text: &str, template_tokens: u64) -> u64 {
    (sim_count(text) as f64 * 1.3).round() as u64 + template_tokens
}

#[test]
fn one_calibration_brings_a_1_3x_tokenizer_within_2_percent() {
    let planned = 1_000;
    let observed = fake_tokenizer(&filler_text(planned, Lang::En), 0);
    assert_eq!(observed, 1_300);
    let calibration = TokenCalibration::from_observation(planned, observed).unwrap();
    assert!((calibration.tokens_per_sim_token - 1.3).abs() < 1e-12);
    for target in [100_u32, 1_000, 5_000, 10_000] {
        let uncalibrated = fake_tokenizer(&filler_text(target, Lang::En), 0) as f64;
        // Without calibration the count is 30% off.
        assert!((uncalibrated / f64::from(target) - 1.3).abs() < 0.01);
        let corrected = filler_text(calibration.planned_for(target), Lang::En);
        let counted = fake_tokenizer(&corrected, 0) as f64;
        let error = (counted - f64::from(target)).abs() / f64::from(target);
        assert!(error <= 0.02, "target {target}: counted {counted}");
    }
}

#[test]
fn two_sizes_separate_the_template_overhead() {
    let template_tokens = 40;
    let pairs: Vec<(u32, u64)> = [500_u32, 4_000]
        .iter()
        .map(|&planned| {
            (
                planned,
                fake_tokenizer(&filler_text(planned, Lang::Zh), template_tokens),
            )
        })
        .collect();
    let calibration = TokenCalibration::from_observations(&pairs).unwrap();
    assert!((calibration.tokens_per_sim_token - 1.3).abs() < 0.001);
    assert!((calibration.offset_tokens - 40.0).abs() < 1.0);
    for target in [200_u32, 1_000, 8_000] {
        let counted = fake_tokenizer(
            &filler_text(calibration.planned_for(target), Lang::Zh),
            template_tokens,
        ) as f64;
        assert!((counted - f64::from(target)).abs() / f64::from(target) <= 0.02);
    }
}

#[test]
fn calibration_edge_cases() {
    assert_eq!(TokenCalibration::from_observation(10, 13), None);
    assert_eq!(TokenCalibration::from_observation(1_000, 0), None);
    assert_eq!(TokenCalibration::from_observations(&[]), None);
    // One size repeated: the ratio of sums through the origin.
    let same = TokenCalibration::from_observations(&[(1_000, 1_200), (1_000, 1_400)]).unwrap();
    assert!((same.tokens_per_sim_token - 1.3).abs() < 1e-12);
    assert_eq!(same.offset_tokens, 0.0);
    assert_eq!(TokenCalibration::IDENTITY.planned_for(1_234), 1_234);
    let broken = TokenCalibration {
        tokens_per_sim_token: f64::NAN,
        offset_tokens: 0.0,
    };
    assert_eq!(broken.planned_for(77), 77);
    let big_offset = TokenCalibration {
        tokens_per_sim_token: 1.0,
        offset_tokens: 500.0,
    };
    assert_eq!(big_offset.planned_for(100), 0);
}

mod properties {
    use super::sim_model::sim_count;
    use proptest::prelude::*;
    use ttft_core::lang::Lang;
    use ttft_lab::experiment::filler::{sim_token_count, sized_prompt};
    use ttft_lab::experiment::interleaved_order;

    fn lang() -> impl Strategy<Value = Lang> {
        prop_oneof![Just(Lang::En), Just(Lang::Zh)]
    }

    proptest! {
        #[test]
        fn sized_prompt_has_the_target_or_the_nonce_count(
            target in 0_u32..12_000,
            lang in lang(),
            nonce in "\\PC{0,24}",
        ) {
            let prompt = sized_prompt(target, lang, Some(&nonce));
            let nonce_tokens = u64::from(sim_token_count(&nonce));
            prop_assert_eq!(sim_count(&prompt), u64::from(target).max(nonce_tokens));
            prop_assert_eq!(u64::from(sim_token_count(&prompt)), sim_count(&prompt));
        }

        #[test]
        fn every_round_runs_every_level_once(
            levels in 1_usize..9,
            repetitions in 0_usize..7,
            seed in any::<u64>(),
        ) {
            let order = interleaved_order(levels, repetitions, seed);
            prop_assert_eq!(order.len(), levels * repetitions);
            for (round, chunk) in order.chunks(levels).enumerate() {
                let mut seen: Vec<usize> = chunk.iter().map(|p| p.0).collect();
                seen.sort_unstable();
                prop_assert_eq!(seen, (0..levels).collect::<Vec<_>>());
                prop_assert!(chunk.iter().all(|p| p.1 == round));
            }
        }
    }
}
