//! The Rényi-DP accountant.
//!
//! [`RdpAccountant`] keeps, for a fixed grid of orders α and a fixed [`Neighbouring`] relation,
//! an upper bound on the RDP curve of everything composed so far, and converts it to (ε, δ).
//!
//! Supported events (anything else is an [`Error::Unsupported`] naming the sub-event):
//!
//! | event | neighbouring | per-step RDP |
//! |---|---|---|
//! | `Gaussian` | both | `α/(2z²)` |
//! | `PerExampleSumGaussian` | both | as `Gaussian { σ / factor }`, factor 1 (add/remove) or 2 (replace-one) |
//! | `Laplace` | both | Mironov 2017 Prop. 6 |
//! | `EpsilonDelta(ε, δ)` | both | RDP of RR_ε, plus δ carried separately (below) |
//! | `RandomizedResponse` | neither (use the PLD accountant) | — |
//! | `PoissonSampled(q, Gaussian)` | add/remove | MTZ 2019 (integer: exact; fractional: certified series) |
//! | `SampledWithoutReplacement(n, b, Gaussian)` | replace-one | Wang–Balle–Kasiviswanathan 2019 |
//! | `SelfComposed`, `Composed` | both | sums (RDP composes additively) |
//!
//! **Approximate-DP events.** An (ε, δ)-DP step is a post-processing of RR_{ε,δ} (Kairouz et al.
//! 2015): with probability δ its output reveals the input, otherwise it is RR_ε. Conditioned on the
//! event G that no composed (ε,δ) step revealed anything (`P(G) = Π(1−δᵢ)` under both datasets),
//! the transcript has the composed RDP curve; so the composition is
//! `(ε, P(G)·δ_RDP(ε) + 1 − P(G))`-DP. The accountant stores `ln P(G)` and applies this at
//! conversion time (proofs/accounting/rdp_accountant.md).
//!
//! **No NaN reaches a result.** Every per-order value passes through [`upper_or_infinity`]: a
//! NaN (an overflowed formula, e.g. σ = 1e-300) becomes +∞, the only upper bound that is safe
//! when the value is unknown, so ε is then +∞, never 0.
//!
//! The check phase and the compose phase are one traversal ([`RdpAccountant::supports`] runs it
//! and discards the result), `count` is applied in exactly one place (`SelfComposed`), and the
//! ledger records an event only after it composed successfully.

pub mod basic;
pub mod logsum;
pub mod poisson_gaussian;
pub mod wor_gaussian;

use super::accountant::{Accountant, nan_as_infinity};
use super::conversion::{Conversion, DeltaBound, EpsilonBound, delta_from_rdp, epsilon_from_rdp};
use super::event::{DpEvent, Neighbouring, check_sampling_probability};
use crate::error::{Error, Result, check};
use rayon::prelude::*;

/// The default grid of RDP orders: `1.1, 1.2, …, 10.9`, `11, 12, …, 64`, and
/// `72, 80, 96, 128, 160, 192, 256, 384, 512, 768, 1024`. It contains every order of
/// dp_accounting's `DEFAULT_RDP_ORDERS` (0.6.0) and of Opacus' `DEFAULT_ALPHAS`, so its ε is never
/// above theirs for the same curve.
pub fn default_orders() -> Vec<f64> {
    let mut v: Vec<f64> = (1..100).map(|x| 1.0 + x as f64 / 10.0).collect();
    v.extend((11..=64).map(|x| x as f64));
    v.extend([72.0, 80.0, 96.0, 128.0, 160.0, 192.0, 256.0, 384.0, 512.0, 768.0, 1024.0]);
    v
}

/// The largest RDP order accepted (a user-chosen grid): the without-replacement and integer
/// Poisson bounds cost O(α) terms per order, so an order of 1e9 would mean gigabytes and minutes.
/// A cap never under-reports: ε from any grid is an upper bound. It can over-report where the
/// best order lies above it, which happens when the per-order RDP r is tiny (the best order is
/// about 1 + √(ln(1/δ)/r)).
pub const MAX_ORDER: f64 = 10_000.0;

/// `a + b` rounded toward −∞ (for `ln P(G)`, where smaller is conservative).
fn add_down(a: f64, b: f64) -> f64 {
    let s = a + b;
    if s == 0.0 { s } else { s.next_down() }
}

/// A per-order RDP value as an upper bound: NaN (an unknown value) becomes +∞, and a negative
/// value (the true RDP is ≥ 0) becomes 0.
pub fn upper_or_infinity(rdp: f64) -> f64 {
    if rdp.is_nan() { f64::INFINITY } else { rdp.max(0.0) }
}

