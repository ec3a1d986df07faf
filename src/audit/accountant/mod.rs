//! Auditing another library's accountant: a **certified lower bound** on the true ε(δ) of a
//! described mechanism, held against the ε the accountant claims.
//!
//! [`audit_claim`] takes an event (dpref's [`DpEvent`], or one read from dp_accounting's JSON by
//! [`crate::accounting::external`]), the claimed ε, δ and the neighbouring relation, and returns
//! an [`AccountantVerdict`]:
//!
//! * `lower`: the largest of the certified lower bounds available: the optimistic PLD of the
//!   whole event ([`lower`]) and, where the event has one, an exact curve evaluated from below
//!   ([`closed_form`]). The true ε(δ) of the mechanism's worst case is ≥ `lower`.
//! * `upper`: the smaller of dpref's RDP and PLD upper bounds where they support the event
//!   (`None` if neither does).
//! * `verdict`: [`Verdict::UnderReports`] iff `claimed < lower`: the claim is provably false.
//!
//! [`broken`] is a catalogue of wrong accountants, each producing a claim that this audit flags.
//!
//! Proof: proofs/audit/accountant.md.

pub mod broken;
pub mod closed_form;
pub mod lower;

use crate::accounting::event::{DpEvent, Neighbouring};
use crate::accounting::pld::{Direction, PldAccountant, PldSettings};
use crate::accounting::{Accountant, RdpAccountant};
use crate::error::{Error, Result, check};
use closed_form::ClosedForm;
use serde::Serialize;

/// The verdict on a claimed ε.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Verdict {
    /// The claim is below the certified lower bound: the accountant under-reports.
    UnderReports,
    /// The claim is within `[lower, upper)`: not refuted, but above it dpref can certify no more.
    WithinBracket,
    /// The claim is at or above dpref's upper bound: the mechanism meets it.
    Sound,
    /// The claim is at or above the lower bound and no dpref accountant bounds the event from
    /// above: not refuted.
    NotRefuted,
}

impl Verdict {
    /// The CLI/JSON spelling.
    pub fn name(self) -> &'static str {
        match self {
            Verdict::UnderReports => "under-reports",
            Verdict::WithinBracket => "within-bracket",
            Verdict::Sound => "sound",
            Verdict::NotRefuted => "not-refuted",
        }
    }
}

/// Where the lower bound came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum LowerSource {
    /// The optimistic PLD of the whole event.
    OptimisticPld,
    /// An exact curve.
    ClosedForm(#[serde(serialize_with = "ser_closed")] ClosedForm),
}

fn ser_closed<S: serde::Serializer>(c: &ClosedForm, s: S) -> std::result::Result<S::Ok, S::Error> {
    s.serialize_str(c.name())
}

impl LowerSource {
    /// A name for reports.
    pub fn name(self) -> &'static str {
        match self {
            LowerSource::OptimisticPld => "optimistic PLD",
            LowerSource::ClosedForm(c) => c.name(),
        }
    }
}

/// What [`audit_claim`] judges: an ε claimed at δ under a neighbouring relation.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct AccountantClaim {
    /// The ε claimed.
    pub claimed_epsilon: f64,
    /// δ.
    pub delta: f64,
    /// The relation.
    pub neighbouring: Neighbouring,
}

impl AccountantClaim {
    /// The claim `claimed_epsilon` at `delta` under `neighbouring`, checked.
    ///
    /// # Errors
    /// `InvalidParameter` for a claim that is negative, NaN or infinite, or δ ∉ (0, 1).
    pub fn new(claimed_epsilon: f64, delta: f64, neighbouring: Neighbouring) -> Result<Self> {
        AccountantClaim { claimed_epsilon, delta, neighbouring }.validated()
    }

    /// The same claim, checked (a claim built field by field is checked here before any audit).
    ///
    /// # Errors
    /// As [`AccountantClaim::new`].
    pub fn validated(self) -> Result<Self> {
        check::non_negative("claimed epsilon", self.claimed_epsilon)?;
        check::open_unit("delta", self.delta)?;
        Ok(self)
    }
}

