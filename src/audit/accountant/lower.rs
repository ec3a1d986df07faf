//! The certified lower bound on the true ε of an event: an optimistic PLD of the whole event,
//! built leaf by leaf and composed.
//!
//! Every leaf contributes the optimistic (grouping) discretisation of a pair of output laws that
//! the described mechanism **can** produce on some neighbouring pair (D, D′): its PLD is
//! dominated by the mechanism's worst case, so the composition's ε(δ) is a lower bound on the
//! truth (proofs/audit/accountant.md §3.1). Leaves:
//!
//! * Gaussian, Laplace, (ε, δ), randomized response, Poisson-subsampled Gaussian under
//!   add/remove: the PLD accountant's own optimistic side ([`MechanismLoss::discretise`]);
//! * a Gaussian release with multiplier z (relative to the replace-one sensitivity Δ) behind
//!   Poisson sampling with rate q, or fixed-size sampling of b out of n (γ = b/n), under
//!   replace-one: the pair `P = (1 − γ)N(0, s²) + γN(1, s²)`, `Q = (1 − γ)N(0, s²) + γN(−1, s²)`
//!   with s = 2z ([`ReplacePairTails`]): the other records contribute 0, the replaced record
//!   +Δ/2 on D and −Δ/2 on D′, and it enters the batch with probability γ under both schemes;
//! * anything else (a sampled non-Gaussian, sampling with replacement): no lower-bound model;
//!   the leaf is **dropped** (its output ignored, a post-processing, so the rest is still a lower
//!   bound) and named in the report.

use crate::accounting::event::{DpEvent, Neighbouring, check_sampling_probability, check_sizes};
use crate::accounting::pld::discretise::{LossTails, Tails, discretise_tails};
use crate::accounting::pld::interval::Iv;
use crate::accounting::pld::{Direction, DiscretePld, MechanismLoss, PldSettings, Side};
use crate::error::{Error, Result, check};

/// The replace-one pair of a sampled Gaussian release (see the module doc): `L(x) =
/// ln((1 − γ) + γ c u) − ln((1 − γ) + γ c/u)` with `u = e^{x/s²}`, `c = e^{−1/(2s²)}`, increasing
/// in x, so `L > ε ⇔ x > x_ε` with `u_ε` the positive root of `u² − B u − e^ε = 0`,
/// `B = (1 − γ)(e^ε − 1)/(γc)`.
pub struct ReplacePairTails {
    /// γ ∈ (0, 1): the probability that the replaced record is in the batch.
    pub gamma: f64,
    /// s > 0: the noise std in units of half the shift between the two records' contributions.
    pub s: f64,
}

/// An enclosure of √x for x ≥ 0 (IEEE sqrt is correctly rounded: one ulp each side suffices).
fn sqrt_iv(x: Iv) -> Iv {
    Iv::new(x.lo.max(0.0).sqrt().next_down().max(0.0), x.hi.max(0.0).sqrt().next_up())
}

