//! Private *selections* of a run (report-noisy-min, the exponential mechanism): [`PrivateSelection`]
//! draws a noisy argmin and records its pure-ε event in the same call, the selection sibling of
//! [`PrivateRelease`](super::PrivateRelease).
//!
//! Proof: proofs/private_release.md.

use super::ReleaseSummary;
use crate::accounting::{DpEvent, Neighbouring};
use crate::error::{Error, Result, check};
use crate::noise::Selection;
use crate::optim::{EventLog, PrivacyReport};
use crate::rng::{DpRng, Seeds, Stream};

/// How a private selection picks the index of the smallest score (\[AFKT\] Alg. 3, line 14).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum SelectionMechanism {
    /// Report-noisy-min: `argmin_i (sᵢ + ζᵢ)`, `ζᵢ ~ Lap(λ)` i.i.d. (the paper's).
    ReportNoisyMin,
    /// The exponential mechanism `P(i) ∝ exp(−sᵢ/λ)` (TTZ15), sampled by inverse CDF from its
    /// closed-form probabilities ([`exponential_selection_probabilities`]).
    Exponential,
}

/// The private selections of a run: draws a noisy argmin and records its pure-ε event in the same
/// call (the selection sibling of [`PrivateRelease`](super::PrivateRelease)).
///
/// With scale λ on scores of sensitivity Δ (every score moves by at most Δ between neighbours),
/// both mechanisms are `ε′ = 2Δ/λ`-DP (Dwork–Roth Claim 3.9 with the general, non-monotone scale
/// `2Δ/ε′`; McSherry–Talwar), and the event recorded is `EpsilonDelta(2Δ/λ, 0)`. λ = 0 is the
/// non-private exact argmin (first on ties): no draw, no event.
#[derive(Debug)]
pub struct PrivateSelection {
    mechanism: SelectionMechanism,
    neighbouring: Neighbouring,
    noise: DpRng,
    events: EventLog,
    releases: u64,
}

impl PrivateSelection {
    /// Selections by `mechanism` on the noise stream of `seeds`, accounted under `neighbouring`.
    pub fn new(mechanism: SelectionMechanism, neighbouring: Neighbouring, seeds: Seeds) -> Self {
        PrivateSelection {
            mechanism,
            neighbouring,
            noise: seeds.stream(Stream::Noise),
            events: EventLog::default(),
            releases: 0,
        }
    }

    /// The index of the (noisily) smallest score at scale λ for scores of sensitivity Δ, and its
    /// event `EpsilonDelta(2Δ/λ, 0)` recorded (λ = 0: the exact argmin, nothing recorded).
    ///
    /// # Errors
    /// `Empty` or `NonFinite` scores; `InvalidParameter` for λ < 0 or not finite, or (λ > 0) Δ not
    /// finite and positive.
    pub fn select_min(&mut self, scores: &[f64], scale_lambda: f64, sensitivity: f64) -> Result<usize> {
        if scores.is_empty() {
            return Err(Error::Empty { what: "scores" });
        }
        check::all_finite("scores", scores)?;
        let lambda = check::non_negative("selection scale lambda", scale_lambda)?;
        if lambda == 0.0 {
            let mut best = 0;
            for (i, s) in scores.iter().enumerate() {
                if *s < scores[best] {
                    best = i;
                }
            }
            return Ok(best);
        }
        let delta = check::positive("score sensitivity", sensitivity)?;
        let event = DpEvent::epsilon_delta(selection_epsilon(delta, lambda), 0.0)?;
        let selection = Selection::at_scale(lambda)?;
        let index = match self.mechanism {
            SelectionMechanism::ReportNoisyMin => selection.report_noisy_min(&mut self.noise, scores)?,
            SelectionMechanism::Exponential => {
                let negated: Vec<f64> = scores.iter().map(|s| -s).collect();
                selection.exponential_mechanism(&mut self.noise, &negated)?
            }
        };
        self.releases += 1;
        self.events.push(event);
        Ok(index)
    }

    /// Ends the run: its events, `epsilon` as the run's own composition of them reads it (pure DP,
    /// δ = 0; `None` for a run without a claim), and the number of noisy selections.
    pub fn finish(self, epsilon: Option<f64>) -> ReleaseSummary {
        let claim = epsilon.is_some();
        let privacy = PrivacyReport { epsilon, delta: claim.then_some(0.0), sigma: 0.0 };
        let neighbouring = claim.then_some(self.neighbouring);
        ReleaseSummary { events: self.events, privacy, releases: self.releases, neighbouring }
    }
}

/// The exact probabilities of [`SelectionMechanism::Exponential`] at scale λ > 0 for scores of
/// sensitivity Δ: `P(i) = exp(−sᵢ/λ)/Σⱼ exp(−sⱼ/λ)`, computed as [`PrivateSelection::select_min`]
/// samples it (the same call: an exact audit sees the probabilities the sampler inverts, up to the
/// float caveat of `crate::noise`: a probability that rounds to 0 on one dataset and to 2⁻⁵² on
/// its neighbour makes the float sampler (ε, ≈2⁻⁵²)-DP, not ε-DP).
///
/// # Errors
/// As [`PrivateSelection::select_min`], and λ = 0.
pub fn exponential_selection_probabilities(scores: &[f64], scale_lambda: f64, sensitivity: f64) -> Result<Vec<f64>> {
    let lambda = check::positive("selection scale lambda", scale_lambda)?;
    check::positive("score sensitivity", sensitivity)?;
    let negated: Vec<f64> = scores.iter().map(|s| -s).collect();
    Selection::at_scale(lambda)?.exponential_mechanism_probabilities(&negated)
}

/// The ε of one selection at scale λ on scores of sensitivity Δ: `2Δ/λ` (non-monotone scores),
/// rounded **up**, so the recorded ε bounds the mechanism that drew at exactly λ.
pub fn selection_epsilon(sensitivity: f64, scale_lambda: f64) -> f64 {
    crate::special::div_up(2.0 * sensitivity, scale_lambda)
}
