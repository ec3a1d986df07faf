//! \[AFKT\] Algorithms 1 and 4 (`optim::l1`): feasibility, the mirror-descent guarantees, and the
//! privacy the runs report.

mod common;

use common::l1_data::linear_data;

use dpref::accounting::{DpEvent, SamplingScheme, per_example_sum_gaussian};
use dpref::data::Dataset;
use dpref::geometry::mirror::{kl_divergence, l1_geometry_exponent};
use dpref::linalg::norm_l1;
use dpref::loss::Loss;
use dpref::optim::RunSettings;
use dpref::optim::l1::{EntropicSmdConfig, MirrorMap, NoisyMirrorDescentConfig, entropic_smd, noisy_mirror_descent};
use dpref::optim::{NoTrace, Privacy, Trace};
use dpref::rng::Seeds;
use dpref::sampling::BatchSampler;

fn mean_row(data: &Dataset) -> Vec<f64> {
    let mut m = vec![0.0; data.d()];
    for i in 0..data.n() {
        for (mj, zj) in m.iter_mut().zip(data.row(i)) {
            *mj += zj / data.n() as f64;
        }
    }
    m
}

/// Lemma 3.1 with exact gradients (full batch, σ = 0): for a linear loss the regret bound is
/// deterministic, `F(x̄) − F* ≤ D²/(Tη) + ηL²/2 = 2DL/√T` at Theorem 3's step. F* = −R‖m‖_∞
/// over the l1 ball. A sign error in the step (ascent) or a wrong scale of D or η fails it.
#[test]
fn full_batch_mirror_descent_meets_lemma_3_1() {
    let (n, d, t) = (200, 50, 400u64);
    let data = linear_data(n, d, 1, 0.75);
    let m = mean_row(&data);
    let radius = 2.0;
    let lipschitz = (0..n).flat_map(|i| data.row(i).to_vec()).fold(0.0f64, |a, v| a.max(v.abs()));
    let f_star = -radius * m.iter().fold(0.0f64, |a, v| a.max(v.abs()));
    let f = |x: &[f64]| x.iter().zip(&m).map(|(a, b)| a * b).sum::<f64>();
    for map in [MirrorMap::PNorm { p: l1_geometry_exponent(d) }, MirrorMap::Entropic] {
        let mut cfg = NoisyMirrorDescentConfig::new(
            radius,
            lipschitz,
            map,
            RunSettings::without_replacement(t, n, Privacy::NoiseMultiplier { sigma: 0.0, report_delta: None })
                .unwrap(),
        )
        .unwrap();
        cfg.settings.sampler = BatchSampler::Full;
        let mut trace = Trace::default();
        let run = noisy_mirror_descent(&data, Loss::Linear, &cfg, Seeds::new(2), &mut trace).unwrap();
        // D: the Bregman radius the step uses (see the module doc)
        let (d_bregman, l_eff) = match map {
            MirrorMap::PNorm { p } => {
                let cd = (d as f64).powf(1.0 - 1.0 / p);
                ((0.5 * cd * cd / (p - 1.0)).sqrt() * radius, lipschitz)
            }
            MirrorMap::Entropic => (((2 * d) as f64).ln().sqrt(), radius * lipschitz),
        };
        let bound = 2.0 * d_bregman * l_eff / (t as f64).sqrt();
        let gap = f(&run.x) - f_star;
        assert!(gap >= -1e-9 && gap <= bound, "{map:?}: gap {gap} > bound {bound}");
        assert!(trace.iterates.iter().all(|x| norm_l1(x) <= radius * (1.0 + 1e-12)), "{map:?}: infeasible iterate");
        assert!(run.privacy.epsilon.is_none() && run.events.is_empty());
        // the bound is not vacuous here: it is below the gap of the starting point 0
        assert!(bound < -f_star, "{map:?}: bound {bound} vs initial gap {}", -f_star);
    }
}

/// A private run at (1, 1e-5): σ calibrated by the RDP accountant for fixed-size batches without
/// replacement under replace-one (the paper's relation, not its constant 100), T events, ε ≤ 1.
#[test]
fn private_run_reports_the_accounted_epsilon() {
    let (n, d, t, b) = (400, 20, 60u64, 40usize);
    let data = linear_data(n, d, 3, 0.75);
    let run_settings = RunSettings::without_replacement(t, b, Privacy::Target { epsilon: 1.0, delta: 1e-5 }).unwrap();
    let cfg =
        NoisyMirrorDescentConfig::new(1.0, 4.0, MirrorMap::PNorm { p: l1_geometry_exponent(d) }, run_settings).unwrap();
    let mut trace = Trace::default();
    let run = noisy_mirror_descent(&data, Loss::Linear, &cfg, Seeds::new(4), &mut trace).unwrap();
    let eps = run.privacy.epsilon.unwrap();
    assert!(eps <= 1.0 && eps > 0.99, "{eps}");
    assert_eq!(run.events.len(), t);
    assert_eq!(run.releases, t);
    let step = SamplingScheme::WithoutReplacement { dataset_size: n as u64, batch_size: b as u64 }
        .wrap(per_example_sum_gaussian(run.privacy.sigma).unwrap())
        .unwrap();
    assert_eq!(run.events.as_event(), Some(DpEvent::SelfComposed { event: Box::new(step), count: t }));
    assert!(trace.iterates.iter().all(|x| norm_l1(x) <= 1.0));
    // the entropic map: same privacy (same events), its own iterates
    let entropic = NoisyMirrorDescentConfig { map: MirrorMap::Entropic, ..cfg.clone() };
    let run2 = noisy_mirror_descent(&data, Loss::Linear, &entropic, Seeds::new(4), &mut NoTrace).unwrap();
    assert_eq!(run2.privacy.epsilon, run.privacy.epsilon);
    // sampling with replacement (the printed algorithm) has no accountant: refused before running
    let mut printed = cfg;
    printed.settings.sampler = BatchSampler::WithReplacement { batch_size: b };
    assert!(noisy_mirror_descent(&data, Loss::Linear, &printed, Seeds::new(4), &mut NoTrace).is_err());
}

