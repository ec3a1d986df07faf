//! How far the released gradient is from the population gradient: the hypotheses of
//! \[ZCHWB\] Lemma 1 (the transfer of DP to generalisation), the radius and failure
//! probability of Thm. 2 / Thm. 7 and of Lemma 3, and the union-bound choices of `μ`
//! (App. A, App. C.3). `μ` here is the Gaussian tail parameter of these bounds, not a GDP `μ`.

use super::DpSetting;
use super::validate::finite_result;
use crate::error::{Error, Result, check};

/// Which hypotheses of \[ZCHWB\] Lemma 1 hold (App. A; Dwork et al. 2015, Thm. 8), returned by
/// [`lemma1_conditions`] and [`lemma1_conditions_gradient`], and by [`theorem2_conditions`]:
/// Thm. 2's hypotheses are Lemma 1's at `τ = σ`, `ρ = 2e^{−μ²/2}` (there `check` names `sigma`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lemma1Conditions {
    /// `0 < τ < 26` (so that `ln(26/τ) > 0`); for Thm. 2, `σ < 26`.
    pub tau_ok: bool,
    /// `ε ≤ τ/13`; for Thm. 2, `ε ≤ σ/13`.
    pub epsilon_ok: bool,
    /// `δ ≤ τρ/(26 ln(26/τ))`; for Thm. 2, `δ ≤ σ e^{−μ²/2}/(13 ln(26/σ))`.
    pub delta_ok: bool,
    /// `n ≥ 2 ln(8/δ)/ε²`.
    pub n_ok: bool,
    /// The parameter and constraint [`check`](Self::check) names for each hypothesis, in field
    /// order: Lemma 1's or Thm. 2's.
    names: &'static [(&'static str, &'static str); 4],
}

const LEMMA1_NAMES: [(&str, &str); 4] = [
    ("tau", "in (0, 26)"),
    ("epsilon", "<= tau/13 (Lemma 1)"),
    ("delta", "<= tau rho/(26 ln(26/tau)) (Lemma 1)"),
    ("dataset_size_n", ">= 2 ln(8/delta)/epsilon^2 (Lemma 1)"),
];

const THEOREM2_NAMES: [(&str, &str); 4] = [
    ("sigma", "< 26 (Theorem 2)"),
    ("epsilon", "<= sigma/13 (Theorem 2)"),
    ("delta", "<= sigma exp(-mu^2/2)/(13 ln(26/sigma)) (Theorem 2)"),
    ("dataset_size_n", ">= 2 ln(8/delta)/epsilon^2 (Theorem 2)"),
];

impl Lemma1Conditions {
    /// The hypotheses at scale τ (or σ) with the right side `delta_cap` of the δ-condition
    /// (used only when `τ < 26`).
    fn at(
        setting: &DpSetting,
        tau: f64,
        delta_cap: impl FnOnce() -> f64,
        names: &'static [(&'static str, &'static str); 4],
    ) -> Self {
        let tau_ok = tau < 26.0;
        Lemma1Conditions {
            tau_ok,
            epsilon_ok: setting.epsilon() <= tau / 13.0,
            delta_ok: tau_ok && setting.delta() <= delta_cap(),
            n_ok: setting.n_condition(),
            names,
        }
    }

    fn flags(&self) -> [bool; 4] {
        [self.tau_ok, self.epsilon_ok, self.delta_ok, self.n_ok]
    }

    /// All hypotheses hold.
    pub fn all(&self) -> bool {
        self.flags().iter().all(|&ok| ok)
    }

    /// `Ok(())` if all hold, else `InvalidParameter` naming the first that fails.
    ///
    /// # Errors
    /// As described.
    pub fn check(&self) -> Result<()> {
        match self.flags().iter().zip(self.names).find(|(ok, _)| !**ok) {
            Some((_, &(name, constraint))) => Err(Error::invalid(name, "condition fails", constraint)),
            None => Ok(()),
        }
    }
}

