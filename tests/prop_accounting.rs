//! Property tests of the accountant (issue 2, "What it must show"): RDP at q = 1, monotonicity of
//! ε, additivity of composition for every event kind (anchors C20), the fractional-order series
//! against the convexity sandwich of its integer neighbours, calibration never overshooting,
//! atomicity of `compose`.

use dpref::Error;
use dpref::accounting::rdp::{poisson_gaussian, wor_gaussian};
use dpref::accounting::{
    Accountant, Conversion, DpEvent, Neighbouring, RdpAccountant, RdpSettings, SamplingScheme,
    calibrate_noise_multiplier, dp_sgd_event, gdp, per_example_sum_gaussian,
};
use proptest::prelude::*;

mod common;
use common::accounting::dp_sgd_poisson_epsilon;
use common::strategies::{log_uniform, poisson_sum_gaussian};

fn curve(event: &DpEvent, count: u64, nb: Neighbouring) -> Vec<f64> {
    let mut acc = RdpAccountant::new(nb);
    acc.compose(event, count).unwrap();
    acc.rdp().to_vec()
}

fn assert_curves_close(a: &[f64], b: &[f64], what: &str) {
    for (x, y) in a.iter().zip(b) {
        // Each path rounds up by at most a few ulp per composed term.
        assert!((x - y).abs() <= 1e-12 * x.abs().max(y.abs()) + 1e-300, "{what}: {x} vs {y}");
    }
}

