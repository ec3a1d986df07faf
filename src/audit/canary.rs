//! White-box canary audits of iterative algorithms (Nasr et al. 2023, "Tight auditing of
//! differentially private machine learning", arXiv 2302.07956v1).
//!
//! The DP threat model lets the adversary see every released noisy update. The auditor inserts a
//! canary example whose (clipped) gradient is a fixed direction c, runs the algorithm many times
//! with the canary (D) and without it (D′), and scores each run by the released updates'
//! projection on c: `s = Σ_t ⟨u_t, c⟩/‖c‖`. Each run is one sample of the mechanism "the whole
//! transcript"; the threshold audit of [`super::threshold`] on the run scores gives a certified
//! lower bound on the ε of the entire run, which must not exceed the accountant's upper bound.
//! A Gaussian-DP fit of the same scores is reported beside it as an estimate.
//!
//! Algorithms expose their runs through [`ObservedAlgorithm`]; runs are seeded from
//! `seeds.child(2i)` (with canary) and `seeds.child(2i+1)` (without), in parallel.
//! Proof: proofs/audit/canary.md.

use super::gdp::{GdpEstimate, gdp_estimate};
use super::mechanism::ProjectionScore;
use super::mechanism::Score;
use super::threshold::{AuditSettings, EpsilonLowerBound, epsilon_lower_bound};
use crate::error::{Error, Result, check};
use crate::rng::{DpRng, Seeds, Stream};
use rayon::prelude::*;

/// One run of an iterative algorithm as a white-box auditor observes it.
pub trait ObservedAlgorithm: Sync {
    /// Runs the algorithm once on D (`with_canary`) or D′, returning the noisy update released
    /// at each step (in the order released).
    ///
    /// # Errors
    /// Whatever the algorithm's configuration rejects.
    fn run(&self, with_canary: bool, seeds: Seeds) -> Result<Vec<Vec<f64>>>;
}

/// The outcome of a canary audit.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct CanaryAudit {
    /// Certified lower bound on the ε of a whole run.
    pub bound: EpsilonLowerBound,
    /// Gaussian-DP fit of the same run scores (an estimate); `None` at a confidence ≤ 0.5, where
    /// the fit's two-sided bands are empty.
    pub gdp: Option<GdpEstimate>,
    /// Runs per side.
    pub runs: u64,
}

/// Per-run canary scores `Σ_t ⟨u_t, c⟩/‖c‖` on D (with canary) and D′ (without).
///
/// # Errors
/// `InvalidParameter` for runs = 0 or a zero direction; errors of the algorithm.
pub fn canary_scores<A: ObservedAlgorithm>(
    algorithm: &A,
    canary_direction: &[f64],
    runs: usize,
    seeds: Seeds,
) -> Result<(Vec<f64>, Vec<f64>)> {
    check::count("runs", runs as u64)?;
    let score = ProjectionScore::new(canary_direction.to_vec())?;
    let one = |i: usize, with: bool| -> Result<f64> {
        let updates = algorithm.run(with, seeds.child(2 * i as u64 + u64::from(!with)))?;
        let mut s = 0.0;
        for u in &updates {
            if u.len() != canary_direction.len() {
                return Err(Error::invalid("update dimension", u.len(), "equal to the canary's"));
            }
            s += score.score(u);
        }
        Ok(s)
    };
    let a: Result<Vec<f64>> = (0..runs).into_par_iter().map(|i| one(i, true)).collect();
    let b: Result<Vec<f64>> = (0..runs).into_par_iter().map(|i| one(i, false)).collect();
    Ok((a?, b?))
}

/// Audits `algorithm` with `runs` runs per side: the certified bound and the GDP estimate.
///
/// # Errors
/// As [`canary_scores`], [`epsilon_lower_bound`] and [`gdp_estimate`] (run only at a confidence
/// above 0.5).
pub fn audit_canary<A: ObservedAlgorithm>(
    algorithm: &A,
    canary_direction: &[f64],
    runs: usize,
    seeds: Seeds,
    settings: &AuditSettings,
) -> Result<CanaryAudit> {
    let (a, b) = canary_scores(algorithm, canary_direction, runs, seeds)?;
    let bound = epsilon_lower_bound(&a, &b, settings)?;
    let significance = 1.0 - settings.confidence;
    // (it failed the whole audit with "significance = 0.5", a parameter the caller never gave)
    let gdp =
        if significance < 0.5 { Some(gdp_estimate(&a, &b, significance, settings.delta.max(1e-300))?) } else { None };
    Ok(CanaryAudit { bound, gdp, runs: runs as u64 })
}

/// A minimal white-box target for self-tests: T steps that each release the noisy clipped sum
/// of a Poisson sample of per-example gradients, `Σ_{i∈B} clip_C(gᵢ) + N(0, (noise_factor·σC)² I)`
/// (the privatisation step of DP-SGD). D contains the canary gradient `C·e₁` besides `others`
/// records whose gradients are orthogonal to e₁; D′ lacks it. `noise_factor = 1` is correct;
/// other values model bugs (0.5: noise halved).
#[derive(Debug, Clone)]
pub struct NoisyGradientSums {
    /// Dimension d ≥ 2.
    pub dimension: usize,
    /// Number of non-canary records.
    pub others: usize,
    /// Poisson rate q.
    pub q: f64,
    /// Noise multiplier σ.
    pub sigma: f64,
    /// Clip norm C.
    pub clip: f64,
    /// Steps T.
    pub steps: usize,
    /// Multiplies the noise std (1 = correct).
    pub noise_factor: f64,
}

impl NoisyGradientSums {
    /// The canary direction e₁.
    pub fn canary_direction(&self) -> Vec<f64> {
        let mut c = vec![0.0; self.dimension];
        c[0] = 1.0;
        c
    }
}

impl ObservedAlgorithm for NoisyGradientSums {
    fn run(&self, with_canary: bool, seeds: Seeds) -> Result<Vec<Vec<f64>>> {
        if self.dimension < 2 {
            return Err(Error::invalid("dimension", self.dimension, ">= 2"));
        }
        check::rate("q", self.q)?;
        check::positive("clip", self.clip)?;
        check::non_negative("sigma", self.sigma)?;
        let mut sampling: DpRng = seeds.stream(Stream::Sampling);
        let mut noise_rng: DpRng = seeds.stream(Stream::Noise);
        let mut out = Vec::with_capacity(self.steps);
        for _ in 0..self.steps {
            let mut sum = vec![0.0; self.dimension];
            // other records: gradient C·e₂ (orthogonal to the canary), clipped (norm C already)
            for _ in 0..self.others {
                if rand::RngExt::random::<f64>(&mut sampling) < self.q {
                    sum[1] += self.clip;
                }
            }
            if with_canary && rand::RngExt::random::<f64>(&mut sampling) < self.q {
                sum[0] += self.clip;
            }
            crate::noise::add_gaussian(&mut noise_rng, &mut sum, self.noise_factor * self.sigma * self.clip)?;
            out.push(sum);
        }
        Ok(out)
    }
}
