//! Running PASAN and PAGAN (\[ADFJT\] Algs. 1, 2) in the `tests/adaptive_noise*.rs` files: the
//! algorithm and projection lists, a run with its trace, bit patterns for bit-for-bit
//! comparisons, and the data and configurations those tests share.

use dpref::data::{Dataset, absolute_regression};
use dpref::geometry::EllipsoidProjection;
use dpref::loss::Loss;
use dpref::optim::RunSettings;
use dpref::optim::adaptive_noise::{AdaptiveMethod, AdaptiveNoiseConfig};
use dpref::optim::{Privacy, Run, Trace};
use dpref::rng::{Seeds, Stream};

pub const KINDS: [EllipsoidProjection; 2] = [EllipsoidProjection::Radial, EllipsoidProjection::Euclidean];

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Alg {
    Pasan,
    Pagan,
}

pub const ALGS: [Alg; 2] = [Alg::Pasan, Alg::Pagan];

/// Runs `alg`; a config without a declared normaliser gets the public b = q·n of this fixed
/// dataset (no test here compares datasets of different sizes).
pub fn run(alg: Alg, data: &Dataset, loss: Loss, cfg: &AdaptiveNoiseConfig, seed: u64) -> (Run, Trace) {
    let mut trace = Trace::default();
    let mut cfg = cfg.clone();
    cfg.settings.batch_size_b = cfg.settings.batch_size_b.or(Some(cfg.settings.sampler.expected_batch_size(data.n())));
    let r = match alg {
        Alg::Pasan => AdaptiveMethod::Pasan.run(data, loss, &cfg, Seeds::new(seed), &mut trace),
        Alg::Pagan => AdaptiveMethod::Pagan.run(data, loss, &cfg, Seeds::new(seed), &mut trace),
    };
    (r.unwrap_or_else(|e| panic!("{alg:?}: {e}")), trace)
}

pub fn bits(x: &[f64]) -> Vec<u64> {
    x.iter().map(|v| v.to_bits()).collect()
}

pub fn bits2(x: &[Vec<f64>]) -> Vec<Vec<u64>> {
    x.iter().map(|v| bits(v)).collect()
}

pub fn noise(sigma: f64) -> Privacy {
    Privacy::NoiseMultiplier { sigma, report_delta: None }
}

/// The synthetic absolute regression of notes §5.1 (σⱼ = j^{−3/2}, τ = 0.1).
pub fn regression(n: usize, d: usize, seed: u64) -> Dataset {
    absolute_regression(n, d, 0.1, &mut Seeds::new(seed).stream(Stream::Data)).unwrap().0
}

/// A config with a non-isotropic ellipsoid `C`, clip radius B, Poisson rate q, step scale α.
pub fn config(d: usize, steps: u64, b: f64, q: f64, privacy: Privacy) -> AdaptiveNoiseConfig {
    let mut cfg = AdaptiveNoiseConfig::new(d, 0.5, b, RunSettings::poisson(steps, q, privacy).unwrap()).unwrap();
    cfg.ellipsoid_c = (0..d).map(|j| ((j + 1) as f64).powf(2.0)).collect();
    cfg
}
