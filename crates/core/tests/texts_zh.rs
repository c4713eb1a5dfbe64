//! Every text of ttft-core's catalogue has its Chinese column: not empty, not the English
//! (but for the codes and units that read the same), filling the same placeholders.

#[test]
fn every_core_text_has_its_chinese_column() {
    let missing = ttft_core::text::untranslated(
        ttft_core::texts::ALL,
        // Protocol names, the same in Chinese.
        &[
            "METRIC_LABEL_DNS_MS",
            "METRIC_LABEL_TCP_MS",
            "METRIC_LABEL_TLS_MS",
        ],
    );
    assert!(
        missing.is_empty(),
        "{} texts:\n{}",
        missing.len(),
        missing.join("\n")
    );
    assert!(ttft_core::texts::ALL.len() > 100);
}
