//! Private second-moment estimation. \[ADFJT\] Algorithm 3 (Sec. 4.1), with the fixes of
//! proofs/adaptive_noise/second_moment.md §5 (erratum E13).
//!
//! Input: feature rows `z₁..zₙ ∈ ℝ^d` (assumed `max_j σⱼ = 1`, `σⱼ² = E zⱼ²`), the moment ratio
//! r (Def. 4.1), rounds `T_est`, and the noise. Output: `σ̂ ∈ {2⁻¹, …, 2^{−T_est}}^d` and the
//! privacy events of the T_est releases.
//! ```text
//! 1:  Δ = 1; U = {1..d}
//! 2:  for t = 1 .. T_est:
//! 3:    for j ∈ U:
//! 4:      ρ_t = 4 r max(1, log r) Δ                  (corrected: printed 4 r Δ log r, ≤ 0 for r ≤ 1)
//! 5:      v_{t,j} = (1/n) Σᵢ min(z_{ij}², ρ_t²) + N(0, σ_t²)
//!             σ_t = z_round·Δ_t, Δ_t = √|U|·ρ_t²/n      (corrected: explicit calibration; printed
//!                                                      variance ρ_t⁴T²d log(T/δ)/(n²ε²) lacks the constants)
//! 6:      if √max(v_{t,j}, 0) ≥ 2^{−t−1}:              (printed on σ̂ vs σ̂²; v may be < 0)
//! 7:        σ̂ⱼ = 2^{−t}
//! 8:        U = U \ {j}
//! 9:    Δ = Δ/2
//! 10: for j ∈ U: σ̂ⱼ = 2^{−T_est}
//! 11: return σ̂
//! ```
//! `T_est = ⌈1.5·log₂ d⌉` by default (Thm. 3 needs log₂ for the floor `d^{−3/2}`).
//! # Privacy
//! Round t releases the vector `(v_{t,j})_{j∈U}`: a Gaussian mechanism with ℓ2-sensitivity `Δ_t`
//! (each record moves each truncated mean by ≤ ρ_t²/n, n the public normaliser), one
//! `Gaussian(z_round)` event per round; U depends only on earlier releases (adaptive
//! composition). With [`MomentNoise::Target`], `z_round = √T_est · z*(ε, δ)` where z* is the
//! analytic Gaussian multiplier, so the T_est rounds compose exactly (μ-GDP) to (ε, δ).
//! # Proof
//! proofs/adaptive_noise/second_moment.md.

use crate::accounting::gaussian;
use crate::data::Dataset;
use crate::error::{Error, Result, check};
use crate::optim::{EventLog, PrivateRelease};
use crate::rng::Seeds;
use serde::Serialize;

/// The noise of Algorithm 3's releases.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub enum MomentNoise {
    /// Calibrate per-round multipliers so that all rounds together are (ε, δ)-DP (exact GDP
    /// composition of unsampled Gaussians).
    Target {
        /// ε > 0.
        epsilon: f64,
        /// δ ∈ (0, 1).
        delta: f64,
    },
    /// The printed variance `ρ_t⁴ T_est² d log(T_est/δ)/(n² ε²)` (not a certified calibration;
    /// the events record what it actually gives).
    PaperVariance {
        /// ε > 0.
        epsilon: f64,
        /// δ ∈ (0, 1).
        delta: f64,
    },
    /// A given per-round multiplier (0: no noise).
    Multiplier(f64),
}

/// Settings of Algorithm 3.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SecondMomentConfig {
    /// r: the moment ratio of Def. 4.1 (r ≥ 1/√2).
    pub moment_ratio_r: f64,
    /// T_est (default `⌈1.5 log₂ d⌉`).
    pub rounds_t_est: Option<u32>,
    /// The noise.
    pub noise: MomentNoise,
}

/// The estimate and what was released.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SecondMomentEstimate {
    /// σ̂ⱼ ∈ {2⁻¹, …, 2^{−T_est}}.
    pub sigma_hat: Vec<f64>,
    /// T_est.
    pub rounds: u32,
    /// One Gaussian event per round.
    pub events: EventLog,
    /// The per-round noise stds σ_t used.
    pub noise_stds: Vec<f64>,
}

/// `⌈1.5 · log₂ d⌉` (at least 1).
pub fn default_rounds(d: usize) -> u32 {
    ((1.5 * (d as f64).log2()).ceil() as u32).max(1)
}

/// The ellipsoid PAGAN uses after Algorithm 3 (Thm. 3): `Ĉⱼ = (r σ̂ⱼ)^{−4/3}/4`.
///
/// **Privacy.** Ĉ is computed from private data (through σ̂): a PAGAN run on it is private only
/// with the estimate's events composed into its own. PAGAN's report covers its steps, not the
/// estimate; compose the two logs (`SecondMomentEstimate::events` and the run's events) before
/// reading ε, or the estimate's rounds go unaccounted.
pub fn ellipsoid_from_moments(sigma_hat: &[f64], r: f64) -> Vec<f64> {
    sigma_hat.iter().map(|s| (r * s).powf(-4.0 / 3.0) / 4.0).collect()
}

