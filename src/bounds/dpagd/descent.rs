//! The deterministic descent inequalities of \[ZCHWB\] (Sec. 4.2, proofs in App. B), given the realised
//! noise: DP-GD eq. (22)–(26), DP-RMSProp eq. (30)–(35) (erratum Z2) and DP-Adam eq. (40)–(49)
//! (errata Z1, Z3), corrected and as printed.

use super::step_size::{adam_step_cap_x, adam_step_cap_x_printed};
use super::validate::{CAP_SLACK, finite, finite_result};
use crate::error::{Error, Result, check};

/// The measured quantities of a run that the summed descent inequalities take.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DescentInputs {
    /// T ≥ 1: number of steps (releases).
    pub steps_t: u64,
    /// `f(w_1) − f(w_{T+1})` (any finite real; noise can make it negative), or an upper bound on
    /// it such as `f(w_1) − f*`.
    pub loss_decrease: f64,
    /// The noise energy `≥ 0`: see each bound for which quantity it accepts (the measured mean
    /// `(1/T) Σ_t ‖Δ_t‖²`, or `α² = max_t ‖Δ_t‖²`, or a high-probability bound on it such as
    /// `(√p σ(1+μ))²`).
    pub noise_sq: f64,
}

impl DescentInputs {
    pub(super) fn validate(&self) -> Result<(f64, f64, f64)> {
        let t = check::count("steps_t", self.steps_t)? as f64;
        let gap = finite("loss_decrease", self.loss_decrease)?;
        let a = check::non_negative("noise_sq", self.noise_sq)?;
        Ok((t, gap, a))
    }
}

/// The step parameters of DP-RMSProp / DP-Adam (Algorithm 1 with `D_t = √v_t + ν ∈ [ν, √λ + ν]`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AdaptiveStep {
    /// η > 0.
    pub step_size_eta: f64,
    /// ν > 0 (outside the square root).
    pub nu: f64,
    /// λ > 0, finite: the cap on `v_t` (the bounds use `√v_t + ν ≤ √λ + ν`).
    pub lambda: f64,
    /// L > 0: smoothness of f.
    pub smoothness_l: f64,
}

impl AdaptiveStep {
    pub(super) fn validate(&self) -> Result<(f64, f64, f64, f64)> {
        Ok((
            check::positive("step_size_eta", self.step_size_eta)?,
            check::positive("nu", self.nu)?,
            check::positive("lambda", self.lambda)?,
            check::positive("smoothness_l", self.smoothness_l)?,
        ))
    }
}

/// The step of DP-GD (Algorithm 1 with `D_t = 1`): `w_{t+1} = w_t − η g̃_t` on an L-smooth f.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GdStep {
    step_size_eta: f64,
    smoothness_l: f64,
}

impl GdStep {
    /// Step size η and smoothness L of f.
    ///
    /// # Errors
    /// `InvalidParameter` for `η ≤ 0` or `L ≤ 0` (NaN and ∞ included), checked in this order.
    pub fn new(step_size_eta: f64, smoothness_l: f64) -> Result<Self> {
        let step_size_eta = check::positive("step_size_eta", step_size_eta)?;
        let smoothness_l = check::positive("smoothness_l", smoothness_l)?;
        Ok(GdStep { step_size_eta, smoothness_l })
    }

    /// η.
    pub fn step_size_eta(&self) -> f64 {
        self.step_size_eta
    }

    /// L.
    pub fn smoothness_l(&self) -> f64 {
        self.smoothness_l
    }
}

/// \[ZCHWB\] eq. (22), DP-GD one step (proof of Thm. 8, App. B.1): for L-smooth f and
/// `w_{t+1} = w_t − η(g_t + Δ_t)`,
/// `f(w_{t+1}) ≤ f(w_t) − (η/2 − Lη²)‖g_t‖² + (η/2 + Lη²)‖Δ_t‖²`. Returns the right side.
///
/// # Errors
/// `InvalidParameter` for a non-finite `f(w_t)` or negative squared norms.
pub fn dp_gd_descent_step(step: &GdStep, f_wt: f64, grad_sq: f64, noise_sq: f64) -> Result<f64> {
    let (eta, l) = (step.step_size_eta, step.smoothness_l);
    let f = finite("f_wt", f_wt)?;
    let g2 = check::non_negative("grad_sq", grad_sq)?;
    let d2 = check::non_negative("noise_sq", noise_sq)?;
    finite_result("dp_gd_descent_step", f - (0.5 * eta - l * eta * eta) * g2 + (0.5 * eta + l * eta * eta) * d2)
}

