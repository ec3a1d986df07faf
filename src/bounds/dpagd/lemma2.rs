//! \[ZCHWB\] Lemma 2, the momentum-sum inequality of the DP-Adam proof (App. B.3).

use super::Sides;
use super::validate::{check_beta1, finite_result};
use crate::error::{Error, Result};

/// \[ZCHWB\] Lemma 2: for `T ≥ 1`, `β1 ∈ [0, 1)` and vectors `b_1, …, b_{T−1}` (the slice
/// `b`, so `T = b.len() + 1`),
///
/// ```text
/// lhs = Σ_{t=1}^{T} Σ_{k=0}^{t−1} β1^k ‖Σ_{l=t−k}^{t−1} b_l‖²
/// rhs = (2β1/(1 − β1)³) Σ_{t=1}^{T−1} ‖b_t‖²
/// ```
///
/// (an empty inner sum, `k = 0`, is 0). `lhs ≤ rhs` since `‖Σ_{l} b_l‖² ≤ k Σ_l ‖b_l‖²` and each
/// `b_l` enters `k` terms of weight `β1^k`: `Σ_k k²β1^k = β1(1+β1)/(1−β1)³`. An empty `b` (T = 1)
/// gives `0 ≤ 0`.
///
/// # Errors
/// `InvalidParameter` for `β1 ∉ [0, 1)` or vectors of different lengths; `Empty` for vectors of
/// length 0; `NonFinite` for a non-finite entry.
pub fn lemma2_sides<R: AsRef<[f64]>>(b: &[R], beta1: f64) -> Result<Sides> {
    let beta1 = check_beta1(beta1)?;
    if b.is_empty() {
        return Ok(Sides { lhs: 0.0, rhs: 0.0 });
    }
    let p = b[0].as_ref().len();
    if p == 0 {
        return Err(Error::Empty { what: "b" });
    }
    for (i, v) in b.iter().enumerate() {
        let v = v.as_ref();
        if v.len() != p {
            return Err(Error::invalid(
                "b",
                format!("vector {i} of length {} (vector 0 has {p})", v.len()),
                "vectors of one length",
            ));
        }
        if let Some(j) = v.iter().position(|x| !x.is_finite()) {
            return Err(Error::NonFinite { what: "b", index: i * p + j });
        }
    }
    let tt = b.len() + 1;
    // prefix[l] = b_1 + … + b_l (prefix[0] = 0), so Σ_{l=t−k}^{t−1} b_l = prefix[t−1] − prefix[t−k−1].
    let mut prefix = vec![vec![0.0; p]; tt];
    for l in 1..tt {
        let (done, rest) = prefix.split_at_mut(l);
        for ((out, prev), x) in rest[0].iter_mut().zip(&done[l - 1]).zip(b[l - 1].as_ref()) {
            *out = prev + x;
        }
    }
    let mut lhs = 0.0;
    for t in 1..=tt {
        let mut weight = 1.0;
        for k in 0..t {
            if k > 0 {
                let (hi, lo) = (&prefix[t - 1], &prefix[t - k - 1]);
                lhs += weight * hi.iter().zip(lo).map(|(h, l)| (h - l) * (h - l)).sum::<f64>();
            }
            weight *= beta1;
        }
    }
    let energy: f64 = b.iter().map(|v| v.as_ref().iter().map(|x| x * x).sum::<f64>()).sum();
    let c = 1.0 - beta1;
    Ok(Sides {
        lhs: finite_result("lemma2_sides_lhs", lhs)?,
        rhs: finite_result("lemma2_sides_rhs", 2.0 * beta1 / (c * c * c) * energy)?,
    })
}
