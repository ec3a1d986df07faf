//! The Gaussian mechanism without sampling: the exact (analytic) privacy curve and the classic
//! calibration formula.
//!
//! **Analytic** (Balle & Wang 2018, arXiv 1805.06530v2, Thm. 8): `f(D) + N(0, z²Δ²)` is (ε, δ)-DP
//! iff `δ ≥ δ(ε; z) = Φ(1/(2z) − εz) − e^ε Φ(−1/(2z) − εz)`. The curve is exact (no slack), so
//! this is the yardstick for any accountant on full-batch Gaussian releases: T releases with
//! multiplier z compose to one with `z/√T` (μ-GDP with μ = √T/z).
//!
//! **Classic** (Dwork & Roth 2014, Thm. A.1): `z = √(2 ln(1.25/δ))/ε` suffices *only for
//! ε < 1*; for ε ≥ 1 it can under-noise (Balle–Wang 2018, Thm. 4), so [`classic_noise_multiplier`]
//! refuses it.
//!
//! Inversions solve `ln δ⁺(x) = ln δ*` with [`crate::special::bracket_root`] down to adjacent
//! floats, where `ln δ⁺` is [`log_delta_for_epsilon`] plus its floating-point error bound
//! ([`log_delta_error_bound`]), and return the end where `ln δ⁺ ≤ ln δ*`: the returned ε (or z)
//! provably meets the target despite rounding. The two terms of δ cancel (by a factor
//! `1/(1 − e^d)`: 36 at ε = 0.5, z = 8.06; 140 at ε = 10, z = 3.73), which is why the margin is
//! computed, not guessed.
//! Proof: proofs/accounting/analytic_gaussian.md.

use crate::error::{Error, Result, check};
use crate::special::{bracket_root, log_normal_cdf};

/// `ln δ(ε; z)` of the analytic curve, computed as
/// `ln Φ(a) + ln(1 − exp(ε + ln Φ(b) − ln Φ(a)))`, `a = 1/(2z) − εz`, `b = −1/(2z) − εz`, which
/// keeps relative accuracy in the far tail.
pub fn log_delta_for_epsilon(epsilon: f64, noise_multiplier: f64) -> f64 {
    let z = noise_multiplier;
    let (a, b) = (0.5 / z - epsilon * z, -0.5 / z - epsilon * z);
    let (la, lb) = (log_normal_cdf(a), log_normal_cdf(b));
    let d = epsilon + lb - la; // < 0 for ε ≥ 0
    la + (-d.exp_m1()).ln()
}

/// A bound on the absolute error of [`log_delta_for_epsilon`]: with `u = 2⁻⁵³`, the arguments
/// `a`, `b` carry `2u(1/(2z) + εz)`, which moves `ln Φ` by at most that times its slope
/// `φ(x)/Φ(x) ≤ |x| + 2`; `ln Φ(a)` and `ln Φ(b)` are then within `2u(1 + |·|)` (libm `erfc`
/// < 1 ulp, one rounding in `ln`), so `d = ε + ln Φ(b) − ln Φ(a)` is within
/// `δd = 4u(1 + ε + |ln Φ(a)| + |ln Φ(b)|)` plus the argument terms, and `ln(1 − e^d)` moves by
/// `δd·e^d/(1 − e^d)` plus its own roundings; doubled for safety.
pub fn log_delta_error_bound(epsilon: f64, noise_multiplier: f64) -> f64 {
    const U: f64 = f64::EPSILON / 2.0;
    let z = noise_multiplier;
    let (a, b) = (0.5 / z - epsilon * z, -0.5 / z - epsilon * z);
    let (la, lb) = (log_normal_cdf(a), log_normal_cdf(b));
    let d = epsilon + lb - la;
    let arg = 2.0 * U * (0.5 / z + epsilon * z);
    let dd = 4.0 * U * (1.0 + epsilon + la.abs() + lb.abs()) + arg * (a.abs() + 2.0 + b.abs() + 2.0);
    let tail = (-d.exp_m1()).ln();
    let l = la + tail;
    2.0 * (2.0 * U * (1.0 + la.abs())
        + arg * (a.abs() + 2.0)
        + dd * d.exp() / (-d.exp_m1())
        + 2.0 * U * tail.abs()
        + U * l.abs())
}

