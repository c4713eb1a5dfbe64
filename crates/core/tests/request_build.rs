//! Base URL normalization, bodies, headers and key handling.

use serde_json::json;
use ttft_core::lang::Lang;
use ttft_core::protocol::AuthStyle;
use ttft_core::protocol::Protocol;
use ttft_core::request::{
    anthropic_body, build_headers, normalize_base_url, openai_chat_body, prepare_request,
    responses_body, with_nonce, ApiKey, BodyError, KeyError, MaxTokensField, PromptSpec,
    ReasoningEffort, ReasoningSummary, UrlError, UrlWarning,
};

use Protocol::{AnthropicMessages as Anthropic, OpenAiChat as Chat, OpenAiResponses as Responses};

fn missing_v1() -> UrlWarning {
    UrlWarning::MissingVersionAdded {
        added: "/v1".into(),
    }
}

/// One base-URL case: input, protocol, expected endpoint URL, expected warnings.
type UrlCase = (&'static str, Protocol, &'static str, Vec<UrlWarning>);

/// Normalizes each case's input and checks the endpoint URL and the warnings.
#[allow(clippy::unwrap_used)] // a test helper: `allow-unwrap-in-tests` covers only `#[test]`s
fn assert_base_urls(cases: Vec<UrlCase>) {
    for (input, protocol, expected_url, expected_warnings) in cases {
        let endpoint = normalize_base_url(input, protocol).unwrap();
        assert_eq!(endpoint.endpoint_url, expected_url, "input {input:?}");
        assert_eq!(endpoint.warnings, expected_warnings, "input {input:?}");
    }
}

/// Bases that are complete, or to which the version segment is added (per provider).
#[test]
fn base_url_complete_or_version_added() {
    assert_base_urls(vec![
        (
            "https://api.openai.com/v1",
            Chat,
            "https://api.openai.com/v1/chat/completions",
            vec![],
        ),
        (
            "https://api.openai.com/v1/",
            Chat,
            "https://api.openai.com/v1/chat/completions",
            vec![],
        ),
        (
            "https://api.openai.com",
            Chat,
            "https://api.openai.com/v1/chat/completions",
            vec![missing_v1()],
        ),
        (
            "https://api.anthropic.com",
            Anthropic,
            "https://api.anthropic.com/v1/messages",
            vec![missing_v1()],
        ),
        (
            "http://127.0.0.1:11434",
            Chat,
            "http://127.0.0.1:11434/v1/chat/completions",
            vec![missing_v1()],
        ),
        (
            "https://openrouter.ai/api/v1",
            Chat,
            "https://openrouter.ai/api/v1/chat/completions",
            vec![],
        ),
        (
            "https://openrouter.ai/api",
            Chat,
            "https://openrouter.ai/api/v1/chat/completions",
            vec![UrlWarning::MissingVersionAdded {
                added: "/api/v1".into(),
            }],
        ),
        (
            "https://generativelanguage.googleapis.com/v1beta/openai/",
            Chat,
            "https://generativelanguage.googleapis.com/v1beta/openai/chat/completions",
            vec![],
        ),
        (
            "https://api.groq.com/openai",
            Chat,
            "https://api.groq.com/openai/v1/chat/completions",
            vec![UrlWarning::MissingVersionAdded {
                added: "/openai/v1".into(),
            }],
        ),
        (
            "HTTPS://API.OpenAI.com/v1",
            Chat,
            "https://api.openai.com/v1/chat/completions",
            vec![],
        ),
    ]);
}

