//! Composition of (ε, δ)-DP mechanisms without Rényi analysis.
//!
//! * **basic**: k mechanisms (εᵢ, δᵢ) compose to (Σεᵢ, Σδᵢ) (Dwork & Roth 2014, Thm. 3.16).
//! * **advanced**: k adaptive (ε, δ) mechanisms are, for any δ′ > 0,
//!   `(√(2k ln(1/δ′))·ε + kε(e^ε − 1), kδ + δ′)`-DP (Dwork, Rothblum, Vadhan 2010; Dwork & Roth
//!   2014, Thm. 3.20).
//!
//! Results are rounded up. Proof: proofs/accounting/composition.md.

use crate::error::{Error, Result, check};

const U: f64 = f64::EPSILON / 2.0;

/// An (ε, δ) pair.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct ApproxDp {
    /// ε ≥ 0.
    pub epsilon: f64,
    /// δ ∈ [0, 1].
    pub delta: f64,
}

/// Basic composition: `(Σεᵢ, Σδᵢ)`, rounded up, δ capped at 1.
///
/// # Errors
/// `Empty` for no mechanisms; `InvalidParameter` for ε < 0 or δ ∉ [0, 1).
pub fn basic(mechanisms: &[ApproxDp]) -> Result<ApproxDp> {
    if mechanisms.is_empty() {
        return Err(Error::Empty { what: "mechanisms" });
    }
    let (mut e, mut d) = (0.0f64, 0.0f64);
    for m in mechanisms {
        e += check::non_negative("epsilon", m.epsilon)?;
        d += check::probability_below_one("delta", m.delta)?;
    }
    let n = mechanisms.len() as f64;
    Ok(ApproxDp { epsilon: (e * (1.0 + n * U)).next_up(), delta: (d * (1.0 + n * U)).next_up().min(1.0) })
}

/// Advanced composition of `k` adaptive (ε, δ) mechanisms with slack `δ′`.
///
/// # Errors
/// `InvalidParameter` for ε < 0, δ ∉ [0, 1), δ′ ∉ (0, 1) or k = 0.
pub fn advanced(epsilon: f64, delta: f64, k: u64, delta_prime: f64) -> Result<ApproxDp> {
    check::non_negative("epsilon", epsilon)?;
    check::probability_below_one("delta", delta)?;
    check::open_unit("delta-prime", delta_prime)?;
    let k = crate::special::count_up(check::count("k", k)?);
    let a = (2.0 * k * (1.0 / delta_prime).ln()).sqrt() * epsilon;
    let b = k * epsilon * epsilon.exp_m1();
    let eps = ((a + b) * (1.0 + 8.0 * U)).next_up();
    let del = ((k * delta + delta_prime) * (1.0 + 4.0 * U)).next_up().min(1.0);
    Ok(ApproxDp { epsilon: eps, delta: del })
}
