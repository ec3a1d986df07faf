//! Certified ε lower bounds from samples of a mechanism's (scalar) outputs, or attack scores, on
//! two neighbouring datasets D (side A) and D′ (side B).
//!
//! (ε, δ)-DP requires `P(S) ≤ e^ε Q(S) + δ` for every event S and both orders of (P, Q). The
//! attacks are threshold events; for a threshold t there are four (P, Q, S):
//!
//! | direction | region | P | Q | S |
//! |---|---|---|---|---|
//! | a>b | at least | A | B | {s ≥ t} |
//! | a>b | below | B | A | {s < t} |
//! | b>a | at least | B | A | {s ≥ t} |
//! | b>a | below | A | B | {s < t} |
//!
//! and each gives `ε ≥ ln((P̲(S) − δ)/Q̄(S))` from a lower confidence bound `P̲` and an upper
//! confidence bound `Q̄` (Clopper–Pearson). The threshold must not be chosen on the data that
//! certifies it without a correction ([`ThresholdStrategy`]):
//!
//! * **Bonferroni** (simultaneous over *all* thresholds): for the j-th largest of n i.i.d. samples
//!   X₍ⱼ₎, `P(X ≥ X₍ⱼ₎)` is distributed as the j-th smallest of n uniforms, Beta(j, n−j+1) (and is
//!   stochastically larger for distributions with atoms). A union bound over the n order
//!   statistics of each side and over the four families (lower and upper bounds for A and B)
//!   makes `P̲(S) = CP_lower(k, n, β/(4n))` and `Q̄(S) = CP_upper(k, n, β/(4n))` valid for every
//!   threshold at once with probability ≥ 1 − β, so the maximum over thresholds is a certified
//!   bound. This is stricter than a Bonferroni over a data-dependent candidate list.
//! * **Split**: choose the attack on a random part of each sample, certify it on the rest with a
//!   single Clopper–Pearson pair at β/2 each.
//! * **Fixed** threshold: all four attacks at that threshold, Clopper–Pearson at β/8 each.
//!
//! The search evaluates the exact bound on a grid of the attack's frontier (for each count of
//! the Q side on a grid, the largest count of the P side), best first by an optimistic
//! proxy, then on every frontier point near the best. Because the Bonferroni bound holds for all
//! thresholds simultaneously, searching a subset never invalidates it.
//! Proof: proofs/audit/threshold_bounds.md.

use super::binomial::{clopper_pearson_lower, clopper_pearson_upper};
use crate::error::{Error, Result, check};
use crate::rng::{Seeds, Stream};
use rand::RngExt;
use rayon::prelude::*;
use serde::Serialize;

/// Stream purpose of the split's random partition ("split").
const SPLIT_STREAM_TAG: u64 = 0x73_70_6c_69_74;

/// How the threshold is chosen and paid for.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub enum ThresholdStrategy {
    /// Search all thresholds; bounds simultaneous over all of them (the default).
    Bonferroni,
    /// Choose on a random `fraction` of each sample, certify on the rest.
    Split {
        /// Fraction of each side used to choose the attack, in (0, 1).
        fraction: f64,
    },
    /// A threshold fixed before seeing the data.
    Fixed {
        /// The threshold t.
        threshold: f64,
    },
}

/// Which side's large scores the attack attributes to which dataset.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Direction {
    /// Large scores indicate A (the CLI's `"a>b"`).
    #[serde(rename = "a>b")]
    AOverB,
    /// Large scores indicate B (`"b>a"`).
    #[serde(rename = "b>a")]
    BOverA,
}

impl Direction {
    /// The CLI spelling.
    pub fn name(self) -> &'static str {
        match self {
            Direction::AOverB => "a>b",
            Direction::BOverA => "b>a",
        }
    }
}

/// The distinguishing event of an attack at threshold t.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Region {
    /// `S = {s ≥ t}`, P = the side the direction favours.
    AtLeast,
    /// `S = {s < t}`, P = the other side.
    Below,
}