impl ReplacePairTails {
    /// An enclosure of x_ε.
    fn threshold(&self, epsilon: f64) -> Iv {
        let g = Iv::point(self.gamma);
        let s2 = Iv::point(self.s).times(Iv::point(self.s));
        let c = Iv::point(-0.5).div_pos(s2).exp(); // e^{−1/(2s²)}
        let one_g = Iv::point(1.0).minus(g);
        let gc = g.times(c);
        if gc.lo <= 0.0 {
            return Iv::new(f64::NEG_INFINITY, f64::INFINITY);
        }
        let e = Iv::point(epsilon).exp();
        let b = one_g.times(Iv::point(epsilon).exp_m1()).div_pos(gc);
        let disc = sqrt_iv(b.times(b).plus(e.scale(4.0)));
        // u = (B + √(B² + 4e^ε))/2 for B ≥ 0; for B < 0 the cancellation-free 2e^ε/(√(…) − B).
        let u = if b.lo >= 0.0 {
            b.plus(disc).scale(0.5)
        } else if b.hi <= 0.0 {
            let den = disc.minus(b);
            if den.lo <= 0.0 {
                return Iv::new(f64::NEG_INFINITY, f64::INFINITY);
            }
            e.scale(2.0).div_pos(den)
        } else {
            // B straddles 0: the hull of both formulas' enclosures.
            let a = b.plus(disc).scale(0.5);
            let den = disc.minus(b);
            if den.lo <= 0.0 {
                return Iv::new(f64::NEG_INFINITY, f64::INFINITY);
            }
            let other = e.scale(2.0).div_pos(den);
            Iv::new(a.lo.min(other.lo), a.hi.max(other.hi))
        };
        if u.lo.is_nan() || u.lo <= 0.0 {
            return Iv::new(f64::NEG_INFINITY, u.hi.ln() * self.s * self.s);
        }
        u.ln().times(s2)
    }
}

impl LossTails for ReplacePairTails {
    fn tails(&self, epsilon: f64) -> Tails {
        let x = self.threshold(epsilon);
        let s = Iv::point(self.s);
        let g = Iv::point(self.gamma);
        let one_g = Iv::point(1.0).minus(g);
        let mix = |u: Iv, v: Iv| one_g.times(u).plus(g.times(v)).clamp(0.0, 1.0);
        let (s1, c1) = x.negate().div_pos(s).normal_cdf_pair(); // Φ(−x/s), Φ(x/s)
        let (s2, c2) = Iv::point(1.0).minus(x).div_pos(s).normal_cdf_pair(); // Φ((1−x)/s), Φ((x−1)/s)
        let (s3, c3) = Iv::point(-1.0).minus(x).div_pos(s).normal_cdf_pair(); // Φ((−1−x)/s), Φ((1+x)/s)
        Tails { p_gt: mix(s1, s2), p_le: mix(c1, c2), q_gt: mix(s1, s3), q_le: mix(c1, c3) }
    }

    fn support(&self) -> (f64, f64) {
        (f64::NEG_INFINITY, f64::INFINITY)
    }
}

/// The traversal's state: settings, relation, and the dropped leaves.
pub(crate) struct LowerPld {
    pub(crate) neighbouring: Neighbouring,
    pub(crate) settings: PldSettings,
    pub(crate) dropped: Vec<String>,
}

impl LowerPld {
    fn identity(&self) -> DiscretePld {
        DiscretePld::identity(Side::Lower, self.settings.value_discretization_interval)
    }

    fn leaf(&self, m: MechanismLoss, direction: Direction) -> Result<DiscretePld> {
        let s = &self.settings;
        Ok(m.discretise(direction, s.value_discretization_interval, s.tail_mass_truncation, s.max_grid_points)?.lower)
    }

    fn pair(&self, gamma: f64, z: f64) -> Result<DiscretePld> {
        let s = &self.settings;
        let tails = ReplacePairTails { gamma, s: 2.0 * z };
        Ok(discretise_tails(&tails, s.value_discretization_interval, s.tail_mass_truncation, s.max_grid_points)?.lower)
    }

    /// Validates `inner` (by a traversal whose result is discarded) and drops `event`.
    fn drop_leaf(&mut self, event: &DpEvent, inner: Option<&DpEvent>, direction: Direction) -> Result<DiscretePld> {
        if let Some(i) = inner {
            self.pld(i, direction)?;
        }
        let d = event.describe();
        if !self.dropped.contains(&d) {
            self.dropped.push(d);
        }
        Ok(self.identity())
    }

