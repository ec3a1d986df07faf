//! Property tests of the projections ([ADFJT] notes §6, P1–P7 and D1; notes §2.0 (b), (e)):
//! the ellipsoid projections `π_A` (radial and Euclidean), standard l2 clipping as the case
//! `A = I/B²`, and the domain projections `Domain::{project, project_weighted}`.
//!
//! Conventions. `A = diag(a)` with `a` log-uniform in [1e-3, 1e3] (condition numbers up to 1e6);
//! points have coordinates up to 1e4 in magnitude, so both the inside and the outside of every
//! set are exercised. Tolerances are relative to the scale of the quantity compared (STYLE b.12):
//! every routine here is a handful of flops per coordinate plus, for the Euclidean ellipsoid and
//! the weighted l2 ball, a bisection run to adjacent floats, so the exact answer is reproduced to
//! a few ulps (≈ 1e-15 relative); `REL = 1e-12` leaves three orders of magnitude for the
//! accumulation over d ≤ 6 coordinates and conditioning up to 1e6 in the KKT residuals, and is
//! still ten orders of magnitude below any violation a wrong projection produces (the radial
//! point is not Euclidean-optimal by a margin of order ‖x − y‖, and so on).
//!
//! "Optimal against random feasible points" checks both far points (uniform directions and radii)
//! and points near the candidate (the candidate moved by a relative 1e-3 and pulled back into the
//! set radially), where a slightly wrong projection is caught.
//!
//! The proptest configuration does not persist failures to disk (this suite writes no files);
//! a failing case is printed with its shrunk input.

use dpref::geometry::{Domain, EllipsoidProjection, clip_l2, project_ellipsoid, project_l1_ball};
use proptest::collection::vec;
use proptest::prelude::*;

mod common;

/// Relative tolerance of deterministic float comparisons (see the module doc).
const REL: f64 = 1e-12;

/// A norm, for the random feasible points of a set.
type NormFn<'a> = &'a dyn Fn(&[f64]) -> f64;

const KINDS: [EllipsoidProjection; 2] = [EllipsoidProjection::Radial, EllipsoidProjection::Euclidean];

fn config() -> ProptestConfig {
    common::strategies::fixed_seed_config(256, 0x6470_7265_6667)
}

fn log_uniform(lo: f64, hi: f64) -> impl Strategy<Value = f64> {
    (lo.ln()..hi.ln()).prop_map(f64::exp)
}

fn norm2(x: &[f64]) -> f64 {
    x.iter().map(|v| v * v).sum::<f64>().sqrt()
}

fn norm1(x: &[f64]) -> f64 {
    x.iter().map(|v| v.abs()).sum()
}

/// `‖x‖_A = (Σ aⱼxⱼ²)^{1/2}` (also `‖x‖_C` with `a = C`, and `‖x‖_H`).
fn norm_w(x: &[f64], a: &[f64]) -> f64 {
    x.iter().zip(a).map(|(v, w)| w * v * v).sum::<f64>().sqrt()
}

fn sub(x: &[f64], y: &[f64]) -> Vec<f64> {
    x.iter().zip(y).map(|(a, b)| a - b).collect()
}

fn scaled(x: &[f64], s: f64) -> Vec<f64> {
    x.iter().map(|v| v * s).collect()
}

fn projected(x: &[f64], a: &[f64], kind: EllipsoidProjection) -> Vec<f64> {
    let mut y = x.to_vec();
    project_ellipsoid(&mut y, a, kind);
    y
}

fn bits(x: &[f64]) -> Vec<u64> {
    x.iter().map(|v| v.to_bits()).collect()
}

/// A point (coordinates uniform in [−s, s], s log-uniform in [1e-2, 1e4]) and a diagonal `a`
/// (log-uniform in [1e-3, 1e3]), d ∈ 1..=6, plus a second point and unit-cube draws `u` that
/// the tests turn into random feasible points.
#[derive(Debug, Clone)]
struct Case {
    x: Vec<f64>,
    x2: Vec<f64>,
    a: Vec<f64>,
    /// Random directions / radii for feasible points (each entry in [−1, 1]).
    u: Vec<Vec<f64>>,
    t: Vec<f64>,
}

fn case() -> impl Strategy<Value = Case> {
    (1usize..=6)
        .prop_flat_map(|d| {
            (
                vec(-1.0..1.0f64, d),
                log_uniform(1e-2, 1e4),
                vec(-1.0..1.0f64, d),
                log_uniform(1e-2, 1e4),
                vec(log_uniform(1e-3, 1e3), d),
                vec(vec(-1.0..1.0f64, d), 16),
                vec(0.0..1.0f64, 16),
            )
        })
        .prop_map(|(x, s, x2, s2, a, u, t)| Case { x: scaled(&x, s), x2: scaled(&x2, s2), a, u, t })
}

