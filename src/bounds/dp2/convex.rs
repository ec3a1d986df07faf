//! \[LZLRMS\] Thm. 2, the convex bound of DP² (Sec. 4.1, proof in App. A.1; properties P17, P18 of
//! `proofs/dp2/dp2.md` §6): the learning-rate
//! schedule of eq. (18) (erratum 1), the choice of α (erratum 2), κ of eq. (49), the indices
//! `T_ν` (erratum 3), the noise term and the bound of eq. (51), corrected and as printed.

use super::NoiseSetting;
use super::validate::{CAP_SLACK, finite_result};
use crate::error::{Error, Result, check};

/// `x` in (0, 1].
fn alpha_base(alpha: f64) -> Result<f64> {
    check::rate("alpha", alpha)
}

/// `α^e` for an integer exponent (exact conversion for `e < 2⁵³`). Exponents are formed in
/// `u128` by the callers: `t/s + 1` or `t + s` overflow u64 at `t = u64::MAX` (a panic before).
fn pow_u(alpha: f64, e: u128) -> f64 {
    alpha.powf(e as f64)
}

fn schedule_args(alpha: f64, t: u64, s: u64) -> Result<(f64, u64, u64)> {
    Ok((alpha_base(alpha)?, check::count("t", t)?, check::count("delay_s", s)?))
}

/// \[LZLRMS\] Thm. 2, eq. (18) with erratum 1 (the numerator is a power), simplified by
/// Hermite's identity `⌊x⌋ + ⌊x + 1/2⌋ = ⌊2x⌋` at `x = t/(2s)`:
/// `α^t = α^{⌊t/s⌋ + 1}/√t`, the floor in integer arithmetic (t ≥ 1, 1-indexed). The base step is
/// multiplied by α at every `t ≡ 0 (mod s)`: there `α^t = α·√((t−1)/t)·α^{t−1}` exactly, so
/// `α ≤ ε` gives the proof's case-3 condition (19) `α^t ≤ ε α^{t−1}` (with the extra factor
/// `√((t−1)/t) < 1`; eq. (39) writes it as an equality, which needs `α = ε`); elsewhere
/// `α^t = √((t−1)/t)·α^{t−1}`. A value below `f64::MIN_POSITIVE` underflows (to 0 at worst).
///
/// # Errors
/// `InvalidParameter` for `α ∉ (0, 1]`, `t = 0` or `s = 0`.
pub fn theorem2_learning_rate(alpha: f64, t: u64, delay_s: u64) -> Result<f64> {
    let (alpha, t, s) = schedule_args(alpha, t, delay_s)?;
    let (tt, ss) = (u128::from(t), u128::from(s));
    finite_result("theorem2_learning_rate", pow_u(alpha, tt / ss + 1) / (t as f64).sqrt())
}

/// eq. (18) with its printed floors, `α^{⌊t/(2s)⌋ + ⌊(t+s)/(2s)⌋ + 1}/√t`, in integer
/// arithmetic. Equal to [`theorem2_learning_rate`] for all `t, s ≥ 1` (Hermite); kept so a test
/// can show it.
///
/// # Errors
/// As [`theorem2_learning_rate`].
pub fn theorem2_learning_rate_printed_floors(alpha: f64, t: u64, delay_s: u64) -> Result<f64> {
    let (alpha, t, s) = schedule_args(alpha, t, delay_s)?;
    let (tt, ss) = (u128::from(t), u128::from(s));
    let exponent = tt / (2 * ss) + (tt + ss) / (2 * ss) + 1;
    finite_result("theorem2_learning_rate_printed_floors", pow_u(alpha, exponent) / (t as f64).sqrt())
}

/// \[LZLRMS\] Thm. 2 and eq. (51)'s statement: `α = min{ε, 1/(√M + ε), 1}` (erratum 2; the
/// reading this module follows).
///
/// # Errors
/// `InvalidParameter` for `ε ≤ 0` or `M < 0`.
pub fn theorem2_alpha(eps_adapt: f64, m: f64) -> Result<f64> {
    let e = check::positive("eps_adapt", eps_adapt)?;
    let m = check::non_negative("m", m)?;
    finite_result("theorem2_alpha", e.min(1.0 / (m.sqrt() + e)).min(1.0))
}

