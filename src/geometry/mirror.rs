//! Mirror maps for l1 / lp geometry (\[AFKT\] Sec. 2 and App. B): the p-norm map and its
//! conjugate, Bregman divergences, the entropic map on the simplex (exponentiated gradient), the
//! l1 ball as the image of a simplex, and linear minimisation over the vertices of an l1 ball or a
//! simplex. One implementation of each; the algorithms of `optim::l1` build on them.
//!
//! | item | formula |
//! |---|---|
//! | [`PNormMap::value`] | `φ_c(u) = (c/2)‖u‖_p²` |
//! | [`PNormMap::gradient`] | `∇φ_c(u) = c‖u‖_p^{2−p} sign(u)⊙|u|^{p−1}` |
//! | [`PNormMap::conjugate_value`] | `φ_c*(y) = ‖y‖_q²/(2c)`, `1/p + 1/q = 1` |
//! | [`PNormMap::conjugate_gradient`] | `∇φ_c*(y) = (1/c)‖y‖_q^{2−q} sign(y)⊙|y|^{q−1}` |
//! | [`PNormMap::bregman`] | `D(x, y) = φ_c(x) − φ_c(y) − ⟨∇φ_c(y), x − y⟩` |
//! | [`exponentiated_gradient_step`] | `x⁺ = x⊙exp(−ηg)/‖x⊙exp(−ηg)‖₁` |
//! | [`kl_divergence`] | `D(x, y) = Σ xⱼ ln(xⱼ/yⱼ)` on the simplex |
//! | [`l1_ball_from_simplex`] | `x = R(u_{1:d} − u_{d+1:2d})`, `u ∈ Δ_{2d−1}` |
//! | [`lmo_l1_ball`], [`lmo_simplex`] | a vertex in `argmin_{w∈X} ⟨v, w⟩` |
//!
//! The p-norm powers are evaluated on `u/‖u‖_∞`, so q up to ~15 (d up to ~10⁶ with
//! `p = 1 + 1/ln d`) neither overflows nor underflows.
//! Proof: proofs/l1/mirror_maps.md.

use crate::error::{Error, Result, check};
use crate::linalg::{norm_linf, norm_lp};

/// `p = min(2, 1 + 1/ln d)`: the exponent of \[AFKT\]'s l1-geometry mirror map for dimension d
/// (clamped to 2 for d ≤ 2, where the formula exceeds 2; 2 for d = 1).
pub fn l1_geometry_exponent(d: usize) -> f64 {
    if d <= 2 { 2.0 } else { (1.0 + 1.0 / (d as f64).ln()).min(2.0) }
}

/// `c_d = d^{1−1/p}`, the constant of `‖u‖₁ ≤ c_d‖u‖_p`. With `p = 1 + 1/ln d` it is
/// `e^{1/p} < e`, not the "≤ 2" the paper states (that needs a base-2 logarithm): use this value
/// wherever the paper writes 2.
pub fn l1_norm_ratio(d: usize, p: f64) -> f64 {
    (d as f64).powf(1.0 - 1.0 / p)
}

/// The p-norm mirror map `φ_c(u) = (c/2)‖u‖_p²` for `1 < p ≤ 2`, `c > 0`: c(p − 1)-strongly
/// convex with respect to ‖·‖_p (modulus 1 at `c = 1/(p − 1)`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PNormMap {
    p: f64,
    c: f64,
}

impl PNormMap {
    /// The map with exponent p and scale c.
    ///
    /// # Errors
    /// `InvalidParameter` unless `1 < p ≤ 2` and `c` is finite and positive.
    pub fn new(p: f64, c: f64) -> Result<Self> {
        if !(p > 1.0 && p <= 2.0) {
            return Err(Error::invalid("p", p, "in (1, 2]"));
        }
        Ok(PNormMap { p, c: check::positive("c", c)? })
    }

