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
