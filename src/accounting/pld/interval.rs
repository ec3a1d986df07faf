//! Rigorous interval enclosures for the PLD constructions.
//!
//! An [`Iv`] `[lo, hi]` encloses a real number that the code cannot represent exactly (a normal
//! CDF value, `e^ε` at a grid point, the probability of a loss interval). Every operation returns
//! an interval that contains the exact result of the operation applied to every point of its
//! inputs, assuming:
//!
//! * IEEE-754 `+ − × ÷` are correctly rounded, so one `next_down`/`next_up` step outward covers
//!   them;
//! * the elementary functions (`exp`, `exp_m1`, `ln`, `ln_1p` from the platform libm, and
//!   `libm::erfc`) are within [`LIBM_ULPS`] units in the last place of the exact value (the
//!   implementations used claim < 1 ulp; 4 leaves a margin);
//! * functions are applied only where they are monotone on the input interval, so evaluating
//!   at the two ends and widening outward suffices.
//!
//! The enclosures feed the discretisations in [`super::discretise`]: the pessimistic side uses
//! the upper ends, the optimistic side the lower ends, so a rounding error can only move a
//! bound in its safe direction. Proof: proofs/accounting/pld.md (§3.6).

/// Unit roundoff `u = 2⁻⁵³`.
pub const U: f64 = f64::EPSILON / 2.0;

/// Assumed error of an elementary function, in units of `u` relative to the result.
pub const LIBM_ULPS: f64 = 8.0;

/// Smallest absolute widening applied to the results of elementary functions: covers the loss of
/// relative accuracy in the subnormal range.
const ABS_FLOOR: f64 = 1e-300;

/// A closed interval `[lo, hi]` of reals (ends may be infinite); `lo <= hi`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Iv {
    /// Lower end.
    pub lo: f64,
    /// Upper end.
    pub hi: f64,
}

/// `x` lowered by `k·u·|x|` and one more ulp (identity on ±∞).
fn down(x: f64, k: f64) -> f64 {
    if !x.is_finite() {
        return x;
    }
    (x - k * U * x.abs()).next_down()
}

/// `x` raised by `k·u·|x|` and one more ulp (identity on ±∞).
fn up(x: f64, k: f64) -> f64 {
    if !x.is_finite() {
        return x;
    }
    (x + k * U * x.abs()).next_up()
}

impl Iv {
    /// The exact float `x` (a degenerate interval).
    pub fn point(x: f64) -> Iv {
        debug_assert!(!x.is_nan(), "invariant: Iv::point of NaN");
        Iv { lo: x, hi: x }
    }

    /// `[lo, hi]`; NaN ends are widened to ∓∞ (an unknown bound is the whole line).
    pub fn new(lo: f64, hi: f64) -> Iv {
        let lo = if lo.is_nan() { f64::NEG_INFINITY } else { lo };
        let hi = if hi.is_nan() { f64::INFINITY } else { hi };
        Iv { lo, hi }
    }

    /// The interval after an elementary function: ends widened by [`LIBM_ULPS`] and an absolute
    /// floor.
    fn libm(lo: f64, hi: f64) -> Iv {
        let lo = if lo.is_finite() { down(lo, LIBM_ULPS) - ABS_FLOOR } else { lo };
        let hi = if hi.is_finite() { up(hi, LIBM_ULPS) + ABS_FLOOR } else { hi };
        Iv::new(lo, hi)
    }

    /// Intersection with `[a, b]` (clamping; the exact value is known to lie in `[a, b]`).
    pub fn clamp(self, a: f64, b: f64) -> Iv {
        Iv { lo: self.lo.max(a).min(b), hi: self.hi.min(b).max(a) }
    }

    /// Intersection of two enclosures of the same number (`None` if they are disjoint, which
    /// would contradict the error model).
    pub fn intersect(self, other: Iv) -> Option<Iv> {
        let (lo, hi) = (self.lo.max(other.lo), self.hi.min(other.hi));
        (lo <= hi).then_some(Iv { lo, hi })
    }

    /// `−x`.
    pub fn negate(self) -> Iv {
        Iv { lo: -self.hi, hi: -self.lo }
    }

    /// `x + y`.
    pub fn plus(self, o: Iv) -> Iv {
        Iv::new(down(self.lo + o.lo, 0.0), up(self.hi + o.hi, 0.0))
    }

