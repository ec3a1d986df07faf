//! The non-private templates that \[ADFJT\]'s theorems analyse: biased SGD (Algorithm 4) and
//! biased AdaGrad (Algorithm 5, App. A). The caller supplies the (possibly biased) estimate
//! g̃^k of the minibatch mean and the zero-mean noise ξ^k; PASAN and PAGAN are the instances with
//! g̃ = mean of ellipsoid projections and ξ = s·N(0, A^{−1}).
//! ```text
//! Alg. 4                                          Alg. 5
//! 1: x^0 ∈ X                                      1: x^0 ∈ X
//! 2: for k = 0..T−1:                              2: for k = 0..T−1:
//! 3:   sample b indices (with replacement)        3:   sample b indices
//! 4:   g^k = (1/b) Σᵢ g^{k,i}                     4:   g̃^k = biased estimate of g^k (g^k as Alg. 4 line 4)
//! 5:   g̃^k = estimate of g^k                      5:   ĝ^k = g̃^k + ξ^k
//! 6:   ĝ^k = g̃^k + ξ^k                            6:   H_k = diag(Σ_{i=0..k} ĝ^i ĝ^iᵀ)^{1/2}/α   (corrected: printed i = 1..k)
//! 7:   x^{k+1} = Π_X(x^k − α_k ĝ^k)               7:   x^{k+1} = argmin_X ‖x − (x^k − H_k⁻¹ĝ^k)‖_{H_k}
//! 8: return (1/T) Σ x^k                           8: return (1/T) Σ x^k
//! ```
//! Alg. 4's step sizes are AdaGrad-norm `α_k = α/√(Σ_{i≤k}‖ĝ^i‖²)` (as PASAN) or a fixed α.
//! Proof: proofs/adaptive_noise/biased.md.

use super::{adagrad_diagonal_step, adagrad_norm_step};
use crate::data::Dataset;
use crate::error::{Result, check};
use crate::geometry::Domain;
use crate::loss::Loss;
use crate::optim::private_step::start_point;
use crate::optim::{
    Averager, EventLog, Observer, OutputPoint, PrivacyReport, ReleaseSummary, Run, TraceEvent, check_start,
};
use crate::rng::{DpRng, Seeds, Stream};
use crate::sampling::BatchSampler;

/// Step-size rule of Algorithm 4.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum StepRule {
    /// `α_k = α/√(Σ_{i≤k}‖ĝ^i‖²)` (0/0 := 0).
    AdaGradNorm {
        /// α.
        alpha: f64,
    },
    /// `α_k = α`.
    Constant {
        /// α.
        alpha: f64,
    },
}

/// Settings shared by the two templates.
#[derive(Debug, Clone, PartialEq)]
pub struct TemplateConfig {
    /// T.
    pub steps_t: u64,
    /// How indices are drawn (printed: with replacement).
    pub sampler: BatchSampler,
    /// X.
    pub domain: Domain,
    /// Which point is returned.
    pub output: OutputPoint,
    /// x^0 (default 0 projected).
    pub x0: Option<Vec<f64>>,
}

/// `estimate(k, x, per-example gradients of the batch, out)` writes g̃^k.
pub type Estimator<'a> = &'a mut dyn FnMut(u64, &[f64], &[Vec<f64>], &mut [f64]);
/// `noise(k, rng, ĝ)` adds ξ^k to ĝ in place.
pub type NoiseFn<'a> = &'a mut dyn FnMut(u64, &mut DpRng, &mut [f64]);

/// Which template a run is: the two share lines 1–6 (Alg. 5: 1–5) and 8, and differ only in the
/// update of line 7 (Alg. 5: lines 6–7), so they are one loop and one entry point,
/// [`Template::run`] (as PASAN and PAGAN are, `super::AdaptiveMethod`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Template {
    /// Algorithm 4, biased SGD, with its step-size rule.
    BiasedSgd(StepRule),
    /// Algorithm 5, biased AdaGrad, with step scale α > 0 (theory: α = D∞).
    BiasedAdaGrad {
        /// α.
        alpha: f64,
    },
}

