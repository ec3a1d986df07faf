//! Validated construction (the statrs convention): every optimiser's configuration is built by a
//! `new(...) -> Result<Self>` that refuses an invalid setting before any data is seen, naming the
//! parameter; setters that take a value check it; a noise multiplier and an absolute std on the
//! mean are distinct `Privacy` variants, and an algorithm stated with multipliers refuses the
//! other.
//!
//! A broken constructor (one that skips `validate_settings`, or a check dropped from it) fails
//! `every_constructor_refuses_each_invalid_setting`, which tries each setting alone; one that
//! refuses valid input fails `constructors_accept_the_valid_settings`; a run that trusts the
//! public fields without checking them again fails `a_run_checks_fields_set_after_construction`.

use dpref::data::absolute_regression;
use dpref::error::Error;
use dpref::loss::Loss;
use dpref::model::Glm;
use dpref::optim::adaptive_noise::AdaptiveNoiseConfig;
use dpref::optim::dp_sgd::DpSgdConfig;
use dpref::optim::dp2::Preconditioner;
use dpref::optim::dp2::algorithm1::{Dp2Config, NoiseOrder};
use dpref::optim::dpagd::Moments;
use dpref::optim::dpagd::algorithm1::Algorithm1Config;
use dpref::optim::dpagd::minibatch::{MinibatchConfig, Update};
use dpref::optim::{Privacy, RunSettings};
use dpref::rng::Seeds;
use dpref::sampling::BatchSampler;

const NAN: f64 = f64::NAN;
const INF: f64 = f64::INFINITY;

fn sigma(s: f64) -> Privacy {
    Privacy::NoiseMultiplier { sigma: s, report_delta: None }
}

fn target(epsilon: f64, delta: f64) -> Privacy {
    Privacy::Target { epsilon, delta }
}

/// DP-SGD on T steps of Poisson sampling at rate q with privacy p (the settings checked first).
fn sgd(eta: f64, c: f64, t: u64, q: f64, p: Privacy) -> dpref::error::Result<DpSgdConfig> {
    DpSgdConfig::new(eta, c, RunSettings::poisson(t, q, p)?)
}

/// PASAN/PAGAN on the same settings.
fn adaptive(d: usize, alpha: f64, b: f64, t: u64, q: f64, p: Privacy) -> dpref::error::Result<AdaptiveNoiseConfig> {
    AdaptiveNoiseConfig::new(d, alpha, b, RunSettings::poisson(t, q, p)?)
}

/// A minibatch optimiser on the same settings.
fn minibatch(u: Update, eta: f64, c: f64, t: u64, q: f64, p: Privacy) -> dpref::error::Result<MinibatchConfig> {
    MinibatchConfig::new(u, eta, c, RunSettings::poisson(t, q, p)?)
}

/// DP² on the same settings.
fn dp2(
    pre: Preconditioner,
    delays: (u64, u64),
    lrs: (f64, f64),
    clips: (f64, f64),
    t: u64,
    q: f64,
    p: Privacy,
) -> dpref::error::Result<Dp2Config> {
    Dp2Config::new(pre, delays, lrs, clips, RunSettings::poisson(t, q, p)?)
}

/// \[ZCHWB\] Algorithm 1 on T steps of the full batch with the noise of line 4.
fn algorithm1(moments: Moments, t: u64, eta: f64, g: f64, noise: Privacy) -> dpref::error::Result<Algorithm1Config> {
    Algorithm1Config::new(moments, eta, g, RunSettings::full_batch(t, noise)?)
}

/// The parameter an `InvalidParameter` names (panics on any other outcome, so a constructor that
/// accepts the setting fails the test with the setting in the message).
fn refused<T: std::fmt::Debug>(what: &str, r: dpref::error::Result<T>) -> &'static str {
    match r {
        Err(Error::InvalidParameter { name, .. }) => name,
        other => panic!("{what}: expected InvalidParameter, got {other:?}"),
    }
}

