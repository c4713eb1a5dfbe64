//! The header filters (ttft_relay::headers), on any header lines: no panic; nothing
//! hop-by-hop, browser-only or framing goes upstream, which always gets `Accept-Encoding:
//! identity` and every other header unchanged; nothing hop-by-hop, no cookie, no upstream
//! CORS or Timing-Allow-Origin comes back, nor a Content-Length when the relay adds bytes;
//! the relay's own headers are always valid.
#![no_main]

use http::header::{HeaderMap, HeaderName, HeaderValue};
use libfuzzer_sys::fuzz_target;
use ttft_relay::headers;

const NEVER_UPSTREAM: [&str; 15] = [
    "connection",
    "keep-alive",
    "proxy-connection",
    "proxy-authenticate",
    "proxy-authorization",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
    "host",
    "origin",
    "referer",
    "cookie",
    "content-length",
    "expect",
];

fuzz_target!(|data: &[u8]| {
    let Some((&flags, rest)) = data.split_first() else {
        return;
    };
    let mut map = HeaderMap::new();
    for line in rest.split(|&b| b == b'\n') {
        let Some(colon) = line.iter().position(|&b| b == b':') else {
            continue;
        };
        let (name, value) = (&line[..colon], &line[colon + 1..]);
        let value = value.strip_prefix(b" ").unwrap_or(value);
        if let (Ok(name), Ok(value)) =
            (HeaderName::from_bytes(name), HeaderValue::from_bytes(value))
        {
            map.append(name, value);
        }
    }
    let listed: Vec<String> = map
        .get_all("connection")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|n| n.trim().to_ascii_lowercase())
        .collect();

    let upstream = headers::upstream_request_headers(&map);
    for name in upstream.keys() {
        let name = name.as_str();
        assert!(!NEVER_UPSTREAM.contains(&name), "{name} went upstream");
        assert!(!name.starts_with("sec-") && !name.starts_with("access-control-request-"));
        let ours = name == "accept-encoding";
        assert!(
            ours || !listed.iter().any(|l| l == name),
            "{name} is named by Connection"
        );
    }
    let encodings: Vec<_> = upstream.get_all("accept-encoding").iter().collect();
    assert_eq!(encodings, [HeaderValue::from_static("identity")]);
    for (name, value) in &upstream {
        if name != "accept-encoding" {
            assert!(map.get_all(name).iter().any(|v| v == value));
        }
    }

    let adds_bytes = flags & 1 == 1;
    let mut answer = headers::downstream_response_headers(&map, adds_bytes);
    for name in answer.keys() {
        let name = name.as_str();
        assert!(!NEVER_UPSTREAM[..9].contains(&name), "{name} came back");
        assert!(name != "set-cookie" && name != "timing-allow-origin");
        assert!(!name.starts_with("access-control-"));
        assert!(!(adds_bytes && name == "content-length"));
        assert!(
            !listed.iter().any(|l| l == name),
            "{name} is named by Connection"
        );
    }
    let origin = HeaderValue::from_static("http://127.0.0.1:8787");
    headers::add_relay_headers(
        &mut answer,
        (flags & 2 == 2).then_some(&origin),
        "relay-conn;desc=new",
    );
    assert!(answer.contains_key("x-ttft-relay"));
    if flags & 2 == 2 {
        assert_eq!(answer["access-control-allow-origin"], origin);
        assert!(answer.contains_key("access-control-expose-headers"));
    }
    let _ = headers::preflight_headers(&origin, &map);
    let _ = headers::is_event_stream(&map);
});
