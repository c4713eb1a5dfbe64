//! Parsing the form into a plan: every field checked once, each error naming its field.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use ttft_core::lang::Lang;
use ttft_core::measure::{
    CountField, InputError, RunInput, RunPlan, SeriesInput, SeriesPlan, MAX_RUNS,
};
use ttft_core::protocol::{Protocol, ProtocolChoice};
use ttft_core::request::{BodyError, KeyError, ReasoningEffort, UrlError};

fn form() -> RunInput<'static> {
    RunInput {
        protocol: ProtocolChoice::Auto,
        base_url: "https://api.anthropic.com",
        api_key: " sk-ant-0123456789abcdef ",
        model: " claude-sonnet-4-5 ",
        prompt: "Why is the sky blue?",
        max_tokens: "",
        reasoning: true,
        timeout_s: "30",
        ttft_only: true,
    }
}

#[test]
fn a_valid_form_becomes_a_plan_with_everything_parsed_once() {
    let plan = RunPlan::parse(&form()).unwrap();
    assert_eq!(plan.endpoint.protocol, Protocol::AnthropicMessages);
    assert_eq!(
        plan.endpoint.endpoint_url,
        "https://api.anthropic.com/v1/messages"
    );
    assert_eq!(
        plan.key.as_ref().unwrap().expose(),
        "sk-ant-0123456789abcdef"
    );
    assert_eq!(plan.spec.model, "claude-sonnet-4-5");
    assert_eq!(plan.spec.thinking_budget_tokens, Some(1024));
    assert_eq!(plan.timeout_ms, 30_000.0);
    assert!(plan.ttft_only);
    let body = &plan.request().body;
    assert_eq!(
        body["max_tokens"], 2048,
        "thinking budget + the default answer room"
    );
    let settings = plan.settings(None);
    assert!(settings.reasoning);
    assert_eq!(settings.max_tokens, None);
    // Chat asks for reasoning with an effort; Responses with an effort and a summary.
    let mut chat = form();
    chat.base_url = "https://api.openai.com/v1";
    let plan = RunPlan::parse(&chat).unwrap();
    assert_eq!(plan.spec.reasoning_effort, Some(ReasoningEffort::Medium));
    assert_eq!(plan.request().body["reasoning_effort"], "medium");
}

#[test]
fn each_bad_field_is_its_own_error_with_a_message_in_both_languages() {
    let mut cases: Vec<(RunInput<'static>, InputError, &str)> = Vec::new();
    let mut input = form();
    input.base_url = "ftp://example.com";
    cases.push((
        input,
        InputError::Url(UrlError::UnsupportedScheme {
            scheme: "ftp".into(),
        }),
        "base_url",
    ));
    let mut input = form();
    input.api_key = "sk-abc def";
    cases.push((
        input,
        InputError::Key(KeyError::InnerWhitespace { position: 7 }),
        "api_key",
    ));
    let mut input = form();
    input.model = "  ";
    cases.push((input, InputError::Body(BodyError::MissingModel), "model"));
    let mut input = form();
    input.max_tokens = "1k";
    cases.push((
        input,
        InputError::Count {
            field: CountField::MaxTokens,
            input: "1k".into(),
            min: 1,
            max: 1_000_000,
        },
        "max_tokens",
    ));
    let mut input = form();
    input.max_tokens = "1024";
    cases.push((
        input,
        InputError::Body(BodyError::ThinkingBudgetNotBelowMaxTokens {
            budget_tokens: 1024,
            max_tokens: 1024,
        }),
        "max_tokens",
    ));
    let mut input = form();
    input.timeout_s = "0";
    cases.push((
        input,
        InputError::Count {
            field: CountField::TimeoutS,
            input: "0".into(),
            min: 1,
            max: 3600,
        },
        "timeout_s",
    ));
    for (input, expected, field) in cases {
        let error = RunPlan::parse(&input).unwrap_err();
        assert_eq!(error, expected);
        assert_eq!(error.field_code(), field);
        assert_ne!(error.message(Lang::En), error.message(Lang::Zh));
    }
    let error = RunPlan::parse(&RunInput {
        timeout_s: "abc",
        ..form()
    })
    .unwrap_err();
    assert_eq!(
        error.message(Lang::En),
        "Timeout (s): \"abc\" is not a whole number from 1 to 3600."
    );
    assert_eq!(
        error.message(Lang::Zh),
        "超时（秒）：\"abc\" 不是 1 到 3600 之间的整数。"
    );
}

#[test]
fn a_series_counts_its_runs_within_bounds() {
    let series = SeriesPlan::parse(&SeriesInput {
        run: form(),
        runs: " 5 ",
        warm_up: true,
    })
    .unwrap();
    assert_eq!((series.measured_runs, series.total_runs()), (5, 6));
    assert_eq!(
        SeriesPlan::parse(&SeriesInput {
            run: form(),
            runs: "",
            warm_up: false,
        })
        .unwrap()
        .measured_runs,
        1
    );
    let too_many = (MAX_RUNS + 1).to_string();
    let error = SeriesPlan::parse(&SeriesInput {
        run: form(),
        runs: &too_many,
        warm_up: false,
    })
    .unwrap_err();
    assert_eq!(error.field_code(), "runs");
}

#[test]
fn a_varied_plan_rebuilds_its_body_and_keeps_the_rest() {
    let plan = RunPlan::parse(&form()).unwrap();
    let varied = plan
        .varied(|spec| spec.prompt = "Another prompt".into())
        .unwrap();
    assert_eq!(
        varied.request().body["messages"][0]["content"],
        "Another prompt"
    );
    assert_eq!(varied.key, plan.key);
    assert_eq!(varied.timeout_ms, plan.timeout_ms);
    assert!(plan.varied(|spec| spec.model.clear()).is_err());
}
