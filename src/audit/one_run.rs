//! The one-run audit of Steinke, Nasr, Jagielski 2023 ("Privacy auditing with one (1) training
//! run", arXiv 2305.08846): m canaries, each included independently with probability ½; after
//! one run, the auditor guesses "included" for the r canaries with the highest scores (abstaining
//! on the rest) and v of the guesses are right. If the mechanism is (ε, δ)-DP, then
//!
//! `P[v correct] ≤ p(ε, δ) = β(ε) + α(ε)·δ·2m`, with `q = e^ε/(1+e^ε)`,
//! `β(ε) = P[Binomial(r, q) ≥ v]` and `α(ε) = max_{1≤i≤v} P[v−i ≤ Binomial(r, q) < v]/i`,
//!
//! so every ε with `p(ε, δ) ≤ significance` is rejected and the bound is the supremum of those.
//! The δ term is part of the theorem: a published third-party copy commented it out
//! (`p = beta  #+ alpha*delta*2*m` in ubc-systopia/panoramia), which overstates the bound whenever δ > 0;
//! [`p_value`] always includes it.
//!
//! Threshold choice: the guess rule "top r pooled scores" depends on the output only, so each
//! rule is a valid test; a Bonferroni correction over the rules makes the maximum valid.
//! [`OneRunThresholds::AllScores`] (default) divides the significance by m + 1, the number of
//! rules "top k pooled scores", k = 0..m (every threshold rule is one of them, ties included).
//! [`OneRunThresholds::JaxPrivacyFrontier`] divides it by the number of
//! points on the ROC frontier instead, as jax_privacy's `CanaryScoreAuditor.epsilon_one_run`
//! does: the frontier is computed with the labels, so that count is data dependent and the
//! correction is not rigorous; it exists to reproduce the published vectors (B10 of proofs/README.md).
//! The p-value is non-decreasing in ε when 2mδ ≤ 1, which the supremum search needs; larger δ
//! is refused. Note the cost of the δ term: with m = 20 000 and δ = 1e-6 it alone keeps the
//! rigorous bound at 0 on the B.10 vectors.
//! Proof: proofs/audit/one_run.md.

use super::binomial::{clopper_pearson_lower, clopper_pearson_upper};
use super::threshold::sorted_finite;
use crate::error::{Error, Result, check};
use serde::Serialize;

/// Which thresholds the Bonferroni correction counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum OneRunThresholds {
    /// Every distinct pooled score plus +∞ (rigorous).
    AllScores,
    /// The points of the (false-negative, true-negative) upper convex hull, as jax_privacy.
    JaxPrivacyFrontier,
}

/// Result of a one-run audit: with probability ≥ 1 − significance the mechanism is not
/// (ε′, δ)-DP for any ε′ < `epsilon` — under [`OneRunThresholds::AllScores`] only; under
/// [`OneRunThresholds::JaxPrivacyFrontier`] the correction count is chosen with the labels and
/// the value is an estimate (it reproduces jax_privacy's published vectors), not a certified bound.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct OneRunBound {
    /// The certified lower bound on ε (≥ 0).
    pub epsilon: f64,
    /// The significance (1 − confidence).
    pub significance: f64,
    /// δ of the claim.
    pub delta: f64,
    /// Canaries m.
    pub m: u64,
    /// Guesses r of the best rule.
    pub guesses: u64,
    /// Correct guesses v of the best rule.
    pub correct: u64,
    /// Its threshold (guess "in" for scores ≥ threshold).
    pub threshold: Option<f64>,
    /// Number of rules the significance was divided by.
    pub bonferroni_count: u64,
}

