//! The privacy calibration of \[ZCHWB\]'s full-batch methods (derived in `proofs/dpagd/dp_gd.md` §3): sensitivity, zCDP, exact
//! GDP and RDP of T Gaussian releases, and Thm. 1's eq. (6) with its constant made explicit.
//!
//! **From [`crate::accounting`]:**
//! - the relation's sensitivity factor ([`Neighbouring::sum_sensitivity_factor`]);
//! - the Gaussian's ρ = `1/(2s²)` ([`zcdp::gaussian_rho`], rounded up by one ulp), in
//!   [`zcdp_rho_full_batch`] and as the RDP slope of the two `rdp_*` functions;
//! - the GDP curve of [`gdp_delta`] ([`gdp::delta_for_epsilon`]) and the multiplier behind
//!   [`gdp_mu_max`] and [`gdp_sigma_full_batch`] ([`gaussian::noise_multiplier_for`]).
//!
//! **Kept as closed forms, and why:**
//! - [`zcdp_epsilon_classic`] is the classic Bun–Steinke conversion the calibration of `proofs/dpagd/dp_gd.md` §3 uses; the
//!   accountant has only the optimal one, [`zcdp::epsilon_for_delta`], which is never larger;
//! - [`zcdp_sufficient_sigma`], [`sigma_eq6`] and [`c2_sufficient_zcdp`] are that calibration and
//!   the paper's eq. (6), which no accountant function states;
//! - [`gdp_mu_full_batch`] is the exact `√TΔ/σ`, unrounded: the round trip with
//!   [`gdp_sigma_full_batch`] needs `μ(σ) ≤ μ_max` to the last bit, while
//!   [`gdp::mu_of_gaussian_composition`] (the same formula) rounds up by a few ulps;
//! - [`rdp_epsilon_full_batch_continuous`] and [`rdp_epsilon_full_batch_integer`] minimise the
//!   classic conversion over all orders `α > 1` (all integers `α ≥ 2`); the accountant's grid
//!   stops at [`MAX_ORDER`](crate::accounting::rdp::MAX_ORDER).

use super::DpSetting;
use super::validate::{finite_result, ln_inv_delta};
use crate::accounting::Neighbouring;
use crate::accounting::{gaussian, gdp, zcdp};
use crate::error::{Result, check};

/// ℓ2-sensitivity `Δ` of the full-batch mean `(1/n) Σ_{z∈S} ∇ℓ(w, z)` of per-example gradients of
/// norm `≤ G` (`proofs/dpagd/dp_gd.md` §3): `Δ = G/n` under add/remove (n the public normaliser) and `Δ = 2G/n`
/// under replace-one (the paper's Definition 1).
///
/// # Errors
/// `InvalidParameter` for `G ≤ 0` (NaN, ∞ included) or `n = 0`.
pub fn full_batch_sensitivity(gradient_bound_g: f64, dataset_size_n: u64, neighbouring: Neighbouring) -> Result<f64> {
    let g = check::positive("gradient_bound_g", gradient_bound_g)?;
    let n = check::count("dataset_size_n", dataset_size_n)? as f64;
    finite_result("full_batch_sensitivity", neighbouring.sum_sensitivity_factor() * g / n)
}

/// ρ of T full-batch Gaussian releases (`proofs/dpagd/dp_gd.md` §3): each is `Δ²/(2σ²)`-zCDP, so
/// `ρ = TΔ²/(2σ²)`. The per-release ρ is the accountant's [`zcdp::gaussian_rho`] at the
/// multiplier `σ/Δ` (rounded up by one ulp).
///
/// # Errors
/// `InvalidParameter` for `T = 0`, `Δ ≤ 0` or `σ ≤ 0`.
pub fn zcdp_rho_full_batch(steps_t: u64, sensitivity: f64, sigma: f64) -> Result<f64> {
    let t = check::count("steps_t", steps_t)? as f64;
    let d = check::positive("sensitivity", sensitivity)?;
    let s = check::positive("sigma", sigma)?;
    finite_result("zcdp_rho_full_batch", t * zcdp::gaussian_rho(s / d)?)
}

