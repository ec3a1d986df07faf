//! Input checks and the comparison slack shared by the files of the \[LZLRMS\] bounds (not public).

pub(super) use crate::bounds::validate::{finite, finite_result};

/// Relative slack allowed when a caller's parameter is compared with a cap computed here (the
/// caller typically computes `α = min(ε, 1)/L` in floating point, a few roundings away).
pub(super) const CAP_SLACK: f64 = 1e-12;
