//! The page clock. Every instant the app records is `performance.now()` in milliseconds,
//! on the page's time origin; ttft-core takes these numbers as arguments.

/// Milliseconds since the page's time origin (`performance.now()`).
///
/// Returns `None` outside a window context (never the case in the page itself).
pub fn now_ms() -> Option<f64> {
    Some(web_sys::window()?.performance()?.now())
}

/// The smallest step `performance.now()` takes here, found by sampling until it moves.
///
/// Chromium gives 5 µs steps when the page is cross-origin isolated (COOP/COEP) and
/// 100 µs otherwise; the UI shows this so users know how fine the numbers are.
pub fn timer_resolution_ms() -> Option<f64> {
    let performance = web_sys::window()?.performance()?;
    let mut smallest_step_ms = f64::INFINITY;
    let mut previous_ms = performance.now();
    let mut steps_seen = 0;
    // Bounded: a frozen clock must not hang the page.
    for _ in 0..100_000 {
        let now_ms = performance.now();
        if now_ms > previous_ms {
            smallest_step_ms = smallest_step_ms.min(now_ms - previous_ms);
            previous_ms = now_ms;
            steps_seen += 1;
            if steps_seen == 20 {
                break;
            }
        }
    }
    smallest_step_ms.is_finite().then_some(smallest_step_ms)
}

/// Whether the page is cross-origin isolated (COOP + COEP), which unlocks fine timers.
pub fn cross_origin_isolated() -> bool {
    web_sys::window()
        .and_then(|window| js_sys::Reflect::get(&window, &"crossOriginIsolated".into()).ok())
        .and_then(|value| value.as_bool())
        .unwrap_or(false)
}
