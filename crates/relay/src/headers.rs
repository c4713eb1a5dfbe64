//! Which headers cross the relay, in each direction, and the ones it adds (docs/relay.md).
//! Pure functions over header maps: no header value is ever logged or put in a message.

use http::header::{self, HeaderMap, HeaderName, HeaderValue};

/// The relay's version, in `X-TTFT-Relay`.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// `X-TTFT-Relay: <version>` on every answer.
pub const X_TTFT_RELAY: &str = "x-ttft-relay";
/// `X-TTFT-Relay-Error: <kind>` on the relay's own refusals and failures.
pub const X_TTFT_RELAY_ERROR: &str = "x-ttft-relay-error";

/// What the preflight allows.
pub const ALLOWED_METHODS: &str = "GET, POST, OPTIONS";
/// How long a browser may keep a preflight's answer, seconds.
pub const PREFLIGHT_MAX_AGE_S: u32 = 600;
/// The longest `Access-Control-Request-Headers` echoed, bytes (a longer one is refused by
/// not being echoed: the browser then refuses the request itself).
pub const MAX_REQUESTED_HEADERS_BYTES: usize = 4096;

/// Hop-by-hop headers (RFC 9110 §7.6.1, and the ones proxies have added): never forwarded
/// in either direction, nor any header `Connection` names.
const HOP_BY_HOP: [&str; 9] = [
    "connection",
    "keep-alive",
    "proxy-connection",
    "proxy-authenticate",
    "proxy-authorization",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
];

/// What the browser adds that an SDK would not send, and that only tells the provider
/// about the page: the relay's own `Host`, the page's origin and referrer, cookies, the
/// fetch metadata and client hints (`sec-*`), the preflight's questions.
fn browser_only(name: &str) -> bool {
    matches!(name, "host" | "origin" | "referer" | "cookie")
        || name.starts_with("sec-")
        || name.starts_with("access-control-request-")
}

fn connection_listed(headers: &HeaderMap) -> Vec<String> {
    headers
        .get_all(header::CONNECTION)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
        .map(|name| name.trim().to_ascii_lowercase())
        .filter(|name| !name.is_empty())
        .collect()
}

/// The headers to send upstream: the browser's, without hop-by-hop, browser-only ones,
/// `Content-Length` (hyper sets it from the body) and `Expect` (the relay has read the whole
/// body already), with `Accept-Encoding: identity` (a compressed event stream could not be
/// read byte by byte, nor have a line added; compressors buffer).
pub fn upstream_request_headers(browser: &HeaderMap) -> HeaderMap {
    let listed = connection_listed(browser);
    let mut out = HeaderMap::with_capacity(browser.len());
    for (name, value) in browser {
        let name_str = name.as_str();
        let dropped = HOP_BY_HOP.contains(&name_str)
            || browser_only(name_str)
            || listed.iter().any(|listed| listed == name_str)
            || name == header::CONTENT_LENGTH
            || name == header::EXPECT
            || name == header::ACCEPT_ENCODING;
        if !dropped {
            out.append(name.clone(), value.clone());
        }
    }
    out.insert(
        header::ACCEPT_ENCODING,
        HeaderValue::from_static("identity"),
    );
    out
}

/// Whether a response is an event stream the relay writes its lines into: an SSE
/// content type with no content coding (a compressed stream passes untouched, unmarked).
pub fn is_event_stream(upstream: &HeaderMap) -> bool {
    let sse = upstream
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.split(';').next())
        .is_some_and(|media| media.trim().eq_ignore_ascii_case("text/event-stream"));
    let identity = upstream
        .get_all(header::CONTENT_ENCODING)
        .iter()
        .all(|value| value.as_bytes().eq_ignore_ascii_case(b"identity"));
    sse && identity
}

/// The upstream's headers to forward: all but hop-by-hop ones, `Set-Cookie`, its own
/// `Access-Control-*` and `Timing-Allow-Origin`, and `Content-Length` when the relay adds
/// bytes to the body (`adds_bytes`).
pub fn downstream_response_headers(upstream: &HeaderMap, adds_bytes: bool) -> HeaderMap {
    let listed = connection_listed(upstream);
    let mut out = HeaderMap::with_capacity(upstream.len() + 8);
    for (name, value) in upstream {
        let name_str = name.as_str();
        let dropped = HOP_BY_HOP.contains(&name_str)
            || listed.iter().any(|listed| listed == name_str)
            || name == header::SET_COOKIE
            || name_str.starts_with("access-control-")
            || name_str == "timing-allow-origin"
            || (adds_bytes && name == header::CONTENT_LENGTH);
        if !dropped {
            out.append(name.clone(), value.clone());
        }
    }
    out
}

