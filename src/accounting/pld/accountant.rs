//! The PLD accountant: events in, certified brackets `[lower, upper]` on ε (or δ) out.
//!
//! [`PldAccountant`] keeps, for its [`Neighbouring`] relation, four discretised PLDs of
//! everything composed so far: pessimistic and optimistic, for the remove and the add direction
//! (one pair when all events are symmetric). `epsilon(δ)` returns the larger ε of the two
//! directions on each side: the upper end is an ε at which the composition is (ε, δ)-DP, the
//! lower end an ε below which it is not (for the worst case the events describe).
//!
//! Supported events (anything else is an [`Error::Unsupported`] naming the sub-event):
//!
//! | event | add/remove | replace-one |
//! |---|---|---|
//! | `Gaussian { z }` | yes | yes |
//! | `PerExampleSumGaussian { σ }` | yes (z = σ) | yes (z = σ/2) |
//! | `Laplace { z }` | yes | yes |
//! | `EpsilonDelta { ε, δ }` | yes | yes |
//! | `PoissonSampled { q, Gaussian or PerExampleSumGaussian }` | yes (both directions) | only q ∈ {0, 1} |
//! | `PoissonSampled { q ∈ {0, 1}, e }` | as e | as e |
//! | `SampledWithoutReplacement { n, b = n, e }` | as e | as e |
//! | `SampledWithoutReplacement { n, b < n, … }`, `SampledWithReplacement` | no | no |
//! | `SelfComposed`, `Composed` | as their parts | as their parts |
//! | `RandomizedResponse { p, k }` (or [`super::randomized_response`] via [`PldAccountant::compose_mechanism`]) | no | yes |
//!
//! One traversal ([`PldAccountant::supports`] runs its planning half) validates everything before
//! anything is computed; `count` is applied in one place (the `SelfComposed` node, which
//! `compose` wraps around its argument); the state changes only after the whole event has been
//! discretised and composed; the ledger records it afterwards.
//!
//! **No NaN reaches a result**: an upper end that is NaN becomes +∞ and a lower end 0, the
//! trivially safe values.

use super::discretise::Discretised;
use super::mechanisms::{Direction, MechanismLoss};
use super::pmf::{DiscretePld, Side, snap_interval};
use crate::accounting::accountant::{Accountant, nan_as_infinity};
use crate::accounting::event::{DpEvent, Neighbouring, check_sampling_probability, check_sizes};
use crate::error::{Error, Result, check};
use serde::{Deserialize, Serialize};

/// Discretisation settings.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PldSettings {
    /// Grid spacing h of the privacy losses (dp_accounting's `value_discretization_interval`),
    /// in [1e-8, 1]; rounded to 20 significant bits so that grid sums are exact. Smaller is
    /// tighter and slower: the bracket width shrinks roughly like h.
    pub value_discretization_interval: f64,
    /// Tail mass τ cut at each end of each PLD and after each composition (pessimistic: moved to
    /// +∞ or up; optimistic: dropped), in (0, 1e-6].
    pub tail_mass_truncation: f64,
    /// The largest number of grid points of one mechanism's PLD (a guard against a grid too fine
    /// for the losses' range), ≥ 16.
    pub max_grid_points: usize,
}

impl Default for PldSettings {
    /// h = 1e-4 (dp_accounting's default), τ = 1e-15, at most 2²⁴ grid points.
    fn default() -> Self {
        PldSettings { value_discretization_interval: 1e-4, tail_mass_truncation: 1e-15, max_grid_points: 1 << 24 }
    }
}

impl PldSettings {
    /// The settings with `h` snapped (see the field), validated.
    ///
    /// # Errors
    /// `InvalidParameter` for a field outside its range.
    pub fn validated(self) -> Result<Self> {
        let h = snap_interval(self.value_discretization_interval)?;
        let tau = self.tail_mass_truncation;
        if !(tau > 0.0 && tau <= 1e-6) {
            return Err(Error::invalid("tail_mass_truncation", tau, "in (0, 1e-6]"));
        }
        if self.max_grid_points < 16 {
            return Err(Error::invalid("max_grid_points", self.max_grid_points, ">= 16"));
        }
        Ok(PldSettings { value_discretization_interval: h, ..self })
    }
}

/// A certified bracket on ε at a given δ: the true ε(δ) of the composed events (their worst case
/// under the relation) lies in `[lower, upper]`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct EpsilonBracket {
    /// ε at which the composition is *not* (ε′, δ)-DP for any ε′ < lower (≥ 0).
    pub lower: f64,
    /// ε at which the composition is (ε, δ)-DP: the accountant's answer. +∞ when δ is not above
    /// the accumulated rounding bound plus the infinite-loss mass (see proofs/accounting/pld.md
    /// §1, "Limitation").
    pub upper: f64,
}

