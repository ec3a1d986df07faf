//! RDP of the Gaussian mechanism on a uniformly random subset of fixed size b out of n
//! (sampling without replacement), under replace-one neighbouring: Wang, Balle,
//! Kasiviswanathan 2019 (arXiv 1808.00087v2), "Subsampled Rényi DP and analytical moments
//! accountant".
//!
//! Notation: `γ = b/n`, base mechanism RDP `ε(j) = j/(2z²)` (z relative to the replace-one
//! sensitivity, see [`crate::accounting::event`]), `h(j) = e^{(j−1)ε(j)} = e^{j(j−1)/(2z²)}`, and
//! `Δˡ = Σ_{i=0}^{l} (−1)^{l−i} C(l,i) h(i)` its l-th forward difference at 0. For integer α ≥ 2,
//! `(α−1)·ε′(α) ≤ ln(1 + Σ_{j=2}^{α} γʲ C(α,j) Tⱼ)` with
//!
//! * `T₂ = min{4(e^{ε(2)} − 1), 2e^{ε(2)}}` (Thm. 9 with ε(∞) = ∞),
//! * `Tⱼ = min{4·(Δ^{2⌊j/2⌋} Δ^{2⌈j/2⌉})^{1/2}, 2e^{(j−1)ε(j)}}` for j ≥ 3 (Thm. 27, which applies
//!   to the Gaussian mechanism, and Thm. 9).
//!
//! **Forward differences.** Each even Δˡ (l ≤ 256) is the smaller of two certified upper bounds:
//!
//! * the alternating sum above, in log space with its floating-point error bound
//!   ([`super::logsum`]), if that bound is below 1 % ([`DIRECT_MAX_ERROR`]). Accurate for small
//!   z; for large z the terms cancel (Σ|terms|/Δˡ ≈ 1e11 at z = 10, l = 12) and it is unusable;
//! * a series of positive terms, evaluated where the alternating sum's error bound exceeds
//!   [`SERIES_WHEN_DIRECT_ERROR_ABOVE`]. With `a = 1/(2z²)`, `h(i) = Σₘ aᵐ(i(i−1))ᵐ/m!`, the
//!   falling-factorial expansion `(i(i−1))ᵐ = Σⱼ c_{m,j} i^{(j)}` (`c_{m,j} ≥ 0`) and
//!   `Δˡ i^{(j)}|₀ = l!·[j = l]` give `Δˡ = Σ_{m ≥ l/2} ĉ_{m,l} λᵐ/m!` with `λ = l(l−1)a` and
//!   `ĉ_{m,l} = c_{m,l}·l!/(l(l−1))ᵐ ∈ [0, 1]` (private `NormalisedCoefficients`). It is truncated
//!   where the tail bound `Σ_{m>M} λᵐ/m! ≤ λ^{M+1}/(M+1)!/(1 − λ/(M+2))` (valid for M + 2 > λ,
//!   since ĉ ≤ 1) is negligible, and that bound is added. For `λ >` [`SERIES_MAX_LAMBDA`] only
//!   `Δˡ ≤ e^λ` is used (the alternating sum is accurate there).
//!
//! Both are non-decreasing in 1/z up to rounding, so the bound is non-increasing in z. (Before
//! the series, a Δˡ whose alternating sum failed was dropped and the term fell back to Thm. 9's
//! far larger `2e^{(j−1)ε(j)}`, so ε *grew* with z: 0.73 at σ = 133 but 5.80 at σ = 1778 for
//! b = 100, n = 1000, T = 1000, δ = 1e-5; `tests/prop_wor_monotone.rs`.) Orders above
//! [`THM27_MAX_ORDER`] use Theorem 9 alone. Fractional α: the cumulant `(α−1)ε′(α)` is convex in
//! α (Cor. 10), so the linear interpolation of the integer bounds at ⌊α⌋ and ⌈α⌉ is an upper
//! bound (the cumulant is 0 at α = 1).
//!
//! Degenerate inputs never give NaN: z with `z² <` `f64::MIN_POSITIVE` (z < 1.5e-154), an
//! order that is NaN or ≤ 1, or an invalid γ or z give +∞; z above [`Z_CAP`] is evaluated at
//! [`Z_CAP`] (the bound is non-increasing in z, so this stays an upper bound).
//! Proof: proofs/accounting/rdp_without_replacement.md.

