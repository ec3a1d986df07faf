//! Tests of `dpref::bounds::adaptive_noise` ([ADFJT], notes §4.6–4.7): Thms. 8 and 9 (PASAN and
//! PAGAN) with explicit constants and as printed, and Thms. 1 and 2 with the tuned clip radius.

mod common;

use common::box_adagrad::{Method, fixed, log_uniform, run_on_box};
use common::check::assert_rel;
use dpref::Error;
use dpref::bounds::adaptive_noise::*;
use proptest::prelude::*;

// ---------------------------------------------------------------------------------------------
// Theorems 8 and 9: explicit forms, printed forms, tuned B
// ---------------------------------------------------------------------------------------------

/// The explicit Thm. 8 and Thm. 9 forms by hand. PASAN: `D₂ = α = 2` (coefficient 3), T = 4,
/// `Σ E‖g̃‖² = 11`, s = 0.5, B = 2, C = diag(1, 4) (`tr C⁻¹ = 1.25`, noise energy
/// `T s²B² tr = 5`): `3/4·√16 = 3`, plus `D_{C⁻¹}·bias = 2·0.25`. PAGAN: per-coordinate sums
/// (3, 0): `3/4·(√(3 + 4) + √(0 + 1))` plus the same clipping term. Mutant: dropping B² from the
/// noise energy gives `3/4·√12.25` ≠ 3.
#[test]
fn explicit_bounds_match_hand_computation() {
    let c = [1.0, 4.0];
    let common = hand_common(&c);
    let pasan = pasan_bound_explicit(&PasanExplicitInputs { sum_sq_norm_g_tilde: 11.0, diam_2: 2.0, common }).unwrap();
    assert_eq!((pasan.adaptive_term, pasan.clipping_term, pasan.total()), (3.0, 0.5, 3.5));
    let pagan = pagan_bound_explicit(&PaganExplicitInputs {
        sum_sq_g_tilde_per_coordinate: &[3.0, 0.0],
        diam_inf: 2.0,
        common,
    })
    .unwrap();
    assert_rel(pagan.adaptive_term, 0.75 * (7f64.sqrt() + 1.0), 1e-15, "pagan");
    assert_eq!(pagan.clipping_term, 0.5);
    assert_rel(pagan.total(), 0.75 * (7f64.sqrt() + 1.0) + 0.5, 1e-15, "pagan total");
    assert!((0.75 * 12.25f64.sqrt() - 3.0).abs() > 0.1);
}

/// The inputs of the hand computation: T = 4, s = 0.5, B = 2, `D_{C⁻¹} = α = 2`, bias 0.25.
fn hand_common(c: &[f64]) -> ExplicitCommon<'_> {
    ExplicitCommon {
        steps_t: 4,
        noise_std_s: 0.5,
        clip_radius_b: 2.0,
        ellipsoid_c: c,
        diam_c_inv: 2.0,
        step_scale_alpha: 2.0,
        clipping_bias: 0.25,
    }
}

/// The explicit forms refuse bad inputs with a typed error: each input both theorems take,
/// invalid in turn, refused by both; and each theorem's own inputs (negative sums, an infinite
/// diameter, per-coordinate sums of the wrong length or non-finite).
#[test]
fn explicit_bounds_refuse_bad_inputs() {
    let (nan, inf) = (f64::NAN, f64::INFINITY);
    let c = [1.0, 2.0];
    let common = hand_common(&c);
    let pasan = PasanExplicitInputs { sum_sq_norm_g_tilde: 1.0, diam_2: 2.0, common };
    let pagan = PaganExplicitInputs { sum_sq_g_tilde_per_coordinate: &[1.0, 2.0], diam_inf: 2.0, common };
    assert!(pasan_bound_explicit(&pasan).is_ok());
    assert!(pagan_bound_explicit(&pagan).is_ok());
    let invalid = |r: dpref::Result<ExplicitBound>| matches!(r, Err(Error::InvalidParameter { .. }));
    for common in [
        ExplicitCommon { steps_t: 0, ..common },
        ExplicitCommon { noise_std_s: nan, ..common },
        ExplicitCommon { clip_radius_b: 0.0, ..common },
        ExplicitCommon { step_scale_alpha: 0.0, ..common },
        ExplicitCommon { clipping_bias: -0.1, ..common },
        ExplicitCommon { diam_c_inv: -1.0, ..common },
    ] {
        assert!(invalid(pasan_bound_explicit(&PasanExplicitInputs { common, ..pasan })), "{common:?}");
        assert!(invalid(pagan_bound_explicit(&PaganExplicitInputs { common, ..pagan })), "{common:?}");
    }
    assert!(invalid(pasan_bound_explicit(&PasanExplicitInputs { sum_sq_norm_g_tilde: -1.0, ..pasan })));
    assert!(invalid(pasan_bound_explicit(&PasanExplicitInputs { diam_2: inf, ..pasan })));
    assert!(invalid(pagan_bound_explicit(&PaganExplicitInputs { sum_sq_g_tilde_per_coordinate: &[1.0], ..pagan })));
    let negative = PaganExplicitInputs { sum_sq_g_tilde_per_coordinate: &[1.0, -2.0], ..pagan };
    assert!(invalid(pagan_bound_explicit(&negative)));
    let infinite = PaganExplicitInputs { sum_sq_g_tilde_per_coordinate: &[1.0, inf], ..pagan };
    assert!(matches!(pagan_bound_explicit(&infinite), Err(Error::NonFinite { .. })));
}

