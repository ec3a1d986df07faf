//! Deterministic properties of [ADFJT]'s algorithms (notes §6): determinism and stream
//! separation (N4), data-independence of the noise and ellipsoid (D5), the sensitivity and
//! calibration of Algorithm 3 (D6), iterates in X (O1), the non-private limits bit for bit (O2),
//! scale invariance (O3), permutation equivariance (O4), monotone step sizes (O5), the outputs
//! of Algorithm 3 (O12), and PASAN/PAGAN as instances of the biased templates (Algs. 4, 5).
//!
//! Reference implementations written here are independent of `dpref::optim`: they use only the
//! batch sampler with the run's `Stream::Sampling` stream (the batches are part of what is
//! compared), the ellipsoid projection (property-tested in `tests/prop_geometry.rs`), and plain
//! arithmetic in the order the algorithms document it, so that the comparisons are bit for bit.
//! Where a comparison cannot be bit for bit (reassociated sums), the tolerance is justified at
//! the test (STYLE b.12).

use dpref::Error;
use dpref::accounting::{DpEvent, Neighbouring, gdp};
use dpref::data::{Dataset, absolute_regression};
use dpref::geometry::{Domain, EllipsoidProjection, project_ellipsoid};
use dpref::loss::Loss;
use dpref::optim::adaptive_noise::biased::{StepRule, TemplateConfig, biased_adagrad, biased_sgd, no_noise};
use dpref::optim::adaptive_noise::second_moment::{
    MomentNoise, SecondMomentConfig, default_rounds, ellipsoid_from_moments, private_second_moments,
};
use dpref::optim::adaptive_noise::{AdaptiveNoiseConfig, pagan::pagan, pasan::pasan};
use dpref::optim::dp_sgd::{DpSgdConfig, dp_sgd};
use dpref::optim::{OutputPoint, Privacy, Run, Trace};
use dpref::rng::{Seeds, Stream};
use dpref::sampling::BatchSampler;
use proptest::prelude::*;

const KINDS: [EllipsoidProjection; 2] = [EllipsoidProjection::Radial, EllipsoidProjection::Euclidean];

#[derive(Debug, Clone, Copy, PartialEq)]
enum Alg {
    Pasan,
    Pagan,
}

const ALGS: [Alg; 2] = [Alg::Pasan, Alg::Pagan];

/// Runs `alg`; a config without a declared normaliser gets the public b = q·n of this fixed
/// dataset (no test here compares datasets of different sizes).
fn run(alg: Alg, data: &Dataset, loss: Loss, cfg: &AdaptiveNoiseConfig, seed: u64) -> (Run, Trace) {
    let mut trace = Trace::default();
    let mut cfg = cfg.clone();
    cfg.batch_size_b = cfg.batch_size_b.or(Some(cfg.sampler.expected_batch_size(data.n())));
    let r = match alg {
        Alg::Pasan => pasan(data, loss, &cfg, Seeds::new(seed), &mut trace),
        Alg::Pagan => pagan(data, loss, &cfg, Seeds::new(seed), &mut trace),
    };
    (r.unwrap_or_else(|e| panic!("{alg:?}: {e}")), trace)
}

fn bits(x: &[f64]) -> Vec<u64> {
    x.iter().map(|v| v.to_bits()).collect()
}

fn bits2(x: &[Vec<f64>]) -> Vec<Vec<u64>> {
    x.iter().map(|v| bits(v)).collect()
}

fn noise(sigma: f64) -> Privacy {
    Privacy::NoiseMultiplier { sigma, report_delta: None }
}

/// The synthetic absolute regression of notes §5.1 (σⱼ = j^{−3/2}, τ = 0.1).
fn regression(n: usize, d: usize, seed: u64) -> Dataset {
    absolute_regression(n, d, 0.1, &mut Seeds::new(seed).stream(Stream::Data)).unwrap().0
}

