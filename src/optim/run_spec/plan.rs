//! Resolving a [`RunSpec`] on a dataset ([`RunSpec::plan`]) and running it ([`RunPlan::execute`]).
//!
//! Proof: proofs/run_spec.md.

use super::{Ablation, Algorithm, Ellipsoid, Output, RunLoss, RunSpec, Sampling, Variant, invalid, refuse};
use crate::accounting::{Neighbouring, SamplingScheme};
use crate::data::Dataset;
use crate::error::{Result, display_number};
use crate::geometry::Domain;
use crate::model::{Evaluation, Glm, Mlp, Model};
use crate::optim::RunSettings;
use crate::optim::adaptive_noise::AdaptiveNoiseConfig;
use crate::optim::dp_sgd::DpSgdConfig;
use crate::optim::dp2::algorithm1::{Dp2Config, NoiseOrder};
use crate::optim::dpagd::Moments;
use crate::optim::dpagd::algorithm1::{Algorithm1Config, Algorithm1Output};
use crate::optim::dpagd::minibatch::{MinibatchConfig, Update};
use crate::optim::{Observer, OutputPoint, Privacy, Run};
use crate::rng::Seeds;
use crate::sampling::BatchSampler;

/// The model a run trains: a GLM loss, or an MLP (the \[ZCHWB\] and DP² families with `hidden`).
#[derive(Debug, Clone)]
pub(super) enum RunModel {
    Glm(Glm),
    Mlp(Mlp),
}

/// The algorithm's configuration, built and checked before any randomness is drawn.
#[derive(Debug, Clone)]
pub(super) enum Job {
    DpSgd(DpSgdConfig),
    AdaptiveNoise(AdaptiveNoiseConfig),
    Minibatch(MinibatchConfig),
    Algorithm1(Algorithm1Config),
    Dp2(Dp2Config),
    NoisyMirrorDescent(crate::optim::l1::NoisyMirrorDescentConfig),
    Localized(crate::optim::l1::LocalizedConfig),
    FrankWolfe(crate::optim::l1::FrankWolfeConfig),
    EntropicSmd(crate::optim::l1::EntropicSmdConfig),
}

/// A [`RunSpec`] resolved on a dataset: every default filled in and every rule checked.
#[derive(Debug, Clone)]
pub struct RunPlan<'a> {
    pub(super) spec: &'a RunSpec,
    pub(super) data: &'a Dataset,
    pub(super) model: RunModel,
    pub(super) job: Job,
    /// The number of steps T the run will take.
    pub steps: u64,
    /// The batch sampling scheme, as the accountant sees it.
    pub sampling: SamplingScheme,
}

/// What a run returns: the [`Run`] (output point, events, privacy report) and the output point's
/// training loss and accuracy.
#[derive(Debug, Clone)]
pub struct RunOutcome {
    /// The algorithm's run.
    pub run: Run,
    /// Mean training loss and accuracy (classifiers) at `run.x`.
    pub evaluation: Evaluation,
    /// The batch sampling scheme.
    pub sampling: SamplingScheme,
    /// The neighbouring relation of the privacy claim.
    pub neighbouring: Neighbouring,
    /// The number of examples n.
    pub n: usize,
    /// The number of features d.
    pub d: usize,
}

impl RunSpec {
    /// Resolves and checks the spec on `data`, then runs it (no trace).
    ///
    /// # Errors
    /// As [`RunSpec::plan`], then the algorithm's own errors.
    pub fn run(&self, data: &Dataset) -> Result<RunOutcome> {
        self.plan(data)?.execute(&mut crate::optim::NoTrace)
    }

