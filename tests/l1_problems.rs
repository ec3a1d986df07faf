//! The closed-form test problems of l1 geometry (`dpref::data::l1_problems`): their population
//! losses, optima and gradient bounds, checked against fresh samples.
//!
//! Margins: at a fixed x the per-sample loss is bounded in `[0, M]` (least squares:
//! `M = ½(‖x − x_true‖₁ + s)²`, since `|⟨a, x − x_true⟩| ≤ ‖x − x_true‖₁` for `a ∈ {±1}^d`) or
//! in `[−‖x‖₁, ‖x‖₁]` (linear), so Hoeffding bounds the deviation of a mean of n samples from F
//! by `width·√(ln(2/β)/(2n))`; with β = 1e-7 per check (10 checks per test: false failure ≤ 1e-6).
//! A broken population formula fails: `s²/3` instead of `s²/6` (a gap of 1/6 at s = 1) or `⟨μ, x⟩`
//! without the factor from `P(z = +1) = (1 + μ)/2` (a gap ≥ 0.1 at the points below) exceeds
//! the margins of about 0.01 and 0.02.

use dpref::data::l1_problems::{AbsoluteRegressionL1, HardInstanceL1, LeastSquaresL1, LinearSigns};
use dpref::linalg::norm_l1;
use dpref::loss::Loss;
use dpref::rng::{Seeds, Stream};
use rand::RngExt;

const BETA: f64 = 1e-7;

fn hoeffding(width: f64, n: usize) -> f64 {
    width * ((2.0 / BETA).ln() / (2.0 * n as f64)).sqrt()
}

/// A point with `‖x‖₁ ≤ radius` (uniform direction in each coordinate, scaled into the ball).
fn point_in_ball(d: usize, radius: f64, rng: &mut impl rand::Rng) -> Vec<f64> {
    let x: Vec<f64> = (0..d).map(|_| 2.0 * rng.random::<f64>() - 1.0).collect();
    let scale = radius * rng.random::<f64>() / norm_l1(&x);
    x.iter().map(|v| v * scale).collect()
}

#[test]
fn least_squares_population_loss_matches_fresh_samples() {
    let x_true = vec![0.4, -0.3, 0.0, 0.2, -0.1];
    let s = 1.0;
    let n = 100_000;
    let problem = LeastSquaresL1::generate(n, x_true.clone(), s, &mut Seeds::new(11).stream(Stream::Data)).unwrap();
    let mut rng = Seeds::new(12).stream(Stream::Init);
    for _ in 0..10 {
        let x = point_in_ball(5, 1.5, &mut rng);
        let empirical = Loss::Squared.empirical_risk(&x, &problem.data);
        let dist: f64 = x.iter().zip(&x_true).map(|(a, b)| (a - b).abs()).sum();
        let margin = hoeffding(0.5 * (dist + s) * (dist + s), n);
        let population = problem.population_loss(&x);
        assert!((empirical - population).abs() <= margin, "x {x:?}: {empirical} vs {population} ± {margin}");
    }
}

#[test]
fn least_squares_optimum_is_the_projection_and_beats_every_feasible_point() {
    let x_true = vec![0.9, -0.6, 0.3];
    let problem = LeastSquaresL1::generate(10, x_true, 0.2, &mut Seeds::new(13).stream(Stream::Data)).unwrap();
    let radius = 1.0;
    let opt = problem.optimum(radius);
    assert!(norm_l1(&opt) <= radius * (1.0 + 1e-12));
    // The projection of (0.9, −0.6, 0.3) onto the unit l1 ball, by hand: with all three
    // coordinates active the threshold solves 1.8 − 3τ = 1, τ = 0.8/3 ≈ 0.2667 < 0.3 (so all three
    // stay active): (0.6333, −0.3333, 0.0333).
    let expected = [0.9 - 0.8 / 3.0, -(0.6 - 0.8 / 3.0), 0.3 - 0.8 / 3.0];
    for (a, b) in opt.iter().zip(expected) {
        assert!((a - b).abs() < 1e-12, "{opt:?} vs {expected:?}");
    }
    let f_opt = problem.population_loss(&opt);
    let mut rng = Seeds::new(14).stream(Stream::Init);
    for _ in 0..1000 {
        let y = point_in_ball(3, radius, &mut rng);
        assert!(problem.population_loss(&y) >= f_opt - 1e-12);
    }
}