    /// The optimistic PLD of `event` in `direction`.
    pub(crate) fn pld(&mut self, event: &DpEvent, direction: Direction) -> Result<DiscretePld> {
        let tau = self.settings.tail_mass_truncation;
        match event {
            DpEvent::Gaussian { .. } | DpEvent::PerExampleSumGaussian { .. } => {
                let z = self.neighbouring.gaussian_multiplier(event).expect("invariant: a Gaussian release")?;
                self.leaf(MechanismLoss::Gaussian { noise_multiplier: z }, direction)
            }
            DpEvent::Laplace { noise_multiplier: z } => {
                let z = check::positive("laplace noise multiplier", *z)?;
                self.leaf(MechanismLoss::Laplace { noise_multiplier: z }, direction)
            }
            DpEvent::EpsilonDelta { epsilon, delta } => {
                self.leaf(MechanismLoss::EpsilonDelta { epsilon: *epsilon, delta: *delta }, direction)
            }
            DpEvent::RandomizedResponse { noise_parameter, num_buckets } => {
                let m =
                    MechanismLoss::RandomizedResponse { noise_parameter: *noise_parameter, num_buckets: *num_buckets };
                m.validate()?;
                if self.neighbouring == Neighbouring::AddRemove {
                    return Err(Error::Unsupported {
                        event: event.describe(),
                        neighbouring: self.neighbouring.name().to_string(),
                        accountant: "lower-bound",
                        reason: "randomized response is defined under replace-one (the input bucket is replaced); \
                                 use --neighbouring replace-one"
                            .into(),
                    });
                }
                self.leaf(m, direction)
            }
            DpEvent::PoissonSampled { sampling_probability: q, event: inner } => {
                let q = check_sampling_probability(*q)?;
                if q == 0.0 {
                    self.pld(inner, direction)?;
                    return Ok(self.identity());
                }
                if q == 1.0 {
                    return self.pld(inner, direction);
                }
                match self.neighbouring.gaussian_multiplier(inner) {
                    Some(z) => {
                        let z = z?;
                        match self.neighbouring {
                            Neighbouring::AddRemove => self.leaf(
                                MechanismLoss::PoissonGaussian { sampling_probability: q, noise_multiplier: z },
                                direction,
                            ),
                            Neighbouring::ReplaceOne => self.pair(q, z),
                        }
                    }
                    None => self.drop_leaf(event, Some(inner), direction),
                }
            }
            DpEvent::SampledWithoutReplacement { source_dataset_size: n, sample_size: b, event: inner } => {
                check_sizes(*n, *b)?;
                if b == n {
                    return self.pld(inner, direction);
                }
                match (self.neighbouring.gaussian_multiplier(inner), self.neighbouring) {
                    (Some(z), Neighbouring::ReplaceOne) => self.pair(*b as f64 / *n as f64, z?),
                    _ => self.drop_leaf(event, Some(inner), direction),
                }
            }
            DpEvent::SampledWithReplacement { source_dataset_size: n, sample_size: b, event: inner } => {
                check::count("dataset size n", *n)?;
                check::count("batch size b", *b)?;
                self.drop_leaf(event, Some(inner), direction)
            }
            DpEvent::SelfComposed { event: inner, count } => {
                let k = check::count("count", *count)?;
                self.pld(inner, direction)?.self_compose(k, tau)
            }
            DpEvent::Composed(events) => {
                // equal parts compose as one self-composition (`group_equal`)
                let mut acc = self.identity();
                for (e, count) in crate::accounting::pld::group_equal(events) {
                    let p = self.pld(e, direction)?;
                    let p = if count == 1 { p } else { p.self_compose(count, tau)? };
                    acc = acc.compose(&p, tau)?;
                }
                Ok(acc)
            }
            // A filter's loss is not a PLD of its parts: dropped (a lower bound), steps validated.
            DpEvent::PrivacyFilter { target_epsilon, delta_prime, delta_double_prime, steps } => {
                crate::accounting::event::check_filter(*target_epsilon, *delta_prime, *delta_double_prime)?;
                for step in steps {
                    self.pld(step, direction)?;
                }
                self.drop_leaf(event, None, direction)
            }
        }
    }
}
