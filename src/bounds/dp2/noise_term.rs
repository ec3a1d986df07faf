//! The noise terms that \[LZLRMS\] Cor. 1 compares: DP²'s, weighted by `E‖D^t‖₁`, and
//! DP-SGD's.

use super::NoiseSetting;
use super::convex::expected_noise_d_norm;
use super::validate::finite_result;
use crate::bounds::validate::harmonic_half;
use crate::error::{Error, Result, check};

/// \[LZLRMS\] Cor. 1, DP² noise term with `O(1) = 1`:
/// `(1/T) Σ_{t=1}^{T} (1/√t) E‖N^t‖²_{D^t} = (1/T) Σ_t (1/√t)(σ²C²/b²) E‖D^t‖₁`;
/// `d_l1_per_step[t−1] = E‖D^t‖₁` (`= d` in SGD steps).
///
/// # Errors
/// `InvalidParameter` for a negative entry; `Empty`; `NonFinite`.
pub fn corollary1_noise_term_dp2(noise: &NoiseSetting, d_l1_per_step: &[f64]) -> Result<f64> {
    if d_l1_per_step.is_empty() {
        return Err(Error::Empty { what: "d_l1_per_step" });
    }
    check::all_finite("d_l1_per_step", d_l1_per_step)?;
    let mut sum = 0.0;
    for (&dl1, t) in d_l1_per_step.iter().zip(1u64..) {
        sum += expected_noise_d_norm(noise, dl1)? / (t as f64).sqrt();
    }
    finite_result("corollary1_noise_term_dp2", sum / d_l1_per_step.len() as f64)
}

/// \[LZLRMS\] Cor. 1, the DP-SGD noise term it is compared with (`D = 1`):
/// `(1/T) Σ_{t=1}^{T} (1/√t) dσ²C²/b²`. DP²'s is smaller iff its `E‖D^t‖₁`-weighted sum is below
/// `d`'s.
///
/// # Errors
/// `InvalidParameter` for `d = 0` or `T = 0`.
pub fn corollary1_noise_term_dp_sgd(noise: &NoiseSetting, d: u64, steps_t: u64) -> Result<f64> {
    let d = check::count("d", d)? as f64;
    let t = check::count("steps_t", steps_t)?;
    let per = expected_noise_d_norm(noise, d)?;
    finite_result("corollary1_noise_term_dp_sgd", per * harmonic_half(t) / t as f64)
}
