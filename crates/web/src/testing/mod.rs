//! What the component tests (tests/, crates/web/tests, crates/lab-page/tests: wasm-bindgen-test
//! in headless Chromium) use to
//! mount a page's components and act on them as a user would: mount into a fresh element,
//! find by `data-testid`, click, type, wait for what the user would wait for. Nothing in the
//! pages calls it, so none of it is in their wasm.

pub mod support;

use std::any::Any;

use leptos::prelude::*;
use wasm_bindgen::JsCast;

/// A mounted view and the element it lives in; dropping it takes the element out of the
/// page. The view's reactive state is left alive (never disposed), as a page's is for its
/// whole life: a task still in flight when a test ends (a models list, a timer) then writes
/// to a live signal of a detached view, not to a disposed one.
pub struct Mounted {
    /// The element the view was mounted in (a fresh `<div>` in `<body>`).
    pub root: web_sys::HtmlElement,
    handle: Option<Box<dyn Any>>,
}

impl Drop for Mounted {
    fn drop(&mut self) {
        if let Some(handle) = self.handle.take() {
            std::mem::forget(handle);
        }
        self.root.remove();
    }
}

fn document() -> web_sys::Document {
    #[allow(clippy::expect_used)]
    web_sys::window()
        .and_then(|window| window.document())
        .expect("component tests run in a page")
}

/// Installed once per test page by [`mount`]: `fetch` to anything but loopback (127.0.0.0/8,
/// `localhost`, `[::1]`) rejects at once as a refused connection does, without leaving the
/// machine. A page's side requests (a preset's models list names a provider's public host)
/// never reach the network from a test; a test's own recorder wraps this one.
/// How long a component test waits for a view to get where it should (ready, a row, a message):
/// a bound on waiting, not a timing claim. It is generous because a busy machine may leave a
/// browser without a core for a moment (two test binaries run at once, beside the import
/// check); a view that never gets there still fails, naming what it waited for.
pub const UI_WAIT_MS: f64 = 10_000.0;

const LOOPBACK_ONLY_JS: &str = r#"
if (window.__loopbackOnly) return;
window.__loopbackOnly = true;
const original = window.fetch.bind(window);
window.fetch = function (input, init) {
  // The URL only: a Request built from `input` would take its body.
  let url;
  try { url = new URL(input instanceof Request ? input.url : String(input), location.href); } catch (error) { return original(input, init); }
  const host = url.hostname;
  const loopback = host === 'localhost' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
  if (loopback || url.protocol === 'blob:' || url.protocol === 'data:') return original(input, init);
  return Promise.reject(new TypeError(`Failed to fetch (component tests reach loopback only: ${url.origin})`));
};
"#;

/// Keeps the page's `fetch` to loopback ([`LOOPBACK_ONLY_JS`]); once per page, before any
/// recorder a test puts in front of `fetch` (so the recorder still sees what is refused).
pub fn loopback_only() {
    let _ = js_sys::Function::new_no_args(LOOPBACK_ONLY_JS).call0(&wasm_bindgen::JsValue::NULL);
}

/// The wait for Element Timing in the component tests' pages, ms (see [`mount`]).
pub const COMPONENT_ELEMENT_TIMING_WAIT_MS: f64 = 50.0;

/// Mounts `view` in a fresh `<div>` at the end of `<body>` (with [`loopback_only`]).
pub fn mount<F, N>(view: F) -> Mounted
where
    F: FnOnce() -> N + 'static,
    N: IntoView + 'static,
{
    loopback_only();
    // No Element Timing entry reaches a page mounted here (wasm-bindgen-test-runner's
    // Chromium): a run's paint is the next frame's after 50 ms, not after the page's 1 s
    // wait, which was most of each scripted run's time (tests/wait.rs: 14.8 s -> 4.9 s).
    crate::run::set_element_timing_wait_ms(COMPONENT_ELEMENT_TIMING_WAIT_MS);
    let document = document();
    #[allow(clippy::expect_used)]
    let root: web_sys::HtmlElement = document
        .create_element("div")
        .expect("a div")
        .unchecked_into();
    #[allow(clippy::expect_used)]
    document
        .body()
        .expect("a body")
        .append_child(&root)
        .expect("appended");
    let handle = leptos::mount::mount_to(root.clone(), view);
    Mounted {
        root,
        handle: Some(Box::new(handle)),
    }
}

impl Mounted {
    /// The first element with `data-testid="id"`, if any.
    pub fn find(&self, id: &str) -> Option<web_sys::HtmlElement> {
        self.root
            .query_selector(&format!("[data-testid=\"{id}\"]"))
            .ok()
            .flatten()
            .map(JsCast::unchecked_into)
    }

    /// Every element with `data-testid="id"`, in document order.
    pub fn find_all(&self, id: &str) -> Vec<web_sys::HtmlElement> {
        let Ok(list) = self
            .root
            .query_selector_all(&format!("[data-testid=\"{id}\"]"))
        else {
            return Vec::new();
        };
        (0..list.length())
            .filter_map(|index| list.item(index))
            .map(JsCast::unchecked_into)
            .collect()
    }

    /// The element with `data-testid="id"`; panics, naming it, when there is none.
    pub fn get(&self, id: &str) -> web_sys::HtmlElement {
        #[allow(clippy::panic)]
        self.find(id)
            .unwrap_or_else(|| panic!("no element with data-testid={id:?} in the view"))
    }

