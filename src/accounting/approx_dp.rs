//! The approximate-DP accountant: every event read as one (ε, δ) pair, composed by basic
//! composition, with amplification by sampling without replacement and the fully adaptive
//! (ε, δ)-DP filter. It answers for mechanisms whose privacy is stated as (ε, δ) claims rather
//! than curves (\[GGKKM\] Algorithm 6: Lemma 6.3's chain).
//!
//! The one traversal, [`ApproxDpAccountant::cost`], maps an event to an (ε, δ) **upper bound**:
//! ```text
//! EpsilonDelta(ε, δ)                      -> (ε, δ)
//! Laplace(z)                              -> (1/z, 0)                                  (pure DP)
//! SampledWithoutReplacement(n, m, A)      -> (ln(1 + (m/n)(e^{ε_A} − 1)), (m/n) δ_A)   replace-one only
//! SelfComposed(A, k)                      -> (k ε_A, k δ_A)                           basic composition
//! Composed(A_1..A_j)                      -> (Σ ε_i, Σ δ_i)                           basic composition
//! PrivacyFilter(ε, δ′, δ″, steps)         -> (ε, δ′ + δ″)  if √(2 ln(1/δ′) Σ ε_t²) + ½Σ ε_t² ≤ ε and Σ δ_t ≤ δ″
//!                                            (ε_t, δ_t) = cost(step t); refused otherwise
//! Gaussian, PerExampleSumGaussian, RandomizedResponse, PoissonSampled, SampledWithReplacement -> refused
//! ```
//! Sources: basic composition, Dwork & Roth 2014 Thm. 3.16; amplification by sampling without
//! replacement under the substitution (replace-one) relation, Balle, Barthe, Gaboardi 2018
//! (arXiv 1807.01647v2, Thm. 9); the filter, Whitehouse, Ramdas, Rogers, Wu 2023 (arXiv
//! 2203.05481v4, Thm. 3.3; \[GGKKM\] Thm. A.4 with ½Σε² **outside** the root, erratum). A Gaussian
//! release is (ε, δ)-DP along a whole curve; its builder records the point it claims as
//! `EpsilonDelta` (e.g. `PrivateRelease::release_statistic_epsilon_delta`).
//!
//! Rounding: every result is rounded up (relative `(1 + 8u)` then one ulp, u = 2⁻⁵³, above the
//! few correctly rounded operations of each formula; a sum moves up one ulp only when TwoSum
//! shows it inexact), δ capped at 1; an amplified ε is also capped
//! at the inner ε (subsampling never costs more than the mechanism on all of the data).
//!
//! Proof: proofs/accounting/approx_dp.md.

use super::event::{DpEvent, Neighbouring, check_filter, check_sizes};
use crate::accounting::composition::ApproxDp;
use crate::error::{Error, Result, check};
use crate::special::{add_up, count_up, mul_up};

/// u = 2⁻⁵³, the unit roundoff.
const U: f64 = f64::EPSILON / 2.0;

/// Rounds a value computed by a few correctly rounded operations up past its exact value.
fn up(x: f64) -> f64 {
    (x * (1.0 + 8.0 * U)).next_up()
}

/// `√(2 ln(1/δ′)·S) + S/2` with `S = Σ ε_t²`, rounded up: the ε a run of steps with
/// `Σ ε_t² = S` spends in the (ε, δ′ + δ″) filter (\[GGKKM\] Thm. A.4, ½S outside the root).
///
/// # Errors
/// `InvalidParameter` for S < 0 or not finite, δ′ ∉ (0, 1).
pub fn filter_epsilon_spent(sum_of_squares: f64, delta_prime: f64) -> Result<f64> {
    let s = check::non_negative("sum of squared step epsilons", sum_of_squares)?;
    let dp = check::open_unit("filter delta'", delta_prime)?;
    let log_inv = -dp.ln();
    Ok(up((2.0 * log_inv * s).sqrt() + 0.5 * s))
}

/// `(ln(1 + (m/n)(e^ε − 1)), (m/n)δ)`, rounded up: an (ε, δ)-DP mechanism run on a uniformly
/// random m-subset of n records, under replace-one (Balle–Barthe–Gaboardi 2018, Thm. 9).
///
/// # Errors
/// `InvalidParameter` unless 1 ≤ m ≤ n, ε ≥ 0 finite, δ ∈ [0, 1].
pub fn amplify_without_replacement(n: u64, m: u64, inner: ApproxDp) -> Result<ApproxDp> {
    check_sizes(n, m)?;
    let e = check::non_negative("epsilon", inner.epsilon)?;
    if !(0.0..=1.0).contains(&inner.delta) {
        return Err(Error::invalid("delta", inner.delta, "in [0, 1]"));
    }
    let q = m as f64 / n as f64;
    let epsilon = up((q * e.exp_m1()).ln_1p()).min(e);
    let delta = up(q * inner.delta).min(inner.delta);
    Ok(ApproxDp { epsilon, delta })
}