#[test]
fn least_squares_gradients_respect_the_l1_lipschitz_bound() {
    let x_true = vec![0.5, -0.25, 0.125, 0.0];
    let problem = LeastSquaresL1::generate(500, x_true, 0.3, &mut Seeds::new(15).stream(Stream::Data)).unwrap();
    let radius = 2.0;
    let bound = problem.lipschitz_l1(radius);
    assert_eq!(bound, 2.0 + 0.875 + 0.3);
    let mut rng = Seeds::new(16).stream(Stream::Init);
    let mut g = vec![0.0; 4];
    let mut largest: f64 = 0.0;
    for _ in 0..200 {
        let x = point_in_ball(4, radius, &mut rng);
        for i in 0..problem.data.n() {
            Loss::Squared.gradient(&x, problem.data.row(i), problem.data.label(i), &mut g);
            largest = largest.max(g.iter().fold(0.0_f64, |m, v| m.max(v.abs())));
        }
    }
    assert!(largest <= bound, "{largest} > {bound}");
}

#[test]
fn linear_signs_population_loss_and_optima() {
    let mu = vec![0.3, -0.7, 0.1, 0.5];
    let n = 100_000;
    let problem = LinearSigns::generate(n, mu.clone(), &mut Seeds::new(17).stream(Stream::Data)).unwrap();
    let mut rng = Seeds::new(18).stream(Stream::Init);
    for _ in 0..10 {
        let x = point_in_ball(4, 1.0, &mut rng);
        let empirical = Loss::Linear.empirical_risk(&x, &problem.data);
        let margin = hoeffding(2.0 * norm_l1(&x), n);
        let population = problem.population_loss(&x);
        assert!((empirical - population).abs() <= margin, "{empirical} vs {population} ± {margin}");
    }
    // Over the l1 ball of radius 2: j* = 1 (|μ| = 0.7), x* = +2 e_1, F* = −1.4.
    let (x, f) = problem.optimum_l1_ball(2.0);
    assert_eq!(x, vec![0.0, 2.0, 0.0, 0.0]);
    assert!((f + 1.4).abs() < 1e-15 && (problem.population_loss(&x) - f).abs() < 1e-15);
    // Over the simplex: e_1, F* = −0.7.
    let (x, f) = problem.optimum_simplex();
    assert_eq!((x, f), (vec![0.0, 1.0, 0.0, 0.0], -0.7));
}

#[test]
fn generators_refuse_bad_input() {
    let mut rng = Seeds::new(19).stream(Stream::Data);
    assert!(LeastSquaresL1::generate(0, vec![1.0], 0.1, &mut rng).is_err());
    assert!(LeastSquaresL1::generate(5, vec![], 0.1, &mut rng).is_err());
    assert!(LeastSquaresL1::generate(5, vec![f64::NAN], 0.1, &mut rng).is_err());
    assert!(LeastSquaresL1::generate(5, vec![1.0], -0.1, &mut rng).is_err());
    assert!(LinearSigns::generate(5, vec![1.5], &mut rng).is_err());
    assert!(LinearSigns::generate(5, vec![f64::NAN], &mut rng).is_err());
    assert!(LinearSigns::generate(0, vec![0.5], &mut rng).is_err());
    assert!(LinearSigns::generate(5, vec![], &mut rng).is_err());
}

