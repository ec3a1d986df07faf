//! \[AFKT\] Asi, Feldman, Koren, Talwar, "Private Stochastic Convex Optimization: Optimal Rates in
//! l1 Geometry" (ICML 2021): private optimisation over l1-bounded domains.
//!
//! | algorithm | file | status |
//! |---|---|---|
//! | Alg. 1, noisy stochastic mirror descent (DP-ERM) | [`noisy_mirror_descent`](mod@noisy_mirror_descent) | here |
//! | Alg. 4, non-private stochastic mirror descent with KL on the simplex | [`entropic_smd`](mod@entropic_smd) | here |
//! | Alg. 3, private variance-reduced Frank–Wolfe (pure ε-DP) | [`frank_wolfe`](mod@frank_wolfe) | here |
//! | Alg. 2, localized noisy mirror descent (DP-SCO, l1); Sec. 5 strongly convex reduction | [`localized_mirror_descent`](mod@localized_mirror_descent) | here |
//! | Algs. 5–6, noisy and localized mirror descent in lp geometry, 1 < p ≤ 2 | [`lp_mirror_descent`](mod@lp_mirror_descent) | here |
//!
//! The geometry (p-norm and entropic mirror maps, the certified Bregman step, the LMOs) is
//! `crate::geometry::mirror`. Privacy comes from [`crate::optim::PrivateRelease`]: the paper's
//! constant 100 in σ (a moments-accountant constant it never states) is replaced by the RDP
//! accountant for the sampler the run really uses.

pub mod entropic_smd;
pub mod frank_wolfe;
pub mod localized_mirror_descent;
pub mod lp_mirror_descent;
pub mod noisy_mirror_descent;

pub use entropic_smd::{EntropicSmdConfig, entropic_smd};
pub use frank_wolfe::{FrankWolfeConfig, FrankWolfeRun, FwPrivacy, Polytope};
pub use localized_mirror_descent::{
    BatchRule, Geometry, LocalizedConfig, LocalizedRun, Phase, PhaseRecord, ReductionRun,
    StronglyConvexReductionConfig, localized_mirror_descent, phase_objective_minimiser, strongly_convex_reduction,
};
pub use lp_mirror_descent::{Average, Domain, LpMirrorDescentConfig, StepRule, lp_l2_sensitivity, lp_mirror_descent};
pub use noisy_mirror_descent::{MirrorMap, NoisyMirrorDescentConfig, noisy_mirror_descent};

/// The checks the mirror-descent configurations (Algs. 1, 2, 5, 6) share: the radius R of X, the
/// gradient bound L and the duality-gap tolerance of the Bregman steps, each finite and positive.
///
/// # Errors
/// `InvalidParameter` naming the first invalid one.
pub(crate) fn check_ball_settings(radius_r: f64, lipschitz_l: f64, step_tolerance: f64) -> crate::error::Result<()> {
    use crate::error::check;
    check::positive("radius R", radius_r)?;
    check::positive("Lipschitz constant L", lipschitz_l)?;
    check::positive("step tolerance", step_tolerance).map(|_| ())
}
