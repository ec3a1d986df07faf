//! PASAN and PAGAN ([ADFJT] Algs. 1, 2) against the algorithms they must equal (notes §6): the
//! non-private limits bit for bit (O2: diagonal AdaGrad, AdaGrad-norm SGD, and DP-SGD's projected
//! SGD), the documented update rebuilt from the trace with non-increasing step sizes (O5), and
//! the biased templates of Algs. 4, 5.
//!
//! Reference implementations written here are independent of `dpref::optim`: they use only the
//! batch sampler with the run's `Stream::Sampling` stream (the batches are part of what is
//! compared), the ellipsoid projection (property-tested in `tests/prop_geometry.rs`), and plain
//! arithmetic in the order the algorithms document it, so that the comparisons are bit for bit.
//! Where a comparison cannot be bit for bit (reassociated sums), the tolerance is justified at
//! the test (STYLE b.12).

mod common;

use common::adaptive_runs::{ALGS, Alg, KINDS, bits, bits2, config, noise, regression, run};
use dpref::data::Dataset;
use dpref::geometry::{Domain, EllipsoidProjection, project_ellipsoid};
use dpref::loss::Loss;
use dpref::optim::RunSettings;
use dpref::optim::adaptive_noise::AdaptiveNoiseConfig;
use dpref::optim::adaptive_noise::biased::{StepRule, Template, TemplateConfig, no_noise};
use dpref::optim::dp_sgd::{DpSgdConfig, dp_sgd};
use dpref::optim::{OutputPoint, Trace};
use dpref::rng::{Seeds, Stream};
use dpref::sampling::BatchSampler;

// ---------------------------------------------------------------------------------------------
// O2: the non-private limits, bit for bit
// ---------------------------------------------------------------------------------------------

/// The update rule of the reference.
#[derive(Debug, Clone, Copy)]
enum Rule {
    /// Diagonal AdaGrad: `Sⱼ += gⱼ²`, `xⱼ ← Π(xⱼ − (α gⱼ)/√Sⱼ)`, 0/0 := 0.
    Diagonal,
    /// AdaGrad-norm SGD: `S += ‖g‖²`, `x ← Π(x − (α/√S) g)`, 0/0 := 0.
    Norm,
}

/// An independent reference of the non-private runs on the absolute loss: batches from the
/// same `BatchSampler` and `Stream::Sampling` stream; per-example subgradients
/// `sign(⟨aᵢ, x⟩ − bᵢ)·aᵢ` (0 at the kink), each projected onto `{g : Σ aⱼgⱼ² ≤ 1}` if an
/// ellipsoid is given; their sum, accumulated in batch order from +0, divided by the expected
/// batch size b = q·n (as `privatized_mean` normalises); the update `rule`; the box projection
/// by clamping (`radius = ∞`: unconstrained). Returns x^0, …, x^T.
#[allow(clippy::too_many_arguments)]
fn reference(
    data: &Dataset,
    rule: Rule,
    alpha: f64,
    q: f64,
    steps: u64,
    seed: u64,
    ellipsoid: Option<(&[f64], EllipsoidProjection)>,
    radius: f64,
) -> Vec<Vec<f64>> {
    let (n, d) = (data.n(), data.d());
    let sampler = BatchSampler::Poisson { q };
    let mut rng = Seeds::new(seed).stream(Stream::Sampling);
    let b = q * n as f64;
    let (mut x, mut batch) = (vec![0.0; d], Vec::new());
    let (mut s_diag, mut s_norm) = (vec![0.0; d], 0.0);
    let mut out = vec![x.clone()];
    for _ in 0..steps {
        sampler.sample(&mut rng, n, &mut batch);
        let mut sum = vec![0.0; d];
        for &i in &batch {
            let (a, y) = (data.row(i), data.label(i));
            let m: f64 = a.iter().zip(&x).map(|(p, q)| p * q).sum();
            let s = if m > y {
                1.0
            } else if m < y {
                -1.0
            } else {
                0.0
            };
            let mut g: Vec<f64> = a.iter().map(|v| s * v).collect();
            if let Some((e, kind)) = ellipsoid {
                project_ellipsoid(&mut g, e, kind);
            }
            for (acc, gj) in sum.iter_mut().zip(&g) {
                *acc += gj;
            }
        }
        let g: Vec<f64> = sum.iter().map(|v| v / b).collect();
        match rule {
            Rule::Diagonal => {
                for j in 0..d {
                    s_diag[j] += g[j] * g[j];
                    let root = s_diag[j].sqrt();
                    let step = if root > 0.0 { alpha * g[j] / root } else { 0.0 };
                    x[j] -= step;
                }
            }
            Rule::Norm => {
                s_norm += g.iter().map(|v| v * v).sum::<f64>();
                let step = if s_norm > 0.0 { alpha / s_norm.sqrt() } else { 0.0 };
                for j in 0..d {
                    x[j] -= step * g[j];
                }
            }
        }
        for v in x.iter_mut() {
            *v = v.clamp(-radius, radius);
        }
        out.push(x.clone());
    }
    out
}

