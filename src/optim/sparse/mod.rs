//! \[GGKKM\] Ghazi, Guzmán, Kamath, Kumar, Manurangsi, "Differentially Private Optimization with
//! Sparse Gradients" (NeurIPS 2024): private mean estimation and optimisation when every
//! per-example vector (gradient) is s-sparse.
//!
//! | algorithm | file | status |
//! |---|---|---|
//! | Alg. 1, projection mechanism (Laplace δ = 0, Gaussian δ > 0), Sec. 3 | [`projection_mechanism`](mod@projection_mechanism) | here |
//! | Alg. 2, Gaussian ℓ1 recovery (basis pursuit), Sec. 3.1 | [`gaussian_l1_recovery`](mod@gaussian_l1_recovery) | here (certified RIP constant ρ instead of 3/2; certified basis pursuit) |
//! | Alg. 3, output perturbation with the l∞ projection, Sec. 5 | [`output_perturbation`](mod@output_perturbation) | here (logistic/linear GLM; regulariser centred at x⁰; fixed-T projected GD with a certified distance ν added to the sensitivity; δ = 0 on ℝ^d only) |
//! | Alg. 4, sparse exponential mechanism (tiny d, exact pmf), Sec. 5.1 | [`sparse_exponential`](mod@sparse_exponential) | here |
//! | Alg. 5, subsampled bias-reduced gradient estimator, Sec. 6.1 | [`bias_reduced`](mod@bias_reduced) | here (MeanMech: Alg. 1 Laplace/Gaussian, or Alg. 2) |
//! | Alg. 6, bias-reduced sparse SGD with a privacy filter, Sec. 6 | [`bias_reduced_sgd`](mod@bias_reduced_sgd) | here (Gaussian MeanMech recorded as (ε, δ) claims; approximate-DP accountant with the filter; the paper's lagged loop by default, the checked-first variant on request) |
//! | Alg. 7, boosting by noisy argmin, Sec. 7 | [`boosted_sgd`](mod@boosted_sgd) | here (Laplace scale doubled for non-monotone scores; the printed scale charged its true 2ε/(K+1)) |
//!
//! Shared primitives live where they belong: soft thresholding, the l1-ball and l∞ projections in
//! [`crate::geometry`]; the truncated geometric law and uniform ordered subsets in
//! [`crate::sampling`]; noise and events only in [`crate::optim::release`]; what a run executed and
//! the privacy read from it in [`Accounted`].

pub mod accounted;
pub mod bias_reduced;
pub mod bias_reduced_sgd;
pub mod boosted_sgd;
pub mod gaussian_l1_recovery;
pub mod output_perturbation;
pub mod projection_mechanism;
pub mod sparse_exponential;

pub use accounted::Accounted;
pub use bias_reduced::{
    BiasReducedConfig, BiasReducedEstimate, BiasReducedRun, InverseWeight, MeanMechanism, MeanMechanismKind,
    truncation_m,
};
pub use bias_reduced_sgd::{
    BiasReducedSgdConfig, BiasReducedSgdRun, Convexity, StoppingRule, StoppingTrace, convex_step_size, horizon_tau,
    nonconvex_step_size, step_cost_c, stopping_time,
};
pub use boosted_sgd::{BoostedSgdConfig, BoostedSgdRun, SelectionScale, SelectionScore};
pub use gaussian_l1_recovery::{
    GaussianL1RecoveryConfig, GaussianL1RecoveryRun, MAX_MATRIX_ENTRIES, Measurements, RecoveryBranch,
    certified_rip_constant,
};
pub use output_perturbation::{
    CertifiedSolution, OutputPerturbationConfig, OutputPerturbationRun, solve_regularised_erm,
};
pub use projection_mechanism::{
    GaussianRecord, InvalidRows, NoiseScale, ProjectionMechanismConfig, ProjectionMechanismRun, SparseVectors,
    project_noisy_mean,
};
pub use sparse_exponential::{
    SparseExponentialConfig, SparseExponentialRun, TauChoice, TauEquation, Temperature, sparse_net,
};
