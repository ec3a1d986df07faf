//! Golden snapshots of short seeded runs of every algorithm (insta, stored under golden/optim/).
//! Floats are rounded to 10 significant digits, so a snapshot pins the trajectory while leaving
//! room for last-ulp differences of libm across platforms; bit-for-bit reproducibility on one
//! platform is checked separately (`golden_optim_same_seed_same_bits`).

mod common;

use common::golden::{rounded, run_summary, snapshot};

use dpref::data::{Dataset, absolute_regression};
use dpref::geometry::{Domain, EllipsoidProjection};
use dpref::loss::Loss;
use dpref::model::Mlp;
use dpref::model::nonconvex::SeparableNonConvex;
use dpref::optim::RunSettings;
use dpref::optim::adaptive_noise::biased::{StepRule, Template, TemplateConfig, mean_estimate, no_noise};
use dpref::optim::adaptive_noise::second_moment::{MomentNoise, SecondMomentConfig, private_second_moments};
use dpref::optim::adaptive_noise::{AdaptiveMethod, AdaptiveNoiseConfig};
use dpref::optim::dp_sgd::{DpSgdConfig, dp_sgd};
use dpref::optim::dpagd::Moments;
use dpref::optim::dpagd::algorithm1::{Algorithm1Config, dpagd};
use dpref::optim::dpagd::minibatch::{MinibatchConfig, Update, dp_minibatch};
use dpref::optim::{NoTrace, OutputPoint, Privacy, Run};
use dpref::rng::{Seeds, Stream};
use dpref::sampling::BatchSampler;
use serde_json::json;

fn data() -> Dataset {
    absolute_regression(200, 5, 0.01, &mut Seeds::new(7).stream(Stream::Data)).unwrap().0
}

fn target() -> Privacy {
    Privacy::Target { epsilon: 1.0, delta: 1e-5 }
}

#[test]
fn golden_optim_dp_sgd() {
    let mut cfg =
        DpSgdConfig::new(0.2, 1.0, RunSettings::poisson(20, 0.1, target()).unwrap().with_batch_size_b(20.0).unwrap())
            .unwrap();
    cfg.domain = Domain::Box { radius: 1.0 };
    snapshot("dp_sgd", run_summary(&dp_sgd(&data(), Loss::Absolute, &cfg, Seeds::new(1), &mut NoTrace).unwrap()));
}

#[test]
fn golden_optim_pasan_and_pagan() {
    let d = data();
    let run_settings = RunSettings::poisson(20, 0.1, target()).unwrap().with_batch_size_b(20.0).unwrap();
    let mut cfg = AdaptiveNoiseConfig::new(5, 0.5, 1.5, run_settings).unwrap();
    cfg.ellipsoid_c = vec![1.0, 4.0, 9.0, 16.0, 25.0];
    cfg.domain = Domain::Box { radius: 1.0 };
    snapshot(
        "pasan_radial",
        run_summary(&AdaptiveMethod::Pasan.run(&d, Loss::Absolute, &cfg, Seeds::new(2), &mut NoTrace).unwrap()),
    );
    snapshot(
        "pagan_radial",
        run_summary(&AdaptiveMethod::Pagan.run(&d, Loss::Absolute, &cfg, Seeds::new(3), &mut NoTrace).unwrap()),
    );
    cfg.projection = EllipsoidProjection::Euclidean;
    cfg.output = OutputPoint::AverageFromOne;
    cfg.domain = Domain::L2Ball { radius: 1.5 };
    snapshot(
        "pagan_euclidean_l2ball",
        run_summary(&AdaptiveMethod::Pagan.run(&d, Loss::Absolute, &cfg, Seeds::new(4), &mut NoTrace).unwrap()),
    );
}

#[test]
fn golden_optim_second_moments() {
    let cfg = SecondMomentConfig {
        moment_ratio_r: 1.0,
        rounds_t_est: None,
        noise: MomentNoise::Target { epsilon: 1.0, delta: 1e-5 },
    };
    let est = private_second_moments(&data(), &cfg, Seeds::new(5)).unwrap();
    snapshot(
        "second_moment",
        json!({ "sigma_hat": est.sigma_hat, "rounds": est.rounds, "noise_stds": rounded(&est.noise_stds),
                "events": format!("{:?}", est.events.as_event()) }),
    );
}

#[test]
fn golden_optim_biased_templates() {
    let d = data();
    let cfg = TemplateConfig {
        steps_t: 20,
        sampler: BatchSampler::WithReplacement { batch_size: 10 },
        domain: Domain::Box { radius: 1.0 },
        output: OutputPoint::AverageFromOne,
        x0: None,
    };
    let sgd = Template::BiasedSgd(StepRule::AdaGradNorm { alpha: 0.5 })
        .run(&d, Loss::Absolute, &cfg, Seeds::new(6), &mut NoTrace, &mut mean_estimate, &mut no_noise)
        .unwrap();
    snapshot("biased_sgd", run_summary(&sgd));
    let ada = Template::BiasedAdaGrad { alpha: 2.0 }
        .run(&d, Loss::Absolute, &cfg, Seeds::new(6), &mut NoTrace, &mut mean_estimate, &mut no_noise)
        .unwrap();
    snapshot("biased_adagrad", run_summary(&ada));
}

