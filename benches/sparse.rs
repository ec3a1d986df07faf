//! \[GGKKM\] Algorithm 1 speed (issue 13): the projection mechanism on d = 10⁶ coordinates,
//! n = 10⁴ CSR rows of 16 non-zeros each (s = 16, L = 1, Laplace and Gaussian noise), against the
//! floor the issue names: one pass over the data (the sparse sum into a dense d-vector) plus one
//! sort of d values (goal: Algorithm 1 within 3× of that floor). Algorithm 1 also draws d noise
//! values and runs the projection's O(d) passes, which the floor leaves out. The ratio is printed
//! after the criterion group. Data are built from a seed outside the timed closures.
//!
//! \[GGKKM\] Algorithm 2's basis pursuit at the size of `dpref reproduce sparse`'s E1 (n = 100, s = 4, d = 2·10⁴,
//! ε = 0.99 (< 1 is required), δ = 1e-6: m = 156 measurements): the certified solve of line 6 on
//! the release b of lines 3–5, with the ADMM iterations, simplex pivots and time to the gap
//! tolerance printed after the group.

mod common;

use common::mean_time;
use criterion::{Criterion, criterion_group, criterion_main};
use dpref::data::sparse::SparseDataset;
use dpref::optim::sparse::{ProjectionMechanismConfig, SparseVectors};
use dpref::rng::{Seeds, Stream};
use rand::RngExt;

const N: usize = 10_000;
const D: usize = 1_000_000;
const S: usize = 16;

fn data() -> SparseDataset {
    let mut r = Seeds::new(1).stream(Stream::Data);
    let rows: Vec<Vec<(usize, f64)>> = (0..N)
        .map(|_| {
            let mut idx: Vec<usize> = Vec::with_capacity(S);
            while idx.len() < S {
                let j = r.random_range(0..D);
                if !idx.contains(&j) {
                    idx.push(j);
                }
            }
            idx.sort_unstable();
            // entries ±1/4: norm exactly 1 = L
            idx.into_iter().map(|j| (j, if r.random::<bool>() { 0.25 } else { -0.25 })).collect()
        })
        .collect();
    SparseDataset::from_rows(&rows, vec![0.0; N], D).expect("valid")
}

/// The floor: one pass over the CSR data into a dense d-vector, then one sort of d values.
fn floor(data: &SparseDataset, noise: &[f64]) -> f64 {
    let mut sum = vec![0.0; D];
    for i in 0..N {
        let (idx, val) = data.row(i);
        for (&j, &v) in idx.iter().zip(val) {
            sum[j] += v;
        }
    }
    // the values a projection sorts: |z̃ⱼ| with a fixed noise vector (so the sort is not trivial)
    let mut u: Vec<f64> = sum.iter().zip(noise).map(|(a, b)| (a / N as f64 + b).abs()).collect();
    u.sort_unstable_by(|a, b| b.total_cmp(a));
    u[0]
}

fn bench(c: &mut Criterion) {
    let data = data();
    let laplace = ProjectionMechanismConfig::new(1.0, S, 1.0, 0.0).expect("valid");
    let gaussian = ProjectionMechanismConfig::new(1.0, S, 0.5, 1e-6).expect("valid");
    let noise: Vec<f64> = {
        let mut r = Seeds::new(2).stream(Stream::Noise);
        (0..D).map(|_| dpref::noise::laplace(&mut r, 1e-3)).collect()
    };
    let run = |cfg: &ProjectionMechanismConfig| cfg.run(SparseVectors::Csr(&data), Seeds::new(3)).expect("valid");
    let mut group = c.benchmark_group("ggkkm_alg1_d1e6_n1e4_nnz16");
    group.sample_size(10);
    group.bench_function("floor_pass_plus_sort", |b| b.iter(|| floor(&data, &noise)));
    group.bench_function("alg1_laplace", |b| b.iter(|| run(&laplace)));
    group.bench_function("alg1_gaussian", |b| b.iter(|| run(&gaussian)));
    group.finish();
    let t_floor = mean_time(|| _ = std::hint::black_box(floor(&data, &noise)), 10);
    let t_lap = mean_time(|| drop(run(&laplace)), 10);
    let t_gau = mean_time(|| drop(run(&gaussian)), 10);
    let ms = |t: std::time::Duration| t.as_secs_f64() * 1e3;
    println!(
        "floor {:.1} ms; Alg. 1 Laplace {:.1} ms (ratio {:.2}), Gaussian {:.1} ms (ratio {:.2}); goal <= 3",
        ms(t_floor),
        ms(t_lap),
        t_lap.as_secs_f64() / t_floor.as_secs_f64(),
        ms(t_gau),
        t_gau.as_secs_f64() / t_floor.as_secs_f64()
    );
}

