//! The KKT solver of the Bregman step over `{‖x‖₁ ≤ R} ∩ {‖x − a‖_p ≤ r}` (\[AFKT\] Alg. 2's
//! regularised step; `mirror::bregman_step_l1_lp`): two nested scalar root findings instead of
//! a d-dimensional dual, and the exact shrink of a point into the l1 ball.
//!
//! With `u = x − a` and `w = θ − y` (y the l1 ball's multiplier vector, `y ∈ λ∂‖x‖₁`), the
//! optimality condition `u = ∇G*(w)` reads `u = κ·sign(w)⊙|w|^{q−1}` for one scalar κ > 0, so for
//! fixed (κ, λ) every coordinate is the closed form of a monotone 1-D inclusion:
//! `xⱼ = aⱼ + κσ(θⱼ − λ)` if `θⱼ − λ > w⁰ⱼ`, `xⱼ = aⱼ + κσ(θⱼ + λ)` if `θⱼ + λ < w⁰ⱼ`, else
//! `xⱼ = 0` (with `yⱼ = θⱼ − w⁰ⱼ`), where `σ(v) = sign(v)|v|^{q−1}` and
//! `w⁰ⱼ = sign(−aⱼ)|aⱼ/κ|^{p−1}` the w at which `aⱼ + κσ(w) = 0`. Equivalently x(κ, λ) minimises the
//! separable `Σ κ^{1−p}|uⱼ|^p/p − θⱼuⱼ + λ|aⱼ + uⱼ|`.
//! - Inner root (λ, κ fixed): `‖x(κ, λ)‖₁` is non-increasing in λ and 0 at
//!   `λ = maxⱼ|θⱼ − w⁰ⱼ|`; λ = 0 if `‖x(κ, 0)‖₁ ≤ R`, else the root of `‖x(κ, λ)‖₁ = R` by Newton
//!   (derivative `−(q − 1)Σ_active |uⱼ|/|wⱼ|`) safeguarded by bisection of the bracket.
//! - Outer root (ℓ = ln κ): the true κ makes `κ^{1−p} = c‖u‖_p^{2−p}` (the weight of
//!   `(c/2)‖u‖_p²`'s gradient written as a separable one) while `‖u‖_p < r`, else `‖u‖_p = r`.
//!   `N(ℓ) = ‖u(ℓ)‖_p` is non-decreasing in ℓ (a smaller separable weight never shrinks the
//!   regulariser's value), so `A(ℓ) = (1 − p)ℓ − ln c − (2 − p)ln N` is decreasing,
//!   `B(ℓ) = ln r − ln N` non-increasing, and the solution is the root of `F = min(A, B)`:
//!   Illinois regula falsi on a bracket (bisection when an end is infinite).
//!
//! Nothing here is trusted: the caller turns the dual point y into a primal point and a duality
//! gap (weak duality), which is the stopping test. Proof: proofs/l1/mirror_maps.md (M7, M8).

use super::mirror::PNormMap;

/// A dual point for the Bregman step's certificate.
pub(super) struct KktDual {
    /// y, with `‖y‖_∞ ≤ λ`.
    pub y: Vec<f64>,
    /// O(d) passes over the coordinates (evaluations of x(κ, λ), of w⁰ and of ‖u‖_p).
    pub passes: u32,
}

/// `κ·sign(v)|v|^e = sign(v)·exp(ℓ + e·ln|v|)` (0 at v = 0 for e > 0, κ·sign(v) at e = 0):
/// finite whenever the result is, whatever the sizes of κ and |v|.
#[inline]
fn scaled_power(v: f64, e: f64, ell: f64) -> f64 {
    if v == 0.0 { if e == 0.0 { ell.exp() } else { 0.0 } } else { v.signum() * (ell + e * v.abs().ln()).exp() }
}

struct Problem<'a> {
    theta: &'a [f64],
    a: &'a [f64],
    p: f64,
    q: f64,
    big_r: f64,
    passes: u32,
}

/// Which branch a coordinate is on at (κ, λ).
#[derive(Clone, Copy, PartialEq)]
enum Branch {
    Plus,
    Minus,
    Zero,
}