use super::logsum::{LogSum, LogValue};
use crate::special::{ln_binomial, ln_factorial};

/// Orders above this use the general bound (Thm. 9) only: the forward differences cost O(α²).
pub const THM27_MAX_ORDER: u64 = 256;

/// The series is evaluated for `λ = l(l−1)/(2z²)` up to this value (beyond it the alternating
/// sum is accurate, and the series would need more than [`SERIES_MAX_TERMS`] terms).
pub const SERIES_MAX_LAMBDA: f64 = 600.0;

/// Most terms `m` of the series (its tail bound is valid from `m + 2 > λ`, so this must exceed
/// [`SERIES_MAX_LAMBDA`]).
pub const SERIES_MAX_TERMS: u64 = 1024;

/// The alternating sum is used only if its error bound on `ln Δˡ` is below this (1 %).
pub const DIRECT_MAX_ERROR: f64 = 0.01;

/// The series is evaluated where the alternating sum's error bound exceeds this; below it the
/// alternating sum is tighter than the series' own error bound (≈ 4(m+2)²u, m up to ~850).
pub const SERIES_WHEN_DIRECT_ERROR_ABOVE: f64 = 1e-10;

/// Noise multipliers above this are evaluated at this value (ε′ is non-increasing in z, so the
/// result is still an upper bound; it is ~1e-200 and keeps every intermediate a normal float).
pub const Z_CAP: f64 = 1e100;

/// The series stops once its tail bound is below this fraction of the partial sum.
const TAIL_REL: f64 = 1.0 / (1u64 << 56) as f64;

const U: f64 = f64::EPSILON / 2.0;

/// `1/(2z²)` rounded up, for `z ≤ Z_CAP` with `z² ≥ f64::MIN_POSITIVE` (so `z²` and the result
/// are normal floats): two roundings give at
/// most `(1+u)²/(1−u) ≤ 1 + 3.1u`, and `fl(x·(1+8u)) ≥ x(1+8u)(1−u) ≥ x(1+6u)`.
fn a_upper(z: f64) -> f64 {
    0.5 / (z * z) * (1.0 + 8.0 * U)
}

/// `λ = l(l−1)·a` rounded up (`l(l−1)` is an exact integer; with `a` from [`a_upper`], one more
/// rounding keeps `fl(l(l−1)·a) ≥ l(l−1)/(2z²)`). 0 for l ≤ 1 (then `e^λ = 1 ≥ Δˡ` still holds).
fn lambda_upper(l: u64, a: f64) -> f64 {
    (l * l.saturating_sub(1)) as f64 * a
}

/// `ln Δˡ` by the alternating sum `Σ_{i=0}^{l} (−1)^{l−i} C(l,i) e^{i(i−1)/(2z²)}`, in log space
/// with its first-order float error bound ([`LogSum`]). `None` if an exponent is not finite
/// (z so small that `i(i−1)/(2z²)` overflows). The value is NaN or −∞ when the computed sum is
/// not positive (heavy cancellation); callers check [`LogValue::value`] for finiteness.
pub fn log_forward_difference_direct(z: f64, l: u64) -> Option<LogValue> {
    let two_z2 = 2.0 * z * z;
    let mut s = LogSum::with_capacity(l as usize + 1);
    for i in 0..=l {
        let (lb, e) = (ln_binomial(l as f64, i as f64), (i * i - i) as f64 / two_z2);
        if !e.is_finite() {
            return None;
        }
        // magnitude: the three ln-factorials ln C is computed from, plus the exponent
        let mag = ln_factorial(l) + ln_factorial(i) + ln_factorial(l - i) + e;
        s.push(lb + e, (l - i).is_multiple_of(2), mag);
    }
    Some(s.finish())
}

