//! \[GGKKM\] Sec. 6, bias-reduced SGD: the truncated geometric law (Def. 6.1) and its moments,
//! Lemma 6.4 (bias and second moment, explicit for a pluggable mean estimator, with `C_M`),
//! Lemma 6.5 (stopping time: the Markov step explicit, the `E[T]` bounds as printed), Thms. 6.7
//! and 6.8 (printed and corrected, `O(1) = 1`).

use super::SparseProblem;
use super::validate::{finite_result, gaussian_epsilon, harmonic, sparsity};
use crate::error::{Error, Result, check};

/// \[GGKKM\] Def. 6.1: `C_M = [2(1 − 2^{−(M+1)})]^{−1}`, the normaliser of
/// `P[N = k] = C_M 2^{−k}`, `k = 0..M` (`1/2 < C_M ≤ 1`).
///
/// # Errors
/// `InvalidParameter` for `M > 1000`.
pub fn tgeom_normaliser(m: u32) -> Result<f64> {
    if m > 1000 {
        return Err(Error::invalid("m", m, "<= 1000"));
    }
    finite_result("tgeom_normaliser", 1.0 / (2.0 * (1.0 - 0.5f64.powi(m as i32 + 1))))
}

/// Moments of TGeom(M) (derived here, \[GGKKM\] Def. 6.1): `(E[1/p_N], E[2^{N+1}], E[2^{2(N+1)}])
/// = (M + 1, 2C_M(M + 1), 4C_M(2^{M+1} − 1))`.
///
/// # Errors
/// `InvalidParameter` for `M > 1000`.
pub fn tgeom_moments(m: u32) -> Result<(f64, f64, f64)> {
    let c = tgeom_normaliser(m)?;
    let mf = m as f64 + 1.0;
    let v = (mf, 2.0 * c * mf, 4.0 * c * (2f64.powi(m as i32 + 1) - 1.0));
    finite_result("tgeom_moments", v.2)?;
    Ok(v)
}

/// `M` with `2^{M+1} = n` for a power of two `n ≥ 2`.
fn levels(n: u64) -> Result<u32> {
    if n >= 2 && n.is_power_of_two() {
        Ok(n.trailing_zeros() - 1)
    } else {
        Err(Error::invalid("n", n, "a power of two >= 2 (2^{M+1} = n)"))
    }
}

/// \[GGKKM\] Lemma 6.4, bias (explicit, for a mean estimator with `E‖Mech_m(v) − v‖² ≤ a/m` at
/// every batch size m): `‖E[𝒢(x)] − ∇F_S(x)‖ ≤ √(a/n)` with `n = 2^{M+1}` (the telescoping
/// leaves only the full batch's bias, given `p_N` includes `C_M`).
///
/// # Errors
/// `InvalidParameter` for `a < 0`, n not a power of two `≥ 2`.
pub fn lemma64_bias_bound(a: f64, n: u64) -> Result<f64> {
    let a = check::non_negative("a", a)?;
    levels(n)?;
    finite_result("lemma64_bias_bound", (a / n as f64).sqrt())
}

/// \[GGKKM\] Lemma 6.4, second moment (explicit, same premise as [`lemma64_bias_bound`]):
/// `E‖𝒢(x)‖² ≤ ν² = 4L² + 4a + 12(M + 1)a`, `2^{M+1} = n`.
///
/// # Errors
/// `InvalidParameter` for `L ≤ 0`, `a < 0`, n not a power of two `≥ 2`.
pub fn lemma64_second_moment_bound(l: f64, a: f64, n: u64) -> Result<f64> {
    let l = check::positive("l", l)?;
    let a = check::non_negative("a", a)?;
    let m = levels(n)? as f64;
    finite_result("lemma64_second_moment_bound", 4.0 * l * l + 4.0 * a + 12.0 * (m + 1.0) * a)
}

