//! Ablation variant 1 of \[LZLRMS\] — Algorithm 2 (App. D): the preconditioner is refreshed every
//! s steps from the s most recent DP-SGD releases, and every other step queries the data a
//! second time for a preconditioned release.
//!
//! Input: a [`GradientOracle`], [`Dp2Config`] (s = `delay_sgd_s1`; `delay_adaptive_s2` unused;
//! RMSProp/AdaGrad/Yogi rule; α1/α2 and C1/C2 by step kind). Output: [`Run`] with `x = w^T`.
//! 1-indexed as printed:
//! ```text
//!  1: G ← 0
//!  2: for t = 1..T:
//!  3:   sample B
//!  4:   g^{i,t} ← ∇f(x^i; w^{t−1})
//!  5:   g̃^t ← (1/b)(Σ clip(g^{i,t}, C1) + N(0, σ² C1² I));  G ← G + g̃^t
//!  6:   if (t − 1) mod s = 0:
//!  7:     v ← β v + (1 − β)(G/k)²   (k = releases in G: the authors' code; the paper prints G/s,
//!                                   which at t = 1 averages one gradient as if it were s)
//!  8:     G ← 0
//!  9:     ḡ^t ← g̃^t                                   (a DP-SGD step, rate α1)
//! 10:   else:
//! 11:     ĝ^t ← (1/b)(Σ clip(g^{i,t}/(√v + ε), C2) + N(0, σ² C2² I));  ḡ^t ← ĝ^t   (second query, α2)
//! 12:   w^t ← w^{t−1} − α ḡ^t                          (every iteration; the printed indentation
//!                                                       puts it in the else branch, erratum 8)
//! ```
//! # Privacy
//! A step of line 11 releases two Gaussian sums of the same Poisson batch, each with noise
//! multiplier σ: jointly one subsampled Gaussian with multiplier σ/√2 (whitened sensitivities
//! 1/σ each, joint √2/σ). So T steps are ⌈T/s⌉ events of multiplier σ and T − ⌈T/s⌉ events of
//! σ/√2: strictly more than DP² (P14). A target (ε, δ) is calibrated on that composition.
//! # Proof
//! Proof: proofs/dp2/variants.md.

use super::algorithm1::Dp2Config;
use super::preconditioner_diagonal;
use crate::accounting::{DpEvent, per_example_sum_gaussian};
use crate::error::Result;
use crate::model::{ClippedSum, GradientOracle};
use crate::optim::private_step::oracle_start;
use crate::optim::{NoiseShape, Observer, Run, TraceEvent};
use crate::rng::Seeds;

/// The privacy event of Algorithm 2's T steps with delay s at noise multiplier σ.
///
/// # Errors
/// As the event constructors (σ ≤ 0, invalid sampling).
pub fn extra_query_event(config: &Dp2Config, n: usize, sigma: f64) -> Result<DpEvent> {
    let (t, s) = (config.settings.steps_t, config.delay_sgd_s1);
    let single = t.div_ceil(s);
    let scheme = config.settings.sampler.scheme(n);
    let sgd = scheme.wrap(per_example_sum_gaussian(sigma)?)?;
    let double = scheme.wrap(per_example_sum_gaussian(sigma / std::f64::consts::SQRT_2)?)?;
    let mut parts = vec![DpEvent::self_composed(sgd, single)?];
    if t > single {
        parts.push(DpEvent::self_composed(double, t - single)?);
    }
    Ok(if parts.len() == 1 { parts.remove(0) } else { DpEvent::Composed(parts) })
}

/// Runs Algorithm 2 (see the module doc).
///
/// # Errors
/// As [`super::algorithm1::dp2`].
#[allow(non_snake_case)]
pub fn dp2_extra_query(
    oracle: &impl GradientOracle,
    config: &Dp2Config,
    seeds: Seeds,
    observer: &mut impl Observer,
) -> Result<Run> {
    if config.noise_order != super::algorithm1::NoiseOrder::PreconditionFirst {
        return Err(crate::Error::invalid(
            "noise order",
            "noise-first",
            "precondition-first for variant 1 (the two ablations are separate methods)",
        ));
    }
    let (n, p, w0) = oracle_start(oracle, config.settings.x0.as_deref(), |n, p| config.validate(n, p))?;
    let (T, s) = (config.settings.steps_t, config.delay_sgd_s1);
    let (C1, C2) = (config.clip_sgd_c1, config.clip_adaptive_c2);
    let run_event = |sigma: f64| extra_query_event(config, n, sigma);
    let mut release = config.private_release(n, seeds, Some(&run_event))?;
    let (mut v, mut acc, mut d) = (vec![0.0; p], vec![0.0; p], vec![1.0; p]);
    let (mut g_sgd, mut g_ada) = (vec![0.0; p], vec![0.0; p]);
    let mut batch = Vec::new();
    let (mut preconditioner_updates, mut in_acc) = (0u64, 0u64);
    // Alg. 2, line 1: G <- 0
    let mut w = w0;
    // Alg. 2, line 2: for t = 1..T
    for t in 1..=T {
        observer.observe(TraceEvent::Iterate { step: t - 1, x: &w });
        // Alg. 2, line 3: sample B
        release.sample(&mut batch);
        // Alg. 2, line 5: g_tilde = (sum clip(g_i, C1) + N(0, sigma^2 C1^2 I)) / b; G <- G + g_tilde
        oracle.preconditioned_clipped_sum(&w, ClippedSum::new(&batch, C1), &mut g_sgd);
        release.release(&mut g_sgd, NoiseShape::Isotropic { clip: C1 })?;
        crate::linalg::axpy(1.0, &g_sgd, &mut acc);
        in_acc += 1;
        // Alg. 2, line 6: every s steps, a preconditioner update and a DP-SGD step
        let (released, lr) = if (t - 1) % s == 0 {
            // Alg. 2, line 7: v <- beta v + (1 - beta) (G/k)^2, k the releases in G
            let g_bar: Vec<f64> = acc.iter().map(|a| a / in_acc as f64).collect();
            config.preconditioner.update(&mut v, &g_bar);
            preconditioner_diagonal(&v, config.eps_adapt, &mut d);
            preconditioner_updates += 1;
            // Alg. 2, line 8: G <- 0
            acc.iter_mut().for_each(|a| *a = 0.0);
            in_acc = 0;
            // Alg. 2, line 9: g_bar = g_tilde
            (&g_sgd, config.learning_rate_sgd_alpha1)
        } else {
            // Alg. 2, line 11: the second query, g_hat = (sum clip(g_i / D, C2) + N(0, sigma^2 C2^2 I)) / b
            // (the release's event becomes the joint one of the batch's two releases)
            observer.observe(TraceEvent::Preconditioner { step: t - 1, d: &d });
            oracle.preconditioned_clipped_sum(&w, ClippedSum::new(&batch, C2).preconditioned(&d), &mut g_ada);
            release.release(&mut g_ada, NoiseShape::Isotropic { clip: C2 })?;
            (&g_ada, config.learning_rate_adaptive_alpha2)
        };
        observer.observe(TraceEvent::NoisyGradient { step: t - 1, g_hat: released });
        // Alg. 2, line 12: w^t = w^{t-1} - alpha g_bar (every iteration)
        crate::linalg::axpy(-lr, released, &mut w);
    }
    let mut run = Run::new(w.clone(), w, T, release.finish()?);
    run.preconditioner_updates = preconditioner_updates;
    Ok(run)
}
