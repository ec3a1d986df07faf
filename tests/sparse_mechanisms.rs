//! \[GGKKM\] Algorithm 1 (the projection mechanism) and Algorithm 4 (the sparse exponential
//! mechanism): the paper's testable properties B1, B5, C1, C3, C6, C9 and D4 for these two
//! algorithms (proofs/sparse/projection_mechanism.md and proofs/sparse/sparse_exponential.md §6).

mod common;

use common::sparse_data::sparse_rows_from;
use dpref::accounting::{DpEvent, gaussian};
use dpref::audit::mechanism::ProjectionScore;
use dpref::audit::{AuditSettings, FnMechanism, Mechanism, epsilon_lower_bound, sample_scores};
use dpref::data::Dataset;
use dpref::data::sparse::SparseDataset;
use dpref::error::Error;
use dpref::geometry::Domain;
use dpref::linalg::{norm_l1, norm_l2};
use dpref::loss::Loss;
use dpref::optim::sparse::projection_mechanism::NORM_ROUNDING;
use dpref::optim::sparse::{
    NoiseScale, ProjectionMechanismConfig, SparseExponentialConfig, SparseVectors, TauChoice, TauEquation, Temperature,
    project_noisy_mean, sparse_net,
};
use dpref::rng::{DpRng, Seeds, Stream};
use rand::RngExt;

/// n random s-sparse rows (see `common::sparse_data::sparse_rows_from`) from the data stream of
/// `seed`, as (CSR rows, dense features).
fn sparse_rows(n: usize, d: usize, s: usize, l: f64, seed: u64) -> (Vec<Vec<(usize, f64)>>, Vec<f64>) {
    sparse_rows_from(&mut Seeds::new(seed).stream(Stream::Data), n, d, s, l)
}

fn datasets(n: usize, d: usize, s: usize, l: f64, seed: u64) -> (SparseDataset, Dataset) {
    let (rows, dense) = sparse_rows(n, d, s, l, seed);
    (SparseDataset::from_rows(&rows, vec![0.0; n], d).unwrap(), Dataset::new(dense, vec![0.0; n], d).unwrap())
}

fn linf(x: &[f64]) -> f64 {
    x.iter().fold(0.0f64, |m, v| m.max(v.abs()))
}

/// B1 (Exact, pathwise, both noises): ‖ẑ‖₁ ≤ L√s; with ξ = z̃ − z̄,
/// `‖ẑ − z̄‖₂ ≤ min(‖ξ‖₂, √(2L√s‖ξ‖_∞))` (Lemma 3.1 and non-expansiveness; tolerance 1e-12
/// relative, the rounding of d-term sums); ẑ = `project_noisy_mean(z̃, L, s)`, the structural
/// post-processing; CSR and dense inputs give bit-identical runs on one seed. Twin: skipping the
/// projection (ẑ = z̃) violates Lemma 3.1's bound (on 200, 200 and 178 of the 200 seeds).
#[test]
fn b1_projection_mechanism_lemma_3_1_holds_pathwise() {
    let (n, d, s, l) = (20, 300, 4, 1.5);
    let (csr, dense) = datasets(n, d, s, l, 1);
    for (eps, delta) in [(1.0, 0.0), (0.5, 1e-5), (4.0, 0.0)] {
        let cfg = ProjectionMechanismConfig::new(l, s, eps, delta).unwrap();
        let (z_bar, clipped) = cfg.mean(SparseVectors::Csr(&csr)).unwrap();
        assert_eq!(clipped, 0);
        let mut twin_violations = 0;
        for seed in 0..200 {
            let run = cfg.run(SparseVectors::Csr(&csr), Seeds::new(seed)).unwrap();
            let other = cfg.run(SparseVectors::Dense(&dense), Seeds::new(seed)).unwrap();
            let bits = |x: &[f64]| x.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&run.z_hat), bits(&other.z_hat), "CSR and dense runs differ");
            assert!(norm_l1(&run.z_hat) <= l * (s as f64).sqrt(), "ẑ outside K");
            let mut again = run.z_tilde.clone();
            project_noisy_mean(&mut again, l, s).unwrap();
            assert_eq!(bits(&again), bits(&run.z_hat), "ẑ is not the projection of z̃ alone");
            let xi: Vec<f64> = run.z_tilde.iter().zip(&z_bar).map(|(a, b)| a - b).collect();
            let err = norm_l2(&run.z_hat.iter().zip(&z_bar).map(|(a, b)| a - b).collect::<Vec<_>>());
            let lemma = (2.0 * l * (s as f64).sqrt() * linf(&xi)).sqrt();
            let bound = norm_l2(&xi).min(lemma);
            assert!(err <= bound * (1.0 + 1e-12), "Lemma 3.1: {err} > {bound}");
            twin_violations += usize::from(norm_l2(&xi) > lemma * (1.0 + 1e-12));
        }
        // with d = 300 coordinates of noise, ‖ξ‖₂ exceeds √(2L√s‖ξ‖_∞) on most seeds (all 200
        // at ε ≤ 1, 178 at ε = 4): the unprojected twin (error ‖ξ‖₂) breaks the lemma
        eprintln!("eps {eps}, delta {delta}: unprojected twin breaks Lemma 3.1 on {twin_violations}/200 seeds");
        assert!(twin_violations > 0, "the unprojected twin meets Lemma 3.1 (eps {eps})");
    }
}

