//! The \[AFKT\] l1-geometry algorithms of a [`RunSpec`]: noisy mirror descent (Alg. 1), localized
//! noisy mirror descent (Alg. 2), private Frank–Wolfe (Alg. 3) and entropic mirror descent
//! (Alg. 4), resolved on a dataset.
//!
//! Rules (each refusal names the parameter): the domain is `l1:<r>` (mirror descent, Frank–Wolfe)
//! or `simplex` (Frank–Wolfe, entropic mirror descent); localized mirror descent takes its phase
//! schedule (k = `phases`, n_i, b_i, T_i) and Theorem 4's base step from the paper, so `steps`,
//! `sampling`, `batch_size` and `learning_rate` do not apply to it; `clip` is L, the bound
//! `‖∇f‖_∞ ≤ L` that the algorithms enforce per example; the relation is replace-one, the
//! paper's (the samplers they use — b without replacement, one permutation — are accounted under
//! it only). Frank–Wolfe is pure ε-DP (`epsilon` without `delta`; the approximate-DP variant is
//! refused) and sets its own step count `K = 2^{T+1} − 2`; entropic mirror descent makes no
//! privacy claim (`sigma` 0).
//!
//! Proof: proofs/run_spec.md (§ l1 algorithms).

use super::plan::{Job, RunModel, RunPlan, domain_text};
use super::{Algorithm, L1MirrorMap, Output, RunSpec, Sampling, refuse};
use crate::accounting::{Neighbouring, SamplingScheme};
use crate::data::Dataset;
use crate::error::Result;
use crate::geometry::Domain;
use crate::geometry::mirror::l1_geometry_exponent;
use crate::optim::RunSettings;
use crate::optim::l1::{
    EntropicSmdConfig, FrankWolfeConfig, FwPrivacy, Geometry, LocalizedConfig, LocalizedRun, MirrorMap,
    NoisyMirrorDescentConfig, Polytope,
};
use crate::optim::{ReleaseSummary, Run, SelectionMechanism};
use crate::sampling::BatchSampler;

impl RunSpec {
    /// Plans an l1-geometry run (the caller has checked the spec and built the GLM `model`).
    pub(super) fn l1_plan<'a>(&'a self, data: &'a Dataset, model: RunModel) -> Result<RunPlan<'a>> {
        let alg = self.algorithm;
        let RunModel::Glm(_) = &model else {
            unreachable!("invariant: RunSpec::model refuses `hidden` for the l1 algorithms")
        };
        if alg != Algorithm::EntropicMirrorDescent && self.neighbouring != Neighbouring::ReplaceOne {
            return Err(refuse(
                "neighbouring",
                format!(
                    "{} is accounted under `neighbouring` replace-one (the paper's relation; its samplers, b \
                     records without replacement or one permutation, have no add-remove accountant here)",
                    alg.name()
                ),
            ));
        }
        let lipschitz = self.clip.ok_or_else(|| {
            refuse("clip", format!("{} needs `clip` L, the bound on ‖∇f‖_∞ it enforces per example", alg.name()))
        })?;
        let n = data.n();
        let (job, steps, sampling) = match alg {
            Algorithm::NoisyMirrorDescent => self.mirror_descent_job(lipschitz, data)?,
            Algorithm::LocalizedMirrorDescent => self.localized_job(lipschitz, data)?,
            Algorithm::PrivateFrankWolfe => self.frank_wolfe_job(lipschitz, n)?,
            _ => self.entropic_job(n)?,
        };
        Ok(RunPlan { spec: self, data, model, job, steps, sampling })
    }

    /// \[AFKT\] Alg. 1: b records without replacement per step (Poisson also accepted), T steps
    /// (default `⌈n/b⌉²`, Theorem 3's `n²/b²`), η = `learning_rate`.
    fn mirror_descent_job(&self, lipschitz: f64, data: &Dataset) -> Result<(Job, u64, SamplingScheme)> {
        let radius = self.l1_radius()?;
        let n = data.n();
        let b = self.batch_size_in(n)?;
        let sampler = match self.sampling.unwrap_or(Sampling::WithoutReplacement) {
            Sampling::WithoutReplacement => BatchSampler::WithoutReplacement { batch_size: b },
            Sampling::Poisson => BatchSampler::poisson_expected(b, n)?,
            other => {
                return Err(refuse(
                    "sampling",
                    format!(
                        "noisy-mirror-descent samples without-replacement (default) or poisson, not {}",
                        sampling_name(other)
                    ),
                ));
            }
        };
        let steps = self.steps.unwrap_or_else(|| (n.div_ceil(b) as u64).saturating_pow(2));
        let map = match self.mirror_map.unwrap_or(L1MirrorMap::PNorm) {
            L1MirrorMap::PNorm => MirrorMap::PNorm { p: l1_geometry_exponent(data.d()) },
            L1MirrorMap::Entropic => MirrorMap::Entropic,
        };
        let settings = RunSettings::new(steps, sampler, self.privacy()?, self.neighbouring)?;
        let mut cfg = NoisyMirrorDescentConfig::new(radius, lipschitz, map, settings)?;
        cfg.step_size_eta = Some(self.learning_rate);
        cfg.output = self.averaged_output()?;
        Ok((Job::NoisyMirrorDescent(cfg), steps, sampler.scheme(n)))
    }