    /// What `data-testid="id"` shows (its `textContent`, trimmed).
    pub fn text(&self, id: &str) -> String {
        self.get(id)
            .text_content()
            .unwrap_or_default()
            .trim()
            .to_owned()
    }

    /// What the first element matching the CSS `selector` shows (trimmed); panics, naming
    /// it, when there is none.
    pub fn text_of(&self, selector: &str) -> String {
        #[allow(clippy::panic)]
        self.root
            .query_selector(selector)
            .ok()
            .flatten()
            .unwrap_or_else(|| panic!("nothing matches {selector:?} in the view"))
            .text_content()
            .unwrap_or_default()
            .trim()
            .to_owned()
    }

    /// An attribute of `data-testid="id"`.
    pub fn attribute(&self, id: &str, name: &str) -> Option<String> {
        self.get(id).get_attribute(name)
    }

    /// Clicks `data-testid="id"`.
    pub fn click(&self, id: &str) {
        self.get(id).click();
    }

    /// Types `value` into the input, text area or select `data-testid="id"`: its value
    /// set, then `input` and `change` dispatched (bubbling, as the browser's are).
    pub fn type_into(&self, id: &str, value: &str) {
        let element = self.get(id);
        if let Some(input) = element.dyn_ref::<web_sys::HtmlInputElement>() {
            if input.type_() == "checkbox" {
                input.set_checked(matches!(value, "1" | "true" | "on"));
            } else {
                input.set_value(value);
            }
        } else if let Some(area) = element.dyn_ref::<web_sys::HtmlTextAreaElement>() {
            area.set_value(value);
        } else if let Some(select) = element.dyn_ref::<web_sys::HtmlSelectElement>() {
            select.set_value(value);
        }
        for kind in ["input", "change"] {
            let init = web_sys::EventInit::new();
            init.set_bubbles(true);
            if let Ok(event) = web_sys::Event::new_with_event_init_dict(kind, &init) {
                let _ = element.dispatch_event(&event);
            }
        }
    }

    /// The element's `value` (input, text area or select).
    pub fn value(&self, id: &str) -> String {
        let element = self.get(id);
        if let Some(input) = element.dyn_ref::<web_sys::HtmlInputElement>() {
            input.value()
        } else if let Some(area) = element.dyn_ref::<web_sys::HtmlTextAreaElement>() {
            area.value()
        } else if let Some(select) = element.dyn_ref::<web_sys::HtmlSelectElement>() {
            select.value()
        } else {
            String::new()
        }
    }

    /// Waits until `data-testid="id"` exists and `ready` holds for its text, at most
    /// `timeout_ms`; panics with the text last seen when it never does.
    pub async fn until_text(&self, id: &str, ready: impl Fn(&str) -> bool, timeout_ms: f64) {
        let seen = until(
            &format!("data-testid={id:?}"),
            || {
                let text = self.find(id).and_then(|element| element.text_content());
                match text {
                    Some(text) if ready(text.trim()) => Ok(()),
                    other => Err(format!("last text {other:?}")),
                }
            },
            timeout_ms,
        )
        .await;
        seen.unwrap_or_else(|error| fail(&error));
    }

    /// Waits until `data-testid="id"` has the attribute `name` equal to `value`.
    pub async fn until_attribute(&self, id: &str, name: &str, value: &str, timeout_ms: f64) {
        until(
            &format!("data-testid={id:?} {name}={value:?}"),
            || match self
                .find(id)
                .and_then(|element| element.get_attribute(name))
            {
                Some(seen) if seen == value => Ok(()),
                other => Err(format!("last {name} {other:?}")),
            },
            timeout_ms,
        )
        .await
        .unwrap_or_else(|error| fail(&error));
    }
}

#[allow(clippy::panic)]
fn fail(message: &str) -> ! {
    panic!("{message}")
}

/// Polls `check` every 5 ms (and after each rendered frame's tasks) until it returns `Ok`,
/// at most `timeout_ms`; the error names `what` and the last `Err` seen.
pub async fn until(
    what: &str,
    check: impl Fn() -> Result<(), String>,
    timeout_ms: f64,
) -> Result<(), String> {
    let started_ms = crate::clock::now_ms();
    loop {
        let last = match check() {
            Ok(()) => return Ok(()),
            Err(last) => last,
        };
        if crate::clock::now_ms() - started_ms > timeout_ms {
            return Err(format!("{what}: not so after {timeout_ms} ms ({last})"));
        }
        crate::clock::sleep_ms(5.0).await;
    }
}

/// Lets the page render: the reactive effects queued now run, and `count` frames pass.
pub async fn frames(count: u32) {
    crate::clock::sleep_ms(0.0).await;
    for _ in 0..count {
        crate::paint::next_frame_painted().await;
    }
}

/// Forgets everything the pages store (localStorage, sessionStorage), so each test starts
/// as a first visit.
pub fn clear_storage() {
    if let Some(window) = web_sys::window() {
        if let Ok(Some(storage)) = window.local_storage() {
            let _ = storage.clear();
        }
        if let Ok(Some(storage)) = window.session_storage() {
            let _ = storage.clear();
        }
    }
}