    /// `x − y`.
    pub fn minus(self, o: Iv) -> Iv {
        self.plus(o.negate())
    }

    /// `x · y` (general signs; `0 · ∞` is taken as 0, the product of a probability 0 and an
    /// unbounded factor).
    pub fn times(self, o: Iv) -> Iv {
        let prod = |a: f64, b: f64| if a == 0.0 || b == 0.0 { 0.0 } else { a * b };
        let c = [prod(self.lo, o.lo), prod(self.lo, o.hi), prod(self.hi, o.lo), prod(self.hi, o.hi)];
        let lo = c.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = c.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        Iv::new(down(lo, 0.0), up(hi, 0.0))
    }

    /// `x · c` for an exact float `c`.
    pub fn scale(self, c: f64) -> Iv {
        self.times(Iv::point(c))
    }

    /// `x / y` for `y > 0` (`y.lo > 0`).
    pub fn div_pos(self, o: Iv) -> Iv {
        debug_assert!(o.lo > 0.0, "invariant: div_pos by a non-positive interval");
        let c = [self.lo / o.lo, self.lo / o.hi, self.hi / o.lo, self.hi / o.hi];
        let lo = c.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = c.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        Iv::new(down(lo, 0.0), up(hi, 0.0))
    }

    /// `e^x`.
    pub fn exp(self) -> Iv {
        Iv::libm(self.lo.exp(), self.hi.exp()).clamp(0.0, f64::INFINITY)
    }

    /// `e^x − 1`.
    pub fn exp_m1(self) -> Iv {
        Iv::libm(self.lo.exp_m1(), self.hi.exp_m1()).clamp(-1.0, f64::INFINITY)
    }

    /// `ln(1 + x)`, with `ln(1 + x) = −∞` for `x ≤ −1` (the caller has excluded the part of the
    /// interval below −1, where the quantity it encloses does not exist).
    pub fn ln_1p(self) -> Iv {
        let f = |x: f64| if x <= -1.0 { f64::NEG_INFINITY } else { x.ln_1p() };
        Iv::libm(f(self.lo), f(self.hi))
    }

    /// `ln x` (`−∞` at 0; the caller passes `x ≥ 0`).
    pub fn ln(self) -> Iv {
        let f = |x: f64| if x <= 0.0 { f64::NEG_INFINITY } else { x.ln() };
        Iv::libm(f(self.lo), f(self.hi))
    }

    /// `Φ(x)`, the standard normal CDF, as `½·erfc(−x/√2)`. Besides the erfc error, the argument
    /// `−x/√2` is rounded twice (relative `2u`), which moves Φ by at most `φ(x)·2u|x|`. Relative to
    /// Φ(x) that is below `2u|x|(|x| + 2.5)` (Mills: `φ(x)/Φ(x) ≤ |x| + 1/|x|` for x < −1, and
    /// `φ/Φ ≤ 0.4/Φ(−1) < 2.5` on x ≥ −1), hence below `u(4x² + 8)`; the ends are widened by
    /// `(LIBM_ULPS + 4x² + 8)u` relative plus the absolute floor.
    pub fn normal_cdf(self) -> Iv {
        let phi = |x: f64| 0.5 * libm::erfc(-x * std::f64::consts::FRAC_1_SQRT_2);
        // Φ(x) rounded by `round` over k units, then moved by `floor` (−ABS_FLOOR down, +ABS_FLOOR up).
        let widen = |x: f64, round: fn(f64, f64) -> f64, floor: f64| {
            if x == f64::NEG_INFINITY {
                return 0.0;
            }
            if x == f64::INFINITY {
                return 1.0;
            }
            let k = LIBM_ULPS + 4.0 * x * x + 8.0;
            round(phi(x), k) + floor
        };
        Iv::new(widen(self.lo, down, -ABS_FLOOR), widen(self.hi, up, ABS_FLOOR)).clamp(0.0, 1.0)
    }

    /// `(Φ(x), Φ(−x))` for x in this interval. The smaller of the two is computed by
    /// [`Iv::normal_cdf_nonpositive`] (relative accuracy in the tail), the other as 1 minus it.
    pub fn normal_cdf_pair(self) -> (Iv, Iv) {
        if self.hi <= 0.0 {
            let s = self.normal_cdf_nonpositive();
            (s, Iv::point(1.0).minus(s).clamp(0.0, 1.0))
        } else if self.lo >= 0.0 {
            let s = self.negate().normal_cdf_nonpositive();
            (Iv::point(1.0).minus(s).clamp(0.0, 1.0), s)
        } else {
            (self.normal_cdf(), self.negate().normal_cdf())
        }
    }

