//! \[LZLRMS\] Thm. 3, the non-convex bound of DP² (eq. (84), hypotheses checked), and the
//! rate stated after it, re-derived and as printed (erratum 13 of `proofs/dp2/variants.md` §5.1).

use super::NoiseSetting;
use super::validate::{CAP_SLACK, finite_result};
use crate::error::{Error, Result, check};

/// The quantities of \[LZLRMS\] Thm. 3 ([`theorem3_bound`]) besides the privatisation
/// ([`NoiseSetting`]: `C`, σ, b).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Theorem3Inputs {
    /// `F = F(w^1) − inf F ≥ 0` (the paper writes `F(w^1)`, valid as is only for `F ≥ 0`).
    pub f_w1_minus_inf: f64,
    /// α > 0: the step size.
    pub alpha: f64,
    /// T ≥ 1: iterations.
    pub t_steps: u64,
    /// L > 0: smoothness of F.
    pub l_smooth: f64,
    /// `M ≥ C²`: Lemma 1's `C² + σ²C²/(sb²)` ([`lemma1_m`](super::lemma1_m)).
    pub m: f64,
    /// τ² ≥ 0: the variance of a per-example gradient.
    pub tau2: f64,
    /// ε ∈ (0, 1]: the adaptivity constant in `D = √v + ε`.
    pub eps_adapt: f64,
    /// d ≥ 1: the dimension.
    pub d: u64,
}

/// \[LZLRMS\] Thm. 3, eq. (84), with every hypothesis checked (Sec. 4.2, proof in App. B; erratum 13):
///
/// ```text
/// (1/T) Σ_t E‖∇F(w^t)‖² ≤ 2(√M + 1)F/(αT) + 2αL(√M + 1)(τ²/(2ε²b) + dσ²C²/(2b²))
/// ```
///
/// with `F = F(w^1) − inf F ≥ 0` (the paper writes `F(w^1)`, valid as is only for `F ≥ 0`).
/// Hypotheses, checked in this order (1e-12 relative slack): `Lα/ε ≤ 1` (stated); `α ≤ 1/L`
/// (the SGD steps, eq. (68)–(69); implied by the first when ε ≤ 1); `ε ≤ 1` (so that
/// `√M + 1 ≥ √M + ε` covers the RMSProp steps); `M ≥ C²` (M is Lemma 1's
/// `C² + σ²C²/(sb²)`, [`lemma1_m`](super::lemma1_m)). The proof's step (77)→(78) also uses
/// `E‖D^t‖_∞ ≤ √M + ε`, which Lemma 1 (per coordinate) does not give; that gap cannot be checked
/// here.
///
/// # Errors
/// `InvalidParameter` for `F < 0` (named `f_w1_minus_inf`), `α ≤ 0`, `T = 0`, `L ≤ 0`, `M < 0`,
/// `τ² < 0`, `ε ≤ 0`, `d = 0`, or a violated hypothesis: `alpha` for `Lα/ε > 1` or `α > 1/L`,
/// `eps_adapt` for `ε > 1`, `m` for `M < C²`.
pub fn theorem3_bound(noise: &NoiseSetting, inputs: &Theorem3Inputs) -> Result<f64> {
    let i = inputs;
    let f = check::non_negative("f_w1_minus_inf", i.f_w1_minus_inf)?;
    let a = check::positive("alpha", i.alpha)?;
    let t = check::count("t_steps", i.t_steps)? as f64;
    let l = check::positive("l_smooth", i.l_smooth)?;
    let m = check::non_negative("m", i.m)?;
    let tau2 = check::non_negative("tau2", i.tau2)?;
    let e = check::positive("eps_adapt", i.eps_adapt)?;
    let d = check::count("d", i.d)? as f64;
    let (b, sigma, c) = (noise.batch_b() as f64, noise.sigma(), noise.c());
    if l * a / e > 1.0 + CAP_SLACK {
        return Err(Error::invalid("alpha", a, "with L alpha/eps_adapt <= 1 (Theorem 3)"));
    }
    if l * a > 1.0 + CAP_SLACK {
        return Err(Error::invalid("alpha", a, "<= 1/L (Theorem 3, SGD steps, eq. (68)-(69))"));
    }
    if e > 1.0 {
        return Err(Error::invalid("eps_adapt", e, "<= 1 (Theorem 3 combines sqrt(M)+eps_adapt into sqrt(M)+1)"));
    }
    if m < c * c * (1.0 - CAP_SLACK) {
        return Err(Error::invalid("m", m, ">= C^2 (Lemma 1's M = C^2 + sigma^2 C^2/(s b^2))"));
    }
    let k = m.sqrt() + 1.0;
    let value = 2.0 * k * f / (a * t)
        + 2.0 * a * l * k * (tau2 / (2.0 * e * e * b) + d * sigma * sigma * c * c / (2.0 * b * b));
    finite_result("theorem3_bound", value)
}

fn rate_args(d: u64, n: u64, eps_priv: f64, tau2: f64, batch_b: u64) -> Result<[f64; 5]> {
    Ok([
        check::count("d", d)? as f64,
        check::count("n", n)? as f64,
        check::positive("eps_priv", eps_priv)?,
        check::non_negative("tau2", tau2)?,
        check::count("batch_b", batch_b)? as f64,
    ])
}

/// The privacy/utility rate after Thm. 3, **re-derived** (erratum 13), `O(1) = 1` — **trend use
/// only**: `√d/(nε_p) + τ²/(b√d)` (α = 1/√d in eq. (84)'s `ατ²/(ε²b)` term).
///
/// # Errors
/// `InvalidParameter` for `d = 0`, `n = 0`, `ε_p ≤ 0`, `τ² < 0` or `b = 0`.
pub fn theorem3_rate_unit_constant(d: u64, n: u64, eps_priv: f64, tau2: f64, batch_b: u64) -> Result<f64> {
    let [d, n, e, tau2, b] = rate_args(d, n, eps_priv, tau2, batch_b)?;
    finite_result("theorem3_rate_unit_constant", d.sqrt() / (n * e) + tau2 / (b * d.sqrt()))
}

/// The rate as printed after Thm. 3, `O(1) = 1` — **trend use only**: `√d/(nε_p) + τ²/√(db)`.
///
/// # Errors
/// As [`theorem3_rate_unit_constant`].
pub fn theorem3_rate_printed_unit_constant(d: u64, n: u64, eps_priv: f64, tau2: f64, batch_b: u64) -> Result<f64> {
    let [d, n, e, tau2, b] = rate_args(d, n, eps_priv, tau2, batch_b)?;
    finite_result("theorem3_rate_printed_unit_constant", d.sqrt() / (n * e) + tau2 / (d * b).sqrt())
}
