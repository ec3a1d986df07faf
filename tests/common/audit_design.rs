//! Design bounds of Bonferroni audits: what `audit::epsilon_lower_bound` is guaranteed to certify
//! (with probability ≥ 1 − ALPHA) when the score's laws are known, so that a test asserting "the
//! certified bound is at least X" rests on a derivation and not on the luck of its seed.
//!
//! With n samples per side and the Bonferroni levels β/(4n) per count, evaluate the
//! Clopper–Pearson ε bound at each threshold u of a grid with the D-side count at its lower
//! ALPHA-quantile and the D′-side count at its upper ALPHA-quantile (exact binomial). The
//! Clopper–Pearson bound is monotone in both counts and the audit searches every threshold, so
//! the audit's bound is at least the best grid value except with probability ≤ 2·ALPHA per
//! threshold used — the maximum is attained at one threshold, whose two counts are the only
//! random quantities that matter for this lower estimate.

use super::stat::{ALPHA, binomial_interval};
use dpref::audit::threshold::epsilon_from_counts;
use dpref::special::normal_cdf;

/// The design bound for a score that is N(0, 1) on D′ and has upper tail `tpr(u) = P_D(score ≥ u)`
/// on D, thresholds u ∈ {0, 0.02, …, 12}.
pub fn design_bound_with(n: u64, tpr: &dyn Fn(f64) -> f64, beta: f64, delta: f64) -> f64 {
    design_bound_laws(n, tpr, &|u| normal_cdf(-u), beta, delta, ALPHA)
}

/// The design bound for any pair of score laws, given by their upper tails `tpr(u) = P_D(score ≥
/// u)` and `fpr(u) = P_D′(score ≥ u)`, thresholds u ∈ {0, 0.02, …, 12}, with each count at its
/// two-sided `alpha` quantile: the audit certifies at least this except with probability ≤ `alpha`
/// (`alpha/2` per count at the threshold attaining the maximum).
pub fn design_bound_laws(
    n: u64,
    tpr: &dyn Fn(f64) -> f64,
    fpr: &dyn Fn(f64) -> f64,
    beta: f64,
    delta: f64,
    alpha: f64,
) -> f64 {
    let level = beta / (4.0 * n as f64);
    (0..=600)
        .filter_map(|i| {
            let u = f64::from(i) * 0.02;
            let kp = binomial_interval(n, tpr(u), alpha).0;
            let kq = binomial_interval(n, fpr(u), alpha).1;
            epsilon_from_counts(kp, n, kq, n, level, level, delta, 1).expect("valid counts").map(|(e, _, _)| e)
        })
        .fold(0.0, f64::max)
}

/// [`design_bound_with`] for a Gaussian shift: N(μ, 1) on D against N(0, 1) on D′ (μ-GDP).
pub fn design_bound_gaussian(n: u64, mu: f64, beta: f64, delta: f64) -> f64 {
    design_bound_with(n, &|u| normal_cdf(mu - u), beta, delta)
}