    /// The map of modulus 1 w.r.t. ‖·‖_p: `c = 1/(p − 1)`.
    ///
    /// # Errors
    /// As [`PNormMap::new`].
    pub fn unit_modulus(p: f64) -> Result<Self> {
        Self::new(p, 1.0 / (p - 1.0))
    }

    /// p.
    pub fn p(&self) -> f64 {
        self.p
    }

    /// c.
    pub fn c(&self) -> f64 {
        self.c
    }

    /// The dual exponent `q = p/(p − 1)` (∞ never: p > 1).
    pub fn q(&self) -> f64 {
        self.p / (self.p - 1.0)
    }

    /// `φ_c(u) = (c/2)‖u‖_p²`.
    pub fn value(&self, u: &[f64]) -> f64 {
        let n = norm_lp(u, self.p);
        0.5 * self.c * n * n
    }

    /// `∇φ_c(u)` into `out` (0 at u = 0).
    pub fn gradient(&self, u: &[f64], out: &mut [f64]) {
        signed_power_gradient(u, self.p, self.c, out);
    }

    /// `φ_c*(y) = ‖y‖_q²/(2c)`.
    pub fn conjugate_value(&self, y: &[f64]) -> f64 {
        let n = norm_lp(y, self.q());
        n * n / (2.0 * self.c)
    }

    /// `∇φ_c*(y)` into `out`: the inverse of [`PNormMap::gradient`] (0 at y = 0).
    pub fn conjugate_gradient(&self, y: &[f64], out: &mut [f64]) {
        signed_power_gradient(y, self.q(), 1.0 / self.c, out);
    }

    /// The Bregman divergence `D(x, y) = φ_c(x) − φ_c(y) − ⟨∇φ_c(y), x − y⟩ ≥ 0`, clamped at 0
    /// against cancellation (its exact value is ≥ 0 by convexity).
    pub fn bregman(&self, x: &[f64], y: &[f64]) -> f64 {
        let mut g = vec![0.0; y.len()];
        self.gradient(y, &mut g);
        let inner: f64 = g.iter().zip(x.iter().zip(y)).map(|(gj, (xj, yj))| gj * (xj - yj)).sum();
        (self.value(x) - self.value(y) - inner).max(0.0)
    }
}

/// `scale·‖u‖_r^{2−r} sign(u)⊙|u|^{r−1}` into `out`, the gradient of `(scale/2)‖u‖_r²`, evaluated
/// on `w = u/‖u‖_∞` (`‖u‖_r^{2−r}|u|^{r−1} = ‖u‖_∞ ‖w‖_r^{2−r}|w|^{r−1}`, every power of a
/// number ≤ 1 and the norm of w in [1, d^{1/r}]).
fn signed_power_gradient(u: &[f64], r: f64, scale: f64, out: &mut [f64]) {
    debug_assert_eq!(u.len(), out.len(), "invariant: dimensions agree");
    let m = norm_linf(u);
    if m == 0.0 {
        out.iter_mut().for_each(|o| *o = 0.0);
        return;
    }
    let norm_w = u.iter().map(|v| (v.abs() / m).powf(r)).sum::<f64>().powf(1.0 / r);
    let factor = scale * m * norm_w.powf(2.0 - r);
    for (o, v) in out.iter_mut().zip(u) {
        *o = factor * v.signum() * (v.abs() / m).powf(r - 1.0);
    }
}

