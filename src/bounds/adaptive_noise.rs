//! Bounds of \[ADFJT\] — Asi, Duchi, Fallah, Javidi, Talwar, "Private Adaptive Gradient Methods for
//! Convex Optimization" (ICML 2021 style version). **Version:** the arXiv id and version of the
//! text these functions were written from are not recorded here, so citations read
//! `[ADFJT] Thm. N (v?)`; numbering may differ between versions.
//!
//! Every formula below is a function, and `tests/bounds_adaptive_noise.rs` evaluates each one.
//! Symbols (notes §7): `D₂ = diam₂(X)`, `D∞ = diam∞(X)`, `D_{C⁻¹} = diam_{‖·‖_{C⁻¹}}(X)`,
//! `‖x‖_C = (Σⱼ Cⱼⱼ xⱼ²)^{1/2}` for the diagonal `C ≻ 0` (`ellipsoid_c`), `B` the clip radius
//! (`A = C/B²`), `s` the noise standard deviation on the *averaged* clipped gradient in whitened
//! coordinates (corrected, `s = √log(1/δ)/(bε)`; erratum 1), `log` the natural logarithm.
//!
//! | result | function | kind |
//! |---|---|---|
//! | diameters of a box / an l2 ball | [`box_diameters`], [`l2_ball_diameters`] | exact |
//! | `tr(C⁻¹)`, `tr(C^{−1/2})` | [`trace_c_inv`], [`trace_c_inv_sqrt`] | exact |
//! | `G(z;C) = ‖z‖_C`, `Ĝ_p(S;C)` (eq. 4) | [`glm_gradient_bound_g`], [`empirical_moment_g_hat`], [`glm_empirical_moment_g_hat`] | exact |
//! | radial clipping bias and Lemma B.1 | [`radial_clipping_bias`], [`glm_radial_clipping_bias`], [`radial_clipping_bias_bound`] | exact / bound |
//! | Lemma B.2 | [`lemma_b2_sides`] | both sides |
//! | Thm. 6 core (R-SGD) | [`adagrad_norm_sgd_pathwise_regret`] | pathwise, corrected and printed |
//! | Thm. 7 core (R-ADA) | [`diagonal_adagrad_pathwise_regret`] | pathwise, corrected and printed |
//! | Thm. 8, Thm. 9 explicit constants | [`pasan_bound_explicit`], [`pagan_bound_explicit`] | upper bounds |
//! | Thms. 8, 9, 1, 2 printed `O(·)` with `O(1) = 1` | [`pasan_rate_printed_unit_constant`], [`pagan_rate_printed_unit_constant`], [`pasan_tuned_rate_printed_unit_constant`], [`pagan_tuned_rate_printed_unit_constant`] | trend only |
//! | tuned B of Thms. 1, 2 | [`pasan_tuned_clip_radius`], [`pagan_tuned_clip_radius`] | exact |
//! | noise energy, eq. (17) (N3) | [`noise_energy_gap`], [`noise_energy_gap_from_a`] | exact |
//! | Hölder chain (§3.2) | [`holder_chain`] | exact |
//! | Thm. 3: `T_est`, accuracy band, `Ĉ` | [`second_moment_rounds`], [`second_moment_band`], [`second_moment_band_printed`], [`second_moment_estimates_in_band`], [`c_hat_from_sigma_hat`] | exact / checker |
//! | Thms. 4, 5 lower bounds, Thm. 4 reduction | [`linf_box_lower_bound`], [`l2_ball_lower_bound`], [`linear_box_excess`], [`sign_error`] | explicit forms |
//!
//! Errata followed here (notes §2.7): 1 (noise scale), 3 (Thm. 7 constant: `D∞²/(2α) + α`, i.e.
//! `3/2·D∞` at `α = D∞`, instead of the printed `1·D∞`), 5 (first terms in `g̃`), 6 (Thm. 9 is
//! about Alg. 2), 7 (`p > 1`), 17 (exponents of `Ĉ`); and one found while writing this module:
//! the upper end of eq. (8) cannot hold below the floor `2^{−T_est}` (see [`second_moment_band`]).

use crate::error::{Error, Result, check};

// ---------------------------------------------------------------------------------------------
// Validation helpers
// ---------------------------------------------------------------------------------------------

/// Non-empty rows of one common length `d ≥ 1`, all entries finite. Returns `d`.
fn check_rows<R: AsRef<[f64]>>(what: &'static str, rows: &[R]) -> Result<usize> {
    if rows.is_empty() {
        return Err(Error::Empty { what });
    }
    let d = rows[0].as_ref().len();
    if d == 0 {
        return Err(Error::Empty { what });
    }
    for (i, r) in rows.iter().enumerate() {
        let r = r.as_ref();
        if r.len() != d {
            return Err(Error::invalid(
                what,
                format!("row {i} of length {} (row 0 has {d})", r.len()),
                "rows of one length",
            ));
        }
        if let Some(j) = r.iter().position(|v| !v.is_finite()) {
            return Err(Error::NonFinite { what, index: i * d + j });
        }
    }
    Ok(d)
}

/// A non-empty vector of finite entries.
fn check_vector(what: &'static str, x: &[f64]) -> Result<()> {
    if x.is_empty() {
        return Err(Error::Empty { what });
    }
    check::all_finite(what, x)
}

/// `diag(C)`: every entry finite and `> 0`; length `d` if given.
fn check_c(c: &[f64], d: Option<usize>) -> Result<()> {
    if c.is_empty() {
        return Err(Error::Empty { what: "ellipsoid_c" });
    }
    if let Some(d) = d
        && c.len() != d
    {
        return Err(Error::invalid("ellipsoid_c", format!("length {}", c.len()), "of the dimension d of the data"));
    }
    for &v in c {
        if !(v.is_finite() && v > 0.0) {
            return Err(Error::invalid("ellipsoid_c", v, "> 0 and finite (C is positive definite)"));
        }
    }
    Ok(())
}

/// The moment order of a bias bound: `p > 1` and finite (erratum 7: the theorems print `p ≥ 1`,
/// but `1/(p − 1)` needs `p > 1`).
fn check_order_above_one(p: f64) -> Result<f64> {
    if p.is_finite() && p > 1.0 { Ok(p) } else { Err(Error::invalid("moment_order_p", p, "> 1 and finite")) }
}

/// `√(Σ xᵢ²)` over an iterator, scaled by the largest magnitude so that it neither overflows nor
/// underflows.
fn root_sum_squares(xs: impl Iterator<Item = f64> + Clone) -> f64 {
    let m = xs.clone().fold(0.0f64, |m, v| m.max(v.abs()));
    if m == 0.0 {
        return 0.0;
    }
    m * xs.map(|v| (v / m).powi(2)).sum::<f64>().sqrt()
}

// ---------------------------------------------------------------------------------------------
// Diameters and traces
// ---------------------------------------------------------------------------------------------

/// The three diameters the theorems use: `D₂ = diam₂(X)`, `D∞ = diam∞(X)` and
/// `D_{C⁻¹} = diam_{‖·‖_{C⁻¹}}(X) = sup_{x,y∈X} (Σⱼ (xⱼ − yⱼ)²/Cⱼⱼ)^{1/2}` (notes §7).
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
        diam_2: root_sum_squares(w()),
        diam_inf: w().fold(0.0, f64::max),
        diam_c_inv: root_sum_squares(w().zip(ellipsoid_c).map(|(wj, c)| wj / c.sqrt())),
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
    Ok(Diameters { diam_2: 2.0 * radius, diam_inf: 2.0 * radius, diam_c_inv: 2.0 * radius / c_min.sqrt() })
}

