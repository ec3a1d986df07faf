//! \[GGKKM\] Sec. 5, convex ERM/SCO with Alg. 3 (output perturbation): Thm. 5.1's pathwise
//! inequality (corrected `2√s L` and printed `√(2s) L`), its noise scales and explicit
//! high-probability forms, the `ℓ∞` tails (corrected and as printed in the proof), and the rates
//! of Thms. 5.1, 5.5, 5.6 with `O(1) = 1`.

use super::validate::{finite_result, gaussian_epsilon, ln_inv_beta, ln_inv_delta, ln_n, sparsity};
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
/// `InvalidParameter` for `L, λ, ε ≤ 0`, `H < 0`, `s = 0`, `n = 0`.
pub fn theorem51_laplace_scale(l: f64, s: u64, lambda: f64, h: f64, n: u64, epsilon: f64) -> Result<f64> {
    let l = check::positive("l", l)?;
    let s = check::count("s", s)? as f64;
    let lam = check::positive("lambda", lambda)?;
    let h = check::non_negative("h", h)?;
    let n = check::count("n", n)? as f64;
    let e = check::positive("epsilon", epsilon)?;
    finite_result("theorem51_laplace_scale", 2.0 * (2.0 * s).sqrt() * l / (lam * e * n) * (2.0 * h / lam + 1.0))
}

