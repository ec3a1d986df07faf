//! The projection mechanism for the mean of sparse vectors — \[GGKKM\] Algorithm 1 (Sec. 3,
//! Lemma 3.1, Theorems 3.2 and 3.3).
//!
//! Input: n vectors `z_i ∈ S_s^d = {‖z‖₀ ≤ s, ‖z‖₂ ≤ L}` (dense rows of a [`Dataset`] or the rows
//! of a CSR [`SparseDataset`]; labels ignored), [`ProjectionMechanismConfig`] (L, s, ε, δ).
//! Output: [`ProjectionMechanismRun`]: ẑ, the released z̃, the noise scale, the event executed
//! and the privacy the accountant reads from it.
//! ```text
//! 0:  z̄(S) = (1/n) Σ_i z_i                                  (the algorithm's input; rows checked)
//! 1:  if δ = 0:  ξ ~ Lap(σ)^{⊗d},  σ = 2L√s/(nε)
//!     else:      ξ ~ N(0, σ² I_d), σ² = 8L² ln(1.25/δ)/(nε)²   (needs ε < 1: classical calibration)
//! 2:  z̃ = z̄(S) + ξ
//! 3:  ẑ = argmin_{z ∈ K} ‖z − z̃‖₂,   K = B₁^d(0, L√s)
//!     return ẑ
//! ```
//! (The paper displays the algorithm without line numbers; lines are counted from its first
//! displayed step.) Line 3 is [`project_noisy_mean`], which takes only (z̃, L, s): the projection
//! is post-processing by construction, it cannot see the data.
//!
//! Cost: O(nnz + d) for z̄ from CSR rows (O(nd) from dense rows), d noise draws, and
//! O(d log d) for the projection (one sort in [`project_l1_ball`]).
//!
//! # Privacy
//! Replace-one neighbours (the paper's Def. 2.2). An s-sparse z with ‖z‖₂ ≤ L has ‖z‖₁ ≤ √s L, so
//! the mean moves by at most `Δ₁ = 2L√s/n` in ℓ1 and `Δ₂ = 2L/n` in ℓ2 (both attained, by z′ = −z).
//! δ = 0: `Laplace(σ/Δ₁)` is recorded, pure ε = Δ₁/σ (Thm. 3.2). δ > 0: σ = z·Δ₂ with the classic
//! multiplier `z = √(2 ln(1.25/δ))/ε` (rounded up), `Gaussian(z)` recorded, and the reported ε
//! is the exact Gaussian curve's ε at δ (≤ the requested ε; Thm. 3.3). The noise is drawn and the
//! event recorded in one call of [`PrivateRelease`].
//!
//! # Errors
//! Rows outside `S_s^d` (more than s non-zeros, ‖z‖₂ > L) are refused with `InvalidParameter`
//! naming the row, NaN/∞ entries with `NonFinite`; they are clipped only if the caller asks
//! ([`InvalidRows::ClipToSparseBall`]).
//!
//! Proof: proofs/sparse/projection_mechanism.md.

use super::accounted::Accounted;
use crate::accounting::gaussian;
use crate::data::Dataset;
use crate::data::sparse::SparseDataset;
use crate::error::{Error, Result, check};
use crate::geometry::{clip_l2, project_l1_ball};
use crate::optim::PrivateRelease;
use crate::rng::Seeds;
use serde::Serialize;

/// The relative margin on L that covers the rounding of a row's evaluated l2 norm (faer's scaled
/// sum of squares: relative error below (s + 2)·2^−53 ≈ 1e-13 for s ≤ 400; 1e-12 covers s up to
/// 9005, and a larger s is refused, [`MAX_SPARSITY`]).
pub const NORM_ROUNDING: f64 = 1e-12;

