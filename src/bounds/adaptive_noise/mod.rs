//! Bounds of \[ADFJT\] — Asi, Duchi, Fallah, Javidi, Talwar, "Private Adaptive Gradient Methods for
//! Convex Optimization", ICML 2021 (bibliography: `proofs/README.md`). Result, equation and
//! algorithm numbers are those of that version.
//!
//! Every formula below is a function, and the `tests/bounds_adaptive_noise*.rs` files evaluate
//! each one. Symbols: `D₂ = diam₂(X)`, `D∞ = diam∞(X)`, `D_{C⁻¹} = diam_{‖·‖_{C⁻¹}}(X)`,
//! `‖x‖_C = (Σⱼ Cⱼⱼ xⱼ²)^{1/2}` for the diagonal `C ≻ 0` (`ellipsoid_c`), `B` the clip radius
//! (`A = C/B²`), `s` the noise standard deviation on the *averaged* clipped gradient in whitened
//! coordinates (corrected, `s = √log(1/δ)/(bε)`; erratum E1), `log` the natural logarithm.
//!
//! # Results
//!
//! Each result of the paper, the functions that evaluate it (corrected or exact; as printed where
//! the printed form differs), and the file under `src/bounds/adaptive_noise/` that holds them.
//!
//! | result | corrected / exact | as printed | file | kind |
//! |---|---|---|---|---|
//! | diameters of a box / an l2 ball | [`box_diameters`], [`l2_ball_diameters`] | — | `diameters.rs` | exact |
//! | `tr(C⁻¹)`, `tr(C^{−1/2})` | [`trace_c_inv`], [`trace_c_inv_sqrt`] | — | `diameters.rs` | exact |
//! | `G(z;C) = ‖z‖_C` (Sec. 4.1), `Ĝ_p(S;C)` (eq. 4) | [`glm_gradient_bound_g`], [`glm_gradient_bounds`], [`empirical_moment_g_hat`] | — | `clipping_bias.rs` | exact |
//! | Lemma B.1: radial clipping bias and its bound | [`radial_clipping_bias`] (of [`glm_gradient_bounds`] for a GLM), [`radial_clipping_bias_bound`] (`p > 1`, erratum E7) | — | `clipping_bias.rs` | exact / bound |
//! | Lemma B.2 | [`lemma_b2_sides`] ([`Sides`]) | — | `lemma_b2.rs` | both sides |
//! | Thm. 6 core (R-SGD) | [`adagrad_norm_sgd_pathwise_regret`] (`bound_corrected`) | the same, `bound_printed` | `regret.rs` | pathwise |
//! | Thm. 7 core (R-ADA) | [`diagonal_adagrad_pathwise_regret`] (`bound_corrected`, erratum E3) | the same, `bound_printed` | `regret.rs` | pathwise |
//! | Thm. 8 (PASAN) | [`pasan_bound_explicit`] ([`PasanExplicitInputs`]) | [`pasan_rate_printed_unit_constant`] | `pasan.rs` | upper bound / trend only |
//! | Thm. 1 (PASAN, tuned B) | [`pasan_tuned_clip_radius`] | [`pasan_tuned_rate_printed_unit_constant`] | `pasan.rs` | exact / trend only |
//! | Thm. 9 (PAGAN; printed "Algorithm 1", erratum E6) | [`pagan_bound_explicit`] ([`PaganExplicitInputs`]) | [`pagan_rate_printed_unit_constant`] | `pagan.rs` | upper bound / trend only |
//! | Thm. 2 (PAGAN, tuned B) | [`pagan_tuned_clip_radius`] | [`pagan_tuned_rate_printed_unit_constant`] | `pagan.rs` | exact / trend only |
//! | the terms of Thms. 1, 2, 8, 9 | [`ExplicitBound`], [`ExplicitCommon`], [`RateSetting`], [`RateRun`], [`RateTerms`], [`TunedRateTerms`] | — | `terms.rs` | types |
//! | noise energy, eq. (17) | [`noise_energy_gap`], [`noise_energy_gap_from_a`] | — | `noise_energy.rs` | exact |
//! | Hölder chain (Sec. 3.2) | [`holder_chain`] ([`HolderChain`]) | — | `holder_chain.rs` | exact |
//! | Thm. 3: `T_est`, accuracy band, `Ĉ` (erratum E17) | [`second_moment_rounds`], [`second_moment_band`], [`second_moment_estimates_in_band`], [`c_hat_from_sigma_hat`] | [`second_moment_band_printed`] | `second_moment.rs` | exact / checker |
//! | Thms. 4, 5 lower bounds, Thm. 4 reduction (Prop. 1) | [`linf_box_lower_bound`], [`l2_ball_lower_bound`], [`linear_box_excess`], [`sign_error`] | — | `lower_bounds.rs` | explicit forms |
//!
//! Input checks shared by these files are in `validate.rs`.
//!
//! Errata followed here (the \[ADFJT\] register E1–E21 in `proofs/adaptive_noise/pasan.md` §5):
//! E1 (noise scale), E3 (Thm. 7 constant: `D∞²/(2α) + α`, i.e.
//! `3/2·D∞` at `α = D∞`, instead of the printed `1·D∞`), E5 (first terms in `g̃`), E6 (Thm. 9 is
//! about Alg. 2), E7 (`p > 1`), E17 (exponents of `Ĉ`); and one found while writing this module:
//! the upper end of eq. (8) cannot hold below the floor `2^{−T_est}` (see [`second_moment_band`]).
//!
//! **Accounting.** No function here computes a privacy guarantee. The `√log(1/δ)/(nε)` factors of
//! the printed rates (Thms. 1, 2, 8, 9) are the paper's `O(·)` expressions, kept as printed for
//! comparison; the noise the algorithms run with is calibrated by [`crate::accounting`].

mod clipping_bias;
mod diameters;
mod holder_chain;
mod lemma_b2;
mod lower_bounds;
mod noise_energy;
mod pagan;
mod pasan;
mod regret;
mod second_moment;
mod terms;
mod validate;

pub use clipping_bias::{
    empirical_moment_g_hat, glm_gradient_bound_g, glm_gradient_bounds, radial_clipping_bias, radial_clipping_bias_bound,
};
pub use diameters::{Diameters, box_diameters, l2_ball_diameters, trace_c_inv, trace_c_inv_sqrt};
pub use holder_chain::{HolderChain, holder_chain};
pub use lemma_b2::{Sides, lemma_b2_sides};
pub use lower_bounds::{l2_ball_lower_bound, linear_box_excess, linf_box_lower_bound, sign_error};
pub use noise_energy::{noise_energy_gap, noise_energy_gap_from_a};
pub use pagan::{
    PaganExplicitInputs, pagan_bound_explicit, pagan_rate_printed_unit_constant, pagan_tuned_clip_radius,
    pagan_tuned_rate_printed_unit_constant,
};
pub use pasan::{
    PasanExplicitInputs, pasan_bound_explicit, pasan_rate_printed_unit_constant, pasan_tuned_clip_radius,
    pasan_tuned_rate_printed_unit_constant,
};
pub use regret::{PathwiseRegret, adagrad_norm_sgd_pathwise_regret, diagonal_adagrad_pathwise_regret};
pub use second_moment::{
    SECOND_MOMENT_UPPER_FACTOR, SECOND_MOMENT_UPPER_FACTOR_PRINTED, c_hat_from_sigma_hat, second_moment_band,
    second_moment_band_printed, second_moment_estimates_in_band, second_moment_rounds,
};
pub use terms::{ExplicitBound, ExplicitCommon, RateRun, RateSetting, RateTerms, TunedRateTerms};
