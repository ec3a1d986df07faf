//! The algorithms, one file each, grouped by paper. Every algorithm returns a [`Run`]: its output
//! point, the privacy events it executed (from which the accountant derives (ε, δ)), and, through
//! an [`Observer`], a trace of its iterates and released noisy gradients for audits and
//! convergence tests. The same seed gives a bit-identical run.
//!
//! Shared pieces: [`Privacy`] (a target (ε, δ) calibrated by the accountant, or a noise multiplier),
//! [`OutputPoint`] (which average is returned), [`EventLog`] (the executed events).

pub mod adaptive_noise;
pub mod dp2;
pub mod dp_sgd;
pub mod dpagd;
pub mod fast;
pub mod run_spec;

pub use run_spec::RunSpec;

use crate::accounting::{Conversion, DpEvent, Neighbouring, RdpAccountant, RdpSettings, calibrate_noise_multiplier};
use crate::error::{Error, Result, check};
use crate::sampling::BatchSampler;
use serde::Serialize;

/// How much noise a private algorithm adds.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub enum Privacy {
    /// The smallest noise multiplier whose run is (ε, δ)-DP by the RDP accountant (calibrated
    /// over the run's steps, sampler and neighbouring relation).
    Target {
        /// ε > 0.
        epsilon: f64,
        /// δ ∈ (0, 1).
        delta: f64,
    },
    /// A given noise multiplier σ ≥ 0 (0: the non-private run of the same algorithm). The
    /// privacy reported is what the accountant derives for it at `report_delta` (none for σ = 0
    /// or without a δ).
    NoiseMultiplier {
        /// σ ≥ 0.
        sigma: f64,
        /// δ at which to report ε, if any.
        report_delta: Option<f64>,
    },
}

/// How per-example gradients are computed and summed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub enum GradientEngine {
    /// The reference: materialise each per-example gradient, bound it, add it (default).
    #[default]
    Reference,
    /// The GLM fast path of [`fast`]: fused margin/norm pass, no materialised gradients,
    /// rows in parallel chunks. Equal to the reference up to reassociation.
    GlmFast,
}

impl GradientEngine {
    /// `Σ_{i∈batch} bound(∇F(x; zᵢ))` into `out` (`g`: scratch of length d).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn bounded_gradient_sum(
        self,
        data: &crate::data::Dataset,
        loss: crate::loss::Loss,
        x: &[f64],
        batch: &[usize],
        bound: GradientBound<'_>,
        g: &mut [f64],
        out: &mut [f64],
    ) {
        match self {
            GradientEngine::Reference => bounded_gradient_sum(data, loss, x, batch, bound, g, out),
            GradientEngine::GlmFast => fast::bounded_gradient_sum_glm(data, loss, x, batch, bound, g, out),
        }
    }
}

/// Which point a run returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub enum OutputPoint {
    /// `(1/T) Σ_{k=0}^{T−1} x^k`: the average the convergence proofs bound (default).
    #[default]
    AverageFromZero,
    /// `(1/T) Σ_{k=1}^{T} x^k`: the average as printed in \[ADFJT\] Algs. 1, 2, 4, 5.
    AverageFromOne,
    /// `x^T`.
    Last,
}

/// What a run released, as its observer sees it.
#[derive(Debug, Clone, Copy)]
pub enum TraceEvent<'a> {
    /// The iterate x^k at which step k evaluates gradients.
    Iterate {
        /// k.
        step: u64,
        /// x^k.
        x: &'a [f64],
    },
    /// The noisy gradient ĝ^k released at step k (what a white-box auditor observes).
    NoisyGradient {
        /// k.
        step: u64,
        /// ĝ^k.
        g_hat: &'a [f64],
    },
    /// The diagonal preconditioner D^k an adaptive step k applies (DP²): a function of earlier
    /// releases only.
    Preconditioner {
        /// k.
        step: u64,
        /// D^k.
        d: &'a [f64],
    },
}