/// `tr(C⁻¹) = Σⱼ 1/Cⱼⱼ` (PASAN's privacy term uses its square root).
///
/// # Errors
/// `InvalidParameter` for `Cⱼⱼ ≤ 0`; `Empty` for an empty `C`.
pub fn trace_c_inv(ellipsoid_c: &[f64]) -> Result<f64> {
    check_c(ellipsoid_c, None)?;
    Ok(ellipsoid_c.iter().map(|c| 1.0 / c).sum())
}

/// `tr(C^{−1/2}) = Σⱼ Cⱼⱼ^{−1/2}` (PAGAN's privacy term).
///
/// # Errors
/// `InvalidParameter` for `Cⱼⱼ ≤ 0`; `Empty` for an empty `C`.
pub fn trace_c_inv_sqrt(ellipsoid_c: &[f64]) -> Result<f64> {
    check_c(ellipsoid_c, None)?;
    Ok(ellipsoid_c.iter().map(|c| 1.0 / c.sqrt()).sum())
}

// ---------------------------------------------------------------------------------------------
// Gradient moments and the clipping bias
// ---------------------------------------------------------------------------------------------

/// `G(z; C) = ‖z‖_C = (Σⱼ Cⱼⱼ zⱼ²)^{1/2}`: Assumption A1's Lipschitz constant of a GLM loss
/// `F(x; z) = ℓ(zᵀx)` with `ℓ` 1-Lipschitz, since `‖∇F‖_C = |ℓ'|·‖z‖_C ≤ ‖z‖_C`
/// (\[ADFJT\] Sec. 4.1 (v?)).
///
/// # Errors
/// `Empty`/`NonFinite` for a bad `z`; `InvalidParameter` for a bad `C` or lengths that differ.
pub fn glm_gradient_bound_g(z: &[f64], ellipsoid_c: &[f64]) -> Result<f64> {
    check_vector("z", z)?;
    check_c(ellipsoid_c, Some(z.len()))?;
    Ok(root_sum_squares(z.iter().zip(ellipsoid_c).map(|(v, c)| v * c.sqrt())))
}

/// The empirical moment `Ĝ_p = ((1/n) Σᵢ Gᵢ^p)^{1/p}` of given Lipschitz constants
/// `Gᵢ = G(zᵢ; C) ≥ 0` (\[ADFJT\] eq. (4) (v?)); `p = ∞` gives `maxᵢ Gᵢ`. Computed scaled by
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
    Ok(m * (g_values.iter().map(|g| (g / m).powf(p)).sum::<f64>() / n).powf(1.0 / p))
}

/// `Ĝ_p(S; C) = ((1/n) Σᵢ ‖zᵢ‖_C^p)^{1/p}` for GLM feature rows `zᵢ` (\[ADFJT\] eq. (4) with
/// `G(z; C) = ‖z‖_C`, Sec. 4.1 (v?)).
///
/// # Errors
/// As [`glm_gradient_bound_g`] and [`empirical_moment_g_hat`]; `InvalidParameter` for rows of
/// different lengths.
pub fn glm_empirical_moment_g_hat<R: AsRef<[f64]>>(
    features: &[R],
    ellipsoid_c: &[f64],
    moment_order_p: f64,
) -> Result<f64> {
    let g = glm_norms(features, ellipsoid_c)?;
    empirical_moment_g_hat(&g, moment_order_p)
}

/// `‖zᵢ‖_C` for every row.
fn glm_norms<R: AsRef<[f64]>>(features: &[R], ellipsoid_c: &[f64]) -> Result<Vec<f64>> {
    let d = check_rows("features", features)?;
    check_c(ellipsoid_c, Some(d))?;
    features.iter().map(|z| glm_gradient_bound_g(z.as_ref(), ellipsoid_c)).collect()
}

/// The exact bias of radial clipping on the empirical measure:
/// `(1/n) Σᵢ (Gᵢ − B)₊`. For the radial projection `π(g) = g·min(1, B/‖g‖_C)` onto
/// `{‖g‖_C ≤ B}` one has `‖g − π(g)‖_C = (‖g‖_C − B)₊` (notes §2.0 (b)), so this is
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
    Ok(g_values.iter().map(|g| (g - b).max(0.0)).sum::<f64>() / g_values.len() as f64)
}

/// [`radial_clipping_bias`] of GLM gradients bounded by `G(zᵢ; C) = ‖zᵢ‖_C`:
/// `(1/n) Σᵢ (‖zᵢ‖_C − B)₊`.
///
/// # Errors
/// As [`glm_empirical_moment_g_hat`] and [`radial_clipping_bias`].
pub fn glm_radial_clipping_bias<R: AsRef<[f64]>>(
    features: &[R],
    ellipsoid_c: &[f64],
    clip_radius_b: f64,
) -> Result<f64> {
    let g = glm_norms(features, ellipsoid_c)?;
    radial_clipping_bias(&g, clip_radius_b)
}

/// Lemma B.1's bound on the radial clipping bias (\[ADFJT\] Lemma B.1 (v?), from Barber–Duchi
/// 2014, Lemma 3): if `(E‖X‖_C^p)^{1/p} ≤ G` then `E‖π(X) − X‖_C ≤ G^p/((p − 1)B^{p−1})`,
/// evaluated as `B·(G/B)^p/(p − 1)` (overflow gives `+∞`, which is still an upper bound).
/// With `G = Ĝ_p(S; C)` it bounds [`radial_clipping_bias`] on the sample `S`.
///
/// # Errors
/// `InvalidParameter` for `G < 0`, `B ≤ 0`, or `p ≤ 1` (erratum 7: the paper allows `p ≥ 1`,
/// where the bound is undefined).
pub fn radial_clipping_bias_bound(moment_g: f64, moment_order_p: f64, clip_radius_b: f64) -> Result<f64> {
    let g = check::non_negative("moment_g", moment_g)?;
    let p = check_order_above_one(moment_order_p)?;
    let b = check::positive("clip_radius_b", clip_radius_b)?;
    Ok(b * (g / b).powf(p) / (p - 1.0))
}

// ---------------------------------------------------------------------------------------------
// Lemma B.2
// ---------------------------------------------------------------------------------------------

/// The two sides of an inequality `lhs ≤ rhs` (or of an identity `lhs = rhs`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sides {
    /// The left-hand side.
    pub lhs: f64,
    /// The right-hand side.
    pub rhs: f64,
}

/// \[ADFJT\] Lemma B.2 (v?): for any real `a₁, …, a_n`,
/// `Σ_{k=1}^n a_k²/‖a_{1:k}‖₂ ≤ 2‖a_{1:n}‖₂` (terms with `‖a_{1:k}‖₂ = 0` are `0/0 := 0`).
/// Returns `lhs = Σ a_k²/‖a_{1:k}‖₂` and `rhs = 2‖a_{1:n}‖₂`, computed on `a/maxₖ|aₖ|` and scaled
/// back (both sides are 1-homogeneous), so neither overflows.
///
/// # Errors
/// `Empty` for an empty sequence; `NonFinite` for a non-finite term.
pub fn lemma_b2_sides(a: &[f64]) -> Result<Sides> {
    check_vector("a", a)?;
    let m = a.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    if m == 0.0 {
        return Ok(Sides { lhs: 0.0, rhs: 0.0 });
    }
    let (mut cum, mut lhs) = (0.0f64, 0.0f64);
    for v in a {
        let v = v / m;
        cum += v * v;
        if cum > 0.0 {
            lhs += v * v / cum.sqrt();
        }
    }
    Ok(Sides { lhs: m * lhs, rhs: 2.0 * m * cum.sqrt() })
}

// ---------------------------------------------------------------------------------------------
// Theorems 6 and 7: pathwise cores
// ---------------------------------------------------------------------------------------------

