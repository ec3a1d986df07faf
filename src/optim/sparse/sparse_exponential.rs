//! The sparse exponential mechanism — \[GGKKM\] Algorithm 4 (Sec. 5.1, Lemma 5.3, Theorem 5.5), on
//! tiny instances only (d ≤ 8): the τ-net is enumerated and the exact pmf computed.
//!
//! Input: dataset S, a loss f with range [0, B], L-Lipschitz with s-sparse gradients, a solid
//! sparsifiable domain X (box, l2 ball or l1 ball), [`SparseExponentialConfig`] (ε, B, L, s, τ).
//! Output: [`SparseExponentialRun`]: x̂ ∈ N_τ, its index, the net, the event executed.
//! ```text
//! 1:  τ > 0 with τ³/ln(d/(τβ)) = B/(L√s εn)        (corrected; printed: L√s εn/B)
//! 2:  k = ⌊R²/τ²⌋ (R: X's l2 radius; printed 1/τ², which assumes X ⊆ unit ball);
//!     N_τ = the k-sparse points of a grid of spacing h = τ/√k, inside X   (a τ-net: see below)
//! 3:  P[x̂ = x] ∝ exp(−(εn/(2B))·F_S(x)),  x ∈ N_τ    (corrected; printed exp(−(B/(εn))·F_S(x)))
//!     return x̂
//! ```
//! (Lines counted from the algorithm's first displayed step.) The net: every point with at most k
//! non-zeros, each a non-zero multiple of h = τ/√k, that lies in X. For a k-sparse x ∈ X, rounding
//! each coordinate toward zero to the grid moves it by < h, so by < √k·h = τ in ℓ2, and keeps it
//! in X (X is solid: shrinking coordinates stays inside). Line 3 is the exponential mechanism
//! with scores F_S of sensitivity B/n, run by [`PrivateSelection`] at scale λ = 2B/(εn), which
//! draws by inverse CDF from the exact probabilities ([`exponential_selection_probabilities`]).
//!
//! # Privacy
//! Replace-one. With f(x, z) ∈ [0, B], replacing one record moves each F_S(x) by ≤ B/n; the
//! exponential mechanism `P(x) ∝ exp(−F_S(x)/λ)` is then 2(B/n)/λ-DP, i.e. ε-DP at the corrected
//! λ = 2B/(εn). [`Temperature::AsPrinted`] runs the printed weights (λ = εn/B) and records what
//! they cost, `EpsilonDelta(2B²/(εn²), 0)`. Losses outside [0, B] on the net are refused.
//!
//! Proof: proofs/sparse/sparse_exponential.md.

use crate::accounting::DpEvent;
use crate::data::Dataset;
use crate::error::{Error, Result, check};
use crate::geometry::Domain;
use crate::loss::Loss;
use crate::optim::release::exponential_selection_probabilities;
use crate::optim::{EventLog, PrivateSelection, SelectionMechanism};
use crate::rng::Seeds;
use serde::Serialize;

/// The largest dimension enumerated.
pub const MAX_DIMENSION: usize = 8;
/// The largest net enumerated.
pub const MAX_NET_SIZE: usize = 1 << 20;

/// Which reading of the exponential weights of line 3.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub enum Temperature {
    /// `exp(−(εn/(2B))·F_S(x))`: the exponential mechanism for scores of sensitivity B/n (ε-DP).
    #[default]
    Corrected,
    /// The printed `exp(−(B/(εn))·F_S(x))` (the reciprocal of the corrected coefficient, up to 2).
    AsPrinted,
}

/// Which reading of the τ equation of line 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub enum TauEquation {
    /// `τ³/ln(d/(τβ)) = B/(L√s εn)`: the reading that gives Thm. 5.5's rate.
    #[default]
    Corrected,
    /// The printed `τ³/ln(d/(τβ)) = L√s εn/B`.
    AsPrinted,
}

/// How τ is chosen.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub enum TauChoice {
    /// A given τ > 0 (tests and tiny instances).
    Given(f64),
    /// The root of line 1's equation at confidence β ∈ (0, 1) ([`SparseExponentialConfig::solve_tau`]).
    Solved {
        /// β.
        beta: f64,
        /// Which reading of the equation.
        equation: TauEquation,
    },
}

