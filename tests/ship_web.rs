//! Browser tests of URL configuration and the history store (issue 6), in headless Chromium.
#![cfg(target_arch = "wasm32")]
// clippy's allow-unwrap-in-tests does not see #[wasm_bindgen_test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use ttft_meter::embed::{is_key_param, Theme, UrlConfig};
use ttft_meter::i18n::Lang;
use ttft_meter::persist;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
fn url_parameters_are_read_and_keys_refused_without_keeping_their_value() {
    let config = UrlConfig::from_pairs([
        ("model", "sim-fast@prefill_ms=200"),
        ("api_key", "sk-secret-1"),
        ("openai_key", "sk-secret-2"),
        ("runs", "3"),
        ("lang", "zh"),
        ("theme", "dark"),
        ("compact", "1"),
        ("experiment", "prompt_length_sweep"),
        ("target_origin", "https://docs.example.com"),
    ]);
    assert_eq!(config.model.as_deref(), Some("sim-fast@prefill_ms=200"));
    assert_eq!(config.runs.as_deref(), Some("3"));
    assert_eq!(config.lang, Some(Lang::Zh));
    assert_eq!(config.theme, Some(Theme::Dark));
    assert!(config.compact);
    assert_eq!(config.experiment.as_deref(), Some("prompt_length_sweep"));
    assert_eq!(
        config.target_origin.as_deref(),
        Some("https://docs.example.com")
    );
    assert_eq!(config.refused_keys, vec!["api_key", "openai_key"]);
    assert!(!format!("{config:?}").contains("sk-secret"));
}

#[wasm_bindgen_test]
fn only_an_exact_origin_is_a_target() {
    for (value, expected) in [
        (
            "https://docs.example.com/",
            Some("https://docs.example.com"),
        ),
        ("http://127.0.0.1:8080", Some("http://127.0.0.1:8080")),
        ("https://docs.example.com/page", None),
        ("*", None),
        ("null", None),
        ("javascript:alert(1)", None),
    ] {
        let config = UrlConfig::from_pairs([("target_origin", value)]);
        assert_eq!(config.target_origin.as_deref(), expected, "{value}");
    }
}

#[wasm_bindgen_test]
fn parameter_names_that_carry_keys() {
    for name in [
        "key",
        "API_KEY",
        "apikey",
        "token",
        "access_token",
        "x-api-key",
        "my_secret",
    ] {
        assert!(is_key_param(name), "{name}");
    }
    for name in ["max_tokens", "model", "base_url", "monkey"] {
        assert!(!is_key_param(name), "{name}");
    }
}

#[wasm_bindgen_test]
fn an_empty_history_clears_its_slot_and_loads_as_empty() {
    let local = web_sys::window().unwrap().local_storage().unwrap().unwrap();
    local.set_item(persist::RUNS_SLOT, "not json").unwrap();
    assert!(
        persist::load_runs().is_empty(),
        "unreadable history loads as empty"
    );
    persist::save_runs(&[]);
    assert_eq!(local.get_item(persist::RUNS_SLOT).unwrap(), None);
}

fn stored_record(run_index: u32) -> ttft_core::export::RunRecord {
    use ttft_core::export::{RunRecord, RunSettings, Transport};
    use ttft_core::protocol::Protocol;
    use ttft_core::timeline::RunTimeline;
    let settings = RunSettings {
        protocol: Protocol::OpenAiChat,
        endpoint_url: "http://127.0.0.1:8787/v1/chat/completions".into(),
        model: "sim-fast".into(),
        dialect: None,
        max_tokens: None,
        ttft_only: false,
        reasoning: false,
        request: None,
    };
    let timeline = RunTimeline::new(None, 10.0);
    RunRecord::from_timeline(
        run_index,
        "2026-11-29T17:00:00.000Z",
        settings,
        Transport::Worker,
        &timeline,
    )
}

#[wasm_bindgen_test]
fn the_history_keeps_the_newest_runs_up_to_the_bound() {
    let runs: Vec<_> = (1..=persist::MAX_STORED_RUNS as u32 + 5)
        .map(stored_record)
        .collect();
    persist::save_runs(&runs);
    let loaded = persist::load_runs();
    assert_eq!(loaded.len(), persist::MAX_STORED_RUNS);
    assert_eq!(loaded.first().map(|run| run.run_index), Some(6));
    assert_eq!(loaded.last(), runs.last());
    persist::save_runs(&[]);
}