/// C1 (Exact): adversarial neighbours (z_i → −z_i, s equal entries L/√s) attain the
/// sensitivities the noise is calibrated on: ‖z̄ − z̄′‖₁ = 2L√s/n and ‖z̄ − z̄′‖₂ = 2L/n (relative
/// 1e-14); random neighbours stay below both.
#[test]
fn c1_mean_sensitivities_are_attained_by_adversarial_neighbours() {
    let (n, d, s, l) = (7, 12, 3, 2.0);
    let cfg = ProjectionMechanismConfig::new(l, s, 1.0, 0.0).unwrap();
    let (rows, _) = sparse_rows(n, d, s, l, 2);
    let z: Vec<(usize, f64)> = (0..s).map(|j| (j, l / (s as f64).sqrt() * (1.0 - 1e-15))).collect();
    let minus: Vec<(usize, f64)> = z.iter().map(|&(j, v)| (j, -v)).collect();
    let mean_of = |rows: &[Vec<(usize, f64)>]| {
        let ds = SparseDataset::from_rows(rows, vec![0.0; n], d).unwrap();
        cfg.mean(SparseVectors::Csr(&ds)).unwrap().0
    };
    let (mut a, mut b) = (rows.clone(), rows.clone());
    a[0] = z;
    b[0] = minus;
    let diff: Vec<f64> = mean_of(&a).iter().zip(mean_of(&b)).map(|(x, y)| x - y).collect();
    let rel = |x: f64, y: f64| (x - y).abs() <= 1e-14 * y;
    // the calibrated sensitivities are the exact ones times 1 + NORM_ROUNDING (the evaluated-norm
    // margin); the adversarial pair attains the exact ones
    let exact_l1 = 2.0 * l * (s as f64).sqrt() / n as f64;
    assert!(rel(norm_l1(&diff), exact_l1 * (1.0 - 1e-15)), "l1: {}", norm_l1(&diff));
    assert!(rel(norm_l2(&diff), 2.0 * l / n as f64 * (1.0 - 1e-15)), "l2: {}", norm_l2(&diff));
    assert!(rel(cfg.l1_sensitivity(n), exact_l1 * (1.0 + NORM_ROUNDING)));
    for seed in 0..100 {
        let (other, _) = sparse_rows(1, d, s, l, 100 + seed);
        let mut c = rows.clone();
        c[3] = other[0].clone();
        let diff: Vec<f64> = mean_of(&rows).iter().zip(mean_of(&c)).map(|(x, y)| x - y).collect();
        assert!(norm_l1(&diff) <= cfg.l1_sensitivity(n) && norm_l2(&diff) <= cfg.l2_sensitivity(n));
    }
}

/// Line 1's scales as printed (relative 1e-14): Laplace σ = 2L√s/(nε), Gaussian
/// σ² = 8L² ln(1.25/δ)/(nε)²; the events recorded are `Laplace(1/ε)` and `Gaussian(z)` with
/// `z = √(2 ln(1.25/δ))/ε`, and the privacy read from them is ε (pure) and, for the Gaussian, an
/// ε ≤ the requested one at δ. C3 (Exact): the exact Gaussian curve at the calibrated z gives
/// δ(ε) ≤ δ for ε ∈ {0.1, 0.5, 0.9}; at ε = 10 the classical calibration fails
/// (δ(10) = 3.4e-3 > 1e-3), which is why δ > 0 with ε ≥ 1 is refused.
#[test]
fn b1_c3_noise_scales_events_and_gaussian_calibration() {
    let (n, l, s) = (50usize, 1.5, 9usize);
    let rel = |x: f64, y: f64| (x - y).abs() <= 1e-14 * y;
    let (csr, _) = datasets(n, 30, s, l, 3);
    for eps in [0.1, 1.0, 3.0] {
        let cfg = ProjectionMechanismConfig::new(l, s, eps, 0.0).unwrap();
        let NoiseScale::Laplace { sigma } = cfg.noise_scale(n).unwrap() else { panic!("Laplace expected") };
        assert!(rel(sigma, 2.0 * l * (1.0 + NORM_ROUNDING) * (s as f64).sqrt() / (n as f64 * eps)));
        let run = cfg.run(SparseVectors::Csr(&csr), Seeds::new(1)).unwrap();
        let Some(DpEvent::Laplace { noise_multiplier }) = run.accounted.events.as_event() else {
            panic!("one Laplace event")
        };
        assert!(rel(noise_multiplier, 1.0 / eps));
        let reported = run.accounted.privacy.epsilon.unwrap();
        assert!(reported >= eps && rel(reported, eps), "reported {reported} for {eps}");
        assert_eq!(run.accounted.events.len(), 1);
    }
    for (eps, delta) in [(0.1, 1e-5), (0.5, 1e-6), (0.9, 1e-3)] {
        let cfg = ProjectionMechanismConfig::new(l, s, eps, delta).unwrap();
        let NoiseScale::Gaussian { sigma } = cfg.noise_scale(n).unwrap() else { panic!("Gaussian expected") };
        let l_margin = l * (1.0 + NORM_ROUNDING);
        let printed = 8.0 * l_margin * l_margin * (1.25f64 / delta).ln() / (n as f64 * eps).powi(2);
        assert!(rel(sigma * sigma, printed), "σ² {} vs {printed}", sigma * sigma);
        let run = cfg.run(SparseVectors::Csr(&csr), Seeds::new(1)).unwrap();
        let Some(DpEvent::Gaussian { noise_multiplier: z }) = run.accounted.events.as_event() else {
            panic!("one Gaussian")
        };
        assert!(gaussian::delta_for_epsilon(eps, z).unwrap() <= delta, "C3 at eps {eps}");
        let reported = run.accounted.privacy.epsilon.unwrap();
        assert!(reported <= eps && run.accounted.privacy.delta == Some(delta), "reported {reported} > {eps}");
    }
    let z10 = (2.0 * (1.25f64 / 1e-3).ln()).sqrt() / 10.0;
    let exact = gaussian::delta_for_epsilon(10.0, z10).unwrap();
    assert!(exact > 3e-3, "the classical calibration at eps = 10 holds: {exact}");
    assert!(matches!(ProjectionMechanismConfig::new(l, s, 1.0, 1e-3), Err(Error::InvalidParameter { .. })));
}

