//! Binomial confidence bounds and tails: the one Clopper–Pearson implementation of dpref.
//!
//! For `X ~ Binomial(n, p)` observed at `k`, the exact one-sided Clopper–Pearson bounds at level
//! `α` are
//! `p_lo = B⁻¹(α; k, n−k+1)` (0 if k = 0) and `p_hi = B⁻¹(1−α; k+1, n−k)` (1 if k = n),
//! where `B⁻¹(·; a, b)` is the Beta(a, b) quantile: `P_p(X ≥ k) ≤ α` for every `p ≤ p_lo`, and
//! `P_p(X ≤ k) ≤ α` for every `p ≥ p_hi` (Clopper & Pearson 1934). The closed forms
//! `p_lo = α^{1/n}` at k = n and `p_hi = 1 − α^{1/n}` at k = 0 are used exactly.
//!
//! The quantile is found by bisection on statrs' regularised incomplete beta `I_x(a, b)`
//! (the CDF), keeping the end of the bracket that satisfies the inequality, so the lower bound
//! satisfies `I_{p_lo}(k, n−k+1) ≤ α` as evaluated; the upper bound is `1 − p_lo(n − k)` by the
//! symmetry `I_x(a, b) = 1 − I_{1−x}(b, a)`, rounded up. statrs' own `Beta::inverse_cdf` is not
//! used: it does not return for Beta(1, 10⁷) at p = 1.25e-9 (a level a Bonferroni search over 10⁷
//! samples needs).
//! Proof: proofs/audit/clopper_pearson.md.

use crate::error::{Error, Result, check};
use statrs::function::beta::beta_reg;

fn check_counts(k: u64, n: u64, alpha: f64) -> Result<()> {
    check::count("n", n)?;
    if k > n {
        return Err(Error::invalid("k", k, "<= n"));
    }
    check::open_unit("alpha", alpha)?;
    Ok(())
}

/// Relative accuracy assumed of statrs' `beta_reg` in the bisection (measured: up to 1.9e-8
/// relative at n = 10⁷, from cancelling ln Γ terms); the target level is shaded by it.
pub const BETA_REG_RTOL: f64 = 1e-6;

/// The largest x (to within adjacent floats) with `I_x(a, b) ≤ p`, for a, b ≥ 1: closed forms for
/// a = 1 or b = 1, else bisection on `beta_reg` against `p·(1 − BETA_REG_RTOL)` (so that the exact
/// `I_x(a, b) ≤ p` holds despite `beta_reg`'s relative error).
fn beta_quantile_below(a: f64, b: f64, p: f64) -> f64 {
    if a == 1.0 {
        // I_x(1, b) = 1 − (1 − x)^b  ⇒  x = 1 − (1 − p)^{1/b}; step down two ulp for the roundings
        return (-((-p).ln_1p() / b).exp_m1()).next_down().next_down().max(0.0);
    }
    if b == 1.0 {
        // I_x(a, 1) = x^a  ⇒  x = p^{1/a}
        return (p.ln() / a).exp().next_down().next_down().max(0.0);
    }
    // The closed forms above need no shading; the bisection below evaluates beta_reg.
    memoised(a, b, p, || bisect_below(a, b, p * (1.0 - BETA_REG_RTOL)))
}

/// `compute()`, the bisection of [`beta_quantile_below`] at `(a, b, p)`, remembered: an audit
/// evaluates the bounds of the same counts at the same level for every threshold and every
/// attack, and repeated audits of one sample size (the statistical tests, the catalogue) meet
/// the same counts again. The function is pure, so a remembered value is the value; the table
/// is emptied when it reaches 2¹⁷ entries (about 5 MB).
fn memoised(a: f64, b: f64, p: f64, compute: impl FnOnce() -> f64) -> f64 {
    type Table = std::collections::HashMap<(u64, u64, u64), f64>;
    static CACHE: std::sync::OnceLock<std::sync::Mutex<Table>> = std::sync::OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    let key = (a.to_bits(), b.to_bits(), p.to_bits());
    if let Some(&x) = cache.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).get(&key) {
        return x;
    }
    let x = compute();
    let mut c = cache.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if c.len() >= 1 << 17 {
        c.clear();
    }
    c.insert(key, x);
    x
}