/// `ln Δˡ` by the positive series `Δˡ = Σ_{m ≥ l/2} ĉ_{m,l} λᵐ/m!` (`λ = l(l−1)/(2z²)`,
/// `0 ≤ ĉ_{m,l} ≤ 1`, private `NormalisedCoefficients`), truncated at the first M with
/// `M + 2 ≥ λ + 1` whose tail bound `λ^{M+1}/(M+1)!/(1 − λ/(M+2))` is below 2⁻⁵⁶ of the
/// partial sum (at most [`SERIES_MAX_TERMS`]), that bound added: `value + error ≥ ln Δˡ`.
/// Where `λ` exceeds [`SERIES_MAX_LAMBDA`] (or that would be smaller), the bound
/// `Δˡ ≤ e^λ` (every ĉ ≤ 1) is returned instead, with error 0. z above [`Z_CAP`] is evaluated at
/// [`Z_CAP`]. Precondition: l ≥ 2 even and `z² ≥ f64::MIN_POSITIVE` (for smaller z the value
/// is +∞ or `l(l−1)/(2z²)` with a few ulps of rounding unaccounted).
pub fn log_forward_difference_series(z: f64, l: u64) -> LogValue {
    log_forward_differences_series(z.min(Z_CAP), &[l])[0]
}

/// The normalised falling-factorial coefficients of `(i(i−1))ᵐ`, one row m at a time.
///
/// `(i(i−1))ᵐ = Σⱼ c_{m,j} i^{(j)}` (`i^{(j)} = i(i−1)…(i−j+1)`) with integers `c_{m,j} ≥ 0`,
/// `c_{1,2} = 1` and, from `i^{(j)}·i(i−1) = i^{(j+2)} + 2j·i^{(j+1)} + j(j−1)·i^{(j)}`,
/// `c_{m+1,j} = c_{m,j−2} + 2(j−1)c_{m,j−1} + j(j−1)c_{m,j}`. Stored as
/// `ĉ_{m,j} = c_{m,j}·j!/(j(j−1))ᵐ ∈ [0, 1]` (the upper end because `c_{m,j}·j! ≤ (j(j−1))ᵐ`,
/// the value of the polynomial at i = j), which turns the recurrence into
/// `ĉ_{m+1,j} = ĉ_{m,j−2}·ρ₂ⱼᵐ + 2ĉ_{m,j−1}·ρ₁ⱼᵐ + ĉ_{m,j}` with `ρ₁ⱼ = (j−2)/j` and
/// `ρ₂ⱼ = (j−2)(j−3)/(j(j−1))`: positive terms, no overflow, and ĉ non-decreasing in m.
/// Entries with `m < ⌈j/2⌉` are exactly 0; the others are ≥ 1e-112 for j ≤ 258 (unit test).
struct NormalisedCoefficients {
    m: u64,
    row: Vec<f64>,
    rho1: Vec<f64>,
    rho2: Vec<f64>,
    /// `ρ₁ⱼᵐ`, `ρ₂ⱼᵐ` at the current m, by repeated multiplication.
    p1: Vec<f64>,
    p2: Vec<f64>,
}

impl NormalisedCoefficients {
    /// Row m = 1 for j ≤ `jmax` (≥ 2): `(i(i−1))¹ = i^{(2)}`, so `ĉ_{1,2} = 1`, all else 0.
    fn new(jmax: usize) -> Self {
        let mut row = vec![0.0f64; jmax + 1];
        row[2] = 1.0;
        let rho1: Vec<f64> = (0..=jmax).map(|j| if j >= 2 { (j - 2) as f64 / j as f64 } else { 0.0 }).collect();
        let rho2: Vec<f64> =
            (0..=jmax).map(|j| if j >= 3 { ((j - 2) * (j - 3)) as f64 / (j * (j - 1)) as f64 } else { 0.0 }).collect();
        NormalisedCoefficients { m: 1, row, p1: rho1.clone(), p2: rho2.clone(), rho1, rho2 }
    }

