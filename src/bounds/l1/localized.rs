//! \[AFKT\] Thm. 4 (Algorithm 2, localized noisy mirror descent, DP-SCO in l1 geometry): the base
//! step, the phase radius (corrected and as printed), the phase batch sizes and gradient counts
//! (corrected and as printed), and the printed rate with `O(1) = 1`.

use super::L1Setting;
use super::mirror::{check_p, norm_ratio_cd};
use super::validate::{finite_result, ln_dim, ln_n};
use crate::error::{Result, check};

/// \[AFKT\] Thm. 4's base step `η = (D/L)·min{√(ln d/n), ε/√(d ln d ln(1/δ))}`.
///
/// # Errors
/// `InvalidParameter` for `D ≤ 0`, `L ≤ 0`.
pub fn theorem4_base_step(diam_d: f64, l: f64, setting: &L1Setting) -> Result<f64> {
    let (dd, l) = (check::positive("diam_d", diam_d)?, check::positive("l", l)?);
    let (n, ln_d) = (setting.n(), setting.ln_d());
    let m = (ln_d / n).sqrt().min(setting.epsilon() / (setting.d() * ln_d * setting.ln_inv_delta()).sqrt());
    finite_result("theorem4_base_step", dd / l * m)
}

/// \[AFKT\] Thm. 4 (= Thm. 1) rate as printed, `O(1) = 1` — **trend use only**:
/// `LD(√(ln d/n) + √(d ln³d ln(1/δ))/(nε))`.
///
/// # Errors
/// `InvalidParameter` for `L, D ≤ 0`.
pub fn theorem4_rate_unit_constant(l: f64, diam_d: f64, setting: &L1Setting) -> Result<f64> {
    let (l, dd) = (check::positive("l", l)?, check::positive("diam_d", diam_d)?);
    let (n, ln_d) = (setting.n(), setting.ln_d());
    let v = l
        * dd
        * ((ln_d / n).sqrt() + (setting.d() * ln_d.powi(3) * setting.ln_inv_delta()).sqrt() / (n * setting.epsilon()));
    finite_result("theorem4_rate_unit_constant", v)
}

/// The phase radius of \[AFKT\] Alg. 2, **corrected**: `r_i = c_d L η_i n_i (p − 1)`,
/// `c_d = d^{1−1/p}`. The proof of Lemma 3.3 shows `‖x̂_i − x_{i−1}‖_p ≤ r_i` from
/// `(1/(η_i n_i(p−1)))‖x̂_i − x_{i−1}‖_p² ≤ L‖x̂_i − x_{i−1}‖₁ ≤ L c_d‖x̂_i − x_{i−1}‖_p`.
///
/// # Errors
/// `InvalidParameter` for `L ≤ 0`, `η_i ≤ 0`, `n_i ≤ 0`, `d = 0` or `p ∉ (1, 2]`.
pub fn alg2_phase_radius(l: f64, eta_i: f64, n_i: f64, d: u64, p: f64) -> Result<f64> {
    let cd = norm_ratio_cd(d, p)?;
    finite_result("alg2_phase_radius", cd / 2.0 * alg2_phase_radius_printed(l, eta_i, n_i, p)?)
}

/// The phase radius **as printed** (\[AFKT\] Alg. 2, line 4): `2Lη_i n_i(p − 1)` — contains the
/// regularised minimiser only when `c_d ≤ 2` (base-2 logarithm in p).
///
/// # Errors
/// `InvalidParameter` for `L ≤ 0`, `η_i ≤ 0`, `n_i ≤ 0` or `p ∉ (1, 2]`.
pub fn alg2_phase_radius_printed(l: f64, eta_i: f64, n_i: f64, p: f64) -> Result<f64> {
    let l = check::positive("l", l)?;
    let eta = check::positive("eta_i", eta_i)?;
    let ni = check::positive("n_i", n_i)?;
    let p = check_p(p)?;
    finite_result("alg2_phase_radius", 2.0 * l * eta * ni * (p - 1.0))
}

/// Which batch size the phases of \[AFKT\] Alg. 2 use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Alg2BatchRule {
    /// As printed (Alg. 2, line 4): `b_i = max(√(n_i/ln d), √(d/ε_i))`.
    Printed,
    /// Corrected: `b_i = max(√(n_i/ln d), √d/ε_i)`, the choice that gives Thm. 4's gradient count
    /// `n_i²/b_i ≤ n_i²ε_i/√d`.
    Corrected,
}

/// The batch size of a phase with `n_i` samples at privacy `ε_i` (real-valued, as in the paper).
///
/// # Errors
/// `InvalidParameter` for `n_i ≤ 0`, `d < 2` or `ε_i ≤ 0`.
pub fn alg2_phase_batch(n_i: f64, d: u64, eps_i: f64, rule: Alg2BatchRule) -> Result<f64> {
    let ni = check::positive("n_i", n_i)?;
    let ln_d = ln_dim("d", d)?;
    let e = check::positive("eps_i", eps_i)?;
    let d = d as f64;
    let privacy = match rule {
        Alg2BatchRule::Printed => (d / e).sqrt(),
        Alg2BatchRule::Corrected => d.sqrt() / e,
    };
    finite_result("alg2_phase_batch", (ni / ln_d).sqrt().max(privacy))
}

/// The gradient count of \[AFKT\] Alg. 2: `Σ_{i=1}^{k} T_i b_i = Σ_i n_i²/b_i` with
/// `k = ⌈log₂ n⌉`, `n_i = 2^{−i}n`, `ε_i = 2^{−i}ε` (real-valued, as in the paper).
///
/// # Errors
/// `InvalidParameter` for `n < 2`, `d < 2` or `ε ≤ 0`.
pub fn alg2_gradient_count(n: u64, d: u64, epsilon: f64, rule: Alg2BatchRule) -> Result<f64> {
    ln_n("n", n)?;
    let e = check::positive("epsilon", epsilon)?;
    let k = alg2_phase_count(n)?;
    let mut total = 0.0;
    for i in 1..=k {
        let scale = 0.5f64.powi(i as i32);
        let ni = n as f64 * scale;
        let bi = alg2_phase_batch(ni, d, e * scale, rule)?;
        total += ni * ni / bi;
    }
    finite_result("alg2_gradient_count", total)
}

/// The phase count `k = ⌈log₂ n⌉` of \[AFKT\] Alg. 2, line 1 (base 2: the proof's last step uses
/// `2^{−2k} ≤ 1/n²`).
///
/// # Errors
/// `InvalidParameter` for `n = 0`.
pub fn alg2_phase_count(n: u64) -> Result<u32> {
    let n = check::count("n", n)?;
    Ok(u64::BITS - (n - 1).leading_zeros())
}

/// \[AFKT\] Thm. 4's gradient-count claim, `O(1) = 1` — **trend use only**:
/// `⌈log₂ n⌉·min(n^{3/2}√(ln d), n²ε/√d)`.
///
/// # Errors
/// `InvalidParameter` for `n < 2`, `d < 2` or `ε ≤ 0`.
pub fn theorem4_gradient_count_claim_unit_constant(n: u64, d: u64, epsilon: f64) -> Result<f64> {
    ln_n("n", n)?;
    let ln_d = ln_dim("d", d)?;
    let e = check::positive("epsilon", epsilon)?;
    let k = alg2_phase_count(n)? as f64;
    let nf = n as f64;
    finite_result(
        "theorem4_gradient_count_claim_unit_constant",
        k * (nf.powf(1.5) * ln_d.sqrt()).min(nf * nf * e / (d as f64).sqrt()),
    )
}
