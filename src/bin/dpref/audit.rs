//! `audit samples`: a certified lower bound on the epsilon of another implementation.

use crate::EXIT_CODES_AUDIT;
use crate::flags::{CliError, CliResult, require, usage, whole_u64};
use crate::format::num;
use clap::{Args, Subcommand, ValueEnum};
use dpref::error::Error;
use serde_json::json;
use std::path::PathBuf;

#[derive(Subcommand)]
pub(crate) enum AuditCommand {
    /// Audit another implementation from its outputs on two neighbouring datasets.
    #[command(after_help = EXIT_CODES_AUDIT, allow_negative_numbers = true)]
    Samples(AuditSamplesArgs),
    /// Audit another library's accountant: a certified lower bound on the true epsilon of a
    /// described mechanism (dp_accounting event JSON) against the epsilon it claims.
    #[command(allow_negative_numbers = true)]
    Accountant(crate::audit_accountant::AuditAccountantArgs),
}

#[derive(Clone, Copy, ValueEnum)]
pub(crate) enum StrategyArg {
    Bonferroni,
    Split,
}

#[derive(Args)]
pub(crate) struct AuditSamplesArgs {
    /// Outputs on D: one real number per line, or a CSV (see --column).
    #[arg(long)]
    pub(crate) a: PathBuf,
    /// Outputs on D' (neighbouring), in the same format.
    #[arg(long)]
    pub(crate) b: PathBuf,
    /// The column holding the outputs in both files: a header name or a 0-based index. Needed when
    /// the files have more than one column (e.g. pandas' to_csv() writes the row index first).
    #[arg(long)]
    pub(crate) column: Option<String>,
    /// delta of the claim tested, in [0, 1).
    #[arg(long, default_value_t = 0.0)]
    pub(crate) delta: f64,
    /// The epsilon the implementation claims; exit code 3 if the bound exceeds it.
    #[arg(long)]
    pub(crate) claimed_epsilon: Option<f64>,
    /// Confidence 1 - beta of the bound, in [0.5, 1) (e.g. 0.95, not the error rate 0.05).
    #[arg(long, default_value_t = 0.95)]
    pub(crate) confidence: f64,
    /// How the threshold is chosen: all thresholds with a simultaneous (Bonferroni) correction,
    /// or chosen on half of the samples and certified on the other half.
    #[arg(long, value_enum, default_value = "bonferroni")]
    pub(crate) threshold_strategy: StrategyArg,
    /// Seed of the split.
    #[arg(long, default_value_t = 0, value_parser = whole_u64)]
    pub(crate) seed: u64,
    #[command(flatten)]
    pub(crate) output: crate::flags::OutputArgs,
}

/// Exit code 3: the audit found a violation of the claimed guarantee.
pub(crate) const EXIT_VIOLATION: u8 = 3;

/// Reads the outputs of `--a` or `--b`: the column `--column` names (needed when the file has
/// several), refusing a row index.
pub(crate) fn audit_column(path: &std::path::Path, column: Option<&str>) -> CliResult<Vec<f64>> {
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

pub(crate) fn audit_samples(args: &AuditSamplesArgs) -> CliResult<(String, bool)> {
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
    if args.output.json {
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
