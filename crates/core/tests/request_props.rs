//! Property tests for base URL normalization.

use proptest::prelude::*;
use ttft_core::protocol::Protocol;
use ttft_core::request::normalize_base_url;

fn protocol() -> impl Strategy<Value = Protocol> {
    prop_oneof![
        Just(Protocol::OpenAiChat),
        Just(Protocol::AnthropicMessages),
        Just(Protocol::OpenAiResponses),
    ]
}

fn plausible_url() -> impl Strategy<Value = String> {
    let scheme = prop_oneof![Just(""), Just("http://"), Just("https://")];
    let host = prop_oneof![
        Just("api.openai.com"),
        Just("localhost:8000"),
        Just("127.0.0.1:11434"),
        Just("openrouter.ai"),
        Just("llm.example"),
    ];
    let segment = prop_oneof![
        Just("v1"),
        Just("api"),
        Just("openai"),
        Just("v1beta"),
        Just("chat"),
        Just("completions"),
        Just("messages"),
        Just("responses"),
        Just("models"),
    ];
    (
        scheme,
        host,
        prop::collection::vec(segment, 0..5),
        any::<bool>(),
    )
        .prop_map(|(scheme, host, segments, slash)| {
            let mut url = format!("{scheme}{host}");
            for segment in segments {
                url.push('/');
                url.push_str(segment);
            }
            if slash {
                url.push('/');
            }
            url
        })
}

proptest! {
    #[test]
    fn never_panics(input in ".{0,80}", protocol in protocol()) {
        let _ = normalize_base_url(&input, protocol);
    }

    #[test]
    fn endpoint_is_well_formed_and_stable(input in plausible_url(), protocol in protocol()) {
        let endpoint = normalize_base_url(&input, protocol).unwrap();
        prop_assert!(endpoint.endpoint_url.starts_with("http://") || endpoint.endpoint_url.starts_with("https://"));
        let route_suffix = format!("/{}", protocol.route());
        prop_assert!(endpoint.endpoint_url.ends_with(&route_suffix));
        prop_assert!(!endpoint.base_url.ends_with('/'));
        prop_assert!(!endpoint.endpoint_url.contains("//v1"));
        // Pasting the derived endpoint back gives the same endpoint.
        let again = normalize_base_url(&endpoint.endpoint_url, protocol).unwrap();
        prop_assert_eq!(again.endpoint_url, endpoint.endpoint_url);
    }
}