/// \[AFKT\] Theorem 10's instance (L = 2, D = 1, d = 5, a = 0.2, μ = (0.6, −0.4, 0, 0.9, −1)):
/// `F(x) = L Σ_j [p_j|x_j − a| + (1 − p_j)|x_j + a|]` against the mean loss of n = 100 000 fresh
/// samples at 10 points of the ball of radius 1.5 (each loss in `[0, L(‖x‖₁ + D)]`, Hoeffding
/// margin ≈ 0.024); on the box `|x_j| ≤ a` it equals the hand-derived `L Σ_j (a − x_j μ_j)`
/// (exactly, to rounding). Power: reading `P(z_j = +a)` as μ_j instead of (1 + μ_j)/2 moves F by
/// more than the margin at some point (asserted).
#[test]
fn hard_instance_population_loss_matches_fresh_samples_and_the_box_formula() {
    let (l, radius, n) = (2.0, 1.0, 100_000);
    let mu = vec![0.6, -0.4, 0.0, 0.9, -1.0];
    let a = radius / mu.len() as f64;
    let problem = HardInstanceL1::generate(n, mu.clone(), radius, l, &mut Seeds::new(21).stream(Stream::Data)).unwrap();
    assert_eq!(problem.half_width(), a);
    let mut rng = Seeds::new(22).stream(Stream::Init);
    let mut power = 0.0f64;
    for _ in 0..10 {
        let x = point_in_ball(5, 1.5, &mut rng);
        let margin = hoeffding(l * (norm_l1(&x) + radius), n);
        let (empirical, population) = (problem.empirical_loss(&x), problem.population_loss(&x));
        assert!((empirical - population).abs() <= margin, "x {x:?}: {empirical} vs {population} ± {margin}");
        let broken: f64 = l * x
            .iter()
            .zip(&mu)
            .map(|(xj, m)| m.abs() * (xj - a * m.signum()).abs() + (1.0 - m.abs()) * (xj + a * m.signum()).abs())
            .sum::<f64>();
        power = power.max((broken - empirical).abs() - margin);
    }
    assert!(power > 0.0, "the broken law is not rejected");
    for _ in 0..10 {
        let x: Vec<f64> = (0..5).map(|_| a * (2.0 * rng.random::<f64>() - 1.0)).collect();
        let box_formula: f64 = l * x.iter().zip(&mu).map(|(xj, m)| a - xj * m).sum::<f64>();
        assert!((problem.population_loss(&x) - box_formula).abs() <= 1e-14, "{x:?}");
    }
}

/// Theorem 10's optima and oracle: `x* = a·sign(μ)` is in the ball, `F(x*) = F* = L Σ a(1 − |μ_j|)`
/// (by hand: 2·0.2·(0.4 + 0.6 + 1 + 0.1 + 0) = 0.84) and no feasible point does better; the
/// empirical optimum `a·sign(z̄)` attains `F̂* = L Σ (a − |z̄_j|)` and beats every feasible point; the
/// key inequality of the proof, `F̂(x) − F̂* ≥ L Σ_j |z̄_j| 1{sign(x_j) ≠ sign(z̄_j)}`, holds at random
/// points; the subgradient satisfies `f(y) ≥ f(x) + ⟨g, y − x⟩` with `‖g‖_∞ ≤ L` (a gradient with
/// the wrong sign fails it).
#[test]
fn hard_instance_optima_key_inequality_and_subgradient() {
    let (l, radius) = (2.0, 1.0);
    let mu = vec![0.6, -0.4, 0.0, 0.9, -1.0];
    let problem = HardInstanceL1::generate(40, mu, radius, l, &mut Seeds::new(23).stream(Stream::Data)).unwrap();
    let (x_star, f_star) = problem.optimum();
    assert!((f_star - 0.84).abs() < 1e-12, "{f_star}");
    assert!(norm_l1(&x_star) <= radius * (1.0 + 1e-12));
    assert!((problem.population_loss(&x_star) - f_star).abs() < 1e-12);
    let (x_hat, f_hat_star) = problem.empirical_optimum();
    assert!(norm_l1(&x_hat) <= radius * (1.0 + 1e-12));
    assert!((problem.empirical_loss(&x_hat) - f_hat_star).abs() < 1e-12);
    let mut z_bar = [0.0; 5];
    for z in &problem.samples {
        for (m, zj) in z_bar.iter_mut().zip(z) {
            *m += zj / 40.0;
        }
    }
    let mut rng = Seeds::new(24).stream(Stream::Init);
    let (mut g, mut out) = (vec![0.0; 5], 0usize);
    for _ in 0..200 {
        let x = point_in_ball(5, radius, &mut rng);
        assert!(problem.population_loss(&x) >= f_star - 1e-12);
        let excess = problem.empirical_loss(&x) - f_hat_star;
        assert!(excess >= -1e-12);
        let key: f64 = l * z_bar
            .iter()
            .zip(&x)
            .filter(|(m, xj)| xj.signum() != m.signum() || **xj == 0.0)
            .map(|(m, _)| m.abs())
            .sum::<f64>();
        assert!(excess >= key - 1e-12, "{excess} < {key} at {x:?}");
        // the subgradient of f(.; z_1) at x
        let z = &problem.samples[0];
        problem.subgradient(&x, z, &mut g);
        assert!(g.iter().all(|v| v.abs() <= l));
        let y = point_in_ball(5, radius, &mut rng);
        let lin: f64 = g.iter().zip(y.iter().zip(&x)).map(|(gj, (yj, xj))| gj * (yj - xj)).sum();
        assert!(problem.loss(&y, z) >= problem.loss(&x, z) + lin - 1e-12);
        if problem.loss(&y, z) < problem.loss(&x, z) - lin - 1e-12 {
            out += 1; // −g violates the inequality here
        }
    }
    assert!(out > 0, "a subgradient of the wrong sign is never caught");
}