/// eq. (18)'s reading of α, `min{ε, 1/√(M + ε), 1}` (erratum 2). It can exceed `1/(√M + ε)`
/// (e.g. `M = 1`, `ε = 0.9`: 0.7255 > 0.5263), where case 4 of the proof fails
/// ([`theorem2_alpha_conditions`]).
///
/// # Errors
/// As [`theorem2_alpha`].
pub fn theorem2_alpha_eq18(eps_adapt: f64, m: f64) -> Result<f64> {
    let e = check::positive("eps_adapt", eps_adapt)?;
    let m = check::non_negative("m", m)?;
    finite_result("theorem2_alpha_eq18", e.min(1.0 / (m + e).sqrt()).min(1.0))
}

/// The conditions on α that the proof of Thm. 2 uses (App. A.1): `α ≤ 1` (α^t non-increasing,
/// cases 1–2), `α ≤ ε` (case 3, eq. (19), SGD→RMSProp at `t ≡ 0 mod s`) and `α ≤ 1/(√M + ε)`
/// (case 4, RMSProp→SGD, eq. (44)–(48) with `E‖√v + ε‖₁ ≤ d(√M + ε)`; the paper writes `d√M + d`
/// and `√M + 1`, which equals this only at ε = 1). [`theorem2_alpha`] meets all three by
/// construction; [`theorem2_alpha_eq18`] can fail the third. 1e-12 relative slack.
///
/// # Errors
/// `InvalidParameter` for invalid inputs, or naming `alpha` with the violated condition.
pub fn theorem2_alpha_conditions(alpha: f64, eps_adapt: f64, m: f64) -> Result<()> {
    let a = alpha_base(alpha)?;
    let e = check::positive("eps_adapt", eps_adapt)?;
    let m = check::non_negative("m", m)?;
    if a > e * (1.0 + CAP_SLACK) {
        return Err(Error::invalid("alpha", a, "<= eps_adapt (Theorem 2, case 3, eq. (19))"));
    }
    if a * (m.sqrt() + e) > 1.0 + CAP_SLACK {
        return Err(Error::invalid("alpha", a, "<= 1/(sqrt(M) + eps_adapt) (Theorem 2, case 4, eq. (44)-(48))"));
    }
    Ok(())
}

/// \[LZLRMS\] Thm. 2, eq. (49): the smallest admissible
/// `κ = max{α²C², C·h(s)/(ε√(1−β))}`.
///
/// # Errors
/// `InvalidParameter` for `α ∉ (0, 1]`, `C ≤ 0`, `h(s) < 0`, `ε ≤ 0` or `β ∉ (0, 1)`.
pub fn kappa_min(alpha: f64, c: f64, h_s: f64, eps_adapt: f64, beta: f64) -> Result<f64> {
    let a = alpha_base(alpha)?;
    let c = check::positive("c", c)?;
    let h = check::non_negative("h_s", h_s)?;
    let e = check::positive("eps_adapt", eps_adapt)?;
    let beta = check::open_unit("beta", beta)?;
    finite_result("kappa_min", (a * a * c * c).max(c * h / (e * (1.0 - beta).sqrt())))
}

fn delay_and_steps(delay_s: u64, steps_t: u64) -> Result<(u64, u64)> {
    let s = check::count("delay_s", delay_s)?;
    let t = check::count("steps_t", steps_t)?;
    if s > t {
        return Err(Error::invalid("delay_s", s, "<= steps_t (nu = s/T in (0, 1])"));
    }
    Ok((s, t))
}

/// The indices `T_ν` of Thm. 2 (1-indexed, Algorithm 1's phases: SGD iff `(t−1) mod 2s < s`):
/// the last RMSProp step of each complete SGD+RMSProp block, `t = 2s, 4s, …` (the `D^{2sk+2s}`
/// of eq. (22)–(23), after which the method switches back to SGD), plus the last iteration `T`
/// if it is not one of them. Its length is `⌈T/(2s)⌉` ([`t_nu_cardinality_appendix`]).
///
/// # Errors
/// `InvalidParameter` for `s = 0`, `T = 0` or `s > T`.
pub fn t_nu_indices(delay_s: u64, steps_t: u64) -> Result<Vec<u64>> {
    let (s, t) = delay_and_steps(delay_s, steps_t)?;
    // 2s in u128: it overflows u64 for s > u64::MAX/2 (then there is no complete block)
    let two_s = 2 * u128::from(s);
    let blocks = (u128::from(t) / two_s) as u64;
    let mut out: Vec<u64> = (1..=blocks).map(|k| 2 * s * k).collect();
    if u128::from(t) % two_s != 0 {
        out.push(t);
    }
    Ok(out)
}

