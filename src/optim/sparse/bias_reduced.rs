//! The subsampled bias-reduced gradient estimator — \[GGKKM\] Algorithm 5 (Sec. 6.1, Def. 6.1,
//! Lemma 6.4, and the per-call privacy of Lemma 6.3).
//!
//! Input: a point x, a GLM loss on CSR records ([`SparseGlm`]: per-example gradients
//! `ℓ′(⟨z_i, x⟩, y_i)·z_i`, which must lie in `S_s^d = {‖g‖₀ ≤ s, ‖g‖₂ ≤ L}`), the level
//! N ~ TGeom(M), M = ⌊log₂ n⌋ − 1 (drawn by the caller, as in the paper's signature; [`BiasReducedConfig::run`]
//! draws it for a stand-alone call), [`BiasReducedConfig`] (L, s, ε, δ, the mean mechanism, the
//! reading of p_N). Output: [`BiasReducedEstimate`]: 𝒢(x), its four parts, N, B, I, 1/p_N and the
//! number of per-example gradients evaluated.
//! ```text
//! 1:  B = a uniformly random ordered sample of 2^{N+1} distinct indices of [n];
//!     O = its first half, E = its second half (|O| = |E| = 2^N); I ~ Unif([n]) independent of B
//! 2:  G⁺   = MeanMech(∇F_B(x), ε/4, δ/4, 2^{N+1})        ∇F_A(x) = (1/|A|) Σ_{i∈A} ∇f(x, z_i)
//! 3:  G⁻_O = MeanMech(∇F_O(x), ε/4, δ/4, 2^N)
//! 4:  G⁻_E = MeanMech(∇F_E(x), ε/4, δ/4, 2^N)
//! 5:  G_0  = MeanMech(∇f(x, z_I), ε/4, δ/4, 1)
//! 6:  return 𝒢(x) = (1/p_N)·(G⁺ − ½(G⁻_O + G⁻_E)) + G_0,  p_N = C_M 2^{−N}   (corrected: the
//!     proof of Lemma 6.4 takes p_k = 2^{−k}, without C_M; see proofs/sparse/bias_reduced.md §5)
//! ```
//! (The paper displays the algorithm without line numbers; lines are counted from its first
//! displayed step.) MeanMech is pluggable ([`MeanMechanism`]): the pseudocode names Algorithm 1,
//! Lemma 6.4's proof quotes Theorem 3.4 (Algorithm 2). [`MeanMechanismKind`] offers Algorithm 1
//! (Laplace for δ = 0, Gaussian for δ > 0) and Algorithm 2 (δ > 0; [`GaussianL1RecoveryConfig`]
//! at (ε/4, δ/4), m the batch size, so small batches take its Gaussian branch).
//!
//! Exact identities (tested): `∇F_B = ½(∇F_O + ∇F_E)`; with the identity as MeanMech,
//! 𝒢 = ∇f(x, z_I) pathwise; and for **any** map φ(v, m) as MeanMech, the expectation over N, the
//! ordered B and I telescopes to `E_B[φ(∇F_B, 2^{M+1})]` (|B| = 2^{M+1}), which needs C_M in p_N.
//!
//! Cost: 2^{N+1} + 1 per-example gradients (O, E reuse B's), O(nnz) each on CSR rows; four mean
//! mechanism calls. E[2^{N+1}] + 1 = 2C_M(M + 1) + 1 ≈ log₂ n.
//!
//! # Privacy
//! Replace-one (Def. 2.2). Conditionally on B, lines 2–4 are three Algorithm 1 calls at
//! (ε/4, δ/4) on B; line 5 one at (ε/4, δ/4) on {I}. With Gaussian noise each call is
//! `Gaussian(z)`, and the three calls on B are recorded (through [`PrivateRelease`]) as one
//! `SampledWithoutReplacement(n, 2^{N+1}, Gaussian(z/√3))` (sequential composition in RDP, the
//! paper's 3×; parallel composition over the disjoint O, E would give 2×), line 5 as
//! `SampledWithoutReplacement(n, 1, Gaussian(z))`: amplification by sampling without replacement
//! as Lemma 6.3 uses it, read by the RDP accountant (Wang–Balle–Kasiviswanathan). With Laplace
//! noise the accountant has no without-replacement bound: the four `Laplace(4/ε)` events are
//! recorded **without amplification**, and the reported pure ε is their basic composition, ε.
//! With Algorithm 2, each call in its recovery branch also records `EpsilonDelta(0, δ/8)` (the
//! RIP failure probability of its fresh A, not amplified); the RDP accountant carries these δ's
//! into the reported δ.
//!
//! # Errors
//! `InvalidParameter` for n < 2, N > M, a point of the wrong dimension, or a per-example gradient
//! outside `S_s^d` (named by its row; never clipped silently); `NonFinite` for NaN/∞;
//! `InvalidParameter` for Algorithm 2 as MeanMech with δ = 0; its `Numerical` error when basis
//! pursuit is not certified.
//!
//! Proof: proofs/sparse/bias_reduced.md.

