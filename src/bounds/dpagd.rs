//! Bounds of \[ZCHWB\] — Zhou, Chen, Hong, Wu, Banerjee, "Private Stochastic Non-Convex
//! Optimization: Adaptive Algorithms and Tighter Generalization Bounds" (arXiv 2006.13501;
//! the version is not recorded in the notes, so citations read `[ZCHWB] Thm. N (v?)`).
//!
//! Every formula below is a function, and `tests/bounds_dpagd.rs` evaluates each one;
//! `tests/descent_dpagd.rs` measures the real optimiser ([`crate::optim::dpagd::algorithm1`])
//! against the deterministic descent inequalities. Symbols (notes §4): `p` dimension, `n` sample
//! size, `T` iterations, `G` gradient bound (A1), `L` smoothness (A2), `σ` the *absolute* noise
//! std on the mean gradient, `g_t = ∇f(w_t)` (population), `g̃_t` the released noisy gradient,
//! `Δ_t = g̃_t − g_t`, `ln` the natural logarithm.
//!
//! | result | function | kind |
//! |---|---|---|
//! | sensitivity of the full-batch mean (§3, §7) | [`full_batch_sensitivity`] | exact |
//! | zCDP calibration (§3 (a)) | [`zcdp_rho_full_batch`], [`zcdp_epsilon_classic`], [`zcdp_sufficient_sigma`] | exact / sufficient |
//! | exact GDP (§3 (b)) | [`gdp_mu_full_batch`], [`gdp_delta`], [`gdp_mu_max`], [`gdp_sigma_full_batch`] | exact |
//! | RDP, full batch (§3 (c)) | [`rdp_epsilon_full_batch_continuous`], [`rdp_epsilon_full_batch_integer`] | upper bound on ε |
//! | Thm. 1, eq. (6), and its constant | [`sigma_eq6`], [`c2_sufficient_zcdp`] | sufficient |
//! | Lemma 1 conditions, `[0,1]` rescale (§4.2) | [`lemma1_conditions`], [`lemma1_conditions_gradient`] | checker |
//! | Thm. 2/7 (§4.3) | [`noisy_gradient_deviation_radius`], [`noisy_gradient_deviation_probability`], [`theorem2_conditions`], [`mu_for_failure_probability`] | tail bound / checker |
//! | Lemma 3 (§4.4) | [`noise_norm_radius_lemma3`], [`noise_norm_probability_lemma3`], [`mu_for_failure_probability_empirical`] | tail bound |
//! | step-size caps (§2.3, erratum 1) | [`dp_gd_step_size`], [`rmsprop_step_size_cap`], [`adam_step_cap_x`], [`adam_step_cap_x_printed`], [`adam_cap_quadratic`], [`adam_step_size_cap`], [`adam_step_size_cap_printed`] | exact |
//! | DP-GD descent, eq. (22)–(26) | [`dp_gd_descent_step`], [`dp_gd_descent_bound`], [`dp_gd_descent_bound_general_eta`] | deterministic, given Δ_t |
//! | DP-RMSProp descent, eq. (30)–(35) | [`rmsprop_descent_bound`], [`rmsprop_descent_bound_printed`] | deterministic, corrected and printed |
//! | DP-Adam descent, eq. (40)–(49) | [`adam_descent_bound`], [`adam_descent_bound_printed`] | deterministic, corrected and printed |
//! | Lemma 2 (§4.6) | [`lemma2_sides`] | both sides |
//! | Thm. 4, Thm. 5 (§4.7) | [`dp_gd_empirical_bound`], [`dp_gd_empirical_bound_printed`], [`rmsprop_empirical_bound`], [`rmsprop_empirical_bound_printed`] | expectation bounds |
//! | Thm. 3 `O(·)` with `O(1) = 1` | [`dp_gd_rate_unit_constant`], [`adaptive_rate_unit_constant`] | trend only |
//! | Thm. 12 (§4.8) | [`uniform_convergence_lower_bound_constant`], [`uniform_convergence_lower_bound`] | lower bound |
//!
//! Errata followed here (notes §8): 1 (Adam cap: `1/4`, not `1/2`, under the root), 2 (RMSProp
//! eq. (35) misses a factor 4), 3 (Adam eq. (43)/(49): `2α²`, not `α²`), 4 (DP-GD `η = 1/(4L)`;
//! Thm. 4 constant `2L`), 9 (Thm. 1's `c2` made explicit via zCDP), 10 (Lemma 1 needs `[0,1]`
//! queries: rescale by `2G`), 11 (Thm. 2's conditions). Thm. 5's noise term is `pσ²/(2ν)` (§4.7).

use crate::accounting::Neighbouring;
use crate::accounting::{gaussian, gdp};
use crate::error::{Error, Result, check};

pub use super::adaptive_noise::Sides;

/// Relative slack allowed when a caller's parameter is compared with a cap computed here (the
/// caller typically computes `η = x*·ν/L` in floating point, a few roundings away).
const CAP_SLACK: f64 = 1e-12;

/// `ln(1/δ)` for `δ ∈ (0, 1)`.
fn ln_inv_delta(delta: f64) -> Result<f64> {
    Ok(-check::open_unit("delta", delta)?.ln())
}

/// A finite real (of any sign).
fn finite(name: &'static str, x: f64) -> Result<f64> {
    if x.is_finite() { Ok(x) } else { Err(Error::invalid(name, x, "finite")) }
}

// ---------------------------------------------------------------------------------------------
// Privacy calibration (notes §3)
// ---------------------------------------------------------------------------------------------

/// ℓ2-sensitivity `Δ` of the full-batch mean `(1/n) Σ_{z∈S} ∇ℓ(w, z)` of per-example gradients of
/// norm `≤ G` (notes §3, §7): `Δ = G/n` under add/remove (n the public normaliser) and `Δ = 2G/n`
/// under replace-one (the paper's Definition 1).
///
/// # Errors
/// `InvalidParameter` for `G ≤ 0` (NaN, ∞ included) or `n = 0`.
pub fn full_batch_sensitivity(gradient_bound_g: f64, dataset_size_n: u64, neighbouring: Neighbouring) -> Result<f64> {
    let g = check::positive("gradient_bound_g", gradient_bound_g)?;
    let n = check::count("dataset_size_n", dataset_size_n)? as f64;
    Ok(neighbouring.sum_sensitivity_factor() * g / n)
}

/// ρ of T full-batch Gaussian releases (notes §3 (a)): each is `Δ²/(2σ²)`-zCDP, so
/// `ρ = TΔ²/(2σ²)`.
///
/// # Errors
/// `InvalidParameter` for `T = 0`, `Δ ≤ 0` or `σ ≤ 0`.
pub fn zcdp_rho_full_batch(steps_t: u64, sensitivity: f64, sigma: f64) -> Result<f64> {
    let t = check::count("steps_t", steps_t)? as f64;
    let d = check::positive("sensitivity", sensitivity)?;
    let s = check::positive("sigma", sigma)?;
    Ok(t * d * d / (2.0 * s * s))
}

