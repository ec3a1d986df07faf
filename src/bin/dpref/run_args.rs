//! The flags of `run`.

use crate::account_args::{NeighbouringArg, SamplingArg};
use crate::flags::{whole_u64, whole_usize};
use clap::{Args, ValueEnum};
use dpref::optim::run_spec::Dp2Options;
use std::path::PathBuf;

// Help texts that name a paper key ([ADFJT], [ZCHWB], [LZLRMS]) are `help = ...` attributes, not
// doc comments: clap shows doc comments verbatim, so rustdoc's escapes would show as `\[ADFJT\]`.
// The keys are the papers listed in the README.

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
pub(crate) enum AlgorithmArg {
    /// DP-SGD (Abadi et al. 2016): per-example l2 clip C, Gaussian noise sigma*C.
    DpSgd,
    #[value(help = "PASAN ([ADFJT] Alg. 1): ellipsoid clipping, noise z*A^{-1/2}w, AdaGrad-norm steps")]
    Pasan,
    #[value(help = "PAGAN ([ADFJT] Alg. 2): ellipsoid clipping, noise z*A^{-1/2}w, diagonal AdaGrad steps")]
    Pagan,
    #[value(help = "DP-GD ([ZCHWB]): --variant minibatch is DP-SGD's privatised gradient with plain steps; \
                    --variant paper is Algorithm 1 with psi = 1 (full batch, output w_R)")]
    DpGd,
    #[value(help = "DP-RMSProp ([ZCHWB]): minibatch = PyTorch RMSprop (alpha = --beta2, eps = --nu) on the \
                    privatised gradient; paper = Algorithm 1 (v = min(psi, lambda), nu outside the root)")]
    DpRmsprop,
    #[value(help = "DP-Adam ([ZCHWB]): minibatch = PyTorch Adam (bias correction on by default); paper = \
                    Algorithm 1 without bias correction")]
    DpAdam,
    /// DP-AdaGrad: PyTorch Adagrad (eps = --nu) on the privatised minibatch gradient (minibatch only).
    DpAdagrad,
    #[value(help = "DP²-RMSProp ([LZLRMS] Alg. 1): s1 DP-SGD steps, then s2 steps whose per-example gradients \
                    are divided by D = sqrt(v) + nu, clipped to C2 and noised; v updated once per cycle from \
                    the average of the s1 released noisy gradients (beta = --beta2)")]
    Dp2Rmsprop,
    #[value(help = "DP²-AdaGrad ([LZLRMS] App. D): v <- v + (G/s1)^2")]
    Dp2Adagrad,
    #[value(help = "DP²-Yogi ([LZLRMS] App. D, misprint corrected): v <- v + (1 - beta) sign(g^2 - v) g^2")]
    Dp2Yogi,
    #[value(help = "Noisy stochastic mirror descent ([AFKT] Alg. 1) over --domain l1:<r>; --clip is L, the \
                    bound on |grad f|_inf; replace-one")]
    NoisyMirrorDescent,
    #[value(help = "Localized noisy mirror descent ([AFKT] Alg. 2, DP-SCO) over --domain l1:<r>: --phases k \
                    phases on fresh disjoint blocks, each Alg. 1 on a regularised objective at (2^-i eps, delta); \
                    the schedule and Theorem 4's step are the paper's; replace-one")]
    LocalizedMirrorDescent,
    #[value(help = "Private variance-reduced Frank-Wolfe ([AFKT] Alg. 3) over --domain l1:<r> or simplex; pure \
                    --epsilon (no --delta); --phases T, --batch-size b (root batch, a multiple of 2^T)")]
    PrivateFrankWolfe,
    #[value(help = "Stochastic mirror descent with KL on --domain simplex ([AFKT] Alg. 4), non-private \
                    (--sigma 0); --rounds passes")]
    EntropicMirrorDescent,
    #[value(help = "Bias-reduced sparse SGD with a privacy filter ([GGKKM] Alg. 6) on CSR data: random stopping \
                    time, rows in S_s^d (--l2-bound, --sparsity), (eps <= 1, delta > 0), replace-one")]
    SparseSgd,
    #[value(help = "Boosted bias-reduced sparse SGD ([GGKKM] Alg. 7): K = ceil(log2(2/--beta)) runs of sparse-sgd \
                    at (eps, delta)/(K+1) and a private noisy-argmin selection")]
    SparseBoostedSgd,
}

