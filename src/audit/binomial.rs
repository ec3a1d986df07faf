//! Binomial confidence bounds and tails: the one Clopper–Pearson implementation of dpref.
//!
//! For `X ~ Binomial(n, p)` observed at `k`, the exact one-sided Clopper–Pearson bounds at level
//! `α` are
//! `p_lo = B⁻¹(α; k, n−k+1)` (0 if k = 0) and `p_hi = B⁻¹(1−α; k+1, n−k)` (1 if k = n),
//! where `B⁻¹(·; a, b)` is the Beta(a, b) quantile: `P_p(X ≥ k) ≤ α` for every `p ≤ p_lo`, and
//! `P_p(X ≤ k) ≤ α` for every `p ≥ p_hi` (Clopper & Pearson 1934). The closed forms
//! `p_lo = α^{1/n}` at k = n and `p_hi = 1 − α^{1/n}` at k = 0 are used exactly.
//!
//! The quantile is found by bisection on the binomial upper tail `I_x(a, b) = P(Bin(a+b−1, x) ≥ a)`,
//! keeping the end of the bracket that satisfies the inequality, so the lower bound satisfies
//! `I_{p_lo}(k, n−k+1) ≤ α` as evaluated; the upper bound is `1 − p_lo(n − k)` by the symmetry
//! `I_x(a, b) = 1 − I_{1−x}(b, a)`, rounded up. The tail is statrs' regularised incomplete beta up
//! to n = 10⁶ trials ([`BETA_REG_MAX_TRIALS`]), and above it a sum of binomial terms from Loader's
//! saddle-point pmf ([`binomial_upper_tail`]): statrs' continued fraction stops after 140
//! iterations and returns unconverged values near the mean for large a, b (−0.546 instead of 0.5
//! at a = 50000001, b = 50000000), which once certified a lower bound above k/n at n = 5·10⁷.
//! statrs' own `Beta::inverse_cdf` is not used: it does not return for Beta(1, 10⁷) at
//! p = 1.25e-9 (a level a Bonferroni search over 10⁷ samples needs).
//! Proof: proofs/audit/clopper_pearson.md.

use crate::error::{Error, Result, check};
use statrs::function::beta::beta_reg;

fn check_counts(k: u64, n: u64, alpha: f64) -> Result<()> {
    check::count("n", n)?;
    if k > n {
        return Err(Error::invalid("k", k, "<= n"));
    }
    check::open_unit("alpha", alpha)?;
    if alpha < 1e-280 {
        // the summed tail reads a boundary term below ~1e-308 as 0: sound only for α above that
        return Err(Error::invalid("alpha", alpha, ">= 1e-280"));
    }
    Ok(())
}

/// Relative accuracy assumed of the tail in the bisection (statrs' `beta_reg`: measured up to
/// 1.9e-8 relative at n = 10⁷, from cancelling ln Γ terms; the summed tail: below 1e-10); the
/// target level is shaded by it.
pub const BETA_REG_RTOL: f64 = 1e-6;

/// The largest number of trials n = a + b − 1 at which statrs' `beta_reg` evaluates the tail (fast,
/// and within the shading there at every level, proofs/audit/clopper_pearson.md §3 C5′); above it
/// the tail is summed. At n = 2·10⁵ statrs was already 5.8e-7 off near the mean, 1.5e-4 at
/// 5·10⁵ and 2.4e-3 at 10⁶ (a bound at α ≈ ½ then exceeded its level by 2.9e-3).
pub const BETA_REG_MAX_TRIALS: f64 = 1e5;

/// `I_x(a, b)` for integers a, b ≥ 1: `P(X ≥ a)` for X ~ Binomial(a + b − 1, x).
fn tail(a: f64, b: f64, x: f64) -> f64 {
    if a + b - 1.0 <= BETA_REG_MAX_TRIALS {
        beta_reg(a, b, x)
    } else {
        binomial_upper_tail((a + b - 1.0) as u64, a as u64, x)
    }
}

