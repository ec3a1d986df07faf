//! Projections and clipping: the one implementation of each geometric step of the algorithms.
//!
//! | function | set | metric |
//! |---|---|---|
//! | [`clip_l2`] | `{‖x‖₂ ≤ C}` | radial (standard DP-SGD clipping `x·min(1, C/‖x‖₂)`) |
//! | [`project_ellipsoid`] | `E_A = {x : xᵀAx ≤ 1}`, `A = diag(a)` | [`EllipsoidProjection::Radial`] (`x/max(1, ‖x‖_A)`, the projection in ‖·‖_A) or [`EllipsoidProjection::Euclidean`] (`argmin_{y∈E_A} ‖y − x‖₂`) |
//! | [`Domain::project`] | box, l2 ball, l1 ball, ℝ^d | Euclidean |
//! | [`Domain::project_linf`] | solid X: box, l2 ball, l1 ball, ℝ^d | l∞ (`soft(x, t*)`, \[GGKKM\] Alg. 3) |
//! | [`soft_threshold`] | — | the prox of `t‖·‖₁` |
//! | [`Domain::project_weighted`] | box, l2 ball | `argmin_{y∈X} ‖y − x‖_H`, `H = diag(h)` (AdaGrad) |
//!
//! With `A = C/B²` the ellipsoid is the `‖·‖_C`-ball of radius B; with `A = I/B²` both ellipsoid
//! projections equal [`clip_l2`] at radius B (\[ADFJT\] Sec. 2; proofs/geometry.md §3). The radial variant makes
//! Lemma B.1's bias bound exact; the Euclidean one is the paper's definition.
//!
//! Mirror maps for l1 / lp geometry (p-norm map, Bregman divergences, exponentiated gradient,
//! linear minimisation over vertices) are in [`mirror`].
//! Proof: proofs/geometry.md.

pub mod mirror;
mod mirror_kkt;

use crate::error::{Error, Result, check};
use crate::linalg::{norm_diag_mahalanobis, norm_l2};

/// The factor `min(1, C/‖x‖₂)` that [`clip_l2`] applies to a vector of norm `norm`: exactly 1
/// when `norm ≤ C` or `C = ∞`. With C finite it is **0**, and the term contributes the zero
/// vector (a point of the C-ball, so the sensitivity stays C), where the factor would not bound
/// the term: a norm that is not finite (an overflowed or NaN per-example term: `C/∞ = 0` times the
/// term's ∞ released NaN exactly when the record was in the batch), and a factor `C/‖x‖` below
/// `f64::MIN_POSITIVE` (subnormal, it rounds by up to 100 %: ‖x‖ = 1e307, C = 3.46e-17 clipped to
/// 1.43·C). Callers skip a term whose factor is 0 (never multiply it into the term). The one
/// definition of the clip, shared by the code paths that know a per-example norm without
/// materialising the vector (the MLP's factored norms, sparse GLMs, the GLM fast path).
pub fn clip_scale(norm: f64, c: f64) -> f64 {
    if c.is_infinite() || norm <= c {
        1.0
    } else if norm.is_finite() && c / norm >= f64::MIN_POSITIVE {
        c / norm
    } else {
        0.0
    }
}

/// The smallest sum of squares a clip factor is computed from: below it (norms below 1e-145)
/// the squares underflow and the sum can hide most of the norm (a row of 1e-170 sums to 0, while
/// `ℓ′ = 1e300` makes its gradient 1e130).
pub const SMALLEST_SUMMED_SQUARED_NORM: f64 = 1e-290;

/// [`clip_scale`] for a term of norm `|multiplier|·√squared`, `squared` a plain sum of squares
/// (the GLM paths: `|ℓ′|·‖x‖`): 0 (the term is skipped) when `squared` is below
/// [`SMALLEST_SUMMED_SQUARED_NORM`] or NaN and C is finite. A zero term skipped or added leaves
/// the sum's bits unchanged.
pub fn clip_scale_of_squared(multiplier: f64, squared: f64, c: f64) -> f64 {
    if c.is_finite() && (squared.is_nan() || squared < SMALLEST_SUMMED_SQUARED_NORM) {
        0.0
    } else {
        clip_scale(multiplier.abs() * squared.sqrt(), c)
    }
}

