//! Tests of `dpref::bounds::adaptive_noise` ([ADFJT] Thm. 3, notes §2.3 and §6: O12): the rounds,
//! the accuracy band (as the proof supports it, and the printed eq. (8)) and the ellipsoid `Ĉ` of
//! the private second-moment estimation (Alg. 3).

mod common;

use common::box_adagrad::log_uniform;
use common::check::assert_rel;
use dpref::bounds::adaptive_noise::*;
use proptest::prelude::*;

// ---------------------------------------------------------------------------------------------
// Theorem 3
// ---------------------------------------------------------------------------------------------

/// `T_est = ⌈1.5·log₂ d⌉` (the least t with `4^t ≥ d³`): `2^{−T_est} ≤ d^{−3/2} < 2^{1−T_est}`
/// for every d ≤ 5000, equal to the floating formula there, and by hand 0, 2, 3, 5, 9, 10 at
/// d = 1, 2, 4, 8, 64, 100. Mutant: natural log (`⌈1.5 ln d⌉ = 7` at d = 100) misses the floor.
#[test]
fn second_moment_rounds_is_ceil_three_halves_log2_d() {
    for (d, t) in [(1, 0), (2, 2), (4, 3), (8, 5), (64, 9), (100, 10)] {
        assert_eq!(second_moment_rounds(d).unwrap(), t, "d = {d}");
    }
    for d in 1..=5000usize {
        let t = second_moment_rounds(d).unwrap();
        assert_eq!(t as f64, (1.5 * (d as f64).log2()).ceil(), "d = {d}");
        let floor = (d as f64).powf(-1.5);
        assert!(2f64.powi(-(t as i32)) <= floor * (1.0 + 1e-15) && floor < 2f64.powi(1 - t as i32), "d = {d}");
    }
    let natural = (1.5 * 100f64.ln()).ceil() as i32;
    assert_eq!(natural, 7);
    assert!(2f64.powi(-natural) > 100f64.powf(-1.5));
}

