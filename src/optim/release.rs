//! [`PrivateRelease`]: the private step every algorithm of [`crate::optim`] shares, in one type.
//!
//! A run builds one from its [`ReleasePlan`] (sampler, privacy request, neighbouring relation,
//! n, T, declared batch size, whether its sums are clipped). The constructor does the set-up once,
//! in this order, before any randomness is drawn:
//! ```text
//! 1: private  = clipped ∧ the requested noise is positive        (the one rule)
//! 2: σ        = the noise multiplier: given, converted from an absolute std s on the mean
//!               (σ = s·b/G), or calibrated by the RDP accountant on the run's event
//! 3: b        = the public normaliser of the noisy sum (batch_normaliser: never |D| under add/remove)
//! 4: the event of one release: scheme(sampler) ∘ PerExampleSumGaussian(σ), if private
//! 5: the sampling and noise streams of the seeds, an empty event log
//! ```
//! Then, per step, [`PrivateRelease::sample`] draws the batch and [`PrivateRelease::release`] turns
//! a bounded sum into `(Σ + N(0, std²))/b` **and records the privacy event in the same call**:
//! no path draws noise without recording, or records without drawing. A second release on the
//! same batch (DP² variant 1's extra query) replaces the step's event by the joint one, σ/√k for
//! k releases of multiplier σ each (whitened sensitivities add in quadrature). [`PrivateRelease::finish`]
//! ends the run with its events and the accountant's [`PrivacyReport`].
//!
//! Unsampled releases of statistics with a declared ℓ2 sensitivity (\[ADFJT\] Algorithm 3) use
//! [`PrivateRelease::statistics`] and [`PrivateRelease::release_statistic`]; with a declared ℓ1
//! sensitivity and Laplace noise (\[GGKKM\] Algorithm 1, δ = 0),
//! [`PrivateRelease::release_statistic_laplace`]; data-independent draws: [`public_draw`].
//!
//! Releases recorded as (ε, δ) claims and runs stopped by a privacy filter: [`epsilon_delta`].
//! Private *selections* (report-noisy-min, the exponential mechanism) use the sibling
//! [`PrivateSelection`]: [`PrivateSelection::select_min`] draws and records its pure-ε event in one call.
//!
//! Proof: proofs/private_release.md.

use super::{EventLog, Privacy, PrivacyReport};
use crate::accounting::{
    Accountant, Conversion, DpEvent, Neighbouring, RdpAccountant, RdpSettings, calibrate_noise_multiplier,
    per_example_sum_gaussian,
};
use crate::error::{Error, Result, check};
use crate::rng::{DpRng, Seeds, Stream};
use crate::sampling::{BatchSampler, TruncatedGeometric, uniform_ordered_subset};
use crate::special::{add_up, div_down, div_up, mul_down, mul_up, sqrt_down, sqrt_up};
pub mod epsilon_delta;
pub mod public_draw;
mod selection;

pub use selection::{PrivateSelection, SelectionMechanism, exponential_selection_probabilities, selection_epsilon};

/// How a run states its noise (the parametrisation of its paper). It decides only how the noise
/// std is computed from σ, so that each algorithm evaluates its paper's formula.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum NoiseForm {
    /// A noise multiplier σ: std `σ·C` on a sum of sensitivity C (DP-SGD and most algorithms).
    Multiplier,
    /// An absolute std s on the released mean Σ/b, as \[ZCHWB\] Algorithm 1 line 4 states σ: std
    /// `s·b` on the sum, noise multiplier `σ = s·b/G` for terms bounded by G.
    StdOnMean {
        /// G: the bound of each per-example term.
        gradient_bound: f64,
    },
}