    /// \[AFKT\] Alg. 2: phases k (default ⌊log₂ n⌋) on fresh disjoint blocks, each Alg. 1 on the
    /// regularised F_i calibrated to (2^{−i}ε, δ); the run's ε is the sequential composition.
    fn localized_job(&self, lipschitz: f64, data: &Dataset) -> Result<(Job, u64, SamplingScheme)> {
        let radius = self.l1_radius()?;
        let learning_rate = ("learning_rate", self.learning_rate != RunSpec::DEFAULT_LEARNING_RATE);
        refuse_given(self.schedule_given().into_iter().chain([learning_rate]), |parameter| {
            format!(
                "localized-mirror-descent sets `{parameter}` itself (the phase schedule of [AFKT] Alg. 2 and \
                 Theorem 4's base step): give `phases` to change the number of phases"
            )
        })?;
        if self.output.is_some() {
            return Err(refuse("output", "localized-mirror-descent returns the last phase's output x_k"));
        }
        let mut cfg = LocalizedConfig::new(Geometry::L1, radius, lipschitz, self.privacy()?)?;
        cfg.phases_k = self.phases;
        let schedule = cfg.schedule(data.n(), data.d())?;
        let steps = schedule.iter().map(|phase| phase.steps_t_i).sum();
        Ok((Job::Localized(cfg), steps, SamplingScheme::Full))
    }

    /// \[AFKT\] Alg. 3: T phases (default: the largest T ≤ 4 whose smallest root batch fits), root
    /// batch b (default: the largest multiple of 2^T with `b(T + T(T+1)/4) ≤ n`), pure ε.
    fn frank_wolfe_job(&self, lipschitz: f64, n: usize) -> Result<(Job, u64, SamplingScheme)> {
        let polytope = match self.domain {
            Domain::L1Ball { radius } => Polytope::L1Ball { radius_r: radius },
            Domain::Simplex => Polytope::Simplex,
            ref other => return Err(self.domain_refused(other, "l1:<r> or simplex")),
        };
        let [steps, sampling, _] = self.schedule_given();
        refuse_given([steps, sampling], |parameter| {
            format!(
                "private-frank-wolfe sets `{parameter}` itself (one pass over a random permutation, K = 2^(T+1) \
                 - 2 steps): give `phases` and `batch_size`"
            )
        })?;
        if !matches!(self.output, None | Some(Output::Last)) {
            return Err(refuse("output", "private-frank-wolfe returns its last iterate: `output` last"));
        }
        let privacy = match (self.epsilon, self.delta, self.sigma) {
            (Some(epsilon), None, None) => FwPrivacy::Pure { epsilon },
            (Some(epsilon), Some(delta), None) => FwPrivacy::Approximate { epsilon, delta },
            (None, None, Some(0.0)) => FwPrivacy::NonPrivate,
            _ => {
                return Err(refuse(
                    "epsilon",
                    "private-frank-wolfe selects vertices with noise calibrated to `epsilon` (pure) or to \
                     `epsilon` and `delta` (Lemma 4.4's ledger), or runs without noise with `sigma` 0",
                ));
            }
        };
        // The samples a run of T phases with root batch b uses: b(T + T(T+1)/4).
        let budget = |t: u32| f64::from(t) + f64::from(t * (t + 1)) / 4.0;
        let phases = match self.phases {
            Some(t) => t,
            None => (1..=4).rev().find(|&t| budget(t) * f64::from(1u32 << t) <= n as f64).unwrap_or(1),
        };
        if phases > crate::optim::l1::frank_wolfe::MAX_PHASES {
            return Err(refuse("phases", format!("`phases` must be at most 40, got {phases}")));
        }
        let unit = 1usize << phases;
        let b = match self.batch_size {
            Some(b) => b,
            None => ((n as f64 / budget(phases)) as usize / unit * unit).max(unit),
        };
        let selection = self.selection.unwrap_or(SelectionMechanism::ReportNoisyMin);
        let cfg = FrankWolfeConfig::new(phases, b, lipschitz, polytope, selection, privacy)?;
        if cfg.samples_needed() > n {
            return Err(refuse(
                "batch_size",
                format!(
                    "private-frank-wolfe with `phases` {phases} and `batch_size` {b} uses {} samples, more than \
                     the n = {n} available (b(T + T(T+1)/4) <= n)",
                    cfg.samples_needed()
                ),
            ));
        }
        let steps = cfg.steps_k();
        Ok((Job::FrankWolfe(cfg), steps, SamplingScheme::Full))
    }