impl Problem<'_> {
    /// `w⁰ⱼ = sign(−aⱼ)|aⱼ/κ|^{p−1}` into `w0`.
    fn zero_points(&mut self, ell: f64, w0: &mut [f64]) {
        self.passes += 1;
        for (o, &aj) in w0.iter_mut().zip(self.a) {
            *o = if aj == 0.0 { 0.0 } else { -aj.signum() * ((self.p - 1.0) * (aj.abs().ln() - ell)).exp() };
        }
    }

    fn branch(&self, j: usize, lambda: f64, w0: &[f64]) -> Branch {
        if self.theta[j] - lambda > w0[j] {
            Branch::Plus
        } else if self.theta[j] + lambda < w0[j] {
            Branch::Minus
        } else {
            Branch::Zero
        }
    }

    /// `(‖x(κ, λ)‖₁, d‖x‖₁/dλ)`.
    fn l1_and_slope(&mut self, ell: f64, lambda: f64, w0: &[f64]) -> (f64, f64) {
        self.passes += 1;
        let (mut n1, mut slope) = (0.0, 0.0);
        for j in 0..self.a.len() {
            let w = match self.branch(j, lambda, w0) {
                Branch::Plus => self.theta[j] - lambda,
                Branch::Minus => self.theta[j] + lambda,
                Branch::Zero => continue,
            };
            n1 += (self.a[j] + scaled_power(w, self.q - 1.0, ell)).abs();
            slope -= (self.q - 1.0) * scaled_power(w.abs(), self.q - 2.0, ell);
        }
        (n1, slope)
    }

    /// The λ ≥ 0 of the l1 ball at κ = e^ℓ, Newton from `start` safeguarded by bisection.
    fn lambda(&mut self, ell: f64, start: f64, w0: &[f64]) -> f64 {
        let (n0, _) = self.l1_and_slope(ell, 0.0, w0);
        if n0 <= self.big_r {
            return 0.0;
        }
        let mut hi = self.theta.iter().zip(w0).map(|(t, w)| (t - w).abs()).fold(0.0, f64::max);
        let mut lo = 0.0f64;
        let mut lambda = if start > lo && start < hi { start } else { 0.5 * hi };
        for _ in 0..100 {
            let (n1, slope) = self.l1_and_slope(ell, lambda, w0);
            let f = n1 - self.big_r;
            // rounding of the sum of d terms is ~1e-16·√d relative: 1e-13 is its floor at d ≤ 10⁶
            if f.abs() <= 1e-13 * self.big_r {
                return lambda;
            }
            if f > 0.0 {
                lo = lambda
            } else {
                hi = lambda
            }
            if hi - lo <= 4.0 * f64::EPSILON * hi {
                break;
            }
            let newton = lambda - f / slope;
            lambda = if slope < 0.0 && newton > lo && newton < hi { newton } else { 0.5 * (lo + hi) };
        }
        // the bracket closed (or the budget ran out): its feasible end, ‖x(κ, hi)‖₁ ≤ R
        hi
    }

    /// `ln ‖u(κ, λ)‖_p` (−∞ at u = 0).
    fn ln_lp_norm(&mut self, ell: f64, lambda: f64, w0: &[f64]) -> f64 {
        self.passes += 1;
        let mut sum = 0.0;
        for j in 0..self.a.len() {
            let ln_u = match self.branch(j, lambda, w0) {
                Branch::Plus => ell + (self.q - 1.0) * (self.theta[j] - lambda).abs().ln(),
                Branch::Minus => ell + (self.q - 1.0) * (self.theta[j] + lambda).abs().ln(),
                Branch::Zero => self.a[j].abs().ln(),
            };
            sum += (self.p * ln_u).exp();
        }
        sum.ln() / self.p
    }
}