/// What a run declares to its [`PrivateRelease`].
#[derive(Debug, Clone, PartialEq)]
pub struct ReleasePlan {
    /// How batches are drawn.
    pub sampler: BatchSampler,
    /// n: the dataset size.
    pub n: usize,
    /// T: the number of steps (each one batch), for calibration.
    pub steps: u64,
    /// The noise requested.
    pub privacy: Privacy,
    /// The neighbouring relation of the claim.
    pub neighbouring: Neighbouring,
    /// b, the declared public normaliser (`None`: the sampler's size; see [`batch_normaliser`]).
    pub batch_size_b: Option<f64>,
    /// Whether every released sum is of terms with a finite bound (no bound: no privacy claim).
    pub clipped: bool,
    /// How the noise is stated.
    pub form: NoiseForm,
}

/// The shape of the noise on one released sum, given the run's σ.
#[derive(Debug, Clone, Copy)]
pub enum NoiseShape<'a> {
    /// Isotropic, on a sum of per-example terms of ℓ2 norm ≤ `clip`: std `σ·C` rounded up (σ itself when
    /// C = ∞, a run without a privacy claim; `s·b` in the [`NoiseForm::StdOnMean`] form).
    Isotropic {
        /// C.
        clip: f64,
    },
    /// \[ADFJT\]'s ellipsoid `{g : Σⱼ (Cⱼ/B²) gⱼ² ≤ 1}`: whitened, each term has norm ≤ 1, so the
    /// std of coordinate j is `σ·B/√Cⱼ` rounded up (σ when B = ∞).
    Ellipsoid {
        /// B.
        clip_radius_b: f64,
        /// diag(C).
        ellipsoid_c: &'a [f64],
    },
}

/// The smallest clip a private release accepts, 2⁻⁹⁶⁹ = 2⁵³·`f64::MIN_POSITIVE`: above it, a clipped
/// coordinate that lands on the subnormal grid errs by at most 2⁻¹⁰⁷⁵ ≤ 2⁻¹⁰⁶·C, far below the
/// O(d·u) rounding of the clip itself (proofs/geometry.md §5); at C = 5e-324, (0.6, 0.6) clips to
/// (5e-324, 5e-324), of norm √2·C.
pub const SMALLEST_PRIVATE_CLIP: f64 = f64::MIN_POSITIVE * 9_007_199_254_740_992.0;

/// Why a zero std on a statistic of positive sensitivity is refused.
const UNDERFLOWED_STD: &str = "positive for a statistic of positive sensitivity (sigma*Delta or the given std \
     underflowed): it would be released without noise and without an event";

/// The private step of a run: batch sampling, noise and privacy events, drawn and recorded
/// together (see the module doc).
#[derive(Debug)]
pub struct PrivateRelease {
    setup: ReleaseSetup,
    releases_on_batch: u32,
    releases: u64,
    sampling: DpRng,
    noise: DpRng,
    measurement: DpRng,
    stds: Vec<f64>,
    events: EventLog,
    subsample: Option<OpenSubsample>,
}

/// What a [`PrivateRelease`] constructor decides before any randomness is drawn (module doc,
/// lines 1-4).
#[derive(Debug)]
struct ReleaseSetup {
    sampler: BatchSampler,
    n: usize,
    privacy: Privacy,
    neighbouring: Neighbouring,
    clipped: bool,
    private: bool,
    sigma: f64,
    std_on_sum: Option<f64>,
    normaliser: f64,
    step_event: Option<DpEvent>,
}

/// A fixed-size sample without replacement drawn by [`PrivateRelease::sample_ordered_subset`]
/// whose Gaussian releases are still being composed (see that method).
#[derive(Debug, Clone)]
struct OpenSubsample {
    n: usize,
    m: usize,
    /// Σ 1/zᵢ² over the Gaussian releases on the sample so far (zᵢ = std/sensitivity).
    inverse_square_sum: f64,
    /// The (ε, δ) claims of the releases on the sample so far ([`epsilon_delta`]).
    claims: Vec<DpEvent>,
}

/// The two kinds of release an [`OpenSubsample`] composes, which must not be mixed on one sample.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum SubsampleRecord {
    /// A Gaussian release recorded by its curve (`inverse_square_sum`).
    Curve,
    /// An (ε, δ) claim (`claims`).
    Claim,
}

