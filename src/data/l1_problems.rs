//! Test problems for l1 geometry with closed-form population losses (\[AFKT\] has no experiments;
//! these are the synthetic problems its analysis suggests, `proofs/l1/noisy_mirror_descent.md` §4).
//!
//! [`LeastSquaresL1`]: features `a ~ Rademacher^d` (`‖a‖_∞ = 1`, `E[aaᵀ] = I`), labels
//! `y = ⟨a, x_true⟩ + ξ`, `ξ ~ U[−s, s]`, the loss `½(⟨a, x⟩ − y)²` ([`crate::loss::Loss::Squared`]).
//! Its population loss is exactly `F(x) = ½‖x − x_true‖₂² + s²/6`, so over the l1 ball of radius R
//! the optimum is the Euclidean projection of `x_true` onto the ball and every excess loss is exact.
//! [`LinearSigns`]: linear losses with random-sign features, on the l1 ball or the simplex.
//! [`HardInstanceL1`]: \[AFKT\] Theorem 10's non-smooth instance `f(x; z) = L‖x − z‖₁`,
//! `z ∈ {±D/d}^d`, with its own subgradient oracle (not a GLM loss) and exact population loss.
//! [`AbsoluteRegressionL1`]: non-smooth l1 regression `|⟨a, x⟩ − y|` (the l1 regression of `dpref reproduce l1`) with its exact
//! optimum and, for small d, its exact population loss.
//!
//! Checked by `tests/l1_problems.rs` (population losses against fresh samples, optima, gradient
//! bounds).

use super::Dataset;
use crate::error::{Error, Result, check};
use crate::rng::DpRng;
use rand::RngExt;

/// Checks feature means μ ∈ [−1, 1]^d with d ≥ 1 (NaN refused).
fn check_feature_means(mu: &[f64]) -> Result<()> {
    if mu.is_empty() {
        return Err(Error::invalid("mu", "empty", "of dimension >= 1"));
    }
    if let Some(&m) = mu.iter().find(|m| !(-1.0..=1.0).contains(*m)) {
        return Err(Error::invalid("mu entry", m, "in [-1, 1]"));
    }
    Ok(())
}

