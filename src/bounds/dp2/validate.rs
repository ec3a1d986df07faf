//! Input checks and the comparison slack shared by the files of the \[LZLRMS\] bounds (not public).

use crate::error::{Error, Result};

/// Relative slack allowed when a caller's parameter is compared with a cap computed here (the
/// caller typically computes `α = min(ε, 1)/L` in floating point, a few roundings away).
pub(super) const CAP_SLACK: f64 = 1e-12;

/// A finite real (of any sign).
pub(super) fn finite(name: &'static str, x: f64) -> Result<f64> {
    if x.is_finite() { Ok(x) } else { Err(Error::invalid(name, x, "finite")) }
}

/// A result that must be finite; an overflow is reported, never returned as ∞.
pub(super) fn finite_result(what: &'static str, x: f64) -> Result<f64> {
    if x.is_finite() {
        Ok(x)
    } else {
        Err(Error::Numerical { what, reason: format!("the value {x} is not representable in f64 (vacuous bound)") })
    }
}