/// What a finished [`PrivateRelease`] hands back to its run.
#[derive(Debug, Clone, PartialEq)]
pub struct ReleaseSummary {
    /// The privacy events executed.
    pub events: EventLog,
    /// The accountant's reading of `events`.
    pub privacy: PrivacyReport,
    /// Noisy releases drawn (one per data access).
    pub releases: u64,
    /// The neighbouring relation the events are accounted under (`None`: a run without a claim).
    pub neighbouring: Option<Neighbouring>,
}

impl PrivateRelease {
    /// Sets up the private step of a run whose executed events at multiplier σ are T steps of
    /// `scheme(sampler) ∘ PerExampleSumGaussian(σ)` (what a target is calibrated on).
    ///
    /// # Errors
    /// `InvalidParameter` for a negative σ or std, an invalid target, a σ too small for a finite ε
    /// at the reported δ, or an absolute std asked of a [`NoiseForm::Multiplier`] run;
    /// `Unsupported` for a sampler or relation no accountant covers (when ε will be reported) or
    /// a data-sized normaliser in a private add/remove run.
    pub fn new(plan: ReleasePlan, seeds: Seeds) -> Result<Self> {
        let scheme = plan.sampler.scheme(plan.n);
        let steps = plan.steps;
        Self::calibrated_on(plan, seeds, |s| crate::accounting::dp_sgd_event(s, scheme, steps))
    }

    /// [`PrivateRelease::new`] for a run whose executed events at σ are `run_event(σ)` (e.g. DP²
    /// variant 1's mix of single and joint releases): a target is calibrated on `run_event`, a
    /// given σ is checked against it.
    ///
    /// # Errors
    /// As [`PrivateRelease::new`].
    pub fn calibrated_on(plan: ReleasePlan, seeds: Seeds, run_event: impl Fn(f64) -> Result<DpEvent>) -> Result<Self> {
        let ReleasePlan { sampler, n, privacy, neighbouring, batch_size_b, clipped, form, .. } = plan;
        // line 1: the one rule for "private"
        let requested = match privacy {
            Privacy::Target { .. } => 1.0,
            Privacy::NoiseMultiplier { sigma, .. } => check::non_negative("sigma", sigma)?,
            Privacy::StdOnMean { std, .. } => check::non_negative("noise std on the mean", std)?,
        };
        let private = clipped && requested > 0.0;
        // lines 2-3: σ and b (the std-on-mean form needs b to convert, so b comes first there)
        let (sigma, std_on_sum, normaliser) = match form {
            NoiseForm::Multiplier => {
                if let Privacy::StdOnMean { .. } = privacy {
                    return Err(Error::invalid(
                        "privacy",
                        "an absolute noise std on the mean",
                        "a noise multiplier (std / clip) or a target for this algorithm",
                    ));
                }
                let sigma = noise_multiplier_for(privacy, &sampler, neighbouring, &run_event)?;
                (sigma, None, batch_normaliser(&sampler, batch_size_b, n, neighbouring, private)?)
            }
            NoiseForm::StdOnMean { gradient_bound } => {
                let b = batch_normaliser(&sampler, batch_size_b, n, neighbouring, private)?;
                let (request, given_std) = match privacy {
                    Privacy::StdOnMean { std, report_delta } => (
                        Privacy::NoiseMultiplier {
                            sigma: if private { div_down(std * b, gradient_bound) } else { 0.0 },
                            report_delta,
                        },
                        Some(std),
                    ),
                    other => (other, None),
                };
                let sigma = noise_multiplier_for(request, &sampler, neighbouring, &run_event)?;
                // the std drawn on the sum: s·b for a given s (σ above is s·b/G rounded down);
                // σ·G rounded up for a calibrated σ, so the draw is never below the recorded σ
                (sigma, Some(given_std.map_or_else(|| mul_up(sigma, gradient_bound), |s| s * b)), b)
            }
        };
        // line 4: the event of one release
        let step_event = if private { Some(sampler.scheme(n).wrap(per_example_sum_gaussian(sigma)?)?) } else { None };
        // line 5: streams and the event log
        let setup = ReleaseSetup {
            sampler,
            n,
            privacy,
            neighbouring,
            clipped,
            private,
            sigma,
            std_on_sum,
            normaliser,
            step_event,
        };
        Ok(Self::start(setup, seeds))
    }