/// The parameters of Algorithm 4.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SparseExponentialConfig {
    /// ε > 0.
    pub epsilon: f64,
    /// B > 0: f(x, z) ∈ [0, B] on X.
    pub range_b: f64,
    /// L > 0: the Lipschitz constant (used by line 1 only).
    pub lipschitz_l: f64,
    /// s ≥ 1: the gradient sparsity (used by line 1 only).
    pub sparsity_s: usize,
    /// X: a box, l2 ball or l1 ball (solid and sparsifiable).
    pub domain: Domain,
    /// τ.
    pub tau: TauChoice,
    /// The weights of line 3.
    pub temperature: Temperature,
}

/// What one run of Algorithm 4 returns.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SparseExponentialRun {
    /// x̂ ∈ N_τ.
    pub x_hat: Vec<f64>,
    /// Its index in [`SparseExponentialRun::net`].
    pub index: usize,
    /// N_τ in enumeration order.
    pub net: Vec<Vec<f64>>,
    /// τ used.
    pub tau: f64,
    /// k: the sparsity of the net's points.
    pub k: usize,
    /// The event executed (one pure selection).
    pub events: EventLog,
    /// ε of that event (pure; δ = 0).
    pub epsilon: f64,
}

/// The l2 radius R of X (the smallest l2 ball around 0 containing it) and the largest coordinate
/// magnitude of its points.
fn radii(domain: &Domain, d: usize) -> Result<(f64, f64)> {
    if let Domain::Box { radius } | Domain::L2Ball { radius } | Domain::L1Ball { radius } = *domain {
        check::positive("domain radius", radius)?;
    }
    match *domain {
        Domain::Box { radius } => Ok((radius * (d as f64).sqrt(), radius)),
        Domain::L2Ball { radius } | Domain::L1Ball { radius } => Ok((radius, radius)),
        _ => Err(Error::invalid("domain X", format!("{domain:?}"), "a box, l2 ball or l1 ball (solid and bounded)")),
    }
}

/// k = min(d, ⌊R²/τ²⌋) and N_τ (line 2): every point with at most k non-zeros, each a non-zero
/// multiple of h = τ/√k, inside X (as evaluated), M = ⌊r_∞/h⌋ values each side of 0; 0 first,
/// then depth-first over increasing coordinates and values −Mh..Mh. k = 0 gives {0}.
///
/// # Errors
/// `InvalidParameter` for d ∉ 1..=8, τ not positive and finite, an unsupported domain, or a net
/// larger than [`MAX_NET_SIZE`].
pub fn sparse_net(d: usize, tau: f64, domain: &Domain) -> Result<(usize, Vec<Vec<f64>>)> {
    if d == 0 || d > MAX_DIMENSION {
        return Err(Error::invalid("dimension d", d, "in 1..=8 (the net is enumerated)"));
    }
    check::positive("tau", tau)?;
    let (r2, r_inf) = radii(domain, d)?;
    let k = ((r2 * r2 / (tau * tau)).floor() as usize).min(d);
    let mut net = vec![vec![0.0; d]];
    if k == 0 {
        return Ok((0, net));
    }
    let h = tau / (k as f64).sqrt();
    let m = (r_inf / h).floor();
    // 2M values per coordinate, each a point of the net (checked in f64, before the cast and the
    // allocation: a tiny τ once allocated 2M values before the size check and aborted the process)
    let fits = 2.0 * m < MAX_NET_SIZE as f64; // false for NaN
    if !fits {
        return Err(Error::invalid("tau", tau, "large enough that the net has at most MAX_NET_SIZE points"));
    }
    let m = m as i64;
    let values: Vec<f64> = (-m..=m).filter(|&i| i != 0).map(|i| i as f64 * h).collect();
    if values.is_empty() {
        return Ok((k, net));
    }
    let mut x = vec![0.0; d];
    extend_net(&mut net, &mut x, 0, k, &values, domain)?;
    Ok((k, net))
}

