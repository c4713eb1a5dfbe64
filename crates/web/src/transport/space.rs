//! Chrome's Local Network Access from the page's side (ttft-core `request::address_space`): a
//! page on a public origin that calls this machine or the local network says where each
//! request goes (`fetch()`'s `targetAddressSpace`), and when such a request fails as a network
//! error the page asks the browser whether it let the request through
//! (`navigator.permissions.query`), which is the only way to tell a refusal from a server
//! that is not running. A page on the same machine (the bundled simulator, a development
//! server) or the same network sets and asks nothing: its requests are not checked.

use js_sys::{Function, Object, Promise, Reflect};
use ttft_core::request::{address_space_of, crosses_into, AddressSpace, SpacePermission};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

/// The page's own origin.
fn page_origin() -> Option<String> {
    web_sys::window().and_then(|window| window.location().origin().ok())
}

/// The address space a request from this page to `url` must declare, when the browser knows
/// the option (`Request.prototype.targetAddressSpace`, Chrome 142 on) and the request crosses
/// into a closer space.
pub fn declared_for(url: &str) -> Option<AddressSpace> {
    let target = address_space_of(url)?;
    let page = page_origin().map(|origin| address_space_of(&origin));
    if !crosses_into(page.flatten(), target) || !option_known() {
        return None;
    }
    Some(target)
}

/// Whether this engine's `fetch()` knows `targetAddressSpace` (others ignore it anyway).
fn option_known() -> bool {
    let global = js_sys::global();
    Reflect::get(&global, &"Request".into())
        .ok()
        .and_then(|request| Reflect::get(&request, &"prototype".into()).ok())
        .filter(|prototype| prototype.is_object())
        .is_some_and(|prototype| {
            Reflect::has(&prototype, &"targetAddressSpace".into()).unwrap_or(false)
        })
}

/// Sets `targetAddressSpace` on a `RequestInit` (or any init object) for `url`, when
/// [`declared_for`] says so.
pub fn declare(init: &Object, url: &str) {
    if let Some(space) = declared_for(url) {
        let _ = Reflect::set(
            init,
            &"targetAddressSpace".into(),
            &space.fetch_value().into(),
        );
    }
}

/// Whether an error is an engine refusing the option's value (an older enum: Chrome 124-137
/// knew `"private"` and `"local"` only), as opposed to the request failing.
pub fn is_option_refused(error: &JsValue) -> bool {
    let message = Reflect::get(error, &"message".into())
        .ok()
        .and_then(|message| message.as_string())
        .unwrap_or_default();
    message.contains("targetAddressSpace")
}

/// What the browser says of this page's permission to reach `url`'s address space, for a
/// request that crosses into it; `None` when it does not cross, or the engine has no such
/// permission (Firefox before 147, Safari), or says nothing.
pub async fn permission_for(url: &str) -> Option<SpacePermission> {
    let target = address_space_of(url)?;
    let page = page_origin().map(|origin| address_space_of(&origin));
    if !crosses_into(page.flatten(), target) {
        return None;
    }
    let navigator = Reflect::get(&js_sys::global(), &"navigator".into()).ok()?;
    let permissions = Reflect::get(&navigator, &"permissions".into()).ok()?;
    let query: Function = Reflect::get(&permissions, &"query".into())
        .ok()?
        .dyn_into()
        .ok()?;
    for name in target.permission_names() {
        let descriptor = Object::new();
        let _ = Reflect::set(&descriptor, &"name".into(), &name.into());
        // An unknown name rejects (or throws): the next one is tried.
        let Ok(promise) = query.call1(&permissions, &descriptor) else {
            continue;
        };
        let Ok(promise) = promise.dyn_into::<Promise>() else {
            continue;
        };
        let Ok(status) = JsFuture::from(promise).await else {
            continue;
        };
        let state = Reflect::get(&status, &"state".into())
            .ok()
            .and_then(|state| state.as_string());
        if let Some(permission) = state.as_deref().and_then(SpacePermission::from_state) {
            return Some(permission);
        }
    }
    None
}