/// `x ← x·min(1, C/‖x‖₂)`; returns the factor applied. `C = ∞` leaves x unchanged; a finite C
/// maps an x whose norm is not finite to 0 (see [`clip_scale`]).
pub fn clip_l2(x: &mut [f64], c: f64) -> f64 {
    let f = clip_scale(norm_l2(x), c);
    if f == 0.0 {
        x.fill(0.0);
    } else if f != 1.0 {
        for v in x.iter_mut() {
            *v *= f;
        }
    }
    f
}

/// Undoes a projection's last rounding: multiplies the coordinates `movable` selects by (1 − ε)
/// until `fits(x)`. After 64 passes (64 ulps, far beyond any rounding) every coordinate is
/// shrunk, so the loop ends even when the movable ones alone cannot make `x` fit (e.g. the
/// weighted part of a weighted l2 projection evaluated a hair outside by `norm_l2`).
fn shrink_until(x: &mut [f64], movable: impl Fn(usize) -> bool, fits: impl Fn(&[f64]) -> bool) {
    let mut passes = 0u32;
    // (a NaN never fits: it is left for the caller's finiteness check instead of looping forever)
    while !fits(x) && x.iter().all(|v| v.is_finite()) {
        for (j, v) in x.iter_mut().enumerate() {
            if passes >= 64 || movable(j) {
                *v *= 1.0 - f64::EPSILON;
            }
        }
        passes += 1;
    }
}

/// `(Σ vᵢ²)^{1/2}` summed plainly in order (the projections' own evaluation, reproducible bit for
/// bit), rescaled as `m·(Σ (vᵢ/m)²)^{1/2}`, `m = max|vᵢ|`, when the plain sum of squares leaves
/// the normal range (below [`SMALLEST_SUMMED_SQUARED_NORM`] or not finite): then it is finite
/// and accurate for every finite input (a plain sum of 1e-200² is 0, of 1e200² is ∞, and a
/// bisection on such a norm stopped at the wrong end, or never stopped). NaN stays NaN.
fn plain_norm_l2(values: impl Iterator<Item = f64> + Clone) -> f64 {
    let squared = values.clone().map(|v| v * v).sum::<f64>();
    if squared.is_finite() && squared >= SMALLEST_SUMMED_SQUARED_NORM {
        return squared.sqrt();
    }
    let m = values.clone().fold(0.0f64, |m, v| m.max(v.abs()));
    if m == 0.0 || !m.is_finite() {
        return squared.sqrt();
    }
    m * values.map(|v| (v / m) * (v / m)).sum::<f64>().sqrt()
}

/// Halvings a bisection may take: enough to reach adjacent floats from any bracket of finite
/// floats (the exponent range spans 2098 binades plus 52 bits); a bracket that has reached
/// adjacent floats stops at once, so this only lifts the cap that left badly scaled brackets
/// unresolved (200 halvings of `[0, 1e70]` cannot resolve 1).
pub(crate) const BISECTION_HALVINGS: u32 = 2200;

/// Which projection onto an ellipsoid.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub enum EllipsoidProjection {
    /// `x/max(1, ‖x‖_A)`: the projection in the ellipsoid's own norm (default; exact for Lemma B.1).
    #[default]
    Radial,
    /// The Euclidean projection (the paper's definition), by a bracketed 1-D root find.
    Euclidean,
}