/// A config with a non-isotropic ellipsoid `C`, clip radius B, Poisson rate q, step scale α.
fn config(d: usize, steps: u64, b: f64, q: f64, privacy: Privacy) -> AdaptiveNoiseConfig {
    let mut cfg = AdaptiveNoiseConfig::new(d, steps, 0.5, b, q, privacy);
    cfg.ellipsoid_c = (0..d).map(|j| ((j + 1) as f64).powf(2.0)).collect();
    cfg
}

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
    let sgd = DpSgdConfig::new(15, 0.1, 1.0, 0.2, target).with_batch_size_b(0.2 * 50.0);
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
            let mut cfg = AdaptiveNoiseConfig::new(n, steps, 0.5, 1.0, q, noise(z));
            cfg.ellipsoid_c = vec![1.0; n];
            let (_, trace) = run(alg, &data, Loss::Linear, &cfg, 21);
            let decoded: Vec<Vec<usize>> =
                trace.noisy_gradients.iter().map(|g| (0..n).filter(|&j| b * g[j] > 0.5).collect()).collect();
            assert_eq!(decoded, expected, "{alg:?}, z = {z}");
            trajectories.push(bits2(&trace.iterates));
        }
        assert_ne!(trajectories[1], trajectories[2], "{alg:?}: the noise did not change the run");
        let mut cfg = AdaptiveNoiseConfig::new(n, steps, 0.5, 1.0, q, noise(0.0));
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
            zero.privacy = noise(0.0);
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
// D6 and O12: Algorithm 3
// ---------------------------------------------------------------------------------------------

/// `ρ_t = 4 r max(1, ln r) 2^{−(t−1)}` (notes §2.3, corrected).
fn rho(r: f64, t: u32) -> f64 {
    4.0 * r * r.ln().max(1.0) * (-(t as f64 - 1.0)).exp2()
}

/// The noiseless release of round t on the coordinates `u`: `(1/n) Σᵢ min(zᵢⱼ², ρ_t²)`.
fn truncated_means(data: &Dataset, rho_t: f64, u: &[usize]) -> Vec<f64> {
    u.iter()
        .map(|&j| (0..data.n()).map(|i| data.row(i)[j].powi(2).min(rho_t * rho_t)).sum::<f64>() / data.n() as f64)
        .collect()
}

/// |U_t| from the output: coordinates still active at round t are those assigned at round ≥ t
/// (`σ̂ⱼ ≤ 2^{−t}`), the final fill-in `2^{−T_est}` included.
fn active_at(sigma_hat: &[f64], t: u32) -> usize {
    sigma_hat.iter().filter(|&&s| s <= (-(t as f64)).exp2()).count()
}

