//! Gaussian differential privacy (μ-GDP, Dong, Roth, Su 2019, arXiv 1905.02383v3): the exact
//! privacy of compositions of *unsampled* Gaussian mechanisms.
//!
//! T Gaussian releases with multipliers zᵢ are jointly μ-GDP with `μ = (Σ 1/zᵢ²)^{1/2}`
//! (Cor. 3.3), i.e. exactly one Gaussian release with multiplier `1/μ`, so
//! `δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2)` (Cor. 2.13) and the best test at false-positive
//! rate α has power `Φ(μ − Φ^{-1}(1 − α))`. For *subsampled* Gaussians the central-limit
//! approximation (Bu et al. 2019) is **not** an upper bound (Opacus #384/#400), so
//! [`mu_of_gaussian_composition`] refuses sampled events.
//! Proof: proofs/accounting/analytic_gaussian.md (§ GDP).

use super::event::{DpEvent, Neighbouring};
use super::gaussian;
use crate::error::{Error, Result, check};
use crate::special::{add_up, count_up, div_up, mul_up, normal_cdf, normal_quantile};

/// μ of a composition of unsampled Gaussian events (`Gaussian`, `PerExampleSumGaussian`,
/// `SelfComposed`, `Composed`) under `neighbouring`, rounded up. A `PerExampleSumGaussian { σ }`
/// has multiplier σ/f with f the relation's sum-sensitivity factor (1 or 2).
///
/// # Errors
/// `Unsupported` for any other event (sampling wrappers included: the GDP CLT is not an upper
/// bound); `InvalidParameter` for invalid multipliers.
pub fn mu_of_gaussian_composition(event: &DpEvent, neighbouring: Neighbouring) -> Result<f64> {
    /// Σ 1/zᵢ² over the releases of `e`, with f the relation's factor.
    fn inv_var(e: &DpEvent, f: f64) -> Result<f64> {
        match e {
            // every 1/z², product and partial sum rounded up: μ² bounded above as evaluated, for
            // compositions of any length (a sum rounded to nearest drifts by up to n·u)
            DpEvent::Gaussian { noise_multiplier } => {
                let z = check::positive("sigma", *noise_multiplier)?;
                Ok(div_up(div_up(1.0, z), z))
            }
            DpEvent::PerExampleSumGaussian { noise_multiplier } => {
                let z = check::positive("sigma", *noise_multiplier)? / f;
                Ok(div_up(div_up(1.0, z), z))
            }
            DpEvent::SelfComposed { event, count } => {
                Ok(mul_up(inv_var(event, f)?, count_up(check::count("count", *count)?)))
            }
            DpEvent::Composed(es) => es.iter().try_fold(0.0, |sum, e| Ok(add_up(sum, inv_var(e, f)?))),
            other => Err(Error::Unsupported {
                event: other.describe(),
                neighbouring: "any".into(),
                accountant: "GDP",
                reason: "exact GDP covers unsampled Gaussian releases only; the CLT approximation for sampled \
                             Gaussians is not an upper bound"
                    .into(),
            }),
        }
    }
    Ok((inv_var(event, neighbouring.sum_sensitivity_factor())?.sqrt() * (1.0 + 4.0 * f64::EPSILON)).next_up())
}

/// δ(ε) of μ-GDP, rounded up past its floating-point error (an upper bound as evaluated).
///
/// # Errors
/// `InvalidParameter` for μ ≤ 0 or ε < 0.
pub fn delta_for_epsilon(mu: f64, epsilon: f64) -> Result<f64> {
    check::positive("mu", mu)?;
    // z = 1/μ rounded down (a smaller multiplier, a larger δ), and δ(ε; z) rounded up: the
    // nearest-rounded δ was below the exact one (μ = 0.1, ε = 0.5: 6.85658245583824e-9 against
    // 6.85658245583874e-9)
    gaussian::delta_for_epsilon_upper(epsilon, (1.0 / mu).next_down())
}

/// The smallest ε with δ(ε) ≤ δ under μ-GDP, rounded up.
///
/// # Errors
/// `InvalidParameter` for μ ≤ 0 or δ ∉ (0, 1).
pub fn epsilon_for_delta(mu: f64, delta: f64) -> Result<f64> {
    check::positive("mu", mu)?;
    gaussian::epsilon_for_delta((1.0 / mu).next_down(), delta)
}

/// Power of the most powerful test at false-positive rate `fpr`: `Φ(μ − Φ^{-1}(1 − fpr))`.
///
/// # Errors
/// `InvalidParameter` for μ < 0 or fpr ∉ (0, 1).
pub fn tpr_at_fpr(mu: f64, fpr: f64) -> Result<f64> {
    check::non_negative("mu", mu)?;
    check::open_unit("fpr", fpr)?;
    Ok(normal_cdf(mu - normal_quantile(1.0 - fpr)))
}