/// \[ZCHWB\] eq. (26), DP-GD at `η = 1/(4L)` (App. B.1), summed over `t = 1..T`:
///
/// ```text
/// (1/T) Σ_t ‖g_t‖² ≤ 16L (f(w_1) − f(w_{T+1}))/T + 3·noise_sq
/// ```
///
/// with `noise_sq` the measured `(1/T) Σ_t ‖Δ_t‖²` (the exact sum of eq. (22)) or any upper
/// bound on it (`α² = max_t ‖Δ_t‖²`, the theorem's `3α²`).
///
/// Valid only at `η = 1/(4L)`: at a smaller step the true bound (eq. (22) summed) is larger
/// (L = 1, T = 100, gap 1, noise 0.01 at η = 1/(8L): 0.23 against this form's 0.19), so a step
/// with `|4Lη − 1| > 1e-12` is refused; use [`dp_gd_descent_bound_general_eta`] there.
///
/// # Errors
/// `InvalidParameter` naming `step_size_eta` for `|4Lη − 1| > 1e-12`, or for invalid
/// [`DescentInputs`]; `Numerical` if the result overflows.
pub fn dp_gd_descent_bound(step: &GdStep, inputs: &DescentInputs) -> Result<f64> {
    let (eta, l) = (step.step_size_eta, step.smoothness_l);
    if (4.0 * l * eta - 1.0).abs() > CAP_SLACK {
        return Err(Error::invalid(
            "step_size_eta",
            eta,
            "= 1/(4L) (eq. (26)); at another step use dp_gd_descent_bound_general_eta (eq. (22) summed)",
        ));
    }
    let (t, gap, a) = inputs.validate()?;
    finite_result("dp_gd_descent_bound", 16.0 * l * gap / t + 3.0 * a)
}

/// eq. (22) summed at a general step `0 < η < 1/(2L)`:
/// `(1/T) Σ ‖g_t‖² ≤ [(f(w_1) − f(w_{T+1}))/(ηT) + (1/2 + Lη)·noise_sq]/(1/2 − Lη)`, with
/// `noise_sq` as in [`dp_gd_descent_bound`]; equal to it at `η = 1/(4L)`.
///
/// # Errors
/// `InvalidParameter` for `η ≥ 1/(2L)` or invalid [`DescentInputs`].
pub fn dp_gd_descent_bound_general_eta(step: &GdStep, inputs: &DescentInputs) -> Result<f64> {
    let (eta, l) = (step.step_size_eta, step.smoothness_l);
    let (t, gap, a) = inputs.validate()?;
    let c = 0.5 - l * eta;
    if c <= 0.0 {
        return Err(Error::invalid("step_size_eta", eta, "< 1/(2L) (the descent coefficient eta/2 - L eta^2 > 0)"));
    }
    finite_result("dp_gd_descent_bound_general_eta", (gap / (eta * t) + (0.5 + l * eta) * a) / c)
}

/// `(√λ + ν)·[(f(w_1) − f(w_{T+1}))/(ηT) + 3·noise_sq/(4ν)]` after checking `Lη/ν ≤ 1/4`.
fn rmsprop_core(step: &AdaptiveStep, inputs: &DescentInputs) -> Result<f64> {
    let (eta, nu, lambda, l) = step.validate()?;
    let (t, gap, a) = inputs.validate()?;
    if l * eta / nu > 0.25 * (1.0 + CAP_SLACK) {
        return Err(Error::invalid("step_size_eta", eta, "<= nu/(4L) (DP-RMSProp, Theorem 3.2)"));
    }
    finite_result("rmsprop_descent_bound", (lambda.sqrt() + nu) * (gap / (eta * t) + 0.75 * a / nu))
}

