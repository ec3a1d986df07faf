//! The shared geometric steps at inputs of extreme scale: each case here hung, returned an
//! infeasible or NaN point, or stopped far from the projection before the fixes of 2026-11-27
//! (a black-box sweep over scales 1e-320..1e308 found them). A hang is turned into a failure by
//! a watchdog thread (30 s; every case returns in milliseconds).
//!
//! What failed before, per test (each checked against the old code):
//! - `l1_ball_radius_below_half_an_ulp`: hung (θ stayed 0: u₀ − r rounded to u₀);
//! - `l1_ball_with_a_nan_entry_returns`: hung (NaN compares false);
//! - `simplex_of_huge_and_negative_entries`: returned (1e20, 0) (sum 1e20) and (0, 0, 0);
//! - `euclidean_ellipsoid_bracket_overflow_and_underflow`: both hung (∞ never halves, 0 never doubles);
//! - `euclidean_ellipsoid_ill_conditioned_reaches_the_boundary`: ‖y‖_A = 0.0337 and y = 0
//!   (200 halvings could not close the bracket);
//! - `weighted_l2_projection_*`: hung, returned ‖y‖ = 1.6e-162 > r = 1e-180, NaN, or
//!   ‖y‖ = 1.34e154 for r = 1e199;
//! - `linf_projection_onto_l2_ball_*`: hung; t = 1e200 (x̂ = 0) for t* = 2.93e199;
//! - `lp_ball_projection_at_extreme_scales`: returned 0 where the projection is (1, 0);
//! - `lp_ball_projection_onto_a_tiny_ball_returns`: not the old code's failure but the first fix's
//!   (a raised halving cap made this input run for minutes);
//! - `exponentiated_gradient_overflow_is_refused`: returned Ok([NaN, NaN]);
//! - `euclidean_ellipsoid_ill_conditioned_reaches_the_boundary` also: x = (1e300, 0) gave
//!   (5.6e-9, 0) for (1, 0) (a bisection midpoint overflowed).

use dpref::geometry::mirror::{exponentiated_gradient_step, project_lp_ball};
use dpref::geometry::{Domain, EllipsoidProjection, project_ellipsoid, project_l1_ball, project_simplex};
use dpref::linalg::{norm_diag_mahalanobis, norm_l1, norm_l2, norm_lp};

mod common;
use common::check::assert_rel;

/// [`common::check::returns_within`] at this file's 30 s.
fn returns<T: Send + 'static>(what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    common::check::returns_within(30, what, f)
}

#[test]
fn l1_ball_radius_below_half_an_ulp() {
    for (x, r) in [(vec![1e12, 2e12], 1e-5), (vec![1e16, 2e16], 1.0)] {
        let norm = norm_l1(&x);
        let y = returns("l1 ball", move || {
            let mut y = x.clone();
            project_l1_ball(&mut y, r);
            y
        });
        assert!(norm_l1(&y) <= r, "infeasible: {y:?}");
        // the documented accuracy: ulps of ‖x‖₁ (the projection is (0, r))
        assert!(y[0].abs() <= 4.0 * f64::EPSILON * norm && (y[1] - r).abs() <= 4.0 * f64::EPSILON * norm);
    }
}

#[test]
fn l1_ball_with_a_nan_entry_returns() {
    let y = returns("l1 ball NaN", || {
        let mut y = vec![f64::NAN, 1.0];
        Domain::L1Ball { radius: 1.0 }.project(&mut y);
        y
    });
    assert!(y[0].is_nan() && y[1] == 1.0, "left as it is for the caller's check: {y:?}");
    let err = returns("l-inf l1 ball NaN", || Domain::L1Ball { radius: 1.0 }.project_linf(&mut [f64::NAN, 1.0]));
    assert!(err.is_err());
}

