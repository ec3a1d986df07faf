//! Test problems for l1 geometry with closed-form population losses (\[AFKT\] has no experiments;
//! these are the synthetic problems its analysis suggests, `proofs/l1/noisy_mirror_descent.md` §4).
//!
//! [`LeastSquaresL1`]: features `a ~ Rademacher^d` (`‖a‖_∞ = 1`, `E[aaᵀ] = I`), labels
//! `y = ⟨a, x_true⟩ + ξ`, `ξ ~ U[−s, s]`, the loss `½(⟨a, x⟩ − y)²` ([`crate::loss::Loss::Squared`]).
//! Its population loss is exactly `F(x) = ½‖x − x_true‖₂² + s²/6`, so over the l1 ball of radius R
//! the optimum is the Euclidean projection of `x_true` onto the ball and every excess loss is exact.
//! [`LinearSigns`]: linear losses with random-sign features, on the l1 ball or the simplex.
//!
//! Checked by `tests/l1_problems.rs` (population losses against fresh samples, optima, gradient
//! bounds).

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

/// Linear losses with random-sign features (the simplex and l1-ball problems of \[AFKT\]'s lower
/// bounds, Sec. 6): `z ∈ {±1}^d` with `P(z_j = +1) = (1 + μ_j)/2` independently, label 1, the
/// loss `f(x; z) = ⟨z, x⟩` ([`crate::loss::Loss::Linear`], `‖∇f‖_∞ = 1`). The population loss is
/// `F(x) = ⟨μ, x⟩`; its minimum over the l1 ball of radius R is `−R‖μ‖_∞` at the vertex
/// `−R sign(μ_{j*}) e_{j*}`, `j* = argmax_j |μ_j|`, and over the simplex `min_j μ_j` at `e_{argmin μ}`.
#[derive(Debug, Clone, PartialEq)]
pub struct LinearSigns {
    /// n samples `(z, 1)`.
    pub data: Dataset,
    /// μ ∈ [−1, 1]^d: the feature means.
    pub mu: Vec<f64>,
}

impl LinearSigns {
    /// Draws n samples with feature means μ.
    ///
    /// # Errors
    /// `InvalidParameter` for n = 0, an empty μ or an entry outside [−1, 1].
    pub fn generate(n: usize, mu: Vec<f64>, rng: &mut DpRng) -> Result<Self> {
        check::count("n", n as u64)?;
        if mu.is_empty() {
            return Err(Error::invalid("mu", "empty", "of dimension >= 1"));
        }
        if let Some(&m) = mu.iter().find(|m| !(-1.0..=1.0).contains(*m)) {
            return Err(Error::invalid("mu entry", m, "in [-1, 1]"));
        }
        let d = mu.len();
        let mut features = Vec::with_capacity(n * d);
        for _ in 0..n {
            features.extend(mu.iter().map(|m| if rng.random::<f64>() < 0.5 * (1.0 + m) { 1.0 } else { -1.0 }));
        }
        Ok(LinearSigns { data: Dataset::new(features, vec![1.0; n], d)?, mu })
    }

    /// `F(x) = ⟨μ, x⟩`.
    pub fn population_loss(&self, x: &[f64]) -> f64 {
        crate::linalg::dot(&self.mu, x)
    }

    /// The minimiser of F over `{‖x‖₁ ≤ R}` and its value `−R‖μ‖_∞` (the first maximiser of |μ_j|).
    pub fn optimum_l1_ball(&self, radius: f64) -> (Vec<f64>, f64) {
        let (j, m) = self.mu.iter().enumerate().fold(
            (0, 0.0_f64),
            |(bj, bm), (j, &m)| {
                if m.abs() > bm.abs() { (j, m) } else { (bj, bm) }
            },
        );
        let mut x = vec![0.0; self.mu.len()];
        if m != 0.0 {
            x[j] = -radius * m.signum();
        }
        (x, -radius * m.abs())
    }

    /// The minimiser of F over the simplex and its value `min_j μ_j` (the first minimiser).
    pub fn optimum_simplex(&self) -> (Vec<f64>, f64) {
        let (j, m) = self
            .mu
            .iter()
            .enumerate()
            .fold((0, f64::INFINITY), |(bj, bm), (j, &m)| if m < bm { (j, m) } else { (bj, bm) });
        let mut x = vec![0.0; self.mu.len()];
        x[j] = 1.0;
        (x, m)
    }
}
