//! DP²-RMSProp — \[LZLRMS\] Algorithm 1, with the one-line variants of Appendix D (DP²-AdaGrad,
//! DP²-Yogi; [`Preconditioner`]), the non-private delayed-preconditioner method (σ = 0, C = ∞)
//! and ablation variant 2 ([`NoiseOrder::NoiseFirst`]).
//!
//! Input: a [`GradientOracle`] (model and private data), [`Dp2Config`]. Output: [`Run`] with
//! `x = w^T` and the counts of data queries (`releases`) and preconditioner updates. Steps are 0-indexed, `φ(t) = t mod (s1 + s2)`; SGD phase `φ < s1`, adaptive phase
//! `φ ≥ s1` (P1).
//! ```text
//!  1: for t = 0, ..., T−1:
//!  2:   if φ(t) = 0:  G ← 0                                   (a cycle starts: SGD phase)
//!  4:   if φ(t) = s1: v ← β v + (1 − β)(G/s1)²                (line 5: the preconditioner rule)
//!  6:                 G ← 0
//!  7:   sample a mini-batch B (Poisson, rate q = b/n; the paper prints fixed-size, see below)
//!  8:   g^{i,t} ← ∇f(x^i; w^t), i ∈ B
//!  9:   D^t ← 1 (SGD phase) or √v + ε (adaptive phase)
//!       g̃^t ← (1/b)(Σ_{i∈B} clip(g^{i,t}/D^t, C_phase) + N(0, σ² C_phase² I))   (noise not divided by D)
//!       variant 2, adaptive phase: g̃^t ← (1/b)(Σ clip(g^{i,t}, C1) + N(0, σ² C1² I)) / D^t
//! 10:   G ← G + g̃^t
//! 11:   w^{t+1} ← w^t − α_phase g̃^t
//! 12: return w^T
//! ```
//! Two clips (C1, C2) and two learning rates (α1, α2), as in the experiments (erratum 9).
//! Line 10 also accumulates adaptive-step releases, which line 2 discards before any use, so v
//! depends on SGD-phase releases only (P3).
//! # Privacy
//! Line 9 is the only data access: one subsampled Gaussian per step with noise multiplier σ
//! (noise σ·C for a sum of sensitivity C, whatever the phase), so T steps cost exactly DP-SGD's
//! ε for the same (q, σ, T), independent of s1, s2, β, ε, the clips and the learning rates (P14).
//! D^t and v are post-processing of earlier releases ([`super::replay_preconditioners`]).
//! Sampling is Poisson normalised by the public b, as the accountant assumes (\[LZLRMS\] erratum 10,
//! proofs/dp2/variants.md §5.1).
//! # Proof
//! Proof: proofs/dp2/dp2.md.

use super::{Preconditioner, preconditioner_diagonal};
use crate::error::{Error, Result, check};
use crate::model::{ClippedSum, GradientOracle};
use crate::optim::private_step::oracle_start;
use crate::optim::{NoiseShape, Observer, PrivateRelease, Run, RunSettings, TraceEvent};
use crate::rng::Seeds;
use serde::Serialize;

/// Where the noise goes relative to the preconditioner in adaptive steps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub enum NoiseOrder {
    /// DP²: precondition each per-example gradient, clip to C2, then add isotropic noise σC2.
    #[default]
    PreconditionFirst,
    /// Ablation variant 2: clip to C1 and noise as in DP-SGD, then divide by D (one clip C1
    /// for both phases, as in the paper's Table 3).
    NoiseFirst,
}

/// Settings of Algorithm 1; field names end in the paper's symbols.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Dp2Config {
    /// The preconditioner rule of line 5.
    pub preconditioner: Preconditioner,
    /// DP² or ablation variant 2.
    pub noise_order: NoiseOrder,
    /// s1 ≥ 1: SGD steps per cycle (their averaged releases update v).
    pub delay_sgd_s1: u64,
    /// s2 ≥ 1: adaptive steps per cycle.
    pub delay_adaptive_s2: u64,
    /// α1 > 0: learning rate of SGD steps.
    pub learning_rate_sgd_alpha1: f64,
    /// α2 > 0: learning rate of adaptive steps.
    pub learning_rate_adaptive_alpha2: f64,
    /// C1: clip of SGD steps (∞: none, no privacy claim).
    pub clip_sgd_c1: f64,
    /// C2: clip of the preconditioned gradients in adaptive steps (∞: none).
    pub clip_adaptive_c2: f64,
    /// ε > 0 of `D = √v + ε` (the adaptivity constant, not a privacy parameter).
    pub eps_adapt: f64,
    /// T, the sampler (Poisson by default), σ or the (ε, δ) it is calibrated to, the neighbouring
    /// relation, the normaliser b and w^0 (default 0).
    #[serde(flatten)]
    pub settings: RunSettings,
}