/// The constant `a` of Lemma 6.4's premise for \[GGKKM\] Alg. 1 with Gaussian noise, per call
/// `(ε_c, δ_c)` (inside Alg. 6, `ε_c = ε/32`, `δ_c = δ/16`): `a = 8L²√(s ln(1.25/δ_c) ln(2d))/ε_c`.
///
/// # Errors
/// `InvalidParameter` for `L ≤ 0`, `s ∉ [1, d]`, `ε_c ∉ (0, 1]`, `δ_c ∉ (0, 1)`.
pub fn lemma64_alg1_constant_gaussian(l: f64, s: u64, d: u64, epsilon_c: f64, delta_c: f64) -> Result<f64> {
    let l = check::positive("l", l)?;
    let (sf, df) = sparsity(s, d)?;
    let e = gaussian_epsilon(epsilon_c)?;
    check::open_unit("delta_c", delta_c)?;
    finite_result(
        "lemma64_alg1_constant_gaussian",
        8.0 * l * l * (sf * (1.25 / delta_c).ln() * (2.0 * df).ln()).sqrt() / e,
    )
}

/// The constant `a` of Lemma 6.4's premise for \[GGKKM\] Alg. 1 with Laplace noise, per call:
/// `a = 4L² s H_d/ε_c`.
///
/// # Errors
/// `InvalidParameter` for `L ≤ 0`, `s ∉ [1, d]`, `ε_c ≤ 0`.
pub fn lemma64_alg1_constant_laplace(l: f64, s: u64, d: u64, epsilon_c: f64) -> Result<f64> {
    let l = check::positive("l", l)?;
    let (sf, _) = sparsity(s, d)?;
    let e = check::positive("epsilon_c", epsilon_c)?;
    finite_result("lemma64_alg1_constant_laplace", 4.0 * l * l * sf * harmonic(d) / e)
}

/// \[GGKKM\] Lemma 6.4 as stated (Alg. 2 bounds), `O(1) = 1` — **trend use only**:
/// `(b, ν²) = (L(s ln(d/s) ln(1/δ))^{1/4}/√(nε), L² ln n √(s ln(d/s) ln(1/δ))/ε)`.
///
/// # Errors
/// `InvalidParameter` for `n < 2`, `s = d`, no δ.
pub fn lemma64_rates_unit_constant(p: &SparseProblem) -> Result<(f64, f64)> {
    let l = p.l;
    let q = p.s_ln_d_over_s()? * p.ln_inv_delta()?;
    let b = finite_result("lemma64_rates_unit_constant", l * q.powf(0.25) / p.ne().sqrt())?;
    let nu2 = finite_result("lemma64_rates_unit_constant", l * l * p.ln_n()? * q.sqrt() / p.epsilon)?;
    Ok((b, nu2))
}

fn stopping_inputs(n: u64, delta: f64) -> Result<(u32, f64)> {
    let m = levels(n)?;
    let nf = n as f64;
    if !(delta > 0.0 && delta < 1.0 / (nf * nf)) {
        return Err(Error::invalid("delta", delta, "in (0, 1/n^2) (Lemma 6.5)"));
    }
    Ok((m, (4.0 / delta).ln()))
}

/// \[GGKKM\] Lemma 6.5, the Markov step of its proof **corrected** (erratum E11 of
/// proofs/sparse/bounds.md), with the exact TGeom moments and `X_s = 3·2^{N_s+1} + 1`:
/// `P[T ≤ t] ≤ (t + 1)·[ln(4/δ)(9E[4^{N+1}] + 1)/(4n²) + (3E[2^{N+1}] + 1)/(4n)]`
/// `= (t + 1)·[ln(4/δ)(18n + 1)/(4n²) + (6C_M(M + 1) + 1)/(4n)]` (`2^{M+1} = n`).
/// The printed step has `t` and `/(16n²)`: its threshold `ΣX² > 32n²/ln(4/δ)` should be
/// `8n²/ln(4/δ)` (`2ε√(2 ln(4/δ)A) > ε/2` with `A = ΣX²/(16n)²`), and `{T ≤ t}` involves the
/// t + 1 draws `N_0..N_t`; the printed bound is 0 at t = 0, below `P[T = 0] = 0.0159` at n = 64,
/// δ = 1e-4.
///
/// # Errors
/// `InvalidParameter` for n not a power of two `≥ 2`, `δ ∉ (0, 1/n²)`, `t < 0`.
pub fn lemma65_stopping_probability_bound(t: f64, n: u64, delta: f64) -> Result<f64> {
    let t = check::non_negative("t", t)?;
    let per_draw = lemma65_bound_per_draw(n, delta)?;
    finite_result("lemma65_stopping_probability_bound", (t + 1.0) * per_draw)
}