/// An upper bound on `ln δ(ε; z)`: [`log_delta_for_epsilon`] plus [`log_delta_error_bound`]; where
/// the two terms of δ cancel below their rounding (d = ε + ln Φ(b) − ln Φ(a) evaluates ≥ 0, and
/// the sum reads NaN: far in the tail, ε well above the root, for z ≳ 9e3) the bound
/// `δ ≤ Φ(a)`, i.e. `ln Φ(a)` plus its own error terms.
pub fn log_delta_upper(epsilon: f64, noise_multiplier: f64) -> f64 {
    let l = log_delta_for_epsilon(epsilon, noise_multiplier) + log_delta_error_bound(epsilon, noise_multiplier);
    if !l.is_nan() {
        return l;
    }
    const U: f64 = f64::EPSILON / 2.0;
    let z = noise_multiplier;
    let a = 0.5 / z - epsilon * z;
    let la = log_normal_cdf(a);
    la + 2.0 * (2.0 * U * (1.0 + la.abs()) + 2.0 * U * (0.5 / z + epsilon * z) * (a.abs() + 2.0))
}

/// A lower bound on `ln δ(ε; z)`: [`log_delta_for_epsilon`] minus [`log_delta_error_bound`], or −∞
/// (δ ≥ 0) where the two terms cancel below their rounding (see [`log_delta_upper`]).
pub fn log_delta_lower(epsilon: f64, noise_multiplier: f64) -> f64 {
    let l = log_delta_for_epsilon(epsilon, noise_multiplier) - log_delta_error_bound(epsilon, noise_multiplier);
    if l.is_nan() { f64::NEG_INFINITY } else { l }
}

/// δ(ε; z) of the Gaussian mechanism (exact curve).
///
/// # Errors
/// `InvalidParameter` for ε < 0 or z ≤ 0 (NaN, ∞ included); `Numerical` where the two terms of
/// δ cancel below their rounding (far in the tail; it returned NaN at ε = 3, z = 1e4):
/// [`delta_for_epsilon_upper`] still bounds it.
pub fn delta_for_epsilon(epsilon: f64, noise_multiplier: f64) -> Result<f64> {
    check::non_negative("epsilon", epsilon)?;
    check::positive("sigma", noise_multiplier)?;
    let l = log_delta_for_epsilon(epsilon, noise_multiplier);
    if l.is_nan() || l == f64::NEG_INFINITY {
        return Err(Error::Numerical {
            what: "analytic Gaussian delta",
            reason: format!(
                "the curve's two terms cancel below rounding at epsilon = {epsilon}, z = {noise_multiplier} (delta is \
                 tiny there); use delta_for_epsilon_upper for a bound"
            ),
        });
    }
    Ok(l.exp())
}

/// δ(ε; z) of the Gaussian mechanism rounded up past its floating-point error: `exp(ln δ + its
/// error bound)` ([`log_delta_error_bound`]), then one relative `4u` and one ulp for the `exp`;
/// capped at 1. A release with multiplier z is (ε, this)-DP.
///
/// # Errors
/// `InvalidParameter` for ε < 0 or z ≤ 0 (NaN, ∞ included).
pub fn delta_for_epsilon_upper(epsilon: f64, noise_multiplier: f64) -> Result<f64> {
    check::non_negative("epsilon", epsilon)?;
    check::positive("sigma", noise_multiplier)?;
    let l = log_delta_upper(epsilon, noise_multiplier);
    Ok((l.exp() * (1.0 + 2.0 * f64::EPSILON)).next_up().min(1.0))
}

