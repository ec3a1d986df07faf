//! The minibatch DP optimisers the \[ZCHWB\] experiments trained with (pyvacy on PyTorch;
//! \[ZCHWB\] Sec. 6, proofs/dpagd/minibatch.md) and the DP² paper uses as baselines: privatise the minibatch gradient as DP-SGD does,
//! then apply a PyTorch-style update (SGD, RMSprop, AdaGrad, Adam with bias correction; no λ).
//! Not analysed by either paper: Algorithm 1 ([`super::algorithm1`]) is the analysed reading.
//!
//! Input: dataset, a [`Model`], [`MinibatchConfig`]. Output: [`Run`] (`x` = last iterate by default).
//! ```text
//! 1: w_0 (default 0)
//! 2: for t = 0 .. T−1:
//! 3:   S_t ← Poisson sample with rate q = b/n          (pyvacy: skips empty batches; here not)
//! 4:   ḡ_i = clip_C(∇ℓ(w_t, z_i)), i ∈ S_t              (Abadi's min(1, C/‖g‖); pyvacy adds 1e-6)
//! 5:   g̃_t = (Σ_i ḡ_i + N(0, σ²C² I)) / b             (b: the public expected batch size)
//! 6:   w_{t+1} = update(w_t, g̃_t; η_t)                 (PyTorch SGD / RMSprop / Adagrad / Adam)
//! 7: return w_T and the privacy events
//! ```
//! η_t = η · γ^{⌊t/k⌋} with an optional step decay (the paper: γ = 0.1 every 30 epochs).
//! # Privacy
//! As DP-SGD: one `PoissonSampled(q, Gaussian(σ/f))` per step (f = 1 add/remove, 2 replace-one);
//! line 6 is post-processing.
//! # Proof
//! Proof: proofs/dpagd/minibatch.md.

use crate::data::Dataset;
use crate::error::{Error, Result, check};
use crate::model::{ClippedSum, GradientOracle, Model, OnData};
use crate::optim::private_step::oracle_start;
use crate::optim::{NoiseShape, Observer, OutputPoint, PrivateRelease, Run, RunSettings, TraceEvent};
use crate::rng::Seeds;
use serde::Serialize;

/// The update applied to the privatised gradient g (PyTorch's formulas and defaults).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub enum Update {
    /// `w ← w − η g` (DP-SGD).
    Sgd,
    /// torch.optim.RMSprop: `v ← α v + (1 − α) g²`, `w ← w − η g/(√v + eps)` (α = 0.99, eps = 1e-8).
    RmsProp {
        /// α (PyTorch's name for the decay β2).
        alpha: f64,
        /// eps.
        eps: f64,
    },
    /// torch.optim.Adagrad: `s ← s + g²`, `w ← w − η g/(√s + eps)` (eps = 1e-10).
    AdaGrad {
        /// eps.
        eps: f64,
    },
    /// torch.optim.Adam: `m ← β1 m + (1 − β1) g`, `v ← β2 v + (1 − β2) g²`, then with bias
    /// correction `w ← w − (η/(1 − β1^t)) m/(√v/√(1 − β2^t) + eps)` (β = (0.9, 0.999), eps = 1e-8).
    Adam {
        /// β1 ∈ [0, 1).
        beta1: f64,
        /// β2 ∈ [0, 1).
        beta2: f64,
        /// eps.
        eps: f64,
        /// Divide by 1 − β^t (PyTorch: always).
        bias_correction: bool,
    },
}

impl Update {
    /// The CLI / report name of the private optimiser.
    pub fn name(self) -> &'static str {
        match self {
            Update::Sgd => "dp-sgd",
            Update::RmsProp { .. } => "dp-rmsprop",
            Update::AdaGrad { .. } => "dp-adagrad",
            Update::Adam { .. } => "dp-adam",
        }
    }

    /// PyTorch's defaults.
    pub fn rmsprop() -> Self {
        Update::RmsProp { alpha: 0.99, eps: 1e-8 }
    }

    /// PyTorch's defaults.
    pub fn adagrad() -> Self {
        Update::AdaGrad { eps: 1e-10 }
    }

    /// PyTorch's defaults.
    pub fn adam() -> Self {
        Update::Adam { beta1: 0.9, beta2: 0.999, eps: 1e-8, bias_correction: true }
    }

    fn validate(self) -> Result<()> {
        match self {
            Update::Sgd => Ok(()),
            Update::RmsProp { alpha, eps } => {
                check_decay("alpha", alpha)?;
                check::non_negative("eps", eps).map(|_| ())
            }
            Update::AdaGrad { eps } => check::non_negative("eps", eps).map(|_| ()),
            Update::Adam { beta1, beta2, eps, .. } => {
                check_decay("beta1", beta1)?;
                check_decay("beta2", beta2)?;
                check::non_negative("eps", eps).map(|_| ())
            }
        }
    }
}

