//! The privacy-event algebra (after Google dp_accounting's `DpEvent`).
//!
//! A [`DpEvent`] is a parameters-only description of what a mechanism *did*: which noise it
//! added, how its input was sampled, how often it ran. Algorithms emit events where they sample a
//! batch and draw noise; accountants turn events into (ε, δ). An event's meaning never changes;
//! new behaviour gets a new variant.
//!
//! # Sensitivity convention
//! `Gaussian { noise_multiplier: z }` is the release of `f(D) + N(0, z²Δ² I)` where `Δ` is the
//! ℓ2-sensitivity of `f` *under the neighbouring relation the accountant uses* (for the inner
//! event of a sampling wrapper: under that relation between the sampled batches); `Laplace`
//! follows the same convention with the ℓ1-sensitivity. Such an event is only as right as the Δ
//! its builder assumed, and the event cannot tell which relation that was.
//!
//! The release every optimiser makes, a sum of per-example contributions each of norm ≤ C plus
//! noise of std σC, is therefore its own event, [`DpEvent::PerExampleSumGaussian`]`{ σ }`, which
//! carries the per-example bound instead of a sensitivity: the accountant derives Δ from its own
//! relation (C under add/remove, 2C under replace-one, [`Neighbouring::sum_sensitivity_factor`]).
//! Its meaning is the same under both relations, so an event built for one relation and composed
//! under the other cannot under-report (a `Gaussian { σ }` built for add/remove and composed under
//! replace-one would claim half the true sensitivity). [`per_example_sum_gaussian`] and
//! [`dp_sgd_event`] build it.

use crate::error::{Error, Result, check};
use serde::{Deserialize, Serialize};

/// Which datasets count as neighbours. Fixed when an accountant is built.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Neighbouring {
    /// D′ = D with one record added or removed (the default; Poisson sampling's natural relation).
    AddRemove,
    /// D′ = D with one record replaced by another (same size; fixed-size sampling's relation).
    ReplaceOne,
}

impl Neighbouring {
    /// The CLI spelling: `add-remove` or `replace-one`.
    pub fn name(self) -> &'static str {
        match self {
            Neighbouring::AddRemove => "add-remove",
            Neighbouring::ReplaceOne => "replace-one",
        }
    }

    /// How many per-example contribution bounds one neighbouring step can move a sum by:
    /// 1 under add/remove, 2 under replace-one (remove one record, add another).
    pub fn sum_sensitivity_factor(self) -> f64 {
        match self {
            Neighbouring::AddRemove => 1.0,
            Neighbouring::ReplaceOne => 2.0,
        }
    }

    /// The noise multiplier of a Gaussian release relative to its sensitivity under this
    /// relation: z for `Gaussian { z }`, `s/f` for `PerExampleSumGaussian { s }` (f =
    /// [`Neighbouring::sum_sensitivity_factor`]); `None` for an event that is not a Gaussian
    /// release.
    ///
    /// # Errors
    /// `Some(Err(InvalidParameter))` for a multiplier that is not finite and > 0. (`s/f` may
    /// underflow to 0, σ = 5e-324 under replace-one: the accountants read a multiplier of 0 as an
    /// unbounded ε, which it is.)
    pub fn gaussian_multiplier(self, event: &DpEvent) -> Option<Result<f64>> {
        match event {
            DpEvent::Gaussian { noise_multiplier: z } => Some(check::positive("sigma", *z)),
            DpEvent::PerExampleSumGaussian { noise_multiplier: s } => {
                Some(check::positive("sigma", *s).map(|s| s / self.sum_sensitivity_factor()))
            }
            _ => None,
        }
    }
}