/// Binomial(r, q) probabilities around v: returns (P[X ≥ v], the pmf for j < v in descending
/// j order). The tail is [`binomial_upper_tail`](super::binomial::binomial_upper_tail) (over-read
/// by at most 1e-10, which only raises the p-value); the pmf by recurrence from j = v − 1 in log
/// space.
fn binomial_around(r: u64, q: f64, v: u64) -> (f64, Vec<f64>) {
    let ln_pmf = |j: u64| super::binomial::ln_binomial_pmf(r, j, q);
    let odds = q / (1.0 - q);
    let upper = match v {
        0 => 1.0,
        v if v > r => 0.0,
        v => super::binomial::binomial_upper_tail(r, v, q),
    };
    // pmf(v−1), pmf(v−2), … (downward recurrence pmf(j−1) = pmf(j)·j/((r−j+1)·odds))
    let mut below = Vec::new();
    if v >= 1 {
        let mut lp = ln_pmf(v - 1);
        let mut jj = v - 1;
        loop {
            let p = lp.exp();
            below.push(p);
            if jj == 0 || (p < 1e-300 && (jj as f64) < r as f64 * q) {
                break;
            }
            lp += (jj as f64 / ((r - jj + 1) as f64 * odds)).ln();
            jj -= 1;
        }
    }
    (upper.min(1.0), below)
}

/// The one-run p-value `p(ε, δ)` for m canaries, r guesses, v correct (with the δ term).
///
/// # Errors
/// `InvalidParameter` for v > r, r > m, ε < 0 or δ ∉ [0, 1].
pub fn p_value(m: u64, r: u64, v: u64, epsilon: f64, delta: f64) -> Result<f64> {
    if v > r || r > m {
        return Err(Error::invalid("guesses", format!("m={m}, r={r}, v={v}"), "v <= r <= m"));
    }
    check::non_negative("epsilon", epsilon)?;
    if !(0.0..=1.0).contains(&delta) {
        return Err(Error::invalid("delta", delta, "in [0, 1]"));
    }
    if v == 0 {
        return Ok(1.0);
    }
    let q = 1.0 / (1.0 + (-epsilon).exp());
    let (beta, below) = binomial_around(r, q, v);
    if delta == 0.0 {
        return Ok(beta);
    }
    // α = max_i Σ_{j=v−i}^{v−1} pmf(j) / i
    let (mut cum, mut alpha) = (0.0f64, 0.0f64);
    for (i, p) in below.iter().enumerate() {
        cum += p;
        alpha = alpha.max(cum / (i + 1) as f64);
    }
    Ok((beta + alpha * delta * 2.0 * m as f64).min(1.0))
}

