//! \[AFKT\] Algorithm 2 (localized noisy mirror descent) and the Sec. 5 strongly convex reduction
//! (`optim::l1::localized_mirror_descent`): the phase schedule, the localization facts of the
//! analysis (the regulariser's Lipschitz bound on X_i, the regularised minimiser inside X_i), the
//! privacy the runs report, and the excess population risk on a closed-form problem.

use dpref::accounting::{
    Accountant, Conversion, DpEvent, Neighbouring, RdpAccountant, SamplingScheme, per_example_sum_gaussian,
};
use dpref::data::Dataset;
use dpref::data::l1_problems::LeastSquaresL1;
use dpref::geometry::mirror::{l1_geometry_exponent, l1_norm_ratio};
use dpref::linalg::{norm_l1, norm_linf, norm_lp};
use dpref::loss::Loss;
use dpref::optim::Privacy;
use dpref::optim::l1::localized_mirror_descent::phase_distance;
use dpref::optim::l1::{
    BatchRule, Geometry, LocalizedConfig, Phase, StronglyConvexReductionConfig, localized_mirror_descent,
    phase_objective_minimiser, strongly_convex_reduction,
};
use dpref::rng::{Seeds, Stream};
use rand::RngExt;
use rayon::prelude::*;

fn problem(n: usize, d: usize, seed: u64) -> LeastSquaresL1 {
    let mut x_true = vec![0.0; d];
    x_true[0] = 0.8;
    x_true[1] = -0.6;
    LeastSquaresL1::generate(n, x_true, 0.5, &mut Seeds::new(seed).stream(Stream::Data)).unwrap()
}

fn target(epsilon: f64) -> Privacy {
    Privacy::Target { epsilon, delta: 1e-5 }
}

/// The schedule's structural claims, as a checker that returns the first violation: blocks are
/// consecutive, disjoint, inside [0, n) and of size n_i; Σ ε_i ≤ ε.
fn schedule_violation(phases: &[Phase], n: usize, epsilon: f64) -> Option<String> {
    let mut next = 0usize;
    for ph in phases {
        if ph.block.start != next {
            return Some(format!(
                "phase {}: block starts at {} (expected {next}: fresh, disjoint)",
                ph.index_i, ph.block.start
            ));
        }
        if ph.block.len() != ph.n_i || ph.block.end > n {
            return Some(format!("phase {}: block {:?} vs n_i {}", ph.index_i, ph.block, ph.n_i));
        }
        next = ph.block.end;
    }
    let total: f64 = phases.iter().filter_map(|p| p.epsilon_i).sum();
    (total > epsilon).then(|| format!("sum eps_i {total} > {epsilon}"))
}