/// An RDP curve on the accountant's grid plus the probability mass of approximate-DP failures.
#[derive(Debug, Clone, PartialEq)]
struct Curve {
    rdp: Vec<f64>,
    /// `ln P(G)`, G = no composed (ε, δ) event failed; 0 if there were none.
    log_good: f64,
}

/// Rényi-DP accountant over a fixed order grid and neighbouring relation.
///
/// ```
/// use dpref::accounting::{Accountant, Conversion, DpEvent, Neighbouring, RdpAccountant};
/// // 1000 steps of Poisson-sampled (q = 0.01) Gaussian noise with multiplier 1.0.
/// let step = DpEvent::poisson_sampled(0.01, DpEvent::gaussian(1.0)?)?;
/// let mut acc = RdpAccountant::new(Neighbouring::AddRemove);
/// acc.compose(&step, 1000)?;
/// let eps = acc.epsilon(1e-5, Conversion::Improved)?;
/// assert!(eps.epsilon > 2.0 && eps.epsilon < 2.2); // 2.1014 at order 7.8
/// // The same event under replace-one is refused, not approximated.
/// let replace = RdpAccountant::new(Neighbouring::ReplaceOne);
/// assert!(matches!(replace.supports(&step), Err(dpref::Error::Unsupported { .. })));
/// # Ok::<(), dpref::Error>(())
/// ```
///
/// Proof: proofs/accounting/rdp_accountant.md.
#[derive(Debug, Clone)]
pub struct RdpAccountant {
    neighbouring: Neighbouring,
    orders: Vec<f64>,
    total: Curve,
    ledger: Vec<(DpEvent, u64)>,
}

impl Accountant for RdpAccountant {
    fn name(&self) -> &'static str {
        "rdp"
    }

    /// The neighbouring relation fixed at construction.
    fn neighbouring(&self) -> Neighbouring {
        self.neighbouring
    }

    /// Dry run of [`compose`](Self::compose): `Ok` iff composing `event` would succeed.
    ///
    /// # Errors
    /// As `compose`.
    fn supports(&self, event: &DpEvent) -> Result<()> {
        self.curve(event).map(|_| ())
    }

    /// Composes `event` `count` times. Atomic: on error nothing changes.
    ///
    /// # Errors
    /// `Unsupported` naming the sub-event for combinations not in the module table;
    /// `InvalidParameter` for invalid parameters anywhere in the event or `count = 0`.
    fn compose(&mut self, event: &DpEvent, count: u64) -> Result<()> {
        check::count("count", count)?;
        let c = self.curve(&DpEvent::SelfComposed { event: Box::new(event.clone()), count })?;
        for (t, r) in self.total.rdp.iter_mut().zip(&c.rdp) {
            *t = (*t + r).next_up();
        }
        self.total.log_good = add_down(self.total.log_good, c.log_good);
        self.ledger.push((event.clone(), count));
        Ok(())
    }

    /// The improved RDP → (ε, δ) conversion (the default everywhere in dpref).
    fn epsilon_upper(&self, delta: f64) -> Result<f64> {
        Ok(nan_as_infinity(self.epsilon(delta, Conversion::Improved)?.epsilon))
    }
}

impl RdpAccountant {
    /// An empty accountant with the [`default_orders`].
    pub fn new(neighbouring: Neighbouring) -> Self {
        let orders = default_orders();
        let n = orders.len();
        RdpAccountant { neighbouring, orders, total: Curve { rdp: vec![0.0; n], log_good: 0.0 }, ledger: Vec::new() }
    }

    /// An empty accountant with a user-chosen grid (each order in (1, [`MAX_ORDER`]]; sorted and
    /// de-duplicated here).
    ///
    /// # Errors
    /// `Empty` for no orders; `InvalidParameter` for an order ≤ 1, above [`MAX_ORDER`], or NaN.
    pub fn with_orders(mut orders: Vec<f64>, neighbouring: Neighbouring) -> Result<Self> {
        if orders.is_empty() {
            return Err(Error::Empty { what: "RDP orders" });
        }
        for &a in &orders {
            if !(a > 1.0 && a <= MAX_ORDER) {
                return Err(Error::invalid("order", a, "in (1, 10000]"));
            }
        }
        orders.sort_by(f64::total_cmp);
        orders.dedup();
        let n = orders.len();
        Ok(RdpAccountant {
            neighbouring,
            orders,
            total: Curve { rdp: vec![0.0; n], log_good: 0.0 },
            ledger: Vec::new(),
        })
    }

