//! One run of one algorithm, specified as plain data: [`RunSpec`] holds every setting `dpref run`
//! takes (the CLI fills it from its flags), resolves the defaults, checks that the settings fit
//! the algorithm, dispatches to it and evaluates the output point.
//!
//! The rules are the CLI's (the README's "Quick start"): default steps ⌈n/b⌉, Poisson sampling
//! unless `variant` is [`Variant::Paper`] (full batch only), an unconstrained domain for the
//! \[ZCHWB\] and DP² optimisers, `paper_noise` for PASAN/PAGAN only, no clipping only without a
//! privacy claim, and no setting an algorithm would ignore. Every refusal is an
//! [`Error::RunSpec`] naming the parameter (a field of [`RunSpec`]) in backticks.
//!
//! Proof: proofs/run_spec.md.
//!
//! ```
//! use dpref::optim::run_spec::{Algorithm, RunLoss, RunSpec};
//! let mut spec = RunSpec::new(Algorithm::DpSgd, RunLoss::Logistic);
//! spec.sigma = Some(1.0);
//! spec.beta2 = Some(0.9); // an Adam/RMSProp setting: DP-SGD would ignore it
//! let e = spec.check().unwrap_err();
//! assert!(matches!(e, dpref::Error::RunSpec { parameter: "beta2", .. }));
//! ```

mod check;
mod l1;
mod plan;
mod sparse;

pub use plan::{RunOutcome, RunPlan};
pub use sparse::{
    HORIZON_C_PRIME, SparseAlgorithm, SparseBoosting, SparseRunOutcome, SparseRunSpec, SparseSelection, SparseSgdStats,
    SparseStepSize,
};

use crate::accounting::Neighbouring;
use crate::error::{Error, display_number};
use crate::geometry::{Domain, EllipsoidProjection};
use std::path::PathBuf;

/// The algorithms `dpref run` trains with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Algorithm {
    /// DP-SGD: per-example l2 clip C, Gaussian noise σC.
    DpSgd,
    /// PASAN (\[ADFJT\] Alg. 1).
    Pasan,
    /// PAGAN (\[ADFJT\] Alg. 2).
    Pagan,
    /// DP-GD (\[ZCHWB\]).
    DpGd,
    /// DP-RMSProp (\[ZCHWB\]).
    DpRmsprop,
    /// DP-Adam (\[ZCHWB\]).
    DpAdam,
    /// DP-AdaGrad (minibatch only).
    DpAdagrad,
    /// DP²-RMSProp (\[LZLRMS\] Alg. 1).
    Dp2Rmsprop,
    /// DP²-AdaGrad (\[LZLRMS\] App. D).
    Dp2Adagrad,
    /// DP²-Yogi (\[LZLRMS\] App. D).
    Dp2Yogi,
    /// Noisy stochastic mirror descent (\[AFKT\] Alg. 1) over an l1 ball.
    NoisyMirrorDescent,
    /// Localized noisy mirror descent (\[AFKT\] Alg. 2, DP-SCO) over an l1 ball.
    LocalizedMirrorDescent,
    /// Private variance-reduced Frank–Wolfe (\[AFKT\] Alg. 3) over an l1 ball or the simplex.
    PrivateFrankWolfe,
    /// Non-private stochastic mirror descent with KL on the simplex (\[AFKT\] Alg. 4).
    EntropicMirrorDescent,
}