/// The corrected Lemma 6.5 bound per draw: `ln(4/δ)(9E[4^{N+1}] + 1)/(4n²) + (3E[2^{N+1}] + 1)/(4n)`.
fn lemma65_bound_per_draw(n: u64, delta: f64) -> Result<f64> {
    let (m, l4) = stopping_inputs(n, delta)?;
    let (_, e1, e2) = tgeom_moments(m)?;
    let nf = n as f64;
    finite_result("lemma65_bound_per_draw", l4 * (9.0 * e2 + 1.0) / (4.0 * nf * nf) + (3.0 * e1 + 1.0) / (4.0 * nf))
}

/// \[GGKKM\] Lemma 6.5's absolute constant made explicit: the largest C such that
/// `t = Cn/ln(4/δ)` gives [`lemma65_stopping_probability_bound`] `≤ 1/4`, i.e.
/// `C = (1/(4·per draw) − 1)·ln(4/δ)/n`.
///
/// # Errors
/// As [`lemma65_stopping_probability_bound`]; `Numerical` where no t ≥ 0 meets 1/4 (the bound
/// at t = 0, one draw, already exceeds it: small n, e.g. n = 8 at δ = 0.01).
pub fn lemma65_constant(n: u64, delta: f64) -> Result<f64> {
    let (_, l4) = stopping_inputs(n, delta)?;
    let per_draw = lemma65_bound_per_draw(n, delta)?;
    let c = finite_result("lemma65_constant", (0.25 / per_draw - 1.0) * l4 / n as f64)?;
    if c < 0.0 {
        return Err(Error::Numerical {
            what: "lemma65_constant",
            reason: format!(
                "no t >= 0 has the Lemma 6.5 bound <= 1/4 at n = {n}, delta = {delta} (one draw gives {per_draw})"
            ),
        });
    }
    Ok(c)
}

/// \[GGKKM\] Lemma 6.5's bounds on `E[T]` **as printed**:
/// `(n²/((n + 1) ln(4/δ)) − 1, 64n/(9 ln(4/δ)))` (lower, upper). Not re-derived here: the
/// Wald step's moments are those of the paper.
///
/// # Errors
/// As [`lemma65_stopping_probability_bound`] without t.
pub fn lemma65_expected_stopping_time_printed(n: u64, delta: f64) -> Result<(f64, f64)> {
    let (_, l4) = stopping_inputs(n, delta)?;
    let nf = n as f64;
    Ok((
        finite_result("lemma65_expected_stopping_time_printed", nf * nf / ((nf + 1.0) * l4) - 1.0)?,
        finite_result("lemma65_expected_stopping_time_printed", 64.0 * nf / (9.0 * l4))?,
    ))
}

/// The expected number of steps of \[GGKKM\] Alg. 6, bounded without Lemma 6.5's `ln(4/δ)`
/// (derived here): `E[T + 1] ≤ (7n + 1)/(6C_M(M + 1) + 1) + 1`, `2^{M+1} = n`.
///
/// Derivation: step t runs only if `Σ_{s ≤ t−2} X_s ≤ 4n`, `X_s = 3·2^{N_s+1} + 1` (line 2's
/// second clause, lagged; the first clause only stops earlier), so `T + 1 ≤ σ + 2` with
/// `σ = inf{k : Σ_{s≤k} X_s > 4n}`. Wald's identity (σ is a stopping time of the i.i.d. X's,
/// `σ ≤ 4n/7`) gives `E[σ + 1]E[X] = E[Σ_{s≤σ} X_s] ≤ 4n + max X = 7n + 1`, and
/// `E[X] = 3E[2^{N+1}] + 1 = 6C_M(M + 1) + 1` ([`tgeom_moments`]). It also holds for the
/// checked-first rule (fewer steps).
///
/// # Errors
/// `InvalidParameter` for n not a power of two `≥ 2`.
pub fn lemma65_expected_steps_upper_bound(n: u64) -> Result<f64> {
    let m = levels(n)?;
    let (_, e1, _) = tgeom_moments(m)?;
    let nf = n as f64;
    finite_result("lemma65_expected_steps_upper_bound", (7.0 * nf + 1.0) / (3.0 * e1 + 1.0) + 1.0)
}