/// Alg. 2, lines 1 and 3–4: `ε_i = 2^{−i}ε` (Σ < ε), `n_i = ⌊n/2^i⌋` on fresh consecutive
/// disjoint blocks (Σ n_i ≤ n), `η_i = 2^{−4i}η`, `1 ≤ b_i ≤ n_i`, `T_i = max(1, ⌊n_i²/b_i²⌋)`,
/// radii shrinking 32× and regularisation growing 32× per phase when n is a power of 2.
/// Power twin: the printed reading's nested prefixes `z_1..z_{n_i}` (overlapping blocks) fail the
/// same checker.
#[test]
fn prop_localized_phase_schedule_splits_budget_and_blocks() {
    for (n, d, eps) in [(1024usize, 8usize, 1.0f64), (1000, 50, 0.3), (2, 1, 4.0), (4096, 3, 2.0)] {
        let cfg = LocalizedConfig::new(Geometry::L1, 1.0, 2.0, target(eps)).unwrap();
        let phases = cfg.schedule(n, d).unwrap();
        assert_eq!(phases.len() as u32, usize::BITS - 1 - n.leading_zeros());
        assert_eq!(schedule_violation(&phases, n, eps), None);
        let eta = cfg.base_step(n, d);
        assert!(phases.iter().map(|p| p.n_i).sum::<usize>() <= n);
        for ph in &phases {
            let i = ph.index_i as i32;
            assert_eq!(ph.epsilon_i, Some(eps * 0.5f64.powi(i)));
            assert_eq!(ph.n_i, n >> i);
            assert!((ph.eta_i / (eta * 0.5f64.powi(4 * i)) - 1.0).abs() < 1e-15);
            assert!(ph.batch_b_i >= 1 && ph.batch_b_i <= ph.n_i);
            assert_eq!(ph.steps_t_i, ((ph.n_i * ph.n_i) / (ph.batch_b_i * ph.batch_b_i)).max(1) as u64);
            assert!((ph.lambda_i * ph.eta_i * ph.n_i as f64 - 1.0).abs() < 1e-12);
        }
        if n.is_power_of_two() {
            for w in phases.windows(2) {
                assert!((w[0].radius_r_i / w[1].radius_r_i / 32.0 - 1.0).abs() < 1e-12);
                assert!((w[1].lambda_i / w[0].lambda_i / 32.0 - 1.0).abs() < 1e-12);
            }
        }
        // power twin: nested prefixes (the display's z_1..z_{n_i}) overlap and are refused
        let mut nested = phases.clone();
        for ph in &mut nested {
            ph.block = 0..ph.n_i;
        }
        if nested.len() >= 2 {
            assert!(schedule_violation(&nested, n, eps).is_some());
        }
    }
    // the printed batch rule √(d/ε_i) gives smaller batches than √d/ε_i once ε_i < 1
    let mut printed = LocalizedConfig::new(Geometry::L1, 1.0, 2.0, target(0.5)).unwrap();
    printed.batch_rule = BatchRule::Printed;
    let recommended = LocalizedConfig::new(Geometry::L1, 1.0, 2.0, target(0.5)).unwrap();
    let (a, b) = (printed.schedule(1 << 14, 400).unwrap(), recommended.schedule(1 << 14, 400).unwrap());
    assert!(a[0].batch_b_i < b[0].batch_b_i, "{} vs {}", a[0].batch_b_i, b[0].batch_b_i);
}

/// O4: on X_i, `‖∇r_i‖_∞ ≤ ‖∇r_i‖_q = 2‖x − x_{i−1}‖_p/(η_i n_i (p−1)) ≤ 2κL` with κ = max(2, c_d)
/// the radius constant (the paper's "4L" takes κ = 2), attained on the sphere ‖x − x_{i−1}‖_p = r_i
/// (so the constant is exact: a radius larger than κLη_i n_i(p−1) breaks it).
#[test]
fn prop_localized_regulariser_lipschitz_on_phase_ball() {
    let mut rng = Seeds::new(11).stream(Stream::Audit);
    for d in [3usize, 10, 200] {
        let (l, radius) = (1.5, 1.0);
        let cfg = LocalizedConfig::new(Geometry::L1, radius, l, target(1.0)).unwrap();
        let phases = cfg.schedule(4096, d).unwrap();
        let p = l1_geometry_exponent(d);
        let q = p / (p - 1.0);
        let kappa = l1_norm_ratio(d, p).max(2.0);
        assert_eq!(cfg.radius_constant(d), kappa);
        let mut g = vec![0.0; d];
        for ph in phases.iter().take(4) {
            let centre: Vec<f64> = (0..d).map(|_| rng.random::<f64>() - 0.5).collect();
            let centre: Vec<f64> = centre.iter().map(|v| v * 0.5 / norm_l1(&centre)).collect();
            for trial in 0..50 {
                let dir: Vec<f64> = (0..d).map(|_| rng.random::<f64>() - 0.5).collect();
                let scale = if trial == 0 { 1.0 } else { rng.random::<f64>() };
                let dir_norm = norm_lp(&dir, p);
                let x: Vec<f64> =
                    centre.iter().zip(&dir).map(|(c, v)| c + v * scale * ph.radius_r_i / dir_norm).collect();
                cfg.regulariser_gradient(ph, &centre, &x, &mut g).unwrap();
                let (ginf, gq) = (norm_linf(&g), norm_lp(&g, q));
                let bound = 2.0 * kappa * l;
                assert!(ginf <= gq * (1.0 + 1e-12) && gq <= bound * (1.0 + 1e-9), "d {d}: {gq} > {bound}");
                let exact = 2.0 * phase_distance(&x, &centre, p) / (ph.eta_i * ph.n_i as f64 * (p - 1.0));
                assert!((gq / exact - 1.0).abs() < 1e-9);
                if trial == 0 {
                    assert!((gq / bound - 1.0).abs() < 1e-9, "attained on the sphere");
                }
            }
        }
    }
}