fn assert_matches_reference(
    alg: Alg,
    cfg: &AdaptiveNoiseConfig,
    data: &Dataset,
    seed: u64,
    ellipsoid: Option<(&[f64], EllipsoidProjection)>,
) {
    let rule = if alg == Alg::Pagan { Rule::Diagonal } else { Rule::Norm };
    let radius = match cfg.domain {
        Domain::Box { radius } => radius,
        Domain::Unconstrained => f64::INFINITY,
        _ => unreachable!("the reference clamps to a box"),
    };
    let BatchSampler::Poisson { q } = cfg.settings.sampler else { unreachable!("Poisson") };
    let want = reference(data, rule, cfg.step_scale_alpha, q, cfg.settings.steps_t, seed, ellipsoid, radius);
    let (r, t) = run(alg, data, Loss::Absolute, cfg, seed);
    let t_len = cfg.settings.steps_t as usize;
    assert_eq!(bits2(&t.iterates), bits2(&want[..t_len]), "{alg:?} {:?} {ellipsoid:?}", cfg.domain);
    assert_eq!(bits(&r.x_last), bits(&want[t_len]));
    // the default output: the average of x^0..x^{T−1}, summed in order
    let mut avg = vec![0.0; data.d()];
    for x in &want[..t_len] {
        for (a, v) in avg.iter_mut().zip(x) {
            *a += v;
        }
    }
    let avg: Vec<f64> = avg.iter().map(|v| v / cfg.settings.steps_t as f64).collect();
    assert_eq!(bits(&r.x), bits(&avg));
    assert_eq!((r.privacy.epsilon, r.events.len()), (None, 0), "a non-private run claims no privacy");
}

/// O2 (PAGAN): with σ = 0 and B = ∞, PAGAN is bit for bit diagonal AdaGrad
/// `x^{k+1} = Π_X(x^k − α g^k/√Σ_{i≤k}(g^i)²)` (coordinatewise, evaluated as `(α gⱼ)/√Sⱼ`,
/// 0/0 := 0) on the same batches with the gradient mean `Σᵢ gᵢ/(qn)`, unconstrained and on a
/// box (the H-weighted box projection is clamping); with σ = 0 and a finite B it is clipped
/// AdaGrad, the per-example gradients projected onto `C/B²` first (both projections).
#[test]
fn prop_pagan_without_noise_or_clipping_is_diagonal_adagrad() {
    assert_noiseless_matches_reference(Alg::Pagan, 10, 11);
}

/// O2 (PASAN): with σ = 0 and B = ∞, PASAN is bit for bit AdaGrad-norm projected SGD
/// `x^{k+1} = Π_X(x^k − α g^k/√Σ_{i≤k}‖g^i‖²)` on the same batches; with a finite B, the same
/// with per-example ellipsoid projections.
#[test]
fn prop_pasan_without_noise_or_clipping_is_adagrad_norm_sgd() {
    assert_noiseless_matches_reference(Alg::Pasan, 12, 13);
}

/// O2's check for either optimiser, σ = 0, unconstrained and on a box: with B = ∞ against the
/// unclipped reference, with B = 0.4 against the reference clipped by each projection onto
/// `A = C/B²`. Data from `data_seed`, the run from `seed`.
fn assert_noiseless_matches_reference(alg: Alg, data_seed: u64, seed: u64) {
    let data = regression(80, 4, data_seed);
    for domain in [Domain::Unconstrained, Domain::Box { radius: 0.3 }] {
        let mut cfg = config(4, 40, f64::INFINITY, 0.25, noise(0.0));
        cfg.domain = domain.clone();
        assert_matches_reference(alg, &cfg, &data, seed, None);
        for kind in KINDS {
            let mut clipped = config(4, 40, 0.4, 0.25, noise(0.0));
            clipped.domain = domain.clone();
            clipped.projection = kind;
            let a: Vec<f64> = clipped.ellipsoid_c.iter().map(|c| c / (0.4 * 0.4)).collect();
            assert_matches_reference(alg, &clipped, &data, seed, Some((&a, kind)));
        }
    }
}