/// A certified lower bound on ε: with probability at least `confidence` over the samples, the
/// mechanism is **not** (ε′, δ)-DP for any ε′ < `epsilon`. Construct only through the functions
/// of this module.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct EpsilonLowerBound {
    /// The bound (≥ 0; 0 when no attack beats δ).
    pub epsilon: f64,
    /// 1 − β.
    pub confidence: f64,
    /// The δ of the claim tested.
    pub delta: f64,
    /// The threshold of the best attack (`None` if no attack gave a positive bound).
    pub threshold: Option<f64>,
    /// Its direction.
    pub direction: Direction,
    /// Its event.
    pub region: Region,
    /// `P̲(S)`: the certified lower bound on the attack's true-positive rate.
    pub tpr_lower: f64,
    /// `Q̄(S)`: the certified upper bound on its false-positive rate.
    pub fpr_upper: f64,
    /// Samples on side A (all of them, including a split's selection part).
    pub n_a: u64,
    /// Samples on side B.
    pub n_b: u64,
    /// How the threshold was chosen.
    pub strategy: ThresholdStrategy,
}

/// Settings of a two-sample audit.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct AuditSettings {
    /// δ of the claim (in [0, 1)).
    pub delta: f64,
    /// 1 − β, in (0, 1).
    pub confidence: f64,
    /// Threshold strategy.
    pub strategy: ThresholdStrategy,
    /// Seed of the split (ignored otherwise).
    pub seed: u64,
}

impl Default for AuditSettings {
    fn default() -> Self {
        AuditSettings { delta: 0.0, confidence: 0.95, strategy: ThresholdStrategy::Bonferroni, seed: 0 }
    }
}

impl AuditSettings {
    fn validate(&self) -> Result<()> {
        check::probability_below_one("delta", self.delta)?;
        check::open_unit("confidence", self.confidence)?;
        if let ThresholdStrategy::Split { fraction } = self.strategy {
            check::open_unit("split fraction", fraction)?;
        }
        if let ThresholdStrategy::Fixed { threshold } = self.strategy
            && threshold.is_nan()
        {
            return Err(Error::invalid("threshold", threshold, "a number"));
        }
        Ok(())
    }
}

/// `ln((P̲ − δ)/Q̄)` from counts, with the two Clopper–Pearson levels given explicitly: the
/// primitive behind every bound here (and the convention of Jagielski et al. 2020, vector B6 of proofs/README.md,
/// with `alpha_p = alpha_q = α/2`). Returns `None` when `P̲ ≤ δ`; divides by `group_size` k
/// (group privacy, δ = 0 only).
///
/// # Errors
/// `InvalidParameter` for counts above their totals, levels ∉ (0, 1), δ ∉ [0, 1), k = 0, or
/// k > 1 with δ > 0.
#[allow(clippy::too_many_arguments)]
pub fn epsilon_from_counts(
    k_p: u64,
    n_p: u64,
    k_q: u64,
    n_q: u64,
    alpha_p: f64,
    alpha_q: f64,
    delta: f64,
    group_size: u64,
) -> Result<Option<(f64, f64, f64)>> {
    check::probability_below_one("delta", delta)?;
    check::count("group size", group_size)?;
    if group_size > 1 && delta > 0.0 {
        return Err(Error::invalid("group size", group_size, "1 when delta > 0"));
    }
    let p_lo = clopper_pearson_lower(k_p, n_p, alpha_p)?;
    let q_hi = clopper_pearson_upper(k_q, n_q, alpha_q)?;
    Ok(ratio_bound(p_lo, q_hi, delta).map(|e| (e / group_size as f64, p_lo, q_hi)))
}

/// `ln((p − δ)/q)` rounded down (so that the bound stays a lower bound), `None` if p ≤ δ.
fn ratio_bound(p_lo: f64, q_hi: f64, delta: f64) -> Option<f64> {
    let num = p_lo - delta;
    if num <= 0.0 {
        return None;
    }
    let e = num.ln() - q_hi.ln();
    // `p − δ` carries u·(p + δ), i.e. a relative u·(p + δ)/num in num; ln and the subtraction at
    // most a few ulp of |ln num| + |ln q|: step down by all of it.
    let margin = 4.0 * f64::EPSILON * (num.ln().abs() + q_hi.ln().abs() + (p_lo + delta) / num);
    Some((e - margin).next_down().max(0.0))
}

