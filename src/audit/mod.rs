//! The audit engine: certified ε **lower** bounds from distinguishing attacks on neighbouring
//! datasets. An audit answers "what ε can we prove this mechanism does *not* meet?"; every bound
//! holds with the stated confidence whatever the mechanism is.
//!
//! * [`mechanism`]: the black-box [`Mechanism`] trait, [`NeighbouringPair`], attack scores, the
//!   parallel seeded sampler.
//! * [`accountant`]: auditing another library's *accountant*: a certified lower bound on the
//!   true ε of a described mechanism against the claimed ε, and a catalogue of broken accountants.
//! * [`binomial`]: Clopper–Pearson bounds (the one implementation).
//! * [`threshold`]: two-sample threshold attacks, both directions, with an honest threshold choice
//!   (Bonferroni over all thresholds, split, or fixed) → [`EpsilonLowerBound`].
//! * [`one_run`]: the one-run audit of Steinke, Nasr, Jagielski 2023, with its δ term.
//! * [`gdp`]: a Gaussian-DP fit, typed as an estimate ([`GdpEstimate`]).
//! * [`canary`]: white-box canary audits of iterative algorithms (Nasr et al. 2023).
//! * [`catalogue`]: correct and broken mechanisms for self-tests.
//! * [`samples`]: reading another implementation's dumped outputs.

pub mod accountant;
pub mod binomial;
pub mod canary;
pub mod catalogue;
pub mod gdp;
pub mod mechanism;
pub mod one_run;
pub mod samples;
pub mod threshold;

pub use gdp::GdpEstimate;
pub use mechanism::{FnMechanism, Mechanism, NeighbouringPair, Score, sample_scores};
pub use one_run::{OneRunBound, OneRunThresholds, epsilon_one_run};
pub use threshold::{AuditSettings, Direction, EpsilonLowerBound, Region, ThresholdStrategy, epsilon_lower_bound};
