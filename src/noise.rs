//! Noise mechanisms: the one implementation of each noise draw in dpref.
//!
//! | function | draws | privacy (as used by the accountant) |
//! |---|---|---|
//! | [`add_gaussian`] | `x + N(0, s² I)` | Gaussian, multiplier `s/Δ₂` |
//! | [`add_gaussian_diagonal`] | `x + N(0, diag(s₁², …, s_d²))` | after rescaling, Gaussian |
//! | [`add_laplace`] | `x + Lap(b)^d` | Laplace, multiplier `b/Δ₁` |
//! | [`Selection::report_noisy_max`] / [`Selection::report_noisy_min`] | `argmax_i (uᵢ + Lap(b))` | ε-DP, `b = Δ/ε` (monotone) or `2Δ/ε` |
//! | [`Selection::exponential_mechanism`] | `P(i) ∝ exp(ε uᵢ / (2Δ))` (`/Δ` if monotone) | ε-DP |
//!
//! Float caveat: these are floating-point samplers (ziggurat Gaussian, exponential-difference
//! Laplace). They are the reference for *optimisation* mathematics and for audits, not hardened
//! release mechanisms: floating-point samplers leak through the bit patterns of their outputs
//! (Mironov, CCS 2012), which the audit module demonstrates on a naive Laplace sampler. The same
//! holds for the selections: the exponential mechanism inverts rounded probabilities (scores 0 and
//! 40 at b = 2 give P(1) = 0, the neighbour's 2 and 38 give 2⁻⁵²: δ ≈ 2⁻⁵², not 0), and
//! report-noisy-max noise below half an ulp of the scores is absorbed. Index draws
//! (`random_range`, used by shuffles and subsets) carry rand's bias of at most range/2⁶⁴.

use crate::error::{Error, Result, check};
use crate::rng::DpRng;
use rand::RngExt;
use rand_distr::{Distribution, Exp1, StandardNormal};

/// One standard normal draw.
pub fn standard_normal(rng: &mut DpRng) -> f64 {
    StandardNormal.sample(rng)
}

/// One draw of the Laplace distribution with scale `b` (density `e^{-|x|/b}/(2b)`), as the
/// difference of two independent exponentials with mean `b`.
pub fn laplace(rng: &mut DpRng, b: f64) -> f64 {
    let e1: f64 = Exp1.sample(rng);
    let e2: f64 = Exp1.sample(rng);
    b * (e1 - e2)
}

/// `x ← x + N(0, std² I)`: the isotropic Gaussian mechanism's noise.
///
/// # Errors
/// `InvalidParameter` unless `std` is finite and `>= 0`.
pub fn add_gaussian(rng: &mut DpRng, x: &mut [f64], std: f64) -> Result<()> {
    check::non_negative("noise std", std)?;
    for xi in x.iter_mut() {
        *xi += std * standard_normal(rng);
    }
    Ok(())
}

/// `x ← x + N(0, diag(stds)²)`: independent coordinates with their own standard deviations.
///
/// # Errors
/// `InvalidParameter` if the lengths differ or a std is negative or non-finite.
pub fn add_gaussian_diagonal(rng: &mut DpRng, x: &mut [f64], stds: &[f64]) -> Result<()> {
    if stds.len() != x.len() {
        return Err(Error::invalid("diagonal noise length", stds.len(), "equal to the dimension"));
    }
    for &s in stds {
        check::non_negative("noise std", s)?;
    }
    for (xi, s) in x.iter_mut().zip(stds) {
        *xi += s * standard_normal(rng);
    }
    Ok(())
}

/// `x ← x + Lap(b)^d`: independent Laplace noise of scale `b` on each coordinate.
///
/// # Errors
/// `InvalidParameter` unless `b` is finite and `>= 0`.
pub fn add_laplace(rng: &mut DpRng, x: &mut [f64], b: f64) -> Result<()> {
    check::non_negative("laplace scale", b)?;
    for xi in x.iter_mut() {
        *xi += laplace(rng, b);
    }
    Ok(())
}

/// Whether each utility can only move in one direction between neighbouring datasets (e.g.
/// counts under add/remove). Monotone utilities halve the noise the selection mechanisms need.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Monotonicity {
    /// Utilities may move in opposite directions: noise scale `2Δ/ε`.
    General,
    /// All utilities move in the same direction: noise scale `Δ/ε`.
    Monotone,
}

fn selection_scale(epsilon: f64, sensitivity: f64, m: Monotonicity) -> Result<f64> {
    check::positive("epsilon", epsilon)?;
    check::positive("sensitivity", sensitivity)?;
    // rounded up: a scale a hair below Δ/ε (or 2Δ/ε) would make the selection a hair less private
    Ok(match m {
        Monotonicity::General => crate::special::div_up(2.0 * sensitivity, epsilon),
        Monotonicity::Monotone => crate::special::div_up(sensitivity, epsilon),
    })
}