/// A realised regret `Σ_{k=0}^{T−1} ⟨ĝᵏ, xᵏ − u⟩` next to the bounds on it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PathwiseRegret {
    /// `Σ_{k<T} ⟨ĝᵏ, xᵏ − u⟩`.
    pub regret: f64,
    /// The gradient energy the bound is proportional to: `(Σₖ ‖ĝᵏ‖₂²)^{1/2}` for (R-SGD),
    /// `Σⱼ (Σₖ (ĝⱼᵏ)²)^{1/2}` for (R-ADA).
    pub energy: f64,
    /// `(D²/(2α) + α)·energy`: the corrected bound, valid for every α > 0.
    pub bound_corrected: f64,
    /// The bound as printed (see the function's doc for which printed statement).
    pub bound_printed: f64,
}

/// Shared checks of the pathwise functions: `T ≥ 1` gradients and `T` iterates of one dimension,
/// `u` of that dimension, `D ≥ 0`, `α > 0`.
fn check_path<R: AsRef<[f64]>, S: AsRef<[f64]>>(
    g_hat: &[R],
    iterates: &[S],
    comparator_u: &[f64],
    diam: (&'static str, f64),
    step_scale_alpha: f64,
) -> Result<usize> {
    let d = check_rows("g_hat", g_hat)?;
    let dx = check_rows("iterates", iterates)?;
    if iterates.len() != g_hat.len() {
        return Err(Error::invalid(
            "iterates",
            format!("{} points for {} gradients", iterates.len(), g_hat.len()),
            "x^0..x^{T-1}: one point per gradient",
        ));
    }
    if dx != d {
        return Err(Error::invalid("iterates", format!("dimension {dx}"), "of the dimension of g_hat"));
    }
    check_vector("comparator_u", comparator_u)?;
    if comparator_u.len() != d {
        return Err(Error::invalid(
            "comparator_u",
            format!("dimension {}", comparator_u.len()),
            "of the dimension of g_hat",
        ));
    }
    check::non_negative(diam.0, diam.1)?;
    check::positive("step_scale_alpha", step_scale_alpha)?;
    Ok(d)
}

/// `Σₖ ⟨ĝᵏ, xᵏ − u⟩`.
fn realised_regret<R: AsRef<[f64]>, S: AsRef<[f64]>>(g_hat: &[R], iterates: &[S], u: &[f64]) -> f64 {
    g_hat
        .iter()
        .zip(iterates)
        .map(|(g, x)| g.as_ref().iter().zip(x.as_ref()).zip(u).map(|((g, x), u)| g * (x - u)).sum::<f64>())
        .sum()
}

/// The hypothesis `‖xᵏ − u‖ ≤ D` for every k, with a relative slack of 1e-12 for the rounding
/// of the two computations (the caller's `D` and the norms here).
fn check_within_diameter<S: AsRef<[f64]>>(
    iterates: &[S],
    u: &[f64],
    diam: (&'static str, f64),
    norm: impl Fn(&[f64]) -> f64,
) -> Result<()> {
    for x in iterates {
        let diff: Vec<f64> = x.as_ref().iter().zip(u).map(|(x, u)| x - u).collect();
        let r = norm(&diff);
        if r > diam.1 * (1.0 + 1e-12) {
            return Err(Error::invalid(
                diam.0,
                diam.1,
                "at least the distance from every iterate to the comparator (the theorem's hypothesis x^k, u in X)",
            ));
        }
    }
    Ok(())
}

/// Pathwise core of \[ADFJT\] Thm. 6 (v?) for AdaGrad-norm projected SGD (Alg. 4 with
/// `α_k = α/(Σ_{i≤k} ‖ĝⁱ‖₂²)^{1/2}`, i.e. PASAN's step, Alg. 1 line 7), inequality (R-SGD) of
/// notes §4.4. Given the realised `ĝ⁰..ĝ^{T−1}`, the iterates `x⁰..x^{T−1}` the method produced
/// from them (Euclidean projection onto a convex X), and any `u ∈ X`, with `D = D₂ ≥ ‖xᵏ − u‖₂`:
///
/// ```text
/// regret          = Σ_{k<T} ⟨ĝᵏ, xᵏ − u⟩
/// bound_printed   = D²/(2α_{T−1}) + ½ Σ_{k<T} α_k ‖ĝᵏ‖₂²     (Thm. 6 as printed, times T, pathwise)
/// bound_corrected = (D²/(2α) + α) · (Σ_{k<T} ‖ĝᵏ‖₂²)^{1/2}    (Lemma B.2 applied; (R-SGD))
/// ```
///
/// Both hold for every sequence (`regret ≤ bound_printed ≤ bound_corrected`); at `α = D₂` the
/// corrected coefficient is the `3D₂/2` of the paper's eq. (16), so Thm. 6 has no constant
/// erratum (its erratum 4 concerns only the random `α_{T−1}` under the expectation).
/// Steps with `Σ_{i≤k} ‖ĝⁱ‖² = 0` contribute `0` (`0/0 := 0`).
///
/// # Errors
/// `Empty`/`NonFinite` for bad sequences; `InvalidParameter` for mismatched lengths or
/// dimensions, `D < 0`, `α ≤ 0`, or an iterate farther than `D` from `u` in `‖·‖₂`.
pub fn adagrad_norm_sgd_pathwise_regret<R: AsRef<[f64]>, S: AsRef<[f64]>>(
    g_hat: &[R],
    iterates: &[S],
    comparator_u: &[f64],
    diam_2: f64,
    step_scale_alpha: f64,
) -> Result<PathwiseRegret> {
    check_path(g_hat, iterates, comparator_u, ("diam_2", diam_2), step_scale_alpha)?;
    check_within_diameter(iterates, comparator_u, ("diam_2", diam_2), |v| root_sum_squares(v.iter().copied()))?;
    let alpha = step_scale_alpha;
    let regret = realised_regret(g_hat, iterates, comparator_u);
    // Energies on the scale m = max |ĝ| (all terms below are 1-homogeneous in ĝ).
    let m = g_hat.iter().flat_map(|g| g.as_ref().iter()).fold(0.0f64, |m, v| m.max(v.abs()));
    if m == 0.0 {
        return Ok(PathwiseRegret { regret, energy: 0.0, bound_corrected: 0.0, bound_printed: 0.0 });
    }
    let (mut cum, mut half_sum) = (0.0f64, 0.0f64);
    for g in g_hat {
        let sq: f64 = g.as_ref().iter().map(|v| (v / m).powi(2)).sum();
        cum += sq;
        if cum > 0.0 {
            // ½ α_k ‖ĝᵏ‖² with α_k = α/√cum (on the scale m)
            half_sum += 0.5 * alpha * sq / cum.sqrt();
        }
    }
    let energy = m * cum.sqrt();
    let coef = diam_2 * diam_2 / (2.0 * alpha) + alpha;
    // D²/(2α_{T−1}) = D²·√cum/(2α)
    let bound_printed = diam_2 * diam_2 * energy / (2.0 * alpha) + m * half_sum;
    Ok(PathwiseRegret { regret, energy, bound_corrected: coef * energy, bound_printed })
}

/// Pathwise core of \[ADFJT\] Thm. 7 (v?) for diagonal AdaGrad (Alg. 5 / PAGAN's update, Alg. 2
/// lines 7–8: `H_k = diag(Σ_{i≤k} ĝⁱĝⁱᵀ)^{1/2}/α`, projection in `‖·‖_{H_k}`), inequality (R-ADA)
/// of notes §4.4. Given the realised `ĝ⁰..ĝ^{T−1}`, the iterates `x⁰..x^{T−1}` and any `u ∈ X`,
/// with `D = D∞ ≥ ‖xᵏ − u‖∞`:
///
/// ```text
/// regret          = Σ_{k<T} ⟨ĝᵏ, xᵏ − u⟩
/// bound_corrected = (D²/(2α) + α) · Σⱼ (Σ_{k<T} (ĝⱼᵏ)²)^{1/2}    (= 3/2·D∞·Σⱼ… at α = D∞)
/// bound_printed   = D · Σⱼ (Σ_{k<T} (ĝⱼᵏ)²)^{1/2}                (Thm. 7 as printed, times T)
/// ```
///
/// The corrected bound holds for every sequence and every α > 0 (the AdaGrad argument of Duchi
/// 2018, Cor. 4.3.8, with Lemma B.2 per coordinate). The printed one — whose statement fixes
/// `α = D∞` (Alg. 5 line 6) — can fail (erratum 3): `tests/bounds_adaptive_noise.rs` records a
/// four-step instance on `[−1, 1]` with ratio 1.1145. For `α ≠ D∞` the printed statement does not
/// apply and `bound_printed` is reported for comparison only.
///
/// # Errors
/// `Empty`/`NonFinite` for bad sequences; `InvalidParameter` for mismatched lengths or
/// dimensions, `D < 0`, `α ≤ 0`, or an iterate farther than `D` from `u` in `‖·‖∞`.
pub fn diagonal_adagrad_pathwise_regret<R: AsRef<[f64]>, S: AsRef<[f64]>>(
    g_hat: &[R],
    iterates: &[S],
    comparator_u: &[f64],
    diam_inf: f64,
    step_scale_alpha: f64,
) -> Result<PathwiseRegret> {
    let d = check_path(g_hat, iterates, comparator_u, ("diam_inf", diam_inf), step_scale_alpha)?;
    check_within_diameter(iterates, comparator_u, ("diam_inf", diam_inf), |v| {
        v.iter().fold(0.0, |m, x| m.max(x.abs()))
    })?;
    let alpha = step_scale_alpha;
    let regret = realised_regret(g_hat, iterates, comparator_u);
    let energy: f64 = (0..d).map(|j| root_sum_squares(g_hat.iter().map(|g| g.as_ref()[j]))).sum();
    let coef = diam_inf * diam_inf / (2.0 * alpha) + alpha;
    Ok(PathwiseRegret { regret, energy, bound_corrected: coef * energy, bound_printed: diam_inf * energy })
}

// ---------------------------------------------------------------------------------------------
// Theorems 8 and 9: explicit-constant forms
// ---------------------------------------------------------------------------------------------

/// An explicit-constant bound split into its two terms.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ExplicitBound {
    /// The adaptive-step term (optimisation error and privacy noise together).
    pub adaptive_term: f64,
    /// `D_{C⁻¹}·(1/n) Σᵢ (G(zᵢ; C) − B)₊`: the clipping bias term.
    pub clipping_term: f64,
}

impl ExplicitBound {
    /// `adaptive_term + clipping_term`.
    pub fn total(&self) -> f64 {
        self.adaptive_term + self.clipping_term
    }
}

/// Inputs of [`pasan_bound_explicit`] (expectations over the algorithm's randomness).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PasanExplicitInputs<'a> {
    /// `Σ_{k=0}^{T−1} E‖g̃ᵏ‖₂²`, the clipped (not noisy) mean gradients (erratum 5).
    pub sum_sq_norm_g_tilde: f64,
    /// T ≥ 1: number of steps.
    pub steps_t: u64,
    /// s ≥ 0: noise standard deviation on the mean in whitened coordinates.
    pub noise_std_s: f64,
    /// B > 0: clip radius, `A = C/B²`.
    pub clip_radius_b: f64,
    /// diag(C) ≻ 0.
    pub ellipsoid_c: &'a [f64],
    /// D₂ ≥ 0.
    pub diam_2: f64,
    /// D_{C⁻¹} ≥ 0.
    pub diam_c_inv: f64,
    /// α > 0: step scale (theory: D₂).
    pub step_scale_alpha: f64,
    /// `(1/n) Σᵢ (G(zᵢ; C) − B)₊ ≥ 0` ([`radial_clipping_bias`]); bounded by
    /// [`radial_clipping_bias_bound`] at `Ĝ_p(S; C)`.
    pub clipping_bias: f64,
}