/// The hypotheses of \[ZCHWB\] Lemma 1 for `[0,1]`-valued queries (App. A):
/// `ε ≤ τ/13`, `δ ≤ τρ/(26 ln(26/τ))`, `n ≥ 2 ln(8/δ)/ε²`; under them
/// `P{|empirical − population| ≥ τ} ≤ ρ` for every query chosen by the (ε, δ)-DP transcript.
///
/// # Errors
/// `InvalidParameter` for `τ ≤ 0` or `ρ ∉ (0, 1]`.
pub fn lemma1_conditions(setting: &DpSetting, tau: f64, rho: f64) -> Result<Lemma1Conditions> {
    let tau = check::positive("tau", tau)?;
    let rho = check::rate("rho", rho)?;
    Ok(Lemma1Conditions::at(setting, tau, || tau * rho / (26.0 * (26.0 / tau).ln()), &LEMMA1_NAMES))
}

/// Lemma 1 for gradient coordinates in `[−G, G]` (erratum Z10): the query
/// `(∇ᵢℓ + G)/(2G) ∈ [0, 1]` deviates by `τ_grad/(2G)` when the coordinate deviates by `τ_grad`,
/// so this is [`lemma1_conditions`] at `τ = τ_grad/(2G)`; under it
/// `P{|ĝ_t^i − g_t^i| ≥ τ_grad} ≤ ρ`. The paper applies Lemma 1 with `τ = τ_grad` (silently `G = 1/2`).
///
/// # Errors
/// As [`lemma1_conditions`]; `InvalidParameter` for `G ≤ 0`.
pub fn lemma1_conditions_gradient(
    setting: &DpSetting,
    tau_grad: f64,
    rho: f64,
    gradient_bound_g: f64,
) -> Result<Lemma1Conditions> {
    let g = check::positive("gradient_bound_g", gradient_bound_g)?;
    let tau = check::positive("tau_grad", tau_grad)? / (2.0 * g);
    lemma1_conditions(setting, tau, rho)
}

/// The hypotheses of \[ZCHWB\] Thm. 2 / Thm. 7 (Sec. 4.1, App. B; Thm. 3 states only the
/// n-condition, but needs all, erratum Z11): `σ < 26`, `ε ≤ σ/13`,
/// `δ ≤ σ e^{−μ²/2}/(13 ln(26/σ))`, `n ≥ 2 ln(8/δ)/ε²`. This is Lemma 1 with `τ = σ`,
/// `ρ = 2e^{−μ²/2}` (without the `2G` rescale, as printed). Corrected for gradient coordinates in
/// `[−G, G]` (erratum Z10), Thm. 2's conditions are
/// [`lemma1_conditions_gradient`]`(setting, σ, 2e^{−μ²/2}, G)`, i.e. these at `σ/(2G)`: for
/// `G > 1/2` the printed form accepts settings the corrected one refuses (G = 1, σ = 1, ε = 1/13
/// passes `ε ≤ σ/13`; the corrected condition is `ε ≤ σ/(26G)`).
///
/// # Errors
/// `InvalidParameter` for `σ ≤ 0` or `μ ≤ 0`.
pub fn theorem2_conditions(setting: &DpSetting, sigma: f64, mu: f64) -> Result<Lemma1Conditions> {
    let s = check::positive("sigma", sigma)?;
    let mu = check::positive("mu", mu)?;
    Ok(Lemma1Conditions::at(setting, s, || s * (-0.5 * mu * mu).exp() / (13.0 * (26.0 / s).ln()), &THEOREM2_NAMES))
}

/// `(p, σ, μ)` checked: `p ≥ 1`, `σ ≥ 0`, `μ > 0`.
fn check_p_sigma_mu(dim_p: u64, sigma: f64, mu: f64) -> Result<(f64, f64, f64)> {
    let p = check::count("dim_p", dim_p)? as f64;
    Ok((p, check::non_negative("sigma", sigma)?, check::positive("mu", mu)?))
}