impl EpsilonBracket {
    /// `upper − lower`.
    pub fn width(&self) -> f64 {
        self.upper - self.lower
    }
}

/// A certified bracket on δ at a given ε: the true δ(ε) lies in `[lower, upper]`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct DeltaBracket {
    /// A lower bound on the true δ(ε) (≥ 0).
    pub lower: f64,
    /// An upper bound on the true δ(ε) (≤ 1): the accountant's answer.
    pub upper: f64,
}

/// What the ledger records: an event, or a mechanism given directly.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum Composable {
    /// A [`DpEvent`].
    Event(DpEvent),
    /// A [`MechanismLoss`] without an event (randomized response).
    Mechanism(MechanismLoss),
}

/// The planned computation of an event: validated, relation applied, count in one node.
#[derive(Debug, Clone, PartialEq)]
enum Plan {
    Identity,
    Leaf(MechanismLoss),
    SelfComposed(Box<Plan>, u64),
    Composed(Vec<Plan>),
}

/// Pessimistic and optimistic PLDs of one direction.
#[derive(Debug, Clone)]
struct Sides {
    upper: DiscretePld,
    lower: DiscretePld,
}

/// The PLDs of both directions (`add: None` when it equals `remove`).
#[derive(Debug, Clone)]
struct Curves {
    remove: Sides,
    add: Option<Sides>,
}

impl Sides {
    fn identity(h: f64) -> Sides {
        Sides { upper: DiscretePld::identity(Side::Upper, h), lower: DiscretePld::identity(Side::Lower, h) }
    }

    fn from(d: Discretised) -> Sides {
        Sides { upper: d.upper, lower: d.lower }
    }

    fn map(&self, f: impl Fn(&DiscretePld) -> Result<DiscretePld> + Sync) -> Result<Sides> {
        let (u, l) = rayon::join(|| f(&self.upper), || f(&self.lower));
        Ok(Sides { upper: u?, lower: l? })
    }

    fn zip(&self, o: &Sides, f: impl Fn(&DiscretePld, &DiscretePld) -> Result<DiscretePld> + Sync) -> Result<Sides> {
        let (u, l) = rayon::join(|| f(&self.upper, &o.upper), || f(&self.lower, &o.lower));
        Ok(Sides { upper: u?, lower: l? })
    }
}

impl Curves {
    fn identity(h: f64) -> Curves {
        Curves { remove: Sides::identity(h), add: None }
    }

    fn add_or_remove(&self) -> &Sides {
        self.add.as_ref().unwrap_or(&self.remove)
    }

    fn map(&self, f: impl Fn(&DiscretePld) -> Result<DiscretePld> + Sync + Copy) -> Result<Curves> {
        match &self.add {
            None => Ok(Curves { remove: self.remove.map(f)?, add: None }),
            Some(a) => {
                let (r, a) = rayon::join(|| self.remove.map(f), || a.map(f));
                Ok(Curves { remove: r?, add: Some(a?) })
            }
        }
    }

    fn zip(
        &self,
        o: &Curves,
        f: impl Fn(&DiscretePld, &DiscretePld) -> Result<DiscretePld> + Sync + Copy,
    ) -> Result<Curves> {
        if self.add.is_none() && o.add.is_none() {
            return Ok(Curves { remove: self.remove.zip(&o.remove, f)?, add: None });
        }
        let (r, a) = rayon::join(|| self.remove.zip(&o.remove, f), || self.add_or_remove().zip(o.add_or_remove(), f));
        Ok(Curves { remove: r?, add: Some(a?) })
    }

    fn directions(&self) -> Vec<&Sides> {
        let mut v = vec![&self.remove];
        if let Some(a) = &self.add {
            v.push(a);
        }
        v
    }
}

/// Privacy-loss-distribution accountant with certified brackets.
///
/// ```
/// use dpref::accounting::{Accountant, DpEvent, Neighbouring, pld::PldAccountant};
/// // 1000 steps of Poisson-sampled (q = 0.01) Gaussian noise with multiplier 1.0.
/// let step = DpEvent::poisson_sampled(0.01, DpEvent::gaussian(1.0)?)?;
/// let mut acc = PldAccountant::new(Neighbouring::AddRemove);
/// acc.compose(&step, 1000)?;
/// let eps = acc.epsilon(1e-5)?;
/// assert!(eps.lower <= eps.upper && eps.upper < 2.1014); // below the RDP accountant's 2.1014
/// assert!(eps.width() < 0.01);
/// # Ok::<(), dpref::Error>(())
/// ```
///
/// Proof: proofs/accounting/pld.md.
#[derive(Debug, Clone)]
pub struct PldAccountant {
    neighbouring: Neighbouring,
    settings: PldSettings,
    state: Curves,
    ledger: Vec<(Composable, u64)>,
}

