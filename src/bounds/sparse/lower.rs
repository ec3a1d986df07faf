//! \[GGKKM\] Sec. 4, mean estimation lower bounds (L = 1; they scale linearly in L): Thms. 4.1,
//! 4.4, 4.5 with `Ω(1) = 1` (**trend only**: they quantify over all DP algorithms), Lemma 4.3's
//! amplification and its confidence (printed and corrected), Lemma A.3 (explicit).

use super::SparseProblem;
use super::validate::finite_result;
use crate::error::{Error, Result, check};

/// The range `s < d/2` of Thms. 4.1 and 4.4.
fn half_sparse(p: &SparseProblem) -> Result<()> {
    if 2 * p.s >= p.d {
        return Err(Error::invalid("s", p.s, "< d/2 (Thms. 4.1, 4.4)"));
    }
    Ok(())
}

/// \[GGKKM\] Thm. 4.1 (ε-DP), `Ω(1) = 1` — **trend use only**:
/// `L·min{1, √(s ln⁺(d/(εn))/(εn)), √(sd)/(εn)}` with `ln⁺ = max(ln, 1)` (the middle term is the
/// bound of the regime `n ≲ d/ε`, where `ln(d/(εn)) ≳ 1`; the floor keeps it defined and monotone
/// beyond).
///
/// # Errors
/// `InvalidParameter` for `s ≥ d/2`.
pub fn theorem41_lower_bound_unit_constant(p: &SparseProblem) -> Result<f64> {
    half_sparse(p)?;
    let (s, d, ne) = (p.s(), p.d(), p.ne());
    let lg = (d / ne).ln().max(1.0);
    finite_result("theorem41_lower_bound_unit_constant", p.l * 1f64.min((s * lg / ne).sqrt()).min((s * d).sqrt() / ne))
}

/// \[GGKKM\] Thm. 4.4 (ε-DP, distributional, ρ = 1/2), `Ω(1) = 1` — **trend use only**:
/// `L·min{1, s ln(d/s)/(εn)}`.
///
/// # Errors
/// As [`theorem41_lower_bound_unit_constant`].
pub fn theorem44_lower_bound_unit_constant(p: &SparseProblem) -> Result<f64> {
    half_sparse(p)?;
    finite_result("theorem44_lower_bound_unit_constant", p.l * 1f64.min(p.s_ln_d_over_s()? / p.ne()))
}

/// \[GGKKM\] Thm. 4.5 ((ε, δ)-DP), `Ω(1) = 1` — **trend use only**:
/// `L·min{1, (s ln(1/δ))^{1/4}/√(nε), √(d ln(1/δ))/(nε)}`. The theorem's range
/// `2^{−o(n)} ≤ δ ≤ n^{−(1+Ω(1))}` has unspecified constants and is not enforced.
///
/// # Errors
/// `InvalidParameter` for `ε > 1` or no δ.
pub fn theorem45_lower_bound_unit_constant(p: &SparseProblem) -> Result<f64> {
    p.epsilon_at_most_one()?;
    let (ld, ne) = (p.ln_inv_delta()?, p.ne());
    let v = 1f64.min((p.s() * ld).powf(0.25) / ne.sqrt()).min((p.d() * ld).sqrt() / ne);
    finite_result("theorem45_lower_bound_unit_constant", p.l * v)
}

/// \[GGKKM\] Lemma 4.3 (block-diagonal bootstrapping), `Ω(1) = 1` — **trend use only**:
/// `α = (α₀n₀/n)√(ρ₀K)` for `K ≤ min(n/n₀, d/t)` (the caller's K is not checked against d/t).
///
/// # Errors
/// `InvalidParameter` for `α₀ ≤ 0`, `n₀ = 0`, `n < n₀`, `ρ₀ ∉ (0, 1]`, `K = 0`, `K > n/n₀`.
pub fn lemma43_alpha_unit_constant(alpha0: f64, n0: u64, n: u64, rho0: f64, k: u64) -> Result<f64> {
    let a0 = check::positive("alpha0", alpha0)?;
    let n0 = check::count("n0", n0)?;
    if n < n0 {
        return Err(Error::invalid("n", n, ">= n0"));
    }
    let rho0 = check::rate("rho0", rho0)?;
    let k = check::count("k", k)?;
    if k > n / n0 {
        return Err(Error::invalid("k", k, "<= n/n0"));
    }
    finite_result("lemma43_alpha_unit_constant", a0 * n0 as f64 / n as f64 * (rho0 * k as f64).sqrt())
}

/// \[GGKKM\] Lemma 4.3's confidence **as printed**: `ρ ≥ 1 − exp(−ρ₀/8)` (no K).
///
/// # Errors
/// `InvalidParameter` for `ρ₀ ∉ (0, 1]`.
pub fn lemma43_confidence_printed(rho0: f64) -> Result<f64> {
    let rho0 = check::rate("rho0", rho0)?;
    finite_result("lemma43_confidence_printed", -(-rho0 / 8.0).exp_m1())
}

/// \[GGKKM\] Lemma 4.3's confidence as its Chernoff step gives it: `ρ ≥ 1 − exp(−ρ₀K/8)`.
///
/// # Errors
/// `InvalidParameter` for `ρ₀ ∉ (0, 1]`, `K = 0`.
pub fn lemma43_confidence_corrected(rho0: f64, k: u64) -> Result<f64> {
    let rho0 = check::rate("rho0", rho0)?;
    let k = check::count("k", k)? as f64;
    finite_result("lemma43_confidence_corrected", -(-rho0 * k / 8.0).exp_m1())
}

/// \[GGKKM\] Lemma A.3 (packing + group privacy), explicit:
/// `α = (α₀/2)·min{1, ln(p/2)/(εn)}` for a packing of `p ≥ 3` points with pairwise disjoint
/// balls of radius `α₀/2`, at probability ρ = 1/2.
///
/// # Errors
/// `InvalidParameter` for `α₀ ≤ 0`, `p < 3`, `n = 0`, `ε ≤ 0`.
pub fn lemma_a3_alpha(alpha0: f64, p: u64, n: u64, epsilon: f64) -> Result<f64> {
    let a0 = check::positive("alpha0", alpha0)?;
    if p < 3 {
        return Err(Error::invalid("p", p, ">= 3 (ln(p/2) > 0)"));
    }
    let n = check::count("n", n)? as f64;
    let e = check::positive("epsilon", epsilon)?;
    finite_result("lemma_a3_alpha", a0 / 2.0 * 1f64.min((p as f64 / 2.0).ln() / (e * n)))
}