/// \[GGKKM\] Thm. 6.7 with its constant made explicit (corrected: `bD`, Prop. 6.6 with the
/// diameter D bounding `‖x^t − x*‖`): the threshold `U/τ` of the event
/// `F_S(x̄) − F_S(x*) ≤ U/τ`, `U = 4[D²/(2η) + E_T(ην²/2 + bD)]` with
/// `E_T` = [`lemma65_expected_steps_upper_bound`]`(n)`.
///
/// The proof: `P[fail] ≤ P[T ≤ τ] + P[R_T > U]`, the first ≤ 1/4 by the choice of C′ (Lemma 6.5),
/// the second ≤ `E[R_T]/U ≤ 1/4` by Markov with Prop. 6.6's `E[R_T] ≤ D²/(2η) + E[T+1](ην²/2 + bD)`;
/// on the complement `F_S(x̄) − F_S(x*) ≤ R_T/(T + 1) < U/τ` (Jensen). At the theorem's
/// `η = D/(ν√τ)` this is `C[Dν√τ + bDτ]/τ` with `C ≤ 4 max((1 + E_T/τ)/2, E_T/τ)`.
///
/// **Hypothesis the caller owns:** the probability 1/2 needs `P[T ≤ τ] ≤ 1/4`, a property of τ
/// (and δ) that this function does not see: certified for `τ ≤ C·n/ln(4/δ)` with
/// C = [`lemma65_constant`]`(n, δ)`, or measured (τ = n/(4 ln(2/δ)) in `tests/sparse_sgd.rs`, D5).
/// For a larger τ the returned `U/τ` is still the Markov half's threshold, but the theorem's
/// probability is not established.
///
/// # Errors
/// `InvalidParameter` for `D, ν, τ, η ≤ 0`, `b < 0`, n not a power of two `≥ 2`.
pub fn theorem67_threshold_explicit(diam_d: f64, (nu, b): (f64, f64), tau: f64, eta: f64, n: u64) -> Result<f64> {
    let (dd, nu, b, tau) = positive4(diam_d, nu, b, tau)?;
    let eta = check::positive("eta", eta)?;
    let e_t = lemma65_expected_steps_upper_bound(n)?;
    let u = 4.0 * (dd * dd / (2.0 * eta) + e_t * (eta * nu * nu / 2.0 + b * dd));
    finite_result("theorem67_threshold_explicit", u / tau)
}

/// \[GGKKM\] Thm. 6.8 with its constant made explicit: the threshold `U/τ` of the event
/// `‖∇F_S(x^{t̂})‖² ≤ U/τ`, `U = 4[Γ/η + E_T(ηHν²/2 + Lb)]`, `E_T` as in
/// [`theorem67_threshold_explicit`].
///
/// The proof: `P[fail] ≤ P[T + 1 ≤ τ] + E[(T + 1)‖∇F_S(x^{t̂})‖²]/U`, and by Prop. B.2 and
/// Lemma 6.4 `E[(T + 1)‖∇F_S(x^{t̂})‖²] = E[Σ_{t≤T} ‖∇F_S(x^t)‖²] ≤ Γ/η + E[T + 1](ηHν²/2 + Lb)`
/// (the cross term is ≤ ‖∇F_S‖·b ≤ Lb). Step: the theorem's `η = √(Γ/(Hτν²))` (printed "Ht", read
/// τ), any η > 0 is valid. The caller owns `P[T + 1 ≤ τ] ≤ 1/4`, as in
/// [`theorem67_threshold_explicit`].
///
/// # Errors
/// `InvalidParameter` for `Γ, H, L, ν, τ, η ≤ 0`, `b < 0`, n not a power of two `≥ 2`.
pub fn theorem68_threshold_explicit(
    gamma: f64,
    h: f64,
    l: f64,
    (nu, b): (f64, f64),
    tau: f64,
    eta: f64,
    n: u64,
) -> Result<f64> {
    let [g, h, l, nu, b, tau] = nonconvex_inputs(gamma, h, l, nu, b, tau)?;
    let eta = check::positive("eta", eta)?;
    let e_t = lemma65_expected_steps_upper_bound(n)?;
    let u = 4.0 * (g / eta + e_t * (eta * h * nu * nu / 2.0 + l * b));
    finite_result("theorem68_threshold_explicit", u / tau)
}

