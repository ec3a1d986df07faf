//! Input checks shared by the files of the \[GGKKM\] bounds (not public).

pub(super) use crate::bounds::validate::{finite_result, harmonic, ln_inv_delta, ln_n};
use crate::error::{Error, Result, check};

/// `ln(1/β)` for `β ∈ (0, 1)`.
pub(super) fn ln_inv_beta(beta: f64) -> Result<f64> {
    Ok(-check::open_unit("beta", beta)?.ln())
}

/// A sparsity `1 ≤ s ≤ d` (both counts; `d` is checked first); returns `(s, d)`.
pub(super) fn sparsity_counts(s: u64, d: u64) -> Result<(u64, u64)> {
    let d = check::count("d", d)?;
    let s = check::count("s", s)?;
    if s > d {
        return Err(Error::invalid("s", s, "<= d"));
    }
    Ok((s, d))
}

/// A sparsity `1 ≤ s ≤ d` (both counts); returns `(s, d)` as floats.
pub(super) fn sparsity(s: u64, d: u64) -> Result<(f64, f64)> {
    let (s, d) = sparsity_counts(s, d)?;
    Ok((s as f64, d as f64))
}

/// ε for the classical Gaussian calibration `σ = Δ√(2 ln(1.25/δ))/ε`, valid for `ε ∈ (0, 1]`.
pub(super) fn gaussian_epsilon(epsilon: f64) -> Result<f64> {
    if epsilon > 0.0 && epsilon <= 1.0 {
        Ok(epsilon)
    } else {
        Err(Error::invalid("epsilon", epsilon, "in (0, 1] (classical Gaussian calibration)"))
    }
}