    /// Unsampled releases of statistics with declared ℓ2 sensitivities (\[ADFJT\] Algorithm 3):
    /// noise multiplier `sigma` (0: no noise, no claim), normaliser 1, one `Gaussian(σ)` event per
    /// non-empty release.
    ///
    /// # Errors
    /// `InvalidParameter` for a negative or non-finite σ.
    pub fn statistics(sigma: f64, seeds: Seeds) -> Result<Self> {
        let sigma = check::non_negative("noise multiplier", sigma)?;
        let setup = ReleaseSetup {
            sampler: BatchSampler::Full,
            n: 0,
            privacy: Privacy::NoiseMultiplier { sigma, report_delta: None },
            neighbouring: Neighbouring::ReplaceOne,
            clipped: true,
            private: sigma > 0.0,
            sigma,
            std_on_sum: None,
            normaliser: 1.0,
            step_event: None,
        };
        Ok(Self::start(setup, seeds))
    }

    /// The private step with the decisions of `setup`, before any draw: the sampling, noise and
    /// measurement streams of `seeds`, no release yet, an empty event log.
    fn start(setup: ReleaseSetup, seeds: Seeds) -> Self {
        PrivateRelease {
            setup,
            releases_on_batch: 0,
            releases: 0,
            sampling: seeds.stream(Stream::Sampling),
            noise: seeds.stream(Stream::Noise),
            measurement: seeds.stream(public_draw::MEASUREMENT_STREAM),
            stds: Vec::new(),
            events: EventLog::default(),
            subsample: None,
        }
    }

    /// σ: the noise multiplier of the run (on a sum of sensitivity C, the noise std is σ·C).
    pub fn noise_multiplier(&self) -> f64 {
        self.setup.sigma
    }

    /// b: the public normaliser of each released sum.
    pub fn normaliser(&self) -> f64 {
        self.setup.normaliser
    }

    /// Whether the run's releases are privacy mechanisms (clipped, with positive noise).
    pub fn is_private(&self) -> bool {
        self.setup.private
    }

    /// Draws the next batch into `batch` (a new step: later releases are on this batch).
    pub fn sample(&mut self, batch: &mut Vec<usize>) {
        self.setup.sampler.sample(&mut self.sampling, self.setup.n, batch);
        self.releases_on_batch = 0;
    }