/// The n vectors whose mean is released: dense rows or CSR rows (labels are ignored).
#[derive(Debug, Clone, Copy)]
pub enum SparseVectors<'a> {
    /// Rows of a dense dataset (O(nd) to average).
    Dense(&'a Dataset),
    /// Rows of a CSR dataset (O(nnz + d) to average).
    Csr(&'a SparseDataset),
}

impl SparseVectors<'_> {
    /// n.
    pub fn n(&self) -> usize {
        match self {
            SparseVectors::Dense(d) => d.n(),
            SparseVectors::Csr(d) => d.n(),
        }
    }

    /// d.
    pub fn d(&self) -> usize {
        match self {
            SparseVectors::Dense(d) => d.d(),
            SparseVectors::Csr(d) => d.d(),
        }
    }

    /// Row i's non-zero entries `(j, v)`, in stored order, into `idx` and `val` (cleared first).
    ///
    /// # Errors
    /// `NonFinite` (index `i·d + j`) for a NaN or ∞ entry.
    fn row_nonzeros(&self, i: usize, idx: &mut Vec<usize>, val: &mut Vec<f64>) -> Result<()> {
        idx.clear();
        val.clear();
        let d = self.d();
        let mut push = |j: usize, v: f64| {
            if !v.is_finite() {
                return Err(Error::NonFinite { what: "vectors", index: i * d + j });
            }
            if v != 0.0 {
                idx.push(j);
                val.push(v);
            }
            Ok(())
        };
        match self {
            SparseVectors::Dense(ds) => ds.row(i).iter().enumerate().try_for_each(|(j, &v)| push(j, v)),
            SparseVectors::Csr(ds) => {
                let (ri, rv) = ds.row(i);
                ri.iter().zip(rv).try_for_each(|(&j, &v)| push(j, v))
            }
        }
    }
}

/// What to do with a row outside `S_s^d`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub enum InvalidRows {
    /// Refuse the dataset with a typed error naming the row (the default).
    #[default]
    Refuse,
    /// Map every row into `S_s^d` explicitly: keep its s entries of largest magnitude (ties: the
    /// lower index), then clip to ‖·‖₂ ≤ L. The map is applied to every row, so the sensitivity
    /// argument holds for any input; rows it changed are counted in the run.
    ClipToSparseBall,
}

/// The parameters of Algorithm 1.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProjectionMechanismConfig {
    /// L > 0: the ℓ2 bound of each vector.
    pub l2_bound_l: f64,
    /// s ≥ 1: the sparsity of each vector.
    pub sparsity_s: usize,
    /// ε > 0 (ε < 1 when δ > 0).
    pub epsilon: f64,
    /// δ ∈ [0, 1): 0 selects Laplace noise, δ > 0 Gaussian noise.
    pub delta: f64,
    /// Rows outside `S_s^d`: refused (default) or clipped on request.
    pub invalid_rows: InvalidRows,
}

/// How a Gaussian release of Algorithm 1 is recorded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub enum GaussianRecord {
    /// `Gaussian(z)`: the whole privacy curve (RDP and PLD accountants).
    #[default]
    Curve,
    /// `EpsilonDelta(ε, δ(ε; z))`: the point of the curve at the configured ε, with the exact
    /// Gaussian δ there (≤ the configured δ; the approximate-DP accountant, \[GGKKM\] Lemma 6.3).
    ClaimedEpsilon,
}

/// The noise Algorithm 1 drew (line 1).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub enum NoiseScale {
    /// `Lap(σ)^{⊗d}`, σ = 2L√s/(nε).
    Laplace {
        /// σ: the Laplace scale.
        sigma: f64,
    },
    /// `N(0, σ² I_d)`, σ = (2L/n)·√(2 ln(1.25/δ))/ε.
    Gaussian {
        /// σ: the standard deviation.
        sigma: f64,
    },
}