impl Dp2Config {
    /// DP² with `preconditioner` and `settings` ([`RunSettings::poisson`]: T steps, Poisson rate q,
    /// add/remove), ε = 1e-7 (the authors' code).
    ///
    /// # Errors
    /// `InvalidParameter` for an invalid preconditioner, T, s1 or s2 = 0, α ≤ 0, a clip ≤ 0 or
    /// NaN, invalid settings, or an unclipped phase with a target (as
    /// [`Dp2Config::validate_settings`]).
    pub fn new(
        preconditioner: Preconditioner,
        delays: (u64, u64),
        learning_rates: (f64, f64),
        clips: (f64, f64),
        settings: RunSettings,
    ) -> Result<Self> {
        crate::optim::checked(
            Dp2Config {
                preconditioner,
                noise_order: NoiseOrder::PreconditionFirst,
                delay_sgd_s1: delays.0,
                delay_adaptive_s2: delays.1,
                learning_rate_sgd_alpha1: learning_rates.0,
                learning_rate_adaptive_alpha2: learning_rates.1,
                clip_sgd_c1: clips.0,
                clip_adaptive_c2: clips.1,
                eps_adapt: 1e-7,
                settings,
            },
            Dp2Config::validate_settings,
        )
    }

    /// Selects DP² or ablation variant 2 (which clips both phases at C1).
    ///
    /// # Errors
    /// `InvalidParameter` if the phase clips no longer support the privacy request.
    pub fn with_noise_order(mut self, noise_order: NoiseOrder) -> Result<Self> {
        self.noise_order = noise_order;
        self.validate_settings()?;
        Ok(self)
    }

    /// Whether the adaptive phase's clip is C2 (DP²) or C1 (variant 2).
    pub(crate) fn adaptive_clip(&self) -> f64 {
        match self.noise_order {
            NoiseOrder::PreconditionFirst => self.clip_adaptive_c2,
            NoiseOrder::NoiseFirst => self.clip_sgd_c1,
        }
    }

    /// Runs DP² (Algorithm 1) with these settings, without a trace ([`dp2()`] takes an observer).
    ///
    /// # Errors
    /// As [`dp2()`].
    pub fn run(&self, oracle: &impl GradientOracle, seeds: Seeds) -> Result<Run> {
        dp2(oracle, self, seeds, &mut crate::optim::NoTrace)
    }

    /// Runs ablation variant 1 (the extra query, \[LZLRMS\] Alg. 2) with these settings, without a
    /// trace.
    ///
    /// # Errors
    /// As [`super::extra_query::dp2_extra_query`].
    pub fn run_extra_query(&self, oracle: &impl GradientOracle, seeds: Seeds) -> Result<Run> {
        super::extra_query::dp2_extra_query(oracle, self, seeds, &mut crate::optim::NoTrace)
    }

    /// The run's [`PrivateRelease`]: one noise multiplier σ for both phases (noise σ·C on a sum
    /// of sensitivity C), calibrated on `run_event` if given (variant 1's mix of single and joint
    /// releases), else on T subsampled releases.
    ///
    /// # Errors
    /// As [`PrivateRelease::new`].
    pub(crate) fn private_release(
        &self,
        n: usize,
        seeds: Seeds,
        run_event: Option<&dyn Fn(f64) -> Result<crate::accounting::DpEvent>>,
    ) -> Result<PrivateRelease> {
        let clipped = self.clip_sgd_c1.is_finite() && self.adaptive_clip().is_finite();
        let plan = self.settings.release_plan(n, clipped);
        match run_event {
            Some(event) => PrivateRelease::calibrated_on(plan, seeds, event),
            None => PrivateRelease::new(plan, seeds),
        }
    }

    /// Checks every setting that does not need the data (the fields are public, so a run checks
    /// them again, with the data, before any randomness is drawn).
    ///
    /// # Errors
    /// `InvalidParameter` naming the first invalid setting.
    pub fn validate_settings(&self) -> Result<()> {
        self.preconditioner.validate()?;
        check::count("delay s1", self.delay_sgd_s1)?;
        check::count("delay s2", self.delay_adaptive_s2)?;
        check::positive("learning rate alpha1", self.learning_rate_sgd_alpha1)?;
        check::positive("learning rate alpha2", self.learning_rate_adaptive_alpha2)?;
        check::positive("eps_adapt", self.eps_adapt)?;
        for (name, c) in [("clip C1", self.clip_sgd_c1), ("clip C2", self.clip_adaptive_c2)] {
            if c.is_nan() || c <= 0.0 {
                return Err(Error::invalid(name, c, "> 0 (or infinite for no clipping)"));
            }
        }
        // A privacy claim needs both phases clipped: the weaker clip is what bounds the run.
        let weaker_clip = self.clip_sgd_c1.max(self.adaptive_clip());
        self.settings.validate_with_clip("clip", weaker_clip)
    }

