//! The diagnosis in words, English and Simplified Chinese: what happened and what to do,
//! for every [`Cause`] and [`NetworkHint`].

use super::cause::{Cause, Diagnosis, NetworkHint};
use super::provider_cors::CorsStanding;
use crate::lang::Lang;
use crate::protocol::AuthStyle;
use crate::text::Text;
use crate::texts as t;

/// Header name of an auth style, for messages.
fn header_name(style: AuthStyle) -> &'static str {
    match style {
        AuthStyle::Bearer => "Authorization: Bearer",
        AuthStyle::XApiKey => "x-api-key",
    }
}

impl NetworkHint {
    /// The catalogue text of this likely reason.
    fn catalogue_text(self) -> Text {
        match self {
            NetworkHint::LoopbackAccessRefused => t::HINT_LOOPBACK_ACCESS_REFUSED,
            NetworkHint::LocalNetworkAccessRefused => t::HINT_LOCAL_NETWORK_ACCESS_REFUSED,
            NetworkHint::TraceContextNotAllowed => t::HINT_TRACE_CONTEXT_NOT_ALLOWED,
            NetworkHint::MixedContent => t::HINT_MIXED_CONTENT,
            NetworkHint::LocalServerNotRunning => t::HINT_LOCAL_SERVER_NOT_RUNNING,
            NetworkHint::LocalServerOrigins => t::HINT_LOCAL_SERVER_ORIGINS,
            NetworkHint::ProviderBlocksBrowserCalls => t::HINT_PROVIDER_BLOCKS_BROWSER_CALLS,
            NetworkHint::AnthropicBrowserAccessDisabled => {
                t::HINT_ANTHROPIC_BROWSER_ACCESS_DISABLED
            }
            NetworkHint::ErrorWithoutCorsHeaders => t::HINT_ERROR_WITHOUT_CORS_HEADERS,
            NetworkHint::CorsNotAllowed => t::HINT_CORS_NOT_ALLOWED,
            NetworkHint::CorsRefused => t::HINT_CORS_REFUSED,
            NetworkHint::ServerUnreachable => t::HINT_SERVER_UNREACHABLE,
            NetworkHint::ProxyOrVpn => t::HINT_PROXY_OR_VPN,
        }
    }

    /// One line explaining this likely reason and what to check.
    pub fn text(self, lang: Lang) -> String {
        self.catalogue_text().get(lang).to_owned()
    }
}

/// What happened and what to do when ttft-relay answered for itself, by its kind.
fn relay_texts(kind: &str) -> (crate::text::Text, crate::text::Text) {
    match kind {
        "forbidden-target" => (
            t::CAUSE_RELAY_FORBIDDEN_TARGET,
            t::FIX_RELAY_FORBIDDEN_TARGET,
        ),
        "forbidden-origin" => (
            t::CAUSE_RELAY_FORBIDDEN_ORIGIN,
            t::FIX_RELAY_FORBIDDEN_ORIGIN,
        ),
        "too-large" => (t::CAUSE_RELAY_TOO_LARGE, t::FIX_PAYLOAD_TOO_LARGE),
        "upstream-dns" => (t::CAUSE_RELAY_UPSTREAM_DNS, t::FIX_RELAY_UPSTREAM_DNS),
        "upstream-tls" => (t::CAUSE_RELAY_UPSTREAM_TLS, t::FIX_RELAY_UPSTREAM_TLS),
        "upstream-timeout" => (
            t::CAUSE_RELAY_UPSTREAM_TIMEOUT,
            t::FIX_RELAY_UPSTREAM_TIMEOUT,
        ),
        "upstream-reset" => (t::CAUSE_RELAY_UPSTREAM_RESET, t::FIX_SERVER_ERROR),
        _ => (
            t::CAUSE_RELAY_UPSTREAM_CONNECT,
            t::FIX_RELAY_UPSTREAM_CONNECT,
        ),
    }
}

/// Whole seconds, as the messages give them.
fn seconds(s: f64) -> String {
    format!("{s:.0}")
}

