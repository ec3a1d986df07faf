//! \[GGKKM\] Sec. 7, Thm. 7.1 (Alg. 7, private confidence boosting): the number of runs, the
//! Laplace selection scale (printed and doubled), the concentration radius, the failure
//! probability of the proof, and the rates with `O(1) = 1`.

use super::SparseProblem;
use super::validate::finite_result;
use crate::error::{Error, Result, check};

fn beta_half(beta: f64) -> Result<f64> {
    if beta > 0.0 && beta <= 0.5 { Ok(beta) } else { Err(Error::invalid("beta", beta, "in (0, 1/2]")) }
}

/// \[GGKKM\] Thm. 7.1: `K = ⌈log₂(2/β)⌉` independent runs of Alg. 6.
///
/// # Errors
/// `InvalidParameter` for `β ∉ (0, 1)`.
pub fn theorem71_runs(beta: f64) -> Result<u64> {
    let beta = check::open_unit("beta", beta)?;
    Ok((2.0 / beta).log2().ceil() as u64)
}

/// \[GGKKM\] Alg. 7's Laplace scale **as printed**: `λ = Δ(K + 1)/(nε)`, with the score range
/// `Δ = B` (convex) or `2L` (nonconvex). Report-noisy-min with non-monotone scores is then only
/// `2ε/(K+1)`-DP.
///
/// # Errors
/// `InvalidParameter` for `Δ, ε ≤ 0`, `K = 0`, `n = 0`.
pub fn theorem71_laplace_scale_printed(score_range: f64, k: u64, n: u64, epsilon: f64) -> Result<f64> {
    let dl = check::positive("score_range", score_range)?;
    let k = check::count("k", k)? as f64;
    let n = check::count("n", n)? as f64;
    let e = check::positive("epsilon", epsilon)?;
    finite_result("theorem71_laplace_scale_printed", dl * (k + 1.0) / (n * e))
}

/// Alg. 7's Laplace scale, corrected: `λ = 2Δ(K + 1)/(nε)` (`ε/(K+1)`-DP for non-monotone
/// scores).
///
/// # Errors
/// As [`theorem71_laplace_scale_printed`].
pub fn theorem71_laplace_scale_corrected(score_range: f64, k: u64, n: u64, epsilon: f64) -> Result<f64> {
    finite_result(
        "theorem71_laplace_scale_corrected",
        2.0 * theorem71_laplace_scale_printed(score_range, k, n, epsilon)?,
    )
}

/// \[GGKKM\] Thm. 7.1's proof: `γ = λ ln(4K/β)`, the radius with `P[max_k |ξ_k| > γ] ≤ β/2`.
///
/// # Errors
/// `InvalidParameter` for `λ ≤ 0`, `K = 0`, `β ∉ (0, 1)`.
pub fn theorem71_radius(lambda: f64, k: u64, beta: f64) -> Result<f64> {
    let lam = check::positive("lambda", lambda)?;
    let k = check::count("k", k)? as f64;
    let beta = check::open_unit("beta", beta)?;
    finite_result("theorem71_radius", lam * (4.0 * k / beta).ln())
}

/// \[GGKKM\] Thm. 7.1's proof: `P[fail] ≤ 2^{−K} + 2K exp(−γ/λ)` (all K runs fail, or some
/// Laplace draw exceeds γ).
///
/// # Errors
/// `InvalidParameter` for `K = 0`, `γ < 0`, `λ ≤ 0`.
pub fn theorem71_failure_probability(k: u64, gamma: f64, lambda: f64) -> Result<f64> {
    let k = check::count("k", k)?;
    let g = check::non_negative("gamma", gamma)?;
    let lam = check::positive("lambda", lambda)?;
    let kf = k as f64;
    finite_result("theorem71_failure_probability", 0.5f64.powf(kf) + 2.0 * kf * (-g / lam).exp())
}

/// \[GGKKM\] Thm. 7.1, convex, the proof's final form with `O(1) = 1` — **trend use only**:
/// `LD√ln n [s ln(d/s) ln³(ln(1/β)/δ)]^{1/4}√ln(1/β)/√(εn) + (2B/(nε))(log₂(2/β) + 1) ln(4log₂(2/β)/β)`.
///
/// # Errors
/// `InvalidParameter` for `D, B ≤ 0`, `n < 2`, `s = d`, no δ or `δ ≥ 1/2`, `β ∉ (0, 1/2]`.
pub fn theorem71_convex_rate_unit_constant(p: &SparseProblem, diam_d: f64, b: f64, beta: f64) -> Result<f64> {
    let (dd, bb) = (check::positive("diam_d", diam_d)?, check::positive("b", b)?);
    let (q, ln_n, delta) = (p.s_ln_d_over_s()?, p.ln_n()?, p.delta()?);
    if delta >= 0.5 {
        return Err(Error::invalid("delta", delta, "< 1/2"));
    }
    let beta = beta_half(beta)?;
    let (lib, k2, ne) = (-beta.ln(), (2.0 / beta).log2(), p.ne());
    let inner = (lib / delta).ln();
    let v = p.l * dd * ln_n.sqrt() * (q * inner.powi(3)).powf(0.25) * lib.sqrt() / ne.sqrt()
        + 2.0 * bb / ne * (k2 + 1.0) * (4.0 * k2 / beta).ln();
    finite_result("theorem71_convex_rate_unit_constant", v)
}

/// \[GGKKM\] Thm. 7.1, nonconvex, as stated with `O(1) = 1` — **trend use only**:
/// `([ΓH]^{1/4}√L[ln n ln(1/δ)]^{1/4} + L)(s ln(d/s) ln(1/δ))^{1/8}/(εn)^{1/4} + (L/(nε)) ln(1/β) ln(ln(1/β)/β)`.
///
/// # Errors
/// `InvalidParameter` for `Γ, H ≤ 0`, `n < 2`, `s = d`, no δ, `β ∉ (0, 1/2]`.
pub fn theorem71_nonconvex_rate_unit_constant(p: &SparseProblem, gamma: f64, h: f64, beta: f64) -> Result<f64> {
    let (g, hh) = (check::positive("gamma", gamma)?, check::positive("h", h)?);
    let (q, ln_n, ld) = (p.s_ln_d_over_s()?, p.ln_n()?, p.ln_inv_delta()?);
    let beta = beta_half(beta)?;
    let (l, lib, ne) = (p.l, -beta.ln(), p.ne());
    let v = ((g * hh).powf(0.25) * l.sqrt() * (ln_n * ld).powf(0.25) + l) * (q * ld).powf(0.125) / ne.powf(0.25)
        + l / ne * lib * (lib / beta).ln();
    finite_result("theorem71_nonconvex_rate_unit_constant", v)
}