/// `|T_ν| = ⌊1/(2ν)⌋ = ⌊T/(2s)⌋` as in the main text (erratum 3). Undercounts by one when
/// `2s ∤ T` (e.g. 0 for `ν = 1`, though `T_ν` contains `T`).
///
/// # Errors
/// As [`t_nu_indices`].
pub fn t_nu_cardinality_main(delay_s: u64, steps_t: u64) -> Result<u64> {
    let (s, t) = delay_and_steps(delay_s, steps_t)?;
    Ok((u128::from(t) / (2 * u128::from(s))) as u64)
}

/// `|T_ν| = ⌈1/(2ν)⌉ = ⌈T/(2s)⌉` as in App. A (erratum 3): the length of [`t_nu_indices`].
///
/// # Errors
/// As [`t_nu_indices`].
pub fn t_nu_cardinality_appendix(delay_s: u64, steps_t: u64) -> Result<u64> {
    let (s, t) = delay_and_steps(delay_s, steps_t)?;
    Ok(u128::from(t).div_ceil(2 * u128::from(s)) as u64)
}

/// `E‖N‖²_D = (σ²C²/b²)·‖D‖₁` for `N ~ N(0, σ²C²/b² I)` independent of the diagonal `D ≥ 0`
/// (proof of Thm. 2, App. A.1; property P18); with a random `D`, pass `E‖D‖₁`.
///
/// # Errors
/// `InvalidParameter` for `‖D‖₁ < 0`.
pub fn expected_noise_d_norm(noise: &NoiseSetting, d_l1: f64) -> Result<f64> {
    let dl1 = check::non_negative("d_l1", d_l1)?;
    finite_result("expected_noise_d_norm", noise.noise_variance() * dl1)
}

/// eq. (51)'s second term, `(1/T) Σ_{t=1}^{T} α^{⌊t/s⌋}/√t · E‖N^t‖²_{D^t}` with
/// `⌊t/(2νT)⌋ + ⌊(t+νT)/(2νT)⌋ = ⌊t/s⌋` in integer arithmetic; `T = noise_d_norms.len()`,
/// entry `t−1` is `E‖N^t‖²_{D^t}` (e.g. from [`expected_noise_d_norm`]). The proof's term is
/// `(1/T)Σ (α^t/2) E‖N^t‖²_{D^t}` with `α^t = α^{⌊t/s⌋+1}/√t`, at most this (α ≤ 1), so the
/// printed weight is kept. Terms below `f64::MIN_POSITIVE` underflow.
///
/// # Errors
/// `InvalidParameter` for `α ∉ (0, 1]`, `s = 0` or `s > T`; `Empty` for no steps; `NonFinite` or
/// `InvalidParameter` for a non-finite or negative entry.
pub fn theorem2_noise_term(alpha: f64, delay_s: u64, noise_d_norms: &[f64]) -> Result<f64> {
    let a = alpha_base(alpha)?;
    if noise_d_norms.is_empty() {
        return Err(Error::Empty { what: "noise_d_norms" });
    }
    let (s, t_steps) = delay_and_steps(delay_s, noise_d_norms.len() as u64)?;
    check::all_finite("noise_d_norms", noise_d_norms)?;
    if let Some(&x) = noise_d_norms.iter().find(|&&x| x < 0.0) {
        return Err(Error::invalid("noise_d_norms", x, ">= 0 (an expected squared norm)"));
    }
    let sum: f64 =
        noise_d_norms.iter().zip(1u64..).map(|(&x, t)| pow_u(a, u128::from(t / s)) / (t as f64).sqrt() * x).sum();
    finite_result("theorem2_noise_term", sum / t_steps as f64)
}