    /// Resolves the defaults on `data` (steps, sampler, batch size, noise) and checks every rule
    /// ([`RunSpec::check`], then the model, the labels, the domain and the variant).
    ///
    /// # Errors
    /// [`crate::Error::RunSpec`] naming the parameter at fault; the library's errors for bad labels
    /// or an unreadable ellipsoid file.
    pub fn plan<'a>(&'a self, data: &'a Dataset) -> Result<RunPlan<'a>> {
        self.check()?;
        let alg = self.algorithm;
        let model = self.model(data)?;
        if let RunModel::Glm(glm) = &model {
            glm.loss.check_labels(data)?;
        }
        if alg.is_l1() {
            return self.l1_plan(data, model);
        }
        let n = data.n();
        if alg.is_dpagd() || alg.is_dp2() {
            if self.domain != Domain::Unconstrained {
                return Err(refuse(
                    "domain",
                    format!(
                        "`domain` must be none for {} (an unconstrained optimiser), got '{}'",
                        alg.name(),
                        domain_text(&self.domain)
                    ),
                ));
            }
        } else if self.variant == Variant::Paper {
            return Err(refuse("variant", "`variant` paper applies to dp-gd, dp-rmsprop and dp-adam"));
        }
        let sampling = match (self.variant, self.sampling) {
            (Variant::Paper, None | Some(Sampling::Full)) => Sampling::Full,
            (Variant::Paper, Some(_)) => {
                return Err(refuse(
                    "sampling",
                    "`variant` paper is full batch (Algorithm 1): use `sampling` full or leave it out",
                ));
            }
            (Variant::Minibatch, s) => s.unwrap_or(Sampling::Poisson),
        };
        if self.batch_size.is_some_and(|b| b == 0 || b > n) {
            return Err(refuse(
                "batch_size",
                format!(
                    "`batch_size` must be between 1 and the dataset size n = {n}, got {}",
                    self.batch_size.unwrap_or(0)
                ),
            ));
        }
        let b = self.batch_size.unwrap_or(n.min(64));
        let sampler = match sampling {
            Sampling::Poisson => BatchSampler::poisson_expected(b, n)?,
            Sampling::WithoutReplacement => BatchSampler::WithoutReplacement { batch_size: b },
            Sampling::WithReplacement => BatchSampler::WithReplacement { batch_size: b },
            Sampling::Full => {
                if self.batch_size.is_some_and(|b| b != n) {
                    return Err(refuse(
                        "batch_size",
                        format!("`batch_size` must equal the dataset size n = {n} with `sampling` full, got {b}"),
                    ));
                }
                BatchSampler::Full
            }
        };
        sampler.validate(n)?;
        // The batch size is the public normaliser b of every noisy sum (given or defaulted, it
        // does not move when one record is added or removed); full batch without `batch_size`
        // reads n from the data, which add/remove runs refuse (`check`).
        let batch_size_b = match sampling {
            Sampling::Full if self.batch_size.is_none() => None,
            _ => Some(b as f64),
        };
        let steps = match self.steps {
            Some(t) => t,
            None => n.div_ceil(sampler.expected_batch_size(n).max(1.0) as usize).max(1) as u64,
        };
        let privacy = self.privacy()?;
        let common = Common { sampler, batch_size_b, steps, privacy };
        let job = if alg.is_dp2() {
            Job::Dp2(self.dp2_config(&common)?)
        } else if alg.is_dpagd() {
            self.dpagd_job(&common, data)?
        } else {
            self.sgd_job(&common, data.d())?
        };
        Ok(RunPlan { spec: self, data, model, job, steps, sampling: sampler.scheme(n) })
    }

    /// The GLM of `loss`, or the MLP of `hidden`.
    fn model(&self, data: &Dataset) -> Result<RunModel> {
        let is_ce = self.loss == RunLoss::CrossEntropy;
        if is_ce || !self.hidden.is_empty() {
            let alg = self.algorithm;
            if !(alg.is_dpagd() || alg.is_dp2()) {
                let (parameter, what) = if is_ce { ("loss", "`loss` cross-entropy") } else { ("hidden", "`hidden`") };
                return Err(refuse(
                    parameter,
                    format!(
                        "{what} (a softmax network) is available for dp-gd, dp-rmsprop, dp-adam, dp-adagrad and \
                         dp2-*, not {}",
                        alg.name()
                    ),
                ));
            }
            if !is_ce {
                return Err(refuse(
                    "loss",
                    format!(
                        "`hidden` trains a softmax network: pass `loss` cross-entropy, not `loss` {}",
                        self.loss.name()
                    ),
                ));
            }
            if self.hidden.is_empty() {
                return Err(refuse(
                    "hidden",
                    "`loss` cross-entropy needs `hidden`, the hidden layer widths of the network (e.g. `hidden` 128,128)",
                ));
            }
            if self.hidden.contains(&0) {
                return Err(refuse("hidden", "every width in `hidden` must be at least 1"));
            }
            let max = data.labels().iter().copied().fold(0.0, f64::max);
            let classes = if max.fract() == 0.0 && max < 1e6 { max as usize + 1 } else { 0 };
            let classes = classes.max(2);
            let limit = crate::model::mlp::MAX_PARAMETERS;
            match Mlp::parameter_count(data.d(), &self.hidden, classes) {
                Some(p) if p <= limit => {}
                p => {
                    let count = p.map_or_else(|| "more than 2^64".to_string(), |p| p.to_string());
                    return Err(refuse(
                        "hidden",
                        format!(
                            "`hidden` gives a network of {count} parameters (input dimension d = {}, K = {classes} \
                             classes); the limit is {limit} (2^24)",
                            data.d()
                        ),
                    ));
                }
            }
            return Ok(RunModel::Mlp(Mlp::new(data.d(), &self.hidden, classes)?));
        }
        let loss = match self.loss {
            RunLoss::Absolute => crate::loss::Loss::Absolute,
            RunLoss::Squared => crate::loss::Loss::Squared,
            RunLoss::Logistic => crate::loss::Loss::Logistic,
            RunLoss::Hinge => crate::loss::Loss::Hinge,
            RunLoss::CrossEntropy => unreachable!("invariant: handled above"),
        };
        Ok(RunModel::Glm(Glm::new(loss, data.d())?))
    }

