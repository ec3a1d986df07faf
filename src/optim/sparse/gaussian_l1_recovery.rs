//! Gaussian ℓ1 recovery for the mean of sparse vectors — \[GGKKM\] Algorithm 2 (Sec. 3.1,
//! Theorem 3.4), with the RIP constant certified instead of the paper's unspecified 3/2.
//!
//! Input: n vectors `z_i ∈ S_s^d = {‖z‖₀ ≤ s, ‖z‖₂ ≤ L}` ([`SparseVectors`]), a
//! [`GaussianL1RecoveryConfig`] (L, s, ε < 1, δ ∈ (0, 1), c_m). Output: [`GaussianL1RecoveryRun`]:
//! ẑ, z̃, the branch taken with its constants, the events executed and the privacy read from them.
//! ```text
//! 0:  z̄(S) = (1/n) Σ_i z_i                                   (rows checked as in Algorithm 1)
//! 1:  m = ⌈c_m·nε·√(s ln(d/s)/ln(1/δ))⌉                       (c_m = 1; m = 0 when s ≥ d)
//! 2:  if m < 2 or d < m ln² m:  return ẑ = z̄ + ξ, ξ ~ N(0, σ²I_d), σ² = 8L² ln(1.25/δ)/(nε)²
//! 3:  ρ = 1 + √(2s/m) + √(2 ln(2·C(d, 2s)/δ)/m)               (certified; the paper: 3/2)
//! 4:  A ~ N(0, 1/m)^{m×d}   (data-independent; P[some 2s-sparse v has ‖Av‖ > ρ‖v‖] ≤ δ/2)
//! 5:  b = A z̄ + ξ,  ξ ~ N(0, σ²I_m),  σ = (2Lρ/n)·√(2 ln(2.5/δ))/ε
//!                                      (printed: σ² = 18L² ln(2.5/δ)/(nε)², i.e. ρ = 3/2)
//! 6:  z̃ = argmin{‖z‖₁ : Az = b}                               (certified basis pursuit)
//! 7:  return ẑ = z̃·1{‖z̃‖₂ ≤ 2L}
//! ```
//! (The paper displays Algorithm 2 without line numbers; lines are counted from its first
//! displayed step, with the input z̄(S) as line 0 and the constants of the high-dimensional
//! branch split into their own lines.) Line 2 is Algorithm 1's Gaussian release without its
//! projection ([`ProjectionMechanismConfig::release_mean`], its z̃).
//!
//! # Privacy
//! Replace-one (Def. 2.2). Line 2: the Gaussian mechanism at (ε, δ), event `Gaussian(z)`,
//! `z = √(2 ln(1.25/δ))/ε`. Lines 3–5: for a fixed support T of size k = min(2s, d),
//! `s_max(√m A_T) ≤ √m + √k + t` fails with probability ≤ e^{−t²/2} (Gaussian concentration of a
//! 1-Lipschitz function, Gordon's bound on its mean); a union bound over the C(d, k) supports with
//! `t = √(2 ln(2C(d,k)/δ))` gives: with probability ≥ 1 − δ/2 over A, `‖Av‖ ≤ ρ‖v‖` for every
//! 2s-sparse v. On that event `‖A(z̄ − z̄′)‖ = ‖A(z_i − z_i′)‖/n ≤ 2Lρ/n = Δ₂`, and line 5 is the
//! Gaussian mechanism at (ε, δ/2). The draw of A records `EpsilonDelta(0, δ/2)` and line 5 records
//! `Gaussian(z)`, `z = √(2 ln(2.5/δ))/ε`; the reported privacy is (ε′, δ) with ε′ the exact
//! Gaussian curve's ε at δ − δ/2 (≤ ε). Lines 6–7 are post-processing of (A, b).
//!
//! # Errors
//! As Algorithm 1 for the rows; `InvalidParameter` for δ ∉ (0, 1), ε ∉ (0, 1), c_m not finite and
//! positive, or m·d above [`MAX_MATRIX_ENTRIES`] (refused before any draw); `Numerical` when basis
//! pursuit is not certified within its budget (after the release: nothing is returned).
//!
//! Proof: proofs/sparse/gaussian_l1_recovery.md.

use super::accounted::Accounted;
use super::projection_mechanism::{ProjectionMechanismConfig, SparseVectors};
use crate::accounting::gaussian;
use crate::error::{Error, Result, check};
use crate::linalg::basis_pursuit::{BasisPursuitSettings, BasisPursuitSolution, MeasurementSystem, gaussian_matrix};
use crate::optim::PrivateRelease;
use crate::rng::Seeds;
use serde::Serialize;

