//! Deterministic properties of [ADFJT] Algorithm 3, the private second-moment estimation (notes
//! §6: D6, O12): the sensitivity of a round (brute force), the noise calibrated to it, the
//! composition of the rounds to the target, the printed variance when the active set empties,
//! and the outputs (dyadic, assigned, monotone, in the accuracy band).

use dpref::Error;
use dpref::accounting::{Neighbouring, gdp};
use dpref::data::Dataset;
use dpref::optim::adaptive_noise::second_moment::{
    MomentNoise, SecondMomentConfig, default_rounds, ellipsoid_from_moments, private_second_moments,
};
use dpref::rng::{Seeds, Stream};
use proptest::prelude::*;

mod common;

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
    #![proptest_config(common::strategies::fixed_seed_config(128, 0x616c_6733))]

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

/// A round whose sensitivity ρ_t²/n or printed std underflows would release its data-dependent
/// statistic with no noise and no event; such a T_est is refused up front (from public values
/// only). Input of the review that found it: 2000 rows of 1e-90, r = 1, T_est = 300, printed
/// variance at ε = 1e3: 300 rounds ran, 266 events were recorded (ρ_t⁴ underflows for t ≥ 272),
/// and σ̂ doubled exactly with the data. The multiplier form is refused where ρ_t²/n underflows
/// (t ≳ 510 at n = 2000); T_est = 200 runs and records one event per round that released.
#[test]
fn second_moment_rounds_whose_noise_underflows_are_refused() {
    let data = Dataset::new(vec![1e-90; 2000], vec![0.0; 2000], 1).unwrap();
    let cfg = |rounds: u32, noise| SecondMomentConfig { moment_ratio_r: 1.0, rounds_t_est: Some(rounds), noise };
    let paper = MomentNoise::PaperVariance { epsilon: 1e3, delta: 1e-5 };
    for (rounds, noise) in [(300, paper), (272, paper), (600, MomentNoise::Multiplier(1.0))] {
        let err = private_second_moments(&data, &cfg(rounds, noise), Seeds::new(1)).unwrap_err();
        assert!(matches!(err, Error::InvalidParameter { name: "rounds T_est", .. }), "{rounds}: {err}");
    }
    for noise in [paper, MomentNoise::Multiplier(1.0)] {
        let est = private_second_moments(&data, &cfg(200, noise), Seeds::new(1)).unwrap();
        assert!(est.noise_stds.iter().all(|&s| s >= f64::MIN_POSITIVE), "{:?}", est.noise_stds);
        let released = (1..=200).filter(|&t| active_at(&est.sigma_hat, t) > 0).count();
        assert_eq!(est.events.len(), released as u64, "one event per round with a non-empty U");
    }
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