    /// The noise: a target (ε, δ), a given σ, or (PASAN/PAGAN) the papers' σ for (ε, δ).
    pub(super) fn privacy(&self) -> Result<Privacy> {
        Ok(match (self.epsilon, self.delta, self.sigma, self.paper_noise) {
            (Some(e), Some(delta), None, false) => Privacy::Target { epsilon: e, delta },
            (Some(e), Some(delta), None, true) => {
                if !self.algorithm.is_adaptive_noise() {
                    return Err(refuse(
                        "paper_noise",
                        format!("`paper_noise` applies to pasan and pagan, not {}", self.algorithm.name()),
                    ));
                }
                let z = crate::optim::adaptive_noise::paper_noise_multiplier(e, delta)?;
                Privacy::NoiseMultiplier { sigma: z, report_delta: Some(delta) }
            }
            (None, report_delta, Some(s), false) => Privacy::NoiseMultiplier { sigma: s, report_delta },
            (Some(_), None, _, _) => {
                return Err(refuse("delta", "`epsilon` needs `delta` (the target is (epsilon, delta)-DP)"));
            }
            (Some(_), _, Some(_), _) => {
                return Err(refuse(
                    "sigma",
                    "`epsilon` and `sigma` were both given: `epsilon`/`delta` calibrate the noise multiplier, \
                     `sigma` sets it; give one",
                ));
            }
            (None, _, None, _) => {
                return Err(refuse(
                    "sigma",
                    "the noise is missing: give `epsilon` with `delta` (calibrated), or `sigma` (0 for a \
                     non-private run)",
                ));
            }
            (None, _, Some(_), true) => {
                return Err(refuse(
                    "paper_noise",
                    "`paper_noise` derives the noise from `epsilon`/`delta`: drop `sigma`",
                ));
            }
        })
    }

    /// `output` average0 (default), average1 or last.
    pub(super) fn averaged_output(&self) -> Result<OutputPoint> {
        Ok(match self.output.unwrap_or(Output::Average0) {
            Output::Average0 => OutputPoint::AverageFromZero,
            Output::Average1 => OutputPoint::AverageFromOne,
            Output::Last => OutputPoint::Last,
            Output::Random => {
                return Err(refuse(
                    "output",
                    format!(
                        "`output` random is the [ZCHWB] `variant` paper output; {} takes average0, average1 or last",
                        self.algorithm.name()
                    ),
                ));
            }
        })
    }

    /// The clip radius (∞: no clipping).
    fn clip_radius(&self) -> f64 {
        self.clip.unwrap_or(f64::INFINITY)
    }

    /// DP-SGD, PASAN or PAGAN.
    fn sgd_job(&self, c: &Common, d: usize) -> Result<Job> {
        let output = self.averaged_output()?;
        let clip = self.clip_radius();
        if self.algorithm == Algorithm::DpSgd {
            let mut cfg = DpSgdConfig::new(self.learning_rate, clip, c.settings(self.neighbouring)?)?;
            cfg.domain = self.domain.clone();
            cfg.output = output;
            return Ok(Job::DpSgd(cfg));
        }
        let mut cfg = AdaptiveNoiseConfig::new(d, self.learning_rate, clip, c.settings(self.neighbouring)?)?;
        cfg.ellipsoid_c = ellipsoid_diagonal(self.ellipsoid.as_ref().unwrap_or(&Ellipsoid::Identity), d)?;
        cfg.projection = self.projection.unwrap_or_default();
        cfg.domain = self.domain.clone();
        cfg.output = output;
        Ok(Job::AdaptiveNoise(cfg))
    }