/// Pasted endpoint, models or doubled-version paths are trimmed back to the base.
#[test]
fn base_url_pasted_paths() {
    assert_base_urls(vec![
        (
            "https://api.openai.com/v1/chat/completions",
            Chat,
            "https://api.openai.com/v1/chat/completions",
            vec![UrlWarning::FullPathPasted {
                removed: "chat/completions".into(),
            }],
        ),
        (
            "https://api.anthropic.com/v1/messages",
            Anthropic,
            "https://api.anthropic.com/v1/messages",
            vec![UrlWarning::FullPathPasted {
                removed: "messages".into(),
            }],
        ),
        (
            "https://api.openai.com/v1/responses/",
            Responses,
            "https://api.openai.com/v1/responses",
            vec![UrlWarning::FullPathPasted {
                removed: "responses".into(),
            }],
        ),
        (
            "https://api.openai.com/v1/chat/completions",
            Responses,
            "https://api.openai.com/v1/responses",
            vec![UrlWarning::ProtocolPathMismatch {
                pasted: "chat/completions".into(),
                selected: Responses,
            }],
        ),
        (
            "https://host.example/v1/v1",
            Chat,
            "https://host.example/v1/chat/completions",
            vec![UrlWarning::DoubledVersion],
        ),
        (
            "https://host.example/v1/v1/chat/completions",
            Chat,
            "https://host.example/v1/chat/completions",
            vec![
                UrlWarning::FullPathPasted {
                    removed: "chat/completions".into(),
                },
                UrlWarning::DoubledVersion,
            ],
        ),
        (
            "https://api.openai.com/v1/models",
            Chat,
            "https://api.openai.com/v1/chat/completions",
            vec![UrlWarning::ModelsUrlPasted],
        ),
    ]);
}

/// Surrounding whitespace, a missing scheme and scheme/host mismatches.
#[test]
fn base_url_scheme_and_whitespace() {
    assert_base_urls(vec![
        (
            "  https://api.openai.com/v1\n",
            Chat,
            "https://api.openai.com/v1/chat/completions",
            vec![UrlWarning::SurroundingWhitespace],
        ),
        (
            "api.openai.com/v1",
            Chat,
            "https://api.openai.com/v1/chat/completions",
            vec![UrlWarning::MissingScheme {
                assumed: "https".into(),
            }],
        ),
        (
            "localhost:8000/v1",
            Chat,
            "http://localhost:8000/v1/chat/completions",
            vec![UrlWarning::MissingScheme {
                assumed: "http".into(),
            }],
        ),
        (
            "https://localhost:8000/v1",
            Chat,
            "https://localhost:8000/v1/chat/completions",
            vec![UrlWarning::HttpsToLocalServer],
        ),
        (
            "http://gpu-box.example:8000/v1",
            Chat,
            "http://gpu-box.example:8000/v1/chat/completions",
            vec![UrlWarning::InsecureHttp],
        ),
        (
            "generativelanguage.googleapis.com",
            Chat,
            "https://generativelanguage.googleapis.com/v1beta/openai/chat/completions",
            vec![
                UrlWarning::MissingScheme {
                    assumed: "https".into(),
                },
                UrlWarning::MissingVersionAdded {
                    added: "/v1beta/openai".into(),
                },
            ],
        ),
    ]);
}

/// Bases without a version segment, query strings and fragments.
#[test]
fn base_url_query_and_unversioned() {
    assert_base_urls(vec![
    (
        "https://host.example/api",
        Chat,
        "https://host.example/api/chat/completions",
        vec![UrlWarning::NoVersionSegment],
    ),
    (
        "https://res.example/openai/v1?api-version=preview#x",
        Chat,
        "https://res.example/openai/v1/chat/completions?api-version=preview",
        vec![
            UrlWarning::QueryStringKept {
                query: "api-version=preview".into(),
            },
            UrlWarning::FragmentDropped,
        ],
    ),
    (
        // Azure deployment URL: a deliberate base without a version segment.
        "https://res.openai.azure.com/openai/deployments/gpt4o?api-version=2024-10-21",
        Chat,
        "https://res.openai.azure.com/openai/deployments/gpt4o/chat/completions?api-version=2024-10-21",
        vec![
            UrlWarning::NoVersionSegment,
            UrlWarning::QueryStringKept {
                query: "api-version=2024-10-21".into(),
            },
        ],
    ),
    ]);
}

#[test]
fn models_url_and_base() {
    let endpoint = normalize_base_url("https://api.openai.com/v1/chat/completions", Chat).unwrap();
    assert_eq!(endpoint.base_url, "https://api.openai.com/v1");
    assert_eq!(endpoint.models_url, "https://api.openai.com/v1/models");
    let endpoint = normalize_base_url("https://api.anthropic.com", Anthropic).unwrap();
    assert_eq!(endpoint.models_url, "https://api.anthropic.com/v1/models");
    let endpoint = normalize_base_url("http://localhost:11434/v1", Chat).unwrap();
    assert!(endpoint.local);
}

