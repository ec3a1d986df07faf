//! Boosting the confidence of bias-reduced SGD — \[GGKKM\] Algorithm 7 (Sec. 7, Thm. 7.1;
//! arXiv 2404.10881v2).
//!
//! Input: a GLM loss on n ≥ 2 CSR records, x⁰, [`BoostedSgdConfig`] (Algorithm 6's parameters at
//! the total (ε, δ), K, the score, the reading of the selection scale). Output:
//! [`BoostedSgdRun`]: x̂ = x̂_{k̂}, the K candidates, their scores, k̂, the events and privacy.
//! ```text
//! 1:  for k in [K]:
//! 2:      x̂_k = Algorithm6 with budget (ε/(K+1), δ/(K+1))                   (independent runs)
//! 3:  if convex:  k̂ = argmin_k [F_S(x̂_k) + ξ_k],       ξ_k ~ Lap(λ),  λ = 2B(K+1)/(nε)   (corrected)
//! 4:  else:       k̂ = argmin_k [‖∇F_S(x̂_k)‖₂ + ξ_k],   ξ_k ~ Lap(λ),  λ = 4L(K+1)/(nε)  (corrected)
//! 5:  return x̂_{k̂}
//! ```
//! K = ⌈log₂(2/β)⌉ ([`theorem71_runs`]). The printed scale is λ = Δ(K+1)/(nε) with Δ = B (convex)
//! or 2L; but the scores are not monotone (replacing one record can raise F_S(x̂_1) and lower
//! F_S(x̂_2)), and report-noisy-min at scale λ on scores of sensitivity Δ/n is only `2Δ/(nλ)`-DP:
//! 2ε/(K+1) at the printed λ (proofs/sparse/boosted_sgd.md §5, the exact K = 2 computation).
//! The default doubles λ; [`SelectionScale::AsPrinted`] keeps the printed λ and is **charged its
//! true cost** 2ε/(K+1), so its report exceeds ε.
//!
//! # Privacy
//! Replace-one. The K runs' events (each Algorithm 6's filter event) and the selection's
//! `EpsilonDelta(2Δ/(nλ), 0)` (recorded by [`PrivateSelection::select_min`]) compose by basic
//! composition in the approximate-DP accountant: at the corrected λ, ≤ (ε, Kδ/(K+1)).
//! The convex score's sensitivity B/n needs `f(x̂_k, z) ∈ [0, B]` for every record: checked on
//! the data at every candidate (refused otherwise, naming the row); the nonconvex score's 2L/n
//! needs every per-example gradient in `S_s^d` (checked, as in Algorithm 5).
//!
//! # Errors
//! As [`BiasReducedSgdConfig::run`]; `InvalidParameter` for β ∉ (0, 1), B not positive, a loss
//! value outside [0, B] or a gradient outside `S_s^d`.
//!
//! Proof: proofs/sparse/boosted_sgd.md.

use super::accounted::Accounted;
use super::bias_reduced_sgd::{BiasReducedSgdConfig, BiasReducedSgdRun};
use crate::accounting::Neighbouring;
use crate::bounds::sparse::{theorem71_laplace_scale_corrected, theorem71_laplace_scale_printed, theorem71_runs};
use crate::error::{Error, Result, check};
use crate::model::SparseGlm;
use crate::optim::{EventLog, NoTrace, PrivateSelection, SelectionMechanism};
use crate::rng::Seeds;
use serde::Serialize;

/// The selection score of lines 3–4.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub enum SelectionScore {
    /// Convex: `F_S(x̂_k)`, sensitivity B/n, needs `f ∈ [0, B]`.
    EmpiricalRisk {
        /// B > 0: the range of the loss.
        range_b: f64,
    },
    /// Nonconvex: `‖∇F_S(x̂_k)‖₂`, sensitivity 2L/n.
    GradientNorm,
}

/// The Laplace scale λ of the selection.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub enum SelectionScale {
    /// `λ = 2Δ(K+1)/(nε)`: ε/(K+1)-DP for non-monotone scores (default).
    #[default]
    Corrected,
    /// `λ = Δ(K+1)/(nε)` as printed: charged its true cost 2ε/(K+1).
    AsPrinted,
}

/// The parameters of Algorithm 7.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BoostedSgdConfig {
    /// Algorithm 6 at the **total** (ε, δ); each run gets (ε/(K+1), δ/(K+1)).
    pub base: BiasReducedSgdConfig,
    /// K ≥ 1 runs.
    pub runs_k: u64,
    /// The score.
    pub score: SelectionScore,
    /// The reading of λ.
    pub scale: SelectionScale,
}

/// What a run of Algorithm 7 returns.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BoostedSgdRun {
    /// x̂ = x̂_{k̂}.
    pub x: Vec<f64>,
    /// k̂ (0-based).
    pub selected: usize,
    /// The K runs of Algorithm 6.
    pub runs: Vec<BiasReducedSgdRun>,
    /// Their scores (F_S or ‖∇F_S‖₂).
    pub scores: Vec<f64>,
    /// λ.
    pub scale_lambda: f64,
    /// The score's sensitivity Δ/n.
    pub score_sensitivity: f64,
    /// The events executed (the runs', then the selection's) and the approximate-DP
    /// accountant's (ε, δ) of them.
    #[serde(flatten)]
    pub accounted: Accounted,
}

