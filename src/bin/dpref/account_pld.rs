//! `account --accountant pld|all`: the PLD accountant's certified bracket on ε, alone or beside
//! the RDP upper bound.

use crate::account::{Request, finite_epsilon};
use crate::account_args::AccountArgs;
use crate::flags::{CliResult, name_rdp_flag, usage};
use crate::format::num;
use dpref::Error;
use dpref::accounting::pld::{EpsilonBracket, PldAccountant};
use dpref::accounting::{Accountant, PLD_FLOOR};
use serde_json::json;

/// The PLD bracket of the request's event at its δ, with the discretisation interval used
/// (the default settings). Its upper end may be +∞ (the discretisation's δ floor).
fn bracket(req: &Request, sigma: f64) -> CliResult<(EpsilonBracket, f64)> {
    let mut acc = PldAccountant::new(req.neighbouring);
    acc.compose(&req.event(sigma)?, 1)?;
    let b = acc.epsilon(req.delta)?;
    Ok((b, acc.settings().value_discretization_interval))
}

/// The error for a PLD upper end of +∞ when no other accountant answers.
fn pld_floor(delta: f64) -> Error {
    name_rdp_flag(Error::Numerical {
        what: "accounting",
        reason: format!("no finite epsilon at delta = {}: {PLD_FLOOR}", num(delta)),
    })
}

/// `--accountant pld` (`with_rdp = false`) or `all`.
pub(crate) fn account_pld(args: &AccountArgs, req: &Request, with_rdp: bool) -> CliResult<String> {
    if with_rdp && args.mech.orders.is_some() {
        return Err(usage("--orders applies to the RDP accountant; drop it with --accountant all"));
    }
    if !with_rdp {
        args.mech.refuse_rdp_only_flags()?;
    }
    let (b, interval) = bracket(req, args.sigma)?;
    let rdp = if with_rdp {
        let bound = req.settings.epsilon(&req.event(args.sigma)?, req.delta)?;
        Some((finite_epsilon(bound.epsilon, args.sigma, req.delta)?, bound.order))
    } else {
        None
    };
    // Every number here is an upper bound on the true ε; the smallest one is the answer (with
    // `all`, RDP's alone when the PLD's upper end is +∞ at its δ floor).
    let epsilon = rdp.map_or(b.upper, |(r, _)| r.min(b.upper));
    if !epsilon.is_finite() {
        return Err(pld_floor(req.delta).into());
    }
    if args.mech.output.json {
        let mut v = req.json_common(args.sigma);
        v["accountant"] = json!(if with_rdp { "all" } else { "pld" });
        v["epsilon"] = json!(epsilon);
        v["epsilon_lower"] = json!(b.lower);
        // null: no finite PLD upper end (JSON has no infinity); `epsilon` is then RDP's
        v["epsilon_upper"] = if b.upper.is_finite() { json!(b.upper) } else { json!(null) };
        v["value_discretization_interval"] = json!(interval);
        if let Some((r, order)) = rdp {
            v["epsilon_rdp"] = json!(r);
            v["order"] = json!(order);
        } else {
            v["order"] = json!(null);
            v["conversion"] = json!(null);
        }
        return Ok(format!("{v}\n"));
    }
    let pld_line = if b.upper.is_finite() {
        format!(
            "the true epsilon lies in [{}, {}] (certified bracket, width {})",
            num(b.lower),
            num(b.upper),
            num(b.width())
        )
    } else {
        format!(
            "the true epsilon is at least {}; no finite upper bound at this delta (its discretisation's floor)",
            num(b.lower)
        )
    };
    let mut out = format!("epsilon = {}  (delta = {})\n  PLD accountant: {pld_line}\n", num(epsilon), num(req.delta));
    if let Some((r, order)) = rdp {
        out.push_str(&format!(
            "  RDP accountant: upper bound {} ({} conversion{})\n",
            num(r),
            req.settings.conversion.name(),
            order.map_or(String::new(), |o| format!(", order {}", num(o)))
        ));
    }
    out.push_str(&format!("  mechanism: {}\n", req.describe(args.sigma)));
    Ok(out)
}