/// Non-smooth l1 regression (d = 4, s = 0.5): the exact population loss (2^d sign vectors) against
/// n = 100 000 fresh samples at 10 points (loss in `[0, ‖x − x_true‖₁ + s]`, Hoeffding margin
/// ≈ 0.02); `F(x_true) = s/2 = F*` and no point does better; d > 20 is refused. Power: dropping the
/// noise term (`g(u) = |u|`) gives F(x_true) = 0 ≠ s/2 (the optimum check fails), and at the points
/// below it differs from the samples by more than the margin (asserted).
#[test]
fn absolute_regression_population_loss_matches_fresh_samples_and_optimum() {
    let x_true = vec![0.3, -0.2, 0.0, 0.1];
    let (s, n) = (0.5, 100_000);
    let problem =
        AbsoluteRegressionL1::generate(n, x_true.clone(), s, &mut Seeds::new(25).stream(Stream::Data)).unwrap();
    let (x_star, f_star) = problem.optimum();
    assert_eq!(x_star, x_true);
    assert_eq!(f_star, 0.25);
    assert!((problem.population_loss(&x_true).unwrap() - 0.25).abs() < 1e-12);
    let mut rng = Seeds::new(26).stream(Stream::Init);
    let mut power = 0.0f64;
    for _ in 0..10 {
        let x = point_in_ball(4, 0.3, &mut rng);
        let dist: f64 = x.iter().zip(&x_true).map(|(a, b)| (a - b).abs()).sum();
        let margin = hoeffding(dist + s, n);
        let empirical = Loss::Absolute.empirical_risk(&x, &problem.data);
        let population = problem.population_loss(&x).unwrap();
        assert!((empirical - population).abs() <= margin, "x {x:?}: {empirical} vs {population} ± {margin}");
        assert!(population >= f_star - 1e-12);
        let w: Vec<f64> = x.iter().zip(&x_true).map(|(a, b)| a - b).collect();
        let noiseless: f64 = (0u32..16)
            .map(|bits| {
                w.iter().enumerate().map(|(j, wj)| if bits >> j & 1 == 1 { *wj } else { -wj }).sum::<f64>().abs()
            })
            .sum::<f64>()
            / 16.0;
        power = power.max((noiseless - empirical).abs() - margin);
    }
    assert!(power > 0.0, "the noiseless population loss is not rejected");
    let wide = AbsoluteRegressionL1::generate(2, vec![0.0; 21], s, &mut Seeds::new(27).stream(Stream::Data)).unwrap();
    assert!(wide.population_loss(&[0.0; 21]).is_err());
    assert!(AbsoluteRegressionL1::generate(2, x_true, 0.0, &mut Seeds::new(27).stream(Stream::Data)).is_err());
}