pub(super) fn sorted_finite(what: &'static str, xs: &[f64]) -> Result<Vec<f64>> {
    if xs.is_empty() {
        return Err(Error::Empty { what });
    }
    check::all_finite(what, xs)?;
    let mut v = xs.to_vec();
    v.par_sort_unstable_by(f64::total_cmp);
    Ok(v)
}

/// One of the four attacks, in terms of the two sorted samples it compares.
#[derive(Debug, Clone, Copy)]
struct Attack {
    direction: Direction,
    region: Region,
}

const ATTACKS: [Attack; 4] = [
    Attack { direction: Direction::AOverB, region: Region::AtLeast },
    Attack { direction: Direction::AOverB, region: Region::Below },
    Attack { direction: Direction::BOverA, region: Region::AtLeast },
    Attack { direction: Direction::BOverA, region: Region::Below },
];

impl Attack {
    /// (P sample, Q sample) of this attack.
    fn sides<'a>(&self, a: &'a [f64], b: &'a [f64]) -> (&'a [f64], &'a [f64]) {
        match (self.direction, self.region) {
            (Direction::AOverB, Region::AtLeast) | (Direction::BOverA, Region::Below) => (a, b),
            _ => (b, a),
        }
    }
}

/// Count of `sorted` in the region at threshold t.
fn count_in(sorted: &[f64], region: Region, t: f64) -> u64 {
    let below = sorted.partition_point(|&x| x < t) as u64;
    match region {
        Region::AtLeast => sorted.len() as u64 - below,
        Region::Below => below,
    }
}

/// A frontier point: threshold and the region counts of the P and Q samples there.
#[derive(Debug, Clone, Copy)]
struct Point {
    t: f64,
    kp: u64,
    kq: u64,
}

/// Which Q-counts a frontier pass keeps, and how it groups them into cells.
#[derive(Debug, Clone, Copy)]
enum Cells {
    /// All Q-counts, grouped by [`grid_cell`] (the first pass).
    Grid,
    /// Only the Q-counts in `lo..=hi`, each its own cell (the refinement pass).
    Range { lo: u64, hi: u64 },
}

/// [`grid_cell`] for nondecreasing queries without a logarithm per query: remembers the last
/// cell and the first count past it (found by exponential then binary search on `grid_cell`
/// itself, which is nondecreasing in k), so each cell costs O(log width) evaluations.
struct GridCursor {
    from: u64,
    until: u64,
    cell: u64,
}

impl GridCursor {
    fn new() -> Self {
        GridCursor { from: 1, until: 0, cell: 0 }
    }

    fn cell(&mut self, k: u64) -> u64 {
        if k >= self.from && k < self.until {
            return self.cell;
        }
        let c = grid_cell(k);
        let (mut lo, mut step) = (k, 1u64);
        while grid_cell(k.saturating_add(step)) == c && step < u64::MAX / 4 {
            lo = k + step;
            step *= 2;
        }
        // grid_cell(lo) == c < grid_cell(hi): the first change lies in (lo, hi]
        let mut hi = k.saturating_add(step);
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if grid_cell(mid) == c { lo = mid } else { hi = mid }
        }
        *self = GridCursor { from: k, until: hi, cell: c };
        c
    }
}

/// The attack's frontier: for each Q-count `kq`, the threshold maximising the P-count. Sweeps
/// thresholds over the distinct sample values (descending for `AtLeast`, ascending for `Below`,
/// where the region at t excludes t itself). `cells` groups Q-counts; of each group only the last
/// frontier point (largest kq and kp) is kept. Counts only grow along the sweep, so a
/// [`Cells::Range`] pass starts at the first value whose point can reach `lo` (found by binary
/// search; every point before it has `kq < lo`) and stops after `hi`: the same points as a full
/// sweep that skipped the counts outside the range.
fn frontier(p: &[f64], q: &[f64], region: Region, cells: Cells) -> Vec<Point> {
    match region {
        Region::Below => frontier_sweep::<true>(p, q, cells),
        Region::AtLeast => frontier_sweep::<false>(p, q, cells),
    }
}