#[test]
fn simplex_of_huge_and_negative_entries() {
    let cases: [(Vec<f64>, Vec<f64>); 4] = [
        (vec![1e20, 0.0], vec![1.0, 0.0]),
        (vec![-1e17; 3], vec![1.0 / 3.0; 3]),
        (vec![-15.966239270109027], vec![1.0]),
        (vec![1e300, 1e300 - 1e284, -1e300], vec![1.0, 0.0, 0.0]),
    ];
    for (x, expected) in cases {
        let mut y = x.clone();
        project_simplex(&mut y);
        let sum: f64 = y.iter().sum();
        assert!(y.iter().all(|v| *v >= 0.0) && (sum - 1.0).abs() <= 4.0 * f64::EPSILON, "{x:?} -> {y:?}");
        for (a, b) in y.iter().zip(&expected) {
            assert!((a - b).abs() <= 4.0 * f64::EPSILON, "{x:?} -> {y:?}, expected {expected:?}");
        }
    }
}

#[test]
fn euclidean_ellipsoid_bracket_overflow_and_underflow() {
    // d = 1: the projection is sign(x)/√a
    for (x, a) in [(1e299, 1e-20), (7.45834073120021e-155, f64::MAX)] {
        let y = returns("euclidean ellipsoid", move || {
            let mut y = vec![x];
            project_ellipsoid(&mut y, &[a], EllipsoidProjection::Euclidean);
            y
        });
        assert!(norm_diag_mahalanobis(&y, &[a]) <= 1.0);
        assert_rel(y[0], 1.0 / a.sqrt(), 1e-12, &format!("x = {x:e}, a = {a:e}"));
    }
}

#[test]
fn euclidean_ellipsoid_ill_conditioned_reaches_the_boundary() {
    // a point outside projects onto the boundary ‖y‖_A = 1
    let cases = [
        (vec![5.82868238278118, -14.652875455456229], vec![1e-60, 46.48276243376697]),
        (vec![1e304, 1.0], vec![1e-10, 1.0]),
        (vec![1e300, 0.0], vec![1.0, 1e-10]),
    ];
    for (x, a) in cases {
        let mut y = x.clone();
        project_ellipsoid(&mut y, &a, EllipsoidProjection::Euclidean);
        let norm = norm_diag_mahalanobis(&y, &a);
        assert!((1.0 - 1e-12..=1.0).contains(&norm), "{x:?}, a = {a:?}: ‖y‖_A = {norm}");
    }
    // the projection itself where it is known: x on an axis projects to the axis' end point (1, 0)
    // (the bracket [1e300, f64::MAX] read its midpoint as ∞ and stopped: y = (5.6e-9, 0))
    let mut y = vec![1e300, 0.0];
    project_ellipsoid(&mut y, &[1.0, 1e-10], EllipsoidProjection::Euclidean);
    assert_rel(y[0], 1.0, 1e-12, "first coordinate");
    assert_eq!(y[1], 0.0);
}

#[test]
fn weighted_l2_projection_at_extreme_radii() {
    // (radius, x, h, the projection's norm: r, the ball being active)
    let cases = [
        (1e-250, vec![1e-200, 0.0], vec![1.0, 0.0]),
        (1e-180, vec![0.9122939998160795], vec![1.0]),
        (
            6.555156106029227e-159,
            vec![-0.002341718460935756, -0.002341718460935756, 0.002341718460935756],
            vec![0.08651525592362361, 0.027667729209792328, 0.3464345840955177],
        ),
        (1.0, vec![1e200, 1.0], vec![1e200, 1.0]),
        (1e199, vec![1e200, 3e199], vec![1.0, 2.0]),
    ];
    for (radius, x, h) in cases {
        let (xs, hs) = (x.clone(), h.clone());
        let y = returns("weighted l2", move || {
            let mut y = x.clone();
            Domain::L2Ball { radius }.project_weighted(&mut y, &h).map(|()| y)
        })
        .expect("valid input");
        let norm = norm_l2(&y);
        assert!((radius * (1.0 - 1e-9)..=radius).contains(&norm), "r = {radius:e}: {y:?} (‖y‖ = {norm:e})");
        // optimality (KKT): yⱼ = hⱼxⱼ/(hⱼ + μ) with one μ ≥ 0, i.e. μ = hⱼ(xⱼ/yⱼ − 1) for every j with
        // xⱼ ≠ 0 and hⱼ > 0 (a radial or otherwise wrong point gives different μⱼ); not checkable
        // where μ itself is beyond f64 (h = x = 1e200, r = 1: μ ≈ 1e400)
        let mus: Vec<f64> =
            (0..xs.len()).filter(|&j| xs[j] != 0.0 && hs[j] > 0.0).map(|j| hs[j] * (xs[j] / y[j] - 1.0)).collect();
        if mus.iter().all(|m| m.is_finite()) {
            for m in &mus {
                assert!(*m >= 0.0, "r = {radius:e}: mu = {mus:?}");
                assert_rel(*m, mus[0], 1e-9, &format!("r = {radius:e}: one mu"));
            }
        }
    }
}

