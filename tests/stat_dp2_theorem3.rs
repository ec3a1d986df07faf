//! [LZLRMS] Theorem 3 (non-convex) on the real DP² code: notes §4.3–4.4 and issue 6 ("expect
//! large slack; record it").

use dpref::data::Dataset;
use dpref::model::nonconvex::{SMOOTHNESS_L, SeparableNonConvex};
use dpref::model::{Model, OnData};
use dpref::optim::RunSettings;
use dpref::optim::dp2::Preconditioner;
use dpref::optim::dp2::algorithm1::{Dp2Config, dp2};
use dpref::optim::{Privacy, Trace};
use dpref::rng::{Seeds, Stream};
use dpref::sampling::BatchSampler;
use rand::RngExt;

/// Theorem 3 in the paper's analysis model, on the non-convex §6.4 problem of [ZCHWB]
/// (`ℓ(w, z) = Σ φ(wⱼ − zⱼ)`, `φ(u) = u²/(1+u²)`: L = 2, per-example gradient norms ≤
/// C = (3√3/8)√p, F ≥ 0): full batch (b = n), no clipping (the theorem assumes none binds),
/// noise N(0, σ²C²/b²·I) on the (preconditioned) mean, s1 = s2 = s, α = min(ε, 1)/L, τ² = C² (a
/// valid variance bound). The bound is on the expectation over the noise, so the mean of the
/// per-run `(1/T)Σ‖∇F(w^t)‖²` over K = 400 seeds plus a one-sided Hoeffding margin
/// `C²·√(ln(10⁶)/(2K))` (per-run values lie in [0, C²]; false failure ≤ 1e-6) must stay below
/// `bounds::dp2::theorem3_bound` with F = F(w¹) ≥ F(w¹) − inf F.
///
/// Measured (printed): slack ×55 (σ = 1, s = 5), ×41 (σ = 4, s = 10), ×131 (σ = 0.5, s = 1). The bound is
/// too loose to catch realistic bugs here: a twin whose noise is not divided by b (×100) still
/// has LHS 8.8e-2 < RHS 0.73, so it is only measured, not asserted; that error is caught by
/// `p8_noise_calibration_per_phase`. Every LHS measured here, twins included, lies between 6e-3
/// and 9e-2, so with this slack the check fails only on errors in the bound's inputs (L, M,
/// τ², the hypotheses, which `golden_theorem3` pins) or on gradients far above what any
/// descent method reaches from w¹; its job is to record the slack the issue asks for.
#[test]
fn stat_dp2_theorem3_holds_with_large_slack() {
    let (p, n) = (4usize, 100usize);
    let mut rng = Seeds::new(3).stream(Stream::Data);
    let support = [-1.0, 0.0, 2.0];
    let z: Vec<f64> = (0..n * p).map(|_| support[rng.random_range(0..3)]).collect();
    let data = Dataset::new(z, vec![0.0; n], p).unwrap();
    let model = SeparableNonConvex { dim: p };
    let oracle = OnData { model: &model, data: &data };
    let c = model.gradient_bound();
    let all: Vec<usize> = (0..n).collect();
    let full_gradient_sq = |w: &[f64]| {
        let mut g = vec![0.0; p];
        model.clipped_gradient_sum(w, &data, &all, f64::INFINITY, &mut g);
        g.iter().map(|v| (v / n as f64).powi(2)).sum::<f64>()
    };
    let w1 = vec![0.4, -0.3, 1.2, 0.7];
    let f_w1 = (0..n).map(|i| model.loss(&w1, &data, i)).sum::<f64>() / n as f64;
    for (sigma, s, eps_adapt, t_steps) in [(1.0f64, 5u64, 0.5f64, 60u64), (4.0, 10, 1.0, 100), (0.5, 1, 0.1, 40)] {
        let alpha = eps_adapt.min(1.0) / SMOOTHNESS_L;
        let runs = 400u64;
        let (mut mean, mut mean_broken) = (0.0, 0.0);
        for (broken, acc) in [(false, &mut mean), (true, &mut mean_broken)] {
            for r in 0..runs {
                // noise std on the sum σ·C (σ is an absolute std without a clip): σC/b on the mean
                let noise = if broken { sigma * c * n as f64 } else { sigma * c };
                let mut cfg = Dp2Config::new(
                    Preconditioner::RmsProp { beta: 0.9 },
                    (s, s),
                    (alpha, alpha),
                    (f64::INFINITY, f64::INFINITY),
                    RunSettings::poisson(t_steps, 1.0, Privacy::NoiseMultiplier { sigma: noise, report_delta: None })
                        .unwrap()
                        .with_batch_size_b(n as f64)
                        .unwrap(),
                )
                .unwrap();
                cfg.settings.sampler = BatchSampler::Full;
                cfg.eps_adapt = eps_adapt;
                cfg.settings.x0 = Some(w1.clone());
                let mut trace = Trace::default();
                dp2(&oracle, &cfg, Seeds::new(100 + r), &mut trace).unwrap();
                *acc += trace.iterates.iter().map(|w| full_gradient_sq(w)).sum::<f64>() / t_steps as f64 / runs as f64;
            }
        }
        let noise = dpref::bounds::dp2::NoiseSetting::new(c, sigma, n as u64).unwrap();
        let m = dpref::bounds::dp2::lemma1_m(&noise, s).unwrap();
        let inputs = dpref::bounds::dp2::Theorem3Inputs {
            f_w1_minus_inf: f_w1,
            alpha,
            t_steps,
            l_smooth: SMOOTHNESS_L,
            m,
            tau2: c * c,
            eps_adapt,
            d: p as u64,
        };
        let rhs = dpref::bounds::dp2::theorem3_bound(&noise, &inputs).unwrap();
        let margin = c * c * ((1e6f64).ln() / (2.0 * runs as f64)).sqrt();
        assert!(mean + margin <= rhs, "sigma {sigma}, s {s}: mean {mean} + {margin} > {rhs}");
        eprintln!(
            "sigma {sigma}, s {s}, eps {eps_adapt}: LHS {mean:.3e}, RHS {rhs:.3e} (slack x{:.0}); noise not divided by b: {mean_broken:.3e}",
            rhs / mean
        );
    }
}
