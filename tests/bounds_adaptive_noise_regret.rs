//! Tests of `dpref::bounds::adaptive_noise` ([ADFJT], notes §4 and §6: O6, O8): Lemma B.2 and
//! the pathwise cores of Thm. 6 (R-SGD) and Thm. 7 (R-ADA), including the recorded instance where
//! Thm. 7's printed constant fails (erratum 3).
//!
//! The iterates come from `common::box_adagrad::run_on_box`, a minimal independent
//! implementation of both update rules on a box.
//!
//! Tolerances: a computed inequality `a ≤ b` is accepted when `a ≤ b + 1e-12·scale`, where
//! `scale` is the sum of the absolute values of the terms entering `a` and `b`: at most a few
//! hundred floating-point operations separate the two sides, each with relative error ≤ 2⁻⁵³,
//! so the rounding error is below 1e-13·scale.

mod common;

use common::box_adagrad::{Method, box_run, fixed, gradient_entry, log_uniform, run_on_box, vertices};
use common::check::assert_rel;
use dpref::bounds::adaptive_noise::*;
use proptest::prelude::*;

/// `Σₖ Σⱼ |ĝⱼᵏ|·|xⱼᵏ − uⱼ|`: the scale of the rounding error of a computed regret.
fn regret_scale(gs: &[Vec<f64>], xs: &[Vec<f64>], u: &[f64]) -> f64 {
    gs.iter().zip(xs).map(|(g, x)| g.iter().zip(x).zip(u).map(|((g, x), u)| (g * (x - u)).abs()).sum::<f64>()).sum()
}

/// Checks (R-SGD) or (R-ADA) for one run at every vertex `u`; returns the largest
/// `regret/bound_corrected` and `regret/bound_printed` seen.
fn check_pathwise_all_vertices(
    method: Method,
    lower: &[f64],
    upper: &[f64],
    xs: &[Vec<f64>],
    gs: &[Vec<f64>],
    alpha: f64,
) -> (f64, f64) {
    let dia = box_diameters(lower, upper, &vec![1.0; lower.len()]).unwrap();
    let (mut worst_corrected, mut worst_printed) = (f64::NEG_INFINITY, f64::NEG_INFINITY);
    for u in vertices(lower, upper) {
        let r = match method {
            Method::AdagradNorm => adagrad_norm_sgd_pathwise_regret(gs, xs, &u, dia.diam_2, alpha).unwrap(),
            Method::Diagonal => diagonal_adagrad_pathwise_regret(gs, xs, &u, dia.diam_inf, alpha).unwrap(),
        };
        let tol = 1e-12 * (regret_scale(gs, xs, &u) + r.bound_corrected + r.bound_printed);
        assert!(r.regret <= r.bound_corrected + tol, "{method:?}: corrected bound fails at u = {u:?}: {r:?}");
        if method == Method::AdagradNorm {
            // Thm. 6 as printed holds pathwise, and Lemma B.2 puts it below the corrected form.
            assert!(r.regret <= r.bound_printed + tol, "Thm. 6 printed fails at u = {u:?}: {r:?}");
            assert!(r.bound_printed <= r.bound_corrected + tol, "Lemma B.2 step fails: {r:?}");
        }
        if r.bound_corrected > 0.0 {
            worst_corrected = worst_corrected.max(r.regret / r.bound_corrected);
            worst_printed = worst_printed.max(r.regret / r.bound_printed);
        }
    }
    (worst_corrected, worst_printed)
}

// ---------------------------------------------------------------------------------------------
// O8: Lemma B.2
// ---------------------------------------------------------------------------------------------

