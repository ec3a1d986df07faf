//! A Gaussian-DP fit (Nasr et al. 2023, arXiv 2302.07956; Dong, Roth, Su 2019 Eq. 6): the μ of
//! the Gaussian trade-off curve through the attack's (FPR, FNR) pairs, `μ = Φ⁻¹(1 − FPR) −
//! Φ⁻¹(FNR)`, converted to ε at δ with the μ-GDP curve.
//!
//! This is an **estimate**: it is a valid lower bound only if the mechanism's trade-off curve is
//! exactly Gaussian, which nothing checks (it is asymptotic for composed mechanisms). Unlike
//! jax_privacy's `epsilon_from_gdp`, which takes |Φ⁻¹(1 − FPR) − Φ⁻¹(FNR)| of one orientation (so
//! that the reverse orientation runs on *lower* bounds of its error rates and identical samples
//! can give μ ≈ 1.5 at 1000 per side), each orientation here uses upper bounds on its own rates.
//! Its type,
//! [`GdpEstimate`], has no conversion to [`super::EpsilonLowerBound`] and its fields are named
//! `*_estimate`, so it cannot be reported as a certified bound by accident. The rates used are
//! Clopper–Pearson upper bounds with a Bonferroni correction over the bounds evaluated.
//! Proof: proofs/audit/gdp_estimate.md.

use super::binomial::clopper_pearson_upper;
use super::threshold::sorted_finite;
use crate::accounting::gdp;
use crate::error::{Error, Result, check};
use crate::special::normal_quantile;
use serde::Serialize;

/// A μ-GDP fit: an estimate, not a certified bound.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct GdpEstimate {
    /// Estimated μ.
    pub mu_estimate: f64,
    /// ε at `delta` of μ-GDP with that μ (an estimate).
    pub epsilon_estimate: f64,
    /// δ.
    pub delta: f64,
}

/// Fits μ to the scores `a` (D) and `b` (D′) at significance `significance`.
///
/// # Errors
/// `Empty`/`NonFinite` scores; `InvalidParameter` for significance ∉ (0, 0.5) or δ ∉ (0, 1).
pub fn gdp_estimate(a: &[f64], b: &[f64], significance: f64, delta: f64) -> Result<GdpEstimate> {
    if !(significance > 0.0 && significance < 0.5) {
        return Err(Error::invalid("significance", significance, "in (0, 0.5)"));
    }
    check::open_unit("delta", delta)?;
    let sa = sorted_finite("samples of A", a)?;
    let sb = sorted_finite("samples of B", b)?;
    let (na, nb) = (sa.len() as u64, sb.len() as u64);
    // Thresholds: up to 512 pooled quantiles (a fixed number: the Bonferroni count is known).
    let mut pooled: Vec<f64> = sa.iter().chain(sb.iter()).copied().collect();
    pooled.sort_unstable_by(f64::total_cmp);
    let m = 512.min(pooled.len());
    // Two orientations × two rates per threshold: Bonferroni over 4m upper bounds.
    let level = significance / (4.0 * m as f64);
    let mut mu: f64 = 0.0;
    for j in 0..m {
        let t = pooled[(j * (pooled.len() - 1)) / (m - 1).max(1)];
        let (a_below, b_below) = (sa.partition_point(|&x| x < t) as u64, sb.partition_point(|&x| x < t) as u64);
        // Orientation "A if s ≥ t": FNR = P_A(s < t), FPR = P_B(s ≥ t); the other orientation
        // swaps the roles. Each uses *upper* bounds on its own two error rates (taking |μ| of
        // one orientation would use lower bounds for the other, which is anti-conservative).
        for (fn_count, n_fn, fp_count, n_fp) in [(a_below, na, nb - b_below, nb), (b_below, nb, na - a_below, na)] {
            let fnr = clopper_pearson_upper(fn_count, n_fn, level)?;
            let fpr = clopper_pearson_upper(fp_count, n_fp, level)?;
            if fnr.max(fpr) >= 1.0 - delta {
                continue;
            }
            mu = mu.max(normal_quantile(1.0 - fpr) - normal_quantile(fnr));
        }
    }
    let epsilon_estimate = if mu > 0.0 { gdp::epsilon_for_delta(mu, delta)? } else { 0.0 };
    Ok(GdpEstimate { mu_estimate: mu, epsilon_estimate, delta })
}
