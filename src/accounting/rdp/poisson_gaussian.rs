//! RDP of the Poisson-subsampled Gaussian mechanism (Mironov, Talwar, Zhang 2019,
//! arXiv 1908.10530v1, Sec. 3), under add/remove neighbouring.
//!
//! With `μ₀ = N(0, z²)`, `μ₁ = N(1, z²)` and `μ = (1−q)μ₀ + qμ₁`, the per-step RDP at order α is
//! `ε(α) = ln A_α / (α−1)` with `A_α = E_{x∼μ₀}[(μ(x)/μ₀(x))^α]` (the remove direction, which
//! dominates the add direction for α ≥ 1: MTZ19 Thm. 5).
//!
//! * Integer α (MTZ19 Sec. 3.3, Eq. for A_α): `A_α = Σ_{k=0}^{α} C(α,k) (1−q)^{α−k} q^k e^{(k²−k)/(2z²)}`,
//!   a finite sum of positive terms, evaluated exactly in log space.
//! * Fractional α (MTZ19 Sec. 3.3): split the integral at `x₀ = z² ln(1/q − 1) + ½`, where
//!   `q μ₁/μ₀ = 1−q`, and expand `((1−q) + q r)^α`, `r = μ₁/μ₀`, binomially on each side:
//!   `A_α = Σᵢ C(α,i)[(1−q)^{α−i} qⁱ e^{(i²−i)/(2z²)} ½erfc((i−x₀)/(√2 z))
//!          + q^{α−i}(1−q)ⁱ e^{(j²−j)/(2z²)} ½erfc((x₀−j)/(√2 z))]`, `j = α − i`.
//!   Both expansions converge (the ratio of the expanded quantities is ≤ 1 on each side). From
//!   `i = ⌈α⌉` on, the pointwise terms alternate in sign and decrease in magnitude, so the
//!   integrated tail after a partial sum `S_N` has the sign of the first omitted term and is no
//!   larger in magnitude. The series is therefore cut *just before a negative term*: then
//!   `S_N ≥ A_α` exactly, and `S_N − A_α ≤ |t_{N+1}|`, which the loop drives below
//!   `1e-11·S_N·ln S_N` (so that ln A_α, and with it the RDP, is within ~1e-11 relative; A_α is
//!   close to 1 for small q, so a tolerance relative to A_α alone would not do), or it stops after
//!   20 000 terms, still an upper bound. This is the termination rule that the
//!   Opacus/TF code lacks (vector G5 of proofs/README.md: it returns ln A = −30.39 at q=0.4, z=12, α=59.5 where the
//!   truth is 2.1479) and that dp_accounting replaced by `inf` when it does not converge.
//!
//! Every result is rounded up by its floating-point error bound ([`super::logsum`]).
//! Proof: proofs/accounting/rdp_poisson_gaussian.md.

use super::logsum::{LogSum, LogValue};
use crate::special::{ln_factorial, log_half_erfc};

/// The fractional series stops when the first omitted (negative) term is below
/// `FRACTIONAL_SERIES_RTOL · S · ln S` (S the partial sum): ln A is then within this relative
/// tolerance.
pub const FRACTIONAL_SERIES_RTOL: f64 = 1e-11;
/// Hard cap on the number of fractional-series terms (the result stays an upper bound).
pub const FRACTIONAL_SERIES_MAX_TERMS: usize = 20_000;

/// Upper bound on `ln A_α` for the Poisson-subsampled Gaussian, `q ∈ [0, 1]`, `z > 0`, `α > 1`.
/// Callers validate the parameters.
pub fn log_a_upper(q: f64, z: f64, alpha: f64) -> f64 {
    if q == 0.0 {
        return 0.0;
    }
    if q == 1.0 {
        // A_α = e^{α(α−1)/(2z²)}; the product rounds with relative error ≤ 3u, round up.
        let v = alpha * (alpha - 1.0) / (2.0 * z * z);
        return v + 4.0 * (f64::EPSILON / 2.0) * v;
    }
    let lv = if alpha.fract() == 0.0 { log_a_int(q, z, alpha) } else { log_a_frac(q, z, alpha) };
    lv.upper()
}

/// Per-step RDP `ε(α) = ln A_α/(α−1)`, an upper bound (rounded up); +∞ when the formula
/// overflows (a NaN is never returned: `NaN.max(0.0)` would be 0, the worst possible answer).
pub fn rdp_upper(q: f64, z: f64, alpha: f64) -> f64 {
    let r = log_a_upper(q, z, alpha) / (alpha - 1.0);
    super::upper_or_infinity(r.next_up())
}

