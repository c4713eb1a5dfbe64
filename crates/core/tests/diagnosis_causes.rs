//! One case per cause, checked in English and Chinese.

use ttft_core::diagnosis::{
    diagnose, parse_retry_after, Cause, Diagnosis, FailureContext, NetworkHint, MAX_QUOTED_CHARS,
};
use ttft_core::failure::{NetworkFailure, StreamFailure};
use ttft_core::lang::Lang;
use ttft_core::protocol::AuthStyle;
use ttft_core::protocol::Protocol;
use ttft_core::request::{
    normalize_base_url, prepare_request, ApiKey, KeyError, PromptSpec, SpacePermission,
};
use ttft_core::timeline::RunTimeline;
use ttft_stream::dialect::DecodedEvent;
use ttft_stream::dialect::StreamError;

const OPENAI: &str = "https://api.openai.com/v1/chat/completions";
const ANTHROPIC: &str = "https://api.anthropic.com/v1/messages";

fn http(protocol: Protocol, url: &str, status: u16, body: &str) -> FailureContext {
    FailureContext {
        http_status: Some(status),
        content_type: Some("application/json".into()),
        response_body: Some(body.into()),
        ..FailureContext::new(protocol, url)
    }
}

fn chat(status: u16, body: &str) -> FailureContext {
    http(Protocol::OpenAiChat, OPENAI, status, body)
}

fn stream(failure: StreamFailure) -> FailureContext {
    FailureContext {
        http_status: Some(200),
        content_type: Some("text/event-stream".into()),
        stream_failure: Some(failure),
        ..FailureContext::new(Protocol::OpenAiChat, OPENAI)
    }
}

fn network(url: &str, failure: NetworkFailure) -> FailureContext {
    FailureContext {
        network_failure: Some(failure),
        ..FailureContext::new(Protocol::OpenAiChat, url)
    }
}

/// Diagnoses and checks the cause and phrases in both languages (message + fix).
// A test helper outside #[test] fns, where clippy's allow-expect-in-tests does not reach.
#[allow(clippy::expect_used)]
fn check(
    context: FailureContext,
    expected: Cause,
    english: &[&str],
    chinese: &[&str],
) -> Diagnosis {
    let diagnosis = diagnose(&context).expect("a failure");
    assert_eq!(diagnosis.cause, expected, "{context:?}");
    let en = format!(
        "{} {}",
        diagnosis.message(Lang::En),
        diagnosis.fix(Lang::En)
    );
    let zh = format!(
        "{} {}",
        diagnosis.message(Lang::Zh),
        diagnosis.fix(Lang::Zh)
    );
    for phrase in english {
        assert!(en.contains(phrase), "{expected:?}: {phrase:?} not in {en}");
    }
    for phrase in chinese {
        assert!(zh.contains(phrase), "{expected:?}: {phrase:?} not in {zh}");
    }
    diagnosis
}

#[test]
fn key_missing() {
    let context = FailureContext {
        key_sent: false,
        ..chat(
            401,
            r#"{"error":{"message":"You didn't provide an API key.","type":"invalid_request_error"}}"#,
        )
    };
    check(
        context,
        Cause::KeyMissing,
        &["401", "no API key"],
        &["401", "没有发送 API 密钥"],
    );
}

#[test]
fn key_refused_quotes_provider_and_redacts_key() {
    let body = r#"{"error":{"message":"Incorrect API key provided: sk-proj-abc*****wxyz. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","code":"invalid_api_key"}}"#;
    let diagnosis = check(
        chat(401, body),
        Cause::KeyRefused,
        &[
            "401",
            "refused",
            "Incorrect API key provided: [redacted]",
            "no spaces",
        ],
        &[
            "401",
            "密钥被拒绝",
            "服务器原话：“Incorrect API key provided: [redacted]",
        ],
    );
    assert!(!diagnosis.message(Lang::En).contains("sk-proj"));
}

#[test]
fn key_has_whitespace() {
    for error in [
        KeyError::LineBreak { position: 5 },
        KeyError::InnerWhitespace { position: 5 },
    ] {
        let diagnosis = Diagnosis::from_key_error(&error);
        assert_eq!(diagnosis.cause, Cause::KeyHasWhitespace);
        assert!(diagnosis.message(Lang::En).contains("space or line break"));
        assert!(diagnosis.message(Lang::Zh).contains("空格或换行"));
    }
    let diagnosis = Diagnosis::from_key_error(&KeyError::InvalidCharacter { position: 3 });
    assert_eq!(diagnosis.cause, Cause::KeyHasInvalidCharacter);
    assert!(diagnosis.message(Lang::En).contains("HTTP header"));
    assert!(diagnosis.fix(Lang::Zh).contains("重新粘贴"));
}

#[test]
fn wrong_auth_header_bearer_sent_to_anthropic() {
    // An OpenAI protocol (Bearer) pointed at api.anthropic.com.
    let context = FailureContext {
        auth_style: AuthStyle::Bearer,
        ..http(
            Protocol::OpenAiChat,
            ANTHROPIC,
            401,
            r#"{"type":"error","error":{"type":"authentication_error","message":"x-api-key header is required"}}"#,
        )
    };
    check(
        context,
        Cause::WrongAuthHeader {
            sent: AuthStyle::Bearer,
            expected: AuthStyle::XApiKey,
        },
        &[
            "Authorization: Bearer",
            "expects x-api-key",
            "Anthropic Messages",
        ],
        &["需要 x-api-key", "Anthropic Messages"],
    );
}

