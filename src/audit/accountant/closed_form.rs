//! Exact privacy curves, evaluated as certified **lower** bounds on ε(δ), for the events that
//! have one (proofs/audit/accountant.md §3.2):
//!
//! * compositions of unsampled Gaussian releases: one Gaussian release with
//!   `μ = (Σ 1/zᵢ²)^{1/2}` (Dong, Roth, Su 2019, arXiv 1905.02383v3, Cor. 3.3), analytic curve of
//!   Balle & Wang 2018 (arXiv 1805.06530v2, Thm. 8);
//! * T runs of k-ary randomized response under replace-one: the privacy loss is `j·l`,
//!   `l = ln(1 + k(1 − p)/p)`, with j = (#true answers) − (#answers of the replacement's bucket),
//!   a difference of multinomial counts; δ(ε) is the exact finite sum;
//! * one Laplace release: `ε(δ) = 1/z + 2 ln(1 − δ)` (for δ < 1 − e^{−1/(2z)}, else 0).

use crate::accounting::event::{DpEvent, Neighbouring};
use crate::accounting::gaussian::{doubling_upper_end, log_delta_lower};
use crate::error::{Result, check};
use crate::special::{bracket_root, ln_factorial, log_add, normal_cdf, normal_quantile};

/// The largest composition count the randomized-response sum is evaluated for (k = 2: T + 1
/// terms; k > 2: (T + 1)(T + 2)/2 terms, capped at 2000 runs).
pub const MAX_RR_RUNS: u64 = 100_000;
const MAX_RR_RUNS_MULTI: u64 = 2_000;

/// Relative safety margin on the randomized-response δ: above the rounding of the sum's terms
/// (lgamma within a few ulp of `ln T!` ≤ 1.2e6 for T ≤ 1e5, i.e. ≤ 1e-9 relative).
const RR_MARGIN: f64 = 1e-7;

/// A further relative margin taken off every closed-form lower bound: the error bounds above rest
/// on libm's erfc/lgamma accuracy claims, which are not proven here; 1e-10 is far above their
/// stated few-ulp errors and far below what the closed forms gain over the optimistic PLD
/// (≈ h = 1e-4). It also keeps the bound below published exact values that were themselves found
/// by a root finder (anchors G7: 4.377178095681137, 2e-14 below this evaluation's root).
pub const CLOSED_FORM_MARGIN: f64 = 1e-10;

fn with_margin(e: f64) -> f64 {
    (e * (1.0 - CLOSED_FORM_MARGIN)).next_down().max(0.0)
}

/// Which exact curve was used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClosedForm {
    /// Composed unsampled Gaussians (μ-GDP).
    Gaussian,
    /// Composed randomized response (multinomial sum).
    RandomizedResponse,
    /// One Laplace release.
    Laplace,
}

impl ClosedForm {
    /// A name for reports.
    pub fn name(self) -> &'static str {
        match self {
            ClosedForm::Gaussian => "exact Gaussian composition (mu-GDP)",
            ClosedForm::RandomizedResponse => "exact randomized-response composition",
            ClosedForm::Laplace => "exact Laplace curve",
        }
    }
}

/// Σ 1/zᵢ² over the releases of an event made only of unsampled Gaussian releases (`None`
/// otherwise), rounded down.
fn gaussian_precision(e: &DpEvent, f: f64) -> Option<f64> {
    match e {
        DpEvent::Gaussian { noise_multiplier: z } if z.is_finite() && *z > 0.0 => Some((1.0 / (z * z)).next_down()),
        DpEvent::PerExampleSumGaussian { noise_multiplier: s } if s.is_finite() && *s > 0.0 => {
            let z = s / f;
            Some((1.0 / (z * z)).next_down())
        }
        DpEvent::SelfComposed { event, count } if *count >= 1 => {
            gaussian_precision(event, f).map(|p| (p * *count as f64).next_down())
        }
        DpEvent::PoissonSampled { sampling_probability, event } if *sampling_probability == 1.0 => {
            gaussian_precision(event, f)
        }
        DpEvent::SampledWithoutReplacement { source_dataset_size: n, sample_size: b, event } if n == b => {
            gaussian_precision(event, f)
        }
        DpEvent::Composed(es) => {
            es.iter().try_fold(0.0, |acc, e| gaussian_precision(e, f).map(|p| (acc + p).next_down()))
        }
        _ => None,
    }
}

