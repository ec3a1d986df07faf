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
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "dpref", version, about = "Reference implementation of differentially private optimization: accounting, audits, algorithms.", color = clap::ColorChoice::Never)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Privacy (epsilon at delta) of T steps of a subsampled Gaussian mechanism.
    Account(AccountArgs),
    /// The smallest noise multiplier that meets a target (epsilon, delta).
    Calibrate(CalibrateArgs),
    /// Re-run the papers' experiments (shrunk to two cores) and print their tables.
    Reproduce(ReproduceArgs),
    /// Audit a mechanism: a certified lower bound on its epsilon.
    #[command(subcommand)]
    Audit(AuditCommand),
    /// Train with one algorithm on a dataset and report the output point and its privacy.
    Run(Box<RunArgs>),
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
enum AlgorithmArg {
    /// DP-SGD (Abadi et al. 2016): per-example l2 clip C, Gaussian noise sigma*C.
    DpSgd,
    /// PASAN (\[ADFJT\] Alg. 1): ellipsoid clipping, noise z*A^{-1/2}w, AdaGrad-norm steps.
    Pasan,
    /// PAGAN (\[ADFJT\] Alg. 2): ellipsoid clipping, noise z*A^{-1/2}w, diagonal AdaGrad steps.
    Pagan,
    /// DP-GD (\[ZCHWB\]): --variant minibatch is DP-SGD's privatised gradient with plain steps;
    /// --variant paper is Algorithm 1 with psi = 1 (full batch, output w_R).
    DpGd,
    /// DP-RMSProp (\[ZCHWB\]): minibatch = PyTorch RMSprop (alpha = --beta2, eps = --nu) on the
    /// privatised gradient; paper = Algorithm 1 (v = min(psi, lambda), nu outside the root).
    DpRmsprop,
    /// DP-Adam (\[ZCHWB\]): minibatch = PyTorch Adam (bias correction on by default); paper =
    /// Algorithm 1 without bias correction.
    DpAdam,
    /// DP-AdaGrad: PyTorch Adagrad (eps = --nu) on the privatised minibatch gradient (minibatch only).
    DpAdagrad,
    /// DP²-RMSProp (\[LZLRMS\] Alg. 1): s1 DP-SGD steps, then s2 steps whose per-example gradients
    /// are divided by D = sqrt(v) + nu, clipped to C2 and noised; v updated once per cycle from
    /// the average of the s1 released noisy gradients (beta = --beta2).
    Dp2Rmsprop,
    /// DP²-AdaGrad (\[LZLRMS\] App. D): v <- v + (G/s1)^2.
    Dp2Adagrad,
    /// DP²-Yogi (\[LZLRMS\] App. D, misprint corrected): v <- v + (1 - beta) sign(g^2 - v) g^2.
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
    /// Poisson-sampled, per-example-clipped minibatch steps with PyTorch-style updates (what
    /// users train with and what \[ZCHWB\]'s experiments ran).
    Minibatch,
    /// \[ZCHWB\] Algorithm 1: full-batch gradient plus N(0, sigma^2 I), no bias correction, the
    /// lambda cap, output w_R (what the theorems analyse). Only with --sampling full.
    Paper,
}

#[derive(Clone, Copy, ValueEnum)]
enum OutputArg {
    /// (1/T) sum_{k=0}^{T-1} x^k (what the proofs bound).
    Average0,
    /// (1/T) sum_{k=1}^{T} x^k (as printed in \[ADFJT\]).
    Average1,
    /// x^T.
    Last,
    /// w_R with R uniform on {1..T} (\[ZCHWB\] --variant paper only; its default).
    Random,
}

#[derive(Clone, Copy, ValueEnum)]
enum ProjectionArg {
    Radial,
    Euclidean,
}

