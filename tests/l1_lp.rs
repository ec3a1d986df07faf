//! \[AFKT\] Algorithms 5 and 6 (`optim::l1::lp_mirror_descent`, `Geometry::Lp` of
//! `optim::l1::localized_mirror_descent`): lp sensitivity, the certified Bregman step over two lp
//! balls, the mirror-descent guarantee, the localized schedule and regulariser, and the privacy
//! the runs report.

mod common;

use common::l1_data::linear_data;

use dpref::accounting::{DpEvent, SamplingScheme, per_example_sum_gaussian};
use dpref::data::l1_problems::LeastSquaresL1;
use dpref::geometry::mirror::{PNormMap, bregman_step_lp_lp, project_lp_ball};
use dpref::linalg::{norm_l2, norm_lp};
use dpref::loss::Loss;
use dpref::optim::Privacy;
use dpref::optim::RunSettings;
use dpref::optim::l1::localized_mirror_descent::phase_distance;
use dpref::optim::l1::{
    Geometry, LocalizedConfig, LpMirrorDescentConfig, StepRule, localized_mirror_descent, lp_l2_sensitivity,
    lp_mirror_descent,
};
use dpref::rng::{Seeds, Stream};
use dpref::sampling::BatchSampler;
use rand::RngExt;

fn random_vec(rng: &mut impl rand::Rng, d: usize) -> Vec<f64> {
    (0..d).map(|_| 2.0 * rng.random::<f64>() - 1.0).collect()
}

/// App. B.1: `‖g‖₂ ≤ d^{1/2−1/q}‖g‖_q` for q ≥ 2, so the clip `d^{1/2−1/q} L` bounds every
/// gradient with `‖g‖_q ≤ L`; equality at the constant vector (a smaller clip would cut a
/// legitimate gradient: the constant is exact). Algorithm 6 clips at the same value.
#[test]
fn prop_lp_sensitivity_is_d_half_minus_inv_q_l() {
    let mut rng = Seeds::new(1).stream(Stream::Audit);
    for d in [1usize, 2, 7, 100] {
        for p in [1.1, 1.5, 2.0] {
            let q: f64 = p / (p - 1.0);
            let l = 2.5;
            let c = lp_l2_sensitivity(d, p, l).unwrap();
            assert!((c - (d as f64).powf(0.5 - 1.0 / q) * l).abs() <= 1e-12 * c);
            for _ in 0..200 {
                let g = random_vec(&mut rng, d);
                let s = l / norm_lp(&g, q);
                let g: Vec<f64> = g.iter().map(|v| v * s).collect();
                assert!(norm_l2(&g) <= c * (1.0 + 1e-12));
            }
            let flat = vec![l * (d as f64).powf(-1.0 / q); d];
            assert!((norm_l2(&flat) / c - 1.0).abs() < 1e-12, "attained at the constant vector");
            let cfg = LocalizedConfig::new(Geometry::Lp { p }, 1.0, l, Privacy::Target { epsilon: 1.0, delta: 1e-5 });
            assert_eq!(cfg.unwrap().clip(d).unwrap(), c);
        }
    }
    // An L whose clip overflows clips nothing: refused, never an infinite clip.
    assert!(lp_l2_sensitivity(4, 1.5, 1.7e308).is_err() && lp_l2_sensitivity(4, 1.5, f64::NAN).is_err());
}

