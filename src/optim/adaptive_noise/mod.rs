//! \[ADFJT\] Asi, Duchi, Fallah, Javidi, Talwar, "Private Adaptive Gradient Methods for Convex
//! Optimization" (ICML 2021; arXiv version not recorded here): PASAN (Alg. 1), PAGAN (Alg. 2),
//! private second-moment estimation (Alg. 3), and the non-private templates biased SGD and biased
//! AdaGrad (Algs. 4, 5).
//!
//! Shared pieces, one implementation each: [`AdaptiveNoiseConfig`] (Algs. 1–2 share lines 1–6),
//! the privatised gradient (lines 3–6: `crate::optim::bounded_gradient_sum` with the ellipsoid
//! `A = C/B²`, then `noisy_mean` with noise `z·A^{−1/2}w` on the sum, divided by the public b), and the two update rules,
//! [`adagrad_norm_step`] (Alg. 1 lines 7–8, Alg. 4) and [`adagrad_diagonal_step`] (Alg. 2 lines
//! 7–8, Alg. 5).
//!
//! Corrections (errata E1–E21, proofs/adaptive_noise/pasan.md §5): the noise scale is
//! `s = √log(1/δ)/(bε)` on the mean (printed `√(log(1/δ)/(bε))`), here generalised to a noise
//! multiplier z on the sum calibrated by the accountant (`s = z/b`); Poisson sampling replaces the
//! printed sampling with replacement (which no accountant covers; still available); the output
//! average is over `k = 0..T−1` by default (printed `1..T`).

pub mod biased;
pub mod pagan;
pub mod pasan;
pub mod second_moment;

pub use biased::Template;
pub use second_moment::{MomentNoise, SecondMomentConfig, SecondMomentEstimate, private_second_moments};

use crate::data::Dataset;
use crate::error::{Error, Result, check};
use crate::geometry::{Domain, EllipsoidProjection};
use crate::loss::Loss;
use crate::optim::private_step::{PrivateGradientStep, start_point};
use crate::optim::{
    Averager, GradientBound, NoTrace, NoiseShape, Observer, OutputPoint, PrivateRelease, Run, RunSettings, TraceEvent,
};
use crate::rng::Seeds;
use serde::Serialize;

/// Settings of PASAN and PAGAN; field names end in the paper's symbols.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AdaptiveNoiseConfig {
    /// α: step scale (theory: D₂ for PASAN, D∞ for PAGAN).
    pub step_scale_alpha: f64,
    /// diag(C) ≻ 0: the ellipsoid shape, `A = C/B²`.
    pub ellipsoid_c: Vec<f64>,
    /// B > 0: the clip radius in `‖·‖_C` (∞: no clipping, non-private runs only).
    pub clip_radius_b: f64,
    /// Radial (default) or Euclidean projection onto the ellipsoid.
    pub projection: EllipsoidProjection,
    /// T, the sampler (Poisson by default; the paper's with-replacement draw has no accountant), z (noise
    /// multiplier on the sum in whitened coordinates) or the (ε, δ) it is calibrated to, the
    /// neighbouring relation, the normaliser b and x^0 (default 0 projected onto X).
    #[serde(flatten)]
    pub settings: RunSettings,
    /// X.
    pub domain: Domain,
    /// Which point is returned.
    pub output: OutputPoint,
    /// Reference or GLM fast path for the per-example gradients.
    pub engine: crate::optim::GradientEngine,
}

impl AdaptiveNoiseConfig {
    /// PASAN/PAGAN with `settings` ([`RunSettings::poisson`]: T steps, Poisson with rate q,
    /// add/remove), A = I/B² (isotropic), radial projection, unconstrained, average from 0.
    ///
    /// # Errors
    /// `InvalidParameter` for T = 0, α ≤ 0, B ≤ 0 or NaN, invalid settings, or B = ∞ with a
    /// privacy target (as [`AdaptiveNoiseConfig::validate_settings`]).
    pub fn new(d: usize, step_scale_alpha: f64, clip_radius_b: f64, settings: RunSettings) -> Result<Self> {
        crate::optim::checked(
            AdaptiveNoiseConfig {
                step_scale_alpha,
                ellipsoid_c: vec![1.0; d],
                clip_radius_b,
                projection: EllipsoidProjection::Radial,
                settings,
                domain: Domain::Unconstrained,
                output: OutputPoint::AverageFromZero,
                engine: crate::optim::GradientEngine::Reference,
            },
            AdaptiveNoiseConfig::validate_settings,
        )
    }

