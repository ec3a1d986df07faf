//! The `dpref` command line (contract: shared/CLI.md). Thin: parse, call the library, print.
//! Exit codes: 0 success, 2 bad input or unsupported request (one `error:` line on stderr),
//! 3 an audit found a violation.

use clap::{Args, Parser, Subcommand, ValueEnum};
use dpref::accounting::{
    Conversion, DpEvent, Neighbouring, RdpAccountant, RdpSettings, SamplingScheme, calibrate_noise_multiplier,
    dp_sgd_event,
};
use dpref::error::{Error, Result};
use serde_json::json;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// The exit codes, shown at the end of every subcommand's `--help`.
const EXIT_CODES: &str = "Exit codes: 0 success; 2 bad input or an unsupported request (one line on stderr \
                          starting with 'error:').";
/// The exit codes of `audit`, which adds 3.
const EXIT_CODES_AUDIT: &str = "Exit codes: 0 no violation found; 3 the claimed epsilon is refuted (the certified \
                                lower bound exceeds it); 2 bad input or an unsupported request (one line on stderr \
                                starting with 'error:').";

#[derive(Parser)]
#[command(
    name = "dpref",
    version,
    about = "Reference implementation of differentially private optimization: accounting, audits, algorithms.",
    color = clap::ColorChoice::Never,
    after_help = EXIT_CODES_AUDIT
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Privacy (epsilon at delta) of T steps of a subsampled Gaussian mechanism.
    #[command(after_help = EXIT_CODES, allow_negative_numbers = true)]
    Account(AccountArgs),
    /// The smallest noise multiplier that meets a target (epsilon, delta).
    #[command(after_help = EXIT_CODES, allow_negative_numbers = true)]
    Calibrate(CalibrateArgs),
    /// Re-run the papers' experiments (shrunk to two cores) and print their tables.
    #[command(after_help = EXIT_CODES, allow_negative_numbers = true)]
    Reproduce(ReproduceArgs),
    /// Audit a mechanism: a certified lower bound on its epsilon.
    #[command(subcommand, after_help = EXIT_CODES_AUDIT)]
    Audit(AuditCommand),
    /// Train with one algorithm on a dataset and report the output point and its privacy.
    #[command(after_help = EXIT_CODES, allow_negative_numbers = true)]
    Run(Box<RunArgs>),
}

// Help texts that name a paper key ([ADFJT], [ZCHWB], [LZLRMS]) are `help = ...` attributes, not
// doc comments: clap shows doc comments verbatim, so rustdoc's escapes would show as `\[ADFJT\]`.
// The keys are the papers listed in the README.

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
enum AlgorithmArg {
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
}

