//! \[ZCHWB\] Thm. 12, the lower bound on uniform convergence of the empirical gradient
//! (App. D).

use super::validate::finite_result;
use crate::error::{Error, Result, check};

/// The constant of \[ZCHWB\] Thm. 12 (App. D): `c = σ_min/(2√20)`, from
/// `‖μ − z̄‖ > ((p/20)(σ_min/(2√n))²)^{1/2}`. `σ_min = √(2/9)` (all `μ_j ∈ [1/3, 2/3]`) gives
/// 0.0527; `σ_min = 1/2` (all `μ_j = 1/2`) gives 0.0559.
///
/// # Errors
/// `InvalidParameter` for `σ_min ≤ 0` or `σ_min > 1/2` (a Bernoulli std is at most 1/2).
pub fn uniform_convergence_lower_bound_constant(sigma_min: f64) -> Result<f64> {
    let s = check::positive("sigma_min", sigma_min)?;
    if s > 0.5 {
        return Err(Error::invalid("sigma_min", s, "<= 1/2 (a Bernoulli standard deviation)"));
    }
    finite_result("uniform_convergence_lower_bound_constant", s / (2.0 * 20f64.sqrt()))
}

/// \[ZCHWB\] Thm. 12: with constant probability (for large p and n),
/// `sup_w ‖ĝ(w) − g(w)‖ = ‖μ − z̄‖ > c·√(p/n)`, `c` from
/// [`uniform_convergence_lower_bound_constant`].
///
/// # Errors
/// As [`uniform_convergence_lower_bound_constant`]; `InvalidParameter` for `p = 0` or `n = 0`.
pub fn uniform_convergence_lower_bound(dim_p: u64, dataset_size_n: u64, sigma_min: f64) -> Result<f64> {
    let p = check::count("dim_p", dim_p)? as f64;
    let n = check::count("dataset_size_n", dataset_size_n)? as f64;
    finite_result(
        "uniform_convergence_lower_bound",
        uniform_convergence_lower_bound_constant(sigma_min)? * (p / n).sqrt(),
    )
}