/// Invalid privacy requests, each with the parameter it must name.
fn bad_privacy() -> Vec<(Privacy, &'static str)> {
    vec![
        (target(0.0, 1e-5), "epsilon"),
        (target(NAN, 1e-5), "epsilon"),
        (target(INF, 1e-5), "epsilon"),
        (target(1.0, 0.0), "delta"),
        (target(1.0, 1.0), "delta"),
        (target(1.0, NAN), "delta"),
        (sigma(-1.0), "sigma"),
        (sigma(NAN), "sigma"),
        (sigma(INF), "sigma"),
        (Privacy::NoiseMultiplier { sigma: 1.0, report_delta: Some(1.5) }, "delta"),
        (Privacy::StdOnMean { std: -0.1, report_delta: None }, "noise std on the mean"),
        (Privacy::StdOnMean { std: 0.1, report_delta: Some(0.0) }, "delta"),
    ]
}

#[test]
fn privacy_requests_are_validated_on_their_own() {
    for (p, name) in bad_privacy() {
        assert_eq!(refused(&format!("{p:?}"), p.validate()), name);
    }
    for p in [target(1.0, 1e-5), sigma(0.0), sigma(1.3), Privacy::StdOnMean { std: 0.0, report_delta: Some(1e-6) }] {
        p.validate().unwrap();
    }
}

#[test]
fn constructors_accept_the_valid_settings() {
    let p = target(1.0, 1e-5);
    sgd(0.1, 1.0, 10, 0.1, p).unwrap();
    adaptive(3, 0.1, 1.0, 10, 0.1, p).unwrap();
    minibatch(Update::Sgd, 0.1, 1.0, 10, 0.1, p).unwrap();
    algorithm1(Moments::Gd, 10, 0.1, 1.0, p).unwrap();
    dp2(Preconditioner::AdaGrad, (2, 2), (0.1, 0.1), (1.0, 1.0), 10, 0.1, p).unwrap();
    // No clipping is allowed without a privacy claim (the non-private run of each algorithm).
    sgd(0.1, INF, 10, 1.0, sigma(0.0)).unwrap();
    algorithm1(Moments::Gd, 10, 0.1, INF, Privacy::StdOnMean { std: 0.0, report_delta: None }).unwrap();
}

