//! More noise never gives more ε for fixed-size sampling without replacement (WBK19 bound,
//! `src/accounting/rdp/wor_gaussian.rs`), and the certified forward differences behind it.
//!
//! Before the positive series for Δˡ, a forward difference whose alternating sum cancelled was
//! dropped and its term fell back to Theorem 9's far larger `2e^{(j−1)ε(j)}`, so ε *grew* with σ.
//! Every test here says how it failed on that code; the ones that only use the old public API
//! (`rdp_curve_upper`, `rdp_upper`, the accountant, calibration) were run against it once and
//! failed as stated. The forward-difference tests call functions the old code did not have.
//!
//! Reference values are independent mpmath evaluations (exact alternating sums at 500–1200
//! digits, so no cancellation; the script's steps are in each constant's comment).

mod common;
use common::golden::{assert_ge_ref, load, num};
use dpref::accounting::calibrate::CALIBRATION_RTOL;
use dpref::accounting::rdp::{default_orders, wor_gaussian};
use dpref::accounting::{
    Accountant, Conversion, DpEvent, Neighbouring, RdpAccountant, RdpSettings, SamplingScheme,
    calibrate_noise_multiplier, dp_sgd_event,
};
use proptest::prelude::*;

/// ε (improved conversion, default grid) of `steps` DP-SGD steps with multiplier σ on a fixed-size
/// sample of b out of n, replace-one (effective multiplier z = σ/2): what `dpref account` prints.
fn eps_wor(sigma: f64, b: u64, n: u64, steps: u64, delta: f64) -> f64 {
    let ev = dp_sgd_event(sigma, SamplingScheme::WithoutReplacement { dataset_size: n, batch_size: b }, steps).unwrap();
    let mut acc = RdpAccountant::new(Neighbouring::ReplaceOne);
    acc.compose(&ev, 1).unwrap();
    acc.epsilon(delta, Conversion::Improved).unwrap().epsilon
}

/// The example: b = 100, n = 1000 (γ = 0.1), T = 1000, δ = 1e-5, σ ∈ {133, 178, 1778}.
/// References: the exact WBK19 bound (Thm. 9/27 minimum, Cor. 10 interpolation, default grid,
/// improved conversion) with Δˡ by exact alternating sums at 1200 digits (mpmath 1.3.0).
///
/// Old code: 0.7304, 1.4027, 5.7988 (increasing), so the first assertion failed. Now 0.36145,
/// 0.26382, 0.026070. Derived bound for σ = 1778: sub-sampling cannot hurt, so ε is at most the
/// unsampled Gaussian's (z = 889, 1000 steps: 0.1234, computed below); for large z the bound is
/// dominated by its j = 2 term, per-step `ε′(α) ≈ 2γ²α/z²`, i.e. ρ = 2Tγ²/z² = 2.53e-5
/// zCDP-like, whose classic conversion `ρ + 2√(ρ ln(1/δ))` is 0.034 ≥ 0.026.
#[test]
fn golden_wor_epsilon_example_non_increasing_in_sigma() {
    let sigmas = [133.0, 178.0, 1778.0];
    let exact = ["0.36144831399480981253", "0.26381775423477032225", "0.026070093154807605297"];
    let eps: Vec<f64> = sigmas.iter().map(|&s| eps_wor(s, 100, 1000, 1000, 1e-5)).collect();
    assert!(eps[0] >= eps[1] && eps[1] >= eps[2], "epsilon grows with sigma: {eps:?}");
    for ((&s, &e), x) in sigmas.iter().zip(&eps).zip(exact) {
        // ours ≥ the exact bound; the excess is the certified float margin (measured ≤ 7e-13).
        assert_ge_ref(e, x.parse().unwrap(), 1e-9, &format!("sigma = {s}"));
    }
    let unsampled = {
        let mut acc = RdpAccountant::new(Neighbouring::ReplaceOne);
        acc.compose(&DpEvent::gaussian(1778.0 / 2.0).unwrap(), 1000).unwrap();
        acc.epsilon(1e-5, Conversion::Improved).unwrap().epsilon
    };
    assert!(eps[2] <= unsampled && unsampled < 0.2, "{} vs unsampled {unsampled}", eps[2]);
    let rho = 2.0 * 1000.0 * 0.1f64.powi(2) / (889.0f64 * 889.0);
    assert!(eps[2] <= rho + 2.0 * (rho * 1e5f64.ln()).sqrt(), "{}", eps[2]);
}