impl Algorithm {
    /// The CLI name (`dp-sgd`, `dp2-rmsprop`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::DpSgd => "dp-sgd",
            Algorithm::Pasan => "pasan",
            Algorithm::Pagan => "pagan",
            Algorithm::DpGd => "dp-gd",
            Algorithm::DpRmsprop => "dp-rmsprop",
            Algorithm::DpAdam => "dp-adam",
            Algorithm::DpAdagrad => "dp-adagrad",
            Algorithm::Dp2Rmsprop => "dp2-rmsprop",
            Algorithm::Dp2Adagrad => "dp2-adagrad",
            Algorithm::Dp2Yogi => "dp2-yogi",
            Algorithm::NoisyMirrorDescent => "noisy-mirror-descent",
            Algorithm::LocalizedMirrorDescent => "localized-mirror-descent",
            Algorithm::PrivateFrankWolfe => "private-frank-wolfe",
            Algorithm::EntropicMirrorDescent => "entropic-mirror-descent",
        }
    }

    /// The \[AFKT\] l1-geometry family.
    pub fn is_l1(self) -> bool {
        matches!(
            self,
            Algorithm::NoisyMirrorDescent
                | Algorithm::LocalizedMirrorDescent
                | Algorithm::PrivateFrankWolfe
                | Algorithm::EntropicMirrorDescent
        )
    }

    /// The \[LZLRMS\] DP² family.
    pub fn is_dp2(self) -> bool {
        matches!(self, Algorithm::Dp2Rmsprop | Algorithm::Dp2Adagrad | Algorithm::Dp2Yogi)
    }

    /// The \[ZCHWB\] family (dp-gd, dp-rmsprop, dp-adam) and its minibatch kin dp-adagrad.
    pub fn is_dpagd(self) -> bool {
        matches!(self, Algorithm::DpGd | Algorithm::DpRmsprop | Algorithm::DpAdam | Algorithm::DpAdagrad)
    }

    /// PASAN and PAGAN (\[ADFJT\]).
    pub fn is_adaptive_noise(self) -> bool {
        matches!(self, Algorithm::Pasan | Algorithm::Pagan)
    }
}

/// The loss of a run: a GLM loss, or the softmax cross-entropy of the network in
/// [`RunSpec::hidden`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunLoss {
    /// |⟨x, a⟩ − b|.
    Absolute,
    /// (⟨x, a⟩ − b)²/2.
    Squared,
    /// log(1 + exp(−y⟨x, a⟩)).
    Logistic,
    /// max(0, 1 − y⟨x, a⟩).
    Hinge,
    /// Softmax cross-entropy of an MLP (needs `hidden`).
    CrossEntropy,
}

impl RunLoss {
    /// The CLI name.
    pub fn name(self) -> &'static str {
        match self {
            RunLoss::Absolute => "absolute",
            RunLoss::Squared => "squared",
            RunLoss::Logistic => "logistic",
            RunLoss::Hinge => "hinge",
            RunLoss::CrossEntropy => "cross-entropy",
        }
    }
}

/// How each step's batch is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sampling {
    /// Each record independently with probability b/n.
    Poisson,
    /// A uniform subset of size b.
    WithoutReplacement,
    /// b indices i.i.d. uniform (no accountant: only without a privacy claim).
    WithReplacement,
    /// The whole dataset at every step.
    Full,
}

/// The \[ZCHWB\] form: PyTorch-style minibatch optimiser, or the paper's Algorithm 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Variant {
    /// Poisson-sampled, per-example-clipped minibatch steps (default).
    #[default]
    Minibatch,
    /// \[ZCHWB\] Algorithm 1: full batch, no bias correction, the λ cap, output w_R.
    Paper,
}

/// Which point a run returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Output {
    /// (1/T) Σ_{k=0}^{T−1} x^k.
    Average0,
    /// (1/T) Σ_{k=1}^{T} x^k.
    Average1,
    /// x^T.
    Last,
    /// w_R, R uniform on {1..T} (\[ZCHWB\] paper variant only).
    Random,
}

/// The diagonal C of PASAN/PAGAN's ellipsoid.
#[derive(Debug, Clone, PartialEq)]
pub enum Ellipsoid {
    /// C = I.
    Identity,
    /// C_jj = j^p.
    Power(f64),
    /// d positive numbers, one per line.
    File(PathBuf),
}

/// A DP² ablation (\[LZLRMS\] App. D).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ablation {
    /// Variant 1: a second, preconditioned query at each adaptive step.
    ExtraQuery,
    /// Variant 2: privatise as DP-SGD, then divide by D.
    NoiseFirst,
}

impl Ablation {
    /// The CLI name.
    pub fn name(self) -> &'static str {
        match self {
            Ablation::ExtraQuery => "extra-query",
            Ablation::NoiseFirst => "noise-first",
        }
    }
}

