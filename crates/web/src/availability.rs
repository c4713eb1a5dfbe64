//! The main thread's availability while a run waits for its first answer token (issue 13;
//! docs/engines.md): a heartbeat timer, and Long Animation Frames (or Long Tasks) where the
//! engine reports them. ttft-core's `MainThreadMonitor` (inside the run's `Measurement`)
//! turns them into the run's arrival-delay bound.

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::rc::{Rc, Weak};

use js_sys::{Array, Reflect};
use ttft_core::measure::{BrowserEngine, Measurement, HEARTBEAT_INTERVAL_MS};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{PerformanceObserver, PerformanceObserverEntryList, PerformanceObserverInit};

/// Long tasks kept for the runs to read (the newest); a run reads those of its own window.
const KEPT_BUSY_ENTRIES: usize = 64;

type BusyObserver = (
    PerformanceObserver,
    Closure<dyn FnMut(PerformanceObserverEntryList)>,
);

thread_local! {
    static BUSY: RefCell<VecDeque<(f64, f64)>> = const { RefCell::new(VecDeque::new()) };
    static OBSERVER: RefCell<Option<BusyObserver>> = const { RefCell::new(None) };
}

/// This page's engine, from `navigator.userAgent`.
pub fn engine() -> BrowserEngine {
    let user_agent = web_sys::window()
        .and_then(|window| window.navigator().user_agent().ok())
        .unwrap_or_default();
    BrowserEngine::from_user_agent(&user_agent)
}

/// The entry type to observe: Long Animation Frames (Chromium 123+: a frame's whole work,
/// rendering included), else Long Tasks (older Chromium); `None` elsewhere.
fn busy_entry_type() -> Option<&'static str> {
    let supported = Reflect::get(&js_sys::global(), &"PerformanceObserver".into())
        .and_then(|constructor| Reflect::get(&constructor, &"supportedEntryTypes".into()))
        .ok()
        .filter(Array::is_array)
        .map(|types| Array::from(&types))?;
    ["long-animation-frame", "longtask"]
        .into_iter()
        .find(|kind| supported.includes(&(*kind).into(), 0))
}

/// Observes long tasks from now on (call once at start-up); nothing where unsupported.
pub fn install_observer() {
    if OBSERVER.with(|observer| observer.borrow().is_some()) {
        return;
    }
    let Some(kind) = busy_entry_type() else {
        return;
    };
    let callback = Closure::<dyn FnMut(PerformanceObserverEntryList)>::new(
        |list: PerformanceObserverEntryList| {
            BUSY.with(|busy| {
                let mut busy = busy.borrow_mut();
                for entry in list.get_entries().iter() {
                    let number = |field: &str| {
                        Reflect::get(&entry, &field.into())
                            .ok()
                            .and_then(|value| value.as_f64())
                    };
                    if let (Some(start_ms), Some(duration_ms)) =
                        (number("startTime"), number("duration"))
                    {
                        busy.push_back((start_ms, duration_ms));
                        if busy.len() > KEPT_BUSY_ENTRIES {
                            busy.pop_front();
                        }
                    }
                }
            });
        },
    );
    let Ok(observer) = PerformanceObserver::new(callback.as_ref().unchecked_ref()) else {
        return;
    };
    let init = js_sys::Object::new();
    let _ = Reflect::set(&init, &"type".into(), &kind.into());
    let _ = Reflect::set(&init, &"buffered".into(), &JsValue::FALSE);
    observer.observe(init.unchecked_ref::<PerformanceObserverInit>());
    OBSERVER.with(|slot| *slot.borrow_mut() = Some((observer, callback)));
}

/// Hands the long tasks that end after `since_ms` to `measurement` (it keeps the part
/// inside its window).
pub fn report_busy(measurement: &mut Measurement, since_ms: f64) {
    BUSY.with(|busy| {
        for &(start_ms, duration_ms) in busy.borrow().iter() {
            if start_ms + duration_ms > since_ms {
                measurement.on_main_thread_busy(start_ms, duration_ms);
            }
        }
    });
}

/// The heartbeat of one run: a timer every [`HEARTBEAT_INTERVAL_MS`] that tells the run's
/// measurement the main thread was free, until the measurement no longer wants it (a beat
/// after its first answer token) or this is dropped.
pub struct Heartbeat {
    handle: Rc<Cell<Option<i32>>>,
    _tick: Closure<dyn FnMut()>,
}

impl Heartbeat {
    /// Starts beating for `measurement` (held weakly: a finished run stops the beat).
    pub fn start(measurement: &Rc<RefCell<Measurement>>) -> Option<Heartbeat> {
        let window = web_sys::window()?;
        let measurement: Weak<RefCell<Measurement>> = Rc::downgrade(measurement);
        let handle = Rc::new(Cell::new(None));
        let tick = {
            let handle = Rc::clone(&handle);
            Closure::<dyn FnMut()>::new(move || {
                let now_ms = crate::clock::now_ms();
                let wanted = measurement.upgrade().is_some_and(|measurement| {
                    // Never borrowed across an await: a beat never finds it taken, and would
                    // only skip one if it did.
                    measurement
                        .try_borrow_mut()
                        .map_or(true, |mut measurement| {
                            measurement.on_main_thread_beat(now_ms);
                            measurement.wants_main_thread_beats()
                        })
                });
                if !wanted {
                    stop(&handle);
                }
            })
        };
        let id = window
            .set_interval_with_callback_and_timeout_and_arguments_0(
                tick.as_ref().unchecked_ref(),
                HEARTBEAT_INTERVAL_MS as i32,
            )
            .ok()?;
        handle.set(Some(id));
        Some(Heartbeat {
            handle,
            _tick: tick,
        })
    }
}

fn stop(handle: &Cell<Option<i32>>) {
    if let (Some(window), Some(id)) = (web_sys::window(), handle.take()) {
        window.clear_interval_with_handle(id);
    }
}

impl Drop for Heartbeat {
    fn drop(&mut self) {
        stop(&self.handle);
    }
}