/// The KKT form of the Euclidean projection onto `E_A`: `x − y = λAy`. Returns the
/// least-squares λ of the d equations and the largest residual `|xⱼ − yⱼ − λaⱼyⱼ|`.
fn ellipsoid_kkt_residual(x: &[f64], y: &[f64], a: &[f64]) -> (f64, f64) {
    let ay: Vec<f64> = y.iter().zip(a).map(|(v, w)| v * w).collect();
    let d = sub(x, y);
    let lambda = d.iter().zip(&ay).map(|(p, q)| p * q).sum::<f64>() / ay.iter().map(|q| q * q).sum::<f64>();
    let r = d.iter().zip(&ay).map(|(p, q)| (p - lambda * q).abs()).fold(0.0, f64::max);
    (lambda, r)
}

/// The KKT form of the H-weighted projection onto `{‖y‖₂ ≤ r}`: `hⱼ(yⱼ − xⱼ) + μyⱼ = 0`, i.e.
/// `yⱼ = hⱼxⱼ/(hⱼ + μ)`. Returns μ (from the coordinate with the largest |yⱼ|) and the largest
/// residual `|yⱼ − hⱼxⱼ/(hⱼ + μ)|`.
fn weighted_l2_kkt_residual(x: &[f64], y: &[f64], h: &[f64]) -> (f64, f64) {
    let j = (0..y.len()).max_by(|&p, &q| y[p].abs().total_cmp(&y[q].abs())).expect("d ≥ 1");
    let mu = h[j] * (x[j] - y[j]) / y[j];
    let r = (0..y.len()).map(|k| (y[k] - h[k] * x[k] / (h[k] + mu)).abs()).fold(0.0, f64::max);
    (mu, r)
}

/// Random points of the set `{‖w‖ ≤ r}` for the given norm: 8 far points `uᵢ·tᵢ·r/‖uᵢ‖` and 8
/// points near `y` (`y + 1e-3·scale·uᵢ`, pulled back radially when outside).
fn feasible_points(c: &Case, y: &[f64], r: f64, norm: NormFn) -> Vec<Vec<f64>> {
    let mut out = Vec::new();
    for (i, (u, t)) in c.u.iter().zip(&c.t).enumerate() {
        let nu = norm(u);
        if nu == 0.0 {
            continue;
        }
        let w = if i < 8 {
            scaled(u, t * r / nu)
        } else {
            let scale = norm2(y).max(1e-300);
            let w: Vec<f64> = y.iter().zip(u).map(|(yi, ui)| yi + 1e-3 * scale * ui).collect();
            let nw = norm(&w);
            // pull back strictly inside so that the point is feasible as evaluated
            if nw > r { scaled(&w, r / nw * (1.0 - 4.0 * f64::EPSILON)) } else { w }
        };
        out.push(w);
    }
    out
}