/// [`frontier`] with the sweep direction a constant (`ASC` for `Below`), so that the hot loop
/// carries no direction branch.
fn frontier_sweep<const ASC: bool>(p: &[f64], q: &[f64], cells: Cells) -> Vec<Point> {
    let mut out: Vec<Point> = Vec::new();
    let (np, nq) = (p.len(), q.len());
    let asc = ASC;
    // Samples consumed from the sweep's start. A Range pass skips every value v whose point has
    // kq < lo: for `AtLeast` (kq = #{q ≥ v}) the values above w = the lo-th largest q; for
    // `Below` (kq = #{q < v}) the values up to w = the lo-th smallest q.
    let (mut ip, mut iq) = match cells {
        Cells::Range { lo, .. } if lo as usize > nq => return out,
        Cells::Range { lo, .. } if lo >= 1 => {
            let lo = lo as usize;
            if asc {
                let w = q[lo - 1];
                (p.partition_point(|&x| x <= w), q.partition_point(|&x| x <= w))
            } else {
                let w = q[nq - lo];
                (np - p.partition_point(|&x| x <= w), nq - q.partition_point(|&x| x <= w))
            }
        }
        _ => (0, 0),
    };
    let at = |s: &[f64], i: usize| if ASC { s[i] } else { s[s.len() - 1 - i] };
    let mut grid = GridCursor::new();
    let mut pending: Option<(u64, Point)> = None; // (cell, last point seen in it)
    // Records a point; false once the Q-count is past a Range's end (the sweep can stop).
    let mut push = |pt: Point, out: &mut Vec<Point>| -> bool {
        let c = match cells {
            Cells::Grid => grid.cell(pt.kq),
            Cells::Range { lo, hi } => {
                if pt.kq > hi {
                    return false;
                }
                if pt.kq < lo {
                    return true;
                }
                pt.kq
            }
        };
        if let Some((pc, pp)) = pending
            && pc != c
        {
            out.push(pp);
        }
        pending = Some((c, pt));
        true
    };
    loop {
        let vp = (ip < np).then(|| at(p, ip));
        let vq = (iq < nq).then(|| at(q, iq));
        let v = match (vp, vq) {
            (None, None) => break,
            (Some(x), None) => x,
            (None, Some(y)) => y,
            (Some(x), Some(y)) => {
                if asc {
                    x.min(y)
                } else {
                    x.max(y)
                }
            }
        };
        let (mut dp, mut dq) = (0usize, 0usize);
        while ip + dp < np && at(p, ip + dp) == v {
            dp += 1;
        }
        while iq + dq < nq && at(q, iq + dq) == v {
            dq += 1;
        }
        let more = if asc {
            // region {s < v}: counts before adding the group
            let more = push(Point { t: v, kp: ip as u64, kq: iq as u64 }, &mut out);
            ip += dp;
            iq += dq;
            more
        } else {
            ip += dp;
            iq += dq;
            push(Point { t: v, kp: ip as u64, kq: iq as u64 }, &mut out)
        };
        if !more {
            break;
        }
    }
    if let Some((_, pp)) = pending {
        out.push(pp);
    }
    out
}

/// Grid cells of Q-counts for the first pass: every count up to 200, then cells 0.5 % wide.
fn grid_cell(k: u64) -> u64 {
    if k <= 200 { k } else { 200 + ((k as f64 / 200.0).ln() / 1.005f64.ln()) as u64 + 1 }
}

/// A certified bound found at one threshold: ε, the threshold, P̲ and Q̄.
#[derive(Debug, Clone, Copy)]
struct Found {
    epsilon: f64,
    t: f64,
    p_lower: f64,
    q_upper: f64,
}