    pub(crate) fn validate(&self, n: usize, p: usize) -> Result<()> {
        self.validate_settings()?;
        self.settings.validate_on(n, p)
    }
}

/// Runs Algorithm 1 (see the module doc).
///
/// # Errors
/// `InvalidParameter` for invalid settings or data (before any randomness); `Unsupported` for a
/// sampler, relation or normaliser no accountant covers when a privacy claim is made.
#[allow(non_snake_case)]
pub fn dp2(
    oracle: &impl GradientOracle,
    config: &Dp2Config,
    seeds: Seeds,
    observer: &mut impl Observer,
) -> Result<Run> {
    let (n, p, w0) = oracle_start(oracle, config.settings.x0.as_deref(), |n, p| config.validate(n, p))?;
    let (T, s1, s2) = (config.settings.steps_t, config.delay_sgd_s1, config.delay_adaptive_s2);
    let (C1, C_adaptive) = (config.clip_sgd_c1, config.adaptive_clip());
    let mut release = config.private_release(n, seeds, None)?;
    let (mut v, mut acc, mut d, mut g) = (vec![0.0; p], vec![0.0; p], vec![1.0; p], vec![0.0; p]);
    let mut batch = Vec::new();
    let mut preconditioner_updates = 0u64;
    let mut w = w0;
    // Alg. 1, line 1: for t = 0, ..., T-1
    for t in 0..T {
        observer.observe(TraceEvent::Iterate { step: t, x: &w });
        let phase = t % (s1 + s2);
        // Alg. 1, line 2: at a cycle's start, G <- 0
        if phase == 0 {
            acc.iter_mut().for_each(|a| *a = 0.0);
        }
        // Alg. 1, line 4: after the SGD phase, v <- update(v, G/s1) (line 5's rule)
        if phase == s1 {
            let g_bar: Vec<f64> = acc.iter().map(|a| a / s1 as f64).collect();
            config.preconditioner.update(&mut v, &g_bar);
            preconditioner_updates += 1;
            // D = sqrt(v) + eps is frozen until the next update (line 9 reads it)
            preconditioner_diagonal(&v, config.eps_adapt, &mut d);
            // Alg. 1, line 6: G <- 0
            acc.iter_mut().for_each(|a| *a = 0.0);
        }
        // Alg. 1, line 7: sample a mini-batch B
        release.sample(&mut batch);
        // Alg. 1, line 9: D^t = 1 or sqrt(v) + eps; g_tilde = (sum clip(g_i / D, C) + N(0, sigma^2 C^2 I)) / b
        // (line 8, the per-example gradients, happens inside the oracle)
        let lr = if phase < s1 {
            oracle.preconditioned_clipped_sum(&w, ClippedSum::new(&batch, C1), &mut g);
            release.release(&mut g, NoiseShape::Isotropic { clip: C1 })?;
            config.learning_rate_sgd_alpha1
        } else {
            observer.observe(TraceEvent::Preconditioner { step: t, d: &d });
            match config.noise_order {
                NoiseOrder::PreconditionFirst => {
                    oracle.preconditioned_clipped_sum(
                        &w,
                        ClippedSum::new(&batch, C_adaptive).preconditioned(&d),
                        &mut g,
                    );
                    release.release(&mut g, NoiseShape::Isotropic { clip: C_adaptive })?;
                }
                NoiseOrder::NoiseFirst => {
                    oracle.preconditioned_clipped_sum(&w, ClippedSum::new(&batch, C_adaptive), &mut g);
                    release.release(&mut g, NoiseShape::Isotropic { clip: C_adaptive })?;
                    for (gj, dj) in g.iter_mut().zip(&d) {
                        *gj /= dj;
                    }
                }
            }
            config.learning_rate_adaptive_alpha2
        };
        observer.observe(TraceEvent::NoisyGradient { step: t, g_hat: &g });
        // Alg. 1, line 10: G <- G + g_tilde
        crate::linalg::axpy(1.0, &g, &mut acc);
        // Alg. 1, line 11: w^{t+1} = w^t - alpha_phase g_tilde
        crate::linalg::axpy(-lr, &g, &mut w);
    }
    // Alg. 1, line 12: return w^T and the privacy of the executed events
    let mut run = Run::new(w.clone(), w, T, release.finish()?);
    run.preconditioner_updates = preconditioner_updates;
    Ok(run)
}
