//! Diagnosis: HTTP status + body + network failure kind to a typed cause a user can act on.
//!
//! The app collects what it saw into a [`FailureContext`] and calls [`diagnose`]; the
//! [`Diagnosis`] it gets back names a [`Cause`] and gives a message and a fix in English or
//! Simplified Chinese ([`Lang`]), quoting the provider's own message when there is one
//! (text only, truncated, anything that looks like a key redacted).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::lang::Lang;
use crate::protocol::{AuthStyle, Protocol};
use crate::request::{host_without_port, is_loopback_host, KeyError, RequestDescription};
use crate::timeline::RunTimeline;
use ttft_stream::dialect::StreamError;

/// How `fetch()` or a body read failed. The browser only gives a `TypeError` for network
/// failures, so CORS, refused connections, DNS and mixed content all look the same.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NetworkFailure {
    /// `TypeError: Failed to fetch` / `NetworkError when attempting to fetch resource`.
    NetworkError,
    /// Our own deadline fired (the request was aborted by the timeout).
    Timeout,
    /// The user pressed Stop.
    Aborted,
    /// The server answered with a redirect (3xx). The page never follows one: the request
    /// carries the key, which must not go to the new address.
    Redirected,
}

/// What went wrong inside an HTTP 2xx stream.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum StreamFailure {
    /// The provider reported an error inside the stream.
    MidStreamError {
        /// The error.
        error: StreamError,
    },
    /// A chunk was not the protocol's JSON (an error body or an empty `choices` read as a
    /// normal chunk is the classic "reading 'choices'" crash of naive clients).
    MalformedChunk {
        /// The parser's message.
        detail: String,
    },
    /// The stream ended without any reasoning or answer text.
    EmptyStream,
    /// The stream closed without the protocol's terminal marker.
    EndedWithoutTerminal,
}

/// Everything the app knows about a failed (or suspicious) run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FailureContext {
    /// Protocol used.
    pub protocol: Protocol,
    /// The endpoint URL called.
    pub endpoint_url: String,
    /// Whether the page itself is served over https (mixed-content blocking).
    pub page_is_https: bool,
    /// Whether a key was sent.
    pub key_sent: bool,
    /// How the key was sent.
    pub auth_style: AuthStyle,
    /// HTTP status, when headers arrived.
    pub http_status: Option<u16>,
    /// Response `content-type`.
    pub content_type: Option<String>,
    /// Response body text (for non-2xx answers, or a 2xx that was not a stream).
    pub response_body: Option<String>,
    /// `Retry-After` header value.
    pub retry_after: Option<String>,
    /// Wall-clock now in Unix seconds, to turn an HTTP-date `Retry-After` into seconds.
    pub now_unix_s: Option<i64>,
    /// How fetch or a read failed, if it did.
    pub network_failure: Option<NetworkFailure>,
    /// How the stream failed, if it did.
    pub stream_failure: Option<StreamFailure>,
    /// Time from `request_started` to the failure (ms), for timeouts.
    pub elapsed_ms: Option<f64>,
    /// Whether the request carried a W3C `traceparent` header (trace context on): a server
    /// whose CORS does not allow it refuses the preflight, which looks like any network error.
    #[serde(default)]
    pub trace_context_sent: bool,
}

impl FailureContext {
    /// The context of a run: request details from its description, status, network and
    /// stream failures and elapsed time from its timeline. The app still fills in what
    /// only the browser knows: `content_type`, `response_body`, `retry_after`,
    /// `now_unix_s`, `page_is_https`.
    pub fn from_run(run: &RunTimeline, request: &RequestDescription) -> FailureContext {
        FailureContext {
            key_sent: request.key_sent,
            auth_style: request.auth_style,
            http_status: run.http_status,
            network_failure: run.network_failure(),
            stream_failure: run.stream_failure(),
            elapsed_ms: run.elapsed_ms(),
            trace_context_sent: request
                .headers
                .iter()
                .any(|(name, _)| name.eq_ignore_ascii_case(crate::trace_context::TRACEPARENT)),
            ..FailureContext::new(request.protocol, &request.url)
        }
    }

    /// A context with nothing observed yet; fill in the public fields.
    pub fn new(protocol: Protocol, endpoint_url: &str) -> FailureContext {
        FailureContext {
            protocol,
            endpoint_url: endpoint_url.to_owned(),
            page_is_https: true,
            key_sent: true,
            auth_style: protocol.default_auth_style(),
            http_status: None,
            content_type: None,
            response_body: None,
            retry_after: None,
            now_unix_s: None,
            network_failure: None,
            stream_failure: None,
            elapsed_ms: None,
            trace_context_sent: false,
        }
    }
}

/// A likely reason for a network-level failure, most likely first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NetworkHint {
    /// The request carried `traceparent`, which the server's CORS may not allow.
    TraceContextNotAllowed,
    /// An https page calling an http endpoint: the browser blocks it before sending.
    MixedContent,
    /// A local server that is not running, or listens on another port or address.
    LocalServerNotRunning,
    /// A local server that does not allow this page's origin (Ollama: `OLLAMA_ORIGINS`).
    LocalServerOrigins,
    /// A provider known not to allow direct browser calls reliably (DeepSeek).
    ProviderBlocksBrowserCalls,
    /// Anthropic organisation with browser (CORS) access disabled.
    AnthropicBrowserAccessDisabled,
    /// A provider whose error responses lack CORS headers, so an HTTP error looks like a
    /// network failure (OpenAI).
    ErrorWithoutCorsHeaders,
    /// The server does not allow cross-origin calls (no CORS headers).
    CorsNotAllowed,
    /// The server is down, the host name is wrong, or the port is wrong.
    ServerUnreachable,
    /// A system proxy, VPN or local proxy tool in between failed.
    ProxyOrVpn,
}

