//! A catalogue of broken accountants: each is a function that computes a claimed ε the way a
//! real, wrong accountant does, and a described event on which its claim is below the certified
//! lower bound of [`super::audit_claim`] (so the audit flags it, exit code 3 in the CLI).
//!
//! | entry | bug | anchor |
//! |---|---|---|
//! | [`dropped_count`] | the composition count of a self-composed event is ignored | C20 (dp_accounting 0.6.0 PLD, randomized response) |
//! | [`integer_orders_floor`] | RDP evaluated at integer orders only; a fractional order α reads the value at ⌊α⌋ | C14 (fractional-order RDP underestimation) |
//! | [`poisson_for_fixed_size`] | Poisson add/remove amplification (q = b/n) claimed for fixed-size batches | C5 |
//! | [`add_remove_for_replace_one`] | the add/remove bound claimed under replace-one | A.7 |
//! | [`classic_gaussian_large_epsilon`] | σ = √(2 ln(1.25/δ))/ε used for ε ≥ 1 | C16 |
//! | [`gdp_clt_as_upper_bound`] | the GDP central-limit approximation reported as ε | C13 |
//! | [`wrong_sampling_rate`] | the sampling rate q/10 accounted for batches drawn at rate q | C6 (Opacus #813) |
//! | [`microbatch_sensitivity`] | one record moves two clipped microbatch means (2C) but σC noise is accounted as sensitivity C | C8 |
//!
//! Each entry's setting is one where the error is large enough to be certified (the lower bound
//! is the optimistic PLD or an exact curve, so an error smaller than the bracket width cannot be
//! flagged); its doc says why that setting. Proof: proofs/audit/accountant.md (§4).

use super::AccountantClaim;
use crate::accounting::conversion::{Conversion, epsilon_from_rdp};
use crate::accounting::event::{DpEvent, Neighbouring};
use crate::accounting::pld::PldAccountant;
use crate::accounting::rdp::{RdpAccountant, default_orders};
use crate::accounting::{Accountant, epsilon_upper_of, gdp};
use crate::error::{Result, check};

/// One broken accountant on one event.
#[derive(Debug, Clone, PartialEq)]
pub struct BrokenClaim {
    /// Short name (the function's).
    pub name: &'static str,
    /// The bug, with its anchor.
    pub bug: &'static str,
    /// The event the wrong accountant was asked about.
    pub event: DpEvent,
    /// The ε the broken accountant claims, at δ, under the relation the event is meant under.
    pub claim: AccountantClaim,
}

/// Every entry, at its documented setting.
///
/// # Errors
/// Only if an internal computation fails (a defect).
pub fn catalogue() -> Result<Vec<BrokenClaim>> {
    Ok(vec![
        dropped_count()?,
        integer_orders_floor()?,
        poisson_for_fixed_size()?,
        add_remove_for_replace_one()?,
        classic_gaussian_large_epsilon()?,
        gdp_clt_as_upper_bound()?,
        wrong_sampling_rate()?,
        microbatch_sensitivity()?,
    ])
}

/// The event with every `SelfComposed` count replaced by 1.
fn drop_counts(e: &DpEvent) -> DpEvent {
    match e {
        DpEvent::SelfComposed { event, .. } => drop_counts(event),
        DpEvent::Composed(es) => DpEvent::Composed(es.iter().map(drop_counts).collect()),
        DpEvent::PoissonSampled { sampling_probability, event } => {
            DpEvent::PoissonSampled { sampling_probability: *sampling_probability, event: Box::new(drop_counts(event)) }
        }
        other => other.clone(),
    }
}

/// The broken accountant of anchors C20: composes `SelfComposed(e, k)` as `e` (the count is
/// dropped), then answers with a correct PLD bound of what it composed.
///
/// # Errors
/// As the PLD accountant.
pub fn dropped_count_claim(event: &DpEvent, neighbouring: Neighbouring, delta: f64) -> Result<f64> {
    epsilon_upper_of(&drop_counts(event), &mut PldAccountant::new(neighbouring), delta)
}

/// C20: randomized response p = 0.5, 2 buckets, replace-one, composed 10 times, δ = 1e-6.
/// dp_accounting 0.6.0 reports 1.0987; this entry's claim (dpref's PLD of one run) is 1.0987 too;
/// the truth is 10.9861.
///
/// # Errors
/// Only on a defect.
pub fn dropped_count() -> Result<BrokenClaim> {
    let event = DpEvent::self_composed(DpEvent::randomized_response(0.5, 2)?, 10)?;
    let (neighbouring, delta) = (Neighbouring::ReplaceOne, 1e-6);
    Ok(BrokenClaim {
        name: "dropped_count",
        bug: "the composition count is dropped (anchors C20: dp_accounting 0.6.0 PLD, RandomizedResponseDpEvent x10)",
        claim: AccountantClaim::new(dropped_count_claim(&event, neighbouring, delta)?, delta, neighbouring)?,
        event,
    })
}