impl Cause {
    /// What happened, without the provider's quote.
    pub fn message(&self, lang: Lang) -> String {
        let text = match self {
            Cause::KeyMissing => t::CAUSE_KEY_MISSING,
            Cause::KeyRefused => t::CAUSE_KEY_REFUSED,
            Cause::GatewayCannotCheckKey => t::CAUSE_GATEWAY_CANNOT_CHECK_KEY,
            Cause::KeyHasWhitespace => t::CAUSE_KEY_HAS_WHITESPACE,
            Cause::KeyHasInvalidCharacter => t::CAUSE_KEY_HAS_INVALID_CHARACTER,
            Cause::WrongAuthHeader { sent, expected } => {
                return t::CAUSE_WRONG_AUTH_HEADER.fill(
                    lang,
                    &[
                        ("sent", &header_name(*sent)),
                        ("expected", &header_name(*expected)),
                    ],
                )
            }
            Cause::Forbidden => t::CAUSE_FORBIDDEN,
            Cause::BrowserAccessRefused => t::CAUSE_BROWSER_ACCESS_REFUSED,
            Cause::ModelNotFound => t::CAUSE_MODEL_NOT_FOUND,
            Cause::WrongPath => t::CAUSE_WRONG_PATH,
            Cause::BadRequest => t::CAUSE_BAD_REQUEST,
            Cause::RequestTimeout => t::CAUSE_REQUEST_TIMEOUT,
            Cause::PayloadTooLarge => t::CAUSE_PAYLOAD_TOO_LARGE,
            Cause::Unprocessable => t::CAUSE_UNPROCESSABLE,
            Cause::RateLimited {
                quota_exhausted: true,
                ..
            } => t::CAUSE_QUOTA_EXHAUSTED,
            Cause::RateLimited {
                retry_after_s: Some(s),
                quota_exhausted: false,
            } => return t::CAUSE_RATE_LIMITED_RETRY_AFTER.fill(lang, &[("seconds", &seconds(*s))]),
            Cause::RateLimited {
                retry_after_s: None,
                quota_exhausted: false,
            } => t::CAUSE_RATE_LIMITED,
            Cause::Overloaded { status } => {
                return t::CAUSE_OVERLOADED.fill(lang, &[("status", status)])
            }
            Cause::ServerError { status } => {
                return t::CAUSE_SERVER_ERROR.fill(lang, &[("status", status)])
            }
            Cause::OtherHttpStatus { status } => {
                return t::CAUSE_OTHER_HTTP_STATUS.fill(lang, &[("status", status)])
            }
            Cause::ContextOverflow {
                window_tokens,
                requested_tokens,
            } => {
                let numbers = match (window_tokens, requested_tokens) {
                    (Some(window), Some(requested)) => t::CAUSE_CONTEXT_OVERFLOW_NEEDED_AND_WINDOW
                        .fill(lang, &[("requested", requested), ("window", window)]),
                    (Some(window), None) => {
                        t::CAUSE_CONTEXT_OVERFLOW_WINDOW.fill(lang, &[("window", window)])
                    }
                    (None, Some(requested)) => {
                        t::CAUSE_CONTEXT_OVERFLOW_NEEDED.fill(lang, &[("requested", requested)])
                    }
                    (None, None) => String::new(),
                };
                return t::CAUSE_CONTEXT_OVERFLOW.fill(lang, &[("numbers", &numbers)]);
            }
            Cause::NotAnApi { status } => {
                return t::CAUSE_NOT_AN_API.fill(lang, &[("status", status)])
            }
            Cause::NotAnEventStream { content_type } => {
                return t::CAUSE_NOT_AN_EVENT_STREAM.fill(lang, &[("content_type", content_type)])
            }
            Cause::TraceContextRefused => t::CAUSE_TRACE_CONTEXT_REFUSED,
            Cause::ConnectionFailed { hints } => {
                let intro = t::CAUSE_CONNECTION_FAILED.get(lang);
                let lines: Vec<String> = hints
                    .iter()
                    .map(|hint| format!("\n• {}", hint.text(lang)))
                    .collect();
                return format!("{intro}{}", lines.concat());
            }
            Cause::Timeout {
                after_ms,
                headers_received,
            } => match (after_ms, headers_received) {
                (Some(ms), false) => {
                    return t::CAUSE_TIMEOUT_NO_HEADERS
                        .fill(lang, &[("seconds", &seconds(ms / 1000.0))])
                }
                (Some(ms), true) => {
                    return t::CAUSE_TIMEOUT_STALLED
                        .fill(lang, &[("seconds", &seconds(ms / 1000.0))])
                }
                (None, _) => t::CAUSE_TIMEOUT,
            },
            Cause::Aborted => t::CAUSE_ABORTED,
            Cause::Redirected => t::CAUSE_REDIRECTED,
            Cause::MidStreamError {
                error_kind: Some(kind),
            } => return t::CAUSE_MID_STREAM_ERROR_KIND.fill(lang, &[("kind", kind)]),
            Cause::MidStreamError { error_kind: None } => t::CAUSE_MID_STREAM_ERROR,
            Cause::MalformedChunk { detail } => {
                return t::CAUSE_MALFORMED_CHUNK.fill(lang, &[("detail", detail)])
            }
            Cause::EmptyStream => t::CAUSE_EMPTY_STREAM,
            Cause::EndedWithoutTerminal => t::CAUSE_ENDED_WITHOUT_TERMINAL,
            Cause::Relay { error } => relay_texts(error).0,
        };
        text.get(lang).to_owned()
    }

