//! \[AFKT\] Sec. 5 (strongly convex reduction, from FKT20 Thm. 5.1): the round sizes, the rate
//! transform, and Thms. 8–9 as printed (prefactor `LD`) and corrected (prefactor `L²/λ`).

use super::L1Setting;
use super::validate::{finite_result, ln_dim};
use crate::error::{Error, Result, check};

/// The rounds of the Sec. 5 reduction: `k = ⌈log₂ log₂ n⌉` runs, round i on
/// `n_i = 2^{i−2} n/log₂ n` fresh samples (real-valued, as printed; base 2 read here).
///
/// # Errors
/// `InvalidParameter` for `n < 4` (`log₂ log₂ n ≤ 0`).
pub fn section5_round_sizes(n: u64) -> Result<Vec<f64>> {
    if n < 4 {
        return Err(Error::invalid("n", n, ">= 4 (k = ceil(log2 log2 n) >= 1)"));
    }
    let nf = n as f64;
    let k = nf.log2().log2().ceil() as i32;
    Ok((1..=k).map(|i| 2f64.powi(i - 2) * nf / nf.log2()).collect())
}

/// The rate transform of the reduction (FKT20): a convex rate `R = LD·r` becomes
/// `(L²/λ)·r² = (L²/λ)(R/(LD))²` under λ-strong convexity.
///
/// # Errors
/// `InvalidParameter` for `L, λ, D ≤ 0` or `R < 0`.
pub fn section5_rate_transform(l: f64, lambda: f64, diam_d: f64, convex_rate: f64) -> Result<f64> {
    let l = check::positive("l", l)?;
    let lambda = check::positive("lambda", lambda)?;
    let dd = check::positive("diam_d", diam_d)?;
    let r = check::non_negative("convex_rate", convex_rate)? / (l * dd);
    finite_result("section5_rate_transform", l * l / lambda * r * r)
}

/// Thm. 8's rate without its prefactor: `ln d/n + d ln³d ln(1/δ)/(n²ε²)`.
fn thm8_core(s: &L1Setting) -> f64 {
    let (n, e, ln_d) = (s.n(), s.epsilon(), s.ln_d());
    ln_d / n + s.d() * ln_d.powi(3) * s.ln_inv_delta() / (n * n * e * e)
}

/// \[AFKT\] Thm. 8 as printed, `O(1) = 1` — **trend use only**: `LD(ln d/n + d ln³d ln(1/δ)/(n²ε²))`.
///
/// # Errors
/// `InvalidParameter` for `L, D ≤ 0`.
pub fn theorem8_rate_printed_unit_constant(l: f64, diam_d: f64, setting: &L1Setting) -> Result<f64> {
    let (l, dd) = (check::positive("l", l)?, check::positive("diam_d", diam_d)?);
    finite_result("theorem8_rate_printed_unit_constant", l * dd * thm8_core(setting))
}

/// \[AFKT\] Thm. 8 with the reduction's prefactor `L²/λ` (corrected), `O(1) = 1` — **trend use
/// only**: [`section5_rate_transform`] of Thm. 4's rate.
///
/// # Errors
/// `InvalidParameter` for `L, λ ≤ 0`.
pub fn theorem8_rate_corrected_unit_constant(l: f64, lambda: f64, setting: &L1Setting) -> Result<f64> {
    let (l, lambda) = (check::positive("l", l)?, check::positive("lambda", lambda)?);
    finite_result("theorem8_rate_corrected_unit_constant", l * l / lambda * thm8_core(setting))
}

/// Thm. 9's rate without its prefactor: `ln d ln²n/n + (ln(1/δ) ln m ln²n/(nε))^{4/3}`.
fn thm9_core(s: &L1Setting, m: u64) -> Result<f64> {
    let (n, e, ln_n) = (s.n(), s.epsilon(), s.ln_n()?);
    let ln_m = ln_dim("m", m)?;
    Ok(s.ln_d() * ln_n * ln_n / n + (s.ln_inv_delta() * ln_m * ln_n * ln_n / (n * e)).powf(4.0 / 3.0))
}

/// \[AFKT\] Thm. 9 as printed, `O(1) = 1` — **trend use only**:
/// `LD(ln d ln²n/n) + LD(ln(1/δ) ln m ln²n/(nε))^{4/3}`.
///
/// # Errors
/// `InvalidParameter` for `L, D ≤ 0`, `n, m < 2`.
pub fn theorem9_rate_printed_unit_constant(l: f64, diam_d: f64, m: u64, setting: &L1Setting) -> Result<f64> {
    let (l, dd) = (check::positive("l", l)?, check::positive("diam_d", diam_d)?);
    finite_result("theorem9_rate_printed_unit_constant", l * dd * thm9_core(setting, m)?)
}

/// \[AFKT\] Thm. 9 with the prefactor `L²/λ` (corrected), `O(1) = 1` — **trend use only**.
///
/// # Errors
/// `InvalidParameter` for `L, λ ≤ 0`, `n, m < 2`.
pub fn theorem9_rate_corrected_unit_constant(l: f64, lambda: f64, m: u64, setting: &L1Setting) -> Result<f64> {
    let (l, lambda) = (check::positive("l", l)?, check::positive("lambda", lambda)?);
    finite_result("theorem9_rate_corrected_unit_constant", l * l / lambda * thm9_core(setting, m)?)
}
