//! From a mechanism's privacy loss to the two discretisations on the grid `{k·h}`.
//!
//! A mechanism is a pair (P, Q) of output laws (P under the dataset with the record in the
//! direction analysed). Its privacy loss is `L = ln(dP/dQ)`, distributed under P; its
//! hockey-stick curve `δ(ε) = E_P[(1 − e^{ε − L})₊]` (plus `P(L = ∞)`).
//!
//! **Input.** Either tail functions (continuous mechanisms, [`LossTails`]) giving, at any ε,
//! enclosures of `P(L > ε)`, `P(L ≤ ε)`, `Q(L > ε)`, `Q(L ≤ ε)`, or a list of atoms (loss, P-mass)
//! with `Q`-mass `P·e^{−loss}`. From the tails, each grid cell `(ε_k, ε_{k+1}]` gives the P- and
//! Q-mass of the outputs whose loss falls in it: `P_k`, `Q_k` (enclosed; the sets are defined
//! exactly by the loss, so no output is assigned to a wrong cell).
//!
//! **Pessimistic (connect the dots).** Each cell's outputs are spread onto the two grid points
//! around them, preserving P-mass and Q-mass: to `ε_k` goes `(e^{ε_{k+1}}Q_k − P_k)/(e^h − 1)`,
//! to `ε_{k+1}` the rest of `P_k`. A spread of `e^{−l}` onto the cell's ends is a mean-preserving
//! spread and `(1 − γe^{−l})₊` is convex in `e^{−l}`, so by Jensen every hockey-stick divergence
//! grows: the discrete pair dominates (P, Q) (Doroshenko, Ghazi, Kamath, Kumar, Manurangsi 2022,
//! "Connect the Dots", arXiv 2207.04380). Rounding moves mass from `ε_k` to `ε_{k+1}` or adds
//! mass, never the reverse. Tails: `P(L ≤ ε_lo)` joins `ε_lo` (moved up), `P(L > ε_hi)` goes to
//! +∞.
//!
//! **Optimistic (grouping).** A post-processing of (P, Q) lowers every divergence. Route a
//! fraction `b_k` of cell k's outputs (losses in `(ε_k, ε_{k+1}]`) to the output "ε_{k+1}" and the
//! rest `a_k = 1 − b_k` to the output "ε_k". The output "ε_{k+1}" then holds `a_{k+1}` of cell
//! k + 1 (losses ≥ ε_{k+1}, excess `U_{k+1} = P_{k+1} − e^{ε_{k+1}}Q_{k+1} ≥ 0`) and `b_k` of cell k
//! (deficit `D_k = e^{ε_{k+1}}Q_k − P_k ≥ 0`); choosing `b_k D_k ≤ a_{k+1}U_{k+1}` (top-down)
//! makes its loss ≥ ε_{k+1}, and placing it at ε_{k+1} moves it to a smaller loss. Randomised
//! routing of outputs is a post-processing, and moving mass to smaller losses or deleting it
//! lowers δ(ε) under any composition (coupling), so the result is a lower bound. Tails:
//! `P(L > ε_hi)` is placed at `ε_hi`, `P(L ≤ ε_lo)` joins ε_lo as far as balanced, else is
//! dropped. Atoms are rounded down.
//!
//! Proof: proofs/accounting/pld.md (§3.2, §3.3).

use super::interval::{Iv, U};
use super::pmf::{DiscretePld, MAX_INDEX, Side};
use crate::error::{Error, Result};
use rayon::prelude::*;

/// Enclosures of the tails of a privacy loss at one ε (the finite part of L only).
#[derive(Debug, Clone, Copy)]
pub struct Tails {
    /// `P(ε < L < ∞)`.
    pub p_gt: Iv,
    /// `P(L ≤ ε)`.
    pub p_le: Iv,
    /// `Q(ε < L < ∞)`.
    pub q_gt: Iv,
    /// `Q(L ≤ ε)`.
    pub q_le: Iv,
}

/// A privacy loss given by its tail functions.
pub trait LossTails: Sync {
    /// Enclosures of the four tails at `epsilon` (an exact float).
    fn tails(&self, epsilon: f64) -> Tails;
    /// Bounds `[a, b]` of the loss's support: `P(L < a) = P(b < L < ∞) = 0` (may be infinite).
    fn support(&self) -> (f64, f64);
}

