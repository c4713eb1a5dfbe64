//! File downloads from the page: exports and chart images.

use wasm_bindgen::JsCast;

/// Offers `text` as a file download named `file_name`, of type `mime`.
pub fn download(file_name: &str, mime: &str, text: &str) {
    let parts = js_sys::Array::of1(&text.into());
    let options = web_sys::BlobPropertyBag::new();
    options.set_type(mime);
    if let Ok(blob) = web_sys::Blob::new_with_str_sequence_and_options(&parts, &options) {
        download_blob(file_name, &blob);
    }
}

/// Offers a blob as a file download: a temporary `<a download>` clicked once.
pub fn download_blob(file_name: &str, blob: &web_sys::Blob) {
    let Some(document) = web_sys::window().and_then(|window| window.document()) else {
        return;
    };
    let Ok(url) = web_sys::Url::create_object_url_with_blob(blob) else {
        return;
    };
    if let Some(anchor) = document
        .create_element("a")
        .ok()
        .and_then(|element| element.dyn_into::<web_sys::HtmlAnchorElement>().ok())
    {
        anchor.set_href(&url);
        anchor.set_download(file_name);
        anchor.click();
    }
    // The click has started the download; the object URL is no longer needed.
    let _ = web_sys::Url::revoke_object_url(&url);
}
