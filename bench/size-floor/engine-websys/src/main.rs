//! The engine with a hand-written DOM: builds the first screen, runs on Send.

mod engine;

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

fn main() {
    let Some(document) = web_sys::window().and_then(|window| window.document()) else {
        return;
    };
    if engine::mount(&document).is_err() {
        return;
    }
    let on_click =
        Closure::<dyn FnMut()>::new(|| wasm_bindgen_futures::spawn_local(engine::send()));
    if let Some(button) = document.get_element_by_id("send") {
        if let Some(button) = button.dyn_ref::<web_sys::HtmlElement>() {
            button.set_onclick(Some(on_click.as_ref().unchecked_ref()));
        }
    }
    on_click.forget();
}
