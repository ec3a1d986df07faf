//! Zero-concentrated DP (ρ-zCDP, Bun & Steinke 2016) to (ε, δ), by the optimal conversion of
//! Canonne, Kamath, Steinke 2020 (arXiv 2004.00010v5, Prop. 12 applied to the RDP curve
//! `τ_α = αρ`):
//!
//! `δ(ε) = inf_{α>1} exp((α−1)(αρ − ε)) · (1 − 1/α)^{α−1} / α`, and
//! `ε(δ) = inf_{α>1} αρ + ln(1 − 1/α) − (ln δ + ln α)/(α − 1)`.
//!
//! Both objectives are smooth in α; their minimisers solve `(2α−1)ρ − ε + ln(1 − 1/α) = 0` and
//! `ρ(α−1)² + ln(δα) = 0` respectively (each left side increasing in α). Any α gives a valid
//! bound, so the root is found to adjacent floats and the objective at it is rounded up.
//! Proof: proofs/accounting/zcdp_conversion.md.

use crate::error::{Result, check};
use crate::special::{bracket_root, div_up, mul_down};

const U: f64 = f64::EPSILON / 2.0;

fn bracket_increasing(what: &'static str, g: impl Fn(f64) -> f64) -> Result<f64> {
    let mut hi = 2.0;
    while g(hi) < 0.0 {
        hi *= 2.0;
    }
    // α ∈ (1, hi]; work in x = α − 1 so that the lower end can approach 1 without rounding to it.
    let b = bracket_root(what, |x| Ok(g(1.0 + x)), f64::MIN_POSITIVE.max(1e-300), hi - 1.0, |_| false)?;
    Ok(1.0 + 0.5 * (b.lo + b.hi))
}

/// `ln` of the CKS objective `exp((α−1)(αρ−ε))·(1−1/α)^{α−1}/α` and the magnitude of its terms.
fn log_delta_at(rho: f64, epsilon: f64, alpha: f64) -> (f64, f64) {
    let am1 = alpha - 1.0;
    let (c1, c2, c3) = (am1 * (alpha * rho - epsilon), am1 * (-1.0 / alpha).ln_1p(), alpha.ln());
    // |c1|'s rounding is relative to its factors' magnitudes, not to |c1| (αρ and ε may cancel)
    (c1 + c2 - c3, am1 * (alpha * rho + epsilon) + c2.abs() + c3)
}

/// Upper bound on δ(ε) for a ρ-zCDP mechanism (optimal conversion).
///
/// # Errors
/// `InvalidParameter` for ρ < 0 or ε < 0 (NaN, ∞ included).
pub fn delta_for_epsilon(rho: f64, epsilon: f64) -> Result<f64> {
    check::non_negative("rho", rho)?;
    check::non_negative("epsilon", epsilon)?;
    if rho == 0.0 {
        return Ok(0.0);
    }
    let alpha = bracket_increasing("zCDP delta", |a| (2.0 * a - 1.0) * rho - epsilon + (-1.0 / a).ln_1p())?;
    if alpha == 1.0 {
        return Ok(1.0); // α − 1 below 2⁻⁵³ (ρ ≳ 1e32): no α > 1 is representable near the root
    }
    let (l, mag) = log_delta_at(rho, epsilon, alpha);
    let delta = (l + 4.0 * U * mag).exp().next_up();
    Ok(if delta.is_nan() { 1.0 } else { delta.min(1.0) })
}

/// Upper bound on ε(δ) for a ρ-zCDP mechanism (optimal conversion); +∞ where none can be
/// evaluated (never NaN, never a NaN read as 0).
///
/// # Errors
/// `InvalidParameter` for ρ < 0 or NaN, or δ ∉ (0, 1). ρ = +∞ (what [`gaussian_rho`] returns
/// for a z so small that ρ overflows) gives +∞.
pub fn epsilon_for_delta(rho: f64, delta: f64) -> Result<f64> {
    check::open_unit("delta", delta)?;
    if rho == f64::INFINITY {
        return Ok(f64::INFINITY);
    }
    check::non_negative("rho", rho)?;
    if rho == 0.0 {
        return Ok(0.0);
    }
    let ln_delta = delta.ln();
    let alpha = bracket_increasing("zCDP epsilon", |a| rho * (a - 1.0) * (a - 1.0) + ln_delta + a.ln())?;
    let am1 = alpha - 1.0;
    if am1 == 0.0 {
        // α − 1 below 2⁻⁵³ (ρ ≳ 1e32): 1/(α − 1) is not representable at the root, and ε ≥ ρ is
        // astronomically large anyway; +∞ is the bound (it once read NaN, then 0 through `max`)
        return Ok(f64::INFINITY);
    }
    let (c1, c2, c3) = (alpha * rho, (-1.0 / alpha).ln_1p(), (ln_delta + alpha.ln()) / am1);
    let eps = (c1 + c2 - c3 + 4.0 * U * (c1 + c2.abs() + c3.abs())).next_up();
    Ok(if eps.is_nan() { f64::INFINITY } else { eps.max(0.0) })
}

/// ρ of the Gaussian mechanism with multiplier z: `ρ = 1/(2z²)`, rounded **up** for every
/// positive finite z. z is first scaled by 2^∓600 when it lies outside [2⁻⁵⁰⁰, 2⁵⁰⁰], so that z²
/// and the quotient stay normal and [`div_up`]/[`mul_down`] are exact in direction; the scale
/// comes back as an exact power of two, and a result that lands subnormal (or 0) is raised one
/// ulp. (`(0.5/(z·z)).next_up()` read the least subnormal for z > 1.34e154, where z·z overflows,
/// below the true ρ ≈ 2.8e-309 at z = 1.34e154.) ∞ for z so small that ρ overflows.
///
/// # Errors
/// `InvalidParameter` for z ≤ 0.
pub fn gaussian_rho(noise_multiplier: f64) -> Result<f64> {
    let z = check::positive("sigma", noise_multiplier)?;
    let (split, half_scale) = (2f64.powi(500), 2f64.powi(600));
    // z·2^∓600, and the factor 2^∓600 that comes back twice (2^±1200 is not an f64)
    let (w, back) = if z > split {
        (z / half_scale, 1.0 / half_scale)
    } else if z < 1.0 / split {
        (z * half_scale, half_scale)
    } else {
        (z, 1.0)
    };
    let rho = div_up(0.5, mul_down(w, w)) * back * back;
    Ok(if rho < f64::MIN_POSITIVE { rho.next_up() } else { rho })
}