/// G5/G6 for the step of Algorithms 5–6: `x⁺ = argmin {φ_c(x − a) − ⟨θ, x⟩ : ‖x‖_p ≤ R,
/// ‖x − a‖_p ≤ r}` is feasible, its duality gap is ≤ tol, and no random feasible point has a
/// smaller objective by more than the gap. The Euclidean lp-ball projection is feasible and no
/// farther from v than random points of the ball. A step that ignored either ball fails the
/// feasibility checks (θ is drawn large so both bind in some trials).
#[test]
fn prop_lp_bregman_step_is_feasible_and_optimal() {
    let mut rng = Seeds::new(2).stream(Stream::Audit);
    let (mut outer_binds, mut inner_binds) = (0, 0);
    for trial in 0..60 {
        let d = 2 + trial % 5;
        let p = [1.2, 1.5, 2.0][trial % 3];
        let map = PNormMap::unit_modulus(p).unwrap();
        let big_r = 1.0;
        let a0 = random_vec(&mut rng, d);
        let a: Vec<f64> = a0.iter().map(|v| v * 0.7 * rng.random::<f64>() / norm_lp(&a0, p)).collect();
        let theta: Vec<f64> = random_vec(&mut rng, d).iter().map(|v| v * 6.0).collect();
        let r = if trial % 4 == 0 { f64::INFINITY } else { 0.2 + rng.random::<f64>() };
        let step = bregman_step_lp_lp(&map, &theta, &a, big_r, r, 1e-9, 200_000).unwrap();
        let x = &step.x;
        assert!(norm_lp(x, p) <= big_r * (1.0 + 1e-12));
        assert!(phase_distance(x, &a, p) <= r * (1.0 + 1e-12));
        assert!(step.gap <= 1e-9);
        outer_binds += usize::from(norm_lp(x, p) > big_r * (1.0 - 1e-6));
        inner_binds += usize::from(phase_distance(x, &a, p) > r * (1.0 - 1e-6));
        let phi = |y: &[f64]| {
            let u: Vec<f64> = y.iter().zip(&a).map(|(s, t)| s - t).collect();
            map.value(&u) - y.iter().zip(&theta).map(|(s, t)| s * t).sum::<f64>()
        };
        for _ in 0..200 {
            let y0 = random_vec(&mut rng, d);
            let t = rng.random::<f64>();
            let y: Vec<f64> = a.iter().zip(&y0).map(|(s, v)| s + t * v).collect();
            if norm_lp(&y, p) > big_r || phase_distance(&y, &a, p) > r {
                continue;
            }
            assert!(phi(x) <= phi(&y) + step.gap + 1e-12, "trial {trial}: a feasible point beats the step");
            // the projection: feasible, and no farther from y0 than y
            let mut w = y0.clone();
            project_lp_ball(&mut w, p, big_r);
            assert!(norm_lp(&w, p) <= big_r * (1.0 + 1e-12));
            let dist = |z: &[f64]| z.iter().zip(&y0).map(|(s, t)| (s - t) * (s - t)).sum::<f64>();
            if norm_lp(&y, p) <= big_r {
                assert!(dist(&w) <= dist(&y) * (1.0 + 1e-9) + 1e-12);
            }
        }
    }
    assert!(outer_binds > 5 && inner_binds > 5, "both constraints bind: {outer_binds}, {inner_binds}");
}

/// Lemma 3.1 for Algorithm 5 with exact gradients (full batch, σ = 0): `F(x̄) − F* ≤
/// D²/(Tη) + ηL²/2` deterministically, `h = (1/(2(p−1)))‖·‖_p²` (1-strongly convex w.r.t. ‖·‖_p),
/// `D² = R²/(2(p−1)) ≥ D_h(x*, 0)`, `L = ‖m‖_q`, `F* = −R‖m‖_q` over the lp ball. Non-vacuous (below
/// the start's gap); a step with the wrong sign or a wrong map scale fails it.
#[test]
fn full_batch_lp_mirror_descent_meets_lemma_3_1() {
    let (n, d, t) = (100usize, 6usize, 300u64);
    let data = linear_data(n, d, 3, 0.8);
    let mut m = vec![0.0; d];
    for i in 0..n {
        for (mj, zj) in m.iter_mut().zip(data.row(i)) {
            *mj += zj / n as f64;
        }
    }
    for p in [1.3, 1.7, 2.0] {
        let q = p / (p - 1.0);
        let radius = 1.0;
        let l = norm_lp(&m, q);
        let d2 = radius * radius / (2.0 * (p - 1.0));
        let eta = d2.sqrt() / (l * (t as f64).sqrt());
        let mut cfg = LpMirrorDescentConfig::new(
            p,
            radius,
            10.0,
            RunSettings::without_replacement(t, n, Privacy::NoiseMultiplier { sigma: 0.0, report_delta: None })
                .unwrap(),
        )
        .unwrap();
        cfg.step = Some(StepRule::Constant { eta });
        let run = lp_mirror_descent(&data, Loss::Linear, &cfg, Seeds::new(4)).unwrap();
        let f = |x: &[f64]| x.iter().zip(&m).map(|(a, b)| a * b).sum::<f64>();
        let f_star = -radius * l;
        let bound = d2 / (t as f64 * eta) + eta * l * l / 2.0;
        let gap = f(&run.x) - f_star;
        assert!(gap >= -1e-9 && gap <= bound, "p {p}: gap {gap} > {bound}");
        assert!(bound < -f_star, "p {p}: vacuous");
        assert!(norm_lp(&run.x_last, p) <= radius * (1.0 + 1e-12));
        assert!(run.events.is_empty() && run.privacy.epsilon.is_none());
    }
}