/// Invalid input is a typed error before any noise: a row with s + 1 non-zeros, a row of norm
/// above L, NaN, ε ≤ 0, δ ∉ [0, 1), s = 0, L ≤ 0. Clipping happens only when asked, and maps
/// every row into `S_s^d` (the run's sensitivity argument then holds): the count of rows it
/// changed is reported.
#[test]
fn projection_mechanism_invalid_input_is_a_typed_error() {
    let d = 6;
    let ok = vec![(0, 0.6), (2, 0.8)];
    let dense_row = vec![(0, 0.5), (1, 0.5), (2, 0.5)];
    let long_row = vec![(4, 3.0)];
    let make = |rows: Vec<Vec<(usize, f64)>>| SparseDataset::from_rows(&rows, vec![0.0; rows.len()], d).unwrap();
    let cfg = ProjectionMechanismConfig::new(1.0, 2, 1.0, 0.0).unwrap();
    let too_dense = make(vec![ok.clone(), dense_row.clone()]);
    let too_long = make(vec![ok.clone(), long_row.clone()]);
    for data in [&too_dense, &too_long] {
        let err = cfg.run(SparseVectors::Csr(data), Seeds::new(0)).unwrap_err();
        assert!(matches!(err, Error::InvalidParameter { .. }), "{err}");
    }
    let clipped = cfg.clone().with_clipping();
    let run = clipped.run(SparseVectors::Csr(&too_dense), Seeds::new(0)).unwrap();
    assert_eq!(run.clipped_rows, 1);
    let (mean, _) = clipped.mean(SparseVectors::Csr(&too_long)).unwrap();
    assert!((mean[4] - 0.5).abs() < 1e-15, "the long row clipped to norm 1, averaged over 2: {}", mean[4]);
    let mut z = vec![1.0, f64::NAN];
    assert!(matches!(project_noisy_mean(&mut z, 1.0, 1), Err(Error::NonFinite { .. })));
    assert!(matches!(project_noisy_mean(&mut [1.0], 1.0, 0), Err(Error::InvalidParameter { .. })));
    for (l, s, eps, delta) in
        [(0.0, 1, 1.0, 0.0), (1.0, 0, 1.0, 0.0), (1.0, 1, 0.0, 0.0), (1.0, 1, f64::NAN, 0.0), (1.0, 1, 0.5, 1.0)]
    {
        assert!(
            matches!(ProjectionMechanismConfig::new(l, s, eps, delta), Err(Error::InvalidParameter { .. })),
            "{l} {s} {eps} {delta}"
        );
    }
    // the datasets refuse NaN themselves; a NaN mean handed to lines 1-3 is refused too
    let mut release = dpref::optim::PrivateRelease::statistics(0.0, Seeds::new(0)).unwrap();
    assert!(matches!(cfg.release_mean(vec![], 3, &mut release), Err(Error::Empty { .. })));
    assert!(matches!(cfg.release_mean(vec![0.1, f64::NAN], 3, &mut release), Err(Error::NonFinite { .. })));
}