#[test]
fn invalid_settings_are_refused() {
    let privacy = Privacy::NoiseMultiplier { sigma: 1.0, report_delta: None };
    // (T = 0 and b = 0 are refused by the shared settings: tests/config_validation.rs)
    let settings = RunSettings::without_replacement(10, 10, privacy).unwrap();
    let new = |radius, lipschitz, map| NoisyMirrorDescentConfig::new(radius, lipschitz, map, settings.clone());
    assert!(new(f64::NAN, 1.0, MirrorMap::Entropic).is_err());
    assert!(new(1.0, -1.0, MirrorMap::Entropic).is_err());
    assert!(new(1.0, 1.0, MirrorMap::PNorm { p: 3.0 }).is_err());
    let data = linear_data(20, 3, 5, 0.75);
    let settings = RunSettings::without_replacement(10, 5, privacy).unwrap();
    let mut cfg = NoisyMirrorDescentConfig::new(1.0, 1.0, MirrorMap::Entropic, settings).unwrap();
    cfg.settings.x0 = Some(vec![1.0, 1.0, 0.0]);
    assert!(noisy_mirror_descent(&data, Loss::Linear, &cfg, Seeds::new(1), &mut NoTrace).is_err(), "x0 outside");
    // An L whose clip L√d overflows would clip nothing while the events claim a bounded sum:
    // refused by name (it once ran and reported its target epsilon).
    let settings = RunSettings::without_replacement(10, 5, privacy).unwrap();
    let huge = NoisyMirrorDescentConfig::new(1.0, 1.5e308, MirrorMap::Entropic, settings).unwrap();
    let err = noisy_mirror_descent(&data, Loss::Linear, &huge, Seeds::new(1), &mut NoTrace).unwrap_err();
    assert!(err.to_string().contains("clip L*sqrt(d)"), "{err}");
    assert!(EntropicSmdConfig::new(0, 1.0).is_err());
    assert!(EntropicSmdConfig::new(1, 0.0).is_err());
}

/// Algorithm 4: the online mirror-descent regret bound holds for every sequence, so
/// `Σ_k ⟨g_k, x_k − e_j⟩ ≤ KL(e_j, x_1)/η + (η/2)Σ_k ‖g_k‖²_∞` for every vertex e_j, with
/// `KL(e_j, uniform) = ln d`; the iterates stay on the simplex. A wrong sign or step fails it.
#[test]
fn entropic_smd_meets_the_regret_bound() {
    let (n, d) = (50, 8);
    let data = linear_data(n, d, 6, 0.75);
    let cfg = EntropicSmdConfig::new(3, 0.05).unwrap();
    let mut trace = Trace::default();
    let run = entropic_smd(&data, Loss::Linear, &cfg, Seeds::new(7), &mut trace).unwrap();
    assert_eq!(run.steps, 3 * n as u64);
    assert_eq!(trace.iterates.len(), 3 * n);
    for x in &trace.iterates {
        assert!((x.iter().sum::<f64>() - 1.0).abs() < 1e-12 && x.iter().all(|v| *v >= 0.0));
    }
    let uniform = vec![1.0 / d as f64; d];
    let sq: f64 = trace.noisy_gradients.iter().map(|g| g.iter().fold(0.0f64, |a, v| a.max(v.abs())).powi(2)).sum();
    for j in 0..d {
        let mut e = vec![0.0; d];
        e[j] = 1.0;
        let regret: f64 = trace
            .iterates
            .iter()
            .zip(&trace.noisy_gradients)
            .map(|(x, g)| g.iter().zip(x.iter().zip(&e)).map(|(gk, (xk, ek))| gk * (xk - ek)).sum::<f64>())
            .sum();
        let bound = kl_divergence(&e, &uniform) / 0.05 + 0.05 / 2.0 * sq;
        assert!(regret <= bound * (1.0 + 1e-12), "vertex {j}: regret {regret} > {bound}");
    }
}
