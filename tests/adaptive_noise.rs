//! Deterministic properties of [ADFJT]'s algorithms (notes §6): determinism and stream
//! separation (N4), data-independence of the noise and ellipsoid (D5), iterates in X (O1), and
//! the privacy events of PASAN and PAGAN. The other groups are in
//! `tests/adaptive_noise_{second_moment,equivalences,invariance}.rs`: the sensitivity,
//! calibration and outputs of Algorithm 3 (D6, O12), the non-private limits bit for bit (O2),
//! monotone step sizes (O5) and the biased templates (Algs. 4, 5), scale invariance (O3) and
//! permutation equivariance (O4).
//!
//! Reference implementations written here are independent of `dpref::optim`: they use only the
//! batch sampler with the run's `Stream::Sampling` stream (the batches are part of what is
//! compared), the ellipsoid projection (property-tested in `tests/prop_geometry.rs`), and plain
//! arithmetic in the order the algorithms document it, so that the comparisons are bit for bit.
//! Where a comparison cannot be bit for bit (reassociated sums), the tolerance is justified at
//! the test (STYLE b.12).

mod common;

use common::adaptive_runs::{ALGS, Alg, KINDS, bits, bits2, config, noise, regression, run};
use dpref::Error;
use dpref::accounting::DpEvent;
use dpref::data::Dataset;
use dpref::geometry::{Domain, project_ellipsoid};
use dpref::loss::Loss;
use dpref::optim::RunSettings;
use dpref::optim::adaptive_noise::{AdaptiveMethod, AdaptiveNoiseConfig};
use dpref::optim::dp_sgd::{DpSgdConfig, dp_sgd};
use dpref::optim::{Privacy, Trace};
use dpref::rng::{Seeds, Stream};
use dpref::sampling::BatchSampler;

// ---------------------------------------------------------------------------------------------
// N4: determinism and separate streams
// ---------------------------------------------------------------------------------------------

/// N4 (first half): the same seed gives a bit-identical run (output, last iterate, events,
/// privacy) and trace (every iterate and released noisy gradient), for PASAN, PAGAN (both
/// projections) and DP-SGD; another seed gives another run.
#[test]
fn prop_adaptive_noise_same_seed_gives_bit_identical_runs() {
    let data = regression(50, 4, 1);
    let target = Privacy::Target { epsilon: 2.0, delta: 1e-5 };
    for alg in ALGS {
        for kind in KINDS {
            let mut cfg = config(4, 15, 0.3, 0.2, target);
            cfg.projection = kind;
            let (r1, t1) = run(alg, &data, Loss::Absolute, &cfg, 7);
            let (r2, t2) = run(alg, &data, Loss::Absolute, &cfg, 7);
            assert_eq!(bits2(&t1.iterates), bits2(&t2.iterates), "{alg:?} {kind:?}");
            assert_eq!(bits2(&t1.noisy_gradients), bits2(&t2.noisy_gradients));
            assert_eq!((bits(&r1.x), bits(&r1.x_last)), (bits(&r2.x), bits(&r2.x_last)));
            assert_eq!((&r1.events, r1.privacy, r1.steps), (&r2.events, r2.privacy, r2.steps));
            assert_eq!((t1.iterates.len(), t1.noisy_gradients.len()), (15, 15));
            let (_, t3) = run(alg, &data, Loss::Absolute, &cfg, 8);
            assert_ne!(bits2(&t1.noisy_gradients), bits2(&t3.noisy_gradients));
        }
    }
    let run_settings = RunSettings::poisson(15, 0.2, target).unwrap().with_batch_size_b(0.2 * 50.0).unwrap();
    let sgd = DpSgdConfig::new(0.1, 1.0, run_settings).unwrap();
    let (mut t1, mut t2) = (Trace::default(), Trace::default());
    let r1 = dp_sgd(&data, Loss::Absolute, &sgd, Seeds::new(7), &mut t1).unwrap();
    let r2 = dp_sgd(&data, Loss::Absolute, &sgd, Seeds::new(7), &mut t2).unwrap();
    assert_eq!(bits2(&t1.iterates), bits2(&t2.iterates));
    assert_eq!(bits2(&t1.noisy_gradients), bits2(&t2.noisy_gradients));
    assert_eq!((bits(&r1.x), &r1.events, r1.privacy), (bits(&r2.x), &r2.events, r2.privacy));
}