/// The dual point y of the Bregman step `min {φ_c(x − a) − ⟨θ, x⟩ : ‖x‖₁ ≤ R, ‖x − a‖_p ≤ r}`
/// by the nested root findings of the module doc (r = ∞: no lp ball). Inputs are validated by
/// the caller (finite, equal lengths, `‖a‖₁ ≤ R`, R, r > 0).
pub(super) fn l1_lp_dual(map: &PNormMap, theta: &[f64], a: &[f64], big_r: f64, r: f64) -> KktDual {
    let (p, q, c) = (map.p(), map.q(), map.c());
    let d = a.len();
    let mut pb = Problem { theta, a, p, q, big_r, passes: 0 };
    let mut w0 = vec![0.0; d];
    let mut lambda = 0.0f64;
    // F(ℓ) = min(A, B), decreasing; also returns the λ found at ℓ
    let f_at = |ell: f64, lambda: &mut f64, w0: &mut [f64], pb: &mut Problem| -> f64 {
        pb.zero_points(ell, w0);
        *lambda = pb.lambda(ell, *lambda, w0);
        let ln_n = pb.ln_lp_norm(ell, *lambda, w0);
        let a_val = if p == 2.0 { -ell - c.ln() } else { (1.0 - p) * ell - c.ln() - (2.0 - p) * ln_n };
        if r.is_finite() { a_val.min(r.ln() - ln_n) } else { a_val }
    };
    // the guess for λ = 0 and no lp ball: κ = ‖θ‖_q^{2−q}/c
    let nq = crate::linalg::norm_lp(theta, q);
    let mut lo = if nq > 0.0 { (2.0 - q) * nq.ln() - c.ln() } else { 0.0 };
    let mut f_lo = f_at(lo, &mut lambda, &mut w0, &mut pb);
    // bracket: F(lo) > 0 > F(hi)
    let mut step = 1.0;
    let (mut hi, mut f_hi) = (lo, f_lo);
    while f_lo > 0.0 && f_hi > 0.0 && step < 1e4 {
        (lo, f_lo) = (hi, f_hi);
        hi += step;
        step *= 2.0;
        f_hi = f_at(hi, &mut lambda, &mut w0, &mut pb);
    }
    while f_lo < 0.0 && step < 1e4 {
        (hi, f_hi) = (lo, f_lo);
        lo -= step;
        step *= 2.0;
        f_lo = f_at(lo, &mut lambda, &mut w0, &mut pb);
    }
    let mut ell = if f_lo == 0.0 { lo } else { hi };
    if f_lo > 0.0 && f_hi < 0.0 {
        // Illinois regula falsi on ℓ
        let mut side = 0i8;
        for _ in 0..200 {
            ell = if f_lo.is_finite() && f_hi.is_finite() {
                (lo * f_hi - hi * f_lo) / (f_hi - f_lo)
            } else {
                0.5 * (lo + hi)
            };
            if !(ell > lo && ell < hi) {
                ell = 0.5 * (lo + hi);
            }
            let f = f_at(ell, &mut lambda, &mut w0, &mut pb);
            if f.abs() <= 1e-12 || hi - lo <= 4.0 * f64::EPSILON * ell.abs().max(1.0) {
                break;
            }
            if f > 0.0 {
                (lo, f_lo) = (ell, f);
                if side == 1 {
                    f_hi *= 0.5;
                }
                side = 1;
            } else {
                (hi, f_hi) = (ell, f);
                if side == -1 {
                    f_lo *= 0.5;
                }
                side = -1;
            }
        }
    }
    // y at the final (κ, λ): λ·sign on the active coordinates, θ − w⁰ (clamped to [−λ, λ]) on
    // the zero ones
    f_at(ell, &mut lambda, &mut w0, &mut pb);
    let y = (0..d)
        .map(|j| match pb.branch(j, lambda, &w0) {
            Branch::Plus => lambda,
            Branch::Minus => -lambda,
            Branch::Zero => (theta[j] - w0[j]).clamp(-lambda, lambda),
        })
        .collect();
    KktDual { y, passes: pb.passes }
}

/// The largest t in [0, 1] with `‖a + t·dir‖₁ ≤ R`, for `‖a‖₁ ≤ R`: `f(t) = Σ|aⱼ + t·dirⱼ|` is
/// convex and piecewise linear, with kinks at `tⱼ = −aⱼ/dirⱼ` where its slope rises by
/// `2|dirⱼ|`; walk the sorted kinks in (0, 1) to the segment where f crosses R.
pub(super) fn l1_shrink_factor(a: &[f64], dir: &[f64], radius: f64) -> f64 {
    let (mut f, mut slope) = (0.0, 0.0);
    let mut kinks: Vec<(f64, f64)> = Vec::new();
    for (&aj, &dj) in a.iter().zip(dir) {
        f += aj.abs();
        if dj == 0.0 {
            continue;
        }
        if aj == 0.0 || aj.signum() == dj.signum() {
            slope += dj.abs();
        } else {
            slope -= dj.abs();
            let t = -aj / dj;
            if t < 1.0 {
                kinks.push((t, 2.0 * dj.abs()));
            }
        }
    }
    kinks.sort_unstable_by(|x, y| x.0.total_cmp(&y.0));
    let mut t = 0.0;
    for (tk, jump) in kinks.into_iter().chain(std::iter::once((1.0, 0.0))) {
        // f is linear with `slope` on [t, tk]
        if slope > 0.0 && f + slope * (tk - t) > radius {
            return (t + ((radius - f) / slope).max(0.0)).min(1.0);
        }
        f += slope * (tk - t);
        t = tk;
        slope += jump;
    }
    1.0
}