    /// Releases a bounded batch sum: `sum ← (sum + N(0, diag(stds)²))/b` with the stds of `shape`
    /// at the run's σ, and records its privacy event in the same call: the step's event for the
    /// first release on the current batch; for the k-th (k ≥ 2), the step's event becomes the
    /// joint one, `scheme ∘ PerExampleSumGaussian(σ/√k)`.
    ///
    /// # Errors
    /// `InvalidParameter` for a shape whose length differs from the sum's, a std that is not
    /// finite, a clip that is not finite in a private run, or a private release built by
    /// [`PrivateRelease::statistics`] (it has no step event); event errors.
    pub fn release(&mut self, sum: &mut [f64], shape: NoiseShape<'_>) -> Result<()> {
        // An infinite clip bounds nothing: it draws std σ (not σ·C) and may only run without a claim.
        let clip = match shape {
            NoiseShape::Isotropic { clip } => clip,
            NoiseShape::Ellipsoid { clip_radius_b, .. } => clip_radius_b,
        };
        // A batch sum has a step event only in a release built for batches; a statistics release
        // records through `release_statistic*`. Without this check a private statistics release
        // let a batch sum's noise out unrecorded, and `finish` read ε = 0.
        if self.setup.private && self.setup.step_event.is_none() {
            return Err(Error::invalid(
                "release",
                "a batch sum on a statistics release",
                "a release built by PrivateRelease::new or calibrated_on (statistics go through release_statistic)",
            ));
        }
        if self.setup.private && !clip.is_finite() {
            return Err(Error::invalid("clip", clip, "finite in a private run (an infinite clip bounds nothing)"));
        }
        if self.setup.private && clip < SMALLEST_PRIVATE_CLIP {
            return Err(Error::invalid(
                "clip",
                clip,
                "at least 2^-969 (about 2.0e-292) in a private run: below, the clipped coordinates round on the \
                 subnormal grid and their norm can exceed the clip by far more than a rounding error",
            ));
        }
        self.stds.clear();
        // Every std is rounded up from its exact value, so the noise drawn is never below the
        // recorded σ's (a rounded-to-nearest σ·C falls below σ·C in about half the pairs).
        match (shape, self.setup.std_on_sum) {
            (NoiseShape::Isotropic { .. }, Some(std_on_sum)) => self.stds.push(std_on_sum),
            (NoiseShape::Isotropic { clip }, None) => {
                self.stds.push(if clip.is_infinite() { self.setup.sigma } else { mul_up(self.setup.sigma, clip) })
            }
            (NoiseShape::Ellipsoid { clip_radius_b, ellipsoid_c }, None) => {
                if ellipsoid_c.len() != sum.len() {
                    return Err(Error::invalid("ellipsoid C", ellipsoid_c.len(), "of the sum's dimension"));
                }
                if clip_radius_b.is_infinite() {
                    self.stds.resize(sum.len(), self.setup.sigma);
                } else {
                    let sigma_b = mul_up(self.setup.sigma, clip_radius_b);
                    self.stds.extend(ellipsoid_c.iter().map(|&c| div_up(sigma_b, sqrt_down(c))));
                }
            }
            (NoiseShape::Ellipsoid { .. }, Some(_)) => {
                return Err(Error::invalid("noise shape", "ellipsoid", "isotropic in the std-on-mean form"));
            }
        }
        match self.stds.len() {
            1 => crate::noise::add_gaussian(&mut self.noise, sum, self.stds[0])?,
            _ => crate::noise::add_gaussian_diagonal(&mut self.noise, sum, &self.stds)?,
        }
        for v in sum.iter_mut() {
            *v /= self.setup.normaliser;
        }
        self.releases += 1;
        self.releases_on_batch += 1;
        if let Some(event) = &self.setup.step_event {
            if self.releases_on_batch == 1 {
                self.events.push(event.clone());
            } else {
                let joint = div_down(self.setup.sigma, sqrt_up(f64::from(self.releases_on_batch)));
                let joint_event = self.setup.sampler.scheme(self.setup.n).wrap(per_example_sum_gaussian(joint)?)?;
                self.events.replace_last(joint_event);
            }
        }
        Ok(())
    }

    /// Releases a statistic of ℓ2 sensitivity `sensitivity` with noise std `σ·sensitivity` (a run
    /// built by [`PrivateRelease::statistics`]), records `Gaussian(σ)`, and returns the std. An
    /// empty statistic releases nothing: no noise, no event.
    ///
    /// # Errors
    /// `InvalidParameter` for a negative or non-finite sensitivity, or σ·Δ underflowing to 0 with
    /// σ, Δ > 0 (the statistic would go out unnoised and unrecorded).
    pub fn release_statistic(&mut self, values: &mut [f64], sensitivity: f64) -> Result<f64> {
        let std = mul_up(self.setup.sigma, check::non_negative("sensitivity", sensitivity)?);
        if std == 0.0 && self.setup.sigma > 0.0 && sensitivity > 0.0 && !values.is_empty() {
            return Err(Error::invalid("noise std", std, UNDERFLOWED_STD));
        }
        self.release_statistic_with_std(values, std, self.setup.sigma)?;
        Ok(std)
    }