/// The pessimistic and optimistic discretisations of one privacy loss.
#[derive(Debug, Clone)]
pub struct Discretised {
    /// Pessimistic (connect-the-dots).
    pub upper: DiscretePld,
    /// Optimistic (grouping).
    pub lower: DiscretePld,
}

fn grid_error(what: &str, h: f64) -> Error {
    Error::Numerical {
        what: "PLD discretisation",
        reason: format!("{what} at grid spacing {h}; increase value_discretization_interval"),
    }
}

/// Which end of the grid a search finds.
#[derive(Debug, Clone, Copy)]
enum GridEnd {
    /// The smallest k with `P(L > k·h) ≤ τ`.
    Upper,
    /// The largest k with `P(L ≤ k·h) ≤ τ`.
    Lower,
}

/// The grid's end on one side: the innermost k whose tail beyond it (`P(L > k·h)` at the upper
/// end, `P(L ≤ k·h)` at the lower end) is at most τ. The tail only shrinks outward, so the
/// search starts at the support's end on that side (or doubles outward from 0 when it is
/// infinite) until the tail is small enough, then gallops inward, doubling its step, no further
/// than one index beyond the support's other end, and bisects.
fn search_end(model: &dyn LossTails, h: f64, tau: f64, end: GridEnd) -> Result<i64> {
    let (s_lo, s_hi) = model.support();
    // `out`: the outward direction (+1 at the upper end, −1 at the lower); `near`, `far`: the
    // support's end on this side and on the other.
    let (out, near, far, side) = match end {
        GridEnd::Upper => (1i64, s_hi, s_lo, "upper"),
        GridEnd::Lower => (-1i64, s_lo, s_hi, "lower"),
    };
    let ok = |k: i64| {
        let t = model.tails(k as f64 * h);
        let tail = match end {
            GridEnd::Upper => t.p_gt,
            GridEnd::Lower => t.p_le,
        };
        tail.hi <= tau
    };
    // A support end beyond the grid's index range (e.g. Laplace at scale 1e-16: its loss 1e16
    // is 1e20 grid steps) once saturated the i64 cast and overflowed `k += out` (a panic).
    if [near, far].iter().any(|e| e.is_finite() && (e / h).abs() > MAX_INDEX as f64) {
        return Err(grid_error(&format!("the support's {side} end of the privacy loss does not fit the grid"), h));
    }
    // `x` rounded to an integer in direction `dir` (ceil for +1, floor for −1).
    let round_to = |dir: i64, x: f64| (if dir > 0 { x.ceil() } else { x.floor() }) as i64;
    let mut good = if near.is_finite() {
        let mut k = round_to(out, near / h);
        while !ok(k) {
            k += out;
        }
        k
    } else {
        let (mut k, mut step) = (0i64, out);
        while !ok(k) {
            k += step;
            step *= 2;
            if k * out > MAX_INDEX {
                return Err(grid_error(&format!("the {side} tail of the privacy loss does not fit the grid"), h));
            }
        }
        k
    };
    // One index beyond the support's other end.
    let stop = if far.is_finite() { round_to(-out, far / h) - out } else { -out * MAX_INDEX };
    let mut bad = good - out;
    let mut step = out;
    while (bad - stop) * out > 0 && ok(bad) {
        good = bad;
        bad -= step;
        step *= 2;
    }
    if (bad - stop) * out <= 0 {
        // the innermost index inside the support's other end
        return Ok(if out > 0 { good.max(stop + 1) } else { good.min(stop - 1) });
    }
    while (good - bad).abs() > 1 {
        let mid = good.min(bad) + (good - bad).abs() / 2;
        if ok(mid) { good = mid } else { bad = mid }
    }
    Ok(good)
}

/// Enclosure of `F(b) − F(a)` from enclosures of the two values, clamped to `[0, ∞)`.
fn diff(big: Iv, small: Iv) -> Iv {
    big.minus(small).clamp(0.0, f64::INFINITY)
}

