//! The inputs and the split terms shared by the PASAN bounds (`pasan.rs`: Thms. 8, 1) and the
//! PAGAN bounds (`pagan.rs`: Thms. 9, 2) of \[ADFJT\].

use super::validate::{check_c, check_order_above_one, finite_result};
use crate::error::{Result, check};

/// An explicit-constant bound split into its two terms.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ExplicitBound {
    /// The adaptive-step term (optimisation error and privacy noise together).
    pub adaptive_term: f64,
    /// `D_{C⁻¹}·(1/n) Σᵢ (G(zᵢ; C) − B)₊`: the clipping bias term.
    pub clipping_term: f64,
}

impl ExplicitBound {
    /// `adaptive_term + clipping_term`.
    pub fn total(&self) -> f64 {
        self.adaptive_term + self.clipping_term
    }
}

/// The inputs Thm. 8 ([`pasan_bound_explicit`](super::pasan_bound_explicit)) and Thm. 9
/// ([`pagan_bound_explicit`](super::pagan_bound_explicit)) share (expectations over the
/// algorithm's randomness).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ExplicitCommon<'a> {
    /// T ≥ 1: number of steps.
    pub steps_t: u64,
    /// s ≥ 0: noise standard deviation on the mean in whitened coordinates.
    pub noise_std_s: f64,
    /// B > 0: clip radius, `A = C/B²`.
    pub clip_radius_b: f64,
    /// diag(C) ≻ 0 (for Thm. 9 of length d).
    pub ellipsoid_c: &'a [f64],
    /// D_{C⁻¹} ≥ 0.
    pub diam_c_inv: f64,
    /// α > 0: step scale (theory: D₂ for Thm. 8, D∞ for Thm. 9).
    pub step_scale_alpha: f64,
    /// `(1/n) Σᵢ (G(zᵢ; C) − B)₊ ≥ 0` ([`radial_clipping_bias`](super::radial_clipping_bias)); bounded by
    /// [`radial_clipping_bias_bound`](super::radial_clipping_bias_bound) at `Ĝ_p(S; C)`.
    pub clipping_bias: f64,
}

impl ExplicitCommon<'_> {
    /// Checks every field (T first); T as a float.
    pub(super) fn check(&self) -> Result<f64> {
        let t = check::count("steps_t", self.steps_t)? as f64;
        check::non_negative("noise_std_s", self.noise_std_s)?;
        check::positive("clip_radius_b", self.clip_radius_b)?;
        check_c(self.ellipsoid_c, None)?;
        check::non_negative("diam_c_inv", self.diam_c_inv)?;
        check::positive("step_scale_alpha", self.step_scale_alpha)?;
        check::non_negative("clipping_bias", self.clipping_bias)?;
        Ok(t)
    }

    /// The split of Thms. 8 and 9 for the diameter D (D₂ or D∞) and the noise energy:
    /// `((D²/(2α) + α)/T)·energy` and `D_{C⁻¹}·bias`.
    /// `Numerical` if a term overflows.
    pub(super) fn bound(&self, diam: f64, t: f64, energy: f64) -> Result<ExplicitBound> {
        let alpha = self.step_scale_alpha;
        let coef = diam * diam / (2.0 * alpha) + alpha;
        Ok(ExplicitBound {
            adaptive_term: finite_result("explicit_bound_adaptive_term", coef / t * energy)?,
            clipping_term: finite_result("explicit_bound_clipping_term", self.diam_c_inv * self.clipping_bias)?,
        })
    }
}

/// The problem and privacy quantities shared by the printed rates of Thms. 1, 2, 8, 9.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RateSetting<'a> {
    /// diag(C) ≻ 0.
    pub ellipsoid_c: &'a [f64],
    /// n ≥ 1: dataset size.
    pub dataset_size_n: u64,
    /// ε > 0.
    pub epsilon: f64,
    /// δ ∈ (0, 1).
    pub delta: f64,
    /// `G_{2p}(C) > 0`: the population moment (eq. 2) at order 2p.
    pub moment_g_2p: f64,
    /// p > 1 (erratum E7), finite.
    pub moment_order_p: f64,
    /// D_{C⁻¹} > 0.
    pub diam_c_inv: f64,
}