/// The classic ρ-zCDP → (ε, δ) conversion (Bun–Steinke; notes §3 (a)):
/// `ε = ρ + 2√(ρ ln(1/δ))`. An upper bound; the optimal conversion is
/// [`crate::accounting::zcdp::epsilon_for_delta`].
///
/// # Errors
/// `InvalidParameter` for `ρ < 0` or `δ ∉ (0, 1)`.
pub fn zcdp_epsilon_classic(rho: f64, delta: f64) -> Result<f64> {
    let rho = check::non_negative("rho", rho)?;
    let l = ln_inv_delta(delta)?;
    Ok(rho + 2.0 * (rho * l).sqrt())
}

/// A σ sufficient for (ε, δ)-DP of T full-batch releases via zCDP (notes §3 (a)):
/// `σ² = 2TΔ²(ln(1/δ) + ε)/ε²`. It gives `ρ = ε²/(4(ln(1/δ) + ε)) ≤ (√(ln(1/δ) + ε) − √ln(1/δ))²`,
/// so [`zcdp_epsilon_classic`] returns at most ε. No condition `ε ≤ c1 T` is needed.
///
/// # Errors
/// `InvalidParameter` for `T = 0`, `Δ ≤ 0`, `ε ≤ 0` or `δ ∉ (0, 1)`.
pub fn zcdp_sufficient_sigma(steps_t: u64, sensitivity: f64, epsilon: f64, delta: f64) -> Result<f64> {
    let t = check::count("steps_t", steps_t)? as f64;
    let d = check::positive("sensitivity", sensitivity)?;
    let e = check::positive("epsilon", epsilon)?;
    let l = ln_inv_delta(delta)?;
    Ok(d * (2.0 * t * (l + e)).sqrt() / e)
}

/// μ of T adaptive full-batch Gaussian releases (Dong–Roth–Su; notes §3 (b)): exactly μ-GDP with
/// `μ = √T Δ/σ` (tight for full batch).
///
/// # Errors
/// `InvalidParameter` for `T = 0`, `Δ ≤ 0` or `σ ≤ 0`.
pub fn gdp_mu_full_batch(steps_t: u64, sensitivity: f64, sigma: f64) -> Result<f64> {
    let t = check::count("steps_t", steps_t)? as f64;
    let d = check::positive("sensitivity", sensitivity)?;
    let s = check::positive("sigma", sigma)?;
    Ok(t.sqrt() * d / s)
}

/// `δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2)` of μ-GDP (notes §3 (b)); evaluated by
/// [`crate::accounting::gdp::delta_for_epsilon`] (rounded up).
///
/// # Errors
/// `InvalidParameter` for `μ ≤ 0` or `ε < 0`.
pub fn gdp_delta(mu: f64, epsilon: f64) -> Result<f64> {
    gdp::delta_for_epsilon(mu, epsilon)
}

/// The largest μ with `δ(ε; μ) ≤ δ` (notes §3 (b)), as `1/z` for the smallest Gaussian
/// multiplier `z` of [`crate::accounting::gaussian::noise_multiplier_for`] (which rounds `z` up,
/// so μ is rounded down: the safe side).
///
/// # Errors
/// `InvalidParameter` for `ε ≤ 0` or `δ ∉ (0, 1)`; `Numerical` if no root is bracketed.
pub fn gdp_mu_max(epsilon: f64, delta: f64) -> Result<f64> {
    let z = gaussian::noise_multiplier_for(epsilon, delta)?;
    Ok((1.0 / z).next_down())
}

/// The exact-GDP calibration (notes §3 (b)): `σ = √T Δ/μ_max(ε, δ)`, rounded up; then
/// [`gdp_mu_full_batch`] at this σ is at most [`gdp_mu_max`].
///
/// # Errors
/// As [`gdp_mu_full_batch`] and [`gdp_mu_max`].
pub fn gdp_sigma_full_batch(steps_t: u64, sensitivity: f64, epsilon: f64, delta: f64) -> Result<f64> {
    let t = check::count("steps_t", steps_t)? as f64;
    let d = check::positive("sensitivity", sensitivity)?;
    let mu = gdp_mu_max(epsilon, delta)?;
    Ok((t.sqrt() * d / mu).next_up())
}

/// RDP of T full-batch Gaussian releases with multiplier `s = σ/Δ` (Mironov; notes §3 (c)),
/// `ε_α = Tα/(2s²)`, converted with the classic rule and the order optimised over continuous
/// `α > 1`: with `r = T/(2s²)`, `ε = min_α [rα + ln(1/δ)/(α − 1)] = r + 2√(r ln(1/δ))`, equal to
/// the zCDP value at `ρ = r`.
///
/// # Errors
/// `InvalidParameter` for `s ≤ 0`, `T = 0` or `δ ∉ (0, 1)`.
pub fn rdp_epsilon_full_batch_continuous(noise_multiplier_s: f64, steps_t: u64, delta: f64) -> Result<f64> {
    let s = check::positive("noise_multiplier_s", noise_multiplier_s)?;
    let t = check::count("steps_t", steps_t)? as f64;
    zcdp_epsilon_classic(t / (2.0 * s * s), delta)
}

/// As [`rdp_epsilon_full_batch_continuous`] with integer orders `α ≥ 2`:
/// `ε = min_{α∈{2,3,…}} [Tα/(2s²) + ln(1/δ)/(α − 1)]`. The objective is convex in α, so the scan
/// stops at the first increase.
///
/// # Errors
/// As [`rdp_epsilon_full_batch_continuous`].
pub fn rdp_epsilon_full_batch_integer(noise_multiplier_s: f64, steps_t: u64, delta: f64) -> Result<f64> {
    let s = check::positive("noise_multiplier_s", noise_multiplier_s)?;
    let t = check::count("steps_t", steps_t)? as f64;
    let l = ln_inv_delta(delta)?;
    let r = t / (2.0 * s * s);
    let objective = |a: f64| r * a + l / (a - 1.0);
    let (mut a, mut best) = (2.0f64, objective(2.0));
    loop {
        let next = objective(a + 1.0);
        if next >= best || a > 1e9 {
            return Ok(best);
        }
        best = next;
        a += 1.0;
    }
}

/// \[ZCHWB\] Thm. 1 (v?), eq. (6) with its constant made explicit:
/// `σ = (c2 G² T ln(1/δ)/(n² ε²))^{1/2}`. The paper never gives `c2`; [`c2_sufficient_zcdp`]
/// gives one that makes (6) sufficient (erratum 9).
///
/// # Errors
/// `InvalidParameter` for `c2 ≤ 0`, `G ≤ 0`, `T = 0`, `n = 0`, `ε ≤ 0` or `δ ∉ (0, 1)`.
pub fn sigma_eq6(
    c2: f64,
    gradient_bound_g: f64,
    steps_t: u64,
    dataset_size_n: u64,
    epsilon: f64,
    delta: f64,
) -> Result<f64> {
    let c2 = check::positive("c2", c2)?;
    let g = check::positive("gradient_bound_g", gradient_bound_g)?;
    let t = check::count("steps_t", steps_t)? as f64;
    let n = check::count("dataset_size_n", dataset_size_n)? as f64;
    let e = check::positive("epsilon", epsilon)?;
    let l = ln_inv_delta(delta)?;
    Ok(g * (c2 * t * l).sqrt() / (n * e))
}