    /// The \[ZCHWB\] optimisers: the minibatch form or Algorithm 1 (`variant`).
    fn dpagd_job(&self, c: &Common, data: &Dataset) -> Result<Job> {
        let alg = self.algorithm;
        let default_beta2 = if alg == Algorithm::DpAdam { 0.999 } else { 0.99 };
        let beta2 = self.beta2.unwrap_or(default_beta2);
        let beta1 = self.beta1.unwrap_or(0.9);
        let clip = self.clip_radius();
        let lambda_text = || self.lambda.map_or("none".to_string(), super::value_text);
        match self.variant {
            Variant::Minibatch => {
                if self.lambda.is_some() {
                    return Err(invalid(
                        "lambda",
                        lambda_text(),
                        "used with `variant` paper (PyTorch's optimisers have no cap)",
                    ));
                }
                if self.bias_correction.is_some() && alg != Algorithm::DpAdam {
                    return Err(invalid("bias_correction", alg.name(), "used with dp-adam"));
                }
                let eps = self.nu.unwrap_or(1e-8);
                let update = match alg {
                    Algorithm::DpGd => Update::Sgd,
                    Algorithm::DpRmsprop => Update::RmsProp { alpha: beta2, eps },
                    Algorithm::DpAdagrad => Update::AdaGrad { eps },
                    _ => Update::Adam { beta1, beta2, eps, bias_correction: self.bias_correction.unwrap_or(true) },
                };
                let mut cfg = MinibatchConfig::new(update, self.learning_rate, clip, c.settings(self.neighbouring)?)?;
                cfg.output = match self.output.unwrap_or(Output::Last) {
                    Output::Average0 => OutputPoint::AverageFromZero,
                    Output::Average1 => OutputPoint::AverageFromOne,
                    Output::Last => OutputPoint::Last,
                    Output::Random => {
                        return Err(invalid("output", "random", "average0, average1 or last with `variant` minibatch"));
                    }
                };
                Ok(Job::Minibatch(cfg))
            }
            Variant::Paper => {
                if self.bias_correction == Some(true) {
                    return Err(invalid(
                        "bias_correction",
                        "true",
                        "false with `variant` paper (Algorithm 1 has none)",
                    ));
                }
                let moments = match alg {
                    Algorithm::DpGd => Moments::Gd,
                    Algorithm::DpRmsprop => Moments::RmsProp { beta2 },
                    Algorithm::DpAdam => Moments::Adam { beta1, beta2 },
                    _ => return Err(invalid("variant", "paper", "minibatch for dp-adagrad ([ZCHWB] has no AdaGrad)")),
                };
                // The paper's sigma is an absolute std on the mean gradient: sigma_abs = s*G/n for
                // the noise multiplier s (std / clip on the sum), n the public size.
                let noise = match c.privacy {
                    target @ Privacy::Target { .. } => target,
                    Privacy::NoiseMultiplier { sigma, report_delta } => {
                        let n = c.batch_size_b.unwrap_or(data.n() as f64);
                        let std = if clip.is_finite() { sigma * clip / n } else { sigma / n };
                        // an underflowed std would run without noise and without a claim, silently
                        if std == 0.0 && sigma > 0.0 {
                            return Err(invalid(
                                "sigma",
                                sigma,
                                "large enough that sigma * clip / n, the paper's std on the mean, does not underflow to 0",
                            ));
                        }
                        Privacy::StdOnMean { std, report_delta }
                    }
                    on_mean @ Privacy::StdOnMean { .. } => on_mean,
                };
                let mut settings = RunSettings::full_batch(c.steps, noise)?.with_neighbouring(self.neighbouring);
                settings.batch_size_b = c.batch_size_b;
                let mut cfg = Algorithm1Config::new(moments, self.learning_rate, clip, settings)?;
                if moments != Moments::Gd {
                    cfg.nu = self.nu.unwrap_or(1e-8);
                    cfg.lambda = self.lambda.unwrap_or(f64::INFINITY);
                } else if self.lambda.is_some() {
                    return Err(invalid("lambda", lambda_text(), "none for dp-gd (psi = 1, lambda = 1)"));
                }
                cfg.output = match self.output.unwrap_or(Output::Random) {
                    Output::Random => Algorithm1Output::RandomIterate,
                    Output::Last => Algorithm1Output::Last,
                    Output::Average0 | Output::Average1 => {
                        return Err(invalid(
                            "output",
                            "an average",
                            "random (w_R, the theorems' output) or last with `variant` paper",
                        ));
                    }
                };
                Ok(Job::Algorithm1(cfg))
            }
        }
    }