impl BoostedSgdConfig {
    /// Algorithm 7 with K = ⌈log₂(2/β)⌉ runs of `base` (whose ε, δ are the totals) and the
    /// corrected scale.
    ///
    /// # Errors
    /// `InvalidParameter` for β ∉ (0, 1), B not positive, or a per-run budget Algorithm 6 refuses.
    pub fn new(base: BiasReducedSgdConfig, beta: f64, score: SelectionScore) -> Result<Self> {
        let runs_k = theorem71_runs(beta)?;
        if let SelectionScore::EmpiricalRisk { range_b } = score {
            check::positive("loss range B", range_b)?;
        }
        let cfg = BoostedSgdConfig { base, runs_k, score, scale: SelectionScale::Corrected };
        cfg.per_run()?;
        Ok(cfg)
    }

    /// The same with another reading of λ.
    pub fn with_scale(mut self, scale: SelectionScale) -> Self {
        self.scale = scale;
        self
    }

    /// Line 2's configuration: Algorithm 6 at (ε/(K+1), δ/(K+1)).
    ///
    /// # Errors
    /// As [`BiasReducedSgdConfig::new`].
    pub fn per_run(&self) -> Result<BiasReducedSgdConfig> {
        let k1 = self.runs_k as f64 + 1.0;
        let b = &self.base;
        let cfg = BiasReducedSgdConfig::new(
            b.l2_bound_l,
            b.sparsity_s,
            b.epsilon / k1,
            b.delta / k1,
            b.step_size_eta,
            b.domain.clone(),
            b.convexity,
        )?;
        Ok(cfg.with_stopping(b.stopping))
    }

    /// Δ (B or 2L) and λ for n records (line 3 or 4).
    ///
    /// # Errors
    /// As the `bounds::sparse` scale functions.
    pub fn selection_scale(&self, n: usize) -> Result<(f64, f64)> {
        let range = match self.score {
            SelectionScore::EmpiricalRisk { range_b } => range_b,
            SelectionScore::GradientNorm => 2.0 * self.base.l2_bound_l,
        };
        let (k, nn, e) = (self.runs_k, n as u64, self.base.epsilon);
        let lambda = match self.scale {
            SelectionScale::Corrected => theorem71_laplace_scale_corrected(range, k, nn, e)?,
            SelectionScale::AsPrinted => theorem71_laplace_scale_printed(range, k, nn, e)?,
        };
        // λ = 0 would run the exact argmin, unrecorded: its ε/(K + 1) share would go missing
        if lambda <= 0.0 {
            return Err(Error::invalid(
                "selection scale lambda",
                lambda,
                "> 0 (it underflowed: the score range is too small)",
            ));
        }
        Ok((range, lambda))
    }

    /// The score of one candidate: `F_S(x)` after checking `f(x, z_i) ∈ [0, B]` for every record,
    /// or `‖∇F_S(x)‖₂` after checking every per-example gradient against `S_s^d`.
    ///
    /// # Errors
    /// `InvalidParameter` naming the first record out of range; `NonFinite`.
    pub fn score_of(&self, x: &[f64], glm: SparseGlm<'_>) -> Result<f64> {
        let n = glm.data.n();
        match self.score {
            SelectionScore::EmpiricalRisk { range_b } => {
                let mut sum = 0.0;
                for i in 0..n {
                    let f = glm.loss_at(x, i);
                    if f.is_nan() || !(0.0..=range_b).contains(&f) {
                        return Err(Error::invalid("loss value", format!("{f} in row {i}"), "in [0, B]"));
                    }
                    sum += f;
                }
                Ok(sum / n as f64)
            }
            SelectionScore::GradientNorm => {
                let rows: Vec<usize> = (0..n).collect();
                Ok(crate::linalg::norm_l2(&self.base.estimator()?.mean_gradient(x, glm, &rows)?))
            }
        }
    }

    /// Algorithm 7 from x⁰: run k uses `seeds.child(k)` (k = 1..K), the selection `seeds.child(0)`.
    ///
    /// # Errors
    /// See the module doc.
    pub fn run(&self, glm: SparseGlm<'_>, x0: &[f64], seeds: Seeds) -> Result<BoostedSgdRun> {
        let n = glm.data.n();
        let per_run = self.per_run()?;
        let (range, lambda) = self.selection_scale(n)?;
        let mut runs = Vec::new();
        let mut events = EventLog::default();
        for k in 1..=self.runs_k {
            // Alg. 7, line 2: x̂_k = Algorithm6 with budget (ε/(K+1), δ/(K+1))
            let run = per_run.run(glm, x0, seeds.child(k), &mut NoTrace)?;
            events.append(&run.accounted.events);
            runs.push(run);
        }
        let scores = runs.iter().map(|r| self.score_of(&r.x, glm)).collect::<Result<Vec<_>>>()?;
        let sensitivity = crate::special::div_up(range, n as f64);
        let mut selection =
            PrivateSelection::new(SelectionMechanism::ReportNoisyMin, Neighbouring::ReplaceOne, seeds.child(0));
        // Alg. 7, line 3: k̂ = argmin_k [F_S(x̂_k) + ξ_k], ξ_k ~ Lap(λ) (convex score), or
        // Alg. 7, line 4: k̂ = argmin_k [‖∇F_S(x̂_k)‖₂ + ξ_k] (nonconvex score)
        let selected = selection.select_min(&scores, lambda, sensitivity)?;
        events.append(&selection.finish(None).events);
        let accounted = Accounted::approximate_dp(events, "privacy events of Algorithm 7")?;
        // Alg. 7, line 5: return x̂_{k̂}
        let x = runs[selected].x.clone();
        Ok(BoostedSgdRun { x, selected, runs, scores, scale_lambda: lambda, score_sensitivity: sensitivity, accounted })
    }
}