/// Adds what every answer of the relay carries: `X-TTFT-Relay`, the relay's
/// `Server-Timing` (beside the upstream's, when `server_timing` is not empty) and, for an
/// allowed `origin`, the CORS headers that let the page read all of it.
pub fn add_relay_headers(
    headers: &mut HeaderMap,
    origin: Option<&HeaderValue>,
    server_timing: &str,
) {
    headers.insert(X_TTFT_RELAY, HeaderValue::from_static(VERSION));
    if !server_timing.is_empty() {
        if let Ok(value) = HeaderValue::from_str(server_timing) {
            headers.append(header::HeaderName::from_static("server-timing"), value);
        }
    }
    let Some(origin) = origin else {
        return;
    };
    let mut exposed: Vec<String> = vec![
        "server-timing".into(),
        X_TTFT_RELAY.into(),
        X_TTFT_RELAY_ERROR.into(),
    ];
    for name in headers.keys() {
        let name = name.as_str();
        if name != "vary" && !exposed.iter().any(|known| known == name) {
            exposed.push(name.to_owned());
        }
    }
    headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, origin.clone());
    if let Ok(value) = HeaderValue::from_str(&exposed.join(", ")) {
        headers.insert(header::ACCESS_CONTROL_EXPOSE_HEADERS, value);
    }
    headers.insert(
        HeaderName::from_static("timing-allow-origin"),
        origin.clone(),
    );
    headers.append(header::VARY, HeaderValue::from_static("Origin"));
}

