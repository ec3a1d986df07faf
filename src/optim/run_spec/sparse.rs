//! The \[GGKKM\] sparse-gradient runs of `dpref run`, on compressed sparse rows: `sparse-sgd`
//! (Algorithm 6, bias-reduced SGD with the privacy filter) and `sparse-boosted-sgd` (Algorithm 7,
//! K runs of Algorithm 6 and a private selection), specified as plain data ([`SparseRunSpec`]).
//!
//! Rules (each refusal is an [`crate::Error::RunSpec`] naming the parameter in backticks): ε ∈ (0, 1]
//! and δ ∈ (0, 1) (Lemma 6.3's amplification and the Gaussian calibration need ε ≤ 1; the filter
//! needs δ > 0); the loss is logistic, hinge or absolute, whose |ℓ′| ≤ 1 makes a row z_i with
//! `‖z_i‖₀ ≤ s` and `‖z_i‖₂ ≤ L` give gradients `ℓ′·z_i ∈ S_s^d` at **every** point, so every row
//! is checked before any noise is drawn and the first row outside is refused by its index (the
//! squared loss's ℓ′ is unbounded: refused); x⁰ = 0 must lie in X (the simplex is refused);
//! `beta`, `score` and `scale` belong to the boosted run only. The step size is given, or
//! Thm. 6.7's `D/(ν√τ)` (convex, bounded X) or Thm. 6.8's `√(Γ/(Hτν²))` (nonconvex), with
//! τ = C′n/ln(2/δ) at C′ = 0.25 and ν² = 4L² + 4a + 12(M+1)a, Lemma 6.4's explicit second moment
//! for Algorithm 1's Gaussian `a` at each call's (ε/32, δ/16) (ε, δ: one run's budget).
//!
//! The privacy reported is the approximate-DP accountant's reading of the events the run
//! executed (the library runs' [`PrivacyReport`]), replace-one, never the request.
//!
//! Proof: proofs/run_spec.md (§ sparse-gradient runs).

use super::{RunLoss, refuse};
use crate::bounds::sparse::{lemma64_alg1_constant_gaussian, lemma64_second_moment_bound};
use crate::data::sparse::SparseDataset;
use crate::error::Result;
use crate::geometry::Domain;
use crate::loss::Loss;
use crate::model::{Evaluation, GradientOracle, SparseGlm};
use crate::optim::sparse::{
    Accounted, BiasReducedSgdConfig, BiasReducedSgdRun, BoostedSgdConfig, Convexity, SelectionScale, SelectionScore,
    StoppingRule, convex_step_size, horizon_tau, nonconvex_step_size, truncation_m,
};
use crate::optim::{EventLog, NoTrace, PrivacyReport};
use crate::rng::Seeds;

/// C′ of τ = C′n/ln(2/δ) (P[T ≤ τ] ≤ 1/4 at 0.25 in simulation: proofs/sparse/bias_reduced_sgd.md §4).
pub const HORIZON_C_PRIME: f64 = 0.25;

/// Which \[GGKKM\] algorithm.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SparseAlgorithm {
    /// Algorithm 6 (`sparse-sgd`).
    BiasReducedSgd,
    /// Algorithm 7 (`sparse-boosted-sgd`).
    BoostedSgd,
}

impl SparseAlgorithm {
    /// The CLI name.
    pub fn name(self) -> &'static str {
        match self {
            SparseAlgorithm::BiasReducedSgd => "sparse-sgd",
            SparseAlgorithm::BoostedSgd => "sparse-boosted-sgd",
        }
    }
}

/// How η is chosen.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SparseStepSize {
    /// η as given.
    Fixed(f64),
    /// Thm. 6.7 (convex): η = D/(ν√τ), D the ℓ2 diameter of a bounded X.
    Theorem67,
    /// Thm. 6.8 (nonconvex): η = min(√(Γ/(Hτν²)), 1/(2H)).
    Theorem68 {
        /// Γ ≥ F_S(x⁰) − F_S(x*).
        gap_gamma: f64,
        /// H, the smoothness of f(·, z).
        smoothness_h: f64,
    },
}