proptest! {
    #![proptest_config(config())]

    /// P1: `‖π_A(x)‖_A ≤ 1 + 1e-12` for both variants; the returned value is `‖x‖_A`.
    #[test]
    fn prop_ellipsoid_projection_is_feasible(c in case()) {
        for kind in KINDS {
            let mut y = c.x.clone();
            let returned = project_ellipsoid(&mut y, &c.a, kind);
            let n = norm_w(&y, &c.a);
            prop_assert!(n <= 1.0 + REL, "{kind:?}: ‖π(x)‖_A = {n}");
            let nx = norm_w(&c.x, &c.a);
            prop_assert!((returned - nx).abs() <= REL * nx, "{kind:?}: returned {returned} vs ‖x‖_A {nx}");
        }
    }

    /// P2: inside the ellipsoid the projection is the identity, bit for bit.
    #[test]
    fn prop_ellipsoid_projection_is_identity_inside(c in case(), t in 0.0..0.999f64) {
        let n = norm_w(&c.x, &c.a);
        prop_assume!(n > 0.0);
        let inside = scaled(&c.x, t / n);
        prop_assume!(norm_w(&inside, &c.a) <= 1.0);
        for kind in KINDS {
            prop_assert_eq!(bits(&projected(&inside, &c.a, kind)), bits(&inside), "{:?}", kind);
        }
    }

    /// P3: idempotence, `π(π(x)) = π(x)`: bit for bit for the radial variant (its result has
    /// `‖y‖_A ≤ 1` as `project_ellipsoid` evaluates it, so P2 applies); within REL for the
    /// Euclidean variant, whose result can exceed 1 by an ulp as evaluated (see the ignored
    /// `prop_ellipsoid_euclidean_projection_is_feasible_as_evaluated`).
    #[test]
    fn prop_ellipsoid_projection_is_idempotent(c in case()) {
        let y = projected(&c.x, &c.a, EllipsoidProjection::Radial);
        prop_assert_eq!(bits(&projected(&y, &c.a, EllipsoidProjection::Radial)), bits(&y));
        let y = projected(&c.x, &c.a, EllipsoidProjection::Euclidean);
        let err = norm2(&sub(&projected(&y, &c.a, EllipsoidProjection::Euclidean), &y));
        prop_assert!(err <= REL * norm2(&y), "Euclidean: ‖π(π(x)) − π(x)‖ = {err}");
    }

    /// P4: the Euclidean variant satisfies the KKT conditions `x − y = λAy`, λ ≥ 0, `‖y‖_A = 1`
    /// outside; it is no farther from x than any random feasible point, and non-expansive in ℓ2.
    /// λ is the least-squares solution of the d equations; the residuals are a few ulps of |x|
    /// for the true projection (module doc), and of order ‖x − y‖ for a wrong one.
    #[test]
    fn prop_ellipsoid_euclidean_is_the_euclidean_projection(c in case()) {
        let kind = EllipsoidProjection::Euclidean;
        let y = projected(&c.x, &c.a, kind);
        let nx = norm2(&c.x);
        if norm_w(&c.x, &c.a) > 1.001 {
            let (lambda, r) = ellipsoid_kkt_residual(&c.x, &y, &c.a);
            prop_assert!(lambda >= 0.0, "λ = {lambda}");
            prop_assert!(r <= 1e-10 * nx, "KKT residual {r} (λ = {lambda}, y = {y:?})");
            let ny = norm_w(&y, &c.a);
            prop_assert!((ny - 1.0).abs() <= REL, "‖y‖_A = {ny} on the boundary");
        }
        let dist = norm2(&sub(&c.x, &y));
        for w in feasible_points(&c, &y, 1.0, &|v| norm_w(v, &c.a)) {
            let dw = norm2(&sub(&c.x, &w));
            prop_assert!(dist <= dw + REL * nx, "‖x − y‖ = {dist} > ‖x − w‖ = {dw} for feasible w = {w:?}");
        }
        let y2 = projected(&c.x2, &c.a, kind);
        let (lhs, rhs) = (norm2(&sub(&y, &y2)), norm2(&sub(&c.x, &c.x2)));
        prop_assert!(lhs <= rhs + REL * (nx + norm2(&c.x2)), "expansive: {lhs} > {rhs}");
    }

    /// P5: radial, with `A = C/B²`: `‖x − π(x)‖_C = (‖x‖_C − B)_+`, and non-expansive in ‖·‖_A
    /// (it is the ‖·‖_A-orthogonal projection onto the ‖·‖_A unit ball).
    #[test]
    fn prop_ellipsoid_radial_bias_is_exact_and_nonexpansive(c in case(), b in log_uniform(1e-2, 1e2)) {
        let cc = &c.a; // C
        let a: Vec<f64> = cc.iter().map(|v| v / (b * b)).collect();
        let kind = EllipsoidProjection::Radial;
        let y = projected(&c.x, &a, kind);
        let nxc = norm_w(&c.x, cc);
        let bias = norm_w(&sub(&c.x, &y), cc);
        let expected = (nxc - b).max(0.0);
        prop_assert!((bias - expected).abs() <= REL * nxc, "‖x − π(x)‖_C = {bias} vs (‖x‖_C − B)_+ = {expected}");
        let y2 = projected(&c.x2, &a, kind);
        let (lhs, rhs) = (norm_w(&sub(&y, &y2), &a), norm_w(&sub(&c.x, &c.x2), &a));
        prop_assert!(lhs <= rhs + REL * (norm_w(&c.x, &a) + norm_w(&c.x2, &a)), "expansive in ‖·‖_A: {lhs} > {rhs}");
    }

    /// P6: with `A = I/B²` both variants equal standard clipping `x·min(1, B/‖x‖₂)` (`clip_l2`).
    #[test]
    fn prop_ellipsoid_isotropic_equals_clip_l2(c in case(), b in log_uniform(1e-2, 1e2)) {
        let a = vec![1.0 / (b * b); c.x.len()];
        let mut clipped = c.x.clone();
        clip_l2(&mut clipped, b);
        prop_assert!(norm2(&clipped) <= b * (1.0 + REL) || norm2(&clipped) == norm2(&c.x));
        for kind in KINDS {
            let y = projected(&c.x, &a, kind);
            let err = norm2(&sub(&y, &clipped));
            prop_assert!(err <= REL * norm2(&c.x), "{kind:?}: ‖π(x) − clip(x)‖ = {err}");
        }
    }

    /// P7: with `A = aI` the variants agree; with `A = C/B²` the Euclidean bias is sandwiched,
    /// `(‖x‖_C − B)_+ ≤ ‖x − π_euc(x)‖_C ≤ ‖x‖_C`.
    #[test]
    fn prop_ellipsoid_variants_agree_on_balls_and_euclidean_bias_is_sandwiched(
        c in case(), s in log_uniform(1e-3, 1e3), b in log_uniform(1e-2, 1e2)
    ) {
        let iso = vec![s; c.x.len()];
        let (yr, ye) = (projected(&c.x, &iso, EllipsoidProjection::Radial), projected(&c.x, &iso, EllipsoidProjection::Euclidean));
        let err = norm2(&sub(&yr, &ye));
        prop_assert!(err <= REL * norm2(&c.x), "radial vs Euclidean on a ball: {err}");
        let cc = &c.a;
        let a: Vec<f64> = cc.iter().map(|v| v / (b * b)).collect();
        let y = projected(&c.x, &a, EllipsoidProjection::Euclidean);
        let nxc = norm_w(&c.x, cc);
        let bias = norm_w(&sub(&c.x, &y), cc);
        prop_assert!((nxc - b).max(0.0) <= bias + REL * nxc, "bias {bias} below (‖x‖_C − B)_+ = {}", nxc - b);
        prop_assert!(bias <= nxc * (1.0 + REL), "bias {bias} above ‖x‖_C = {nxc}");
    }

    /// D1 (sensitivity, both variants): for arbitrary per-example gradients g, g′ (any
    /// magnitude, here up to 1e4 per coordinate with `A` conditioned up to 1e6),
    /// `‖A^{1/2}π(g)‖₂ ≤ 1` (add/remove) and `‖A^{1/2}(π(g) − π(g′))‖₂ ≤ 2` (replace-one), as
    /// evaluated in floating point up to REL. The projected gradient of a record far outside
    /// attains the bound 1 (so the sensitivity 2 is attained by g′ = −g).
    #[test]
    fn prop_ellipsoid_projection_whitened_sensitivity_at_most_two(c in case()) {
        for kind in KINDS {
            let (y, y2) = (projected(&c.x, &c.a, kind), projected(&c.x2, &c.a, kind));
            let white = |v: &[f64]| -> Vec<f64> { v.iter().zip(&c.a).map(|(p, w)| p * w.sqrt()).collect() };
            prop_assert!(norm2(&white(&y)) <= 1.0 + REL, "{kind:?}: ‖A^(1/2)π(g)‖ = {}", norm2(&white(&y)));
            let diff = norm2(&sub(&white(&y), &white(&y2)));
            prop_assert!(diff <= 2.0 + 2.0 * REL, "{kind:?}: replace-one sensitivity {diff}");
            if norm_w(&c.x, &c.a) > 1.0 {
                let neg = projected(&scaled(&c.x, -1.0), &c.a, kind);
                let attained = norm2(&sub(&white(&y), &white(&neg)));
                prop_assert!((attained - 2.0).abs() <= 4.0 * REL, "{kind:?}: g vs −g gives {attained}, not 2");
            }
        }
    }

    /// `Domain::project` for a box, an l2 ball and an l1 ball: the result is in X
    /// (`Domain::contains`, which allows a relative 1e-12 on the radius) and no farther from x in
    /// ℓ2 than any random feasible point.
    #[test]
    fn prop_domain_projection_is_feasible_and_optimal(c in case(), r in log_uniform(1e-2, 1e3)) {
        let nx = norm2(&c.x);
        let boxn = |v: &[f64]| v.iter().fold(0.0f64, |m, x| m.max(x.abs()));
        let sets: [(Domain, NormFn); 3] =
            [(Domain::Box { radius: r }, &boxn), (Domain::L2Ball { radius: r }, &norm2), (Domain::L1Ball { radius: r }, &norm1)];
        for (domain, norm) in sets {
            let mut y = c.x.clone();
            domain.project(&mut y);
            if let Domain::L1Ball { .. } = domain {
                // the l1 projection is accurate to a few ulps of ‖x‖₁, not of r (see the ignored
                // `prop_l1_ball_projection_is_feasible`)
                prop_assert!(norm1(&y) <= r + 8.0 * f64::EPSILON * norm1(&c.x), "{domain:?}: ‖y‖₁ = {}", norm1(&y));
            } else {
                prop_assert!(domain.contains(&y), "{domain:?}: {y:?} not in X");
            }
            let dist = norm2(&sub(&c.x, &y));
            for w in feasible_points(&c, &y, r, norm) {
                prop_assert!(domain.contains(&w));
                let dw = norm2(&sub(&c.x, &w));
                prop_assert!(dist <= dw + REL * nx, "{domain:?}: ‖x − y‖ = {dist} > ‖x − w‖ = {dw}");
            }
            // a point of X (as each projection tests membership) is left alone, bit for bit
            let inside = match domain {
                Domain::Box { .. } => c.x.iter().all(|v| v.abs() <= r),
                Domain::L2Ball { .. } => dpref::linalg::norm_l2(&c.x) <= r,
                _ => dpref::linalg::norm_l1(&c.x) <= r,
            };
            if inside {
                prop_assert_eq!(bits(&y), bits(&c.x), "{:?}: moved a point of X", domain);
            }
        }
    }

    /// `project_l1_ball` (Duchi et al. 2008): besides feasibility and optimality above, the KKT
    /// form: the result is a soft-thresholding of x at one θ ≥ 0 (`yⱼ = sign(xⱼ)(|xⱼ| − θ)_+`)
    /// with `‖y‖₁ = r` when x is outside.
    #[test]
    fn prop_l1_ball_projection_is_a_soft_threshold(c in case(), r in log_uniform(1e-2, 1e3)) {
        let mut y = c.x.clone();
        project_l1_ball(&mut y, r);
        let nx1 = norm1(&c.x);
        if nx1 <= r {
            prop_assert_eq!(bits(&y), bits(&c.x));
        } else {
            let ny = norm1(&y);
            prop_assert!((ny - r).abs() <= REL * nx1, "‖y‖₁ = {ny} vs r = {r}");
            // θ from any coordinate that survives
            let j = (0..y.len()).find(|&j| y[j] != 0.0).expect("some coordinate survives when r > 0");
            let theta = c.x[j].abs() - y[j].abs();
            prop_assert!(theta >= -REL * nx1);
            for (k, (yk, xk)) in y.iter().zip(&c.x).enumerate() {
                let soft = xk.signum() * (xk.abs() - theta).max(0.0);
                prop_assert!((yk - soft).abs() <= REL * nx1, "coordinate {k}: {yk} vs soft {soft}");
                prop_assert!(*yk == 0.0 || yk.signum() == xk.signum());
            }
        }
    }

    /// `Domain::project_weighted` for a box and an l2 ball with weights `h > 0` (log-uniform in
    /// [1e-3, 1e3]): the result is in X and minimises `‖y − x‖_H` against random feasible
    /// points. For the l2 ball the KKT form `yⱼ = hⱼxⱼ/(hⱼ + μ)`, μ ≥ 0, is checked too.
    #[test]
    fn prop_domain_weighted_projection_is_optimal_in_h_norm(c in case(), r in log_uniform(1e-2, 1e3)) {
        let h = &c.a;
        let nxh = norm_w(&c.x, h);
        let boxn = |v: &[f64]| v.iter().fold(0.0f64, |m, x| m.max(x.abs()));
        let sets: [(Domain, NormFn); 2] = [(Domain::Box { radius: r }, &boxn), (Domain::L2Ball { radius: r }, &norm2)];
        for (domain, norm) in sets {
            let mut y = c.x.clone();
            domain.project_weighted(&mut y, h).unwrap();
            prop_assert!(domain.contains(&y), "{domain:?}: {y:?} not in X");
            let dist = norm_w(&sub(&c.x, &y), h);
            for w in feasible_points(&c, &y, r, norm) {
                let dw = norm_w(&sub(&c.x, &w), h);
                prop_assert!(dist <= dw + REL * nxh, "{domain:?}: ‖x − y‖_H = {dist} > ‖x − w‖_H = {dw}");
            }
            if let Domain::L2Ball { .. } = domain && norm2(&c.x) > r * 1.001 {
                let (mu, res) = weighted_l2_kkt_residual(&c.x, &y, h);
                prop_assert!(mu >= 0.0, "μ = {mu}");
                prop_assert!(res <= 1e-10 * norm2(&c.x), "KKT residual {res} (μ = {mu})");
            }
        }
    }
}