impl NoiseScale {
    /// The noise of a release at (ε, δ) with the given sensitivity (ℓ1 for δ = 0, ℓ2 for δ > 0):
    /// `Lap(Δ₁/ε)` for δ = 0 (Fact 2.3(a)), else `N(0, σ²)` with σ = z·Δ₂ and the classic
    /// multiplier `z = √(2 ln(1.25/δ))/ε` rounded up (Fact 2.3(b)).
    ///
    /// # Errors
    /// As [`gaussian::classic_noise_multiplier`] (δ > 0).
    pub fn calibrated(epsilon: f64, delta: f64, sensitivity: f64) -> Result<Self> {
        if delta == 0.0 {
            Ok(NoiseScale::Laplace { sigma: sensitivity / epsilon })
        } else {
            let z = gaussian::classic_noise_multiplier(epsilon, delta)?;
            Ok(NoiseScale::Gaussian { sigma: z * sensitivity })
        }
    }

    /// σ.
    pub fn sigma(&self) -> f64 {
        match *self {
            NoiseScale::Laplace { sigma } | NoiseScale::Gaussian { sigma } => sigma,
        }
    }

    /// `x ← x + ξ` at this scale, noise drawn and event recorded in one call of `release`
    /// (`Laplace(σ/Δ)` or `Gaussian(σ/Δ)`, Δ the `sensitivity` the scale was calibrated on).
    ///
    /// # Errors
    /// Release errors.
    pub fn add_to(&self, x: &mut [f64], sensitivity: f64, release: &mut PrivateRelease) -> Result<()> {
        match *self {
            NoiseScale::Laplace { sigma } => release.release_statistic_laplace(x, sigma, sensitivity),
            NoiseScale::Gaussian { sigma } => release.release_statistic_given_std(x, sigma, sensitivity),
        }
    }
}

/// What one run of Algorithm 1 returns.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProjectionMechanismRun {
    /// ẑ ∈ K = B₁^d(0, L√s): the output.
    pub z_hat: Vec<f64>,
    /// z̃ = z̄ + ξ: the noisy mean before the projection (itself a private release; exposed so
    /// that tests can read ξ = z̃ − z̄ and check Lemma 3.1 pathwise).
    pub z_tilde: Vec<f64>,
    /// The noise of line 1.
    pub noise: NoiseScale,
    /// The privacy events executed (one Laplace or Gaussian release) and the privacy read from
    /// them (pure ε for δ = 0; ε at δ otherwise).
    #[serde(flatten)]
    pub accounted: Accounted,
    /// Rows changed by [`InvalidRows::ClipToSparseBall`] (0 when refusing). **Not private**: a count
    /// of records (sensitivity 1, no noise), for tests and diagnostics; never release it.
    pub clipped_rows: usize,
}

impl ProjectionMechanismConfig {
    /// Algorithm 1 with rows outside `S_s^d` refused.
    ///
    /// # Errors
    /// `InvalidParameter` for L not finite and > 0, s = 0, ε not finite and > 0, δ ∉ [0, 1), or
    /// δ > 0 with ε ≥ 1 (the classical Gaussian calibration of Fact 2.3(b) needs ε < 1).
    pub fn new(l2_bound_l: f64, sparsity_s: usize, epsilon: f64, delta: f64) -> Result<Self> {
        check_sparse_ball("L (l2 bound)", l2_bound_l, sparsity_s)?;
        check_release_budget(
            epsilon,
            delta,
            "< 1 when delta > 0 (the classical Gaussian calibration of Thm. 3.3 needs it)",
        )?;
        Ok(ProjectionMechanismConfig { l2_bound_l, sparsity_s, epsilon, delta, invalid_rows: InvalidRows::Refuse })
    }

    /// The same, with rows outside `S_s^d` clipped explicitly ([`InvalidRows::ClipToSparseBall`]).
    pub fn with_clipping(mut self) -> Self {
        self.invalid_rows = InvalidRows::ClipToSparseBall;
        self
    }

    /// The noise of line 1 for n vectors: Laplace `σ = 2L√s/(nε)` (δ = 0), or Gaussian
    /// `σ = (2L/n)·z`, `z = √(2 ln(1.25/δ))/ε` rounded up (σ² = 8L² ln(1.25/δ)/(nε)²).
    ///
    /// # Errors
    /// `InvalidParameter` for n = 0.
    pub fn noise_scale(&self, n: usize) -> Result<NoiseScale> {
        if n == 0 {
            return Err(Error::Empty { what: "dataset" });
        }
        NoiseScale::calibrated(self.epsilon, self.delta, self.sensitivity(n))
    }