/// The largest measurement matrix drawn, m·d ≤ 2²⁵ entries (256 MiB of f64; `dpref reproduce sparse`'s E1 size,
/// m = 170 and d = 2·10⁴, is 3.4·10⁶).
pub const MAX_MATRIX_ENTRIES: usize = 1 << 25;

/// The parameters of Algorithm 2.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GaussianL1RecoveryConfig {
    /// L, s, ε, δ and the treatment of rows outside `S_s^d`, as Algorithm 1 takes them (line 2 is
    /// its Gaussian release at (ε, δ)).
    pub mean: ProjectionMechanismConfig,
    /// c_m > 0: the constant of line 1 (1 by default).
    pub measurement_constant_c_m: f64,
    /// The basis pursuit solver of line 6.
    pub solver: BasisPursuitSettings,
}

/// The branch Algorithm 2 took, with its constants.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum RecoveryBranch {
    /// Line 2: the Gaussian mechanism on z̄, no recovery.
    Gaussian {
        /// σ = (2L/n)·√(2 ln(1.25/δ))/ε.
        sigma: f64,
    },
    /// Lines 3–7.
    Recovery {
        /// ρ (line 3).
        rho: f64,
        /// σ (line 5) with the certified ρ.
        sigma: f64,
        /// σ as printed, √(18L² ln(2.5/δ))/(nε) (ρ = 3/2; for comparison only, never used).
        sigma_printed: f64,
        /// b (line 5).
        b: Vec<f64>,
        /// The basis pursuit certificate of line 6 (its z is z̃).
        certificate: BasisPursuitSolution,
        /// Whether line 7 zeroed z̃ (‖z̃‖₂ > 2L).
        zeroed: bool,
    },
}

/// What one run of Algorithm 2 returns.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GaussianL1RecoveryRun {
    /// ẑ: the output.
    pub z_hat: Vec<f64>,
    /// z̃: z̄ + ξ (line 2) or the basis pursuit solution (line 6).
    pub z_tilde: Vec<f64>,
    /// m (line 1).
    pub m: usize,
    /// The branch taken.
    pub branch: RecoveryBranch,
    /// The privacy events executed and (ε′, δ) read from them (filled in by
    /// [`GaussianL1RecoveryConfig::run`]).
    #[serde(flatten)]
    pub accounted: Accounted,
    /// Rows changed by explicit clipping (0 when refusing). **Not private**: a count of records
    /// (sensitivity 1, no noise), for tests and diagnostics; never release it.
    pub clipped_rows: usize,
}

/// The private release of lines 3–5, before recovery: (A, b) and the constants.
#[derive(Debug)]
pub struct Measurements {
    /// A with its Cholesky factor of AAᵀ.
    pub system: MeasurementSystem,
    /// b = A z̄ + ξ.
    pub b: Vec<f64>,
    /// ρ.
    pub rho: f64,
    /// σ.
    pub sigma: f64,
}

/// The certified RIP constant of line 3: `ρ = 1 + √(k/m) + √(2 ln(2·C(d,k)/δ)/m)` with
/// k = min(2s, d), rounded up by a relative 1e-12 (a few ulps of rounding in each term; a larger
/// ρ is the safe direction). With probability ≥ 1 − δ/2 over A ~ N(0, 1/m)^{m×d},
/// `‖Av‖₂ ≤ ρ‖v‖₂` for every 2s-sparse v (module doc).
///
/// # Errors
/// `InvalidParameter` for m = 0, s = 0, d = 0 or δ ∉ (0, 1).
pub fn certified_rip_constant(m: usize, d: usize, s: usize, delta: f64) -> Result<f64> {
    if m == 0 || s == 0 || d == 0 {
        return Err(Error::invalid("(m, d, s)", format!("({m}, {d}, {s})"), "all >= 1"));
    }
    let delta = check::open_unit("delta", delta)?;
    let k = (2 * s).min(d);
    let mf = m as f64;
    let ln_union = std::f64::consts::LN_2 + crate::special::ln_binomial_summed(d, k)? - delta.ln();
    let rho = 1.0 + (k as f64 / mf).sqrt() + (2.0 * ln_union / mf).sqrt();
    Ok(rho * (1.0 + 1e-12))
}