/// The largest ε with `p(ε, δ) ≤ significance` (the bound for one guess rule), or `None` if even
/// ε = 0 is not rejected. Bisection to 1e-10 on ε; `p` is non-decreasing in ε.
fn epsilon_for_rule(m: u64, r: u64, v: u64, significance: f64, delta: f64) -> Result<Option<f64>> {
    // p carries a relative rounding error of ~1e-12 (pmf recurrences); compare with a margin.
    let rejected = |e: f64| -> Result<bool> { Ok(p_value(m, r, v, e, delta)? * (1.0 + 1e-9) <= significance) };
    if !rejected(0.0)? {
        return Ok(None);
    }
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    while rejected(hi)? {
        lo = hi;
        hi *= 2.0;
        if hi > 1e4 {
            return Ok(Some(lo));
        }
    }
    while hi - lo > 1e-10 {
        let mid = 0.5 * (lo + hi);
        if rejected(mid)? {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Ok(Some(lo))
}

/// Upper convex hull of the (false-negative, true-negative) count curve over ascending
/// thresholds (jax_privacy's `_pareto_frontier`): indices of the retained points.
fn roc_frontier(points: &[(f64, f64)]) -> Vec<usize> {
    let mut hull: Vec<usize> = Vec::new();
    for i in 0..points.len() {
        while hull.len() >= 2 {
            let (a, b) = (points[hull[hull.len() - 2]], points[hull[hull.len() - 1]]);
            let c = points[i];
            let cross = (b.1 - a.1) * (c.0 - b.0) - (c.1 - b.1) * (b.0 - a.0);
            if cross <= 0.0 {
                hull.pop();
            } else {
                break;
            }
        }
        hull.push(i);
    }
    hull
}

/// One-run audit from the scores of included (`in_scores`) and excluded (`out_scores`)
/// canaries, guessing "included" for high scores.
///
/// # Errors
/// `Empty`/`NonFinite` for bad scores, `InvalidParameter` for significance ∉ (0, 1),
/// δ ∉ [0, 1], or an in/out split that fair coins give with probability below 1e-9.
pub fn epsilon_one_run(
    in_scores: &[f64],
    out_scores: &[f64],
    significance: f64,
    delta: f64,
    thresholds: OneRunThresholds,
) -> Result<OneRunBound> {
    check::open_unit("significance", significance)?;
    if !(0.0..=1.0).contains(&delta) {
        return Err(Error::invalid("delta", delta, "in [0, 1]"));
    }
    let m_total = (in_scores.len() + out_scores.len()) as f64;
    if 2.0 * m_total * delta > 1.0 {
        // p(ε) is proven non-decreasing in ε only for 2mδ ≤ 1 (proofs/audit/one_run.md); the
        // supremum search needs it.
        return Err(Error::invalid("delta", delta, "at most 1/(2m) for m canaries (monotonicity of the p-value)"));
    }
    let ins = sorted_finite("in-canary scores", in_scores)?;
    let outs = sorted_finite("out-canary scores", out_scores)?;
    let (n_in, n_out) = (ins.len() as u64, outs.len() as u64);
    let m = n_in + n_out;
    // The theorem's canaries are included by independent fair coins. A split that a fair coin
    // gives with probability below 1e-9 (exact two-sided test: ½ outside the Clopper–Pearson
    // interval of n_in/m at 5e-10 per side) means the inclusion was not randomised that way, and
    // the bound means nothing: 900 in / 100 out with scores that ignore membership certified
    // ε ≥ 1.8 for a mechanism with ε = 0.
    let (lo, hi) = (clopper_pearson_lower(n_in, m, 5e-10)?, clopper_pearson_upper(n_in, m, 5e-10)?);
    if !(lo <= 0.5 && 0.5 <= hi) {
        return Err(Error::invalid(
            "canary counts",
            format!("{n_in} included, {n_out} excluded"),
            "a split that independent fair coins (the one-run theorem's inclusion) give with probability at least \
             1e-9; randomise each canary's inclusion with probability 1/2",
        ));
    }
    // thresholds: distinct pooled scores ascending, then +∞
    let mut ts: Vec<f64> = ins.iter().chain(outs.iter()).copied().collect();
    ts.sort_unstable_by(f64::total_cmp);
    ts.dedup();
    ts.push(f64::INFINITY);
    // (fn, tn) counts: scores below t
    let counts: Vec<(f64, f64)> =
        ts.iter().map(|&t| (ins.partition_point(|&x| x < t) as f64, outs.partition_point(|&x| x < t) as f64)).collect();
    let frontier = roc_frontier(&counts);
    let bonferroni_count = match thresholds {
        // Every threshold rule "guess in for score ≥ t" is one of the m + 1 rules "guess in for
        // the top k pooled scores" (k = 0..m), whatever the ties: count all of them.
        OneRunThresholds::AllScores => m + 1,
        OneRunThresholds::JaxPrivacyFrontier => frontier.len() as u64,
    };
    let sig = significance / bonferroni_count as f64;
    // Evaluate the frontier rules (a subset of the counted rules), best raw precision first.
    let mut rules: Vec<(u64, u64, f64)> = frontier
        .iter()
        .map(|&i| {
            let tp = n_in - counts[i].0 as u64;
            let fp = n_out - counts[i].1 as u64;
            (tp + fp, tp, ts[i])
        })
        .filter(|&(r, _, _)| r > 0)
        .collect();
    rules.sort_by(|x, y| (y.1 as f64 / y.0 as f64).total_cmp(&(x.1 as f64 / x.0 as f64)));
    let mut best =
        OneRunBound { epsilon: 0.0, significance, delta, m, guesses: 0, correct: 0, threshold: None, bonferroni_count };
    for (r, v, t) in rules {
        // A rule whose raw precision is at most e^ε/(1+e^ε) of the best cannot beat it.
        let q_best = 1.0 / (1.0 + (-best.epsilon).exp());
        if (v as f64) / (r as f64) <= q_best {
            continue;
        }
        if let Some(e) = epsilon_for_rule(m, r, v, sig, delta)?
            && e > best.epsilon
        {
            best = OneRunBound { epsilon: e, guesses: r, correct: v, threshold: Some(t), ..best };
        }
    }
    Ok(best)
}