/// Both discretisations of a privacy loss given by its tails, on the grid of spacing `h`, with
/// tails of P-mass ≤ `tau` cut at each end; at most `max_points` grid points.
///
/// # Errors
/// `Numerical` if the loss does not fit in `max_points` grid points or the enclosures contradict
/// each other (an error-model violation).
pub fn discretise_tails(model: &dyn LossTails, h: f64, tau: f64, max_points: usize) -> Result<Discretised> {
    let k_hi = search_end(model, h, tau, GridEnd::Upper)?;
    let mut k_lo = search_end(model, h, tau, GridEnd::Lower)?;
    if k_lo >= k_hi {
        k_lo = k_hi - 1;
    }
    let count = (k_hi - k_lo + 1) as usize;
    if count > max_points {
        return Err(grid_error(
            &format!("the privacy loss spans {count} grid points (more than max_grid_points = {max_points})"),
            h,
        ));
    }
    let tails: Vec<Tails> =
        (0..count).into_par_iter().with_min_len(256).map(|i| model.tails((k_lo + i as i64) as f64 * h)).collect();
    // Cell masses P_k, Q_k of (ε_k, ε_{k+1}], k = 0..count−1, each as the tighter of the two
    // differences (of upper tails, or of lower tails); both enclose the same number.
    let cells: Vec<(Iv, Iv)> = (0..count - 1)
        .map(|k| {
            let (a, b) = (&tails[k], &tails[k + 1]);
            let p = diff(a.p_gt, b.p_gt).intersect(diff(b.p_le, a.p_le));
            let q = diff(a.q_gt, b.q_gt).intersect(diff(b.q_le, a.q_le));
            match (p, q) {
                (Some(p), Some(q)) => Ok((p, q)),
                _ => Err(Error::Numerical {
                    what: "PLD discretisation",
                    reason: format!("inconsistent tail enclosures at loss {}", (k_lo + k as i64) as f64 * h),
                }),
            }
        })
        .collect::<Result<_>>()?;
    let exps: Vec<Iv> =
        (0..count).into_par_iter().with_min_len(1024).map(|k| Iv::point((k_lo + k as i64) as f64 * h).exp()).collect();
    let grid_exp = |k: usize| exps[k];
    let em1 = Iv::point(h).exp_m1();
    // Pessimistic: connect the dots.
    let mut up = vec![0.0; count];
    up[0] += tails[0].p_le.hi;
    for (k, (p, q)) in cells.iter().enumerate() {
        let d = grid_exp(k + 1).times(*q).minus(*p); // D_k = e^{ε_{k+1}}Q_k − P_k ≥ 0
        let left = if d.lo > 0.0 { (d.lo / em1.hi).next_down().min(p.hi) } else { 0.0 };
        up[k] += left;
        up[k + 1] += (p.hi - left).next_up();
    }
    for m in &mut up {
        *m = (*m * (1.0 + 4.0 * U)).next_up();
    }
    let up_inf = tails[count - 1].p_gt.hi;
    // Optimistic: grouping (module docs). Cell k sends the fraction b[k] of its outputs to the
    // output "ε_{k+1}" and a[k] = 1 − b[k] (or less) to "ε_k"; the group at ε_{k+1} is valid when
    // b[k]·D_k ≤ a[k+1]·U_{k+1} (bounds: D from above, U from below). The recursion is stable
    // top-down where the masses decrease upwards and bottom-up where they increase, so it runs
    // top-down from the upper tail to the heaviest cell and bottom-up from the lower tail to it.
    let m = cells.len();
    let mut lo = vec![0.0; count];
    let mul_down = |a: f64, b: f64| (a * b).next_down().max(0.0);
    let d_hi: Vec<f64> = (0..m).map(|k| grid_exp(k + 1).times(cells[k].1).minus(cells[k].0).hi.max(0.0)).collect();
    let u_lo: Vec<f64> = (0..m).map(|k| cells[k].0.minus(grid_exp(k).times(cells[k].1)).lo.max(0.0)).collect();
    let mode = (0..m).max_by(|&i, &j| cells[i].0.lo.total_cmp(&cells[j].0.lo)).unwrap_or(0);
    let (mut a, mut b) = (vec![1.0f64; m], vec![0.0f64; m]);
    // Top-down over k = m−1, …, mode: the surplus at ε_{k+1} bounds b[k].
    let top = &tails[count - 1];
    lo[count - 1] += top.p_gt.lo;
    let mut surplus = top.p_gt.minus(grid_exp(count - 1).times(top.q_gt)).lo.max(0.0);
    for k in (mode..m).rev() {
        b[k] = if d_hi[k] == 0.0 {
            1.0 // the cell's outputs all have loss ε_{k+1}
        } else if surplus > 0.0 {
            ((surplus / d_hi[k]) * (1.0 - 4.0 * U)).next_down().clamp(0.0, 1.0)
        } else {
            0.0
        };
        a[k] = if b[k] == 0.0 { 1.0 } else { (1.0 - b[k]).next_down().max(0.0) };
        surplus = mul_down(a[k], u_lo[k]);
    }
    let surplus_at_mode = surplus;
    // Bottom-up over k = 0, …, mode−1: a[k] is the least that balances the part b[k−1] of the
    // cell below (or of the lower tail for k = 0); b[k] = 1 − a[k] is then balanced by cell k+1.
    let bottom = &tails[0];
    let tail_d = grid_exp(0).times(bottom.q_le).minus(bottom.p_le).hi.max(0.0);
    let mut deficit = tail_d; // deficit of the lower tail at ε_0, to be balanced by a[0]
    let mut tail_part = 1.0f64; // fraction of the lower tail grouped at ε_0
    for k in 0..mode {
        let need = if deficit == 0.0 {
            0.0
        } else if u_lo[k] > 0.0 {
            ((deficit / u_lo[k]) * (1.0 + 4.0 * U)).next_up()
        } else {
            f64::INFINITY
        };
        if need <= 1.0 {
            a[k] = need;
        } else {
            // Cell k cannot balance what comes from below: shrink that part to what it balances;
            // the rest of the cell below stays at its lower grid point.
            a[k] = 1.0;
            let frac =
                if deficit > 0.0 { ((u_lo[k] / deficit) * (1.0 - 4.0 * U)).next_down().clamp(0.0, 1.0) } else { 1.0 };
            if k == 0 {
                tail_part = frac;
            } else {
                let new_b = mul_down(b[k - 1], frac);
                a[k - 1] = (a[k - 1] + (b[k - 1] - new_b)).min(1.0);
                b[k - 1] = new_b;
            }
        }
        b[k] = if a[k] >= 1.0 { 0.0 } else { (1.0 - a[k]).next_down().max(0.0) };
        deficit = mul_down(b[k], d_hi[k]).next_up() * (1.0 + 4.0 * U);
        deficit = deficit.next_up();
    }
    // The junction: the part b[mode−1] must be balanced by the surplus at ε_mode.
    if mode > 0 && deficit > surplus_at_mode {
        let k = mode - 1;
        let new_b = if d_hi[k] > 0.0 {
            ((surplus_at_mode / d_hi[k]) * (1.0 - 4.0 * U)).next_down().clamp(0.0, b[k])
        } else {
            b[k]
        };
        a[k] = (a[k] + (b[k] - new_b)).min(1.0);
        b[k] = new_b;
    }
    if mode == 0 && tail_d > 0.0 {
        // No bottom-up pass: the lower tail joins ε_0 only as far as the surplus there balances.
        tail_part = if surplus_at_mode > 0.0 {
            ((surplus_at_mode / tail_d) * (1.0 - 4.0 * U)).next_down().clamp(0.0, 1.0)
        } else {
            0.0
        };
    }
    lo[0] += mul_down(tail_part, bottom.p_le.lo);
    for k in 0..m {
        let p = cells[k].0.lo;
        lo[k] += mul_down(a[k], p);
        lo[k + 1] += mul_down(b[k], p);
    }
    for m in &mut lo {
        *m = (*m * (1.0 - 4.0 * U)).next_down().max(0.0);
    }
    Ok(Discretised {
        upper: DiscretePld::from_parts(Side::Upper, h, k_lo, up, up_inf, 0.0)?,
        lower: DiscretePld::from_parts(Side::Lower, h, k_lo, lo, 0.0, 0.0)?,
    })
}