/// For a point mass (no sampling, s = 0, no clipping) the expectations are the realised values,
/// and `T·` the explicit Thm. 8/9 adaptive term equals the corrected (R-SGD)/(R-ADA) bound of the
/// same run: the explicit forms are the pathwise cores plus noise and clipping.
#[test]
fn explicit_bounds_reduce_to_the_pathwise_cores_without_noise() {
    let (lower, upper) = ([-1.0, 0.0, -2.0], [1.0, 0.5, 1.0]);
    let c = [1.0, 1.0, 1.0];
    let dia = box_diameters(&lower, &upper, &c).unwrap();
    let gs: Vec<Vec<f64>> =
        (0..17).map(|k| vec![(k as f64).sin(), 0.3 * (k as f64 * 1.7).cos(), 2.0 - k as f64 * 0.2]).collect();
    let u = [1.0, 0.0, -2.0];
    for (method, diam) in [(Method::AdagradNorm, dia.diam_2), (Method::Diagonal, dia.diam_inf)] {
        let alpha = 0.7 * diam;
        let (xs, gs) = run_on_box(method, &lower, &upper, &[0.0, 0.25, 0.0], alpha, gs.len(), fixed(&gs));
        let t = gs.len() as u64;
        let common = ExplicitCommon {
            steps_t: t,
            noise_std_s: 0.0,
            clip_radius_b: 1.0,
            ellipsoid_c: &c,
            diam_c_inv: dia.diam_c_inv,
            step_scale_alpha: alpha,
            clipping_bias: 0.0,
        };
        let (pathwise, explicit) = match method {
            Method::AdagradNorm => {
                let r = adagrad_norm_sgd_pathwise_regret(&gs, &xs, &u, diam, alpha).unwrap();
                let e = pasan_bound_explicit(&PasanExplicitInputs {
                    sum_sq_norm_g_tilde: gs.iter().flatten().map(|v| v * v).sum(),
                    diam_2: diam,
                    common,
                })
                .unwrap();
                (r.bound_corrected, e)
            }
            Method::Diagonal => {
                let r = diagonal_adagrad_pathwise_regret(&gs, &xs, &u, diam, alpha).unwrap();
                let per: Vec<f64> = (0..3).map(|j| gs.iter().map(|g| g[j] * g[j]).sum()).collect();
                let e = pagan_bound_explicit(&PaganExplicitInputs {
                    sum_sq_g_tilde_per_coordinate: &per,
                    diam_inf: diam,
                    common,
                })
                .unwrap();
                (r.bound_corrected, e)
            }
        };
        assert_eq!(explicit.clipping_term, 0.0);
        assert_rel(explicit.adaptive_term * t as f64, pathwise, 1e-13, "explicit = pathwise / T");
    }
}