    /// What to do about it.
    pub fn fix(&self, lang: Lang) -> String {
        let text = match self {
            Cause::KeyMissing => t::FIX_KEY_MISSING,
            Cause::KeyRefused => t::FIX_KEY_REFUSED,
            Cause::GatewayCannotCheckKey => t::FIX_GATEWAY_CANNOT_CHECK_KEY,
            Cause::KeyHasWhitespace | Cause::KeyHasInvalidCharacter => t::FIX_KEY_MALFORMED,
            Cause::WrongAuthHeader { expected, .. } => match expected {
                AuthStyle::XApiKey => t::FIX_WRONG_AUTH_HEADER_X_API_KEY,
                AuthStyle::Bearer => t::FIX_WRONG_AUTH_HEADER_BEARER,
            },
            Cause::BrowserAccessRefused => t::FIX_BROWSER_ACCESS_REFUSED,
            Cause::Forbidden => t::FIX_FORBIDDEN,
            Cause::ModelNotFound => t::FIX_MODEL_NOT_FOUND,
            Cause::WrongPath => t::FIX_WRONG_PATH,
            Cause::BadRequest => t::FIX_BAD_REQUEST,
            Cause::RequestTimeout => t::FIX_REQUEST_TIMEOUT,
            Cause::PayloadTooLarge => t::FIX_PAYLOAD_TOO_LARGE,
            Cause::Unprocessable => t::FIX_UNPROCESSABLE,
            Cause::RateLimited {
                quota_exhausted: true,
                ..
            } => t::FIX_QUOTA_EXHAUSTED,
            Cause::RateLimited {
                retry_after_s: Some(s),
                ..
            } => return t::FIX_RATE_LIMITED_RETRY_AFTER.fill(lang, &[("seconds", &seconds(*s))]),
            Cause::RateLimited {
                retry_after_s: None,
                ..
            } => t::FIX_RATE_LIMITED,
            Cause::Overloaded { .. } => t::FIX_OVERLOADED,
            Cause::ServerError { .. } => t::FIX_SERVER_ERROR,
            Cause::OtherHttpStatus { .. } => t::FIX_OTHER_HTTP_STATUS,
            Cause::ContextOverflow { .. } => t::FIX_CONTEXT_OVERFLOW,
            Cause::NotAnApi { .. } => t::FIX_NOT_AN_API,
            Cause::NotAnEventStream { .. } => t::FIX_NOT_AN_EVENT_STREAM,
            Cause::TraceContextRefused => t::FIX_TRACE_CONTEXT_REFUSED,
            Cause::ConnectionFailed { .. } => t::FIX_CONNECTION_FAILED,
            Cause::Timeout { .. } => t::FIX_TIMEOUT,
            Cause::Aborted => t::FIX_ABORTED,
            Cause::Redirected => t::FIX_REDIRECTED,
            Cause::MidStreamError { .. } => t::FIX_MID_STREAM_ERROR,
            Cause::MalformedChunk { .. } => t::FIX_MALFORMED_CHUNK,
            Cause::EmptyStream => t::FIX_EMPTY_STREAM,
            Cause::EndedWithoutTerminal => t::FIX_ENDED_WITHOUT_TERMINAL,
            Cause::Relay { error } => relay_texts(error).1,
        };
        text.get(lang).to_owned()
    }
}