    /// Sets the ellipsoid shape diag(C) (entries > 0 and finite, with B: `A = C/B²` representable).
    ///
    /// # Errors
    /// `InvalidParameter` as [`AdaptiveNoiseConfig::validate_settings`], or for a dimension other
    /// than the current one.
    pub fn with_ellipsoid_c(mut self, ellipsoid_c: Vec<f64>) -> Result<Self> {
        if ellipsoid_c.len() != self.ellipsoid_c.len() {
            return Err(Error::invalid("ellipsoid C", ellipsoid_c.len(), "of the configured dimension d"));
        }
        self.ellipsoid_c = ellipsoid_c;
        self.validate_settings()?;
        Ok(self)
    }

    /// Runs PASAN (\[ADFJT\] Alg. 1) with these settings, without a trace
    /// ([`AdaptiveMethod::run`] takes an observer).
    ///
    /// # Errors
    /// As [`AdaptiveMethod::run`].
    pub fn run_pasan(&self, data: &crate::data::Dataset, loss: crate::loss::Loss, seeds: Seeds) -> Result<Run> {
        AdaptiveMethod::Pasan.run(data, loss, self, seeds, &mut NoTrace)
    }

    /// Runs PAGAN (\[ADFJT\] Alg. 2) with these settings, without a trace
    /// ([`AdaptiveMethod::run`] takes an observer).
    ///
    /// # Errors
    /// As [`AdaptiveMethod::run`].
    pub fn run_pagan(&self, data: &crate::data::Dataset, loss: crate::loss::Loss, seeds: Seeds) -> Result<Run> {
        AdaptiveMethod::Pagan.run(data, loss, self, seeds, &mut NoTrace)
    }

    /// Checks every setting that does not need the data (the fields are public, so a run checks
    /// them again, with the data, before any randomness is drawn).
    ///
    /// # Errors
    /// `InvalidParameter` naming the first invalid setting.
    pub fn validate_settings(&self) -> Result<()> {
        check::positive("step scale alpha", self.step_scale_alpha)?;
        for &c in &self.ellipsoid_c {
            check::positive("ellipsoid C entry", c)?;
        }
        self.settings.validate_with_clip("clip radius B", self.clip_radius_b)?;
        if self.clip_radius_b.is_finite() {
            // A = C/B² and the noise scale B/√C must be representable, or the projection and the
            // noise silently degenerate (A = 0: no clipping at all; A = ∞: everything clipped to 0).
            for (&a, &c) in self.ellipsoid_a().iter().zip(&self.ellipsoid_c) {
                if !(a.is_finite() && a > 0.0 && (self.clip_radius_b / c.sqrt()).is_finite()) {
                    return Err(Error::invalid(
                        "ellipsoid A = C/B^2 entry",
                        a,
                        "> 0 and finite (C/B^2 over/underflows)",
                    ));
                }
            }
        }
        Ok(())
    }

    pub(crate) fn validate(&self, n: usize, d: usize) -> Result<()> {
        if self.ellipsoid_c.len() != d {
            return Err(Error::invalid("ellipsoid C", self.ellipsoid_c.len(), "of the data's dimension"));
        }
        self.validate_settings()?;
        self.settings.validate_on(n, d)
    }

    /// `a = diag(A) = C/B²`.
    pub(crate) fn ellipsoid_a(&self) -> Vec<f64> {
        self.ellipsoid_c.iter().map(|c| c / (self.clip_radius_b * self.clip_radius_b)).collect()
    }