#[test]
fn wrong_auth_header_reported_as_400() {
    let context = http(
        Protocol::OpenAiChat,
        ANTHROPIC,
        400,
        r#"{"type":"error","error":{"type":"invalid_request_error","message":"x-api-key header is required"}}"#,
    );
    let diagnosis = diagnose(&context).unwrap();
    assert_eq!(
        diagnosis.cause,
        Cause::WrongAuthHeader {
            sent: AuthStyle::Bearer,
            expected: AuthStyle::XApiKey
        }
    );
}

#[test]
fn wrong_auth_header_x_api_key_sent_to_openai_style() {
    let context = FailureContext {
        auth_style: AuthStyle::XApiKey,
        ..http(
            Protocol::AnthropicMessages,
            "https://llm.example/v1/messages",
            401,
            r#"{"error":{"message":"You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY)."}}"#,
        )
    };
    check(
        context,
        Cause::WrongAuthHeader {
            sent: AuthStyle::XApiKey,
            expected: AuthStyle::Bearer,
        },
        &[
            "sent as x-api-key",
            "Authorization: Bearer",
            "OpenAI protocol",
        ],
        &["需要 Authorization: Bearer", "OpenAI 协议"],
    );
}

#[test]
fn anthropic_invalid_key_with_x_api_key_is_refused_not_wrong_header() {
    let context = http(
        Protocol::AnthropicMessages,
        ANTHROPIC,
        401,
        r#"{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}"#,
    );
    check(
        context,
        Cause::KeyRefused,
        &["refused", "invalid x-api-key"],
        &["密钥被拒绝"],
    );
}

#[test]
fn forbidden() {
    check(
        chat(
            403,
            r#"{"error":{"message":"Country, region, or territory not supported","code":"unsupported_country_region_territory"}}"#,
        ),
        Cause::Forbidden,
        &[
            "403",
            "region",
            "Country, region, or territory not supported",
        ],
        &["403", "地区"],
    );
}

#[test]
fn model_not_found_variants() {
    let cases = [
        (
            404,
            r#"{"error":{"message":"The model `gpt-5o` does not exist or you do not have access to it.","type":"invalid_request_error","code":"model_not_found"}}"#,
        ),
        (
            404,
            r#"{"type":"error","error":{"type":"not_found_error","message":"model: claude-sonnet-9"}}"#,
        ),
        (
            404,
            r#"{"error":{"message":"model \"llama9\" not found, try pulling it first","type":"api_error"}}"#,
        ),
        (
            400,
            r#"{"error":{"message":"foo/bar is not a valid model ID","code":400}}"#,
        ),
    ];
    for (status, body) in cases {
        check(
            chat(status, body),
            Cause::ModelNotFound,
            &["does not know this model", "model list"],
            &["不认识这个模型", "模型列表"],
        );
    }
}

