//! \[AFKT\] Sec. 3.1 building blocks: the p-norm mirror map's constants (p, `c_d`, κ, the Bregman
//! radius), Lemma 3.1 (stochastic mirror descent, convex), Lemma 3.2 (relatively strongly convex,
//! corrected and as printed), and the noise moment `E‖ζ‖²_∞` used by Thm. 3 (safe and as printed).

use super::validate::{finite_result, ln_dim};
use crate::error::{Error, Result, check};

/// The base of the logarithm in `p = 1 + 1/log d` (\[AFKT\] Alg. 2, line 1 never states it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogBase {
    /// `p = 1 + 1/ln d`: then `c_d = d^{1−1/p} = e^{1/p} ∈ (2, e)` for `d ≥ 10`, not `≤ 2`.
    Natural,
    /// `p = 1 + 1/log₂ d`: then `c_d = 2^{1/p} < 2`, the reading under which the paper's
    /// "`d^{1−1/p} ≤ 2`" holds.
    Two,
}

/// `p = min(2, 1 + 1/log_b d)`, the exponent of the l1-geometry p-norm map (\[AFKT\] Alg. 2,
/// line 1; clamped to 2 where the formula exceeds 2, i.e. `d = 2` with `ln`).
///
/// # Errors
/// `InvalidParameter` for `d < 2`.
pub fn pnorm_exponent(d: u64, base: LogBase) -> Result<f64> {
    let ln_d = ln_dim("d", d)?;
    let log_d = match base {
        LogBase::Natural => ln_d,
        LogBase::Two => ln_d / std::f64::consts::LN_2,
    };
    finite_result("pnorm_exponent", (1.0 + 1.0 / log_d).min(2.0))
}

/// `c_d = d^{1−1/p}`, the constant of `‖u‖₁ ≤ c_d‖u‖_p` (tight at `u = (1, …, 1)`).
///
/// # Errors
/// `InvalidParameter` for `d = 0` or `p ∉ (1, 2]`.
pub fn norm_ratio_cd(d: u64, p: f64) -> Result<f64> {
    let d = check::count("d", d)? as f64;
    let p = check_p(p)?;
    finite_result("norm_ratio_cd", d.powf(1.0 - 1.0 / p))
}

/// The constant `c_d ≤ 2` as printed (\[AFKT\] proof of Lemma 3.3 and Alg. 2's radius
/// `2Lη_i n_i(p−1)`): exact only under [`LogBase::Two`].
pub fn norm_ratio_cd_printed() -> f64 {
    2.0
}

pub(super) fn check_p(p: f64) -> Result<f64> {
    if p.is_finite() && p > 1.0 && p <= 2.0 { Ok(p) } else { Err(Error::invalid("p", p, "in (1, 2]")) }
}

/// `κ = c_d²`: the scale for which `h(x) = (κ/(2(p−1)))‖x‖_p²` is 1-strongly convex w.r.t.
/// ‖·‖₁ (`(1/(2(p−1)))‖·‖_p²` is 1-strongly convex w.r.t. ‖·‖_p and `‖·‖_p ≥ ‖·‖₁/c_d`), as
/// \[AFKT\] Thm. 3 assumes of h.
///
/// # Errors
/// As [`norm_ratio_cd`].
pub fn mirror_map_kappa(d: u64, p: f64) -> Result<f64> {
    let c = norm_ratio_cd(d, p)?;
    finite_result("mirror_map_kappa", c * c)
}

/// The Bregman radius `D² = h(x*) − h(0) ≤ κR²/(2(p−1))` of `h = (κ/(2(p−1)))‖·‖_p²`, `κ = c_d²`,
/// started at `x_1 = 0`, for `‖x*‖₁ ≤ R` (`‖x*‖_p ≤ ‖x*‖₁`). With `p = 1 + 1/ln d` it is
/// `e^{2/p}R² ln d/2`; with `p = 1 + 1/log₂ d` it is `2^{2/p}R² log₂ d/2`.
///
/// # Errors
/// `InvalidParameter` for `d < 2` or `R ≤ 0`.
pub fn pnorm_bregman_radius_sq(d: u64, base: LogBase, radius_r: f64) -> Result<f64> {
    let p = pnorm_exponent(d, base)?;
    let r = check::positive("radius_r", radius_r)?;
    let kappa = mirror_map_kappa(d, p)?;
    finite_result("pnorm_bregman_radius_sq", kappa * r * r / (2.0 * (p - 1.0)))
}

/// \[AFKT\] Lemma 3.1 (stochastic mirror descent, h 1-strongly convex w.r.t. ‖·‖₁, constant step η,
/// `E‖g_k‖²_∞ ≤ L²`): `E[f(x̄_T) − f(x*)] ≤ D_h(x*, x_1)/(Tη) + ηL²/2`.
///
/// # Errors
/// `InvalidParameter` for `D_h < 0`, `T = 0`, `η ≤ 0` or `L < 0`.
pub fn lemma31_smd_bound(bregman_radius_sq: f64, t_steps: u64, eta: f64, l: f64) -> Result<f64> {
    let b = check::non_negative("bregman_radius_sq", bregman_radius_sq)?;
    let t = check::count("t_steps", t_steps)? as f64;
    let eta = check::positive("eta", eta)?;
    let l = check::non_negative("l", l)?;
    finite_result("lemma31_smd_bound", b / (t * eta) + eta * l * l / 2.0)
}

