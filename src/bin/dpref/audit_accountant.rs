//! `audit accountant`: a certified lower bound on the true epsilon of a described mechanism (a
//! dp_accounting event as JSON), held against the epsilon another accountant claims.

use crate::EXIT_CODES_AUDIT;
use crate::account_args::NeighbouringArg;
use crate::flags::{CliResult, require, require_open_unit};
use crate::format::num;
use clap::Args;
use dpref::accounting::Neighbouring;
use dpref::accounting::external::event_from_dp_accounting_json;
use dpref::audit::accountant::{Verdict, audit_claim};
use dpref::error::Error;
use serde_json::json;
use std::path::PathBuf;

/// The `--help` text after the flags.
pub(crate) const AFTER_HELP: &str = "The event file is dp_accounting's DpEvent.to_named_tuple() as JSON (write it with \
     examples/external/dp_event_to_json.py). The lower bound is certified: the true epsilon at delta of the event's \
     worst case is at least that much, whatever the accountant. ";

#[derive(Args)]
#[command(after_help = format!("{AFTER_HELP}{EXIT_CODES_AUDIT}"))]
pub(crate) struct AuditAccountantArgs {
    /// The mechanism: a dp_accounting event as JSON (class_name and the constructor's fields).
    #[arg(long)]
    pub(crate) event: PathBuf,
    /// The epsilon the audited accountant reports for this event at --delta.
    #[arg(long)]
    pub(crate) claimed_epsilon: f64,
    /// delta of the claim, in (0, 1).
    #[arg(long)]
    pub(crate) delta: f64,
    /// Neighbouring relation the claim is made under (dp_accounting's ADD_OR_REMOVE_ONE or
    /// REPLACE_ONE).
    #[arg(long, value_enum, default_value = "add-remove")]
    pub(crate) neighbouring: NeighbouringArg,
    #[command(flatten)]
    pub(crate) output: crate::flags::OutputArgs,
}

pub(crate) fn audit_accountant(args: &AuditAccountantArgs) -> CliResult<(String, bool)> {
    let c = args.claimed_epsilon;
    require("--claimed-epsilon", c, c.is_finite() && c >= 0.0, ">= 0 and finite")?;
    require_open_unit("--delta", args.delta)?;
    let path = args.event.display().to_string();
    let text =
        std::fs::read_to_string(&args.event).map_err(|e| Error::Io { path: path.clone(), message: e.to_string() })?;
    let event = event_from_dp_accounting_json(&text, &path)?;
    let neighbouring = match args.neighbouring {
        NeighbouringArg::AddRemove => Neighbouring::AddRemove,
        NeighbouringArg::ReplaceOne => Neighbouring::ReplaceOne,
    };
    let v = audit_claim(&event, c, args.delta, neighbouring)?;
    let violation = v.verdict == Verdict::UnderReports;
    if args.output.json {
        let out = json!({
            "epsilon_lower": v.lower,
            "lower_source": v.lower_source.name(),
            "epsilon_lower_pld": v.lower_pld,
            "epsilon_upper": v.upper,
            "upper_source": v.upper_source,
            "claimed_epsilon": c,
            "delta": v.claim.delta,
            "neighbouring": neighbouring.name(),
            "event": event.describe(),
            "dropped": v.dropped,
            "verdict": v.verdict.name(),
            "violation": violation,
        });
        return Ok((format!("{out}\n"), violation));
    }
    let mut out = format!(
        "epsilon >= {}  (certified lower bound on the true epsilon at delta = {}; {})\n",
        num(v.lower),
        num(v.claim.delta),
        v.lower_source.name()
    );
    match (v.upper, v.upper_source) {
        (Some(u), Some(name)) => {
            out += &format!("epsilon <= {}  (dpref's {} accountant)\n", num(u), name.to_uppercase())
        }
        _ => out += "  no dpref accountant bounds this event from above\n",
    }
    out += &format!("  event: {}, {} neighbouring\n", event.describe(), neighbouring);
    if !v.dropped.is_empty() {
        out += &format!(
            "  note: no lower-bound model for {}: left out of the lower bound (ignoring an output is a post-processing)\n",
            v.dropped.join(", ")
        );
    }
    out += &match v.verdict {
        Verdict::UnderReports => format!(
            "  VIOLATION: the claimed epsilon {} is below the certified lower bound: the accountant under-reports\n",
            num(c)
        ),
        Verdict::Sound => format!("  claimed epsilon {}: sound (at or above dpref's upper bound)\n", num(c)),
        Verdict::WithinBracket => format!(
            "  claimed epsilon {}: not refuted (between the certified lower bound and dpref's upper bound)\n",
            num(c)
        ),
        Verdict::NotRefuted => format!("  claimed epsilon {}: not refuted (at or above the lower bound)\n", num(c)),
    };
    Ok((out, violation))
}
