//! Subsampled bias-reduced sparse SGD with a privacy filter — \[GGKKM\] Algorithm 6 (Sec. 6,
//! Lemma 6.3, Thm. A.4; step sizes of Thms. 6.7 and 6.8; arXiv 2404.10881v2).
//!
//! Input: x⁰ ∈ X, a GLM loss on n ≥ 2 CSR records ([`SparseGlm`], per-example gradients in
//! `S_s^d = {‖g‖₀ ≤ s, ‖g‖₂ ≤ L}`), [`BiasReducedSgdConfig`] (L, s, ε ∈ (0, 1], δ ∈ (0, 1), η, X,
//! convex or not, the stopping rule). Output: [`BiasReducedSgdRun`]: x̄ (convex) or x^{t̂}
//! (nonconvex), the levels N_t and examples touched per step, the events and their privacy.
//! ```text
//! 1:  t ← −1
//! 2:  while √(2 ln(4/δ) Σ_{s=0}^{t−1} c(N_s)²) + (ε/2) Σ_{s=0}^{t−1} c(N_s)² ≤ 1/2  and  Σ_{s=0}^{t−1} c(N_s) ≤ 1/4:
//!                                         c(N) = (3·2^{N+1} + 1)/(16n)   (corrected: N_s, not N_t)
//! 3:      t ← t + 1
//! 4:      N_t ~ TGeom(M),  M = ⌊log₂ n⌋ − 1
//! 5:      𝒢(x^t) = Algorithm5(x^t, S, N_t, ε/8, δ/4)        (each MeanMech call at (ε/32, δ/16))
//! 6:      x^{t+1} = Π_X[x^t − η 𝒢(x^t)]
//! 7:  return x̄ = (1/(t+1)) Σ_{s=0}^{t} x^s (convex),  x^{t̂}, t̂ ~ Unif{0..t} (nonconvex)
//! ```
//! (The paper displays the algorithm without line numbers; lines are counted from `t ← −1`.)
//! The second clause is evaluated exactly in integers (`Σ(3·2^{N_s+1} + 1) ≤ 4n`), the first
//! through [`filter_epsilon_spent`] (the filter's ε, rounded up) as `≤ ε/2`, which is the printed
//! clause multiplied by ε.
//!
//! # Privacy
//! Replace-one. Each MeanMech call is Algorithm 1 with Gaussian noise at (ε/32, δ/16) and is
//! recorded as the point of its curve at ε/32: `EpsilonDelta(ε/32, δ(ε/32; z))`, δ(·; z) the exact
//! Gaussian δ (≤ δ/16). The three calls on B are one `SampledWithoutReplacement(n, 2^{N+1}, ·)`,
//! line 5's G_0 one `SampledWithoutReplacement(n, 1, ·)`: one event per step, read by the
//! approximate-DP accountant ([`crate::accounting::ApproxDpAccountant`]) as Lemma 6.3's chain
//! (basic composition, then amplification `ln(1 + q(e^ε − 1))`, `qδ`), which is ≤ (c(N)ε, c(N)δ).
//! The run's event is `Composed[PrivacyFilter(ε/2, δ/4, δ/4, filter-valid steps), later steps]`;
//! the accountant checks the filter condition on the recorded steps.
//!
//! [`StoppingRule::Lagged`] (default; the paper's loop): the check sums steps 0..t−1 only, so the
//! run executes a filter-valid prefix and **two** more steps (proofs/sparse/bias_reduced_sgd.md
//! §3), each ≤ (ε/4, δ/4): total ≤ (ε, δ) by basic composition. [`StoppingRule::CheckedFirst`]:
//! N_t is public, so it is drawn first and step t runs only if the filter still holds with
//! c(N_t) included: every step is filter-valid, total ≤ (ε/2, δ/2), fewer steps. The default is
//! the paper's loop because Lemma 6.5 and Thms. 6.7/6.8 analyse its stopping time, and it is sound.
//!
//! The levels N_t come from their own stream (`Stream::Sampling`, index [`LEVEL_STREAM`]), so
//! [`stopping_time`] reproduces T from the seed alone: T never depends on the data.
//!
//! # Errors
//! `InvalidParameter` for ε ∉ (0, 1] (Lemma 6.3's amplification inequality and the classical
//! Gaussian calibration need ε ≤ 1), δ ∉ (0, 1) (the filter needs δ′ = δ/4 > 0: δ = 0 has no
//! stopping rule), η not positive, n < 2, x⁰ ∉ X or of the wrong dimension, a per-example
//! gradient outside `S_s^d`; `NonFinite` for NaN data or points.
//!
//! Proof: proofs/sparse/bias_reduced_sgd.md.

