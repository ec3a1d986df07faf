//! \[GGKKM\] Sec. 3, mean estimation upper bounds: Lemma 3.1 (pathwise), Thm. 3.2 (Alg. 1,
//! Laplace) and Thm. 3.3 (Alg. 1, Gaussian) with explicit constants derived from Fact 2.4's
//! tails, the second moments of Alg. 1, and Thm. 3.4 (Alg. 2) with `O(1) = 1`.

use super::SparseProblem;
use super::validate::{finite_result, harmonic, ln_inv_beta};
use crate::error::{Error, Result, check};

/// \[GGKKM\] Lemma 3.1, pathwise: `‖ẑ − z̄‖₂ ≤ √(2L√s‖ξ‖_∞)` for Alg. 1 (projection onto the l1
/// ball of radius `L√s`), given the realised `‖ξ‖_∞`.
///
/// # Errors
/// `InvalidParameter` for `L ≤ 0`, `s = 0`, `‖ξ‖_∞ < 0` or non-finite input.
pub fn lemma31_projection_error_bound(l: f64, s: u64, xi_linf: f64) -> Result<f64> {
    let l = check::positive("l", l)?;
    let s = check::count("s", s)? as f64;
    let x = check::non_negative("xi_linf", xi_linf)?;
    finite_result("lemma31_projection_error_bound", (2.0 * l * s.sqrt() * x).sqrt())
}

/// The Laplace scale of \[GGKKM\] Alg. 1 at δ = 0 (Thm. 3.2's proof): `Δ₁/ε = 2L√s/(nε)`.
///
/// # Errors
/// None beyond [`SparseProblem::new`]'s (an overflow is reported).
pub fn theorem32_laplace_scale(p: &SparseProblem) -> Result<f64> {
    finite_result("theorem32_laplace_scale", 2.0 * p.l * p.s().sqrt() / p.ne())
}

/// Thm. 3.2's dense and sparse terms, on the one event `‖ξ‖_∞ ≤ σ ln(d/β)`.
fn theorem32_terms(p: &SparseProblem, beta: f64) -> Result<(f64, f64)> {
    let (l, s, ne) = (p.l, p.s(), p.ne());
    let lb = ln_inv_beta(beta)? + p.d().ln(); // ln(d/β)
    Ok((2.0 * l * (s * p.d()).sqrt() * lb / ne, 2.0 * l * (s * lb / ne).sqrt()))
}

/// \[GGKKM\] Thm. 3.2 (δ = 0), dense term with the explicit constant 2:
/// `‖ẑ − z̄‖₂ ≤ 2L√(sd) ln(d/β)/(nε)` with probability `≥ 1 − β` (`‖ξ‖₂ ≤ √d‖ξ‖_∞`,
/// `‖ξ‖_∞ ≤ σ ln(d/β)`, projection non-expansive).
///
/// # Errors
/// `InvalidParameter` for `β ∉ (0, 1)`.
pub fn theorem32_dense_term(p: &SparseProblem, beta: f64) -> Result<f64> {
    let (dense, _) = theorem32_terms(p, beta)?;
    finite_result("theorem32_dense_term", dense)
}

/// \[GGKKM\] Thm. 3.2 (δ = 0), sparse term with the explicit constant 2:
/// `‖ẑ − z̄‖₂ ≤ 2L√(s ln(d/β)/(nε))` with probability `≥ 1 − β` (Lemma 3.1 on the same event
/// `‖ξ‖_∞ ≤ σ ln(d/β)`).
///
/// # Errors
/// As [`theorem32_dense_term`].
pub fn theorem32_sparse_term(p: &SparseProblem, beta: f64) -> Result<f64> {
    let (_, sparse) = theorem32_terms(p, beta)?;
    finite_result("theorem32_sparse_term", sparse)
}

/// \[GGKKM\] Thm. 3.2, explicit: the minimum of [`theorem32_dense_term`] and
/// [`theorem32_sparse_term`], which holds with probability `≥ 1 − β` (both terms follow from the
/// one event `‖ξ‖_∞ ≤ σ ln(d/β)`).
///
/// # Errors
/// As [`theorem32_dense_term`].
pub fn theorem32_bound(p: &SparseProblem, beta: f64) -> Result<f64> {
    let (dense, sparse) = theorem32_terms(p, beta)?;
    finite_result("theorem32_bound", dense.min(sparse))
}