    /// `Φ(x)` for `x ≤ 0` from one evaluation at the midpoint c when the interval is narrow: on
    /// x ≤ 0 the Mills ratio gives `φ(x) ≤ Φ(x)(|x| + 3)` (for x < −1, `φ/Φ ≤ |x| + 1/|x|`; on
    /// [−1, 0], `φ/Φ ≤ 0.399/0.158 < 3`), so with `κ = (hi − lo)/2·(|lo| + 3) ≤ 0.01`,
    /// `Φ(lo) ≥ Φ(c)(1 − κ)` and `Φ(hi) ≤ Φ(c)/(1 − κ)`; the evaluation error is widened as in
    /// [`Iv::normal_cdf`] with the larger |x|. Wider intervals use the two-end evaluation.
    pub fn normal_cdf_nonpositive(self) -> Iv {
        debug_assert!(self.hi <= 0.0, "invariant: normal_cdf_nonpositive needs x <= 0");
        if !self.lo.is_finite() {
            return self.normal_cdf();
        }
        let kappa = (self.hi - self.lo) * 0.5 * (self.lo.abs() + 3.0);
        if kappa.is_nan() || kappa > 0.01 {
            return self.normal_cdf();
        }
        let c = 0.5 * (self.lo + self.hi);
        let v = 0.5 * libm::erfc(-c * std::f64::consts::FRAC_1_SQRT_2);
        let k = LIBM_ULPS + 4.0 * self.lo * self.lo + 8.0 + 4.0;
        let lo = down(down(v, k) * (1.0 - kappa), 2.0) - ABS_FLOOR;
        let hi = up(up(v, k) / (1.0 - kappa), 2.0) + ABS_FLOOR;
        Iv::new(lo, hi).clamp(0.0, 1.0)
    }

    /// Width `hi − lo`.
    pub fn width(self) -> f64 {
        self.hi - self.lo
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normal_cdf_encloses_known_values() {
        // Φ(−1) = 0.15865525393145705 (mpmath), Φ(−10) = 7.619853024160527e-24.
        let a = Iv::point(-1.0).normal_cdf();
        assert!(a.lo <= 0.15865525393145705 && 0.15865525393145705 <= a.hi);
        assert!(a.width() < 1e-15);
        let b = Iv::point(-10.0).normal_cdf();
        assert!(b.lo <= 7.619853024160527e-24 && 7.619853024160527e-24 <= b.hi);
        assert!(b.width() < 1e-34);
        for x in [-30.0, -10.0, -1.0, -0.3, 0.0, 0.7, 5.0] {
            let w = Iv::new(x - 1e-13, x + 1e-13);
            let (s, c) = w.normal_cdf_pair();
            let (s2, c2) = (w.normal_cdf(), w.negate().normal_cdf());
            assert!(s.intersect(s2).is_some() && c.intersect(c2).is_some(), "x = {x}");
            assert!(s.width() <= 1e-9 * s.hi + 1e-15 && c.width() <= 1e-9 * c.hi + 1e-15, "x = {x}: {s:?} {c:?}");
        }
    }

    #[test]
    fn ln_1p_at_minus_one_is_minus_infinity() {
        let x = Iv::new(-1.0, 0.5).ln_1p();
        assert_eq!(x.lo, f64::NEG_INFINITY);
        assert!(x.hi >= 0.5f64.ln_1p());
        let p = Iv::new(f64::NEG_INFINITY, 0.0).scale(-2.0);
        assert_eq!(p.hi, f64::INFINITY);
        assert!(Iv::new(f64::NEG_INFINITY, 3.0).normal_cdf().lo == 0.0);
    }

    #[test]
    fn arithmetic_is_outward() {
        let third = Iv::point(1.0).div_pos(Iv::point(3.0));
        assert!(third.lo < third.hi && third.lo * 3.0 <= 1.0 && third.hi * 3.0 >= 1.0);
        let s = Iv::point(0.1).plus(Iv::point(0.2));
        assert!(s.lo <= 0.30000000000000004 && s.hi >= 0.3);
    }
}
