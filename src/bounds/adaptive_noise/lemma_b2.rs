//! \[ADFJT\] Lemma B.2, the summation inequality behind Thms. 6 and 7, and the [`Sides`] of
//! an inequality (also used by [`crate::bounds::dpagd`]).

use super::validate::{check_vector, finite_result};
use crate::error::Result;

/// The two sides of an inequality `lhs ≤ rhs` (or of an identity `lhs = rhs`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sides {
    /// The left-hand side.
    pub lhs: f64,
    /// The right-hand side.
    pub rhs: f64,
}

/// \[ADFJT\] Lemma B.2: for any real `a₁, …, a_n`,
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
    Ok(Sides {
        lhs: finite_result("lemma_b2_sides_lhs", m * lhs)?,
        rhs: finite_result("lemma_b2_sides_rhs", 2.0 * m * cum.sqrt())?,
    })
}
