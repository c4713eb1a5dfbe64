//! Statistics against hand-computed values.

use ttft_core::stats::{
    bimodality_coefficient, empirical_cdf, histogram, linear_fit, percentile, quadratic_fit,
    BimodalityCheck, StatsError, Summary, TailCheck, BIMODALITY_THRESHOLD,
    DEFAULT_TAIL_RATIO_THRESHOLD,
};

fn close(actual: f64, expected: f64) -> bool {
    (actual - expected).abs() <= 1e-9 * expected.abs().max(1.0)
}

macro_rules! assert_close {
    ($actual:expr, $expected:expr) => {
        assert!(
            close($actual, $expected),
            "{} = {} but expected {}",
            stringify!($actual),
            $actual,
            $expected
        )
    };
}

// Ten TTFTs with one slow outlier. Sorted:
// [80, 85, 90, 95, 100, 105, 110, 120, 130, 400]   (index 0..9), n − 1 = 9
const SAMPLE_MS: [f64; 10] = [
    120.0, 80.0, 100.0, 400.0, 90.0, 110.0, 95.0, 105.0, 130.0, 85.0,
];

#[test]
fn percentiles_type7_table() {
    let cases = [
        // fraction, h = 9·p, value = x[⌊h⌋] + frac(h)·(x[⌊h⌋+1] − x[⌊h⌋])
        (0.0, 80.0),   // h = 0
        (0.50, 102.5), // h = 4.5  → 100 + 0.5·(105 − 100)
        (0.90, 157.0), // h = 8.1  → 130 + 0.1·(400 − 130) = 130 + 27
        (0.95, 278.5), // h = 8.55 → 130 + 0.55·270 = 130 + 148.5
        (0.99, 375.7), // h = 8.91 → 130 + 0.91·270 = 130 + 245.7
        (1.0, 400.0),  // h = 9
        (1.5, 400.0),  // clamped to 1
    ];
    for (fraction, expected) in cases {
        let actual = percentile(&SAMPLE_MS, fraction).unwrap().unwrap();
        assert_close!(actual, expected);
    }
}

#[test]
fn summary_of_sample() {
    let summary = Summary::from_samples(&SAMPLE_MS).unwrap().unwrap();
    assert_eq!(summary.count, 10);
    assert_close!(summary.min, 80.0);
    assert_close!(summary.max, 400.0);
    // Sum = 80+85+90+95+100+105+110+120+130+400 = 1315 → mean 131.5.
    assert_close!(summary.mean, 131.5);
    // Squared deviations from 131.5: 2652.25 + 2162.25 + 1722.25 + 1332.25 + 992.25 + 702.25
    // + 462.25 + 132.25 + 2.25 + 72092.25 = 82252.5; / 9 = 9139.1667; sqrt = 95.59899.
    assert_close!(summary.std_dev.unwrap(), (82252.5f64 / 9.0).sqrt());
    // Population form (AIPerf / np.std): sqrt(82252.5 / 10) = 90.6932.
    assert_close!(summary.population_std_dev(), (82252.5f64 / 10.0).sqrt());
    assert_close!(summary.p50, 102.5);
    assert_close!(summary.p90, 157.0);
    assert_close!(summary.p95, 278.5);
    assert_close!(summary.p99, 375.7);
}

#[test]
fn single_sample_has_no_std_dev_and_all_percentiles_equal_it() {
    let summary = Summary::from_samples(&[42.0]).unwrap().unwrap();
    assert_eq!(summary.std_dev, None);
    assert_close!(summary.population_std_dev(), 0.0);
    assert_close!(summary.p50, 42.0);
    assert_close!(summary.p99, 42.0);
}

#[test]
fn two_samples_interpolate() {
    // h = 1·p: p50 = 10 + 0.5·10 = 15; p90 = 10 + 0.9·10 = 19; std = sqrt((25+25)/1) = 7.0711.
    let summary = Summary::from_samples(&[20.0, 10.0]).unwrap().unwrap();
    assert_close!(summary.p50, 15.0);
    assert_close!(summary.p90, 19.0);
    assert_close!(summary.std_dev.unwrap(), 50f64.sqrt());
}