/// \[GGKKM\] Algorithm 6: the mean number of examples touched per step (2^{N_t+1} + 1 gradients,
/// the goal: about log₂ n), measured over the steps of seeded stopping-rule runs and
/// printed beside log₂ n and the exact mean 2C_M(M + 1) + 1; then one timed run at n = 4096.
fn bench_alg6(c: &mut Criterion) {
    use dpref::optim::sparse::{StoppingRule, stopping_time};
    for n in [256usize, 4096, 65_536] {
        let (mut touched, mut steps) = (0u64, 0u64);
        for seed in 0..200u64 {
            let t = stopping_time(n, 1.0, 1e-6 / (n as f64), StoppingRule::Lagged, Seeds::new(seed)).expect("valid");
            touched += t.levels.iter().map(|&l| (1u64 << (l + 1)) + 1).sum::<u64>();
            steps += t.steps();
        }
        let law = dpref::sampling::TruncatedGeometric::new(n.ilog2() - 1).expect("valid");
        println!(
            "alg6 n = {n}: mean examples touched per step {:.2} (log2 n = {:.2}, exact mean {:.2}), mean steps {:.1}",
            touched as f64 / steps as f64,
            (n as f64).log2(),
            law.mean_batch_size() + 1.0,
            steps as f64 / 200.0
        );
    }
    c.bench_function("alg6_stopping_rule_n4096", |b| {
        b.iter(|| stopping_time(4096, 1.0, 1e-9, StoppingRule::Lagged, Seeds::new(1)).expect("valid").steps())
    });
}

fn bench_basis_pursuit(c: &mut Criterion) {
    use dpref::linalg::basis_pursuit::BasisPursuitSettings;
    use dpref::optim::PrivateRelease;
    use dpref::optim::sparse::GaussianL1RecoveryConfig;
    let (n, s, d) = (100usize, 4usize, 20_000usize);
    let cfg = GaussianL1RecoveryConfig::new(1.0, s, 0.99, 1e-6).expect("valid");
    let m = cfg.measurements_m(n, d).expect("valid");
    // z̄: the mean of n random 4-sparse rows of norm 1 (entries ±1/2)
    let mut r = Seeds::new(4).stream(Stream::Data);
    let mut z_bar = vec![0.0; d];
    for _ in 0..n {
        for _ in 0..s {
            z_bar[r.random_range(0..d)] += if r.random::<bool>() { 0.5 } else { -0.5 } / n as f64;
        }
    }
    let mut release = PrivateRelease::statistics(0.0, Seeds::new(5)).expect("valid");
    let measured = cfg.release_measurements(&z_bar, n, m, &mut release).expect("valid");
    let settings = BasisPursuitSettings::default();
    let solve = || measured.system.basis_pursuit(&measured.b, &settings).expect("certified");
    let mut group = c.benchmark_group("ggkkm_alg2_basis_pursuit_e1");
    group.sample_size(10);
    group.bench_function(format!("m{m}_d{d}"), |b| b.iter(solve));
    group.finish();
    let start = std::time::Instant::now();
    let sol = solve();
    println!(
        "basis pursuit m = {m}, d = {d}: {} ADMM iterations, {} pivots, {:.2} s, gap {:.1e} (relative {:.1e}), residual {:.1e}",
        sol.iterations,
        sol.pivots,
        start.elapsed().as_secs_f64(),
        sol.gap,
        sol.gap / sol.primal_value,
        sol.residual
    );
}

criterion_group!(benches, bench, bench_alg6, bench_basis_pursuit);
criterion_main!(benches);