impl Accountant for PldAccountant {
    fn name(&self) -> &'static str {
        "pld"
    }

    /// The neighbouring relation fixed at construction.
    fn neighbouring(&self) -> Neighbouring {
        self.neighbouring
    }

    /// Dry run of [`compose`](Self::compose): `Ok` iff composing `event` (with any count ≥ 1)
    /// is supported and its parameters are valid. Computes no PLD.
    ///
    /// # Errors
    /// As `compose`'s validation.
    fn supports(&self, event: &DpEvent) -> Result<()> {
        self.plan(event).map(|_| ())
    }

    /// Composes `event` `count` times. Atomic: on error nothing changes.
    ///
    /// # Errors
    /// `Unsupported` naming the sub-event for combinations outside the module table;
    /// `InvalidParameter` for invalid parameters anywhere in the event or `count = 0`; `Numerical`
    /// if a PLD does not fit the grid (increase the interval).
    fn compose(&mut self, event: &DpEvent, count: u64) -> Result<()> {
        check::count("count", count)?;
        let plan = self.plan(&DpEvent::SelfComposed { event: Box::new(event.clone()), count })?;
        self.commit(&plan)?;
        self.ledger.push((Composable::Event(event.clone()), count));
        Ok(())
    }

    /// The upper end of the certified bracket.
    fn epsilon_upper(&self, delta: f64) -> Result<f64> {
        Ok(nan_as_infinity(self.epsilon(delta)?.upper))
    }
}

impl PldAccountant {
    /// An empty accountant with [`PldSettings::default`].
    pub fn new(neighbouring: Neighbouring) -> Self {
        let settings = PldSettings::default().validated().expect("invariant: default settings are valid");
        let h = settings.value_discretization_interval;
        PldAccountant { neighbouring, settings, state: Curves::identity(h), ledger: Vec::new() }
    }

    /// An empty accountant with the given settings (validated; h snapped).
    ///
    /// # Errors
    /// `InvalidParameter` for invalid settings.
    pub fn with_settings(neighbouring: Neighbouring, settings: PldSettings) -> Result<Self> {
        let settings = settings.validated()?;
        let h = settings.value_discretization_interval;
        Ok(PldAccountant { neighbouring, settings, state: Curves::identity(h), ledger: Vec::new() })
    }

    /// The settings in force (h snapped).
    pub fn settings(&self) -> PldSettings {
        self.settings
    }

    /// What has been composed, in order, with counts.
    pub fn ledger(&self) -> &[(Composable, u64)] {
        &self.ledger
    }

    /// The composed PLD of one direction and side (`Add` equals `Remove` while every composed
    /// event is symmetric).
    pub fn pld(&self, direction: Direction, side: Side) -> &DiscretePld {
        let s = match direction {
            Direction::Remove => &self.state.remove,
            Direction::Add => self.state.add_or_remove(),
        };
        match side {
            Side::Upper => &s.upper,
            Side::Lower => &s.lower,
        }
    }

    /// Composes a mechanism given directly (randomized response, until it has an event) `count`
    /// times. Atomic.
    ///
    /// # Errors
    /// `Unsupported` for randomized response under add/remove and for a Poisson-subsampled
    /// mechanism under replace-one; `InvalidParameter` for invalid parameters or `count = 0`.
    pub fn compose_mechanism(&mut self, mechanism: &MechanismLoss, count: u64) -> Result<()> {
        check::count("count", count)?;
        let leaf = self.check_mechanism(mechanism)?;
        self.commit(&Plan::SelfComposed(Box::new(leaf), count))?;
        self.ledger.push((Composable::Mechanism(mechanism.clone()), count));
        Ok(())
    }

    /// Bracket on ε at `delta` for everything composed.
    ///
    /// # Errors
    /// `InvalidParameter` for δ ∉ (0, 1); `Numerical` if the two sides contradict each other (a
    /// defect, reported instead of a number).
    pub fn epsilon(&self, delta: f64) -> Result<EpsilonBracket> {
        check::open_unit("delta", delta)?;
        let (lower, upper) = self.bracket("PLD epsilon bracket", f64::INFINITY, |pld| pld.epsilon(delta))?;
        Ok(EpsilonBracket { lower, upper })
    }