/// F_i's value and gradient on a block at x, with centre a (the test's own evaluation).
fn phase_objective_gradient(cfg: &LocalizedConfig, ph: &Phase, block: &Dataset, a: &[f64], x: &[f64]) -> Vec<f64> {
    let d = x.len();
    let mut grad = vec![0.0; d];
    let mut g = vec![0.0; d];
    for i in 0..block.n() {
        Loss::Squared.gradient(x, block.row(i), block.label(i), &mut g);
        for (a, b) in grad.iter_mut().zip(&g) {
            *a += b / block.n() as f64;
        }
    }
    cfg.regulariser_gradient(ph, a, x, &mut g).unwrap();
    grad.iter().zip(&g).map(|(a, b)| a + b).collect()
}

/// U5 / O4: the minimiser x̂_i of F_i over X (no X_i constraint) satisfies
/// `‖x̂_i − x_{i−1}‖_p ≤ c_d L η_i n_i (p−1) ≤ r_i`. Certified: x̃ from the non-private solver has
/// Frank–Wolfe gap `G = ⟨∇F_i(x̃), x̃⟩ + R‖∇F_i(x̃)‖_∞ ≥ F_i(x̃) − F_i(x̂)`, and F_i is
/// λ_i-strongly convex relative to h_i, which is 2-strongly convex w.r.t. ‖·‖_p, so
/// `‖x̃ − x̂‖_p ≤ √(G/λ_i)`. The instance is one where the bound binds: the unregularised
/// minimiser (the l1 projection of x_true, at distance ≈ 1 from 0) is far outside it.
#[test]
fn prop_localized_unconstrained_minimiser_lies_in_phase_ball() {
    let (n, d, radius) = (200usize, 5usize, 1.0);
    let pr = problem(n, d, 21);
    let l = pr.lipschitz_l1(radius);
    let mut cfg =
        LocalizedConfig::new(Geometry::L1, radius, l, Privacy::NoiseMultiplier { sigma: 0.0, report_delta: None })
            .unwrap();
    cfg.step_size_eta = Some(0.004);
    let phases = cfg.schedule(n, d).unwrap();
    let p = l1_geometry_exponent(d);
    let cd = l1_norm_ratio(d, p);
    for (ph, a) in phases.iter().take(2).zip([vec![0.0; d], vec![0.1, -0.05, 0.0, 0.02, 0.0]]) {
        let rows: Vec<f64> = ph.block.clone().flat_map(|i| pr.data.row(i).to_vec()).collect();
        let block = Dataset::new(rows, pr.data.labels()[ph.block.clone()].to_vec(), d).unwrap();
        let run = phase_objective_minimiser(&block, Loss::Squared, &cfg, ph, &a, 20_000).unwrap();
        let certified = [&run.x, &run.x_last]
            .into_iter()
            .map(|x| {
                let g = phase_objective_gradient(&cfg, ph, &block, &a, x);
                let gap = x.iter().zip(&g).map(|(a, b)| a * b).sum::<f64>() + radius * norm_linf(&g);
                phase_distance(x, &a, p) + (gap.max(0.0) / ph.lambda_i).sqrt()
            })
            .fold(f64::INFINITY, f64::min);
        let bound = cd * l * ph.eta_i * ph.n_i as f64 * (p - 1.0);
        eprintln!(
            "phase {}: certified distance {certified:.4e}, bound {bound:.4e}, r_i {:.4e}",
            ph.index_i, ph.radius_r_i
        );
        assert!(certified <= bound, "phase {}: {certified} > {bound}", ph.index_i);
        assert!(bound <= ph.radius_r_i * (1.0 + 1e-12));
        // the bound binds: without the regulariser the minimiser is much farther away
        assert!(
            phase_distance(&pr.optimum(radius), &a, p) > 2.0 * bound,
            "phase {}: bound {bound} vacuous",
            ph.index_i
        );
    }
}

