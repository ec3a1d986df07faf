//! Localized noisy mirror descent for DP-SCO over an l1-bounded domain — \[AFKT\] Algorithm 2
//! (Sec. 3.2, Theorem 4); the same phase loop runs Algorithm 6 (App. B.2) for lp geometry
//! ([`crate::optim::l1::lp_mirror_descent()`]), and the strongly convex reduction of Sec. 5 wraps it.
//!
//! Input: dataset, loss, [`LocalizedConfig`] (X = {‖x‖₁ ≤ R}, L, ε, δ, η, x_0). Output:
//! [`LocalizedRun`] (x_k, every phase's schedule, start, output and run, the executed events and
//! the accountant's sequential reading).
//! ```text
//! 1: k = ⌊log₂ n⌋ (printed ⌈log n⌉: corrected so that n_i ≥ 1),  p = min(2, 1 + 1/ln d)
//! 2: for i = 1..k:
//! 3:   ε_i = 2^{−i}ε,  n_i = ⌊2^{−i}n⌋,  η_i = 2^{−4i}η
//! 4:   Algorithm 1 at (ε_i, δ) on the fresh block B_i (n_i records, disjoint from earlier blocks),
//!      b_i = max(√(n_i/ln d), √d/ε_i) clamped to [1, n_i]  (printed √(d/ε_i): proof §5),
//!      T_i = max(1, ⌊n_i²/b_i²⌋), h_i = (1/(p−1))‖x − x_{i−1}‖_p², on
//!      F_i(x) = (1/n_i) Σ_{z∈B_i} f(x; z) + (1/(η_i n_i (p−1)))‖x − x_{i−1}‖_p²  over
//!      X_i = {x ∈ X : ‖x − x_{i−1}‖_p ≤ max(2, c_d) L η_i n_i (p−1)}   (printed 2; c_d = d^{1−1/p})
//!      with the strongly convex step η_k = 2/(λ_i(k+1)), λ_i = 1/(η_i n_i), weighted average x̂
//! 5:   x_i = the output of phase i
//! 6: return x_k
//! ```
//! # Privacy
//! Phase i's Algorithm 1 reads only its block, through `WithoutReplacement(n_i, b_i) ∘
//! PerExampleSumGaussian(σ_i)` steps with σ_i calibrated by the RDP accountant to (ε_i, δ); the
//! regulariser's gradient is data-independent. Blocks are fixed index ranges, so under
//! replace-one neighbours (the paper's) the differing record lies in one block and parallel
//! composition would give max_i ε_i = ε/2. The accountant has no parallel-composition event, so
//! the run reports the RDP **sequential** composition of all executed events at δ (an upper
//! bound, sound whatever block holds the record) and keeps each phase's own reading beside it.
//! # Errors
//! `InvalidParameter` (NaN, empty data, n < 2, bad ε/δ/R/L/η/k, x_0 outside X) before any
//! randomness; errors of the phases.
//! Proof: proofs/l1/localized_mirror_descent.md (Algorithm 1: proofs/l1/noisy_mirror_descent.md).

use crate::accounting::{Accountant, Conversion, Neighbouring, RdpAccountant};
use crate::data::Dataset;
use crate::error::{Error, Result, check};
use crate::geometry::mirror::{PNormMap, l1_geometry_exponent, l1_norm_ratio};
use crate::linalg::norm_lp;
use crate::loss::Loss;
use crate::optim::l1::lp_mirror_descent::{
    Average, CoreSettings, Domain, StepRule, check_data, lp_l2_sensitivity, noisy_mirror_descent_core,
};
use crate::optim::{EventLog, NoTrace, Privacy, PrivacyReport, Run};
use crate::rng::Seeds;
use crate::sampling::BatchSampler;
use std::ops::Range;

/// The geometry of a localized run: Algorithm 2 (l1) or Algorithm 6 (lp).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Geometry {
    /// Algorithm 2: X = {‖x‖₁ ≤ R}, `‖∇f‖_∞ ≤ L`, p = min(2, 1 + 1/ln d), `h_i = (1/(p−1))‖·‖_p²`.
    L1,
    /// Algorithm 6: X = {‖x‖_p ≤ R}, `‖∇f‖_q ≤ L`, the given p, `h_i = (1/(2(p−1)))‖·‖_p²`.
    Lp {
        /// p ∈ (1, 2].
        p: f64,
    },
}