    /// The sensitivity line 1 calibrates on: Δ₁ for δ = 0 (Laplace), Δ₂ for δ > 0 (Gaussian).
    pub fn sensitivity(&self, n: usize) -> f64 {
        if self.delta == 0.0 { self.l1_sensitivity(n) } else { self.l2_sensitivity(n) }
    }

    /// Δ₁ = 2L′√s/n: the ℓ1 sensitivity of the mean of n vectors of `S_s^d` (Thm. 3.2's proof),
    /// with `L′ = L(1 + NORM_ROUNDING)`: a row is accepted when its norm *as evaluated* is ≤ L,
    /// and its exact norm can exceed that by the rounding of the norm (a relative (s + 2)·2^−53
    /// or so), so the noise is calibrated on L′, which bounds every accepted row.
    pub fn l1_sensitivity(&self, n: usize) -> f64 {
        2.0 * self.l2_bound_l * (1.0 + NORM_ROUNDING) * (self.sparsity_s as f64).sqrt() / n as f64
    }

    /// Δ₂ = 2L′/n: the ℓ2 sensitivity of the mean (Thm. 3.3's proof), L′ as in
    /// [`ProjectionMechanismConfig::l1_sensitivity`].
    pub fn l2_sensitivity(&self, n: usize) -> f64 {
        2.0 * self.l2_bound_l * (1.0 + NORM_ROUNDING) / n as f64
    }

    /// z̄(S) = (1/n) Σ_i z_i after checking (or, on request, clipping) every row: the input of
    /// Algorithm 1. Returns (z̄, rows clipped).
    ///
    /// # Errors
    /// `NonFinite` for a NaN/∞ entry; `InvalidParameter` for a row with more than s non-zeros or
    /// ‖z_i‖₂ > L (as evaluated) when refusing.
    pub fn mean(&self, data: SparseVectors<'_>) -> Result<(Vec<f64>, usize)> {
        let (n, d) = (data.n(), data.d());
        if n == 0 || d == 0 {
            return Err(Error::Empty { what: "dataset" });
        }
        let mut sum = vec![0.0; d];
        let mut clipped = 0usize;
        let (mut idx, mut val) = (Vec::new(), Vec::new());
        for i in 0..n {
            data.row_nonzeros(i, &mut idx, &mut val)?;
            if self.fit_row(i, &mut idx, &mut val)? {
                clipped += 1;
            }
            for (&j, &v) in idx.iter().zip(&val) {
                sum[j] += v;
            }
        }
        let n_f = n as f64;
        for v in sum.iter_mut() {
            *v /= n_f;
        }
        Ok((sum, clipped))
    }

    /// Checks one row's non-zeros against `S_s^d`, or maps it there; returns whether it changed.
    fn fit_row(&self, i: usize, idx: &mut Vec<usize>, val: &mut Vec<f64>) -> Result<bool> {
        let s = self.sparsity_s;
        let norm = crate::linalg::norm_l2(val);
        let fits = val.len() <= s && norm <= self.l2_bound_l;
        if fits {
            return Ok(false);
        }
        if self.invalid_rows == InvalidRows::Refuse {
            return Err(if val.len() > s {
                Error::invalid("row sparsity (non-zeros)", format!("{} in row {i}", val.len()), "<= s")
            } else {
                Error::invalid("row l2 norm", format!("{norm} in row {i}"), "<= L")
            });
        }
        if val.len() > s {
            // keep the s largest |v| (ties: lower index), in index order
            let mut order: Vec<usize> = (0..val.len()).collect();
            order.sort_by(|&a, &b| val[b].abs().total_cmp(&val[a].abs()).then(a.cmp(&b)));
            order.truncate(s);
            order.sort_unstable();
            *idx = order.iter().map(|&k| idx[k]).collect();
            *val = order.iter().map(|&k| val[k]).collect();
        }
        clip_l2(val, self.l2_bound_l);
        Ok(true)
    }