#[test]
fn base_url_errors() {
    let cases = [
        ("", UrlError::Empty),
        ("   ", UrlError::Empty),
        ("https://api.openai .com/v1", UrlError::InnerWhitespace),
        (
            "ftp://host/v1",
            UrlError::UnsupportedScheme {
                scheme: "ftp".into(),
            },
        ),
        ("https:///v1", UrlError::MissingHost),
    ];
    for (input, expected) in cases {
        assert_eq!(normalize_base_url(input, Chat), Err(expected), "{input:?}");
    }
}

#[test]
fn key_parsing() {
    assert_eq!(ApiKey::parse("").unwrap(), None);
    assert_eq!(ApiKey::parse("  \n").unwrap(), None);
    let key = ApiKey::parse("  sk-abcdefghijklmnop1234\n")
        .unwrap()
        .unwrap();
    assert_eq!(key.expose(), "sk-abcdefghijklmnop1234");
    assert_eq!(key.masked(), "sk-…1234");
    assert_eq!(format!("{key:?}"), "ApiKey(sk-…1234)");
    assert_eq!(ApiKey::parse("short").unwrap().unwrap().masked(), "…");
    let cases = [
        ("sk-abc\ndef", KeyError::LineBreak { position: 7 }),
        ("sk-abc\r\ndef", KeyError::LineBreak { position: 7 }),
        ("sk-abc def", KeyError::InnerWhitespace { position: 7 }),
        ("sk-abc\tdef", KeyError::InnerWhitespace { position: 7 }),
        ("sk-“abc”", KeyError::InvalidCharacter { position: 4 }),
        ("sk-abc\u{200b}", KeyError::InvalidCharacter { position: 7 }),
    ];
    for (raw, expected) in cases {
        assert_eq!(ApiKey::parse(raw), Err(expected.clone()), "{raw:?}");
    }
    let message = KeyError::LineBreak { position: 7 }.to_string();
    assert!(message.contains("line break"), "{message}");
}

fn spec() -> PromptSpec {
    PromptSpec::new("gpt-4o-mini", "Hello")
}

#[test]
fn openai_chat_body_defaults() {
    assert_eq!(
        openai_chat_body(&spec()).unwrap(),
        json!({
            "model": "gpt-4o-mini",
            "messages": [{"role": "user", "content": "Hello"}],
            "stream": true,
            "stream_options": {"include_usage": true}
        })
    );
}

#[test]
fn openai_chat_body_with_options() {
    let spec = PromptSpec {
        system: Some("Be brief.".into()),
        max_output_tokens: Some(256),
        max_tokens_field: MaxTokensField::MaxCompletionTokens,
        reasoning_effort: Some(ReasoningEffort::Low),
        include_stream_options: false,
        ..spec()
    };
    assert_eq!(
        openai_chat_body(&spec).unwrap(),
        json!({
            "model": "gpt-4o-mini",
            "messages": [
                {"role": "system", "content": "Be brief."},
                {"role": "user", "content": "Hello"}
            ],
            "stream": true,
            "max_completion_tokens": 256,
            "reasoning_effort": "low"
        })
    );
    let plain = PromptSpec {
        max_output_tokens: Some(64),
        ..self::spec()
    };
    assert_eq!(openai_chat_body(&plain).unwrap()["max_tokens"], json!(64));
    let no_model = PromptSpec::new("  ", "Hello");
    assert_eq!(openai_chat_body(&no_model), Err(BodyError::MissingModel));
}

#[test]
fn nonce_goes_to_position_zero() {
    assert_eq!(with_nonce(Some("n-42"), "Hello"), "n-42\n\nHello");
    assert_eq!(with_nonce(None, "Hello"), "Hello");
    assert_eq!(with_nonce(Some(""), "Hello"), "Hello");
    let user_only = PromptSpec {
        cache_nonce: Some("n-42".into()),
        ..spec()
    };
    let body = openai_chat_body(&user_only).unwrap();
    assert_eq!(body["messages"][0]["content"], json!("n-42\n\nHello"));
    // With a system prompt, position 0 of the whole prompt is the system prompt.
    let with_system = PromptSpec {
        system: Some("Be brief.".into()),
        ..user_only
    };
    let body = openai_chat_body(&with_system).unwrap();
    assert_eq!(body["messages"][0]["content"], json!("n-42\n\nBe brief."));
    assert_eq!(body["messages"][1]["content"], json!("Hello"));
    let body = anthropic_body(&with_system).unwrap();
    assert_eq!(body["system"], json!("n-42\n\nBe brief."));
    let body = responses_body(&with_system).unwrap();
    assert_eq!(body["instructions"], json!("n-42\n\nBe brief."));
}