/// One atom of a discrete privacy loss: P-mass `mass` at loss `loss` (both enclosed); its Q-mass
/// is `mass·e^{−loss}`.
#[derive(Debug, Clone, Copy)]
pub struct Atom {
    /// The privacy loss.
    pub loss: Iv,
    /// Its P-mass.
    pub mass: Iv,
}

/// Both discretisations of a discrete privacy loss: atoms plus a mass at +∞.
///
/// Pessimistic: an atom between grid points is spread onto its enclosing grid points
/// (connect the dots for one atom); on a grid point it stays. Optimistic: each atom is rounded
/// down to the grid point below its loss (privacy buckets; Meiser & Mohammadi 2018).
///
/// # Errors
/// `Numerical` if the atoms span more than `max_points` grid points.
pub fn discretise_atoms(atoms: &[Atom], infinity: Iv, h: f64, max_points: usize) -> Result<Discretised> {
    // Checked in f64 before any cast: a loss of 1e15 at h = 1e-4 saturated `as i64`, the ±1 below
    // wrapped, and the grid walks then ran ~2⁶³ steps (`audit accountant` on EpsilonDelta(1e15, 0)).
    let on_grid = |l: f64| (l / h).abs() <= MAX_INDEX as f64; // false for NaN
    if atoms.iter().any(|a| !(on_grid(a.loss.lo) && on_grid(a.loss.hi))) {
        return Err(grid_error("an atom's privacy loss is beyond the grid", h));
    }
    let idx = |x: f64, f: fn(f64) -> f64| f(x / h) as i64;
    let k_min = atoms.iter().map(|a| idx(a.loss.lo, f64::floor)).min().unwrap_or(0) - 1;
    let k_max = atoms.iter().map(|a| idx(a.loss.hi, f64::ceil)).max().unwrap_or(0) + 1;
    if k_min < -MAX_INDEX || k_max > MAX_INDEX {
        return Err(grid_error("an atom's privacy loss is beyond the grid", h));
    }
    let count = (k_max - k_min + 1) as usize;
    if count > max_points {
        return Err(grid_error(&format!("the atoms span {count} grid points (more than {max_points})"), h));
    }
    let mut up = vec![0.0; count];
    let mut lo = vec![0.0; count];
    for a in atoms {
        // Grid points g_lo·h ≤ loss ≤ g_hi·h, checked exactly with the enclosure.
        let mut g_lo = idx(a.loss.lo, f64::floor);
        while (g_lo as f64) * h > a.loss.lo {
            g_lo -= 1;
        }
        let mut g_hi = idx(a.loss.hi, f64::ceil);
        while (g_hi as f64) * h < a.loss.hi {
            g_hi += 1;
        }
        lo[(g_lo - k_min) as usize] += a.mass.lo;
        if g_lo == g_hi {
            up[(g_lo - k_min) as usize] += a.mass.hi;
            continue;
        }
        // Left share P·(e^{g_hi·h − l} − 1)/(e^{(g_hi − g_lo)h} − 1), bounded below.
        let num = Iv::point(g_hi as f64 * h).minus(a.loss).exp_m1();
        let den = Iv::point((g_hi - g_lo) as f64 * h).exp_m1();
        let left = if num.lo > 0.0 { (a.mass.lo * num.lo / den.hi).next_down().max(0.0) } else { 0.0 };
        let left = left.min(a.mass.hi);
        up[(g_lo - k_min) as usize] += left;
        up[(g_hi - k_min) as usize] += (a.mass.hi - left).next_up();
    }
    for m in &mut up {
        *m = (*m * (1.0 + 4.0 * U)).next_up();
    }
    for m in &mut lo {
        *m = (*m * (1.0 - 4.0 * U)).next_down().max(0.0);
    }
    Ok(Discretised {
        upper: DiscretePld::from_parts(Side::Upper, h, k_min, up, infinity.hi.min(1.0), 0.0)?,
        lower: DiscretePld::from_parts(Side::Lower, h, k_min, lo, infinity.lo.max(0.0), 0.0)?,
    })
}
