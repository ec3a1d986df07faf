//! Input checks shared by the files of the \[AFKT\] bounds (not public).

pub(super) use crate::bounds::validate::{finite_result, harmonic, ln_inv_delta, ln_n};
use crate::error::{Error, Result};

/// `ln d` for a dimension `d ≥ 2` (the bounds divide by or multiply with `ln d`; at `d = 1` it
/// is 0 and the printed forms degenerate).
pub(super) fn ln_dim(name: &'static str, d: u64) -> Result<f64> {
    if d >= 2 { Ok((d as f64).ln()) } else { Err(Error::invalid(name, d, ">= 2 (the bound uses ln d)")) }
}