#[test]
fn anthropic_body_and_thinking_constraints() {
    let plain = PromptSpec::new("claude-sonnet-4-5", "Hello");
    assert_eq!(
        anthropic_body(&plain).unwrap(),
        json!({
            "model": "claude-sonnet-4-5",
            "max_tokens": 1024,
            "messages": [{"role": "user", "content": "Hello"}],
            "stream": true
        })
    );
    let thinking = PromptSpec {
        thinking_budget_tokens: Some(2048),
        ..plain.clone()
    };
    let body = anthropic_body(&thinking).unwrap();
    // No max given: budget + 1024 = 3072.
    assert_eq!(body["max_tokens"], json!(3072));
    assert_eq!(
        body["thinking"],
        json!({"type": "enabled", "budget_tokens": 2048})
    );
    let cases = [
        (
            Some(1000),
            Some(4096),
            BodyError::ThinkingBudgetTooSmall {
                budget_tokens: 1000,
            },
        ),
        (
            Some(4096),
            Some(4096),
            BodyError::ThinkingBudgetNotBelowMaxTokens {
                budget_tokens: 4096,
                max_tokens: 4096,
            },
        ),
    ];
    for (budget, max, expected) in cases {
        let spec = PromptSpec {
            thinking_budget_tokens: budget,
            max_output_tokens: max,
            ..plain.clone()
        };
        assert_eq!(anthropic_body(&spec), Err(expected));
    }
}

#[test]
fn responses_body_shape() {
    let spec = PromptSpec {
        max_output_tokens: Some(500),
        reasoning_effort: Some(ReasoningEffort::Medium),
        reasoning_summary: Some(ReasoningSummary::Detailed),
        ..PromptSpec::new("gpt-5", "Hello")
    };
    assert_eq!(
        responses_body(&spec).unwrap(),
        json!({
            "model": "gpt-5",
            "input": "Hello",
            "stream": true,
            "max_output_tokens": 500,
            "reasoning": {"effort": "medium", "summary": "detailed"}
        })
    );
    let bare = responses_body(&PromptSpec::new("gpt-5", "Hi")).unwrap();
    assert!(bare.get("reasoning").is_none());
}

fn header_pairs(
    protocol: Protocol,
    style: AuthStyle,
    key: Option<&ApiKey>,
) -> Vec<(String, String)> {
    build_headers(protocol, style, key)
        .into_iter()
        .map(|h| (h.name, h.value))
        .collect()
}

#[test]
fn headers_per_protocol() {
    let key = ApiKey::parse(" sk-abcdefghijklmnop1234 ").unwrap();
    let pairs = |v: &[(&str, &str)]| -> Vec<(String, String)> {
        v.iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    };
    assert_eq!(
        header_pairs(Chat, AuthStyle::Bearer, key.as_ref()),
        pairs(&[
            ("content-type", "application/json"),
            ("authorization", "Bearer sk-abcdefghijklmnop1234"),
        ])
    );
    assert_eq!(
        header_pairs(Anthropic, AuthStyle::XApiKey, key.as_ref()),
        pairs(&[
            ("content-type", "application/json"),
            ("x-api-key", "sk-abcdefghijklmnop1234"),
            ("anthropic-version", "2023-06-01"),
            ("anthropic-dangerous-direct-browser-access", "true"),
        ])
    );
    assert_eq!(
        header_pairs(Chat, AuthStyle::Bearer, None),
        pairs(&[("content-type", "application/json")])
    );
    assert_eq!(Anthropic.default_auth_style(), AuthStyle::XApiKey);
    assert_eq!(Responses.default_auth_style(), AuthStyle::Bearer);
}

