//! `estimate mean`: the private mean of sparse vectors by the projection mechanism
//! ([GGKKM] Algorithm 1, `dpref::optim::sparse::projection_mechanism`, the default), Gaussian l1
//! recovery ([GGKKM] Algorithm 2, `gaussian_l1_recovery`), or the plain Gaussian or Laplace
//! mechanism (Algorithm 1's noisy mean before its projection).

use crate::EXIT_CODES;
use crate::flags::{CliError, CliResult, require, require_positive, usage, whole_u64, whole_usize};
use crate::format::num;
use clap::{Args, Subcommand, ValueEnum};
use dpref::error::Error;
use dpref::optim::sparse::gaussian_l1_recovery::{GaussianL1RecoveryConfig, RecoveryBranch};
use dpref::optim::sparse::projection_mechanism::{NoiseScale, ProjectionMechanismConfig, SparseVectors};
use serde_json::json;
use std::path::PathBuf;

#[derive(Subcommand)]
pub(crate) enum EstimateCommand {
    #[command(
        after_help = EXIT_CODES,
        allow_negative_numbers = true,
        about = "The private mean of s-sparse vectors of l2 norm <= L by the projection mechanism ([GGKKM] \
                 Alg. 1): Laplace noise for --delta 0, Gaussian noise for --delta > 0 (then --epsilon < 1), \
                 projected onto the l1 ball of radius L*sqrt(s); --method recovery: Gaussian l1 recovery \
                 (Alg. 2); --method gaussian|laplace: the plain mechanism without projection."
    )]
    Mean(EstimateMeanArgs),
}

#[derive(Args)]
pub(crate) struct EstimateMeanArgs {
    /// The vectors: CSV (numbers, the last column a label, ignored; optional header) or LIBSVM
    /// (.svm, .libsvm; labels ignored).
    #[arg(long)]
    pub(crate) data: PathBuf,
    /// LIBSVM only, and needed there: the public dimension d (the file's largest feature index
    /// depends on the records, and a released mean of that length would reveal it).
    #[arg(long, value_parser = whole_usize)]
    pub(crate) dimension: Option<usize>,
    /// L > 0: the l2 bound of each vector.
    #[arg(long)]
    pub(crate) l2_bound: f64,
    /// s >= 1: the number of non-zeros allowed in each vector.
    #[arg(long, value_parser = whole_usize)]
    pub(crate) sparsity: usize,
    /// epsilon > 0 (< 1 when --delta > 0).
    #[arg(long)]
    pub(crate) epsilon: f64,
    /// delta in [0, 1): 0 gives Laplace noise and pure epsilon-DP, > 0 Gaussian noise.
    #[arg(long, default_value_t = 0.0)]
    pub(crate) delta: f64,
    /// Map every row into the sparse ball (keep its s entries of largest magnitude, then clip to
    /// l2 norm L) instead of refusing a row outside it.
    #[arg(long)]
    pub(crate) clip_rows: bool,
    /// Seed of the noise.
    #[arg(long, default_value_t = 0, value_parser = whole_u64)]
    pub(crate) seed: u64,
    #[command(flatten)]
    pub(crate) output: crate::flags::OutputArgs,
    /// The estimator (default: projection).
    #[arg(long, value_enum)]
    pub(crate) method: Option<Method>,
}

/// `--method`.
#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
pub(crate) enum Method {
    /// [GGKKM] Alg. 1: Laplace (--delta 0) or Gaussian noise, then the l1-ball projection.
    Projection,
    /// [GGKKM] Alg. 2: Gaussian measurements, basis pursuit (needs --delta > 0, --epsilon < 1).
    Recovery,
    /// The Gaussian mechanism on the mean, no projection (needs --delta > 0, --epsilon < 1).
    Gaussian,
    /// The Laplace mechanism on the mean, no projection (needs --delta 0).
    Laplace,
}