/// Runs Algorithm 3 on the rows of `data` (labels unused).
///
/// # Errors
/// `InvalidParameter` for r < 1/√2 or non-finite, T_est = 0, invalid ε/δ or multiplier.
#[allow(non_snake_case)]
pub fn private_second_moments(
    data: &Dataset,
    config: &SecondMomentConfig,
    seeds: Seeds,
) -> Result<SecondMomentEstimate> {
    let r = config.moment_ratio_r;
    if !(r.is_finite() && r >= std::f64::consts::FRAC_1_SQRT_2) {
        return Err(Error::invalid("moment ratio r", r, ">= 1/sqrt(2) and finite (Def. 4.1)"));
    }
    let (n, d) = (data.n(), data.d());
    let T_est = config.rounds_t_est.unwrap_or_else(|| default_rounds(d));
    check::count("rounds T_est", T_est as u64)?;
    let z_round = match config.noise {
        MomentNoise::Target { epsilon, delta } => {
            Some(gaussian::noise_multiplier_for(epsilon, delta)? * (T_est as f64).sqrt())
        }
        MomentNoise::PaperVariance { epsilon, delta } => {
            check::positive("epsilon", epsilon)?;
            check::open_unit("delta", delta)?;
            None
        }
        MomentNoise::Multiplier(z) => Some(check::non_negative("moment noise multiplier", z)?),
    };
    // The printed variance of line 5: sigma_t^2 = rho_t^4 T^2 d ln(T/delta) / (n^2 eps^2).
    let paper_std = |rho2: f64, epsilon: f64, delta: f64| {
        let te = T_est as f64;
        (rho2 * rho2 * te * te * d as f64 * (te / delta).ln() / ((n * n) as f64 * epsilon * epsilon)).sqrt()
    };
    // Every round's sensitivity rho_t^2/n (and printed std) must stay a normal float: where it
    // underflows, a round would release a data-dependent statistic with no noise and no event.
    // rho_t falls with t, so the last round decides; the check reads public values only.
    let rho_last = 4.0 * r * r.ln().max(1.0) * (1.0 - T_est as f64).exp2();
    let smallest = match config.noise {
        MomentNoise::PaperVariance { epsilon, delta } => {
            paper_std(rho_last * rho_last, epsilon, delta).min(rho_last * rho_last / n as f64)
        }
        _ => rho_last * rho_last / n as f64,
    };
    if smallest.is_nan() || smallest < f64::MIN_POSITIVE {
        return Err(Error::invalid(
            "rounds T_est",
            T_est,
            "small enough that the last round's sensitivity rho_T^2/n and noise std stay normal floats (below, a \
             round would release its statistic without noise or event)",
        ));
    }
    // Round t's release is a Gaussian mechanism on a statistic of declared sensitivity Delta_t.
    let mut release = PrivateRelease::statistics(z_round.unwrap_or(0.0), seeds)?;
    let mut noise_stds = Vec::new();
    // Alg. 3, line 1: Delta = 1; U = {1..d}
    let mut Delta = 1.0f64;
    let mut U: Vec<usize> = (0..d).collect();
    let mut sigma_hat = vec![0.0; d];
    for t in 1..=T_est {
        // Alg. 3, line 4: rho_t = 4 r max(1, log r) Delta (corrected)
        let rho = 4.0 * r * r.ln().max(1.0) * Delta;
        let rho2 = rho * rho;
        // Alg. 3, line 5: v_{t,j} = (1/n) sum_i min(z_ij^2, rho_t^2) + N(0, sigma_t^2)
        let sensitivity = (U.len() as f64).sqrt() * rho2 / n as f64;
        let mut v: Vec<f64> =
            U.iter().map(|&j| (0..n).map(|i| data.row(i)[j].powi(2).min(rho2)).sum::<f64>() / n as f64).collect();
        // The noise N(0, sigma_t^2) and the round's event (none for an empty U, which releases
        // nothing): sigma_t = z_round Delta_t, or the printed variance (whose multiplier
        // sigma_t / Delta_t is what the event records).
        let std = match (z_round, config.noise) {
            (Some(_), _) => release.release_statistic(&mut v, sensitivity)?,
            (None, MomentNoise::PaperVariance { epsilon, delta }) => {
                let std = paper_std(rho2, epsilon, delta);
                release.release_statistic_given_std(&mut v, std, sensitivity)?;
                std
            }
            _ => unreachable!("invariant: z_round is None only for PaperVariance"),
        };
        noise_stds.push(std);
        let mut removed = Vec::new();
        for (&j, &v) in U.iter().zip(&v) {
            // Alg. 3, line 6: if sqrt(max(v, 0)) >= 2^{-t-1}
            if v.max(0.0).sqrt() >= (-(t as f64) - 1.0).exp2() {
                // Alg. 3, line 7: sigma_hat_j = 2^{-t}
                sigma_hat[j] = (-(t as f64)).exp2();
                // Alg. 3, line 8: U = U \ {j} (after the loop over U)
                removed.push(j);
            }
        }
        U.retain(|j| !removed.contains(j));
        // Alg. 3, line 9: Delta = Delta / 2
        Delta /= 2.0;
    }
    // Alg. 3, line 10: for j in U: sigma_hat_j = 2^{-T_est}
    for &j in &U {
        sigma_hat[j] = (-(T_est as f64)).exp2();
    }
    // Alg. 3, line 11: return sigma_hat
    Ok(SecondMomentEstimate { sigma_hat, rounds: T_est, events: release.finish()?.events, noise_stds })
}