/// The typed cause of a failure.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Cause {
    /// 401 and no key was sent.
    KeyMissing,
    /// 401 and the key was refused.
    KeyRefused,
    /// The key contains spaces or line breaks (caught before sending).
    KeyHasWhitespace,
    /// The key contains a character a header cannot carry (caught before sending).
    KeyHasInvalidCharacter,
    /// The key went in the wrong header for this server.
    WrongAuthHeader {
        /// How it was sent.
        sent: AuthStyle,
        /// How the server wants it.
        expected: AuthStyle,
    },
    /// 403.
    Forbidden,
    /// The provider answered, but refuses calls from browsers for this account (Anthropic:
    /// 401 "CORS requests are not allowed for this Organization because of its settings").
    BrowserAccessRefused,
    /// 404 (or 400) about an unknown model.
    ModelNotFound,
    /// 404 for the path: the base URL or route is wrong.
    WrongPath,
    /// 400.
    BadRequest,
    /// 408.
    RequestTimeout,
    /// 413.
    PayloadTooLarge,
    /// 422.
    Unprocessable,
    /// 429.
    RateLimited {
        /// Seconds to wait, from `Retry-After`.
        retry_after_s: Option<f64>,
        /// The account is out of quota or credit rather than temporarily limited.
        quota_exhausted: bool,
    },
    /// 529, or an `overloaded_error`.
    Overloaded {
        /// The status (200 when it came inside the stream).
        status: u16,
    },
    /// Another 5xx.
    ServerError {
        /// The status.
        status: u16,
    },
    /// A status none of the above covers.
    OtherHttpStatus {
        /// The status.
        status: u16,
    },
    /// The prompt (with the output limit) does not fit the model's context window, as the
    /// server said it in its own wording (a 4xx answer, or an error inside the stream).
    ContextOverflow {
        /// The window the server named, tokens.
        window_tokens: Option<u32>,
        /// What the request needed by the server's count, tokens, when it said.
        requested_tokens: Option<u32>,
    },
    /// 405 or 501 to the POST: a web or file server (a static host), not an LLM API.
    NotAnApi {
        /// The status.
        status: u16,
    },
    /// 2xx, but the body is not an event stream (JSON or an HTML page).
    NotAnEventStream {
        /// The content type received.
        content_type: String,
    },
    /// The request with a `traceparent` header failed before any answer, and the same request
    /// without it got one: the server's CORS does not allow the header.
    TraceContextRefused,
    /// The request never got an HTTP answer the page could read: CORS or connection refused.
    ConnectionFailed {
        /// Likely reasons, most likely first.
        hints: Vec<NetworkHint>,
    },
    /// Our deadline fired.
    Timeout {
        /// When (ms after request start).
        after_ms: Option<f64>,
        /// Whether the status and headers had arrived.
        headers_received: bool,
    },
    /// The user stopped the run.
    Aborted,
    /// The server redirected the request; it was not followed, so the key did not go to the
    /// new address.
    Redirected,
    /// An error inside the 200 stream.
    MidStreamError {
        /// The provider's error type or code.
        error_kind: Option<String>,
    },
    /// A chunk was not the protocol's JSON.
    MalformedChunk {
        /// The parser's message.
        detail: String,
    },
    /// No text at all.
    EmptyStream,
    /// Closed without the terminal marker.
    EndedWithoutTerminal,
}

/// A diagnosed failure: the cause plus the provider's own words.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Diagnosis {
    /// The cause.
    pub cause: Cause,
    /// HTTP status, when there was one.
    pub http_status: Option<u16>,
    /// The provider's message (text only, truncated, keys redacted).
    pub provider_message: Option<String>,
}

/// Longest provider message quoted, in characters.
pub const MAX_QUOTED_CHARS: usize = 200;

/// The error fields found in a provider's error body.
#[derive(Debug, Clone, Default, PartialEq)]
struct ProviderError {
    message: Option<String>,
    kind: Option<String>,
    code: Option<String>,
    json: bool,
}

/// A JSON value as a short string (strings unquoted, numbers printed).
fn value_text(value: Option<&Value>) -> Option<String> {
    match value? {
        Value::String(text) => Some(text.clone()),
        Value::Number(number) => Some(number.to_string()),
        _ => None,
    }
}

/// Reads `{"error": {...}}`, `{"error": "..."}`, `{"message": ...}`, `{"detail": ...}`
/// (FastAPI), HTML pages (their `<title>`) and plain text.
fn parse_error_body(body: &str, content_type: Option<&str>) -> ProviderError {
    let trimmed = body.trim();
    if let Ok(json) = serde_json::from_str::<Value>(trimmed) {
        if let Value::String(text) = &json {
            return ProviderError {
                message: Some(text.clone()).filter(|t| !t.trim().is_empty()),
                json: true,
                ..ProviderError::default()
            };
        }
        let error = json.get("error");
        let (message, kind, code) = match error {
            Some(Value::Object(_)) => (
                value_text(error.and_then(|e| e.get("message"))),
                value_text(error.and_then(|e| e.get("type"))),
                value_text(error.and_then(|e| e.get("code"))),
            ),
            Some(Value::String(text)) => (Some(text.clone()), None, None),
            _ => (None, None, None),
        };
        let detail = match json.get("detail") {
            Some(Value::String(text)) => Some(text.clone()),
            Some(Value::Array(items)) => Some(
                items
                    .iter()
                    .filter_map(|item| value_text(item.get("msg")))
                    .collect::<Vec<_>>()
                    .join("; "),
            ),
            _ => None,
        };
        return ProviderError {
            message: message
                .or_else(|| value_text(json.get("message")))
                .or(detail)
                .filter(|m| !m.trim().is_empty()),
            kind: kind.or_else(|| value_text(json.get("type"))),
            code: code.or_else(|| value_text(json.get("code"))),
            json: true,
        };
    }
    let is_html = content_type.is_some_and(|ct| ct.contains("html")) || trimmed.starts_with('<');
    let message = if is_html {
        html_title(trimmed)
    } else {
        Some(trimmed.to_owned()).filter(|t| !t.is_empty())
    };
    ProviderError {
        message,
        ..ProviderError::default()
    }
}

/// The text of an HTML page's `<title>`, if any.
fn html_title(html: &str) -> Option<String> {
    let lower = html.to_ascii_lowercase();
    let start = lower.find("<title")?;
    let open_end = start + lower[start..].find('>')? + 1;
    let close = open_end + lower[open_end..].find("</title")?;
    let title = html.get(open_end..close)?.trim();
    (!title.is_empty()).then(|| title.to_owned())
}

/// Whether a word looks like a credential (`sk-…`, or 32+ key characters mixing letters
/// and digits).
fn looks_like_key(word: &str) -> bool {
    let core = word.trim_matches(|c: char| !c.is_ascii_alphanumeric() && c != '*');
    let lower = core.to_ascii_lowercase();
    lower.starts_with("sk-")
        || lower.starts_with("sk_")
        || (core.len() >= 32
            && core.chars().any(|c| c.is_ascii_digit())
            && core.chars().any(|c| c.is_ascii_alphabetic())
            && core
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '*')))
}

/// The word, or `[redacted]` in place of a key-like core (surrounding punctuation kept).
fn redact_word(word: &str) -> String {
    if !looks_like_key(word) {
        return word.to_owned();
    }
    let is_edge = |c: char| !c.is_ascii_alphanumeric() && c != '*';
    let core_start = word.len() - word.trim_start_matches(is_edge).len();
    let core_end = word.trim_end_matches(is_edge).len();
    format!(
        "{}[redacted]{}",
        &word[..core_start],
        &word[core_end.max(core_start)..]
    )
}