impl AlgorithmArg {
    fn name(self) -> &'static str {
        match self {
            AlgorithmArg::DpSgd => "dp-sgd",
            AlgorithmArg::Pasan => "pasan",
            AlgorithmArg::Pagan => "pagan",
            AlgorithmArg::DpGd => "dp-gd",
            AlgorithmArg::DpRmsprop => "dp-rmsprop",
            AlgorithmArg::DpAdam => "dp-adam",
            AlgorithmArg::DpAdagrad => "dp-adagrad",
            AlgorithmArg::Dp2Rmsprop => "dp2-rmsprop",
            AlgorithmArg::Dp2Adagrad => "dp2-adagrad",
            AlgorithmArg::Dp2Yogi => "dp2-yogi",
        }
    }

    /// The \[LZLRMS\] DP² family.
    fn is_dp2(self) -> bool {
        matches!(self, AlgorithmArg::Dp2Rmsprop | AlgorithmArg::Dp2Adagrad | AlgorithmArg::Dp2Yogi)
    }

    /// The \[ZCHWB\] family (dp-gd, dp-rmsprop, dp-adam) and its minibatch kin dp-adagrad.
    fn is_dpagd(self) -> bool {
        matches!(self, AlgorithmArg::DpGd | AlgorithmArg::DpRmsprop | AlgorithmArg::DpAdam | AlgorithmArg::DpAdagrad)
    }

    /// PASAN and PAGAN (\[ADFJT\]).
    fn is_adaptive_noise(self) -> bool {
        matches!(self, AlgorithmArg::Pasan | AlgorithmArg::Pagan)
    }
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
enum LossArg {
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

impl LossArg {
    fn name(self) -> &'static str {
        match self {
            LossArg::Absolute => "absolute",
            LossArg::Squared => "squared",
            LossArg::Logistic => "logistic",
            LossArg::Hinge => "hinge",
            LossArg::CrossEntropy => "cross-entropy",
        }
    }
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
enum AblationArg {
    /// Variant 1 (Algorithm 2): a second, preconditioned query at each non-update step.
    ExtraQuery,
    /// Variant 2: privatise as DP-SGD, then divide by D.
    NoiseFirst,
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
enum VariantArg {
    #[value(help = "Poisson-sampled, per-example-clipped minibatch steps with PyTorch-style updates (what \
                    users train with and what [ZCHWB]'s experiments ran)")]
    Minibatch,
    #[value(help = "[ZCHWB] Algorithm 1: full-batch gradient plus N(0, sigma^2 I), no bias correction, the \
                    lambda cap, output w_R (what the theorems analyse). Only with --sampling full")]
    Paper,
}

#[derive(Clone, Copy, ValueEnum)]
enum OutputArg {
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
enum ProjectionArg {
    Radial,
    Euclidean,
}

const DATA_HEADING: &str = "Data and model";
const PRIVACY_HEADING: &str = "Privacy";
const TRAINING_HEADING: &str = "Training (all algorithms)";
const ADFJT_HEADING: &str = "PASAN, PAGAN ([ADFJT])";
const ZCHWB_HEADING: &str = "dp-gd, dp-rmsprop, dp-adam, dp-adagrad ([ZCHWB]); --beta2 and --nu also for dp2-*";
const DP2_HEADING: &str = "DP²: dp2-rmsprop, dp2-adagrad, dp2-yogi ([LZLRMS])";
const OUTPUT_HEADING: &str = "Output";

#[derive(Args)]
struct RunArgs {
    /// The algorithm.
    #[arg(value_enum)]
    algorithm: AlgorithmArg,
    /// Training data: CSV (label in the last column unless --label-column) or LIBSVM (.svm, .libsvm).
    #[arg(long, help_heading = DATA_HEADING)]
    data: PathBuf,
    /// CSV only: 0-based column of the label.
    #[arg(long, value_parser = whole_usize, help_heading = DATA_HEADING)]
    label_column: Option<usize>,
    /// Loss (logistic/hinge labels in {0,1} or {-1,+1}; cross-entropy needs --hidden).
    #[arg(long, value_enum, help_heading = DATA_HEADING)]
    loss: LossArg,
    /// Hidden layer widths of a ReLU network with a softmax cross-entropy loss (e.g. 128,128), for
    /// dp-gd, dp-rmsprop, dp-adam, dp-adagrad and dp2-*; labels are class indices 0..K-1, K = max
    /// + 1. Requires --loss cross-entropy. At most 2^24 parameters.
    #[arg(long, value_delimiter = ',', value_parser = whole_usize, help_heading = DATA_HEADING)]
    hidden: Vec<usize>,
    /// Target epsilon (calibrates the noise multiplier with the RDP accountant; needs --delta).
    #[arg(long, help_heading = PRIVACY_HEADING)]
    epsilon: Option<f64>,
    /// delta of the target (or, with --sigma, the delta at which epsilon is reported).
    #[arg(long, help_heading = PRIVACY_HEADING)]
    delta: Option<f64>,
    /// Noise multiplier sigma (std / clip on the sum); 0 is the non-private run.
    #[arg(long, help_heading = PRIVACY_HEADING)]
    sigma: Option<f64>,
    /// Neighbouring relation of the privacy claim.
    #[arg(long, value_enum, default_value = "add-remove", help_heading = PRIVACY_HEADING)]
    neighbouring: NeighbouringArg,
    /// Batch size b: expected size under Poisson (q = b/n), exact for fixed-size schemes, n for full.
    #[arg(long, value_parser = whole_usize, help_heading = TRAINING_HEADING)]
    batch_size: Option<usize>,
    /// Batch sampling (default: poisson; full for --variant paper, which allows nothing else).
    #[arg(long, value_enum, help_heading = TRAINING_HEADING)]
    sampling: Option<SamplingArg>,
    /// Steps T (default: one epoch, ceil(n/b)).
    #[arg(long, value_parser = whole_u64, help_heading = TRAINING_HEADING)]
    steps: Option<u64>,
    /// Learning rate eta (DP-SGD) or step scale alpha (PASAN, PAGAN).
    #[arg(long, default_value_t = 0.1, help_heading = TRAINING_HEADING)]
    learning_rate: f64,
    /// Clip radius: C for DP-SGD, B for the ellipsoid A = C/B^2 of PASAN/PAGAN; "none" disables
    /// clipping (only with --sigma: no privacy claim without a sensitivity bound).
    #[arg(long, default_value = "1.0", help_heading = TRAINING_HEADING)]
    clip: String,
    /// Constraint set X: box:<r>, l2:<r>, l1:<r> or none.
    #[arg(long, default_value = "none", help_heading = TRAINING_HEADING)]
    domain: String,
    /// Which point is returned (default: average0; last for the minibatch dp-gd family and dp2-*,
    /// random for --variant paper).
    #[arg(long, value_enum, help_heading = TRAINING_HEADING)]
    output: Option<OutputArg>,
    /// Seed of all randomness.
    #[arg(long, default_value_t = 0, value_parser = whole_u64, help_heading = TRAINING_HEADING)]
    seed: u64,
    /// Diagonal C of the ellipsoid: identity (default), power:<p> (C_jj = j^p), or file:<path>
    /// (d positive numbers, one per line).
    #[arg(long, help_heading = ADFJT_HEADING)]
    ellipsoid: Option<String>,
    /// Projection onto the ellipsoid (default: radial).
    #[arg(long, value_enum, help_heading = ADFJT_HEADING)]
    projection: Option<ProjectionArg>,
    /// The paper's noise multiplier sqrt(log(1/delta))/epsilon (not a certified calibration; the
    /// reported epsilon is what the accountant derives for it). Needs --epsilon, --delta.
    #[arg(long, help_heading = ADFJT_HEADING)]
    paper_noise: bool,
    /// The minibatch optimiser or the paper's Algorithm 1 (dp-gd, dp-rmsprop, dp-adam).
    #[arg(long, value_enum, default_value = "minibatch", help_heading = ZCHWB_HEADING)]
    variant: VariantArg,
    /// dp-adam: beta1 in [0, 1) (default 0.9).
    #[arg(long, help_heading = ZCHWB_HEADING)]
    beta1: Option<f64>,
    /// dp-rmsprop, dp-adam, dp2-rmsprop, dp2-yogi: beta2 in (0, 1) (PyTorch's alpha for RMSprop,
    /// DP²'s beta); default 0.99 for dp-rmsprop, 0.999 for dp-adam, 0.9 for dp2-*.
    #[arg(long, help_heading = ZCHWB_HEADING)]
    beta2: Option<f64>,
    /// dp-rmsprop, dp-adam, dp-adagrad, dp2-*: nu, added outside the square root (PyTorch's eps;
    /// DP²'s epsilon of D = sqrt(v) + epsilon); >= 0 for the minibatch optimisers, > 0 for
    /// --variant paper and dp2-*. Default 1e-8, and 1e-7 for dp2-* (the authors' code).
    #[arg(long, help_heading = ZCHWB_HEADING)]
    nu: Option<f64>,
    /// --variant paper: the cap lambda on the second moment's value v = min(psi, lambda), a
    /// positive number or none (no cap).
    #[arg(long, default_value = "none", help_heading = ZCHWB_HEADING)]
    lambda: String,
    /// --variant minibatch dp-adam: divide the moments by 1 - beta^t (PyTorch: on). The paper's
    /// Algorithm 1 has no bias correction.
    #[arg(long, help_heading = ZCHWB_HEADING)]
    bias_correction: Option<bool>,
    /// s1, the DP-SGD steps per cycle whose averaged releases update the preconditioner (default 100).
    #[arg(long, value_parser = whole_u64, help_heading = DP2_HEADING)]
    delay_sgd: Option<u64>,
    /// s2, the adaptive steps per cycle (default: s1).
    #[arg(long, value_parser = whole_u64, help_heading = DP2_HEADING)]
    delay_adaptive: Option<u64>,
    /// C1, the clip of the DP-SGD steps (default: --clip).
    #[arg(long, help_heading = DP2_HEADING)]
    clip_sgd: Option<f64>,
    /// C2, the clip of the preconditioned gradients in adaptive steps (default: C1).
    #[arg(long, help_heading = DP2_HEADING)]
    clip_adaptive: Option<f64>,
    /// alpha2, the learning rate of adaptive steps (default: --learning-rate).
    #[arg(long, help_heading = DP2_HEADING)]
    learning_rate_adaptive: Option<f64>,
    #[arg(
        long,
        value_enum,
        help_heading = DP2_HEADING,
        help = "An ablation of [LZLRMS] App. D: extra-query (variant 1, a second data query per adaptive \
                step; the accountant charges it) or noise-first (variant 2, noise before preconditioning, \
                one clip C1)."
    )]
    ablation: Option<AblationArg>,
    /// Print one JSON object instead of text.
    #[arg(long, help_heading = OUTPUT_HEADING)]
    json: bool,
}

#[derive(Subcommand)]
enum AuditCommand {
    /// Audit another implementation from its outputs on two neighbouring datasets.
    #[command(after_help = EXIT_CODES_AUDIT, allow_negative_numbers = true)]
    Samples(AuditSamplesArgs),
}

#[derive(Clone, Copy, ValueEnum)]
enum StrategyArg {
    Bonferroni,
    Split,
}

#[derive(Args)]
struct AuditSamplesArgs {
    /// Outputs on D: one real number per line, or a CSV (see --column).
    #[arg(long)]
    a: PathBuf,
    /// Outputs on D' (neighbouring), in the same format.
    #[arg(long)]
    b: PathBuf,
    /// The column holding the outputs in both files: a header name or a 0-based index. Needed when
    /// the files have more than one column (e.g. pandas' to_csv() writes the row index first).
    #[arg(long)]
    column: Option<String>,
    /// delta of the claim tested, in [0, 1).
    #[arg(long, default_value_t = 0.0)]
    delta: f64,
    /// The epsilon the implementation claims; exit code 3 if the bound exceeds it.
    #[arg(long)]
    claimed_epsilon: Option<f64>,
    /// Confidence 1 - beta of the bound, in [0.5, 1) (e.g. 0.95, not the error rate 0.05).
    #[arg(long, default_value_t = 0.95)]
    confidence: f64,
    /// How the threshold is chosen: all thresholds with a simultaneous (Bonferroni) correction,
    /// or chosen on half of the samples and certified on the other half.
    #[arg(long, value_enum, default_value = "bonferroni")]
    threshold_strategy: StrategyArg,
    /// Seed of the split.
    #[arg(long, default_value_t = 0, value_parser = whole_u64)]
    seed: u64,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
enum SamplingArg {
    Poisson,
    WithoutReplacement,
    WithReplacement,
    Full,
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
enum NeighbouringArg {
    AddRemove,
    ReplaceOne,
}

#[derive(Clone, Copy, ValueEnum)]
enum AccountantArg {
    Rdp,
    // Not implemented yet: hidden from the help and the value list, refused with a message if given.
    #[value(hide = true)]
    Pld,
}

#[derive(Clone, Copy, ValueEnum)]
enum ConversionArg {
    Improved,
    Classic,
}

/// The largest RDP order `--orders` accepts: the accountant's work for one order grows linearly
/// with it (the integer-order sums run to alpha).
const MAX_ORDER: f64 = 1e4;
/// The most RDP orders `--orders` accepts.
const MAX_ORDERS: usize = 1000;

#[derive(Args)]
struct MechanismArgs {
    /// Number of steps T (compositions).
    #[arg(long, value_parser = whole_u64)]
    steps: u64,
    /// delta of the (epsilon, delta) guarantee, in (0, 1).
    #[arg(long)]
    delta: f64,
    /// How each step's batch is drawn (with-replacement: no accountant covers it; full: the whole
    /// dataset at every step, no sampling flags).
    #[arg(long, value_enum, default_value = "poisson")]
    sampling: SamplingArg,
    /// Poisson sampling rate q in (0, 1] (or give --batch-size and --dataset-size).
    #[arg(long)]
    q: Option<f64>,
    /// Batch size b (expected size under Poisson).
    #[arg(long, value_parser = whole_u64)]
    batch_size: Option<u64>,
    /// Dataset size n.
    #[arg(long, value_parser = whole_u64)]
    dataset_size: Option<u64>,
    /// Neighbouring relation. Under replace-one a replaced record moves a clipped sum by 2C, so the
    /// effective noise multiplier is sigma/2.
    #[arg(long, value_enum, default_value = "add-remove")]
    neighbouring: NeighbouringArg,
    /// Accountant.
    #[arg(long, value_enum, default_value = "rdp")]
    accountant: AccountantArg,
    /// RDP to (epsilon, delta) conversion (RDP only).
    #[arg(long, value_enum, default_value = "improved")]
    conversion: ConversionArg,
    /// RDP orders, comma-separated, each in (1, 10000], at most 1000 of them; default: 1.1..10.9
    /// by 0.1, 11..64, 72..1024.
    #[arg(long, value_delimiter = ',')]
    orders: Option<Vec<f64>>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
struct AccountArgs {
    /// Noise multiplier sigma: noise std divided by the per-example clip norm C.
    #[arg(long)]
    sigma: f64,
    #[command(flatten)]
    mech: MechanismArgs,
}

#[derive(Args)]
struct CalibrateArgs {
    /// Target epsilon (> 0).
    #[arg(long)]
    target_epsilon: f64,
    #[command(flatten)]
    mech: MechanismArgs,
}

#[derive(Args)]
struct ReproduceArgs {
    /// Experiments to run (default: all). Available: privacy, adaptive-noise, dpagd, dp2.
    experiments: Vec<String>,
    /// Shrink every experiment to finish in a few minutes on two cores.
    #[arg(long)]
    quick: bool,
    /// Output directory for the Markdown reports, SVG plots, their CSV data and index.md (checked
    /// writable before any computing).
    #[arg(long, default_value = "report")]
    out: PathBuf,
    /// Seed of all randomness.
    #[arg(long, default_value_t = 0, value_parser = whole_u64)]
    seed: u64,
}

/// A failure of a subcommand: a library error, or a message written here that names the flag
/// the user gave and the fix.
enum CliError {
    Lib(Error),
    Usage(String),
}

impl From<Error> for CliError {
    fn from(e: Error) -> Self {
        CliError::Lib(e)
    }
}

impl std::fmt::Display for CliError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            // A library value is formatted with `{}`, which writes 1e-300 with 300 digits.
            CliError::Lib(Error::InvalidParameter { name, value, constraint }) => {
                let value = match value.parse::<f64>() {
                    Ok(x) if value.len() > 20 => num(x),
                    _ => value.clone(),
                };
                write!(f, "{}", Error::InvalidParameter { name, value, constraint })
            }
            CliError::Lib(e) => write!(f, "{e}"),
            CliError::Usage(m) => f.write_str(m),
        }
    }
}

type CliResult<T> = std::result::Result<T, CliError>;

fn usage(message: impl Into<String>) -> CliError {
    CliError::Usage(message.into())
}

/// `x` if `ok`, else "`flag` must be `what`, got `x`".
fn require(flag: &str, x: f64, ok: bool, what: &str) -> CliResult<f64> {
    if ok { Ok(x) } else { Err(usage(format!("{flag} must be {what}, got {}", num(x)))) }
}

fn require_positive(flag: &str, x: f64) -> CliResult<f64> {
    require(flag, x, x.is_finite() && x > 0.0, "> 0 and finite")
}

fn require_open_unit(flag: &str, x: f64) -> CliResult<f64> {
    require(flag, x, x > 0.0 && x < 1.0, "in (0, 1)")
}

/// A float for people: the shortest decimal that reads back to `x`, in scientific notation when
/// `|x|` is below 1e-5 or at least 1e16 (`1e-300`, not 300 digits).
fn num(x: f64) -> String {
    let a = x.abs();
    if x == 0.0 || !x.is_finite() || (1e-5..1e16).contains(&a) { format!("{x}") } else { format!("{x:e}") }
}

/// `1 step`, `2 steps`.
fn plural(n: u64, word: &str) -> String {
    if n == 1 { format!("{n} {word}") } else { format!("{n} {word}s") }
}

/// Why an integer flag's text is refused.
enum NotWhole {
    Malformed,
    Negative,
    TooLarge,
}

/// An integer flag: digits, or a decimal or scientific notation that is exactly a whole number
/// (`1e6`, `2.5e3`), parsed exactly (no rounding through `f64`). Refused: fractions (`1.5`,
/// `1e-3`), negatives, NaN, and values beyond `u128`.
fn parse_whole(text: &str) -> std::result::Result<u128, NotWhole> {
    let t = text.trim();
    let unsigned = t.strip_prefix('+').unwrap_or(t);
    if unsigned.starts_with('-') {
        return Err(NotWhole::Negative);
    }
    let (mantissa, exponent) = match unsigned.find(['e', 'E']) {
        Some(i) => (&unsigned[..i], &unsigned[i + 1..]),
        None => (unsigned, "0"),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits_only = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if (int.is_empty() && frac.is_empty()) || !digits_only(int) || !digits_only(frac) {
        return Err(NotWhole::Malformed);
    }
    let exponent: i64 = exponent.parse().map_err(|_| {
        let e = exponent.strip_prefix('+').unwrap_or(exponent);
        if !e.is_empty() && digits_only(e) { NotWhole::TooLarge } else { NotWhole::Malformed }
    })?;
    let all = format!("{int}{frac}");
    let significant = all.trim_start_matches('0');
    let kept = significant.trim_end_matches('0');
    if kept.is_empty() {
        return Ok(0);
    }
    // value = kept · 10^shift
    let shift = exponent.saturating_sub(frac.len() as i64).saturating_add((significant.len() - kept.len()) as i64);
    if shift < 0 {
        return Err(NotWhole::Malformed);
    }
    if (kept.len() as i64).saturating_add(shift) > 39 {
        return Err(NotWhole::TooLarge);
    }
    let mut v: u128 = kept.parse().map_err(|_| NotWhole::TooLarge)?;
    for _ in 0..shift {
        v = v.checked_mul(10).ok_or(NotWhole::TooLarge)?;
    }
    Ok(v)
}

/// The clap message for an integer flag's text that is not a whole number in `0..=max`.
fn whole_in_range<T: TryFrom<u128> + std::fmt::Display>(text: &str, max: T) -> std::result::Result<T, String> {
    let t = text.trim();
    match parse_whole(t) {
        Ok(v) => T::try_from(v).map_err(|_| format!("must be at most {max}, got {t}")),
        Err(NotWhole::TooLarge) => Err(format!("must be at most {max}, got {t}")),
        Err(NotWhole::Negative) => Err(format!("must be a non-negative whole number, got {t}")),
        Err(NotWhole::Malformed) => Err(format!("must be a whole number, got '{t}'")),
    }
}

/// clap parser of `u64` flags (see [`parse_whole`]).
fn whole_u64(text: &str) -> std::result::Result<u64, String> {
    whole_in_range(text, u64::MAX)
}

/// clap parser of `usize` flags (see [`parse_whole`]).
fn whole_usize(text: &str) -> std::result::Result<usize, String> {
    whole_in_range(text, usize::MAX)
}

/// The resolved accounting request shared by `account` and `calibrate`.
struct Request {
    sampling: SamplingScheme,
    neighbouring: Neighbouring,
    settings: RdpSettings,
    steps: u64,
    delta: f64,
}

impl MechanismArgs {
    /// Checks every flag here, naming it, before the library sees it.
    fn resolve(&self) -> CliResult<Request> {
        let (q, b, n) = (self.q, self.batch_size, self.dataset_size);
        let name = match self.sampling {
            SamplingArg::Poisson => "poisson",
            SamplingArg::WithoutReplacement => "without-replacement",
            SamplingArg::WithReplacement => "with-replacement",
            SamplingArg::Full => "full",
        };
        match self.sampling {
            SamplingArg::Full => {
                if q.is_some() || b.is_some() || n.is_some() {
                    return Err(usage(
                        "--sampling full uses the whole dataset at every step: drop --q, --batch-size and \
                         --dataset-size (or choose --sampling poisson)",
                    ));
                }
            }
            SamplingArg::Poisson => match (q, b, n) {
                (Some(_), None, None) | (None, Some(_), Some(_)) => {}
                (Some(_), _, _) => {
                    return Err(usage(
                        "--q was given with --batch-size/--dataset-size: give the Poisson rate either as --q \
                         or as --batch-size with --dataset-size (q = b/n), not both",
                    ));
                }
                (None, Some(_), None) => {
                    return Err(usage(
                        "--batch-size needs --dataset-size under Poisson sampling (q = b/n), or give the rate \
                         --q instead",
                    ));
                }
                (None, None, Some(_)) => {
                    return Err(usage(
                        "--dataset-size needs --batch-size under Poisson sampling (q = b/n), or give the rate \
                         --q instead",
                    ));
                }
                (None, None, None) => {
                    return Err(usage(
                        "Poisson sampling (the default --sampling) needs its rate: --q, or --batch-size with \
                         --dataset-size",
                    ));
                }
            },
            SamplingArg::WithoutReplacement | SamplingArg::WithReplacement => {
                if q.is_some() {
                    return Err(usage(format!(
                        "--q is the Poisson rate; --sampling {name} takes --batch-size and --dataset-size"
                    )));
                }
                if b.is_none() || n.is_none() {
                    return Err(usage(format!("--sampling {name} needs both --batch-size and --dataset-size")));
                }
            }
        }
        if let Some(q) = q {
            require("--q", q, q > 0.0 && q <= 1.0, "in (0, 1]")?;
        }
        if let (Some(b), Some(n)) = (b, n) {
            if n == 0 {
                return Err(usage("--dataset-size must be at least 1, got 0"));
            }
            if b == 0 || b > n {
                return Err(usage(format!("--batch-size must be between 1 and --dataset-size = {n}, got {b}")));
            }
        }
        if let SamplingArg::WithReplacement = self.sampling {
            return Err(usage(
                "unsupported: no accountant covers --sampling with-replacement (a record can appear in a \
                 batch several times); use --sampling poisson, or --sampling without-replacement with \
                 --neighbouring replace-one",
            ));
        }
        if let AccountantArg::Pld = self.accountant {
            return Err(usage(
                "unsupported: --accountant pld: the PLD accountant is not implemented yet; use --accountant \
                 rdp (the default)",
            ));
        }
        if self.steps == 0 {
            return Err(usage("--steps must be at least 1, got 0"));
        }
        require_open_unit("--delta", self.delta)?;
        if let Some(orders) = &self.orders {
            if orders.is_empty() || orders.len() > MAX_ORDERS {
                return Err(usage(format!("--orders takes 1 to {MAX_ORDERS} orders, got {}", orders.len())));
            }
            for &a in orders {
                require(
                    "each of --orders",
                    a,
                    a > 1.0 && a <= MAX_ORDER,
                    "in (1, 10000] (the accountant's work grows with the order)",
                )?;
            }
        }
        let sampling = SamplingScheme::from_flags(name, q, b, n)?;
        let neighbouring = match self.neighbouring {
            NeighbouringArg::AddRemove => Neighbouring::AddRemove,
            NeighbouringArg::ReplaceOne => Neighbouring::ReplaceOne,
        };
        let conversion = match self.conversion {
            ConversionArg::Improved => Conversion::Improved,
            ConversionArg::Classic => Conversion::Classic,
        };
        if let Some(o) = &self.orders {
            RdpAccountant::with_orders(o.clone(), neighbouring)?; // the library's own check
        }
        Ok(Request {
            sampling,
            neighbouring,
            settings: RdpSettings { orders: self.orders.clone(), neighbouring, conversion },
            steps: self.steps,
            delta: self.delta,
        })
    }
}

impl Request {
    fn event(&self, sigma: f64) -> Result<DpEvent> {
        dp_sgd_event(sigma, self.sampling, self.steps)
    }

    fn describe(&self, sigma: f64) -> String {
        let sampling = match self.sampling {
            SamplingScheme::Poisson { q } => format!("Poisson sampling (q = {})", num(q)),
            SamplingScheme::WithoutReplacement { dataset_size, batch_size } => {
                format!("fixed-size sampling without replacement (b = {batch_size} of n = {dataset_size})")
            }
            SamplingScheme::WithReplacement { dataset_size, batch_size } => {
                format!("sampling with replacement (b = {batch_size} of n = {dataset_size})")
            }
            SamplingScheme::Full => "full batch".to_string(),
        };
        let factor = self.neighbouring.sum_sensitivity_factor();
        let eff = if factor > 1.0 {
            format!(" (effective {} under replace-one)", num(sigma / factor))
        } else {
            String::new()
        };
        format!(
            "{}, {sampling}, noise multiplier {}{eff}, {} neighbouring",
            plural(self.steps, "step"),
            num(sigma),
            self.neighbouring
        )
    }

    fn json_common(&self, sigma: f64) -> serde_json::Value {
        let (batch, n) = match self.sampling {
            SamplingScheme::WithoutReplacement { dataset_size, batch_size }
            | SamplingScheme::WithReplacement { dataset_size, batch_size } => (Some(batch_size), Some(dataset_size)),
            _ => (None, None),
        };
        json!({
            "delta": self.delta,
            "accountant": "rdp",
            "conversion": self.settings.conversion.name(),
            "sampling": self.sampling.name(),
            "q": self.sampling.rate(),
            "batch_size": batch,
            "dataset_size": n,
            "neighbouring": self.neighbouring.name(),
            "steps": self.steps,
            "sigma": sigma,
            "effective_noise_multiplier": sigma / self.neighbouring.sum_sensitivity_factor(),
        })
    }
}

/// ε, or an error saying why there is none: the accountant's bound is +∞ when the noise is too
/// small for any order to give a finite value (an overflow is never reported as ε = 0).
fn finite_epsilon(e: f64, sigma: f64, delta: f64) -> Result<f64> {
    if e.is_finite() {
        Ok(e)
    } else {
        Err(Error::Numerical {
            what: "accounting",
            reason: format!(
                "no finite epsilon at delta = {}: the noise multiplier {} is too small for the accountant to \
                 bound (epsilon = infinity); increase --sigma or --delta",
                num(delta),
                num(sigma)
            ),
        })
    }
}

fn account(args: &AccountArgs) -> CliResult<String> {
    let req = args.mech.resolve()?;
    require_positive("--sigma", args.sigma)?;
    let event = req.event(args.sigma)?;
    let bound = req.settings.epsilon(&event, req.delta)?;
    let eps = finite_epsilon(bound.epsilon, args.sigma, req.delta)?;
    if args.mech.json {
        let mut v = req.json_common(args.sigma);
        v["epsilon"] = json!(eps);
        v["order"] = json!(bound.order);
        return Ok(format!("{v}\n"));
    }
    Ok(format!(
        "epsilon = {}  (delta = {})\n  upper bound from the RDP accountant, {} conversion{}\n  mechanism: {}\n",
        num(eps),
        num(req.delta),
        req.settings.conversion.name(),
        bound.order.map_or(String::new(), |o| format!(", attained at order {}", num(o))),
        req.describe(args.sigma)
    ))
}

fn calibrate(args: &CalibrateArgs) -> CliResult<String> {
    let req = args.mech.resolve()?;
    require_positive("--target-epsilon", args.target_epsilon)?;
    let c = calibrate_noise_multiplier(
        args.target_epsilon,
        req.delta,
        &req.settings,
        dpref::accounting::calibrate::CALIBRATION_RTOL,
        |s| req.event(s),
    )?;
    if args.mech.json {
        let mut v = req.json_common(c.noise_multiplier);
        v["epsilon"] = json!(c.epsilon);
        v["target_epsilon"] = json!(args.target_epsilon);
        v["order"] = json!(c.order);
        v["evaluations"] = json!(c.evaluations);
        v["within_tolerance"] = json!(c.epsilon_just_below.is_none());
        v["epsilon_just_below"] = json!(c.epsilon_just_below);
        return Ok(format!("{v}\n"));
    }
    let jump = c.epsilon_just_below.map_or(String::new(), |below| {
        format!(
            "  note: no sigma gives an epsilon within 0.1 % of the target: the accountant's bound jumps from {} just \
             below this sigma to {} (it cannot go lower on its order grid until the total-variation bound gives 0); \
             this is the smallest sigma that meets the target\n",
            num(below),
            num(c.epsilon)
        )
    });
    Ok(format!(
        "sigma = {}\n  epsilon = {} <= target {} at delta = {} (RDP, {} conversion)\n{jump}  mechanism: {}\n",
        num(c.noise_multiplier),
        num(c.epsilon),
        num(args.target_epsilon),
        num(req.delta),
        req.settings.conversion.name(),
        req.describe(c.noise_multiplier)
    ))
}

const EXPERIMENTS: &[&str] = &["privacy", "adaptive-noise", "dpagd", "dp2"];

/// `dpref reproduce`: checks that `--out` is writable before computing anything, runs each
/// experiment (progress on stderr, the report tables on stdout) and links what it wrote in
/// `<out>/index.md` (rewritten after each experiment, so finished results stay linked).
fn reproduce(args: &ReproduceArgs) -> Result<()> {
    use dpref::experiments;
    let selected: Vec<String> = if args.experiments.is_empty() {
        EXPERIMENTS.iter().map(|s| s.to_string()).collect()
    } else {
        args.experiments.clone()
    };
    for name in &selected {
        if !EXPERIMENTS.contains(&name.as_str()) {
            return Err(Error::invalid("experiment", name, "one of: privacy, adaptive-noise, dpagd, dp2"));
        }
    }
    experiments::check_output_dir(&args.out)?;
    let options = experiments::Options { quick: args.quick, seed: args.seed, progress: true };
    let mut done = Vec::new();
    for name in &selected {
        let outcome = experiments::run_named(name, &options, &args.out)?;
        let files: Vec<String> = outcome.files.iter().map(|p| p.display().to_string()).collect();
        // A closed stdout (`| head`) is not an error: the files are still written.
        write_stdout(&format!(
            "{}\n(written to {} in {:.1} s)\n\n",
            outcome.markdown,
            files.join(", "),
            outcome.seconds
        ))
        .map_err(|e| Error::Io { path: "stdout".into(), message: e.to_string() })?;
        done.push(outcome);
        experiments::write_index(&args.out, &options, &done)?;
    }
    eprintln!("index of this run: {}", args.out.join("index.md").display());
    Ok(())
}

fn parse_ellipsoid(spec: &str, d: usize) -> CliResult<Vec<f64>> {
    let bad = || usage(format!("--ellipsoid must be identity, power:<p> or file:<path>, got '{spec}'"));
    if spec == "identity" {
        return Ok(vec![1.0; d]);
    }
    if let Some(p) = spec.strip_prefix("power:") {
        let p: f64 = p.parse().map_err(|_| bad())?;
        require("--ellipsoid power:<p>", p, p.is_finite(), "finite")?;
        return Ok((1..=d).map(|j| (j as f64).powf(p)).collect());
    }
    if let Some(path) = spec.strip_prefix("file:") {
        let c = dpref::audit::samples::read_samples(std::path::Path::new(path))?;
        if c.len() != d {
            return Err(usage(format!(
                "--ellipsoid file:{path} must hold d = {d} values (one per feature), got {}",
                c.len()
            )));
        }
        for &v in &c {
            require_positive("every entry of --ellipsoid file", v)?;
        }
        return Ok(c);
    }
    Err(bad())
}

/// The model a `dpref run` trains: a GLM loss, or (the \[ZCHWB\] and DP² families with `--hidden`)
/// an MLP.
enum RunModel {
    Glm(dpref::model::Glm),
    Mlp(dpref::model::Mlp),
}

fn run_model(args: &RunArgs, data: &dpref::data::Dataset) -> CliResult<RunModel> {
    let network_algorithms = "dp-gd, dp-rmsprop, dp-adam, dp-adagrad and dp2-*";
    let is_ce = args.loss == LossArg::CrossEntropy;
    if is_ce || !args.hidden.is_empty() {
        if !(args.algorithm.is_dpagd() || args.algorithm.is_dp2()) {
            let what = if is_ce { "--loss cross-entropy" } else { "--hidden" };
            return Err(usage(format!(
                "{what} (a softmax network) is available for {network_algorithms}, not {}",
                args.algorithm.name()
            )));
        }
        if !is_ce {
            return Err(usage(format!(
                "--hidden trains a softmax network: pass --loss cross-entropy, not --loss {}",
                args.loss.name()
            )));
        }
        if args.hidden.is_empty() {
            return Err(usage(
                "--loss cross-entropy needs --hidden, the hidden layer widths of the network (e.g. --hidden 128,128)",
            ));
        }
        if args.hidden.contains(&0) {
            return Err(usage("every width in --hidden must be at least 1"));
        }
        let max = data.labels().iter().copied().fold(0.0, f64::max);
        let classes = if max.fract() == 0.0 && max < 1e6 { max as usize + 1 } else { 0 };
        let classes = classes.max(2);
        let limit = dpref::model::mlp::MAX_PARAMETERS;
        match dpref::model::Mlp::parameter_count(data.d(), &args.hidden, classes) {
            Some(p) if p <= limit => {}
            p => {
                let count = p.map_or_else(|| "more than 2^64".to_string(), |p| p.to_string());
                return Err(usage(format!(
                    "--hidden gives a network of {count} parameters (input dimension d = {}, K = {} classes); \
                     the limit is {limit} (2^24)",
                    data.d(),
                    classes
                )));
            }
        }
        return Ok(RunModel::Mlp(dpref::model::Mlp::new(data.d(), &args.hidden, classes)?));
    }
    let loss = match args.loss {
        LossArg::Absolute => dpref::loss::Loss::Absolute,
        LossArg::Squared => dpref::loss::Loss::Squared,
        LossArg::Logistic => dpref::loss::Loss::Logistic,
        LossArg::Hinge => dpref::loss::Loss::Hinge,
        LossArg::CrossEntropy => unreachable!("invariant: handled above"),
    };
    Ok(RunModel::Glm(dpref::model::Glm::new(loss, data.d())?))
}

/// The \[ZCHWB\] optimisers: the minibatch form or Algorithm 1 (`--variant`).
#[allow(clippy::too_many_arguments)]
fn run_dpagd(
    args: &RunArgs,
    model: &impl dpref::model::Model,
    data: &dpref::data::Dataset,
    sampler: dpref::sampling::BatchSampler,
    batch_size_b: Option<f64>,
    steps: u64,
    clip: f64,
    privacy: dpref::optim::Privacy,
    neighbouring: Neighbouring,
    seeds: dpref::rng::Seeds,
    observer: &mut Progress,
) -> Result<dpref::optim::Run> {
    use dpref::optim::dpagd::Moments;
    use dpref::optim::dpagd::algorithm1::{Algorithm1Config, Algorithm1Output, FullBatchNoise, dpagd};
    use dpref::optim::dpagd::minibatch::{MinibatchConfig, Update, dp_minibatch};
    use dpref::optim::{OutputPoint, Privacy};
    let lambda = if args.lambda == "none" {
        f64::INFINITY
    } else {
        let l: f64 =
            args.lambda.parse().map_err(|_| Error::invalid("--lambda", &args.lambda, "a positive number or none"))?;
        dpref::error::check::positive("--lambda", l)?
    };
    let default_beta2 = if args.algorithm == AlgorithmArg::DpAdam { 0.999 } else { 0.99 };
    let beta2 = args.beta2.unwrap_or(default_beta2);
    let beta1 = args.beta1.unwrap_or(0.9);
    match args.variant {
        VariantArg::Minibatch => {
            if args.lambda != "none" {
                return Err(Error::invalid(
                    "--lambda",
                    &args.lambda,
                    "used with --variant paper (PyTorch's optimisers have no cap)",
                ));
            }
            if args.bias_correction.is_some() && args.algorithm != AlgorithmArg::DpAdam {
                return Err(Error::invalid("--bias-correction", args.algorithm.name(), "used with dp-adam"));
            }
            let update = match args.algorithm {
                AlgorithmArg::DpGd => Update::Sgd,
                AlgorithmArg::DpRmsprop => Update::RmsProp { alpha: beta2, eps: args.nu.unwrap_or(1e-8) },
                AlgorithmArg::DpAdagrad => Update::AdaGrad { eps: args.nu.unwrap_or(1e-8) },
                _ => Update::Adam {
                    beta1,
                    beta2,
                    eps: args.nu.unwrap_or(1e-8),
                    bias_correction: args.bias_correction.unwrap_or(true),
                },
            };
            let mut cfg = MinibatchConfig::new(update, steps, args.learning_rate, clip, 1.0, privacy);
            cfg.sampler = sampler;
            cfg.batch_size_b = batch_size_b;
            cfg.neighbouring = neighbouring;
            cfg.output = match args.output.unwrap_or(OutputArg::Last) {
                OutputArg::Average0 => OutputPoint::AverageFromZero,
                OutputArg::Average1 => OutputPoint::AverageFromOne,
                OutputArg::Last => OutputPoint::Last,
                OutputArg::Random => {
                    return Err(Error::invalid(
                        "--output",
                        "random",
                        "average0, average1 or last with --variant minibatch",
                    ));
                }
            };
            dp_minibatch(data, model, &cfg, seeds, observer)
        }
        VariantArg::Paper => {
            if args.bias_correction == Some(true) {
                return Err(Error::invalid(
                    "--bias-correction",
                    "true",
                    "false with --variant paper (Algorithm 1 has none)",
                ));
            }
            let moments = match args.algorithm {
                AlgorithmArg::DpGd => Moments::Gd,
                AlgorithmArg::DpRmsprop => Moments::RmsProp { beta2 },
                AlgorithmArg::DpAdam => Moments::Adam { beta1, beta2 },
                _ => {
                    return Err(Error::invalid(
                        "--variant",
                        "paper",
                        "minibatch for dp-adagrad ([ZCHWB] has no AdaGrad)",
                    ));
                }
            };
            // The paper's sigma is an absolute std on the mean gradient: sigma_abs = s*G/n for
            // the noise multiplier s of the CLI (std / clip on the sum), n the public size.
            let noise = match privacy {
                Privacy::Target { epsilon, delta } => FullBatchNoise::Target { epsilon, delta },
                Privacy::NoiseMultiplier { sigma, report_delta } => {
                    let n = batch_size_b.unwrap_or(data.n() as f64);
                    let std = if clip.is_finite() { sigma * clip / n } else { sigma / n };
                    FullBatchNoise::Std { sigma: std, report_delta }
                }
            };
            let mut cfg = Algorithm1Config::new(moments, steps, args.learning_rate, clip, noise);
            if moments != Moments::Gd {
                cfg.nu = args.nu.unwrap_or(1e-8);
                cfg.lambda = lambda;
            } else if args.lambda != "none" {
                return Err(Error::invalid("--lambda", &args.lambda, "none for dp-gd (psi = 1, lambda = 1)"));
            }
            cfg.neighbouring = neighbouring;
            cfg.dataset_size_n = batch_size_b;
            cfg.output = match args.output.unwrap_or(OutputArg::Random) {
                OutputArg::Random => Algorithm1Output::RandomIterate,
                OutputArg::Last => Algorithm1Output::Last,
                OutputArg::Average0 | OutputArg::Average1 => {
                    return Err(Error::invalid(
                        "--output",
                        "an average",
                        "random (w_R, the theorems' output) or last with --variant paper",
                    ));
                }
            };
            dpagd(data, model, &cfg, seeds, observer)
        }
    }
}

/// The DP² settings of `dpref run dp2-*`.
fn dp2_config(
    args: &RunArgs,
    sampler: dpref::sampling::BatchSampler,
    batch_size_b: Option<f64>,
    steps: u64,
    clip: f64,
    privacy: dpref::optim::Privacy,
    neighbouring: Neighbouring,
) -> Result<dpref::optim::dp2::algorithm1::Dp2Config> {
    use dpref::optim::dp2::Preconditioner;
    use dpref::optim::dp2::algorithm1::{Dp2Config, NoiseOrder};
    let beta = args.beta2.unwrap_or(0.9);
    let preconditioner = match args.algorithm {
        AlgorithmArg::Dp2Adagrad => Preconditioner::AdaGrad,
        AlgorithmArg::Dp2Yogi => Preconditioner::Yogi { beta },
        _ => Preconditioner::RmsProp { beta },
    };
    if args.lambda != "none" || args.bias_correction.is_some() {
        return Err(Error::invalid("--lambda/--bias-correction", args.algorithm.name(), "not used by dp2-*"));
    }
    if args.variant == VariantArg::Paper {
        return Err(Error::invalid("--variant", "paper", "minibatch for dp2-* (DP² is a minibatch method)"));
    }
    let c1 = args.clip_sgd.unwrap_or(clip);
    let s1 = args.delay_sgd.unwrap_or(100);
    let mut cfg = Dp2Config::new(
        preconditioner,
        steps,
        (s1, args.delay_adaptive.unwrap_or(s1)),
        (args.learning_rate, args.learning_rate_adaptive.unwrap_or(args.learning_rate)),
        (c1, args.clip_adaptive.unwrap_or(c1)),
        1.0,
        privacy,
    );
    cfg.sampler = sampler;
    cfg.batch_size_b = batch_size_b;
    cfg.neighbouring = neighbouring;
    cfg.eps_adapt = args.nu.unwrap_or(1e-7);
    if args.ablation == Some(AblationArg::NoiseFirst) {
        cfg.noise_order = NoiseOrder::NoiseFirst;
    }
    if !matches!(args.output, None | Some(OutputArg::Last)) {
        return Err(Error::invalid("--output", "not last", "last for dp2-* (Algorithm 1 returns w^T)"));
    }
    Ok(cfg)
}

/// Runs DP² (or an ablation) on `oracle`.
fn run_dp2(
    args: &RunArgs,
    oracle: &impl dpref::model::GradientOracle,
    cfg: &dpref::optim::dp2::algorithm1::Dp2Config,
    seeds: dpref::rng::Seeds,
    observer: &mut Progress,
) -> Result<dpref::optim::Run> {
    let r = match args.ablation {
        Some(AblationArg::ExtraQuery) => dpref::optim::dp2::extra_query::dp2_extra_query(oracle, cfg, seeds, observer)?,
        _ => dpref::optim::dp2::algorithm1::dp2(oracle, cfg, seeds, observer)?,
    };
    Ok(r.run)
}

/// Progress of a `run` on stderr, drawn only when stderr is a terminal and the run has lasted
/// more than a second; stdout (text or JSON) is unchanged.
struct Progress {
    bar: Option<indicatif::ProgressBar>,
    start: std::time::Instant,
    shown: bool,
}

impl Progress {
    fn new(steps: u64) -> Self {
        use std::io::IsTerminal;
        let bar = std::io::stderr().is_terminal().then(|| {
            let bar = indicatif::ProgressBar::with_draw_target(Some(steps), indicatif::ProgressDrawTarget::hidden());
            if let Ok(style) =
                indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} steps, {elapsed} (eta {eta})")
            {
                bar.set_style(style);
            }
            bar
        });
        Progress { bar, start: std::time::Instant::now(), shown: false }
    }

    fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

impl dpref::optim::Observer for Progress {
    fn observe(&mut self, event: dpref::optim::TraceEvent<'_>) {
        let (Some(bar), dpref::optim::TraceEvent::Iterate { step, .. }) = (&self.bar, event) else {
            return;
        };
        if !self.shown && self.start.elapsed() > std::time::Duration::from_secs(1) {
            bar.set_draw_target(indicatif::ProgressDrawTarget::stderr_with_hz(4));
            self.shown = true;
        }
        bar.set_position((step + 1).max(bar.position()));
    }
}

/// Checks the algorithm-specific flags of `run`, naming each: flags the algorithm would ignore
/// are refused, and values outside their documented ranges.
fn check_run_flags(args: &RunArgs) -> CliResult<()> {
    use AlgorithmArg::*;
    let alg = args.algorithm;
    let unused =
        |flag: &str, users: &str| usage(format!("{flag} is not used by {}; it applies to {users}", alg.name()));
    if args.beta1.is_some() && alg != DpAdam {
        return Err(unused("--beta1", "dp-adam"));
    }
    if args.beta2.is_some() && !matches!(alg, DpRmsprop | DpAdam | Dp2Rmsprop | Dp2Yogi) {
        return Err(unused("--beta2", "dp-rmsprop, dp-adam, dp2-rmsprop and dp2-yogi"));
    }
    if args.nu.is_some() && !(matches!(alg, DpRmsprop | DpAdam | DpAdagrad) || alg.is_dp2()) {
        return Err(unused("--nu", "dp-rmsprop, dp-adam, dp-adagrad and dp2-*"));
    }
    if args.ellipsoid.is_some() && !alg.is_adaptive_noise() {
        return Err(unused("--ellipsoid", "pasan and pagan"));
    }
    if args.projection.is_some() && !alg.is_adaptive_noise() {
        return Err(unused("--projection", "pasan and pagan"));
    }
    if args.lambda != "none" && !alg.is_dpagd() {
        return Err(unused("--lambda", "dp-rmsprop and dp-adam with --variant paper"));
    }
    if args.bias_correction.is_some() && alg != DpAdam {
        return Err(unused("--bias-correction", "dp-adam"));
    }
    let dp2_flags = [
        ("--delay-sgd", args.delay_sgd.is_some()),
        ("--delay-adaptive", args.delay_adaptive.is_some()),
        ("--clip-sgd", args.clip_sgd.is_some()),
        ("--clip-adaptive", args.clip_adaptive.is_some()),
        ("--learning-rate-adaptive", args.learning_rate_adaptive.is_some()),
        ("--ablation", args.ablation.is_some()),
    ];
    if let Some((flag, _)) = dp2_flags.iter().find(|(_, given)| *given)
        && !alg.is_dp2()
    {
        return Err(unused(flag, "dp2-rmsprop, dp2-adagrad and dp2-yogi"));
    }
    if let Some(b) = args.beta1 {
        require("--beta1", b, (0.0..1.0).contains(&b), "in [0, 1)")?;
    }
    if let Some(b) = args.beta2 {
        require_open_unit("--beta2", b)?;
    }
    if let Some(nu) = args.nu {
        if alg.is_dp2() || args.variant == VariantArg::Paper {
            require_positive("--nu", nu)?;
        } else {
            require("--nu", nu, nu.is_finite() && nu >= 0.0, ">= 0 and finite")?;
        }
    }
    require_positive("--learning-rate", args.learning_rate)?;
    if let Some(a) = args.learning_rate_adaptive {
        require_positive("--learning-rate-adaptive", a)?;
    }
    for (flag, c) in [("--clip-sgd", args.clip_sgd), ("--clip-adaptive", args.clip_adaptive)] {
        if let Some(c) = c {
            require(flag, c, c > 0.0, "> 0")?;
        }
    }
    for (flag, s) in
        [("--delay-sgd", args.delay_sgd), ("--delay-adaptive", args.delay_adaptive), ("--steps", args.steps)]
    {
        if s == Some(0) {
            return Err(usage(format!("{flag} must be at least 1, got 0")));
        }
    }
    if let Some(e) = args.epsilon {
        require_positive("--epsilon", e)?;
    }
    if let Some(d) = args.delta {
        require_open_unit("--delta", d)?;
    }
    if let Some(s) = args.sigma {
        require("--sigma", s, s.is_finite() && s >= 0.0, ">= 0 and finite")?;
    }
    Ok(())
}

/// Whether `path` is read as LIBSVM (by its extension) rather than CSV.
fn is_libsvm(path: &std::path::Path) -> bool {
    matches!(path.extension().and_then(|e| e.to_str()), Some("svm" | "libsvm"))
}

fn run_algorithm(args: &RunArgs) -> CliResult<String> {
    use dpref::model::Model;
    use dpref::optim::{OutputPoint, Privacy};
    use dpref::sampling::BatchSampler;
    let domain = dpref::geometry::Domain::parse(&args.domain)?;
    let clip = if args.clip == "none" {
        f64::INFINITY
    } else {
        let c: f64 = args
            .clip
            .parse()
            .map_err(|_| usage(format!("--clip must be a positive number or none, got '{}'", args.clip)))?;
        require_positive("--clip", c)?
    };
    check_run_flags(args)?;
    // A run makes a privacy claim when it adds noise to clipped gradients (the library's test).
    let private = clip.is_finite() && (args.epsilon.is_some() || args.sigma.is_some_and(|s| s > 0.0));
    let reports_epsilon = args.epsilon.is_some() || (private && args.delta.is_some());
    if args.sampling == Some(SamplingArg::WithReplacement) && reports_epsilon {
        let fix = if args.epsilon.is_some() {
            "give --sigma without --delta to train without a privacy claim"
        } else {
            "drop --delta to train with --sigma and no privacy claim"
        };
        return Err(usage(format!(
            "unsupported: no accountant covers --sampling with-replacement (a record can appear in a batch \
             several times), so no epsilon can be given: use --sampling poisson (or without-replacement with \
             --neighbouring replace-one), or {fix}"
        )));
    }
    let full = args.sampling == Some(SamplingArg::Full) || args.variant == VariantArg::Paper;
    if full && private && args.batch_size.is_none() && args.neighbouring == NeighbouringArg::AddRemove {
        return Err(usage(
            "--sampling full under add-remove neighbouring needs --batch-size n, the dataset size declared \
             public: dividing the noisy sum by a size read from the data would reveal whether a record is \
             present (or use --neighbouring replace-one)",
        ));
    }
    let libsvm = is_libsvm(&args.data);
    if libsvm && args.label_column.is_some() {
        return Err(usage("--label-column applies to CSV files; a LIBSVM file has its label first on each line"));
    }
    let data = if libsvm {
        dpref::data::read_libsvm(&args.data, None)?
    } else {
        dpref::data::read_csv(&args.data, args.label_column)?
    };
    let model = run_model(args, &data)?;
    if let RunModel::Glm(glm) = &model {
        glm.loss.check_labels(&data)?;
    }
    let (n, d) = (data.n(), data.d());
    if args.algorithm.is_dpagd() || args.algorithm.is_dp2() {
        if !matches!(domain, dpref::geometry::Domain::Unconstrained) {
            return Err(usage(format!(
                "--domain must be none for {} (an unconstrained optimiser), got '{}'",
                args.algorithm.name(),
                args.domain
            )));
        }
    } else if args.variant == VariantArg::Paper {
        return Err(usage("--variant paper applies to dp-gd, dp-rmsprop and dp-adam"));
    }
    let sampling = match (args.variant, args.sampling) {
        (VariantArg::Paper, None | Some(SamplingArg::Full)) => SamplingArg::Full,
        (VariantArg::Paper, Some(_)) => {
            return Err(usage("--variant paper is full batch (Algorithm 1): use --sampling full or leave it out"));
        }
        (VariantArg::Minibatch, s) => s.unwrap_or(SamplingArg::Poisson),
    };
    if args.batch_size.is_some_and(|b| b == 0 || b > n) {
        return Err(usage(format!(
            "--batch-size must be between 1 and the dataset size n = {n}, got {}",
            args.batch_size.unwrap_or(0)
        )));
    }
    let b = args.batch_size.unwrap_or(n.min(64));
    let sampler = match sampling {
        SamplingArg::Poisson => BatchSampler::poisson_expected(b, n)?,
        SamplingArg::WithoutReplacement => BatchSampler::WithoutReplacement { batch_size: b },
        SamplingArg::WithReplacement => BatchSampler::WithReplacement { batch_size: b },
        SamplingArg::Full => {
            if args.batch_size.is_some_and(|b| b != n) {
                return Err(usage(format!(
                    "--batch-size must equal the dataset size n = {n} with --sampling full, got {b}"
                )));
            }
            BatchSampler::Full
        }
    };
    sampler.validate(n)?;
    // The batch size is the public normaliser b of every noisy sum (given or defaulted, it does
    // not move when one record is added or removed); full batch without --batch-size reads n from
    // the data, which add/remove runs refuse.
    let batch_size_b = match sampling {
        SamplingArg::Full if args.batch_size.is_none() => None,
        _ => Some(b as f64),
    };
    let steps = match args.steps {
        Some(t) => t,
        None => n.div_ceil(sampler.expected_batch_size(n).max(1.0) as usize).max(1) as u64,
    };
    let privacy = match (args.epsilon, args.delta, args.sigma, args.paper_noise) {
        (Some(e), Some(delta), None, false) => Privacy::Target { epsilon: e, delta },
        (Some(e), Some(delta), None, true) => {
            if !args.algorithm.is_adaptive_noise() {
                return Err(usage(format!("--paper-noise applies to pasan and pagan, not {}", args.algorithm.name())));
            }
            let z = dpref::optim::adaptive_noise::paper_noise_multiplier(e, delta)?;
            Privacy::NoiseMultiplier { sigma: z, report_delta: Some(delta) }
        }
        (None, report_delta, Some(s), false) => Privacy::NoiseMultiplier { sigma: s, report_delta },
        (Some(_), None, _, _) => return Err(usage("--epsilon needs --delta (the target is (epsilon, delta)-DP)")),
        (Some(_), _, Some(_), _) => {
            return Err(usage(
                "--epsilon and --sigma were both given: --epsilon/--delta calibrate the noise multiplier, \
                 --sigma sets it; give one",
            ));
        }
        (None, _, None, _) => {
            return Err(usage(
                "the noise is missing: give --epsilon with --delta (calibrated), or --sigma (0 for a \
                 non-private run)",
            ));
        }
        (None, _, Some(_), true) => {
            return Err(usage("--paper-noise derives the noise from --epsilon/--delta: drop --sigma"));
        }
    };
    let neighbouring = match args.neighbouring {
        NeighbouringArg::AddRemove => Neighbouring::AddRemove,
        NeighbouringArg::ReplaceOne => Neighbouring::ReplaceOne,
    };
    let seeds = dpref::rng::Seeds::new(args.seed);
    let mut progress = Progress::new(steps);
    let run = if args.algorithm.is_dp2() {
        let cfg = dp2_config(args, sampler, batch_size_b, steps, clip, privacy, neighbouring)?;
        match &model {
            RunModel::Glm(m) => {
                let sparse = dpref::data::sparse::SparseDataset::from_dense(&data);
                run_dp2(args, &dpref::model::SparseGlm { loss: m.loss, data: &sparse }, &cfg, seeds, &mut progress)
            }
            RunModel::Mlp(m) => {
                run_dp2(args, &dpref::model::OnData { model: m, data: &data }, &cfg, seeds, &mut progress)
            }
        }
    } else if args.algorithm.is_dpagd() {
        match &model {
            RunModel::Glm(m) => run_dpagd(
                args,
                m,
                &data,
                sampler,
                batch_size_b,
                steps,
                clip,
                privacy,
                neighbouring,
                seeds,
                &mut progress,
            ),
            RunModel::Mlp(m) => run_dpagd(
                args,
                m,
                &data,
                sampler,
                batch_size_b,
                steps,
                clip,
                privacy,
                neighbouring,
                seeds,
                &mut progress,
            ),
        }
    } else {
        let RunModel::Glm(glm) = model else { unreachable!("invariant: run_model refuses --hidden here") };
        let output = match args.output.unwrap_or(OutputArg::Average0) {
            OutputArg::Average0 => OutputPoint::AverageFromZero,
            OutputArg::Average1 => OutputPoint::AverageFromOne,
            OutputArg::Last => OutputPoint::Last,
            OutputArg::Random => {
                return Err(usage(format!(
                    "--output random is the [ZCHWB] --variant paper output; {} takes average0, average1 or last",
                    args.algorithm.name()
                )));
            }
        };
        match args.algorithm {
            AlgorithmArg::DpSgd => {
                let mut cfg = dpref::optim::dp_sgd::DpSgdConfig::new(steps, args.learning_rate, clip, 1.0, privacy);
                cfg.sampler = sampler;
                cfg.batch_size_b = batch_size_b;
                cfg.neighbouring = neighbouring;
                cfg.domain = domain;
                cfg.output = output;
                dpref::optim::dp_sgd::dp_sgd(&data, glm.loss, &cfg, seeds, &mut progress)
            }
            _ => {
                let mut cfg = dpref::optim::adaptive_noise::AdaptiveNoiseConfig::new(
                    d,
                    steps,
                    args.learning_rate,
                    clip,
                    1.0,
                    privacy,
                );
                cfg.ellipsoid_c = parse_ellipsoid(args.ellipsoid.as_deref().unwrap_or("identity"), d)?;
                cfg.projection = match args.projection.unwrap_or(ProjectionArg::Radial) {
                    ProjectionArg::Radial => dpref::geometry::EllipsoidProjection::Radial,
                    ProjectionArg::Euclidean => dpref::geometry::EllipsoidProjection::Euclidean,
                };
                cfg.sampler = sampler;
                cfg.batch_size_b = batch_size_b;
                cfg.neighbouring = neighbouring;
                cfg.domain = domain;
                cfg.output = output;
                if args.algorithm == AlgorithmArg::Pasan {
                    dpref::optim::adaptive_noise::pasan::pasan(&data, glm.loss, &cfg, seeds, &mut progress)
                } else {
                    dpref::optim::adaptive_noise::pagan::pagan(&data, glm.loss, &cfg, seeds, &mut progress)
                }
            }
        }
    };
    progress.finish();
    let run = run?;
    let evaluation = match &model {
        RunModel::Glm(m) => m.evaluate(&run.x, &data)?,
        RunModel::Mlp(m) => m.evaluate(&run.x, &data)?,
    };
    let name = args.algorithm.name();
    let scheme = sampler.scheme(n);
    let p = run.x.len();
    if args.json {
        let mut v = json!({
            "algorithm": name,
            "x": run.x,
            "loss": evaluation.mean_loss,
            "steps": run.steps,
            "privacy": {
                "epsilon": run.privacy.epsilon,
                "delta": run.privacy.delta,
                "sigma": run.privacy.sigma,
                "sampling": scheme.name(),
                "q": scheme.rate(),
                "neighbouring": neighbouring.name(),
            },
        });
        if args.algorithm.is_dp2() {
            v["ablation"] = json!(match args.ablation {
                None => "none",
                Some(AblationArg::ExtraQuery) => "extra-query",
                Some(AblationArg::NoiseFirst) => "noise-first",
            });
            v["accuracy"] = json!(evaluation.accuracy);
        }
        if args.algorithm.is_dpagd() {
            v["variant"] = json!(if args.variant == VariantArg::Paper { "paper" } else { "minibatch" });
            v["accuracy"] = json!(evaluation.accuracy);
        }
        return Ok(format!("{v}\n"));
    }
    let mut out = format!(
        "{name}: {} on {n} examples (d = {d}), {} loss {}\n",
        plural(run.steps, "step"),
        args.loss.name(),
        num(evaluation.mean_loss)
    );
    if let Some(acc) = evaluation.accuracy {
        out += &format!("  training accuracy {acc:.4}\n");
    }
    out += &match run.privacy.epsilon {
        Some(e) => format!(
            "  privacy: ({}, {})-DP by the RDP accountant; noise multiplier {}, {} sampling (q = {}), {} neighbouring\n",
            num(e),
            run.privacy.delta.map_or_else(|| "?".to_string(), num),
            num(run.privacy.sigma),
            scheme.name(),
            num(scheme.rate()),
            neighbouring.name()
        ),
        None => format!("  privacy: no claim (noise multiplier {}, clip {})\n", num(run.privacy.sigma), args.clip),
    };
    let shown: Vec<String> =
        run.x.iter().take(8).map(|v| if v.abs() < 1e9 { format!("{v:.6}") } else { format!("{v:.6e}") }).collect();
    out += &format!("  x = [{}{}]\n", shown.join(", "), if p > 8 { ", ..." } else { "" });
    Ok(out)
}

/// Exit code 3: the audit found a violation of the claimed guarantee.
const EXIT_VIOLATION: u8 = 3;

/// Reads the outputs of `--a` or `--b`: the column `--column` names (needed when the file has
/// several), refusing a row index.
fn audit_column(path: &std::path::Path, column: Option<&str>) -> CliResult<Vec<f64>> {
    use dpref::audit::samples::{Column, read_sample_column, row_index_start};
    let spec: Option<Column> = column.map(|c| c.parse().unwrap_or_else(|never| match never {}));
    let col = read_sample_column(path, spec.as_ref()).map_err(|e| match (e, column) {
        (Error::Data { path, reason }, None) if reason.contains("(CLI: --column") => {
            let reason = reason.split("; choose").next().unwrap_or(&reason).to_string();
            usage(format!(
                "{path} has {reason}: pass --column NAME or --column INDEX (0-based) to say which holds the outputs"
            ))
        }
        (e, _) => CliError::Lib(e),
    })?;
    if let Some(start) = row_index_start(&col.values) {
        let s = start as u64;
        let fix = if col.columns > 1 {
            "pass --column with the column of the outputs".to_string()
        } else {
            "write the outputs without the index (pandas: to_csv(index=False)); if these numbers really are \
             the outputs, shuffle the rows, which does not change the audit"
                .to_string()
        };
        return Err(usage(format!(
            "{} of {} holds the row numbers {s}, {}, {}, ... (a row index, as pandas' to_csv() writes first), \
             not outputs of a randomised mechanism: {fix}",
            col.describe(),
            path.display(),
            s + 1,
            s + 2
        )));
    }
    Ok(col.values)
}

fn audit_samples(args: &AuditSamplesArgs) -> CliResult<(String, bool)> {
    use dpref::audit::{AuditSettings, ThresholdStrategy, epsilon_lower_bound};
    if let Some(c) = args.claimed_epsilon {
        require("--claimed-epsilon", c, c.is_finite() && c >= 0.0, ">= 0 and finite")?;
    }
    let delta = require("--delta", args.delta, (0.0..1.0).contains(&args.delta), "in [0, 1)")?;
    let confidence = args.confidence;
    if !(0.5..1.0).contains(&confidence) {
        return Err(usage(format!(
            "--confidence must be in [0.5, 1), got {}: it is the probability 1 - beta that the bound holds \
             (for an error rate beta = 0.05, pass 0.95)",
            num(confidence)
        )));
    }
    let settings = AuditSettings {
        delta,
        confidence,
        strategy: match args.threshold_strategy {
            StrategyArg::Bonferroni => ThresholdStrategy::Bonferroni,
            StrategyArg::Split => ThresholdStrategy::Split { fraction: 0.5 },
        },
        seed: args.seed,
    };
    let column = args.column.as_deref();
    let (a, b) = (audit_column(&args.a, column)?, audit_column(&args.b, column)?);
    let r = epsilon_lower_bound(&a, &b, &settings)?;
    let violation = args.claimed_epsilon.is_some_and(|c| r.epsilon > c);
    if args.json {
        let v = json!({
            "epsilon_lower_bound": r.epsilon,
            "confidence": r.confidence,
            "delta": r.delta,
            "n_a": r.n_a,
            "n_b": r.n_b,
            "threshold": r.threshold,
            "direction": r.direction.name(),
            "region": match r.region { dpref::audit::Region::AtLeast => "at-least", dpref::audit::Region::Below => "below" },
            "tpr_lower": r.tpr_lower,
            "fpr_upper": r.fpr_upper,
            "threshold_strategy": match args.threshold_strategy { StrategyArg::Bonferroni => "bonferroni", StrategyArg::Split => "split" },
            "claimed_epsilon": args.claimed_epsilon,
            "violation": violation,
        });
        return Ok((format!("{v}\n"), violation));
    }
    let mut out = format!(
        "epsilon >= {}  (certified lower bound, confidence {}, delta = {})\n",
        num(r.epsilon),
        num(r.confidence),
        num(r.delta)
    );
    match r.threshold {
        Some(t) => {
            let (p, q) = match (r.direction, r.region) {
                (dpref::audit::Direction::AOverB, dpref::audit::Region::AtLeast)
                | (dpref::audit::Direction::BOverA, dpref::audit::Region::Below) => ("A", "B"),
                _ => ("B", "A"),
            };
            let event = if r.region == dpref::audit::Region::AtLeast { ">=" } else { "<" };
            out += &format!(
                "  attack: output {event} {}; P_{p}(event) >= {} and P_{q}(event) <= {}\n",
                num(t),
                num(r.tpr_lower),
                num(r.fpr_upper)
            );
        }
        None => out += "  no threshold attack beats delta: no evidence against any epsilon\n",
    }
    out += &format!("  samples: {} on D (--a), {} on D' (--b)\n", r.n_a, r.n_b);
    if let Some(c) = args.claimed_epsilon {
        if violation {
            out += &format!(
                "  VIOLATION: the claimed epsilon {} is refuted at confidence {}\n",
                num(c),
                num(r.confidence)
            );
        } else {
            out += &format!("  claimed epsilon {}: not refuted by these samples\n", num(c));
        }
    }
    Ok((out, violation))
}

/// Writes `text` to stdout. A reader that went away (`dpref ... | head -1`) is not an error.
fn write_stdout(text: &str) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        r => r,
    }
}

