//! The one interface of dpref's accountants, so that a run's event can be reported by either.
//!
//! [`Accountant`] is what the RDP accountant ([`RdpAccountant`](super::RdpAccountant), improved
//! conversion) and the PLD accountant ([`PldAccountant`](super::PldAccountant), the upper end of
//! its certified bracket) have in common: a fixed neighbouring relation, `supports`/`compose` over
//! [`DpEvent`]s, and an **upper bound** on ε at a δ. The trait is the one home of those methods:
//! each accountant implements it next to its own state (`rdp/mod.rs`, `pld/accountant.rs`).
//! [`epsilon_upper_of`] composes one event into a given accountant and reads ε back.
//!
//! ```
//! use dpref::accounting::{Accountant, DpEvent, Neighbouring, PldAccountant, RdpAccountant, epsilon_upper_of};
//! let step = DpEvent::poisson_sampled(0.01, DpEvent::gaussian(1.0)?)?;
//! let run = DpEvent::self_composed(step, 1000)?;
//! let rdp = epsilon_upper_of(&run, &mut RdpAccountant::new(Neighbouring::AddRemove), 1e-5)?;
//! let pld = epsilon_upper_of(&run, &mut PldAccountant::new(Neighbouring::AddRemove), 1e-5)?;
//! assert!(pld < rdp); // both are upper bounds; the PLD one is tighter
//! # Ok::<(), dpref::Error>(())
//! ```
//!
//! Proof: proofs/accounting/rdp_accountant.md (the RDP bound), proofs/accounting/pld.md (the
//! PLD bracket's upper end).

use super::event::{DpEvent, Neighbouring};
use crate::error::Result;

/// A privacy accountant: composes [`DpEvent`]s under a fixed [`Neighbouring`] relation and
/// answers with an upper bound on ε at a δ.
///
/// # Contract
/// * `compose` is atomic (on error nothing changes) and refuses by [`crate::Error::Unsupported`]
///   what it cannot bound, never approximating;
/// * `epsilon_upper(δ)` is an ε at which everything composed is (ε, δ)-DP under the relation,
///   `+∞` when none can be certified; never NaN.
pub trait Accountant {
    /// A short name (`"rdp"`, `"pld"`), the CLI's spelling of `--accountant`.
    fn name(&self) -> &'static str;
    /// The neighbouring relation fixed at construction.
    fn neighbouring(&self) -> Neighbouring;
    /// Dry run of [`compose`](Self::compose).
    ///
    /// # Errors
    /// As `compose`.
    fn supports(&self, event: &DpEvent) -> Result<()>;
    /// Composes `event` `count` times.
    ///
    /// # Errors
    /// `Unsupported` for events the accountant cannot bound; `InvalidParameter` for invalid
    /// parameters or `count = 0`; `Numerical` where a certified answer cannot be computed.
    fn compose(&mut self, event: &DpEvent, count: u64) -> Result<()>;
    /// An upper bound on ε at `delta` for everything composed (`+∞` if none; never NaN).
    ///
    /// # Errors
    /// `InvalidParameter` for δ ∉ (0, 1); `Numerical` for an internal contradiction.
    fn epsilon_upper(&self, delta: f64) -> Result<f64>;
}

/// An accountant's ε read as the trait's upper bound: NaN (no bound could be computed) is `+∞`,
/// never a number.
pub(super) fn nan_as_infinity(epsilon: f64) -> f64 {
    if epsilon.is_nan() { f64::INFINITY } else { epsilon }
}

/// Composes `event` once into `accountant` and returns its upper bound on ε at `delta` (for
/// everything the accountant holds, this event included). The accountant is left holding the
/// event; on error it is unchanged.
///
/// # Errors
/// As [`Accountant::compose`] and [`Accountant::epsilon_upper`] (δ is checked first, so a bad δ
/// leaves the accountant unchanged).
pub fn epsilon_upper_of(event: &DpEvent, accountant: &mut impl Accountant, delta: f64) -> Result<f64> {
    crate::error::check::open_unit("delta", delta)?;
    accountant.compose(event, 1)?;
    accountant.epsilon_upper(delta)
}
