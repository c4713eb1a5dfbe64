//! Every verdict of every experiment, in English and Chinese: no untranslated leftovers.
//!
//! Each enum has an exhaustive `match` giving every variant an index; adding a variant
//! breaks the build here until it gets an index, and the coverage check then fails until
//! the example list has an instance of it.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::experiment_sim_model as sim_model;

use sim_model::has_cjk;
use ttft_core::lang::Lang;
use ttft_core::timeline::HttpProtocol;
use ttft_lab::experiment::cache::CacheVerdict;
use ttft_lab::experiment::concurrency::ConcurrencyVerdict;
use ttft_lab::experiment::max_tokens::MaxTokensVerdict;
use ttft_lab::experiment::models::ModelsVerdict;
use ttft_lab::experiment::monitor::{MonitorPercentile, MonitorVerdict};
use ttft_lab::experiment::prompt_length::PromptLengthVerdict;
use ttft_lab::experiment::reasoning::ReasoningVerdict;
use ttft_lab::experiment::tails::TailsVerdict;

/// Checks one message pair and returns both texts.
fn check(name: &str, en: String, zh: String) {
    assert!(
        !en.trim().is_empty() && !zh.trim().is_empty(),
        "{name}: empty"
    );
    assert!(!has_cjk(&en), "{name}: English text has CJK: {en}");
    assert!(has_cjk(&zh), "{name}: Chinese text has no CJK: {zh}");
    for text in [&en, &zh] {
        assert!(
            !text.contains('{') && !text.contains('}'),
            "{name}: placeholder left: {text}"
        );
        assert!(!text.contains("  "), "{name}: double space: {text}");
        assert!(
            !text.contains("NaN") && !text.contains("inf"),
            "{name}: {text}"
        );
    }
}

/// Asserts that the examples cover every index below `count`.
fn assert_covers(name: &str, indexes: impl Iterator<Item = usize>, count: usize) {
    let mut seen = vec![false; count];
    for index in indexes {
        seen[index] = true;
    }
    let missing: Vec<usize> = (0..count).filter(|i| !seen[*i]).collect();
    assert!(
        missing.is_empty(),
        "{name}: no example for variants {missing:?}"
    );
}

macro_rules! check_all {
    ($name:literal, $examples:expr, $index:expr, $count:expr) => {{
        let examples = $examples;
        assert_covers($name, examples.iter().map($index), $count);
        for example in &examples {
            check(
                &format!("{} {:?}", $name, example),
                example.message(Lang::En),
                example.message(Lang::Zh),
            );
            // The code shown in `data-verdict` is the serde tag of the export.
            let tag = serde_json::to_value(example).unwrap()["kind"].clone();
            assert_eq!(tag, example.code(), "{} {:?}", $name, example);
        }
        examples.len()
    }};
}

/// Example prompt length verdicts, covering every variant.
fn prompt_length_examples() -> Vec<PromptLengthVerdict> {
    vec![
        PromptLengthVerdict::NotEnoughData,
        PromptLengthVerdict::NoClearTrend {
            r_squared: Some(0.2),
        },
        PromptLengthVerdict::NoClearTrend { r_squared: None },
        PromptLengthVerdict::NearLinear {
            prefill_ms_per_1k_tokens: 512.0,
            r_squared: Some(0.99),
        },
        PromptLengthVerdict::Superlinear {
            prefill_ms_per_1k_tokens: 2_522.0,
            marginal_ms_per_1k_tokens_at_max: 4_500.0,
            max_prompt_tokens: 10_000.0,
            quadratic_share_at_max: 0.79,
        },
    ]
}

#[test]
fn prompt_length_verdicts_have_english_and_chinese_text() {
    check_all!(
        "prompt length",
        prompt_length_examples(),
        |v: &PromptLengthVerdict| match v {
            PromptLengthVerdict::NotEnoughData => 0,
            PromptLengthVerdict::NoClearTrend { .. } => 1,
            PromptLengthVerdict::NearLinear { .. } => 2,
            PromptLengthVerdict::Superlinear { .. } => 3,
        },
        4
    );
}