/// Projects `x` onto `{y : Σ aⱼ yⱼ² ≤ 1}` (`a > 0`, finite). Returns `‖x‖_A` before projection.
/// An x whose `‖x‖_A` is not finite (an overflowed or NaN per-example term) maps to 0, a point
/// of the ellipsoid, as in [`clip_scale`].
///
/// Euclidean variant: outside the ellipsoid, `yⱼ = xⱼ/(1 + λaⱼ)` with λ > 0 the root of the convex
/// decreasing `φ(λ) = Σ aⱼxⱼ²/(1 + λaⱼ)² − 1`, bracketed in `[(‖x‖_A − 1)/a_max, (‖x‖_A − 1)/a_min]`
/// and refined by bisection to adjacent floats; the larger end is kept, and raised by ulps until
/// `‖y‖_A ≤ 1` as [`norm_diag_mahalanobis`] evaluates it (φ's own rounding once left it at 1 + 1 ulp).
/// A root beyond `f64::MAX` (only for absurdly scaled inputs) returns the radial point.
pub fn project_ellipsoid(x: &mut [f64], a: &[f64], kind: EllipsoidProjection) -> f64 {
    debug_assert_eq!(x.len(), a.len(), "invariant: dimensions agree");
    let norm_a = norm_diag_mahalanobis(x, a);
    if norm_a <= 1.0 {
        return norm_a;
    }
    if !norm_a.is_finite() {
        x.fill(0.0);
        return norm_a;
    }
    match kind {
        EllipsoidProjection::Radial => project_radial(x, a, norm_a),
        EllipsoidProjection::Euclidean => {
            let phi = |lam: f64| -> f64 {
                x.iter().zip(a).map(|(xi, ai)| ai * (xi / (1.0 + lam * ai)).powi(2)).sum::<f64>() - 1.0
            };
            let (amin, amax) = a.iter().fold((f64::INFINITY, 0.0f64), |(lo, hi), &v| (lo.min(v), hi.max(v)));
            // φ(lo) ≥ 0 ≥ φ(hi) by convexity; widen defensively against rounding. The ends are
            // kept finite and hi positive: (‖x‖_A − 1)/a_max overflowed to ∞ at x = 1e299,
            // a = 1e-20 (and ∞ never halves), (‖x‖_A − 1)/a_min underflowed to 0 at a = f64::MAX
            // (and 0 never doubles).
            let mut hi = ((norm_a - 1.0) / amin).clamp(f64::MIN_POSITIVE, f64::MAX);
            while phi(hi) > 0.0 && hi < f64::MAX {
                hi = (hi * 2.0).min(f64::MAX);
            }
            let mut lo = ((norm_a - 1.0) / amax).min(hi);
            while lo > 0.0 && phi(lo) < 0.0 {
                lo *= 0.5;
            }
            hi = crate::special::bisect(lo, hi, BISECTION_HALVINGS, |lam| phi(lam) > 0.0).1;
            // φ and `norm_diag_mahalanobis` round differently: raise λ by ulps until ‖y‖_A ≤ 1
            // as the latter evaluates it (each step shrinks every |yⱼ|, so the loop ends).
            let original = x.to_vec();
            for _ in 0..64 {
                for ((v, o), ai) in x.iter_mut().zip(&original).zip(a) {
                    *v = o / (1.0 + hi * ai);
                }
                if norm_diag_mahalanobis(x, a) <= 1.0 {
                    break;
                }
                hi = (hi * (1.0 + 4.0 * f64::EPSILON)).max(hi.next_up()).min(f64::MAX);
            }
            if hi == f64::MAX && norm_diag_mahalanobis(x, a) > 1.0 {
                // the root λ exceeds f64::MAX (Σaⱼxⱼ² ≫ (1 + f64::MAX·a_min)²): the radial point,
                // feasible, stands in (only for absurdly scaled inputs)
                x.copy_from_slice(&original);
                project_radial(x, a, norm_a);
            } else {
                // a λ of ~1e-16 cannot move y by raising it an ulp: shrink y by ulps instead
                // (points 1–4 ulps outside an ordinary ellipsoid)
                shrink_until(x, |_| true, |y| norm_diag_mahalanobis(y, a) <= 1.0);
            }
        }
    }
    norm_a
}

