//! \[AFKT\] Lemma 4.1, second part: the error of a noisy linear-minimisation step over m
//! vertices — report-noisy-min with Laplace noise (`E max|Lap|` is exact) and the exponential
//! mechanism (Gibbs bound with `ln m`).

use super::validate::{finite_result, harmonic};
use crate::error::{Result, check};

/// `E max_{i≤m} |ζ_i| = λ H_m` for i.i.d. `ζ_i ~ Laplace(λ)` (exact: `|ζ_i| ~ Exp` with mean λ,
/// and the maximum of m i.i.d. exponentials has mean `λ Σ_{i=1}^{m} 1/i`). `H_m ≤ 1 + ln m`.
///
/// # Errors
/// `InvalidParameter` for `λ < 0` or `m = 0`.
pub fn laplace_expected_max_abs(lambda: f64, m: u64) -> Result<f64> {
    let lambda = check::non_negative("lambda", lambda)?;
    let m = check::count("m", m)?;
    finite_result("laplace_expected_max_abs", lambda * harmonic(m))
}

/// Report-noisy-min error, `E⟨v, w⟩ − min_i ⟨v, c_i⟩ ≤ λ H_m`, where `w = c_ĩ`,
/// `ĩ = argmin_i (⟨v, c_i⟩ + ζ_i)`, `ζ_i ~ Laplace(λ)` i.i.d. and independent of v.
/// Derivation: with `i*` the exact argmin, `s_ĩ − s_{i*} ≤ ζ_{i*} − ζ_ĩ`;
/// `E ζ_{i*} = 0` (i* is fixed given v) and `−ζ_ĩ ≤ max_i(−ζ_i) ≤ max_i|ζ_i|`, whose mean is
/// [`laplace_expected_max_abs`]. (The cruder `2 max|ζ_i|` gives `2λH_m`.) \[AFKT\] prints
/// `O(λ_{t,s} log m)`.
///
/// # Errors
/// As [`laplace_expected_max_abs`].
pub fn report_noisy_min_error_bound(lambda: f64, m: u64) -> Result<f64> {
    laplace_expected_max_abs(lambda, m)
}

/// Exponential-mechanism selection error: with `P(i) ∝ exp(−ε′ s_i/(2Δ))` (temperature
/// `τ = 2Δ/ε′`), `E s_ĩ − min_i s_i ≤ τ ln m`. Derivation (Gibbs variational principle):
/// `E_P s − τ H(P) = −τ ln Z ≤ min_i s_i`, and the entropy `H(P) ≤ ln m`.
///
/// # Errors
/// `InvalidParameter` for `Δ < 0`, `ε′ ≤ 0` or `m = 0`.
pub fn exponential_mechanism_error_bound(sensitivity_delta: f64, epsilon_step: f64, m: u64) -> Result<f64> {
    let delta = check::non_negative("sensitivity_delta", sensitivity_delta)?;
    let eps = check::positive("epsilon_step", epsilon_step)?;
    let m = check::count("m", m)? as f64;
    finite_result("exponential_mechanism_error_bound", 2.0 * delta / eps * m.ln())
}