use super::accounted::Accounted;
use super::bias_reduced::{BiasReducedConfig, BiasReducedEstimate, MeanMechanism, truncation_m};
use super::projection_mechanism::{GaussianRecord, ProjectionMechanismConfig};
use crate::accounting::approx_dp::filter_epsilon_spent;
use crate::error::{Error, Result, check};
use crate::geometry::Domain;
use crate::model::SparseGlm;
use crate::optim::release::epsilon_delta::{FilterTarget, FilteredSteps};
use crate::optim::{Observer, PrivateRelease, TraceEvent};
use crate::rng::{DpRng, Seeds, Stream};
use crate::sampling::TruncatedGeometric;
use rand::RngExt;
use serde::Serialize;

/// The index of the `Stream::Sampling` stream the levels N_t are drawn from (B and I use index 0).
pub const LEVEL_STREAM: u64 = 1;

/// When the filter is checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub enum StoppingRule {
    /// The paper's loop: the check before step t + 1 sums steps 0..t−1 (a filter-valid prefix
    /// plus two steps run; total ≤ (ε, δ)).
    #[default]
    Lagged,
    /// N_t drawn first, step t run only if the filter holds with c(N_t) included (every step
    /// filter-valid; total ≤ (ε/2, δ/2)).
    CheckedFirst,
}

/// Convex (average output) or not (uniform iterate).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Convexity {
    /// f(·, z) convex: return x̄ = (1/(T+1)) Σ_{s≤T} x^s (Thm. 6.7).
    Convex,
    /// f(·, z) smooth, not convex: return x^{t̂}, t̂ ~ Unif{0..T} (Thm. 6.8).
    Nonconvex,
}

/// The parameters of Algorithm 6.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BiasReducedSgdConfig {
    /// L > 0: the ℓ2 bound of every per-example gradient.
    pub l2_bound_l: f64,
    /// s ≥ 1: their sparsity.
    pub sparsity_s: usize,
    /// ε ∈ (0, 1].
    pub epsilon: f64,
    /// δ ∈ (0, 1).
    pub delta: f64,
    /// η > 0.
    pub step_size_eta: f64,
    /// X (Euclidean projection Π_X; `Unconstrained` for Thm. 6.8's X = ℝ^d).
    pub domain: Domain,
    /// Which output.
    pub convexity: Convexity,
    /// When the filter is checked.
    pub stopping: StoppingRule,
}

/// What a run of Algorithm 6 returns.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BiasReducedSgdRun {
    /// x̄ (convex) or x^{t̂} (nonconvex); x⁰ if no step ran.
    pub x: Vec<f64>,
    /// x^{T+1}, the last iterate computed.
    pub x_last: Vec<f64>,
    /// T + 1: the steps executed.
    pub steps: u64,
    /// t̂ (nonconvex runs).
    pub output_index: Option<u64>,
    /// N_0, …, N_T.
    pub levels: Vec<u32>,
    /// Per-example gradients evaluated at each step.
    pub examples_touched: Vec<usize>,
    /// How many of the first steps the filter covers (the rest are composed after it).
    pub filtered_steps: usize,
    /// The events executed, one `Composed[PrivacyFilter, …]`, and the approximate-DP
    /// accountant's (ε, δ) of them.
    #[serde(flatten)]
    pub accounted: Accounted,
}

/// The stopping rule alone (it depends only on the N's).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StoppingTrace {
    /// N_0, …, N_T of the steps executed.
    pub levels: Vec<u32>,
    /// How many of them the filter covers.
    pub filtered_steps: usize,
}

impl StoppingTrace {
    /// T + 1: the steps executed.
    pub fn steps(&self) -> u64 {
        self.levels.len() as u64
    }
}

/// `c(N) = (3·2^{N+1} + 1)/(16n)`: a step's share of (ε, δ) in Lemma 6.3.
pub fn step_cost_c(n: usize, level_n: u32) -> f64 {
    step_units(level_n) as f64 / (16.0 * n as f64)
}

/// `3·2^{N+1} + 1` = 16n·c(N), an integer.
fn step_units(level_n: u32) -> u64 {
    3 * (1u64 << (level_n + 1)) + 1
}

/// The running sums of the while condition, in exact integers: `Σ 16n·c` and `Σ (16n·c)²`.
#[derive(Debug, Clone, Copy, Default)]
struct FilterSums {
    units: u64,
    units_squared: u128,
}

impl FilterSums {
    fn add(&mut self, level_n: u32) {
        let k = step_units(level_n);
        self.units += k;
        self.units_squared += u128::from(k) * u128::from(k);
    }
}