/// One exponentiated-gradient step on the simplex, `x⁺ = x⊙exp(−ηg)/‖x⊙exp(−ηg)‖₁` (the
/// entropic mirror step), into `out`. Evaluated as `exp(ln xⱼ − ηgⱼ − M)` with M the largest
/// exponent, so neither overflows; a coordinate with `xⱼ = 0` stays 0. Invariant to adding a
/// constant to g.
///
/// # Errors
/// `InvalidParameter` if x is not in the simplex (a negative, non-finite or all-zero x), g is
/// not finite, the lengths differ, η is not finite and ≥ 0, or ηg overflows so that no
/// coordinate of the support keeps a finite exponent.
pub fn exponentiated_gradient_step(x: &[f64], g: &[f64], eta: f64, out: &mut [f64]) -> Result<()> {
    check::non_negative("step size eta", eta)?;
    if x.len() != g.len() || x.len() != out.len() {
        return Err(Error::invalid("gradient length", g.len(), "equal to the dimension of x"));
    }
    check::all_finite("gradient", g)?;
    if x.iter().any(|v| !(v.is_finite() && *v >= 0.0)) || !x.iter().any(|v| *v > 0.0) {
        return Err(Error::invalid("x", "not a point of the simplex", "nonnegative, finite, not all zero"));
    }
    let exponent = |j: usize| if x[j] > 0.0 { x[j].ln() - eta * g[j] } else { f64::NEG_INFINITY };
    let m = (0..x.len()).map(exponent).fold(f64::NEG_INFINITY, f64::max);
    // ηgⱼ = +∞ only zeroes coordinate j (valid); ηgⱼ = −∞ on a support coordinate, or every
    // support coordinate at +∞, leaves no finite largest exponent: ∞ − ∞ read NaN
    if !m.is_finite() {
        return Err(Error::invalid("step size times gradient", "infinite", "finite where x > 0 (the step overflows)"));
    }
    for (j, o) in out.iter_mut().enumerate() {
        *o = (exponent(j) - m).exp();
    }
    let z: f64 = out.iter().sum();
    out.iter_mut().for_each(|o| *o /= z);
    Ok(())
}

/// `KL(x ‖ y) = Σ xⱼ ln(xⱼ/yⱼ)` for x, y in the simplex (0 ln 0 = 0; +∞ where `xⱼ > 0 = yⱼ`): the
/// Bregman divergence of the entropic map `h(x) = Σ xⱼ ln xⱼ`.
pub fn kl_divergence(x: &[f64], y: &[f64]) -> f64 {
    x.iter()
        .zip(y)
        .map(|(&a, &b)| {
            if a == 0.0 {
                0.0
            } else if b == 0.0 {
                f64::INFINITY
            } else {
                a * (a / b).ln()
            }
        })
        .sum::<f64>()
        .max(0.0)
}

/// The l1 ball of radius R as the image of the simplex `Δ_{2d−1}`: `x = R(u_{1:d} − u_{d+1:2d})`
/// into `out` (length d). The gradient in u of a loss of x is `R(g, −g)`, of ℓ∞ norm `R‖g‖_∞`.
///
/// # Errors
/// `InvalidParameter` unless `u` has length `2·out.len()` and R is finite and positive.
pub fn l1_ball_from_simplex(u: &[f64], radius: f64, out: &mut [f64]) -> Result<()> {
    let r = check::positive("radius R", radius)?;
    let d = out.len();
    if u.len() != 2 * d {
        return Err(Error::invalid("simplex point length", u.len(), "twice the dimension"));
    }
    for (j, o) in out.iter_mut().enumerate() {
        *o = r * (u[j] - u[d + j]);
    }
    Ok(())
}

/// A vertex of the l1 ball `{‖w‖₁ ≤ r}` minimising `⟨v, w⟩`: `(j*, s)` for the vertex `s·r·e_{j*}`,
/// `j* = argmax_j |v_j|` (the first on ties), `s = −sign(v_{j*})` (−1 for v = 0). The vertices
/// are `±r eⱼ`, and `⟨±r eⱼ, v⟩ = ±r vⱼ`.
///
/// # Errors
/// `InvalidParameter` for an empty or non-finite v.
pub fn lmo_l1_ball(v: &[f64]) -> Result<(usize, f64)> {
    check::all_finite("direction v", v)?;
    let mut best = None::<(usize, f64)>;
    for (j, &vj) in v.iter().enumerate() {
        if best.is_none_or(|(_, b)| vj.abs() > b) {
            best = Some((j, vj.abs()));
        }
    }
    let (j, _) = best.ok_or_else(|| Error::invalid("direction v", "empty", "of dimension >= 1"))?;
    Ok((j, if v[j] > 0.0 { -1.0 } else { 1.0 }))
}

