//! Input checks shared by every paper's bounds (not public): the logarithms the theorems use,
//! finiteness of inputs and results, and the harmonic number.

use crate::error::{Error, Result, check};

/// `ln(1/δ)` for `δ ∈ (0, 1)`.
pub(crate) fn ln_inv_delta(delta: f64) -> Result<f64> {
    Ok(-check::open_unit("delta", delta)?.ln())
}

/// `ln n` for a sample size `n ≥ 2` (named `name` in the error).
pub(crate) fn ln_n(name: &'static str, n: u64) -> Result<f64> {
    if n >= 2 { Ok((n as f64).ln()) } else { Err(Error::invalid(name, n, ">= 2 (the bound uses ln n)")) }
}

/// A finite real (of any sign).
pub(crate) fn finite(name: &'static str, x: f64) -> Result<f64> {
    if x.is_finite() { Ok(x) } else { Err(Error::invalid(name, x, "finite")) }
}

/// A result that must be finite; an overflow is reported, never returned as ∞ or NaN.
pub(crate) fn finite_result(what: &'static str, x: f64) -> Result<f64> {
    if x.is_finite() {
        Ok(x)
    } else {
        Err(Error::Numerical { what, reason: format!("the value {x} is not representable in f64 (vacuous bound)") })
    }
}

/// `Σ_{k=1}^{m} 1/√k` (`m ≥ 1`): summed exactly (smallest terms first) up to `m = 10⁶`, beyond
/// that Euler–Maclaurin's `2√m + ζ(1/2) + 1/(2√m) − 1/(24 m^{3/2})` (next term `O(m^{−7/2})`, below
/// `1e-20` there), so `m` up to `u64::MAX` costs O(1).
pub(crate) fn harmonic_half(m: u64) -> f64 {
    if m <= 1_000_000 {
        (1..=m).rev().map(|k| 1.0 / (k as f64).sqrt()).sum()
    } else {
        const ZETA_HALF: f64 = -1.460_354_508_809_586_8;
        let x = m as f64;
        let r = x.sqrt();
        2.0 * r + ZETA_HALF + 0.5 / r - 1.0 / (24.0 * x * r)
    }
}

/// The harmonic number `H_m = Σ_{i=1}^{m} 1/i` (`m ≥ 1`): summed exactly (smallest terms first)
/// up to `m = 10⁶`, beyond that `ln m + γ + 1/(2m) − 1/(12m²)` (error below `1/(120 m⁴)`).
pub(crate) fn harmonic(m: u64) -> f64 {
    if m <= 1_000_000 {
        (1..=m).rev().map(|i| 1.0 / i as f64).sum()
    } else {
        const EULER_GAMMA: f64 = 0.577_215_664_901_532_9;
        let x = m as f64;
        x.ln() + EULER_GAMMA + 1.0 / (2.0 * x) - 1.0 / (12.0 * x * x)
    }
}