fn positive4(dd: f64, nu: f64, b: f64, tau: f64) -> Result<(f64, f64, f64, f64)> {
    Ok((
        check::positive("diam_d", dd)?,
        check::positive("nu", nu)?,
        check::non_negative("b", b)?,
        check::positive("tau", tau)?,
    ))
}

/// \[GGKKM\] Thm. 6.7, corrected, `C = 1` — **trend use only**: `U/τ` with
/// `U = Dν√τ + bDτ` (the bias term needs `‖x^t − x*‖ ≤ D`, Prop. 6.6), step `η = D/(ν√τ)`.
///
/// # Errors
/// `InvalidParameter` for `D, ν, τ ≤ 0`, `b < 0`.
pub fn theorem67_bound_corrected_unit_constant(diam_d: f64, nu: f64, b: f64, tau: f64) -> Result<f64> {
    let (dd, nu, b, tau) = positive4(diam_d, nu, b, tau)?;
    finite_result("theorem67_bound_corrected_unit_constant", (dd * nu * tau.sqrt() + b * dd * tau) / tau)
}

/// \[GGKKM\] Thm. 6.7 **as printed**, `C = 1`: `U = Dν√τ + bτ` (no D on the bias term).
///
/// # Errors
/// As [`theorem67_bound_corrected_unit_constant`].
pub fn theorem67_bound_printed_unit_constant(diam_d: f64, nu: f64, b: f64, tau: f64) -> Result<f64> {
    let (dd, nu, b, tau) = positive4(diam_d, nu, b, tau)?;
    finite_result("theorem67_bound_printed_unit_constant", (dd * nu * tau.sqrt() + b * tau) / tau)
}

/// The factors of the Thm. 6.7 and 6.8 rates: `(s ln(d/s), ln n, ln(1/δ))`.
fn rate_factors(p: &SparseProblem) -> Result<(f64, f64, f64)> {
    Ok((p.s_ln_d_over_s()?, p.ln_n()?, p.ln_inv_delta()?))
}

/// \[GGKKM\] Thm. 6.7's rate, corrected (with the `^{1/4}`), `O(1) = 1` — **trend use only**:
/// `LD√ln n (s ln(d/s) ln³(1/δ))^{1/4}/√(εn)`.
///
/// # Errors
/// `InvalidParameter` for `D ≤ 0`, `n < 2`, `s = d`, no δ.
pub fn theorem67_rate_corrected_unit_constant(p: &SparseProblem, diam_d: f64) -> Result<f64> {
    let dd = check::positive("diam_d", diam_d)?;
    let (q, ln_n, ld) = rate_factors(p)?;
    let v = p.l * dd * ln_n.sqrt() * (q * ld.powi(3)).powf(0.25) / p.ne().sqrt();
    finite_result("theorem67_rate_corrected_unit_constant", v)
}

/// \[GGKKM\] Thm. 6.7's rate **as printed** (the `^{1/4}` dropped), `O(1) = 1`:
/// `LD√ln n · s ln(d/s) ln³(1/δ)/√(εn)`.
///
/// # Errors
/// As [`theorem67_rate_corrected_unit_constant`].
pub fn theorem67_rate_printed_unit_constant(p: &SparseProblem, diam_d: f64) -> Result<f64> {
    let dd = check::positive("diam_d", diam_d)?;
    let (q, ln_n, ld) = rate_factors(p)?;
    finite_result("theorem67_rate_printed_unit_constant", p.l * dd * ln_n.sqrt() * q * ld.powi(3) / p.ne().sqrt())
}

