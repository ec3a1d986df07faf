//! Numerical building blocks shared by the accountants and the audits: log-space arithmetic,
//! `ln erfc` that stays accurate where `erfc` underflows, the normal CDF, one bracketed root
//! finder, one bisection of a monotone predicate, and the directed roundings (`div_up`,
//! `div_down`, `mul_up`, `add_up`, `count_up`) that keep a recorded privacy parameter on its safe
//! side. Each function states its accuracy and, where it matters, its rounding direction.

use crate::error::{Error, Result};

/// `ln(e^a + e^b)` without overflow. `-∞` is the additive identity.
pub fn log_add(a: f64, b: f64) -> f64 {
    if a == f64::NEG_INFINITY {
        return b;
    }
    if b == f64::NEG_INFINITY {
        return a;
    }
    let (hi, lo) = if a >= b { (a, b) } else { (b, a) };
    hi + (lo - hi).exp().ln_1p()
}

/// `ln(e^a - e^b)` for `a >= b` (returns `-∞` when `a == b`). `ln(-expm1(b - a))` keeps the
/// relative accuracy when the two are close.
pub fn log_sub(a: f64, b: f64) -> f64 {
    debug_assert!(a >= b || b == f64::NEG_INFINITY, "invariant: log_sub needs a >= b");
    if b == f64::NEG_INFINITY {
        return a;
    }
    if a == b {
        return f64::NEG_INFINITY;
    }
    a + (-(b - a).exp_m1()).ln()
}

/// `ln erfc(x)`, accurate to a few ulp of the result for all finite `x`.
///
/// For `x < 20` it is `ln(erfc(x))` with `libm::erfc` (the musl/FreeBSD implementation, error
/// below 1 ulp; no underflow before x ≈ 26). statrs' `erfc` is not used: its relative error
/// reaches 1e-10 (e.g. at x = 0.5), which would move the analytic Gaussian ε in the 11th digit. For `x >= 20` it uses the asymptotic series
/// `erfc(x) = e^{-x²}/(x√π) · Σ_n (-1)^n (2n-1)!!/(2x²)^n`, which is enveloping (the error is
/// smaller than the first omitted term and of its sign); it stops after a positive term, so the
/// result is an *upper* bound on `erfc(x)` with relative error below 1e-20 at x ≥ 20.
pub fn log_erfc(x: f64) -> f64 {
    if x < 20.0 {
        return libm::erfc(x).ln();
    }
    let inv_2x2 = 1.0 / (2.0 * x * x);
    let mut term = 1.0;
    let mut sum = 1.0;
    // Terms n = 1..=12; (2n-1)/(2x²) <= 23/800, so the 13th term is < 1e-20 relative.
    for n in 1..=12u32 {
        term *= -((2 * n - 1) as f64) * inv_2x2;
        sum += term;
    }
    -x * x - (x * std::f64::consts::PI.sqrt()).ln() + sum.ln()
}

/// `ln(½ erfc(x))`, accurate also where `½ erfc(x)` is close to 1 (x ≪ 0), where it is computed
/// as `ln1p(−½ erfc(−x))`: the absolute error is then a few ulp of the (small) result instead of a
/// few ulp of ln 2.
pub fn log_half_erfc(x: f64) -> f64 {
    if x < 0.0 { (-0.5 * libm::erfc(-x)).ln_1p() } else { log_erfc(x) - std::f64::consts::LN_2 }
}

/// Standard normal CDF `Φ(x) = ½ erfc(-x/√2)`, relative accuracy ~1e-15 also in the lower tail.
pub fn normal_cdf(x: f64) -> f64 {
    0.5 * libm::erfc(-x / std::f64::consts::SQRT_2)
}

/// `ln Φ(x) = ln(½ erfc(−x/√2))`, accurate in both tails (uses [`log_half_erfc`]).
pub fn log_normal_cdf(x: f64) -> f64 {
    log_half_erfc(-x / std::f64::consts::SQRT_2)
}

/// Standard normal quantile `Φ^{-1}(p)` for `p ∈ (0, 1)`: statrs' `erfc_inv` as the start
/// (relative error up to ~1e-9 in the tails) refined by two Newton steps on `ln Φ(x) = ln p`
/// (on `ln(1 − Φ(x)) = ln(1 − p)` above the median), which restores full precision.
pub fn normal_quantile(p: f64) -> f64 {
    if p > 0.5 {
        return -normal_quantile(1.0 - p);
    }
    let mut x = -std::f64::consts::SQRT_2 * statrs::function::erf::erfc_inv(2.0 * p);
    if !x.is_finite() {
        return x;
    }
    let ln_p = p.ln();
    for _ in 0..2 {
        // d/dx ln Φ(x) = φ(x)/Φ(x)
        let l = log_normal_cdf(x);
        let log_pdf = -0.5 * x * x - 0.5 * (2.0 * std::f64::consts::PI).ln();
        x -= (l - ln_p) / (log_pdf - l).exp();
    }
    x
}