#[derive(Args)]
struct RunArgs {
    /// The algorithm.
    #[arg(value_enum)]
    algorithm: AlgorithmArg,
    /// Training data: CSV (label in the last column unless --label-column) or LIBSVM (.svm, .libsvm).
    #[arg(long)]
    data: PathBuf,
    /// 0-based column of the label in a CSV file.
    #[arg(long)]
    label_column: Option<usize>,
    /// Loss: absolute, squared, logistic, hinge (logistic/hinge labels in {0,1} or {-1,+1}).
    #[arg(long)]
    loss: String,
    /// Constraint set X: box:<r>, l2:<r>, l1:<r> or none.
    #[arg(long, default_value = "none")]
    domain: String,
    /// Target epsilon (calibrates the noise multiplier with the RDP accountant; needs --delta).
    #[arg(long)]
    epsilon: Option<f64>,
    /// delta of the target (or, with --sigma, the delta at which epsilon is reported).
    #[arg(long)]
    delta: Option<f64>,
    /// Noise multiplier sigma (std / clip on the sum); 0 is the non-private run.
    #[arg(long)]
    sigma: Option<f64>,
    /// \[ADFJT\] only: the paper's noise multiplier sqrt(log(1/delta))/epsilon (not a certified
    /// calibration; the reported epsilon is what the accountant derives for it). Needs --epsilon, --delta.
    #[arg(long)]
    paper_noise: bool,
    /// Batch size b: expected size under Poisson (q = b/n), exact for fixed-size schemes.
    #[arg(long)]
    batch_size: Option<usize>,
    /// Batch sampling (default: poisson; full for --variant paper, which allows nothing else).
    #[arg(long, value_enum)]
    sampling: Option<SamplingArg>,
    /// Steps T (default: one epoch, ceil(n/b)).
    #[arg(long)]
    steps: Option<u64>,
    /// Learning rate eta (DP-SGD) or step scale alpha (PASAN, PAGAN).
    #[arg(long, default_value_t = 0.1)]
    learning_rate: f64,
    /// Clip radius: C for DP-SGD, B for the ellipsoid A = C/B^2 of PASAN/PAGAN; "none" disables
    /// clipping (only with --sigma: no privacy claim without a sensitivity bound).
    #[arg(long, default_value = "1.0")]
    clip: String,
    /// PASAN/PAGAN: diagonal C of the ellipsoid: identity, power:<p> (C_jj = j^p), or file:<path>
    /// (d positive numbers, one per line).
    #[arg(long, default_value = "identity")]
    ellipsoid: String,
    /// PASAN/PAGAN: projection onto the ellipsoid.
    #[arg(long, value_enum, default_value = "radial")]
    projection: ProjectionArg,
    /// Which point is returned (default: average0; last for the minibatch \[ZCHWB\] optimisers,
    /// random for --variant paper).
    #[arg(long, value_enum)]
    output: Option<OutputArg>,
    /// dp-gd, dp-rmsprop, dp-adam: the minibatch optimiser or the paper's Algorithm 1.
    #[arg(long, value_enum, default_value = "minibatch")]
    variant: VariantArg,
    /// dp-adam: beta1 in [0, 1).
    #[arg(long, default_value_t = 0.9)]
    beta1: f64,
    /// dp-rmsprop, dp-adam: beta2 in (0, 1) (PyTorch's alpha for RMSprop); default 0.99 for
    /// dp-rmsprop and 0.999 for dp-adam.
    #[arg(long)]
    beta2: Option<f64>,
    /// dp-rmsprop, dp-adam, dp-adagrad, dp2-*: nu, added outside the square root (PyTorch's eps;
    /// DP²'s epsilon of D = sqrt(v) + epsilon). Default 1e-8, and 1e-7 for dp2-* (the authors' code).
    #[arg(long)]
    nu: Option<f64>,
    /// dp2-*: s1, the DP-SGD steps per cycle whose averaged releases update the preconditioner.
    #[arg(long, default_value_t = 100)]
    delay_sgd: u64,
    /// dp2-*: s2, the adaptive steps per cycle (default: s1).
    #[arg(long)]
    delay_adaptive: Option<u64>,
    /// dp2-*: C1, the clip of the DP-SGD steps (default: --clip).
    #[arg(long)]
    clip_sgd: Option<f64>,
    /// dp2-*: C2, the clip of the preconditioned gradients in adaptive steps (default: C1).
    #[arg(long)]
    clip_adaptive: Option<f64>,
    /// dp2-*: alpha2, the learning rate of adaptive steps (default: --learning-rate).
    #[arg(long)]
    learning_rate_adaptive: Option<f64>,
    /// dp2-*: an ablation of \[LZLRMS\] App. D: extra-query (variant 1, a second data query per
    /// adaptive step; the accountant charges it) or noise-first (variant 2, noise before
    /// preconditioning, one clip C1).
    #[arg(long, value_enum)]
    ablation: Option<AblationArg>,
    /// --variant paper: the cap lambda on the second moment's value v = min(psi, lambda), a
    /// positive number or none (no cap).
    #[arg(long, default_value = "none")]
    lambda: String,
    /// --variant minibatch dp-adam: divide the moments by 1 - beta^t (PyTorch: on). The paper's
    /// Algorithm 1 has no bias correction.
    #[arg(long)]
    bias_correction: Option<bool>,
    /// dp-gd, dp-rmsprop, dp-adam, dp-adagrad: hidden layer widths of a ReLU network with a
    /// softmax cross-entropy loss (e.g. 128,128); labels are class indices 0..K-1, K = max + 1.
    /// Requires --loss cross-entropy.
    #[arg(long, value_delimiter = ',')]
    hidden: Vec<usize>,
    /// Neighbouring relation of the privacy claim.
    #[arg(long, value_enum, default_value = "add-remove")]
    neighbouring: NeighbouringArg,
    /// Seed of all randomness.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
}

