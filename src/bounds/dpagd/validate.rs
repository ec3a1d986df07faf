//! Input checks and the comparison slack shared by the files of the \[ZCHWB\] bounds (not public).

pub(super) use crate::bounds::validate::{finite, finite_result, ln_inv_delta};
use crate::error::{Error, Result};

/// Relative slack allowed when a caller's parameter is compared with a cap computed here (the
/// caller typically computes `η = x*·ν/L` in floating point, a few roundings away).
pub(super) const CAP_SLACK: f64 = 1e-12;

pub(super) fn check_beta1(beta1: f64) -> Result<f64> {
    if (0.0..1.0).contains(&beta1) { Ok(beta1) } else { Err(Error::invalid("beta1", beta1, "in [0, 1)")) }
}