/// One-hot records: record i has features `eᵢ` (d = n) and label 1, with the linear loss, so
/// its gradient is `eᵢ` at every x and, with `C = I`, `B = 1`, it is not projected
/// (`‖eᵢ‖_A = 1`). The released gradient is then `ĝⱼ = (1{j ∈ B_k} + z·Nⱼ)/b`, and for
/// z ≤ 2e-3 the batch is read off exactly as `{j : b·ĝⱼ > ½}` (it would take |N| > 250).
fn one_hot(n: usize) -> Dataset {
    let mut f = vec![0.0; n * n];
    for i in 0..n {
        f[i * n + i] = 1.0;
    }
    Dataset::new(f, vec![1.0; n], n).unwrap()
}

/// The batches `BatchSampler::sample` draws from `Seeds::new(seed).stream(Stream::Sampling)`.
fn batches(sampler: BatchSampler, n: usize, steps: u64, seed: u64) -> Vec<Vec<usize>> {
    let mut rng = Seeds::new(seed).stream(Stream::Sampling);
    let mut b = Vec::new();
    (0..steps)
        .map(|_| {
            sampler.sample(&mut rng, n, &mut b);
            b.clone()
        })
        .collect()
}

/// N4 (second half): the batch sequence depends only on the sampling stream. On the one-hot
/// data the batches of every step are decoded from the released gradients; with noise
/// multipliers 0, 1e-3 and 2e-3 (the noise changes, and with it the trajectory) the decoded
/// batches are identical and equal to the sampler's draws from the run's `Stream::Sampling`.
/// Another seed decodes to other batches (the check can fail).
#[test]
fn prop_adaptive_noise_batches_do_not_depend_on_the_noise() {
    let (n, steps, q) = (8usize, 40u64, 0.3);
    let data = one_hot(n);
    let expected = batches(BatchSampler::Poisson { q }, n, steps, 21);
    let b = q * n as f64;
    for alg in ALGS {
        let mut trajectories = Vec::new();
        for z in [0.0, 1e-3, 2e-3] {
            let mut cfg =
                AdaptiveNoiseConfig::new(n, 0.5, 1.0, RunSettings::poisson(steps, q, noise(z)).unwrap()).unwrap();
            cfg.ellipsoid_c = vec![1.0; n];
            let (_, trace) = run(alg, &data, Loss::Linear, &cfg, 21);
            let decoded: Vec<Vec<usize>> =
                trace.noisy_gradients.iter().map(|g| (0..n).filter(|&j| b * g[j] > 0.5).collect()).collect();
            assert_eq!(decoded, expected, "{alg:?}, z = {z}");
            trajectories.push(bits2(&trace.iterates));
        }
        assert_ne!(trajectories[1], trajectories[2], "{alg:?}: the noise did not change the run");
        let mut cfg =
            AdaptiveNoiseConfig::new(n, 0.5, 1.0, RunSettings::poisson(steps, q, noise(0.0)).unwrap()).unwrap();
        cfg.ellipsoid_c = vec![1.0; n];
        let (_, other) = run(alg, &data, Loss::Linear, &cfg, 22);
        let decoded: Vec<Vec<usize>> =
            other.noisy_gradients.iter().map(|g| (0..n).filter(|&j| b * g[j] > 0.5).collect()).collect();
        assert_ne!(decoded, expected);
    }
}

// ---------------------------------------------------------------------------------------------
// D5: the noise scale and the ellipsoid are configuration, not data
// ---------------------------------------------------------------------------------------------

