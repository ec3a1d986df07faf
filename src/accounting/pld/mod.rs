//! The privacy-loss-distribution (PLD) accountant with certified brackets.
//!
//! A mechanism's privacy loss distribution (the law of `ln(dP/dQ)` under P, for the output laws
//! P, Q on two neighbouring datasets) determines its whole (ε, δ) curve, and composing mechanisms
//! convolves their PLDs. This module discretises each PLD on a grid of spacing h twice:
//!
//! * **pessimistic** (connect the dots, Doroshenko et al. 2022): a discrete pair that dominates
//!   the mechanism, so its ε(δ) is an **upper** bound on the truth;
//! * **optimistic** (grouping into grid-valued outputs, a post-processing): dominated by the
//!   mechanism, so its ε(δ) is a **lower** bound;
//!
//! composes both by FFT with rigorously bounded rounding and tail truncation, and answers with a
//! bracket `[lower, upper]` that contains the true ε of the composed events. The bracket's width
//! shows how much the discretisation costs; the upper end is the accountant's answer.
//!
//! * [`pmf`]: [`DiscretePld`], its δ(ε)/ε(δ) and composition (FFT, Chernoff windows, tails).
//! * [`discretise`]: from tail functions or atoms to the two discretisations.
//! * [`mechanisms`]: the supported privacy losses ([`MechanismLoss`]), [`randomized_response`].
//! * [`accountant`]: [`PldAccountant`], [`PldSettings`], [`EpsilonBracket`], [`DeltaBracket`].
//! * [`interval`]: the interval arithmetic behind every enclosure.
//!
//! Proof: proofs/accounting/pld.md.

pub mod accountant;
mod compose;
pub mod discretise;
mod fft;
pub mod interval;
pub mod mechanisms;
pub mod pmf;

pub use accountant::{Composable, DeltaBracket, EpsilonBracket, PldAccountant, PldSettings};
pub use mechanisms::{Direction, MechanismLoss, randomized_response};
pub use pmf::{DiscretePld, Side};

/// The parts of a composition grouped by equality, each with its count, in order of first
/// appearance: equal parts (an export that lists one per-step event T times) are then composed as
/// one self-composition, one FFT power instead of T convolutions (1000 listed Gaussians took over
/// 60 s). Composition is commutative, so grouping changes only the order of what is composed.
pub(crate) fn group_equal<T: PartialEq>(parts: impl IntoIterator<Item = T>) -> Vec<(T, u64)> {
    let mut groups: Vec<(T, u64)> = Vec::new();
    for part in parts {
        match groups.iter_mut().find(|(seen, _)| *seen == part) {
            Some((_, count)) => *count += 1,
            None => groups.push((part, 1)),
        }
    }
    groups
}