/// The broken RDP accountant that evaluates the RDP curve at integer orders only and gives a
/// fractional order α of the grid the value at ⌊α⌋ (for α < 2, the value at 1 + 1e-6, the KL
/// limit), i.e. interpolates downwards; RDP is non-decreasing in α, so every value is too small.
///
/// # Errors
/// As the RDP accountant.
pub fn integer_orders_floor_claim(event: &DpEvent, neighbouring: Neighbouring, delta: f64) -> Result<f64> {
    check::open_unit("delta", delta)?;
    let orders = default_orders();
    let floor = |a: f64| if a < 2.0 { 1.0 + 1e-6 } else { a.floor() };
    let mut floors: Vec<f64> = orders.iter().map(|&a| floor(a)).collect();
    floors.dedup();
    let mut acc = RdpAccountant::with_orders(floors, neighbouring)?;
    acc.compose(event, 1)?;
    let (fo, fr) = (acc.orders().to_vec(), acc.rdp().to_vec());
    let rdp: Vec<f64> = orders
        .iter()
        .map(|&a| {
            let i = fo.iter().position(|&o| o == floor(a)).expect("invariant: every floor is on the grid");
            fr[i]
        })
        .collect();
    Ok(epsilon_from_rdp(&orders, &rdp, delta, Conversion::Improved)?.epsilon)
}

/// Integer orders interpolated downwards, on 25 unsampled Gaussian releases with z = 0.5
/// (μ = 10, δ = 1e-5). The setting has its best order below 2, where the floor reads the KL
/// value and the claim falls far below the truth; for DP-SGD settings whose best order is
/// large, ⌊α⌋ differs from α by a few per cent, less than the 8–31 % gap between RDP and the
/// truth (anchors A.1), and the error cannot be certified.
///
/// # Errors
/// Only on a defect.
pub fn integer_orders_floor() -> Result<BrokenClaim> {
    let event = DpEvent::self_composed(DpEvent::gaussian(0.5)?, 25)?;
    let (neighbouring, delta) = (Neighbouring::AddRemove, 1e-5);
    Ok(BrokenClaim {
        name: "integer_orders_floor",
        bug: "RDP at integer orders only, fractional orders read from the order below (anchors C14)",
        claim: AccountantClaim::new(integer_orders_floor_claim(&event, neighbouring, delta)?, delta, neighbouring)?,
        event,
    })
}

/// The broken accountant that accounts fixed-size batches of b out of n as Poisson sampling with
/// q = b/n under add/remove (anchors C5): PLD upper bound of the Poisson event.
///
/// # Errors
/// As the PLD accountant.
pub fn poisson_for_fixed_size_claim(n: u64, b: u64, sigma: f64, steps: u64, delta: f64) -> Result<f64> {
    let step = DpEvent::poisson_sampled(b as f64 / n as f64, crate::accounting::per_example_sum_gaussian(sigma)?)?;
    epsilon_upper_of(&DpEvent::self_composed(step, steps)?, &mut PldAccountant::new(Neighbouring::AddRemove), delta)
}

/// Poisson claimed for fixed-size batches: b = 100 of n = 10000 per step, σ = 1 (per-example
/// sum), 1000 steps, δ = 1e-5; the batches are fixed-size, whose relation is replace-one (a
/// replaced record moves the sum by 2C). Shuffled batches (each record once per epoch) have no
/// event in dpref or dp_accounting; their truth is at least that of one epoch without
/// amplification, which is not computed here.
///
/// # Errors
/// Only on a defect.
pub fn poisson_for_fixed_size() -> Result<BrokenClaim> {
    let (n, b, sigma, steps, delta) = (10_000, 100, 1.0, 1000, 1e-5);
    let step = DpEvent::sampled_without_replacement(n, b, crate::accounting::per_example_sum_gaussian(sigma)?)?;
    Ok(BrokenClaim {
        name: "poisson_for_fixed_size",
        bug: "Poisson add/remove amplification with q = b/n claimed for fixed-size batches (anchors C5)",
        claim: AccountantClaim::new(
            poisson_for_fixed_size_claim(n, b, sigma, steps, delta)?,
            delta,
            Neighbouring::ReplaceOne,
        )?,
        event: DpEvent::self_composed(step, steps)?,
    })
}