/// D4 (Stat): E‖ẑ − z̄‖² against the explicit second-moment bounds derived from Lemma 3.1:
/// Laplace `min{2dσ², 4L²sH_d/(nε)}` (E‖ξ‖_∞ = σH_d exactly), Gaussian
/// `min{dσ², 2L√s·σ√(2 ln 2d)}` (E‖ξ‖_∞ ≤ σ√(2 ln 2d)). Y = ‖ẑ − z̄‖² lies in [0, 4L²s] (both
/// points are in K, whose ℓ1 diameter is 2L√s), so by Hoeffding the mean of R = 4000 runs exceeds
/// E[Y] by more than `t = 4L²s·√(ln(10⁶)/(2R))` with probability ≤ 1e-6; the test asserts
/// mean ≤ bound + t. The regime (nε = 20, d = 2000, s = 4, L = 1) is where the Lemma 3.1 term
/// is the smaller one (the dense term 2dσ² is 160). Twin: skipping the projection gives
/// E‖ξ‖² = 2dσ² = 160 and fails on the same seeds.
#[test]
fn stat_d4_projection_mechanism_second_moment_within_bound() {
    let (d, s, l, runs) = (2000usize, 4usize, 1.0, 4000u64);
    let range = 4.0 * l * l * s as f64;
    let t = range * ((1e6f64).ln() / (2.0 * runs as f64)).sqrt();
    let harmonic: f64 = (1..=d).map(|k| 1.0 / k as f64).sum();
    for (n, eps, delta) in [(20usize, 1.0, 0.0), (40, 0.5, 1e-5)] {
        let (csr, _) = datasets(n, d, s, l, 4);
        let cfg = ProjectionMechanismConfig::new(l, s, eps, delta).unwrap();
        let (z_bar, _) = cfg.mean(SparseVectors::Csr(&csr)).unwrap();
        let sigma = cfg.noise_scale(n).unwrap().sigma();
        let bound = if delta == 0.0 {
            (2.0 * d as f64 * sigma * sigma).min(4.0 * l * l * s as f64 * harmonic / (n as f64 * eps))
        } else {
            (d as f64 * sigma * sigma).min(2.0 * l * (s as f64).sqrt() * sigma * (2.0 * (2.0 * d as f64).ln()).sqrt())
        };
        let (mut mean, mut twin) = (0.0, 0.0);
        for seed in 0..runs {
            let run = cfg.run(SparseVectors::Csr(&csr), Seeds::new(seed)).unwrap();
            let sq = |x: &[f64]| x.iter().zip(&z_bar).map(|(a, b)| (a - b).powi(2)).sum::<f64>();
            mean += sq(&run.z_hat) / runs as f64;
            twin += sq(&run.z_tilde) / runs as f64;
        }
        eprintln!("D4 delta = {delta}: mean {mean:.4}, bound {bound:.4} (+ margin {t:.4}); unprojected twin {twin:.2}");
        assert!(mean <= bound + t, "E|ẑ − z̄|² = {mean} > {bound} + {t}");
        assert!(twin > bound + t, "the unprojected twin passes: {twin}");
    }
}

/// Algorithm 1 as a black box for the audit engine: one draw of ẑ on a dense dataset. `twin`
/// runs at ε·2√s, i.e. Laplace scale L/(nε) instead of 2L√s/(nε): the sensitivity taken as L.
fn alg1(cfg: ProjectionMechanismConfig) -> impl Mechanism<Input = Dataset, Output = Vec<f64>> {
    FnMechanism::new(move |input: &Dataset, rng: &mut DpRng| alg1_z_hat(&cfg, input, Seeds::new(rng.random::<u64>())))
}

/// `cfg.run(Dense(input), seeds).z_hat` without the accountant's read: the same row checks
/// (`mean`, line 0), the same `PrivateRelease::statistics(0, seeds)` frame and lines 1–3
/// (`release_mean`), so the same draws and a bit-identical ẑ (asserted against `run` in the C9
/// test). `run` then reads the recorded event at δ (for the Gaussian a root search on the exact
/// curve, about four fifths of a draw's time); ẑ does not depend on it.
fn alg1_z_hat(cfg: &ProjectionMechanismConfig, input: &Dataset, seeds: Seeds) -> Vec<f64> {
    let (z_bar, _) = cfg.mean(SparseVectors::Dense(input)).unwrap();
    let mut release = dpref::optim::PrivateRelease::statistics(0.0, seeds).unwrap();
    cfg.release_mean(z_bar, input.n(), &mut release).unwrap().z_hat
}

/// Adversarial replace-one neighbours in d = 2, s = 2, L = 1, n = 100: D has 50 copies of
/// z = (1, 1)/√2 and 50 of −z, D′ replaces one −z by z, so z̄ moves from 0 to z/50: the ℓ1 and ℓ2
/// shifts equal Δ₁ = 2L√s/n and Δ₂ = 2L/n (attained), and both means sit deep inside K (the
/// noise is small against the radius √2, so the projection rarely acts).
fn adversarial_pair() -> (Dataset, Dataset) {
    let z = std::f64::consts::FRAC_1_SQRT_2 * (1.0 - 1e-15);
    let row = |sign: f64| [sign * z, sign * z];
    let build = |plus: usize| {
        let features: Vec<f64> = (0..100).flat_map(|i| row(if i < plus { 1.0 } else { -1.0 })).collect();
        Dataset::new(features, vec![0.0; 100], 2).unwrap()
    };
    (build(51), build(50))
}

