//! Bounds of \[LZLRMS\] — Li, Zaheer, Liu, Reddi, McMahan, Smith, "Differentially Private
//! Adaptive Optimization with Delayed Preconditioners", ICLR 2023, arXiv 2212.00309
//! (bibliography: `proofs/README.md`); result and equation numbers are those of that version.
//!
//! Every formula below is a function, and `tests/bounds_dp2.rs` evaluates each one. Symbols
//! (the paper writes ε for both, so the names differ here): `eps_adapt` (ε) is the adaptivity constant in `D = √v + ε`,
//! `eps_priv` (ε_p) the privacy parameter; `ν = s/T` the delay fraction (the paper's `v`), always
//! passed as the integers `s` (delay) and `T` (iterations) so that every floor is evaluated in
//! integer arithmetic; `C` the gradient bound (= clip), `σ` the noise multiplier, `b` the batch
//! size (`C`, σ, b passed as one [`NoiseSetting`], checked once), `d` the dimension, `M = C² + σ²C²/(s b²)` (Lemma 1), `M'` the bound on consecutive
//! gradient differences of App. A.2; `t` is 1-indexed in the theory (Sec. 4, App. A); `‖x‖²_D = Σ_j D_j x_j²`.
//! Analysis model: clipping never happens (erratum 15), so `g̃^t = g^t/D^t + N^t` with
//! `N^t ~ N(0, σ²C²/b² I_d)`.
//!
//! # Results
//!
//! Each result of the paper, the functions that evaluate it (corrected or exact; as printed where
//! the printed form differs), and the file under `src/bounds/dp2/` that holds them.
//!
//! | result | corrected / exact | as printed | file | kind |
//! |---|---|---|---|---|
//! | Lemma 1 (App. A, eq. (4)–(7)) | [`lemma1_m`] ([`NoiseSetting`]), [`expected_d_bound`] | — | `lemma1.rs` | upper bound on `E v_j`, `E D_j` |
//! | Lemma 1, constant gradients (property P9 of `proofs/dp2/dp2.md` §6) | [`lemma1_expected_v_rmsprop`], [`lemma1_expected_v_adagrad`] | — | `lemma1.rs` | exact expectation |
//! | Thm. 2 schedule, eq. (18) (erratum 1) | [`theorem2_learning_rate`] | [`theorem2_learning_rate_printed_floors`] | `convex.rs` | exact (equal by Hermite) |
//! | Thm. 2 α (erratum 2) | [`theorem2_alpha`], [`theorem2_alpha_conditions`] | [`theorem2_alpha_eq18`] | `convex.rs` | exact / checker |
//! | Thm. 2 κ, eq. (49) | [`kappa_min`] | — | `convex.rs` | smallest admissible κ |
//! | Thm. 2 `T_ν` (erratum 3) | [`t_nu_indices`], [`t_nu_cardinality_appendix`] | [`t_nu_cardinality_main`] | `convex.rs` | exact |
//! | Thm. 2 bound, eq. (51) | [`theorem2_bound`], [`theorem2_noise_term`] | [`theorem2_bound_printed`] | `convex.rs` | expectation bound |
//! | `E‖N‖²_D` (proof of Thm. 2, App. A.1; property P18) | [`expected_noise_d_norm`] | — | `convex.rs` | exact |
//! | h(s), eq. (29)/(52) (erratum 4) | [`h_ratio`] | — | `staleness.rs` | one `t` of the max |
//! | App. A.2, eq. (59) | [`h_upper_bound_sparse`], [`expected_avg_noise_l1`] | [`h_upper_bound_sparse_printed`] | `staleness.rs` | upper bound / exact |
//! | Cor. 1 noise terms | [`corollary1_noise_term_dp2`], [`corollary1_noise_term_dp_sgd`] | — | `noise_term.rs` | exact given `E‖D^t‖₁` |
//! | Thm. 3, eq. (84) | [`theorem3_bound`] ([`NoiseSetting`], [`Theorem3Inputs`]) | — | `nonconvex.rs` | expectation bound, hypotheses checked |
//! | Thm. 3 rate, `O(1) = 1` (erratum 13) | [`theorem3_rate_unit_constant`] | [`theorem3_rate_printed_unit_constant`] | `nonconvex.rs` | trend only |
//! | Thm. 1, `c2 = 1` | — | [`theorem1_sigma_unit_constant`] | `privacy.rs` | trend only |
//! | small-q asymptotic of the subsampled Gaussian's RDP | — | [`theorem1_epsilon_asymptotic_not_a_bound`] | `privacy.rs` | **not a guarantee** |
//!
//! Input checks shared by these files are in `validate.rs`. No function here accounts for
//! privacy: the two Thm. 1 expressions are the paper's, kept for comparison, and DP²'s runs are
//! accounted by [`crate::accounting`].
//!
//! Errata followed here (the \[LZLRMS\] register 1–16 of `proofs/dp2/variants.md` §5.1):
//! 1 (the schedule's `α⌊t/2s⌋ + …` is a power), 2 (α from the
//! theorem, `1/(√M + ε)`, not eq. (18)'s `1/√(M + ε)`: only the former meets case 4 of the proof,
//! see [`theorem2_alpha_conditions`]), 3 (`|T_ν| = ⌈T/(2s)⌉`, which counts the indices the proof
//! uses), 4 (h(s) with `dε` in the denominator), 5 (the theory's phases are those of
//! Algorithm 1, not App. B's `t mod 2s ≤ s`; nothing here depends on the phase rule except
//! [`t_nu_indices`]), 13 (Thm. 3 needs `F ≥ 0`, `ε ≤ 1`, `α ≤ 1/L`; the rate's `τ²/(b√d)`),
//! 15 (no clipping). Found while implementing (not in that register):
//! - eq. (51)'s first term divides by `α^{⌊T/s⌋}`, but the proof's last summand is
//!   `(κ/α^T)E‖D^T‖₁/T` with `α^T = α^{⌊T/s⌋+1}/√T` (eq. (24) at `t = T`): the exponent is
//!   `⌊T/s⌋ + 1`. With `α ≤ 1` the printed term is smaller than what the proof gives by a factor
//!   `α` ([`theorem2_bound`] vs [`theorem2_bound_printed`]);
//! - App. A.2, (56)→(57) replaces the staleness sum `(1/s)Σ_{i=1}^{s}(k+i)M'` (at most
//!   `(3s−1)M'/2`) by `sM'`, which is smaller for `s ≥ 2` ([`h_upper_bound_sparse`]).

mod convex;
mod lemma1;
mod noise_term;
mod nonconvex;
mod privacy;
mod setting;
mod staleness;
mod validate;

pub use convex::{
    Theorem2Inputs, expected_noise_d_norm, kappa_min, t_nu_cardinality_appendix, t_nu_cardinality_main, t_nu_indices,
    theorem2_alpha, theorem2_alpha_conditions, theorem2_alpha_eq18, theorem2_bound, theorem2_bound_printed,
    theorem2_learning_rate, theorem2_learning_rate_printed_floors, theorem2_noise_term,
};
pub use lemma1::{expected_d_bound, lemma1_expected_v_adagrad, lemma1_expected_v_rmsprop, lemma1_m};
pub use noise_term::{corollary1_noise_term_dp_sgd, corollary1_noise_term_dp2};
pub use nonconvex::{Theorem3Inputs, theorem3_bound, theorem3_rate_printed_unit_constant, theorem3_rate_unit_constant};
pub use privacy::{theorem1_epsilon_asymptotic_not_a_bound, theorem1_sigma_unit_constant};
pub use setting::NoiseSetting;
pub use staleness::{expected_avg_noise_l1, h_ratio, h_upper_bound_sparse, h_upper_bound_sparse_printed};