/// Algorithm 5 at (1, 1e-5): σ calibrated by the RDP accountant for b of n without replacement
/// under replace-one, T events `WithoutReplacement(n, b) ∘ PerExampleSumGaussian(σ)`, ε ≤ 1 and
/// within 1% of it (calibration, not a loose bound).
#[test]
fn prop_lp_private_run_reports_the_accounted_epsilon() {
    let (n, d, t, b) = (300usize, 5usize, 40u64, 30usize);
    let data = linear_data(n, d, 5, 0.8);
    let run_settings = RunSettings::without_replacement(t, b, Privacy::Target { epsilon: 1.0, delta: 1e-5 }).unwrap();
    let cfg = LpMirrorDescentConfig::new(1.5, 1.0, 2.0, run_settings).unwrap();
    let run = lp_mirror_descent(&data, Loss::Linear, &cfg, Seeds::new(6)).unwrap();
    let eps = run.privacy.epsilon.unwrap();
    assert!(eps <= 1.0 && eps > 0.99, "{eps}");
    let step = SamplingScheme::WithoutReplacement { dataset_size: n as u64, batch_size: b as u64 }
        .wrap(per_example_sum_gaussian(run.privacy.sigma).unwrap())
        .unwrap();
    assert_eq!(run.events.as_event(), Some(DpEvent::SelfComposed { event: Box::new(step), count: t }));
    assert!(norm_lp(&run.x_last, 1.5) <= 1.0 + 1e-12);
}

/// Algorithm 6's schedule and regulariser: `λ_i = 2/(η_i n_i)` (F_i's modulus relative to
/// `h_i = (1/(2(p−1)))‖·‖_p²`), `r_i = 2Lη_i n_i(p−1)`, and on X_i
/// `‖∇r_i‖_q = 2‖x − x_{i−1}‖_p/(η_i n_i(p−1)) ≤ 4L`, attained on the sphere.
#[test]
fn prop_localized_lp_schedule_and_regulariser_bound() {
    let mut rng = Seeds::new(7).stream(Stream::Audit);
    let (p, l, d) = (1.5, 3.0, 6usize);
    let q = p / (p - 1.0);
    let cfg = LocalizedConfig::new(Geometry::Lp { p }, 1.0, l, Privacy::Target { epsilon: 1.0, delta: 1e-5 }).unwrap();
    let phases = cfg.schedule(2048, d).unwrap();
    let mut g = vec![0.0; d];
    for ph in &phases {
        assert!((ph.lambda_i * ph.eta_i * ph.n_i as f64 - 2.0).abs() < 1e-12);
        assert!((ph.radius_r_i / (2.0 * l * ph.eta_i * ph.n_i as f64 * (p - 1.0)) - 1.0).abs() < 1e-12);
        let centre = vec![0.1; d];
        for trial in 0..30 {
            let dir = random_vec(&mut rng, d);
            let s = if trial == 0 { 1.0 } else { rng.random::<f64>() } * ph.radius_r_i / norm_lp(&dir, p);
            let x: Vec<f64> = centre.iter().zip(&dir).map(|(c, v)| c + s * v).collect();
            cfg.regulariser_gradient(ph, &centre, &x, &mut g).unwrap();
            let gq = norm_lp(&g, q);
            // x − x_{i−1} is formed from numbers of size ‖x_{i−1}‖ ≈ 0.1·d: relative rounding
            // ≈ ε_mach·0.1·d/r_i on the distance (r_i down to 1e-10 here)
            let tol = 1e-9 + 8.0 * f64::EPSILON * 0.1 * d as f64 / ph.radius_r_i;
            assert!(
                gq <= 4.0 * l * (1.0 + tol),
                "phase {}: {gq} vs {} (lambda {}, r {})",
                ph.index_i,
                4.0 * l,
                ph.lambda_i,
                ph.radius_r_i
            );
            if trial == 0 {
                assert!((gq / (4.0 * l) - 1.0).abs() < tol);
            }
        }
    }
}

