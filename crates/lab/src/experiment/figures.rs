//! Small figures the analyses share (summaries, medians) and how they are written into
//! texts (ms, percent).

use ttft_core::stats::Summary;

/// Summary of finite values; `None` when there are none.
pub fn summary_of(values: &[f64]) -> Option<Summary> {
    let finite: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
    Summary::from_samples(&finite).ok().flatten()
}

/// Median of finite values (type 7); `None` when there are none.
pub fn median_of(values: &[f64]) -> Option<f64> {
    summary_of(values).map(|summary| summary.p50)
}

/// Milliseconds rounded for messages ("1234 ms").
pub fn ms(value: f64) -> String {
    format!("{value:.0}")
}

/// A share in [0, 1] as a rounded percentage for messages ("85%").
pub fn percent(share: f64) -> String {
    format!("{:.0}%", share * 100.0)
}