impl RateSetting<'_> {
    pub(super) fn validate(&self) -> Result<()> {
        check_c(self.ellipsoid_c, None)?;
        check::count("dataset_size_n", self.dataset_size_n)?;
        check::positive("epsilon", self.epsilon)?;
        check::open_unit("delta", self.delta)?;
        check::positive("moment_g_2p", self.moment_g_2p)?;
        check_order_above_one(self.moment_order_p)?;
        check::positive("diam_c_inv", self.diam_c_inv)?;
        Ok(())
    }

    /// `nε`.
    pub(super) fn n_eps(&self) -> f64 {
        self.dataset_size_n as f64 * self.epsilon
    }

    /// `D_{C⁻¹}(2G_{2p})^p/((p − 1)B^{p−1})`, evaluated as `D_{C⁻¹}·B·(2G_{2p}/B)^p/(p − 1)`.
    pub(super) fn clipping_term(&self, b: f64) -> f64 {
        let p = self.moment_order_p;
        self.diam_c_inv * b * (2.0 * self.moment_g_2p / b).powf(p) / (p - 1.0)
    }

    /// `G_{2p}·(K/(nε))^{(p−1)/p}·(D_{C⁻¹}/D)^{1/p}`, the tuned privacy term of Thms. 1, 2 without
    /// its leading diameter.
    pub(super) fn tuned_privacy_factor(&self, k: f64, diam: f64) -> f64 {
        let p = self.moment_order_p;
        self.moment_g_2p * (k / self.n_eps()).powf((p - 1.0) / p) * (self.diam_c_inv / diam).powf(1.0 / p)
    }

    /// The setting validated and the diameter `D > 0` (parameter `diam_name`) checked: the checks
    /// every printed rate and tuned clip radius starts with, in this order.
    pub(super) fn check_with_diameter(&self, diam_name: &'static str, diam: f64) -> Result<()> {
        self.validate()?;
        check::positive(diam_name, diam)?;
        Ok(())
    }

    /// The setting and the run validated (D named `diam_name`, the statistic `statistic_name`):
    /// the checks every printed rate starts with, in this order; T as a float.
    pub(super) fn check_run(
        &self,
        run: &RateRun,
        diam_name: &'static str,
        statistic_name: &'static str,
    ) -> Result<f64> {
        self.check_with_diameter(diam_name, run.diam)?;
        let t = check::count("steps_t", run.steps_t)? as f64;
        check::non_negative(statistic_name, run.gradient_statistic)?;
        Ok(t)
    }

    /// Thm. 8/9's terms for diameter D, clip radius B and privacy constant K (the factor of
    /// `D·B/(nε)` in the noise term), given the optimisation term.
    pub(super) fn rate_terms(&self, diam: f64, b: f64, k: f64, optimization: f64) -> Result<RateTerms> {
        Ok(RateTerms {
            optimization: finite_result("rate_optimization_term", optimization)?,
            noise: finite_result("rate_noise_term", diam * b * k / self.n_eps())?,
            clipping: finite_result("rate_clipping_term", self.clipping_term(b))?,
        })
    }

    /// Thm. 1/2's terms for diameter D and privacy constant K, given the optimisation term.
    pub(super) fn tuned_rate_terms(&self, diam: f64, k: f64, optimization: f64) -> Result<TunedRateTerms> {
        Ok(TunedRateTerms {
            optimization: finite_result("rate_optimization_term", optimization)?,
            privacy: finite_result("tuned_rate_privacy_term", diam * self.tuned_privacy_factor(k, diam))?,
        })
    }

    /// `B = 2G_{2p}·(D_{C⁻¹}·nε/(D·K))^{1/p}`: the tuned clip radius of Thms. 1, 2 for diameter D
    /// and privacy constant K.
    pub(super) fn tuned_clip_radius(&self, diam: f64, k: f64) -> f64 {
        2.0 * self.moment_g_2p * (self.diam_c_inv * self.n_eps() / (diam * k)).powf(1.0 / self.moment_order_p)
    }
}

/// The run side of a printed rate of Thms. 8, 9, 1, 2: the diameter of the theorem's geometry, T,
/// and the gradient statistic of its optimisation term `(D/T)·…`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RateRun {
    /// D > 0: `D₂` for PASAN (Thms. 8, 1), `D∞` for PAGAN (Thms. 9, 2).
    pub diam: f64,
    /// T ≥ 1: number of steps.
    pub steps_t: u64,
    /// `≥ 0`: for PASAN `Σ_{k=1}^T E‖gᵏ‖₂²` (the term is `(D₂/T)·(…)^{1/2}`), for PAGAN
    /// `Σⱼ E(Σ_{k=1}^T (gⱼᵏ)²)^{1/2}` (the term is `(D∞/T)·…`).
    pub gradient_statistic: f64,
}

/// The three terms of a printed Thm. 8/9 rate with the hidden `O(1)` set to 1.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RateTerms {
    /// The non-private (optimisation) term.
    pub optimization: f64,
    /// The privacy-noise term, linear in B.
    pub noise: f64,
    /// The clipping-bias term, `∝ B^{1−p}`.
    pub clipping: f64,
}

impl RateTerms {
    /// The sum of the three terms.
    pub fn total(&self) -> f64 {
        self.optimization + self.noise + self.clipping
    }
}

/// The two terms of a printed Thm. 1/2 rate (tuned B) with the hidden `O(1)` set to 1.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TunedRateTerms {
    /// The non-private (optimisation) term.
    pub optimization: f64,
    /// The privacy term (noise and clipping balanced by the tuned B).
    pub privacy: f64,
}

impl TunedRateTerms {
    /// The sum of the two terms.
    pub fn total(&self) -> f64 {
        self.optimization + self.privacy
    }
}