/// The `c2` that makes eq. (6) sufficient by the zCDP calibration (notes §3 (a), §8 item 9):
/// (6) dominates [`zcdp_sufficient_sigma`] with `Δ = fG/n` iff
/// `c2 ≥ 2f²(ln(1/δ) + ε)/ln(1/δ)`, where `f = 2` (replace-one) or `1` (add/remove). For
/// `ε ≤ ln(1/δ)` this is at most 16 (replace-one) or 4 (add/remove), the notes' constants.
///
/// # Errors
/// `InvalidParameter` for `ε ≤ 0` or `δ ∉ (0, 1)`.
pub fn c2_sufficient_zcdp(epsilon: f64, delta: f64, neighbouring: Neighbouring) -> Result<f64> {
    let e = check::positive("epsilon", epsilon)?;
    let l = ln_inv_delta(delta)?;
    let f = neighbouring.sum_sensitivity_factor();
    Ok(2.0 * f * f * (1.0 + e / l))
}

// ---------------------------------------------------------------------------------------------
// Lemma 1, Theorem 2, Lemma 3 (notes §4.2–4.4)
// ---------------------------------------------------------------------------------------------

/// Which hypotheses of \[ZCHWB\] Lemma 1 (v?) hold (notes §4.2; Dwork et al. 2015, Thm. 8).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lemma1Conditions {
    /// `0 < τ < 26` (so that `ln(26/τ) > 0`).
    pub tau_ok: bool,
    /// `ε ≤ τ/13`.
    pub epsilon_ok: bool,
    /// `δ ≤ τρ/(26 ln(26/τ))`.
    pub delta_ok: bool,
    /// `n ≥ 2 ln(8/δ)/ε²`.
    pub n_ok: bool,
}

impl Lemma1Conditions {
    /// All hypotheses hold.
    pub fn all(&self) -> bool {
        self.tau_ok && self.epsilon_ok && self.delta_ok && self.n_ok
    }

    /// `Ok(())` if all hold, else `InvalidParameter` naming the first that fails.
    ///
    /// # Errors
    /// As described.
    pub fn check(&self) -> Result<()> {
        first_failure(&[
            (self.tau_ok, "tau", "in (0, 26)"),
            (self.epsilon_ok, "epsilon", "<= tau/13 (Lemma 1)"),
            (self.delta_ok, "delta", "<= tau rho/(26 ln(26/tau)) (Lemma 1)"),
            (self.n_ok, "dataset_size_n", ">= 2 ln(8/delta)/epsilon^2 (Lemma 1)"),
        ])
    }
}

fn first_failure(conds: &[(bool, &'static str, &'static str)]) -> Result<()> {
    match conds.iter().find(|c| !c.0) {
        Some(&(_, name, constraint)) => Err(Error::invalid(name, "condition fails", constraint)),
        None => Ok(()),
    }
}

/// `n ≥ 2 ln(8/δ)/ε²`, shared by Lemma 1, Thm. 2 and Thm. 3.
fn n_condition(dataset_size_n: u64, epsilon: f64, delta: f64) -> bool {
    dataset_size_n as f64 >= 2.0 * (8.0 / delta).ln() / (epsilon * epsilon)
}

/// The hypotheses of \[ZCHWB\] Lemma 1 (v?) for `[0,1]`-valued queries (notes §4.2):
/// `ε ≤ τ/13`, `δ ≤ τρ/(26 ln(26/τ))`, `n ≥ 2 ln(8/δ)/ε²`; under them
/// `P{|empirical − population| ≥ τ} ≤ ρ` for every query chosen by the (ε, δ)-DP transcript.
///
/// # Errors
/// `InvalidParameter` for `ε ≤ 0`, `δ ∉ (0, 1)`, `n = 0`, `τ ≤ 0` or `ρ ∉ (0, 1]`.
pub fn lemma1_conditions(
    epsilon: f64,
    delta: f64,
    dataset_size_n: u64,
    tau: f64,
    rho: f64,
) -> Result<Lemma1Conditions> {
    let e = check::positive("epsilon", epsilon)?;
    let d = check::open_unit("delta", delta)?;
    check::count("dataset_size_n", dataset_size_n)?;
    let tau = check::positive("tau", tau)?;
    let rho = check::rate("rho", rho)?;
    let tau_ok = tau < 26.0;
    Ok(Lemma1Conditions {
        tau_ok,
        epsilon_ok: e <= tau / 13.0,
        delta_ok: tau_ok && d <= tau * rho / (26.0 * (26.0 / tau).ln()),
        n_ok: n_condition(dataset_size_n, e, d),
    })
}

/// Lemma 1 for gradient coordinates in `[−G, G]` (erratum 10): the query
/// `(∇ᵢℓ + G)/(2G) ∈ [0, 1]` deviates by `τ_grad/(2G)` when the coordinate deviates by `τ_grad`,
/// so this is [`lemma1_conditions`] at `τ = τ_grad/(2G)`; under it
/// `P{|ĝ_t^i − g_t^i| ≥ τ_grad} ≤ ρ`. The paper applies Lemma 1 with `τ = τ_grad` (silently `G = 1/2`).
///
/// # Errors
/// As [`lemma1_conditions`]; `InvalidParameter` for `G ≤ 0`.
pub fn lemma1_conditions_gradient(
    epsilon: f64,
    delta: f64,
    dataset_size_n: u64,
    tau_grad: f64,
    rho: f64,
    gradient_bound_g: f64,
) -> Result<Lemma1Conditions> {
    let g = check::positive("gradient_bound_g", gradient_bound_g)?;
    let tau = check::positive("tau_grad", tau_grad)? / (2.0 * g);
    lemma1_conditions(epsilon, delta, dataset_size_n, tau, rho)
}

/// Which hypotheses of \[ZCHWB\] Thm. 2 / Thm. 7 (v?) hold (notes §4.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Theorem2Conditions {
    /// `σ < 26` (so that `ln(26/σ) > 0`).
    pub sigma_ok: bool,
    /// `ε ≤ σ/13`.
    pub epsilon_ok: bool,
    /// `δ ≤ σ e^{−μ²/2}/(13 ln(26/σ))`.
    pub delta_ok: bool,
    /// `n ≥ 2 ln(8/δ)/ε²`.
    pub n_ok: bool,
}

impl Theorem2Conditions {
    /// All hypotheses hold.
    pub fn all(&self) -> bool {
        self.sigma_ok && self.epsilon_ok && self.delta_ok && self.n_ok
    }