/// `ln C(n, k)` for real `n >= k >= 0` (generalised binomial through `libm::lgamma`); exact-table
/// values for integer arguments up to 170 (statrs `ln_factorial`).
pub fn ln_binomial(n: f64, k: f64) -> f64 {
    if n.fract() == 0.0 && k.fract() == 0.0 && n <= 170.0 {
        return statrs::function::factorial::ln_binomial(n as u64, k as u64);
    }
    libm::lgamma(n + 1.0) - libm::lgamma(k + 1.0) - libm::lgamma(n - k + 1.0)
}

/// `ln C(d, k) = Σ_{i<k} ln((d − i)/(i + 1))` for integers: k terms each with a relative rounding
/// of a few ulps (no cancellation: every term is ≥ 0 for k ≤ d/2, and the sum of positive terms is
/// stable), where [`ln_binomial`]'s `lgamma` difference loses digits to cancellation for large d;
/// for bounds that must be rounded in a known direction (\[GGKKM\] Algorithm 2's certified RIP
/// constant).
///
/// # Errors
/// `InvalidParameter` for k > d.
pub fn ln_binomial_summed(d: usize, k: usize) -> Result<f64> {
    if k > d {
        return Err(Error::invalid("k (binomial)", k, "<= d"));
    }
    let k = k.min(d - k);
    Ok((0..k).map(|i| ((d - i) as f64 / (i + 1) as f64).ln()).sum())
}

/// `ln k!` for `k ≤ 4096` from a table built once (`libm::lgamma`, within ~1 ulp), beyond by
/// `lgamma` directly. Used by the RDP sums, which need `ln C(α, k)` for every k ≤ α.
pub fn ln_factorial(k: u64) -> f64 {
    static TABLE: std::sync::OnceLock<Vec<f64>> = std::sync::OnceLock::new();
    let t = TABLE.get_or_init(|| (0..=4096u64).map(|j| libm::lgamma(j as f64 + 1.0)).collect());
    match t.get(k as usize) {
        Some(&v) => v,
        None => libm::lgamma(k as f64 + 1.0),
    }
}

/// Result of [`bracket_root`]: an interval `[lo, hi]` containing the sign change of a monotone
/// function, with its values at both ends.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bracket {
    /// Left end.
    pub lo: f64,
    /// Right end.
    pub hi: f64,
    /// `g(lo)`.
    pub g_lo: f64,
    /// `g(hi)`.
    pub g_hi: f64,
}

/// `(lo + hi)/2`, also where `lo + hi` overflows (then `lo/2 + hi/2`; the same float otherwise):
/// a bracket [1e300, f64::MAX] read its midpoint as ∞ and stopped at once.
fn midpoint(lo: f64, hi: f64) -> f64 {
    let sum = lo + hi;
    if sum.is_finite() { 0.5 * sum } else { 0.5 * lo + 0.5 * hi }
}

