//! \[AFKT\] Thm. 3 (Algorithm 1, noisy mirror descent for DP-ERM): the convex bound with the
//! proof's explicit constant (safe and as printed), the printed noise scale, and the printed
//! rates with `O(1) = 1`.

use super::L1Setting;
use super::mirror::{gaussian_linf_sq_bound, gaussian_linf_sq_bound_printed};
use super::validate::{finite_result, ln_inv_delta};
use crate::error::{Result, check};

/// The noise std of \[AFKT\] Alg. 1, line 3, **as printed**: `σ = 100 L√(d ln(1/δ))/(bε)` (the
/// constant 100 stands for the unstated `c₂` of the moments-accountant theorem; `dpref` calibrates
/// σ with `crate::accounting` instead, so this is for comparison only).
///
/// # Errors
/// `InvalidParameter` for `L ≤ 0`, `d = 0`, `δ ∉ (0, 1)`, `b = 0` or `ε ≤ 0`.
pub fn theorem3_sigma_printed(l: f64, d: u64, delta: f64, batch_b: u64, epsilon: f64) -> Result<f64> {
    let l = check::positive("l", l)?;
    let d = check::count("d", d)? as f64;
    let ld = ln_inv_delta(delta)?;
    let b = check::count("batch_b", batch_b)? as f64;
    let e = check::positive("epsilon", epsilon)?;
    finite_result("theorem3_sigma_printed", 100.0 * l * (d * ld).sqrt() / (b * e))
}

/// \[AFKT\] Thm. 3's explicit form for a bound `linf_sq(σ, d) ≥ E‖ζ‖²_∞`: with
/// `G² = L² + linf_sq(σ, d)`, `(η, bound) = (D/√(TG²), 2D√(G²/T))`.
fn theorem3_erm_bound(
    what: &'static str,
    linf_sq: fn(f64, u64) -> Result<f64>,
    bregman_d: f64,
    l: f64,
    sigma: f64,
    t_steps: u64,
    d: u64,
) -> Result<(f64, f64)> {
    let dd = check::positive("bregman_d", bregman_d)?;
    let l = check::non_negative("l", l)?;
    let s = check::non_negative("sigma", sigma)?;
    let t = check::count("t_steps", t_steps)? as f64;
    let g2 = l * l + linf_sq(s, check::count("d", d)?)?;
    check::positive("l^2 + E|zeta|_inf^2", g2)?;
    let eta = dd / (t * g2).sqrt();
    Ok((eta, finite_result(what, 2.0 * dd * (g2 / t).sqrt())?))
}

/// \[AFKT\] Thm. 3, convex case, **corrected** explicit form: with `E‖ĝ_k‖²_∞ ≤ 2L² + 2E‖ζ‖²_∞`,
/// `E‖ζ‖²_∞ ≤ σ²(4 ln d + 2 ln 2)` ([`gaussian_linf_sq_bound`]) and the step
/// `η = D/√(T(L² + σ²(4 ln d + 2 ln 2)))`, Lemma 3.1 gives
/// `E[F̂(x̄_T) − F̂(x*)] ≤ 2D√((L² + σ²(4 ln d + 2 ln 2))/T)`, D² the Bregman radius `D_h(x*, x_0)`.
/// Returned as `(η, bound)`.
///
/// # Errors
/// `InvalidParameter` for `D ≤ 0`, `L < 0`, `σ < 0`, `T = 0`, `d = 0`, or `L = σ = 0`.
pub fn theorem3_erm_bound_corrected(bregman_d: f64, l: f64, sigma: f64, t_steps: u64, d: u64) -> Result<(f64, f64)> {
    theorem3_erm_bound("theorem3_erm_bound_corrected", gaussian_linf_sq_bound, bregman_d, l, sigma, t_steps, d)
}

/// \[AFKT\] Thm. 3, convex case, **as printed** (proof's second inequality):
/// `η = D/√(T(L² + 2σ² ln d))`, bound `2D√((L² + 2σ² ln d)/T)`. Rests on `E‖ζ‖²_∞ ≤ 2σ² ln d`,
/// false for small d (at `d = 1` it drops the noise altogether). Returned as `(η, bound)`.
///
/// # Errors
/// As [`theorem3_erm_bound_corrected`].
pub fn theorem3_erm_bound_printed(bregman_d: f64, l: f64, sigma: f64, t_steps: u64, d: u64) -> Result<(f64, f64)> {
    theorem3_erm_bound("theorem3_erm_bound_printed", gaussian_linf_sq_bound_printed, bregman_d, l, sigma, t_steps, d)
}

/// \[AFKT\] Thm. 3 convex rate as printed, `O(1) = 1` — **trend use only**:
/// `LD(b/n + √(d ln d ln(1/δ))/(nε))`.
///
/// # Errors
/// `InvalidParameter` for `L, D ≤ 0`, `b = 0`.
pub fn theorem3_rate_unit_constant(l: f64, diam_d: f64, batch_b: u64, setting: &L1Setting) -> Result<f64> {
    let (l, dd) = (check::positive("l", l)?, check::positive("diam_d", diam_d)?);
    let b = check::count("batch_b", batch_b)? as f64;
    let (n, ne) = (setting.n(), setting.n() * setting.epsilon());
    let v = l * dd * (b / n + (setting.d() * setting.ln_d() * setting.ln_inv_delta()).sqrt() / ne);
    finite_result("theorem3_rate_unit_constant", v)
}

/// \[AFKT\] Thm. 3 strongly convex rate as printed, `O(1) = 1` — **trend use only**:
/// `L²b²/(λn²) + L² d ln d ln(1/δ)/(λn²ε²)`.
///
/// # Errors
/// `InvalidParameter` for `L ≤ 0`, `λ ≤ 0`, `b = 0`.
pub fn theorem3_strongly_convex_rate_unit_constant(
    l: f64,
    lambda: f64,
    batch_b: u64,
    setting: &L1Setting,
) -> Result<f64> {
    let (l, lambda) = (check::positive("l", l)?, check::positive("lambda", lambda)?);
    let b = check::count("batch_b", batch_b)? as f64;
    let (n, e) = (setting.n(), setting.epsilon());
    let v = l * l * b * b / (lambda * n * n)
        + l * l * setting.d() * setting.ln_d() * setting.ln_inv_delta() / (lambda * n * n * e * e);
    finite_result("theorem3_strongly_convex_rate_unit_constant", v)
}