#[derive(Subcommand)]
enum AuditCommand {
    /// Audit another implementation from its outputs on two neighbouring datasets.
    Samples(AuditSamplesArgs),
}

#[derive(Clone, Copy, ValueEnum)]
enum StrategyArg {
    Bonferroni,
    Split,
}

#[derive(Args)]
struct AuditSamplesArgs {
    /// Outputs on D: one real number per line, or the first column of a CSV.
    #[arg(long)]
    a: PathBuf,
    /// Outputs on D' (neighbouring).
    #[arg(long)]
    b: PathBuf,
    /// delta of the claim tested, in [0, 1).
    #[arg(long, default_value_t = 0.0)]
    delta: f64,
    /// The epsilon the implementation claims; exit code 3 if the bound exceeds it.
    #[arg(long)]
    claimed_epsilon: Option<f64>,
    /// Confidence 1 - beta of the bound, in (0, 1).
    #[arg(long, default_value_t = 0.95)]
    confidence: f64,
    /// How the threshold is chosen: all thresholds with a simultaneous (Bonferroni) correction,
    /// or chosen on half of the samples and certified on the other half.
    #[arg(long, value_enum, default_value = "bonferroni")]
    threshold_strategy: StrategyArg,
    /// Seed of the split.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
}

#[derive(Clone, Copy, ValueEnum)]
enum SamplingArg {
    Poisson,
    WithoutReplacement,
    WithReplacement,
    Full,
}

#[derive(Clone, Copy, ValueEnum)]
enum NeighbouringArg {
    AddRemove,
    ReplaceOne,
}

#[derive(Clone, Copy, ValueEnum)]
enum AccountantArg {
    Rdp,
    Pld,
}

#[derive(Clone, Copy, ValueEnum)]
enum ConversionArg {
    Improved,
    Classic,
}