#[derive(Clone, Copy, ValueEnum)]
pub(crate) enum MirrorMapArg {
    /// (c/2)|x|_p^2 with p = 1 + 1/ln d (default).
    Pnorm,
    /// The entropic map on the l1 ball as the image of a simplex.
    Entropic,
}

#[derive(Clone, Copy, ValueEnum)]
pub(crate) enum SelectionArg {
    /// argmin of the scores plus Laplace noise (the paper's; default).
    ReportNoisyMin,
    /// The exponential mechanism, exact probabilities.
    Exponential,
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
pub(crate) enum LossArg {
    /// |<x, a> - b| (regression).
    Absolute,
    /// (<x, a> - b)^2 / 2 (regression).
    Squared,
    /// log(1 + exp(-y <x, a>)), labels in {0, 1} or {-1, +1}.
    Logistic,
    /// max(0, 1 - y <x, a>), labels in {0, 1} or {-1, +1}.
    Hinge,
    /// Softmax cross-entropy of the network given by --hidden; labels are class indices 0..K-1.
    CrossEntropy,
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
pub(crate) enum AblationArg {
    /// Variant 1 (Algorithm 2): a second, preconditioned query at each non-update step.
    ExtraQuery,
    /// Variant 2: privatise as DP-SGD, then divide by D.
    NoiseFirst,
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
pub(crate) enum VariantArg {
    #[value(help = "Poisson-sampled, per-example-clipped minibatch steps with PyTorch-style updates (what \
                    users train with and what [ZCHWB]'s experiments ran)")]
    Minibatch,
    #[value(help = "[ZCHWB] Algorithm 1: full-batch gradient plus N(0, sigma^2 I), no bias correction, the \
                    lambda cap, output w_R (what the theorems analyse). Only with --sampling full")]
    Paper,
}

#[derive(Clone, Copy, ValueEnum)]
pub(crate) enum OutputArg {
    /// (1/T) sum_{k=0}^{T-1} x^k (what the proofs bound).
    Average0,
    #[value(help = "(1/T) sum_{k=1}^{T} x^k (as printed in [ADFJT])")]
    Average1,
    /// x^T.
    Last,
    #[value(help = "w_R with R uniform on {1..T} ([ZCHWB] --variant paper only; its default)")]
    Random,
}

#[derive(Clone, Copy, ValueEnum)]
pub(crate) enum ProjectionArg {
    Radial,
    Euclidean,
}

pub(crate) const DATA_HEADING: &str = "Data and model";
pub(crate) const PRIVACY_HEADING: &str = "Privacy";
pub(crate) const TRAINING_HEADING: &str = "Training (all algorithms)";
pub(crate) const ADFJT_HEADING: &str = "PASAN, PAGAN ([ADFJT])";
pub(crate) const ZCHWB_HEADING: &str =
    "dp-gd, dp-rmsprop, dp-adam, dp-adagrad ([ZCHWB]); --beta2 and --nu also for dp2-*";
pub(crate) const DP2_HEADING: &str = "DP²: dp2-rmsprop, dp2-adagrad, dp2-yogi ([LZLRMS])";
pub(crate) const AFKT_HEADING: &str =
    "l1 geometry: noisy-mirror-descent, private-frank-wolfe, entropic-mirror-descent ([AFKT])";
pub(crate) const OUTPUT_HEADING: &str = "Output";

#[derive(Args)]
pub(crate) struct RunArgs {
    /// The algorithm.
    #[arg(value_enum)]
    pub(crate) algorithm: AlgorithmArg,
    /// Training data: CSV (label in the last column unless --label-column) or LIBSVM (.svm, .libsvm).
    #[arg(long, help_heading = DATA_HEADING)]
    pub(crate) data: PathBuf,
    /// CSV only: 0-based column of the label.
    #[arg(long, value_parser = whole_usize, help_heading = DATA_HEADING)]
    pub(crate) label_column: Option<usize>,
    /// LIBSVM only: the public dimension d (needed for a privacy claim: the file's largest feature
    /// index depends on the records, and a released x of that length would reveal it).
    #[arg(long, value_parser = whole_usize, help_heading = DATA_HEADING)]
    pub(crate) dimension: Option<usize>,
    /// Loss (logistic/hinge labels in {0,1} or {-1,+1}; cross-entropy needs --hidden).
    #[arg(long, value_enum, help_heading = DATA_HEADING)]
    pub(crate) loss: LossArg,
    /// Hidden layer widths of a ReLU network with a softmax cross-entropy loss (e.g. 128,128), for
    /// dp-gd, dp-rmsprop, dp-adam, dp-adagrad and dp2-*; labels are class indices 0..K-1, K = max
    /// + 1. Requires --loss cross-entropy. At most 2^24 parameters.
    #[arg(long, value_delimiter = ',', value_parser = whole_usize, help_heading = DATA_HEADING)]
    pub(crate) hidden: Vec<usize>,
    /// Target epsilon (calibrates the noise multiplier with the RDP accountant; needs --delta).
    #[arg(long, help_heading = PRIVACY_HEADING)]
    pub(crate) epsilon: Option<f64>,
    /// delta of the target (or, with --sigma, the delta at which epsilon is reported).
    #[arg(long, help_heading = PRIVACY_HEADING)]
    pub(crate) delta: Option<f64>,
    /// Noise multiplier sigma (std / clip on the sum); 0 is the non-private run.
    #[arg(long, help_heading = PRIVACY_HEADING)]
    pub(crate) sigma: Option<f64>,
    /// Neighbouring relation of the privacy claim.
    #[arg(long, value_enum, default_value = "add-remove", help_heading = PRIVACY_HEADING)]
    pub(crate) neighbouring: NeighbouringArg,
    /// Batch size b: expected size under Poisson (q = b/n), exact for fixed-size schemes, n for full.
    #[arg(long, value_parser = whole_usize, help_heading = TRAINING_HEADING)]
    pub(crate) batch_size: Option<usize>,
    /// Batch sampling (default: poisson; full for --variant paper, which allows nothing else).
    #[arg(long, value_enum, help_heading = TRAINING_HEADING)]
    pub(crate) sampling: Option<SamplingArg>,
    /// Steps T (default: one epoch, ceil(n/b)).
    #[arg(long, value_parser = whole_u64, help_heading = TRAINING_HEADING)]
    pub(crate) steps: Option<u64>,
    /// Learning rate eta (DP-SGD) or step scale alpha (PASAN, PAGAN).
    #[arg(long, default_value_t = 0.1, help_heading = TRAINING_HEADING)]
    pub(crate) learning_rate: f64,
    /// Clip radius: C for DP-SGD, B for the ellipsoid A = C/B^2 of PASAN/PAGAN; "none" disables
    /// clipping (only with --sigma: no privacy claim without a sensitivity bound).
    #[arg(long, default_value = "1.0", help_heading = TRAINING_HEADING)]
    pub(crate) clip: String,
    /// Constraint set X: box:<r>, l2:<r>, l1:<r> or none.
    #[arg(long, default_value = "none", help_heading = TRAINING_HEADING)]
    pub(crate) domain: String,
    /// Which point is returned (default: average0; last for the minibatch dp-gd family and dp2-*,
    /// random for --variant paper).
    #[arg(long, value_enum, help_heading = TRAINING_HEADING)]
    pub(crate) output: Option<OutputArg>,
    /// Seed of all randomness.
    #[arg(long, default_value_t = 0, value_parser = whole_u64, help_heading = TRAINING_HEADING)]
    pub(crate) seed: u64,
    /// Diagonal C of the ellipsoid: identity (default), power:<p> (C_jj = j^p), or file:<path>
    /// (d positive numbers, one per line).
    #[arg(long, help_heading = ADFJT_HEADING)]
    pub(crate) ellipsoid: Option<String>,
    /// Projection onto the ellipsoid (default: radial).
    #[arg(long, value_enum, help_heading = ADFJT_HEADING)]
    pub(crate) projection: Option<ProjectionArg>,
    /// The paper's noise multiplier sqrt(log(1/delta))/epsilon (not a certified calibration; the
    /// reported epsilon is what the accountant derives for it). Needs --epsilon, --delta.
    #[arg(long, help_heading = ADFJT_HEADING)]
    pub(crate) paper_noise: bool,
    /// The minibatch optimiser or the paper's Algorithm 1 (dp-gd, dp-rmsprop, dp-adam).
    #[arg(long, value_enum, default_value = "minibatch", help_heading = ZCHWB_HEADING)]
    pub(crate) variant: VariantArg,
    /// dp-adam: beta1 in [0, 1) (default 0.9).
    #[arg(long, help_heading = ZCHWB_HEADING)]
    pub(crate) beta1: Option<f64>,
    /// dp-rmsprop, dp-adam, dp2-rmsprop, dp2-yogi: beta2 in (0, 1) (PyTorch's alpha for RMSprop,
    /// DP²'s beta); default 0.99 for dp-rmsprop, 0.999 for dp-adam, 0.9 for dp2-*.
    #[arg(long, help_heading = ZCHWB_HEADING)]
    pub(crate) beta2: Option<f64>,
    /// dp-rmsprop, dp-adam, dp-adagrad, dp2-*: nu, added outside the square root (PyTorch's eps;
    /// DP²'s epsilon of D = sqrt(v) + epsilon); >= 0 for the minibatch optimisers, > 0 for
    /// --variant paper and dp2-*. Default 1e-8, and 1e-7 for dp2-* (the authors' code).
    #[arg(long, help_heading = ZCHWB_HEADING)]
    pub(crate) nu: Option<f64>,
    /// --variant paper: the cap lambda on the second moment's value v = min(psi, lambda), a
    /// positive number or none (no cap).
    #[arg(long, default_value = "none", help_heading = ZCHWB_HEADING)]
    pub(crate) lambda: String,
    /// --variant minibatch dp-adam: divide the moments by 1 - beta^t (PyTorch: on). The paper's
    /// Algorithm 1 has no bias correction.
    #[arg(long, help_heading = ZCHWB_HEADING)]
    pub(crate) bias_correction: Option<bool>,
    #[command(flatten)]
    pub(crate) dp2: Dp2Args,
    /// noisy-mirror-descent: the mirror map.
    #[arg(long, value_enum, help_heading = AFKT_HEADING)]
    pub(crate) mirror_map: Option<MirrorMapArg>,
    /// private-frank-wolfe: the private vertex selection.
    #[arg(long, value_enum, help_heading = AFKT_HEADING)]
    pub(crate) selection: Option<SelectionArg>,
    /// private-frank-wolfe: T, the number of phases (K = 2^(T+1) - 2 steps); localized-mirror-descent: k.
    #[arg(long, value_parser = whole_u64, help_heading = AFKT_HEADING)]
    pub(crate) phases: Option<u64>,
    /// entropic-mirror-descent: passes over the data.
    #[arg(long, value_parser = whole_u64, help_heading = AFKT_HEADING)]
    pub(crate) rounds: Option<u64>,
    #[command(flatten)]
    pub(crate) sparse: crate::run_sparse_args::SparseArgs,
    /// Print one JSON object instead of text.
    #[arg(long, help_heading = OUTPUT_HEADING)]
    pub(crate) json: bool,
}

/// The DP²-only flags of `run`, the CLI side of [`Dp2Options`], under their own heading.
#[derive(Args)]
#[command(next_help_heading = DP2_HEADING)]
pub(crate) struct Dp2Args {
    /// s1, the DP-SGD steps per cycle whose averaged releases update the preconditioner (default 100).
    #[arg(long, value_parser = whole_u64)]
    pub(crate) delay_sgd: Option<u64>,
    /// s2, the adaptive steps per cycle (default: s1).
    #[arg(long, value_parser = whole_u64)]
    pub(crate) delay_adaptive: Option<u64>,
    /// C1, the clip of the DP-SGD steps (default: --clip).
    #[arg(long)]
    pub(crate) clip_sgd: Option<f64>,
    /// C2, the clip of the preconditioned gradients in adaptive steps (default: C1).
    #[arg(long)]
    pub(crate) clip_adaptive: Option<f64>,
    /// alpha2, the learning rate of adaptive steps (default: --learning-rate).
    #[arg(long)]
    pub(crate) learning_rate_adaptive: Option<f64>,
    #[arg(
        long,
        value_enum,
        help = "An ablation of [LZLRMS] App. D: extra-query (variant 1, a second data query per adaptive \
                step; the accountant charges it) or noise-first (variant 2, noise before preconditioning, \
                one clip C1)."
    )]
    pub(crate) ablation: Option<AblationArg>,
}

impl Dp2Args {
    /// The library's DP² options of these flags.
    pub(crate) fn options(&self) -> Dp2Options {
        Dp2Options {
            delay_sgd: self.delay_sgd,
            delay_adaptive: self.delay_adaptive,
            clip_sgd: self.clip_sgd,
            clip_adaptive: self.clip_adaptive,
            learning_rate_adaptive: self.learning_rate_adaptive,
            ablation: self.ablation.map(Into::into),
        }
    }
}