/// The broken accountant that answers a replace-one question with its add/remove bound (the
/// same event, the other relation): PLD upper bound under add/remove.
///
/// # Errors
/// As the PLD accountant.
pub fn add_remove_for_replace_one_claim(event: &DpEvent, delta: f64) -> Result<f64> {
    epsilon_upper_of(event, &mut PldAccountant::new(Neighbouring::AddRemove), delta)
}

/// Add/remove claimed for replace-one: anchors G2's DP-SGD (q = 256/60000, σ = 1.1 per-example
/// sum, 14063 steps, δ = 1e-5), whose add/remove PLD ε is 2.3817 and whose replace-one ε is
/// about 4.22 (anchors A.7).
///
/// # Errors
/// Only on a defect.
pub fn add_remove_for_replace_one() -> Result<BrokenClaim> {
    let step = DpEvent::poisson_sampled(256.0 / 60000.0, crate::accounting::per_example_sum_gaussian(1.1)?)?;
    let event = DpEvent::self_composed(step, 14_063)?;
    let delta = 1e-5;
    Ok(BrokenClaim {
        name: "add_remove_for_replace_one",
        bug: "the add/remove amplification bound claimed under replace-one (anchors A.7)",
        claim: AccountantClaim::new(add_remove_for_replace_one_claim(&event, delta)?, delta, Neighbouring::ReplaceOne)?,
        event,
    })
}

/// The classic Gaussian calibration `z = √(2 ln(1.25/δ))/ε` (Dwork & Roth Thm. A.1, valid for
/// ε < 1 only), used at any ε: returns the event (one Gaussian release with that z) and the
/// claim ε.
///
/// # Errors
/// `InvalidParameter` for ε ≤ 0 or δ ∉ (0, 1).
pub fn classic_gaussian_claim(epsilon: f64, delta: f64) -> Result<(DpEvent, f64)> {
    check::positive("epsilon", epsilon)?;
    check::open_unit("delta", delta)?;
    let z = (2.0 * (1.25 / delta).ln()).sqrt() / epsilon;
    Ok((DpEvent::gaussian(z)?, epsilon))
}

/// The classic formula at ε = 20, δ = 1e-5 (z ≈ 0.242): the analytic curve gives a larger ε.
/// The formula's error grows with ε; below about ε ≈ 5 at this δ it over-noises and is sound.
///
/// # Errors
/// Only on a defect.
pub fn classic_gaussian_large_epsilon() -> Result<BrokenClaim> {
    let delta = 1e-5;
    let (event, claimed_epsilon) = classic_gaussian_claim(20.0, delta)?;
    Ok(BrokenClaim {
        name: "classic_gaussian_large_epsilon",
        bug: "the classic Gaussian formula sigma = sqrt(2 ln(1.25/delta))/epsilon used for epsilon >= 1 (anchors C16)",
        claim: AccountantClaim::new(claimed_epsilon, delta, Neighbouring::AddRemove)?,
        event,
    })
}

/// The GDP central-limit approximation of Bu et al. (Opacus' `gdp` accountant) for T Poisson
/// steps: `μ = q·√(T(e^{1/σ²} − 1))`, ε from μ-GDP.
///
/// # Errors
/// `InvalidParameter` for invalid parameters.
pub fn gdp_clt_claim(q: f64, sigma: f64, steps: u64, delta: f64) -> Result<f64> {
    check::rate("q", q)?;
    check::positive("sigma", sigma)?;
    let mu = q * (steps as f64 * (1.0 / (sigma * sigma)).exp_m1()).sqrt();
    gdp::epsilon_for_delta(mu, delta)
}

/// The GDP CLT as an upper bound at anchors G10: σ = 3, q = 0.2, 50 steps, δ = 1/48000: the CLT
/// gives 1.8385 where the truth (PLD) is 1.9608 (Opacus #643). At DP-SGD settings with tiny q
/// and many steps (G2: 2.3244 vs 2.3817) the gap is also certified at h = 1e-4.
///
/// # Errors
/// Only on a defect.
pub fn gdp_clt_as_upper_bound() -> Result<BrokenClaim> {
    let (q, sigma, steps, delta) = (0.2, 3.0, 50, 1.0 / 48000.0);
    let step = DpEvent::poisson_sampled(q, DpEvent::gaussian(sigma)?)?;
    Ok(BrokenClaim {
        name: "gdp_clt_as_upper_bound",
        bug: "the GDP central-limit approximation reported as an upper bound (anchors C13)",
        claim: AccountantClaim::new(gdp_clt_claim(q, sigma, steps, delta)?, delta, Neighbouring::AddRemove)?,
        event: DpEvent::self_composed(step, steps)?,
    })
}