impl std::fmt::Display for Neighbouring {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A privacy event. Build with the validating constructors ([`DpEvent::gaussian`], ...); the
/// accountants validate again in their check phase, so a hand-built invalid event is an error,
/// never a number.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum DpEvent {
    /// `f(D) + N(0, (zΔ)² I)`, `z = noise_multiplier` (see the module's sensitivity convention).
    Gaussian {
        /// z > 0: noise std divided by the ℓ2-sensitivity.
        noise_multiplier: f64,
    },
    /// `Σ_{i∈B} gᵢ + N(0, (zC)² I)` with `‖gᵢ‖₂ ≤ C` for every record i of the batch B and
    /// `z = noise_multiplier` relative to the per-example bound C (not to a sensitivity). Under
    /// add/remove the sum's ℓ2-sensitivity is C, under replace-one 2C: the accountant treats the
    /// event as `Gaussian { z / factor }` for its relation (see the module's sensitivity
    /// convention), so the event means the same whatever the relation.
    PerExampleSumGaussian {
        /// z > 0: noise std divided by the per-example contribution bound C.
        noise_multiplier: f64,
    },
    /// `f(D) + Lap(zΔ₁)^d`, `z = noise_multiplier`, Δ₁ the ℓ1-sensitivity.
    Laplace {
        /// z > 0: Laplace scale divided by the ℓ1-sensitivity.
        noise_multiplier: f64,
    },
    /// k-ary randomized response on one record's value (dp_accounting's
    /// `RandomizedResponseDpEvent`): with probability p the answer is a uniformly random one of the
    /// k buckets, otherwise the true bucket. Meaningful under replace-one only (the record's
    /// bucket is replaced); the accountants refuse it under add/remove.
    RandomizedResponse {
        /// p ∈ [0, 1]: the probability of answering a uniformly random bucket.
        noise_parameter: f64,
        /// k ≥ 2 buckets.
        num_buckets: u64,
    },
    /// A mechanism known only to be (ε, δ)-DP.
    EpsilonDelta {
        /// ε ≥ 0.
        epsilon: f64,
        /// δ ∈ [0, 1).
        delta: f64,
    },
    /// Poisson subsampling: each record enters the batch independently with probability `q`,
    /// then `event` runs on the batch.
    PoissonSampled {
        /// q ∈ [0, 1].
        sampling_probability: f64,
        /// The mechanism applied to the batch.
        event: Box<DpEvent>,
    },
    /// A uniformly random subset of exactly `sample_size` of the `source_dataset_size` records
    /// (without replacement), then `event` on it.
    SampledWithoutReplacement {
        /// n ≥ 1.
        source_dataset_size: u64,
        /// 1 ≤ b ≤ n.
        sample_size: u64,
        /// The mechanism applied to the batch.
        event: Box<DpEvent>,
    },
    /// `sample_size` indices drawn i.i.d. uniformly from the `source_dataset_size` records (with
    /// replacement), then `event`. Exists so that algorithms can report it honestly; no
    /// implemented accountant covers it.
    SampledWithReplacement {
        /// n ≥ 1.
        source_dataset_size: u64,
        /// b ≥ 1.
        sample_size: u64,
        /// The mechanism applied to the batch.
        event: Box<DpEvent>,
    },
    /// `event` run `count` times (adaptively).
    SelfComposed {
        /// The repeated mechanism.
        event: Box<DpEvent>,
        /// Number of repetitions ≥ 1.
        count: u64,
    },
    /// The listed events run in sequence (adaptively).
    Composed(Vec<DpEvent>),
    /// The fully adaptive (ε, δ)-DP filter (Whitehouse, Ramdas, Rogers, Wu, ICML 2023;
    /// \[GGKKM\] Thm. A.4): the `steps` ran adaptively, step t being (ε_t, δ_t)-DP given the
    /// past with (ε_t, δ_t) fixed before it ran (predictable), and the run stopped before
    /// `√(2 ln(1/δ′) Σ_t ε_t²) + ½ Σ_t ε_t² ≤ ε` or `Σ_t δ_t ≤ δ″` would fail. The whole is then
    /// (ε, δ′ + δ″)-DP. The event promises predictability; an accountant must still **check** the
    /// condition on the steps it reads (and refuse the event if it fails). Only an accountant that
    /// reads each step as an (ε_t, δ_t) pair can (`ApproxDpAccountant`); the others refuse it.
    PrivacyFilter {
        /// ε > 0: the filter's target.
        target_epsilon: f64,
        /// δ′ ∈ (0, 1): the slack of the concentration step.
        delta_prime: f64,
        /// δ″ ∈ [0, 1): the budget of the steps' δ_t.
        delta_double_prime: f64,
        /// The steps executed, in order (each one event).
        steps: Vec<DpEvent>,
    },
}

impl DpEvent {
    /// `Gaussian { noise_multiplier }`, validated (> 0, finite).
    ///
    /// # Errors
    /// `InvalidParameter` for z ≤ 0, NaN or ∞.
    pub fn gaussian(noise_multiplier: f64) -> Result<Self> {
        check::positive("sigma", noise_multiplier)?;
        Ok(DpEvent::Gaussian { noise_multiplier })
    }

    /// `Laplace { noise_multiplier }`, validated (> 0, finite).
    ///
    /// # Errors
    /// `InvalidParameter` for z ≤ 0, NaN or ∞.
    pub fn laplace(noise_multiplier: f64) -> Result<Self> {
        check::positive("laplace noise multiplier", noise_multiplier)?;
        Ok(DpEvent::Laplace { noise_multiplier })
    }

