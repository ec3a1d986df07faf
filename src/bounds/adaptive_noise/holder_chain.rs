//! The Hölder chain of \[ADFJT\] Sec. 3.2, which orders the privacy factors of PASAN,
//! PAGAN and the lower bounds.

use super::validate::{check_nonnegative_sigma, finite_result};
use crate::error::Result;

/// The three members of the Hölder chain of \[ADFJT\] Sec. 3.2:
/// `√d·Σⱼ σⱼ ≥ (Σⱼ σⱼ^{2/3})^{3/2} ≥ Σⱼ σⱼ`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HolderChain {
    /// `√d·Σⱼ σⱼ` (PASAN's privacy factor on the box, where `D₂ = √d·D∞`).
    pub sqrt_d_times_sum: f64,
    /// `(Σⱼ σⱼ^{2/3})^{3/2}` (PAGAN's privacy factor, eq. (6)).
    pub two_thirds_power_sum: f64,
    /// `Σⱼ σⱼ` (PASAN's privacy factor, eq. (7)).
    pub sum: f64,
}

/// The members of the Hölder chain for `σ ∈ ℝ₊^d` (see [`HolderChain`]).
///
/// # Errors
/// `Empty` for `d = 0`; `NonFinite` for a non-finite entry; `InvalidParameter` for a negative one.
pub fn holder_chain(sigma: &[f64]) -> Result<HolderChain> {
    check_nonnegative_sigma(sigma)?;
    let sum: f64 = sigma.iter().sum();
    Ok(HolderChain {
        sqrt_d_times_sum: finite_result("holder_chain_sqrt_d_times_sum", (sigma.len() as f64).sqrt() * sum)?,
        two_thirds_power_sum: finite_result(
            "holder_chain_two_thirds_power_sum",
            sigma.iter().map(|s| s.powf(2.0 / 3.0)).sum::<f64>().powf(1.5),
        )?,
        sum: finite_result("holder_chain_sum", sum)?,
    })
}