    /// \[AFKT\] Alg. 4 on the simplex: R passes (default 1), η = `learning_rate`, no privacy claim.
    fn entropic_job(&self, n: usize) -> Result<(Job, u64, SamplingScheme)> {
        if self.domain != Domain::Simplex {
            return Err(self.domain_refused(&self.domain, "simplex"));
        }
        if self.epsilon.is_some() || self.sigma != Some(0.0) {
            return Err(refuse(
                "sigma",
                "entropic-mirror-descent is the non-private reference ([AFKT] Alg. 4): give `sigma` 0 and no \
                 `epsilon`",
            ));
        }
        refuse_given(self.schedule_given(), |parameter| {
            format!(
                "entropic-mirror-descent takes one example per step over `rounds` passes (T = rounds * n): \
                 `{parameter}` does not apply"
            )
        })?;
        let rounds = self.rounds.unwrap_or(1);
        let mut cfg = EntropicSmdConfig::new(rounds, self.learning_rate)?;
        cfg.output = self.averaged_output()?;
        let steps = rounds.checked_mul(n as u64).ok_or_else(|| refuse("rounds", "`rounds` * n overflows"))?;
        Ok((Job::EntropicSmd(cfg), steps, SamplingScheme::Full))
    }

    /// R of `domain` l1:<R>.
    fn l1_radius(&self) -> Result<f64> {
        match self.domain {
            Domain::L1Ball { radius } => Ok(radius),
            ref other => Err(self.domain_refused(other, "l1:<r>")),
        }
    }

    fn domain_refused(&self, domain: &Domain, allowed: &str) -> crate::Error {
        refuse(
            "domain",
            format!("`domain` must be {allowed} for {}, got '{}'", self.algorithm.name(), domain_text(domain)),
        )
    }

    /// Whether each of `steps`, `sampling` and `batch_size` (the batch schedule) is given.
    fn schedule_given(&self) -> [(&'static str, bool); 3] {
        [
            ("steps", self.steps.is_some()),
            ("sampling", self.sampling.is_some()),
            ("batch_size", self.batch_size.is_some()),
        ]
    }

    /// `batch_size` (default min(n, 64)), in 1..=n.
    fn batch_size_in(&self, n: usize) -> Result<usize> {
        let b = self.batch_size.unwrap_or(n.min(64));
        if b == 0 || b > n {
            return Err(refuse(
                "batch_size",
                format!("`batch_size` must be between 1 and the dataset size n = {n}, got {b}"),
            ));
        }
        Ok(b)
    }
}

/// Refuses the first given parameter of `given` (name, given) with the message `why(name)`: for
/// an algorithm that sets those parameters itself.
fn refuse_given(given: impl IntoIterator<Item = (&'static str, bool)>, why: impl Fn(&str) -> String) -> Result<()> {
    match given.into_iter().find(|&(_, given)| given) {
        Some((parameter, _)) => Err(refuse(parameter, why(parameter))),
        None => Ok(()),
    }
}

fn sampling_name(s: Sampling) -> &'static str {
    match s {
        Sampling::Poisson => "poisson",
        Sampling::WithoutReplacement => "without-replacement",
        Sampling::WithReplacement => "with-replacement",
        Sampling::Full => "full",
    }
}

/// A localized run as a [`Run`]: x = x_last = x_k, the steps of every phase, the executed events
/// and their sequential privacy reading.
pub(super) fn localized_run(localized: LocalizedRun) -> Run {
    let steps = localized.phases.iter().map(|record| record.run.steps).sum();
    let releases = localized.phases.iter().map(|record| record.run.releases).sum();
    let neighbouring = (!localized.events.is_empty()).then_some(localized.neighbouring);
    let summary = ReleaseSummary { events: localized.events, privacy: localized.privacy, releases, neighbouring };
    Run::new(localized.x.clone(), localized.x, steps, summary)
}