/// Receives [`TraceEvent`]s during a run.
pub trait Observer {
    /// Called for each event, in order.
    fn observe(&mut self, event: TraceEvent<'_>);
}

/// An observer that ignores everything.
#[derive(Debug, Default, Clone, Copy)]
pub struct NoTrace;

impl Observer for NoTrace {
    fn observe(&mut self, _: TraceEvent<'_>) {}
}

/// An observer that records iterates and noisy gradients.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Trace {
    /// x^0, …, x^{T−1}.
    pub iterates: Vec<Vec<f64>>,
    /// ĝ^0, …, ĝ^{T−1}.
    pub noisy_gradients: Vec<Vec<f64>>,
    /// (k, D^k) for each step that applied a preconditioner.
    pub preconditioners: Vec<(u64, Vec<f64>)>,
}

impl Observer for Trace {
    fn observe(&mut self, event: TraceEvent<'_>) {
        match event {
            TraceEvent::Iterate { x, .. } => self.iterates.push(x.to_vec()),
            TraceEvent::NoisyGradient { g_hat, .. } => self.noisy_gradients.push(g_hat.to_vec()),
            TraceEvent::Preconditioner { step, d } => self.preconditioners.push((step, d.to_vec())),
        }
    }
}

/// The privacy events a run executed, consecutive equal events merged into `SelfComposed`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct EventLog {
    events: Vec<(DpEvent, u64)>,
}

impl EventLog {
    /// Records one execution of `event`.
    pub fn push(&mut self, event: DpEvent) {
        match self.events.last_mut() {
            Some((e, c)) if *e == event => *c += 1,
            _ => self.events.push((event, 1)),
        }
    }

    /// The whole run as one event (`Composed` of `SelfComposed` runs; `None` if nothing ran).
    pub fn as_event(&self) -> Option<DpEvent> {
        let parts: Vec<DpEvent> = self
            .events
            .iter()
            .map(
                |(e, c)| {
                    if *c == 1 { e.clone() } else { DpEvent::SelfComposed { event: Box::new(e.clone()), count: *c } }
                },
            )
            .collect();
        match parts.len() {
            0 => None,
            1 => parts.into_iter().next(),
            _ => Some(DpEvent::Composed(parts)),
        }
    }

    /// Number of recorded executions.
    pub fn len(&self) -> u64 {
        self.events.iter().map(|(_, c)| c).sum()
    }

    /// Whether nothing was recorded.
    pub fn is_empty(&self) -> bool {
        self.events.is_empty()
    }
}

/// The privacy of a run, derived by the accountant from its events.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PrivacyReport {
    /// ε at `delta` (upper bound); `None` for non-private runs (σ = 0, or no clipping).
    pub epsilon: Option<f64>,
    /// δ.
    pub delta: Option<f64>,
    /// The noise multiplier σ used.
    pub sigma: f64,
}

/// The result of a run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Run {
    /// The output point (see [`OutputPoint`]).
    pub x: Vec<f64>,
    /// The last iterate x^T.
    pub x_last: Vec<f64>,
    /// Steps executed.
    pub steps: u64,
    /// The privacy events executed.
    pub events: EventLog,
    /// The accountant's reading of `events`.
    pub privacy: PrivacyReport,
}

/// Running sums for the output averages.
#[derive(Debug, Clone)]
pub(crate) struct Averager {
    from_zero: Vec<f64>,
    from_one: Vec<f64>,
    count: u64,
}

impl Averager {
    pub(crate) fn new(d: usize) -> Self {
        Averager { from_zero: vec![0.0; d], from_one: vec![0.0; d], count: 0 }
    }

    /// Adds x^k (before the step) and x^{k+1} (after it).
    pub(crate) fn add(&mut self, before: &[f64], after: &[f64]) {
        for ((z, o), (b, a)) in self.from_zero.iter_mut().zip(self.from_one.iter_mut()).zip(before.iter().zip(after)) {
            *z += b;
            *o += a;
        }
        self.count += 1;
    }

    pub(crate) fn output(&self, which: OutputPoint, last: &[f64]) -> Vec<f64> {
        let t = self.count.max(1) as f64;
        match which {
            OutputPoint::AverageFromZero => self.from_zero.iter().map(|v| v / t).collect(),
            OutputPoint::AverageFromOne => self.from_one.iter().map(|v| v / t).collect(),
            OutputPoint::Last => last.to_vec(),
        }
    }
}

/// The noise multiplier for a run of `steps` steps whose per-step event is
/// `sampler ∘ per_example_sum_gaussian(σ)`.
///
/// # Errors
/// `InvalidParameter` for σ < 0 or invalid targets; `Unsupported` for a sampler or relation no
/// accountant covers (with a target).
pub(crate) fn noise_multiplier(
    privacy: Privacy,
    sampler: &BatchSampler,
    n: usize,
    steps: u64,
    neighbouring: Neighbouring,
) -> Result<f64> {
    let scheme = sampler.scheme(n);
    noise_multiplier_for(privacy, sampler, neighbouring, |s| crate::accounting::dp_sgd_event(s, scheme, steps))
}