/// The radius of \[ZCHWB\] Thm. 2 eq. (7): `α = √p σ (1 + μ)`; under Thm. 2's conditions
/// `P{‖g̃_t − g_t‖ ≥ α} ≤ 4p e^{−μ²/2}` ([`noisy_gradient_deviation_probability`]).
///
/// # Errors
/// `InvalidParameter` for `p = 0`, `σ < 0` or `μ ≤ 0`.
pub fn noisy_gradient_deviation_radius(dim_p: u64, sigma: f64, mu: f64) -> Result<f64> {
    let (p, s, mu) = check_p_sigma_mu(dim_p, sigma, mu)?;
    finite_result("noisy_gradient_deviation_radius", p.sqrt() * s * (1.0 + mu))
}

/// The failure probability of \[ZCHWB\] Thm. 2 eq. (7): `ξ = 4p e^{−μ²/2}` (vacuous when
/// `≥ 1`; returned as is).
///
/// # Errors
/// `InvalidParameter` for `p = 0` or `μ ≤ 0`.
pub fn noisy_gradient_deviation_probability(dim_p: u64, mu: f64) -> Result<f64> {
    let (p, _, mu) = check_p_sigma_mu(dim_p, 0.0, mu)?;
    finite_result("noisy_gradient_deviation_probability", 4.0 * p * (-0.5 * mu * mu).exp())
}

/// The radius of \[ZCHWB\] Lemma 3 (noise only, no data conditions):
/// `P{‖b_t‖ ≥ √p μ σ} ≤ 2p e^{−μ²/2}` ([`noise_norm_probability_lemma3`]). Loose: `‖b‖ ≈ σ√p`.
///
/// # Errors
/// `InvalidParameter` for `p = 0`, `σ < 0` or `μ ≤ 0`.
pub fn noise_norm_radius_lemma3(dim_p: u64, sigma: f64, mu: f64) -> Result<f64> {
    let (p, s, mu) = check_p_sigma_mu(dim_p, sigma, mu)?;
    finite_result("noise_norm_radius_lemma3", p.sqrt() * mu * s)
}

/// The failure probability of \[ZCHWB\] Lemma 3: `2p e^{−μ²/2}` (a union bound over the p
/// coordinates of the Gaussian tail `P{|bᵢ| ≥ σμ} ≤ 2e^{−μ²/2}`).
///
/// # Errors
/// `InvalidParameter` for `p = 0` or `μ ≤ 0`.
pub fn noise_norm_probability_lemma3(dim_p: u64, mu: f64) -> Result<f64> {
    let (p, _, mu) = check_p_sigma_mu(dim_p, 0.0, mu)?;
    finite_result("noise_norm_probability_lemma3", 2.0 * p * (-0.5 * mu * mu).exp())
}

/// `μ = √(2 ln(k pT/β))` for `k ∈ {2, 4}`.
fn mu_for(k: f64, dim_p: u64, steps_t: u64, beta: f64) -> Result<f64> {
    let p = check::count("dim_p", dim_p)? as f64;
    let t = check::count("steps_t", steps_t)? as f64;
    let b = check::open_unit("beta", beta)?;
    finite_result("mu_for_failure_probability", (2.0 * (k * p * t / b).ln()).sqrt())
}

/// The population theorems' choice `μ = √(2 ln(4pT/β))` (proofs of Thms. 8–10, App. B): then
/// `T·4p e^{−μ²/2} = β`, so `‖Δ_t‖ ≤ √p σ(1 + μ)` for all `t ≤ T` with probability `≥ 1 − β`.
///
/// # Errors
/// `InvalidParameter` for `p = 0`, `T = 0` or `β ∉ (0, 1)`.
pub fn mu_for_failure_probability(dim_p: u64, steps_t: u64, beta: f64) -> Result<f64> {
    mu_for(4.0, dim_p, steps_t, beta)
}

/// Thm. 6's choice `μ = √(2 ln(2pT/β))` (App. C.3), with Lemma 3's `2p e^{−μ²/2}`.
///
/// # Errors
/// As [`mu_for_failure_probability`].
pub fn mu_for_failure_probability_empirical(dim_p: u64, steps_t: u64, beta: f64) -> Result<f64> {
    mu_for(2.0, dim_p, steps_t, beta)
}