/// `x/‖x‖_A`, then shrunk by ulps until `‖x‖_A ≤ 1` as evaluated (rounding may leave it a hair
/// above 1); `norm_a = ‖x‖_A` finite and > 1.
fn project_radial(x: &mut [f64], a: &[f64], norm_a: f64) {
    for v in x.iter_mut() {
        *v /= norm_a;
    }
    shrink_until(x, |_| true, |y| norm_diag_mahalanobis(y, a) <= 1.0);
}

/// The constraint set X of the optimisation.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub enum Domain {
    /// ℝ^d.
    Unconstrained,
    /// `[−r, r]^d`.
    Box {
        /// r > 0.
        radius: f64,
    },
    /// `{‖x‖₂ ≤ r}`.
    L2Ball {
        /// r > 0.
        radius: f64,
    },
    /// `{‖x‖₁ ≤ r}`.
    L1Ball {
        /// r > 0.
        radius: f64,
    },
    /// The probability simplex `{x ≥ 0, Σⱼ xⱼ = 1}`.
    Simplex,
}

impl Domain {
    /// Parses the CLI spelling `box:<r>`, `l2:<r>`, `l1:<r>`, `simplex` or `none`.
    ///
    /// # Errors
    /// `InvalidParameter` for another spelling or a radius that is not > 0 and finite.
    pub fn parse(s: &str) -> Result<Domain> {
        match s {
            "none" => return Ok(Domain::Unconstrained),
            "simplex" => return Ok(Domain::Simplex),
            _ => {}
        }
        let (kind, r) = s
            .split_once(':')
            .ok_or_else(|| Error::invalid("--domain", s, "box:<r>, l2:<r>, l1:<r>, simplex or none"))?;
        let radius: f64 = r.parse().map_err(|_| Error::invalid("--domain", s, "a numeric radius"))?;
        check::positive("domain radius", radius)?;
        match kind {
            "box" => Ok(Domain::Box { radius }),
            "l2" => Ok(Domain::L2Ball { radius }),
            "l1" => Ok(Domain::L1Ball { radius }),
            _ => Err(Error::invalid("--domain", s, "box:<r>, l2:<r>, l1:<r>, simplex or none")),
        }
    }

    /// Whether `x ∈ X` (up to a relative 1e-12 on the radius).
    pub fn contains(&self, x: &[f64]) -> bool {
        let tol = |r: f64| r * (1.0 + 1e-12);
        match *self {
            Domain::Unconstrained => true,
            Domain::Box { radius } => x.iter().all(|v| v.abs() <= radius),
            Domain::L2Ball { radius } => norm_l2(x) <= tol(radius),
            Domain::L1Ball { radius } => crate::linalg::norm_l1(x) <= tol(radius),
            Domain::Simplex => {
                x.iter().all(|v| *v >= 0.0) && (x.iter().sum::<f64>() - 1.0).abs() <= 1e-12 * x.len() as f64
            }
        }
    }

    /// Euclidean diameter D₂ of X (∞ when unconstrained).
    pub fn diameter_l2(&self, d: usize) -> f64 {
        match *self {
            Domain::Unconstrained => f64::INFINITY,
            Domain::Box { radius } => 2.0 * radius * (d as f64).sqrt(),
            Domain::L2Ball { radius } | Domain::L1Ball { radius } => 2.0 * radius,
            Domain::Simplex => std::f64::consts::SQRT_2,
        }
    }

    /// ℓ∞ diameter D∞ of X (∞ when unconstrained).
    pub fn diameter_linf(&self) -> f64 {
        match *self {
            Domain::Unconstrained => f64::INFINITY,
            Domain::Box { radius } | Domain::L2Ball { radius } | Domain::L1Ball { radius } => 2.0 * radius,
            Domain::Simplex => 1.0,
        }
    }

    /// Euclidean projection `argmin_{y∈X} ‖y − x‖₂`, in place.
    pub fn project(&self, x: &mut [f64]) {
        match *self {
            Domain::Unconstrained => {}
            Domain::Box { radius } => {
                for v in x.iter_mut() {
                    *v = v.clamp(-radius, radius);
                }
            }
            Domain::L2Ball { radius } => {
                clip_l2(x, radius);
            }
            Domain::L1Ball { radius } => project_l1_ball(x, radius),
            Domain::Simplex => project_simplex(x),
        }
    }