    /// `Ok(())` if all hold, else `InvalidParameter` naming the first that fails.
    ///
    /// # Errors
    /// As described.
    pub fn check(&self) -> Result<()> {
        first_failure(&[
            (self.sigma_ok, "sigma", "< 26 (Theorem 2)"),
            (self.epsilon_ok, "epsilon", "<= sigma/13 (Theorem 2)"),
            (self.delta_ok, "delta", "<= sigma exp(-mu^2/2)/(13 ln(26/sigma)) (Theorem 2)"),
            (self.n_ok, "dataset_size_n", ">= 2 ln(8/delta)/epsilon^2 (Theorem 2)"),
        ])
    }
}

/// The hypotheses of \[ZCHWB\] Thm. 2 (v?) (notes §4.3; Thm. 3 states only the n-condition, but
/// needs all, erratum 11): `σ < 26`, `ε ≤ σ/13`, `δ ≤ σ e^{−μ²/2}/(13 ln(26/σ))`,
/// `n ≥ 2 ln(8/δ)/ε²`. This is Lemma 1 with `τ = σ`, `ρ = 2e^{−μ²/2}` (without the `2G` rescale,
/// as printed).
///
/// # Errors
/// `InvalidParameter` for `ε ≤ 0`, `δ ∉ (0, 1)`, `n = 0`, `σ ≤ 0` or `μ ≤ 0`.
pub fn theorem2_conditions(
    epsilon: f64,
    delta: f64,
    dataset_size_n: u64,
    sigma: f64,
    mu: f64,
) -> Result<Theorem2Conditions> {
    let e = check::positive("epsilon", epsilon)?;
    let d = check::open_unit("delta", delta)?;
    check::count("dataset_size_n", dataset_size_n)?;
    let s = check::positive("sigma", sigma)?;
    let mu = check::positive("mu", mu)?;
    let sigma_ok = s < 26.0;
    Ok(Theorem2Conditions {
        sigma_ok,
        epsilon_ok: e <= s / 13.0,
        delta_ok: sigma_ok && d <= s * (-0.5 * mu * mu).exp() / (13.0 * (26.0 / s).ln()),
        n_ok: n_condition(dataset_size_n, e, d),
    })
}

/// `(p, σ, μ)` checked: `p ≥ 1`, `σ ≥ 0`, `μ > 0`.
fn check_p_sigma_mu(dim_p: u64, sigma: f64, mu: f64) -> Result<(f64, f64, f64)> {
    let p = check::count("dim_p", dim_p)? as f64;
    Ok((p, check::non_negative("sigma", sigma)?, check::positive("mu", mu)?))
}

/// The radius of \[ZCHWB\] Thm. 2 eq. (7) (v?): `α = √p σ (1 + μ)`; under Thm. 2's conditions
/// `P{‖g̃_t − g_t‖ ≥ α} ≤ 4p e^{−μ²/2}` ([`noisy_gradient_deviation_probability`]).
///
/// # Errors
/// `InvalidParameter` for `p = 0`, `σ < 0` or `μ ≤ 0`.
pub fn noisy_gradient_deviation_radius(dim_p: u64, sigma: f64, mu: f64) -> Result<f64> {
    let (p, s, mu) = check_p_sigma_mu(dim_p, sigma, mu)?;
    Ok(p.sqrt() * s * (1.0 + mu))
}

/// The failure probability of \[ZCHWB\] Thm. 2 eq. (7) (v?): `ξ = 4p e^{−μ²/2}` (vacuous when
/// `≥ 1`; returned as is).
///
/// # Errors
/// `InvalidParameter` for `p = 0` or `μ ≤ 0`.
pub fn noisy_gradient_deviation_probability(dim_p: u64, mu: f64) -> Result<f64> {
    let (p, _, mu) = check_p_sigma_mu(dim_p, 0.0, mu)?;
    Ok(4.0 * p * (-0.5 * mu * mu).exp())
}

/// The radius of \[ZCHWB\] Lemma 3 (v?) (noise only, no data conditions):
/// `P{‖b_t‖ ≥ √p μ σ} ≤ 2p e^{−μ²/2}` ([`noise_norm_probability_lemma3`]). Loose: `‖b‖ ≈ σ√p`.
///
/// # Errors
/// `InvalidParameter` for `p = 0`, `σ < 0` or `μ ≤ 0`.
pub fn noise_norm_radius_lemma3(dim_p: u64, sigma: f64, mu: f64) -> Result<f64> {
    let (p, s, mu) = check_p_sigma_mu(dim_p, sigma, mu)?;
    Ok(p.sqrt() * mu * s)
}

/// The failure probability of \[ZCHWB\] Lemma 3 (v?): `2p e^{−μ²/2}` (a union bound over the p
/// coordinates of the Gaussian tail `P{|bᵢ| ≥ σμ} ≤ 2e^{−μ²/2}`).
///
/// # Errors
/// `InvalidParameter` for `p = 0` or `μ ≤ 0`.
pub fn noise_norm_probability_lemma3(dim_p: u64, mu: f64) -> Result<f64> {
    let (p, _, mu) = check_p_sigma_mu(dim_p, 0.0, mu)?;
    Ok(2.0 * p * (-0.5 * mu * mu).exp())
}

/// `μ = √(2 ln(k pT/β))` for `k ∈ {2, 4}`.
fn mu_for(k: f64, dim_p: u64, steps_t: u64, beta: f64) -> Result<f64> {
    let p = check::count("dim_p", dim_p)? as f64;
    let t = check::count("steps_t", steps_t)? as f64;
    let b = check::open_unit("beta", beta)?;
    Ok((2.0 * (k * p * t / b).ln()).sqrt())
}

/// The population theorems' choice `μ = √(2 ln(4pT/β))` (notes §4.5): then
/// `T·4p e^{−μ²/2} = β`, so `‖Δ_t‖ ≤ √p σ(1 + μ)` for all `t ≤ T` with probability `≥ 1 − β`.
///
/// # Errors
/// `InvalidParameter` for `p = 0`, `T = 0` or `β ∉ (0, 1)`.
pub fn mu_for_failure_probability(dim_p: u64, steps_t: u64, beta: f64) -> Result<f64> {
    mu_for(4.0, dim_p, steps_t, beta)
}

/// Thm. 6's choice `μ = √(2 ln(2pT/β))` (notes §4.7), with Lemma 3's `2p e^{−μ²/2}`.
///
/// # Errors
/// As [`mu_for_failure_probability`].
pub fn mu_for_failure_probability_empirical(dim_p: u64, steps_t: u64, beta: f64) -> Result<f64> {
    mu_for(2.0, dim_p, steps_t, beta)
}

// ---------------------------------------------------------------------------------------------
// Step-size caps (notes §2.3, erratum 1)
// ---------------------------------------------------------------------------------------------

/// DP-GD's step of Thm. 3.1 / Thm. 8: `η = 1/(4L)` (the proof's "`η_t = L/4`" is a typo,
/// erratum 4).
///
/// # Errors
/// `InvalidParameter` for `L ≤ 0`.
pub fn dp_gd_step_size(smoothness_l: f64) -> Result<f64> {
    Ok(0.25 / check::positive("smoothness_l", smoothness_l)?)
}

