//! Input checks and a scaled norm shared by the files of the \[ADFJT\] bounds (not public).

pub(super) use crate::bounds::validate::finite_result;
use crate::error::{Error, Result, check};

/// Non-empty rows of one common length `d ≥ 1`, all entries finite. Returns `d`.
pub(super) fn check_rows<R: AsRef<[f64]>>(what: &'static str, rows: &[R]) -> Result<usize> {
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
pub(super) fn check_vector(what: &'static str, x: &[f64]) -> Result<()> {
    if x.is_empty() {
        return Err(Error::Empty { what });
    }
    check::all_finite(what, x)
}

/// `diag(C)`: every entry finite and `> 0`; length `d` if given.
pub(super) fn check_c(c: &[f64], d: Option<usize>) -> Result<()> {
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

/// The moment order of a bias bound: `p > 1` and finite (erratum E7: the theorems print `p ≥ 1`,
/// but `1/(p − 1)` needs `p > 1`).
pub(super) fn check_order_above_one(p: f64) -> Result<f64> {
    if p.is_finite() && p > 1.0 { Ok(p) } else { Err(Error::invalid("moment_order_p", p, "> 1 and finite")) }
}

pub(super) fn check_nonnegative_sigma(sigma: &[f64]) -> Result<()> {
    check_vector("sigma", sigma)?;
    if let Some(&v) = sigma.iter().find(|v| **v < 0.0) {
        return Err(Error::invalid("sigma", v, ">= 0"));
    }
    Ok(())
}

/// `√(Σ xᵢ²)` over an iterator, scaled by the largest magnitude so that it neither overflows nor
/// underflows.
pub(super) fn root_sum_squares(xs: impl Iterator<Item = f64> + Clone) -> f64 {
    let m = xs.clone().fold(0.0f64, |m, v| m.max(v.abs()));
    if m == 0.0 {
        return 0.0;
    }
    m * xs.map(|v| (v / m).powi(2)).sum::<f64>().sqrt()
}