    /// Bracket on δ at `epsilon` for everything composed.
    ///
    /// # Errors
    /// `InvalidParameter` for ε < 0 or NaN; `Numerical` if the sides contradict each other.
    pub fn delta(&self, epsilon: f64) -> Result<DeltaBracket> {
        if epsilon.is_nan() || epsilon < 0.0 {
            return Err(Error::invalid("epsilon", epsilon, ">= 0"));
        }
        let (lower, upper) = self.bracket("PLD delta bracket", 1.0, |pld| pld.delta(epsilon))?;
        Ok(DeltaBracket { lower, upper })
    }

    /// `(lower, upper)`: the largest `query` over the directions on each side, a NaN read as
    /// `upper_nan` on the upper side and 0 on the lower; `Numerical` (naming `what`) if the lower
    /// end lies above the upper.
    fn bracket(&self, what: &'static str, upper_nan: f64, query: impl Fn(&DiscretePld) -> f64) -> Result<(f64, f64)> {
        let (mut lower, mut upper) = (0.0f64, 0.0f64);
        for s in self.state.directions() {
            let u = query(&s.upper);
            let l = query(&s.lower);
            upper = upper.max(if u.is_nan() { upper_nan } else { u });
            lower = lower.max(if l.is_nan() { 0.0 } else { l });
        }
        if lower > upper {
            return Err(Error::Numerical { what, reason: format!("lower end {lower} above upper end {upper}") });
        }
        Ok((lower, upper))
    }

    fn unsupported(&self, what: String, reason: impl Into<String>) -> Error {
        Error::Unsupported {
            event: what,
            neighbouring: self.neighbouring.name().to_string(),
            accountant: "PLD",
            reason: reason.into(),
        }
    }

    /// A mechanism given directly, checked against the relation.
    fn check_mechanism(&self, m: &MechanismLoss) -> Result<Plan> {
        m.validate()?;
        match m {
            MechanismLoss::RandomizedResponse { .. } if self.neighbouring == Neighbouring::AddRemove => Err(self
                .unsupported(
                    m.describe(),
                    "randomized response is analysed under replace-one (the input bucket is replaced); \
                     use --neighbouring replace-one",
                )),
            MechanismLoss::PoissonGaussian { sampling_probability: q, .. }
                if self.neighbouring == Neighbouring::ReplaceOne && *q > 0.0 && *q < 1.0 =>
            {
                Err(self.poisson_replace_one(m.describe()))
            }
            _ => Ok(Plan::Leaf(m.clone())),
        }
    }

    fn poisson_replace_one(&self, what: String) -> Error {
        self.unsupported(
            what,
            "no certified PLD bound for Poisson subsampling under replace-one is implemented (the pair \
             (1-q)N(0)+qN(-1) vs (1-q)N(0)+qN(1) is not proven to dominate the vector-valued mechanism \
             under composition here); use --neighbouring add-remove, or the RDP accountant with \
             fixed-size sampling without replacement for replace-one",
        )
    }

