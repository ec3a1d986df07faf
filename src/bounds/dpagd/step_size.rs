//! The step sizes and step-size caps of \[ZCHWB\]'s DP-GD, DP-RMSProp and DP-Adam (Thm. 3, Sec. 4.2; Thms. 4–6, Sec. 5):
//! the corrected DP-Adam cap (erratum Z1) and the printed one.

use super::validate::{check_beta1, finite, finite_result};
use crate::error::{Result, check};

/// DP-GD's step of Thm. 3.1 / Thm. 8: `η = 1/(4L)` (the proof's "`η_t = L/4`" is a typo,
/// erratum Z4).
///
/// # Errors
/// `InvalidParameter` for `L ≤ 0`.
pub fn dp_gd_step_size(smoothness_l: f64) -> Result<f64> {
    finite_result("dp_gd_step_size", 0.25 / check::positive("smoothness_l", smoothness_l)?)
}

/// DP-RMSProp's cap of Thm. 3.2 / Thm. 9: `η ≤ ν/(4L)`.
///
/// # Errors
/// `InvalidParameter` for `ν ≤ 0` or `L ≤ 0`.
pub fn rmsprop_step_size_cap(nu: f64, smoothness_l: f64) -> Result<f64> {
    let nu = check::positive("nu", nu)?;
    finite_result("rmsprop_step_size_cap", 0.25 * nu / check::positive("smoothness_l", smoothness_l)?)
}

/// The corrected DP-Adam cap in `x = Lη/ν` (erratum Z1; `proofs/dpagd/dp_adam.md` §4): the positive root of the
/// proof's condition `(2β1/(1−β1)²) x² + x/2 − 1/2 ≤ 0` ([`adam_cap_quadratic`]),
///
/// ```text
/// x* = (√(1/4 + a) − 1/2)·(1−β1)²/(4β1),   a = 4β1/(1−β1)²
///    = 1/(1/2 + √(1/4 + a))                 (rationalised; evaluated this way)
/// ```
///
/// The rationalised form has no cancellation for small β1 and gives `x*(0) = 1` exactly
/// (`η ≤ ν/L`). Values: `x*(0.9) = 0.0513340`, `x*(0.5) = 0.2965352`, `x*(0.1) = 0.7339697`.
///
/// # Errors
/// `InvalidParameter` for `β1 ∉ [0, 1)`.
pub fn adam_step_cap_x(beta1: f64) -> Result<f64> {
    let b = check_beta1(beta1)?;
    let a = 4.0 * b / ((1.0 - b) * (1.0 - b));
    finite_result("adam_step_cap_x", 1.0 / (0.5 + (0.25 + a).sqrt()))
}

/// The Adam cap as printed in \[ZCHWB\] Thm. 3.3 / Thm. 10, in `x = Lη/ν`:
/// `x = (√(1/2 + a) − 1/2)·(1−β1)²/(4β1)`, `a = 4β1/(1−β1)²` (evaluated as
/// `(1/4 + a)/(a(√(1/2 + a) + 1/2))`, equal by rationalising `√(1/2+a) − 1/2`). It violates the
/// proof's condition: at `β1 = 0.1` it is 1.0062, where [`adam_cap_quadratic`] is +0.253 > 0; it
/// grows without bound as `β1 → 0`.
///
/// # Errors
/// `InvalidParameter` for `β1 ∉ (0, 1)` (the printed form divides by β1).
pub fn adam_step_cap_x_printed(beta1: f64) -> Result<f64> {
    let b = check::open_unit("beta1", beta1)?;
    let a = 4.0 * b / ((1.0 - b) * (1.0 - b));
    finite_result("adam_step_cap_x_printed", (0.25 + a) / (a * ((0.5 + a).sqrt() + 0.5)))
}

/// The quadratic of the DP-Adam proof's step condition in `x = Lη/ν` (App. B.3; `proofs/dpagd/dp_adam.md` §4):
/// `q(x) = (2β1/(1−β1)²) x² + x/2 − 1/2`; the proof needs `q(x) ≤ 0`. [`adam_step_cap_x`] is its
/// positive root.
///
/// # Errors
/// `InvalidParameter` for `β1 ∉ [0, 1)` or a non-finite `x`.
pub fn adam_cap_quadratic(beta1: f64, x: f64) -> Result<f64> {
    let b = check_beta1(beta1)?;
    let x = finite("x", x)?;
    finite_result("adam_cap_quadratic", 2.0 * b / ((1.0 - b) * (1.0 - b)) * x * x + 0.5 * x - 0.5)
}

/// The corrected DP-Adam step cap `η ≤ x*(β1)·ν/L` ([`adam_step_cap_x`]).
///
/// # Errors
/// `InvalidParameter` for `β1 ∉ [0, 1)`, `ν ≤ 0` or `L ≤ 0`.
pub fn adam_step_size_cap(beta1: f64, nu: f64, smoothness_l: f64) -> Result<f64> {
    let x = adam_step_cap_x(beta1)?;
    finite_result("adam_step_size_cap", x * check::positive("nu", nu)? / check::positive("smoothness_l", smoothness_l)?)
}

/// The printed DP-Adam step cap `η ≤ x_printed(β1)·ν/L` ([`adam_step_cap_x_printed`]).
///
/// # Errors
/// `InvalidParameter` for `β1 ∉ (0, 1)`, `ν ≤ 0` or `L ≤ 0`.
pub fn adam_step_size_cap_printed(beta1: f64, nu: f64, smoothness_l: f64) -> Result<f64> {
    let x = adam_step_cap_x_printed(beta1)?;
    finite_result(
        "adam_step_size_cap_printed",
        x * check::positive("nu", nu)? / check::positive("smoothness_l", smoothness_l)?,
    )
}
