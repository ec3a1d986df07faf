//! Bounds of \[GGKKM\] — Ghazi, Guzmán, Kamath, Kumar, Manurangsi, "Differentially Private
//! Optimization with Sparse Gradients" (bibliography: `proofs/README.md`); result, algorithm and
//! section numbers are those of that paper.
//!
//! Symbols: n samples, d dimension, s the sparsity of each datum or per-example gradient, L the
//! l2 norm / Lipschitz bound, D the initial distance or diameter, H smoothness, B the loss range,
//! Γ the initial suboptimality, λ the regularisation, (ε, δ) privacy, β a failure probability,
//! M the TGeom truncation (`2^{M+1} = n`). `ln` is the natural log; `log₂` is written out.
//! The setting (L, s, d, n, ε, and δ for the (ε, δ) results) is one [`SparseProblem`], checked
//! once; each bound takes it with the symbols of its own statement (β, λ, H, D, ...).
//! Proof: proofs/sparse/bounds.md.
//!
//! # Results
//!
//! | result | corrected / explicit | as printed | file | kind |
//! |---|---|---|---|---|
//! | Lemma 3.1 (pathwise) | [`lemma31_projection_error_bound`] | — | `mean.rs` | exact |
//! | Thm. 3.2 (Alg. 1, δ = 0) | [`theorem32_laplace_scale`], [`theorem32_dense_term`], [`theorem32_sparse_term`], [`theorem32_bound`], [`theorem32_crossover_n`] | — | `mean.rs` | w.p. 1 − β (constants derived) |
//! | Thm. 3.3 (Alg. 1, δ > 0) | [`theorem33_gaussian_scale`], [`theorem33_dense_term`], [`theorem33_sparse_term`], [`theorem33_bound`] | — | `mean.rs` | w.p. 1 − β (constants derived) |
//! | Alg. 1 second moments (derived) | [`alg1_second_moment_laplace`], [`alg1_second_moment_gaussian`] | — | `mean.rs` | expectation bound |
//! | Thm. 3.4 (Alg. 2) | [`theorem34_rate_unit_constant`], [`theorem34_second_moment_unit_constant`], [`theorem34_measurements_corrected_unit_constant`] | [`theorem34_measurements_printed_unit_constant`] | `mean.rs` | trend only |
//! | Table 1, pure upper | — | [`table1_pure_upper_rate_unit_constant`] | `mean.rs` | trend only |
//! | Thms. 4.1, 4.4, 4.5 (lower) | — | [`theorem41_lower_bound_unit_constant`], [`theorem44_lower_bound_unit_constant`], [`theorem45_lower_bound_unit_constant`] | `lower.rs` | trend only |
//! | Lemma 4.3 (bootstrapping) | [`lemma43_alpha_unit_constant`], [`lemma43_confidence_corrected`] | [`lemma43_confidence_printed`] | `lower.rs` | trend / exact |
//! | Lemma A.3 (packing) | [`lemma_a3_alpha`] | — | `lower.rs` | exact |
//! | Thm. 5.1 (Alg. 3), pathwise | [`theorem51_pathwise_bound_corrected`] | [`theorem51_pathwise_bound_printed`] | `erm.rs` | exact |
//! | Thm. 5.1 noise and tails | [`theorem51_laplace_scale`], [`theorem51_gaussian_scale`], [`laplace_linf_tail`] | [`laplace_linf_tail_printed`] | `erm.rs` | exact / w.p. 1 − β |
//! | Thm. 5.1, explicit | [`theorem51_pure_bound`], [`theorem51_approx_bound`] | — | `erm.rs` | w.p. 1 − β |
//! | Thms. 5.1, 5.5, 5.6 rates | [`theorem56_pure_rate_unit_constant`] (F_D) | [`theorem51_pure_rate_unit_constant`], [`theorem51_approx_rate_unit_constant`], [`theorem55_rate_unit_constant`], [`theorem56_approx_rate_unit_constant`], [`theorem56_lambda_unit_constant`] | `erm.rs` | trend only |
//! | Def. 6.1 (TGeom) | [`tgeom_normaliser`], [`tgeom_moments`] | — | `sgd.rs` | exact |
//! | Lemma 6.4 (bias, second moment) | [`lemma64_bias_bound`], [`lemma64_second_moment_bound`], [`lemma64_alg1_constant_gaussian`], [`lemma64_alg1_constant_laplace`] | [`lemma64_rates_unit_constant`] | `sgd.rs` | expectation bound / trend |
//! | Lemma 6.5 (stopping time) | [`lemma65_stopping_probability_bound`], [`lemma65_constant`] (corrected, E11), [`lemma65_expected_steps_upper_bound`] (derived) | [`lemma65_expected_stopping_time_printed`] | `sgd.rs` | upper bound / as printed |
//! | Thm. 6.7 (convex) | [`theorem67_threshold_explicit`] (explicit C), [`theorem67_bound_corrected_unit_constant`], [`theorem67_rate_corrected_unit_constant`] | [`theorem67_bound_printed_unit_constant`], [`theorem67_rate_printed_unit_constant`] | `sgd.rs` | trend only |
//! | Thm. 6.8 (nonconvex) | [`theorem68_threshold_explicit`] (explicit C), [`theorem68_bound_corrected_unit_constant`], [`theorem68_rate_corrected_unit_constant`] | [`theorem68_bound_printed_unit_constant`], [`theorem68_rate_printed_unit_constant`] | `sgd.rs` | trend only |
//! | Thm. 7.1 (Alg. 7) | [`theorem71_runs`], [`theorem71_laplace_scale_corrected`], [`theorem71_radius`], [`theorem71_failure_probability`] | [`theorem71_laplace_scale_printed`], [`theorem71_convex_rate_unit_constant`], [`theorem71_nonconvex_rate_unit_constant`] | `boost.rs` | exact / trend |
//!
//! "Trend only" functions set the paper's `O(1)`/`Ω(1)` to 1: they compare shapes (slopes in
//! n, ε, d, s; crossovers), never a measured error. The lower bounds quantify over all DP
//! algorithms and cannot be checked numerically. No function here accounts for privacy.
//!
//! Errata followed here (evidence in `proofs/sparse/bounds.md` §5): Thm. 3.4's m has an extra
//! root on `ln(1/δ)` (E1); Lemma 4.3's confidence lacks K (E2); Thm. 5.1's `√(2s)L` is `2√sL`
//! (E3) and its proof's Laplace tail `√ln(d/β)` is `ln(d/β)` (E4); Thm. 5.6 (δ = 0) bounds `F_D`,
//! not `F_S` (E5); Lemma 6.4 needs `C_M` in `p_N` (E6); Thm. 6.7's bias term needs D (E7) and
//! its rate the `^{1/4}` (E8); Thm. 6.8's `√(ΓHL)` is `L√(ΓH)` (E9); Alg. 7's selection scale must
//! be doubled (E10).