    /// The l∞ projection `x̂ ∈ argmin_{y∈X} ‖y − x‖_∞` onto a **solid** X (sign-symmetric, and
    /// `|yⱼ| ≤ |xⱼ| ∀j, x ∈ X ⇒ y ∈ X`), in place: `x̂ = soft(x, t*)` with
    /// `t* = min{t ≥ 0 : soft(x, t) ∈ X}` (\[GGKKM\] Sec. 5, Algorithm 3's last step). Then
    /// `‖x̂ − x‖_∞ = t*`, and no y ∈ X is closer: if ‖y − x‖_∞ = t < t*, then
    /// `|soft(x, t)ⱼ| ≤ |yⱼ|` for all j, so soft(x, t) ∈ X by solidity, against the minimality of t*.
    /// Returns t* (0 when x ∈ X, and then x is unchanged).
    ///
    /// * box `[−r, r]^d`: `t* = max(0, ‖x‖_∞ − r)` (closed form; differs from the Euclidean clamp,
    ///   which is another l∞-minimiser);
    /// * l1 ball: soft(x, t) with the smallest feasible t is exactly the Euclidean projection
    ///   ([`project_l1_ball`], reused; t* read back as `max|xⱼ| − max|x̂ⱼ|` over the support);
    /// * l2 ball: t* by bisection on the decreasing `‖soft(x, t)‖₂`, the feasible end kept;
    /// * ℝ^d: the identity.
    ///
    /// # Errors
    /// `Unsupported` for the simplex (not solid); `NonFinite` for a NaN/∞ entry.
    ///
    /// Proof: proofs/sparse/primitives.md.
    pub fn project_linf(&self, x: &mut [f64]) -> Result<f64> {
        check::all_finite("point to project", x)?;
        if *self == Domain::Simplex {
            return Err(Error::Unsupported {
                event: "l-infinity projection onto the simplex".into(),
                neighbouring: "-".into(),
                accountant: "-",
                reason: "the simplex is not solid (not sign-symmetric); soft thresholding does not reach it".into(),
            });
        }
        if self.contains_strictly(x) {
            return Ok(0.0);
        }
        match *self {
            Domain::Unconstrained => Ok(0.0),
            Domain::Box { radius } => {
                let t = x.iter().fold(0.0f64, |m, v| m.max(v.abs())) - radius;
                // rounding: soft(x, t) has |x̂ⱼ| = |xⱼ| − t ≤ r up to one ulp; raise t until feasible
                let original = x.to_vec();
                let mut t = t.max(0.0);
                loop {
                    soft_threshold_into(x, &original, t);
                    if x.iter().all(|v| v.abs() <= radius) {
                        return Ok(t);
                    }
                    t = t.next_up();
                }
            }
            Domain::L1Ball { radius } => {
                let top = x.iter().fold(0.0f64, |m, v| m.max(v.abs()));
                project_l1_ball(x, radius);
                let top_after = x.iter().fold(0.0f64, |m, v| m.max(v.abs()));
                Ok(top - top_after)
            }
            Domain::L2Ball { radius } => {
                let original = x.to_vec();
                let top = original.iter().fold(0.0f64, |m, v| m.max(v.abs()));
                let norm_at = |t: f64| -> f64 { plain_norm_l2(original.iter().map(|o| soft_threshold_scalar(*o, t))) };
                // ‖x̂(t)‖₂ falls in t: bisect to the end inside the ball (norm_at(top) = 0).
                let (_, mut hi) = crate::special::bisect(0.0, top, BISECTION_HALVINGS, |t| norm_at(t) > radius);
                // `norm_at` and `norm_l2` round differently: raise t by ulps until x̂ is in the
                // ball as `contains` evaluates it (each step shrinks every non-zero |x̂ⱼ|); past
                // 64 ulps (never for inputs of a sane scale), bisect with `norm_l2` itself.
                for _ in 0..64 {
                    soft_threshold_into(x, &original, hi);
                    if norm_l2(x) <= radius || hi >= top {
                        return Ok(hi);
                    }
                    hi = hi.next_up();
                }
                let (_, hi) = crate::special::bisect(hi, top, BISECTION_HALVINGS, |t| {
                    soft_threshold_into(x, &original, t);
                    norm_l2(x) > radius
                });
                soft_threshold_into(x, &original, hi);
                Ok(hi)
            }
            Domain::Simplex => unreachable!("invariant: refused above"),
        }
    }

