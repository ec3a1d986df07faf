//! Bounds of \[AFKT\] — Asi, Feldman, Koren, Talwar, "Private Stochastic Convex Optimization:
//! Optimal Rates in l1 Geometry", ICML 2021, arXiv 2103.01516 (bibliography: `proofs/README.md`);
//! result, algorithm and section numbers are those of that version.
//!
//! Symbols: n samples, d dimension, m vertices of X (2d for the l1 ball), D the l1 diameter
//! (in Thm. 3 and Lemma 3.1, D² is a Bregman radius), L the Lipschitz constant w.r.t. ‖·‖₁
//! (`‖∇f‖_∞ ≤ L`; w.r.t. ‖·‖_p in App. B), β the smoothness w.r.t. ‖·‖₁, λ the (relative)
//! strong convexity, (ε, δ) privacy, b a batch, T iterations or phases. `ln` is the natural log;
//! base 2 is stated where the paper's `2^T` or "`d^{1−1/p} ≤ 2`" needs it.
//! The (ε, δ) rates and steps take (n, d, ε, δ) as one [`L1Setting`], checked once; L, D, β, λ,
//! p, m, b stay arguments named as in each statement.
//! Proof: proofs/l1/bounds.md.
//!
//! # Results
//!
//! | result | corrected / exact | as printed | file | kind |
//! |---|---|---|---|---|
//! | p-norm map: p, `c_d`, κ = c_d², Bregman radius (Alg. 2 line 1, proof of Lemma 3.3) | [`pnorm_exponent`], [`norm_ratio_cd`], [`mirror_map_kappa`], [`pnorm_bregman_radius_sq`] | [`norm_ratio_cd_printed`] | `mirror.rs` | exact |
//! | Lemma 3.1 (SMD, convex) | [`lemma31_smd_bound`], [`lemma31_optimal_step`] | — | `mirror.rs` | expectation bound |
//! | Lemma 3.2 (SMD, relatively strongly convex) | [`lemma32_smd_strongly_convex_corrected`] | [`lemma32_smd_strongly_convex_printed`] | `mirror.rs` | expectation bound |
//! | `E‖ζ‖²_∞`, proof of Thm. 3 | [`gaussian_linf_sq_bound`] | [`gaussian_linf_sq_bound_printed`] | `mirror.rs` | upper bound |
//! | Thm. 3 (Alg. 1, DP-ERM), convex | [`theorem3_erm_bound_corrected`] | [`theorem3_erm_bound_printed`], [`theorem3_sigma_printed`] | `erm.rs` | expectation bound |
//! | Thm. 3 rates | — | [`theorem3_rate_unit_constant`], [`theorem3_strongly_convex_rate_unit_constant`] | `erm.rs` | trend only |
//! | Thm. 4 (Alg. 2, DP-SCO): step, phase radius | [`theorem4_base_step`], [`alg2_phase_radius`] | [`alg2_phase_radius_printed`] | `localized.rs` | exact |
//! | Thm. 4: batch sizes, gradient count | [`alg2_phase_batch`] / [`alg2_gradient_count`] with [`Alg2BatchRule::Corrected`], [`alg2_phase_count`] | the same with [`Alg2BatchRule::Printed`]; [`theorem4_gradient_count_claim_unit_constant`] | `localized.rs` | exact / trend |
//! | Thm. 4 (= Thm. 1) rate | — | [`theorem4_rate_unit_constant`] | `localized.rs` | trend only |
//! | Lemma 4.1, second part (noisy selection) | [`laplace_expected_max_abs`], [`report_noisy_min_error_bound`], [`exponential_mechanism_error_bound`] | (`O(λ log m)`) | `selection.rs` | exact / upper bound |
//! | Alg. 3 counts (Sec. 4, proofs of Thms. 6–7) | [`alg3_samples_used`], [`alg3_gradient_evaluations`], [`alg3_fw_steps`], [`theorem6_t1_batch_corrected`] | [`alg3_samples_printed_bound`] | `frank_wolfe.rs` | exact |
//! | Lemmas 4.1 / 4.4 (Laplace scales) | [`alg3_laplace_scale`] with [`FwNoise::PureCorrected`] | [`FwNoise::PurePrinted`], [`FwNoise::ApproxPrinted`] | `frank_wolfe.rs` | exact |
//! | Lemmas 4.2–4.3 (tree variance) | [`lemma43_variance_proxy`], [`lemma42_tree_error_bound`] ([`FwStepIndexing::GlobalCounter`]) | [`FwStepIndexing::Printed`], [`lemma42_tree_error_unit_constant`] | `frank_wolfe.rs` | upper bound / trend |
//! | FW recursion (proofs of Thms. 6–7) | [`alg3_explicit_bound`] | — | `frank_wolfe.rs` | expectation bound (derived here) |
//! | Thm. 6 (pure DP) | — | [`theorem6_parameters`], [`theorem6_beta_range`], [`theorem6_rate_unit_constant`], [`theorem6_small_beta_rate_unit_constant`] | `frank_wolfe.rs` | exact / trend |
//! | Thm. 7 (= Thm. 2, approximate DP) | — | [`theorem7_parameters`], [`theorem7_rate_unit_constant`] | `frank_wolfe.rs` | exact / trend |
//! | Thms. 1 vs 2: private terms, crossover d | [`md_fw_crossover_dimension`] | [`md_private_term_unit_constant`], [`fw_private_term_unit_constant`], [`md_fw_crossover_dimension_log_free`] | `compare.rs` | trend only |
//! | Thm. 12 (Alg. 5, l_p ERM) | [`theorem12_grad_sq_bound`] | [`theorem12_grad_sq_bound_printed`], [`theorem12_sigma_printed`] | `lp.rs` | upper bound |
//! | Thm. 13 / Thm. 5 (Alg. 6, l_p SCO) | [`theorem13_base_step`], [`theorem13_rate_unit_constant`] | [`theorem5_rate_printed_unit_constant`] | `lp.rs` | exact / trend |
//! | Sec. 5 reduction, Thms. 8–9 | [`section5_round_sizes`], [`section5_rate_transform`], [`theorem8_rate_corrected_unit_constant`], [`theorem9_rate_corrected_unit_constant`] | [`theorem8_rate_printed_unit_constant`], [`theorem9_rate_printed_unit_constant`] | `strongly_convex.rs` | exact / trend |
//! | Thm. 10 (lower bound, non-smooth) and its instance | [`theorem10_empirical_loss`], [`theorem10_empirical_minimum`], [`theorem10_sign_error`] | [`theorem10_empirical_excess_printed`], [`theorem10_lower_bound_unit_constant`] | `lower.rs` | exact / trend |
//! | Thm. 11 (lower bound, smooth), smooth optimum | — | [`theorem11_lower_bound_unit_constant`], [`smooth_optimal_rate_unit_constant`] | `lower.rs` | trend only |
//!
//! "Trend only" functions set the paper's `O(1)` (or `Ω(1)`) to 1: they compare shapes (slopes in
//! n, ε, d; crossovers), never a measured loss. No function here accounts for privacy: the
//! printed noise scales are kept for comparison, and runs are accounted by [`crate::accounting`].
//!
//! Errata followed here (evidence in `proofs/l1/bounds.md` §5): `c_d = d^{1−1/p}` is `e^{1/p} > 2`
//! with `p = 1 + 1/ln d` (E1); Lemma 3.2's constant is 2L²/(λ(T+1)) (E2); `E‖ζ‖²_∞ ≤ 2σ² ln d`
//! fails at small d (E3); Alg. 2's phase radius needs `c_d`, not 2 (E4); Alg. 2's batch
//! `√(d/ε_i)` contradicts Thm. 4's gradient count (E5); Alg. 3 uses `b(T + T(T+1)/4)` samples,
//! `1.5b > T²b` at T = 1 (E6); Lemma 4.1's Laplace scale is half the rigorous one (E7);
//! Alg. 3's printed step indexing (E8); Thm. 10's `F̂` drops L (E9); Thms. 8–9's prefactor `LD`
//! for `L²/λ` (E10).