/// One vector of independent signs scaled by `a`: entry j is `+a` with probability
/// `(1 + μⱼ)/2` and `−a` otherwise (mean `a·μⱼ`); one uniform draw per entry, in order.
fn signs_with_means<'a>(mu: &'a [f64], a: f64, rng: &'a mut DpRng) -> impl Iterator<Item = f64> + 'a {
    mu.iter().map(move |m| if rng.random::<f64>() < 0.5 * (1.0 + m) { a } else { -a })
}

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
        Self::lipschitz_l1_of(&self.x_true, self.noise_half_width, radius)
    }

    /// [`LeastSquaresL1::lipschitz_l1`] before any data is drawn: `R + ‖x_true‖₁ + s`.
    pub fn lipschitz_l1_of(x_true: &[f64], noise_half_width: f64, radius: f64) -> f64 {
        radius + crate::linalg::norm_l1(x_true) + noise_half_width
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
        check_feature_means(&mu)?;
        let d = mu.len();
        let mut features = Vec::with_capacity(n * d);
        for _ in 0..n {
            features.extend(signs_with_means(&mu, 1.0, rng));
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

/// \[AFKT\] Theorem 10's hard instance (Sec. 6, the lower bound for the l1 ball): `f(x; z) = L‖x − z‖₁` over the l1 ball of
/// radius D, samples `z ∈ {±a}^d`, `a = D/d`, coordinates independent with `P(z_j = +a) = (1 + μ_j)/2`.
/// The loss is not a function of `⟨z, x⟩`, so it is not a GLM [`crate::loss::Loss`]: the problem
/// carries its own value and subgradient oracle.
///
/// Population: `F(x) = L Σ_j E|x_j − z_j| = L Σ_j [p_j|x_j − a| + (1 − p_j)|x_j + a|]`, on the box
/// `|x_j| ≤ a` equal to `L Σ_j (a − x_j μ_j)`. Its minimiser (over ℝ^d, hence over the ball, since
/// `‖a·sign(μ)‖₁ ≤ D`) is `x* = a·sign(μ)` (any point of `[−a, a]` where `μ_j = 0`; 0 is taken),
/// `F* = L Σ_j a(1 − |μ_j|)`. Empirical: on the box `F̂(x) = L Σ_j (a − x_j z̄_j/a)`, minimised at
/// `a·sign(z̄)` with `F̂* = L Σ_j (a − |z̄_j|)` (the coordinatewise median).
#[derive(Debug, Clone, PartialEq)]
pub struct HardInstanceL1 {
    /// The n samples z_i, each of length d.
    pub samples: Vec<Vec<f64>>,
    /// μ ∈ [−1, 1]^d.
    pub mu: Vec<f64>,
    /// D: the l1 radius of X (and `a = D/d`).
    pub radius_d: f64,
    /// L: the Lipschitz constant (w.r.t. ‖·‖₁: `‖∂f‖_∞ ≤ L`).
    pub lipschitz_l: f64,
}

impl HardInstanceL1 {
    /// Draws n samples.
    ///
    /// # Errors
    /// `InvalidParameter` for n = 0, an empty μ or an entry outside [−1, 1], D or L not finite
    /// and positive.
    pub fn generate(n: usize, mu: Vec<f64>, radius_d: f64, lipschitz_l: f64, rng: &mut DpRng) -> Result<Self> {
        check::count("n", n as u64)?;
        check::positive("radius D", radius_d)?;
        check::positive("Lipschitz constant L", lipschitz_l)?;
        check_feature_means(&mu)?;
        let a = radius_d / mu.len() as f64;
        let samples = (0..n).map(|_| signs_with_means(&mu, a, rng).collect()).collect();
        Ok(HardInstanceL1 { samples, mu, radius_d, lipschitz_l })
    }

    /// `a = D/d`.
    pub fn half_width(&self) -> f64 {
        self.radius_d / self.mu.len() as f64
    }

    /// `f(x; z) = L‖x − z‖₁`.
    pub fn loss(&self, x: &[f64], z: &[f64]) -> f64 {
        self.lipschitz_l * x.iter().zip(z).map(|(xj, zj)| (xj - zj).abs()).sum::<f64>()
    }

    /// A subgradient `L·sign(x − z)` of f(·; z) at x into `out` (sign(0) = 0, a valid choice:
    /// 0 ∈ ∂|·| at 0), `‖·‖_∞ ≤ L`.
    pub fn subgradient(&self, x: &[f64], z: &[f64], out: &mut [f64]) {
        for ((o, xj), zj) in out.iter_mut().zip(x).zip(z) {
            let u = xj - zj;
            *o = if u > 0.0 {
                self.lipschitz_l
            } else if u < 0.0 {
                -self.lipschitz_l
            } else {
                0.0
            };
        }
    }

    /// `F̂(x) = (1/n) Σ_i f(x; z_i)`.
    pub fn empirical_loss(&self, x: &[f64]) -> f64 {
        self.samples.iter().map(|z| self.loss(x, z)).sum::<f64>() / self.samples.len() as f64
    }

    /// `F(x) = L Σ_j [p_j|x_j − a| + (1 − p_j)|x_j + a|]`, `p_j = (1 + μ_j)/2`, for every x.
    pub fn population_loss(&self, x: &[f64]) -> f64 {
        let a = self.half_width();
        let per: f64 = x
            .iter()
            .zip(&self.mu)
            .map(|(xj, m)| {
                let p = 0.5 * (1.0 + m);
                p * (xj - a).abs() + (1.0 - p) * (xj + a).abs()
            })
            .sum();
        self.lipschitz_l * per
    }

    /// `(x*, F*)`: `x* = a·sign(μ)` (0 where μ_j = 0), `F* = L Σ_j a(1 − |μ_j|)`.
    pub fn optimum(&self) -> (Vec<f64>, f64) {
        let a = self.half_width();
        let x = self.mu.iter().map(|m| if *m == 0.0 { 0.0 } else { a * m.signum() }).collect();
        (x, self.lipschitz_l * self.mu.iter().map(|m| a * (1.0 - m.abs())).sum::<f64>())
    }

    /// `(x̂, F̂*)`: the empirical minimiser `a·sign(z̄)` and `F̂* = L Σ_j (a − |z̄_j|)`.
    pub fn empirical_optimum(&self) -> (Vec<f64>, f64) {
        let (a, n, d) = (self.half_width(), self.samples.len() as f64, self.mu.len());
        let mut mean = vec![0.0; d];
        for z in &self.samples {
            crate::linalg::axpy(1.0 / n, z, &mut mean);
        }
        let x = mean.iter().map(|m| if *m == 0.0 { 0.0 } else { a * m.signum() }).collect();
        (x, self.lipschitz_l * mean.iter().map(|m| a - m.abs()).sum::<f64>())
    }
}

/// Non-smooth l1 regression (`dpref reproduce l1`): features `a ~ Rademacher^d` (`‖a‖_∞ = 1`, so the loss is
/// 1-Lipschitz w.r.t. ‖·‖₁), labels `y = ⟨a, x_true⟩ + ξ`, `ξ ~ U[−s, s]`, s > 0, the loss
/// `|⟨a, x⟩ − y|` ([`crate::loss::Loss::Absolute`]).
///
/// With `u = ⟨a, x − x_true⟩`, `E_ξ|u − ξ| = g(u)`, `g(u) = (u² + s²)/(2s)` for `|u| ≤ s` and `|u|`
/// otherwise; so `F(x) = E_a g(⟨a, x − x_true⟩) ≥ g(0) = s/2`, with equality at `x = x_true`
/// (g is minimised at 0 only, and `E[aaᵀ] = I` makes u ≢ 0 for x ≠ x_true): over an l1 ball
/// containing x_true, `x* = x_true` and `F* = s/2` exactly. `F(x)` itself is an average over the
/// 2^d sign vectors, computed exactly for d ≤ [`AbsoluteRegressionL1::MAX_EXACT_D`].
#[derive(Debug, Clone, PartialEq)]
pub struct AbsoluteRegressionL1 {
    /// n samples `(a, y)`.
    pub data: Dataset,
    /// x_true.
    pub x_true: Vec<f64>,
    /// s > 0: the half-width of the label noise.
    pub noise_half_width: f64,
}

impl AbsoluteRegressionL1 {
    /// The largest d whose population loss is computed exactly (2^d sign vectors).
    pub const MAX_EXACT_D: usize = 20;

    /// Draws n samples for `x_true` and noise half-width s > 0.
    ///
    /// # Errors
    /// `InvalidParameter` for n = 0, an empty or non-finite `x_true`, or s not finite and positive.
    pub fn generate(n: usize, x_true: Vec<f64>, noise_half_width: f64, rng: &mut DpRng) -> Result<Self> {
        let s = check::positive("noise half-width s", noise_half_width)?;
        // the same features and labels as the least-squares problem, with s > 0
        let ls = LeastSquaresL1::generate(n, x_true, s, rng)?;
        Ok(AbsoluteRegressionL1 { data: ls.data, x_true: ls.x_true, noise_half_width: s })
    }

    /// `g(u) = E_ξ|u − ξ|`, ξ ~ U[−s, s].
    pub fn expected_abs(&self, u: f64) -> f64 {
        let s = self.noise_half_width;
        if u.abs() <= s { (u * u + s * s) / (2.0 * s) } else { u.abs() }
    }

    /// `F(x) = 2^{−d} Σ_{a ∈ {±1}^d} g(⟨a, x − x_true⟩)`, exact.
    ///
    /// # Errors
    /// `InvalidParameter` for d > [`Self::MAX_EXACT_D`] or a length other than d.
    pub fn population_loss(&self, x: &[f64]) -> Result<f64> {
        let d = self.x_true.len();
        if d > Self::MAX_EXACT_D {
            return Err(Error::invalid("dimension d", d, "<= 20 for the exact population loss"));
        }
        if x.len() != d {
            return Err(Error::invalid("x length", x.len(), "equal to d"));
        }
        let w: Vec<f64> = x.iter().zip(&self.x_true).map(|(a, b)| a - b).collect();
        let total: f64 = (0u64..1 << d)
            .map(|bits| {
                let u: f64 = w.iter().enumerate().map(|(j, wj)| if bits >> j & 1 == 1 { *wj } else { -wj }).sum();
                self.expected_abs(u)
            })
            .sum();
        Ok(total / (1u64 << d) as f64)
    }

    /// `(x*, F*) = (x_true, s/2)` over an l1 ball of radius ≥ ‖x_true‖₁.
    pub fn optimum(&self) -> (Vec<f64>, f64) {
        (self.x_true.clone(), 0.5 * self.noise_half_width)
    }
}