/// The inputs of \[LZLRMS\] Thm. 2, eq. (51) ([`theorem2_bound`], [`theorem2_bound_printed`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Theorem2Inputs<'a> {
    /// R ≥ 0 (A1).
    pub r: f64,
    /// κ > 0 (≥ [`kappa_min`] `≥ α²C² > 0`, the caller's responsibility; 0 is refused).
    pub kappa: f64,
    /// α ∈ (0, 1] ([`theorem2_alpha`]).
    pub alpha: f64,
    /// s ≥ 1: the delay, s ≤ T.
    pub delay_s: u64,
    /// `Σ_{t∈T_ν} E‖D^t‖₁ ≥ 0`, measured at [`t_nu_indices`].
    pub sum_d_l1_over_t_nu: f64,
    /// The per-step `E‖N^t‖²_{D^t}` (length T).
    pub noise_d_norms: &'a [f64],
}

fn theorem2_core(inputs: &Theorem2Inputs<'_>, extra_exponent: u64) -> Result<f64> {
    let Theorem2Inputs { r, kappa, alpha, delay_s, sum_d_l1_over_t_nu, noise_d_norms } = *inputs;
    let r = check::non_negative("r", r)?;
    // eq. (49): κ ≥ max{α²C², …} > 0, so κ = 0 is outside the theorem whatever C.
    let kappa = check::positive("kappa", kappa)?;
    let a = alpha_base(alpha)?;
    let sum_d = check::non_negative("sum_d_l1_over_t_nu", sum_d_l1_over_t_nu)?;
    let noise = theorem2_noise_term(a, delay_s, noise_d_norms)?;
    let t = noise_d_norms.len() as u64;
    // ⌊1/(2ν)⌋ + ⌊(1+ν)/(2ν)⌋ = ⌊T/(2s)⌋ + ⌊(T+s)/(2s)⌋ = ⌊T/s⌋ (Hermite), in integers.
    let (tt, ss) = (u128::from(t), u128::from(delay_s));
    let exponent = tt / (2 * ss) + (tt + ss) / (2 * ss) + u128::from(extra_exponent);
    let first = (r * r + kappa) / pow_u(a, exponent) / (t as f64).sqrt() * sum_d;
    finite_result("theorem2_bound", first + noise)
}

/// \[LZLRMS\] Thm. 2, eq. (51), **corrected** exponent (see the module doc):
///
/// ```text
/// min_t E F(w^t) − F(w*) ≤ (R² + κ)/α^{⌊T/s⌋+1} · (1/√T) Σ_{t∈T_ν} E‖D^t‖₁ + [theorem2_noise_term]
/// ```
///
/// The proof gives `(R²/2 + κ)/α^{⌊T/s⌋+1}` (eq. (22)–(24) divided by T, every block exponent
/// `⌊t/s⌋ + 1 ≤ ⌊T/s⌋ + 1`); `R²` is kept as printed (larger, still valid). Inputs: `R` (A1),
/// `κ` (≥ [`kappa_min`], the caller's responsibility), α ([`theorem2_alpha`]), `s`,
/// `Σ_{t∈T_ν} E‖D^t‖₁` measured at [`t_nu_indices`], and the per-step `E‖N^t‖²_{D^t}` (length T).
/// Practically vacuous (the factor `α^{−⌊1/ν⌋}`; `proofs/dp2/dp2.md` §4).
///
/// # Errors
/// `InvalidParameter` for `R < 0`, `κ ≤ 0`, `α ∉ (0, 1]`, a negative sum, `s = 0` or `s > T`;
/// as [`theorem2_noise_term`]; `Numerical` if the value overflows f64.
pub fn theorem2_bound(inputs: &Theorem2Inputs<'_>) -> Result<f64> {
    theorem2_core(inputs, 1)
}

/// eq. (51) as printed (with erratum 1's powers): first term divided by `α^{⌊1/(2ν)⌋ + ⌊(1+ν)/(2ν)⌋}
/// = α^{⌊T/s⌋}`. Smaller than [`theorem2_bound`] by the factor α in the first term: not supported
/// by the proof when `α < 1`.
///
/// # Errors
/// As [`theorem2_bound`].
pub fn theorem2_bound_printed(inputs: &Theorem2Inputs<'_>) -> Result<f64> {
    theorem2_core(inputs, 0)
}