/// One `sparse-sgd` or `sparse-boosted-sgd` run, besides the data.
#[derive(Debug, Clone, PartialEq)]
pub struct SparseRunSpec {
    /// The algorithm.
    pub algorithm: SparseAlgorithm,
    /// The loss (logistic, hinge or absolute).
    pub loss: RunLoss,
    /// Total ε ∈ (0, 1].
    pub epsilon: f64,
    /// Total δ ∈ (0, 1).
    pub delta: f64,
    /// L > 0: the ℓ2 bound of every per-example gradient.
    pub l2_bound: f64,
    /// s ≥ 1: their sparsity.
    pub sparsity: usize,
    /// η.
    pub step_size: SparseStepSize,
    /// X (x⁰ = 0 must lie in it).
    pub domain: Domain,
    /// Convex (averaged output) or nonconvex (uniform iterate).
    pub convexity: Convexity,
    /// Algorithm 6's stopping rule.
    pub stopping: StoppingRule,
    /// `sparse-boosted-sgd` only: Algorithm 7's settings.
    pub boosting: SparseBoosting,
    /// Seed of all randomness.
    pub seed: u64,
}

/// The settings of `sparse-boosted-sgd` (\[GGKKM\] Algorithm 7); all `None` for `sparse-sgd`.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct SparseBoosting {
    /// The failure probability β ∈ (0, 1), K = ⌈log₂(2/β)⌉ (default 1/2: K = 2).
    pub beta: Option<f64>,
    /// The selection score (default: F_S for convex, which needs B; ‖∇F_S‖₂ for nonconvex).
    pub score: Option<SelectionScore>,
    /// The reading of the Laplace scale (default corrected).
    pub scale: Option<SelectionScale>,
}

/// What one Algorithm 6 run did.
#[derive(Debug, Clone, PartialEq)]
pub struct SparseSgdStats {
    /// T + 1, the steps executed.
    pub steps: u64,
    /// The steps under the filter.
    pub filtered_steps: usize,
    /// Per-example gradients evaluated, over all steps.
    pub examples_touched: usize,
}

impl SparseSgdStats {
    fn of(run: &BiasReducedSgdRun) -> Self {
        SparseSgdStats {
            steps: run.steps,
            filtered_steps: run.filtered_steps,
            examples_touched: run.examples_touched.iter().sum(),
        }
    }
}

/// The boosted run's selection.
#[derive(Debug, Clone, PartialEq)]
pub struct SparseSelection {
    /// k̂ (0-based).
    pub selected: usize,
    /// The K candidates' scores.
    pub scores: Vec<f64>,
    /// λ.
    pub scale_lambda: f64,
}

/// What a sparse run returns.
#[derive(Debug, Clone, PartialEq)]
pub struct SparseRunOutcome {
    /// The output point.
    pub x: Vec<f64>,
    /// Mean training loss (and accuracy for classifiers) at `x`.
    pub evaluation: Evaluation,
    /// The accountant's (ε, δ) of the executed events.
    pub privacy: PrivacyReport,
    /// The executed events (every Algorithm 6 run's `Composed[PrivacyFilter, …]`, then the
    /// boosted selection's), so that `privacy` can be re-derived by the caller.
    pub events: EventLog,
    /// η used.
    pub step_size: f64,
    /// Each Algorithm 6 run (one for `sparse-sgd`, K for boosting).
    pub runs: Vec<SparseSgdStats>,
    /// The boosted run's selection.
    pub selection: Option<SparseSelection>,
    /// n.
    pub n: usize,
    /// d.
    pub d: usize,
}

impl SparseRunSpec {
    /// `algorithm` with `loss` at (ε, δ), L, s; η = 0.1, unconstrained, convex, the paper's
    /// stopping rule, boosting defaults, seed 0.
    pub fn new(
        algorithm: SparseAlgorithm,
        loss: RunLoss,
        epsilon: f64,
        delta: f64,
        l2_bound: f64,
        sparsity: usize,
    ) -> Self {
        SparseRunSpec {
            algorithm,
            loss,
            epsilon,
            delta,
            l2_bound,
            sparsity,
            step_size: SparseStepSize::Fixed(super::RunSpec::DEFAULT_LEARNING_RATE),
            domain: Domain::Unconstrained,
            convexity: Convexity::Convex,
            stopping: StoppingRule::Lagged,
            boosting: SparseBoosting::default(),
            seed: 0,
        }
    }

