//! \[ADFJT\] Thm. 3, the private second-moment estimation of Alg. 3: its number of rounds,
//! its accuracy band (as the proof supports it and as printed) and the ellipsoid `Ĉ` built from
//! its output.

use super::validate::{check_nonnegative_sigma, check_vector, finite_result};
use crate::error::{Error, Result, check};

/// The proof's upper factor in the accuracy band of Thm. 3 (App. C: "cannot be set before
/// `t = k − 3`", hence `≤ 8σⱼ`).
pub const SECOND_MOMENT_UPPER_FACTOR: f64 = 8.0;

/// The printed upper factor of eq. (8) (`σ̂ⱼ ≤ 2σⱼ`), which the proof does not support.
pub const SECOND_MOMENT_UPPER_FACTOR_PRINTED: f64 = 2.0;

/// `T_est = ⌈(3/2)·log₂ d⌉`, the number of rounds of Alg. 3 in \[ADFJT\] Thm. 3 (printed
/// `T = (3/2) log d`; the base must be 2 for the floor `2^{−T_est}` to reach `d^{−3/2}`, as
/// App. C uses). Computed exactly in integers as the least `t ≥ 0` with `4^t ≥ d³`, so that
/// `2^{−T_est} ≤ d^{−3/2} < 2^{1−T_est}`.
///
/// # Errors
/// `InvalidParameter` for `d = 0` or `d > 2⁴²` (where `d³` leaves `u128`).
pub fn second_moment_rounds(d: usize) -> Result<u32> {
    if d == 0 || d as u128 > 1u128 << 42 {
        return Err(Error::invalid("d", d, "in [1, 2^42]"));
    }
    let cube = (d as u128).pow(3);
    let mut t = 0u32;
    while 1u128 << (2 * t) < cube {
        t += 1;
    }
    Ok(t)
}

/// `d^{−3/2}`, the floor of eq. (8).
fn floor_d(d: usize) -> f64 {
    let d = d as f64;
    1.0 / (d * d.sqrt())
}

fn check_sigma_j(sigma_j: f64, d: usize) -> Result<()> {
    if !(0.0..=1.0).contains(&sigma_j) {
        return Err(Error::invalid("sigma_j", sigma_j, "in [0, 1] (Thm. 3 normalises max_j sigma_j = 1)"));
    }
    if d == 0 {
        return Err(Error::invalid("d", d, ">= 1"));
    }
    Ok(())
}

/// The accuracy band of Alg. 3 for one coordinate (\[ADFJT\] Thm. 3, eq. (8), as the proof
/// supports it), with `m = max(σⱼ, d^{−3/2})`: `[m/2, 8m]`.
///
/// The lower end is eq. (8)'s. The upper end is the proof's `8σⱼ` (App. C), **raised to
/// `8m` below the floor**: Alg. 3 never outputs less than `2^{−T_est} > d^{−3/2}/2` (line 11), so
/// for `σⱼ < d^{−3/2}/16` no output is `≤ 8σⱼ` (the band `[m/2, 8σⱼ]` is then empty) and for
/// `σⱼ < 2^{−T_est}/8` a correct run exceeds `8σⱼ`. For `σⱼ ≥ d^{−3/2}` this is `[σⱼ/2, 8σⱼ]`.
///
/// # Errors
/// `InvalidParameter` for `σⱼ ∉ [0, 1]` (Thm. 3 assumes `maxⱼ σⱼ = 1`) or `d = 0`.
pub fn second_moment_band(sigma_j: f64, d: usize) -> Result<(f64, f64)> {
    check_sigma_j(sigma_j, d)?;
    let m = sigma_j.max(floor_d(d));
    Ok((m / 2.0, SECOND_MOMENT_UPPER_FACTOR * m))
}

/// The band exactly as eq. (8) prints it: `[max(σⱼ, d^{−3/2})/2, 2σⱼ]` — for comparison; see
/// [`second_moment_band`] for why its upper end fails below the floor (and the proof gives only
/// `8σⱼ` above it).
///
/// # Errors
/// As [`second_moment_band`].
pub fn second_moment_band_printed(sigma_j: f64, d: usize) -> Result<(f64, f64)> {
    check_sigma_j(sigma_j, d)?;
    Ok((sigma_j.max(floor_d(d)) / 2.0, SECOND_MOMENT_UPPER_FACTOR_PRINTED * sigma_j))
}

/// Whether every estimate lies in its [`second_moment_band`]: the accuracy event of Thm. 3 (ii)
/// as the proof supports it (`d = sigma.len()`).
///
/// # Errors
/// `Empty`/`NonFinite` for bad vectors; `InvalidParameter` for lengths that differ, `σ̂ⱼ ≤ 0`,
/// `σⱼ ∉ [0, 1]`, or `maxⱼ σⱼ ≠ 1` (the theorem's normalisation; divide by the maximum first,
/// which gives exactly 1 at the maximum).
pub fn second_moment_estimates_in_band(sigma_hat: &[f64], sigma: &[f64]) -> Result<bool> {
    check_vector("sigma_hat", sigma_hat)?;
    check_nonnegative_sigma(sigma)?;
    if sigma_hat.len() != sigma.len() {
        return Err(Error::invalid("sigma_hat", format!("length {}", sigma_hat.len()), "of the length of sigma"));
    }
    if let Some(&v) = sigma_hat.iter().find(|v| **v <= 0.0) {
        return Err(Error::invalid("sigma_hat", v, "> 0 (Alg. 3 outputs powers of 2)"));
    }
    let max = sigma.iter().copied().fold(0.0, f64::max);
    if max != 1.0 {
        return Err(Error::invalid("sigma", max, "normalised to max_j sigma_j = 1"));
    }
    let d = sigma.len();
    for (h, s) in sigma_hat.iter().zip(sigma) {
        let (lo, hi) = second_moment_band(*s, d)?;
        if !(lo <= *h && *h <= hi) {
            return Ok(false);
        }
    }
    Ok(true)
}

/// The ellipsoid PAGAN runs with after Alg. 3 (\[ADFJT\] Thm. 3 (iii)):
/// `Ĉⱼ = (r·σ̂ⱼ)^{−4/3}/4`, with `r` the moment ratio of Def. 4.1. Then
/// `Ĉⱼ^{−1/2} = 2(r·σ̂ⱼ)^{2/3}` (erratum E17: the paper's App. C writes the exponents with the
/// wrong signs).
///
/// # Errors
/// `Empty`/`NonFinite` for a bad `σ̂`; `InvalidParameter` for `σ̂ⱼ ≤ 0` or `r ≤ 0`.
pub fn c_hat_from_sigma_hat(sigma_hat: &[f64], moment_ratio_r: f64) -> Result<Vec<f64>> {
    check_vector("sigma_hat", sigma_hat)?;
    if let Some(&v) = sigma_hat.iter().find(|v| **v <= 0.0) {
        return Err(Error::invalid("sigma_hat", v, "> 0"));
    }
    let r = check::positive("moment_ratio_r", moment_ratio_r)?;
    sigma_hat.iter().map(|s| finite_result("c_hat_from_sigma_hat", (r * s).powf(-4.0 / 3.0) / 4.0)).collect()
}