/// The explicit forms and the printed Thm. 8/9 terms agree where they should. With the corrected
/// noise scale `s = √log(1/δ)/(bε)` and `T = c·n²/b²` (so `b√T = √c·n`), the explicit noise-only
/// adaptive term is `(D²/(2α) + α)/(D·√c)` times the printed noise term (exactly, for PASAN and
/// PAGAN). With `G_{2p} = Ĝ_p/2` (the event of Lemma 3.2 at equality), the printed clipping term
/// is `D_{C⁻¹}` times Lemma B.1's bound. Mutant: the printed noise scale `√(log(1/δ)/(bε))`
/// (erratum 1) breaks the first identity by the factor `√(bε)`.
#[test]
fn explicit_and_printed_forms_agree_on_noise_and_clipping() {
    let c = [0.5, 2.0, 7.0];
    let (n, b, c_const, eps, delta): (u64, f64, f64, f64, f64) = (1000, 50.0, 0.25, 0.8, 1e-6);
    let t = c_const * (n as f64).powi(2) / (b * b); // 100
    assert_eq!(t, 100.0);
    let s = (1.0 / delta).ln().sqrt() / (b * eps);
    let (clip_b, dci, p, g_hat) = (1.7, 3.0, 2.5, 4.2);
    let setting = RateSetting {
        ellipsoid_c: &c,
        dataset_size_n: n,
        epsilon: eps,
        delta,
        moment_g_2p: g_hat / 2.0,
        moment_order_p: p,
        diam_c_inv: dci,
    };
    for (d, alpha) in [(2.0, 2.0), (3.0, 1.0)] {
        let coef = d * d / (2.0 * alpha) + alpha;
        let common = ExplicitCommon {
            steps_t: t as u64,
            noise_std_s: s,
            clip_radius_b: clip_b,
            ellipsoid_c: &c,
            diam_c_inv: dci,
            step_scale_alpha: alpha,
            clipping_bias: 0.0,
        };
        let explicit =
            pasan_bound_explicit(&PasanExplicitInputs { sum_sq_norm_g_tilde: 0.0, diam_2: d, common }).unwrap();
        let run = RateRun { diam: d, steps_t: t as u64, gradient_statistic: 0.0 };
        let printed = pasan_rate_printed_unit_constant(&setting, &run, clip_b).unwrap();
        assert_rel(explicit.adaptive_term, coef / (d * c_const.sqrt()) * printed.noise, 1e-13, "pasan noise");
        let printed_s = ((1.0 / delta).ln() / (b * eps)).sqrt();
        assert!((printed_s / s - (b * eps).sqrt()).abs() < 1e-9);

        let explicit = pagan_bound_explicit(&PaganExplicitInputs {
            sum_sq_g_tilde_per_coordinate: &[0.0; 3],
            diam_inf: d,
            common,
        })
        .unwrap();
        let printed9 = pagan_rate_printed_unit_constant(&setting, &run, clip_b).unwrap();
        assert_rel(explicit.adaptive_term, coef / (d * c_const.sqrt()) * printed9.noise, 1e-13, "pagan noise");
        let lemma = dci * radial_clipping_bias_bound(g_hat, p, clip_b).unwrap();
        assert_rel(printed.clipping, lemma, 1e-13, "Thm 8 clipping = DCi x Lemma B.1");
        assert_rel(printed9.clipping, lemma, 1e-13, "Thm 9 clipping = DCi x Lemma B.1");
    }
}

