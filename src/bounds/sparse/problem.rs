//! The setting shared by the \[GGKKM\] bounds, checked once.

use super::validate::{ln_inv_delta, ln_n, sparsity_counts};
use crate::error::{Error, Result, check};

/// The setting of a \[GGKKM\] bound: n data points (or per-example gradients) in `R^d`, each
/// s-sparse with l2 norm at most L, released at privacy ε (pure DP) or (ε, δ).
///
/// Built once by [`SparseProblem::new`] (and [`SparseProblem::with_delta`]), which check
/// `L > 0`, `1 ≤ s ≤ d`, `n ≥ 1`, `ε > 0` and `δ ∈ (0, 1)`; a bound that needs more (`s < d`,
/// `n ≥ 2`, `ε ≤ 1`, a δ) says so under `# Errors` and refuses the problem otherwise. Bounds that
/// do not read L (measurement counts, Table 1) ignore it; the lower bounds scale linearly in it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SparseProblem {
    pub(super) l: f64,
    pub(super) s: u64,
    pub(super) d: u64,
    pub(super) n: u64,
    pub(super) epsilon: f64,
    delta: Option<f64>,
}

impl SparseProblem {
    /// A pure-DP setting (no δ).
    ///
    /// # Errors
    /// `InvalidParameter` for `L ≤ 0`, `d = 0`, `s ∉ [1, d]`, `n = 0`, `ε ≤ 0` (NaN and ∞ included).
    pub fn new(l: f64, s: u64, d: u64, n: u64, epsilon: f64) -> Result<Self> {
        let l = check::positive("l", l)?;
        let (s, d) = sparsity_counts(s, d)?;
        let n = check::count("n", n)?;
        let epsilon = check::positive("epsilon", epsilon)?;
        Ok(SparseProblem { l, s, d, n, epsilon, delta: None })
    }

    /// The same setting at (ε, δ).
    ///
    /// # Errors
    /// `InvalidParameter` for `δ ∉ (0, 1)`.
    pub fn with_delta(self, delta: f64) -> Result<Self> {
        Ok(SparseProblem { delta: Some(check::open_unit("delta", delta)?), ..self })
    }

    /// s, as a real.
    pub(super) fn s(&self) -> f64 {
        self.s as f64
    }

    /// d, as a real.
    pub(super) fn d(&self) -> f64 {
        self.d as f64
    }

    /// n, as a real.
    pub(super) fn n(&self) -> f64 {
        self.n as f64
    }

    /// `nε`.
    pub(super) fn ne(&self) -> f64 {
        self.n() * self.epsilon
    }

    /// `ln(d/s)`, for bounds that need `s < d` (the factor is 0 at `s = d`).
    pub(super) fn ln_d_over_s(&self) -> Result<f64> {
        if self.s >= self.d {
            return Err(Error::invalid("s", self.s, "< d (the bound uses ln(d/s))"));
        }
        Ok((self.d() / self.s()).ln())
    }

    /// `s ln(d/s)`, the sparse dimension factor of the Sec. 3 and Sec. 6 rates (`s < d`).
    pub(super) fn s_ln_d_over_s(&self) -> Result<f64> {
        Ok(self.s() * self.ln_d_over_s()?)
    }

    /// `ln n` (`n ≥ 2`).
    pub(super) fn ln_n(&self) -> Result<f64> {
        ln_n("n", self.n)
    }

    /// δ, for the approximate-DP bounds.
    pub(super) fn delta(&self) -> Result<f64> {
        self.delta.ok_or_else(|| Error::invalid("delta", "none", "given (an (epsilon, delta) bound: `with_delta`)"))
    }

    /// `ln(1/δ)`.
    pub(super) fn ln_inv_delta(&self) -> Result<f64> {
        ln_inv_delta(self.delta()?)
    }

    /// ε, for bounds valid only at `ε ≤ 1` (the classical Gaussian calibration
    /// `σ = Δ√(2 ln(1.25/δ))/ε`, Thm. 4.5).
    pub(super) fn epsilon_at_most_one(&self) -> Result<f64> {
        if self.epsilon <= 1.0 {
            Ok(self.epsilon)
        } else {
            Err(Error::invalid("epsilon", self.epsilon, "in (0, 1] (classical Gaussian calibration, Thm. 4.5)"))
        }
    }
}