/// Power twins of the KKT checks above (c.4: they can fail): the radial point is not the
/// Euclidean projection of `x = (3, 1)` onto `a = (1, 4)` (residual 1.04, against the
/// 3.2e-10 allowed), and the Euclidean projection onto the unit l2 ball is not the H-weighted one
/// for `x = (2, 2)`, `h = (1, 100)` (residual 0.70).
#[test]
fn prop_projection_kkt_checks_reject_the_wrong_projection() {
    let (x, a) = ([3.0, 1.0], [1.0, 4.0]);
    let radial = projected(&x, &a, EllipsoidProjection::Radial);
    let (_, r) = ellipsoid_kkt_residual(&x, &radial, &a);
    assert!(r > 1e-10 * norm2(&x) * 1e6, "the radial point passes the Euclidean KKT check: {r}");
    let (_, r) = ellipsoid_kkt_residual(&x, &projected(&x, &a, EllipsoidProjection::Euclidean), &a);
    assert!(r <= 1e-10 * norm2(&x), "{r}");
    let (x, h) = ([2.0, 2.0], [1.0, 100.0]);
    let mut euclid = x.to_vec();
    Domain::L2Ball { radius: 1.0 }.project(&mut euclid);
    let (_, r) = weighted_l2_kkt_residual(&x, &euclid, &h);
    assert!(r > 1e-10 * norm2(&x) * 1e6, "the Euclidean point passes the weighted KKT check: {r}");
    let mut weighted = x.to_vec();
    Domain::L2Ball { radius: 1.0 }.project_weighted(&mut weighted, &h).unwrap();
    let (_, r) = weighted_l2_kkt_residual(&x, &weighted, &h);
    assert!(r <= 1e-10 * norm2(&x), "{r}");
}

