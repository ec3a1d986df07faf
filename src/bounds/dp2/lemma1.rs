//! \[LZLRMS\] Lemma 1 (App. A, eq. (4)–(7)): the bound `M` on the preconditioner's second
//! moment and on `E D_j`, and the exact `E v_j` for constant gradients (property P9 of `proofs/dp2/dp2.md` §6).

use super::NoiseSetting;
use super::validate::{finite, finite_result};
use crate::error::{Result, check};

/// \[LZLRMS\] Lemma 1, eq. (4): `M = C² + σ²C²/(s b²)`, a bound on `E[(G_j/s)²]`, on
/// `E[v_j]` (RMSProp) and, by Jensen, on `(E√v_j)²`, under A2 (`‖g^{i,t}‖ ≤ C`) with clip `C`.
/// Decreasing in `s`.
///
/// # Errors
/// `InvalidParameter` for `s = 0`.
pub fn lemma1_m(noise: &NoiseSetting, delay_s: u64) -> Result<f64> {
    let var = noise.averaged_noise_variance(delay_s)?;
    finite_result("lemma1_m", noise.c() * noise.c() + var)
}

/// `g_j² + σ²C²/(s b²)` = `E[(G_j/s)²]` for a constant per-example gradient coordinate `g_j`.
fn constant_gradient_second_moment(noise: &NoiseSetting, delay_s: u64, g_j: f64) -> Result<f64> {
    let g = finite("g_j", g_j)?;
    finite_result("constant_gradient_second_moment", g * g + noise.averaged_noise_variance(delay_s)?)
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
    noise: &NoiseSetting,
    delay_s: u64,
    g_j: f64,
    beta: f64,
    k_updates: u64,
) -> Result<f64> {
    let m2 = constant_gradient_second_moment(noise, delay_s, g_j)?;
    let beta = check::open_unit("beta", beta)?;
    // 1 − β^k = −expm1(k ln β), accurate when β^k is close to 1.
    finite_result("lemma1_expected_v_rmsprop", -(k_updates as f64 * beta.ln()).exp_m1() * m2)
}

/// `E[v_j]` of DP²-AdaGrad (`v ← v + (G/s)²`, App. D) after `k` updates under the same model
/// as [`lemma1_expected_v_rmsprop`]: `k(g_j² + σ²C²/(s b²))`. Lemma 1 does not cover AdaGrad
/// (this grows linearly in `k`).
///
/// # Errors
/// As [`lemma1_m`]; `InvalidParameter` for a non-finite `g_j`.
pub fn lemma1_expected_v_adagrad(noise: &NoiseSetting, delay_s: u64, g_j: f64, k_updates: u64) -> Result<f64> {
    let m2 = constant_gradient_second_moment(noise, delay_s, g_j)?;
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
    finite_result("expected_d_bound", (m.sqrt() + e).max(1.0))
}