/// \[ADFJT\] Thm. 8 (v?), explicit-constant version (notes §4.6; radial projection,
/// `x̄ = (1/T) Σ_{k=0}^{T−1} xᵏ`, any `u ∈ X`, any `s ≥ 0`):
///
/// ```text
/// E[f(x̄) − f(u)] ≤ ((D₂²/(2α) + α)/T) · (Σ_{k<T} E‖g̃ᵏ‖₂² + T s² B² tr(C⁻¹))^{1/2}
///                  + D_{C⁻¹} · (1/n) Σᵢ (G(zᵢ; C) − B)₊
/// ```
///
/// It is Thm. 6 with (R-SGD), Jensen, and eq. (17)'s noise energy `s² tr(A⁻¹) = s²B² tr(C⁻¹)`
/// ([`noise_energy_gap`]).
///
/// # Errors
/// `InvalidParameter` for any input outside its documented range (NaN, ∞ included).
pub fn pasan_bound_explicit(inputs: &PasanExplicitInputs<'_>) -> Result<ExplicitBound> {
    let i = inputs;
    check::non_negative("sum_sq_norm_g_tilde", i.sum_sq_norm_g_tilde)?;
    let t = check::count("steps_t", i.steps_t)? as f64;
    check_explicit_common(
        i.noise_std_s,
        i.clip_radius_b,
        i.ellipsoid_c,
        i.diam_c_inv,
        i.step_scale_alpha,
        i.clipping_bias,
    )?;
    check::non_negative("diam_2", i.diam_2)?;
    let (s, b, alpha) = (i.noise_std_s, i.clip_radius_b, i.step_scale_alpha);
    let coef = i.diam_2 * i.diam_2 / (2.0 * alpha) + alpha;
    let energy = (i.sum_sq_norm_g_tilde + t * s * s * b * b * trace_c_inv(i.ellipsoid_c)?).sqrt();
    Ok(ExplicitBound { adaptive_term: coef / t * energy, clipping_term: i.diam_c_inv * i.clipping_bias })
}

fn check_explicit_common(s: f64, b: f64, c: &[f64], dci: f64, alpha: f64, bias: f64) -> Result<()> {
    check::non_negative("noise_std_s", s)?;
    check::positive("clip_radius_b", b)?;
    check_c(c, None)?;
    check::non_negative("diam_c_inv", dci)?;
    check::positive("step_scale_alpha", alpha)?;
    check::non_negative("clipping_bias", bias)?;
    Ok(())
}

/// Inputs of [`pagan_bound_explicit`] (expectations over the algorithm's randomness).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PaganExplicitInputs<'a> {
    /// `Σ_{k=0}^{T−1} E(g̃ⱼᵏ)²` for each coordinate `j = 1..d` (each `≥ 0`).
    pub sum_sq_g_tilde_per_coordinate: &'a [f64],
    /// T ≥ 1: number of steps.
    pub steps_t: u64,
    /// s ≥ 0: noise standard deviation on the mean in whitened coordinates.
    pub noise_std_s: f64,
    /// B > 0: clip radius, `A = C/B²`.
    pub clip_radius_b: f64,
    /// diag(C) ≻ 0, of length d.
    pub ellipsoid_c: &'a [f64],
    /// D∞ ≥ 0.
    pub diam_inf: f64,
    /// D_{C⁻¹} ≥ 0.
    pub diam_c_inv: f64,
    /// α > 0: step scale (theory: D∞).
    pub step_scale_alpha: f64,
    /// `(1/n) Σᵢ (G(zᵢ; C) − B)₊ ≥ 0` ([`radial_clipping_bias`]).
    pub clipping_bias: f64,
}

