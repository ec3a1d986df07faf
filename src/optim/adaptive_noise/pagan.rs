//! PAGAN — Private AdaGrad with Adaptive Noise. \[ADFJT\] Algorithm 2.
//!
//! Input: dataset, loss, [`AdaptiveNoiseConfig`](super::AdaptiveNoiseConfig) (T, q, α, C, B, z or (ε, δ), X).
//! Output: [`Run`](crate::optim::Run). Run it by
//! [`AdaptiveMethod::Pagan`](super::AdaptiveMethod::Pagan)`.run(data, loss, &config, seeds, observer)`:
//! lines 1–6 and 9 are shared with PASAN, lines 7–8 are the diagonal AdaGrad update.
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