/// C9 (audit through the audit engine): Algorithm 1 on the adversarial neighbours, 3·10⁵ draws per
/// side, score ⟨ẑ, (1, 1)/√2⟩, Bonferroni over all thresholds at confidence 1 − 1e-6: the
/// certified lower bound is ≤ the accounted ε (the accountant is an upper bound, so this fails
/// with probability ≤ 1e-6), for Laplace (ε = 1, δ = 0) and Gaussian (ε = 0.9, δ = 1e-3, audited at
/// δ = 1e-3 where these draws have power). Twins, against the correct accounted ε: Laplace with the
/// sensitivity taken as L instead of 2L√s (true ε = 2√2) and the Gaussian with Δ₂ taken as L
/// instead of 2L (σ halved) are flagged: their certified bounds exceed the accounted ε. Measured
/// (seed 99): Laplace certified 0.716 of accounted 1.000, twin 2.192; Gaussian certified 0.364 of
/// 0.559, twin 0.973.
#[test]
fn audit_c9_projection_mechanism_laplace_and_gaussian_with_broken_twins() {
    let (d, d_prime) = adversarial_pair();
    let runs = 300_000usize;
    let score = ProjectionScore::new(vec![1.0, 1.0]).unwrap();
    let audit = |cfg: ProjectionMechanismConfig, delta: f64| {
        let (sa, sb) = sample_scores(&alg1(cfg), &d, &d_prime, runs, Seeds::new(99), &score);
        let settings = AuditSettings { delta, confidence: 1.0 - 1e-6, ..AuditSettings::default() };
        epsilon_lower_bound(&sa, &sb, &settings).unwrap().epsilon
    };
    let (l, s) = (1.0, 2usize);
    // the audited draws are `run`'s: bit-identical ẑ on both neighbours, both noises, 200 seeds
    for cfg in [
        ProjectionMechanismConfig::new(l, s, 1.0, 0.0).unwrap(),
        ProjectionMechanismConfig::new(l, s, 0.9, 1e-3).unwrap(),
    ] {
        for (input, seed) in [&d, &d_prime].into_iter().flat_map(|x| (0..100u64).map(move |k| (x, k))) {
            let via_run = cfg.run(SparseVectors::Dense(input), Seeds::new(seed)).unwrap().z_hat;
            let fast = alg1_z_hat(&cfg, input, Seeds::new(seed));
            assert_eq!(
                via_run.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
                fast.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
            );
        }
    }
    // Laplace
    let cfg = ProjectionMechanismConfig::new(l, s, 1.0, 0.0).unwrap();
    let accounted = cfg.run(SparseVectors::Dense(&d), Seeds::new(0)).unwrap().accounted.privacy.epsilon.unwrap();
    let certified = audit(cfg, 0.0);
    let twin = audit(ProjectionMechanismConfig::new(l, s, 1.0 * 2.0 * (s as f64).sqrt(), 0.0).unwrap(), 0.0);
    eprintln!("Laplace: accounted {accounted:.4}, certified {certified:.4}, twin (sensitivity L) {twin:.4}");
    assert!(certified <= accounted, "Laplace: certified {certified} > accounted {accounted}");
    assert!(twin > accounted, "Laplace twin not flagged: {twin} <= {accounted}");
    // Gaussian
    let delta = 1e-3;
    let cfg = ProjectionMechanismConfig::new(l, s, 0.9, delta).unwrap();
    let accounted = cfg.run(SparseVectors::Dense(&d), Seeds::new(0)).unwrap().accounted.privacy.epsilon.unwrap();
    let certified = audit(cfg.clone(), delta);
    // σ halved: the classical multiplier of ε·2 (z ∝ 1/ε), outside the config's ε < 1 check
    let halved = ProjectionMechanismConfig { epsilon: 1.8, ..cfg };
    let twin = {
        struct Halved(ProjectionMechanismConfig);
        impl Mechanism for Halved {
            type Input = Dataset;
            type Output = Vec<f64>;
            fn sample(&self, input: &Dataset, rng: &mut DpRng) -> Vec<f64> {
                let n = input.n();
                let (z_bar, _) = self.0.mean(SparseVectors::Dense(input)).unwrap();
                let sigma = gaussian::classic_noise_multiplier(0.9, 1e-3).unwrap() * self.0.l2_sensitivity(n) / 2.0;
                let mut z: Vec<f64> = z_bar.iter().map(|v| v + sigma * dpref::noise::standard_normal(rng)).collect();
                project_noisy_mean(&mut z, self.0.l2_bound_l, self.0.sparsity_s).unwrap();
                z
            }
        }
        let (sa, sb) = sample_scores(&Halved(halved), &d, &d_prime, runs, Seeds::new(99), &score);
        let settings = AuditSettings { delta, confidence: 1.0 - 1e-6, ..AuditSettings::default() };
        epsilon_lower_bound(&sa, &sb, &settings).unwrap().epsilon
    };
    eprintln!("Gaussian: accounted {accounted:.4}, certified {certified:.4}, twin (Δ₂ = L) {twin:.4}");
    assert!(certified <= accounted, "Gaussian: certified {certified} > accounted {accounted}");
    assert!(twin > accounted, "Gaussian twin not flagged: {twin} <= {accounted}");
}

/// The tiny instance of Algorithm 4: d = 4, X = the unit l2 ball, records (a_i, y_i) with a_i
/// 1-sparse of norm ≤ 1 and y_i ∈ [−1, 1], loss |⟨a, x⟩ − y| ∈ [0, 2] = [0, B] on X, L = 1, s = 1.
fn alg4_data(n: usize, seed: u64) -> Dataset {
    let mut r: DpRng = Seeds::new(seed).stream(Stream::Data);
    let d = 4;
    let mut features = vec![0.0; n * d];
    let mut labels = Vec::with_capacity(n);
    for i in 0..n {
        features[i * d + r.random_range(0..d)] = 2.0 * r.random::<f64>() - 1.0;
        labels.push(2.0 * r.random::<f64>() - 1.0);
    }
    Dataset::new(features, labels, d).unwrap()
}

fn alg4_config(eps: f64, tau: f64) -> SparseExponentialConfig {
    SparseExponentialConfig::new(eps, 2.0, 1.0, 1, Domain::L2Ball { radius: 1.0 }, TauChoice::Given(tau)).unwrap()
}