/// \[ZCHWB\] eq. (30)–(35), DP-RMSProp with `Lη/ν ≤ 1/4`, **corrected** (erratum Z2;
/// App. B.2). From eq. (30), `f(w_{t+1}) ≤ f(w_t) − η‖g_t‖²/(4(√λ+ν)) + 3η‖Δ_t‖²/(4ν)`, so
///
/// ```text
/// (1/T) Σ_t ‖g_t‖² ≤ 4(√λ + ν)·[(f(w_1) − f(w_{T+1}))/(ηT) + 3·noise_sq/(4ν)]
/// ```
///
/// with `noise_sq` the measured `(1/T) Σ_t ‖Δ_t‖²` or an upper bound on it (`α²`).
///
/// # Errors
/// `InvalidParameter` for invalid inputs or `Lη/ν > 1/4` (beyond a 1e-12 relative slack).
pub fn rmsprop_descent_bound(step: &AdaptiveStep, inputs: &DescentInputs) -> Result<f64> {
    finite_result("rmsprop_descent_bound", 4.0 * rmsprop_core(step, inputs)?)
}

/// DP-RMSProp as printed in \[ZCHWB\] eq. (35): [`rmsprop_descent_bound`] without the factor
/// 4 (eq. (32) dropped a 1/4). It fails: `tests/descent_dpagd.rs` records runs of the real
/// optimiser where the left side exceeds it.
///
/// # Errors
/// As [`rmsprop_descent_bound`].
pub fn rmsprop_descent_bound_printed(step: &AdaptiveStep, inputs: &DescentInputs) -> Result<f64> {
    rmsprop_core(step, inputs)
}

/// `((√λ+ν)/(1−β1))·[2 gap/(ηT) + k·noise_sq/((1−β1)ν)]` after checking `η ≤ cap`.
fn adam_core(step: &AdaptiveStep, beta1: f64, inputs: &DescentInputs, k: f64, cap_x: f64) -> Result<f64> {
    let (eta, nu, lambda, l) = step.validate()?;
    let (t, gap, a) = inputs.validate()?;
    if l * eta / nu > cap_x * (1.0 + CAP_SLACK) {
        return Err(Error::invalid("step_size_eta", eta, "<= the DP-Adam cap x*(beta1) nu/L"));
    }
    let c = 1.0 - beta1;
    finite_result("adam_descent_bound", (lambda.sqrt() + nu) / c * (2.0 * gap / (eta * t) + k * a / (c * nu)))
}

/// \[ZCHWB\] eq. (40)–(49), DP-Adam with `η ≤ x*(β1)ν/L`
/// ([`adam_step_size_cap`](super::adam_step_size_cap)), **corrected** (errata Z1 and Z3; App. B.3):
///
/// ```text
/// (1/T) Σ_t ‖g_t‖² ≤ ((√λ + ν)/(1 − β1))·[2(f(w_1) − f(w_{T+1}))/(ηT) + 2α²/((1 − β1)ν)]
/// ```
///
/// with `noise_sq = α² ≥ max_t ‖Δ_t‖²` (the proof bounds every `‖Δ_t‖²` by α²; pass the
/// measured maximum or a high-probability bound).
///
/// # Errors
/// `InvalidParameter` for invalid inputs, `β1 ∉ [0, 1)`, or `η` above the corrected cap (beyond a
/// 1e-12 relative slack).
pub fn adam_descent_bound(step: &AdaptiveStep, beta1: f64, inputs: &DescentInputs) -> Result<f64> {
    let x = adam_step_cap_x(beta1)?;
    adam_core(step, beta1, inputs, 2.0, x)
}

/// DP-Adam as printed in \[ZCHWB\] eq. (49): `α²/((1 − β1)ν)` in place of `2α²/((1 − β1)ν)`,
/// with η up to the printed cap
/// ([`adam_step_size_cap_printed`](super::adam_step_size_cap_printed)).
///
/// # Errors
/// As [`adam_descent_bound`], with `β1 ∈ (0, 1)` and the printed cap.
pub fn adam_descent_bound_printed(step: &AdaptiveStep, beta1: f64, inputs: &DescentInputs) -> Result<f64> {
    let x = adam_step_cap_x_printed(beta1)?;
    adam_core(step, beta1, inputs, 1.0, x)
}
