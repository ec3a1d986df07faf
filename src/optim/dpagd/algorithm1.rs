//! DPAGD — \[ZCHWB\] Algorithm 1 (the generic full-batch algorithm all the theorems analyse), with
//! its instances DP-GD, DP-RMSProp and DP-Adam ([`Moments`]).
//!
//! Input: dataset S (n records), a [`Model`], [`Algorithm1Config`]. Output: [`Run`] with `x = w_R`.
//! Index convention (erratum Z5, proofs/dpagd/dp_gd.md §5): `w_1` is the initial point, iterations t = 1..T, exactly
//! T noisy releases, `R ~ Unif{1..T}` drawn before the run and independent of the data.
//! ```text
//! 1: Input: S, ℓ, w_1, {φ_t, ψ_t}
//! 2: Set: σ, T, η, ν, λ
//! 3: for t = 1, ..., T:                                  (printed: t = 0..T, i.e. T + 1 releases)
//! 4:   g̃_t = (1/n) Σ_{z∈S} clip_G(∇ℓ(w_t, z)) + b_t,  b_t ~ N(0, σ² I_p)
//!                                                        (clip at G: a no-op under Assumption 1)
//! 5:   m_t = φ_t(g̃_1..g̃_t);  v_t = min(ψ_t(g̃_1..g̃_t), λ)   (cap on the value, not the state)
//! 6:   w_{t+1} = w_t − η m_t ⊘ (√v_t + ν)
//! 7: end for; output w_R                                 (the output rule of Thms 3–6)
//! ```
//! # Privacy
//! Line 4 is a Gaussian mechanism on the mean of per-example gradients of norm ≤ G: ℓ2-sensitivity
//! `G/n` (add/remove, n the public normaliser) or `2G/n` (replace-one), so one full-batch
//! `Gaussian(σ n/(f G))` event per step, f = 1 or 2 (the event of a noise multiplier `σn/G` on the
//! sum). Lines 5–7 are post-processing; R is data-independent. T releases compose adaptively.
//! # Proof
//! Proof: proofs/dpagd/dp_gd.md, proofs/dpagd/dp_rmsprop.md, proofs/dpagd/dp_adam.md.

use super::{MomentState, Moments};
use crate::data::Dataset;
use crate::error::{Error, Result, check};
use crate::model::Model;
use crate::optim::{
    NoiseForm, NoiseShape, Observer, Privacy, PrivateRelease, ReleasePlan, Run, RunSettings, TraceEvent,
};
use crate::rng::{Seeds, Stream};
use crate::sampling::BatchSampler;
use rand::RngExt;
use serde::Serialize;

/// The tag of the stream R is drawn from: its own, so that R is independent of the noise and of
/// anything a caller draws from the usual streams of the same seeds (e.g. `w_1` from `Init`).
pub const OUTPUT_INDEX_STREAM_TAG: u64 = 0x5a43_4857_4252; // "ZCHWBR"

/// Which point Algorithm 1 returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub enum Algorithm1Output {
    /// `w_R`, `R ~ Unif{1..T}` (the theorems' output; default).
    #[default]
    RandomIterate,
    /// `w_{T+1}` (never analysed; what a user might deploy).
    Last,
}

/// Settings of Algorithm 1; field names end in the paper's symbols.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Algorithm1Config {
    /// φ, ψ: DP-GD, DP-RMSProp or DP-Adam.
    pub moments: Moments,
    /// η > 0 (constant, as in Thms 3–6).
    pub step_size_eta: f64,
    /// ν ≥ 0, added outside the square root (0 for DP-GD).
    pub nu: f64,
    /// λ > 0: the cap on the second moment's value (1 for DP-GD; ∞: no cap).
    pub lambda: f64,
    /// G > 0: the per-example gradient bound (Assumption 1), enforced by clipping; ∞ only for a
    /// run without noise events.
    pub gradient_bound_g: f64,
    /// T ≥ 1 noisy releases; the full batch ([`RunSettings::full_batch`], the only sampler of
    /// line 4); the noise of line 4 (`privacy`): the paper's σ, an absolute std on the mean
    /// gradient ([`Privacy::StdOnMean`]), or a noise multiplier `s` on the clipped sum (std `s·G/n`
    /// on the mean), or the (ε, δ) it is calibrated to; the relation of the claim (the paper's
    /// Definition 1 is replace-one); n, the public normaliser of the gradient mean
    /// (`batch_size_b`; `None`: `|S|`, refused for private add/remove runs, where `|S|` is
    /// private, proofs/dp_sgd.md §5 D1); and w_1 (`x0`, default 0).
    #[serde(flatten)]
    pub settings: RunSettings,
    /// The output rule.
    pub output: Algorithm1Output,
}

impl Algorithm1Config {
    /// The settings of `moments` with η, G and `settings` ([`RunSettings::full_batch`]: T steps on
    /// the full batch with the noise of line 4, replace-one, the paper's relation); ν = 0, λ = 1
    /// for DP-GD, and ν = 1e-8, λ = ∞ otherwise; output `w_R`.
    ///
    /// # Errors
    /// `InvalidParameter` for T = 0, η ≤ 0, G ≤ 0 or NaN, an invalid noise request, or G = ∞ with
    /// a privacy target (as [`Algorithm1Config::validate_settings`]).
    pub fn new(moments: Moments, step_size_eta: f64, gradient_bound_g: f64, settings: RunSettings) -> Result<Self> {
        let (nu, lambda) = match moments {
            Moments::Gd => (0.0, 1.0),
            _ => (1e-8, f64::INFINITY),
        };
        crate::optim::checked(
            Algorithm1Config {
                moments,
                step_size_eta,
                nu,
                lambda,
                gradient_bound_g,
                settings,
                output: Algorithm1Output::RandomIterate,
            },
            Algorithm1Config::validate_settings,
        )
    }