/// The printed rates with `O(1) = 1`, by hand, on `[−1, 1]⁴` with C = I (`tr C⁻¹ = 4`,
/// `tr C^{−1/2} = 4`, `D₂ = 4`, `D∞ = 2`, `D_{C⁻¹} = 4`), δ = e⁻⁴ (`log(1/δ) = 4`), n = 100,
/// ε = 0.5 (nε = 50), `G_{2p} = 1`, p = 2, T = 25, `Σ E‖g‖² = 100`, `Σⱼ E√(Σ g²) = 10`.
/// Thm. 1: `B = 2√(4·50/(4·4)) = 2√12.5`, privacy `4·√(4/50)·√(4/4)`; Thm. 8 at that B:
/// noise `4·B·4/50`, clipping `4·2²/B`. Thm. 2: `B = 2√(4·50/(2·2·4)) = 2√12.5`, privacy
/// `2·√(8/50)·√2`; Thm. 9 noise `2·B·8/50`, clipping `4·2²/B` as Thm. 8's.
#[test]
fn printed_rates_match_hand_computation() {
    let c = [1.0; 4];
    let setting = RateSetting {
        ellipsoid_c: &c,
        dataset_size_n: 100,
        epsilon: 0.5,
        delta: (-4.0f64).exp(),
        moment_g_2p: 1.0,
        moment_order_p: 2.0,
        diam_c_inv: 4.0,
    };
    type Tuned = fn(&RateSetting<'_>, f64) -> dpref::Result<f64>;
    type Rate = fn(&RateSetting<'_>, &RateRun, f64) -> dpref::Result<RateTerms>;
    type TunedRate = fn(&RateSetting<'_>, &RateRun) -> dpref::Result<TunedRateTerms>;
    // (theorems, functions, run, K of the noise term `D·B·K/(nε)`, hand privacy of the tuned rate)
    let cases: [(&str, Tuned, Rate, TunedRate, RateRun, f64, f64); 2] = [
        (
            "Thms. 8, 1",
            pasan_tuned_clip_radius,
            pasan_rate_printed_unit_constant,
            pasan_tuned_rate_printed_unit_constant,
            RateRun { diam: 4.0, steps_t: 25, gradient_statistic: 100.0 },
            4.0,
            4.0 * (4.0f64 / 50.0).sqrt(),
        ),
        (
            "Thms. 9, 2",
            pagan_tuned_clip_radius,
            pagan_rate_printed_unit_constant,
            pagan_tuned_rate_printed_unit_constant,
            RateRun { diam: 2.0, steps_t: 25, gradient_statistic: 10.0 },
            8.0,
            2.0 * (8.0f64 / 50.0).sqrt() * 2f64.sqrt(),
        ),
    ];
    for (thm, tuned, rate, tuned_rate, run, k, privacy) in cases {
        let b = tuned(&setting, run.diam).unwrap();
        assert_rel(b, 2.0 * 12.5f64.sqrt(), 1e-14, thm);
        let r = rate(&setting, &run, b).unwrap();
        // both statistics give `(D/T)·10`: √100 for PASAN, 10 for PAGAN
        assert_rel(r.optimization, run.diam / 25.0 * 10.0, 1e-15, thm);
        assert_rel(r.noise, run.diam * b * k / 50.0, 1e-14, thm);
        assert_rel(r.clipping, 4.0 * 4.0 / b, 1e-14, thm);
        assert_rel(r.total(), r.optimization + r.noise + r.clipping, 1e-15, thm);
        let tr = tuned_rate(&setting, &run).unwrap();
        assert_rel(tr.privacy, privacy, 1e-14, thm);
        assert_eq!(tr.optimization, r.optimization);
        assert_eq!(tr.total(), tr.optimization + tr.privacy);
    }
}

/// A random `RateSetting` (its slice is returned separately).
#[allow(clippy::type_complexity)]
fn rate_setting() -> impl Strategy<Value = (Vec<f64>, u64, f64, f64, f64, f64, f64, f64)> {
    (
        prop::collection::vec(log_uniform(0.01, 100.0), 1..6),
        10u64..1_000_000,
        log_uniform(0.01, 10.0),
        log_uniform(1e-10, 0.1),
        log_uniform(0.01, 100.0),
        1.05f64..10.0,
        log_uniform(0.1, 100.0),
        log_uniform(0.1, 100.0),
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    /// With the tuned B of Thm. 1 (Thm. 2), Thm. 8's (Thm. 9's) noise term is `2E` and its
    /// clipping term `2E/(p − 1)`, where `E` is Thm. 1's (Thm. 2's) privacy term: "the third
    /// term becomes the same expression times 2/(p − 1)" (notes §4.6), so the two terms are
    /// equal only at p = 2 and in general `clipping/noise = 1/(p − 1)`. Tolerance 1e-10: a few
    /// `powf`/`ln` with exponents ≤ 10, each within a few ulp. Mutant: B without its factor 2
    /// (`tuned_b_without_factor_two_breaks_the_split`).
    #[test]
    fn prop_tuned_b_splits_noise_and_clipping_as_2e_and_2e_over_p_minus_1(
        (c, n, eps, delta, g, p, dci, diam) in rate_setting(),
    ) {
        let s = RateSetting { ellipsoid_c: &c, dataset_size_n: n, epsilon: eps, delta, moment_g_2p: g, moment_order_p: p, diam_c_inv: dci };
        let run = RateRun { diam, steps_t: 10, gradient_statistic: 1.0 };
        let b = pasan_tuned_clip_radius(&s, diam).unwrap();
        let e = pasan_tuned_rate_printed_unit_constant(&s, &run).unwrap().privacy;
        let r = pasan_rate_printed_unit_constant(&s, &run, b).unwrap();
        prop_assert!((r.noise - 2.0 * e).abs() <= 1e-10 * r.noise, "PASAN noise {} vs 2E {}", r.noise, 2.0 * e);
        prop_assert!((r.clipping - 2.0 * e / (p - 1.0)).abs() <= 1e-10 * r.clipping, "PASAN clipping");
        let b = pagan_tuned_clip_radius(&s, diam).unwrap();
        let e = pagan_tuned_rate_printed_unit_constant(&s, &run).unwrap().privacy;
        let r = pagan_rate_printed_unit_constant(&s, &run, b).unwrap();
        prop_assert!((r.noise - 2.0 * e).abs() <= 1e-10 * r.noise, "PAGAN noise {} vs 2E {}", r.noise, 2.0 * e);
        prop_assert!((r.clipping - 2.0 * e / (p - 1.0)).abs() <= 1e-10 * r.clipping, "PAGAN clipping");
    }

    /// The tuned B is the exact minimiser over B of `noise + clipping` (`βB + γB^{1−p}` is
    /// minimised at `B = (γ(p − 1)/β)^{1/p}`, which is the printed B): moving B by ±1 % or ±30 %
    /// never lowers the sum. Mutant: the factor 2 dropped from B (the sum rises by the factor
    /// `(p − 1 + 2^p)/(2p)`, 1.67 at p = 3: `tuned_b_without_factor_two_breaks_the_split`).
    #[test]
    fn prop_tuned_b_minimises_noise_plus_clipping(
        (c, n, eps, delta, g, p, dci, diam) in rate_setting(),
    ) {
        let s = RateSetting { ellipsoid_c: &c, dataset_size_n: n, epsilon: eps, delta, moment_g_2p: g, moment_order_p: p, diam_c_inv: dci };
        for (tuned, rate) in [
            (pasan_tuned_clip_radius(&s, diam).unwrap(), pasan_rate_printed_unit_constant as fn(&RateSetting<'_>, &RateRun, f64) -> dpref::Result<RateTerms>),
            (pagan_tuned_clip_radius(&s, diam).unwrap(), pagan_rate_printed_unit_constant),
        ] {
            let run = RateRun { diam, steps_t: 10, gradient_statistic: 1.0 };
            let f = |b: f64| { let r = rate(&s, &run, b).unwrap(); r.noise + r.clipping };
            let at = f(tuned);
            for m in [0.7, 0.99, 1.01, 1.3] {
                prop_assert!(f(tuned * m) >= at * (1.0 - 1e-12), "B x {}: {} < {}", m, f(tuned * m), at);
            }
        }
    }
}

/// Power twin of the tuned-B tests: with `B/2` (the factor 2 of Thms. 1, 2 dropped) the split is
/// no longer `2E : 2E/(p − 1)`, and the sum is larger than at the tuned B.
#[test]
fn tuned_b_without_factor_two_breaks_the_split() {
    let c = [1.0, 0.5];
    let s = RateSetting {
        ellipsoid_c: &c,
        dataset_size_n: 1000,
        epsilon: 1.0,
        delta: 1e-5,
        moment_g_2p: 1.0,
        moment_order_p: 3.0,
        diam_c_inv: 2.0,
    };
    let b = pasan_tuned_clip_radius(&s, 2.0).unwrap();
    let run = RateRun { diam: 2.0, steps_t: 10, gradient_statistic: 1.0 };
    let e = pasan_tuned_rate_printed_unit_constant(&s, &run).unwrap().privacy;
    let good = pasan_rate_printed_unit_constant(&s, &run, b).unwrap();
    let bad = pasan_rate_printed_unit_constant(&s, &run, b / 2.0).unwrap();
    assert_rel(good.clipping / good.noise, 0.5, 1e-12, "1/(p-1)");
    assert!((bad.noise - 2.0 * e).abs() > 0.4 * e && (bad.clipping / bad.noise - 0.5).abs() > 1.0);
    assert!(bad.noise + bad.clipping > 1.5 * (good.noise + good.clipping));
}