/// The stopping rule's parameters: n, ε, δ, and the condition of line 2 on sums.
#[derive(Debug, Clone, Copy)]
struct Filter {
    n: usize,
    epsilon: f64,
    delta: f64,
}

impl Filter {
    /// Line 2 on the given sums: `Σc ≤ 1/4` ⇔ `Σ(3·2^{N+1} + 1) ≤ 4n` (exact), and the filter's
    /// ε of the steps' `ε_s = c(N_s)ε`, `√(2 ln(4/δ) Σε_s²) + ½Σε_s²` (rounded up), `≤ ε/2`.
    fn admits(&self, sums: FilterSums) -> Result<bool> {
        if sums.units > 4 * self.n as u64 {
            return Ok(false);
        }
        let scale = self.epsilon / (16.0 * self.n as f64);
        let sum_squares = sums.units_squared as f64 * scale * scale;
        Ok(filter_epsilon_spent(sum_squares, self.delta / 4.0)? <= self.epsilon / 2.0)
    }

    /// The filter of Lemma 6.3: target ε/2, δ′ = δ″ = δ/4.
    fn target(&self) -> FilterTarget {
        FilterTarget {
            epsilon: self.epsilon / 2.0,
            delta_prime: self.delta / 4.0,
            delta_double_prime: self.delta / 4.0,
        }
    }
}

/// Decides, step by step, whether the loop goes on: line 2 for [`StoppingRule::Lagged`] (the sums
/// lag one executed step), the check with the new level included for `CheckedFirst`.
struct Stopping {
    filter: Filter,
    rule: StoppingRule,
    law: TruncatedGeometric,
    levels: DpRng,
    /// The sums over the steps the next check covers.
    checked: FilterSums,
    /// The level of the last executed step (Lagged: not yet in `checked`).
    pending: Option<u32>,
    executed: Vec<u32>,
}

impl Stopping {
    fn new(filter: Filter, rule: StoppingRule, seeds: Seeds) -> Result<Self> {
        // The filter sums the steps' squared costs in units of (ε/(16n))²; a unit that is not a
        // normal float rounds the sum to (nearly) 0, the check admits every step, and the
        // accountant, which rounds each square up, then refuses the run's own filter after it ran
        // (ε = 1e-300).
        let unit = filter.epsilon / (16.0 * filter.n as f64);
        if !(unit * unit).is_normal() {
            return Err(Error::invalid(
                "epsilon",
                filter.epsilon,
                "large enough that (epsilon/(16 n))^2, the unit of the filter's squared step costs, is a normal \
                 float (epsilon >= about 2.4e-153 n)",
            ));
        }
        Ok(Stopping {
            law: TruncatedGeometric::new(truncation_m(filter.n)?)?,
            filter,
            rule,
            levels: seeds.stream_at(Stream::Sampling, LEVEL_STREAM),
            checked: FilterSums::default(),
            pending: None,
            executed: Vec::new(),
        })
    }

    /// The level of the next step, or `None` when the loop stops.
    fn next(&mut self) -> Result<Option<u32>> {
        match self.rule {
            StoppingRule::Lagged => {
                // Alg. 6, line 2: while <condition on steps 0..t−1> (the last executed step is not yet counted)
                if !self.filter.admits(self.checked)? {
                    return Ok(None);
                }
                if let Some(level) = self.pending.take() {
                    self.checked.add(level);
                }
                // Alg. 6, line 4: N_t ~ TGeom(M)
                let level = self.law.sample(&mut self.levels);
                self.pending = Some(level);
                self.executed.push(level);
                Ok(Some(level))
            }
            StoppingRule::CheckedFirst => {
                let level = self.law.sample(&mut self.levels);
                let mut with = self.checked;
                with.add(level);
                if !self.filter.admits(with)? {
                    return Ok(None);
                }
                self.checked = with;
                self.executed.push(level);
                Ok(Some(level))
            }
        }
    }

    /// The steps the filter covers: all but the last two (Lagged), all (CheckedFirst).
    fn filtered_steps(&self) -> usize {
        match self.rule {
            StoppingRule::Lagged => self.executed.len().saturating_sub(2),
            StoppingRule::CheckedFirst => self.executed.len(),
        }
    }
}

