//! RDP of the Gaussian mechanism on a uniformly random subset of fixed size b out of n
//! (sampling without replacement), under replace-one neighbouring: Wang, Balle,
//! Kasiviswanathan 2019 (arXiv 1808.00087v2), "Subsampled Rényi DP and analytical moments
//! accountant".
//!
//! Notation: `γ = b/n`, base mechanism RDP `ε(j) = j/(2z²)` (z relative to the replace-one
//! sensitivity, see [`crate::accounting::event`]), `h(j) = e^{(j−1)ε(j)} = e^{j(j−1)/(2z²)}`, and
//! `Δˡ = Σ_{i=0}^{l} (−1)^{l−i} C(l,i) h(i)` its l-th forward difference at 0. For integer α ≥ 2,
//! `(α−1)·ε′(α) ≤ ln(1 + Σ_{j=2}^{α} γʲ C(α,j) Tⱼ)` with
//!
//! * `T₂ = min{4(e^{ε(2)} − 1), 2e^{ε(2)}}` (Thm. 9 with ε(∞) = ∞),
//! * `Tⱼ = min{4·(Δ^{2⌊j/2⌋} Δ^{2⌈j/2⌉})^{1/2}, 2e^{(j−1)ε(j)}}` for j ≥ 3 (Thm. 27, which applies
//!   to the Gaussian mechanism, and Thm. 9).
//!
//! The even-order forward differences are alternating sums with heavy cancellation when z is
//! large. They are evaluated in log space with a floating-point error bound
//! ([`super::logsum`]); a difference whose bound is not below 1 % (or whose computed value is not
//! positive, though every even difference is) is not used, and the term falls back to Theorem 9's
//! `2e^{(j−1)ε(j)}`, which has no cancellation. Orders above [`THM27_MAX_ORDER`] use Theorem 9
//! alone. Fractional α: the cumulant `(α−1)ε′(α)` is convex in α (Cor. 10), so the linear
//! interpolation of the integer bounds at ⌊α⌋ and ⌈α⌉ is an upper bound (the cumulant is 0 at α = 1).
//! Proof: proofs/accounting/rdp_without_replacement.md.

use super::logsum::LogSum;
use crate::special::{ln_binomial, ln_factorial};

/// Orders above this use the general bound (Thm. 9) only: the forward differences cost O(α²).
pub const THM27_MAX_ORDER: u64 = 256;

/// Upper bounds on `ln Δˡ` for even l ≤ `max_l` (index l), `None` where unusable.
fn log_forward_differences(z: f64, max_l: u64) -> Vec<Option<f64>> {
    let two_z2 = 2.0 * z * z;
    let mut out = vec![None; max_l as usize + 1];
    for l in (2..=max_l).step_by(2) {
        let mut s = LogSum::with_capacity(l as usize + 1);
        for i in 0..=l {
            let (lb, e) = (ln_binomial(l as f64, i as f64), (i * i - i) as f64 / two_z2);
            // magnitude: the three ln-factorials ln C is computed from, plus the exponent
            let mag = ln_factorial(l) + ln_factorial(i) + ln_factorial(l - i) + e;
            s.push(lb + e, (l - i) % 2 == 0, mag);
        }
        let v = s.finish();
        if v.value.is_finite() && v.error < 0.01 {
            out[l as usize] = Some(v.upper());
        }
    }
    out
}

/// Upper bound on `ln(1 + Σⱼ γʲ C(α,j) Tⱼ)` for integer α ≥ 2.
fn log_moment_int(gamma: f64, z: f64, alpha: u64, diffs: &[Option<f64>]) -> f64 {
    let two_z2 = 2.0 * z * z;
    let ln_g = gamma.ln();
    let eps2 = 2.0 / two_z2;
    let mut s = LogSum::with_capacity(alpha as usize);
    s.push(0.0, true, 0.0);
    for j in 2..=alpha {
        let jf = j as f64;
        let lb = ln_binomial(alpha as f64, jf);
        let lb_mag = ln_factorial(alpha) + ln_factorial(j) + ln_factorial(alpha - j);
        let general = std::f64::consts::LN_2 + jf * (jf - 1.0) / two_z2; // ln(2 e^{(j−1)ε(j)})
        let t = if j == 2 {
            // ln min{4(e^{ε(2)} − 1), 2e^{ε(2)}}
            // ln(e^{ε₂} − 1) = ε₂ + ln(−expm1(−ε₂)): accurate also for small ε₂ (large z)
            let four_em1 = 4f64.ln() + eps2 + (-(-eps2).exp_m1()).ln();
            four_em1.min(general)
        } else {
            let (lo, hi) = (2 * (j / 2), 2 * j.div_ceil(2));
            match (
                alpha <= THM27_MAX_ORDER,
                diffs.get(lo as usize).copied().flatten(),
                diffs.get(hi as usize).copied().flatten(),
            ) {
                (true, Some(dl), Some(dh)) => (4f64.ln() + 0.5 * (dl + dh)).min(general),
                _ => general,
            }
        };
        let l = jf * ln_g + lb + t;
        s.push(l, true, (jf * ln_g).abs() + lb_mag + t.abs());
    }
    s.finish().upper()
}

/// Per-step RDP upper bounds at each order of `orders` (each > 1), `γ = b/n ∈ (0, 1]`, `z > 0`.
pub fn rdp_curve_upper(gamma: f64, z: f64, orders: &[f64]) -> Vec<f64> {
    if gamma >= 1.0 {
        return orders.iter().map(|&a| super::basic::gaussian_rdp(z, a)).collect();
    }
    let max_int = orders.iter().map(|a| a.ceil() as u64).max().unwrap_or(2);
    let diffs = log_forward_differences(z, (max_int.min(THM27_MAX_ORDER) + 1).next_multiple_of(2));
    let cgf = |a: u64| if a <= 1 { 0.0 } else { log_moment_int(gamma, z, a, &diffs) };
    orders
        .iter()
        .map(|&a| {
            let (lo, hi) = (a.floor() as u64, a.ceil() as u64);
            let k = if lo == hi {
                cgf(lo)
            } else {
                let t = a - lo as f64;
                let (x, y) = (cgf(lo), cgf(hi));
                ((1.0 - t) * x + t * y) * (1.0 + 4.0 * f64::EPSILON)
            };
            (k / (a - 1.0)).next_up()
        })
        .collect()
}

/// Per-step RDP upper bound at one order (see [`rdp_curve_upper`]).
pub fn rdp_upper(gamma: f64, z: f64, alpha: f64) -> f64 {
    rdp_curve_upper(gamma, z, &[alpha])[0]
}
