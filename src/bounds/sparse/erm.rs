//! \[GGKKM\] Sec. 5, convex ERM/SCO with Alg. 3 (output perturbation): Thm. 5.1's pathwise
//! inequality (corrected `2√s L` and printed `√(2s) L`), its noise scales and explicit
//! high-probability forms, the `ℓ∞` tails (corrected and as printed in the proof), and the rates
//! of Thms. 5.1, 5.5, 5.6 with `O(1) = 1`.

use super::SparseProblem;
use super::validate::{finite_result, ln_inv_beta};
use crate::error::{Result, check};

/// \[GGKKM\] Thm. 5.1's pathwise inequality, corrected:
/// `F_S(x̂) − F_S(x*) ≤ 2√s·L·‖ξ‖_∞ + λD²/2` (from (4), (5) and `‖∇F_S‖₁ ≤ √s L`).
///
/// # Errors
/// `InvalidParameter` for `L ≤ 0`, `s = 0`, `‖ξ‖_∞ < 0`, `λ ≤ 0`, `D < 0`.
pub fn theorem51_pathwise_bound_corrected(l: f64, s: u64, xi_linf: f64, lambda: f64, diam_d: f64) -> Result<f64> {
    pathwise(l, s, xi_linf, lambda, diam_d, 2.0)
}

/// \[GGKKM\] Thm. 5.1's pathwise inequality **as printed**: `√(2s)·L·‖ξ‖_∞ + λD²/2`, a factor
/// `√2` short on the first term.
///
/// # Errors
/// As [`theorem51_pathwise_bound_corrected`].
pub fn theorem51_pathwise_bound_printed(l: f64, s: u64, xi_linf: f64, lambda: f64, diam_d: f64) -> Result<f64> {
    pathwise(l, s, xi_linf, lambda, diam_d, 2f64.sqrt())
}

fn pathwise(l: f64, s: u64, xi_linf: f64, lambda: f64, diam_d: f64, c: f64) -> Result<f64> {
    let l = check::positive("l", l)?;
    let s = check::count("s", s)? as f64;
    let x = check::non_negative("xi_linf", xi_linf)?;
    let lam = check::positive("lambda", lambda)?;
    let dd = check::non_negative("diam_d", diam_d)?;
    finite_result("theorem51_pathwise_bound", c * s.sqrt() * l * x + lam * dd * dd / 2.0)
}

/// \[GGKKM\] Alg. 3 / Thm. 5.1, Laplace scale at δ = 0:
/// `σ = (2√(2s)L/(λεn))(2H/λ + 1)`.
///
/// # Errors
/// `InvalidParameter` for `λ ≤ 0`, `H < 0`.
pub fn theorem51_laplace_scale(p: &SparseProblem, lambda: f64, h: f64) -> Result<f64> {
    let lam = check::positive("lambda", lambda)?;
    let h = check::non_negative("h", h)?;
    let v = 2.0 * (2.0 * p.s()).sqrt() * p.l / (lam * p.epsilon * p.n()) * (2.0 * h / lam + 1.0);
    finite_result("theorem51_laplace_scale", v)
}

/// \[GGKKM\] Alg. 3 / Thm. 5.1, Gaussian scale at δ > 0 (`Δ₂ = 2L/(λn)`, classical calibration):
/// `σ = 2√2 L√(ln(1.25/δ))/(λεn)`.
///
/// # Errors
/// `InvalidParameter` for `λ ≤ 0`, `ε > 1`, no δ.
pub fn theorem51_gaussian_scale(p: &SparseProblem, lambda: f64) -> Result<f64> {
    let lam = check::positive("lambda", lambda)?;
    let (e, delta) = (p.epsilon_at_most_one()?, p.delta()?);
    finite_result("theorem51_gaussian_scale", 2.0 * 2f64.sqrt() * p.l * (1.25 / delta).ln().sqrt() / (lam * e * p.n()))
}

