//! The algorithms, one file each, grouped by paper. Every algorithm returns a [`Run`]: its output
//! point, the privacy events it executed (from which the accountant derives (ε, δ)), and, through
//! an [`Observer`], a trace of its iterates and released noisy gradients for audits and
//! convergence tests. The same seed gives a bit-identical run.
//!
//! Shared pieces: [`RunSettings`] (sampler, privacy request, neighbouring relation, normaliser b and
//! start point of a private gradient run, checked once), [`Privacy`] (a target (ε, δ) calibrated by
//! the accountant, or a noise multiplier),
//! [`OutputPoint`] (which average is returned), [`EventLog`] (the executed events).

pub mod adaptive_noise;
pub mod dp2;
pub mod dp_sgd;
pub mod dpagd;
pub mod fast;
pub mod l1;
mod private_step;
pub mod release;
pub mod run_settings;
pub mod run_spec;
pub mod sparse;

pub use adaptive_noise::{AdaptiveMethod, AdaptiveNoiseConfig, pagan, pasan, private_second_moments};
pub use dp_sgd::{DpSgdConfig, dp_sgd};
pub use dp2::{Dp2Config, dp2, dp2_extra_query};
pub use dpagd::{Algorithm1Config, MinibatchConfig, dp_minibatch, dpagd};
pub use release::public_draw::MEASUREMENT_STREAM;
pub use release::{
    NoiseForm, NoiseShape, PrivateRelease, PrivateSelection, ReleasePlan, ReleaseSummary, SMALLEST_PRIVATE_CLIP,
    SelectionMechanism,
};
pub use run_settings::RunSettings;
pub use run_spec::RunSpec;

use crate::accounting::{Accountant, DpEvent, Neighbouring};
use crate::error::{Error, Result, check};
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
    /// A given absolute std s ≥ 0 of the noise on each released *mean* (the normalised sum Σ/b),
    /// as \[ZCHWB\] Algorithm 1 states its σ; only for algorithms stated that way
    /// ([`NoiseForm::StdOnMean`]), where it is the noise multiplier `s·b/G`. Not a noise
    /// multiplier: the two are distinct variants so that one cannot be passed for the other.
    StdOnMean {
        /// s ≥ 0.
        std: f64,
        /// δ at which to report ε, if any.
        report_delta: Option<f64>,
    },
}

impl Privacy {
    /// Checks the request's own numbers, before any data is seen: ε > 0 finite and δ ∈ (0, 1)
    /// for a target; σ (or s) ≥ 0 finite and a reporting δ ∈ (0, 1) otherwise.
    ///
    /// # Errors
    /// `InvalidParameter` naming the parameter.
    pub fn validate(&self) -> Result<()> {
        let report_delta = match *self {
            Privacy::Target { epsilon, delta } => {
                check::positive("epsilon", epsilon)?;
                check::open_unit("delta", delta)?;
                None
            }
            Privacy::NoiseMultiplier { sigma, report_delta } => {
                check::non_negative("sigma", sigma)?;
                report_delta
            }
            Privacy::StdOnMean { std, report_delta } => {
                check::non_negative("noise std on the mean", std)?;
                report_delta
            }
        };
        if let Some(delta) = report_delta {
            check::open_unit("delta", delta)?;
        }
        Ok(())
    }
}

/// `config` if `check` accepts it, else the first error: the last step of every validating
/// constructor (`new` builds the value with its defaults, then refuses it whole, before any data
/// is seen, if a setting is invalid).
///
/// # Errors
/// The error of `check`.
pub(crate) fn checked<C>(config: C, check: impl FnOnce(&C) -> Result<()>) -> Result<C> {
    check(&config)?;
    Ok(config)
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
    #[serde(rename = "events")]
    runs: Vec<(DpEvent, u64)>,
}

impl EventLog {
    /// Records one execution of `event`.
    pub(crate) fn push(&mut self, event: DpEvent) {
        match self.runs.last_mut() {
            Some((e, c)) if *e == event => *c += 1,
            _ => self.runs.push((event, 1)),
        }
    }

    /// The whole run as one event (`Composed` of `SelfComposed` runs; `None` if nothing ran).
    pub fn as_event(&self) -> Option<DpEvent> {
        let parts: Vec<DpEvent> = self
            .runs
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

    /// Replaces the last recorded execution by `event` (a release whose event grew: a second
    /// release on the same batch). Only [`PrivateRelease`] calls it, in the call that draws.
    pub(crate) fn replace_last(&mut self, event: DpEvent) {
        if let Some((_, c)) = self.runs.last_mut() {
            *c -= 1;
            if *c == 0 {
                self.runs.pop();
            }
        }
        self.push(event);
    }

    /// Appends every execution `other` recorded, in order (the events of consecutive sub-runs,
    /// e.g. \[AFKT\] Algorithm 2's phases, as one sequential log).
    pub(crate) fn append(&mut self, other: &EventLog) {
        for (e, c) in &other.runs {
            match self.runs.last_mut() {
                Some((last, count)) if last == e => *count += c,
                _ => self.runs.push((e.clone(), *c)),
            }
        }
    }

    /// Number of recorded executions.
    pub fn len(&self) -> u64 {
        self.runs.iter().map(|(_, c)| c).sum()
    }

    /// Whether nothing was recorded.
    pub fn is_empty(&self) -> bool {
        self.runs.is_empty()
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
    /// Noisy releases drawn, one per data access (T for one release per step; more for DP²
    /// variant 1's extra queries).
    pub releases: u64,
    /// The neighbouring relation of the run's events (`None`: a run without a privacy claim).
    pub neighbouring: Option<Neighbouring>,
    /// Updates of a delayed preconditioner from earlier releases (\[LZLRMS\] Alg. 1 line 4; 0 for
    /// the algorithms without one).
    pub preconditioner_updates: u64,
}

impl Run {
    /// A run that returned `x` (last iterate `x_last`) after `steps` steps, with what its
    /// [`PrivateRelease`] recorded.
    pub(crate) fn new(x: Vec<f64>, x_last: Vec<f64>, steps: u64, released: ReleaseSummary) -> Self {
        let ReleaseSummary { events, privacy, releases, neighbouring } = released;
        Run { x, x_last, steps, events, privacy, releases, preconditioner_updates: 0, neighbouring }
    }

    /// ε at `delta` for the events this run executed, by any accountant (RDP, PLD, …): an upper
    /// bound, `None` for a run that executed no privacy event (no claim).
    ///
    /// # Errors
    /// `Unsupported` when the accountant's neighbouring relation is not the run's (an event
    /// accounted under the wrong relation can under-report ε) or the accountant cannot bound the
    /// events; accountant errors.
    pub fn epsilon_with(&self, accountant: &mut impl Accountant, delta: f64) -> Result<Option<f64>> {
        let Some(event) = self.events.as_event() else {
            return Ok(None);
        };
        if self.neighbouring != Some(accountant.neighbouring()) {
            return Err(Error::Unsupported {
                event: "the events of this run".into(),
                neighbouring: accountant.neighbouring().name().into(),
                accountant: accountant.name(),
                reason: format!(
                    "the run was accounted under {} neighbouring; build the accountant with that relation",
                    self.neighbouring.map_or("no", |n| n.name())
                ),
            });
        }
        crate::accounting::epsilon_upper_of(&event, accountant, delta).map(Some)
    }
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

/// Checks a starting point against the dimension and the domain.
pub(crate) fn check_start(x0: &[f64], d: usize) -> Result<()> {
    if x0.len() != d {
        return Err(Error::invalid("x0", x0.len(), "of the data's dimension"));
    }
    check::all_finite("x0", x0)
}
