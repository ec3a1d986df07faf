//! The staleness ratio h(s) of \[LZLRMS\] (eq. (29)/(52), erratum 4) and its bound in the sparse
//! case of App. A.2, eq. (59), corrected and as printed (erratum 4 of `proofs/dp2/variants.md` §5.1).

use super::NoiseSetting;
use super::validate::finite_result;
use crate::error::{Error, Result, check};

/// One `t` of \[LZLRMS\] h(s), appendix reading eq. (29)/(52) (erratum 4: `dε` in the
/// denominator): `E‖g^t‖₁ / (E‖(1/s)G^{⌊t/s⌋s}‖₁ + dε)`. h(s) is any value at least the maximum
/// of this over `t ∈ [T]`, which the caller takes.
///
/// # Errors
/// `InvalidParameter` for negative means, `d = 0` or `ε ≤ 0`.
pub fn h_ratio(mean_g_l1: f64, mean_avg_acc_l1: f64, d: u64, eps_adapt: f64) -> Result<f64> {
    let g = check::non_negative("mean_g_l1", mean_g_l1)?;
    let acc = check::non_negative("mean_avg_acc_l1", mean_avg_acc_l1)?;
    let d = check::count("d", d)? as f64;
    let e = check::positive("eps_adapt", eps_adapt)?;
    finite_result("h_ratio", g / (acc + d * e))
}

fn h_sparse_args(e_a_l1: f64, e_b_l1: f64, d: u64, eps_adapt: f64, s: u64, m_prime: f64) -> Result<[f64; 5]> {
    let a = check::non_negative("e_a_l1", e_a_l1)?;
    let b = check::non_negative("e_b_l1", e_b_l1)?;
    let d = check::count("d", d)? as f64;
    let e = check::positive("eps_adapt", eps_adapt)?;
    let s = check::count("delay_s", s)? as f64;
    let mp = check::non_negative("m_prime", m_prime)?;
    if b >= a {
        return Err(Error::invalid("e_b_l1", b, "< e_a_l1 (the sparse case of eq. (59))"));
    }
    // 1/(E‖a‖/E‖b‖ + dε/E‖b‖ − 1) = E‖b‖/(E‖a‖ − E‖b‖ + dε): also defined at E‖b‖ = 0.
    Ok([b / (a - b + d * e), d, e, s, mp])
}

/// \[LZLRMS\] App. A.2, eq. (59) (sparse case `E‖b̄‖₁ < E‖a‖₁`), **corrected** staleness
/// term: `h(s) ≤ 1/(E‖a‖₁/E‖b̄‖₁ + dε/E‖b̄‖₁ − 1) + (3s−1)M'/(2dε)`, with `a` the average of the
/// `s` noises ([`expected_avg_noise_l1`]) and `b̄` of the `s` clean gradients. The step (56)→(57)
/// bounds `‖g^t − g^{t−k−i}‖₁ ≤ (k+i)M'` (`k = t − ⌊t/s⌋s ≤ s − 1`), whose average over
/// `i = 1..s` is at most `(3s−1)M'/2`; the paper writes `sM'` (equal only at `s = 1`).
///
/// # Errors
/// `InvalidParameter` for negative expectations, `E‖b̄‖₁ ≥ E‖a‖₁`, `d = 0`, `ε ≤ 0`, `s = 0` or
/// `M' < 0`.
pub fn h_upper_bound_sparse(e_a_l1: f64, e_b_l1: f64, d: u64, eps_adapt: f64, s: u64, m_prime: f64) -> Result<f64> {
    let [first, d, e, s, mp] = h_sparse_args(e_a_l1, e_b_l1, d, eps_adapt, s, m_prime)?;
    finite_result("h_upper_bound_sparse", first + (3.0 * s - 1.0) * mp / (2.0 * d * e))
}

/// eq. (59) as printed: staleness term `sM'/(dε)` (smaller than [`h_upper_bound_sparse`] for
/// `s ≥ 2`).
///
/// # Errors
/// As [`h_upper_bound_sparse`].
pub fn h_upper_bound_sparse_printed(
    e_a_l1: f64,
    e_b_l1: f64,
    d: u64,
    eps_adapt: f64,
    s: u64,
    m_prime: f64,
) -> Result<f64> {
    let [first, d, e, s, mp] = h_sparse_args(e_a_l1, e_b_l1, d, eps_adapt, s, m_prime)?;
    finite_result("h_upper_bound_sparse_printed", first + s * mp / (d * e))
}

/// `E‖a‖₁ = d·√(2/π)·σC/(b√s)` for `a = (1/s)Σ_{i=1}^{s} N^i`, `N^i ~ N(0, σ²C²/b² I_d)` i.i.d.
/// (each coordinate is `N(0, σ²C²/(b²s))` and `E|N(0, v)| = √(2v/π)`).
///
/// # Errors
/// `InvalidParameter` for `d = 0` or `s = 0`.
pub fn expected_avg_noise_l1(noise: &NoiseSetting, d: u64, delay_s: u64) -> Result<f64> {
    let d = check::count("d", d)? as f64;
    let var = noise.averaged_noise_variance(delay_s)?;
    finite_result("expected_avg_noise_l1", d * (2.0 * var / std::f64::consts::PI).sqrt())
}