/// The mirror map of noisy-mirror-descent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum L1MirrorMap {
    /// The p-norm map with \[AFKT\]'s `p = 1 + 1/ln d` (default).
    PNorm,
    /// The entropic map on the l1 ball as the image of a simplex.
    Entropic,
}

/// The options of the DP² family (dp2-rmsprop, dp2-adagrad, dp2-yogi, \[LZLRMS\]) that no other
/// algorithm reads. Each `None` takes DP²'s default ([`RunSpec::plan`]); any `Some` with another
/// algorithm is refused by [`RunSpec::check`], naming the field (`delay_sgd`, `clip_sgd`, ...).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Dp2Options {
    /// s₁, DP-SGD steps per cycle (default 100).
    pub delay_sgd: Option<u64>,
    /// s₂, adaptive steps per cycle (default s₁).
    pub delay_adaptive: Option<u64>,
    /// C₁ (default `clip`).
    pub clip_sgd: Option<f64>,
    /// C₂ (default C₁).
    pub clip_adaptive: Option<f64>,
    /// α₂ (default `learning_rate`).
    pub learning_rate_adaptive: Option<f64>,
    /// An ablation.
    pub ablation: Option<Ablation>,
}

/// Everything one `dpref run` needs besides the data. Fields left `None` take the algorithm's
/// default ([`RunSpec::plan`] resolves them); a field the algorithm does not use must stay
/// `None` (or at its default), else [`RunSpec::check`] refuses it.
#[derive(Debug, Clone, PartialEq)]
pub struct RunSpec {
    /// The algorithm.
    pub algorithm: Algorithm,
    /// The loss.
    pub loss: RunLoss,
    /// Hidden layer widths of an MLP (with [`RunLoss::CrossEntropy`], \[ZCHWB\] and DP² only).
    pub hidden: Vec<usize>,
    /// Target ε (calibrates σ; needs `delta`).
    pub epsilon: Option<f64>,
    /// δ of the target, or the δ at which the ε of a given `sigma` is reported.
    pub delta: Option<f64>,
    /// Noise multiplier σ ≥ 0 (0: the non-private run).
    pub sigma: Option<f64>,
    /// PASAN/PAGAN: σ = √log(1/δ)/ε, the papers' (uncalibrated) choice.
    pub paper_noise: bool,
    /// Neighbouring relation of the privacy claim.
    pub neighbouring: Neighbouring,
    /// Batch size b (default min(n, 64)): expected under Poisson, exact otherwise, n for full.
    pub batch_size: Option<usize>,
    /// Batch sampling (default Poisson; full for [`Variant::Paper`]).
    pub sampling: Option<Sampling>,
    /// Steps T (default ⌈n/b⌉).
    pub steps: Option<u64>,
    /// Learning rate η (step scale α for PASAN/PAGAN).
    pub learning_rate: f64,
    /// Clip radius C (B for PASAN/PAGAN); `None`: no clipping (no privacy claim).
    pub clip: Option<f64>,
    /// Constraint set X (unconstrained only for the \[ZCHWB\] and DP² optimisers).
    pub domain: Domain,
    /// Which point is returned (default: average0; last for minibatch \[ZCHWB\] and DP²; random
    /// for [`Variant::Paper`]).
    pub output: Option<Output>,
    /// Seed of all randomness.
    pub seed: u64,
    /// PASAN/PAGAN: the ellipsoid's diagonal C (default identity).
    pub ellipsoid: Option<Ellipsoid>,
    /// PASAN/PAGAN: the projection onto the ellipsoid (default radial).
    pub projection: Option<EllipsoidProjection>,
    /// \[ZCHWB\]: minibatch optimiser or Algorithm 1.
    pub variant: Variant,
    /// dp-adam: β₁ ∈ [0, 1) (default 0.9).
    pub beta1: Option<f64>,
    /// dp-rmsprop, dp-adam, dp2-rmsprop, dp2-yogi: β₂ ∈ (0, 1).
    pub beta2: Option<f64>,
    /// dp-rmsprop, dp-adam, dp-adagrad, dp2-*: ν outside the square root.
    pub nu: Option<f64>,
    /// [`Variant::Paper`]: the cap λ on the second moment (`None`: no cap).
    pub lambda: Option<f64>,
    /// Minibatch dp-adam: bias correction (default on).
    pub bias_correction: Option<bool>,
    /// DP²: the options only dp2-* reads (all `None` for every other algorithm).
    pub dp2: Dp2Options,
    /// noisy-mirror-descent: the mirror map (default p-norm).
    pub mirror_map: Option<L1MirrorMap>,
    /// private-frank-wolfe: the vertex selection (default report-noisy-min, the paper's).
    pub selection: Option<crate::optim::SelectionMechanism>,
    /// private-frank-wolfe: T, the number of phases (default: see `RunSpec::plan`);
    /// localized-mirror-descent: k, the number of phases (default ⌊log₂ n⌋).
    pub phases: Option<u32>,
    /// entropic-mirror-descent: R, passes over the data (default 1).
    pub rounds: Option<u64>,
}

