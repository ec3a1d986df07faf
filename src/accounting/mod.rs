//! Privacy accounting: events in, (ε, δ) out. Every number an accountant returns is an **upper
//! bound** on the true ε (or δ) of the events composed, rounded in the safe direction.
//!
//! * [`event`]: the [`DpEvent`] algebra, the [`Neighbouring`] relation, sampling schemes.
//! * [`rdp`]: the Rényi-DP accountant (Poisson and without-replacement subsampled Gaussian,
//!   Gaussian, Laplace, pure and approximate DP).
//! * [`conversion`]: RDP → (ε, δ), improved (default) and classic.
//! * [`gaussian`], [`gdp`]: exact curves of unsampled Gaussian releases; the classic formula.
//! * [`zcdp`]: ρ-zCDP → (ε, δ), optimal conversion.
//! * [`composition`]: basic and advanced composition of (ε, δ) mechanisms.
//! * [`approx_dp`]: the approximate-DP accountant (events read as (ε, δ) pairs: basic
//!   composition, amplification by sampling without replacement, the fully adaptive filter).
//! * [`calibrate`]: the noise multiplier for a target (ε, δ), never overshooting.
//! * [`accountant`]: the [`Accountant`] trait both accountants implement, and
//!   [`epsilon_upper_of`].
//! * [`external`]: reading dp_accounting's events (`DpEvent.to_named_tuple()` as JSON).
//! * [`pld`]: the privacy-loss-distribution accountant, answering with certified brackets
//!   `[lower, upper]` on ε (the upper end is the accountant's bound).

pub mod accountant;
pub mod approx_dp;
pub mod calibrate;
pub mod composition;
pub mod conversion;
pub mod event;
pub mod external;
pub mod gaussian;
pub mod gdp;
pub mod pld;
pub mod rdp;
pub mod zcdp;

pub use accountant::{Accountant, epsilon_upper_of};
pub use approx_dp::ApproxDpAccountant;
pub use calibrate::{Calibration, PLD_FLOOR, RdpSettings, calibrate_noise_multiplier, calibrate_noise_multiplier_pld};
pub use conversion::{Conversion, DeltaBound, EpsilonBound};
pub use event::{DpEvent, Neighbouring, SamplingScheme, dp_sgd_event, per_example_sum_gaussian};
pub use pld::{DeltaBracket, EpsilonBracket, PldAccountant, PldSettings};
pub use rdp::RdpAccountant;