    /// The planning half of the one traversal: validates and maps the event to mechanisms.
    fn plan(&self, event: &DpEvent) -> Result<Plan> {
        match event {
            DpEvent::Gaussian { .. } | DpEvent::PerExampleSumGaussian { .. } => {
                let z = self.neighbouring.gaussian_multiplier(event).expect("invariant: a Gaussian release")?;
                if z == 0.0 {
                    // σ/2 of a positive σ underflowed (σ = 5e-324 under replace-one); it read
                    // "sigma = 0: must be > 0", a value the user never gave
                    return Err(Error::Numerical {
                        what: "PLD accounting",
                        reason: format!(
                            "the replace-one multiplier of {} underflows to 0: no finite epsilon",
                            event.describe()
                        ),
                    });
                }
                Ok(Plan::Leaf(MechanismLoss::Gaussian { noise_multiplier: z }))
            }
            DpEvent::Laplace { noise_multiplier: z } => {
                let z = check::positive("laplace noise multiplier", *z)?;
                Ok(Plan::Leaf(MechanismLoss::Laplace { noise_multiplier: z }))
            }
            DpEvent::EpsilonDelta { epsilon, delta } => {
                let m = MechanismLoss::EpsilonDelta { epsilon: *epsilon, delta: *delta };
                m.validate()?;
                Ok(Plan::Leaf(m))
            }
            DpEvent::PoissonSampled { sampling_probability: q, event: inner } => {
                let q = check_sampling_probability(*q)?;
                if q == 0.0 {
                    self.plan(inner)?; // still validate
                    return Ok(Plan::Identity);
                }
                if q == 1.0 {
                    return self.plan(inner);
                }
                match self.neighbouring.gaussian_multiplier(inner) {
                    Some(z) => {
                        let z = z?;
                        if self.neighbouring == Neighbouring::ReplaceOne {
                            return Err(self.poisson_replace_one(event.describe()));
                        }
                        Ok(Plan::Leaf(MechanismLoss::PoissonGaussian { sampling_probability: q, noise_multiplier: z }))
                    }
                    None => {
                        self.plan(inner)?;
                        Err(self.unsupported(
                            event.describe(),
                            "the PLD accountant bounds Poisson subsampling of the Gaussian mechanism only",
                        ))
                    }
                }
            }
            DpEvent::SampledWithoutReplacement { source_dataset_size: n, sample_size: b, event: inner } => {
                check_sizes(*n, *b)?;
                if b == n {
                    return self.plan(inner);
                }
                self.plan(inner)?;
                Err(self.unsupported(
                    event.describe(),
                    "no certified PLD bound for fixed-size sampling without replacement is implemented \
                     (the dominating pairs used by other libraries are not valid under composition in \
                     general); use the RDP accountant with --neighbouring replace-one",
                ))
            }
            DpEvent::RandomizedResponse { noise_parameter, num_buckets } => {
                let m =
                    MechanismLoss::RandomizedResponse { noise_parameter: *noise_parameter, num_buckets: *num_buckets };
                self.check_mechanism(&m)
            }
            DpEvent::SampledWithReplacement { .. } => Err(self.unsupported(
                event.describe(),
                "no accountant covers sampling with replacement (a record may enter a batch several \
                 times); use Poisson or fixed-size sampling without replacement",
            )),
            DpEvent::PrivacyFilter { .. } => Err(self.unsupported(
                event.describe(),
                "a privacy filter is an (epsilon, delta) statement about steps read as (epsilon_t, delta_t) \
                 pairs, not a privacy loss distribution; use the approximate-DP accountant",
            )),
            DpEvent::SelfComposed { event: inner, count } => {
                let k = check::count("count", *count)?;
                Ok(Plan::SelfComposed(Box::new(self.plan(inner)?), k))
            }
            DpEvent::Composed(events) => {
                // equal parts compose as one self-composition (`group_equal`)
                let parts = events.iter().map(|e| self.plan(e)).collect::<Result<Vec<_>>>()?;
                Ok(Plan::Composed(
                    super::group_equal(parts)
                        .into_iter()
                        .map(|(part, count)| if count == 1 { part } else { Plan::SelfComposed(Box::new(part), count) })
                        .collect(),
                ))
            }
        }
    }

    /// The computing half: the PLDs of a plan.
    fn execute(&self, plan: &Plan) -> Result<Curves> {
        let s = &self.settings;
        let (h, tau, max) = (s.value_discretization_interval, s.tail_mass_truncation, s.max_grid_points);
        match plan {
            Plan::Identity => Ok(Curves::identity(h)),
            Plan::Leaf(m) => {
                if m.is_symmetric() {
                    Ok(Curves { remove: Sides::from(m.discretise(Direction::Remove, h, tau, max)?), add: None })
                } else {
                    let (r, a) = rayon::join(
                        || m.discretise(Direction::Remove, h, tau, max),
                        || m.discretise(Direction::Add, h, tau, max),
                    );
                    Ok(Curves { remove: Sides::from(r?), add: Some(Sides::from(a?)) })
                }
            }
            // The one place where a count multiplies (dp_accounting 0.6.0 drops it for RR).
            Plan::SelfComposed(inner, k) => {
                let c = self.execute(inner)?;
                let k = *k;
                c.map(move |p| p.self_compose(k, tau))
            }
            Plan::Composed(parts) => {
                let mut acc = Curves::identity(h);
                for p in parts {
                    let c = self.execute(p)?;
                    acc = acc.zip(&c, move |a, b| a.compose(b, tau))?;
                }
                Ok(acc)
            }
        }
    }

    fn commit(&mut self, plan: &Plan) -> Result<()> {
        let tau = self.settings.tail_mass_truncation;
        let c = self.execute(plan)?;
        let next = self.state.zip(&c, move |a, b| a.compose(b, tau))?;
        self.state = next;
        Ok(())
    }
}