/// What is printed, whatever the method.
struct Estimate {
    method: &'static str,
    noise: &'static str,
    mean: Vec<f64>,
    epsilon: Option<f64>,
    delta: Option<f64>,
    sigma: f64,
    /// Algorithm 2: (m, the branch, rho in the recovery branch).
    recovery: Option<(usize, &'static str, Option<f64>)>,
}

/// The library's configuration of the flags, each checked here first so that an error names the
/// flag.
fn config(args: &EstimateMeanArgs) -> CliResult<ProjectionMechanismConfig> {
    require_positive("--l2-bound", args.l2_bound)?;
    if args.sparsity == 0 {
        return Err(usage("--sparsity must be >= 1, got 0"));
    }
    require_positive("--epsilon", args.epsilon)?;
    require("--delta", args.delta, (0.0..1.0).contains(&args.delta), "in [0, 1)")?;
    if args.delta > 0.0 && args.epsilon >= 1.0 {
        return Err(usage(format!(
            "--epsilon must be < 1 when --delta > 0 (the classical Gaussian calibration of [GGKKM] Thm. 3.3), \
             got {}; use --delta 0 for Laplace noise at any epsilon",
            num(args.epsilon)
        )));
    }
    let cfg = ProjectionMechanismConfig::new(args.l2_bound, args.sparsity, args.epsilon, args.delta)?;
    Ok(if args.clip_rows { cfg.with_clipping() } else { cfg })
}

/// `dpref estimate mean`: checks the flags, reads the data, runs the method, prints.
pub(crate) fn estimate_mean(args: &EstimateMeanArgs) -> CliResult<String> {
    let cfg = config(args)?;
    let method = args.method.unwrap_or(Method::Projection);
    match (method, args.delta > 0.0) {
        (Method::Recovery | Method::Gaussian, false) => {
            return Err(usage("--method recovery and --method gaussian need --delta > 0"));
        }
        (Method::Laplace, true) => return Err(usage("--method laplace needs --delta 0 (pure epsilon-DP)")),
        _ => {}
    }
    let dimension = crate::run::data_dimension(&args.data, args.dimension, true)?;
    // Both readers return dense rows (there is no CSR reader); the mean reads the non-zeros only.
    let data = if crate::run::is_libsvm(&args.data) {
        dpref::data::read_libsvm(&args.data, dimension)?
    } else {
        dpref::data::read_csv(&args.data, None)?
    };
    let rows = |e: Error| match e {
        Error::InvalidParameter { name, .. } if name.starts_with("row ") => usage(format!(
            "{e} (rows counted from 0): a vector outside the sparse ball of --sparsity {} and --l2-bound {}; \
             pass --clip-rows to clip every row into it",
            args.sparsity,
            num(args.l2_bound)
        )),
        e => CliError::Lib(e),
    };
    let (vectors, seeds) = (SparseVectors::Dense(&data), dpref::rng::Seeds::new(args.seed));
    let estimate = if method == Method::Recovery {
        let mut alg2 = GaussianL1RecoveryConfig::new(args.l2_bound, args.sparsity, args.epsilon, args.delta)?;
        alg2.mean = cfg;
        let run = alg2.run(vectors, seeds).map_err(rows)?;
        let (branch, rho, sigma) = match run.branch {
            RecoveryBranch::Gaussian { sigma } => ("gaussian", None, sigma),
            RecoveryBranch::Recovery { rho, sigma, .. } => ("recovery", Some(rho), sigma),
        };
        Estimate {
            method: "recovery",
            noise: "gaussian",
            mean: run.z_hat,
            epsilon: run.accounted.privacy.epsilon,
            delta: run.accounted.privacy.delta,
            sigma,
            recovery: Some((run.m, branch, rho)),
        }
    } else {
        let run = cfg.run(vectors, seeds).map_err(rows)?;
        let noise = match run.noise {
            NoiseScale::Laplace { .. } => "laplace",
            NoiseScale::Gaussian { .. } => "gaussian",
        };
        let (method, mean) = match method {
            Method::Gaussian => ("gaussian", run.z_tilde),
            Method::Laplace => ("laplace", run.z_tilde),
            _ => ("projection", run.z_hat),
        };
        Estimate {
            method,
            noise,
            mean,
            epsilon: run.accounted.privacy.epsilon,
            delta: run.accounted.privacy.delta,
            sigma: run.noise.sigma(),
            recovery: None,
        }
    };
    print(args, &estimate, data.n(), data.d())
}

/// The run as text, or as one JSON object with `--json`.
fn print(args: &EstimateMeanArgs, run: &Estimate, n: usize, d: usize) -> CliResult<String> {
    let epsilon = run.epsilon.ok_or_else(|| usage("the mechanism reported no epsilon"))?;
    let delta = run.delta.unwrap_or(args.delta);
    let noise = run.noise;
    if args.output.json {
        let mut v = json!({
            "method": run.method,
            "noise": noise,
            "mean": run.mean,
            "epsilon": epsilon,
            "delta": delta,
            "n": n as u64,
            "d": d as u64,
            "sigma": run.sigma,
            "l2_bound": args.l2_bound,
            "sparsity": args.sparsity as u64,
        });
        if let Some((m, branch, rho)) = run.recovery {
            v["m"] = json!(m as u64);
            v["branch"] = json!(branch);
            v["rho"] = json!(rho);
        }
        return Ok(format!("{v}\n"));
    }
    let name = match run.method {
        "projection" => "projection mechanism",
        "recovery" => "Gaussian l1 recovery",
        "gaussian" => "Gaussian mechanism (no projection)",
        _ => "Laplace mechanism (no projection)",
    };
    let mut out =
        format!("{name}: private mean of {n} vectors (d = {d}), s = {}, L = {}\n", args.sparsity, num(args.l2_bound));
    out += &format!(
        "  privacy: ({}, {})-DP, {noise} noise of scale {}, replace-one neighbouring\n",
        num(epsilon),
        num(delta),
        num(run.sigma)
    );
    if let Some((m, branch, rho)) = run.recovery {
        let rho = rho.map(|r| format!(", certified RIP constant rho = {}", num(r))).unwrap_or_default();
        out += &format!("  {m} measurements, {branch} branch{rho}\n");
    }
    if args.clip_rows {
        // how many rows were clipped is a count of records (sensitivity 1, no noise): not released
        out += "  rows outside the sparse ball were clipped into it (their number is not released)\n";
    }
    let shown: Vec<String> =
        run.mean.iter().take(8).map(|v| if v.abs() < 1e9 { format!("{v:.6}") } else { format!("{v:.6e}") }).collect();
    out += &format!("  mean = [{}{}]\n", shown.join(", "), if d > 8 { ", ..." } else { "" });
    Ok(out)
}
