//! Bounds of \[LZLRMS\] — Li, Zaheer, Liu, Reddi, McMahan, Smith, "Differentially Private
//! Adaptive Optimization with Delayed Preconditioners" (ICLR 2023, arXiv 2212.00309; the
//! version is not recorded in the notes, so citations read `[LZLRMS] Thm. N (v?)`).
//!
//! Every formula below is a function, and `tests/bounds_dp2.rs` evaluates each one. Symbols
//! (notes §4, notation warning): `eps_adapt` (ε) is the adaptivity constant in `D = √v + ε`,
//! `eps_priv` (ε_p) the privacy parameter; `ν = s/T` the delay fraction (the paper's `v`), always
//! passed as the integers `s` (delay) and `T` (iterations) so that every floor is evaluated in
//! integer arithmetic; `C` the gradient bound (= clip), `σ` the noise multiplier, `b` the batch
//! size, `d` the dimension, `M = C² + σ²C²/(s b²)` (Lemma 1), `M'` the bound on consecutive
//! gradient differences of App. A.2; `t` is 1-indexed in the theory (notes §4); `‖x‖²_D = Σ_j D_j x_j²`.
//! Analysis model: clipping never happens (erratum 15), so `g̃^t = g^t/D^t + N^t` with
//! `N^t ~ N(0, σ²C²/b² I_d)`.
//!
//! | result | function | kind |
//! |---|---|---|
//! | Lemma 1 (App. A, eq. (4)–(7)) | [`lemma1_m`], [`expected_d_bound`] | upper bound on `E v_j`, `E D_j` |
//! | Lemma 1, constant gradients (notes §4.4, P9) | [`lemma1_expected_v_rmsprop`], [`lemma1_expected_v_adagrad`] | exact expectation |
//! | Thm. 2 schedule, eq. (18) (erratum 1) | [`theorem2_learning_rate`], [`theorem2_learning_rate_printed_floors`] | exact (equal by Hermite) |
//! | Thm. 2 α (erratum 2) | [`theorem2_alpha`], [`theorem2_alpha_eq18`], [`theorem2_alpha_conditions`] | exact / checker |
//! | Thm. 2 κ, eq. (49) | [`kappa_min`] | smallest admissible κ |
//! | Thm. 2 `T_ν` (erratum 3) | [`t_nu_indices`], [`t_nu_cardinality_main`], [`t_nu_cardinality_appendix`] | exact |
//! | Thm. 2 bound, eq. (51) | [`theorem2_bound`], [`theorem2_bound_printed`], [`theorem2_noise_term`] | expectation bound, corrected and printed |
//! | `E‖N‖²_D` (proof of Thm. 2, P18) | [`expected_noise_d_norm`] | exact |
//! | h(s), eq. (29)/(52) (erratum 4) | [`h_ratio`] | one `t` of the max |
//! | App. A.2, eq. (59) | [`h_upper_bound_sparse`], [`h_upper_bound_sparse_printed`], [`expected_avg_noise_l1`] | upper bound, corrected and printed / exact |
//! | Cor. 1 noise terms | [`corollary1_noise_term_dp2`], [`corollary1_noise_term_dp_sgd`] | exact given `E‖D^t‖₁` |
//! | Thm. 3, eq. (84) | [`theorem3_bound`] | expectation bound, hypotheses checked |
//! | Thm. 3 rate, `O(1) = 1` (erratum 13) | [`theorem3_rate_unit_constant`], [`theorem3_rate_printed_unit_constant`] | trend only |
//! | Thm. 1, `c2 = 1` | [`theorem1_sigma_unit_constant`] | trend only |
//! | small-q asymptotic | [`theorem1_epsilon_asymptotic_not_a_bound`] | **not a guarantee** |
//!
//! Errata followed here (notes §8): 1 (the schedule's `α⌊t/2s⌋ + …` is a power), 2 (α from the
//! theorem, `1/(√M + ε)`, not eq. (18)'s `1/√(M + ε)`: only the former meets case 4 of the proof,
//! see [`theorem2_alpha_conditions`]), 3 (`|T_ν| = ⌈T/(2s)⌉`, which counts the indices the proof
//! uses), 4 (h(s) with `dε` in the denominator), 5 (the theory's phases are those of
//! Algorithm 1, not App. B's `t mod 2s ≤ s`; nothing here depends on the phase rule except
//! [`t_nu_indices`]), 13 (Thm. 3 needs `F ≥ 0`, `ε ≤ 1`, `α ≤ 1/L`; the rate's `τ²/(b√d)`),
//! 15 (no clipping). Found while implementing (not in the notes' register):
//! - eq. (51)'s first term divides by `α^{⌊T/s⌋}`, but the proof's last summand is
//!   `(κ/α^T)E‖D^T‖₁/T` with `α^T = α^{⌊T/s⌋+1}/√T` (eq. (24) at `t = T`): the exponent is
//!   `⌊T/s⌋ + 1`. With `α ≤ 1` the printed term is smaller than what the proof gives by a factor
//!   `α` ([`theorem2_bound`] vs [`theorem2_bound_printed`]);
//! - App. A.2, (56)→(57) replaces the staleness sum `(1/s)Σ_{i=1}^{s}(k+i)M'` (at most
//!   `(3s−1)M'/2`) by `sM'`, which is smaller for `s ≥ 2` ([`h_upper_bound_sparse`]).

