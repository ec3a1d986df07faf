//! Assertions shared by the bounds tests.

use dpref::Error;

/// `|a − b| ≤ tol·max(|a|, |b|)`.
pub fn assert_rel(a: f64, b: f64, tol: f64, what: &str) {
    assert!((a - b).abs() <= tol * a.abs().max(b.abs()), "{what}: {a} vs {b} (rel tol {tol})");
}

/// `r` is `InvalidParameter` naming `name`.
pub fn invalid(r: Result<impl std::fmt::Debug, Error>, name: &str) {
    match r {
        Err(Error::InvalidParameter { name: n, .. }) => assert_eq!(n, name, "wrong parameter named"),
        other => panic!("expected InvalidParameter({name}), got {other:?}"),
    }
}

/// For extreme inputs: `Err` is acceptable, `Ok(v)` must have every value `values(&v)` finite
/// (never ∞ or NaN in `Ok`).
pub fn finite_or_err<T: std::fmt::Debug>(r: Result<T, Error>, values: impl Fn(&T) -> Vec<f64>, what: &str) {
    if let Ok(v) = &r {
        assert!(values(v).iter().all(|x| x.is_finite()), "{what}: Ok({v:?}) is not finite");
    }
}

/// Positive magnitudes from 1e-300 to 1e300 for the extreme-input property tests.
pub const EXTREME_POSITIVE: [f64; 5] = [1e-300, 1e-10, 1.0, 1e10, 1e300];

/// The one value of a scalar result, for [`finite_or_err`].
pub fn scalar(v: &f64) -> Vec<f64> {
    vec![*v]
}

/// The two values of a pair result, for [`finite_or_err`].
pub fn pair(v: &(f64, f64)) -> Vec<f64> {
    vec![v.0, v.1]
}
