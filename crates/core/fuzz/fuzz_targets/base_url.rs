//! Base URL normalization: any text must never panic; an accepted URL is http(s) with an
//! origin, no credentials and no whitespace, and its derived URLs share that origin.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ttft_core::key_binding::url_origin;
use ttft_core::protocol::Protocol;
use ttft_core::request::normalize_base_url;

fuzz_target!(|data: &[u8]| {
    let Some((&choice, rest)) = data.split_first() else {
        return;
    };
    let protocol = match choice % 3 {
        0 => Protocol::OpenAiChat,
        1 => Protocol::AnthropicMessages,
        _ => Protocol::OpenAiResponses,
    };
    let input = String::from_utf8_lossy(rest);
    let Ok(endpoint) = normalize_base_url(&input, protocol) else {
        return;
    };
    for url in [&endpoint.endpoint_url, &endpoint.models_url, &endpoint.base_url] {
        assert!(url.starts_with("http://") || url.starts_with("https://"), "{url}");
        assert!(!url.chars().any(char::is_whitespace), "{url}");
        let authority = url.split("://").nth(1).unwrap_or("").split(['/', '?', '#']).next().unwrap_or("");
        assert!(!authority.contains('@'), "{url}");
    }
    // The key gate compares origins: the request and the models list share one (or both
    // have none, for hosts an origin cannot name).
    assert_eq!(url_origin(&endpoint.endpoint_url), url_origin(&endpoint.models_url));
});