    /// Membership without the 1e-12 slack of [`Domain::contains`] (exact, as evaluated).
    fn contains_strictly(&self, x: &[f64]) -> bool {
        match *self {
            Domain::Unconstrained => true,
            Domain::Box { radius } => x.iter().all(|v| v.abs() <= radius),
            Domain::L2Ball { radius } => norm_l2(x) <= radius,
            Domain::L1Ball { radius } => crate::linalg::norm_l1(x) <= radius,
            Domain::Simplex => self.contains(x),
        }
    }

    /// `H`-weighted projection `argmin_{y∈X} ‖y − x‖_H`, `H = diag(h)`, `h ≥ 0`, in place.
    ///
    /// Box: coordinatewise clamping (the problem decouples). l2 ball: `yⱼ = hⱼxⱼ/(hⱼ + μ)` with
    /// μ ≥ 0 the root of `‖y(μ)‖₂ = r` (bisection; the end inside the ball is kept). Coordinates
    /// with `hⱼ = 0` carry no cost: they are set to 0 when the weighted ones need the whole ball,
    /// and otherwise scaled into the room the weighted ones leave.
    ///
    /// # Errors
    /// `Unsupported` for the l1 ball (not needed by the algorithms that use it); `NonFinite` for a
    /// NaN/∞ entry of x or h; `InvalidParameter` for a negative weight.
    pub fn project_weighted(&self, x: &mut [f64], h: &[f64]) -> Result<()> {
        debug_assert_eq!(x.len(), h.len(), "invariant: dimensions agree");
        check::all_finite("point to project", x)?;
        check::all_finite("projection weights h", h)?;
        if let Some(w) = h.iter().find(|w| **w < 0.0) {
            return Err(Error::invalid("projection weights h", w, ">= 0"));
        }
        match *self {
            Domain::Unconstrained | Domain::Box { .. } => {
                self.project(x);
                Ok(())
            }
            Domain::L2Ball { radius } => {
                if norm_l2(x) <= radius {
                    return Ok(());
                }
                // Zero-weight coordinates (Z) cost nothing wherever they go. If the weighted ones
                // (P) fit, y_P = x_P is free and y_Z takes what is left of the ball (scaled toward
                // x_Z: the Euclidean-closest of the optimal points). Otherwise y_Z = 0 leaves all
                // the room to P, and μ > 0 gives yⱼ = hⱼxⱼ/(hⱼ + μ), which is 0 on Z as well.
                let norm_p = plain_norm_l2(x.iter().zip(h).filter(|(_, hi)| **hi > 0.0).map(|(xi, _)| *xi));
                if h.contains(&0.0) && norm_p <= radius {
                    let norm_z = plain_norm_l2(x.iter().zip(h).filter(|(_, hi)| **hi == 0.0).map(|(xi, _)| *xi));
                    let room = ((radius - norm_p) * (radius + norm_p)).max(0.0).sqrt();
                    let f = clip_scale(norm_z, room);
                    for (v, hi) in x.iter_mut().zip(h) {
                        if *hi == 0.0 {
                            *v *= f;
                        }
                    }
                    // rounding of the two parts' norms: shrink Z by ulps until the whole fits
                    shrink_until(x, |j| h[j] == 0.0, |y| norm_l2(y) <= radius);
                    return Ok(());
                }
                let norm_at =
                    |mu: f64| -> f64 { plain_norm_l2(x.iter().zip(h).map(|(xi, w)| weighted_shrink(*xi, *w, mu))) };
                let mut hi = h.iter().copied().fold(0.0, f64::max);
                while norm_at(hi) > radius && hi < f64::MAX {
                    hi = (hi * 2.0).min(f64::MAX);
                }
                let (_, hi) = crate::special::bisect(0.0, hi, BISECTION_HALVINGS, |mu| norm_at(mu) > radius);
                for (v, w) in x.iter_mut().zip(h) {
                    *v = weighted_shrink(*v, *w, hi);
                }
                // `norm_at` and `norm_l2` round differently; the radial cut stands in for a root
                // beyond f64::MAX (never for inputs of a sane scale)
                if norm_l2(x) > radius * (1.0 + 1e-12) {
                    clip_l2(x, radius);
                }
                shrink_until(x, |_| true, |y| norm_l2(y) <= radius);
                Ok(())
            }
            Domain::L1Ball { .. } | Domain::Simplex => Err(Error::Unsupported {
                event: "H-weighted projection onto an l1 ball or the simplex".into(),
                neighbouring: "-".into(),
                accountant: "-",
                reason: "not implemented; use a box or an l2 ball with AdaGrad-type methods".into(),
            }),
        }
    }
}

