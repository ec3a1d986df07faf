//! Test problems for l1 geometry with closed-form population losses (\[AFKT\] has no experiments;
//! these are the synthetic problems its analysis suggests, `proofs/l1/noisy_mirror_descent.md` §4).
//!
//! [`LeastSquaresL1`]: features `a ~ Rademacher^d` (`‖a‖_∞ = 1`, `E[aaᵀ] = I`), labels
//! `y = ⟨a, x_true⟩ + ξ`, `ξ ~ U[−s, s]`, the loss `½(⟨a, x⟩ − y)²` ([`crate::loss::Loss::Squared`]).
//! Its population loss is exactly `F(x) = ½‖x − x_true‖₂² + s²/6`, so over the l1 ball of radius R
//! the optimum is the Euclidean projection of `x_true` onto the ball and every excess loss is exact.

use super::Dataset;
use crate::error::{Error, Result, check};
use crate::rng::DpRng;
use rand::RngExt;

/// The least-squares problem over an l1 ball (see the module doc).
#[derive(Debug, Clone, PartialEq)]
pub struct LeastSquaresL1 {
    /// n samples `(a, y)`.
    pub data: Dataset,
    /// x_true.
    pub x_true: Vec<f64>,
    /// s: the half-width of the label noise.
    pub noise_half_width: f64,
}

impl LeastSquaresL1 {
    /// Draws n samples for a given `x_true` and noise half-width s ≥ 0.
    ///
    /// # Errors
    /// `InvalidParameter` for n = 0, an empty or non-finite `x_true`, or s not finite and ≥ 0.
    pub fn generate(n: usize, x_true: Vec<f64>, noise_half_width: f64, rng: &mut DpRng) -> Result<Self> {
        check::count("n", n as u64)?;
        check::all_finite("x_true", &x_true)?;
        let s = check::non_negative("noise half-width s", noise_half_width)?;
        let d = x_true.len();
        if d == 0 {
            return Err(Error::invalid("x_true", "empty", "of dimension >= 1"));
        }
        let mut features = Vec::with_capacity(n * d);
        let mut labels = Vec::with_capacity(n);
        for _ in 0..n {
            let mut y = 0.0;
            for xj in &x_true {
                let a = if rng.random::<bool>() { 1.0 } else { -1.0 };
                y += a * xj;
                features.push(a);
            }
            labels.push(y + s * (2.0 * rng.random::<f64>() - 1.0));
        }
        Ok(LeastSquaresL1 { data: Dataset::new(features, labels, d)?, x_true, noise_half_width: s })
    }

    /// `F(x) = E ½(⟨a, x⟩ − y)² = ½‖x − x_true‖₂² + s²/6`.
    pub fn population_loss(&self, x: &[f64]) -> f64 {
        let dist2: f64 = x.iter().zip(&self.x_true).map(|(a, b)| (a - b) * (a - b)).sum();
        0.5 * dist2 + self.noise_half_width * self.noise_half_width / 6.0
    }

    /// The minimiser of F over `{‖x‖₁ ≤ R}`: the Euclidean projection of `x_true`.
    pub fn optimum(&self, radius: f64) -> Vec<f64> {
        let mut x = self.x_true.clone();
        crate::geometry::project_l1_ball(&mut x, radius);
        x
    }

    /// The l1-Lipschitz constant on the ball of radius R: `‖∇f‖_∞ ≤ |⟨a, x⟩ − y| ≤ R + ‖x_true‖₁ + s`.
    pub fn lipschitz_l1(&self, radius: f64) -> f64 {
        radius + crate::linalg::norm_l1(&self.x_true) + self.noise_half_width
    }
}