/// B5 (Exact): the pmf sums to 1 (1e-12), every draw is a net point, and N_τ is a τ-net of the
/// k-sparse points of X: for 2000 random x ∈ X with ‖x‖₀ ≤ k, min_{y ∈ N_τ} ‖x − y‖₂ ≤ τ (every
/// net point in X as evaluated). Twin: the net of spacing 2τ/√k (rounding toward zero) misses
/// some of those points by more than τ.
#[test]
fn b5_sparse_exponential_pmf_sums_to_one_and_the_net_covers() {
    let data = alg4_data(5, 1);
    let tau = 0.5;
    let cfg = alg4_config(1.0, tau);
    let (net, p) = cfg.exact_pmf(&data, Loss::Absolute).unwrap();
    assert!((p.iter().sum::<f64>() - 1.0).abs() <= 1e-12);
    assert!(net.iter().all(|x| norm_l2(x) <= 1.0));
    for seed in 0..50 {
        let run = cfg.run(&data, Loss::Absolute, Seeds::new(seed)).unwrap();
        assert_eq!(run.net[run.index], run.x_hat);
        assert_eq!(run.k, 4);
        assert_eq!(run.events.as_event(), Some(DpEvent::epsilon_delta(run.epsilon, 0.0).unwrap()));
    }
    let mut r: DpRng = Seeds::new(2).stream(Stream::Data);
    let (k, coarse) = {
        let (k, _) = sparse_net(4, tau, &Domain::L2Ball { radius: 1.0 }).unwrap();
        // the twin: spacing doubled is the net of 2τ
        sparse_net(4, 2.0 * tau, &Domain::L2Ball { radius: 1.0 }).map(|(_, c)| (k, c)).unwrap()
    };
    let mut twin_misses = 0;
    for _ in 0..2000 {
        let mut x: Vec<f64> = (0..4).map(|_| 2.0 * r.random::<f64>() - 1.0).collect();
        let j = r.random_range(0..4usize);
        if k < 4 {
            x[j] = 0.0;
        }
        let norm = norm_l2(&x);
        let scale = r.random::<f64>() / norm.max(1.0);
        x.iter_mut().for_each(|v| *v *= scale);
        let dist = |net: &[Vec<f64>]| {
            net.iter()
                .map(|y| norm_l2(&x.iter().zip(y).map(|(a, b)| a - b).collect::<Vec<_>>()))
                .fold(f64::INFINITY, f64::min)
        };
        assert!(dist(&net) <= tau, "net misses a point by {}", dist(&net));
        twin_misses += usize::from(dist(&coarse) > tau);
    }
    assert!(twin_misses > 0, "the coarse twin covers at radius tau");
}

/// C6 (Exact privacy of Algorithm 4): on the tiny instance (n = 3, ε = 0.1, B = 2, 1 + the net
/// points of N_0.5), for 200 neighbouring pairs (record 0 replaced by a random record, and by the
/// adversarial records a = ±e_1, y = ∓1), max_x |ln P_S(x) − ln P_S′(x)| ≤ ε (1e-12 relative,
/// log-sum-exp rounding) with the corrected weights exp(−εnF_S/(2B)). The printed weights
/// exp(−(B/(εn))F_S) give a loss far above ε (their own event, 2B²/(εn²) = 8.9, is what the
/// run records), shown by the same enumeration.
#[test]
fn c6_sparse_exponential_exact_privacy_corrected_and_printed() {
    let (n, eps) = (3usize, 0.1);
    let base = alg4_data(n, 3);
    let cfg = alg4_config(eps, 0.5);
    let printed = SparseExponentialConfig { temperature: Temperature::AsPrinted, ..cfg.clone() };
    let max_loss = |cfg: &SparseExponentialConfig, a: &Dataset, b: &Dataset| {
        let (_, p) = cfg.exact_pmf(a, Loss::Absolute).unwrap();
        let (_, q) = cfg.exact_pmf(b, Loss::Absolute).unwrap();
        p.iter().zip(&q).map(|(x, y)| (x.ln() - y.ln()).abs()).fold(0.0f64, f64::max)
    };
    let mut r: DpRng = Seeds::new(4).stream(Stream::Data);
    let (mut worst, mut worst_printed) = (0.0f64, 0.0f64);
    for case in 0..202 {
        let mut x = base.row(0).to_vec();
        x.iter_mut().for_each(|v| *v = 0.0);
        let y = match case {
            0 => {
                x[0] = 1.0;
                -1.0
            }
            1 => {
                x[0] = -1.0;
                1.0
            }
            _ => {
                x[r.random_range(0..4usize)] = 2.0 * r.random::<f64>() - 1.0;
                2.0 * r.random::<f64>() - 1.0
            }
        };
        let neighbour = base.with_replaced(0, &x, y).unwrap();
        worst = worst.max(max_loss(&cfg, &base, &neighbour));
        worst_printed = worst_printed.max(max_loss(&printed, &base, &neighbour));
    }
    eprintln!("Alg. 4 exact privacy loss: corrected {worst:.5} (eps {eps}), printed temperature {worst_printed:.3}");
    assert!(worst <= eps * (1.0 + 1e-12), "corrected temperature loses {worst} > {eps}");
    assert!(worst_printed > eps, "the printed temperature stays within eps: {worst_printed}");
    let run = printed.run(&base, Loss::Absolute, Seeds::new(0)).unwrap();
    assert!((run.epsilon - 2.0 * 4.0 / (eps * 9.0)).abs() <= 1e-12, "the printed run records {}", run.epsilon);
}