/// The classic ρ-zCDP → (ε, δ) conversion (Bun–Steinke 2016, Prop. 1.3):
/// `ε = ρ + 2√(ρ ln(1/δ))`. An upper bound; the optimal conversion is
/// [`crate::accounting::zcdp::epsilon_for_delta`].
///
/// # Errors
/// `InvalidParameter` for `ρ < 0` or `δ ∉ (0, 1)`.
pub fn zcdp_epsilon_classic(rho: f64, delta: f64) -> Result<f64> {
    let rho = check::non_negative("rho", rho)?;
    let l = ln_inv_delta(delta)?;
    // 2√ρ·√l, each root raised one ulp, and the sum raised one more: an upper bound even where ρ·l
    // would underflow (ρ subnormal: √(ρ·l) read 0 and ε = ρ = 5e-324 at ρ = 5e-324, δ = 0.9)
    let root = (rho.sqrt().next_up() * l.sqrt().next_up()).next_up();
    finite_result("zcdp_epsilon_classic", (rho + 2.0 * root).next_up())
}

/// A σ sufficient for (ε, δ)-DP of T full-batch releases via zCDP (`proofs/dpagd/dp_gd.md` §3):
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
    finite_result("zcdp_sufficient_sigma", d * (2.0 * t * (l + e)).sqrt() / e)
}

/// μ of T adaptive full-batch Gaussian releases (Dong–Roth–Su 2019, Cor. 3.3): exactly μ-GDP with
/// `μ = √T Δ/σ` (tight for full batch).
///
/// # Errors
/// `InvalidParameter` for `T = 0`, `Δ ≤ 0` or `σ ≤ 0`.
pub fn gdp_mu_full_batch(steps_t: u64, sensitivity: f64, sigma: f64) -> Result<f64> {
    let t = check::count("steps_t", steps_t)? as f64;
    let d = check::positive("sensitivity", sensitivity)?;
    let s = check::positive("sigma", sigma)?;
    finite_result("gdp_mu_full_batch", t.sqrt() * d / s)
}

/// `δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2)` of μ-GDP (Dong–Roth–Su 2019, Cor. 2.13); evaluated by
/// [`crate::accounting::gdp::delta_for_epsilon`] (rounded up).
///
/// # Errors
/// `InvalidParameter` for `μ ≤ 0` or `ε < 0`.
pub fn gdp_delta(mu: f64, epsilon: f64) -> Result<f64> {
    gdp::delta_for_epsilon(mu, epsilon)
}

/// The largest μ with `δ(ε; μ) ≤ δ`, as `1/z` for the smallest Gaussian
/// multiplier `z` of [`crate::accounting::gaussian::noise_multiplier_for`] (which rounds `z` up,
/// so μ is rounded down: the safe side).
///
/// # Errors
/// `InvalidParameter` for `ε ≤ 0` or `δ ∉ (0, 1)`; `Numerical` if no root is bracketed.
pub fn gdp_mu_max(epsilon: f64, delta: f64) -> Result<f64> {
    let z = gaussian::noise_multiplier_for(epsilon, delta)?;
    finite_result("gdp_mu_max", (1.0 / z).next_down())
}

/// The exact-GDP calibration (`proofs/dpagd/dp_gd.md` §3): `σ = √T Δ/μ_max(ε, δ)`, rounded up; then
/// [`gdp_mu_full_batch`] at this σ is at most [`gdp_mu_max`].
///
/// # Errors
/// As [`gdp_mu_full_batch`] and [`gdp_mu_max`].
pub fn gdp_sigma_full_batch(steps_t: u64, sensitivity: f64, epsilon: f64, delta: f64) -> Result<f64> {
    let t = check::count("steps_t", steps_t)? as f64;
    let d = check::positive("sensitivity", sensitivity)?;
    let mu = gdp_mu_max(epsilon, delta)?;
    finite_result("gdp_sigma_full_batch", (t.sqrt() * d / mu).next_up())
}

