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
