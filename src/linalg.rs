//! Norms and small vector helpers over faer.
//!
//! Vectors are plain `&[f64]` at the API (the algorithms' natural representation); the l2 norm
//! goes through faer's scaled accumulation, which neither overflows nor underflows for finite
//! inputs. Each function is one formula:
//! `‖x‖₁ = Σ|xᵢ|`, `‖x‖₂ = (Σxᵢ²)^{1/2}`, `‖x‖_∞ = max|xᵢ|`, `‖x‖_p = (Σ|xᵢ|^p)^{1/p}`,
//! `‖x‖_A = (xᵀ diag(a) x)^{1/2}`.

use faer::ColRef;

pub mod basis_pursuit;

/// `‖x‖₁ = Σ|xᵢ|`.
pub fn norm_l1(x: &[f64]) -> f64 {
    ColRef::from_slice(x).norm_l1()
}

/// `‖x‖₂`, without overflow (faer's scaled sum of squares).
pub fn norm_l2(x: &[f64]) -> f64 {
    ColRef::from_slice(x).norm_l2()
}

/// `‖x‖₂²`.
pub fn norm_l2_squared(x: &[f64]) -> f64 {
    ColRef::from_slice(x).squared_norm_l2()
}

/// `‖x‖_∞ = max|xᵢ|` (0 for the empty vector).
pub fn norm_linf(x: &[f64]) -> f64 {
    ColRef::from_slice(x).norm_max()
}

/// `‖x‖_p` for `p ∈ [1, ∞]`, scaled by `‖x‖_∞` so that it neither overflows nor underflows.
pub fn norm_lp(x: &[f64], p: f64) -> f64 {
    debug_assert!(p >= 1.0, "invariant: p >= 1");
    if p == 1.0 {
        return norm_l1(x);
    }
    if p == 2.0 {
        return norm_l2(x);
    }
    let m = norm_linf(x);
    if p.is_infinite() || m == 0.0 {
        return m;
    }
    m * x.iter().map(|v| (v.abs() / m).powf(p)).sum::<f64>().powf(1.0 / p)
}

/// Weighted (Mahalanobis) norm for a diagonal positive semi-definite `A = diag(a)`:
/// `‖x‖_A = (Σ aᵢ xᵢ²)^{1/2}`. The plain sum is used (so results are reproducible bit for bit);
/// if it overflows, the sum is rescaled by `m = maxᵢ |xᵢ|√aᵢ` as `m·(Σ (|xᵢ|√aᵢ/m)²)^{1/2}`, which
/// is finite whenever the norm is (|xᵢ|√aᵢ ≳ 1.3e154 made it ∞, and the ellipsoid projection then
/// returned 0 or never ended).
pub fn norm_diag_mahalanobis(x: &[f64], a: &[f64]) -> f64 {
    debug_assert_eq!(x.len(), a.len(), "invariant: dimensions agree");
    let plain = x.iter().zip(a).map(|(v, w)| w * v * v).sum::<f64>().sqrt();
    if plain.is_finite() {
        return plain;
    }
    let m = x.iter().zip(a).map(|(v, w)| v.abs() * w.sqrt()).fold(0.0, f64::max);
    if !m.is_finite() || m == 0.0 {
        return plain;
    }
    m * x.iter().zip(a).map(|(v, w)| (v.abs() * w.sqrt() / m).powi(2)).sum::<f64>().sqrt()
}

/// Inner product `⟨x, y⟩`.
pub fn dot(x: &[f64], y: &[f64]) -> f64 {
    debug_assert_eq!(x.len(), y.len(), "invariant: dimensions agree");
    x.iter().zip(y).map(|(a, b)| a * b).sum()
}

/// `y ← y + a·x`.
pub fn axpy(a: f64, x: &[f64], y: &mut [f64]) {
    debug_assert_eq!(x.len(), y.len(), "invariant: dimensions agree");
    for (yi, xi) in y.iter_mut().zip(x) {
        *yi += a * xi;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn norms_match_their_formulas() {
        let x = [3.0, -4.0, 0.0, 12.0];
        assert_eq!(norm_l1(&x), 19.0);
        assert!((norm_l2(&x) - 13.0).abs() < 1e-14);
        assert_eq!(norm_linf(&x), 12.0);
        assert!((norm_lp(&x, 3.0) - (27.0f64 + 64.0 + 1728.0).powf(1.0 / 3.0)).abs() < 1e-12);
        assert!((norm_diag_mahalanobis(&x, &[1.0, 0.25, 7.0, 0.0]) - (9.0f64 + 4.0).sqrt()).abs() < 1e-15);
        // no overflow where the naive sum of squares overflows
        assert!((norm_l2(&[1e200, 1e200]) - 1e200 * 2f64.sqrt()).abs() < 1e186);
        assert!((norm_lp(&[1e200, 1e200], 3.0) - 1e200 * 2f64.powf(1.0 / 3.0)).abs() < 1e186);
    }
}
