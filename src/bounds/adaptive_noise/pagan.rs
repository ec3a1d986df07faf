//! PAGAN's utility (\[ADFJT\] Alg. 2): Thm. 9 with explicit constants and as printed, and
//! Thm. 2, its tuned clip radius and printed rate.

use super::diameters::trace_c_inv_sqrt;
use super::terms::{ExplicitBound, ExplicitCommon, RateRun, RateSetting, RateTerms, TunedRateTerms};
use super::validate::{check_c, check_vector, finite_result};
use crate::error::{Error, Result, check};

/// Inputs of [`pagan_bound_explicit`] (expectations over the algorithm's randomness).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PaganExplicitInputs<'a> {
    /// `Σ_{k=0}^{T−1} E(g̃ⱼᵏ)²` for each coordinate `j = 1..d` (each `≥ 0`).
    pub sum_sq_g_tilde_per_coordinate: &'a [f64],
    /// D∞ ≥ 0.
    pub diam_inf: f64,
    /// T, s, B, C (of length d), D_{C⁻¹}, α (theory: D∞) and the clipping bias.
    pub common: ExplicitCommon<'a>,
}

/// \[ADFJT\] Thm. 9 (printed "Algorithm 1"; it is Alg. 2, erratum E6), explicit-constant
/// version (derived in `proofs/adaptive_noise/pagan.md` §4; radial projection, `x̄` over `k = 0..T−1`, any `u ∈ X`):
///
/// ```text
/// E[f(x̄) − f(u)] ≤ ((D∞²/(2α) + α)/T) · Σⱼ (Σ_{k<T} E(g̃ⱼᵏ)² + T s² B²/Cⱼⱼ)^{1/2}
///                  + D_{C⁻¹} · (1/n) Σᵢ (G(zᵢ; C) − B)₊
/// ```
///
/// It is (R-ADA) with the corrected constant (erratum E3), per-coordinate Jensen, and
/// `E(ξⱼ)² = s²B²/Cⱼⱼ` with zero cross terms: tighter than the paper's factor 2 in eq. (18)–(20).
///
/// # Errors
/// `InvalidParameter` for any input outside its documented range, or per-coordinate sums and
/// `C` of different lengths; `Empty`/`NonFinite` for bad per-coordinate sums.
pub fn pagan_bound_explicit(inputs: &PaganExplicitInputs<'_>) -> Result<ExplicitBound> {
    let i = inputs;
    check_vector("sum_sq_g_tilde_per_coordinate", i.sum_sq_g_tilde_per_coordinate)?;
    if let Some(&v) = i.sum_sq_g_tilde_per_coordinate.iter().find(|v| **v < 0.0) {
        return Err(Error::invalid("sum_sq_g_tilde_per_coordinate", v, ">= 0 (sums of squares)"));
    }
    let t = i.common.check()?;
    check_c(i.common.ellipsoid_c, Some(i.sum_sq_g_tilde_per_coordinate.len()))?;
    check::non_negative("diam_inf", i.diam_inf)?;
    let (s, b) = (i.common.noise_std_s, i.common.clip_radius_b);
    let energy: f64 = i
        .sum_sq_g_tilde_per_coordinate
        .iter()
        .zip(i.common.ellipsoid_c)
        .map(|(sum_j, c)| (sum_j + t * s * s * b * b / c).sqrt())
        .sum();
    i.common.bound(i.diam_inf, t, energy)
}

/// \[ADFJT\] Thm. 9 as printed, with its `O(1)` set to 1 — **trend use only** (explicit form:
/// [`pagan_bound_explicit`]):
///
/// ```text
/// optimization = (D∞/T)·Σⱼ E(Σ_{k=1}^T (gⱼᵏ)²)^{1/2}
/// noise        = D∞·B·(log(1/δ))^{1/2}·tr(C^{−1/2})/(nε)
/// clipping     = D_{C⁻¹}·(2G_{2p}(C))^p/((p − 1)B^{p−1})
/// ```
///
/// # Errors
/// `InvalidParameter` for any input outside its documented range.
pub fn pagan_rate_printed_unit_constant(
    setting: &RateSetting<'_>,
    run: &RateRun,
    clip_radius_b: f64,
) -> Result<RateTerms> {
    let t = setting.check_run(run, "diam_inf", "sum_root_sum_sq_g")?;
    let b = check::positive("clip_radius_b", clip_radius_b)?;
    setting.rate_terms(run.diam, b, privacy_constant(setting)?, run.diam / t * run.gradient_statistic)
}

/// The clip radius of \[ADFJT\] Thm. 2:
/// `B = 2G_{2p}(C)·(D_{C⁻¹}·nε/(D∞·log(1/δ)^{1/2}·tr(C^{−1/2})))^{1/p}`; the exact minimiser
/// over B of Thm. 9's `noise + clipping`, with the same `2E` and `2E/(p − 1)` split as
/// [`pasan_tuned_clip_radius`](super::pasan_tuned_clip_radius).
///
/// # Errors
/// `InvalidParameter` for any input outside its documented range.
pub fn pagan_tuned_clip_radius(setting: &RateSetting<'_>, diam_inf: f64) -> Result<f64> {
    setting.check_with_diameter("diam_inf", diam_inf)?;
    finite_result("pagan_tuned_clip_radius", setting.tuned_clip_radius(diam_inf, privacy_constant(setting)?))
}

/// \[ADFJT\] Thm. 2 as printed, `O(1)` set to 1 — **trend use only**:
///
/// ```text
/// optimization = (D∞/T)·Σⱼ E(Σ_{k=1}^T (gⱼᵏ)²)^{1/2}
/// privacy      = D∞·G_{2p}(C)·(log(1/δ)^{1/2}·tr(C^{−1/2})/(nε))^{(p−1)/p}·(D_{C⁻¹}/D∞)^{1/p}
/// ```
///
/// # Errors
/// `InvalidParameter` for any input outside its documented range.
pub fn pagan_tuned_rate_printed_unit_constant(setting: &RateSetting<'_>, run: &RateRun) -> Result<TunedRateTerms> {
    let t = setting.check_run(run, "diam_inf", "sum_root_sum_sq_g")?;
    setting.tuned_rate_terms(run.diam, privacy_constant(setting)?, run.diam / t * run.gradient_statistic)
}

/// PAGAN's privacy constant `K = log(1/δ)^{1/2}·tr(C^{−1/2})`.
fn privacy_constant(setting: &RateSetting<'_>) -> Result<f64> {
    finite_result("pagan_privacy_constant", (1.0 / setting.delta).ln().sqrt() * trace_c_inv_sqrt(setting.ellipsoid_c)?)
}
