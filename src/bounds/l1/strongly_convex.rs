//! \[AFKT\] Sec. 5 (strongly convex reduction, from FKT20 Thm. 5.1): the round sizes, the rate
//! transform, and Thms. 8–9 as printed (prefactor `LD`) and corrected (prefactor `L²/λ`).

use super::validate::{finite_result, ln_dim, ln_inv_delta, ln_n};
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

fn thm8_core(n: u64, d: u64, epsilon: f64, delta: f64) -> Result<f64> {
    let n = check::count("n", n)? as f64;
    let ln_d = ln_dim("d", d)?;
    let e = check::positive("epsilon", epsilon)?;
    let ld = ln_inv_delta(delta)?;
    Ok(ln_d / n + d as f64 * ln_d.powi(3) * ld / (n * n * e * e))
}

/// \[AFKT\] Thm. 8 as printed, `O(1) = 1` — **trend use only**: `LD(ln d/n + d ln³d ln(1/δ)/(n²ε²))`.
///
/// # Errors
/// `InvalidParameter` for `L, D ≤ 0`, `n = 0`, `d < 2`, `ε ≤ 0`, `δ ∉ (0, 1)`.
pub fn theorem8_rate_printed_unit_constant(
    l: f64,
    diam_d: f64,
    n: u64,
    d: u64,
    epsilon: f64,
    delta: f64,
) -> Result<f64> {
    let (l, dd) = (check::positive("l", l)?, check::positive("diam_d", diam_d)?);
    finite_result("theorem8_rate_printed_unit_constant", l * dd * thm8_core(n, d, epsilon, delta)?)
}

/// \[AFKT\] Thm. 8 with the reduction's prefactor `L²/λ` (corrected), `O(1) = 1` — **trend use
/// only**: [`section5_rate_transform`] of Thm. 4's rate.
///
/// # Errors
/// As [`theorem8_rate_printed_unit_constant`], and `λ ≤ 0`.
pub fn theorem8_rate_corrected_unit_constant(
    l: f64,
    lambda: f64,
    n: u64,
    d: u64,
    epsilon: f64,
    delta: f64,
) -> Result<f64> {
    let l = check::positive("l", l)?;
    let lambda = check::positive("lambda", lambda)?;
    finite_result("theorem8_rate_corrected_unit_constant", l * l / lambda * thm8_core(n, d, epsilon, delta)?)
}

fn thm9_core(n: u64, d: u64, m: u64, epsilon: f64, delta: f64) -> Result<f64> {
    let ln_n = ln_n("n", n)?;
    let nf = n as f64;
    let ln_d = ln_dim("d", d)?;
    let ln_m = ln_dim("m", m)?;
    let e = check::positive("epsilon", epsilon)?;
    let ld = ln_inv_delta(delta)?;
    Ok(ln_d * ln_n * ln_n / nf + (ld * ln_m * ln_n * ln_n / (nf * e)).powf(4.0 / 3.0))
}

/// \[AFKT\] Thm. 9 as printed, `O(1) = 1` — **trend use only**:
/// `LD(ln d ln²n/n) + LD(ln(1/δ) ln m ln²n/(nε))^{4/3}`.
///
/// # Errors
/// `InvalidParameter` for `L, D ≤ 0`, `n, d, m < 2`, `ε ≤ 0`, `δ ∉ (0, 1)`.
pub fn theorem9_rate_printed_unit_constant(
    l: f64,
    diam_d: f64,
    n: u64,
    d: u64,
    m: u64,
    epsilon: f64,
    delta: f64,
) -> Result<f64> {
    let (l, dd) = (check::positive("l", l)?, check::positive("diam_d", diam_d)?);
    finite_result("theorem9_rate_printed_unit_constant", l * dd * thm9_core(n, d, m, epsilon, delta)?)
}

/// \[AFKT\] Thm. 9 with the prefactor `L²/λ` (corrected), `O(1) = 1` — **trend use only**.
///
/// # Errors
/// As [`theorem9_rate_printed_unit_constant`], and `λ ≤ 0`.
pub fn theorem9_rate_corrected_unit_constant(
    l: f64,
    lambda: f64,
    n: u64,
    d: u64,
    m: u64,
    epsilon: f64,
    delta: f64,
) -> Result<f64> {
    let l = check::positive("l", l)?;
    let lambda = check::positive("lambda", lambda)?;
    finite_result("theorem9_rate_corrected_unit_constant", l * l / lambda * thm9_core(n, d, m, epsilon, delta)?)
}