impl Template {
    /// Runs the template with the caller's estimator g̃ and noise ξ (see the module doc).
    ///
    /// # Errors
    /// `InvalidParameter` for invalid settings; `Unsupported` for Algorithm 5 on an l1-ball
    /// domain.
    #[allow(clippy::too_many_arguments)]
    pub fn run(
        self,
        data: &Dataset,
        loss: Loss,
        config: &TemplateConfig,
        seeds: Seeds,
        observer: &mut impl Observer,
        estimate: Estimator<'_>,
        noise: NoiseFn<'_>,
    ) -> Result<Run> {
        if let Template::BiasedAdaGrad { alpha } = self {
            check::positive("alpha", alpha)?;
        }
        check::count("steps", config.steps_t)?;
        config.sampler.validate(data.n())?;
        let (n, d) = (data.n(), data.d());
        if let Some(x0) = &config.x0 {
            check_start(x0, d)?;
        }
        let (mut sampling, mut noise_rng) = (seeds.stream(Stream::Sampling), seeds.stream(Stream::Noise));
        let mut x = start_point(config.x0.as_deref(), d, &config.domain);
        let (mut batch, mut g_hat, mut x_next) = (Vec::new(), vec![0.0; d], vec![0.0; d]);
        // the step-size state: Σ‖ĝ^i‖² (Alg. 4, AdaGrad-norm), or Σ (ĝ^i)² and H_k (Alg. 5)
        let (mut sum_sq, mut sum_sq_diag, mut h) = (0.0, vec![0.0; d], vec![0.0; d]);
        let mut avg = Averager::new(d);
        for k in 0..config.steps_t {
            observer.observe(TraceEvent::Iterate { step: k, x: &x });
            // Alg. 4, line 3: sample the batch
            // Alg. 5, line 3: sample the batch
            config.sampler.sample(&mut sampling, n, &mut batch);
            // Alg. 4, line 4: the per-example gradients g^{k,i} of g^k = (1/b) sum_i g^{k,i}
            let grads: Vec<Vec<f64>> = batch
                .iter()
                .map(|&i| {
                    let mut g = vec![0.0; d];
                    loss.gradient(&x, data.row(i), data.label(i), &mut g);
                    g
                })
                .collect();
            // Alg. 4, line 5: g_tilde^k = estimate of g^k
            // Alg. 5, line 4: g_tilde^k = biased estimate of g^k
            estimate(k, &x, &grads, &mut g_hat);
            // Alg. 4, line 6: g_hat = g_tilde + xi
            // Alg. 5, line 5: g_hat = g_tilde + xi
            noise(k, &mut noise_rng, &mut g_hat);
            observer.observe(TraceEvent::NoisyGradient { step: k, g_hat: &g_hat });
            match self {
                // Alg. 4, line 7 with alpha_k = alpha / sqrt(sum ||g_hat||^2)
                Template::BiasedSgd(StepRule::AdaGradNorm { alpha }) => {
                    adagrad_norm_step(&x, &g_hat, &mut sum_sq, alpha, &config.domain, &mut x_next)
                }
                // Alg. 4, line 7 with alpha_k = alpha
                Template::BiasedSgd(StepRule::Constant { alpha }) => {
                    for ((o, xi), gi) in x_next.iter_mut().zip(&x).zip(&g_hat) {
                        *o = xi - alpha * gi;
                    }
                    config.domain.project(&mut x_next);
                }
                // Alg. 5, line 6: H_k = diag(sum_{i=0..k} g_hat^i g_hat^i^T)^{1/2} / alpha
                // Alg. 5, line 7: x^{k+1} = argmin_X |x - (x^k - H_k^-1 g_hat^k)|_{H_k}
                Template::BiasedAdaGrad { alpha } => {
                    adagrad_diagonal_step(&x, &g_hat, &mut sum_sq_diag, alpha, &config.domain, &mut h, &mut x_next)?
                }
            }
            avg.add(&x, &x_next);
            std::mem::swap(&mut x, &mut x_next);
        }
        let privacy = PrivacyReport { epsilon: None, delta: None, sigma: 0.0 };
        // Templates without a privacy claim: a noisy release per step, no event.
        let released =
            ReleaseSummary { events: EventLog::default(), privacy, releases: config.steps_t, neighbouring: None };
        Ok(Run::new(avg.output(config.output, &x), x, config.steps_t, released))
    }
}

/// The unbiased estimator `g̃ = g = (1/b_realised) Σᵢ g^{k,i}` (0 for an empty batch).
pub fn mean_estimate(_k: u64, _x: &[f64], grads: &[Vec<f64>], out: &mut [f64]) {
    out.iter_mut().for_each(|v| *v = 0.0);
    for g in grads {
        crate::linalg::axpy(1.0, g, out);
    }
    if !grads.is_empty() {
        let b = grads.len() as f64;
        out.iter_mut().for_each(|v| *v /= b);
    }
}

/// No noise: ξ = 0.
pub fn no_noise(_k: u64, _rng: &mut DpRng, _g: &mut [f64]) {}