/// `dpref calibrate --target-epsilon 1 --batch-size 1 --dataset-size 2 --steps 10 --delta 1e-5
/// --sampling without-replacement --neighbouring replace-one` (γ = 1/2). The exact WBK19 bound
/// (as above, 500 digits) meets ε = 1 at σ* = 22.7916348969766 (secant/bisection to 1e-12).
/// Any valid upper bound is ≥ the exact one, so the calibrated σ is ≥ σ*; the calibration's
/// ε-tolerance 1e-3 keeps it within ~1e-3 of σ* (measured 22.80125, +4.2e-4). Sub-sampling
/// can only help, so σ is also ≤ the unsampled Gaussian's calibration (b = n: 25.59).
///
/// Old code: σ = 632455.53 (ε rose with σ up to there, until the total-variation shortcut gave
/// ε = 0), failing the upper bounds.
#[test]
fn golden_wor_calibrate_half_sampling_gives_sane_sigma() {
    let settings = RdpSettings::new(Neighbouring::ReplaceOne);
    let calibrate = |b: u64| {
        calibrate_noise_multiplier(1.0, 1e-5, &settings, CALIBRATION_RTOL, |s| {
            dp_sgd_event(s, SamplingScheme::WithoutReplacement { dataset_size: 2, batch_size: b }, 10)
        })
        .unwrap()
    };
    let (half, full) = (calibrate(1), calibrate(2));
    let sigma_star = 22.7916348969766;
    let s = half.noise_multiplier;
    assert!(s >= sigma_star, "sigma {s} below the exact bound's {sigma_star}: under-report");
    assert!(s <= sigma_star * 1.002, "sigma {s} more than 0.2 % above the exact bound's {sigma_star}");
    assert!(s <= full.noise_multiplier, "sub-sampled sigma {s} above the unsampled {}", full.noise_multiplier);
    assert!(half.epsilon <= 1.0 && half.epsilon >= 1.0 - CALIBRATION_RTOL, "{half:?}");
}

/// The per-step bound on the 208-case mpmath grid (γ ∈ {256/60000, 0.01, 0.1, 0.5},
/// z ∈ {0.7, 1.1, 2, 5}, α ∈ {2, …, 300}) is now within 1e-10 of the exact bound (measured
/// ≤ 3.4e-12), and still above it. `golden_rdp_wor_gaussian_grid_mpmath` only asks 2e-7.
///
/// Old code: 4 cases above 1e-10, worst 1.35e-7 at γ = 0.5, z = 5, α = 32 (Δ³² came from the
/// alternating sum with its error bound added); the run stopped at the first one, γ = 0.1,
/// α = 64, 1.38e-9 above: failed.
#[test]
fn golden_wor_rdp_within_1e_10_of_mpmath_grid() {
    let g = load("accounting/rdp_wor_gaussian_mpmath.json");
    for c in g["cases"].as_array().unwrap() {
        let (gm, s, a) = (num(&c["gamma"]), num(&c["sigma"]), num(&c["alpha"]));
        let ours = wor_gaussian::rdp_upper(gm, s, a);
        assert_ge_ref(ours, num(&c["expected"]), 1e-10, &format!("gamma={gm} sigma={s} alpha={a}"));
    }
}

/// A dense scan: for γ ∈ {256/60000, 0.1, 0.5} and z from 1e-3 to 1e7 in steps of 2 %, every
/// order of the default grid (and α = 2.5, 300) is non-increasing in z up to 1e-12 relative (the
/// certified margins wobble by an ulp where the bound is flat in z, e.g. α > 256 at z ≈ 3e7:
/// 1.4e-16 measured), and never NaN.
///
/// Old code: jumps of up to ×2.5 (γ = 0.5, α = 16, z ≈ 11.9); the run stopped at the first one
/// met, γ = 256/60000, α = 192: 1.0266e-5 → 1.0384e-5 at z = 26.86: failed.
#[test]
fn prop_wor_rdp_dense_scan_non_increasing_in_z() {
    let mut orders = default_orders();
    orders.extend([2.5, 300.0]);
    for gamma in [256.0 / 60000.0, 0.1, 0.5] {
        let mut z: f64 = 1e-3;
        let mut prev: Option<Vec<f64>> = None;
        while z <= 1e7 {
            let r = wor_gaussian::rdp_curve_upper(gamma, z, &orders);
            assert!(r.iter().all(|v| !v.is_nan() && *v >= 0.0), "gamma={gamma} z={z}: {r:?}");
            if let Some(p) = &prev {
                for ((a, x), y) in orders.iter().zip(p).zip(&r) {
                    assert!(*y <= x * (1.0 + 1e-12), "gamma={gamma} alpha={a}: {x:e} at z/1.02 < {y:e} at z={z}");
                }
            }
            prev = Some(r);
            z *= 1.02;
        }
    }
}

