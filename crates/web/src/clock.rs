//! The page clock and timers: the one place the app reads time. Every instant the app
//! records is `performance.now()` in milliseconds on the page's time origin; ttft-core takes
//! these numbers as arguments.

use futures_channel::oneshot;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;

/// Milliseconds since the page's time origin (`performance.now()`); 0 outside a window
/// context (never the case in the page itself).
pub fn now_ms() -> f64 {
    web_sys::window()
        .and_then(|window| window.performance())
        .map_or(0.0, |performance| performance.now())
}

/// The page's time origin, Unix ms (`performance.timeOrigin`).
pub fn time_origin_ms() -> f64 {
    web_sys::window()
        .and_then(|window| window.performance())
        .map_or(0.0, |performance| performance.time_origin())
}

/// `timeOrigin + at_ms` as ISO 8601 UTC: the wall-clock time of a page-clock instant.
pub fn iso_time(at_ms: f64) -> String {
    let date = js_sys::Date::new(&(time_origin_ms() + at_ms).into());
    date.to_iso_string().into()
}

/// Wall-clock now, Unix seconds.
pub fn unix_seconds() -> i64 {
    (js_sys::Date::now() / 1000.0) as i64
}

/// A pending `setTimeout`; dropping it cancels the callback.
pub struct Timer(Option<i32>);

impl Timer {
    /// Calls `callback` once after `delay_ms`.
    pub fn once(delay_ms: f64, callback: impl FnOnce() + 'static) -> Timer {
        let handle = web_sys::window().and_then(|window| {
            let closure = Closure::once_into_js(callback);
            window
                .set_timeout_with_callback_and_timeout_and_arguments_0(
                    closure.unchecked_ref(),
                    delay_ms.clamp(0.0, f64::from(i32::MAX)) as i32,
                )
                .ok()
        });
        Timer(handle)
    }
}

impl Drop for Timer {
    fn drop(&mut self) {
        if let (Some(window), Some(handle)) = (web_sys::window(), self.0) {
            window.clear_timeout_with_handle(handle);
        }
    }
}

/// Resolves in a later task of the page's event loop: a `setTimeout(0)`, so that it queues
/// behind the timers (the heartbeat, a page's own) and rendering that wait, rather than
/// ahead of them (a `MessageChannel` message kept timers waiting 50 to 130 ms in Chromium
/// under a flood). How long work runs before it yields: [`TASK_BUDGET_MS`].
pub async fn next_task() {
    sleep_ms(0.0).await;
}

/// The longest a piece of the page's own work runs before it yields ([`next_task`]): well
/// under the 50 ms of a long task, so the page stays responsive under any stream.
pub const TASK_BUDGET_MS: f64 = 12.0;

/// Resolves after `delay_ms`.
pub async fn sleep_ms(delay_ms: f64) {
    let (sender, receiver) = oneshot::channel::<()>();
    let _timer = Timer::once(delay_ms, move || {
        let _ = sender.send(());
    });
    let _ = receiver.await;
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

thread_local! {
    static TIMER_GRADE: std::cell::OnceCell<ttft_core::record::TimerGrade> =
        const { std::cell::OnceCell::new() };
}

/// The page's timer grade (isolation and step), measured once per page: the step is found
/// by sampling the clock ([`timer_resolution_ms`]), which takes up to 20 steps (20 ms where
/// a step is 1 ms), so it is not measured again for every run.
pub fn timer_grade() -> ttft_core::record::TimerGrade {
    TIMER_GRADE.with(|grade| {
        *grade.get_or_init(|| ttft_core::record::TimerGrade {
            cross_origin_isolated: cross_origin_isolated(),
            step_ms: timer_resolution_ms(),
        })
    })
}

/// Whether the page is cross-origin isolated (COOP + COEP), which unlocks fine timers.
pub fn cross_origin_isolated() -> bool {
    web_sys::window()
        .and_then(|window| js_sys::Reflect::get(&window, &"crossOriginIsolated".into()).ok())
        .and_then(|value| value.as_bool())
        .unwrap_or(false)
}