/// Line 1 (τ): the corrected equation's root solves τ³/ln(d/(τβ)) = B/(L√s εn) (relative 1e-9)
/// and shrinks as n grows, which is what makes the excess risk of Thm. 5.5 vanish; the printed
/// equation's root grows with n (the net gets coarser with more data). Invalid inputs (d > 8, the
/// simplex, a loss outside [0, B]) are typed errors.
#[test]
fn alg4_tau_equation_and_invalid_inputs() {
    let (b, l, s, eps, d, beta) = (2.0, 1.0, 1usize, 1.0, 4usize, 0.1);
    let tau =
        SparseExponentialConfig::new(eps, b, l, s, Domain::L2Ball { radius: 1.0 }, TauChoice::Given(1.0)).unwrap();
    let mut last = (f64::INFINITY, 0.0f64);
    for n in [10usize, 100, 1000, 10_000] {
        let t = tau.solve_tau(TauEquation::Corrected, n, d, beta).unwrap();
        let lhs = t.powi(3) / (d as f64 / (t * beta)).ln();
        let rhs = b / (l * (s as f64).sqrt() * eps * n as f64);
        assert!((lhs - rhs).abs() <= 1e-9 * rhs, "root: {lhs} vs {rhs}");
        let p = tau.solve_tau(TauEquation::AsPrinted, n, d, beta).unwrap();
        assert!(t < last.0 && p > last.1, "n = {n}: corrected {t}, printed {p}");
        last = (t, p);
    }
    let data = alg4_data(3, 5);
    let cfg = alg4_config(1.0, 0.5);
    let wide = Dataset::new(vec![0.0; 9], vec![0.0], 9).unwrap();
    assert!(matches!(cfg.run(&wide, Loss::Absolute, Seeds::new(0)), Err(Error::InvalidParameter { .. })));
    assert!(SparseExponentialConfig::new(1.0, 2.0, 1.0, 1, Domain::Simplex, TauChoice::Given(0.5)).is_err());
    let small_b = SparseExponentialConfig { range_b: 0.1, ..cfg };
    assert!(matches!(small_b.run(&data, Loss::Absolute, Seeds::new(0)), Err(Error::InvalidParameter { .. })));
    assert!(matches!(sparse_net(4, 0.0, &Domain::L2Ball { radius: 1.0 }), Err(Error::InvalidParameter { .. })));
    // the fields are public: one set to NaN or 0 after `new` is refused where it is read (a NaN L
    // once solved into a tiny τ through `g(mid) < 0` being always false)
    let nan_l = SparseExponentialConfig { lipschitz_l: f64::NAN, ..alg4_config(1.0, 0.5) };
    assert!(matches!(nan_l.solve_tau(TauEquation::Corrected, 10, d, beta), Err(Error::InvalidParameter { .. })));
    let zero_s = SparseExponentialConfig { sparsity_s: 0, ..alg4_config(1.0, 0.5) };
    assert!(matches!(zero_s.run(&data, Loss::Absolute, Seeds::new(0)), Err(Error::InvalidParameter { .. })));
}

/// B5 (Stat): the draws of Algorithm 4 follow its exact pmf. Tiny net (τ = 0.75: k = 1, the 9
/// points 0 and ±0.75 e_j), ε = 10 so that the pmf is far from uniform; 10⁵ draws, Pearson's
/// statistic against the χ²₈ quantile at 1 − 1e-6 (smallest expected count above 10³, where the
/// χ² approximation holds far into the tail). Twin: a uniform draw over the net fails on the
/// same number of draws.
#[test]
fn stat_b5_sparse_exponential_draws_follow_the_exact_pmf() {
    let data = alg4_data(3, 7);
    let cfg = alg4_config(10.0, 0.75);
    let (net, p) = cfg.exact_pmf(&data, Loss::Absolute).unwrap();
    assert_eq!(net.len(), 9);
    assert!(p.iter().all(|&q| q * 1e5 > 1e3), "expected counts: {p:?}");
    let mut counts = vec![0u64; net.len()];
    for seed in 0..100_000u64 {
        counts[cfg.run(&data, Loss::Absolute, Seeds::new(seed)).unwrap().index] += 1;
    }
    let (stat, limit) = common::stat::pearson_statistic(&counts, &p);
    let mut r: DpRng = Seeds::new(8).stream(Stream::Data);
    let mut uniform = vec![0u64; net.len()];
    for _ in 0..100_000 {
        uniform[r.random_range(0..net.len())] += 1;
    }
    let (twin, _) = common::stat::pearson_statistic(&uniform, &p);
    eprintln!("Alg. 4 draws: chi-square {stat:.2} (limit {limit:.2}); uniform twin {twin:.0}; pmf {p:.3?}");
    assert!(stat <= limit, "Alg. 4 draws: chi-square {stat} > {limit}");
    assert!(twin > limit, "the uniform twin passes: {twin}");
}

