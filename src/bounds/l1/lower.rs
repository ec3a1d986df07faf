//! \[AFKT\] Sec. 6 lower bounds: Thm. 10 (non-smooth) with its hard instance evaluated exactly
//! (the empirical loss, its minimum, and the key inequality with and without the L the printed
//! `F̂` drops), Thm. 11 (smooth), and the resulting smooth-case optimum, `O(1) = 1` for the rates.

use super::validate::{finite_result, ln_dim};
use crate::error::{Error, Result, check};

/// \[AFKT\] Thm. 10, `Ω(1) = 1` — **trend use only**: `LD√d/(nε ln d)`.
///
/// # Errors
/// `InvalidParameter` for `L, D ≤ 0`, `n = 0`, `d < 2`, `ε ≤ 0`.
pub fn theorem10_lower_bound_unit_constant(l: f64, diam_d: f64, n: u64, d: u64, epsilon: f64) -> Result<f64> {
    let (l, dd) = (check::positive("l", l)?, check::positive("diam_d", diam_d)?);
    let n = check::count("n", n)? as f64;
    let ln_d = ln_dim("d", d)?;
    let e = check::positive("epsilon", epsilon)?;
    finite_result("theorem10_lower_bound_unit_constant", l * dd * (d as f64).sqrt() / (n * e * ln_d))
}

/// Validates the hard instance: `a = D/d`, the fractions `φ_j ∈ [0, 1]` of samples with
/// `z_j = +a`, and (if given) a point x of the same length with finite entries.
fn instance(diam_d: f64, plus_fraction: &[f64], x: Option<&[f64]>) -> Result<f64> {
    let dd = check::positive("diam_d", diam_d)?;
    if plus_fraction.is_empty() {
        return Err(Error::Empty { what: "plus_fraction" });
    }
    for &phi in plus_fraction {
        if !(0.0..=1.0).contains(&phi) {
            return Err(Error::invalid("plus_fraction", phi, "in [0, 1]"));
        }
    }
    if let Some(x) = x {
        if x.len() != plus_fraction.len() {
            return Err(Error::invalid("x", x.len(), "of the same length as plus_fraction"));
        }
        check::all_finite("x", x)?;
    }
    Ok(dd / plus_fraction.len() as f64)
}

/// The empirical loss of \[AFKT\] Thm. 10's instance, `f(x; z) = L‖x − z‖₁`,
/// `z ∈ {±a}^d`, `a = D/d`, evaluated exactly from the fractions `φ_j` of `+a`:
/// `F̂(x) = L Σ_j (φ_j|x_j − a| + (1 − φ_j)|x_j + a|)`. The mean is `z̄_j = a(2φ_j − 1)`.
///
/// # Errors
/// `InvalidParameter` for `L < 0`, `D ≤ 0`, a fraction outside [0, 1] or a length mismatch;
/// `Empty` for `d = 0`; `NonFinite` for a non-finite x.
pub fn theorem10_empirical_loss(l: f64, diam_d: f64, plus_fraction: &[f64], x: &[f64]) -> Result<f64> {
    let l = check::non_negative("l", l)?;
    let a = instance(diam_d, plus_fraction, Some(x))?;
    let s: f64 =
        plus_fraction.iter().zip(x).map(|(&phi, &xj)| phi * (xj - a).abs() + (1.0 - phi) * (xj + a).abs()).sum();
    finite_result("theorem10_empirical_loss", l * s)
}

/// The minimum over `X = {‖x‖₁ ≤ D}` of [`theorem10_empirical_loss`]: `L Σ_j (a − |z̄_j|)`,
/// attained at `x* = a·sign(z̄)` (each coordinate's median, `‖x*‖₁ ≤ da = D`).
///
/// # Errors
/// As [`theorem10_empirical_loss`].
pub fn theorem10_empirical_minimum(l: f64, diam_d: f64, plus_fraction: &[f64]) -> Result<f64> {
    let l = check::non_negative("l", l)?;
    let a = instance(diam_d, plus_fraction, None)?;
    let s: f64 = plus_fraction.iter().map(|&phi| a - (a * (2.0 * phi - 1.0)).abs()).sum();
    finite_result("theorem10_empirical_minimum", l * s)
}