/// How b_i is chosen (Alg. 2, line 4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BatchRule {
    /// `max(√(n_i/ln d), √d/ε_i)`: the value behind Theorem 4's gradient count (default).
    Recommended,
    /// `max(√(n_i/ln d), √(d/ε_i))`: as printed.
    Printed,
}

/// Settings of Algorithms 2 and 6; field names end in the paper's symbols.
#[derive(Debug, Clone, PartialEq)]
pub struct LocalizedConfig {
    /// Which algorithm.
    pub geometry: Geometry,
    /// R > 0: the radius of X.
    pub radius_r: f64,
    /// L > 0: `‖∇f‖_* ≤ L` (l∞ for Alg. 2, lq for Alg. 6).
    pub lipschitz_l: f64,
    /// A target (ε, δ) (phase i gets (2^{−i}ε, δ)), or a noise multiplier used in every phase.
    pub privacy: Privacy,
    /// η (`None`: Theorem 4's / Theorem 13's base step).
    pub step_size_eta: Option<f64>,
    /// k (`None`: ⌊log₂ n⌋).
    pub phases_k: Option<u32>,
    /// The b_i rule.
    pub batch_rule: BatchRule,
    /// x_0 (default 0), in X.
    pub x0: Option<Vec<f64>>,
    /// The duality-gap tolerance of the Bregman steps.
    pub step_tolerance: f64,
}

/// One phase of the schedule (Alg. 2, lines 3–4).
#[derive(Debug, Clone, PartialEq)]
pub struct Phase {
    /// i (1-based).
    pub index_i: u32,
    /// ε_i = 2^{−i}ε (`None` without a target).
    pub epsilon_i: Option<f64>,
    /// The block B_i of record indices (fresh, disjoint, consecutive).
    pub block: Range<usize>,
    /// n_i = |B_i|.
    pub n_i: usize,
    /// η_i = 2^{−4i}η.
    pub eta_i: f64,
    /// b_i.
    pub batch_b_i: usize,
    /// T_i.
    pub steps_t_i: u64,
    /// The relative strong convexity of F_i w.r.t. h_i, and the weight of h_i in F_i:
    /// 1/(η_i n_i) (Alg. 2), 2/(η_i n_i) (Alg. 6, whose h_i has 1/(2(p−1))).
    pub lambda_i: f64,
    /// The radius of X_i around x_{i−1}.
    pub radius_r_i: f64,
}

/// One executed phase.
#[derive(Debug, Clone, PartialEq)]
pub struct PhaseRecord {
    /// Its schedule.
    pub phase: Phase,
    /// x_{i−1}: the centre of h_i and X_i.
    pub x_start: Vec<f64>,
    /// Algorithm 1's (5's) run on F_i: `run.x` is x_i, `run.privacy` the phase's own reading.
    pub run: Run,
}

/// The result of Algorithm 2 or 6.
#[derive(Debug, Clone, PartialEq)]
pub struct LocalizedRun {
    /// x_k.
    pub x: Vec<f64>,
    /// The phases, in order.
    pub phases: Vec<PhaseRecord>,
    /// Every executed event, phase after phase.
    pub events: EventLog,
    /// The RDP accountant's reading of `events` composed **sequentially** (an upper bound); its
    /// `sigma` is the smallest noise multiplier of the phases.
    pub privacy: PrivacyReport,
    /// The neighbouring relation of the events.
    pub neighbouring: Neighbouring,
}