/// What a filter check found: the ε the steps spent (`√(2 ln(1/δ′)Σε_t²) + ½Σε_t²`) and their
/// `Σ δ_t`, both rounded up.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct FilterSpent {
    /// The filter's ε spent by the steps (≤ the target when the check passes).
    pub epsilon: f64,
    /// Σ δ_t (≤ δ″ when the check passes).
    pub delta: f64,
    /// Number of steps.
    pub steps: usize,
}

/// Checks the filter condition on the steps' (ε_t, δ_t): `√(2 ln(1/δ′)Σε_t²) + ½Σε_t² ≤ ε` and
/// `Σδ_t ≤ δ″`, both sides rounded so that a pass is certain.
///
/// # Errors
/// `InvalidParameter` for invalid filter parameters or step pairs; `Unsupported` (accountant
/// "approx-DP") naming the clause that fails.
pub fn check_filter_steps(
    target_epsilon: f64,
    delta_prime: f64,
    delta_double_prime: f64,
    costs: &[ApproxDp],
) -> Result<FilterSpent> {
    check_filter(target_epsilon, delta_prime, delta_double_prime)?;
    let (mut squares, mut deltas) = (0.0f64, 0.0f64);
    for c in costs {
        let e = check::non_negative("step epsilon", c.epsilon)?;
        let d = check::non_negative("step delta", c.delta)?;
        squares = add_up(squares, up(e * e));
        deltas = add_up(deltas, d);
    }
    let spent = FilterSpent { epsilon: filter_epsilon_spent(squares, delta_prime)?, delta: deltas, steps: costs.len() };
    let n = crate::error::display_number;
    let clause = if spent.epsilon > target_epsilon {
        format!(
            "sqrt(2 ln(1/delta')*sum eps_t^2) + sum eps_t^2/2 = {} > target epsilon {}",
            n(spent.epsilon),
            n(target_epsilon)
        )
    } else if spent.delta > delta_double_prime {
        format!("sum delta_t = {} > delta'' = {}", n(spent.delta), n(delta_double_prime))
    } else {
        return Ok(spent);
    };
    Err(Error::Unsupported {
        event: format!(
            "PrivacyFilter(eps={}, delta'={}, delta''={})",
            n(target_epsilon),
            n(delta_prime),
            n(delta_double_prime)
        ),
        neighbouring: "any".into(),
        accountant: "approx-DP",
        reason: format!(
            "the {} recorded steps violate the filter condition ({clause}); the filter guarantee does not apply",
            costs.len()
        ),
    })
}

/// The approximate-DP accountant (see the module doc). `compose` validates the whole event
/// before it changes anything and records it in the ledger only after success.
#[derive(Debug, Clone)]
pub struct ApproxDpAccountant {
    neighbouring: Neighbouring,
    total: ApproxDp,
    ledger: Vec<(DpEvent, u64)>,
}

impl ApproxDpAccountant {
    /// An empty accountant for `neighbouring`.
    pub fn new(neighbouring: Neighbouring) -> Self {
        ApproxDpAccountant { neighbouring, total: ApproxDp { epsilon: 0.0, delta: 0.0 }, ledger: Vec::new() }
    }

    /// The relation fixed at construction.
    pub fn neighbouring(&self) -> Neighbouring {
        self.neighbouring
    }

    /// The (ε, δ) of everything composed (upper bounds; δ capped at 1).
    pub fn total(&self) -> ApproxDp {
        self.total
    }

    /// The events composed, with their counts.
    pub fn ledger(&self) -> &[(DpEvent, u64)] {
        &self.ledger
    }

    /// Dry run of [`ApproxDpAccountant::compose`].
    ///
    /// # Errors
    /// As `compose`.
    pub fn supports(&self, event: &DpEvent) -> Result<()> {
        self.cost(event).map(|_| ())
    }

    /// Composes `event` `count` times (basic composition), atomically.
    ///
    /// # Errors
    /// `InvalidParameter` for count = 0 or invalid parameters; `Unsupported` for events this
    /// accountant cannot read as (ε, δ) (see the module doc) or a filter whose steps violate it.
    pub fn compose(&mut self, event: &DpEvent, count: u64) -> Result<()> {
        let k = check::count("count", count)?;
        let c = scale(self.cost(event)?, k);
        self.total = add(self.total, c);
        self.ledger.push((event.clone(), k));
        Ok(())
    }