mod boost;
mod erm;
mod lower;
mod mean;
mod problem;
mod sgd;
mod validate;

pub use boost::{
    theorem71_convex_rate_unit_constant, theorem71_failure_probability, theorem71_laplace_scale_corrected,
    theorem71_laplace_scale_printed, theorem71_nonconvex_rate_unit_constant, theorem71_radius, theorem71_runs,
};
pub use erm::{
    laplace_linf_tail, laplace_linf_tail_printed, theorem51_approx_bound, theorem51_approx_rate_unit_constant,
    theorem51_gaussian_scale, theorem51_laplace_scale, theorem51_pathwise_bound_corrected,
    theorem51_pathwise_bound_printed, theorem51_pure_bound, theorem51_pure_rate_unit_constant,
    theorem55_rate_unit_constant, theorem56_approx_rate_unit_constant, theorem56_lambda_unit_constant,
    theorem56_pure_rate_unit_constant,
};
pub use lower::{
    lemma_a3_alpha, lemma43_alpha_unit_constant, lemma43_confidence_corrected, lemma43_confidence_printed,
    theorem41_lower_bound_unit_constant, theorem44_lower_bound_unit_constant, theorem45_lower_bound_unit_constant,
};
pub use mean::{
    alg1_second_moment_gaussian, alg1_second_moment_laplace, lemma31_projection_error_bound,
    table1_pure_upper_rate_unit_constant, theorem32_bound, theorem32_crossover_n, theorem32_dense_term,
    theorem32_laplace_scale, theorem32_sparse_term, theorem33_bound, theorem33_dense_term, theorem33_gaussian_scale,
    theorem33_sparse_term, theorem34_measurements_corrected_unit_constant,
    theorem34_measurements_printed_unit_constant, theorem34_rate_unit_constant, theorem34_second_moment_unit_constant,
};
pub use problem::SparseProblem;
pub use sgd::{
    lemma64_alg1_constant_gaussian, lemma64_alg1_constant_laplace, lemma64_bias_bound, lemma64_rates_unit_constant,
    lemma64_second_moment_bound, lemma65_constant, lemma65_expected_steps_upper_bound,
    lemma65_expected_stopping_time_printed, lemma65_stopping_probability_bound, tgeom_moments, tgeom_normaliser,
    theorem67_bound_corrected_unit_constant, theorem67_bound_printed_unit_constant,
    theorem67_rate_corrected_unit_constant, theorem67_rate_printed_unit_constant, theorem67_threshold_explicit,
    theorem68_bound_corrected_unit_constant, theorem68_bound_printed_unit_constant,
    theorem68_rate_corrected_unit_constant, theorem68_rate_printed_unit_constant, theorem68_threshold_explicit,
};