    /// `RandomizedResponse { p, k }`, validated (p ∈ [0, 1], k ≥ 2).
    ///
    /// # Errors
    /// `InvalidParameter` for p outside [0, 1] (NaN included) or k < 2.
    pub fn randomized_response(noise_parameter: f64, num_buckets: u64) -> Result<Self> {
        check_randomized_response(noise_parameter, num_buckets)?;
        Ok(DpEvent::RandomizedResponse { noise_parameter, num_buckets })
    }

    /// `EpsilonDelta`, validated (ε ≥ 0 finite, δ ∈ [0, 1)).
    ///
    /// # Errors
    /// `InvalidParameter` outside those ranges.
    pub fn epsilon_delta(epsilon: f64, delta: f64) -> Result<Self> {
        check::non_negative("epsilon", epsilon)?;
        check::probability_below_one("delta", delta)?;
        Ok(DpEvent::EpsilonDelta { epsilon, delta })
    }

    /// `PoissonSampled { q, event }`, validated (q ∈ [0, 1]).
    ///
    /// # Errors
    /// `InvalidParameter` for q outside [0, 1] or NaN.
    pub fn poisson_sampled(sampling_probability: f64, event: DpEvent) -> Result<Self> {
        check_sampling_probability(sampling_probability)?;
        Ok(DpEvent::PoissonSampled { sampling_probability, event: Box::new(event) })
    }

    /// `SampledWithoutReplacement { n, b, event }`, validated (1 ≤ b ≤ n).
    ///
    /// # Errors
    /// `InvalidParameter` unless 1 ≤ b ≤ n.
    pub fn sampled_without_replacement(n: u64, b: u64, event: DpEvent) -> Result<Self> {
        check_sizes(n, b)?;
        Ok(DpEvent::SampledWithoutReplacement { source_dataset_size: n, sample_size: b, event: Box::new(event) })
    }

    /// `SampledWithReplacement { n, b, event }`, validated (n, b ≥ 1).
    ///
    /// # Errors
    /// `InvalidParameter` for n = 0 or b = 0.
    pub fn sampled_with_replacement(n: u64, b: u64, event: DpEvent) -> Result<Self> {
        check::count("dataset size n", n)?;
        check::count("batch size b", b)?;
        Ok(DpEvent::SampledWithReplacement { source_dataset_size: n, sample_size: b, event: Box::new(event) })
    }

    /// `SelfComposed { event, count }`, validated (count ≥ 1).
    ///
    /// # Errors
    /// `InvalidParameter` for count = 0.
    pub fn self_composed(event: DpEvent, count: u64) -> Result<Self> {
        check::count("steps", count)?;
        Ok(DpEvent::SelfComposed { event: Box::new(event), count })
    }

    /// `PrivacyFilter { ε, δ′, δ″, steps }`, validated (ε > 0 finite, δ′ ∈ (0, 1), δ″ ∈ [0, 1),
    /// δ′ + δ″ < 1). The steps are validated by the accountant that reads them.
    ///
    /// # Errors
    /// `InvalidParameter` outside those ranges.
    pub fn privacy_filter(
        target_epsilon: f64,
        delta_prime: f64,
        delta_double_prime: f64,
        steps: Vec<DpEvent>,
    ) -> Result<Self> {
        check_filter(target_epsilon, delta_prime, delta_double_prime)?;
        Ok(DpEvent::PrivacyFilter { target_epsilon, delta_prime, delta_double_prime, steps })
    }