/// P6 / P2: a run at target (ε, δ) reports the RDP sequential composition of every executed
/// event, ≤ ε; each phase's events are `T_i` steps of `WithoutReplacement(n_i, b_i) ∘
/// PerExampleSumGaussian(σ_i)` on its own block (dataset size n_i), calibrated to ≤ ε_i; the
/// recomposition from the events by an independent accountant equals the report. Power twin:
/// the same events with every σ_i halved recompose to more than ε (a run whose noise were halved
/// would fail).
#[test]
fn prop_localized_accounted_epsilon_meets_target() {
    let (n, d, eps, delta) = (1024usize, 8usize, 1.0, 1e-5);
    let pr = problem(n, d, 31);
    let cfg = LocalizedConfig::new(Geometry::L1, 1.0, pr.lipschitz_l1(1.0), target(eps)).unwrap();
    let run = cfg.run(&pr.data, Loss::Squared, Seeds::new(5)).unwrap();
    assert_eq!(
        run,
        localized_mirror_descent(&pr.data, Loss::Squared, &cfg, Seeds::new(5)).unwrap(),
        "same seed, same run"
    );
    let reported = run.privacy.epsilon.unwrap();
    eprintln!(
        "sequential eps {reported}; phases {:?}",
        run.phases.iter().map(|r| r.run.privacy.epsilon).collect::<Vec<_>>()
    );
    assert!(reported <= eps, "{reported}");
    assert_eq!(run.privacy.delta, Some(delta));
    let mut halved = Vec::new();
    let mut total_steps = 0;
    let mut phase_sum = 0.0;
    for rec in &run.phases {
        let ph = &rec.phase;
        let phase_eps = rec.run.privacy.epsilon.unwrap();
        assert!(phase_eps <= ph.epsilon_i.unwrap() * (1.0 + 1e-12), "phase {}: {phase_eps}", ph.index_i);
        phase_sum += phase_eps;
        let scheme =
            SamplingScheme::WithoutReplacement { dataset_size: ph.n_i as u64, batch_size: ph.batch_b_i as u64 };
        let step = scheme.wrap(per_example_sum_gaussian(rec.run.privacy.sigma).unwrap()).unwrap();
        let expected =
            if ph.steps_t_i == 1 { step } else { DpEvent::SelfComposed { event: Box::new(step), count: ph.steps_t_i } };
        assert_eq!(rec.run.events.as_event(), Some(expected));
        let half = scheme.wrap(per_example_sum_gaussian(rec.run.privacy.sigma / 2.0).unwrap()).unwrap();
        halved.push(DpEvent::SelfComposed { event: Box::new(half), count: ph.steps_t_i });
        total_steps += ph.steps_t_i;
    }
    assert_eq!(run.events.len(), total_steps);
    assert!(phase_sum <= eps, "basic composition {phase_sum}");
    let mut acc = RdpAccountant::new(Neighbouring::ReplaceOne);
    acc.compose(&run.events.as_event().unwrap(), 1).unwrap();
    assert_eq!(acc.epsilon(delta, Conversion::Improved).unwrap().epsilon, reported);
    let mut twin = RdpAccountant::new(Neighbouring::ReplaceOne);
    twin.compose(&DpEvent::Composed(halved), 1).unwrap();
    let twin_eps = twin.epsilon(delta, Conversion::Improved).unwrap().epsilon;
    assert!(twin_eps > eps, "halved noise: {twin_eps}");
    // the parallel reading (max over disjoint blocks) is the first phase's, ≤ ε/2
    let parallel = run.phases.iter().map(|r| r.run.privacy.epsilon.unwrap()).fold(0.0, f64::max);
    assert!(parallel <= eps / 2.0 && parallel <= reported);
    // iterates: every phase output in X and in its X_i
    let p = l1_geometry_exponent(d);
    for rec in &run.phases {
        assert!(norm_l1(&rec.run.x) <= 1.0 + 1e-12);
        assert!(phase_distance(&rec.run.x, &rec.x_start, p) <= rec.phase.radius_r_i * (1.0 + 1e-9));
    }
}