#[test]
fn every_constructor_refuses_each_invalid_setting() {
    let p = target(1.0, 1e-5);
    // (description, outcome, parameter named)
    let cases: Vec<(&str, &'static str, &'static str)> = vec![
        ("dp-sgd T = 0", refused("", sgd(0.1, 1.0, 0, 0.1, p)), "steps"),
        ("dp-sgd eta = 0", refused("", sgd(0.0, 1.0, 10, 0.1, p)), "learning rate"),
        ("dp-sgd eta NaN", refused("", sgd(NAN, 1.0, 10, 0.1, p)), "learning rate"),
        ("dp-sgd C = 0", refused("", sgd(0.1, 0.0, 10, 0.1, p)), "clip"),
        ("dp-sgd C NaN", refused("", sgd(0.1, NAN, 10, 0.1, p)), "clip"),
        ("dp-sgd C = inf with a target", refused("", sgd(0.1, INF, 10, 0.1, p)), "clip"),
        ("dp-sgd q = 0", refused("", sgd(0.1, 1.0, 10, 0.0, p)), "q"),
        ("dp-sgd q > 1", refused("", sgd(0.1, 1.0, 10, 1.5, p)), "q"),
        ("dp-sgd q NaN", refused("", sgd(0.1, 1.0, 10, NAN, p)), "q"),
        ("pasan alpha < 0", refused("", adaptive(3, -1.0, 1.0, 10, 0.1, p)), "step scale alpha"),
        ("pasan B = 0", refused("", adaptive(3, 0.1, 0.0, 10, 0.1, p)), "clip radius B"),
        ("pasan B = inf with a target", refused("", adaptive(3, 0.1, INF, 10, 0.1, p)), "clip radius B"),
        ("pasan C/B^2 underflows", refused("", adaptive(3, 0.1, 1e200, 10, 0.1, p)), "ellipsoid A = C/B^2 entry"),
        ("minibatch T = 0", refused("", minibatch(Update::Sgd, 0.1, 1.0, 0, 0.1, p)), "steps"),
        (
            "minibatch RMSProp alpha = 1",
            refused("", minibatch(Update::RmsProp { alpha: 1.0, eps: 1e-8 }, 0.1, 1.0, 10, 0.1, p)),
            "alpha",
        ),
        ("minibatch q = 2", refused("", minibatch(Update::Sgd, 0.1, 1.0, 10, 2.0, p)), "q"),
        ("dpagd T = 0", refused("", algorithm1(Moments::Gd, 0, 0.1, 1.0, p)), "steps T"),
        ("dpagd eta = 0", refused("", algorithm1(Moments::Gd, 10, 0.0, 1.0, p)), "step size eta"),
        ("dpagd G = -1", refused("", algorithm1(Moments::Gd, 10, 0.1, -1.0, p)), "gradient bound G"),
        ("dpagd G = inf with a target", refused("", algorithm1(Moments::Gd, 10, 0.1, INF, p)), "gradient bound G"),
        ("dpagd beta2 = 1", refused("", algorithm1(Moments::RmsProp { beta2: 1.0 }, 10, 0.1, 1.0, p)), "beta2"),
        (
            "dp2 s1 = 0",
            refused("", dp2(Preconditioner::AdaGrad, (0, 2), (0.1, 0.1), (1.0, 1.0), 10, 0.1, p)),
            "delay s1",
        ),
        (
            "dp2 s2 = 0",
            refused("", dp2(Preconditioner::AdaGrad, (2, 0), (0.1, 0.1), (1.0, 1.0), 10, 0.1, p)),
            "delay s2",
        ),
        (
            "dp2 alpha2 NaN",
            refused("", dp2(Preconditioner::AdaGrad, (2, 2), (0.1, NAN), (1.0, 1.0), 10, 0.1, p)),
            "learning rate alpha2",
        ),
        (
            "dp2 C2 = 0",
            refused("", dp2(Preconditioner::AdaGrad, (2, 2), (0.1, 0.1), (1.0, 0.0), 10, 0.1, p)),
            "clip C2",
        ),
        (
            "dp2 C1 = inf with a target",
            refused("", dp2(Preconditioner::AdaGrad, (2, 2), (0.1, 0.1), (INF, 1.0), 10, 0.1, p)),
            "clip",
        ),
        (
            "dp2 RMSProp beta = 1",
            refused("", dp2(Preconditioner::RmsProp { beta: 1.0 }, (2, 2), (0.1, 0.1), (1.0, 1.0), 10, 0.1, p)),
            "beta",
        ),
    ];
    for (what, got, want) in cases {
        assert!(got.starts_with(want), "{what}: named {got:?}, expected {want:?}");
    }
    // Every invalid privacy request, through every constructor.
    for (bad, name) in bad_privacy() {
        let what = format!("{bad:?}");
        assert_eq!(refused(&what, sgd(0.1, 1.0, 10, 0.1, bad)), name);
        assert_eq!(refused(&what, adaptive(3, 0.1, 1.0, 10, 0.1, bad)), name);
        assert_eq!(refused(&what, minibatch(Update::Sgd, 0.1, 1.0, 10, 0.1, bad)), name);
        assert_eq!(refused(&what, algorithm1(Moments::Gd, 10, 0.1, 1.0, bad)), name);
        let dp2 = dp2(Preconditioner::AdaGrad, (2, 2), (0.1, 0.1), (1.0, 1.0), 10, 0.1, bad);
        assert_eq!(refused(&what, dp2), name);
    }
}

