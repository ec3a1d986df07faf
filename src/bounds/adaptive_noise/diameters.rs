//! The diameters and traces the \[ADFJT\] theorems are stated in: `D₂`, `D∞`,
//! `D_{C⁻¹}` of a box or an l2 ball, `tr(C⁻¹)` and `tr(C^{−1/2})`.

use super::validate::{check_c, check_vector, finite_result, root_sum_squares};
use crate::error::{Error, Result, check};

/// The three diameters the theorems use: `D₂ = diam₂(X)`, `D∞ = diam∞(X)` and
/// `D_{C⁻¹} = diam_{‖·‖_{C⁻¹}}(X) = sup_{x,y∈X} (Σⱼ (xⱼ − yⱼ)²/Cⱼⱼ)^{1/2}`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Diameters {
    /// `D₂ = sup ‖x − y‖₂`.
    pub diam_2: f64,
    /// `D∞ = sup ‖x − y‖∞`.
    pub diam_inf: f64,
    /// `D_{C⁻¹} = sup ‖x − y‖_{C⁻¹}`, the dual diameter of the bias norm `‖·‖_C`.
    pub diam_c_inv: f64,
}

/// Diameters of the box `X = Πⱼ [lⱼ, uⱼ]` (the paper's `[l, u]^d` when all bounds agree), with
/// `wⱼ = uⱼ − lⱼ`: `D₂ = (Σⱼ wⱼ²)^{1/2}`, `D∞ = maxⱼ wⱼ`, `D_{C⁻¹} = (Σⱼ wⱼ²/Cⱼⱼ)^{1/2}`
/// (all attained by a pair of opposite vertices). For `[−1, 1]^d`: `2√d`, `2`, `2√tr(C⁻¹)`.
///
/// # Errors
/// `Empty` for `d = 0`; `NonFinite` for a non-finite bound; `InvalidParameter` for `lⱼ > uⱼ`,
/// lengths that differ, or `Cⱼⱼ ≤ 0`.
pub fn box_diameters(lower: &[f64], upper: &[f64], ellipsoid_c: &[f64]) -> Result<Diameters> {
    check_vector("lower", lower)?;
    check_vector("upper", upper)?;
    if upper.len() != lower.len() {
        return Err(Error::invalid("upper", format!("length {}", upper.len()), "of the length of lower"));
    }
    check_c(ellipsoid_c, Some(lower.len()))?;
    if let Some(j) = lower.iter().zip(upper).position(|(l, u)| l > u) {
        return Err(Error::invalid("upper", upper[j], "coordinatewise >= lower"));
    }
    let w = || lower.iter().zip(upper).map(|(l, u)| u - l);
    Ok(Diameters {
        diam_2: finite_result("box_diameters_diam_2", root_sum_squares(w()))?,
        diam_inf: finite_result("box_diameters_diam_inf", w().fold(0.0, f64::max))?,
        diam_c_inv: finite_result(
            "box_diameters_diam_c_inv",
            root_sum_squares(w().zip(ellipsoid_c).map(|(wj, c)| wj / c.sqrt())),
        )?,
    })
}

/// Diameters of the l2 ball `{‖x‖₂ ≤ R}`: `D₂ = D∞ = 2R` and `D_{C⁻¹} = 2R·maxⱼ Cⱼⱼ^{−1/2}`
/// (attained by `±R eⱼ` with `j` the smallest `Cⱼⱼ`).
///
/// # Errors
/// `InvalidParameter` for `R ≤ 0` (NaN, ∞ included) or `Cⱼⱼ ≤ 0`; `Empty` for an empty `C`.
pub fn l2_ball_diameters(radius: f64, ellipsoid_c: &[f64]) -> Result<Diameters> {
    check::positive("radius", radius)?;
    check_c(ellipsoid_c, None)?;
    let c_min = ellipsoid_c.iter().copied().fold(f64::INFINITY, f64::min);
    Ok(Diameters {
        diam_2: finite_result("l2_ball_diameters_diam_2", 2.0 * radius)?,
        diam_inf: finite_result("l2_ball_diameters_diam_inf", 2.0 * radius)?,
        diam_c_inv: finite_result("l2_ball_diameters_diam_c_inv", 2.0 * radius / c_min.sqrt())?,
    })
}

/// `tr(C⁻¹) = Σⱼ 1/Cⱼⱼ` (PASAN's privacy term uses its square root).
///
/// # Errors
/// `InvalidParameter` for `Cⱼⱼ ≤ 0`; `Empty` for an empty `C`.
pub fn trace_c_inv(ellipsoid_c: &[f64]) -> Result<f64> {
    check_c(ellipsoid_c, None)?;
    finite_result("trace_c_inv", ellipsoid_c.iter().map(|c| 1.0 / c).sum())
}

/// `tr(C^{−1/2}) = Σⱼ Cⱼⱼ^{−1/2}` (PAGAN's privacy term).
///
/// # Errors
/// `InvalidParameter` for `Cⱼⱼ ≤ 0`; `Empty` for an empty `C`.
pub fn trace_c_inv_sqrt(ellipsoid_c: &[f64]) -> Result<f64> {
    check_c(ellipsoid_c, None)?;
    finite_result("trace_c_inv_sqrt", ellipsoid_c.iter().map(|c| 1.0 / c.sqrt()).sum())
}