/// The step minimising [`lemma31_smd_bound`]: `η* = √(2D_h)/(L√T)`; the bound there is
/// `L√(2D_h/T)`. Returned as `(η*, bound)`.
///
/// # Errors
/// `InvalidParameter` for `D_h ≤ 0`, `T = 0` or `L ≤ 0`.
pub fn lemma31_optimal_step(bregman_radius_sq: f64, t_steps: u64, l: f64) -> Result<(f64, f64)> {
    let b = check::positive("bregman_radius_sq", bregman_radius_sq)?;
    let t = check::count("t_steps", t_steps)? as f64;
    let l = check::positive("l", l)?;
    let eta = finite_result("lemma31_optimal_step", (2.0 * b).sqrt() / (l * t.sqrt()))?;
    Ok((eta, finite_result("lemma31_optimal_step", l * (2.0 * b / t).sqrt())?))
}

/// \[AFKT\] Lemma 3.2, **corrected**: f λ-strongly convex relative to h, `η_k = 2/(λ(k+1))`,
/// weighted average `x̂_T`: `E[f(x̂_T) − f*] ≤ 2L²/(λ(T+1))`. The proof (App. C.1) bounds
/// `kη_k/2 = k/(λ(k+1))` by `1/(2λ)`; it is `≤ 1/λ`, hence the factor 2.
///
/// **What `L` is.** As in Lemma 3.1, `L²` bounds the second moment `E‖g_k‖²_∞` of the
/// *stochastic* gradient the method uses, not the Lipschitz constant of f. With noisy gradients
/// `g_k = ∇f + ζ_k` (Thm. 3's setting) pass `L² = 2L_f² + 2E‖ζ‖²_∞` (e.g. with
/// [`gaussian_linf_sq_bound`]), not `L_f²`.
///
/// **Which h.** The lemma assumes h 1-strongly convex w.r.t. `‖·‖₁`. Alg. 2's
/// `h = (1/(p−1))‖·‖_p²` is only `2/c_d²`-strongly convex w.r.t. `‖·‖₁` (`c_d = d^{1−1/p}`,
/// [`norm_ratio_cd`]; at Alg. 2's `p = 1 + 1/ln d`, `c_d = e^{ln d/(1 + ln d)} > √2` for d ≥ 3), so applying the lemma to Alg. 2's phases needs `L²`
/// replaced by `L²c_d²/2`. No code here evaluates that rescaled form today: this function is
/// the lemma for a 1-strongly convex h only.
///
/// # Errors
/// `InvalidParameter` for `L < 0`, `λ ≤ 0` or `T = 0`.
pub fn lemma32_smd_strongly_convex_corrected(l: f64, lambda: f64, t_steps: u64) -> Result<f64> {
    finite_result(
        "lemma32_smd_strongly_convex_corrected",
        2.0 * lemma32_smd_strongly_convex_printed(l, lambda, t_steps)?,
    )
}

/// \[AFKT\] Lemma 3.2 **as printed**: `L²/(λ(T+1))` (half of the corrected bound).
///
/// # Errors
/// As [`lemma32_smd_strongly_convex_corrected`].
pub fn lemma32_smd_strongly_convex_printed(l: f64, lambda: f64, t_steps: u64) -> Result<f64> {
    let l = check::non_negative("l", l)?;
    let lambda = check::positive("lambda", lambda)?;
    let t = check::count("t_steps", t_steps)? as f64;
    finite_result("lemma32_smd_strongly_convex", l * l / (lambda * (t + 1.0)))
}

/// **Safe** bound `E‖ζ‖²_∞ ≤ σ²(4 ln d + 2 ln 2)` for `ζ ~ N(0, σ²I_d)`, `d ≥ 1`: from
/// `E e^{ζ_j²/(4σ²)} = √2` (the MGF of a χ²₁ at `t = 1/4`) and Jensen,
/// `e^{E max ζ_j²/(4σ²)} ≤ d√2`.
///
/// # Errors
/// `InvalidParameter` for `σ < 0` or `d = 0`.
pub fn gaussian_linf_sq_bound(sigma: f64, d: u64) -> Result<f64> {
    let s = check::non_negative("sigma", sigma)?;
    let d = check::count("d", d)? as f64;
    finite_result("gaussian_linf_sq_bound", s * s * (4.0 * d.ln() + 2.0 * std::f64::consts::LN_2))
}

/// `E‖ζ‖²_∞ ≤ 2σ² log d` **as printed** in the proof of \[AFKT\] Thm. 3 (natural log): only
/// asymptotic; at `d = 1` it is 0 while `E ζ² = σ²`.
///
/// # Errors
/// As [`gaussian_linf_sq_bound`].
pub fn gaussian_linf_sq_bound_printed(sigma: f64, d: u64) -> Result<f64> {
    let s = check::non_negative("sigma", sigma)?;
    let d = check::count("d", d)? as f64;
    finite_result("gaussian_linf_sq_bound_printed", 2.0 * s * s * d.ln())
}
