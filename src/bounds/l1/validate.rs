//! Input checks shared by the files of the \[AFKT\] bounds (not public).

use crate::error::{Error, Result, check};

/// `ln(1/δ)` for `δ ∈ (0, 1)`.
pub(super) fn ln_inv_delta(delta: f64) -> Result<f64> {
    Ok(-check::open_unit("delta", delta)?.ln())
}

/// `ln d` for a dimension `d ≥ 2` (the bounds divide by or multiply with `ln d`; at `d = 1` it
/// is 0 and the printed forms degenerate).
pub(super) fn ln_dim(name: &'static str, d: u64) -> Result<f64> {
    if d >= 2 { Ok((d as f64).ln()) } else { Err(Error::invalid(name, d, ">= 2 (the bound uses ln d)")) }
}

/// `ln n` for a sample size `n ≥ 2`.
pub(super) fn ln_n(name: &'static str, n: u64) -> Result<f64> {
    if n >= 2 { Ok((n as f64).ln()) } else { Err(Error::invalid(name, n, ">= 2 (the bound uses ln n)")) }
}

/// A result that must be finite; an overflow is reported, never returned as ∞ or NaN.
pub(super) fn finite_result(what: &'static str, x: f64) -> Result<f64> {
    if x.is_finite() {
        Ok(x)
    } else {
        Err(Error::Numerical { what, reason: format!("the value {x} is not representable in f64 (vacuous bound)") })
    }
}

/// The harmonic number `H_m = Σ_{i=1}^{m} 1/i` (`m ≥ 1`): summed exactly (smallest terms first)
/// up to `m = 10⁶`, beyond that `ln m + γ + 1/(2m) − 1/(12m²)` (error below `1/(120 m⁴)`).
pub(super) fn harmonic(m: u64) -> f64 {
    if m <= 1_000_000 {
        (1..=m).rev().map(|i| 1.0 / i as f64).sum()
    } else {
        const EULER_GAMMA: f64 = 0.577_215_664_901_532_9;
        let x = m as f64;
        x.ln() + EULER_GAMMA + 1.0 / (2.0 * x) - 1.0 / (12.0 * x * x)
    }
}