use crate::error::{Error, Result, check};

/// Relative slack allowed when a caller's parameter is compared with a cap computed here (the
/// caller typically computes `α = min(ε, 1)/L` in floating point, a few roundings away).
const CAP_SLACK: f64 = 1e-12;

/// A finite real (of any sign).
fn finite(name: &'static str, x: f64) -> Result<f64> {
    if x.is_finite() { Ok(x) } else { Err(Error::invalid(name, x, "finite")) }
}

/// `x` in (0, 1].
fn alpha_base(alpha: f64) -> Result<f64> {
    check::rate("alpha", alpha)
}

/// A result that must be finite; an overflow is reported, never returned as ∞.
fn finite_result(what: &'static str, x: f64) -> Result<f64> {
    if x.is_finite() {
        Ok(x)
    } else {
        Err(Error::Numerical { what, reason: format!("the value {x} is not representable in f64 (vacuous bound)") })
    }
}

/// `σ²C²/(s b²)`: the per-coordinate variance of the average of `s` released noises.
fn averaged_noise_variance(c: f64, sigma: f64, delay_s: u64, batch_b: u64) -> Result<f64> {
    let c = check::positive("c", c)?;
    let sigma = check::non_negative("sigma", sigma)?;
    let s = check::count("delay_s", delay_s)? as f64;
    let b = check::count("batch_b", batch_b)? as f64;
    Ok(sigma * sigma * c * c / (s * b * b))
}

/// `α^e` for an integer exponent (exact conversion for `e < 2⁵³`).
fn pow_u(alpha: f64, e: u64) -> f64 {
    alpha.powf(e as f64)
}

// ---------------------------------------------------------------------------------------------
// Lemma 1 (notes §4.1, P9)
// ---------------------------------------------------------------------------------------------

/// \[LZLRMS\] Lemma 1 (v?), eq. (4): `M = C² + σ²C²/(s b²)`, a bound on `E[(G_j/s)²]`, on
/// `E[v_j]` (RMSProp) and, by Jensen, on `(E√v_j)²`, under A2 (`‖g^{i,t}‖ ≤ C`) with clip `C`.
/// Decreasing in `s`.
///
/// # Errors
/// `InvalidParameter` for `C ≤ 0`, `σ < 0` (NaN, ∞ included), `s = 0` or `b = 0`.
pub fn lemma1_m(c: f64, sigma: f64, delay_s: u64, batch_b: u64) -> Result<f64> {
    let var = averaged_noise_variance(c, sigma, delay_s, batch_b)?;
    Ok(c * c + var)
}