    /// The DP² settings.
    fn dp2_config(&self, c: &Common) -> Result<Dp2Config> {
        use crate::optim::dp2::Preconditioner;
        let alg = self.algorithm;
        let beta = self.beta2.unwrap_or(0.9);
        let preconditioner = match alg {
            Algorithm::Dp2Adagrad => Preconditioner::AdaGrad,
            Algorithm::Dp2Yogi => Preconditioner::Yogi { beta },
            _ => Preconditioner::RmsProp { beta },
        };
        if self.lambda.is_some() || self.bias_correction.is_some() {
            let parameter = if self.lambda.is_some() { "lambda" } else { "bias_correction" };
            return Err(refuse(
                parameter,
                format!("invalid parameter `lambda`/`bias_correction` = {}: must be not used by dp2-*", alg.name()),
            ));
        }
        if self.variant == Variant::Paper {
            return Err(invalid("variant", "paper", "minibatch for dp2-* (DP² is a minibatch method)"));
        }
        let c1 = self.dp2.clip_sgd.unwrap_or(self.clip_radius());
        let s1 = self.dp2.delay_sgd.unwrap_or(100);
        let lr = self.learning_rate;
        let mut cfg = Dp2Config::new(
            preconditioner,
            (s1, self.dp2.delay_adaptive.unwrap_or(s1)),
            (lr, self.dp2.learning_rate_adaptive.unwrap_or(lr)),
            (c1, self.dp2.clip_adaptive.unwrap_or(c1)),
            c.settings(self.neighbouring)?,
        )?;
        cfg.eps_adapt = self.nu.unwrap_or(1e-7);
        if self.dp2.ablation == Some(Ablation::NoiseFirst) {
            cfg.noise_order = NoiseOrder::NoiseFirst;
        }
        if !matches!(self.output, None | Some(Output::Last)) {
            return Err(invalid("output", "not last", "last for dp2-* (Algorithm 1 returns w^T)"));
        }
        Ok(cfg)
    }
}

/// The settings every algorithm shares, resolved.
struct Common {
    sampler: BatchSampler,
    batch_size_b: Option<f64>,
    steps: u64,
    privacy: Privacy,
}

impl Common {
    /// The [`RunSettings`] of a private gradient run under `neighbouring` (x0 left to the
    /// algorithm's default).
    ///
    /// # Errors
    /// As [`RunSettings::new`].
    fn settings(&self, neighbouring: crate::accounting::Neighbouring) -> Result<RunSettings> {
        let mut settings = RunSettings::new(self.steps, self.sampler, self.privacy, neighbouring)?;
        settings.batch_size_b = self.batch_size_b;
        Ok(settings)
    }
}