/// Certified lower bound on ε(δ) of a composition of unsampled Gaussian releases (`None` if the
/// event is not one).
///
/// # Errors
/// `Numerical` if the root cannot be bracketed.
pub fn gaussian_lower(event: &DpEvent, neighbouring: Neighbouring, delta: f64) -> Result<Option<f64>> {
    check::open_unit("delta", delta)?;
    let Some(prec) = gaussian_precision(event, neighbouring.sum_sensitivity_factor()) else { return Ok(None) };
    if prec <= 0.0 {
        return Ok(Some(0.0));
    }
    // z = 1/√prec rounded up: more noise than the truth, so a smaller δ(ε), a smaller ε.
    let z = (1.0 / prec.sqrt() * (1.0 + 4.0 * f64::EPSILON)).next_up();
    let target = delta.ln();
    // ln δ⁻(ε) − ln δ: positive ⇒ the true δ(ε) > δ ⇒ the true ε(δ) > ε.
    let g = |e: f64| Ok(log_delta_lower(e, z) - target);
    let g0 = g(0.0)?;
    if g0.is_nan() || g0 <= 0.0 {
        // Nothing certified at ε = 0: the true δ(0) is at most δ, or, for a very large μ, the
        // curve's error bound (growing like u·μ²) swamps it or it reads NaN; the tail bound
        // still certifies a value in the latter cases.
        return Ok(Some(gaussian_lower_large_mu(prec, delta).unwrap_or(0.0)));
    }
    let Some(hi) = doubling_upper_end(&g, 1e6)? else { return Ok(gaussian_lower_large_mu(prec, delta)) };
    let b = bracket_root("exact Gaussian epsilon (lower)", g, 0.0, hi, |_| false)?;
    // g(lo) = 0 (the root hit exactly) still certifies lo: δ⁻(lo) = δ, so the true ε(δ) ≥ lo.
    Ok(Some(if b.g_lo >= 0.0 { with_margin(b.lo) } else { 0.0 }))
}

/// A lower bound on ε(δ) of the Gaussian of precision μ² = `prec` from a tail bound, for μ beyond
/// the exact curve's evaluation (ε above 1e6, or NaN there; `None` where it certifies nothing).
/// With t = μ/2 − ε/μ the curve is δ(ε) = Φ(t) − e^ε Φ(−(μ − t)), and Mills' ratio
/// Φ(−x) ≤ φ(x)/x (x = μ − t > 0) with e^ε φ(μ − t) = φ(t) gives
/// `δ(ε) ≥ Φ(t) − φ(t)/(μ − t)`. At t = Φ⁻¹(2δ) this exceeds δ once φ(t)/(μ − t) < δ, checked
/// with relative margins 1e-9 on both terms; then the true ε(δ) > μ(μ/2 − t). μ is rounded down
/// (a smaller μ has a smaller ε at every δ), and the result takes the closed-form margin.
fn gaussian_lower_large_mu(prec: f64, delta: f64) -> Option<f64> {
    if !(delta < 0.5 && prec.is_finite() && prec > 0.0) {
        return None;
    }
    let mu = crate::special::sqrt_down(prec);
    let t = normal_quantile(2.0 * delta);
    let density = (-0.5 * t * t).exp() / (2.0 * std::f64::consts::PI).sqrt();
    let certified = normal_cdf(t) * (1.0 - 1e-9) - density / (mu - t) * (1.0 + 1e-9);
    if !(mu > t && certified > delta) {
        return None;
    }
    Some(with_margin((mu * (mu / 2.0 - t)).min(f64::MAX)))
}

/// (p, k, T) if the event is T runs of one randomized response.
fn rr_runs(e: &DpEvent) -> Option<(f64, u64, u64)> {
    match e {
        DpEvent::RandomizedResponse { noise_parameter, num_buckets } => Some((*noise_parameter, *num_buckets, 1)),
        DpEvent::SelfComposed { event, count } => {
            let (p, k, t) = rr_runs(event)?;
            Some((p, k, t.checked_mul(*count)?))
        }
        DpEvent::Composed(es) => {
            let mut it = es.iter().map(rr_runs);
            let (p, k, mut t) = it.next()??;
            for r in it {
                let (p2, k2, t2) = r?;
                if p2 != p || k2 != k {
                    return None;
                }
                t = t.checked_add(t2)?;
            }
            Some((p, k, t))
        }
        _ => None,
    }
}