/// The DP-SGD baseline without noise or clipping is projected minibatch SGD with a constant
/// step η on the same batches, bit for bit (the mean normalised by qn).
#[test]
fn prop_dp_sgd_without_noise_or_clipping_is_projected_sgd() {
    let data = regression(80, 4, 14);
    let (q, eta, steps, radius) = (0.25, 0.05, 40u64, 0.3);
    let mut cfg = DpSgdConfig::new(eta, f64::INFINITY, RunSettings::poisson(steps, q, noise(0.0)).unwrap()).unwrap();
    cfg.domain = Domain::Box { radius };
    let mut t = Trace::default();
    let r = dp_sgd(&data, Loss::Absolute, &cfg, Seeds::new(15), &mut t).unwrap();
    let mut rng = Seeds::new(15).stream(Stream::Sampling);
    let (mut x, mut batch) = (vec![0.0; 4], Vec::new());
    for k in 0..steps as usize {
        assert_eq!(bits(&t.iterates[k]), bits(&x), "step {k}");
        BatchSampler::Poisson { q }.sample(&mut rng, 80, &mut batch);
        let mut sum = [0.0; 4];
        for &i in &batch {
            let g = data.row(i);
            let m: f64 = g.iter().zip(&x).map(|(p, q)| p * q).sum();
            let s = if m > data.label(i) {
                1.0
            } else if m < data.label(i) {
                -1.0
            } else {
                0.0
            };
            for j in 0..4 {
                sum[j] += s * g[j];
            }
        }
        for j in 0..4 {
            x[j] = (x[j] - eta * (sum[j] / (q * 80.0))).clamp(-radius, radius);
        }
    }
    assert_eq!(bits(&r.x_last), bits(&x));
}

// ---------------------------------------------------------------------------------------------
// O5
// ---------------------------------------------------------------------------------------------

/// O5 (PAGAN): along a noisy unconstrained run, the update is `x^{k+1} = x^k − H_k⁻¹ĝ^k` with
/// `H_k = diag(Σ_{i≤k} ĝ^i ĝ^iᵀ)^{1/2}/α` rebuilt from the recorded noisy gradients (current
/// step included), bit for bit; so H_k's diagonal is non-decreasing. The effective per-coordinate
/// steps `(x^k_j − x^{k+1}_j)/ĝ^k_j`, read off the iterates alone, are non-increasing in k up to
/// their cancellation error `4ε(|x^k_j| + |x^{k+1}_j|)/|x^k_j − x^{k+1}_j|` (relative).
#[test]
fn prop_pagan_step_sizes_are_non_increasing() {
    let data = regression(60, 4, 20);
    let cfg = config(4, 50, 0.5, 0.3, noise(2.0));
    let (r, t) = run(Alg::Pagan, &data, Loss::Absolute, &cfg, 21);
    let alpha = cfg.step_scale_alpha;
    let mut xs = t.iterates.clone();
    xs.push(r.x_last.clone());
    let mut s = [0.0; 4];
    let mut last_eta = [f64::INFINITY; 4];
    for (k, g) in t.noisy_gradients.iter().enumerate() {
        for j in 0..4 {
            s[j] += g[j] * g[j];
            let h = s[j].sqrt() / alpha;
            let predicted = xs[k][j] - alpha * g[j] / s[j].sqrt();
            assert_eq!(predicted.to_bits(), xs[k + 1][j].to_bits(), "step {k}, coordinate {j} (H = {h})");
            let dx = xs[k][j] - xs[k + 1][j];
            if dx != 0.0 {
                let eta = dx / g[j];
                let err = 4.0 * f64::EPSILON * (xs[k][j].abs() + xs[k + 1][j].abs()) / dx.abs();
                assert!(eta <= last_eta[j] * (1.0 + err + 1e-15), "coordinate {j}: step {eta} after {}", last_eta[j]);
                last_eta[j] = eta.min(last_eta[j]);
            }
        }
    }
}