/// Integer α: the exact finite binomial sum, with its floating-point error bound.
///
/// Because `Σ_k C(α,k)(1−q)^{α−k} q^k = 1`, the sum is evaluated as
/// `A_α − 1 = Σ_{k≥2} C(α,k)(1−q)^{α−k} q^k (e^{(k²−k)/(2z²)} − 1)`, a sum of positive terms (the
/// k = 0, 1 terms vanish), and then `ln A_α = ln(1 + (A_α − 1))`. Summing the raw terms instead
/// would cancel their first-order parts (`(1−q)^α + αq(1−q)^{α−1} ≈ 1`) and lose up to
/// `1/(A_α − 1)` ulps of relative accuracy when ln A_α is small.
pub fn log_a_int(q: f64, z: f64, alpha: f64) -> LogValue {
    let n = alpha as u64;
    let (ln_q, ln_1mq) = (q.ln(), (-q).ln_1p());
    let two_z2 = 2.0 * z * z;
    let mut sum = LogSum::with_capacity(n as usize);
    let ln_fact_n = ln_factorial(n);
    for k in 2..=n {
        let kf = k as f64;
        // ln C(α, k) from the ln k! table; each entry within ~1 ulp.
        let (lf_k, lf_nk) = (ln_factorial(k), ln_factorial(n - k));
        let ln_binom = ln_fact_n - lf_k - lf_nk;
        let c_q = kf * ln_q;
        let c_1mq = (alpha - kf) * ln_1mq;
        let c = (kf * kf - kf) / two_z2;
        // ln(e^c − 1) = c + ln(−expm1(−c)); the correction is below 2⁻⁵⁴ once c > 38.
        let c_em1 = if c > 38.0 { c } else { c + (-(-c).exp_m1()).ln() };
        let l = ln_binom + c_q + c_1mq + c_em1;
        sum.push(l, true, ln_fact_n + lf_k + lf_nk + c_q.abs() + c_1mq.abs() + c + c_em1.abs());
    }
    // ln A = ln(1 + e^L), L = ln(A − 1): an absolute error e_L in L moves ln A by
    // e_L·e^L/(1 + e^L) ≤ e_L; one more rounding for ln1p.
    let l = sum.finish();
    let (value, sens) = if l.value < 0.0 {
        let e = l.value.exp();
        (e.ln_1p(), e / (1.0 + e))
    } else {
        (l.value + (-l.value).exp().ln_1p(), 1.0)
    };
    LogValue { value, error: l.error * sens + 2.0 * f64::EPSILON * value.abs() }
}

/// Fractional α: the two-sided series cut before a negative term (see module doc), so that
/// `value + error ≥ ln A_α`.
pub fn log_a_frac(q: f64, z: f64, alpha: f64) -> LogValue {
    let (ln_q, ln_1mq) = (q.ln(), (-q).ln_1p());
    let two_z2 = 2.0 * z * z;
    let x0 = z * z * (ln_1mq - ln_q) + 0.5;
    let sqrt2z = std::f64::consts::SQRT_2 * z;
    let first_alternating = alpha.ceil() as usize;
    let mut sum = LogSum::with_capacity(64);
    // ln of the running sums of the positive and of the negative terms: ln S = log_sub(pos, neg)
    // is the yardstick of the stopping rule (it only decides tightness, never validity, so no
    // error bound is needed for it).
    let (mut pos, mut neg) = (f64::NEG_INFINITY, f64::NEG_INFINITY);
    let (mut ln_binom, mut binom_mag, mut positive) = (0.0f64, 0.0f64, true);
    let mut i = 0usize;
    loop {
        let fi = i as f64;
        let j = alpha - fi;
        // Region x ≤ x0: C(α,i) (1−q)^{α−i} q^i e^{(i²−i)/(2z²)} ½erfc((i−x0)/(√2 z)).
        let (a_q, a_1mq, a_exp, a_erfc) =
            (fi * ln_q, j * ln_1mq, (fi * fi - fi) / two_z2, log_half_erfc((fi - x0) / sqrt2z));
        let l0 = ln_binom + a_q + a_1mq + a_exp + a_erfc;
        let m0 = binom_mag + a_q.abs() + a_1mq.abs() + a_exp.abs() + a_erfc.abs();
        // Region x > x0: C(α,i) q^{α−i} (1−q)^i e^{(j²−j)/(2z²)} ½erfc((x0−j)/(√2 z)).
        let (b_q, b_1mq, b_exp, b_erfc) =
            (j * ln_q, fi * ln_1mq, (j * j - j) / two_z2, log_half_erfc((x0 - j) / sqrt2z));
        let l1 = ln_binom + b_q + b_1mq + b_exp + b_erfc;
        let m1 = binom_mag + b_q.abs() + b_1mq.abs() + b_exp.abs() + b_erfc.abs();
        let both = crate::special::log_add(l0, l1);
        if i >= first_alternating && !positive {
            // The tail from this term on is ≤ 0: the partial sum is an upper bound. Stop once the
            // gap it leaves (≤ |this term|) is negligible, or at the term cap.
            let gap = both;
            // gap ≤ rtol·S·ln S  ⇔  ln gap − ln S ≤ ln rtol + ln ln S
            let ln_s = if neg < pos { crate::special::log_sub(pos, neg) } else { pos };
            let target = FRACTIONAL_SERIES_RTOL.ln() + ln_s.max(f64::MIN_POSITIVE).ln();
            if gap - ln_s <= target || i >= FRACTIONAL_SERIES_MAX_TERMS {
                break;
            }
        }
        sum.push(l0, positive, m0);
        sum.push(l1, positive, m1);
        if positive {
            pos = crate::special::log_add(pos, both);
        } else {
            neg = crate::special::log_add(neg, both);
        }
        // C(α, i+1) = C(α, i)(α − i)/(i + 1): magnitude and sign.
        let ratio = (alpha - fi) / (fi + 1.0);
        let ln_ratio = ratio.abs().ln();
        ln_binom += ln_ratio;
        binom_mag += ln_ratio.abs() + ln_binom.abs();
        if ratio < 0.0 {
            positive = !positive;
        }
        i += 1;
    }
    sum.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn q_one_is_the_gaussian_rdp() {
        for &a in &[1.5, 2.0, 7.0, 64.0] {
            let r = rdp_upper(1.0, 1.7, a);
            let exact = a / (2.0 * 1.7 * 1.7);
            assert!(r >= exact && r <= exact * (1.0 + 1e-14), "{a}: {r} vs {exact}");
        }
    }
}