/// \[ADFJT\] Thm. 9 (v?) (printed "Algorithm 1"; it is Alg. 2, erratum 6), explicit-constant
/// version (notes §4.7; radial projection, `x̄` over `k = 0..T−1`, any `u ∈ X`):
///
/// ```text
/// E[f(x̄) − f(u)] ≤ ((D∞²/(2α) + α)/T) · Σⱼ (Σ_{k<T} E(g̃ⱼᵏ)² + T s² B²/Cⱼⱼ)^{1/2}
///                  + D_{C⁻¹} · (1/n) Σᵢ (G(zᵢ; C) − B)₊
/// ```
///
/// It is (R-ADA) with the corrected constant (erratum 3), per-coordinate Jensen, and
/// `E(ξⱼ)² = s²B²/Cⱼⱼ` with zero cross terms: tighter than the paper's factor 2 in eq. (18)–(20).
///
/// # Errors
/// `InvalidParameter` for any input outside its documented range, or per-coordinate sums and
/// `C` of different lengths; `Empty`/`NonFinite` for bad per-coordinate sums.
pub fn pagan_bound_explicit(inputs: &PaganExplicitInputs<'_>) -> Result<ExplicitBound> {
    let i = inputs;
    check_vector("sum_sq_g_tilde_per_coordinate", i.sum_sq_g_tilde_per_coordinate)?;
    if let Some(&v) = i.sum_sq_g_tilde_per_coordinate.iter().find(|v| **v < 0.0) {
        return Err(Error::invalid("sum_sq_g_tilde_per_coordinate", v, ">= 0 (sums of squares)"));
    }
    let t = check::count("steps_t", i.steps_t)? as f64;
    check_explicit_common(
        i.noise_std_s,
        i.clip_radius_b,
        i.ellipsoid_c,
        i.diam_c_inv,
        i.step_scale_alpha,
        i.clipping_bias,
    )?;
    check_c(i.ellipsoid_c, Some(i.sum_sq_g_tilde_per_coordinate.len()))?;
    check::non_negative("diam_inf", i.diam_inf)?;
    let (s, b, alpha) = (i.noise_std_s, i.clip_radius_b, i.step_scale_alpha);
    let coef = i.diam_inf * i.diam_inf / (2.0 * alpha) + alpha;
    let energy: f64 = i
        .sum_sq_g_tilde_per_coordinate
        .iter()
        .zip(i.ellipsoid_c)
        .map(|(sum_j, c)| (sum_j + t * s * s * b * b / c).sqrt())
        .sum();
    Ok(ExplicitBound { adaptive_term: coef / t * energy, clipping_term: i.diam_c_inv * i.clipping_bias })
}

// ---------------------------------------------------------------------------------------------
// Printed O(·) forms (O(1) := 1, trend use only) and the tuned clip radius
// ---------------------------------------------------------------------------------------------

/// The problem and privacy quantities shared by the printed rates of Thms. 1, 2, 8, 9.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RateSetting<'a> {
    /// diag(C) ≻ 0.
    pub ellipsoid_c: &'a [f64],
    /// n ≥ 1: dataset size.
    pub dataset_size_n: u64,
    /// ε > 0.
    pub epsilon: f64,
    /// δ ∈ (0, 1).
    pub delta: f64,
    /// `G_{2p}(C) > 0`: the population moment (eq. 2) at order 2p.
    pub moment_g_2p: f64,
    /// p > 1 (erratum 7), finite.
    pub moment_order_p: f64,
    /// D_{C⁻¹} > 0.
    pub diam_c_inv: f64,
}

impl RateSetting<'_> {
    fn validate(&self) -> Result<()> {
        check_c(self.ellipsoid_c, None)?;
        check::count("dataset_size_n", self.dataset_size_n)?;
        check::positive("epsilon", self.epsilon)?;
        check::open_unit("delta", self.delta)?;
        check::positive("moment_g_2p", self.moment_g_2p)?;
        check_order_above_one(self.moment_order_p)?;
        check::positive("diam_c_inv", self.diam_c_inv)?;
        Ok(())
    }

    /// `nε`.
    fn n_eps(&self) -> f64 {
        self.dataset_size_n as f64 * self.epsilon
    }

    /// `D_{C⁻¹}(2G_{2p})^p/((p − 1)B^{p−1})`, evaluated as `D_{C⁻¹}·B·(2G_{2p}/B)^p/(p − 1)`.
    fn clipping_term(&self, b: f64) -> f64 {
        let p = self.moment_order_p;
        self.diam_c_inv * b * (2.0 * self.moment_g_2p / b).powf(p) / (p - 1.0)
    }

    /// `G_{2p}·(K/(nε))^{(p−1)/p}·(D_{C⁻¹}/D)^{1/p}`, the tuned privacy term of Thms. 1, 2 without
    /// its leading diameter.
    fn tuned_privacy_factor(&self, k: f64, diam: f64) -> f64 {
        let p = self.moment_order_p;
        self.moment_g_2p * (k / self.n_eps()).powf((p - 1.0) / p) * (self.diam_c_inv / diam).powf(1.0 / p)
    }
}

/// The three terms of a printed Thm. 8/9 rate with the hidden `O(1)` set to 1.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RateTerms {
    /// The non-private (optimisation) term.
    pub optimization: f64,
    /// The privacy-noise term, linear in B.
    pub noise: f64,
    /// The clipping-bias term, `∝ B^{1−p}`.
    pub clipping: f64,
}

impl RateTerms {
    /// The sum of the three terms.
    pub fn total(&self) -> f64 {
        self.optimization + self.noise + self.clipping
    }
}

/// The two terms of a printed Thm. 1/2 rate (tuned B) with the hidden `O(1)` set to 1.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TunedRateTerms {
    /// The non-private (optimisation) term.
    pub optimization: f64,
    /// The privacy term (noise and clipping balanced by the tuned B).
    pub privacy: f64,
}

impl TunedRateTerms {
    /// The sum of the two terms.
    pub fn total(&self) -> f64 {
        self.optimization + self.privacy
    }
}

/// \[ADFJT\] Thm. 8 (v?) as printed, with its `O(1)` set to 1 — **trend use only**: the theorem
/// gives no value for the constant (the explicit form is [`pasan_bound_explicit`]):
///
/// ```text
/// optimization = (D₂/T)·(Σ_{k=1}^T E‖gᵏ‖₂²)^{1/2}
/// noise        = D₂·B·(tr(C⁻¹) log(1/δ))^{1/2}/(nε)
/// clipping     = D_{C⁻¹}·(2G_{2p}(C))^p/((p − 1)B^{p−1})
/// ```
///
/// # Errors
/// `InvalidParameter` for any input outside its documented range.
pub fn pasan_rate_printed_unit_constant(
    setting: &RateSetting<'_>,
    diam_2: f64,
    steps_t: u64,
    sum_sq_norm_g: f64,
    clip_radius_b: f64,
) -> Result<RateTerms> {
    setting.validate()?;
    check::positive("diam_2", diam_2)?;
    let t = check::count("steps_t", steps_t)? as f64;
    check::non_negative("sum_sq_norm_g", sum_sq_norm_g)?;
    let b = check::positive("clip_radius_b", clip_radius_b)?;
    let k = (trace_c_inv(setting.ellipsoid_c)? * (1.0 / setting.delta).ln()).sqrt();
    Ok(RateTerms {
        optimization: diam_2 / t * sum_sq_norm_g.sqrt(),
        noise: diam_2 * b * k / setting.n_eps(),
        clipping: setting.clipping_term(b),
    })
}