/// A vertex `e_{j*}` of the simplex minimising `⟨v, w⟩`: `j* = argmin_j v_j` (the first on ties).
///
/// # Errors
/// `InvalidParameter` for an empty or non-finite v.
pub fn lmo_simplex(v: &[f64]) -> Result<usize> {
    check::all_finite("direction v", v)?;
    let mut best = None::<(usize, f64)>;
    for (j, &vj) in v.iter().enumerate() {
        if best.is_none_or(|(_, b)| vj < b) {
            best = Some((j, vj));
        }
    }
    best.map(|(j, _)| j).ok_or_else(|| Error::invalid("direction v", "empty", "of dimension >= 1"))
}

/// The Bregman step over an l1 ball intersected with an lp ball (\[AFKT\] Alg. 2's regularised
/// step): `x⁺ = argmin { φ_c(x − a) − ⟨θ, x⟩ : ‖x‖₁ ≤ R, ‖x − a‖_p ≤ r }` for a centre a with
/// `‖a‖₁ ≤ R` (r = ∞: no lp ball, the plain mirror step of Algs. 1 and 5).
#[derive(Debug, Clone, PartialEq)]
pub struct BregmanStep {
    /// x⁺: in the l1 ball as evaluated (`‖x⁺‖₁ ≤ R`), and `‖x⁺ − a‖_p ≤ r(1 + 1e-12)`.
    pub x: Vec<f64>,
    /// A certified bound on `Φ(x⁺) − min Φ` (the duality gap; ≥ 0 up to rounding).
    pub gap: f64,
    /// Iterations used: 0 when the unconstrained point (y = 0) is the answer; for the l1 ball the
    /// O(d) passes of the KKT root findings (plus FISTA's iterations if it had to run); for the
    /// lp ball FISTA's iterations.
    pub iterations: u32,
}

/// `G*(w)` and `∇G*(w)` for `G(u) = φ_c(u) + ι(‖u‖_p ≤ r)`: `‖w‖_q²/(2c)` inside `‖w‖_q ≤ cr`,
/// `r‖w‖_q − cr²/2` outside; `∇G*(w) = ρ·sign(w)⊙|w|^{q−1}/‖w‖_q^{q−1}`, `ρ = min(‖w‖_q/c, r)`.
fn ball_conjugate(map: &PNormMap, r: f64, w: &[f64], grad: &mut [f64]) -> f64 {
    let q = map.q();
    let nq = norm_lp(w, q);
    let (value, rho) =
        if nq <= map.c * r { (nq * nq / (2.0 * map.c), nq / map.c) } else { (r * nq - 0.5 * map.c * r * r, r) };
    // ρ·(unit-q-norm direction): the gradient of (1/2)‖w‖_q² scaled to l_p norm ρ
    signed_power_gradient(w, q, 1.0, grad);
    if nq > 0.0 {
        let scale = rho / nq;
        grad.iter_mut().for_each(|g| *g *= scale);
    }
    value
}

/// [`BregmanStep`] by the dual method: with `s(y) = ⟨θ − y, a⟩ + G*(θ − y)`, a dual point of
/// `min_y s(y) + R‖y‖_∞` comes from the KKT conditions, which reduce to two nested scalar root
/// findings (the multiplier λ of the l1 ball, `y ∈ λ∂‖x‖₁`, and the scale κ of
/// `x − a = κ·sign(θ − y)⊙|θ − y|^{q−1}`; safeguarded Newton and regula falsi); the primal point
/// `a + ∇G*(θ − y)` is shrunk towards a until `‖x‖₁ ≤ R` (exactly: the l1 norm along the segment is
/// piecewise linear), and the result is returned when the duality gap
/// `Φ(x) + s(y) + R‖y‖_∞ ≤ tol`. Otherwise FISTA on the dual (step `c/(q − 1)`, the inverse
/// smoothness of `G*`; `prox_{τR‖·‖_∞}(v) = v − Π_{l1(τR)}(v)`), warm-started at that point, runs
/// until the gap is ≤ tol. [`BregmanStep::iterations`] counts the root findings' O(d) passes
/// (at d = 10⁴: 60–90 for a gap ≤ 1e-9), plus FISTA's iterations if it runs.
///
/// # Errors
/// `InvalidParameter` for mismatched lengths, non-finite θ or a, `‖a‖₁ > R`, R or r not
/// positive, tol not positive, or no gap ≤ tol within `max_iterations` (the error states the
/// gap reached).
#[allow(clippy::too_many_arguments)]
pub fn bregman_step_l1_lp(
    map: &PNormMap,
    theta: &[f64],
    a: &[f64],
    l1_radius: f64,
    lp_radius: f64,
    tol: f64,
    max_iterations: u32,
) -> Result<BregmanStep> {
    let outer = OuterBall::L1 { radius: check::positive("l1 radius R", l1_radius)? };
    bregman_step_in(map, theta, a, outer, lp_radius, tol, max_iterations)
}

