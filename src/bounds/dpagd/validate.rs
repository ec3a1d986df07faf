//! Input checks and the comparison slack shared by the files of the \[ZCHWB\] bounds (not public).

use crate::error::{Error, Result, check};

/// Relative slack allowed when a caller's parameter is compared with a cap computed here (the
/// caller typically computes `η = x*·ν/L` in floating point, a few roundings away).
pub(super) const CAP_SLACK: f64 = 1e-12;

/// `ln(1/δ)` for `δ ∈ (0, 1)`.
pub(super) fn ln_inv_delta(delta: f64) -> Result<f64> {
    Ok(-check::open_unit("delta", delta)?.ln())
}

/// A finite real (of any sign).
pub(super) fn finite(name: &'static str, x: f64) -> Result<f64> {
    if x.is_finite() { Ok(x) } else { Err(Error::invalid(name, x, "finite")) }
}

pub(super) fn check_beta1(beta1: f64) -> Result<f64> {
    if (0.0..1.0).contains(&beta1) { Ok(beta1) } else { Err(Error::invalid("beta1", beta1, "in [0, 1)")) }
}