    /// Moves to row m + 1 for the columns j ≤ `top` (columns above `top` are left stale).
    /// For m ≥ 1, `ĉ_{m,0} = ĉ_{m,1} = 0`, so the recurrence starts at j = 2.
    fn advance(&mut self, top: usize) {
        let (row, p1, p2) = (&mut self.row, &self.p1, &self.p2);
        for j in (2..=top).rev() {
            // descending j: row[j − 1] and row[j − 2] still hold row m
            row[j] += row[j - 2] * p2[j] + 2.0 * row[j - 1] * p1[j];
        }
        for j in 2..=top {
            self.p1[j] *= self.rho1[j];
            self.p2[j] *= self.rho2[j];
        }
        self.m += 1;
    }

    /// Bound on the relative float error of every entry of row m: `2(m+1)²u` (proof §3:
    /// `E_{m+1} ≤ E_m + (2m+3)u` to first order, plus the underflowed powers' absolute error).
    fn relative_error(m: u64) -> f64 {
        let mf = m as f64;
        2.0 * (mf + 1.0) * (mf + 1.0) * U
    }
}

/// Per-l state of the series (see [`log_forward_differences_series`]).
struct SeriesTerm {
    /// Index of this l in the caller's list.
    k: usize,
    l: usize,
    /// First index m with `ĉ_{m,l} > 0`: l/2.
    m0: u64,
    lam: f64,
    /// `ln(λ^{m0}/m0!)`, the scale of `w` and `sum`, and the bound on its float error.
    log_scale: f64,
    log_scale_err: f64,
    /// `λᵐ/m! · e^{−log_scale}` at the current m.
    w: f64,
    /// `Σ_{m0 ≤ k ≤ m} ĉ_{k,l} λᵏ/k! · e^{−log_scale}`.
    sum: f64,
}

/// [`log_forward_difference_series`] for each even l of `ls`: the rows of
/// [`NormalisedCoefficients`] are built once and every l reads its column.
///
/// Float error (proof §3): `w` is `λ^{m−m0}m0!/m!` by m − m0 multiplications and divisions
/// (relative error ≤ 2(m − m0)u, never below ~1e-128 before the stop, so no underflow), each
/// product `ĉ·w` and the running sum add ≤ 2(m+1)u, so with the table's `2(m+1)²u` the sum is
/// within `4(m+2)²u` relative; the tail is doubled to cover its own rounding. `λ ≤ 600` keeps
/// `w ≤ e^{600}` and the sum finite without rescaling.
fn log_forward_differences_series(z: f64, ls: &[u64]) -> Vec<LogValue> {
    let a = a_upper(z);
    let trivial = |l: u64| {
        let lam = lambda_upper(l, a);
        LogValue { value: if lam.is_nan() { f64::INFINITY } else { lam }, error: 0.0 }
    };
    let mut out: Vec<LogValue> = ls.iter().map(|&l| trivial(l)).collect();
    let mut active: Vec<SeriesTerm> = Vec::new();
    for (k, &l) in ls.iter().enumerate() {
        let lam = lambda_upper(l, a);
        if l >= 2 && l.is_multiple_of(2) && lam <= SERIES_MAX_LAMBDA {
            let m0 = l / 2;
            let (lead, lf) = (m0 as f64 * lam.ln(), ln_factorial(m0));
            // ln λ within 2u|ln λ| (×m0), the product and ln m0! within 2u each, the
            // difference within u: ≤ 4u(m0|ln λ| + ln m0!), doubled.
            let log_scale_err = 8.0 * U * (lead.abs() + lf + 1.0);
            active.push(SeriesTerm {
                k,
                l: l as usize,
                m0,
                lam,
                log_scale: lead - lf,
                log_scale_err,
                w: 1.0,
                sum: 0.0,
            });
        }
    }
    let Some(jmax) = active.iter().map(|t| t.l).max() else {
        return out;
    };
    let mut c = NormalisedCoefficients::new(jmax);
    loop {
        let (m, mf) = (c.m, c.m as f64);
        let last = m >= SERIES_MAX_TERMS;
        active.retain_mut(|t| {
            if m < t.m0 {
                return true;
            }
            if m > t.m0 {
                t.w *= t.lam / mf; // λᵐ/m! = λ^{m−1}/(m−1)! · λ/m
            }
            t.sum += c.row[t.l] * t.w;
            // Σ_{k>m} ĉ_{k,l} λᵏ/k! ≤ Σ_{k>m} λᵏ/k! ≤ λ^{m+1}/(m+1)!/(1 − λ/(m+2)) for m + 2 > λ.
            if mf + 2.0 >= t.lam + 1.0 {
                let tail = t.w * (t.lam / (mf + 1.0)) / ((mf + 2.0 - t.lam) / (mf + 2.0));
                if tail <= TAIL_REL * t.sum || last {
                    let x = t.sum + 2.0 * tail;
                    let ln_x = x.ln();
                    let value = t.log_scale + ln_x;
                    let error = t.log_scale_err
                        + 2.0 * NormalisedCoefficients::relative_error(m + 1)
                        + 4.0 * U * (ln_x.abs() + value.abs() + 1.0);
                    let v = LogValue { value, error };
                    if v.upper() < out[t.k].upper() {
                        out[t.k] = v;
                    }
                    return false;
                }
            }
            !last // no valid tail bound within the budget: keep Δˡ ≤ e^λ
        });
        if active.is_empty() || last {
            return out;
        }
        c.advance(active.iter().map(|t| t.l).max().unwrap_or(2));
    }
}

