//! Bounds of \[ZCHWB\] — Zhou, Chen, Hong, Wu, Banerjee, "Private Stochastic Non-Convex
//! Optimization: Adaptive Algorithms and Tighter Generalization Bounds", arXiv 2006.13501
//! (bibliography: `proofs/README.md`); result and equation numbers are those of that text.
//!
//! Every formula below is a function, and `tests/bounds_dpagd.rs` evaluates each one;
//! `tests/descent_dpagd.rs` measures the real optimiser ([`crate::optim::dpagd::algorithm1`])
//! against the deterministic descent inequalities. Symbols (the paper's Sec. 3): `p` dimension, `n` sample
//! size, `T` iterations, `G` gradient bound (A1), `L` smoothness (A2), `σ` the *absolute* noise
//! std on the mean gradient, `g_t = ∇f(w_t)` (population), `g̃_t` the released noisy gradient,
//! `Δ_t = g̃_t − g_t`, `ln` the natural logarithm.
//!
//! # Results
//!
//! Each result of the paper (or of the privacy calibration of `proofs/dpagd/dp_gd.md` §3), the functions that evaluate it
//! (corrected or exact; as printed where the printed form differs), and the file under
//! `src/bounds/dpagd/` that holds them.
//!
//! | result | corrected / exact | as printed | file | kind |
//! |---|---|---|---|---|
//! | sensitivity of the full-batch mean (`dp_gd.md` §3) | [`full_batch_sensitivity`] | — | `privacy.rs` | exact |
//! | zCDP calibration (`dp_gd.md` §3) | [`zcdp_rho_full_batch`], [`zcdp_epsilon_classic`], [`zcdp_sufficient_sigma`] | — | `privacy.rs` | exact / sufficient |
//! | exact GDP (`dp_gd.md` §3) | [`gdp_mu_full_batch`], [`gdp_delta`], [`gdp_mu_max`], [`gdp_sigma_full_batch`] | — | `privacy.rs` | exact |
//! | RDP, full batch (`dp_gd.md` §3) | [`rdp_epsilon_full_batch_continuous`], [`rdp_epsilon_full_batch_integer`] | — | `privacy.rs` | upper bound on ε |
//! | Thm. 1, eq. (6), and its constant (erratum Z9) | [`sigma_eq6`] ([`DpSetting`]) with [`c2_sufficient_zcdp`] | — | `privacy.rs` | sufficient |
//! | Lemma 1 conditions (App. A); for gradients, the `[0,1]` rescale by `2G` (erratum Z10) | [`lemma1_conditions`] (`[0,1]` queries), [`lemma1_conditions_gradient`] ([`DpSetting`], [`Lemma1Conditions`]) | the paper's use: [`lemma1_conditions`] at `τ = τ_grad` | `deviation.rs` | checker |
//! | Thm. 2/7 (Sec. 4.1, App. B; erratum Z11) | [`noisy_gradient_deviation_radius`], [`noisy_gradient_deviation_probability`], [`lemma1_conditions_gradient`] at `(σ, 2e^{−μ²/2}, G)` (the `2G` rescale of Z10), [`mu_for_failure_probability`] | [`theorem2_conditions`] (at `τ = σ`, no rescale) | `deviation.rs` | tail bound / checker |
//! | Lemma 3 (App. C.3) | [`noise_norm_radius_lemma3`], [`noise_norm_probability_lemma3`], [`mu_for_failure_probability_empirical`] | — | `deviation.rs` | tail bound |
//! | step sizes of Thm. 3.1, 3.2 (Sec. 4.2) | [`dp_gd_step_size`], [`rmsprop_step_size_cap`] | — | `step_size.rs` | exact |
//! | DP-Adam step cap of Thm. 3.3 (Sec. 4.2; erratum Z1) | [`adam_step_cap_x`], [`adam_step_size_cap`], [`adam_cap_quadratic`] | [`adam_step_cap_x_printed`], [`adam_step_size_cap_printed`] | `step_size.rs` | exact |
//! | DP-GD descent, eq. (22)–(26) | [`dp_gd_descent_step`], [`dp_gd_descent_bound`], [`dp_gd_descent_bound_general_eta`] ([`GdStep`], [`DescentInputs`]) | — | `descent.rs` | deterministic, given Δ_t |
//! | DP-RMSProp descent, eq. (30)–(35) (erratum Z2) | [`rmsprop_descent_bound`] ([`AdaptiveStep`]) | [`rmsprop_descent_bound_printed`] | `descent.rs` | deterministic |
//! | DP-Adam descent, eq. (40)–(49) (erratum Z3) | [`adam_descent_bound`] | [`adam_descent_bound_printed`] | `descent.rs` | deterministic |
//! | Lemma 2 (App. B.3) | [`lemma2_sides`] ([`Sides`]) | — | `lemma2.rs` | both sides |
//! | Thm. 4 (Sec. 5, App. C.1; erratum Z4) | [`dp_gd_empirical_bound`] ([`EmpiricalInputs`]) | [`dp_gd_empirical_bound_printed`] | `empirical.rs` | expectation bound |
//! | Thm. 5 (Sec. 5, App. C.2) | [`rmsprop_empirical_bound`] | [`rmsprop_empirical_bound_printed`] | `empirical.rs` | expectation bound |
//! | Thm. 3 `O(·)` with `O(1) = 1` | — | [`dp_gd_rate_unit_constant`], [`adaptive_rate_unit_constant`] ([`RateInputs`]) | `rates.rs` | trend only |
//! | Thm. 12 (App. D) | [`uniform_convergence_lower_bound_constant`], [`uniform_convergence_lower_bound`] | — | `uniform_convergence.rs` | lower bound |
//!
//! Input checks shared by these files are in `validate.rs`. Which privacy quantities come from
//! [`crate::accounting`] and which are kept as closed forms is said in `privacy.rs` and in the
//! docs of its functions.
//!
//! Errata followed here (the \[ZCHWB\] register Z1–Z14 in `proofs/dpagd/dp_gd.md` §5):
//! Z1 (Adam cap: `1/4`, not `1/2`, under the root), Z2 (RMSProp
//! eq. (35) misses a factor 4), Z3 (Adam eq. (43)/(49): `2α²`, not `α²`), Z4 (DP-GD `η = 1/(4L)`;
//! Thm. 4 constant `2L`), Z9 (Thm. 1's `c2` made explicit via zCDP), Z10 (Lemma 1 needs `[0,1]`
//! queries: rescale by `2G`), Z11 (Thm. 2's conditions). Thm. 5's noise term is `pσ²/(2ν)`
//! (`proofs/dpagd/dp_rmsprop.md` §5, T5).