impl LocalizedConfig {
    /// Algorithm 2 (l1 ball of radius R) or 6 (`Geometry::Lp`) with the recommended batch rule,
    /// Theorem 4's (13's) step, k = ⌊log₂ n⌋, x_0 = 0.
    ///
    /// # Errors
    /// `InvalidParameter` for R or L not finite and positive, p ∉ (1, 2], or an invalid privacy.
    pub fn new(geometry: Geometry, radius_r: f64, lipschitz_l: f64, privacy: Privacy) -> Result<Self> {
        crate::optim::checked(
            LocalizedConfig {
                geometry,
                radius_r,
                lipschitz_l,
                privacy,
                step_size_eta: None,
                phases_k: None,
                batch_rule: BatchRule::Recommended,
                x0: None,
                step_tolerance: 1e-9,
            },
            LocalizedConfig::check_settings,
        )
    }

    fn check_settings(&self) -> Result<()> {
        super::check_ball_settings(self.radius_r, self.lipschitz_l, self.step_tolerance)?;
        if let Geometry::Lp { p } = self.geometry {
            PNormMap::new(p, 1.0)?;
        }
        if let Some(eta) = self.step_size_eta {
            check::positive("step size eta", eta)?;
        }
        if self.phases_k == Some(0) {
            return Err(Error::invalid("phases k", 0, ">= 1"));
        }
        self.privacy.validate()
    }

    /// Runs Algorithm 2 (or 6) on `data`: [`localized_mirror_descent`].
    ///
    /// # Errors
    /// As [`localized_mirror_descent`].
    pub fn run(&self, data: &Dataset, loss: Loss, seeds: Seeds) -> Result<LocalizedRun> {
        localized_mirror_descent(data, loss, self, seeds)
    }

    /// p: `min(2, 1 + 1/ln d)` for Algorithm 2, the given p for Algorithm 6.
    pub fn exponent_p(&self, d: usize) -> f64 {
        match self.geometry {
            Geometry::L1 => l1_geometry_exponent(d),
            Geometry::Lp { p } => p,
        }
    }

    /// The map of h_i: `φ_c` with c = 2/(p−1) (Alg. 2's `(1/(p−1))‖·‖_p²`) or 1/(p−1) (Alg. 6).
    ///
    /// # Errors
    /// As [`PNormMap::new`].
    pub fn phase_map(&self, d: usize) -> Result<PNormMap> {
        let p = self.exponent_p(d);
        match self.geometry {
            Geometry::L1 => PNormMap::new(p, 2.0 / (p - 1.0)),
            Geometry::Lp { .. } => PNormMap::unit_modulus(p),
        }
    }

    /// The constant κ of the radius `κ L η_i n_i (p−1)` of X_i: `max(2, c_d)` for Algorithm 2
    /// (the paper's 2 assumes `c_d = d^{1−1/p} ≤ 2`, true only with a base-2 logarithm in p), 2
    /// for Algorithm 6.
    pub fn radius_constant(&self, d: usize) -> f64 {
        match self.geometry {
            Geometry::L1 => l1_norm_ratio(d, self.exponent_p(d)).max(2.0),
            Geometry::Lp { .. } => 2.0,
        }
    }

    /// `ln d` as the schedule uses it, clamped at 1 (d ≤ 2 would give b_i = ∞ or NaN).
    fn log_d(d: usize) -> f64 {
        (d as f64).ln().max(1.0)
    }

    /// The base step: Theorem 4, `η = (D/L) min{√(ln d/n), ε/√(d ln d ln(1/δ))}` with D = 2R; or
    /// Theorem 13, `η = (D/L) min{1/√((p−1)n), ε/√(d ln(1/δ)(1 + ln d·1{p<2}))}`. Without a
    /// target only the first term.
    pub fn base_step(&self, n: usize, d: usize) -> f64 {
        if let Some(eta) = self.step_size_eta {
            return eta;
        }
        let (diameter, nf, log_d) = (2.0 * self.radius_r, n as f64, Self::log_d(d));
        // the factor of d ln(1/δ) under the root: ln d (Alg. 2), 1 + ln d·1{p<2} (Alg. 6)
        let (statistical, dimension_log) = match self.geometry {
            Geometry::L1 => ((log_d / nf).sqrt(), log_d),
            Geometry::Lp { p } => ((1.0 / ((p - 1.0) * nf)).sqrt(), if p < 2.0 { 1.0 + log_d } else { 1.0 }),
        };
        let factor = match self.privacy {
            Privacy::Target { epsilon, delta } => {
                statistical.min(epsilon / (d as f64 * dimension_log * (1.0 / delta).ln()).sqrt())
            }
            _ => statistical,
        };
        diameter / self.lipschitz_l * factor
    }