/// The right side of \[AFKT\] Thm. 10's key inequality, `L Σ_j |z̄_j| 1{sign(x_j) ≠ sign(z̄_j)}`
/// (sign(0) = 0), a lower bound on `F̂(x) − min_X F̂` for every x: a mismatched coordinate has
/// `x_j z̄_j ≤ 0`, so its loss is at least `La`, `L|z̄_j|` above its minimum.
///
/// # Errors
/// As [`theorem10_empirical_loss`].
pub fn theorem10_sign_error(l: f64, diam_d: f64, plus_fraction: &[f64], x: &[f64]) -> Result<f64> {
    let l = check::non_negative("l", l)?;
    let a = instance(diam_d, plus_fraction, Some(x))?;
    let sign = |v: f64| {
        if v > 0.0 {
            1
        } else if v < 0.0 {
            -1
        } else {
            0
        }
    };
    let s: f64 = plus_fraction
        .iter()
        .zip(x)
        .map(|(&phi, &xj)| {
            let zbar = a * (2.0 * phi - 1.0);
            if sign(xj) != sign(zbar) { zbar.abs() } else { 0.0 }
        })
        .sum();
    finite_result("theorem10_sign_error", l * s)
}

/// The empirical excess **as printed**: Thm. 10 defines `F̂(x; S) = (1/n)Σ‖x − z_i‖₁` without
/// the L of f, so `F̂(x) − min F̂ ≥ L Σ|z̄_j|1{…}` fails for `L > 1` (the excess of the L-free
/// `F̂` is this function; the correct one is L times it).
///
/// # Errors
/// As [`theorem10_empirical_loss`].
pub fn theorem10_empirical_excess_printed(diam_d: f64, plus_fraction: &[f64], x: &[f64]) -> Result<f64> {
    Ok(theorem10_empirical_loss(1.0, diam_d, plus_fraction, x)?
        - theorem10_empirical_minimum(1.0, diam_d, plus_fraction)?)
}

/// \[AFKT\] Thm. 11, `Ω̃(1) = 1` — **trend use only**: `LD·min((nε)^{−2/3}, √d/(nε))`.
///
/// # Errors
/// `InvalidParameter` for `L, D ≤ 0`, `n = 0`, `d = 0`, `ε ≤ 0`.
pub fn theorem11_lower_bound_unit_constant(l: f64, diam_d: f64, n: u64, d: u64, epsilon: f64) -> Result<f64> {
    let (l, dd) = (check::positive("l", l)?, check::positive("diam_d", diam_d)?);
    let n = check::count("n", n)? as f64;
    let d = check::count("d", d)? as f64;
    let e = check::positive("epsilon", epsilon)?;
    finite_result("theorem11_lower_bound_unit_constant", l * dd * (n * e).powf(-2.0 / 3.0).min(d.sqrt() / (n * e)))
}

/// The smooth-case optimal rate that Thms. 2, 4, 11 together give (Sec. 6.2), unit constants —
/// **trend use only**: `√(ln d/n) + min((ln d/(nε))^{2/3}, √d/(nε))`.
///
/// # Errors
/// `InvalidParameter` for `n = 0`, `d < 2`, `ε ≤ 0`.
pub fn smooth_optimal_rate_unit_constant(n: u64, d: u64, epsilon: f64) -> Result<f64> {
    let n = check::count("n", n)? as f64;
    let ln_d = ln_dim("d", d)?;
    let e = check::positive("epsilon", epsilon)?;
    let v = (ln_d / n).sqrt() + (ln_d / (n * e)).powf(2.0 / 3.0).min((d as f64).sqrt() / (n * e));
    finite_result("smooth_optimal_rate_unit_constant", v)
}