#[derive(Args)]
struct MechanismArgs {
    /// Number of steps T (compositions).
    #[arg(long)]
    steps: u64,
    /// delta of the (epsilon, delta) guarantee, in (0, 1).
    #[arg(long)]
    delta: f64,
    /// How each step's batch is drawn.
    #[arg(long, value_enum, default_value = "poisson")]
    sampling: SamplingArg,
    /// Poisson sampling rate q in (0, 1] (or give --batch-size and --dataset-size).
    #[arg(long)]
    q: Option<f64>,
    /// Batch size b (expected size under Poisson).
    #[arg(long)]
    batch_size: Option<u64>,
    /// Dataset size n.
    #[arg(long)]
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
    /// RDP orders, comma-separated (each > 1); default: 1.1..10.9 by 0.1, 11..64, 72..1024.
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
    #[arg(long, default_value_t = 0)]
    seed: u64,
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
    fn resolve(&self) -> Result<Request> {
        let name = match self.sampling {
            SamplingArg::Poisson => "poisson",
            SamplingArg::WithoutReplacement => "without-replacement",
            SamplingArg::WithReplacement => "with-replacement",
            SamplingArg::Full => "full",
        };
        let sampling = SamplingScheme::from_flags(name, self.q, self.batch_size, self.dataset_size)?;
        let neighbouring = match self.neighbouring {
            NeighbouringArg::AddRemove => Neighbouring::AddRemove,
            NeighbouringArg::ReplaceOne => Neighbouring::ReplaceOne,
        };
        if let AccountantArg::Pld = self.accountant {
            return Err(Error::Unsupported {
                event: format!("{} steps of {} sampling", self.steps, sampling.name()),
                neighbouring: neighbouring.name().into(),
                accountant: "PLD",
                reason: "the PLD accountant is not implemented yet; use --accountant rdp".into(),
            });
        }
        let conversion = match self.conversion {
            ConversionArg::Improved => Conversion::Improved,
            ConversionArg::Classic => Conversion::Classic,
        };
        if let Some(o) = &self.orders {
            RdpAccountant::with_orders(o.clone(), neighbouring)?; // validate early
        }
        dpref::error::check::count("--steps", self.steps)?;
        dpref::error::check::open_unit("--delta", self.delta)?;
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
        dp_sgd_event(sigma, self.sampling, self.steps, self.neighbouring)
    }

    fn describe(&self, sigma: f64) -> String {
        let sampling = match self.sampling {
            SamplingScheme::Poisson { q } => format!("Poisson sampling (q = {q})"),
            SamplingScheme::WithoutReplacement { dataset_size, batch_size } => {
                format!("fixed-size sampling without replacement (b = {batch_size} of n = {dataset_size})")
            }
            SamplingScheme::WithReplacement { dataset_size, batch_size } => {
                format!("sampling with replacement (b = {batch_size} of n = {dataset_size})")
            }
            SamplingScheme::Full => "full batch".to_string(),
        };
        let factor = self.neighbouring.sum_sensitivity_factor();
        let eff =
            if factor > 1.0 { format!(" (effective {} under replace-one)", sigma / factor) } else { String::new() };
        format!("{} steps, {sampling}, noise multiplier {sigma}{eff}, {} neighbouring", self.steps, self.neighbouring)
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

fn finite_epsilon(e: f64) -> Result<f64> {
    if e.is_finite() {
        Ok(e)
    } else {
        Err(Error::Numerical { what: "accounting", reason: "epsilon is unbounded at this delta".into() })
    }
}

fn account(args: &AccountArgs) -> Result<()> {
    let req = args.mech.resolve()?;
    let event = req.event(args.sigma)?;
    let bound = req.settings.epsilon(&event, req.delta)?;
    let eps = finite_epsilon(bound.epsilon)?;
    if args.mech.json {
        let mut v = req.json_common(args.sigma);
        v["epsilon"] = json!(eps);
        v["order"] = json!(bound.order);
        println!("{v}");
    } else {
        println!("epsilon = {eps}  (delta = {})", req.delta);
        println!(
            "  upper bound from the RDP accountant, {} conversion{}",
            req.settings.conversion.name(),
            bound.order.map_or(String::new(), |o| format!(", attained at order {o}"))
        );
        println!("  mechanism: {}", req.describe(args.sigma));
    }
    Ok(())
}

fn calibrate(args: &CalibrateArgs) -> Result<()> {
    let req = args.mech.resolve()?;
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
        println!("{v}");
    } else {
        println!("sigma = {}", c.noise_multiplier);
        println!(
            "  epsilon = {} <= target {} at delta = {} (RDP, {} conversion)",
            c.epsilon,
            args.target_epsilon,
            req.delta,
            req.settings.conversion.name()
        );
        println!("  mechanism: {}", req.describe(c.noise_multiplier));
    }
    Ok(())
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
        println!("{}", outcome.markdown);
        println!("(written to {} in {:.1} s)\n", files.join(", "), outcome.seconds);
        done.push(outcome);
        experiments::write_index(&args.out, &options, &done)?;
    }
    eprintln!("index of this run: {}", args.out.join("index.md").display());
    Ok(())
}