/// The accuracy band of Thm. 3 on a noise-free population run of Alg. 3 (`v_{t,j} = σⱼ²`, the
/// untruncated second moment; the threshold test `√v ≥ 2^{−t−1}`; the floor `2^{−T_est}`), d = 64
/// (`T_est = 9`, floor `2^{−9} = d^{−3/2}`), `σⱼ = 2^{−(j−1)/2}` down to `2^{−31.5}`: every output
/// is in [`second_moment_band`], while the printed eq. (8) upper end `2σⱼ` fails for every
/// `σⱼ < 2^{−10}` (output `2^{−9}`) — and so does `8σⱼ` below `2^{−12}`: the band's upper end
/// must be `8·max(σⱼ, d^{−3/2})`. For `σⱼ < d^{−3/2}/16` the literal band `[m/2, 8σⱼ]` is empty.
/// Mutant: an estimator one halving too small (`σ̂ = 2^{−t−2}`) leaves the band.
#[test]
fn second_moment_band_holds_on_a_noise_free_run_where_printed_eq8_fails() {
    let d = 64usize;
    let t_est = second_moment_rounds(d).unwrap() as i32;
    assert_eq!(t_est, 9);
    let sigma: Vec<f64> = (0..d).map(|j| 2f64.powf(-(j as f64) / 2.0)).collect();
    let run = |shift: i32| -> Vec<f64> {
        sigma
            .iter()
            .map(|s| (1..=t_est).find(|t| *s >= 2f64.powi(-t - 1)).map_or(2f64.powi(-t_est), |t| 2f64.powi(-t - shift)))
            .collect()
    };
    let sigma_hat = run(0);
    assert!(second_moment_estimates_in_band(&sigma_hat, &sigma).unwrap());
    let mut printed_fails = 0;
    for (h, s) in sigma_hat.iter().zip(&sigma) {
        let (lo, hi) = second_moment_band_printed(*s, d).unwrap();
        if !(lo <= *h && *h <= hi) {
            printed_fails += 1;
            assert!(*s < 2f64.powi(-10), "printed band fails above the floor at sigma = {s}");
        }
        if *s < 2f64.powi(-12) {
            assert!(*h > 8.0 * s, "8 sigma holds below 2^-12 at {s}");
        }
    }
    assert_eq!(printed_fails, sigma.iter().filter(|s| **s < 2f64.powi(-10)).count());
    assert!(printed_fails > 0);
    let tiny = 2f64.powi(-9) / 20.0;
    let (lo, _) = second_moment_band(tiny, d).unwrap();
    assert!(lo > 8.0 * tiny, "literal band not empty");
    assert!(!second_moment_estimates_in_band(&run(2), &sigma).unwrap());
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    /// The proof of Thm. 3 (iii) for estimates anywhere in the band: `Ĉⱼ ≤ (rσⱼ)^{−4/3}` (so
    /// `G_{2p}(Ĉ) ≤ G_{2p}(C)`), `Ĉⱼ^{−1/2} = 2(rσ̂ⱼ)^{2/3}` (erratum 17), and
    /// `Σ Ĉⱼ^{−1/2} ≤ 2·8^{2/3} r^{2/3} Σⱼ max(σⱼ, d^{−3/2})^{2/3} ≤ 16 r^{2/3} Σⱼ σⱼ^{2/3}`
    /// (using `max σ = 1`, so `Σ σ^{2/3} ≥ 1 = Σⱼ (d^{−3/2})^{2/3}`). Mutant: App. C's printed
    /// exponents (`r^{−2/3} Σ σ̂^{−2/3}`, `c_hat_printed_exponents_fail`).
    #[test]
    fn prop_c_hat_in_band_is_below_the_optimal_c_and_sums_are_bounded(
        raw in prop::collection::vec(prop_oneof![1 => Just(0.0), 9 => log_uniform(1e-6, 1.0)], 1..40),
        pos in prop::collection::vec(0.0f64..=1.0, 40),
        r in 0.71f64..20.0,
    ) {
        let max = raw.iter().copied().fold(0.0, f64::max);
        prop_assume!(max > 0.0);
        let sigma: Vec<f64> = raw.iter().map(|s| s / max).collect();
        let d = sigma.len();
        let sigma_hat: Vec<f64> = sigma.iter().zip(&pos).map(|(s, t)| {
            let (lo, hi) = second_moment_band(*s, d).unwrap();
            (lo * (hi / lo).powf(*t)).clamp(lo, hi)
        }).collect();
        prop_assert!(second_moment_estimates_in_band(&sigma_hat, &sigma).unwrap());
        let c_hat = c_hat_from_sigma_hat(&sigma_hat, r).unwrap();
        let mut sum_inv_sqrt = 0.0;
        for ((c, s), h) in c_hat.iter().zip(&sigma).zip(&sigma_hat) {
            if *s > 0.0 {
                prop_assert!(*c <= (r * s).powf(-4.0 / 3.0) * (1.0 + 1e-12));
            }
            let inv_sqrt = 1.0 / c.sqrt();
            prop_assert!((inv_sqrt - 2.0 * (r * h).powf(2.0 / 3.0)).abs() <= 1e-12 * inv_sqrt);
            sum_inv_sqrt += inv_sqrt;
        }
        let floor = (d as f64).powf(-1.5);
        let mid: f64 = sigma.iter().map(|s| s.max(floor).powf(2.0 / 3.0)).sum::<f64>() * 2.0 * 4.0 * r.powf(2.0 / 3.0);
        let top = 16.0 * r.powf(2.0 / 3.0) * sigma.iter().map(|s| s.powf(2.0 / 3.0)).sum::<f64>();
        prop_assert!(sum_inv_sqrt <= mid * (1.0 + 1e-12) && mid <= top * (1.0 + 1e-12));
    }
}

/// Power twin for erratum 17: App. C's printed `Σ Ĉⱼ^{−1/2} ≤ O(r^{−2/3}) Σ σ̂ⱼ^{−2/3}` — even
/// with the constant 16 — fails at `σ = σ̂ = 1` (d = 4), r = 10: `Σ Ĉ^{−1/2} = 8·10^{2/3} = 37.1`
/// against `16·10^{−2/3}·4 = 13.8`.
#[test]
fn c_hat_printed_exponents_fail() {
    let c_hat = c_hat_from_sigma_hat(&[1.0; 4], 10.0).unwrap();
    assert_rel(c_hat[0], 10f64.powf(-4.0 / 3.0) / 4.0, 1e-15, "C_hat");
    let sum: f64 = c_hat.iter().map(|c| 1.0 / c.sqrt()).sum();
    assert_rel(sum, 8.0 * 10f64.powf(2.0 / 3.0), 1e-14, "sum");
    assert!(sum > 16.0 * 10f64.powf(-2.0 / 3.0) * 4.0);
}