/// The H-weighted l1-ball projection is refused with a typed error, not approximated.
#[test]
fn prop_domain_weighted_projection_refuses_l1_ball() {
    let mut x = vec![3.0, -1.0];
    let r = Domain::L1Ball { radius: 1.0 }.project_weighted(&mut x, &[1.0, 2.0]);
    assert!(matches!(r, Err(dpref::Error::Unsupported { .. })), "{r:?}");
}

/// `project_weighted` on an l2 ball with a zero weight: coordinates with `hⱼ = 0` cost nothing,
/// so the optimum spends the whole radius on the weighted coordinates and sets the free ones to
/// 0. Counterexample: `h = (1, 0)`, `x = (2, 2)`, `r = 1`: the optimum is `y = (1, 0)` with
/// `‖y − x‖_H = 1`; the Euclidean fallback gives `(0.707, 0.707)` with `‖y − x‖_H = 1.293`.
/// (AdaGrad reaches this case in PAGAN with σ = 0 while a coordinate's gradients are all 0.)
#[test]
fn prop_domain_weighted_l2_projection_with_zero_weight_is_optimal() {
    let (x, h, r) = (vec![2.0, 2.0], vec![1.0, 0.0], 1.0);
    let mut y = x.clone();
    Domain::L2Ball { radius: r }.project_weighted(&mut y, &h).unwrap();
    let dist = norm_w(&sub(&x, &y), &h);
    let optimum = [1.0, 0.0];
    let best = norm_w(&sub(&x, &optimum), &h);
    assert!(norm2(&y) <= r * (1.0 + REL));
    assert!(dist <= best * (1.0 + REL), "‖y − x‖_H = {dist} at y = {y:?}, but (1, 0) attains {best}");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    /// The class of the zero-weight case: with some hⱼ = 0, the weighted l2-ball projection is
    /// feasible and no H-farther from x than the candidates a wrong rule would return (the
    /// Euclidean projection, x radially scaled into the ball, the zero-weight coordinates zeroed
    /// and the rest projected).
    #[test]
    fn prop_weighted_l2_projection_with_zero_weights_beats_candidates(
        x in vec(-3.0f64..3.0, 2..8), hw in vec(0.0f64..2.0, 2..8), zeros in vec(any::<bool>(), 2..8), r in 0.1f64..2.0,
    ) {
        let d = x.len().min(hw.len()).min(zeros.len());
        let x = &x[..d];
        let h: Vec<f64> = (0..d).map(|j| if zeros[j] { 0.0 } else { hw[j] + 0.01 }).collect();
        let mut y = x.to_vec();
        Domain::L2Ball { radius: r }.project_weighted(&mut y, &h).unwrap();
        prop_assert!(norm2(&y) <= r * (1.0 + REL));
        let dist = norm_w(&sub(x, &y), &h);
        let mut euclid = x.to_vec();
        Domain::L2Ball { radius: r }.project(&mut euclid);
        let mut zeroed: Vec<f64> = x.iter().zip(&h).map(|(v, w)| if *w == 0.0 { 0.0 } else { *v }).collect();
        Domain::L2Ball { radius: r }.project(&mut zeroed);
        for c in [euclid, zeroed] {
            prop_assert!(dist <= norm_w(&sub(x, &c), &h) * (1.0 + 1e-9) + 1e-12, "{:?} beats {:?}", c, y);
        }
    }
}