/// RDP of T full-batch Gaussian releases with multiplier `s = σ/Δ` (Mironov 2017, Props. 1, 3 and 7),
/// `ε_α = Tα/(2s²)`, converted with the classic rule and the order optimised over continuous
/// `α > 1`: with `r = T/(2s²)`, `ε = min_α [rα + ln(1/δ)/(α − 1)] = r + 2√(r ln(1/δ))`, equal to
/// the zCDP value at `ρ = r`. The slope `r` is `T` times the accountant's [`zcdp::gaussian_rho`]
/// at `s` (the Gaussian's RDP is `αρ`; rounded up by one ulp).
///
/// # Errors
/// `InvalidParameter` for `s ≤ 0`, `T = 0` or `δ ∉ (0, 1)`.
pub fn rdp_epsilon_full_batch_continuous(noise_multiplier_s: f64, steps_t: u64, delta: f64) -> Result<f64> {
    let s = check::positive("noise_multiplier_s", noise_multiplier_s)?;
    let t = check::count("steps_t", steps_t)? as f64;
    zcdp_epsilon_classic(t * zcdp::gaussian_rho(s)?, delta)
}

/// As [`rdp_epsilon_full_batch_continuous`] with integer orders `α ≥ 2`:
/// `ε = min_{α∈{2,3,…}} [Tα/(2s²) + ln(1/δ)/(α − 1)]`, with the same slope `T/(2s²)` (from
/// [`zcdp::gaussian_rho`]). The objective is convex in α with its real minimum at
/// `α* = 1 + √(ln(1/δ)/(T/(2s²)))`, so the integer minimum is at `⌊α*⌋` or `⌈α*⌉` (at least 2).
///
/// # Errors
/// As [`rdp_epsilon_full_batch_continuous`].
pub fn rdp_epsilon_full_batch_integer(noise_multiplier_s: f64, steps_t: u64, delta: f64) -> Result<f64> {
    let s = check::positive("noise_multiplier_s", noise_multiplier_s)?;
    let t = check::count("steps_t", steps_t)? as f64;
    let l = ln_inv_delta(delta)?;
    let r = t * zcdp::gaussian_rho(s)?;
    let objective = |a: f64| r * a + l / (a - 1.0);
    // √l/√r: l/r overflows for a subnormal r; capped in case r were 0 (every order is valid)
    let a_star = (1.0 + l.sqrt() / r.sqrt()).min(1e300);
    let best = objective(a_star.floor().max(2.0)).min(objective(a_star.ceil().max(2.0)));
    finite_result("rdp_epsilon_full_batch_integer", best)
}

/// \[ZCHWB\] Thm. 1, eq. (6) with its constant made explicit:
/// `σ = (c2 G² T ln(1/δ)/(n² ε²))^{1/2}`. The paper never gives `c2`; [`c2_sufficient_zcdp`]
/// gives one that makes (6) sufficient (erratum Z9).
///
/// # Errors
/// `InvalidParameter` for `c2 ≤ 0`, `G ≤ 0` or `T = 0`.
pub fn sigma_eq6(setting: &DpSetting, c2: f64, gradient_bound_g: f64, steps_t: u64) -> Result<f64> {
    let c2 = check::positive("c2", c2)?;
    let g = check::positive("gradient_bound_g", gradient_bound_g)?;
    let t = check::count("steps_t", steps_t)? as f64;
    let n = setting.dataset_size_n() as f64;
    let l = -setting.delta().ln();
    finite_result("sigma_eq6", g * (c2 * t * l).sqrt() / (n * setting.epsilon()))
}

/// The `c2` that makes eq. (6) sufficient by the zCDP calibration (`proofs/dpagd/dp_gd.md` §3; erratum Z9):
/// (6) dominates [`zcdp_sufficient_sigma`] with `Δ = fG/n` iff
/// `c2 ≥ 2f²(ln(1/δ) + ε)/ln(1/δ)`, where `f = 2` (replace-one) or `1` (add/remove). For
/// `ε ≤ ln(1/δ)` this is at most 16 (replace-one) or 4 (add/remove).
///
/// # Errors
/// `InvalidParameter` for `ε ≤ 0` or `δ ∉ (0, 1)`.
pub fn c2_sufficient_zcdp(epsilon: f64, delta: f64, neighbouring: Neighbouring) -> Result<f64> {
    let e = check::positive("epsilon", epsilon)?;
    let l = ln_inv_delta(delta)?;
    let f = neighbouring.sum_sensitivity_factor();
    finite_result("c2_sufficient_zcdp", 2.0 * f * f * (1.0 + e / l))
}
