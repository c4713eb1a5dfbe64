//! Whether the page is flooded: a stream's body arriving faster than any model streams
//! ([`ttft_core::blocks::FloodGauge`]). The runs' body readers count what they handle, by
//! when it arrived; the panes draw nothing new while a flood lasts and catch up once it is
//! over (in WebKit, drawing while 562 MB arrived made most of the page's stalls). One gauge
//! for the page: any run's flood holds every pane, since they share the one main thread.

use std::cell::Cell;

use ttft_core::blocks::FloodGauge;

thread_local! {
    static GAUGE: Cell<FloodGauge> = Cell::new(FloodGauge::default());
}

/// Counts `bytes` of a body read that arrived at `arrived_ms` and is handled at
/// `handled_ms` (page clock).
pub fn observe(arrived_ms: f64, handled_ms: f64, bytes: usize) {
    GAUGE.with(|gauge| {
        let mut updated = gauge.get();
        updated.observe(arrived_ms, handled_ms, bytes);
        gauge.set(updated);
    });
}

/// How long until the flood is over, from `now_ms` (0 when none is on), ms.
pub fn calm_in_ms(now_ms: f64) -> f64 {
    GAUGE.with(|gauge| gauge.get().calm_in_ms(now_ms))
}