    /// A short one-line description for error messages (`PoissonSampled(q=0.01, Gaussian(z=1.1))`).
    pub fn describe(&self) -> String {
        // numbers as people read them: 1e-300, not 300 digits
        let n = crate::error::display_number;
        match self {
            DpEvent::Gaussian { noise_multiplier } => format!("Gaussian(z={})", n(*noise_multiplier)),
            DpEvent::PerExampleSumGaussian { noise_multiplier } => {
                format!("PerExampleSumGaussian(sigma={})", n(*noise_multiplier))
            }
            DpEvent::Laplace { noise_multiplier } => format!("Laplace(z={})", n(*noise_multiplier)),
            DpEvent::RandomizedResponse { noise_parameter, num_buckets } => {
                format!("RandomizedResponse(p={}, k={num_buckets})", n(*noise_parameter))
            }
            DpEvent::EpsilonDelta { epsilon, delta } => {
                format!("EpsilonDelta(eps={}, delta={})", n(*epsilon), n(*delta))
            }
            DpEvent::PoissonSampled { sampling_probability, event } => {
                format!("PoissonSampled(q={}, {})", n(*sampling_probability), event.describe())
            }
            DpEvent::SampledWithoutReplacement { source_dataset_size, sample_size, event } => {
                format!("SampledWithoutReplacement(n={source_dataset_size}, b={sample_size}, {})", event.describe())
            }
            DpEvent::SampledWithReplacement { source_dataset_size, sample_size, event } => {
                format!("SampledWithReplacement(n={source_dataset_size}, b={sample_size}, {})", event.describe())
            }
            DpEvent::SelfComposed { event, count } => format!("SelfComposed({}, x{count})", event.describe()),
            DpEvent::Composed(events) => {
                let inner: Vec<String> = events.iter().map(DpEvent::describe).collect();
                format!("Composed[{}]", inner.join(", "))
            }
            DpEvent::PrivacyFilter { target_epsilon, delta_prime, delta_double_prime, steps } => format!(
                "PrivacyFilter(eps={}, delta'={}, delta''={}, {} steps)",
                n(*target_epsilon),
                n(*delta_prime),
                n(*delta_double_prime),
                steps.len()
            ),
        }
    }
}

/// Checks the Poisson sampling probability q ∈ [0, 1] (NaN refused) and returns it.
pub(crate) fn check_sampling_probability(q: f64) -> Result<f64> {
    if (0.0..=1.0).contains(&q) { Ok(q) } else { Err(Error::invalid("q", q, "in [0, 1]")) }
}

/// Checks the parameters of randomized response: p ∈ [0, 1], k ≥ 2.
pub(crate) fn check_randomized_response(noise_parameter: f64, num_buckets: u64) -> Result<()> {
    if !(0.0..=1.0).contains(&noise_parameter) {
        return Err(Error::invalid("noise_parameter", noise_parameter, "in [0, 1]"));
    }
    if num_buckets < 2 {
        return Err(Error::invalid("num_buckets", num_buckets, ">= 2"));
    }
    Ok(())
}

/// Checks the parameters of a privacy filter: ε > 0 finite, δ′ ∈ (0, 1), δ″ ∈ [0, 1),
/// δ′ + δ″ < 1.
pub(crate) fn check_filter(target_epsilon: f64, delta_prime: f64, delta_double_prime: f64) -> Result<()> {
    check::positive("filter target epsilon", target_epsilon)?;
    check::open_unit("filter delta'", delta_prime)?;
    check::probability_below_one("filter delta''", delta_double_prime)?;
    if delta_prime + delta_double_prime >= 1.0 {
        return Err(Error::invalid("filter delta' + delta''", delta_prime + delta_double_prime, "< 1"));
    }
    Ok(())
}

pub(crate) fn check_sizes(n: u64, b: u64) -> Result<()> {
    check::count("dataset size n", n)?;
    check::count("batch size b", b)?;
    if b > n {
        return Err(Error::invalid("batch size b", b, "<= the dataset size n"));
    }
    Ok(())
}

/// How the records of one step's batch were chosen: the accounting side of
/// `sampling::BatchSampler`. Each scheme names the event wrapper it implies.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub enum SamplingScheme {
    /// Poisson sampling with rate q.
    Poisson {
        /// q ∈ (0, 1].
        q: f64,
    },
    /// A uniform subset of fixed size b out of n.
    WithoutReplacement {
        /// n.
        dataset_size: u64,
        /// b.
        batch_size: u64,
    },
    /// b indices i.i.d. uniform on {0, …, n − 1}.
    WithReplacement {
        /// n.
        dataset_size: u64,
        /// b.
        batch_size: u64,
    },
    /// The whole dataset every step (no amplification).
    Full,
}

impl SamplingScheme {
    /// The CLI spelling.
    pub fn name(&self) -> &'static str {
        match self {
            SamplingScheme::Poisson { .. } => "poisson",
            SamplingScheme::WithoutReplacement { .. } => "without-replacement",
            SamplingScheme::WithReplacement { .. } => "with-replacement",
            SamplingScheme::Full => "full",
        }
    }

    /// The rate q: Poisson's q, b/n for the fixed-size schemes, 1 for full batch.
    pub fn rate(&self) -> f64 {
        match *self {
            SamplingScheme::Poisson { q } => q,
            SamplingScheme::WithoutReplacement { dataset_size, batch_size }
            | SamplingScheme::WithReplacement { dataset_size, batch_size } => batch_size as f64 / dataset_size as f64,
            SamplingScheme::Full => 1.0,
        }
    }

    /// Wraps the event of one step's mechanism in this scheme's sampling event.
    ///
    /// # Errors
    /// `InvalidParameter` for q ∉ (0, 1] or inconsistent sizes.
    pub fn wrap(&self, inner: DpEvent) -> Result<DpEvent> {
        match *self {
            SamplingScheme::Poisson { q } => {
                check::rate("q", q)?;
                DpEvent::poisson_sampled(q, inner)
            }
            SamplingScheme::WithoutReplacement { dataset_size, batch_size } => {
                DpEvent::sampled_without_replacement(dataset_size, batch_size, inner)
            }
            SamplingScheme::WithReplacement { dataset_size, batch_size } => {
                DpEvent::sampled_with_replacement(dataset_size, batch_size, inner)
            }
            SamplingScheme::Full => Ok(inner),
        }
    }
}