#[test]
fn empty_input_gives_none() {
    assert_eq!(Summary::from_samples(&[]).unwrap(), None);
    assert_eq!(percentile(&[], 0.5).unwrap(), None);
    assert_eq!(histogram(&[], 4).unwrap(), None);
    assert!(empirical_cdf(&[]).unwrap().is_empty());
}

#[test]
fn nan_and_infinity_are_rejected() {
    let nan = Summary::from_samples(&[1.0, f64::NAN]);
    assert!(matches!(nan, Err(StatsError::NotFinite { index: 1, .. })));
    assert!(percentile(&[f64::INFINITY], 0.5).is_err());
    assert!(matches!(
        percentile(&[1.0], f64::NAN),
        Err(StatsError::InvalidFraction { .. })
    ));
    assert!(linear_fit(&[(1.0, 1.0), (2.0, f64::NAN), (3.0, 3.0)]).is_err());
    assert!(BimodalityCheck::from_samples(&[f64::NEG_INFINITY; 12]).is_err());
}

#[test]
fn tail_flag() {
    let summary = Summary::from_samples(&SAMPLE_MS).unwrap().unwrap();
    // 278.5 / 102.5 = 2.717 > 2.
    let tail = TailCheck::from_summary(&summary, DEFAULT_TAIL_RATIO_THRESHOLD).unwrap();
    assert_close!(tail.p95_over_p50, 278.5 / 102.5);
    assert!(tail.heavy_tail);
    let tight = Summary::from_samples(&[100.0, 101.0, 102.0, 103.0])
        .unwrap()
        .unwrap();
    // p50 = 101.5, p95 = 102 + 0.85·1 = 102.85 → ratio 1.013.
    let tail = TailCheck::from_summary(&tight, DEFAULT_TAIL_RATIO_THRESHOLD).unwrap();
    assert!(!tail.heavy_tail);
    let zero = Summary::from_samples(&[0.0, 0.0, 5.0]).unwrap().unwrap();
    assert_eq!(TailCheck::from_summary(&zero, 2.0), None);
}

#[test]
fn bimodality_coefficient_of_two_equal_groups() {
    // Five 1s and five 2s: mean 1.5, all |deviations| 0.5 → m2 = 0.25, m3 = 0, m4 = 0.0625.
    // Skewness G1 = 0. g2 = 0.0625/0.0625 − 3 = −2;
    // G2 = (9 / (8·7))·(11·(−2) + 6) = (9/56)·(−16) = −18/7.
    // b = (0 + 1) / (−18/7 + 3·81/(8·7)) = 1 / (−144/56 + 243/56) = 56/99 = 0.5657.
    let values = [1.0, 1.0, 1.0, 1.0, 1.0, 2.0, 2.0, 2.0, 2.0, 2.0];
    assert_close!(bimodality_coefficient(&values).unwrap(), 56.0 / 99.0);
    assert!(bimodality_coefficient(&values).unwrap() > BIMODALITY_THRESHOLD);
    assert_eq!(bimodality_coefficient(&[1.0, 2.0, 3.0]), None);
    assert_eq!(bimodality_coefficient(&[5.0; 6]), None);
}

