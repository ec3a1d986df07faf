//! \[AFKT\] l1-geometry speed (issue goals).
//!
//! (a) Private Frank–Wolfe (Algorithm 3) over the 2d vertices of an l1 ball, least squares with
//! Rademacher features, d = 1000, T = 4, b = 1024 (9 216 samples, 14 336 gradient evaluations,
//! K = 30 leaves): the whole run against its floor, the same number of per-example gradient
//! evaluations with the same loss and data (one pass over the batches' gradients). The run adds
//! the selections (2d noisy scores per leaf), the tree bookkeeping and the per-sample ledger; goal:
//! run ≤ 2× floor. A second pair isolates one leaf: one noisy selection over the 2d scores plus
//! the FW update against one gradient pass over the smallest batch a leaf sees (a depth-T right
//! child: 2^{−T}b samples, two gradients each).
//!
//! (b) The certified Bregman step over `{‖x‖₁ ≤ R} ∩ {‖x − a‖_p ≤ r}` at d = 10⁴, p = 1 + 1/ln d,
//! to a duality gap of 1e-9 (goal: ≤ 200 iterations), with a budget of 200 iterations (the KKT
//! root findings' O(d) passes), at r = 0.5 (only the l1 ball binds) and r = 0.409 (both bind):
//! timed, then one call each prints the iterations, gap, norms and time. Measured (`--profile dev`,
//! shared 2-core machine): 60 passes, 15.5 ms at r = 0.5; 87 passes, 21.6 ms at r = 0.409; gap
//! ≤ 5e-15 both. Before (FISTA on the d-dimensional dual, 200-step bisection of the shrink): gap
//! 3.5e-4 at 200, 1.1e-6 at 2000, 5.8e-9 at 20 000 iterations, ~4.4 ms per iteration.
//!
//! Inputs are built from seeds outside the timed closures; ratios are printed after each group.

mod common;

use common::mean_time;
use criterion::{Criterion, criterion_group, criterion_main};
use dpref::accounting::Neighbouring;
use dpref::data::l1_problems::LeastSquaresL1;
use dpref::geometry::mirror::{PNormMap, bregman_step_l1_lp, l1_geometry_exponent};
use dpref::linalg::{norm_l1, norm_lp};
use dpref::loss::Loss;
use dpref::optim::l1::frank_wolfe::{FrankWolfeConfig, FwPrivacy, NodeRecord, Polytope};
use dpref::optim::{PrivateSelection, SelectionMechanism};
use dpref::rng::{Seeds, Stream};
use rand::RngExt;

const FW_D: usize = 1000;
const FW_T: u32 = 4;
const FW_B: usize = 1024;

fn fw_problem() -> (LeastSquaresL1, FrankWolfeConfig) {
    let mut r = Seeds::new(11).stream(Stream::Data);
    let x_true: Vec<f64> = (0..FW_D).map(|j| if j < 5 { 0.2 } else { 0.0 }).collect();
    let cfg = FrankWolfeConfig::new(
        FW_T,
        FW_B,
        3.0,
        Polytope::L1Ball { radius_r: 1.0 },
        SelectionMechanism::ReportNoisyMin,
        FwPrivacy::Pure { epsilon: 1.0 },
    )
    .expect("valid");
    let problem = LeastSquaresL1::generate(cfg.samples_needed(), x_true, 0.1, &mut r).expect("valid");
    (problem, cfg)
}

/// The floor of (a): the run's own gradient work in its own order — for every node that ran, the
/// per-example gradients of its samples (one each at a root, two at a right child), at a fixed x
/// (without the tree, the selections or the ledger). `nodes` come from a run outside the timing.
fn gradient_floor(problem: &LeastSquaresL1, x: &[f64], nodes: &[NodeRecord], g: &mut [f64], acc: &mut [f64]) -> f64 {
    let data = &problem.data;
    for node in nodes {
        let per_sample = if node.path.depth == 0 { 1 } else { 2 };
        for &i in &node.samples {
            for _ in 0..per_sample {
                Loss::Squared.gradient(x, data.row(i), data.label(i), g);
                for (a, gj) in acc.iter_mut().zip(g.iter()) {
                    *a += gj;
                }
            }
        }
    }
    acc[0]
}

/// One leaf of (a): the 2d scores, a noisy selection, the FW update.
fn one_leaf(
    polytope: &Polytope,
    selection: &mut PrivateSelection,
    v: &[f64],
    x: &mut [f64],
    scores: &mut Vec<f64>,
    w: &mut [f64],
) -> usize {
    polytope.scores(v, scores);
    let i = selection.select_min(scores, 0.05, 0.01).expect("valid");
    polytope.vertex(i, w);
    let eta = 0.1;
    for (xj, wj) in x.iter_mut().zip(w.iter()) {
        *xj = (1.0 - eta) * *xj + eta * wj;
    }
    i
}