/// Where the minimum of Thm. 3.2 switches branch: the dense term is the smaller one iff
/// `nε ≥ d ln(d/β)`; this returns that sample size `n* = d ln(d/β)/ε` (real-valued).
///
/// # Errors
/// `InvalidParameter` for `d = 0`, `ε ≤ 0`, `β ∉ (0, 1)`.
pub fn theorem32_crossover_n(d: u64, epsilon: f64, beta: f64) -> Result<f64> {
    let d = check::count("d", d)? as f64;
    let e = check::positive("epsilon", epsilon)?;
    let lb = ln_inv_beta(beta)? + d.ln();
    finite_result("theorem32_crossover_n", d * lb / e)
}

/// The Gaussian scale of \[GGKKM\] Alg. 1 at δ > 0 (Thm. 3.3's proof, `Δ₂ = 2L/n`):
/// `σ = 2√2 L √(ln(1.25/δ))/(nε)`, classical calibration (ε ≤ 1).
///
/// # Errors
/// `InvalidParameter` for `ε > 1` or no δ.
pub fn theorem33_gaussian_scale(p: &SparseProblem) -> Result<f64> {
    let (e, delta) = (p.epsilon_at_most_one()?, p.delta()?);
    finite_result("theorem33_gaussian_scale", 2.0 * 2f64.sqrt() * p.l * (1.25 / delta).ln().sqrt() / (p.n() * e))
}

/// \[GGKKM\] Thm. 3.3, dense term, explicit: `σ(√d + √(2 ln(1/β)))` with probability `≥ 1 − β`
/// (Gaussian norm concentration; projection non-expansive).
///
/// # Errors
/// As [`theorem33_gaussian_scale`], and `β ∉ (0, 1)`.
pub fn theorem33_dense_term(p: &SparseProblem, beta: f64) -> Result<f64> {
    let sigma = theorem33_gaussian_scale(p)?;
    let lb = ln_inv_beta(beta)?;
    finite_result("theorem33_dense_term", sigma * (p.d().sqrt() + (2.0 * lb).sqrt()))
}

/// \[GGKKM\] Thm. 3.3, sparse term, explicit: `2√2 L (s ln(1.25/δ) ln(2d/β))^{1/4}/√(nε)` with
/// probability `≥ 1 − β` (Lemma 3.1 with `‖ξ‖_∞ ≤ σ√(2 ln(2d/β))`, Fact 2.4(b)-(i)).
///
/// # Errors
/// As [`theorem33_dense_term`].
pub fn theorem33_sparse_term(p: &SparseProblem, beta: f64) -> Result<f64> {
    let sigma = theorem33_gaussian_scale(p)?;
    let lb = ln_inv_beta(beta)?;
    let linf = sigma * (2.0 * ((2.0 * p.d()).ln() + lb)).sqrt();
    lemma31_projection_error_bound(p.l, p.s, linf).and_then(|v| finite_result("theorem33_sparse_term", v))
}

/// \[GGKKM\] Thm. 3.3, explicit: `min(dense(β/2), sparse(β/2))`, which holds with probability
/// `≥ 1 − β` (union bound over the two events).
///
/// # Errors
/// As [`theorem33_dense_term`].
pub fn theorem33_bound(p: &SparseProblem, beta: f64) -> Result<f64> {
    ln_inv_beta(beta)?;
    let dense = theorem33_dense_term(p, beta / 2.0)?;
    let sparse = theorem33_sparse_term(p, beta / 2.0)?;
    finite_result("theorem33_bound", dense.min(sparse))
}

/// Second moment of \[GGKKM\] Alg. 1 with Laplace noise (derived here from Lemma 3.1 and Fact
/// 2.4(a): `E‖ξ‖²₂ = 2dσ²`, `E‖ξ‖_∞ = σH_d`): `E‖ẑ − z̄‖² ≤ min(2dσ², 4L²sH_d/(nε))`,
/// `σ = 2L√s/(nε)`.
///
/// # Errors
/// None beyond [`SparseProblem::new`]'s (an overflow is reported).
pub fn alg1_second_moment_laplace(p: &SparseProblem) -> Result<f64> {
    let (l, s) = (p.l, p.s());
    let sigma = 2.0 * l * s.sqrt() / p.ne();
    let v = (2.0 * p.d() * sigma * sigma).min(4.0 * l * l * s * harmonic(p.d) / p.ne());
    finite_result("alg1_second_moment_laplace", v)
}