/// T Poisson(q)-sampled steps of the per-example-sum Gaussian with multiplier σ.
fn poisson_steps(q: f64, sigma: f64, steps: u64) -> Result<DpEvent> {
    DpEvent::self_composed(DpEvent::poisson_sampled(q, crate::accounting::per_example_sum_gaussian(sigma)?)?, steps)
}

/// The PLD upper bound at δ of [`poisson_steps`] under add/remove: what C6's and C8's broken
/// accountants answer, each for the wrong mechanism.
fn pld_claim(q: f64, sigma: f64, steps: u64, delta: f64) -> Result<f64> {
    epsilon_upper_of(&poisson_steps(q, sigma, steps)?, &mut PldAccountant::new(Neighbouring::AddRemove), delta)
}

/// The broken accountant of anchors C6 (Opacus #813 / PR #815: with a `WeightedRandomSampler`
/// the engine took `sample_rate = 1/len(data_loader)`, off by 781–45 000×): it is given a
/// sampling rate `rate_divisor` times smaller than the rate q the batches are drawn at, and
/// answers with a correct PLD upper bound for that rate.
///
/// # Errors
/// As the PLD accountant; `InvalidParameter` for a divisor < 1.
pub fn wrong_sampling_rate_claim(q: f64, rate_divisor: f64, sigma: f64, steps: u64, delta: f64) -> Result<f64> {
    if rate_divisor.is_nan() || rate_divisor < 1.0 {
        return Err(crate::error::Error::invalid("rate divisor", rate_divisor, ">= 1"));
    }
    pld_claim(q / rate_divisor, sigma, steps, delta)
}

/// C6 at a mild factor: batches drawn at q = 0.01 (σ = 1 per-example sum, 1000 steps,
/// add/remove, δ = 1e-5) accounted at q/10 = 0.001. The real factors (≥ 781) are flagged a
/// fortiori: the claim only decreases as the divisor grows.
///
/// # Errors
/// Only on a defect.
pub fn wrong_sampling_rate() -> Result<BrokenClaim> {
    let (q, sigma, steps, delta) = (0.01, 1.0, 1000, 1e-5);
    Ok(BrokenClaim {
        name: "wrong_sampling_rate",
        bug: "the sampling rate q/10 accounted for batches drawn at rate q (anchors C6: Opacus #813)",
        claim: AccountantClaim::new(
            wrong_sampling_rate_claim(q, 10.0, sigma, steps, delta)?,
            delta,
            Neighbouring::AddRemove,
        )?,
        event: poisson_steps(q, sigma, steps)?,
    })
}

/// The broken accountant of anchors C8 (TF Privacy microbatching, b/271462792; "How to DP-fy
/// ML" §5.6): the batch is split into microbatches whose *means* are clipped to C and summed
/// with N(0, σ²C²) noise. One added or removed record can move two microbatch means (the split
/// shifts), so the sum moves by up to 2C: the true multiplier is σ/2. This accountant uses
/// multiplier σ (sensitivity C), a correct PLD bound for that.
///
/// # Errors
/// As the PLD accountant.
pub fn microbatch_sensitivity_claim(q: f64, sigma: f64, steps: u64, delta: f64) -> Result<f64> {
    pld_claim(q, sigma, steps, delta)
}

/// C8: q = 0.01, noise σC with σ = 1.5, 500 steps, add/remove, δ = 1e-5; the event is the
/// released mechanism, a 2C move under σC noise (multiplier 0.75).
///
/// # Errors
/// Only on a defect.
pub fn microbatch_sensitivity() -> Result<BrokenClaim> {
    let (q, sigma, steps, delta) = (0.01, 1.5, 500, 1e-5);
    Ok(BrokenClaim {
        name: "microbatch_sensitivity",
        bug: "microbatch means moved by 2C accounted with sensitivity C (anchors C8: TF Privacy microbatching)",
        claim: AccountantClaim::new(
            microbatch_sensitivity_claim(q, sigma, steps, delta)?,
            delta,
            Neighbouring::AddRemove,
        )?,
        // the released mechanism: sensitivity 2C under noise σC, i.e. multiplier σ/2
        event: poisson_steps(q, sigma / 2.0, steps)?,
    })
}