    /// Releases a statistic of ℓ2 sensitivity `sensitivity` with a given noise std (e.g. a
    /// paper's printed variance) and records the Gaussian of the multiplier `std/sensitivity`
    /// this std gives. An empty statistic releases nothing.
    ///
    /// # Errors
    /// `InvalidParameter` for a std that is not positive and finite, or a sensitivity that is not
    /// positive and finite (for a non-empty statistic).
    pub fn release_statistic_given_std(&mut self, values: &mut [f64], std: f64, sensitivity: f64) -> Result<()> {
        if values.is_empty() {
            return Ok(());
        }
        let std = check::non_negative("noise std", std)?;
        if std == 0.0 {
            return Err(Error::invalid("noise std", std, UNDERFLOWED_STD));
        }
        let sensitivity = check::positive("sensitivity", sensitivity)?;
        self.release_statistic_with_std(values, std, div_down(std, sensitivity))
    }

    /// Releases a statistic of ℓ1 sensitivity `l1_sensitivity` with i.i.d. Laplace noise of scale
    /// `scale` on every coordinate, and records `Laplace(scale/l1_sensitivity)` in the same call
    /// (the Laplace sibling of [`PrivateRelease::release_statistic_given_std`], for \[GGKKM\]
    /// Algorithm 1 with δ = 0). An empty statistic releases nothing.
    ///
    /// # Errors
    /// `InvalidParameter` for a scale that is not positive and finite, or a sensitivity that is not
    /// positive and finite (for a non-empty statistic).
    pub fn release_statistic_laplace(&mut self, values: &mut [f64], scale: f64, l1_sensitivity: f64) -> Result<()> {
        if values.is_empty() {
            return Ok(());
        }
        let scale = check::positive("laplace scale", scale)?;
        let sensitivity = check::positive("l1 sensitivity", l1_sensitivity)?;
        let event = DpEvent::laplace(div_down(scale, sensitivity))?;
        crate::noise::add_laplace(&mut self.noise, values, scale)?;
        self.releases += 1;
        self.events.push(event);
        Ok(())
    }

    /// `values += N(0, std²)` and, for a positive std, one `Gaussian(sigma)` event (or, inside an
    /// open subsample, its share `1/σ²` of the subsample's joint event).
    fn release_statistic_with_std(&mut self, values: &mut [f64], std: f64, sigma: f64) -> Result<()> {
        if values.is_empty() {
            return Ok(());
        }
        let event = if std > 0.0 { Some(DpEvent::gaussian(sigma)?) } else { None };
        if event.is_some() {
            self.check_subsample_kind(SubsampleRecord::Curve)?;
        }
        crate::noise::add_gaussian(&mut self.noise, values, std)?;
        self.releases += 1;
        if let Some(event) = event {
            match self.subsample.as_mut() {
                Some(open) => {
                    open.inverse_square_sum = add_up(open.inverse_square_sum, div_up(1.0, mul_down(sigma, sigma)))
                }
                None => self.events.push(event),
            }
        }
        Ok(())
    }

    /// Draws N ~ TGeom(M) (\[GGKKM\] Def. 6.1) from the sampling stream: a public, data-independent
    /// draw (no event).
    pub fn draw_truncated_geometric(&mut self, law: &TruncatedGeometric) -> u32 {
        law.sample(&mut self.sampling)
    }

    /// Draws a uniformly random ordered sample of m distinct indices of `0..n` from the sampling
    /// stream ([`uniform_ordered_subset`]) and opens it as a subsample (closing the previous one
    /// first, see [`PrivateRelease::close_subsample`]). Until it closes, the Gaussian releases of
    /// statistics (`release_statistic_given_std`, `release_statistic`) are computed on this sample
    /// by the caller's promise, and their events are composed into **one** event recorded at the
    /// close: `SampledWithoutReplacement(n, m, Gaussian(z))` with
    /// `1/z² = Σᵢ 1/zᵢ²` (zᵢ = std/sensitivity of release i; Gaussians on the same sample compose
    /// as one Gaussian whose whitened sensitivity is the ℓ2 sum), z rounded down. Laplace releases
    /// on the sample are recorded as they run, **without** amplification (the RDP accountant
    /// bounds sampling without replacement of the Gaussian only): an upper bound, since
    /// conditionally on the sample each is a Laplace mechanism on the full dataset.
    ///
    /// # Errors
    /// `InvalidParameter` unless 1 ≤ m ≤ n; event errors of the closed subsample.
    pub fn sample_ordered_subset(&mut self, n: usize, m: usize, out: &mut Vec<usize>) -> Result<()> {
        self.close_subsample()?;
        uniform_ordered_subset(&mut self.sampling, n, m, out)?;
        self.subsample = Some(OpenSubsample { n, m, inverse_square_sum: 0.0, claims: Vec::new() });
        Ok(())
    }

