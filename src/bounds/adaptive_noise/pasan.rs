//! PASAN's utility (\[ADFJT\] Alg. 1): Thm. 8 with explicit constants and as printed, and
//! Thm. 1, its tuned clip radius and printed rate.

use super::diameters::trace_c_inv;
use super::terms::{ExplicitBound, ExplicitCommon, RateRun, RateSetting, RateTerms, TunedRateTerms};
use super::validate::finite_result;
use crate::error::{Result, check};

/// Inputs of [`pasan_bound_explicit`] (expectations over the algorithm's randomness).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PasanExplicitInputs<'a> {
    /// `Σ_{k=0}^{T−1} E‖g̃ᵏ‖₂²`, the clipped (not noisy) mean gradients (erratum E5).
    pub sum_sq_norm_g_tilde: f64,
    /// D₂ ≥ 0.
    pub diam_2: f64,
    /// T, s, B, C, D_{C⁻¹}, α (theory: D₂) and the clipping bias.
    pub common: ExplicitCommon<'a>,
}

/// \[ADFJT\] Thm. 8, explicit-constant version (derived in `proofs/adaptive_noise/pasan.md` §4; radial projection,
/// `x̄ = (1/T) Σ_{k=0}^{T−1} xᵏ`, any `u ∈ X`, any `s ≥ 0`):
///
/// ```text
/// E[f(x̄) − f(u)] ≤ ((D₂²/(2α) + α)/T) · (Σ_{k<T} E‖g̃ᵏ‖₂² + T s² B² tr(C⁻¹))^{1/2}
///                  + D_{C⁻¹} · (1/n) Σᵢ (G(zᵢ; C) − B)₊
/// ```
///
/// It is Thm. 6 with (R-SGD), Jensen, and eq. (17)'s noise energy `s² tr(A⁻¹) = s²B² tr(C⁻¹)`
/// ([`noise_energy_gap`](super::noise_energy_gap)).
///
/// # Errors
/// `InvalidParameter` for any input outside its documented range (NaN, ∞ included).
pub fn pasan_bound_explicit(inputs: &PasanExplicitInputs<'_>) -> Result<ExplicitBound> {
    let i = inputs;
    check::non_negative("sum_sq_norm_g_tilde", i.sum_sq_norm_g_tilde)?;
    let t = i.common.check()?;
    check::non_negative("diam_2", i.diam_2)?;
    let (s, b) = (i.common.noise_std_s, i.common.clip_radius_b);
    let energy = (i.sum_sq_norm_g_tilde + t * s * s * b * b * trace_c_inv(i.common.ellipsoid_c)?).sqrt();
    i.common.bound(i.diam_2, t, energy)
}

/// \[ADFJT\] Thm. 8 as printed, with its `O(1)` set to 1 — **trend use only**: the theorem
/// gives no value for the constant (the explicit form is [`pasan_bound_explicit`]):
///
/// ```text
/// optimization = (D₂/T)·(Σ_{k=1}^T E‖gᵏ‖₂²)^{1/2}
/// noise        = D₂·B·(tr(C⁻¹) log(1/δ))^{1/2}/(nε)
/// clipping     = D_{C⁻¹}·(2G_{2p}(C))^p/((p − 1)B^{p−1})
/// ```
///
/// # Errors
/// `InvalidParameter` for any input outside its documented range.
pub fn pasan_rate_printed_unit_constant(
    setting: &RateSetting<'_>,
    run: &RateRun,
    clip_radius_b: f64,
) -> Result<RateTerms> {
    let t = setting.check_run(run, "diam_2", "sum_sq_norm_g")?;
    let b = check::positive("clip_radius_b", clip_radius_b)?;
    setting.rate_terms(run.diam, b, privacy_constant(setting)?, run.diam / t * run.gradient_statistic.sqrt())
}

/// The clip radius of \[ADFJT\] Thm. 1:
/// `B = 2G_{2p}(C)·(D_{C⁻¹}·nε/(D₂·tr(C⁻¹)^{1/2}·log(1/δ)^{1/2}))^{1/p}`.
/// It is the exact minimiser over B of Thm. 8's `noise + clipping`; there
/// `noise = 2·E` and `clipping = 2E/(p − 1)` with `E` the privacy term of
/// [`pasan_tuned_rate_printed_unit_constant`] (`proofs/adaptive_noise/pasan.md` §4), so `clipping/noise = 1/(p − 1)`.
///
/// # Errors
/// `InvalidParameter` for any input outside its documented range.
pub fn pasan_tuned_clip_radius(setting: &RateSetting<'_>, diam_2: f64) -> Result<f64> {
    setting.check_with_diameter("diam_2", diam_2)?;
    finite_result("pasan_tuned_clip_radius", setting.tuned_clip_radius(diam_2, privacy_constant(setting)?))
}

/// \[ADFJT\] Thm. 1 as printed, `O(1)` set to 1 — **trend use only**:
///
/// ```text
/// optimization = (D₂/T)·(Σ_{k=1}^T E‖gᵏ‖₂²)^{1/2}
/// privacy      = D₂·G_{2p}(C)·((tr(C⁻¹) log(1/δ))^{1/2}/(nε))^{(p−1)/p}·(D_{C⁻¹}/D₂)^{1/p}
/// ```
///
/// With the tuned B, Thm. 8's `noise + clipping = (2 + 2/(p − 1))·privacy = 2p/(p − 1)·privacy`:
/// the `O(1)` hides a factor that grows without bound as `p → 1`.
///
/// # Errors
/// `InvalidParameter` for any input outside its documented range.
pub fn pasan_tuned_rate_printed_unit_constant(setting: &RateSetting<'_>, run: &RateRun) -> Result<TunedRateTerms> {
    let t = setting.check_run(run, "diam_2", "sum_sq_norm_g")?;
    setting.tuned_rate_terms(run.diam, privacy_constant(setting)?, run.diam / t * run.gradient_statistic.sqrt())
}

/// PASAN's privacy constant `K = (tr(C⁻¹) log(1/δ))^{1/2}`.
fn privacy_constant(setting: &RateSetting<'_>) -> Result<f64> {
    finite_result("pasan_privacy_constant", (trace_c_inv(setting.ellipsoid_c)? * (1.0 / setting.delta).ln()).sqrt())
}
