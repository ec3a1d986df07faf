//! The private gradient step shared by DP-SGD (`dp_sgd.rs`, Alg. 1 lines 3–6), \[ADFJT\]
//! PASAN / PAGAN (Algs. 1–2, lines 3–6) and \[AFKT\]'s noisy mirror descents (Algs. 1 and 5,
//! lines 3–4, and the inner solver of Algs. 2 and 6): draw the batch, sum the bounded
//! per-example gradients, release the noisy sum through [`PrivateRelease`] (noise and privacy
//! event in one call). What differs between the algorithms (clipping ball or ellipsoid, noise
//! shape, the update of the following lines) is given by the caller.
//!
//! Proof: proofs/private_release.md (one noise draw and one event per release); the algorithms'
//! own proofs (proofs/dp_sgd.md, proofs/adaptive_noise/pasan.md, pagan.md,
//! proofs/l1/noisy_mirror_descent.md, lp_mirror_descent.md) cover those lines.

use super::fast::bounded_gradient_sum_glm;
use super::release::{NoiseShape, PrivateRelease, ReleaseSummary};
use super::{GradientBound, GradientEngine, bounded_gradient_sum};
use crate::data::Dataset;
use crate::error::Result;
use crate::geometry::Domain;
use crate::loss::Loss;
use crate::model::GradientOracle;

/// One private gradient per call to [`PrivateGradientStep::noisy_gradient`], with its buffers.
pub(crate) struct PrivateGradientStep<'a> {
    release: PrivateRelease,
    engine: GradientEngine,
    bound: GradientBound<'a>,
    noise: NoiseShape<'a>,
    batch: Vec<usize>,
    g: Vec<f64>,
    g_hat: Vec<f64>,
}

impl<'a> PrivateGradientStep<'a> {
    /// Steps in dimension d releasing through `release`, bounding each per-example gradient by
    /// `bound` and adding noise of shape `noise`.
    pub(crate) fn new(
        release: PrivateRelease,
        engine: GradientEngine,
        bound: GradientBound<'a>,
        noise: NoiseShape<'a>,
        d: usize,
    ) -> Self {
        PrivateGradientStep { release, engine, bound, noise, batch: Vec::new(), g: vec![0.0; d], g_hat: vec![0.0; d] }
    }

    /// `ĝ = (Σ_{i∈B} bound(∇F(x; zᵢ)) + noise)/b` for a freshly drawn batch B, its privacy event
    /// recorded.
    ///
    /// # Errors
    /// As [`PrivateRelease::release`].
    pub(crate) fn noisy_gradient(&mut self, data: &Dataset, loss: Loss, x: &[f64]) -> Result<&[f64]> {
        // Draw the batch (Poisson with rate q by default)
        self.release.sample(&mut self.batch);
        // The bounded per-example gradients, summed (divided by b below), by the reference or
        // the GLM fast path (equal up to reassociation)
        let (batch, bound, g, sum) = (&self.batch, self.bound, &mut self.g, &mut self.g_hat);
        match self.engine {
            GradientEngine::Reference => bounded_gradient_sum(data, loss, x, batch, bound, g, sum),
            GradientEngine::GlmFast => bounded_gradient_sum_glm(data, loss, x, batch, bound, g, sum),
        }
        // (sum + noise)/b, and the step's privacy event
        self.release.release(&mut self.g_hat, self.noise)?;
        Ok(&self.g_hat)
    }

    /// The privacy events executed, as [`PrivateRelease::finish`].
    ///
    /// # Errors
    /// As [`PrivateRelease::finish`].
    pub(crate) fn finish(self) -> Result<ReleaseSummary> {
        self.release.finish()
    }
}

/// `x⁰`: the given start (default 0) projected onto X.
pub(crate) fn start_point(x0: Option<&[f64]>, d: usize, domain: &Domain) -> Vec<f64> {
    let mut x = x0.map_or_else(|| vec![0.0; d], <[f64]>::to_vec);
    domain.project(&mut x);
    x
}

/// What a run on a [`GradientOracle`] checks before any randomness, and where it starts: the
/// sizes (n, p) of `oracle`, the run's settings checked against them by `check_settings`, and
/// w₀ (`w0`, default 0) checked by the oracle. Returns `(n, p, w₀)`.
///
/// # Errors
/// The first error of `check_settings` or [`GradientOracle::validate`].
pub(crate) fn oracle_start(
    oracle: &impl GradientOracle,
    w0: Option<&[f64]>,
    check_settings: impl FnOnce(usize, usize) -> Result<()>,
) -> Result<(usize, usize, Vec<f64>)> {
    let (n, p) = (oracle.num_records(), oracle.num_params());
    check_settings(n, p)?;
    let w0 = w0.map_or_else(|| vec![0.0; p], <[f64]>::to_vec);
    oracle.validate(&w0)?;
    Ok((n, p, w0))
}