/// The one `error:` line on stderr (ignoring a closed stderr) and exit code 2.
fn fail(message: &str) -> ExitCode {
    let _ = writeln!(std::io::stderr().lock(), "error: {message}");
    ExitCode::from(2)
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            use clap::error::ErrorKind;
            if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
                return match write_stdout(&e.to_string()) {
                    Ok(()) => ExitCode::SUCCESS,
                    Err(e) => fail(&format!("cannot write to stdout: {e}")),
                };
            }
            if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
                return fail(
                    "a subcommand is required: account, calibrate, run, audit or reproduce (see dpref --help)",
                );
            }
            // clap renders several lines (usage, hints); the contract is one line.
            let text = e.to_string();
            let message: Vec<&str> = text.lines().take_while(|l| !l.trim().is_empty()).map(str::trim).collect();
            let line = message.join(" ");
            return fail(line.strip_prefix("error: ").unwrap_or(&line));
        }
    };
    let result: CliResult<(String, bool)> = match &cli.command {
        Command::Account(a) => account(a).map(|s| (s, false)),
        Command::Calibrate(a) => calibrate(a).map(|s| (s, false)),
        Command::Reproduce(a) => reproduce(a).map(|()| (String::new(), false)).map_err(CliError::from),
        Command::Audit(AuditCommand::Samples(a)) => audit_samples(a),
        Command::Run(a) => run_algorithm(a).map(|s| (s, false)),
    };
    match result {
        Ok((text, violation)) => {
            if let Err(e) = write_stdout(&text) {
                return fail(&format!("cannot write to stdout: {e}"));
            }
            if violation { ExitCode::from(EXIT_VIOLATION) } else { ExitCode::SUCCESS }
        }
        Err(e) => fail(&e.to_string()),
    }
}