fn rows(seed: u64, n: usize, scales: &[f64]) -> Dataset {
    let mut rng = Seeds::new(seed).stream(Stream::Data);
    let f: Vec<f64> = (0..n)
        .flat_map(|_| scales.iter().map(|s| s * dpref::noise::standard_normal(&mut rng)).collect::<Vec<_>>())
        .collect();
    Dataset::new(f, vec![0.0; n], scales.len()).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 128,
        failure_persistence: None,
        rng_seed: proptest::test_runner::RngSeed::Fixed(0x616c_6733),
        ..ProptestConfig::default()
    })]

    /// D6 (brute force): for random data (coordinates of very different scales, so that the
    /// truncation at ρ_t binds on some and not others), a random replace-one neighbour (the new
    /// record up to 100× larger), every round t and a random active set U, the noiseless release
    /// moves by `‖v_U(D) − v_U(D′)‖₂ ≤ √|U|·ρ_t²/n` (each truncated square lies in [0, ρ_t²]).
    /// Tolerance: a relative 1e-12 for the n-term sums.
    #[test]
    fn prop_second_moment_round_sensitivity_is_sqrt_u_rho2_over_n(
        seed in 0u64..1_000_000, r in 0.75..4.0f64, i in 0usize..30, new_scale in 0.0..100.0f64, mask in 1u32..64
    ) {
        let (n, scales) = (30usize, [3.0, 1.0, 0.3, 0.05, 0.01, 1e-3]);
        let data = rows(seed, n, &scales);
        let mut rng = Seeds::new(seed).stream(Stream::Other(6));
        let new_row: Vec<f64> = (0..6).map(|_| new_scale * dpref::noise::standard_normal(&mut rng)).collect();
        let neighbour = data.with_replaced(i, &new_row, 0.0).unwrap();
        let u: Vec<usize> = (0..6).filter(|j| mask & (1 << j) != 0).collect();
        for t in 1..=default_rounds(100) {
            let rt = rho(r, t);
            let (v, w) = (truncated_means(&data, rt, &u), truncated_means(&neighbour, rt, &u));
            let diff = v.iter().zip(&w).map(|(p, q)| (p - q).powi(2)).sum::<f64>().sqrt();
            let bound = (u.len() as f64).sqrt() * rt * rt / n as f64;
            prop_assert!(diff <= bound * (1.0 + 1e-12), "round {t}: {diff} > {bound}");
        }
    }

    /// O12 (monotone, exact moments): rows `±σ` give population-exact truncated moments
    /// `min(σⱼ², ρ_t²)`. Without noise a larger σⱼ never gets a smaller σ̂ⱼ, and
    /// σ̂ⱼ ∈ [σⱼ/2, 2σⱼ] whenever σⱼ ≥ 2^{−T_est−1} (detection at the first t with
    /// σⱼ ≥ 2^{−t−1}, since ρ_t ≥ 2^{3−t} never truncates there), else σ̂ⱼ = 2^{−T_est}.
    #[test]
    fn prop_second_moment_is_monotone_on_exact_moments(
        raw in proptest::collection::vec((-10.0..0.0f64).prop_map(f64::exp2), 2..12), r in 0.75..3.0f64
    ) {
        let top = raw.iter().copied().fold(0.0, f64::max);
        let sigma: Vec<f64> = raw.iter().map(|s| s / top).collect(); // max σ = 1
        let d = sigma.len();
        let mut f = sigma.clone();
        f.extend(sigma.iter().map(|s| -s));
        let data = Dataset::new(f, vec![0.0, 0.0], d).unwrap();
        let cfg = SecondMomentConfig { moment_ratio_r: r, rounds_t_est: None, noise: MomentNoise::Multiplier(0.0) };
        let est = private_second_moments(&data, &cfg, Seeds::new(1)).unwrap();
        let floor = (-(est.rounds as f64)).exp2();
        for i in 0..d {
            for j in 0..d {
                if sigma[i] > sigma[j] {
                    prop_assert!(est.sigma_hat[i] >= est.sigma_hat[j], "σ {} > {} but σ̂ {} < {}", sigma[i], sigma[j], est.sigma_hat[i], est.sigma_hat[j]);
                }
            }
            if sigma[i] >= floor / 2.0 {
                prop_assert!(sigma[i] / 2.0 <= est.sigma_hat[i] && est.sigma_hat[i] <= 2.0 * sigma[i], "σ = {} σ̂ = {}", sigma[i], est.sigma_hat[i]);
            } else {
                prop_assert_eq!(est.sigma_hat[i], floor);
            }
        }
    }
}

/// D6 (the implementation): with a given per-round multiplier z, round t's noise std is
/// `z·√|U_t|·ρ_t²/n` with `|U_t|` read off the output; the events are T_est Gaussians that
/// compose (exact GDP) to `μ = √T_est/z`; `Ĉ = (rσ̂)^{−4/3}/4` (and `Ĉ^{−1/2} = 2(rσ̂)^{2/3}`,
/// the corrected form of App. C). The extreme neighbour (a record with every |zⱼ| ≥ ρ₁
/// replaced by zeros) attains the brute-force bound, so the calibration is not loose.
/// Tolerances: 8ε relative (the std is a product of four rounded factors).
#[test]
fn prop_second_moment_noise_is_calibrated_to_the_round_sensitivity() {
    let (n, r, z) = (200usize, 1.5, 3.0);
    let scales: Vec<f64> = (1..=20).map(|j| (j as f64).powf(-1.5)).collect();
    let data = rows(40, n, &scales);
    let cfg = SecondMomentConfig { moment_ratio_r: r, rounds_t_est: None, noise: MomentNoise::Multiplier(z) };
    let est = private_second_moments(&data, &cfg, Seeds::new(2)).unwrap();
    assert_eq!(est.rounds, default_rounds(20));
    assert_eq!(est.noise_stds.len(), est.rounds as usize);
    for t in 1..=est.rounds {
        let u = active_at(&est.sigma_hat, t);
        let expected = z * (u as f64).sqrt() * rho(r, t).powi(2) / n as f64;
        let got = est.noise_stds[t as usize - 1];
        assert!(
            (got - expected).abs() <= 8.0 * f64::EPSILON * expected,
            "round {t}: std {got} vs {expected} (|U| = {u})"
        );
    }
    // a round whose active set is empty releases nothing and records no event
    let ran = (1..=est.rounds).filter(|&t| active_at(&est.sigma_hat, t) > 0).count();
    assert!(ran >= 1);
    assert_eq!(est.events.len(), ran as u64);
    let mu = gdp::mu_of_gaussian_composition(&est.events.as_event().unwrap(), Neighbouring::AddRemove).unwrap();
    let expected_mu = (ran as f64).sqrt() / z;
    assert!((mu - expected_mu).abs() <= 1e-12 * expected_mu, "μ = {mu} vs {expected_mu}");
    let c_hat = ellipsoid_from_moments(&est.sigma_hat, r);
    for (c, s) in c_hat.iter().zip(&est.sigma_hat) {
        assert!((c - (r * s).powf(-4.0 / 3.0) / 4.0).abs() <= 4.0 * f64::EPSILON * c);
        assert!((c.powf(-0.5) - 2.0 * (r * s).powf(2.0 / 3.0)).abs() <= 1e-14 * c.powf(-0.5));
    }
    // attainment: the whole active set moves by exactly ρ_t²/n per coordinate
    let big = vec![100.0; 20];
    let d_big = data.with_replaced(0, &big, 0.0).unwrap();
    let d_zero = data.with_replaced(0, &[0.0; 20], 0.0).unwrap();
    let u: Vec<usize> = (0..20).collect();
    let rt = rho(r, 1);
    let (v, w) = (truncated_means(&d_big, rt, &u), truncated_means(&d_zero, rt, &u));
    let diff = v.iter().zip(&w).map(|(p, q)| (p - q).powi(2)).sum::<f64>().sqrt();
    let bound = (20f64).sqrt() * rt * rt / n as f64;
    assert!((diff - bound).abs() <= 1e-12 * bound, "{diff} vs {bound}");
}

