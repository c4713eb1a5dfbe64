//! One paragraph written into the page: the base cost of a Rust + wasm-bindgen page.

fn main() {
    let Some(body) = web_sys::window()
        .and_then(|window| window.document())
        .and_then(|document| document.body())
    else {
        return;
    };
    let text = format!("TTFT Meter {}", body.child_element_count());
    body.set_text_content(Some(&text));
}