/// The Laplace `ℓ∞` tail used in Thm. 5.1's proof, corrected: `‖ξ‖_∞ ≤ σ ln(d/β)` with
/// probability `≥ 1 − β`.
///
/// # Errors
/// `InvalidParameter` for `σ ≤ 0`, `d = 0`, `β ∉ (0, 1)`.
pub fn laplace_linf_tail(sigma: f64, d: u64, beta: f64) -> Result<f64> {
    let sigma = check::positive("sigma", sigma)?;
    let d = check::count("d", d)? as f64;
    finite_result("laplace_linf_tail", sigma * (d.ln() + ln_inv_beta(beta)?))
}

/// The Laplace `ℓ∞` tail **as printed** in Thm. 5.1's proof: `σ√(ln(d/β))` (too small for
/// `ln(d/β) > 1`; the theorem itself uses `ln(d/β)`).
///
/// # Errors
/// As [`laplace_linf_tail`].
pub fn laplace_linf_tail_printed(sigma: f64, d: u64, beta: f64) -> Result<f64> {
    let sigma = check::positive("sigma", sigma)?;
    let d = check::count("d", d)? as f64;
    finite_result("laplace_linf_tail_printed", sigma * (d.ln() + ln_inv_beta(beta)?).sqrt())
}

/// \[GGKKM\] Thm. 5.1 (δ = 0, X = R^d), explicit: with probability `≥ 1 − β`,
/// `F_S(x̂) − F_S(x*) ≤ 2√s L σ ln(d/β) + λD²/2`, σ of [`theorem51_laplace_scale`].
///
/// # Errors
/// As [`theorem51_laplace_scale`], and `β ∉ (0, 1)`, `D < 0`.
pub fn theorem51_pure_bound(p: &SparseProblem, lambda: f64, h: f64, diam_d: f64, beta: f64) -> Result<f64> {
    let sigma = theorem51_laplace_scale(p, lambda, h)?;
    theorem51_pathwise_bound_corrected(p.l, p.s, laplace_linf_tail(sigma, p.d, beta)?, lambda, diam_d)
}

/// \[GGKKM\] Thm. 5.1 (δ > 0), explicit: with probability `≥ 1 − β`,
/// `F_S(x̂) − F_S(x*) ≤ 2√s L σ√(2 ln(2d/β)) + λD²/2`, σ of [`theorem51_gaussian_scale`].
///
/// # Errors
/// As [`theorem51_gaussian_scale`], and `β ∉ (0, 1)`, `D < 0`.
pub fn theorem51_approx_bound(p: &SparseProblem, lambda: f64, diam_d: f64, beta: f64) -> Result<f64> {
    let sigma = theorem51_gaussian_scale(p, lambda)?;
    let linf = sigma * (2.0 * ((2.0 * p.d()).ln() + ln_inv_beta(beta)?)).sqrt();
    theorem51_pathwise_bound_corrected(p.l, p.s, linf, lambda, diam_d)
}

/// `ln(d/β)`, the union bound over d coordinates of Thm. 5.1's rates.
fn ln_d_over_beta(p: &SparseProblem, beta: f64) -> Result<f64> {
    Ok(p.d().ln() + ln_inv_beta(beta)?)
}

/// \[GGKKM\] Thm. 5.1 (δ = 0) rate, `O(1) = 1` — **trend use only**:
/// `L^{2/3}H^{1/3}D^{4/3}(s ln(d/β)/(εn))^{1/3}`.
///
/// # Errors
/// `InvalidParameter` for `H, D ≤ 0`, `β ∉ (0, 1)`.
pub fn theorem51_pure_rate_unit_constant(p: &SparseProblem, h: f64, diam_d: f64, beta: f64) -> Result<f64> {
    let (h, dd) = (check::positive("h", h)?, check::positive("diam_d", diam_d)?);
    let lg = ln_d_over_beta(p, beta)?;
    let v = p.l.powf(2.0 / 3.0) * h.cbrt() * dd.powf(4.0 / 3.0) * (p.s() * lg / p.ne()).cbrt();
    finite_result("theorem51_pure_rate_unit_constant", v)
}