impl RunPlan<'_> {
    /// Runs the algorithm, sending its trace to `observer`, and evaluates the output point.
    ///
    /// # Errors
    /// The algorithm's errors (e.g. a calibration that cannot meet the target).
    pub fn execute(self, observer: &mut impl Observer) -> Result<RunOutcome> {
        let RunPlan { spec, data, model, job, sampling, .. } = self;
        let seeds = Seeds::new(spec.seed);
        let run = match (&job, &model) {
            (Job::Dp2(cfg), RunModel::Glm(m)) => {
                let sparse = crate::data::sparse::SparseDataset::from_dense(data);
                dp2(spec, &crate::model::SparseGlm { loss: m.loss, data: &sparse }, cfg, seeds, observer)?
            }
            (Job::Dp2(cfg), RunModel::Mlp(m)) => {
                dp2(spec, &crate::model::OnData { model: m, data }, cfg, seeds, observer)?
            }
            (Job::Minibatch(cfg), RunModel::Glm(m)) => {
                crate::optim::dpagd::minibatch::dp_minibatch(data, m, cfg, seeds, observer)?
            }
            (Job::Minibatch(cfg), RunModel::Mlp(m)) => {
                crate::optim::dpagd::minibatch::dp_minibatch(data, m, cfg, seeds, observer)?
            }
            (Job::Algorithm1(cfg), RunModel::Glm(m)) => {
                crate::optim::dpagd::algorithm1::dpagd(data, m, cfg, seeds, observer)?
            }
            (Job::Algorithm1(cfg), RunModel::Mlp(m)) => {
                crate::optim::dpagd::algorithm1::dpagd(data, m, cfg, seeds, observer)?
            }
            (Job::DpSgd(cfg), RunModel::Glm(m)) => crate::optim::dp_sgd::dp_sgd(data, m.loss, cfg, seeds, observer)?,
            (Job::AdaptiveNoise(cfg), RunModel::Glm(m)) => {
                if spec.algorithm == Algorithm::Pasan {
                    crate::optim::adaptive_noise::AdaptiveMethod::Pasan.run(data, m.loss, cfg, seeds, observer)?
                } else {
                    crate::optim::adaptive_noise::AdaptiveMethod::Pagan.run(data, m.loss, cfg, seeds, observer)?
                }
            }
            (Job::NoisyMirrorDescent(cfg), RunModel::Glm(m)) => {
                crate::optim::l1::noisy_mirror_descent(data, m.loss, cfg, seeds, observer)?
            }
            (Job::FrankWolfe(cfg), RunModel::Glm(m)) => cfg.run(data, m.loss, seeds)?.run,
            (Job::Localized(cfg), RunModel::Glm(m)) => super::l1::localized_run(cfg.run(data, m.loss, seeds)?),
            (Job::EntropicSmd(cfg), RunModel::Glm(m)) => {
                crate::optim::l1::entropic_smd(data, m.loss, cfg, seeds, observer)?
            }
            (
                Job::DpSgd(_)
                | Job::AdaptiveNoise(_)
                | Job::NoisyMirrorDescent(_)
                | Job::Localized(_)
                | Job::FrankWolfe(_)
                | Job::EntropicSmd(_),
                RunModel::Mlp(_),
            ) => {
                unreachable!("invariant: RunSpec::model refuses `hidden` here")
            }
        };
        let evaluation = match &model {
            RunModel::Glm(m) => m.evaluate(&run.x, data)?,
            RunModel::Mlp(m) => m.evaluate(&run.x, data)?,
        };
        Ok(RunOutcome { run, evaluation, sampling, neighbouring: spec.neighbouring, n: data.n(), d: data.d() })
    }
}

/// DP² (or an ablation) on `oracle`.
fn dp2(
    spec: &RunSpec,
    oracle: &impl crate::model::GradientOracle,
    cfg: &Dp2Config,
    seeds: Seeds,
    observer: &mut impl Observer,
) -> Result<Run> {
    match spec.dp2.ablation {
        Some(Ablation::ExtraQuery) => crate::optim::dp2::extra_query::dp2_extra_query(oracle, cfg, seeds, observer),
        _ => crate::optim::dp2::algorithm1::dp2(oracle, cfg, seeds, observer),
    }
}

/// The diagonal C of the ellipsoid on d features.
fn ellipsoid_diagonal(ellipsoid: &Ellipsoid, d: usize) -> Result<Vec<f64>> {
    match ellipsoid {
        Ellipsoid::Identity => Ok(vec![1.0; d]),
        Ellipsoid::Power(p) => {
            if !p.is_finite() {
                return Err(refuse(
                    "ellipsoid",
                    format!("`ellipsoid` power:<p> must be finite, got {}", display_number(*p)),
                ));
            }
            Ok((1..=d).map(|j| (j as f64).powf(*p)).collect())
        }
        Ellipsoid::File(path) => {
            let c = crate::audit::samples::read_samples(path)?;
            if c.len() != d {
                return Err(refuse(
                    "ellipsoid",
                    format!(
                        "`ellipsoid` file:{} must hold d = {d} values (one per feature), got {}",
                        path.display(),
                        c.len()
                    ),
                ));
            }
            if let Some(&v) = c.iter().find(|v| !(v.is_finite() && **v > 0.0)) {
                return Err(refuse(
                    "ellipsoid",
                    format!("every entry of `ellipsoid` file must be > 0 and finite, got {}", display_number(v)),
                ));
            }
            Ok(c)
        }
    }
}

/// The CLI spelling of a domain (`box:<r>`, `l2:<r>`, `l1:<r>`, `none`).
pub(super) fn domain_text(domain: &Domain) -> String {
    match domain {
        Domain::Unconstrained => "none".to_string(),
        Domain::Box { radius } => format!("box:{radius}"),
        Domain::L2Ball { radius } => format!("l2:{radius}"),
        Domain::L1Ball { radius } => format!("l1:{radius}"),
        Domain::Simplex => "simplex".to_string(),
    }
}