/// Runs `method` on the box from `x0` with step scale `alpha` on the fixed gradients `gs`, and
/// checks its pathwise bounds at every vertex.
fn check_fixed_run_all_vertices(method: Method, lower: &[f64], upper: &[f64], x0: &[f64], alpha: f64, gs: &[Vec<f64>]) {
    let (xs, gs) = run_on_box(method, lower, upper, x0, alpha, gs.len(), fixed(gs));
    check_pathwise_all_vertices(method, lower, upper, &xs, &gs, alpha);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Lemma B.2 on random sequences (zeros and 12 orders of magnitude included): the returned
    /// sides are the formula's (naive recomputation) and `lhs ≤ rhs`.
    #[test]
    fn prop_lemma_b2_holds_on_random_sequences(a in prop::collection::vec(gradient_entry(), 1..60)) {
        let s = lemma_b2_sides(&a).unwrap();
        let (mut cum, mut lhs) = (0.0f64, 0.0f64);
        for v in &a {
            cum += v * v;
            if cum > 0.0 { lhs += v * v / cum.sqrt(); }
        }
        prop_assert!((s.lhs - lhs).abs() <= 1e-12 * lhs.max(1e-300), "{} vs {}", s.lhs, lhs);
        prop_assert!((s.rhs - 2.0 * cum.sqrt()).abs() <= 1e-12 * s.rhs.max(1e-300));
        prop_assert!(s.lhs <= s.rhs * (1.0 + 1e-12));
    }
}

/// Lemma B.2 on adversarial sequences, where the constant 2 is nearly attained: for
/// `a = (1, …, 1)` the ratio `lhs/rhs = Σ k^{−1/2}/(2√n) → 1` (0.99927 at n = 10⁶, since
/// `Σ_{k≤n} k^{−1/2} = 2√n + ζ(1/2) + O(n^{−1/2})`), and for increments `a_k² = k^q − (k−1)^q`
/// with `q` near 0 it is also close to 1. A single spike gives `1/2`; a huge last term after a
/// long tail gives about `1/2`. Mutant: the constant 1 instead of 2 fails on all-ones.
#[test]
fn lemma_b2_holds_on_adversarial_sequences() {
    let ones = vec![1.0; 1_000_000];
    let s = lemma_b2_sides(&ones).unwrap();
    let zeta_half = -1.460_354_508_809_586_8;
    let n = 1e6f64;
    assert!(s.lhs <= s.rhs);
    // Euler–Maclaurin: Σ_{k≤n} k^{−1/2} = 2√n + ζ(1/2) + 1/(2√n) − O(n^{−3/2}); the summation
    // error of 10⁶ rounded terms of size ≤ 1 is below 10⁶·2⁻⁵³·2000 ≈ 2e-7 absolute, 1e-10 relative
    assert_rel(s.lhs, 2.0 * n.sqrt() + zeta_half + 0.5 / n.sqrt(), 1e-9, "sum k^-1/2");
    assert!(s.lhs / s.rhs > 0.999);
    assert!(s.lhs > s.rhs / 2.0, "mutant (constant 1) passes");
    for q in [0.01, 0.1, 0.5, 1.0, 2.0, 5.0] {
        let a: Vec<f64> = (1..=2000).map(|k: i32| ((k as f64).powf(q) - ((k - 1) as f64).powf(q)).sqrt()).collect();
        let s = lemma_b2_sides(&a).unwrap();
        assert!(s.lhs <= s.rhs * (1.0 + 1e-12), "q = {q}: {s:?}");
    }
    let spike = lemma_b2_sides(&[0.0, 0.0, 7.0, 0.0]).unwrap();
    assert_eq!((spike.lhs, spike.rhs), (7.0, 14.0));
    let mut tail = vec![1e-3; 10_000];
    tail.push(1e6);
    let s = lemma_b2_sides(&tail).unwrap();
    assert!(s.lhs <= s.rhs && s.lhs / s.rhs > 0.49);
}