/// DP-RMSProp's cap of Thm. 3.2 / Thm. 9: `η ≤ ν/(4L)`.
///
/// # Errors
/// `InvalidParameter` for `ν ≤ 0` or `L ≤ 0`.
pub fn rmsprop_step_size_cap(nu: f64, smoothness_l: f64) -> Result<f64> {
    let nu = check::positive("nu", nu)?;
    Ok(0.25 * nu / check::positive("smoothness_l", smoothness_l)?)
}

fn check_beta1(beta1: f64) -> Result<f64> {
    if (0.0..1.0).contains(&beta1) { Ok(beta1) } else { Err(Error::invalid("beta1", beta1, "in [0, 1)")) }
}

/// The corrected DP-Adam cap in `x = Lη/ν` (notes §2.3, erratum 1): the positive root of the
/// proof's condition `(2β1/(1−β1)²) x² + x/2 − 1/2 ≤ 0` ([`adam_cap_quadratic`]),
///
/// ```text
/// x* = (√(1/4 + a) − 1/2)·(1−β1)²/(4β1),   a = 4β1/(1−β1)²
///    = 1/(1/2 + √(1/4 + a))                 (rationalised; evaluated this way)
/// ```
///
/// The rationalised form has no cancellation for small β1 and gives `x*(0) = 1` exactly
/// (`η ≤ ν/L`). Values: `x*(0.9) = 0.0513340`, `x*(0.5) = 0.2965352`, `x*(0.1) = 0.7339697`.
///
/// # Errors
/// `InvalidParameter` for `β1 ∉ [0, 1)`.
pub fn adam_step_cap_x(beta1: f64) -> Result<f64> {
    let b = check_beta1(beta1)?;
    let a = 4.0 * b / ((1.0 - b) * (1.0 - b));
    Ok(1.0 / (0.5 + (0.25 + a).sqrt()))
}

/// The Adam cap as printed in \[ZCHWB\] Thm. 3.3 / Thm. 10 (v?), in `x = Lη/ν`:
/// `x = (√(1/2 + a) − 1/2)·(1−β1)²/(4β1)`, `a = 4β1/(1−β1)²` (evaluated as
/// `(1/4 + a)/(a(√(1/2 + a) + 1/2))`, equal by rationalising `√(1/2+a) − 1/2`). It violates the
/// proof's condition: at `β1 = 0.1` it is 1.0062, where [`adam_cap_quadratic`] is +0.253 > 0; it
/// grows without bound as `β1 → 0`.
///
/// # Errors
/// `InvalidParameter` for `β1 ∉ (0, 1)` (the printed form divides by β1).
pub fn adam_step_cap_x_printed(beta1: f64) -> Result<f64> {
    let b = check::open_unit("beta1", beta1)?;
    let a = 4.0 * b / ((1.0 - b) * (1.0 - b));
    Ok((0.25 + a) / (a * ((0.5 + a).sqrt() + 0.5)))
}

/// The quadratic of the DP-Adam proof's step condition in `x = Lη/ν` (notes §2.3):
/// `q(x) = (2β1/(1−β1)²) x² + x/2 − 1/2`; the proof needs `q(x) ≤ 0`. [`adam_step_cap_x`] is its
/// positive root.
///
/// # Errors
/// `InvalidParameter` for `β1 ∉ [0, 1)` or a non-finite `x`.
pub fn adam_cap_quadratic(beta1: f64, x: f64) -> Result<f64> {
    let b = check_beta1(beta1)?;
    let x = finite("x", x)?;
    Ok(2.0 * b / ((1.0 - b) * (1.0 - b)) * x * x + 0.5 * x - 0.5)
}

/// The corrected DP-Adam step cap `η ≤ x*(β1)·ν/L` ([`adam_step_cap_x`]).
///
/// # Errors
/// `InvalidParameter` for `β1 ∉ [0, 1)`, `ν ≤ 0` or `L ≤ 0`.
pub fn adam_step_size_cap(beta1: f64, nu: f64, smoothness_l: f64) -> Result<f64> {
    let x = adam_step_cap_x(beta1)?;
    Ok(x * check::positive("nu", nu)? / check::positive("smoothness_l", smoothness_l)?)
}

/// The printed DP-Adam step cap `η ≤ x_printed(β1)·ν/L` ([`adam_step_cap_x_printed`]).
///
/// # Errors
/// `InvalidParameter` for `β1 ∉ (0, 1)`, `ν ≤ 0` or `L ≤ 0`.
pub fn adam_step_size_cap_printed(beta1: f64, nu: f64, smoothness_l: f64) -> Result<f64> {
    let x = adam_step_cap_x_printed(beta1)?;
    Ok(x * check::positive("nu", nu)? / check::positive("smoothness_l", smoothness_l)?)
}

// ---------------------------------------------------------------------------------------------
// Deterministic descent inequalities (notes §4.5, §4.9)
// ---------------------------------------------------------------------------------------------

/// The measured quantities of a run that the summed descent inequalities take.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DescentInputs {
    /// T ≥ 1: number of steps (releases).
    pub steps_t: u64,
    /// `f(w_1) − f(w_{T+1})` (any finite real; noise can make it negative), or an upper bound on
    /// it such as `f(w_1) − f*`.
    pub loss_decrease: f64,
    /// The noise energy `≥ 0`: see each bound for which quantity it accepts (the measured mean
    /// `(1/T) Σ_t ‖Δ_t‖²`, or `α² = max_t ‖Δ_t‖²`, or a high-probability bound on it such as
    /// `(√p σ(1+μ))²`).
    pub noise_sq: f64,
}

impl DescentInputs {
    fn validate(&self) -> Result<(f64, f64, f64)> {
        let t = check::count("steps_t", self.steps_t)? as f64;
        let gap = finite("loss_decrease", self.loss_decrease)?;
        let a = check::non_negative("noise_sq", self.noise_sq)?;
        Ok((t, gap, a))
    }
}

/// The step parameters of DP-RMSProp / DP-Adam (Algorithm 1 with `D_t = √v_t + ν ∈ [ν, √λ + ν]`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AdaptiveStep {
    /// η > 0.
    pub step_size_eta: f64,
    /// ν > 0 (outside the square root).
    pub nu: f64,
    /// λ > 0, finite: the cap on `v_t` (the bounds use `√v_t + ν ≤ √λ + ν`).
    pub lambda: f64,
    /// L > 0: smoothness of f.
    pub smoothness_l: f64,
}

impl AdaptiveStep {
    fn validate(&self) -> Result<(f64, f64, f64, f64)> {
        Ok((
            check::positive("step_size_eta", self.step_size_eta)?,
            check::positive("nu", self.nu)?,
            check::positive("lambda", self.lambda)?,
            check::positive("smoothness_l", self.smoothness_l)?,
        ))
    }
}