impl RunSpec {
    /// The learning rate a new spec starts with (the CLI's default).
    pub const DEFAULT_LEARNING_RATE: f64 = 0.1;

    /// The CLI's defaults for `algorithm` and `loss`: no privacy setting yet (give `epsilon` and
    /// `delta`, or `sigma`), learning rate 0.1, clip 1, unconstrained, seed 0.
    pub fn new(algorithm: Algorithm, loss: RunLoss) -> Self {
        RunSpec {
            algorithm,
            loss,
            hidden: Vec::new(),
            epsilon: None,
            delta: None,
            sigma: None,
            paper_noise: false,
            neighbouring: Neighbouring::AddRemove,
            batch_size: None,
            sampling: None,
            steps: None,
            learning_rate: RunSpec::DEFAULT_LEARNING_RATE,
            clip: Some(1.0),
            domain: Domain::Unconstrained,
            output: None,
            seed: 0,
            ellipsoid: None,
            projection: None,
            variant: Variant::Minibatch,
            beta1: None,
            beta2: None,
            nu: None,
            lambda: None,
            bias_correction: None,
            dp2: Dp2Options::default(),
            mirror_map: None,
            selection: None,
            phases: None,
            rounds: None,
        }
    }

    /// Whether the run makes a privacy claim: it adds noise to clipped gradients. DP² clips with
    /// `dp2.clip_sgd` (default `clip`; its adaptive phase defaults to that), so a DP² run with
    /// `clip` none and a `clip_sgd` is clipped.
    pub fn is_private(&self) -> bool {
        let clipped =
            if self.algorithm.is_dp2() { self.dp2.clip_sgd.or(self.clip).is_some() } else { self.clip.is_some() };
        clipped && (self.epsilon.is_some() || self.sigma.is_some_and(|s| s > 0.0))
    }
}

/// An [`Error::RunSpec`] about `parameter`; `message` names parameters in backticks.
pub(crate) fn refuse(parameter: &'static str, message: impl Into<String>) -> Error {
    Error::RunSpec { parameter, message: message.into() }
}

/// "invalid parameter `name` = value: must be constraint", the [`Error::InvalidParameter`] text.
pub(crate) fn invalid(parameter: &'static str, value: impl std::fmt::Display, constraint: &str) -> Error {
    refuse(parameter, format!("invalid parameter `{parameter}` = {value}: must be {constraint}"))
}

/// `x` if `ok`, else "`parameter` must be `what`, got `x`".
pub(crate) fn require(parameter: &'static str, x: f64, ok: bool, what: &str) -> crate::error::Result<f64> {
    if ok { Ok(x) } else { Err(refuse(parameter, format!("`{parameter}` must be {what}, got {}", display_number(x)))) }
}

/// A value as [`Error::InvalidParameter`] shows it through the CLI: `{}`, or the short form when
/// that is longer than 20 characters (1e-300, not 300 digits).
pub(crate) fn value_text(x: f64) -> String {
    crate::error::short_value(x.to_string())
}