/// Depth-first enumeration: every way to give non-zero grid values to at most `left` further
/// coordinates of index ≥ `from` (in increasing order), each completed point kept if in X.
fn extend_net(
    net: &mut Vec<Vec<f64>>,
    x: &mut [f64],
    from: usize,
    left: usize,
    values: &[f64],
    domain: &Domain,
) -> Result<()> {
    if left == 0 {
        return Ok(());
    }
    for j in from..x.len() {
        for &v in values {
            x[j] = v;
            if !exceeds(x, domain) {
                net.push(x.to_vec());
                if net.len() > MAX_NET_SIZE {
                    return Err(Error::invalid("net size", net.len(), "<= 2^20 (use a larger tau)"));
                }
            }
            extend_net(net, x, j + 1, left - 1, values, domain)?;
        }
        x[j] = 0.0;
    }
    Ok(())
}

/// Whether x lies outside X without the 1e-12 slack of [`Domain::contains`] (net points must be
/// in X as evaluated).
fn exceeds(x: &[f64], domain: &Domain) -> bool {
    match *domain {
        Domain::Box { radius } => x.iter().any(|v| v.abs() > radius),
        Domain::L2Ball { radius } => crate::linalg::norm_l2(x) > radius,
        Domain::L1Ball { radius } => crate::linalg::norm_l1(x) > radius,
        _ => true,
    }
}

impl SparseExponentialConfig {
    /// Algorithm 4 with the corrected temperature.
    ///
    /// # Errors
    /// `InvalidParameter` for ε, B, L not positive and finite, s = 0, τ invalid, or an unsupported
    /// domain.
    pub fn new(
        epsilon: f64,
        range_b: f64,
        lipschitz_l: f64,
        sparsity_s: usize,
        domain: Domain,
        tau: TauChoice,
    ) -> Result<Self> {
        let config = SparseExponentialConfig {
            epsilon,
            range_b,
            lipschitz_l,
            sparsity_s,
            domain,
            tau,
            temperature: Temperature::Corrected,
        };
        config.check()?;
        Ok(config)
    }

    /// The checks of [`SparseExponentialConfig::new`], repeated where the (public) fields are read,
    /// so that a field set to NaN or 0 after construction is refused instead of giving a number.
    fn check(&self) -> Result<()> {
        check::positive("epsilon", self.epsilon)?;
        check::positive("B (range)", self.range_b)?;
        super::projection_mechanism::check_sparse_ball("L (Lipschitz)", self.lipschitz_l, self.sparsity_s)?;
        radii(&self.domain, 1)?;
        match self.tau {
            TauChoice::Given(t) => check::positive("tau", t).map(|_| ()),
            TauChoice::Solved { beta, .. } => check::open_unit("beta", beta).map(|_| ()),
        }
    }

    /// The scale λ of `P(x) ∝ exp(−F_S(x)/λ)`: 2B/(εn) (corrected) or εn/B (printed).
    pub fn scale_lambda(&self, n: usize) -> f64 {
        let en = self.epsilon * n as f64;
        match self.temperature {
            Temperature::Corrected => 2.0 * self.range_b / en,
            Temperature::AsPrinted => en / self.range_b,
        }
    }

    /// τ for a dataset of n records in dimension d.
    ///
    /// # Errors
    /// As [`SparseExponentialConfig::solve_tau`].
    pub fn tau_for(&self, n: usize, d: usize) -> Result<f64> {
        match self.tau {
            TauChoice::Given(t) => Ok(t),
            TauChoice::Solved { beta, equation } => self.solve_tau(equation, n, d, beta),
        }
    }

