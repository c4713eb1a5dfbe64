//! Random ids from the browser: `crypto.getRandomValues` for trace and span ids,
//! `crypto.randomUUID()` for the page session's `service.instance.id`.

use ttft_lab::otlp::{RunIds, SpanId, TraceId};

/// `N` random bytes from `crypto.getRandomValues` (available in every context, secure or
/// not); `Math.random` only if the page has no `crypto` at all.
fn random_bytes<const N: usize>() -> [u8; N] {
    let mut bytes = [0u8; N];
    let filled = web_sys::window()
        .and_then(|window| window.crypto().ok())
        .is_some_and(|crypto| crypto.get_random_values_with_u8_array(&mut bytes).is_ok());
    if !filled {
        for byte in &mut bytes {
            *byte = (js_sys::Math::random() * 256.0) as u8;
        }
    }
    bytes
}

/// Fresh ids for one run's span (never all zeros, which OTLP and W3C treat as invalid).
pub fn run_ids() -> RunIds {
    loop {
        if let (Ok(trace_id), Ok(span_id)) = (
            TraceId::from_bytes(random_bytes::<16>()),
            SpanId::from_bytes(random_bytes::<8>()),
        ) {
            return RunIds { trace_id, span_id };
        }
    }
}

/// A random UUID v4 for this page session: `crypto.randomUUID()` where the context is secure
/// (https, localhost), else made from 16 random bytes the same way.
pub fn instance_id() -> String {
    if let Some(uuid) = web_sys::window()
        .and_then(|window| window.crypto().ok())
        .filter(|_| {
            web_sys::window()
                .and_then(|window| js_sys::Reflect::get(&window, &"isSecureContext".into()).ok())
                .and_then(|secure| secure.as_bool())
                .unwrap_or(false)
        })
        .map(|crypto| crypto.random_uuid())
    {
        return uuid;
    }
    let mut bytes = random_bytes::<16>();
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    let hex: String = bytes.iter().map(|byte| format!("{byte:02x}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..32]
    )
}