/// `g_j² + σ²C²/(s b²)` = `E[(G_j/s)²]` for a constant per-example gradient coordinate `g_j`.
fn constant_gradient_second_moment(g_j: f64, c: f64, sigma: f64, delay_s: u64, batch_b: u64) -> Result<f64> {
    let g = finite("g_j", g_j)?;
    Ok(g * g + averaged_noise_variance(c, sigma, delay_s, batch_b)?)
}

/// `E[v_j]` of DP²-RMSProp after `k` preconditioner updates (notes §4.4, P9), for a constant
/// per-example gradient coordinate `g_j` and no clipping: each update sees
/// `E[(G_j/s)²] = g_j² + σ²C²/(s b²)`, so the recursion `E v_k = βE v_{k−1} + (1−β)(g_j² + σ²C²/(sb²))`
/// from `v_0 = 0` gives `(1 − β^k)(g_j² + σ²C²/(s b²))` (0 for `k = 0`). With `|g_j| ≤ C` it is
/// below [`lemma1_m`].
///
/// # Errors
/// As [`lemma1_m`]; `InvalidParameter` for a non-finite `g_j` or `β ∉ (0, 1)`.
pub fn lemma1_expected_v_rmsprop(
    g_j: f64,
    c: f64,
    sigma: f64,
    delay_s: u64,
    batch_b: u64,
    beta: f64,
    k_updates: u64,
) -> Result<f64> {
    let m2 = constant_gradient_second_moment(g_j, c, sigma, delay_s, batch_b)?;
    let beta = check::open_unit("beta", beta)?;
    // 1 − β^k = −expm1(k ln β), accurate when β^k is close to 1.
    Ok(-(k_updates as f64 * beta.ln()).exp_m1() * m2)
}

/// `E[v_j]` of DP²-AdaGrad (`v ← v + (G/s)²`, notes §2.2) after `k` updates under the same model
/// as [`lemma1_expected_v_rmsprop`]: `k(g_j² + σ²C²/(s b²))`. Lemma 1 does not cover AdaGrad
/// (this grows linearly in `k`).
///
/// # Errors
/// As [`lemma1_m`]; `InvalidParameter` for a non-finite `g_j`.
pub fn lemma1_expected_v_adagrad(
    g_j: f64,
    c: f64,
    sigma: f64,
    delay_s: u64,
    batch_b: u64,
    k_updates: u64,
) -> Result<f64> {
    let m2 = constant_gradient_second_moment(g_j, c, sigma, delay_s, batch_b)?;
    finite_result("lemma1_expected_v_adagrad", k_updates as f64 * m2)
}

/// \[LZLRMS\] Lemma 1 (v?), eq. (7): `E[D_j^t] ≤ max{√M + ε, 1}` (`D = 1` in SGD steps,
/// `√v + ε` in adaptive steps).
///
/// # Errors
/// `InvalidParameter` for `M < 0` or `ε ≤ 0`.
pub fn expected_d_bound(m: f64, eps_adapt: f64) -> Result<f64> {
    let m = check::non_negative("m", m)?;
    let e = check::positive("eps_adapt", eps_adapt)?;
    Ok((m.sqrt() + e).max(1.0))
}

// ---------------------------------------------------------------------------------------------
// Theorem 2 (convex; notes §4.2, P17, P18)
// ---------------------------------------------------------------------------------------------

fn schedule_args(alpha: f64, t: u64, s: u64) -> Result<(f64, u64, u64)> {
    Ok((alpha_base(alpha)?, check::count("t", t)?, check::count("delay_s", s)?))
}

/// \[LZLRMS\] Thm. 2 (v?), eq. (18) with erratum 1 (the numerator is a power), simplified by
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
    Ok(pow_u(alpha, t / s + 1) / (t as f64).sqrt())
}

