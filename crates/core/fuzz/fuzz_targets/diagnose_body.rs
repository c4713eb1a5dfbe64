//! Error-body parsing: any status, content type and body must never panic, and the quoted
//! provider message stays within its bound in both languages.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ttft_core::diagnosis::{diagnose, FailureContext, MAX_QUOTED_CHARS};
use ttft_core::failure::NetworkFailure;
use ttft_core::lang::Lang;
use ttft_core::protocol::Protocol;

fuzz_target!(|data: &[u8]| {
    if data.len() < 3 {
        return;
    }
    let status = 100 + u16::from_le_bytes([data[0], data[1]]) % 500;
    let flags = data[2];
    let body = String::from_utf8_lossy(&data[3..]).into_owned();
    let mut context = FailureContext::new(
        if flags & 1 == 0 { Protocol::OpenAiChat } else { Protocol::AnthropicMessages },
        "https://api.example.com/v1/chat/completions",
    );
    context.http_status = Some(status);
    context.key_sent = flags & 2 != 0;
    context.content_type = Some(if flags & 4 == 0 { "application/json" } else { "text/html" }.to_owned());
    context.retry_after = (flags & 8 != 0).then(|| body.chars().take(40).collect());
    context.now_unix_s = Some(1_700_000_000);
    context.response_body = Some(body);
    if flags & 16 != 0 {
        context.network_failure = Some(NetworkFailure::NetworkError);
    }
    let Some(diagnosis) = diagnose(&context) else {
        return;
    };
    if let Some(quote) = &diagnosis.provider_message {
        assert!(quote.chars().count() <= MAX_QUOTED_CHARS + 1);
    }
    for lang in [Lang::En, Lang::Zh] {
        let _ = diagnosis.message(lang);
        let _ = diagnosis.fix(lang);
    }
    let _ = diagnosis.cause.code();
});