/// [`noise_multiplier`] for any run whose executed events at noise multiplier σ are
/// `run_event(σ)` (e.g. DP² variant 1's mix of single and joint releases): a target is calibrated
/// on `run_event`; a given σ is checked, and, if an ε will be reported, its (sampler, relation)
/// is checked to be accountable before any randomness.
///
/// # Errors
/// As [`noise_multiplier`].
pub(crate) fn noise_multiplier_for(
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
    }
}

/// The std of the Gaussian noise on a batch sum clipped at C: `σ·C`; without a clip (a run that
/// makes no privacy claim) σ is taken as the absolute std.
pub(crate) fn noise_std_on_sum(sigma: f64, clip: f64) -> f64 {
    if clip.is_infinite() { sigma } else { sigma * clip }
}

/// The accountant's reading of a run's events (ε at the target's δ, or at `report_delta`).
///
/// # Errors
/// Accountant errors for unsupported events.
pub(crate) fn report(
    events: &EventLog,
    sigma: f64,
    privacy: Privacy,
    neighbouring: Neighbouring,
    clipped: bool,
) -> Result<PrivacyReport> {
    let delta = match privacy {
        Privacy::Target { delta, .. } => Some(delta),
        Privacy::NoiseMultiplier { report_delta, .. } => report_delta,
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

/// How per-example gradients are bounded before they are summed.
#[derive(Debug, Clone, Copy)]
pub(crate) enum GradientBound<'a> {
    /// No bound (non-private runs only).
    None,
    /// `clip_l2` at radius C.
    L2 { clip: f64 },
    /// Projection onto the ellipsoid `{g : Σ aⱼ gⱼ² ≤ 1}`.
    Ellipsoid { a: &'a [f64], kind: crate::geometry::EllipsoidProjection },
}

/// The bounded gradient sum of a batch, the shared first half of DP-SGD's and \[ADFJT\] Algs. 1–2's
/// privatised gradient: `Σ_{i∈B} bound(∇F(x; zᵢ))` into `out`; `g` is scratch of length d.
pub(crate) fn bounded_gradient_sum(
    data: &crate::data::Dataset,
    loss: crate::loss::Loss,
    x: &[f64],
    batch: &[usize],
    bound: GradientBound<'_>,
    g: &mut [f64],
    out: &mut [f64],
) {
    out.iter_mut().for_each(|v| *v = 0.0);
    for &i in batch {
        loss.gradient(x, data.row(i), data.label(i), g);
        match bound {
            GradientBound::None => {}
            GradientBound::L2 { clip } => {
                crate::geometry::clip_l2(g, clip);
            }
            GradientBound::Ellipsoid { a, kind } => {
                crate::geometry::project_ellipsoid(g, a, kind);
            }
        }
        crate::linalg::axpy(1.0, g, out);
    }
}

/// The second half: `ĝ = (sum + N(0, diag(stds)²))/b` in place, with b the run's public
/// normaliser ([`batch_normaliser`]). `stds` has one entry (isotropic) or d entries.
///
/// # Errors
/// `InvalidParameter` for a negative or non-finite std.
pub(crate) fn noisy_mean(rng: &mut crate::rng::DpRng, sum: &mut [f64], stds: &[f64], normaliser: f64) -> Result<()> {
    match stds.len() {
        1 => crate::noise::add_gaussian(rng, sum, stds[0])?,
        _ => crate::noise::add_gaussian_diagonal(rng, sum, stds)?,
    }
    for v in sum.iter_mut() {
        *v /= normaliser;
    }
    Ok(())
}

/// The normaliser b of the noisy batch sum, a public constant (anchors C7).
///
/// `declared = Some(b)`: b as given (finite, > 0). `None`: the sampler's size read from the data
/// (`q·n` for Poisson, `n` for the full batch, the fixed size otherwise), which is public only if
/// the dataset size is: under replace-one neighbouring, for fixed-size samplers, or in a run that
/// records no privacy event. Under add/remove `|D|` differs between neighbours, so `q·|D|` would
/// scale the released gradient by `n/(n+1)` and reveal the presence of a record whatever the
/// noise; that combination is refused.
///
/// # Errors
/// `InvalidParameter` for a declared b that is not finite and positive; `Unsupported` for the
/// data-derived normaliser of a Poisson or full-batch sampler in a private add/remove run.
pub(crate) fn batch_normaliser(
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

/// Checks a starting point against the dimension and the domain.
pub(crate) fn check_start(x0: &[f64], d: usize) -> Result<()> {
    if x0.len() != d {
        return Err(Error::invalid("x0", x0.len(), "of the data's dimension"));
    }
    check::all_finite("x0", x0)
}
