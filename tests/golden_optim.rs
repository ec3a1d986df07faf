//! Golden snapshots of short seeded runs of every algorithm (insta, stored under golden/optim/).
//! Floats are rounded to 10 significant digits, so a snapshot pins the trajectory while leaving
//! room for last-ulp differences of libm across platforms; bit-for-bit reproducibility on one
//! platform is checked separately (`golden_optim_same_seed_same_bits`).

use dpref::data::{Dataset, absolute_regression};
use dpref::geometry::{Domain, EllipsoidProjection};
use dpref::loss::Loss;
use dpref::optim::adaptive_noise::biased::{
    StepRule, TemplateConfig, biased_adagrad, biased_sgd, mean_estimate, no_noise,
};
use dpref::optim::adaptive_noise::second_moment::{MomentNoise, SecondMomentConfig, private_second_moments};
use dpref::optim::adaptive_noise::{AdaptiveNoiseConfig, pagan::pagan, pasan::pasan};
use dpref::optim::dp_sgd::{DpSgdConfig, dp_sgd};
use dpref::optim::{NoTrace, OutputPoint, Privacy, Run};
use dpref::rng::{Seeds, Stream};
use dpref::sampling::BatchSampler;
use serde_json::{Value, json};

fn round(v: f64) -> Value {
    if v == 0.0 || !v.is_finite() {
        return json!(v);
    }
    json!(format!("{v:.9e}").parse::<f64>().unwrap())
}

fn rounded(xs: &[f64]) -> Value {
    Value::Array(xs.iter().map(|&v| round(v)).collect())
}

fn summary(run: &Run) -> Value {
    json!({
        "x": rounded(&run.x),
        "x_last": rounded(&run.x_last),
        "steps": run.steps,
        "events": format!("{:?}", run.events.as_event()),
        "epsilon": run.privacy.epsilon.map(round),
        "sigma": round(run.privacy.sigma),
    })
}

fn data() -> Dataset {
    absolute_regression(200, 5, 0.01, &mut Seeds::new(7).stream(Stream::Data)).unwrap().0
}

fn snapshot(name: &str, v: Value) {
    insta::with_settings!({ snapshot_path => "../golden/optim", prepend_module_to_snapshot => false }, {
        insta::assert_json_snapshot!(name, v);
    });
}

fn target() -> Privacy {
    Privacy::Target { epsilon: 1.0, delta: 1e-5 }
}

#[test]
fn golden_optim_dp_sgd() {
    let mut cfg = DpSgdConfig::new(20, 0.2, 1.0, 0.1, target()).with_batch_size_b(20.0);
    cfg.domain = Domain::Box { radius: 1.0 };
    snapshot("dp_sgd", summary(&dp_sgd(&data(), Loss::Absolute, &cfg, Seeds::new(1), &mut NoTrace).unwrap()));
}

#[test]
fn golden_optim_pasan_and_pagan() {
    let d = data();
    let mut cfg = AdaptiveNoiseConfig::new(5, 20, 0.5, 1.5, 0.1, target()).with_batch_size_b(20.0);
    cfg.ellipsoid_c = vec![1.0, 4.0, 9.0, 16.0, 25.0];
    cfg.domain = Domain::Box { radius: 1.0 };
    snapshot("pasan_radial", summary(&pasan(&d, Loss::Absolute, &cfg, Seeds::new(2), &mut NoTrace).unwrap()));
    snapshot("pagan_radial", summary(&pagan(&d, Loss::Absolute, &cfg, Seeds::new(3), &mut NoTrace).unwrap()));
    cfg.projection = EllipsoidProjection::Euclidean;
    cfg.output = OutputPoint::AverageFromOne;
    cfg.domain = Domain::L2Ball { radius: 1.5 };
    snapshot("pagan_euclidean_l2ball", summary(&pagan(&d, Loss::Absolute, &cfg, Seeds::new(4), &mut NoTrace).unwrap()));
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
    let sgd = biased_sgd(
        &d,
        Loss::Absolute,
        &cfg,
        StepRule::AdaGradNorm { alpha: 0.5 },
        Seeds::new(6),
        &mut NoTrace,
        &mut mean_estimate,
        &mut no_noise,
    )
    .unwrap();
    snapshot("biased_sgd", summary(&sgd));
    let ada =
        biased_adagrad(&d, Loss::Absolute, &cfg, 2.0, Seeds::new(6), &mut NoTrace, &mut mean_estimate, &mut no_noise)
            .unwrap();
    snapshot("biased_adagrad", summary(&ada));
}

#[test]
fn golden_optim_same_seed_same_bits() {
    let d = data();
    let cfg = AdaptiveNoiseConfig::new(5, 30, 0.5, 1.0, 0.2, target()).with_batch_size_b(40.0);
    let bits = |r: Run| r.x.iter().chain(&r.x_last).map(|v| v.to_bits()).collect::<Vec<u64>>();
    let a = pagan(&d, Loss::Absolute, &cfg, Seeds::new(9), &mut NoTrace).unwrap();
    let b = pagan(&d, Loss::Absolute, &cfg, Seeds::new(9), &mut NoTrace).unwrap();
    assert_eq!(a.events, b.events);
    assert_eq!(bits(a), bits(b));
}
