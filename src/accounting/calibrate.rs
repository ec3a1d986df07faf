//! Calibration: the noise multiplier that meets a target (ε, δ).
//!
//! For Poisson-subsampled and unsampled Gaussian events, ε(σ) from the RDP accountant is
//! continuous and non-increasing in σ (each order's RDP is, and so is the minimum over orders of
//! a monotone conversion). The search keeps a bracket `[σ_lo, σ_hi]` with `ε(σ_lo) > ε*` and
//! `ε(σ_hi) ≤ ε*` and shrinks it (Illinois regula falsi with bisection safeguard) until
//! `ε(σ_hi) ≥ (1 − rtol)·ε*`. It returns `σ_hi`, whose ε was *computed*, so the result never
//! overshoots the target.
//!
//! The `rtol` landing needs continuity. One case lacks it, and then the returned σ still meets
//! the target but may be more than `rtol` below it: the total-variation shortcut of the
//! conversion (ε jumps to 0; tiny targets such as 1e-4). The without-replacement bound is
//! non-increasing in σ as well, up to its certified rounding margins (≤ 1e-10 relative): its
//! forward differences always have an accurate certified bound (the alternating sum, or a
//! positive series where that cancels), so no Theorem 27 entry is dropped for Theorem 9. (That
//! fallback made ε(σ) jump *up* as σ grew, ×2.5 at γ = 0.5, α = 16, z ≈ 11.9, and calibrating
//! γ = 1/2, T = 10, ε = 1 returned σ = 632455 instead of 22.80.)
//! Proof: proofs/accounting/calibration.md.

use super::accountant::Accountant;
use super::conversion::Conversion;
use super::event::{DpEvent, Neighbouring};
use super::rdp::RdpAccountant;
use crate::error::{Error, Result, check};
use crate::special::bracket_root;

/// Default relative tolerance: the returned ε is in `[(1 − 1e-3)ε*, ε*]`.
pub const CALIBRATION_RTOL: f64 = 1e-3;

/// A calibrated noise multiplier with the ε the accountant computed for it.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Calibration {
    /// σ: the smallest multiplier found whose ε is ≤ the target.
    pub noise_multiplier: f64,
    /// ε(σ) as computed by the accountant: ≤ target, and ≥ (1 − rtol)·target unless
    /// `epsilon_just_below` is set.
    pub epsilon: f64,
    /// `None` when ε is within `rtol` of the target. Otherwise the accountant's bound jumps at σ
    /// (adjacent floats bracket it): this is ε at the largest σ′ < σ evaluated, which is above
    /// the target (and always finite: an infinite ε there is an error, see
    /// [`calibrate_noise_multiplier_pld`]), so no σ gives an ε within `rtol` and σ is still the
    /// smallest that meets it.
    /// (The RDP bound has a floor of about ln(1/δ)/(α_max − 1) on its grid, below which only the
    /// total-variation bound's ε = 0 meets a target.)
    pub epsilon_just_below: Option<f64>,
    /// The RDP order that attained ε.
    pub order: Option<f64>,
    /// Number of accountant evaluations used.
    pub evaluations: u32,
}

/// The settings of the accountant used for calibration.
#[derive(Debug, Clone)]
pub struct RdpSettings {
    /// Order grid (`None`: the default grid).
    pub orders: Option<Vec<f64>>,
    /// Neighbouring relation.
    pub neighbouring: Neighbouring,
    /// RDP → (ε, δ) conversion.
    pub conversion: Conversion,
}

impl RdpSettings {
    /// Default grid, improved conversion.
    pub fn new(neighbouring: Neighbouring) -> Self {
        RdpSettings { orders: None, neighbouring, conversion: Conversion::Improved }
    }

    /// ε (and its order) of `event` composed once, at `delta`.
    ///
    /// # Errors
    /// As [`RdpAccountant::compose`] and [`RdpAccountant::epsilon`].
    pub fn epsilon(&self, event: &DpEvent, delta: f64) -> Result<super::conversion::EpsilonBound> {
        let mut acc = match &self.orders {
            Some(o) => RdpAccountant::with_orders(o.clone(), self.neighbouring)?,
            None => RdpAccountant::new(self.neighbouring),
        };
        acc.compose(event, 1)?;
        acc.epsilon(delta, self.conversion)
    }
}

/// The smallest σ (within `rtol`) such that `make_event(σ)` is (target_epsilon, delta)-DP by the
/// RDP accountant with `settings`.
///
/// # Errors
/// `InvalidParameter` for ε* ≤ 0, δ ∉ (0, 1), rtol ∉ (0, 0.5); whatever `make_event` or the
/// accountant return (e.g. `Unsupported`); `Numerical` if no σ in [1e-6, 1e8] brackets the target
/// (σ = 1e-6 already meets it, or σ = 1e8 does not).
pub fn calibrate_noise_multiplier(
    target_epsilon: f64,
    delta: f64,
    settings: &RdpSettings,
    rtol: f64,
    make_event: impl Fn(f64) -> Result<DpEvent>,
) -> Result<Calibration> {
    calibrate_by(target_epsilon, delta, rtol, RDP_INFINITE, |sigma| settings.epsilon(&make_event(sigma)?, delta))
}

