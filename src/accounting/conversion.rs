//! From a Rényi-DP curve to (ε, δ).
//!
//! For a mechanism that is (α, τ_α)-RDP at every order α of a grid:
//!
//! * **improved** (default): `ε = τ_α + ln(1 − 1/α) − (ln δ + ln α)/(α − 1)`, equivalently
//!   `δ = exp((α−1)(τ_α − ε)) · (1 − 1/α)^{α−1} / α`.
//!   Canonne, Kamath, Steinke 2020 (arXiv 2004.00010v5, Prop. 12); the same bound is
//!   Balle et al. 2020 (arXiv 1905.09982v2, Thm. 21) and Asoodeh et al. 2021 (Eq. 20).
//! * **classic**: `ε = τ_α + ln(1/δ)/(α − 1)`, `δ = exp((α−1)(τ_α − ε))`.
//!   Mironov 2017 (arXiv 1702.07476v3, Prop. 3).
//!
//! Both take the minimum over the grid. Both also use the total-variation bound: Rényi
//! divergences grow with α, so `KL ≤ τ_α` and, by the Bretagnolle–Huber inequality,
//! `TV ≤ √(1 − e^{−τ_α})`; hence if `δ ≥ √(1 − e^{−τ_α})` the mechanism is (0, δ)-DP.
//! Every per-order value is rounded *up* by its floating-point error bound.
//! Proof: proofs/accounting/rdp_conversion.md.

use crate::error::{Error, Result, check};
use serde::{Deserialize, Serialize};

const U: f64 = f64::EPSILON / 2.0;

/// Which RDP → (ε, δ) conversion to apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
pub enum Conversion {
    /// Canonne–Kamath–Steinke 2020 Prop. 12 (default; never larger than classic).
    #[default]
    Improved,
    /// Mironov 2017 Prop. 3, as most papers before 2020 reported.
    Classic,
}

impl Conversion {
    /// The CLI spelling.
    pub fn name(self) -> &'static str {
        match self {
            Conversion::Improved => "improved",
            Conversion::Classic => "classic",
        }
    }
}

/// An upper bound on ε (or δ) and the order that achieved it (`None` when the total-variation
/// bound gave ε = 0 or δ, or when no order gives a finite value).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct EpsilonBound {
    /// ε ≥ the mechanism's true ε at the given δ; may be `+∞`.
    pub epsilon: f64,
    /// The order α at which the minimum was attained.
    pub order: Option<f64>,
}

/// An upper bound on δ at a given ε, with the order that achieved it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct DeltaBound {
    /// δ ≥ the mechanism's true δ(ε); at most 1.
    pub delta: f64,
    /// The order α at which the minimum was attained.
    pub order: Option<f64>,
}

/// `x` plus `k` units of roundoff relative to `magnitude`, then one ulp up.
fn round_up(x: f64, magnitude: f64) -> f64 {
    (x + 4.0 * U * magnitude).next_up()
}

/// The points `(α, τ)` of a curve with a finite τ (an infinite τ gives no bound), in order.
fn finite_points<'a>(orders: &'a [f64], rdp: &'a [f64]) -> impl Iterator<Item = (f64, f64)> + 'a {
    orders.iter().zip(rdp).map(|(&a, &tau)| (a, tau)).filter(|&(_, tau)| !tau.is_infinite())
}

/// The total-variation bound `√(1 − e^{−τ})`, rounded up: a mechanism with RDP τ at any order is
/// `(0, δ)`-DP for every δ at or above it.
fn total_variation_delta(tau: f64) -> f64 {
    round_up((-(-tau).exp_m1()).sqrt(), 1.0)
}

fn check_curve(orders: &[f64], rdp: &[f64]) -> Result<()> {
    if orders.is_empty() {
        return Err(Error::Empty { what: "RDP orders" });
    }
    if orders.len() != rdp.len() {
        return Err(Error::invalid("RDP curve length", rdp.len(), "equal to the number of orders"));
    }
    for &a in orders {
        if !(a.is_finite() && a > 1.0) {
            return Err(Error::invalid("order", a, "> 1 and finite"));
        }
    }
    for &r in rdp {
        if r.is_nan() || r < 0.0 {
            return Err(Error::invalid("rdp", r, ">= 0 (may be +inf)"));
        }
    }
    Ok(())
}

/// The smallest per-order upper bound on ε at `delta` over the grid.
///
/// # Errors
/// `InvalidParameter` for δ ∉ (0, 1), orders ≤ 1, negative or NaN RDP values; `Empty` for no
/// orders.
pub fn epsilon_from_rdp(orders: &[f64], rdp: &[f64], delta: f64, conversion: Conversion) -> Result<EpsilonBound> {
    check::open_unit("delta", delta)?;
    check_curve(orders, rdp)?;
    let ln_delta = delta.ln();
    let mut best = EpsilonBound { epsilon: f64::INFINITY, order: None };
    for (a, tau) in finite_points(orders, rdp) {
        // Total-variation bound: δ ≥ √(1 − e^{−τ}) ⇒ ε = 0 (rounded conservatively: compare
        // against the bound rounded up).
        let tv = total_variation_delta(tau);
        if delta >= tv {
            return Ok(EpsilonBound { epsilon: 0.0, order: None });
        }
        let am1 = a - 1.0;
        let eps = match conversion {
            Conversion::Improved => {
                let (c1, c2) = ((-1.0 / a).ln_1p(), (ln_delta + a.ln()) / am1);
                round_up(tau + c1 - c2, tau + c1.abs() + c2.abs())
            }
            Conversion::Classic => {
                let c = -ln_delta / am1;
                round_up(tau + c, tau + c)
            }
        };
        if eps < best.epsilon {
            best = EpsilonBound { epsilon: eps.max(0.0), order: Some(a) };
        }
    }
    Ok(best)
}

/// The smallest per-order upper bound on δ at `epsilon` over the grid (capped at 1).
///
/// # Errors
/// `InvalidParameter` for ε < 0 or NaN and for an invalid curve; `Empty` for no orders.
pub fn delta_from_rdp(orders: &[f64], rdp: &[f64], epsilon: f64, conversion: Conversion) -> Result<DeltaBound> {
    check::non_negative("epsilon", epsilon)?;
    check_curve(orders, rdp)?;
    let mut best = DeltaBound { delta: 1.0, order: None };
    for (a, tau) in finite_points(orders, rdp) {
        let tv = total_variation_delta(tau);
        if tv < best.delta {
            best = DeltaBound { delta: tv, order: None };
        }
        let am1 = a - 1.0;
        let log_delta = match conversion {
            Conversion::Improved => {
                let (c1, c2, c3) = (am1 * (tau - epsilon), am1 * (-1.0 / a).ln_1p(), a.ln());
                round_up(c1 + c2 - c3, c1.abs() + c2.abs() + c3)
            }
            Conversion::Classic => {
                let c = am1 * (tau - epsilon);
                round_up(c, c.abs())
            }
        };
        // exp rounds within 1 ulp; step up one more.
        let d = log_delta.exp().next_up().min(1.0);
        if d < best.delta {
            best = DeltaBound { delta: d, order: Some(a) };
        }
    }
    Ok(best)
}