/// C2 (Exact): the Laplace release z̃ = z̄ + Lap(σ)^{⊗d} has pointwise privacy loss
/// `|‖y − z̄′‖₁ − ‖y − z̄‖₁|/σ ≤ ‖z̄ − z̄′‖₁/σ ≤ ε` at every y (the projection is post-processing,
/// so the pre-projection check suffices), checked at 20 000 random y around the means and along
/// the ray y = z̄ + t(z̄ − z̄′), where the loss reaches ε to 2e-12 on the adversarial neighbours.
/// Twin: σ calibrated on the sensitivity L instead of 2L√s (s = 4: 4× too little noise) loses
/// 4ε on the same ray.
#[test]
fn c2_laplace_pointwise_privacy_loss_is_at_most_epsilon() {
    let (n, d, s, l, eps) = (9, 16, 4, 1.0, 0.7);
    let cfg = ProjectionMechanismConfig::new(l, s, eps, 0.0).unwrap();
    let sigma = cfg.noise_scale(n).unwrap().sigma();
    let (rows, _) = sparse_rows(n, d, s, l, 5);
    let z: Vec<(usize, f64)> = (0..s).map(|j| (2 * j, l / (s as f64).sqrt() * (1.0 - 1e-15))).collect();
    let (mut a, mut b) = (rows.clone(), rows);
    a[0] = z.clone();
    b[0] = z.iter().map(|&(j, v)| (j, -v)).collect();
    let mean_of = |rows: &[Vec<(usize, f64)>]| {
        let ds = SparseDataset::from_rows(rows, vec![0.0; n], d).unwrap();
        cfg.mean(SparseVectors::Csr(&ds)).unwrap().0
    };
    let (za, zb) = (mean_of(&a), mean_of(&b));
    let loss = |y: &[f64], sigma: f64| {
        let dist = |m: &[f64]| y.iter().zip(m).map(|(p, q)| (p - q).abs()).sum::<f64>();
        (dist(&zb) - dist(&za)).abs() / sigma
    };
    let mut r: DpRng = Seeds::new(6).stream(Stream::Data);
    let mut worst = 0.0f64;
    for _ in 0..20_000 {
        let y: Vec<f64> = za.iter().map(|m| m + sigma * 6.0 * (r.random::<f64>() - 0.5)).collect();
        worst = worst.max(loss(&y, sigma));
    }
    let ray: Vec<f64> = za.iter().zip(&zb).map(|(p, q)| p + 3.0 * (p - q)).collect();
    assert!(worst <= eps * (1.0 + 1e-12), "random y lose {worst} > {eps}");
    // exactly ε up to the calibration margin 1 + NORM_ROUNDING (1e-12) and rounding
    assert!((loss(&ray, sigma) - eps).abs() <= 2e-12 * eps, "the ray loses {}", loss(&ray, sigma));
    let twin_sigma = l / n as f64 / eps;
    assert!(loss(&ray, twin_sigma) > 3.9 * eps, "twin loses {}", loss(&ray, twin_sigma));
}

/// Settings a black-box sweep found accepted and then wrong (each refused now, before any draw):
/// - L = 1e-323: row norms evaluate on the subnormal grid (‖(1e-320, 1e-320, 1e-320)‖₂ read 0), a
///   row 1700·L long passed the check, and ε read 0.5 for a true ~380 (Algorithms 1 and 5);
/// - a subnormal δ: Algorithm 5's δ/4 underflowed to 0 and every call silently became Laplace;
/// - the sparse exponential mechanism at τ = 1e-12: the grid's 2M values were allocated before the
///   net's size check and the process aborted (4 GiB).
///
/// The classic Gaussian multiplier at δ = 5e-324 is finite (1.25/δ overflowed to ∞).
#[test]
fn sparse_settings_that_underflow_or_explode_are_refused_up_front() {
    use dpref::optim::sparse::{BiasReducedConfig, ProjectionMechanismConfig, SparseExponentialConfig, TauChoice};
    for delta in [0.0, 1e-5] {
        let e = ProjectionMechanismConfig::new(1e-323, 3, 0.5, delta).unwrap_err();
        assert!(matches!(e, Error::InvalidParameter { name: "L (l2 bound)", .. }), "{e}");
    }
    assert!(BiasReducedConfig::new(1e-323, 2, 0.5, 0.0).is_err());
    assert!(ProjectionMechanismConfig::new(1e-290, 3, 0.5, 0.0).is_ok());
    assert!(matches!(BiasReducedConfig::new(1.0, 2, 0.5, 5e-324), Err(Error::InvalidParameter { name: "delta", .. })));
    assert!(BiasReducedConfig::new(1.0, 2, 0.5, 1e-300).is_ok());
    let data = Dataset::new(vec![0.5], vec![1.0], 1).unwrap();
    let cfg = SparseExponentialConfig::new(0.5, 2.0, 1.0, 1, Domain::L2Ball { radius: 1.0 }, TauChoice::Given(1e-12))
        .unwrap();
    assert!(matches!(cfg.run(&data, Loss::Logistic, Seeds::new(0)), Err(Error::InvalidParameter { name: "tau", .. })));
    let z = gaussian::classic_noise_multiplier(0.5, 5e-324).unwrap();
    // √(2(ln 1.25 − ln 5e-324))/0.5 = 77.183584548669179935 (mpmath, 40 digits), rounded up here
    assert!((77.18358454866917..=77.18358454866917 * (1.0 + 1e-14)).contains(&z), "{z}");
}