/// Bisection of a predicate that is true below some point and false above it: halves
/// `[lo, hi]` at most `max_halvings` times, or until the midpoint is no longer strictly inside
/// (the ends are adjacent floats), setting `lo = mid` where `below(mid)` and `hi = mid`
/// otherwise. Returns the final `(lo, hi)`; only midpoints are evaluated, so the caller keeps
/// whichever end its guarantee needs (an end it checked on entry, or one `below` saw).
pub fn bisect(mut lo: f64, mut hi: f64, max_halvings: u32, mut below: impl FnMut(f64) -> bool) -> (f64, f64) {
    for _ in 0..max_halvings {
        let mid = midpoint(lo, hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if below(mid) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    (lo, hi)
}

/// Shrinks a bracket `[lo, hi]` with `g(lo)` and `g(hi)` of opposite signs (`g` continuous and
/// monotone) by the Illinois variant of regula falsi, falling back to bisection whenever the
/// secant step makes too little progress, until `done(&bracket)` holds or the ends are adjacent
/// floats. The caller then picks the end that satisfies its guarantee; the root finder itself never
/// claims a point it did not evaluate.
///
/// # Errors
/// `Numerical` if the ends do not bracket a sign change or `g` returns NaN.
pub fn bracket_root(
    what: &'static str,
    mut g: impl FnMut(f64) -> Result<f64>,
    lo: f64,
    hi: f64,
    mut done: impl FnMut(&Bracket) -> bool,
) -> Result<Bracket> {
    let (g_lo, g_hi) = (g(lo)?, g(hi)?);
    if g_lo.is_nan() || g_hi.is_nan() || g_lo.signum() == g_hi.signum() && g_lo != 0.0 && g_hi != 0.0 {
        return Err(Error::Numerical { what, reason: format!("no sign change on [{lo}, {hi}]: g = {g_lo}, {g_hi}") });
    }
    let mut b = Bracket { lo, hi, g_lo, g_hi };
    let mut side_kept = 0i32; // >0: lo end kept repeatedly, <0: hi end kept repeatedly
    for _ in 0..400 {
        if b.g_lo == 0.0 || b.g_hi == 0.0 || done(&b) {
            return Ok(b);
        }
        let mid = midpoint(b.lo, b.hi);
        if mid <= b.lo || mid >= b.hi {
            return Ok(b); // adjacent floats
        }
        // Illinois: halve the retained end's weight after two retentions in a row.
        let (mut w_lo, mut w_hi) = (b.g_lo, b.g_hi);
        if side_kept >= 2 {
            w_lo *= 0.5;
        } else if side_kept <= -2 {
            w_hi *= 0.5;
        }
        let mut x = b.lo - w_lo * (b.hi - b.lo) / (w_hi - w_lo);
        let width = b.hi - b.lo;
        // Safeguard: stay well inside the bracket, else bisect.
        if !(x > b.lo + 0.01 * width && x < b.hi - 0.01 * width) {
            x = mid;
        }
        let gx = g(x)?;
        if gx.is_nan() {
            return Err(Error::Numerical { what, reason: format!("g({x}) is NaN") });
        }
        if gx == 0.0 {
            return Ok(Bracket { lo: x, hi: x, g_lo: 0.0, g_hi: 0.0 });
        }
        if gx.signum() == b.g_lo.signum() {
            b.lo = x;
            b.g_lo = gx;
            side_kept = if side_kept < 0 { side_kept - 1 } else { -1 };
        } else {
            b.hi = x;
            b.g_hi = gx;
            side_kept = if side_kept > 0 { side_kept + 1 } else { 1 };
        }
    }
    Ok(b)
}

/// `a/b` rounded **up** (for finite a, b with b ≠ 0 and the exact residual representable, i.e.
/// away from underflow): the quotient rounded to nearest, raised by one ulp when it fell below
/// a/b. The sign of the exact residual `q·b − a` decides; a fused multiply-add computes it with one
/// rounding, which keeps its sign.
pub fn div_up(a: f64, b: f64) -> f64 {
    let q = a / b;
    let below = if b > 0.0 { q.mul_add(b, -a) < 0.0 } else { q.mul_add(b, -a) > 0.0 };
    if below { q.next_up() } else { q }
}

/// `a/b` rounded **down** (same conditions as [`div_up`]).
pub fn div_down(a: f64, b: f64) -> f64 {
    let q = a / b;
    let above = if b > 0.0 { q.mul_add(b, -a) > 0.0 } else { q.mul_add(b, -a) < 0.0 };
    if above { q.next_down() } else { q }
}

/// `a·b` rounded **up** (finite a, b, away from underflow): the rounded product, raised by one
/// ulp when it fell below the exact one (its error computed exactly by a fused multiply-add).
pub fn mul_up(a: f64, b: f64) -> f64 {
    let p = a * b;
    if a.mul_add(b, -p) > 0.0 { p.next_up() } else { p }
}

/// `a·b` rounded **down** (same conditions as [`mul_up`]).
pub fn mul_down(a: f64, b: f64) -> f64 {
    let p = a * b;
    if a.mul_add(b, -p) < 0.0 { p.next_down() } else { p }
}

/// `√x` rounded **up** (finite x ≥ 0, away from underflow): the correctly rounded root, raised by
/// one ulp when its square fell below x (the residual `r² − x` computed with one rounding by a fused
/// multiply-add, which keeps its sign).
pub fn sqrt_up(x: f64) -> f64 {
    let r = x.sqrt();
    if r.mul_add(r, -x) < 0.0 { r.next_up() } else { r }
}

/// `√x` rounded **down** (same conditions as [`sqrt_up`]).
pub fn sqrt_down(x: f64) -> f64 {
    let r = x.sqrt();
    if r.mul_add(r, -x) > 0.0 { r.next_down() } else { r }
}

/// The count `k` as a float rounded **up** (exact up to 2⁵³; above, the conversion rounds to
/// nearest, possibly down, and is stepped up then).
pub fn count_up(k: u64) -> f64 {
    let kf = k as f64;
    if (kf as u128) < u128::from(k) { kf.next_up() } else { kf }
}

/// `a + b` rounded **up** (finite a, b): the rounded sum, raised by one ulp when it fell below the
/// exact one (the error term of Knuth's TwoSum is exact).
pub fn add_up(a: f64, b: f64) -> f64 {
    let s = a + b;
    if s == f64::NEG_INFINITY && a.is_finite() && b.is_finite() {
        return -f64::MAX; // a finite sum below −MAX rounds up to −MAX, not to −∞
    }
    let b_virtual = s - a;
    let error = (a - (s - b_virtual)) + (b - b_virtual);
    if error > 0.0 { s.next_up() } else { s }
}

/// `sign(x)` with `sign(0) = 0` (Rust's `signum` gives ±1 at ±0).
pub fn sign(x: f64) -> f64 {
    if x > 0.0 {
        1.0
    } else if x < 0.0 {
        -1.0
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_add_sub_roundtrip() {
        let (a, b) = (3.0_f64.ln(), 1.0_f64.ln());
        assert!((log_add(a, b) - 4.0_f64.ln()).abs() < 1e-15);
        assert!((log_sub(a, b) - 2.0_f64.ln()).abs() < 1e-15);
        assert_eq!(log_add(f64::NEG_INFINITY, 2.0), 2.0);
        assert_eq!(log_sub(2.0, 2.0), f64::NEG_INFINITY);
    }

    #[test]
    fn bisect_ends_at_adjacent_floats_or_after_max_halvings() {
        // x² < 2 holds below √2: the ends straddle it and are adjacent floats.
        let (lo, hi) = bisect(0.0, 2.0, 200, |x| x * x < 2.0);
        assert!(lo * lo < 2.0 && hi * hi >= 2.0, "{lo} {hi}");
        assert_eq!(hi, f64::from_bits(lo.to_bits() + 1));
        // Three halvings of [0, 8] at a root of 5: 4, 6, 5 are evaluated, nothing else.
        let mut seen = Vec::new();
        let ends = bisect(0.0, 8.0, 3, |x| {
            seen.push(x);
            x < 5.0
        });
        assert_eq!((ends, seen), ((4.0, 5.0), vec![4.0, 6.0, 5.0]));
        // Adjacent ends on entry: nothing is evaluated.
        let one_up = f64::from_bits(1.0f64.to_bits() + 1);
        assert_eq!(bisect(1.0, one_up, 200, |_| unreachable!()), (1.0, one_up));
    }

    /// The directed operations bracket the exact value: checked against exact rational
    /// arithmetic in u128 on dyadic inputs (a = i/2^10, b = j/2^10, so a/b = i/j), and on sums
    /// whose exact value needs more than 53 bits.
    #[test]
    fn directed_rounding_brackets_the_exact_value() {
        let mut raised = 0;
        for i in 1u64..300 {
            for j in 1u64..300 {
                let (a, b) = (i as f64 / 1024.0, j as f64 / 1024.0);
                let (up, down) = (div_up(a, b), div_down(a, b));
                // up ≥ i/j ⇔ up·j ≥ i, exactly: up = m·2^e with m < 2^53, j < 2^9.
                let ge = |x: f64, greater: bool| {
                    // 1/299 ≤ x < 300: its last bit is ≥ 2^-62, so x·2^80 is an integer < 2^89
                    let (m, e) = (x * 2f64.powi(80), 80);
                    let lhs = m as u128 * j as u128;
                    let rhs = (i as u128) << e;
                    if greater { lhs >= rhs } else { lhs <= rhs }
                };
                assert!(ge(up, true) && ge(down, false), "{i}/{j}: {down} {up}");
                assert!(up == down || up == down.next_up(), "{i}/{j}: adjacent or equal");
                raised += usize::from(up != a / b);
            }
        }
        assert!(raised > 1000, "the rounding direction mattered often: {raised}");
        assert_eq!(add_up(1.0, 1e-17), 1.0f64.next_up());
        assert_eq!(add_up(1.0, -1e-17), 1.0);
        assert_eq!(add_up(0.5, 0.25), 0.75);
        assert_eq!(add_up(-f64::MAX, -f64::MAX), -f64::MAX);
        assert_eq!(mul_up(1.0 + f64::EPSILON, 1.0 + f64::EPSILON), (1.0 + 2.0 * f64::EPSILON).next_up());
        assert_eq!(mul_up(3.0, 0.5), 1.5);
        let k = (1u64 << 53) + 1;
        assert_eq!(
            (count_up(k), count_up(1 << 53), count_up(7)),
            (((1u64 << 53) + 2) as f64, (1u64 << 53) as f64, 7.0)
        );
        assert_eq!(div_up(1.0, 4.0), 0.25);
        assert_eq!(div_down(-1.0, 3.0), -(div_up(1.0, 3.0)));
    }

    /// Directed products and roots against exact integer arithmetic: on a, b ∈ [1, 2) with 53-bit
    /// mantissas (a = i/2⁵², b = j/2⁵²) the exact product is i·j/2¹⁰⁴, and on x ∈ [1, 4) the exact
    /// comparison of r² with x is (r·2⁵²)² against x·2¹⁰⁴, all in u128. A rounded-to-nearest result
    /// fails one side in about half the cases (`raised` counts them).
    #[test]
    fn directed_products_and_roots_bracket_the_exact_value() {
        use rand::Rng;
        let mut rng = rand_pcg::Pcg64::new(0x5eed_0001, 0x0a02_bdbf_7bb3_c0a7);
        let mantissa = |r: &mut rand_pcg::Pcg64| (1u64 << 52) | (r.next_u64() >> 12);
        let scaled = |x: f64| -> u128 { (x * 2f64.powi(52)) as u128 }; // exact for x ∈ [1, 4)
        let (mut raised_mul, mut raised_sqrt) = (0, 0);
        for _ in 0..20_000 {
            let (i, j) = (mantissa(&mut rng), mantissa(&mut rng));
            let (a, b) = (i as f64 / 2f64.powi(52), j as f64 / 2f64.powi(52));
            let exact = u128::from(i) * u128::from(j); // a·b·2¹⁰⁴
            let (up, down) = (mul_up(a, b), mul_down(a, b));
            assert!(scaled(up) << 52 >= exact && scaled(down) << 52 <= exact, "{a}·{b}: {down} {up}");
            assert!(up == down || up == down.next_up(), "{a}·{b}: adjacent or equal");
            raised_mul += usize::from(up != a * b) + usize::from(down != a * b);
            let x = if i % 2 == 0 { a } else { 2.0 * a }; // both binades of [1, 4)
            let (up, down) = (sqrt_up(x), sqrt_down(x));
            let x_exact = scaled(x) << 52; // x·2¹⁰⁴
            assert!(scaled(up).pow(2) >= x_exact && scaled(down).pow(2) <= x_exact, "√{x}: {down} {up}");
            assert!(up == down || up == down.next_up(), "√{x}: adjacent or equal");
            raised_sqrt += usize::from(up != x.sqrt()) + usize::from(down != x.sqrt());
        }
        assert!(raised_mul > 15_000 && raised_sqrt > 15_000, "directions mattered: {raised_mul} {raised_sqrt}");
        assert_eq!((sqrt_up(4.0), sqrt_down(4.0), mul_down(3.0, 0.5)), (2.0, 2.0, 1.5));
    }

    #[test]
    fn log_erfc_is_continuous_at_the_switch() {
        // libm erfc is still accurate at x = 20 (erfc(20) ≈ 5.4e-176); both branches must agree.
        let direct = libm::erfc(20.0).ln();
        let series = log_erfc(20.0);
        assert!((direct - series).abs() < 1e-12 * direct.abs(), "{direct} vs {series}");
        assert!(log_erfc(40.0).is_finite() && log_erfc(40.0) < log_erfc(30.0));
    }

    #[test]
    fn normal_quantile_inverts_cdf() {
        for &p in &[1e-10, 0.05, 0.5, 0.9, 1.0 - 1e-9] {
            let x = normal_quantile(p);
            assert!((normal_cdf(x) - p).abs() <= 1e-13 * p.max(1e-3), "p = {p}");
        }
    }

    #[test]
    fn bracket_root_finds_sqrt2() {
        let b = bracket_root("t", |x| Ok(x * x - 2.0), 0.0, 2.0, |_| false).unwrap();
        assert!(b.hi - b.lo <= 2.0 * f64::EPSILON * 2.0);
        assert!(b.lo <= std::f64::consts::SQRT_2 && std::f64::consts::SQRT_2 <= b.hi);
    }
}