    /// The root τ of `τ³/ln(d/(τβ)) = c` with `c = B/(L√s εn)` (corrected) or `L√s εn/B`
    /// (printed), by bisection on `g(τ) = τ³ − c·ln(d/(τβ))`, increasing on (0, d/β), from
    /// g(0⁺) = −∞ to g(d/β) = (d/β)³ > 0; the upper end of the final bracket is returned (200
    /// halvings or adjacent floats). (B, L, s, ε) are this configuration's, checked again here.
    ///
    /// # Errors
    /// `InvalidParameter` for β ∉ (0, 1), n = 0, d = 0, or an invalid field.
    pub fn solve_tau(&self, equation: TauEquation, n: usize, d: usize, beta: f64) -> Result<f64> {
        self.check()?;
        check::open_unit("beta", beta)?;
        if n == 0 || d == 0 {
            return Err(Error::invalid("n and d", format!("{n}, {d}"), "both >= 1"));
        }
        let a = self.lipschitz_l * (self.sparsity_s as f64).sqrt() * self.epsilon * n as f64;
        let c = match equation {
            TauEquation::Corrected => self.range_b / a,
            TauEquation::AsPrinted => a / self.range_b,
        };
        let g = |tau: f64| tau.powi(3) - c * (d as f64 / (tau * beta)).ln();
        Ok(crate::special::bisect(0.0, d as f64 / beta, 200, |tau| g(tau) < 0.0).1)
    }

    /// Lines 1–2 and the scores of line 3: (τ, k, N_τ, F_S on N_τ), each loss value checked to
    /// lie in [0, B].
    ///
    /// # Errors
    /// As [`sparse_net`]; `InvalidParameter` for an invalid field or a loss value outside [0, B];
    /// `NonFinite`.
    #[allow(clippy::type_complexity)]
    pub fn scores(&self, data: &Dataset, loss: Loss) -> Result<(f64, usize, Vec<Vec<f64>>, Vec<f64>)> {
        self.check()?;
        let (n, d) = (data.n(), data.d());
        // Alg. 4, line 1: τ³/ln(d/(τβ)) = B/(L√s εn) (corrected), or τ given
        let tau = self.tau_for(n, d)?;
        // Alg. 4, line 2: k = ⌊R²/τ²⌋, N_τ = k-sparse grid points of spacing τ/√k inside X
        let (k, net) = sparse_net(d, tau, &self.domain)?;
        let mut scores = Vec::with_capacity(net.len());
        for x in &net {
            let mut total = 0.0;
            for i in 0..n {
                let f = loss.value(x, data.row(i), data.label(i));
                if !f.is_finite() {
                    return Err(Error::NonFinite { what: "loss values", index: i });
                }
                if !(0.0..=self.range_b).contains(&f) {
                    return Err(Error::invalid("loss value f(x, z_i)", format!("{f} at record {i}"), "in [0, B]"));
                }
                total += f;
            }
            scores.push(total / n as f64);
        }
        Ok((tau, k, net, scores))
    }

    /// The exact pmf of line 3 on N_τ (the law [`SparseExponentialConfig::run`] samples), with
    /// the net.
    ///
    /// # Errors
    /// As [`SparseExponentialConfig::scores`].
    pub fn exact_pmf(&self, data: &Dataset, loss: Loss) -> Result<(Vec<Vec<f64>>, Vec<f64>)> {
        let (_, _, net, scores) = self.scores(data, loss)?;
        let n = data.n();
        let p = exponential_selection_probabilities(&scores, self.scale_lambda(n), self.range_b / n as f64)?;
        Ok((net, p))
    }

    /// Algorithm 4: one draw from the exact pmf, with its event.
    ///
    /// # Errors
    /// As [`SparseExponentialConfig::scores`].
    pub fn run(&self, data: &Dataset, loss: Loss, seeds: Seeds) -> Result<SparseExponentialRun> {
        let n = data.n();
        let (tau, k, net, scores) = self.scores(data, loss)?;
        let sensitivity = self.range_b / n as f64;
        let lambda = self.scale_lambda(n);
        let mut selection =
            PrivateSelection::new(SelectionMechanism::Exponential, crate::accounting::Neighbouring::ReplaceOne, seeds);
        // Alg. 4, line 3: P[x̂ = x] ∝ exp(−F_S(x)/λ), λ = 2B/(εn) (corrected)
        let index = selection.select_min(&scores, lambda, sensitivity)?;
        let epsilon = crate::optim::release::selection_epsilon(sensitivity, lambda);
        let summary = selection.finish(Some(epsilon));
        debug_assert_eq!(summary.events.as_event(), Some(DpEvent::epsilon_delta(epsilon, 0.0)?));
        Ok(SparseExponentialRun { x_hat: net[index].clone(), index, net, tau, k, events: summary.events, epsilon })
    }
}
