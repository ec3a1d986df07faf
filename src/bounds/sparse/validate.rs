//! Input checks shared by the files of the \[GGKKM\] bounds (not public).

use crate::error::{Error, Result, check};

/// `ln(1/δ)` for `δ ∈ (0, 1)`.
pub(super) fn ln_inv_delta(delta: f64) -> Result<f64> {
    Ok(-check::open_unit("delta", delta)?.ln())
}

/// `ln(1/β)` for `β ∈ (0, 1)`.
pub(super) fn ln_inv_beta(beta: f64) -> Result<f64> {
    Ok(-check::open_unit("beta", beta)?.ln())
}

/// A sparsity `1 ≤ s ≤ d` (both counts); returns `(s, d)` as floats.
pub(super) fn sparsity(s: u64, d: u64) -> Result<(f64, f64)> {
    let d = check::count("d", d)?;
    let s = check::count("s", s)?;
    if s > d {
        return Err(Error::invalid("s", s, "<= d"));
    }
    Ok((s as f64, d as f64))
}

/// A sparsity `1 ≤ s < d`, for bounds with `ln(d/s)` (which is 0 at `s = d`); returns
/// `(s, d, ln(d/s))`.
pub(super) fn strict_sparsity(s: u64, d: u64) -> Result<(f64, f64, f64)> {
    let (sf, df) = sparsity(s, d)?;
    if s >= d {
        return Err(Error::invalid("s", s, "< d (the bound uses ln(d/s))"));
    }
    Ok((sf, df, (df / sf).ln()))
}

/// ε for the classical Gaussian calibration `σ = Δ√(2 ln(1.25/δ))/ε`, valid for `ε ∈ (0, 1]`.
pub(super) fn gaussian_epsilon(epsilon: f64) -> Result<f64> {
    if epsilon > 0.0 && epsilon <= 1.0 {
        Ok(epsilon)
    } else {
        Err(Error::invalid("epsilon", epsilon, "in (0, 1] (classical Gaussian calibration)"))
    }
}

/// `ln n` for a sample size `n ≥ 2`.
pub(super) fn ln_n(n: u64) -> Result<f64> {
    if n >= 2 { Ok((n as f64).ln()) } else { Err(Error::invalid("n", n, ">= 2 (the bound uses ln n)")) }
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