/// D6 (composition): with a target (ε, δ), one Gaussian event per round, and the T_est rounds
/// compose exactly (μ-GDP, `dpref::accounting::gdp`) to an ε within [ε(1 − 1e-6), ε(1 + 1e-9)]
/// at δ: never above the target beyond the rounding of μ (rounded up by 4 ulps), and not
/// wastefully below. The data (n = 10⁵, one all-zero coordinate) keep the active set non-empty
/// through all rounds: the noise std relative to round t's threshold `4^{−t−1}` is ≈ 0.04 at
/// ε = 1, so a zero coordinate would need a 25-σ draw to be removed. On small data (noise large,
/// U empties early) fewer rounds run, and the composition stays below the target.
/// With the printed variance the std is the printed formula and the events record what it
/// gives (not a guarantee).
#[test]
fn prop_second_moment_rounds_compose_to_the_target() {
    let mut scales: Vec<f64> = (1..=9).map(|j| (j as f64).powf(-1.5)).collect();
    scales.push(0.0);
    let big = rows(41, 100_000, &scales);
    let small = rows(41, 50, &scales);
    for (eps, delta) in [(1.0, 1e-5), (2.0, 1e-6), (4.0, 1e-3)] {
        let cfg = SecondMomentConfig {
            moment_ratio_r: 1.0,
            rounds_t_est: None,
            noise: MomentNoise::Target { epsilon: eps, delta },
        };
        let est = private_second_moments(&big, &cfg, Seeds::new(3)).unwrap();
        assert_eq!(active_at(&est.sigma_hat, est.rounds), 1, "the zero coordinate stays active");
        assert_eq!(est.events.len(), est.rounds as u64, "one event per round");
        let mu = gdp::mu_of_gaussian_composition(&est.events.as_event().unwrap(), Neighbouring::AddRemove).unwrap();
        let total = gdp::epsilon_for_delta(mu, delta).unwrap();
        assert!(total <= eps * (1.0 + 1e-9) && total >= eps * (1.0 - 1e-6), "ε = {eps}: composed {total}");
        let est = private_second_moments(&small, &cfg, Seeds::new(3)).unwrap();
        let ran = (1..=est.rounds).filter(|&t| active_at(&est.sigma_hat, t) > 0).count() as u64;
        assert_eq!(est.events.len(), ran);
        let mu = gdp::mu_of_gaussian_composition(&est.events.as_event().unwrap(), Neighbouring::AddRemove).unwrap();
        assert!(gdp::epsilon_for_delta(mu, delta).unwrap() <= eps * (1.0 + 1e-9));
    }
    let (eps, delta, n) = (1.0, 1e-5, 100_000usize);
    let cfg = SecondMomentConfig {
        moment_ratio_r: 1.0,
        rounds_t_est: Some(6),
        noise: MomentNoise::PaperVariance { epsilon: eps, delta },
    };
    let est = private_second_moments(&big, &cfg, Seeds::new(3)).unwrap();
    let te = 6.0f64;
    for t in 1..=6u32 {
        let rt = rho(1.0, t);
        let expected = (rt.powi(4) * te * te * 10.0 * (te / delta).ln() / ((n * n) as f64 * eps * eps)).sqrt();
        let got = est.noise_stds[t as usize - 1];
        assert!((got - expected).abs() <= 1e-14 * expected, "round {t}: {got} vs {expected}");
    }
    assert_eq!(est.events.len(), 6);
}

