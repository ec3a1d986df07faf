//! \[ZCHWB\] Thm. 3, the population rates of DP-GD (3.1) and of DP-RMSProp, DP-Adam
//! (3.2–3.3), as printed with `O(1) = 1`: trend use only.

use super::validate::{finite_result, ln_inv_delta};
use crate::error::{Error, Result, check};

/// The quantities of Thm. 3's printed rates.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RateInputs {
    /// G > 0.
    pub gradient_bound_g: f64,
    /// p ≥ 1.
    pub dim_p: u64,
    /// n ≥ 1.
    pub dataset_size_n: u64,
    /// ε > 0.
    pub epsilon: f64,
    /// δ ∈ (0, 1).
    pub delta: f64,
    /// β ∈ (0, 1): the failure probability.
    pub beta: f64,
}

impl RateInputs {
    fn validate(&self) -> Result<(f64, f64, f64, f64, f64, f64)> {
        Ok((
            check::positive("gradient_bound_g", self.gradient_bound_g)?,
            check::count("dim_p", self.dim_p)? as f64,
            check::count("dataset_size_n", self.dataset_size_n)? as f64,
            check::positive("epsilon", self.epsilon)?,
            ln_inv_delta(self.delta)?,
            check::open_unit("beta", self.beta)?,
        ))
    }
}

fn log_factor(arg: f64) -> Result<f64> {
    if arg > 1.0 {
        Ok(arg.ln())
    } else {
        Err(Error::invalid("log argument", arg, "> 1 (the rate's logarithm must be positive)"))
    }
}

/// \[ZCHWB\] Thm. 3.1 (DP-GD) as printed, `O(1) = 1` — **trend use only**:
/// `G √(pL ln(1/δ))·ln(npε/β)/(nε)`.
///
/// # Errors
/// `InvalidParameter` for invalid inputs, `L ≤ 0`, or `npε/β ≤ 1`.
pub fn dp_gd_rate_unit_constant(smoothness_l: f64, inputs: &RateInputs) -> Result<f64> {
    let l = check::positive("smoothness_l", smoothness_l)?;
    let (g, p, n, e, ld, b) = inputs.validate()?;
    finite_result("dp_gd_rate_unit_constant", g * (p * l * ld).sqrt() * log_factor(n * p * e / b)? / (n * e))
}

/// \[ZCHWB\] Thm. 3.2–3.3 (DP-RMSProp, DP-Adam) as printed, `O(1) = 1` — **trend use only**:
/// `G √(p ln(1/δ))·ln(n√p ε/β)/(nε)`.
///
/// # Errors
/// `InvalidParameter` for invalid inputs or `n√p ε/β ≤ 1`.
pub fn adaptive_rate_unit_constant(inputs: &RateInputs) -> Result<f64> {
    let (g, p, n, e, ld, b) = inputs.validate()?;
    finite_result("adaptive_rate_unit_constant", g * (p * ld).sqrt() * log_factor(n * p.sqrt() * e / b)? / (n * e))
}