    /// The data-free checks (see the module doc); returns the GLM loss of `loss`.
    ///
    /// # Errors
    /// [`crate::Error::RunSpec`] naming the parameter.
    pub fn check(&self) -> Result<Loss> {
        let name = self.algorithm.name();
        if !(self.epsilon > 0.0 && self.epsilon <= 1.0) {
            return Err(refuse(
                "epsilon",
                format!(
                    "{name} needs `epsilon` in (0, 1] (Lemma 6.3 and the Gaussian calibration), got {}",
                    self.epsilon
                ),
            ));
        }
        if !(self.delta > 0.0 && self.delta < 1.0) {
            return Err(refuse(
                "delta",
                format!(
                    "{name} needs `delta` in (0, 1) (the privacy filter has no stopping rule at 0), got {}",
                    self.delta
                ),
            ));
        }
        let loss = match self.loss {
            RunLoss::Logistic => Loss::Logistic,
            RunLoss::Hinge => Loss::Hinge,
            RunLoss::Absolute => Loss::Absolute,
            other => {
                return Err(refuse(
                    "loss",
                    format!(
                        "{name} takes `loss` logistic, hinge or absolute (|l'| <= 1, so rows in S_s^d give gradients \
                         in S_s^d at every point), not {}",
                        other.name()
                    ),
                ));
            }
        };
        if !(self.l2_bound.is_finite() && self.l2_bound > 0.0) {
            return Err(refuse("l2_bound", format!("`l2_bound` must be > 0 and finite, got {}", self.l2_bound)));
        }
        if self.sparsity == 0 {
            return Err(refuse("sparsity", "`sparsity` must be >= 1, got 0"));
        }
        if matches!(self.domain, Domain::Simplex) {
            return Err(refuse("domain", format!("{name} starts at x0 = 0, which must lie in `domain`: not simplex")));
        }
        if self.algorithm == SparseAlgorithm::BiasReducedSgd {
            let b = &self.boosting;
            for (parameter, given) in [
                ("beta", b.beta.is_some()),
                ("selection_score", b.score.is_some()),
                ("selection_scale", b.scale.is_some()),
            ] {
                if given {
                    return Err(refuse(parameter, format!("`{parameter}` applies to sparse-boosted-sgd only")));
                }
            }
        }
        if self.algorithm == SparseAlgorithm::BoostedSgd
            && self.boosting.score.is_none()
            && self.convexity == Convexity::Convex
        {
            return Err(refuse(
                "selection_score",
                "sparse-boosted-sgd on a convex objective selects by F_S, which needs the range B of the loss: give \
                 `selection_score` (the risk with its range B, or the gradient norm)",
            ));
        }
        match (self.step_size, self.convexity) {
            (SparseStepSize::Fixed(eta), _) if !(eta.is_finite() && eta > 0.0) => {
                Err(refuse("learning_rate", format!("`learning_rate` must be > 0 and finite, got {eta}")))
            }
            (SparseStepSize::Theorem67, Convexity::Nonconvex)
            | (SparseStepSize::Theorem68 { .. }, Convexity::Convex) => Err(refuse(
                "step_size",
                "`step_size` theorem follows `objective`: Thm. 6.7 is convex, Thm. 6.8 nonconvex",
            )),
            (SparseStepSize::Theorem67, _) if !self.domain.diameter_l2(1).is_finite() => Err(refuse(
                "step_size",
                "Thm. 6.7's step D/(nu sqrt(tau)) needs a bounded `domain` (its diameter D): give `learning_rate` instead",
            )),
            _ => Ok(loss),
        }
    }