/// Algorithm 3 with the printed variance must run whatever the data: when every coordinate has
/// been assigned before the last round (U empty), the round releases nothing and records no event.
/// Before the fix the event multiplier was computed as `std/sensitivity` with sensitivity
/// `√|U|·ρ_t²/n = 0`, i.e. ∞, and the run failed with `InvalidParameter { sigma = inf }`. Input: n = 100 000 rows
/// `z = ±1` (d = 1, so U empties in round 1), r = 1, T_est = 3, printed variance at ε = 1,
/// δ = 1e-5. (The `Target` and `Multiplier` noises give std = z·0 = 0 and skip the event.)
#[test]
fn prop_second_moment_paper_variance_runs_when_the_active_set_empties() {
    let f: Vec<f64> = (0..100_000).map(|i| if i % 2 == 0 { 1.0 } else { -1.0 }).collect();
    let data = Dataset::new(f, vec![0.0; 100_000], 1).unwrap();
    let cfg = SecondMomentConfig {
        moment_ratio_r: 1.0,
        rounds_t_est: Some(3),
        noise: MomentNoise::PaperVariance { epsilon: 1.0, delta: 1e-5 },
    };
    let est = private_second_moments(&data, &cfg, Seeds::new(1));
    assert!(est.is_ok(), "{est:?}");
    let est = est.unwrap();
    assert_eq!(est.sigma_hat, vec![0.5]);
    assert_eq!(est.events.len(), 1, "only round 1 released anything");
}

/// O12 (outputs): with noise on or off, every σ̂ⱼ is one of `2⁻¹, …, 2^{−T_est}` (each
/// coordinate is assigned, once: by a detection or by the final fill-in). Invalid settings are
/// typed errors; `T_est = ⌈1.5 log₂ d⌉` (≥ 1).
#[test]
fn prop_second_moment_outputs_are_dyadic_and_assigned() {
    let scales: Vec<f64> = (1..=40).map(|j| (j as f64).powf(-1.5)).collect();
    let data = rows(42, 300, &scales);
    for noise in
        [MomentNoise::Multiplier(0.0), MomentNoise::Multiplier(5.0), MomentNoise::Target { epsilon: 0.3, delta: 1e-5 }]
    {
        let cfg = SecondMomentConfig { moment_ratio_r: 1.0, rounds_t_est: None, noise };
        let est = private_second_moments(&data, &cfg, Seeds::new(4)).unwrap();
        let allowed: Vec<f64> = (1..=est.rounds).map(|t| (-(t as f64)).exp2()).collect();
        for s in &est.sigma_hat {
            assert!(allowed.contains(s), "{noise:?}: σ̂ = {s} not in {{2^-1..2^-T_est}}");
        }
    }
    assert_eq!([default_rounds(1), default_rounds(2), default_rounds(100), default_rounds(1024)], [1, 2, 10, 15]);
    let bad_r = SecondMomentConfig { moment_ratio_r: 0.7, rounds_t_est: None, noise: MomentNoise::Multiplier(0.0) };
    assert!(matches!(private_second_moments(&data, &bad_r, Seeds::new(4)), Err(Error::InvalidParameter { .. })));
    let bad_t = SecondMomentConfig { rounds_t_est: Some(0), moment_ratio_r: 1.0, noise: MomentNoise::Multiplier(0.0) };
    assert!(matches!(private_second_moments(&data, &bad_t, Seeds::new(4)), Err(Error::InvalidParameter { .. })));
    let bad_z = SecondMomentConfig { moment_ratio_r: 1.0, rounds_t_est: None, noise: MomentNoise::Multiplier(-1.0) };
    assert!(matches!(private_second_moments(&data, &bad_z, Seeds::new(4)), Err(Error::InvalidParameter { .. })));
}

