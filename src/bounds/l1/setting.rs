//! The sample and privacy setting shared by the \[AFKT\] (ε, δ) rates, checked once.

use super::validate::{ln_dim, ln_inv_delta, ln_n};
use crate::error::{Result, check};

/// The setting of an \[AFKT\] (ε, δ)-DP rate or step: n samples in dimension `d ≥ 2` (the rates
/// carry `ln d`), privacy (ε, δ).
///
/// [`L1Setting::new`] checks `n ≥ 1`, `d ≥ 2`, `ε > 0`, `δ ∈ (0, 1)` once; a rate that needs
/// more (`n ≥ 2` for `ln n`) says so under `# Errors`. The problem's constants (L, D, β, λ, p, m,
/// b) stay arguments of each function, named as in its statement.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct L1Setting {
    n: u64,
    d: u64,
    epsilon: f64,
    delta: f64,
}

impl L1Setting {
    /// n samples, dimension d, privacy (ε, δ).
    ///
    /// # Errors
    /// `InvalidParameter` for `n = 0`, `d < 2`, `ε ≤ 0` or `δ ∉ (0, 1)` (NaN and ∞ included).
    pub fn new(n: u64, d: u64, epsilon: f64, delta: f64) -> Result<Self> {
        check::count("n", n)?;
        ln_dim("d", d)?;
        check::positive("epsilon", epsilon)?;
        ln_inv_delta(delta)?;
        Ok(L1Setting { n, d, epsilon, delta })
    }

    /// n, as a real.
    pub(super) fn n(&self) -> f64 {
        self.n as f64
    }

    /// d, as a real.
    pub(super) fn d(&self) -> f64 {
        self.d as f64
    }

    /// ε.
    pub(super) fn epsilon(&self) -> f64 {
        self.epsilon
    }

    /// `ln d`.
    pub(super) fn ln_d(&self) -> f64 {
        self.d().ln()
    }

    /// `ln n`, for rates that need `n ≥ 2`.
    pub(super) fn ln_n(&self) -> Result<f64> {
        ln_n("n", self.n)
    }

    /// `ln(1/δ)`.
    pub(super) fn ln_inv_delta(&self) -> f64 {
        -self.delta.ln()
    }
}
