//! Every text of ttft-lab's catalogue has its Chinese column (ttft_core::text::untranslated).

#[test]
fn every_lab_text_has_its_chinese_column() {
    // The API parameter's name, the same in Chinese.
    let missing = ttft_core::text::untranslated(ttft_lab::texts::ALL, &["MAX_TOKENS"]);
    assert!(
        missing.is_empty(),
        "{} texts:\n{}",
        missing.len(),
        missing.join("\n")
    );
    assert!(!ttft_lab::texts::ALL.is_empty());
}