/// Example max_tokens verdicts, covering every variant.
fn max_tokens_examples() -> Vec<MaxTokensVerdict> {
    vec![
        MaxTokensVerdict::NotEnoughData,
        MaxTokensVerdict::Independent {
            difference_ms: 12.0,
            threshold_ms: 50.0,
        },
        MaxTokensVerdict::Depends {
            low_max_tokens: 200,
            high_max_tokens: 4_000,
            difference_ms: 380.0,
            threshold_ms: 50.0,
        },
    ]
}

#[test]
fn max_tokens_verdicts_have_english_and_chinese_text() {
    check_all!(
        "max_tokens",
        max_tokens_examples(),
        |v: &MaxTokensVerdict| match v {
            MaxTokensVerdict::NotEnoughData => 0,
            MaxTokensVerdict::Independent { .. } => 1,
            MaxTokensVerdict::Depends { .. } => 2,
        },
        3
    );
}

/// Example models verdicts, covering every variant.
fn models_examples() -> Vec<ModelsVerdict> {
    vec![
        ModelsVerdict::NoSuccessfulRuns,
        ModelsVerdict::Fastest {
            model: "sim-fast".into(),
            p50_ms: 111.0,
            runner_up: Some("sim-linear-prefill".into()),
            runner_up_p50_ms: Some(700.0),
        },
        ModelsVerdict::Fastest {
            model: "sim-fast".into(),
            p50_ms: 111.0,
            runner_up: None,
            runner_up_p50_ms: None,
        },
        ModelsVerdict::Tie {
            models: vec!["a".into(), "b".into()],
            p50_ms: 1_000.0,
        },
    ]
}

#[test]
fn models_verdicts_have_english_and_chinese_text() {
    check_all!(
        "models",
        models_examples(),
        |v: &ModelsVerdict| match v {
            ModelsVerdict::NoSuccessfulRuns => 0,
            ModelsVerdict::Fastest { .. } => 1,
            ModelsVerdict::Tie { .. } => 2,
        },
        3
    );
}

/// Example concurrency verdicts, covering every variant.
fn concurrency_examples() -> Vec<ConcurrencyVerdict> {
    vec![
        ConcurrencyVerdict::NotEnoughData,
        ConcurrencyVerdict::NoQueueing { max_level: 8 },
        ConcurrencyVerdict::BrowserQueueing {
            parallel_streams: 6,
            from_level: 8,
        },
        ConcurrencyVerdict::ServerQueueing {
            parallel_streams: 4,
            from_level: 8,
        },
        ConcurrencyVerdict::ServerSlowdown {
            growth_ratio: 3.3,
            max_level: 8,
        },
        ConcurrencyVerdict::StepMayBeBrowserLimit {
            parallel_streams: 6,
        },
        ConcurrencyVerdict::Protocol {
            protocol: HttpProtocol::H2,
        },
        ConcurrencyVerdict::Protocol {
            protocol: HttpProtocol::Http11,
        },
    ]
}

#[test]
fn concurrency_verdicts_have_english_and_chinese_text() {
    check_all!(
        "concurrency",
        concurrency_examples(),
        |v: &ConcurrencyVerdict| match v {
            ConcurrencyVerdict::NotEnoughData => 0,
            ConcurrencyVerdict::NoQueueing { .. } => 1,
            ConcurrencyVerdict::BrowserQueueing { .. } => 2,
            ConcurrencyVerdict::ServerQueueing { .. } => 3,
            ConcurrencyVerdict::ServerSlowdown { .. } => 4,
            ConcurrencyVerdict::StepMayBeBrowserLimit { .. } => 5,
            ConcurrencyVerdict::Protocol { .. } => 6,
        },
        7
    );
}

/// Example cache verdicts, covering every variant.
fn cache_examples() -> Vec<CacheVerdict> {
    vec![
        CacheVerdict::NotEnoughData,
        CacheVerdict::CacheWorks {
            saved_ms: 5_183.8,
            cached_token_share: 0.992,
        },
        CacheVerdict::TimingShowsHit {
            saved_ms: 5_183.8,
            warm_share: 0.06,
        },
        CacheVerdict::TimingShowsNoHit {
            saved_ms: 12.0,
            warm_share: 0.98,
        },
        CacheVerdict::NoHits,
        CacheVerdict::IntermittentHits {
            hit_runs: 3,
            warm_runs: 5,
        },
        CacheVerdict::HitsButNotFaster { saved_ms: 40.0 },
        CacheVerdict::FirstTokenChangedMisses {
            lost_ms: Some(5_183.8),
        },
        CacheVerdict::FirstTokenChangedMisses { lost_ms: None },
    ]
}

