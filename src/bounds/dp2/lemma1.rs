//! \[LZLRMS\] Lemma 1 (App. A, eq. (4)–(7)): the bound `M` on the preconditioner's second
//! moment and on `E D_j`, and the exact `E v_j` for constant gradients (property P9 of `proofs/dp2/dp2.md` §6).

use super::validate::{finite, finite_result};
use crate::error::{Result, check};

/// `σ²C²/(s b²)`: the per-coordinate variance of the average of `s` released noises.
pub(super) fn averaged_noise_variance(c: f64, sigma: f64, delay_s: u64, batch_b: u64) -> Result<f64> {
    let c = check::positive("c", c)?;
    let sigma = check::non_negative("sigma", sigma)?;
    let s = check::count("delay_s", delay_s)? as f64;
    let b = check::count("batch_b", batch_b)? as f64;
    Ok(sigma * sigma * c * c / (s * b * b))
}

/// \[LZLRMS\] Lemma 1, eq. (4): `M = C² + σ²C²/(s b²)`, a bound on `E[(G_j/s)²]`, on
/// `E[v_j]` (RMSProp) and, by Jensen, on `(E√v_j)²`, under A2 (`‖g^{i,t}‖ ≤ C`) with clip `C`.
/// Decreasing in `s`.
///
/// # Errors
/// `InvalidParameter` for `C ≤ 0`, `σ < 0` (NaN, ∞ included), `s = 0` or `b = 0`.
pub fn lemma1_m(c: f64, sigma: f64, delay_s: u64, batch_b: u64) -> Result<f64> {
    let var = averaged_noise_variance(c, sigma, delay_s, batch_b)?;
    Ok(c * c + var)
}

/// `g_j² + σ²C²/(s b²)` = `E[(G_j/s)²]` for a constant per-example gradient coordinate `g_j`.
fn constant_gradient_second_moment(g_j: f64, c: f64, sigma: f64, delay_s: u64, batch_b: u64) -> Result<f64> {
    let g = finite("g_j", g_j)?;
    Ok(g * g + averaged_noise_variance(c, sigma, delay_s, batch_b)?)
}

/// `E[v_j]` of DP²-RMSProp after `k` preconditioner updates (property P9), for a constant
/// per-example gradient coordinate `g_j` and no clipping: each update sees
/// `E[(G_j/s)²] = g_j² + σ²C²/(s b²)`, so the recursion `E v_k = βE v_{k−1} + (1−β)(g_j² + σ²C²/(sb²))`
/// from `v_0 = 0` gives `(1 − β^k)(g_j² + σ²C²/(s b²))` (0 for `k = 0`). With `|g_j| ≤ C` it is
/// below [`lemma1_m`].
///
/// # Errors
/// As [`lemma1_m`]; `InvalidParameter` for a non-finite `g_j` or `β ∉ (0, 1)`.
pub fn lemma1_expected_v_rmsprop(
    g_j: f64,
    c: f64,
    sigma: f64,
    delay_s: u64,
    batch_b: u64,
    beta: f64,
    k_updates: u64,
) -> Result<f64> {
    let m2 = constant_gradient_second_moment(g_j, c, sigma, delay_s, batch_b)?;
    let beta = check::open_unit("beta", beta)?;
    // 1 − β^k = −expm1(k ln β), accurate when β^k is close to 1.
    Ok(-(k_updates as f64 * beta.ln()).exp_m1() * m2)
}

/// `E[v_j]` of DP²-AdaGrad (`v ← v + (G/s)²`, App. D) after `k` updates under the same model
/// as [`lemma1_expected_v_rmsprop`]: `k(g_j² + σ²C²/(s b²))`. Lemma 1 does not cover AdaGrad
/// (this grows linearly in `k`).
///
/// # Errors
/// As [`lemma1_m`]; `InvalidParameter` for a non-finite `g_j`.
pub fn lemma1_expected_v_adagrad(
    g_j: f64,
    c: f64,
    sigma: f64,
    delay_s: u64,
    batch_b: u64,
    k_updates: u64,
) -> Result<f64> {
    let m2 = constant_gradient_second_moment(g_j, c, sigma, delay_s, batch_b)?;
    finite_result("lemma1_expected_v_adagrad", k_updates as f64 * m2)
}

/// \[LZLRMS\] Lemma 1, eq. (7): `E[D_j^t] ≤ max{√M + ε, 1}` (`D = 1` in SGD steps,
/// `√v + ε` in adaptive steps).
///
/// # Errors
/// `InvalidParameter` for `M < 0` or `ε ≤ 0`.
pub fn expected_d_bound(m: f64, eps_adapt: f64) -> Result<f64> {
    let m = check::non_negative("m", m)?;
    let e = check::positive("eps_adapt", eps_adapt)?;
    Ok((m.sqrt() + e).max(1.0))
}