/// \[ZCHWB\] eq. (22) (v?), DP-GD one step (notes §4.5): for L-smooth f and
/// `w_{t+1} = w_t − η(g_t + Δ_t)`,
/// `f(w_{t+1}) ≤ f(w_t) − (η/2 − Lη²)‖g_t‖² + (η/2 + Lη²)‖Δ_t‖²`. Returns the right side.
///
/// # Errors
/// `InvalidParameter` for `η ≤ 0`, `L ≤ 0`, a non-finite `f(w_t)`, or negative squared norms.
pub fn dp_gd_descent_step(
    step_size_eta: f64,
    smoothness_l: f64,
    f_wt: f64,
    grad_sq: f64,
    noise_sq: f64,
) -> Result<f64> {
    let eta = check::positive("step_size_eta", step_size_eta)?;
    let l = check::positive("smoothness_l", smoothness_l)?;
    let f = finite("f_wt", f_wt)?;
    let g2 = check::non_negative("grad_sq", grad_sq)?;
    let d2 = check::non_negative("noise_sq", noise_sq)?;
    Ok(f - (0.5 * eta - l * eta * eta) * g2 + (0.5 * eta + l * eta * eta) * d2)
}

/// \[ZCHWB\] eq. (26) (v?), DP-GD at `η = 1/(4L)` (notes §4.5), summed over `t = 1..T`:
///
/// ```text
/// (1/T) Σ_t ‖g_t‖² ≤ 16L (f(w_1) − f(w_{T+1}))/T + 3·noise_sq
/// ```
///
/// with `noise_sq` the measured `(1/T) Σ_t ‖Δ_t‖²` (the exact sum of eq. (22)) or any upper
/// bound on it (`α² = max_t ‖Δ_t‖²`, the theorem's `3α²`).
///
/// # Errors
/// `InvalidParameter` for `L ≤ 0` or invalid [`DescentInputs`].
pub fn dp_gd_descent_bound(smoothness_l: f64, inputs: &DescentInputs) -> Result<f64> {
    let l = check::positive("smoothness_l", smoothness_l)?;
    let (t, gap, a) = inputs.validate()?;
    Ok(16.0 * l * gap / t + 3.0 * a)
}

/// eq. (22) summed at a general step `0 < η < 1/(2L)`:
/// `(1/T) Σ ‖g_t‖² ≤ [(f(w_1) − f(w_{T+1}))/(ηT) + (1/2 + Lη)·noise_sq]/(1/2 − Lη)`, with
/// `noise_sq` as in [`dp_gd_descent_bound`]; equal to it at `η = 1/(4L)`.
///
/// # Errors
/// `InvalidParameter` for `η ∉ (0, 1/(2L))`, `L ≤ 0` or invalid [`DescentInputs`].
pub fn dp_gd_descent_bound_general_eta(step_size_eta: f64, smoothness_l: f64, inputs: &DescentInputs) -> Result<f64> {
    let eta = check::positive("step_size_eta", step_size_eta)?;
    let l = check::positive("smoothness_l", smoothness_l)?;
    let (t, gap, a) = inputs.validate()?;
    let c = 0.5 - l * eta;
    if c <= 0.0 {
        return Err(Error::invalid("step_size_eta", eta, "< 1/(2L) (the descent coefficient eta/2 - L eta^2 > 0)"));
    }
    Ok((gap / (eta * t) + (0.5 + l * eta) * a) / c)
}

/// `(√λ + ν)·[(f(w_1) − f(w_{T+1}))/(ηT) + 3·noise_sq/(4ν)]` after checking `Lη/ν ≤ 1/4`.
fn rmsprop_core(step: &AdaptiveStep, inputs: &DescentInputs) -> Result<f64> {
    let (eta, nu, lambda, l) = step.validate()?;
    let (t, gap, a) = inputs.validate()?;
    if l * eta / nu > 0.25 * (1.0 + CAP_SLACK) {
        return Err(Error::invalid("step_size_eta", eta, "<= nu/(4L) (DP-RMSProp, Theorem 3.2)"));
    }
    Ok((lambda.sqrt() + nu) * (gap / (eta * t) + 0.75 * a / nu))
}

/// \[ZCHWB\] eq. (30)–(35) (v?), DP-RMSProp with `Lη/ν ≤ 1/4`, **corrected** (erratum 2; notes
/// §4.5). From eq. (30), `f(w_{t+1}) ≤ f(w_t) − η‖g_t‖²/(4(√λ+ν)) + 3η‖Δ_t‖²/(4ν)`, so
///
/// ```text
/// (1/T) Σ_t ‖g_t‖² ≤ 4(√λ + ν)·[(f(w_1) − f(w_{T+1}))/(ηT) + 3·noise_sq/(4ν)]
/// ```
///
/// with `noise_sq` the measured `(1/T) Σ_t ‖Δ_t‖²` or an upper bound on it (`α²`).
///
/// # Errors
/// `InvalidParameter` for invalid inputs or `Lη/ν > 1/4` (beyond a 1e-12 relative slack).
pub fn rmsprop_descent_bound(step: &AdaptiveStep, inputs: &DescentInputs) -> Result<f64> {
    Ok(4.0 * rmsprop_core(step, inputs)?)
}

/// DP-RMSProp as printed in \[ZCHWB\] eq. (35) (v?): [`rmsprop_descent_bound`] without the factor
/// 4 (eq. (32) dropped a 1/4). It fails: `tests/descent_dpagd.rs` records runs of the real
/// optimiser where the left side exceeds it.
///
/// # Errors
/// As [`rmsprop_descent_bound`].
pub fn rmsprop_descent_bound_printed(step: &AdaptiveStep, inputs: &DescentInputs) -> Result<f64> {
    rmsprop_core(step, inputs)
}

/// `((√λ+ν)/(1−β1))·[2 gap/(ηT) + k·noise_sq/((1−β1)ν)]` after checking `η ≤ cap`.
fn adam_core(step: &AdaptiveStep, beta1: f64, inputs: &DescentInputs, k: f64, cap_x: f64) -> Result<f64> {
    let (eta, nu, lambda, l) = step.validate()?;
    let (t, gap, a) = inputs.validate()?;
    if l * eta / nu > cap_x * (1.0 + CAP_SLACK) {
        return Err(Error::invalid("step_size_eta", eta, "<= the DP-Adam cap x*(beta1) nu/L"));
    }
    let c = 1.0 - beta1;
    Ok((lambda.sqrt() + nu) / c * (2.0 * gap / (eta * t) + k * a / (c * nu)))
}

/// \[ZCHWB\] eq. (40)–(49) (v?), DP-Adam with `η ≤ x*(β1)ν/L` ([`adam_step_size_cap`]),
/// **corrected** (errata 1 and 3; notes §4.5):
///
/// ```text
/// (1/T) Σ_t ‖g_t‖² ≤ ((√λ + ν)/(1 − β1))·[2(f(w_1) − f(w_{T+1}))/(ηT) + 2α²/((1 − β1)ν)]
/// ```
///
/// with `noise_sq = α² ≥ max_t ‖Δ_t‖²` (the proof bounds every `‖Δ_t‖²` by α²; pass the
/// measured maximum or a high-probability bound).
///
/// # Errors
/// `InvalidParameter` for invalid inputs, `β1 ∉ [0, 1)`, or `η` above the corrected cap (beyond a
/// 1e-12 relative slack).
pub fn adam_descent_bound(step: &AdaptiveStep, beta1: f64, inputs: &DescentInputs) -> Result<f64> {
    let x = adam_step_cap_x(beta1)?;
    adam_core(step, beta1, inputs, 2.0, x)
}