/// \[ADFJT\] Thm. 9 (v?) as printed, with its `O(1)` set to 1 — **trend use only** (explicit form:
/// [`pagan_bound_explicit`]):
///
/// ```text
/// optimization = (D∞/T)·Σⱼ E(Σ_{k=1}^T (gⱼᵏ)²)^{1/2}
/// noise        = D∞·B·(log(1/δ))^{1/2}·tr(C^{−1/2})/(nε)
/// clipping     = D_{C⁻¹}·(2G_{2p}(C))^p/((p − 1)B^{p−1})
/// ```
///
/// # Errors
/// `InvalidParameter` for any input outside its documented range.
pub fn pagan_rate_printed_unit_constant(
    setting: &RateSetting<'_>,
    diam_inf: f64,
    steps_t: u64,
    sum_root_sum_sq_g: f64,
    clip_radius_b: f64,
) -> Result<RateTerms> {
    setting.validate()?;
    check::positive("diam_inf", diam_inf)?;
    let t = check::count("steps_t", steps_t)? as f64;
    check::non_negative("sum_root_sum_sq_g", sum_root_sum_sq_g)?;
    let b = check::positive("clip_radius_b", clip_radius_b)?;
    let k = (1.0 / setting.delta).ln().sqrt() * trace_c_inv_sqrt(setting.ellipsoid_c)?;
    Ok(RateTerms {
        optimization: diam_inf / t * sum_root_sum_sq_g,
        noise: diam_inf * b * k / setting.n_eps(),
        clipping: setting.clipping_term(b),
    })
}

/// The clip radius of \[ADFJT\] Thm. 1 (v?):
/// `B = 2G_{2p}(C)·(D_{C⁻¹}·nε/(D₂·tr(C⁻¹)^{1/2}·log(1/δ)^{1/2}))^{1/p}`.
/// It is the exact minimiser over B of Thm. 8's `noise + clipping`; there
/// `noise = 2·E` and `clipping = 2E/(p − 1)` with `E` the privacy term of
/// [`pasan_tuned_rate_printed_unit_constant`] (notes §4.6), so `clipping/noise = 1/(p − 1)`.
///
/// # Errors
/// `InvalidParameter` for any input outside its documented range.
pub fn pasan_tuned_clip_radius(setting: &RateSetting<'_>, diam_2: f64) -> Result<f64> {
    setting.validate()?;
    check::positive("diam_2", diam_2)?;
    let k = (trace_c_inv(setting.ellipsoid_c)? * (1.0 / setting.delta).ln()).sqrt();
    Ok(2.0
        * setting.moment_g_2p
        * (setting.diam_c_inv * setting.n_eps() / (diam_2 * k)).powf(1.0 / setting.moment_order_p))
}

/// The clip radius of \[ADFJT\] Thm. 2 (v?):
/// `B = 2G_{2p}(C)·(D_{C⁻¹}·nε/(D∞·log(1/δ)^{1/2}·tr(C^{−1/2})))^{1/p}`; the exact minimiser
/// over B of Thm. 9's `noise + clipping`, with the same `2E` and `2E/(p − 1)` split as
/// [`pasan_tuned_clip_radius`].
///
/// # Errors
/// `InvalidParameter` for any input outside its documented range.
pub fn pagan_tuned_clip_radius(setting: &RateSetting<'_>, diam_inf: f64) -> Result<f64> {
    setting.validate()?;
    check::positive("diam_inf", diam_inf)?;
    let k = (1.0 / setting.delta).ln().sqrt() * trace_c_inv_sqrt(setting.ellipsoid_c)?;
    Ok(2.0
        * setting.moment_g_2p
        * (setting.diam_c_inv * setting.n_eps() / (diam_inf * k)).powf(1.0 / setting.moment_order_p))
}

/// \[ADFJT\] Thm. 1 (v?) as printed, `O(1)` set to 1 — **trend use only**:
///
/// ```text
/// optimization = (D₂/T)·(Σ_{k=1}^T E‖gᵏ‖₂²)^{1/2}
/// privacy      = D₂·G_{2p}(C)·((tr(C⁻¹) log(1/δ))^{1/2}/(nε))^{(p−1)/p}·(D_{C⁻¹}/D₂)^{1/p}
/// ```
///
/// With the tuned B, Thm. 8's `noise + clipping = (2 + 2/(p − 1))·privacy = 2p/(p − 1)·privacy`:
/// the `O(1)` hides a factor that grows without bound as `p → 1`.
///
/// # Errors
/// `InvalidParameter` for any input outside its documented range.
pub fn pasan_tuned_rate_printed_unit_constant(
    setting: &RateSetting<'_>,
    diam_2: f64,
    steps_t: u64,
    sum_sq_norm_g: f64,
) -> Result<TunedRateTerms> {
    setting.validate()?;
    check::positive("diam_2", diam_2)?;
    let t = check::count("steps_t", steps_t)? as f64;
    check::non_negative("sum_sq_norm_g", sum_sq_norm_g)?;
    let k = (trace_c_inv(setting.ellipsoid_c)? * (1.0 / setting.delta).ln()).sqrt();
    Ok(TunedRateTerms {
        optimization: diam_2 / t * sum_sq_norm_g.sqrt(),
        privacy: diam_2 * setting.tuned_privacy_factor(k, diam_2),
    })
}

/// \[ADFJT\] Thm. 2 (v?) as printed, `O(1)` set to 1 — **trend use only**:
///
/// ```text
/// optimization = (D∞/T)·Σⱼ E(Σ_{k=1}^T (gⱼᵏ)²)^{1/2}
/// privacy      = D∞·G_{2p}(C)·(log(1/δ)^{1/2}·tr(C^{−1/2})/(nε))^{(p−1)/p}·(D_{C⁻¹}/D∞)^{1/p}
/// ```
///
/// # Errors
/// `InvalidParameter` for any input outside its documented range.
pub fn pagan_tuned_rate_printed_unit_constant(
    setting: &RateSetting<'_>,
    diam_inf: f64,
    steps_t: u64,
    sum_root_sum_sq_g: f64,
) -> Result<TunedRateTerms> {
    setting.validate()?;
    check::positive("diam_inf", diam_inf)?;
    let t = check::count("steps_t", steps_t)? as f64;
    check::non_negative("sum_root_sum_sq_g", sum_root_sum_sq_g)?;
    let k = (1.0 / setting.delta).ln().sqrt() * trace_c_inv_sqrt(setting.ellipsoid_c)?;
    Ok(TunedRateTerms {
        optimization: diam_inf / t * sum_root_sum_sq_g,
        privacy: diam_inf * setting.tuned_privacy_factor(k, diam_inf),
    })
}

// ---------------------------------------------------------------------------------------------
// Noise energy (N3), Hölder chain
// ---------------------------------------------------------------------------------------------

/// The noise energy of \[ADFJT\] eq. (17) (v?) (notes N3): with `ĝ = g̃ + s·ξ`, `ξ ~ N(0, A⁻¹)`
/// independent of `g̃`, and `A = C/B²`,
/// `E‖ĝ‖₂² − E‖g̃‖₂² = s²·tr(A⁻¹) = s²B²·tr(C⁻¹)`. This function evaluates `s²B²·tr(C⁻¹)`;
/// [`noise_energy_gap_from_a`] evaluates `s²·tr(A⁻¹)`.
///
/// # Errors
/// `InvalidParameter` for `s < 0`, `B ≤ 0` or `Cⱼⱼ ≤ 0`; `Empty` for an empty `C`.
pub fn noise_energy_gap(noise_std_s: f64, clip_radius_b: f64, ellipsoid_c: &[f64]) -> Result<f64> {
    let s = check::non_negative("noise_std_s", noise_std_s)?;
    let b = check::positive("clip_radius_b", clip_radius_b)?;
    Ok(s * s * b * b * trace_c_inv(ellipsoid_c)?)
}

