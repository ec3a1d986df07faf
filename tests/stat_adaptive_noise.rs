//! Statistical tests of the noise PASAN and PAGAN release ([ADFJT] notes §6, N1–N3), through the
//! algorithms' own runs (the `Trace` observer records every released ĝ^k).
//!
//! The noise on the mean is `s·ξ`, `ξ ~ N(0, A⁻¹)`, `A = C/B²`, `s = z/b` (z the noise
//! multiplier on the sum, b = q·n the expected batch size): coordinate j has std `s·B/√Cⱼⱼ`.
//! Every test uses a fixed seed and an acceptance region with false-failure probability
//! ≤ ALPHA = 1e-6 (union bounds written at each test), from exact χ² and normal quantiles
//! (`tests/common/stat.rs`, statrs) or a proven tail bound (Laurent & Massart 2000, Lemma 1).
//! Each is paired with power twins built from the same draws: the noise halved, and the noise
//! covariance `A` instead of `A⁻¹` (`ξ'ⱼ = aⱼ ξⱼ`, i.e. `s·A^{1/2}w` instead of `s·A^{−1/2}w`).

mod common;
use common::stat::{ALPHA, chi_square_interval};
use dpref::data::Dataset;
use dpref::loss::Loss;
use dpref::optim::RunSettings;
use dpref::optim::adaptive_noise::{AdaptiveMethod, AdaptiveNoiseConfig};
use dpref::optim::{Privacy, Trace};
use dpref::rng::Seeds;
use dpref::sampling::BatchSampler;
use statrs::distribution::{ContinuousCDF, Normal};

/// `C` and `B` of every test: `a = C/B² = (1.78, 0.111, 4, 0.222)`, all far from 1, so the
/// covariance mutant `A` vs `A⁻¹` changes every coordinate's variance by `aⱼ² ∉ [0.05, 0.25] ∪
/// [3.1, 16]`.
const C: [f64; 4] = [4.0, 0.25, 9.0, 0.5];
const B: f64 = 1.5;

fn a() -> Vec<f64> {
    C.iter().map(|c| c / (B * B)).collect()
}

#[derive(Debug, Clone, Copy)]
enum Alg {
    Pasan,
    Pagan,
}

/// The released gradients of a run of `steps` steps with noise multiplier z.
fn released(
    alg: Alg,
    data: &Dataset,
    loss: Loss,
    sampler: BatchSampler,
    z: f64,
    steps: u64,
    seed: u64,
) -> Vec<Vec<f64>> {
    let run_settings =
        RunSettings::poisson(steps, 0.5, Privacy::NoiseMultiplier { sigma: z, report_delta: None }).unwrap();
    let mut cfg = AdaptiveNoiseConfig::new(4, 0.5, B, run_settings).unwrap();
    cfg.ellipsoid_c = C.to_vec();
    cfg.settings.sampler = sampler;
    cfg.settings.batch_size_b = Some(sampler.expected_batch_size(data.n()));
    let mut trace = Trace::default();
    match alg {
        Alg::Pasan => AdaptiveMethod::Pasan.run(data, loss, &cfg, Seeds::new(seed), &mut trace),
        Alg::Pagan => AdaptiveMethod::Pagan.run(data, loss, &cfg, Seeds::new(seed), &mut trace),
    }
    .unwrap();
    assert_eq!(trace.noisy_gradients.len(), steps as usize);
    trace.noisy_gradients
}

/// Records with zero gradients everywhere (linear loss, labels 0): the released ĝ is the
/// noise alone, `ĝ = s·ξ`.
fn zero_gradient_data() -> Dataset {
    Dataset::new(
        vec![1.0, -2.0, 0.5, 3.0, 0.0, 1.0, -1.0, 2.0, 4.0, 0.5, -0.5, 1.0, 2.0, 2.0, -3.0, 1.0],
        vec![0.0; 4],
        4,
    )
    .unwrap()
}

/// Whitened draws `wⱼ = ĝⱼ·√aⱼ/s`: i.i.d. N(0, 1) for a correct implementation.
/// N1 and N2's runs: z = 3 and T = 50 000 steps on the zero-gradient records with Poisson
/// q = 0.5 (n = 4, so b = 2 and s = z/b = 1.5).
const N12_Z: f64 = 3.0;
const N12_STEPS: u64 = 50_000;
const N12_S: f64 = N12_Z / (0.5 * 4.0);

/// The released ĝ (the noise alone) of `alg`'s N1/N2 run with `seed`.
fn noise_only_release(alg: Alg, seed: u64) -> Vec<Vec<f64>> {
    let sampler = BatchSampler::Poisson { q: 0.5 };
    released(alg, &zero_gradient_data(), Loss::Linear, sampler, N12_Z, N12_STEPS, seed)
}