/// O12 (accuracy): noise off, n = 20 000 Gaussian rows with `σⱼ = j^{−3/2}` (max σ = 1),
/// d = 100 (T_est = 10, floor 2^{−10} < d^{−3/2} = 1e-3 = σ_min): every σ̂ⱼ lies in the safe
/// band `[max(σⱼ, d^{−3/2})/2, 8σⱼ]` of notes §2.3 (gotcha 3).
#[test]
fn prop_second_moment_brackets_gaussian_scales_without_noise() {
    let (n, d) = (20_000usize, 100usize);
    let sigma: Vec<f64> = (1..=d).map(|j| (j as f64).powf(-1.5)).collect();
    let data = rows(43, n, &sigma);
    let cfg = SecondMomentConfig { moment_ratio_r: 1.0, rounds_t_est: None, noise: MomentNoise::Multiplier(0.0) };
    let est = private_second_moments(&data, &cfg, Seeds::new(5)).unwrap();
    let floor = (d as f64).powf(-1.5);
    for (j, (s, h)) in sigma.iter().zip(&est.sigma_hat).enumerate() {
        assert!(s.max(floor) / 2.0 <= *h && *h <= 8.0 * s, "coordinate {j}: σ = {s}, σ̂ = {h}");
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
                cfg.x0 = Some(vec![5.0; 5]); // outside: projected first
                let (r, t) = run(alg, &data, Loss::Absolute, &cfg, 9);
                for (k, x) in t.iterates.iter().enumerate() {
                    assert!(domain.contains(x), "{alg:?} {domain:?}: x^{k} = {x:?}");
                }
                assert!(domain.contains(&r.x_last) && domain.contains(&r.x), "{alg:?} {domain:?}");
                let active = t.iterates[1..].iter().filter(|x| on_boundary(&domain, x)).count();
                assert!(active >= 10, "{alg:?} {domain:?}: the projection was active only {active} times");
            }
        }
        let mut sgd = DpSgdConfig::new(60, 1.0, 1.0, 0.3, noise(8.0)).with_batch_size_b(0.3 * 60.0);
        sgd.domain = domain.clone();
        let mut t = Trace::default();
        let r = dp_sgd(&data, Loss::Absolute, &sgd, Seeds::new(9), &mut t).unwrap();
        assert!(t.iterates.iter().all(|x| domain.contains(x)) && domain.contains(&r.x_last), "DP-SGD {domain:?}");
        assert!(t.iterates[1..].iter().filter(|x| on_boundary(&domain, x)).count() >= 10, "DP-SGD {domain:?}");
    }
    let mut cfg = config(5, 3, 0.5, 0.3, noise(1.0));
    cfg.domain = Domain::L1Ball { radius: 1.0 };
    let r = pagan(&data, Loss::Absolute, &cfg, Seeds::new(9), &mut Trace::default());
    assert!(matches!(r, Err(Error::Unsupported { .. })), "{r:?}");
}

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
    let BatchSampler::Poisson { q } = cfg.sampler else { unreachable!("Poisson") };
    let want = reference(data, rule, cfg.step_scale_alpha, q, cfg.steps_t, seed, ellipsoid, radius);
    let (r, t) = run(alg, data, Loss::Absolute, cfg, seed);
    let t_len = cfg.steps_t as usize;
    assert_eq!(bits2(&t.iterates), bits2(&want[..t_len]), "{alg:?} {:?} {ellipsoid:?}", cfg.domain);
    assert_eq!(bits(&r.x_last), bits(&want[t_len]));
    // the default output: the average of x^0..x^{T−1}, summed in order
    let mut avg = vec![0.0; data.d()];
    for x in &want[..t_len] {
        for (a, v) in avg.iter_mut().zip(x) {
            *a += v;
        }
    }
    let avg: Vec<f64> = avg.iter().map(|v| v / cfg.steps_t as f64).collect();
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
    let data = regression(80, 4, 10);
    for domain in [Domain::Unconstrained, Domain::Box { radius: 0.3 }] {
        let mut cfg = config(4, 40, f64::INFINITY, 0.25, noise(0.0));
        cfg.domain = domain.clone();
        assert_matches_reference(Alg::Pagan, &cfg, &data, 11, None);
        for kind in KINDS {
            let mut clipped = config(4, 40, 0.4, 0.25, noise(0.0));
            clipped.domain = domain.clone();
            clipped.projection = kind;
            let a: Vec<f64> = clipped.ellipsoid_c.iter().map(|c| c / (0.4 * 0.4)).collect();
            assert_matches_reference(Alg::Pagan, &clipped, &data, 11, Some((&a, kind)));
        }
    }
}

