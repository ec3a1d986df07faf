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
    /// Experiments to run (default: all). Available: privacy.
    experiments: Vec<String>,
    /// Shrink every experiment to finish in a few minutes on two cores.
    #[arg(long)]
    quick: bool,
    /// Output directory for Markdown tables and SVG plots.
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

const EXPERIMENTS: &[&str] = &["privacy"];

fn reproduce(args: &ReproduceArgs) -> Result<()> {
    let selected: Vec<String> = if args.experiments.is_empty() {
        EXPERIMENTS.iter().map(|s| s.to_string()).collect()
    } else {
        args.experiments.clone()
    };
    for name in &selected {
        if !EXPERIMENTS.contains(&name.as_str()) {
            return Err(Error::invalid("experiment", name, "one of: privacy"));
        }
    }
    std::fs::create_dir_all(&args.out)
        .map_err(|e| Error::Io { path: args.out.display().to_string(), message: e.to_string() })?;
    for name in &selected {
        if name == "privacy" {
            use dpref::experiments::privacy_table;
            let rows: Vec<_> = privacy_table::settings().iter().map(privacy_table::account).collect::<Result<_>>()?;
            let md = privacy_table::markdown(&rows);
            println!("## Privacy accounting of the papers' settings\n\n{md}");
            let path = args.out.join("privacy.md");
            std::fs::write(&path, &md)
                .map_err(|e| Error::Io { path: path.display().to_string(), message: e.to_string() })?;
        }
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
                eprintln!("error: a subcommand is required: account, calibrate, audit or reproduce (see dpref --help)");
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