    /// Lines 3–6 of Algs. 1–2, set up once: a [`PrivateGradientStep`] over the run's
    /// [`PrivateRelease`] (batch draw, noise and events), with per-example projections onto
    /// `E_A`, `a = diag(A)`, `A = C/B²` (none without clipping), and noise of std
    /// `z·(A^{−1/2})ⱼⱼ = z·B/√Cⱼⱼ` on the sum.
    ///
    /// # Errors
    /// As [`PrivateRelease::new`].
    pub(crate) fn private_step<'a>(&'a self, n: usize, seeds: Seeds, a: &'a [f64]) -> Result<PrivateGradientStep<'a>> {
        let plan = self.settings.release_plan(n, self.clip_radius_b.is_finite());
        let release = PrivateRelease::new(plan, seeds)?;
        let bound = if self.clip_radius_b.is_finite() {
            GradientBound::Ellipsoid { a, kind: self.projection }
        } else {
            GradientBound::None
        };
        let noise = NoiseShape::Ellipsoid { clip_radius_b: self.clip_radius_b, ellipsoid_c: &self.ellipsoid_c };
        Ok(PrivateGradientStep::new(release, self.engine, bound, noise, a.len()))
    }
}

/// Which of \[ADFJT\]'s private adaptive methods a run is. PASAN (Alg. 1) and PAGAN (Alg. 2)
/// share lines 1–6 and 9 and differ only in the update of lines 7–8, so they are one loop and one
/// entry point, [`AdaptiveMethod::run`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum AdaptiveMethod {
    /// PASAN (module doc of [`pasan`]): the AdaGrad-norm update [`adagrad_norm_step`].
    Pasan,
    /// PAGAN (module doc of [`pagan`]): the diagonal AdaGrad update [`adagrad_diagonal_step`].
    Pagan,
}

impl AdaptiveMethod {
    /// Runs PASAN or PAGAN (module docs of [`pasan`] and [`pagan`]) with sampling and noise
    /// streams from `seeds`: lines 1–6 and 9, which the two algorithms share, around the update
    /// of lines 7–8.
    ///
    /// Proof: proofs/adaptive_noise/pasan.md and proofs/adaptive_noise/pagan.md (§2 line tables).
    ///
    /// # Errors
    /// `InvalidParameter` for invalid settings (checked before any randomness); `Unsupported` for
    /// a privacy target with a sampler or relation no accountant covers, or (PAGAN) a domain
    /// without an H-weighted projection.
    #[allow(non_snake_case)]
    pub fn run(
        self,
        data: &Dataset,
        loss: Loss,
        config: &AdaptiveNoiseConfig,
        seeds: Seeds,
        observer: &mut impl Observer,
    ) -> Result<Run> {
        let (n, d) = (data.n(), data.d());
        config.validate(n, d)?;
        if self == AdaptiveMethod::Pagan {
            // Line 8 of Alg. 2 needs the H-weighted projection onto X: refuse a domain without one
            // (l1 ball) now, before any randomness.
            config.domain.project_weighted(&mut vec![0.0; d], &vec![1.0; d])?;
        }
        loss.check_labels(data)?;
        let T = config.settings.steps_t;
        let a = config.ellipsoid_a();
        let mut step = config.private_step(n, seeds, &a)?;
        let mut avg = Averager::new(d);
        // Alg. 1, line 1 (Alg. 2 alike): x^0 in X
        let mut x = start_point(config.settings.x0.as_deref(), d, &config.domain);
        let mut x_next = vec![0.0; d];
        // The AdaGrad sums: S (a scalar, Alg. 1) or S_j (per coordinate, Alg. 2), and H (Alg. 2)
        let (mut sum_sq_norm, mut sum_sq, mut h) = (0.0, vec![0.0; d], vec![0.0; d]);
        for k in 0..T {
            observer.observe(TraceEvent::Iterate { step: k, x: &x });
            // Alg. 1, line 3 (Alg. 2 alike): draw the batch D_k
            // Alg. 1, line 4 (Alg. 2 alike): A_k = C/B^2 (fixed, `a`)
            // Alg. 1, line 5 (Alg. 2 alike): g_tilde = (1/b) sum_i pi_A(g^{k,i}) (the sum; divided by b with the noise)
            // Alg. 1, line 6 (Alg. 2 alike): g_hat = g_tilde + s xi, xi ~ N(0, A^-1), s = z/b (corrected): (sum + z A^-1/2 w)/b
            let g_hat = step.noisy_gradient(data, loss, &x)?;
            observer.observe(TraceEvent::NoisyGradient { step: k, g_hat });
            let alpha = config.step_scale_alpha;
            match self {
                // Alg. 1, line 7: alpha_k = alpha / sqrt(sum_{i<=k} |g_hat^i|^2)
                // Alg. 1, line 8: x^{k+1} = Pi_X(x^k - alpha_k g_hat^k) (both in `adagrad_norm_step`)
                AdaptiveMethod::Pasan => {
                    adagrad_norm_step(&x, g_hat, &mut sum_sq_norm, alpha, &config.domain, &mut x_next)
                }
                // Alg. 2, line 7: H_k = diag(sum_{i<=k} g_hat^i g_hat^i^T)^{1/2} / alpha
                // Alg. 2, line 8: x^{k+1} = argmin_{x in X} |x - (x^k - H_k^-1 g_hat^k)|_{H_k}
                AdaptiveMethod::Pagan => {
                    adagrad_diagonal_step(&x, g_hat, &mut sum_sq, alpha, &config.domain, &mut h, &mut x_next)?;
                }
            }
            avg.add(&x, &x_next);
            std::mem::swap(&mut x, &mut x_next);
        }
        // Alg. 1, line 9 (Alg. 2 alike): return the average (k = 0..T-1 by default, corrected)
        Ok(Run::new(avg.output(config.output, &x), x, T, step.finish()?))
    }
}