use super::accounted::Accounted;
use super::gaussian_l1_recovery::GaussianL1RecoveryConfig;
use super::projection_mechanism::ProjectionMechanismConfig;
use crate::error::{Error, Result, check};
use crate::model::SparseGlm;
use crate::optim::{EventLog, PrivacyReport, PrivateRelease};
use crate::rng::Seeds;
use crate::sampling::{TruncatedGeometric, split_ordered};
use serde::Serialize;

/// A mean mechanism for Algorithm 5's lines 2–5: releases a private estimate of the mean of m
/// vectors of `S_s^d`, drawing noise and recording events only through `release`.
pub trait MeanMechanism {
    /// The released estimate of `mean` (the mean of m vectors of `S_s^d`, vouched for by the
    /// caller).
    ///
    /// # Errors
    /// The mechanism's own (invalid m, non-finite mean, unsupported).
    fn release_mean(&self, mean: Vec<f64>, m: usize, release: &mut PrivateRelease) -> Result<Vec<f64>>;
}

/// The mean mechanisms Algorithm 5 can call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub enum MeanMechanismKind {
    /// \[GGKKM\] Algorithm 1, the projection mechanism (Laplace for δ = 0, Gaussian for δ > 0):
    /// the pseudocode's choice.
    #[default]
    Projection,
    /// \[GGKKM\] Algorithm 2, Gaussian ℓ1 recovery (Lemma 6.4's proof quotes its Thm. 3.4), at
    /// (ε/4, δ/4) per call: needs δ > 0. Each call in its recovery branch draws a fresh A and
    /// records `EpsilonDelta(0, δ/8)` (its RIP failure probability, not amplified).
    GaussianL1Recovery,
}

/// Which reading of p_N in line 6.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub enum InverseWeight {
    /// `p_N = C_M 2^{−N}`, the law N is drawn from (Def. 6.1): E\[𝒢\] telescopes exactly.
    #[default]
    Corrected,
    /// `p_N = 2^{−N}` as Lemma 6.4's proof takes it (no C_M): E\[𝒢\] misses the telescoping
    /// identity (kept to show it fail).
    AsPrinted,
}

/// The parameters of Algorithm 5.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BiasReducedConfig {
    /// L > 0: the ℓ2 bound of every per-example gradient.
    pub l2_bound_l: f64,
    /// s ≥ 1: the sparsity of every per-example gradient.
    pub sparsity_s: usize,
    /// ε > 0: the budget of one call (each mean mechanism runs at ε/4).
    pub epsilon: f64,
    /// δ ∈ [0, 1): 0 selects Laplace noise in Algorithm 1 (each call at δ/4).
    pub delta: f64,
    /// MeanMech.
    pub mechanism: MeanMechanismKind,
    /// The reading of p_N.
    pub weight: InverseWeight,
}

