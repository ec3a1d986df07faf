//! The pathwise cores of \[ADFJT\] Thm. 6 (AdaGrad-norm SGD, inequality (R-SGD)) and Thm. 7
//! (diagonal AdaGrad, (R-ADA)): the realised regret of a gradient sequence next to the
//! corrected and the printed bound on it (`proofs/adaptive_noise/biased.md` §4).

use super::validate::{check_rows, check_vector, finite_result, root_sum_squares};
use crate::error::{Error, Result, check};

/// A realised regret `Σ_{k=0}^{T−1} ⟨ĝᵏ, xᵏ − u⟩` next to the bounds on it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PathwiseRegret {
    /// `Σ_{k<T} ⟨ĝᵏ, xᵏ − u⟩`.
    pub regret: f64,
    /// The gradient energy the bound is proportional to: `(Σₖ ‖ĝᵏ‖₂²)^{1/2}` for (R-SGD),
    /// `Σⱼ (Σₖ (ĝⱼᵏ)²)^{1/2}` for (R-ADA).
    pub energy: f64,
    /// `(D²/(2α) + α)·energy`: the corrected bound, valid for every α > 0.
    pub bound_corrected: f64,
    /// The bound as printed (see the function's doc for which printed statement).
    pub bound_printed: f64,
}

