//! The GLM fast path (src/optim/fast.rs) against the reference privatised gradient: same seed,
//! same batches, same noise draws; the only differences are reassociations (products taken in
//! another order, sums in chunks), each within a few ulp of the summed magnitudes.

use dpref::data::Dataset;
use dpref::geometry::{Domain, EllipsoidProjection};
use dpref::loss::Loss;
use dpref::optim::RunSettings;
use dpref::optim::adaptive_noise::{AdaptiveMethod, AdaptiveNoiseConfig};
use dpref::optim::dp_sgd::{DpSgdConfig, dp_sgd};
use dpref::optim::{GradientEngine, Privacy, Trace};
use dpref::rng::{Seeds, Stream};
use proptest::prelude::*;

fn logistic(n: usize, d: usize, seed: u64) -> Dataset {
    let mut rng = Seeds::new(seed).stream(Stream::Data);
    let mut x = Vec::new();
    let mut y = Vec::new();
    for i in 0..n {
        let row: Vec<f64> = (0..d).map(|j| dpref::noise::standard_normal(&mut rng) * (1.0 + j as f64 / 3.0)).collect();
        y.push(if (row[0] + row[1 % d]) > 0.0 || i % 7 == 0 { 1.0 } else { 0.0 });
        x.extend(row);
    }
    Dataset::new(x, y, d).unwrap()
}