/// The Euclidean ellipsoid projection's doc promises `‖y‖_A ≤ 1` "as evaluated" (by keeping the
/// upper end of the λ bracket), but it evaluates with `φ`, while `project_ellipsoid` itself
/// tests membership with `norm_diag_mahalanobis`; by that evaluation the result can exceed 1 by
/// an ulp, so a second projection moves it (P3 fails bit for bit). Harmless for privacy (the
/// excess is 2.2e-16 of the sensitivity), but the documented guarantee does not hold.
/// Failing input: `x = (1, −5, 5)`, `a = (4, 7, 9)`: `‖π(x)‖_A = 1.0000000000000002`.
#[test]
fn prop_ellipsoid_euclidean_projection_is_feasible_as_evaluated() {
    let (x, a) = ([1.0, -5.0, 5.0], [4.0, 7.0, 9.0]);
    let y = projected(&x, &a, EllipsoidProjection::Euclidean);
    let n = dpref::linalg::norm_diag_mahalanobis(&y, &a);
    assert!(n <= 1.0, "‖π(x)‖_A = {n:e} > 1");
    assert_eq!(bits(&projected(&y, &a, EllipsoidProjection::Euclidean)), bits(&y));
}

/// `project_l1_ball` computes θ = (Σ_{top k}|xⱼ| − r)/k and then |xⱼ| − θ: the subtraction
/// cancels, so the result is accurate to ulps of ‖x‖₁, not of r, and can leave the ball by more
/// than the relative 1e-12 that `Domain::contains` allows. Failing input: `x = (10000)`,
/// `r = 0.01` gives `y = (0.010000000000218279)`, 2e-11 relative outside.
#[test]
fn prop_l1_ball_projection_is_feasible() {
    let (x, r) = (vec![10_000.0], 0.01);
    let mut y = x.clone();
    Domain::L1Ball { radius: r }.project(&mut y);
    assert!(Domain::L1Ball { radius: r }.contains(&y), "‖y‖₁ = {:e} vs r = {r}", norm1(&y));
    assert!(dpref::linalg::norm_l1(&y) <= r);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// The class: for x over twelve decades of scale and r down to 1e-8·‖x‖₁, the projection is
    /// inside the ball as `norm_l1` evaluates it (no tolerance), keeps the signs of x, and is a
    /// soft-thresholding: every kept coordinate is shrunk by the same θ up to ulps of ‖x‖₁ (the
    /// optimality condition), and every dropped one has |xⱼ| ≤ θ.
    #[test]
    fn prop_l1_ball_projection_is_feasible_as_evaluated(
        x in proptest::collection::vec(-1.0f64..1.0, 1..40), scale_exp in -6.0f64..6.0, frac_exp in -8.0f64..-0.01,
    ) {
        let x: Vec<f64> = x.iter().map(|v| v * 10f64.powf(scale_exp)).collect();
        let n1 = dpref::linalg::norm_l1(&x);
        prop_assume!(n1 > 0.0);
        let r = n1 * 10f64.powf(frac_exp);
        let mut y = x.clone();
        project_l1_ball(&mut y, r);
        prop_assert!(dpref::linalg::norm_l1(&y) <= r, "‖y‖₁ = {:e} > r = {:e}", dpref::linalg::norm_l1(&y), r);
        let slack = 64.0 * f64::EPSILON * n1;
        let shrink: Vec<f64> = x.iter().zip(&y).filter(|(_, b)| **b != 0.0).map(|(a, b)| a.abs() - b.abs()).collect();
        let theta = shrink.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        for (a, b) in x.iter().zip(&y) {
            prop_assert!(*b == 0.0 || a.signum() == b.signum());
            if *b == 0.0 { prop_assert!(a.abs() <= theta + slack || shrink.is_empty()); }
        }
        for s in &shrink { prop_assert!((s - theta).abs() <= slack, "shrinks {:?}", shrink); }
        // and nearly all of r is used: the projection lies on the sphere, up to ulps of ‖x‖₁
        prop_assert!(dpref::linalg::norm_l1(&y) >= r - slack * x.len() as f64);
    }
}