/// Upper bounds on `ln Δˡ` for even l ≤ `max_l` (index l; +∞ where there is none): the
/// alternating sum where its error bound is small, else the smaller of it (if usable) and the
/// series.
fn log_forward_differences(z: f64, max_l: u64) -> Vec<f64> {
    let mut out = vec![f64::INFINITY; max_l as usize + 1];
    let mut need_series = Vec::new();
    for l in (2..=max_l).step_by(2) {
        let d = log_forward_difference_direct(z, l);
        if let Some(v) = d
            && v.value.is_finite()
            && v.error < DIRECT_MAX_ERROR
        {
            out[l as usize] = v.upper();
        }
        if !d.is_some_and(|v| v.value.is_finite() && v.error <= SERIES_WHEN_DIRECT_ERROR_ABOVE) {
            need_series.push(l);
        }
    }
    for (&l, s) in need_series.iter().zip(log_forward_differences_series(z, &need_series)) {
        out[l as usize] = out[l as usize].min(s.upper());
    }
    out
}

/// Upper bound on `ln(1 + Σⱼ γʲ C(α,j) Tⱼ)` for integer α ≥ 2 (+∞ if a term overflows).
fn log_moment_int(gamma: f64, z: f64, alpha: u64, diffs: &[f64]) -> f64 {
    let two_z2 = 2.0 * z * z;
    let ln_g = gamma.ln();
    let eps2 = 2.0 / two_z2;
    let mut s = LogSum::with_capacity(alpha as usize);
    s.push(0.0, true, 0.0);
    for j in 2..=alpha {
        let jf = j as f64;
        let lb = ln_binomial(alpha as f64, jf);
        let lb_mag = ln_factorial(alpha) + ln_factorial(j) + ln_factorial(alpha - j);
        let general = std::f64::consts::LN_2 + jf * (jf - 1.0) / two_z2; // ln(2 e^{(j−1)ε(j)})
        let t = if j == 2 {
            // ln min{4(e^{ε(2)} − 1), 2e^{ε(2)}}
            // ln(e^{ε₂} − 1) = ε₂ + ln(−expm1(−ε₂)): accurate also for small ε₂ (large z)
            let four_em1 = 4f64.ln() + eps2 + (-(-eps2).exp_m1()).ln();
            four_em1.min(general)
        } else {
            let (lo, hi) = (2 * (j / 2), 2 * j.div_ceil(2));
            let d = |l: u64| diffs.get(l as usize).copied().unwrap_or(f64::INFINITY);
            let (dl, dh) = (d(lo), d(hi));
            if alpha <= THM27_MAX_ORDER && dl.is_finite() && dh.is_finite() {
                (4f64.ln() + 0.5 * (dl + dh)).min(general)
            } else {
                general
            }
        };
        let l = jf * ln_g + lb + t;
        if l == f64::INFINITY {
            return f64::INFINITY; // the sum is at least this term
        }
        s.push(l, true, (jf * ln_g).abs() + lb_mag + t.abs());
    }
    s.finish().upper()
}