/// DP-Adam as printed in \[ZCHWB\] eq. (49) (v?): `α²/((1 − β1)ν)` in place of `2α²/((1 − β1)ν)`,
/// with η up to the printed cap ([`adam_step_size_cap_printed`]).
///
/// # Errors
/// As [`adam_descent_bound`], with `β1 ∈ (0, 1)` and the printed cap.
pub fn adam_descent_bound_printed(step: &AdaptiveStep, beta1: f64, inputs: &DescentInputs) -> Result<f64> {
    let x = adam_step_cap_x_printed(beta1)?;
    adam_core(step, beta1, inputs, 1.0, x)
}

// ---------------------------------------------------------------------------------------------
// Lemma 2 (notes §4.6)
// ---------------------------------------------------------------------------------------------

/// \[ZCHWB\] Lemma 2 (v?): for `T ≥ 1`, `β1 ∈ [0, 1)` and vectors `b_1, …, b_{T−1}` (the slice
/// `b`, so `T = b.len() + 1`),
///
/// ```text
/// lhs = Σ_{t=1}^{T} Σ_{k=0}^{t−1} β1^k ‖Σ_{l=t−k}^{t−1} b_l‖²
/// rhs = (2β1/(1 − β1)³) Σ_{t=1}^{T−1} ‖b_t‖²
/// ```
///
/// (an empty inner sum, `k = 0`, is 0). `lhs ≤ rhs` since `‖Σ_{l} b_l‖² ≤ k Σ_l ‖b_l‖²` and each
/// `b_l` enters `k` terms of weight `β1^k`: `Σ_k k²β1^k = β1(1+β1)/(1−β1)³`. An empty `b` (T = 1)
/// gives `0 ≤ 0`.
///
/// # Errors
/// `InvalidParameter` for `β1 ∉ [0, 1)` or vectors of different lengths; `Empty` for vectors of
/// length 0; `NonFinite` for a non-finite entry.
pub fn lemma2_sides<R: AsRef<[f64]>>(b: &[R], beta1: f64) -> Result<Sides> {
    let beta1 = check_beta1(beta1)?;
    if b.is_empty() {
        return Ok(Sides { lhs: 0.0, rhs: 0.0 });
    }
    let p = b[0].as_ref().len();
    if p == 0 {
        return Err(Error::Empty { what: "b" });
    }
    for (i, v) in b.iter().enumerate() {
        let v = v.as_ref();
        if v.len() != p {
            return Err(Error::invalid(
                "b",
                format!("vector {i} of length {} (vector 0 has {p})", v.len()),
                "vectors of one length",
            ));
        }
        if let Some(j) = v.iter().position(|x| !x.is_finite()) {
            return Err(Error::NonFinite { what: "b", index: i * p + j });
        }
    }
    let tt = b.len() + 1;
    // prefix[l] = b_1 + … + b_l (prefix[0] = 0), so Σ_{l=t−k}^{t−1} b_l = prefix[t−1] − prefix[t−k−1].
    let mut prefix = vec![vec![0.0; p]; tt];
    for l in 1..tt {
        let (done, rest) = prefix.split_at_mut(l);
        for ((out, prev), x) in rest[0].iter_mut().zip(&done[l - 1]).zip(b[l - 1].as_ref()) {
            *out = prev + x;
        }
    }
    let mut lhs = 0.0;
    for t in 1..=tt {
        let mut weight = 1.0;
        for k in 0..t {
            if k > 0 {
                let (hi, lo) = (&prefix[t - 1], &prefix[t - k - 1]);
                lhs += weight * hi.iter().zip(lo).map(|(h, l)| (h - l) * (h - l)).sum::<f64>();
            }
            weight *= beta1;
        }
    }
    let energy: f64 = b.iter().map(|v| v.as_ref().iter().map(|x| x * x).sum::<f64>()).sum();
    let c = 1.0 - beta1;
    Ok(Sides { lhs, rhs: 2.0 * beta1 / (c * c * c) * energy })
}

// ---------------------------------------------------------------------------------------------
// Empirical-risk theorems (notes §4.7)
// ---------------------------------------------------------------------------------------------

/// Inputs of the empirical-risk bounds (Thm. 4, Thm. 5).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EmpiricalInputs {
    /// T ≥ 1.
    pub steps_t: u64,
    /// `f̂(w_1) − f* ≥ 0` (f* a lower bound of the empirical loss, `ℓ*` in A2).
    pub loss_gap: f64,
    /// p ≥ 1.
    pub dim_p: u64,
    /// σ ≥ 0: the noise std on the mean gradient.
    pub sigma: f64,
}

impl EmpiricalInputs {
    fn validate(&self) -> Result<(f64, f64, f64, f64)> {
        Ok((
            check::count("steps_t", self.steps_t)? as f64,
            check::non_negative("loss_gap", self.loss_gap)?,
            check::count("dim_p", self.dim_p)? as f64,
            check::non_negative("sigma", self.sigma)?,
        ))
    }
}

/// \[ZCHWB\] Thm. 4 (v?), DP-GD at `η = 1/L`, **corrected** (erratum 4; notes §4.7): per step
/// `E_t f̂(w_{t+1}) ≤ f̂(w_t) − ‖∇f̂(w_t)‖²/(2L) + pσ²/(2L)`, so
/// `(1/T) Σ_t E‖∇f̂(w_t)‖² ≤ 2L(f̂(w_1) − f*)/T + pσ²`.
///
/// # Errors
/// `InvalidParameter` for `L ≤ 0` or invalid [`EmpiricalInputs`].
pub fn dp_gd_empirical_bound(smoothness_l: f64, inputs: &EmpiricalInputs) -> Result<f64> {
    let l = check::positive("smoothness_l", smoothness_l)?;
    let (t, gap, p, s) = inputs.validate()?;
    Ok(2.0 * l * gap / t + p * s * s)
}

/// \[ZCHWB\] Thm. 4 eq. (56) as printed (v?): `L(f̂(w_1) − f*)/T + pσ²` (should be `2L`).
///
/// # Errors
/// As [`dp_gd_empirical_bound`].
pub fn dp_gd_empirical_bound_printed(smoothness_l: f64, inputs: &EmpiricalInputs) -> Result<f64> {
    let l = check::positive("smoothness_l", smoothness_l)?;
    let (t, gap, p, s) = inputs.validate()?;
    Ok(l * gap / t + p * s * s)
}