fn bench_frank_wolfe(c: &mut Criterion) {
    let (problem, cfg) = fw_problem();
    let evaluations = cfg.gradient_evaluations();
    let x: Vec<f64> = (0..FW_D).map(|j| if j % 7 == 0 { 1e-3 } else { 0.0 }).collect();
    let (mut g, mut acc) = (vec![0.0; FW_D], vec![0.0; FW_D]);
    let run = || cfg.run(&problem.data, Loss::Squared, Seeds::new(5)).expect("valid");
    let nodes = run().nodes;
    // the deepest right child of the first phase: 2^{-T} b samples, two gradients each
    let leaf_nodes: Vec<NodeRecord> =
        nodes.iter().filter(|n| n.path.depth == FW_T && n.path.last_bit() == 1).take(1).cloned().collect();
    let leaf_batch = 2 * leaf_nodes[0].samples.len();
    let polytope = Polytope::L1Ball { radius_r: 1.0 };
    let v: Vec<f64> = {
        let mut r = Seeds::new(12).stream(Stream::Data);
        (0..FW_D).map(|_| r.random::<f64>() - 0.5).collect()
    };
    let mut selection =
        PrivateSelection::new(SelectionMechanism::ReportNoisyMin, Neighbouring::ReplaceOne, Seeds::new(6));
    let (mut xl, mut scores, mut w) = (vec![0.0; FW_D], Vec::new(), vec![0.0; FW_D]);

    let mut group = c.benchmark_group("afkt_alg3_fw_l1ball_d1000_T4_b1024");
    group.sample_size(10);
    group.bench_function("gradient_floor", |b| b.iter(|| gradient_floor(&problem, &x, &nodes, &mut g, &mut acc)));
    group.bench_function("alg3_run", |b| b.iter(run));
    group.bench_function("one_leaf_selection_and_update", |b| {
        b.iter(|| one_leaf(&polytope, &mut selection, &v, &mut xl, &mut scores, &mut w))
    });
    group.bench_function("one_leaf_batch_gradients", |b| {
        b.iter(|| gradient_floor(&problem, &x, &leaf_nodes, &mut g, &mut acc))
    });
    group.finish();

    let t_floor = mean_time(|| _ = std::hint::black_box(gradient_floor(&problem, &x, &nodes, &mut g, &mut acc)), 10);
    let t_run = mean_time(|| drop(run()), 10);
    let t_leaf = mean_time(
        || _ = std::hint::black_box(one_leaf(&polytope, &mut selection, &v, &mut xl, &mut scores, &mut w)),
        200,
    );
    let t_batch =
        mean_time(|| _ = std::hint::black_box(gradient_floor(&problem, &x, &leaf_nodes, &mut g, &mut acc)), 200);
    let ms = |t: std::time::Duration| t.as_secs_f64() * 1e3;
    println!(
        "Alg. 3 run {:.2} ms vs gradient floor ({evaluations} evaluations) {:.2} ms: ratio {:.2} (goal <= 2); \
         one leaf's selection + update {:.1} us vs its smallest batch's gradients ({leaf_batch}) {:.1} us: ratio {:.2}",
        ms(t_run),
        ms(t_floor),
        t_run.as_secs_f64() / t_floor.as_secs_f64(),
        t_leaf.as_secs_f64() * 1e6,
        t_batch.as_secs_f64() * 1e6,
        t_leaf.as_secs_f64() / t_batch.as_secs_f64(),
    );
}

const BREG_D: usize = 10_000;

/// θ and a for (b): a in the l1 ball of radius 1 (50 small coordinates), θ dense uniform in
/// [−2, 2]^d, the unit-modulus map at p = 1 + 1/ln d (the l1 ball binds: the unconstrained point
/// has ‖·‖₁ > 1).
fn bregman_inputs() -> (PNormMap, Vec<f64>, Vec<f64>) {
    let p = l1_geometry_exponent(BREG_D);
    let map = PNormMap::unit_modulus(p).expect("valid");
    let mut r = Seeds::new(21).stream(Stream::Data);
    let a: Vec<f64> = (0..BREG_D).map(|j| if j < 50 { 0.01 * (r.random::<f64>() - 0.5) } else { 0.0 }).collect();
    let theta: Vec<f64> = (0..BREG_D).map(|_| 4.0 * (r.random::<f64>() - 0.5)).collect();
    (map, theta, a)
}

fn bench_bregman(c: &mut Criterion) {
    let (map, theta, a) = bregman_inputs();
    // the goal's budget: 200 iterations at tolerance 1e-9 (an error stating the gap reached if missed)
    let step = |lp_radius: f64| bregman_step_l1_lp(&map, &theta, &a, 1.0, lp_radius, 1e-9, 200);
    let mut group = c.benchmark_group("afkt_bregman_step_l1_lp_d1e4_gap1e-9");
    group.sample_size(10);
    for lp_radius in [0.5, 0.409] {
        group.bench_function(format!("at_most_200_iterations_r{lp_radius}"), |b| b.iter(|| step(lp_radius)));
    }
    group.finish();
    for lp_radius in [0.5, 0.409] {
        let t = std::time::Instant::now();
        let outcome = match step(lp_radius) {
            Ok(s) => {
                let u: Vec<f64> = s.x.iter().zip(&a).map(|(x, aj)| x - aj).collect();
                format!(
                    "converged: {} iterations, gap {:.2e}, ‖x‖₁ = {:.6}, ‖x − a‖_p = {:.6}",
                    s.iterations,
                    s.gap,
                    norm_l1(&s.x),
                    norm_lp(&u, map.p())
                )
            }
            Err(e) => format!("not converged: {e}"),
        };
        println!(
            "Bregman step l1 ∩ lp, d = {BREG_D}, p = {:.4}, R = 1, r = {lp_radius}, tol 1e-9, budget 200 \
             iterations (goal <= 200): {outcome}; {:.1} ms",
            map.p(),
            t.elapsed().as_secs_f64() * 1e3
        );
    }
}

criterion_group!(benches, bench_frank_wolfe, bench_bregman);
criterion_main!(benches);