/// The event of one release of `Σᵢ clip_C(gᵢ) + N(0, σ²C² I)`: a sum of per-example
/// contributions of norm ≤ C with noise multiplier σ (std / C),
/// [`DpEvent::PerExampleSumGaussian`]. The accountant derives the sensitivity from its relation
/// (C under add/remove, 2C under replace-one), so the event needs no relation.
///
/// # Errors
/// `InvalidParameter` for σ ≤ 0, NaN or ∞.
pub fn per_example_sum_gaussian(noise_multiplier: f64) -> Result<DpEvent> {
    check::positive("sigma", noise_multiplier)?;
    Ok(DpEvent::PerExampleSumGaussian { noise_multiplier })
}

/// The event of `steps` DP-SGD-style steps: per step, a batch drawn by `sampling`, then
/// [`per_example_sum_gaussian`]`(σ)`.
///
/// # Errors
/// `InvalidParameter` for invalid σ, steps = 0 or an invalid sampling scheme.
pub fn dp_sgd_event(noise_multiplier: f64, sampling: SamplingScheme, steps: u64) -> Result<DpEvent> {
    let step = sampling.wrap(per_example_sum_gaussian(noise_multiplier)?)?;
    DpEvent::self_composed(step, steps)
}

impl SamplingScheme {
    /// Builds a scheme from the CLI's sampling flags (`--sampling`, `--q`,
    /// `--batch-size`/`--dataset-size`), rejecting flags that do not belong to the scheme.
    ///
    /// * `poisson`: `--q`, or `--batch-size` and `--dataset-size` (q = b/n);
    /// * `without-replacement`, `with-replacement`: `--batch-size` and `--dataset-size`;
    /// * `full`: none of them.
    ///
    /// # Errors
    /// `InvalidParameter` for a missing, superfluous or out-of-range flag.
    pub fn from_flags(name: &str, q: Option<f64>, batch_size: Option<u64>, dataset_size: Option<u64>) -> Result<Self> {
        let sizes = || -> Result<(u64, u64)> {
            match (dataset_size, batch_size) {
                (Some(n), Some(b)) => {
                    check_sizes(n, b)?;
                    Ok((n, b))
                }
                _ => Err(Error::invalid(
                    "--batch-size/--dataset-size",
                    "missing",
                    "both given for this sampling scheme (--sampling needs the batch size and the dataset size)",
                )),
            }
        };
        match name {
            "poisson" => match (q, batch_size, dataset_size) {
                (Some(q), None, None) => Ok(SamplingScheme::Poisson { q: check::rate("--q", q)? }),
                (None, Some(_), Some(_)) => {
                    let (n, b) = sizes()?;
                    Ok(SamplingScheme::Poisson { q: b as f64 / n as f64 })
                }
                (Some(_), _, _) => Err(Error::invalid("--q", "given with --batch-size/--dataset-size", "used alone")),
                _ => Err(Error::invalid(
                    "--q",
                    "missing",
                    "given for Poisson sampling, or --batch-size with --dataset-size (q = b/n)",
                )),
            },
            "without-replacement" | "with-replacement" => {
                if q.is_some() {
                    return Err(Error::invalid(
                        "--q",
                        "given",
                        "absent for fixed-size sampling (use --batch-size/--dataset-size)",
                    ));
                }
                let (n, b) = sizes()?;
                Ok(if name == "with-replacement" {
                    SamplingScheme::WithReplacement { dataset_size: n, batch_size: b }
                } else {
                    SamplingScheme::WithoutReplacement { dataset_size: n, batch_size: b }
                })
            }
            "full" => {
                if q.is_some() {
                    return Err(Error::invalid("--q", "given", "absent for --sampling full"));
                }
                Ok(SamplingScheme::Full)
            }
            other => Err(Error::invalid("--sampling", other, "poisson, without-replacement, with-replacement or full")),
        }
    }
}
