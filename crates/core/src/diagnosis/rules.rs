//! The cause rules: which [`Cause`] a failure context means, in order (user abort, timeout,
//! network failure, a non-2xx status, then what went wrong inside the stream).

use super::cause::{Cause, Diagnosis, NetworkHint};
use super::context::FailureContext;
use super::provider_cors::{provider_cors, CorsStanding, ProviderCorsNote};
use super::provider_text::{
    parse_error_body, read_context_overflow, sanitize_quote, ProviderError,
};
use super::retry_after::parse_retry_after;
use crate::failure::{NetworkFailure, StreamFailure};
use crate::protocol::{AuthStyle, Protocol};
use crate::quote::quote;
use crate::request::{
    address_space_of, host_without_port, is_loopback_host, AddressSpace, SpacePermission,
};

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
    // Local Network Access first: where the browser says it has not let the page through,
    // no other reason can have been reached.
    let refused = matches!(
        context.space_permission,
        Some(SpacePermission::Denied | SpacePermission::Prompt)
    );
    match address_space_of(&context.endpoint_url) {
        Some(AddressSpace::Loopback) if refused => hints.push(NetworkHint::LoopbackAccessRefused),
        Some(AddressSpace::Local) if refused => hints.push(NetworkHint::LocalNetworkAccessRefused),
        _ => {}
    }
    if context.trace_context_sent {
        hints.push(NetworkHint::TraceContextNotAllowed);
    }
    let local = is_loopback_host(&host);
    // The page's probe (a keyless no-cors request to the same URL) tells a refusal from an
    // unreachable host: it resolves only when the host answered.
    match context.answers_without_cors {
        Some(true) => {
            // Up and answering: the browser refused the answer (no CORS headers on it or on
            // its preflight). Mixed content and a server that is not running are ruled out.
            if local {
                hints.push(NetworkHint::LocalServerOrigins);
            } else {
                match host.as_str() {
                    "api.anthropic.com" => hints.push(NetworkHint::AnthropicBrowserAccessDisabled),
                    "api.openai.com" => hints.push(NetworkHint::ErrorWithoutCorsHeaders),
                    _ => {}
                }
            }
            hints.push(NetworkHint::CorsRefused);
            return hints;
        }
        Some(false) => {
            // Nothing answered, with or without CORS: CORS is not the reason.
            if context.page_is_https && scheme == "http" && !local {
                hints.push(NetworkHint::MixedContent);
            }
            hints.push(if local {
                NetworkHint::LocalServerNotRunning
            } else {
                NetworkHint::ServerUnreachable
            });
            hints.push(NetworkHint::ProxyOrVpn);
            return hints;
        }
        None => {}
    }
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

/// What a network failure to this endpoint adds to its diagnosis: the provider's CORS row
/// (a known provider), and the base URL for the relay where one would get past the failure:
/// the page's probe saw a CORS refusal, or it could not probe and the provider is reported
/// to refuse pages. Never for an unreachable host, nor for an Anthropic organisation that
/// refuses browsers on purpose. A local server gets it too, after the hint to allow the
/// page's origin in its own settings (`--cors`, `OLLAMA_ORIGINS`), which is the better fix.
fn relay_advice(
    context: &FailureContext,
    hints: &[NetworkHint],
) -> (Option<ProviderCorsNote>, Option<String>) {
    let (host, _) = host_and_scheme(&context.endpoint_url);
    let row = provider_cors(&host);
    let note = row.map(ProviderCorsNote::from);
    let reported_refusing =
        row.is_some_and(|row| matches!(row.standing, CorsStanding::Refuses | CorsStanding::Mixed));
    let refused = hints.contains(&NetworkHint::CorsRefused)
        || (context.answers_without_cors.is_none() && reported_refusing);
    let relay = (refused && host != "api.anthropic.com")
        .then(|| base_url_of(&context.endpoint_url, context.protocol));
    (note, relay)
}

/// The base URL the page was given: the endpoint without its protocol's route, query and
/// fragment.
fn base_url_of(endpoint_url: &str, protocol: Protocol) -> String {
    let url = endpoint_url
        .split(['?', '#'])
        .next()
        .unwrap_or(endpoint_url);
    let url = url.trim_end_matches('/');
    url.strip_suffix(protocol.route())
        .map(|base| base.trim_end_matches('/'))
        .unwrap_or(url)
        .to_owned()
}

/// The error kinds ttft-relay answers with (docs/relay.md, "When the relay itself answers").
const RELAY_KINDS: [&str; 8] = [
    "forbidden-target",
    "forbidden-origin",
    "too-large",
    "upstream-dns",
    "upstream-connect",
    "upstream-tls",
    "upstream-timeout",
    "upstream-reset",
];

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
    // TTFT Meter's relay speaking for itself: it says so, with one of its kinds.
    let relay_kind = error
        .message
        .as_deref()
        .filter(|message| message.starts_with("ttft-relay:"))
        .and(error.kind.as_deref())
        .filter(|kind| RELAY_KINDS.contains(kind));
    let cause = match status {
        _ if relay_kind.is_some() => Cause::Relay {
            error: relay_kind.unwrap_or_default().to_owned(),
        },
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
        // LiteLLM's proxy without a database, for any key but its master key.
        400 if error.kind.as_deref() == Some("no_db_connection") => Cause::GatewayCannotCheckKey,
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
                Cause::MidStreamError {
                    error_kind: kind.as_deref().map(quote),
                }
            };
            (cause, Some(error.message.clone()))
        }
        StreamFailure::MalformedChunk { .. } | StreamFailure::EmptyStream if not_a_stream => (
            Cause::NotAnEventStream {
                content_type: quote(content_type.unwrap_or("")),
            },
            body_quote(),
        ),
        StreamFailure::MalformedChunk { detail } => (
            Cause::MalformedChunk {
                detail: quote(detail),
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
        (Some(NetworkFailure::NetworkError), None) => {
            let hints = network_hints(context);
            let (provider_cors, relay_upstream) = relay_advice(context, &hints);
            return Some(Diagnosis {
                cause: Cause::ConnectionFailed { hints },
                http_status: None,
                provider_message: None,
                provider_cors,
                relay_upstream,
            });
        }
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
        provider_cors: None,
        relay_upstream: None,
    })
}