/// The first `hi = 2ᵏ` (k = 0, 1, …) with `g(hi) ≤ 0` (or NaN): the upper end of a bracket for a
/// `g` that is positive at the lower end. `None` once `hi` exceeds `limit`.
///
/// # Errors
/// What `g` returns.
pub(crate) fn doubling_upper_end(mut g: impl FnMut(f64) -> Result<f64>, limit: f64) -> Result<Option<f64>> {
    let mut hi = 1.0;
    while g(hi)? > 0.0 {
        hi *= 2.0;
        if hi > limit {
            return Ok(None);
        }
    }
    Ok(Some(hi))
}

/// The smallest ε with `δ(ε; z) ≤ δ`, rounded up (the returned ε satisfies the inequality as
/// evaluated). 0 if already `δ(0; z) ≤ δ`.
///
/// # Errors
/// `InvalidParameter` for δ ∉ (0, 1) or z ≤ 0.
pub fn epsilon_for_delta(noise_multiplier: f64, delta: f64) -> Result<f64> {
    check::positive("sigma", noise_multiplier)?;
    check::open_unit("delta", delta)?;
    let z = noise_multiplier;
    let target = delta.ln();
    let g = |e: f64| Ok(log_delta_upper(e, z) - target);
    if g(0.0)? <= 0.0 {
        return Ok(0.0);
    }
    let Some(hi) = doubling_upper_end(&g, 1e6)? else {
        return Err(Error::Numerical { what: "analytic Gaussian epsilon", reason: "no bracket below 1e6".into() });
    };
    let b = bracket_root("analytic Gaussian epsilon", g, 0.0, hi, |_| false)?;
    Ok(b.hi)
}

/// The smallest multiplier z with `δ(ε; z) ≤ δ`, rounded up.
///
/// # Errors
/// `InvalidParameter` for ε ≤ 0 or δ ∉ (0, 1).
pub fn noise_multiplier_for(epsilon: f64, delta: f64) -> Result<f64> {
    check::positive("epsilon", epsilon)?;
    check::open_unit("delta", delta)?;
    let target = delta.ln();
    let g = |z: f64| Ok(log_delta_upper(epsilon, z) - target);
    let mut lo = 1e-3;
    while g(lo)? <= 0.0 {
        lo *= 0.5;
        if lo < 1e-12 {
            return Err(Error::Numerical { what: "analytic Gaussian sigma", reason: "no bracket above 1e-12".into() });
        }
    }
    let Some(hi) = doubling_upper_end(&g, 1e12)? else {
        return Err(Error::Numerical { what: "analytic Gaussian sigma", reason: "no bracket below 1e12".into() });
    };
    let b = bracket_root("analytic Gaussian sigma", g, lo, hi, |_| false)?;
    Ok(b.hi)
}

/// The classic multiplier `z = √(2 ln(1.25/δ))/ε` (Dwork & Roth 2014, Thm. A.1), rounded up.
///
/// # Errors
/// `InvalidParameter` for ε ∉ (0, 1) (the theorem's hypothesis; Balle–Wang 2018, Thm. 4) or δ ∉ (0, 1).
pub fn classic_noise_multiplier(epsilon: f64, delta: f64) -> Result<f64> {
    if !(epsilon > 0.0 && epsilon < 1.0) {
        return Err(Error::invalid(
            "epsilon",
            epsilon,
            "in (0, 1) for the classic Gaussian formula (it can under-noise for epsilon >= 1; use the analytic calibration)",
        ));
    }
    check::open_unit("delta", delta)?;
    // ln(1.25/δ), or ln 1.25 − ln δ where 1.25/δ overflows (δ < 7e-309: z read ∞)
    let log_term = (1.25 / delta).ln();
    let log_term = if log_term.is_finite() { log_term } else { 1.25f64.ln() - delta.ln() };
    Ok(((2.0 * log_term).sqrt() / epsilon).next_up().next_up())
}