fn check_scores(scores: &[f64]) -> Result<()> {
    if scores.is_empty() {
        return Err(Error::Empty { what: "scores" });
    }
    check::all_finite("scores", scores)
}

/// The parameters of a private selection among scores, checked once: ε > 0, the sensitivity
/// Δ > 0 of every score and their [`Monotonicity`]. They give one scale, `b = Δ/ε` for monotone
/// scores and `2Δ/ε` otherwise, which is the Laplace scale of report-noisy-max and the
/// temperature of the exponential mechanism (`ε/(kΔ) = 1/b`). Every selection it runs is ε-DP.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Selection {
    scale_b: f64,
}

impl Selection {
    /// The selection at ε with scores of sensitivity Δ.
    ///
    /// # Errors
    /// `InvalidParameter` for ε or Δ not finite and positive.
    pub fn new(epsilon: f64, sensitivity: f64, monotonicity: Monotonicity) -> Result<Self> {
        Ok(Selection { scale_b: selection_scale(epsilon, sensitivity, monotonicity)? })
    }

    /// The selection at a given scale b > 0 (a caller that fixed b and accounts its ε itself, as
    /// [`crate::optim::PrivateSelection`] does): the draws are those of this very b, with no
    /// re-rounding through an ε.
    ///
    /// # Errors
    /// `InvalidParameter` for b not finite and positive.
    pub fn at_scale(scale_b: f64) -> Result<Self> {
        Ok(Selection { scale_b: check::positive("selection scale b", scale_b)? })
    }

    /// b: `Δ/ε` (monotone) or `2Δ/ε` (general).
    pub fn scale_b(&self) -> f64 {
        self.scale_b
    }

    /// Report-noisy-max (Dwork & Roth 2014, Claim 3.9): the index of the largest `uᵢ + Lap(b)`.
    /// Only the index is released.
    ///
    /// # Errors
    /// `Empty` for no scores, `NonFinite` for a NaN/∞ score.
    pub fn report_noisy_max(&self, rng: &mut DpRng, scores: &[f64]) -> Result<usize> {
        check_scores(scores)?;
        let b = self.scale_b;
        let mut best = (0, f64::NEG_INFINITY);
        for (i, &u) in scores.iter().enumerate() {
            let noisy = u + laplace(rng, b);
            if noisy > best.1 {
                best = (i, noisy);
            }
        }
        Ok(best.0)
    }

    /// Report-noisy-min: [`Selection::report_noisy_max`] on the negated scores.
    ///
    /// # Errors
    /// As [`Selection::report_noisy_max`].
    pub fn report_noisy_min(&self, rng: &mut DpRng, scores: &[f64]) -> Result<usize> {
        let negated: Vec<f64> = scores.iter().map(|s| -s).collect();
        self.report_noisy_max(rng, &negated)
    }

    /// The exponential mechanism's selection probabilities (McSherry & Talwar 2007):
    /// `P(i) = exp(ε uᵢ/(kΔ)) / Σⱼ exp(ε uⱼ/(kΔ))` with `k = 2` (general) or `k = 1` (monotone),
    /// i.e. `exp(uᵢ/b)/Σⱼ exp(uⱼ/b)`, computed in log space.
    ///
    /// # Errors
    /// As [`Selection::report_noisy_max`].
    pub fn exponential_mechanism_probabilities(&self, scores: &[f64]) -> Result<Vec<f64>> {
        check_scores(scores)?;
        // The mechanism's temperature equals the noisy-max Laplace scale: ε/(kΔ) = 1/b.
        let b = self.scale_b;
        let mut logits: Vec<f64> = scores.iter().map(|u| u / b).collect();
        if logits.iter().any(|l| !l.is_finite()) {
            // u/b overflowed (scores near ±f64::MAX, or a tiny b): shift by the largest score
            // first, so every logit is ≤ 0 and ∞ − ∞ cannot arise (it once gave NaN and a panic)
            let top = scores.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            logits = scores.iter().map(|u| (u - top) / b).collect();
        }
        let m = logits.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let z: f64 = logits.iter().map(|l| (l - m).exp()).sum();
        Ok(logits.iter().map(|l| (l - m).exp() / z).collect())
    }

    /// Samples the exponential mechanism: one uniform draw inverted through the cumulative
    /// probabilities of [`Selection::exponential_mechanism_probabilities`].
    ///
    /// # Errors
    /// As [`Selection::report_noisy_max`].
    pub fn exponential_mechanism(&self, rng: &mut DpRng, scores: &[f64]) -> Result<usize> {
        let p = self.exponential_mechanism_probabilities(scores)?;
        let u: f64 = rng.random::<f64>();
        let mut acc = 0.0;
        for (i, pi) in p.iter().enumerate() {
            acc += pi;
            if u < acc {
                return Ok(i);
            }
        }
        // u >= the rounded total: the last index with positive probability.
        Ok(p.iter().rposition(|&pi| pi > 0.0).expect("invariant: probabilities sum to 1"))
    }
}