/// What one call of Algorithm 5 returns.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BiasReducedEstimate {
    /// 𝒢(x) (line 6).
    pub g: Vec<f64>,
    /// G⁺ (line 2).
    pub g_plus: Vec<f64>,
    /// G⁻_O (line 3).
    pub g_minus_o: Vec<f64>,
    /// G⁻_E (line 4).
    pub g_minus_e: Vec<f64>,
    /// G_0 (line 5).
    pub g_0: Vec<f64>,
    /// N.
    pub level_n: u32,
    /// B in draw order (O = first half, E = second half).
    pub batch_b: Vec<usize>,
    /// I.
    pub index_i: usize,
    /// 1/p_N as used in line 6.
    pub inverse_weight: f64,
    /// Per-example gradients evaluated (2^{N+1} + 1).
    pub gradients_evaluated: usize,
}

/// A stand-alone call: the estimate, the events executed and the privacy read from them.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BiasReducedRun {
    /// The estimate.
    pub estimate: BiasReducedEstimate,
    /// The privacy events executed and the privacy read from them: pure ε (Laplace: basic
    /// composition, no amplification) or ε at δ (Gaussian: RDP accountant with amplification by
    /// sampling without replacement).
    #[serde(flatten)]
    pub accounted: Accounted,
}

impl MeanMechanism for ProjectionMechanismConfig {
    fn release_mean(&self, mean: Vec<f64>, m: usize, release: &mut PrivateRelease) -> Result<Vec<f64>> {
        Ok(ProjectionMechanismConfig::release_mean(self, mean, m, release)?.z_hat)
    }
}

impl MeanMechanism for GaussianL1RecoveryConfig {
    fn release_mean(&self, mean: Vec<f64>, m: usize, release: &mut PrivateRelease) -> Result<Vec<f64>> {
        Ok(GaussianL1RecoveryConfig::release_mean(self, mean, m, release)?.z_hat)
    }
}

/// M = ⌊log₂ n⌋ − 1 for n ≥ 2.
///
/// # Errors
/// `InvalidParameter` for n < 2.
pub fn truncation_m(n: usize) -> Result<u32> {
    if n < 2 {
        return Err(Error::invalid("dataset size n", n, ">= 2 (Algorithm 5 needs M = floor(log2 n) - 1 >= 0)"));
    }
    Ok(n.ilog2() - 1)
}

impl BiasReducedConfig {
    /// Algorithm 5 with Algorithm 1 as MeanMech and the corrected p_N.
    ///
    /// # Errors
    /// `InvalidParameter` as [`ProjectionMechanismConfig::new`] at (L, s, ε/4, δ/4) (so ε < 4 when
    /// δ > 0).
    pub fn new(l2_bound_l: f64, sparsity_s: usize, epsilon: f64, delta: f64) -> Result<Self> {
        check::positive("epsilon", epsilon)?;
        check::probability_below_one("delta", delta)?;
        // δ/4 of a subnormal δ can be 0, which silently turned every call into a Laplace release
        if delta > 0.0 && delta < f64::MIN_POSITIVE {
            return Err(Error::invalid(
                "delta",
                delta,
                "0 or at least 2.2e-308 (its splits delta/4 must not underflow)",
            ));
        }
        let cfg = BiasReducedConfig {
            l2_bound_l,
            sparsity_s,
            epsilon,
            delta,
            mechanism: MeanMechanismKind::Projection,
            weight: InverseWeight::Corrected,
        };
        cfg.per_call()?;
        Ok(cfg)
    }

    /// The same with another mean mechanism.
    pub fn with_mechanism(mut self, mechanism: MeanMechanismKind) -> Self {
        self.mechanism = mechanism;
        self
    }

    /// The same with another reading of p_N.
    pub fn with_weight(mut self, weight: InverseWeight) -> Self {
        self.weight = weight;
        self
    }

    /// Algorithm 1 at (L, s, ε/4, δ/4): the configuration of every MeanMech call.
    ///
    /// # Errors
    /// As [`ProjectionMechanismConfig::new`].
    pub fn per_call(&self) -> Result<ProjectionMechanismConfig> {
        ProjectionMechanismConfig::new(self.l2_bound_l, self.sparsity_s, self.epsilon / 4.0, self.delta / 4.0)
    }

