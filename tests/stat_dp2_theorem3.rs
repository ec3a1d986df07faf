//! [LZLRMS] Theorem 3 (non-convex) on the real DP² code: notes §4.3–4.4 and issue 6 ("expect
//! large slack; record it"), and a χ² check of the noise the same runs released.

mod common;

use common::stat::chi_square_interval;
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
/// valid variance bound), K = 400 seeds per setting, three settings.
///
/// Two checks per setting, each at level 1e-6/6 (total false failure ≤ 1e-6):
///
/// * The noise the run released (the check with power). With no clipping and the full batch,
///   `g̃_t = (Σᵢ ∇ℓᵢ(w_t)/D_t + N(0, σ²C² I))/n` exactly (D_t = 1 in SGD steps, the traced
///   preconditioner in adaptive steps), so `b_t = g̃_t − ∇F(w_t)/D_t` is N(0, (σC/n)² I) and
///   `Σ_runs Σ_t ‖n·b_t/(σC)‖²` is χ² with K·T·p degrees of freedom: it must lie in the exact
///   two-sided χ² interval (`common::stat::chi_square_interval`; relative half-width 2–3 %).
///   Measured: 96659 in [93725, 98311], 161134 in [157057, 162978], 64611 in [62145, 65890]
///   (other seed blocks gave z-scores between −1.2 and +1.6). Twin (asserted): the noise not
///   divided by b (×n = ×100) puts the statistic 10⁴ times higher (9.7e8, 1.6e9, 6.5e8); noise
///   ×2 or ×½ would scale it by 4 or ¼ (far outside as well).
/// * Theorem 3 itself, recorded with its slack: the mean over runs of `(1/T)Σ‖∇F(w^t)‖²` (values
///   in [0, C²]) must stay below `bounds::dp2::theorem3_bound` (F = F(w¹) ≥ F(w¹) − inf F) plus
///   the one-sided Hoeffding margin `C²·√(ln(6/10⁻⁶)/(2K))`. This check has no power against
///   implementation bugs: measured slack ×55 (σ = 1, s = 5), ×41 (σ = 4, s = 10), ×131
///   (σ = 0.5, s = 1), and the ×100 twin's LHS is 8.8e-2 < RHS 0.73 (printed, not asserted).
///   It fails only on errors in the bound's inputs (L, M, τ², the hypotheses, which
///   `golden_theorem3` pins) or on gradients far above what any descent method reaches from w¹;
///   its job is the slack record issue 6 asks for.
#[test]
fn stat_dp2_theorem3_holds_with_large_slack() {
    let level = 1e-6 / 6.0;
    let (p, n) = (4usize, 100usize);
    let mut rng = Seeds::new(3).stream(Stream::Data);
    let support = [-1.0, 0.0, 2.0];
    let z: Vec<f64> = (0..n * p).map(|_| support[rng.random_range(0..3)]).collect();
    let data = Dataset::new(z, vec![0.0; n], p).unwrap();
    let model = SeparableNonConvex { dim: p };
    let oracle = OnData { model: &model, data: &data };
    let c = model.gradient_bound();
    let all: Vec<usize> = (0..n).collect();
    let full_gradient = |w: &[f64]| {
        let mut g = vec![0.0; p];
        model.clipped_gradient_sum(w, &data, &all, f64::INFINITY, &mut g);
        g.iter_mut().for_each(|v| *v /= n as f64);
        g
    };
    let w1 = vec![0.4, -0.3, 1.2, 0.7];
    let f_w1 = (0..n).map(|i| model.loss(&w1, &data, i)).sum::<f64>() / n as f64;
    for (sigma, s, eps_adapt, t_steps) in [(1.0f64, 5u64, 0.5f64, 60u64), (4.0, 10, 1.0, 100), (0.5, 1, 0.1, 40)] {
        let alpha = eps_adapt.min(1.0) / SMOOTHNESS_L;
        let runs = 400u64;
        let (mut mean, mut mean_broken, mut chi2, mut chi2_broken) = (0.0, 0.0, 0.0, 0.0);
        for (broken, acc, stat) in [(false, &mut mean, &mut chi2), (true, &mut mean_broken, &mut chi2_broken)] {
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
                let mut preconditioners = trace.preconditioners.iter().peekable();
                for (t, (w, g_tilde)) in trace.iterates.iter().zip(&trace.noisy_gradients).enumerate() {
                    let grad = full_gradient(w);
                    *acc += grad.iter().map(|v| v * v).sum::<f64>() / t_steps as f64 / runs as f64;
                    let ones = vec![1.0; p];
                    let d = match preconditioners.peek() {
                        Some((k, d)) if *k == t as u64 => {
                            preconditioners.next();
                            d
                        }
                        _ => &ones,
                    };
                    // b_t = g̃_t − ∇F(w_t)/D_t, in units of the noise std σC/n
                    *stat += g_tilde
                        .iter()
                        .zip(&grad)
                        .zip(d)
                        .map(|((x, gj), dj)| ((x - gj / dj) * n as f64 / (sigma * c)).powi(2))
                        .sum::<f64>();
                }
                assert!(preconditioners.next().is_none(), "a preconditioner step was not matched");
            }
        }
        let (lo, hi) = chi_square_interval(runs * t_steps * p as u64, level);
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
        let margin = c * c * ((1.0 / level).ln() / (2.0 * runs as f64)).sqrt();
        eprintln!(
            "sigma {sigma}, s {s}, eps {eps_adapt}: LHS {mean:.3e}, RHS {rhs:.3e} (slack x{:.0}); noise chi2 {chi2:.0} \
             in [{lo:.0}, {hi:.0}]; noise not divided by b: LHS {mean_broken:.3e}, chi2 {chi2_broken:.3e}",
            rhs / mean
        );
        assert!(lo <= chi2 && chi2 <= hi, "sigma {sigma}, s {s}: released noise chi2 {chi2} outside [{lo}, {hi}]");
        assert!(chi2_broken > hi, "sigma {sigma}, s {s}: the x{n} noise twin passes the chi2 check: {chi2_broken}");
        assert!(mean <= rhs + margin, "sigma {sigma}, s {s}: mean {mean} > {rhs} + {margin}");
    }
}