/// Tiny multipliers: `z²` below the smallest normal float (z = σ/2 for σ = 1e-160, 1e-320, and
/// the smallest subnormal z) gives +∞ at every order, also through the accountant (ε = ∞);
/// never NaN.
///
/// Old code: `i(i−1)/(2z²)` overflowed (or was 0/0 at i ≤ 1 when 2z² = 0), the log-sums met
/// ∞ − ∞, and `rdp_curve_upper` returned NaN at every order (run: z = 5e-161, all NaN): failed.
#[test]
fn prop_wor_tiny_sigma_gives_infinity_not_nan() {
    let orders = default_orders();
    for z in [5e-161, 5e-321, f64::from_bits(1)] {
        for gamma in [1e-4, 0.1, 0.5] {
            let r = wor_gaussian::rdp_curve_upper(gamma, z, &orders);
            assert!(r.iter().all(|v| *v == f64::INFINITY), "z={z} gamma={gamma}: {r:?}");
        }
    }
    for sigma in [1e-160, 1e-320] {
        assert_eq!(eps_wor(sigma, 1, 2, 10, 1e-5), f64::INFINITY, "sigma={sigma}");
    }
    // Just above the threshold the values are finite, huge, and not NaN.
    for z in [1.5e-154, 1e-150, 1e-100] {
        let r = wor_gaussian::rdp_curve_upper(0.1, z, &orders);
        assert!(r.iter().all(|v| !v.is_nan() && *v > 1e190), "z={z}");
    }
}

/// `ln Δˡ` at 14 points against exact alternating sums (mpmath, `dps = 80 + (0.7l + max(0,
/// −ln lead) + l²/(2z²))/2.3` digits, so the cancellation is resolved): the certified series and
/// (where usable, error bound < 1 %) the direct sum are upper bounds whose excess is at most
/// their error bound (plus 1e-15 relative for parsing the 22-digit reference).
///
/// Old code: no series; the direct sum alone has a usable value at only 4 of these points, the
/// first four below 1e4 in z (and the functions did not exist: this test does not compile
/// against it).
#[test]
fn golden_wor_forward_differences_against_mpmath() {
    let cases: [(f64, u64, &str); 14] = [
        (0.7, 10, "91.83673458839942785025"),
        (2.0, 64, "503.9999907521377123261"),
        (5.0, 32, "11.00609783380209505708"),
        (8.0, 64, "8.003429033761874654542"),
        (8.4, 256, "455.9170437367982652336"),
        (10.0, 14, "-18.42339652987044484978"),
        (10.0, 128, "46.96169925634352939351"),
        (12.0, 200, "90.56237804648877939028"),
        (20.0, 256, "-62.13436155295081150616"),
        (66.5, 14, "-46.87471507003989673461"),
        (889.0, 64, "-333.0962044902423525474"),
        (1e4, 256, "-1775.697400861307552923"),
        (1e7, 2, "-32.23619130191663457625"),
        (1e7, 128, "-1816.240383871317330556"),
    ];
    let mut direct_usable = 0;
    for (z, l, exact) in cases {
        let exact: f64 = exact.parse().unwrap();
        let slack = 1e-15 * exact.abs();
        let s = wor_gaussian::log_forward_difference_series(z, l);
        assert!(s.upper() >= exact - slack, "series z={z} l={l}: {s:?} below {exact}");
        assert!(s.upper() <= exact + 2.0 * s.error + slack + 1e-300, "series z={z} l={l}: {s:?} vs {exact}");
        assert!(s.error > 0.0 && s.error < 1e-9, "series z={z} l={l} not the certified series: {s:?}");
        if let Some(d) = wor_gaussian::log_forward_difference_direct(z, l)
            && d.value.is_finite()
            && d.error < wor_gaussian::DIRECT_MAX_ERROR
        {
            direct_usable += 1;
            assert!(d.upper() >= exact - slack, "direct z={z} l={l}: {d:?} below {exact}");
            assert!(d.upper() <= exact + 2.0 * d.error + slack, "direct z={z} l={l}: {d:?} vs {exact}");
        }
    }
    assert_eq!(direct_usable, 4);
}