/// The exact certified bound at one frontier point, at per-count levels (αP, αQ).
fn exact(pt: &Point, np: u64, nq: u64, alpha_p: f64, alpha_q: f64, delta: f64) -> Result<Option<Found>> {
    let p_lower = clopper_pearson_lower(pt.kp, np, alpha_p)?;
    let q_upper = clopper_pearson_upper(pt.kq, nq, alpha_q)?;
    Ok(ratio_bound(p_lower, q_upper, delta).map(|epsilon| Found { epsilon, t: pt.t, p_lower, q_upper }))
}

/// An optimistic proxy (never below the exact bound): point estimates, which lie above P̲ and
/// below Q̄.
fn proxy(pt: &Point, np: u64, nq: u64, delta: f64) -> f64 {
    let p = pt.kp as f64 / np as f64 - delta;
    if p <= 0.0 {
        return f64::NEG_INFINITY;
    }
    if pt.kq == 0 { f64::INFINITY } else { p.ln() - (pt.kq as f64 / nq as f64).ln() }
}

/// Best certified bound of one attack over all thresholds (Bonferroni levels per count).
fn search_attack(
    p: &[f64],
    q: &[f64],
    region: Region,
    alpha_p: f64,
    alpha_q: f64,
    delta: f64,
) -> Result<Option<Found>> {
    let (np, nq) = (p.len() as u64, q.len() as u64);
    let mut best: Option<Found> = None;
    let evaluate = |points: Vec<Point>, best: &mut Option<Found>| -> Result<()> {
        let mut scored: Vec<(f64, Point)> = points.into_iter().map(|pt| (proxy(&pt, np, nq, delta), pt)).collect();
        scored.sort_by(|x, y| y.0.total_cmp(&x.0));
        for (px, pt) in scored {
            if px == f64::NEG_INFINITY || best.is_some_and(|b| px <= b.epsilon) {
                break;
            }
            if let Some(f) = exact(&pt, np, nq, alpha_p, alpha_q, delta)?
                && best.is_none_or(|b| f.epsilon > b.epsilon)
            {
                *best = Some(f);
            }
        }
        Ok(())
    };
    evaluate(frontier(p, q, region, Cells::Grid), &mut best)?;
    // Refine: every frontier point within ±1 % of the best point's Q-count.
    if let Some(f) = best {
        let kq = count_in(q, region, f.t);
        let (lo, hi) = ((kq as f64 / 1.0101) as u64, (kq as f64 * 1.0101).ceil() as u64 + 1);
        evaluate(frontier(p, q, region, Cells::Range { lo, hi }), &mut best)?;
    }
    Ok(best)
}

fn result(best: Option<(Found, Attack)>, settings: &AuditSettings, n_a: usize, n_b: usize) -> EpsilonLowerBound {
    // An attack whose bound rounds to 0 certifies nothing and is not reported (the doc of
    // `threshold`: it once came with ε = 0, and the CLI printed an attack line beside "ε ≥ 0").
    let (epsilon, threshold, tpr_lower, fpr_upper, attack) = match best {
        Some((f, at)) if f.epsilon > 0.0 => (f.epsilon, Some(f.t), f.p_lower, f.q_upper, at),
        _ => (0.0, None, 0.0, 1.0, ATTACKS[0]),
    };
    EpsilonLowerBound {
        epsilon,
        confidence: settings.confidence,
        delta: settings.delta,
        threshold,
        direction: attack.direction,
        region: attack.region,
        tpr_lower,
        fpr_upper,
        n_a: n_a as u64,
        n_b: n_b as u64,
        strategy: settings.strategy,
    }
}