/// The bisection of [`beta_quantile_below`] against the shaded level `p`.
fn bisect_below(a: f64, b: f64, p: f64) -> f64 {
    // Bracket: lo with I ≤ p, hi with I > p; geometric steps while the ratio is large.
    let mean = a / (a + b);
    let mut hi = 1.0f64;
    let mut x = mean;
    let mut lo;
    if beta_reg(a, b, x) <= p {
        lo = x;
    } else {
        hi = x;
        loop {
            x *= 0.5;
            if x < f64::MIN_POSITIVE {
                return 0.0;
            }
            if beta_reg(a, b, x) <= p {
                lo = x;
                break;
            }
            hi = x;
        }
    }
    for _ in 0..2000 {
        let mid = if lo > 0.0 && hi / lo > 4.0 { (lo * hi).sqrt() } else { 0.5 * (lo + hi) };
        if mid <= lo || mid >= hi {
            break;
        }
        if beta_reg(a, b, mid) <= p {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

/// One-sided lower Clopper–Pearson bound on p from `k` successes in `n` trials at level `alpha`.
///
/// # Errors
/// `InvalidParameter` for n = 0, k > n, alpha ∉ (0, 1).
pub fn clopper_pearson_lower(k: u64, n: u64, alpha: f64) -> Result<f64> {
    check_counts(k, n, alpha)?;
    if k == 0 {
        return Ok(0.0);
    }
    Ok(beta_quantile_below(k as f64, (n - k + 1) as f64, alpha))
}

/// One-sided upper Clopper–Pearson bound on p from `k` successes in `n` trials at level `alpha`.
///
/// # Errors
/// `InvalidParameter` for n = 0, k > n, alpha ∉ (0, 1).
pub fn clopper_pearson_upper(k: u64, n: u64, alpha: f64) -> Result<f64> {
    check_counts(k, n, alpha)?;
    if k == n {
        return Ok(1.0);
    }
    // By symmetry: the upper bound for k successes is 1 − the lower bound for n − k failures.
    let lower_failures = clopper_pearson_lower(n - k, n, alpha)?;
    Ok((1.0 - lower_failures).next_up().min(1.0))
}

/// `ln` of the Binomial(r, q) pmf at j, via `ln C(r, j) + j ln q + (r − j) ln(1 − q)`.
pub fn ln_binomial_pmf(r: u64, q: f64, j: u64) -> f64 {
    crate::special::ln_factorial(r) - crate::special::ln_factorial(j) - crate::special::ln_factorial(r - j)
        + j as f64 * q.ln()
        + (r - j) as f64 * (-q).ln_1p()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closed_forms_at_the_ends() {
        let lo = clopper_pearson_lower(500, 500, 0.005).unwrap();
        assert!((lo - 0.005f64.powf(1.0 / 500.0)).abs() < 1e-15 && lo <= 0.005f64.powf(1.0 / 500.0));
        // General case: the bisection lands on the shaded level p·(1 − BETA_REG_RTOL), i.e. within
        // 2·BETA_REG_RTOL relative of α from below, and near R's qbeta(0.05, 3, 8) = 0.08726443.
        let x = clopper_pearson_lower(3, 10, 0.05).unwrap();
        let at = beta_reg(3.0, 8.0, x);
        assert!((0.05 * (1.0 - 2.0 * BETA_REG_RTOL)..=0.05).contains(&at), "I_x = {at}");
        assert!((x - 0.087_264_43).abs() < 1e-6, "x = {x}");
        let hi = clopper_pearson_upper(0, 500, 0.005).unwrap();
        assert!((hi - (1.0 - 0.005f64.powf(1.0 / 500.0))).abs() < 1e-15);
        assert_eq!(clopper_pearson_lower(0, 10, 0.05).unwrap(), 0.0);
        assert_eq!(clopper_pearson_upper(10, 10, 0.05).unwrap(), 1.0);
    }
}