/// eq. (18) with its printed floors, `α^{⌊t/(2s)⌋ + ⌊(t+s)/(2s)⌋ + 1}/√t`, in integer
/// arithmetic. Equal to [`theorem2_learning_rate`] for all `t, s ≥ 1` (Hermite); kept so a test
/// can show it.
///
/// # Errors
/// As [`theorem2_learning_rate`].
pub fn theorem2_learning_rate_printed_floors(alpha: f64, t: u64, delay_s: u64) -> Result<f64> {
    let (alpha, t, s) = schedule_args(alpha, t, delay_s)?;
    Ok(pow_u(alpha, t / (2 * s) + (t + s) / (2 * s) + 1) / (t as f64).sqrt())
}

/// \[LZLRMS\] Thm. 2 (v?) and eq. (51)'s statement: `α = min{ε, 1/(√M + ε), 1}` (erratum 2; the
/// reading this module follows).
///
/// # Errors
/// `InvalidParameter` for `ε ≤ 0` or `M < 0`.
pub fn theorem2_alpha(eps_adapt: f64, m: f64) -> Result<f64> {
    let e = check::positive("eps_adapt", eps_adapt)?;
    let m = check::non_negative("m", m)?;
    Ok(e.min(1.0 / (m.sqrt() + e)).min(1.0))
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
    Ok(e.min(1.0 / (m + e).sqrt()).min(1.0))
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

/// \[LZLRMS\] Thm. 2 (v?), eq. (49): the smallest admissible
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
    let mut out: Vec<u64> = (1..=t / (2 * s)).map(|k| 2 * s * k).collect();
    if t % (2 * s) != 0 {
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
    Ok(t / (2 * s))
}

/// `|T_ν| = ⌈1/(2ν)⌉ = ⌈T/(2s)⌉` as in App. A (erratum 3): the length of [`t_nu_indices`].
///
/// # Errors
/// As [`t_nu_indices`].
pub fn t_nu_cardinality_appendix(delay_s: u64, steps_t: u64) -> Result<u64> {
    let (s, t) = delay_and_steps(delay_s, steps_t)?;
    Ok(t.div_ceil(2 * s))
}

/// `E‖N‖²_D = (σ²C²/b²)·‖D‖₁` for `N ~ N(0, σ²C²/b² I)` independent of the diagonal `D ≥ 0`
/// (proof of Thm. 2, notes P18); with a random `D`, pass `E‖D‖₁`.
///
/// # Errors
/// `InvalidParameter` for `σ < 0`, `C ≤ 0`, `b = 0` or `‖D‖₁ < 0`.
pub fn expected_noise_d_norm(sigma: f64, c: f64, batch_b: u64, d_l1: f64) -> Result<f64> {
    let sigma = check::non_negative("sigma", sigma)?;
    let c = check::positive("c", c)?;
    let b = check::count("batch_b", batch_b)? as f64;
    let dl1 = check::non_negative("d_l1", d_l1)?;
    finite_result("expected_noise_d_norm", sigma * sigma * c * c / (b * b) * dl1)
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
    let sum: f64 = noise_d_norms.iter().zip(1u64..).map(|(&x, t)| pow_u(a, t / s) / (t as f64).sqrt() * x).sum();
    finite_result("theorem2_noise_term", sum / t_steps as f64)
}

fn theorem2_core(
    r: f64,
    kappa: f64,
    alpha: f64,
    delay_s: u64,
    sum_d_l1_over_t_nu: f64,
    noise_d_norms: &[f64],
    extra_exponent: u64,
) -> Result<f64> {
    let r = check::non_negative("r", r)?;
    let kappa = check::non_negative("kappa", kappa)?;
    let a = alpha_base(alpha)?;
    let sum_d = check::non_negative("sum_d_l1_over_t_nu", sum_d_l1_over_t_nu)?;
    let noise = theorem2_noise_term(a, delay_s, noise_d_norms)?;
    let t = noise_d_norms.len() as u64;
    // ⌊1/(2ν)⌋ + ⌊(1+ν)/(2ν)⌋ = ⌊T/(2s)⌋ + ⌊(T+s)/(2s)⌋ = ⌊T/s⌋ (Hermite), in integers.
    let exponent = t / (2 * delay_s) + (t + delay_s) / (2 * delay_s) + extra_exponent;
    let first = (r * r + kappa) / pow_u(a, exponent) / (t as f64).sqrt() * sum_d;
    finite_result("theorem2_bound", first + noise)
}

/// \[LZLRMS\] Thm. 2 (v?), eq. (51), **corrected** exponent (see the module doc):
///
/// ```text
/// min_t E F(w^t) − F(w*) ≤ (R² + κ)/α^{⌊T/s⌋+1} · (1/√T) Σ_{t∈T_ν} E‖D^t‖₁ + [theorem2_noise_term]
/// ```
///
/// The proof gives `(R²/2 + κ)/α^{⌊T/s⌋+1}` (eq. (22)–(24) divided by T, every block exponent
/// `⌊t/s⌋ + 1 ≤ ⌊T/s⌋ + 1`); `R²` is kept as printed (larger, still valid). Inputs: `R` (A1),
/// `κ` (≥ [`kappa_min`], the caller's responsibility), α ([`theorem2_alpha`]), `s`,
/// `Σ_{t∈T_ν} E‖D^t‖₁` measured at [`t_nu_indices`], and the per-step `E‖N^t‖²_{D^t}` (length T).
/// Practically vacuous (notes §4.4: `α^{−⌊1/ν⌋}`).
///
/// # Errors
/// `InvalidParameter` for `R < 0`, `κ < 0`, `α ∉ (0, 1]`, a negative sum, `s = 0` or `s > T`;
/// as [`theorem2_noise_term`]; `Numerical` if the value overflows f64.
pub fn theorem2_bound(
    r: f64,
    kappa: f64,
    alpha: f64,
    delay_s: u64,
    sum_d_l1_over_t_nu: f64,
    noise_d_norms: &[f64],
) -> Result<f64> {
    theorem2_core(r, kappa, alpha, delay_s, sum_d_l1_over_t_nu, noise_d_norms, 1)
}

/// eq. (51) as printed (with erratum 1's powers): first term divided by `α^{⌊1/(2ν)⌋ + ⌊(1+ν)/(2ν)⌋}
/// = α^{⌊T/s⌋}`. Smaller than [`theorem2_bound`] by the factor α in the first term: not supported
/// by the proof when `α < 1`.
///
/// # Errors
/// As [`theorem2_bound`].
pub fn theorem2_bound_printed(
    r: f64,
    kappa: f64,
    alpha: f64,
    delay_s: u64,
    sum_d_l1_over_t_nu: f64,
    noise_d_norms: &[f64],
) -> Result<f64> {
    theorem2_core(r, kappa, alpha, delay_s, sum_d_l1_over_t_nu, noise_d_norms, 0)
}

// ---------------------------------------------------------------------------------------------
// h(s) and App. A.2 (notes §4.2, erratum 4)
// ---------------------------------------------------------------------------------------------

/// One `t` of \[LZLRMS\] h(s) (v?), appendix reading eq. (29)/(52) (erratum 4: `dε` in the
/// denominator): `E‖g^t‖₁ / (E‖(1/s)G^{⌊t/s⌋s}‖₁ + dε)`. h(s) is any value at least the maximum
/// of this over `t ∈ [T]`, which the caller takes.
///
/// # Errors
/// `InvalidParameter` for negative means, `d = 0` or `ε ≤ 0`.
pub fn h_ratio(mean_g_l1: f64, mean_avg_acc_l1: f64, d: u64, eps_adapt: f64) -> Result<f64> {
    let g = check::non_negative("mean_g_l1", mean_g_l1)?;
    let acc = check::non_negative("mean_avg_acc_l1", mean_avg_acc_l1)?;
    let d = check::count("d", d)? as f64;
    let e = check::positive("eps_adapt", eps_adapt)?;
    finite_result("h_ratio", g / (acc + d * e))
}

fn h_sparse_args(e_a_l1: f64, e_b_l1: f64, d: u64, eps_adapt: f64, s: u64, m_prime: f64) -> Result<[f64; 5]> {
    let a = check::non_negative("e_a_l1", e_a_l1)?;
    let b = check::non_negative("e_b_l1", e_b_l1)?;
    let d = check::count("d", d)? as f64;
    let e = check::positive("eps_adapt", eps_adapt)?;
    let s = check::count("delay_s", s)? as f64;
    let mp = check::non_negative("m_prime", m_prime)?;
    if b >= a {
        return Err(Error::invalid("e_b_l1", b, "< e_a_l1 (the sparse case of eq. (59))"));
    }
    // 1/(E‖a‖/E‖b‖ + dε/E‖b‖ − 1) = E‖b‖/(E‖a‖ − E‖b‖ + dε): also defined at E‖b‖ = 0.
    Ok([b / (a - b + d * e), d, e, s, mp])
}

/// \[LZLRMS\] App. A.2 (v?), eq. (59) (sparse case `E‖b̄‖₁ < E‖a‖₁`), **corrected** staleness
/// term: `h(s) ≤ 1/(E‖a‖₁/E‖b̄‖₁ + dε/E‖b̄‖₁ − 1) + (3s−1)M'/(2dε)`, with `a` the average of the
/// `s` noises ([`expected_avg_noise_l1`]) and `b̄` of the `s` clean gradients. The step (56)→(57)
/// bounds `‖g^t − g^{t−k−i}‖₁ ≤ (k+i)M'` (`k = t − ⌊t/s⌋s ≤ s − 1`), whose average over
/// `i = 1..s` is at most `(3s−1)M'/2`; the paper writes `sM'` (equal only at `s = 1`).
///
/// # Errors
/// `InvalidParameter` for negative expectations, `E‖b̄‖₁ ≥ E‖a‖₁`, `d = 0`, `ε ≤ 0`, `s = 0` or
/// `M' < 0`.
pub fn h_upper_bound_sparse(e_a_l1: f64, e_b_l1: f64, d: u64, eps_adapt: f64, s: u64, m_prime: f64) -> Result<f64> {
    let [first, d, e, s, mp] = h_sparse_args(e_a_l1, e_b_l1, d, eps_adapt, s, m_prime)?;
    finite_result("h_upper_bound_sparse", first + (3.0 * s - 1.0) * mp / (2.0 * d * e))
}

/// eq. (59) as printed: staleness term `sM'/(dε)` (smaller than [`h_upper_bound_sparse`] for
/// `s ≥ 2`).
///
/// # Errors
/// As [`h_upper_bound_sparse`].
pub fn h_upper_bound_sparse_printed(
    e_a_l1: f64,
    e_b_l1: f64,
    d: u64,
    eps_adapt: f64,
    s: u64,
    m_prime: f64,
) -> Result<f64> {
    let [first, d, e, s, mp] = h_sparse_args(e_a_l1, e_b_l1, d, eps_adapt, s, m_prime)?;
    finite_result("h_upper_bound_sparse_printed", first + s * mp / (d * e))
}

/// `E‖a‖₁ = d·√(2/π)·σC/(b√s)` for `a = (1/s)Σ_{i=1}^{s} N^i`, `N^i ~ N(0, σ²C²/b² I_d)` i.i.d.
/// (each coordinate is `N(0, σ²C²/(b²s))` and `E|N(0, v)| = √(2v/π)`).
///
/// # Errors
/// `InvalidParameter` for `d = 0`, `σ < 0`, `C ≤ 0`, `b = 0` or `s = 0`.
pub fn expected_avg_noise_l1(d: u64, sigma: f64, c: f64, batch_b: u64, delay_s: u64) -> Result<f64> {
    let d = check::count("d", d)? as f64;
    let var = averaged_noise_variance(c, sigma, delay_s, batch_b)?;
    Ok(d * (2.0 * var / std::f64::consts::PI).sqrt())
}

// ---------------------------------------------------------------------------------------------
// Corollary 1 noise terms
// ---------------------------------------------------------------------------------------------

/// \[LZLRMS\] Cor. 1 (v?), DP² noise term with `O(1) = 1`:
/// `(1/T) Σ_{t=1}^{T} (1/√t) E‖N^t‖²_{D^t} = (1/T) Σ_t (1/√t)(σ²C²/b²) E‖D^t‖₁`;
/// `d_l1_per_step[t−1] = E‖D^t‖₁` (`= d` in SGD steps).
///
/// # Errors
/// `InvalidParameter` for `σ < 0`, `C ≤ 0`, `b = 0` or a negative entry; `Empty`; `NonFinite`.
pub fn corollary1_noise_term_dp2(sigma: f64, c: f64, batch_b: u64, d_l1_per_step: &[f64]) -> Result<f64> {
    if d_l1_per_step.is_empty() {
        return Err(Error::Empty { what: "d_l1_per_step" });
    }
    check::all_finite("d_l1_per_step", d_l1_per_step)?;
    let mut sum = 0.0;
    for (&dl1, t) in d_l1_per_step.iter().zip(1u64..) {
        sum += expected_noise_d_norm(sigma, c, batch_b, dl1)? / (t as f64).sqrt();
    }
    finite_result("corollary1_noise_term_dp2", sum / d_l1_per_step.len() as f64)
}

/// \[LZLRMS\] Cor. 1 (v?), the DP-SGD noise term it is compared with (`D = 1`):
/// `(1/T) Σ_{t=1}^{T} (1/√t) dσ²C²/b²`. DP²'s is smaller iff its `E‖D^t‖₁`-weighted sum is below
/// `d`'s.
///
/// # Errors
/// `InvalidParameter` for `σ < 0`, `C ≤ 0`, `b = 0`, `d = 0` or `T = 0`.
pub fn corollary1_noise_term_dp_sgd(sigma: f64, c: f64, batch_b: u64, d: u64, steps_t: u64) -> Result<f64> {
    let d = check::count("d", d)? as f64;
    let t = check::count("steps_t", steps_t)?;
    let per = expected_noise_d_norm(sigma, c, batch_b, d)?;
    let harmonic: f64 = (1..=t).map(|k| 1.0 / (k as f64).sqrt()).sum();
    finite_result("corollary1_noise_term_dp_sgd", per * harmonic / t as f64)
}

// ---------------------------------------------------------------------------------------------
// Theorem 3 (non-convex; notes §4.3)
// ---------------------------------------------------------------------------------------------

/// \[LZLRMS\] Thm. 3 (v?), eq. (84), with every hypothesis checked (notes §4.3, erratum 13):
///
/// ```text
/// (1/T) Σ_t E‖∇F(w^t)‖² ≤ 2(√M + 1)F/(αT) + 2αL(√M + 1)(τ²/(2ε²b) + dσ²C²/(2b²))
/// ```
///
/// with `F = F(w^1) − inf F ≥ 0` (the paper writes `F(w^1)`, valid as is only for `F ≥ 0`).
/// Hypotheses, checked in this order (1e-12 relative slack): `Lα/ε ≤ 1` (stated); `α ≤ 1/L`
/// (the SGD steps, eq. (68)–(69); implied by the first when ε ≤ 1); `ε ≤ 1` (so that
/// `√M + 1 ≥ √M + ε` covers the RMSProp steps); `M ≥ C²` (M is Lemma 1's
/// `C² + σ²C²/(sb²)`, [`lemma1_m`]). The proof's step (77)→(78) also uses `E‖D^t‖_∞ ≤ √M + ε`,
/// which Lemma 1 (per coordinate) does not give; that gap cannot be checked here.
///
/// # Errors
/// `InvalidParameter` for `F < 0` (named `f_w1_minus_inf`), `α ≤ 0`, `T = 0`, `L ≤ 0`, `τ² < 0`,
/// `ε ≤ 0`, `b = 0`, `d = 0`, `σ < 0`, `C ≤ 0`, or a violated hypothesis: `alpha` for
/// `Lα/ε > 1` or `α > 1/L`, `eps_adapt` for `ε > 1`, `m` for `M < C²`.
#[allow(clippy::too_many_arguments)] // the theorem's own symbols, in its order
pub fn theorem3_bound(
    f_w1_minus_inf: f64,
    alpha: f64,
    t_steps: u64,
    l_smooth: f64,
    m: f64,
    tau2: f64,
    eps_adapt: f64,
    batch_b: u64,
    d: u64,
    sigma: f64,
    c: f64,
) -> Result<f64> {
    let f = check::non_negative("f_w1_minus_inf", f_w1_minus_inf)?;
    let a = check::positive("alpha", alpha)?;
    let t = check::count("t_steps", t_steps)? as f64;
    let l = check::positive("l_smooth", l_smooth)?;
    let m = check::non_negative("m", m)?;
    let tau2 = check::non_negative("tau2", tau2)?;
    let e = check::positive("eps_adapt", eps_adapt)?;
    let b = check::count("batch_b", batch_b)? as f64;
    let d = check::count("d", d)? as f64;
    let sigma = check::non_negative("sigma", sigma)?;
    let c = check::positive("c", c)?;
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
    Ok(d.sqrt() / (n * e) + tau2 / (b * d.sqrt()))
}

/// The rate as printed after Thm. 3, `O(1) = 1` — **trend use only**: `√d/(nε_p) + τ²/√(db)`.
///
/// # Errors
/// As [`theorem3_rate_unit_constant`].
pub fn theorem3_rate_printed_unit_constant(d: u64, n: u64, eps_priv: f64, tau2: f64, batch_b: u64) -> Result<f64> {
    let [d, n, e, tau2, b] = rate_args(d, n, eps_priv, tau2, batch_b)?;
    Ok(d.sqrt() / (n * e) + tau2 / (d * b).sqrt())
}

// ---------------------------------------------------------------------------------------------
// Theorem 1 (privacy; notes §3.1, §3.2)
// ---------------------------------------------------------------------------------------------

fn privacy_args(q: f64, steps_t: u64, delta: f64) -> Result<(f64, f64, f64)> {
    let q = check::rate("q", q)?;
    let t = check::count("steps_t", steps_t)? as f64;
    let l = -check::open_unit("delta", delta)?.ln();
    Ok((q, t, l))
}

/// \[LZLRMS\] Thm. 1 (v?) (after Abadi et al. 2016) with the unspecified constant `c2 = 1` —
/// **trend use only, not a calibration**: `σ = q√(T ln(1/δ))/ε_p`, `q = b/n`. The theorem's
/// `c1, c2` are never given; calibrate σ with [`crate::accounting`].
///
/// # Errors
/// `InvalidParameter` for `q ∉ (0, 1]`, `T = 0`, `δ ∉ (0, 1)` or `ε_p ≤ 0`.
pub fn theorem1_sigma_unit_constant(q: f64, steps_t: u64, delta: f64, eps_priv: f64) -> Result<f64> {
    let (q, t, l) = privacy_args(q, steps_t, delta)?;
    let e = check::positive("eps_priv", eps_priv)?;
    Ok(q * (t * l).sqrt() / e)
}

/// The small-q heuristic `ε_p ≈ 2q√(T ln(1/δ))/σ` (notes §3.2, from `ε_RDP(λ) ≈ q²λ/σ²`).
/// **NOT A GUARANTEE: never use it as a bound or to report ε.** It can be below the true ε (it
/// drops the higher-order terms); the accountant in [`crate::accounting`] gives upper bounds.
///
/// # Errors
/// `InvalidParameter` for `q ∉ (0, 1]`, `T = 0`, `δ ∉ (0, 1)` or `σ ≤ 0`.
pub fn theorem1_epsilon_asymptotic_not_a_bound(q: f64, steps_t: u64, delta: f64, sigma: f64) -> Result<f64> {
    let (q, t, l) = privacy_args(q, steps_t, delta)?;
    let s = check::positive("sigma", sigma)?;
    Ok(2.0 * q * (t * l).sqrt() / s)
}
