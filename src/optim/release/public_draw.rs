//! Data-independent draws of a run that can fail a condition its privacy proof needs, e.g. the
//! measurement matrix A of \[GGKKM\] Algorithm 2, whose certified RIP bound fails with
//! probability ≤ δ/2: [`PrivateRelease::draw_public`] draws from the run's own measurement
//! stream and records the failure probability as an `EpsilonDelta(0, δ_fail)` event in the same
//! call.
//!
//! Why that event is honest: the bad event G^c of the draw has the same probability under both
//! neighbours (the draw does not see the data), and conditioned on G the releases that use the
//! draw have the privacy curve the other events describe. So
//! `P[M(S) ∈ E] ≤ (1 − δ_fail)(e^ε P[M(S′) ∈ E | G] + δ_G) + δ_fail ≤ e^ε P[M(S′) ∈ E] + δ_G + δ_fail`,
//! which is exactly how the accountants compose an `EpsilonDelta(0, δ_fail)` event (RDP: the
//! δ carried as `ln P(G)`, proofs/accounting/rdp_accountant.md).
//!
//! Proof: proofs/sparse/gaussian_l1_recovery.md (§3).

use super::PrivateRelease;
use crate::accounting::DpEvent;
use crate::error::{Result, check};
use crate::rng::{DpRng, Stream};

/// The stream of data-independent measurement draws (its own purpose tag, "A2MS").
pub const MEASUREMENT_STREAM: Stream = Stream::Other(0x4132_4d53);

impl PrivateRelease {
    /// Runs `draw` on the measurement stream (separate from the sampling and noise streams) and,
    /// for `failure_delta > 0`, records `EpsilonDelta(0, failure_delta)`: the probability over this
    /// draw that a condition the run's privacy argument needs fails. Inside an open subsample the
    /// event is recorded at once, without amplification (an upper bound).
    ///
    /// # Errors
    /// `InvalidParameter` for `failure_delta ∉ [0, 1)`; the errors of `draw` (then nothing is
    /// recorded).
    pub fn draw_public<T>(&mut self, failure_delta: f64, draw: impl FnOnce(&mut DpRng) -> Result<T>) -> Result<T> {
        let failure_delta = check::probability_below_one("failure probability of a public draw", failure_delta)?;
        let event = if failure_delta > 0.0 { Some(DpEvent::epsilon_delta(0.0, failure_delta)?) } else { None };
        let out = draw(&mut self.measurement)?;
        if let Some(event) = event {
            self.events.push(event);
        }
        Ok(out)
    }
}
