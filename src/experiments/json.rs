//! What `dpref reproduce --json` prints for each experiment: its verdict(s) and the headline
//! numbers its tables print, **unrounded** (a NaN, i.e. a missing or diverged number, is
//! `null`); the Markdown tables round them (ε up, σ and lower bounds down).

use super::fit::{Claim, mean};
use super::{adaptive_noise, dp2, dpagd, l1, privacy_table, sparse};
use serde_json::{Value, json};

/// The claims of a slope-fitting experiment: label, observed or not, the report's line.
fn claims(claims: &[Claim]) -> Value {
    claims.iter().map(|c| json!({"label": c.label, "observed": c.observed, "line": c.line})).collect()
}

/// A single-verdict report's verdict: reproduced or not (the summary's first word), and its line.
fn verdict(summary: &str, line: &str) -> Value {
    json!({"reproduced": summary.starts_with("REPRODUCED"), "line": line})
}

/// `reproduce privacy`: one verdict per claimed ε, and every accounted row.
pub(crate) fn privacy_table(r: &privacy_table::Report) -> Value {
    let verdicts: Vec<Value> = r
        .rows
        .iter()
        .filter(|row| row.setting.claimed_epsilon.is_some())
        .map(|row| json!({"setting": row.setting.name, "reproduced": row.verdict.starts_with("reproduced"), "line": row.verdict}))
        .collect();
    json!({"verdicts": verdicts, "rows": r.rows})
}

/// `reproduce adaptive-noise`: the verdict and every (method, ε) cell.
pub(crate) fn adaptive_noise(r: &adaptive_noise::Report) -> Value {
    let cells: Vec<Value> = r
        .cells
        .iter()
        .map(|c| {
            json!({"method": c.method.name(), "epsilon": c.epsilon, "alpha": c.alpha, "searched": c.searched,
                   "extended": c.extended, "at_edge": c.at_edge, "median_loss": c.median_loss,
                   "loss_range": c.loss_range})
        })
        .collect();
    json!({"verdict": verdict(&r.written.summary, &r.verdict), "loss_at_x_star": r.loss_at_x_star,
           "steps": r.steps, "runs": r.runs, "cells": cells})
}

/// `reproduce dpagd`: the verdict and every (ε, method) cell.
pub(crate) fn dpagd(r: &dpagd::Report) -> Value {
    let cells: Vec<Value> = r
        .cells
        .iter()
        .map(|c| {
            json!({"epsilon": c.epsilon, "method": c.method.name(), "sigma": c.sigma,
                   "epsilon_accounted": c.epsilon_accounted, "epsilon_audited": c.epsilon_audited,
                   "learning_rate": c.learning_rate, "searched": c.searched, "extended": c.extended,
                   "at_edge": c.at_edge, "train_loss": c.train_loss, "train_accuracy": c.train_accuracy,
                   "test_accuracy": c.test_accuracy})
        })
        .collect();
    json!({"verdict": verdict(&r.written.summary, &r.verdict), "chance_accuracy": r.chance_accuracy, "cells": cells})
}

/// `reproduce dp2`: the verdict and every method's row.
pub(crate) fn dp2(r: &dp2::Report) -> Value {
    let rows: Vec<Value> = r
        .rows
        .iter()
        .map(|row| {
            let h = row.hyper;
            json!({"method": row.method.name(), "sigma": row.sigma, "epsilon": row.epsilon,
                   "epsilon_audited": row.epsilon_audited, "alpha1": h.lr_sgd, "alpha2": h.lr_adaptive,
                   "c1": h.clip_sgd, "c2": h.clip_adaptive, "delay": h.delay, "tuned_axis": row.method.rate_name(),
                   "searched": row.searched, "extended": row.extended, "at_edge": row.at_edge,
                   "train_loss": row.train_loss, "test_accuracy": row.test_accuracy})
        })
        .collect();
    json!({"verdict": verdict(&r.written.summary, &r.verdict), "rows": rows})
}

/// `reproduce l1`: each claim's verdict and every sweep's points.
pub(crate) fn l1(r: &l1::Report) -> Value {
    let sweeps: Vec<Value> = r
        .sweeps
        .iter()
        .map(|(label, points)| {
            let points: Vec<Value> = points
                .iter()
                .map(|p| {
                    json!({"x": p.x, "n": p.n, "d": p.d, "epsilon": p.epsilon,
                           "md_mean_excess": mean(&p.md.excess), "md_step": p.md.eta, "md_step_at_edge": p.md.eta_at_edge,
                           "md_sigma": p.md.sigma, "fw_mean_excess": mean(&p.fw.excess), "fw_phases_t": p.fw.phases_t,
                           "fw_batch_b": p.fw.batch_b, "fw_epsilon": p.fw.epsilon})
                })
                .collect();
            json!({"sweep": label, "points": points})
        })
        .collect();
    json!({"claims": claims(&r.claims), "sweeps": sweeps})
}

/// `reproduce sparse`: each claim's verdict (the claim lines carry the numbers they test).
pub(crate) fn sparse(r: &sparse::Report) -> Value {
    json!({"claims": claims(&r.claims)})
}