/// The Euclidean projection of v onto the lp ball `{‖w‖_p ≤ ρ}`, `1 < p ≤ 2`, in place: v itself
/// inside the ball; otherwise `wⱼ = sign(vⱼ)tⱼ` with `tⱼ + μ tⱼ^{p−1} = |vⱼ|` (the KKT condition of
/// `min ½‖w − v‖₂²` with multiplier μ ≥ 0 on `Σ|wⱼ|^p ≤ ρ^p`), μ found by bisection so that
/// `‖w‖_p = ρ` (`‖w(μ)‖_p` decreases in μ) and each tⱼ by bisection on `[0, |vⱼ|]`. The result is
/// shrunk (never grown) until `‖w‖_p ≤ ρ` as evaluated. p = 2 is the radial closed form, and so is
/// a ball tiny against v (ρ < 1e-150‖v‖_∞; the projection is then within 2ρ of it).
pub fn project_lp_ball(v: &mut [f64], p: f64, rho: f64) {
    let norm = norm_lp(v, p);
    if norm <= rho {
        return;
    }
    // A ball tiny against v (ρ < 1e-150·‖v‖_∞): the projection and the radial point both lie in
    // it, so they differ by at most 2ρ, and the KKT solve would walk the t's onto the subnormal
    // grid (2200 halvings of slow powf per coordinate: x ~ 1e283, ρ = 1.2e-322 ran for minutes).
    let tiny_ball = rho < 1e-150 * crate::linalg::norm_linf(v);
    if p == 2.0 || rho == 0.0 || tiny_ball {
        let s = rho / norm;
        v.iter_mut().for_each(|x| *x *= s);
        super::shrink_until(v, |_| true, |w| norm_lp(w, p) <= rho);
        return;
    }
    let abs: Vec<f64> = v.iter().map(|x| x.abs()).collect();
    let solve = |mu: f64, out: &mut [f64]| {
        for (o, &a) in out.iter_mut().zip(&abs) {
            *o = crate::special::bisect(0.0, a, super::BISECTION_HALVINGS, |t| t + mu * t.powf(p - 1.0) <= a).0;
        }
    };
    let mut t = vec![0.0; v.len()];
    let mut hi = 1.0f64;
    loop {
        solve(hi, &mut t);
        if norm_lp(&t, p) <= rho || hi > 1e300 {
            break;
        }
        hi *= 4.0;
    }
    let (_, hi) = crate::special::bisect(0.0, hi, super::BISECTION_HALVINGS, |mu| {
        solve(mu, &mut t);
        norm_lp(&t, p) > rho
    });
    solve(hi, &mut t);
    for (x, tj) in v.iter_mut().zip(&t) {
        *x = x.signum() * tj;
    }
    super::shrink_until(v, |_| true, |w| norm_lp(w, p) <= rho);
}