impl GaussianL1RecoveryConfig {
    /// Algorithm 2 with c_m = 1, rows outside `S_s^d` refused, the default solver settings.
    ///
    /// # Errors
    /// `InvalidParameter` for L, s as in Algorithm 1, δ ∉ (0, 1), or ε ∉ (0, 1) (the classical
    /// Gaussian calibration of both branches needs ε < 1).
    pub fn new(l2_bound_l: f64, sparsity_s: usize, epsilon: f64, delta: f64) -> Result<Self> {
        check::open_unit("delta", delta)?;
        let mean = ProjectionMechanismConfig::new(l2_bound_l, sparsity_s, epsilon, delta)?;
        Ok(GaussianL1RecoveryConfig { mean, measurement_constant_c_m: 1.0, solver: BasisPursuitSettings::default() })
    }

    /// The same with another c_m.
    ///
    /// # Errors
    /// `InvalidParameter` for c_m not finite and positive.
    pub fn with_measurement_constant(mut self, c_m: f64) -> Result<Self> {
        self.measurement_constant_c_m = check::positive("c_m", c_m)?;
        Ok(self)
    }

    /// The same with rows outside `S_s^d` clipped explicitly (as Algorithm 1).
    pub fn with_clipping(mut self) -> Self {
        self.mean = self.mean.with_clipping();
        self
    }

    /// Line 1: `m = ⌈c_m·nε·√(s ln(d/s)/ln(1/δ))⌉` (0 when s ≥ d: no recovery is possible), from
    /// `bounds::sparse::theorem34_measurements_corrected_unit_constant`.
    ///
    /// # Errors
    /// `Empty` for n = 0 or d = 0; `InvalidParameter` for an m that is not finite.
    pub fn measurements_m(&self, n: usize, d: usize) -> Result<usize> {
        if n == 0 || d == 0 {
            return Err(Error::Empty { what: "dataset" });
        }
        let s = self.mean.sparsity_s;
        if s >= d {
            return Ok(0);
        }
        let problem = crate::bounds::sparse::SparseProblem::new(1.0, s as u64, d as u64, n as u64, self.mean.epsilon)?
            .with_delta(self.mean.delta)?;
        let unit = crate::bounds::sparse::theorem34_measurements_corrected_unit_constant(&problem)?;
        let m = (self.measurement_constant_c_m * unit).ceil();
        if !(m.is_finite() && m < usize::MAX as f64) {
            return Err(Error::invalid("measurements m", m, "finite"));
        }
        Ok(m as usize)
    }

    /// Line 2's test: the recovery branch is taken iff m ≥ 2 and d ≥ m ln² m.
    pub fn takes_recovery_branch(m: usize, d: usize) -> bool {
        m >= 2 && d as f64 >= m as f64 * (m as f64).ln().powi(2)
    }

    /// Algorithm 2 on the rows of `data`, with the noise and measurement streams of `seeds`.
    ///
    /// # Errors
    /// See the module doc.
    pub fn run(&self, data: SparseVectors<'_>, seeds: Seeds) -> Result<GaussianL1RecoveryRun> {
        // Alg. 2, line 0: z̄(S) = (1/n) Σ z_i, every row checked (or clipped on request)
        let (z_bar, clipped_rows) = self.mean.mean(data)?;
        let (run, accounted) = self.mean.released(seeds, |release| self.release_mean(z_bar, data.n(), release))?;
        Ok(GaussianL1RecoveryRun { accounted, clipped_rows, ..run })
    }