fn parse_ellipsoid(spec: &str, d: usize) -> Result<Vec<f64>> {
    if spec == "identity" {
        return Ok(vec![1.0; d]);
    }
    if let Some(p) = spec.strip_prefix("power:") {
        let p: f64 =
            p.parse().map_err(|_| Error::invalid("--ellipsoid", spec, "identity, power:<p> or file:<path>"))?;
        dpref::error::check::all_finite("--ellipsoid power", &[p])?;
        return Ok((1..=d).map(|j| (j as f64).powf(p)).collect());
    }
    if let Some(path) = spec.strip_prefix("file:") {
        let c = dpref::audit::samples::read_samples(std::path::Path::new(path))?;
        if c.len() != d {
            return Err(Error::invalid("--ellipsoid file", c.len(), "d values (one per feature)"));
        }
        for &v in &c {
            dpref::error::check::positive("ellipsoid C entry", v)?;
        }
        return Ok(c);
    }
    Err(Error::invalid("--ellipsoid", spec, "identity, power:<p> or file:<path>"))
}

/// The model a `dpref run` trains: a GLM loss, or (the \[ZCHWB\] family with `--hidden`) an MLP.
enum RunModel {
    Glm(dpref::model::Glm),
    Mlp(dpref::model::Mlp),
}

fn run_model(args: &RunArgs, data: &dpref::data::Dataset) -> Result<RunModel> {
    if !args.hidden.is_empty() || args.loss == "cross-entropy" {
        if !(args.algorithm.is_dpagd() || args.algorithm.is_dp2()) {
            return Err(Error::invalid(
                "--hidden",
                args.algorithm.name(),
                "used with dp-gd, dp-rmsprop, dp-adam, dp-adagrad or dp2-*",
            ));
        }
        if args.loss != "cross-entropy" || args.hidden.is_empty() {
            return Err(Error::invalid("--loss", &args.loss, "cross-entropy exactly when --hidden is given"));
        }
        let max = data.labels().iter().copied().fold(0.0, f64::max);
        let classes = if max.fract() == 0.0 && max < 1e6 { max as usize + 1 } else { 0 };
        return Ok(RunModel::Mlp(dpref::model::Mlp::new(data.d(), &args.hidden, classes.max(2))?));
    }
    let loss = dpref::loss::Loss::parse(&args.loss)?;
    if matches!(loss, dpref::loss::Loss::Linear) {
        return Err(Error::invalid(
            "--loss",
            "linear",
            "absolute, squared, logistic, hinge (or cross-entropy with --hidden)",
        ));
    }
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
) -> Result<dpref::optim::Run> {
    use dpref::optim::dpagd::Moments;
    use dpref::optim::dpagd::algorithm1::{Algorithm1Config, Algorithm1Output, FullBatchNoise, dpagd};
    use dpref::optim::dpagd::minibatch::{MinibatchConfig, Update, dp_minibatch};
    use dpref::optim::{NoTrace, OutputPoint, Privacy};
    let lambda = if args.lambda == "none" {
        f64::INFINITY
    } else {
        let l: f64 =
            args.lambda.parse().map_err(|_| Error::invalid("--lambda", &args.lambda, "a positive number or none"))?;
        dpref::error::check::positive("--lambda", l)?
    };
    let default_beta2 = if args.algorithm == AlgorithmArg::DpAdam { 0.999 } else { 0.99 };
    let beta2 = args.beta2.unwrap_or(default_beta2);
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
                    beta1: args.beta1,
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
            dp_minibatch(data, model, &cfg, seeds, &mut NoTrace)
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
                AlgorithmArg::DpAdam => Moments::Adam { beta1: args.beta1, beta2 },
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
            dpagd(data, model, &cfg, seeds, &mut NoTrace)
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
    let s1 = args.delay_sgd;
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
) -> Result<dpref::optim::Run> {
    use dpref::optim::NoTrace;
    let r = match args.ablation {
        Some(AblationArg::ExtraQuery) => {
            dpref::optim::dp2::extra_query::dp2_extra_query(oracle, cfg, seeds, &mut NoTrace)?
        }
        _ => dpref::optim::dp2::algorithm1::dp2(oracle, cfg, seeds, &mut NoTrace)?,
    };
    Ok(r.run)
}