/// \[GGKKM\] Thm. 5.1 (δ > 0) rate, `O(1) = 1` — **trend use only**:
/// `LD(s ln(1/δ) ln(d/β))^{1/4}/√(εn)`.
///
/// # Errors
/// `InvalidParameter` for `D ≤ 0`, no δ, `β ∉ (0, 1)`.
pub fn theorem51_approx_rate_unit_constant(p: &SparseProblem, diam_d: f64, beta: f64) -> Result<f64> {
    let dd = check::positive("diam_d", diam_d)?;
    let lg = ln_d_over_beta(p, beta)?;
    let v = p.l * dd * (p.s() * p.ln_inv_delta()? * lg).powf(0.25) / p.ne().sqrt();
    finite_result("theorem51_approx_rate_unit_constant", v)
}

/// \[GGKKM\] Thm. 5.5 (Alg. 4, exponential mechanism) rate, `O(1) = 1` — **trend use only**:
/// `L^{2/3}B^{1/3}((s/(εn))·ln⁺(L√s εn d/(Bβ)))^{1/3}`, `ln⁺ = max(ln, 1)`.
///
/// # Errors
/// `InvalidParameter` for `B ≤ 0`, `β ∉ (0, 1)`.
pub fn theorem55_rate_unit_constant(p: &SparseProblem, b: f64, beta: f64) -> Result<f64> {
    let (l, sf) = (p.l, p.s());
    let b = check::positive("b", b)?;
    let lg = ((l * sf.sqrt() * p.epsilon * p.n() * p.d() / b).ln() + ln_inv_beta(beta)?).max(1.0);
    finite_result("theorem55_rate_unit_constant", l.powf(2.0 / 3.0) * b.cbrt() * (sf / p.ne() * lg).cbrt())
}

/// \[GGKKM\] Thm. 5.6 (SCO, δ = 0) rate with `F_D` (the statement prints `F_S`), `O(1) = 1` —
/// **trend use only**: Thm. 5.1's pure rate `+ B√(ln(1/β)/n)`.
///
/// # Errors
/// As [`theorem51_pure_rate_unit_constant`], and `B ≤ 0`.
pub fn theorem56_pure_rate_unit_constant(p: &SparseProblem, h: f64, diam_d: f64, b: f64, beta: f64) -> Result<f64> {
    let erm = theorem51_pure_rate_unit_constant(p, h, diam_d, beta)?;
    let b = check::positive("b", b)?;
    finite_result("theorem56_pure_rate_unit_constant", erm + b * (ln_inv_beta(beta)? / p.n()).sqrt())
}

/// \[GGKKM\] Thm. 5.6 (SCO, δ > 0) rate, `O(1) = 1` — **trend use only**:
/// `LD(s ln(1/δ) ln(d/β))^{1/4}/√(εn) + (LD√ln n + B)√(ln(1/β)/n)`.
///
/// # Errors
/// As [`theorem51_approx_rate_unit_constant`], and `B ≤ 0`, `n < 2`.
pub fn theorem56_approx_rate_unit_constant(p: &SparseProblem, diam_d: f64, b: f64, beta: f64) -> Result<f64> {
    let erm = theorem51_approx_rate_unit_constant(p, diam_d, beta)?;
    let b = check::positive("b", b)?;
    let v = erm + (p.l * diam_d * p.ln_n()?.sqrt() + b) * (ln_inv_beta(beta)? / p.n()).sqrt();
    finite_result("theorem56_approx_rate_unit_constant", v)
}

/// \[GGKKM\] Thm. 5.6 (δ > 0), the regularisation with `O(1) = 1`:
/// `λ = (L/D)(ln n ln(1/β)/n + √(s ln(1/δ) ln(d/β))/(εn))^{1/2}`.
///
/// # Errors
/// As [`theorem56_approx_rate_unit_constant`] without B.
pub fn theorem56_lambda_unit_constant(p: &SparseProblem, diam_d: f64, beta: f64) -> Result<f64> {
    let dd = check::positive("diam_d", diam_d)?;
    let (ln_n, lb) = (p.ln_n()?, ln_inv_beta(beta)?);
    let inner = ln_n * lb / p.n() + (p.s() * p.ln_inv_delta()? * (p.d().ln() + lb)).sqrt() / p.ne();
    finite_result("theorem56_lambda_unit_constant", p.l / dd * inner.sqrt())
}