/// `s²·tr(A⁻¹) = s² Σⱼ 1/Aⱼⱼ` for a diagonal `A ≻ 0`: the same gap as [`noise_energy_gap`]
/// written in `A`.
///
/// # Errors
/// `InvalidParameter` for `s < 0` or `Aⱼⱼ ≤ 0`; `Empty` for an empty `A`.
pub fn noise_energy_gap_from_a(noise_std_s: f64, ellipsoid_a: &[f64]) -> Result<f64> {
    let s = check::non_negative("noise_std_s", noise_std_s)?;
    if ellipsoid_a.is_empty() {
        return Err(Error::Empty { what: "ellipsoid_a" });
    }
    if let Some(&v) = ellipsoid_a.iter().find(|v| !(v.is_finite() && **v > 0.0)) {
        return Err(Error::invalid("ellipsoid_a", v, "> 0 and finite (A is positive definite)"));
    }
    Ok(s * s * ellipsoid_a.iter().map(|a| 1.0 / a).sum::<f64>())
}

/// The three members of the Hölder chain of \[ADFJT\] Sec. 3.2 (v?):
/// `√d·Σⱼ σⱼ ≥ (Σⱼ σⱼ^{2/3})^{3/2} ≥ Σⱼ σⱼ`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HolderChain {
    /// `√d·Σⱼ σⱼ` (PASAN's privacy factor on the box, where `D₂ = √d·D∞`).
    pub sqrt_d_times_sum: f64,
    /// `(Σⱼ σⱼ^{2/3})^{3/2}` (PAGAN's privacy factor, eq. (6)).
    pub two_thirds_power_sum: f64,
    /// `Σⱼ σⱼ` (PASAN's privacy factor, eq. (7)).
    pub sum: f64,
}

/// The members of the Hölder chain for `σ ∈ ℝ₊^d` (see [`HolderChain`]).
///
/// # Errors
/// `Empty` for `d = 0`; `NonFinite` for a non-finite entry; `InvalidParameter` for a negative one.
pub fn holder_chain(sigma: &[f64]) -> Result<HolderChain> {
    check_nonnegative_sigma(sigma)?;
    let sum: f64 = sigma.iter().sum();
    Ok(HolderChain {
        sqrt_d_times_sum: (sigma.len() as f64).sqrt() * sum,
        two_thirds_power_sum: sigma.iter().map(|s| s.powf(2.0 / 3.0)).sum::<f64>().powf(1.5),
        sum,
    })
}