/// O5 (PASAN): `α_k = α/√(Σ_{i≤k}‖ĝ^i‖²)` rebuilt from the recorded noisy gradients reproduces
/// every step bit for bit, and is non-increasing.
#[test]
fn prop_pasan_step_sizes_are_non_increasing() {
    let data = regression(60, 4, 22);
    let cfg = config(4, 50, 0.5, 0.3, noise(2.0));
    let (r, t) = run(Alg::Pasan, &data, Loss::Absolute, &cfg, 23);
    let mut xs = t.iterates.clone();
    xs.push(r.x_last.clone());
    let (mut s, mut last) = (0.0, f64::INFINITY);
    for (k, g) in t.noisy_gradients.iter().enumerate() {
        s += g.iter().map(|v| v * v).sum::<f64>();
        let alpha_k = cfg.step_scale_alpha / s.sqrt();
        assert!(alpha_k <= last, "α_k increased at {k}");
        last = alpha_k;
        for j in 0..4 {
            assert_eq!((xs[k][j] - alpha_k * g[j]).to_bits(), xs[k + 1][j].to_bits(), "step {k}, coordinate {j}");
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The biased templates (Algs. 4, 5)
// ---------------------------------------------------------------------------------------------

fn template(cfg: &AdaptiveNoiseConfig) -> TemplateConfig {
    TemplateConfig {
        steps_t: cfg.settings.steps_t,
        sampler: cfg.settings.sampler,
        domain: cfg.domain.clone(),
        output: OutputPoint::AverageFromZero,
        x0: None,
    }
}

/// PASAN is biased SGD (Alg. 4) with the estimator "mean of ellipsoid projections, normalised
/// by the expected batch size qn", the noise `s·N(0, A⁻¹)` (s = z/(qn)) and AdaGrad-norm steps;
/// PAGAN is biased AdaGrad (Alg. 5) with the same estimator and noise.
///
/// With σ = 0 the runs agree bit for bit (iterates, released gradients, output). With noise
/// they consume the same standard normals in the same order (one per coordinate per step from
/// `Stream::Noise`) but round differently: PASAN/PAGAN add `z·B/√Cⱼ·N` to the *sum* and then
/// divide by qn, the template adds `(z/qn)·B/√Cⱼ·N` to the mean. The runs then agree to a
/// relative 1e-10 (a few ulps per step over T = 25 steps; absolute loss, no sign flips).
#[test]
fn prop_adaptive_noise_equals_the_biased_templates() {
    let data = regression(60, 4, 24);
    for z in [0.0, 1.5] {
        for kind in KINDS {
            let mut cfg = config(4, 25, 0.4, 0.3, noise(z));
            cfg.projection = kind;
            cfg.domain = Domain::Box { radius: 0.5 };
            let a: Vec<f64> = cfg.ellipsoid_c.iter().map(|c| c / (0.4 * 0.4)).collect();
            let b = 0.3 * data.n() as f64;
            let stds: Vec<f64> = cfg.ellipsoid_c.iter().map(|c| (z / b) * (0.4 / c.sqrt())).collect();
            let mut estimate = |_k: u64, _x: &[f64], grads: &[Vec<f64>], out: &mut [f64]| {
                out.iter_mut().for_each(|v| *v = 0.0);
                for g in grads {
                    let mut p = g.clone();
                    project_ellipsoid(&mut p, &a, kind);
                    for (o, pj) in out.iter_mut().zip(&p) {
                        *o += pj;
                    }
                }
                out.iter_mut().for_each(|v| *v /= b);
            };
            let mut noise_fn = |_k: u64, rng: &mut dpref::rng::DpRng, g: &mut [f64]| {
                if z > 0.0 {
                    for (gj, s) in g.iter_mut().zip(&stds) {
                        *gj += s * dpref::noise::standard_normal(rng);
                    }
                }
            };
            for alg in ALGS {
                let (r, t) = run(alg, &data, Loss::Absolute, &cfg, 25);
                let mut tt = Trace::default();
                let which = match alg {
                    Alg::Pasan => Template::BiasedSgd(StepRule::AdaGradNorm { alpha: cfg.step_scale_alpha }),
                    Alg::Pagan => Template::BiasedAdaGrad { alpha: cfg.step_scale_alpha },
                };
                let rt = which
                    .run(&data, Loss::Absolute, &template(&cfg), Seeds::new(25), &mut tt, &mut estimate, &mut noise_fn)
                    .unwrap();
                if z == 0.0 {
                    assert_eq!(bits2(&t.iterates), bits2(&tt.iterates), "{alg:?} {kind:?}");
                    assert_eq!(bits2(&t.noisy_gradients), bits2(&tt.noisy_gradients));
                    assert_eq!((bits(&r.x), bits(&r.x_last)), (bits(&rt.x), bits(&rt.x_last)));
                } else {
                    for (x, y) in t.iterates.iter().zip(&tt.iterates).chain([(&r.x_last, &rt.x_last)]) {
                        for (p, q) in x.iter().zip(y) {
                            assert!((p - q).abs() <= 1e-10 * p.abs().max(1e-3), "{alg:?} {kind:?}: {p} vs {q}");
                        }
                    }
                }
            }
        }
    }
    // the printed template with its own unbiased estimator and no noise runs (sanity of the API)
    let cfg = config(4, 5, 0.4, 0.3, noise(0.0));
    let printed = TemplateConfig { sampler: BatchSampler::WithReplacement { batch_size: 10 }, ..template(&cfg) };
    let mut mean = dpref::optim::adaptive_noise::biased::mean_estimate;
    let r = Template::BiasedSgd(StepRule::Constant { alpha: 0.1 })
        .run(&data, Loss::Absolute, &printed, Seeds::new(1), &mut Trace::default(), &mut mean, &mut no_noise)
        .unwrap();
    assert!(r.events.is_empty() && r.privacy.epsilon.is_none());
}