/// D5: on replace-one neighbours D, D′ (record 0 replaced by one whose gradient is 100× larger
/// than any other, in another direction), with the same seed and a privacy target:
/// * the executed events and the privacy report (noise multiplier, ε) are identical;
/// * the noise released at every step, `ĝ^z − ĝ^0` (the run minus the same run with z = 0),
///   is identical up to rounding on D and D′: the noise scale `z·B/√Cⱼ` did not move;
/// * the data part differs exactly by the replaced record's projected gradients under the
///   configured `A = C/B²`: `ĝ⁰_D − ĝ⁰_D′ = 1{0 ∈ B_k}(π_A(g₀) − π_A(g′₀))/b`.
///
/// The linear loss makes gradients independent of x, so the data part of every step is known.
/// Tolerance: each released value is one rounded division of a sum of ≤ n terms of size ≤
/// max|ĝ|·b, so both differences carry ≤ 16ε·(sum of the magnitudes involved).
#[test]
fn prop_adaptive_noise_scale_and_ellipsoid_are_data_independent() {
    let (n, d, steps, q, big_b) = (40usize, 3usize, 20u64, 0.3, 0.7);
    let base = regression(n, d, 3);
    let labels: Vec<f64> = (0..n).map(|i| if i % 2 == 0 { 1.0 } else { -0.5 }).collect();
    let data = Dataset::new(base.features().to_vec(), labels, d).unwrap();
    let (x0, y0) = (data.row(0).to_vec(), data.label(0));
    let (x1, y1) = ([50.0, -80.0, 30.0], 5.0);
    let neighbour = data.with_replaced(0, &x1, y1).unwrap();
    let target = Privacy::Target { epsilon: 2.0, delta: 1e-5 };
    let in_batch = batches(BatchSampler::Poisson { q }, n, steps, 5);
    let b = q * n as f64;
    let tol = 16.0 * f64::EPSILON;
    for alg in ALGS {
        for kind in KINDS {
            let mut cfg = config(d, steps, big_b, q, target);
            cfg.projection = kind;
            let a: Vec<f64> = cfg.ellipsoid_c.iter().map(|c| c / (big_b * big_b)).collect();
            let (rd, td) = run(alg, &data, Loss::Linear, &cfg, 5);
            let (rn, tn) = run(alg, &neighbour, Loss::Linear, &cfg, 5);
            assert_eq!(rd.events, rn.events, "{alg:?} {kind:?}");
            assert_eq!(rd.privacy, rn.privacy);
            assert!(rd.privacy.sigma > 0.0 && rd.events.len() == steps);
            let mut zero = cfg.clone();
            zero.settings.privacy = noise(0.0);
            let (_, t0d) = run(alg, &data, Loss::Linear, &zero, 5);
            let (_, t0n) = run(alg, &neighbour, Loss::Linear, &zero, 5);
            let proj = |x: &[f64], y: f64| {
                let mut g: Vec<f64> = x.iter().map(|v| y * v).collect();
                project_ellipsoid(&mut g, &a, kind);
                g
            };
            let (p0, p1) = (proj(&x0, y0), proj(&x1, y1));
            for (k, batch_k) in in_batch.iter().enumerate() {
                let (gd, gn, g0d, g0n) =
                    (&td.noisy_gradients[k], &tn.noisy_gradients[k], &t0d.noisy_gradients[k], &t0n.noisy_gradients[k]);
                let has0 = batch_k.contains(&0);
                for j in 0..d {
                    let mag = gd[j].abs() + gn[j].abs() + g0d[j].abs() + g0n[j].abs();
                    let (nd, nn) = (gd[j] - g0d[j], gn[j] - g0n[j]);
                    assert!((nd - nn).abs() <= tol * mag, "{alg:?} {kind:?} step {k}: noise {nd} vs {nn}");
                    let shift = if has0 { (p0[j] - p1[j]) / b } else { 0.0 };
                    let scale = g0d[j].abs() + g0n[j].abs() + (p0[j].abs() + p1[j].abs()) / b;
                    assert!(
                        (g0d[j] - g0n[j] - shift).abs() <= tol * scale,
                        "{alg:?} {kind:?} step {k}: data part {} vs {shift}",
                        g0d[j] - g0n[j]
                    );
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// O1: iterates stay in X
// ---------------------------------------------------------------------------------------------

/// Whether x lies on the boundary of X (to a relative 1e-9): the projection was active.
fn on_boundary(domain: &Domain, x: &[f64]) -> bool {
    let near = |v: f64, r: f64| (v - r).abs() <= 1e-9 * r;
    match *domain {
        Domain::Box { radius } => x.iter().any(|v| v.abs() == radius),
        Domain::L2Ball { radius } => near(dpref::linalg::norm_l2(x), radius),
        Domain::L1Ball { radius } => near(dpref::linalg::norm_l1(x), radius),
        Domain::Simplex => x.contains(&0.0),
        Domain::Unconstrained => false,
    }
}

/// O1: every recorded iterate and the output lie in X (`Domain::contains`) for PASAN and PAGAN
/// on a box and an l2 ball, PASAN and DP-SGD also on an l1 ball, with noise large enough that
/// unprojected steps leave X (checked: at least 10 of the 59 iterates after x^0 lie on the
/// boundary, so the projections are exercised). PAGAN refuses the l1 ball (no H-weighted projection) with
/// `Unsupported`, without panicking.
#[test]
fn prop_adaptive_noise_iterates_stay_in_the_domain() {
    let data = regression(60, 5, 6);
    let domains = [Domain::Box { radius: 0.2 }, Domain::L2Ball { radius: 0.3 }, Domain::L1Ball { radius: 0.4 }];
    for domain in domains {
        for alg in ALGS {
            if alg == Alg::Pagan && matches!(domain, Domain::L1Ball { .. }) {
                continue;
            }
            for kind in KINDS {
                let mut cfg = config(5, 60, 0.5, 0.3, noise(8.0));
                cfg.domain = domain.clone();
                cfg.projection = kind;
                cfg.step_scale_alpha = 2.0;
                cfg.settings.x0 = Some(vec![5.0; 5]); // outside: projected first
                let (r, t) = run(alg, &data, Loss::Absolute, &cfg, 9);
                for (k, x) in t.iterates.iter().enumerate() {
                    assert!(domain.contains(x), "{alg:?} {domain:?}: x^{k} = {x:?}");
                }
                assert!(domain.contains(&r.x_last) && domain.contains(&r.x), "{alg:?} {domain:?}");
                let active = t.iterates[1..].iter().filter(|x| on_boundary(&domain, x)).count();
                assert!(active >= 10, "{alg:?} {domain:?}: the projection was active only {active} times");
            }
        }
        let run_settings = RunSettings::poisson(60, 0.3, noise(8.0)).unwrap().with_batch_size_b(0.3 * 60.0).unwrap();
        let mut sgd = DpSgdConfig::new(1.0, 1.0, run_settings).unwrap();
        sgd.domain = domain.clone();
        let mut t = Trace::default();
        let r = dp_sgd(&data, Loss::Absolute, &sgd, Seeds::new(9), &mut t).unwrap();
        assert!(t.iterates.iter().all(|x| domain.contains(x)) && domain.contains(&r.x_last), "DP-SGD {domain:?}");
        assert!(t.iterates[1..].iter().filter(|x| on_boundary(&domain, x)).count() >= 10, "DP-SGD {domain:?}");
    }
    let mut cfg = config(5, 3, 0.5, 0.3, noise(1.0));
    cfg.domain = Domain::L1Ball { radius: 1.0 };
    let r = AdaptiveMethod::Pagan.run(&data, Loss::Absolute, &cfg, Seeds::new(9), &mut Trace::default());
    assert!(matches!(r, Err(Error::Unsupported { .. })), "{r:?}");
}

/// The events are `T` copies of the per-step Poisson-sampled Gaussian and nothing else, and the
/// accountant reads them back to the ε the target asked for (never above it).
#[test]
fn prop_adaptive_noise_events_are_one_per_step_and_meet_the_target() {
    let data = regression(100, 3, 26);
    for alg in ALGS {
        let cfg = config(3, 30, 0.5, 0.1, Privacy::Target { epsilon: 1.5, delta: 1e-5 });
        let (r, _) = run(alg, &data, Loss::Absolute, &cfg, 27);
        assert_eq!(r.events.len(), 30);
        match r.events.as_event().unwrap() {
            DpEvent::SelfComposed { event, count } => {
                assert_eq!(count, 30);
                assert!(
                    matches!(*event, DpEvent::PoissonSampled { sampling_probability, .. } if sampling_probability == 0.1)
                );
            }
            other => panic!("{alg:?}: {other:?}"),
        }
        let eps = r.privacy.epsilon.unwrap();
        assert!((1.5 * 0.99..=1.5).contains(&eps), "{alg:?}: accounted ε = {eps}");
    }
}