    /// Algorithm 1 on the rows of `data`, with the noise stream of `seeds`.
    ///
    /// # Errors
    /// As [`ProjectionMechanismConfig::mean`]; accountant errors.
    pub fn run(&self, data: SparseVectors<'_>, seeds: Seeds) -> Result<ProjectionMechanismRun> {
        // Alg. 1, line 0: z̄(S) = (1/n) Σ z_i, every row checked (or clipped on request)
        let (z_bar, clipped_rows) = self.mean(data)?;
        let (run, accounted) = self.released(seeds, |release| self.release_mean(z_bar, data.n(), release))?;
        Ok(ProjectionMechanismRun { accounted, clipped_rows, ..run })
    }

    /// The frame every run on a mean shares (Algorithms 1 and 2): `lines` draw through a fresh
    /// [`PrivateRelease`] on the noise stream of `seeds`, then the events it recorded are read
    /// at this configuration's δ ([`Accounted::read_release`]). Every release of those lines
    /// states its own scale and sensitivity, so the multiplier of `release_statistic` is unused
    /// (0).
    ///
    /// # Errors
    /// Those of `lines`; release and accountant errors.
    pub(crate) fn released<R>(
        &self,
        seeds: Seeds,
        lines: impl FnOnce(&mut PrivateRelease) -> Result<R>,
    ) -> Result<(R, Accounted)> {
        let mut release = PrivateRelease::statistics(0.0, seeds)?;
        let out = lines(&mut release)?;
        Ok((out, Accounted::read_release(release, self.delta, "sparse mean release accounting")?))
    }

    /// Lines 1–3 on a mean z̄ of n vectors of `S_s^d` (the caller vouches for the rows, e.g.
    /// \[GGKKM\] Algorithm 5's per-example gradients), drawing through `release`; the run's events
    /// and privacy are filled in by [`ProjectionMechanismConfig::run`].
    ///
    /// # Errors
    /// `Empty` for n = 0 or an empty z̄; `NonFinite` for a NaN/∞ entry of z̄.
    pub fn release_mean(
        &self,
        z_bar: Vec<f64>,
        n: usize,
        release: &mut PrivateRelease,
    ) -> Result<ProjectionMechanismRun> {
        self.release_mean_recorded(z_bar, n, release, GaussianRecord::Curve)
    }

    /// [`ProjectionMechanismConfig::release_mean`] with a choice of how a Gaussian release is
    /// recorded ([`GaussianRecord`]; the Laplace release is always `Laplace(z)`).
    ///
    /// # Errors
    /// As [`ProjectionMechanismConfig::release_mean`].
    pub fn release_mean_recorded(
        &self,
        z_bar: Vec<f64>,
        n: usize,
        release: &mut PrivateRelease,
        record: GaussianRecord,
    ) -> Result<ProjectionMechanismRun> {
        if z_bar.is_empty() {
            return Err(Error::Empty { what: "mean vector" });
        }
        check::all_finite("mean vector", &z_bar)?;
        // Alg. 1, line 1: σ = 2L√s/(nε) (Laplace, δ = 0) or σ² = 8L² ln(1.25/δ)/(nε)² (Gaussian)
        let noise = self.noise_scale(n)?;
        // Alg. 1, line 2: z̃ = z̄(S) + ξ (noise drawn and event recorded in one call)
        let mut z_tilde = z_bar;
        match (noise, record) {
            (NoiseScale::Gaussian { sigma }, GaussianRecord::ClaimedEpsilon) => {
                release.release_statistic_epsilon_delta(&mut z_tilde, sigma, self.l2_sensitivity(n), self.epsilon)?;
            }
            _ => noise.add_to(&mut z_tilde, self.sensitivity(n), release)?,
        }
        // Alg. 1, line 3: ẑ = argmin_{z ∈ K} ‖z − z̃‖₂, K = B₁^d(0, L√s)
        let mut z_hat = z_tilde.clone();
        project_noisy_mean(&mut z_hat, self.l2_bound_l, self.sparsity_s)?;
        Ok(ProjectionMechanismRun {
            z_hat,
            z_tilde,
            noise,
            accounted: Accounted::unread(noise.sigma()),
            clipped_rows: 0,
        })
    }
}