    /// Algorithm 2 at (L, s, ε/4, δ/4): every MeanMech call when it is the mean mechanism.
    ///
    /// # Errors
    /// As [`GaussianL1RecoveryConfig::new`] (δ > 0 and ε/4 < 1 needed).
    pub fn per_call_recovery(&self) -> Result<GaussianL1RecoveryConfig> {
        GaussianL1RecoveryConfig::new(self.l2_bound_l, self.sparsity_s, self.epsilon / 4.0, self.delta / 4.0)
    }

    /// 1/p_N for N = `level_n` under TGeom(M): `2^N/C_M = 2^N (2^{M+1} − 1)/2^M` (corrected) or
    /// `2^N` (as printed).
    pub fn inverse_weight(&self, law: &TruncatedGeometric, level_n: u32) -> f64 {
        match self.weight {
            InverseWeight::Corrected => {
                let (num, den) = law.pmf_rational(level_n);
                den as f64 / num as f64
            }
            InverseWeight::AsPrinted => (1u64 << level_n) as f64,
        }
    }

    /// Algorithm 5 with this configuration's mean mechanism, the level N given (drawn by the
    /// caller from TGeom(M)), B and I drawn through `release`.
    ///
    /// # Errors
    /// See the module doc.
    pub fn estimate(
        &self,
        x: &[f64],
        glm: SparseGlm<'_>,
        level_n: u32,
        release: &mut PrivateRelease,
    ) -> Result<BiasReducedEstimate> {
        match self.mechanism {
            MeanMechanismKind::Projection => self.estimate_with(x, glm, level_n, &self.per_call()?, release),
            MeanMechanismKind::GaussianL1Recovery => {
                self.estimate_with(x, glm, level_n, &self.per_call_recovery()?, release)
            }
        }
    }

    /// Algorithm 5 with any mean mechanism (tests plug in exact maps): the level N given, B and I
    /// drawn through `release` (its sampling stream).
    ///
    /// # Errors
    /// See the module doc.
    #[allow(non_snake_case)]
    pub fn estimate_with(
        &self,
        x: &[f64],
        glm: SparseGlm<'_>,
        level_n: u32,
        mech: &dyn MeanMechanism,
        release: &mut PrivateRelease,
    ) -> Result<BiasReducedEstimate> {
        let (n, law) = Self::level_law(glm, level_n)?;
        // Alg. 5, line 1: B = uniform ordered 2^{N+1}-sample of [n], O = first half, E = second half
        let mut B = Vec::new();
        release.sample_ordered_subset(n, 1usize << (level_n + 1), &mut B)?;
        let (g_plus, g_minus_o, g_minus_e) = self.lines_2_to_4(x, glm, &B, mech, release)?;
        // Alg. 5, line 1: I ~ Unif([n]) independent of B (an ordered 1-sample; closes B's releases)
        let mut I = Vec::new();
        release.sample_ordered_subset(n, 1, &mut I)?;
        let g_0 = self.line_5(x, glm, I[0], mech, release)?;
        release.close_subsample()?;
        Ok(self.line_6(&law, level_n, B, I[0], g_plus, g_minus_o, g_minus_e, g_0))
    }

    /// Algorithm 5 on given random choices (N, the ordered B, I): lines 2–6 without any draw of
    /// B or I. The exact enumeration of the expectation over (N, B, I) uses it.
    ///
    /// # Errors
    /// As [`BiasReducedConfig::estimate_with`], and `InvalidParameter` for a B of the wrong
    /// length, with a repeated index, or an index out of range.
    #[allow(non_snake_case, clippy::too_many_arguments)]
    pub fn estimate_on(
        &self,
        x: &[f64],
        glm: SparseGlm<'_>,
        level_n: u32,
        B: &[usize],
        I: usize,
        mech: &dyn MeanMechanism,
        release: &mut PrivateRelease,
    ) -> Result<BiasReducedEstimate> {
        let (n, law) = Self::level_law(glm, level_n)?;
        if B.len() != 1usize << (level_n + 1) {
            return Err(Error::invalid("ordered sample B", B.len(), "of length 2^(N+1)"));
        }
        let mut seen = vec![false; n];
        for &i in B.iter().chain(std::iter::once(&I)) {
            if i >= n {
                return Err(Error::invalid("sample index", i, "< n"));
            }
        }
        for &i in B {
            if std::mem::replace(&mut seen[i], true) {
                return Err(Error::invalid("ordered sample B", i, "distinct indices"));
            }
        }
        let (g_plus, g_minus_o, g_minus_e) = self.lines_2_to_4(x, glm, B, mech, release)?;
        let g_0 = self.line_5(x, glm, I, mech, release)?;
        Ok(self.line_6(&law, level_n, B.to_vec(), I, g_plus, g_minus_o, g_minus_e, g_0))
    }