/// `yⱼ = hⱼxⱼ/(hⱼ + μ)` of the weighted l2 projection (0 where hⱼ = 0), evaluated as
/// `xⱼ/(1 + μ/hⱼ)` where `hⱼxⱼ` overflows (h = x = 1e200 gave ∞/∞ = NaN).
fn weighted_shrink(x: f64, h: f64, mu: f64) -> f64 {
    if h == 0.0 {
        0.0
    } else if (h * x).is_finite() {
        h * x / (h + mu)
    } else {
        x / (1.0 + mu / h)
    }
}

/// Euclidean projection onto the simplex `{y ≥ 0, Σ yⱼ = 1}` (Duchi, Shalev-Shwartz, Singer,
/// Chandra 2008, Fig. 1): `yⱼ = max(xⱼ − θ, 0)` with θ such that `Σ max(xⱼ − θ, 0) = 1`, found by
/// sorting. The problem is invariant to adding a constant to x, so x is first shifted by its
/// largest entry m (exactly, by Sterbenz's lemma, for every entry within 1 of m once |m| ≥ 2:
/// all that can stay active): θ is then found among numbers of order 1, and the result is
/// non-negative and sums to 1 up to a few ulps of d. Unshifted, `v − (v − 1)` rounded to 0 for
/// |v| ≥ 2⁵³ (x = (1e20, 0) came back unchanged, x = (−1e17, −1e17, −1e17) as 0) and the sum was
/// off by ulps of max|x|. A non-finite input is the caller's to refuse.
pub fn project_simplex(x: &mut [f64]) {
    if x.is_empty() {
        return;
    }
    let m = x.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let mut sorted: Vec<f64> = x.iter().map(|v| v - m).collect();
    sorted.sort_unstable_by(|a, b| b.total_cmp(a));
    // the largest shifted entry is 0 and always active (k = 0: 0 − (0 − 1) = 1 > 0)
    let (mut cumulative, mut theta) = (0.0, -1.0);
    for (k, &v) in sorted.iter().enumerate() {
        cumulative += v;
        let candidate = (cumulative - 1.0) / (k + 1) as f64;
        if v - candidate > 0.0 {
            theta = candidate;
        } else {
            break;
        }
    }
    for v in x.iter_mut() {
        *v = ((*v - m) - theta).max(0.0);
    }
}