/// The Bregman step over an lp ball intersected with an lp ball around a (\[AFKT\] Algs. 5–6,
/// App. B): `x⁺ = argmin { φ_c(x − a) − ⟨θ, x⟩ : ‖x‖_p ≤ R, ‖x − a‖_p ≤ r }`, the exponent p of
/// both balls that of the map, for a centre with `‖a‖_p ≤ R` (r = ∞: no ball around a).
///
/// The same dual method as [`bregman_step_l1_lp`] with the support function `R‖y‖_q` of the
/// outer ball in place of `R‖y‖_∞`: FISTA on `min_y s(y) + R‖y‖_q`, whose prox is
/// `v − Π_{‖·‖_p ≤ τR}(v)` ([`project_lp_ball`]); the primal point `a + ∇G*(θ − y)` (inside the
/// ball around a) is shrunk towards a until `‖x‖_p ≤ R`; stop at duality gap ≤ tol. Fast path:
/// y = 0, exact when `a + ∇G*(θ)` is in the outer ball (always for a = 0 and r = ∞ after the
/// radial cut `ρ = min(‖θ‖_q/c, R)`, the closed form of Alg. 5's step).
///
/// # Errors
/// As [`bregman_step_l1_lp`], with `‖a‖_p > R` in place of `‖a‖₁ > R`.
#[allow(clippy::too_many_arguments)]
pub fn bregman_step_lp_lp(
    map: &PNormMap,
    theta: &[f64],
    a: &[f64],
    outer_radius: f64,
    lp_radius: f64,
    tol: f64,
    max_iterations: u32,
) -> Result<BregmanStep> {
    let outer = OuterBall::Lp { p: map.p, q: map.q(), radius: check::positive("lp radius R", outer_radius)? };
    bregman_step_in(map, theta, a, outer, lp_radius, tol, max_iterations)
}

/// The outer ball of a Bregman step: `{‖x‖₁ ≤ R}` (\[AFKT\] Alg. 2) or `{‖x‖_p ≤ R}` with the
/// map's p (Algs. 5–6).
#[derive(Debug, Clone, Copy)]
enum OuterBall {
    L1 { radius: f64 },
    Lp { p: f64, q: f64, radius: f64 },
}

impl OuterBall {
    fn radius(self) -> f64 {
        match self {
            OuterBall::L1 { radius } | OuterBall::Lp { radius, .. } => radius,
        }
    }

    /// The refusal of a centre outside the ball: (value, constraint).
    fn outside(self) -> (&'static str, &'static str) {
        match self {
            OuterBall::L1 { .. } => ("outside the l1 ball", "with ||a||_1 <= R"),
            OuterBall::Lp { .. } => ("outside the lp ball", "with ||a||_p <= R"),
        }
    }

    /// `‖x‖ ≤ R` as the norm is evaluated.
    fn contains(self, x: &[f64]) -> bool {
        match self {
            OuterBall::L1 { radius } => crate::linalg::norm_l1(x) <= radius,
            OuterBall::Lp { p, radius, .. } => norm_lp(x, p) <= radius,
        }
    }

    /// The largest t in [0, 1] with `a + t·dir` in the ball (a in it): exact for the l1 ball (its
    /// norm along the segment is piecewise linear), bisection for the lp ball.
    fn shrink_factor(self, a: &[f64], dir: &[f64]) -> f64 {
        match self {
            OuterBall::L1 { radius } => super::mirror_kkt::l1_shrink_factor(a, dir, radius),
            OuterBall::Lp { .. } => {
                let inside =
                    |t: f64| self.contains(&dir.iter().zip(a).map(|(dj, aj)| aj + t * dj).collect::<Vec<f64>>());
                crate::special::bisect(0.0, 1.0, 200, inside).0
            }
        }
    }

    /// The support function `R‖y‖_*` (`R‖y‖_∞`, `R‖y‖_q`).
    fn support(self, y: &[f64]) -> f64 {
        match self {
            OuterBall::L1 { radius } => radius * norm_linf(y),
            OuterBall::Lp { q, radius, .. } => radius * norm_lp(y, q),
        }
    }