fn whitened(g: &[Vec<f64>], s: f64) -> Vec<Vec<f64>> {
    let a = a();
    g.iter().map(|v| v.iter().zip(&a).map(|(x, aj)| x * aj.sqrt() / s).collect()).collect()
}

fn in_interval(t: f64, (lo, hi): (f64, f64)) -> bool {
    lo <= t && t <= hi
}

/// N1: per coordinate, `Var(ξⱼ) = B²/Cⱼⱼ`: with zero gradients, T = 50 000 steps (z = 3,
/// Poisson q = 0.5 on n = 4, so b = 2 and s = 1.5), `Σ_k (ĝ_kj/(s·B/√Cⱼⱼ))² ~ χ²_T` exactly.
/// 2 algorithms × 4 coordinates = 8 tests at ALPHA/8 each (region [48 346, 51 690] = T ± 1 700,
/// i.e. ±3.4 % on the variance). Power twins on the same draws: noise halved (statistic T/4)
/// and covariance A instead of A⁻¹ (statistic ×aⱼ²) fail every coordinate.
#[test]
fn stat_adaptive_noise_coordinate_variance_is_b2_over_c() {
    let s = N12_S;
    let region = chi_square_interval(N12_STEPS, ALPHA / 8.0);
    let a = a();
    for alg in [Alg::Pasan, Alg::Pagan] {
        let g = noise_only_release(alg, 1);
        for j in 0..4 {
            let std_j = s * B / C[j].sqrt();
            let stat = |f: f64| g.iter().map(|v| (f * v[j] / std_j).powi(2)).sum::<f64>();
            let t = stat(1.0);
            assert!(in_interval(t, region), "{alg:?} coordinate {j}: {t} ∉ {region:?}");
            assert!(!in_interval(stat(0.5), region), "{alg:?} {j}: noise halved passes");
            // A instead of A⁻¹: the mutant's draw is aⱼ·ξⱼ
            assert!(!in_interval(stat(a[j]), region), "{alg:?} {j}: covariance A passes");
        }
    }
}

/// N2: the whitened noise `A^{1/2}ξ` has identity covariance. For i.i.d. N(0, 1) pairs
/// (wᵢ, wⱼ), `(wᵢ ± wⱼ)/√2` are i.i.d. N(0, 1) too, so besides the diagonal `Σ_k w_kj² ~ χ²_T`
/// each pair gives two exact `χ²_T` statistics `Σ_k (w_ki ± w_kj)²/2`; a correlation ρ moves
/// them to `T(1 ± ρ)`, so with T = 50 000 the pair tests reject |ρ| ≳ 5.5·√(2/T) = 0.035 (the
/// derived bound on the off-diagonal sample correlations). Tests: 2 algorithms × (4 diagonal +
/// 2·6 pair) = 32, at ALPHA/32 each. Power twins: a mutant whose second coordinate reuses half
/// of the first's draw, `w'₂ = (w₁ + w₂)/√2` (unit variance, ρ = 0.71), passes the diagonal and
/// fails its pair; the covariance mutant fails the diagonal.
#[test]
fn stat_adaptive_noise_whitened_noise_has_identity_covariance() {
    let region = chi_square_interval(N12_STEPS, ALPHA / 32.0);
    let checks = |w: &[Vec<f64>]| -> Vec<(String, bool)> {
        let mut out = Vec::new();
        for i in 0..4 {
            let t: f64 = w.iter().map(|v| v[i] * v[i]).sum();
            out.push((format!("var {i}"), in_interval(t, region)));
            for j in i + 1..4 {
                let plus: f64 = w.iter().map(|v| (v[i] + v[j]).powi(2) / 2.0).sum();
                let minus: f64 = w.iter().map(|v| (v[i] - v[j]).powi(2) / 2.0).sum();
                out.push((format!("pair {i},{j}"), in_interval(plus, region) && in_interval(minus, region)));
            }
        }
        out
    };
    for alg in [Alg::Pasan, Alg::Pagan] {
        let w = whitened(&noise_only_release(alg, 2), N12_S);
        for (what, ok) in checks(&w) {
            assert!(ok, "{alg:?}: {what} outside the identity region");
        }
        let shared: Vec<Vec<f64>> =
            w.iter().map(|v| vec![v[0], (v[0] + v[1]) / std::f64::consts::SQRT_2, v[2], v[3]]).collect();
        let verdicts = checks(&shared);
        assert!(verdicts.iter().filter(|(w, _)| w.starts_with("var")).all(|(_, ok)| *ok), "{verdicts:?}");
        assert!(!verdicts.iter().find(|(w, _)| w == "pair 0,1").unwrap().1, "correlated noise passes");
        let a = a();
        let cov_a: Vec<Vec<f64>> = w.iter().map(|v| v.iter().zip(&a).map(|(x, aj)| x * aj).collect()).collect();
        assert!(checks(&cov_a).iter().any(|(w, ok)| w.starts_with("var") && !ok), "covariance A passes");
    }
}