#[test]
fn wrong_path_variants() {
    let cases = [
        ("application/json", r#"{"error":{"message":"Invalid URL (POST /v1/chat/completion)","type":"invalid_request_error"}}"#),
        ("text/html", "<!DOCTYPE html><html><head><title>404 Not Found</title></head><body><h1>Not Found</h1></body></html>"),
        ("text/plain", "404 page not found"),
        ("text/plain", ""),
        ("application/json", r#"{"detail":"Not Found"}"#),
        ("application/json", r#""Not Found""#),
    ];
    for (content_type, body) in cases {
        let context = FailureContext {
            content_type: Some(content_type.into()),
            ..chat(404, body)
        };
        let diagnosis = check(
            context,
            Cause::WrongPath,
            &["404", "base URL", "/v1"],
            &["404", "基础 URL", "/v1"],
        );
        // HTML is never quoted as markup, only its title.
        if content_type == "text/html" {
            assert_eq!(diagnosis.provider_message.as_deref(), Some("404 Not Found"));
        }
    }
}

/// LiteLLM 1.108.7 without a database, a wrong key (tests/fixtures/gateways/litellm): a key
/// problem, not a parameter the model does not support.
#[test]
fn litellm_without_a_database_cannot_check_the_key() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/fixtures/gateways/litellm/master_key/b_wrong_key.json"
    );
    let case: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    assert_eq!(case["status"], 400);
    let body = case["body"].as_str().unwrap();
    let diagnosis = check(
        chat(400, body),
        Cause::GatewayCannotCheckKey,
        &[
            "no_db_connection",
            "key problem",
            "master key",
            "No connected db.",
        ],
        &["无法校验", "主密钥"],
    );
    assert_eq!(diagnosis.cause.code(), "gateway_cannot_check_key");
    assert!(!diagnosis.message(Lang::En).contains("parameter this model"));
}

/// LiteLLM's other auth answers (with prisma installed, as in its Docker image): no key is
/// a missing key; a key in the wrong header style is named as such.
#[test]
fn litellm_auth_answers_are_key_problems() {
    let read = |name: &str| -> String {
        let path = format!(
            "{}/../../tests/fixtures/gateways/litellm/master_key_prisma/{name}.json",
            env!("CARGO_MANIFEST_DIR")
        );
        let case: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        case["body"].as_str().unwrap().to_owned()
    };
    let missing = FailureContext {
        key_sent: false,
        ..chat(401, &read("c_no_authorization"))
    };
    check(missing, Cause::KeyMissing, &["401", "no API key"], &["401"]);
    let wrong_style = FailureContext {
        key_sent: true,
        auth_style: ttft_core::protocol::AuthStyle::XApiKey,
        ..chat(401, &read("d_bearer_empty"))
    };
    check(
        wrong_style,
        Cause::WrongAuthHeader {
            sent: ttft_core::protocol::AuthStyle::XApiKey,
            expected: ttft_core::protocol::AuthStyle::Bearer,
        },
        &["401"],
        &["401"],
    );
}

#[test]
fn bad_request() {
    check(
        chat(
            400,
            r#"{"error":{"message":"Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.","type":"invalid_request_error"}}"#,
        ),
        Cause::BadRequest,
        &["400", "max_completion_tokens"],
        &["400", "参数"],
    );
}

#[test]
fn request_timeout_413_and_422() {
    check(
        chat(408, ""),
        Cause::RequestTimeout,
        &["408"],
        &["408", "超时"],
    );
    check(
        chat(413, "Request Entity Too Large"),
        Cause::PayloadTooLarge,
        &["413", "shorter prompt"],
        &["413", "更短的提示词"],
    );
    check(
        chat(
            422,
            r#"{"detail":[{"loc":["body","stream_options"],"msg":"Extra inputs are not permitted","type":"extra_forbidden"}]}"#,
        ),
        Cause::Unprocessable,
        &["422", "Extra inputs are not permitted", "stream_options"],
        &["422", "字段"],
    );
}

#[test]
fn rate_limited_with_retry_after_seconds() {
    let context = FailureContext {
        retry_after: Some("20".into()),
        ..chat(
            429,
            r#"{"error":{"message":"Rate limit reached for requests","type":"requests","code":"rate_limit_exceeded"}}"#,
        )
    };
    check(
        context,
        Cause::RateLimited {
            retry_after_s: Some(20.0),
            quota_exhausted: false,
        },
        &["429", "retry after 20 s", "Wait 20 s"],
        &["429", "20 秒后重试", "等待 20 秒"],
    );
}

#[test]
fn rate_limited_with_http_date_and_quota() {
    // 2015-10-21 07:28:00 GMT = 1445412480; now 60 s earlier.
    let context = FailureContext {
        retry_after: Some("Wed, 21 Oct 2015 07:28:00 GMT".into()),
        now_unix_s: Some(1_445_412_420),
        ..chat(
            429,
            r#"{"error":{"message":"You exceeded your current quota, please check your plan and billing details.","type":"insufficient_quota","code":"insufficient_quota"}}"#,
        )
    };
    check(
        context,
        Cause::RateLimited {
            retry_after_s: Some(60.0),
            quota_exhausted: true,
        },
        &["out of quota", "Add credit"],
        &["额度", "充值"],
    );
}

#[test]
fn retry_after_parsing() {
    let cases = [
        ("120", None, Some(120.0)),
        (" 1.5 ", None, Some(1.5)),
        ("-3", None, None),
        (
            "Wed, 21 Oct 2015 07:28:00 GMT",
            Some(1_445_412_480 - 90),
            Some(90.0),
        ),
        (
            "Wed, 21 Oct 2015 07:28:00 GMT",
            Some(1_445_412_480 + 5),
            Some(0.0),
        ), // past
        ("Thu, 01 Jan 1970 00:00:10 GMT", Some(0), Some(10.0)),
        (
            "Sun, 29 Feb 2032 12:00:00 GMT",
            Some(1_961_668_800 - 1),
            Some(1.0),
        ),
        ("Wed, 21 Oct 2015 07:28:00 GMT", None, None), // a date needs now
        ("soon", Some(0), None),
        ("Wed, 21 Foo 2015 07:28:00 GMT", Some(0), None),
    ];
    for (value, now, expected) in cases {
        assert_eq!(parse_retry_after(value, now), expected, "{value}");
    }
}

#[test]
fn overloaded_and_server_errors() {
    check(
        http(
            Protocol::AnthropicMessages,
            ANTHROPIC,
            529,
            r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
        ),
        Cause::Overloaded { status: 529 },
        &["overloaded", "529", "Overloaded"],
        &["过载", "529"],
    );
    check(
        chat(
            500,
            r#"{"error":{"message":"The server had an error while processing your request.","type":"server_error"}}"#,
        ),
        Cause::ServerError { status: 500 },
        &["500", "server side", "The server had an error"],
        &["500", "服务器端出错"],
    );
    check(
        chat(502, "<html><title>502 Bad Gateway</title></html>"),
        Cause::ServerError { status: 502 },
        &["502", "502 Bad Gateway"],
        &["502"],
    );
    check(
        chat(418, ""),
        Cause::OtherHttpStatus { status: 418 },
        &["418"],
        &["418"],
    );
}

#[test]
fn a_static_file_server_is_not_an_llm_api() {
    // `python3 -m http.server` answers a POST with 501 and an HTML page; nginx serving files
    // answers 405. Neither is a server error of an LLM API.
    let python = FailureContext {
        content_type: Some("text/html;charset=utf-8".into()),
        ..http(
            Protocol::OpenAiChat,
            "http://127.0.0.1:8000/v1/chat/completions",
            501,
            "<html><head><title>Error response</title></head><body><h1>Error response</h1><p>Error code: 501</p><p>Message: Unsupported method ('POST').</p></body></html>",
        )
    };
    check(
        python,
        Cause::NotAnApi { status: 501 },
        &["501", "not an LLM API", "base URL"],
        &["501", "不是 LLM API", "基础 URL"],
    );
    let nginx = FailureContext {
        content_type: Some("text/html".into()),
        ..http(
            Protocol::OpenAiChat,
            "https://docs.example.com/v1/chat/completions",
            405,
            "<html><head><title>405 Not Allowed</title></head><body><center><h1>405 Not Allowed</h1></center><hr><center>nginx</center></body></html>",
        )
    };
    check(
        nginx,
        Cause::NotAnApi { status: 405 },
        &["405", "web or file server"],
        &["405", "网页或文件服务器"],
    );
}

#[test]
fn connection_failed_to_local_server() {
    let diagnosis = check(
        network(
            "http://localhost:8000/v1/chat/completions",
            NetworkFailure::NetworkError,
        ),
        Cause::ConnectionFailed {
            hints: vec![
                NetworkHint::LocalServerNotRunning,
                NetworkHint::LocalServerOrigins,
                NetworkHint::ProxyOrVpn,
            ],
        },
        &[
            "failed to fetch",
            "not running",
            "OLLAMA_ORIGINS",
            "proxy",
            "console",
        ],
        &["本地服务没有运行", "OLLAMA_ORIGINS", "代理", "控制台"],
    );
    assert_eq!(diagnosis.http_status, None);
}

#[test]
fn a_refused_local_network_access_comes_first_with_what_to_click() {
    // A public page's request to this machine or the local network: a network error whose
    // permission is denied or not given is the browser's refusal, named with the setting.
    for (url, permission, first) in [
        (
            "http://localhost:8000/v1/chat/completions",
            SpacePermission::Denied,
            NetworkHint::LoopbackAccessRefused,
        ),
        (
            "http://127.0.0.1:11434/v1/chat/completions",
            SpacePermission::Prompt,
            NetworkHint::LoopbackAccessRefused,
        ),
        (
            "http://192.168.1.20:8000/v1/chat/completions",
            SpacePermission::Denied,
            NetworkHint::LocalNetworkAccessRefused,
        ),
    ] {
        let context = FailureContext {
            space_permission: Some(permission),
            ..network(url, NetworkFailure::NetworkError)
        };
        let diagnosis = diagnose(&context).expect("a failure");
        let Cause::ConnectionFailed { hints } = &diagnosis.cause else {
            panic!("{url}: {:?}", diagnosis.cause);
        };
        assert_eq!(hints.first(), Some(&first), "{url}");
        let text = format!(
            "{} {}",
            diagnosis.message(Lang::En),
            diagnosis.fix(Lang::En)
        );
        assert!(text.contains("Site settings"), "{text}");
        let zh = format!(
            "{} {}",
            diagnosis.message(Lang::Zh),
            diagnosis.fix(Lang::Zh)
        );
        assert!(zh.contains("网站设置"), "{zh}");
    }
    // Granted: the browser let it through; the usual reasons stand.
    let granted = FailureContext {
        space_permission: Some(SpacePermission::Granted),
        ..network(
            "http://localhost:8000/v1/chat/completions",
            NetworkFailure::NetworkError,
        )
    };
    let Cause::ConnectionFailed { hints } = diagnose(&granted).expect("a failure").cause else {
        panic!("granted");
    };
    assert_eq!(hints.first(), Some(&NetworkHint::LocalServerNotRunning));
    // A public endpoint has no address space to refuse, whatever the permission says.
    let public = FailureContext {
        space_permission: Some(SpacePermission::Denied),
        ..network(
            "https://api.example.com/v1/chat/completions",
            NetworkFailure::NetworkError,
        )
    };
    let Cause::ConnectionFailed { hints } = diagnose(&public).expect("a failure").cause else {
        panic!("public");
    };
    assert!(!hints.contains(&NetworkHint::LoopbackAccessRefused));
    assert!(!hints.contains(&NetworkHint::LocalNetworkAccessRefused));
}

#[test]
fn connection_failed_mixed_content_and_providers() {
    let cases = [
        (
            "http://gpu-box.example:8000/v1/chat/completions",
            vec![
                NetworkHint::MixedContent,
                NetworkHint::CorsNotAllowed,
                NetworkHint::ServerUnreachable,
                NetworkHint::ProxyOrVpn,
            ],
            "mixed content",
            "混合内容",
        ),
        (
            "https://api.deepseek.com/v1/chat/completions",
            vec![
                NetworkHint::ProviderBlocksBrowserCalls,
                NetworkHint::ServerUnreachable,
                NetworkHint::ProxyOrVpn,
            ],
            "proxy that adds CORS headers",
            "CORS",
        ),
        (
            ANTHROPIC,
            vec![
                NetworkHint::AnthropicBrowserAccessDisabled,
                NetworkHint::ServerUnreachable,
                NetworkHint::ProxyOrVpn,
            ],
            "CORS requests are not allowed for this Organization",
            "浏览器直连",
        ),
        (
            OPENAI,
            vec![
                NetworkHint::ErrorWithoutCorsHeaders,
                NetworkHint::ServerUnreachable,
                NetworkHint::ProxyOrVpn,
            ],
            "lack CORS headers",
            "缺少 CORS 头",
        ),
    ];
    for (url, hints, english, chinese) in cases {
        check(
            network(url, NetworkFailure::NetworkError),
            Cause::ConnectionFailed { hints },
            &[english],
            &[chinese],
        );
    }
    // From an http page there is no mixed content.
    let context = FailureContext {
        page_is_https: false,
        ..network(
            "http://gpu-box.example:8000/v1/chat/completions",
            NetworkFailure::NetworkError,
        )
    };
    let diagnosis = diagnose(&context).unwrap();
    assert!(
        !matches!(&diagnosis.cause, Cause::ConnectionFailed { hints } if hints.contains(&NetworkHint::MixedContent))
    );
}

#[test]
fn timeout_long_prefill() {
    let context = FailureContext {
        elapsed_ms: Some(60_000.0),
        ..network(OPENAI, NetworkFailure::Timeout)
    };
    check(
        context,
        Cause::Timeout {
            after_ms: Some(60_000.0),
            headers_received: false,
        },
        &["60 s", "prefill", "Raise the timeout"],
        &["60 秒", "预填充", "超时时间"],
    );
    let after_headers = FailureContext {
        http_status: Some(200),
        elapsed_ms: Some(30_000.0),
        ..network(OPENAI, NetworkFailure::Timeout)
    };
    check(
        after_headers,
        Cause::Timeout {
            after_ms: Some(30_000.0),
            headers_received: true,
        },
        &["30 s", "stalled"],
        &["30 秒", "停滞"],
    );
}

#[test]
fn aborted_by_user() {
    check(
        network(OPENAI, NetworkFailure::Aborted),
        Cause::Aborted,
        &["stopped", "kept"],
        &["停止", "保留"],
    );
}

#[test]
fn mid_stream_error() {
    let failure = StreamFailure::MidStreamError {
        error: StreamError {
            kind: Some("server_error".into()),
            message: "The server had an error while processing your request. Sorry about that!"
                .into(),
            raw: serde_json::Value::Null,
        },
    };
    let diagnosis = check(
        stream(failure),
        Cause::MidStreamError {
            error_kind: Some("server_error".into()),
        },
        &["HTTP 200", "server_error", "Sorry about that!"],
        &["HTTP 200", "server_error", "服务器原话"],
    );
    assert_eq!(diagnosis.http_status, Some(200));
    // Anthropic's overloaded_error inside the stream is an overload.
    let overloaded = StreamFailure::MidStreamError {
        error: StreamError {
            kind: Some("overloaded_error".into()),
            message: "Overloaded".into(),
            raw: serde_json::Value::Null,
        },
    };
    check(
        stream(overloaded),
        Cause::Overloaded { status: 200 },
        &["overloaded"],
        &["过载"],
    );
}

#[test]
fn malformed_chunk_reading_choices() {
    let failure = StreamFailure::MalformedChunk {
        detail: "chunk has no choices".into(),
    };
    check(
        stream(failure),
        Cause::MalformedChunk {
            detail: "chunk has no choices".into(),
        },
        &["reading 'choices'", "chunk has no choices", "protocol"],
        &["reading 'choices'", "协议"],
    );
}

#[test]
fn empty_stream_and_not_a_stream() {
    check(
        stream(StreamFailure::EmptyStream),
        Cause::EmptyStream,
        &["without any text", "max tokens"],
        &["没有任何文本", "最大 token"],
    );
    let html = FailureContext {
        content_type: Some("text/html; charset=utf-8".into()),
        response_body: Some("<html><head><title>Open WebUI</title></head></html>".into()),
        ..stream(StreamFailure::EmptyStream)
    };
    let diagnosis = check(
        html,
        Cause::NotAnEventStream {
            content_type: "text/html; charset=utf-8".into(),
        },
        &["not with a stream", "web page", "/v1"],
        &["不是流式响应", "网页"],
    );
    assert_eq!(diagnosis.provider_message.as_deref(), Some("Open WebUI"));
    // A 200 JSON error body fed to the SSE parser.
    let json = FailureContext {
        content_type: Some("application/json".into()),
        response_body: Some(r#"{"error":{"message":"upstream failed"}}"#.into()),
        ..stream(StreamFailure::MalformedChunk {
            detail: "not SSE".into(),
        })
    };
    let diagnosis = diagnose(&json).unwrap();
    assert!(matches!(diagnosis.cause, Cause::NotAnEventStream { .. }));
    assert_eq!(
        diagnosis.provider_message.as_deref(),
        Some("upstream failed")
    );
}

#[test]
fn ended_without_terminal_marker() {
    check(
        stream(StreamFailure::EndedWithoutTerminal),
        Cause::EndedWithoutTerminal,
        &["end marker", "timeout"],
        &["结束标记", "超时"],
    );
    // A read that rejects after a 200 is a dropped stream too.
    let dropped = FailureContext {
        http_status: Some(200),
        ..network(OPENAI, NetworkFailure::NetworkError)
    };
    assert_eq!(
        diagnose(&dropped).unwrap().cause,
        Cause::EndedWithoutTerminal
    );
}

#[test]
fn nothing_failed_gives_none() {
    let ok = FailureContext {
        http_status: Some(200),
        ..FailureContext::new(Protocol::OpenAiChat, OPENAI)
    };
    assert_eq!(diagnose(&ok), None);
}

#[test]
fn quotes_are_text_only_and_truncated() {
    let long = "lorem ipsum ".repeat(30);
    let body = format!(r#"{{"error":{{"message":"line one\nline\ttwo\u0007 {long}"}}}}"#);
    let diagnosis = diagnose(&chat(500, &body)).unwrap();
    let quote = diagnosis.provider_message.unwrap();
    assert!(quote.starts_with("line one line two "), "{quote}");
    assert_eq!(quote.chars().count(), MAX_QUOTED_CHARS + 1); // + the ellipsis
    assert!(quote.ends_with('…'));
    assert!(!quote.contains('\n'));
    // A key-like token is redacted, ordinary long words are not.
    let body = r#"{"error":{"message":"bad key 0123456789abcdef0123456789abcdef99 here"}}"#;
    let quote = diagnose(&chat(500, body))
        .unwrap()
        .provider_message
        .unwrap();
    assert_eq!(quote, "bad key [redacted] here");
}

#[test]
fn diagnosis_serializes_with_snake_case_kind() {
    let diagnosis = diagnose(&chat(404, "<html></html>")).unwrap();
    let value = serde_json::to_value(&diagnosis).unwrap();
    assert_eq!(value["cause"]["kind"], "wrong_path");
    assert_eq!(value["http_status"], 404);
}

#[test]
fn context_from_run_and_request() {
    let endpoint =
        normalize_base_url("https://api.anthropic.com", Protocol::AnthropicMessages).unwrap();
    let key = ApiKey::parse("sk-ant-abcdefghijklmnop").unwrap();
    let request = prepare_request(
        &endpoint,
        &PromptSpec::new("claude", "Hi"),
        key.as_ref(),
        None,
    )
    .unwrap();
    let mut run = RunTimeline::new(None, 1000.0);
    run.on_headers(1100.0, 200);
    run.on_event(
        1200.0,
        &DecodedEvent {
            answer: "Hel".into(),
            ..Default::default()
        },
    );
    run.on_event(
        1300.0,
        &DecodedEvent {
            error: Some(StreamError {
                kind: Some("overloaded_error".into()),
                message: "Overloaded".into(),
                raw: serde_json::Value::Null,
            }),
            ..Default::default()
        },
    );
    run.on_stream_end(1301.0);
    let context = FailureContext::from_run(&run, &request.describe());
    assert_eq!(context.protocol, Protocol::AnthropicMessages);
    assert_eq!(
        context.endpoint_url,
        "https://api.anthropic.com/v1/messages"
    );
    assert_eq!(context.auth_style, AuthStyle::XApiKey);
    assert!(context.key_sent);
    assert_eq!(context.http_status, Some(200));
    assert_eq!(context.elapsed_ms, Some(301.0));
    let diagnosis = diagnose(&context).unwrap();
    assert_eq!(diagnosis.cause, Cause::Overloaded { status: 200 });
    assert_eq!(diagnosis.provider_message.as_deref(), Some("Overloaded"));

    let mut timed_out = RunTimeline::new(None, 0.0);
    timed_out.on_network_failure(90_000.0, NetworkFailure::Timeout);
    let context = FailureContext::from_run(&timed_out, &request.describe());
    assert_eq!(
        diagnose(&context).unwrap().cause,
        Cause::Timeout {
            after_ms: Some(90_000.0),
            headers_received: false
        }
    );
}

#[test]
fn language_tags() {
    let cases = [
        ("zh-CN", Lang::Zh),
        ("zh", Lang::Zh),
        ("ZH_tw", Lang::Zh),
        ("en-US", Lang::En),
        ("fr", Lang::En),
        ("", Lang::En),
    ];
    for (tag, expected) in cases {
        assert_eq!(Lang::from_language_tag(tag), expected, "{tag}");
    }
}

#[test]
fn anthropic_organisation_refuses_browser_calls() {
    let context = http(
        Protocol::AnthropicMessages,
        ANTHROPIC,
        401,
        r#"{"type":"error","error":{"type":"authentication_error","message":"CORS requests are not allowed for this Organization because of its settings. If you believe this in error, contact support at https://support.anthropic.com/."}}"#,
    );
    check(
        context,
        Cause::BrowserAccessRefused,
        &[
            "directly from a browser",
            "not a wrong key",
            "CORS requests are not allowed",
            "proxy",
        ],
        &["浏览器直接", "不是密钥错误", "代理"],
    );
}

#[test]
fn a_traceparent_header_is_the_first_likely_reason_and_confirmed_its_own_cause() {
    let context = FailureContext {
        trace_context_sent: true,
        ..network(
            "http://127.0.0.1:8787/v1/chat/completions",
            NetworkFailure::NetworkError,
        )
    };
    check(
        context,
        Cause::ConnectionFailed {
            hints: vec![
                NetworkHint::TraceContextNotAllowed,
                NetworkHint::LocalServerNotRunning,
                NetworkHint::LocalServerOrigins,
                NetworkHint::ProxyOrVpn,
            ],
        },
        &["traceparent header", "turn off trace context"],
        &["traceparent", "关闭追踪上下文"],
    );
    let confirmed = ttft_core::trace_context::refused_diagnosis();
    assert_eq!(confirmed.cause, Cause::TraceContextRefused);
    assert_eq!(confirmed.cause.code(), "trace_context_refused");
    let en = format!(
        "{} {}",
        confirmed.message(Lang::En),
        confirmed.fix(Lang::En)
    );
    assert!(
        en.contains("the server refuses the traceparent header in CORS")
            || en.contains("The server refuses the traceparent header in CORS")
    );
    assert!(en.contains("Turn off trace context") && en.contains("allow the header"));
    let zh = format!(
        "{} {}",
        confirmed.message(Lang::Zh),
        confirmed.fix(Lang::Zh)
    );
    assert!(zh.contains("traceparent") && zh.contains("关闭追踪上下文"));
}

#[test]
fn a_context_overflow_is_its_own_cause_with_the_servers_numbers() {
    let overflow = |window_tokens, requested_tokens| Cause::ContextOverflow {
        window_tokens,
        requested_tokens,
    };
    // Each server's own wording (docs/presets.md; llama-cpp-python's measured in the
    // real-server bench), with the numbers it names.
    let cases = [
        // OpenAI and vLLM.
        (
            400,
            r#"{"error":{"message":"This model's maximum context length is 8192 tokens. However, you requested 9000 tokens (8000 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.","type":"invalid_request_error","code":"context_length_exceeded"}}"#,
            overflow(Some(8192), Some(9000)),
        ),
        // llama-cpp-python.
        (
            400,
            r#"{"error":{"message":"Requested tokens (9860) exceed context window of 8192","type":"invalid_request_error"}}"#,
            overflow(Some(8192), Some(9860)),
        ),
        // llama.cpp's server.
        (
            400,
            r#"{"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error","n_prompt_tokens":9001,"n_ctx":4096}}"#,
            overflow(Some(4096), Some(9001)),
        ),
        // SGLang.
        (
            400,
            r#"{"object":"error","message":"The input (9000 tokens) is longer than the model's context length (8192 tokens).","type":"BadRequestError","code":400}"#,
            overflow(Some(8192), Some(9000)),
        ),
        // Anthropic.
        (
            400,
            r#"{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210000 tokens > 200000 maximum"}}"#,
            overflow(Some(200000), Some(210000)),
        ),
        // Only the code, no numbers.
        (
            400,
            r#"{"error":{"message":"Too long.","code":"context_length_exceeded"}}"#,
            overflow(None, None),
        ),
    ];
    for (status, body, expected) in cases {
        let diagnosis = diagnose(&chat(status, body)).unwrap();
        assert_eq!(diagnosis.cause, expected, "{body}");
        assert_eq!(diagnosis.cause.code(), "context_overflow");
        let en = diagnosis.message(Lang::En);
        assert!(en.contains("context window"), "{en}");
        if let Cause::ContextOverflow {
            window_tokens: Some(window),
            ..
        } = diagnosis.cause
        {
            assert!(en.contains(&window.to_string()), "{en}");
            assert!(diagnosis.message(Lang::Zh).contains(&window.to_string()));
        }
        assert!(diagnosis.fix(Lang::En).contains("max_tokens"));
        assert!(diagnosis.fix(Lang::Zh).contains("max_tokens"));
    }
    // Other 400s stay bad requests.
    let other = diagnose(&chat(
        400,
        r#"{"error":{"message":"Unknown parameter: foo"}}"#,
    ))
    .unwrap();
    assert_eq!(other.cause, Cause::BadRequest);
    // Inside a stream, too.
    let failure = StreamFailure::MidStreamError {
        error: StreamError {
            kind: Some("invalid_request_error".into()),
            message: "Requested tokens (9000) exceed context window of 8192".into(),
            raw: serde_json::Value::Null,
        },
    };
    assert_eq!(
        diagnose(&stream(failure)).unwrap().cause,
        overflow(Some(8192), Some(9000))
    );
}

/// Issue 23: provider text cannot spoof the page. Bidi controls in a provider's message are
/// shown as escapes, and the page can set the quote apart: the message splits around it.
#[test]
fn bidi_controls_in_a_quote_are_shown_as_escapes_and_the_quote_is_set_apart() {
    let reversed: String = "Send your API key to https://trusted.example to continue"
        .chars()
        .rev()
        .collect();
    let spoof = format!("Request rejected. \u{202E}{reversed}\u{202C} Contact support.");
    let body = serde_json::json!({"error": {"message": spoof, "type": "invalid_request_error"}})
        .to_string();
    let diagnosis = diagnose(&chat(400, &body)).unwrap();
    let quote = diagnosis.provider_message.clone().unwrap();
    assert!(
        quote.starts_with("Request rejected. <U+202E>eunitnoc"),
        "{quote}"
    );
    assert!(quote.ends_with("dneS<U+202C> Contact support."), "{quote}");
    assert!(!quote.chars().any(ttft_core::quote::is_invisible_format));
    let text = ttft_core::record::DiagnosisText::of(&diagnosis);
    for (lang, opening, closing) in [
        (Lang::En, "The server said: \"", "\""),
        (Lang::Zh, "服务器原话：“", "”"),
    ] {
        let (before, quoted, after) = text.message_parts(lang);
        assert_eq!(quoted, Some(quote.as_str()));
        assert!(before.ends_with(opening), "{before}");
        assert_eq!(after, closing);
        assert!(!before.contains('\u{202E}') && !after.contains('\u{202E}'));
    }
    // A 64 KB content type is quoted within the bound in the "not a stream" message.
    let content_type = format!("text/html; x={}", "a".repeat(65_536));
    let context = FailureContext {
        http_status: Some(200),
        content_type: Some(content_type),
        stream_failure: Some(StreamFailure::EmptyStream),
        ..FailureContext::new(Protocol::OpenAiChat, OPENAI)
    };
    let diagnosis = diagnose(&context).unwrap();
    let Cause::NotAnEventStream { content_type } = &diagnosis.cause else {
        panic!("{:?}", diagnosis.cause);
    };
    assert_eq!(content_type.chars().count(), MAX_QUOTED_CHARS + 1);
    for lang in [Lang::En, Lang::Zh] {
        assert!(diagnosis.message(lang).chars().count() < 500);
    }
}

/// The page's no-cors probe tells a CORS refusal from an unreachable host; a refusal by a
/// remote provider offers the relay with the base URL filled in, and a known provider's row
/// names its standing with the date and source.
#[test]
fn the_probe_tells_a_cors_refusal_from_an_unreachable_host() {
    const DASHSCOPE: &str =
        "https://dashscope.aliyuncs.com/compatible-mode/v1/chat/completions?x=1";
    let probed = |url: &str, answered: Option<bool>| FailureContext {
        answers_without_cors: answered,
        ..network(url, NetworkFailure::NetworkError)
    };
    let hints_of = |diagnosis: &Diagnosis| match &diagnosis.cause {
        Cause::ConnectionFailed { hints } => hints.clone(),
        other => panic!("a connection failure, not {other:?}"),
    };

    // Answered without CORS: refused, and nothing says the host is down.
    let refused = diagnose(&probed(DASHSCOPE, Some(true))).expect("a failure");
    assert_eq!(hints_of(&refused), vec![NetworkHint::CorsRefused]);
    assert_eq!(
        refused.relay_upstream.as_deref(),
        Some("https://dashscope.aliyuncs.com/compatible-mode/v1")
    );
    assert_eq!(
        refused.relay_command().as_deref(),
        Some("scripts/relay.sh --upstream https://dashscope.aliyuncs.com/compatible-mode/v1")
    );
    let note = refused.provider_cors.as_ref().expect("DashScope's row");
    assert_eq!(note.standing, ttft_core::diagnosis::CorsStanding::Refuses);
    for lang in [Lang::En, Lang::Zh] {
        let message = refused.message(lang);
        assert!(
            message.contains(&note.checked) && message.contains(&note.source),
            "{message}"
        );
        assert!(!refused.fix(lang).is_empty());
    }
    assert!(refused
        .message(Lang::En)
        .contains("Alibaba DashScope / Bailian is reported to refuse calls from web pages"));
    assert!(refused.fix(Lang::En).contains("relay"));

    // Not answered: unreachable first, no CORS reason, no relay (it would not get there either).
    let down = diagnose(&probed(DASHSCOPE, Some(false))).expect("a failure");
    assert_eq!(
        hints_of(&down),
        vec![NetworkHint::ServerUnreachable, NetworkHint::ProxyOrVpn]
    );
    assert_eq!(down.relay_upstream, None);
    assert_eq!(down.relay_command(), None);

    // Not probed: a provider reported to refuse pages still gets the relay offered.
    let unprobed = diagnose(&probed(DASHSCOPE, None)).expect("a failure");
    assert!(hints_of(&unprobed).contains(&NetworkHint::CorsNotAllowed));
    assert!(unprobed.relay_upstream.is_some());
    // ... one reported to allow them does not (its key or model is the likelier reason).
    let openai = diagnose(&probed(OPENAI, None)).expect("a failure");
    assert_eq!(openai.relay_upstream, None);
    assert_eq!(
        openai.provider_cors.as_ref().map(|note| note.name.as_str()),
        Some("OpenAI")
    );

    // A local server that answered refuses this origin by its own settings: its origins
    // setting named first, the relay after, and nothing says it is not running.
    let local = diagnose(&probed(
        "http://localhost:11434/v1/chat/completions",
        Some(true),
    ))
    .expect("a failure");
    assert_eq!(
        hints_of(&local),
        vec![NetworkHint::LocalServerOrigins, NetworkHint::CorsRefused]
    );
    assert_eq!(
        local.relay_upstream.as_deref(),
        Some("http://localhost:11434/v1")
    );
    // Its own setting is the better fix: the relay comes second.
    assert!(local
        .fix(Lang::En)
        .starts_with("Better: let the server allow this page's origin"));
    assert!(refused.fix(Lang::En).starts_with("Run TTFT Meter's relay"));
    let local_down = diagnose(&probed(
        "http://localhost:11434/v1/chat/completions",
        Some(false),
    ))
    .expect("a failure");
    assert_eq!(
        hints_of(&local_down),
        vec![NetworkHint::LocalServerNotRunning, NetworkHint::ProxyOrVpn]
    );

    // An Anthropic organisation that refuses browsers does so on purpose: no relay offered.
    let anthropic = FailureContext {
        answers_without_cors: Some(true),
        ..FailureContext {
            network_failure: Some(NetworkFailure::NetworkError),
            ..FailureContext::new(Protocol::AnthropicMessages, ANTHROPIC)
        }
    };
    let anthropic = diagnose(&anthropic).expect("a failure");
    assert_eq!(
        hints_of(&anthropic),
        vec![
            NetworkHint::AnthropicBrowserAccessDisabled,
            NetworkHint::CorsRefused
        ]
    );
    assert_eq!(anthropic.relay_upstream, None);

    // A base URL with characters a shell reads is quoted as one word.
    let odd = diagnose(&probed(
        "https://gw.example.com/o'k/v1/chat/completions",
        Some(true),
    ))
    .expect("a failure");
    assert_eq!(
        odd.relay_command().as_deref(),
        Some("scripts/relay.sh --upstream 'https://gw.example.com/o'\\''k/v1'")
    );
}

/// ttft-relay answering for itself (docs/relay.md): its kind names which side failed and
/// what to do, in both languages; a provider's own 502 stays a server error.
#[test]
fn the_relay_says_which_side_failed() {
    let relay = |status: u16, kind: &str| {
        http(
            Protocol::OpenAiChat,
            "http://127.0.0.1:8788/compatible-mode/v1/chat/completions",
            status,
            &format!(
                r#"{{"error":{{"message":"ttft-relay: the TLS handshake with x failed","type":"{kind}"}}}}"#
            ),
        )
    };
    let cases = [
        (
            502,
            "upstream-tls",
            "does not trust the provider's certificate",
            "--ca-file",
        ),
        (
            502,
            "upstream-dns",
            "could not resolve the provider's host name",
            "host name",
        ),
        (
            502,
            "upstream-connect",
            "could not connect to the provider",
            "curl",
        ),
        (
            504,
            "upstream-timeout",
            "no answer within the relay's time limit",
            "--upstream-timeout-ms",
        ),
        (
            502,
            "upstream-reset",
            "closed the connection before answering",
            "Retry",
        ),
        (
            403,
            "forbidden-origin",
            "refused this page",
            "--allow-origin",
        ),
        (
            400,
            "forbidden-target",
            "forwards only to the provider it was started for",
            "printed",
        ),
    ];
    for (status, kind, message, fix) in cases {
        let diagnosis = diagnose(&relay(status, kind)).expect("a failure");
        assert_eq!(
            diagnosis.cause,
            Cause::Relay {
                error: kind.to_owned()
            }
        );
        assert_eq!(diagnosis.cause.code(), "relay");
        assert!(
            diagnosis.message(Lang::En).contains(message),
            "{kind}: {}",
            diagnosis.message(Lang::En)
        );
        assert!(
            diagnosis.fix(Lang::En).contains(fix),
            "{kind}: {}",
            diagnosis.fix(Lang::En)
        );
        assert!(!diagnosis.message(Lang::Zh).is_empty() && !diagnosis.fix(Lang::Zh).is_empty());
    }
    // Not the relay's words, or not one of its kinds: the status decides as before.
    let provider = http(
        Protocol::OpenAiChat,
        OPENAI,
        502,
        r#"{"error":{"message":"bad gateway","type":"upstream-tls"}}"#,
    );
    assert_eq!(
        diagnose(&provider).unwrap().cause,
        Cause::ServerError { status: 502 }
    );
    let unknown = http(
        Protocol::OpenAiChat,
        OPENAI,
        502,
        r#"{"error":{"message":"ttft-relay: something","type":"server_error"}}"#,
    );
    assert_eq!(
        diagnose(&unknown).unwrap().cause,
        Cause::ServerError { status: 502 }
    );
}
