//! The gradient moments `G(z; C)` and `Ĝ_p(S; C)` (\[ADFJT\] eq. (4), Sec. 4.1) and the bias
//! of radial clipping, exact and as bounded by \[ADFJT\] Lemma B.1.

use super::validate::{check_c, check_order_above_one, check_rows, check_vector, finite_result, root_sum_squares};
use crate::error::{Error, Result, check};

/// `G(z; C) = ‖z‖_C = (Σⱼ Cⱼⱼ zⱼ²)^{1/2}`: Assumption A1's Lipschitz constant of a GLM loss
/// `F(x; z) = ℓ(zᵀx)` with `ℓ` 1-Lipschitz, since `‖∇F‖_C = |ℓ'|·‖z‖_C ≤ ‖z‖_C`
/// (\[ADFJT\] Sec. 4.1).
///
/// # Errors
/// `Empty`/`NonFinite` for a bad `z`; `InvalidParameter` for a bad `C` or lengths that differ.
pub fn glm_gradient_bound_g(z: &[f64], ellipsoid_c: &[f64]) -> Result<f64> {
    check_vector("z", z)?;
    check_c(ellipsoid_c, Some(z.len()))?;
    finite_result("glm_gradient_bound_g", root_sum_squares(z.iter().zip(ellipsoid_c).map(|(v, c)| v * c.sqrt())))
}

/// The empirical moment `Ĝ_p = ((1/n) Σᵢ Gᵢ^p)^{1/p}` of given Lipschitz constants
/// `Gᵢ = G(zᵢ; C) ≥ 0` (\[ADFJT\] eq. (4)); `p = ∞` gives `maxᵢ Gᵢ`. Computed scaled by
/// `maxᵢ Gᵢ`, so it does not overflow for large `p`.
///
/// # Errors
/// `Empty` for no values; `NonFinite` for a non-finite value; `InvalidParameter` for a negative
/// value or `p ∉ [1, ∞]`.
pub fn empirical_moment_g_hat(g_values: &[f64], moment_order_p: f64) -> Result<f64> {
    check_vector("g_values", g_values)?;
    if let Some(&v) = g_values.iter().find(|v| **v < 0.0) {
        return Err(Error::invalid("g_values", v, ">= 0 (they are norms)"));
    }
    let p = moment_order_p;
    if p.is_nan() || p < 1.0 {
        return Err(Error::invalid("moment_order_p", p, "in [1, inf]"));
    }
    let m = g_values.iter().copied().fold(0.0, f64::max);
    if p.is_infinite() || m == 0.0 {
        return Ok(m);
    }
    let n = g_values.len() as f64;
    finite_result(
        "empirical_moment_g_hat",
        m * (g_values.iter().map(|g| (g / m).powf(p)).sum::<f64>() / n).powf(1.0 / p),
    )
}

/// `Gᵢ = G(zᵢ; C) = ‖zᵢ‖_C` for every GLM feature row `zᵢ` (\[ADFJT\] Sec. 4.1): the Lipschitz
/// constants that [`empirical_moment_g_hat`] turns into `Ĝ_p(S; C) = ((1/n) Σᵢ ‖zᵢ‖_C^p)^{1/p}`
/// (eq. (4)) and [`radial_clipping_bias`] into `(1/n) Σᵢ (‖zᵢ‖_C − B)₊`.
///
/// # Errors
/// As [`glm_gradient_bound_g`]; `Empty` for no rows; `InvalidParameter` for rows of different
/// lengths.
pub fn glm_gradient_bounds<R: AsRef<[f64]>>(features: &[R], ellipsoid_c: &[f64]) -> Result<Vec<f64>> {
    let d = check_rows("features", features)?;
    check_c(ellipsoid_c, Some(d))?;
    features.iter().map(|z| glm_gradient_bound_g(z.as_ref(), ellipsoid_c)).collect()
}

/// The exact bias of radial clipping on the empirical measure:
/// `(1/n) Σᵢ (Gᵢ − B)₊`. For the radial projection `π(g) = g·min(1, B/‖g‖_C)` onto
/// `{‖g‖_C ≤ B}` one has `‖g − π(g)‖_C = (‖g‖_C − B)₊` (`proofs/geometry.md` §3), so this is
/// `(1/n) Σᵢ ‖gᵢ − π(gᵢ)‖_C` when `Gᵢ = ‖gᵢ‖_C`, the clipping term of the explicit Thms. 8, 9.
///
/// # Errors
/// `Empty`/`NonFinite` for bad values; `InvalidParameter` for a negative value or `B ≤ 0`.
pub fn radial_clipping_bias(g_values: &[f64], clip_radius_b: f64) -> Result<f64> {
    check_vector("g_values", g_values)?;
    if let Some(&v) = g_values.iter().find(|v| **v < 0.0) {
        return Err(Error::invalid("g_values", v, ">= 0 (they are norms)"));
    }
    let b = check::positive("clip_radius_b", clip_radius_b)?;
    finite_result(
        "radial_clipping_bias",
        g_values.iter().map(|g| (g - b).max(0.0)).sum::<f64>() / g_values.len() as f64,
    )
}

/// Lemma B.1's bound on the radial clipping bias (\[ADFJT\] Lemma B.1, from Barber–Duchi
/// 2014, Lemma 3): if `(E‖X‖_C^p)^{1/p} ≤ G` then `E‖π(X) − X‖_C ≤ G^p/((p − 1)B^{p−1})`,
/// evaluated as `B·(G/B)^p/(p − 1)` (overflow gives `+∞`, which is still an upper bound).
/// With `G = Ĝ_p(S; C)` it bounds [`radial_clipping_bias`] on the sample `S`.
///
/// # Errors
/// `InvalidParameter` for `G < 0`, `B ≤ 0`, or `p ≤ 1` (erratum E7: the paper allows `p ≥ 1`,
/// where the bound is undefined).
pub fn radial_clipping_bias_bound(moment_g: f64, moment_order_p: f64, clip_radius_b: f64) -> Result<f64> {
    let g = check::non_negative("moment_g", moment_g)?;
    let p = check_order_above_one(moment_order_p)?;
    let b = check::positive("clip_radius_b", clip_radius_b)?;
    finite_result("radial_clipping_bias_bound", b * (g / b).powf(p) / (p - 1.0))
}