#[test]
fn setters_check_their_values() {
    let p = target(1.0, 1e-5);
    let normaliser = "batch size b (normaliser)";
    for b in [0.0, -3.0, NAN, INF] {
        let what = format!("b = {b}");
        // One setter for the normaliser of every private gradient run (the settings they share).
        assert_eq!(refused(&what, RunSettings::poisson(10, 0.1, p).unwrap().with_batch_size_b(b)), normaliser);
    }
    let ada = adaptive(2, 0.1, 1.0, 10, 0.1, p).unwrap();
    assert_eq!(refused("C entry 0", ada.clone().with_ellipsoid_c(vec![1.0, 0.0])), "ellipsoid C entry");
    assert_eq!(refused("C of length 3", ada.clone().with_ellipsoid_c(vec![1.0; 3])), "ellipsoid C");
    assert_eq!(ada.with_ellipsoid_c(vec![2.0, 0.5]).unwrap().ellipsoid_c, vec![2.0, 0.5]);
    let mb = minibatch(Update::Sgd, 0.1, 1.0, 10, 0.1, p).unwrap();
    assert_eq!(refused("decay 0", mb.clone().with_step_decay(0, 0.5)), "decay period");
    assert_eq!(refused("decay gamma 2", mb.clone().with_step_decay(5, 2.0)), "decay factor");
    assert_eq!(mb.with_step_decay(5, 0.5).unwrap().step_decay, Some((5, 0.5)));
    let gd = algorithm1(Moments::Gd, 10, 0.1, 1.0, p).unwrap();
    assert!(gd.clone().with_nu_lambda(0.1, 1.0).is_err(), "DP-GD requires nu = 0");
    let rms = algorithm1(Moments::RmsProp { beta2: 0.9 }, 10, 0.1, 1.0, p).unwrap();
    assert_eq!(rms.with_nu_lambda(1e-6, 5.0).unwrap().lambda, 5.0);
    // Variant 2 clips both phases at C1: with C1 = inf it has no sensitivity bound for a target.
    let unclipped_sgd = dp2(Preconditioner::AdaGrad, (2, 2), (0.1, 0.1), (INF, 1.0), 10, 0.1, sigma(1.0));
    let unclipped_sgd = unclipped_sgd.unwrap();
    assert!(unclipped_sgd.clone().with_noise_order(NoiseOrder::NoiseFirst).is_ok());
    let mut targeted = unclipped_sgd;
    targeted.settings.privacy = p;
    assert_eq!(refused("variant 2, C1 = inf", targeted.with_noise_order(NoiseOrder::NoiseFirst)), "clip");
}

#[test]
fn samplers_are_validated_before_the_data() {
    for s in [
        BatchSampler::Poisson { q: 0.0 },
        BatchSampler::Poisson { q: NAN },
        // below 2^-20 the floating-point gaps include records measurably more often than q
        // (at q = 1e-17 the first record 11 times as often)
        BatchSampler::Poisson { q: 1e-17 },
        BatchSampler::Poisson { q: dpref::sampling::SMALLEST_POISSON_RATE.next_down() },
        BatchSampler::WithoutReplacement { batch_size: 0 },
        BatchSampler::WithReplacement { batch_size: 0 },
    ] {
        assert!(s.validate_settings().is_err(), "{s:?}");
    }
    BatchSampler::Poisson { q: dpref::sampling::SMALLEST_POISSON_RATE }.validate_settings().unwrap();
    // b > n needs the data: accepted on its own, refused against n.
    let wor = BatchSampler::WithoutReplacement { batch_size: 50 };
    wor.validate_settings().unwrap();
    assert!(wor.validate(10).is_err());
    // The shared settings refuse T = 0 and an empty batch for every algorithm that embeds them.
    let p = sigma(1.0);
    assert_eq!(refused("T = 0", RunSettings::without_replacement(0, 10, p)), "steps T");
    assert_eq!(refused("b = 0", RunSettings::without_replacement(10, 0, p)), "batch size");
    assert_eq!(refused("T = 0, Poisson", RunSettings::poisson(0, 0.1, p)), "steps T");
    let settings = RunSettings::poisson(10, 0.1, p).unwrap();
    assert!(matches!(settings.clone().with_x0(vec![0.0, NAN]), Err(Error::NonFinite { what: "x0", index: 1 })));
    let relation = settings.with_neighbouring(dpref::accounting::Neighbouring::ReplaceOne);
    assert_eq!(relation.neighbouring, dpref::accounting::Neighbouring::ReplaceOne);
}