/// \[GGKKM\] Algorithm 1, last line: `ẑ = argmin_{z ∈ K} ‖z − z̃‖₂` with `K = B₁^d(0, L√s)`, in
/// place, by the exact sort-based l1-ball projection ([`project_l1_ball`], feasible as evaluated).
/// It takes only (z̃, L, s): whatever it does is post-processing of the private z̃.
///
/// # Errors
/// `InvalidParameter` for L not finite and > 0 or s = 0; `NonFinite` for a NaN/∞ entry of z̃.
pub fn project_noisy_mean(z_tilde: &mut [f64], l2_bound_l: f64, sparsity_s: usize) -> Result<()> {
    check_sparse_ball("L (l2 bound)", l2_bound_l, sparsity_s)?;
    check::all_finite("noisy mean", z_tilde)?;
    project_l1_ball(z_tilde, l2_bound_l * (sparsity_s as f64).sqrt());
    Ok(())
}

/// Checks the (L, s) of `S_s^d = {‖z‖₀ ≤ s, ‖z‖₂ ≤ L}`: L finite and > 0 (named `l_name`),
/// 1 ≤ s ≤ [`MAX_SPARSITY`].
///
/// # Errors
/// `InvalidParameter` naming the first that fails.
pub(crate) fn check_sparse_ball(l_name: &'static str, l: f64, sparsity_s: usize) -> Result<()> {
    check::positive(l_name, l)?;
    // A row's l2 norm is checked against L as evaluated; below the private-clip floor the norm of
    // subnormal rows underflows (‖(1e-320, 1e-320, 1e-320)‖₂ evaluated to 0), and at L = 1e-323
    // such a row, 1700 L long, passed and ε read 0.5 for a true ~380.
    if l < crate::optim::release::SMALLEST_PRIVATE_CLIP {
        return Err(Error::invalid(
            l_name,
            l,
            "at least 2^-969 (about 2.0e-292): below, row norms evaluate on the subnormal grid and a row far \
             outside the ball can pass the check",
        ));
    }
    if sparsity_s == 0 {
        return Err(Error::invalid("s (sparsity)", sparsity_s, ">= 1"));
    }
    // NORM_ROUNDING = 1e-12 covers a row norm's rounding, (s + 2)·2⁻⁵³, only up to s = 9005
    if sparsity_s > MAX_SPARSITY {
        return Err(Error::invalid(
            "s (sparsity)",
            sparsity_s,
            "<= 9000 (the 1e-12 margin on L covers the row-norm rounding (s + 2)*2^-53 only that far)",
        ));
    }
    Ok(())
}

/// The largest sparsity s accepted: [`NORM_ROUNDING`] covers the rounding `(s + 2)·2⁻⁵³` of a
/// row's evaluated l2 norm up to s = 9005.
pub const MAX_SPARSITY: usize = 9000;

/// Checks the (ε, δ) of one Laplace (δ = 0) or classically calibrated Gaussian (δ > 0) release:
/// ε finite and > 0, δ ∈ [0, 1), and ε < 1 when δ > 0 (`constraint` says which result needs it).
///
/// # Errors
/// `InvalidParameter` naming the first that fails.
pub(crate) fn check_release_budget(epsilon: f64, delta: f64, constraint: &'static str) -> Result<()> {
    check::positive("epsilon", epsilon)?;
    check::probability_below_one("delta", delta)?;
    if delta > 0.0 && epsilon >= 1.0 {
        return Err(Error::invalid("epsilon", epsilon, constraint));
    }
    Ok(())
}