// ---------------------------------------------------------------------------------------------
// O6: pathwise regret (Thms. 6 and 7)
// ---------------------------------------------------------------------------------------------

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    /// (R-SGD) with the corrected constant, Thm. 6 as printed (pathwise), and
    /// `printed ≤ corrected` (Lemma B.2), for random boxes, starts, gradient sequences and step
    /// scales `α ∈ [0.1, 10]·D₂`, at every vertex u. Mutant: the coefficient `D²/(2α)` alone
    /// (dropping `+α`) fails in `r_sgd_and_r_ada_bounds_hold_in_exhaustive_searches`.
    #[test]
    fn prop_r_sgd_bounds_hold_for_random_sequences_at_every_vertex(
        (lower, upper, x0, gs) in box_run(), factor in log_uniform(0.1, 10.0),
    ) {
        let d2 = box_diameters(&lower, &upper, &vec![1.0; lower.len()]).unwrap().diam_2;
        check_fixed_run_all_vertices(Method::AdagradNorm, &lower, &upper, &x0, factor * d2, &gs);
    }

    /// (R-ADA) with the corrected constant, for random boxes, starts, gradient sequences and
    /// `α ∈ [0.1, 10]·D∞`, at every vertex u.
    #[test]
    fn prop_r_ada_corrected_bound_holds_for_random_sequences_at_every_vertex(
        (lower, upper, x0, gs) in box_run(), factor in log_uniform(0.1, 10.0),
    ) {
        let dinf = box_diameters(&lower, &upper, &vec![1.0; lower.len()]).unwrap().diam_inf;
        check_fixed_run_all_vertices(Method::Diagonal, &lower, &upper, &x0, factor * dinf, &gs);
    }

    /// Both corrected bounds against an adaptive adversary that sees `xᵏ` and plays
    /// `ĝⱼᵏ = mₖ·sign(xⱼᵏ − uⱼ)` toward a target vertex u (each term of the regret at u as large
    /// as the magnitude allows), with heavy-tailed magnitudes `mₖ = 10^{eₖ}`, `eₖ ∈ [−3, 3]`;
    /// checked at every vertex, at `α = D` (the theorems' choice).
    #[test]
    fn prop_r_sgd_and_r_ada_hold_against_an_adaptive_adversary(
        (lower, upper, x0, _gs) in box_run(), target in 0usize..8,
        exps in prop::collection::vec(-3.0f64..3.0, 1..40),
    ) {
        let vs = vertices(&lower, &upper);
        let u = vs[target % vs.len()].clone();
        let dia = box_diameters(&lower, &upper, &vec![1.0; lower.len()]).unwrap();
        for (method, alpha) in [(Method::AdagradNorm, dia.diam_2), (Method::Diagonal, dia.diam_inf)] {
            let adversary = |k: usize, x: &[f64]| -> Vec<f64> {
                let m = 10f64.powf(exps[k]);
                x.iter().zip(&u).map(|(x, u)| if x >= u { m } else { -m }).collect()
            };
            let (xs, gs) = run_on_box(method, &lower, &upper, &x0, alpha, exps.len(), adversary);
            check_pathwise_all_vertices(method, &lower, &upper, &xs, &gs, alpha);
        }
    }
}

/// The instance where the printed constant of [ADFJT] Thm. 7 fails (erratum 3), found by the
/// exhaustive search of `r_sgd_and_r_ada_bounds_hold_in_exhaustive_searches`:
/// `X = [−1, 1]`, `α = D∞ = 2`, `x⁰ = −1`, `ĝ = (−4, 2, 3, −10)`, `u = +1`. Diagonal AdaGrad
/// visits `x = (−1, 1, 1 − 4/√20, −1)` (the fourth step is clamped), so
///
/// ```text
/// regret    = 8 + 0 − 3·4/√20 + 20 = 28 − 6/√5 = 25.316718
/// printed   = D∞·√129           = 2√129       = 22.715633   ratio 1.114506 > 1
/// corrected = (D∞²/(2α) + α)√129 = 3√129       = 34.073450   ratio 0.743004
/// ```
///
/// (the notes report ratio 1.087 from their own search). The ratio grows with T: a continuous
/// local search (not asserted here) reached 1.2376 at T = 40, still below the corrected 3/2.
#[test]
fn thm7_printed_constant_fails_on_recorded_instance() {
    let gs = vec![vec![-4.0], vec![2.0], vec![3.0], vec![-10.0]];
    let (xs, gs) = run_on_box(Method::Diagonal, &[-1.0], &[1.0], &[-1.0], 2.0, 4, fixed(&gs));
    assert_eq!(xs[..2], [vec![-1.0], vec![1.0]]);
    assert_rel(xs[2][0], 1.0 - 4.0 / 20f64.sqrt(), 1e-15, "x^2");
    assert_eq!(xs[3], vec![-1.0]);
    let r = diagonal_adagrad_pathwise_regret(&gs, &xs, &[1.0], 2.0, 2.0).unwrap();
    assert_rel(r.regret, 28.0 - 6.0 / 5f64.sqrt(), 1e-14, "regret");
    assert_rel(r.bound_printed, 2.0 * 129f64.sqrt(), 1e-15, "printed");
    assert_rel(r.bound_corrected, 3.0 * 129f64.sqrt(), 1e-15, "corrected");
    assert!(r.regret / r.bound_printed > 1.1145, "printed holds: {r:?}");
    assert!(r.regret <= r.bound_corrected);
}

