//! [`RunSettings`]: the settings every private gradient run shares, one type with one validation,
//! embedded in each configuration that draws batches and releases noisy gradient sums
//! ([`super::DpSgdConfig`], [`super::AdaptiveNoiseConfig`], [`super::MinibatchConfig`],
//! [`super::Dp2Config`], [`super::Algorithm1Config`], [`super::l1::NoisyMirrorDescentConfig`],
//! [`super::l1::LpMirrorDescentConfig`]); each configuration's `new` takes its own parameters
//! and the settings.
//!
//! What is shared, and why these fields only: the number of steps T, the batch sampler, the
//! privacy request, the neighbouring relation of the claim and the declared public normaliser b
//! are exactly what the run's [`PrivateRelease`](super::PrivateRelease) needs besides the data
//! size and the clip (they become its [`ReleasePlan`]); the start point x⁰ is the other setting
//! every such run has. What differs between the algorithms stays in each configuration: the clip
//! (one C, an ellipsoid radius B, two phase clips, or a bound derived from L), the returned point
//! (an average by default for DP-SGD, \[ADFJT\] and \[AFKT\], the last iterate for the minibatch
//! optimisers and DP²), the domain and the gradient engine (DP-SGD and \[ADFJT\] only). The
//! relation is a setting, with the papers' defaults in the constructors: add/remove for
//! [`RunSettings::poisson`] (DP-SGD and its relatives), replace-one for
//! [`RunSettings::without_replacement`] (\[AFKT\]) and [`RunSettings::full_batch`] (\[ZCHWB\]
//! Algorithm 1, whose noise may be stated as a std on the mean). The Frank–Wolfe tree (pure ε-DP,
//! its batches fixed by the tree) keeps its own settings.
//!
//! The settings are checked once, here, when they are built ([`RunSettings::new`] and the
//! `with_*` builders return `Result`), and again by every run, with the data, before any
//! randomness is drawn (the fields are public). Configurations that serialise embed them with
//! `#[serde(flatten)]`, so their JSON keeps one flat object.

use super::release::ReleasePlan;
use super::{NoiseForm, Privacy, check_start};
use crate::accounting::Neighbouring;
use crate::error::{Error, Result, check};
use crate::sampling::BatchSampler;
use serde::Serialize;

/// The settings every private gradient run shares (see the module doc).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunSettings {
    /// T ≥ 1: the number of steps, each one batch and one noisy release.
    pub steps_t: u64,
    /// How batches are drawn.
    pub sampler: BatchSampler,
    /// The noise multiplier σ, or the (ε, δ) it is calibrated to.
    pub privacy: Privacy,
    /// The neighbouring relation of the privacy claim.
    pub neighbouring: Neighbouring,
    /// b: the public normaliser of the noisy sum (the expected batch size). `None`: the sampler's
    /// size (`q·n` for Poisson, read from the data), refused for private add/remove runs, where
    /// `|D|` is private (proofs/dp_sgd.md §5 D1; see `crate::optim::release::batch_normaliser`).
    pub batch_size_b: Option<f64>,
    /// x⁰, the start point (`None`: the algorithm's default, 0, projected onto X where the
    /// configuration has a domain).
    pub x0: Option<Vec<f64>>,
}

impl RunSettings {
    /// T steps with batches drawn by `sampler`, noise by `privacy`, a claim under
    /// `neighbouring`; b from the sampler, the algorithm's default start.
    ///
    /// # Errors
    /// `InvalidParameter` for T = 0, an invalid sampler (q ∉ (0, 1], a batch size of 0) or
    /// privacy request (as [`RunSettings::validate`]).
    pub fn new(steps_t: u64, sampler: BatchSampler, privacy: Privacy, neighbouring: Neighbouring) -> Result<Self> {
        let settings = RunSettings { steps_t, sampler, privacy, neighbouring, batch_size_b: None, x0: None };
        super::checked(settings, RunSettings::validate)
    }

    /// T steps of Poisson sampling with rate q under add/remove neighbours (DP-SGD's setting).
    ///
    /// # Errors
    /// As [`RunSettings::new`].
    pub fn poisson(steps_t: u64, q: f64, privacy: Privacy) -> Result<Self> {
        RunSettings::new(steps_t, BatchSampler::Poisson { q }, privacy, Neighbouring::AddRemove)
    }