/// Where both evaluations are accurate (direct error bound < 1e-6, series error > 0, i.e. not the
/// e^λ fallback), their certified intervals `[value − error, value + error]` overlap; and at every
/// z of a 25 %-step grid over 1e-3 … 1e8 and every even l ≤ 256, the better of the two pins
/// `ln Δˡ` to a relative width ≤ 1e-9 (no regime without an accurate bound; measured ≤ 1.0e-10
/// on a 0.2 % grid).
///
/// Old code: the functions did not exist (this test does not compile against it); its direct
/// sum alone left every l ≥ 14 without a usable value at z ≥ 10.
#[test]
fn prop_wor_series_and_direct_agree_and_leave_no_gap() {
    let mut overlaps = 0;
    let mut z: f64 = 1e-3;
    while z <= 1e8 {
        for l in (2..=256u64).step_by(2) {
            let s = wor_gaussian::log_forward_difference_series(z, l);
            let d = wor_gaussian::log_forward_difference_direct(z, l)
                .filter(|d| d.value.is_finite() && d.error < wor_gaussian::DIRECT_MAX_ERROR);
            let series_lower = if s.error > 0.0 { s.value - s.error } else { f64::NEG_INFINITY };
            let (mut up, mut lo) = (s.upper(), series_lower);
            if let Some(d) = d {
                if d.error < 1e-6 && s.error > 0.0 {
                    overlaps += 1;
                    assert!(
                        (d.value - s.value).abs() <= d.error + s.error,
                        "z={z} l={l}: direct {d:?} and series {s:?} disagree"
                    );
                }
                up = up.min(d.upper());
                lo = lo.max(d.value - d.error);
            }
            let width = (up - lo) / up.abs().max(1.0);
            assert!(width <= 1e-9, "z={z} l={l}: certified width {width:e} (series {s:?}, direct {d:?})");
        }
        z *= 1.25;
    }
    assert!(overlaps > 400, "{overlaps}");
}

fn log_uniform(lo: f64, hi: f64) -> impl Strategy<Value = f64> {
    (lo.ln()..hi.ln()).prop_map(f64::exp)
}

/// An order: an integer in 2..=300 or a fractional one in (1, 300).
fn order() -> impl Strategy<Value = f64> {
    prop_oneof![(2u64..=300).prop_map(|a| a as f64), (1.01f64..300.0)]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    /// For random γ = b/n, orders and z1 < z2 log-uniform over 1e-3 … 1e7 (z2 = z1·e^t,
    /// t ∈ [1e-6, 10]), each order's per-step bound is non-increasing (up to 1e-12 relative, the
    /// float wobble of the certified margins), never NaN, ≥ 0, and at integer α ≥ its own j = 2
    /// term `ln(1 + γ²C(α,2)·min{4(e^{2/(2z²)} − 1), 2e^{2/(2z²)}})/(α − 1)` (computed here in
    /// logs with `expm1`/`ln_1p`; all other terms are positive).
    ///
    /// Old code: once z passed the value where a Δˡ's alternating sum failed (z ≈ 6–12 for
    /// l ≤ 256), the bound rose; the run's minimal case: γ = 0.5, α = 25.58, 0.44239 at
    /// z = 35.33 but 0.44865 at z = 96.05 (failed).
    #[test]
    fn prop_wor_rdp_non_increasing_in_z_and_never_nan(
        n in 2u64..100_000,
        b_frac in 0.0f64..1.0,
        orders in prop::collection::vec(order(), 1..4),
        z1 in log_uniform(1e-3, 1e7),
        t in log_uniform(1e-6, 10.0),
    ) {
        let b = ((b_frac * (n - 1) as f64) as u64).clamp(1, n - 1);
        let gamma = b as f64 / n as f64;
        let z2 = (z1 * t.exp()).min(1e7);
        prop_assume!(z2 > z1);
        let r1 = wor_gaussian::rdp_curve_upper(gamma, z1, &orders);
        let r2 = wor_gaussian::rdp_curve_upper(gamma, z2, &orders);
        for ((&a, &x), &y) in orders.iter().zip(&r1).zip(&r2) {
            prop_assert!(!x.is_nan() && !y.is_nan() && x >= 0.0 && y >= 0.0, "alpha {}: {} {}", a, x, y);
            prop_assert!(
                y <= x * (1.0 + 1e-12),
                "gamma {} alpha {}: {:e} at z={} < {:e} at z={}", gamma, a, x, z1, y, z2
            );
            if a.fract() == 0.0 {
                for (z, v) in [(z1, x), (z2, y)] {
                    // in logs: ln T₂ = min{ln 4 + ε₂ + ln(1 − e^{−ε₂}), ln 2 + ε₂}, ε₂ = 1/z²
                    let eps2 = 1.0 / (z * z);
                    let ln_t2 = (4f64.ln() + eps2 + (-(-eps2).exp_m1()).ln()).min(2f64.ln() + eps2);
                    let ln_x = 2.0 * gamma.ln() + (a * (a - 1.0) / 2.0).ln() + ln_t2;
                    let softplus = if ln_x > 0.0 { ln_x + (-ln_x).exp().ln_1p() } else { ln_x.exp().ln_1p() };
                    let first = softplus / (a - 1.0);
                    prop_assert!(
                        v >= first * (1.0 - 1e-12),
                        "gamma {} alpha {} z {}: {:e} below its j = 2 term {:e}", gamma, a, z, v, first
                    );
                }
            }
        }
    }
}