fn run_algorithm(args: &RunArgs) -> Result<()> {
    use dpref::model::Model;
    use dpref::optim::{NoTrace, OutputPoint, Privacy};
    use dpref::sampling::BatchSampler;
    let domain = dpref::geometry::Domain::parse(&args.domain)?;
    let clip = if args.clip == "none" {
        f64::INFINITY
    } else {
        let c: f64 =
            args.clip.parse().map_err(|_| Error::invalid("--clip", &args.clip, "a positive number or none"))?;
        dpref::error::check::positive("--clip", c)?
    };
    let ext = args.data.extension().and_then(|e| e.to_str()).unwrap_or("");
    let data = if ext == "svm" || ext == "libsvm" {
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
            return Err(Error::invalid("--domain", &args.domain, "none for the unconstrained [ZCHWB] optimisers"));
        }
    } else if args.variant == VariantArg::Paper {
        return Err(Error::invalid("--variant", "paper", "used with dp-gd, dp-rmsprop or dp-adam"));
    }
    let sampling = match (args.variant, args.sampling) {
        (VariantArg::Paper, None | Some(SamplingArg::Full)) => SamplingArg::Full,
        (VariantArg::Paper, Some(_)) => {
            return Err(Error::invalid(
                "--sampling",
                "not full",
                "full with --variant paper (Algorithm 1 is full batch)",
            ));
        }
        (VariantArg::Minibatch, s) => s.unwrap_or(SamplingArg::Poisson),
    };
    let b = args.batch_size.unwrap_or(n.min(64));
    let sampler = match sampling {
        SamplingArg::Poisson => BatchSampler::poisson_expected(b, n)?,
        SamplingArg::WithoutReplacement => BatchSampler::WithoutReplacement { batch_size: b },
        SamplingArg::WithReplacement => BatchSampler::WithReplacement { batch_size: b },
        SamplingArg::Full => {
            if args.batch_size.is_some_and(|b| b != n) {
                return Err(Error::invalid("--batch-size", b, "equal to the dataset size with --sampling full"));
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
        Some(t) => dpref::error::check::count("--steps", t)?,
        None => n.div_ceil(sampler.expected_batch_size(n).max(1.0) as usize).max(1) as u64,
    };
    if let Some(d) = args.delta {
        dpref::error::check::open_unit("--delta", d)?;
    }
    let privacy = match (args.epsilon, args.delta, args.sigma, args.paper_noise) {
        (Some(e), Some(delta), None, false) => {
            dpref::error::check::positive("--epsilon", e)?;
            Privacy::Target { epsilon: e, delta }
        }
        (Some(e), Some(delta), None, true) => {
            if !matches!(args.algorithm, AlgorithmArg::Pasan | AlgorithmArg::Pagan) {
                return Err(Error::invalid("--paper-noise", args.algorithm.name(), "used with pasan or pagan"));
            }
            let z = dpref::optim::adaptive_noise::paper_noise_multiplier(e, delta)?;
            Privacy::NoiseMultiplier { sigma: z, report_delta: Some(delta) }
        }
        (None, report_delta, Some(s), false) => Privacy::NoiseMultiplier { sigma: s, report_delta },
        (Some(_), None, _, _) => return Err(Error::invalid("--delta", "missing", "given with --epsilon")),
        (Some(_), _, Some(_), _) => {
            return Err(Error::invalid("--sigma", "given with --epsilon", "used instead of --epsilon/--delta"));
        }
        (None, _, None, _) => return Err(Error::invalid("--epsilon/--sigma", "missing", "one of them given")),
        (None, _, Some(_), true) => {
            return Err(Error::invalid("--paper-noise", "given with --sigma", "used with --epsilon/--delta"));
        }
    };
    let neighbouring = match args.neighbouring {
        NeighbouringArg::AddRemove => Neighbouring::AddRemove,
        NeighbouringArg::ReplaceOne => Neighbouring::ReplaceOne,
    };
    let seeds = dpref::rng::Seeds::new(args.seed);
    let dp2_flags = args.delay_adaptive.is_some()
        || args.clip_sgd.is_some()
        || args.clip_adaptive.is_some()
        || args.learning_rate_adaptive.is_some()
        || args.ablation.is_some();
    if dp2_flags && !args.algorithm.is_dp2() {
        return Err(Error::invalid(
            "--delay-adaptive/--clip-sgd/--clip-adaptive/--learning-rate-adaptive/--ablation",
            args.algorithm.name(),
            "used with dp2-rmsprop, dp2-adagrad or dp2-yogi",
        ));
    }
    let run = if args.algorithm.is_dp2() {
        let cfg = dp2_config(args, sampler, batch_size_b, steps, clip, privacy, neighbouring)?;
        match &model {
            RunModel::Glm(m) => {
                let sparse = dpref::data::sparse::SparseDataset::from_dense(&data);
                run_dp2(args, &dpref::model::SparseGlm { loss: m.loss, data: &sparse }, &cfg, seeds)?
            }
            RunModel::Mlp(m) => run_dp2(args, &dpref::model::OnData { model: m, data: &data }, &cfg, seeds)?,
        }
    } else if args.algorithm.is_dpagd() {
        match &model {
            RunModel::Glm(m) => {
                run_dpagd(args, m, &data, sampler, batch_size_b, steps, clip, privacy, neighbouring, seeds)?
            }
            RunModel::Mlp(m) => {
                run_dpagd(args, m, &data, sampler, batch_size_b, steps, clip, privacy, neighbouring, seeds)?
            }
        }
    } else {
        let RunModel::Glm(glm) = model else { unreachable!("invariant: run_model refuses --hidden here") };
        let output = match args.output.unwrap_or(OutputArg::Average0) {
            OutputArg::Average0 => OutputPoint::AverageFromZero,
            OutputArg::Average1 => OutputPoint::AverageFromOne,
            OutputArg::Last => OutputPoint::Last,
            OutputArg::Random => return Err(Error::invalid("--output", "random", "average0, average1 or last")),
        };
        match args.algorithm {
            AlgorithmArg::DpSgd => {
                let mut cfg = dpref::optim::dp_sgd::DpSgdConfig::new(steps, args.learning_rate, clip, 1.0, privacy);
                cfg.sampler = sampler;
                cfg.batch_size_b = batch_size_b;
                cfg.neighbouring = neighbouring;
                cfg.domain = domain;
                cfg.output = output;
                dpref::optim::dp_sgd::dp_sgd(&data, glm.loss, &cfg, seeds, &mut NoTrace)?
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
                cfg.ellipsoid_c = parse_ellipsoid(&args.ellipsoid, d)?;
                cfg.projection = match args.projection {
                    ProjectionArg::Radial => dpref::geometry::EllipsoidProjection::Radial,
                    ProjectionArg::Euclidean => dpref::geometry::EllipsoidProjection::Euclidean,
                };
                cfg.sampler = sampler;
                cfg.batch_size_b = batch_size_b;
                cfg.neighbouring = neighbouring;
                cfg.domain = domain;
                cfg.output = output;
                if args.algorithm == AlgorithmArg::Pasan {
                    dpref::optim::adaptive_noise::pasan::pasan(&data, glm.loss, &cfg, seeds, &mut NoTrace)?
                } else {
                    dpref::optim::adaptive_noise::pagan::pagan(&data, glm.loss, &cfg, seeds, &mut NoTrace)?
                }
            }
        }
    };
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
        println!("{v}");
    } else {
        println!("{name}: {} steps on {n} examples (d = {d}), {} loss {}", run.steps, args.loss, evaluation.mean_loss);
        if let Some(acc) = evaluation.accuracy {
            println!("  training accuracy {acc:.4}");
        }
        match run.privacy.epsilon {
            Some(e) => println!(
                "  privacy: ({e}, {})-DP by the RDP accountant; noise multiplier {}, {} sampling (q = {}), {} neighbouring",
                run.privacy.delta.unwrap_or(f64::NAN),
                run.privacy.sigma,
                scheme.name(),
                scheme.rate(),
                neighbouring.name()
            ),
            None => println!("  privacy: no claim (noise multiplier {}, clip {})", run.privacy.sigma, args.clip),
        }
        let shown: Vec<String> = run.x.iter().take(8).map(|v| format!("{v:.6}")).collect();
        println!("  x = [{}{}]", shown.join(", "), if p > 8 { ", ..." } else { "" });
    }
    Ok(())
}