    /// The Euclidean projection onto the ball of radius ρ, in place.
    fn project(self, v: &mut [f64], rho: f64) {
        match self {
            OuterBall::L1 { .. } => crate::geometry::project_l1_ball(v, rho),
            OuterBall::Lp { p, .. } => project_lp_ball(v, p, rho),
        }
    }
}

/// The dual method shared by [`bregman_step_l1_lp`] and [`bregman_step_lp_lp`] (see their docs):
/// `min { φ_c(x − a) − ⟨θ, x⟩ : x ∈ outer, ‖x − a‖_p ≤ r }`.
fn bregman_step_in(
    map: &PNormMap,
    theta: &[f64],
    a: &[f64],
    outer: OuterBall,
    lp_radius: f64,
    tol: f64,
    max_iterations: u32,
) -> Result<BregmanStep> {
    let (big_r, r) = (outer.radius(), lp_radius);
    if r.is_nan() || r <= 0.0 {
        return Err(Error::invalid("lp radius r", r, "> 0 (infinite: no lp ball)"));
    }
    check::positive("tolerance", tol)?;
    check::all_finite("theta", theta)?;
    check::all_finite("centre a", a)?;
    let d = a.len();
    if theta.len() != d {
        return Err(Error::invalid("theta length", theta.len(), "equal to the centre's"));
    }
    if !outer.contains(a) {
        let (value, constraint) = outer.outside();
        return Err(Error::invalid("centre a", value, constraint));
    }
    let centred = a.iter().all(|v| *v == 0.0);
    // An lp outer ball around a = 0 without a ball around a (Alg. 5's plain step) is G's own ball:
    // G = φ_c + ι(‖u‖_p ≤ R), and y = 0 is dual optimal (x = ∇G*(θ), the radial cut).
    let own_ball = matches!(outer, OuterBall::Lp { .. }) && centred && r.is_infinite();
    let inner_r = if own_ball { big_r } else { r };
    let (mut w, mut grad, mut x) = (vec![0.0; d], vec![0.0; d], vec![0.0; d]);
    // x(y) = a + ∇G*(θ − y), and s(y)
    let mut primal = |y: &[f64], x: &mut [f64]| {
        for j in 0..d {
            w[j] = theta[j] - y[j];
        }
        let g_star = ball_conjugate(map, inner_r, &w, &mut grad);
        for j in 0..d {
            x[j] = a[j] + grad[j];
        }
        w.iter().zip(a).map(|(wj, aj)| wj * aj).sum::<f64>() + g_star
    };
    // Φ(x) at the feasible point x_f = a + t(x − a), t the largest in [0, 1] with x_f in the ball
    let objective = |x: &mut [f64]| -> f64 {
        if !outer.contains(x) {
            let dir: Vec<f64> = x.iter().zip(a).map(|(xj, aj)| xj - aj).collect();
            let t = outer.shrink_factor(a, &dir);
            for ((xj, dj), aj) in x.iter_mut().zip(&dir).zip(a) {
                *xj = aj + t * dj;
            }
            // the norm as evaluated may differ by ulps from the sum above
            super::shrink_until(x, |_| true, |x| outer.contains(x));
        }
        let u: Vec<f64> = x.iter().zip(a).map(|(xj, aj)| xj - aj).collect();
        map.value(&u) - x.iter().zip(theta).map(|(xj, tj)| xj * tj).sum::<f64>()
    };
    let gap_at = |s: f64, y: &[f64], phi: f64| phi + s + if own_ball { 0.0 } else { outer.support(y) };
    // Fast path: y = 0
    let mut y = vec![0.0; d];
    let s0 = primal(&y, &mut x);
    if own_ball {
        let phi = objective(&mut x);
        return Ok(BregmanStep { x, gap: gap_at(s0, &y, phi).max(0.0), iterations: 0 });
    }
    if outer.contains(&x) {
        let phi = objective(&mut x);
        let gap = gap_at(s0, &y, phi);
        if gap <= tol {
            return Ok(BregmanStep { x, gap: gap.max(0.0), iterations: 0 });
        }
    }
    // Centred l1 ball, no lp ball (Algs. 1 and 5): the KKT conditions give x = ∇φ*(S_λ(θ)), S_λ
    // the soft threshold (∇φ_c(x) = θ − λ·sign), with the λ ≥ 0 at which ‖x‖₁ = R found by
    // bisection (‖x(λ)‖₁ decreases in λ; x(‖θ‖_∞) = 0). Its dual point y = θ − S_λ(θ) certifies
    // the result.
    if matches!(outer, OuterBall::L1 { .. }) && r.is_infinite() && centred {
        let mut soft = vec![0.0; d];
        let mut at = |lambda: f64, x: &mut [f64]| {
            for (sj, tj) in soft.iter_mut().zip(theta) {
                *sj = tj.signum() * (tj.abs() - lambda).max(0.0);
            }
            map.conjugate_gradient(&soft, x);
        };
        let (_, hi) = crate::special::bisect(0.0, norm_linf(theta), 2000, |lambda| {
            at(lambda, &mut x);
            crate::linalg::norm_l1(&x) > big_r
        });
        for (yj, tj) in y.iter_mut().zip(theta) {
            *yj = tj.signum() * tj.abs().min(hi);
        }
        let s = primal(&y, &mut x);
        let phi = objective(&mut x);
        let gap = gap_at(s, &y, phi);
        if gap <= tol {
            return Ok(BregmanStep { x, gap: gap.max(0.0), iterations: 1 });
        }
    }
    // The l1 ball: the dual point of the nested scalar root findings on the KKT conditions
    // (mirror_kkt), certified by the same gap; its iterations are its O(d) passes. FISTA below
    // is the fallback, warm-started at that point.
    // Its passes count against `max_iterations` like FISTA's iterations.
    let (mut spent, mut best) = (0u32, f64::INFINITY);
    if let OuterBall::L1 { .. } = outer {
        let kkt = super::mirror_kkt::l1_lp_dual(map, theta, a, big_r, r);
        y = kkt.y;
        let s = primal(&y, &mut x);
        let phi = objective(&mut x);
        let gap = gap_at(s, &y, phi);
        spent = kkt.passes;
        if gap <= tol && spent <= max_iterations {
            return Ok(BregmanStep { x, gap: gap.max(0.0), iterations: spent });
        }
        best = gap;
    }
    // FISTA on the dual, step τ = c/(q − 1); prox_{τ·support}(v) = v − Π_{ball(τR)}(v)
    let tau = map.c / (map.q() - 1.0);
    let (mut z, mut y_prev, mut t) = (y.clone(), y.clone(), 1.0f64);
    let mut xz = vec![0.0; d];
    for k in 1..=max_iterations.saturating_sub(spent) {
        // prox-gradient step at z: ∇s(z) = −x(z)
        primal(&z, &mut xz);
        let mut v: Vec<f64> = z.iter().zip(&xz).map(|(zj, xj)| zj + tau * xj).collect();
        let mut proj = v.clone();
        outer.project(&mut proj, tau * big_r);
        for (vj, pj) in v.iter_mut().zip(&proj) {
            *vj -= pj;
        }
        y_prev.copy_from_slice(&y);
        y = v;
        let t_next = 0.5 * (1.0 + (1.0 + 4.0 * t * t).sqrt());
        for j in 0..d {
            z[j] = y[j] + ((t - 1.0) / t_next) * (y[j] - y_prev[j]);
        }
        t = t_next;
        // certificate at y
        let s = primal(&y, &mut x);
        let phi = objective(&mut x);
        let gap = gap_at(s, &y, phi);
        best = best.min(gap);
        if gap <= tol {
            return Ok(BregmanStep { x, gap: gap.max(0.0), iterations: spent.saturating_add(k) });
        }
    }
    Err(Error::invalid(
        "Bregman step",
        format!("duality gap {best:.3e} after {max_iterations} iterations"),
        "a gap within the tolerance (raise max_iterations or the tolerance)",
    ))
}