/// N3 (eq. 17): `E‖ĝ‖² − E‖g̃‖² = s²tr(A⁻¹) = s²B²tr(C⁻¹)`. Records with non-zero linear-loss
/// gradients (independent of x, several projected onto the ellipsoid), full batch (n = 4, b = 4,
/// z = 4, s = 1): g̃ is the same at every step and is read from the same run with z = 0. With
/// `ĝ^k = g̃ + sξ^k` the statistic
/// `M = (1/T)Σ_k(‖ĝ^k‖² − ‖g̃‖²) − s²tr(A⁻¹) = L + Q`,
/// `L = (2s/T)Σ_k⟨g̃, ξ^k⟩ ~ N(0, 4s²·g̃ᵀA⁻¹g̃/T)` exactly, and
/// `Q = (s²/T)Σ_{k,j} λⱼ(w_kj² − 1)`, `λ = 1/a`, a weighted centred χ² for which Laurent &
/// Massart (2000, Lemma 1) give `P(TQ/s² ≥ 2‖λ‖√x + 2λ_max x) ≤ e^{−x}` and
/// `P(TQ/s² ≤ −2‖λ‖√x) ≤ e^{−x}` (‖λ‖² = T·Σⱼλⱼ²). Per algorithm (2, so α = ALPHA/2 each):
/// L two-sided at α/2 (normal quantile), Q each tail at α/4 (x = ln(4/α)). With T = 20 000
/// the region is [−0.65, 0.66] (M = −0.012 measured), against `s²tr(A⁻¹) = 14.3`. Power twins on the same
/// draws: noise halved gives M ≈ −¾·14.3 = −10.7, covariance A gives M ≈ tr(A) − tr(A⁻¹) = −8.2.
#[test]
fn stat_adaptive_noise_second_moment_gap_is_s2_b2_trace_c_inverse() {
    let (z, steps) = (4.0, 20_000u64);
    let data = Dataset::new(
        vec![0.3, -0.2, 0.1, 0.4, 5.0, 1.0, -2.0, 0.5, -0.5, 3.0, 0.2, -4.0, 0.05, 0.1, 0.0, 0.2],
        vec![1.0, -0.5, 2.0, 1.0],
        4,
    )
    .unwrap();
    let s = z / 4.0;
    let a = a();
    let lambda: Vec<f64> = a.iter().map(|v| 1.0 / v).collect();
    let tr_inv: f64 = lambda.iter().sum();
    let alpha = ALPHA / 2.0;
    let t = steps as f64;
    for alg in [Alg::Pasan, Alg::Pagan] {
        let g_tilde = released(alg, &data, Loss::Linear, BatchSampler::Full, 0.0, 1, 3).remove(0);
        let g = released(alg, &data, Loss::Linear, BatchSampler::Full, z, steps, 3);
        let sq = |v: &[f64]| v.iter().map(|x| x * x).sum::<f64>();
        let gt2 = sq(&g_tilde);
        // the acceptance region of M
        let sd_l = 2.0 * s * (g_tilde.iter().zip(&lambda).map(|(x, l)| l * x * x).sum::<f64>() / t).sqrt();
        let z_l = Normal::new(0.0, 1.0).unwrap().inverse_cdf(1.0 - alpha / 4.0);
        let x = (4.0 / alpha).ln();
        let norm_lambda = (t * lambda.iter().map(|l| l * l).sum::<f64>()).sqrt();
        let lmax = lambda.iter().copied().fold(0.0, f64::max);
        let q_hi = s * s * (2.0 * norm_lambda * x.sqrt() + 2.0 * lmax * x) / t;
        let q_lo = s * s * 2.0 * norm_lambda * x.sqrt() / t;
        let (lo, hi) = (-z_l * sd_l - q_lo, z_l * sd_l + q_hi);
        let m_of = |noise: &dyn Fn(usize, f64) -> f64| {
            g.iter()
                .map(|v| sq(&(0..4).map(|j| g_tilde[j] + noise(j, v[j] - g_tilde[j])).collect::<Vec<_>>()) - gt2)
                .sum::<f64>()
                / t
                - s * s * tr_inv
        };
        let m = m_of(&|_, e| e);
        assert!(lo <= m && m <= hi, "{alg:?}: M = {m} ∉ [{lo}, {hi}]");
        let halved = m_of(&|_, e| 0.5 * e);
        assert!(!(lo <= halved && halved <= hi), "{alg:?}: noise halved passes ({halved})");
        let cov_a = m_of(&|j, e| a[j] * e);
        assert!(!(lo <= cov_a && cov_a <= hi), "{alg:?}: covariance A passes ({cov_a})");
        assert!(hi - lo < 0.2 * s * s * tr_inv, "the region is too wide to see the noise: [{lo}, {hi}]");
    }
}
