//! The noise energy of \[ADFJT\] eq. (17), written in `C` and in `A = C/B²`.

use super::diameters::trace_c_inv;
use super::validate::finite_result;
use crate::error::{Error, Result, check};

/// The noise energy of \[ADFJT\] eq. (17): with `ĝ = g̃ + s·ξ`, `ξ ~ N(0, A⁻¹)`
/// independent of `g̃`, and `A = C/B²`,
/// `E‖ĝ‖₂² − E‖g̃‖₂² = s²·tr(A⁻¹) = s²B²·tr(C⁻¹)`. This function evaluates `s²B²·tr(C⁻¹)`;
/// [`noise_energy_gap_from_a`] evaluates `s²·tr(A⁻¹)`.
///
/// # Errors
/// `InvalidParameter` for `s < 0`, `B ≤ 0` or `Cⱼⱼ ≤ 0`; `Empty` for an empty `C`.
pub fn noise_energy_gap(noise_std_s: f64, clip_radius_b: f64, ellipsoid_c: &[f64]) -> Result<f64> {
    let s = check::non_negative("noise_std_s", noise_std_s)?;
    let b = check::positive("clip_radius_b", clip_radius_b)?;
    finite_result("noise_energy_gap", s * s * b * b * trace_c_inv(ellipsoid_c)?)
}

/// `s²·tr(A⁻¹) = s² Σⱼ 1/Aⱼⱼ` for a diagonal `A ≻ 0`: the same gap as [`noise_energy_gap`]
/// written in `A`.
///
/// # Errors
/// `InvalidParameter` for `s < 0` or `Aⱼⱼ ≤ 0`; `Empty` for an empty `A`.
pub fn noise_energy_gap_from_a(noise_std_s: f64, ellipsoid_a: &[f64]) -> Result<f64> {
    let s = check::non_negative("noise_std_s", noise_std_s)?;
    if ellipsoid_a.is_empty() {
        return Err(Error::Empty { what: "ellipsoid_a" });
    }
    if let Some(&v) = ellipsoid_a.iter().find(|v| !(v.is_finite() && **v > 0.0)) {
        return Err(Error::invalid("ellipsoid_a", v, "> 0 and finite (A is positive definite)"));
    }
    finite_result("noise_energy_gap_from_a", s * s * ellipsoid_a.iter().map(|a| 1.0 / a).sum::<f64>())
}