    /// T steps of b records drawn without replacement under replace-one neighbours (\[AFKT\]'s
    /// setting).
    ///
    /// # Errors
    /// As [`RunSettings::new`].
    pub fn without_replacement(steps_t: u64, batch_size: usize, privacy: Privacy) -> Result<Self> {
        RunSettings::new(steps_t, BatchSampler::WithoutReplacement { batch_size }, privacy, Neighbouring::ReplaceOne)
    }

    /// T steps on the full batch (every record, every step) under replace-one neighbours
    /// (\[ZCHWB\] Algorithm 1's setting, its Definition 1); `privacy` may be the paper's std on the
    /// mean ([`Privacy::StdOnMean`]).
    ///
    /// # Errors
    /// As [`RunSettings::new`].
    pub fn full_batch(steps_t: u64, privacy: Privacy) -> Result<Self> {
        RunSettings::new(steps_t, BatchSampler::Full, privacy, Neighbouring::ReplaceOne)
    }

    /// Declares the public normaliser b > 0 of the noisy sum (see the field `batch_size_b`).
    ///
    /// # Errors
    /// `InvalidParameter` for b ≤ 0 or non-finite.
    pub fn with_batch_size_b(mut self, b: f64) -> Result<Self> {
        self.batch_size_b = Some(check::positive("batch size b (normaliser)", b)?);
        Ok(self)
    }

    /// Sets the start point x⁰ (its dimension is checked against the data by the run).
    ///
    /// # Errors
    /// `NonFinite` for a non-finite entry.
    pub fn with_x0(mut self, x0: Vec<f64>) -> Result<Self> {
        check::all_finite("x0", &x0)?;
        self.x0 = Some(x0);
        Ok(self)
    }

    /// Sets the neighbouring relation of the claim.
    pub fn with_neighbouring(mut self, neighbouring: Neighbouring) -> Self {
        self.neighbouring = neighbouring;
        self
    }

    /// Checks every setting that does not need the data: T ≥ 1, the sampler's own numbers, the
    /// privacy request, a declared normaliser b > 0 and finite, a finite x⁰.
    ///
    /// # Errors
    /// `InvalidParameter` naming the first invalid setting; `NonFinite` for an entry of x⁰.
    pub fn validate(&self) -> Result<()> {
        check::count("steps T", self.steps_t)?;
        self.sampler.validate_settings()?;
        self.privacy.validate()?;
        if let Some(b) = self.batch_size_b {
            check::positive("batch size b (normaliser)", b)?;
        }
        if let Some(x0) = &self.x0 {
            check::all_finite("x0", x0)?;
        }
        Ok(())
    }

    /// [`RunSettings::validate`] together with the clip of the run's per-example terms (or the
    /// gradient bound that plays its part): `clip` > 0 (∞: no clipping, refused with a privacy
    /// target since nothing bounds the sensitivity).
    ///
    /// # Errors
    /// `InvalidParameter` naming the first invalid setting (`clip_name` for the clip).
    pub fn validate_with_clip(&self, clip_name: &'static str, clip: f64) -> Result<()> {
        if clip.is_nan() || clip <= 0.0 {
            return Err(Error::invalid(clip_name, clip, "> 0 (or infinite for no clipping)"));
        }
        if clip.is_infinite() && matches!(self.privacy, Privacy::Target { .. }) {
            return Err(Error::invalid(
                clip_name,
                "none",
                "finite when a privacy target is given (no sensitivity bound)",
            ));
        }
        self.validate()
    }

    /// The checks that need the data: the sampler against n records, x⁰ against the dimension d.
    ///
    /// # Errors
    /// `InvalidParameter` for a batch larger than the data or an x⁰ of another dimension.
    pub(crate) fn validate_on(&self, n: usize, d: usize) -> Result<()> {
        self.sampler.validate(n)?;
        if let Some(x0) = &self.x0 {
            check_start(x0, d)?;
        }
        Ok(())
    }

    /// The [`ReleasePlan`] of the T steps on n records, each adding noise σ·C to a sum of terms
    /// bounded by a clip C (`clipped`: whether C is finite, i.e. a privacy claim is made).
    pub(crate) fn release_plan(&self, n: usize, clipped: bool) -> ReleasePlan {
        ReleasePlan {
            sampler: self.sampler,
            n,
            steps: self.steps_t,
            privacy: self.privacy,
            neighbouring: self.neighbouring,
            batch_size_b: self.batch_size_b,
            clipped,
            form: NoiseForm::Multiplier,
        }
    }
}