    /// The phase schedule for n records in dimension d (Alg. 2, lines 1 and 3–4).
    ///
    /// # Errors
    /// `InvalidParameter` for n < 2 or a k with `⌊n/2^k⌋ = 0`.
    pub fn schedule(&self, n: usize, d: usize) -> Result<Vec<Phase>> {
        self.check_settings()?;
        if n < 2 {
            return Err(Error::invalid("n", n, ">= 2 (at least one phase)"));
        }
        if d == 0 {
            return Err(Error::invalid("d", 0, ">= 1"));
        }
        // Alg. 2, line 1: k = floor(log2 n) (corrected from ceil(log n): n_k >= 1), p = 1 + 1/ln d
        let k = self.phases_k.unwrap_or((usize::BITS - 1 - n.leading_zeros()).max(1));
        if k >= usize::BITS || n >> k == 0 {
            return Err(Error::invalid("phases k", k, "with floor(n / 2^k) >= 1"));
        }
        let (p, eta, kappa, log_d) =
            (self.exponent_p(d), self.base_step(n, d), self.radius_constant(d), Self::log_d(d));
        let mut phases = Vec::with_capacity(k as usize);
        let mut start = 0usize;
        for i in 1..=k {
            // Alg. 2, line 3: eps_i = 2^{-i} eps, n_i = floor(2^{-i} n), eta_i = 2^{-4i} eta
            let scale = 0.5f64.powi(i as i32);
            let epsilon_i = match self.privacy {
                Privacy::Target { epsilon, .. } => Some(epsilon * scale),
                _ => None,
            };
            let n_i = n >> i;
            let eta_i = eta * scale.powi(4);
            // Alg. 2, line 4: b_i, T_i = max(1, floor(n_i^2 / b_i^2)), the block, lambda_i and the radius of X_i
            let statistical = (n_i as f64 / log_d).sqrt();
            let private = epsilon_i.map_or(0.0, |e| match self.batch_rule {
                BatchRule::Recommended => (d as f64).sqrt() / e,
                BatchRule::Printed => (d as f64 / e).sqrt(),
            });
            let b_i = (statistical.max(private).ceil() as usize).clamp(1, n_i);
            let steps_t_i = ((n_i * n_i) / (b_i * b_i)).max(1) as u64;
            let lambda_i = match self.geometry {
                Geometry::L1 => 1.0 / (eta_i * n_i as f64),
                Geometry::Lp { .. } => 2.0 / (eta_i * n_i as f64),
            };
            let radius_r_i = kappa * self.lipschitz_l * eta_i * n_i as f64 * (p - 1.0);
            phases.push(Phase {
                index_i: i,
                epsilon_i,
                block: start..start + n_i,
                n_i,
                eta_i,
                batch_b_i: b_i,
                steps_t_i,
                lambda_i,
                radius_r_i,
            });
            start += n_i;
        }
        Ok(phases)
    }

    /// The gradient of phase i's regulariser `r_i(x) = λ_i h_i(x)`, i.e.
    /// `(1/(η_i n_i (p−1)))∇‖x − x_{i−1}‖_p²`, into `out` (data-independent).
    ///
    /// # Errors
    /// As [`LocalizedConfig::phase_map`].
    pub fn regulariser_gradient(&self, phase: &Phase, centre: &[f64], x: &[f64], out: &mut [f64]) -> Result<()> {
        let map = self.phase_map(x.len())?;
        let u: Vec<f64> = x.iter().zip(centre).map(|(a, b)| a - b).collect();
        map.gradient(&u, out);
        out.iter_mut().for_each(|v| *v *= phase.lambda_i);
        Ok(())
    }

