//! DP-SGD — Abadi, Chu, Goodfellow, McMahan, Mironov, Talwar, Zhang 2016, "Deep learning with
//! differential privacy" (arXiv 1607.00133v2), Algorithm 1, with Poisson sampling and the
//! noisy sum normalised by the expected batch size.
//!
//! Input: dataset, loss, [`DpSgdConfig`] (T, q, η, C, σ or (ε, δ), X). Output: [`Run`].
//! ```text
//! 1: initialise x^0 (default 0, projected onto X)
//! 2: for k = 0 .. T−1:
//! 3:   B_k ← Poisson sample of [n] with rate q
//! 4:   gᵢ = ∇F(x^k; zᵢ) for i ∈ B_k
//! 5:   ḡᵢ = gᵢ · min(1, C/‖gᵢ‖₂)
//! 6:   ĝ^k = (1/b)(Σᵢ ḡᵢ + N(0, σ²C² I)),   b = qn (expected batch size: a public constant)
//! 7:   x^{k+1} = Π_X(x^k − η ĝ^k)     (Π_X: Euclidean projection; the paper is unconstrained)
//! 8: return the output point and the privacy events; the accountant gives (ε, δ)
//! ```
//! Privacy: one `PoissonSampled(q, Gaussian(σ/f))` per step, f = 1 (add/remove) or 2
//! (replace-one: a replaced record moves the clipped sum by 2C). The normaliser b must be the same
//! on neighbouring datasets: under add/remove it is the declared `batch_size_b`, never `q·|D|`
//! (normalising by q·|D| publishes |D|, the Opacus `int(len(dataset)·q)` pattern:
//! proofs/dp_sgd.md §5 D1; see `batch_normaliser`).
//! Proof: proofs/dp_sgd.md.

use super::private_step::{PrivateGradientStep, start_point};
use super::{Averager, GradientBound, NoiseShape, Observer, OutputPoint, PrivateRelease, Run, RunSettings, TraceEvent};
use crate::data::Dataset;
use crate::error::{Result, check};
use crate::geometry::Domain;
use crate::loss::Loss;
use crate::rng::Seeds;
use serde::Serialize;

/// DP-SGD settings; field names end in the paper's symbols.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DpSgdConfig {
    /// η: learning rate.
    pub learning_rate_eta: f64,
    /// C: per-example l2 clipping radius (∞: no clipping, allowed only with a noise multiplier
    /// and then without a privacy claim).
    pub clip_c: f64,
    /// T, the sampler (Poisson by default), σ or the (ε, δ) it is calibrated to, the neighbouring
    /// relation, the normaliser b and x^0 (default: 0 projected onto X).
    #[serde(flatten)]
    pub settings: RunSettings,
    /// X.
    pub domain: Domain,
    /// Which point is returned.
    pub output: OutputPoint,
    /// Reference or GLM fast path for the per-example gradients.
    pub engine: crate::optim::GradientEngine,
}

impl DpSgdConfig {
    /// DP-SGD with `settings` ([`RunSettings::poisson`]: T steps, Poisson sampling at rate q,
    /// add/remove), unconstrained, average from 0.
    ///
    /// # Errors
    /// `InvalidParameter` for T = 0, η ≤ 0, C ≤ 0 or NaN, invalid settings, or C = ∞ with a
    /// privacy target (as [`DpSgdConfig::validate_settings`]).
    pub fn new(learning_rate_eta: f64, clip_c: f64, settings: RunSettings) -> Result<Self> {
        crate::optim::checked(
            DpSgdConfig {
                learning_rate_eta,
                clip_c,
                settings,
                domain: Domain::Unconstrained,
                output: OutputPoint::AverageFromZero,
                engine: crate::optim::GradientEngine::Reference,
            },
            DpSgdConfig::validate_settings,
        )
    }

    /// Runs DP-SGD with these settings, without a trace ([`dp_sgd`] takes an observer).
    ///
    /// # Errors
    /// As [`dp_sgd`].
    pub fn run(&self, data: &Dataset, loss: Loss, seeds: Seeds) -> Result<Run> {
        dp_sgd(data, loss, self, seeds, &mut super::NoTrace)
    }

    /// Checks every setting that does not need the data (the fields are public, so a run checks
    /// them again, with the data, before any randomness is drawn).
    ///
    /// # Errors
    /// `InvalidParameter` naming the first invalid setting.
    pub fn validate_settings(&self) -> Result<()> {
        check::positive("learning rate", self.learning_rate_eta)?;
        self.settings.validate_with_clip("clip", self.clip_c)
    }

    fn validate(&self, data: &Dataset) -> Result<()> {
        self.validate_settings()?;
        self.settings.validate_on(data.n(), data.d())
    }
}

/// Runs DP-SGD (see the module doc) with streams from `seeds` (sampling and noise separate).
///
/// # Errors
/// `InvalidParameter` for invalid settings (validated before any randomness is drawn);
/// `Unsupported` for a privacy target with a sampler or relation no accountant covers.
#[allow(non_snake_case)]
pub fn dp_sgd(
    data: &Dataset,
    loss: Loss,
    config: &DpSgdConfig,
    seeds: Seeds,
    observer: &mut impl Observer,
) -> Result<Run> {
    config.validate(data)?;
    loss.check_labels(data)?;
    let (n, d) = (data.n(), data.d());
    let T = config.settings.steps_t;
    let C = config.clip_c;
    let bound = if C.is_infinite() { GradientBound::None } else { GradientBound::L2 { clip: C } };
    let release = PrivateRelease::new(config.settings.release_plan(n, C.is_finite()), seeds)?;
    let mut step = PrivateGradientStep::new(release, config.engine, bound, NoiseShape::Isotropic { clip: C }, d);
    let mut avg = Averager::new(d);
    // Alg. 1, line 1: initialise x^0
    let mut x = start_point(config.settings.x0.as_deref(), d, &config.domain);
    let mut x_next = vec![0.0; d];
    for k in 0..T {
        observer.observe(TraceEvent::Iterate { step: k, x: &x });
        // Alg. 1, line 3: B_k <- Poisson sample with rate q
        // Alg. 1, line 4: g_i = grad F(x^k; z_i) for i in B_k (per example, inside the sum)
        // Alg. 1, line 5: g_i * min(1, C/|g_i|), summed over the batch
        // Alg. 1, line 6: g_hat = (sum + N(0, sigma^2 C^2 I)) / b (and its privacy event)
        let g_hat = step.noisy_gradient(data, loss, &x)?;
        observer.observe(TraceEvent::NoisyGradient { step: k, g_hat });
        // Alg. 1, line 7: x^{k+1} = Pi_X(x^k - eta g_hat)
        for ((xn, xk), gk) in x_next.iter_mut().zip(&x).zip(g_hat) {
            *xn = xk - config.learning_rate_eta * gk;
        }
        config.domain.project(&mut x_next);
        avg.add(&x, &x_next);
        std::mem::swap(&mut x, &mut x_next);
    }
    // Alg. 1, line 8: output and privacy (derived from the executed events)
    Ok(Run::new(avg.output(config.output, &x), x, T, step.finish()?))
}