#[test]
fn weighted_l2_projection_refuses_non_finite_and_negative_weights() {
    let ball = Domain::L2Ball { radius: 1.0 };
    assert!(ball.project_weighted(&mut [f64::NAN, 2.0], &[1.0, 1.0]).is_err());
    assert!(ball.project_weighted(&mut [3.0, 2.0], &[f64::INFINITY, 1.0]).is_err());
    assert!(ball.project_weighted(&mut [3.0, 2.0], &[-1.0, 1.0]).is_err());
}

#[test]
fn linf_projection_onto_l2_ball_at_extreme_scales() {
    // two equal coordinates: t* = |x|(1 − r/(|x|√2))
    for (v, radius) in [(1e-200, 1e-250), (1e200, 1e200)] {
        let (y, t) = returns("l-inf onto l2", move || {
            let mut y = vec![v, v];
            let t = Domain::L2Ball { radius }.project_linf(&mut y).expect("finite input");
            (y, t)
        });
        let expected = v - radius / std::f64::consts::SQRT_2;
        assert!(norm_l2(&y) <= radius, "infeasible: {y:?}");
        assert_rel(t, expected, 1e-12, &format!("v = {v:e}, r = {radius:e}: t vs t*"));
    }
}

/// A ball tiny against v: the KKT solve walked every t onto the subnormal grid (2200 halvings of
/// slow powf per coordinate; this input ran for over 5 minutes after the halving cap was raised).
/// The radial point is within 2ρ of the projection and is returned.
#[test]
fn lp_ball_projection_onto_a_tiny_ball_returns() {
    let y = returns("lp ball, tiny radius", || {
        let mut v: Vec<f64> = (0..50).map(|i| 1e283 * (((i * 7919) % 97) as f64 / 97.0 - 0.5)).collect();
        project_lp_ball(&mut v, 1.14184117770415, 1.2e-322);
        v
    });
    assert!(norm_lp(&y, 1.14184117770415) <= 1.2e-322, "{y:?}");
}

#[test]
fn lp_ball_projection_at_extreme_scales() {
    let mut y = vec![1e70, 0.0];
    project_lp_ball(&mut y, 1.5, 1.0);
    assert_rel(y[0], 1.0, 1e-12, "first coordinate");
    assert_eq!(y[1], 0.0);
    // points outside project onto the sphere ‖y‖_p = ρ
    let cases = [
        (vec![1e-300, 1e-300], 1.5, 1e-305),
        (vec![18.018747873776373, 7.078414373900043e124, 12.55683484762994], 1.9399851092371578, 5.047748382484954e64),
    ];
    for (x, p, rho) in cases {
        let mut y = x.clone();
        project_lp_ball(&mut y, p, rho);
        let norm = norm_lp(&y, p);
        assert!((rho * (1.0 - 1e-9)..=rho).contains(&norm), "{x:?}, p = {p}: ‖y‖_p = {norm:e}, ρ = {rho:e}");
    }
}

/// ηg = −∞ on the support leaves no finite largest exponent (∞ − ∞ read NaN): refused. ηg = +∞
/// only zeroes its coordinate, a valid step.
#[test]
fn exponentiated_gradient_overflow_is_refused() {
    let mut out = [0.0; 2];
    assert!(exponentiated_gradient_step(&[0.5, 0.5], &[-1e300, 0.0], 1e10, &mut out).is_err());
    assert!(exponentiated_gradient_step(&[0.5, 0.5], &[1e300, 1e300], 1e10, &mut out).is_err());
    exponentiated_gradient_step(&[0.5, 0.5], &[1e10, 0.0], 1e300, &mut out).unwrap();
    assert_eq!(out, [0.0, 1.0]);
}