fn bonferroni(a: &[f64], b: &[f64], beta: f64, delta: f64) -> Result<Option<(Found, Attack)>> {
    // The four attacks are independent searches: run them in parallel; the result does not
    // depend on the scheduling (ties are broken by the fixed attack order).
    let found: Vec<Result<Option<Found>>> = ATTACKS
        .par_iter()
        .map(|at| {
            let (p, q) = at.sides(a, b);
            // β/4 per family (A-lower, A-upper, B-lower, B-upper), β/(4n) per order statistic.
            let (alpha_p, alpha_q) = (beta / (4.0 * p.len() as f64), beta / (4.0 * q.len() as f64));
            search_attack(p, q, at.region, alpha_p, alpha_q, delta)
        })
        .collect();
    let mut best: Option<(Found, Attack)> = None;
    for (at, f) in ATTACKS.iter().zip(found) {
        if let Some(f) = f?
            && best.is_none_or(|x| f.epsilon > x.0.epsilon)
        {
            best = Some((f, *at));
        }
    }
    Ok(best)
}

/// The certified ε lower bound from samples `a` (on D) and `b` (on D′).
///
/// # Errors
/// `Empty` for an empty side, `NonFinite` for NaN/∞ samples, `InvalidParameter` for δ ∉ [0, 1),
/// confidence ∉ (0, 1), a split fraction ∉ (0, 1) or a NaN threshold.
pub fn epsilon_lower_bound(a: &[f64], b: &[f64], settings: &AuditSettings) -> Result<EpsilonLowerBound> {
    settings.validate()?;
    let beta = 1.0 - settings.confidence;
    let delta = settings.delta;
    let (sa, sb) = rayon::join(|| sorted_finite("samples of A", a), || sorted_finite("samples of B", b));
    let (sa, sb) = (sa?, sb?);
    let best = match settings.strategy {
        ThresholdStrategy::Bonferroni => bonferroni(&sa, &sb, beta, delta)?,
        ThresholdStrategy::Fixed { threshold } => {
            let mut best: Option<(Found, Attack)> = None;
            for at in ATTACKS {
                let (p, q) = at.sides(&sa, &sb);
                let pt = Point {
                    t: threshold,
                    kp: count_in(p, at.region, threshold),
                    kq: count_in(q, at.region, threshold),
                };
                // 4 attacks × 2 bounds: β/8 each.
                if let Some(f) = exact(&pt, p.len() as u64, q.len() as u64, beta / 8.0, beta / 8.0, delta)?
                    && best.is_none_or(|x| f.epsilon > x.0.epsilon)
                {
                    best = Some((f, at));
                }
            }
            best
        }
        ThresholdStrategy::Split { fraction } => {
            let split = |xs: &[f64], index: u64| -> (Vec<f64>, Vec<f64>) {
                // Its own stream purpose: the split must be independent of the samples, and
                // `(Audit, i)` is the sampler's shard stream when the two seeds coincide.
                let mut rng = Seeds::new(settings.seed).stream_at(Stream::Other(SPLIT_STREAM_TAG), index);
                let mut sel = Vec::new();
                let mut cert = Vec::new();
                for &x in xs {
                    if rng.random::<f64>() < fraction { sel.push(x) } else { cert.push(x) }
                }
                (sel, cert)
            };
            // Split the *unsorted* inputs so that the partition is independent of the values.
            let ((a1, mut a2), (b1, mut b2)) = (split(a, 0), split(b, 1));
            if a1.is_empty() || b1.is_empty() || a2.is_empty() || b2.is_empty() {
                return Err(Error::invalid("split fraction", fraction, "leaving samples on both parts of each side"));
            }
            let (a1, b1) = (sorted_finite("samples of A", &a1)?, sorted_finite("samples of B", &b1)?);
            a2.par_sort_unstable_by(f64::total_cmp);
            b2.par_sort_unstable_by(f64::total_cmp);
            match bonferroni(&a1, &b1, beta, delta)? {
                None => None,
                Some((chosen, at)) => {
                    let (p, q) = at.sides(&a2, &b2);
                    let t = chosen.t;
                    let pt = Point { t, kp: count_in(p, at.region, t), kq: count_in(q, at.region, t) };
                    exact(&pt, p.len() as u64, q.len() as u64, beta / 2.0, beta / 2.0, delta)?.map(|f| (f, at))
                }
            }
        }
    };
    Ok(result(best, settings, a.len(), b.len()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::RngExt;

    /// The full sweep of the original definition: every distinct value, counts by brute force,
    /// each Q-count filtered by `keep`, the last point of each kept Q-count retained.
    fn brute_frontier(p: &[f64], q: &[f64], region: Region, keep: impl Fn(u64) -> Option<u64>) -> Vec<Point> {
        let mut values: Vec<f64> = p.iter().chain(q).copied().collect();
        values.sort_by(f64::total_cmp);
        values.dedup();
        if region == Region::AtLeast {
            values.reverse();
        }
        let mut out: Vec<Point> = Vec::new();
        let mut pending: Option<(u64, Point)> = None;
        for v in values {
            let pt = Point { t: v, kp: count_in(p, region, v), kq: count_in(q, region, v) };
            let Some(c) = keep(pt.kq) else { continue };
            if let Some((pc, pp)) = pending
                && pc != c
            {
                out.push(pp);
            }
            pending = Some((c, pt));
        }
        out.extend(pending.map(|x| x.1));
        out
    }

    fn key(points: &[Point]) -> Vec<(u64, u64, u64)> {
        points.iter().map(|pt| (pt.t.to_bits(), pt.kp, pt.kq)).collect()
    }

    /// The cursor returns `grid_cell(k)` for every nondecreasing query sequence, across the
    /// identity part (k ≤ 200), the logarithmic part and large jumps.
    #[test]
    fn grid_cursor_equals_grid_cell() {
        let mut cursor = GridCursor::new();
        let mut k = 0u64;
        let mut rng = crate::rng::Seeds::new(1).stream(crate::rng::Stream::Other(1));
        while k < 50_000_000 {
            assert_eq!(cursor.cell(k), grid_cell(k), "k = {k}");
            k += if rng.random::<f64>() < 0.5 { rng.random_range(0..3) } else { rng.random_range(0..(k / 50 + 2)) };
        }
    }

    /// Differential test of the sweep: on data with many ties (integers) and without, both regions,
    /// the grid pass equals the brute-force definition, and every range pass (including ranges
    /// starting at 0, past the end, and single counts) equals the full sweep restricted to it.
    #[test]
    fn frontier_equals_the_brute_force_sweep() {
        let mut rng = crate::rng::Seeds::new(2).stream(crate::rng::Stream::Other(2));
        for (n, ties) in [(50usize, true), (400, false), (3000, true), (3000, false)] {
            let draw = |rng: &mut crate::rng::DpRng, shift: f64| -> Vec<f64> {
                let mut v: Vec<f64> = (0..n)
                    .map(|_| {
                        let x = crate::noise::standard_normal(rng) + shift;
                        // `+ 0.0` turns −0.0 into 0.0: the sweep groups equal values by `==`, the
                        // brute force by `dedup`, and the two may keep different signs of zero
                        if ties { (x * 4.0).round() + 0.0 } else { x }
                    })
                    .collect();
                v.sort_by(f64::total_cmp);
                v
            };
            let (p, q) = (draw(&mut rng, 0.5), draw(&mut rng, 0.0));
            for region in [Region::AtLeast, Region::Below] {
                let grid = frontier(&p, &q, region, Cells::Grid);
                assert_eq!(key(&grid), key(&brute_frontier(&p, &q, region, |k| Some(grid_cell(k)))));
                let nq = n as u64;
                for (lo, hi) in
                    [(0, 10), (1, 1), (5, 60), (nq / 3, nq / 2), (nq - 3, nq + 5), (nq + 1, nq + 9), (0, nq)]
                {
                    let got = frontier(&p, &q, region, Cells::Range { lo, hi });
                    let want = brute_frontier(&p, &q, region, |k| (k >= lo && k <= hi).then_some(k));
                    assert_eq!(key(&got), key(&want), "n {n}, ties {ties}, {region:?}, [{lo}, {hi}]");
                }
            }
        }
    }
}
