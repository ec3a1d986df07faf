//! The lower bounds of \[ADFJT\] Thm. 4 (l∞ box) and Thm. 5 (l2 ball), and the linear
//! problem and sign-estimation error of Thm. 4's reduction (Prop. 1).

use super::validate::{check_nonnegative_sigma, check_vector, finite_result};
use crate::error::{Error, Result, check};
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

/// The lower bound of \[ADFJT\] Thm. 4 on the l∞ box (via Prop. 1): for every (ε, δ)-DP `M`
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
    finite_result("linf_box_lower_bound", omega_constant * s.powf(1.5) / (n_eps * log_d.powf(2.5)))
}

/// The lower bound of \[ADFJT\] Thm. 5 on the unit l2 ball (via Prop. 2 and bucketing): for
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
    finite_result("l2_ball_lower_bound", omega_constant * sigma.iter().sum::<f64>() / (n_eps * log_d))
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

/// The excess loss of the linear problem of \[ADFJT\] Thm. 4: `f(x) = −xᵀz̄` on
/// `X∞ = [−1, 1]^d` has minimiser `x*ⱼ = sign(z̄ⱼ)`, so `f(x) − f(x*) = ‖z̄‖₁ − xᵀz̄`.
///
/// # Errors
/// `Empty`/`NonFinite` for bad vectors; `InvalidParameter` for lengths that differ or `x ∉ X∞`.
pub fn linear_box_excess(x: &[f64], z_bar: &[f64]) -> Result<f64> {
    check_box_pair(x, z_bar)?;
    finite_result("linear_box_excess", z_bar.iter().zip(x).map(|(z, x)| z.abs() - x * z).sum())
}

/// The sign-estimation error of \[ADFJT\] Prop. 1: `Σⱼ |z̄ⱼ|·1{sign(xⱼ) ≠ sign(z̄ⱼ)}`, with
/// `sign(0) = 0`. The proof of Thm. 4 uses `‖z̄‖₁ − xᵀz̄ ≥` this for `x ∈ X∞`
/// ([`linear_box_excess`]).
///
/// # Errors
/// As [`linear_box_excess`].
pub fn sign_error(x: &[f64], z_bar: &[f64]) -> Result<f64> {
    check_box_pair(x, z_bar)?;
    finite_result("sign_error", z_bar.iter().zip(x).filter(|(z, x)| sign(**x) != sign(**z)).map(|(z, _)| z.abs()).sum())
}