/// [ZCHWB] Algorithm 1 (DP-GD, DP-RMSProp, DP-Adam; replace-one, calibrated to (1, 1e-5)) on
/// the §6.4 non-convex problem, 15 releases each.
#[test]
fn golden_optim_dpagd_algorithm1() {
    let mut rng = Seeds::new(11).stream(Stream::Data);
    let z: Vec<f64> = (0..60 * 3).map(|_| dpref::noise::standard_normal(&mut rng)).collect();
    let d = Dataset::new(z, vec![0.0; 60], 3).unwrap();
    let model = SeparableNonConvex { dim: 3 };
    let noise = Privacy::Target { epsilon: 1.0, delta: 1e-5 };
    for (name, moments, eta) in [
        ("dpagd_dp_gd", Moments::Gd, 0.125),
        ("dpagd_dp_rmsprop", Moments::RmsProp { beta2: 0.9 }, 0.01),
        ("dpagd_dp_adam", Moments::Adam { beta1: 0.5, beta2: 0.9 }, 0.01),
    ] {
        let mut cfg =
            Algorithm1Config::new(moments, eta, model.gradient_bound(), RunSettings::full_batch(15, noise).unwrap())
                .unwrap();
        if moments != Moments::Gd {
            cfg.nu = 0.05;
            cfg.lambda = 4.0;
        }
        cfg.settings.x0 = Some(vec![0.5, -0.5, 1.0]);
        snapshot(name, run_summary(&dpagd(&d, &model, &cfg, Seeds::new(12), &mut NoTrace).unwrap()));
    }
}

/// The minibatch optimisers (PyTorch-style SGD, RMSprop, AdaGrad, Adam) on a small MLP, Poisson
/// b = 10, calibrated to (1, 1e-5).
#[test]
fn golden_optim_dpagd_minibatch_mlp() {
    let d = dpref::model::synthetic::gaussian_classes(100, 3, 3, 2.0, &mut Seeds::new(13).stream(Stream::Data))
        .unwrap()
        .data;
    let model = Mlp::new(3, &[4], 3).unwrap();
    let w0 = model.init(&mut Seeds::new(14).stream(Stream::Init));
    for update in [Update::Sgd, Update::rmsprop(), Update::adagrad(), Update::adam()] {
        let run_settings = RunSettings::poisson(15, 0.1, target()).unwrap().with_batch_size_b(10.0).unwrap();
        let mut cfg = MinibatchConfig::new(update, 0.05, 1.0, run_settings).unwrap();
        cfg.settings.x0 = Some(w0.clone());
        let run = dp_minibatch(&d, &model, &cfg, Seeds::new(15), &mut NoTrace).unwrap();
        let name = format!("minibatch_mlp_{}", update.name().replace('-', "_"));
        snapshot(&name, run_summary(&run));
    }
}

/// [LZLRMS] DP²-RMSProp, DP²-AdaGrad, DP²-Yogi and both ablations on a small sparse
/// bag-of-words task, Poisson b = 10, calibrated to (1, 1e-5).
#[test]
fn golden_optim_dp2() {
    use dpref::model::SparseGlm;
    use dpref::optim::dp2::Preconditioner;
    use dpref::optim::dp2::algorithm1::{Dp2Config, NoiseOrder, dp2};
    use dpref::optim::dp2::extra_query::dp2_extra_query;
    let data = dpref::experiments::dp2::synthetic_task(200, 40, 5, 21).unwrap();
    let oracle = SparseGlm { loss: Loss::Logistic, data: &data };
    let cfg = |pre| {
        Dp2Config::new(
            pre,
            (4, 4),
            (0.5, 0.05),
            (0.5, 2.0),
            RunSettings::poisson(24, 0.05, target()).unwrap().with_batch_size_b(10.0).unwrap(),
        )
        .unwrap()
    };
    for (name, pre) in [
        ("dp2_rmsprop", Preconditioner::RmsProp { beta: 0.9 }),
        ("dp2_adagrad", Preconditioner::AdaGrad),
        ("dp2_yogi", Preconditioner::Yogi { beta: 0.9 }),
    ] {
        snapshot(name, run_summary(&dp2(&oracle, &cfg(pre), Seeds::new(22), &mut NoTrace).unwrap()));
    }
    let rms = Preconditioner::RmsProp { beta: 0.9 };
    let noise_first = Dp2Config { noise_order: NoiseOrder::NoiseFirst, ..cfg(rms) };
    snapshot(
        "dp2_variant2_noise_first",
        run_summary(&dp2(&oracle, &noise_first, Seeds::new(23), &mut NoTrace).unwrap()),
    );
    snapshot(
        "dp2_variant1_extra_query",
        run_summary(&dp2_extra_query(&oracle, &cfg(rms), Seeds::new(24), &mut NoTrace).unwrap()),
    );
}

#[test]
fn golden_optim_same_seed_same_bits() {
    let d = data();
    let run_settings = RunSettings::poisson(30, 0.2, target()).unwrap().with_batch_size_b(40.0).unwrap();
    let cfg = AdaptiveNoiseConfig::new(5, 0.5, 1.0, run_settings).unwrap();
    let bits = |r: Run| r.x.iter().chain(&r.x_last).map(|v| v.to_bits()).collect::<Vec<u64>>();
    let a = AdaptiveMethod::Pagan.run(&d, Loss::Absolute, &cfg, Seeds::new(9), &mut NoTrace).unwrap();
    let b = AdaptiveMethod::Pagan.run(&d, Loss::Absolute, &cfg, Seeds::new(9), &mut NoTrace).unwrap();
    assert_eq!(a.events, b.events);
    assert_eq!(bits(a), bits(b));
}