/// The fields stay public (struct update syntax), so a run checks them again before drawing any
/// randomness: a value set after construction is refused as it would have been by `new`.
#[test]
fn a_run_checks_fields_set_after_construction() {
    let mut rng = Seeds::new(5).stream(dpref::rng::Stream::Data);
    let (data, _) = absolute_regression(50, 2, 0.1, &mut rng).unwrap();
    let mut cfg = sgd(0.1, 1.0, 5, 0.2, sigma(1.0)).unwrap();
    cfg.learning_rate_eta = NAN;
    assert_eq!(refused("eta NaN after new", cfg.run(&data, Loss::Absolute, Seeds::new(1))), "learning rate");
    let mut cfg = sgd(0.1, 1.0, 5, 0.2, sigma(1.0)).unwrap();
    cfg.settings.privacy = target(-1.0, 1e-5);
    assert_eq!(refused("epsilon < 0 after new", cfg.run(&data, Loss::Absolute, Seeds::new(1))), "epsilon");
    let model = Glm::new(Loss::Absolute, 2).unwrap();
    let mut mb = minibatch(Update::Sgd, 0.1, 1.0, 5, 0.2, sigma(1.0)).unwrap();
    mb.settings.batch_size_b = Some(0.0);
    assert_eq!(refused("b = 0 after new", mb.run(&data, &model, Seeds::new(1))), "batch size b (normaliser)");
    let mut gd = algorithm1(Moments::Gd, 5, 0.1, 1.0, target(1.0, 1e-5)).unwrap();
    gd.settings.privacy = Privacy::StdOnMean { std: NAN, report_delta: None };
    assert_eq!(refused("std NaN after new", gd.run(&data, &model, Seeds::new(1))), "noise std on the mean");
}

/// A noise multiplier and an absolute std on the mean are distinct variants: an algorithm stated
/// with multipliers refuses a std rather than reading it as one.
#[test]
fn a_std_on_the_mean_is_not_taken_for_a_multiplier() {
    let mut rng = Seeds::new(6).stream(dpref::rng::Stream::Data);
    let (data, _) = absolute_regression(40, 1, 0.1, &mut rng).unwrap();
    let std = Privacy::StdOnMean { std: 0.5, report_delta: Some(1e-5) };
    let settings = RunSettings::poisson(3, 0.5, std).unwrap().with_batch_size_b(20.0).unwrap();
    let sgd = DpSgdConfig::new(0.1, 1.0, settings.clone()).unwrap();
    assert_eq!(refused("dp-sgd with a std", sgd.run(&data, Loss::Absolute, Seeds::new(2))), "privacy");
    let mb = MinibatchConfig::new(Update::Sgd, 0.1, 1.0, settings).unwrap();
    let model = Glm::new(Loss::Absolute, 1).unwrap();
    assert_eq!(refused("minibatch with a std", mb.run(&data, &model, Seeds::new(2))), "privacy");
    // DPAGD Algorithm 1 is stated with the std: both forms are accepted, and s on the mean is
    // the multiplier s·n/G on the sum (here n = 40, G = 1: the same run as multiplier 20).
    let via_std = algorithm1(Moments::Gd, 3, 0.1, 1.0, std).unwrap();
    let via_multiplier =
        algorithm1(Moments::Gd, 3, 0.1, 1.0, Privacy::NoiseMultiplier { sigma: 20.0, report_delta: Some(1e-5) })
            .unwrap();
    let (a, b) =
        (via_std.run(&data, &model, Seeds::new(3)).unwrap(), via_multiplier.run(&data, &model, Seeds::new(3)).unwrap());
    for (x, y) in a.x.iter().zip(&b.x) {
        assert!((x - y).abs() <= 1e-12 * (1.0 + y.abs()), "{x} vs {y}");
    }
}