/// The result of [`audit_claim`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AccountantVerdict {
    /// The claim judged.
    #[serde(flatten)]
    pub claim: AccountantClaim,
    /// Certified lower bound on the true ε(δ).
    pub lower: f64,
    /// Its source.
    pub lower_source: LowerSource,
    /// The optimistic PLD's value (also a certified lower bound), if it could be computed.
    pub lower_pld: Option<f64>,
    /// dpref's upper bound (the smaller of RDP and PLD), if any accountant supports the event.
    pub upper: Option<f64>,
    /// Which accountant gave `upper` (`"rdp"` or `"pld"`).
    pub upper_source: Option<&'static str>,
    /// Sub-events without a lower-bound model, dropped from the lower bound (named).
    pub dropped: Vec<String>,
    /// The verdict.
    pub verdict: Verdict,
}

/// The settings of [`audit_claim`]: the PLD grid of the lower (and PLD upper) bound.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct AuditAccountantSettings {
    /// PLD settings (default: [`PldSettings::default`], dp_accounting's h = 1e-4). Where the
    /// optimistic PLD certifies nothing (0) on this grid, the lower side is retried once at h/10.
    pub pld: PldSettings,
}

/// Audits a claimed ε at δ for `event` under `neighbouring` (default settings).
///
/// ```
/// use dpref::accounting::{DpEvent, Neighbouring};
/// use dpref::audit::accountant::{Verdict, audit_claim};
/// // anchors C20: dp_accounting 0.6.0 drops the count of this event and claims 1.0987.
/// let rr = DpEvent::self_composed(DpEvent::randomized_response(0.5, 2)?, 10)?;
/// let v = audit_claim(&rr, 1.0987, 1e-6, Neighbouring::ReplaceOne)?;
/// assert_eq!(v.verdict, Verdict::UnderReports);
/// assert!(v.lower > 10.98 && v.lower <= 10.9862);
/// # Ok::<(), dpref::Error>(())
/// ```
///
/// # Errors
/// `InvalidParameter` for a claim that is negative, NaN or infinite, or δ ∉ (0, 1); the event's
/// own validation errors; `Unsupported` for randomized response under add/remove; `Numerical`
/// if no certified lower bound can be computed (e.g. a grid too large) or the bounds contradict
/// each other.
///
/// Proof: proofs/audit/accountant.md.
pub fn audit_claim(
    event: &DpEvent,
    claimed_epsilon: f64,
    delta: f64,
    neighbouring: Neighbouring,
) -> Result<AccountantVerdict> {
    audit_claim_with(
        event,
        AccountantClaim::new(claimed_epsilon, delta, neighbouring)?,
        AuditAccountantSettings::default(),
    )
}