/// Shared checks of the pathwise functions: `T ≥ 1` gradients and `T` iterates of one dimension,
/// `u` of that dimension, `D ≥ 0`, `α > 0`.
fn check_path<R: AsRef<[f64]>, S: AsRef<[f64]>>(
    g_hat: &[R],
    iterates: &[S],
    comparator_u: &[f64],
    diam: (&'static str, f64),
    step_scale_alpha: f64,
) -> Result<usize> {
    let d = check_rows("g_hat", g_hat)?;
    let dx = check_rows("iterates", iterates)?;
    if iterates.len() != g_hat.len() {
        return Err(Error::invalid(
            "iterates",
            format!("{} points for {} gradients", iterates.len(), g_hat.len()),
            "x^0..x^{T-1}: one point per gradient",
        ));
    }
    if dx != d {
        return Err(Error::invalid("iterates", format!("dimension {dx}"), "of the dimension of g_hat"));
    }
    check_vector("comparator_u", comparator_u)?;
    if comparator_u.len() != d {
        return Err(Error::invalid(
            "comparator_u",
            format!("dimension {}", comparator_u.len()),
            "of the dimension of g_hat",
        ));
    }
    check::non_negative(diam.0, diam.1)?;
    check::positive("step_scale_alpha", step_scale_alpha)?;
    Ok(d)
}

/// `Σₖ ⟨ĝᵏ, xᵏ − u⟩`.
fn realised_regret<R: AsRef<[f64]>, S: AsRef<[f64]>>(g_hat: &[R], iterates: &[S], u: &[f64]) -> f64 {
    g_hat
        .iter()
        .zip(iterates)
        .map(|(g, x)| g.as_ref().iter().zip(x.as_ref()).zip(u).map(|((g, x), u)| g * (x - u)).sum::<f64>())
        .sum()
}

/// The hypothesis `‖xᵏ − u‖ ≤ D` for every k, with a relative slack of 1e-12 for the rounding
/// of the two computations (the caller's `D` and the norms here).
fn check_within_diameter<S: AsRef<[f64]>>(
    iterates: &[S],
    u: &[f64],
    diam: (&'static str, f64),
    norm: impl Fn(&[f64]) -> f64,
) -> Result<()> {
    for x in iterates {
        let diff: Vec<f64> = x.as_ref().iter().zip(u).map(|(x, u)| x - u).collect();
        let r = norm(&diff);
        if r > diam.1 * (1.0 + 1e-12) {
            return Err(Error::invalid(
                diam.0,
                diam.1,
                "at least the distance from every iterate to the comparator (the theorem's hypothesis x^k, u in X)",
            ));
        }
    }
    Ok(())
}

/// Pathwise core of \[ADFJT\] Thm. 6 for AdaGrad-norm projected SGD (Alg. 4 with
/// `α_k = α/(Σ_{i≤k} ‖ĝⁱ‖₂²)^{1/2}`, i.e. PASAN's step, Alg. 1 line 7), inequality (R-SGD) of
/// `proofs/adaptive_noise/biased.md` §4. Given the realised `ĝ⁰..ĝ^{T−1}`, the iterates `x⁰..x^{T−1}` the method produced
/// from them (Euclidean projection onto a convex X), and any `u ∈ X`, with `D = D₂ ≥ ‖xᵏ − u‖₂`:
///
/// ```text
/// regret          = Σ_{k<T} ⟨ĝᵏ, xᵏ − u⟩
/// bound_printed   = D²/(2α_{T−1}) + ½ Σ_{k<T} α_k ‖ĝᵏ‖₂²     (Thm. 6 as printed, times T, pathwise)
/// bound_corrected = (D²/(2α) + α) · (Σ_{k<T} ‖ĝᵏ‖₂²)^{1/2}    (Lemma B.2 applied; (R-SGD))
/// ```
///
/// Both hold for every sequence (`regret ≤ bound_printed ≤ bound_corrected`); at `α = D₂` the
/// corrected coefficient is the `3D₂/2` of the paper's eq. (16), so Thm. 6 has no constant
/// erratum (its erratum E4 concerns only the random `α_{T−1}` under the expectation).
/// Steps with `Σ_{i≤k} ‖ĝⁱ‖² = 0` contribute `0` (`0/0 := 0`).
///
/// # Errors
/// `Empty`/`NonFinite` for bad sequences; `InvalidParameter` for mismatched lengths or
/// dimensions, `D < 0`, `α ≤ 0`, or an iterate farther than `D` from `u` in `‖·‖₂`.
pub fn adagrad_norm_sgd_pathwise_regret<R: AsRef<[f64]>, S: AsRef<[f64]>>(
    g_hat: &[R],
    iterates: &[S],
    comparator_u: &[f64],
    diam_2: f64,
    step_scale_alpha: f64,
) -> Result<PathwiseRegret> {
    check_path(g_hat, iterates, comparator_u, ("diam_2", diam_2), step_scale_alpha)?;
    check_within_diameter(iterates, comparator_u, ("diam_2", diam_2), |v| root_sum_squares(v.iter().copied()))?;
    let alpha = step_scale_alpha;
    let regret = realised_regret(g_hat, iterates, comparator_u);
    // Energies on the scale m = max |ĝ| (all terms below are 1-homogeneous in ĝ).
    let m = g_hat.iter().flat_map(|g| g.as_ref().iter()).fold(0.0f64, |m, v| m.max(v.abs()));
    if m == 0.0 {
        return checked_regret(regret, 0.0, 0.0, 0.0);
    }
    let (mut cum, mut half_sum) = (0.0f64, 0.0f64);
    for g in g_hat {
        let sq: f64 = g.as_ref().iter().map(|v| (v / m).powi(2)).sum();
        cum += sq;
        if cum > 0.0 {
            // ½ α_k ‖ĝᵏ‖² with α_k = α/√cum (on the scale m)
            half_sum += 0.5 * alpha * sq / cum.sqrt();
        }
    }
    let energy = m * cum.sqrt();
    let coef = diam_2 * diam_2 / (2.0 * alpha) + alpha;
    // D²/(2α_{T−1}) = D²·√cum/(2α)
    let bound_printed = diam_2 * diam_2 * energy / (2.0 * alpha) + m * half_sum;
    checked_regret(regret, energy, coef * energy, bound_printed)
}

/// Pathwise core of \[ADFJT\] Thm. 7 for diagonal AdaGrad (Alg. 5 / PAGAN's update, Alg. 2
/// lines 7–8: `H_k = diag(Σ_{i≤k} ĝⁱĝⁱᵀ)^{1/2}/α`, projection in `‖·‖_{H_k}`), inequality (R-ADA)
/// of `proofs/adaptive_noise/biased.md` §4. Given the realised `ĝ⁰..ĝ^{T−1}`, the iterates `x⁰..x^{T−1}` and any `u ∈ X`,
/// with `D = D∞ ≥ ‖xᵏ − u‖∞`:
///
/// ```text
/// regret          = Σ_{k<T} ⟨ĝᵏ, xᵏ − u⟩
/// bound_corrected = (D²/(2α) + α) · Σⱼ (Σ_{k<T} (ĝⱼᵏ)²)^{1/2}    (= 3/2·D∞·Σⱼ… at α = D∞)
/// bound_printed   = D · Σⱼ (Σ_{k<T} (ĝⱼᵏ)²)^{1/2}                (Thm. 7 as printed, times T)
/// ```
///
/// The corrected bound holds for every sequence and every α > 0 (the AdaGrad argument of Duchi
/// 2018, Cor. 4.3.8, with Lemma B.2 per coordinate). The printed one — whose statement fixes
/// `α = D∞` (Alg. 5 line 6) — can fail (erratum E3): `tests/bounds_adaptive_noise_regret.rs`
/// records a four-step instance on `[−1, 1]` with ratio 1.1145. For `α ≠ D∞` the printed statement
/// does not apply and `bound_printed` is reported for comparison only.
///
/// # Errors
/// `Empty`/`NonFinite` for bad sequences; `InvalidParameter` for mismatched lengths or
/// dimensions, `D < 0`, `α ≤ 0`, or an iterate farther than `D` from `u` in `‖·‖∞`.
pub fn diagonal_adagrad_pathwise_regret<R: AsRef<[f64]>, S: AsRef<[f64]>>(
    g_hat: &[R],
    iterates: &[S],
    comparator_u: &[f64],
    diam_inf: f64,
    step_scale_alpha: f64,
) -> Result<PathwiseRegret> {
    let d = check_path(g_hat, iterates, comparator_u, ("diam_inf", diam_inf), step_scale_alpha)?;
    check_within_diameter(iterates, comparator_u, ("diam_inf", diam_inf), |v| {
        v.iter().fold(0.0, |m, x| m.max(x.abs()))
    })?;
    let alpha = step_scale_alpha;
    let regret = realised_regret(g_hat, iterates, comparator_u);
    let energy: f64 = (0..d).map(|j| root_sum_squares(g_hat.iter().map(|g| g.as_ref()[j]))).sum();
    let coef = diam_inf * diam_inf / (2.0 * alpha) + alpha;
    checked_regret(regret, energy, coef * energy, diam_inf * energy)
}

/// The [`PathwiseRegret`] of its four values, each finite (an overflow is `Numerical`).
fn checked_regret(regret: f64, energy: f64, bound_corrected: f64, bound_printed: f64) -> Result<PathwiseRegret> {
    Ok(PathwiseRegret {
        regret: finite_result("pathwise_regret", regret)?,
        energy: finite_result("pathwise_regret_energy", energy)?,
        bound_corrected: finite_result("pathwise_regret_bound_corrected", bound_corrected)?,
        bound_printed: finite_result("pathwise_regret_bound_printed", bound_printed)?,
    })
}