#[test]
fn bimodality_unimodal_vs_bimodal_latencies() {
    // One group around 110 ms: b on ln(x) ≈ 0.227 (checked with a Python transcription of the
    // formula), well below 5/9.
    let unimodal = [
        100.0, 104.0, 106.0, 108.0, 109.0, 110.0, 110.0, 111.0, 112.0, 114.0, 116.0, 120.0,
    ];
    let check = BimodalityCheck::from_samples(&unimodal).unwrap().unwrap();
    assert!(check.log_scale);
    assert!(!check.bimodal, "{check:?}");
    assert!((check.coefficient - 0.2269).abs() < 1e-3, "{check:?}");

    // Head-of-line blocking: ten runs near 300 ms, six near 3 s. b on ln(x) ≈ 0.742.
    let bimodal = [
        280.0, 290.0, 295.0, 300.0, 300.0, 305.0, 310.0, 320.0, 330.0, 340.0, 2800.0, 2900.0,
        3000.0, 3100.0, 3200.0, 2950.0,
    ];
    let check = BimodalityCheck::from_samples(&bimodal).unwrap().unwrap();
    assert!(check.bimodal, "{check:?}");
    assert!((check.coefficient - 0.7416).abs() < 1e-3, "{check:?}");
}

#[test]
fn bimodality_log_scale_avoids_exponential_false_positive() {
    // Forty quantiles of an exponential distribution: raw b ≈ 0.593 (> 5/9, a false alarm),
    // on ln(x) b ≈ 0.435.
    let exponential: Vec<f64> = (0..40)
        .map(|i| -(1.0 - (i as f64 + 0.5) / 40.0).ln() * 1000.0)
        .collect();
    assert!(bimodality_coefficient(&exponential).unwrap() > BIMODALITY_THRESHOLD);
    let check = BimodalityCheck::from_samples(&exponential)
        .unwrap()
        .unwrap();
    assert!(!check.bimodal, "{check:?}");
}

#[test]
fn bimodality_needs_ten_samples_and_falls_back_to_raw_values() {
    assert_eq!(BimodalityCheck::from_samples(&[1.0; 9]).unwrap(), None);
    let with_zero = [0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0];
    let check = BimodalityCheck::from_samples(&with_zero).unwrap().unwrap();
    assert!(!check.log_scale);
    assert_close!(check.coefficient, 56.0 / 99.0);
}

#[test]
fn linear_fit_exact_line() {
    // TTFT = 50 ms + 0.02 ms per prompt token, exactly: R² = 1.
    let points = [
        (1000.0, 70.0),
        (2000.0, 90.0),
        (4000.0, 130.0),
        (8000.0, 210.0),
    ];
    let fit = linear_fit(&points).unwrap().unwrap();
    assert_close!(fit.intercept, 50.0);
    assert_close!(fit.slope, 0.02);
    assert_close!(fit.quadratic, 0.0);
    assert_close!(fit.r_squared.unwrap(), 1.0);
    assert_close!(fit.predict(16000.0), 370.0);
}

#[test]
fn linear_fit_with_residuals() {
    // x = 0,1,2,3; y = 1,3,2,4. x̄ = 1.5, ȳ = 2.5. Sxx = 2.25+0.25+0.25+2.25 = 5.
    // Sxy = (−1.5)(−1.5) + (−0.5)(0.5) + (0.5)(−0.5) + (1.5)(1.5) = 2.25 − 0.25 − 0.25 + 2.25 = 4.
    // slope = 4/5 = 0.8; intercept = 2.5 − 0.8·1.5 = 1.3.
    // Fitted 1.3, 2.1, 2.9, 3.7; residuals −0.3, 0.9, −0.9, 0.3 → SS_res = 0.09+0.81+0.81+0.09 = 1.8.
    // SS_tot = 2.25+0.25+0.25+2.25 = 5 → R² = 1 − 1.8/5 = 0.64.
    let points = [(0.0, 1.0), (1.0, 3.0), (2.0, 2.0), (3.0, 4.0)];
    let fit = linear_fit(&points).unwrap().unwrap();
    assert_close!(fit.slope, 0.8);
    assert_close!(fit.intercept, 1.3);
    assert_close!(fit.r_squared.unwrap(), 0.64);
    assert_eq!(fit.points, 4);
}

