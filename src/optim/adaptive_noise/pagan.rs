//! PAGAN — Private AdaGrad with Adaptive Noise. \[ADFJT\] Algorithm 2.
//!
//! Input: dataset, loss, [`AdaptiveNoiseConfig`] (T, q, α, C, B, z or (ε, δ), X). Output: [`Run`].
//! Invariants: projected gradients lie in `E_A`, `A = C/B²`; one privacy event per step.
//! ```text
//! 1: choose x^0 ∈ X
//! 2: for k = 0 .. T−1:
//! 3:   draw the batch D_k (Poisson, rate q; printed: b indices i.i.d. with replacement)
//! 4:   A_k = C/B² (fixed; data-independent)
//! 5:   g̃^k = (1/b) Σ_{i∈D_k} π_{A_k}(g^{k,i}),   g^{k,i} ∈ ∂F(x^k; z_i),   b = qn
//! 6:   ĝ^k = g̃^k + s ξ^k,  ξ^k ~ N(0, A_k^{−1}),  s = z/b   (corrected; printed √(log(1/δ)/(bε)))
//! 7:   H_k = diag(Σ_{i≤k} ĝ^i ĝ^iᵀ)^{1/2} / α
//! 8:   x^{k+1} = argmin_{x∈X} ‖x − (x^k − H_k^{−1} ĝ^k)‖_{H_k}
//! 9: return x̄ = (1/T) Σ_{k=0}^{T−1} x^k   (corrected; printed k = 1..T)
//! ```
//! # Privacy
//! In whitened coordinates `A^{1/2}·` each projected gradient has norm ≤ 1 and the noise is
//! `z·N(0, I)` on the sum: one `PoissonSampled(q, Gaussian(z/f))` per step (f = 1 add/remove, 2
//! replace-one). Lines 7–9 are post-processing.
//! # Proof
//! proofs/adaptive_noise/pagan.md (§2 line table, §5 errata).

use super::{AdaptiveNoiseConfig, adagrad_diagonal_step};
use crate::data::Dataset;
use crate::error::Result;
use crate::loss::Loss;
use crate::optim::private_step::start_point;
use crate::optim::{Averager, Observer, Run, TraceEvent};
use crate::rng::Seeds;

/// Runs PAGAN (see the module doc) with sampling and noise streams from `seeds`.
///
/// # Errors
/// `InvalidParameter` for invalid settings (checked before any randomness); `Unsupported` for a
/// privacy target with a sampler or relation no accountant covers.
#[allow(non_snake_case)]
pub fn pagan(
    data: &Dataset,
    loss: Loss,
    config: &AdaptiveNoiseConfig,
    seeds: Seeds,
    observer: &mut impl Observer,
) -> Result<Run> {
    let (n, d) = (data.n(), data.d());
    config.validate(n, d)?;
    // Line 8 needs the H-weighted projection onto X: refuse a domain without one (l1 ball) now,
    // before any randomness.
    config.domain.project_weighted(&mut vec![0.0; d], &vec![1.0; d])?;
    loss.check_labels(data)?;
    let T = config.steps_t;
    let a = config.ellipsoid_a();
    let mut step = config.private_step(n, seeds, &a)?;
    let mut avg = Averager::new(d);
    // Alg. 2, line 1: x^0 in X
    let mut x = start_point(config.x0.as_deref(), d, &config.domain);
    let mut x_next = vec![0.0; d];
    let (mut sum_sq, mut h) = (vec![0.0; d], vec![0.0; d]);
    for k in 0..T {
        observer.observe(TraceEvent::Iterate { step: k, x: &x });
        // Alg. 2, line 3: draw the batch D_k
        // Alg. 2, line 4: A_k = C/B^2 (fixed, `a`)
        // Alg. 2, line 5: g_tilde = (1/b) sum_i pi_A(g^{k,i}) (the sum; divided by b with the noise)
        // Alg. 2, line 6: g_hat = g_tilde + s xi, xi ~ N(0, A^-1), s = z/b (corrected): (sum + z A^-1/2 w)/b
        let g_hat = step.noisy_gradient(data, loss, &x)?;
        observer.observe(TraceEvent::NoisyGradient { step: k, g_hat });
        // Alg. 2, line 7: H_k = diag(sum_{i<=k} g_hat^i g_hat^i^T)^{1/2} / alpha
        // Alg. 2, line 8: x^{k+1} = argmin_{x in X} |x - (x^k - H_k^-1 g_hat^k)|_{H_k}
        adagrad_diagonal_step(&x, g_hat, &mut sum_sq, config.step_scale_alpha, &config.domain, &mut h, &mut x_next)?;
        avg.add(&x, &x_next);
        std::mem::swap(&mut x, &mut x_next);
    }
    // Alg. 2, line 9: return the average (k = 0..T-1 by default, corrected)
    Ok(Run::new(avg.output(config.output, &x), x, T, step.finish()?))
}
