//! Mirror descent vs Frank–Wolfe: the private terms of \[AFKT\] Thm. 1 (Alg. 2, non-smooth) and
//! Thm. 2 (Alg. 3, smooth, approximate DP) with unit constants, and the dimension where they cross.

use super::validate::{finite_result, ln_dim};
use crate::error::{Result, check};

fn args(n: u64, epsilon: f64) -> Result<f64> {
    let n = check::count("n", n)? as f64;
    let e = check::positive("epsilon", epsilon)?;
    Ok(n * e)
}

/// \[AFKT\] Thm. 1's private term, `O(1) = 1` — **trend use only**: `√d ln^{3/2}d/(nε)`.
///
/// # Errors
/// `InvalidParameter` for `n = 0`, `d < 2`, `ε ≤ 0`.
pub fn md_private_term_unit_constant(n: u64, d: u64, epsilon: f64) -> Result<f64> {
    let ne = args(n, epsilon)?;
    let ln_d = ln_dim("d", d)?;
    finite_result("md_private_term_unit_constant", (d as f64).sqrt() * ln_d.powf(1.5) / ne)
}

/// \[AFKT\] Thm. 2's private term, `O(1) = 1` — **trend use only**: `(ln d/(nε))^{2/3}`.
///
/// # Errors
/// As [`md_private_term_unit_constant`].
pub fn fw_private_term_unit_constant(n: u64, d: u64, epsilon: f64) -> Result<f64> {
    let ne = args(n, epsilon)?;
    let ln_d = ln_dim("d", d)?;
    finite_result("fw_private_term_unit_constant", (ln_d / ne).powf(2.0 / 3.0))
}

/// The real `d ≥ 2` where the two private terms are equal: their ratio (MD/FW) is
/// `√d (ln d)^{5/6}/(nε)^{1/3}`, increasing in d, so the crossover solves
/// `√d (ln d)^{5/6} = (nε)^{1/3}` (bisection on ln d to 1e-12 relative). Below it mirror
/// descent's term is smaller, above it Frank–Wolfe's. Returns 2 if FW is already smaller at d = 2.
///
/// # Errors
/// `InvalidParameter` for `n = 0` or `ε ≤ 0`.
pub fn md_fw_crossover_dimension(n: u64, epsilon: f64) -> Result<f64> {
    let target = args(n, epsilon)?.cbrt().ln();
    // g(u) = ln(√d (ln d)^{5/6}) with u = ln d: u/2 + (5/6) ln u, increasing for u > 0.
    let g = |u: f64| u / 2.0 + 5.0 / 6.0 * u.ln();
    let mut lo = 2f64.ln();
    if g(lo) >= target {
        return Ok(2.0);
    }
    let mut hi = 2.0 * target.max(1.0) + 2.0;
    while g(hi) < target {
        hi *= 2.0;
    }
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if g(mid) < target {
            lo = mid
        } else {
            hi = mid
        }
        if hi - lo <= 1e-12 * hi {
            break;
        }
    }
    finite_result("md_fw_crossover_dimension", (0.5 * (lo + hi)).exp())
}

/// The crossover with logarithms dropped (the Sec. 6.2 reading of Thm. 11, `√d/(nε) = (nε)^{−2/3}`):
/// `d = (nε)^{2/3}`.
///
/// # Errors
/// `InvalidParameter` for `n = 0` or `ε ≤ 0`.
pub fn md_fw_crossover_dimension_log_free(n: u64, epsilon: f64) -> Result<f64> {
    finite_result("md_fw_crossover_dimension_log_free", args(n, epsilon)?.powf(2.0 / 3.0))
}