/// O2 (PASAN): with σ = 0 and B = ∞, PASAN is bit for bit AdaGrad-norm projected SGD
/// `x^{k+1} = Π_X(x^k − α g^k/√Σ_{i≤k}‖g^i‖²)` on the same batches; with a finite B, the same
/// with per-example ellipsoid projections.
#[test]
fn prop_pasan_without_noise_or_clipping_is_adagrad_norm_sgd() {
    let data = regression(80, 4, 12);
    for domain in [Domain::Unconstrained, Domain::Box { radius: 0.3 }] {
        let mut cfg = config(4, 40, f64::INFINITY, 0.25, noise(0.0));
        cfg.domain = domain.clone();
        assert_matches_reference(Alg::Pasan, &cfg, &data, 13, None);
        for kind in KINDS {
            let mut clipped = config(4, 40, 0.4, 0.25, noise(0.0));
            clipped.domain = domain.clone();
            clipped.projection = kind;
            let a: Vec<f64> = clipped.ellipsoid_c.iter().map(|c| c / (0.4 * 0.4)).collect();
            assert_matches_reference(Alg::Pasan, &clipped, &data, 13, Some((&a, kind)));
        }
    }
}

/// The DP-SGD baseline without noise or clipping is projected minibatch SGD with a constant
/// step η on the same batches, bit for bit (the mean normalised by qn).
#[test]
fn prop_dp_sgd_without_noise_or_clipping_is_projected_sgd() {
    let data = regression(80, 4, 14);
    let (q, eta, steps, radius) = (0.25, 0.05, 40u64, 0.3);
    let mut cfg = DpSgdConfig::new(steps, eta, f64::INFINITY, q, noise(0.0));
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
// O3, O4, O5
// ---------------------------------------------------------------------------------------------

/// O3: multiplying every loss by c > 0 (absolute loss: features and labels times c, so
/// `|c⟨a, x⟩ − cb| = c|⟨a, x⟩ − b|` and every subgradient scales by c) with `B → cB` (A → A/c²)
/// and the same seeds scales every ĝ by c and leaves the iterates unchanged, with noise.
/// For c = 4 and c = 1/4 every operation scales exactly (powers of two), so the runs agree bit
/// for bit; for c = 3 within a relative 1e-10: each step adds a few ulps of relative error,
/// summed over T = 30 steps ≤ 30·10·2.2e-16 ≈ 7e-14 (the absolute loss's sign cannot flip:
/// |⟨a, x⟩ − b| is never within 1e-13 of 0 on this data).
#[test]
fn prop_adaptive_noise_iterates_are_invariant_to_loss_scaling() {
    let data = regression(60, 4, 16);
    let scaled = |c: f64| {
        let f: Vec<f64> = data.features().iter().map(|v| v * c).collect();
        let l: Vec<f64> = data.labels().iter().map(|v| v * c).collect();
        Dataset::new(f, l, 4).unwrap()
    };
    for alg in ALGS {
        for kind in KINDS {
            let mut cfg = config(4, 30, 0.4, 0.3, noise(1.5));
            cfg.projection = kind;
            let (r, t) = run(alg, &data, Loss::Absolute, &cfg, 17);
            for c in [4.0, 0.25, 3.0] {
                let mut cc = cfg.clone();
                cc.clip_radius_b = cfg.clip_radius_b * c;
                let (rc, tc) = run(alg, &scaled(c), Loss::Absolute, &cc, 17);
                if c == 3.0 {
                    for (x, y) in t.iterates.iter().zip(&tc.iterates).chain([(&r.x_last, &rc.x_last)]) {
                        for (p, q) in x.iter().zip(y) {
                            assert!((p - q).abs() <= 1e-10 * p.abs().max(1e-3), "{alg:?} {kind:?} c = 3: {p} vs {q}");
                        }
                    }
                    for (g, gc) in t.noisy_gradients.iter().zip(&tc.noisy_gradients) {
                        for (p, q) in g.iter().zip(gc) {
                            assert!((c * p - q).abs() <= 1e-10 * q.abs().max(1e-3), "ĝ does not scale: {p} vs {q}");
                        }
                    }
                } else {
                    assert_eq!(bits2(&t.iterates), bits2(&tc.iterates), "{alg:?} {kind:?} c = {c}");
                    let g: Vec<Vec<f64>> =
                        t.noisy_gradients.iter().map(|v| v.iter().map(|p| c * p).collect()).collect();
                    assert_eq!(bits2(&g), bits2(&tc.noisy_gradients));
                }
                assert_eq!(r.events, rc.events);
            }
        }
    }
}

/// O4: PAGAN on a box is equivariant under a permutation P of the coordinates: permuting the
/// features, C (and x^0 = 0) permutes every iterate. Noise is drawn coordinate by coordinate,
/// so its order is not permuted: the test runs with σ = 0 (clipping on, both projections).
/// Logistic loss (smooth, so that reassociated sums cannot flip a subgradient). Tolerance: the
/// permutation reassociates ⟨a, x⟩ and ‖g‖_A (d = 5 terms): ≤ 5ε relative per step, ≤
/// 40·5·2.2e-16 ≈ 5e-14 after T = 40 steps; 1e-10 relative to max(|x|, 1e-3).
#[test]
fn prop_pagan_is_permutation_equivariant_on_a_box() {
    let d = 5;
    let data = regression(60, d, 18);
    let labels: Vec<f64> = data.labels().iter().map(|b| if *b > 0.0 { 1.0 } else { 0.0 }).collect();
    let data = Dataset::new(data.features().to_vec(), labels, d).unwrap();
    let perm = [3usize, 0, 4, 1, 2]; // new coordinate j is old coordinate perm[j]
    let pf: Vec<f64> = (0..data.n()).flat_map(|i| perm.iter().map(|&p| data.row(i)[p]).collect::<Vec<_>>()).collect();
    let pdata = Dataset::new(pf, data.labels().to_vec(), d).unwrap();
    for alg in ALGS {
        for kind in KINDS {
            let mut cfg = config(d, 40, 0.3, 0.3, noise(0.0));
            cfg.domain = Domain::Box { radius: 0.5 };
            cfg.projection = kind;
            cfg.step_scale_alpha = 0.3;
            let mut pcfg = cfg.clone();
            pcfg.ellipsoid_c = perm.iter().map(|&p| cfg.ellipsoid_c[p]).collect();
            let (_, t) = run(alg, &data, Loss::Logistic, &cfg, 19);
            let (_, pt) = run(alg, &pdata, Loss::Logistic, &pcfg, 19);
            for (x, px) in t.iterates.iter().zip(&pt.iterates) {
                for (j, &p) in perm.iter().enumerate() {
                    assert!((px[j] - x[p]).abs() <= 1e-10 * x[p].abs().max(1e-3), "{alg:?} {kind:?}: {px:?} vs {x:?}");
                }
            }
        }
    }
}

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
        steps_t: cfg.steps_t,
        sampler: cfg.sampler,
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
                let rt = match alg {
                    Alg::Pasan => biased_sgd(
                        &data,
                        Loss::Absolute,
                        &template(&cfg),
                        StepRule::AdaGradNorm { alpha: cfg.step_scale_alpha },
                        Seeds::new(25),
                        &mut tt,
                        &mut estimate,
                        &mut noise_fn,
                    ),
                    Alg::Pagan => biased_adagrad(
                        &data,
                        Loss::Absolute,
                        &template(&cfg),
                        cfg.step_scale_alpha,
                        Seeds::new(25),
                        &mut tt,
                        &mut estimate,
                        &mut noise_fn,
                    ),
                }
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
    let r = biased_sgd(
        &data,
        Loss::Absolute,
        &TemplateConfig { sampler: BatchSampler::WithReplacement { batch_size: 10 }, ..template(&cfg) },
        StepRule::Constant { alpha: 0.1 },
        Seeds::new(1),
        &mut Trace::default(),
        &mut dpref::optim::adaptive_noise::biased::mean_estimate,
        &mut no_noise,
    )
    .unwrap();
    assert!(r.events.is_empty() && r.privacy.epsilon.is_none());
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