/// `P(X ≥ k)` for X ~ Binomial(n, x), 1 ≤ k ≤ n, 0 < x < 1, **rounded towards the larger tail**
/// and within about 1e-10 relative of it at any n (the bisection shades its level by 1e-6): the
/// terms are summed from the boundary outward on the side where they fall, from Loader's pmf at
/// the boundary and the ratio recurrence (the ratios fall moving outward), until the geometric
/// bound `term·r/(1 − r)` on the rest is below 1e-10 of the sum. Upward (`Σ_{j≥k}`, k > nx) that
/// bound is added; downward (`1 − Σ_{j<k}`) it is left out: both over-read the tail, so a level
/// met as evaluated is met by the exact tail (up to the pmf's ~1e-13).
pub fn binomial_upper_tail(n: u64, k: u64, x: f64) -> f64 {
    let odds = x / (1.0 - x);
    let upward = k as f64 > n as f64 * x;
    let mut j = if upward { k } else { k - 1 };
    let mut term = ln_binomial_pmf(n, j, x).exp();
    let mut sum = term;
    let mut rest = 0.0;
    loop {
        let ratio = if upward {
            if j == n {
                break;
            }
            (n - j) as f64 / (j + 1) as f64 * odds
        } else {
            if j == 0 {
                break;
            }
            j as f64 / ((n - j + 1) as f64 * odds)
        };
        let bound = term * ratio / (1.0 - ratio);
        if bound <= 1e-10 * sum {
            rest = bound;
            break;
        }
        term *= ratio;
        j = if upward { j + 1 } else { j - 1 };
        sum += term;
    }
    if upward { (sum + rest).min(1.0) } else { (1.0 - sum).max(0.0) }
}

/// `ln` of the Binomial(n, x) pmf at k by Loader's saddle-point form (Loader 2000, "Fast and
/// accurate computation of binomial probabilities"), accurate to ~1e-13 relative at any n, where
/// the ln-factorial form loses ~u·n ln n to cancellation:
/// `stirlerr(n) − stirlerr(k) − stirlerr(n−k) − bd0(k, nx) − bd0(n−k, n(1−x)) − ½ ln(2πk(n−k)/n)`.
pub fn ln_binomial_pmf(n: u64, k: u64, x: f64) -> f64 {
    let (nf, kf) = (n as f64, k as f64);
    if k == 0 {
        return nf * (-x).ln_1p();
    }
    if k == n {
        return nf * x.ln();
    }
    let mf = nf - kf;
    let lc = stirling_error(nf)
        - stirling_error(kf)
        - stirling_error(mf)
        - deviance_term(kf, nf * x)
        - deviance_term(mf, nf * (1.0 - x));
    lc - 0.5 * (std::f64::consts::TAU.ln() + kf.ln() + (-kf / nf).ln_1p())
}

/// `ln n! − ln(√(2πn)(n/e)ⁿ)` for an integer n ≥ 1 (from `lgamma` up to 15, Stirling's series above).
fn stirling_error(n: f64) -> f64 {
    const S0: f64 = 1.0 / 12.0;
    const S1: f64 = 1.0 / 360.0;
    const S2: f64 = 1.0 / 1260.0;
    const S3: f64 = 1.0 / 1680.0;
    const S4: f64 = 1.0 / 1188.0;
    if n <= 15.0 {
        return libm::lgamma(n + 1.0) - (n + 0.5) * n.ln() + n - 0.5 * std::f64::consts::TAU.ln();
    }
    let nn = n * n;
    if n > 500.0 {
        (S0 - S1 / nn) / n
    } else if n > 80.0 {
        (S0 - (S1 - S2 / nn) / nn) / n
    } else if n > 35.0 {
        (S0 - (S1 - (S2 - S3 / nn) / nn) / nn) / n
    } else {
        (S0 - (S1 - (S2 - (S3 - S4 / nn) / nn) / nn) / nn) / n
    }
}

/// `x ln(x/m) + m − x` without cancellation (Loader's bd0: a series in v = (x − m)/(x + m) when
/// x and m are close).
fn deviance_term(x: f64, m: f64) -> f64 {
    if (x - m).abs() < 0.1 * (x + m) {
        let mut v = (x - m) / (x + m);
        let mut s = (x - m) * v;
        let mut ej = 2.0 * x * v;
        v *= v;
        for j in 1..1000 {
            ej *= v;
            let s1 = s + ej / f64::from(2 * j + 1);
            if s1 == s {
                break;
            }
            s = s1;
        }
        s
    } else {
        x * (x / m).ln() + m - x
    }
}