    /// The order grid.
    pub fn orders(&self) -> &[f64] {
        &self.orders
    }

    /// The composed RDP curve (an upper bound at each order).
    pub fn rdp(&self) -> &[f64] {
        &self.total.rdp
    }

    /// What has been composed, in order, with counts.
    pub fn ledger(&self) -> &[(DpEvent, u64)] {
        &self.ledger
    }

    /// Upper bound on ε at `delta` for everything composed.
    ///
    /// # Errors
    /// `InvalidParameter` for δ ∉ (0, 1).
    pub fn epsilon(&self, delta: f64, conversion: Conversion) -> Result<EpsilonBound> {
        check::open_unit("delta", delta)?;
        let lg = self.total.log_good;
        if lg == 0.0 {
            return epsilon_from_rdp(&self.orders, &self.total.rdp, delta, conversion);
        }
        // δ = P(G)·δ_RDP + (1 − P(G))  ⇒  δ_RDP = (δ − (1 − P(G)))/P(G), rounded down. The
        // difference cancels when δ is close to the spent mass 1 − P(G): its rounding error is
        // at most 2u(δ + spent), subtracted before dividing.
        let spent = -lg.exp_m1();
        let diff = (delta - spent) - 4.0 * f64::EPSILON * (delta + spent);
        let delta_rdp = diff / lg.exp() * (1.0 - 4.0 * f64::EPSILON);
        if delta_rdp.is_nan() || delta_rdp <= 0.0 {
            return Ok(EpsilonBound { epsilon: f64::INFINITY, order: None });
        }
        epsilon_from_rdp(&self.orders, &self.total.rdp, delta_rdp.min(1.0 - f64::EPSILON), conversion)
    }

    /// Upper bound on δ at `epsilon` for everything composed.
    ///
    /// # Errors
    /// `InvalidParameter` for ε < 0 or NaN.
    pub fn delta(&self, epsilon: f64, conversion: Conversion) -> Result<DeltaBound> {
        let d = delta_from_rdp(&self.orders, &self.total.rdp, epsilon, conversion)?;
        let lg = self.total.log_good;
        if lg == 0.0 {
            return Ok(d);
        }
        let total = (lg.exp() * d.delta - lg.exp_m1()) * (1.0 + 4.0 * f64::EPSILON);
        Ok(DeltaBound { delta: total.min(1.0), order: d.order })
    }

    fn unsupported(&self, event: &DpEvent, reason: impl Into<String>) -> Error {
        Error::Unsupported {
            event: event.describe(),
            neighbouring: self.neighbouring.name().to_string(),
            accountant: "RDP",
            reason: reason.into(),
        }
    }

    /// The multiplier z of a Gaussian release relative to its ℓ2-sensitivity under this
    /// accountant's relation, validated: `Gaussian { z }` as given, `PerExampleSumGaussian { σ }`
    /// as `σ / factor` (the one place the relation's sum-sensitivity factor enters).
    ///
    /// # Errors
    /// `InvalidParameter` for a multiplier that is not finite and > 0; `Unsupported` for an
    /// event that is not a Gaussian release.
    fn gaussian_multiplier(&self, event: &DpEvent) -> Result<f64> {
        self.neighbouring
            .gaussian_multiplier(event)
            .unwrap_or_else(|| Err(self.unsupported(event, "not a Gaussian release")))
    }

