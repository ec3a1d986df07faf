//! What every private run of \[GGKKM\] reports about its privacy: the events it executed and the
//! (ε, δ) read from them ([`Accounted`]), with the readings the family uses: one noisy release
//! (Algorithms 1–3, [`Accounted::read_release`]), the approximate-DP accountant on a whole event
//! log (Algorithm 7, [`Accounted::approximate_dp`]), pure or RDP composition (Algorithm 5,
//! [`Accounted::pure_or_rdp`]), or what a release's own accountant read
//! (Algorithm 6's privacy filter, `From<ReleaseSummary>`).
//!
//! Proof: proofs/sparse/projection_mechanism.md, proofs/sparse/gaussian_l1_recovery.md and
//! proofs/sparse/output_perturbation.md (their privacy sections).

use crate::accounting::{Accountant, ApproxDpAccountant, Conversion, DpEvent, Neighbouring, RdpAccountant, gaussian};
use crate::error::{Error, Result};
use crate::optim::{EventLog, PrivacyReport, PrivateRelease, ReleaseSummary};
use serde::Serialize;

/// The events a run executed and the privacy read from them, embedded (flattened) in each
/// \[GGKKM\] run result: nobody types ε next to a run, it is always derived from `events`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Accounted {
    /// The privacy events executed.
    pub events: EventLog,
    /// The privacy the accountant reads from `events`.
    pub privacy: PrivacyReport,
}

impl Accounted {
    /// No events yet, nothing read (the noise multiplier `sigma` noted): the value a
    /// mechanism's `release_mean` returns before its `run` reads what the release recorded.
    pub fn unread(sigma: f64) -> Self {
        Accounted { events: EventLog::default(), privacy: PrivacyReport { epsilon: None, delta: None, sigma } }
    }

    /// Closes `release` and reads its events as one noisy release of Algorithms 1–3, at the
    /// configured δ:
    /// - `Laplace(z)` → pure ε = 1/z (rounded up), δ = 0 (Thm. 3.2; Thm. 5.1, δ = 0);
    /// - `Gaussian(z)` → the exact Gaussian curve's ε at δ ([`gaussian::epsilon_for_delta`],
    ///   rounded up; Thm. 3.3, Alg. 2's line 2, Thm. 5.1);
    /// - `EpsilonDelta(0, δ_f)` then `Gaussian(z)`, δ_f < δ → the exact curve's ε at δ − δ_f,
    ///   reported with δ (Alg. 2's measurement draw, whose failure probability and the
    ///   Gaussian's δ add; Thm. 3.4).
    ///
    /// `what` names the mechanism in the error.
    ///
    /// # Errors
    /// `Numerical` for any other event list; release and accountant errors.
    pub fn read_release(release: PrivateRelease, delta: f64, what: &'static str) -> Result<Self> {
        let events = release.finish()?.events;
        let unexpected = || Error::Numerical {
            what,
            reason: format!(
                "expected one Laplace or Gaussian release, or EpsilonDelta(0, delta_f) then Gaussian, found {:?}",
                events.as_event().map(|e| e.describe())
            ),
        };
        let (z, delta_gaussian) = match events.as_event() {
            // pure ε = 1/z rounded up, as the approximate-DP accountant reads a Laplace release
            Some(DpEvent::Laplace { .. }) => return Accounted::approximate_dp(events, what),
            Some(DpEvent::Gaussian { noise_multiplier }) => (noise_multiplier, delta),
            Some(DpEvent::Composed(parts)) => match parts.as_slice() {
                [DpEvent::EpsilonDelta { epsilon, delta: fail }, DpEvent::Gaussian { noise_multiplier }]
                    if *epsilon == 0.0 && *fail < delta =>
                {
                    (*noise_multiplier, delta - fail)
                }
                _ => return Err(unexpected()),
            },
            _ => return Err(unexpected()),
        };
        let epsilon = gaussian::epsilon_for_delta(z, delta_gaussian)?;
        Ok(Accounted { privacy: PrivacyReport { epsilon: Some(epsilon), delta: Some(delta), sigma: 0.0 }, events })
    }

    /// Reads `events` with the approximate-DP accountant under replace-one (basic composition of
    /// `EpsilonDelta` claims, filters, pure selections; \[GGKKM\] Lemma 6.3 and Thm. 7.1's
    /// composition). `what` names the log in the error.
    ///
    /// # Errors
    /// `Empty` for an empty log; `Unsupported` for an event the accountant cannot read.
    pub fn approximate_dp(events: EventLog, what: &'static str) -> Result<Self> {
        let event = events.as_event().ok_or(Error::Empty { what })?;
        let mut accountant = ApproxDpAccountant::new(Neighbouring::ReplaceOne);
        accountant.compose(&event, 1)?;
        let total = accountant.total();
        Ok(Accounted {
            events,
            privacy: PrivacyReport { epsilon: Some(total.epsilon), delta: Some(total.delta), sigma: 0.0 },
        })
    }

    /// Reads the events of Algorithm 5's stand-alone call: δ = 0, pure ε = Σ 1/zᵢ over the
    /// Laplace events (basic composition by [`ApproxDpAccountant`], rounded up), δ = 0; δ > 0, the RDP accountant's ε at δ
    /// (replace-one, amplification by sampling without replacement). An empty log reads ε = 0 at
    /// δ.
    ///
    /// # Errors
    /// `Numerical` for a non-Laplace event when δ = 0; accountant errors.
    pub fn pure_or_rdp(events: EventLog, delta: f64) -> Result<Self> {
        let Some(event) = events.as_event() else {
            return Ok(Accounted {
                events,
                privacy: PrivacyReport { epsilon: Some(0.0), delta: Some(delta), sigma: 0.0 },
            });
        };
        if delta == 0.0 {
            // basic composition of the Laplace releases by the approximate-DP accountant; a δ > 0
            // here means a non-pure event reached a pure run
            let read = Accounted::approximate_dp(events, "bias-reduced estimator events")?;
            if read.privacy.delta != Some(0.0) {
                return Err(Error::Numerical {
                    what: "bias-reduced estimator accounting",
                    reason: format!("expected pure releases for delta = 0, found {}", event.describe()),
                });
            }
            return Ok(read);
        }
        let mut acc = RdpAccountant::new(Neighbouring::ReplaceOne);
        acc.compose(&event, 1)?;
        let epsilon = acc.epsilon(delta, Conversion::Improved)?.epsilon;
        Ok(Accounted { events, privacy: PrivacyReport { epsilon: Some(epsilon), delta: Some(delta), sigma: 0.0 } })
    }
}

impl From<ReleaseSummary> for Accounted {
    /// The events a release recorded and the privacy its own accountant read from them.
    fn from(summary: ReleaseSummary) -> Self {
        Accounted { events: summary.events, privacy: summary.privacy }
    }
}