/// Algorithm 6 at (1, 1e-5) on least squares over the l_{1.5} ball: the sequential RDP report is
/// ≤ ε, every phase's own reading ≤ ε_i, each phase's output in X and in X_i.
#[test]
fn prop_localized_lp_accounted_epsilon_meets_target() {
    let (n, d, p) = (512usize, 4usize, 1.5);
    let q: f64 = p / (p - 1.0);
    let x_true = vec![0.6, -0.3, 0.0, 0.1];
    let pr = LeastSquaresL1::generate(n, x_true.clone(), 0.2, &mut Seeds::new(8).stream(Stream::Data)).unwrap();
    let dq = (d as f64).powf(1.0 / q);
    let l = dq * (dq * (1.0 + norm_lp(&x_true, p)) + 0.2);
    let cfg = LocalizedConfig::new(Geometry::Lp { p }, 1.0, l, Privacy::Target { epsilon: 1.0, delta: 1e-5 }).unwrap();
    let run = localized_mirror_descent(&pr.data, Loss::Squared, &cfg, Seeds::new(9)).unwrap();
    assert!(run.privacy.epsilon.unwrap() <= 1.0, "{:?}", run.privacy);
    for rec in &run.phases {
        assert!(rec.run.privacy.epsilon.unwrap() <= rec.phase.epsilon_i.unwrap() * (1.0 + 1e-12));
        assert!(norm_lp(&rec.run.x, p) <= 1.0 + 1e-9);
        assert!(phase_distance(&rec.run.x, &rec.x_start, p) <= rec.phase.radius_r_i * (1.0 + 1e-9));
    }
}

/// Invalid settings are typed errors, before any randomness.
#[test]
fn invalid_lp_settings_are_refused() {
    let privacy = Privacy::NoiseMultiplier { sigma: 1.0, report_delta: None };
    // (T = 0 and b = 0 are refused by the shared settings: tests/config_validation.rs)
    let settings = RunSettings::without_replacement(10, 5, privacy).unwrap();
    let new = |p, radius, lipschitz| LpMirrorDescentConfig::new(p, radius, lipschitz, settings.clone());
    assert!(new(2.5, 1.0, 1.0).is_err());
    assert!(new(1.0, 1.0, 1.0).is_err());
    assert!(new(1.5, f64::NAN, 1.0).is_err());
    assert!(new(1.5, 1.0, -1.0).is_err());
    let data = linear_data(20, 3, 1, 0.8);
    let mut cfg = new(1.5, 1.0, 1.0).unwrap();
    cfg.settings.sampler = BatchSampler::WithoutReplacement { batch_size: 50 };
    assert!(lp_mirror_descent(&data, Loss::Linear, &cfg, Seeds::new(1)).is_err(), "b > n");
    cfg.settings.sampler = BatchSampler::WithoutReplacement { batch_size: 5 };
    cfg.settings.x0 = Some(vec![1.0, 1.0, 0.0]);
    assert!(lp_mirror_descent(&data, Loss::Linear, &cfg, Seeds::new(1)).is_err(), "x0 outside");
    cfg.settings.x0 = None;
    cfg.step = Some(StepRule::StronglyConvex { lambda: 0.0 });
    assert!(lp_mirror_descent(&data, Loss::Linear, &cfg, Seeds::new(1)).is_err());
}