    /// Refuses, before any noise is drawn, a release on an open subsample that already holds
    /// releases of the other record kind: Gaussian curves compose into one joint event and (ε, δ)
    /// claims into another, and the two would each be amplified by the same sample as if they
    /// were independent, which under-reports. No accountant here composes the mixture.
    ///
    /// # Errors
    /// `Unsupported` for a mixed subsample.
    pub(super) fn check_subsample_kind(&self, kind: SubsampleRecord) -> Result<()> {
        let Some(open) = &self.subsample else { return Ok(()) };
        let mixed = match kind {
            SubsampleRecord::Curve => !open.claims.is_empty(),
            SubsampleRecord::Claim => open.inverse_square_sum > 0.0,
        };
        if mixed {
            return Err(Error::Unsupported {
                event: format!("Gaussian curves and (epsilon, delta) claims on one sample of {} of {}", open.m, open.n),
                neighbouring: format!("{:?}", self.setup.neighbouring),
                accountant: "-",
                reason: "both kinds would be amplified by the same sample separately; release one kind per sample"
                    .into(),
            });
        }
        Ok(())
    }

    /// Closes the open subsample, recording its joint event if it had a Gaussian release (see
    /// [`PrivateRelease::sample_ordered_subset`]); nothing otherwise.
    ///
    /// # Errors
    /// Event errors (sizes, a multiplier that is not finite and positive).
    pub fn close_subsample(&mut self) -> Result<()> {
        let Some(open) = self.subsample.take() else { return Ok(()) };
        if open.inverse_square_sum > 0.0 {
            // z = 1/√(Σ 1/zᵢ²), the sum rounded up term by term and z down (a smaller z is the
            // safe direction: more privacy loss is reported, never less).
            let z = div_down(1.0, sqrt_up(open.inverse_square_sum));
            let event = DpEvent::sampled_without_replacement(open.n as u64, open.m as u64, DpEvent::gaussian(z)?)?;
            self.events.push(event);
        }
        self.record_claims(open.n, open.m, open.claims)
    }

    /// The events recorded so far (an open subsample's event is recorded when it closes).
    pub fn events(&self) -> &EventLog {
        &self.events
    }

    /// Ends the run: its events, the accountant's reading of them (ε at the target's δ or at
    /// the reported δ; none for a run without a privacy claim) and the number of releases.
    ///
    /// # Errors
    /// Accountant errors for unsupported events.
    pub fn finish(mut self) -> Result<ReleaseSummary> {
        self.close_subsample()?;
        let privacy =
            report(&self.events, self.setup.sigma, self.setup.privacy, self.setup.neighbouring, self.setup.clipped)?;
        let neighbouring = Some(self.setup.neighbouring);
        Ok(ReleaseSummary { events: self.events, privacy, releases: self.releases, neighbouring })
    }
}

