//! The failure vocabulary of the diagnosis: the typed [`Cause`] of a failure, and the likely
//! reasons for a network failure ([`NetworkHint`]). Their words are in [`super::text`].

use serde::{Deserialize, Serialize};

use crate::protocol::AuthStyle;
use crate::request::KeyError;

/// A likely reason for a network-level failure, most likely first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NetworkHint {
    /// The browser refused this page access to this machine (Chrome's Local Network Access:
    /// the "Apps on device" permission is denied or not given yet).
    LoopbackAccessRefused,
    /// The browser refused this page access to the local network (Local Network Access: the
    /// "Local network" permission is denied or not given yet).
    LocalNetworkAccessRefused,
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
    /// The host answered the page's probe (a keyless `no-cors` request), so it is up: it
    /// refused this page's request (no CORS headers on the answer or on its preflight).
    CorsRefused,
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
    /// A gateway could not check the key: LiteLLM's proxy without a database answers any
    /// key but its master key with 400 `no_db_connection` ("No connected db.").
    GatewayCannotCheckKey,
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
    /// TTFT Meter's relay answered for itself (docs/relay.md): it refused the request, or it
    /// could not get the provider's answer; `error` is its error kind (`upstream-tls`, …).
    Relay {
        /// The relay's error kind: `forbidden-target`, `forbidden-origin`, `too-large`,
        /// `upstream-dns`, `upstream-connect`, `upstream-tls`, `upstream-timeout`,
        /// `upstream-reset`.
        error: String,
    },
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
            Cause::GatewayCannotCheckKey => "gateway_cannot_check_key",
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
            Cause::Relay { .. } => "relay",
        }
    }
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
    /// A network failure to a known provider: what it lets a page do, as last reported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider_cors: Option<super::ProviderCorsNote>,
    /// A network failure that a relay would get past (CORS refused, or a provider reported to
    /// refuse pages): the base URL to start `ttft-relay` with ([`Diagnosis::relay_command`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relay_upstream: Option<String>,
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
            provider_cors: None,
            relay_upstream: None,
        }
    }
}