/// Exhaustive adversarial searches (O6).
///
/// (R-ADA), d = 1: every `ĝ ∈ {±1, …, ±10}⁴` from `x⁰ ∈ {−1, 0, 1}` on `[−1, 1]` with
/// `α = D∞ = 2`, both vertices: the corrected bound always holds and the printed Thm. 7 bound
/// fails, worst at the recorded instance (ratio 1.114506). One dimension suffices for (R-ADA) on
/// a box: the update, the regret and the bound all split over coordinates, so a d-dimensional
/// ratio is a weighted mean of one-dimensional ones.
///
/// (R-SGD), d = 2: every `ĝ ∈ {0, ±1, ±5}^{2×3}` from three starts on `[−1, 1]²` with
/// `α = D₂`, all four vertices: corrected and printed-Thm. 6 bounds hold. In d = 1 (R-SGD) and
/// (R-ADA) coincide, so the printed Thm. 7 instance also shows that the coefficient must exceed
/// `D` at `α = D` for (R-SGD). Mutant: the coefficient `D²/(2α)` without `+α` (i.e. `D/2` at
/// `α = D`) fails on the recorded instance (ratio 2.23).
#[test]
fn r_sgd_and_r_ada_bounds_hold_in_exhaustive_searches() {
    let vals: Vec<f64> = (1..=10).flat_map(|m| [m as f64, -(m as f64)]).collect();
    let (mut worst_corrected, mut worst_printed) = (0.0f64, 0.0f64);
    for x0 in [-1.0, 0.0, 1.0] {
        for a in &vals {
            for b in &vals {
                for c in &vals {
                    for e in &vals {
                        let gs = vec![vec![*a], vec![*b], vec![*c], vec![*e]];
                        let (xs, gs) = run_on_box(Method::Diagonal, &[-1.0], &[1.0], &[x0], 2.0, 4, fixed(&gs));
                        let (wc, wp) = check_pathwise_all_vertices(Method::Diagonal, &[-1.0], &[1.0], &xs, &gs, 2.0);
                        worst_corrected = worst_corrected.max(wc);
                        worst_printed = worst_printed.max(wp);
                    }
                }
            }
        }
    }
    assert!(worst_corrected <= 1.0);
    let recorded = (28.0 - 6.0 / 5f64.sqrt()) / (2.0 * 129f64.sqrt());
    assert_rel(worst_printed, recorded, 1e-12, "worst printed ratio is the recorded instance");
    assert!(recorded > 1.1145);
    let half_d_mutant = (28.0 - 6.0 / 5f64.sqrt()) / (1.0 * 129f64.sqrt());
    assert!(half_d_mutant > 2.2);

    let vals2 = [0.0, 1.0, -1.0, 5.0, -5.0];
    let grads: Vec<Vec<f64>> = vals2.iter().flat_map(|a| vals2.iter().map(move |b| vec![*a, *b])).collect();
    let (lower, upper) = ([-1.0, -1.0], [1.0, 1.0]);
    let mut worst = 0.0f64;
    for x0 in [[-1.0, -1.0], [0.0, 0.0], [1.0, -0.5]] {
        for g0 in &grads {
            for g1 in &grads {
                for g2 in &grads {
                    let gs = vec![g0.clone(), g1.clone(), g2.clone()];
                    let (xs, gs) = run_on_box(Method::AdagradNorm, &lower, &upper, &x0, 8f64.sqrt(), 3, fixed(&gs));
                    worst = worst
                        .max(check_pathwise_all_vertices(Method::AdagradNorm, &lower, &upper, &xs, &gs, 8f64.sqrt()).0);
                }
            }
        }
    }
    assert!(worst <= 1.0 && worst > 0.3, "worst (R-SGD) ratio {worst}");
}