/// Second moment of \[GGKKM\] Alg. 1 with Gaussian noise (derived here: `E‖ξ‖²₂ = dσ²`,
/// `E‖ξ‖_∞ ≤ σ√(2 ln 2d)`): `E‖ẑ − z̄‖² ≤ min(dσ², 8L²√(s ln(1.25/δ) ln(2d))/(nε))`.
///
/// # Errors
/// As [`theorem33_gaussian_scale`].
pub fn alg1_second_moment_gaussian(p: &SparseProblem) -> Result<f64> {
    let sigma = theorem33_gaussian_scale(p)?;
    let (l, d) = (p.l, p.d());
    let v = (d * sigma * sigma).min(8.0 * l * l * (p.s() * (1.25 / p.delta()?).ln() * (2.0 * d).ln()).sqrt() / p.ne());
    finite_result("alg1_second_moment_gaussian", v)
}

/// \[GGKKM\] Thm. 3.4 (Alg. 2), eq. (3) with `O(1) = 1` — **trend use only**:
/// `L min{(√d + √ln(1/β))√ln(1/δ)/(nε), (s ln(d/s) ln(1/δ))^{1/4}/√(nε) + √(ln(1/β)ln(1/δ))/(nε)}`.
///
/// # Errors
/// `InvalidParameter` for `ε > 1`, `s = d`, no δ, `β ∉ (0, 1)`.
pub fn theorem34_rate_unit_constant(p: &SparseProblem, beta: f64) -> Result<f64> {
    p.epsilon_at_most_one()?;
    let q = p.s_ln_d_over_s()?;
    let (ld, lb) = (p.ln_inv_delta()?, ln_inv_beta(beta)?);
    let ne = p.ne();
    let dense = (p.d().sqrt() + lb.sqrt()) * ld.sqrt() / ne;
    let sparse = (q * ld).powf(0.25) / ne.sqrt() + (lb * ld).sqrt() / ne;
    finite_result("theorem34_rate_unit_constant", p.l * dense.min(sparse))
}

/// \[GGKKM\] Thm. 3.4, second moment with `O(1) = 1` — **trend use only**:
/// `L² min{d ln(1/δ)/(nε)², √(s ln(d/s) ln(1/δ))/(nε)}`.
///
/// # Errors
/// As [`theorem34_rate_unit_constant`] without β.
pub fn theorem34_second_moment_unit_constant(p: &SparseProblem) -> Result<f64> {
    p.epsilon_at_most_one()?;
    let q = p.s_ln_d_over_s()?;
    let (l, ld, ne) = (p.l, p.ln_inv_delta()?, p.ne());
    finite_result("theorem34_second_moment_unit_constant", l * l * (p.d() * ld / (ne * ne)).min((q * ld).sqrt() / ne))
}

/// \[GGKKM\] Thm. 3.4's measurement count **as printed**, `O(1) = 1`: `nε√(s ln(d/s)/√ln(1/δ))`
/// (the extra square root on `ln(1/δ)` contradicts Alg. 2 and the proof). L is not read.
///
/// # Errors
/// `InvalidParameter` for `s = d`, no δ.
pub fn theorem34_measurements_printed_unit_constant(p: &SparseProblem) -> Result<f64> {
    let q = p.s_ln_d_over_s()?;
    finite_result("theorem34_measurements_printed_unit_constant", p.ne() * (q / p.ln_inv_delta()?.sqrt()).sqrt())
}

/// \[GGKKM\] Thm. 3.4's measurement count as used by Alg. 2 and the proof, `O(1) = 1`:
/// `m = nε√(s ln(d/s)/ln(1/δ))` (≈ `sK ln(d/s)`). L is not read.
///
/// # Errors
/// As [`theorem34_measurements_printed_unit_constant`].
pub fn theorem34_measurements_corrected_unit_constant(p: &SparseProblem) -> Result<f64> {
    let q = p.s_ln_d_over_s()?;
    finite_result("theorem34_measurements_corrected_unit_constant", p.ne() * (q / p.ln_inv_delta()?).sqrt())
}

/// \[GGKKM\] Table 1 (Thm. 3.2's rate with `O(1) = 1`, L = 1: the problem's L is not read) —
/// **trend use only**: `min{1, √(s ln d/(εn)), √(sd)/(εn)}`.
///
/// # Errors
/// `InvalidParameter` for `d < 2`.
pub fn table1_pure_upper_rate_unit_constant(p: &SparseProblem) -> Result<f64> {
    if p.d < 2 {
        return Err(Error::invalid("d", p.d, ">= 2 (the bound uses ln d)"));
    }
    let (s, d, ne) = (p.s(), p.d(), p.ne());
    finite_result("table1_pure_upper_rate_unit_constant", 1f64.min((s * d.ln() / ne).sqrt()).min((s * d).sqrt() / ne))
}