/// The largest x (to within adjacent floats) with `I_x(a, b) ≤ p`, for a, b ≥ 1: closed forms for
/// a = 1 or b = 1, else bisection on the tail against `p·(1 − BETA_REG_RTOL)` (so that the exact
/// `I_x(a, b) ≤ p` holds despite the tail's relative error).
fn beta_quantile_below(a: f64, b: f64, p: f64) -> f64 {
    if a == 1.0 {
        // I_x(1, b) = 1 − (1 − x)^b  ⇒  x = 1 − (1 − p)^{1/b}; step down two ulp for the roundings
        return (-((-p).ln_1p() / b).exp_m1()).next_down().next_down().max(0.0);
    }
    if b == 1.0 {
        // I_x(a, 1) = x^a  ⇒  x = p^{1/a}
        return (p.ln() / a).exp().next_down().next_down().max(0.0);
    }
    // The closed forms above need no shading; the bisection below evaluates the tail.
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
    if tail(a, b, x) <= p {
        lo = x;
    } else {
        hi = x;
        loop {
            x *= 0.5;
            if x < f64::MIN_POSITIVE {
                return 0.0;
            }
            if tail(a, b, x) <= p {
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
        if tail(a, b, mid) <= p {
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

    /// The summed tail agrees with statrs' `beta_reg` where the latter is validated (n ≤ 10⁵,
    /// around the mean and in both tails) to statrs' own accuracy, 1e-8 relative; at n = 10⁵,
    /// k = 49000, x = 0.49 it over-reads a 40-digit sum (0.50125340345778459) by less than its
    /// stated 1e-10 (and never under-reads it by more than the pmf's 1e-13), where statrs is off by
    /// 1.1e-9.
    #[test]
    fn summed_tail_agrees_with_beta_reg_where_that_converges() {
        let exact = 0.501_253_403_457_784_6;
        let over = binomial_upper_tail(100_000, 49_000, 0.49) / exact - 1.0;
        assert!((-1e-13..2e-10).contains(&over), "over-read by {over}");
        for (n, k) in [(20u64, 7u64), (1000, 480), (1000, 30), (100_000, 50_100), (100_000, 49_000)] {
            for x in [0.01, 0.3, 0.45, 0.49, 0.5, 0.51, 0.7] {
                let (ours, statrs) = (binomial_upper_tail(n, k, x), beta_reg(k as f64, (n - k + 1) as f64, x));
                if statrs > 1e-280 && statrs < 1.0 - 1e-12 {
                    assert!((ours / statrs - 1.0).abs() < 1e-8, "n {n} k {k} x {x}: {ours} vs {statrs}");
                }
            }
        }
    }

    /// At n = 5·10⁷ (above the statrs range) the bounds stay below k/n and near the normal
    /// approximation k/n − z_α·σ (z_α = Φ⁻¹(1 − α) ≈ 6.23 at α = 2.5e-10, σ = √(p(1−p)/n)): statrs' unconverged
    /// continued fraction returned 0.5000004 and 0.6000002 here, above the point estimates. The
    /// lower bound at k = 25000001 is pinned to 0.499560252974418861, at which a 40-digit mpmath
    /// binomial sum gives P(X ≥ k) = α(1 − 1.0e-6) (the shading): a tail read a factor 2 off moves
    /// it by 8e-6. The two summation branches agree through the symmetry
    /// P(X ≥ k; x) = 1 − P(X ≥ n − k + 1; 1 − x) to 2e-10 (each over-reads by at most 1e-10).
    #[test]
    fn large_n_bounds_stay_below_the_point_estimate() {
        let n = 50_000_000u64;
        let pinned = clopper_pearson_lower(25_000_001, n, 2.5e-10).unwrap();
        assert!((pinned - 0.499_560_252_974_418_9).abs() < 1e-13, "{pinned}");
        for (k, p) in [(25_000_001u64, 0.5), (30_000_001, 0.6)] {
            let lo = clopper_pearson_lower(k, n, 2.5e-10).unwrap();
            let z = -crate::special::normal_quantile(2.5e-10);
            let normal = p - z * (p * (1.0 - p) / n as f64).sqrt();
            assert!(lo < k as f64 / n as f64 && (lo - normal).abs() < 2e-5, "k {k}: {lo} vs {normal}");
            let hi = clopper_pearson_upper(k, n, 2.5e-10).unwrap();
            assert!(hi > k as f64 / n as f64 && (hi - (2.0 * p - normal)).abs() < 2e-5, "k {k}: {hi}");
        }
        for x in [0.4999, 0.5, 0.50003] {
            let (a, b) = (binomial_upper_tail(n, 25_000_001, x), binomial_upper_tail(n, 25_000_000, 1.0 - x));
            assert!((a - (1.0 - b)).abs() < 2e-10, "x {x}: {a} + {b}");
        }
    }
}