/// Every event kind the RDP accountant supports, with the relation it needs.
fn any_event() -> impl Strategy<Value = (DpEvent, Neighbouring)> {
    prop_oneof![
        (0.3f64..20.0).prop_map(|z| (DpEvent::gaussian(z).unwrap(), Neighbouring::AddRemove)),
        (0.3f64..20.0).prop_map(|z| (DpEvent::laplace(z).unwrap(), Neighbouring::ReplaceOne)),
        (0.3f64..20.0).prop_map(|s| (per_example_sum_gaussian(s).unwrap(), Neighbouring::ReplaceOne)),
        (0.0f64..3.0).prop_map(|e| (DpEvent::epsilon_delta(e, 0.0).unwrap(), Neighbouring::AddRemove)),
        (0.0f64..3.0, 1e-9f64..1e-3)
            .prop_map(|(e, d)| (DpEvent::epsilon_delta(e, d).unwrap(), Neighbouring::AddRemove)),
        (log_uniform(1e-4, 1.0), 0.5f64..10.0).prop_map(|(q, z)| (
            DpEvent::poisson_sampled(q, DpEvent::gaussian(z).unwrap()).unwrap(),
            Neighbouring::AddRemove
        )),
        (1u64..500, 0.5f64..10.0).prop_map(|(b, z)| (
            DpEvent::sampled_without_replacement(1000, b, DpEvent::gaussian(z).unwrap()).unwrap(),
            Neighbouring::ReplaceOne
        )),
        poisson_sum_gaussian(log_uniform(1e-4, 1.0), 0.5f64..10.0),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// RDP of the Poisson-subsampled Gaussian at q = 1 is the Gaussian's α/(2σ²), at every
    /// default order (rounded up by at most a few ulp).
    #[test]
    fn prop_rdp_q_one_equals_gaussian(z in 0.3f64..20.0) {
        for a in dpref::accounting::rdp::default_orders() {
            let exact = a / (2.0 * z * z);
            let r = poisson_gaussian::rdp_upper(1.0, z, a);
            prop_assert!(r >= exact && r <= exact * (1.0 + 1e-14), "alpha {}: {} vs {}", a, r, exact);
            let w = wor_gaussian::rdp_upper(1.0, z, a);
            prop_assert!(w >= exact && w <= exact * (1.0 + 1e-14), "wor alpha {}: {} vs {}", a, w, exact);
        }
    }

    /// ε is non-decreasing in T and q, and non-increasing in σ.
    #[test]
    fn prop_epsilon_monotone_in_steps_rate_and_sigma(
        q in log_uniform(1e-4, 0.5), z in 0.5f64..8.0, t in 1u64..20_000, k in 1u64..5_000,
        scale in 1.01f64..3.0,
    ) {
        let e = dp_sgd_poisson_epsilon(q, z, t, 1e-5);
        prop_assert!(dp_sgd_poisson_epsilon(q, z, t + k, 1e-5) >= e);
        prop_assert!(dp_sgd_poisson_epsilon((q * scale).min(1.0), z, t, 1e-5) >= e);
        prop_assert!(dp_sgd_poisson_epsilon(q, z * scale, t, 1e-5) <= e);
    }

    /// Composition is additive in RDP, and `count` means the same thing everywhere:
    /// compose(e, k) ≡ compose(SelfComposed(e, k), 1) ≡ compose(Composed([e; k]), 1) ≡ k
    /// separate composes ≡ k·curve(e) (anchors C20: dp_accounting drops count for some kinds).
    #[test]
    fn prop_rdp_count_equals_self_composed_for_every_event((e, nb) in any_event(), k in 1u64..6) {
        let one = curve(&e, 1, nb);
        let counted = curve(&e, k, nb);
        let wrapped = curve(&DpEvent::self_composed(e.clone(), k).unwrap(), 1, nb);
        let listed = curve(&DpEvent::Composed(vec![e.clone(); k as usize]), 1, nb);
        let mut acc = RdpAccountant::new(nb);
        for _ in 0..k {
            acc.compose(&e, 1).unwrap();
        }
        let repeated = acc.rdp().to_vec();
        let scaled: Vec<f64> = one.iter().map(|r| r * k as f64).collect();
        assert_curves_close(&counted, &scaled, "count vs k*one");
        assert_curves_close(&wrapped, &scaled, "SelfComposed");
        assert_curves_close(&listed, &scaled, "Composed");
        assert_curves_close(&repeated, &scaled, "repeated compose");
        // and the approximate-DP part composes multiplicatively: δ(∞-like ε) reflects 1−(1−δ)^k
        if let DpEvent::EpsilonDelta { delta, .. } = e
            && delta > 0.0
        {
            // 1 − (1 − δ)^k, evaluated without cancellation
            let bad = -(k as f64 * (-delta).ln_1p()).exp_m1();
            let d = acc.delta(1e3, Conversion::Improved).unwrap().delta;
            prop_assert!(d >= bad * (1.0 - 1e-14), "delta {} < {}", d, bad);
            // a target δ at or below the failure mass cannot be met
            prop_assert!(acc.epsilon(bad * 0.999, Conversion::Improved).unwrap().epsilon.is_infinite());
        }
    }

    /// Composition of two different events adds their curves.
    #[test]
    fn prop_rdp_composition_additive((a, nb) in any_event(), z in 0.5f64..10.0) {
        let b = DpEvent::gaussian(z).unwrap();
        let both = curve(&DpEvent::Composed(vec![a.clone(), b.clone()]), 1, nb);
        let sum: Vec<f64> = curve(&a, 1, nb).iter().zip(curve(&b, 1, nb)).map(|(x, y)| x + y).collect();
        assert_curves_close(&both, &sum, "composed vs sum");
    }

    /// The fractional-order series is an upper bound on the exact value and is tight: the exact
    /// cumulant K(α) = ln A_α is convex in α, so with n = ⌊α⌋, t = α − n and the exact integer
    /// values (binomial sums, lower ends of their float intervals),
    ///   K(n) + t·(K(n) − K(n−1)) ≤ K(α) ≤ (1 − t)·K(n) + t·K(n+1).
    /// The series must lie in that sandwich (up to its own float slack), i.e. it is at least the
    /// tangent lower bound and never looser than plain interpolation.
    #[test]
    fn prop_fractional_series_within_convexity_sandwich(
        q in log_uniform(1e-3, 0.9), z in 0.5f64..12.0, n in 2u64..40, t in 0.05f64..0.95,
    ) {
        let alpha = n as f64 + t;
        let k_int = |m: u64| -> (f64, f64) {
            if m <= 1 { return (0.0, 0.0); }
            let v = poisson_gaussian::log_a_int(q, z, m as f64);
            (v.value - v.error, v.value + v.error)
        };
        let (kn_lo, kn_hi) = k_int(n);
        let (_, knm1_hi) = k_int(n - 1);
        let (_, knp1_hi) = k_int(n + 1);
        let series = poisson_gaussian::log_a_upper(q, z, alpha);
        let lower = kn_lo + t * (kn_lo - knm1_hi);
        let upper = (1.0 - t) * kn_hi + t * knp1_hi;
        let slack = 1e-12 * upper.abs() + 1e-15;
        prop_assert!(series >= lower - slack, "below the tangent bound: {} < {}", series, lower);
        prop_assert!(series <= upper + slack, "looser than interpolation: {} > {}", series, upper);
    }

    /// The improved conversion is never above the classic one.
    #[test]
    fn prop_improved_conversion_never_above_classic(q in log_uniform(1e-4, 0.5), z in 0.5f64..8.0, t in 1u64..50_000) {
        let ev = dp_sgd_event(z, SamplingScheme::Poisson { q }, t).unwrap();
        let mut acc = RdpAccountant::new(Neighbouring::AddRemove);
        acc.compose(&ev, 1).unwrap();
        let i = acc.epsilon(1e-6, Conversion::Improved).unwrap().epsilon;
        let c = acc.epsilon(1e-6, Conversion::Classic).unwrap().epsilon;
        prop_assert!(i <= c, "{} > {}", i, c);
        // and the two directions are consistent: δ(ε(δ)) ≤ δ
        let d = acc.delta(i, Conversion::Improved).unwrap().delta;
        prop_assert!(d <= 1e-6 * (1.0 + 1e-12), "delta {}", d);
    }

    /// RDP is an upper bound on the exact ε of unsampled Gaussian releases (μ-GDP).
    #[test]
    fn prop_rdp_epsilon_at_least_exact_gdp(z in 0.5f64..20.0, t in 1u64..1000, delta in log_uniform(1e-10, 1e-2)) {
        let ev = DpEvent::self_composed(DpEvent::gaussian(z).unwrap(), t).unwrap();
        let mut acc = RdpAccountant::new(Neighbouring::AddRemove);
        acc.compose(&ev, 1).unwrap();
        let rdp = acc.epsilon(delta, Conversion::Improved).unwrap().epsilon;
        let exact = gdp::epsilon_for_delta(gdp::mu_of_gaussian_composition(&ev, Neighbouring::AddRemove).unwrap(), delta).unwrap();
        prop_assert!(rdp >= exact, "{} < exact {}", rdp, exact);
        let zc = dpref::accounting::zcdp::epsilon_for_delta(t as f64 / (2.0 * z * z), delta).unwrap();
        prop_assert!(zc >= exact * (1.0 - 1e-12), "zCDP {} < exact {}", zc, exact);
    }

    /// compose is atomic: an event with an unsupported part changes nothing, and `supports`
    /// agrees with `compose`.
    #[test]
    fn prop_compose_atomic_on_unsupported((e, nb) in any_event()) {
        let mut acc = RdpAccountant::new(nb);
        acc.compose(&e, 1).unwrap();
        let before = (acc.rdp().to_vec(), acc.ledger().len());
        let bad_inner = match nb {
            Neighbouring::AddRemove => DpEvent::sampled_without_replacement(10, 2, DpEvent::gaussian(1.0).unwrap()).unwrap(),
            Neighbouring::ReplaceOne => DpEvent::poisson_sampled(0.1, DpEvent::gaussian(1.0).unwrap()).unwrap(),
        };
        let bad = DpEvent::Composed(vec![e.clone(), bad_inner]);
        prop_assert!(acc.supports(&bad).is_err());
        let err = acc.compose(&bad, 3).unwrap_err();
        prop_assert!(matches!(err, Error::Unsupported { .. }), "{:?}", err);
        prop_assert_eq!((acc.rdp().to_vec(), acc.ledger().len()), before);
        prop_assert!(acc.supports(&e).is_ok());
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Calibration never overshoots and lands within its tolerance (issue 2: ε ∈ [0.5, 10],
    /// q ∈ [1e-4, 0.5], T ∈ [1, 1e5], δ ∈ {1e-5, 1e-6, 1e-8}).
    #[test]
    fn prop_calibration_never_overshoots(
        target in 0.5f64..10.0, q in log_uniform(1e-4, 0.5), t in log_uniform(1.0, 1e5),
        delta in prop_oneof![Just(1e-5), Just(1e-6), Just(1e-8)],
    ) {
        let steps = t.round() as u64;
        let settings = RdpSettings::new(Neighbouring::AddRemove);
        let rtol = dpref::accounting::calibrate::CALIBRATION_RTOL;
        let c = calibrate_noise_multiplier(target, delta, &settings, rtol, |s| {
            dp_sgd_event(s, SamplingScheme::Poisson { q }, steps)
        }).unwrap();
        prop_assert!(c.epsilon <= target, "overshoot: {} > {}", c.epsilon, target);
        prop_assert!(c.epsilon >= target * (1.0 - rtol), "{} vs {}", c.epsilon, target);
        // the reported ε is what the accountant gives for the reported σ
        prop_assert_eq!(dp_sgd_poisson_epsilon(q, c.noise_multiplier, steps, delta), c.epsilon);
    }
}

#[test]
fn prop_support_matrix_refuses_unsupported_combinations() {
    let g = || DpEvent::gaussian(1.0).unwrap();
    let cases = [
        (DpEvent::poisson_sampled(0.1, g()).unwrap(), Neighbouring::ReplaceOne),
        (DpEvent::sampled_without_replacement(100, 10, g()).unwrap(), Neighbouring::AddRemove),
        (DpEvent::sampled_with_replacement(100, 10, g()).unwrap(), Neighbouring::AddRemove),
        (DpEvent::sampled_with_replacement(100, 10, g()).unwrap(), Neighbouring::ReplaceOne),
        (DpEvent::poisson_sampled(0.1, DpEvent::laplace(1.0).unwrap()).unwrap(), Neighbouring::AddRemove),
    ];
    for (e, nb) in cases {
        let acc = RdpAccountant::new(nb);
        let err = acc.supports(&e).unwrap_err();
        match err {
            Error::Unsupported { event, .. } => assert!(event.contains("Sampled"), "{event}"),
            other => panic!("{other:?}"),
        }
    }
    // Invalid parameters inside an event are errors, not numbers.
    let acc = RdpAccountant::new(Neighbouring::AddRemove);
    let bad = DpEvent::PoissonSampled { sampling_probability: f64::NAN, event: Box::new(g()) };
    assert!(matches!(acc.supports(&bad), Err(Error::InvalidParameter { .. })));
    let bad = DpEvent::Gaussian { noise_multiplier: -1.0 };
    assert!(matches!(acc.supports(&bad), Err(Error::InvalidParameter { .. })));
    assert!(matches!(
        RdpAccountant::with_orders(vec![1.0], Neighbouring::AddRemove),
        Err(Error::InvalidParameter { .. })
    ));
}