/// Euclidean projection onto `{‖x‖₁ ≤ r}` (Duchi, Shalev-Shwartz, Singer, Chandra 2008, Fig. 1):
/// soft-threshold at the θ ≥ 0 with `Σ max(|xⱼ| − θ, 0) = r`, found by sorting.
///
/// **Feasible as evaluated.** θ = (Σ_{top k}|xⱼ| − r)/k cancels when ‖x‖₁ ≫ r, so the result
/// is accurate to ulps of ‖x‖₁, not of r (x = (10000), r = 0.01 gave ‖y‖₁ = r·(1 + 2e-11)). θ is
/// therefore corrected until `norm_l1(y) ≤ r` as evaluated: a Newton step on the piecewise
/// linear `s(θ) = Σ max(|xⱼ| − θ, 0)` (θ += (s − r)/k, k the active count), then one ulp of θ at a
/// time, and after 64 ulps a bisection of θ on `[θ, max|xⱼ|]`. Each correction raises θ, and at
/// θ = max|xⱼ| the result is 0, so the loop ends; it moves θ by rounding errors only, so y stays
/// the projection up to ulps of ‖x‖₁. An x with a NaN entry is left as it is (the caller's
/// finiteness check sees it; it used to loop forever).
pub fn project_l1_ball(x: &mut [f64], r: f64) {
    if crate::linalg::norm_l1(x) <= r || x.iter().any(|v| v.is_nan()) {
        return;
    }
    let mut u: Vec<f64> = x.iter().map(|v| v.abs()).collect();
    u.sort_unstable_by(|a, b| b.total_cmp(a));
    let (mut cum, mut theta) = (0.0, 0.0);
    for (j, &uj) in u.iter().enumerate() {
        cum += uj;
        let t = (cum - r) / (j + 1) as f64;
        // j = 0 always qualifies (u₀ > u₀ − r exactly), but u₀ − r rounds to u₀ when r is below
        // half an ulp of u₀; θ then stayed 0 and the ulp walk below never ended (x = (1e12, 2e12),
        // r = 1e-5)
        if j == 0 || uj > t {
            theta = t;
        }
    }
    let top = u[0];
    let original = x.to_vec();
    soft_threshold_into(x, &original, theta);
    let mut passes = 0u32;
    loop {
        let s = crate::linalg::norm_l1(x);
        if s <= r || theta >= top {
            break;
        }
        if passes == 64 {
            // far beyond rounding: bisect θ on [θ, max|xⱼ|] (s = 0 at the top), the feasible end kept
            theta = crate::special::bisect(theta, top, BISECTION_HALVINGS, |t| {
                soft_threshold_into(x, &original, t);
                crate::linalg::norm_l1(x) > r
            })
            .1;
            soft_threshold_into(x, &original, theta);
            break;
        }
        let active = x.iter().filter(|v| **v != 0.0).count().max(1) as f64;
        let step = if passes == 0 { (s - r) / active } else { 0.0 };
        passes += 1;
        theta = (theta + step).max(theta.next_up()).min(top);
        soft_threshold_into(x, &original, theta);
    }
}

/// Soft thresholding `soft(v, t)ⱼ = sign(vⱼ)·max(|vⱼ| − t, 0)` (t ≥ 0), in place: the proximal
/// map of `t‖·‖₁`, and the form of every l1-type projection here ([`project_l1_ball`],
/// [`Domain::project_linf`]; \[GGKKM\] Sec. 2 notation).
///
/// # Errors
/// `InvalidParameter` unless `t` is finite and `>= 0`; `NonFinite` for a NaN/∞ entry of `v`.
///
/// Proof: proofs/sparse/primitives.md.
pub fn soft_threshold(v: &mut [f64], t: f64) -> Result<()> {
    check::non_negative("soft threshold t", t)?;
    check::all_finite("soft threshold input", v)?;
    for x in v.iter_mut() {
        *x = soft_threshold_scalar(*x, t);
    }
    Ok(())
}

/// `sign(v)·max(|v| − t, 0)` for one coordinate (the one formula; a thresholded negative entry
/// is −0, as the l1 projection has always returned it).
fn soft_threshold_scalar(v: f64, t: f64) -> f64 {
    v.signum() * (v.abs() - t).max(0.0)
}

/// `out ← soft(original, t)` (lengths equal; unchecked: the crate's projections call it).
fn soft_threshold_into(out: &mut [f64], original: &[f64], t: f64) {
    for (v, o) in out.iter_mut().zip(original) {
        *v = soft_threshold_scalar(*o, t);
    }
}