/// Huge inputs (|xⱼ|√aⱼ ≥ 1.3e154 overflowed the naive ‖x‖_A to ∞): both ellipsoid projections
/// return a feasible, non-zero point in finite time (the Euclidean one looped forever on
/// x = (1e200), a = (1)).
#[test]
fn ellipsoid_projection_of_huge_inputs_terminates_feasibly() {
    for kind in [EllipsoidProjection::Radial, EllipsoidProjection::Euclidean] {
        for (x, a) in [(vec![1e200], vec![1.0]), (vec![1e300, -1e300, 3.0], vec![1.0, 4.0, 0.5])] {
            let y = projected(&x, &a, kind);
            let n = dpref::linalg::norm_diag_mahalanobis(&y, &a);
            assert!(n <= 1.0 && n > 0.5, "{kind:?} {x:?}: ‖y‖_A = {n}");
        }
    }
}

/// The zero-weight branch of the weighted l2 projection ends and is feasible even when the
/// weighted coordinates alone already sit on the sphere (x_P of norm exactly r, so Z gets no
/// room and any rounding of ‖x_P‖ must be absorbed by the weighted coordinates). A shrink that
/// only moved Z would loop forever if `norm_l2` put x_P an ulp outside; these inputs are a guard
/// on that branch (whether they hit the rounding depends on faer's norm, so it is not claimed
/// that the Z-only loop failed on them).
#[test]
fn weighted_l2_projection_zero_weights_on_the_sphere_terminates_feasibly() {
    for r in [1.0, 0.1, 3.0, 1e-7, 7.3e5] {
        for (p1, p2) in [(0.6, 0.8), (1.0 / 3f64.sqrt(), (2.0f64 / 3.0).sqrt()), (0.28, 0.96)] {
            let mut y = vec![p1 * r, p2 * r, 5.0 * r];
            Domain::L2Ball { radius: r }.project_weighted(&mut y, &[1.0, 2.0, 0.0]).unwrap();
            assert!(dpref::linalg::norm_l2(&y) <= r, "{y:?}");
            assert!(y[2].abs() <= 1e-6 * r, "{y:?}");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    /// The simplex projection lands on the simplex (non-negative, summing to 1 to REL·scale) and
    /// satisfies the variational inequality `⟨x − y, e_j − y⟩ ≤ 0` at every vertex e_j (which, the
    /// simplex being their hull, characterises the Euclidean projection). A projection that
    /// renormalises instead of thresholding (y = max(x, 0)/Σ) violates the inequality for
    /// x = (3, 1, 0) by 0.25.
    #[test]
    fn prop_simplex_projection_is_feasible_and_optimal(x in vec(-1e4f64..1e4, 1..8)) {
        let mut y = x.clone();
        Domain::Simplex.project(&mut y);
        let scale = 1.0 + x.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        prop_assert!(y.iter().all(|v| *v >= 0.0));
        prop_assert!((y.iter().sum::<f64>() - 1.0).abs() <= REL * scale, "{y:?}");
        for j in 0..x.len() {
            let inner: f64 = (0..x.len()).map(|i| (x[i] - y[i]) * (f64::from(u8::from(i == j)) - y[i])).sum();
            prop_assert!(inner <= REL * scale * scale, "vertex {j}: {inner}");
        }
    }
}

#[test]
fn simplex_projection_by_hand() {
    // x = (3, 1, 0): θ = (3 − 1)/1 = 2 keeps only the first coordinate: y = e_1.
    let mut y = vec![3.0, 1.0, 0.0];
    Domain::Simplex.project(&mut y);
    assert_eq!(y, vec![1.0, 0.0, 0.0]);
    // x = (0.5, 0.5, 0.5): θ = (1.5 − 1)/3 = 1/6, y = (1/3, 1/3, 1/3).
    let mut y = vec![0.5; 3];
    Domain::Simplex.project(&mut y);
    for v in &y {
        assert!((v - 1.0 / 3.0).abs() < 1e-15);
    }
    assert_eq!(Domain::parse("simplex").unwrap(), Domain::Simplex);
    assert!(Domain::Simplex.contains(&[0.25, 0.75]) && !Domain::Simplex.contains(&[0.5, 0.6]));
}

/// A per-example term whose norm is not finite clips to the zero vector (a point of every clip
/// set) with a finite clip, and is left alone without one: `C/∞ = 0` times an ∞ coordinate
/// would give NaN, and the radial ellipsoid projection once looped forever on NaN.
#[test]
fn non_finite_terms_clip_to_zero() {
    for x in [[f64::INFINITY, 1.0], [f64::NAN, 0.0], [f64::MAX, f64::MAX]] {
        let mut y = x;
        assert_eq!(clip_l2(&mut y, 1.0), 0.0);
        assert_eq!(y, [0.0, 0.0], "{x:?}");
        for kind in [EllipsoidProjection::Radial, EllipsoidProjection::Euclidean] {
            let mut y = x;
            project_ellipsoid(&mut y, &[1.0, 4.0], kind);
            assert_eq!(y, [0.0, 0.0], "{x:?} {kind:?}");
        }
    }
    let mut y = [f64::INFINITY, 1.0];
    assert_eq!(clip_l2(&mut y, f64::INFINITY), 1.0);
    assert_eq!(y, [f64::INFINITY, 1.0], "no clip, no change");
    assert_eq!(dpref::geometry::clip_scale(f64::NAN, 2.0), 0.0);
    // A subnormal factor C/‖x‖ rounds by up to 100 %: ‖x‖ = 1e307 at C = 3.46e-17 once clipped
    // to 1.43·C. Such a term now contributes 0; a factor just above the normal range is kept.
    let mut y = [1e307];
    assert_eq!((clip_l2(&mut y, 3.46e-17), y), (0.0, [0.0]));
    let mut y = [1e300];
    let f = clip_l2(&mut y, 1e-5);
    assert!(f > 0.0 && y[0] <= 1e-5 * (1.0 + 4.0 * f64::EPSILON), "{f} {y:?}");
    // Sums of squares that underflow give no factor (the term is skipped).
    use dpref::geometry::clip_scale_of_squared;
    assert_eq!(clip_scale_of_squared(1e300, 0.0, 1.0), 0.0);
    assert_eq!(clip_scale_of_squared(1e300, 1e-291, 1.0), 0.0);
    assert_eq!(clip_scale_of_squared(2.0, 1.0, f64::INFINITY), 1.0);
    assert_eq!(clip_scale_of_squared(2.0, 1.0, 1.0), 0.5);
}