    /// The one traversal: validates every parameter and computes the curve of `event`.
    fn curve(&self, event: &DpEvent) -> Result<Curve> {
        let n = self.orders.len();
        // Orders are independent: evaluate them in parallel. Each order's value is computed by the
        // same sequential code, so the result does not depend on the thread count.
        let per_order = |f: &(dyn Fn(f64) -> f64 + Sync)| Curve {
            rdp: self.orders.par_iter().with_min_len(8).map(|&a| upper_or_infinity(f(a))).collect(),
            log_good: 0.0,
        };
        match event {
            DpEvent::Gaussian { .. } | DpEvent::PerExampleSumGaussian { .. } => {
                let z = self.gaussian_multiplier(event)?;
                Ok(per_order(&|a| basic::gaussian_rdp(z, a)))
            }
            DpEvent::Laplace { noise_multiplier: z } => {
                let z = check::positive("laplace noise multiplier", *z)?;
                Ok(per_order(&|a| basic::laplace_rdp(z, a)))
            }
            DpEvent::EpsilonDelta { epsilon, delta } => {
                let e = check::non_negative("epsilon", *epsilon)?;
                let d = check::probability_below_one("delta", *delta)?;
                let mut c = per_order(&|a| basic::pure_dp_rdp(e, a));
                // ln(1 − δ), rounded down (a smaller P(G) is conservative).
                c.log_good = (-d).ln_1p() * (1.0 + 4.0 * f64::EPSILON);
                Ok(c)
            }
            DpEvent::PoissonSampled { sampling_probability: q, event: inner } => {
                let q = check_sampling_probability(*q)?;
                if self.neighbouring != Neighbouring::AddRemove {
                    return Err(self.unsupported(
                        event,
                        "Poisson subsampling is analysed under add/remove only; use --neighbouring add-remove, \
                         or fixed-size sampling without replacement for replace-one",
                    ));
                }
                match inner.as_ref() {
                    DpEvent::Gaussian { .. } | DpEvent::PerExampleSumGaussian { .. } => {
                        let z = self.gaussian_multiplier(inner)?;
                        Ok(per_order(&|a| poisson_gaussian::rdp_upper(q, z, a)))
                    }
                    _ if q == 0.0 => {
                        self.curve(inner)?; // still validate
                        Ok(Curve { rdp: vec![0.0; n], log_good: 0.0 })
                    }
                    _ if q == 1.0 => self.curve(inner),
                    _ => Err(self.unsupported(
                        event,
                        "the RDP accountant bounds Poisson subsampling of the Gaussian mechanism only",
                    )),
                }
            }
            DpEvent::SampledWithoutReplacement { source_dataset_size: nn, sample_size: b, event: inner } => {
                super::event::check_sizes(*nn, *b)?;
                if self.neighbouring != Neighbouring::ReplaceOne {
                    return Err(self.unsupported(
                        event,
                        "sampling without replacement is analysed under replace-one only \
                         (Wang-Balle-Kasiviswanathan 2019); use --neighbouring replace-one",
                    ));
                }
                match inner.as_ref() {
                    DpEvent::Gaussian { .. } | DpEvent::PerExampleSumGaussian { .. } => {
                        let z = self.gaussian_multiplier(inner)?;
                        let gamma = *b as f64 / *nn as f64;
                        let rdp = wor_gaussian::rdp_curve_upper(gamma, z, &self.orders);
                        Ok(Curve { rdp: rdp.into_iter().map(upper_or_infinity).collect(), log_good: 0.0 })
                    }
                    _ if b == nn => self.curve(inner),
                    _ => Err(self.unsupported(
                        event,
                        "the RDP accountant bounds sampling without replacement of the Gaussian mechanism only",
                    )),
                }
            }
            DpEvent::RandomizedResponse { noise_parameter, num_buckets } => {
                super::event::check_randomized_response(*noise_parameter, *num_buckets)?;
                Err(self.unsupported(
                    event,
                    "the RDP accountant has no randomized-response bound; use the PLD accountant \
                     (replace-one)",
                ))
            }
            DpEvent::SampledWithReplacement { .. } => Err(self.unsupported(
                event,
                "no accountant covers sampling with replacement (a record may enter a batch several \
                 times); use Poisson or fixed-size sampling without replacement",
            )),
            DpEvent::PrivacyFilter { .. } => Err(self.unsupported(
                event,
                "a privacy filter is an (epsilon, delta) statement about steps read as (epsilon_t, delta_t) \
                 pairs, not a Renyi curve; use the approximate-DP accountant",
            )),
            DpEvent::SelfComposed { event: inner, count } => {
                let k = crate::special::count_up(check::count("count", *count)?);
                let c = self.curve(inner)?;
                // The one place where a count multiplies (so that no branch can forget it).
                Ok(Curve {
                    rdp: c.rdp.iter().map(|r| (r * k).next_up()).collect(),
                    log_good: c.log_good * k * (1.0 + 2.0 * f64::EPSILON),
                })
            }
            DpEvent::Composed(events) => {
                let mut acc = Curve { rdp: vec![0.0; n], log_good: 0.0 };
                for e in events {
                    let c = self.curve(e)?;
                    for (t, r) in acc.rdp.iter_mut().zip(&c.rdp) {
                        *t = (*t + r).next_up();
                    }
                    acc.log_good = add_down(acc.log_good, c.log_good);
                }
                Ok(acc)
            }
        }
    }
}