/// Per-step RDP upper bounds at each order of `orders`, `γ = b/n ∈ (0, 1]`, `z > 0`.
///
/// Never NaN: an order that is NaN or ≤ 1, an invalid γ or z, and a z so small that `z²` is
/// below the smallest normal float (`z < 1.5e-154`) give +∞; z above [`Z_CAP`] is evaluated at
/// [`Z_CAP`].
pub fn rdp_curve_upper(gamma: f64, z: f64, orders: &[f64]) -> Vec<f64> {
    let valid = |a: f64| a > 1.0;
    if !(gamma > 0.0 && z > 0.0) {
        return vec![f64::INFINITY; orders.len()];
    }
    if gamma >= 1.0 {
        return orders
            .iter()
            .map(|&a| if valid(a) { super::basic::gaussian_rdp(z, a) } else { f64::INFINITY })
            .collect();
    }
    let z = z.min(Z_CAP);
    if z * z < f64::MIN_POSITIVE {
        // 1/(2z²) > 2.2e307: every order's bound is astronomically large (or overflows)
        return vec![f64::INFINITY; orders.len()];
    }
    let max_int = orders.iter().filter(|&&a| valid(a)).map(|a| a.ceil() as u64).max().unwrap_or(2);
    let diffs = log_forward_differences(z, max_int.min(THM27_MAX_ORDER).next_multiple_of(2));
    let cgf = |a: u64| if a <= 1 { 0.0 } else { log_moment_int(gamma, z, a, &diffs) };
    orders
        .iter()
        .map(|&a| {
            if !valid(a) {
                return f64::INFINITY;
            }
            if a == f64::INFINITY {
                return f64::INFINITY; // ε(∞) = ∞ for the Gaussian
            }
            let (lo, hi) = (a.floor() as u64, a.ceil() as u64);
            let k = if lo == hi {
                cgf(lo)
            } else {
                let t = a - lo as f64;
                let (x, y) = (cgf(lo), cgf(hi));
                ((1.0 - t) * x + t * y) * (1.0 + 4.0 * f64::EPSILON)
            };
            let r = (k / (a - 1.0)).next_up();
            // Structurally not NaN (every input above is finite or +∞ with a positive
            // multiplier); kept as a guard so that no later edit can leak one.
            if r.is_nan() { f64::INFINITY } else { r }
        })
        .collect()
}