    /// Sets ν ≥ 0 and λ > 0 of line 5 (checked against the moments rule).
    ///
    /// # Errors
    /// `InvalidParameter` for values the moments rule refuses.
    pub fn with_nu_lambda(mut self, nu: f64, lambda: f64) -> Result<Self> {
        self.moments.validate(nu, lambda)?;
        (self.nu, self.lambda) = (nu, lambda);
        Ok(self)
    }

    /// Runs Algorithm 1 with these settings, without a trace ([`dpagd`] takes an observer).
    ///
    /// # Errors
    /// As [`dpagd`].
    pub fn run(&self, data: &Dataset, model: &impl Model, seeds: Seeds) -> Result<Run> {
        dpagd(data, model, self, seeds, &mut crate::optim::NoTrace)
    }

    /// Checks every setting that does not need the data (the fields are public, so a run checks
    /// them again, with the data, before any randomness is drawn).
    ///
    /// # Errors
    /// `InvalidParameter` naming the first invalid setting.
    pub fn validate_settings(&self) -> Result<()> {
        self.moments.validate(self.nu, self.lambda)?;
        check::positive("step size eta", self.step_size_eta)?;
        let g = self.gradient_bound_g;
        if g.is_nan() || g <= 0.0 {
            return Err(Error::invalid("gradient bound G", g, "> 0 (infinite: no clipping, no privacy claim)"));
        }
        self.settings.validate()?;
        if self.settings.sampler != BatchSampler::Full {
            return Err(Error::invalid("sampler", "a subsample", "the full batch (line 4 sums over all of S)"));
        }
        if g.is_infinite() && matches!(self.settings.privacy, Privacy::Target { .. }) {
            return Err(Error::invalid("gradient bound G", "none", "finite when a privacy target is given"));
        }
        Ok(())
    }

    fn validate(&self, p: usize) -> Result<()> {
        self.validate_settings()?;
        if let Some(w1) = &self.settings.x0 {
            crate::optim::check_start(w1, p)?;
        }
        Ok(())
    }
}

/// Runs Algorithm 1 (see the module doc) with the noise stream and the output index R drawn from
/// separate streams of `seeds`.
///
/// # Errors
/// `InvalidParameter` for invalid settings or data the model refuses (checked before any
/// randomness); `Unsupported` for a data-sized normaliser in a private add/remove run.
#[allow(non_snake_case)]
pub fn dpagd(
    data: &Dataset,
    model: &impl Model,
    config: &Algorithm1Config,
    seeds: Seeds,
    observer: &mut impl Observer,
) -> Result<Run> {
    let p = model.num_params();
    config.validate(p)?;
    let w1 = config.settings.x0.clone().unwrap_or_else(|| vec![0.0; p]);
    model.validate(&w1, data)?;
    let (n, T, G) = (data.n(), config.settings.steps_t, config.gradient_bound_g);
    // Alg. 1, line 2: sigma, an absolute std on the mean: one release is the event of a noise
    // multiplier s = sigma b / G on the sum of clipped gradients, b the public normaliser n.
    let plan = config.settings.release_plan(n, G.is_finite());
    let mut release =
        PrivateRelease::new(ReleasePlan { form: NoiseForm::StdOnMean { gradient_bound: G }, ..plan }, seeds)?;
    let mut output_rng = seeds.stream(Stream::Other(OUTPUT_INDEX_STREAM_TAG));
    // Line 7's R ~ Unif{1..T}, drawn first: it cannot depend on the data or the noise.
    let R = output_rng.random_range(1..=T);
    let mut batch = Vec::with_capacity(n);
    let mut state = MomentState::new(p);
    // Alg. 1, line 1: w_1 (default 0)
    let mut w = w1;
    let (mut g_tilde, mut w_next) = (vec![0.0; p], vec![0.0; p]);
    let mut w_R = w.clone();
    for t in 1..=T {
        observer.observe(TraceEvent::Iterate { step: t - 1, x: &w });
        if t == R {
            w_R.copy_from_slice(&w);
        }
        // Alg. 1, line 4: g_tilde_t = (1/n) sum_z clip_G(grad l(w_t, z)) + N(0, sigma^2 I) (the
        // full batch S, drawn as a batch; the noise N(0, (sigma n)^2 I) on the sum and its event)
        release.sample(&mut batch);
        model.clipped_gradient_sum(&w, data, &batch, G, &mut g_tilde);
        release.release(&mut g_tilde, NoiseShape::Isotropic { clip: G })?;
        observer.observe(TraceEvent::NoisyGradient { step: t - 1, g_hat: &g_tilde });
        // Alg. 1, line 5: m_t = phi_t(g_tilde_1..t); v_t = min(psi_t(g_tilde_1..t), lambda)
        // Alg. 1, line 6: w_{t+1} = w_t - eta m_t / (sqrt(v_t) + nu) (both in `MomentState::step`)
        state.step(config.moments, config.step_size_eta, config.nu, config.lambda, &w, &g_tilde, &mut w_next);
        std::mem::swap(&mut w, &mut w_next);
    }
    // Alg. 1, line 7: output w_R (or w_{T+1}) and the privacy of the executed events
    let x = match config.output {
        Algorithm1Output::RandomIterate => w_R,
        Algorithm1Output::Last => w.clone(),
    };
    Ok(Run::new(x, w, T, release.finish()?))
}