/// Certified lower bound on ε(δ) of T runs of k-ary randomized response with noise parameter
/// p under replace-one (`None` if the event is not that, p ∉ (0, 1), or T is above the caps).
///
/// # Errors
/// `Numerical` if the root cannot be bracketed.
pub fn randomized_response_lower(event: &DpEvent, neighbouring: Neighbouring, delta: f64) -> Result<Option<f64>> {
    check::open_unit("delta", delta)?;
    if neighbouring != Neighbouring::ReplaceOne {
        return Ok(None);
    }
    let Some((p, k, t)) = rr_runs(event) else { return Ok(None) };
    if !(p > 0.0 && p < 1.0) || k < 2 || t == 0 || t > MAX_RR_RUNS || (k > 2 && t > MAX_RR_RUNS_MULTI) {
        return Ok(None);
    }
    let kf = k as f64;
    // Probabilities of the outcomes (true bucket, replacement's bucket, others), rounded down
    // (smaller masses give a smaller δ); the loss l rounded down likewise.
    let la = (1.0 - p + p / kf).ln() - 4.0 * f64::EPSILON;
    let lb = (p / kf).ln() - 4.0 * f64::EPSILON;
    let lc = if k > 2 { ((kf - 2.0) * p / kf).ln() - 4.0 * f64::EPSILON } else { f64::NEG_INFINITY };
    let l = (kf * (1.0 - p) / p).ln_1p() * (1.0 - 4.0 * f64::EPSILON);
    let tf = t;
    // ln P(j) for j = n_a − n_b ∈ [−T, T], index j + T.
    let mut logp = vec![f64::NEG_INFINITY; (2 * tf + 1) as usize];
    let ln_t = ln_factorial(tf);
    if k == 2 {
        for na in 0..=tf {
            let nb = tf - na;
            let v = ln_t - ln_factorial(na) - ln_factorial(nb) + na as f64 * la + nb as f64 * lb;
            logp[(na + tf - nb) as usize] = v;
        }
    } else {
        for nb in 0..=tf {
            for na in 0..=(tf - nb) {
                let nc = tf - na - nb;
                let v = ln_t - ln_factorial(na) - ln_factorial(nb) - ln_factorial(nc)
                    + na as f64 * la
                    + nb as f64 * lb
                    + if nc > 0 { nc as f64 * lc } else { 0.0 };
                let i = (na + tf - nb) as usize;
                logp[i] = log_add(logp[i], v);
            }
        }
    }
    // δ⁻(ε) = (1 − margin)·Σ_{jl > ε} P(j)(1 − e^{ε − jl}).
    let delta_lo = |e: f64| -> f64 {
        let mut s = 0.0;
        for (i, &lp) in logp.iter().enumerate() {
            let j = i as f64 - tf as f64;
            let loss = j * l;
            if loss > e && lp > f64::NEG_INFINITY {
                s += lp.exp() * -(e - loss).exp_m1();
            }
        }
        s * (1.0 - RR_MARGIN)
    };
    let g = |e: f64| Ok(delta_lo(e) - delta);
    if g(0.0)?.is_nan() || g(0.0)? <= 0.0 {
        return Ok(Some(0.0));
    }
    let top = tf as f64 * l;
    if g(top)? > 0.0 {
        return Ok(Some(with_margin(top))); // δ⁻ is 0 at the largest loss, so unreachable; safe anyway
    }
    let b = bracket_root("randomized-response epsilon (lower)", g, 0.0, top, |_| false)?;
    // g(lo) = 0 (the root hit exactly) still certifies lo: δ⁻(lo) = δ, so the true ε(δ) ≥ lo.
    Ok(Some(if b.g_lo >= 0.0 { with_margin(b.lo) } else { 0.0 }))
}

/// Certified lower bound on ε(δ) of one Laplace release (`None` if the event is not one).
pub fn laplace_lower(event: &DpEvent, delta: f64) -> Result<Option<f64>> {
    check::open_unit("delta", delta)?;
    let z = match event {
        DpEvent::Laplace { noise_multiplier } => *noise_multiplier,
        DpEvent::SelfComposed { event, count: 1 } => return laplace_lower(event, delta),
        DpEvent::Composed(es) if es.len() == 1 => return laplace_lower(&es[0], delta),
        _ => return Ok(None),
    };
    let z = check::positive("laplace noise multiplier", z)?;
    // 1/z rounded down, 2·ln(1 − δ) (negative) rounded down.
    let e = (1.0 / z) * (1.0 - 2.0 * f64::EPSILON) + 2.0 * (-delta).ln_1p() * (1.0 + 8.0 * f64::EPSILON);
    Ok(Some(with_margin(e)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tail bound for large μ never exceeds the exact curve's certified lower bound where both
    /// evaluate (μ = 10 … 1000, δ = 1e-5 and 1e-10), and stays within 5 % of it (it replaces
    /// Φ⁻¹(δ) by Φ⁻¹(2δ) in ε ≈ μ²/2 − μΦ⁻¹(·)). Beyond the exact evaluation it certifies what
    /// the exact path could not: for z = 1e-9 (μ = 1e9) the lower bound was 0 (the curve read NaN
    /// at ε = 0), so `audit accountant` found a claimed ε = 1 "within bracket"; the truth is about
    /// μ²/2 = 5e17.
    #[test]
    fn large_mu_tail_bound_is_below_the_exact_curve_and_catches_tiny_noise() {
        for mu in [10.0f64, 50.0, 200.0, 1000.0] {
            for delta in [1e-5, 1e-10] {
                let event = DpEvent::gaussian(1.0 / mu).unwrap();
                let exact = gaussian_lower(&event, Neighbouring::AddRemove, delta).unwrap().unwrap();
                let tail = gaussian_lower_large_mu(mu * mu, delta).unwrap();
                assert!(tail <= exact && tail >= 0.95 * exact, "mu = {mu}, delta = {delta}: {tail} vs {exact}");
            }
        }
        for (z, delta) in [(1e-9, 1e-5), (1e-4, 1e-5), (1e-150, 1e-5)] {
            let lower =
                gaussian_lower(&DpEvent::gaussian(z).unwrap(), Neighbouring::AddRemove, delta).unwrap().unwrap();
            let mu = 1.0 / z;
            assert!(lower >= (0.5 * mu * mu).min(f64::MAX) * 0.999_999, "z = {z}: {lower}");
        }
        assert_eq!(gaussian_lower_large_mu(4.0, 1e-5), None, "mu = 2: the tail term is too large to certify");
    }
}