#[test]
fn description_never_contains_the_key() {
    let secret = "sk-abcdefghijklmnop1234";
    let key = ApiKey::parse(secret).unwrap();
    for protocol in [Chat, Anthropic, Responses] {
        let endpoint = normalize_base_url("https://api.example.com/v1", protocol).unwrap();
        let request = prepare_request(
            &endpoint,
            &PromptSpec::new("m", "Hello"),
            key.as_ref(),
            None,
        )
        .unwrap();
        assert!(request.key_sent);
        assert!(format!("{request:?}").find(secret).is_none());
        let description = request.describe();
        let exported = serde_json::to_string(&description).unwrap();
        assert!(!exported.contains(secret), "{exported}");
        assert!(exported.contains("sk-…1234"), "{exported}");
        // The real headers carry the real key.
        assert!(request.headers.iter().any(|h| h.value.contains(secret)));
    }
}

#[test]
fn warnings_and_errors_have_messages_in_both_languages() {
    let warnings = [
        UrlWarning::SurroundingWhitespace,
        UrlWarning::MissingScheme {
            assumed: "https".into(),
        },
        UrlWarning::FullPathPasted {
            removed: "chat/completions".into(),
        },
        UrlWarning::ProtocolPathMismatch {
            pasted: "messages".into(),
            selected: Chat,
        },
        UrlWarning::ModelsUrlPasted,
        UrlWarning::DoubledVersion,
        UrlWarning::MissingVersionAdded {
            added: "/v1".into(),
        },
        UrlWarning::NoVersionSegment,
        UrlWarning::InsecureHttp,
        UrlWarning::HttpsToLocalServer,
        UrlWarning::QueryStringKept {
            query: "a=b".into(),
        },
        UrlWarning::FragmentDropped,
    ];
    for warning in &warnings {
        let en = warning.message(Lang::En);
        let zh = warning.message(Lang::Zh);
        assert!(!en.is_empty() && !zh.is_empty() && en != zh, "{warning:?}");
        assert!(
            zh.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c)),
            "{zh}"
        );
    }
    let mismatch = &warnings[3];
    assert!(mismatch
        .message(Lang::En)
        .contains("OpenAI Chat Completions"));
    assert!(mismatch
        .message(Lang::Zh)
        .contains("OpenAI Chat Completions"));
    assert!(UrlWarning::NoVersionSegment
        .message(Lang::En)
        .contains("/v1"));

    assert!(UrlError::Empty
        .message(Lang::En)
        .contains("https://api.openai.com/v1"));
    assert!(UrlError::Empty.message(Lang::Zh).contains("基础 URL"));
    let key = KeyError::LineBreak { position: 7 };
    assert!(key.message(Lang::En).contains("line break at character 7"));
    assert!(key.message(Lang::Zh).contains("第 7 个字符处有换行"));
    let body = BodyError::ThinkingBudgetTooSmall { budget_tokens: 10 };
    assert!(body.message(Lang::En).contains("at least 1024"));
    assert!(body.message(Lang::Zh).contains("至少为 1024"));
}

#[test]
fn fireworks_is_asked_for_its_account_and_no_one_else() {
    // Fireworks reports its time on a stream only when the body asks; other servers get no
    // extra field (OpenAI refuses unknown ones with a 400).
    let spec = PromptSpec::new("m", "hi");
    for (base, asked) in [
        ("https://api.fireworks.ai/inference/v1", true),
        ("https://API.Fireworks.ai:443/inference/v1", true),
        ("https://api.openai.com/v1", false),
        ("https://api.fireworks.ai.example.com/v1", false),
        ("http://localhost:8000/v1", false),
    ] {
        let endpoint = normalize_base_url(base, Chat).unwrap();
        let request = prepare_request(&endpoint, &spec, None, None).unwrap();
        assert_eq!(
            request.body.get("perf_metrics_in_response"),
            asked.then_some(&json!(true)),
            "{base}"
        );
    }
    let endpoint = normalize_base_url("https://api.fireworks.ai/inference/v1", Responses).unwrap();
    let request = prepare_request(&endpoint, &spec, None, None).unwrap();
    assert_eq!(request.body.get("perf_metrics_in_response"), None);
}