/// Algorithm 6's stopping rule alone, from the seed's level stream: the levels of the steps a run
/// with the same (n, ε, δ, rule, seeds) executes, whatever its data.
///
/// # Errors
/// `InvalidParameter` for n < 2, ε ∉ (0, 1], δ ∉ (0, 1).
pub fn stopping_time(n: usize, epsilon: f64, delta: f64, rule: StoppingRule, seeds: Seeds) -> Result<StoppingTrace> {
    check_budget(epsilon, delta)?;
    let mut stopping = Stopping::new(Filter { n, epsilon, delta }, rule, seeds)?;
    while stopping.next()?.is_some() {}
    Ok(StoppingTrace { filtered_steps: stopping.filtered_steps(), levels: stopping.executed })
}

fn check_budget(epsilon: f64, delta: f64) -> Result<()> {
    if !(epsilon > 0.0 && epsilon <= 1.0) {
        return Err(Error::invalid(
            "epsilon",
            epsilon,
            "in (0, 1] (Lemma 6.3's amplification inequality and the classical Gaussian calibration need it)",
        ));
    }
    if !(f64::MIN_POSITIVE..1.0).contains(&delta) {
        return Err(Error::invalid(
            "delta",
            delta,
            "in [2.2e-308, 1) (the filter needs delta' = delta/4 > 0, and the calls' delta/16 must not underflow)",
        ));
    }
    Ok(())
}

/// τ = C′n/ln(2/δ) (Thms. 6.7, 6.8; C′ = 0.25 satisfies P[T ≤ τ] ≤ 1/4 in simulation, proofs/sparse/bias_reduced_sgd.md §4).
///
/// # Errors
/// `InvalidParameter` for C′ not positive, n = 0, δ ∉ (0, 1).
pub fn horizon_tau(c_prime: f64, n: usize, delta: f64) -> Result<f64> {
    check::positive("C'", c_prime)?;
    check::count("n", n as u64)?;
    check::open_unit("delta", delta)?;
    Ok(c_prime * n as f64 / (2.0 / delta).ln())
}

/// Thm. 6.7's step size η = D/(ν√τ).
///
/// # Errors
/// `InvalidParameter` for D, ν, τ not positive.
pub fn convex_step_size(diameter_d: f64, nu: f64, tau: f64) -> Result<f64> {
    let (dd, nu, tau) = (check::positive("D", diameter_d)?, check::positive("nu", nu)?, check::positive("tau", tau)?);
    check::positive("step size", dd / (nu * tau.sqrt()))
}

/// Thm. 6.8's step size η = √(Γ/(Hτν²)) (the paper prints "Ht": read τ), capped at 1/(2H) as
/// Prop. B.2 assumes.
///
/// # Errors
/// `InvalidParameter` for Γ, H, ν, τ not positive.
pub fn nonconvex_step_size(gamma: f64, smoothness_h: f64, nu: f64, tau: f64) -> Result<f64> {
    let g = check::positive("Gamma", gamma)?;
    let h = check::positive("H", smoothness_h)?;
    let (nu, tau) = (check::positive("nu", nu)?, check::positive("tau", tau)?);
    check::positive("step size", (g / (h * tau * nu * nu)).sqrt().min(0.5 / h))
}

/// Algorithm 1 recording its Gaussian release as the point (ε, δ(ε; z)) of its curve.
struct ClaimedProjection(ProjectionMechanismConfig);

impl MeanMechanism for ClaimedProjection {
    fn release_mean(&self, mean: Vec<f64>, m: usize, release: &mut PrivateRelease) -> Result<Vec<f64>> {
        Ok(self.0.release_mean_recorded(mean, m, release, GaussianRecord::ClaimedEpsilon)?.z_hat)
    }
}