fn nonconvex_inputs(gamma: f64, h: f64, l: f64, nu: f64, b: f64, tau: f64) -> Result<[f64; 6]> {
    Ok([
        check::positive("gamma", gamma)?,
        check::positive("h", h)?,
        check::positive("l", l)?,
        check::positive("nu", nu)?,
        check::non_negative("b", b)?,
        check::positive("tau", tau)?,
    ])
}

/// \[GGKKM\] Thm. 6.8, corrected, `C = 1` — **trend use only**: `U/τ = √(ΓH/τ)·ν + Lb`
/// (`U = √(ΓHτ)ν + Lτb`, step `η = √(Γ/(Hτν²))`), a bound on `‖∇F_S(x^{t̂})‖²`.
///
/// # Errors
/// `InvalidParameter` for `Γ, H, L, ν, τ ≤ 0`, `b < 0`.
pub fn theorem68_bound_corrected_unit_constant(gamma: f64, h: f64, l: f64, nu: f64, b: f64, tau: f64) -> Result<f64> {
    let [g, h, l, nu, b, tau] = nonconvex_inputs(gamma, h, l, nu, b, tau)?;
    finite_result("theorem68_bound_corrected_unit_constant", (g * h / tau).sqrt() * nu + l * b)
}

/// \[GGKKM\] Thm. 6.8 **as printed**, `C = 1`: `U = √(ΓHτν) + Lτb` (ν inside the root).
///
/// # Errors
/// As [`theorem68_bound_corrected_unit_constant`].
pub fn theorem68_bound_printed_unit_constant(gamma: f64, h: f64, l: f64, nu: f64, b: f64, tau: f64) -> Result<f64> {
    let [g, h, l, nu, b, tau] = nonconvex_inputs(gamma, h, l, nu, b, tau)?;
    finite_result("theorem68_bound_printed_unit_constant", (g * h * tau * nu).sqrt() / tau + l * b)
}

/// \[GGKKM\] Thm. 6.8's rate for `‖∇F_S‖²`, corrected, `O(1) = 1` — **trend use only**:
/// `(L√(ΓH ln n ln(1/δ)) + L²)(s ln(d/s) ln(1/δ))^{1/4}/√(εn)`.
///
/// # Errors
/// `InvalidParameter` for `Γ, H ≤ 0`, `n < 2`, `s = d`, no δ.
pub fn theorem68_rate_corrected_unit_constant(p: &SparseProblem, gamma: f64, h: f64) -> Result<f64> {
    let (g, hh) = (check::positive("gamma", gamma)?, check::positive("h", h)?);
    let (q, ln_n, ld) = rate_factors(p)?;
    let l = p.l;
    let v = (l * (g * hh * ln_n * ld).sqrt() + l * l) * (q * ld).powf(0.25) / p.ne().sqrt();
    finite_result("theorem68_rate_corrected_unit_constant", v)
}

/// \[GGKKM\] Thm. 6.8's rate **as printed**, `O(1) = 1`:
/// `(√(ΓHL)√(ln n ln(1/δ)) + L²)(s ln(d/s) ln(1/δ))^{1/4}/√(εn)`.
///
/// # Errors
/// As [`theorem68_rate_corrected_unit_constant`].
pub fn theorem68_rate_printed_unit_constant(p: &SparseProblem, gamma: f64, h: f64) -> Result<f64> {
    let (g, hh) = (check::positive("gamma", gamma)?, check::positive("h", h)?);
    let (q, ln_n, ld) = rate_factors(p)?;
    let l = p.l;
    let v = ((g * hh * l).sqrt() * (ln_n * ld).sqrt() + l * l) * (q * ld).powf(0.25) / p.ne().sqrt();
    finite_result("theorem68_rate_printed_unit_constant", v)
}