    /// Lines 1–7 on a mean z̄ of n vectors of `S_s^d` (vouched for by the caller, e.g.
    /// \[GGKKM\] Algorithm 5), drawing through `release`; events and privacy are filled in by
    /// [`GaussianL1RecoveryConfig::run`].
    ///
    /// # Errors
    /// See the module doc.
    pub fn release_mean(
        &self,
        z_bar: Vec<f64>,
        n: usize,
        release: &mut PrivateRelease,
    ) -> Result<GaussianL1RecoveryRun> {
        // Alg. 2, line 1: m = ⌈c_m nε √(s ln(d/s)/ln(1/δ))⌉
        let m = self.measurements_m(n, z_bar.len())?;
        if !Self::takes_recovery_branch(m, z_bar.len()) {
            // Alg. 2, line 2: ẑ = z̄ + ξ, σ² = 8L² ln(1.25/δ)/(nε)² (Algorithm 1's Gaussian, unprojected)
            let alg1 = self.mean.release_mean(z_bar, n, release)?;
            let sigma = alg1.noise.sigma();
            return Ok(GaussianL1RecoveryRun {
                z_hat: alg1.z_tilde.clone(),
                z_tilde: alg1.z_tilde,
                m,
                branch: RecoveryBranch::Gaussian { sigma },
                accounted: Accounted::unread(0.0),
                clipped_rows: 0,
            });
        }
        let measured = self.release_measurements(&z_bar, n, m, release)?;
        // Alg. 2, line 6: z̃ = argmin{‖z‖₁ : Az = b} (certified basis pursuit)
        // (b is already released: a failed solve says what was spent, which no run will report)
        let certificate = measured.system.basis_pursuit(&measured.b, &self.solver).map_err(|e| match e {
            Error::Numerical { what, reason } => Error::Numerical {
                what,
                reason: format!(
                    "{reason}; the noisy measurements b were already released, spending (epsilon, delta) = ({}, {})",
                    self.mean.epsilon, self.mean.delta
                ),
            },
            other => other,
        })?;
        let z_tilde = certificate.z.clone();
        // Alg. 2, line 7: ẑ = z̃·1{‖z̃‖₂ ≤ 2L}
        let zeroed = crate::linalg::norm_l2(&z_tilde) > 2.0 * self.mean.l2_bound_l;
        let z_hat = if zeroed { vec![0.0; z_tilde.len()] } else { z_tilde.clone() };
        let branch = RecoveryBranch::Recovery {
            rho: measured.rho,
            sigma: measured.sigma,
            sigma_printed: self.sigma_printed(n)?,
            b: measured.b,
            certificate,
            zeroed,
        };
        Ok(GaussianL1RecoveryRun { z_hat, z_tilde, m, branch, accounted: Accounted::unread(0.0), clipped_rows: 0 })
    }

    /// Lines 3–5 with m measurements (the private release; recovery is post-processing of it).
    ///
    /// # Errors
    /// `InvalidParameter` for m < 2 or m > d, or m·d above [`MAX_MATRIX_ENTRIES`]; `Empty`,
    /// `NonFinite` for z̄; release errors.
    #[allow(non_snake_case)]
    pub fn release_measurements(
        &self,
        z_bar: &[f64],
        n: usize,
        m: usize,
        release: &mut PrivateRelease,
    ) -> Result<Measurements> {
        let d = z_bar.len();
        if n == 0 || d == 0 {
            return Err(Error::Empty { what: "mean vector" });
        }
        check::all_finite("mean vector", z_bar)?;
        if m < 2 || m > d {
            return Err(Error::invalid("measurements m", m, "2 <= m <= d"));
        }
        if m.checked_mul(d).is_none_or(|e| e > MAX_MATRIX_ENTRIES) {
            return Err(Error::invalid(
                "measurement matrix size m*d",
                format!("{m}*{d}"),
                "<= 2^25 entries (MAX_MATRIX_ENTRIES, 256 MiB)",
            ));
        }
        let delta = self.mean.delta;
        // Alg. 2, line 3: ρ = 1 + √(2s/m) + √(2 ln(2·C(d,2s)/δ)/m) (certified)
        let rho = certified_rip_constant(m, d, self.mean.sparsity_s, delta)?;
        // Alg. 2, line 4: A ~ N(0, 1/m)^{m×d}, records EpsilonDelta(0, δ/2) (P[RIP bound ρ fails])
        let A = release.draw_public(delta / 2.0, |rng| gaussian_matrix(rng, m, d, 1.0 / (m as f64).sqrt()))?;
        let system = MeasurementSystem::new(A)?;
        // Alg. 2, line 5: b = A z̄ + ξ, σ = (2Lρ/n)·√(2 ln(2.5/δ))/ε (Gaussian at (ε, δ/2))
        let sensitivity = self.mean.l2_sensitivity(n) * rho;
        let sigma = gaussian::classic_noise_multiplier(self.mean.epsilon, delta / 2.0)? * sensitivity;
        let mut b = system.apply(z_bar);
        release.release_statistic_given_std(&mut b, sigma, sensitivity)?;
        Ok(Measurements { system, b, rho, sigma })
    }

    /// σ as printed in line 5, `√(18L² ln(2.5/δ))/(nε)` (the certified σ with ρ = 3/2), with L′ as
    /// the release uses it.
    ///
    /// # Errors
    /// As [`gaussian::classic_noise_multiplier`].
    pub fn sigma_printed(&self, n: usize) -> Result<f64> {
        Ok(gaussian::classic_noise_multiplier(self.mean.epsilon, self.mean.delta / 2.0)?
            * self.mean.l2_sensitivity(n)
            * 1.5)
    }
}
