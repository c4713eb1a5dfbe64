//! What the app saw of a failed run, gathered for the rules ([`super::rules`]).

use serde::{Deserialize, Serialize};

use crate::failure::{NetworkFailure, StreamFailure};
use crate::protocol::{AuthStyle, Protocol};
use crate::request::{RequestDescription, SpacePermission, TRACEPARENT};
use crate::timeline::RunTimeline;

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
    /// The page's permission to reach the endpoint's address space (Local Network Access),
    /// when the endpoint is on this machine or the local network and the browser has the
    /// permission: a refused one fails the request like any network error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub space_permission: Option<SpacePermission>,
    /// After a network failure: whether the endpoint's origin answered the page's probe, a
    /// keyless `no-cors` GET of the same URL (its answer is opaque, but it resolves only when
    /// the host answered at all). `Some(true)`: the host is up, so the run was refused by
    /// CORS (or its preflight); `Some(false)`: the host did not answer (down, a wrong name or
    /// port, blocked); `None`: not probed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answers_without_cors: Option<bool>,
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
                .any(|(name, _)| name.eq_ignore_ascii_case(TRACEPARENT)),
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
            space_permission: None,
            answers_without_cors: None,
        }
    }
}
