//! The privacy and sample setting shared by \[ZCHWB\] Lemma 1, Thm. 2 and Thm. 1's eq. (6),
//! checked once.

use crate::error::{Result, check};

/// (ε, δ)-DP on a dataset of n examples: the setting of \[ZCHWB\] Lemma 1 (App. A), of the
/// hypotheses of Thm. 2 / Thm. 7 (Sec. 4.1, App. B) and of Thm. 1's eq. (6).
///
/// [`DpSetting::new`] checks `ε > 0`, `δ ∈ (0, 1)` and `n ≥ 1` once; each function takes the
/// setting and the quantities of its own statement (τ, ρ, σ, μ, G, T, c2), named as there.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DpSetting {
    epsilon: f64,
    delta: f64,
    dataset_size_n: u64,
}

impl DpSetting {
    /// Privacy (ε, δ) on n examples.
    ///
    /// # Errors
    /// `InvalidParameter` for `ε ≤ 0`, `δ ∉ (0, 1)` or `n = 0` (NaN and ∞ included), checked in
    /// this order.
    pub fn new(epsilon: f64, delta: f64, dataset_size_n: u64) -> Result<Self> {
        let epsilon = check::positive("epsilon", epsilon)?;
        let delta = check::open_unit("delta", delta)?;
        let dataset_size_n = check::count("dataset_size_n", dataset_size_n)?;
        Ok(DpSetting { epsilon, delta, dataset_size_n })
    }

    /// ε.
    pub fn epsilon(&self) -> f64 {
        self.epsilon
    }

    /// δ.
    pub fn delta(&self) -> f64 {
        self.delta
    }

    /// n.
    pub fn dataset_size_n(&self) -> u64 {
        self.dataset_size_n
    }

    /// `n ≥ 2 ln(8/δ)/ε²`, the sample-size hypothesis shared by Lemma 1, Thm. 2 and Thm. 3.
    pub(super) fn n_condition(&self) -> bool {
        self.dataset_size_n as f64 >= 2.0 * (8.0 / self.delta).ln() / (self.epsilon * self.epsilon)
    }
}