    fn domain(&self) -> Domain {
        match self.geometry {
            Geometry::L1 => Domain::L1Ball { radius_r: self.radius_r },
            Geometry::Lp { .. } => Domain::LpBall { radius_r: self.radius_r },
        }
    }

    /// The l2 clip of the per-example gradients: `L√d` (Alg. 1) or `d^{1/2−1/q} L` (Alg. 5).
    ///
    /// # Errors
    /// `InvalidParameter` if it is not positive and finite (an L that overflows it clips nothing).
    pub fn clip(&self, d: usize) -> Result<f64> {
        match self.geometry {
            Geometry::L1 => check::positive("clip L*sqrt(d)", self.lipschitz_l * (d as f64).sqrt()),
            Geometry::Lp { p } => lp_l2_sensitivity(d, p, self.lipschitz_l),
        }
    }
}

/// The rows `block` of `data`, as a dataset of their own.
fn block_of(data: &Dataset, block: &Range<usize>) -> Result<Dataset> {
    let d = data.d();
    let features = data.features()[block.start * d..block.end * d].to_vec();
    let labels = data.labels()[block.clone()].to_vec();
    Dataset::new(features, labels, d)
}

/// Runs Algorithm 2 (or 6, by `config.geometry`); phase i's streams are `seeds.child(i)`.
///
/// # Errors
/// See the module doc.
#[allow(non_snake_case)]
pub fn localized_mirror_descent(
    data: &Dataset,
    loss: Loss,
    config: &LocalizedConfig,
    seeds: Seeds,
) -> Result<LocalizedRun> {
    config.check_settings()?;
    check_data(data)?;
    loss.check_labels(data)?;
    let (n, d) = (data.n(), data.d());
    let phases = config.schedule(n, d)?;
    let domain = config.domain();
    let p = config.exponent_p(d);
    let mut x = config.x0.clone().unwrap_or_else(|| vec![0.0; d]);
    crate::optim::check_start(&x, d)?;
    if !domain.contains(&x, p) {
        return Err(Error::invalid("x0", "outside X", "in the domain ball of radius R"));
    }
    let map = config.phase_map(d)?;
    let clip = config.clip(d)?;
    let mut records = Vec::with_capacity(phases.len());
    let mut events = EventLog::default();
    // Alg. 2, line 2: for i = 1..k
    for phase in phases {
        // Alg. 2, line 4: Algorithm 1 on F_i over X_i, on the fresh block B_i, at (eps_i, delta)
        let block = block_of(data, &phase.block)?;
        let privacy = match (config.privacy, phase.epsilon_i) {
            (Privacy::Target { delta, .. }, Some(e)) => Privacy::Target { epsilon: e, delta },
            (other, _) => other,
        };
        let x_start = x.clone();
        let settings = CoreSettings {
            steps_t: phase.steps_t_i,
            sampler: BatchSampler::WithoutReplacement { batch_size: phase.batch_b_i },
            privacy,
            neighbouring: Neighbouring::ReplaceOne,
            batch_size_b: None,
            clip,
            map,
            centre: &x_start,
            domain,
            lp_radius: phase.radius_r_i,
            regulariser_lambda: phase.lambda_i,
            step: StepRule::StronglyConvex { lambda: phase.lambda_i },
            average: Average::Weighted,
            x0: &x_start,
            tolerance: config.step_tolerance,
        };
        let run =
            noisy_mirror_descent_core(&block, loss, &settings, seeds.child(u64::from(phase.index_i)), &mut NoTrace)?;
        // Alg. 2, line 5: x_i = the output of phase i
        x.copy_from_slice(&run.x);
        events.append(&run.events);
        records.push(PhaseRecord { phase, x_start, run });
    }
    // Alg. 2, line 6: return x_k, with the sequential composition of every executed event
    let sigma = records.iter().map(|r| r.run.privacy.sigma).fold(f64::INFINITY, f64::min);
    let privacy = sequential_report(&events, config.privacy, sigma)?;
    Ok(LocalizedRun { x, phases: records, events, privacy, neighbouring: Neighbouring::ReplaceOne })
}