/// Excess population risk `F(x) − F*` on `LeastSquaresL1` (F(x) = ½‖x − x_true‖² + s²/6, F* at the
/// l1 projection of x_true) decreases with n at a fixed ε = 2: m = 6 runs at each
/// n ∈ {256, 4096, 65536}; the mean decreases at each step, and every run at n = 65536 beats every
/// run at n = 4096.
/// Margin: NOT derived to 1e-6 (the paper's bounds are O(·), so no per-n expectation is known to
/// compare against); this is a seeded regression of a measured separation (measured means 0.433,
/// 0.217, 0.0314; at n = 4096 all runs lie in [0.195, 0.233], at 65536 in [0.0296, 0.0320]).
/// Power: a phase loop that ignores its data (regulariser only) stays at x_0 = 0, excess 0.46 at
/// every n, and fails; so does one that reuses the first n_1 records in every phase at the large n
/// only if its phase 1 were the bottleneck (it is: phases i ≥ 2 move by at most r_i ≤ r_1/32).
#[test]
fn stat_localized_excess_risk_decreases_with_n() {
    let (d, radius, m) = (8usize, 1.0, 6u64);
    let mut means = Vec::new();
    let mut ranges = Vec::new();
    for n in [256usize, 4096, 65536] {
        // the m seeded runs are independent: run them in parallel (collected in seed order)
        let excess: Vec<f64> = (0..m)
            .into_par_iter()
            .map(|r| {
                let pr = problem(n, d, 1000 + r);
                let cfg = LocalizedConfig::new(Geometry::L1, radius, pr.lipschitz_l1(radius), target(2.0)).unwrap();
                let run = localized_mirror_descent(&pr.data, Loss::Squared, &cfg, Seeds::new(r)).unwrap();
                assert!(norm_l1(&run.x) <= radius * (1.0 + 1e-12));
                pr.population_loss(&run.x) - pr.population_loss(&pr.optimum(radius))
            })
            .collect();
        let worst = excess.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let best = excess.iter().cloned().fold(f64::INFINITY, f64::min);
        assert!(best >= -1e-12, "excess below 0: {best}");
        means.push(excess.iter().sum::<f64>() / m as f64);
        ranges.push((best, worst));
    }
    eprintln!("mean excess at n = 256, 4096, 65536: {means:?}; ranges {ranges:?}");
    assert!(means[0] > means[1] && means[1] > means[2], "{means:?}");
    assert!(ranges[2].1 < ranges[1].0, "{ranges:?}");
    // the start x_0 = 0 has excess F(0) − F* = 0.46: the large-n runs are far below it
    assert!(ranges[2].1 < 0.46 / 4.0);
}

