//! \[AFKT\] App. B (Algorithms 5–6, l_p geometry with `1 < p ≤ 2`): Thm. 12's noise scale and
//! gradient second moment (safe and as printed), Thm. 13's base step and rate, and the main-text
//! Thm. 5 form, with `O(1) = 1` where the paper gives only `O(·)`.

use super::L1Setting;
use super::mirror::check_p;
use super::validate::{finite_result, ln_inv_delta};
use crate::error::{Result, check};

/// \[AFKT\] Alg. 5's noise std as printed: `σ = 100 L√(d^{1−2/q} ln(1/δ))/(bε)`, `q = p/(p−1)`.
///
/// # Errors
/// `InvalidParameter` for `L ≤ 0`, `d = 0`, `p ∉ (1, 2]`, `δ ∉ (0, 1)`, `b = 0`, `ε ≤ 0`.
pub fn theorem12_sigma_printed(l: f64, d: u64, p: f64, delta: f64, batch_b: u64, epsilon: f64) -> Result<f64> {
    let l = check::positive("l", l)?;
    let d = check::count("d", d)? as f64;
    let q = conjugate(check_p(p)?);
    let ld = ln_inv_delta(delta)?;
    let b = check::count("batch_b", batch_b)? as f64;
    let e = check::positive("epsilon", epsilon)?;
    finite_result("theorem12_sigma_printed", 100.0 * l * (d.powf(1.0 - 2.0 / q) * ld).sqrt() / (b * e))
}

fn conjugate(p: f64) -> f64 {
    p / (p - 1.0)
}

/// The noisy gradient's second moment in the proof of \[AFKT\] Thm. 12, **safe**:
/// `E‖ĝ‖_q² ≤ 2L² + 2d^{2/q}σ²(4 ln d + 2 ln 2)` (`‖ζ‖_q ≤ d^{1/q}‖ζ‖_∞` and the safe
/// `E‖ζ‖²_∞` of `gaussian_linf_sq_bound`).
///
/// # Errors
/// `InvalidParameter` for `L < 0`, `σ < 0`, `d = 0`, `p ∉ (1, 2]`.
pub fn theorem12_grad_sq_bound(l: f64, sigma: f64, d: u64, p: f64) -> Result<f64> {
    let (l, s, d, q) = grad_args(l, sigma, d, p)?;
    let v = 2.0 * l * l + 2.0 * d.powf(2.0 / q) * s * s * (4.0 * d.ln() + 2.0 * std::f64::consts::LN_2);
    finite_result("theorem12_grad_sq_bound", v)
}

/// As printed in the proof of \[AFKT\] Thm. 12: `E‖ĝ‖_q² ≤ 2L² + 8d^{2/q}σ² ln d` (0 noise at d = 1).
///
/// # Errors
/// As [`theorem12_grad_sq_bound`].
pub fn theorem12_grad_sq_bound_printed(l: f64, sigma: f64, d: u64, p: f64) -> Result<f64> {
    let (l, s, d, q) = grad_args(l, sigma, d, p)?;
    finite_result("theorem12_grad_sq_bound_printed", 2.0 * l * l + 8.0 * d.powf(2.0 / q) * s * s * d.ln())
}

fn grad_args(l: f64, sigma: f64, d: u64, p: f64) -> Result<(f64, f64, f64, f64)> {
    Ok((
        check::non_negative("l", l)?,
        check::non_negative("sigma", sigma)?,
        check::count("d", d)? as f64,
        conjugate(check_p(p)?),
    ))
}

/// \[AFKT\] Thm. 13's base step: `η = (D/L)·min{1/√((p−1)n), ε/√(d ln(1/δ)(1 + ln d·1{p<2}))}`.
///
/// # Errors
/// `InvalidParameter` for `D, L ≤ 0`, `p ∉ (1, 2]`.
pub fn theorem13_base_step(diam_d: f64, l: f64, p: f64, setting: &L1Setting) -> Result<f64> {
    let (dd, l, p) = (check::positive("diam_d", diam_d)?, check::positive("l", l)?, check_p(p)?);
    let s = setting;
    let m = (1.0 / ((p - 1.0) * s.n())).sqrt().min(s.epsilon() / (s.d() * s.ln_inv_delta() * log_factor(s, p)).sqrt());
    finite_result("theorem13_base_step", dd / l * m)
}

/// The logarithmic factor of Thm. 13, `1 + ln d·1{p < 2}`.
fn log_factor(setting: &L1Setting, p: f64) -> f64 {
    if p < 2.0 { 1.0 + setting.ln_d() } else { 1.0 }
}

/// `LD(1/√((p−1)n) + √dim/((p−1)nε))`, the shape of the Thm. 13 and (printed) Thm. 5 rates,
/// which differ only in their dimension factor `dim`.
fn lp_rate(what: &'static str, l: f64, diam_d: f64, p: f64, setting: &L1Setting, dim: f64) -> Result<f64> {
    let (l, dd, p) = (check::positive("l", l)?, check::positive("diam_d", diam_d)?, check_p(p)?);
    let (n, e) = (setting.n(), setting.epsilon());
    finite_result(what, l * dd * (1.0 / ((p - 1.0) * n).sqrt() + dim.sqrt() / ((p - 1.0) * n * e)))
}

/// \[AFKT\] Thm. 13 rate, `O(1) = 1` — **trend use only**:
/// `LD(1/√((p−1)n) + √(d ln(1/δ)(1 + ln d·1{p<2}))/((p−1)nε))`.
///
/// # Errors
/// `InvalidParameter` for `L, D ≤ 0`, `p ∉ (1, 2]`.
pub fn theorem13_rate_unit_constant(l: f64, diam_d: f64, p: f64, setting: &L1Setting) -> Result<f64> {
    let s = setting;
    lp_rate("theorem13_rate_unit_constant", l, diam_d, p, s, s.d() * s.ln_inv_delta() * log_factor(s, p))
}

/// \[AFKT\] Thm. 5 (main text) as printed, `O(1) = 1` — **trend use only**:
/// `LD(1/√((p−1)n) + √(d ln d ln(1/δ))/((p−1)nε))` (at p = 2 it keeps a `ln d` that Thm. 13 drops).
///
/// # Errors
/// As [`theorem13_rate_unit_constant`].
pub fn theorem5_rate_printed_unit_constant(l: f64, diam_d: f64, p: f64, setting: &L1Setting) -> Result<f64> {
    let s = setting;
    lp_rate("theorem5_rate_printed_unit_constant", l, diam_d, p, s, s.d() * s.ln_d() * s.ln_inv_delta())
}