/// A non-private solver of phase i's objective over X **without** the ball X_i (the point
/// x̂_i of the analysis, Lemma 3.3): the inner loop on `block` with σ = 0, full batches, the
/// strongly convex step and `steps` iterations from x_{i−1} = `centre`. Returns the inner run
/// (`x`: the weighted average, `x_last`: the last iterate); its accuracy is for the caller to
/// certify (e.g. by a Frank–Wolfe gap).
///
/// # Errors
/// As [`localized_mirror_descent`].
pub fn phase_objective_minimiser(
    block: &Dataset,
    loss: Loss,
    config: &LocalizedConfig,
    phase: &Phase,
    centre: &[f64],
    steps: u64,
) -> Result<Run> {
    config.check_settings()?;
    check_data(block)?;
    check::count("steps", steps)?;
    let d = block.d();
    crate::optim::check_start(centre, d)?;
    let settings = CoreSettings {
        steps_t: steps,
        sampler: BatchSampler::WithoutReplacement { batch_size: block.n() },
        privacy: Privacy::NoiseMultiplier { sigma: 0.0, report_delta: None },
        neighbouring: Neighbouring::ReplaceOne,
        batch_size_b: None,
        clip: f64::INFINITY,
        map: config.phase_map(d)?,
        centre,
        domain: config.domain(),
        lp_radius: f64::INFINITY,
        regulariser_lambda: phase.lambda_i,
        step: StepRule::StronglyConvex { lambda: phase.lambda_i },
        average: Average::Weighted,
        x0: centre,
        tolerance: config.step_tolerance,
    };
    noisy_mirror_descent_core(block, loss, &settings, Seeds::new(0), &mut NoTrace)
}

/// The RDP accountant's reading of all phases' (rounds') events composed sequentially, at the
/// target's δ (or the reported δ): an upper bound on the run's ε. `sigma` is reported as the
/// smallest noise multiplier of the sub-runs (their multipliers differ).
pub(crate) fn sequential_report(events: &EventLog, privacy: Privacy, sigma: f64) -> Result<PrivacyReport> {
    let delta = match privacy {
        Privacy::Target { delta, .. } => Some(delta),
        Privacy::NoiseMultiplier { report_delta, .. } | Privacy::StdOnMean { report_delta, .. } => report_delta,
    };
    let Some(event) = events.as_event() else {
        return Ok(PrivacyReport { epsilon: None, delta: None, sigma });
    };
    let Some(delta) = delta else {
        return Ok(PrivacyReport { epsilon: None, delta: None, sigma });
    };
    let mut acc = RdpAccountant::new(Neighbouring::ReplaceOne);
    acc.compose(&event, 1)?;
    let epsilon = acc.epsilon(delta, Conversion::Improved)?.epsilon;
    Ok(PrivacyReport { epsilon: Some(epsilon), delta: Some(delta), sigma })
}

/// `‖x − a‖_p`: the distance X_i bounds.
pub fn phase_distance(x: &[f64], centre: &[f64], p: f64) -> f64 {
    let u: Vec<f64> = x.iter().zip(centre).map(|(a, b)| a - b).collect();
    norm_lp(&u, p)
}

/// Settings of the strongly convex reduction of \[AFKT\] Sec. 5 (from \[FKT20\] Thm. 5.1) over
/// Algorithm 2 (or 6): rounds i = 1..k, `k = ⌈ln ln n⌉`, round i runs the inner algorithm from
/// the previous output on `n_i = ⌊2^{i−2} n/ln n⌋` fresh records.
///
/// Implemented as the paper states it (restart with growing fresh samples). The sketch does not
/// say how each round's step or domain shrinks with strong convexity; \[FKT20\]'s version shrinks
/// the radius by a bound on `E‖x_i − x*‖²` whose constants the paper's O(·) hides, so no exact
/// shrink can be derived from it: every round keeps the inner configuration (X and Theorem 4's
/// step at its own n_i), and no Theorem 8 rate is claimed (proof §7).
#[derive(Debug, Clone, PartialEq)]
pub struct StronglyConvexReductionConfig {
    /// The inner algorithm (its `x0` is the start of round 1; its (ε, δ) is used in every round).
    pub inner: LocalizedConfig,
    /// k (`None`: ⌈ln ln n⌉, at least 1).
    pub rounds_k: Option<u32>,
}