#[test]
fn cache_verdicts_have_english_and_chinese_text() {
    check_all!(
        "cache",
        cache_examples(),
        |v: &CacheVerdict| match v {
            CacheVerdict::NotEnoughData => 0,
            CacheVerdict::CacheWorks { .. } => 1,
            CacheVerdict::TimingShowsHit { .. } => 2,
            CacheVerdict::NoHits => 3,
            CacheVerdict::IntermittentHits { .. } => 4,
            CacheVerdict::HitsButNotFaster { .. } => 5,
            CacheVerdict::FirstTokenChangedMisses { .. } => 6,
            CacheVerdict::TimingShowsNoHit { .. } => 7,
        },
        8
    );
}

/// Example tails verdicts, covering every variant.
fn tails_examples() -> Vec<TailsVerdict> {
    vec![
        TailsVerdict::NotEnoughData,
        TailsVerdict::TightTails {
            worst_p95_over_p50: 1.1,
        },
        TailsVerdict::HeadOfLineSuspected {
            planned_tokens: 100,
            p95_over_p50: 10.0,
            p99_over_p50: 10.0,
            bimodal: true,
        },
        TailsVerdict::HeadOfLineSuspected {
            planned_tokens: 100,
            p95_over_p50: 3.0,
            p99_over_p50: 6.0,
            bimodal: false,
        },
    ]
}

#[test]
fn tails_verdicts_have_english_and_chinese_text() {
    check_all!(
        "tails",
        tails_examples(),
        |v: &TailsVerdict| match v {
            TailsVerdict::NotEnoughData => 0,
            TailsVerdict::TightTails { .. } => 1,
            TailsVerdict::HeadOfLineSuspected { .. } => 2,
        },
        3
    );
}

/// Example reasoning verdicts, covering every variant.
fn reasoning_examples() -> Vec<ReasoningVerdict> {
    vec![
        ReasoningVerdict::NotEnoughData,
        ReasoningVerdict::NoVisibleReasoning {
            median_ttfa_ms: 1_700.0,
        },
        ReasoningVerdict::MostlyThinking {
            median_share: 0.85,
            median_reasoning_ms: 1_500.0,
            median_ttfa_ms: 1_750.0,
        },
        ReasoningVerdict::ThinkingMinor {
            median_share: 0.02,
            median_ttfa_ms: 2_100.0,
        },
    ]
}

#[test]
fn reasoning_verdicts_have_english_and_chinese_text() {
    check_all!(
        "reasoning",
        reasoning_examples(),
        |v: &ReasoningVerdict| match v {
            ReasoningVerdict::NotEnoughData => 0,
            ReasoningVerdict::NoVisibleReasoning { .. } => 1,
            ReasoningVerdict::MostlyThinking { .. } => 2,
            ReasoningVerdict::ThinkingMinor { .. } => 3,
        },
        4
    );
}

/// Example monitor verdicts, covering every variant.
fn monitor_examples() -> Vec<MonitorVerdict> {
    vec![
        MonitorVerdict::NotEnoughData,
        MonitorVerdict::Failing {
            failures: 1,
            runs: 5,
        },
        MonitorVerdict::Healthy {
            percentile: MonitorPercentile::P95,
            observed_ms: 590.0,
            limit_ms: 950.0,
        },
        MonitorVerdict::Breach {
            percentile: MonitorPercentile::P99,
            observed_ms: 990.0,
            limit_ms: 950.0,
        },
    ]
}

#[test]
fn monitor_verdicts_have_english_and_chinese_text() {
    check_all!(
        "monitor",
        monitor_examples(),
        |v: &MonitorVerdict| match v {
            MonitorVerdict::NotEnoughData => 0,
            MonitorVerdict::Failing { .. } => 1,
            MonitorVerdict::Healthy { .. } => 2,
            MonitorVerdict::Breach { .. } => 3,
        },
        4
    );
}

