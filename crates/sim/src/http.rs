//! HTTP plumbing shared by every route: headers, CORS, JSON and error responses.

use axum::body::Body;
use axum::http::header::{HeaderName, HeaderValue};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;

use crate::dialect::errors::ApiError;
use crate::request::Dialect;

/// Headers a browser may send to the API (the preflight's allow list).
pub const ALLOWED_HEADERS: &str = "authorization, content-type, x-api-key, anthropic-version, \
                                   anthropic-dangerous-direct-browser-access, x-sim-fault";
/// W3C trace-context headers, allowed too unless `--no-trace-headers`.
pub const TRACE_HEADERS: &str = "traceparent, tracestate";
/// On every response: the server is ttft-sim (its version), so a page can tell.
pub const IDENTITY_HEADER: &str = "x-ttft-sim";
/// Ground-truth headers on every simulated completion (all times in ms after the request
/// reached the server's handler; `server` writes them, the CORS headers expose them).
pub const GROUND_TRUTH_HEADERS: &[&str] = &[
    "x-sim-request-id",
    "x-sim-prompt-tokens",
    "x-sim-cached-tokens",
    "x-sim-gateway-ms",
    "x-sim-queue-ms",
    "x-sim-prefill-ms",
    "x-sim-first-token-ms",
    "x-sim-first-reasoning-ms",
    "x-sim-first-answer-ms",
    "x-sim-end-ms",
    "x-sim-itl-ms",
    "x-sim-reasoning-tokens",
    "x-sim-output-tokens",
];

/// A header value (`invalid` if the text cannot be one).
pub(crate) fn header_value(text: &str) -> HeaderValue {
    HeaderValue::from_str(text).unwrap_or_else(|_| HeaderValue::from_static("invalid"))
}

/// Sets one header.
pub(crate) fn set(headers: &mut HeaderMap, name: &'static str, value: &str) {
    headers.insert(HeaderName::from_static(name), header_value(value));
}

/// The preflight's allow list.
pub(crate) fn allowed_headers(trace_headers_allowed: bool) -> String {
    if trace_headers_allowed {
        format!("{ALLOWED_HEADERS}, {TRACE_HEADERS}")
    } else {
        ALLOWED_HEADERS.to_string()
    }
}

/// CORS and resource-timing headers of an API response.
pub(crate) fn add_cors(headers: &mut HeaderMap, allowed_headers: &str) {
    set(headers, "access-control-allow-origin", "*");
    set(
        headers,
        "access-control-allow-methods",
        "POST, GET, DELETE, OPTIONS",
    );
    set(headers, "access-control-allow-headers", allowed_headers);
    // The accounts' headers too: a gateway or server that wants pages to read them must list
    // them here (docs/stream-formats.md §12).
    let exposed = [
        "retry-after",
        IDENTITY_HEADER,
        "server-timing",
        "x-litellm-overhead-duration-ms",
    ]
    .into_iter()
    .chain(GROUND_TRUTH_HEADERS.iter().copied())
    .collect::<Vec<_>>()
    .join(", ");
    set(headers, "access-control-expose-headers", &exposed);
    set(headers, "access-control-max-age", "600");
    set(headers, "timing-allow-origin", "*");
}

/// A response with a status, a content type and a body.
pub(crate) fn response(status: u16, content_type: &str, body: Body) -> Response {
    let mut response = Response::new(body);
    *response.status_mut() =
        StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    set(response.headers_mut(), "content-type", content_type);
    response
}

/// Adds the headers every API response has (CORS unless off, CORP for isolated pages).
pub(crate) fn finish_api(mut response: Response, cors: Option<&str>) -> Response {
    let headers = response.headers_mut();
    set(headers, "cross-origin-resource-policy", "cross-origin");
    if let Some(allowed_headers) = cors {
        add_cors(headers, allowed_headers);
    }
    response
}

/// A JSON response.
pub(crate) fn json_response(status: u16, body: String) -> Response {
    response(status, "application/json", Body::from(body))
}

/// An API error in `dialect`'s shape (with `Retry-After` on a 429).
pub(crate) fn api_error(error: &ApiError, dialect: Dialect) -> Response {
    let mut response = json_response(error.status(), error.body(dialect));
    if let ApiError::RateLimited(retry_after_s) = error {
        set(
            response.headers_mut(),
            "retry-after",
            &retry_after_s.to_string(),
        );
    }
    response
}