    /// Checks the spec and every row of `data`, then runs it from x⁰ = 0.
    ///
    /// # Errors
    /// As [`SparseRunSpec::check`]; [`crate::Error::RunSpec`] naming the first row outside `S_s^d`
    /// (parameter `sparsity` or `l2_bound`); the algorithm's own errors.
    pub fn run(&self, data: &SparseDataset) -> Result<SparseRunOutcome> {
        let loss = self.check()?;
        let glm = SparseGlm { loss, data };
        let (n, d) = (data.n(), data.d());
        let x0 = vec![0.0; d];
        glm.validate(&x0)?;
        self.check_rows(data)?;
        let seeds = Seeds::new(self.seed);
        let (outcome_x, accounted, eta, runs, selection) = match self.algorithm {
            SparseAlgorithm::BiasReducedSgd => {
                let cfg = self.base_config(n, d, 1)?;
                let run = cfg.run(glm, &x0, seeds, &mut NoTrace)?;
                let stats = vec![SparseSgdStats::of(&run)];
                (run.x, run.accounted, cfg.step_size_eta, stats, None)
            }
            SparseAlgorithm::BoostedSgd => {
                // `check` refused a convex run without a score
                let score = self.boosting.score.unwrap_or(SelectionScore::GradientNorm);
                let runs_k = crate::bounds::sparse::theorem71_runs(self.boosting.beta.unwrap_or(0.5))?;
                let base = self.base_config(n, d, runs_k + 1)?;
                let eta = base.step_size_eta;
                let cfg = BoostedSgdConfig::new(base, self.boosting.beta.unwrap_or(0.5), score)?
                    .with_scale(self.boosting.scale.unwrap_or_default());
                let run = cfg.run(glm, &x0, seeds)?;
                let stats = run.runs.iter().map(SparseSgdStats::of).collect();
                let selection =
                    SparseSelection { selected: run.selected, scores: run.scores, scale_lambda: run.scale_lambda };
                (run.x, run.accounted, eta, stats, Some(selection))
            }
        };
        let evaluation = glm.evaluate(&outcome_x)?;
        let Accounted { events, privacy } = accounted;
        Ok(SparseRunOutcome { x: outcome_x, evaluation, privacy, events, step_size: eta, runs, selection, n, d })
    }

    /// Every row z_i has `‖z_i‖₀ ≤ s` and `‖z_i‖₂ ≤ L` (then `ℓ′·z_i ∈ S_s^d` for |ℓ′| ≤ 1).
    fn check_rows(&self, data: &SparseDataset) -> Result<()> {
        for i in 0..data.n() {
            let (_, values) = data.row(i);
            let nnz = values.iter().filter(|v| **v != 0.0).count();
            if nnz > self.sparsity {
                return Err(refuse(
                    "sparsity",
                    format!(
                        "row {i} has {nnz} non-zeros, more than `sparsity` s = {}: its gradients leave S_s^d",
                        self.sparsity
                    ),
                ));
            }
            let norm = crate::linalg::norm_l2(values);
            if norm > self.l2_bound {
                return Err(refuse(
                    "l2_bound",
                    format!(
                        "row {i} has l2 norm {norm}, more than `l2_bound` L = {}: its gradients leave S_s^d",
                        self.l2_bound
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Algorithm 6 at the total (ε, δ), with η for one run at (ε/share, δ/share) (share = K + 1 for
    /// boosting, whose runs each get that budget).
    fn base_config(&self, n: usize, d: usize, share: u64) -> Result<BiasReducedSgdConfig> {
        let eta = match self.step_size {
            SparseStepSize::Fixed(eta) => eta,
            theorem => {
                let (epsilon, delta) = (self.epsilon / share as f64, self.delta / share as f64);
                let tau = horizon_tau(HORIZON_C_PRIME, n, delta)?;
                let nu = self.second_moment_nu(n, d, epsilon, delta)?;
                match theorem {
                    SparseStepSize::Theorem68 { gap_gamma, smoothness_h } => {
                        nonconvex_step_size(gap_gamma, smoothness_h, nu, tau)?
                    }
                    _ => convex_step_size(self.domain.diameter_l2(d), nu, tau)?,
                }
            }
        };
        let cfg = BiasReducedSgdConfig::new(
            self.l2_bound,
            self.sparsity,
            self.epsilon,
            self.delta,
            eta,
            self.domain.clone(),
            self.convexity,
        )?;
        Ok(cfg.with_stopping(self.stopping))
    }

    /// ν of Lemma 6.4 (explicit): ν² = 4L² + 4a + 12(M+1)a, a of Algorithm 1 (Gaussian) at each
    /// call's (ε/32, δ/16), M = ⌊log₂ n⌋ − 1 (passed as the power of two 2^{M+1} ≤ n, which the
    /// bound function reads M from).
    fn second_moment_nu(&self, n: usize, d: usize, epsilon: f64, delta: f64) -> Result<f64> {
        let s = self.sparsity.min(d) as u64;
        let a = lemma64_alg1_constant_gaussian(self.l2_bound, s, d as u64, epsilon / 32.0, delta / 16.0)?;
        let m = truncation_m(n)?;
        let nu2 = lemma64_second_moment_bound(self.l2_bound, a, 1u64 << (m + 1))?;
        Ok(nu2.sqrt())
    }
}