/// Exit code 3: the audit found a violation of the claimed guarantee.
const EXIT_VIOLATION: u8 = 3;

fn audit_samples(args: &AuditSamplesArgs) -> Result<bool> {
    use dpref::audit::{AuditSettings, ThresholdStrategy, epsilon_lower_bound, samples::read_samples};
    if let Some(c) = args.claimed_epsilon {
        dpref::error::check::non_negative("--claimed-epsilon", c)?;
    }
    let settings = AuditSettings {
        delta: dpref::error::check::probability_below_one("--delta", args.delta)?,
        confidence: dpref::error::check::open_unit("--confidence", args.confidence)?,
        strategy: match args.threshold_strategy {
            StrategyArg::Bonferroni => ThresholdStrategy::Bonferroni,
            StrategyArg::Split => ThresholdStrategy::Split { fraction: 0.5 },
        },
        seed: args.seed,
    };
    let (a, b) = (read_samples(&args.a)?, read_samples(&args.b)?);
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
        println!("{v}");
    } else {
        println!("epsilon >= {}  (certified lower bound, confidence {}, delta = {})", r.epsilon, r.confidence, r.delta);
        match r.threshold {
            Some(t) => {
                let (p, q) = match (r.direction, r.region) {
                    (dpref::audit::Direction::AOverB, dpref::audit::Region::AtLeast)
                    | (dpref::audit::Direction::BOverA, dpref::audit::Region::Below) => ("A", "B"),
                    _ => ("B", "A"),
                };
                let event = if r.region == dpref::audit::Region::AtLeast { ">=" } else { "<" };
                println!(
                    "  attack: output {event} {t}; P_{p}(event) >= {} and P_{q}(event) <= {}",
                    r.tpr_lower, r.fpr_upper
                );
            }
            None => println!("  no threshold attack beats delta: no evidence against any epsilon"),
        }
        println!("  samples: {} on D (--a), {} on D' (--b)", r.n_a, r.n_b);
        if let Some(c) = args.claimed_epsilon {
            if violation {
                println!("  VIOLATION: the claimed epsilon {c} is refuted at confidence {}", r.confidence);
            } else {
                println!("  claimed epsilon {c}: not refuted by these samples");
            }
        }
    }
    Ok(violation)
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            use clap::error::ErrorKind;
            if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
                print!("{e}");
                return ExitCode::SUCCESS;
            }
            if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
                eprintln!(
                    "error: a subcommand is required: account, calibrate, run, audit or reproduce (see dpref --help)"
                );
                return ExitCode::from(2);
            }
            // clap renders several lines (usage, hints); the contract is one line.
            let text = e.to_string();
            let message: Vec<&str> = text.lines().take_while(|l| !l.trim().is_empty()).map(str::trim).collect();
            let line = message.join(" ");
            eprintln!("error: {}", line.strip_prefix("error: ").unwrap_or(&line));
            return ExitCode::from(2);
        }
    };
    let result = match &cli.command {
        Command::Account(a) => account(a).map(|()| false),
        Command::Calibrate(a) => calibrate(a).map(|()| false),
        Command::Reproduce(a) => reproduce(a).map(|()| false),
        Command::Audit(AuditCommand::Samples(a)) => audit_samples(a),
        Command::Run(a) => run_algorithm(a).map(|()| false),
    };
    match result {
        Ok(false) => ExitCode::SUCCESS,
        Ok(true) => ExitCode::from(EXIT_VIOLATION),
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}