mod descent;
mod deviation;
mod empirical;
mod lemma2;
mod privacy;
mod rates;
mod setting;
mod step_size;
mod uniform_convergence;
mod validate;

pub use super::adaptive_noise::Sides;
pub use descent::{
    AdaptiveStep, DescentInputs, GdStep, adam_descent_bound, adam_descent_bound_printed, dp_gd_descent_bound,
    dp_gd_descent_bound_general_eta, dp_gd_descent_step, rmsprop_descent_bound, rmsprop_descent_bound_printed,
};
pub use deviation::{
    Lemma1Conditions, lemma1_conditions, lemma1_conditions_gradient, mu_for_failure_probability,
    mu_for_failure_probability_empirical, noise_norm_probability_lemma3, noise_norm_radius_lemma3,
    noisy_gradient_deviation_probability, noisy_gradient_deviation_radius, theorem2_conditions,
};
pub use empirical::{
    EmpiricalInputs, dp_gd_empirical_bound, dp_gd_empirical_bound_printed, rmsprop_empirical_bound,
    rmsprop_empirical_bound_printed,
};
pub use lemma2::lemma2_sides;
pub use privacy::{
    c2_sufficient_zcdp, full_batch_sensitivity, gdp_delta, gdp_mu_full_batch, gdp_mu_max, gdp_sigma_full_batch,
    rdp_epsilon_full_batch_continuous, rdp_epsilon_full_batch_integer, sigma_eq6, zcdp_epsilon_classic,
    zcdp_rho_full_batch, zcdp_sufficient_sigma,
};
pub use rates::{RateInputs, adaptive_rate_unit_constant, dp_gd_rate_unit_constant};
pub use setting::DpSetting;
pub use step_size::{
    adam_cap_quadratic, adam_step_cap_x, adam_step_cap_x_printed, adam_step_size_cap, adam_step_size_cap_printed,
    dp_gd_step_size, rmsprop_step_size_cap,
};
pub use uniform_convergence::{uniform_convergence_lower_bound, uniform_convergence_lower_bound_constant};
