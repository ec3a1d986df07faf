//! The flags of `run sparse-sgd` and `run sparse-boosted-sgd` ([GGKKM] Algorithms 6 and 7),
//! flattened into `run`'s flags under their own heading.

use crate::flags::whole_usize;
use clap::{Args, ValueEnum};

pub(crate) const GGKKM_HEADING: &str = "Sparse gradients: sparse-sgd, sparse-boosted-sgd ([GGKKM])";

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
pub(crate) enum StoppingArg {
    #[value(help = "The paper's loop: the filter check lags one step (a filter-valid prefix plus two steps; total \
                    <= (eps, delta))")]
    Lagged,
    #[value(help = "N_t drawn first, the step run only if the filter still holds with it (every step under the \
                    filter; total <= (eps/2, delta/2), fewer steps)")]
    CheckedFirst,
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
pub(crate) enum ObjectiveArg {
    #[value(help = "Convex: return the average of the iterates (Thm. 6.7)")]
    Convex,
    #[value(help = "Smooth nonconvex: return a uniformly drawn iterate (Thm. 6.8)")]
    Nonconvex,
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
pub(crate) enum ScoreArg {
    /// The empirical risk F_S (sensitivity B/n; needs --loss-range B, every loss value in [0, B]).
    Risk,
    /// The empirical gradient norm (sensitivity 2L/n).
    GradientNorm,
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
pub(crate) enum ScaleArg {
    /// lambda = 2*Delta*(K+1)/(n*eps): eps/(K+1) for non-monotone scores (default).
    Corrected,
    #[value(help = "lambda = Delta*(K+1)/(n*eps) as printed in [GGKKM] Alg. 7: charged its true cost 2*eps/(K+1), \
                    so the reported epsilon exceeds --epsilon")]
    AsPrinted,
}

#[derive(Args, Default)]
pub(crate) struct SparseArgs {
    /// L > 0: the l2 bound of every row (and so of every per-example gradient).
    #[arg(long, help_heading = GGKKM_HEADING)]
    pub(crate) l2_bound: Option<f64>,
    /// s >= 1: the most non-zeros in a row (and so in a per-example gradient).
    #[arg(long, value_parser = whole_usize, help_heading = GGKKM_HEADING)]
    pub(crate) sparsity: Option<usize>,
    /// When the privacy filter is checked (default: lagged).
    #[arg(long, value_enum, help_heading = GGKKM_HEADING)]
    pub(crate) stopping: Option<StoppingArg>,
    /// Convex or nonconvex objective: which point is returned (default: convex).
    #[arg(long, value_enum, help_heading = GGKKM_HEADING)]
    pub(crate) objective: Option<ObjectiveArg>,
    #[arg(
        long,
        help_heading = GGKKM_HEADING,
        help = "The step size of Thm. 6.7 (convex: D/(nu*sqrt(tau)), a bounded --domain) or Thm. 6.8 (nonconvex: \
                sqrt(Gamma/(H*tau*nu^2)), needs --initial-gap and --smoothness) instead of --learning-rate; \
                tau = 0.25 n/ln(2/delta), nu from Lemma 6.4"
    )]
    pub(crate) theorem_step: bool,
    /// Thm. 6.8's Gamma >= F_S(x0) - min F_S.
    #[arg(long, help_heading = GGKKM_HEADING)]
    pub(crate) initial_gap: Option<f64>,
    /// Thm. 6.8's H, the smoothness of the loss.
    #[arg(long, help_heading = GGKKM_HEADING)]
    pub(crate) smoothness: Option<f64>,
    /// sparse-boosted-sgd: the failure probability beta in (0, 1); K = ceil(log2(2/beta)) runs (default 0.5).
    #[arg(long, help_heading = GGKKM_HEADING)]
    pub(crate) beta: Option<f64>,
    /// sparse-boosted-sgd: the selection score (default: risk for convex, gradient-norm for nonconvex).
    #[arg(long, value_enum, help_heading = GGKKM_HEADING)]
    pub(crate) selection_score: Option<ScoreArg>,
    /// sparse-boosted-sgd with --selection-score risk: B, the range [0, B] of every loss value.
    #[arg(long, help_heading = GGKKM_HEADING)]
    pub(crate) loss_range: Option<f64>,
    /// sparse-boosted-sgd: the Laplace scale of the selection (default: corrected).
    #[arg(long, value_enum, help_heading = GGKKM_HEADING)]
    pub(crate) selection_scale: Option<ScaleArg>,
}

impl SparseArgs {
    /// The first flag given, if any (they apply to the sparse algorithms only).
    pub(crate) fn first_given(&self) -> Option<&'static str> {
        first_given([
            ("--l2-bound", self.l2_bound.is_some()),
            ("--sparsity", self.sparsity.is_some()),
            ("--stopping", self.stopping.is_some()),
            ("--objective", self.objective.is_some()),
            ("--theorem-step", self.theorem_step),
            ("--initial-gap", self.initial_gap.is_some()),
            ("--smoothness", self.smoothness.is_some()),
            ("--beta", self.beta.is_some()),
            ("--selection-score", self.selection_score.is_some()),
            ("--loss-range", self.loss_range.is_some()),
            ("--selection-scale", self.selection_scale.is_some()),
        ])
    }
}

/// The first flag of `flags` that was given.
pub(crate) fn first_given<const N: usize>(flags: [(&'static str, bool); N]) -> Option<&'static str> {
    flags.into_iter().find_map(|(flag, given)| given.then_some(flag))
}