/// `4(√(β2λ) + ν)·[gap/(ηT) + noise]` after checking Thm. 5's hypotheses.
fn rmsprop_empirical_core(
    step: &AdaptiveStep,
    beta2: f64,
    gradient_bound_g: f64,
    inputs: &EmpiricalInputs,
    noise: impl Fn(f64, f64, f64) -> f64,
) -> Result<f64> {
    let (eta, nu, lambda, l) = step.validate()?;
    let b2 = check::open_unit("beta2", beta2)?;
    let g = check::positive("gradient_bound_g", gradient_bound_g)?;
    let (t, gap, p, s) = inputs.validate()?;
    if l * eta / nu > 0.5 * (1.0 + CAP_SLACK) {
        return Err(Error::invalid("step_size_eta", eta, "<= nu/(2L) (Theorem 5)"));
    }
    if 1.0 - b2 > nu * nu / (16.0 * g * g) * (1.0 + CAP_SLACK) {
        return Err(Error::invalid("beta2", b2, "with 1 - beta2 <= nu^2/(16 G^2) (Theorem 5)"));
    }
    Ok(4.0 * ((b2 * lambda).sqrt() + nu) * (gap / (eta * t) + noise(p, s, nu)))
}

/// \[ZCHWB\] Thm. 5 (v?), DP-RMSProp empirical bound, **corrected** (notes §4.7): under
/// `η ≤ ν/(2L)` and `1 − β2 ≤ ν²/(16G²)`,
/// `(1/T) Σ_t E‖∇f̂(w_t)‖² ≤ 4(√(β2λ) + ν)·[(f̂(w_1) − f*)/(ηT) + pσ²/(2ν)]`.
/// The proof uses `v_t − β2 v_{t−1} = (1−β2) g̃_t²`, valid only while the λ-cap is inactive
/// (erratum 6): check it with `λ ≥ max_t ψ_t`.
///
/// # Errors
/// `InvalidParameter` for invalid inputs or a violated hypothesis (1e-12 relative slack).
pub fn rmsprop_empirical_bound(
    step: &AdaptiveStep,
    beta2: f64,
    gradient_bound_g: f64,
    inputs: &EmpiricalInputs,
) -> Result<f64> {
    rmsprop_empirical_core(step, beta2, gradient_bound_g, inputs, |p, s, nu| p * s * s / (2.0 * nu))
}

/// \[ZCHWB\] Thm. 5 eq. (63) as printed (v?): the last term `2pσ²` in place of `pσ²/(2ν)`.
///
/// # Errors
/// As [`rmsprop_empirical_bound`].
pub fn rmsprop_empirical_bound_printed(
    step: &AdaptiveStep,
    beta2: f64,
    gradient_bound_g: f64,
    inputs: &EmpiricalInputs,
) -> Result<f64> {
    rmsprop_empirical_core(step, beta2, gradient_bound_g, inputs, |p, s, _| 2.0 * p * s * s)
}

// ---------------------------------------------------------------------------------------------
// Theorem 3 rates (O(1) := 1, trend only) and Theorem 12
// ---------------------------------------------------------------------------------------------

/// The quantities of Thm. 3's printed rates.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RateInputs {
    /// G > 0.
    pub gradient_bound_g: f64,
    /// p ≥ 1.
    pub dim_p: u64,
    /// n ≥ 1.
    pub dataset_size_n: u64,
    /// ε > 0.
    pub epsilon: f64,
    /// δ ∈ (0, 1).
    pub delta: f64,
    /// β ∈ (0, 1): the failure probability.
    pub beta: f64,
}

impl RateInputs {
    fn validate(&self) -> Result<(f64, f64, f64, f64, f64, f64)> {
        Ok((
            check::positive("gradient_bound_g", self.gradient_bound_g)?,
            check::count("dim_p", self.dim_p)? as f64,
            check::count("dataset_size_n", self.dataset_size_n)? as f64,
            check::positive("epsilon", self.epsilon)?,
            ln_inv_delta(self.delta)?,
            check::open_unit("beta", self.beta)?,
        ))
    }
}

fn log_factor(arg: f64) -> Result<f64> {
    if arg > 1.0 {
        Ok(arg.ln())
    } else {
        Err(Error::invalid("log argument", arg, "> 1 (the rate's logarithm must be positive)"))
    }
}

/// \[ZCHWB\] Thm. 3.1 (v?) (DP-GD) as printed, `O(1) = 1` — **trend use only**:
/// `G √(pL ln(1/δ))·ln(npε/β)/(nε)`.
///
/// # Errors
/// `InvalidParameter` for invalid inputs, `L ≤ 0`, or `npε/β ≤ 1`.
pub fn dp_gd_rate_unit_constant(smoothness_l: f64, inputs: &RateInputs) -> Result<f64> {
    let l = check::positive("smoothness_l", smoothness_l)?;
    let (g, p, n, e, ld, b) = inputs.validate()?;
    Ok(g * (p * l * ld).sqrt() * log_factor(n * p * e / b)? / (n * e))
}

/// \[ZCHWB\] Thm. 3.2–3.3 (v?) (DP-RMSProp, DP-Adam) as printed, `O(1) = 1` — **trend use only**:
/// `G √(p ln(1/δ))·ln(n√p ε/β)/(nε)`.
///
/// # Errors
/// `InvalidParameter` for invalid inputs or `n√p ε/β ≤ 1`.
pub fn adaptive_rate_unit_constant(inputs: &RateInputs) -> Result<f64> {
    let (g, p, n, e, ld, b) = inputs.validate()?;
    Ok(g * (p * ld).sqrt() * log_factor(n * p.sqrt() * e / b)? / (n * e))
}

/// The constant of \[ZCHWB\] Thm. 12 (v?) (notes §4.8): `c = σ_min/(2√20)`, from
/// `‖μ − z̄‖ > ((p/20)(σ_min/(2√n))²)^{1/2}`. `σ_min = √(2/9)` (all `μ_j ∈ [1/3, 2/3]`) gives
/// 0.0527; `σ_min = 1/2` (all `μ_j = 1/2`) gives 0.0559.
///
/// # Errors
/// `InvalidParameter` for `σ_min ≤ 0` or `σ_min > 1/2` (a Bernoulli std is at most 1/2).
pub fn uniform_convergence_lower_bound_constant(sigma_min: f64) -> Result<f64> {
    let s = check::positive("sigma_min", sigma_min)?;
    if s > 0.5 {
        return Err(Error::invalid("sigma_min", s, "<= 1/2 (a Bernoulli standard deviation)"));
    }
    Ok(s / (2.0 * 20f64.sqrt()))
}

/// \[ZCHWB\] Thm. 12 (v?): with constant probability (for large p and n),
/// `sup_w ‖ĝ(w) − g(w)‖ = ‖μ − z̄‖ > c·√(p/n)`, `c` from
/// [`uniform_convergence_lower_bound_constant`].
///
/// # Errors
/// As [`uniform_convergence_lower_bound_constant`]; `InvalidParameter` for `p = 0` or `n = 0`.
pub fn uniform_convergence_lower_bound(dim_p: u64, dataset_size_n: u64, sigma_min: f64) -> Result<f64> {
    let p = check::count("dim_p", dim_p)? as f64;
    let n = check::count("dataset_size_n", dataset_size_n)? as f64;
    Ok(uniform_convergence_lower_bound_constant(sigma_min)? * (p / n).sqrt())
}