/// `|a − b| ≤ tol·(1 + max|·|)` coordinatewise over whole traces.
fn assert_traces_close(a: &Trace, b: &Trace, tol: f64, what: &str) {
    assert_eq!(a.noisy_gradients.len(), b.noisy_gradients.len());
    for (k, (ga, gb)) in a.noisy_gradients.iter().zip(&b.noisy_gradients).enumerate() {
        let scale = 1.0 + ga.iter().chain(gb).fold(0.0f64, |m, v| m.max(v.abs()));
        for (x, y) in ga.iter().zip(gb) {
            assert!((x - y).abs() <= tol * scale, "{what}, step {k}: {x} vs {y}");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Over 10 steps the fast and reference runs of DP-SGD, PASAN and PAGAN (radial) release the
    /// same noisy gradients up to 1e-11 relative: per step the reassociations cost a few ulp
    /// (≤ 8u·b of the summed magnitudes, b ≤ 60 here), and 10 AdaGrad steps amplify them by at
    /// most a small factor on these well-conditioned problems. The Euclidean projection uses the
    /// reference inside the fast path, so it must match bit for bit.
    #[test]
    fn prop_fast_path_matches_reference(seed in 0u64..1000, d in 1usize..20, clip in 0.1f64..5.0, sigma in 0.0f64..3.0) {
        let data = logistic(300, d, seed);
        let privacy = Privacy::NoiseMultiplier { sigma, report_delta: None };
        let run_dp = |engine| {
            let mut cfg = DpSgdConfig::new(0.3, clip, RunSettings::poisson(10, 0.2, privacy).unwrap().with_batch_size_b(60.0).unwrap()).unwrap();
            cfg.engine = engine;
            cfg.domain = Domain::L2Ball { radius: 3.0 };
            let mut t = Trace::default();
            dp_sgd(&data, Loss::Logistic, &cfg, Seeds::new(seed), &mut t).unwrap();
            t
        };
        assert_traces_close(&run_dp(GradientEngine::Reference), &run_dp(GradientEngine::GlmFast), 1e-11, "dp-sgd");
        let c: Vec<f64> = (0..d).map(|j| 1.0 + j as f64).collect();
        for projection in [EllipsoidProjection::Radial, EllipsoidProjection::Euclidean] {
            let run = |engine, adagrad: bool| {
                let mut cfg = AdaptiveNoiseConfig::new(d, 0.5, clip, RunSettings::poisson(10, 0.2, privacy).unwrap().with_batch_size_b(60.0).unwrap()).unwrap();
                cfg.ellipsoid_c = c.clone();
                cfg.projection = projection;
                cfg.engine = engine;
                cfg.domain = Domain::Box { radius: 2.0 };
                let mut t = Trace::default();
                if adagrad {
                    AdaptiveMethod::Pagan.run(&data, Loss::Logistic, &cfg, Seeds::new(seed), &mut t).unwrap();
                } else {
                    AdaptiveMethod::Pasan.run(&data, Loss::Logistic, &cfg, Seeds::new(seed), &mut t).unwrap();
                }
                t
            };
            for adagrad in [false, true] {
                let (r, f) = (run(GradientEngine::Reference, adagrad), run(GradientEngine::GlmFast, adagrad));
                if projection == EllipsoidProjection::Euclidean {
                    prop_assert_eq!(&r, &f);
                } else {
                    assert_traces_close(&r, &f, 1e-11, if adagrad { "pagan" } else { "pasan" });
                }
            }
        }
    }
}

/// Power twin of the differential test: a fast path that forgot the clip (factor 1) differs from
/// the reference by far more than the tolerance on data whose gradients exceed the clip.
#[test]
fn fast_path_differential_test_detects_a_missing_clip() {
    let data = logistic(300, 5, 1);
    let privacy = Privacy::NoiseMultiplier { sigma: 0.0, report_delta: None };
    let run = |clip: f64| {
        let cfg = DpSgdConfig::new(0.3, clip, RunSettings::poisson(3, 0.5, privacy).unwrap()).unwrap();
        let mut t = Trace::default();
        dp_sgd(&data, Loss::Logistic, &DpSgdConfig { engine: GradientEngine::GlmFast, ..cfg }, Seeds::new(2), &mut t)
            .unwrap();
        t
    };
    let (clipped, unclipped) = (run(0.1), run(f64::INFINITY));
    let diff = clipped.noisy_gradients[0]
        .iter()
        .zip(&unclipped.noisy_gradients[0])
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    assert!(diff > 1e-3, "{diff}");
}

/// A record whose per-example gradient the clip factor cannot bound contributes nothing, in the
/// fast path as in the reference: (a) features 1e-170 with label 1e300 under the squared loss
/// (Σx² underflows to 0, so the computed norm was 0, the factor 1, and the term 1e130 went in
/// unclipped: ‖x‖ = 2e130 after one step); (b) features and x⁰ at 1e200 (ℓ′ = ∞, and ∞·(C/∞)
/// released NaN). One full-batch step without noise at clip 1, b = 4, η = 0.1 moves x by at most
/// η·C = 0.1, and the sparse GLM's clipped sum agrees.
#[test]
fn unboundable_terms_contribute_nothing_in_every_engine() {
    use dpref::model::{ClippedSum, GradientOracle, SparseGlm};
    let privacy = Privacy::NoiseMultiplier { sigma: 0.0, report_delta: None };
    let cases: [(Vec<f64>, [f64; 2]); 2] = [(vec![1e-170, 1e-170], [0.0, 0.0]), (vec![1e200, 1e200], [1e200, 1e200])];
    for (features, x0) in cases {
        let mut rows = features.clone();
        rows.extend([1.0, 0.5, -0.3, 0.2, 1.0, -1.0]);
        let data = Dataset::new(rows, vec![1e300, 0.0, 1.0, 0.0], 2).unwrap();
        for engine in [GradientEngine::Reference, GradientEngine::GlmFast] {
            let settings = RunSettings::full_batch(1, privacy).unwrap().with_batch_size_b(4.0).unwrap();
            let mut cfg = DpSgdConfig::new(0.1, 1.0, settings).unwrap();
            (cfg.engine, cfg.settings.x0) = (engine, Some(x0.to_vec()));
            let run = dp_sgd(&data, Loss::Squared, &cfg, Seeds::new(1), &mut Trace::default()).unwrap();
            let moved = run.x_last.iter().zip(x0).map(|(a, b)| (a - b).powi(2)).sum::<f64>().sqrt();
            assert!(moved <= 0.1 * (1.0 + 1e-12), "{features:?} {engine:?}: moved {moved}, x = {:?}", run.x_last);
        }
        let sparse = dpref::data::sparse::SparseDataset::from_dense(&data);
        let glm = SparseGlm { loss: Loss::Squared, data: &sparse };
        let mut out = [0.0; 2];
        glm.preconditioned_clipped_sum(&x0, ClippedSum::new(&[0, 1, 2, 3], 1.0), &mut out);
        assert!(
            out.iter().all(|v| v.is_finite()) && out.iter().map(|v| v * v).sum::<f64>().sqrt() <= 3.0 + 1e-12,
            "{out:?}"
        );
    }
}