/// [`audit_claim`] of an [`AccountantClaim`] with explicit settings.
///
/// # Errors
/// As [`audit_claim`], and `InvalidParameter` for invalid PLD settings.
pub fn audit_claim_with(
    event: &DpEvent,
    claim: AccountantClaim,
    settings: AuditAccountantSettings,
) -> Result<AccountantVerdict> {
    let claim = claim.validated()?;
    let AccountantClaim { claimed_epsilon, delta, neighbouring } = claim;
    let pld_settings = settings.pld.validated()?;

    // Lower bounds: the optimistic PLD (both directions: each is a pair the mechanism can
    // produce), and the closed forms.
    let optimistic = |settings: PldSettings| -> (Result<f64>, Vec<String>) {
        let mut lp = lower::LowerPld { neighbouring, settings, dropped: Vec::new() };
        let bound = (|| -> Result<f64> {
            let mut best = 0.0f64;
            // The add direction differs from the remove direction only through Poisson-subsampled
            // Gaussians under add/remove; every other leaf's pair is symmetric.
            let dirs: &[Direction] = if asymmetric(event, neighbouring) {
                &[Direction::Remove, Direction::Add]
            } else {
                &[Direction::Remove]
            };
            for &dir in dirs {
                let e = lp.pld(event, dir)?.epsilon(delta);
                best = best.max(if e.is_nan() { 0.0 } else { e });
            }
            Ok(best)
        })();
        (bound, lp.dropped)
    };
    let (mut pld_lower, dropped) = optimistic(pld_settings);
    // Nothing certified on the grid: the optimistic side rounds every loss down to a multiple of
    // h, and per-step losses below h vanish (Poisson rate 2.6e-4, σ = 1, 192 250 steps read 0 at
    // h = 1e-4 and 0.615 at h = 1e-5, in 0.14 s). One retry at h/10; any error there keeps 0.
    if matches!(pld_lower, Ok(v) if v == 0.0) {
        let h = pld_settings.value_discretization_interval / 10.0;
        if let Ok(finer) = (PldSettings { value_discretization_interval: h, ..pld_settings }).validated()
            && let (Ok(v), _) = optimistic(finer)
        {
            pld_lower = Ok(v);
        }
    }
    let closed = [
        (ClosedForm::Gaussian, closed_form::gaussian_lower(event, neighbouring, delta)),
        (ClosedForm::RandomizedResponse, closed_form::randomized_response_lower(event, neighbouring, delta)),
        (ClosedForm::Laplace, closed_form::laplace_lower(event, delta)),
    ];
    let mut best: Option<(f64, LowerSource)> = None;
    let mut consider = |v: f64, s: LowerSource| {
        if !v.is_nan() && best.is_none_or(|(b, _)| v > b) {
            best = Some((v, s));
        }
    };
    let lower_pld = match pld_lower {
        Ok(v) => {
            consider(v, LowerSource::OptimisticPld);
            Some(v)
        }
        Err(e @ (Error::InvalidParameter { .. } | Error::Unsupported { .. })) => return Err(e),
        Err(_) => None,
    };
    let mut closed_err = None;
    for (form, r) in closed {
        match r {
            Ok(Some(v)) => consider(v, LowerSource::ClosedForm(form)),
            Ok(None) => {}
            Err(e) => closed_err = Some(e),
        }
    }
    let Some((lower, lower_source)) = best else {
        // Neither the PLD nor a closed form gave a bound: report why.
        return Err(match (pld_lower_error(event, neighbouring, pld_settings, delta), closed_err) {
            (Some(e), _) | (None, Some(e)) => e,
            (None, None) => Error::Numerical { what: "accountant audit", reason: "no certified lower bound".into() },
        });
    };

    // Upper bounds: dpref's accountants, where they support the event.
    let mut upper: Option<(f64, &'static str)> = None;
    let mut take = |r: Result<f64>, name: &'static str| -> Result<()> {
        match r {
            Ok(v) if !v.is_nan() => {
                if upper.is_none_or(|(u, _)| v < u) {
                    upper = Some((v, name));
                }
                Ok(())
            }
            Ok(_) | Err(Error::Unsupported { .. } | Error::Numerical { .. }) => Ok(()),
            Err(e) => Err(e),
        }
    };
    take(crate::accounting::epsilon_upper_of(event, &mut RdpAccountant::new(neighbouring), delta), "rdp")?;
    let mut pld = PldAccountant::with_settings(neighbouring, pld_settings)?;
    take(crate::accounting::epsilon_upper_of(event, &mut pld, delta), pld.name())?;
    if let Some((u, name)) = upper.filter(|&(u, _)| lower > u) {
        return Err(Error::Numerical {
            what: "accountant audit",
            reason: format!("the certified lower bound {lower} exceeds the {name} upper bound {u}"),
        });
    }
    let verdict = if claimed_epsilon < lower {
        Verdict::UnderReports
    } else {
        match upper {
            Some((u, _)) if claimed_epsilon >= u => Verdict::Sound,
            Some(_) => Verdict::WithinBracket,
            None => Verdict::NotRefuted,
        }
    };
    Ok(AccountantVerdict {
        claim,
        lower,
        lower_source,
        lower_pld,
        upper: upper.map(|(u, _)| u),
        upper_source: upper.map(|(_, n)| n),
        dropped,
        verdict,
    })
}

/// Whether `event` holds a leaf whose add-direction PLD differs from its remove-direction PLD
/// (a Poisson-subsampled Gaussian with q ∈ (0, 1) under add/remove).
fn asymmetric(event: &DpEvent, neighbouring: Neighbouring) -> bool {
    match event {
        DpEvent::PoissonSampled { sampling_probability: q, event } => {
            (neighbouring == Neighbouring::AddRemove && *q > 0.0 && *q < 1.0) || asymmetric(event, neighbouring)
        }
        DpEvent::SampledWithoutReplacement { event, .. }
        | DpEvent::SampledWithReplacement { event, .. }
        | DpEvent::SelfComposed { event, .. } => asymmetric(event, neighbouring),
        DpEvent::Composed(es) => es.iter().any(|e| asymmetric(e, neighbouring)),
        _ => false,
    }
}

/// The error of the optimistic-PLD traversal (re-run to report it).
fn pld_lower_error(event: &DpEvent, neighbouring: Neighbouring, settings: PldSettings, delta: f64) -> Option<Error> {
    let mut lp = lower::LowerPld { neighbouring, settings, dropped: Vec::new() };
    lp.pld(event, Direction::Remove).err().or_else(|| check::open_unit("delta", delta).err())
}