fn check_decay(name: &'static str, beta: f64) -> Result<()> {
    if (0.0..1.0).contains(&beta) { Ok(()) } else { Err(Error::invalid(name, beta, "in [0, 1)")) }
}

/// The optimiser state of [`Update`]: first and second moments and the step count.
#[derive(Debug, Clone, PartialEq)]
pub struct UpdateState {
    m: Vec<f64>,
    v: Vec<f64>,
    t: i32,
}

impl UpdateState {
    /// Zero moments, step count 0.
    pub fn new(p: usize) -> Self {
        UpdateState { m: vec![0.0; p], v: vec![0.0; p], t: 0 }
    }

    /// One PyTorch-style step with learning rate `eta`: `w ← update(w, g)` in place.
    pub fn apply(&mut self, update: Update, eta: f64, g: &[f64], w: &mut [f64]) {
        self.t = self.t.saturating_add(1);
        match update {
            Update::Sgd => {
                for (wi, gi) in w.iter_mut().zip(g) {
                    *wi -= eta * gi;
                }
            }
            Update::RmsProp { alpha, eps } => {
                for i in 0..w.len() {
                    self.v[i] = alpha * self.v[i] + (1.0 - alpha) * g[i] * g[i];
                    w[i] -= eta * g[i] / (self.v[i].sqrt() + eps);
                }
            }
            Update::AdaGrad { eps } => {
                for i in 0..w.len() {
                    self.v[i] += g[i] * g[i];
                    w[i] -= eta * g[i] / (self.v[i].sqrt() + eps);
                }
            }
            Update::Adam { beta1, beta2, eps, bias_correction } => {
                let (bc1, bc2) =
                    if bias_correction { (1.0 - beta1.powi(self.t), 1.0 - beta2.powi(self.t)) } else { (1.0, 1.0) };
                let (step, bc2_sqrt) = (eta / bc1, bc2.sqrt());
                for i in 0..w.len() {
                    self.m[i] = beta1 * self.m[i] + (1.0 - beta1) * g[i];
                    self.v[i] = beta2 * self.v[i] + (1.0 - beta2) * g[i] * g[i];
                    w[i] -= step * self.m[i] / (self.v[i].sqrt() / bc2_sqrt + eps);
                }
            }
        }
    }
}

/// Settings of the minibatch optimisers; field names end in the symbols of the module doc.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MinibatchConfig {
    /// The update rule.
    pub update: Update,
    /// η > 0.
    pub learning_rate_eta: f64,
    /// `(k, γ)`: multiply η by γ ∈ (0, 1] every k steps (none by default).
    pub step_decay: Option<(u64, f64)>,
    /// C: per-example l2 clip (∞: no clipping, no privacy claim).
    pub clip_c: f64,
    /// T, the sampler (Poisson by default), σ or the (ε, δ) it is calibrated to, the neighbouring
    /// relation, the normaliser b and w_0 (default 0).
    #[serde(flatten)]
    pub settings: RunSettings,
    /// Which point is returned (last by default, as in training).
    pub output: OutputPoint,
}

impl MinibatchConfig {
    /// The optimiser `update` with `settings` ([`RunSettings::poisson`]: T steps, Poisson sampling
    /// with rate q, add/remove), no decay, last iterate.
    ///
    /// # Errors
    /// `InvalidParameter` for an invalid update rule, T = 0, η ≤ 0, C ≤ 0 or NaN, invalid settings,
    /// or C = ∞ with a target (as [`MinibatchConfig::validate_settings`]).
    pub fn new(update: Update, learning_rate_eta: f64, clip_c: f64, settings: RunSettings) -> Result<Self> {
        crate::optim::checked(
            MinibatchConfig {
                update,
                learning_rate_eta,
                step_decay: None,
                clip_c,
                settings,
                output: OutputPoint::Last,
            },
            MinibatchConfig::validate_settings,
        )
    }