/// Per-step RDP upper bound at one order (see [`rdp_curve_upper`]).
pub fn rdp_upper(gamma: f64, z: f64, alpha: f64) -> f64 {
    rdp_curve_upper(gamma, z, &[alpha])[0]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `c_{m,j}` by the integer recurrence (exact in u128 for m ≤ 12, j ≤ 24:
    /// `c_{m,j} ≤ (j(j−1))ᵐ/j! < 552¹² < 2¹²⁸`).
    fn exact_c(mmax: usize, jmax: usize) -> Vec<Vec<u128>> {
        let mut c = vec![vec![0u128; jmax + 1]; mmax + 1];
        c[0][0] = 1;
        for m in 0..mmax {
            for j in 0..=jmax {
                let jj = j as u128;
                let mut v = jj * jj.saturating_sub(1) * c[m][j];
                if j >= 1 {
                    v += 2 * (jj - 1) * c[m][j - 1];
                }
                if j >= 2 {
                    v += c[m][j - 2];
                }
                c[m + 1][j] = v;
            }
        }
        c
    }

    #[test]
    #[allow(clippy::needless_range_loop)] // indices are the math's m and j
    fn normalised_coefficients_match_exact_integers() {
        let (mmax, jmax) = (12usize, 24usize);
        let c = exact_c(mmax, jmax);
        // the expansion itself: (i(i−1))ᵐ = Σⱼ c_{m,j} i^{(j)} at i = 0..=jmax
        for (m, row) in c.iter().enumerate() {
            for i in 0..=jmax as u128 {
                let lhs = (i * i.saturating_sub(1)).pow(m as u32);
                let mut rhs = 0u128;
                for (j, &cj) in row.iter().enumerate() {
                    let ff: u128 = (0..j as u128).map(|k| i.saturating_sub(k)).product();
                    rhs += cj * ff;
                }
                assert_eq!(lhs, rhs, "m={m} i={i}");
            }
        }
        let mut rows = NormalisedCoefficients::new(jmax);
        for m in 1..=mmax {
            for j in 2..=jmax {
                let fact: f64 = (1..=j).map(|k| k as f64).product();
                let exact = c[m][j] as f64 * fact / ((j * (j - 1)) as f64).powi(m as i32);
                let got = rows.row[j];
                let tol = NormalisedCoefficients::relative_error(m as u64) + 64.0 * U;
                assert!((got - exact).abs() <= tol * exact, "m={m} j={j}: {got} vs {exact}");
            }
            rows.advance(jmax);
        }
    }

    /// The facts the series' error argument uses (proof §3): entries in [0, 1], non-decreasing
    /// in m, exactly 0 below m = ⌈j/2⌉ and at least 1e-112 from there, up to the term budget.
    #[test]
    #[allow(clippy::needless_range_loop)] // indices are the math's j
    fn normalised_coefficients_bounded_monotone_and_not_tiny() {
        let jmax = 258usize;
        let mut rows = NormalisedCoefficients::new(jmax);
        let mut prev = rows.row.clone();
        let mut smallest = f64::INFINITY;
        while rows.m <= SERIES_MAX_TERMS {
            let m = rows.m as usize;
            for j in 2..=jmax {
                let v = rows.row[j];
                assert!(v.is_finite() && v <= 1.0 + NormalisedCoefficients::relative_error(rows.m), "m={m} j={j}: {v}");
                assert!(v >= prev[j], "m={m} j={j}: not monotone");
                if m < j.div_ceil(2) {
                    assert_eq!(v, 0.0, "m={m} j={j}");
                } else {
                    smallest = smallest.min(v);
                }
            }
            assert_eq!(rows.row[2], 1.0);
            prev.clone_from(&rows.row);
            rows.advance(jmax);
        }
        assert!(smallest >= 1e-112, "smallest nonzero entry {smallest:e}");
    }

    /// l = 2: `ĉ_{m,2} = 1`, so the series is `Σ_{m≥1} (2a)ᵐ/m! = e^{2a} − 1` exactly. (l = 0
    /// and 1, outside the precondition, still get a valid bound: Δ⁰ = 1, Δ¹ = 0.)
    #[test]
    fn series_at_l2_is_expm1() {
        assert_eq!(log_forward_difference_series(1.0, 0).upper(), 0.0);
        assert_eq!(log_forward_difference_series(1.0, 1).upper(), 0.0);
        for &z in &[0.3, 1.0, 7.0, 100.0, 1e5, 1e12] {
            let s = log_forward_difference_series(z, 2);
            let exact = (1.0 / (z * z)).exp_m1().ln();
            let tol = 8.0 * U * (1.0 + exact.abs());
            assert!(s.upper() >= exact - tol && s.upper() <= exact + s.error + 2.0 * tol, "z={z}: {s:?} vs {exact}");
        }
    }
}
