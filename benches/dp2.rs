//! DP² speed (issue 6): steps of DP²-RMSProp on the sparse synthetic task (d = 10⁴, expected
//! batch b = 64, 60 non-zeros per example, n = 25,000) against DP-SGD on the same task and the
//! same sparse oracle (goal: DP²'s step within 1.2× of DP-SGD's). Both cost O(b·nnz + d) per
//! step: the sparse clipped sum plus d Gaussian draws and O(d) vector updates. The ratio is
//! printed after the criterion group. Data are built outside the timed closures.

mod common;

use common::mean_time;
use criterion::{Criterion, criterion_group, criterion_main};
use dpref::loss::Loss;
use dpref::model::SparseGlm;
use dpref::optim::RunSettings;
use dpref::optim::dp2::Preconditioner;
use dpref::optim::dp2::algorithm1::{Dp2Config, dp2};
use dpref::optim::dpagd::minibatch::{MinibatchConfig, Update, dp_minibatch_on};
use dpref::optim::{NoTrace, Privacy};
use dpref::rng::Seeds;
use std::time::Duration;

const N: usize = 25_000;
const D: usize = 10_000;
const WORDS: usize = 60;
const STEPS: u64 = 200;

fn bench(c: &mut Criterion) {
    let data = dpref::experiments::dp2::synthetic_task(N, D, WORDS, 5).expect("valid");
    let oracle = SparseGlm { loss: Loss::Logistic, data: &data };
    let q = 64.0 / N as f64;
    let privacy = Privacy::NoiseMultiplier { sigma: 1.0, report_delta: None };
    let run_settings = RunSettings::poisson(STEPS, q, privacy).unwrap().with_batch_size_b(64.0).unwrap();
    let dp2_cfg =
        Dp2Config::new(Preconditioner::RmsProp { beta: 0.9 }, (50, 50), (1.0, 0.1), (0.5, 2.0), run_settings).unwrap();
    let run_settings = RunSettings::poisson(STEPS, q, privacy).unwrap().with_batch_size_b(64.0).unwrap();
    let sgd_cfg = MinibatchConfig::new(Update::Sgd, 1.0, 0.5, run_settings).unwrap();
    let run_dp2 = || dp2(&oracle, &dp2_cfg, Seeds::new(1), &mut NoTrace).expect("valid");
    let run_sgd = || dp_minibatch_on(&oracle, &sgd_cfg, Seeds::new(1), &mut NoTrace).expect("valid");
    let mut group = c.benchmark_group("dp2_sparse_d10000_b64_nnz60_200_steps");
    group.sample_size(10);
    group.bench_function("dp_sgd", |b| b.iter(run_sgd));
    group.bench_function("dp2_rmsprop", |b| b.iter(run_dp2));
    group.finish();
    let (t_sgd, t_dp2) = (mean_time(|| drop(run_sgd()), 20), mean_time(|| drop(run_dp2()), 20));
    let per_step = |t: Duration| t.as_secs_f64() / STEPS as f64 * 1e6;
    println!(
        "DP-SGD {:.2} us/step, DP2-RMSProp {:.2} us/step: ratio {:.3} (goal <= 1.2)",
        per_step(t_sgd),
        per_step(t_dp2),
        t_dp2.as_secs_f64() / t_sgd.as_secs_f64()
    );
}

criterion_group!(benches, bench);
criterion_main!(benches);