/// \[GGKKM\] Alg. 3 / Thm. 5.1, Gaussian scale at δ > 0 (`Δ₂ = 2L/(λn)`, classical calibration):
/// `σ = 2√2 L√(ln(1.25/δ))/(λεn)`.
///
/// # Errors
/// `InvalidParameter` for `L, λ ≤ 0`, `n = 0`, `ε ∉ (0, 1]`, `δ ∉ (0, 1)`.
pub fn theorem51_gaussian_scale(l: f64, lambda: f64, n: u64, epsilon: f64, delta: f64) -> Result<f64> {
    let l = check::positive("l", l)?;
    let lam = check::positive("lambda", lambda)?;
    let n = check::count("n", n)? as f64;
    let e = gaussian_epsilon(epsilon)?;
    check::open_unit("delta", delta)?;
    finite_result("theorem51_gaussian_scale", 2.0 * 2f64.sqrt() * l * (1.25 / delta).ln().sqrt() / (lam * e * n))
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
/// As [`theorem51_laplace_scale`], and `d < s`, `β ∉ (0, 1)`, `D < 0`.
#[allow(clippy::too_many_arguments)]
pub fn theorem51_pure_bound(
    l: f64,
    s: u64,
    d: u64,
    lambda: f64,
    h: f64,
    diam_d: f64,
    n: u64,
    epsilon: f64,
    beta: f64,
) -> Result<f64> {
    sparsity(s, d)?;
    let sigma = theorem51_laplace_scale(l, s, lambda, h, n, epsilon)?;
    theorem51_pathwise_bound_corrected(l, s, laplace_linf_tail(sigma, d, beta)?, lambda, diam_d)
}

/// \[GGKKM\] Thm. 5.1 (δ > 0), explicit: with probability `≥ 1 − β`,
/// `F_S(x̂) − F_S(x*) ≤ 2√s L σ√(2 ln(2d/β)) + λD²/2`, σ of [`theorem51_gaussian_scale`].
///
/// # Errors
/// As [`theorem51_gaussian_scale`], and `s ∉ [1, d]`, `β ∉ (0, 1)`, `D < 0`.
#[allow(clippy::too_many_arguments)]
pub fn theorem51_approx_bound(
    l: f64,
    s: u64,
    d: u64,
    lambda: f64,
    diam_d: f64,
    n: u64,
    epsilon: f64,
    delta: f64,
    beta: f64,
) -> Result<f64> {
    let (_, df) = sparsity(s, d)?;
    let sigma = theorem51_gaussian_scale(l, lambda, n, epsilon, delta)?;
    let linf = sigma * (2.0 * ((2.0 * df).ln() + ln_inv_beta(beta)?)).sqrt();
    theorem51_pathwise_bound_corrected(l, s, linf, lambda, diam_d)
}

/// \[GGKKM\] Thm. 5.1 (δ = 0) rate, `O(1) = 1` — **trend use only**:
/// `L^{2/3}H^{1/3}D^{4/3}(s ln(d/β)/(εn))^{1/3}`.
///
/// # Errors
/// `InvalidParameter` for `L, H, D, ε ≤ 0`, `n = 0`, `s ∉ [1, d]`, `β ∉ (0, 1)`.
#[allow(clippy::too_many_arguments)]
pub fn theorem51_pure_rate_unit_constant(
    l: f64,
    h: f64,
    diam_d: f64,
    s: u64,
    d: u64,
    n: u64,
    epsilon: f64,
    beta: f64,
) -> Result<f64> {
    let (l, h, dd) = (check::positive("l", l)?, check::positive("h", h)?, check::positive("diam_d", diam_d)?);
    let (sf, df) = sparsity(s, d)?;
    let n = check::count("n", n)? as f64;
    let e = check::positive("epsilon", epsilon)?;
    let lg = df.ln() + ln_inv_beta(beta)?;
    let v = l.powf(2.0 / 3.0) * h.cbrt() * dd.powf(4.0 / 3.0) * (sf * lg / (e * n)).cbrt();
    finite_result("theorem51_pure_rate_unit_constant", v)
}

/// \[GGKKM\] Thm. 5.1 (δ > 0) rate, `O(1) = 1` — **trend use only**:
/// `LD(s ln(1/δ) ln(d/β))^{1/4}/√(εn)`.
///
/// # Errors
/// `InvalidParameter` for `L, D, ε ≤ 0`, `n = 0`, `s ∉ [1, d]`, `δ, β ∉ (0, 1)`.
#[allow(clippy::too_many_arguments)]
pub fn theorem51_approx_rate_unit_constant(
    l: f64,
    diam_d: f64,
    s: u64,
    d: u64,
    n: u64,
    epsilon: f64,
    delta: f64,
    beta: f64,
) -> Result<f64> {
    let (l, dd) = (check::positive("l", l)?, check::positive("diam_d", diam_d)?);
    let (sf, df) = sparsity(s, d)?;
    let n = check::count("n", n)? as f64;
    let e = check::positive("epsilon", epsilon)?;
    let lg = df.ln() + ln_inv_beta(beta)?;
    let v = l * dd * (sf * ln_inv_delta(delta)? * lg).powf(0.25) / (e * n).sqrt();
    finite_result("theorem51_approx_rate_unit_constant", v)
}

/// \[GGKKM\] Thm. 5.5 (Alg. 4, exponential mechanism) rate, `O(1) = 1` — **trend use only**:
/// `L^{2/3}B^{1/3}((s/(εn))·ln⁺(L√s εn d/(Bβ)))^{1/3}`, `ln⁺ = max(ln, 1)`.
///
/// # Errors
/// `InvalidParameter` for `L, B, ε ≤ 0`, `n = 0`, `s ∉ [1, d]`, `β ∉ (0, 1)`.
pub fn theorem55_rate_unit_constant(l: f64, b: f64, s: u64, d: u64, n: u64, epsilon: f64, beta: f64) -> Result<f64> {
    let (l, b) = (check::positive("l", l)?, check::positive("b", b)?);
    let (sf, df) = sparsity(s, d)?;
    let n = check::count("n", n)? as f64;
    let e = check::positive("epsilon", epsilon)?;
    let lg = ((l * sf.sqrt() * e * n * df / b).ln() + ln_inv_beta(beta)?).max(1.0);
    finite_result("theorem55_rate_unit_constant", l.powf(2.0 / 3.0) * b.cbrt() * (sf / (e * n) * lg).cbrt())
}

/// \[GGKKM\] Thm. 5.6 (SCO, δ = 0) rate with `F_D` (the statement prints `F_S`), `O(1) = 1` —
/// **trend use only**: Thm. 5.1's pure rate `+ B√(ln(1/β)/n)`.
///
/// # Errors
/// As [`theorem51_pure_rate_unit_constant`], and `B ≤ 0`.
#[allow(clippy::too_many_arguments)]
pub fn theorem56_pure_rate_unit_constant(
    l: f64,
    h: f64,
    diam_d: f64,
    b: f64,
    s: u64,
    d: u64,
    n: u64,
    epsilon: f64,
    beta: f64,
) -> Result<f64> {
    let erm = theorem51_pure_rate_unit_constant(l, h, diam_d, s, d, n, epsilon, beta)?;
    let b = check::positive("b", b)?;
    finite_result("theorem56_pure_rate_unit_constant", erm + b * (ln_inv_beta(beta)? / n as f64).sqrt())
}

/// \[GGKKM\] Thm. 5.6 (SCO, δ > 0) rate, `O(1) = 1` — **trend use only**:
/// `LD(s ln(1/δ) ln(d/β))^{1/4}/√(εn) + (LD√ln n + B)√(ln(1/β)/n)`.
///
/// # Errors
/// As [`theorem51_approx_rate_unit_constant`], and `B ≤ 0`, `n < 2`.
#[allow(clippy::too_many_arguments)]
pub fn theorem56_approx_rate_unit_constant(
    l: f64,
    diam_d: f64,
    b: f64,
    s: u64,
    d: u64,
    n: u64,
    epsilon: f64,
    delta: f64,
    beta: f64,
) -> Result<f64> {
    let erm = theorem51_approx_rate_unit_constant(l, diam_d, s, d, n, epsilon, delta, beta)?;
    let b = check::positive("b", b)?;
    let ln_n = ln_n("n", n)?;
    let v = erm + (l * diam_d * ln_n.sqrt() + b) * (ln_inv_beta(beta)? / n as f64).sqrt();
    finite_result("theorem56_approx_rate_unit_constant", v)
}

/// \[GGKKM\] Thm. 5.6 (δ > 0), the regularisation with `O(1) = 1`:
/// `λ = (L/D)(ln n ln(1/β)/n + √(s ln(1/δ) ln(d/β))/(εn))^{1/2}`.
///
/// # Errors
/// As [`theorem56_approx_rate_unit_constant`] without B.
#[allow(clippy::too_many_arguments)]
pub fn theorem56_lambda_unit_constant(
    l: f64,
    diam_d: f64,
    s: u64,
    d: u64,
    n: u64,
    epsilon: f64,
    delta: f64,
    beta: f64,
) -> Result<f64> {
    let (l, dd) = (check::positive("l", l)?, check::positive("diam_d", diam_d)?);
    let (sf, df) = sparsity(s, d)?;
    let ln_n = ln_n("n", n)?;
    let nf = n as f64;
    let e = check::positive("epsilon", epsilon)?;
    let lb = ln_inv_beta(beta)?;
    let inner = ln_n * lb / nf + (sf * ln_inv_delta(delta)? * (df.ln() + lb)).sqrt() / (e * nf);
    finite_result("theorem56_lambda_unit_constant", l / dd * inner.sqrt())
}