    /// The (ε, δ) upper bound of one event: the one traversal (module doc).
    ///
    /// # Errors
    /// As [`ApproxDpAccountant::compose`].
    pub fn cost(&self, event: &DpEvent) -> Result<ApproxDp> {
        match event {
            DpEvent::EpsilonDelta { epsilon, delta } => Ok(ApproxDp {
                epsilon: check::non_negative("epsilon", *epsilon)?,
                delta: check::probability_below_one("delta", *delta)?,
            }),
            DpEvent::Laplace { noise_multiplier } => {
                let z = check::positive("laplace noise multiplier", *noise_multiplier)?;
                Ok(ApproxDp { epsilon: (1.0 / z).next_up(), delta: 0.0 })
            }
            DpEvent::SampledWithoutReplacement { source_dataset_size: n, sample_size: m, event: inner } => {
                check_sizes(*n, *m)?;
                let inner_cost = self.cost(inner)?;
                if self.neighbouring != Neighbouring::ReplaceOne {
                    return Err(self.unsupported(
                        event,
                        "amplification by sampling without replacement is stated for replace-one neighbours \
                         (the dataset size is fixed); use --neighbouring replace-one",
                    ));
                }
                amplify_without_replacement(*n, *m, inner_cost)
            }
            DpEvent::SelfComposed { event: inner, count } => {
                let k = check::count("count", *count)?;
                Ok(scale(self.cost(inner)?, k))
            }
            DpEvent::Composed(events) => {
                let mut total = ApproxDp { epsilon: 0.0, delta: 0.0 };
                for e in events {
                    total = add(total, self.cost(e)?);
                }
                Ok(total)
            }
            DpEvent::PrivacyFilter { target_epsilon, delta_prime, delta_double_prime, steps } => {
                check_filter(*target_epsilon, *delta_prime, *delta_double_prime)?;
                let costs = steps.iter().map(|s| self.cost(s)).collect::<Result<Vec<_>>>()?;
                check_filter_steps(*target_epsilon, *delta_prime, *delta_double_prime, &costs)?;
                Ok(ApproxDp { epsilon: *target_epsilon, delta: add_up(*delta_prime, *delta_double_prime).min(1.0) })
            }
            DpEvent::Gaussian { .. } | DpEvent::PerExampleSumGaussian { .. } => Err(self.unsupported(
                event,
                "a Gaussian release is (epsilon, delta)-DP along a whole curve; record the point it is \
                 claimed at as EpsilonDelta, or use the RDP or PLD accountant",
            )),
            DpEvent::RandomizedResponse { .. } => Err(self.unsupported(
                event,
                "randomized response is not read as an (epsilon, delta) pair here; use the PLD accountant",
            )),
            DpEvent::PoissonSampled { .. } | DpEvent::SampledWithReplacement { .. } => Err(self.unsupported(
                event,
                "the approximate-DP accountant amplifies sampling without replacement (replace-one) only",
            )),
        }
    }

    fn unsupported(&self, event: &DpEvent, reason: &str) -> Error {
        Error::Unsupported {
            event: event.describe(),
            neighbouring: self.neighbouring.name().into(),
            accountant: "approx-DP",
            reason: reason.into(),
        }
    }
}

/// `(kε, kδ)` rounded up, δ capped at 1 (k itself rounded up above 2⁵³).
fn scale(c: ApproxDp, k: u64) -> ApproxDp {
    let k = count_up(k);
    ApproxDp { epsilon: mul_up(c.epsilon, k), delta: mul_up(c.delta, k).min(1.0) }
}

/// `(ε₁ + ε₂, δ₁ + δ₂)` rounded up, δ capped at 1.
fn add(a: ApproxDp, b: ApproxDp) -> ApproxDp {
    ApproxDp { epsilon: add_up(a.epsilon, b.epsilon), delta: add_up(a.delta, b.delta).min(1.0) }
}

impl super::Accountant for ApproxDpAccountant {
    fn name(&self) -> &'static str {
        "approx-dp"
    }
    fn neighbouring(&self) -> Neighbouring {
        self.neighbouring
    }
    fn supports(&self, event: &DpEvent) -> Result<()> {
        ApproxDpAccountant::supports(self, event)
    }
    fn compose(&mut self, event: &DpEvent, count: u64) -> Result<()> {
        ApproxDpAccountant::compose(self, event, count)
    }
    /// ε of the composed (ε, δ) pair if `delta` is at least its δ; `+∞` otherwise (a single
    /// (ε, δ) statement certifies nothing at a smaller δ).
    fn epsilon_upper(&self, delta: f64) -> Result<f64> {
        check::open_unit("delta", delta)?;
        Ok(if delta >= self.total.delta { self.total.epsilon } else { f64::INFINITY })
    }
}
