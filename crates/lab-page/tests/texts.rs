//! Every text of the lab page's catalogue has its Chinese column
//! (ttft_core::text::untranslated; the other catalogues are checked in their packages).
#![cfg(target_arch = "wasm32")]

use wasm_bindgen_test::*;

#[wasm_bindgen_test]
fn every_lab_page_text_has_its_chinese_column() {
    // An abbreviation used as is in Chinese.
    let missing = ttft_core::text::untranslated(ttft_lab_page::texts::ALL, &["FACT_SLO"]);
    assert!(
        missing.is_empty(),
        "{} texts:\n{}",
        missing.len(),
        missing.join("\n")
    );
    assert!(!ttft_lab_page::texts::ALL.is_empty());
}
