//! Releases recorded as (ε, δ) claims, and runs whose steps are stopped by a privacy filter
//! (\[GGKKM\] Algorithm 6, Lemma 6.3), read by [`ApproxDpAccountant`].
//!
//! * [`PrivateRelease::release_statistic_epsilon_delta`] draws Gaussian noise on a statistic and
//!   records, **in the same call**, the (ε, δ) point the release is claimed at:
//!   `EpsilonDelta(ε, δ(ε; z))`, z = std/Δ₂, δ(ε; z) the exact Gaussian curve (Balle–Wang) rounded
//!   up. Inside an open subsample ([`PrivateRelease::sample_ordered_subset`]) the claims are
//!   gathered and recorded when it closes as one `SampledWithoutReplacement(n, m,
//!   Composed[claims])`: the releases on one sample are one mechanism on it, amplified once
//!   (amplifying each release separately would under-report: they share the sample).
//! * [`FilteredSteps`] groups a run's events into steps (one event per step) and ends the run
//!   with `Composed[PrivacyFilter(ε, δ′, δ″, first steps), later steps…]`; its report is the
//!   approximate-DP accountant's, which checks the filter condition on the recorded steps.
//!
//! Proof: proofs/private_release.md (the pairing rule), proofs/accounting/approx_dp.md (the
//! accountant and the filter).

use super::{PrivateRelease, ReleaseSummary, SubsampleRecord};
use crate::accounting::{ApproxDpAccountant, DpEvent, Neighbouring, gaussian};
use crate::error::{Error, Result, check};
use crate::optim::{EventLog, PrivacyReport};
use crate::rng::Seeds;

impl PrivateRelease {
    /// Releases a statistic of ℓ2 sensitivity `sensitivity` with noise `N(0, std²)` per
    /// coordinate and records `EpsilonDelta(ε, δ(ε; std/sensitivity))` (the exact Gaussian δ at
    /// the claimed `epsilon`, rounded up) in the same call, or adds it to the open subsample's
    /// claims. Returns that δ. An empty statistic releases nothing.
    ///
    /// # Errors
    /// `InvalidParameter` for a std or sensitivity that is not positive and finite, or ε < 0.
    pub fn release_statistic_epsilon_delta(
        &mut self,
        values: &mut [f64],
        std: f64,
        sensitivity: f64,
        epsilon: f64,
    ) -> Result<f64> {
        if values.is_empty() {
            return Ok(0.0);
        }
        let std = check::positive("noise std", std)?;
        let sensitivity = check::positive("sensitivity", sensitivity)?;
        let delta = gaussian::delta_for_epsilon_upper(epsilon, crate::special::div_down(std, sensitivity))?;
        let claim = DpEvent::epsilon_delta(epsilon, delta)?;
        self.check_subsample_kind(SubsampleRecord::Claim)?;
        crate::noise::add_gaussian(&mut self.noise, values, std)?;
        self.releases += 1;
        match self.subsample.as_mut() {
            Some(open) => open.claims.push(claim),
            None => self.events.push(claim),
        }
        Ok(delta)
    }

    /// Records the claims gathered on a closed subsample of m of n records as one
    /// `SampledWithoutReplacement(n, m, claims)` event (nothing if there were none).
    pub(super) fn record_claims(&mut self, n: usize, m: usize, mut claims: Vec<DpEvent>) -> Result<()> {
        let inner = match claims.len() {
            0 => return Ok(()),
            1 => claims.remove(0),
            _ => DpEvent::Composed(claims),
        };
        self.events.push(DpEvent::sampled_without_replacement(n as u64, m as u64, inner)?);
        Ok(())
    }
}

/// The target of a privacy filter: (ε, δ′, δ″) of \[GGKKM\] Thm. A.4.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct FilterTarget {
    /// ε > 0.
    pub epsilon: f64,
    /// δ′ ∈ (0, 1).
    pub delta_prime: f64,
    /// δ″ ∈ [0, 1).
    pub delta_double_prime: f64,
}

/// A run made of steps, some of them stopped by a privacy filter: one [`PrivateRelease`] (the
/// run's streams), the events of each finished step as one event, and at the end the run's event
/// `Composed[PrivacyFilter(target, first k steps), step k+1, …]` read by [`ApproxDpAccountant`]
/// (replace-one).
#[derive(Debug)]
pub struct FilteredSteps {
    release: PrivateRelease,
    steps: Vec<DpEvent>,
}

impl FilteredSteps {
    /// A run on the sampling and noise streams of `seeds`.
    ///
    /// # Errors
    /// None in practice (the release's own set-up).
    pub fn new(seeds: Seeds) -> Result<Self> {
        Ok(FilteredSteps { release: PrivateRelease::statistics(0.0, seeds)?, steps: Vec::new() })
    }

    /// The release the current step draws through.
    pub fn release(&mut self) -> &mut PrivateRelease {
        &mut self.release
    }

    /// Ends the current step: closes its open subsample and makes everything it recorded one
    /// step event (returned).
    ///
    /// # Errors
    /// `Empty` for a step that recorded nothing; event errors of the closed subsample.
    pub fn end_step(&mut self) -> Result<DpEvent> {
        self.release.close_subsample()?;
        let recorded = std::mem::take(&mut self.release.events);
        let event = recorded.as_event().ok_or(Error::Empty { what: "privacy events of a filtered step" })?;
        self.steps.push(event.clone());
        Ok(event)
    }

    /// The step events so far.
    pub fn steps(&self) -> &[DpEvent] {
        &self.steps
    }

    /// Ends the run: the first `filtered` steps under the filter `target`, the others composed
    /// after it, and the approximate-DP accountant's (ε, δ) of that event (replace-one).
    ///
    /// # Errors
    /// `InvalidParameter` for `filtered` above the number of steps or an invalid target;
    /// `Unsupported` if the filtered steps violate the filter condition (the accountant's check).
    pub fn finish(mut self, target: FilterTarget, filtered: usize) -> Result<ReleaseSummary> {
        if filtered > self.steps.len() {
            return Err(Error::invalid("filtered steps", filtered, "<= the steps executed"));
        }
        let rest = self.steps.split_off(filtered);
        let filter =
            DpEvent::privacy_filter(target.epsilon, target.delta_prime, target.delta_double_prime, self.steps)?;
        let run_event = if rest.is_empty() { filter } else { DpEvent::Composed([vec![filter], rest].concat()) };
        let mut accountant = ApproxDpAccountant::new(Neighbouring::ReplaceOne);
        accountant.compose(&run_event, 1)?;
        let total = accountant.total();
        let mut events = EventLog::default();
        events.push(run_event);
        let privacy = PrivacyReport { epsilon: Some(total.epsilon), delta: Some(total.delta), sigma: 0.0 };
        Ok(ReleaseSummary {
            events,
            privacy,
            releases: self.release.releases,
            neighbouring: Some(Neighbouring::ReplaceOne),
        })
    }
}