fn check_nonnegative_sigma(sigma: &[f64]) -> Result<()> {
    check_vector("sigma", sigma)?;
    if let Some(&v) = sigma.iter().find(|v| **v < 0.0) {
        return Err(Error::invalid("sigma", v, ">= 0"));
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Theorem 3 (Alg. 3)
// ---------------------------------------------------------------------------------------------

/// The proof's upper factor in the accuracy band of Thm. 3 (App. C: "cannot be set before
/// `t = k − 3`", hence `≤ 8σⱼ`).
pub const SECOND_MOMENT_UPPER_FACTOR: f64 = 8.0;

/// The printed upper factor of eq. (8) (`σ̂ⱼ ≤ 2σⱼ`), which the proof does not support.
pub const SECOND_MOMENT_UPPER_FACTOR_PRINTED: f64 = 2.0;

/// `T_est = ⌈(3/2)·log₂ d⌉`, the number of rounds of Alg. 3 in \[ADFJT\] Thm. 3 (v?) (printed
/// `T = (3/2) log d`; the base must be 2 for the floor `2^{−T_est}` to reach `d^{−3/2}`, notes
/// §2.3). Computed exactly in integers as the least `t ≥ 0` with `4^t ≥ d³`, so that
/// `2^{−T_est} ≤ d^{−3/2} < 2^{1−T_est}`.
///
/// # Errors
/// `InvalidParameter` for `d = 0` or `d > 2⁴²` (where `d³` leaves `u128`).
pub fn second_moment_rounds(d: usize) -> Result<u32> {
    if d == 0 || d as u128 > 1u128 << 42 {
        return Err(Error::invalid("d", d, "in [1, 2^42]"));
    }
    let cube = (d as u128).pow(3);
    let mut t = 0u32;
    while 1u128 << (2 * t) < cube {
        t += 1;
    }
    Ok(t)
}

/// `d^{−3/2}`, the floor of eq. (8).
fn floor_d(d: usize) -> f64 {
    let d = d as f64;
    1.0 / (d * d.sqrt())
}

fn check_sigma_j(sigma_j: f64, d: usize) -> Result<()> {
    if !(0.0..=1.0).contains(&sigma_j) {
        return Err(Error::invalid("sigma_j", sigma_j, "in [0, 1] (Thm. 3 normalises max_j sigma_j = 1)"));
    }
    if d == 0 {
        return Err(Error::invalid("d", d, ">= 1"));
    }
    Ok(())
}

/// The accuracy band of Alg. 3 for one coordinate (\[ADFJT\] Thm. 3, eq. (8) (v?), as the proof
/// supports it), with `m = max(σⱼ, d^{−3/2})`: `[m/2, 8m]`.
///
/// The lower end is eq. (8)'s. The upper end is the proof's `8σⱼ` (notes §2.3), **raised to
/// `8m` below the floor**: Alg. 3 never outputs less than `2^{−T_est} > d^{−3/2}/2` (line 11), so
/// for `σⱼ < d^{−3/2}/16` no output is `≤ 8σⱼ` (the band `[m/2, 8σⱼ]` is then empty) and for
/// `σⱼ < 2^{−T_est}/8` a correct run exceeds `8σⱼ`. For `σⱼ ≥ d^{−3/2}` this is `[σⱼ/2, 8σⱼ]`.
///
/// # Errors
/// `InvalidParameter` for `σⱼ ∉ [0, 1]` (Thm. 3 assumes `maxⱼ σⱼ = 1`) or `d = 0`.
pub fn second_moment_band(sigma_j: f64, d: usize) -> Result<(f64, f64)> {
    check_sigma_j(sigma_j, d)?;
    let m = sigma_j.max(floor_d(d));
    Ok((m / 2.0, SECOND_MOMENT_UPPER_FACTOR * m))
}

/// The band exactly as eq. (8) prints it: `[max(σⱼ, d^{−3/2})/2, 2σⱼ]` — for comparison; see
/// [`second_moment_band`] for why its upper end fails below the floor (and the proof gives only
/// `8σⱼ` above it).
///
/// # Errors
/// As [`second_moment_band`].
pub fn second_moment_band_printed(sigma_j: f64, d: usize) -> Result<(f64, f64)> {
    check_sigma_j(sigma_j, d)?;
    Ok((sigma_j.max(floor_d(d)) / 2.0, SECOND_MOMENT_UPPER_FACTOR_PRINTED * sigma_j))
}

/// Whether every estimate lies in its [`second_moment_band`]: the accuracy event of Thm. 3 (ii)
/// as the proof supports it (`d = sigma.len()`).
///
/// # Errors
/// `Empty`/`NonFinite` for bad vectors; `InvalidParameter` for lengths that differ, `σ̂ⱼ ≤ 0`,
/// `σⱼ ∉ [0, 1]`, or `maxⱼ σⱼ ≠ 1` (the theorem's normalisation; divide by the maximum first,
/// which gives exactly 1 at the maximum).
pub fn second_moment_estimates_in_band(sigma_hat: &[f64], sigma: &[f64]) -> Result<bool> {
    check_vector("sigma_hat", sigma_hat)?;
    check_nonnegative_sigma(sigma)?;
    if sigma_hat.len() != sigma.len() {
        return Err(Error::invalid("sigma_hat", format!("length {}", sigma_hat.len()), "of the length of sigma"));
    }
    if let Some(&v) = sigma_hat.iter().find(|v| **v <= 0.0) {
        return Err(Error::invalid("sigma_hat", v, "> 0 (Alg. 3 outputs powers of 2)"));
    }
    let max = sigma.iter().copied().fold(0.0, f64::max);
    if max != 1.0 {
        return Err(Error::invalid("sigma", max, "normalised to max_j sigma_j = 1"));
    }
    let d = sigma.len();
    for (h, s) in sigma_hat.iter().zip(sigma) {
        let (lo, hi) = second_moment_band(*s, d)?;
        if !(lo <= *h && *h <= hi) {
            return Ok(false);
        }
    }
    Ok(true)
}

/// The ellipsoid PAGAN runs with after Alg. 3 (\[ADFJT\] Thm. 3 (iii) (v?)):
/// `Ĉⱼ = (r·σ̂ⱼ)^{−4/3}/4`, with `r` the moment ratio of Def. 4.1. Then
/// `Ĉⱼ^{−1/2} = 2(r·σ̂ⱼ)^{2/3}` (erratum 17: the paper's App. C writes the exponents with the
/// wrong signs).
///
/// # Errors
/// `Empty`/`NonFinite` for a bad `σ̂`; `InvalidParameter` for `σ̂ⱼ ≤ 0` or `r ≤ 0`.
pub fn c_hat_from_sigma_hat(sigma_hat: &[f64], moment_ratio_r: f64) -> Result<Vec<f64>> {
    check_vector("sigma_hat", sigma_hat)?;
    if let Some(&v) = sigma_hat.iter().find(|v| **v <= 0.0) {
        return Err(Error::invalid("sigma_hat", v, "> 0"));
    }
    let r = check::positive("moment_ratio_r", moment_ratio_r)?;
    Ok(sigma_hat.iter().map(|s| (r * s).powf(-4.0 / 3.0) / 4.0).collect())
}

// ---------------------------------------------------------------------------------------------
// Theorems 4 and 5 (lower bounds) and the reduction of Theorem 4
// ---------------------------------------------------------------------------------------------

use crate::special::sign;

fn check_lower_bound_inputs(sigma: &[f64], n: u64, epsilon: f64, omega_constant: f64) -> Result<(f64, f64)> {
    check_nonnegative_sigma(sigma)?;
    if sigma.len() < 2 {
        return Err(Error::invalid(
            "sigma",
            format!("dimension {}", sigma.len()),
            "of dimension d >= 2 (the bounds divide by log d)",
        ));
    }
    check::count("dataset_size_n", n)?;
    check::positive("epsilon", epsilon)?;
    check::positive("omega_constant", omega_constant)?;
    Ok((n as f64 * epsilon, (sigma.len() as f64).ln()))
}

/// The lower bound of \[ADFJT\] Thm. 4 (v?) on the l∞ box (via Prop. 1): for every (ε, δ)-DP `M`
/// and data with `|zⱼ| ≤ σⱼ`, if `√d·log d ≤ nε`,
///
/// ```text
/// sup_S E[f(M(S); S) − f(x*_S; S)] ≥ c·(Σⱼ σⱼ^{2/3})^{3/2} / (nε·log^{5/2} d)
/// ```
///
/// `c = omega_constant`: the printed statement has no constant (it reads as `c = 1`), but its
/// proof goes through the unspecified `Ω(1)` of Prop. 3 / Lemma D.2 and the `O(1)` of the
/// bucketing in App. D.1, so the true `c` is unknown. Natural log. A trend reference, not a
/// testable inequality on an implementation (it quantifies over all mechanisms).
///
/// # Errors
/// `InvalidParameter` for `d < 2`, a negative `σⱼ`, `n = 0`, `ε ≤ 0`, `c ≤ 0`, or when the
/// hypothesis `√d·log d ≤ nε` fails (the theorem claims nothing then).
pub fn linf_box_lower_bound(sigma: &[f64], dataset_size_n: u64, epsilon: f64, omega_constant: f64) -> Result<f64> {
    let (n_eps, log_d) = check_lower_bound_inputs(sigma, dataset_size_n, epsilon, omega_constant)?;
    if (sigma.len() as f64).sqrt() * log_d > n_eps {
        return Err(Error::invalid("epsilon", epsilon, "such that sqrt(d) log d <= n epsilon (Thm. 4's hypothesis)"));
    }
    let s: f64 = sigma.iter().map(|s| s.powf(2.0 / 3.0)).sum();
    Ok(omega_constant * s.powf(1.5) / (n_eps * log_d.powf(2.5)))
}

/// The lower bound of \[ADFJT\] Thm. 5 (v?) on the unit l2 ball (via Prop. 2 and bucketing): for
/// every (ε, δ)-DP `M` and data with `|zⱼ| ≤ σⱼ`, if `√d ≤ nε`,
///
/// ```text
/// sup_S E[f(M(S); S) − f(x*_S; S)] ≥ c·Σⱼ σⱼ / (nε·log d)
/// ```
///
/// `c = omega_constant`, unspecified in the paper as for [`linf_box_lower_bound`] (Prop. 2's
/// rescaled \[BST14\] Thm. 5.3 and the bucketing of App. D.3 hide constants). Natural log.
///
/// # Errors
/// `InvalidParameter` for `d < 2`, a negative `σⱼ`, `n = 0`, `ε ≤ 0`, `c ≤ 0`, or when
/// `√d ≤ nε` fails.
pub fn l2_ball_lower_bound(sigma: &[f64], dataset_size_n: u64, epsilon: f64, omega_constant: f64) -> Result<f64> {
    let (n_eps, log_d) = check_lower_bound_inputs(sigma, dataset_size_n, epsilon, omega_constant)?;
    if (sigma.len() as f64).sqrt() > n_eps {
        return Err(Error::invalid("epsilon", epsilon, "such that sqrt(d) <= n epsilon (Thm. 5's hypothesis)"));
    }
    Ok(omega_constant * sigma.iter().sum::<f64>() / (n_eps * log_d))
}

fn check_box_pair(x: &[f64], z_bar: &[f64]) -> Result<()> {
    check_vector("x", x)?;
    check_vector("z_bar", z_bar)?;
    if x.len() != z_bar.len() {
        return Err(Error::invalid("x", format!("length {}", x.len()), "of the length of z_bar"));
    }
    if let Some(&v) = x.iter().find(|v| v.abs() > 1.0) {
        return Err(Error::invalid("x", v, "in [-1, 1] (x in the box X_inf)"));
    }
    Ok(())
}

/// The excess loss of the linear problem of \[ADFJT\] Thm. 4 (v?): `f(x) = −xᵀz̄` on
/// `X∞ = [−1, 1]^d` has minimiser `x*ⱼ = sign(z̄ⱼ)`, so `f(x) − f(x*) = ‖z̄‖₁ − xᵀz̄`.
///
/// # Errors
/// `Empty`/`NonFinite` for bad vectors; `InvalidParameter` for lengths that differ or `x ∉ X∞`.
pub fn linear_box_excess(x: &[f64], z_bar: &[f64]) -> Result<f64> {
    check_box_pair(x, z_bar)?;
    Ok(z_bar.iter().zip(x).map(|(z, x)| z.abs() - x * z).sum())
}

/// The sign-estimation error of \[ADFJT\] Prop. 1 (v?): `Σⱼ |z̄ⱼ|·1{sign(xⱼ) ≠ sign(z̄ⱼ)}`, with
/// `sign(0) = 0`. The proof of Thm. 4 uses `‖z̄‖₁ − xᵀz̄ ≥` this for `x ∈ X∞`
/// ([`linear_box_excess`]).
///
/// # Errors
/// As [`linear_box_excess`].
pub fn sign_error(x: &[f64], z_bar: &[f64]) -> Result<f64> {
    check_box_pair(x, z_bar)?;
    Ok(z_bar.iter().zip(x).filter(|(z, x)| sign(**x) != sign(**z)).map(|(z, _)| z.abs()).sum())
}
