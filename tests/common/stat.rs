//! Acceptance regions for statistical tests with a derived false-failure probability.
//!
//! Every helper returns an interval `[lo, hi]` such that a correct implementation's statistic
//! falls outside it with probability at most `ALPHA` (two-sided: `ALPHA/2` per tail), computed
//! from exact quantiles of the statistic's distribution (statrs), not from normal approximations
//! (STYLE (c) 1). The helpers check their own quantiles against the CDF before returning.

use statrs::distribution::{ChiSquared, ContinuousCDF, Gamma};

/// The false-failure probability of every statistical test in the suite.
pub const ALPHA: f64 = 1e-6;

fn checked_quantiles<D: ContinuousCDF<f64, f64>>(d: &D, alpha: f64) -> (f64, f64) {
    let (lo, hi) = (d.inverse_cdf(alpha / 2.0), d.inverse_cdf(1.0 - alpha / 2.0));
    // The quantile routines are iterative; verify the tail masses they promise (to 1%).
    let (pl, ph) = (d.cdf(lo), 1.0 - d.cdf(hi));
    assert!(pl <= alpha / 2.0 * 1.01 && ph <= alpha / 2.0 * 1.01, "quantile check failed: {pl} {ph}");
    (lo, hi)
}

/// Σ_{i<n} Z_i²/s² for Z_i ~ N(0, s²) is χ²_n: the two-sided acceptance interval of that sum.
pub fn chi_square_interval(n: u64, alpha: f64) -> (f64, f64) {
    checked_quantiles(&ChiSquared::new(n as f64).expect("valid df"), alpha)
}

/// Σ_{i<n} |L_i| for L_i ~ Laplace(b) is Gamma(shape n, scale b): the two-sided interval.
pub fn gamma_sum_interval(n: u64, scale: f64, alpha: f64) -> (f64, f64) {
    checked_quantiles(&Gamma::new(n as f64, 1.0 / scale).expect("valid gamma"), alpha)
}

/// `P(X ≥ k)` for X ~ Binomial(n, p), via the regularised incomplete beta `I_p(k, n−k+1)`.
pub fn binomial_upper_tail(n: u64, p: f64, k: u64) -> f64 {
    if k == 0 {
        return 1.0;
    }
    if k > n {
        return 0.0;
    }
    statrs::function::beta::beta_reg(k as f64, (n - k + 1) as f64, p)
}

/// `P(X ≤ k)` for X ~ Binomial(n, p), via `I_{1−p}(n−k, k+1)` (no cancellation near 1).
pub fn binomial_lower_tail(n: u64, p: f64, k: u64) -> f64 {
    if k >= n {
        return 1.0;
    }
    statrs::function::beta::beta_reg((n - k) as f64, (k + 1) as f64, 1.0 - p)
}

/// Two-sided acceptance interval `[lo, hi]` of counts for Binomial(n, p): the largest `lo` with
/// `P(X < lo) ≤ α/2` and the smallest `hi` with `P(X > hi) ≤ α/2`.
///
/// Both tails are monotone in the count, so each end is found by bisection between the rounded
/// mean and the end of the support (about 2·log₂ n tail evaluations instead of one per count
/// between the mean and the quantile, thousands at n = 10⁶): the counts a step-by-step walk out
/// from the mean would stop at.
pub fn binomial_interval(n: u64, p: f64, alpha: f64) -> (u64, u64) {
    let mean = (n as f64 * p).round() as u64;
    let below = |l: u64| if l == 0 { 0.0 } else { binomial_lower_tail(n, p, l - 1) }; // P(X < l)
    // lo: `below(l) ≤ α/2` holds on [0, L] (below(0) = 0); the answer is min(mean, L).
    let lo = if below(mean) <= alpha / 2.0 {
        mean
    } else {
        let (mut good, mut bad) = (0, mean);
        while bad - good > 1 {
            let mid = good + (bad - good) / 2;
            if below(mid) <= alpha / 2.0 { good = mid } else { bad = mid }
        }
        good
    };
    // hi: `P(X > h) ≤ α/2` holds on [H, n]; the answer is max(mean, H).
    let above_ok = |h: u64| h >= n || binomial_upper_tail(n, p, h + 1) <= alpha / 2.0;
    let hi = if above_ok(mean) {
        mean
    } else {
        let (mut bad, mut good) = (mean, n);
        while good - bad > 1 {
            let mid = bad + (good - bad) / 2;
            if above_ok(mid) { good = mid } else { bad = mid }
        }
        good
    };
    (lo, hi)
}

/// Pearson's statistic Σ (O_i − E_i)²/E_i and its χ²_{k−1} acceptance upper limit at `alpha`
/// (one-sided: only large values reject a goodness-of-fit null).
pub fn pearson_statistic(counts: &[u64], probs: &[f64]) -> (f64, f64) {
    let n: u64 = counts.iter().sum();
    let stat = counts
        .iter()
        .zip(probs)
        .map(|(&o, &p)| {
            let e = n as f64 * p;
            (o as f64 - e).powi(2) / e
        })
        .sum();
    let d = ChiSquared::new((counts.len() - 1) as f64).expect("valid df");
    (stat, d.inverse_cdf(1.0 - ALPHA))
}