/// Provider text made safe to show: control characters and runs of whitespace collapsed,
/// key-like words redacted, truncated to [`MAX_QUOTED_CHARS`].
fn sanitize_quote(text: &str) -> Option<String> {
    let words: Vec<String> = text
        .split(|c: char| c.is_whitespace() || c.is_control())
        .filter(|w| !w.is_empty())
        .map(redact_word)
        .collect();
    let joined = words.join(" ");
    if joined.is_empty() {
        return None;
    }
    let mut quoted: String = joined.chars().take(MAX_QUOTED_CHARS).collect();
    if joined.chars().count() > MAX_QUOTED_CHARS {
        quoted.push('…');
    }
    Some(quoted)
}

/// Parses `Retry-After`: delay seconds (`"30"`, also `"1.5"` as some servers send), or an
/// IMF-fixdate (`"Wed, 21 Oct 2015 07:28:00 GMT"`) turned into seconds from `now_unix_s`
/// (0 when already past). `None` when unparsable or a date without `now_unix_s`.
pub fn parse_retry_after(value: &str, now_unix_s: Option<i64>) -> Option<f64> {
    let value = value.trim();
    if let Ok(seconds) = value.parse::<f64>() {
        return (seconds.is_finite() && seconds >= 0.0).then_some(seconds);
    }
    let at = parse_http_date(value)?;
    Some((at - now_unix_s?).max(0) as f64)
}