    /// A stand-alone call: N ~ TGeom(M) drawn from the sampling stream of `seeds`, then
    /// [`BiasReducedConfig::estimate`], and the privacy of the events executed.
    ///
    /// # Errors
    /// As [`BiasReducedConfig::estimate`]; accountant errors.
    pub fn run(&self, x: &[f64], glm: SparseGlm<'_>, seeds: Seeds) -> Result<BiasReducedRun> {
        let law = TruncatedGeometric::new(truncation_m(glm.data.n())?)?;
        let mut release = PrivateRelease::statistics(0.0, seeds)?;
        let level_n = release.draw_truncated_geometric(&law);
        let estimate = self.estimate(x, glm, level_n, &mut release)?;
        let accounted = Accounted::pure_or_rdp(release.finish()?.events, self.delta)?;
        Ok(BiasReducedRun { estimate, accounted })
    }

    /// The privacy of a stand-alone call's events: δ = 0, pure ε = Σ 1/zᵢ over the Laplace
    /// events (basic composition, rounded up); δ > 0, the RDP accountant's ε at δ (replace-one).
    ///
    /// # Errors
    /// Accountant errors.
    pub fn accounted(&self, events: &EventLog) -> Result<PrivacyReport> {
        Ok(Accounted::pure_or_rdp(events.clone(), self.delta)?.privacy)
    }

    /// n and the law TGeom(M) of the level on `glm`'s data, with `level_n` checked to lie in its
    /// support 0..=M.
    fn level_law(glm: SparseGlm<'_>, level_n: u32) -> Result<(usize, TruncatedGeometric)> {
        let n = glm.data.n();
        let law = TruncatedGeometric::new(truncation_m(n)?)?;
        if level_n > law.truncation() {
            return Err(Error::invalid("level N", level_n, "<= M = floor(log2 n) - 1 (the support of TGeom(M))"));
        }
        Ok((n, law))
    }

    /// Lines 2–4: the three mean mechanism calls on B, O and E.
    #[allow(non_snake_case)]
    fn lines_2_to_4(
        &self,
        x: &[f64],
        glm: SparseGlm<'_>,
        B: &[usize],
        mech: &dyn MeanMechanism,
        release: &mut PrivateRelease,
    ) -> Result<(Vec<f64>, Vec<f64>, Vec<f64>)> {
        let (O, E) = split_ordered(B)?;
        let grad_O = self.mean_gradient(x, glm, O)?;
        let grad_E = self.mean_gradient(x, glm, E)?;
        // ∇F_B = ½(∇F_O + ∇F_E): B's gradients are O's and E's, each evaluated once
        let grad_B: Vec<f64> = grad_O.iter().zip(&grad_E).map(|(o, e)| 0.5 * (o + e)).collect();
        // Alg. 5, line 2: G⁺ = MeanMech(∇F_B(x), ε/4, δ/4, 2^{N+1})
        let g_plus = mech.release_mean(grad_B, B.len(), release)?;
        // Alg. 5, line 3: G⁻_O = MeanMech(∇F_O(x), ε/4, δ/4, 2^N)
        let g_minus_o = mech.release_mean(grad_O, O.len(), release)?;
        // Alg. 5, line 4: G⁻_E = MeanMech(∇F_E(x), ε/4, δ/4, 2^N)
        let g_minus_e = mech.release_mean(grad_E, E.len(), release)?;
        Ok((g_plus, g_minus_o, g_minus_e))
    }