/// The preflight's answer headers for an allowed `origin`: the methods, the requested
/// headers echoed (they are the page's; `Authorization` cannot be allowed by `*`), a max
/// age, and Private Network Access's permission when asked (older Chromium asks before a
/// public page may call loopback).
pub fn preflight_headers(origin: &HeaderValue, request: &HeaderMap) -> HeaderMap {
    let mut out = HeaderMap::new();
    out.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, origin.clone());
    out.insert(
        header::ACCESS_CONTROL_ALLOW_METHODS,
        HeaderValue::from_static(ALLOWED_METHODS),
    );
    let requested = request
        .get(header::ACCESS_CONTROL_REQUEST_HEADERS)
        .filter(|value| value.len() <= MAX_REQUESTED_HEADERS_BYTES)
        .filter(|value| {
            value
                .as_bytes()
                .iter()
                .all(|&b| b.is_ascii_alphanumeric() || b"-_, ".contains(&b))
        });
    if let Some(requested) = requested {
        out.insert(header::ACCESS_CONTROL_ALLOW_HEADERS, requested.clone());
    }
    out.insert(
        header::ACCESS_CONTROL_MAX_AGE,
        HeaderValue::from(PREFLIGHT_MAX_AGE_S),
    );
    if request
        .get("access-control-request-private-network")
        .is_some_and(|value| value.as_bytes() == b"true")
    {
        out.insert(
            HeaderName::from_static("access-control-allow-private-network"),
            HeaderValue::from_static("true"),
        );
    }
    out.insert(X_TTFT_RELAY, HeaderValue::from_static(VERSION));
    out.append(header::VARY, HeaderValue::from_static("Origin"));
    out.append(
        header::VARY,
        HeaderValue::from_static("Access-Control-Request-Headers"),
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut headers = HeaderMap::new();
        for (name, value) in pairs {
            headers.append(*name, HeaderValue::from_static(value));
        }
        headers
    }

    #[test]
    fn upstream_gets_what_an_sdk_would_send() {
        let browser = map(&[
            ("host", "127.0.0.1:8788"),
            ("origin", "http://127.0.0.1:8787"),
            ("referer", "http://127.0.0.1:8787/"),
            ("cookie", "a=b"),
            ("sec-fetch-mode", "cors"),
            ("sec-ch-ua", "\"Chromium\""),
            ("connection", "keep-alive, x-private"),
            ("x-private", "1"),
            ("keep-alive", "timeout=5"),
            ("accept-encoding", "gzip, deflate, br, zstd"),
            ("content-length", "12"),
            ("authorization", "Bearer sk-test"),
            ("content-type", "application/json"),
            ("accept", "text/event-stream"),
            ("x-dashscope-sse", "enable"),
            ("user-agent", "Mozilla/5.0"),
        ]);
        let upstream = upstream_request_headers(&browser);
        let names: Vec<&str> = upstream.keys().map(HeaderName::as_str).collect();
        assert_eq!(
            names,
            [
                "authorization",
                "content-type",
                "accept",
                "x-dashscope-sse",
                "user-agent",
                "accept-encoding"
            ]
        );
        assert_eq!(upstream["accept-encoding"], "identity");
        assert_eq!(upstream["authorization"], "Bearer sk-test");
    }

    #[test]
    fn the_page_gets_the_upstreams_headers_but_its_cors_and_framing() {
        let upstream = map(&[
            ("content-type", "text/event-stream; charset=utf-8"),
            ("content-length", "1234"),
            ("transfer-encoding", "chunked"),
            ("set-cookie", "session=1"),
            ("access-control-allow-origin", "*"),
            ("timing-allow-origin", "*"),
            ("openai-processing-ms", "37"),
            ("x-request-id", "req_1"),
            ("server-timing", "upstream;dur=5"),
            ("vary", "Accept"),
        ]);
        assert!(is_event_stream(&upstream));
        let mut out = downstream_response_headers(&upstream, true);
        let origin = HeaderValue::from_static("http://127.0.0.1:8787");
        add_relay_headers(&mut out, Some(&origin), "relay-conn;desc=new");
        assert_eq!(out["access-control-allow-origin"], "http://127.0.0.1:8787");
        assert_eq!(out["timing-allow-origin"], "http://127.0.0.1:8787");
        assert_eq!(out["x-ttft-relay"], VERSION);
        assert_eq!(out.get("content-length"), None);
        assert_eq!(out.get("set-cookie"), None);
        assert_eq!(out.get("transfer-encoding"), None);
        let timings: Vec<_> = out.get_all("server-timing").iter().collect();
        assert_eq!(timings, ["upstream;dur=5", "relay-conn;desc=new"]);
        let varies: Vec<_> = out.get_all("vary").iter().collect();
        assert_eq!(varies, ["Accept", "Origin"]);
        assert_eq!(
            out["access-control-expose-headers"],
            "server-timing, x-ttft-relay, x-ttft-relay-error, content-type, \
             openai-processing-ms, x-request-id"
        );
        let json = map(&[
            ("content-type", "application/json"),
            ("content-length", "9"),
        ]);
        assert!(!is_event_stream(&json));
        assert_eq!(
            downstream_response_headers(&json, false)["content-length"],
            "9"
        );
        let gzipped = map(&[
            ("content-type", "text/event-stream"),
            ("content-encoding", "gzip"),
        ]);
        assert!(!is_event_stream(&gzipped));
    }

    #[test]
    fn without_an_allowed_origin_no_cors_header() {
        let mut out = HeaderMap::new();
        add_relay_headers(&mut out, None, "");
        assert_eq!(out.len(), 1);
        assert_eq!(out["x-ttft-relay"], VERSION);
    }

    #[test]
    fn a_preflight_echoes_the_requested_headers() {
        let origin = HeaderValue::from_static("http://localhost:8787");
        let request = map(&[
            ("access-control-request-method", "POST"),
            (
                "access-control-request-headers",
                "authorization, content-type",
            ),
            ("access-control-request-private-network", "true"),
        ]);
        let out = preflight_headers(&origin, &request);
        assert_eq!(
            out["access-control-allow-headers"],
            "authorization, content-type"
        );
        assert_eq!(out["access-control-allow-methods"], ALLOWED_METHODS);
        assert_eq!(out["access-control-max-age"], "600");
        assert_eq!(out["access-control-allow-private-network"], "true");
        let odd = map(&[("access-control-request-headers", "x-a;b")]);
        assert_eq!(
            preflight_headers(&origin, &odd).get("access-control-allow-headers"),
            None
        );
    }
}
