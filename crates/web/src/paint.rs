//! When text was presented on screen (docs/DESIGN.md §3).
//!
//! Chromium: the Element Timing API. The first reasoning and the first answer text of each
//! run go into a fresh inline-block element with a unique `elementtiming` name; the
//! observer below was registered before, and reports `presentationTime` (else `renderTime`).
//! Elsewhere: a `requestAnimationFrame` callback posts a `MessageChannel` message; its
//! handler runs after the rendering update that drew the text. The method is recorded.

use std::cell::RefCell;
use std::collections::HashMap;

use futures_channel::oneshot;
use js_sys::{Array, Reflect};
use ttft_core::timeline::PaintMethod;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{
    MessageChannel, PerformanceObserver, PerformanceObserverEntryList, PerformanceObserverInit,
};

/// A paint time on the page clock and how it was obtained.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Painted {
    /// Page-clock time the text was presented.
    pub painted_ms: f64,
    /// Which API produced it.
    pub method: PaintMethod,
}

type Waiters = HashMap<String, oneshot::Sender<Painted>>;
/// The observer and the callback it must keep alive.
type ElementObserver = (
    PerformanceObserver,
    Closure<dyn FnMut(PerformanceObserverEntryList)>,
);

thread_local! {
    static ELEMENT_WAITERS: RefCell<Waiters> = RefCell::new(HashMap::new());
    static EARLY_PAINTS: RefCell<HashMap<String, Painted>> = RefCell::new(HashMap::new());
    static OBSERVER: RefCell<Option<ElementObserver>> = const { RefCell::new(None) };
}

/// Whether this browser reports Element Timing.
pub fn element_timing_supported() -> bool {
    let supported = Reflect::get(&js_sys::global(), &"PerformanceObserver".into())
        .and_then(|constructor| Reflect::get(&constructor, &"supportedEntryTypes".into()));
    match supported {
        Ok(types) if Array::is_array(&types) => Array::from(&types).includes(&"element".into(), 0),
        _ => false,
    }
}

fn painted_from_entry(entry: &JsValue) -> Option<(String, Painted)> {
    let identifier = Reflect::get(entry, &"identifier".into())
        .ok()?
        .as_string()?;
    let time = |field: &str| {
        Reflect::get(entry, &field.into())
            .ok()
            .and_then(|value| value.as_f64())
    };
    let painted = match time("presentationTime").filter(|time_ms| *time_ms > 0.0) {
        Some(painted_ms) => Painted {
            painted_ms,
            method: PaintMethod::PresentationTime,
        },
        None => Painted {
            painted_ms: time("renderTime").filter(|time_ms| *time_ms > 0.0)?,
            method: PaintMethod::RenderTime,
        },
    };
    Some((identifier, painted))
}

/// Registers the Element Timing observer. Call once at start-up, before any run, so no
/// paint is missed; harmless where unsupported.
pub fn install_observer() {
    if !element_timing_supported() || OBSERVER.with(|observer| observer.borrow().is_some()) {
        return;
    }
    let callback = Closure::<dyn FnMut(PerformanceObserverEntryList)>::new(
        |list: PerformanceObserverEntryList| {
            for entry in list.get_entries().iter() {
                let Some((identifier, painted)) = painted_from_entry(&entry) else {
                    continue;
                };
                let waiter =
                    ELEMENT_WAITERS.with(|waiters| waiters.borrow_mut().remove(&identifier));
                match waiter {
                    Some(sender) => {
                        let _ = sender.send(painted);
                    }
                    None => EARLY_PAINTS.with(|early| {
                        early.borrow_mut().insert(identifier, painted);
                    }),
                }
            }
        },
    );
    let Ok(observer) = PerformanceObserver::new(callback.as_ref().unchecked_ref()) else {
        return;
    };
    // `type` + `buffered` (not in web-sys' dictionary): also report paints that happened
    // before the observer ran its first callback.
    let init = js_sys::Object::new();
    let _ = Reflect::set(&init, &"type".into(), &"element".into());
    let _ = Reflect::set(&init, &"buffered".into(), &JsValue::TRUE);
    observer.observe(init.unchecked_ref::<PerformanceObserverInit>());
    OBSERVER.with(|slot| *slot.borrow_mut() = Some((observer, callback)));
}

/// Resolves when the element named `identifier` (its `elementtiming` attribute) is painted.
/// Falls back to the next frame (rAF + MessageChannel) when Element Timing is unsupported.
pub async fn painted(identifier: &str) -> Option<Painted> {
    if !element_timing_supported() {
        return next_frame_painted().await;
    }
    if let Some(painted) = EARLY_PAINTS.with(|early| early.borrow_mut().remove(identifier)) {
        return Some(painted);
    }
    let (sender, receiver) = oneshot::channel();
    ELEMENT_WAITERS.with(|waiters| waiters.borrow_mut().insert(identifier.to_string(), sender));
    receiver.await.ok()
}

/// Forgets a waiter whose element will never paint (the run ended or was replaced).
pub fn forget(identifier: &str) {
    ELEMENT_WAITERS.with(|waiters| waiters.borrow_mut().remove(identifier));
    EARLY_PAINTS.with(|early| early.borrow_mut().remove(identifier));
}

/// The fallback: a rAF callback posts a MessageChannel message; the handler runs after the
/// rendering update (style, layout, paint) of that frame.
pub async fn next_frame_painted() -> Option<Painted> {
    let window = web_sys::window()?;
    let channel = MessageChannel::new().ok()?;
    let (sender, receiver) = oneshot::channel::<f64>();
    // Both callbacks belong to JS once handed over (`once_into_js`): this future may be
    // dropped (its run ended, a timeout won) while the frame is still pending, and a
    // Rust-owned closure would then be called after being dropped.
    let on_message = Closure::once_into_js(move || {
        let _ = sender.send(crate::clock::now_ms());
    });
    channel
        .port2()
        .set_onmessage(Some(on_message.unchecked_ref()));
    let port = channel.port1();
    let on_frame = Closure::once_into_js(move || {
        let _ = port.post_message(&JsValue::NULL);
    });
    window
        .request_animation_frame(on_frame.unchecked_ref())
        .ok()?;
    let painted_ms = receiver.await.ok()?;
    Some(Painted {
        painted_ms,
        method: PaintMethod::RafMessageChannel,
    })
}

/// Calls `callback` in the frame after the next one (two nested `requestAnimationFrame`s):
/// whatever it changes is laid out and painted one frame after what was changed before it.
/// Where no frame comes (no window), it runs at once.
pub fn after_next_frame(callback: impl FnOnce() + 'static) {
    let Some(window) = web_sys::window() else {
        return callback();
    };
    let outer = Closure::once_into_js(move || {
        let inner = Closure::once_into_js(callback);
        if let Some(window) = web_sys::window() {
            let _ = window.request_animation_frame(inner.unchecked_ref());
        }
    });
    let _ = window.request_animation_frame(outer.unchecked_ref());
}