/// The noise multiplier of \[ADFJT\]'s printed calibration, corrected (erratum E1, proofs/adaptive_noise/pasan.md §5): on the
/// sum in whitened coordinates, `z = √log(1/δ)/ε` (std `z/b` on the mean). Not a certified
/// guarantee by itself (Lemma 3.1's constant c is unspecified): a run with it reports the ε the
/// accountant derives.
///
/// # Errors
/// `InvalidParameter` for ε ≤ 0 or δ ∉ (0, 1).
pub fn paper_noise_multiplier(epsilon: f64, delta: f64) -> Result<f64> {
    check::positive("epsilon", epsilon)?;
    check::open_unit("delta", delta)?;
    Ok((1.0 / delta).ln().sqrt() / epsilon)
}

/// AdaGrad-norm step (\[ADFJT\] Alg. 1 lines 7–8): `S ← S + ‖ĝ‖²`, `α_k = α/√S`,
/// `x_next = Π_X(x − α_k ĝ)`; with the convention 0/0 := 0 (no step while S = 0).
pub fn adagrad_norm_step(x: &[f64], g_hat: &[f64], sum_sq: &mut f64, alpha: f64, domain: &Domain, x_next: &mut [f64]) {
    *sum_sq += g_hat.iter().map(|g| g * g).sum::<f64>();
    let step = if *sum_sq > 0.0 { alpha / sum_sq.sqrt() } else { 0.0 };
    for ((xn, xk), g) in x_next.iter_mut().zip(x).zip(g_hat) {
        *xn = xk - step * g;
    }
    domain.project(x_next);
}

/// Diagonal AdaGrad step (\[ADFJT\] Alg. 2 lines 7–8): `Sⱼ ← Sⱼ + ĝⱼ²`, `Hⱼⱼ = √Sⱼ/α`,
/// `x_next = argmin_{y∈X} ‖y − (x − H⁻¹ĝ)‖_H`, with `(H⁻¹ĝ)ⱼ = αĝⱼ/√Sⱼ` evaluated as
/// `(α·ĝⱼ)/√Sⱼ` and 0/0 := 0.
///
/// # Errors
/// `Unsupported` for a domain without an H-weighted projection (l1 ball).
pub fn adagrad_diagonal_step(
    x: &[f64],
    g_hat: &[f64],
    sum_sq: &mut [f64],
    alpha: f64,
    domain: &Domain,
    h: &mut [f64],
    x_next: &mut [f64],
) -> Result<()> {
    for j in 0..x.len() {
        sum_sq[j] += g_hat[j] * g_hat[j];
        let root = sum_sq[j].sqrt();
        h[j] = root / alpha;
        let step = if root > 0.0 { alpha * g_hat[j] / root } else { 0.0 };
        x_next[j] = x[j] - step;
    }
    domain.project_weighted(x_next, h)
}
