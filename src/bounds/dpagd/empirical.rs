//! The empirical-risk theorems of \[ZCHWB\] (Sec. 5, proofs in App. C): Thm. 4 for DP-GD (erratum Z4) and
//! Thm. 5 for DP-RMSProp, corrected and as printed.

use super::descent::AdaptiveStep;
use super::validate::{CAP_SLACK, finite_result};
use crate::error::{Error, Result, check};

/// Inputs of the empirical-risk bounds (Thm. 4, Thm. 5).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EmpiricalInputs {
    /// T ≥ 1.
    pub steps_t: u64,
    /// `f̂(w_1) − f* ≥ 0` (f* a lower bound of the empirical loss, `ℓ*` in A2).
    pub loss_gap: f64,
    /// p ≥ 1.
    pub dim_p: u64,
    /// σ ≥ 0: the noise std on the mean gradient.
    pub sigma: f64,
}

impl EmpiricalInputs {
    fn validate(&self) -> Result<(f64, f64, f64, f64)> {
        Ok((
            check::count("steps_t", self.steps_t)? as f64,
            check::non_negative("loss_gap", self.loss_gap)?,
            check::count("dim_p", self.dim_p)? as f64,
            check::non_negative("sigma", self.sigma)?,
        ))
    }
}

/// \[ZCHWB\] Thm. 4, DP-GD at `η = 1/L`, **corrected** (erratum Z4; App. C.1): per step
/// `E_t f̂(w_{t+1}) ≤ f̂(w_t) − ‖∇f̂(w_t)‖²/(2L) + pσ²/(2L)`, so
/// `(1/T) Σ_t E‖∇f̂(w_t)‖² ≤ 2L(f̂(w_1) − f*)/T + pσ²`.
///
/// # Errors
/// `InvalidParameter` for `L ≤ 0` or invalid [`EmpiricalInputs`].
pub fn dp_gd_empirical_bound(smoothness_l: f64, inputs: &EmpiricalInputs) -> Result<f64> {
    let l = check::positive("smoothness_l", smoothness_l)?;
    let (t, gap, p, s) = inputs.validate()?;
    finite_result("dp_gd_empirical_bound", 2.0 * l * gap / t + p * s * s)
}

/// \[ZCHWB\] Thm. 4 eq. (56) as printed: `L(f̂(w_1) − f*)/T + pσ²` (should be `2L`).
///
/// # Errors
/// As [`dp_gd_empirical_bound`].
pub fn dp_gd_empirical_bound_printed(smoothness_l: f64, inputs: &EmpiricalInputs) -> Result<f64> {
    let l = check::positive("smoothness_l", smoothness_l)?;
    let (t, gap, p, s) = inputs.validate()?;
    finite_result("dp_gd_empirical_bound_printed", l * gap / t + p * s * s)
}

/// `4(√(β2λ) + ν)·[gap/(ηT) + noise]` after checking Thm. 5's hypotheses.
fn rmsprop_empirical_core(
    step: &AdaptiveStep,
    beta2: f64,
    gradient_bound_g: f64,
    inputs: &EmpiricalInputs,
    noise: impl Fn(f64, f64, f64) -> f64,
) -> Result<f64> {
    let (eta, nu, lambda, l) = step.validate()?;
    let b2 = check::open_unit("beta2", beta2)?;
    let g = check::positive("gradient_bound_g", gradient_bound_g)?;
    let (t, gap, p, s) = inputs.validate()?;
    if l * eta / nu > 0.5 * (1.0 + CAP_SLACK) {
        return Err(Error::invalid("step_size_eta", eta, "<= nu/(2L) (Theorem 5)"));
    }
    if 1.0 - b2 > nu * nu / (16.0 * g * g) * (1.0 + CAP_SLACK) {
        return Err(Error::invalid("beta2", b2, "with 1 - beta2 <= nu^2/(16 G^2) (Theorem 5)"));
    }
    finite_result("rmsprop_empirical_bound", 4.0 * ((b2 * lambda).sqrt() + nu) * (gap / (eta * t) + noise(p, s, nu)))
}

/// \[ZCHWB\] Thm. 5, DP-RMSProp empirical bound, **corrected** (App. C.2; `proofs/dpagd/dp_rmsprop.md` §5, T5): under
/// `η ≤ ν/(2L)` and `1 − β2 ≤ ν²/(16G²)`,
/// `(1/T) Σ_t E‖∇f̂(w_t)‖² ≤ 4(√(β2λ) + ν)·[(f̂(w_1) − f*)/(ηT) + pσ²/(2ν)]`.
/// The proof uses `v_t − β2 v_{t−1} = (1−β2) g̃_t²`, valid only while the λ-cap is inactive
/// (erratum Z6): check it with `λ ≥ max_t ψ_t`.
///
/// # Errors
/// `InvalidParameter` for invalid inputs or a violated hypothesis (1e-12 relative slack).
pub fn rmsprop_empirical_bound(
    step: &AdaptiveStep,
    beta2: f64,
    gradient_bound_g: f64,
    inputs: &EmpiricalInputs,
) -> Result<f64> {
    rmsprop_empirical_core(step, beta2, gradient_bound_g, inputs, |p, s, nu| p * s * s / (2.0 * nu))
}

/// \[ZCHWB\] Thm. 5 eq. (63) as printed: the last term `2pσ²` in place of `pσ²/(2ν)`.
///
/// # Errors
/// As [`rmsprop_empirical_bound`].
pub fn rmsprop_empirical_bound_printed(
    step: &AdaptiveStep,
    beta2: f64,
    gradient_bound_g: f64,
    inputs: &EmpiricalInputs,
) -> Result<f64> {
    rmsprop_empirical_core(step, beta2, gradient_bound_g, inputs, |p, s, _| 2.0 * p * s * s)
}