/// The result of the reduction.
#[derive(Debug, Clone, PartialEq)]
pub struct ReductionRun {
    /// The output of the last round.
    pub x: Vec<f64>,
    /// Each round's block of records and its run.
    pub rounds: Vec<(Range<usize>, LocalizedRun)>,
    /// Every executed event, round after round.
    pub events: EventLog,
    /// The sequential RDP reading of `events` (an upper bound; the rounds' blocks are disjoint,
    /// so parallel composition would give the inner (ε, δ), but no accountant event expresses it).
    pub privacy: PrivacyReport,
}

impl StronglyConvexReductionConfig {
    /// The reduction over `inner` with the default k.
    ///
    /// # Errors
    /// As [`LocalizedConfig::new`]'s checks of `inner`; k = 0.
    pub fn new(inner: LocalizedConfig, rounds_k: Option<u32>) -> Result<Self> {
        inner.check_settings()?;
        if rounds_k == Some(0) {
            return Err(Error::invalid("rounds k", 0, ">= 1"));
        }
        Ok(StronglyConvexReductionConfig { inner, rounds_k })
    }

    /// Runs the reduction on `data`: [`strongly_convex_reduction`].
    ///
    /// # Errors
    /// As [`strongly_convex_reduction`].
    pub fn run(&self, data: &Dataset, loss: Loss, seeds: Seeds) -> Result<ReductionRun> {
        strongly_convex_reduction(data, loss, self, seeds)
    }

    /// The rounds' blocks: consecutive, disjoint, `n_i = ⌊2^{i−2} n/ln n⌋` records each.
    ///
    /// # Errors
    /// `InvalidParameter` for n < 3 or a round with fewer than 2 records.
    pub fn schedule(&self, n: usize) -> Result<Vec<Range<usize>>> {
        if n < 3 {
            return Err(Error::invalid("n", n, ">= 3 (ln ln n defined)"));
        }
        let ln_n = (n as f64).ln();
        let k = self.rounds_k.unwrap_or_else(|| (ln_n.ln().ceil().max(1.0)) as u32);
        let mut blocks = Vec::new();
        let mut start = 0usize;
        for i in 1..=k {
            let n_i = (2f64.powi(i as i32 - 2) * n as f64 / ln_n).floor() as usize;
            if n_i < 2 || start + n_i > n {
                return Err(Error::invalid("rounds k", k, "with 2 <= n_i and sum n_i <= n"));
            }
            blocks.push(start..start + n_i);
            start += n_i;
        }
        Ok(blocks)
    }
}

/// Runs the reduction (round i's streams are `seeds.child(i)`).
///
/// # Errors
/// As [`localized_mirror_descent`] and [`StronglyConvexReductionConfig::schedule`].
pub fn strongly_convex_reduction(
    data: &Dataset,
    loss: Loss,
    config: &StronglyConvexReductionConfig,
    seeds: Seeds,
) -> Result<ReductionRun> {
    config.inner.check_settings()?;
    check_data(data)?;
    let blocks = config.schedule(data.n())?;
    let mut inner = config.inner.clone();
    let mut events = EventLog::default();
    let mut rounds = Vec::with_capacity(blocks.len());
    for (i, block) in blocks.into_iter().enumerate() {
        let part = block_of(data, &block)?;
        let run = localized_mirror_descent(&part, loss, &inner, seeds.child(i as u64 + 1))?;
        inner.x0 = Some(run.x.clone());
        events.append(&run.events);
        rounds.push((block, run));
    }
    let sigma = rounds.iter().map(|(_, r)| r.privacy.sigma).fold(f64::INFINITY, f64::min);
    let privacy = sequential_report(&events, config.inner.privacy, sigma)?;
    let x = inner.x0.unwrap_or_else(|| vec![0.0; data.d()]);
    Ok(ReductionRun { x, rounds, events, privacy })
}