mod compare;
mod erm;
mod frank_wolfe;
mod localized;
mod lower;
mod lp;
mod mirror;
mod selection;
mod setting;
mod strongly_convex;
mod validate;

pub use compare::{
    fw_private_term_unit_constant, md_fw_crossover_dimension, md_fw_crossover_dimension_log_free,
    md_private_term_unit_constant,
};
pub use erm::{
    theorem3_erm_bound_corrected, theorem3_erm_bound_printed, theorem3_rate_unit_constant, theorem3_sigma_printed,
    theorem3_strongly_convex_rate_unit_constant,
};
pub use frank_wolfe::{
    FwNoise, FwSetting, FwStepIndexing, alg3_explicit_bound, alg3_fw_steps, alg3_gradient_evaluations,
    alg3_laplace_scale, alg3_samples_printed_bound, alg3_samples_used, lemma42_tree_error_bound,
    lemma42_tree_error_unit_constant, lemma43_variance_proxy, theorem6_beta_range, theorem6_parameters,
    theorem6_rate_unit_constant, theorem6_small_beta_rate_unit_constant, theorem6_t1_batch_corrected,
    theorem7_parameters, theorem7_rate_unit_constant,
};
pub use localized::{
    Alg2BatchRule, alg2_gradient_count, alg2_phase_batch, alg2_phase_count, alg2_phase_radius,
    alg2_phase_radius_printed, theorem4_base_step, theorem4_gradient_count_claim_unit_constant,
    theorem4_rate_unit_constant,
};
pub use lower::{
    smooth_optimal_rate_unit_constant, theorem10_empirical_excess_printed, theorem10_empirical_loss,
    theorem10_empirical_minimum, theorem10_lower_bound_unit_constant, theorem10_sign_error,
    theorem11_lower_bound_unit_constant,
};
pub use lp::{
    theorem5_rate_printed_unit_constant, theorem12_grad_sq_bound, theorem12_grad_sq_bound_printed,
    theorem12_sigma_printed, theorem13_base_step, theorem13_rate_unit_constant,
};
pub use mirror::{
    LogBase, gaussian_linf_sq_bound, gaussian_linf_sq_bound_printed, lemma31_optimal_step, lemma31_smd_bound,
    lemma32_smd_strongly_convex_corrected, lemma32_smd_strongly_convex_printed, mirror_map_kappa, norm_ratio_cd,
    norm_ratio_cd_printed, pnorm_bregman_radius_sq, pnorm_exponent,
};
pub use selection::{exponential_mechanism_error_bound, laplace_expected_max_abs, report_noisy_min_error_bound};
pub use setting::L1Setting;
pub use strongly_convex::{
    section5_rate_transform, section5_round_sizes, theorem8_rate_corrected_unit_constant,
    theorem8_rate_printed_unit_constant, theorem9_rate_corrected_unit_constant, theorem9_rate_printed_unit_constant,
};
