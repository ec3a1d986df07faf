//! `estimate mean`: the private mean of sparse vectors by the projection mechanism
//! ([GGKKM] Algorithm 1, `dpref::optim::sparse::projection_mechanism`).

use crate::EXIT_CODES;
use crate::flags::{CliError, CliResult, require, require_positive, usage, whole_u64, whole_usize};
use crate::format::num;
use clap::{Args, Subcommand};
use dpref::error::Error;
use dpref::optim::sparse::projection_mechanism::{
    NoiseScale, ProjectionMechanismConfig, ProjectionMechanismRun, SparseVectors,
};
use serde_json::json;
use std::path::PathBuf;

#[derive(Subcommand)]
pub(crate) enum EstimateCommand {
    #[command(
        after_help = EXIT_CODES,
        allow_negative_numbers = true,
        about = "The private mean of s-sparse vectors of l2 norm <= L by the projection mechanism ([GGKKM] \
                 Alg. 1): Laplace noise for --delta 0, Gaussian noise for --delta > 0 (then --epsilon < 1), \
                 projected onto the l1 ball of radius L*sqrt(s)."
    )]
    Mean(EstimateMeanArgs),
}

#[derive(Args)]
pub(crate) struct EstimateMeanArgs {
    /// The vectors: CSV (numbers, the last column a label, ignored; optional header) or LIBSVM
    /// (.svm, .libsvm; labels ignored).
    #[arg(long)]
    pub(crate) data: PathBuf,
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
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub(crate) json: bool,
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

/// `dpref estimate mean`: checks the flags, reads the data, runs Algorithm 1, prints.
pub(crate) fn estimate_mean(args: &EstimateMeanArgs) -> CliResult<String> {
    let cfg = config(args)?;
    let libsvm = matches!(args.data.extension().and_then(|e| e.to_str()), Some("svm" | "libsvm"));
    // Both readers return dense rows (there is no CSR reader); the mean reads the non-zeros only.
    let data =
        if libsvm { dpref::data::read_libsvm(&args.data, None)? } else { dpref::data::read_csv(&args.data, None)? };
    let run = cfg.run(SparseVectors::Dense(&data), dpref::rng::Seeds::new(args.seed)).map_err(|e| match e {
        Error::InvalidParameter { name, .. } if name.starts_with("row ") => usage(format!(
            "{e} (rows counted from 0): a vector outside the sparse ball of --sparsity {} and --l2-bound {}; \
             pass --clip-rows to clip every row into it",
            args.sparsity,
            num(args.l2_bound)
        )),
        e => CliError::Lib(e),
    })?;
    print(args, &run, data.n(), data.d())
}

/// The run as text, or as one JSON object with `--json`.
fn print(args: &EstimateMeanArgs, run: &ProjectionMechanismRun, n: usize, d: usize) -> CliResult<String> {
    let epsilon = run.privacy.epsilon.ok_or_else(|| usage("the projection mechanism reported no epsilon"))?;
    let delta = run.privacy.delta.unwrap_or(args.delta);
    let noise = match run.noise {
        NoiseScale::Laplace { .. } => "laplace",
        NoiseScale::Gaussian { .. } => "gaussian",
    };
    if args.json {
        let v = json!({
            "method": "projection",
            "noise": noise,
            "mean": run.z_hat,
            "epsilon": epsilon,
            "delta": delta,
            "n": n as u64,
            "d": d as u64,
            "clipped_rows": run.clipped_rows as u64,
            "sigma": run.noise.sigma(),
            "l2_bound": args.l2_bound,
            "sparsity": args.sparsity as u64,
        });
        return Ok(format!("{v}\n"));
    }
    let mut out = format!(
        "projection mechanism: private mean of {n} vectors (d = {d}), s = {}, L = {}\n",
        args.sparsity,
        num(args.l2_bound)
    );
    out += &format!(
        "  privacy: ({}, {})-DP, {noise} noise of scale {}, replace-one neighbouring\n",
        num(epsilon),
        num(delta),
        num(run.noise.sigma())
    );
    if args.clip_rows {
        out += &format!("  rows clipped into the sparse ball: {}\n", run.clipped_rows);
    }
    let shown: Vec<String> =
        run.z_hat.iter().take(8).map(|v| if v.abs() < 1e9 { format!("{v:.6}") } else { format!("{v:.6e}") }).collect();
    out += &format!("  mean = [{}{}]\n", shown.join(", "), if d > 8 { ", ..." } else { "" });
    Ok(out)
}