    /// Line 5: the mean mechanism on the single record I.
    #[allow(non_snake_case)]
    fn line_5(
        &self,
        x: &[f64],
        glm: SparseGlm<'_>,
        I: usize,
        mech: &dyn MeanMechanism,
        release: &mut PrivateRelease,
    ) -> Result<Vec<f64>> {
        let grad_I = self.mean_gradient(x, glm, &[I])?;
        // Alg. 5, line 5: G_0 = MeanMech(∇f(x, z_I), ε/4, δ/4, 1)
        mech.release_mean(grad_I, 1, release)
    }

    /// Line 6: 𝒢 = (1/p_N)(G⁺ − ½(G⁻_O + G⁻_E)) + G_0.
    #[allow(clippy::too_many_arguments)]
    fn line_6(
        &self,
        law: &TruncatedGeometric,
        level_n: u32,
        batch_b: Vec<usize>,
        index_i: usize,
        g_plus: Vec<f64>,
        g_minus_o: Vec<f64>,
        g_minus_e: Vec<f64>,
        g_0: Vec<f64>,
    ) -> BiasReducedEstimate {
        // Alg. 5, line 6: 𝒢 = (1/p_N)(G⁺ − ½(G⁻_O + G⁻_E)) + G_0, p_N = C_M 2^{−N} (corrected)
        let inverse_weight = self.inverse_weight(law, level_n);
        let g: Vec<f64> = (0..g_plus.len())
            .map(|j| inverse_weight * (g_plus[j] - 0.5 * (g_minus_o[j] + g_minus_e[j])) + g_0[j])
            .collect();
        let gradients_evaluated = batch_b.len() + 1;
        BiasReducedEstimate {
            g,
            g_plus,
            g_minus_o,
            g_minus_e,
            g_0,
            level_n,
            batch_b,
            index_i,
            inverse_weight,
            gradients_evaluated,
        }
    }

    /// `(1/|A|) Σ_{i∈A} ∇f(x, z_i)` with `∇f(x, z_i) = ℓ′(⟨z_i, x⟩, y_i)·z_i` on the support of
    /// z_i, every gradient checked against `S_s^d` (non-zeros ≤ s, evaluated ‖·‖₂ ≤ L).
    pub(crate) fn mean_gradient(&self, x: &[f64], glm: SparseGlm<'_>, rows: &[usize]) -> Result<Vec<f64>> {
        let d = glm.data.d();
        if x.len() != d {
            return Err(Error::invalid("point x", x.len(), "of the data's dimension d"));
        }
        check::all_finite("point x", x)?;
        let mut sum = vec![0.0; d];
        let mut g = Vec::new();
        for &i in rows {
            let (idx, val) = glm.data.row(i);
            let margin: f64 = idx.iter().zip(val).map(|(&j, &v)| v * x[j]).sum();
            let slope = glm.loss.derivative_at(margin, glm.data.label(i));
            g.clear();
            g.extend(val.iter().map(|v| slope * v));
            if let Some(k) = g.iter().position(|v| !v.is_finite()) {
                return Err(Error::NonFinite { what: "per-example gradient", index: i * d + idx[k] });
            }
            let nnz = g.iter().filter(|v| **v != 0.0).count();
            if nnz > self.sparsity_s {
                return Err(Error::invalid(
                    "per-example gradient sparsity (non-zeros)",
                    format!("{nnz} in row {i}"),
                    "<= s",
                ));
            }
            let norm = crate::linalg::norm_l2(&g);
            if norm > self.l2_bound_l {
                return Err(Error::invalid("per-example gradient l2 norm", format!("{norm} in row {i}"), "<= L"));
            }
            for (&j, &v) in idx.iter().zip(&g) {
                sum[j] += v;
            }
        }
        let m = rows.len() as f64;
        for v in sum.iter_mut() {
            *v /= m;
        }
        Ok(sum)
    }
}