/// No example list lost an example.
#[test]
fn verdict_examples_number_41() {
    let total = prompt_length_examples().len()
        + max_tokens_examples().len()
        + models_examples().len()
        + concurrency_examples().len()
        + cache_examples().len()
        + tails_examples().len()
        + reasoning_examples().len()
        + monitor_examples().len();
    assert_eq!(total, 41);
}

#[test]
fn messages_carry_the_numbers_and_the_fix() {
    let queueing = ConcurrencyVerdict::ServerQueueing {
        parallel_streams: 4,
        from_level: 8,
    };
    let en = queueing.message(Lang::En);
    assert!(
        en.contains("runs 4 streams at once") && en.contains("number 5"),
        "{en}"
    );
    assert!(queueing.message(Lang::Zh).contains("第 5 个"));
    let browser = ConcurrencyVerdict::BrowserQueueing {
        parallel_streams: 6,
        from_level: 8,
    };
    let en = browser.message(Lang::En);
    assert!(
        en.contains("HTTP/2") && en.contains("6 connections per host"),
        "{en}"
    );
    assert!(en.starts_with("Browser queueing, not the server"));
    let zh = browser.message(Lang::Zh);
    assert!(zh.contains("HTTP/2") && zh.contains("浏览器排队"), "{zh}");
    let tails = TailsVerdict::HeadOfLineSuspected {
        planned_tokens: 100,
        p95_over_p50: 10.0,
        p99_over_p50: 12.0,
        bimodal: true,
    };
    let en = tails.message(Lang::En);
    assert!(en.contains("head-of-line blocking") || en.contains("Head-of-line blocking"));
    assert!(en.contains("A long prefill delays others; chunked prefill lowers the tail"));
    assert!(en.contains("p95 10.0×") && en.contains("p99 12.0×"), "{en}");
    assert!(tails.message(Lang::Zh).contains("分块预填充"));
    let linear = PromptLengthVerdict::NearLinear {
        prefill_ms_per_1k_tokens: 512.4,
        r_squared: Some(0.987),
    };
    assert!(linear
        .message(Lang::En)
        .contains("512 ms per 1,000 prompt tokens (R² 0.99)"));
    let independent = MaxTokensVerdict::Independent {
        difference_ms: 12.0,
        threshold_ms: 50.0,
    };
    assert!(independent
        .message(Lang::En)
        .starts_with("TTFT does not depend on output length"));
    // The size of a difference within noise has no sign; an effect keeps its sign.
    let faster = MaxTokensVerdict::Independent {
        difference_ms: -12.4,
        threshold_ms: 50.0,
    };
    assert!(faster.message(Lang::En).contains("differ by 12 ms"));
    let depends = MaxTokensVerdict::Depends {
        low_max_tokens: 200,
        high_max_tokens: 4_000,
        difference_ms: 380.2,
        threshold_ms: 50.0,
    };
    assert!(depends.message(Lang::En).contains("by +380 ms"));
    assert!(depends.message(Lang::Zh).contains("+380 毫秒"));
    let cache = CacheVerdict::IntermittentHits {
        hit_runs: 3,
        warm_runs: 5,
    };
    assert!(cache.message(Lang::En).contains("only 3 of 5"));
    assert!(cache
        .message(Lang::En)
        .contains("Round-robin replicas dilute hits"));
}

#[test]
fn verdicts_serialize_with_a_kind_tag() {
    let verdict = PromptLengthVerdict::NearLinear {
        prefill_ms_per_1k_tokens: 500.0,
        r_squared: Some(1.0),
    };
    let json = serde_json::to_value(&verdict).unwrap();
    assert_eq!(json["kind"], "near_linear");
    assert_eq!(json["prefill_ms_per_1k_tokens"], 500.0);
    let back: PromptLengthVerdict = serde_json::from_value(json).unwrap();
    assert_eq!(back, verdict);
    let json = serde_json::to_value(CacheVerdict::NoHits).unwrap();
    assert_eq!(json, serde_json::json!({"kind": "no_hits"}));
}
