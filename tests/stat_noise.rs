//! Statistical tests of the noise mechanisms. Each uses a fixed seed and an acceptance region
//! from exact quantiles with false-failure probability ALPHA = 1e-6 (tests/common/stat.rs), and
//! is paired with a power twin: the same draws passed through a typical bug (noise halved, scale
//! off by 2, variance used as std, wrong monotonicity) must fall outside the region.

mod common;
use common::stat::*;
use dpref::noise::{self, Monotonicity, Selection};
use dpref::rng::{Seeds, Stream};

fn gaussian_draws(seed: u64, n: usize, std: f64) -> Vec<f64> {
    let mut rng = Seeds::new(seed).stream(Stream::Noise);
    let mut x = vec![0.0; n];
    noise::add_gaussian(&mut rng, &mut x, std).unwrap();
    x
}

/// Σ (xᵢ/s)² ~ χ²_n exactly for N(0, s²) draws: n = 200 000, two-sided region at 1e-6
/// (≈ n ± 5.0·√(2n) = n ± 3160). Power twin: noise halved gives ≈ n/4, 47 000 below the region.
#[test]
fn stat_gaussian_noise_std_equals_s() {
    let (n, s) = (200_000usize, 1.7);
    let x = gaussian_draws(11, n, s);
    let stat = |xs: &[f64], s: f64| xs.iter().map(|v| (v / s).powi(2)).sum::<f64>();
    let (lo, hi) = chi_square_interval(n as u64, ALPHA);
    let t = stat(&x, s);
    assert!(lo <= t && t <= hi, "{lo} <= {t} <= {hi}");
    let halved: Vec<f64> = x.iter().map(|v| v * 0.5).collect();
    let t = stat(&halved, s);
    assert!(!(lo <= t && t <= hi), "noise halved passes: {t}");
}

/// Diagonal covariance: Σᵢ (xᵢ/sᵢ)² ~ χ²_n. Power twin: the variances sᵢ² used as stds.
#[test]
fn stat_gaussian_diagonal_noise_has_the_given_stds() {
    let stds: Vec<f64> = (0..150_000).map(|i| [0.5, 2.0, 3.0][i % 3]).collect();
    let mut rng = Seeds::new(12).stream(Stream::Noise);
    let mut x = vec![0.0; stds.len()];
    noise::add_gaussian_diagonal(&mut rng, &mut x, &stds).unwrap();
    let stat = |scale: &dyn Fn(f64) -> f64| x.iter().zip(&stds).map(|(v, s)| (v / scale(*s)).powi(2)).sum::<f64>();
    let (lo, hi) = chi_square_interval(stds.len() as u64, ALPHA);
    let t = stat(&|s| s);
    assert!(lo <= t && t <= hi, "{lo} <= {t} <= {hi}");
    // mutant: drawing with std sᵢ² gives the draws mᵢ = xᵢ·sᵢ; the statistic Σ(mᵢ/sᵢ)² is then
    // Σxᵢ² ≈ n·mean(sᵢ²) = 4.4n
    let mutant_draws: Vec<f64> = x.iter().zip(&stds).map(|(v, s)| v * s).collect();
    let mutant: f64 = mutant_draws.iter().zip(&stds).map(|(m, s)| (m / s).powi(2)).sum();
    assert!(!(lo <= mutant && mutant <= hi), "variance-as-std passes: {mutant}");
}

/// Σ|xᵢ| ~ Gamma(n, b) exactly for Laplace(b) draws; the number of positive draws is
/// Binomial(n, ½). Power twins: scale b/2 (off by 2), and |x| (no sign) fail.
#[test]
fn stat_laplace_scale_and_symmetry() {
    let (n, b) = (200_000usize, 0.8);
    let mut rng = Seeds::new(13).stream(Stream::Noise);
    let mut x = vec![0.0; n];
    noise::add_laplace(&mut rng, &mut x, b).unwrap();
    let (lo, hi) = gamma_sum_interval(n as u64, b, ALPHA);
    let s: f64 = x.iter().map(|v| v.abs()).sum();
    assert!(lo <= s && s <= hi, "{lo} <= {s} <= {hi}");
    assert!(!(lo <= s * 0.5 && s * 0.5 <= hi), "scale off by 2 passes");
    let (plo, phi) = binomial_interval(n as u64, 0.5, ALPHA);
    let pos = x.iter().filter(|v| **v > 0.0).count() as u64;
    assert!(plo <= pos && pos <= phi, "{plo} <= {pos} <= {phi}");
    assert!(!(plo <= n as u64 && n as u64 <= phi), "a sign-less sampler passes");
}

/// Report-noisy-max with two scores (0, d) and Laplace(b) noise selects index 1 with probability
/// `P(L₀ − L₁ < d) = 1 − ½e^{−d/b}(1 + d/(2b))` (difference of two Laplace(b) variables).
/// Monotone utilities at ε = 1, Δ = 1: b = 1, p = 0.72410; the general scale b = 2 (a wrong
/// monotonicity flag) gives p = 0.62092, 2 000 counts away at n = 20 000 (region ≈ ±320).
#[test]
fn stat_report_noisy_max_selection_probability() {
    let p_select = |d: f64, b: f64| 1.0 - 0.5 * (-d / b).exp() * (1.0 + d / (2.0 * b));
    let n = 20_000u64;
    let mut rng = Seeds::new(14).stream(Stream::Noise);
    let count = |rng: &mut dpref::rng::DpRng, m: Monotonicity| {
        (0..n).filter(|_| Selection::new(1.0, 1.0, m).unwrap().report_noisy_max(rng, &[0.0, 1.0]).unwrap() == 1).count()
            as u64
    };
    let (lo, hi) = binomial_interval(n, p_select(1.0, 1.0), ALPHA);
    let c = count(&mut rng, Monotonicity::Monotone);
    assert!(lo <= c && c <= hi, "{lo} <= {c} <= {hi}");
    let c = count(&mut rng, Monotonicity::General);
    assert!(!(lo <= c && c <= hi), "general scale passes the monotone test: {c}");
    let (lo2, hi2) = binomial_interval(n, p_select(1.0, 2.0), ALPHA);
    assert!(lo2 <= c && c <= hi2, "general: {lo2} <= {c} <= {hi2}");
}