/// Parses an IMF-fixdate (RFC 9110 §5.6.7) into Unix seconds.
fn parse_http_date(value: &str) -> Option<i64> {
    // "Wed, 21 Oct 2015 07:28:00 GMT"
    let (_, rest) = value.split_once(", ")?;
    let parts: Vec<&str> = rest.split_whitespace().collect();
    let [day, month, year, time, "GMT"] = parts.as_slice() else {
        return None;
    };
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let month = MONTHS.iter().position(|m| m == month)? as i64 + 1;
    let day: i64 = day.parse().ok()?;
    let year: i64 = year.parse().ok()?;
    let hms: Vec<i64> = time
        .split(':')
        .map(|n| n.parse().ok())
        .collect::<Option<Vec<i64>>>()?;
    let [hour, minute, second] = hms.as_slice() else {
        return None;
    };
    if !(1..=31).contains(&day) || *hour > 23 || *minute > 59 || *second > 60 {
        return None;
    }
    Some(days_from_civil(year, month, day) * 86_400 + hour * 3600 + minute * 60 + second)
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let year_of_era = year - era * 400;
    let month_index = (month + 9) % 12; // March = 0
    let day_of_year = (153 * month_index + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

/// Host (lower case, without port) and scheme (lower case) of a URL.
fn host_and_scheme(url: &str) -> (String, String) {
    let (scheme, rest) = url.split_once("://").unwrap_or(("", url));
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    (
        host_without_port(authority).to_ascii_lowercase(),
        scheme.to_ascii_lowercase(),
    )
}

/// Likely reasons for a network failure to this URL, most likely first.
fn network_hints(context: &FailureContext) -> Vec<NetworkHint> {
    let (host, scheme) = host_and_scheme(&context.endpoint_url);
    let mut hints = Vec::new();
    if context.trace_context_sent {
        hints.push(NetworkHint::TraceContextNotAllowed);
    }
    let local = is_loopback_host(&host);
    if context.page_is_https && scheme == "http" && !local {
        hints.push(NetworkHint::MixedContent);
    }
    if local {
        hints.push(NetworkHint::LocalServerNotRunning);
        hints.push(NetworkHint::LocalServerOrigins);
    } else {
        match host.as_str() {
            "api.anthropic.com" => hints.push(NetworkHint::AnthropicBrowserAccessDisabled),
            "api.deepseek.com" => hints.push(NetworkHint::ProviderBlocksBrowserCalls),
            "api.openai.com" => hints.push(NetworkHint::ErrorWithoutCorsHeaders),
            _ => hints.push(NetworkHint::CorsNotAllowed),
        }
        hints.push(NetworkHint::ServerUnreachable);
    }
    hints.push(NetworkHint::ProxyOrVpn);
    hints
}

/// Whether the error says the model is unknown.
fn mentions_unknown_model(error: &ProviderError) -> bool {
    let code = error.code.as_deref().unwrap_or("");
    let kind = error.kind.as_deref().unwrap_or("");
    let message = error.message.as_deref().unwrap_or("").to_ascii_lowercase();
    code == "model_not_found"
        || kind == "model_not_found"
        || (kind == "not_found_error" && message.contains("model"))
        || (message.contains("model")
            && (message.contains("does not exist")
                || message.contains("not found")
                || message.contains("not exist")
                || message.contains("no such model")
                || message.contains("unknown model")
                || message.contains("not a valid model")
                || message.contains("invalid model")))
}

/// Diagnoses a 401 from who sent what and what the server said.
fn diagnose_401(context: &FailureContext, error: &ProviderError, body: &str) -> Cause {
    if !context.key_sent {
        return Cause::KeyMissing;
    }
    let text = format!("{} {body}", error.message.as_deref().unwrap_or("")).to_ascii_lowercase();
    match context.auth_style {
        AuthStyle::Bearer if text.contains("x-api-key") => Cause::WrongAuthHeader {
            sent: AuthStyle::Bearer,
            expected: AuthStyle::XApiKey,
        },
        AuthStyle::XApiKey
            if text.contains("bearer")
                || text.contains("authorization header")
                || text.contains("didn't provide an api key")
                || text.contains("missing api key")
                || text.contains("no api key") =>
        {
            Cause::WrongAuthHeader {
                sent: AuthStyle::XApiKey,
                expected: AuthStyle::Bearer,
            }
        }
        _ => Cause::KeyRefused,
    }
}

/// Diagnoses a non-2xx answer.
fn diagnose_status(context: &FailureContext, status: u16) -> (Cause, ProviderError) {
    let body = context.response_body.as_deref().unwrap_or("");
    let error = parse_error_body(body, context.content_type.as_deref());
    let overloaded = error.kind.as_deref() == Some("overloaded_error");
    let refuses_browsers = format!("{} {body}", error.message.as_deref().unwrap_or(""))
        .to_ascii_lowercase()
        .contains("cors requests are not allowed");
    // Read once: the refusal's words are scanned only for the statuses that can mean it.
    let mut overflow = matches!(status, 400 | 413 | 422)
        .then(|| context_overflow(&error, body))
        .flatten();
    let cause = match status {
        401 | 403 if refuses_browsers => Cause::BrowserAccessRefused,
        401 => diagnose_401(context, &error, body),
        // Some Anthropic front ends answer a missing x-api-key with 400 invalid_request_error.
        400 if context.key_sent
            && context.auth_style == AuthStyle::Bearer
            && body
                .to_ascii_lowercase()
                .contains("x-api-key header is required") =>
        {
            Cause::WrongAuthHeader {
                sent: AuthStyle::Bearer,
                expected: AuthStyle::XApiKey,
            }
        }
        400 | 413 | 422 if overflow.is_some() => overflow.take().unwrap_or(Cause::BadRequest),
        403 => Cause::Forbidden,
        404 if mentions_unknown_model(&error) => Cause::ModelNotFound,
        404 => Cause::WrongPath,
        400 if mentions_unknown_model(&error) => Cause::ModelNotFound,
        400 => Cause::BadRequest,
        408 => Cause::RequestTimeout,
        413 => Cause::PayloadTooLarge,
        422 => Cause::Unprocessable,
        // python -m http.server answers a POST with 501, nginx and most static hosts with
        // 405: the URL is a web server, whatever the page it serves.
        405 | 501 => Cause::NotAnApi { status },
        429 => {
            let words = format!(
                "{} {} {}",
                error.code.as_deref().unwrap_or(""),
                error.kind.as_deref().unwrap_or(""),
                error.message.as_deref().unwrap_or("")
            )
            .to_ascii_lowercase();
            Cause::RateLimited {
                retry_after_s: context
                    .retry_after
                    .as_deref()
                    .and_then(|v| parse_retry_after(v, context.now_unix_s)),
                quota_exhausted: words.contains("quota")
                    || words.contains("billing")
                    || words.contains("credit")
                    || words.contains("balance"),
            }
        }
        529 => Cause::Overloaded { status },
        500..=599 if overloaded => Cause::Overloaded { status },
        500..=599 => Cause::ServerError { status },
        _ => Cause::OtherHttpStatus { status },
    };
    (cause, error)
}

/// A context overflow in a refusal: the provider's message, kind and code, and the raw body
/// (llama.cpp puts the numbers in fields of their own).
fn context_overflow(error: &ProviderError, body: &str) -> Option<Cause> {
    let text = format!(
        "{} {} {} {}",
        error.code.as_deref().unwrap_or(""),
        error.kind.as_deref().unwrap_or(""),
        error.message.as_deref().unwrap_or(""),
        body.get(..body.len().min(16 * 1024)).unwrap_or("")
    );
    read_context_overflow(&text)
}

/// The first number after `phrase` in `text` (already lowercase), skipping spaces, `(`,
/// `:` and `"`.
fn number_after(text: &str, phrase: &str) -> Option<u32> {
    let (_, after) = text.split_once(phrase)?;
    let after = after.trim_start_matches([' ', '(', ':', '"', '=']);
    let digits: String = after.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

/// Reads a context overflow from a provider's words, with the numbers it names. Each
/// server's wording: OpenAI and vLLM ("This model's maximum context length is 8192 tokens.
/// However, you requested 9000 tokens", code `context_length_exceeded`), llama-cpp-python
/// ("Requested tokens (9000) exceed context window of 8192"), llama.cpp
/// (`exceed_context_size_error` with `n_prompt_tokens` and `n_ctx`), SGLang ("The input
/// (9000 tokens) is longer than the model's context length (8192 tokens)"), Anthropic
/// ("prompt is too long: 210000 tokens > 200000 maximum"), Ollama and others ("context
/// length", "context window" with "exceed"). `None` for any other text.
pub fn read_context_overflow(text: &str) -> Option<Cause> {
    let text = text.to_ascii_lowercase();
    let (window_tokens, requested_tokens) = if text.contains("maximum context length is") {
        (
            number_after(&text, "maximum context length is"),
            number_after(&text, "you requested"),
        )
    } else if text.contains("exceed context window of") {
        (
            number_after(&text, "exceed context window of"),
            number_after(&text, "requested tokens"),
        )
    } else if text.contains("exceed_context_size_error") {
        (
            number_after(&text, "\"n_ctx\""),
            number_after(&text, "\"n_prompt_tokens\""),
        )
    } else if text.contains("longer than the model's context length") {
        (
            number_after(&text, "longer than the model's context length"),
            number_after(&text, "the input"),
        )
    } else if text.contains("prompt is too long") {
        let requested = number_after(&text, "prompt is too long");
        let window = text
            .split_once("prompt is too long")
            .and_then(|(_, after)| number_after(after, ">"));
        (window, requested)
    } else if text.contains("context_length_exceeded")
        || ((text.contains("context length") || text.contains("context window"))
            && (text.contains("exceed")
                || text.contains("too long")
                || text.contains("longer than")))
    {
        (None, None)
    } else {
        return None;
    };
    Some(Cause::ContextOverflow {
        window_tokens,
        requested_tokens,
    })
}

/// Whether a content type is an event stream.
fn is_event_stream(content_type: Option<&str>) -> bool {
    content_type.is_some_and(|ct| ct.to_ascii_lowercase().contains("text/event-stream"))
}

/// Diagnoses a failure inside a 2xx answer.
fn diagnose_stream(context: &FailureContext, failure: &StreamFailure) -> (Cause, Option<String>) {
    let content_type = context.content_type.as_deref();
    let not_a_stream = content_type.is_some() && !is_event_stream(content_type);
    let body_quote = || {
        let body = context.response_body.as_deref().unwrap_or("");
        parse_error_body(body, content_type).message
    };
    match failure {
        StreamFailure::MidStreamError { error } => {
            let kind = error.kind.clone();
            let overflow = read_context_overflow(&format!(
                "{} {}",
                kind.as_deref().unwrap_or(""),
                error.message
            ));
            let cause = if kind.as_deref().is_some_and(|k| k.contains("overloaded")) {
                Cause::Overloaded { status: 200 }
            } else if let Some(overflow) = overflow {
                overflow
            } else {
                Cause::MidStreamError { error_kind: kind }
            };
            (cause, Some(error.message.clone()))
        }
        StreamFailure::MalformedChunk { .. } | StreamFailure::EmptyStream if not_a_stream => (
            Cause::NotAnEventStream {
                content_type: content_type.unwrap_or("").to_owned(),
            },
            body_quote(),
        ),
        StreamFailure::MalformedChunk { detail } => (
            Cause::MalformedChunk {
                detail: detail.clone(),
            },
            None,
        ),
        StreamFailure::EmptyStream => (Cause::EmptyStream, None),
        StreamFailure::EndedWithoutTerminal => (Cause::EndedWithoutTerminal, None),
    }
}

/// Diagnoses what the app saw; `None` when nothing failed.
///
/// Order: user abort, timeout, network failure (a network error after a 2xx status is a
/// dropped stream), then a non-2xx status, then stream-level failures.
pub fn diagnose(context: &FailureContext) -> Option<Diagnosis> {
    let status = context.http_status;
    let ok_status = status.is_some_and(|s| (200..300).contains(&s));
    let (cause, quote) = match (context.network_failure, status) {
        (Some(NetworkFailure::Aborted), _) => (Cause::Aborted, None),
        (Some(NetworkFailure::Redirected), _) => (Cause::Redirected, None),
        (Some(NetworkFailure::Timeout), _) => (
            Cause::Timeout {
                after_ms: context.elapsed_ms,
                headers_received: status.is_some(),
            },
            None,
        ),
        (Some(NetworkFailure::NetworkError), None) => (
            Cause::ConnectionFailed {
                hints: network_hints(context),
            },
            None,
        ),
        (Some(NetworkFailure::NetworkError), Some(_)) if ok_status => {
            (Cause::EndedWithoutTerminal, None)
        }
        (_, Some(status)) if !ok_status => {
            let (cause, error) = diagnose_status(context, status);
            (cause, error.message)
        }
        _ => match &context.stream_failure {
            Some(failure) => diagnose_stream(context, failure),
            None => return None,
        },
    };
    Some(Diagnosis {
        cause,
        http_status: status,
        provider_message: quote.as_deref().and_then(sanitize_quote),
    })
}

impl Diagnosis {
    /// The diagnosis for a key refused before sending.
    pub fn from_key_error(error: &KeyError) -> Diagnosis {
        let cause = match error {
            KeyError::LineBreak { .. } | KeyError::InnerWhitespace { .. } => {
                Cause::KeyHasWhitespace
            }
            KeyError::InvalidCharacter { .. } => Cause::KeyHasInvalidCharacter,
        };
        Diagnosis {
            cause,
            http_status: None,
            provider_message: None,
        }
    }

    /// What happened, for the user, quoting the provider when it said something.
    pub fn message(&self, lang: Lang) -> String {
        let base = self.cause.message(lang);
        match (&self.provider_message, lang) {
            (Some(quote), Lang::En) => format!("{base} The server said: \"{quote}\""),
            (Some(quote), Lang::Zh) => format!("{base}服务器原话：“{quote}”"),
            (None, _) => base,
        }
    }

    /// What to do about it.
    pub fn fix(&self, lang: Lang) -> String {
        self.cause.fix(lang)
    }
}

/// Picks the text for a language.
fn tr(lang: Lang, en: &str, zh: &str) -> String {
    lang.pick(en, zh).to_owned()
}

/// Header name of an auth style, for messages.
fn header_name(style: AuthStyle) -> &'static str {
    match style {
        AuthStyle::Bearer => "Authorization: Bearer",
        AuthStyle::XApiKey => "x-api-key",
    }
}

impl NetworkHint {
    /// One line explaining this likely reason and what to check.
    pub fn text(self, lang: Lang) -> String {
        match self {
            NetworkHint::TraceContextNotAllowed => tr(
                lang,
                "This run sent a traceparent header (trace context is on). A server whose CORS settings do not allow that header refuses the request before it starts; turn off trace context and run again to see whether this is the reason.",
                "本次运行发送了 traceparent 请求头（已开启追踪上下文）。如果服务器的 CORS 设置不允许该请求头，请求在开始前就会被拒绝；请关闭追踪上下文后再运行一次，看是否是这个原因。",
            ),
            NetworkHint::MixedContent => tr(
                lang,
                "This page is https and the endpoint is plain http: the browser blocks such calls (mixed content). Use an https endpoint, or open this tool over http / locally.",
                "本页面是 https，而接口是 http：浏览器会拦截这种请求（混合内容）。请使用 https 接口，或通过 http / 本地打开本工具。",
            ),
            NetworkHint::LocalServerNotRunning => tr(
                lang,
                "The local server is not running, or listens on another port or address (check the port, and that it listens on 127.0.0.1, not only another interface).",
                "本地服务没有运行，或监听在其他端口或地址上（检查端口，以及它是否监听 127.0.0.1）。",
            ),
            NetworkHint::LocalServerOrigins => tr(
                lang,
                "The local server does not allow this page's origin (CORS). For Ollama, add this page's origin to OLLAMA_ORIGINS and restart it.",
                "本地服务不允许本页面的来源（CORS）。Ollama 需要把本页面的来源加入 OLLAMA_ORIGINS 并重启。",
            ),
            NetworkHint::ProviderBlocksBrowserCalls => tr(
                lang,
                "This provider does not reliably allow calls straight from a browser (CORS). Go through a proxy that adds CORS headers, such as LiteLLM.",
                "该服务商不能稳定支持浏览器直接调用（CORS）。请通过会添加 CORS 头的代理（如 LiteLLM）调用。",
            ),
            NetworkHint::AnthropicBrowserAccessDisabled => tr(
                lang,
                "Anthropic only answers browsers when the organisation allows direct browser access; an organisation can disable it (\"CORS requests are not allowed for this Organization\").",
                "Anthropic 只有在组织允许浏览器直连时才响应浏览器请求；组织可以关闭此功能（“CORS requests are not allowed for this Organization”）。",
            ),
            NetworkHint::ErrorWithoutCorsHeaders => tr(
                lang,
                "OpenAI allows browser calls, but some of its error answers lack CORS headers, so an HTTP error (bad key, unknown model) can look like a network failure. Check the key and model.",
                "OpenAI 允许浏览器调用，但部分错误响应缺少 CORS 头，因此 HTTP 错误（密钥错误、模型不存在）可能表现为网络错误。请检查密钥和模型。",
            ),
            NetworkHint::CorsNotAllowed => tr(
                lang,
                "The server may not allow calls from other web pages (no CORS headers). The browser console shows a CORS message if so; enable CORS on the server or use a proxy.",
                "服务器可能不允许其他网页调用（没有 CORS 头）。如果是这样，浏览器控制台会显示 CORS 提示；请在服务器上开启 CORS 或使用代理。",
            ),
            NetworkHint::ServerUnreachable => tr(
                lang,
                "The server may be down, or the host name or port may be wrong.",
                "服务器可能已宕机，或主机名、端口填写错误。",
            ),
            NetworkHint::ProxyOrVpn => tr(
                lang,
                "A system proxy, VPN or local proxy tool in between may have failed; try with it turned off, or check its log.",
                "中间的系统代理、VPN 或本地代理工具可能出错；请关闭后重试，或查看其日志。",
            ),
        }
    }
}

impl Cause {
    /// The stable code of the cause: its serialized `kind` (`key_refused`,
    /// `model_not_found`, `connection_failed`, …), as exports and `data-cause` carry it.
    pub fn code(&self) -> &'static str {
        // A match rather than serde: the serializer would cost the page its code size. A test
        // checks that every code is the serialized `kind`.
        match self {
            Cause::KeyMissing => "key_missing",
            Cause::KeyRefused => "key_refused",
            Cause::KeyHasWhitespace => "key_has_whitespace",
            Cause::KeyHasInvalidCharacter => "key_has_invalid_character",
            Cause::WrongAuthHeader { .. } => "wrong_auth_header",
            Cause::Forbidden => "forbidden",
            Cause::BrowserAccessRefused => "browser_access_refused",
            Cause::ModelNotFound => "model_not_found",
            Cause::WrongPath => "wrong_path",
            Cause::BadRequest => "bad_request",
            Cause::RequestTimeout => "request_timeout",
            Cause::PayloadTooLarge => "payload_too_large",
            Cause::Unprocessable => "unprocessable",
            Cause::RateLimited { .. } => "rate_limited",
            Cause::Overloaded { .. } => "overloaded",
            Cause::ServerError { .. } => "server_error",
            Cause::OtherHttpStatus { .. } => "other_http_status",
            Cause::NotAnApi { .. } => "not_an_api",
            Cause::ContextOverflow { .. } => "context_overflow",
            Cause::NotAnEventStream { .. } => "not_an_event_stream",
            Cause::TraceContextRefused => "trace_context_refused",
            Cause::ConnectionFailed { .. } => "connection_failed",
            Cause::Timeout { .. } => "timeout",
            Cause::Aborted => "aborted",
            Cause::MidStreamError { .. } => "mid_stream_error",
            Cause::MalformedChunk { .. } => "malformed_chunk",
            Cause::EmptyStream => "empty_stream",
            Cause::EndedWithoutTerminal => "ended_without_terminal",
            Cause::Redirected => "redirected",
        }
    }

    /// What happened, without the provider's quote.
    pub fn message(&self, lang: Lang) -> String {
        match self {
            Cause::KeyMissing => tr(lang, "The server answered 401: no API key was sent, and this server requires one.", "服务器返回 401：没有发送 API 密钥，而该服务器需要密钥。"),
            Cause::KeyRefused => tr(lang, "The server answered 401: the API key was refused.", "服务器返回 401：API 密钥被拒绝。"),
            Cause::KeyHasWhitespace => tr(lang, "The API key contains a space or line break, so it cannot be sent as typed.", "API 密钥中含有空格或换行，无法按原样发送。"),
            Cause::KeyHasInvalidCharacter => tr(lang, "The API key contains a character that cannot be sent in an HTTP header (a typographic quote or an invisible character copied from a document).", "API 密钥中含有无法放入 HTTP 请求头的字符（从文档中复制来的弯引号或不可见字符）。"),
            Cause::WrongAuthHeader { sent, expected } => match lang {
                Lang::En => format!("The server answered 401 about the key header: the key was sent as {}, but this server expects {}.", header_name(*sent), header_name(*expected)),
                Lang::Zh => format!("服务器返回 401，指出密钥请求头不对：密钥以 {} 发送，但该服务器需要 {}。", header_name(*sent), header_name(*expected)),
            },
            Cause::Forbidden => tr(lang, "The server answered 403: the key is valid but not allowed to do this.", "服务器返回 403：密钥有效，但无权执行此操作。"),
            Cause::BrowserAccessRefused => tr(lang, "The provider refuses requests made directly from a browser for this account or organisation (a setting on their side, not a wrong key).", "服务商拒绝该账户或组织从浏览器直接发起的请求（这是服务商一侧的设置，不是密钥错误）。"),
            Cause::ModelNotFound => tr(lang, "The server does not know this model name (or the key has no access to it).", "服务器不认识这个模型名称（或该密钥无权使用它）。"),
            Cause::WrongPath => tr(lang, "The server answered 404 for the address itself: the base URL or path is wrong.", "服务器对该地址返回 404：基础 URL 或路径不对。"),
            Cause::BadRequest => tr(lang, "The server answered 400: it refused the request body.", "服务器返回 400：它拒绝了请求内容。"),
            Cause::RequestTimeout => tr(lang, "The server answered 408: it gave up waiting for the request.", "服务器返回 408：等待请求超时。"),
            Cause::PayloadTooLarge => tr(lang, "The server answered 413: the request is too large (prompt too long for this server or a proxy in front of it).", "服务器返回 413：请求过大（提示词对该服务器或其前面的代理来说太长）。"),
            Cause::Unprocessable => tr(lang, "The server answered 422: a field of the request was not accepted.", "服务器返回 422：请求中的某个字段未被接受。"),
            Cause::RateLimited { quota_exhausted: true, .. } => tr(lang, "The server answered 429: the account is out of quota or credit.", "服务器返回 429：账户额度或余额已用完。"),
            Cause::RateLimited { retry_after_s, quota_exhausted: false } => match (lang, retry_after_s) {
                (Lang::En, Some(s)) => format!("The server answered 429: too many requests. It asks to retry after {s:.0} s."),
                (Lang::En, None) => "The server answered 429: too many requests.".to_owned(),
                (Lang::Zh, Some(s)) => format!("服务器返回 429：请求过多。它要求 {s:.0} 秒后重试。"),
                (Lang::Zh, None) => "服务器返回 429：请求过多。".to_owned(),
            },
            Cause::Overloaded { status } => match lang {
                Lang::En => format!("The provider is overloaded (status {status}); this is on their side."),
                Lang::Zh => format!("服务商过载（状态码 {status}），问题在服务商一侧。"),
            },
            Cause::ServerError { status } => match lang {
                Lang::En => format!("The server answered {status}: an error on the server side."),
                Lang::Zh => format!("服务器返回 {status}：服务器端出错。"),
            },
            Cause::OtherHttpStatus { status } => match lang {
                Lang::En => format!("The server answered with status {status}."),
                Lang::Zh => format!("服务器返回状态码 {status}。"),
            },
            Cause::ContextOverflow { window_tokens, requested_tokens } => {
                let numbers = match (window_tokens, requested_tokens, lang) {
                    (Some(w), Some(r), Lang::En) => format!(": it needs {r} tokens, the window is {w}"),
                    (Some(w), None, Lang::En) => format!(": the window is {w} tokens"),
                    (None, Some(r), Lang::En) => format!(": it needs {r} tokens"),
                    (Some(w), Some(r), Lang::Zh) => format!("：需要 {r} 个 token，窗口为 {w}"),
                    (Some(w), None, Lang::Zh) => format!("：窗口为 {w} 个 token"),
                    (None, Some(r), Lang::Zh) => format!("：需要 {r} 个 token"),
                    (None, None, _) => String::new(),
                };
                match lang {
                    Lang::En => format!("The prompt and the output limit do not fit the model's context window{numbers}."),
                    Lang::Zh => format!("提示词加上输出上限超出了模型的上下文窗口{numbers}。"),
                }
            }
            Cause::NotAnApi { status } => match lang {
                Lang::En => format!("The server answered {status} to the request: this URL is a web or file server (a static host answers like this), not an LLM API."),
                Lang::Zh => format!("服务器对请求返回了 {status}：该 URL 是网页或文件服务器（静态托管会这样回应），而不是 LLM API。"),
            },
            Cause::NotAnEventStream { content_type } => match lang {
                Lang::En => format!("The server answered successfully but not with a stream (content-type \"{content_type}\"): it ignored stream: true, or this address serves a web page rather than the API."),
                Lang::Zh => format!("服务器返回成功，但不是流式响应（content-type 为“{content_type}”）：它忽略了 stream: true，或该地址是网页而不是 API。"),
            },
            Cause::TraceContextRefused => tr(lang, "The server refuses the traceparent header in CORS: the request with it failed before any answer, and the same request without it was answered.", "服务器在 CORS 中拒绝了 traceparent 请求头：带该请求头的请求在得到任何响应前就失败了，而不带它的同一请求得到了响应。"),
            Cause::ConnectionFailed { hints } => {
                let intro = tr(lang, "The request failed before any answer could be read (the browser reports only \"failed to fetch\"). Likely reasons:", "请求在读到任何响应前就失败了（浏览器只报告“failed to fetch”）。可能的原因：");
                let lines: Vec<String> = hints.iter().map(|h| format!("\n• {}", h.text(lang))).collect();
                format!("{intro}{}", lines.concat())
            }
            Cause::Timeout { after_ms, headers_received } => {
                let seconds = after_ms.map(|ms| ms / 1000.0);
                match (lang, seconds, headers_received) {
                    (Lang::En, Some(s), false) => format!("No answer after {s:.0} s: the server had not even sent its headers. A long prompt's prefill, or a queue on the server, can take this long."),
                    (Lang::En, Some(s), true) => format!("The run timed out after {s:.0} s: the server accepted the request but the stream stalled or was slow. A long prompt's prefill can take this long before the first token."),
                    (Lang::En, None, _) => "The run timed out. A long prompt's prefill, or a queue on the server, can take longer than the timeout.".to_owned(),
                    (Lang::Zh, Some(s), false) => format!("{s:.0} 秒后仍无响应：服务器连响应头都还没发送。长提示词的预填充（prefill）或服务器排队可能需要这么久。"),
                    (Lang::Zh, Some(s), true) => format!("运行在 {s:.0} 秒后超时：服务器已接受请求，但流停滞或太慢。长提示词在首个 token 之前的预填充（prefill）可能需要这么久。"),
                    (Lang::Zh, None, _) => "运行超时。长提示词的预填充（prefill）或服务器排队可能超过超时时间。".to_owned(),
                }
            }
            Cause::Aborted => tr(lang, "The run was stopped.", "运行已被停止。"),
            Cause::Redirected => tr(lang, "The server redirected the request to another address. The page does not follow redirects: the key was not sent to the new address, and the run stopped there.", "服务器把请求重定向到了另一个地址。本页面不跟随重定向：密钥没有发送到新地址，运行就此停止。"),
            Cause::MidStreamError { error_kind } => match (lang, error_kind) {
                (Lang::En, Some(kind)) => format!("The stream started (HTTP 200) and then the provider reported an error ({kind})."),
                (Lang::En, None) => "The stream started (HTTP 200) and then the provider reported an error.".to_owned(),
                (Lang::Zh, Some(kind)) => format!("流已开始（HTTP 200），随后服务商报告了错误（{kind}）。"),
                (Lang::Zh, None) => "流已开始（HTTP 200），随后服务商报告了错误。".to_owned(),
            },
            Cause::MalformedChunk { detail } => match lang {
                Lang::En => format!("A chunk of the stream was not what the selected protocol sends ({detail}). Naive clients crash here with \"Cannot read properties of undefined (reading 'choices')\": an error object, or a chunk with empty choices, read as a normal chunk."),
                Lang::Zh => format!("流中的某个数据块不是所选协议应发送的格式（{detail}）。简单的客户端会在这里崩溃，报 “Cannot read properties of undefined (reading 'choices')”：把错误对象或 choices 为空的数据块当成普通数据块读取。"),
            },
            Cause::EmptyStream => tr(lang, "The stream ended without any text.", "流结束了，但没有任何文本。"),
            Cause::EndedWithoutTerminal => tr(lang, "The stream stopped before its end marker: the connection was cut (network drop, proxy or server timeout) or the server crashed.", "流在结束标记之前中断：连接被切断（网络中断、代理或服务器超时）或服务器崩溃。"),
        }
    }

    /// What to do about it.
    pub fn fix(&self, lang: Lang) -> String {
        match self {
            Cause::KeyMissing => tr(lang, "Enter the API key for this provider.", "请填写该服务商的 API 密钥。"),
            Cause::KeyRefused => tr(lang, "Check that the key belongs to this provider and endpoint, is not revoked, and was copied whole with no spaces or line breaks.", "请确认密钥属于该服务商和接口、没有被吊销，并且完整复制、不含空格或换行。"),
            Cause::KeyHasWhitespace | Cause::KeyHasInvalidCharacter => tr(lang, "Paste the key again as one line, copied straight from the provider's console, without spaces or line breaks.", "请从服务商控制台直接复制密钥并重新粘贴，保持为一行，不含空格或换行。"),
            Cause::WrongAuthHeader { expected, .. } => match (lang, expected) {
                (Lang::En, AuthStyle::XApiKey) => "Choose the Anthropic Messages protocol (or the x-api-key header style) for this endpoint.".to_owned(),
                (Lang::En, AuthStyle::Bearer) => "Choose an OpenAI protocol (or the Authorization: Bearer header style) for this endpoint.".to_owned(),
                (Lang::Zh, AuthStyle::XApiKey) => "请为该接口选择 Anthropic Messages 协议（或 x-api-key 请求头方式）。".to_owned(),
                (Lang::Zh, AuthStyle::Bearer) => "请为该接口选择 OpenAI 协议（或 Authorization: Bearer 请求头方式）。".to_owned(),
            },
            Cause::BrowserAccessRefused => tr(lang, "Use a key from an organisation that allows browser access (ask the provider's support), or call through a proxy such as LiteLLM.", "请使用允许浏览器访问的组织的密钥（可联系服务商支持），或通过 LiteLLM 等代理调用。"),
            Cause::Forbidden => tr(lang, "Check the key's permissions and project, whether your account can use this model, and whether the provider serves your region.", "请检查密钥的权限和所属项目、账户是否可以使用该模型，以及服务商是否支持你所在的地区。"),
            Cause::ModelNotFound => tr(lang, "Check the model name's spelling against the provider's model list (the Model field suggests the names this endpoint lists at /models).", "请对照服务商的模型列表检查模型名称拼写（“模型”输入框会提示该接口 /models 列出的名称）。"),
            Cause::WrongPath => tr(lang, "Check the base URL: most servers want it to end in /v1 (https://host/v1); do not paste the full /chat/completions path.", "请检查基础 URL：多数服务器要求以 /v1 结尾（https://host/v1）；不要粘贴完整的 /chat/completions 路径。"),
            Cause::BadRequest => tr(lang, "Read the server's message: usually a parameter this model does not support (max_tokens vs max_completion_tokens, reasoning options, stream_options).", "请阅读服务器的提示：通常是该模型不支持的参数（max_tokens 与 max_completion_tokens、推理选项、stream_options）。"),
            Cause::RequestTimeout => tr(lang, "Retry; if it repeats, check proxies in between and the server's request timeout.", "请重试；如果反复出现，请检查中间的代理和服务器的请求超时设置。"),
            Cause::PayloadTooLarge => tr(lang, "Use a shorter prompt, or raise the body size limit of the server or proxy.", "请使用更短的提示词，或调高服务器或代理的请求体大小限制。"),
            Cause::Unprocessable => tr(lang, "Read the server's message for the field it rejected; compatible servers often reject options they do not know (turn off stream_options or reasoning options).", "请根据服务器提示找到被拒绝的字段；兼容服务器常拒绝不认识的选项（关闭 stream_options 或推理选项）。"),
            Cause::RateLimited { quota_exhausted: true, .. } => tr(lang, "Add credit or raise the quota in the provider's console, or use another key.", "请在服务商控制台充值或提高额度，或换用其他密钥。"),
            Cause::RateLimited { retry_after_s, .. } => match (lang, retry_after_s) {
                (Lang::En, Some(s)) => format!("Wait {s:.0} s, then run again with fewer runs per minute or lower concurrency."),
                (Lang::En, None) => "Wait a little, then run again with fewer runs per minute or lower concurrency.".to_owned(),
                (Lang::Zh, Some(s)) => format!("请等待 {s:.0} 秒后再运行，并降低每分钟运行次数或并发数。"),
                (Lang::Zh, None) => "请稍等后再运行，并降低每分钟运行次数或并发数。".to_owned(),
            },
            Cause::Overloaded { .. } => tr(lang, "Retry later; the provider's load is the cause, not your settings. Such runs measure their queue, not your network.", "请稍后重试；原因是服务商负载，而非你的设置。这类运行测到的是其排队时间，而不是你的网络。"),
            Cause::ServerError { .. } => tr(lang, "Retry; if it repeats, check the server's logs or the provider's status page.", "请重试；如果反复出现，请查看服务器日志或服务商的状态页面。"),
            Cause::OtherHttpStatus { .. } => tr(lang, "Read the server's message, and check the base URL and protocol.", "请阅读服务器的提示，并检查基础 URL 和协议。"),
            Cause::ContextOverflow { .. } => tr(lang, "Shorten the prompt or lower max_tokens (the prompt plus max_tokens must fit the window), or choose a model or server setting with a larger context (llama.cpp: --ctx-size; vLLM: --max-model-len).", "请缩短提示词或调低 max_tokens（提示词加 max_tokens 必须放得进窗口），或选用上下文更大的模型或服务器设置（llama.cpp：--ctx-size；vLLM：--max-model-len）。"),
            Cause::NotAnApi { .. } => tr(lang, "Set the base URL to the API's address (for example https://api.openai.com/v1 or http://localhost:8000/v1), or pick a preset; the page's own address is an API only when ttft-sim serves it.", "请把基础 URL 设为 API 的地址（例如 https://api.openai.com/v1 或 http://localhost:8000/v1），或选择一个预设；只有由 ttft-sim 提供页面时，页面自身的地址才是 API。"),
            Cause::NotAnEventStream { .. } => tr(lang, "Check that the base URL points at the API (usually ending in /v1) and that the selected protocol matches the server.", "请确认基础 URL 指向 API（通常以 /v1 结尾），并且所选协议与服务器一致。"),
            Cause::TraceContextRefused => tr(lang, "Turn off trace context (the \"Send traceparent\" checkbox, or traceparent=1 in the page address), or allow the header on the server: add traceparent and tracestate to its CORS allowed headers (vLLM: --allowed-headers; a gateway or proxy: its CORS settings).", "请关闭追踪上下文（“发送 traceparent”复选框，或页面地址中的 traceparent=1），或在服务器上允许该请求头：把 traceparent 和 tracestate 加入其 CORS 允许的请求头（vLLM：--allowed-headers；网关或代理：其 CORS 设置）。"),
            Cause::ConnectionFailed { .. } => tr(lang, "Open the browser console (F12) to see whether it reports CORS or a refused connection, then check the reasons above.", "请打开浏览器控制台（F12）查看报告的是 CORS 还是连接被拒绝，然后逐一检查上述原因。"),
            Cause::Timeout { .. } => tr(lang, "Raise the timeout for long prompts, or shorten the prompt; if short prompts also time out, the server is queueing or stalled.", "长提示词请调高超时时间，或缩短提示词；如果短提示词也超时，说明服务器在排队或卡住了。"),
            Cause::Aborted => tr(lang, "Run again when ready; what was measured before the stop is kept.", "准备好后可再次运行；停止前测到的数据已保留。"),
            Cause::Redirected => tr(lang, "Check the base URL: a redirect usually means http instead of https, a missing or extra path segment, or a login page or proxy in front of the API. If the new address is right, type it as the base URL (the page then asks before sending the key there).", "请检查基础 URL：重定向通常意味着用了 http 而不是 https、路径多了或少了一段，或 API 前面有登录页或代理。如果新地址是对的，请把它填为基础 URL（页面会在向其发送密钥前先询问）。"),
            Cause::MidStreamError { .. } => tr(lang, "Retry; if it repeats, try another model or a shorter prompt. The times measured before the error are kept.", "请重试；如果反复出现，请换一个模型或缩短提示词。出错前测到的时间已保留。"),
            Cause::MalformedChunk { .. } => tr(lang, "Check that the selected protocol matches the server (OpenAI Chat, Anthropic Messages or OpenAI Responses), and look at the raw stream in the log.", "请确认所选协议与服务器一致（OpenAI Chat、Anthropic Messages 或 OpenAI Responses），并查看日志中的原始流。"),
            Cause::EmptyStream => tr(lang, "Check the model name and max tokens (a reasoning model can spend the whole budget thinking without showing text), and that the protocol matches the server.", "请检查模型名称和最大 token 数（推理模型可能把全部额度用于思考而不输出文本），以及协议是否与服务器一致。"),
            Cause::EndedWithoutTerminal => tr(lang, "Retry; if it repeats, check proxy and server timeouts (idle timeouts cut long streams). The times measured before the cut are kept.", "请重试；如果反复出现，请检查代理和服务器的超时设置（空闲超时会切断长时间的流）。中断前测到的时间已保留。"),
        }
    }
}