#[test]
fn quadratic_fit_recovers_parabola_at_large_x() {
    // y = 200 + 0.01·x + 1e-7·x² at prompt sizes up to 128k tokens: centring and scaling keep
    // the coefficients exact to ~1e-9 relative.
    let xs = [1000.0, 8000.0, 32000.0, 64000.0, 128000.0];
    let points: Vec<(f64, f64)> = xs
        .iter()
        .map(|&x| (x, 200.0 + 0.01 * x + 1e-7 * x * x))
        .collect();
    let fit = quadratic_fit(&points).unwrap().unwrap();
    assert!((fit.intercept - 200.0).abs() < 1e-6, "{fit:?}");
    assert!((fit.slope - 0.01).abs() < 1e-10, "{fit:?}");
    assert!((fit.quadratic - 1e-7).abs() < 1e-15, "{fit:?}");
    assert!((fit.r_squared.unwrap() - 1.0).abs() < 1e-12);
}

#[test]
fn quadratic_fit_hand_computed() {
    // x = −1,0,1,2; y = 2,1,2,5: exactly y = 1 + 0·x + 1·x²... check: (−1)²+1 = 2, 1, 2, 5. ✓
    let points = [(-1.0, 2.0), (0.0, 1.0), (1.0, 2.0), (2.0, 5.0)];
    let fit = quadratic_fit(&points).unwrap().unwrap();
    assert!((fit.intercept - 1.0).abs() < 1e-12);
    assert!(fit.slope.abs() < 1e-12);
    assert!((fit.quadratic - 1.0).abs() < 1e-12);
}

#[test]
fn fits_refuse_too_few_points_or_degenerate_x() {
    let cases: [(&[(f64, f64)], bool); 6] = [
        (&[], false),
        (&[(1.0, 1.0), (2.0, 2.0)], false), // linear needs 3
        (&[(5.0, 1.0), (5.0, 2.0), (5.0, 3.0)], false), // x constant
        (&[(1.0, 1.0), (2.0, 2.0), (3.0, 3.0)], true), // quadratic needs 4
        (&[(1.0, 1.0), (1.0, 2.0), (2.0, 3.0), (2.0, 4.0)], true), // quadratic: 2 distinct x
        (&[(1.0, 5.0), (2.0, 5.0), (3.0, 5.0), (4.0, 5.0)], true), // flat y: R² undefined
    ];
    for (points, linear_possible) in cases {
        assert_eq!(
            linear_fit(points).unwrap().is_some(),
            linear_possible,
            "{points:?}"
        );
        if points.len() < 4 {
            assert_eq!(quadratic_fit(points).unwrap(), None, "{points:?}");
        }
    }
    assert_eq!(
        quadratic_fit(&[(1.0, 1.0), (1.0, 2.0), (2.0, 3.0), (2.0, 4.0)]).unwrap(),
        None
    );
    let flat = linear_fit(&[(1.0, 5.0), (2.0, 5.0), (3.0, 5.0)])
        .unwrap()
        .unwrap();
    assert_eq!(flat.r_squared, None);
    assert_close!(flat.intercept, 5.0);
}

#[test]
fn histogram_equal_width() {
    // min 80, max 400, 4 bins of width 80: [80,160) [160,240) [240,320) [320,400].
    let bins = histogram(&SAMPLE_MS, 4).unwrap().unwrap();
    let counts: Vec<usize> = bins.iter().map(|b| b.count).collect();
    assert_eq!(counts, [9, 0, 0, 1]);
    assert_close!(bins[1].start, 160.0);
    assert_close!(bins[3].end, 400.0);
    let one = histogram(&[7.0, 7.0], 3).unwrap().unwrap();
    assert_eq!(one.len(), 1);
    assert_eq!(one[0].count, 2);
    assert_eq!(histogram(&[1.0], 0).unwrap(), None);
}

#[test]
fn empirical_cdf_merges_ties() {
    let cdf = empirical_cdf(&[3.0, 1.0, 2.0, 2.0]).unwrap();
    let pairs: Vec<(f64, f64)> = cdf.iter().map(|p| (p.value, p.fraction)).collect();
    assert_eq!(pairs, [(1.0, 0.25), (2.0, 0.75), (3.0, 1.0)]);
}