/// Exponential mechanism frequencies against `P(i) ∝ exp(ε uᵢ/(2Δ))`: Pearson χ² with 3
/// degrees of freedom, rejected above its 1 − 1e-6 quantile. Power twin: the monotone
/// temperature `exp(ε uᵢ/Δ)` is rejected.
#[test]
fn stat_exponential_mechanism_frequencies() {
    let scores = [0.0, 1.0, 2.0, 3.0];
    let p =
        Selection::new(1.0, 1.0, Monotonicity::General).unwrap().exponential_mechanism_probabilities(&scores).unwrap();
    let z: f64 = scores.iter().map(|u| (u / 2.0f64).exp()).sum();
    for (pi, u) in p.iter().zip(scores) {
        assert!((pi - (u / 2.0f64).exp() / z).abs() < 1e-15);
    }
    let mut rng = Seeds::new(15).stream(Stream::Noise);
    let mut counts = [0u64; 4];
    for _ in 0..40_000 {
        counts[Selection::new(1.0, 1.0, Monotonicity::General)
            .unwrap()
            .exponential_mechanism(&mut rng, &scores)
            .unwrap()] += 1;
    }
    let (stat, crit) = pearson_statistic(&counts, &p);
    assert!(stat <= crit, "{stat} > {crit}");
    let wrong =
        Selection::new(1.0, 1.0, Monotonicity::Monotone).unwrap().exponential_mechanism_probabilities(&scores).unwrap();
    let (stat, crit) = pearson_statistic(&counts, &wrong);
    assert!(stat > crit, "the monotone temperature passes: {stat}");
}

/// Scores near ±f64::MAX overflow u/b: the logits are then shifted by the largest score first, so
/// the probabilities stay a distribution (`[-1e308, -1e308]` at b = 0.5 gave NaN, and sampling
/// panicked); ordinary scores keep their values bit for bit.
#[test]
fn exponential_mechanism_survives_overflowing_scores() {
    let selection = Selection::new(8.0, 1.0, Monotonicity::General).unwrap(); // b = 2Δ/ε = 1/4
    for scores in [[-1e308, -1e308], [1e308, -1e308], [f64::MAX, f64::MAX]] {
        let p = selection.exponential_mechanism_probabilities(&scores).unwrap();
        assert!(p.iter().all(|v| v.is_finite() && *v >= 0.0) && (p.iter().sum::<f64>() - 1.0).abs() < 1e-15, "{p:?}");
        let mut rng = Seeds::new(3).stream(Stream::Noise);
        assert!(selection.exponential_mechanism(&mut rng, &scores).unwrap() < 2);
    }
    let p = selection.exponential_mechanism_probabilities(&[1e308, -1e308]).unwrap();
    assert_eq!(p, vec![1.0, 0.0]);
}

#[test]
fn noise_report_noisy_min_is_max_of_negated_and_seeded_runs_repeat() {
    let scores = [0.3, -1.0, 2.5, 0.0];
    let neg: Vec<f64> = scores.iter().map(|s| -s).collect();
    let (mut a, mut b) = (Seeds::new(16).stream(Stream::Noise), Seeds::new(16).stream(Stream::Noise));
    for _ in 0..100 {
        assert_eq!(
            Selection::new(0.5, 1.0, Monotonicity::General).unwrap().report_noisy_min(&mut a, &scores).unwrap(),
            Selection::new(0.5, 1.0, Monotonicity::General).unwrap().report_noisy_max(&mut b, &neg).unwrap()
        );
    }
    let x: Vec<u64> = gaussian_draws(17, 8, 1.0).iter().map(|v| v.to_bits()).collect();
    let y: Vec<u64> = gaussian_draws(17, 8, 1.0).iter().map(|v| v.to_bits()).collect();
    assert_eq!(x, y);
}

#[test]
fn noise_rejects_bad_parameters() {
    use dpref::Error;
    let mut rng = Seeds::new(0).stream(Stream::Noise);
    let mut x = [0.0; 3];
    assert!(matches!(noise::add_gaussian(&mut rng, &mut x, -1.0), Err(Error::InvalidParameter { .. })));
    assert!(matches!(noise::add_gaussian(&mut rng, &mut x, f64::NAN), Err(Error::InvalidParameter { .. })));
    assert!(matches!(noise::add_gaussian_diagonal(&mut rng, &mut x, &[1.0]), Err(Error::InvalidParameter { .. })));
    assert!(matches!(noise::add_laplace(&mut rng, &mut x, f64::INFINITY), Err(Error::InvalidParameter { .. })));
    let m = Monotonicity::General;
    assert!(matches!(Selection::new(1.0, 1.0, m).unwrap().report_noisy_max(&mut rng, &[]), Err(Error::Empty { .. })));
    assert!(matches!(
        Selection::new(1.0, 1.0, m).unwrap().report_noisy_max(&mut rng, &[f64::NAN]),
        Err(Error::NonFinite { .. })
    ));
    assert!(matches!(Selection::new(0.0, 1.0, m), Err(Error::InvalidParameter { .. })));
}
