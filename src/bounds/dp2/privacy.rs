//! \[LZLRMS\] Thm. 1, DP²'s privacy statement (Sec. 3.2, restated from Abadi et al. 2016, Thm. 1).
//!
//! Both functions are the paper's printed expressions, kept for comparison and **not**
//! accounting: the theorem's constants `c1`, `c2` are never given, and the small-q expression is
//! a heuristic that can be below the true ε. DP²'s privacy is accounted by
//! [`crate::accounting`] from the events its runs return.

use super::validate::finite_result;
use crate::error::{Result, check};

fn privacy_args(q: f64, steps_t: u64, delta: f64) -> Result<(f64, f64, f64)> {
    let q = check::rate("q", q)?;
    let t = check::count("steps_t", steps_t)? as f64;
    let l = -check::open_unit("delta", delta)?.ln();
    Ok((q, t, l))
}

/// \[LZLRMS\] Thm. 1 (after Abadi et al. 2016) with the unspecified constant `c2 = 1` —
/// **trend use only, not a calibration**: `σ = q√(T ln(1/δ))/ε_p`, `q = b/n`. The theorem's
/// `c1, c2` are never given; calibrate σ with [`crate::accounting`].
///
/// # Errors
/// `InvalidParameter` for `q ∉ (0, 1]`, `T = 0`, `δ ∉ (0, 1)` or `ε_p ≤ 0`.
pub fn theorem1_sigma_unit_constant(q: f64, steps_t: u64, delta: f64, eps_priv: f64) -> Result<f64> {
    let (q, t, l) = privacy_args(q, steps_t, delta)?;
    let e = check::positive("eps_priv", eps_priv)?;
    finite_result("theorem1_sigma_unit_constant", q * (t * l).sqrt() / e)
}

/// The small-q heuristic `ε_p ≈ 2q√(T ln(1/δ))/σ` (from the small-q expansion
/// `ε_RDP(λ) ≈ q²λ/σ²` of the subsampled Gaussian's RDP).
/// **NOT A GUARANTEE: never use it as a bound or to report ε.** It can be below the true ε (it
/// drops the higher-order terms); the accountant in [`crate::accounting`] gives upper bounds.
///
/// # Errors
/// `InvalidParameter` for `q ∉ (0, 1]`, `T = 0`, `δ ∉ (0, 1)` or `σ ≤ 0`.
pub fn theorem1_epsilon_asymptotic_not_a_bound(q: f64, steps_t: u64, delta: f64, sigma: f64) -> Result<f64> {
    let (q, t, l) = privacy_args(q, steps_t, delta)?;
    let s = check::positive("sigma", sigma)?;
    finite_result("theorem1_epsilon_asymptotic_not_a_bound", 2.0 * q * (t * l).sqrt() / s)
}