    /// Multiplies η by γ ∈ (0, 1] every k ≥ 1 steps.
    ///
    /// # Errors
    /// `InvalidParameter` for k = 0 or γ ∉ (0, 1].
    pub fn with_step_decay(mut self, every_k: u64, gamma: f64) -> Result<Self> {
        self.step_decay = Some((every_k, gamma));
        self.validate_settings()?;
        Ok(self)
    }

    /// Runs the minibatch optimiser with these settings, without a trace ([`dp_minibatch`] takes
    /// an observer).
    ///
    /// # Errors
    /// As [`dp_minibatch`].
    pub fn run(&self, data: &Dataset, model: &impl Model, seeds: Seeds) -> Result<Run> {
        dp_minibatch(data, model, self, seeds, &mut crate::optim::NoTrace)
    }

    /// Checks every setting that does not need the data (the fields are public, so a run checks
    /// them again, with the data, before any randomness is drawn).
    ///
    /// # Errors
    /// `InvalidParameter` naming the first invalid setting.
    pub fn validate_settings(&self) -> Result<()> {
        self.update.validate()?;
        check::positive("learning rate", self.learning_rate_eta)?;
        if let Some((every, gamma)) = self.step_decay {
            check::count("decay period", every)?;
            if !(gamma > 0.0 && gamma <= 1.0) {
                return Err(Error::invalid("decay factor", gamma, "in (0, 1]"));
            }
        }
        self.settings.validate_with_clip("clip", self.clip_c)
    }

    fn validate(&self, n: usize, p: usize) -> Result<()> {
        self.validate_settings()?;
        self.settings.validate_on(n, p)
    }
}

/// Runs a minibatch DP optimiser (see the module doc) with `model` on `data`.
///
/// # Errors
/// `InvalidParameter` for invalid settings or data (before any randomness); `Unsupported` for a
/// sampler, relation or normaliser no accountant covers when a privacy claim is made.
pub fn dp_minibatch(
    data: &Dataset,
    model: &impl Model,
    config: &MinibatchConfig,
    seeds: Seeds,
    observer: &mut impl Observer,
) -> Result<Run> {
    dp_minibatch_on(&OnData { model, data }, config, seeds, observer)
}

/// [`dp_minibatch`] on any [`GradientOracle`] (e.g. a sparse GLM, whose steps cost the batch's
/// non-zeros plus O(p)).
///
/// # Errors
/// As [`dp_minibatch`].
#[allow(non_snake_case)]
pub fn dp_minibatch_on(
    oracle: &impl GradientOracle,
    config: &MinibatchConfig,
    seeds: Seeds,
    observer: &mut impl Observer,
) -> Result<Run> {
    let (n, p, w0) = oracle_start(oracle, config.settings.x0.as_deref(), |n, p| config.validate(n, p))?;
    let T = config.settings.steps_t;
    let C = config.clip_c;
    let mut release = PrivateRelease::new(config.settings.release_plan(n, C.is_finite()), seeds)?;
    let mut avg = crate::optim::Averager::new(p);
    let mut state = UpdateState::new(p);
    // Line 1: w_0
    let mut w = w0;
    let (mut batch, mut g, mut w_next) = (Vec::new(), vec![0.0; p], vec![0.0; p]);
    for t in 0..T {
        observer.observe(TraceEvent::Iterate { step: t, x: &w });
        // Line 3: S_t <- Poisson sample with rate q
        release.sample(&mut batch);
        // Line 4: clip_C(grad l(w_t, z_i)) for i in S_t, summed
        oracle.preconditioned_clipped_sum(&w, ClippedSum::new(&batch, C), &mut g);
        // Line 5: g_tilde = (sum + N(0, sigma^2 C^2 I)) / b (and its privacy event)
        release.release(&mut g, NoiseShape::Isotropic { clip: C })?;
        observer.observe(TraceEvent::NoisyGradient { step: t, g_hat: &g });
        // Line 6: w_{t+1} = update(w_t, g_tilde; eta_t)
        let eta = match config.step_decay {
            Some((every, gamma)) => config.learning_rate_eta * gamma.powi(i32::try_from(t / every).unwrap_or(i32::MAX)),
            None => config.learning_rate_eta,
        };
        w_next.copy_from_slice(&w);
        state.apply(config.update, eta, &g, &mut w_next);
        avg.add(&w, &w_next);
        std::mem::swap(&mut w, &mut w_next);
    }
    // Line 7: the output and the privacy of the executed events
    Ok(Run::new(avg.output(config.output, &w), w, T, release.finish()?))
}