/// [`calibrate_noise_multiplier`] by the PLD accountant's **upper** end (the certified bracket's
/// upper bound, so the returned σ never overshoots the target); `order` is `None`.
///
/// At a tiny δ the PLD's certified upper end is +∞ below some σ (the discretisation's truncated
/// tail mass, counted in δ, exceeds δ): not a property of the Gaussian mechanism, whose ε is
/// finite at every σ > 0 and δ > 0. The bound then "jumps" from ∞ to the target at a σ that
/// may be thousands of times too large (ε* = 1, δ = 1e-30, T = 1, q = 1: σ = 57320 where RDP
/// meets the target at σ ≈ 12), so that case is an error, never a "smallest σ".
///
/// # Errors
/// As [`calibrate_noise_multiplier`], with the PLD accountant's errors (e.g. `Unsupported` for
/// sampling without replacement); `Numerical` naming the PLD's δ floor (and suggesting the RDP
/// accountant) when ε is infinite just below the σ found, or at every σ ≤ 1e8.
pub fn calibrate_noise_multiplier_pld(
    target_epsilon: f64,
    delta: f64,
    neighbouring: Neighbouring,
    settings: super::pld::PldSettings,
    rtol: f64,
    make_event: impl Fn(f64) -> Result<DpEvent>,
) -> Result<Calibration> {
    calibrate_by(target_epsilon, delta, rtol, PLD_FLOOR, |sigma| {
        let mut acc = super::pld::PldAccountant::with_settings(neighbouring, settings)?;
        acc.compose(&make_event(sigma)?, 1)?;
        Ok(super::conversion::EpsilonBound { epsilon: acc.epsilon(delta)?.upper, order: None })
    })
}

/// Why the PLD's ε can be infinite where the mechanism's is not (an error's reason ends with it,
/// so that a caller can name its own way to select the RDP accountant).
pub const PLD_FLOOR: &str = "the PLD accountant's certified epsilon is infinite there because its discretisation's \
                          truncated tail mass exceeds delta (a floor of the accountant, not of the mechanism); \
                          use the RDP accountant for a delta this small";

/// Why an RDP ε could be infinite (it is finite for Gaussian events at every σ > 0).
const RDP_INFINITE: &str = "the RDP accountant's epsilon is infinite there";

/// The search shared by both accountants: `epsilon_at(σ)` is an upper bound on ε at δ for the
/// event with multiplier σ; `infinite_because` says why that bound can be +∞ (the error when it
/// is, just below the σ found or at every σ searched).
fn calibrate_by(
    target_epsilon: f64,
    delta: f64,
    rtol: f64,
    infinite_because: &str,
    epsilon_at: impl Fn(f64) -> Result<super::conversion::EpsilonBound>,
) -> Result<Calibration> {
    check::positive("target-epsilon", target_epsilon)?;
    check::open_unit("delta", delta)?;
    if !(rtol > 0.0 && rtol < 0.5) {
        return Err(Error::invalid("rtol", rtol, "in (0, 0.5)"));
    }
    let evals = std::cell::Cell::new(0u32);
    // σ values are often evaluated twice (bracketing, then the root finder's ends): memoise.
    let memo = std::cell::RefCell::new(std::collections::HashMap::<u64, super::conversion::EpsilonBound>::new());
    let eps_of = |sigma: f64| -> Result<super::conversion::EpsilonBound> {
        if let Some(b) = memo.borrow().get(&sigma.to_bits()) {
            return Ok(*b);
        }
        evals.set(evals.get() + 1);
        let b = epsilon_at(sigma)?;
        memo.borrow_mut().insert(sigma.to_bits(), b);
        Ok(b)
    };
    // g(σ) = ε(σ)/ε* − 1: decreasing, finite where ε is (0 when the TV bound gives ε = 0).
    let g = |sigma: f64| -> Result<f64> { Ok(eps_of(sigma)?.epsilon / target_epsilon - 1.0) };
    let (mut lo, mut hi) = (0.5, 1.0);
    while g(hi)? > 0.0 {
        (lo, hi) = (hi, hi * 2.0);
        if hi > 1e8 {
            let reason = if eps_of(lo)?.epsilon.is_finite() {
                "target not met for sigma <= 1e8".to_string()
            } else {
                format!("target not met for sigma <= 1e8: epsilon is infinite at sigma = {lo}; {infinite_because}")
            };
            return Err(Error::Numerical { what: "calibration", reason });
        }
    }
    while g(lo)? <= 0.0 {
        (lo, hi) = (lo * 0.5, lo);
        if lo < 1e-6 {
            return Err(Error::Numerical {
                what: "calibration",
                reason: "the target epsilon is met even at sigma = 1e-6, the smallest noise multiplier searched: \
                         no calibration possible (check the target epsilon)"
                    .into(),
            });
        }
    }
    let b = bracket_root("calibration", g, lo, hi, |b| b.g_hi >= -rtol)?;
    let best = eps_of(b.hi)?;
    debug_assert!(best.epsilon <= target_epsilon, "invariant: calibrated epsilon within target");
    let epsilon_just_below =
        if best.epsilon >= (1.0 - rtol) * target_epsilon { None } else { Some(eps_of(b.lo)?.epsilon) };
    if let Some(below) = epsilon_just_below
        && !below.is_finite()
    {
        // Not a jump of the mechanism's privacy: the σ found is no "smallest σ" and may be far
        // too large; refuse rather than return it.
        return Err(Error::Numerical {
            what: "calibration",
            reason: format!(
                "epsilon is infinite just below sigma = {} (at sigma = {}), so that sigma is not the smallest that meets \
                 the target; {infinite_because}",
                b.hi, b.lo
            ),
        });
    }
    Ok(Calibration {
        noise_multiplier: b.hi,
        epsilon: best.epsilon,
        order: best.order,
        evaluations: evals.get(),
        epsilon_just_below,
    })
}
