//! Property tests for the statistics.

use proptest::prelude::*;
use ttft_core::stats::{empirical_cdf, histogram, linear_fit, percentile, Summary};

fn samples() -> impl Strategy<Value = Vec<f64>> {
    prop::collection::vec(-1e6f64..1e6, 1..200)
}

proptest! {
    #[test]
    fn summary_is_ordered(values in samples()) {
        let s = Summary::from_samples(&values).unwrap().unwrap();
        let slack = 1e-9 * s.max.abs().max(s.min.abs()).max(1.0);
        prop_assert!(s.min <= s.p50 && s.p50 <= s.p90 && s.p90 <= s.p95 && s.p95 <= s.p99);
        prop_assert!(s.p99 <= s.max);
        prop_assert!(s.min - slack <= s.mean && s.mean <= s.max + slack);
        prop_assert_eq!(s.count, values.len());
        prop_assert!(s.std_dev.is_some() == (values.len() > 1));
    }

    #[test]
    fn percentile_is_monotonic(values in samples(), a in 0.0f64..1.0, b in 0.0f64..1.0) {
        let (low, high) = if a <= b { (a, b) } else { (b, a) };
        let p_low = percentile(&values, low).unwrap().unwrap();
        let p_high = percentile(&values, high).unwrap().unwrap();
        prop_assert!(p_low <= p_high);
    }

    #[test]
    fn histogram_and_cdf_account_for_every_sample(values in samples(), bins in 1usize..40) {
        let histogram = histogram(&values, bins).unwrap().unwrap();
        prop_assert_eq!(histogram.iter().map(|b| b.count).sum::<usize>(), values.len());
        let cdf = empirical_cdf(&values).unwrap();
        prop_assert_eq!(cdf.last().map(|p| p.fraction), Some(1.0));
        prop_assert!(cdf.windows(2).all(|w| w[0].value < w[1].value && w[0].fraction < w[1].fraction));
    }

    #[test]
    fn linear_fit_recovers_exact_lines(
        intercept in -1e3f64..1e3,
        slope in -1.0f64..1.0,
        start in 0.0f64..1e5,
        step in 1.0f64..1e4,
        count in 3usize..30,
    ) {
        let points: Vec<(f64, f64)> = (0..count)
            .map(|i| {
                let x = start + step * i as f64;
                (x, intercept + slope * x)
            })
            .collect();
        let fit = linear_fit(&points).unwrap().unwrap();
        let scale = intercept.abs() + slope.abs() * (start + step * count as f64) + 1.0;
        prop_assert!((fit.slope - slope).abs() * (step * count as f64) < 1e-7 * scale);
        for (x, y) in &points {
            prop_assert!((fit.predict(*x) - y).abs() < 1e-7 * scale);
        }
    }
}
