//! Tests of the statistical helpers themselves (STYLE (b) 11: shared helpers have tests).

mod common;
use common::stat::*;

/// The bisection in `binomial_interval` lands on the counts of the step-by-step walk out from the
/// rounded mean (its former implementation), across sample sizes, rates (including the ends of
/// the support) and levels.
#[test]
fn stat_helper_binomial_interval_equals_the_walk_from_the_mean() {
    let walk = |n: u64, p: f64, alpha: f64| {
        let mean = (n as f64 * p).round() as u64;
        let below = |l: u64| if l == 0 { 0.0 } else { binomial_lower_tail(n, p, l - 1) };
        let mut lo = mean;
        while lo > 0 && below(lo) > alpha / 2.0 {
            lo -= 1;
        }
        let mut hi = mean;
        while hi < n && binomial_upper_tail(n, p, hi + 1) > alpha / 2.0 {
            hi += 1;
        }
        (lo, hi)
    };
    for n in [1u64, 7, 100, 2000, 100_000] {
        for p in [0.0, 1e-6, 0.001, 0.02, 0.3, 0.5, 0.77, 0.999, 1.0] {
            for alpha in [ALPHA, 0.05, 0.5] {
                assert_eq!(binomial_interval(n, p, alpha), walk(n, p, alpha), "n {n}, p {p}, alpha {alpha}");
            }
        }
    }
}

#[test]
fn stat_helper_binomial_interval_has_the_promised_tails() {
    let (n, p) = (10_000, 0.3);
    let (lo, hi) = binomial_interval(n, p, ALPHA);
    // P(X < lo) ≤ α/2 and P(X > hi) ≤ α/2 ...
    assert!(binomial_lower_tail(n, p, lo - 1) <= ALPHA / 2.0);
    assert!(binomial_upper_tail(n, p, hi + 1) <= ALPHA / 2.0);
    // ... and the interval is tight: one step narrower on either side breaks the promise.
    assert!(binomial_lower_tail(n, p, lo) > ALPHA / 2.0);
    assert!(binomial_upper_tail(n, p, hi) > ALPHA / 2.0);
    // lower and upper tails are complementary (statrs' regularised beta is accurate to ~2e-12
    // absolute at these parameters: negligible next to the 5e-7 tails the tests use)
    assert!((binomial_lower_tail(n, p, 2999) + binomial_upper_tail(n, p, 3000) - 1.0).abs() < 1e-10);
}

#[test]
fn stat_helper_binomial_tail_matches_direct_sum() {
    // n = 20, p = 0.3: P(X >= 10) by summing the pmf.
    let (n, p, k) = (20u64, 0.3f64, 10u64);
    let direct: f64 = (k..=n)
        .map(|i| statrs::function::factorial::binomial(n, i) * p.powi(i as i32) * (1.0 - p).powi((n - i) as i32))
        .sum();
    assert!((binomial_upper_tail(n, p, k) - direct).abs() < 1e-13, "{direct}");
}

#[test]
fn stat_helper_chi_square_interval_contains_the_mean() {
    // χ²₁₀₀₀: mean 1000, sd √2000 ≈ 44.7; the 5e-7 quantiles are ≈ ±5 sd (plus skew).
    let (lo, hi) = chi_square_interval(1000, ALPHA);
    assert!(lo < 1000.0 && 1000.0 < hi, "{lo} {hi}");
    assert!((hi - lo) > 2.0 * 4.5 * 44.7 && (hi - lo) < 2.0 * 5.5 * 44.7, "{lo} {hi}");
}