impl CorsStanding {
    /// What the provider lets a page do, in words (a predicate after its name).
    fn text(self) -> crate::text::Text {
        match self {
            CorsStanding::Allows => t::CORS_STANDING_ALLOWS,
            CorsStanding::AllowsFixedHeaders => t::CORS_STANDING_ALLOWS_FIXED_HEADERS,
            CorsStanding::OptIn => t::CORS_STANDING_OPT_IN,
            CorsStanding::Refuses => t::CORS_STANDING_REFUSES,
            CorsStanding::Mixed => t::CORS_STANDING_MIXED,
            CorsStanding::Unknown => t::CORS_STANDING_UNKNOWN,
        }
    }
}

/// The program and flags before the relay's upstream URL (README, "A provider that refuses
/// browsers").
pub const RELAY_COMMAND: &str = "scripts/relay.sh --upstream";

/// `value` as one shell word: as it is when it holds only characters no shell treats
/// specially, else in single quotes.
fn shell_word(value: &str) -> String {
    let plain = !value.is_empty()
        && value
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:@%+,=~".contains(c));
    if plain {
        value.to_owned()
    } else {
        format!("'{}'", value.replace('\'', "'\\''"))
    }
}

impl Diagnosis {
    /// What happened, for the user, quoting the provider when it said something, and what a
    /// known provider lets pages do.
    pub fn message(&self, lang: Lang) -> String {
        let base = self.cause.message(lang);
        let base = match &self.provider_cors {
            Some(note) => {
                let line = t::PROVIDER_CORS_LINE.fill(
                    lang,
                    &[
                        ("provider", &note.name),
                        ("standing", &note.standing.text().get(lang)),
                        ("checked", &note.checked),
                        ("source", &note.source),
                    ],
                );
                format!("{base}\n• {line}")
            }
            None => base,
        };
        match &self.provider_message {
            Some(quote) => {
                t::DIAGNOSIS_WITH_PROVIDER_QUOTE.fill(lang, &[("message", &base), ("quote", quote)])
            }
            None => base,
        }
    }

    /// What to do about it: with a relay to start, how.
    pub fn fix(&self, lang: Lang) -> String {
        let local_origins = matches!(&self.cause, Cause::ConnectionFailed { hints }
            if hints.contains(&NetworkHint::LocalServerOrigins));
        match self.relay_upstream {
            // A local server's own setting is the better fix; the relay comes second.
            Some(_) if local_origins => t::FIX_RELAY_LOCAL.get(lang).to_owned(),
            Some(_) => t::FIX_RELAY.get(lang).to_owned(),
            None => self.cause.fix(lang),
        }
    }

    /// The command that starts the relay in front of this run's provider, its base URL
    /// filled in (`None` where a relay would not help).
    pub fn relay_command(&self) -> Option<String> {
        self.relay_upstream
            .as_deref()
            .map(|upstream| format!("{RELAY_COMMAND} {}", shell_word(upstream)))
    }
}