/// Invalid settings and data are typed errors, before any randomness.
#[test]
fn invalid_localized_settings_are_refused() {
    assert!(LocalizedConfig::new(Geometry::L1, f64::NAN, 1.0, target(1.0)).is_err());
    assert!(LocalizedConfig::new(Geometry::L1, 1.0, 0.0, target(1.0)).is_err());
    assert!(LocalizedConfig::new(Geometry::L1, 1.0, 1.0, target(-1.0)).is_err());
    assert!(LocalizedConfig::new(Geometry::L1, 1.0, 1.0, Privacy::Target { epsilon: 1.0, delta: 1.5 }).is_err());
    assert!(LocalizedConfig::new(Geometry::Lp { p: 3.0 }, 1.0, 1.0, target(1.0)).is_err());
    assert!(LocalizedConfig::new(Geometry::Lp { p: 1.0 }, 1.0, 1.0, target(1.0)).is_err());
    let cfg = LocalizedConfig::new(Geometry::L1, 1.0, 1.0, target(1.0)).unwrap();
    assert!(cfg.schedule(1, 3).is_err(), "n = 1: no phase");
    let mut k = cfg.clone();
    k.phases_k = Some(20);
    assert!(k.schedule(1000, 3).is_err(), "n_k = 0");
    k.phases_k = Some(0);
    assert!(localized_mirror_descent(&problem(64, 3, 1).data, Loss::Squared, &k, Seeds::new(1)).is_err());
    let mut far = cfg.clone();
    far.x0 = Some(vec![1.0, 1.0, 0.0]);
    assert!(localized_mirror_descent(&problem(64, 3, 1).data, Loss::Squared, &far, Seeds::new(1)).is_err());
    let mut eta = cfg.clone();
    eta.step_size_eta = Some(f64::NAN);
    assert!(localized_mirror_descent(&problem(64, 3, 1).data, Loss::Squared, &eta, Seeds::new(1)).is_err());
    let one = Dataset::new(vec![1.0, 0.0, 0.0], vec![0.5], 3).unwrap();
    assert!(localized_mirror_descent(&one, Loss::Squared, &cfg, Seeds::new(1)).is_err());
    if let Ok(nan) = Dataset::new(vec![f64::NAN, 0.0, 0.0, 1.0, 0.0, 0.0], vec![0.5, 0.1], 3) {
        assert!(localized_mirror_descent(&nan, Loss::Squared, &cfg, Seeds::new(1)).is_err());
    }
    assert!(StronglyConvexReductionConfig::new(cfg.clone(), Some(0)).is_err());
}

/// Sec. 5: k = ⌈ln ln n⌉ rounds on fresh consecutive blocks of `⌊2^{i−2}n/ln n⌋` records (Σ ≤ n),
/// each round started at the previous output; the report is the sequential composition of all
/// rounds' events (each round calibrated to the inner (ε, δ), so it exceeds ε: the parallel
/// reading over disjoint blocks, max of the rounds', is ≤ ε).
#[test]
fn prop_reduction_rounds_use_fresh_blocks_and_report_sequential_privacy() {
    let (n, d) = (4096usize, 6usize);
    let pr = problem(n, d, 41);
    let inner = LocalizedConfig::new(Geometry::L1, 1.0, pr.lipschitz_l1(1.0), target(1.0)).unwrap();
    let cfg = StronglyConvexReductionConfig::new(inner, None).unwrap();
    let blocks = cfg.schedule(n).unwrap();
    let ln_n = (n as f64).ln();
    assert_eq!(blocks.len() as f64, ln_n.ln().ceil());
    let mut next = 0;
    for (i, b) in blocks.iter().enumerate() {
        assert_eq!(b.start, next);
        assert_eq!(b.len(), (2f64.powi(i as i32 - 1) * n as f64 / ln_n).floor() as usize);
        next = b.end;
    }
    assert!(next <= n);
    let run = strongly_convex_reduction(&pr.data, Loss::Squared, &cfg, Seeds::new(3)).unwrap();
    assert_eq!(run.rounds.len(), blocks.len());
    for w in run.rounds.windows(2) {
        assert_eq!(w[1].1.phases[0].x_start, w[0].1.x, "round starts at the previous output");
    }
    let total: u64 = run.rounds.iter().map(|(_, r)| r.events.len()).sum();
    assert_eq!(run.events.len(), total);
    let seq = run.privacy.epsilon.unwrap();
    let parallel = run.rounds.iter().map(|(_, r)| r.privacy.epsilon.unwrap()).fold(0.0, f64::max);
    assert!(parallel <= 1.0 && seq >= parallel, "{seq} {parallel}");
    assert!(norm_l1(&run.x) <= 1.0 + 1e-12);
}