/// The noise multiplier of a run whose executed events at σ are `run_event(σ)`: a target is
/// calibrated on `run_event`; a given σ is checked, and, if an ε will be reported, its (sampler,
/// relation) is checked to be accountable before any randomness.
fn noise_multiplier_for(
    privacy: Privacy,
    sampler: &BatchSampler,
    neighbouring: Neighbouring,
    run_event: impl Fn(f64) -> Result<DpEvent>,
) -> Result<f64> {
    match privacy {
        Privacy::NoiseMultiplier { sigma, report_delta } => {
            let sigma = check::non_negative("sigma", sigma)?;
            if let Some(d) = report_delta {
                check::open_unit("delta", d)?;
                if sigma > 0.0 {
                    // An ε will be asked for: refuse an unaccountable (sampler, relation) now,
                    // before any randomness, rather than after the run.
                    sampler.require_accountable(neighbouring)?;
                    let mut acc = RdpAccountant::new(neighbouring);
                    acc.compose(&run_event(sigma)?, 1)?;
                    // σ so small that no order bounds the run (e.g. 1e-160): refuse rather than
                    // run and report ε = ∞ beside δ.
                    if acc.epsilon(d, Conversion::Improved)?.epsilon.is_infinite() {
                        return Err(Error::invalid(
                            "sigma",
                            sigma,
                            "large enough for a finite epsilon at the reported delta (the accountant's bound is infinite)",
                        ));
                    }
                }
            }
            Ok(sigma)
        }
        Privacy::Target { epsilon, delta } => {
            sampler.require_accountable(neighbouring)?;
            let settings = RdpSettings::new(neighbouring);
            let rtol = crate::accounting::calibrate::CALIBRATION_RTOL;
            Ok(calibrate_noise_multiplier(epsilon, delta, &settings, rtol, run_event)?.noise_multiplier)
        }
        Privacy::StdOnMean { .. } => unreachable!("invariant: converted to a multiplier by the caller"),
    }
}

/// The accountant's reading of a run's events (ε at the target's δ, or at `report_delta`).
fn report(
    events: &EventLog,
    sigma: f64,
    privacy: Privacy,
    neighbouring: Neighbouring,
    clipped: bool,
) -> Result<PrivacyReport> {
    let delta = match privacy {
        Privacy::Target { delta, .. } => Some(delta),
        Privacy::NoiseMultiplier { report_delta, .. } | Privacy::StdOnMean { report_delta, .. } => report_delta,
    };
    if sigma == 0.0 || !clipped {
        return Ok(PrivacyReport { epsilon: None, delta: None, sigma });
    }
    let Some(event) = events.as_event() else {
        return Ok(PrivacyReport { epsilon: Some(0.0), delta, sigma });
    };
    let Some(d) = delta else {
        return Ok(PrivacyReport { epsilon: None, delta: None, sigma });
    };
    let mut acc = RdpAccountant::new(neighbouring);
    acc.compose(&event, 1)?;
    let eps = acc.epsilon(d, Conversion::Improved)?.epsilon;
    Ok(PrivacyReport { epsilon: Some(eps), delta: Some(d), sigma })
}

/// The normaliser b of the noisy batch sum, a public constant.
///
/// `declared = Some(b)`: b as given (finite, > 0). `None`: the sampler's size read from the data
/// (`q·n` for Poisson, `n` for the full batch, the fixed size otherwise), which is public only if
/// the dataset size is: under replace-one neighbouring, for fixed-size samplers, or in a run that
/// records no privacy event. Under add/remove `|D|` differs between neighbours, so `q·|D|` would
/// scale the released gradient by `n/(n+1)` and reveal the presence of a record whatever the
/// noise (the bug of Opacus #813/#815); that combination is refused.
///
/// # Errors
/// `InvalidParameter` for a declared b that is not finite and positive; `Unsupported` for the
/// data-derived normaliser of a Poisson or full-batch sampler in a private add/remove run.
pub fn batch_normaliser(
    sampler: &BatchSampler,
    declared: Option<f64>,
    n: usize,
    neighbouring: Neighbouring,
    private: bool,
) -> Result<f64> {
    if let Some(b) = declared {
        return check::positive("batch size b (normaliser)", b);
    }
    let data_sized = matches!(sampler, BatchSampler::Poisson { .. } | BatchSampler::Full);
    if data_sized && private && neighbouring == Neighbouring::AddRemove {
        return Err(Error::Unsupported {
            event: "a batch sum normalised by a size read from the private dataset (q*|D| or |D|)".into(),
            neighbouring: neighbouring.name().into(),
            accountant: "RDP",
            reason: "|D| differs between add/remove neighbours, so the normaliser itself reveals a record \
                     (its size is private under add/remove); declare the public batch size b (CLI: --batch-size)"
                .into(),
        });
    }
    Ok(sampler.expected_batch_size(n))
}

#[cfg(test)]
mod tests;