impl BiasReducedSgdConfig {
    /// Algorithm 6 with the paper's stopping rule.
    ///
    /// # Errors
    /// See the module doc (the data-free checks).
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        l2_bound_l: f64,
        sparsity_s: usize,
        epsilon: f64,
        delta: f64,
        step_size_eta: f64,
        domain: Domain,
        convexity: Convexity,
    ) -> Result<Self> {
        check_budget(epsilon, delta)?;
        check::positive("step size eta", step_size_eta)?;
        let cfg = BiasReducedSgdConfig {
            l2_bound_l,
            sparsity_s,
            epsilon,
            delta,
            step_size_eta,
            domain,
            convexity,
            stopping: StoppingRule::Lagged,
        };
        cfg.estimator()?;
        Ok(cfg)
    }

    /// The same with another stopping rule.
    pub fn with_stopping(mut self, stopping: StoppingRule) -> Self {
        self.stopping = stopping;
        self
    }

    /// Algorithm 5 at (ε/8, δ/4): each MeanMech call at (ε/32, δ/16).
    ///
    /// # Errors
    /// As [`BiasReducedConfig::new`].
    pub fn estimator(&self) -> Result<BiasReducedConfig> {
        BiasReducedConfig::new(self.l2_bound_l, self.sparsity_s, self.epsilon / 8.0, self.delta / 4.0)
    }

    /// The mean mechanism of every call: Algorithm 1 at (ε/32, δ/16), recorded as (ε, δ) claims.
    fn mean_mechanism(&self) -> Result<ClaimedProjection> {
        Ok(ClaimedProjection(self.estimator()?.per_call()?))
    }

    /// One step (lines 5–6) at level N with any mean mechanism (the audit's twins plug in
    /// theirs), drawing through `steps` and ending its step: `x ← Π_X[x − η𝒢(x)]`. Returns
    /// Algorithm 5's estimate at the step (𝒢(x^t) = `g`, N_t, the `2^{N_t+1} + 1` per-example
    /// gradients evaluated).
    ///
    /// # Errors
    /// As [`BiasReducedConfig::estimate_with`]; `Empty` if the mechanism recorded nothing.
    pub fn step_with(
        &self,
        x: &mut [f64],
        glm: SparseGlm<'_>,
        level_n: u32,
        mech: &dyn MeanMechanism,
        steps: &mut FilteredSteps,
    ) -> Result<BiasReducedEstimate> {
        // Alg. 6, line 5: 𝒢(x^t) = Algorithm5(x^t, S, N_t, ε/8, δ/4)
        let estimate = self.estimator()?.estimate_with(x, glm, level_n, mech, steps.release())?;
        steps.end_step()?;
        // Alg. 6, line 6: x^{t+1} = Π_X[x^t − η 𝒢(x^t)]
        for (xj, gj) in x.iter_mut().zip(&estimate.g) {
            *xj -= self.step_size_eta * gj;
        }
        self.domain.project(x);
        check::all_finite("iterate", x)?;
        Ok(estimate)
    }

    /// Algorithm 6 from x⁰ with the streams of `seeds`; the observer sees each x^t and 𝒢(x^t).
    ///
    /// # Errors
    /// See the module doc.
    pub fn run(
        &self,
        glm: SparseGlm<'_>,
        x0: &[f64],
        seeds: Seeds,
        observer: &mut dyn Observer,
    ) -> Result<BiasReducedSgdRun> {
        check_budget(self.epsilon, self.delta)?;
        let n = glm.data.n();
        crate::optim::check_start(x0, glm.data.d())?;
        if !self.domain.contains(x0) {
            return Err(Error::invalid("x0", "outside X", "a point of the domain X"));
        }
        let mech = self.mean_mechanism()?;
        let filter = Filter { n, epsilon: self.epsilon, delta: self.delta };
        let mut stopping = Stopping::new(filter, self.stopping, seeds)?;
        let mut steps = FilteredSteps::new(seeds)?;
        let (mut x, mut sum) = (x0.to_vec(), vec![0.0; x0.len()]);
        let mut iterates = Vec::new();
        let mut touched = Vec::new();
        // Alg. 6, line 1: t ← −1 (kept as the count of steps run, t + 1 in the paper's indexing)
        let mut t = 0u64;
        while let Some(level_n) = stopping.next()? {
            // Alg. 6, line 3: t ← t + 1 (t counts the steps run)
            observer.observe(TraceEvent::Iterate { step: t, x: &x });
            sum.iter_mut().zip(&x).for_each(|(s, v)| *s += v);
            if self.convexity == Convexity::Nonconvex {
                iterates.push(x.clone());
            }
            let estimate = self.step_with(&mut x, glm, level_n, &mech, &mut steps)?;
            observer.observe(TraceEvent::NoisyGradient { step: t, g_hat: &estimate.g });
            touched.push(estimate.gradients_evaluated);
            t += 1;
        }
        let filtered_steps = stopping.filtered_steps();
        let summary = steps.finish(filter.target(), filtered_steps)?;
        // Alg. 6, line 7: x̄ = (1/(T+1)) Σ_{s≤T} x^s (convex) or x^{t̂}, t̂ ~ Unif{0..T} (nonconvex)
        let (out, output_index) = match (self.convexity, t) {
            (_, 0) => (x0.to_vec(), None),
            (Convexity::Convex, _) => (sum.iter().map(|s| s / t as f64).collect(), None),
            (Convexity::Nonconvex, _) => {
                let hat = seeds.stream(Stream::Init).random_range(0..t);
                (iterates.swap_remove(hat as usize), Some(hat))
            }
        };
        Ok(BiasReducedSgdRun {
            x: out,
            x_last: x,
            steps: t,
            output_index,
            levels: stopping.executed,
            examples_touched: touched,
            filtered_steps,
            accounted: summary.into(),
        })
    }
}
